// charts.h: small charts drawn with ImDrawList (ImPlot is not packaged here).
#pragma once
#include "hwplan/plan.h"

namespace hwplan::ui {

void memory_bar(const MemoryUse& memory, float width, float height); // stacked terms, capacity marker

} // namespace hwplan::ui
