// performance.cpp: FLOPs, bytes, rooflines and queues (sources in performance.h).
#include "hwplan/performance.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hwplan/memory.h"

namespace hwplan {

Roofline roofline(double flops, double bytes, double flop_per_s, double bytes_per_s) {
    Roofline r;
    r.flops = flops;
    r.bytes = bytes;
    r.compute_s = flop_per_s > 0 ? flops / flop_per_s : 0;
    r.memory_s = bytes_per_s > 0 ? bytes / bytes_per_s : 0;
    r.time_s = std::max(r.compute_s, r.memory_s);
    r.intensity_flop_per_byte = bytes > 0 ? flops / bytes : 0;
    r.ridge_flop_per_byte = bytes_per_s > 0 ? flop_per_s / bytes_per_s : 0;
    r.compute_bound = r.compute_s > r.memory_s;
    return r;
}

Roofline roofline_sequence(const Roofline& first, const Roofline& second) {
    Roofline r;
    r.flops = first.flops + second.flops;
    r.bytes = first.bytes + second.bytes;
    r.compute_s = first.compute_s + second.compute_s;
    r.memory_s = first.memory_s + second.memory_s;
    r.time_s = first.time_s + second.time_s;
    r.intensity_flop_per_byte = r.bytes > 0 ? r.flops / r.bytes : 0;
    // the achievable rates the parts used (one pair when they share the same peak and bandwidth)
    r.ridge_flop_per_byte = r.compute_s > 0 && r.memory_s > 0 ? (r.flops / r.compute_s) / (r.bytes / r.memory_s) : 0;
    const double compute_bound_s = (first.compute_bound ? first.time_s : 0) + (second.compute_bound ? second.time_s : 0);
    r.compute_bound = compute_bound_s > r.time_s - compute_bound_s;
    return r;
}

double expected_experts_touched(int experts, int active, double tokens) {
    if (experts <= 0 || active <= 0 || tokens <= 0) return 0;
    const double miss = 1.0 - double(active) / experts;
    return experts * (1.0 - std::pow(miss, tokens));
}

namespace {

// q-width x tokens attended, summed over layers. Latent layers: at decode, the compressed space of kv_lora_rank + rope
// dims per head after weight absorption (DeepSeek-V2 section 2.1.3); in training, where the trainers do not absorb
// (MaxText's MLA and Megatron-Core's MLASelfAttention up-project K and V, then run attention on them), scores over
// qk_nope + qk_rope dims and the weighted sum over v_head_dim, the mean of the two per head.
double attended(const ModelArch& a, double context, bool absorbed = true) {
    double sum = 0;
    for (const auto& run : a.attention_layers) {
        double width = double(a.heads) * a.head_dim;
        if (run.kind == AttentionKind::latent)
            width = absorbed || a.mla.v_head_dim <= 0
                        ? double(a.heads) * (a.mla.kv_lora_rank + a.mla.qk_rope_head_dim)
                        : double(a.heads) * 0.5 * (a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim + a.mla.v_head_dim);
        if (run.kind == AttentionKind::none) continue;
        const double tokens = run.kind == AttentionKind::sliding ? std::min(context, double(run.window)) : context;
        sum += run.count * width * tokens;
    }
    return sum;
}

} // namespace

double decode_flops_per_token(const ModelArch& arch, double active_params, double context) {
    return 2.0 * active_params + 4.0 * attended(arch, context);
}

double prefill_flops(const ModelArch& arch, double active_params, double prompt) {
    double attention = 0;
    for (const auto& run : arch.attention_layers) {
        if (run.kind == AttentionKind::none) continue;
        // A latent layer's prefill runs unabsorbed, as training does (attended, absorbed = false): scores over
        // qk_nope + qk_rope dims, the weighted sum over v_head_dim (vLLM's and SGLang's MLA prefill paths).
        double width = run.kind == AttentionKind::latent && arch.mla.v_head_dim > 0
                           ? double(arch.heads) * 0.5 * (arch.mla.qk_nope_head_dim + arch.mla.qk_rope_head_dim + arch.mla.v_head_dim)
                           : double(arch.heads) * arch.head_dim;
        // causal: token j attends to min(j, window) earlier tokens; summed over j that is P^2/2 (or P x W)
        const double pairs = run.kind == AttentionKind::sliding && run.window < prompt
                                 ? prompt * run.window - 0.5 * double(run.window) * run.window
                                 : 0.5 * prompt * prompt;
        attention += run.count * 4.0 * width * pairs;
    }
    return 2.0 * active_params * prompt + attention;
}

double training_flops_per_token(const ModelArch& arch, double active_params, double seq_len, TrainMethod method,
                                Checkpointing checkpointing, double attention_ratio, double recompute_share, bool attention_recomputed) {
    // Attention has no weights, so its backward costs twice its forward for full and LoRA training alike:
    // forward 4 x q-width x T per layer (PaLM counts T, not T/2, for the causal case), x3 in all; attention_ratio
    // 0.5 counts what a causal FlashAttention-2 kernel executes (FlashAttention benchmarks, flops(): /2 if causal).
    const double attention_forward = attention_ratio * 4.0 * attended(arch, seq_len, false);
    double per_token = (method == TrainMethod::full ? 6.0 : 4.0) * active_params + 3.0 * attention_forward;
    if (checkpointing == Checkpointing::full) per_token += 2.0 * active_params * recompute_share + (attention_recomputed ? attention_forward : 0.0);
    return per_token;
}

double attention_lane_padding_factor(const ModelArch& arch, double seq_len, int lanes) {
    if (lanes <= 0) return 1.0;
    auto padded = [&](double dim) { return std::ceil(dim / lanes) * lanes; };
    double counted = 0, executed = 0;
    for (const auto& run : arch.attention_layers) {
        if (run.kind == AttentionKind::none) continue;
        const double tokens = run.kind == AttentionKind::sliding ? std::min(seq_len, double(run.window)) : seq_len;
        // Per head and token, the scores cost 2 x their width and the weighted sum 2 x its width: a layer's counted FLOPs are
        // proportional to heads x (score width + value width), and it executes them at the padded widths.
        double width = 0, run_width = 0;
        if (run.kind == AttentionKind::latent) {
            // A latent layer trains unabsorbed (attended, absorbed = false): scores over qk_nope + qk_rope, the weighted sum
            // over v_head_dim, each its own kernel operand (MaxText's MLA passes query and key at 192, value at 128 to
            // splash, which takes head_dim_qk and head_dim_v apart). Without a v_head_dim the layer counts at its absorbed width, at 1.
            if (arch.mla.v_head_dim <= 0) {
                width = run_width = double(arch.heads) * 2.0 * (arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim);
                counted += run.count * width * tokens;
                executed += run.count * run_width * tokens;
                continue;
            }
            const double qk = double(arch.mla.qk_nope_head_dim) + arch.mla.qk_rope_head_dim, v = arch.mla.v_head_dim;
            width = double(arch.heads) * (qk + v);
            run_width = double(arch.heads) * (padded(qk) + padded(v));
        } else {
            if (arch.head_dim <= 0) continue;
            width = double(arch.heads) * 2.0 * arch.head_dim;
            run_width = double(arch.heads) * 2.0 * padded(arch.head_dim);
        }
        counted += run.count * width * tokens;
        executed += run.count * run_width * tokens;
    }
    return counted > 0 ? executed / counted : 1.0;
}

double grouped_gemm_tile_factor(double rows, int groups, int tile_rows, int tile_k, int tile_n, double k, double n) {
    if (rows <= 0 || groups <= 0 || tile_rows <= 0 || tile_k <= 0 || tile_n <= 0 || k <= 0 || n <= 0) return 1.0;
    const double tiles_m = rows / tile_rows;
    const double visits = std::ceil(tiles_m) + (groups - 1);
    const double pad_k = std::ceil(k / tile_k) * tile_k / k, pad_n = std::ceil(n / tile_n) * tile_n / n;
    return visits / tiles_m * pad_k * pad_n;
}

double routed_expert_tile_factor(const ModelArch& arch, double rows, int groups, const std::array<std::array<int, 3>, 3>& wi,
                                 const std::array<std::array<int, 3>, 3>& wo) {
    if (!arch.has_moe || arch.moe.active_experts <= 0 || arch.moe.expert_intermediate <= 0 || rows <= 0) return 1.0;
    const double h = arch.hidden, f = arch.moe.expert_intermediate;
    auto call = [&](const std::array<int, 3>& t, double k, double n) { return grouped_gemm_tile_factor(rows, groups, t[0], t[1], t[2], k, n); };
    // forward (k, n), dlhs (n, k), drhs (k, n): the input gradient contracts over the forward's output
    const double up = (call(wi[0], h, f) + call(wi[1], f, h) + call(wi[2], h, f)) / 3.0;
    const double down = (call(wo[0], f, h) + call(wo[1], h, f) + call(wo[2], f, h)) / 3.0;
    const double up_calls = arch.mlp == MlpKind::gated ? 2.0 : 1.0; // each h x f: equal FLOPs to the down projection's f x h
    return (up_calls * up + down) / (up_calls + 1.0);
}

double routed_expert_training_flops_per_token(const ModelArch& arch, TrainMethod method) {
    if (!arch.has_moe || arch.moe.active_experts <= 0) return 0.0;
    const int moe_layers = std::max(0, arch.layers - arch.moe.dense_layers);
    const double matrices = arch.mlp == MlpKind::gated ? 3.0 : 2.0;
    const double weights = double(moe_layers) * arch.moe.active_experts * matrices * arch.hidden * double(arch.moe.expert_intermediate);
    return (method == TrainMethod::full ? 6.0 : 4.0) * weights;
}

namespace {

// One MLP's GEMM operands per token: FC1 (gate and up when gated) reads `hidden` and writes its width, FC2 reads
// the width and writes `hidden`; forward inputs plus backward output gradients.
double mlp_cast_elements(double hidden, double width, MlpKind mlp) {
    const double fc1_out = (mlp == MlpKind::gated ? 2.0 : 1.0) * width;
    return hidden + width + fc1_out + hidden;
}

} // namespace

double fp8_cast_elements_per_token(const ModelArch& a) {
    const double q = double(a.heads) * a.head_dim, kv = double(a.kv_heads > 0 ? a.kv_heads : a.heads) * a.head_dim;
    // attention: QKV reads hidden, writes q + 2 kv; the output projection reads q, writes hidden
    const double attention = a.hidden + (q + 2.0 * kv) + q + a.hidden;
    double sum = 0;
    for (int layer = 0; layer < a.layers; ++layer) {
        double mlp = mlp_cast_elements(a.hidden, a.intermediate, a.mlp);
        if (a.has_moe && layer >= a.moe.dense_layers)
            mlp = a.moe.active_experts * mlp_cast_elements(a.hidden, a.moe.expert_intermediate, a.mlp) +
                  a.moe.shared_experts * mlp_cast_elements(a.hidden, a.moe.shared_expert_intermediate, a.mlp);
        sum += attention + mlp;
    }
    return sum;
}

double fp8_cast_time_s(const ModelArch& arch, double tokens, double bytes_per_element, double bandwidth_bytes_per_s) {
    if (bandwidth_bytes_per_s <= 0 || tokens <= 0) return 0;
    return tokens * fp8_cast_elements_per_token(arch) * bytes_per_element / bandwidth_bytes_per_s;
}

namespace {

// One MLP activation's elements per token: forward, then backward (performance.h, training_elementwise_elements_per_token).
double activation_elements(double width, MlpKind mlp, bool forward) {
    if (mlp == MlpKind::gated) return (forward ? 3.0 : 5.0) * width;
    return (forward ? 2.0 : 3.0) * width;
}

} // namespace

double training_elementwise_elements_per_token(const ModelArch& a, bool recompute_forward) {
    const double h = a.hidden;
    double sum = 0;
    for (int layer = 0; layer < a.layers; ++layer) {
        auto act = [&](bool forward) {
            if (a.has_moe && layer >= a.moe.dense_layers)
                return a.moe.active_experts * activation_elements(a.moe.expert_intermediate, a.mlp, forward) +
                       a.moe.shared_experts * activation_elements(a.moe.shared_expert_intermediate, a.mlp, forward);
            return activation_elements(a.intermediate, a.mlp, forward);
        };
        // A routed block's token permutation (performance.h): forward read h, write k copies; read k outputs, write h.
        // Backward the same tensors in reverse, and the routing weights' gradient reads the k saved outputs again.
        const bool routed = a.has_moe && layer >= a.moe.dense_layers && a.moe.active_experts > 0;
        const double k = routed ? a.moe.active_experts : 0.0;
        const double permute_forward = routed ? 2.0 * (1.0 + k) * h : 0.0;
        const double permute_backward = routed ? permute_forward + k * h : 0.0;
        const double forward = a.norms_per_layer * 2.0 * h + 2 * 3.0 * h + act(true) + permute_forward;
        const double backward = a.norms_per_layer * 3.0 * h + 2 * 3.0 * h + act(false) + permute_backward;
        sum += (recompute_forward ? 2.0 : 1.0) * forward + backward;
    }
    return sum + 2.0 * a.vocab;
}

double training_elementwise_time_s(const ModelArch& arch, double tokens, bool recompute_forward, double bytes_per_element,
                                   double bandwidth_bytes_per_s) {
    if (bandwidth_bytes_per_s <= 0 || tokens <= 0 || bytes_per_element <= 0) return 0;
    return tokens * training_elementwise_elements_per_token(arch, recompute_forward) * bytes_per_element / bandwidth_bytes_per_s;
}

double eager_attention_elementwise_elements_per_token(const ModelArch& arch, double seq_len, bool recompute_forward, bool dropout) {
    if (seq_len <= 0 || arch.heads <= 0) return 0;
    int layers = 0;
    for (const auto& run : arch.attention_layers) layers += run.count;
    if (arch.attention_layers.empty()) layers = arch.layers;
    const double drop = dropout ? 2.5 : 0.0;
    const double forward = 2.0 + drop, backward = 3.0 + drop;
    return double(std::max(0, layers)) * arch.heads * seq_len * ((recompute_forward ? 2.0 : 1.0) * forward + backward);
}

double qlora_dequant_time_s(double quantized_params, double bits_per_weight, double uses, double bandwidth_bytes_per_s) {
    if (bandwidth_bytes_per_s <= 0 || quantized_params <= 0 || uses <= 0) return 0;
    return quantized_params * uses * (bits_per_weight / 8.0 + 2.0) / bandwidth_bytes_per_s;
}

double host_step_bytes_per_param(double weight_bytes, double gradient_bytes, double optimizer_bytes, bool master_in_optimizer) {
    if (optimizer_bytes <= 0) return 0;
    return gradient_bytes + 2.0 * optimizer_bytes + (master_in_optimizer ? 1.0 : 2.0) * weight_bytes;
}

double adapter_host_ops_per_micro_batch(double forward_per_layer, double backward_per_layer, double dequant_per_linear,
                                        double outside_layers, int layers, int linears_per_layer, bool recompute_forward,
                                        bool quantized_base) {
    const double forwards = recompute_forward ? 2.0 : 1.0;
    const double dequant = quantized_base ? dequant_per_linear * linears_per_layer * (forwards + 1.0) : 0.0;
    return std::max(0, layers) * (forward_per_layer * forwards + backward_per_layer + dequant) + outside_layers;
}

double encoder_flops_per_item(const ModelArch& arch, double params, double tokens) {
    const double body = std::max(0.0, params - embedding_and_head_params(arch));
    double width = 0;
    for (const auto& run : arch.attention_layers) width += run.count * double(arch.heads) * arch.head_dim;
    return 2.0 * body * tokens + 4.0 * width * tokens * tokens;
}

double power_capped_flop_per_s(double unthrottled_flop_per_s, double capped_flop_per_s, double busy_share, double idle_power_ratio) {
    const double u = std::clamp(busy_share, 0.0, 1.0), r = std::clamp(idle_power_ratio, 0.0, 1.0);
    const double kernel = u * unthrottled_flop_per_s;
    if (capped_flop_per_s <= 0 || u <= 0) return kernel;
    return std::min(kernel, capped_flop_per_s * u / (u + r * (1 - u)));
}

double gemm_wave_efficiency(double m, double n, double tile, int sms) {
    if (sms <= 0 || tile <= 0 || m <= 0 || n <= 0) return 1.0;
    const double tiles = std::ceil(m / tile) * std::ceil(n / tile);
    const double waves = std::ceil(tiles / sms);
    return m * n / (waves * sms * tile * tile);
}

double gemm_row_tile_efficiency(double rows, double tile) {
    if (tile <= 0 || rows <= tile) return 1.0;
    return rows / (std::ceil(rows / tile) * tile);
}

double block_gemm_wave_efficiency(const ModelArch& arch, double tokens, double tile, int sms) {
    const double h = arch.hidden;
    const double q = double(arch.heads) * arch.head_dim;
    const double kv = double(arch.kv_heads > 0 ? arch.kv_heads : arch.heads) * arch.head_dim;
    const double up = arch.intermediate * (arch.mlp == MlpKind::gated ? 2.0 : 1.0);
    // {n, k} of each weight GEMM; its FLOPs are 2 x tokens x n x k.
    const double gemms[4][2] = {{q + 2 * kv, h}, {h, q}, {up, h}, {h, double(arch.intermediate)}};
    double flops = 0, time = 0;
    for (const auto& g : gemms) {
        if (g[0] <= 0 || g[1] <= 0) continue;
        flops += g[0] * g[1];
        time += g[0] * g[1] / gemm_wave_efficiency(tokens, g[0], tile, sms);
    }
    return time > 0 ? flops / time : 1.0;
}

double moe_routing_bytes_per_token(const ModelArch& arch, double expert_split, double gemm_input_bytes, double gemm_output_bytes) {
    if (!arch.has_moe || arch.moe.active_experts <= 0 || arch.moe.expert_intermediate <= 0) return 0;
    const double h = arch.hidden, k = arch.moe.active_experts;
    const double width = double(arch.moe.expert_intermediate) / std::max(1.0, expert_split);
    const double expand = h * gemm_input_bytes + k * h * gemm_input_bytes;
    const double activation = arch.mlp == MlpKind::gated ? k * (2.0 * width * gemm_output_bytes + width * gemm_input_bytes) : 0.0;
    const double finalize = k * h * gemm_output_bytes + h * gemm_output_bytes;
    return expand + activation + finalize;
}

double encoder_unfused_bytes_per_item(const ModelArch& arch, double tokens, double activation_passes, double score_passes,
                                      double bytes_per_value) {
    if (tokens <= 0 || bytes_per_value <= 0) return 0;
    double sum = 0;
    for (const auto& run : arch.attention_layers) {
        if (run.kind == AttentionKind::none) continue;
        sum += run.count * (activation_passes * tokens * double(arch.hidden) + score_passes * double(arch.heads) * tokens * tokens);
    }
    return sum * bytes_per_value;
}

QueueWait mg1_wait(double arrival_per_s, double mean_service_s, double second_moment_service_s2) {
    QueueWait w;
    w.utilization = arrival_per_s * mean_service_s;
    if (w.utilization >= 1) {
        w.stable = false;
        w.mean_s = w.p50_s = w.p95_s = INFINITY;
        return w;
    }
    w.mean_s = arrival_per_s * second_moment_service_s2 / (2.0 * (1.0 - w.utilization));
    w.p50_s = mg1_quantile_s(w, 0.50);
    w.p95_s = mg1_quantile_s(w, 0.95);
    return w;
}

double mg1_quantile_s(const QueueWait& w, double q) {
    if (!w.stable) return INFINITY;
    const double rho = w.utilization;
    if (rho <= 1.0 - q || w.mean_s <= 0) return 0; // at least a share q of requests do not wait at all
    return (w.mean_s / rho) * std::log(rho / (1.0 - q));
}

double mean_power_of_two_bucket(double first_position, double steps, double min_bucket, double max_bucket) {
    if (steps <= 0 || max_bucket <= 0) return 0;
    std::vector<double> buckets;
    for (double b = std::max(1.0, min_bucket); b < max_bucket; b *= 2) buckets.push_back(b);
    buckets.push_back(max_bucket);
    // A step at position p needs p + 1 tokens: tokens n = first + 1 .. first + steps, each in the smallest bucket >= n.
    const double lo = first_position + 1, hi = first_position + steps; // inclusive range of n
    double sum = 0, below = 0; // `below`: the previous bucket's size (tokens up to it fall in an earlier bucket)
    for (size_t i = 0; i < buckets.size(); ++i) {
        const double top = i + 1 == buckets.size() ? std::max(hi, buckets[i]) : buckets[i]; // the last takes the rest
        const double from = std::max(lo, below + 1), to = std::min(hi, top);
        if (to >= from) sum += (to - from + 1) * buckets[i];
        below = top;
    }
    return sum / steps;
}

ShardedHeads sharded_heads(int heads, int kv_heads, int ranks, const std::string& rule) {
    ShardedHeads h{double(heads), double(kv_heads > 0 ? kv_heads : heads)};
    if (heads <= 0 || ranks <= 1 || (rule != "pad-replicate-to-heads" && rule != "pad-replicate-to-ranks")) return h;
    const int kv = kv_heads > 0 ? kv_heads : heads;
    const double q = std::ceil(double(heads) / ranks) * ranks;
    h.query = q;
    if (kv == heads) h.kv = q; // multi-head: the KV heads are padded with the query heads
    else if (rule == "pad-replicate-to-heads") h.kv = kv % ranks == 0 ? kv : q;
    else h.kv = (kv < ranks || kv % ranks != 0) ? (ranks % kv == 0 ? double(ranks) : q) : double(kv);
    return h;
}

} // namespace hwplan
