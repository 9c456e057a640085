// workload_test.cpp: the workload's JSON form. Every worked example from the lessons is accepted
// unchanged; bad input is rejected with its path and reason.
#include "hwplan/workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hwplan/catalog_embedded.h"

#ifndef HWPLAN_SOURCE_DIR
#error "HWPLAN_SOURCE_DIR must point at the source tree"
#endif

namespace hwplan {

namespace {

const Catalog& catalog() { return embedded_catalog().catalog; }

std::string read(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const std::filesystem::path kExamples = std::filesystem::path(HWPLAN_SOURCE_DIR) / "tests/data/workloads";

} // namespace

TEST(Workload, EveryLessonExampleIsAccepted) {
    int n = 0;
    for (const auto& f : std::filesystem::directory_iterator(kExamples)) {
        if (f.path().extension() != ".json") continue;
        ++n;
        const auto p = parse_workload(read(f.path()), catalog());
        for (const auto& i : p.issues) ADD_FAILURE() << f.path().filename() << ": " << to_string(i);
    }
    EXPECT_EQ(n, 10);
}

// The copies in tests/data/workloads are the course's own files, byte for byte, when ../shared is here.
TEST(Workload, ExampleCopiesMatchTheSharedOriginals) {
    const auto shared = std::filesystem::path(HWPLAN_SOURCE_DIR) / "../shared/examples/workloads";
    if (!std::filesystem::exists(shared)) GTEST_SKIP() << "no ../shared beside the repository";
    for (const auto& f : std::filesystem::directory_iterator(shared))
        EXPECT_EQ(read(f.path()), read(kExamples / f.path().filename())) << f.path().filename();
}

TEST(Workload, NamesResolveAndPrecisionsSplit) {
    const auto p = parse_workload(read(kExamples / "bank-70b-fp8.json"), catalog());
    ASSERT_TRUE(p.issues.empty());
    const Workload& w = p.workload;
    EXPECT_EQ(w.stage, Stage::serve);
    EXPECT_EQ(w.model.model.id, "llama-3.1-70b");
    EXPECT_EQ(w.precision.weights, "fp8");
    EXPECT_EQ(w.precision.kv_cache, "fp8");
    EXPECT_EQ(w.serve.concurrent_users, 200);

    const auto q = parse_workload(read(kExamples / "3b-finetune-rtx3090.json"), catalog());
    ASSERT_TRUE(q.issues.empty());
    EXPECT_TRUE(q.workload.model.size_only);
    EXPECT_EQ(q.workload.model.params, 3e9);
    EXPECT_EQ(q.workload.hardware.devices, std::vector<std::string>{"rtx-3090"});
    EXPECT_FALSE(q.workload.model.shape_from.empty());
}

TEST(Workload, QuantizedStorageFormatsComputeInBf16) {
    const auto p = parse_workload(R"({"stage": "serve", "model": "Llama-3.1-8B", "precision": "q4_k_m"})", catalog());
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues[0]);
    EXPECT_EQ(p.workload.precision.weights, "q4_k_m");
    EXPECT_EQ(p.workload.precision.compute, "bf16");
}

TEST(Workload, ErrorsNamePathAndReason) {
    struct Row { const char* text; const char* path; const char* message; };
    const Row rows[] = {
        {R"({"model": "Llama-3.1-8B"})", "stage", "required field is missing"},
        {R"({"stage": "serving", "model": "Llama-3.1-8B"})", "stage",
         "unknown value \"serving\"; expected one of serve, batch, embed, finetune, pretrain, rl, edge"},
        {R"({"stage": "serve"})", "model", "required field is missing (a catalog model name, or {\"params\": N}, or an architecture)"},
        {R"({"stage": "serve", "model": {"params": -3e9}})", "model.params", "implausible value -3000000000; expected 100000 to 100000000000000"},
        {R"({"stage": "serve", "model": "Llama-3.1-8B", "serve": {"context_tokens": -1}})", "serve.context_tokens",
         "implausible value -1; expected 2 to 100000000"},
        {R"({"stage": "serve", "model": "Llama-3.1-8B", "serve": {"concurrent_users": "many"}})", "serve.concurrent_users",
         "expected a number, got a string"},
        {R"({"stage": "serve", "model": "Llama-3.1-8B", "serve": {"context_tokens": 1000, "prompt_tokens": 2000}})",
         "serve.prompt_tokens", "cannot exceed context_tokens (1000)"},
        {R"({"stage": "serve", "model": "Llama-3.1-8B", "hardware": {"devices": ["H100 SMX"]}})", "hardware.devices[0]",
         "unknown device \"H100 SMX\"; close matches: h100-sxm"},
        {R"({"stage": "serve", "model": "Llama-3.1-8B", "precision": "fp7"})", "precision", nullptr},
        {R"({"stage": "finetune", "model": "Llama-3.1-8B", "train": {"zero_stage": 4}})", "train.zero_stage",
         "implausible value 4; expected 0 to 3"},
        {R"({"stage": "serve", "model": "Llama-3.1-8B", "sreve": {}})", "sreve", "unknown key"},
        // The search's constraints (issue 18): a deadline, a one-off budget, devices already owned.
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "decision": {"deadline_days": -30}})", "decision.deadline_days",
         "implausible value -30; expected 0.001 to 36500"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "decision": {"purchase_budget_usd": 0}})", "decision.purchase_budget_usd",
         "implausible value 0; expected 1 to 1000000000000"},
        // The power budget (issue 19): 0 is "none"; a negative, a fraction of a watt or more than a gigawatt is refused.
        {R"({"stage": "edge", "model": "Llama-3.1-8B", "decision": {"power_budget_w": -30}})", "decision.power_budget_w",
         "implausible value -30; expected 0 to 1000000000"},
        {R"({"stage": "edge", "model": "Llama-3.1-8B", "decision": {"power_budget_w": 0.5}})", "decision.power_budget_w",
         "implausible value 0.5; expected 0 or 1 to 1000000000"},
        {R"({"stage": "serve", "model": "Llama-3.1-8B", "decision": {"power_budget_w": 2e9}})", "decision.power_budget_w",
         "implausible value 2000000000; expected 0 to 1000000000"},
        {R"({"stage": "edge", "model": "Llama-3.1-8B", "decision": {"power_budget_w": "30 W"}})", "decision.power_budget_w",
         "expected a number, got a string"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "hardware": {"owned": {"device": "h100-sxm"}}})", "hardware.owned",
         "expected an array of {\"device\", \"count\"} objects, got an object"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "hardware": {"owned": [{"device": "H100 SMX", "count": 8}]}})", "hardware.owned[0].device",
         "unknown device \"H100 SMX\"; close matches: h100-sxm"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "hardware": {"owned": [{"device": "h100-sxm"}]}})", "hardware.owned[0].count",
         "required field is missing"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "hardware": {"owned": [{"device": "h100-sxm", "count": 8}, {"device": "H100", "count": 8}]}})",
         "hardware.owned[1].device", "\"h100-sxm\" is listed twice; give one entry with the total count"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "train": {"layout": {"tensor_parallel": 0}}})", "train.layout.tensor_parallel",
         "implausible value 0; expected 1 to 1000000"},
        {R"({"stage": "serve", "model": "Llama-3.1-8B", "assumptions": {"decode_bandwidth_efficiency": "high"}})",
         "assumptions.decode_bandwidth_efficiency", "expected a number, got a string"},
        {R"({"stage": "serve", "model": "bge-base-en-v1.5"})", "stage",
         "\"serve\" needs a generative model; bge-base-en-v1.5 is an encoder (use stage \"embed\")"},
        // FP4 GEMMs are an inference path: a training stage that asks for them is refused, naming the field.
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "precision": {"weights": "bf16", "compute": "fp4"}})", "precision.compute",
         "fp4 compute is planned for inference stages only (serve, batch, edge, embed): training with FP4 GEMMs (NVFP4 recipes) is not "
         "modelled; use fp8 or bf16"},
        // Layer-wise activation offload (Megatron-Core cpu_offloading_num_layers): at most layers - 1, never with
        // recomputation or a pipeline (what Megatron-Core and Transformer Engine refuse).
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "train": {"offload_activation_layers": 32}})", "train.offload_activation_layers",
         "is 32 but the model has 32 blocks: at most 31 (the last block's activations stay on the device: Megatron-Core offloads only "
         "layers less than num_layers)"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "train": {"offload_activation_layers": -1}})", "train.offload_activation_layers",
         "implausible value -1; expected 0 to 1000000"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "train": {"offload_activation_layers": 8, "checkpointing": "full"}})",
         "train.offload_activation_layers",
         "cannot be combined with train.checkpointing \"full\": Megatron-Core refuses CPU offloading with activation recomputation; set "
         "checkpointing \"none\" or leave it out"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "train": {"offload_activation_layers": 8, "layout": {"pipeline_parallel": 2}}})",
         "train.offload_activation_layers",
         "cannot be combined with train.layout.pipeline_parallel 2: Megatron-Core has no pipeline parallelism with CPU offloading; pin "
         "pipeline_parallel 1 or leave it out"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "train": {"offload_activation_layers": 8, "runtime": "megatron"}})",
         "train.offload_activation_layers",
         "cannot be combined with train.runtime \"megatron\", which always recomputes (full): Megatron-Core refuses CPU offloading with "
         "activation recomputation"},
        {R"({"stage": "rl", "model": "Llama-3.1-8B", "train": {"offload_activation_layers": 8}})", "train.offload_activation_layers",
         "applies to stages pretrain and finetune only: rl does not plan a trainer's saved activations layer by layer; remove it"},
        // MaxText's custom remat policy (train.remat_tensors): the block input cannot be recomputed (base.yml), a stated
        // recomputation other than full contradicts it, and only MaxText's names (maxtext-tutorial-v1.5.0) are read.
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "train": {"remat_tensors": {"decoder_layer_input": "remat"}}})",
         "train.remat_tensors.decoder_layer_input",
         "cannot be \"remat\": MaxText's base.yml says this tensor \"cannot be rematerialized - it serves as periodic checkpoints that act "
         "as the remat start points\"; give \"device\" or \"offload\""},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "train": {"checkpointing": "none", "remat_tensors": {"query_proj": "device"}}})",
         "train.remat_tensors",
         "states MaxText's custom policy, which recomputes from each block's input (full recomputation less what it saves); "
         "train.checkpointing \"none\" contradicts it: leave checkpointing out or give \"full\""},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "train": {"remat_tensors": {"attention_out": "device"}}})",
         "train.remat_tensors.attention_out", "unknown key"},
        {R"({"stage": "pretrain", "model": "Llama-3.1-8B", "train": {"remat_tensors": {"query_proj": "host"}}})",
         "train.remat_tensors.query_proj", "unknown value \"host\"; expected one of remat, device, offload"},
        {R"({"stage": "serve", "model": "Llama-3.1-8B",)", "", nullptr},
    };
    for (const auto& r : rows) {
        const auto p = parse_workload(r.text, catalog());
        ASSERT_FALSE(p.issues.empty()) << r.text;
        EXPECT_EQ(p.issues[0].path, r.path) << r.text;
        if (r.message) {
            EXPECT_EQ(p.issues[0].message, r.message) << r.text;
        }
    }
}

// llama.cpp's Vulkan backend is a framework value of its own ("llama.cpp-vulkan": llama.cpp built with
// GGML_VULKAN, what llama-bench prints as backend "Vulkan"); it reads back unchanged and is llama.cpp for the
// layout, memory and catalog software list (framework_runtime). A backend llama.cpp does not name is an error
// at "framework" listing the values, the Vulkan variant among them.
TEST(Workload, LlamaCppVulkanIsAFrameworkOfItsOwn) {
    const auto p = parse_workload(R"({"stage": "serve", "model": "llama-3.2-3b", "framework": "llama.cpp-vulkan"})", catalog());
    ASSERT_TRUE(p.issues.empty());
    EXPECT_EQ(p.workload.framework, "llama.cpp-vulkan");
    EXPECT_EQ(parse_workload(workload_to_json(p.workload), catalog()).workload.framework, "llama.cpp-vulkan");
    EXPECT_EQ(framework_runtime("llama.cpp-vulkan"), "llama.cpp");
    EXPECT_EQ(framework_runtime("llama.cpp"), "llama.cpp");
    EXPECT_EQ(framework_runtime("vllm"), "vllm");
    EXPECT_EQ(framework_runtime(""), "");
    // The fine-tuning tools pick run-it's config and run on PyTorch (a device without it is eliminated).
    for (const char* tool : {"axolotl", "llama-factory", "torchtune"}) EXPECT_EQ(framework_runtime(tool), "pytorch") << tool;
    const auto bad = parse_workload(R"({"stage": "serve", "model": "llama-3.2-3b", "framework": "llama.cpp-cuda"})", catalog());
    ASSERT_EQ(bad.issues.size(), 1u);
    EXPECT_EQ(bad.issues[0].path, "framework");
    EXPECT_EQ(bad.issues[0].message,
              "unknown value \"llama.cpp-cuda\"; expected one of cuda, rocm, xla, jax, pytorch, pytorch-xla, tensorrt-llm, vllm, sglang, "
              "metal, mps, mlx, llama.cpp, llama.cpp-vulkan, neuron, openvino, onnxruntime, qnn, coreml, groqcloud, cerebras-sdk, synapseai, "
              "axolotl, llama-factory, torchtune");
}

// The page's combos list workload_choices(): every value there is one the reader takes and writes back, at its key.
TEST(Workload, EveryListedChoiceIsAcceptedAtItsKey) {
    const WorkloadChoices& c = workload_choices();
    const std::vector<std::pair<std::string, const std::vector<std::string>*>> keys = {
        {"train.method", &c.train_method},           {"train.optimizer", &c.train_optimizer},
        {"train.checkpointing", &c.train_checkpointing}, {"decision.priority", &c.decision_priority},
        {"decision.stack", &c.decision_stack},       {"decision.site", &c.decision_site},
        {"decision.redundancy", &c.decision_redundancy}, {"framework", &c.framework},
        {"serve.decode_attention", &c.serve_decode_attention}, {"serve.scale_up_topology", &c.serve_scale_up_topology},
        {"train.attention", &c.train_attention},
        {"train.lora_targets", &c.train_lora_targets}};
    for (const auto& [key, values] : keys) {
        ASSERT_FALSE(values->empty()) << key;
        for (const auto& v : *values) {
            const auto dot = key.find('.');
            const std::string entry = "\"" + key.substr(dot + 1) + "\": \"" + v + "\"";
            const std::string doc = R"({"stage": "finetune", "model": "llama-3.2-3b", )" +
                                    (dot == std::string::npos ? entry : "\"" + key.substr(0, dot) + "\": {" + entry + "}") + "}";
            const auto p = parse_workload(doc, catalog());
            EXPECT_TRUE(p.issues.empty()) << key << " = " << v << ": " << (p.issues.empty() ? "" : p.issues[0].message);
            EXPECT_NE(workload_to_json(p.workload).find("\"" + v + "\""), std::string::npos) << key << " = " << v << " is written back";
        }
    }
    for (size_t i = 0; i < c.stage.size(); ++i) EXPECT_EQ(name(static_cast<Stage>(i)), c.stage[i]);
    for (size_t i = 0; i < c.decision_priority.size(); ++i) EXPECT_EQ(name(static_cast<Priority>(i)), c.decision_priority[i]);
}

// The power budget in watts: read as given, written back by the export, and 0 means none (as absent).
TEST(Workload, PowerBudgetReadsAndRoundTrips) {
    const auto p = parse_workload(R"({"stage": "edge", "model": "llama-3.2-3b", "decision": {"site": "robot", "power_budget_w": 30}})", catalog());
    ASSERT_TRUE(p.issues.empty());
    EXPECT_DOUBLE_EQ(p.workload.decision.power_budget_w, 30);
    EXPECT_NE(std::find(p.workload.given.begin(), p.workload.given.end(), "decision.power_budget_w"), p.workload.given.end());
    EXPECT_DOUBLE_EQ(parse_workload(workload_to_json(p.workload), catalog()).workload.decision.power_budget_w, 30);
    const auto none = parse_workload(R"({"stage": "edge", "model": "llama-3.2-3b", "decision": {"power_budget_w": 0}})", catalog());
    ASSERT_TRUE(none.issues.empty());
    EXPECT_DOUBLE_EQ(none.workload.decision.power_budget_w, 0);
}

// train.offload_activation_layers (Megatron-Core's cpu_offloading_num_layers): read as given, written back by the export;
// 79 of Llama 3.1 70B's 80 blocks is the most (the last block is never offloaded).
TEST(Workload, OffloadActivationLayersReadsAndRoundTrips) {
    const auto p = parse_workload(R"({"stage": "pretrain", "model": "llama-3.1-70b", "train": {"offload_activation_layers": 79}})", catalog());
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues[0]);
    EXPECT_EQ(p.workload.train.offload_activation_layers, 79);
    EXPECT_EQ(parse_workload(workload_to_json(p.workload), catalog()).workload.train.offload_activation_layers, 79);
    const auto none = parse_workload(R"({"stage": "pretrain", "model": "llama-3.1-70b", "train": {"offload_activation_layers": 0, "checkpointing": "full"}})",
                                     catalog());
    EXPECT_TRUE(none.issues.empty()); // 0 offloads nothing, so recomputation is free to be chosen
}

// train.compiled (the blocks ran under torch.compile) reads, defaults to false, round-trips, and wants a boolean.
TEST(Workload, CompiledReadsRoundTripsAndWantsABoolean) {
    const auto p = parse_workload(R"({"stage": "finetune", "model": "llama-3.1-8b", "train": {"method": "lora", "compiled": true}})", catalog());
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues[0]);
    EXPECT_TRUE(p.workload.train.compiled);
    EXPECT_TRUE(parse_workload(workload_to_json(p.workload), catalog()).workload.train.compiled);
    EXPECT_FALSE(parse_workload(R"({"stage": "finetune", "model": "llama-3.1-8b", "train": {"method": "lora"}})", catalog()).workload.train.compiled);
    EXPECT_FALSE(parse_workload(R"({"stage": "finetune", "model": "llama-3.1-8b", "train": {"compiled": "yes"}})", catalog()).issues.empty());
}

// train.remat_tensors (MaxText's remat_policy=custom by its names) reads, states full recomputation, turns
// decoder_layer_input "offload" into offload_activations, and round-trips.
TEST(Workload, RematTensorsReadsStatesFullRecomputationAndRoundTrips) {
    const auto p = parse_workload(R"({"stage": "pretrain", "model": "llama-3.1-70b",
        "train": {"remat_tensors": {"decoder_layer_input": "offload", "key_proj": "device", "mlpwo": "offload"}}})", catalog());
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues[0]);
    EXPECT_EQ(p.workload.train.checkpointing, Checkpointing::full);
    EXPECT_TRUE(p.workload.train.offload_activations);
    EXPECT_EQ(p.workload.train.remat_tensors.size(), 3u);
    EXPECT_EQ(p.workload.train.remat_tensors.at("key_proj"), "device");
    const auto again = parse_workload(workload_to_json(p.workload), catalog());
    ASSERT_TRUE(again.issues.empty()) << to_string(again.issues[0]);
    EXPECT_EQ(again.workload.train.remat_tensors, p.workload.train.remat_tensors);
    EXPECT_TRUE(again.workload.train.offload_activations);
    // The block input left at base.yml's default ("device"): the checkpoints stay on the device.
    const auto on_device = parse_workload(R"({"stage": "pretrain", "model": "llama-3.1-70b", "train": {"remat_tensors": {"context": "device"}}})", catalog());
    ASSERT_TRUE(on_device.issues.empty());
    EXPECT_FALSE(on_device.workload.train.offload_activations);
    EXPECT_EQ(on_device.workload.train.checkpointing, Checkpointing::full);
}

// train.grouped_gemm (the routed experts' grouped GEMMs as a tiled kernel runs them) reads its rows and three tiles a matrix,
// round-trips, and wants both matrices' three tiles of three whole numbers.
TEST(Workload, GroupedGemmReadsRoundTripsAndWantsEveryTile) {
    const auto p = parse_workload(R"({"stage": "pretrain", "model": "deepseek-v3",
        "train": {"grouped_gemm": {"rows": 262144, "wi": [[256, 7168, 512], [256, 2048, 1792], [512, 1024, 2048]],
                                   "wo": [[128, 2048, 3584], [256, 7168, 512], [256, 2048, 1024]]}}})", catalog());
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues[0]);
    EXPECT_DOUBLE_EQ(p.workload.train.grouped_gemm_rows, 262144);
    EXPECT_EQ(p.workload.train.grouped_gemm_wi[1][2], 1792);
    EXPECT_EQ(p.workload.train.grouped_gemm_wo[0][0], 128);
    const auto again = parse_workload(workload_to_json(p.workload), catalog());
    ASSERT_TRUE(again.issues.empty()) << to_string(again.issues[0]);
    EXPECT_DOUBLE_EQ(again.workload.train.grouped_gemm_rows, 262144);
    EXPECT_EQ(again.workload.train.grouped_gemm_wi, p.workload.train.grouped_gemm_wi);
    EXPECT_EQ(again.workload.train.grouped_gemm_wo, p.workload.train.grouped_gemm_wo);
    const auto missing = parse_workload(R"({"stage": "pretrain", "model": "deepseek-v3",
        "train": {"grouped_gemm": {"rows": 262144, "wi": [[256, 7168, 512], [256, 2048, 1792], [512, 1024, 2048]]}}})", catalog());
    ASSERT_FALSE(missing.issues.empty());
    EXPECT_EQ(missing.issues[0].path, "train.grouped_gemm.wo");
    EXPECT_EQ(missing.issues[0].message, "required field is missing");
    const auto two = parse_workload(R"({"stage": "pretrain", "model": "deepseek-v3",
        "train": {"grouped_gemm": {"rows": 262144, "wi": [[256, 7168, 512], [256, 2048, 1792]],
                                   "wo": [[128, 2048, 3584], [256, 7168, 512], [256, 2048, 1024.5]]}}})", catalog());
    ASSERT_EQ(two.issues.size(), 2u);
    EXPECT_EQ(two.issues[0].path, "train.grouped_gemm.wi");
    EXPECT_EQ(two.issues[0].message, "expected three tiles, forward, dlhs and drhs, each [tile_m, tile_k, tile_n] of whole numbers 1 to 1000000");
    EXPECT_EQ(two.issues[1].path, "train.grouped_gemm.wo");
}

// train.lora_targets names the layers the recipe adapted (memory.h LoraTargets); it reads, round-trips and rejects other names.
TEST(Workload, LoraTargetsReadsAndRoundTrips) {
    const auto p = parse_workload(R"({"stage": "finetune", "model": "llama-2-7b", "train": {"method": "lora", "lora_targets": "query-value"}})", catalog());
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues[0]);
    EXPECT_EQ(p.workload.train.lora_targets, "query-value");
    EXPECT_EQ(parse_workload(workload_to_json(p.workload), catalog()).workload.train.lora_targets, "query-value");
    const auto unset = parse_workload(R"({"stage": "finetune", "model": "llama-2-7b", "train": {"method": "lora"}})", catalog());
    ASSERT_TRUE(unset.issues.empty());
    EXPECT_EQ(unset.workload.train.lora_targets, ""); // the runtime profile's default
    const auto bad = parse_workload(R"({"stage": "finetune", "model": "llama-2-7b", "train": {"lora_targets": "q_proj"}})", catalog());
    ASSERT_EQ(bad.issues.size(), 1u);
    EXPECT_EQ(bad.issues[0].path, "train.lora_targets");
    EXPECT_EQ(bad.issues[0].message, "unknown value \"q_proj\"; expected one of all, query-value, query-key-value");
}

TEST(Workload, UnknownModelListsCloseMatches) {
    const auto p = parse_workload(R"({"stage": "serve", "model": "Llama-3.1-80B"})", catalog());
    ASSERT_EQ(p.issues.size(), 1u);
    EXPECT_EQ(p.issues[0].path, "model");
    EXPECT_EQ(p.issues[0].message, "unknown model \"Llama-3.1-80B\"; close matches: llama-3.1-70b, llama-3.1-8b, llama-3.1-405b");
}

} // namespace hwplan

namespace hwplan {

// The encoder runtime (catalog/runtimes.json encoder_runtimes) is a workload input at embed.runtime: a known profile
// reads back unchanged; an unknown one is an error at that path naming the profiles the catalog has.
TEST(Workload, EmbedRuntimeNamesAnEncoderProfile) {
    const auto p = parse_workload(R"({"stage": "embed", "model": "bert-base-uncased", "embed": {"runtime": "pytorch-eager"}})", catalog());
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues[0]);
    EXPECT_EQ(p.workload.embed.runtime, "pytorch-eager");
    EXPECT_EQ(parse_workload(workload_to_json(p.workload), catalog()).workload.embed.runtime, "pytorch-eager");
    const auto bad = parse_workload(R"({"stage": "embed", "model": "bert-base-uncased", "embed": {"runtime": "onnx"}})", catalog());
    ASSERT_EQ(bad.issues.size(), 1u);
    EXPECT_EQ(bad.issues[0].path, "embed.runtime");
    EXPECT_EQ(bad.issues[0].message, "unknown encoder runtime \"onnx\"; expected one of fastertransformer, neuronx-cc, pytorch-eager, tensorflow-xla, tensorrt");
    const auto empty = parse_workload(R"({"stage": "embed", "model": "bert-base-uncased", "embed": {"runtime": ""}})", catalog());
    ASSERT_EQ(empty.issues.size(), 1u);
    EXPECT_EQ(empty.issues[0].path, "embed.runtime");
}

// The decode runtime (catalog/runtimes.json decode_runtimes) is a workload input at serve.runtime: a known profile
// reads back unchanged through the canonical JSON; an unknown or empty one is an error at that path naming the
// profiles the catalog has.
TEST(Workload, ServeRuntimeNamesADecodeProfile) {
    const auto p = parse_workload(R"({"stage": "serve", "model": "llama-2-7b", "serve": {"runtime": "pytorch-eager"}})", catalog());
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues[0]);
    EXPECT_EQ(p.workload.serve.runtime, "pytorch-eager");
    EXPECT_EQ(parse_workload(workload_to_json(p.workload), catalog()).workload.serve.runtime, "pytorch-eager");
    const auto bad = parse_workload(R"({"stage": "serve", "model": "llama-2-7b", "serve": {"runtime": "eager"}})", catalog());
    ASSERT_EQ(bad.issues.size(), 1u);
    EXPECT_EQ(bad.issues[0].path, "serve.runtime");
    EXPECT_EQ(bad.issues[0].message, "unknown decode runtime \"eager\"; expected one of autoawq-fused, gpt-fast-intra-node, gpt-fast-moe-2024-02, litgpt, llama-cpp-cuda-graphs, llama-cpp-python-0.2, mlx-lm-0.28, nxd-inference-2.21, optimum-neuron-0.4, optimum-onnxruntime-no-cache, pytorch-eager, tgi-1.0, tinychat-fp16, transformers-4.34, transformers-neuronx-2.18, tuned, vllm-2023-12, vllm-api-server, vllm-v1-2025-04");
    const auto empty = parse_workload(R"({"stage": "serve", "model": "llama-2-7b", "serve": {"runtime": ""}})", catalog());
    ASSERT_EQ(empty.issues.size(), 1u);
    EXPECT_EQ(empty.issues[0].path, "serve.runtime");
    const auto number = parse_workload(R"({"stage": "serve", "model": "llama-2-7b", "serve": {"runtime": 3}})", catalog());
    ASSERT_EQ(number.issues.size(), 1u);
    EXPECT_EQ(number.issues[0].path, "serve.runtime");
}

// serve.closed_loop (a load generator's virtual users, each sending its next request when its last completes) reads
// back unchanged through the canonical JSON; absent, it is false and not written.
TEST(Workload, ServeClosedLoopReadsBack) {
    const auto p = parse_workload(R"({"stage": "serve", "model": "llama-2-7b", "serve": {"closed_loop": true}})", catalog());
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues[0]);
    EXPECT_TRUE(p.workload.serve.closed_loop);
    EXPECT_TRUE(parse_workload(workload_to_json(p.workload), catalog()).workload.serve.closed_loop);
    const auto plain = parse_workload(R"({"stage": "serve", "model": "llama-2-7b"})", catalog());
    EXPECT_FALSE(plain.workload.serve.closed_loop);
    EXPECT_EQ(workload_to_json(plain.workload).find("closed_loop"), std::string::npos);
    EXPECT_FALSE(parse_workload(R"({"stage": "serve", "model": "llama-2-7b", "serve": {"closed_loop": 1}})", catalog()).issues.empty());
}

// train.layout pins the pretraining search's layout; a fine-tune is planned data parallel with ZeRO/FSDP sharding
// (plan_training.cpp searches model-parallel layouts for pretraining only), so a pin there is a named error, not ignored.
TEST(Workload, TrainLayoutIsForPretrainingOnly) {
    const auto ok = parse_workload(R"({"stage": "pretrain", "model": "llama-3.1-8b", "train": {"layout": {"tensor_parallel": 2}}})", catalog());
    EXPECT_TRUE(ok.issues.empty()) << (ok.issues.empty() ? "" : ok.issues[0].message);
    EXPECT_EQ(ok.workload.train.tensor_parallel, 2);
    const auto ft = parse_workload(R"({"stage": "finetune", "model": "llama-3.1-8b", "train": {"method": "lora", "layout": {"tensor_parallel": 2}}})", catalog());
    ASSERT_EQ(ft.issues.size(), 1u);
    EXPECT_EQ(ft.issues[0].path, "train.layout");
    EXPECT_NE(ft.issues[0].message.find("applies to stage pretrain only: finetune"), std::string::npos) << ft.issues[0].message;
}

} // namespace hwplan

