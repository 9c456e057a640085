// fields.h: the workload form's number fields, one row each: JSON path (docs/workload.md), label with its
// unit, the stages that use it, and the help shown on hover (meaning, default, where the default comes from).
#pragma once
#include <string_view>

namespace hwplan::ui {

enum StageMask : unsigned {
    kServe = 1, kBatch = 2, kEmbed = 4, kFinetune = 8, kPretrain = 16, kRl = 32, kEdge = 64,
    kAllStages = 127, kTokens = kServe | kBatch | kEdge | kRl, kTrain = kFinetune | kPretrain | kRl,
};

struct FieldSpec {
    const char* path;     // "serve.context_tokens"
    const char* section;  // the heading it is drawn under
    const char* label;    // with its unit
    unsigned stages;      // StageMask bits
    const char* help;     // meaning; default (and its source) when left empty
};

constexpr const char* kDocs = "docs/workload.md";

constexpr FieldSpec kFields[] = {
    {"model.params", "Model", "Parameters", kAllStages,
     "Total parameter count of a custom model (7e9 for 7B). A size only: the KV cache and activations borrow the shape of the closest dense preset, and the plan says so."},
    {"serve.context_tokens", "Serving", "Context (tokens)", kTokens,
     "Tokens held per sequence in the KV cache (prompt + output). Default 4096 (docs/workload.md)."},
    {"serve.prompt_tokens", "Serving", "Prompt (tokens)", kTokens,
     "Tokens read before the first output token (prefill). Default: half the context (docs/workload.md)."},
    {"serve.output_tokens", "Serving", "Output (tokens)", kTokens,
     "Tokens generated per request (decode). Default: a quarter of the context (docs/workload.md)."},
    {"serve.concurrent_users", "Serving", "Concurrent users", kServe | kBatch | kRl,
     "Sequences decoded at the same time; each holds its own KV cache. Default 1 (docs/workload.md)."},
    {"serve.requests_per_s", "Serving", "Arrival rate (requests/s)", kServe,
     "Requests arriving per second, for latency under load (p95 queueing). Empty: no queueing estimate."},
    {"serve.ttft_target_s", "Serving", "First-token target (s)", kServe,
     "The longest acceptable wait for the first token; options that miss it are not feasible. Empty: no target."},
    {"serve.tokens_per_s_per_user_target", "Serving", "Speed target (tokens/s/user)", kServe,
     "The slowest acceptable generation speed each user sees. Empty: no target."},
    {"serve.batch_size", "Serving", "Batch size (sequences)", kServe | kBatch | kRl,
     "Sequences per decode step. Default: the concurrent users (docs/workload.md)."},
    {"train.seq_len", "Training", "Sequence length (tokens)", kTrain,
     "Tokens per training sequence. Default 2048 (docs/workload.md)."},
    {"train.micro_batch", "Training", "Micro-batch (sequences)", kTrain,
     "Sequences per device per step; drives activation memory. Default 1 (docs/workload.md)."},
    {"train.global_batch", "Training", "Global batch (sequences)", kTrain,
     "Sequences per optimizer step across devices. Default: micro-batch x devices (docs/workload.md)."},
    {"train.lora_rank", "Training", "LoRA rank", kTrain,
     "Rank of the low-rank adapters (LoRA and QLoRA only). Default 16 (docs/workload.md)."},
    {"train.tokens", "Training", "Tokens to train on", kTrain,
     "Total training tokens; gives the run time and its cost. Empty: per-step figures only."},
    {"train.zero_stage", "Training", "ZeRO stage (0-3)", kTrain,
     "How optimizer state, gradients and weights are sharded across data-parallel devices. Default 3 when a full fine-tune spans devices, else 0."},
    {"embed.items", "Embedding job", "Items", kEmbed, "Documents (or chunks) to embed."},
    {"embed.tokens_per_item", "Embedding job", "Tokens per item", kEmbed, "Average tokens per item. Default 512 (docs/workload.md)."},
    {"embed.window_s", "Embedding job", "Batch window (s)", kEmbed, "Time the job must finish in (7200 = two hours)."},
    {"embed.batch_size", "Embedding job", "Batch size (items)", kEmbed, "Items per encoder batch. Default 64 (docs/workload.md)."},
    {"hardware.count", "Hardware", "Devices per replica", kAllStages,
     "A whole number of devices for one copy of the model. Empty: the fewest that fit (powers of two up to 4096)."},
    {"usage.hours_per_month", "Usage and cost", "Hours used a month", kAllStages,
     "How many hours a month the job runs; prices a rental by the hour and a purchase by its share. Empty: per-result costs only."},
    {"usage.jobs_per_week", "Usage and cost", "Jobs a week", kAllStages, "For batch-like use: how many runs a week."},
    {"usage.hours_per_job", "Usage and cost", "Hours per job", kAllStages, "For batch-like use: hours each run takes."},
    {"cost.utilization", "Usage and cost", "Utilization (0-1)", kAllStages,
     "Share of paid time doing useful work; a cost per result divides by it. Empty: the plan's assumed utilization (the Assumptions tab lists it)."},
    {"cost.usd_per_device_hour", "Usage and cost", "Rental price (USD per device-hour)", kAllStages,
     "Your own rental price; overrides the catalog's price for every device."},
    {"cost.usd_per_kwh", "Usage and cost", "Electricity (USD per kWh)", kAllStages, "Power price for owned hardware. Default from catalog/defaults.json."},
    {"cost.amortization_years", "Usage and cost", "Amortization (years)", kAllStages,
     "Years a purchase is written off over. Default from catalog/defaults.json."},
    // The Engine and layout section (panel_workload.cpp) draws these after its runtime and attention choices.
    {"serve.tensor_parallel", "Engine and layout", "Tensor parallel (devices)", kTokens,
     "Devices per replica as the engine runs it (a benchmark's \"TP 8\" on 8 GPUs is one replica of 8); needs Devices per "
     "replica, which it must divide. Empty: the planner's search splits the count. Key serve.tensor_parallel (docs/workload.md)."},
    {"serve.requests", "Engine and layout", "Requests in the run", kBatch,
     "An offline run's fixed request count (TensorRT-LLM's perf overview: 3,000 requests at 128/2048): they run in waves of "
     "the batch that fits and the last wave is short. Empty: a steady stream. Key serve.requests (docs/workload.md)."},
    {"serve.compiled_batch", "Engine and layout", "Compiled batch (sequences)", kTokens,
     "The batch size a compiled runtime (AWS Neuron) built its graphs for: a smaller running batch is padded to it. Empty: the "
     "running batch. Read only by a runtime that pads (catalog/runtimes.json). Key serve.compiled_batch."},
    {"serve.compiled_sequence_tokens", "Engine and layout", "Compiled sequence (tokens)", kTokens,
     "The sequence length a compiled runtime's graphs were built for: attention and prefill run at it. Empty: the context. Read "
     "only by a runtime that pads. Key serve.compiled_sequence_tokens."},
    {"train.layout.tensor_parallel", "Engine and layout", "Tensor parallel", kPretrain,
     "Pins the training layout's tensor parallelism (1 = none). Empty: the search chooses. Key train.layout.tensor_parallel."},
    {"train.layout.pipeline_parallel", "Engine and layout", "Pipeline stages", kPretrain,
     "Pins the number of pipeline stages (1 = none). Empty: the search chooses. Key train.layout.pipeline_parallel."},
    {"train.layout.virtual_stages", "Engine and layout", "Virtual stages", kPretrain,
     "Model chunks per pipeline rank: 1 = plain 1F1B, 2 or more = interleaved 1F1B. Empty: the search chooses. Key "
     "train.layout.virtual_stages."},
    {"train.layout.micro_batch", "Engine and layout", "Pipeline micro-batch (sequences)", kPretrain,
     "Sequences per pipeline micro-batch: each data-parallel rank runs its share of the global batch as that many "
     "micro-batches. Empty: the search chooses. Key train.layout.micro_batch."},
    {"train.layout.context_parallel", "Engine and layout", "Context parallel", kPretrain,
     "Pins context (sequence) parallelism (1 = none). Empty: the search chooses. Key train.layout.context_parallel."},
    {"train.layout.expert_parallel", "Engine and layout", "Expert parallel", kPretrain,
     "Pins expert parallelism of a mixture-of-experts model (1 = none). Empty: the search chooses. Key "
     "train.layout.expert_parallel."},
    {"train.offload_activation_layers", "Engine and layout", "Offloaded layers (activations)", kFinetune | kPretrain,
     "Layer-wise activation offload without recomputation (Megatron-Core's cpu_offloading_num_layers): the saved activations "
     "of this many blocks live in host memory, so the device holds the rest; no recomputation and one pipeline stage with it. "
     "Empty or 0: none. Key train.offload_activation_layers."},
    // The Decision section (panel_workload.cpp) draws these between its choices and the devices you own.
    {"decision.budget_usd_per_month", "Decision", "Monthly budget (USD)", kAllStages,
     "A ceiling on the monthly cost: options over it, or without a monthly cost, are eliminated. Empty: no ceiling. "
     "Key decision.budget_usd_per_month (docs/workload.md)."},
    {"decision.purchase_budget_usd", "Decision", "Purchase budget (USD)", kAllStages,
     "A one-off ceiling on what is bought: a buy option whose servers or racks, as bought (beyond the devices you own), cost "
     "more is eliminated, naming the sum. Empty: none. Key decision.purchase_budget_usd (docs/workload.md)."},
    {"decision.power_budget_w", "Decision", "Power budget (W)", kAllStages,
     "A ceiling on what the running devices draw (a robot's battery, a desk's outlet, a rack's feed): an option whose devices "
     "draw more at their lowest published power is eliminated, naming the budget and the draw. Empty: none. Key "
     "decision.power_budget_w (docs/workload.md)."},
    {"decision.deadline_days", "Decision", "Deadline (days)", kTrain | kBatch,
     "Time to result of a training job with tokens to train on: the plan takes the fewest devices that finish in time and "
     "eliminates options that miss it. Empty: no deadline. Key decision.deadline_days (docs/workload.md)."},
};

} // namespace hwplan::ui
