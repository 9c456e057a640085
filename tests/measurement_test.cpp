// measurement_test.cpp: pasted benchmark output -> measurements -> a calibration (measurement.h). The pasted
// texts are real tool output (tests/data/measurements/README.md). A calibration is checked three ways: the
// plan with it reproduces the measurement; its value matches the roofline worked by hand; and the figures it
// drives are labelled "calibrated (your measurement)" on every surface that plans with the extension.
#include "hwplan/measurement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "hwplan/plan.h"
#include "test_files.h"

namespace hwplan {

namespace {

std::string data_text(const std::string& name) { return test::data_file("measurements/" + name); }

using test::files_catalog;

const Candidate& on(const Plan& p, const std::string& device) {
    for (const auto& c : p.candidates)
        if (c.device == device) return c;
    throw std::runtime_error("no candidate " + device);
}

} // namespace

// [SECTION] parsing ----------------------------------------------------------------------------------

// llama-bench README's Markdown example: pp 512 at 2368.80 t/s and tg 128 at 131.42 t/s, llama 7B Q4_0, 6.74 B.
TEST(Measurements, LlamaBenchMarkdownTable) {
    const auto p = parse_measurements(data_text("llama-bench-readme.md"));
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues.front());
    ASSERT_EQ(p.measurements.size(), 2u);
    const auto& pp = p.measurements[0];
    EXPECT_EQ(pp.kind, MeasurementKind::prefill_tokens_per_s);
    EXPECT_DOUBLE_EQ(pp.value, 2368.80);
    EXPECT_EQ(pp.prompt_tokens, 512);
    const auto& tg = p.measurements[1];
    EXPECT_EQ(tg.kind, MeasurementKind::decode_tokens_per_s);
    EXPECT_DOUBLE_EQ(tg.value, 131.42);
    EXPECT_EQ(tg.output_tokens, 128);
    EXPECT_EQ(tg.weight_format, "q4_0");
    EXPECT_DOUBLE_EQ(tg.model_params, 6.74e9);
    EXPECT_EQ(tg.line, 4);
}

// Newer llama-bench prints "pp512" / "tg128" without the space and no ngl column.
TEST(Measurements, LlamaBenchCompactTestNames) {
    const auto p = parse_measurements("| model | size | params | backend | threads | test | t/s |\n"
                                      "| --- | ---: | ---: | --- | ---: | ---: | ---: |\n"
                                      "| llama 8B Q4_K_M | 4.58 GiB | 8.03 B | Metal | 4 | tg128 | 28.12 ± 0.05 |\n");
    ASSERT_EQ(p.measurements.size(), 1u);
    EXPECT_EQ(p.measurements[0].output_tokens, 128);
    EXPECT_EQ(p.measurements[0].weight_format, "q4_k_m");
    EXPECT_DOUBLE_EQ(p.measurements[0].model_params, 8.03e9);
}

// vLLM benchmark_serving's block: mean TPOT 70.14 ms at concurrency 32, 65536 / 32 = 2048 tokens in and out per request.
TEST(Measurements, VllmServingBlock) {
    const auto p = parse_measurements(data_text("vllm-serving.txt"));
    ASSERT_TRUE(p.issues.empty()) << to_string(p.issues.front());
    ASSERT_EQ(p.measurements.size(), 1u);
    const auto& m = p.measurements[0];
    EXPECT_EQ(m.kind, MeasurementKind::serving_tpot_s);
    EXPECT_DOUBLE_EQ(m.value, 0.07014);
    EXPECT_EQ(m.concurrency, 32);
    EXPECT_EQ(m.prompt_tokens, 2048);
    EXPECT_EQ(m.output_tokens, 2048);
}

struct Row {
    const char* text;
    MeasurementKind kind;
    double value;
};

TEST(Measurements, LinesOfOtherTools) {
    const Row rows[] = {
        {"Throughput: 4.20 requests/s, 2150.35 total tokens/s, 1075.18 output tokens/s", MeasurementKind::output_tokens_per_s, 1075.18},
        {"step time: 1.25 s", MeasurementKind::step_time_s, 1.25},
        {"step_time_ms = 830", MeasurementKind::step_time_s, 0.83},
        {"iteration 20 | 1250 ms/step", MeasurementKind::step_time_s, 1.25},
        {"peak memory: 21.3 GB", MeasurementKind::peak_memory_bytes, 21.3e9},
        {"max_memory_allocated: 19.5 GiB", MeasurementKind::peak_memory_bytes, 19.5 * 1073741824.0},
    };
    for (const auto& row : rows) {
        const auto p = parse_measurements(row.text);
        ASSERT_EQ(p.measurements.size(), 1u) << row.text;
        EXPECT_EQ(p.measurements[0].kind, row.kind) << row.text;
        EXPECT_NEAR(p.measurements[0].value / row.value, 1.0, 1e-12) << row.text;
    }
}

struct BadRow {
    const char* text;
    const char* path;
    const char* message;
};

TEST(Measurements, BadTextNamesTheLineAndColumn) {
    const BadRow rows[] = {
        {"hello", "", "no measurement found: paste llama-bench's table, vLLM benchmark_serving's result block or benchmark_throughput's line, "
                      "a step time (\"step time: 1.25 s\") or a peak memory (\"peak memory: 21.3 GB\")"},
        {"| test | t/s |\n| --- | --- |\n| tg 128 | fast |", "line 3.t/s", "expected tokens per second such as 132.19 \u00b1 0.55, got \"fast\""},
        {"| test | t/s |\n| pp512+tg128 | 50 |", "line 2.test", "combined prompt and generation tests (\"pp512+tg128\") are not calibrated; use the pp and tg rows"},
        {"| test | t/s |\n| tg 128 | 0 |", "line 2.t/s", "expected tokens per second such as 132.19 \u00b1 0.55, got \"0\""},
        {"step time: 1.25", "line 1.step time", "needs a unit: s or ms (\"step time: 1.25 s\")"},
        {"peak memory: 21.3", "line 1.peak memory", "needs a unit: GB, GiB, MB, MiB or bytes (\"peak memory: 21.3 GB\")"},
        {"| a | b |\n", "line 1", "a table row before a header with \"test\" and \"t/s\" columns"},
    };
    for (const auto& row : rows) {
        const auto p = parse_measurements(row.text);
        ASSERT_FALSE(p.issues.empty()) << row.text;
        EXPECT_EQ(p.issues[0].path, row.path) << row.text;
        EXPECT_EQ(p.issues[0].message, row.message) << row.text;
    }
}

// [SECTION] calibration ------------------------------------------------------------------------------

// llama-bench tg 128 = 131.42 t/s with a 7B Q4_0 model, calibrated on the catalog's RTX 3090 with Llama 2 7B at q4_0.
// By hand (lesson 001's roofline): one generated token reads the weights once, so
//   efficiency = weights_bytes / (bandwidth x (1 / measured - step overhead)),
// with the plan's own weight bytes and the catalog's decode_step_overhead_s (0.87 ms). The KV cache of 128
// tokens adds 64 MB at most, under 2 % of 3.9 GB: the tolerance.
TEST(Calibration, LlamaBenchDecodeOnRtx3090) {
    const auto parsed = parse_measurements(data_text("llama-bench-readme.md"));
    const std::string workload = R"({"stage": "serve", "model": "llama-2-7b"})";
    const auto c = calibrate(files_catalog(), workload, "rtx-3090", parsed.measurements[1], "2026-11-30");
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    const Calibration& k = c.calibration;
    EXPECT_EQ(k.assumption, "decode_bandwidth_efficiency");
    EXPECT_EQ(k.figure, "decode_tokens_per_s_per_user");
    EXPECT_EQ(k.precision, "q4_0");
    EXPECT_DOUBLE_EQ(k.measured, 131.42);
    EXPECT_NEAR(c.ratio, k.measured / k.modelled, 1e-12);

    Catalog cat = files_catalog();
    ASSERT_TRUE(extend_catalog(cat, c.extension_json, "calibration").empty());
    const Plan p = plan_from_json(R"({"stage": "serve", "model": "llama-2-7b", "precision": {"weights": "q4_0"},
        "serve": {"context_tokens": 129, "prompt_tokens": 1, "output_tokens": 128, "concurrent_users": 1},
        "hardware": {"devices": ["rtx-3090"], "count": 1}, "framework": "llama.cpp"})", cat, false);
    ASSERT_TRUE(p.issues.empty());
    const Candidate& cand = on(p, "rtx-3090");
    const Figure& f = cand.figures.at("decode_tokens_per_s_per_user");
    EXPECT_NEAR(f.value / 131.42, 1.0, 1e-3); // the plan reproduces the measurement
    EXPECT_EQ(f.label, Label::calibrated);
    EXPECT_EQ(f.why.rfind("calibrated (your measurement: llama-bench tg 128: 131.42 t/s", 0), 0u) << f.why;

    const Device* d = cat.device_by_id("rtx-3090");
    const double overhead_s = cat.assumptions.at("decode_step_overhead_s").value;
    const double by_hand = cand.memory.weights_bytes / (d->bandwidth_bytes_per_s * (1 / 131.42 - overhead_s));
    EXPECT_NEAR(k.value / by_hand, 1.0, 0.02);
}

// llama-bench's backend column says which ggml backend ran; a Vulkan row is planned as framework llama.cpp-vulkan
// while its calibration is sought, so the planner's figure it starts from is the Vulkan GGUF rule's. By hand
// (plan_test.cpp DecodeEfficiency.LlamaCppVulkanTakesItsOwnGgufRule): LLaMA 2 7B Q4_0 on an RTX 5090 reads
// 3,750,711,808 bytes per tg128 step; Vulkan: 3.7507e9 / (1792e9 x 0.609) + 0.71 ms = 4.1468 ms, 241.1 tokens/s;
// the same row from a CUDA build: 3.7507e9 / (1792e9 x 0.763) + 2.08 ms = 4.8232 ms, 207.3 tokens/s.
TEST(Calibration, LlamaBenchBackendColumnPicksTheVulkanFramework) {
    auto row = [](const char* backend) {
        return std::string("| model                          |       size |     params | backend    | ngl | fa |            test |                  t/s |\n"
                           "| ------------------------------ | ---------: | ---------: | ---------- | --: | -: | --------------: | -------------------: |\n"
                           "| llama 7B Q4_0                  |   3.56 GiB |     6.74 B | ") + backend + "     |  99 |  1 |           tg128 |        221.08 ± 1.41 |\n";
    };
    const auto vk = parse_measurements(row("Vulkan")), cuda = parse_measurements(row("CUDA  "));
    ASSERT_EQ(vk.measurements.size(), 1u);
    ASSERT_EQ(cuda.measurements.size(), 1u);
    EXPECT_EQ(vk.measurements[0].backend, "Vulkan");
    EXPECT_EQ(cuda.measurements[0].backend, "CUDA");
    const std::string workload = R"({"stage": "serve", "model": "llama-2-7b"})";
    const auto a = calibrate(files_catalog(), workload, "rtx-5090", vk.measurements[0], "2026-12-01");
    const auto b = calibrate(files_catalog(), workload, "rtx-5090", cuda.measurements[0], "2026-12-01");
    ASSERT_TRUE(a.issues.empty()) << to_string(a.issues.front());
    ASSERT_TRUE(b.issues.empty()) << to_string(b.issues.front());
    EXPECT_NEAR(a.calibration.modelled / 241.1, 1.0, 1e-3);
    EXPECT_NEAR(b.calibration.modelled / 207.3, 1.0, 1e-3);
}

// A calibration reaches only its own device; the workload's own override still wins over it.
TEST(Calibration, OnlyItsDeviceAndNotOverAWorkloadOverride) {
    const auto parsed = parse_measurements(data_text("llama-bench-readme.md"));
    const auto c = calibrate(files_catalog(), R"({"stage": "serve", "model": "llama-2-7b"})", "rtx-3090", parsed.measurements[1], "2026-11-30");
    ASSERT_TRUE(c.issues.empty());
    Catalog cat = files_catalog();
    ASSERT_TRUE(extend_catalog(cat, c.extension_json, "calibration").empty());
    const Plan p = plan_from_json(R"({"stage": "serve", "model": "llama-2-7b", "hardware": {"devices": ["rtx-3090", "rtx-4090"]}})", cat, false);
    EXPECT_EQ(on(p, "rtx-3090").figures.at("decode_tokens_per_s_per_user").label, Label::calibrated);
    EXPECT_EQ(on(p, "rtx-4090").figures.at("decode_tokens_per_s_per_user").label, Label::modelled);
    const Plan pinned = plan_from_json(R"({"stage": "serve", "model": "llama-2-7b", "hardware": {"devices": ["rtx-3090"]},
        "assumptions": {"decode_bandwidth_efficiency": 0.5}})", cat, false);
    EXPECT_EQ(on(pinned, "rtx-3090").figures.at("decode_tokens_per_s_per_user").label, Label::modelled);
}

// Prompt processing calibrates the prefill compute efficiency from time to first token = 512 / 2368.80 s.
TEST(Calibration, LlamaBenchPromptProcessing) {
    const auto parsed = parse_measurements(data_text("llama-bench-readme.md"));
    const auto c = calibrate(files_catalog(), R"({"stage": "serve", "model": "llama-2-7b"})", "rtx-3090", parsed.measurements[0], "2026-11-30");
    ASSERT_TRUE(c.issues.empty()) << to_string(c.issues.front());
    EXPECT_EQ(c.calibration.assumption, "prefill_compute_efficiency");
    EXPECT_DOUBLE_EQ(c.calibration.measured, 512 / 2368.80);
    EXPECT_GT(c.calibration.value, 0.001);
    EXPECT_LE(c.calibration.value, 1.0);
}

TEST(Calibration, ImpossibleMeasurementsAreNamed) {
    // 5000 t/s of a 3.9 GB model would need 19 TB/s from a 936 GB/s card.
    const auto fast = parse_measurements("| test | t/s |\n| tg 128 | 5000 |");
    const auto c = calibrate(files_catalog(), R"({"stage": "serve", "model": "llama-2-7b"})", "rtx-3090", fast.measurements[0], "2026-11-30");
    ASSERT_EQ(c.issues.size(), 1u);
    EXPECT_EQ(c.issues[0].path, "measurement");
    EXPECT_EQ(c.issues[0].message.rfind("measured 5000 tokens/s is outside what decode_bandwidth_efficiency can reach on rtx-3090 (best ", 0), 0u)
        << c.issues[0].message;
    // The llama-bench row names a 6.74 B model; the workload's is 70B.
    const auto parsed = parse_measurements(data_text("llama-bench-readme.md"));
    const auto wrong = calibrate(files_catalog(), R"({"stage": "serve", "model": "llama-2-70b"})", "h100-sxm", parsed.measurements[1], "2026-11-30");
    ASSERT_FALSE(wrong.issues.empty());
    EXPECT_EQ(wrong.issues[0].path, "workload.model");
    const auto step = parse_measurements("step time: 1.2 s");
    const auto serve = calibrate(files_catalog(), R"({"stage": "serve", "model": "llama-2-7b"})", "h100-sxm", step.measurements[0], "2026-11-30");
    ASSERT_FALSE(serve.issues.empty());
    EXPECT_EQ(serve.issues[0].path, "workload.stage");
    const auto unknown = calibrate(files_catalog(), R"({"stage": "serve", "model": "llama-2-7b"})", "h999", parsed.measurements[1], "2026-11-30");
    EXPECT_EQ(unknown.issues.at(0).message, "unknown device id \"h999\"");
}

// A workload's precision is a format name or an object (docs/workload.md), and calibrate reads it as plan does:
// the page's default workload ("precision": "bf16", Mistral 7B) calibrated from llama-bench's README table on an
// RTX A6000 once aborted (a name cannot take a "weights" key). The Q4_0 row's format replaces the weights' format
// and the name's KV cache and compute (bf16) stay: the same value as the object form gives.
TEST(Calibration, PrecisionGivenAsAFormatName) {
    const auto parsed = parse_measurements(data_text("llama-bench-readme.md"));
    const auto named = calibrate(files_catalog(), test::data_file("page-default-workload.json"), "rtx-a6000", parsed.measurements[1], "2026-12-02");
    ASSERT_TRUE(named.issues.empty()) << to_string(named.issues.front());
    EXPECT_EQ(named.calibration.precision, "q4_0");
    EXPECT_EQ(named.calibration.model, "mistral-7b");
    const auto object = calibrate(files_catalog(), R"({"stage": "serve", "model": "mistral-7b", "precision": {"weights": "bf16", "kv_cache": "bf16", "compute": "bf16"}})",
                                  "rtx-a6000", parsed.measurements[1], "2026-12-02");
    ASSERT_TRUE(object.issues.empty()) << to_string(object.issues.front());
    EXPECT_EQ(named.calibration.value, object.calibration.value);
    EXPECT_EQ(named.calibration.modelled, object.calibration.modelled);
}

// A precision of the wrong type is the plan's named error, under "workload", whatever the measurement.
TEST(Calibration, PrecisionOfTheWrongTypeIsNamed) {
    const auto parsed = parse_measurements(data_text("llama-bench-readme.md"));
    for (const auto& m : parsed.measurements) {
        const auto c = calibrate(files_catalog(), R"({"stage": "serve", "model": "mistral-7b", "precision": 16})", "rtx-a6000", m, "2026-12-02");
        ASSERT_EQ(c.issues.size(), 1u) << m.what;
        EXPECT_EQ(c.issues[0], (Issue{"workload.precision", "expected a format name or an object {weights, kv_cache, compute}, got a number"}));
    }
}

// Every pasted sample in tests/data/measurements/, each measurement in it, against every scenario's workload (each
// card of a team) on the device the workload names first (else the RTX A6000 of the page's report), through the
// JSON edge the page and the JavaScript API call: a calibration, or errors that each name a path and a reason.
// Never a throw, and never an internal error (an exception the edge had to catch).
TEST(Calibration, EverySampleOnEveryScenarioIsACalibrationOrANamedError) {
    using nlohmann::json;
    std::vector<std::string> samples;
    for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(HWPLAN_SOURCE_DIR) / "tests/data/measurements"))
        if (f.is_regular_file() && f.path().filename() != "README.md") samples.push_back(f.path().filename().string());
    std::sort(samples.begin(), samples.end());
    ASSERT_GE(samples.size(), 2u);
    std::vector<std::pair<std::string, json>> workloads; // label, workload
    for (const auto& sc : files_catalog().scenarios) {
        if (!sc.workload_json.empty()) {
            workloads.emplace_back(sc.id, json::parse(sc.workload_json));
            continue;
        }
        const json team = json::parse(sc.team_json);
        for (const auto& card : team.at("cards")) workloads.emplace_back(sc.id + " (" + card.value("name", "card") + ")", card);
    }
    ASSERT_GE(workloads.size(), files_catalog().scenarios.size());
    int calibrated = 0, named = 0;
    for (const auto& sample : samples) {
        const std::string text = data_text(sample);
        const size_t n = parse_measurements(text).measurements.size();
        ASSERT_GT(n, 0u) << sample;
        for (const auto& [label, w] : workloads) {
            const json devices = w.contains("hardware") ? w["hardware"].value("devices", json::array()) : json::array();
            const std::string device = devices.empty() ? "rtx-a6000" : devices[0].get<std::string>();
            for (size_t i = 0; i < n; ++i) {
                const json request = {{"workload", w}, {"device", device}, {"text", text}, {"read_on", "2026-12-02"}, {"index", i}};
                std::string out;
                ASSERT_NO_THROW(out = calibrate_json(files_catalog(), request.dump())) << sample << " on " << label;
                const json answer = json::parse(out);
                const std::string where = sample + "[" + std::to_string(i) + "] on " + label + " (" + device + "): " + out.substr(0, 300);
                if (answer.contains("calibration")) {
                    ++calibrated;
                    continue;
                }
                ASSERT_TRUE(answer.contains("errors")) << where;
                ++named;
                for (const auto& e : answer["errors"]) {
                    EXPECT_FALSE(e.value("path", "").empty()) << where;
                    EXPECT_FALSE(e.value("message", "").empty()) << where;
                    EXPECT_EQ(e.value("message", "").rfind("internal error", 0), std::string::npos) << where;
                }
            }
        }
    }
    EXPECT_GT(calibrated, 0);
    EXPECT_GT(named, 0);
}

// The extension's calibrations are validated like the rest of the catalog.
TEST(Calibration, ExtensionEntriesAreValidated) {
    Catalog cat = files_catalog();
    const Issues issues = extend_catalog(cat, R"({"calibrations": [{"device": "nope", "assumption": "decode_bandwidth_efficiency", "value": 1.5,
        "figure": "decode_tokens_per_s_per_user", "measured": 100, "modelled": 90, "measurement": "x", "read_on": "2026-11-30"}]})", "ext");
    ASSERT_EQ(issues.size(), 2u);
    EXPECT_EQ(issues[0].path, "calibrations[0].device");
    EXPECT_EQ(issues[0].message, "unknown device id \"nope\" (a catalog id, or a device of this extension listed before)");
    EXPECT_EQ(issues[1].path, "calibrations[0].value");
    EXPECT_EQ(issues[1].message, "implausible value 1.5; expected 0.001 to 1");
    EXPECT_TRUE(cat.calibrations.empty());
}

TEST(Calibration, JsonRequest) {
    const std::string ok = calibrate_json(files_catalog(), R"({"workload": {"stage": "serve", "model": "llama-2-7b"}, "device": "rtx-3090",
        "text": "| test | t/s |\n| tg 128 | 50 |", "read_on": "2026-11-30"})");
    EXPECT_NE(ok.find("\"assumption\":\"decode_bandwidth_efficiency\""), std::string::npos) << ok;
    EXPECT_EQ(calibrate_json(files_catalog(), R"({"workload": {"stage": "serve", "model": "llama-2-7b"}, "device": "rtx-3090", "text": "hi", "read_on": "2026-11-30"})")
                  .rfind(R"({"errors":[{"message":"no measurement found)", 0), 0u);
}

} // namespace hwplan
