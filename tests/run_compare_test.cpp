// run_compare_test.cpp: run-it's benchmark output read back (run_compare.h, measurement.h's read_bench_report).
// The pasted texts are real tool output quoted in the tools' documentation and public issues, with their source and
// the date they were read in tests/data/measurements/README.md. Each is read into the numbers the tool printed
// (written here from the quote, not from the reader), mapped to the predicted line of the same words, and the
// read-back calibrates as `hwplan calibrate` does and plans again with it.
#include "hwplan/run_compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "hwplan/plan.h"
#include "hwplan/run_it.h"
#include "hwplan/workload.h"
#include "test_files.h"

namespace hwplan {

namespace {

using test::files_catalog;

std::string sample(const std::string& name) { return test::data_file("measurements/" + name); }

std::string scenario_workload(const std::string& id) {
    const Scenario* sc = find_scenario(files_catalog(), id);
    return sc ? sc->workload_json : "";
}

// One sequence of 512 prompt and 128 generated tokens on llama.cpp: llama-bench's default -p 512 -n 128, so run-it's
// predicted lines are pp512 and tg128, the tests these tables print.
std::string llama_workload(const std::string& model, const std::string& weights) {
    return R"({"stage": "edge", "model": ")" + model + R"(", "precision": {"weights": ")" + weights +
           R"("}, "framework": "llama.cpp", "serve": {"context_tokens": 640, "prompt_tokens": 512, "output_tokens": 128},
              "hardware": {"devices": ["rtx-4090"]}})";
}

struct Printed {
    const char* metric;
    const char* text;   // as the tool printed it
    double value;
    int line;
};

} // namespace

// [SECTION] Reading: the numbers each tool printed, line by line ------------------------------------------------

struct ReadCase {
    const char* file;
    const char* tool;
    std::vector<Printed> lines;
    size_t count;       // lines read in all
};

TEST(BenchReport, EachSampleIsReadIntoTheFiguresItPrinted) {
    const ReadCase cases[] = {
        // vllm bench serve, May 2025 (PR 18566): no concurrency line, no closing rule.
        {"run-it/vllm-bench-serve-pr18566.txt", "vllm-bench-serve",
         {{"Successful requests", "1000", 1000, 2}, {"Output token throughput (tok/s)", "6582.87", 6582.87, 7},
          {"Median TTFT (ms)", "9459.70", 9459.70, 11}, {"Mean TPOT (ms)", "77.86", 77.86, 14}, {"P99 ITL (ms)", "214.35", 214.35, 20}},
         16},
        // vllm bench serve, 2026 (PR 33743): failed requests and peak lines.
        {"run-it/vllm-bench-serve-pr33743.txt", "vllm-bench-serve",
         {{"Failed requests", "0", 0, 3}, {"Output token throughput (tok/s)", "268.31", 268.31, 8},
          {"Peak output token throughput (tok/s)", "352.00", 352.0, 9}, {"Median TTFT (ms)", "2648.65", 2648.65, 14},
          {"Mean TPOT (ms)", "51.78", 51.78, 17}},
         19},
        // benchmark_serving.py, late 2024 (issue 9722): the concurrency above the block's header.
        {"run-it/vllm-benchmark-serving-issue9722.txt", "vllm-bench-serve",
         {{"Maximum request concurrency", "30", 30, 2}, {"Output token throughput (tok/s)", "7.27", 7.27, 9},
          {"Median TTFT (ms)", "19212.50", 19212.50, 13}, {"Mean TPOT (ms)", "875.24", 875.24, 16}},
         17},
        // benchmark_serving.py quoted as shell comments (the parser's first sample).
        {"vllm-serving.txt", "vllm-bench-serve",
         {{"Maximum request concurrency", "32", 32, 3}, {"Total input tokens", "65536", 65536, 7},
          {"Output token throughput (tok/s)", "434.40", 434.40, 10}, {"Median TTFT (ms)", "7099.88", 7099.88, 14},
          {"Mean TPOT (ms)", "70.14", 70.14, 17}},
         17},
        // SGLang's bench_serving, late 2025 (sgl-cookbook, Qwen3): a "Backend" line, TPOT and ITL, E2E latency, "Max ITL".
        {"run-it/sglang-bench-serving-cookbook-qwen3.txt", "sglang-bench-serving",
         {{"Max request concurrency", "100", 100, 4}, {"Total input tokens", "249831", 249831, 7},
          {"Output token throughput (tok/s)", "2921.15", 2921.15, 14}, {"Concurrency", "89.76", 89.76, 18},
          {"Mean E2E Latency (ms)", "15496.34", 15496.34, 20}, {"Mean TTFT (ms)", "325.26", 325.26, 23},
          {"Median TTFT (ms)", "98.25", 98.25, 24}, {"P99 TTFT (ms)", "1484.77", 1484.77, 25}, {"Mean TPOT (ms)", "30.52", 30.52, 27},
          {"Mean ITL (ms)", "30.14", 30.14, 31}, {"Max ITL (ms)", "1019.75", 1019.75, 35}},
         28},
        // SGLang's bench_serving, sglang 0.4.0.post2 (issue 2805): "Max reqeuest concurrency: not set" is no number.
        {"run-it/sglang-bench-serving-issue2805.txt", "sglang-bench-serving",
         {{"Successful requests", "1648", 1648, 5}, {"Output token throughput (tok/s)", "1915.40", 1915.40, 12},
          {"Mean TTFT (ms)", "44294.80", 44294.80, 18}},
         12},
        // torchtitan's metrics lines, one per rank: each step once, the last step's figures, commas dropped from tps.
        {"run-it/torchtitan-log-pr2389.txt", "torchtitan",
         {{"tps (tokens/s per device)", "10,007", 10007, 8}, {"mfu (%)", "13.93", 13.93, 8}, {"memory (GiB, max reserved)", "66.91", 66.91, 8}},
         4},
        // torchtune's step lines: the last step's tokens_per_second_per_gpu, its digits as printed.
        {"run-it/torchtune-log-pr1358.txt", "torchtune", {{"tokens_per_second_per_gpu", "542.9797193194343", 542.9797193194343, 15}}, 1},
        // Megatron-LM's iteration lines: the last iteration's time and throughput.
        {"run-it/megatron-log-issue756.txt", "megatron-lm",
         {{"elapsed time per iteration (ms)", "5718.6", 5718.6, 3}, {"throughput per GPU (TFLOP/s/GPU)", "228.4", 228.4, 3}},
         2},
        // DeepSpeed's throughput timer: CurrSamplesPerSec and MaxMemAllocated ("GB", GiB) of the last line.
        {"run-it/deepspeed-log-issue5779.txt", "deepspeed",
         {{"CurrSamplesPerSec", "16.807402094161112", 16.807402094161112, 1}, {"MaxMemAllocated (GiB)", "0.97", 0.97, 1}},
         2},
        // TensorRT-LLM's benchmark_serving (its run-benchmark guide): vLLM's block with lines of its own, no concurrency line.
        {"run-it/trtllm-benchmark-serving-guide.txt", "trtllm-benchmark-serving",
         {{"Successful requests", "1", 1, 2}, {"Output token throughput (tok/s)", "622.56", 622.56, 7}, {"User throughput (tok/s)", "623.08", 623.08, 9},
          {"Mean Request AR", "0.9980", 0.998, 10}, {"Median TTFT (ms)", "12.83", 12.83, 14}, {"Mean TPOT (ms)", "1.59", 1.59, 17},
          {"P99 ITL (ms)", "1.77", 1.77, 23}, {"P99 E2EL (ms)", "1643.44", 1643.44, 27}},
         22},
        // mlx_lm.benchmark as first merged: five trials and their averages; the lengths from the "Timing with" line.
        {"run-it/mlx-lm-benchmark-pr396.txt", "mlx-lm-benchmark",
         {{"prompt_tps", "2902.166", 2902.166, 8}, {"generation_tps", "205.099", 205.099, 8}, {"peak_memory (GB)", "3.285", 3.285, 8},
          {"prompt_tokens", "2048", 2048, 2}, {"generation_tokens", "128", 128, 2}},
         5},
        // mlx_lm.benchmark with -b 16: the averages line alone.
        {"run-it/mlx-lm-benchmark-pr478-batched.txt", "mlx-lm-benchmark",
         {{"prompt_tps", "944.421", 944.421, 1}, {"generation_tps", "301.916", 301.916, 1}, {"peak_memory (GB)", "46.885", 46.885, 1}},
         3},
        // vllm bench serve against an embedding server (PR 23000, August 2025): the pooling block, "Total Token" capitalised then.
        {"run-it/vllm-bench-serve-embeddings-pr23000.txt", "vllm-bench-serve",
         {{"Successful requests", "10000", 10000, 2}, {"Total input tokens", "5102595", 5102595, 4}, {"Request throughput (req/s)", "414.91", 414.91, 5},
          {"Total Token throughput (tok/s)", "211711.04", 211711.04, 6}},
         5},
        // Axolotl's logged dict (PR 3148: an evaluation step's, with the memory figures its trainer adds).
        {"run-it/axolotl-log-pr3148.txt", "axolotl",
         {{"memory/device_reserved (GiB)", "0", 0, 1}, {"memory/max_allocated (GiB)", "10.97", 10.97, 1}},
         2},
        // Axolotl's closing dict after a LoRA run (quoted strings): the step rate, the reserved and allocated peaks, the runtime.
        {"run-it/axolotl-log-lora-1b-tutorial.txt", "axolotl",
         {{"train_steps_per_second", "1.638", 1.638, 1}, {"memory/device_reserved (GiB)", "7.89", 7.89, 1}, {"memory/max_allocated (GiB)", "2.42", 2.42, 1},
          {"train_runtime", "158.8", 158.8, 1}},
         4},
        // OpenRLHF 0.11.0's step lines, cut short by the quote's author: step 2's two timings.
        {"run-it/openrlhf-log-otel-readme.txt", "openrlhf-train-ppo-ray", {{"timing/generation", "1.63", 1.63, 2}, {"timing/ppo_train", "3.39", 3.39, 2}}, 2},
        // LLaMA-Factory's train metrics block: its five lines, train_runtime in seconds from h:mm:ss.ss.
        {"run-it/llama-factory-log-pr10488.txt", "llama-factory",
         {{"epoch", "3.0", 3.0, 3}, {"train_loss", "0.7228", 0.7228, 4}, {"train_runtime (s)", "0:36:58.55", 2218.55, 5},
          {"train_samples_per_second", "1.474", 1.474, 6}, {"train_steps_per_second", "0.185", 0.185, 7}},
         5},
        // llama-bench: "pp 512" and "tg 128" with a space (older), compact names with depth rows (newer), a QNN build.
        {"llama-bench-readme.md", "llama-bench", {{"pp512 (t/s)", "2368.80", 2368.80, 3}, {"tg128 (t/s)", "131.42", 131.42, 4}}, 2},
        {"run-it/llama-bench-readme-depth.md", "llama-bench", {{"pp512 (t/s)", "7340.20", 7340.20, 3}, {"tg128 (t/s)", "120.60", 120.60, 4}}, 2},
        {"run-it/llama-bench-qnn.md", "llama-bench", {{"pp512 (t/s)", "18.46", 18.46, 3}, {"tg128 (t/s)", "0.70", 0.70, 4}}, 2},
    };
    for (const auto& c : cases) {
        const BenchReport r = read_bench_report(sample(c.file));
        ASSERT_TRUE(r.issues.empty()) << c.file << ": " << to_string(r.issues.front());
        EXPECT_EQ(r.tool, c.tool) << c.file;
        EXPECT_EQ(r.lines.size(), c.count) << c.file;
        for (const auto& p : c.lines) {
            const MeasuredLine* m = r.find(p.metric);
            ASSERT_NE(m, nullptr) << c.file << ": " << p.metric;
            EXPECT_EQ(m->text, p.text) << c.file << ": " << p.metric;
            EXPECT_DOUBLE_EQ(m->value, p.value) << c.file << ": " << p.metric;
            EXPECT_EQ(m->line, p.line) << c.file << ": " << p.metric;
        }
    }
}

// llama-bench's rows at a depth ("pp512 @ d512") are not the plain pp512: skipped, and the note says so.
TEST(BenchReport, DepthRowsAreSkippedNotTakenForThePlainTest) {
    const BenchReport r = read_bench_report(sample("run-it/llama-bench-readme-depth.md"));
    EXPECT_DOUBLE_EQ(r.find("pp512 (t/s)")->value, 7340.20);
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_EQ(r.notes[0], "skipped the tests at a depth or combined (\"pp512 @ d512\", \"tg128 @ d512\"): run-it predicts plain pp and tg");
}

// Several result blocks (a concurrency sweep pasted whole): the last one, and a note.
TEST(BenchReport, OfSeveralBlocksTheLastIsRead) {
    const std::string one = sample("vllm-serving.txt");
    // The 23 lines of the first, then the second's "# Maximum request concurrency: 32" on its line 3: line 26.
    const BenchReport r = read_bench_report(sample("run-it/vllm-benchmark-serving-issue9722.txt") + one);
    EXPECT_DOUBLE_EQ(r.find("Mean TPOT (ms)")->value, 70.14);
    EXPECT_DOUBLE_EQ(r.find("Maximum request concurrency")->value, 32);
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_EQ(r.notes[0], "2 result blocks: the last one (from line 26) is compared");
}

TEST(BenchReport, TextThatIsNoBenchmarkIsANamedError) {
    for (const char* text : {"", "hello world", "{\"stage\": \"serve\"}", "| a | b |\n| - | - |\n| 1 | 2 |\n", "Mean TPOT (ms): fast",
                             // the logs' keys quoted in prose, with no number after them (tests/data/measurements/README.md)
                             "Megatron-LM's iteration lines (\"elapsed time per iteration (ms)\") from 2024, DeepSpeed's CurrSamplesPerSec=.. in 2 runs"}) {
        const BenchReport r = read_bench_report(text);
        ASSERT_EQ(r.issues.size(), 1u) << text;
        EXPECT_EQ(r.issues[0], (Issue{"text", "no benchmark output found: paste the result block `vllm bench serve`, `python -m sglang.bench_serving` or "
                                              "TensorRT-LLM's benchmark_serving prints (from \"============ Serving Benchmark Result ============\" on), the "
                                              "table `llama-bench -o md` prints, mlx_lm.benchmark's lines, or torchtitan's, torchtune's, Megatron-LM's, "
                                              "DeepSpeed's, Axolotl's, LLaMA-Factory's or OpenRLHF's training log"}))
            << text;
        EXPECT_TRUE(r.lines.empty());
    }
    const BenchReport both = read_bench_report(sample("vllm-serving.txt") + sample("llama-bench-readme.md"));
    ASSERT_EQ(both.issues.size(), 1u);
    EXPECT_EQ(both.issues[0].message, "holds both a vLLM result block and a llama-bench table: paste one benchmark's output");
}

// [SECTION] Comparing: each printed figure on the predicted line of the same words --------------------------------

// The bank assistant's run (vLLM, h200): each vLLM sample's figures land on the predicted lines, the ratio is
// measured / predicted, the band holds a value inside it; the setup differences are named.
TEST(RunCompare, VllmBlocksMapOntoTheBankAssistantsPredictedLines) {
    const Plan p = plan_from_json(scenario_workload("bank-70b-fp8"), files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    for (const char* file : {"run-it/vllm-bench-serve-pr18566.txt", "run-it/vllm-bench-serve-pr33743.txt",
                             "run-it/vllm-benchmark-serving-issue9722.txt", "vllm-serving.txt"}) {
        const BenchReport report = read_bench_report(sample(file));
        const RunComparison c = compare_run(p.run, report);
        ASSERT_TRUE(c.issues.empty()) << file << ": " << to_string(c.issues.front());
        ASSERT_EQ(c.lines.size(), p.run.predicted.size());
        for (size_t i = 0; i < c.lines.size(); ++i) {
            const ComparedLine& l = c.lines[i];
            const PredictedLine& want = p.run.predicted[i];
            EXPECT_EQ(l.metric, want.metric);
            EXPECT_DOUBLE_EQ(l.predicted, want.value);
            const MeasuredLine* m = report.find(want.metric);
            ASSERT_NE(m, nullptr) << file << ": " << want.metric;
            EXPECT_TRUE(l.measured);
            EXPECT_DOUBLE_EQ(l.value, m->value);
            EXPECT_EQ(l.line, m->line);
            EXPECT_DOUBLE_EQ(l.ratio, m->value / want.value);
            EXPECT_EQ(l.in_band, want.low <= m->value && m->value <= want.high) << file << ": " << want.metric;
        }
        EXPECT_FALSE(c.largest.empty());
        EXPECT_FALSE(c.points_at.empty());
        // None of these was run with the bank's command (--max-concurrency 200, 2000 in, 500 out): each says how.
        EXPECT_FALSE(c.notes.empty()) << file;
        // The lines the plan does not predict are kept beside the table (P99 TTFT, request counts).
        EXPECT_TRUE(std::any_of(c.other.begin(), c.other.end(), [](const MeasuredLine& l) { return l.metric == "P99 TTFT (ms)"; })) << file;
    }
}

// The sample of 2026 printed 268.31 tok/s at 51.78 ms a token: 268.31 x 0.05178 = 13.9 sequences at once, against
// 200 planned: the largest difference is the throughput and it points at the batch reached, not at bandwidth.
TEST(RunCompare, ThroughputFarBelowPointsAtTheBatchReached) {
    const Plan p = plan_from_json(scenario_workload("bank-70b-fp8"), files_catalog(), false);
    const RunComparison c = compare_run(p.run, read_bench_report(sample("run-it/vllm-bench-serve-pr33743.txt")));
    ASSERT_TRUE(c.issues.empty());
    EXPECT_EQ(c.largest, "Output token throughput (tok/s)");
    EXPECT_EQ(c.points_at, "batch_sequences");
    EXPECT_NE(c.why.find("13.9 sequences decoding at once, against 200 planned"), std::string::npos) << c.why;
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(),
                        "the block names no maximum request concurrency (run without --max-concurrency?): the command asks for 200 requests "
                        "in flight, so throughput and TTFT are of another load"),
              c.notes.end());
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(), "measured 1023 input tokens a request (Total input tokens / Successful requests), the command asks for 2000"),
              c.notes.end());
}

// An SGLang plan (the workload names SGLang): the cookbook's block lands on bench_serving's own words. Mean TPOT and
// mean ITL both carry the decode step; median TTFT the prefill; mean and P99 TTFT, which the plan does not model (a
// queue behind the opening burst), are kept beside the table. The cookbook ran the default --random-range-ratio, so
// its requests held 249831 / 500 = 499.7 input and 252162 / 500 = 504.3 output tokens, not the 1000 asked: named.
std::string sglang_workload() {
    return R"({"name": "SGLang MoE chat", "stage": "serve", "model": "qwen3-30b-a3b", "framework": "sglang",
               "precision": {"weights": "bf16", "kv_cache": "fp8", "compute": "bf16"},
               "serve": {"context_tokens": 4096, "prompt_tokens": 1000, "output_tokens": 1000, "concurrent_users": 100},
               "hardware": {"devices": ["H100 SXM", "H200", "L40S"]}})";
}

TEST(RunCompare, SglangBlockMapsOntoTheSglangPlansPredictedLines) {
    const Plan p = plan_from_json(sglang_workload(), files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    ASSERT_EQ(p.run.measure[0].tool, "sglang-bench-serving");
    const RunComparison c = compare_run(p.run, read_bench_report(sample("run-it/sglang-bench-serving-cookbook-qwen3.txt")));
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    EXPECT_EQ(c.tool, "sglang-bench-serving");
    struct Want {
        const char* metric;
        const char* figure;
        double measured;
        int line;
    };
    const Want wants[] = {{"Output token throughput (tok/s)", "throughput_tokens_per_s", 2921.15, 14},
                          {"Mean TPOT (ms)", "decode_step_s", 30.52, 27},
                          {"Mean ITL (ms)", "decode_step_s", 30.14, 31},
                          {"Median TTFT (ms)", p.run.predicted.back().figure.c_str(), 98.25, 24}};
    ASSERT_EQ(c.lines.size(), 4u);
    for (const auto& w : wants) {
        const auto l = std::find_if(c.lines.begin(), c.lines.end(), [&](const ComparedLine& x) { return x.metric == w.metric; });
        ASSERT_NE(l, c.lines.end()) << w.metric;
        EXPECT_EQ(l->figure, w.figure) << w.metric;
        ASSERT_TRUE(l->measured) << w.metric;
        EXPECT_DOUBLE_EQ(l->value, w.measured) << w.metric;
        EXPECT_EQ(l->line, w.line) << w.metric;
        EXPECT_DOUBLE_EQ(l->ratio, w.measured / l->predicted) << w.metric;
    }
    for (const char* kept : {"Mean TTFT (ms)", "P99 TTFT (ms)"})
        EXPECT_TRUE(std::any_of(c.other.begin(), c.other.end(), [&](const MeasuredLine& l) { return l.metric == kept; })) << kept;
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(),
                        "measured 499.7 input tokens a request (Total input tokens / Successful requests), the command asks for 1000"),
              c.notes.end());
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(),
                        "measured 504.3 output tokens a request (Total generated tokens / Successful requests), the command asks for 1000"),
              c.notes.end());
    // Decode lines point at decode bandwidth; the TTFT line at prefill; the throughput at the batch or the bandwidth.
    EXPECT_FALSE(c.points_at.empty());
}

// SGLang's block reads into a calibration of the SGLang engine: mean TPOT 30.52 ms at concurrency 100 with
// 499.7 -> 500 input and 504.3 -> 504 output tokens a request; the older block without TPOT or a concurrency gives its
// output throughput, and its "not set" is no error.
TEST(ReadBack, SglangBlocksCalibrateTheSglangEngine) {
    const MeasurementParse m = parse_measurements(sample("run-it/sglang-bench-serving-cookbook-qwen3.txt"));
    ASSERT_TRUE(m.issues.empty()) << to_string(m.issues.front());
    ASSERT_EQ(m.measurements.size(), 1u);
    EXPECT_EQ(m.measurements[0].kind, MeasurementKind::serving_tpot_s);
    EXPECT_DOUBLE_EQ(m.measurements[0].value, 30.52e-3);
    EXPECT_EQ(m.measurements[0].concurrency, 100);
    EXPECT_EQ(m.measurements[0].prompt_tokens, 500);
    EXPECT_EQ(m.measurements[0].output_tokens, 504);
    EXPECT_EQ(m.measurements[0].backend, "sglang");
    const MeasurementParse old = parse_measurements(sample("run-it/sglang-bench-serving-issue2805.txt"));
    ASSERT_TRUE(old.issues.empty()) << to_string(old.issues.front());
    ASSERT_EQ(old.measurements.size(), 1u);
    EXPECT_EQ(old.measurements[0].kind, MeasurementKind::output_tokens_per_s);
    EXPECT_DOUBLE_EQ(old.measurements[0].value, 1915.40);
    const RunComparison c = read_back(files_catalog(), sglang_workload(), "", sample("run-it/sglang-bench-serving-cookbook-qwen3.txt"), "2026-12-02");
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    EXPECT_FALSE(c.calibration_note.empty());
    if (c.calibrated) {
        EXPECT_EQ(c.calibration.assumption, "decode_bandwidth_efficiency");
        EXPECT_EQ(c.calibration.measurement, "SGLang bench_serving: mean TPOT 30.52 ms at concurrency 100");
        for (const auto& l : c.lines) EXPECT_TRUE(std::isfinite(l.replanned) && l.replanned > 0) << l.metric;
    }
    // The older block has no concurrency: the note says what the command asks for instead.
    const Plan p = plan_from_json(sglang_workload(), files_catalog(), false);
    const RunComparison o = compare_run(p.run, read_bench_report(sample("run-it/sglang-bench-serving-issue2805.txt")));
    ASSERT_TRUE(o.issues.empty()) << to_string(o.issues.front());
    EXPECT_NE(std::find_if(o.notes.begin(), o.notes.end(), [](const std::string& n) { return n.rfind("the block names no maximum request concurrency", 0) == 0; }),
              o.notes.end());
    // A vLLM block pasted for the SGLang command is named, not compared.
    const RunComparison v = compare_run(p.run, read_bench_report(sample("vllm-serving.txt")));
    ASSERT_EQ(v.issues.size(), 1u);
    EXPECT_EQ(v.issues[0], (Issue{"text", "the plan's measure command is python -m sglang.bench_serving, the pasted text is vLLM's result block: paste "
                                          "the output of the command run-it wrote"}));
}

// [SECTION] TensorRT-LLM and MLX -------------------------------------------------------------------------------

std::string trtllm_workload() {
    return R"({"name": "TensorRT-LLM 70B FP8", "stage": "serve", "model": "llama-3.1-70b", "framework": "tensorrt-llm",
        "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
        "serve": {"context_tokens": 8192, "prompt_tokens": 2000, "output_tokens": 500, "concurrent_users": 64},
        "hardware": {"devices": ["H100 SXM", "H200"]}})";
}

// TensorRT-LLM's guide block (one request of 1024 in and 1024 out) on a TensorRT-LLM plan: the figures on the lines of
// the same words; the block prints no concurrency, so the command's is taken and the note says so; the lengths differ.
TEST(RunCompare, TensorRtLlmBlockMapsOntoTheServingLines) {
    const Plan p = plan_from_json(trtllm_workload(), files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    ASSERT_EQ(p.run.measure[0].tool, "trtllm-benchmark-serving");
    const RunComparison c = compare_run(p.run, read_bench_report(sample("run-it/trtllm-benchmark-serving-guide.txt")));
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    EXPECT_EQ(c.tool, "trtllm-benchmark-serving");
    const std::pair<const char*, double> wants[] = {{"Output token throughput (tok/s)", 622.56}, {"Mean TPOT (ms)", 1.59}, {"Median TTFT (ms)", 12.83}};
    ASSERT_EQ(c.lines.size(), 3u);
    for (const auto& [metric, measured] : wants) {
        const std::string m = metric; // clang 14 cannot capture a structured binding
        const auto l = std::find_if(c.lines.begin(), c.lines.end(), [&](const ComparedLine& x) { return x.metric == m; });
        ASSERT_NE(l, c.lines.end()) << metric;
        ASSERT_TRUE(l->measured) << metric;
        EXPECT_DOUBLE_EQ(l->value, measured) << metric;
        EXPECT_DOUBLE_EQ(l->ratio, measured / l->predicted) << metric;
    }
    const std::string concurrency = "TensorRT-LLM's benchmark_serving prints no concurrency: the figures are taken as run at the command's --max-concurrency " +
                                    std::to_string(p.run.setup.concurrency);
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(), concurrency), c.notes.end());
    // 1024 / 1 input and output tokens a request against the command's 2000 and 500.
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(), "measured 1024 input tokens a request (Total input tokens / Successful requests), the command asks for 2000"),
              c.notes.end());
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(), "measured 1024 output tokens a request (Total generated tokens / Successful requests), the command asks for 500"),
              c.notes.end());
    EXPECT_TRUE(std::any_of(c.other.begin(), c.other.end(), [](const MeasuredLine& l) { return l.metric == "User throughput (tok/s)"; }));
    // vLLM's block (the fork's parent) is read for the TensorRT-LLM command too, with a note; llama-bench's table is not.
    const RunComparison v = compare_run(p.run, read_bench_report(sample("vllm-serving.txt")));
    ASSERT_TRUE(v.issues.empty()) << to_string(v.issues.front());
    EXPECT_NE(std::find(v.notes.begin(), v.notes.end(),
                        "the block has none of TensorRT-LLM's own lines (User throughput): read as its benchmark_serving's, which prints vLLM's block"),
              v.notes.end());
    const RunComparison l = compare_run(p.run, read_bench_report(sample("llama-bench-readme.md")));
    ASSERT_EQ(l.issues.size(), 1u);
    EXPECT_EQ(l.issues[0], (Issue{"text", "the plan's measure command is python -m tensorrt_llm.serve.scripts.benchmark_serving, the pasted text is "
                                          "llama-bench's table: paste the output of the command run-it wrote"}));
}

// The block's Mean TPOT, at the command's concurrency (the block prints none), calibrates TensorRT-LLM's decode.
TEST(ReadBack, TensorRtLlmTpotCalibratesAtTheCommandsConcurrency) {
    const Plan p = plan_from_json(trtllm_workload(), files_catalog(), false);
    const RunComparison c = read_back(files_catalog(), trtllm_workload(), "", sample("run-it/trtllm-benchmark-serving-guide.txt"), "2026-12-03");
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    const std::string what = "TensorRT-LLM benchmark_serving: mean TPOT 1.59 ms at the command's concurrency " + std::to_string(p.run.setup.concurrency);
    // 1.59 ms a token for a 70B model at that batch is past what any efficiency reaches on one replica, or a calibration.
    EXPECT_NE(c.calibration_note.find(what), std::string::npos) << c.calibration_note;
    if (c.calibrated) {
        EXPECT_EQ(c.calibration.assumption, "decode_bandwidth_efficiency");
    }
}

std::string mlx_workload(int users) {
    return R"({"name": "MLX", "stage": ")" + std::string(users > 1 ? "serve" : "edge") + R"(", "model": "qwen2.5-7b", "framework": "mlx",
        "precision": {"weights": "int4", "kv_cache": "fp16", "compute": "fp16"},
        "serve": {"context_tokens": 2176, "prompt_tokens": 2048, "output_tokens": 128)" +
           (users > 1 ? ", \"concurrent_users\": " + std::to_string(users) : std::string()) + R"(}, "hardware": {"devices": ["Apple M4 Max"]},
        "decision": {"stack": "mlx-metal"}})";
}

// mlx_lm.benchmark's averages on an MLX plan of 2048 prompt and 128 generated tokens (PR 396's own lengths): prompt_tps,
// generation_tps and peak_memory (GB) on the lines of the same words; one sequence calibrates as llama-bench's pp and tg do,
// on the MLX engine.
TEST(RunCompare, MlxBenchmarkMapsOntoPromptGenerationAndMemory) {
    const Plan p = plan_from_json(mlx_workload(1), files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    ASSERT_EQ(p.run.measure[0].tool, "mlx-lm-benchmark");
    const RunComparison c = compare_run(p.run, read_bench_report(sample("run-it/mlx-lm-benchmark-pr396.txt")));
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    const std::pair<const char*, double> wants[] = {{"prompt_tps", 2902.166}, {"generation_tps", 205.099}, {"peak_memory (GB)", 3.285}};
    ASSERT_EQ(c.lines.size(), 3u);
    for (const auto& [metric, measured] : wants) {
        const std::string m = metric;
        const auto l = std::find_if(c.lines.begin(), c.lines.end(), [&](const ComparedLine& x) { return x.metric == m; });
        ASSERT_NE(l, c.lines.end()) << metric;
        ASSERT_TRUE(l->measured) << metric;
        EXPECT_DOUBLE_EQ(l->value, measured) << metric;
    }
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(), "the averages over 5 trial(s) are compared"), c.notes.end());
    // The same lengths as the command: no note about them.
    EXPECT_TRUE(std::none_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.rfind("measured with", 0) == 0; }));
    const MeasurementParse m = parse_measurements(sample("run-it/mlx-lm-benchmark-pr396.txt"));
    ASSERT_TRUE(m.issues.empty()) << to_string(m.issues.front());
    ASSERT_EQ(m.measurements.size(), 2u);
    EXPECT_EQ(m.measurements[0].kind, MeasurementKind::prefill_tokens_per_s);
    EXPECT_DOUBLE_EQ(m.measurements[0].value, 2902.166);
    EXPECT_EQ(m.measurements[0].prompt_tokens, 2048);
    EXPECT_EQ(m.measurements[1].kind, MeasurementKind::decode_tokens_per_s);
    EXPECT_DOUBLE_EQ(m.measurements[1].value, 205.099);
    EXPECT_EQ(m.measurements[1].backend, "MLX");
    const RunComparison back = read_back(files_catalog(), mlx_workload(1), "", sample("run-it/mlx-lm-benchmark-pr396.txt"), "2026-12-03");
    ASSERT_TRUE(back.issues.empty()) << to_string(back.issues.front());
    EXPECT_FALSE(back.calibration_note.empty());
}

// With a batch: 301.916 generated tokens a second over 16 sequences is a decode step of 16 / 301.916 s = 53.0 ms
// (BatchStats: the batch's generated tokens over the generation time), a TPOT at concurrency 16 on the MLX engine.
TEST(ReadBack, MlxBatchedGenerationIsADecodeStepAtItsBatch) {
    const std::string text = "Timing with prompt_tokens=128, generation_tokens=128, batch_size=16.\n" + sample("run-it/mlx-lm-benchmark-pr478-batched.txt");
    const MeasurementParse m = parse_measurements(text);
    ASSERT_TRUE(m.issues.empty()) << to_string(m.issues.front());
    ASSERT_EQ(m.measurements.size(), 1u); // a batch's prompt_tps is no one sequence's prefill
    EXPECT_EQ(m.measurements[0].kind, MeasurementKind::serving_tpot_s);
    EXPECT_NEAR(m.measurements[0].value, 16 / 301.916, 1e-12);
    EXPECT_EQ(m.measurements[0].concurrency, 16);
    // Against a plan of another batch the note names it.
    const Plan p = plan_from_json(mlx_workload(4), files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    const RunComparison c = compare_run(p.run, read_bench_report(text));
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(), "measured with prompt_tokens=128, the command asks for 2048"), c.notes.end());
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(), "measured with batch_size=16, the command asks for " + std::to_string(p.run.setup.concurrency)),
              c.notes.end());
}

// llama-bench tables on a llama.cpp plan of pp512 / tg128.
TEST(RunCompare, LlamaBenchRowsMapOntoPpAndTg) {
    const Plan p = plan_from_json(llama_workload("qwen2.5-7b", "q4_k_m"), files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    ASSERT_EQ(p.run.measure[0].tool, "llama-bench");
    const RunComparison c = compare_run(p.run, read_bench_report(sample("run-it/llama-bench-readme-depth.md")));
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    ASSERT_EQ(c.lines.size(), 2u);
    EXPECT_EQ(c.lines[0].metric, "pp512 (t/s)");
    EXPECT_EQ(c.lines[0].text, "7340.20");
    EXPECT_DOUBLE_EQ(c.lines[0].value, 7340.20);
    EXPECT_EQ(c.lines[1].metric, "tg128 (t/s)");
    EXPECT_EQ(c.lines[1].text, "120.60");
    EXPECT_DOUBLE_EQ(c.lines[1].ratio, 120.60 / c.lines[1].predicted);
    const std::string pointed = std::fabs(std::log(c.lines[0].ratio)) > std::fabs(std::log(c.lines[1].ratio)) ? "prefill_compute_efficiency"
                                                                                                            : "decode_bandwidth_efficiency";
    EXPECT_EQ(c.points_at, pointed);
}

TEST(RunCompare, AnotherToolsOutputOrOtherTestsAreNamedErrors) {
    const Plan bank = plan_from_json(scenario_workload("bank-70b-fp8"), files_catalog(), false);
    const RunComparison a = compare_run(bank.run, read_bench_report(sample("llama-bench-readme.md")));
    ASSERT_EQ(a.issues.size(), 1u);
    EXPECT_EQ(a.issues[0], (Issue{"text", "the plan's measure command is vllm bench serve, the pasted text is llama-bench's table: paste the output "
                                          "of the command run-it wrote"}));
    // A llama.cpp plan of pp2000 / tg500 has no line a pp512 / tg128 table printed.
    const Plan other = plan_from_json(R"({"stage": "edge", "model": "llama-2-7b", "precision": {"weights": "q4_0"}, "framework": "llama.cpp",
                                         "serve": {"context_tokens": 2500, "prompt_tokens": 2000, "output_tokens": 500},
                                         "hardware": {"devices": ["rtx-4090"]}})",
                                      files_catalog(), false);
    const RunComparison b = compare_run(other.run, read_bench_report(sample("llama-bench-readme.md")));
    ASSERT_EQ(b.issues.size(), 1u);
    EXPECT_EQ(b.issues[0], (Issue{"text", "none of the predicted lines (pp2000 (t/s), tg500 (t/s)) is in the pasted output (pp512 (t/s), tg128 (t/s)): "
                                          "run the measure command as written"}));
    // A torchtitan run read against a vLLM block: named.
    const Plan train = plan_from_json(scenario_workload("frontier-pretraining"), files_catalog(), false);
    const RunComparison t = compare_run(train.run, read_bench_report(sample("vllm-serving.txt")));
    ASSERT_EQ(t.issues.size(), 1u);
    EXPECT_EQ(t.issues[0], (Issue{"text", "the plan's measure command is torchtitan's training run, the pasted text is vLLM's result block: paste the "
                                          "output of the command run-it wrote"}));
    // A Megatron-LM run read against torchtitan's log: named.
    const Plan megatron = plan_from_json(R"({"name": "Qwen2.5 7B pretraining", "stage": "pretrain", "model": "Qwen2.5-7B",
        "train": {"tokens": 1e11, "seq_len": 4096, "global_batch": 512}, "hardware": {"devices": ["H100 SXM"]}})", files_catalog(), false);
    ASSERT_TRUE(megatron.run.available) << megatron.run.reason;
    ASSERT_EQ(megatron.run.measure[0].tool, "megatron-lm");
    const RunComparison g = compare_run(megatron.run, read_bench_report(sample("run-it/torchtitan-log-pr2389.txt")));
    ASSERT_EQ(g.issues.size(), 1u);
    EXPECT_EQ(g.issues[0], (Issue{"text", "the plan's measure command is Megatron-LM's training run, the pasted text is torchtitan's training log: "
                                          "paste the output of the command run-it wrote"}));
}

// [SECTION] Embedding and RL jobs -----------------------------------------------------------------------------

// Nightly embeddings (team-nightly-embeddings): the pooling block of vLLM's PR 23000 (a BERT-base-sized embedder,
// snowflake-arctic-embed-m-v1.5, 512-token random prompts) read against the plan of bge-base-en-v1.5 at 512 tokens. Request
// throughput is one device's items a second (items_per_s / devices); the block's "Total Token throughput" is the predicted
// "Total token throughput" in vLLM's spelling before late 2025. The difference points at the encoder's compute efficiency,
// which the block calibrates as `hwplan calibrate` does: items a second of one device at the block's tokens an item,
// 5,102,595 input tokens / 10,000 requests = 510.26 -> 510, and the plan's batch (the block names no concurrency).
TEST(ReadBack, EmbeddingBlockMapsOntoItemsASecondAndCalibratesTheEncoder) {
    const std::string workload = scenario_workload("team-nightly-embeddings");
    const Plan p = plan_from_json(workload, files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    const Candidate* cand = nullptr;
    for (const auto& x : p.candidates)
        if (x.device == p.run.device) cand = &x;
    ASSERT_NE(cand, nullptr);
    const double per_device = cand->figures.at("items_per_s").value / std::max(1, cand->layout.data_parallel);
    const RunComparison c = read_back(files_catalog(), workload, "", sample("run-it/vllm-bench-serve-embeddings-pr23000.txt"), "2026-12-03");
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    EXPECT_EQ(c.tool, "vllm-bench-serve");
    std::map<std::string, ComparedLine> by;
    for (const auto& l : c.lines) by[l.metric] = l;
    const ComparedLine& req = by.at("Request throughput (req/s)");
    ASSERT_TRUE(req.measured);
    EXPECT_DOUBLE_EQ(req.value, 414.91);
    EXPECT_EQ(req.line, 5);
    EXPECT_NEAR(req.predicted, per_device, 1e-9 * per_device);
    EXPECT_NEAR(req.ratio, 414.91 / per_device, 1e-9);
    const ComparedLine& tok = by.at("Total token throughput (tok/s)");
    ASSERT_TRUE(tok.measured);
    EXPECT_DOUBLE_EQ(tok.value, 211711.04);
    EXPECT_FALSE(by.at("Mean E2EL (ms)").measured); // the quoted block stops before its latencies
    EXPECT_EQ(c.points_at, "encoder_compute_efficiency");
    ASSERT_TRUE(c.calibrated) << c.calibration_note;
    EXPECT_EQ(c.calibration.assumption, "encoder_compute_efficiency");
    EXPECT_EQ(c.calibration.figure, "items_per_s");
    EXPECT_DOUBLE_EQ(c.calibration.measured, 414.91);
    EXPECT_EQ(c.calibration.measurement, "vLLM bench serve (pooling): 414.91 items/s of 510 tokens");
    // By hand: the encoder batch is compute-bound on the roofline with fused kernels (TensorRT, the default encoder runtime:
    // nothing unfused, no per-kernel launches), so items a second scale with the efficiency, and the calibrated value is the
    // catalog's 0.61 (assumptions.json encoder_compute_efficiency) x measured / modelled; to the calibration's 4 decimals.
    EXPECT_NEAR(c.calibration.value, 0.61 * 414.91 / c.calibration.modelled, 2e-4);
    // The ratio is measured / modelled items a second of one device at 510 tokens, about the compared line's at 512.
    EXPECT_NEAR(c.calibration_ratio / req.ratio, 1.0, 0.01);
    // Re-planned at the workload's 512 tokens an item, the server's items a second is the measured 414.91 to within what two
    // tokens an item change (0.4 %) and the bisection leaves.
    EXPECT_NEAR(req.replanned / 414.91, 1.0, 0.01);
    EXPECT_FALSE(c.replanned_option.empty()); // the job planned again with it
    // `hwplan calibrate` reads the same block into the same measurement: one item a request, the mean input per request.
    const MeasurementParse m = parse_measurements(sample("run-it/vllm-bench-serve-embeddings-pr23000.txt"));
    ASSERT_EQ(m.measurements.size(), 1u);
    EXPECT_EQ(m.measurements[0].kind, MeasurementKind::items_per_s);
    EXPECT_DOUBLE_EQ(m.measurements[0].value, 414.91);
    EXPECT_EQ(m.measurements[0].prompt_tokens, 510);
    EXPECT_EQ(m.measurements[0].concurrency, 0);
    // The PR ran without --max-concurrency: named, as for a serving block.
    EXPECT_NE(std::find_if(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.find("no maximum request concurrency") != std::string::npos; }),
              c.notes.end());
    // 5,102,595 input tokens over 10,000 requests is 510 a request, within a tenth of the command's 512: no note on lengths.
    EXPECT_EQ(std::find_if(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.find("input tokens a request") != std::string::npos; }),
              c.notes.end());
}

// OpenRLHF's step lines (openrlhf/trainer/ppo_trainer.py at v0.11.0, line 547: logger.info(f"\u2728 Global step {global_step}:
// {log_status}"), a Python dict with the step's timings in seconds), as a GRPO run of OpenRLHF 0.11.0 printed them on one H100
// (tests/data/measurements/README.md: farbodtavakkoli/OTel, training/llm/openrlhf/readme_openrlhf.md, "Expected output";
// its author cut each dict short with "..."). The reader takes step 2's figures, the last: timing/generation 1.63 and
// timing/ppo_train 3.39 s; the numbers before them are not timings and the "..." is no value.
TEST(RunCompare, OpenRlhfStepLineMapsOntoThePoolsPhases) {
    const std::string log = sample("run-it/openrlhf-log-otel-readme.txt");
    const BenchReport report = read_bench_report(log);
    ASSERT_TRUE(report.issues.empty()) << to_string(report.issues.front());
    EXPECT_EQ(report.tool, "openrlhf-train-ppo-ray");
    ASSERT_EQ(report.lines.size(), 2u); // the two timing/ keys the quote kept
    EXPECT_EQ(report.find("timing/generation")->text, "1.63");
    EXPECT_DOUBLE_EQ(report.find("timing/generation")->value, 1.63);
    EXPECT_EQ(report.find("timing/generation")->line, 2);
    EXPECT_DOUBLE_EQ(report.find("timing/ppo_train")->value, 3.39);
    ASSERT_EQ(report.notes.size(), 1u);
    EXPECT_EQ(report.notes[0], "2 step line(s) logged: step 2's timings (the last) are compared; the first step's generation includes the engines' warm-up");
    const std::string workload = scenario_workload("reasoning-rl-1t-moe");
    const Plan p = plan_from_json(workload, files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    const RunComparison c = compare_run(p.run, report);
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    std::map<std::string, ComparedLine> by;
    for (const auto& l : c.lines) by[l.metric] = l;
    for (const auto& [metric, value] : {std::pair<const char*, double>{"timing/generation", 1.63}, {"timing/ppo_train", 3.39}}) {
        ASSERT_TRUE(by.at(metric).measured) << metric;
        EXPECT_DOUBLE_EQ(by.at(metric).value, value) << metric;
        EXPECT_NEAR(by.at(metric).ratio, value / by.at(metric).predicted, 1e-12) << metric;
    }
    EXPECT_FALSE(by.at("timing/broadcast").measured); // cut from the quote
    EXPECT_FALSE(by.at("timing/step_total").measured);
    // A 1T MoE's phases against a small model's: the phase furthest off is named, not the total.
    EXPECT_TRUE(c.largest == "timing/generation" || c.largest == "timing/ppo_train") << c.largest;
}

// The same step line wrapped after a comma, as a log viewer wraps a long line: each figure comes from the line it is on.
TEST(BenchReport, AWrappedOpenRlhfStepLineIsReadAcrossItsLines) {
    const std::string log = "(PPOTrainer) \xe2\x9c\xa8 Global step 2: {'response_length': 49.5625, 'rollout/num_samples': 16.0,\n"
                            "  'timing/generation': 1.63, 'timing/ppo_train': 3.39, 'actor_lr': 5.0e-07, ...}\n";
    const BenchReport report = read_bench_report(log);
    ASSERT_TRUE(report.issues.empty()) << to_string(report.issues.front());
    EXPECT_EQ(report.tool, "openrlhf-train-ppo-ray");
    ASSERT_EQ(report.lines.size(), 2u);
    EXPECT_EQ(report.find("timing/generation")->line, 2);
    EXPECT_DOUBLE_EQ(report.find("timing/ppo_train")->value, 3.39);
}

// An RL step's training phase calibrates the fine-tune MFU the trainer runs at (plan_training.cpp: every stage but
// pretraining prices its step with finetune_mfu). The quoted run: OpenRLHF 0.11.0, GRPO on one H100, 4 prompts x 4 samples = 16
// rollouts of at most 64 new tokens, --data.max_len 1024, ZeRO-2, gradient checkpointing (the readme's command). Planned
// here with Llama 3.2 1B, the catalog's nearest model to its LFM2.5-350M, and 256-token prompts. timing/ppo_train of step 2,
// 3.39 s, is read as `hwplan calibrate` reads it, and the re-planned training phase reproduces it (the calibration's target,
// within the bisection).
TEST(ReadBack, OpenRlhfTrainingPhaseCalibratesTheFineTuneMfu) {
    const std::string workload = R"({"stage": "rl", "model": "llama-3.2-1b", "precision": "bf16",
        "serve": {"context_tokens": 1024, "prompt_tokens": 256, "output_tokens": 64, "concurrent_users": 16},
        "train": {"method": "full", "seq_len": 1024, "micro_batch": 1, "checkpointing": "full", "zero_stage": 2},
        "hardware": {"devices": ["h100-sxm"]}})";
    const std::string log = sample("run-it/openrlhf-log-otel-readme.txt");
    const MeasurementParse m = parse_measurements(log);
    ASSERT_EQ(m.measurements.size(), 1u);
    EXPECT_EQ(m.measurements[0].kind, MeasurementKind::rl_train_s);
    EXPECT_DOUBLE_EQ(m.measurements[0].value, 3.39);
    EXPECT_EQ(m.measurements[0].line, 2);
    EXPECT_EQ(m.measurements[0].what, "OpenRLHF: timing/ppo_train 3.39 s at global step 2");
    const RunComparison c = read_back(files_catalog(), workload, "", log, "2026-12-03");
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    ASSERT_TRUE(c.calibrated) << c.calibration_note;
    EXPECT_EQ(c.calibration.assumption, "finetune_mfu");
    EXPECT_EQ(c.calibration.figure, "rl.train_s");
    EXPECT_DOUBLE_EQ(c.calibration.measured, 3.39);
    EXPECT_NE(c.calibration_note.find("finetune_mfu = "), std::string::npos) << c.calibration_note;
    if (c.points_at != "training_mfu") {
        EXPECT_EQ(c.calibration_note.rfind("the largest difference (" + c.largest + ") points at " + c.points_at, 0), 0u) << c.calibration_note;
    }
    const auto train = std::find_if(c.lines.begin(), c.lines.end(), [](const ComparedLine& l) { return l.metric == "timing/ppo_train"; });
    ASSERT_NE(train, c.lines.end());
    EXPECT_NEAR(train->replanned / 3.39, 1.0, 0.01);
    // The calibration as `hwplan calibrate` writes it, from the same text.
    const CalibrationResult k = calibrate(files_catalog(), workload, c.device, m.measurements[0], "2026-12-03");
    ASSERT_TRUE(k.issues.empty()) << to_string(k.issues.front());
    EXPECT_EQ(k.calibration, c.calibration);
}

// An RL training phase calibrates an RL workload only: the stage is named.
TEST(ReadBack, AnRlTrainingPhaseOnAnotherStageIsANamedError) {
    const MeasurementParse m = parse_measurements(sample("run-it/openrlhf-log-otel-readme.txt"));
    ASSERT_EQ(m.measurements.size(), 1u);
    const CalibrationResult k = calibrate(files_catalog(), R"({"stage": "finetune", "model": "llama-3.2-1b", "precision": "bf16"})", "h100-sxm",
                                          m.measurements[0], "2026-12-03");
    ASSERT_EQ(k.issues.size(), 1u);
    EXPECT_EQ(k.issues[0], (Issue{"workload.stage", "an RL training phase calibrates an rl workload, got \"finetune\""}));
}

// [SECTION] Training: torchtune's, Megatron-LM's and DeepSpeed's logs --------------------------------------------

// A DeepSpeed run (train.runtime deepspeed): the timer's CurrSamplesPerSec on the predicted samples a second (the
// train_batch_size over the planned step time) and MaxMemAllocated on the plan's allocated memory.
TEST(RunCompare, DeepSpeedLogMapsOntoTheFineTunesLines) {
    const std::string workload = R"({"stage": "finetune", "model": "llama-3.1-8b", "precision": "bf16", "train": {"method": "full",
        "seq_len": 2048, "micro_batch": 1, "zero_stage": 2, "cpu_offload": true, "runtime": "deepspeed"},
        "hardware": {"devices": ["H100 SXM"], "count": 4}})";
    const WorkloadParse w = parse_workload(workload, files_catalog());
    ASSERT_TRUE(w.issues.empty());
    const Plan p = plan_from_json(workload, files_catalog(), false);
    ASSERT_FALSE(p.candidates.empty());
    const RunIt run = run_it(p, w.workload, files_catalog(), p.candidates.front().device);
    ASSERT_TRUE(run.available) << run.reason;
    ASSERT_EQ(run.measure[0].tool, "deepspeed");
    const RunComparison c = compare_run(run, read_bench_report(sample("run-it/deepspeed-log-issue5779.txt")));
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    const Candidate& cand = p.candidates.front();
    const double batch = double(cand.layout.micro_batch) * cand.layout.micro_batches * cand.count;
    const auto samples = std::find_if(c.lines.begin(), c.lines.end(), [](const ComparedLine& l) { return l.metric == "CurrSamplesPerSec"; });
    ASSERT_NE(samples, c.lines.end());
    EXPECT_EQ(samples->figure, "step_time_s");
    EXPECT_NEAR(samples->predicted, batch / cand.figures.at("step_time_s").value, 1e-9 * samples->predicted);
    ASSERT_TRUE(samples->measured);
    EXPECT_DOUBLE_EQ(samples->value, 16.807402094161112);
    const auto mem = std::find_if(c.lines.begin(), c.lines.end(), [](const ComparedLine& l) { return l.metric == "MaxMemAllocated (GiB)"; });
    ASSERT_NE(mem, c.lines.end());
    EXPECT_DOUBLE_EQ(mem->value, 0.97);
    EXPECT_NEAR(mem->predicted, (cand.memory.total_bytes - cand.memory.overhead_bytes - cand.memory.managed_bytes) / 1073741824.0, 1e-9);
}

// DeepSpeed's samples a second become a step time with the run's train_batch_size (timer.py: CurrSamplesPerSec =
// train_batch_size / the step's time), which calibrates the fine-tune's MFU. The issue's line allocated 0.97 GiB, far
// from an 8B full fine-tune's memory: that difference is the largest, points at the plan's memory terms (allocated, not
// reserved), and the step time calibrates instead.
TEST(ReadBack, DeepSpeedSamplesCalibrateAsAStepTime) {
    const std::string workload = R"({"stage": "finetune", "model": "llama-3.1-8b", "precision": "bf16", "train": {"method": "full",
        "seq_len": 2048, "micro_batch": 1, "zero_stage": 2, "cpu_offload": true, "runtime": "deepspeed"},
        "hardware": {"devices": ["H100 SXM"], "count": 4}})";
    const Plan p = plan_from_json(workload, files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    const Candidate* cand = nullptr;
    for (const auto& x : p.candidates)
        if (x.device == p.run.device) cand = &x;
    ASSERT_NE(cand, nullptr);
    const int batch = cand->layout.micro_batch * cand->layout.micro_batches * cand->count;
    EXPECT_EQ(p.run.setup.batch_samples, batch);
    const RunComparison c = read_back(files_catalog(), workload, "", sample("run-it/deepspeed-log-issue5779.txt"), "2026-12-03");
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    EXPECT_EQ(c.largest, "MaxMemAllocated (GiB)");
    EXPECT_EQ(c.points_at, "memory_terms");
    EXPECT_NE(c.why.find("This peak counts only the tensors (allocated, not reserved)"), std::string::npos) << c.why;
    EXPECT_EQ(c.why.find("Peak memory reserved"), std::string::npos) << c.why;
    // The step: train_batch_size / CurrSamplesPerSec, 4 / 16.807402094161112 = 0.238 s for the 4 devices' batch of 4.
    EXPECT_EQ(batch, 4);
    const std::string what = "DeepSpeed: step time 0.238 s (train_batch_size 4 / CurrSamplesPerSec 16.807402094161112)";
    EXPECT_EQ(c.calibration_note.rfind("allocated memory calibrates no assumption", 0), 0u) << c.calibration_note;
    EXPECT_NE(c.calibration_note.find(what), std::string::npos) << c.calibration_note;
    // 0.238 s against the plan's step is inside what finetune MFU reaches on an H100, so it calibrates, and the re-planned
    // samples a second reproduce the measured 16.807 (the step time is the calibration's target, within bisection).
    ASSERT_TRUE(c.calibrated) << c.calibration_note;
    EXPECT_EQ(c.calibration.assumption, "finetune_mfu");
    const auto samples = std::find_if(c.lines.begin(), c.lines.end(), [](const ComparedLine& l) { return l.metric == "CurrSamplesPerSec"; });
    ASSERT_NE(samples, c.lines.end());
    EXPECT_NEAR(samples->replanned / 16.807402094161112, 1.0, 0.02);
}

// Axolotl's closing dict (the Hugging Face Trainer's train summary with the memory figures Axolotl's trainer adds, quoted
// strings as recent Trainers log them) after `axolotl train examples/llama-3/lora-1b.yml`: Llama 3.2 1B, LoRA rank 16,
// 2,048-token packed sequences, micro-batch 2 x 2 accumulation steps, adamw_8bit, gradient checkpointing, one GPU
// (tests/data/measurements/README.md). Planned here as that config on an H100 (the quote names no GPU), with the
// hf-peft profile Axolotl trains with. train_steps_per_second 1.638 is the run's average step rate, so its step time is
// 1 / 1.638 = 0.6105 s; memory/device_reserved 7.89 GiB is torch.cuda.max_memory_reserved.
TEST(ReadBack, AxolotlSummaryComparesAndCalibratesItsStepTime) {
    const std::string workload = R"({"stage": "finetune", "model": "llama-3.2-1b", "precision": "bf16", "train": {"method": "lora",
        "lora_rank": 16, "optimizer": "adamw_8bit", "seq_len": 2048, "micro_batch": 2, "global_batch": 4, "checkpointing": "full",
        "runtime": "hf-peft"}, "hardware": {"devices": ["h100-sxm"], "count": 1}})";
    const std::string text = sample("run-it/axolotl-log-lora-1b-tutorial.txt");
    const BenchReport report = read_bench_report(text);
    ASSERT_TRUE(report.issues.empty()) << to_string(report.issues.front());
    EXPECT_EQ(report.tool, "axolotl");
    const Plan p = plan_from_json(workload, files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    ASSERT_EQ(p.run.measure[0].tool, "axolotl");
    const Candidate* cand = nullptr;
    for (const auto& x : p.candidates)
        if (x.device == p.run.device) cand = &x;
    ASSERT_NE(cand, nullptr);
    const RunComparison c = read_back(files_catalog(), workload, "", text, "2026-12-03");
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    std::map<std::string, ComparedLine> by;
    for (const auto& l : c.lines) by[l.metric] = l;
    const ComparedLine& steps = by.at("train_steps_per_second");
    ASSERT_TRUE(steps.measured);
    EXPECT_EQ(steps.text, "1.638");
    EXPECT_EQ(steps.line, 1);
    EXPECT_NEAR(steps.predicted, 1 / cand->figures.at("step_time_s").value, 1e-12);
    EXPECT_NEAR(steps.ratio, 1.638 * cand->figures.at("step_time_s").value, 1e-9);
    const ComparedLine& reserved = by.at("memory/device_reserved (GiB)");
    ASSERT_TRUE(reserved.measured);
    EXPECT_DOUBLE_EQ(reserved.value, 7.89);
    // train_runtime and the allocated peak are printed and not predicted.
    for (const char* other : {"train_runtime", "memory/max_allocated (GiB)"})
        EXPECT_NE(std::find_if(c.other.begin(), c.other.end(), [&](const MeasuredLine& l) { return l.metric == other; }), c.other.end()) << other;
    // The reserved peak is 11 % under the plan's, outside its band; the step rate about half the plan's (0.61 s against
    // 0.31 s: the device's work plus hf-peft's 4,872 host operations per micro-batch at 21.2 us), inside its band, whose
    // slow end takes the dearest host operation (60.5 us). The run's GPU is not named and its step rate averages the
    // whole run, so the step is the largest deviation and points at the fine-tune MFU, which it calibrates.
    EXPECT_TRUE(steps.in_band);
    EXPECT_FALSE(reserved.in_band);
    EXPECT_EQ(c.largest, "train_steps_per_second");
    EXPECT_EQ(c.points_at, "training_mfu");
    EXPECT_TRUE(c.calibrated);
    EXPECT_EQ(c.calibration_note.rfind("finetune_mfu = ", 0), 0u) << c.calibration_note;
    // The step rate, as read back (1 / train_steps_per_second), calibrates the fine-tune MFU: planned again with it, the
    // step is the measured 1 / 1.638 = 0.6105 s (the calibration's target, within the bisection).
    BenchMeasurement step;
    step.kind = MeasurementKind::step_time_s;
    step.value = 1 / 1.638;
    step.what = "Axolotl: step time 0.6105 s (1 / train_steps_per_second 1.638)";
    const CalibrationResult k = calibrate(files_catalog(), workload, "h100-sxm", step, "2026-12-03");
    ASSERT_TRUE(k.issues.empty()) << to_string(k.issues.front());
    EXPECT_EQ(k.calibration.assumption, "finetune_mfu");
    Catalog extended = files_catalog();
    ASSERT_TRUE(extend_catalog(extended, k.extension_json, "calibration").empty());
    const Plan again = plan_from_json(workload, extended, false);
    const Candidate* re = nullptr;
    for (const auto& x : again.candidates)
        if (x.device == "h100-sxm") re = &x;
    ASSERT_NE(re, nullptr);
    EXPECT_NEAR(re->figures.at("step_time_s").value / (1 / 1.638), 1.0, 0.01);
}

// LLaMA-Factory's end of training as PR 10488 quotes it (tests/data/measurements/README.md): the Trainer's closing dict, then
// the train metrics block, whose figures are compared (train_runtime 0:36:58.55 = 2,218.55 s). Against the plan of an 8B LoRA
// with LLaMA-Factory on 4 H100s, train_steps_per_second 0.185 lands on the predicted steps a second; the run printed no
// effective_tokens_per_sec (the note says how to get it). 1 / 0.185 = 5.405 s a step calibrates the fine-tune MFU, and the
// re-planned steps a second is the measured 0.185 (the calibration's target, within the bisection).
TEST(ReadBack, LlamaFactoryMetricsBlockComparesAndCalibratesItsStepTime) {
    const std::string workload = R"({"stage": "finetune", "model": "llama-3.1-8b", "precision": "bf16", "framework": "llama-factory",
        "train": {"method": "lora", "lora_rank": 16, "seq_len": 4096, "micro_batch": 2, "global_batch": 32, "zero_stage": 3, "checkpointing": "full",
        "runtime": "hf-peft"}, "hardware": {"devices": ["H100 SXM"], "count": 4}})";
    const std::string text = sample("run-it/llama-factory-log-pr10488.txt");
    const BenchReport report = read_bench_report(text);
    ASSERT_TRUE(report.issues.empty()) << to_string(report.issues.front());
    EXPECT_EQ(report.tool, "llama-factory");
    ASSERT_EQ(report.lines.size(), 5u);
    EXPECT_EQ(report.find("train_steps_per_second")->text, "0.185");
    EXPECT_EQ(report.find("train_steps_per_second")->line, 7);
    EXPECT_DOUBLE_EQ(report.find("train_runtime (s)")->value, 2218.55);
    EXPECT_EQ(report.find("train_runtime (s)")->text, "0:36:58.55");
    const RunComparison c = read_back(files_catalog(), workload, "", text, "2026-12-03");
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    EXPECT_EQ(c.tool, "llama-factory");
    std::map<std::string, ComparedLine> by;
    for (const auto& l : c.lines) by[l.metric] = l;
    ASSERT_TRUE(by.at("train_steps_per_second").measured);
    EXPECT_DOUBLE_EQ(by.at("train_steps_per_second").value, 0.185);
    EXPECT_FALSE(by.at("effective_tokens_per_sec").measured);
    EXPECT_NE(std::find(c.notes.begin(), c.notes.end(), "no effective_tokens_per_sec: set include_effective_tokens_per_second: true, as run-it's config does"),
              c.notes.end());
    EXPECT_EQ(c.largest, "train_steps_per_second");
    EXPECT_EQ(c.points_at, "training_mfu");
    ASSERT_TRUE(c.calibrated) << c.calibration_note;
    EXPECT_EQ(c.calibration.assumption, "finetune_mfu");
    EXPECT_NEAR(c.calibration.measured, 1 / 0.185, 1e-12);
    EXPECT_NE(c.calibration_note.find("LLaMA-Factory: step time 5.405 s (1 / train_steps_per_second 0.185)"), std::string::npos) << c.calibration_note;
    EXPECT_NEAR(by.at("train_steps_per_second").replanned / 0.185, 1.0, 0.01);
    // The closing dict alone (the block cut off) reads as the Trainer's summary, which LLaMA-Factory prints too.
    const RunComparison dict = read_back(files_catalog(), workload, "", text.substr(0, text.find('\n') + 1), "2026-12-03");
    ASSERT_TRUE(dict.issues.empty()) << to_string(dict.issues.front());
    EXPECT_NE(std::find(dict.notes.begin(), dict.notes.end(), "read as the Hugging Face Trainer's closing dict, which LLaMA-Factory prints before its train metrics block"),
              dict.notes.end());
    // Axolotl's log, with the memory figures only Axolotl adds, is another tool's output: named.
    const RunComparison ax = read_back(files_catalog(), workload, "", sample("run-it/axolotl-log-lora-1b-tutorial.txt"), "2026-12-03");
    ASSERT_EQ(ax.issues.size(), 1u);
    EXPECT_EQ(ax.issues[0], (Issue{"text", "the plan's measure command is LLaMA-Factory's fine-tuning run, the pasted text is Axolotl's training log: "
                                           "paste the output of the command run-it wrote"}));
}

// [SECTION] Training: torchtune's and Megatron-LM's logs ------------------------------------------------------------

// torchtune prints "Step N | key:value ..." (metric_logging.py); run-it predicts tokens_per_second_per_gpu and
// peak_memory_reserved (GiB) under those words. The PR 1358 log carries no memory (run without log_peak_memory_stats);
// a line in the format get_memory_stats prints (GiB: bytes / 1024**3) adds it.
TEST(RunCompare, TorchtuneLogMapsOntoTheFineTunesLines) {
    const Plan p = plan_from_json(R"({"stage": "finetune", "model": "llama-3.1-8b", "precision": "bf16",
        "train": {"method": "lora", "seq_len": 2048, "micro_batch": 1}, "hardware": {"devices": ["A100 80GB"], "count": 1}})", files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    ASSERT_EQ(p.run.measure[0].tool, "torchtune");
    const RunComparison c = compare_run(p.run, read_bench_report(sample("run-it/torchtune-log-pr1358.txt")));
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    const auto tps = std::find_if(c.lines.begin(), c.lines.end(), [](const ComparedLine& l) { return l.metric == "tokens_per_second_per_gpu"; });
    ASSERT_NE(tps, c.lines.end());
    EXPECT_EQ(tps->figure, "train_tokens_per_s");
    ASSERT_TRUE(tps->measured);
    EXPECT_DOUBLE_EQ(tps->value, 542.9797193194343);
    EXPECT_EQ(c.points_at, "training_mfu");
    const auto mem = std::find_if(c.lines.begin(), c.lines.end(), [](const ComparedLine& l) { return l.metric == "peak_memory_reserved (GiB)"; });
    ASSERT_NE(mem, c.lines.end());
    EXPECT_FALSE(mem->measured);
    // With memory logged: 21.5 GiB read as GiB, and calibration sees 21.5 x 2^30 bytes.
    const std::string with_memory = "Step 20 | loss:0.98 lr:0.0003 tokens_per_second_per_gpu:3120.5 peak_memory_active:18.2 peak_memory_alloc:18.9 "
                                    "peak_memory_reserved:21.5\n";
    const BenchReport r = read_bench_report(with_memory);
    ASSERT_EQ(r.tool, "torchtune");
    ASSERT_NE(r.find("peak_memory_reserved (GiB)"), nullptr);
    EXPECT_DOUBLE_EQ(r.find("peak_memory_reserved (GiB)")->value, 21.5);
    const MeasurementParse m = parse_measurements(with_memory);
    ASSERT_TRUE(m.issues.empty()) << to_string(m.issues.front());
    ASSERT_EQ(m.measurements.size(), 1u);
    EXPECT_EQ(m.measurements[0].kind, MeasurementKind::peak_memory_bytes);
    EXPECT_DOUBLE_EQ(m.measurements[0].value, 21.5 * 1073741824.0);
}

// Megatron-LM's iteration line: elapsed time per iteration (ms) and throughput per GPU on run-it's predicted lines;
// the last iteration (45: 5718.6 ms) calibrates the step as a step time of 5.7186 s.
TEST(RunCompare, MegatronLogMapsOntoThePretrainingLines) {
    const Plan p = plan_from_json(R"({"name": "Qwen2.5 7B pretraining", "stage": "pretrain", "model": "Qwen2.5-7B",
        "train": {"tokens": 1e11, "seq_len": 4096, "global_batch": 512}, "hardware": {"devices": ["H100 SXM"]}})", files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    ASSERT_EQ(p.run.measure[0].tool, "megatron-lm");
    const RunComparison c = compare_run(p.run, read_bench_report(sample("run-it/megatron-log-issue756.txt")));
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    for (const auto& [metric_name, figure, value] : {std::tuple<const char*, const char*, double>{"elapsed time per iteration (ms)", "step_time_s", 5718.6},
                                                     {"throughput per GPU (TFLOP/s/GPU)", "layouts.best.hardware_flop_per_s", 228.4}}) {
        const std::string metric = metric_name; // clang 14 cannot capture a structured binding
        const auto l = std::find_if(c.lines.begin(), c.lines.end(), [&](const ComparedLine& x) { return x.metric == metric; });
        ASSERT_NE(l, c.lines.end()) << metric;
        EXPECT_EQ(l->figure, figure);
        ASSERT_TRUE(l->measured) << metric;
        EXPECT_DOUBLE_EQ(l->value, value);
    }
    EXPECT_EQ(c.points_at, "training_mfu");
    const MeasurementParse m = parse_measurements(sample("run-it/megatron-log-issue756.txt"));
    ASSERT_TRUE(m.issues.empty()) << to_string(m.issues.front());
    ASSERT_EQ(m.measurements.size(), 1u);
    EXPECT_EQ(m.measurements[0].kind, MeasurementKind::step_time_s);
    EXPECT_DOUBLE_EQ(m.measurements[0].value, 5.7186);
    EXPECT_EQ(m.measurements[0].line, 3);
    // report_memory's line (megatron/training/utils.py: MB of 1024 x 1024 bytes): max reserved 66802.0 MiB = 70.05 GB.
    const std::string memory = "[Rank 0] (after 10 iterations) memory (MB) | allocated: 26222.72 | max allocated: 63359.77 | reserved: 66802.0 | max reserved: 66802.0\n";
    const BenchReport r = read_bench_report(sample("run-it/megatron-log-issue756.txt") + memory);
    ASSERT_NE(r.find("peak memory per device (GB, torch.cuda.max_memory_reserved)"), nullptr);
    EXPECT_NEAR(r.find("peak memory per device (GB, torch.cuda.max_memory_reserved)")->value, 66802.0 * 1048576 / 1e9, 1e-9);
}

// [SECTION] Training: torchtitan's log --------------------------------------------------------------------------

// torchtitan prints no step time; with run-it's log_freq = 1 the timestamps of consecutive steps give it:
// 19:46:19.145 - 19:46:17.508 = 1.637 s. Cross-check from the quote alone: tps x step time = 10,007 x 1.637 = 16,381
// tokens a device a step, within rounding of a 16,384-token local batch (tps is rounded to a whole number, the
// timestamps to a millisecond).
TEST(BenchReport, TorchtitanStepTimeComesFromTheTimestamps) {
    const BenchReport r = read_bench_report(sample("run-it/torchtitan-log-pr2389.txt"));
    ASSERT_TRUE(r.issues.empty());
    const MeasuredLine* step = r.find("step time (s)");
    ASSERT_NE(step, nullptr);
    EXPECT_NEAR(step->value, 1.637, 1e-6);
    EXPECT_EQ(step->line, 8);
    EXPECT_NEAR(r.find("tps (tokens/s per device)")->value * step->value, 16384, 16384 * 0.001);
    const MeasurementParse m = parse_measurements(sample("run-it/torchtitan-log-pr2389.txt"));
    ASSERT_TRUE(m.issues.empty()) << to_string(m.issues.front());
    ASSERT_EQ(m.measurements.size(), 2u);
    EXPECT_EQ(m.measurements[0].kind, MeasurementKind::step_time_s);
    EXPECT_NEAR(m.measurements[0].value, 1.637, 1e-6);
    EXPECT_EQ(m.measurements[1].kind, MeasurementKind::peak_memory_bytes);
    EXPECT_DOUBLE_EQ(m.measurements[1].value, 66.91 * 1073741824.0); // GiB, as torchtitan's memory monitor prints it
    // Without timestamps (the lines without the logger's prefix) there is no step time, and the note says so.
    std::string bare;
    for (const char* l : {"step:  4  loss:  7.62585  grad_norm: 26.6250  memory: 66.91GiB(37.51%)  tps: 10,050  tflops: 314.71  mfu: 13.99%\n",
                          "step:  5  loss:  7.07623  grad_norm: 46.5000  memory: 66.91GiB(37.51%)  tps: 10,007  tflops: 313.36  mfu: 13.93%\n"})
        bare += l;
    const BenchReport b = read_bench_report(bare);
    EXPECT_EQ(b.tool, "torchtitan");
    EXPECT_EQ(b.find("step time (s)"), nullptr);
    EXPECT_EQ(b.notes.front(), "no step time: the log's lines carry no timestamps, or fewer than two steps were pasted");
}

// The frontier pretraining plan (torchtitan): each figure of the log on the predicted line of the same words, from the
// plan figure it names; the ratio is measured / predicted.
TEST(RunCompare, TorchtitanLogMapsOntoThePretrainingPlansLines) {
    const Plan p = plan_from_json(scenario_workload("frontier-pretraining"), files_catalog(), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    ASSERT_EQ(p.run.measure[0].tool, "torchtitan");
    const RunComparison c = compare_run(p.run, read_bench_report(sample("run-it/torchtitan-log-pr2389.txt")));
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    struct Want {
        const char* metric;
        const char* figure;
        double measured;
    };
    for (const Want& w : {Want{"step time (s)", "step_time_s", 1.637}, Want{"tps (tokens/s per device)", "train_tokens_per_s", 10007},
                          Want{"mfu (%)", "layouts.best.mfu", 13.93}, Want{"memory (GiB, max reserved)", "memory.total_bytes", 66.91}}) {
        const auto l = std::find_if(c.lines.begin(), c.lines.end(), [&](const ComparedLine& x) { return x.metric == w.metric; });
        ASSERT_NE(l, c.lines.end()) << w.metric;
        EXPECT_EQ(l->figure, w.figure);
        ASSERT_TRUE(l->measured) << w.metric;
        EXPECT_NEAR(l->value, w.measured, 1e-6 * w.measured) << w.metric;
        EXPECT_NEAR(l->ratio, l->value / l->predicted, 1e-12) << w.metric;
    }
    EXPECT_TRUE(c.points_at == "training_mfu" || c.points_at == "runtime_context_bytes") << c.points_at;
}

// [SECTION] The loop: calibrate as `hwplan calibrate` does, and plan again ------------------------------------------

// The read-back's calibration is calibrate()'s for the same measurement, and the re-planned line it drives now
// reproduces what was measured.
TEST(ReadBack, CalibratesAsCalibrateDoesAndReplans) {
    const std::string w = llama_workload("qwen2.5-7b", "q4_k_m");
    const std::string text = sample("run-it/llama-bench-readme-depth.md");
    const RunComparison c = read_back(files_catalog(), w, "", text, "2026-12-02");
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    ASSERT_TRUE(c.calibrated) << c.calibration_note;
    const MeasurementParse m = parse_measurements(text);
    const bool prefill = c.calibration.assumption == "prefill_compute_efficiency";
    const auto& used = prefill ? m.measurements[0] : m.measurements[1];
    const CalibrationResult direct = calibrate(files_catalog(), w, "rtx-4090", used, "2026-12-02");
    ASSERT_TRUE(direct.issues.empty());
    EXPECT_EQ(c.calibration, direct.calibration);
    EXPECT_EQ(c.extension_json, direct.extension_json);
    const ComparedLine& driven = c.lines[prefill ? 0 : 1];
    EXPECT_NEAR(driven.replanned / driven.value, 1.0, 0.05) << driven.metric << " re-planned " << driven.replanned;
    EXPECT_FALSE(c.replanned_option.empty());
}

// On the bank scenario with a vLLM block measured at a concurrency: a calibration, or the reason there is none;
// every number in the answer is finite (the page never shows NaN).
TEST(ReadBack, EverySampleOnTheBankScenarioAnswersWithFiniteNumbers) {
    using nlohmann::json;
    const std::string recommended = plan_from_json(scenario_workload("bank-70b-fp8"), files_catalog(), false).recommendation.option.device;
    ASSERT_FALSE(recommended.empty());
    for (const char* file : {"run-it/vllm-bench-serve-pr18566.txt", "run-it/vllm-bench-serve-pr33743.txt",
                             "run-it/vllm-benchmark-serving-issue9722.txt", "vllm-serving.txt"}) {
        const json request = {{"workload", json::parse(scenario_workload("bank-70b-fp8"))}, {"text", sample(file)}, {"read_on", "2026-12-02"}};
        const json answer = json::parse(read_back_json(files_catalog(), request.dump()));
        ASSERT_TRUE(answer.contains("readback")) << file << ": " << answer.dump().substr(0, 300);
        const json& r = answer["readback"];
        EXPECT_EQ(r["device"], recommended); // the plan's own recommendation is what is read back
        for (const auto& l : r["lines"]) {
            ASSERT_TRUE(l["measured"].is_number()) << file;
            EXPECT_TRUE(std::isfinite(l["ratio"].get<double>())) << file;
            if (r["calibration"].is_object()) {
                EXPECT_TRUE(std::isfinite(l["replanned"].get<double>()));
            }
        }
        EXPECT_FALSE(r["calibration_note"].get<std::string>().empty()) << file;
    }
}

TEST(ReadBack, JsonEdgeNamesBadRequests) {
    using nlohmann::json;
    const json a = json::parse(read_back_json(files_catalog(), R"({"text": "x", "read_on": "2026-12-02"})"));
    EXPECT_EQ(a["errors"][0]["path"], "workload");
    const json b = json::parse(read_back_json(files_catalog(), R"({"workload": {"stage": "serve", "model": "llama-3.1-8b"}, "text": "not a benchmark", "read_on": "2026-12-02"})"));
    EXPECT_EQ(b["errors"][0]["path"], "text");
    const json c = json::parse(read_back_json(files_catalog(), "[1, 2]"));
    EXPECT_TRUE(c.contains("errors"));
    const json d = json::parse(read_back_json(files_catalog(), R"({"workload": {"stage": "serve"}, "text": "x", "read_on": "2026-12-02"})"));
    EXPECT_EQ(d["errors"][0]["path"].get<std::string>().rfind("workload", 0), 0u);
}

} // namespace hwplan
