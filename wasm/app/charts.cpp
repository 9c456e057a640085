// charts.cpp: a stacked bar of a candidate's memory terms against its usable capacity, drawn with
// ImDrawList in ImPlot's staged way: data -> bar-to-pixel transform -> primitives clipped to the bar.
#include <imgui.h>

#include <algorithm>

#include "charts.h"
#include "format.h"

namespace hwplan::ui {

namespace {

constexpr ImU32 kTermColors[] = {IM_COL32(90, 140, 220, 255), IM_COL32(230, 160, 60, 255), IM_COL32(120, 190, 110, 255),
                                 IM_COL32(200, 100, 160, 255), IM_COL32(150, 120, 220, 255), IM_COL32(150, 150, 150, 255)};

} // namespace

void memory_bar(const MemoryUse& m, float width, float height) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const double scale_max = std::max(m.total_bytes, m.capacity_bytes) * 1.05;
    if (scale_max <= 0) return;
    auto x_of = [&](double bytes) { return origin.x + static_cast<float>(bytes / scale_max) * width; }; // data -> pixels
    dl->PushClipRect(origin, ImVec2(origin.x + width, origin.y + height), true);
    dl->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), IM_COL32(40, 42, 50, 255));
    double at = 0;
    size_t i = 0;
    for (const auto& t : m.terms) {
        if (t.bytes <= 0) { ++i; continue; }
        const ImVec2 a(x_of(at), origin.y), b(x_of(at + t.bytes), origin.y + height);
        dl->AddRectFilled(a, b, kTermColors[i % std::size(kTermColors)]);
        at += t.bytes;
        ++i;
    }
    const float cap = x_of(m.capacity_bytes);
    dl->AddLine(ImVec2(cap, origin.y - 2), ImVec2(cap, origin.y + height + 2), IM_COL32(255, 255, 255, 255), 2.0f);
    dl->PopClipRect();
    ImGui::Dummy(ImVec2(width, height + 4));
    // Legend: one colour per term, then the capacity marker.
    i = 0;
    for (const auto& t : m.terms) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(ImVec2(p.x, p.y + 3), ImVec2(p.x + 10, p.y + 13), kTermColors[i++ % std::size(kTermColors)]);
        ImGui::Dummy(ImVec2(12, 14));
        ImGui::SameLine();
        ImGui::Text("%s %s", t.name.c_str(), show_bytes(t.bytes).c_str());
        ImGui::SameLine(0, 14);
    }
    ImGui::Text("| usable %s", show_bytes(m.capacity_bytes).c_str());
}

} // namespace hwplan::ui
