// hwplan/run_compare.h: run-it's loop closed. What a benchmark printed (measurement.h, read_bench_report) beside
// what the plan predicted it would print (run_it.h, the predicted lines), line by line: the prediction and its
// band, the measured value, their ratio and whether the band holds it; which assumption the largest difference
// points at; and the plan again with the measurement as a calibration, made as `hwplan calibrate` makes it.
// Usage: RunComparison c = compare_run(plan.run, read_bench_report(text));                   // pure: no planning
//        RunComparison c = read_back(catalog, workload_json, "", text, "2026-12-02");        // + calibration, re-plan
//        std::string j = read_back_json(catalog, R"({"workload": {...}, "text": "...", "read_on": "2026-12-02"})");
#pragma once
#include <string>
#include <vector>

#include "hwplan/catalog.h"
#include "hwplan/issues.h"
#include "hwplan/measurement.h"
#include "hwplan/run_it.h"

namespace hwplan {

// One predicted line with what the benchmark printed for it.
struct ComparedLine {
    std::string metric;                 // the benchmark's words: "Mean TPOT (ms)", "tg128 (t/s)"
    std::string figure;                 // the plan figure the prediction comes from: "decode_step_s"
    std::string unit;                   // "ms", "tok/s", "t/s"
    double predicted = 0, low = 0, high = 0; // in the unit; low..high is the plan's band when banded
    bool banded = false;
    bool measured = false;              // the benchmark printed this line
    double value = 0;                   // what it printed, in the unit
    std::string text;                   // the number exactly as printed ("51.78")
    int line = 0;                       // its 1-based line in the pasted text
    double ratio = 0;                   // value / predicted (> 1: more ms or more tok/s than predicted)
    bool in_band = false;               // low <= value <= high (false for a line without a band)
    double replanned = 0;               // the prediction with the calibration (read_back; 0: not re-planned)
    bool operator==(const ComparedLine&) const = default;
};

struct RunComparison {
    std::string tool;                   // the benchmark the text came from ("vllm-bench-serve", "llama-bench")
    std::string device;                 // the run's device (catalog id) and option, as run_it wrote them
    std::string option;
    BenchSetup setup;                   // what the measure command runs
    std::vector<ComparedLine> lines;    // one per predicted line, in the run's order
    std::vector<MeasuredLine> other;    // printed lines the plan does not predict (P99 TTFT, request counts)
    std::string largest;                // the measured line furthest from its prediction (by |log ratio|); "" if none
    std::string points_at;              // the assumption it points at: decode_bandwidth_efficiency,
                                        // prefill_compute_efficiency or batch_sequences (the batch reached)
    std::string why;                    // one or two sentences with the numbers
    std::vector<std::string> notes;     // where the measured setup differs from the command's, what was skipped
    // The plan again with the measurement as a calibration (read_back only).
    bool calibrated = false;
    Calibration calibration;            // as `hwplan calibrate` writes it
    double calibration_ratio = 0;       // measured / modelled (for times modelled / measured): > 1 faster than modelled
    std::string extension_json;         // {"calibrations": [...]} for --extend and the page's own entries
    std::string replanned_option;       // the recommendation with the calibration ("" when none)
    std::string calibration_note;       // which measurement calibrated what, or why nothing was calibrated
    Issues issues;                      // set when nothing could be compared (path "text", "run", "workload", ...)
    bool operator==(const RunComparison&) const = default;
};

// Pure: the run's predicted lines against the report's lines of the same words. Issues when the run has no
// commands, the report is of another tool, or no predicted line was printed.
RunComparison compare_run(const RunIt& run, const BenchReport& report);

// The whole loop: plans `workload_json`, writes the run section (of the recommended option, or of the candidate on
// `device`), reads `text`, compares, calibrates the run's device from the measurement the largest difference
// points at (measurement.h, calibrate) and plans again with it. Guarded (guard.h): never throws.
RunComparison read_back(const Catalog& catalog, const std::string& workload_json, const std::string& device, const std::string& text,
                        const std::string& read_on);

// JSON edge: {"workload": {...}, "text": "<pasted>", "read_on": "YYYY-MM-DD", "device"?: "id"}
// -> {"readback": {...}} (to_json below) | {"errors": [{"path", "message"}]}.
std::string read_back_json(const Catalog& catalog, const std::string& request);
std::string to_json(const RunComparison& comparison);  // {"readback": {"lines": [...], "points_at", "calibration"?, ...}}
std::string comparison_text(const RunComparison& comparison); // plain text for the CLI: a table, the pointer, the calibration

} // namespace hwplan
