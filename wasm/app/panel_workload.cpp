// panel_workload.cpp: the workload form (stage, model, precision, the stage's sizes, hardware) and its
// JSON form. The form holds text as typed; the core validates it, so a bad value is reported by path.
#include <imgui.h>

#include <nlohmann/json.hpp>

#include "format.h"
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

void panel_workload(AppState& state, const Catalog& cat) {
    WorkloadForm& f = state.form;
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
