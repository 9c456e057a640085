// validate_test.cpp: the validation suite's runner. Reading a measurement (and naming what is wrong in a
// bad one), the comparison of one case against hand-checked numbers, not-modelled cases, the per-kind
// summary, the baseline gate, and the real suite in tests/validation/ (every file reads; the gate holds).
#include "hwplan/validate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hwplan/catalog_embedded.h"
#include "hwplan/catalog_files.h"
#include "hwplan/plan.h"

#include <nlohmann/json.hpp>

namespace hwplan {

namespace {

const Catalog& catalog() { return embedded_catalog().catalog; }

// The catalog with no "calibrated_by" ids: the small suites built below do not hold the real cases those
// ids name (the repository's own suite is checked against the real catalog, below).
const Catalog& uncalibrated_catalog() {
    static const Catalog cat = [] {
        Catalog c = catalog();
        for (auto& [name, d] : c.assumptions) d.calibrated_by.clear();
        for (auto& r : c.decode_bandwidth_rules) r.calibrated_by.clear();
        for (auto& r : c.training_mfu_rules) r.calibrated_by.clear();
        for (auto& r : c.training_attention_rules) r.calibrated_by.clear();
        for (auto& r : c.training_runtimes) r.adapter_timing_calibrated_by.clear();
        return c;
    }();
    return cat;
}

// A complete, valid measurement; tests change one field at a time.
nlohmann::json base_case() {
    return nlohmann::json::parse(R"json({
      "id": "test-7b-model-states", "kind": "memory", "measure": "zero_model_states", "split": "validation",
      "quantity": "memory.model_state_bytes",
      "source": {"title": "Lesson 001", "publisher": "course", "locator": "Training Memory Lower Bound",
                 "quote": "mixed-precision Adam needs 16 bytes per parameter", "url": "https://example.org/001",
                 "read_on": "2026-11-30"},
      "setup": {"model": "7B (size only)", "precision": "bf16 + fp32 Adam", "batch": "1", "sequence": "1024",
                "runtime": "any", "device": "a100-80gb", "device_count": 1},
      "workload": {"stage": "finetune", "model": {"params": 7e9}, "precision": "bf16",
                   "train": {"method": "full", "optimizer": "adamw", "seq_len": 1024, "micro_batch": 1},
                   "hardware": {"devices": ["a100-80gb"], "count": 1}},
      "measured": {"value": 112, "unit": "GB"}
    })json");
}

CatalogFile file(const nlohmann::json& j, const std::string& path = "memory/test.json") { return {path, j.dump()}; }

// The issues reading a case gives (for the tests of bad cases).
Issues issues_of(const nlohmann::json& j) {
    Measurement m;
    return parse_measurement(file(j), m);
}

Measurement parsed(const nlohmann::json& j) {
    Measurement m;
    const Issues is = parse_measurement(file(j), m);
    for (const auto& i : is) ADD_FAILURE() << to_string(i);
    return m;
}

} // namespace

// [SECTION] reading ----------------------------------------------------------------------------------

TEST(ValidateParse, ReadsEveryField) {
    const Measurement m = parsed(base_case());
    EXPECT_EQ(m.id, "test-7b-model-states");
    EXPECT_EQ(m.kind, "memory");
    EXPECT_EQ(m.split, "validation");
    EXPECT_DOUBLE_EQ(m.measured_si, 112e9);
    EXPECT_EQ(m.unit_si, "bytes");
    EXPECT_EQ(m.source.read_on, "2026-11-30");
    EXPECT_NE(m.setup_text.find("1 x a100-80gb"), std::string::npos);
}

TEST(ValidateParse, ConvertsUnits) {
    struct Row { const char* unit; double value; double block; double si; };
    const Row rows[] = {
        {"GiB", 18.9, 0, 18.9 * 1073741824.0},    // torchtune prints GiB
        {"blocks", 7351, 16, 7351 * 16.0},        // vLLM "# GPU blocks" x 16-token blocks
        {"billion params", 7.5, 0, 7.5e9},
        {"MiB", 1024, 0, 1073741824.0},
        {"ms/token", 8.71, 0, 1000 / 8.71},      // TinyChat prints per-token latency
        {"ms/batch", 16.14, 128, 128 / 16.14e-3}, // TensorRT demoBERT: batch 128 in 16.14 ms
    };
    for (const auto& r : rows) {
        auto j = base_case();
        j["measured"] = {{"value", r.value}, {"unit", r.unit}};
        if (r.block > 0) j["measured"][std::string(r.unit) == "ms/batch" ? "batch_items" : "block_tokens"] = r.block;
        if (std::string(r.unit) == "blocks" || std::string(r.unit) == "billion params" || std::string(r.unit) == "ms/token" || std::string(r.unit) == "ms/batch") j["quantity"] = "figure.max_concurrent_users";
        EXPECT_DOUBLE_EQ(parsed(j).measured_si, r.si) << r.unit;
    }
}

TEST(ValidateParse, NamesTheFieldAndReason) {
    struct Row { const char* key; nlohmann::json value; const char* path; const char* message; };
    const Row rows[] = {
        {"split", "training", "split", "unknown value \"training\"; expected one of calibration, validation"},
        {"kind", "latency", "kind", "unknown value \"latency\"; expected one of memory, decode, serving, training, embedding"},
        {"quantity", "peak", "quantity", "unknown quantity \"peak\"; expected memory.total_bytes, memory.model_state_bytes, memory.allocated_peak_bytes, memory.reserved_peak_bytes, kv_cache_tokens, kv_cache_capacity_bytes, train_flop_per_s_per_device, train_mfu or figure.NAME"},
        {"workload", "llama", "workload", "expected an object (a hwplan workload, docs/workload.md), got a string"},
    };
    for (const auto& r : rows) {
        auto j = base_case();
        j[r.key] = r.value;
        const Issues is = issues_of(j);
        ASSERT_EQ(is.size(), 1u) << r.key;
        EXPECT_EQ(is[0].path, r.path);
        EXPECT_EQ(is[0].message, r.message);
        EXPECT_EQ(is[0].file, "memory/test.json");
    }
}

TEST(ValidateParse, RequiresTheSourceQuoteAndDate) {
    auto j = base_case();
    j["source"].erase("quote");
    j["source"]["read_on"] = "30.11.2026";
    const Issues is = issues_of(j);
    ASSERT_EQ(is.size(), 2u);
    EXPECT_EQ(is[0].path, "source.quote");
    EXPECT_EQ(is[0].message, "required field is missing");
    EXPECT_EQ(is[1].path, "source.read_on");
    EXPECT_EQ(is[1].message, "expected a date YYYY-MM-DD, got \"30.11.2026\"");
}

TEST(ValidateParse, BlocksNeedTheirSize) {
    auto j = base_case();
    j["quantity"] = "kv_cache_tokens";
    j["measured"] = {{"value", 7351}, {"unit", "blocks"}};
    const Issues is = issues_of(j);
    ASSERT_EQ(is.size(), 1u);
    EXPECT_EQ(is[0].path, "measured.block_tokens");
}

TEST(ValidateParse, UnitMustMatchTheQuantity) {
    auto j = base_case();
    j["measured"] = {{"value", 1650}, {"unit", "tokens/s"}};
    const Issues is = issues_of(j);
    ASSERT_EQ(is.size(), 1u);
    EXPECT_EQ(is[0].path, "measured.unit");
}

// [SECTION] one case ---------------------------------------------------------------------------------

// Lesson 001, "Training Memory Lower Bound": mixed-precision Adam holds 16 bytes per parameter
// (2 weights + 2 gradients + 4 master + 4 + 4 moments), so 7e9 x 16 = 112 GB of model states.
TEST(ValidateCase, ModelStatesOfA7BFullFineTune) {
    const CaseResult r = run_case(parsed(base_case()), catalog());
    ASSERT_TRUE(r.modelled) << r.reason;
    EXPECT_NEAR(r.predicted, 112e9, 1e-6 * 112e9);
    EXPECT_NEAR(r.error_ratio, 0.0, 1e-6);
    EXPECT_TRUE(r.within);
    EXPECT_TRUE(r.in_band);
}

// Same prediction against a measurement 100 GB: error (112 - 100) / 100 = +12 %, outside memory's 10 %,
// and the arithmetic figure's zero-width band cannot hold it.
TEST(ValidateCase, ErrorAndToleranceAreTheKinds) {
    auto j = base_case();
    j["measured"]["value"] = 100;
    CaseResult r = run_case(parsed(j), catalog());
    ASSERT_TRUE(r.modelled);
    EXPECT_NEAR(r.error_ratio, 0.12, 1e-6);
    EXPECT_FALSE(r.within);
    EXPECT_FALSE(r.in_band);
    j["kind"] = "decode"; // decode tolerates 25 %
    j["quantity"] = "memory.model_state_bytes";
    r = run_case(parsed(j), catalog());
    EXPECT_TRUE(r.within);
}

// A published value rounded to a step stands for the half step either side of it: 112 GB of model states
// against "112.4 GB" printed to 1 GB is in band (|112 - 112.4| = 0.4 <= 0.5), against "112.6 GB" it is not
// (0.6 > 0.5); the error stays the plain ratio to the printed value either way.
TEST(ValidateCase, ARoundedMeasurementIsInBandWithinHalfItsStep) {
    auto j = base_case();
    j["measured"] = {{"value", 112.4}, {"unit", "GB"}, {"resolution", 1}};
    CaseResult r = run_case(parsed(j), catalog());
    ASSERT_TRUE(r.modelled) << r.reason;
    EXPECT_NEAR(r.m.resolution_si, 1e9, 1e-3);
    EXPECT_NEAR(r.error_ratio, (112.0 - 112.4) / 112.4, 1e-9);
    EXPECT_TRUE(r.in_band);
    j["measured"]["value"] = 112.6;
    r = run_case(parsed(j), catalog());
    EXPECT_FALSE(r.in_band);
    j["measured"]["resolution"] = 0; // must be positive
    const Issues is = issues_of(j);
    ASSERT_EQ(is.size(), 1u);
    EXPECT_EQ(is[0].path, "measured.resolution");
}

// What torch.cuda.max_memory_allocated() reports leaves out the overhead term: the runtime context (0.4 GB,
// catalog/assumptions.json runtime_context_bytes) and the caching allocator's fragmentation, 17.6 % of the
// per-step tensors (allocator_fragmentation_ratio, GMLake). So total - allocated = 0.4 GB + 0.176 x (activations +
// gradients), with the terms read from the same plan; the allocated figure has no range (its band is itself).
TEST(ValidateCase, AllocatedPeakLeavesOutTheContextAndFragmentation) {
    auto j = base_case();
    j["quantity"] = "memory.total_bytes";
    const CaseResult total = run_case(parsed(j), catalog());
    j["quantity"] = "memory.allocated_peak_bytes";
    const CaseResult alloc = run_case(parsed(j), catalog());
    ASSERT_TRUE(total.modelled && alloc.modelled) << total.reason << alloc.reason;
    const Plan p = plan_from_json(j["workload"].dump(), catalog(), false);
    ASSERT_FALSE(p.candidates.empty());
    const MemoryUse& m = p.candidates.front().memory;
    EXPECT_NEAR(total.predicted - alloc.predicted, 0.4e9 + 0.176 * (m.activations_bytes + m.gradients_bytes), 1e3);
    EXPECT_GE(alloc.predicted, 112e9); // lesson 001's 16 bytes per parameter are all allocated
    EXPECT_EQ(alloc.low, alloc.predicted);
    EXPECT_EQ(alloc.high, alloc.predicted);
}

// What torch.cuda.max_memory_reserved() reports (torchtune's memory logs) is what PyTorch's caching allocator holds:
// no runtime context (0.4 GB, runtime_context_bytes) and no optimizer state in managed memory. torchtune's full
// single-device recipe steps bitsandbytes' PagedAdamW8bit, whose state buffers come from cudaMallocManaged through
// torch.frombuffer (bitsandbytes/functional.py get_paged): 2 bytes per parameter of Llama 3.1 8B
// (8.03e9 x 2 = 16.06 GB) in all, of which the plan keeps on a 24 GB RTX 4090 what the rest leaves free. So
// total - reserved = 0.4 GB + the optimizer term, and reserved = weights (16.06 GB) + gradients + activations +
// fragmentation: above 16.06 GB and below the 4090's 25.4 GB (23.64 GiB, its runtime total).
TEST(ValidateCase, ReservedPeakLeavesOutTheContextAndManagedOptimizerState) {
    auto j = base_case();
    j["workload"] = nlohmann::json::parse(R"json({"stage": "finetune", "model": "llama-3.1-8b", "precision": "bf16",
        "train": {"method": "full", "seq_len": 2048, "micro_batch": 2, "checkpointing": "full", "optimizer": "adamw_8bit",
                  "runtime": "torchtune"}, "hardware": {"devices": ["rtx-4090"], "count": 1}})json");
    j["quantity"] = "memory.total_bytes";
    const CaseResult total = run_case(parsed(j), catalog());
    j["quantity"] = "memory.reserved_peak_bytes";
    const CaseResult reserved = run_case(parsed(j), catalog());
    ASSERT_TRUE(total.modelled && reserved.modelled) << total.reason << reserved.reason;
    const Plan p = plan_from_json(j["workload"].dump(), catalog(), false);
    ASSERT_FALSE(p.candidates.empty());
    const MemoryUse& m = p.candidates.front().memory;
    EXPECT_GT(m.optimizer_bytes, 0.0);
    EXPECT_NEAR(total.predicted - reserved.predicted, 0.4e9 + m.optimizer_bytes, 1e3);
    EXPECT_NEAR(m.weights_bytes, 16.06e9, 0.01e9);
    EXPECT_GT(reserved.predicted, 16.06e9);
    EXPECT_LT(reserved.predicted, 23.64 * 1073741824.0);
    EXPECT_LE(reserved.low, reserved.predicted); // the fragmentation ratio's range bands it
    EXPECT_GT(reserved.high, reserved.predicted);
    // An optimizer in ordinary device memory (hf-peft: no paged optimizer) leaves out only the context.
    j["workload"]["train"]["runtime"] = "hf-peft";
    j["workload"]["train"]["method"] = "lora";
    j["workload"]["train"].erase("optimizer");
    j["quantity"] = "memory.total_bytes";
    const CaseResult total_lora = run_case(parsed(j), catalog());
    j["quantity"] = "memory.reserved_peak_bytes";
    const CaseResult reserved_lora = run_case(parsed(j), catalog());
    EXPECT_NEAR(total_lora.predicted - reserved_lora.predicted, 0.4e9, 1e3);
}

// The memory band carries each unknown term's sourced range on the terms its source measured. The caching allocator's
// fragmentation (assumptions.json allocator_fragmentation_ratio 0.176, range 0.053 .. 0.43) is GMLake's 1 - peak active /
// peak reserved, a share of everything allocated; the point estimate applies it to the per-step tensors (activations and
// gradients) only, so the band's high end also reaches allocated x 1.43, its low end keeps allocated + 0.053 x the per-step
// tensors; the runtime context ranges 0.3 .. 1.922 GB (runtime_context_bytes) and only the total holds it. By hand for
// Llama 2 7B, LoRA rank 8 on q and v (torchtune), batch 2 x 512 tokens, full recomputation, one A100 80GB:
// weights 6,738,415,616 x 2 + 4,194,304 adapters x 2 = 13,485,219,840 bytes; gradients 4,194,304 x 2 = 8,388,608; AdamW
// 4,194,304 x 4 = 16,777,216; activations A (the plan's term: 32 x 1,024 x 4,096 x 2 = 268,435,456 bytes of checkpoints,
// 1,024 x 32,000 x 3 = 98,304,000 of logits and loss, and one block's working set). Allocated = 13,510,385,664 + A;
// per-step tensors T = A + 8,388,608. Reserved: low allocated + 0.053 T, point allocated + 0.176 T, high 1.43 x allocated
// (above allocated + 0.43 T); total = reserved + 0.3 / 0.4 / 1.922 GB. With A = 493,092,864 (2026-12-04): reserved
// 14.030 .. 20.025 GB, total 14.330 .. 21.947 GB (until then the high ends were allocated + 0.43 T: 14.219 and 16.141 GB).
TEST(ValidateCase, MemoryBandCarriesTheFragmentationRangeOnEverythingAllocated) {
    auto j = base_case();
    j["measure"] = "finetune_peak_memory";
    j["quantity"] = "memory.reserved_peak_bytes";
    j["measured"] = {{"value", 17.0}, {"unit", "GB"}};
    j["workload"] = nlohmann::json::parse(R"json({"stage": "finetune", "model": "llama-2-7b", "precision": "bf16",
        "train": {"method": "lora", "lora_rank": 8, "lora_targets": "query-value", "seq_len": 512, "micro_batch": 2,
                  "checkpointing": "full", "runtime": "torchtune"}, "hardware": {"devices": ["a100-80gb"], "count": 1}})json");
    const Plan p = plan_from_json(j["workload"].dump(), catalog(), false);
    ASSERT_FALSE(p.candidates.empty());
    const MemoryUse& m = p.candidates.front().memory;
    EXPECT_NEAR(m.weights_bytes, 6738415616.0 * 2 + 4194304.0 * 2, 1);
    EXPECT_NEAR(m.gradients_bytes, 4194304.0 * 2, 1);
    EXPECT_NEAR(m.optimizer_bytes, 4194304.0 * 4, 1);
    EXPECT_EQ(m.managed_bytes, 0.0);
    EXPECT_GT(m.activations_bytes, 268435456.0 + 98304000.0); // checkpoints and logits, and one block's working set
    const double allocated = 13485219840.0 + 8388608.0 + 16777216.0 + m.activations_bytes;
    const double transient = m.activations_bytes + 8388608.0;
    EXPECT_NEAR(m.total_bytes, allocated + 0.176 * transient + 0.4e9, 1e3); // the point: the per-step reading, typical values
    EXPECT_NEAR(m.reserved_low_bytes, allocated + 0.053 * transient, 1e3);
    EXPECT_NEAR(m.reserved_high_bytes, 1.43 * allocated, 1e3);
    EXPECT_GT(m.reserved_high_bytes, allocated + 0.43 * transient + 5e9); // the per-step reading alone fell 5.8 GB short
    EXPECT_NEAR(m.total_low_bytes, allocated + 0.053 * transient + 0.3e9, 1e3);
    EXPECT_NEAR(m.total_high_bytes, 1.43 * allocated + 1.922e9, 1e3);
    EXPECT_NEAR(m.reserved_high_bytes / 20.025e9, 1.0, 0.001); // at today's activations (above)
    // The reserved peak's band is that one; 17.0 GB, 21 % above the point, is inside 1.43 x allocated.
    const CaseResult reserved = run_case(parsed(j), catalog());
    ASSERT_TRUE(reserved.modelled) << reserved.reason;
    EXPECT_NEAR(reserved.predicted, allocated + 0.176 * transient, 1e3);
    EXPECT_NEAR(reserved.low, allocated + 0.053 * transient, 1e3);
    EXPECT_NEAR(reserved.high, 1.43 * allocated, 1e3);
    EXPECT_TRUE(reserved.in_band);
    // The allocated peak holds neither fragmentation nor context: no assumption ranges over it (torchtune declares no
    // unmodelled share), so its band stays the figure.
    j["quantity"] = "memory.allocated_peak_bytes";
    const CaseResult alloc = run_case(parsed(j), catalog());
    EXPECT_NEAR(alloc.low, allocated, 1e3);
    EXPECT_NEAR(alloc.high, allocated, 1e3);
    EXPECT_FALSE(alloc.in_band);
    // A trainer without a caching allocator (maxtext: XLA lays the step out when it compiles it) fragments nothing at either
    // reading: its total's band is the context's range alone.
    j["workload"] = nlohmann::json::parse(R"json({"stage": "pretrain", "model": "llama-3.2-1b", "precision": "bf16",
        "train": {"method": "full", "runtime": "maxtext", "seq_len": 4096, "micro_batch": 1, "checkpointing": "none"},
        "hardware": {"devices": ["tpu-v5p"], "count": 1}})json");
    const Plan x = plan_from_json(j["workload"].dump(), catalog(), false);
    ASSERT_FALSE(x.candidates.empty());
    const MemoryUse& xm = x.candidates.front().memory;
    EXPECT_NEAR(xm.total_high_bytes - xm.total_bytes, 1.922e9 - 0.4e9, 1e3);
    EXPECT_NEAR(xm.total_bytes - xm.total_low_bytes, 0.4e9 - 0.3e9, 1e3);
}

// A 7B pretraining step on one H100 timed with an MFU pinned to 0.5 (an override pins the band too):
// the MFU read back from the plan (step FLOPs / step time / dense BF16 peak) is that 0.5, and the
// achieved FLOP/s per device is 0.5 x 989.4 TFLOPS (the catalog's H100 SXM dense BF16 peak). Recomputation is
// pinned off: the job does not fit one H100 either way, and left open the search would report the point closest to
// fitting, which recomputes and so spends 8N instead of 6N FLOPs a token (an MFU of 0.375 on the same basis).
TEST(ValidateCase, TrainingMfuReadsBackTheStepsEfficiency) {
    auto j = base_case();
    j["kind"] = "training";
    j["quantity"] = "train_mfu";
    j["workload"] = nlohmann::json::parse(R"json({"stage": "pretrain", "model": {"params": 7e9}, "precision": "bf16",
        "train": {"seq_len": 2048, "micro_batch": 1, "checkpointing": "none"}, "hardware": {"devices": ["h100-sxm"], "count": 1},
        "assumptions": {"training_mfu": 0.5}})json");
    j["measured"] = {{"value", 50}, {"unit", "%"}};
    CaseResult r = run_case(parsed(j), catalog());
    ASSERT_TRUE(r.modelled) << r.reason;
    EXPECT_NEAR(r.predicted, 0.5, 1e-9);
    EXPECT_TRUE(r.in_band);
    j["quantity"] = "train_flop_per_s_per_device";
    j["measured"] = {{"value", 494.7}, {"unit", "TFLOP/s"}};
    r = run_case(parsed(j), catalog());
    ASSERT_TRUE(r.modelled) << r.reason;
    EXPECT_NEAR(r.predicted, 0.5 * 989.4e12, 1e-3 * 494.7e12);
}

// The two KV-capacity readings agree: bytes per device = tokens x KV bytes per token, and Llama 3.1 8B at
// bf16 stores 2 (K and V) x 8 KV heads x 128 head dim x 32 layers x 2 bytes = 131,072 bytes per token.
TEST(ValidateCase, KvCapacityInTokensAndBytesAgree) {
    auto j = base_case();
    j["quantity"] = "kv_cache_tokens";
    j["workload"] = nlohmann::json::parse(R"json({"stage": "serve", "model": "llama-3.1-8b", "precision": "bf16",
        "serve": {"context_tokens": 16, "prompt_tokens": 8, "output_tokens": 8, "concurrent_users": 1},
        "hardware": {"devices": ["h100-sxm"], "count": 1}})json");
    j["measured"] = {{"value", 400000}, {"unit", "tokens"}};
    const CaseResult tokens = run_case(parsed(j), catalog());
    j["quantity"] = "kv_cache_capacity_bytes";
    j["measured"] = {{"value", 50}, {"unit", "GiB"}};
    const CaseResult bytes = run_case(parsed(j), catalog());
    ASSERT_TRUE(tokens.modelled && bytes.modelled) << tokens.reason << bytes.reason;
    EXPECT_GT(tokens.predicted, 0);
    EXPECT_NEAR(bytes.predicted / tokens.predicted, 131072.0, 1e-6);
}

// NeMo's tables give tokens/s per GPU: the suite compares the whole system's rate, value x device_count.
TEST(ValidateParse, PerDeviceRatesScaleByTheDeviceCount) {
    auto j = base_case();
    j["quantity"] = "figure.train_tokens_per_s";
    j["setup"]["device_count"] = 64;
    j["measured"] = {{"value", 3062}, {"unit", "tokens/s/device"}};
    EXPECT_DOUBLE_EQ(parsed(j).measured_si, 3062.0 * 64);
}

TEST(ValidateCase, ToleranceByKind) {
    EXPECT_DOUBLE_EQ(tolerance_ratio("memory"), 0.10);
    EXPECT_DOUBLE_EQ(tolerance_ratio("decode"), 0.25);
    EXPECT_DOUBLE_EQ(tolerance_ratio("serving"), 0.35);
    EXPECT_DOUBLE_EQ(tolerance_ratio("training"), 0.25);
    EXPECT_DOUBLE_EQ(tolerance_ratio("embedding"), 0.35);
    EXPECT_DOUBLE_EQ(tolerance_ratio("latency"), 0.0);
}

TEST(ValidateCase, UnknownDeviceIsNotModelledWithTheReason) {
    auto j = base_case();
    j["workload"]["hardware"]["devices"] = {"Jetson Orin Nano 8GB"};
    const CaseResult r = run_case(parsed(j), catalog());
    EXPECT_FALSE(r.modelled);
    EXPECT_NE(r.reason.find("hardware.devices[0]"), std::string::npos) << r.reason;
}

TEST(ValidateCase, DeclaredNotModelledIsKeptWithItsReason) {
    auto j = base_case();
    j["not_modelled"] = "weight streaming is not modelled";
    const CaseResult r = run_case(parsed(j), catalog());
    EXPECT_FALSE(r.modelled);
    EXPECT_EQ(r.reason, "weight streaming is not modelled");
}

TEST(ValidateCase, AMissingFigureIsNotModelled) {
    auto j = base_case();
    j["quantity"] = "figure.items_per_s"; // a fine-tune has no items per second
    j["measured"] = {{"value", 100}, {"unit", "items/s"}};
    const CaseResult r = run_case(parsed(j), catalog());
    EXPECT_FALSE(r.modelled);
    EXPECT_NE(r.reason.find("leaves out items_per_s"), std::string::npos) << r.reason;
}

// [SECTION] the suite and the gate ----------------------------------------------------------------------

// Three cases: errors 0 %, +12 % (outside 10 %), and one not modelled: median of |0|, |0.12| = 6 %,
// half within tolerance, half in band, 3 cases, 2 modelled.
ValidationReport three_cases() {
    auto a = base_case();
    auto b = base_case();
    b["id"] = "b";
    b["measured"]["value"] = 100;
    auto c = base_case();
    c["id"] = "c";
    c["not_modelled"] = "not in the catalog";
    return run_validation({file(a, "memory/a.json"), file(b, "memory/b.json"), file(c, "memory/c.json")}, uncalibrated_catalog());
}

TEST(ValidateSuite, SummaryPerKind) {
    const ValidationReport r = three_cases();
    EXPECT_TRUE(r.issues.empty());
    const KindSummary& s = r.summary.at("validation").at("memory");
    EXPECT_EQ(s.cases, 3);
    EXPECT_EQ(s.modelled, 2);
    EXPECT_NEAR(s.median_abs_error, 0.06, 1e-6);
    EXPECT_DOUBLE_EQ(s.within_share, 0.5);
    EXPECT_DOUBLE_EQ(s.band_share, 0.5);
    EXPECT_EQ(r.summary.at("all").at("all").cases, 3);
}

// Sources are counted as leave one source out counts them (source_key: the URL without its anchor, case folded):
// three_cases() is one source with 3 cases, 2 modelled, 1 within tolerance; a second URL with one case
// (the 0 % error of base_case, within) comes after it, fewer cases first-sorted last; the markdown names both.
TEST(ValidateSuite, SourcesAreCountedAsLeaveOneSourceOutLeavesThemOut) {
    auto a = base_case();
    auto b = base_case();
    b["id"] = "b";
    b["measured"]["value"] = 100;
    auto c = base_case();
    c["id"] = "c";
    c["not_modelled"] = "not in the catalog";
    auto d = base_case();
    d["id"] = "d";
    d["source"]["url"] = "https://example.org/002#table-3";
    auto e = base_case();
    e["id"] = "e";
    e["source"]["url"] = "https://EXAMPLE.org/001#row-2"; // the same source as a, b and c
    const ValidationReport r = run_validation({file(a, "memory/a.json"), file(b, "memory/b.json"), file(c, "memory/c.json"),
                                               file(d, "memory/d.json"), file(e, "memory/e.json")}, uncalibrated_catalog());
    ASSERT_TRUE(r.issues.empty());
    const std::vector<SourceSummary> s = source_summaries(r);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].key, "https://example.org/001");
    EXPECT_EQ(s[0].cases, 4);
    EXPECT_EQ(s[0].modelled, 3);
    EXPECT_EQ(s[0].within, 2);      // a and e at 0 %, b at +12 % is out
    EXPECT_EQ(s[0].loso_within, 2); // no fitted value: leave one source out predicts the same
    EXPECT_EQ(s[0].kinds, std::vector<std::string>{"memory"});
    EXPECT_EQ(s[1].key, "https://example.org/002");
    EXPECT_EQ(s[1].url, "https://example.org/002#table-3");
    EXPECT_EQ(s[1].cases, 1);
    EXPECT_EQ(s[1].within, 1);
    const std::string md = render_validation_markdown(r);
    EXPECT_NE(md.find("5 cases from 2 sources"), std::string::npos);
    EXPECT_NE(md.find("| memory | 4 | 3 | 2 | 2 |"), std::string::npos) << md;
}

TEST(ValidateSuite, DuplicateIdIsAProblem) {
    const auto a = base_case();
    const ValidationReport r = run_validation({file(a, "memory/a.json"), file(a, "memory/b.json")}, uncalibrated_catalog());
    ASSERT_EQ(r.issues.size(), 1u);
    EXPECT_EQ(r.issues[0].message, "duplicate id \"test-7b-model-states\" (also in memory/a.json)");
}

// assumptions.json may name the measurements that set an assumption ("calibrated_by"); naming a
// validation case or an unknown id is a problem the suite reports (validation is never used for fitting).
TEST(ValidateSuite, CalibratedByMustNameCalibrationCases) {
    Catalog cat = uncalibrated_catalog();
    auto a = base_case();
    a["id"] = "fit-me";
    a["split"] = "calibration";
    auto b = base_case();
    b["id"] = "hold-out";
    cat.assumptions["training_mfu"].calibrated_by = {"fit-me"};
    EXPECT_TRUE(run_validation({file(a, "memory/a.json"), file(b, "memory/b.json")}, cat).issues.empty());
    cat.assumptions["training_mfu"].calibrated_by = {"fit-me", "hold-out", "nowhere"};
    const ValidationReport r = run_validation({file(a, "memory/a.json"), file(b, "memory/b.json")}, cat);
    ASSERT_EQ(r.issues.size(), 2u);
    EXPECT_EQ(r.issues[0].path, "assumptions.training_mfu.calibrated_by[1]");
    EXPECT_EQ(r.issues[0].message, "names \"hold-out\", a validation case: only calibration cases may set an assumption");
    EXPECT_EQ(r.issues[1].message, "names \"nowhere\", which is not a measurement in the suite");
}

// efficiencies.json's rules follow the same rule.
TEST(ValidateSuite, RuleCalibratedByMustNameCalibrationCases) {
    Catalog cat = uncalibrated_catalog();
    ASSERT_FALSE(cat.decode_bandwidth_rules.empty());
    auto b = base_case();
    b["id"] = "hold-out";
    cat.decode_bandwidth_rules[0].calibrated_by = {"hold-out"};
    const ValidationReport r = run_validation({file(b, "memory/b.json")}, cat);
    ASSERT_EQ(r.issues.size(), 1u);
    EXPECT_EQ(r.issues[0].path, "decode_bandwidth_efficiency." + cat.decode_bandwidth_rules[0].id + ".calibrated_by[0]");
    EXPECT_EQ(r.issues[0].file, "efficiencies.json");
}

// runtimes.json's adapter timings too: fitted on calibration cases only.
TEST(ValidateSuite, RuntimeAdapterTimingMustNameCalibrationCases) {
    Catalog cat = uncalibrated_catalog();
    ASSERT_FALSE(cat.training_runtimes.empty());
    auto b = base_case();
    b["id"] = "hold-out";
    cat.training_runtimes[0].adapter_timing_calibrated_by = {"hold-out"};
    const ValidationReport r = run_validation({file(b, "memory/b.json")}, cat);
    ASSERT_EQ(r.issues.size(), 1u);
    EXPECT_EQ(r.issues[0], (Issue{"runtimes." + cat.training_runtimes[0].id + ".adapter_timing_calibrated_by[0]",
                                  "names \"hold-out\", a validation case: only calibration cases may set an assumption", "runtimes.json"}));
}

TEST(ValidateGate, HoldsAtTheRecordedLevelAndFailsBelowIt) {
    const ValidationReport r = three_cases();
    EXPECT_TRUE(check_baseline(r, baseline_json(r)).empty());
    auto better = nlohmann::json::parse(baseline_json(r));
    better["summary"]["validation"]["memory"]["within_share"] = 0.75;
    better["summary"]["validation"]["memory"]["median_abs_error"] = 0.05;
    const Issues drops = check_baseline(r, better.dump());
    ASSERT_EQ(drops.size(), 2u);
    EXPECT_EQ(drops[0].path, "summary.validation.memory.within_share");
    EXPECT_EQ(drops[0].message, "within tolerance fell to 50 % from 75 %");
    EXPECT_EQ(drops[1].path, "summary.validation.memory.median_abs_error");
    EXPECT_EQ(check_baseline(r, "{").size(), 1u);
}

// The suite in the repository: every file reads, both splits are there, and accuracy is at or above
// the level recorded in tests/validation/baseline.json (the same check build-scripts/test.sh runs).
TEST(ValidateRepository, EveryMeasurementReadsAndTheGateHolds) {
    std::string error;
    const auto files = read_catalog_dir(std::string(HWPLAN_SOURCE_DIR) + "/tests/validation/cases", error);
    ASSERT_TRUE(error.empty()) << error;
    const ValidationReport r = run_validation(files, catalog());
    for (const auto& i : r.issues) ADD_FAILURE() << to_string(i);
    EXPECT_GE(r.results.size(), 20u);
    EXPECT_TRUE(r.summary.count("calibration"));
    EXPECT_TRUE(r.summary.count("validation"));
    std::ifstream in(std::string(HWPLAN_SOURCE_DIR) + "/tests/validation/baseline.json");
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& i : check_baseline(r, text.str())) ADD_FAILURE() << to_string(i);
}

} // namespace hwplan
