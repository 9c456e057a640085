// panel_plan.cpp: the plan: every candidate in a table (fit, regime, memory, the stage's headline figures
// with their bands), and the selected candidate's memory terms, figures, phases and notes.
#include <imgui.h>

#include "charts.h"
#include "format.h"
#include "panels.h"

namespace hwplan::ui {

namespace {

const ImVec4 kError{1.0f, 0.45f, 0.40f, 1.0f};
const ImVec4 kGood{0.55f, 0.85f, 0.55f, 1.0f};

std::string summary_of(const Plan& p) {
    size_t fit = 0;
    for (const auto& c : p.candidates) fit += c.fits;
    std::string s = "Plan: " + p.model_id + ", " + std::string(name(p.stage)) + ": " + std::to_string(fit) + " of " +
                    std::to_string(p.candidates.size()) + " candidates fit";
    if (p.recommendation.found) s += "; recommended: " + p.recommendation.option.name;
    if (!p.candidates.empty()) {
        const auto& c = p.candidates.front();
        s += "; first: " + c.device + " x" + std::to_string(c.count) + ", " + show_bytes(c.memory.total_bytes) + " per device, " +
             std::string(name(c.regime));
        for (const auto& k : headline_keys(p.stage))
            if (auto it = c.figures.find(k); it != c.figures.end()) {
                s += ", " + k + " " + show_figure(k, it->second.value);
                break;
            }
    }
    return s;
}

void detail(const Candidate& c) {
    ImGui::Text("%s x%d", c.device_name.c_str(), c.count);
    ImGui::SameLine();
    ImGui::TextColored(c.fits ? kGood : kError, "%s", c.fits ? "fits" : "does not fit");
    ImGui::SameLine();
    ImGui::Text("| %s", std::string(name(c.regime)).c_str());
    ImGui::TextWrapped("%s", c.regime_why.c_str());
    if (c.count > 1)
        ImGui::TextDisabled("layout: tensor %d x pipeline %d x data %d%s", c.layout.tensor_parallel, c.layout.pipeline_parallel,
                            c.layout.data_parallel, c.layout.zero_stage ? (", ZeRO-" + std::to_string(c.layout.zero_stage)).c_str() : "");
    ImGui::Spacing();
    memory_bar(c.memory, ImGui::GetContentRegionAvail().x - 10, 18);
    if (ImGui::BeginTable("terms##terms", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("memory per device", ImGuiTableColumnFlags_WidthFixed, 130);
        ImGui::TableSetupColumn("bytes", ImGuiTableColumnFlags_WidthFixed, 80);
        ImGui::TableSetupColumn("what was counted");
        ImGui::TableHeadersRow();
        for (const auto& t : c.memory.terms) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(t.name.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(show_bytes(t.bytes).c_str());
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", t.why.c_str());
        }
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("total");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(show_bytes(c.memory.total_bytes).c_str());
        ImGui::TableNextColumn();
        ImGui::Text("of %s usable (range %s .. %s over the overhead assumptions)", show_bytes(c.memory.capacity_bytes).c_str(),
                    show_bytes(c.memory.total_low_bytes).c_str(), show_bytes(c.memory.total_high_bytes).c_str());
        ImGui::EndTable();
    }
    ImGui::Spacing();
    if (ImGui::BeginTable("figures##figures", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("figure", ImGuiTableColumnFlags_WidthFixed, 210);
        ImGui::TableSetupColumn("typical (low .. high)", ImGuiTableColumnFlags_WidthFixed, 260);
        ImGui::TableSetupColumn("how");
        ImGui::TableHeadersRow();
        for (const auto& [k, f] : c.figures) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(k.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(show_band(k, f).c_str());
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%s", std::string(name(f.label)).c_str());
            if (ImGui::IsItemHovered() && !f.why.empty()) ImGui::SetTooltip("%s", f.why.c_str());
            ImGui::SameLine();
            ImGui::TextWrapped("%s", f.why.c_str());
        }
        ImGui::EndTable();
    }
    for (const auto& n : c.notes) ImGui::TextWrapped("Note: %s", n.c_str());
}

} // namespace

std::string panel_plan(AppState& state) {
    const Plan& p = state.plan;
    if (!p.issues.empty()) {
        ImGui::TextColored(kError, "The workload cannot be planned yet:");
        for (const auto& i : p.issues) ImGui::TextColored(kError, "  %s", to_string(i).c_str());
        return "Error: " + to_string(p.issues.front());
    }
    ImGui::Text("%s: %s, %s parameters (%s active), weights %s", std::string(name(p.stage)).c_str(), p.model_name.c_str(),
                format_count(p.params).c_str(), format_count(p.active_params).c_str(), p.precision.weights.c_str());
    // The decision first: the recommended option, why, and what would move it.
    const auto& r = p.recommendation;
    ImGui::TextColored(r.found ? kGood : kError, "%s", r.found ? "Recommendation" : "No feasible option");
    ImGui::SameLine();
    ImGui::TextWrapped("%s", r.summary.c_str());
    for (const auto& reason : r.reasons) ImGui::BulletText("%s", reason.c_str());
    if (!r.lever.empty()) ImGui::BulletText("lever: %s", r.lever.c_str());
    if (!p.options.empty() && ImGui::TreeNode("options##options", "All options by cost per useful result (%zu)", p.options.size())) {
        if (ImGui::BeginTable("options##table", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp,
                              ImVec2(0, 180))) {
            ImGui::TableSetupScrollFreeze(0, 1);
            ImGui::TableSetupColumn("option", ImGuiTableColumnFlags_WidthFixed, 300);
            ImGui::TableSetupColumn("cost", ImGuiTableColumnFlags_WidthFixed, 220);
            ImGui::TableSetupColumn("per month", ImGuiTableColumnFlags_WidthFixed, 90);
            ImGui::TableSetupColumn("why");
            ImGui::TableHeadersRow();
            for (const auto& o : p.options) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextColored(o.feasible ? kGood : ImVec4(0.6f, 0.6f, 0.6f, 1), "%s", o.name.c_str());
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(o.cost.value > 0 ? (show_figure(o.unit, o.cost.value) + " " + unit_label(o.unit)).c_str() : "-");
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(o.usd_per_month >= 0 ? show_figure("usd_per_month", o.usd_per_month).c_str() : "-");
                ImGui::TableNextColumn();
                ImGui::TextWrapped("%s", o.reasons.empty() ? "" : o.reasons.front().c_str());
            }
            ImGui::EndTable();
        }
        ImGui::TreePop();
    }
    if (!p.missing_assumptions.empty() && ImGui::TreeNode("assumed##missing", "Assumed because not given (%zu)", p.missing_assumptions.size())) {
        for (const auto& m : p.missing_assumptions) ImGui::BulletText("%s", m.c_str());
        for (const auto& m : p.sensitivity) ImGui::BulletText("moves the answer: %s", m.c_str());
        ImGui::TreePop();
    }
    if (!state.card_markdown.empty() && ImGui::TreeNode("card##card", "Workload card (Markdown: select and copy)")) {
        ImGui::InputTextMultiline("##card_text", state.card_markdown.data(), state.card_markdown.size() + 1,
                                  ImVec2(-1, 220), ImGuiInputTextFlags_ReadOnly);
        ImGui::TreePop();
    }
    auto keys = headline_keys(p.stage);
    if (keys.size() > 3) keys.resize(3); // the table stays readable; the detail below lists every figure
    const float table_h = std::min(ImGui::GetContentRegionAvail().y * 0.42f, 24.0f * (static_cast<float>(p.candidates.size()) + 1.5f));
    if (ImGui::BeginTable("candidates##table", 5 + static_cast<int>(keys.size()),
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable,
                          ImVec2(0, table_h))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("device");
        ImGui::TableSetupColumn("count");
        ImGui::TableSetupColumn("fits");
        ImGui::TableSetupColumn("regime");
        ImGui::TableSetupColumn("memory / usable");
        for (const auto& k : keys) ImGui::TableSetupColumn(k.c_str());
        ImGui::TableHeadersRow();
        for (int i = 0; i < static_cast<int>(p.candidates.size()); ++i) {
            const auto& c = p.candidates[i];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            if (ImGui::Selectable((c.device + "##row" + std::to_string(i)).c_str(), state.selected == i, ImGuiSelectableFlags_SpanAllColumns))
                state.selected = i;
            ImGui::TableNextColumn();
            ImGui::Text("%d", c.count);
            ImGui::TableNextColumn();
            ImGui::TextColored(c.fits ? kGood : kError, "%s", c.fits ? "yes" : "no");
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(std::string(name(c.regime)).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%s / %s", show_bytes(c.memory.total_bytes).c_str(), show_bytes(c.memory.capacity_bytes).c_str());
            for (const auto& k : keys) {
                ImGui::TableNextColumn();
                auto it = c.figures.find(k);
                ImGui::TextUnformatted(it == c.figures.end() ? "-" : show_figure(k, it->second.value).c_str());
            }
        }
        ImGui::EndTable();
    }
    if (state.selected >= static_cast<int>(p.candidates.size())) state.selected = 0;
    if (!p.candidates.empty()) {
        ImGui::Separator();
        ImGui::BeginChild("detail##detail");
        detail(p.candidates[state.selected]);
        ImGui::EndChild();
    }
    return summary_of(p);
}

} // namespace hwplan::ui
