// app_state.h: the only mutable state of the web planner. Widgets edit it each frame; the core computes
// from it; panels draw the result read-only (Dear ImGui's immediate-mode pattern).
#pragma once
#include <array>

namespace hwplan::ui {

// Screen rectangle of a widget in CSS pixels, published to the page for accessibility and tests.
struct Rect {
    float x = 0, y = 0, w = 0, h = 0;
    bool operator==(const Rect&) const = default;
};

struct AppState {
    std::array<char, 64> params_text{"7e9"}; // parameter count as typed ("7e9", "70000000000")
    int precision_index = 1;                 // index into hwplan::all_precisions(); 1 = bf16
    // Layout published for the page (hwplan.js, tests); written by panels, read by main.cpp.
    Rect params_rect;
    Rect precision_rect;
    bool params_active = false; // the parameter field has keyboard focus (tests wait for it before typing)
};

} // namespace hwplan::ui
