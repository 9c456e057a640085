// panel_weights.cpp: the model-weights calculator (first slice of the planner): a parameter count and a
// precision in, the weight memory and its breakdown out. All numbers come from hwplan_core.
#include <imgui.h>

#include "hwplan/format.h"
#include "hwplan/memory.h"
#include "hwplan/parse.h"
#include "panels.h"

namespace hwplan::ui {

namespace {

Rect last_item_rect() {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    return {a.x, a.y, b.x - a.x, b.y - a.y};
}

const ImVec4 kErrorColor{1.0f, 0.45f, 0.40f, 1.0f};

} // namespace

std::string panel_weights(AppState& state) {
    ImGui::TextWrapped("Model weights: how much memory a model's parameters need at a given precision.");
    ImGui::Separator();

    text_field(state, "Parameters##params", "params", state.params_text.data(), state.params_text.size(), 220);
    ImGui::SameLine();
    ImGui::TextDisabled("(7e9 for a 7B model)");

    const auto formats = all_precisions();
    ImGui::SetNextItemWidth(220);
    if (ImGui::BeginCombo("Precision##precision", std::string(name(formats[state.precision_index])).c_str())) {
        for (int i = 0; i < static_cast<int>(formats.size()); ++i) {
            const bool selected = i == state.precision_index;
            if (ImGui::Selectable(std::string(name(formats[i])).c_str(), selected)) state.precision_index = i;
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    state.widgets["precision"] = last_item_rect();
    ImGui::Separator();

    std::string summary;
    const auto params = parse_number(state.params_text.data());
    if (!params) {
        summary = "Error: params: expected a number such as 7e9";
        ImGui::TextColored(kErrorColor, "%s", summary.c_str());
    } else {
        const auto est =
            estimate_weights({.params = *params, .precision = std::string(name(formats[state.precision_index]))});
        if (!est.issues.empty()) {
            summary = "Error: " + to_string(est.issues.front());
            for (const auto& issue : est.issues) ImGui::TextColored(kErrorColor, "Error: %s", to_string(issue).c_str());
        } else {
            const std::string total = format_bytes(est.weights_bytes);
            const std::string why = format_count(est.params) + " parameters x " + format_sig(est.bytes_per_param) +
                                    " bytes (" + std::string(name(est.precision)) + ")";
            summary = "Weights: " + total + " = " + why;
            ImGui::Text("Weights");
            ImGui::SameLine(120);
            ImGui::Text("%s", total.c_str());
            ImGui::TextDisabled("= %s", why.c_str());
        }
    }
    return summary;
}

} // namespace hwplan::ui
