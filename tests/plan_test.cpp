// plan_test.cpp: whole plans. The outcomes the lessons reason their way to (what fits, which technique
// makes it fit, what meets the latency target), decode speed against llama.cpp measurements, and
// properties that must hold for any workload (monotonicity, sums, bands, finite numbers).
#include "hwplan/plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"
#include "hwplan/format.h"
#include "test_plans.h"

#include <nlohmann/json.hpp>

namespace hwplan {

namespace {

const Catalog& catalog() { return embedded_catalog().catalog; }

std::string example(const std::string& name) {
    std::ifstream in(std::filesystem::path(HWPLAN_SOURCE_DIR) / "tests/data/workloads" / (name + ".json"));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

Plan run(const std::string& workload_json) {
    Plan p = test::planned_once(workload_json, catalog());
    for (const auto& i : p.issues) ADD_FAILURE() << to_string(i);
    return p;
}

const Candidate* find(const Plan& p, const std::string& device) {
    for (const auto& c : p.candidates)
        if (c.device == device) return &c;
    return nullptr;
}

// Whether a candidate's notes hold one that starts with `prefix`.
bool has_note(const Candidate& c, const std::string& prefix) {
    return std::any_of(c.notes.begin(), c.notes.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
}

} // namespace

// [SECTION] lesson outcomes -----------------------------------------------------------------------

// Lesson 001: 7B at 16 bits holds 14 GB of weights.
TEST(Lessons, SevenBillionAtBf16HoldsFourteenGB) {
    const Plan p = run(example("7b-weights-bf16"));
    ASSERT_FALSE(p.candidates.empty());
    for (const auto& c : p.candidates)
        if (c.count == 1) {
            EXPECT_DOUBLE_EQ(c.memory.weights_bytes, 14e9) << c.device;
        }
}

// Lesson 001: mixed-precision Adam needs 16 bytes per parameter, 112 GB for 7B before activations.
TEST(Lessons, SevenBillionFullFineTuneIs112GBOfModelState) {
    const Plan p = run(R"({"stage": "finetune", "model": {"params": 7e9}, "precision": "bf16",
        "train": {"method": "full", "optimizer": "adamw"}, "hardware": {"devices": ["H200"], "count": 1}})");
    const auto& m = p.candidates.at(0).memory;
    EXPECT_DOUBLE_EQ(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes, 112e9);
}

// Lesson 001 exercise: a 3B full fine-tune with Adam does not fit a 24 GB RTX 3090 (48 GB of model
// state alone); 8-bit Adam brings 16P to 10P, still 30 GB; QLoRA fits.
TEST(Lessons, ThreeBillionFullFineTuneDoesNotFitAnRtx3090) {
    const Plan p = run(example("3b-finetune-rtx3090"));
    const Candidate& c = p.candidates.at(0);
    EXPECT_EQ(c.device, "rtx-3090");
    EXPECT_FALSE(c.fits);
    EXPECT_EQ(c.regime, Regime::capacity);
    EXPECT_GE(c.memory.weights_bytes + c.memory.gradients_bytes + c.memory.optimizer_bytes, 48e9);
    const Plan lora = run(R"({"stage": "finetune", "model": {"params": 3e9}, "precision": {"weights": "nf4"},
        "train": {"method": "qlora", "seq_len": 1024, "checkpointing": "full"}, "hardware": {"devices": ["RTX 3090"], "count": 1}})");
    EXPECT_TRUE(lora.candidates.at(0).fits);
}

// Lesson 003 quiz: 70B at 16 bits (~140 GB) does not fit one 80 GB GPU; quantization is the lever.
TEST(Lessons, SeventyBillionAtFp16NeedsQuantizationForOneGpu) {
    const Plan p = run(example("70b-fp16-on-80gb"));
    EXPECT_FALSE(p.candidates.at(0).fits);
    EXPECT_GT(p.candidates.at(0).memory.weights_bytes, 140e9);
    const Plan q = run(R"({"stage": "serve", "model": "Llama-3.1-70B", "precision": "int4",
        "serve": {"context_tokens": 4096, "concurrent_users": 1}, "hardware": {"devices": ["H100 SXM"], "count": 1}})");
    EXPECT_TRUE(q.candidates.at(0).fits);
}

// Lesson 004 worked example 1: QLoRA on an 8B model needs about 10-16 GB, so one 24-32 GB card does it.
TEST(Lessons, QloraOnEightBillionNeedsTenToSixteenGB) {
    const Plan p = run(example("support-ticket-finetune"));
    for (const char* dev : {"rtx-4090", "rtx-5090", "l40s"}) {
        const Candidate* c = find(p, dev);
        ASSERT_NE(c, nullptr) << dev;
        EXPECT_TRUE(c->fits) << dev;
        EXPECT_GE(c->memory.total_bytes, 10e9) << dev;
        EXPECT_LE(c->memory.total_bytes, 16e9) << dev;
        EXPECT_EQ(c->count, 1) << dev;
    }
}

// Lesson 001 ("LoRA / QLoRA ... letting a 65B model fine-tune on a single 48 GB GPU") and the QLoRA paper
// (Dettmers et al. 2023, abstract): LLaMA-65B (80 layers, hidden 8192, 64 heads, FFN 22016, 65.2B
// parameters, LLaMA paper Table 2), NF4 base, LoRA r = 64 on every linear layer, sequence 512, micro-batch 1,
// full recomputation (qlora.py's defaults). By hand, with the QLoRA recipe (bf16 adapters, paged 32-bit
// AdamW): NF4 base (65.2e9 - 0.524e9 embeddings) x 4.127 / 8 + 0.524e9 x 2 = 34.4 GB; 799.5M adapter
// parameters x (2 + 2 + 8) bytes = 9.6 GB; block inputs 80 x 2 x 512 x 8192 = 0.67 GB plus one block's
// working set and the logits, 0.27 GB; context 0.4 GB and fragmentation of the per-step tensors 0.45 GB:
// about 45.8 GB, under 48 GB without paging anything out. (Before issue 9 hwplan said 57 GB: FP32 adapters
// and 17.6 % fragmentation on every byte, frozen weights included.)
TEST(Lessons, QloraFitsSixtyFiveBillionOnOneFortyEightGBGpu) {
    const Plan p = run(R"({"stage": "finetune", "model": {"params": 65.2e9, "layers": 80, "hidden": 8192, "heads": 64,
        "intermediate": 22016, "vocab": 32000}, "precision": {"weights": "nf4", "compute": "bf16"},
        "train": {"method": "qlora", "lora_rank": 64, "seq_len": 512, "micro_batch": 1, "checkpointing": "full"},
        "hardware": {"devices": ["L40S", "RTX A6000"], "count": 1}})");
    ASSERT_EQ(p.candidates.size(), 2u);
    for (const auto& c : p.candidates) {
        EXPECT_TRUE(c.fits) << c.device;
        EXPECT_NEAR(c.memory.total_bytes / 45.8e9, 1.0, 0.03) << c.device;
        EXPECT_NEAR(c.memory.weights_bytes / (34.41e9 + 799539200.0 * 2), 1.0, 0.01) << c.device;
    }
    for (const auto& c : p.candidates) {
        const bool named = std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.find("[qlora-reference]") != std::string::npos; });
        EXPECT_TRUE(named) << "the plan names the runtime profile it used";
    }
}

// torchtune README, "Memory and training speed" (pytorch/torchtune@0031bfb): Llama 3.1 8B, LoRA, "1x 4090",
// peak 16.2 GiB, batch size 2, packed sequence length 2048, torch.compile; the config
// (llama3_1/8B_lora_single_device.yaml) trains rank 8 in bf16 with activation checkpointing and chunked
// cross-entropy. By hand with the torchtune profile: 16.0 GB of bf16 weights, 21M rank-8 adapters x
// (2 + 2 + 4) bytes, block inputs 32 x 2 x 4096 x 4096 = 1.07 GB + one block 0.57 GB, logits 2 x 2048 x
// 128256 x (2 + 8/8) = 1.58 GB, fragmentation 0.57 GB, context 0.4 GB: about 20.3 GB, which fits 24 GB.
// The measurement is lower still (17.4 GB; torch.compile fuses the block's working set), so the model is an
// upper bound here, 17 % above it.
TEST(Lessons, LoraOnEightBillionFitsA24GBCardWithRecomputation) {
    // The default profile for LoRA is a trainer that chunks the loss (torchtune): the same answer unnamed.
    const Plan unnamed = run(R"({"stage": "finetune", "model": "Llama-3.1-8B", "precision": "bf16",
        "train": {"method": "lora", "lora_rank": 8, "seq_len": 2048, "micro_batch": 2, "checkpointing": "full"},
        "hardware": {"devices": ["RTX 4090"], "count": 1}})");
    EXPECT_TRUE(unnamed.candidates.at(0).fits);
    const Plan p = run(R"({"stage": "finetune", "model": "Llama-3.1-8B", "precision": "bf16",
        "train": {"method": "lora", "lora_rank": 8, "seq_len": 2048, "micro_batch": 2, "checkpointing": "full", "runtime": "torchtune"},
        "hardware": {"devices": ["RTX 4090"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    EXPECT_TRUE(c.fits);
    EXPECT_NEAR(c.memory.total_bytes / 20.3e9, 1.0, 0.03);
    EXPECT_GT(c.memory.total_bytes, 16.2 * 1073741824.0); // never below what torchtune measured
}

// Activation offloading (train.offload_activations; torchtune lora_finetune_single_device at 30b8519e8,
// enable_activation_offloading: OffloadActivations around the model's forward, the output head excepted) moves the
// checkpointed block inputs to host memory. By hand for Llama 3.1 8B, batch 2 x 2048 tokens, full recomputation:
// 32 blocks x 2 x 2048 x 4096 x 2 bytes = 1,073,741,824 bytes leave the device, and with them their share of the
// allocator's fragmentation (assumptions.json allocator_fragmentation_ratio 0.176): 1.2627 GB less; the working
// set of the block being recomputed and the logits stay. Total by hand: 16.06 GB weights + 0.03 GB adapters, their
// gradients and AdamW state + 0.54 GB block working set + 1.58 GB logits and loss + 0.37 GB fragmentation + 0.4 GB
// context = 18.98 GB (the README's 16.2 GiB is 17.4 GB: 9 % above, within the memory tolerance).
TEST(Lessons, ActivationOffloadingMovesTheCheckpointsToHostMemory) {
    auto total = [](const char* offload) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": "Llama-3.1-8B", "precision": "bf16",
            "train": {"method": "lora", "lora_rank": 8, "lora_targets": "query-value", "seq_len": 2048, "micro_batch": 2,
                      "checkpointing": "full", "runtime": "torchtune", "offload_activations": )") + offload + R"(},
            "hardware": {"devices": ["RTX 4090"], "count": 1}})");
        return p.candidates.at(0).memory.total_bytes;
    };
    const double on = total("true"), off = total("false");
    EXPECT_NEAR((off - on) / (32.0 * 2 * 2048 * 4096 * 2 * 1.176), 1.0, 1e-6);
    EXPECT_NEAR(on / 18.98e9, 1.0, 0.02);
}

// torch.compile (train.compiled; torchtune's README table of 2024-09-24: "torch compile enabled") recomputes a gated MLP's
// SiLU output in backward: AOTAutograd's min-cut partitioner (torch/_functorch/partitioners.py) lists aten.silu among its
// recomputable ops and bans recomputation only of compute-intensive nodes (the matmuls) and of nodes an unfusible backward
// op reads (the down projection's input where its weight trains); SiLU's output feeds only the product's element-wise
// gradient. By hand for Llama 3.1 8B LoRA on q and v, batch 2 x 2048 tokens, no recomputation, torchtune: the SiLU output
// is 32 layers x 4,096 tokens x 14,336 x 2 bytes = 3,758,096,384 bytes, x 1.176 with its fragmentation = 4,419,521,348.
// The compiled total: weights 16,067,338,240 (8.03 billion + 3.41 million adapters, 2 bytes each), adapter gradients
// 6,815,744 and AdamW state 13,631,488, blocks 32 x 4,096 x 2 bytes x (2 x 4,096 norm inputs + 4,096 q/v adapter input
// + 4,096 + 1,024 + 1,024 + 4,096 Q, K, V and attention output + 2 x 14,336 gate and up) = 13,421,772,800, logits
// 4,096 x 128,256 x (2 + 8/8) = 1,576,009,728, fragmentation 0.176 x (15,004,598,272) = 2,640,809,296, context
// 400,000,000: 34,126,377,296 bytes; less the context (a reserved peak) 33.73 GB against the README's "1x A6000"
// 30.3 GiB = 32.53 GB (+3.7 %). The full fine-tune drops the same 3,758,096,384 bytes of activations.
TEST(RuntimeProfiles, TorchCompileRecomputesTheGatedMlpActivation) {
    auto plan = [](const char* method, const char* compiled) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": "Llama-3.1-8B", "precision": "bf16",
            "train": {"method": ")") + method + R"(", "lora_rank": 8, "lora_targets": "query-value", "seq_len": 2048,
                      "micro_batch": 2, "checkpointing": "none", "runtime": "torchtune", "compiled": )" + compiled + R"(},
            "hardware": {"devices": ["rtx-a6000"], "count": 1}})");
        return p.candidates.at(0).memory;
    };
    const MemoryUse eager = plan("lora", "false"), compiled = plan("lora", "true");
    EXPECT_NEAR(eager.activations_bytes - compiled.activations_bytes, 3758096384.0, 1e3);
    EXPECT_NEAR(eager.total_bytes - compiled.total_bytes, 4419521348.0, 1e4);
    EXPECT_NEAR(compiled.total_bytes / 34126377296.0, 1.0, 1e-4);
    EXPECT_NEAR((compiled.total_bytes - 0.4e9) / (30.3 * 1073741824.0), 1.0, 0.05); // the README's reading
    const MemoryUse full_eager = plan("full", "false"), full_compiled = plan("full", "true");
    EXPECT_NEAR(full_eager.activations_bytes - full_compiled.activations_bytes, 3758096384.0, 1e3);
}

// torchtune's LoRA recipes step torch.optim.AdamW (recipes/configs/llama2/7B_lora_single_device.yaml at 30b8519e8:
// optimizer torch.optim.AdamW, fused: True); only its full single-device config pages the state (PagedAdamW8bit). So the
// adapters' bf16 weights, gradients and two bf16 moments (2 + 2 + 2 x 2 = 8 bytes a parameter) are in the reserved peak.
// torchtune's LoRA tutorial ("Trading off memory and model performance with LoRA", every linear layer, batch 2): rank 8
// 15.87 GB, rank 64 17.04 GB, +1.17 GB. By hand for Llama 2 7B: every linear of a block is r x 78,080 (4 x 8192 for
// q, k, v, o; 3 x 15,104 for the MLP), x 32 blocks, so rank 64 - rank 8 = 56 x 2,498,560 = 139,919,360 parameters,
// x 8 bytes = 1.119 GB, plus the allocator's fragmentation of the new gradients (0.176 x 2 bytes each, assumptions.json):
// 1.169 GB, 0.1 % from the tutorial's step. Until 2026-12-03 the moments were taken as paged and the step was 0.60 GB.
TEST(RuntimeProfiles, TorchtuneLoraKeepsItsAdamWStateInTheReservedPeak) {
    auto reserved = [](int rank, const char* targets) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": "llama-2-7b", "precision": "bf16",
            "train": {"method": "lora", "lora_rank": )") + std::to_string(rank) + R"(, "lora_targets": ")" + targets +
                           R"(", "seq_len": 512, "micro_batch": 2, "checkpointing": "full", "runtime": "torchtune"},
            "hardware": {"devices": ["a100-80gb"], "count": 1}})");
        return p.candidates.at(0).memory;
    };
    const MemoryUse r8 = reserved(8, "all"), r64 = reserved(64, "all");
    EXPECT_NEAR(r64.optimizer_bytes - r8.optimizer_bytes, 139919360.0 * 4, 1e3); // two bf16 moments, not paged
    EXPECT_EQ(r64.managed_bytes, 0.0);
    const double step = (r64.total_bytes - r64.managed_bytes) - (r8.total_bytes - r8.managed_bytes);
    EXPECT_NEAR(step, 139919360.0 * (8 + 0.176 * 2), 0.01e9);
    EXPECT_NEAR(step / 1.17e9, 1.0, 0.03); // the tutorial's measured step
    // Query and value only (the tutorial's default config): 32 x 8 x 16,384 = 4,194,304 adapters, as LitGPT prints.
    const MemoryUse qv = reserved(8, "query-value");
    EXPECT_NEAR(qv.optimizer_bytes, 4194304.0 * 4, 1e3);
    EXPECT_LT(qv.total_bytes, r8.total_bytes);
}

// torchtune of April 2024 (its LoRA and QLoRA tutorials, commit ff594c231) took the loss on whole FP32 logits: the model
// returned self.output(h).float(), the recipe held a contiguous FP32 copy through backward (4 bytes a logit) and
// nn.CrossEntropyLoss's log_softmax output and its gradient were live together (8 bytes), where today's profile keeps the
// bf16 chunks (2) and one FP32 chunk of 8 (8/8). By hand for Llama 2 7B at batch 2 x 512 tokens: 1,024 x 32,000 logits x
// ((4 + 8) - (2 + 1)) = 294,912,000 bytes more, the rest of the step unchanged.
TEST(RuntimeProfiles, Torchtune2024TakesTheLossOnWholeFp32Logits) {
    auto memory = [](const char* runtime) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": "llama-2-7b", "precision": "bf16",
            "train": {"method": "lora", "lora_rank": 8, "lora_targets": "query-value", "seq_len": 512, "micro_batch": 2,
                      "checkpointing": "full", "runtime": ")") + runtime + R"("}, "hardware": {"devices": ["a100-80gb"], "count": 1}})");
        return p.candidates.at(0).memory;
    };
    const MemoryUse then = memory("torchtune-2024-04"), now = memory("torchtune");
    EXPECT_NEAR(then.activations_bytes - now.activations_bytes, 1024.0 * 32000 * 9, 1e3);
    EXPECT_NEAR(then.weights_bytes, now.weights_bytes, 1.0);
    EXPECT_NEAR(then.optimizer_bytes, now.optimizer_bytes, 1.0);
}

// torchtune of April 2024 pinned torchao 0.1, which quantized each NF4 weight whole when the model was built on the device
// and again in load_state_dict: at the spike the bf16 weight (2 bytes an element), its scaled blocks (2) and
// (value - nf4).abs() over the 16 NF4 values (two (n, 16) bf16 tensors, 64): 68 bytes an element (torchao #196 chunked it
// in v0.2.0, "a large memory spike"). The recipe never empties the cache, so the reserved peak holds the resident model
// plus that transient of the largest quantized matrix; the step's tensors reuse it. By hand for the QLoRA tutorial's Llama 2
// 7B (MLP 11,008 x 4,096): 68 x 45,088,768 = 3,066,036,224 bytes, more than the step's optimizer state, activations and
// fragmentation, so the total is the weights, the adapters' gradients, the context and the transient. The tutorial
// reserved 9.29 GB: the plan, 7.0 GB less the context, is still 24 % low (was 45 %); a LoRA run quantizes nothing.
TEST(RuntimeProfiles, Torchtune2024KeepsTheLoadTimeQuantizationTransientReserved) {
    auto memory = [](const char* method, const char* weights) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": "llama-2-7b", "precision": {"weights": ")") + weights +
                           R"(", "kv_cache": "bf16", "compute": "bf16"}, "train": {"method": ")" + method +
                           R"(", "lora_rank": 8, "seq_len": 512, "micro_batch": 2, "checkpointing": "full", "optimizer": "adamw",
                           "runtime": "torchtune-2024-04"}, "hardware": {"devices": ["a100-80gb"], "count": 1}})");
        return p.candidates.at(0).memory;
    };
    const MemoryUse q = memory("qlora", "nf4");
    const double transient = 68.0 * 11008 * 4096;
    EXPECT_NEAR(q.total_bytes, q.weights_bytes + q.gradients_bytes + q.context_bytes + transient, 1e3);
    EXPECT_NEAR((q.total_bytes - q.context_bytes) / 9.29e9, 0.755, 0.01);
    const MemoryUse l = memory("lora", "bf16");
    EXPECT_LT(l.overhead_bytes, l.context_bytes + 0.2 * (l.activations_bytes + l.gradients_bytes)); // context + fragmentation only
}

// The same job under each runtime profile: what the runtime stores decides the answer, so the plan names
// it. hf-peft (FP32 adapters; the bf16 logits the model returns plus their whole FP32 copy and gradient:
// 2 x 2048 x 128256 x (2 + 8) = 5.3 GB) needs more than torchtune (bf16 adapters and state, chunked loss:
// 2 + 8/8 bytes per logit, 1.58 GB).
TEST(RuntimeProfiles, ChunkedLossAndBf16StateNeedLessThanTheWholeFp32Logits) {
    auto total = [](const char* runtime) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": "Llama-3.1-8B", "precision": "bf16",
            "train": {"method": "lora", "lora_rank": 8, "seq_len": 2048, "micro_batch": 2, "checkpointing": "full", "runtime": ")") +
                           runtime + R"("}, "hardware": {"devices": ["RTX 4090"], "count": 1}})");
        return p.candidates.at(0).memory;
    };
    const MemoryUse hf = total("hf-peft"), tt = total("torchtune");
    EXPECT_NEAR(hf.activations_bytes - tt.activations_bytes, 2.0 * 2048 * 128256 * (10.0 - 3.0), 1e3);
    EXPECT_GT(hf.total_bytes, tt.total_bytes);
    const Plan bad = plan_from_json(R"({"stage": "finetune", "model": "Llama-3.1-8B", "train": {"runtime": "megatron-9"}})", catalog());
    ASSERT_EQ(bad.issues.size(), 1u);
    EXPECT_EQ(bad.issues[0].path, "train.runtime");
}

// fp32 training (precision fp32): 4-byte weights and gradients, AdamW's two FP32 moments and no master
// copy (4 + 4 + 8 = 16 bytes per parameter), 4-byte activations. BERT-Large-sized 340M full fine-tune.
TEST(Precision, Fp32TrainingStoresFourByteWeightsGradientsAndActivations) {
    auto mem = [](const char* precision) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": {"params": 3.4e8, "layers": 24, "hidden": 1024, "heads": 16,
            "vocab": 30522}, "precision": ")") + precision + R"(", "train": {"method": "full", "seq_len": 512, "micro_batch": 8},
            "hardware": {"devices": ["A100 80GB"], "count": 1}})");
        return p.candidates.at(0).memory;
    };
    const MemoryUse f32 = mem("fp32"), b16 = mem("bf16");
    EXPECT_DOUBLE_EQ(f32.weights_bytes, 3.4e8 * 4);
    EXPECT_DOUBLE_EQ(f32.gradients_bytes, 3.4e8 * 4);
    EXPECT_DOUBLE_EQ(f32.optimizer_bytes, 3.4e8 * 8);
    EXPECT_DOUBLE_EQ(b16.weights_bytes, 3.4e8 * 2);
    // hf-peft: the returned logits (4 bytes in fp32, 2 in bf16), the FP32 copy (none in fp32: logits.float() returns
    // the same tensor) and its FP32 gradient (4).
    const double logits = 512.0 * 8 * 30522;
    EXPECT_NEAR((f32.activations_bytes - logits * (4 + 4)) / (b16.activations_bytes - logits * (2 + 8)), 2.0, 1e-9); // the blocks double
}

// Eager attention (transformers attn_implementation="eager", older stacks) keeps the softmax output,
// heads x s^2 x b values per block (Korthikanti et al. 2022, the 5as/h term without dropout: 2as^2b bytes).
TEST(Precision, EagerAttentionAddsTheScoreMatrices) {
    auto act = [](const char* attention) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": {"params": 3.4e8, "layers": 24, "hidden": 1024, "heads": 16,
            "vocab": 30522}, "precision": "bf16", "train": {"method": "full", "seq_len": 512, "micro_batch": 8, "attention": ")") +
                           attention + R"("}, "hardware": {"devices": ["A100 80GB"], "count": 1}})");
        return p.candidates.at(0).memory.activations_bytes;
    };
    EXPECT_NEAR(act("eager") - act("sdpa"), 24 * 2.0 * 16 * 512 * 512 * 8, 1e3);
}

// [SECTION] batch size: offline jobs and latency targets (issue 9) -----------------------------------

// TensorRT-LLM Performance Overview (NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md @00f3768,
// "Throughput Measurements", trtllm-bench with requests at an infinite rate): Llama 3.3 70B, H100 TP2, FP8,
// ISL/OSL 1000/1000: 4,205 output tokens/s. An offline batch job plans the batch that gives the most
// output tokens/s within memory; serving throughput is held to 35 %. Before issue 9 the same job was
// planned at one sequence per step: about 1/50 of this.
TEST(BatchSize, OfflineJobRunsAtTheThroughputMaximizingBatch) {
    const Plan p = run(R"({"stage": "batch", "model": "Llama-3.3-70B", "precision": "fp8",
        "serve": {"context_tokens": 2000, "prompt_tokens": 1000, "output_tokens": 1000}, "hardware": {"devices": ["H100 SXM"], "count": 2}})");
    const Candidate& c = p.candidates.at(0);
    ASSERT_TRUE(c.figures.count("batch_sequences"));
    EXPECT_GT(c.figures.at("batch_sequences").value, 64);
    EXPECT_LE(c.figures.at("batch_sequences").value, c.figures.at("max_concurrent_users").value);
    EXPECT_NEAR(c.figures.at("throughput_tokens_per_s").value / 4205.0, 1.0, 0.35);
    // The same job with one sequence per step (what concurrent_users 1 asks for) is far slower.
    const Plan one = run(R"({"stage": "batch", "model": "Llama-3.3-70B", "precision": "fp8",
        "serve": {"context_tokens": 2000, "prompt_tokens": 1000, "output_tokens": 1000, "concurrent_users": 1}, "hardware": {"devices": ["H100 SXM"], "count": 2}})");
    EXPECT_GT(c.figures.at("throughput_tokens_per_s").value, 30 * one.candidates.at(0).figures.at("throughput_tokens_per_s").value);
}

// Interactive serving with targets also reports the most throughput a batch reaches while each user still
// gets the target speed: per-user speed falls as the batch grows, so the figure sits at the largest batch
// whose decode step is at most 1 / target, and is at least the throughput at the users' own batch.
TEST(BatchSize, ServingReportsTheMostThroughputWithinTheTargets) {
    const Plan p = run(R"({"stage": "serve", "model": "Llama-3.1-8B", "precision": "bf16", "serve": {"context_tokens": 4096,
        "prompt_tokens": 1000, "output_tokens": 300, "concurrent_users": 20, "ttft_target_s": 2, "tokens_per_s_per_user_target": 30},
        "hardware": {"devices": ["L40S"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    ASSERT_TRUE(c.figures.count("max_throughput_within_targets_tokens_per_s"));
    const double b = c.figures.at("batch_within_targets_sequences").value;
    const double best = c.figures.at("max_throughput_within_targets_tokens_per_s").value;
    EXPECT_GE(best, c.figures.at("throughput_tokens_per_s").value);
    EXPECT_GE(best / b, 30.0); // each of the b users decodes at least at the target
}

// MLPerf Inference's Server scenario gives only an arrival rate and latency limits (TTFT <= 2 s, TPOT <= 200 ms,
// i.e. 5 tokens/s per user; mlcommons/inference_results_v4.1, NVIDIA DGX-H100 llama2-70b Server summary) and
// leaves the batch to the engine. The plan runs the batch with the most output tokens/s that still meets both
// (issue 9) and reports it: that batch meets the targets, and twice it does not (or does not fit). Before,
// such a workload was planned at one sequence per step (-99 % against the measured 21,606 tokens/s).
TEST(BatchSize, ServingAtAnArrivalRateRunsTheLargestBatchWithinTheTargets) {
    const char* base = R"({"stage": "serve", "model": "llama-2-70b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
        "serve": {"context_tokens": 1318, "prompt_tokens": 1024, "output_tokens": 294, "requests_per_s": 75.1, "ttft_target_s": 2,
        "tokens_per_s_per_user_target": 5%s}, "hardware": {"devices": ["h100-sxm"], "count": 2}})";
    auto with = [&](const std::string& extra) {
        char buf[1024];
        std::snprintf(buf, sizeof buf, base, extra.c_str());
        return run(buf);
    };
    const Plan p = with("");
    const Candidate& c = p.candidates.at(0);
    ASSERT_TRUE(c.figures.count("batch_sequences"));
    const double b = c.figures.at("batch_sequences").value; // sequences per step in one replica
    EXPECT_GT(b, 1);
    EXPECT_GE(c.figures.at("decode_tokens_per_s_per_user").value, 5.0);
    EXPECT_LE(c.figures.at("ttft_s").value, 2.0);
    EXPECT_NEAR(c.figures.at("throughput_tokens_per_s").value, c.figures.at("max_throughput_within_targets_tokens_per_s").value, 1e-6);
    // Far more than one sequence per step (what concurrent_users 1 asks for).
    const Plan one = with(R"(, "concurrent_users": 1)");
    EXPECT_GT(c.figures.at("throughput_tokens_per_s").value, 10 * one.candidates.at(0).figures.at("throughput_tokens_per_s").value);
}

// Short prompts share a prefill step: an engine step's token budget (prefill_chunk_tokens, 2,048 tokens,
// catalog/assumptions.json) takes floor(2048 / 128) = 16 prompts of 128 tokens at once, so the weights are read
// once per 16 prompts. Llama 2 7B in FP8 on one H100 SXM (1,978.9 TFLOP/s dense FP8, 3,350 GB/s; datasheet):
// alone, a 128-token prompt reads all 6.7 GB of weights (2.6 ms at 0.78 x 3,350 GB/s) for 1.4 ms of GEMMs
// (1.7 TFLOP at 0.61 x 1,978.9 TFLOP/s); packed, the step is compute-bound and each prompt costs its FLOPs at
// the prefill efficiency. The offline throughput is output / (that + output x step / batch) (docs/accuracy-history.md,
// serving item 13: 128-token rows in FP8 were planned too slow).
TEST(BatchSize, ShortPromptsShareAPrefillStep) {
    const Plan p = run(R"({"stage": "batch", "model": "llama-2-7b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
        "serve": {"context_tokens": 256, "prompt_tokens": 128, "output_tokens": 128, "concurrent_users": 64},
        "hardware": {"devices": ["h100-sxm"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    const Phase* pre = nullptr;
    for (const auto& ph : c.phases)
        if (ph.name.rfind("prefill", 0) == 0) pre = &ph;
    ASSERT_NE(pre, nullptr);
    EXPECT_GT(pre->roofline.memory_s, 1.5 * pre->roofline.compute_s); // alone, a 128-token prompt waits on the weights
    const double packed_s = pre->roofline.flops / (1978.9e12 * 0.61); // FLOPs of one prompt at the prefill efficiency
    const double step_s = c.figures.at("decode_step_s").value;
    EXPECT_NEAR(c.figures.at("throughput_tokens_per_s").value / (128.0 / (packed_s + 128.0 * step_s / 64)), 1.0, 1e-9);
    EXPECT_GT(c.figures.at("throughput_tokens_per_s").value, 128.0 / (pre->time_s + 128.0 * step_s / 64));
}

// A large-batch decode step is its weight GEMMs (compute-bound) and then attention over the KV cache
// (memory-bound), one after the other (plan.cpp decode_phase). Llama 2 7B (6.74e9 parameters, FP16) on one
// H100 SXM (989.4 TFLOP/s FP16, 3,350 GB/s) at shares pinned to 0.5 of the peak and 0.8 of the bandwidth,
// 256 sequences of 128 + 128 / 2 = 192 tokens of history:
//   GEMMs: 256 x 2 x 6.74e9 = 3.4509e12 FLOP / 494.7e12 = 6.976 ms; weights 13.48e9 B - the 262.1 MB input
//          table + 256 rows of 8,192 B = 13.220e9 B / 2.68e12 = 4.933 ms: compute-bound, 6.976 ms
//   attention: KV 256 x 192 x 524,288 B (32 layers x 32 KV heads x 128 x K and V x 2 B) = 25.770e9 B / 2.68e12
//          = 9.616 ms; FLOPs 256 x 4 x 32 x 4,096 x 192 = 2.58e10 (0.05 ms): memory-bound, 9.616 ms
//   step 6.976 + 9.616 = 16.59 ms, where one roofline over the sums gave max(7.03, 14.55) = 14.55 ms.
TEST(BatchSize, LargeBatchDecodeIsGemmComputeThenAttentionMemory) {
    const Plan p = run(R"({"stage": "batch", "model": "llama-2-7b", "precision": {"weights": "fp16", "kv_cache": "fp16", "compute": "fp16"},
        "serve": {"context_tokens": 256, "prompt_tokens": 128, "output_tokens": 128, "concurrent_users": 256},
        "hardware": {"devices": ["h100-sxm"], "count": 1},
        "assumptions": {"decode_compute_efficiency": 0.5, "decode_bandwidth_efficiency": 0.8, "decode_step_overhead_s": 0}})");
    const Candidate& c = p.candidates.at(0);
    const Phase& dec = c.phases.at(0);
    EXPECT_NEAR(dec.time_s, 16.59e-3, 0.01 * 16.59e-3);
    EXPECT_NEAR(dec.roofline.compute_s, 6.976e-3 + 0.052e-3, 0.01 * 7.03e-3);
    EXPECT_NEAR(dec.roofline.memory_s, 4.933e-3 + 9.616e-3, 0.01 * 14.55e-3);
    EXPECT_NEAR(c.figures.at("decode_step_s").value, 16.59e-3, 0.01 * 16.59e-3);
    EXPECT_FALSE(dec.roofline.compute_bound); // 9.6 ms of the step wait on the KV cache, 7.0 ms on the GEMMs
    EXPECT_NE(dec.name.find("weight GEMMs compute-bound"), std::string::npos) << dec.name;
    EXPECT_NE(dec.name.find("attention over the KV cache memory-bound"), std::string::npos) << dec.name;
}

// GEMMs at an 8-bit peak take decode_compute_efficiency_8bit (FP8 GEMMs reach a smaller share of their doubled
// peak). The step above in FP8 (weights and KV cache), the 8-bit share pinned to 0.25 and the 16-bit one to 0.5:
//   GEMMs: 3.4509e12 FLOP / (1,978.9e12 x 0.25 = 494.7e12) = 6.976 ms; weights 6.74e9 B - the 131.1 MB input table
//          + 256 rows of 4,096 B = 6.610e9 B / 2.68e12 = 2.466 ms: compute-bound, 6.976 ms
//   attention: KV 256 x 192 x 262,144 B = 12.885e9 B / 2.68e12 = 4.808 ms (FLOPs 0.05 ms): memory-bound
//   step 6.976 + 4.808 = 11.78 ms; at the 16-bit share of the FP8 peak the GEMMs would take 3.49 ms (8.30 ms).
TEST(BatchSize, EightBitGemmsTakeTheirOwnShareOfTheirPeak) {
    const Plan p = run(R"({"stage": "batch", "model": "llama-2-7b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
        "serve": {"context_tokens": 256, "prompt_tokens": 128, "output_tokens": 128, "concurrent_users": 256},
        "hardware": {"devices": ["h100-sxm"], "count": 1},
        "assumptions": {"decode_compute_efficiency": 0.5, "decode_compute_efficiency_8bit": 0.25, "decode_bandwidth_efficiency": 0.8,
                        "decode_step_overhead_s": 0}})");
    const Phase& dec = p.candidates.at(0).phases.at(0);
    EXPECT_EQ(dec.precision, "fp8");
    EXPECT_NEAR(dec.time_s, 11.78e-3, 0.01 * 11.78e-3);
    EXPECT_NEAR(dec.roofline.memory_s, 2.466e-3 + 4.808e-3, 0.01 * 7.27e-3);
}

// A device family with its own measured 8-bit GEMM share (efficiencies.json decode_compute_efficiency_8bit,
// mi300x-vllm-fp8: 0.180 since item 119) takes it instead of the catalog-wide one, unless the workload pins the share. The FP8
// step above on one MI300X (2,614.9 TFLOPS FP8, 5,300 GB/s x 0.8 = 4.24e12 B/s):
//   GEMMs 3.4509e12 FLOP / (2,614.9e12 x 0.180 = 470.7e12) = 7.332 ms (weights 6.610e9 B: 1.559 ms, compute-bound)
//   attention: KV 12.885e9 B / 4.24e12 = 3.039 ms; step 7.332 + 3.039 = 10.371 ms (256 rows: two whole tiles)
//   pinned at 0.25: GEMMs 3.4509e12 / 653.7e12 = 5.279 ms; step 5.279 + 3.039 = 8.318 ms
TEST(BatchSize, AFamilysOwnEightBitGemmShareReplacesTheCatalogWideOne) {
    auto step = [](const std::string& pin) {
        const Plan p = run(R"({"stage": "batch", "model": "llama-2-7b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
            "serve": {"context_tokens": 256, "prompt_tokens": 128, "output_tokens": 128, "concurrent_users": 256},
            "hardware": {"devices": ["mi300x"], "count": 1},
            "assumptions": {"decode_bandwidth_efficiency": 0.8, "decode_step_overhead_s": 0)" + pin + "}}");
        return p.candidates.at(0);
    };
    const Candidate c = step("");
    EXPECT_NEAR(c.phases.at(0).time_s, 10.371e-3, 0.01 * 10.371e-3);
    bool named = false;
    for (const auto& n : c.notes) named = named || n.find("[mi300x-vllm-fp8]") != std::string::npos;
    EXPECT_TRUE(named);
    EXPECT_NEAR(step(R"(, "decode_compute_efficiency_8bit": 0.25)").phases.at(0).time_s, 8.318e-3, 0.01 * 8.318e-3);
}

// serve.decode_attention "per_query_head": a decode kernel with one thread block per query head (TensorRT-LLM's
// masked MHA before v0.8's XQA kernel) reads each KV head once per query head of its group. Llama 2 70B has 64
// query heads over 8 KV heads, so a step reads its KV cache 8 times instead of once: 7 extra reads of
// 64 sequences x 3,072 tokens of history (2,048 + 2,048 / 2) x 163,840 bytes per token (FP8: 80 layers x 8 KV
// heads x 128 x K and V x 1 byte), half of it on each of 2 tensor-parallel GPUs.
TEST(BatchSize, PerQueryHeadAttentionReadsTheKvCacheOncePerQueryHead) {
    auto decode = [](const char* attention) {
        const Plan p = run(std::string(R"({"stage": "batch", "model": "llama-2-70b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
            "serve": {"context_tokens": 4096, "prompt_tokens": 2048, "output_tokens": 2048, "concurrent_users": 64, "decode_attention": ")") +
                           attention + R"("}, "hardware": {"devices": ["h100-sxm"], "count": 2}})");
        return p.candidates.at(0).phases.at(0);
    };
    const Phase shared = decode("per_kv_head"), per_query = decode("per_query_head");
    EXPECT_NEAR(per_query.roofline.bytes - shared.roofline.bytes, 7.0 * 64 * 3072 * 163840 / 2, 1e3);
    EXPECT_GT(per_query.time_s, shared.time_s);
    const Plan bad = plan_from_json(R"({"stage": "serve", "model": "llama-2-70b", "serve": {"decode_attention": "sometimes"}})", catalog());
    ASSERT_EQ(bad.issues.size(), 1u);
    EXPECT_EQ(bad.issues[0].path, "serve.decode_attention");
}

// [SECTION] serving layouts (issue 11) ----------------------------------------------------------------------

// An offline job on n devices may run as r replicas of n / r devices. The plan tries every split
// (powers of two) and keeps the most output tokens/s, so its throughput is at least r times that of the same
// job planned on n / r devices (one replica each), for every r whose replica fits, and equals it for the
// split it names. docs/accuracy-history.md item 12: 8-GPU offline jobs were always one tensor-parallel-8 replica.
TEST(ServingLayout, OfflineJobOnEightGpusTakesTheBestSplitIntoReplicas) {
    auto offline = [](int count) {
        return run(R"({"stage": "batch", "model": "llama-2-70b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
            "serve": {"context_tokens": 1318, "prompt_tokens": 1024, "output_tokens": 294}, "hardware": {"devices": ["h100-sxm"], "count": )" +
                   std::to_string(count) + "}}").candidates.at(0);
    };
    const Candidate eight = offline(8);
    const int r = eight.layout.data_parallel;
    EXPECT_EQ(r * eight.layout.tensor_parallel * eight.layout.pipeline_parallel, 8);
    const double best = eight.figures.at("throughput_tokens_per_s").value;
    // Splits nest (powers of two), so the best on 8 is at least r x the best on 8 / r, and equal for its own r.
    for (int replicas : {2, 4, 8}) {
        const Candidate part = offline(8 / replicas);
        if (!part.fits) continue;
        const double split = replicas * part.figures.at("throughput_tokens_per_s").value;
        EXPECT_GE(best * (1 + 1e-9), split) << replicas << " replicas";
        if (replicas == r) {
            EXPECT_NEAR(best, split, 1e-6 * best);
        }
    }
    EXPECT_TRUE(std::any_of(eight.notes.begin(), eight.notes.end(), [](const std::string& n) { return n.rfind("layout: ", 0) == 0; }));
}

// serve.tensor_parallel pins the split a benchmark states (TensorRT-LLM v0.17's perf overview runs Llama 3.1 70B at
// "Tensor Model Parallel Size" 8 on 8 GPUs: one replica of 8). The pinned plan is one replica of 8 devices at tensor
// parallel 8 (64 query and 8 KV heads divide by 8), and a pin of 4 on 8 devices two replicas of 4, each the job on
// 4 devices. A pin that does not divide the count, or one without a count, is a named error.
TEST(ServingLayout, StatedTensorParallelIsOneReplicaOfThatSize) {
    const std::string job = R"({"stage": "batch", "model": "llama-3.1-70b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
            "serve": {"context_tokens": 2000, "prompt_tokens": 1000, "output_tokens": 1000)";
    const Candidate pinned = run(job + R"(, "tensor_parallel": 8}, "hardware": {"devices": ["h100-sxm"], "count": 8}})").candidates.at(0);
    EXPECT_EQ(pinned.layout.data_parallel, 1);
    EXPECT_EQ(pinned.layout.tensor_parallel, 8);
    const Candidate two = run(job + R"(, "tensor_parallel": 4}, "hardware": {"devices": ["h100-sxm"], "count": 8}})").candidates.at(0);
    EXPECT_EQ(two.layout.data_parallel, 2);
    EXPECT_EQ(two.layout.tensor_parallel, 4);
    // Two replicas of 4 are twice one replica of 4 (replicas share nothing).
    const Candidate four = run(job + R"(, "tensor_parallel": 4}, "hardware": {"devices": ["h100-sxm"], "count": 4}})").candidates.at(0);
    EXPECT_NEAR(two.figures.at("throughput_tokens_per_s").value, 2 * four.figures.at("throughput_tokens_per_s").value,
                1e-6 * two.figures.at("throughput_tokens_per_s").value);
    const Plan odd = plan_from_json(job + R"(, "tensor_parallel": 3}, "hardware": {"devices": ["h100-sxm"], "count": 8}})", catalog());
    ASSERT_EQ(odd.issues.size(), 1u);
    EXPECT_EQ(odd.issues[0].path, "serve.tensor_parallel");
    const Plan no_count = plan_from_json(job + R"(, "tensor_parallel": 8}, "hardware": {"devices": ["h100-sxm"]}})", catalog());
    ASSERT_EQ(no_count.issues.size(), 1u);
    EXPECT_EQ(no_count.issues[0].path, "serve.tensor_parallel");
}

// A stated tensor-parallel size is tensor parallelism over the replica's devices, whatever the search would have
// chosen. TGI 1.0.3 on SageMaker's ml.g5.12xlarge shards Llama 2 7B over 4 A10G (its result files: "tp_4"), cards
// joined by PCIe whose link rate the catalog does not record, where the search (no fast domain) lays 4 devices out as
// 4 pipeline stages. Pinned, the layout is TP 4 x PP 1, each device reads a quarter of the weights (13.5 GB / 4 =
// 3.37 GB of the 6.74 B x 2 bytes), and the step is no slower than the 4-stage pipeline's, which reads all of them one
// stage after another. Neuron's TP 24 over 12 Inferentia2 chips is TP 12 over the chips, though 64 query heads do not
// divide by 12 (Neuron pads them; vLLM would refuse): the plan says so.
TEST(ServingLayout, StatedTensorParallelOverridesTheSearchsDomain) {
    const std::string job = R"({"stage": "serve", "model": "llama-2-7b", "precision": "fp16",
            "serve": {"context_tokens": 1024, "prompt_tokens": 974, "output_tokens": 50, "concurrent_users": 1)";
    const Candidate searched = run(job + R"(}, "hardware": {"devices": ["a10g"], "count": 4}})").candidates.at(0);
    EXPECT_EQ(searched.layout.tensor_parallel, 1);
    EXPECT_EQ(searched.layout.pipeline_parallel, 4);
    const Candidate pinned = run(job + R"(, "tensor_parallel": 4}, "hardware": {"devices": ["a10g"], "count": 4}})").candidates.at(0);
    EXPECT_EQ(pinned.layout.tensor_parallel, 4);
    EXPECT_EQ(pinned.layout.pipeline_parallel, 1);
    EXPECT_NEAR(pinned.memory.weights_bytes, 6.74e9 * 2 / 4, 0.02 * 6.74e9 * 2 / 4);
    EXPECT_LT(pinned.figures.at("decode_step_s").value, searched.figures.at("decode_step_s").value);
    const Candidate neuron = run(R"({"stage": "serve", "model": "llama-2-70b", "precision": "bf16", "serve": {"context_tokens": 256,
            "prompt_tokens": 128, "output_tokens": 128, "concurrent_users": 1, "tensor_parallel": 12}, "hardware": {"devices": ["inferentia2"], "count": 12}})")
                                 .candidates.at(0);
    EXPECT_EQ(neuron.layout.tensor_parallel, 12);
    EXPECT_TRUE(has_note(neuron, "tensor parallel 12 as stated, over 64 attention heads that do not divide"));
}

// serve.requests: an offline run of N requests of uniform lengths at batch B runs floor(N / B) full waves and a
// last one of the remaining r, whose `output` steps run at batch r (TensorRT-LLM's perf overview: 3000 requests,
// stdev 0). By hand from the plan's own steady states: each sequence of a wave at batch b takes output / T(b) of the
// replica's time, so the run's output tokens/s is N x output / (k x B x output / T(B) + r x output / T(r)) =
// N / (k B / T(B) + r / T(r)). Here B = 64, N = 232: k = 3, r = 40. Fewer requests than the batch cap it (N = 40
// at batch 64 is the plan at batch 40), and a served stream (stage serve) has no request count.
TEST(ServingOffline, FixedRequestCountRunsInWavesOfTheBatch) {
    auto job = [](int users, int requests, const char* stage = "batch") {
        return std::string(R"({"stage": ")") + stage + R"(", "model": "llama-3.1-8b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
            "serve": {"context_tokens": 2176, "prompt_tokens": 128, "output_tokens": 2048, "concurrent_users": )" + std::to_string(users) +
               (requests > 0 ? R"(, "requests": )" + std::to_string(requests) : std::string()) + R"(}, "hardware": {"devices": ["h100-sxm"], "count": 1}})";
    };
    auto tput = [&](int users, int requests) { return run(job(users, requests)).candidates.at(0).figures.at("throughput_tokens_per_s").value; };
    const double t64 = tput(64, 0), t40 = tput(40, 0);
    const double by_hand = 232.0 / (3 * 64 / t64 + 40 / t40);
    const double waves = tput(64, 232);
    EXPECT_NEAR(waves, by_hand, 1e-9 * by_hand);
    EXPECT_LT(waves, t64); // the short last wave runs below the full batch's rate
    // A whole number of waves is the steady state.
    EXPECT_NEAR(tput(64, 192), t64, 1e-9 * t64);
    // Fewer requests than the batch: the run holds only them.
    EXPECT_NEAR(tput(64, 40), t40, 1e-9 * t40);
    const Plan served = plan_from_json(job(64, 232, "serve"), catalog());
    ASSERT_EQ(served.issues.size(), 1u);
    EXPECT_EQ(served.issues[0].path, "serve.requests");
}

// Left to the search, a Neuron device's replica is tensor parallel over all its chips, as AWS's engines run it (the
// Inf2 tables: TP 24 over the 24 NeuronCores of 12 Inferentia2), not the GPU board's 8 ways with the rest as pipeline
// stages (12 chips were TP 4 x PP 3, half the speed at batch 1). Twelve chips split the 138 GB of Llama 2 70B's weights
// 12 ways: 11.5 GB each; the stated layout plans the same.
TEST(ServingLayout, ANeuronReplicaIsTensorParallelOverItsChips) {
    const std::string job = R"({"stage": "serve", "model": "llama-2-70b", "precision": "bf16", "serve": {"context_tokens": 256,
            "prompt_tokens": 128, "output_tokens": 128, "concurrent_users": 1)";
    const Candidate searched = run(job + R"(}, "hardware": {"devices": ["inferentia2"], "count": 12}})").candidates.at(0);
    EXPECT_EQ(searched.layout.tensor_parallel, 12);
    EXPECT_EQ(searched.layout.pipeline_parallel, 1);
    EXPECT_NEAR(searched.memory.weights_bytes, 68.98e9 * 2 / 12, 0.02 * 68.98e9 * 2 / 12);
    const Candidate stated = run(job + R"(, "tensor_parallel": 12}, "hardware": {"devices": ["inferentia2"], "count": 12}})").candidates.at(0);
    EXPECT_DOUBLE_EQ(searched.figures.at("decode_step_s").value, stated.figures.at("decode_step_s").value);
    // A GPU board keeps the 8-way limit: 12 H100 are TP 4 x PP 3 (64 heads divide by 4, not by 12 or 6).
    const Candidate gpu = run(job + R"(}, "hardware": {"devices": ["h100-sxm"], "count": 12}})").candidates.at(0);
    EXPECT_EQ(gpu.layout.tensor_parallel, 4);
}

// At an arrival rate with the count left to the planner, the replica size is the one whose fleet has the
// fewest devices: ceil(demand / capacity) x devices per replica is no larger than for any other size that fits.
TEST(ServingLayout, ArrivalRateFleetUsesTheFewestDevices) {
    auto fleet = [](int count) {
        std::string w = R"({"stage": "serve", "model": "Llama-3.1-70B", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
            "serve": {"context_tokens": 4096, "prompt_tokens": 2000, "output_tokens": 500, "requests_per_s": 20, "ttft_target_s": 2,
            "tokens_per_s_per_user_target": 10}, "hardware": {"devices": ["h100-sxm"])";
        if (count > 0) w += R"(, "count": )" + std::to_string(count);
        const Plan p = run(w + "}}");
        for (const auto& o : p.options)
            if (o.kind == "rent" && o.device == "h100-sxm" && o.feasible) return o.count;
        return 1 << 30;
    };
    const int chosen = fleet(0);
    ASSERT_LT(chosen, 1 << 30);
    for (int n : {1, 2, 4, 8}) EXPECT_LE(chosen, fleet(n)) << n << " devices per replica";
}

// The largest arrival rate the workload accepts (1e6 requests/s) sizes fleets of many replicas without an
// overflowed count: every priced option has a positive device count, a finite cost, and a queue that holds.
TEST(ServingLayout, LargestArrivalRateGivesFiniteFleets) {
    const Plan p = run(R"({"stage": "serve", "model": "Llama-3.1-8B", "serve": {"requests_per_s": 1e6, "ttft_target_s": 2},
        "hardware": {"devices": ["H100 SXM", "L4", "AMD EPYC 9654"]}})");
    ASSERT_TRUE(p.recommendation.found);
    for (const auto& o : p.options) {
        if (o.kind == "api") continue;
        EXPECT_GT(o.count, 0) << o.name;
        if (o.feasible && o.cost.value > 0) {
            EXPECT_TRUE(std::isfinite(o.cost.value)) << o.name;
            EXPECT_TRUE(std::isfinite(o.usd_per_month)) << o.name;
        }
    }
    const Candidate* h100 = find(p, "h100-sxm");
    ASSERT_NE(h100, nullptr);
    EXPECT_LT(h100->figures.at("utilization_ratio").value, 1.0);
    EXPECT_GT(h100->figures.at("replicas_for_rate").value, 1000);
}

// Prefill/decode disaggregation (DistServe, OSDI 2024) is reported beside an arrival-rate plan: the colocated
// count is the plan's own (demand / throughput, at least the queue's replicas), and the split needs a stable
// prefill pool, more than lambda x prefill time replicas (M/G/1: utilization below one), plus at least one
// decode replica. 20 requests/s x 500 output tokens on H200.
TEST(ServingLayout, DisaggregationIsReportedBesideTheColocatedFleet) {
    const Plan p = run(R"({"stage": "serve", "model": "Llama-3.1-70B", "precision": "fp8", "serve": {"context_tokens": 4096,
        "prompt_tokens": 2000, "output_tokens": 500, "requests_per_s": 20, "ttft_target_s": 2, "tokens_per_s_per_user_target": 10},
        "hardware": {"devices": ["H200"]}})");
    const Candidate& c = p.candidates.at(0);
    ASSERT_TRUE(c.figures.count("disaggregated_replicas"));
    const double colocated = c.figures.at("colocated_replicas").value;
    EXPECT_GE(colocated, std::ceil(20.0 * 500 / c.figures.at("throughput_tokens_per_s").value));
    EXPECT_GE(colocated, c.figures.at("replicas_for_rate").value);
    EXPECT_GE(c.figures.at("disaggregated_replicas").value, std::floor(20.0 * c.figures.at("ttft_s").value) + 1 + 1);
    EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.rfind("prefill/decode disaggregation: ", 0) == 0; }));
}

// [SECTION] decode bandwidth efficiency per device family and runtime (issue 9) ---------------------------

// catalog/efficiencies.json from XiongjieDai/GPU-Benchmarks-on-LLM-Inference (llama.cpp, LLaMA 2 7B F16):
// HBM data-centre GPUs reach about half their bandwidth (A100 80GB PCIe 73.83 tokens/s), GDDR cards about three
// quarters (RTX 4090 60.78 tokens/s). With one 0.78 for all, the A100 came out 36 % too fast; per family
// both sit within the decode tolerance (25 %). A workload that names no framework on a data-centre GPU
// gets a serving engine, which these llama.cpp figures do not describe, so the catalog-wide value stays: by hand
// with the step's 7.076 ms of bytes at full bandwidth, (7.076 / 0.587 + 0.87) / (7.076 / 0.78 + 0.87) = 1.30 x faster.
TEST(DecodeEfficiency, LlamaCppOnHbmAndGddrGpusUsesTheirFamilysMeasuredShare) {
    auto decode = [](const char* device, const char* framework) {
        const Plan p = run(std::string(R"({"stage": "edge", "model": "Llama-2-7B", "precision": {"weights": "fp16", "kv_cache": "fp16",
            "compute": "fp16"}, "serve": {"context_tokens": 1424, "prompt_tokens": 400, "output_tokens": 1024},
            "hardware": {"devices": [")") + device + R"("], "count": 1})" + (*framework ? std::string(R"(, "framework": ")") + framework + "\"" : "") + "}");
        return p.candidates.at(0);
    };
    const Candidate a100 = decode("a100-80gb-pcie", "llama.cpp"), rtx = decode("rtx-4090", "llama.cpp"), engine = decode("a100-80gb-pcie", "");
    EXPECT_NEAR(a100.figures.at("decode_tokens_per_s_per_user").value / 73.83, 1.0, 0.25);
    EXPECT_NEAR(rtx.figures.at("decode_tokens_per_s_per_user").value / 60.78, 1.0, 0.25);
    EXPECT_NEAR(engine.figures.at("decode_tokens_per_s_per_user").value / a100.figures.at("decode_tokens_per_s_per_user").value, 1.30, 0.01);
    const bool named = std::any_of(a100.notes.begin(), a100.notes.end(), [](const std::string& n) { return n.find("[hbm-gpu-llama.cpp") != std::string::npos; });
    EXPECT_TRUE(named);
}

// llama.cpp's block-quantized (GGUF) kernels: one share cannot fit both model sizes. XiongjieDai's table (LLaMA 2
// Q4_0, A100 80GB PCIe, as its notebooks print) measures 136.24 tokens/s at 7B and 25.68 at 70B: the 7B step (7.3 ms) is far
// slower than its bytes over the 70B share allow (a single share put the 7B 48 % too fast). The rule fitted to those four HBM
// cases (efficiencies.json hbm-gpu-llama.cpp-gguf: share 0.5617 and a 3.527 ms step, with a fifth row from llama.cpp issue
// #6763) holds both within 5 % (by hand: 2.168 ms / 0.5617 + 3.527 ms = 7.386 ms, 135.4 tokens/s; 20.13 / 0.5617 + 3.527 =
// 39.36 ms, 25.41 tokens/s), names itself and, share and step both fitted to measurements, labels decode calibrated.
TEST(DecodeEfficiency, LlamaCppQuantizedKernelsCarryTheirOwnShareAndStepTime) {
    auto decode = [](const char* model) {
        const Plan p = run(std::string(R"({"stage": "serve", "model": ")") + model + R"(", "framework": "llama.cpp", "precision": {"weights": "q4_0",
            "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 1424, "prompt_tokens": 400, "output_tokens": 1024,
            "concurrent_users": 1}, "hardware": {"devices": ["a100-80gb-pcie"], "count": 1}})");
        return p.candidates.at(0).figures.at("decode_tokens_per_s_per_user");
    };
    const Figure small = decode("llama-2-7b"), large = decode("llama-2-70b");
    EXPECT_NEAR(small.value / 136.24, 1.0, 0.05);
    EXPECT_NEAR(large.value / 25.68, 1.0, 0.05);
    EXPECT_EQ(small.label, Label::calibrated);
    EXPECT_NE(small.why.find("decode_step_overhead_s [hbm-gpu-llama.cpp-gguf] from xiongjiedai-llama2-"), std::string::npos) << small.why;
}

// llama.cpp stores gpt-oss's MXFP4 experts as a ggml block type and runs them through the same quantized mat-vec
// kernels as Q4_0 and the K-quants (mmvq.cu: vec_dot_mxfp4_q8_1 beside vec_dot_q4_0_q8_1; efficiencies.json
// llamacpp-mmvq), so on Apple Silicon the Metal GGUF rule applies: step = bytes / (819 GB/s x 0.736) + 3.47 ms.
// Before, MXFP4 fell to the catalog-wide 0.78 and 0.87 ms step and Geerling's M3 Ultra (115.29 tokens/s, a
// validation case, not fitted here) came out 66 % too fast; the rule's own figures put it within the 25 % decode
// tolerance. A serving engine on the same chip keeps the catalog-wide figures (the rule names llama.cpp).
TEST(DecodeEfficiency, LlamaCppRunsMxfp4ThroughItsBlockQuantizedKernels) {
    auto plan_on = [](const char* framework) {
        return run(std::string(R"({"stage": "serve", "model": "gpt-oss-20b", "framework": ")") + framework + R"(", "precision": {"weights": "mxfp4",
            "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 144, "prompt_tokens": 16, "output_tokens": 128,
            "concurrent_users": 1}, "hardware": {"devices": ["apple-m3-ultra"], "count": 1}})").candidates.at(0);
    };
    const Candidate c = plan_on("llama.cpp");
    const double bytes = c.phases.at(0).roofline.bytes;
    const Figure& step = c.figures.at("decode_step_s");
    EXPECT_NEAR(step.value / (bytes / (819e9 * 0.736) + 3.47e-3), 1.0, 1e-9);
    EXPECT_NE(step.why.find("[apple-llama.cpp-gguf]"), std::string::npos) << step.why;
    EXPECT_NEAR(c.figures.at("decode_tokens_per_s_per_user").value / 115.29, 1.0, 0.25);
    const Candidate engine = plan_on("mlx");
    EXPECT_EQ(engine.figures.at("decode_step_s").why.find("[apple-llama.cpp-gguf]"), std::string::npos);
}

// llama.cpp's MXFP4 GGUF of an MoE model is ggml's MXFP4_MOE file type: the routed experts' tensors in MXFP4, every
// other weight (attention, router, token table, output head) in Q8_0 (llama-quant.cpp llama_tensor_get_type_impl at
// 007dbbf: "MoE tensors -> MXFP4, other tensors -> Q8_0"; its output tensor Q8_0), not the 16-bit embeddings and
// 4.25-bit attention a weight-only quantizer keeps. By hand for gpt-oss-20b (the catalog's architecture counts
// 20.913e9 parameters, llama-bench 20.91 B; 24 layers of 32 experts of 3 x 2880 x 2880): routed 19.1103e9 x 17/32
// bytes = 10.1523 GB, the other 1.8027e9 x 8.5/8 = 1.9154 GB, 12.068 GB in all (bartowski's
// openai_gpt-oss-20b-MXFP4.gguf, made with llama.cpp b6096, lists 12.1 GB). A batch-1 step reads 4 of 32 experts
// (1.2690 GB) and the Q8_0 non-expert weights less the token table (201088 x 2880 x 8.5/8 = 0.6153 GB) plus one row:
// 2.5691 GB, against 2.776 GB before (a 16-bit head and table, 4.25-bit attention). A serving engine on the same
// model keeps the weight-only layout: (20.913e9 - 1.1582e9) x 4.25/8 + 1.1582e9 x 2 = 12.811 GB.
TEST(DecodeBytes, LlamaCppMxfp4MoeFileStoresTheNonExpertWeightsInQ8_0) {
    auto plan_on = [](const char* framework) {
        return run(std::string(R"({"stage": "serve", "model": "gpt-oss-20b", "framework": ")") + framework +
                   R"(", "precision": {"weights": "mxfp4", "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 144,
            "prompt_tokens": 16, "output_tokens": 128, "concurrent_users": 1}, "hardware": {"devices": ["rtx-4090"], "count": 1}})").candidates.at(0);
    };
    const Candidate llama = plan_on("llama.cpp-vulkan"), engine = plan_on("vllm");
    EXPECT_NEAR(llama.memory.weights_bytes / 12.068e9, 1.0, 0.002);
    EXPECT_NEAR(llama.memory.weights_bytes / 12.1e9, 1.0, 0.01);
    EXPECT_NEAR((llama.phases.at(0).roofline.bytes - llama.memory.kv_cache_bytes) / 2.5691e9, 1.0, 0.01);
    EXPECT_LT(llama.phases.at(0).roofline.bytes, 2.6e9);
    EXPECT_NEAR(engine.memory.weights_bytes / 12.811e9, 1.0, 0.002);
}

// A chip measured apart from its family keeps its own rule, whatever the rules' order in the file: the M1 Max reads
// Q4_K_M at 0.551 of its 400 GB/s at the Apple rule's 3.47 ms step (efficiencies.json apple-m1-max-llama.cpp-gguf:
// the median of XiongjieDai's May 2024 Llama 3 70B row, 4.34 tokens/s = 0.469, and normiebench #40's March 2026
// Llama 3.1 8B row, 46.2 tokens/s = 0.633); the family rule (0.736) puts the 70B 39 % too fast. By hand: step =
// bytes / (400e9 x 0.551) + 3.47 ms on the M1 Max, bytes / (400e9 x 0.736) + 3.47 ms on the M3 Max (the family
// rule); the 70B's 42.61 GB then take 193.3 + 3.47 ms a token, 5.08 tokens/s; 16-bit weights on the M1 Max take
// neither (the rules name block-quantized kinds).
TEST(DecodeEfficiency, AChipMeasuredApartFromItsFamilyKeepsItsOwnShare) {
    auto plan_on = [](const char* device, const char* weights) {
        return run(std::string(R"({"stage": "serve", "model": "llama-3.1-70b", "framework": "llama.cpp", "precision": {"weights": ")") + weights +
                   R"(", "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 513, "prompt_tokens": 1, "output_tokens": 512,
            "concurrent_users": 1}, "hardware": {"devices": [")" + device + R"("], "count": 1}})").candidates.at(0);
    };
    const Candidate m1 = plan_on("apple-m1-max", "q4_k_m"), m3 = plan_on("apple-m3-max-64gb", "q4_k_m");
    EXPECT_NEAR(m1.figures.at("decode_step_s").value / (m1.phases.at(0).roofline.bytes / (400e9 * 0.551) + 3.47e-3), 1.0, 1e-9);
    EXPECT_NEAR(m3.figures.at("decode_step_s").value / (m3.phases.at(0).roofline.bytes / (400e9 * 0.736) + 3.47e-3), 1.0, 1e-9);
    EXPECT_NEAR(m1.figures.at("decode_tokens_per_s_per_user").value / (1 / (42.61e9 / (400e9 * 0.551) + 3.47e-3)), 1.0, 0.01);
    EXPECT_NE(m1.figures.at("decode_step_s").why.find("[apple-m1-max-llama.cpp-gguf]"), std::string::npos);
    const Candidate f16 = run(R"({"stage": "serve", "model": "llama-3.1-8b", "framework": "llama.cpp", "precision": {"weights": "fp16",
        "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 513, "prompt_tokens": 1, "output_tokens": 512,
        "concurrent_users": 1}, "hardware": {"devices": ["apple-m1-max"], "count": 1}})").candidates.at(0);
    EXPECT_EQ(f16.figures.at("decode_step_s").why.find("apple-m1-max-llama.cpp-gguf"), std::string::npos);
}

// The M1 Max's own rule names the K-quants it was measured on (weight_formats), not every GGUF format: legacy block
// quants on the same chip take the Apple family's share. By hand, LLaMA 2 7B Q4_0 tg128 on the M1 Max: a step reads
// bytes / (400e9 x 0.736) + 3.47 ms (the family rule); llama.cpp #4167's 32-core M1 Max row measured 61.19 tokens/s
// (a validation case); the K-quant rule's 0.551 would give about 46.
TEST(DecodeEfficiency, TheM1MaxRuleCoversTheKQuantsItWasMeasuredOn) {
    auto plan_on = [](const char* weights) {
        return run(std::string(R"({"stage": "serve", "model": "llama-2-7b", "framework": "llama.cpp", "precision": {"weights": ")") + weights +
                   R"(", "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 129, "prompt_tokens": 1, "output_tokens": 128,
            "concurrent_users": 1}, "hardware": {"devices": ["apple-m1-max"], "count": 1}})").candidates.at(0);
    };
    const Candidate q4_0 = plan_on("q4_0"), q4_k = plan_on("Q4_K_M");
    EXPECT_NEAR(q4_0.figures.at("decode_step_s").value / (q4_0.phases.at(0).roofline.bytes / (400e9 * 0.736) + 3.47e-3), 1.0, 1e-9);
    EXPECT_NE(q4_0.figures.at("decode_step_s").why.find("[apple-llama.cpp-gguf]"), std::string::npos);
    EXPECT_NEAR(q4_0.figures.at("decode_tokens_per_s_per_user").value / 61.19, 1.0, 0.1);
    EXPECT_NEAR(q4_k.figures.at("decode_step_s").value / (q4_k.phases.at(0).roofline.bytes / (400e9 * 0.551) + 3.47e-3), 1.0, 1e-9);
    EXPECT_NE(q4_k.figures.at("decode_step_s").why.find("[apple-m1-max-llama.cpp-gguf]"), std::string::npos);
}

// llama.cpp's Vulkan backend has its own GGUF rule (efficiencies.json gddr-gpu-llama.cpp-vulkan-gguf: share 0.609
// and a 0.71 ms step, fitted by least squares on five maintainers' llama-bench tg128 rows of 2025-2026 on the
// RTX 5090 and RTX 3090), not the CUDA rule of December 2023 (0.763 and 2.08 ms). By hand, LLaMA 2 7B Q4_0 on an
// RTX 5090 for tg128 (1 prompt token, 128 generated): 6,738,415,616 parameters (32 x (4 x 4096^2 + 3 x 4096 x
// 11008 + 2 x 4096) + 2 x 32000 x 4096 + 4096) at 4.5 bits = 3,790,358,784 bytes; a step reads them less the
// untied 32,000 x 4,096 input table (73,728,000 bytes) plus one row (2,304 bytes), plus the KV cache of a 65-token
// history (1 + 128 / 2) at 2 x 32 layers x 4096 x 2 bytes = 34,078,720 bytes: 3,750,711,808 bytes. Step =
// 3.7507e9 / (1792e9 x 0.609) + 0.71 ms = 3.4368 + 0.71 = 4.1468 ms, 241.1 tokens/s (PR #14903 measured 221.08,
// a calibration case at +9 %). The same workload as "llama.cpp" takes the CUDA rule, and 16-bit weights under
// the Vulkan framework take neither (no Vulkan F16 measurement: the catalog-wide 0.78 and 0.87 ms).
TEST(DecodeEfficiency, LlamaCppVulkanTakesItsOwnGgufRule) {
    auto plan_on = [](const char* framework, const char* weights) {
        return run(std::string(R"({"stage": "serve", "model": "llama-2-7b", "framework": ")") + framework + R"(", "precision": {"weights": ")" +
                   weights + R"(", "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 129, "prompt_tokens": 1, "output_tokens": 128,
            "concurrent_users": 1}, "hardware": {"devices": ["rtx-5090"], "count": 1}})").candidates.at(0);
    };
    const Candidate vk = plan_on("llama.cpp-vulkan", "q4_0"), cuda = plan_on("llama.cpp", "q4_0"), f16 = plan_on("llama.cpp-vulkan", "fp16");
    EXPECT_NEAR(vk.phases.at(0).roofline.bytes / 3750711808.0, 1.0, 1e-6);
    EXPECT_NEAR(vk.figures.at("decode_step_s").value / 4.1468e-3, 1.0, 1e-3);
    EXPECT_NEAR(vk.figures.at("decode_tokens_per_s_per_user").value / 241.1, 1.0, 1e-3);
    EXPECT_NE(vk.figures.at("decode_step_s").why.find("[gddr-gpu-llama.cpp-vulkan-gguf]"), std::string::npos) << vk.figures.at("decode_step_s").why;
    EXPECT_EQ(vk.figures.at("decode_tokens_per_s_per_user").label, Label::calibrated);
    EXPECT_NE(cuda.figures.at("decode_step_s").why.find("[gddr-gpu-llama.cpp-gguf]"), std::string::npos);
    EXPECT_NEAR(cuda.figures.at("decode_step_s").value / (3750711808.0 / (1792e9 * 0.763) + 2.08e-3), 1.0, 1e-6);
    EXPECT_EQ(f16.figures.at("decode_step_s").why.find("llama.cpp"), std::string::npos) << f16.figures.at("decode_step_s").why;
}

// Everything but the efficiency rule treats the Vulkan backend as llama.cpp: it splits two cards by layers (not
// tensor parallelism, which llama.cpp's default --split-mode layer does not do), holds the same memory, and a
// card whose catalog software lists llama.cpp is not eliminated for it.
TEST(DecodeEfficiency, LlamaCppVulkanIsLlamaCppForLayoutMemoryAndSoftware) {
    auto plan_on = [](const char* framework) {
        return run(std::string(R"({"stage": "serve", "model": "llama-3.1-70b", "framework": ")") + framework + R"(", "precision": {"weights": "q4_k_m",
            "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 513, "prompt_tokens": 1, "output_tokens": 512,
            "concurrent_users": 1}, "hardware": {"devices": ["rtx-4090"], "count": 2}})");
    };
    const Plan vk = plan_on("llama.cpp-vulkan"), cpp = plan_on("llama.cpp");
    ASSERT_FALSE(vk.candidates.empty());
    ASSERT_FALSE(cpp.candidates.empty());
    const Candidate &a = vk.candidates.at(0), &b = cpp.candidates.at(0);
    EXPECT_EQ(a.layout.tensor_parallel, 1);
    EXPECT_EQ(a.layout.pipeline_parallel, 2);
    EXPECT_EQ(a.layout, b.layout);
    EXPECT_EQ(a.memory.total_bytes, b.memory.total_bytes);
    ASSERT_EQ(vk.options.size(), cpp.options.size());
    for (size_t i = 0; i < vk.options.size(); ++i) {
        EXPECT_EQ(vk.options[i].feasible, cpp.options[i].feasible) << vk.options[i].name;
        for (const auto& r : vk.options[i].reasons) EXPECT_EQ(r.find("does not run"), std::string::npos) << vk.options[i].name << ": " << r;
    }
}

// A decode step looks up one row of an untied input embedding table per sequence; it does not read the table
// (OpenAI's gpt-oss model card leaves it out of the active parameters for that reason). LLaMA 2 7B at fp16:
// the step reads the weights less the 32,000 x 4,096 table at 2 bytes, plus one 4,096-wide row, plus the KV
// cache of a 912-token history (400 prompt + 1,024 / 2 output) at 2 x 32 layers x 4,096 x 2 bytes per token.
TEST(DecodeBytes, AnUntiedInputEmbeddingTableIsReadOneRowPerSequence) {
    const Plan p = run(R"({"stage": "serve", "model": "llama-2-7b", "framework": "llama.cpp", "precision": {"weights": "fp16",
        "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 1424, "prompt_tokens": 400, "output_tokens": 1024,
        "concurrent_users": 1}, "hardware": {"devices": ["a100-80gb"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    const double expected = c.memory.weights_bytes - 32000.0 * 4096 * 2 + 4096.0 * 2 + 912.0 * 2 * 32 * 4096 * 2;
    EXPECT_NEAR(c.phases.at(0).roofline.bytes / expected, 1.0, 1e-9);
}

// [SECTION] training throughput (issue 9) -------------------------------------------------------------------

// MFU counts model FLOPs only (Chowdhery et al. 2022, PaLM appendix B: rematerialization is not counted;
// Llama 3's 41 % and the torchtune-derived fine-tune MFU are model-FLOP shares of runs that recompute), so
// tokens/s = MFU x peak / model FLOPs per token at full recomputation, the MFU's basis (without it the step skips a
// forward: AFineTuneWithoutRecomputationSkipsTheForwardItsMfuWasReadWith). torchtune README: Llama 3.1 8B
// LoRA on one RTX 4090 (activation checkpointing) trains 3,083 tokens/s; dividing the recomputed FLOPs by the
// MFU as well counted recomputation twice and gave 1,322 tokens/s. Held here to the training tolerance, 25 %.
TEST(TrainingSpeed, MfuDividesModelFlopsSoRecomputationIsNotCountedTwice) {
    const Plan p = run(R"({"stage": "finetune", "model": "Llama-3.1-8B", "precision": "bf16",
        "train": {"method": "lora", "lora_rank": 8, "seq_len": 2048, "micro_batch": 2, "checkpointing": "full", "runtime": "torchtune"},
        "hardware": {"devices": ["RTX 4090"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    const double tokens_per_s = c.figures.at("train_tokens_per_s").value;
    // By hand: 0.437 x 165.15e12 / (4 x 8.03e9 + attention 12 x 32 x 4096 x 2048 = 3.22e9) = 2,042 tokens/s
    // (finetune_mfu 0.437: the 405B QLoRA row net of its dequantization; a LoRA base is not dequantized).
    EXPECT_NEAR(tokens_per_s / (0.437 * 165.15e12 / (4 * 8.03e9 + 12.0 * 32 * 4096 * 2048)), 1.0, 0.02);
    EXPECT_NEAR(tokens_per_s / 3083.0, 1.0, 0.40); // the measurement: still 34 % low; MFU by size is left open
}

// finetune_mfu was read on torchtune's runs, which recompute (activation checkpointing), so a fine-tune without
// recomputation skips that extra forward: torchtune's own A/B (README "Optimization flags", pytorch/torchtune #2003:
// Llama 3.2 3B full fine-tune, one A100, batch 2, packed 4,096, compile, chunked loss) trains 9,415 tokens/s without
// and 7,394 with activation checkpointing (-21.5 %). By hand for a full fine-tune (attention not priced apart on an
// A100): the GEMM time scales by the hardware FLOPs, (6N + 3A) / (8N + 4A) = 3/4 exactly (A: attention's forward a
// token), so tokens/s without recomputation are 4/3 of those with it; before 2026-12-04 night (docs/accuracy-history.md
// item 71) they were equal.
TEST(TrainingSpeed, AFineTuneWithoutRecomputationSkipsTheForwardItsMfuWasReadWith) {
    auto tokens_per_s = [](const std::string& checkpointing) {
        const Plan p = run(R"({"stage": "finetune", "model": "Llama-3.1-8B", "precision": "bf16",
            "train": {"method": "full", "seq_len": 2048, "micro_batch": 2, "optimizer": "adamw_8bit", "checkpointing": ")" +
                           checkpointing + R"(", "runtime": "torchtune"}, "hardware": {"devices": ["a100-80gb"], "count": 1}})");
        return p.candidates.at(0).figures.at("train_tokens_per_s").value;
    };
    const double with = tokens_per_s("full"), without = tokens_per_s("none");
    EXPECT_NEAR(without / with, 4.0 / 3.0, 1e-6);
    EXPECT_NEAR((with / without) / (7394.0 / 9415.0), 1.0, 0.05); // torchtune's measured ratio, 0.785, against 0.75
}

// LLM Foundry's benchmarks (mosaicml/llm-foundry scripts/train/benchmarking/README.md) show A100 runs at a
// larger share of peak than H100 runs; catalog/efficiencies.json takes A100's MFU from the 30B row (55.3 %).
// The 7B row (a validation case, never fitted): 8 x A100 80GB, seq 2048, 37,130 tokens/s. With the
// catalog-wide 0.41 the plan said 23,703 (-36 %); with A100's own MFU it is within the 25 % tolerance.
TEST(TrainingSpeed, A100PretrainingUsesItsFamilysMfu) {
    const std::string w = R"({"stage": "pretrain", "model": {"params": 6658859008, "layers": 32, "hidden": 4096, "heads": 32,
        "intermediate": 16384, "vocab": 50368}, "precision": "bf16", "train": {"method": "full", "seq_len": 2048, "micro_batch": 6,
        "global_batch": 96, "checkpointing": "none", "zero_stage": 3}, "hardware": {"devices": ["a100-80gb"], "count": 8}})";
    const Plan p = run(w);
    const Candidate& c = p.candidates.at(0);
    EXPECT_NEAR(c.figures.at("train_tokens_per_s").value / 37130.0, 1.0, 0.25);
    const bool named = std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.find("[a100-pretraining]") != std::string::npos; });
    EXPECT_TRUE(named);
}

// The A100 rule's range (efficiencies.json a100-pretraining): its high end is the best MFU of llm-foundry's A100
// 80GB table outside the suite's validation rows, MPT-3B at 512 tokens (63.71 %); Megatron-LM's 56.3 % sat
// below four llm-foundry A100 rows. MPT-13B at 2k on 8 x A100 (a validation case: 18,097 tokens/s; llm-foundry
// prints 59.57 % MFU). By hand: 8 x 0.6371 x 312e12 / (6 x 12,853,954,560 + 12 x 40 x 5120 x 2048 = 8.2157e10)
// = 19,356 tokens/s at the high end at the MFU alone. Since the element-wise kernels are priced apart
// (performance.h training_elementwise_time_s; this model is gated): 40 x (112,640 forward + 163,840 backward) +
// 2 x 50,368 = 11,159,936 elements x 2 bytes / 2,039 GB/s = 1.0946e-5 s per token, so the high end gives
// 8 / (4.1332e-4 + 1.0946e-5) = 18,856 tokens/s and the value, 0.5635, 16,728.
TEST(TrainingSpeed, A100BandReachesLlmFoundrysBestA100Row) {
    const Plan p = run(R"({"stage": "pretrain", "model": {"params": 12853954560, "layers": 40, "hidden": 5120, "heads": 40,
        "intermediate": 20480, "vocab": 50368}, "precision": "bf16", "train": {"method": "full", "seq_len": 2048, "micro_batch": 2,
        "global_batch": 16, "checkpointing": "none", "zero_stage": 3}, "hardware": {"devices": ["a100-80gb"], "count": 8}})");
    const Figure& f = p.candidates.at(0).figures.at("train_tokens_per_s");
    EXPECT_NEAR(f.high / 18856.0, 1.0, 0.003);
    EXPECT_NEAR(f.value / 16728.0, 1.0, 0.003);
    EXPECT_GT(f.high, 18097.0);
}

// training_mfu's low end is llm-foundry's MPT-760m on 8 x H100 (a calibration case: 505,177 tokens/s), re-derived
// under the planner's pricing (Hopper attention apart at 0.35) and rounded outward, 0.3488: the row must sit in
// its own band (0.349 left it 0.04 % outside). Re-derived 2026-12-04 with the element-wise kernels priced apart
// (performance.h training_elementwise_time_s): 0.3769. By hand, per token per device: dense 6 x 760,470,528 /
// (989.4e12 x 0.3769) = 1.22359e-5 s, attention 12 x 24 x 1536 x 2048 / (989.4e12 x 0.35) = 2.61622e-6 s,
// element-wise 24 x (22 x 1536 + 5 x 6144) + 2 x 50,368 = 1,649,024 elements x 2 bytes / 3.35e12 = 9.8449e-7 s:
// 8 / 1.58366e-5 = 505,159 tokens/s at the low end.
TEST(TrainingSpeed, TheMfuLowEndHoldsTheRowItIsDrawnFrom) {
    const Plan p = run(R"({"stage": "pretrain", "model": {"params": 760470528, "layers": 24, "hidden": 1536, "heads": 12,
        "intermediate": 6144, "mlp": "plain", "vocab": 50368}, "precision": "bf16", "train": {"method": "full", "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1}, "seq_len": 2048, "micro_batch": 24,
        "global_batch": 384, "checkpointing": "none", "zero_stage": 3}, "hardware": {"devices": ["h100-sxm"], "count": 8}})");
    const Figure& f = p.candidates.at(0).figures.at("train_tokens_per_s");
    EXPECT_NEAR(f.low / 505159.0, 1.0, 0.001);
    EXPECT_LE(f.low, 505177.0);
}

// FlashAttention-2 reaches 35 % of H100's peak (FlashAttention-3 paper, abstract), less than the 41 % MFU, so on
// Hopper attention FLOPs are priced apart (efficiencies.json h100-flash-attention-2). llm-foundry's MPT-13B at
// 32k tokens on 8 x H100 (a validation case, never fitted: 15,812 tokens/s) has as many attention FLOPs as
// dense ones, and it recomputes: the kernels run the attention forward a fourth time (llm-foundry README, HFU:
// "4 * attn_flops_per_seq"). By hand, per token: dense 6 x 13.011e9 = 7.807e10 at 0.402 x 989.4 TFLOPS
// (1.9628e-4 s), attention 16 x 40 layers x 5120 x 32768 = 1.0737e11 at 0.35 x 989.4 TFLOPS (3.1007e-4 s):
// 5.0635e-4 s per device, 15,799 tokens/s on 8 (-0.1 %; without the recomputed forward 18,655, +18 %, outside
// the band; at the MFU alone 20,462, +29 %, outside the training tolerance). One node: the layout model leaves none of
// the FSDP traffic exposed on NVLink, so the step is the compute alone.
TEST(TrainingSpeed, HopperAttentionRunsAtFlashAttention2sShare) {
    const Plan p = run(R"({"stage": "pretrain", "model": {"params": 13011240960, "layers": 40, "hidden": 5120, "heads": 40,
        "intermediate": 20480, "vocab": 50368}, "precision": "bf16", "train": {"method": "full", "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1}, "seq_len": 32768, "micro_batch": 1,
        "global_batch": 24, "checkpointing": "full", "zero_stage": 3}, "hardware": {"devices": ["h100-sxm"], "count": 8}})");
    const Candidate& c = p.candidates.at(0);
    // Since 2026-12-04 the GEMMs run at the basis 0.4125 and the element-wise kernels apart (performance.h
    // training_elementwise_time_s; gated, the forward twice): 15,665,536 elements x 2 bytes / 3.35e12 = 9.3526e-6 s.
    const double per_token_s = 6 * 13011240960.0 / (989.4e12 * 0.4125) + 16.0 * 40 * 5120 * 32768 / (989.4e12 * 0.35) + 9.3526e-6;
    EXPECT_NEAR(c.figures.at("train_tokens_per_s").value / (8 / per_token_s), 1.0, 0.005);
    EXPECT_NEAR(c.figures.at("train_tokens_per_s").value / 15812.0, 1.0, 0.25);
    // Without recomputation the kernels run attention three times (forward, and a backward of twice its FLOPs):
    // 12 x 40 x 5120 x 32768 = 8.053e10 at 0.35 x 989.4 TFLOPS (2.3255e-4 s) + 1.9628e-4 s: 18,655 tokens/s on 8.
    const Plan none = run(R"({"stage": "pretrain", "model": {"params": 13011240960, "layers": 40, "hidden": 5120, "heads": 40,
        "intermediate": 20480, "vocab": 50368}, "precision": "bf16", "train": {"method": "full", "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1}, "seq_len": 32768, "micro_batch": 1,
        "global_batch": 24, "checkpointing": "none", "zero_stage": 3}, "hardware": {"devices": ["h100-sxm"], "count": 8}})");
    EXPECT_NEAR(none.candidates.at(0).figures.at("train_tokens_per_s").value / 18583.0, 1.0, 0.005); // 18,655 before the element-wise kernels
    // A pinned MFU is the user's end-to-end measurement: attention is inside it, not priced apart again.
    const Plan pinned = run(R"({"stage": "pretrain", "model": {"params": 13011240960, "layers": 40, "hidden": 5120, "heads": 40,
        "intermediate": 20480, "vocab": 50368}, "precision": "bf16", "train": {"method": "full", "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1}, "seq_len": 32768, "micro_batch": 1,
        "global_batch": 24, "checkpointing": "full", "zero_stage": 3}, "hardware": {"devices": ["h100-sxm"], "count": 8},
        "assumptions": {"training_mfu": 0.41}})");
    const double all_at_mfu = 8 / ((6 * 13011240960.0 + 12.0 * 40 * 5120 * 32768) / (989.4e12 * 0.41));
    EXPECT_NEAR(pinned.candidates.at(0).figures.at("train_tokens_per_s").value / all_at_mfu, 1.0, 0.005);
}

// Megatron-Core's core attention is Transformer Engine's DotProductAttention, which on Hopper prefers cuDNN's fused
// attention over FlashAttention-2 (TE get_attention_backend: "Disabling FlashAttention to give FusedAttention preference
// on Hopper+"), about 1.6x FlashAttention-2's speed in the FlashAttention-3 paper's head-dimension-128 figures
// (efficiencies.json h100-cudnn-fused-attention, 0.35 x 1.614 = 0.565). The rule names the trainer (train.runtime), so
// it applies to megatron-core only; Blackwell has no attention rule. A 13B (gated, 40 x 5120, 4,096 tokens, global batch
// 64, no recomputation) on 8 x H100, by hand, per token per device: GEMMs 6 x 13,011,240,960 / (989.4e12 x
// 0.4125) = 1.912820e-4 s; attention 12 x 40 x 5120 x 4096 = 1.0066330e10 FLOPs at 0.565 x 989.4e12 = 1.800739e-5 s
// (at FlashAttention-2's 0.35: 2.906907e-5 s); element-wise 11,159,936 elements x 2 bytes / 3.35e12 = 6.662648e-6 s:
// 8 / 2.159520e-4 = 37,045 tokens/s under megatron-core, 8 / 2.270137e-4 = 35,240 under the default trainer.
TEST(TrainingSpeed, MegatronCoreAttentionOnHopperRunsCudnnsFusedKernels) {
    const std::string w = R"({"stage": "pretrain", "model": {"params": 13011240960, "layers": 40, "hidden": 5120, "heads": 40,
        "intermediate": 20480, "vocab": 50368}, "precision": "bf16", "train": {"method": "full", "runtime": "megatron-core",
        "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1}, "seq_len": 4096, "micro_batch": 1,
        "global_batch": 64, "checkpointing": "none", "zero_stage": 3}, "hardware": {"devices": ["h100-sxm"], "count": 8}})";
    const double gemm_s = 6 * 13011240960.0 / (989.4e12 * 0.4125), attention_flops = 12.0 * 40 * 5120 * 4096;
    const double elementwise_s = 11159936.0 * 2 / 3.35e12;
    const Plan p = run(w);
    const Candidate& mc = p.candidates.at(0);
    EXPECT_NEAR(mc.figures.at("train_tokens_per_s").value / (8 / (gemm_s + attention_flops / (989.4e12 * 0.565) + elementwise_s)), 1.0, 0.002);
    EXPECT_NEAR(mc.figures.at("train_tokens_per_s").value / 37045.0, 1.0, 0.002);
    EXPECT_NE(mc.figures.at("train_tokens_per_s").why.find("at 0.56 of the bf16 peak"), std::string::npos) << mc.figures.at("train_tokens_per_s").why;
    // The default trainer (a PyTorch stack calling FlashAttention-2) keeps h100-flash-attention-2's 0.35.
    std::string other = w;
    const std::string named = "\"runtime\": \"megatron-core\",";
    other.erase(other.find(named), named.size());
    EXPECT_NEAR(run(other).candidates.at(0).figures.at("train_tokens_per_s").value / 35240.0, 1.0, 0.002);
    // On a B200 no attention rule applies (attention runs at the MFU), so the trainer does not change the speed.
    std::string b200 = w, b200_other = other;
    b200.replace(b200.find("h100-sxm"), 8, "b200");
    b200_other.replace(b200_other.find("h100-sxm"), 8, "b200");
    EXPECT_DOUBLE_EQ(run(b200).candidates.at(0).figures.at("train_tokens_per_s").value,
                     run(b200_other).candidates.at(0).figures.at("train_tokens_per_s").value);
}

// FP8 speeds up the GEMMs only: the element-wise kernels (norms, residual adds, GELU, the loss) run at memory speed
// at any precision (performance.h training_elementwise_time_s) and so do the FP8 casts. llm-foundry's MPT-1B FP8
// at 512 tokens on 8 x H100 (scripts/train/benchmarking/README.md, 'H100 80GB FP8' table: 562,523 tokens/s; a
// calibration case of the casts' bytes). By hand, per token per device: GEMMs 6 x 1,312,804,864 / (1978.9e12 x
// 0.4125) = 9.6495e-6 s; attention 12 x 24 x 2048 x 512 / (989.4e12 x 0.35) = 8.721e-7 s (BF16, FlashAttention-2's
// share on Hopper); casts 24 x (6 x 2048 + 2 x 2048 + 2 x 8192) = 786,432 elements x 10.24 bytes / 3.35e12 =
// 2.4039e-6 s (the casts' refit since item 88; 9.48 bytes before: 2.2255e-6 s, 569,815 tokens/s); element-wise
// 24 x (22 x 2048 + 5 x 8192) + 2 x 50,368 = 2,165,120 elements x 2 bytes / 3.35e12 = 1.2926e-6 s:
// 8 / 1.42181e-5 = 562,665 tokens/s (+0.03 %). The same step in BF16 is 372,707: FP8 gains 1.51x, not 2x, and the
// kernels that do not speed up are a quarter of the FP8 step (6 % of the BF16 one).
TEST(TrainingSpeed, Fp8SpeedsUpTheGemmsNotTheElementwiseKernels) {
    const std::string w = R"({"stage": "pretrain", "model": {"params": 1312804864, "layers": 24, "hidden": 2048, "heads": 16,
        "intermediate": 8192, "mlp": "plain", "vocab": 50368}, "precision": "fp8", "train": {"method": "full", "seq_len": 512,
        "micro_batch": 56, "global_batch": 1792, "checkpointing": "none", "zero_stage": 3,
        "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1}}, "hardware": {"devices": ["h100-sxm"], "count": 8}})";
    const Plan p = run(w);
    const double fp8 = p.candidates.at(0).figures.at("train_tokens_per_s").value;
    EXPECT_NEAR(fp8 / 562665.0, 1.0, 0.005);
    EXPECT_NEAR(fp8 / 562523.0, 1.0, 0.25);
    std::string bf16_w = w;
    bf16_w.replace(bf16_w.find("\"fp8\""), 5, "\"bf16\"");
    const Plan bf16 = run(bf16_w);
    EXPECT_NEAR(bf16.candidates.at(0).figures.at("train_tokens_per_s").value / 372707.0, 1.0, 0.005);
}

// QLoRA dequantizes its frozen NF4 base to 16 bits on every use (bitsandbytes MatMul4Bit forward and backward,
// plus the recomputed forward: performance.h qlora_dequant_time_s), a cost per micro-batch that does not shrink
// with fewer tokens. LLaMA-Factory's QLoRA of Llama 2 7B on one A100 40GB at 2,048 tokens (a validation case,
// never fitted: 2,741 tokens/s). By hand: 6,738,415,616 parameters, 6,476,271,616 of them quantized (all but
// the 2 x 32000 x 4096 embeddings and head); dequantization 3 x 6.4763e9 x (4.127 / 8 + 2) / 1.555e12 =
// 0.031434 s. hf-peft's adapter timing (runtimes.json) adds its causal attention count and the host's time:
// 2048 x (4 x 6.7384e9 + 0.5 x 12 x 32 x 4096 x 2048) / (312e12 x 0.437) = 0.42906 s, + 32 x (94 x 2 + 114 + 3 x 7 x 3)
// + 40 = 11,720 host operations x 21.2 us = 0.248464 s per micro-batch:
// 2048 / (0.42906 + 0.031434 + 0.248464) = 2048 / 0.708958 = 2,889 tokens/s (+5.4 %; +54 % before the runtime timing).
TEST(TrainingSpeed, QloraPaysForDequantizingItsBaseOnEveryUse) {
    const std::string w = R"({"stage": "finetune", "model": "llama-2-7b", "precision": "bf16", "train": {"method": "qlora",
        "lora_rank": 8, "seq_len": 2048, "micro_batch": 1, "checkpointing": "full", "runtime": "hf-peft"},
        "hardware": {"devices": ["a100-40gb"], "count": 1}})";
    const Plan p = run(w);
    const Candidate& c = p.candidates.at(0);
    EXPECT_NEAR(c.figures.at("train_tokens_per_s").value / 2888.7, 1.0, 0.003);
    EXPECT_NE(c.figures.at("train_tokens_per_s").why.find("dequantizing the 4.127-bit base 3 times"), std::string::npos)
        << c.figures.at("train_tokens_per_s").why;
    // LoRA keeps a 16-bit base: nothing to dequantize on the device or the host, 32 x (94 x 2 + 114) + 40 = 9,704
    // operations x 21.2 us = 0.205725 s: 2048 / (0.42906 + 0.205725) = 3,226 tokens/s.
    std::string lora = w;
    lora.replace(lora.find("qlora"), 5, "lora");
    EXPECT_NEAR(run(lora).candidates.at(0).figures.at("train_tokens_per_s").value / 3226.3, 1.0, 0.003);
}

// An adapter fine-tune under a runtime with its own timing (runtimes.json causal_attention_flops_ratio and
// adapter_host_ops_*, counted from the trainers' code, not fitted) counts causal attention at half (FlashAttention-2
// skips fully masked blocks, Dao 2023 section 3.1.1) and pays the host's issue time per micro-batch.
// LLaMA-Factory's FA2 row at 16,384 tokens (3,542 tokens/s). By hand:
// 16384 x (4 x 6.7384e9 + 0.5 x 12 x 32 x 4096 x 16384) / (312e12 x 0.437) = 16384 x 3.99382e10 / 1.36344e14
// = 4.78727 s, + 0.031434 s dequantization + 11,720 host operations x 21.2 us = 0.248464 s: 16384 / 5.06717 =
// 3,233 tokens/s (-8.7 %). Counted in full with no per-step time it was 2,573 (-27 %). Unsloth+FA2 at 8,192
// (3,632): 8192 x (2.69537e10 + 0.5 x 12 x 32 x 4096 x 8192) / 1.36344e14 = 2.00655 s + 0.031434 + 32 x (57 x 2 +
// 132 + 3 x 7 x 3) + 30 = 9,918 operations x 21.2 us = 0.210262 s: 8192 / 2.24825 = 3,644.
TEST(TrainingSpeed, AdapterRuntimeCountsCausalAttentionAndAFixedStepTime) {
    const std::string w = R"({"stage": "finetune", "model": "llama-2-7b", "precision": "bf16", "train": {"method": "qlora",
        "lora_rank": 8, "seq_len": 16384, "micro_batch": 1, "checkpointing": "full", "runtime": "hf-peft"},
        "hardware": {"devices": ["a100-40gb"], "count": 1}})";
    const Candidate c = run(w).candidates.at(0);
    EXPECT_NEAR(c.figures.at("train_tokens_per_s").value / 3233.4, 1.0, 0.003);
    EXPECT_NE(c.figures.at("train_tokens_per_s").why.find("the host issuing 11720 operations per micro-batch x 21.2 us (hf-peft"), std::string::npos)
        << c.figures.at("train_tokens_per_s").why;
    std::string unsloth = w;
    unsloth.replace(unsloth.find("16384"), 5, "8192");
    unsloth.replace(unsloth.find("hf-peft"), 7, "unsloth");
    EXPECT_NEAR(run(unsloth).candidates.at(0).figures.at("train_tokens_per_s").value / 3643.7, 1.0, 0.003);
}

// Full training under the same runtime keeps the MFU's full attention count and no per-step time: the MFUs
// (training_mfu, finetune_mfu) are measured that way. hf-peft full fine-tune of the same model at 2,048 tokens,
// by hand: 2048 x (6 x 6.7384e9 + 12 x 32 x 4096 x 2048) / (312e12 x 0.437) = 2048 x 4.36534e10 / 1.36344e14
// = 0.65572 s: 3,123 tokens/s.
TEST(TrainingSpeed, FullTrainingIgnoresTheAdapterTiming) {
    const Plan p = run(R"({"stage": "finetune", "model": "llama-2-7b", "precision": "bf16", "train": {"method": "full",
        "seq_len": 2048, "micro_batch": 1, "checkpointing": "full", "runtime": "hf-peft"},
        "hardware": {"devices": ["a100-80gb"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    EXPECT_NEAR(c.figures.at("train_tokens_per_s").value / 3123.3, 1.0, 0.003);
    EXPECT_EQ(c.figures.at("train_tokens_per_s").why.find("per-step overhead"), std::string::npos) << c.figures.at("train_tokens_per_s").why;
}

// FP8 doubles the GEMMs' peak but not the memory-bound casts around them (performance.h fp8_cast_time_s, 13.8
// bytes per operand element fitted on the two FP8 calibration cases). llm-foundry's MPT-3B (plain GELU MLP,
// llm-foundry ffn.py MPTMLP) FP8 on 8 x H100 at
// 2k tokens (a validation case, never fitted) runs 244,692 tokens/s; at the FP8 peak and the MFU alone the
// plan said 362,123 (+48 %).
TEST(TrainingSpeed, Fp8StepsPayForTheirCasts) {
    const Plan p = run(R"({"stage": "pretrain", "model": {"params": 2651837440, "layers": 32, "hidden": 2560, "heads": 20,
        "intermediate": 10240, "mlp": "plain", "vocab": 50368}, "precision": "fp8", "train": {"method": "full", "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1}, "seq_len": 2048, "micro_batch": 10,
        "global_batch": 480, "checkpointing": "none", "zero_stage": 3}, "hardware": {"devices": ["h100-sxm"], "count": 8}})");
    const Candidate& c = p.candidates.at(0);
    EXPECT_NEAR(c.figures.at("train_tokens_per_s").value / 244692.0, 1.0, 0.25);
    EXPECT_NE(c.figures.at("train_tokens_per_s").why.find("FP8 casts"), std::string::npos) << c.figures.at("train_tokens_per_s").why;
}

// [SECTION] tensor parallelism at one sequence per step (issue 9) ----------------------------------------

// AMD Instinct performance results (ROCm hub, "Latency Measurements", batch size 1): Llama 3.1 70B FP8 on
// 8 x MI300X (vLLM, TP 8), 128 in / 2048 out in 15.882 s, 129 tokens/s. Each decode step pays two
// all-reduces per layer, 160 x 33.7 us = 5.4 ms of latency (nccl-tests), more than the 8.8 GB per GPU
// read at 5.3 TB/s. Without those latencies the plan said 325 tokens/s (2.5x the measurement); with them it
// sits within the decode tolerance (25 %).
TEST(TensorParallel, BatchOneDecodeOnEightGpusPaysTheAllReduceLatency) {
    const Plan p = run(R"({"stage": "serve", "model": "Llama-3.1-70B", "precision": "fp8", "serve": {"context_tokens": 2176,
        "prompt_tokens": 128, "output_tokens": 2048, "concurrent_users": 1}, "hardware": {"devices": ["MI300X"], "count": 8}})");
    const Candidate& c = p.candidates.at(0);
    EXPECT_EQ(c.layout.tensor_parallel, 8);
    EXPECT_NEAR(c.figures.at("decode_tokens_per_s_per_user").value / 129.0, 1.0, 0.25);
    EXPECT_GE(c.phases.at(0).communication_s, 160 * 33.7e-6 * 0.999);
}

// MI300X Infinity Fabric at its link rate (item 119): AMD's product page gives 128 GB/s per link, and in the 8-GPU
// platform seven links join each MI300X to its peers, 896 GB/s bidirectional, 448e9 B/s each way, x 0.82
// (interconnect_efficiency) = 367.36e9 B/s of ring bus bandwidth. AMD's ROCm hub row Llama 3.1 70B FP8 at 128/2048
// with 3,200 sequences at TP 8: each decode step's 160 all-reduces (2 a layer x 80) carry 3,200 x 8,192 x 2 bytes =
// 52,428,800 bytes, by hand 33.7 us + 1.75 x 52,428,800 / 367.36e9 = 33.7 + 249.756 = 283.456 us each, 45.353 ms a
// step (before, latency only: 160 x 33.7 us = 5.392 ms).
TEST(TensorParallel, Mi300xAllReducesAtLargeBatchPayTheInfinityFabricRate) {
    const Plan p = run(R"({"stage": "batch", "model": "llama-3.1-70b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
        "serve": {"context_tokens": 2176, "prompt_tokens": 128, "output_tokens": 2048, "concurrent_users": 3200, "tensor_parallel": 8},
        "hardware": {"devices": ["mi300x"], "count": 8}})");
    const Candidate& c = p.candidates.at(0);
    EXPECT_EQ(c.layout.tensor_parallel, 8);
    EXPECT_NEAR(c.phases.at(0).communication_s * 1e3, 45.353, 0.005);
}

// MI325X and MI355X at their Infinity Fabric rates (item 121): AMD's ROCm architecture comparison gives 'P2P ring
// aggregate BW' 896 GB/s (MI325X, 32 Gbps links as the MI300X) and 1,075.2 GB/s (MI355X, 38.4 Gbps links: 7 x 16 lanes
// x 38.4 / 8 x 2). The same 3,200-sequence TP-8 step as above, by hand: MI325X as the MI300X, 45.353 ms; MI355X
// 537.6e9 x 0.82 = 440.832e9 B/s each way, 33.7 us + 1.75 x 52,428,800 / 440.832e9 = 33.7 + 208.130 = 241.830 us an
// all-reduce, 160 of them 38.693 ms (before, latency only on both: 160 x 33.7 us = 5.392 ms).
TEST(TensorParallel, Mi325xAndMi355xAllReducesPayTheirInfinityFabricRates) {
    auto comm_ms = [](const char* dev) {
        const Plan p = run(std::string(R"({"stage": "batch", "model": "llama-3.1-70b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
            "serve": {"context_tokens": 2176, "prompt_tokens": 128, "output_tokens": 2048, "concurrent_users": 3200, "tensor_parallel": 8},
            "hardware": {"devices": [")") + dev + R"("], "count": 8}})");
        const Candidate& c = p.candidates.at(0);
        EXPECT_EQ(c.layout.tensor_parallel, 8) << dev;
        return c.phases.at(0).communication_s * 1e3;
    };
    EXPECT_NEAR(comm_ms("mi325x"), 45.353, 0.005);
    EXPECT_NEAR(comm_ms("mi355x"), 38.693, 0.005);
}

// gpt-fast's README (commit c5d3454, 2023-12-16): Llama-2-7B bf16 at tensor parallel 8 on 8 A100-80GB of a hybrid
// cube mesh, 'ENABLE_INTRA_NODE_COMM=1 torchrun ...', 328.43 tokens/s. Under serve.runtime gpt-fast-intra-node each
// of the step's 64 all-reduces (2 a layer x 32) of one token's hidden state (8,192 bytes) is PyTorch's hybrid-cube-mesh
// kernel, by hand 6.05 + 4 x 1.975 us + 4 x 8,192 / (300 GB/s x 0.82) = 14.083 us, 0.9013 ms a step, where NCCL's
// ring (the default runtime) pays 6.05 + 14 x 1.975 + 1.75 x 8,192 / 246e9 = 33.758 us, 2.1605 ms. gpt-fast's tp.py
// also leaves the output head whole on every rank (replicates_output_head): each device reads 32,000 x 4,096 x 2 bytes
// = 262,144,000 where the even split gives an eighth, 229,376,000 bytes more a step (and as many more GEMV FLOPs,
// 2 x 131,072,000 x 7 / 8), and holds them. In fp16 IntraNodeComm hands the all-reduce back to NCCL.
TEST(TensorParallel, GptFastIntraNodeCommAllReduceOnAHybridCubeMesh) {
    const std::string base = R"({"stage": "serve", "model": "llama-2-7b", "precision": "bf16", "serve": {"context_tokens": 205,
        "prompt_tokens": 5, "output_tokens": 200, "concurrent_users": 1, "tensor_parallel": 8)";
    const Plan ring = run(base + R"(}, "hardware": {"devices": ["a100-80gb"], "count": 8}})");
    const Plan hcm = run(base + R"(, "runtime": "gpt-fast-intra-node", "scale_up_topology": "hybrid_cube_mesh"}, "hardware": {"devices": ["a100-80gb"], "count": 8}})");
    const Plan fc = run(base + R"(, "runtime": "gpt-fast-intra-node"}, "hardware": {"devices": ["a100-80gb"], "count": 8}})");
    const Phase& r = ring.candidates.at(0).phases.at(0);
    const Phase& h = hcm.candidates.at(0).phases.at(0);
    EXPECT_NEAR(r.communication_s * 1e3, 2.1605, 0.0005);
    EXPECT_NEAR(h.communication_s * 1e3, 0.9013, 0.0005);
    // Fully connected (the catalog's NVSwitch board): the one-shot kernel, 6.05 + 2 x 1.975 + 7 x 8,192 / 246e9 = 10.233 us.
    EXPECT_NEAR(fc.candidates.at(0).phases.at(0).communication_s * 1e3, 64 * 10.233e-3, 0.0005);
    EXPECT_NEAR(h.roofline.bytes - r.roofline.bytes, 229376000.0, 1.0);
    EXPECT_NEAR(h.roofline.flops - r.roofline.flops, 229376000.0, 1.0);
    EXPECT_NEAR(hcm.candidates.at(0).memory.weights_bytes - ring.candidates.at(0).memory.weights_bytes, 229376000.0, 1.0);
    bool noted = false;
    for (const auto& n : hcm.candidates.at(0).notes) noted = noted || n.find("hybrid-cube-mesh kernel") != std::string::npos;
    EXPECT_TRUE(noted);
    const Plan fp16 = run(R"({"stage": "serve", "model": "llama-2-7b", "precision": "fp16", "serve": {"context_tokens": 205,
        "prompt_tokens": 5, "output_tokens": 200, "concurrent_users": 1, "tensor_parallel": 8, "runtime": "gpt-fast-intra-node",
        "scale_up_topology": "hybrid_cube_mesh"}, "hardware": {"devices": ["a100-80gb"], "count": 8}})");
    EXPECT_NEAR(fp16.candidates.at(0).phases.at(0).communication_s * 1e3, 2.1605, 0.0005); // bf16 only: NCCL
}

// [SECTION] what datasheets do not tell (issue 9) ---------------------------------------------------------

// Jetson AGX Thor's datasheet gives FP4 (sparse) compute and 273 GB/s of LPDDR5X, no BF16/FP8 peak. Decode at
// one sequence is bound by bandwidth, so the plan keeps the bandwidth roofline and says the compute side is
// unknown: Llama-3.1-8B at FP8 holds 9.08 GB (embeddings and head at 16 bits), of which a step reads all but
// the untied 128,256 x 4,096 input table at 2 bytes (one row of it): 8.03 GB, so at most
// 273e9 x 0.78 / 8.03e9 = 26.5 tokens/s before the per-step overhead. Prefill (time to first
// token) needs the compute peak and is left out. Before issue 9 every speed figure was left out.
TEST(Datasheets, FourBitOnlyDatasheetKeepsTheBandwidthRooflineForDecode) {
    const Plan p = run(R"({"stage": "edge", "model": "Llama-3.1-8B", "precision": "fp8", "serve": {"context_tokens": 4096},
        "hardware": {"devices": ["jetson-agx-thor"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    ASSERT_TRUE(c.figures.count("decode_tokens_per_s_per_user"));
    const Figure& f = c.figures.at("decode_tokens_per_s_per_user");
    const double read_bytes = 9.08e9 - 128256.0 * 4096 * 2 + 4096.0 * 2;
    EXPECT_LE(f.value, 273e9 * 0.78 / read_bytes);
    EXPECT_NEAR(f.value / (273e9 * 0.78 / read_bytes), 1.0, 0.05);
    EXPECT_NE(f.why.find("compute side is unknown"), std::string::npos);
    EXPECT_FALSE(c.figures.count("ttft_s"));
    EXPECT_FALSE(c.figures.count("throughput_tokens_per_s"));
}

// Lesson 004 names Cerebras as an SRAM decode tier; the CS-3 trains by streaming weights from external
// MemoryX (its catalog note) and its 125 PFLOPS is quoted with sparsity, so training it like a dense GPU
// gave 8 x CS-3 a 7B fine-tune at 4.8 million tokens/s with a 3.4 ms step. No number is better than that one.
TEST(Datasheets, WeightStreamingSystemsGiveNoTrainingSpeed) {
    const Plan p = run(R"({"stage": "finetune", "model": "Llama-2-7B", "precision": "bf16", "train": {"method": "full"},
        "hardware": {"devices": ["cerebras-cs3"], "count": 8}})");
    const Candidate& c = p.candidates.at(0);
    EXPECT_FALSE(c.figures.count("train_tokens_per_s"));
    EXPECT_FALSE(c.figures.count("step_time_s"));
    EXPECT_NE(c.regime_why.find("not modelled"), std::string::npos);
}

// Lesson 004 worked example 2: 70B at FP8 for 200 concurrent users at 8k holds about 270 GB of KV
// cache: more than one GPU, and an 8-GPU H200 server holds it.
TEST(Lessons, BankNeedsSeveralGpusAndOneH200ServerHoldsIt) {
    const Plan p = run(example("bank-70b-fp8"));
    const Candidate* h200 = find(p, "h200");
    ASSERT_NE(h200, nullptr);
    EXPECT_TRUE(h200->fits);
    EXPECT_GT(h200->count, 1);
    EXPECT_LE(h200->count, 8);
    const double kv_total = h200->memory.kv_cache_bytes * std::min(h200->layout.tensor_parallel, 8) * h200->layout.pipeline_parallel;
    EXPECT_NEAR(kv_total / 270e9, 1.0, 0.02);
}

// Lesson 004 worked example 2 (coding agent): 32B at FP8 fits one GPU with its KV budget.
TEST(Lessons, CodingAgentFitsOneGpuAtFp8) {
    const Plan p = run(example("coding-agent-32b"));
    for (const char* dev : {"h100-sxm", "h200", "b200", "mi355x"}) {
        const Candidate* c = find(p, dev);
        ASSERT_NE(c, nullptr) << dev;
        EXPECT_TRUE(c->fits) << dev;
        EXPECT_EQ(c->count, 1) << dev;
    }
}

// Lesson 003 team: live chat on a 7B model for 20 users at 8k context, first token within two seconds,
// on one GPU.
TEST(Lessons, LiveChatSevenBillionMeetsTwoSecondsOnOneGpu) {
    const Plan p = run(example("team-live-chat"));
    for (const char* dev : {"l40s", "a100-80gb", "h100-sxm"}) {
        const Candidate* c = find(p, dev);
        ASSERT_NE(c, nullptr) << dev;
        EXPECT_TRUE(c->fits) << dev;
        EXPECT_EQ(c->count, 1) << dev;
        EXPECT_LT(c->figures.at("ttft_s").high, 2.0) << dev;
        EXPECT_GE(c->figures.at("max_concurrent_users").value, 20) << dev;
    }
}

// Lesson 003 team: 50,000 chunks of nightly embeddings finish well inside two hours on one GPU.
TEST(Lessons, NightlyEmbeddingsFinishInsideTheWindow) {
    const Plan p = run(example("team-nightly-embeddings"));
    for (const char* dev : {"t4", "l4", "a10", "rtx-4090"}) {
        const Candidate* c = find(p, dev);
        ASSERT_NE(c, nullptr) << dev;
        EXPECT_TRUE(c->fits) << dev;
        EXPECT_LT(c->figures.at("window_used_ratio").high, 0.5) << dev;
    }
}

// Lesson 003: at 35 % utilization, chat p95 above five seconds when long summaries share the queue;
// separating the traffic brings chat back under two seconds. One H200 serving Llama-3.1-8B: chat at
// 0.6 requests/s (1,500-token prompts) and document summaries at 0.02/s (90,000-token prompts).
TEST(Lessons, MixedTrafficTailAndTheSplitThatFixesIt) {
    const std::string head = R"({"stage": "serve", "model": "Llama-3.1-8B", "precision": "bf16",
        "hardware": {"devices": ["H200"], "count": 1}, "serve": {"context_tokens": 100000, "prompt_tokens": 1500,
        "output_tokens": 300, "concurrent_users": 8, "traffic": [
        {"name": "chat", "requests_per_s": 0.6, "prompt_tokens": 1500, "output_tokens": 300})";
    const Plan mixed = run(head + R"(, {"name": "summaries", "requests_per_s": 0.02, "prompt_tokens": 90000, "output_tokens": 1000}]}})");
    const Candidate& c = mixed.candidates.at(0);
    EXPECT_NEAR(c.figures.at("utilization_ratio").value, 0.35, 0.05);
    EXPECT_GT(c.figures.at("p95_ttft_s").value, 5.0);
    EXPECT_GT(c.figures.at("p95_ttft_s").low, 5.0);
    const Plan chat = run(head + R"(]}})");
    EXPECT_LT(chat.candidates.at(0).figures.at("p95_ttft_s").high, 2.0);
}

// [SECTION] calibration: llama.cpp decode on Apple Silicon (ggml-org/llama.cpp discussion #4167,
// LLaMA 7B, tg128, build 8e672ef). Batch-1 decode is bandwidth-bound: tokens/s ~ bandwidth / bytes.
TEST(Calibration, LlamaCppDecodeOnAppleSiliconFallsInTheBand) {
    struct Row { const char* device; const char* format; double measured_tokens_per_s; };
    const Row rows[] = {
        {"apple-m2-ultra", "bf16", 41.02}, {"apple-m2-ultra", "q4_0", 94.27},
        {"apple-m4-max", "bf16", 31.64},   {"apple-m4-max", "q4_0", 83.06},
        {"apple-m4-pro", "bf16", 17.18},   {"apple-m4-pro", "q4_0", 50.74},
        {"apple-m4", "bf16", 7.43},        {"apple-m4", "q4_0", 24.11},
    };
    for (const auto& r : rows) {
        const Plan p = run(std::string(R"({"stage": "edge", "model": "Llama-2-7B", "precision": {"weights": ")") + r.format +
                           R"(", "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 256, "prompt_tokens": 64, "output_tokens": 128},
                           "hardware": {"devices": [")" + r.device + R"("], "count": 1}})");
        const Candidate& c = p.candidates.at(0);
        ASSERT_TRUE(c.figures.count("decode_tokens_per_s_per_user")) << r.device;
        const Figure& f = c.figures.at("decode_tokens_per_s_per_user");
        EXPECT_LE(f.low, r.measured_tokens_per_s) << r.device << " " << r.format;
        EXPECT_GE(f.high, r.measured_tokens_per_s) << r.device << " " << r.format;
        if (std::string(r.format) == "bf16") { // F16 decode reads 13.5 GB a token: the typical value is within 25 %
            EXPECT_NEAR(f.value / r.measured_tokens_per_s, 1.0, 0.25) << r.device;
        }
    }
}

// [SECTION] properties over random workloads --------------------------------------------------------

namespace {

std::string random_serve(std::mt19937& rng, double ctx, double users) {
    const char* models[] = {"Llama-3.1-8B", "Qwen2.5-32B", "Mixtral-8x7B", "Mistral-7B-Instruct", "gemma-2-9b", "DeepSeek-V3"};
    const char* devices[] = {"H100 SXM", "RTX 4090", "MI300X", "M4 Max", "TPU v5e", "L4"};
    std::uniform_int_distribution<int> m(0, 5), d(0, 5);
    return std::string(R"({"stage": "serve", "model": ")") + models[m(rng)] + R"(", "precision": "fp8",
        "serve": {"context_tokens": )" + std::to_string(ctx) + R"(, "concurrent_users": )" + std::to_string(users) +
           R"(}, "hardware": {"devices": [")" + devices[d(rng)] + R"("], "count": 2}})";
}

void expect_sane(const Plan& p) {
    for (const auto& c : p.candidates) {
        const auto& m = c.memory;
        double sum = 0;
        for (const auto& t : m.terms) sum += t.bytes;
        EXPECT_NEAR(sum, m.total_bytes, 1e-6 * m.total_bytes + 1) << c.device;
        EXPECT_DOUBLE_EQ(m.total_bytes, m.weights_bytes + m.kv_cache_bytes + m.activations_bytes + m.gradients_bytes +
                                            m.optimizer_bytes + m.overhead_bytes);
        EXPECT_LE(m.total_low_bytes, m.total_bytes);
        EXPECT_GE(m.total_high_bytes, m.total_bytes);
        for (const auto& [k, f] : c.figures) {
            EXPECT_TRUE(std::isfinite(f.value) || k.find("p95") != std::string::npos || k.find("p50") != std::string::npos) << k;
            EXPECT_FALSE(std::isnan(f.value) || std::isnan(f.low) || std::isnan(f.high)) << k;
            EXPECT_LE(f.low, f.value) << c.device << " " << k;
            EXPECT_GE(f.high, f.value) << c.device << " " << k;
        }
    }
}

} // namespace

TEST(Properties, MemoryAndTimeGrowWithContextAndUsers) {
    std::mt19937 rng(20261129);
    for (int i = 0; i < 40; ++i) {
        std::mt19937 same = rng;
        const double ctx = 1024 << (i % 5), users = 1 + (i % 7) * 3;
        const Plan base = run(random_serve(rng, ctx, users));
        std::mt19937 again = same;
        const Plan more_ctx = run(random_serve(again, ctx * 2, users));
        again = same;
        const Plan more_users = run(random_serve(again, ctx, users * 2));
        expect_sane(base);
        const auto& b = base.candidates.at(0);
        for (const Plan* bigger : {&more_ctx, &more_users}) {
            const auto& x = bigger->candidates.at(0);
            EXPECT_GE(x.memory.kv_cache_bytes, b.memory.kv_cache_bytes);
            EXPECT_GE(x.memory.total_bytes, b.memory.total_bytes);
            if (b.fits && x.fits && b.figures.count("decode_step_s") && x.figures.count("decode_step_s")) {
                EXPECT_GE(x.figures.at("decode_step_s").value, b.figures.at("decode_step_s").value * (1 - 1e-9));
            }
        }
    }
}

// At a fixed recomputation: left to the search, a larger model that no longer fits without recomputation is planned
// with it and can need less memory than a smaller one planned without (70B on 64 H100 takes full recomputation at
// 25 GB where 34B keeps every activation at 76 GB).
TEST(Properties, MemoryAndTimeGrowWithParameters) {
    double last_mem = 0, last_step = 0;
    for (double params : {1e9, 3e9, 7e9, 13e9, 34e9, 70e9}) {
        const Plan p = run(R"({"stage": "finetune", "model": {"params": )" + std::to_string(params) +
                           R"(}, "train": {"method": "full", "zero_stage": 3, "checkpointing": "full"}, "hardware": {"devices": ["H100 SXM"], "count": 64}})");
        expect_sane(p);
        const auto& c = p.candidates.at(0);
        EXPECT_GE(c.memory.total_bytes, last_mem);
        EXPECT_GE(c.figures.at("step_time_s").value, last_step);
        last_mem = c.memory.total_bytes;
        last_step = c.figures.at("step_time_s").value;
    }
}

TEST(Properties, HigherZeroStageNeverRaisesPerDeviceMemory) {
    double last = INFINITY;
    for (int z = 0; z <= 3; ++z) {
        const Plan p = run(R"({"stage": "finetune", "model": "Llama-3.1-8B", "train": {"method": "full", "zero_stage": )" +
                           std::to_string(z) + R"(}, "hardware": {"devices": ["A100 80GB"], "count": 8}})");
        const double total = p.candidates.at(0).memory.total_bytes;
        EXPECT_LE(total, last) << "ZeRO-" << z;
        last = total;
    }
}

TEST(Properties, EveryExampleGivesSaneFiniteJson) {
    for (const char* name : {"3b-finetune-rtx3090", "70b-fp16-on-80gb", "7b-full-finetune-adam", "7b-weights-bf16", "bank-70b-fp8",
                             "coding-agent-32b", "solo-researcher-buy-or-rent", "support-ticket-finetune", "team-live-chat",
                             "team-nightly-embeddings"}) {
        const Plan p = run(example(name));
        EXPECT_FALSE(p.candidates.empty()) << name;
        expect_sane(p);
        // Every figure in the JSON is a number (JSON has no NaN or infinity; only an unbounded queue wait is null).
        const auto doc = nlohmann::json::parse(to_json(p));
        for (const auto& c : doc["plan"]["candidates"])
            for (const auto& [key, f] : c.items())
                if (f.is_object() && f.contains("label")) {
                    for (const char* k : {"value", "low", "high"})
                        EXPECT_TRUE(f[k].is_number() || (f[k].is_null() && key.find("ttft") != std::string::npos)) << name << " " << key;
                }
    }
}

TEST(Plan, BadWorkloadGivesIssuesNotAPlan) {
    const Plan p = plan_from_json(R"({"stage": "serve", "model": "Llama-3.1-8B", "assumptions": {"training_mfu": 3}})", catalog());
    ASSERT_EQ(p.issues.size(), 1u);
    EXPECT_EQ(p.issues[0].path, "assumptions.training_mfu");
    EXPECT_EQ(p.issues[0].message, "must be a ratio from 0.001 to 1, got 3");
    EXPECT_TRUE(p.candidates.empty());
}

TEST(Plan, AssumptionOverridePinsTheBand) {
    const Plan p = run(R"({"stage": "serve", "model": "Llama-3.1-8B", "hardware": {"devices": ["H100 SXM"], "count": 1},
        "assumptions": {"decode_bandwidth_efficiency": 0.5, "decode_compute_efficiency": 0.5, "decode_step_overhead_s": 0}})");
    const Figure& f = p.candidates.at(0).figures.at("decode_tokens_per_s_per_user");
    EXPECT_DOUBLE_EQ(f.low, f.value);
    EXPECT_DOUBLE_EQ(f.high, f.value);
}

} // namespace hwplan

// [SECTION] decisions on the lessons' scenarios (issue 5): the outcome follows from the lessons'
// reasoning, the numbers from the model.
namespace hwplan {

namespace {
Plan scenario(const std::string& id) {
    const Scenario* s = find_scenario(catalog(), id);
    EXPECT_NE(s, nullptr) << id;
    return s ? run(s->workload_json) : Plan{};
}
} // namespace

TEST(Scenarios, EveryScenarioPlansWithCandidatesAndOptions) {
    EXPECT_GE(catalog().scenarios.size(), 16u);
    for (const auto& s : catalog().scenarios) {
        if (s.workload_json.empty()) continue; // team scenarios: card_test.cpp
        const Plan p = run(s.workload_json);
        EXPECT_FALSE(p.candidates.empty()) << s.id;
        EXPECT_FALSE(p.options.empty()) << s.id;
        EXPECT_FALSE(p.recommendation.summary.empty()) << s.id;
        expect_sane(p);
    }
}

// Lesson 001 exercise 2: at 2-3 jobs a week of 4-6 hours, renting an A100 beats buying one: the purchase
// would take longer than its 5-year amortization to pay for itself.
TEST(Scenarios, SoloResearcherShouldRent) {
    const Plan p = scenario("solo-researcher-buy-or-rent");
    ASSERT_TRUE(p.recommendation.found);
    EXPECT_EQ(p.recommendation.option.kind, "rent");
    const Candidate* a100 = find(p, "a100-80gb");
    ASSERT_NE(a100, nullptr);
    ASSERT_TRUE(a100->figures.count("breakeven_months"));
    EXPECT_GT(a100->figures.at("breakeven_months").value, 60);
}

// Lesson 001 exercise 1 and lesson 003's quiz: nothing fits, and the lever names the technique.
TEST(Scenarios, MisfitsNameTheTechniqueThatMakesThemFit) {
    const Plan ft = scenario("3b-finetune-rtx3090");
    EXPECT_FALSE(ft.recommendation.found);
    EXPECT_NE(ft.recommendation.lever.find("LoRA"), std::string::npos) << ft.recommendation.lever;
    const Plan serve = scenario("70b-fp16-on-80gb");
    EXPECT_FALSE(serve.recommendation.found);
    EXPECT_NE(serve.recommendation.lever.find("quantize"), std::string::npos) << serve.recommendation.lever;
}

// Lesson 004 example 1: one 24-32 GB-class card does the QLoRA fine-tune; do not rent a node.
TEST(Scenarios, SupportTicketFineTuneOnOneCard) {
    const Plan p = scenario("support-ticket-finetune");
    ASSERT_TRUE(p.recommendation.found);
    EXPECT_EQ(p.recommendation.option.count, 1);
}

// Lesson 004 example 2: servers, not a rack: "One 8-GPU H200 server (1.1 TB) holds this with room to spare ...;
// two give redundancy." Each replica inside one 8-GPU server; the scenario asks N+1, so two servers are bought.
TEST(Scenarios, BankNeedsAServerNotARack) {
    const Plan p = scenario("bank-70b-fp8");
    ASSERT_TRUE(p.recommendation.found);
    EXPECT_GT(p.recommendation.option.count, 1);
    EXPECT_LE(p.recommendation.option.count, 16);
    EXPECT_NE(p.recommendation.headline.find("(2 x 8-device servers"), std::string::npos) << p.recommendation.headline;
    EXPECT_EQ(p.recommendation.option.device.find("nvl72"), std::string::npos);
}

// Lesson 003: the chat endpoint on one GPU.
TEST(Scenarios, LiveChatOnOneGpu) {
    const Plan p = scenario("team-live-chat");
    ASSERT_TRUE(p.recommendation.found);
    EXPECT_EQ(p.recommendation.option.count, 1);
}

// Lesson 003: the 35 % utilization case. Sharing the replica misses the two-second target; the plan
// says that separating the traffic fixes it, with the chat-alone tail.
TEST(Scenarios, ChatTailPointsAtIsolationNotABiggerGpu) {
    const Plan p = scenario("chat-35-percent-utilization");
    const Candidate* h200 = find(p, "h200");
    ASSERT_NE(h200, nullptr);
    EXPECT_GT(h200->figures.at("p95_ttft_s").value, 5.0);
    EXPECT_LT(h200->figures.at("isolated_p95_ttft_s").value, 2.0);
    bool isolation = false;
    for (const auto& r : p.recommendation.reasons) isolation = isolation || r.rfind("isolation:", 0) == 0;
    EXPECT_TRUE(isolation);
    for (const auto& o : p.options)
        if (o.device == "h200") {
            EXPECT_FALSE(o.feasible);
        }
}

// A hosted API is priced per request in the same unit: Groq's Llama-3.1-8B at $0.05/M input and
// $0.08/M output, 1,500 prompt + 300 output tokens = $0.000099 per request = $0.33 per million output tokens.
TEST(Scenarios, ManagedApiIsAnOptionInTheSameUnit) {
    const Plan p = scenario("chat-35-percent-utilization");
    const Option* api = nullptr;
    for (const auto& o : p.options)
        if (o.kind == "api") api = &o;
    ASSERT_NE(api, nullptr);
    EXPECT_NEAR(api->cost.value, (1500 * 0.05 + 300 * 0.08) / 300.0, 1e-9);
    EXPECT_TRUE(api->feasible);
}

} // namespace hwplan

namespace hwplan {

// Issue 5: for the inputs the user left out, the plan says how the recommendation moves across their
// plausible range (context 2k-32k, 1 to 10x the users), and it moves the way the memory model says:
// ten times the users of a 70B FP8 endpoint cannot be the same single small device.
TEST(Sensitivity, MissingInputsShowTheirEffect) {
    const Plan p = run(R"({"stage": "serve", "model": "Llama-3.1-70B", "precision": "fp8", "serve": {"concurrent_users": 50},
        "hardware": {"devices": ["H100 SXM", "H200"]}})");
    // concurrent_users was given: of the workload's inputs only the context is probed (the decision inputs left out
    // follow it: DecisionInputsLeftOutSayWhatTheOtherChoiceAnswers)
    ASSERT_FALSE(p.sensitivity.empty());
    EXPECT_EQ(std::count_if(p.sensitivity.begin(), p.sensitivity.end(), [](const std::string& l) { return l.rfind("serve.", 0) == 0; }), 1);
    EXPECT_EQ(p.sensitivity[0].rfind("serve.context_tokens: at 2048 tokens: ", 0), 0u) << p.sensitivity[0];
    EXPECT_NE(p.sensitivity[0].find("at 32768 tokens: "), std::string::npos);
    const Plan given_all = run(R"({"stage": "serve", "model": "Llama-3.1-70B", "precision": "fp8",
        "serve": {"concurrent_users": 50, "context_tokens": 8192}, "hardware": {"devices": ["H100 SXM"]},
        "decision": {"stack": "pytorch-cuda", "priority": "unit_cost"}})");
    EXPECT_TRUE(given_all.sensitivity.empty());
}

// Issue 19 ("sensitivity filled wherever an assumption was missing"): a plan that assumed the team's stack
// (pytorch-cuda, lesson 003) or the ranking (lowest cost) says what the other choice answers. The reference is the
// same scenario planned whole with that input given (every catalog device, no pruning), its recommendation by name:
// the probe re-plans only the devices the choice could make the answer (devices_that_may_answer), so this also checks
// that nothing it leaves out could have won. Lesson 004 ranks cost first for the bank; every stack open, a cheaper
// accelerator family competes there, and latency first moves the live chat off the cheapest card.
TEST(Sensitivity, DecisionInputsLeftOutSayWhatTheOtherChoiceAnswers) {
    struct Row { const char* scenario; const char* key; const char* field; const char* value; };
    for (const Row& r : {Row{"bank-70b-fp8", "decision.stack", "stack", "any"}, Row{"7b-full-finetune-adam", "decision.stack", "stack", "any"},
                         Row{"team-live-chat", "decision.priority", "priority", "latency"}, Row{"bank-70b-fp8", "decision.priority", "priority", "latency"}}) {
        const Scenario* s = find_scenario(catalog(), r.scenario);
        ASSERT_NE(s, nullptr) << r.scenario;
        const Plan p = run(s->workload_json);
        nlohmann::json doc = nlohmann::json::parse(s->workload_json);
        ASSERT_FALSE(doc.contains("decision") && doc["decision"].contains(r.field)) << r.scenario << " gives " << r.key;
        doc["decision"][r.field] = r.value;
        const Plan whole = plan_from_json(doc.dump(), catalog(), false);
        ASSERT_TRUE(whole.issues.empty()) << r.scenario;
        ASSERT_TRUE(whole.recommendation.found) << r.scenario << " with " << r.key << " " << r.value;
        const std::string answer = whole.recommendation.option.name;
        const auto line = std::find_if(p.sensitivity.begin(), p.sensitivity.end(), [&](const std::string& l) { return l.rfind(std::string(r.key) + ": ", 0) == 0; });
        ASSERT_NE(line, p.sensitivity.end()) << r.scenario << ": no " << r.key << " line";
        EXPECT_NE(line->find(": " + answer), std::string::npos) << r.scenario << ": " << *line << " (whole catalog: " << answer << ")";
        const bool same = answer == p.recommendation.option.name;
        EXPECT_EQ(line->find("(the same answer)") != std::string::npos, same) << *line;
    }
    // The lessons' own movers: the bank's answer changes with every stack open, the live chat's with latency first.
    const Plan bank = run(find_scenario(catalog(), "bank-70b-fp8")->workload_json);
    const Plan chat = run(find_scenario(catalog(), "team-live-chat")->workload_json);
    for (const auto& [plan, key] : {std::pair{&bank, "decision.stack"}, std::pair{&chat, "decision.priority"}})
        for (const auto& l : plan->sensitivity)
            if (l.rfind(std::string(key) + ": ", 0) == 0) {
                EXPECT_EQ(l.find("(the same answer)"), std::string::npos) << l;
            }
    // Given, nothing is probed: a training job has no priority line (ranking by latency is a serving question).
    for (const auto& l : run(find_scenario(catalog(), "7b-full-finetune-adam")->workload_json).sensitivity) EXPECT_NE(l.rfind("decision.priority", 0), 0u) << l;
}

} // namespace hwplan

namespace hwplan {

// Lesson 001 exercise 2, as a curve: break-even shortens as use grows, and at the researcher's
// ~54 hours a month it is longer than the 5-year life the purchase is amortized over.
TEST(Scenarios, BuyOrRentCurveFallsWithUse) {
    const Plan p = scenario("solo-researcher-buy-or-rent");
    ASSERT_EQ(p.breakeven_device, "a100-80gb");
    ASSERT_GE(p.breakeven_curve.size(), 5u);
    for (size_t i = 1; i < p.breakeven_curve.size(); ++i) EXPECT_LT(p.breakeven_curve[i].second, p.breakeven_curve[i - 1].second);
    EXPECT_GT(p.breakeven_curve.front().second, 60);
}

// Lesson 004, 1T MoE serving: weights and KV cache outgrow one 8-GPU server, which is why the lesson
// reaches for a 72-GPU domain; one NVL72 rack holds it.
TEST(Scenarios, TrillionParameterMoeOutgrowsAnEightGpuServer) {
    const Plan p = scenario("moe-1t-serving");
    const Candidate* h200 = find(p, "h200");
    const Candidate* nvl72 = find(p, "gb200-nvl72");
    ASSERT_NE(h200, nullptr);
    ASSERT_NE(nvl72, nullptr);
    EXPECT_GT(h200->count, 8);
    EXPECT_TRUE(nvl72->fits);
    EXPECT_LE(nvl72->count, 72);
}

// Lesson 004 example 3: RL post-training a 1T MoE needs a cluster: full training state for 1T
// parameters (16 bytes each) spreads over far more than one server of GB200s; the rollouts are decode.
TEST(Scenarios, ReasoningRlNeedsAClusterAndRolloutsAreDecode) {
    const Plan p = scenario("reasoning-rl-1t-moe");
    const Candidate& c = p.candidates.at(0);
    EXPECT_GE(c.count, 64);
    EXPECT_TRUE(c.figures.count("rollout_throughput_tokens_per_s"));
}

// Lesson 004, pretraining: multi-node by necessity (the model state alone exceeds one 8-GPU node).
TEST(Scenarios, FrontierPretrainingIsMultiNode) {
    const Plan p = scenario("frontier-pretraining");
    const Candidate* h100 = find(p, "h100-sxm");
    ASSERT_NE(h100, nullptr);
    EXPECT_GT(h100->count, 8);
    EXPECT_EQ(h100->layout.zero_stage, 3);
}

// Lesson 004 example 4: a multi-billion-parameter model at FP4 runs on the robot's Jetson AGX Thor
// (128 GB, 40-130 W); the device decides.
TEST(Scenarios, WarehouseRobotFitsJetsonThor) {
    const Plan p = scenario("warehouse-robot");
    const Candidate* thor = find(p, "jetson-agx-thor");
    ASSERT_NE(thor, nullptr);
    EXPECT_TRUE(thor->fits);
    EXPECT_EQ(thor->count, 1);
    EXPECT_LT(thor->memory.total_bytes, 0.5 * thor->memory.capacity_bytes);
    const Device* d = resolve_device(catalog(), "jetson-agx-thor").item;
    ASSERT_NE(d, nullptr);
    EXPECT_LE(d->tdp_w, 130);
}

// Lesson 004's decision guide code: the 32B coding agent fits one GPU at FP8 with its KV budget.
// (Its recommendation, an SRAM decode tier because per-user speed is the product, is in decide_test.cpp.)
TEST(Scenarios, CodingAgentRecommendsOneDevice) {
    const Plan p = scenario("coding-agent-32b");
    ASSERT_TRUE(p.recommendation.found);
    const Candidate* h200 = find(p, "h200");
    ASSERT_NE(h200, nullptr);
    EXPECT_TRUE(h200->fits);
    EXPECT_EQ(h200->count, 1);
}

// Spot capacity is for retryable work, not an interactive endpoint; a reservation is paid for every
// hour of its term, so a job used a few hours a month pays 730 / hours times its rate.
TEST(Scenarios, SpotIsNotForChatAndReservationsCountIdleHours) {
    const Plan chat = run(R"({"stage": "serve", "model": "Llama-3.1-8B", "hardware": {"devices": ["RTX 6000 Ada"], "count": 1}})");
    bool spot_seen = false;
    for (const auto& o : chat.options)
        if (o.kind == "rent_spot") {
            spot_seen = true;
            EXPECT_FALSE(o.feasible);
        }
    EXPECT_TRUE(spot_seen);
    const Plan job = run(R"({"stage": "embed", "model": "bge-base-en-v1.5", "embed": {"items": 50000},
        "hardware": {"devices": ["TPU v6e"], "count": 1}, "usage": {"hours_per_month": 73}})");
    const Candidate& c = job.candidates.at(0);
    EXPECT_NEAR(c.figures.at("rent_reserved_usd_per_hour").value, 1.22 * 10, 1e-9); // $1.22/h reserved, used 73 of 730 hours
}

} // namespace hwplan

namespace hwplan {

// [SECTION] compute peaks by precision --------------------------------------------------------------

// An INT8 encoder runs on the integer tensor-core path: A100's datasheet gives 624 dense INT8 TOPS beside
// 312 dense FP16 TFLOPS, so the same compute-bound batch takes half the time (TensorRT's BERT README,
// A100 40GB: BERT-Large seq 384 batch 128 at 89.01 ms INT8 vs 163.7 ms FP16, a ratio of 1.84).
TEST(Peaks, Int8ComputeUsesTheInt8PeakNotTheFp16One) {
    auto items = [](const char* compute) {
        const Plan p = run(std::string(R"({"stage": "embed", "model": "bert-large-uncased",
            "precision": {"weights": "int8", "compute": ")") + compute + R"("},
            "embed": {"tokens_per_item": 384, "batch_size": 128}, "hardware": {"devices": ["a100-40gb"], "count": 1}})");
        return p.candidates.at(0).figures.at("items_per_s").value;
    };
    EXPECT_NEAR(items("int8") / items("fp16"), 624.0 / 312.0, 1e-6); // compute-bound at this batch: the peaks' ratio
}

// FP4 compute (NVFP4/MXFP4 GEMMs) reads the FP4 tensor-core path: the B200's catalog entry gives 9,000 dense FP4 TFLOPS
// beside 4,500 at FP8, so a compute-bound prefill of the same workload takes half the time; a device without an FP4
// peak (the H100: Hopper has no FP4 tensor cores) falls back to its FP8 path, the same time as fp8 compute.
TEST(Peaks, Fp4ComputeUsesTheFp4PeakAndFallsBackToFp8) {
    auto ttft = [](const char* device, const char* compute) {
        const Plan p = run(std::string(R"({"stage": "serve", "model": "llama-2-70b", "precision": {"weights": "nvfp4", "kv_cache": "fp8",
            "compute": ")") + compute + R"("}, "serve": {"context_tokens": 8192, "prompt_tokens": 8000, "output_tokens": 192, "concurrent_users": 1},
            "hardware": {"devices": [")" + device + R"("], "count": 1}})");
        const Candidate& c = p.candidates.at(0);
        for (const Phase& ph : c.phases)
            if (ph.name.rfind("prefill", 0) == 0) return ph.roofline.compute_s;
        ADD_FAILURE() << "no prefill phase on " << device;
        return 0.0;
    };
    EXPECT_NEAR(ttft("b200", "fp8") / ttft("b200", "fp4"), 9000.0 / 4500.0, 1e-6);
    EXPECT_NEAR(ttft("h100-sxm", "fp4") / ttft("h100-sxm", "fp8"), 1.0, 1e-9);
}

// An FP4 KV cache holds E2M1 values with an 8-bit scale per 16 (SGLang's fp4_e2m1, NVFP4's block): 4.5 bits a value, so
// the same users' cache takes 4.5 / 16 of a BF16 one.
TEST(Peaks, AnFp4KvCacheCountsItsBlockScales) {
    auto kv = [](const char* cache) {
        return run(std::string(R"({"stage": "serve", "model": "llama-3.1-70b", "precision": {"weights": "nvfp4", "kv_cache": ")") + cache +
                   R"(", "compute": "fp4"}, "serve": {"context_tokens": 8192, "concurrent_users": 8}, "hardware": {"devices": ["b200"], "count": 1}})")
            .candidates.at(0).memory.kv_cache_bytes;
    };
    EXPECT_NEAR(kv("fp4") / kv("bf16"), 4.5 / 16, 1e-9);
}

// A batched decode step's weight GEMMs at FP4 take the narrow-precision share of their peak, as FP8's do
// (decode_compute_efficiency_8bit: no FP4 decode measurement sets one), so on the B200 the same compute-bound step
// takes 4,500 / 9,000 of its FP8 time; the 16-bit share (0.903) would have made FP4 look 2.5 times faster still. The
// plan says the FP4 share is not calibrated.
TEST(Peaks, Fp4DecodeGemmsTakeTheNarrowPrecisionShare) {
    auto plan = [](const char* compute) {
        return run(std::string(R"({"stage": "batch", "model": "llama-2-70b", "precision": {"weights": "nvfp4", "kv_cache": "fp8",
            "compute": ")") + compute + R"("}, "serve": {"context_tokens": 516, "prompt_tokens": 222, "output_tokens": 294, "concurrent_users": 2048},
            "hardware": {"devices": ["b200"], "count": 1}})").candidates.at(0);
    };
    auto decode_compute_s = [](const Candidate& c) {
        for (const Phase& ph : c.phases)
            if (ph.name.rfind("decode", 0) == 0) return ph.roofline.compute_s;
        ADD_FAILURE() << "no decode phase";
        return 0.0;
    };
    const Candidate fp4 = plan("fp4"), fp8 = plan("fp8");
    EXPECT_NEAR(decode_compute_s(fp8) / decode_compute_s(fp4), 9000.0 / 4500.0, 1e-6);
    EXPECT_TRUE(has_note(fp4, "decode GEMMs at FP4 not calibrated"));
    EXPECT_FALSE(has_note(fp8, "decode GEMMs at FP4"));
}

} // namespace hwplan

namespace hwplan {

// [SECTION] training runtime profiles ----------------------------------------------------------------

// DeepSpeed's memory.rst, "GPU RAM", per GPU for P parameters on N GPUs: ZeRO-2 4P + 16P/N (16-bit params and
// gradients whole), 2P with optimizer offload; ZeRO-3 18P/N + 4L, 2P/N + 4L with optimizer offload, L the largest
// layer's parameters. A 3e9-parameter model whose largest tensor is its 32,000 x 1,024 embedding, on 8 GPUs.
TEST(Runtimes, DeepSpeedZeroModelStatesFollowMemoryRst) {
    auto states = [](int stage, bool offload) {
        const Plan p = run(std::string(R"({"stage": "finetune", "precision": "fp16",
            "model": {"params": 3e9, "layers": 48, "hidden": 1024, "heads": 32, "head_dim": 128, "intermediate": 16384, "vocab": 32000},
            "train": {"method": "full", "optimizer": "adamw", "runtime": "deepspeed", "seq_len": 512, "micro_batch": 1, "zero_stage": )") +
                               std::to_string(stage) + R"(, "cpu_offload": )" + (offload ? "true" : "false") +
                               R"(}, "hardware": {"devices": ["a100-80gb"], "count": 8}})");
        const MemoryUse& m = p.candidates.at(0).memory;
        return m.weights_bytes + m.gradients_bytes + m.optimizer_bytes;
    };
    const double P = 3e9, N = 8, L = 32000.0 * 1024;
    EXPECT_NEAR(states(2, false), 4 * P + 16 * P / N, 1);
    EXPECT_NEAR(states(2, true), 2 * P, 1);
    EXPECT_NEAR(states(3, false), 18 * P / N + 4 * L, 1);
    EXPECT_NEAR(states(3, true), 2 * P / N + 4 * L, 1);
}

// DeepSpeed 0.8.1's BF16_Optimizer (runtime/bf16_optimizer.py), which Megatron-DeepSpeed runs under --bf16 without a
// ZeRO stage: bf16 parameters and gradients whole (2 + 2), the FP32 gradient buffer whole ('torch.zeros_like(
// self.bf16_groups_flat[i], dtype=torch.float32)': 4), the FP32 master partition and Adam's moments over the d
// data-parallel ranks ((4 + 8) / d). By hand for 3e9 parameters on 8 GPUs: (2 + 2 + 4) x 3e9 + 12 x 3e9 / 8 = 28.5e9
// bytes, where the megatron profile (no sharded optimizer) keeps 16 x 3e9 = 48e9.
TEST(Runtimes, MegatronDeepSpeedBf16OptimizerPartitionsMasterAndMoments) {
    auto states = [](const char* runtime, int stage) {
        const Plan p = run(std::string(R"({"stage": "finetune", "precision": "bf16",
            "model": {"params": 3e9, "layers": 48, "hidden": 1024, "heads": 32, "head_dim": 128, "intermediate": 16384, "vocab": 32000},
            "train": {"method": "full", "optimizer": "adamw", "runtime": ")") + runtime + R"(", "seq_len": 512, "micro_batch": 1, "zero_stage": )" +
                           std::to_string(stage) + R"(}, "hardware": {"devices": ["a100-80gb"], "count": 8}})");
        const MemoryUse& m = p.candidates.at(0).memory;
        return m.weights_bytes + m.gradients_bytes + m.optimizer_bytes;
    };
    EXPECT_NEAR(states("megatron-deepspeed", 1), 28.5e9, 1);
    EXPECT_NEAR(states("megatron", 0), 48e9, 1);
}

// Unsloth's gradient checkpointing offloads the saved block inputs to host memory (its README): with full
// recomputation the device keeps only the block being recomputed, so the activations shrink by the checkpoints the
// torchtune-like profiles keep, layers x 2 bytes x s x b x h (Korthikanti's 2sbh per block), and the block being
// recomputed is smaller by two MLP-wide tensors: transformers' unfused LlamaMLP keeps four (derivatives.yaml),
// Unsloth's LoRA_MLP saves X, e and g (unsloth/kernels/fast_lora.py) and recomputes the activation and product: 2.
TEST(Runtimes, UnslothOffloadsTheCheckpointedBlockInputs) {
    auto blocks = [](const char* runtime) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": "llama-2-7b", "train": {"method": "qlora", "lora_rank": 8,
            "seq_len": 8192, "micro_batch": 1, "checkpointing": "full", "runtime": ")") + runtime +
                           R"("}, "hardware": {"devices": ["a100-40gb"], "count": 1}})");
        return p.candidates.at(0).memory.activations_bytes;
    };
    // Both keep bf16 logits (2 bytes each); hf-peft adds its FP32 copy and gradient (8 bytes per logit), unsloth
    // only the FP32 copy of its returned logits that accelerate's mixed-precision wrapper makes (4 bytes, no gradient).
    const double checkpoints = 32 * 2.0 * 8192 * 4096, fp32_loss = 8192 * 32000 * (8.0 - 4.0), mlp = 2 * 2.0 * 8192 * 11008;
    EXPECT_NEAR(blocks("hf-peft") - blocks("unsloth"), checkpoints + fp32_loss + mlp, 1);
}

// Megatron-Core with Transformer Engine (runtimes.json megatron-core): under FP8 the linear layers keep the 1-byte FP8 copy
// of their input (the QKV and MLP inputs, h a token each, and the down projection's, i), the fused SwiGLU keeps 3 MLP-wide
// tensors, and TE's fused cross entropy keeps only the bf16 logits (2 bytes, the gradient written into them). By hand for
// Llama 3.2 1B (16 layers, h = 2,048, i = 8,192, vocabulary 128,256), one sequence of 4,096 tokens, no recomputation:
//   FP8 against BF16 under megatron-core: 16 x 4,096 x (2 x 2,048 + 8,192) x 1 byte = 805,306,368 bytes fewer;
//   hf-peft against megatron-core at BF16: the logits 4,096 x 128,256 x (2 + 8 - 2) = 4,202,692,608 bytes and one more MLP
//   tensor, 16 x 4,096 x 8,192 x 2 = 1,073,741,824: 5,276,434,432 bytes more;
//   a profile without the FP8 key (hf-peft) keeps the same bytes at FP8 as at BF16.
TEST(Runtimes, MegatronCoreKeepsFp8LinearInputsAndOnlyTheBf16Logits) {
    auto activations = [](const char* runtime, const char* precision) {
        const Plan p = run(std::string(R"({"stage": "pretrain", "model": "llama-3.2-1b", "precision": ")") + precision +
                           R"(", "train": {"method": "full", "runtime": ")" + runtime +
                           R"(", "seq_len": 4096, "micro_batch": 1, "checkpointing": "none"}, "hardware": {"devices": ["h100-sxm"], "count": 1}})");
        return p.candidates.at(0).memory.activations_bytes;
    };
    EXPECT_NEAR(activations("megatron-core", "bf16") - activations("megatron-core", "fp8"), 805306368.0, 1);
    EXPECT_NEAR(activations("hf-peft", "bf16") - activations("megatron-core", "bf16"), 5276434432.0, 1);
    EXPECT_NEAR(activations("hf-peft", "bf16"), activations("hf-peft", "fp8"), 1);
}

// MaxText (runtimes.json maxtext, read from maxtext-tutorial-v1.5.0) is the trainer a full run on a TPU gets when it names
// none (default_for_device_kinds ["tpu"]); a GPU keeps hf-peft, and LoRA keeps its method's default (torchtune). Its loss
// holds the bf16 logits of the head's dot and their bf16 gradient (2 + 2 bytes a logit), and XLA lays the step's memory out
// when it compiles it, so no caching-allocator fragmentation is added. By hand for Llama 3.2 1B (vocabulary 128,256), one
// sequence of 4,096 tokens, no recomputation, one tpu-v5p: hf-peft keeps 2 + 8 bytes a logit, so its activations are
// 4,096 x 128,256 x (10 - 4) = 3,152,019,456 bytes more, and its overhead holds fragmentation on top of the runtime context
// while MaxText's overhead is the context alone.
TEST(Runtimes, MaxTextIsTheTpuDefaultAndKeepsBf16LogitsWithoutAllocatorFragmentation) {
    auto plan_on = [](const char* device, const char* train_extra) {
        return run(std::string(R"({"stage": "pretrain", "model": "llama-3.2-1b", "precision": "bf16", "train": {"method": "full", )") +
                   train_extra + R"("seq_len": 4096, "micro_batch": 1, "checkpointing": "none"}, "hardware": {"devices": [")" + device +
                   R"("], "count": 1}})");
    };
    auto assumed = [](const Plan& p, const std::string& prefix) {
        return std::any_of(p.missing_assumptions.begin(), p.missing_assumptions.end(), [&](const std::string& m) { return m.rfind(prefix, 0) == 0; });
    };
    const Plan tpu = plan_on("tpu-v5p", "");
    const Plan named = plan_on("tpu-v5p", R"("runtime": "maxtext", )");
    const Plan peft = plan_on("tpu-v5p", R"("runtime": "hf-peft", )");
    const Candidate& t = tpu.candidates.at(0);
    EXPECT_TRUE(has_note(t, "training runtime: MaxText"));
    EXPECT_TRUE(assumed(tpu, "train.runtime: not given; maxtext assumed"));
    EXPECT_FALSE(assumed(named, "train.runtime"));
    EXPECT_DOUBLE_EQ(t.memory.activations_bytes, named.candidates.at(0).memory.activations_bytes);
    EXPECT_NEAR(peft.candidates.at(0).memory.activations_bytes - t.memory.activations_bytes, 3152019456.0, 1);
    EXPECT_DOUBLE_EQ(t.memory.overhead_bytes, t.memory.context_bytes);                          // no fragmentation
    EXPECT_GT(peft.candidates.at(0).memory.overhead_bytes, peft.candidates.at(0).memory.context_bytes); // hf-peft's allocator fragments
    // A GPU keeps hf-peft, and a LoRA run on a TPU its method's default.
    const Plan gpu = plan_on("h100-sxm", "");
    EXPECT_TRUE(has_note(gpu.candidates.at(0), "training runtime: Hugging Face Trainer"));
    EXPECT_TRUE(assumed(gpu, "train.runtime: not given; hf-peft assumed (the default for full)"));
    const Plan lora = run(R"({"stage": "finetune", "model": "llama-3.2-1b", "precision": "bf16", "train": {"method": "lora", "seq_len": 1024,
        "micro_batch": 1}, "hardware": {"devices": ["tpu-v5p"], "count": 1}})");
    EXPECT_TRUE(assumed(lora, "train.runtime: not given; torchtune assumed"));
}

// torchtune's distributed configs wrap the token embeddings and the output head as FSDP units of their own
// (70B_full.yaml: custom_sharded_layers: ['tok_embeddings', 'output']; training.shard_model calls fully_shard on each
// with reshard_after_forward=True), so under CPU offload the root keeps neither. A 5e9-parameter model, 40 blocks,
// hidden 4,096, untied vocabulary of 200,000, full fine-tune in bf16 on 8 GPUs with fsdp_cpu_offload, by hand:
//   one table (embeddings or head) 200,000 x 4,096 = 819,200,000 params; the two 1,638,400,000
//   one block (5e9 - 1,638,400,000) / 40 = 84,040,000 params; the largest unit in flight is the head
//   weights on the device: (819,200,000 + 84,040,000) x 2 bytes = 1,806,480,000 (the head and the next block)
//   gradients: the head's, 819,200,000 x 2 bytes = 1,638,400,000
// (with the embeddings and head kept in the root unit it would be (2 x 84,040,000 + 1,638,400,000) x 2 = 3,613,760,000
// and (84,040,000 + 1,638,400,000) x 2 = 3,444,880,000.)
TEST(Runtimes, TorchtuneShardsEmbeddingsAndHeadAsUnitsOfTheirOwn) {
    const Plan p = run(R"({"stage": "finetune", "precision": "bf16",
        "model": {"params": 5e9, "layers": 40, "hidden": 4096, "heads": 32, "head_dim": 128, "intermediate": 11008, "vocab": 200000},
        "train": {"method": "full", "runtime": "torchtune", "seq_len": 2048, "micro_batch": 2, "checkpointing": "full",
                  "zero_stage": 3, "cpu_offload": true},
        "hardware": {"devices": ["a100-80gb"], "count": 8}})");
    const MemoryUse& m = p.candidates.at(0).memory;
    EXPECT_NEAR(m.weights_bytes, 1806480000.0, 1);
    EXPECT_NEAR(m.gradients_bytes, 1638400000.0, 1);
    EXPECT_EQ(m.optimizer_bytes, 0); // the optimizer steps on the CPU
}

// With FSDP's CPU offload the optimizer steps on the host after the backward (torchtune's fused torch.optim.AdamW over
// CPU tensors), at the host's DRAM bandwidth shared by the ranks on it (catalog a100-80gb host: DGX A100, 2 x EPYC 7742,
// STREAM-sustained 2 x 147.8 = 295.7 GB/s). The 5B shape above, pure bf16, 8 ranks on one host, by hand:
//   14 bytes a parameter (2 x (2 + 4) + 2), each rank's shard 5e9 / 8, 8 ranks: 5e9 x 14 = 7e10 bytes on the host,
//   7e10 / 295.7e9 = 0.236726 s added to the step against the same run without offload (nothing else in the step differs).
// On a device whose host is not recorded (H100 SXM) the step is unchanged and the plan says it is not priced.
TEST(Runtimes, FsdpCpuOffloadAddsTheHostOptimizerStepAtTheHostsDramBandwidth) {
    auto job = [](const std::string& device, bool offload) {
        return R"({"stage": "finetune", "precision": "bf16",
        "model": {"params": 5e9, "layers": 40, "hidden": 4096, "heads": 32, "head_dim": 128, "intermediate": 11008, "vocab": 200000},
        "train": {"method": "full", "runtime": "torchtune", "seq_len": 2048, "micro_batch": 2, "checkpointing": "full",
                  "zero_stage": 3, "cpu_offload": )" + std::string(offload ? "true" : "false") + R"(},
        "hardware": {"devices": [")" + device + R"("], "count": 8}})";
    };
    const Candidate on = run(job("a100-80gb", true)).candidates.at(0);
    const Candidate off = run(job("a100-80gb", false)).candidates.at(0);
    EXPECT_NEAR(on.figures.at("step_time_s").value - off.figures.at("step_time_s").value, 7e10 / 295.7e9, 1e-9)
        << on.figures.at("step_time_s").why;
    bool said = false;
    for (const auto& note : on.notes) said = said || note.find("14 bytes read and written per trainable parameter") != std::string::npos;
    EXPECT_TRUE(said);
    const Candidate h_on = run(job("h100-sxm", true)).candidates.at(0);
    const Candidate h_off = run(job("h100-sxm", false)).candidates.at(0);
    EXPECT_DOUBLE_EQ(h_on.figures.at("step_time_s").value, h_off.figures.at("step_time_s").value);
    said = false;
    for (const auto& note : h_on.notes) said = said || note.find("no host is recorded for h100-sxm (catalog host), so that step is not priced") != std::string::npos;
    EXPECT_TRUE(said);
}

// FSDP's CPU offload streams the frozen base of a LoRA fine-tune from host memory too (Answer.AI fsdp_qlora
// train.py: CPUOffload(offload_params=True) over the whole model). The same 5B shape as above, LoRA rank 8 under
// the fsdp-qlora profile (bf16 base and adapters), by hand:
//   tables (untied embeddings + head) 2 x 200,000 x 4,096 = 1,638,400,000 params: the root unit, kept whole
//   block (5e9 - 1,638,400,000) / 40 = 84,040,000 params; the one computed, the prefetched one and the one just resharded
//   (fsdp_units_in_flight 3, FSDP1's record_stream and rate limiter; 2 before 2026-12-04): 3 x 84,040,000 x 2 bytes
//   adapters per block: rank 8 x (4 x (4,096 + 4,096) + 3 x (4,096 + 11,008)) = 262,144 + 362,496 = 624,640
//   weights 504,240,000 + 3,276,800,000 + 3 x 624,640 x 2 = 3,784,787,840 bytes; gradients 624,640 x 2 = 1,249,280.
//   FSDP1's device copies of the root's and a block's shards awaiting their all-gather (fsdp_offload_shard_copies_kept, since
//   2026-12-04): (1,638,400,000 + 84,040,000) x 2 bytes / 8 devices = 430,610,000; weights 4,215,397,840.
// Before offload counted adapters this plan held the whole sharded base: (5e9 x 2 + 24,985,600 x 2) / 8 bytes.
TEST(Runtimes, FsdpCpuOffloadStreamsTheFrozenBaseOfAnAdapterFineTune) {
    const Plan p = run(R"({"stage": "finetune", "precision": "bf16",
        "model": {"params": 5e9, "layers": 40, "hidden": 4096, "heads": 32, "head_dim": 128, "intermediate": 11008, "vocab": 200000},
        "train": {"method": "lora", "lora_rank": 8, "runtime": "fsdp-qlora", "seq_len": 2048, "micro_batch": 2, "checkpointing": "full",
                  "zero_stage": 3, "cpu_offload": true},
        "hardware": {"devices": ["a100-80gb"], "count": 8}})");
    const MemoryUse& m = p.candidates.at(0).memory;
    EXPECT_NEAR(m.weights_bytes, 4215397840.0, 1);
    EXPECT_NEAR(m.gradients_bytes, 1249280.0, 1);
    EXPECT_EQ(m.optimizer_bytes, 0); // the optimizer steps on the CPU
}

// PyTorch FSDP (FullyShardedDataParallel, as Answer.AI's train.py wraps it: limit_all_gathers=True, no CPU offload) holds
// all-gathered units beside the shards: the root unit (embeddings, head) is not resharded after forward
// (torch/distributed/fsdp/_runtime_utils.py _post_forward_reshard: free_unsharded_flat_param = not state._is_root and ...),
// and three block units hold all-gathered storage at once in backward (the current, the prefetched under the default
// BACKWARD_PRE, and the one just resharded, whose free waits on the compute stream: record_stream; limit_all_gathers'
// rate limiter waits for the older of the last two frees only). Its init leaves the root's
// original tensors and their flat copy, and the last block's, cached (FlatParamHandle.flatten_tensors concatenates while the
// originals live; shard() clones a chunk and frees the unsharded flat parameter), and train.py resets the peak counters only
// after the wrap, so the reserved peak cannot fall below the shards plus that cache. Llama 2 7B QLoRA on 2 GPUs, rank 64 on
// every linear, by hand:
//   root: untied embeddings + head 2 x 32,000 x 4,096 = 262,144,000 params x 2 bytes = 524,288,000
//   block: (6,738,415,616 - 262,144,000) / 32 = 202,383,488 params x 4.127 / 8 = 104,404,082 bytes of NF4 storage, plus its
//          adapters 4 x 64 x 8,192 + 3 x 64 x 15,104 = 4,997,120 x 2 bytes = 9,994,240: 114,398,322
//   gathered: 524,288,000 + 3 x 114,398,322 = 867,482,966 bytes; init cache 2 x (524,288,000 + 114,398,322) = 1,277,372,644.
//   bitsandbytes' quantization statistics are not sharded (runtimes.json quant_state_replicated, since 2026-12-03 night):
//   6,476,271,616 NF4 params x 0.127 / 8 = 102,812,812 bytes whole on each device, half of it beyond the shard: 51,406,406.
TEST(Runtimes, FsdpHoldsGatheredUnitsAndItsInitCache) {
    auto memory = [](int zero, int seq) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": "llama-2-7b", "precision": {"weights": "nf4", "kv_cache": "bf16", "compute": "bf16"},
            "train": {"method": "qlora", "lora_rank": 64, "seq_len": )") + std::to_string(seq) + R"(, "micro_batch": 1, "checkpointing": "full",
                      "zero_stage": )" + std::to_string(zero) + R"(, "optimizer": "adamw", "runtime": "fsdp-qlora"},
            "hardware": {"devices": ["rtx-3090"], "count": 2}})");
        return p.candidates.at(0).memory;
    };
    const MemoryUse sharded = memory(3, 512), whole = memory(0, 512);
    EXPECT_NEAR(sharded.weights_bytes - whole.weights_bytes / 2, 867482966.0 + 51406406.0, 0.01 * 867482966.0);
    // At 512 tokens the step's own default-stream tensors (optimizer state, activations, fragmentation) are smaller than the
    // init cache, so the reserved peak is the shards + the cache + what the other streams hold (gathered units, gradients).
    const double reserved = sharded.total_bytes - sharded.context_bytes - sharded.managed_bytes;
    EXPECT_NEAR(reserved, whole.weights_bytes / 2 + 1277372644.0 + 867482966.0 + 51406406.0 + sharded.gradients_bytes, 0.01e9);
    // At 2,048 x 1 the step's tensors exceed the cache: no floor is added.
    const MemoryUse longer = memory(3, 2048);
    EXPECT_NEAR(longer.overhead_bytes, longer.context_bytes + 0.176 * (longer.activations_bytes + longer.gradients_bytes), 1e3);
}

// PyTorch FSDP1 frees a resharded unit's all-gathered storage with record_stream on the compute stream
// (_flat_param.py _free_unsharded_flat_param: '# Do not free the memory until all ops in the current stream finish'), so the
// caching allocator cannot give that block to the next all-gather until the compute stream has passed it, and
// limit_all_gathers waits only for the older of the last two frees (_runtime_utils.py _unshard, _limiter_utils.py
// _max_num_inflight_all_gathers = 2); with the default BACKWARD_PRE the next unit is all-gathered while the current one computes
// (api.py: 'at the peak, it holds the current set of parameters, next set of parameters'). In backward three block units hold
// unshard-stream memory: the one just resharded, the current and the prefetched (runtimes.json fsdp-qlora
// fsdp_units_in_flight 3). Answer.AI's Llama 2 7B LoRA at 2,048 x 6 on 2 RTX 3090 (bf16 base, rank 64 on every linear), by hand:
//   block: (6,738,415,616 - 2 x 32,000 x 4,096) / 32 = 202,383,488 params x 2 bytes = 404,766,976
//   its adapters: 4 x 64 x 8,192 + 3 x 64 x 15,104 = 4,997,120 params x 2 bytes = 9,994,240
//   the third unit: 414,761,216 bytes more than with two (tolerance 1e-6, exact in the parameter counts).
TEST(Runtimes, Fsdp1HoldsAThirdBlockWhoseFreeWaitsOnTheComputeStream) {
    const std::string job = R"({"stage": "finetune", "model": "llama-2-7b", "precision": {"weights": "bf16", "kv_cache": "bf16", "compute": "bf16"},
        "train": {"method": "lora", "lora_rank": 64, "seq_len": 2048, "micro_batch": 6, "global_batch": 12, "checkpointing": "full",
                  "zero_stage": 3, "optimizer": "adamw", "runtime": "fsdp-qlora"},
        "hardware": {"devices": ["rtx-3090"], "count": 2}})";
    Catalog two = catalog();
    for (TrainingRuntime& rt : two.training_runtimes)
        if (rt.id == "fsdp-qlora") {
            EXPECT_EQ(rt.fsdp_units_in_flight, 3);
            rt.fsdp_units_in_flight = 2;
        }
    const Plan p = run(job);
    const Plan q = plan_from_json(job, two, false);
    ASSERT_FALSE(p.candidates.empty());
    ASSERT_FALSE(q.candidates.empty());
    EXPECT_NEAR(p.candidates.front().memory.weights_bytes - q.candidates.front().memory.weights_bytes, 414761216.0, 1e-6 * 414761216.0);
    EXPECT_EQ(p.candidates.front().memory.activations_bytes, q.candidates.front().memory.activations_bytes);
}

// PyTorch FSDP1's CPU offload copies each unit's shard to the device on the pre-unshard stream before its all-gather
// (_flat_param.py pre_unshard: 'self.flat_param_to(self.device, non_blocking=True)') and hands the copy to the unshard
// stream (_all_gather_flat_param: '_no_dispatch_record_stream(sharded_flat_param, ...)  # unshard_stream'), so the caching
// allocator keeps it until the all-gather has read it; the root's copy is still waiting on the root's all-gather when the
// first block's is made (runtimes.json fsdp-qlora fsdp_offload_shard_copies_kept). Answer.AI's Llama 2 70B QLoRA with CPU
// offload on 2 RTX 3090, by hand:
//   root: 2 x 32,000 x 8,192 = 524,288,000 params x 2 bytes / 2 devices = 524,288,000 bytes
//   block: (68,976,648,192 - 524,288,000) / 80 = 855,654,502.4 params x 0.5 bytes (the 4-bit codes in bf16 storage; the
//          statistics are not in the flat parameter) / 2 = 213,913,625.6 bytes
//   the two copies: 738,201,625.6 bytes (tolerance 1e-6: exact in the parameter counts).
TEST(Runtimes, Fsdp1CpuOffloadKeepsShardCopiesUntilTheirAllGather) {
    const std::string job = R"({"stage": "finetune", "model": "llama-2-70b", "precision": {"weights": "nf4", "kv_cache": "bf16", "compute": "bf16"},
        "train": {"method": "qlora", "lora_rank": 64, "seq_len": 2048, "micro_batch": 2, "global_batch": 4, "checkpointing": "full",
                  "zero_stage": 3, "optimizer": "adamw", "cpu_offload": true, "runtime": "fsdp-qlora"},
        "hardware": {"devices": ["rtx-3090"], "count": 2}})";
    Catalog without = catalog();
    for (TrainingRuntime& rt : without.training_runtimes)
        if (rt.id == "fsdp-qlora") {
            EXPECT_TRUE(rt.fsdp_offload_shard_copies_kept);
            rt.fsdp_offload_shard_copies_kept = false;
        }
    const Plan p = run(job);
    const Plan q = plan_from_json(job, without, false);
    ASSERT_FALSE(p.candidates.empty());
    ASSERT_FALSE(q.candidates.empty());
    EXPECT_NEAR(p.candidates.front().memory.weights_bytes - q.candidates.front().memory.weights_bytes, 738201625.6, 1e-6 * 738201625.6);
    // Without offload there is no copy to make: the shards already live on the device.
    std::string resident = job;
    resident.replace(resident.find(R"("cpu_offload": true)"), 19, R"("cpu_offload": false)");
    EXPECT_EQ(run(resident).candidates.front().memory.weights_bytes, plan_from_json(resident, without, false).candidates.front().memory.weights_bytes);
}

// bitsandbytes keeps a 4-bit weight's quantization statistics on the parameter object (bitsandbytes/nn/modules.py
// Params4bit.__new__: 'self.quant_state = quant_state'), outside the tensor data FSDP flattens, shards and offloads, so
// under FSDP + QLoRA every device holds the whole model's statistics (runtimes.json fsdp-qlora quant_state_replicated).
// Llama 2 70B QLoRA on 2 GPUs with CPU offload (Answer.AI's 70B row), by hand:
//   NF4 params: 68,976,648,192 - 2 x 32,000 x 8,192 (untied embeddings and head, 16-bit) = 68,452,360,192
//   statistics: 68,452,360,192 x (4.127 - 4) / 8 bits = 1,086,681,218 bytes (nf4 with double quantization, QLoRA paper
//   section 3: 0.127 bits a weight); the three blocks in flight (fsdp_units_in_flight) already hold 3/80 of them:
//   1,086,681,218 x 77/80 = 1,045,930,672.
// Without the flag the statistics would be in the flat parameter, so the block's shard copy awaiting its all-gather
// (fsdp_offload_shard_copies_kept) would carry its share: 855,654,502.4 block params x 0.127 / 8 / 2 = 6,791,757. The same plan
// holds 1,045,930,672 - 6,791,757 = 1,039,138,915 bytes less on each device (tolerance 0.1 %, the parameter count's rounding).
TEST(Runtimes, FsdpQloraKeepsTheQuantizationStatisticsWholeOnEachDevice) {
    const std::string job = R"({"stage": "finetune", "model": "llama-2-70b", "precision": {"weights": "nf4", "kv_cache": "bf16", "compute": "bf16"},
        "train": {"method": "qlora", "lora_rank": 64, "seq_len": 2048, "micro_batch": 2, "global_batch": 4, "checkpointing": "full",
                  "zero_stage": 3, "optimizer": "adamw", "cpu_offload": true, "runtime": "fsdp-qlora"},
        "hardware": {"devices": ["rtx-3090"], "count": 2}})";
    const Plan p = run(job);
    Catalog sharded = catalog();
    for (TrainingRuntime& rt : sharded.training_runtimes)
        if (rt.id == "fsdp-qlora") rt.quant_state_replicated = false;
    const Plan q = plan_from_json(job, sharded, false);
    ASSERT_FALSE(p.candidates.empty());
    ASSERT_FALSE(q.candidates.empty());
    EXPECT_NEAR(p.candidates.front().memory.weights_bytes - q.candidates.front().memory.weights_bytes, 1039138915.0, 0.001 * 1039138915.0);
    // Without offload the shards already hold 1/n of them: 1,086,681,218 / 2 = 543,340,609 more on each of 2 devices.
    std::string whole = job;
    whole.replace(whole.find(R"("cpu_offload": true)"), 19, R"("cpu_offload": false)");
    const Plan p2 = run(whole);
    const Plan q2 = plan_from_json(whole, sharded, false);
    EXPECT_NEAR(p2.candidates.front().memory.weights_bytes - q2.candidates.front().memory.weights_bytes, 543340609.0, 0.001 * 543340609.0);
}

// A declared band, not a model (runtimes.json fsdp-qlora sharded_qlora_time_unmodelled_low_ratio 0.66): Answer.AI's
// benchmarks_03_2024.md (fsdp_qlora at 05ed9f2, read 2026-12-03) ran Llama 2 70B QLoRA on 4 RTX 6000 Ada at batch 3 in
// 2,904 s for 1,024 samples of 2,048 tokens: 1,024 x 2,048 / 2,904 = 722.2 tokens/s, against this plan's 2,076 (item 29
// of docs/accuracy-history.md): 722.2 / 2,076 = 0.348, 65.2 % below, rounded outward to 0.66. By hand, the band's slow
// end in tokens/s is the plan x (1 - 0.66) = 0.34 x the plan, and the step time's is the plan / 0.34 = 2.9412 x; the
// same job without the declared share (the ratio set to 0) has the same point estimate and a slow end above 706 tokens/s
// (the assumptions' own range: 1,259 tokens/s); unsharded (DDP, zero_stage 0) or LoRA on a bf16 base, the share does not apply.
TEST(Runtimes, FsdpQloraShardedRunsDeclareAnUncalibratedSlowSide) {
    const std::string job = R"({"stage": "finetune", "model": "llama-2-70b", "precision": {"weights": "nf4", "kv_cache": "bf16", "compute": "bf16"},
        "train": {"method": "qlora", "lora_rank": 64, "seq_len": 2048, "micro_batch": 3, "global_batch": 12, "checkpointing": "full",
                  "zero_stage": 3, "optimizer": "adamw", "runtime": "fsdp-qlora"},
        "hardware": {"devices": ["rtx-6000-ada"], "count": 4}})";
    const Plan p = run(job);
    const Candidate& c = p.candidates.at(0);
    const Figure& tps = c.figures.at("train_tokens_per_s");
    const Figure& step = c.figures.at("step_time_s");
    EXPECT_NEAR(tps.low / tps.value, 0.34, 1e-12);
    EXPECT_NEAR(step.high / step.value, 1 / 0.34, 1e-12);
    EXPECT_LT(tps.low, 722.2);  // the row the share was declared from now lies inside the band
    EXPECT_GT(tps.value, 722.2); // and the plan itself does not move to it
    // Without the declared share: the same point, and the band the assumptions alone give.
    Catalog plain = catalog();
    for (TrainingRuntime& rt : plain.training_runtimes)
        if (rt.id == "fsdp-qlora") rt.sharded_qlora_time_unmodelled_low_ratio = 0;
    const Plan q = plan_from_json(job, plain, false);
    ASSERT_FALSE(q.candidates.empty());
    const Figure& plain_tps = q.candidates.front().figures.at("train_tokens_per_s");
    EXPECT_DOUBLE_EQ(plain_tps.value, tps.value);
    EXPECT_GT(plain_tps.low, 0.34 * plain_tps.value);
    // The share is for QLoRA sharded over several devices only: 7B LoRA (bf16 base) under FSDP and 7B QLoRA under DDP keep
    // the assumptions' band (its slow end about 0.6 of the plan, well above 0.34).
    for (const char* variant : {R"("precision": "bf16", "train": {"method": "lora", "zero_stage": 3)",
                                R"("precision": {"weights": "nf4", "kv_cache": "bf16", "compute": "bf16"}, "train": {"method": "qlora", "zero_stage": 0)"}) {
        const Plan v = run(std::string(R"({"stage": "finetune", "model": "llama-2-7b", )") + variant + R"(, "lora_rank": 64, "seq_len": 2048, "micro_batch": 4, "checkpointing": "full", "optimizer": "adamw", "runtime": "fsdp-qlora"},
            "hardware": {"devices": ["rtx-4090"], "count": 2}})");
        const Figure& f = v.candidates.at(0).figures.at("train_tokens_per_s");
        EXPECT_GT(f.low, 0.5 * f.value) << variant;
    }
}

// A declared band, not a model (runtimes.json vllm-api-server served_host_time_unmodelled_share 0.62): the vLLM blog of
// 2024-09-05 ('Performance Diagnosis', read 2026-12-03) profiles a served run of Llama 3 8B on one H100 at 33 % of its
// time in the HTTP API server and 29 % in scheduling, so by hand 1 - (0.33 + 0.29) = 0.38 of a served run is left to the
// device at most. The plan stays the device's time (the same point as the default tuned runtime); the throughput's slow
// end becomes the plan x 0.38 and the step's the plan / 0.38. AMD's ROCm hub row, vLLM 0.10.2 Llama 3.1 70B FP8 on
// 8 x MI300X at 128/2048 with 3,200 sequences (13,212.5 tokens/s, read 2026-11-30), lies below the band of the tuned
// runtime and inside the declared one.
TEST(Runtimes, VllmApiServerDeclaresAnUncalibratedHostSide) {
    auto job = [](const char* runtime) {
        return std::string(R"({"stage": "batch", "model": "llama-3.1-70b", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
            "serve": {"context_tokens": 2176, "prompt_tokens": 128, "output_tokens": 2048, "concurrent_users": 3200, "runtime": ")") + runtime + R"("},
            "hardware": {"devices": ["mi300x"], "count": 8}})";
    };
    const Plan p = run(job("vllm-api-server"));
    const Plan q = run(job("tuned"));
    const Figure& tps = p.candidates.at(0).figures.at("throughput_tokens_per_s");
    const Figure& plain = q.candidates.at(0).figures.at("throughput_tokens_per_s");
    EXPECT_DOUBLE_EQ(tps.value, plain.value); // no point moves
    EXPECT_NEAR(tps.low, 0.38 * tps.value, 1e-9 * tps.value);
    EXPECT_DOUBLE_EQ(tps.high, plain.high);
    const Figure& step = p.candidates.at(0).figures.at("decode_step_s");
    EXPECT_NEAR(step.high, step.value / 0.38, 1e-9 * step.high);
    EXPECT_GT(plain.low, 13212.5); // AMD's row: outside the tuned runtime's band
    EXPECT_LT(tps.low, 13212.5);   // inside the declared one
    bool noted = false;
    for (const std::string& n : p.candidates.at(0).notes) noted = noted || n.find("throughput not calibrated for this runtime (vllm-api-server)") != std::string::npos;
    EXPECT_TRUE(noted);
}

// vLLM's KV-cache profile by engine release (runtimes.json decode_runtimes vllm-2023-12 and vllm-v1-2025-04, read
// 2026-12-04), each term by hand:
//  - 0.2.x (December 2023, before PR #2151): the profile pass runs max(max_model_len 4,096, 2,048) = 4,096 tokens
//    (SchedulerConfig), and under TP its all-reduce inputs stay reserved (issue #2150): Llama 2 70B (80 layers, hidden
//    8,192) at TP 4, 2 x 80 x 4,096 x 8,192 x 2 bytes = 10,737,418,240 bytes per rank on top of the tuned runtime's overhead.
//    The suite row (PR #2031, 20,865 blocks x 16 = 333,840 tokens) is then within 10 % (the plan: about 351,600, +5.3 %).
//  - V1 (v0.8.4): the dummy sampler on 256 requests (max_num_seqs on an L40S) x 128,256 logits (Llama 3.1's vocabulary)
//    x 38 bytes (16-bit logits 2 + FP32 copy 4 + sorted values 4 + int64 indices 8 + the sort's int64 iota 8 + cub's
//    alternate keys and values 12) = 1,247,674,368 bytes, larger than the 2,048-token forward pass, so it is the term.
TEST(Runtimes, VllmProfileReservesByRelease) {
    auto job = [](const char* model, const char* device, int count, const char* runtime) {
        return std::string(R"({"stage": "serve", "model": ")") + model + R"(", "precision": "fp16",
            "serve": {"context_tokens": 16, "prompt_tokens": 8, "output_tokens": 8, "concurrent_users": 1, "runtime": ")" + runtime +
               R"("}, "hardware": {"devices": [")" + device + R"("], "count": )" + std::to_string(count) +
               R"(}, "assumptions": {"serving_memory_utilization": 0.9, "kv_block_tokens": 16}})";
    };
    const Plan old70 = run(job("llama-2-70b", "a100-80gb", 4, "vllm-2023-12"));
    const Plan tuned70 = run(job("llama-2-70b", "a100-80gb", 4, "tuned"));
    const MemoryUse& m = old70.candidates.at(0).memory;
    const MemoryUse& t = tuned70.candidates.at(0).memory;
    ASSERT_EQ(old70.candidates.at(0).layout.tensor_parallel, 4);
    EXPECT_NEAR(m.overhead_bytes - t.overhead_bytes, 10737418240.0, 1.0);
    const double tokens = old70.candidates.at(0).figures.at("max_concurrent_users").value * 16;
    EXPECT_NEAR(tokens, 333840.0, 0.10 * 333840.0); // PR #2031's row, within the memory tolerance
    EXPECT_GT(tokens, 333840.0);                     // still above it: NCCL's and the allocator's own share not all counted
    // One device: no all-reduce, only the 4,096-token pass (twice the tuned runtime's 2,048-token chunk).
    const Plan old7 = run(job("llama-2-7b", "a100-80gb", 1, "vllm-2023-12"));
    const Plan tuned7 = run(job("llama-2-7b", "a100-80gb", 1, "tuned"));
    EXPECT_DOUBLE_EQ(old7.candidates.at(0).memory.overhead_bytes, tuned7.candidates.at(0).memory.overhead_bytes);
    EXPECT_GT(old7.candidates.at(0).memory.activations_bytes, 1.9 * tuned7.candidates.at(0).memory.activations_bytes);
    // V1: the sampler is the activation term.
    const Plan v1 = run(job("llama-3.1-8b", "l40s", 1, "vllm-v1-2025-04"));
    EXPECT_NEAR(v1.candidates.at(0).memory.activations_bytes, 1247674368.0, 1.0);
    bool noted = false;
    for (const std::string& n : v1.candidates.at(0).notes) noted = noted || n.find("not calibrated for this runtime (vllm-v1-2025-04)") != std::string::npos;
    EXPECT_TRUE(noted);
}

// A declared band, not a model (devices tpu-v5e scale_out cross_domain_training_time_unmodelled_low_ratio 0.14): MaxText's
// v5p README at 76bd53b0f (read 2026-12-03) ran its 128B config at 68.83 % MFU on one v5p-512 and 59.66 % on two joined by
// DCN, 59.66 / 68.83 = 0.8668, 13.3 % below one slice, rounded outward to 14 %. By hand, a v5e job over more chips than one
// 256-chip slice keeps its point and its band's slow end in tokens/s becomes the assumptions' slow end x (1 - 0.14) = 0.86 x,
// the step time's that slow end / 0.86. MaxText's v5e 64B row on 16 x v5e-256 (105 TFLOP/s per chip / 3.95011e11 FLOP per
// token = 265.8 tokens/s per chip x 4,096 = 1,088,717 tokens/s) lies below the band without the share and inside it with it;
// on one slice (256 chips) nothing widens.
TEST(Catalog, TpuRunsAcrossSlicesDeclareAnUncalibratedSlowSide) {
    auto job = [](int chips) {
        return std::string(R"({"stage": "pretrain", "model": {"params": 64761374720, "layers": 64, "hidden": 10240, "heads": 32, "head_dim": 256,
            "intermediate": 32768, "mlp": "plain", "vocab": 32768}, "precision": "bf16",
            "train": {"method": "full", "seq_len": 2048, "micro_batch": 2, "global_batch": )") + std::to_string(2 * chips) +
               R"(, "checkpointing": "full", "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1}},
            "hardware": {"devices": ["tpu-v5e"], "count": )" + std::to_string(chips) + "}}";
    };
    Catalog plain = catalog();
    for (Device& d : plain.devices)
        if (d.id == "tpu-v5e") d.cross_domain_training_low_ratio = 0;
    const Plan p = run(job(4096));
    const Plan q = plan_from_json(job(4096), plain, false);
    ASSERT_FALSE(q.candidates.empty());
    const Figure& tps = p.candidates.at(0).figures.at("train_tokens_per_s");
    const Figure& plain_tps = q.candidates.front().figures.at("train_tokens_per_s");
    EXPECT_DOUBLE_EQ(tps.value, plain_tps.value); // no point moves
    EXPECT_NEAR(tps.low, 0.86 * plain_tps.low, 1e-9 * plain_tps.low);
    EXPECT_DOUBLE_EQ(tps.high, plain_tps.high);
    const Figure& step = p.candidates.at(0).figures.at("step_time_s");
    EXPECT_NEAR(step.high, q.candidates.front().figures.at("step_time_s").high / 0.86, 1e-9 * step.high);
    EXPECT_GT(plain_tps.low, 1088717.0); // MaxText's row: outside the band without the share
    EXPECT_LT(tps.low, 1088717.0);       // inside it with the share
    bool noted = false;
    for (const std::string& n : p.candidates.at(0).notes) noted = noted || n.find("not calibrated across fast domains") != std::string::npos;
    EXPECT_TRUE(noted);
    // One slice: the share does not apply.
    const Plan one = run(job(256));
    const Plan one_plain = plan_from_json(job(256), plain, false);
    ASSERT_FALSE(one_plain.candidates.empty());
    EXPECT_DOUBLE_EQ(one.candidates.at(0).figures.at("train_tokens_per_s").low, one_plain.candidates.front().figures.at("train_tokens_per_s").low);
}

// LitGPT's LoRA script with --quantize bnb.nf4 (runtimes.json litgpt), Llama 2 7B (6,738,415,616 params counted from its
// shape, h 4,096, i 11,008, vocab 32,000, 32 layers), rank 8 on Q and V, one 1,304-token sequence, no recomputation, the
// allocated peak by hand:
//   weights: 4.5-bit base with the head quantized too: (6,738,415,616 - 131,072,000) x 0.5625 + 131,072,000 x 2 =
//            3,978,774,784; adapters 32 x 8 x 16,384 = 4,194,304 x 2 bytes: 3,987,163,392; gradients 8,388,608; moments 16,777,216
//   per token and layer (bf16): norms 4h + QKV and MLP inputs (MatMul4Bit keeps them) 4h + Q, K, V and the output
//            projection's input 8h + gated MLP 4 x 2i + dropout copy and mask 3h + Q and K copies 4h + zero_pad's
//            source 4h = 27h + 8i = 110,592 + 88,064 = 198,656 bytes; x 1,304 x 32 = 8,289,517,568
//   logits: 1,304 x 32,000 x (2 kept + 2 log-softmax) = 166,912,000; the head dequantized to fp16 and cast to bf16:
//            131,072,000 x 4 = 524,288,000.  Total 12,993,046,784 bytes (the resource table: 14.14 GB measured).
TEST(Runtimes, LitGptKeepsWhatItsCodeSaves) {
    const Plan p = run(R"({"stage": "finetune", "model": "llama-2-7b", "precision": {"weights": "nf4-no-dq", "compute": "bf16"},
        "train": {"method": "qlora", "lora_rank": 8, "runtime": "litgpt", "seq_len": 1304, "micro_batch": 1, "checkpointing": "none"},
        "hardware": {"devices": ["a100-40gb"], "count": 1}})");
    const MemoryUse& m = p.candidates.at(0).memory;
    EXPECT_NEAR(m.weights_bytes, 3987163392.0, 1e3);
    EXPECT_NEAR(m.activations_bytes, 8289517568.0 + 166912000.0 + 524288000.0, 1e3);
    EXPECT_NEAR(m.total_bytes - m.overhead_bytes - m.managed_bytes, 12993046784.0, 1e3);
}

// Encoder runtimes (runtimes.json encoder_runtimes): an unfused runtime adds its counted traffic at the device's
// bandwidth and its launches at kernel_launch_overhead_s to the fused engine's batch time. BERT-Base, 8 x 128 tokens,
// FP16 on an A100 80GB, tensorflow-xla (48 passes of tokens x hidden, 6 of the scores, 25 kernels per layer), by hand:
//   bytes per item: 12 layers x 2 bytes x (48 x 128 x 768 + 6 x 12 x 128^2) = 24 x 5,898,240 = 141,557,760; x 8 items
//   at 2,039e9 B/s x 0.78 (decode_bandwidth_efficiency): 1,132,462,080 / 1.59042e12 = 0.71205 ms
//   launches: 12 x 25 x 4.25 us (kernel_launch_overhead_s) = 1.275 ms; 1.98705 ms more per batch in all.
TEST(EncoderRuntimes, AnUnfusedRuntimeAddsItsCountedTrafficAndLaunches) {
    auto batch_s = [](const char* runtime) {
        const Plan p = run(std::string(R"({"stage": "embed", "model": "bert-base-uncased", "precision": "fp16",
            "embed": {"tokens_per_item": 128, "batch_size": 8, "runtime": ")") + runtime + R"("},
            "hardware": {"devices": ["a100-80gb"], "count": 1}})");
        return 8.0 / p.candidates.at(0).figures.at("items_per_s").value;
    };
    const double extra_s = 1132462080.0 / (2039e9 * 0.78) + 12 * 25 * 4.25e-6;
    EXPECT_NEAR(batch_s("tensorflow-xla") - batch_s("tensorrt"), extra_s, 1e-9);
    // The fused engine is the default, and the plan lists it among the assumptions the workload left out.
    const Plan d = run(R"({"stage": "embed", "model": "bert-base-uncased", "precision": "fp16",
        "embed": {"tokens_per_item": 128, "batch_size": 8}, "hardware": {"devices": ["a100-80gb"], "count": 1}})");
    EXPECT_NEAR(8.0 / d.candidates.at(0).figures.at("items_per_s").value, batch_s("tensorrt"), 1e-15);
    EXPECT_TRUE(std::any_of(d.missing_assumptions.begin(), d.missing_assumptions.end(),
                            [](const std::string& m) { return m.rfind("embed.runtime: not given; a fused engine (TensorRT) assumed", 0) == 0; }));
}

// An unfused runtime's band spans its launch cost both ways: the slow end pairs the low encoder efficiency and bandwidth
// share with the dearest launch (60.5 us), the fast end the high ones with the cheapest (2.4 us), as eager decode pairs
// eager_op_host_s. BERT-Base 8 x 128 FP16 on an A100 80GB, tensorflow-xla against tensorrt at each end, by hand (the
// 1,132,462,080 bytes of the test above):
//   fast end: 1,132,462,080 / (2,039e9 x 0.91) + 12 x 25 x 2.4 us = 0.61033 + 0.72 = 1.33033 ms more per batch
//   slow end: 1,132,462,080 / (2,039e9 x 0.42) + 12 x 25 x 60.5 us = 1.32238 + 18.15 = 19.47238 ms more per batch
TEST(EncoderRuntimes, AnUnfusedRuntimesBandSpansItsLaunchCostBothWays) {
    auto items = [](const char* runtime) {
        const Plan p = run(std::string(R"({"stage": "embed", "model": "bert-base-uncased", "precision": "fp16",
            "embed": {"tokens_per_item": 128, "batch_size": 8, "runtime": ")") + runtime + R"("},
            "hardware": {"devices": ["a100-80gb"], "count": 1}})");
        return p.candidates.at(0).figures.at("items_per_s");
    };
    const Figure xla = items("tensorflow-xla"), trt = items("tensorrt");
    EXPECT_NEAR(8.0 / xla.high - 8.0 / trt.high, 1132462080.0 / (2039e9 * 0.91) + 12 * 25 * 2.4e-6, 1e-9);
    EXPECT_NEAR(8.0 / xla.low - 8.0 / trt.low, 1132462080.0 / (2039e9 * 0.42) + 12 * 25 * 60.5e-6, 1e-9);
    EXPECT_GT(xla.high, xla.value);
}

// A power-capped board's 16-bit rate is bounded by its power, not clocked at the rate a continuous GEMM leaves
// (performance.h power_capped_flop_per_s; T4: 65 TFLOPS FP16 at boost, about 24 sustained under 70 W, NVIDIA
// developer forum). A compute-bound TensorRT encoder batch on T4, by hand. Since item 98 the T4 records its 40 SMs, so
// the weight GEMMs keep the share u of their time that tile and wave quantisation leaves (block share w = 0.980426 at
// 16,384 rows, performance_test BertBaseBatch8OnV100; attention, 603,979,776 of 22,529,900,544 FLOPs an item, keeps the
// full share): u = 1 / ((1 - a) / w + a), a = 603979776 / 22529900544, u = 0.980940:
//   typical (r = 0): min(65e12 x 0.61 x u, 24e12) = min(38.89e12, 24e12) = 24e12 FLOP/s (the ceiling still binds)
//   slow end (encoder_compute_efficiency 0.418, r = 1): min(65e12 x 0.418 u, 24e12 x 0.418 u) = 10.032e12 x u
//   fast end (0.699, r = 0): min(45.435e12 u, 24e12) = 24e12, the typical value.
// Its FP32 path has no cap recorded and keeps the published 8.1 TFLOPS: 8.1e12 x 0.61 = 4.941e12.
namespace {
// The share of an encoder batch's time its FLOPs keep when the weight GEMMs (all but the attention share `a` of the
// FLOPs) run at block wave share `w` and attention at the full share: 1 / ((1 - a) / w + a) (plan_embed.cpp wave_share).
double encoder_wave_share(double w, double a) { return 1.0 / ((1.0 - a) / w + a); }
// BERT-Base at 128 tokens: attention 12 x 4 x 768 x 128^2 = 603,979,776 FLOPs of 22,529,900,544 an item (2 x 85,648,128
// non-embedding parameters x 128 tokens + attention).
const double kBertBaseAttentionShare128 = 603979776.0 / 22529900544.0;
// A compute-bound TensorRT BERT-base batch of 128 x 128 tokens on one `device`: the plan and its encoder phase.
Plan plan_encoder_batch(const char* device, const char* precision) {
    return run(std::string(R"({"stage": "embed", "model": "bert-base-uncased", "precision": ")") + precision + R"(",
        "embed": {"tokens_per_item": 128, "batch_size": 128}, "hardware": {"devices": [")" + device + R"("], "count": 1}})");
}
// The batch runs at `typical_flop_per_s` (the power ceiling), its slow end at `slow_flop_per_s`, its fast end at the
// typical, or at `fast_flop_per_s` where the board's cap is carried from another board (the fast end lifts it).
void expect_capped_encoder(const char* device, double typical_flop_per_s, double slow_flop_per_s, double fast_flop_per_s = 0) {
    SCOPED_TRACE(device);
    const Plan p = plan_encoder_batch(device, "fp16");
    const Roofline& r = p.candidates.at(0).phases.back().roofline;
    ASSERT_TRUE(r.compute_bound);
    EXPECT_NEAR(r.flops / r.compute_s, typical_flop_per_s, 1e3);
    const Figure& items = p.candidates.at(0).figures.at("items_per_s");
    EXPECT_NEAR(items.low, 128 * slow_flop_per_s / r.flops, 1e-9 * items.value);
    if (fast_flop_per_s > 0) {
        EXPECT_NEAR(items.high, 128 * fast_flop_per_s / r.flops, 1e-9 * items.value);
        EXPECT_TRUE(has_note(p.candidates.at(0), std::string("power cap not measured on ") + device));
    } else {
        EXPECT_NEAR(items.high, items.value, 1e-9 * items.value);
        EXPECT_FALSE(has_note(p.candidates.at(0), "power cap not measured on"));
    }
}
} // namespace

TEST(EncoderRuntimes, APowerCappedBoardRunsItsEncoderUnderItsPowerCeiling) {
    // T4, 40 SMs at 16,384 rows: w = 12 / (3 x 2320/2304 + 800/768 + 4 x 3080/3072 + 4 x 800/768).
    const double u = encoder_wave_share(12.0 / (3 * 2320.0 / 2304 + 800.0 / 768 + 4 * 3080.0 / 3072 + 4 * 800.0 / 768), kBertBaseAttentionShare128);
    EXPECT_NEAR(u, 0.980940, 1e-6);
    expect_capped_encoder("t4", 24e12, 10.032e12 * u);
    const Plan f = plan_encoder_batch("t4", "fp32");
    const Roofline& rf = f.candidates.at(0).phases.back().roofline;
    ASSERT_TRUE(rf.compute_bound);
    // FP32 runs on the CUDA cores, uncapped: 8.1 TFLOPS x 0.61 = 4.941e12, times the same wave share u (the wave model
    // takes one tile for every GEMM path; CUTLASS's SIMT default on Sm75 is 128 x 128, not modelled apart).
    EXPECT_NEAR(rf.flops / rf.compute_s, 4.941e12 * u, 1e3);
}

// The 72 W L4 records the T4's rule carried over (121 TFLOPS FP16 at its 2040 MHz boost x 795 / 2040, its base clock:
// 47 TFLOPS, catalog/devices/l4.json; not an L4 measurement). The same TensorRT batch, by hand:
//   typical (r = 0): min(121e12 x 0.61, 47e12) = min(73.81e12, 47e12) = 47e12 FLOP/s
//   slow end (0.418, r = 1): min(121e12 x 0.418, 47e12 x 0.418) = 19.646e12
//   fast end (0.699): the cap is carried, not measured (compute.sustained_16bit_measured false), so it is lifted:
//   121e12 x 0.699 = 84.579e12
TEST(EncoderRuntimes, TheL4RunsItsEncoderUnderItsPowerCeilingToo) {
    expect_capped_encoder("l4", 47e12, 19.646e12, 84.579e12);
}

// The 150 W A10 records the same rule (125 TFLOPS BF16 at its 1695 MHz boost x 885 / 1695, its base clock: 65.3,
// recorded as 65, catalog/devices/a10.json; not an A10 measurement). Its FP16 batch falls back to the BF16 peak and
// reads the cap. Since item 98 it records 72 SMs: at 16,384 rows QKV 2304 tiles fill 32 waves exactly, out 768 take 11
// (792), up 3072 take 43 (3096), down 792: w = 12 / (3 + 792/768 + 4 x 3096/3072 + 4 x 792/768) = 12 / 12.1875, and
// u = 1 / ((1 - a) / w + a) = 0.985022 (a, BERT-Base's attention share above). By hand:
//   typical (r = 0): min(125e12 x 0.61 u, 65e12) = min(75.11e12, 65e12) = 65e12 FLOP/s
//   slow end (0.418, r = 1): min(125e12 x 0.418 u, 65e12 x 0.418 u) = 27.17e12 x u
//   fast end (0.699), the carried cap lifted: 125e12 x 0.699 u = 87.375e12 x u
TEST(EncoderRuntimes, TheA10RunsItsEncoderUnderItsPowerCeilingToo) {
    const double u = encoder_wave_share(12.0 / 12.1875, kBertBaseAttentionShare128);
    EXPECT_NEAR(u, 0.985022, 1e-6);
    expect_capped_encoder("a10", 65e12, 27.17e12 * u, 87.375e12 * u);
}

// FasterTransformer's encoder (runtimes.json fastertransformer, item 112) runs Q, K and V as bias-free GEMMs and then one
// kernel that adds their biases and interleaves them for the fused attention (FusedAttentionLayer.cu trt_add_QKV_bias at
// 4c014fba: reads 3E, writes 3E), where TensorRT's engine, on which encoder_compute_efficiency was fitted, takes the
// bias inside its QKV layer. BERT-Base FP16, 32 x 128 tokens on one A10, by hand: the 4,096-row weight GEMMs keep
// 0.941 of the 72 SMs busy, so 0.61 x 0.94 x 125e12 > 65e12 and the power ceiling binds: 32 x 22,529,900,544 FLOPs
// / 65e12 = 11.0916 ms; the extra kernel moves 6 x 4,096 tokens x 768 x 2 bytes x 12 layers = 452,984,832 bytes at
// 600e9 x 0.78 B/s = 0.9679 ms; 32 / 12.0596 ms = 2,653.50 items/s (2,885.05 as the fused default; the source, FT's
// bert_guide A10 table, measured 2,091.5). Not fitted, so the figure is modelled, not calibrated.
TEST(EncoderRuntimes, FasterTransformerPaysItsQkvBiasKernelOnTopOfTheFusedEngine) {
    auto items = [](const char* runtime) {
        SCOPED_TRACE(runtime);
        return run(std::string(R"({"stage": "embed", "model": "bert-base-uncased", "precision": "fp16",
            "embed": {"tokens_per_item": 128, "batch_size": 32)") + runtime + R"(},
            "hardware": {"devices": ["a10"], "count": 1}})").candidates.at(0).figures.at("items_per_s");
    };
    const double flops = 32 * 22529900544.0;
    const double extra_bytes = 6.0 * 4096 * 768 * 2 * 12;
    EXPECT_DOUBLE_EQ(extra_bytes, 452984832.0);
    const Figure ft = items(R"(, "runtime": "fastertransformer")");
    EXPECT_NEAR(ft.value, 32 / (flops / 65e12 + extra_bytes / (600e9 * 0.78)), 1e-6 * ft.value); // 2,653.50
    EXPECT_NEAR(ft.value, 2653.50, 0.01);
    EXPECT_EQ(ft.label, Label::modelled);
    EXPECT_NE(ft.why.find("fastertransformer moves 453 MB outside the GEMMs"), std::string::npos) << ft.why;
    const Figure fused = items("");
    EXPECT_NEAR(fused.value, 32 / (flops / 65e12), 1e-6 * fused.value); // 2,885.05
}

// A V100 records its 80 SMs (item 98: OLCF's Summit user guide; CUTLASS's default tensor-op tile is the same on Sm70
// as on Sm80), so a small encoder batch pays tile and wave quantisation there as on an A100. BERT-Base FP16, 8 x 128
// tokens, TensorRT, one V100 (125 TFLOPS FP16, no power cap recorded), by hand: 1,024 rows keep w = 0.72 of the SMs
// (performance_test BertBaseBatch8OnV100), u = 1 / (0.973192 / 0.72 + 0.026808) = 0.725445; the batch's
// 8 x 22,529,900,544 FLOPs run at 125e12 x 0.61 x u = 55.315e12 FLOP/s: 8 x 55.315e12 / 180,239,204,352 = 2,455.2
// items/s (before item 98, without the SM count: 3,384.4); the band's ends take encoder_compute_efficiency 0.418 and
// 0.699: 1,682.4 and 2,813.4 items/s.
TEST(EncoderRuntimes, AV100SmallBatchPaysWaveQuantisationOnItsEightySMs) {
    const Plan p = run(R"({"stage": "embed", "model": "bert-base-uncased", "precision": "fp16",
        "embed": {"tokens_per_item": 128, "batch_size": 8}, "hardware": {"devices": ["v100-32gb"], "count": 1}})");
    const double u = encoder_wave_share(0.72, kBertBaseAttentionShare128);
    EXPECT_NEAR(u, 0.725445, 1e-6);
    const double flops = 8 * 22529900544.0;
    const Figure& items = p.candidates.at(0).figures.at("items_per_s");
    EXPECT_NEAR(items.value, 8 * 125e12 * 0.61 * u / flops, 1e-6 * items.value); // 2,455.2
    EXPECT_NEAR(items.low, 8 * 125e12 * 0.418 * u / flops, 1e-6 * items.value);  // 1,682.4
    EXPECT_NEAR(items.high, 8 * 125e12 * 0.699 * u / flops, 1e-6 * items.value); // 2,813.4
    EXPECT_NE(items.why.find("of 80 SMs busy"), std::string::npos) << items.why;
}

// Prefill reads a power-capped board by the same rule as an encoder (plan_eval.h Peak::achieved), not as the sustained
// rate times its efficiency. A 2,048-token prompt of Llama 2 7B in FP16 on one L4 (prefill_compute_efficiency 0.61;
// 121 TFLOPS at boost, 47 sustained), the prefill's GEMM rate by hand:
//   r = 0 (the default):             min(121e12 x 0.61, 47e12) = 47e12 FLOP/s (the ceiling binds)
//   r = 1 (pinned, the band's slow end): min(121e12 x 0.61, 47e12 x 0.61) = 28.67e12 FLOP/s
// and on an A100 80GB (no cap recorded) 312e12 x 0.61 = 190.32e12 FLOP/s.
TEST(PowerCap, PrefillOnAPowerCappedBoardRunsUnderItsCeilingAsEncodersDo) {
    auto prefill_rate = [](const char* device, const char* assumptions) {
        SCOPED_TRACE(device);
        const Plan p = run(std::string(R"({"stage": "serve", "model": "llama-2-7b", "precision": "fp16",
            "serve": {"context_tokens": 2304, "prompt_tokens": 2048, "output_tokens": 256, "concurrent_users": 1},
            "hardware": {"devices": [")") + device + R"("], "count": 1}, "assumptions": {)" + assumptions + "}}");
        for (const auto& ph : p.candidates.at(0).phases)
            if (ph.name.rfind("prefill", 0) == 0 && ph.roofline.compute_s > 0) return ph.roofline.flops / ph.roofline.compute_s;
        ADD_FAILURE() << "no prefill phase";
        return 0.0;
    };
    EXPECT_NEAR(prefill_rate("l4", ""), 47e12, 1e-6 * 47e12);
    EXPECT_NEAR(prefill_rate("l4", R"("power_cap_idle_power_ratio": 1)"), 28.67e12, 1e-6 * 28.67e12);
    EXPECT_NEAR(prefill_rate("a100-80gb", ""), 190.32e12, 1e-6 * 190.32e12);
}

// A layout's MFU is read against the datasheet peak, also on a capped board. A LoRA step on one T4 (finetune_mfu 0.437,
// read on runs with full recomputation, which the workload states so the basis applies as read): its GEMMs run at
// min(0.437 x 65e12, 24e12) = 24e12 FLOP/s, an MFU of 24 / 65 = 0.36923 (read against the 24 TFLOPS cap it would say
// 1.0); on an A100 80GB, no cap, it is the finetune_mfu itself, 0.437.
TEST(PowerCap, ALayoutsMfuIsReadAgainstTheDatasheetPeak) {
    auto mfu = [](const char* device) {
        SCOPED_TRACE(device);
        const Plan p = run(std::string(R"({"stage": "finetune", "model": "llama-3.2-1b", "precision": "bf16",
            "train": {"method": "lora", "seq_len": 1024, "tokens": 10000000, "checkpointing": "full"}, "hardware": {"devices": [")") + device + R"("], "count": 1}})");
        const auto& alts = p.candidates.at(0).layouts.layouts;
        if (alts.empty()) { ADD_FAILURE() << "no layout"; return 0.0; }
        return alts.front().mfu;
    };
    EXPECT_NEAR(mfu("t4"), 24.0 / 65.0, 1e-6);
    EXPECT_NEAR(mfu("a100-80gb"), 0.437, 1e-6);
}

// An encoder on another vendor's accelerator with no runtime named: the default (a fused TensorRT engine, the profile
// encoder_compute_efficiency was calibrated under on A100) does not run there, so the plan keeps the fused point estimate,
// labels it modelled and its band also spans every catalog runtime profile at the typical assumptions. BERT-base, BF16,
// batch 32 of 128 tokens on one TPU v5e (197 TFLOPS BF16, 819 GB/s), by hand:
//   point (fused): flops / (0.61 x 197e12)
//   slowest profile, tensorflow-xla: 48 E + 6 S per layer, E = 128 x 768, S = 12 x 128^2, 2 bytes a value:
//     12 x (48 x 98,304 + 6 x 196,608) x 2 = 141,557,760 bytes per item, x 32 = 4,529,848,320 bytes per batch
//     at 819e9 x 0.78 = 638.82e9 B/s: 7.09096 ms; launches 12 x 25 x 4.25 us = 1.275 ms
//   (pytorch-eager: 12 x (30 x 98,304 + 8 x 196,608) x 2 x 32 = 3,472,883,712 bytes, 5.43640 ms + 12 x 22 x 4.25 us: faster;
//   neuronx-cc: no vector engine rate on a TPU, so the fused time)
//   slow end: 32 / (flops / (0.61 x 197e12) + 0.00709096 + 0.001275) items/s
// Naming the runtime, or an NVIDIA device, keeps the calibrated reading. An AWS Neuron device (Inferentia2) is not such a
// case since its compiler has a profile of its own (runtimes.json neuronx-cc default_on_stack aws-neuron): with no runtime
// named it takes that profile, exactly as if named, and says nothing of the fused default.
TEST(EncoderRuntimes, AnotherVendorsAcceleratorSaysTheDefaultIsNotCalibratedAndSpansEveryProfile) {
    auto plan_on = [](const char* device, const char* runtime) {
        return run(std::string(R"({"stage": "embed", "model": "bert-base-uncased", "precision": "bf16",
            "embed": {"tokens_per_item": 128, "batch_size": 32)") + (*runtime ? std::string(R"(, "runtime": ")") + runtime + "\"" : "") +
                   R"(}, "hardware": {"devices": [")" + device + R"("], "count": 1}})");
    };
    const Plan p = plan_on("tpu-v5e", "");
    const Candidate& c = p.candidates.at(0);
    const Roofline& r = c.phases.back().roofline;
    ASSERT_TRUE(r.compute_bound);
    const double fused_s = r.flops / (0.61 * 197e12);
    const Figure& items = c.figures.at("items_per_s");
    EXPECT_NEAR(items.value, 32 / fused_s, 1e-9 * items.value);
    EXPECT_NEAR(items.low, 32 / (fused_s + 4529848320.0 / (819e9 * 0.78) + 12 * 25 * 4.25e-6), 1e-9 * items.value);
    EXPECT_EQ(items.label, Label::modelled);
    EXPECT_TRUE(has_note(c, "encoder runtime not calibrated for tpu-v5e"));
    const Plan named_plan = plan_on("tpu-v5e", "tensorflow-xla");
    const Candidate& named = named_plan.candidates.at(0);
    EXPECT_FALSE(has_note(named, "encoder runtime not calibrated for"));
    const Plan nvidia_plan = plan_on("a100-80gb", "");
    const Candidate& nvidia = nvidia_plan.candidates.at(0);
    EXPECT_FALSE(has_note(nvidia, "encoder runtime not calibrated for"));
    EXPECT_EQ(nvidia.figures.at("items_per_s").label, Label::calibrated);
    const Plan neuron_plan = plan_on("inferentia2", "");
    const Candidate& neuron = neuron_plan.candidates.at(0);
    EXPECT_FALSE(has_note(neuron, "encoder runtime not calibrated for"));
    EXPECT_TRUE(has_note(neuron, "not calibrated for this runtime (neuronx-cc)"));
    EXPECT_NEAR(neuron.figures.at("items_per_s").value, plan_on("inferentia2", "neuronx-cc").candidates.at(0).figures.at("items_per_s").value, 1e-9);
}

// A Neuron-compiled encoder (runtimes.json encoder_runtimes neuronx-cc) runs its element-wise work, the PSUM read-outs
// and the transposes on the NeuronCores' vector engines, after the tensor engine's matmuls: 28 passes of tokens x
// hidden and 6 of the scores per layer, one cycle per element and input, at Inferentia2's 2 x 128 lanes x 1.12 GHz
// = 286.72e9 elements/s (AWS's NKI architecture guide). BERT-Base BF16, 32 x 128 tokens on one Inferentia2, by hand:
//   per item: 12 layers x (28 x 128 x 768 + 6 x 12 x 128^2) = 12 x (2,752,512 + 1,179,648) = 47,185,920 cycles
//   per batch: 32 x 47,185,920 = 1,509,949,440 element-cycles / 286.72e9 = 5.26628 ms more than the fused engine's batch
// The matmuls keep encoder_compute_efficiency (0.61 typical, 0.418 at the slow end) of 190 TFLOPS, and the scores stay
// on chip (no score matrices in device memory, unlike the GPU eager profiles).
TEST(EncoderRuntimes, ANeuronCompiledEncoderRunsItsElementWorkOnTheVectorEngines) {
    auto plan_with = [](const char* device, const char* runtime) {
        return run(std::string(R"({"stage": "embed", "model": "bert-base-uncased", "precision": "bf16",
            "embed": {"tokens_per_item": 128, "batch_size": 32, "runtime": ")") + runtime + R"("},
            "hardware": {"devices": [")" + device + R"("], "count": 1}})");
    };
    const double engine_s = 1509949440.0 / 286.72e9;
    EXPECT_NEAR(engine_s, 5.26628e-3, 1e-8);
    const Plan neuron = plan_with("inferentia2", "neuronx-cc");
    const Plan fused = plan_with("inferentia2", "tensorrt");
    const Candidate& c = neuron.candidates.at(0);
    const Phase& b = c.phases.back();
    ASSERT_TRUE(b.roofline.compute_bound);
    EXPECT_NEAR(b.time_s - fused.candidates.at(0).phases.back().time_s, engine_s, 1e-12);
    const Figure& items = c.figures.at("items_per_s");
    EXPECT_NEAR(items.value, 32 / (b.roofline.flops / (0.61 * 190e12) + engine_s), 1e-9 * items.value);
    EXPECT_NEAR(items.low, 32 / (b.roofline.flops / (0.418 * 190e12) + engine_s), 1e-9 * items.value);
    EXPECT_EQ(items.label, Label::modelled);
    EXPECT_TRUE(has_note(c, "not calibrated for this runtime (neuronx-cc)"));
    EXPECT_FALSE(has_note(c, "encoder runtime not calibrated for inferentia2")); // a runtime was named
    EXPECT_DOUBLE_EQ(c.memory.activations_bytes, fused.candidates.at(0).memory.activations_bytes);
    // A device that records no vector engine rate (a GPU) cannot price that work: the plan adds nothing and says so.
    const Plan gpu = plan_with("a100-80gb", "neuronx-cc");
    EXPECT_NEAR(gpu.candidates.at(0).phases.back().time_s, plan_with("a100-80gb", "tensorrt").candidates.at(0).phases.back().time_s, 1e-15);
    EXPECT_TRUE(has_note(gpu.candidates.at(0), "no vector engine rate recorded for a100-80gb"));
}

// An eager runtime no efficiency was calibrated under says so and stays `modelled`; its band spans the launch cost's
// range (kernel_launch_overhead_s 2.4 to 60.5 us), so its slow end lies below its typical value.
TEST(EncoderRuntimes, AnUncalibratedRuntimeSaysSoAndWidensItsBand) {
    const Plan p = run(R"({"stage": "embed", "model": "bert-base-uncased", "precision": "fp16",
        "embed": {"tokens_per_item": 128, "batch_size": 8, "runtime": "pytorch-eager"},
        "hardware": {"devices": ["a100-80gb"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    EXPECT_EQ(c.figures.at("items_per_s").label, Label::modelled);
    EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.find("not calibrated for this runtime (pytorch-eager)") == 0; }));
    // 12 x 22 launches at 60.5 us add 15.97 ms to a batch: the slow end is under half the typical rate here.
    EXPECT_LT(c.figures.at("items_per_s").low, 0.5 * c.figures.at("items_per_s").value);
}

// An eager Python decode loop (serve.runtime, catalog/runtimes.json decode_runtimes) issues its operations one at a
// time; the device runs ahead and then waits on the host. LitGPT's generate on Llama 2 7B, 32 blocks of 42 operations
// and 22 outside them (the profile's counts from lit_gpt/model.py at 8641822), at eager_op_host_s = 21.2 us (the
// gpt-fast blog's eager baseline: 39.2 ms / 1,849 operations), by hand:
//   host: (32 x 42 + 22) x 21.2 us = 1,366 x 21.2 us = 28.9592 ms
//   device: 13.5 GB of bf16 weights at 0.78 x 2,039 GB/s, about 8.5 ms, under the host's time
// so the step is the host's 28.9592 ms. Its slow end takes 60.5 us an operation (1,366 x 60.5 us = 82.643 ms).
TEST(DecodeRuntimes, AnEagerLoopOnAFastDeviceWaitsOnItsHost) {
    const Plan p = run(R"({"stage": "serve", "model": "llama-2-7b", "precision": "bf16",
        "serve": {"context_tokens": 66, "prompt_tokens": 16, "output_tokens": 50, "concurrent_users": 1, "runtime": "litgpt"},
        "hardware": {"devices": ["a100-80gb"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    const Figure& step = c.figures.at("decode_step_s");
    EXPECT_NEAR(step.value, 1366 * 21.2e-6, 1e-9);
    EXPECT_NEAR(1.0 / c.figures.at("decode_tokens_per_s_per_user").low, 1366 * 60.5e-6, 1e-9);
    EXPECT_EQ(step.label, Label::modelled);
    EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.find("not calibrated for this runtime (litgpt)") == 0; }));
}

// On a slow device the same loop hides under the device's time: Llama 2 13B bf16 on an RTX A6000 (26 GB at
// 0.78 x 768 GB/s, about 43 ms, against a host of (40 x 45 + 40) x 21.2 us = 39.0 ms for transformers' generate).
// The step is then the device's own, without the tuned runtime's decode_step_overhead_s (0.87 ms), whose launches
// the eager loop's count already holds.
TEST(DecodeRuntimes, AnEagerLoopOnASlowDeviceIsTheDevicesTime) {
    auto step = [](const char* runtime) {
        const Plan p = run(std::string(R"({"stage": "serve", "model": "llama-2-13b", "precision": "bf16",
            "serve": {"context_tokens": 256, "prompt_tokens": 128, "output_tokens": 128, "concurrent_users": 1, "runtime": ")") + runtime + R"("},
            "hardware": {"devices": ["rtx-a6000"], "count": 1}})");
        return p.candidates.at(0).figures.at("decode_step_s").value;
    };
    EXPECT_GT(step("pytorch-eager"), (40 * 45 + 40) * 21.2e-6);
    EXPECT_NEAR(step("tuned") - step("pytorch-eager"), 0.87e-3, 1e-9);
}

// transformers' repeat_kv (modeling_llama.py, v4.31 on) expands a grouped model's K and V to the query heads and
// reshapes them, a copy each, before attention: the pytorch-eager profile (v4.36) adds host_ops_per_grouped_kv_layer = 2
// a layer when kv_heads < heads; with as many KV heads as query heads repeat_kv returns its input and adds nothing. On
// one H100 SXM the device takes a few ms, so the step is the host's, by hand at eager_op_host_s = 21.2 us:
//   Llama 3.1 8B (32 layers, 8 KV heads of 32): (32 x (45 + 2) + 40) x 21.2 us = 1,544 x 21.2 us = 32.7328 ms
//   Llama 2 7B (32 layers, 32 KV heads of 32):  (32 x 45 + 40) x 21.2 us = 1,480 x 21.2 us = 31.376 ms
TEST(DecodeRuntimes, TransformersRepeatKvCopiesCountOnlyForGroupedKvHeads) {
    auto step = [](const char* model) {
        return run(std::string(R"({"stage": "serve", "model": ")") + model + R"(", "precision": "fp16",
            "serve": {"context_tokens": 320, "prompt_tokens": 64, "output_tokens": 256, "concurrent_users": 1, "runtime": "pytorch-eager"},
            "hardware": {"devices": ["h100-sxm"], "count": 1}})").candidates.at(0).figures.at("decode_step_s").value;
    };
    EXPECT_NEAR(step("llama-3.1-8b"), 1544 * 21.2e-6, 1e-9);
    EXPECT_NEAR(step("llama-2-7b"), 1480 * 21.2e-6, 1e-9);
}

// transformers 4.34 (premAI's bench_pytorch pins transformers==4.34.1 with torch==2.0.0) has no SDPA class for Llama:
// LlamaAttention runs QK^T, the scaling, the additive mask, a float32 cast, softmax, the cast back and PV (7 where
// SDPA is 1), and LlamaModel rebuilds the 4-D mask every step ('0 in attention_mask': 2, _expand_mask: 4, where 4.36's
// all-ones check is 2). The transformers-4.34 profile counts 51 a layer and 44 a step. Llama 2 7B on one H100 SXM,
// by hand: (32 x 51 + 44) x 21.2 us = 1,676 x 21.2 us = 35.5312 ms, the host's.
TEST(DecodeRuntimes, TransformersFourThirtyFourRunsEagerAttention) {
    const Plan p = run(R"({"stage": "serve", "model": "llama-2-7b", "precision": "fp16",
        "serve": {"context_tokens": 560, "prompt_tokens": 48, "output_tokens": 512, "concurrent_users": 1, "runtime": "transformers-4.34"},
        "hardware": {"devices": ["h100-sxm"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    EXPECT_NEAR(c.figures.at("decode_step_s").value, 1676 * 21.2e-6, 1e-9);
    EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.find("not calibrated for this runtime (transformers-4.34)") == 0; }));
}

// TinyChat's FP16 rows (mit-han-lab/llm-awq b76fab6: demo.py --precision W16A16 loads the Hugging Face weights into
// tinychat/models/llama.py) run TinyChat's own block: two fused RMSNorm kernels, q, k and v nn.Linear, one
// single-query attention kernel (rotary, cache write and attention; it takes the KV heads as they are), o_proj, a
// residual add, gate, SiLU, up, product, down and a residual add: 14 a layer; the timed forward adds the token's copy
// to the device, the embedding, the final norm, the LM head and its float(): 5 (sampling runs after the second
// synchronize, outside the figure). On one H100 SXM the host sets the pace, by hand:
//   Llama 2 7B and Llama 3.1 8B (32 layers): 32 x 14 + 5 = 453 x 21.2 us = 9.6036 ms (no repeat_kv copies for 8 KV heads);
//   Llama 2 13B (40 layers): 40 x 14 + 5 = 565 x 21.2 us = 11.978 ms.
TEST(DecodeRuntimes, TinyChatFp16CountsItsOwnBlockAndTheTimedForward) {
    auto step = [](const char* model) {
        return run(std::string(R"({"stage": "serve", "model": ")") + model + R"(", "precision": "fp16",
            "serve": {"context_tokens": 320, "prompt_tokens": 64, "output_tokens": 256, "concurrent_users": 1, "runtime": "tinychat-fp16"},
            "hardware": {"devices": ["h100-sxm"], "count": 1}})").candidates.at(0).figures.at("decode_step_s").value;
    };
    EXPECT_NEAR(step("llama-2-7b"), 9.6036e-3, 1e-9);
    EXPECT_NEAR(step("llama-3.1-8b"), 9.6036e-3, 1e-9);
    EXPECT_NEAR(step("llama-2-13b"), 11.978e-3, 1e-9);
}

// llama-cpp-python before 0.2.76 copies each step's logits into numpy through a Python list (Llama.eval slices
// llama_get_logits()'s c_float pointer), after llama_decode has returned: the device idles meanwhile, so the host's
// time adds to the step rather than hiding under it. Llama 2 7B's 32,000 logits at python_value_round_trip_host_s
// (50.1 ns: llama-cpp-python PR #1021's 75.2 ns for one creation and two conversions of a value, times 2/3), by hand:
//   32,000 x 50.1 ns = 1.6032 ms on top of the same step under a tuned runtime (llama.cpp's own GGUF rule).
TEST(DecodeRuntimes, APythonBindingsLogitCopyAddsToTheStep) {
    auto step = [](const char* runtime) {
        const Plan p = run(std::string(R"({"stage": "serve", "model": "llama-2-7b", "precision": {"weights": "q4_0", "kv_cache": "fp16", "compute": "fp16"},
            "serve": {"context_tokens": 512, "prompt_tokens": 11, "output_tokens": 501, "concurrent_users": 1, "runtime": ")") + runtime + R"("},
            "framework": "llama.cpp", "hardware": {"devices": ["a100-80gb"], "count": 1}})");
        return p.candidates.at(0);
    };
    const Candidate python = step("llama-cpp-python-0.2");
    EXPECT_NEAR(python.figures.at("decode_step_s").value - step("tuned").figures.at("decode_step_s").value, 32000 * 50.1e-9, 1e-12);
    EXPECT_EQ(python.figures.at("decode_step_s").label, Label::modelled);
    EXPECT_TRUE(std::any_of(python.notes.begin(), python.notes.end(),
                            [](const std::string& n) { return n.find("not calibrated for this runtime (llama-cpp-python-0.2): after each step") == 0; }));
}

// text-generation-inference 1.0.3 runs its flash Llama eagerly (no CUDA graph before v1.4.1): the tgi-1.0 profile
// counts 14 operations per layer at tensor parallel (fused add + RMSNorm twice, the qkv and gate_up linears, two
// rotary calls, the paged-cache write, paged attention, o_proj and down_proj with an NCCL all-reduce each, SiLU and
// the product) and 22 outside (embedding, cos/sin index, final norm, LM head and its all-gather, greedy choice, the
// bookkeeping and two host copies), each at the profile's own host_op_s (42.46 us: TGI issue #1315's tensor-parallel
// steps over the same count, catalog_test). Llama 2 7B on 4 x A10G at tensor parallel 4, by hand:
//   host: (32 x 14 + 22) x 42.46 us = 470 x 42.46 us = 19.9562 ms
//   device: 13.5 GB / 4 of fp16 weights at 0.78 x 600 GB/s, about 7.1 ms, plus 64 all-reduces over PCIe: under the host
// so the step is the host's 19.9562 ms. The band's slow end takes eager_op_host_s's high, 470 x 60.5 us = 28.435 ms;
// a workload that pins eager_op_host_s gets its own price (470 x 21.2 us = 9.964 ms).
TEST(DecodeRuntimes, TgiOnePointZeroWaitsOnItsHostOnFourA10gs) {
    const std::string job = R"({"stage": "serve", "model": "llama-2-7b", "precision": "fp16",
        "serve": {"context_tokens": 1024, "prompt_tokens": 167, "output_tokens": 50, "concurrent_users": 1, "tensor_parallel": 4, "runtime": "tgi-1.0"},
        "hardware": {"devices": ["a10g"], "count": 4})";
    const Figure step = run(job + "}").candidates.at(0).figures.at("decode_step_s");
    EXPECT_NEAR(step.value, 470 * 42.46e-6, 1e-9);
    EXPECT_NEAR(step.high, 470 * 60.5e-6, 1e-9);
    EXPECT_NEAR(run(job + R"(, "assumptions": {"eager_op_host_s": 2.12e-5}})").candidates.at(0).figures.at("decode_step_s").value, 470 * 21.2e-6, 1e-9);
}

// TGI 1.0.3 runs its GPTQ query/key/value and gate/up projections on the Triton matmul_248 kernel, which takes
// int4_column_gemv_time_ratio = 0.66 of a 16-bit GEMV's time on the same shape at decode (fpgaminer/GPTQ-triton's
// benchmark): the extra bytes priced are those matrices' int4 bytes x (0.66 x 16 / 4.15625 - 1). Llama 2 7B, one A10G,
// batch 1, by hand:
//   column parameters 32 x 4096 x ((32 + 2 x 32) x 128 + 2 x 11,008) = 4,496,293,888; at 4.15625 bits 2,335,965,184 B
//   extra 2,335,965,184 x 1.5407518797 = 3,599,142,748 B at 0.78 x 600 GB/s = 7.690476 ms
// With the host priced at the catalog-wide eager_op_host_s (pinned here, so that the device binds) the step is
// bandwidth-bound (about 16 ms, above the host's 404 x 21.2 us = 8.56 ms on one device), so it exceeds the tuned runtime's by that
// time less the tuned runtime's decode_step_overhead_s (0.87 ms), which the eager count holds.
TEST(DecodeRuntimes, TgiOnePointZerosTritonGptqProjectionsReadAsSlowAsSixteenBits) {
    auto step = [](const char* runtime) {
        return run(std::string(R"({"stage": "serve", "model": "llama-2-7b", "precision": {"weights": "int4", "kv_cache": "fp16", "compute": "fp16"},
            "serve": {"context_tokens": 1024, "prompt_tokens": 237, "output_tokens": 50, "concurrent_users": 1, "runtime": ")") + runtime + R"("},
            "hardware": {"devices": ["a10g"], "count": 1}, "assumptions": {"eager_op_host_s": 2.12e-5}})").candidates.at(0).figures.at("decode_step_s").value;
    };
    EXPECT_GT(step("tgi-1.0"), 404 * 21.2e-6);
    EXPECT_NEAR(step("tgi-1.0") - step("tuned"), 3599142748.16 / (0.78 * 600e9) - 0.87e-3, 1e-9);
}

// TGI 1.0.3 launches those two GPTQ column projections a layer from Python through Triton (QuantLinearFunction.apply,
// custom_autotune's key, torch.empty, matmul_248_kernel[grid]): each costs the host triton_launch_host_s (96.4 us,
// triton-lang/triton issue #459's CPU time of a Triton matmul called from Python) where a cuBLAS projection costs
// what the profile's other operations cost (its host_op_s, 42.46 us). Llama 2 7B at batch 1 on one H100 SXM, whose device takes a
// few ms; on one device TGI calls no collective (32 x 12 + 20 = 404 operations), by hand:
//   int4: 404 x 42.46 us + 32 x 2 x (96.4 - 42.46) us = 17.15384 ms + 3.45216 ms = 20.606 ms, the host's, the step
//   fp16: 404 x 42.46 us = 17.15384 ms (no Triton launch)
TEST(DecodeRuntimes, TgiOnePointZerosTritonGptqLaunchesCostItsHostMore) {
    auto step = [](const char* weights) {
        return run(std::string(R"({"stage": "serve", "model": "llama-2-7b", "precision": {"weights": ")") + weights + R"(", "kv_cache": "fp16", "compute": "fp16"},
            "serve": {"context_tokens": 1024, "prompt_tokens": 237, "output_tokens": 50, "concurrent_users": 1, "runtime": "tgi-1.0"},
            "hardware": {"devices": ["h100-sxm"], "count": 1}})").candidates.at(0).figures.at("decode_step_s").value;
    };
    EXPECT_NEAR(step("int4"), 404 * 42.46e-6 + 64 * (96.4e-6 - 42.46e-6), 1e-9);
    EXPECT_NEAR(step("fp16"), 404 * 42.46e-6, 1e-9);
}

// TGI 1.0.3's step counts one sequence's bookkeeping; FlashCausalLM.generate_token copies each further sequence's next
// token on its own (all_input_ids_tensor[i, input_length] = next_input_ids[i]), one operation each, and a replica on one
// device calls none of its four collectives (two all-reduces a layer, the embedding's all-reduce and the head's
// all-gather a step). Llama 2 7B fp16 on one H100 SXM (its device a few ms, so the host binds), by hand:
//   batch 1:  32 x (14 - 2) + (22 - 2)            = 404 operations x 42.46 us = 17.15384 ms
//   batch 8:  404 + 7 x 1                          = 411 operations x 42.46 us = 17.45106 ms
//   on 4 A10G at tensor parallel 4, batch 8: 470 + 7 = 477 operations x 42.46 us = 20.25342 ms (the device about 8 ms)
TEST(DecodeRuntimes, TgiOnePointZeroCountsEachSequenceAndNoCollectiveOnOneDevice) {
    auto step = [](int users, const char* device, int count) {
        return run(std::string(R"({"stage": "serve", "model": "llama-2-7b", "precision": "fp16",
            "serve": {"context_tokens": 1024, "prompt_tokens": 167, "output_tokens": 50, "concurrent_users": )") + std::to_string(users) +
                   R"(, "tensor_parallel": )" + std::to_string(count) + R"(, "runtime": "tgi-1.0"}, "hardware": {"devices": [")" + device +
                   R"("], "count": )" + std::to_string(count) + "}}").candidates.at(0).figures.at("decode_step_s").value;
    };
    EXPECT_NEAR(step(1, "h100-sxm", 1), 404 * 42.46e-6, 1e-9);
    EXPECT_NEAR(step(8, "h100-sxm", 1), 411 * 42.46e-6, 1e-9);
    EXPECT_NEAR(step(8, "a10g", 4), 477 * 42.46e-6, 1e-9);
}

// A closed loop of users (serve.closed_loop: k6's constant virtual users, each sending its next request when its last
// completes) prefills every request between the decode steps: at batch 1 the step carries one prefill per output
// token, the figure TGI logs as time_per_token (a request's inference time, prefill included, / its generated
// tokens). By hand: step(closed) = step(open) + prefill / 50, with the prefill the plan's own first-token time (one
// prompt per prefill at batch 1, no queue).
TEST(ServeClosedLoop, EachRequestsPrefillSharesTheSteps) {
    auto plan = [](const char* closed) {
        return run(std::string(R"({"stage": "serve", "model": "llama-2-7b", "precision": "fp16",
            "serve": {"context_tokens": 1024, "prompt_tokens": 167, "output_tokens": 50, "concurrent_users": 1, "tensor_parallel": 4,
                      "runtime": "tgi-1.0", "closed_loop": )") + closed + R"(},
            "hardware": {"devices": ["a10g"], "count": 4}})").candidates.at(0);
    };
    const Candidate open = plan("false"), closed = plan("true");
    const double prefill = open.figures.at("ttft_s").value;
    EXPECT_GT(prefill, 1e-3);
    EXPECT_NEAR(closed.figures.at("decode_step_s").value, open.figures.at("decode_step_s").value + prefill / 50, 1e-12);
    EXPECT_NEAR(closed.figures.at("throughput_tokens_per_s").value, 1.0 / (open.figures.at("decode_step_s").value + prefill / 50), 1e-9);
}

// gpt-fast's mixtral-moe at 056f8fb stores each expert's down projection w2 as [experts, intermediate, hidden] and
// reduces over the intermediate (strided) axis (model.py ConditionalFeedForward, einsum('tao, taoi -> tai'); fixed in
// 48328fb). Those bytes are read at strided_reduction_bandwidth_ratio (0.31: pytorch/pytorch issue #149982, 0.65 of
// 2.1 TB/s on H100), priced as extra bytes. Mixtral 8x7B int8 at batch 1 on one A100, by hand: a token's two experts
// in 32 layers hold 2 x 32 x 3 x 4,096 x 14,336 = 11,274,289,152 int8 weights; w2 is a third, 3,758,096,384 bytes,
// and reading them at 0.31 of the rate costs as much as 3,758,096,384 / 0.31 = 12,122,891,561 contiguous bytes:
// 8,364,795,177 bytes more than the tuned runtime's step. The plan then gives 59.5 tokens/s against gpt-fast's
// README 56.04 (its own table, 'int8', '1 GPU'; within the 25 % decode tolerance: +6.1 %), where the tuned runtime gave
// 94.9 (+69 %).
TEST(DecodeRuntimes, AStridedExpertDownProjectionReadsSlower) {
    auto step = [](const char* runtime) {
        const Plan p = run(std::string(R"({"stage": "serve", "model": "mixtral-8x7b", "precision": {"weights": "int8", "kv_cache": "bf16", "compute": "bf16"},
            "serve": {"context_tokens": 205, "prompt_tokens": 5, "output_tokens": 200, "concurrent_users": 1, "runtime": ")") + runtime + R"("},
            "framework": "pytorch", "hardware": {"devices": ["a100-80gb"], "count": 1}})");
        return p.candidates.at(0);
    };
    const Candidate strided = step("gpt-fast-moe-2024-02"), tuned = step("tuned");
    const double w2_bytes = 2.0 * 32 * 4096 * 14336;
    EXPECT_NEAR(strided.phases.at(0).roofline.bytes - tuned.phases.at(0).roofline.bytes, w2_bytes / 0.31 - w2_bytes, 1e3);
    EXPECT_NEAR(strided.figures.at("decode_tokens_per_s_per_user").value, 56.04, 0.25 * 56.04);
    EXPECT_TRUE(std::any_of(strided.notes.begin(), strided.notes.end(),
                            [](const std::string& n) { return n.find("not calibrated for this runtime (gpt-fast-moe-2024-02): its experts' down projection") == 0; }));
}

// mlx-lm 0.28's SwitchGLU runs a mixture of experts' routed projections through mx.gather_qmm (switch_layers.py at
// v0.28.2: no sort below 64 indices), and at one row a step MLX's gathered mat-vec reads them at
// gathered_expert_one_row_bandwidth_ratio of a plain read (0.80 = 387 / 484 GB/s: ml-explore/mlx issue #4509, an M3
// Ultra), priced as extra bytes. Qwen3-30B-A3B in int8 at batch 1 on an M4 Max, by hand: a token's 8 routed experts in
// 48 layers hold 48 x 8 x 3 x 2,048 x 768 = 1,811,939,328 int8 weights (8 bits each), and reading them at 0.80 of the
// rate costs as much as 1,811,939,328 / 0.8 = 2,264,924,160 plain bytes: 452,984,832 bytes more than the tuned
// runtime's step. At two sequences a step the gathered kernel is not the one-row one and nothing is added. The plan
// then gives about 97 tokens/s against mlx-lm's own BENCHMARKS.md 83.16 (8-bit, -p 2048 -g 128; within the 25 % decode
// tolerance: +17 %), where the tuned runtime gave 108 (+30 %).
TEST(DecodeRuntimes, MlxGatheredExpertsReadSlowerAtOneRow) {
    auto step = [](const char* runtime, int users) {
        const Plan p = run(std::string(R"({"stage": "serve", "model": "qwen3-30b-a3b", "precision": {"weights": "int8", "kv_cache": "bf16", "compute": "bf16"},
            "serve": {"context_tokens": 2176, "prompt_tokens": 2048, "output_tokens": 128, "concurrent_users": )") + std::to_string(users) +
                           R"(, "runtime": ")" + runtime + R"("}, "framework": "mlx", "hardware": {"devices": ["apple-m4-max"], "count": 1}})");
        return p.candidates.at(0);
    };
    const Candidate gathered = step("mlx-lm-0.28", 1), tuned = step("tuned", 1);
    const double expert_bytes = 48.0 * 8 * 3 * 2048 * 768;
    EXPECT_NEAR(gathered.phases.at(0).roofline.bytes - tuned.phases.at(0).roofline.bytes, expert_bytes / 0.8 - expert_bytes, 1e3);
    EXPECT_NEAR(gathered.figures.at("decode_tokens_per_s_per_user").value, 83.16, 0.25 * 83.16);
    EXPECT_TRUE(std::any_of(gathered.notes.begin(), gathered.notes.end(),
                            [](const std::string& n) { return n.find("not calibrated for this runtime (mlx-lm-0.28): at one row a step") == 0; }));
    const Candidate two = step("mlx-lm-0.28", 2), two_tuned = step("tuned", 2);
    EXPECT_NEAR(two.phases.at(0).roofline.bytes, two_tuned.phases.at(0).roofline.bytes, 1.0);
}

// A llama.cpp CUDA build with CUDA graphs (serve.runtime llama-cpp-cuda-graphs; llama.cpp pull request #6766) pays less
// fixed time a step than the December 2023 builds the GDDR rules were fitted on: the rule's step less the launch time
// that pull request measured graphs removing, by hand from its thread (runtimes.json): typical 1000/116.31 -
// 1000/128.27 = 0.80 ms (RTX 3090), slow case 1000/138.31 - 1000/146.81 = 0.42 ms (RTX 4090), fast case 1000/143.35 -
// 1000/163.83 = 0.87 ms (H100-PCIe). Llama 2 7B Q4_0 at batch 1 on an RTX 4090: the GGUF GDDR rule's step is 2.08 ms
// (efficiencies.json gddr-gpu-llama.cpp-gguf), so the step is 0.80 ms shorter, 1.28 ms of fixed time; the bytes read do
// not change. The band's fast end starts from the rule's shortest step, 0.42 ms, and 0.42 - 0.87 stops at zero: that
// end's step is the device's time alone. In F16 (the catalog-wide 0.87 ms step, gddr-gpu-llama.cpp) the step is
// 0.80 ms shorter too. The Vulkan backend (its own rule) and Apple's Metal are not moved.
TEST(DecodeRuntimes, LlamaCppCudaGraphsShortenTheFittedStep) {
    auto step = [](const char* runtime, const char* weights, const char* framework, const char* device) {
        const Plan p = run(std::string(R"({"stage": "serve", "model": "llama-2-7b", "precision": {"weights": ")") + weights +
                           R"(", "kv_cache": "fp16", "compute": "fp16"}, "serve": {"context_tokens": 129, "prompt_tokens": 1, "output_tokens": 128,
            "concurrent_users": 1, "runtime": ")" + runtime + R"("}, "framework": ")" + framework + R"(", "hardware": {"devices": [")" + device +
                           R"("], "count": 1}})");
        return p.candidates.at(0);
    };
    const Candidate graphs = step("llama-cpp-cuda-graphs", "q4_0", "llama.cpp", "rtx-4090"), tuned = step("tuned", "q4_0", "llama.cpp", "rtx-4090");
    const Figure& g = graphs.figures.at("decode_step_s");
    const Figure& t = tuned.figures.at("decode_step_s");
    EXPECT_NEAR(t.value - g.value, 0.80e-3, 1e-9);
    EXPECT_NEAR(graphs.phases.at(0).roofline.bytes, tuned.phases.at(0).roofline.bytes, 1.0);
    // slow end: the rule's longest step (5.55 ms) less the smallest saving, 0.42 ms; fast end: the rule's shortest
    // step (0.42 ms) less 0.87 ms stops at zero, so it loses 0.42 ms too
    EXPECT_NEAR(t.high - g.high, 0.42e-3, 1e-9);
    EXPECT_NEAR(t.low - g.low, 0.42e-3, 1e-9);
    EXPECT_TRUE(std::any_of(graphs.notes.begin(), graphs.notes.end(),
                            [](const std::string& n) { return n.find("step time for this runtime (llama-cpp-cuda-graphs)") == 0; }));
    const Candidate f16 = step("llama-cpp-cuda-graphs", "fp16", "llama.cpp", "rtx-4090"), f16_tuned = step("tuned", "fp16", "llama.cpp", "rtx-4090");
    EXPECT_NEAR(f16_tuned.figures.at("decode_step_s").value - f16.figures.at("decode_step_s").value, 0.80e-3, 1e-9);
    const Candidate vulkan = step("llama-cpp-cuda-graphs", "q4_0", "llama.cpp-vulkan", "rtx-4090"),
                    vulkan_tuned = step("tuned", "q4_0", "llama.cpp-vulkan", "rtx-4090");
    EXPECT_NEAR(vulkan.figures.at("decode_step_s").value, vulkan_tuned.figures.at("decode_step_s").value, 1e-12);
}

// A model called without its KV cache (Optimum's ORTModelForCausalLM with use_cache=False) runs the whole sequence at
// every step: with one output token the step is a prefill of the prompt. Llama 2 7B in fp16 on an A100 80GB, a
// 2,000-token sequence (one chunk of prefill_chunk_tokens 2,048), by hand, with the parameters the architecture
// counts (32 x (4 x 4,096^2 + 3 x 4,096 x 11,008) + 2 x 32,000 x 4,096 + 65 norms x 4,096 = 6,738,415,616):
//   FLOPs = 2 x 6,738,415,616 x 2,000 + 32 layers x 4 x 4,096 x 2,000^2 / 2 = 2.6953662464e13 + 1.048576e12
//         = 2.8002238464e13
//   at 312e12 x 0.61 (prefill_compute_efficiency) = 1.9032e14 FLOP/s: 0.147132400 s, compute-bound (the 13.5 GB of
//   weights take under 9 ms), plus decode_step_overhead_s (0.87 ms, one launch sequence a step as a tuned runtime):
//   0.148002400 s. The same sequence's time to first token is that prefill alone.
TEST(DecodeRuntimes, AModelWithoutAKvCacheRecomputesTheSequenceEveryStep) {
    const Plan p = run(R"({"stage": "serve", "model": "llama-2-7b", "precision": "fp16",
        "serve": {"context_tokens": 2001, "prompt_tokens": 2000, "output_tokens": 1, "concurrent_users": 1, "runtime": "optimum-onnxruntime-no-cache"},
        "hardware": {"devices": ["a100-80gb"], "count": 1}})");
    const Candidate& c = p.candidates.at(0);
    EXPECT_NEAR(c.figures.at("decode_step_s").value, 2.8002238464e13 / 1.9032e14 + 0.87e-3, 1e-7);
    EXPECT_NEAR(c.figures.at("decode_step_s").value - c.figures.at("ttft_s").value, 0.87e-3, 1e-9);
    EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(),
                            [](const std::string& n) { return n.find("not calibrated for this runtime (optimum-onnxruntime-no-cache): it calls the model without a KV cache") == 0; }));
}

// Over a longer output the step is the mean of those prefills, j = 0 .. output - 1: with prompt 1,000 and 3 outputs
// (spans = steps, so exact) the mean of the sequences of 1,000, 1,001 and 1,002 tokens, each compute-bound, by hand:
//   2 x 6,738,415,616 x 1,001 (the mean length) + 32 x 4 x 4,096 x (1,000^2 + 1,001^2 + 1,002^2) / 3 / 2
//   = 1.34903080632e13 + 262,144 x 1,002,000.667 = 1.34903080632e13 + 2.62668725e11 = 1.37529767881e13 FLOP,
//   / 1.9032e14 = 72.2624 ms, plus 0.87 ms.
TEST(DecodeRuntimes, AModelWithoutAKvCacheAveragesItsGrowingSequence) {
    const Plan p = run(R"({"stage": "serve", "model": "llama-2-7b", "precision": "fp16",
        "serve": {"context_tokens": 1003, "prompt_tokens": 1000, "output_tokens": 3, "concurrent_users": 1, "runtime": "optimum-onnxruntime-no-cache"},
        "hardware": {"devices": ["a100-80gb"], "count": 1}})");
    const double flops = 2 * 6738415616.0 * 1001 + 32 * 4 * 4096 * (1000.0 * 1000 + 1001.0 * 1001 + 1002.0 * 1002) / 3 / 2;
    EXPECT_NEAR(p.candidates.at(0).figures.at("decode_step_s").value, flops / 1.9032e14 + 0.87e-3, 1e-7);
}

// Unsloth's forward returns bf16 logits (CausalLM_fast_forward: no upcast), its loss kernel saves them and writes
// their gradient in place (2 bytes per logit), and transformers' Trainer returns them through accelerate's
// convert_outputs_to_fp32 as an FP32 copy (4 bytes). Llama 2 7B, QLoRA, 8,192 tokens, full recomputation with the
// block inputs offloaded, by hand:
//   recomputed block per token: norms' and projections' inputs 4 x 2 x 4,096 = 32,768; Q and K 2 x 8,192 = 16,384;
//   V 8,192; output projection's input 8,192; MLP 2 x 2 x 11,008 = 44,032 (LoRA_MLP saves the gate and up outputs,
//   e and g: unsloth/kernels/fast_lora.py): 109,568 bytes x 8,192 = 897,581,056
//   logits: 8,192 x 32,000 x (2 + 4) = 1,572,864,000
//   the 4-bit MLP matrix dequantized for its matmul (fast_dequantize into a bf16 buffer): 4,096 x 11,008 x 2 = 90,177,536
//   total 2,560,622,592 bytes. An fp32 run has no mixed-precision wrapper: 8,192 x 32,000 x 4 bytes of FP32 logits only,
//   and its dequantized copy is FP32 (x 4 bytes: 180,355,072).
TEST(Runtimes, UnslothCountsTheTrainersFp32CopyOfItsLogits) {
    auto activations = [](const char* precision) {
        const Plan p = run(std::string(R"({"stage": "finetune", "model": "llama-2-7b", "precision": ")") + precision +
                           R"(", "train": {"method": "qlora", "lora_rank": 8, "seq_len": 8192, "micro_batch": 1, "checkpointing": "full",
            "runtime": "unsloth"}, "hardware": {"devices": ["a100-40gb"], "count": 1}})");
        return p.candidates.at(0).memory.activations_bytes;
    };
    EXPECT_NEAR(activations("bf16"), 2560622592.0, 1);
    const double block_fp32 = 109568.0 * 2 * 8192; // the same block at 4 bytes per value
    EXPECT_NEAR(activations("fp32"), block_fp32 + 8192.0 * 32000 * 4 + 4096.0 * 11008 * 4, 1);
}

} // namespace hwplan

namespace hwplan {

// [SECTION] calibrated labels ------------------------------------------------------------------------

// Issue #9: a figure whose efficiencies were all set from calibration measurements is labelled `calibrated`
// and names them; one resting on an uncalibrated efficiency, or on a value the workload pinned, stays
// `modelled`. A BERT-Base batch of 128 x 128 tokens on an A100 is compute-bound, so items/s rests on
// encoder_compute_efficiency alone.
TEST(Labels, CalibratedWhenEveryEfficiencyNamesItsMeasurements) {
    const std::string job = R"({"stage": "embed", "model": "bert-base-uncased", "embed": {"tokens_per_item": 128, "batch_size": 128},
        "hardware": {"devices": ["a100-40gb"], "count": 1}})";
    Catalog cat = catalog();
    cat.assumptions["encoder_compute_efficiency"].calibrated_by = {"fit-a", "fit-b"};
    const Figure f = plan_from_json(job, cat).candidates.at(0).figures.at("items_per_s");
    EXPECT_EQ(f.label, Label::calibrated);
    EXPECT_NE(f.why.find("[calibrated: encoder_compute_efficiency from fit-a, fit-b]"), std::string::npos) << f.why;

    cat.assumptions["encoder_compute_efficiency"].calibrated_by.clear();
    EXPECT_EQ(plan_from_json(job, cat).candidates.at(0).figures.at("items_per_s").label, Label::modelled);

    cat.assumptions["encoder_compute_efficiency"].calibrated_by = {"fit-a"};
    const std::string pinned = R"({"stage": "embed", "model": "bert-base-uncased", "embed": {"tokens_per_item": 128, "batch_size": 128},
        "assumptions": {"encoder_compute_efficiency": 0.5}, "hardware": {"devices": ["a100-40gb"], "count": 1}})";
    EXPECT_EQ(plan_from_json(pinned, cat).candidates.at(0).figures.at("items_per_s").label, Label::modelled);
}

// Decode rests on the bandwidth share and the fixed step overhead: a calibrated bandwidth rule alone does not
// make it calibrated while decode_step_overhead_s names no measurement.
// A decode step whose weight GEMMs are compute-bound rests on decode_compute_efficiency too: Llama 2 7B FP16 at
// batch 1 on an RTX 4090 with the share pinned to 0.001 spends 2 x 6.74e9 FLOP / (0.001 x the FP16 peak) on its
// GEMMs, tens of ms against about 16 ms to read 13.5 GB, so the pinned (the user's) share keeps it from `calibrated`.
TEST(Labels, ComputeBoundDecodeRestsOnTheGemmShareToo) {
    const std::string job = R"({"stage": "serve", "model": "llama-2-7b", "framework": "llama.cpp", "precision": {"weights": "fp16"},
        "serve": {"concurrent_users": 1, "context_tokens": 1024}, "hardware": {"devices": ["rtx-4090"], "count": 1})";
    Catalog cat = catalog();
    cat.assumptions["decode_step_overhead_s"].calibrated_by = {"fit-c"};
    EXPECT_EQ(plan_from_json(job + "}", cat).candidates.at(0).figures.at("decode_tokens_per_s_per_user").label, Label::calibrated);
    const Plan p = plan_from_json(job + R"(, "assumptions": {"decode_compute_efficiency": 0.001}})", cat);
    const Candidate& c = p.candidates.at(0);
    ASSERT_GT(c.phases.at(0).roofline.compute_s, 2 * c.phases.at(0).roofline.memory_s);
    EXPECT_NE(c.figures.at("decode_tokens_per_s_per_user").label, Label::calibrated);
}

TEST(Labels, DecodeNeedsItsStepOverheadCalibratedToo) {
    const std::string job = R"({"stage": "serve", "model": "llama-2-7b", "framework": "llama.cpp", "precision": {"weights": "fp16"},
        "serve": {"concurrent_users": 1, "context_tokens": 1024}, "hardware": {"devices": ["rtx-4090"], "count": 1}})";
    Catalog cat = catalog();
    cat.assumptions["decode_step_overhead_s"].calibrated_by.clear();
    EXPECT_EQ(plan_from_json(job, cat).candidates.at(0).figures.at("decode_tokens_per_s_per_user").label, Label::modelled);
    cat.assumptions["decode_step_overhead_s"].calibrated_by = {"fit-c"};
    const Figure f = plan_from_json(job, cat).candidates.at(0).figures.at("decode_tokens_per_s_per_user");
    EXPECT_EQ(f.label, Label::calibrated);
    EXPECT_NE(f.why.find("decode_bandwidth_efficiency [gddr-gpu-llama.cpp] from xiongjiedai-llama2-"), std::string::npos) << f.why;
    EXPECT_NE(f.why.find("decode_step_overhead_s from fit-c"), std::string::npos) << f.why;
}

// [SECTION] what a serving engine sizes its KV cache against -----------------------------------------

// vLLM sizes the KV cache as total x gpu_memory_utilization - weights - non-torch memory - the profiled activation
// peak (vllm/worker/worker.py determine_num_available_blocks), where "total" is what the driver reports, not the
// datasheet's 80 GB: "the current vLLM instance can use total_gpu_memory (79.22GiB) x gpu_memory_utilization (0.90)
// = 71.29GiB" on an H100-80G (vLLM PR #12126). 79.22 x 2^30 x 0.9 = 76,555,644,567 bytes (= 71.298 GiB).
TEST(ServingMemory, SizesAgainstTheTotalTheDriverReports) {
    const Plan p = run(R"({"stage": "serve", "model": "llama-3.1-8b", "precision": "bf16",
        "serve": {"context_tokens": 16, "prompt_tokens": 8, "output_tokens": 8, "concurrent_users": 1},
        "hardware": {"devices": ["h100-sxm"], "count": 1}, "assumptions": {"serving_memory_utilization": 0.9}})");
    const Candidate* c = find(p, "h100-sxm");
    ASSERT_NE(c, nullptr);
    EXPECT_NEAR(c->memory.capacity_bytes, 76555644567.0, 1.0);
    EXPECT_NEAR(c->memory.capacity_bytes / (1024.0 * 1024.0 * 1024.0), 71.29, 0.01); // the log's own product
}

// The engine reserves activations for its whole token budget before it sizes the cache, however short the
// prompts: the profile run is a dummy batch of max_num_batched_tokens tokens. Llama 3.1 8B (hidden 4,096, 32 query
// and 8 KV heads of 128, gated FFN 14,336): one block's working set is 2 bytes x tokens x (2 x 4,096 + 4,096 +
// 1,024 + 1,024 + 3 x 14,336) = 2 x 2,048 x 57,344 = 234,881,024 bytes at the catalog's 2,048-token budget, plus
// one sequence's FP32 logits 4 x 128,256 = 513,024: 235,394,048 bytes, for an 8-token prompt as for a 2,000-token one.
TEST(ServingMemory, ActivationsAreTheEnginesTokenBudget) {
    auto plan_for = [](int prompt) {
        return run(R"({"stage": "serve", "model": "llama-3.1-8b", "precision": "bf16",
            "serve": {"context_tokens": )" + std::to_string(prompt + 8) + R"(, "prompt_tokens": )" + std::to_string(prompt) +
                   R"(, "output_tokens": 8, "concurrent_users": 1},
            "hardware": {"devices": ["h100-sxm"], "count": 1}, "assumptions": {"prefill_chunk_tokens": 2048}})");
    };
    for (int prompt : {8, 2000}) {
        const Plan p = plan_for(prompt);
        const Candidate* c = find(p, "h100-sxm");
        ASSERT_NE(c, nullptr);
        EXPECT_DOUBLE_EQ(c->memory.activations_bytes, 235394048.0) << prompt;
    }
}

// A device without a driver reading plans against its datasheet capacity: the L4's 24 GB x 0.9.
TEST(ServingMemory, WithoutAReadingTheDatasheetCapacityStands) {
    const Plan p = run(R"({"stage": "serve", "model": "llama-3.1-8b", "precision": "bf16",
        "serve": {"context_tokens": 16, "prompt_tokens": 8, "output_tokens": 8, "concurrent_users": 1},
        "hardware": {"devices": ["l4"], "count": 1}, "assumptions": {"serving_memory_utilization": 0.9}})");
    const Candidate* c = find(p, "l4");
    ASSERT_NE(c, nullptr);
    EXPECT_DOUBLE_EQ(c->memory.capacity_bytes, 0.9 * 24e9);
}

// TensorRT-LLM gives its KV cache a share of what is free after the weights and buffers, not of the whole device:
// "The default value for free_gpu_memory_fraction is 0.9, which means TensorRT-LLM tries to allocate 90% of free GPU
// memory (after loading weights) for KV cache" (TensorRT-LLM docs/source/examples/kvcacheconfig.md). On the L4 (24 GB,
// no driver reading) the cache's room is 0.9 x (24e9 - weights - overhead - activations), where vLLM's is
// 0.9 x 24e9 - the same terms: the TensorRT-LLM room is larger by 0.1 x the other terms. A vLLM plan keeps its rule.
TEST(ServingMemory, TensorRtLlmSharesTheMemoryLeftAfterTheWeights) {
    auto on_l4 = [](const std::string& framework) {
        return run(R"({"stage": "serve", "model": "llama-3.1-8b", "precision": "bf16", "framework": ")" + framework + R"(",
            "serve": {"context_tokens": 16, "prompt_tokens": 8, "output_tokens": 8, "concurrent_users": 1},
            "hardware": {"devices": ["l4"], "count": 1}, "assumptions": {"serving_memory_utilization": 0.9, "kv_cache_free_memory_fraction": 0.9}})");
    };
    const Plan trt = on_l4("tensorrt-llm"), vllm = on_l4("vllm");
    const Candidate* t = find(trt, "l4");
    const Candidate* v = find(vllm, "l4");
    ASSERT_NE(t, nullptr);
    ASSERT_NE(v, nullptr);
    const double others = t->memory.weights_bytes + t->memory.overhead_bytes + t->memory.activations_bytes;
    ASSERT_GT(others, 1e9); // 8B in BF16: about 16 GB of weights
    EXPECT_NEAR(t->memory.capacity_bytes - others, 0.9 * (24e9 - others), 1.0);
    EXPECT_DOUBLE_EQ(v->memory.capacity_bytes, 0.9 * 24e9);
    EXPECT_NEAR((t->memory.capacity_bytes - others) - (v->memory.capacity_bytes - others), 0.1 * others, 1.0);
}

} // namespace hwplan

// [SECTION] One search, one answer (issue 18) -----------------------------------------------------------
// A training candidate is the best point of one search over count and layout; the recommendation, the
// candidate, its layout and its figures are that point.

namespace hwplan {
namespace {

const Candidate* of_option(const Plan& p) {
    for (const auto& c : p.candidates)
        if (c.device == p.recommendation.option.device) return &c;
    return nullptr;
}

double days(const Candidate& c) { return c.figures.at("train_time_s").value / 86400; }

} // namespace

// Every scenario: the recommended option names a candidate of the same device (and, for a training job, the same
// count at work: devices bought or rented in whole units may be more, and the option's name then says how many
// are used, as "(1 x CoreWeave GB200 NVL72 rack: 64 used)"), and each training candidate is the first point of
// its own search.
TEST(OneAnswer, EveryScenarioRecommendsItsCandidatesSearchPoint) {
    for (const auto& s : catalog().scenarios) {
        if (s.workload_json.empty()) continue; // a team scenario: hwplan team
        const Plan p = run(s.workload_json);
        const bool trains = p.stage == Stage::finetune || p.stage == Stage::pretrain;
        for (const auto& c : p.candidates) {
            if (!trains || c.layouts.layouts.empty()) continue;
            const TrainingLayout& l = c.layouts.layouts.front().layout;
            EXPECT_EQ(l.tensor_parallel, c.layout.tensor_parallel) << s.id << " " << c.device;
            EXPECT_EQ(l.pipeline_parallel, c.layout.pipeline_parallel) << s.id << " " << c.device;
            EXPECT_EQ(l.data_parallel, c.layout.data_parallel) << s.id << " " << c.device;
            EXPECT_EQ(l.zero_stage, c.layout.zero_stage) << s.id << " " << c.device;
            EXPECT_EQ(c.layouts.devices, c.count) << s.id << " " << c.device;
            if (c.figures.count("step_time_s")) {
                EXPECT_DOUBLE_EQ(c.layouts.layouts.front().step_s, c.figures.at("step_time_s").value) << s.id;
            }
        }
        if (!p.recommendation.found || p.recommendation.option.kind == "api") continue;
        const Candidate* c = of_option(p);
        ASSERT_NE(c, nullptr) << s.id;
        if (trains) {
            const Option& o = p.recommendation.option;
            EXPECT_GE(o.count, c->count) << s.id;
            if (o.count > c->count) {
                EXPECT_NE(o.name.find(": " + std::to_string(c->count) + " used)"), std::string::npos) << s.id << ": " << o.name;
            }
        }
    }
}

// A serving count left open is the fewest devices that fit and meet the latency targets. The coding-agent scenario
// (Qwen2.5-32B at FP8, 4 users at 32,768 tokens of context, 50 tokens/s per user): on one A100 80GB a decode step
// reads the weights (32.8e9 params x 1 byte = 32.8 GB) and the 4 users' KV cache at their mean history of 20,480
// tokens (64 layers x 8 KV heads x 128 x 2 x 1 byte = 131 kB a token: 10.7 GB), 43.5 GB over 2,039 GB/s: at least
// 21 ms, so at most 47 tokens/s per user even at the whole bandwidth. One device fits and cannot meet 50; two
// (tensor parallel 2, half the bytes each) can. Before, the plan stopped at the fewest that fit (1 device, 35 tokens/s).
TEST(OneAnswer, ServingCountMeetsThePerUserTarget) {
    const Scenario* sc = nullptr;
    for (const auto& s : catalog().scenarios)
        if (s.id == "coding-agent-32b") sc = &s;
    ASSERT_NE(sc, nullptr);
    const Plan p = run(sc->workload_json);
    const Candidate* c = nullptr;
    for (const auto& x : p.candidates)
        if (x.device == "a100-80gb") c = &x;
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->count, 2);
    EXPECT_GE(c->figures.at("decode_tokens_per_s_per_user").value, 50.0);
    ASSERT_FALSE(c->serving.points.empty());
    EXPECT_TRUE(c->serving.points.front().meets_targets);
    bool one_misses = false;
    for (const auto& pt : c->serving.points)
        if (pt.count == 1) one_misses = pt.fits && !pt.meets_targets && pt.throughput_tokens_per_s / 4 < 47.0;
    EXPECT_TRUE(one_misses) << c->serving.explanation;
}

// Llama 3 paper, Table 4 (arXiv:2407.21783): 405B on 16,384 H100 at 8,192 tokens, 16M tokens a batch, TP 8 x CP 1 x
// PP 16 x DP 128, BF16 MFU 38-43 % across its three stages. The compute basis is a kernel-level MFU from one node
// (assumptions.json training_mfu, llm-foundry's MPT-13B on 8 H100: 0.402), and the layout model adds the bubble and
// the exposed traffic of each layout, so the MFU here is a prediction, not the anchor it used to be. It must fit with
// tensor parallelism inside the 8-GPU NVLink domain and pipeline parallelism (ZeRO-3 alone over thousands of ranks
// pays a ring latency per block and pass: 2 x 126 all-gathers a micro-batch), and a recommendation is found.
// Tolerance on the MFU: the suite's training tolerance (25 %, issue 9) around the paper's 41 %. It lands at 35.6 %
// (TP 8 x PP 4 interleaved x DP 512; 33.1 % before tensor-parallel traffic was overlapped with the GEMMs,
// assumptions.json tensor_parallel_overlap, 2026-12-03). What remains: the compute basis alone (no bubble, no exposed
// traffic) is 39 % here, llm-foundry's single-node kernels on 8K-token 405B blocks; and at the paper's PP 16 the
// planner's activation model (three 53,248-wide MLP tensors a block kept, 16 micro-batches of 8 blocks in flight)
// needs recomputation, which Llama 3 says it did not. The band's fast end holds the paper's figure.
TEST(OneAnswer, Llama405bOn16384H100PipelinesInsideTheNvlinkDomain) {
    const Plan p = run(R"({"stage": "pretrain", "model": "llama-3.1-405b", "precision": "bf16",
        "train": {"method": "full", "seq_len": 8192, "micro_batch": 1, "global_batch": 2048, "tokens": 15.6e12},
        "hardware": {"devices": ["h100-sxm"], "count": 16384}})");
    ASSERT_TRUE(p.recommendation.found) << p.recommendation.summary;
    const Candidate& c = p.candidates.at(0);
    EXPECT_TRUE(c.fits);
    EXPECT_EQ(p.recommendation.option.count, 16384);
    EXPECT_LE(c.layout.tensor_parallel, 8);
    EXPECT_GT(c.layout.pipeline_parallel, 1) << c.layouts.explanation;
    const double mfu = c.layouts.layouts.front().mfu;
    EXPECT_GE(mfu, 0.75 * 0.41) << c.layouts.explanation;
    EXPECT_LE(mfu, 1.25 * 0.41) << c.layouts.explanation;
    // The band of the throughput holds the paper's 41 % (16M tokens a step): 0.41 x 16,384 x 989.4e12 / model FLOPs.
    const Figure& f = c.figures.at("train_tokens_per_s");
    EXPECT_GE(f.high / f.value, 0.41 / mfu) << f.why;
}

// DeepSeek-V3 technical report (arXiv:2412.19437): pre-trained on 2,048 H800 (section 3.1; H100 SXM compute and
// memory, NVLink cut to 400 GB/s: catalog h800) with 16-way pipeline, 64-way expert and ZeRO-1 data parallelism
// (section 3.2), FP8 mixed precision (section 3.3), 4K sequences and a batch ramped to 15,360 (section 4.2); 14.8T
// tokens took 2,664K H800 GPU-hours (Table 1). The plan must choose expert parallelism and a pipeline, and its
// GPU-hours (count x time to train) land within the suite's 25 % training tolerance of the report's. DualPipe
// hides the all-to-all behind the paired chunk's compute (assumptions.json moe_alltoall_overlap); without that
// overlap (before 2026-12-03, on H100 standing in) the plan chose no expert parallelism and took 4.74M GPU-hours.
TEST(OneAnswer, DeepSeekV3On2048H800UsesExpertsAndAPipeline) {
    const Plan p = run(R"({"stage": "pretrain", "model": "deepseek-v3", "precision": "fp8",
        "train": {"method": "full", "seq_len": 4096, "micro_batch": 1, "global_batch": 15360, "tokens": 14.8e12},
        "hardware": {"devices": ["h800"], "count": 2048}})");
    ASSERT_TRUE(p.recommendation.found) << p.recommendation.summary;
    const Candidate& c = p.candidates.at(0);
    EXPECT_TRUE(c.fits);
    EXPECT_GT(c.layout.expert_parallel, 1) << c.layouts.explanation;
    EXPECT_GT(c.layout.pipeline_parallel, 1) << c.layouts.explanation;
    const double gpu_hours = 2048 * c.figures.at("train_time_s").value / 3600;
    EXPECT_NEAR(gpu_hours / 2.664e6, 1.0, 0.25) << c.layouts.explanation;
}

// Narayanan et al. 2021 (arXiv 2104.04473, "Efficient Large-Scale Language Model Training on GPU Clusters Using
// Megatron-LM"), section 5.1: "On n=1024 A100 GPUs using batch size 1536, we achieve X=140 teraFLOP/s per GPU" for
// GPT-3 175B (96 layers, hidden 12,288, 96 heads, vocabulary 51,200, sequence 2,048), "the time required to train this
// model is 34 days" on 300B tokens. X counts the recomputed forward (equation 3). The step, by hand:
//   F = 96 B s l h^2 (1 + s/6h + V/16lh) = 96 x 1,536 x 2,048 x 96 x 12,288^2 x (1 + 0.02778 + 0.00271)
//     = 4.3774e18 x 1.03049 = 4.511e18 FLOPs, / (1,024 x 140e12) = 31.47 s;
//   the same as equation 4's 8 N tokens / (n X) = 8 x 174.6e9 x 3,145,728 / (1,024 x 140e12) = 30.6 s plus attention
//   (s / 6h = 2.8 %); and 300e9 / 3,145,728 steps x 31.47 s = 34.7 days, the paper's 34.
// With train.runtime "megatron" the search keeps to what Megatron-LM offered then (no ZeRO, full recomputation,
// tensor-parallel collectives not overlapped) on its own A100 basis (efficiencies.json a100-megatron-2021, derived from
// Table 1's 18.4B row, TP 8 without a pipeline: not this row). Tolerance 10 %: Table 1's per-GPU rate at TP 8 moves
// 135 -> 148 TFLOP/s from 18.4B to 145.6B (one basis, no GEMM-size term) and Table 2 gives 141-153 TFLOP/s for this
// model at 384-1,536 GPUs. Before the runtime existed the plan stepped in 19.5 s (TP 2 x DP 512, ZeRO-3, no recomputation
// counted on a 2023 FlashAttention basis): a layout and a stack Megatron-LM 2021 did not have.
TEST(OneAnswer, Gpt3_175bOn1024A100NearMegatronStep) {
    const std::string job = R"({"stage": "pretrain", "precision": "bf16",
        "model": {"params": 175e9, "layers": 96, "hidden": 12288, "heads": 96, "intermediate": 49152, "vocab": 51200},
        "hardware": {"devices": ["a100-80gb"], "count": 1024}, "train": {"method": "full", "seq_len": 2048, "micro_batch": 1, "global_batch": 1536)";
    const double paper_step_s = 4.511e18 / (1024 * 140e12); // 31.47 s
    const Plan p = run(job + R"(, "runtime": "megatron"}})");
    ASSERT_TRUE(p.recommendation.found) << p.recommendation.summary;
    const Candidate& c = p.candidates.at(0);
    EXPECT_TRUE(c.fits);
    EXPECT_EQ(c.count, 1024);
    EXPECT_LE(c.layout.tensor_parallel, 8);
    EXPECT_GT(c.layout.pipeline_parallel, 1);
    EXPECT_EQ(c.layout.zero_stage, 0);
    EXPECT_EQ(c.layout.recompute, Checkpointing::full);
    for (const auto& r : c.layouts.layouts) {
        EXPECT_EQ(r.layout.zero_stage, 0);
        EXPECT_EQ(r.layout.recompute, Checkpointing::full);
    }
    const double step_s = c.figures.at("step_time_s").value;
    EXPECT_NEAR(step_s / paper_step_s, 1.0, 0.10) << c.figures.at("step_time_s").why;
    bool said = false;
    for (const auto& n : c.notes) said = said || n.find("activation recomputation: full, as the trainer always runs it (megatron)") != std::string::npos;
    EXPECT_TRUE(said);
    // Pinned to a layout of the paper's (TP 8 x PP 16, the model-parallel size of Table 1's 145.6B-310.1B rows) the
    // step is within the same tolerance.
    const Plan pinned = run(job + R"(, "runtime": "megatron", "layout": {"tensor_parallel": 8, "pipeline_parallel": 16}}})");
    const Candidate& pc = pinned.candidates.at(0);
    EXPECT_EQ(pc.layout.tensor_parallel, 8);
    EXPECT_EQ(pc.layout.pipeline_parallel, 16);
    EXPECT_NEAR(pc.figures.at("step_time_s").value / paper_step_s, 1.0, 0.10) << pc.figures.at("step_time_s").why;
    // Without naming the runtime the plan is today's stack (FSDP layouts, the A100 family's FlashAttention-era basis):
    // faster than Megatron-LM 2021 was.
    const Plan today = run(job + "}}");
    EXPECT_LT(today.candidates.at(0).figures.at("step_time_s").value, 0.8 * step_s);
}

// torchtitan's December 2024 benchmark (benchmarks/llama3_h100_202412_torchtitan.md, read 2026-12-04), Table 5: Llama 3.1
// 405B on 512 H100, FSDP 8 x TP 8 x PP 8, local batch 32, full activation checkpointing, Float8, AsyncTP: 'Interleaved
// 1F1B | 128', '1F1B | 100' tokens/s per GPU. At 9dec370 the pipeline splits the local batch into as many micro-batches
// as pipeline stages (config_manager.py pipeline_parallel_microbatches: 'The default value will be the number of pipeline
// stages'), 8 of 4 sequences, and a looped schedule holds 2 stages a rank (pipelining_utils.generate_split_points). By
// hand, Narayanan et al. 2021 section 2.2: a step is m + (p - 1)/v micro-batch slots, so 1F1B over interleaved is
// (8 + 7) / (8 + 7/2) = 1.3043 when communication is small beside the compute; the table's own ratio is 1.28. Tolerance 2 %
// on the hand figure (pipeline sends, 2v per micro-batch, and the exposed data-parallel tail do not scale with the
// slots), 5 % on the table's.
TEST(OneAnswer, Torchtitan405bRunsTheStatedInterleavedSchedule) {
    auto job = [](int v) {
        return R"({"stage": "pretrain", "model": "llama-3.1-405b", "precision": "fp8", "hardware": {"devices": ["h100-sxm"], "count": 512},
            "train": {"method": "full", "seq_len": 8192, "micro_batch": 32, "global_batch": 256, "checkpointing": "full", "zero_stage": 3,
            "runtime": "torchtitan-async-tp", "layout": {"tensor_parallel": 8, "pipeline_parallel": 8, "context_parallel": 1, "virtual_stages": )" +
               std::to_string(v) + R"(, "micro_batch": 4}}})";
    };
    const Plan interleaved = run(job(2)), plain = run(job(1));
    const Candidate& c = interleaved.candidates.at(0);
    ASSERT_TRUE(c.fits);
    EXPECT_EQ(c.layout.tensor_parallel, 8);
    EXPECT_EQ(c.layout.pipeline_parallel, 8);
    EXPECT_EQ(c.layout.data_parallel, 8);
    EXPECT_EQ(c.layout.virtual_stages, 2);
    EXPECT_EQ(c.layout.micro_batch, 4);
    EXPECT_EQ(c.layout.micro_batches, 8);
    EXPECT_EQ(plain.candidates.at(0).layout.virtual_stages, 1);
    const double ratio = c.figures.at("train_tokens_per_s").value / plain.candidates.at(0).figures.at("train_tokens_per_s").value;
    EXPECT_NEAR(ratio / ((8.0 + 7.0) / (8.0 + 3.5)), 1.0, 0.02);
    EXPECT_NEAR(ratio / (128.0 / 100.0), 1.0, 0.05);
}

// The same benchmark's Table 4: Llama 3.1 70B on 256 H100, FSDP 32 x TP 8, local batch 16 of 8,192 tokens, full
// checkpointing; '2D' runs without async tensor parallelism (torchtitan's experimental.enable_async_tensor_parallel is
// store_true), so the sequence-parallel all-gathers and reduce-scatters wait between the GEMMs. By hand, per block and
// pass (forward, recomputed forward, backward) two all-reduces' worth of one 16 x 8,192 x 8,192 bf16 tensor
// (2,147,483,648 bytes) over the 8 GPUs' NVLink: 2 x 7/8 x 2,147,483,648 / (450 GB/s x 0.82 interconnect_efficiency)
// = 10.1845 ms + 12.49 us (the catalog's measured 8-rank small all-reduce) = 10.197 ms; x 2 x 3 passes x 80 layers =
// 4.8946 s a step. With async TP the plan hides all but one of the 8 ring chunks (assumptions.json
// tensor_parallel_overlap), so the two runtimes differ by 7/8 of it, 4.283 s (tolerance 1 %). The run without it lands
// within 25 % of the table's 829 tokens/s per GPU (the plan: 890; GPUs at 500 W with HBM2e, planned as h100-sxm).
TEST(OneAnswer, Torchtitan70bWithoutAsyncTpWaitsOnItsTensorParallelCollectives) {
    auto job = [](const std::string& runtime) {
        return R"({"stage": "pretrain", "model": "llama-3.1-70b", "precision": "fp8", "hardware": {"devices": ["h100-sxm"], "count": 256},
            "train": {"method": "full", "seq_len": 8192, "micro_batch": 16, "global_batch": 512, "checkpointing": "full", "zero_stage": 3,
            "runtime": ")" + runtime + R"(", "layout": {"tensor_parallel": 8, "pipeline_parallel": 1, "context_parallel": 1, "micro_batch": 16}}})";
    };
    const Plan sync = run(job("torchtitan")), async = run(job("torchtitan-async-tp"));
    const Candidate& c = sync.candidates.at(0);
    ASSERT_TRUE(c.fits);
    EXPECT_EQ(c.layout.data_parallel, 32);
    EXPECT_EQ(c.layout.micro_batches, 1);
    const double exposed_s = c.figures.at("step_time_s").value - async.candidates.at(0).figures.at("step_time_s").value;
    EXPECT_NEAR(exposed_s / (7.0 / 8.0 * 4.8946), 1.0, 0.01) << c.figures.at("step_time_s").why;
    EXPECT_NEAR(c.figures.at("train_tokens_per_s").value / 256 / 829.0, 1.0, 0.25);
}

// Lesson 001/004: a 70B model's bf16 weights alone are 141 GB, more than one A100 80GB holds, so a LoRA fine-tune
// shards the frozen base over several (FSDP, ZeRO-3): the search spreads it over 2 to 8 devices, the fewest that fit.
// With recomputation searched (train.checkpointing not given) that is 2: 70.6 GB of frozen base each, the block inputs
// under full recomputation (80 x 2,048 x 8,192 x 2 bytes = 2.7 GB) and one block rebuilt at a time fit 85.1 GB usable
// (76.6 GB); one A100 cannot hold the 141 GB base at all.
TEST(OneAnswer, Lora70bSpreadsOverTwoToEightA100) {
    const Plan p = run(R"({"stage": "finetune", "model": "llama-3.1-70b", "precision": "bf16",
        "train": {"method": "lora", "seq_len": 2048, "micro_batch": 1}, "hardware": {"devices": ["a100-80gb"]}})");
    ASSERT_TRUE(p.recommendation.found) << p.recommendation.summary;
    const Candidate& c = *of_option(p);
    EXPECT_TRUE(c.fits);
    EXPECT_GE(c.count, 2);
    EXPECT_LE(c.count, 8);
    EXPECT_EQ(c.layout.zero_stage, 3);
    EXPECT_EQ(c.layout.recompute, Checkpointing::full);
    // The count below does not fit: it is the fewest.
    const Plan half = run(R"({"stage": "finetune", "model": "llama-3.1-70b", "precision": "bf16",
        "train": {"method": "lora", "seq_len": 2048, "micro_batch": 1}, "hardware": {"devices": ["a100-80gb"], "count": )" +
                          std::to_string(c.count / 2) + "}}");
    EXPECT_FALSE(half.candidates.at(0).fits);
}

// Recomputation searched, not assumed (issue 18): the same 70B LoRA on a fixed 4 x A100 80GB. By hand (Llama 3.1 70B:
// 80 blocks, hidden 8,192, 8 KV heads of 128, gated MLP 28,672; 2,048 tokens, micro-batch 1, bf16), ZeRO-3 over 4:
//   frozen base 70.6e9 x 2 bytes / 4 = 35.3 GB a device;
//   without recomputation every block keeps its norms' and projections' inputs 4 x 8,192, Q and the attention output
//   2 x 8,192, K and V 2 x 1,024 and the MLP's four 28,672-wide tensors (gate output, activation, up output and their
//   product: unfused PyTorch, derivatives.yaml; three before 2026-12-03, 89.7 GB), x 2 bytes = 331,776 bytes a token:
//   x 2,048 x 80 = 54.4 GB, so 35.3 + 54.4 + the loss and overhead (the chunked loss 0.8 GB, the context 0.4 GB and
//   17.6 % fragmentation of the per-step tensors, 9.7 GB) = 100.6 GB > 85.1 GB usable: it does not fit;
//   with full recomputation the blocks keep their inputs, 80 x 2,048 x 8,192 x 2 = 2.7 GB, plus one block rebuilt
//   (0.68 GB): about 41 GB, well inside. So it fits, sharded, with full recomputation, and the plan says the search
//   chose it. finetune_mfu was read on torchtune's runs that recompute, so this step is priced at it as is (without
//   recomputation it would skip a forward, but it does not fit).
TEST(OneAnswer, Lora70bOnFourA100FitsWithRecomputationChosenBySearch) {
    const Plan p = run(R"({"stage": "finetune", "model": "llama-3.1-70b", "precision": "bf16",
        "train": {"method": "lora", "seq_len": 2048, "micro_batch": 1}, "hardware": {"devices": ["a100-80gb"], "count": 4}})");
    ASSERT_TRUE(p.recommendation.found) << p.recommendation.summary;
    const Candidate& c = p.candidates.at(0);
    EXPECT_TRUE(c.fits);
    EXPECT_EQ(c.count, 4);
    EXPECT_EQ(c.layout.zero_stage, 3);
    EXPECT_EQ(c.layout.recompute, Checkpointing::full);
    EXPECT_NEAR(c.memory.total_bytes / 1e9, 35.3 + 2.7 + 0.68, 0.15 * 41.0) << c.layouts.explanation; // + loss, overhead
    bool said = false;
    for (const auto& n : c.notes) said = said || n.find("activation recomputation: full, chosen by the search") != std::string::npos;
    EXPECT_TRUE(said);
    // The same point without recomputation is among the runners-up and does not fit: 100.6 GB by hand above.
    bool none_misses = false;
    for (const auto& r : c.layouts.layouts)
        if (r.layout.recompute == Checkpointing::none && r.layout.zero_stage == 3) none_misses = !r.fits && std::abs(r.memory_bytes / 1e9 - 100.6) < 0.05 * 100.6;
    EXPECT_TRUE(none_misses) << c.layouts.explanation;
    // Given explicitly, the workload's recomputation is kept: "none" does not fit on these 4.
    const Plan pinned = run(R"({"stage": "finetune", "model": "llama-3.1-70b", "precision": "bf16",
        "train": {"method": "lora", "seq_len": 2048, "micro_batch": 1, "checkpointing": "none"}, "hardware": {"devices": ["a100-80gb"], "count": 4}})");
    EXPECT_FALSE(pinned.candidates.at(0).fits);
}

// With a deadline the count is the fewest that finish in time: 8B pretraining on 1T tokens in Google Cloud within
// 30 days gets a TPU slice whose time to train is at most 30 days, and half that slice would take longer.
TEST(OneAnswer, DeadlineChoosesTheFewestDevicesThatFinishInTime) {
    const std::string base = R"({"stage": "pretrain", "model": "llama-3.1-8b", "precision": "bf16",
        "train": {"method": "full", "seq_len": 8192, "global_batch": 512, "tokens": 1e12}, "decision": {"site": "gcp")";
    const Plan p = run(base + R"(, "deadline_days": 30}})");
    ASSERT_TRUE(p.recommendation.found) << p.recommendation.summary;
    const Candidate& c = *of_option(p);
    EXPECT_EQ(c.device.rfind("tpu", 0), 0u) << c.device;
    EXPECT_LE(days(c), 30.0);
    EXPECT_NE(p.recommendation.headline.find("(deadline 30 days)"), std::string::npos) << p.recommendation.headline;
    const Plan half = run(base + R"(}, "hardware": {"devices": [")" + c.device + R"("], "count": )" + std::to_string(c.count / 2) + "}}");
    EXPECT_GT(days(half.candidates.at(0)), 30.0);
    // Without a deadline the headline says none was given and states the time to train at the count chosen.
    const Plan none = run(base + "}}");
    ASSERT_TRUE(none.recommendation.found);
    EXPECT_NE(none.recommendation.headline.find("days to train (no deadline given)"), std::string::npos) << none.recommendation.headline;
}

// Devices the team owns come first when the job fits them: priced at power and hosting, no purchase.
TEST(OneAnswer, OwnedDevicesThatFitAreUsedFirst) {
    const Plan p = run(R"({"stage": "finetune", "model": "llama-3.1-70b", "precision": "bf16",
        "train": {"method": "lora", "seq_len": 2048, "micro_batch": 1}, "hardware": {"owned": [{"device": "a100-80gb", "count": 8}]}})");
    ASSERT_TRUE(p.recommendation.found) << p.recommendation.summary;
    EXPECT_EQ(p.recommendation.option.kind, "owned");
    EXPECT_EQ(p.recommendation.option.device, "a100-80gb");
    EXPECT_EQ(p.recommendation.option.count, 8);
    EXPECT_EQ(p.recommendation.headline.rfind("Use the team's own 8 x", 0), 0u) << p.recommendation.headline;
    // Owning fewer than the job needs eliminates the owned option with the shortfall: one A100 cannot hold the 141 GB
    // frozen base (two can since recomputation is searched: Lora70bSpreadsOverTwoToEightA100).
    const Plan few = run(R"({"stage": "finetune", "model": "llama-3.1-70b", "precision": "bf16",
        "train": {"method": "lora", "seq_len": 2048, "micro_batch": 1}, "hardware": {"devices": ["a100-80gb"], "owned": [{"device": "a100-80gb", "count": 1}]}})");
    bool named = false;
    for (const auto& o : few.options)
        if (o.kind == "owned") named = !o.feasible && !o.reasons.empty() && o.reasons.front().find("the team owns 1") != std::string::npos;
    EXPECT_TRUE(named);
}

// A one-off budget eliminates buying what it cannot pay for, naming the sum.
TEST(OneAnswer, PurchaseBudgetEliminatesWhatItCannotBuy) {
    const Plan p = run(R"({"stage": "finetune", "model": "llama-3.1-8b", "train": {"method": "qlora"},
        "usage": {"hours_per_month": 100}, "hardware": {"devices": ["h100-sxm"]}, "decision": {"purchase_budget_usd": 1000}})");
    bool named = false;
    for (const auto& o : p.options)
        if (o.kind == "own")
            for (const auto& r : o.reasons) named = named || r.rfind("purchase budget: ", 0) == 0;
    EXPECT_TRUE(named);
}

// The page shows the quick plan (sensitivity off) at a keystroke and completes it when typing pauses
// (complete_plan_from_json, wasm/app/page.cpp refresh_plan) instead of planning the workload again with sensitivity
// on. The completed plan must be that plan, byte for byte in its JSON: every scenario, workloads that reach the flips
// the scenarios do not (a power budget, a deadline, owned devices, nothing that fits, an embedding job, an edge
// device), and random serving workloads on given devices.
TEST(CompletePlan, IsThePlanWithSensitivityOn) {
    const Catalog& cat = embedded_catalog().catalog;
    std::vector<std::string> workloads;
    for (const auto& sc : cat.scenarios)
        if (!sc.workload_json.empty()) workloads.push_back(sc.workload_json);
    workloads.push_back(R"({"stage": "serve", "model": "Llama-3.1-8B", "serve": {"context_tokens": 4096, "concurrent_users": 20},
                            "decision": {"power_budget_w": 3000}})");
    workloads.push_back(R"({"stage": "pretrain", "model": "llama-3.1-8b", "precision": "bf16", "train": {"method": "full", "seq_len": 4096,
                            "global_batch": 256, "tokens": 1e10}, "decision": {"deadline_days": 30}})");
    workloads.push_back(R"({"stage": "finetune", "model": "Llama-3.1-8B", "train": {"method": "lora", "seq_len": 2048, "micro_batch": 2},
                            "hardware": {"owned": [{"device": "RTX 4090", "count": 2}]}})");
    workloads.push_back(R"({"stage": "serve", "model": "DeepSeek-V3", "precision": "bf16", "serve": {"context_tokens": 131072, "concurrent_users": 64},
                            "hardware": {"devices": ["RTX 4090"], "count": 1}})");
    workloads.push_back(R"({"stage": "embed", "model": "bge-base-en-v1.5", "embed": {"items": 1e6, "tokens_per_item": 256}})");
    workloads.push_back(R"({"stage": "edge", "model": "Llama-3.1-8B", "precision": "int4", "serve": {"context_tokens": 4096, "concurrent_users": 1}})");
    std::mt19937 rng(20261203);
    for (int i = 0; i < 30; ++i) workloads.push_back(random_serve(rng, 1024 << (i % 5), 1 + (i % 7) * 9));
    int completed = 0;
    for (const auto& w : workloads) {
        const Plan& whole = test::planned_once(w, cat, true); // the scenarios' whole plans are the other tests' too
        const Plan& quick = test::planned_once(w, cat, false);
        const Plan done = complete_plan_from_json(quick, w, cat);
        ASSERT_EQ(whole.issues.empty(), done.issues.empty()) << w;
        if (!whole.issues.empty()) continue;
        EXPECT_EQ(to_json(done), to_json(whole)) << w;
        ++completed;
    }
    EXPECT_GE(completed, 50);
}

} // namespace hwplan

namespace hwplan {
namespace {

const Figure* figure_of(const Candidate& c, const std::string& key) {
    auto it = c.figures.find(key);
    return it == c.figures.end() ? nullptr : &it->second;
}

// A wafer-scale system's first token against the one published figure: Cerebras' own service ran Llama 3.1 405B at
// 969 tokens/s with a 0.24 s time to first token (Tom's Hardware, 2024-11-20, reporting Cerebras; the prompt length
// is not stated; catalog/devices/cerebras-cs3.json notes). The decode roofline agrees within
// 15 % (one user, a 1,000-token prompt: about 860 tokens/s, 11 % low); the prefill roofline, the wafer's peak alone,
// is an order of magnitude below the served 0.24 s, which includes request handling and the network. The model's
// mechanism stands (the decode agrees; a served figure bounds the first token only from above), and the plan says
// beside the figure what it leaves out: team-live-chat ranked on latency shows a 585 us first token on a CS-3.
TEST(SramSystems, FirstTokenIsTheWafersComputeAndSaysWhatItLeavesOut) {
    const Plan big = run(R"({"stage":"serve","model":"Llama-3.1-405B","precision":"bf16","serve":{"context_tokens":2048,"prompt_tokens":1000,)"
                         R"("output_tokens":100,"concurrent_users":1},"hardware":{"devices":["cerebras-cs3"]}})");
    const Candidate* c = find(big, "cerebras-cs3");
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(c->fits);
    const Figure* decode = figure_of(*c, "decode_tokens_per_s_per_user");
    const Figure* ttft = figure_of(*c, "ttft_s");
    ASSERT_TRUE(decode && ttft);
    EXPECT_NEAR(decode->value, 969, 0.15 * 969);
    EXPECT_LT(ttft->value, 0.24 / 5); // compute alone, well under the served figure
    nlohmann::json chat = nlohmann::json::parse(find_scenario(catalog(), "team-live-chat")->workload_json);
    chat["decision"]["priority"] = "latency";
    const Plan p = run(chat.dump());
    const Candidate* cs3 = find(p, "cerebras-cs3");
    ASSERT_NE(cs3, nullptr);
    const bool said = std::any_of(cs3->notes.begin(), cs3->notes.end(), [](const std::string& n) {
        return n.rfind("time to first token ", 0) == 0 && n.find("peak compute alone; served, the first token waits for request handling") != std::string::npos;
    });
    EXPECT_TRUE(said) << ::testing::PrintToString(cs3->notes);
}

// Issue 18: a full fine-tune of 7B with AdamW over 8 RTX 4090 (PCIe 4.0, no NVLink) under ZeRO-3 counted only a
// gradient all-reduce, hidden behind the step. ZeRO-3 moves 1.5x data parallel's bytes (Rajbhandari et al. 2020,
// section 7.2.2): the 16-bit weights gathered before the forward and again before the backward, the gradients
// reduce-scattered in the backward. The forward's gather overlaps only the forward (PyTorch FSDP notes, "FSDP
// Prefetch Nuances": "The 1st all-gather will not be able to overlap with anything"), a quarter of the compute under
// full recomputation (2N of 8N). By hand from the plan's own compute time C and the ring time G of one 14 GB gather
// (7e9 x 2 bytes; 7/8 of it crosses each device's link): exposed = G/32 layers + max(0, G - C/4) + max(0, 2G - 3C/4),
// and the step is C + exposed. Over NVLink (8 x H100 SXM) the same job's exposed share is under 2 %.
TEST(Runtimes, ZeroThreeOverPcieExposesTheForwardGather) {
    const Plan p = run(find_scenario(catalog(), "7b-full-finetune-adam")->workload_json);
    const Candidate* c = find(p, "rtx-4090");
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->layout.zero_stage, 3);
    ASSERT_EQ(c->layout.data_parallel, 8);
    ASSERT_EQ(c->layout.recompute, Checkpointing::full);
    ASSERT_FALSE(c->phases.empty());
    const Phase& step = c->phases.front();
    const double compute = step.time_s - step.communication_s;
    // The ring all-gather of 14 GB over 8 ranks at the link's one-way rate (64 GB/s bidirectional PCIe 4.0 x16: 32 GB/s)
    // times the share 8 PCIe cards reach (assumptions.json pcie_allreduce_share_8_ranks 0.4375: nccl #1639, 28 of
    // 64 GB/s busbw on 8 RTX 5090), 7/8 of the bytes through each device: 0.875 s; the small-message latency adds
    // under 1 ms.
    const double gather = 7e9 * 2 * 7.0 / 8.0 / (32e9 * 0.4375);
    const double exposed = gather / 32 + std::max(0.0, gather - compute / 4) + std::max(0.0, 2 * gather - 3 * compute / 4);
    EXPECT_GT(step.communication_s, 0.05 * compute) << "a visible share of the step";
    EXPECT_NEAR(step.communication_s, exposed, 0.1 * exposed);
    EXPECT_NEAR(figure_of(*c, "step_time_s")->value, compute + exposed, 0.1 * exposed);
    nlohmann::json nv = nlohmann::json::parse(find_scenario(catalog(), "7b-full-finetune-adam")->workload_json);
    nv["hardware"]["devices"] = {"h100-sxm"};
    nv["hardware"]["count"] = 8;
    nv["train"]["zero_stage"] = 3; // the search would shard only the optimizer state on 80 GB cards
    const Plan q = run(nv.dump());
    const Candidate* h = find(q, "h100-sxm");
    ASSERT_NE(h, nullptr);
    ASSERT_EQ(h->layout.zero_stage, 3);
    ASSERT_FALSE(h->phases.empty());
    EXPECT_LT(h->phases.front().communication_s, 0.02 * h->phases.front().time_s);
}

// A step bound by a 4-card PCIe ring has a band: how far another host moves the ring (assumptions.json
// pcie_allreduce_share_4_ranks 0.547 from nccl #1639, low 0.434 and high 0.803 from the spread rtx6kpro measured
// between 8-card hosts, x0.793 and x1.467). A ring-bound time goes as 1 / share, so the step's band is the value
// x 0.547/0.803 = 0.681 and x 0.547/0.434 = 1.260 (until this band the 4-card L40S showed 1.2 s (1.2 s .. 1.2 s)).
TEST(Runtimes, APcieRingBoundStepHasTheHostsBand) {
    const Plan p = run(find_scenario(catalog(), "7b-full-finetune-adam")->workload_json);
    const Candidate* c = find(p, "l40s");
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->count, 4);
    const auto& f = c->figures.at("step_time_s");
    EXPECT_NEAR(f.low / f.value, 0.547 / 0.803, 0.01);
    EXPECT_NEAR(f.high / f.value, 0.547 / 0.434, 0.01);
}

} // namespace
} // namespace hwplan

namespace hwplan {

// A CPU that no decode rule of efficiencies.json covers plans at the catalog-wide share (0.78, measured on llama.cpp's GPU
// backends) and says so; the band's slow end takes the declared CPU share, 0.244 (assumptions.json
// cpu_decode_bandwidth_efficiency_low: llama.cpp PR #1642, 2023-06-04, the CPU backend read >= 100.0 GB/s of the M1 Max's
// 409.6 GB/s) with the catalog-wide longest step (3.3 ms). Llama 2 7B q4_0 (6.738 B weights x 4.5 bits = 3.79 GB, KV cache
// at 64 tokens negligible) on one Xeon Platinum 8480+ socket (307.2 GB/s), by hand:
//   typical: 3.79e9 / (0.78 x 307.2e9) + 0.87 ms = 15.82 + 0.87 = 16.69 ms  (59.9 tokens/s)
//   slow:    3.79e9 / (0.244 x 307.2e9) + 3.3 ms = 50.56 + 3.3  = 53.86 ms  (18.6 tokens/s)
// (5 % tolerance on the hand figures: the plan's own weight bytes count the embeddings and norms apart.) A GPU's plan is
// untouched: the RTX 4090 takes its llama.cpp rule and says nothing about CPUs.
TEST(DecodeOnCpu, UncalibratedShareIsSaidAndWidensTheSlowEnd) {
    const char* body = R"({"stage": "serve", "model": "llama-2-7b", "framework": "llama.cpp",
        "precision": {"weights": "q4_0", "kv_cache": "fp16", "compute": "fp16"},
        "serve": {"context_tokens": 64, "prompt_tokens": 32, "output_tokens": 32, "concurrent_users": 1},
        "hardware": {"devices": ["DEVICE"], "count": 1}})";
    auto plan_on = [&](const std::string& device) {
        std::string s = body;
        s.replace(s.find("DEVICE"), 6, device);
        return run(s);
    };
    const Plan cpu = plan_on("xeon-platinum-8480plus");
    const Candidate& c = cpu.candidates.at(0);
    const Figure& rate = c.figures.at("decode_tokens_per_s_per_user");
    EXPECT_NEAR(rate.value, 1 / 16.69e-3, 0.05 / 16.69e-3);
    EXPECT_NEAR(rate.low, 1 / 53.86e-3, 0.05 / 53.86e-3);
    // The slow end is the typical step's bandwidth term scaled by 0.78 / 0.244, plus 3.3 ms instead of 0.87 ms.
    const double typical_bytes_s = 1 / rate.value - 0.87e-3;
    EXPECT_NEAR(1 / rate.low, typical_bytes_s * 0.78 / 0.244 + 3.3e-3, 1e-6);
    EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(),
                            [](const std::string& n) { return n.find("decode bandwidth efficiency not calibrated for CPUs") == 0; }));
    const Plan gpu = plan_on("rtx-4090");
    const Candidate& g = gpu.candidates.at(0);
    EXPECT_FALSE(std::any_of(g.notes.begin(), g.notes.end(), [](const std::string& n) { return n.find("not calibrated for CPUs") != std::string::npos; }));
}

} // namespace hwplan

namespace hwplan {

// A run of weeks priced by the hour: its cost terms keep the seconds the arithmetic uses and say the same time in days
// beside them (issue 22: "4011694 s per run" could not be read). 8B pretraining on 1e11 tokens, pinned to 8 A100:
// the "time" term's seconds / 86,400, to three figures, in parentheses; the billed term the same for its seconds.
TEST(CostWords, LongRunsSayTheirTimeInDays) {
    const Plan p = run(R"({"stage": "pretrain", "model": "llama-3.1-8b", "train": {"seq_len": 4096, "global_batch": 256,
        "tokens": 1e11}, "hardware": {"devices": ["a100-80gb"], "count": 8}})");
    ASSERT_TRUE(p.recommendation.found) << p.recommendation.summary;
    auto term = [&](const std::string& name) {
        for (const auto& t : p.recommendation.option.cost_terms)
            if (t.term == name) return t.value;
        return std::string();
    };
    const std::string time = term("time");
    ASSERT_FALSE(time.empty());
    const double seconds = std::stod(time.substr(0, time.find(' ')));
    ASSERT_GT(seconds, 172800.0) << time; // weeks: said in days
    EXPECT_NE(time.find("(" + format_sig(seconds / 86400, 3) + " days)"), std::string::npos) << time;
    const std::string billed = term("billed");
    ASSERT_FALSE(billed.empty());
    const double billed_s = std::stod(billed.substr(0, billed.find(' ')));
    EXPECT_NE(billed.find("a run (" + format_sig(billed_s / 86400, 3) + " days)"), std::string::npos) << billed;
}


// The training search's model-parallel points count what its data-parallel points (eval_train) count. DeepSpeed's ZeRO
// engine (runtimes.json deepspeed: FP32 master weights, bf16 gradients, two FP32 Adam moments and an FP32 gradient copy
// for the step, optimizer_fp32_gradient_bytes_per_param 4, sharded like the optimizer) holds 2 + 2 + (4 + 8 + 4) bytes a
// parameter, the last term over the data-parallel ranks from ZeRO-1. Llama 3.1 8B (32 blocks of 218.1e6 params, embedding
// and head 525.3e6 each) over 2 pipeline stages: the fullest stage holds 16 x 218.1e6 + 525.3e6 = 4.02e9 params. By hand:
// ZeRO-0, 20 bytes x 4.02e9 = 80.4 GB of model state before any activation, more than the 85.1 GB usable minus the
// activations (the search used to count 16 bytes, 64.3 GB, and called it a fit); ZeRO-1 over 4 data-parallel ranks,
// (2 + 2) x 4.02e9 + 16 x 4.02e9 / 4 = 32.2 GB (the search used to count 28.1 GB).
TEST(OneAnswer, TheLayoutSearchCountsDeepSpeedsFp32GradientCopy) {
    auto plan = [](int zero) {
        return run(R"({"stage": "pretrain", "model": "llama-3.1-8b", "precision": "bf16", "hardware": {"devices": ["a100-80gb"], "count": 8},
            "train": {"method": "full", "seq_len": 2048, "micro_batch": 1, "global_batch": 64, "runtime": "deepspeed", "zero_stage": )" +
                   std::to_string(zero) + R"(, "layout": {"tensor_parallel": 1, "pipeline_parallel": 2}}})");
    };
    EXPECT_FALSE(plan(0).candidates.at(0).fits);
    const Plan p = plan(1);
    const Candidate& c = p.candidates.at(0);
    ASSERT_TRUE(c.fits) << c.layouts.explanation;
    ASSERT_FALSE(c.layouts.layouts.empty()) << c.layouts.explanation;
    const auto& r = c.layouts.layouts.front();
    EXPECT_EQ(r.layout.pipeline_parallel, 2);
    EXPECT_EQ(r.layout.data_parallel, 4);
    EXPECT_NEAR((r.weights_bytes + r.gradients_bytes + r.optimizer_bytes) / 1e9, 32.2, 0.02 * 32.2) << c.layouts.explanation;
}

} // namespace hwplan

namespace hwplan {
namespace {

// A pinned model-parallel layout that fits nowhere is the candidate's misfit, not the data-parallel point the workload
// ruled out. Llama 3.1 70B (70.55e9 parameters) in bf16 with
// AdamW (hf-peft: 2 + 2 + 12 bytes a parameter), ZeRO-0, TP 2 x PP 2 on 8 A100 80GB: the fullest stage holds about a
// quarter of the parameters, 2 x 70.55e9 / 4 = 35.3 GB of weights and 12 x 70.55e9 / 4 = 212 GB of optimizer state,
// far over 85.1 GB usable. Before, the candidate showed the unsharded data-parallel point (1.29 TB: 141 GB of weights).
TEST(OneAnswer, APinnedModelParallelLayoutThatFitsNowhereShowsItsOwnMemory) {
    const Plan p = run(R"({"stage": "pretrain", "model": "llama-3.1-70b", "precision": "bf16", "hardware": {"devices": ["a100-80gb"], "count": 8},
        "train": {"method": "full", "seq_len": 4096, "micro_batch": 1, "global_batch": 64, "zero_stage": 0,
                  "layout": {"tensor_parallel": 2, "pipeline_parallel": 2}}})");
    const Candidate& c = p.candidates.at(0);
    EXPECT_FALSE(c.fits);
    EXPECT_EQ(c.layout.tensor_parallel, 2);
    EXPECT_EQ(c.layout.pipeline_parallel, 2);
    EXPECT_EQ(c.layout.data_parallel, 2);
    EXPECT_NEAR(c.memory.weights_bytes / 1e9, 2 * 70.55 / 4, 0.03 * 35.3);
    EXPECT_NEAR(c.memory.optimizer_bytes / 1e9, 12 * 70.55 / 4, 0.03 * 212);
    EXPECT_NE(p.recommendation.headline.find("needs " + format_sig(c.memory.total_bytes / 1e9, 3) + " GB"), std::string::npos)
        << p.recommendation.headline;
}

} // namespace
} // namespace hwplan

namespace hwplan {
namespace {

// Layer-wise activation offload (train.offload_activation_layers; Megatron-Core's cpu_offloading_num_layers through
// Transformer Engine's DefaultOffloadSynchronizer, which keeps L - N blocks' saved activations on the device). Llama 3.1 8B
// pretraining in bf16 on 8 H100 SXM, 4,096 tokens a sequence, micro-batch 1, global batch 64, ZeRO-3, 16 of 32 blocks
// offloaded. By hand (hf-peft's storage rules, 2 bytes a value, fused attention, 4 MLP tensors): a block keeps per token
// 4h (16,384) + 2q + k + v (10,240) + 4i (57,344) = 83,968 values = 167,936 bytes, x 4,096 tokens = 687,865,856 bytes, so
// 16 blocks offloaded leave 16 x 687,865,856 = 11,005,853,696 bytes on the host. Under tensor parallelism 2 with sequence
// parallelism every term halves: 16 x 343,932,928 = 5,502,926,848 bytes. The data-parallel point (eval_train) and the
// layout search's point (parallel.cpp evaluate) each take that much off against the same job without offload and without
// recomputation, at the same micro-batch of 1 sequence (pinned: the search would otherwise choose a larger one where the
// memory freed allows it); the step is unchanged where the device records no host link (the H100 SXM: copies unpriced).
std::string offload_job(const std::string& train_extra, int tensor_parallel) {
    return R"({"stage": "pretrain", "model": "llama-3.1-8b", "precision": "bf16", "hardware": {"devices": ["h100-sxm"], "count": 8},
        "train": {"method": "full", "seq_len": 4096, "micro_batch": 1, "global_batch": 64, "zero_stage": 3, )" + train_extra +
           R"(, "layout": {"tensor_parallel": )" + std::to_string(tensor_parallel) + R"(, "pipeline_parallel": 1, "context_parallel": 1, "micro_batch": 1}}})";
}

TEST(ActivationOffload, BothEvaluatorsTakeTheOffloadedBlocksOffTheDevice) {
    const double block = 687865856.0;
    for (int tp : {1, 2}) {
        const Plan off = run(offload_job(R"("offload_activation_layers": 16)", tp));
        const Plan none = run(offload_job(R"("checkpointing": "none")", tp));
        const Candidate& c = off.candidates.at(0);
        const Candidate& n = none.candidates.at(0);
        ASSERT_TRUE(c.fits) << c.regime_why;
        EXPECT_EQ(c.layout.tensor_parallel, tp);
        EXPECT_EQ(c.layout.recompute, Checkpointing::none) << "Megatron-Core refuses recomputation with offload";
        EXPECT_NEAR(n.memory.activations_bytes - c.memory.activations_bytes, 16 * block / tp, 1.0) << "TP " << tp;
        EXPECT_DOUBLE_EQ(c.figures.at("step_time_s").value, n.figures.at("step_time_s").value) << "TP " << tp;
        bool said = false;
        for (const auto& note : c.notes) said = said || note.find("no host link bandwidth is recorded for h100-sxm (catalog host_link), so the copies are not priced") != std::string::npos;
        EXPECT_TRUE(said) << "TP " << tp << ": unpriced copies are said";
    }
}

// The copies priced (parallel.h activation_offload_stall) where the catalog records the host link: the GB200's NVLink-C2C,
// 900 GB/s bidirectional per GPU (Transformer Engine's CPU offloading documentation), 450e9 bytes/s each way. The same
// Llama 3.1 8B job on 8 GB200, global batch 64 over 8 data-parallel ranks: 8 micro-batches a step. A block's copy takes
// 687,865,856 / 450e9 = 1.53 ms, well under its forward (one micro-batch of 4,096 tokens: about 2 x 218e6 x 4,096 =
// 1.8 TFLOP) and backward, so with 16 of 32 blocks offloaded every copy hides behind the blocks between it and its deadline:
// the step is the step without offload. With 31 (L - 1, which Transformer Engine warns "prevents overlapping of computation
// and offload/reload") block i is released right before block i + 1 runs and reloaded as the block above it finishes
// its backward, so each copy is waited for whole, both ways: 8 micro-batches x 2 x 31 copies x 1.5286 ms =
// 496 x 687,865,856 / 450e9 = 0.75818 s added to the step. The data-parallel point (eval_train, through the layout model's
// pricing of its own layout) and a tensor-parallel point of the search pay the same per copied byte.
TEST(ActivationOffload, HostCopiesArePricedOverTheRecordedHostLinkOnlyWhereTheComputeDoesNotHideThem) {
    auto job = [](const std::string& extra) {
        return R"({"stage": "pretrain", "model": "llama-3.1-8b", "precision": "bf16", "hardware": {"devices": ["gb200-nvl72"], "count": 8},
            "train": {"method": "full", "seq_len": 4096, "micro_batch": 1, "global_batch": 64, "zero_stage": 3, )" + extra +
               R"(, "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1}}})";
    };
    const Candidate none = run(job(R"("checkpointing": "none")")).candidates.at(0);
    const Candidate half = run(job(R"("offload_activation_layers": 16)")).candidates.at(0);
    const Candidate most = run(job(R"("offload_activation_layers": 31)")).candidates.at(0);
    const double step = none.figures.at("step_time_s").value;
    EXPECT_DOUBLE_EQ(half.figures.at("step_time_s").value, step) << half.figures.at("step_time_s").why;
    EXPECT_NEAR(most.figures.at("step_time_s").value - step, 496 * 687865856.0 / 450e9, 1e-9) << most.figures.at("step_time_s").why;
    bool said = false;
    for (const auto& note : most.notes) said = said || note.find("priced over the host link (nvlink-c2c, 450 GB/s each way, catalog host_link)") != std::string::npos;
    EXPECT_TRUE(said);
}

// Transformer Engine's schedule by hand (parallel.h activation_offload_stall), 8 blocks, a block's forward 1 s and
// backward 2 s, one copy stream. Forward: block i's copy is queued as block i + 1 starts and must finish before block
// 8 - N + i starts. Backward: block i's copy back is queued as block 7 - N + i's backward starts and must finish before
// block i's backward starts.
//  - N 3, copies 0.5 s: every copy has 4 blocks' compute to hide behind: nothing waits.
//  - N 7 (L - 1), 0.5 s: each block is released (forward) or needed (backward) right after its copy is queued: 7 x 0.5 s
//    each way.
//  - N 4, 3 s: the copies finish at 1 + 3k (k = 1..4: 4, 7, 10, 13) against starts 4, 5, 6, 7 of blocks 4-7, pushed back by
//    the waits: 0 + 2 + 2 + 2 = 6 s; backward, copies queued at 2, 4, 6, 8 finish at 5, 8, 11, 14, needed at 8, 10, 12, 14: 0.
//  - N 4, 5 s: forward finishes at 6, 11, 16, 21 against 4, 7, 12, 17: 2 + 4 + 4 + 4 = 14 s (1 + 4 x 5 - 7 x 1);
//    backward finishes at 7, 12, 17, 22 against 8, 10, 14, 19: 0 + 2 + 3 + 3 = 8 s.
TEST(ActivationOffload, StallFollowsTransformerEnginesSchedule) {
    struct Row { int offloaded; double copy_s, forward_s, backward_s; };
    for (const Row& r : {Row{3, 0.5, 0, 0}, Row{7, 0.5, 3.5, 3.5}, Row{4, 3, 6, 0}, Row{4, 5, 14, 8}, Row{0, 5, 0, 0}}) {
        const OffloadStall st = activation_offload_stall(8, r.offloaded, 1.0, 2.0, r.copy_s);
        EXPECT_DOUBLE_EQ(st.forward_s, r.forward_s) << r.offloaded << " blocks, " << r.copy_s << " s";
        EXPECT_DOUBLE_EQ(st.backward_s, r.backward_s) << r.offloaded << " blocks, " << r.copy_s << " s";
    }
}

// One answer: with the layout left to the search, every point it offers (data-parallel and model-parallel alike) runs as
// Megatron-Core runs layer-wise offload, one pipeline stage and no recomputation, and the candidate is its first point.
TEST(OneAnswer, ActivationOffloadKeepsTheSearchToOneStageWithoutRecomputation) {
    const Plan p = run(R"({"stage": "pretrain", "model": "llama-3.1-8b", "precision": "bf16", "hardware": {"devices": ["h100-sxm"], "count": 8},
        "train": {"method": "full", "seq_len": 4096, "micro_batch": 1, "global_batch": 64, "offload_activation_layers": 16}})");
    const Candidate& c = p.candidates.at(0);
    ASSERT_TRUE(c.fits) << c.regime_why;
    ASSERT_FALSE(c.layouts.layouts.empty()) << c.layouts.explanation;
    for (const auto& r : c.layouts.layouts) {
        EXPECT_EQ(r.layout.pipeline_parallel, 1) << describe(r.layout);
        EXPECT_EQ(r.layout.recompute, Checkpointing::none) << describe(r.layout);
    }
    const LayoutResult& first = c.layouts.layouts.front();
    EXPECT_EQ(first.layout.tensor_parallel, c.layout.tensor_parallel);
    EXPECT_EQ(first.layout.data_parallel, c.layout.data_parallel);
    EXPECT_EQ(first.layout.zero_stage, c.layout.zero_stage);
    EXPECT_DOUBLE_EQ(first.step_s, c.figures.at("step_time_s").value);
    EXPECT_DOUBLE_EQ(first.activations_bytes, c.memory.activations_bytes);
    bool said = false;
    for (const auto& note : c.notes) said = said || note.find("activation recomputation: none, as Megatron-Core runs layer-wise activation offload") != std::string::npos;
    EXPECT_TRUE(said);
}

} // namespace
} // namespace hwplan

namespace hwplan {
namespace {

// The layout search counts what the data-parallel evaluation counts when full recomputation's checkpoints live in
// host memory (train.offload_activations): none stay on the device. Llama 3.1 8B (32 blocks, hidden 4,096) at 4,096
// tokens, micro-batch 1, full recomputation pinned, TP 2 with sequence parallelism: each block's checkpoint is its
// input, 4,096 x 4,096 x 2 bytes / 2 = 16,777,216 bytes, so offloading them takes 32 x 16,777,216 = 536,870,912 bytes
// off the layout's activations (the search used to keep them on the device).
TEST(OneAnswer, TheLayoutSearchLeavesOffloadedCheckpointsInHostMemory) {
    auto activations = [](bool offload) {
        const Plan p = run(std::string(R"({"stage": "pretrain", "model": "llama-3.1-8b", "precision": "bf16", "hardware": {"devices": ["h100-sxm"], "count": 8},
            "train": {"method": "full", "seq_len": 4096, "micro_batch": 1, "global_batch": 64, "checkpointing": "full", "offload_activations": )") +
                           (offload ? "true" : "false") + R"(, "layout": {"tensor_parallel": 2, "pipeline_parallel": 1, "micro_batch": 1}}})");
        const Candidate& c = p.candidates.at(0);
        EXPECT_EQ(c.layout.tensor_parallel, 2);
        return c.memory.activations_bytes;
    };
    EXPECT_NEAR(activations(false) - activations(true), 32.0 * 4096 * 4096 * 2 / 2, 1.0);
}

} // namespace
} // namespace hwplan

namespace hwplan {
namespace {

// MaxText's custom remat policy (train.remat_tensors) as a stated full recomputation: the plan and the layout search keep
// what it saves on the device beside the block inputs. Llama 3.1 8B (32 blocks, query width 4,096) at 4,096 tokens,
// micro-batch 1, TP 1: query_proj "device" keeps 32 x 4,096 x 4,096 x 2 = 1,073,741,824 bytes more than plain full
// recomputation; a pretraining run is read at its stated recomputation, so the step time is the same.
TEST(OneAnswer, ACustomRematPolicyKeepsWhatItSavesOnTheDevice) {
    auto plan = [](const std::string& recompute) {
        const Plan p = run(R"({"stage": "pretrain", "model": "llama-3.1-8b", "precision": "bf16", "hardware": {"devices": ["h100-sxm"], "count": 8},
            "train": {"method": "full", "seq_len": 4096, "micro_batch": 1, "global_batch": 64, )" + recompute +
                           R"(, "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "micro_batch": 1}}})");
        return p.candidates.at(0);
    };
    const Candidate full = plan(R"("checkpointing": "full")");
    const Candidate custom = plan(R"("remat_tensors": {"query_proj": "device"})");
    EXPECT_EQ(custom.layout.recompute, Checkpointing::full);
    EXPECT_NEAR(custom.memory.activations_bytes - full.memory.activations_bytes, 32.0 * 4096 * 4096 * 2, 1.0);
    EXPECT_NEAR(custom.figures.at("train_tokens_per_s").value, full.figures.at("train_tokens_per_s").value,
                1e-9 * full.figures.at("train_tokens_per_s").value);
    EXPECT_TRUE(has_note(custom, "activation recomputation: MaxText's custom remat policy (train.remat_tensors)"));
}

// The routed experts' grouped GEMMs as tokamax's tiles run them (train.grouped_gemm) add what the tiles execute beyond the
// useful FLOPs at the GEMMs' basis. By hand, gpt-oss-120b's Ironwood recipe on 64 tpu-v7 (163,840 tokens a chip a step,
// read at its stated recomputation): factor 767/640 x 2,944/2,880 x 3,072/2,880 = 1.30674074, its routed experts
// 21,499,084,800 training FLOPs a token, at 2,307 TFLOPS x the catalog-wide MFU 0.4125: 163,840 x 0.30674074 x
// 21,499,084,800 / 9.516375e14 = 1.135376 s more a step; the same workload without the key is unchanged.
TEST(OneAnswer, GroupedGemmTilesAddWhatTheyExecuteAtTheGemmsBasis) {
    auto plan = [](const std::string& grouped) {
        const Plan p = run(R"({"stage": "pretrain", "model": "gpt-oss-120b", "precision": "bf16", "hardware": {"devices": ["tpu-v7"], "count": 64},
            "train": {"method": "full", "runtime": "maxtext", "seq_len": 8192, "micro_batch": 20, "global_batch": 1280, "zero_stage": 3,
                      "remat_tensors": {"decoder_layer_input": "offload", "mlpwo": "offload"}, )" + grouped +
                           R"("layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1, "expert_parallel": 1}}})");
        return p.candidates.at(0);
    };
    const Candidate plain = plan("");
    const Candidate tiled = plan(R"("grouped_gemm": {"rows": 327680, "wi": [[512, 2944, 1536], [512, 2944, 1536], [512, 2944, 768]],
        "wo": [[512, 2944, 1536], [512, 2944, 1536], [512, 2944, 768]]}, )");
    EXPECT_NEAR(tiled.figures.at("step_time_s").value - plain.figures.at("step_time_s").value, 1.135376, 1e-4);
    EXPECT_TRUE(has_note(tiled, "routed experts' grouped GEMMs (train.grouped_gemm): 327680 rows a call in 128 expert groups"));
    EXPECT_FALSE(has_note(plain, "train.grouped_gemm"));
}

// gpt-oss-120b's 64-wide heads on a TPU run padded to 128 lanes (item 120): the step adds (2 - 1) x the attention FLOPs the
// step counts at the GEMMs' basis. By hand: attended = 18 x 4,096 x 128 + 18 x 4,096 x 8,192 = 613,416,960 a token; the step
// counts 12 x that (forward 4x, x3; the basis is read at the stated recomputation) = 7,361,003,520 FLOPs, x 163,840 tokens a
// chip / (0.4125 x 2,307 TFLOPS) = 1.2673 s. A GPU (b200) pads nothing.
TEST(OneAnswer, TpuAttentionRunsSixtyFourWideHeadsPaddedToWholeLanes) {
    const Plan p = run(R"({"stage": "pretrain", "model": "gpt-oss-120b", "precision": "bf16", "hardware": {"devices": ["tpu-v7"], "count": 64},
        "train": {"method": "full", "runtime": "maxtext", "seq_len": 8192, "micro_batch": 20, "global_batch": 1280, "zero_stage": 3,
                  "remat_tensors": {"decoder_layer_input": "offload", "mlpwo": "offload"},
                  "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1, "expert_parallel": 1}}})");
    EXPECT_TRUE(has_note(p.candidates.at(0), "attention on tpu-v7 with head_dim 64: the TPU attention kernel holds each head in 128-lane rows, "
                                             "so every score and context matmul runs padded to 128 (tokamax splash attention: \"padded to that "
                                             "multiple with zeros\"): 2 x the attention FLOPs counted, 1.27 s a step more"));
    const Plan gpu = run(R"({"stage": "pretrain", "model": "gpt-oss-120b", "precision": "bf16", "hardware": {"devices": ["b200"], "count": 64},
        "train": {"method": "full", "seq_len": 4096, "micro_batch": 1, "global_batch": 64}})");
    for (const Candidate& c : gpu.candidates) EXPECT_FALSE(has_note(c, "attention on ")) << c.device;
}

// DeepSeek-V3's latent attention on a TPU (item 124): trained unabsorbed, scores over 192 dims padded to 256 lanes and the
// weighted sum over 128, 1.2 x the attention FLOPs counted. By hand: attended = 61 x 128 x (192 + 128) / 2 x 4,096 =
// 5,117,050,880 a token; the step counts 12 x that = 61,404,610,560 FLOPs; x 0.2, x 2,048 x 4,096 / 128 = 65,536 tokens a
// chip / (0.4125 x 2,307 TFLOPS) = 0.8457 s a step more, at the recipe's stated recomputation (the basis's). A GPU pads nothing.
TEST(OneAnswer, TpuLatentAttentionRunsItsScoreWidthPaddedToWholeLanes) {
    const Plan p = run(R"({"stage": "pretrain", "model": "deepseek-v3", "precision": "bf16", "hardware": {"devices": ["tpu-v7"], "count": 128},
        "train": {"method": "full", "runtime": "maxtext", "seq_len": 4096, "micro_batch": 16, "global_batch": 2048, "zero_stage": 3,
                  "remat_tensors": {"decoder_layer_input": "offload"},
                  "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1, "expert_parallel": 1}}})");
    EXPECT_TRUE(has_note(p.candidates.at(0), "attention on tpu-v7 with latent attention trained unabsorbed, scores over 192 dims and the "
                                             "weighted sum over 128: the TPU attention kernel holds each head in 128-lane rows, so the scores "
                                             "run padded to 256 and the weighted sum to 128 (tokamax splash attention: \"padded to that "
                                             "multiple with zeros\"): 1.2 x the attention FLOPs counted, 0.846 s a step more"));
    const Plan gpu = run(R"({"stage": "pretrain", "model": "deepseek-v3", "precision": "bf16", "hardware": {"devices": ["b200"], "count": 64},
        "train": {"method": "full", "seq_len": 4096, "micro_batch": 1, "global_batch": 64}})");
    for (const Candidate& c : gpu.candidates) EXPECT_FALSE(has_note(c, "attention on ")) << c.device;
}

// MaxText's fp8_full quantizes the decoder layers' matmuls and the experts' gmm through qwix, which does not intercept inside
// pallas_call, so the splash attention kernel runs at BF16 (item 124, runtimes.json fp8_attention_at_16_bits). By hand, DeepSeek-V3
// FP8 on 128 tpu-v7 at the recipe's batch: 1.2 (lane padding) x 65,536 tokens a chip x 61,404,610,560 attention FLOPs a token x
// (1 / (0.4125 x 2,307 TFLOPS) - 1 / (0.4125 x 4,614 TFLOPS)) = 1.2 x 65,536 x 61,404,610,560 / (0.4125 x 4,614e12) = 2.537 s a
// step more. The output head is not quantized either ("We do not quantize the logits matmul"): 6 x 7,168 x 129,280 =
// 5,560,074,240 FLOPs a token x 65,536 / (0.4125 x 4,614e12) = 0.1915 s more. BF16 has nothing to add.
TEST(OneAnswer, MaxTextFp8RunsTheAttentionKernelAtSixteenBits) {
    auto plan = [](const char* precision) {
        return run(std::string(R"({"stage": "pretrain", "model": "deepseek-v3", "precision": ")") + precision + R"(", "hardware": {"devices": ["tpu-v7"], "count": 128},
        "train": {"method": "full", "runtime": "maxtext", "seq_len": 4096, "micro_batch": 16, "global_batch": 2048, "zero_stage": 3,
                  "remat_tensors": {"decoder_layer_input": "offload"},
                  "layout": {"tensor_parallel": 1, "pipeline_parallel": 1, "context_parallel": 1, "expert_parallel": 1}}})").candidates.at(0);
    };
    EXPECT_TRUE(has_note(plan("fp8"), "attention at 16 bits under FP8 (maxtext, runtimes.json fp8_attention_at_16_bits: the FP8 recipe quantizes "
                                      "the projections' and experts' matmuls, not the attention kernel's): its FLOPs at the bf16 peak, 2.54 s a step more"));
    EXPECT_TRUE(has_note(plan("fp8"), "output head at 16 bits under FP8 (maxtext, runtimes.json fp8_output_head_at_16_bits: the recipe does not "
                                      "quantize the logits matmul): its FLOPs at the bf16 peak, 0.191 s a step more"));
    EXPECT_FALSE(has_note(plan("bf16"), "attention at 16 bits under FP8"));
    EXPECT_FALSE(has_note(plan("bf16"), "output head at 16 bits under FP8"));
}

// Pretraining on another vendor's accelerator that no family basis covers (TPU v7, MI300X) keeps the catalog-wide MFU
// (0.4125, measured on H100) as its point estimate, says the basis is not calibrated there, labels its figures modelled,
// and spans every family basis the catalog records: 0.3356 (a100-megatron-2021's low) to 0.7373 (tpu-xla-pretraining's
// high), assumptions.json training_mfu_uncalibrated_low/high. On one device a step is the GEMMs at g x 0.4125 / MFU plus
// element-wise kernels that do not depend on the MFU, so with T the step time of each end,
//   (T_low - T_typ) / (T_typ - T_high) = (0.4125/0.3356 - 1) / (1 - 0.4125/0.7373) = 0.22914 / 0.44052 = 0.52016,
// whatever g and the element-wise time are; NVIDIA's B200 keeps the catalog-wide band (0.3769..0.563):
//   (0.4125/0.3769 - 1) / (1 - 0.4125/0.563) = 0.09446 / 0.26732 = 0.35335.
TEST(TrainingBasis, AnotherVendorsAcceleratorWithoutAFamilyBasisSaysSoAndSpansEveryBasis) {
    auto plan_on = [](const char* device) {
        return run(std::string(R"({"stage": "pretrain", "model": "llama-3.1-8b", "train": {"seq_len": 128, "micro_batch": 8, "global_batch": 8,
            "checkpointing": "none"}, "hardware": {"devices": [")") + device + R"("], "count": 1}})").candidates.at(0);
    };
    auto spread = [](const Candidate& c) {
        const Figure& f = c.figures.at("train_tokens_per_s");
        const double typ = 1 / f.value, slow = 1 / f.low, fast = 1 / f.high;
        return (slow - typ) / (typ - fast);
    };
    auto says = [](const Candidate& c) { return has_note(c, "training basis not calibrated for "); };
    for (const char* device : {"tpu-v7", "mi300x"}) {
        const Candidate c = plan_on(device);
        EXPECT_NEAR(spread(c), 0.22914 / 0.44052, 1e-3) << device;
        EXPECT_TRUE(says(c)) << device;
        EXPECT_EQ(c.figures.at("train_tokens_per_s").label, Label::modelled) << device;
    }
    const Candidate b200 = plan_on("b200");
    EXPECT_NEAR(spread(b200), 0.09446 / 0.26732, 1e-3);
    EXPECT_FALSE(says(b200));
    EXPECT_FALSE(says(plan_on("tpu-v5p"))); // MaxText's family basis covers it
}

} // namespace
} // namespace hwplan

namespace hwplan {
namespace {

// An SRAM system's serving plan counts a GPU engine's memory terms (the runtime context, the engine's activation
// working set), which on a Groq chip's 230 MB alone decide the fit: the plan says so, beside the figures; a GPU's does not.
TEST(SramSystems, ServingMemoryOnAnSramSystemSaysItIsAGpuEnginesFit) {
    auto plan_on = [](const char* device) {
        return run(std::string(R"({"stage": "serve", "model": "llama-3.1-8b", "precision": "fp8", "serve": {"context_tokens": 2048,
            "concurrent_users": 1}, "hardware": {"devices": [")") + device + R"("], "count": 64}})").candidates.at(0);
    };
    const std::string note = "memory not calibrated for SRAM systems";
    EXPECT_TRUE(has_note(plan_on("groq-lpu"), note));
    EXPECT_TRUE(has_note(plan_on("cerebras-cs3"), note));
    EXPECT_FALSE(has_note(plan_on("h100-sxm"), note));
}

// A device's own runtime reserve (catalog memory.runtime_reserved_MB; plan_facts.cpp runtime_overhead_bytes) replaces
// the GPU runtime context and engine buffers. Groq records 0 (each chip's 220 MiB is global memory: Groq's ISCA 2022
// abstract), so Llama 3.2 1B at BF16 over 64 chips (TP 8 inside a server of eight, 8 stages) holds, per chip, by hand:
//   weights  1,235,814,400 params x 2 B / 64 = 38,619,200 B
//   KV cache 2,048 tokens x (16 layers x 8 KV heads x 64 x 2 x 2 B = 32,768 B) / 64 = 1,048,576 B
//   overhead 0 (was 400 MB of CUDA context + 1.922 GB of TP buffers: 2.322 GB, which no 230 MB chip holds)
// plus the activation working set, and fits the chip. The same entry with the key removed charges the GPU figures.
TEST(SramSystems, GroqChipChargesItsOwnRuntimeReserveNotACudaContext) {
    const std::string w = R"({"stage": "serve", "model": "llama-3.2-1b", "precision": "bf16", "serve": {"context_tokens": 2048,
        "prompt_tokens": 1024, "output_tokens": 1024, "concurrent_users": 1}, "hardware": {"devices": ["groq-lpu"], "count": 64}})";
    const Plan p = run(w);
    const Candidate* c = find(p, "groq-lpu");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->layout.tensor_parallel, 8);
    EXPECT_DOUBLE_EQ(c->memory.weights_bytes, 38619200.0);
    EXPECT_DOUBLE_EQ(c->memory.kv_cache_bytes, 1048576.0);
    EXPECT_DOUBLE_EQ(c->memory.overhead_bytes, 0.0);
    EXPECT_NEAR(c->memory.total_bytes, 38619200.0 + 1048576.0 + c->memory.activations_bytes, 1.0);
    EXPECT_TRUE(c->fits);
    // Without the recorded reserve (every GPU's case) the CUDA context and the TP buffers come back.
    Catalog gpu_like = catalog();
    for (auto& d : gpu_like.devices)
        if (d.id == "groq-lpu") d.runtime_reserved_bytes = -1;
    const Plan q = plan_from_json(w, gpu_like, false);
    const Candidate* g = find(q, "groq-lpu");
    ASSERT_NE(g, nullptr);
    EXPECT_NEAR(g->memory.overhead_bytes, 400e6 + 1.922e9, 1e3);
    EXPECT_FALSE(g->fits);
}

// Static-shape Neuron runtimes (runtimes.json decode_runtimes; plan_serving.cpp decode_phase). Llama 2 7B, BF16, batch 8,
// 128 in / 3,968 out on 12 Inferentia2 at TP 12 (24 NeuronCores, tensor_parallel_cores 2). Under transformers-neuronx
// 2.18 against the default tuned runtime, each device's decode step reads
//   + the padded heads' projections: 32 layers x 4096 x 128 x (2 x 16 q/o + 2 x 16 k/v) x 2 B = 2,147,483,648 B / 12
//   + the KV cache over the mean bucket, 48 heads: 8 x 2816 x (32 x 48 x 128 x 2 x 2 B = 786,432) / 12
//   - the KV cache over the mean history, 32 heads: 8 x 2112 x 524,288 / 12
// = 178,956,970.7 + 1,476,395,008 - 738,197,504 = 917,154,474.7 B more.
TEST(NeuronRuntimes, TransformersNeuronxReadsTheBucketAndThePaddedHeads) {
    auto plan_with = [](const std::string& runtime) {
        return run(R"({"stage": "batch", "model": "llama-2-7b", "precision": {"weights": "bf16", "kv_cache": "bf16", "compute": "bf16"},
            "serve": {"context_tokens": 4096, "prompt_tokens": 128, "output_tokens": 3968, "concurrent_users": 8, "tensor_parallel": 12)" +
                   (runtime.empty() ? std::string() : R"(, "runtime": ")" + runtime + "\"") + R"(},
            "hardware": {"devices": ["inferentia2"], "count": 12}})").candidates.at(0);
    };
    const Candidate tuned = plan_with(""), tnx = plan_with("transformers-neuronx-2.18");
    EXPECT_NEAR(tnx.phases.at(0).roofline.bytes - tuned.phases.at(0).roofline.bytes, 917154474.67, 1.0);
    EXPECT_NE(tnx.phases.at(0).name.find("attention over 2816 tokens"), std::string::npos) << tnx.phases.at(0).name;
    EXPECT_NE(tnx.phases.at(0).name.find("48 query / 48 KV over 24 ranks"), std::string::npos) << tnx.phases.at(0).name;
    EXPECT_LT(tnx.figures.at("throughput_tokens_per_s").value, tuned.figures.at("throughput_tokens_per_s").value);
}

// optimum-neuron 0.4 pads a lone request to the compiled batch and attends over the whole compiled sequence: Llama
// 3.1 8B (8 KV heads divide TP 4: no padding; 131,072 B of KV per token) on one Trainium2, 1500 in / 250 out, compiled
// batch 32 and sequence 4096, against the tuned runtime at batch 1 and a 1,625-token mean history:
// 32 x 4096 x 131,072 - 1625 x 131,072 + 31 more input-embedding rows x 8,192 B = 16,967,131,136 B more per step.
// Its prompt is encoded padded to 4096 tokens. Qwen3-30B-A3B (128 experts, top 8) compiled at batch 16 reaches
// 16 x 8 / 128 = 1.0: every expert read (NxD forward_all_experts); at batch 8 each token loads its 8 (64 of 128 loads):
// batch 16 reads 0.5 x 57,982,058,496 B of experts (48 x 128 x 3 x 2048 x 768 x 2 B) + 8 x 4096 x 98,304 B of KV more.
TEST(NeuronRuntimes, OptimumNeuronRunsTheCompiledShapes) {
    auto llama = [](bool optimum) {
        return run(std::string(R"({"stage": "serve", "model": "llama-3.1-8b", "precision": {"weights": "bf16", "kv_cache": "bf16", "compute": "bf16"},
            "serve": {"context_tokens": 1750, "prompt_tokens": 1500, "output_tokens": 250, "concurrent_users": 1)") +
                   (optimum ? R"(, "runtime": "optimum-neuron-0.4", "compiled_batch": 32, "compiled_sequence_tokens": 4096)" : "") + R"(},
            "hardware": {"devices": ["trainium2"], "count": 1}})").candidates.at(0);
    };
    const Candidate tuned = llama(false), opt = llama(true);
    EXPECT_NEAR(opt.phases.at(0).roofline.bytes - tuned.phases.at(0).roofline.bytes, 16967131136.0, 1.0);
    EXPECT_NE(opt.phases.at(1).name.find("encoded padded to the compiled 4096"), std::string::npos) << opt.phases.at(1).name;
    EXPECT_GT(opt.phases.at(1).roofline.flops, 2.5 * tuned.phases.at(1).roofline.flops);
    auto qwen = [](int compiled) {
        return run(R"({"stage": "serve", "model": "qwen3-30b-a3b", "precision": {"weights": "bf16", "kv_cache": "bf16", "compute": "bf16"},
            "serve": {"context_tokens": 1750, "prompt_tokens": 1500, "output_tokens": 250, "concurrent_users": 1,
            "runtime": "optimum-neuron-0.4", "compiled_batch": )" + std::to_string(compiled) + R"(, "compiled_sequence_tokens": 4096},
            "hardware": {"devices": ["trainium2"], "count": 1}})").candidates.at(0);
    };
    const Candidate q16 = qwen(16), q8 = qwen(8);
    EXPECT_NE(q16.phases.at(0).name.find("every routed expert over every row"), std::string::npos) << q16.phases.at(0).name;
    EXPECT_EQ(q8.phases.at(0).name.find("every routed expert over every row"), std::string::npos) << q8.phases.at(0).name;
    const double expected = 0.5 * 57982058496.0 + 8.0 * 4096 * 98304;
    EXPECT_NEAR(q16.phases.at(0).roofline.bytes - q8.phases.at(0).roofline.bytes, expected, 0.005 * expected); // + routing kernels' bytes
}

} // namespace
} // namespace hwplan

namespace hwplan {
namespace {

// An SRAM system's decode step (issue 20, item 85): Llama 3.1 8B at BF16 on one CS-3, batch 1, 1,000 prompt tokens
// and 1,000 generated (a 1,500-token mean history). By hand, one step reads per layer 2 x 4096 x 4096 (q, o) +
// 2 x 4096 x 1024 (k, v) + 3 x 4096 x 14336 (gate, up, down) = 218,103,808 weights, x 32 = 6,979,321,856; the untied
// LM head 128,256 x 4096 = 525,336,576; the norms 65 x 4096 = 266,240; one embedding row 4,096: 7,504,928,768 x 2 B =
// 15,009,857,536 B, plus the KV cache 1,500 x 32 layers x 2 x 1024 x 2 B = 196,608,000 B: 15,206,465,536 B, which at
// 21 PB/s x 0.78 (decode_bandwidth_efficiency) take 0.928 us. The fixed step is decode_step_overhead_s, 0.87 ms (a GPU
// engine's launch time, assumptions.json): 99.9 % of the step, and the plan says that it is a GPU engine's figure.
TEST(SramSystems, DecodeStepOnAWaferIsAGpuEnginesFixedStepAndSaysSo) {
    auto plan_on = [](const char* device) {
        return run(std::string(R"({"stage": "serve", "model": "llama-3.1-8b", "precision": {"weights": "bf16", "kv_cache": "bf16", "compute": "bf16"},
            "serve": {"context_tokens": 2000, "prompt_tokens": 1000, "output_tokens": 1000, "concurrent_users": 1},
            "hardware": {"devices": [")") + device + R"("], "count": 1}})").candidates.at(0);
    };
    const Candidate cs3 = plan_on("cerebras-cs3");
    const Phase& step = cs3.phases.at(0);
    EXPECT_NEAR(step.roofline.bytes, 15206465536.0, 1.0);
    EXPECT_NEAR(step.overhead_s, 0.00087, 1e-12);
    EXPECT_NEAR(step.time_s - step.overhead_s, 15206465536.0 / (21e15 * 0.78), 0.02 * 15206465536.0 / (21e15 * 0.78));
    const std::string note = "decode step not calibrated for SRAM systems: 0.87 ms of its 0.871 ms is decode_step_overhead_s";
    EXPECT_TRUE(has_note(cs3, note));
    EXPECT_FALSE(has_note(plan_on("h100-sxm"), "decode step not calibrated for SRAM systems"));
}

// DeepSpeed ZeRO-3 over a frozen base (runtimes.json deepspeed zero3_*; source deepspeed-zero3-buffers). PEFT's DeepSpeed
// guide's Llama 2 70B LoRA run on 8 H100 (bf16, full recomputation), by hand from the coordinator's reuse rule:
//   q 8,192 x 8,192 = 67,108,864; k, v 8,192 x 1,024 = 8,388,608; o 67,108,864; gate, up, down 8,192 x 28,672 = 234,881,024
//   kept from the recomputed forward to the backward when 2 x (the elements after it in the block) < 1e9:
//     down (0), up (2 x 234,881,024), gate (2 x 469,762,048 = 939,524,096) kept; o (2 x 704,643,072) and q, k, v not
//   gathered ahead: o (67,108,864 >= 5e7, one module)
//   (704,643,072 + 67,108,864) x 2 bytes = 1,543,503,872 bytes more weights; the gradient bucket 5e8 x 2 = 1,000,000,000
//   bytes more overhead (tolerance 1e-9: exact in the shapes).
TEST(Runtimes, DeepSpeedZero3AdapterRunHoldsTheReusedLayersAndTheGradientBucket) {
    const std::string job = R"({"stage": "finetune", "model": "llama-2-70b", "precision": "bf16",
        "train": {"method": "lora", "lora_rank": 8, "seq_len": 2048, "micro_batch": 8, "global_batch": 256, "checkpointing": "full",
                  "zero_stage": 3, "optimizer": "adamw", "cpu_offload": false, "runtime": "deepspeed"},
        "hardware": {"devices": ["h100-sxm"], "count": 8}})";
    Catalog without = catalog();
    for (TrainingRuntime& rt : without.training_runtimes)
        if (rt.id == "deepspeed") {
            EXPECT_EQ(rt.zero3_reduce_bucket_elements, 5e8);
            rt.zero3_reduce_bucket_elements = 0;
            rt.zero3_max_reuse_distance_elements = 0;
        }
    const Plan p = run(job);
    const Plan q = plan_from_json(job, without, false);
    ASSERT_FALSE(p.candidates.empty());
    ASSERT_FALSE(q.candidates.empty());
    const MemoryUse& a = p.candidates.front().memory;
    const MemoryUse& b = q.candidates.front().memory;
    EXPECT_NEAR(a.weights_bytes - b.weights_bytes, 1543503872.0, 1e-9 * 1543503872.0);
    EXPECT_NEAR(a.overhead_bytes - b.overhead_bytes, 1e9, 1.0);
}

// The same rule for the guide's QLoRA run (NF4 with bf16 quant storage, 2 GPUs): ds_numel counts the stored elements, a
// quarter of the parameters. By hand: q, o 16,777,216; k, v 2,097,152; gate, up, down 58,720,256; the block 213,909,504
// elements, all kept (2 x 197,132,288 after q < 1e9); gathered ahead, the next block's recomputed forward until 5e7 is
// reached: 16,777,216 + 2,097,152 + 2,097,152 + 16,777,216 + 58,720,256 = 96,468,992; (213,909,504 + 96,468,992) x 2 bytes
// = 620,756,992 bytes (tolerance 1e-9). A full fine-tune is not planned this way (its gathered layer is memory.rst's).
TEST(Runtimes, DeepSpeedZero3QloraCountsTheStoredElementsOfTheGatheredBlock) {
    const std::string job = R"({"stage": "finetune", "model": "llama-2-70b", "precision": {"weights": "nf4", "kv_cache": "bf16", "compute": "bf16"},
        "train": {"method": "qlora", "lora_rank": 8, "seq_len": 2048, "micro_batch": 2, "global_batch": 8, "checkpointing": "full",
                  "zero_stage": 3, "optimizer": "adamw", "cpu_offload": false, "runtime": "deepspeed"},
        "hardware": {"devices": ["a100-40gb"], "count": 2}})";
    Catalog without = catalog();
    for (TrainingRuntime& rt : without.training_runtimes)
        if (rt.id == "deepspeed") rt.zero3_max_reuse_distance_elements = 0;
    const Plan p = run(job);
    const Plan q = plan_from_json(job, without, false);
    ASSERT_FALSE(p.candidates.empty());
    ASSERT_FALSE(q.candidates.empty());
    EXPECT_NEAR(p.candidates.front().memory.weights_bytes - q.candidates.front().memory.weights_bytes, 620756992.0, 1e-9 * 620756992.0);
    // bitsandbytes' statistics stay whole on each device (quant_state_replicated): 68,452,360,192 NF4 params x 0.127 / 8 =
    // 1,086,681,218 bytes, of which the 1/2 share is already counted: 543,340,609 bytes more (tolerance 0.1 %).
    Catalog sharded = catalog();
    for (TrainingRuntime& rt : sharded.training_runtimes)
        if (rt.id == "deepspeed") {
            EXPECT_TRUE(rt.quant_state_replicated);
            rt.quant_state_replicated = false;
        }
    const Plan r = plan_from_json(job, sharded, false);
    ASSERT_FALSE(r.candidates.empty());
    EXPECT_NEAR(p.candidates.front().memory.weights_bytes - r.candidates.front().memory.weights_bytes, 543340609.0, 0.001 * 543340609.0);
}
} // namespace
} // namespace hwplan
