// plan_words.h: the words the plan side shows, built once from a Plan for both of its readers: the canvas
// (panel_plan.cpp draws them) and the page's text mirror beside it (#hwplan-mirror, for screen readers, find in
// page, selection, translation and printing), so the two cannot say different things. Browser-free C++: the
// unit tests compile it natively.
// Usage: const CardWords card = card_words(plan);  const TableWords table = table_words(plan);
//        hwplan_publish_mirror(mirror_json(plan).c_str());
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "hwplan/plan.h"

namespace hwplan::ui {

// The recommendation card, top to bottom.
struct CardWords {
    std::string workload;                                  // "The form's workload: serve, Mistral 7B, 7.2 billion parameters ..."
    std::string heading;                                   // "Recommendation" or "No feasible option"
    std::string headline;                                  // the core's recommendation.headline
    std::vector<std::pair<std::string, std::string>> costs; // each cost term and its value (the option's cost_terms)
    std::string cost_range;                                // "unit cost range over the assumptions: ..."; "" when the cost has no band
    std::vector<std::string> reasons;                      // the recommendation's reasons
    std::string lever;                                     // what would move the binding resource; "" when none
    std::string guide;                                     // lesson 004's first cut beside the computed answer; "" when none
    std::vector<std::string> checks;                       // the three checks before buying, numbered
};
inline constexpr const char* kLeverLabel = "What would change it:";
inline constexpr const char* kGuideLabel = "Lesson 004's first cut:";
inline constexpr const char* kChecksHeading = "The three checks before buying";
inline constexpr const char* kChangesHeading = "What would change the answer";
inline constexpr const char* kDevicesHeading = "Devices";

// The Devices table: one row a candidate device, in the plan's rank, showing its best-ranked option
// (Candidate::option): rank ("out" when feasibility eliminated it), device, fleet (the option's kind and devices
// paid for, with replicas, as the headline says them), unit cost, the stage's headline figures, the regime,
// memory, and why (the option's first reason, "eliminated: ..." when it did not survive).
enum class TableColumn { rank, device, fleet, cost, figure, regime, memory, why };
struct TableRow {
    std::string device;                 // catalog id
    bool ranked = false;                // its best option survived feasibility (false: eliminated, or no option on it)
    bool recommended = false;           // the recommendation's device
    std::vector<std::string> cells;     // one per column, as drawn
};
struct TableWords {
    std::vector<std::string> headers;   // column headers, as drawn
    std::vector<TableColumn> columns;   // what each column is
    std::vector<std::string> figure_keys; // the figure columns' keys, in order
    std::vector<TableRow> rows;         // the plan's order (rank 1 first)
};

CardWords card_words(const Plan& plan);     // the recommendation card's words
TableWords table_words(const Plan& plan);   // the Devices table's words
// The page's text mirror as JSON: {heading, workload, headline, costs: [[term, value]], range, reasons, lever, guide,
// checks_heading, checks, changes_heading, changes, table_heading, headers, rows: [[cell, ...]]} (bridge.cpp draws it).
std::string mirror_json(const Plan& plan);

} // namespace hwplan::ui
