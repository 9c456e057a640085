// hwplan/card.h: lesson 003's workload card (one page per workload: the worksheet fields, the memory
// estimate, the cost per useful result, the recommended path and the first load test) and the team plan
// over several cards (the fleet the cards add up to, with its monthly cost).
// Usage: std::string md = render_card(plan, workload);   TeamPlan t = team_plan(team_json, catalog);
#pragma once
#include <string>
#include <vector>

#include "hwplan/plan.h"
#include "hwplan/workload.h"

namespace hwplan {

// The path the lessons name for a recommendation: "GPU", "TPU", "CPU", "accelerator", "unified-memory SoC",
// "managed API", or "none" when nothing is feasible.
std::string recommended_path(const Plan& plan, const Catalog& catalog);

// The load test to run first on the recommended option, from the workload's own sizes and targets.
std::string first_load_test(const Plan& plan, const Workload& workload);

std::string render_card(const Plan& plan, const Workload& workload, const Catalog& catalog); // Markdown

struct TeamPlan {
    std::string name;
    std::vector<Workload> workloads;
    std::vector<Plan> plans;
    std::vector<double> card_usd_per_month; // each card's monthly cost (< 0: unknown, listed in unpriced)
    double usd_per_month = 0;            // sum over cards whose monthly cost is known
    std::vector<std::string> unpriced;   // cards without a monthly figure (and why)
    Issues issues;                       // "cards[1].serve.context_tokens: ..." when a card is invalid
};

// {"name": "...", "cards": [workload, ...]} -> a plan per card and the fleet's monthly cost.
TeamPlan team_plan(const std::string& team_json, const Catalog& catalog);
std::string render_team(const TeamPlan& team, const Catalog& catalog);   // Markdown: the fleet, then each card
std::string team_to_json(const TeamPlan& team);                         // loads back unchanged

} // namespace hwplan
