// hwplan/refit.h: the catalog's fitted values re-derived from the measurements they name, and the
// leave-one-source-out (LOSO) refits. A fitted value is any figure with "calibrated_by" (efficiencies.json
// rules, assumptions.json entries, runtimes.json adapter_step_overhead_s); each has a declared fit method, the
// one its note states. The fit reads a probe of each case: the predicted time per unit (1 / the predicted
// figure) is affine in g(value) (g = 1/value for an efficiency, value for an overhead or a byte count) and in a
// decode rule's fixed step, so three plans per case give the line every fit works on (performance.cpp: a
// roofline time is work / (peak x efficiency) + fixed terms). Pure: plans go through run_case on a catalog copy.
// Usage: FitSet f = probe_fits(catalog, results);                      // once, with the full catalog
//        std::vector<Refit> all = refit_all(f, catalog, "");          // every case: reproduces the catalog
//        Catalog fold = refitted_catalog(catalog, f, refit_all(f, catalog, source_key(m.source)));
#pragma once
#include <string>
#include <vector>

#include "hwplan/catalog.h"
#include "hwplan/issues.h"

namespace hwplan {

struct CaseResult;
struct MeasurementSource;

// How a value was fitted from its cases (each note in the catalog says which).
enum class FitMethod {
    median,                 // median of the values that reproduce each case alone
    log_least_squares,      // the value minimizing sum log(predicted / measured)^2
    relative_least_squares, // the value minimizing sum ((predicted - measured) / measured)^2 of the step time
    anchor,                 // the first case named sets the value, the others its band; without it, the median of the rest
    share_and_step,         // a decode rule's share and fixed step together: least squares of the measured step time
                            // on the bytes read over bandwidth (t = x / share + step)
    share_at_linked_step,   // a one-device decode rule: the median share its own cases give at another rule's (refitted) step
};
std::string_view name(FitMethod m);

enum class FitTarget { assumption, decode_bandwidth_rule, training_mfu_rule, decode_compute_8bit_rule, runtime_adapter_overhead };

struct FittedValue {
    std::string id;                          // "decode_bandwidth_efficiency.hbm-gpu-llama.cpp-gguf", "assumptions.training_mfu"
    std::string file;                        // efficiencies.json | assumptions.json | runtimes.json
    FitTarget target = FitTarget::assumption;
    std::string key;                         // the assumption's name, the rule's id, the runtime's id
    FitMethod method = FitMethod::log_least_squares;
    bool declared = false;                   // the method is declared in refit.cpp (kFits); else log least squares
    bool reciprocal = true;                  // time is affine in 1 / value (an efficiency); false: in value (s, bytes)
    std::vector<std::string> calibrated_by;  // the catalog's list
    double value = 0, step_s = 0;            // the catalog's value (unit of the entry) and a decode rule's step (s; 0: none)
    std::string linked;                      // share_at_linked_step: the id of the value whose step it takes
    std::string prior;                       // what it falls back to with no case left, in words
    std::string family;                      // a decode rule's runtime family: its weight-format kinds and runtimes (the
                                             // part before a backend suffix: llama.cpp-vulkan is llama.cpp); "" for others
};

// One calibration case as one fitted value sees it: predicted time per unit (1 / predicted figure)
//   = base + slope x g(value) + step_slope x step_s
struct FitCase {
    std::string id, source;                  // the case and its source key (source_key)
    bool moved = false;                      // its prediction moves with the value; else the fit leaves it out
    double time = 0;                         // 1 / measured, in the unit of 1 / the figure
    double base = 0, slope = 0, step_slope = 0;
};

struct FitSet {
    std::vector<FittedValue> values;         // in fitting order: assumptions, then rules (a rule's prior reads an assumption)
    std::vector<std::vector<FitCase>> cases; // per value: its calibration cases found in the suite
    std::vector<std::vector<std::string>> sources; // per value: the distinct sources of its moved cases
};

struct Refit {
    double value = 0, step_s = 0;            // step_s: share_and_step and share_at_linked_step only
    int cases = 0;                           // cases the fit used
    bool prior = false;                      // no case left: the value fell back to its prior
    bool family = false;                     // no case of its own left: refitted on its runtime family's rules' cases
};

// The source a measurement belongs to, for leave-one-source-out: its url, lower case, without a "#fragment" or a
// trailing "/"; a file in a GitHub repository, the repository at its commit ("https://github.com/owner/repo@commit"),
// and in MLCommons' results repositories the submitter's folder too; a measurement without a url: "title | publisher".
std::string source_key(const MeasurementSource& s);

// Every fitted value of the catalog with its cases probed (three plans per moved case, with a catalog copy).
FitSet probe_fits(const Catalog& catalog, const std::vector<CaseResult>& results);

// Every value refitted from its cases, leaving out those of `left_out` (a source_key; "" leaves none out).
// A value none of whose cases comes from `left_out` keeps the catalog's figure when `keep_untouched` is set.
std::vector<Refit> refit_all(const FitSet& f, const Catalog& catalog, const std::string& left_out, bool keep_untouched = false);

// The catalog with the refitted values in place (a band is widened to hold a value that falls outside it).
Catalog refitted_catalog(const Catalog& catalog, const FitSet& f, const std::vector<Refit>& refits);

} // namespace hwplan
