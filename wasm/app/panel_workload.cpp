// panel_workload.cpp: the workload form (stage, model, precision, the stage's sizes, hardware) and its
// JSON form. The form holds text as typed; the core validates it, so a bad value is reported by path.
#include <imgui.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

#include "format.h"
#include "hwplan/card.h"
#include "hwplan/parse.h"
#include "hwplan/precision.h"
#include "panels.h"

namespace hwplan::ui {

namespace {

constexpr const char* kStages[] = {"serve", "batch", "embed", "finetune", "pretrain", "rl", "edge"};
constexpr const char* kStageHelp[] = {"interactive serving", "offline batch generation", "embedding job (encoder)",
                                      "fine-tuning", "pretraining", "RL post-training (trainer + rollouts)",
                                      "one user on a local device"};
constexpr const char* kMethods[] = {"full", "lora", "qlora"};
constexpr const char* kOptimizers[] = {"adamw", "adamw_fp32", "adamw_8bit", "sgd", "adafactor"};
constexpr const char* kCheckpointing[] = {"none", "selective", "full"};

Rect item_rect() {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    return {a.x, a.y, b.x - a.x, b.y - a.y};
}

// A number as typed: a JSON number when it parses, the raw text otherwise (the core names the field).
void put(nlohmann::json& obj, const char* key, const char* text) {
    const std::string s = text;
    if (s.find_first_not_of(" \t") == std::string::npos) return; // empty: not given
    if (auto v = parse_number(s); v && std::isfinite(*v)) obj[key] = *v;
    else obj[key] = s;
}

template <size_t N> bool combo(const char* label, int& index, const char* const (&items)[N]) {
    return ImGui::Combo(label, &index, items, static_cast<int>(N));
}

} // namespace

bool text_field(AppState& state, const char* label, const char* name, char* buf, size_t size, float width) {
    ImGui::SetNextItemWidth(width);
    const bool changed = ImGui::InputText(label, buf, size, ImGuiInputTextFlags_AutoSelectAll | ImGuiInputTextFlags_CharsScientific);
    state.widgets[name] = item_rect();
    if (ImGui::IsItemActive()) state.active_widget = name;
    return changed;
}

std::string workload_json(const WorkloadForm& f, const Catalog& cat) {
    nlohmann::json w;
    w["name"] = "Planner page workload";
    w["stage"] = kStages[f.stage];
    if (f.model >= 0 && f.model < static_cast<int>(cat.models.size())) {
        w["model"] = cat.models[f.model].id;
    } else {
        nlohmann::json m = nlohmann::json::object();
        put(m, "params", f.custom_params.data());
        w["model"] = m;
    }
    const auto numeric = all_precisions();
    w["precision"] = {{"weights", f.weights_format >= 0 && f.weights_format < static_cast<int>(cat.formats.size())
                                      ? cat.formats[f.weights_format].name : "bf16"},
                      {"kv_cache", std::string(name(numeric[f.kv_precision]))},
                      {"compute", std::string(name(numeric[f.compute_precision]))}};
    const std::string stage = kStages[f.stage];
    if (stage == "serve" || stage == "batch" || stage == "edge" || stage == "rl") {
        nlohmann::json s = nlohmann::json::object();
        put(s, "context_tokens", f.context_tokens.data());
        put(s, "prompt_tokens", f.prompt_tokens.data());
        put(s, "output_tokens", f.output_tokens.data());
        if (stage != "edge") put(s, "concurrent_users", f.concurrent_users.data());
        if (stage == "serve") {
            put(s, "requests_per_s", f.requests_per_s.data());
            put(s, "ttft_target_s", f.ttft_target_s.data());
            if (!f.traffic.empty()) {
                nlohmann::json t = nlohmann::json::array();
                for (const auto& c : f.traffic)
                    t.push_back({{"name", c.name}, {"requests_per_s", c.requests_per_s}, {"prompt_tokens", c.prompt_tokens},
                                 {"output_tokens", c.output_tokens}});
                s["traffic"] = t;
            }
        }
        w["serve"] = s;
    }
    if (stage == "finetune" || stage == "pretrain" || stage == "rl") {
        nlohmann::json t = nlohmann::json::object();
        t["method"] = kMethods[f.method];
        t["optimizer"] = kOptimizers[f.optimizer];
        t["checkpointing"] = kCheckpointing[f.checkpointing];
        put(t, "seq_len", f.seq_len.data());
        put(t, "micro_batch", f.micro_batch.data());
        if (f.method != 0) put(t, "lora_rank", f.lora_rank.data());
        put(t, "tokens", f.train_tokens.data());
        w["train"] = t;
    }
    if (stage == "embed") {
        nlohmann::json e = nlohmann::json::object();
        put(e, "items", f.items.data());
        put(e, "tokens_per_item", f.tokens_per_item.data());
        put(e, "window_s", f.window_s.data());
        w["embed"] = e;
    }
    nlohmann::json h = nlohmann::json::object();
    if (f.device >= 0 && f.device < static_cast<int>(cat.devices.size())) h["devices"] = {cat.devices[f.device].id};
    put(h, "count", f.count.data());
    if (!h.empty()) w["hardware"] = h;
    return w.dump(2);
}

namespace {

template <size_t N> void set_text(std::array<char, N>& buf, double v, bool given) {
    const std::string s = given ? format_sig(v, 10) : std::string();
    std::snprintf(buf.data(), N, "%s", s.c_str());
}

template <size_t N> int index_in(const char* const (&items)[N], std::string_view value) {
    for (size_t i = 0; i < N; ++i)
        if (value == items[i]) return static_cast<int>(i);
    return 0;
}

} // namespace

void form_from_workload(WorkloadForm& f, const Workload& w, const Catalog& cat) {
    auto given = [&](const std::string& k) { return std::find(w.given.begin(), w.given.end(), k) != w.given.end(); };
    f = WorkloadForm{};
    f.stage = index_in(kStages, name(w.stage));
    f.model = -1;
    for (int i = 0; i < static_cast<int>(cat.models.size()); ++i)
        if (w.model.from_catalog && cat.models[i].id == w.model.model.id) f.model = i;
    set_text(f.custom_params, w.model.params, true);
    for (int i = 0; i < static_cast<int>(cat.formats.size()); ++i)
        if (cat.formats[i].name == w.precision.weights) f.weights_format = i;
    const auto numeric = all_precisions();
    for (int i = 0; i < static_cast<int>(numeric.size()); ++i) {
        if (name(numeric[i]) == w.precision.kv_cache) f.kv_precision = i;
        if (name(numeric[i]) == w.precision.compute) f.compute_precision = i;
    }
    set_text(f.context_tokens, w.serve.context_tokens, given("serve.context_tokens"));
    set_text(f.prompt_tokens, w.serve.prompt_tokens, given("serve.prompt_tokens"));
    set_text(f.output_tokens, w.serve.output_tokens, given("serve.output_tokens"));
    set_text(f.concurrent_users, w.serve.concurrent_users, given("serve.concurrent_users"));
    double rate = w.serve.requests_per_s;
    f.traffic = w.serve.traffic; // kept whole: the form shows how many classes there are
    set_text(f.requests_per_s, rate, given("serve.requests_per_s"));
    set_text(f.ttft_target_s, w.serve.ttft_target_s, given("serve.ttft_target_s"));
    f.method = index_in(kMethods, name(w.train.method));
    f.optimizer = index_in(kOptimizers, name(w.train.optimizer));
    f.checkpointing = index_in(kCheckpointing, name(w.train.checkpointing));
    set_text(f.seq_len, w.train.seq_len, given("train.seq_len"));
    set_text(f.micro_batch, w.train.micro_batch, given("train.micro_batch"));
    set_text(f.lora_rank, w.train.lora_rank, given("train.lora_rank"));
    set_text(f.train_tokens, w.train.tokens, given("train.tokens"));
    set_text(f.items, w.embed.items, given("embed.items"));
    set_text(f.tokens_per_item, w.embed.tokens_per_item, given("embed.tokens_per_item"));
    set_text(f.window_s, w.embed.window_s, given("embed.window_s"));
    f.device = -1;
    if (w.hardware.devices.size() == 1)
        for (int i = 0; i < static_cast<int>(cat.devices.size()); ++i)
            if (cat.devices[i].id == w.hardware.devices[0]) f.device = i;
    set_text(f.count, w.hardware.count, w.hardware.count > 0);
}

void panel_workload(AppState& state, const Catalog& cat) {
    WorkloadForm& f = state.form;
    // The lessons' worked examples, loadable into the form.
    ImGui::SetNextItemWidth(300);
    if (ImGui::BeginCombo("Scenario##scenario", "load a worked example from the lessons...", ImGuiComboFlags_HeightLargest)) {
        for (const auto& sc : cat.scenarios) {
            if (sc.workload_json.empty()) { // a team of workloads: its team plan opens beside the form
                if (ImGui::Selectable((sc.name + "  [team]").c_str())) {
                    state.team_name = sc.name;
                    state.team_markdown = render_team(team_plan(sc.team_json, cat), cat);
                }
                state.widgets["scenario:" + sc.id] = item_rect();
                continue;
            }
            if (ImGui::Selectable(sc.name.c_str())) {
                const auto parsed = parse_workload(sc.workload_json, cat);
                if (parsed.issues.empty()) form_from_workload(f, parsed.workload, cat);
            }
            state.widgets["scenario:" + sc.id] = item_rect();
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n(%s: %s)", sc.question.c_str(), sc.lesson.title.c_str(), sc.lesson.locator.c_str());
        }
        ImGui::EndCombo();
    }
    state.widgets["scenario"] = item_rect();
    ImGui::TextDisabled("Describe the job; the plan on the right updates as you type.");
    ImGui::SetNextItemWidth(200);
    combo("Stage##stage", f.stage, kStages);
    state.widgets["stage"] = item_rect();
    ImGui::SameLine();
    ImGui::TextDisabled("%s", kStageHelp[f.stage]);

    // Model: a catalog preset, or a size only.
    const char* model_label = f.model >= 0 ? cat.models[f.model].name.c_str() : "custom size";
    ImGui::SetNextItemWidth(260);
    if (ImGui::BeginCombo("Model##model", model_label)) {
        if (ImGui::Selectable("custom size (parameter count only)", f.model < 0)) f.model = -1;
        for (int i = 0; i < static_cast<int>(cat.models.size()); ++i)
            if (ImGui::Selectable(cat.models[i].name.c_str(), f.model == i)) f.model = i;
        ImGui::EndCombo();
    }
    state.widgets["model"] = item_rect();
    if (f.model < 0) text_field(state, "Parameters##custom_params", "custom_params", f.custom_params.data(), f.custom_params.size());

    // Precision: weight storage format, KV cache and compute.
    if (ImGui::TreeNodeEx("Precision", ImGuiTreeNodeFlags_DefaultOpen)) {
        ImGui::SetNextItemWidth(140);
        const char* wf = f.weights_format < static_cast<int>(cat.formats.size()) ? cat.formats[f.weights_format].name.c_str() : "bf16";
        if (ImGui::BeginCombo("Weights##weights", wf)) {
            for (int i = 0; i < static_cast<int>(cat.formats.size()); ++i)
                if (ImGui::Selectable((cat.formats[i].name + "  (" + format_sig(cat.formats[i].bits_per_weight, 4) + " bits)").c_str(),
                                      f.weights_format == i))
                    f.weights_format = i;
            ImGui::EndCombo();
        }
        const auto numeric = all_precisions();
        auto precision_combo = [&](const char* label, int& idx) {
            ImGui::SetNextItemWidth(140);
            if (ImGui::BeginCombo(label, std::string(name(numeric[idx])).c_str())) {
                for (int i = 0; i < static_cast<int>(numeric.size()); ++i)
                    if (ImGui::Selectable(std::string(name(numeric[i])).c_str(), idx == i)) idx = i;
                ImGui::EndCombo();
            }
        };
        precision_combo("KV cache##kv", f.kv_precision);
        precision_combo("Compute##compute", f.compute_precision);
        ImGui::TreePop();
    }

    const std::string stage = kStages[f.stage];
    if ((stage == "serve" || stage == "batch" || stage == "edge" || stage == "rl") &&
        ImGui::TreeNodeEx(stage == "rl" ? "Rollouts" : "Serving", ImGuiTreeNodeFlags_DefaultOpen)) {
        text_field(state, "Context tokens##context", "context_tokens", f.context_tokens.data(), f.context_tokens.size());
        text_field(state, "Prompt tokens##prompt", "prompt_tokens", f.prompt_tokens.data(), f.prompt_tokens.size());
        text_field(state, "Output tokens##output", "output_tokens", f.output_tokens.data(), f.output_tokens.size());
        if (stage != "edge") text_field(state, stage == "rl" ? "Parallel rollouts##users" : "Concurrent users##users", "concurrent_users", f.concurrent_users.data(), f.concurrent_users.size());
        if (stage == "serve") {
            text_field(state, "Requests/s##rps", "requests_per_s", f.requests_per_s.data(), f.requests_per_s.size());
            text_field(state, "TTFT target (s)##ttft", "ttft_target_s", f.ttft_target_s.data(), f.ttft_target_s.size());
            if (!f.traffic.empty()) {
                std::string classes;
                for (const auto& c : f.traffic) classes += (classes.empty() ? "" : ", ") + c.name + " " + format_sig(c.requests_per_s, 3) + "/s";
                ImGui::TextWrapped("Traffic classes from the scenario: %s", classes.c_str());
                if (ImGui::SmallButton("Drop the traffic classes##drop_traffic")) f.traffic.clear();
            }
        }
        ImGui::TreePop();
    }
    if ((stage == "finetune" || stage == "pretrain" || stage == "rl") && ImGui::TreeNodeEx("Training", ImGuiTreeNodeFlags_DefaultOpen)) {
        ImGui::SetNextItemWidth(140);
        combo("Method##method", f.method, kMethods);
        ImGui::SetNextItemWidth(140);
        combo("Optimizer##optimizer", f.optimizer, kOptimizers);
        ImGui::SetNextItemWidth(140);
        combo("Recompute##ckpt", f.checkpointing, kCheckpointing);
        text_field(state, "Sequence length##seq", "seq_len", f.seq_len.data(), f.seq_len.size());
        text_field(state, "Micro-batch##mb", "micro_batch", f.micro_batch.data(), f.micro_batch.size());
        if (f.method != 0) text_field(state, "LoRA rank##rank", "lora_rank", f.lora_rank.data(), f.lora_rank.size());
        text_field(state, "Tokens to train##tokens", "train_tokens", f.train_tokens.data(), f.train_tokens.size());
        ImGui::TreePop();
    }
    if (stage == "embed" && ImGui::TreeNodeEx("Embedding job", ImGuiTreeNodeFlags_DefaultOpen)) {
        text_field(state, "Items##items", "items", f.items.data(), f.items.size());
        text_field(state, "Tokens per item##tpi", "tokens_per_item", f.tokens_per_item.data(), f.tokens_per_item.size());
        text_field(state, "Window (s)##window", "window_s", f.window_s.data(), f.window_s.size());
        ImGui::TreePop();
    }
    if (ImGui::TreeNodeEx("Hardware", ImGuiTreeNodeFlags_DefaultOpen)) {
        ImGui::SetNextItemWidth(260);
        const char* dev = f.device >= 0 ? cat.devices[f.device].name.c_str() : "every catalog device";
        if (ImGui::BeginCombo("Device##device", dev)) {
            if (ImGui::Selectable("every catalog device", f.device < 0)) f.device = -1;
            for (int i = 0; i < static_cast<int>(cat.devices.size()); ++i)
                if (ImGui::Selectable(cat.devices[i].name.c_str(), f.device == i)) f.device = i;
            ImGui::EndCombo();
        }
        state.widgets["device"] = item_rect();
        text_field(state, "Count (empty: fewest that fit)##count", "count", f.count.data(), f.count.size(), 60);
        ImGui::TreePop();
    }
    if (ImGui::TreeNode("Workload JSON (docs/workload.md)")) {
        ImGui::TextDisabled("The same JSON the command line's `hwplan plan` takes:");
        ImGui::TextUnformatted(state.workload_json.c_str());
        ImGui::TreePop();
    }
}

} // namespace hwplan::ui
