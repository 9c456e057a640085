// memory.cpp: memory a job holds, term by term (sources in memory.h).
#include "hwplan/memory.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

#include "hwplan/format.h"

namespace hwplan {

// Lesson 001, "The GPU Memory Bottleneck": P parameters at b bits occupy P*b/8 bytes.
double weights_bytes(double params, Precision p) { return params * bytes_per_value(p); }

WeightsEstimate estimate_weights(const WeightsInput& in) {
    WeightsEstimate out;
    out.params = in.params;
    if (std::isnan(in.params))
        out.issues.push_back({"params", "must be a number, got NaN"});
    else if (std::isinf(in.params))
        out.issues.push_back({"params", "must be finite, got infinity"});
    else if (in.params <= 0)
        out.issues.push_back({"params", "must be a positive number of parameters, got " + format_sig(in.params, 6)});
    else if (in.params > kMaxParams)
        out.issues.push_back({"params", "must be at most 1e14 (100 trillion parameters), got " +
                                            format_sig(in.params, 6)});
    auto p = parse_precision(in.precision);
    if (!p)
        out.issues.push_back({"precision", "unknown precision \"" + in.precision + "\"; expected one of " +
                                               precision_names()});
    if (!out.issues.empty()) return out;
    out.precision = *p;
    out.bytes_per_param = bytes_per_value(*p);
    out.weights_bytes = weights_bytes(in.params, *p);
    return out;
}

} // namespace hwplan

namespace hwplan {

namespace {

// Widths of the attention projections: queries, keys, values (latent layers decompress to heads x dims).
struct AttnWidths {
    double q = 0, k = 0, v = 0;
};

AttnWidths attn_widths(const ModelArch& a) {
    AttnWidths w;
    w.q = double(a.heads) * a.head_dim;
    w.k = w.v = double(a.kv_heads) * a.head_dim;
    if (a.has_mla) w.v = double(a.heads) * a.mla.v_head_dim;
    return w;
}

// MLP width a token passes through: the dense width, or for MoE blocks the active routed experts plus
// the shared ones (each routed token is processed by k experts).
double mlp_width_per_token(const ModelArch& a) {
    if (!a.has_moe) return a.intermediate;
    const auto& e = a.moe;
    const double shared = e.shared_expert_intermediate > 0 ? e.shared_expert_intermediate : e.expert_intermediate;
    return double(e.active_experts) * e.expert_intermediate + double(e.shared_experts) * shared;
}

double mlp_matrices(const ModelArch& a) { return a.mlp == MlpKind::gated ? 3.0 : 2.0; }

} // namespace

namespace {

// KV values one token adds to one block of this attention kind.
double kv_values_per_layer(const ModelArch& arch, AttentionKind kind) {
    switch (kind) {
    case AttentionKind::full:
    case AttentionKind::sliding: return 2.0 * arch.kv_heads * arch.head_dim;
    case AttentionKind::latent: return double(arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim);
    case AttentionKind::none: return 0;
    }
    return 0;
}

} // namespace

double kv_bytes_per_token(const ModelArch& arch, double bytes_per_value) {
    double values = 0;
    for (const auto& run : arch.attention_layers) values += run.count * kv_values_per_layer(arch, run.kind);
    return values * bytes_per_value;
}

double kv_bytes_per_sequence(const ModelArch& arch, double bytes_per_value, double context_tokens, double block_tokens) {
    auto held = [&](double tokens) { return block_tokens > 0 ? std::ceil(tokens / block_tokens) * block_tokens : tokens; };
    double bytes = 0;
    for (const auto& run : arch.attention_layers) {
        const double tokens = run.kind == AttentionKind::sliding ? std::min(context_tokens, double(run.window)) : context_tokens;
        bytes += run.count * kv_values_per_layer(arch, run.kind) * bytes_per_value * held(tokens);
    }
    return bytes;
}

double max_context_tokens(const ModelArch& arch, double bytes_per_value, double free_bytes, double block_tokens) {
    if (free_bytes <= 0) return 0;
    // The cache is piecewise linear in the context: every layer grows until its window (if any) is full.
    // Walk the windows in increasing order; in each stretch the growing layers' slope is constant. The windows are
    // kept inline (a model has a handful of attention runs; this runs for every trial of the serving search).
    constexpr size_t kInline = 8;
    std::array<double, kInline> inline_windows{};
    std::vector<double> more;
    size_t count = 1; // inline_windows[0] = 0
    for (const auto& run : arch.attention_layers)
        if (run.kind == AttentionKind::sliding) {
            if (count < kInline) inline_windows[count++] = run.window;
            else more.push_back(run.window);
        }
    if (!more.empty()) { // more sliding runs than the inline room: all of them on the heap
        more.insert(more.begin(), inline_windows.begin(), inline_windows.begin() + count);
        count = more.size();
    }
    const std::span<double> windows = more.empty() ? std::span<double>(inline_windows.data(), count) : std::span<double>(more);
    std::sort(windows.begin(), windows.end());
    double context = 0;
    for (size_t i = 0;; ++i) {
        const double used = kv_bytes_per_sequence(arch, bytes_per_value, context, 0);
        double slope = 0; // bytes per token while the context is in (windows[i], next)
        for (const auto& run : arch.attention_layers)
            if (run.kind != AttentionKind::sliding || run.window > context)
                slope += run.count * kv_values_per_layer(arch, run.kind) * bytes_per_value;
        if (slope <= 0) return INFINITY; // nothing grows any more: any context fits
        const double next = i + 1 < windows.size() ? windows[i + 1] : INFINITY;
        const double reach = context + (free_bytes - used) / slope;
        if (reach <= next) {
            context = reach;
            break;
        }
        context = next;
    }
    // Paged blocks: the largest whole number of blocks whose rounded-up cache still fits.
    double tokens = std::floor(context);
    if (block_tokens > 0) tokens = std::floor(tokens / block_tokens) * block_tokens;
    while (tokens > 0 && kv_bytes_per_sequence(arch, bytes_per_value, tokens, block_tokens) > free_bytes)
        tokens -= block_tokens > 0 ? block_tokens : 1;
    return std::max(0.0, tokens);
}

double max_active_users(double capacity_bytes, double weights_bytes, double overhead_bytes, double kv_bytes_per_user) {
    const double free_bytes = capacity_bytes - weights_bytes - overhead_bytes;
    if (free_bytes <= 0 || kv_bytes_per_user <= 0) return 0;
    // A tiny epsilon keeps exact multiples (3 GB / 0.6 GB) from flooring one short in binary floating point.
    return std::floor(free_bytes / kv_bytes_per_user * (1 + 1e-12));
}

double training_activation_bytes_per_layer(const ModelArch& arch, const ActivationSettings& s) {
    const double sb = s.seq_len * s.micro_batch, h = arch.hidden, p = s.bytes_per_value;
    const double t = std::max(1, s.tensor_parallel);
    if (s.checkpointing == Checkpointing::full) { // the block input (unless it is in host memory) and what a custom policy saves
        const double sp = s.sequence_parallel ? t : 1.0;
        const double input = s.offload_checkpoints ? 0.0 : p * sb * h / sp;
        return input + sb * (s.remat_saved_split_bytes_per_token / t + s.remat_saved_whole_bytes_per_token / sp);
    }
    const auto w = attn_widths(arch);
    const double mask = s.dropout ? 1.0 : 0.0; // bytes per element of a dropout mask
    const double lp = s.linear_input_bytes_per_value > 0 ? s.linear_input_bytes_per_value : p; // linear layers' input copies
    // Kept whole on each tensor-parallel rank unless sequence parallelism splits them (Korthikanti's "10"):
    // the inputs of the two norms, of the QKV projection and of the MLP, and the two output dropout masks.
    const double unsplit = 2 * p * sb * h + (s.qkv_input_kept ? lp * sb * h : 0.0) + (s.mlp_input_kept ? lp * sb * h : 0.0) + 2 * mask * sb * h;
    // Split across tensor-parallel ranks (Korthikanti's "24" and "5as/h"): Q and K, V, the output
    // projection's input, the MLP's internal tensors, and the attention scores unless they are not kept.
    double split = p * sb * (w.q + w.k) + p * sb * w.v + p * sb * w.q;
    const double i = mlp_width_per_token(arch);
    // The MLP's tensors (see ActivationSettings): the down projection's input at the linear inputs' width, the rest at p.
    const double other_mlp_tensors = (arch.mlp == MlpKind::gated ? s.gated_mlp_saved_tensors : 2.0) - 1.0;
    split += std::max(0.0, other_mlp_tensors) * p * sb * i + (s.down_input_kept ? lp * sb * i : 0.0);
    split += s.extra_bytes_per_token * sb;
    if (!s.flash_attention && s.checkpointing != Checkpointing::selective) {
        const double scores = double(arch.heads) * s.seq_len * s.seq_len * s.micro_batch; // a s^2 b
        split += p * scores + (s.dropout ? mask * scores + p * scores : 0.0);
    }
    return (s.sequence_parallel ? unsplit / t : unsplit) + split / t;
}

TrainingActivations training_activation_bytes(const ModelArch& arch, const ActivationSettings& s, int layers_on_device) {
    TrainingActivations out;
    // Under full recomputation with offloaded checkpoints the per-block figure leaves the block input out (it is in host memory).
    const double per_layer = training_activation_bytes_per_layer(arch, s);
    // Layer-wise offload (memory.h ActivationSettings::offloaded_layers): the device keeps L - N blocks' saved tensors.
    const int kept = layers_on_device - std::clamp(s.offloaded_layers, 0, std::max(0, layers_on_device - 1));
    out.blocks_bytes = kept * per_layer;
    if (s.checkpointing == Checkpointing::full) { // one block is rematerialized at a time during backward
        ActivationSettings working = s;
        working.checkpointing = Checkpointing::none;
        out.blocks_bytes += training_activation_bytes_per_layer(arch, working);
    }
    const double logits = s.seq_len * s.micro_batch * arch.vocab / std::max(1, s.tensor_parallel);
    out.logits_bytes = logits * (s.logits_kept_bytes_per_value + s.loss_fp32_bytes_per_value / std::max(1.0, s.loss_chunks));
    out.total_bytes = out.blocks_bytes + out.logits_bytes;
    return out;
}

const std::vector<std::string>& maxtext_remat_tensor_names() {
    static const std::vector<std::string> names{"decoder_layer_input", "context", "mlpwi", "mlpwi_0", "mlpwi_1", "mlpwo", "query_proj",
                                                "key_proj", "value_proj", "qkv_proj", "out_proj", "mla_q", "mla_kv"};
    return names;
}

RematTensors maxtext_remat_tensors(const ModelArch& arch, const std::map<std::string, std::string>& policy) {
    RematTensors out;
    // Where a name lives: base.yml's default (decoder_layer_input on the device, the rest recomputed) unless given.
    auto where = [&](const char* n) {
        const auto it = policy.find(n);
        return it != policy.end() ? it->second : std::string(std::string(n) == "decoder_layer_input" ? "device" : "remat");
    };
    // A tensor two names can tag (the fused projection or the separate one; a model has one of them): saved if either saves it.
    auto kept = [&](std::initializer_list<const char*> names) {
        std::string best = "remat";
        for (const char* n : names) {
            const std::string w = where(n);
            if (w == "device") return w;
            if (w == "offload") best = w;
        }
        return best;
    };
    out.input_offloaded = where("decoder_layer_input") == "offload";
    const double h = arch.hidden;
    const auto aw = attn_widths(arch);
    // Query and key widths: latent attention's heads carry the no-position and rotary parts (DeepSeek-V2, section 2.1).
    const double q = arch.has_mla ? double(arch.heads) * (arch.mla.qk_nope_head_dim + arch.mla.qk_rope_head_dim) : aw.q;
    const double k = arch.has_mla ? q : aw.k, v = aw.v;
    const double heads_out = arch.has_mla ? double(arch.heads) * arch.mla.v_head_dim : aw.q; // the attention output's width
    const int layers = std::max(1, arch.layers);
    double gemm_all = 0, gemm_recomputed = 0, split = 0, whole = 0, offloaded = 0;
    auto tensor = [&](const std::string& w, double gemm, double elements, bool hidden_wide) {
        gemm_all += gemm;
        if (w == "remat") gemm_recomputed += gemm;
        else if (w == "offload") offloaded += elements;
        else (hidden_wide ? whole : split) += elements;
    };
    for (int l = 0; l < layers; ++l) {
        // Attention: multiply-adds per token of each projection, and the tensor its output is.
        if (arch.has_mla) {
            const auto& m = arch.mla;
            const double rope = m.qk_rope_head_dim;
            if (m.q_lora_rank > 0) {
                tensor(kept({"mla_q"}), h * m.q_lora_rank, m.q_lora_rank, false);
                tensor(kept({"query_proj", "qkv_proj"}), double(m.q_lora_rank) * q, q, false);
            } else {
                tensor(kept({"query_proj", "qkv_proj"}), h * q, q, false);
            }
            tensor(kept({"mla_kv"}), h * (m.kv_lora_rank + rope), m.kv_lora_rank, false);
            tensor(kept({"key_proj", "qkv_proj"}), double(m.kv_lora_rank) * arch.heads * m.qk_nope_head_dim, k, false);
            tensor(kept({"value_proj", "qkv_proj"}), double(m.kv_lora_rank) * v, v, false);
        } else {
            tensor(kept({"query_proj", "qkv_proj"}), h * q, q, false);
            tensor(kept({"key_proj", "qkv_proj"}), h * k, k, false);
            tensor(kept({"value_proj", "qkv_proj"}), h * v, v, false);
        }
        // The kernel's output and its FP32 logsumexp (two 16-bit values a head).
        const std::string context = kept({"context"});
        if (context == "device") split += heads_out + 2.0 * arch.heads;
        else if (context == "offload") offloaded += heads_out + 2.0 * arch.heads;
        tensor(kept({"out_proj"}), heads_out * h, h, true);
        // The MLP of this block: dense width, or the routed experts a token visits plus the shared ones.
        const bool moe = arch.has_moe && l >= arch.moe.dense_layers;
        const double i = moe ? mlp_width_per_token(arch) : double(arch.intermediate);
        const double outputs = moe ? double(arch.moe.active_experts + arch.moe.shared_experts) : 1.0; // mlpwo: each expert's
        if (arch.mlp == MlpKind::gated) {
            tensor(kept({"mlpwi_0", "mlpwi"}), h * i, i, false);
            tensor(kept({"mlpwi_1", "mlpwi"}), h * i, i, false);
        } else {
            tensor(kept({"mlpwi", "mlpwi_0"}), h * i, i, false);
        }
        tensor(kept({"mlpwo"}), i * h, outputs * h, true);
        if (l == 0) out.attention_recomputed = context == "remat";
    }
    out.recompute_share = gemm_all > 0 ? gemm_recomputed / gemm_all : 1.0;
    out.device_split_elements = split / layers;
    out.device_whole_elements = whole / layers;
    out.offloaded_elements = offloaded / layers;
    return out;
}

double inference_activation_bytes(const ModelArch& arch, double chunk_tokens, double sampled_sequences) {
    const auto w = attn_widths(arch);
    const double width = 2.0 * arch.hidden + w.q + w.k + w.v + (arch.mlp == MlpKind::gated ? 3.0 : 2.0) * mlp_width_per_token(arch);
    return 2.0 * chunk_tokens * width + 4.0 * sampled_sequences * arch.vocab;
}

double embedding_and_head_params(const ModelArch& arch) {
    const double table = double(arch.vocab) * arch.hidden;
    return table * (arch.tied_embeddings ? 1.0 : 2.0) +
           (arch.position == PositionKind::learned ? double(arch.max_context) * arch.hidden : 0.0);
}

double optimizer_bytes_per_param(Optimizer o) {
    switch (o) {
    case Optimizer::adamw: return 12;
    case Optimizer::adamw_fp32: return 8;
    case Optimizer::adamw_8bit: return 6;
    case Optimizer::sgd: return 8;
    case Optimizer::adafactor: return 4;
    }
    return 12;
}

double gradient_bytes_per_param(Optimizer o) { return o == Optimizer::adamw_fp32 ? 4 : 2; }
double weight_bytes_per_param(Optimizer o) { return o == Optimizer::adamw_fp32 ? 4 : 2; }

ModelStateBytes full_training_state_bytes(Optimizer o, bool fp32) {
    if (!fp32 || o == Optimizer::adamw_fp32)
        return {weight_bytes_per_param(o), gradient_bytes_per_param(o), optimizer_bytes_per_param(o)};
    // fp32 weights are the master copy: drop the 4-byte FP32 copy the mixed-precision figures include.
    return {4.0, 4.0, optimizer_bytes_per_param(o) - 4.0};
}

double optimizer_moment_bytes_per_param(Optimizer o, double state_bytes_per_value) {
    switch (o) {
    case Optimizer::adamw:
    case Optimizer::adamw_fp32: return 2.0 * state_bytes_per_value;
    case Optimizer::adamw_8bit: return 2.0;
    case Optimizer::sgd: return state_bytes_per_value;
    case Optimizer::adafactor: return 0;
    }
    return 2.0 * state_bytes_per_value;
}

double lora_params(const ModelArch& arch, double rank) { return lora_params(arch, rank, LoraTargets::all); }

LoraTargets lora_targets_from_name(const std::string& name) {
    return name == "query-value" ? LoraTargets::query_value : name == "query-key-value" ? LoraTargets::query_key_value : LoraTargets::all;
}

double lora_params(const ModelArch& arch, double rank, LoraTargets targets) {
    const auto w = attn_widths(arch);
    const double h = arch.hidden;
    if (targets == LoraTargets::query_value) return arch.layers * rank * ((h + w.q) + (h + w.v)); // r x (in + out) each
    if (targets == LoraTargets::query_key_value) return arch.layers * rank * ((h + w.q) + (h + w.k) + (h + w.v));
    const double attention = rank * ((h + w.q) + (h + w.k) + (h + w.v) + (w.q + h));
    const double m = mlp_matrices(arch);
    double total = 0;
    int block = 0;
    for (const auto& run : arch.attention_layers) {
        for (int i = 0; i < run.count; ++i, ++block) {
            total += attention;
            if (!arch.has_moe || block < arch.moe.dense_layers) {
                total += m * rank * (h + arch.intermediate);
            } else if (arch.moe.shared_experts > 0) {
                const double sw = arch.moe.shared_expert_intermediate > 0 ? arch.moe.shared_expert_intermediate
                                                                          : arch.moe.expert_intermediate;
                total += arch.moe.shared_experts * m * rank * (h + sw);
            }
        }
    }
    return total;
}

double lora_dropout_bytes_per_token(const ModelArch& arch, LoraTargets targets, double lora_dropout, bool dropout_per_module,
                                    double bytes_per_value) {
    if (lora_dropout <= 0) return 0;
    const auto w = attn_widths(arch);
    const double h = arch.hidden, per_value = bytes_per_value + 1.0; // the dropped copy and its bool mask
    if (targets == LoraTargets::query_value) return (dropout_per_module ? 2.0 : 1.0) * h * per_value; // q and v read the same input
    if (targets == LoraTargets::query_key_value) return (dropout_per_module ? 3.0 : 1.0) * h * per_value;
    // Every linear: Q, K, V read the first norm's output, O the attention output (q wide), the gate and up projections the
    // second norm's output, the down projection the MLP's product (i wide; MoE blocks: the shared experts' or the dense width).
    const double attention = (dropout_per_module ? 3.0 : 1.0) * h + w.q;
    const double mlp = (arch.mlp == MlpKind::gated ? (dropout_per_module ? 2.0 : 1.0) : 1.0) * h + mlp_width_per_token(arch);
    return (attention + mlp) * per_value;
}

double largest_tensor_params(const ModelArch& arch) {
    return std::max(double(arch.vocab) * arch.hidden, double(arch.hidden) * std::max(arch.intermediate, arch.has_moe ? arch.moe.expert_intermediate : 0));
}

} // namespace hwplan
