// plan_words.cpp: the plan side's words, for the canvas and the page's text mirror (see plan_words.h). Every
// figure is the core's, formatted through format.h; nothing here computes a number the core computes.
#include "plan_words.h"

#include <nlohmann/json.hpp>

#include "format.h"

namespace hwplan::ui {

// [SECTION] the recommendation card --------------------------------------------------------------------
CardWords card_words(const Plan& p) {
    const Recommendation& r = p.recommendation;
    CardWords w;
    w.workload = "The form's workload: " + std::string(name(p.stage)) + ", " + p.model_name + ", " + format_count(p.params) +
                 " parameters (" + format_count(p.active_params) + " active), weights " + p.precision.weights + ", KV cache " +
                 p.precision.kv_cache + ", compute " + p.precision.compute;
    w.heading = r.found ? "Recommendation" : "No feasible option";
    w.headline = r.headline;
    if (r.found)
        for (const auto& t : r.option.cost_terms) w.costs.emplace_back(t.term, t.value);
    if (r.found && r.option.cost.low != r.option.cost.high)
        w.cost_range = "unit cost range over the assumptions: " + show_figure(r.option.unit, r.option.cost.low) + " .. " +
                       show_figure(r.option.unit, r.option.cost.high) + " " + unit_label(r.option.unit);
    w.reasons = r.reasons;
    w.lever = r.lever;
    const Decision& d = p.decision;
    if (!d.guide.empty())
        w.guide = d.guide + " (" + d.guide_why + ")" +
                  (d.guide_agrees ? std::string("; the computed answer agrees") : d.guide_note.empty() ? std::string() : "; " + d.guide_note);
    for (size_t i = 0; i < d.checks.size(); ++i) w.checks.push_back(std::to_string(i + 1) + ". " + d.checks[i]);
    return w;
}

// [SECTION] the Devices table ----------------------------------------------------------------------------
namespace {

// The option's kind as its name says it ("own", "rent", "rent (spot)", "use owned"): the words before the count,
// as the headline reads the name (decide.cpp, headline()).
std::string kind_words(const Option& o) {
    const size_t count_at = o.name.find_first_of("0123456789");
    if (count_at == std::string::npos || count_at == 0) return "";
    return o.name.substr(0, count_at);
}

} // namespace

TableWords table_words(const Plan& p) {
    TableWords t;
    t.figure_keys = headline_keys(p.stage);
    if (t.figure_keys.size() > 3) t.figure_keys.resize(3); // the table stays readable; the detail lists every figure
    const std::string unit = p.options.empty() ? std::string() : p.options.front().unit;
    auto column = [&](TableColumn c, std::string header) {
        t.columns.push_back(c);
        t.headers.push_back(std::move(header));
    };
    column(TableColumn::rank, "rank");
    column(TableColumn::device, "device");
    column(TableColumn::fleet, "fleet");
    column(TableColumn::cost, unit.empty() ? "unit cost" : "$ " + unit_label(unit));
    for (const auto& k : t.figure_keys) column(TableColumn::figure, figure_label(k));
    column(TableColumn::regime, "limited by");
    column(TableColumn::memory, "memory per device / usable");
    column(TableColumn::why, "why");
    const std::string recommended = p.recommendation.found ? p.recommendation.option.device : std::string();
    for (size_t i = 0; i < p.candidates.size(); ++i) {
        const Candidate& c = p.candidates[i];
        const Option* o = c.option >= 0 && c.option < static_cast<int>(p.options.size()) ? &p.options[static_cast<size_t>(c.option)] : nullptr;
        TableRow row;
        row.device = c.device;
        row.ranked = o && o->feasible;
        row.recommended = !recommended.empty() && c.device == recommended;
        size_t figure = 0;
        for (const TableColumn col : t.columns) {
            switch (col) {
            case TableColumn::rank: row.cells.push_back(row.ranked ? std::to_string(i + 1) : o ? "out" : "-"); break;
            case TableColumn::device: row.cells.push_back(c.device_name); break;
            case TableColumn::fleet: row.cells.push_back(o ? kind_words(*o) + o->fleet : std::to_string(c.count)); break;
            case TableColumn::cost: row.cells.push_back(o && o->cost.value > 0 ? show_figure(o->unit, o->cost.value) : "-"); break;
            case TableColumn::figure: {
                const auto it = c.figures.find(t.figure_keys[figure++]);
                row.cells.push_back(it == c.figures.end() ? "-" : show_figure(it->first, it->second.value));
                break;
            }
            case TableColumn::regime: row.cells.push_back(std::string(name(c.regime))); break;
            case TableColumn::memory: row.cells.push_back(show_bytes(c.memory.total_bytes) + " / " + show_bytes(c.memory.capacity_bytes)); break;
            case TableColumn::why: {
                const std::string first = o && !o->reasons.empty() ? o->reasons.front() : std::string();
                // A feasible row ranked after the recommendation ahead of the price (cheaper-looking, yet lower) says
                // that step first: the ranking reason belongs on the row, not only in its detail.
                row.cells.push_back(!o ? "no option on this device" : o->feasible ? (o->rank_why.empty() ? first : o->rank_why) : "eliminated: " + first);
                break;
            }
            }
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

// [SECTION] the page's text mirror -----------------------------------------------------------------------
std::string mirror_json(const Plan& p) {
    using nlohmann::json;
    const CardWords card = card_words(p);
    const TableWords table = table_words(p);
    json costs = json::array();
    for (const auto& [term, value] : card.costs) costs.push_back({term, value});
    json rows = json::array();
    for (const auto& r : table.rows) rows.push_back(r.cells);
    const json j{{"workload", card.workload},
                 {"heading", card.heading},
                 {"headline", card.headline},
                 {"costs", std::move(costs)},
                 {"range", card.cost_range},
                 {"reasons", card.reasons},
                 {"lever", card.lever.empty() ? std::string() : std::string(kLeverLabel) + " " + card.lever},
                 {"guide", card.guide.empty() ? std::string() : std::string(kGuideLabel) + " " + card.guide},
                 {"checks_heading", card.checks.empty() ? "" : kChecksHeading},
                 {"checks", card.checks},
                 {"changes_heading", kChangesHeading},
                 {"changes", change_lines(p)},
                 {"table_heading", kDevicesHeading},
                 {"headers", table.headers},
                 {"rows", std::move(rows)}};
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace hwplan::ui
