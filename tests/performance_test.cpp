// performance_test.cpp: rooflines, FLOP counts and the queue, against hand values and published runs.
#include "hwplan/performance.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "test_archs.h"

namespace hwplan {

TEST(Roofline, NamesTheBoundAndTheRidge) {
    // 1 TFLOP against 1 GB on a 100 TFLOP/s, 1 TB/s device: 10 ms of compute vs 1 ms of memory.
    const auto r = roofline(1e12, 1e9, 100e12, 1e12);
    EXPECT_DOUBLE_EQ(r.compute_s, 0.01);
    EXPECT_DOUBLE_EQ(r.memory_s, 0.001);
    EXPECT_DOUBLE_EQ(r.time_s, 0.01);
    EXPECT_TRUE(r.compute_bound);
    EXPECT_DOUBLE_EQ(r.intensity_flop_per_byte, 1000);
    EXPECT_NEAR(r.ridge_flop_per_byte, 100, 1e-9);
    EXPECT_FALSE(roofline(1e10, 1e9, 100e12, 1e12).compute_bound); // 10 FLOP/byte is under the ridge
}

// Two operators one after the other (LLM-Viewer's per-operator roofline): GEMMs of 1 TFLOP over 1 GB on a
// 100 TFLOP/s, 1 TB/s device take 10 ms (compute-bound, memory 1 ms), then attention of 1 GFLOP over 4 GB
// takes 4 ms (memory-bound, compute 0.01 ms). In sequence: 10 + 4 = 14 ms, compute 10.01 ms, memory 5 ms,
// most of it compute-bound. One roofline over the sums would let them overlap: max(10.01, 5) = 10.01 ms.
TEST(Roofline, OperatorsInSequenceAddTheirOwnBounds) {
    const Roofline r = roofline_sequence(roofline(1e12, 1e9, 100e12, 1e12), roofline(1e9, 4e9, 100e12, 1e12));
    EXPECT_NEAR(r.time_s, 0.014, 1e-12);
    EXPECT_NEAR(r.compute_s, 0.01001, 1e-12);
    EXPECT_NEAR(r.memory_s, 0.005, 1e-12);
    EXPECT_DOUBLE_EQ(r.flops, 1.001e12);
    EXPECT_DOUBLE_EQ(r.bytes, 5e9);
    EXPECT_NEAR(r.intensity_flop_per_byte, 200.2, 1e-9);
    EXPECT_NEAR(r.ridge_flop_per_byte, 100, 1e-9);
    EXPECT_TRUE(r.compute_bound);
    // both memory-bound (batch-1 decode): the sum is the total bytes over the bandwidth, as one roofline gives
    const Roofline small = roofline_sequence(roofline(1e9, 1e9, 100e12, 1e12), roofline(1e8, 4e9, 100e12, 1e12));
    EXPECT_NEAR(small.time_s, roofline(1.1e9, 5e9, 100e12, 1e12).time_s, 1e-15);
    EXPECT_FALSE(small.compute_bound);
}

TEST(MixtureOfExperts, OneTokenReadsItsExpertsALargeBatchReadsAll) {
    EXPECT_DOUBLE_EQ(expected_experts_touched(8, 2, 1), 2.0);
    EXPECT_NEAR(expected_experts_touched(8, 2, 1000), 8.0, 1e-9);
    EXPECT_NEAR(expected_experts_touched(256, 8, 32), 256 * (1 - std::pow(1 - 8.0 / 256, 32)), 1e-9);
    EXPECT_LT(expected_experts_touched(256, 8, 8), expected_experts_touched(256, 8, 64));
}

using test::dense;

// Llama 3 paper (Dubey et al. 2024, section 3.3) and model card: the 405B model was trained on 15.6T
// tokens with 3.8e25 FLOPs; 6ND = 6 x 405e9 x 15.6e12 = 3.79e25. Attention at 8k context adds ~8 %.
TEST(TrainingFlops, SixNDMatchesLlama3_405B) {
    const ModelArch a = dense(126, 16384, 128, 8, 53248, 128256);
    const double n = 405e9, d = 15.6e12;
    const double dense_part = training_flops_per_token(a, n, 0, TrainMethod::full, Checkpointing::none); // no attention
    EXPECT_NEAR(dense_part * d / 3.8e25, 1.0, 0.01);
    const double with_attention = training_flops_per_token(a, n, 8192, TrainMethod::full, Checkpointing::none) * d;
    EXPECT_GT(with_attention, 3.8e25);
    EXPECT_LT(with_attention, 3.8e25 * 1.12);
    // Full recomputation adds one forward pass: 8N (lesson 001: about 33 % more compute).
    EXPECT_NEAR(training_flops_per_token(a, n, 1, TrainMethod::full, Checkpointing::full) /
                    training_flops_per_token(a, n, 1, TrainMethod::full, Checkpointing::none), 8.0 / 6.0, 0.001);
    // LoRA skips weight gradients of the frozen base: 4N.
    EXPECT_NEAR(training_flops_per_token(a, n, 1, TrainMethod::lora, Checkpointing::none) / n, 4.0, 0.001);
}

// A custom remat policy (train.remat_tensors) recomputes its share of the forward's parameter FLOPs and the attention
// kernel's forward only when its output is not saved. Llama 3.1 405B shapes, N = 405e9: without attention (seq 0) half the
// forward again is 6N + N = 7N; at 8,192 tokens the attention forward is 4 x 126 layers x 16,384 (q width) x 8,192 =
// 67,645,734,912 FLOPs a token, recomputed only when `attention_recomputed`; share 0 with it saved is no recomputation.
TEST(TrainingFlops, ACustomRematPolicyRecomputesItsShare) {
    const ModelArch a = dense(126, 16384, 128, 8, 53248, 128256);
    const double n = 405e9;
    EXPECT_NEAR(training_flops_per_token(a, n, 0, TrainMethod::full, Checkpointing::full, 1.0, 0.5, true) / n, 7.0, 1e-12);
    const double none = training_flops_per_token(a, n, 8192, TrainMethod::full, Checkpointing::none);
    EXPECT_NEAR(training_flops_per_token(a, n, 8192, TrainMethod::full, Checkpointing::full, 1.0, 0.0, false), none, 1.0);
    EXPECT_NEAR(training_flops_per_token(a, n, 8192, TrainMethod::full, Checkpointing::full, 1.0, 0.0, true) - none, 67645734912.0, 1.0);
}

// A causal FlashAttention-2 kernel skips the fully masked blocks (Dao 2023, section 3.1.1; flash-attention's
// benchmarks count causal FLOPs at half): attention_ratio 0.5 halves the attention term and leaves the weights'.
// Llama 2 7B shape (32 layers x 32 heads x 128) at 2,048 tokens, LoRA without recomputation, by hand:
// 4 x 6.7384e9 = 2.69537e10 for the weights; attention 12 x 32 x 4096 x 2048 = 3.22123e9 in full, 1.61061e9 at half.
TEST(TrainingFlops, CausalKernelCountsHalfTheAttention) {
    const ModelArch a = dense(32, 4096, 32, 32, 11008, 32000);
    const double n = 6738415616.0;
    EXPECT_NEAR(training_flops_per_token(a, n, 2048, TrainMethod::lora, Checkpointing::none) / (2.69537e10 + 3.22123e9), 1.0, 1e-5);
    EXPECT_NEAR(training_flops_per_token(a, n, 2048, TrainMethod::lora, Checkpointing::none, 0.5) / (2.69537e10 + 1.61061e9), 1.0, 1e-5);
    // With recomputation the attention's fourth forward is halved too: 6N + 4/3 x 1.61061e9.
    EXPECT_NEAR(training_flops_per_token(a, n, 2048, TrainMethod::lora, Checkpointing::full, 0.5) / (6 * n + 4.0 / 3.0 * 1.61061e9), 1.0, 1e-5);
    EXPECT_DOUBLE_EQ(training_flops_per_token(a, n, 0, TrainMethod::lora, Checkpointing::none, 0.5), 4 * n); // no tokens attended
}

// The same run in GPU-hours: 3.8e25 / (989.4e12 x MFU) over 16,384 H100s. Table 4 of the Llama 3 paper
// reports 38-43 % MFU; the model card reports 30.84M H100-hours in all. At 41 % the estimate is within
// 20 % of the card (the card's total includes restarts and the 128k-context stage).
TEST(TrainingTime, Llama3_405BGpuHoursWithinTwentyPercent) {
    const double gpu_hours = 3.8e25 / (989.4e12 * 0.41) / 3600;
    EXPECT_NEAR(gpu_hours / 30.84e6, 1.0, 0.20);
}

// FP8 training's casts (performance.h): GEMM operand elements per token, counted by hand. Llama 3.1 8B
// (config.json: hidden 4096, 32 heads x 128, 8 KV heads, gated MLP 14336): attention 4096 in + (4096 + 2 x 1024)
// out of QKV, 4096 in + 4096 out of the projection = 18,432; MLP 4096 in + 2 x 14336 out of gate/up, 14336 in +
// 4096 out of down = 51,200; 69,632 a layer, x 32 layers.
TEST(Fp8Casts, CountsEveryGemmOperandOfEveryLayer) {
    EXPECT_DOUBLE_EQ(fp8_cast_elements_per_token(test::llama31_8b()), 32.0 * 69632);
    // Mixtral 8x7B (config.json: the 8B's attention, 8 experts of 14336, 2 per token): attention 18,432 +
    // 2 x 51,200 for the two experts a token runs = 120,832 a layer.
    ModelArch moe = test::llama31_8b();
    moe.has_moe = true;
    moe.moe = {.experts = 8, .active_experts = 2, .expert_intermediate = 14336};
    EXPECT_DOUBLE_EQ(fp8_cast_elements_per_token(moe), 32.0 * 120832);
    // Time = tokens x elements x bytes / bandwidth: 1,000 tokens of the 8B at 18 bytes on 3.35 TB/s (H100 SXM)
    // = 1000 x 2,228,224 x 18 / 3.35e12 = 11.97 ms.
    EXPECT_NEAR(fp8_cast_time_s(test::llama31_8b(), 1000, 18, 3.35e12), 0.011972, 1e-6);
    EXPECT_EQ(fp8_cast_time_s(test::llama31_8b(), 1000, 18, 0), 0); // no published bandwidth: not modelled
}

// The routed experts' expand, gated-activation and finalize kernels (TensorRT-LLM moe_kernels.cu runMoe), worked by
// hand for Mixtral 8x7B (hidden 4096, 2 of 8 experts of 14336, gated) at tensor parallel 8 and FP8 GEMM inputs
// (1 byte) with 16-bit GEMM outputs: expand 4096 x 1 + 2 x 4096 x 1 = 12,288; activation 2 x (2 x 1792 x 2 +
// 1792 x 1) = 17,920; finalize 2 x 4096 x 2 + 4096 x 2 = 24,576; 54,784 bytes a token and MoE block. At the
// TensorRT-LLM v0.17 H100 TP 8 128/2048 plan's 3,490 sequences x 32 blocks: 6.118 GB a step per device, 2.3 ms at
// 3.35 TB/s x 0.78 (the hand estimate of issue 20: +6 % on a 38.5 ms step).
TEST(MoeRoutingBytes, MixtralAtTensorParallel8ByHand) {
    ModelArch moe = test::llama31_8b();
    moe.has_moe = true;
    moe.moe = {.experts = 8, .active_experts = 2, .expert_intermediate = 14336};
    EXPECT_DOUBLE_EQ(moe_routing_bytes_per_token(moe, 8, 1, 2), 54784.0);
    EXPECT_NEAR(3490.0 * 32 * moe_routing_bytes_per_token(moe, 8, 1, 2), 6.118e9, 0.001e9);
    // 16-bit inputs at tensor parallel 1: 4096 x 2 x 3 + 2 x (2 x 14336 x 2 + 14336 x 2) + 24,576 = 221,184.
    EXPECT_DOUBLE_EQ(moe_routing_bytes_per_token(moe, 1, 2, 2), 221184.0);
    moe.mlp = MlpKind::plain; // the activation runs in FC1's epilogue (moeGemmBiasAct): no kernel of its own
    EXPECT_DOUBLE_EQ(moe_routing_bytes_per_token(moe, 8, 1, 2), 12288.0 + 24576.0);
    EXPECT_DOUBLE_EQ(moe_routing_bytes_per_token(test::llama31_8b(), 8, 1, 2), 0.0); // dense: none
}

// Rows padded to whole tiles (NVIDIA's matrix multiplication guide, tile quantisation): Mixtral's 748-sequence batch
// at TP 4 routes 748 x 2 / 8 = 187 rows to each expert, two 128-row tiles: 187 / 256 = 0.7305; 872 rows in 7 tiles
// 872 / 896; one tile or less keeps every row (smaller tiles, not modelled).
TEST(GemmRowTileEfficiency, HandRows) {
    EXPECT_NEAR(gemm_row_tile_efficiency(187, 128), 187.0 / 256, 1e-12);
    EXPECT_NEAR(gemm_row_tile_efficiency(872, 128), 872.0 / 896, 1e-12);
    EXPECT_DOUBLE_EQ(gemm_row_tile_efficiency(256, 128), 1.0);
    EXPECT_DOUBLE_EQ(gemm_row_tile_efficiency(100, 128), 1.0);
    EXPECT_DOUBLE_EQ(gemm_row_tile_efficiency(187, 0), 1.0);
}

// A training step's element-wise kernels (performance.h), counted by hand for Llama 3.1 8B (hidden 4096, gated
// MLP 14336, 2 RMSNorms, vocab 128,256): forward 2 norms x 2h + 2 residual adds x 3h + SwiGLU 3w = 40,960 +
// 43,008 = 83,968; backward 2 x 3h + 2 x 3h + 5w = 49,152 + 71,680 = 120,832; 204,800 a layer x 32 = 6,553,600,
// + 2 x 128,256 for the loss = 6,810,112 elements per token; full recomputation runs the forward again:
// + 32 x 83,968 = 9,497,088.
TEST(ElementwiseKernels, CountsTheLayersOwnOperations) {
    EXPECT_DOUBLE_EQ(training_elementwise_elements_per_token(test::llama31_8b(), false), 6810112.0);
    EXPECT_DOUBLE_EQ(training_elementwise_elements_per_token(test::llama31_8b(), true), 9497088.0);
    // 1,000 tokens at 2 bytes on 3.35 TB/s: 1000 x 6,810,112 x 2 / 3.35e12 = 4.0657 ms.
    EXPECT_NEAR(training_elementwise_time_s(test::llama31_8b(), 1000, false, 2, 3.35e12), 0.0040657, 1e-7);
    EXPECT_EQ(training_elementwise_time_s(test::llama31_8b(), 1000, false, 2, 0), 0); // no published bandwidth: not modelled
}

// Eager attention's score matrices through the softmax and dropout kernels (performance.h), by hand for the LUMI GPT 7B
// (32 layers of 32 heads, Megatron-DeepSpeed, sequence 2,048): 32 x 32 x 2,048 = 2,097,152 score elements a token.
// Softmax alone: forward read + write 2, backward read 2 + write 1 = 5 a element: 10,485,760; a recomputed forward adds
// 2 more: 7 x 2,097,152 = 14,680,064. With attention dropout (read, write and a 1-byte mask forward = 2.5 elements of 2
// bytes; read the gradient and the mask, write the gradient backward = 2.5): (2 + 2.5) x 2 + (3 + 2.5) = 14.5 a element
// under full recomputation, 30,408,704; at 2 bytes on one MI250X GCD (1.6384 TB/s) 131,072 tokens take
// 131,072 x 30,408,704 x 2 / 1.6384e12 = 4.8654 s of element-wise work.
TEST(ElementwiseKernels, EagerAttentionMovesItsScoreMatricesThroughSoftmaxAndDropout) {
    const ModelArch gpt7b = test::dense(32, 4096, 32, 32, 16384, 50304);
    EXPECT_DOUBLE_EQ(eager_attention_elementwise_elements_per_token(gpt7b, 2048, false, false), 10485760.0);
    EXPECT_DOUBLE_EQ(eager_attention_elementwise_elements_per_token(gpt7b, 2048, true, false), 14680064.0);
    EXPECT_DOUBLE_EQ(eager_attention_elementwise_elements_per_token(gpt7b, 2048, true, true), 30408704.0);
    EXPECT_NEAR(131072.0 * eager_attention_elementwise_elements_per_token(gpt7b, 2048, true, true) * 2 / 1.6384e12, 4.8654, 1e-4);
    EXPECT_EQ(eager_attention_elementwise_elements_per_token(gpt7b, 0, true, true), 0); // no sequence: nothing
}

// A routed block adds its token permutation (performance.h), counted by hand on Llama 3.1 8B's shape made a Mixtral-like
// MoE (2 of 8 experts of 14336, every layer routed): forward 2 norms x 2h + 2 residual adds x 3h = 16,384 + 24,576,
// two experts' SwiGLU 2 x 3 x 14336 = 86,016, expand + finalize 2 x (1 + 2) x 4096 = 24,576: 151,552; backward
// 2 x 3h + 2 x 3h = 49,152, 2 x 5 x 14336 = 143,360, the permutation reversed 24,576 + the routing weights' gradient
// reading the 2 saved outputs 2 x 4096 = 32,768: 225,280. (151,552 + 225,280) x 32 + 2 x 128,256 = 12,315,136; the
// forward once more under full recomputation: + 32 x 151,552 = 17,164,800. A dense model gets no permutation (above).
TEST(ElementwiseKernels, RoutedBlocksPermuteTheirTokens) {
    ModelArch moe = test::llama31_8b();
    moe.has_moe = true;
    moe.moe = {.experts = 8, .active_experts = 2, .expert_intermediate = 14336};
    EXPECT_DOUBLE_EQ(training_elementwise_elements_per_token(moe, false), 12315136.0);
    EXPECT_DOUBLE_EQ(training_elementwise_elements_per_token(moe, true), 17164800.0);
    moe.moe.dense_layers = 1; // a dense first block: its own MLP (14336, one activation) and no permutation
    EXPECT_DOUBLE_EQ(training_elementwise_elements_per_token(moe, false),
                     12315136.0 - (151552.0 + 225280.0) + (16384.0 + 24576.0 + 3 * 14336.0) + (49152.0 + 5 * 14336.0));
}

// A tiled grouped GEMM (tokamax ragged_dot / megablox gmm) executes whole tiles. By hand, gpt-oss-120b on one Ironwood
// TensorCore (tokamax's tuned tiles for the call (327680, 2880, 2880, 128): 512 x 2944 x 1536, the weight gradient's
// 512 x 2944 x 768): 327,680 / 512 = 640 row tiles, 127 more visits for the groups starting inside one: 767 / 640 =
// 1.1984375; 2,880 in 2,944: 1.0222...; 2,880 in two 1,536 (or four 768) tiles, 3,072: 1.0666...; product 1.30674074
// for every call. Aligned rows in one group and whole tiles: 1. Its routed experts' training FLOPs: 6 x 36 layers x 4
// experts x 3 matrices x 2,880^2 = 21,499,084,800 a token.
// DeepSeek-V3 (h 7,168, f 2,048; 262,144 rows in 256 groups; tokamax's tuned tiles, none padding a width): row tiles of
// 256 give (1,024 + 255) / 1,024 = 1.2490234, of 512 (512 + 255) / 512 = 1.4980469, of 128 (2,048 + 255) / 2,048 =
// 1.1245117; up (256, 256, 512 rows) 1.3320313, down (128, 256, 256) 1.2075195, gated (2 up + down) / 3 = 1.2905273.
// The roles: h 1,000 and f 3,000 at tiles 512 x 1,024 x 2,048 in one aligned group: a call contracting h and writing f
// pads 1.024 x 4,096/3,000 = 1.3981013, one contracting f and writing h 3,072/3,000 x 2,048/1,000 = 2.097152; up (h->f,
// f->h, h->f) 1.6311182, down (f->h, h->f, f->h) 1.8641351, gated 1.7087905.
TEST(GroupedGemmTiles, RowTilesRevisitedAtGroupStartsAndWidthsPadded) {
    EXPECT_NEAR(grouped_gemm_tile_factor(327680, 128, 512, 2944, 1536, 2880, 2880), 1.30674074, 1e-7);
    EXPECT_NEAR(grouped_gemm_tile_factor(327680, 128, 512, 2944, 768, 2880, 2880), 1.30674074, 1e-7);
    EXPECT_DOUBLE_EQ(grouped_gemm_tile_factor(2048, 1, 512, 128, 128, 1024, 1024), 1.0);
    EXPECT_DOUBLE_EQ(grouped_gemm_tile_factor(0, 128, 512, 2944, 1536, 2880, 2880), 1.0); // not given
    using Calls = std::array<std::array<int, 3>, 3>;
    ModelArch oss = test::llama31_8b();
    oss.layers = 36;
    oss.hidden = 2880;
    oss.has_moe = true;
    oss.moe = {.experts = 128, .active_experts = 4, .expert_intermediate = 2880};
    const Calls oss_tiles{{{512, 2944, 1536}, {512, 2944, 1536}, {512, 2944, 768}}};
    EXPECT_NEAR(routed_expert_tile_factor(oss, 327680, 128, oss_tiles, oss_tiles), 1.30674074, 1e-7);
    EXPECT_DOUBLE_EQ(routed_expert_training_flops_per_token(oss, TrainMethod::full), 21499084800.0);
    ModelArch dsv3 = oss;
    dsv3.hidden = 7168;
    dsv3.moe = {.experts = 256, .active_experts = 8, .expert_intermediate = 2048};
    EXPECT_NEAR(routed_expert_tile_factor(dsv3, 262144, 256, Calls{{{256, 7168, 512}, {256, 2048, 1792}, {512, 1024, 2048}}},
                                          Calls{{{128, 2048, 3584}, {256, 7168, 512}, {256, 2048, 1024}}}),
                1.2905273, 1e-7);
    ModelArch uneven = oss;
    uneven.hidden = 1000;
    uneven.moe.expert_intermediate = 3000;
    const Calls same{{{512, 1024, 2048}, {512, 1024, 2048}, {512, 1024, 2048}}};
    EXPECT_NEAR(routed_expert_tile_factor(uneven, 4096, 1, same, same), 1.7087905, 1e-6);
    EXPECT_DOUBLE_EQ(routed_expert_tile_factor(test::llama31_8b(), 327680, 128, oss_tiles, oss_tiles), 1.0); // dense: no experts
    EXPECT_DOUBLE_EQ(routed_expert_training_flops_per_token(test::llama31_8b(), TrainMethod::full), 0.0);
}

// A model with latent attention (kv_lora_rank 512, qk_rope 64, DeepSeek-V2/V3's) on Llama 3.1 8B's other dimensions.
ModelArch latent_arch(int heads, int head_dim, int qk_nope, int v_head_dim) {
    ModelArch a = test::llama31_8b();
    a.heads = heads;
    a.head_dim = head_dim;
    a.has_mla = true;
    a.mla.kv_lora_rank = 512;
    a.mla.qk_rope_head_dim = 64;
    a.mla.qk_nope_head_dim = qk_nope;
    a.mla.v_head_dim = v_head_dim;
    return a;
}

// A TPU attention kernel holds each head in 128-lane rows (tokamax splash: "padded to that multiple with zeros"), so a
// head_dim d runs as ceil(d / 128) x 128, weighted over the layers by their counted attention FLOPs. By hand: gpt-oss (64,
// sliding and full alike) 128 / 64 = 2; Llama 3.1 8B (128) 1; lanes 0 1. Two full layers of 8 heads x 96 (q-width 768)
// and two latent layers of 8 x (512 + 64) = 4,608 at 1,000 tokens: counted 2 x 768 x 1,000 + 2 x 4,608 x 1,000 = 10,752,000,
// executed 1,536,000 x 128 / 96 + 9,216,000 = 11,264,000 (latent left alone), 11,264,000 / 10,752,000 = 22 / 21.
TEST(AttentionLanePadding, HeadsUnderAWholeLaneRowRunPadded) {
    ModelArch oss = test::llama31_8b();
    oss.heads = 64;
    oss.head_dim = 64;
    oss.attention_layers = {{AttentionKind::sliding, 18, 128}, {AttentionKind::full, 18}};
    EXPECT_DOUBLE_EQ(attention_lane_padding_factor(oss, 8192, 128), 2.0);
    EXPECT_DOUBLE_EQ(attention_lane_padding_factor(test::llama31_8b(), 8192, 128), 1.0);
    EXPECT_DOUBLE_EQ(attention_lane_padding_factor(oss, 8192, 0), 1.0);
    ModelArch mixed = latent_arch(8, 96, 0, 0);
    mixed.attention_layers = {{AttentionKind::full, 2}, {AttentionKind::latent, 2}};
    EXPECT_NEAR(attention_lane_padding_factor(mixed, 1000, 128), 22.0 / 21.0, 1e-12);
}

// Latent layers train unabsorbed (item 123) and tokamax splash takes the score and value widths apart (head_dim_qk,
// head_dim_v): the scores run at the qk width padded to whole 128-lane rows, the weighted sum at the padded v width (item 124).
// By hand: DeepSeek-V3 (qk 128 + 64 = 192 -> 256, v 128 -> 128): (256 + 128) / (192 + 128) = 384 / 320 = 1.2; lanes 0: 1.
// Two full layers of 8 heads x 96 and two latent layers of 8 heads (qk 192, v 128) at 1,000 tokens, per token and 1,000:
// counted 2 x 8 x 2 x 96 + 2 x 8 x (192 + 128) = 3,072 + 5,120 = 8,192; executed 2 x 8 x 2 x 128 + 2 x 8 x (256 + 128) =
// 4,096 + 6,144 = 10,240; 10,240 / 8,192 = 1.25. Widths on whole lanes (qk 256, v 128): 1.
TEST(AttentionLanePadding, LatentLayersRunScoresAndWeightedSumAtTheirOwnPaddedWidths) {
    ModelArch ds = test::llama31_8b();
    ds.heads = 128;
    ds.head_dim = 192;
    ds.has_mla = true;
    ds.mla.kv_lora_rank = 512;
    ds.mla.qk_nope_head_dim = 128;
    ds.mla.qk_rope_head_dim = 64;
    ds.mla.v_head_dim = 128;
    ds.attention_layers = {{AttentionKind::latent, 61}};
    EXPECT_NEAR(attention_lane_padding_factor(ds, 4096, 128), 1.2, 1e-12);
    EXPECT_DOUBLE_EQ(attention_lane_padding_factor(ds, 4096, 0), 1.0);
    ModelArch mixed = ds;
    mixed.heads = 8;
    mixed.head_dim = 96;
    mixed.attention_layers = {{AttentionKind::full, 2}, {AttentionKind::latent, 2}};
    EXPECT_NEAR(attention_lane_padding_factor(mixed, 1000, 128), 1.25, 1e-12);
    ModelArch whole = ds;
    whole.mla.qk_nope_head_dim = 192;
    EXPECT_DOUBLE_EQ(attention_lane_padding_factor(whole, 4096, 128), 1.0);
}

// Latent attention (DeepSeek-V2/V3) is counted by how the step runs it: decode absorbs the up-projections and attends in
// the compressed space, heads x (kv_lora_rank + qk_rope) per token; training and prefill do not (MaxText's and
// Megatron-Core's MLA up-project K and V), so scores run over qk_nope + qk_rope dims and the weighted sum over v_head_dim.
// By hand, one latent layer of 128 heads, kv_lora_rank 512, qk_nope 128, qk_rope 64, v 128, no parameters, 4,096 tokens:
//   decode, context 4,096: 4 x 128 x (512 + 64) x 4,096 = 1,207,959,552 FLOPs a token
//   training, full, no recomputation: 3 x 4 x 128 x (128 + 64 + 128) / 2 x 4,096 = 1,006,632,960 a token
//   prefill of 4,096: 4 x 128 x 160 x 4,096^2 / 2 = 687,194,767,360
TEST(AttentionFlops, LatentLayersRunAbsorbedAtDecodeAndUnabsorbedInTrainingAndPrefill) {
    ModelArch mla = latent_arch(128, 192, 128, 128);
    mla.attention_layers = {{AttentionKind::latent, 1}};
    EXPECT_DOUBLE_EQ(decode_flops_per_token(mla, 0, 4096), 1207959552.0);
    EXPECT_DOUBLE_EQ(training_flops_per_token(mla, 0, 4096, TrainMethod::full, Checkpointing::none, 1.0), 1006632960.0);
    EXPECT_DOUBLE_EQ(prefill_flops(mla, 0, 4096), 687194767360.0);
}

// QLoRA dequantizes its frozen NF4 base on every use (bitsandbytes MatMul4Bit: forward and backward, and a
// recomputed forward): per use it reads 4.127 bits and writes 2 bytes per parameter. By hand, 1e9 parameters
// used 3 times on an A100 40GB (1,555 GB/s): 1e9 x 3 x (0.515875 + 2) / 1.555e12 = 4.8538e-3 s.
TEST(QloraDequant, ReadsThePackedWeightsAndWritesSixteenBitsPerUse) {
    EXPECT_NEAR(qlora_dequant_time_s(1e9, 4.127, 3, 1.555e12), 4.8538e-3, 1e-7);
    EXPECT_NEAR(qlora_dequant_time_s(1e9, 4.127, 2, 1.555e12) / qlora_dequant_time_s(1e9, 4.127, 3, 1.555e12), 2.0 / 3.0, 1e-12);
    EXPECT_EQ(qlora_dequant_time_s(1e9, 4.127, 3, 0), 0); // no published bandwidth: not modelled
    EXPECT_EQ(qlora_dequant_time_s(0, 4.127, 3, 1.555e12), 0);
}

// An Adam step on the host reads the gradient, reads and writes the optimizer state and writes the weight (which it also
// reads unless an FP32 master copy, counted in the optimizer bytes, is what it updates). By hand:
//  - pure bf16 (torchtune dtype bf16: bf16 weight, gradient and two bf16 moments): 2 + 2 x (2 + 2) + 2 x 2 = 14 bytes;
//  - mixed precision with FP32 master weights and moments (12 bytes of state), bf16 weight and gradient: 2 + 2 x 12 + 2 = 28;
//  - fp32 (4-byte weight and gradient, two FP32 moments, no separate master): 4 + 2 x 8 + 2 x 4 = 28;
//  - no optimizer state (nothing to step): 0.
TEST(HostOptimizerStep, BytesPerParameterOfOneAdamPassOverHostMemory) {
    EXPECT_DOUBLE_EQ(host_step_bytes_per_param(2, 2, 4, false), 14.0);
    EXPECT_DOUBLE_EQ(host_step_bytes_per_param(2, 2, 12, true), 28.0);
    EXPECT_DOUBLE_EQ(host_step_bytes_per_param(4, 4, 8, false), 28.0);
    EXPECT_DOUBLE_EQ(host_step_bytes_per_param(2, 2, 0, false), 0.0);
}

// An eager adapter step's host operations per micro-batch, counted as runtimes.json hf-peft counts them for Llama 2
// 7B (32 layers, 7 linears each): 94 in each layer's forward, run twice under full recomputation, 114 in its
// backward, 3 to dequantize each 4-bit linear on each of its 3 uses, and 40 outside the layers. By hand:
// 32 x (188 + 114 + 63) + 40 = 11,720; without recomputation 32 x (94 + 114 + 42) + 40 = 8,040; a 16-bit base
// dequantizes nothing: 32 x (188 + 114) + 40 = 9,704.
TEST(AdapterHostOps, CountsEachLayersForwardBackwardAndDequantization) {
    EXPECT_DOUBLE_EQ(adapter_host_ops_per_micro_batch(94, 114, 3, 40, 32, 7, true, true), 11720);
    EXPECT_DOUBLE_EQ(adapter_host_ops_per_micro_batch(94, 114, 3, 40, 32, 7, false, true), 8040);
    EXPECT_DOUBLE_EQ(adapter_host_ops_per_micro_batch(94, 114, 3, 40, 32, 7, true, false), 9704);
    EXPECT_DOUBLE_EQ(adapter_host_ops_per_micro_batch(0, 0, 0, 0, 32, 7, true, true), 0); // not counted
}

TEST(PrefillFlops, CausalAttentionCountsHalfThePairs) {
    const ModelArch a = dense(1, 4096, 32, 32, 11008, 32000);
    const double p = 1000;
    EXPECT_DOUBLE_EQ(prefill_flops(a, 0, p), 4.0 * 4096 * 0.5 * p * p);
    ModelArch sw = a;
    sw.attention_layers = {{AttentionKind::sliding, 1, 100}};
    EXPECT_DOUBLE_EQ(prefill_flops(sw, 0, p), 4.0 * 4096 * (p * 100 - 0.5 * 100 * 100));
}

// Pollaczek-Khinchine for M/D/1 (deterministic service S): W = rho S / (2 (1 - rho)).
TEST(Queue, PollaczekKhinchineMeanWait) {
    const auto w = mg1_wait(0.5, 1.0, 1.0);
    EXPECT_DOUBLE_EQ(w.utilization, 0.5);
    EXPECT_DOUBLE_EQ(w.mean_s, 0.5);
    EXPECT_EQ(mg1_quantile_s(w, 0.5), 0.0); // half the requests find the server idle
    EXPECT_NEAR(w.p95_s, (0.5 / 0.5) * std::log(0.5 / 0.05), 1e-12);
    EXPECT_FALSE(mg1_wait(2, 1, 1).stable);
}

// Lesson 003: a chat service at 35 % utilization has p95 above five seconds because requests queue
// behind long document summaries; separating the traffic fixes it. Chat: 0.2 s of GPU time per request;
// summaries: 30 s. Mixed at 0.35 utilization the p95 wait is far above 5 s; chat alone stays under 1 s.
TEST(Queue, LongJobsInTheSameQueueRaiseTheTail) {
    const double chat_rate = 1.0, chat_s = 0.2, sum_rate = 0.005, sum_s = 30.0;
    const double lambda = chat_rate + sum_rate;
    const double m1 = (chat_rate * chat_s + sum_rate * sum_s) / lambda;
    const double m2 = (chat_rate * chat_s * chat_s + sum_rate * sum_s * sum_s) / lambda;
    const auto mixed = mg1_wait(lambda, m1, m2);
    EXPECT_NEAR(mixed.utilization, 0.35, 1e-9);
    EXPECT_GT(mixed.p95_s, 5.0);
    const auto chat_only = mg1_wait(chat_rate, chat_s, chat_s * chat_s);
    EXPECT_LT(chat_only.p95_s, 1.0);
}

// [SECTION] tile and wave quantisation (NVIDIA, Matrix Multiplication Background User's Guide) ---------------
// Each row worked by hand: tiles = ceil(m/t) x ceil(n/t), waves = ceil(tiles/sms), share = m n / (waves sms t^2).
TEST(GemmWaveEfficiency, HandWorkedRows) {
    // BERT-Base batch 8 x 128 tokens, out-projection on A100: 8 x 6 = 48 tiles in one wave of 108: 48/108.
    EXPECT_NEAR(gemm_wave_efficiency(1024, 768, 128, 108), 48.0 / 108.0, 1e-12);
    // BERT-Large batch 32 x 128 tokens, out-projection: 32 x 8 = 256 tiles, 3 waves of 108: 256/324.
    EXPECT_NEAR(gemm_wave_efficiency(4096, 1024, 128, 108), 256.0 / 324.0, 1e-12);
    // Tile quantisation alone: 200 rows need 2 tiles of 128 on one SM, 25,600 useful of 32,768 computed.
    EXPECT_NEAR(gemm_wave_efficiency(200, 128, 128, 1), 0.78125, 1e-12);
    // Exactly full waves: 108 tiles of 128 x 128 on 108 SMs.
    EXPECT_DOUBLE_EQ(gemm_wave_efficiency(128 * 12, 128 * 9, 128, 108), 1.0);
}

TEST(GemmWaveEfficiency, UnrecordedDeviceOrTileIsNoPenalty) {
    EXPECT_DOUBLE_EQ(gemm_wave_efficiency(1024, 768, 128, 0), 1.0);
    EXPECT_DOUBLE_EQ(gemm_wave_efficiency(1024, 768, 0, 108), 1.0);
}

// [SECTION] a power cap as a ceiling on the rate (Choi et al., "A roofline model of energy", IPDPS 2013) ----------
// rate = min(u x unthrottled, capped x u / (u + r (1 - u))); T4's figures: 65 TFLOPS FP16 at its boost clock, about
// 24 sustained by a continuous GEMM under 70 W. Each row worked by hand.
TEST(PowerCappedFlopPerS, HandWorkedRows) {
    // u = 0.61, r = 0: the kernel alone would reach 39.65e12; the cap holds it at 24e12.
    EXPECT_NEAR(power_capped_flop_per_s(65e12, 24e12, 0.61, 0.0), 24e12, 1.0);
    // r = 1: every cycle draws full power, u x the capped rate: 0.61 x 24e12 = 14.64e12.
    EXPECT_NEAR(power_capped_flop_per_s(65e12, 24e12, 0.61, 1.0), 14.64e12, 1.0);
    // r = 0.5: 24e12 x 0.61 / (0.61 + 0.5 x 0.39) = 24e12 x 0.61 / 0.805 = 18.18633540e12.
    EXPECT_NEAR(power_capped_flop_per_s(65e12, 24e12, 0.61, 0.5), 18.18633540e12, 1e4);
    // u = 0.2, r = 0: the boost clock binds first, 0.2 x 65e12 = 13e12 under the cap's 24e12.
    EXPECT_NEAR(power_capped_flop_per_s(65e12, 24e12, 0.2, 0.0), 13e12, 1.0);
}

TEST(PowerCappedFlopPerS, NoCapRecordedIsTheKernelsShare) {
    EXPECT_NEAR(power_capped_flop_per_s(65e12, 0, 0.61, 0.0), 39.65e12, 1.0);
    EXPECT_NEAR(power_capped_flop_per_s(65e12, 0, 0.61, 1.0), 39.65e12, 1.0);
}

TEST(BlockGemmWaveEfficiency, BertBaseBatch8OnA100) {
    // BERT-Base (hidden 768, 12 heads of 64, plain MLP 3072) at 1,024 rows, 128-square tiles, 108 SMs:
    // QKV n 2304: 144 tiles, 2 waves, 2/3; out n 768: 4/9; up n 3072: 192 tiles, 2 waves, 8/9; down n 768: 4/9.
    // FLOPs (n x k) in units of 768^2: 3, 1, 4, 4; time 3/(2/3) + 1/(4/9) + 4/(8/9) + 4/(4/9) = 20.25; share 12/20.25.
    ModelArch bert = test::dense(12, 768, 12, 12, 3072, 30522);
    bert.mlp = MlpKind::plain;
    EXPECT_NEAR(block_gemm_wave_efficiency(bert, 1024, 128, 108), 12.0 / 20.25, 1e-9); // 0.5926
    // Batch 128 (16,384 rows): 128 tile rows; QKV 2304 tiles in 22 waves (2304/2376), out 768 in 8 (768/864),
    // up 3072 in 29 (3072/3132), down 768/864: share 12 / (3 x 2376/2304 + 864/768 + 4 x 3132/3072 + 4 x 864/768)
    // = 12 / 12.796875.
    const double t = 3 * 2376.0 / 2304 + 864.0 / 768 + 4 * 3132.0 / 3072 + 4 * 864.0 / 768;
    EXPECT_NEAR(t, 12.796875, 1e-12);
    EXPECT_NEAR(block_gemm_wave_efficiency(bert, 16384, 128, 108), 12.0 / t, 1e-9); // 0.9377
}

TEST(BlockGemmWaveEfficiency, BertBaseBatch8OnV100) {
    // The same 1,024 rows on a V100's 80 SMs (item 98): 8 tile rows. QKV 8 x 18 = 144 tiles, 2 waves of 80: 144/160 = 0.9;
    // out 8 x 6 = 48 tiles in one wave: 48/80 = 0.6; up 8 x 24 = 192 tiles, 3 waves: 192/240 = 0.8; down 0.6.
    // Time 3/0.9 + 1/0.6 + 4/0.8 + 4/0.6 = 50/3; share 12 / (50/3) = 0.72 (A100's 108 SMs: 0.5926).
    ModelArch bert = test::dense(12, 768, 12, 12, 3072, 30522);
    bert.mlp = MlpKind::plain;
    EXPECT_NEAR(block_gemm_wave_efficiency(bert, 1024, 128, 80), 0.72, 1e-9);
    // T4's 40 SMs at 16,384 rows (128 tile rows): QKV 2304 tiles in 58 waves (2320), out 768 in 20 (800), up 3072 in
    // 77 (3080), down 800: 12 / (3 x 2320/2304 + 800/768 + 4 x 3080/3072 + 4 x 800/768) = 12 / 12.2395833 = 0.980426.
    EXPECT_NEAR(block_gemm_wave_efficiency(bert, 16384, 128, 40), 12.0 / (3 * 2320.0 / 2304 + 800.0 / 768 + 4 * 3080.0 / 3072 + 4 * 800.0 / 768), 1e-9);
    EXPECT_NEAR(block_gemm_wave_efficiency(bert, 16384, 128, 40), 0.980426, 1e-6);
}

// [SECTION] unfused encoder traffic (runtimes.json encoder_runtimes, counted from the runtimes' model code) ---------
TEST(EncoderUnfusedBytes, BertBaseEagerPerItemByHand) {
    // BERT-Base, 128 tokens, the pytorch-eager counts (30 passes of tokens x hidden, 8 of the heads x tokens^2 scores)
    // at 2 bytes: per layer 30 x 128 x 768 + 8 x 12 x 128^2 = 2,949,120 + 1,572,864 = 4,521,984 elements;
    // x 12 layers x 2 bytes = 108,527,616 bytes per item.
    ModelArch bert = test::dense(12, 768, 12, 12, 3072, 30522);
    bert.mlp = MlpKind::plain;
    EXPECT_DOUBLE_EQ(encoder_unfused_bytes_per_item(bert, 128, 30, 8, 2), 108527616.0);
    // Scores grow with the square of the tokens: at 384 tokens 30 x 384 x 768 + 8 x 12 x 384^2 = 8,847,360 + 14,155,776.
    EXPECT_DOUBLE_EQ(encoder_unfused_bytes_per_item(bert, 384, 30, 8, 2), 12 * 2 * (8847360.0 + 14155776.0));
    // A fused engine counts nothing.
    EXPECT_DOUBLE_EQ(encoder_unfused_bytes_per_item(bert, 128, 0, 0, 2), 0.0);
}

// transformers-neuronx 2.18's token buckets for n_positions 4096: 128, 256, 512, 1024, 2048, 4096; a step at
// position p runs the smallest bucket of at least p + 1 tokens. A 128-in, 3,968-out run writes positions
// 128 .. 4095, needing 129 .. 4096 tokens: 128 steps in 256, 256 in 512, 512 in 1024, 1024 in 2048, 2048 in 4096:
// (128 x 256 + 256 x 512 + 512 x 1024 + 1024 x 2048 + 2048 x 4096) / 3968 = 11,173,888 / 3968 = 2816 (the
// histories average 2112). NxD's --seq-len 12800 tutorials (buckets ... 8192, 12800) decode from position 10,000:
// every step in 12,800. One step at position 0 needs 1 token: the 128 bucket; past the last bucket, the last.
TEST(MeanPowerOfTwoBucket, HandBuckets) {
    EXPECT_NEAR(mean_power_of_two_bucket(128, 3968, 128, 4096), 2816.0, 1e-9);
    EXPECT_NEAR(mean_power_of_two_bucket(10000, 1501, 128, 12800), 12800.0, 1e-9);
    EXPECT_NEAR(mean_power_of_two_bucket(0, 1, 128, 4096), 128.0, 1e-12);
    EXPECT_NEAR(mean_power_of_two_bucket(5000, 10, 128, 4096), 4096.0, 1e-12);
    // positions 127 and 128 need 128 and 129 tokens: one step in 128, one in 256
    EXPECT_NEAR(mean_power_of_two_bucket(127, 2, 128, 4096), 192.0, 1e-12);
    EXPECT_DOUBLE_EQ(mean_power_of_two_bucket(128, 0, 128, 4096), 0.0);
}

// Heads as the Neuron runtimes shard them. transformers-neuronx 2.18 at TP 24: Llama 2 7B's 32 heads (MHA) pad to 48
// query and KV; Llama 2 13B's 40 to 48; Mistral 7B's 8 KV heads (8 % 24 != 0) are replicated to the 32 query heads
// and padded to 48; Llama 2 70B's 64 / 8 to 72 / 72; at TP 8 Mistral's 8 KV heads divide and stay. NxD Inference
// (gqa.py): Llama 3.3 70B at TP 64 keeps 64 query heads and replicates its 8 KV heads to 64 (REPLICATE_TO_TP_DEGREE);
// its docstring's example, 56 / 8 heads at TP 32, runs 64 / 32; 40 / 8 at TP 12 (12 % 8 != 0) converts to MHA, 48 / 48;
// Llama 3.1 8B at TP 4 (8 KV heads divide by 4) stays 32 / 8. An unknown rule leaves the model's own.
TEST(ShardedHeads, NeuronRules) {
    auto q = [](int h, int kv, int r, const char* rule) { return sharded_heads(h, kv, r, rule).query; };
    auto k = [](int h, int kv, int r, const char* rule) { return sharded_heads(h, kv, r, rule).kv; };
    const char* tnx = "pad-replicate-to-heads";
    const char* nxd = "pad-replicate-to-ranks";
    EXPECT_EQ(q(32, 32, 24, tnx), 48.0); EXPECT_EQ(k(32, 32, 24, tnx), 48.0);
    EXPECT_EQ(q(40, 40, 24, tnx), 48.0); EXPECT_EQ(k(40, 40, 24, tnx), 48.0);
    EXPECT_EQ(q(32, 8, 24, tnx), 48.0);  EXPECT_EQ(k(32, 8, 24, tnx), 48.0);
    EXPECT_EQ(q(64, 8, 24, tnx), 72.0);  EXPECT_EQ(k(64, 8, 24, tnx), 72.0);
    EXPECT_EQ(q(32, 8, 8, tnx), 32.0);   EXPECT_EQ(k(32, 8, 8, tnx), 8.0);
    EXPECT_EQ(q(64, 8, 64, nxd), 64.0);  EXPECT_EQ(k(64, 8, 64, nxd), 64.0);
    EXPECT_EQ(q(56, 8, 32, nxd), 64.0);  EXPECT_EQ(k(56, 8, 32, nxd), 32.0);
    EXPECT_EQ(q(40, 8, 12, nxd), 48.0);  EXPECT_EQ(k(40, 8, 12, nxd), 48.0);
    EXPECT_EQ(q(32, 8, 4, nxd), 32.0);   EXPECT_EQ(k(32, 8, 4, nxd), 8.0);
    EXPECT_EQ(q(32, 8, 24, ""), 32.0);   EXPECT_EQ(k(32, 8, 24, ""), 8.0);
}

} // namespace hwplan
