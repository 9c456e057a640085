// hwplan/render.h: a Plan as text for people: a terminal table (the CLI) and a Markdown worksheet (the
// CLI and the web page's export). Pure functions; all unit conversion for display happens here.
// Usage: std::puts(render_table(plan).c_str());
#pragma once
#include <string>
#include <vector>

#include "hwplan/plan.h"

namespace hwplan {

std::string render_table(const Plan& plan, size_t max_candidates = 12);
std::string render_markdown(const Plan& plan, size_t max_candidates = 8);
std::string format_figure(const std::string& key, double value); // "1.2 s", "45 tokens/s", "1.3 GB", "$0.12"
std::string unit_label(const std::string& unit_key);
// An option's unit cost as every line that names it says it (the headline, the best of each kind, the runner-up): the
// figure and its unit ("$1.94 per million output tokens"), else why there is none (priced but its speed not modelled:
// cost.why, "unit cost not modelled (...), at $0.1076 an hour for the devices"; no public price: "price not in the catalog").
std::string unit_cost_words(const Option& o);
// The reason a feasible option carries when the recommendation goes before it at a step ahead of the price (its
// owner, the priority, the largest fast domain, ...): this prefix, the step, then ": " and the figures compared.
inline constexpr const char* kRankedAfter = "ranked after the recommendation on ";
// The decision's steps for people (lesson 004): choose.go's first cut and where the answer differs, what
// feasibility eliminated (at most `max_eliminated` lines, then a count), and the three checks.
std::vector<std::string> decision_lines(const Plan& plan, size_t max_eliminated = 8);
// The recommendation as every surface opens it (CLI table, Markdown, card, page): the headline sentence,
// then its cost breakdown, one term a line. Markdown: "**Recommendation:** ..." and a term | value table.
std::string recommendation_markdown(const Recommendation& r);
std::string recommendation_text(const Recommendation& r); // the CLI table's lines
// What would change the answer, as every surface prints it (CLI, Markdown, card, page): the best option of each
// kind with its cost per result, then each flip point's sentence (Plan::best_by_kind, Plan::flips).
std::vector<std::string> change_lines(const Plan& plan);
std::vector<std::string> headline_keys(Stage stage);             // the figures a stage leads with, in order             // "usd_per_million_output_tokens" -> "per million output tokens"

} // namespace hwplan
