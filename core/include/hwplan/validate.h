// hwplan/validate.h: the validation suite: published measurements (tests/validation/cases/**.json, schema
// in catalog/README.md "Measurements") planned with the same core, the predicted figure set against the
// measured one, and per-kind summaries checked against a recorded baseline (tests/validation/baseline.json).
// Pure: the caller reads the files; nothing here touches the file system.
// Usage: ValidationReport r = run_validation(files, catalog);   std::string t = render_validation_table(r);
//        Issues drops = check_baseline(r, baseline_text);       // empty: accuracy held
#pragma once
#include <map>
#include <string>
#include <vector>

#include "hwplan/catalog.h"
#include "hwplan/issues.h"

namespace hwplan {

// [SECTION] one measurement ----------------------------------------------------------------------------

// The five kinds, each with the tolerance the issue (#9) sets for it.
//   memory 10 %, decode 25 %, serving 35 %, training 25 %; embedding 35 % (a throughput, like serving).
double tolerance_ratio(const std::string& kind);   // 0 for an unknown kind

struct MeasurementSource {
    std::string title, publisher, locator, quote, url, read_on;
};

struct Measurement {
    std::string file;            // path relative to the suite folder
    std::string id;
    std::string kind;            // memory | decode | serving | training | embedding
    std::string measure;         // what exactly: "kv_cache_capacity", "finetune_peak_memory", ...
    std::string split;           // calibration | validation
    std::string quantity;        // what to read from the plan (see kQuantities in validate.cpp)
    MeasurementSource source;
    std::string setup_text;      // "llama-3.1-8b, bf16, batch 1, ... on 1 x h100-sxm (vLLM 0.6.3)"
    std::string workload_json;   // the setup as a hwplan workload
    double measured_si = 0;      // the measured value in SI (bytes, tokens, tokens/s, items/s, parameters)
    std::string measured_text;   // as published: "2,810 blocks", "21.4 GB"
    std::string unit_si;         // "bytes", "tokens", "tokens/s", ...
    double resolution_si = 0;    // the published value's rounding step in SI (0.01 GiB for "6.10GB"); 0 = exact
    std::string not_modelled;    // declared by the file: why the planner leaves this figure out ("" = modelled)
};

// Reads one measurement file; problems name the field. `out` is filled only when the issues are empty.
Issues parse_measurement(const CatalogFile& file, Measurement& out);

// [SECTION] results --------------------------------------------------------------------------------

struct CaseResult {
    Measurement m;
    bool modelled = false;
    std::string reason;          // not modelled: why (an unknown device, a figure the plan leaves out, ...)
    double predicted = 0, low = 0, high = 0; // SI, the figure's value and band
    double error_ratio = 0;      // (predicted - measured) / measured
    bool within = false;         // |error| <= the kind's tolerance
    bool in_band = false;        // low <= measured <= high
    std::string label;           // the figure's label (arithmetic, modelled, calibrated)
};

struct KindSummary {
    int cases = 0;
    int modelled = 0;
    double median_abs_error = 0; // over the modelled cases
    double within_share = 0;     // modelled cases within tolerance / modelled cases
    double band_share = 0;       // modelled cases whose band holds the measurement / modelled cases
};

// One fitted value of the catalog (refit.h) as the suite re-derives it: from every case, and leaving out each
// of its sources in turn.
struct FitReport {
    std::string id, file, method, prior;  // "decode_bandwidth_efficiency.hbm-gpu-llama.cpp", "efficiencies.json", ...
    bool declared = false;                // the fit method is declared (refit.cpp kFits)
    double value = 0, step_s = 0;         // the catalog's (step_s: a decode rule's fixed step, s; 0: none)
    double refit = 0, refit_step_s = 0;   // re-derived from every case
    int cases = 0;                        // calibration cases whose prediction moves with it (the fit's cases)
    std::vector<std::string> sources;     // their distinct sources (source_key); one: "fitted on one source"
    double loso_low = 0, loso_high = 0;   // the value over the folds that leave out one of its sources
    double loso_low_step_s = 0, loso_high_step_s = 0; // a decode rule's step in those two folds (s; 0: the catalog-wide step)
    int loso_priors = 0;                  // folds that left it no case (it fell back to its prior)
    int loso_family = 0;                  // folds that left it no case of its own and took its runtime family's refit
};

struct ValidationReport {
    std::vector<CaseResult> results;                                  // sorted by split, kind, id
    // split -> kind ("all" too) -> summary; the splits "calibration", "validation", "all", and "loso": every case
    // predicted with the fitted values refitted without its own source (leave one source out)
    std::map<std::string, std::map<std::string, KindSummary>> summary;
    std::vector<CaseResult> loso;                                     // per result (same order): its leave-one-source-out prediction
    std::vector<FitReport> fits;                                      // the catalog's fitted values
    Issues issues;                                                    // files that could not be read
};

// Plans every measurement's workload with the catalog's assumptions and compares; then, for each source that
// feeds a fitted value, refits every fitted value without that source's cases and predicts its cases with the
// refitted catalog (leave one source out; cases of other sources keep today's prediction).
CaseResult run_case(const Measurement& m, const Catalog& catalog);
ValidationReport run_validation(const std::vector<CatalogFile>& files, const Catalog& catalog);

// [SECTION] sources ------------------------------------------------------------------------------------

// One source's cases (a source is what leave one source out leaves out: source_key, the URL without its anchor, a GitHub repository at its commit).
struct SourceSummary {
    std::string key;                 // source_key(m.source)
    std::string title, publisher, url; // of its first case (sorted by split, kind, id)
    std::vector<std::string> kinds;  // the kinds its cases measure, in kKinds order
    int cases = 0, modelled = 0;
    int within = 0;                  // modelled cases within tolerance today
    int loso_within = 0;             // the same with the source left out of every fit
};

// Every source of the report, the most cases first (ties by key).
std::vector<SourceSummary> source_summaries(const ValidationReport& r);

// [SECTION] output and the gate ------------------------------------------------------------------------

std::string render_validation_table(const ValidationReport& r);     // plain text, one line per case
std::string render_validation_markdown(const ValidationReport& r);  // the generated report (docs/accuracy-report.md)
std::string validation_json(const ValidationReport& r);
std::string baseline_json(const ValidationReport& r);               // the recorded level (summaries only)

// The accuracy recorded in `baseline_text` (from baseline_json) against `r`: one issue per split and kind
// whose share within tolerance or band coverage fell, whose median error rose, or that models fewer
// cases than recorded. Empty when accuracy held.
Issues check_baseline(const ValidationReport& r, const std::string& baseline_text);

} // namespace hwplan
