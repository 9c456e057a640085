// fuzz_workload.cpp: libFuzzer target for the workload JSON (docs/workload.md) as the CLI, the page and
// the cards read it: parse, plan, every rendering, the card, the canonical export, and the team form.
// The first byte picks the entry point so one corpus reaches all of them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "hwplan/card.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"
#include "hwplan/plan.h"
#include "hwplan/render.h"
#include "hwplan/workload.h"

HWPLAN_FUZZ_TARGET(fuzz_workload) {
    if (size == 0) return 0;
    const hwplan::Catalog& cat = hwplan::embedded_catalog().catalog;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    switch (data[0] % 3) {
    case 0: { // plan: the CLI's and the page's path
        const hwplan::Plan p = hwplan::plan_from_json(text, cat);
        hwplan::fuzz::check_answer(hwplan::to_json(p), "plan");
        if (p.issues.empty()) {
            (void)hwplan::render_table(p);
            (void)hwplan::render_markdown(p);
        }
        break;
    }
    case 1: { // card: parse, export, load the export back, render the card
        const auto parsed = hwplan::parse_workload(text, cat);
        if (!parsed.issues.empty()) break;
        const std::string exported = hwplan::workload_to_json(parsed.workload);
        const auto again = hwplan::parse_workload(exported, cat);
        if (!again.issues.empty()) hwplan::fuzz::fail("the canonical export does not load back", exported);
        const hwplan::Plan p = hwplan::plan_from_json(text, cat, false);
        if (p.issues.empty()) (void)hwplan::render_card(p, parsed.workload, cat);
        break;
    }
    default: { // team: {"name", "cards": [workload, ...]}
        const hwplan::TeamPlan t = hwplan::team_plan(text, cat);
        if (t.issues.empty()) {
            (void)hwplan::render_team(t, cat);
            (void)hwplan::team_to_json(t);
        }
        break;
    }
    }
    return 0;
}
