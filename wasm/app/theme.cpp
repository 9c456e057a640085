// theme.cpp: fonts and colours (see theme.h). The fonts come from Debian's fonts-dejavu-core, cut by
// pyftsubset to the glyphs the page uses (wasm/CMakeLists.txt) and embedded as byte arrays.
#include "theme.h"

#include <cstdio>

#include "hwplan_fonts.inc" // kDejaVuSans, kDejaVuSansBold (generated at build time)

namespace hwplan::ui {

namespace {

constexpr float kFontSizePx = 15.0f;   // CSS pixels; 1.92 rasterizes at DisplayFramebufferScale
ImFont* g_bold = nullptr;
bool g_light = false;

// Text in any of these colours is at least 4.5:1 against what it is drawn on (WCAG 2.1 AA, 1.4.3; access.test.mjs
// computes every pair): the warning colour also on a selected table row, the series also as the What if tooltip's text.
constexpr Palette kDark = {
    IM_COL32(120, 210, 120, 255), IM_COL32(255, 150, 140, 255), IM_COL32(150, 155, 165, 255), IM_COL32(110, 170, 255, 255),
    IM_COL32(70, 74, 84, 255), IM_COL32(220, 223, 230, 255), IM_COL32(60, 95, 60, 160), IM_COL32(30, 32, 38, 255),
    {IM_COL32(90, 140, 220, 255), IM_COL32(230, 160, 60, 255), IM_COL32(120, 190, 110, 255), IM_COL32(200, 100, 160, 255),
     IM_COL32(150, 120, 220, 255), IM_COL32(150, 150, 150, 255)}};
constexpr Palette kLight = {
    IM_COL32(20, 130, 40, 255), IM_COL32(180, 30, 25, 255), IM_COL32(100, 104, 112, 255), IM_COL32(20, 90, 200, 255),
    IM_COL32(200, 203, 210, 255), IM_COL32(25, 28, 35, 255), IM_COL32(170, 225, 170, 200), IM_COL32(246, 247, 250, 255),
    {IM_COL32(50, 100, 200, 255), IM_COL32(170, 95, 0, 255), IM_COL32(40, 120, 40, 255), IM_COL32(190, 60, 140, 255),
     IM_COL32(120, 90, 200, 255), IM_COL32(105, 105, 105, 255)}};

} // namespace

void load_fonts() {
    ImGuiIO& io = ImGui::GetIO();
    ImFontConfig cfg;
    cfg.FontDataOwnedByAtlas = false; // static arrays
    io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(kDejaVuSans), static_cast<int>(sizeof kDejaVuSans), kFontSizePx, &cfg);
    g_bold = io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(kDejaVuSansBold), static_cast<int>(sizeof kDejaVuSansBold),
                                            kFontSizePx, &cfg);
    ImGui::GetStyle().FontSizeBase = kFontSizePx;
}

ImFont* bold_font() { return g_bold; }

void apply_theme(bool light) {
    g_light = light;
    ImGuiStyle& style = ImGui::GetStyle();
    if (light) ImGui::StyleColorsLight(&style);
    else ImGui::StyleColorsDark(&style);
    style.WindowRounding = 0;
    style.ChildRounding = 4;
    style.FrameRounding = 3;
    style.FramePadding = ImVec2(6, 4);
    style.ItemSpacing = ImVec2(8, 6);
    style.CellPadding = ImVec2(6, 3);
    style.ScrollbarSize = 14;
    // Muted text (hints, units, secondary lines) at least 4.5:1 against its background in both themes (WCAG 2.1 AA;
    // ImGui's defaults give 2.85:1 in the light theme and 4.2:1 in the dark one).
    if (!light) {
        style.Colors[ImGuiCol_WindowBg] = ImVec4(0.09f, 0.10f, 0.12f, 1.0f);
        style.Colors[ImGuiCol_ChildBg] = ImVec4(0.11f, 0.12f, 0.14f, 1.0f);
        style.Colors[ImGuiCol_TextDisabled] = ImVec4(0.66f, 0.67f, 0.70f, 1.0f); // 7:1 on the panels, 5.3:1 in a field
    } else {
        style.Colors[ImGuiCol_WindowBg] = ImVec4(0.97f, 0.97f, 0.98f, 1.0f);
        style.Colors[ImGuiCol_ChildBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
        style.Colors[ImGuiCol_TextDisabled] = ImVec4(0.40f, 0.41f, 0.44f, 1.0f); // 5.5:1 on white, 4.8:1 in a field
        // Fields on white panels: ImGui's light frames are white too, so give them a tint and a border.
        style.Colors[ImGuiCol_FrameBg] = ImVec4(0.93f, 0.94f, 0.96f, 1.0f);
        style.Colors[ImGuiCol_Border] = ImVec4(0.62f, 0.64f, 0.68f, 1.0f);
        style.FrameBorderSize = 1.0f;
    }
}

// The colours text is drawn in and on, as JSON (tests compute contrast ratios from them; access.test.mjs).
std::string colors_json(bool light) {
    const ImGuiStyle& style = ImGui::GetStyle();
    std::string s = light ? "{\"light\":true" : "{\"light\":false";
    auto add = [&](const char* key, const ImVec4& c) {
        char buf[96];
        std::snprintf(buf, sizeof buf, ",\"%s\":[%.4f,%.4f,%.4f,%.4f]", key, c.x, c.y, c.z, c.w);
        s += buf;
    };
    auto add32 = [&](const char* key, ImU32 c) { add(key, ImGui::ColorConvertU32ToFloat4(c)); };
    add("background", background(light));
    add("child", style.Colors[ImGuiCol_ChildBg]);
    add("frame", style.Colors[ImGuiCol_FrameBg]);
    add("popup", style.Colors[ImGuiCol_PopupBg]);
    add("header", style.Colors[ImGuiCol_Header]);
    add("button", style.Colors[ImGuiCol_Button]);
    add("row_alt", style.Colors[ImGuiCol_TableRowBgAlt]);
    add("text", style.Colors[ImGuiCol_Text]);
    add("muted", style.Colors[ImGuiCol_TextDisabled]);
    const Palette& p = palette();
    add32("good", p.good);
    add32("bad", p.bad);
    add32("accent", p.accent);
    add32("chart_text", p.text);
    add32("chart_muted", p.muted);
    add32("chart_bg", p.chart_bg);
    add32("highlight_row", p.highlight_row);
    s += ",\"series\":[";
    for (size_t i = 0; i < std::size(p.series); ++i) {
        const ImVec4 c = ImGui::ColorConvertU32ToFloat4(p.series[i]);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s[%.4f,%.4f,%.4f,%.4f]", i ? "," : "", c.x, c.y, c.z, c.w);
        s += buf;
    }
    return s + "]}";
}

ImVec4 background(bool light) { return light ? ImVec4(0.97f, 0.97f, 0.98f, 1) : ImVec4(0.09f, 0.10f, 0.12f, 1); }
const Palette& palette() { return g_light ? kLight : kDark; }
ImVec4 good_color() { return ImGui::ColorConvertU32ToFloat4(palette().good); }
ImVec4 bad_color() { return ImGui::ColorConvertU32ToFloat4(palette().bad); }

bool begin_nested_child(const char* id, ImVec2 size, ImGuiChildFlags child_flags, ImGuiWindowFlags window_flags) {
    // A transparent ChildBg while Begin draws the decorations: ImDrawList::AddRectFilled skips a fill with alpha 0, and
    // the border (ImGuiChildFlags_Borders) is still drawn, which ImGuiWindowFlags_NoBackground would drop too.
    ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(0, 0, 0, 0));
    const bool open = ImGui::BeginChild(id, size, child_flags, window_flags);
    ImGui::PopStyleColor();
    return open;
}

bool begin_nested_table(const char* id, int columns, ImGuiTableFlags flags, ImVec2 outer_size) {
    ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(0, 0, 0, 0));
    const bool open = ImGui::BeginTable(id, columns, flags, outer_size);
    ImGui::PopStyleColor();
    return open;
}

} // namespace hwplan::ui
