// panel_workload.cpp: the workload form. It edits the workload document (state.workload) in place, one
// field at a time, so whatever the document holds beyond the form (a scenario's device list, speed target,
// usage, traffic classes) is kept. Numbers are held as typed; the core validates them and a problem is shown
// at its field while the last valid plan stays on screen.
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdarg>
#include <string>
#include <string_view>
#include <cstdio>
#include <set>

#include "fields.h"
#include "format.h"
#include "hwplan/parse.h"
#include "hwplan/precision.h"
#include "panels.h"
#include "theme.h"
#include "workload_doc.h"

namespace hwplan::ui {

namespace {

constexpr const char* kStages[] = {"serve", "batch", "embed", "finetune", "pretrain", "rl", "edge"};
constexpr const char* kStageHelp[] = {"interactive serving: users wait for each answer", "offline batch generation",
                                      "an embedding job (encoder model)", "fine-tuning", "pretraining",
                                      "RL post-training: a trainer and a rollout pool", "one user on a local device"};
constexpr const char* kMethods[] = {"full", "lora", "qlora"};
constexpr const char* kOptimizers[] = {"adamw", "adamw_fp32", "adamw_8bit", "sgd", "adafactor"};
constexpr const char* kCheckpointing[] = {"none", "selective", "full"};
constexpr float kNumberWidth = 118.0f; // CSS pixels for a number input (labels get the rest)

int stage_index(const nlohmann::json& w) {
    const std::string s = w.value("stage", std::string("serve"));
    for (int i = 0; i < 7; ++i)
        if (s == kStages[i]) return i;
    return 0;
}

// The problems of the current document at `path` (or below it).
std::vector<const Issue*> issues_at(const AppState& state, const std::string& path) {
    std::vector<const Issue*> out;
    for (const auto& i : state.plan.issues)
        if (i.path == path || i.path.rfind(path + ".", 0) == 0 || i.path.rfind(path + "[", 0) == 0) out.push_back(&i);
    return out;
}

void show_issues(const AppState& state, const std::string& path, std::set<const Issue*>& shown) {
    for (const Issue* i : issues_at(state, path)) {
        if (shown.count(i)) continue;
        shown.insert(i);
        ImGui::PushStyleColor(ImGuiCol_Text, bad_color());
        ImGui::TextWrapped("%s", i->message.c_str());
        ImGui::PopStyleColor();
    }
}

void number_field(AppState& state, const FieldSpec& f, std::set<const Issue*>& shown) {
    const std::string path = f.path;
    const std::string name = path == "model.params" ? "custom_params" : path.substr(path.find('.') + 1);
    row_label(state, name, f.label, f.help, kNumberWidth);
    auto& buf = state.text[f.path];
    const std::string id = std::string("##") + f.path;
    const bool bad = !issues_at(state, f.path).empty();
    if (bad) {
        ImVec4 c = bad_color();
        c.w = 0.35f;
        ImGui::PushStyleColor(ImGuiCol_FrameBg, c);
    }
    ImGui::InputTextWithHint(id.c_str(), "default", buf.data(), buf.size(), ImGuiInputTextFlags_AutoSelectAll);
    if (bad) ImGui::PopStyleColor();
    if (ImGui::IsItemActivated()) remember(state);
    if (ImGui::IsItemEdited()) set_field(state, f.path, buf.data());
    publish(state, name);
    if (ImGui::IsItemActive()) state.active_widget = name;
    show_issues(state, f.path, shown);
}

template <size_t N> void choice_field(AppState& state, const char* label, const char* help, const char* path, const char* const (&items)[N],
                                      const char* fallback) {
    row_label(state, path, label, help);
    const std::string current = field_text(state.workload, path);
    const std::string shown_text = current.empty() ? std::string(fallback) + " (default)" : current;
    if (ImGui::BeginCombo((std::string("##") + path).c_str(), shown_text.c_str())) {
        for (const char* item : items)
            if (ImGui::Selectable(item, current == item)) {
                remember(state);
                set_value(state, path, item);
            }
        ImGui::EndCombo();
    }
    publish(state, path);
}

void section_heading(const char* title) {
    ImGui::Spacing();
    ImGui::PushFont(bold_font(), 0.0f);
    ImGui::TextUnformatted(title);
    ImGui::PopFont();
    ImGui::Separator();
}

} // namespace

Rect item_rect() {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    return {a.x, a.y, b.x - a.x, b.y - a.y};
}

void publish(AppState& state, const std::string& name) { state.widgets[name] = item_rect(); }

void publish_region(AppState& state, const std::string& name) {
    const ImVec2 at = ImGui::GetCursorScreenPos(), pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    state.widgets[name] = {at.x, pos.y, ImGui::GetContentRegionAvail().x, size.y};
}

// ImGui's TextWrapped also breaks a line after '.', ',' and ';' (its word-wrap rule allows a break after
// punctuation), which split "$1.052 a month" into "$1." and "052" on the team card. Paragraphs here break at
// spaces only, at the width TextWrapped would use (the pushed wrap position, else the content region's edge);
// a word wider than that stays whole. The lines form one group, so the item rectangle covers the paragraph.
void text_wrapped(const char* text) {
    ImGuiWindow* window = ImGui::GetCurrentWindow();
    const float wrap_pos = window->DC.TextWrapPos >= 0 ? window->DC.TextWrapPos : 0.0f;
    const float width = std::max(1.0f, ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos));
    ImGui::BeginGroup();
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0.0f)); // lines as close as TextWrapped's
    std::string_view rest(text ? text : "");
    std::string line;
    for (;;) {
        const size_t nl = rest.find('\n');
        const std::string_view para = rest.substr(0, nl);
        for (size_t i = 0; i <= para.size();) {
            size_t j = para.find(' ', i);
            if (j == std::string_view::npos) j = para.size();
            const std::string word(para.substr(i, j - i));
            std::string longer = line.empty() ? word : line + " " + word;
            if (!line.empty() && ImGui::CalcTextSize(longer.c_str()).x > width) {
                ImGui::TextUnformatted(line.c_str());
                longer = word;
            }
            line = std::move(longer);
            i = j + 1;
        }
        ImGui::TextUnformatted(line.c_str());
        line.clear();
        if (nl == std::string_view::npos) break;
        rest.remove_prefix(nl + 1);
    }
    ImGui::PopStyleVar();
    ImGui::EndGroup();
}

void text_wrappedf(const char* fmt, ...) {
    va_list args, again;
    va_start(args, fmt);
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, fmt, args);
    va_end(args);
    std::string text(n > 0 ? static_cast<size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(text.data(), text.size() + 1, fmt, again);
    va_end(again);
    text_wrapped(text.c_str());
}

bool help_marker(const char* text) {
    ImGui::TextDisabled("(?)");
    if (!ImGui::IsItemHovered()) return false;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
    return true;
}

void row_label(AppState& state, const std::string& name, const char* label, const char* help, float input_width) {
    constexpr float kChoiceShare = 0.55f;   // share of the row for a choice (model and device names are long)
    constexpr float kMinInputWidth = 90.0f; // CSS pixels: narrower than this, the widget moves below its label
    const float row = ImGui::GetContentRegionAvail().x;
    float input = std::min(row, input_width > 0 ? input_width : row * kChoiceShare);
    const float x0 = ImGui::GetCursorPosX();
    const ImVec2 start = ImGui::GetCursorScreenPos();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(label);
    if (help) {
        ImGui::SameLine();
        if (help_marker(help)) state.help_open = name, state.help_text = help; // published: tests and assistive tech read it
        publish(state, name + ":help");
    }
    const float label_w = ImGui::GetItemRectMax().x - start.x; // the label and its "(?)"
    state.widgets[name + ":label"] = {start.x, start.y, label_w, ImGui::GetFrameHeight()};
    const float room = row - label_w - ImGui::GetStyle().ItemSpacing.x;
    if (room >= kMinInputWidth) {
        input = std::min(input, room);
        ImGui::SameLine(x0 + row - input);
    } else {
        ImGui::SetCursorPosX(x0 + row - input); // its own line, right-aligned under the label
    }
    ImGui::SetNextItemWidth(input);
}

bool text_field(AppState& state, const char* label, const char* name, char* buf, size_t size, float width) {
    ImGui::SetNextItemWidth(width);
    const bool changed = ImGui::InputText(label, buf, size, ImGuiInputTextFlags_AutoSelectAll | ImGuiInputTextFlags_CharsScientific);
    state.widgets[name] = item_rect();
    if (ImGui::IsItemActive()) state.active_widget = name;
    return changed;
}

void panel_workload(AppState& state, const Catalog& cat) {
    nlohmann::json& w = state.workload;
    std::set<const Issue*> shown;
    const Plan& resolved = state.plan.issues.empty() ? state.plan : state.shown; // resolved names and precisions
    publish_region(state, "workload:panel");

    section_heading("The job");
    {
        int stage = stage_index(w);
        row_label(state, "stage", "Stage", "What the hardware is for. Serving and batch generation share the token fields; fine-tuning, "
                           "pretraining and RL add a trainer; embedding jobs count items (docs/workload.md).");
        if (ImGui::Combo("##stage", &stage, kStages, 7)) {
            remember(state);
            set_value(state, "stage", kStages[stage]);
        }
        publish(state, "stage");
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", kStageHelp[stage_index(w)]);
        ImGui::PopStyleColor();
        show_issues(state, "stage", shown);
    }
    {
        const nlohmann::json* m = field(w, "model");
        const bool custom = m && m->is_object();
        std::string label = "custom size";
        if (custom) label = m->size() > 1 ? "custom architecture" : "custom size";
        else if (m && m->is_string()) {
            label = m->get<std::string>();
            if (auto r = resolve_model(cat, label); r.item) label = r.item->name;
        }
        row_label(state, "model", "Model", "A catalog model (its architecture sets the KV cache and activations), or a custom size: "
                           "the parameter count only.");
        if (ImGui::BeginCombo("##model", label.c_str(), ImGuiComboFlags_HeightLarge)) {
            if (ImGui::Selectable("custom size (parameter count only)", custom)) {
                remember(state);
                set_value(state, "model", nlohmann::json{{"params", resolved.params > 0 ? resolved.params : 7e9}});
                sync_text(state);
            }
            for (const auto& model : cat.models)
                if (ImGui::Selectable(model.name.c_str(), !custom && resolved.model_id == model.id)) {
                    remember(state);
                    set_value(state, "model", model.id);
                }
            ImGui::EndCombo();
        }
        publish(state, "model");
        if (custom) number_field(state, kFields[0], shown);
        show_issues(state, "model", shown);
    }

    section_heading("Precision");
    {
        const auto numeric = all_precisions();
        auto set_precision = [&](const std::string& key, const std::string& value) {
            remember(state);
            nlohmann::json p = {{"weights", resolved.precision.weights}, {"kv_cache", resolved.precision.kv_cache},
                                {"compute", resolved.precision.compute}};
            p[key] = value;
            set_value(state, "precision", p);
        };
        row_label(state, "weights", "Weights", "How the weights are stored (catalog/formats.json: bits per weight including scales). Default bf16.");
        if (ImGui::BeginCombo("##weights", resolved.precision.weights.c_str(), ImGuiComboFlags_HeightLarge)) {
            for (const auto& f : cat.formats)
                if (ImGui::Selectable((f.name + "  (" + format_sig(f.bits_per_weight, 4) + " bits)").c_str(), f.name == resolved.precision.weights))
                    set_precision("weights", f.name);
            ImGui::EndCombo();
        }
        publish(state, "weights");
        auto numeric_combo = [&](const char* label, const char* help, const char* key, const std::string& current) {
            row_label(state, key, label, help);
            if (ImGui::BeginCombo((std::string("##") + key).c_str(), current.c_str())) {
                for (auto p : numeric)
                    if (ImGui::Selectable(std::string(name(p)).c_str(), current == name(p))) set_precision(key, std::string(name(p)));
                ImGui::EndCombo();
            }
            publish(state, key);
        };
        numeric_combo("KV cache", "Precision of the cached keys and values. Default: bf16, or the weights' format when that is numeric.",
                      "kv_cache", resolved.precision.kv_cache);
        numeric_combo("Compute", "Precision the matrix units run at; picks the device's peak. Default as the KV cache.", "compute",
                      resolved.precision.compute);
        show_issues(state, "precision", shown);
    }

    const unsigned stage_bit = 1u << stage_index(w);
    const char* section = nullptr;
    for (size_t i = 1; i < std::size(kFields); ++i) {
        const FieldSpec& f = kFields[i];
        if (!(f.stages & stage_bit)) continue;
        if (!section || std::string(section) != f.section) {
            section = f.section;
            if (std::string(section) == "Usage and cost") {
                // Usage and prices: open when the document holds any, else one click away.
                ImGui::Spacing();
                const bool has = field(w, "usage") || field(w, "cost");
                ImGui::SetNextItemOpen(has, ImGuiCond_Once);
                if (!ImGui::CollapsingHeader("Usage and cost##usage_cost")) break;
                publish(state, "usage_cost");
            } else {
                section_heading(std::string(section) == "Serving" && stage_index(w) == 5 ? "Rollouts" : section);
            }
            if (std::string(section) == "Training") {
                choice_field(state, "Method", "full: every weight trains; lora: small adapters on frozen weights; qlora: adapters on "
                                              "4-bit frozen weights. Default full.", "train.method", kMethods, "full");
                choice_field(state, "Optimizer", "adamw keeps two fp32 moments and a master copy per parameter (16 bytes); "
                                                 "8-bit and factored optimizers keep less. Default adamw.", "train.optimizer", kOptimizers, "adamw");
                choice_field(state, "Recompute", "Activation checkpointing: recompute activations in the backward pass to hold fewer. "
                                                 "Default none.", "train.checkpointing", kCheckpointing, "none");
            }
            if (std::string(section) == "Hardware") {
                const nlohmann::json* devs = field(w, "hardware.devices");
                std::string label = "every catalog device";
                if (devs && devs->is_array() && devs->size() == 1 && (*devs)[0].is_string()) {
                    label = (*devs)[0].get<std::string>();
                    for (const auto& d : cat.devices)
                        if (d.id == label) label = d.name;
                } else if (devs && devs->is_array() && devs->size() > 1) {
                    label = std::to_string(devs->size()) + " devices from the workload";
                }
                row_label(state, "device", "Devices", "Which devices to consider. Empty: every catalog device is a candidate; a scenario may "
                                     "name its own list (kept until you pick here).");
                if (ImGui::BeginCombo("##device", label.c_str(), ImGuiComboFlags_HeightLarge)) {
                    if (ImGui::Selectable("every catalog device", !devs)) {
                        remember(state);
                        erase_field(state, "hardware.devices");
                    }
                    for (const auto& d : cat.devices)
                        if (ImGui::Selectable(d.name.c_str(), devs && devs->size() == 1 && (*devs)[0] == d.id)) {
                            remember(state);
                            set_value(state, "hardware.devices", nlohmann::json::array({d.id}));
                        }
                    ImGui::EndCombo();
                }
                publish(state, "device");
                if (devs && devs->is_array() && devs->size() > 1) {
                    std::string names;
                    for (const auto& d : *devs) names += (names.empty() ? "" : ", ") + (d.is_string() ? d.get<std::string>() : d.dump());
                    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
                    ImGui::TextWrapped("%s", names.c_str());
                    ImGui::PopStyleColor();
                }
                show_issues(state, "hardware.devices", shown);
            }
        }
        number_field(state, f, shown);
        if (std::string(f.path) == "serve.tokens_per_s_per_user_target") {
            const nlohmann::json* t = field(w, "serve.traffic");
            if (t && t->is_array() && !t->empty()) {
                std::string classes;
                for (const auto& c : *t)
                    if (c.is_object())
                        classes += (classes.empty() ? "" : ", ") + c.value("name", std::string("class")) + " " +
                                   field_text(c, "requests_per_s") + "/s";
                ImGui::TextWrapped("Traffic classes (from the workload): %s", classes.c_str());
                if (ImGui::SmallButton("Drop the traffic classes##drop_traffic")) {
                    remember(state);
                    erase_field(state, "serve.traffic");
                }
                publish(state, "drop_traffic");
                show_issues(state, "serve.traffic", shown);
            }
        }
    }
    // Problems at fields the form does not show (an imported document's extra keys): listed at the end.
    bool first = true;
    for (const auto& i : state.plan.issues) {
        if (shown.count(&i)) continue;
        if (first) section_heading("Other problems");
        first = false;
        ImGui::PushStyleColor(ImGuiCol_Text, bad_color());
        ImGui::TextWrapped("%s", to_string(i).c_str());
        ImGui::PopStyleColor();
    }
}

} // namespace hwplan::ui
