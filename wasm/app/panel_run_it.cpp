// panel_run_it.cpp: "Run it" on the recommendation card: the plan's deploy and measure commands (run_it.h) with a
// copy button each, the lines the benchmark should print, and a paste box whose benchmark output is read back
// against them (run_compare.h, read_back) into a predicted-against-measured table. The numbers are the core's;
// this file only draws them. Published: runit:open (the toggle under the headline), runit:section, runit:copy-deploy:I, runit:copy-measure:I, runit:paste,
// runit:compare, runit:error, runit:row:I, runit:measured:I:TEXT (the value as the tool printed it), runit:points-at:NAME.
#include <imgui.h>

#include <algorithm>
#include <cfloat>

#include "bridge.h"
#include "custom.h"
#include "format.h"
#include "hwplan/run_compare.h"
#include "panels.h"
#include "theme.h"

namespace hwplan::ui {

namespace {

// A command or config as read-only text (selectable), at most `max_lines` tall, with its copy button above it.
void command_box(AppState& state, const RunCommand& c, const std::string& name, int index) {
    ImGui::PushID(name.c_str());
    ImGui::PushID(index);
    if (ImGui::SmallButton("Copy")) hwplan_clipboard_write(c.text.c_str());
    publish(state, name + ":" + std::to_string(index));
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped((c.file.empty() ? c.what : c.what + ": write " + c.file).c_str());
    ImGui::PopStyleColor();
    const int lines = std::min(4, 1 + int(std::count(c.text.begin(), c.text.end(), '\n')));
    const float h = ImGui::GetTextLineHeight() * float(lines) + ImGui::GetStyle().FramePadding.y * 2 + 2;
    ImGui::InputTextMultiline("##text", const_cast<char*>(c.text.c_str()), c.text.size() + 1, ImVec2(-1, h), ImGuiInputTextFlags_ReadOnly);
    ImGui::PopID();
    ImGui::PopID();
}

void predicted_table(const RunIt& r) {
    if (!ImGui::BeginTable("predicted##runit", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
    ImGui::TableSetupColumn("benchmark line", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("predicted (band)", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (const auto& p : r.predicted) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(p.metric.c_str());
        if (!p.note.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.note.c_str());
        ImGui::TableNextColumn();
        const std::string v = format_sig(p.value, 4) + (p.banded ? "  (" + format_sig(p.low, 3) + " .. " + format_sig(p.high, 3) + ")" : "");
        ImGui::TextUnformatted(v.c_str());
    }
    ImGui::EndTable();
}

void comparison_table(AppState& state, const RunComparison& c) {
    const bool replanned = c.calibrated;
    if (!ImGui::BeginTable("compared##runit", replanned ? 6 : 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerV))
        return;
    ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthStretch, 2.2f);
    ImGui::TableSetupColumn("predicted (band)", ImGuiTableColumnFlags_WidthStretch, 2.0f);
    ImGui::TableSetupColumn("measured", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("ratio", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableSetupColumn("band", ImGuiTableColumnFlags_WidthStretch, 0.9f);
    if (replanned) ImGui::TableSetupColumn("re-planned", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < c.lines.size(); ++i) {
        const ComparedLine& l = c.lines[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(l.metric.c_str());
        publish(state, "runit:row:" + std::to_string(i));
        ImGui::TableNextColumn();
        const std::string p = format_sig(l.predicted, 4) + (l.banded ? " (" + format_sig(l.low, 3) + " .. " + format_sig(l.high, 3) + ")" : "");
        ImGui::TextUnformatted(p.c_str());
        ImGui::TableNextColumn();
        if (l.measured) {
            ImGui::TextUnformatted(l.text.c_str());
            publish(state, "runit:measured:" + std::to_string(i) + ":" + published_id(l.text));
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("line %d of the pasted text", l.line);
        } else {
            ImGui::TextDisabled("not printed");
        }
        ImGui::TableNextColumn();
        if (l.measured) ImGui::TextUnformatted(format_sig(l.ratio, 3).c_str());
        ImGui::TableNextColumn();
        if (l.measured) {
            if (!l.banded) ImGui::TextDisabled("no band");
            else ImGui::TextColored(l.in_band ? good_color() : bad_color(), "%s", l.in_band ? "holds" : "outside");
        }
        if (replanned) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(format_sig(l.replanned, 4).c_str());
        }
    }
    ImGui::EndTable();
    publish(state, "runit:table");
}

void read_back_now(AppState& state) {
    RunState& s = state.runit;
    const std::string text(s.text.data());
    s.result = read_back(page_catalog(state), state.workload.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "", text, today_iso());
    s.compared_for = state.planned_json;
    s.scroll_to_result = true;
}

} // namespace

void run_it_toggle(AppState& state) {
    RunState& s = state.runit;
    if (ImGui::SmallButton(s.open ? "Hide run it##runit_toggle" : "Run it: deploy, measure, compare##runit_toggle")) {
        s.open = !s.open;
        s.scroll_to_section = s.open;
    }
    publish(state, "runit:open");
}

void run_it_section(AppState& state) {
    const RunIt& r = state.shown.run;
    RunState& s = state.runit;
    if (!s.open) return;
    if (s.scroll_to_section) { // just opened: the section at the top of the card
        ImGui::SetScrollHereY(0.0f);
        s.scroll_to_section = false;
    }
    ImGui::SeparatorText("Run it: deploy, measure, compare");
    publish(state, "runit:section");
    if (!r.available) {
        text_wrappedf("No command: %s", r.reason.c_str());
        if (!r.entry_point.empty()) text_wrappedf("Entry point: %s", r.entry_point.c_str());
        return;
    }
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().accent), "Deploy");
    for (size_t i = 0; i < r.deploy.size(); ++i) command_box(state, r.deploy[i], "runit:copy-deploy", int(i));
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().accent), "Measure");
    for (size_t i = 0; i < r.measure.size(); ++i) command_box(state, r.measure[i], "runit:copy-measure", int(i));
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().accent), "Predicted: what the benchmark should print");
    predicted_table(r);
    for (const auto& n : r.notes) {
        ImGui::Bullet();
        text_wrapped(n.c_str());
    }

    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().accent), "Paste what the benchmark printed");
    ImGui::InputTextMultiline("##runit_text", s.text.data(), s.text.size(), ImVec2(-1, ImGui::GetTextLineHeight() * 4 + 8),
                              ImGuiInputTextFlags_AllowTabInput);
    publish(state, "runit:paste");
    if (ImGui::IsItemActive()) state.active_widget = "runit:paste";
    if (s.scroll_to_paste) { // after Clear: the box back in view for the next paste
        ImGui::SetScrollHereY(0.5f);
        s.scroll_to_paste = false;
    }
    const bool has_text = s.text[0] != 0;
    ImGui::BeginDisabled(!has_text);
    if (ImGui::Button("Compare##runit")) read_back_now(state);
    ImGui::EndDisabled();
    publish(state, "runit:compare");
    ImGui::SameLine();
    if (ImGui::Button("Clear##runit")) {
        std::fill(s.text.begin(), s.text.end(), 0);
        s.result = {};
        s.compared_for.clear();
        s.scroll_to_paste = true;
    }
    publish(state, "runit:clear");

    const RunComparison& c = s.result;
    if (!c.issues.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, bad_color());
        for (const auto& i : c.issues) text_wrapped(("Not compared: " + to_string(i)).c_str());
        ImGui::PopStyleColor();
        publish(state, "runit:error");
    } else if (!c.lines.empty()) {
        if (s.scroll_to_result) { // a new comparison: the table at the top of the card, what it points at below it
            ImGui::SetScrollHereY(0.0f);
            s.scroll_to_result = false;
        }
        if (s.compared_for != state.planned_json) ImGui::TextDisabled("The plan changed since: press Compare again.");
        comparison_table(state, c);
        if (!c.largest.empty()) {
            text_wrapped(("Largest difference: " + c.largest + ". Points at " + c.points_at + ". " + c.why).c_str());
            publish(state, "runit:points-at:" + published_id(c.points_at));
        }
        for (const auto& n : c.notes) {
            ImGui::Bullet();
            text_wrapped(n.c_str());
        }
        text_wrapped(("Calibration: " + c.calibration_note + (c.calibrated && !c.replanned_option.empty() ? "; re-planned: " + c.replanned_option : "")).c_str());
        publish(state, "runit:calibration");
        if (c.calibrated) {
            if (ImGui::Button("Plan with this calibration##runit")) custom_command(state, "extension", c.extension_json);
            publish(state, "runit:apply");
        }
    }
}

} // namespace hwplan::ui
