// core_bench.cpp: speed of the core's entry points (Google Benchmark). Results go to BENCHMARKS.md.
#include <benchmark/benchmark.h>

#include "hwplan/json_api.h"
#include "hwplan/memory.h"

static void BM_EstimateWeights(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(hwplan::estimate_weights({.params = 7e9, .precision = "bf16"}));
}
BENCHMARK(BM_EstimateWeights);

static void BM_WeightsJson(benchmark::State& state) {
    const std::string request = R"({"params": 7e9, "precision": "bf16"})";
    for (auto _ : state) benchmark::DoNotOptimize(hwplan::weights_json(request));
}
BENCHMARK(BM_WeightsJson);
