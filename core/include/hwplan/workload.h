// hwplan/workload.h: what the user asks about: the job (stage), the model, its precision, the stage's
// sizes and targets, the hardware to consider, how often it runs, and overrides of assumptions.
// The JSON form is documented in docs/workload.md; parse_workload() accepts every file in
// ../shared/examples/workloads/ and rejects bad input with the field's path and the reason.
// Usage: WorkloadParse p = parse_workload(text, catalog);  if (p.issues.empty()) plan(p.workload, ...);
#pragma once
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hwplan/catalog.h"
#include "hwplan/issues.h"
#include "hwplan/model.h"

namespace hwplan {

enum class Stage { serve, batch, embed, finetune, pretrain, rl, edge };
// Stages that generate tokens for readers or jobs (interactive, batch, on a device): priced per output token.
inline bool is_serving_stage(Stage s) { return s == Stage::serve || s == Stage::batch || s == Stage::edge; }
enum class TrainMethod { full, lora, qlora };
enum class Optimizer { adamw, adamw_fp32, adamw_8bit, sgd, adafactor };
enum class Checkpointing { none, selective, full };

// The model as the planner uses it: a catalog preset, or the user's own architecture, or only a size
// (then `shape_from` names the preset whose shape stands in for KV cache and activations).
struct ModelSpec {
    Model model;                // resolved preset or the user's architecture
    bool from_catalog = false;  // model.id is a catalog id
    bool size_only = false;     // the user gave only {"params": N}
    std::string shape_from;     // size_only: the preset whose architecture is scaled in
    double params = 0;          // total parameters used for weights (published, or the user's)
    double active_params = 0;   // parameters per token (MoE < params)
};

// Number formats: weights (a storage format from catalog/formats.json), KV cache and compute.
struct PrecisionSpec {
    std::string weights = "bf16";
    std::string kv_cache = "bf16";
    std::string compute = "bf16";
};

// One class of requests for latency under load (interactive chat, long summaries, ...).
struct TrafficClass {
    std::string name;
    double requests_per_s = 0;
    double prompt_tokens = 0;
    double output_tokens = 0;
};

struct ServeSpec {
    double context_tokens = 4096;            // tokens held per sequence (prompt + output budget)
    double prompt_tokens = 0;                // 0: half the context
    double output_tokens = 0;                // 0: a quarter of the context
    double concurrent_users = 1;             // sequences decoding at once
    double requests_per_s = 0;               // arrival rate for queueing (0: not given)
    double ttft_target_s = 0;                // 0: no target
    double tokens_per_s_per_user_target = 0; // 0: no target
    double batch_size = 0;                   // 0: = concurrent_users
    // Devices per replica as the engine was run (issue 20 class 4: a benchmark that states "TP 8" on 8 GPUs ran one
    // replica of 8, where the planner's own search may pick 8 replicas of 1): splits hardware.count into
    // count / tensor_parallel replicas; 0 = the planner's choice (plan_serving.cpp best_serving_layout).
    double tensor_parallel = 0;
    // Requests in an offline run that queues them all at once and ends with the last (stage batch): 0 = a steady state
    // with as many requests as the run needs. A benchmark's fixed count with uniform lengths (TensorRT-LLM's
    // perf overview: prepare_dataset.py --num-requests with stdevs 0, 3000 requests at 128/2048) runs them in waves
    // of the batch that fits, the last one short: plan_serving.cpp prices each wave at its own batch.
    double requests = 0;
    std::vector<TrafficClass> traffic;       // optional mixture; overrides requests_per_s
    // How the engine's decode attention kernel reads a grouped-query KV cache (issue 9). "" / "per_kv_head": each
    // KV head once per step, shared by its query heads (FlashAttention, XQA, current engines); "per_query_head":
    // one thread block per query head re-reads its KV head (TensorRT-LLM's masked MHA kernel before the XQA
    // kernel of v0.8, decoderMaskedMultiheadAttentionTemplate.h: hi_kv = hi / qhead_per_kv).
    std::string decode_attention;
    // How the devices of the machine are linked to each other (read only by a runtime whose tensor-parallel all-reduce
    // depends on it, runtimes.json tensor_parallel_allreduce "pytorch-intra-node"): "" / "fully_connected": every
    // device reaches every other over its scale-up link (an NVSwitch board, the catalog's servers); "hybrid_cube_mesh":
    // eight devices, each NVLinked to four others (DGX-1's layout; gpt-fast's README machine of December 2023).
    std::string scale_up_topology;
    // How the runtime issues each decode step from the host (issue 20 class 7): a decode runtime profile id
    // (catalog/runtimes.json "decode_runtimes"); "" = the catalog's default (a tuned runtime).
    std::string runtime;
    // The static shapes a compiled runtime was built for (AWS Neuron: the batch size and sequence length its graphs
    // were compiled at). 0 = the running batch and context_tokens. Read only by a decode runtime whose profile says
    // it pads to them (runtimes.json attention_span, pads_batch_to_compiled, prefill_pads_to_compiled_context).
    double compiled_batch = 0;
    double compiled_sequence_tokens = 0;
    // The concurrent users are a closed loop (a load generator's virtual users, k6's constant-vus: each sends its next
    // request when its last one completes): every request's prefill runs between the decode steps, so the per-user
    // speed and the throughput carry batch x prefill / output per step, as at an arrival rate (plan_serving.cpp). A
    // published time per token that divides a request's whole time by its generated tokens (TGI's time_per_token)
    // is that figure. false: the users' prefills are not in the step (a decode-only figure).
    bool closed_loop = false;
};

struct TrainSpec {
    TrainMethod method = TrainMethod::full;
    Optimizer optimizer = Optimizer::adamw;
    double lora_rank = 16;
    double seq_len = 2048;
    double micro_batch = 1;
    double global_batch = 0;                 // sequences per optimizer step; 0: micro_batch x data-parallel size
    double tokens = 0;                       // tokens to train on; 0: not given
    Checkpointing checkpointing = Checkpointing::none;
    int zero_stage = 0;                      // 0-3 (3 = FSDP full sharding)
    bool cpu_offload = false;                // optimizer state in host memory
    // Activation offloading (torchtune enable_activation_offloading: saved_tensors_hooks that move what autograd saves to
    // host memory and bring it back in backward): under full recomputation the saved block inputs live in host memory.
    bool offload_activations = false;
    // The blocks run under torch.compile (torchtune's compile: True, which compiles every TransformerSelfAttentionLayer, or
    // the whole model before PyTorch 2.5, with Inductor): AOTAutograd's min-cut partitioner saves for backward only what it
    // cannot recompute cheaply, so a gated MLP's SiLU output, an element-wise function of the saved gate output whose only
    // backward use is the element-wise product's gradient, is recomputed, not kept (memory.h gated_mlp_saved_tensors 3).
    bool compiled = false;
    // Layer-wise activation offload without recomputation (Megatron-Core's cpu_offloading_num_layers, run by Transformer
    // Engine's get_cpu_offload_context): the saved activations of the first N of the model's blocks are copied to host memory
    // in the forward pass on a side stream and copied back for the backward; 0 = none, at most layers - 1. Megatron-Core
    // refuses it with recomputation and with pipeline parallelism, so the plan then recomputes nothing and keeps one stage.
    int offload_activation_layers = 0;
    // MaxText's remat_policy "custom" (train.remat_tensors): where each tensor a MaxText layer tags with
    // jax.ad_checkpoint.checkpoint_name lives between the forward and the backward pass, "device" (saved), "offload" (saved in
    // host memory) or "remat" (recomputed), by MaxText's own names (maxtext-tutorial-v1.5.0 src/MaxText/configs/base.yml:
    // decoder_layer_input, context, mlpwi, mlpwi_0, mlpwi_1, mlpwo, query_proj, key_proj, value_proj, qkv_proj, out_proj,
    // mla_q, mla_kv); a name not given keeps base.yml's default (decoder_layer_input "device", the rest "remat"). Empty: not
    // given. Giving it states the run's recomputation: full from each block's input, less what it saves (memory.h RematTensors).
    std::map<std::string, std::string> remat_tensors;
    // The routed experts' grouped GEMMs as a tiled kernel runs them (train.grouped_gemm; MaxText's sparse_matmul: megablox
    // gmm or tokamax ragged_dot, which execute whole tiles): the rows one call sees (tokens on one device per micro-batch x
    // active experts: the kernel's m) and, for the up projection(s) `wi` and the down projection `wo`, the tile of each of
    // its three calls, forward, input gradient (dlhs) and weight gradient (drhs), as the kernel's (tile_m, tile_k, tile_n):
    // rows x contraction x output (tgmm: rows, then the two weight dimensions). rows 0 = not given (the plan prices the
    // expert GEMMs at their useful FLOPs). performance.h routed_expert_tile_factor gives what the tiles execute.
    double grouped_gemm_rows = 0;
    std::array<std::array<int, 3>, 3> grouped_gemm_wi{}, grouped_gemm_wo{};
    // [runtime profile] (issue 9): which trainer's storage rules apply (catalog/runtimes.json) and the
    // attention implementation. "" = the catalog's default profile for the method / the profile's attention.
    std::string runtime;                     // "hf-peft", "qlora-reference", "torchtune"
    std::string attention;                   // "sdpa" (fused: no score matrices stored) or "eager"
    // Which linear layers carry adapters (memory.h LoraTargets): "all", "query-value", "query-key-value"; "" = the
    // runtime profile's default (runtimes.json lora_targets). Recipes differ: torchtune's llama3_1/8B_lora_single_device
    // adapts q and v, its QLoRA configs every linear, PEFT's defaults q and v for Llama and T5.
    std::string lora_targets;
    // Pins on the training search's layout (train.layout): 0 = the search chooses, else exactly this many
    // (1 = none). A trainer that runs only data parallelism with sharding (FSDP) pins the first three to 1.
    int tensor_parallel = 0;
    int pipeline_parallel = 0;
    int context_parallel = 0;
    int expert_parallel = 0;
    // A published run's schedule (train.layout.virtual_stages: model chunks per pipeline rank, 1 = plain 1F1B) and its
    // pipeline micro-batch (train.layout.micro_batch: sequences per micro-batch, the local batch split into
    // local / micro_batch micro-batches); 0 = the search chooses.
    int virtual_stages = 0;
    int layout_micro_batch = 0;
};

struct EmbedSpec {
    double items = 0;
    double tokens_per_item = 512;
    double window_s = 0;                     // 0: no deadline
    double batch_size = 64;
    std::string runtime;                     // encoder runtime profile id (catalog/runtimes.json "encoder_runtimes"); "" = the catalog's default
};

// Devices a team already has: planned on first when the job fits them, at no purchase cost.
struct OwnedDevices {
    std::string device;                      // catalog id (resolved)
    int count = 0;                           // how many
    bool operator==(const OwnedDevices&) const = default;
};

struct HardwareSpec {
    std::vector<std::string> devices;        // catalog ids (resolved); empty: every catalog device
    int count = 0;                           // devices per replica; 0: chosen by the plan's search
    std::vector<OwnedDevices> owned;         // what the team already has (hardware.owned)
};

struct UsageSpec {
    double jobs_per_week = 0;
    double hours_per_job = 0;
    double hours_per_month = 0;
};

struct CostSpec {
    double usd_per_device_hour = -1;         // < 0: from the catalog
    double utilization = -1;                 // < 0: default
    double usd_per_kwh = -1;
    double amortization_years = -1;
};

// The worksheet fields of lesson 003's workload card that only the team can fill in.
struct CardSpec {
    std::string data_source;    // where the inputs come from
    std::string retry_plan;     // what happens when a request or a batch fails
    std::string observability;  // what is logged and watched
    std::string owner;          // who answers for it
    bool operator==(const CardSpec&) const = default;
};

// What the decision needs beyond sizes (lesson 004: what you can run and buy, then price). Every field is
// optional; the plan lists the defaults it used under missing assumptions (docs/workload.md, "decision").
enum class Priority { unit_cost, per_user_speed, latency, simplest };
struct DecisionSpec {
    Priority priority = Priority::unit_cost; // how feasible options are ranked
    std::string stack;                        // "pytorch-cuda", "pytorch-rocm", "jax-xla", "aws-neuron", "intel-gaudi",
                                              // "mlx-metal", "llama.cpp", "any"; "": not given (see feasibility.h)
    std::string site;                         // "own_datacenter", "cloud", "gcp", "aws", "azure", "desk", "office" (a desk or an office, renting allowed), "robot", "phone"; "": any
    int spares = -1;                          // redundancy: spare replicas (N+1 = 1); < 0: not given (1 for serve, else 0)
    double budget_usd_per_month = 0;          // ceiling; 0: none
    double purchase_budget_usd = 0;           // one-off ceiling on what is bought; 0: none
    double deadline_days = 0;                 // time to result of a training or batch job; 0: none given
    double power_budget_w = 0;                // ceiling on what the running devices draw, watts; 0: none
    bool data_on_premises = false;            // data may not leave hardware the team owns
    // Not read from the workload: the stack a named runtime runs on (runtimes.json "stack": a Neuron engine, MaxText),
    // which stands in for `stack` when that is not given, and the key that named it ("serve.runtime ...").
    std::string implied_stack, implied_by;
    bool operator==(const DecisionSpec&) const = default;
};

struct Workload {
    std::string name;
    Stage stage = Stage::serve;
    ModelSpec model;
    PrecisionSpec precision;
    ServeSpec serve;
    TrainSpec train;
    EmbedSpec embed;
    HardwareSpec hardware;
    UsageSpec usage;
    CostSpec cost;
    std::string framework;                      // software the team runs ("vllm", "jax", "mlx", "llama.cpp-vulkan"); "" = any
    CardSpec card;                              // worksheet text fields (optional)
    DecisionSpec decision;                      // priority, stack, site, redundancy, budget, data location
    std::map<std::string, double> assumptions;  // overrides by name (see assumptions.h)
    std::vector<std::string> given;             // dotted keys the user set (for missing-assumption lists)
};

struct WorkloadParse {
    Workload workload;
    Issues issues; // empty when the workload is valid
};

// The values each choice key accepts, as the reader checks them (docs/workload.md lists the same): the page's
// combos list these, so a form cannot offer a value the reader refuses or miss one it takes.
struct WorkloadChoices {
    std::vector<std::string> stage;                // "stage"
    std::vector<std::string> train_method;         // "train.method"
    std::vector<std::string> train_optimizer;      // "train.optimizer"
    std::vector<std::string> train_checkpointing;  // "train.checkpointing"
    std::vector<std::string> decision_priority;    // "decision.priority" (Priority's order)
    std::vector<std::string> decision_stack;       // "decision.stack"
    std::vector<std::string> decision_site;        // "decision.site"
    std::vector<std::string> decision_redundancy;  // "decision.redundancy": "none" (default) or "n+1"
    std::vector<std::string> framework;            // "framework"
    std::vector<std::string> serve_decode_attention; // "serve.decode_attention"
    std::vector<std::string> serve_scale_up_topology; // "serve.scale_up_topology"
    std::vector<std::string> train_attention;      // "train.attention"
    std::vector<std::string> train_lora_targets;   // "train.lora_targets"
};
const WorkloadChoices& workload_choices();

WorkloadParse parse_workload(const std::string& json_text, const Catalog& catalog);

// The workload in its canonical JSON form: every field the user gave, in a fixed order, models and
// devices by catalog id. parse_workload(workload_to_json(w)) gives w back (the export loads unchanged).
std::string workload_to_json(const Workload& w);

// The runtime a framework value names, for everything but the measured decode efficiencies: a backend variant
// ("llama.cpp-vulkan", llama.cpp built with GGML_VULKAN) is its runtime ("llama.cpp": the same layer split, the
// same compute buffer, the same catalog software entry); only efficiencies.json's rules tell them apart. A fine-tuning
// tool ("axolotl", "llama-factory", "torchtune": which one run-it writes the config for) runs on "pytorch".
std::string framework_runtime(const std::string& framework);

std::string_view name(Stage s);
std::string_view name(TrainMethod m);
std::string_view name(Optimizer o);
std::string_view name(Checkpointing c);
std::string_view name(Priority p);

} // namespace hwplan
