// hwplan/performance.h: time from work. Each phase counts its FLOPs and the bytes it moves; a roofline
// turns them into time on a device and names the bound. Pure functions; each names its source.
// Usage: Roofline r = roofline(flops, bytes, peak_flop_per_s * eff, bandwidth_bytes_per_s * eff);
//        r.time_s, r.compute_bound
#pragma once
#include <array>
#include <string>

#include "hwplan/model.h"
#include "hwplan/workload.h"

namespace hwplan {

// Williams, Waterman & Patterson 2009, "Roofline": time = max(FLOPs / peak, bytes / bandwidth).
struct Roofline {
    double flops = 0;                 // work
    double bytes = 0;                 // memory traffic
    double compute_s = 0;             // flops / achievable FLOP/s
    double memory_s = 0;              // bytes / achievable bytes/s
    double time_s = 0;                // the larger of the two
    double intensity_flop_per_byte = 0; // flops / bytes
    double ridge_flop_per_byte = 0;   // achievable FLOP/s / achievable bytes/s: above it, compute-bound
    bool compute_bound = false;
    bool operator==(const Roofline&) const = default;
};
Roofline roofline(double flops, double bytes, double flop_per_s, double bytes_per_s);

// Two operators that run one after the other, each bound by its own side of the roofline: the per-operator
// roofline of LLM-Viewer (Yuan et al. 2024, "LLM Inference Unveiled: Survey and Roofline Model Insights";
// hahnyuan/LLM-Viewer model_analyzer.py at a626bee, ModelAnalyzer.analyze: each linear layer and the decode
// qk_matmul / sv_matmul get their own roofline_analyze and inference_time, which the totals sum). A large-batch
// decode step is its weight GEMMs (compute-bound) followed by attention over the KV cache (memory-bound: about
// one FLOP per byte per query head of a group), which one roofline over their summed FLOPs and bytes would let
// overlap. The result sums FLOPs, bytes, compute_s, memory_s and time_s (time_s >= max(compute_s, memory_s));
// compute_bound says which kind of part took more of the time.
Roofline roofline_sequence(const Roofline& first, const Roofline& second);

// Expected distinct experts one MoE block reads for `tokens` tokens routed to `active` of `experts`
// each, if routing were uniform and independent: E x (1 - (1 - k/E)^tokens). One token reads k; a large
// batch reads all E (why MoE decode gets dearer per token as the batch grows).
double expected_experts_touched(int experts, int active, double tokens);

// Forward FLOPs of one decoded token at `context` tokens of history: 2 x active parameters (one
// multiply-add per weight, Kaplan et al. 2020) plus attention over the cache, 4 x q-width x tokens
// attended per layer (scores and the weighted sum; sliding layers attend to at most their window; a latent
// layer attends in its absorbed, compressed space: heads x (kv_lora_rank + qk_rope)).
double decode_flops_per_token(const ModelArch& arch, double active_params, double context);

// Forward FLOPs of a prefill of `prompt` tokens: 2 x active x P plus causal attention,
// 2 x q-width x P x min(P, window) per layer (half of the 4 x P^2 x q-width of full attention); a latent layer
// unabsorbed, its q-width heads x (qk_nope + qk_rope + v_head_dim) / 2.
double prefill_flops(const ModelArch& arch, double active_params, double prompt);

// Training FLOPs per token. Full training: 6N (forward 2N, backward 4N; Kaplan et al. 2020) plus
// attention 12 x layers x q-width x seq (Chowdhery et al. 2022, PaLM appendix B; sliding layers count
// their window; a latent layer unabsorbed, as MaxText and Megatron-Core train it: q-width heads x (qk_nope + qk_rope +
// v_head_dim) / 2, scores and weighted sum); LoRA/QLoRA: 4N, the frozen weights need no weight gradients (Hu et al. 2021); full
// recomputation adds one forward pass (+2N, so 8N: lesson 001, "about 33 % compute overhead").
// attention_ratio scales the attention term only: 1 is the full T x T count; a causal kernel that skips fully
// masked blocks (FlashAttention-2, Dao 2023 section 3.1.1) executes about half of it (0.5).
// A custom remat policy (train.remat_tensors, memory.h RematTensors) recomputes `recompute_share` of the forward's
// parameter FLOPs (+2N x share) and the attention kernel's forward only when `attention_recomputed`; 1 and true are full.
double training_flops_per_token(const ModelArch& arch, double active_params, double seq_len, TrainMethod method,
                                 Checkpointing checkpointing, double attention_ratio = 1.0, double recompute_share = 1.0,
                                 bool attention_recomputed = true);

// Executed over counted attention FLOPs when the attention kernel holds each head's vectors in whole vector-register lane
// rows of `lanes` elements: every score and context matmul of a head (forward Q K^T and P V; backward dV, dP, dQ, dK) has
// head_dim as its contraction or its output width, so a head_dim that is not a multiple of the lanes runs padded to the next
// multiple with zeros: ceil(d / lanes) lanes / d, weighted over the layers by the attention FLOPs each is counted (sliding
// layers their window). On a TPU the lanes are 128 (tokamax splash_attention_kernel.py, NUM_LANES = 128 and "If the
// head_dim_v is not a multiple of the number of lanes, it will be padded to that multiple with zeros", e433047 2025-11-14;
// jax tpu_info num_lanes=128 for every generation). In the kernel, whatever the inputs' layout (MaxText's Ironwood gpt-oss
// recipe passes sa_q/k/v_layout=SEQ_MINOR), q is taken as (block_q, head_dim) (`q_ref[...].T`), the output accumulates in a
// (block_q, head_dim_v) scratch, and the fused backward takes k and v as (block_kv, head_dim) (`ref[:, slice_k].T`) into
// (block_kv, head_dim) dk/dv scratches: head_dim is the lane dimension of every matmul operand or result it enters. This is
// lanes, not the MXU's width (jax tpu_info mxu_column_size 256 on v6e and TPU7x): pricing head_dim 128 at half a 256-wide
// MXU moves dense Llama rows on v6e and TPU7x 5 to 45 points slower, against their measurements (item 120).
// Latent (MLA) layers train unabsorbed (item 123) and splash takes their widths apart (head_dim_qk = qk_nope + qk_rope,
// head_dim_v = v_head_dim: MaxText 98a3d4c attention_mla.py passes query/key at 192 and value at 128 for DeepSeek-V3): the
// scores run at the padded qk width, the weighted sum at the padded v width (DeepSeek-V3 (256 + 128) / (192 + 128) = 1.2);
// a latent layer without a v_head_dim is left at 1.
// 1 when lanes <= 0 or the model counts no attention.
double attention_lane_padding_factor(const ModelArch& arch, double seq_len, int lanes);

// Executed over useful work of one tiled grouped GEMM (a megablox gmm or tokamax ragged_dot: MaxText's sparse_matmul) of
// `rows` rows in `groups` contiguous groups, contraction k, output n, tile tile_rows x tile_k x tile_n. The kernel visits each
// row tile once for the group that owns it and once more for every group that starts inside it (tokamax
// pallas_mosaic_tpu_kernel.py make_group_metadata: "tiles_m <= group_tiles.sum() <= tiles_m + num_groups - 1"); routing
// puts the group boundaries at arbitrary rows, so the upper end: (ceil(rows / tile_rows) + groups - 1) / (rows / tile_rows).
// k and n run in whole tiles: ceil(k / tile_k) tile_k / k and ceil(n / tile_n) tile_n / n. 1 when any input is not positive.
double grouped_gemm_tile_factor(double rows, int groups, int tile_rows, int tile_k, int tile_n, double k, double n);

// The routed experts' FLOP-weighted tile factor over one MoE block's grouped GEMMs (MaxText moe.py sparse_matmul: wi_0 and
// wi_1, hidden -> expert width, for a gated MLP, one such call otherwise, and wo, expert width -> hidden), each run three
// times, forward, input gradient (dlhs) and weight gradient (drhs), all of equal FLOPs. `wi` and `wo` give each call's
// kernel tile (tile_m, tile_k, tile_n), in that order: tile_k runs over the call's contraction and tile_n over its output,
// so for wi forward k = hidden, n = width; dlhs k = width, n = hidden; drhs (tgmm: rows contracted) k = hidden, n = width;
// for wo the two widths swap. 1 for a model without routed experts or without rows.
double routed_expert_tile_factor(const ModelArch& arch, double rows, int groups, const std::array<std::array<int, 3>, 3>& wi,
                                 const std::array<std::array<int, 3>, 3>& wo);

// FLOPs per token the routed experts' GEMMs take in a training step without recomputation: 6 (full) or 4 (adapters) x
// the active experts' weights a token meets (moe layers x active experts x 2 or 3 matrices x hidden x expert width).
double routed_expert_training_flops_per_token(const ModelArch& arch, TrainMethod method);

// Time FP8 training spends outside the GEMMs on its operands, per device: tokens x GEMM operand elements per
// token x bytes moved per element / memory bandwidth (one formula, fp8_cast_time_s). Transformer Engine casts
// every GEMM input (forward) and every output gradient (backward) from BF16 to FP8, writing a row-wise and a
// transposed copy (its cast-transpose kernels), and keeps their amax and scales; that work is memory-bound
// and grows with the widths while the GEMMs grow with their products, which is why FP8 gains less over BF16
// on small models. The bytes per element are fitted (catalog/assumptions.json
// training_fp8_cast_bytes_per_element, on the suite's FP8 calibration cases).
// Operand elements per token summed over the layers: attention hidden + (q + 2 kv) + q + hidden; each MLP
// (dense, or every active routed and shared expert) hidden + width + FC1 output (2 x width gated) + hidden.
double fp8_cast_elements_per_token(const ModelArch& arch);
double fp8_cast_time_s(const ModelArch& arch, double tokens, double bytes_per_element, double bandwidth_bytes_per_s);

// Time a training step spends in its element-wise kernels, per device: tokens x activation elements read and
// written per token x bytes per element / memory bandwidth (one formula, training_elementwise_time_s). These
// kernels (norms, residual adds, the MLP's activation, the loss over the logits) do no GEMM work and run at
// memory speed at any precision, so they do not speed up when the GEMMs move to FP8 (Transformer Engine's user
// guide, "Using FP8 with Transformer Engine": FP8 is applied to the GEMMs of its Linear layers, the other
// operations keep their higher precision; paraphrased) and weigh more on small models, whose GEMM FLOPs
// per token grow with hidden^2 while these grow with hidden. Counted from the layer's own operations, each
// reading its inputs and writing its output once (no fusion across kernels), per layer and token:
//   norm        forward read h, write h (2h); backward read x and dy, write dx (3h)   x norms_per_layer
//   residual    forward read 2h, write h (3h); backward the gradient sum, 3h          x 2
//   activation  plain (GELU) forward 2w, backward 3w; gated (SwiGLU) forward 3w (gate and up in, one out),
//               backward 5w (gate, up, dy in; dgate, dup out); each active routed and shared expert its own
//   permutation of a routed (MoE) block, k = active experts: forward the expand (read h, write the k routed copies
//               the grouped GEMM reads: h + k h) and the finalize (read the k expert outputs, write their weighted sum:
//               k h + h), 2 (1 + k) h; backward the same tensors in reverse (the combine's gradient copied to the k rows,
//               the k rows' gradients summed back into one) plus the routing weights' gradient, which reads the k saved
//               expert outputs again: 2 (1 + k) h + k h. The same expand and finalize kernels as moe_routing_bytes_per_token
//               (TensorRT-LLM runMoe); in training Megatron-Core's permute / unpermute (moe_utils.py: tokens.index_select
//               of the k routed copies; unpermute's scatter_add of the prob-weighted outputs; Transformer Engine's fused
//               unpermute backward, backend.unpermute_bwd(unpermuted_act_grad, input_act, row_id_map, probs), reads the
//               saved input_act for prob_grad) and MaxText's permute / unpermute (moe.py: jnp.repeat of the inputs k times,
//               sorted; unsorted, then einsum "BKE,BK -> BE" with the weights). The activation is counted above.
// plus the loss over the vocabulary (read the logits forward, write their gradient backward: 2 V); a step that
// recomputes (full checkpointing) runs each layer's forward twice. Attention is priced as FLOPs (its kernel).
double training_elementwise_elements_per_token(const ModelArch& arch, bool recompute_forward);
double training_elementwise_time_s(const ModelArch& arch, double tokens, bool recompute_forward, double bytes_per_element,
                                   double bandwidth_bytes_per_s);

// Element-wise reads and writes of the attention score matrices per token when attention runs eagerly (unfused: the
// scores are written by one batched GEMM, read by the softmax, and its output by the next GEMM), which the FLOP count
// of the two GEMMs does not hold: per attention layer, heads x seq_len score elements a token (the whole square, as an
// eager kernel computes it, masked or not), each moved forward by the (fused) scale-mask-softmax (read the scores,
// write the probabilities: 2) and backward by its gradient kernel (read the probabilities and their gradient, write
// the scores' gradient: 3), counted from Megatron-LM's FusedScaleMaskSoftmax (scaled_masked_softmax forward and
// backward). With attention dropout (torch.nn.Dropout on the probabilities) forward reads them, writes them and a
// one-byte mask (2.5 elements of 2 bytes), backward reads the gradient and the mask and writes the gradient (2.5).
// A step that recomputes (full or selective recomputation: both rerun the attention core) runs the forward twice.
// The masks and ALiBi's bias are not counted.
double eager_attention_elementwise_elements_per_token(const ModelArch& arch, double seq_len, bool recompute_forward, bool dropout);

// Time QLoRA spends dequantizing its frozen base, per device: quantized parameters x uses x (bits / 8 read
// + 2 bytes written) / memory bandwidth. bitsandbytes' MatMul4Bit dequantizes the packed weight to a 16-bit
// tensor in forward and again in backward (bitsandbytes/autograd/_functions.py, MatMul4Bit.forward:
// "F.dequantize_4bit(B, quant_state).to(A.dtype)", .backward: "F.dequantize_4bit(B, ctx.state)"; torchao's
// LinearNF4 in torchao/dtypes/nf4tensor.py, torchtune's, likewise "weight.to(input.dtype)" both ways), and a
// recomputed forward does it once more; the 16-bit copy is then read by the GEMM like any weight. A lower
// bound: at the device's full bandwidth.
double qlora_dequant_time_s(double quantized_params, double bits_per_weight, double uses, double bandwidth_bytes_per_s);

// Bytes an Adam-style optimizer step moves through host memory per trainable parameter when it runs on the CPU
// (train.cpu_offload): it reads the gradient, reads and writes the optimizer state (both moments, and the FP32 master
// copy where the trainer keeps one: optimizer_bytes counts them all), and writes the weight, which it also reads unless
// the master copy is the one it updates (master_in_optimizer). torch.optim.AdamW's fused CPU kernel
// (aten/src/ATen/native/cpu/FusedAdamKernel.cpp) and DeepSpeed's CPU Adam each make one such pass per step.
// Pure bf16 (torchtune dtype bf16): 2 + 2 x 4 + 2 x 2 = 14; mixed precision with FP32 master weights: 2 + 2 x 12 + 2 = 28.
double host_step_bytes_per_param(double weight_bytes, double gradient_bytes, double optimizer_bytes, bool master_in_optimizer);

// Host operations one micro-batch of an eager adapter fine-tune issues (transformers' Trainer + PEFT, Unsloth):
// layers x (forward x (2 with full recomputation, else 1) + backward + dequantization per linear x linears x uses,
// where a 4-bit base is dequantized in the forward, the recomputed forward and the backward) + those outside the layers.
// Counted from the trainers' code (runtimes.json adapter_host_ops_*); priced at assumptions eager_op_host_s each.
double adapter_host_ops_per_micro_batch(double forward_per_layer, double backward_per_layer, double dequant_per_linear,
                                        double outside_layers, int layers, int linears_per_layer, bool recompute_forward,
                                        bool quantized_base);

// Encoder FLOPs per item of `tokens` tokens: 2 x (parameters - embeddings) x tokens plus bidirectional
// attention 4 x q-width x tokens^2 per layer.
double encoder_flops_per_item(const ModelArch& arch, double params, double tokens);

// Share of the device's multiprocessors a GEMM's output tiles keep busy, tile and wave quantisation together:
// the m x n output is cut into ceil(m/t) x ceil(n/t) tiles of t x t; each multiprocessor runs one tile at a time,
// so the tiles run in waves = ceil(tiles / sms) and the useful share is m n / (waves x sms x t^2) (NVIDIA, "Matrix
// Multiplication Background User's Guide", docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication,
// "Dimension Quantization Effects": tile and wave quantization; its
// example: on A100's 108 SMs one thread block per SM, a wave of 108 tiles). 1 when sms or tile is 0 (not recorded).
double gemm_wave_efficiency(double m, double n, double tile, int sms);

// Share of a GEMM's computed rows that are real when its `rows` (M) are cut into tiles of `tile` rows: rows /
// (ceil(rows / tile) x tile), the tile quantisation of NVIDIA's "Matrix Multiplication Background User's Guide"
// ("Dimension Quantization Effects"). 1 at or below one tile, where kernels switch to smaller tiles (vLLM's CUTLASS
// SM80 dispatch: 128 x 128 only for M > 128; catalog assumption gemm_tile_elements), and when tile is 0.
double gemm_row_tile_efficiency(double rows, double tile);

// The FLOP rate a power-capped board reaches with a kernel that keeps `busy_share` of the unthrottled peak
// busy, under the board's cap: energy per operation times the rate cannot exceed the power (Choi, Bedard, Fowler,
// Vuduc, "A roofline model of energy", IPDPS 2013: time costs per operation overlap, energy costs add; read with a
// power ceiling). A continuous GEMM, every cycle busy, draws the cap and sustains
// `capped_flop_per_s`. A kernel busy busy_share u of its cycles draws per cycle (u + r (1 - u)) of the busy power,
// r = `idle_power_ratio` (the power of a cycle whose tensor cores wait, as a share of a busy one), so the clock
// can rise by 1 / (u + r (1 - u)) up to the peak's own clock:
//   rate = min(u x unthrottled, capped x u / (u + r (1 - u))).
// r = 0: only the multiply work draws power, the rate is the capped one whatever u is (the power roofline);
// r = 1: every cycle draws full power, rate = u x min(unthrottled, capped) (the clock held at the GEMM's).
// No cap (capped_flop_per_s 0): u x unthrottled.
double power_capped_flop_per_s(double unthrottled_flop_per_s, double capped_flop_per_s, double busy_share, double idle_power_ratio);

// The same over one transformer block's weight GEMMs at `tokens` rows (QKV, output projection, MLP up and gate,
// MLP down), weighted by time: each GEMM's FLOPs (proportional to n x k) divided by its own wave efficiency.
double block_gemm_wave_efficiency(const ModelArch& arch, double tokens, double tile, int sms);

// Bytes one device moves through memory per token and MoE block in the routed experts' memory-bound kernels
// around the grouped GEMMs, which run one after another with them and cannot hide behind their FLOPs (TensorRT-LLM
// cpp/tensorrt_llm/kernels/mixtureOfExperts/moe_kernels.cu, CutlassMoeFCRunner::runMoe): expandInputRowsKernel
// reads each token and writes its k routed copies (the permuted_data_ the FC1 GEMM reads); for a gated MLP the FC1
// GEMM writes gate and up (2 x the intermediate width) and doActivation / doGatedActivation reads them and writes
// the intermediate the FC2 GEMM reads (a non-gated activation runs in FC1's epilogue, moeGemmBiasAct); the FC2
// GEMM writes k outputs a token that finalizeMoeRoutingKernel reads, weighs and sums into the token's one output.
//   per token = hidden x in (read) + k x hidden x in (expanded copies)
//             + [gated] k x (2 x width x out + width x in) + k x hidden x out (FC2 outputs read) + hidden x out
// width = the expert intermediate over `expert_split` (tensor-parallel ranks share every expert's columns);
// `gemm_input_bytes` the bytes of a GEMM operand (1 at FP8/INT8 compute, 2 at 16 bits), `gemm_output_bytes` of
// a GEMM result (16-bit). The routing GEMM, the top-k and the sort move bytes per token x experts only, left out.
double moe_routing_bytes_per_token(const ModelArch& arch, double expert_split, double gemm_input_bytes, double gemm_output_bytes);

// Bytes an encoder runtime that does not fuse its element-wise work moves through device memory per item of
// `tokens` tokens, outside the weight GEMMs: per layer, `activation_passes` reads or writes of a tokens x hidden
// tensor (bias copies, transposes, residual adds, normalisation, activation) and `score_passes` of the
// heads x tokens x tokens score matrix (written by QK^T, scaled, masked, soft-maxed, read by the product with V),
// each element `bytes_per_value` bytes. Counts per runtime: catalog/runtimes.json "encoder_runtimes".
double encoder_unfused_bytes_per_item(const ModelArch& arch, double tokens, double activation_passes, double score_passes,
                                      double bytes_per_value);

// Collectives (all-reduce, all-gather, all-to-all, their latency) have one model, in parallel.h.

// M/G/1 waiting time (Poisson arrivals, one server, any service-time distribution).
// Pollaczek-Khinchine: mean wait W = lambda x E[S^2] / (2 (1 - rho)). For quantiles, the wait is 0 with
// probability 1 - rho and otherwise taken as exponential with mean W / rho (the standard heavy-traffic
// approximation, Kingman 1962): P(wait > t) = rho x exp(-t rho / W).
struct QueueWait {
    double utilization = 0;  // rho
    double mean_s = 0;
    double p50_s = 0;
    double p95_s = 0;
    bool stable = true;      // rho < 1
};
QueueWait mg1_wait(double arrival_per_s, double mean_service_s, double second_moment_service_s2);

// A compiled runtime's token-generation buckets (transformers-neuronx bucket.token_sizes with an integer n_positions:
// utils.power_of_two_bucket_sizes(128, n_positions), sizes doubling from `min_bucket` while below `max_bucket`, then
// `max_bucket`): the step that writes position p (0-based) runs the smallest bucket holding p + 1 tokens
// (DecoderProgram.find_bucket_id: npos >= length + 1), at most max_bucket. Returns the mean bucket over the `steps`
// steps that write positions first_position .. first_position + steps - 1 (exact: summed bucket by bucket).
// 0 when steps <= 0 or max_bucket <= 0.
double mean_power_of_two_bucket(double first_position, double steps, double min_bucket, double max_bucket);

// Attention heads a runtime runs over `ranks` tensor-parallel ranks, padded or replicated so that each rank holds
// whole heads (runtime.h DecodeRuntime::head_sharding): "pad-replicate-to-heads" (transformers-neuronx 2.18:
// query heads rounded up to a multiple of ranks; KV heads that do not divide by ranks replicated to the query heads
// and padded alike, GQA.REPLICATED_HEADS), "pad-replicate-to-ranks" (NxD Inference's gqa.py: query heads rounded up
// alike; KV heads fewer than the ranks or not dividing them replicated to one per rank when the ranks divide by
// them, REPLICATE_TO_TP_DEGREE, else to the padded query heads, CONVERT_TO_MHA); anything else: the model's own.
struct ShardedHeads {
    double query = 0;
    double kv = 0;
};
ShardedHeads sharded_heads(int heads, int kv_heads, int ranks, const std::string& rule);
double mg1_quantile_s(const QueueWait& w, double q); // 0 < q < 1

} // namespace hwplan
