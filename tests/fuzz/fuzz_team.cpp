// fuzz_team.cpp: libFuzzer target for a team of workloads ({"name", "cards": [workload, ...]}, card.h) as
// `hwplan team` and the page's team view read it: the team plan, its Markdown and its JSON, which must parse
// as JSON and load back as the same team.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "hwplan/card.h"
#include "hwplan/catalog_embedded.h"

HWPLAN_FUZZ_TARGET(fuzz_team) {
    if (size > 32768) return 0; // every card is planned
    const hwplan::Catalog& cat = hwplan::embedded_catalog().catalog;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const hwplan::TeamPlan t = hwplan::team_plan(text, cat);
    hwplan::fuzz::check_issues(t.issues, text);
    if (!t.issues.empty()) return 0;
    (void)hwplan::render_team(t, cat);
    const std::string exported = hwplan::team_to_json(t);
    if (nlohmann::json::parse(exported, nullptr, false).is_discarded()) hwplan::fuzz::fail("the team's JSON does not parse", exported);
    const hwplan::TeamPlan again = hwplan::team_plan(exported, cat);
    if (!again.issues.empty()) hwplan::fuzz::fail("the team's JSON does not load back", hwplan::to_string(again.issues.front()) + " in " + exported);
    if (again.workloads.size() != t.workloads.size()) hwplan::fuzz::fail("the team's JSON loads back with other cards", exported);
    return 0;
}
