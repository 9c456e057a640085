// theme.h: the page's look: the embedded DejaVu Sans (subset at build time, rasterized by Dear ImGui 1.92 at
// the screen's pixel density), light and dark colour sets, and the chart palette that goes with each.
#pragma once
#include <imgui.h>

#include <string>

namespace hwplan::ui {

struct Palette {
    ImU32 good, bad, muted, accent, grid, text, highlight_row, chart_bg;
    ImU32 series[6]; // memory terms, chart series
};

void load_fonts();               // DejaVu Sans regular and bold from the embedded subset
ImFont* bold_font();             // headings (PushFont(bold_font(), size))
void apply_theme(bool light);    // ImGui style colours
ImVec4 background(bool light);   // the clear colour behind the windows
const Palette& palette();        // for the current theme
ImVec4 good_color();
ImVec4 bad_color();
std::string colors_json(bool light); // {light, background, child, frame, ..., series: [...]}: RGBA in 0..1, published for tests

// A child window inside another child window (the same ChildBg colour behind it): drawn without a background fill of
// its own, its border kept. Each nested fill repainted the same pixels: the browser's software rasterizer (SwiftShader,
// the only WebGL of a machine without a GPU) spends most of a frame filling pixels, and the plan side had three
// layers (right panel, detail, view) under its text. The same arguments as ImGui::BeginChild; end with EndChild.
bool begin_nested_child(const char* id, ImVec2 size, ImGuiChildFlags child_flags, ImGuiWindowFlags window_flags = 0);
// The same for a table that scrolls (ImGui draws its scrolling region as a child window with a background).
bool begin_nested_table(const char* id, int columns, ImGuiTableFlags flags, ImVec2 outer_size = ImVec2(0, 0));

} // namespace hwplan::ui
