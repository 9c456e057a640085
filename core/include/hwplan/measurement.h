// hwplan/measurement.h: pasted benchmark output read into measurements, and a measurement turned into a
// calibration of the device it was taken on: the value of the planner's assumption (decode bandwidth
// efficiency, prefill compute efficiency, MFU, runtime memory) that makes the plan reproduce what was
// measured. The ratio measured / modelled is kept beside it. Understood text:
//   - llama-bench's Markdown table rows (test "pp 512" / "pp512" -> prompt tokens/s, "tg 128" -> generated tokens/s);
//   - vLLM benchmark_serving's result block ("Mean TPOT (ms)", "Maximum request concurrency", throughputs);
//   - vLLM benchmark_throughput's line ("Throughput: 4.2 requests/s, 2150 total tokens/s, 1075 output tokens/s");
//   - `vllm bench serve` against an embedding (pooling) server: its block without generated tokens ("Request throughput (req/s)"
//     is items a second with one item a request);
//   - a training step time ("step time: 1.25 s", "step_time_s = 1.25", "1250 ms/step");
//   - a peak memory ("peak memory: 21.3 GB", "max_memory_allocated: 19.8 GiB").
// Usage: MeasurementParse m = parse_measurements(text);
//        CalibrationResult c = calibrate(catalog, workload_json, "rtx-4090", m.measurements[0], "2026-11-30");
#pragma once
#include <string>
#include <vector>

#include "hwplan/catalog.h"
#include "hwplan/issues.h"

namespace hwplan {

enum class MeasurementKind {
    decode_tokens_per_s,   // llama-bench tg N: generated tokens/s of one sequence
    prefill_tokens_per_s,  // llama-bench pp N: prompt tokens/s of one sequence
    serving_tpot_s,        // vLLM benchmark_serving: mean time per output token at a concurrency
    output_tokens_per_s,   // vLLM benchmark_throughput (or serving without TPOT): output tokens/s of the batch
    step_time_s,           // one training step
    peak_memory_bytes,     // peak device memory of one device
    items_per_s,           // vLLM bench serve against a pooling server: items (requests) a second of one device's server
    rl_train_s             // an RL step's training phase (OpenRLHF's timing/ppo_train): the trainer's pass over the step's rollouts
};

struct BenchMeasurement {
    MeasurementKind kind = MeasurementKind::decode_tokens_per_s;
    double value = 0;            // SI: tokens/s, s, bytes
    std::string what;            // in words: "llama-bench tg 128: 132.19 t/s"
    int line = 0;                // 1-based line of the text it came from
    int prompt_tokens = 0;       // llama-bench pp N; vLLM: mean input tokens per request (0: not given); pooling: tokens an item
    int output_tokens = 0;       // llama-bench tg N; vLLM: mean output tokens per request (0: not given)
    int concurrency = 0;         // vLLM: maximum request concurrency (0: not given)
    std::string weight_format;   // llama-bench's type column ("q4_0"), lower case; "" when not given
    double model_params = 0;     // llama-bench's params column (6.74e9); 0 when not given
    std::string backend;         // llama-bench's backend column ("CUDA", "Vulkan", "Metal"); "" when not given
    bool operator==(const BenchMeasurement&) const = default;
};

struct MeasurementParse {
    std::vector<BenchMeasurement> measurements; // in the order of the text
    Issues issues;                         // "line N.column": reason; one issue when nothing was recognised
};

MeasurementParse parse_measurements(const std::string& text);

struct CalibrationResult {
    Calibration calibration;   // ready for Catalog::calibrations / an extension's "calibrations"
    double ratio = 0;          // measured / modelled (for times: modelled / measured), > 1: faster than modelled
    std::string extension_json;// {"calibrations": [<calibration>]}
    Issues issues;             // empty when calibrated
};

// Calibrates `device_id` from one measurement, planning `workload_json` (the workload the measurement belongs
// to: model, precision, and for step time and peak memory the training or serving shape) reshaped to the
// measured setup (llama-bench: one sequence of the measured prompt and generation lengths; vLLM: the measured
// concurrency; a pooling server: one device at the measured tokens an item and items in flight; an RL step's training phase: the
// workload's pools as given). The value is found by bisection over the assumption's range (the figure is monotonic in it).
CalibrationResult calibrate(const Catalog& catalog, const std::string& workload_json, const std::string& device_id,
                            const BenchMeasurement& measurement, const std::string& read_on);

// JSON form for the JavaScript API and the page: {"workload": {...}, "device": "id", "text": "<pasted>",
// "read_on": "YYYY-MM-DD", "index"?: n} -> {"calibration": {...}, "ratio", "extension": {...}, "measurements": [...]}
// or {"errors": [...]}. `index` picks one measurement of several (default: the last one recognised).
std::string calibrate_json(const Catalog& catalog, const std::string& request);

std::string_view name(MeasurementKind k);

// [SECTION] What a benchmark printed, line by line ---------------------------------------------------------
// The figures as the tool named and printed them, for comparing with the plan's predicted lines (run_compare.h):
// vLLM's serving result block ("Mean TPOT (ms)", "Output token throughput (tok/s)", ..., from `vllm bench serve`
// or the older benchmarks/benchmark_serving.py) and llama-bench's Markdown table (test "pp 512" or "pp512" ->
// "pp512 (t/s)", the mean before the ±). Several vLLM blocks: the last one; a llama-bench test printed twice:
// its last row (a note says so).
// Usage: BenchReport r = read_bench_report(text); for (auto& l : r.lines) ... l.metric, l.value

struct MeasuredLine {
    std::string metric;          // the tool's words and unit: "Mean TPOT (ms)", "pp512 (t/s)"
    double value = 0;            // as printed, in the tool's unit (ms, tok/s, t/s, requests)
    std::string text;            // the number exactly as printed ("51.78")
    int line = 0;                // 1-based line of the text
    bool operator==(const MeasuredLine&) const = default;
};

struct BenchReport {
    std::string tool;                   // the ToolInterface id it was printed by: "vllm-bench-serve" or "llama-bench"
    std::vector<MeasuredLine> lines;    // in the order of the text
    std::vector<std::string> notes;     // what was skipped or chosen ("3 result blocks: the last one, from line 40")
    Issues issues;                      // path "text": the reason; set only when nothing comparable was read
    const MeasuredLine* find(const std::string& metric) const; // nullptr when not printed
};

BenchReport read_bench_report(const std::string& text);

} // namespace hwplan
