// run_compare_test.cpp: run-it's benchmark output read back (run_compare.h, measurement.h's read_bench_report).
// The pasted texts are real tool output quoted in the tools' documentation and public issues, with their source and
// the date they were read in tests/data/measurements/README.md. Each is read into the numbers the tool printed
// (written here from the quote, not from the reader), mapped to the predicted line of the same words, and the
// read-back calibrates as `hwplan calibrate` does and plans again with it.
#include "hwplan/run_compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "hwplan/plan.h"
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
    for (const char* text : {"", "hello world", "{\"stage\": \"serve\"}", "| a | b |\n| - | - |\n| 1 | 2 |\n", "Mean TPOT (ms): fast"}) {
        const BenchReport r = read_bench_report(text);
        ASSERT_EQ(r.issues.size(), 1u) << text;
        EXPECT_EQ(r.issues[0], (Issue{"text", "no benchmark output found: paste the result block `vllm bench serve` prints (from \"============ "
                                              "Serving Benchmark Result ============\" on) or the table `llama-bench -o md` prints"}))
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
    // A training run's step log is not read back yet.
    const Plan train = plan_from_json(scenario_workload("frontier-pretraining"), files_catalog(), false);
    const RunComparison t = compare_run(train.run, read_bench_report(sample("vllm-serving.txt")));
    ASSERT_EQ(t.issues.size(), 1u);
    EXPECT_EQ(t.issues[0].path, "run");
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
