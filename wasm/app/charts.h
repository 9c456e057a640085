// charts.h: small charts drawn with ImDrawList in ImPlot's staged way (data -> plot-to-pixel transform ->
// primitives clipped to the plot rectangle); ImPlot is not packaged here. Hovering shows exact values.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

#include "hwplan/plan.h"

namespace hwplan::ui {

void memory_bar(const MemoryUse& memory, float width, float height);   // stacked terms against usable capacity
void roofline_chart(const Candidate& candidate, float width, float height); // ceilings and each phase as a point
void cost_bars(const Plan& plan, float width);                         // cost per useful result, with its band
void breakeven_chart(const Plan& plan, float width, float height);     // months to break even vs hours used

// A what-if chart: curves over one input, each point with its low .. high band drawn as a shaded range.
struct Curve {
    std::string label;          // "time to first token"
    std::string key;            // figure key ("ttft_s", "rent_cost")
    std::string format_key;     // the key whose unit the values are shown in ("" = key; a cost: the plan's unit)
    const std::string& unit() const { return format_key.empty() ? key : format_key; }
    std::vector<double> x;      // axis values (increasing)
    std::vector<Figure> y;      // one per x
};
struct CurveChart {
    std::string x_label;        // "concurrent users"
    std::string x_key;          // how to format x ("users", "tokens", "ratio")
    bool log_x = false;         // powers-of-two inputs read best on a log axis
    std::vector<Curve> curves;
    double today_x = -1;        // the workload's value: a dashed vertical marker (< 0: none)
    double limit_y = -1;        // a horizontal limit (usable memory, a target) (< 0: none)
    std::string limit_label;
    double cross_x = -1;        // a vertical line where two curves cross (buy-or-rent break-even) (< 0: none)
    std::string cross_label;
};
struct ChartHover {
    int point = -1;                          // index into the x values under the pointer (-1: none)
    std::vector<std::vector<ImVec2>> at;     // pixel position of each curve's points (for tests, assistive tech)
};
ChartHover curve_chart(const char* id, const CurveChart& chart, float width, float height);
std::string show_axis_value(const std::string& x_key, double x); // "32 users", "8,192 tokens", "45 %"

} // namespace hwplan::ui
