// core_bench.cpp: speed of the core's entry points (Google Benchmark). Results go to BENCHMARKS.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"
#include "hwplan/memory.h"
#include "hwplan/parallel.h"
#include "hwplan/plan.h"
#include "layout_jobs.h"

namespace {

const hwplan::Catalog& catalog() { return hwplan::embedded_catalog().catalog; }

// Parse + plan one workload against every catalog device (the web page does this on every edit).
void plan_bench(benchmark::State& state, const char* workload, bool sensitivity = false) {
    for (auto _ : state) benchmark::DoNotOptimize(hwplan::plan_from_json(workload, catalog(), sensitivity));
    state.counters["devices"] = double(catalog().devices.size());
}

} // namespace

static void BM_EstimateWeights(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(hwplan::estimate_weights({.params = 7e9, .precision = "bf16"}));
}
BENCHMARK(BM_EstimateWeights);

static void BM_WeightsJson(benchmark::State& state) {
    const std::string request = R"({"params": 7e9, "precision": "bf16"})";
    for (auto _ : state) benchmark::DoNotOptimize(hwplan::weights_json(request));
}
BENCHMARK(BM_WeightsJson);

static void BM_LoadCatalog(benchmark::State& state) {
    const auto files = hwplan::embedded_catalog_files();
    for (auto _ : state) benchmark::DoNotOptimize(hwplan::load_catalog(files));
}
BENCHMARK(BM_LoadCatalog)->Unit(benchmark::kMillisecond);

static void BM_PlanServeAllDevices(benchmark::State& state) {
    plan_bench(state, R"({"stage": "serve", "model": "Llama-3.1-70B", "precision": "fp8",
        "serve": {"context_tokens": 8192, "concurrent_users": 200, "requests_per_s": 2}})");
}
BENCHMARK(BM_PlanServeAllDevices)->Unit(benchmark::kMicrosecond);

// The same with the sensitivity re-plans for the inputs left out (context and users: four more plans).
static void BM_PlanServeAllDevicesWithSensitivity(benchmark::State& state) {
    plan_bench(state, R"({"stage": "serve", "model": "Llama-3.1-70B", "precision": "fp8"})", true);
}
BENCHMARK(BM_PlanServeAllDevicesWithSensitivity)->Unit(benchmark::kMicrosecond);

static void BM_PlanFinetuneAllDevices(benchmark::State& state) {
    plan_bench(state, R"({"stage": "finetune", "model": "Llama-3.1-8B", "precision": {"weights": "nf4"},
        "train": {"method": "qlora", "seq_len": 2048, "checkpointing": "full", "tokens": 5e7}})");
}
BENCHMARK(BM_PlanFinetuneAllDevices)->Unit(benchmark::kMicrosecond);

static void BM_PlanJsonOneDevice(benchmark::State& state) {
    const std::string w = R"({"stage": "serve", "model": "Mistral-7B-Instruct", "hardware": {"devices": ["L40S"], "count": 1}})";
    for (auto _ : state) benchmark::DoNotOptimize(hwplan::plan_json(catalog(), w));
}
BENCHMARK(BM_PlanJsonOneDevice)->Unit(benchmark::kMicrosecond);

// [SECTION] Like for like with the WebAssembly module (bench/budgets.mjs) ------------------------
// Each lesson workload in tests/data/workloads through plan_json (JSON in, JSON out, sensitivity on), the
// exact call the JavaScript API makes; bench/budgets.mjs times the same files in WebAssembly and divides.
namespace {

const int kRegistered = [] {
    const auto dir = std::filesystem::path(HWPLAN_SOURCE_DIR) / "tests/data/workloads";
    std::vector<std::filesystem::path> files;
    for (const auto& f : std::filesystem::directory_iterator(dir))
        if (f.path().extension() == ".json") files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        benchmark::RegisterBenchmark(("BM_PlanJsonWorkload/" + f.stem().string()).c_str(),
                                     [text = s.str()](benchmark::State& state) {
                                         for (auto _ : state) benchmark::DoNotOptimize(hwplan::plan_json(catalog(), text));
                                     })
            ->Unit(benchmark::kMicrosecond);
    }
    return 0;
}();

} // namespace

// [SECTION] Training layout search (core/src/parallel.cpp) -------------------------------------------------

namespace {

void layout_search_bench(benchmark::State& state, const hwplan::TrainingJob& job, const char* device, int n) {
    const auto setup = hwplan::bench::layout_setup(catalog(), device, n);
    long searched = 0;
    for (auto _ : state) {
        const hwplan::LayoutSearch s = hwplan::search_layouts(job, setup.cluster, setup.assumptions);
        searched = s.searched;
        benchmark::DoNotOptimize(s);
    }
    state.counters["layouts"] = double(searched);
    state.counters["layouts_per_s"] = benchmark::Counter(double(searched), benchmark::Counter::kIsIterationInvariantRate);
}

} // namespace

// The Llama 3 405B run's scale: 16,384 H100 (every layout that divides the batch, heads and layers).
static void BM_LayoutSearch405BOn16kH100(benchmark::State& state) { layout_search_bench(state, hwplan::bench::llama405b_job(), "h100-sxm", 16384); }
BENCHMARK(BM_LayoutSearch405BOn16kH100)->Unit(benchmark::kMicrosecond);

// A 1T MoE (Kimi K2's shape from the catalog) on 4,608 GB200 in NVL72 racks: expert parallelism joins the space.
static void BM_LayoutSearchMoEOnNvl72(benchmark::State& state) {
    layout_search_bench(state, hwplan::bench::kimi_job(catalog()), "gb200-nvl72", 4608);
}
BENCHMARK(BM_LayoutSearchMoEOnNvl72)->Unit(benchmark::kMicrosecond);

static void BM_PlanPretrainAllDevices(benchmark::State& state) {
    plan_bench(state, R"({"stage": "pretrain", "model": "Llama-3.1-70B", "train": {"seq_len": 8192, "global_batch": 512, "tokens": 1e12},
        "hardware": {"count": 64}})");
}
BENCHMARK(BM_PlanPretrainAllDevices)->Unit(benchmark::kMicrosecond);

// The same with the planner choosing each device's count (the fewest that fit, as the page does by default).
static void BM_PlanPretrainAllDevicesFewest(benchmark::State& state) {
    plan_bench(state, R"({"stage": "pretrain", "model": "Llama-3.1-70B", "train": {"seq_len": 8192, "global_batch": 512, "tokens": 1e12}})");
}
BENCHMARK(BM_PlanPretrainAllDevicesFewest)->Unit(benchmark::kMicrosecond);
