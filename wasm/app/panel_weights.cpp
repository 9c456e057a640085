// panel_weights.cpp: the model-weights calculator (first slice of the planner): a parameter count and a
// precision in, the weight memory and its breakdown out. All numbers come from hwplan_core; the help names
// lesson 001's bytes-per-parameter rule and the catalog's weight formats (catalog/formats.json) with their
// sources. Its inputs and the open tab travel in the link (workload_doc.cpp, "weights=" and "tab=").
#include <imgui.h>

#include <cstring>
#include <set>

#include "hwplan/format.h"
#include "hwplan/memory.h"
#include "hwplan/parse.h"
#include "panels.h"
#include "theme.h"

namespace hwplan::ui {

namespace {

// [SECTION] help texts ------------------------------------------------------------------------------
constexpr const char* kParamsHelp =
    "Total parameter count of the model, as a plain or scientific number or with a K, M, B or T suffix: 7e9 or 7B for a 7B "
    "model, 70e9 or 70B for 70B. The weights "
    "take count x bytes per parameter. Lesson 001 (Hardware for ML Practitioners, \"The GPU Memory Bottleneck\"): a model "
    "with P parameters in 16-bit floating point needs about 2P bytes for its weights, 2 x 7e9 = 14 GB for 7B. "
    "Default 7e9, that lesson's worked example.";

// One catalog format's line: "name: BITS bits per weight (meaning)".
std::string format_line(const WeightFormat& f) {
    std::string meaning = f.meaning;
    if (!meaning.empty() && meaning.back() == '.') meaning.pop_back(); // a sentence inside the parentheses
    return f.name + ": " + format_sig(f.bits_per_weight, 6) + " bits per weight (" + meaning + ")";
}

// The source of a catalog format as the catalog records it: title, publisher, URL and the date it was read.
std::string source_line(const Source& s) {
    return s.title + ", " + s.publisher + ", " + s.url + " (read " + s.read_on + ")";
}

const Source* format_source(const Catalog& cat, const WeightFormat& f) {
    for (const auto& s : cat.format_sources)
        if (s.id == f.source) return &s;
    return nullptr;
}

// The precision row's help: this check's bytes per parameter (hwplan/precision.h), its default, then the
// catalog's formats with the same names (what the full plan counts) and their sources.
std::string precision_help(const Catalog& cat) {
    std::string out = "How each weight is stored. Bytes per parameter in this check:";
    for (Precision p : all_precisions()) out += " " + std::string(name(p)) + " " + format_sig(bytes_per_value(p)) + ",";
    out.back() = '.';
    out += " Lesson 001 counts 2 bytes per parameter at 16 bits. Default bf16 (2 bytes).\n\n"
           "The full plan takes each format from catalog/formats.json, scales and zero points included:";
    std::set<std::string> sources;
    std::string differs;
    for (Precision p : all_precisions()) {
        const WeightFormat* f = cat.find_format(std::string(name(p)));
        if (!f) continue;
        out += "\n- " + format_line(*f);
        sources.insert(f->source);
        if (f->bits_per_weight != 8 * bytes_per_value(p)) differs += (differs.empty() ? "" : ", ") + f->name;
    }
    if (!differs.empty()) out += "\nThis check counts the bare element width for " + differs + "; the plan adds the scales.";
    out += "\n\nSources:";
    for (const auto& f : cat.formats)
        if (sources.erase(f.source))
            if (const Source* s = format_source(cat, f)) out += "\n- " + source_line(*s);
    return out;
}

// The characters a count can hold (hwplan::parse_count): a scientific number and a K, M, B or T suffix. ImGui's
// CharsScientific alone dropped the "B" of "3B", which then read as 3 parameters.
int count_chars(ImGuiInputTextCallbackData* data) {
    const ImWchar c = data->EventChar;
    if (c > 0 && c < 128 && std::strchr("0123456789.+-eEkKmMbBtT ", static_cast<char>(c))) return 0;
    return 1;
}

} // namespace

// [SECTION] panel -----------------------------------------------------------------------------------
std::string panel_weights(AppState& state, const Catalog& catalog) {
    publish_region(state, "weights:panel");
    ImGui::TextWrapped("Model weights: how much memory a model's parameters need at a given precision.");
    ImGui::Separator();

    row_label(state, "params", "Parameters", kParamsHelp, 220);
    ImGui::InputText("##params", state.params_text.data(), state.params_text.size(),
                     ImGuiInputTextFlags_AutoSelectAll | ImGuiInputTextFlags_CallbackCharFilter, count_chars);
    publish(state, "params");
    if (ImGui::IsItemActive()) state.active_widget = "params";

    const std::string help = precision_help(catalog);
    const auto formats = all_precisions();
    row_label(state, "precision", "Precision", help.c_str(), 220);
    if (ImGui::BeginCombo("##precision", std::string(name(formats[state.precision_index])).c_str())) {
        for (int i = 0; i < static_cast<int>(formats.size()); ++i) {
            const bool selected = i == state.precision_index;
            if (ImGui::Selectable(std::string(name(formats[i])).c_str(), selected)) state.precision_index = i;
            publish(state, "precision:" + std::string(name(formats[i])));
            if (ImGui::IsItemHovered())
                if (const WeightFormat* f = catalog.find_format(std::string(name(formats[i]))))
                    ImGui::SetTooltip("%s", format_line(*f).c_str());
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    publish(state, "precision");
    ImGui::Separator();

    std::string summary;
    const auto params = parse_count(state.params_text.data());
    ImGui::PushTextWrapPos(0.0f); // an error wraps inside the panel instead of being cut off
    if (!params) {
        summary = "Error: params: expected a number such as 7e9 or 7B";
        ImGui::TextColored(bad_color(), "%s", summary.c_str());
    } else {
        const auto est =
            estimate_weights({.params = *params, .precision = std::string(name(formats[state.precision_index]))});
        if (!est.issues.empty()) {
            summary = "Error: " + to_string(est.issues.front());
            for (const auto& issue : est.issues) ImGui::TextColored(bad_color(), "Error: %s", to_string(issue).c_str());
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
    ImGui::PopTextWrapPos();
    return summary;
}

} // namespace hwplan::ui
