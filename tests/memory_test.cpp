// memory_test.cpp: model memory. Reference values from the course lessons (../shared/seeds).
#include "hwplan/memory.h"

#include <gtest/gtest.h>

#include <limits>

#include "hwplan/catalog_embedded.h"
#include "hwplan/plan.h"
#include "test_archs.h"

namespace hwplan {

// Lesson 001 "The GPU Memory Bottleneck": weight storage for 7B at fp16 is 2 x 7e9 = 14 GB.
TEST(WeightsBytes, SevenBillionAtSixteenBitsIsFourteenGB) {
    EXPECT_DOUBLE_EQ(weights_bytes(7e9, Precision::bf16), 14e9);
    EXPECT_DOUBLE_EQ(weights_bytes(7e9, Precision::fp16), 14e9);
}

// Lesson 003 quiz: a 70B model in 16-bit precision needs roughly 140 GB just for weights;
// lesson 004 worked example 2: 70B at FP8 is 70 GB of weights.
TEST(WeightsBytes, SeventyBillionAtSixteenAndEightBits) {
    EXPECT_DOUBLE_EQ(weights_bytes(70e9, Precision::fp16), 140e9);
    EXPECT_DOUBLE_EQ(weights_bytes(70e9, Precision::fp8), 70e9);
}

TEST(WeightsBytes, ScalesWithBitsPerWeight) {
    EXPECT_DOUBLE_EQ(weights_bytes(1e9, Precision::fp32), 4e9);
    EXPECT_DOUBLE_EQ(weights_bytes(1e9, Precision::int8), 1e9);
    EXPECT_DOUBLE_EQ(weights_bytes(1e9, Precision::int4), 0.5e9);
}

TEST(EstimateWeights, ValidInputHasNoIssues) {
    auto e = estimate_weights({.params = 7e9, .precision = "BF16"});
    EXPECT_TRUE(e.issues.empty());
    EXPECT_EQ(e.precision, Precision::bf16);
    EXPECT_DOUBLE_EQ(e.bytes_per_param, 2.0);
    EXPECT_DOUBLE_EQ(e.weights_bytes, 14e9);
}

TEST(EstimateWeights, BadParamsNameTheFieldAndReason) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    struct Row { double params; const char* message; };
    const Row rows[] = {
        {-1, "must be a positive number of parameters, got -1"},
        {0, "must be a positive number of parameters, got 0"},
        {nan, "must be a number, got NaN"},
        {inf, "must be finite, got infinity"},
        {2e14, "must be at most 1e14 (100 trillion parameters), got 200000000000000"},
    };
    for (const auto& r : rows) {
        auto e = estimate_weights({.params = r.params, .precision = "bf16"});
        ASSERT_EQ(e.issues.size(), 1u) << r.message;
        EXPECT_EQ(e.issues[0], (Issue{"params", r.message}));
        EXPECT_EQ(e.weights_bytes, 0.0); // never a partial figure next to an error
    }
}

TEST(EstimateWeights, UnknownPrecisionListsTheKnownOnes) {
    auto e = estimate_weights({.params = 7e9, .precision = "fp7"});
    ASSERT_EQ(e.issues.size(), 1u);
    EXPECT_EQ(e.issues[0],
              (Issue{"precision", "unknown precision \"fp7\"; expected one of fp32, bf16, fp16, fp8, int8, int4, fp4"}));
}

TEST(EstimateWeights, ReportsEveryBadFieldAtOnce) {
    auto e = estimate_weights({.params = -5, .precision = ""});
    EXPECT_EQ(e.issues.size(), 2u);
}

} // namespace hwplan

namespace hwplan {

namespace {

// GPT-3 175B as Korthikanti et al. 2022 configure it (Table 3): 96 heads, hidden 12288, sequence 2048,
// a plain 4h MLP, multi-head attention; activations in 16 bits with 1-byte dropout masks.
ModelArch gpt3_175b() {
    ModelArch a;
    a.layers = 96;
    a.hidden = 12288;
    a.heads = a.kv_heads = 96;
    a.head_dim = 128;
    a.intermediate = 4 * 12288;
    a.vocab = 51200;
    a.mlp = MlpKind::plain;
    a.norm = NormKind::layernorm;
    a.attention_layers = {{AttentionKind::full, 96, 0}};
    return a;
}


using test::llama31_70b;

} // namespace

// Lesson 004, worked example 2: a 70B model with 80 layers, 8 KV heads and head_dim 128 at FP8 holds
// 2 x 8 x 128 x 80 x 1 = 163,840 bytes of KV cache per token.
TEST(KvCache, Llama70BAtFp8Is163840BytesPerToken) {
    EXPECT_DOUBLE_EQ(kv_bytes_per_token(llama31_70b(), 1.0), 163840.0);
}

// Lesson 004: x 8k context x 200 concurrent users = about 270 GB (163,840 x 8,192 x 200 = 268.4e9).
TEST(KvCache, BankCaseIsAbout270GB) {
    const double kv = 200 * kv_bytes_per_sequence(llama31_70b(), 1.0, 8192, 16);
    EXPECT_DOUBLE_EQ(kv, 163840.0 * 8192 * 200);
    EXPECT_NEAR(kv / 270e9, 1.0, 0.01);
}

TEST(KvCache, SlidingWindowLayersStopGrowingAtTheirWindow) {
    ModelArch a = llama31_70b();
    a.attention_layers = {{AttentionKind::sliding, 40, 4096}, {AttentionKind::full, 40, 0}};
    const double per_layer_token = 2.0 * 8 * 128 * 2; // bf16
    EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(a, 2.0, 8192), per_layer_token * (40 * 4096 + 40 * 8192));
    EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(a, 2.0, 1000), per_layer_token * 80 * 1000);
}

// DeepSeek-V2 section 2.1.2: latent attention caches (d_c + d_h^R) = 512 + 64 values per token per layer;
// DeepSeek-V3 has 61 such layers: 576 x 61 x 2 bytes = 70,272 bytes per token in BF16.
TEST(KvCache, LatentAttentionCachesTheCompressedVector) {
    ModelArch a = llama31_70b();
    a.layers = 61;
    a.attention_layers = {{AttentionKind::latent, 61, 0}};
    a.has_mla = true;
    a.mla = {.kv_lora_rank = 512, .q_lora_rank = 1536, .qk_nope_head_dim = 128, .qk_rope_head_dim = 64, .v_head_dim = 128};
    EXPECT_DOUBLE_EQ(kv_bytes_per_token(a, 2.0), 70272.0);
}

TEST(KvCache, PagedBlocksRoundUp) {
    EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(llama31_70b(), 1.0, 17, 16), 163840.0 * 32);
}

// Lesson 003, "Write a simple hardware planning function": 24 GB GPU, 14 GB weights, 3 GB runtime
// overhead, 0.6 GB of KV cache per user -> int((24 - 14 - 3) // 0.6) = 11 active users.
TEST(MaxActiveUsers, LessonThreeGivesEleven) {
    EXPECT_EQ(max_active_users(24e9, 14e9, 3e9, 0.6e9), 11.0);
    EXPECT_EQ(max_active_users(24e9, 22e9, 3e9, 0.6e9), 0.0); // weights fit, nothing left for serving
}

// Lesson 001, "Training Memory Lower Bound": mixed-precision Adam needs 16 bytes per parameter
// (2 weights + 2 gradients + 12 optimizer), 112 GB for 7B; 8-bit Adam brings it to about 10P.
TEST(ModelState, MixedPrecisionAdamIsSixteenBytesPerParam) {
    auto total = [](Optimizer o) { return weight_bytes_per_param(o) + gradient_bytes_per_param(o) + optimizer_bytes_per_param(o); };
    EXPECT_EQ(total(Optimizer::adamw), 16.0);
    EXPECT_EQ(total(Optimizer::adamw) * 7e9, 112e9);
    EXPECT_EQ(total(Optimizer::adamw_8bit), 10.0);
    EXPECT_EQ(total(Optimizer::adamw_fp32), 16.0);
    EXPECT_EQ(total(Optimizer::sgd), 12.0);
}

// Korthikanti et al. 2022, Table 2, for GPT-3 175B (a = 96, h = 12288, s = 2048, b = 1, t = 8).
TEST(TrainingActivations, KorthikantiTableTwo) {
    const ModelArch a = gpt3_175b();
    const double s = 2048, b = 1, h = 12288, heads = 96, t = 8, sbh = s * b * h;
    const double as_h = heads * s / h; // 5as/h = 80 for GPT-3 (paper, section 4.1)
    ASSERT_DOUBLE_EQ(5 * as_h, 80.0);
    ActivationSettings base{.seq_len = s, .micro_batch = b, .flash_attention = false, .dropout = true};
    struct Row { const char* technique; int t; bool sp; Checkpointing ckpt; double expected; };
    const Row rows[] = {
        {"no parallelism", 1, false, Checkpointing::none, sbh * (34 + 5 * as_h)},
        {"tensor parallel", 8, false, Checkpointing::none, sbh * (10 + 24 / t + 5 * as_h / t)},
        {"tensor + sequence parallel", 8, true, Checkpointing::none, sbh * (34 / t + 5 * as_h / t)},
        {"tensor parallel + selective recompute", 8, false, Checkpointing::selective, sbh * (10 + 24 / t)},
        {"tensor + sequence parallel + selective recompute", 8, true, Checkpointing::selective, sbh * (34 / t)},
        {"full recompute", 1, false, Checkpointing::full, 2 * sbh},
    };
    for (const auto& r : rows) {
        ActivationSettings st = base;
        st.tensor_parallel = r.t;
        st.sequence_parallel = r.sp;
        st.checkpointing = r.ckpt;
        EXPECT_NEAR(training_activation_bytes_per_layer(a, st) / r.expected, 1.0, 1e-12) << r.technique;
    }
}

// Korthikanti section 5: with fused attention the 5as/h term is not stored, leaving 34sbh per block.
TEST(TrainingActivations, FusedAttentionDropsTheQuadraticTerm) {
    ActivationSettings st{.seq_len = 2048, .micro_batch = 1, .flash_attention = true, .dropout = true};
    EXPECT_NEAR(training_activation_bytes_per_layer(gpt3_175b(), st) / (34.0 * 2048 * 12288), 1.0, 1e-12);
}

TEST(TrainingActivations, LogitsBufferIsFp32ValueAndGradient) {
    ActivationSettings st{.seq_len = 2048, .micro_batch = 1, .checkpointing = Checkpointing::full};
    const auto act = training_activation_bytes(llama31_70b(), st, 80);
    EXPECT_DOUBLE_EQ(act.logits_bytes, 2 * 4.0 * 2048 * 128256);
    EXPECT_DOUBLE_EQ(act.total_bytes, act.blocks_bytes + act.logits_bytes);
}

// torchtune CEWithChunkedOutputLoss (num_output_chunks = 8): the bf16 logits chunks stay (2 bytes per
// logit) and one chunk at a time is upcast to FP32 with its gradient (8 bytes x 1/8): 3 bytes per logit,
// against 8 for transformers' whole-tensor upcast.
TEST(TrainingActivations, ChunkedLossHoldsOneFp32ChunkBesideTheBf16Logits) {
    ActivationSettings st{.seq_len = 2048, .micro_batch = 2, .checkpointing = Checkpointing::full,
                          .logits_kept_bytes_per_value = 2, .loss_fp32_bytes_per_value = 8, .loss_chunks = 8};
    const auto act = training_activation_bytes(test::llama31_8b(), st, 32);
    EXPECT_DOUBLE_EQ(act.logits_bytes, (2.0 + 8.0 / 8) * 2 * 2048 * 128256);
}

// Korthikanti et al. 2022 section 4.1: the bytes per activation scale every term; an fp32 run stores
// 4-byte activations, twice the 16-bit figure (34sbh -> 68sbh per block with fused attention and dropout).
TEST(TrainingActivations, Fp32ActivationsAreTwiceTheSixteenBitOnes) {
    ActivationSettings half{.seq_len = 512, .micro_batch = 4, .flash_attention = true, .dropout = false};
    ActivationSettings full = half;
    full.bytes_per_value = 4;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(gpt3_175b(), full), 2 * training_activation_bytes_per_layer(gpt3_175b(), half));
}

// Eager attention keeps the softmax output, a x s^2 x b values per block (Korthikanti's 5as/h term
// without dropout is 2as^2b bytes at 2 bytes a value): BERT-Large (a = 16, h = 1024) at s = 512, b = 8.
TEST(TrainingActivations, EagerAttentionStoresTheScoreMatrices) {
    const ModelArch bert = test::dense(24, 1024, 16, 16, 4096, 30522);
    ActivationSettings fused{.seq_len = 512, .micro_batch = 8, .flash_attention = true};
    ActivationSettings eager = fused;
    eager.flash_attention = false;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(bert, eager) - training_activation_bytes_per_layer(bert, fused),
                     2.0 * 16 * 512 * 512 * 8);
}

// A gated MLP, down(act(gate(x)) * up(x)), keeps tensors of its width i per token for backward: unfused eager
// PyTorch 4 (SiLU reads its input, a product keeps both operands: tools/autograd/derivatives.yaml; plus the down
// projection's input), Megatron-core's fused SwiGLU 3 (it saves its 2i input), Unsloth's LoRA_MLP 2 (X, e, g).
// Llama 3.1 8B (h = 4096, q = 4096, k = v = 8 x 128, i = 14336), one token, fused attention, no dropout, by hand:
// 2 bytes x (two norm inputs, the QKV and MLP inputs: 4h; Q, K, V and the output projection's input: 2q + 2kv;
// and n x i).
TEST(TrainingActivations, GatedMlpKeepsItsSavedTensorsOfTheMlpWidth) {
    const ModelArch a = test::llama31_8b();
    ActivationSettings st;
    st.seq_len = 1;
    st.micro_batch = 1;
    const double rest = 4 * 4096 + 2 * 4096 + 2 * 1024;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 2.0 * (rest + 4 * 14336)); // default: eager PyTorch
    st.gated_mlp_saved_tensors = 3;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 2.0 * (rest + 3 * 14336));
    st.gated_mlp_saved_tensors = 2;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 2.0 * (rest + 2 * 14336));
    // A plain (GELU) MLP keeps its two: the setting does not apply (Korthikanti's 34sbh stays, FusedAttention test).
    st.gated_mlp_saved_tensors = 4;
    st.dropout = true;
    EXPECT_NEAR(training_activation_bytes_per_layer(gpt3_175b(), st) / (34.0 * 12288), 1.0, 1e-12);
}

// Layer-wise activation offload (Megatron-Core cpu_offloading_num_layers through Transformer Engine's
// DefaultOffloadSynchronizer: peak saved activations "(num_layers - num_offloaded_layers) * T"). By hand for a small
// Llama-shaped model, 8 blocks, h = 1024, 8 heads of 128 with 8 KV heads (q = k = v = 1024), i = 4096, vocab 32,000, one
// sequence of 1,024 tokens, fused attention, 2 bytes a value, the default 4 MLP tensors: a block keeps per token 4h
// (two norm inputs, the QKV and MLP inputs) + 2q + k + v (Q, K, V, the output projection's input) + 4i values = 4,096 +
// 4,096 + 16,384 = 24,576 values = 49,152 bytes, x 1,024 tokens = 50,331,648 bytes; 8 blocks 402,653,184 bytes. With 3
// blocks offloaded the device keeps 5: 251,658,240 bytes (3/8 less); the logits (1,024 x 32,000 x 8 bytes, whole FP32 value
// and gradient) stay. At most 7 of 8 are offloaded (the last block never is): 8 asks for 7.
TEST(TrainingActivations, LayerWiseOffloadKeepsTheOtherBlocksOnTheDevice) {
    const ModelArch a = test::dense(8, 1024, 8, 8, 4096, 32000);
    ActivationSettings st{.seq_len = 1024, .micro_batch = 1};
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 50331648.0);
    const auto none = training_activation_bytes(a, st, 8);
    EXPECT_DOUBLE_EQ(none.blocks_bytes, 402653184.0);
    st.offloaded_layers = 3;
    const auto three = training_activation_bytes(a, st, 8);
    EXPECT_DOUBLE_EQ(three.blocks_bytes, 251658240.0);
    EXPECT_DOUBLE_EQ(three.blocks_bytes / none.blocks_bytes, 5.0 / 8.0);
    EXPECT_DOUBLE_EQ(three.logits_bytes, 1024.0 * 32000 * 8);
    EXPECT_DOUBLE_EQ(three.logits_bytes, none.logits_bytes);
    st.offloaded_layers = 8;
    EXPECT_DOUBLE_EQ(training_activation_bytes(a, st, 8).blocks_bytes, 50331648.0);
}

// FP8 training under Transformer Engine keeps the FP8 copy each linear layer quantized its input to, not a 16-bit one
// (memory.h linear_input_bytes_per_value; runtimes.json megatron-core). By hand for a small Llama-shaped model, h = 1024,
// 8 heads of 128 with 8 KV heads (q = k = v = 1024), i = 4096, one sequence of 1,024 tokens, fused attention, Megatron-
// Core's fused SwiGLU (3 MLP tensors), bytes per token:
//   16-bit everywhere: two norm inputs 2 x 2h = 4,096; QKV and MLP inputs 2 x 2h = 4,096; Q, K, V 2 x 3,072 = 6,144; the
//   attention output (the output projection's input) 2 x 1,024 = 2,048; the SwiGLU's input 2 x 2i = 16,384 and the down
//   projection's input 2 x i = 8,192: 40,960 bytes, x 1,024 tokens = 41,943,040 bytes.
//   FP8 linear inputs (1 byte): the QKV and MLP inputs 2 x 1h = 2,048 and the down input 1 x i = 4,096 instead of 4,096 and
//   8,192: 34,816 bytes, x 1,024 = 35,651,584 bytes (2h + i = 6,144 bytes a token less).
//   Tensor parallel 2 with sequence parallelism halves both parts: 17,825,792 bytes. Full recomputation keeps the 16-bit
//   block input, 2h = 2,048 bytes a token (2,097,152 a block), and rebuilds one block at the FP8 width: 8 x 2,097,152 +
//   35,651,584 = 52,428,800 bytes. A value of 0 keeps the 16-bit width (the default).
TEST(TrainingActivations, Fp8LinearInputsKeepOneByteCopies) {
    const ModelArch a = test::dense(8, 1024, 8, 8, 4096, 32000);
    ActivationSettings st{.seq_len = 1024, .micro_batch = 1};
    st.gated_mlp_saved_tensors = 3;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 41943040.0);
    st.linear_input_bytes_per_value = 2; // the same as bytes_per_value: nothing moves
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 41943040.0);
    st.linear_input_bytes_per_value = 1;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 35651584.0);
    EXPECT_DOUBLE_EQ(41943040.0 - 35651584.0, 1024.0 * (2 * 1024 + 4096));
    ActivationSettings tp = st;
    tp.tensor_parallel = 2;
    tp.sequence_parallel = true;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, tp), 17825792.0);
    ActivationSettings full = st;
    full.checkpointing = Checkpointing::full;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, full), 2097152.0);
    EXPECT_DOUBLE_EQ(training_activation_bytes(a, full, 8).blocks_bytes, 52428800.0);
    // A frozen base's down projection that keeps no input keeps none at either width (adapter runs).
    st.down_input_kept = false;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 35651584.0 - 1024.0 * 4096);
}

// Lesson 001: mixed-precision Adam is 2 + 2 + 12 = 16 bytes per parameter because of the FP32 master
// copy; an fp32 run holds the weights in FP32 already: 4 + 4 + 8 = 16 with AdamW, 4 + 4 + 4 with SGD.
TEST(ModelState, Fp32TrainingStoresFourByteWeightsAndGradients) {
    const ModelStateBytes adam = full_training_state_bytes(Optimizer::adamw, true);
    EXPECT_EQ(adam.weights, 4.0);
    EXPECT_EQ(adam.gradients, 4.0);
    EXPECT_EQ(adam.optimizer, 8.0);
    EXPECT_EQ(full_training_state_bytes(Optimizer::sgd, true).optimizer, 4.0);
    const ModelStateBytes mixed = full_training_state_bytes(Optimizer::adamw, false);
    EXPECT_EQ(mixed.weights + mixed.gradients + mixed.optimizer, 16.0);
}

// torch.optim.AdamW creates its two moments with zeros_like(param): FP32 adapters (PEFT's upcast) hold
// 8 bytes of state per parameter, bf16 adapters (torchtune dtype bf16) 4; bitsandbytes 8-bit AdamW 2.
TEST(ModelState, AdapterOptimizerStateFollowsTheAdapterDtype) {
    EXPECT_EQ(optimizer_moment_bytes_per_param(Optimizer::adamw, 4), 8.0);
    EXPECT_EQ(optimizer_moment_bytes_per_param(Optimizer::adamw, 2), 4.0);
    EXPECT_EQ(optimizer_moment_bytes_per_param(Optimizer::adamw_8bit, 4), 2.0);
    EXPECT_EQ(optimizer_moment_bytes_per_param(Optimizer::sgd, 4), 4.0);
    EXPECT_EQ(optimizer_moment_bytes_per_param(Optimizer::adafactor, 4), 0.0);
}

// PEFT's print_trainable_parameters() for Llama-3-8B with r = 16 on all linear layers:
// "trainable params: 41,943,040" (16 x (8192 + 5120 + 5120 + 8192 + 3 x 18432) x 32 blocks).
TEST(Lora, AllLinearRank16OnLlama3_8B) {
    EXPECT_EQ(lora_params(test::llama31_8b(), 16), 41943040.0);
}

// LoRA on the query and value projections only (LitGPT finetune/lora.py's defaults): r x ((h + q) + (h + v)) a block.
// LitGPT's resource tables (tutorials/resource-tables.md, commit 8641822) print the trainable parameters: Llama 2 7B
// "4,194,304" (32 x 8 x 16,384) and Llama 2 13B "6,553,600" (40 x 8 x 20,480), rank 8.
TEST(Lora, QueryValueRank8MatchesLitGptsPrintedCounts) {
    EXPECT_EQ(lora_params(test::dense(32, 4096, 32, 32, 11008, 32000), 8, LoraTargets::query_value), 4194304.0);
    EXPECT_EQ(lora_params(test::dense(40, 5120, 40, 40, 13824, 32000), 8, LoraTargets::query_value), 6553600.0);
    EXPECT_EQ(lora_params(test::llama31_8b(), 16, LoraTargets::all), lora_params(test::llama31_8b(), 16));
}

// LoRA on the query, key and value projections (torchtune's llama3_1/70B_lora.yaml at 30b8519e8: lora_attn_modules
// ['q_proj', 'k_proj', 'v_proj'], rank 16). Llama 3.1 70B by hand: h = q = 8192, k = v = 8 KV heads x 128 = 1024, so
// 16 x ((8192 + 8192) + 2 x (8192 + 1024)) = 16 x 34,816 a block, x 80 blocks = 44,564,480. The workload's name maps to it.
TEST(Lora, QueryKeyValueRank16OnLlama31_70B) {
    const ModelArch a = test::dense(80, 8192, 64, 8, 28672, 128256);
    EXPECT_EQ(lora_params(a, 16, LoraTargets::query_key_value), 44564480.0);
    EXPECT_EQ(lora_targets_from_name("query-key-value"), LoraTargets::query_key_value);
    EXPECT_EQ(lora_targets_from_name("query-value"), LoraTargets::query_value);
    EXPECT_EQ(lora_targets_from_name("all"), LoraTargets::all);
    // With PEFT's per-module dropout Q, K and V each copy their shared h-wide input: 3 x 8192 x (2 + 1) bytes a token.
    EXPECT_DOUBLE_EQ(lora_dropout_bytes_per_token(a, LoraTargets::query_key_value, 0.05, true, 2), 73728.0);
}

// LoRA dropout keeps, per adapted input, the dropped copy (2 bytes in bf16) and its bool mask (1 byte): Llama 2 7B
// (h = q = 4096, i = 11008) by hand. LitGPT's fused QKV: one input, 3 x 4096 = 12,288 bytes a token. PEFT on every
// linear, each module its own dropout: Q, K, V, gate and up copy their h-wide inputs (5h), O and down theirs (q + i):
// 3 x (5 x 4096 + 4096 + 11008) = 106,752. No dropout: nothing.
TEST(Lora, DropoutKeepsTheDroppedInputAndItsMask) {
    const ModelArch a = test::dense(32, 4096, 32, 32, 11008, 32000);
    EXPECT_DOUBLE_EQ(lora_dropout_bytes_per_token(a, LoraTargets::query_value, 0.05, false, 2), 12288.0);
    EXPECT_DOUBLE_EQ(lora_dropout_bytes_per_token(a, LoraTargets::query_value, 0.05, true, 2), 24576.0);
    EXPECT_DOUBLE_EQ(lora_dropout_bytes_per_token(a, LoraTargets::all, 0.1, true, 2), 106752.0);
    EXPECT_DOUBLE_EQ(lora_dropout_bytes_per_token(a, LoraTargets::all, 0.0, true, 2), 0.0);
}

// Over a frozen base, a linear layer's input is kept only if something needs it in backward (ActivationSettings):
// dropping the QKV, MLP and down-projection inputs removes 2 x (h + h + i) bytes a token; extra bytes add as given.
// Llama 2 7B, one token, fused attention, by hand: Korthikanti's 2 x (4h + 4h + 4i) = 2 x (32,768 + 44,032) = 153,600.
TEST(TrainingActivations, FrozenLinearInputsAreKeptOnlyWhenNeeded) {
    const ModelArch a = test::dense(32, 4096, 32, 32, 11008, 32000);
    ActivationSettings st;
    st.seq_len = 1;
    st.micro_batch = 1;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 153600.0);
    st.qkv_input_kept = st.mlp_input_kept = st.down_input_kept = false;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 153600.0 - 2 * (4096 + 4096 + 11008));
    st.extra_bytes_per_token = 1000;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, st), 153600.0 - 2 * (4096 + 4096 + 11008) + 1000);
}

TEST(Embeddings, UntiedModelsCountTableAndHead) {
    ModelArch a = llama31_70b();
    EXPECT_DOUBLE_EQ(embedding_and_head_params(a), 2.0 * 128256 * 8192);
    a.tied_embeddings = true;
    EXPECT_DOUBLE_EQ(embedding_and_head_params(a), 128256.0 * 8192);
}

} // namespace hwplan

// [SECTION] serving overhead at tensor parallelism ------------------------------------------------------

namespace hwplan {

// vLLM's own memory profile of Meta-Llama-3-8B (PR #10511): non_torch_memory 1.79 GiB at TP 1 and 3.58 GiB at
// -tp 2, so tensor parallelism adds 1.79 GiB = 1.922e9 bytes per device (tensor_parallel_buffer_bytes) on top of
// the 0.4 GB runtime context (runtime_context_bytes). Llama 2 70B at fp16 on 4 x A100 80GB (PR #2031's setup)
// runs TP 4 and carries both; the same engine on one device carries the context alone.
TEST(ServingOverhead, TensorParallelAddsItsCommunicationBuffers) {
    const Catalog& cat = embedded_catalog().catalog;
    auto overhead = [&](const char* model, int count) {
        const std::string w = std::string(R"({"stage": "serve", "model": ")") + model + R"(", "precision": "fp16",
            "serve": {"context_tokens": 16, "prompt_tokens": 8, "output_tokens": 8, "concurrent_users": 1},
            "hardware": {"devices": ["a100-80gb"], "count": )" + std::to_string(count) + "}}";
        const Plan p = plan_from_json(w, cat);
        EXPECT_TRUE(p.issues.empty());
        EXPECT_FALSE(p.candidates.empty());
        return p.candidates.empty() ? 0.0 : p.candidates.front().memory.overhead_bytes;
    };
    EXPECT_NEAR(overhead("llama-2-70b", 4), 0.4e9 + 1.922e9, 1e3);
    EXPECT_NEAR(overhead("llama-2-7b", 1), 0.4e9, 1e3);
}

// FSDP's CPU offload under torchtune (PyTorch FSDP2 CPUOffloadPolicy: parameters, gradients and optimizer states
// in host memory), with the embeddings and the head wrapped as units of their own (70B_full.yaml:
// custom_sharded_layers: ['tok_embeddings', 'output'], resharded after forward like the blocks; the root keeps the
// final norm only). Llama 3.1 70B full fine-tune on 8 x A100: the head H = 128,256 x 8,192 = 1,050,673,152
// parameters is larger than a block (P - 2H) / 80 (about 856 million), so the device holds the head in flight
// beside the next block, (H + (P - 2H) / 80) x 2 bytes (bf16), about 3.81 GB, and one unit's gradients at a time,
// the head's, H x 2 = 2,101,346,304 bytes. (Kept in the root unit, embeddings and head would add (2H + block) x 2.)
TEST(FsdpCpuOffload, DeviceHoldsTheHeadInFlightAndTheNextBlock) {
    const Catalog& cat = embedded_catalog().catalog;
    const Plan p = plan_from_json(R"({"stage": "finetune", "model": "llama-3.1-70b", "precision": "bf16",
        "train": {"method": "full", "seq_len": 2048, "micro_batch": 2, "checkpointing": "full", "zero_stage": 3,
                  "cpu_offload": true, "runtime": "torchtune"},
        "hardware": {"devices": ["a100-80gb"], "count": 8}})", cat);
    ASSERT_TRUE(p.issues.empty());
    ASSERT_FALSE(p.candidates.empty());
    const double head = 128256.0 * 8192, block = (p.params - 2 * head) / 80;
    ASSERT_GT(head, block);
    const MemoryUse& m = p.candidates.front().memory;
    EXPECT_NEAR(m.weights_bytes, (head + block) * 2, 1e3);
    EXPECT_NEAR(m.gradients_bytes, 2101346304.0, 1e3);
    EXPECT_EQ(m.optimizer_bytes, 0.0);
    EXPECT_LT(m.weights_bytes, p.params * 2 / 8); // less than the ZeRO-3 shard it replaces
}

} // namespace hwplan

namespace hwplan {

// MaxText's custom remat policy (train.remat_tensors) on Llama 3.1 70B (hidden 8,192, 64 query heads and 8 KV heads of
// 128, gated MLP 28,672, 80 blocks), as the Ironwood 8k recipe passes it: decoder_layer_input, context, query_proj,
// key_proj, value_proj (and qkv_proj, a fused projection Llama does not have) on the device. By hand, per token and block:
// saved besides the input: Q 8,192 + K 1,024 + V 1,024 + the attention output 8,192 + its FP32 logsumexp, 64 heads x 2
// 16-bit values = 18,560 values, none hidden-wide. Multiply-adds: Q 8,192^2 = 67,108,864, K and V 8,192 x 1,024 =
// 8,388,608 each, the output projection 67,108,864, the MLP's three 8,192 x 28,672 = 234,881,024 each: 855,638,016 in all;
// recomputed (outputs not saved) the output projection and the MLP, 771,751,936: 92/102 = 0.9019608 (all / 8,388,608).
// The attention kernel's forward is not recomputed (context saved).
TEST(MaxTextRemat, TheIronwoodSeventyBRecipeSavesQkvAndTheAttentionOutput) {
    const ModelArch a = test::llama31_70b();
    const RematTensors r = maxtext_remat_tensors(a, {{"decoder_layer_input", "device"}, {"context", "device"}, {"query_proj", "device"},
                                                     {"key_proj", "device"}, {"value_proj", "device"}, {"qkv_proj", "device"}});
    EXPECT_DOUBLE_EQ(r.device_split_elements, 18560.0);
    EXPECT_DOUBLE_EQ(r.device_whole_elements, 0.0);
    EXPECT_DOUBLE_EQ(r.offloaded_elements, 0.0);
    EXPECT_FALSE(r.input_offloaded);
    EXPECT_NEAR(r.recompute_share, 92.0 / 102.0, 1e-12);
    EXPECT_FALSE(r.attention_recomputed);
    // The 405B BF16 recipe's names on the same shapes: the block input and the down projection's output (8,192) offloaded,
    // K and V (2,048) on the device; recomputed Q, the output projection and the two input projections:
    // (2 x 67,108,864 + 2 x 234,881,024) / 855,638,016 = 72/102; the attention kernel's forward runs again.
    const RematTensors o = maxtext_remat_tensors(a, {{"decoder_layer_input", "offload"}, {"mlpwo", "offload"}, {"key_proj", "device"},
                                                     {"value_proj", "device"}});
    EXPECT_DOUBLE_EQ(o.device_split_elements, 2048.0);
    EXPECT_DOUBLE_EQ(o.offloaded_elements, 8192.0);
    EXPECT_TRUE(o.input_offloaded);
    EXPECT_NEAR(o.recompute_share, 72.0 / 102.0, 1e-12);
    EXPECT_TRUE(o.attention_recomputed);
    // Nothing named beyond the default: plain full recomputation.
    const RematTensors f = maxtext_remat_tensors(a, {{"decoder_layer_input", "device"}});
    EXPECT_DOUBLE_EQ(f.recompute_share, 1.0);
    EXPECT_DOUBLE_EQ(f.device_split_elements + f.device_whole_elements, 0.0);
}

// Under full recomputation a block keeps its input and what the policy saves on the device: 8,192 tokens x 4 sequences
// = 32,768 tokens; input 32,768 x 8,192 x 2 = 536,870,912 bytes, saved 32,768 x 18,560 x 2 = 1,216,348,160 bytes,
// 1,753,219,072 in all; with the input offloaded (decoder_layer_input "offload") only the saved 1,216,348,160 stay.
TEST(MaxTextRemat, ABlockKeepsItsInputAndWhatThePolicySavesOnTheDevice) {
    const ModelArch a = test::llama31_70b();
    ActivationSettings s;
    s.seq_len = 8192;
    s.micro_batch = 4;
    s.checkpointing = Checkpointing::full;
    s.remat_saved_split_bytes_per_token = 18560.0 * 2;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, s), 1753219072.0);
    s.offload_checkpoints = true;
    EXPECT_DOUBLE_EQ(training_activation_bytes_per_layer(a, s), 1216348160.0);
    // Every block keeps it: 80 x 1,216,348,160 = 97,307,852,800 bytes, plus one block rebuilt while it is recomputed.
    ActivationSettings working = s;
    working.checkpointing = Checkpointing::none;
    const auto act = training_activation_bytes(a, s, 80);
    EXPECT_DOUBLE_EQ(act.blocks_bytes, 80 * 1216348160.0 + training_activation_bytes_per_layer(a, working));
}

} // namespace hwplan
