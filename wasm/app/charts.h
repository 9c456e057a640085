// charts.h: small charts drawn with ImDrawList in ImPlot's staged way (data -> plot-to-pixel transform ->
// primitives clipped to the plot rectangle); ImPlot is not packaged here. Hovering shows exact values.
#pragma once
#include "hwplan/plan.h"

namespace hwplan::ui {

void memory_bar(const MemoryUse& memory, float width, float height);   // stacked terms against usable capacity
void roofline_chart(const Candidate& candidate, float width, float height); // ceilings and each phase as a point
void cost_bars(const Plan& plan, float width);                         // cost per useful result, with its band
void breakeven_chart(const Plan& plan, float width, float height);     // months to break even vs hours used

} // namespace hwplan::ui
