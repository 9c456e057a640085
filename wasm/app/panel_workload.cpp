// panel_workload.cpp: the workload form. It edits the workload document (state.workload) in place, one
// field at a time, so whatever the document holds beyond the form (a scenario's device list, speed target,
// usage, traffic classes) is kept. Numbers are held as typed; the core validates them and a problem is shown
// at its field while the last valid plan stays on screen.
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <string>
#include <string_view>
#include <cstdio>
#include <set>

#include "fields.h"
#include "format.h"
#include "hwplan/catalog.h"
#include "hwplan/memory.h"
#include "hwplan/parse.h"
#include "hwplan/workload.h"
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

// A number input for `path` (text as typed, kept in state.text), tinted when the core has a problem there.
void number_box(AppState& state, const std::string& path, const std::string& name, bool tiles = false) {
    auto& buf = state.text[path];
    const std::string id = "##" + path;
    const bool bad = !issues_at(state, path).empty();
    if (bad) {
        ImVec4 c = bad_color();
        c.w = 0.35f;
        ImGui::PushStyleColor(ImGuiCol_FrameBg, c);
    }
    // Ctrl+Z undoes the whole edit in one step, back to the text the field had when it opened, as a browser's own field
    // does (ImGui's undo goes back a character at a time, through an empty field, each step a new plan).
    ImGui::InputTextWithHint(id.c_str(), "default", buf.data(), buf.size(), ImGuiInputTextFlags_AutoSelectAll | ImGuiInputTextFlags_NoUndoRedo);
    if (bad) ImGui::PopStyleColor();
    if (ImGui::IsItemActivated()) {
        remember(state);
        state.edit_before = buf.data();
    }
    if (ImGui::IsItemActive() && ImGui::IsKeyChordPressed(ImGuiMod_Ctrl | ImGuiKey_Z) && state.edit_before != buf.data()) {
        std::snprintf(buf.data(), buf.size(), "%s", state.edit_before.c_str());
        tiles ? set_tiles(state, path, buf.data()) : set_field(state, path, buf.data());
        if (ImGuiInputTextState* input = ImGui::GetInputTextState(ImGui::GetItemID())) input->ReloadUserBufAndSelectAll();
    } else if (ImGui::IsItemEdited()) {
        tiles ? set_tiles(state, path, buf.data()) : set_field(state, path, buf.data());
    }
    publish(state, name);
    if (ImGui::IsItemActive()) state.active_widget = name;
}

void number_field(AppState& state, const FieldSpec& f, std::set<const Issue*>& shown) {
    const std::string path = f.path;
    const std::string name = path == "model.params" ? "custom_params" : path.substr(path.find('.') + 1);
    row_label(state, name, f.label, f.help, kNumberWidth);
    number_box(state, path, name);
    show_issues(state, path, shown);
}

// A choice among the values the core's reader accepts (hwplan::workload_choices()). The first entry is the
// default: it removes the key, so the core's default applies and the plan lists it among its assumptions. Each
// entry is published as "PATH:VALUE".
void choice_field(AppState& state, const char* label, const char* help, const char* path, const std::vector<std::string>& items,
                  const char* default_label, std::set<const Issue*>& shown) {
    row_label(state, path, label, help);
    const nlohmann::json* v = field(state.workload, path);
    const std::string current = v ? field_text(state.workload, path) : std::string();
    const std::string preview = v ? current : std::string(default_label) + " (default)";
    if (ImGui::BeginCombo((std::string("##") + path).c_str(), preview.c_str(), ImGuiComboFlags_HeightLarge)) {
        if (ImGui::Selectable((std::string(default_label) + " (default)##default").c_str(), !v)) {
            remember(state);
            erase_field(state, path);
        }
        publish(state, std::string(path) + ":default");
        for (const auto& item : items) {
            if (ImGui::Selectable(item.c_str(), v && current == item)) {
                remember(state);
                set_value(state, path, item);
            }
            publish(state, std::string(path) + ":" + item);
        }
        ImGui::EndCombo();
    }
    publish(state, path);
    show_issues(state, path, shown);
}

void section_heading(const char* title) {
    ImGui::Spacing();
    ImGui::PushFont(bold_font(), 0.0f);
    ImGui::TextUnformatted(title);
    ImGui::PopFont();
    ImGui::Separator();
}

// [SECTION] the decision: what the plan needs beyond sizes (docs/workload.md "decision", "framework",
// "hardware.owned"). Collapsed until opened, and open whenever a loaded document holds any of them.

constexpr const char* kPriorityHelp =
    "How feasible options are ranked. unit_cost: cheapest per useful result; per_user_speed: fastest decode per user (an SRAM "
    "decode tier wins when feasible); latency: lowest time to first token (p95 under load when modelled); simplest: a hosted API "
    "first, then one fast scale-up domain, fewer devices, less power. Default unit_cost. Key decision.priority.";
constexpr const char* kSiteHelp =
    "Where it runs. own_datacenter: owned only, data-centre licence, colocation counted; cloud: rented anywhere; gcp, aws, "
    "azure: rented there (that cloud's own silicon ranks first); desk: owned only, at a desk; office: a desk or an office, "
    "renting and hosted APIs allowed (what is bought stands there: no colocation, no data-centre parts); robot (an embedded "
    "module); phone. Default: owning and renting both considered. Key decision.site.";
constexpr const char* kStackHelp =
    "The software stack the team can run; devices without it are eliminated. Default pytorch-cuda, or any inside a named "
    "cloud. Key decision.stack.";
constexpr const char* kFrameworkHelp =
    "The serving or training software the team runs: a device whose catalog software lacks it is eliminated, and it picks the "
    "measured decode efficiencies (llama.cpp also splits layers across cards). Default: any. Key framework.";
constexpr const char* kRedundancyHelp =
    "n+1: one spare server (or instance, or card), the replicas spread so that any one can fail and the load is still served. "
    "Default none. Key decision.redundancy.";
constexpr const char* kPremisesHelp =
    "The data may not leave hardware the team owns: rentals and hosted APIs are eliminated (a cloud site is then an error). "
    "Default off. Key decision.data_on_premises.";
constexpr const char* kOwnedHelp =
    "Devices the team already has: a job that fits them is planned on them first, priced at power and hosting only (no "
    "purchase); needing more than is owned eliminates that option with the shortfall. Each device once, 1 to 1,000,000 of it. "
    "Key hardware.owned.";

bool any_decision_input(const nlohmann::json& w) {
    return field(w, "decision") || field(w, "framework") || field(w, "hardware.owned");
}

// The device a new "devices you own" row starts with: the one the plan shows, else the first catalog device not yet listed.
std::string device_to_add(const AppState& state, const Catalog& cat) {
    const nlohmann::json* owned = field(state.workload, "hardware.owned");
    auto listed = [&](const std::string& id) {
        if (owned && owned->is_array())
            for (const auto& row : *owned)
                if (row.is_object() && row.value("device", std::string()) == id) return true;
        return false;
    };
    const auto& shown = state.shown.candidates;
    if (state.selected >= 0 && state.selected < static_cast<int>(shown.size()) && !listed(shown[state.selected].device))
        return shown[state.selected].device;
    for (const auto& d : cat.devices)
        if (!listed(d.id)) return d.id;
    return cat.devices.empty() ? std::string() : cat.devices.front().id;
}

// One row per device you own: the device (a catalog combo) and how many, with Remove; then "Add a device you own".
void owned_rows(AppState& state, const Catalog& cat, std::set<const Issue*>& shown) {
    constexpr float kRemoveWidth = 70.0f; // CSS pixels for the Remove button
    const nlohmann::json* owned = field(state.workload, "hardware.owned");
    const size_t rows = owned && owned->is_array() ? owned->size() : 0;
    int remove = -1;
    for (size_t i = 0; i < rows; ++i) {
        const std::string name = "owned:" + std::to_string(i);
        const std::string device_path = owned_path(i, "device");
        const std::string id = field_text(state.workload, device_path);
        std::string label = id.empty() ? std::string("pick a device") : id;
        if (const Device* d = cat.device_by_id(id)) label = d->name;
        ImGui::PushID(static_cast<int>(i));
        row_label(state, name + ":device", ("Device you own " + std::to_string(i + 1)).c_str(), i == 0 ? kOwnedHelp : nullptr);
        if (ImGui::BeginCombo("##owned_device", label.c_str(), ImGuiComboFlags_HeightLarge)) {
            for (const auto& d : cat.devices) {
                if (ImGui::Selectable(d.name.c_str(), d.id == id)) {
                    remember(state);
                    set_value(state, device_path, d.id);
                }
                publish(state, name + ":device:" + d.id);
            }
            ImGui::EndCombo();
        }
        publish(state, name + ":device");
        row_label(state, name + ":count", "How many", nullptr, kNumberWidth + kRemoveWidth + ImGui::GetStyle().ItemSpacing.x);
        ImGui::SetNextItemWidth(kNumberWidth);
        number_box(state, owned_path(i, "count"), name + ":count");
        ImGui::SameLine();
        if (ImGui::Button("Remove", ImVec2(kRemoveWidth, 0))) remove = static_cast<int>(i);
        publish(state, name + ":remove");
        ImGui::PopID();
        show_issues(state, "hardware.owned[" + std::to_string(i) + "]", shown);
    }
    if (ImGui::Button("Add a device you own")) {
        remember(state);
        nlohmann::json list = rows ? *owned : nlohmann::json::array();
        list.push_back({{"device", device_to_add(state, cat)}, {"count", 1}});
        set_value(state, "hardware.owned", list);
        sync_text(state);
    }
    publish(state, "owned:add");
    if (remove >= 0) {
        remember(state);
        erase_field(state, "hardware.owned[" + std::to_string(remove) + "]");
        sync_text(state);
    }
    show_issues(state, "hardware.owned", shown);
}

// A check box for a boolean key whose default is off: ticked sets it, unticked removes it.
void check_field(AppState& state, const char* name, const char* label, const char* help, const char* path, std::set<const Issue*>& shown) {
    row_label(state, name, label, help, ImGui::GetFrameHeight());
    const nlohmann::json* v = field(state.workload, path);
    bool on = v && v->is_boolean() && v->get<bool>();
    if (ImGui::Checkbox((std::string("##") + name).c_str(), &on)) {
        remember(state);
        if (on) set_value(state, path, true);
        else erase_field(state, path); // off is the default
    }
    publish(state, name);
    show_issues(state, path, shown);
}

void decision_section(AppState& state, const Catalog& cat, unsigned stage_bit, std::set<const Issue*>& shown) {
    const bool has = any_decision_input(state.workload);
    if (has && !state.decision_shown) ImGui::SetNextItemOpen(true); // a loaded scenario, link or import that sets them
    state.decision_shown = has;
    ImGui::Spacing();
    const bool open = ImGui::CollapsingHeader("Decision: priority, site, budgets, what you own##decision");
    if (open && ImGui::IsItemToggledOpen()) ImGui::SetScrollHereY(0.0f); // opened at the bottom of the form: show its rows
    publish(state, "decision");
    if (!open) return;
    const WorkloadChoices& choices = workload_choices();
    choice_field(state, "Priority", kPriorityHelp, "decision.priority", choices.decision_priority, "unit_cost", shown);
    choice_field(state, "Site", kSiteHelp, "decision.site", choices.decision_site, "own or rent", shown);
    choice_field(state, "Stack", kStackHelp, "decision.stack", choices.decision_stack, "by site", shown);
    choice_field(state, "Framework", kFrameworkHelp, "framework", choices.framework, "any", shown);
    choice_field(state, "Redundancy", kRedundancyHelp, "decision.redundancy", choices.decision_redundancy, "none", shown);
    check_field(state, "data_on_premises", "Data stays on premises", kPremisesHelp, "decision.data_on_premises", shown);
    for (const auto& f : kFields)
        if (std::string_view(f.section) == "Decision" && (f.stages & stage_bit)) number_field(state, f, shown);
    owned_rows(state, cat, shown);
    show_issues(state, "decision", shown);
}

// [SECTION] the engine and the layout: which runtime profile the job runs under and the layout a published run
// pinned (docs/workload.md serve.runtime, serve.tensor_parallel, serve.decode_attention, serve.scale_up_topology, serve.requests,
// serve.compiled_batch, serve.compiled_sequence_tokens, serve.closed_loop, train.runtime, train.attention,
// train.lora_targets, train.cpu_offload, train.offload_activations, train.offload_activation_layers, train.compiled,
// train.remat_tensors, train.grouped_gemm, train.layout, embed.runtime).
// Collapsed until opened, and open whenever a loaded document holds any of them, as the Decision section is.

constexpr const char* kServeRuntimeHelp =
    "How the host issues each decode step and how the engine sizes its KV cache: tuned (TensorRT-LLM, vLLM, SGLang, "
    "llama.cpp) launches a step faster than the device runs it; an eager Python loop (pytorch-eager, litgpt, autoawq-fused) "
    "waits on the host; dated releases (vllm-2023-12, vllm-v1-2025-04) size the cache as they did. A profile not calibrated "
    "says so in the plan. Default tuned. Key serve.runtime (catalog/runtimes.json decode_runtimes).";
constexpr const char* kDecodeAttentionHelp =
    "How decode attention reads the KV cache: each KV head once a step (FlashAttention, TensorRT-LLM's XQA), or once per "
    "query head (older kernels). Default per_kv_head. Key serve.decode_attention.";
constexpr const char* kScaleUpTopologyHelp =
    "How the machine's devices are linked: each to every other (an NVSwitch board) or eight each NVLinked to four others "
    "(DGX-1's hybrid cube mesh). Read only by a runtime whose tensor-parallel all-reduce is PyTorch's IntraNodeComm "
    "(gpt-fast-intra-node). Default fully_connected. Key serve.scale_up_topology.";
constexpr const char* kClosedLoopHelp =
    "The concurrent users are a load generator's virtual users, each sending its next request when its last one ends "
    "(k6's constant-vus): their prefills run between the decode steps, so per-user speed and throughput carry them, as a "
    "published time per token over a whole request does (TGI's time_per_token). Default off: a decode-only figure. Key "
    "serve.closed_loop.";
constexpr const char* kTrainRuntimeHelp =
    "The trainer whose memory and overhead profile the plan counts, and the layouts it offers (deepspeed, unsloth, "
    "fsdp-qlora, torchtune, megatron, torchtitan, ...). Default by method: full hf-peft, lora torchtune, qlora "
    "qlora-reference. Key train.runtime (catalog/runtimes.json).";
constexpr const char* kTrainAttentionHelp =
    "sdpa: fused attention, no score matrices kept; eager: the scores are stored for backward. Default: the trainer's. Key "
    "train.attention.";
constexpr const char* kLoraTargetsHelp =
    "Which linear layers of each block carry LoRA adapters: every one, the query and value projections, or query, key and "
    "value (read it from the recipe that ran). Default: the trainer's (litgpt query-value, the others all). Key "
    "train.lora_targets.";
constexpr const char* kOffloadHelp =
    "Optimizer state in host memory (and, under a trainer that offloads parameters, the sharded weights too). Default off. "
    "Key train.cpu_offload.";
constexpr const char* kOffloadActivationsHelp =
    "Activation offloading (torchtune's enable_activation_offloading): under full recomputation the saved block inputs live in "
    "host memory; the output head's tensors and the logits stay on the device. Default off (unsloth always offloads). Key "
    "train.offload_activations.";
constexpr const char* kCompiledHelp =
    "The blocks ran under torch.compile (torchtune's compile: True, torchtitan's training.compile): its partitioner recomputes "
    "element-wise work in the backward pass, so a gated MLP does not keep its SiLU output. Memory only; no effect on step "
    "time. Default off (torchtune's configs default to compile: False). Key train.compiled.";
constexpr const char* kRematTensorHelp =
    "MaxText's custom remat policy (remat_policy=custom), as a recipe passes it: each named tensor kept on the device, "
    "offloaded to host memory, or recomputed in the backward pass; the rest of each block is recomputed from its input. "
    "Default: MaxText base.yml's (the block input on the device, the rest recomputed). Key train.remat_tensors.";
constexpr const char* kGroupedRowsHelp =
    "MaxText's routed experts run as grouped GEMMs (sparse_matmul: megablox gmm or tokamax ragged_dot): the rows one call "
    "sees (tokens x experts per token on a device; 262144 for DeepSeek-V3's 4096 x 8 x 8 in an Ironwood recipe). With the "
    "tiles below, the plan prices the padding of each expert's rows to whole tiles. A model with no routed experts ignores "
    "it. Default: none (dense-equivalent expert matmuls). Key train.grouped_gemm.rows.";
constexpr const char* kGroupedTilesHelp =
    "The kernel's tiles for the three calls of this matrix, forward, dlhs and drhs, each tile_m tile_k tile_n (nine whole "
    "numbers: \"128 7168 2048, 256 2048 3584, 256 1792 2048\"), as the recipe's sparse_matmul tiling sets them (wi: the "
    "gate and up projection, wo: the down projection). Needed with the rows. Keys train.grouped_gemm.wi and .wo.";
constexpr const char* kEmbedRuntimeHelp =
    "How the encoder runs: a fused engine (tensorrt), FasterTransformer's C++ encoder (fastertransformer: the fused kernels plus "
    "its Q, K, V bias kernel), or a framework whose element-wise kernels, score matrices and launches "
    "the plan counts per layer (pytorch-eager, tensorflow-xla), or AWS Neuron's compiled graph, whose element-wise work runs on "
    "the NeuronCores' vector engines (neuronx-cc). Default tensorrt; neuronx-cc on AWS Neuron devices. Key embed.runtime.";

bool any_engine_input(const nlohmann::json& w) {
    return field(w, "serve.runtime") || field(w, "serve.tensor_parallel") || field(w, "serve.decode_attention") ||
           field(w, "serve.scale_up_topology") ||
           field(w, "serve.requests") || field(w, "serve.compiled_batch") || field(w, "serve.compiled_sequence_tokens") ||
           field(w, "serve.closed_loop") ||
           field(w, "train.runtime") || field(w, "train.attention") || field(w, "train.lora_targets") ||
           field(w, "train.cpu_offload") || field(w, "train.offload_activations") || field(w, "train.offload_activation_layers") ||
           field(w, "train.compiled") ||
           field(w, "train.layout") || field(w, "train.remat_tensors") || field(w, "embed.runtime");
}

template <class Profile> std::vector<std::string> profile_ids(const std::vector<Profile>& profiles) {
    std::vector<std::string> ids;
    for (const auto& p : profiles) ids.push_back(p.id);
    return ids;
}

void engine_section(AppState& state, const Catalog& cat, unsigned stage_bit, std::set<const Issue*>& shown) {
    const bool has = any_engine_input(state.workload);
    if (has && !state.engine_shown) ImGui::SetNextItemOpen(true);
    state.engine_shown = has;
    ImGui::Spacing();
    const bool open = ImGui::CollapsingHeader("Engine and layout: runtime, parallelism##engine");
    if (open && ImGui::IsItemToggledOpen()) ImGui::SetScrollHereY(0.0f);
    publish(state, "engine");
    if (!open) return;
    const WorkloadChoices& choices = workload_choices();
    if (stage_bit & kTokens) {
        choice_field(state, "Serving runtime", kServeRuntimeHelp, "serve.runtime", profile_ids(cat.decode_runtimes), "tuned", shown);
        choice_field(state, "Decode attention", kDecodeAttentionHelp, "serve.decode_attention", choices.serve_decode_attention,
                     "per_kv_head", shown);
        choice_field(state, "Device links", kScaleUpTopologyHelp, "serve.scale_up_topology", choices.serve_scale_up_topology,
                     "fully_connected", shown);
        if (stage_bit & kServe)
            check_field(state, "closed_loop", "Closed-loop users", kClosedLoopHelp, "serve.closed_loop", shown);
    }
    if (stage_bit & kTrain) {
        choice_field(state, "Trainer", kTrainRuntimeHelp, "train.runtime", profile_ids(cat.training_runtimes), "by method", shown);
        choice_field(state, "Attention", kTrainAttentionHelp, "train.attention", choices.train_attention, "the trainer's", shown);
        choice_field(state, "LoRA targets", kLoraTargetsHelp, "train.lora_targets", choices.train_lora_targets, "the trainer's", shown);
        check_field(state, "cpu_offload", "CPU offload", kOffloadHelp, "train.cpu_offload", shown);
        check_field(state, "offload_activations", "Offload activations", kOffloadActivationsHelp, "train.offload_activations", shown);
        check_field(state, "compiled", "Compiled (torch.compile)", kCompiledHelp, "train.compiled", shown);
        // MaxText's custom remat policy (train.remat_tensors): one row per tensor name its base.yml lists, shown when the
        // trainer is named MaxText or a loaded document names any of them.
        const nlohmann::json* rt = field(state.workload, "train.runtime");
        const bool maxtext = rt && rt->is_string() && rt->get<std::string>().rfind("maxtext", 0) == 0;
        if (maxtext || field(state.workload, "train.remat_tensors")) {
            section_heading("MaxText remat policy (custom)");
            for (const std::string& n : maxtext_remat_tensor_names()) {
                const std::string path = "train.remat_tensors." + n;
                const std::string& label = n;
                std::vector<std::string> where = {"device", "offload"};
                if (n != "decoder_layer_input") where.push_back("remat");
                choice_field(state, label.c_str(), kRematTensorHelp, path.c_str(), where,
                             n == "decoder_layer_input" ? "device" : "remat", shown);
            }
            show_issues(state, "train.remat_tensors", shown);
        }
        // MaxText's grouped GEMMs of the routed experts (train.grouped_gemm): the rows a call sees and each matrix's tiles.
        if (maxtext || field(state.workload, "train.grouped_gemm")) {
            section_heading("MaxText grouped GEMM (routed experts)");
            row_label(state, "grouped_gemm.rows", "Rows a call", kGroupedRowsHelp, kNumberWidth);
            number_box(state, "train.grouped_gemm.rows", "grouped_gemm.rows");
            for (const auto& [key, label] : {std::pair<const char*, const char*>{"wi", "Up tiles (wi)"}, {"wo", "Down tiles (wo)"}}) {
                const std::string path = std::string("train.grouped_gemm.") + key;
                const std::string name = std::string("grouped_gemm.") + key;
                row_label(state, name, label, kGroupedTilesHelp, kOwnLine); // nine numbers: the whole row
                number_box(state, path, name, true);
            }
            show_issues(state, "train.grouped_gemm", shown);
        }
    }
    if (stage_bit & kEmbed)
        choice_field(state, "Encoder runtime", kEmbedRuntimeHelp, "embed.runtime", profile_ids(cat.encoder_runtimes), "tensorrt", shown);
    for (const auto& f : kFields)
        if (std::string_view(f.section) == "Engine and layout" && (f.stages & stage_bit)) number_field(state, f, shown);
    show_issues(state, "train.layout", shown);
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
    if (std::isinf(input_width)) { // kOwnLine: the whole row, on its own line under the label
        input = row;
    } else if (room >= kMinInputWidth) {
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
            // A filter box on top: typing narrows the list (name, id or alias, as the core matches names: case, spaces,
            // '-', '_' and '.' ignored); Enter takes the first model left
            // (the custom size when only it is left).
            if (ImGui::IsWindowAppearing()) {
                state.model_filter.fill('\0');
                ImGui::SetKeyboardFocusHere();
            }
            ImGui::SetNextItemWidth(-FLT_MIN);
            const bool enter = ImGui::InputTextWithHint("##model_filter", "type to filter", state.model_filter.data(),
                                                        state.model_filter.size(), ImGuiInputTextFlags_EnterReturnsTrue);
            publish(state, "model:filter");
            if (ImGui::IsItemActive()) state.active_widget = "model:filter";
            // Escape leaves the filter and closes the list in one press, as it closes every other list.
            if (ImGui::IsItemDeactivated() && ImGui::IsKeyPressed(ImGuiKey_Escape, false)) ImGui::CloseCurrentPopup();
            const std::string wanted = normalize_name(state.model_filter.data());
            auto matches = [&](const std::string& text) { return normalize_name(text).find(wanted) != std::string::npos; };
            auto choose_custom = [&] {
                remember(state);
                set_value(state, "model", nlohmann::json{{"params", resolved.params > 0 ? resolved.params : 7e9}});
                sync_text(state);
            };
            const Model* first = nullptr;
            const bool show_custom = wanted.empty() || matches("custom size");
            if (show_custom && ImGui::Selectable("custom size (parameter count only)", custom)) choose_custom();
            for (const auto& model : cat.models) {
                bool hit = matches(model.name) || matches(model.id);
                for (const auto& a : model.aliases) hit = hit || matches(a);
                if (!hit) continue;
                if (!first) first = &model;
                if (ImGui::Selectable(model.name.c_str(), !custom && resolved.model_id == model.id)) {
                    remember(state);
                    set_value(state, "model", model.id);
                }
                publish(state, "model:" + model.id);
            }
            if (!show_custom && !first) ImGui::TextDisabled("no model matches");
            if (enter && first) {
                remember(state);
                set_value(state, "model", first->id);
            } else if (enter && show_custom) {
                choose_custom();
            }
            if (enter) ImGui::CloseCurrentPopup();
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
        if (!(f.stages & stage_bit) || std::string_view(f.section) == "Decision" || std::string_view(f.section) == "Engine and layout") continue;
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
                const WorkloadChoices& choices = workload_choices();
                choice_field(state, "Method", "full: every weight trains; lora: small adapters on frozen weights; qlora: adapters on "
                                              "4-bit frozen weights. Default full.", "train.method", choices.train_method, "full", shown);
                choice_field(state, "Optimizer", "adamw keeps two fp32 moments and a master copy per parameter (16 bytes); "
                                                 "8-bit and factored optimizers keep less. Default adamw.", "train.optimizer",
                             choices.train_optimizer, "adamw", shown);
                choice_field(state, "Recompute", "Activation checkpointing: recompute activations in the backward pass to hold fewer. "
                                                 "Default none.", "train.checkpointing", choices.train_checkpointing, "none", shown);
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
    engine_section(state, cat, stage_bit, shown);
    decision_section(state, cat, stage_bit, shown);
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
