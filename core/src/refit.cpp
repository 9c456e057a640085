// refit.cpp: the catalog's fitted values re-derived from their calibration cases (the method each note states,
// declared in kFits), and the leave-one-source-out refits the validation suite scores (validate.cpp).
#include "hwplan/refit.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "hwplan/validate.h"

namespace hwplan {

namespace {

// [SECTION] declared fits -----------------------------------------------------------------------------

struct FitDecl {
    const char* id;
    FitMethod method;
    bool reciprocal;     // an efficiency (time affine in 1 / value); false: an overhead or a byte count
    const char* linked;  // share_at_linked_step: the value whose step it takes
};

// One line per fitted value, the method its note in the catalog states.
constexpr FitDecl kFits[] = {
    {"assumptions.decode_compute_efficiency", FitMethod::anchor, true, ""},                 // one row: v0.9 LLaMA 7B on A100 FP16
    {"assumptions.decode_compute_efficiency_8bit", FitMethod::log_least_squares, true, ""}, // six TensorRT-LLM FP8 rows it moves
    {"assumptions.training_mfu", FitMethod::anchor, true, ""},                              // llm-foundry MPT-13B on 8 H100; 760m is the low
    {"assumptions.finetune_mfu", FitMethod::anchor, true, ""},                              // torchtune 405B QLoRA; the others the band
    {"assumptions.encoder_compute_efficiency", FitMethod::anchor, true, ""},                // BERT-Base b128; b8 and Large the band
    {"assumptions.training_fp8_cast_bytes_per_element", FitMethod::log_least_squares, false, ""},
    {"decode_bandwidth_efficiency.hbm-gpu-llama.cpp-gguf", FitMethod::share_and_step, true, ""},
    {"decode_bandwidth_efficiency.hbm-gpu-llama.cpp", FitMethod::median, true, ""},
    {"decode_bandwidth_efficiency.gddr-gpu-llama.cpp-gguf", FitMethod::share_and_step, true, ""},
    {"decode_bandwidth_efficiency.gddr-gpu-llama.cpp-vulkan-gguf", FitMethod::share_and_step, true, ""},
    {"decode_bandwidth_efficiency.gddr-gpu-llama.cpp", FitMethod::median, true, ""},
    {"decode_bandwidth_efficiency.apple-llama.cpp-gguf", FitMethod::share_and_step, true, ""},
    {"decode_bandwidth_efficiency.apple-m1-max-llama.cpp-gguf", FitMethod::share_at_linked_step, true,
     "decode_bandwidth_efficiency.apple-llama.cpp-gguf"},
    {"decode_bandwidth_efficiency.nvidia-pytorch-awq-int", FitMethod::log_least_squares, true, ""},
    {"training_mfu.a100-pretraining", FitMethod::anchor, true, ""},
    {"training_mfu.tpu-xla-pretraining", FitMethod::anchor, true, ""},   // MaxText v5e 16B on one slice; v4 22B and v5p 32B the band
    {"decode_compute_efficiency_8bit.mi300x-vllm-fp8", FitMethod::log_least_squares, true, ""},
};

// The prior of a catalog-wide assumption with no case left: a neighbouring assumption, or a value by hand.
struct PriorDecl {
    const char* assumption;
    const char* from;   // another assumption (its value in the same fold), or "" for `value`
    double value;
    const char* why;
};
constexpr PriorDecl kAssumptionPriors[] = {
    {"decode_compute_efficiency", "prefill_compute_efficiency", 0, "prefill_compute_efficiency (the same GEMMs in prefill)"},
    {"decode_compute_efficiency_8bit", "prefill_compute_efficiency", 0, "prefill_compute_efficiency (the same GEMMs in prefill)"},
    {"encoder_compute_efficiency", "prefill_compute_efficiency", 0, "prefill_compute_efficiency (a batched forward pass)"},
    {"finetune_mfu", "training_mfu", 0, "training_mfu (the pretraining MFU)"},
    {"training_fp8_cast_bytes_per_element", "", 4.0, "4 bytes (the casts alone, by hand: read 2, write 1 + 1 transposed)"},
};

const FitDecl* find_decl(const std::string& id) {
    for (const auto& d : kFits)
        if (id == d.id) return &d;
    return nullptr;
}

FittedValue make_value(std::string id, std::string file, FitTarget target, std::string key, const std::vector<std::string>& by, double value,
                       double step_s) {
    FittedValue v;
    v.id = std::move(id);
    v.file = std::move(file);
    v.target = target;
    v.key = std::move(key);
    v.calibrated_by = by;
    v.value = value;
    v.step_s = step_s;
    if (const FitDecl* d = find_decl(v.id)) {
        v.declared = true;
        v.method = d->method;
        v.reciprocal = d->reciprocal;
        v.linked = d->linked;
    } else {
        v.reciprocal = target != FitTarget::runtime_adapter_overhead;
    }
    switch (target) {
    case FitTarget::assumption: {
        v.prior = "its catalog value (no neighbouring assumption declared)";
        for (const auto& p : kAssumptionPriors)
            if (v.key == p.assumption) v.prior = p.why;
        break;
    }
    case FitTarget::decode_bandwidth_rule:
        v.prior = !v.linked.empty() ? "the share and step of " + v.linked
                                    : "its runtime family's rules refitted together (cases from at least two other sources), else the "
                                      "catalog-wide decode_bandwidth_efficiency and decode_step_overhead_s";
        break;
    case FitTarget::training_mfu_rule: v.prior = "the catalog-wide training_mfu"; break;
    case FitTarget::decode_compute_8bit_rule: v.prior = "the catalog-wide decode_compute_efficiency_8bit"; break;
    case FitTarget::runtime_adapter_overhead: v.prior = "0 s (no adapter overhead)"; break;
    }
    return v;
}

// A decode rule's runtime family (FittedValue::family): the kinds of weight format it names and the runtimes it
// names without a backend suffix ("llama.cpp-vulkan" is llama.cpp's Vulkan backend: the same GGUF mat-vec kernels
// ported, ggml-vulkan's mul_mat_vec shaders per ggml type), both sorted.
std::string runtime_family(const EfficiencyRule& r) {
    std::vector<std::string> kinds = r.weight_format_kinds, runtimes;
    for (const std::string& f : r.frameworks) {
        const size_t cut = f.rfind("llama.cpp", 0) == 0 ? std::string("llama.cpp").size() : f.size();
        runtimes.push_back(f.substr(0, cut));
    }
    std::sort(kinds.begin(), kinds.end());
    std::sort(runtimes.begin(), runtimes.end());
    runtimes.erase(std::unique(runtimes.begin(), runtimes.end()), runtimes.end());
    std::string key;
    for (const auto& k : kinds) key += k + ",";
    key += "/";
    for (const auto& f : runtimes) key += f + ",";
    return key;
}

std::vector<FittedValue> fitted_values(const Catalog& c) {
    std::vector<FittedValue> out;
    for (const auto& [name, a] : c.assumptions)
        if (!a.calibrated_by.empty()) out.push_back(make_value("assumptions." + name, "assumptions.json", FitTarget::assumption, name, a.calibrated_by, a.value, 0));
    for (const auto& r : c.decode_bandwidth_rules)
        if (!r.calibrated_by.empty()) {
            out.push_back(make_value("decode_bandwidth_efficiency." + r.id, "efficiencies.json", FitTarget::decode_bandwidth_rule, r.id, r.calibrated_by,
                                     r.value, r.step_overhead_s));
            out.back().family = runtime_family(r);
        }
    for (const auto& r : c.training_mfu_rules)
        if (!r.calibrated_by.empty())
            out.push_back(make_value("training_mfu." + r.id, "efficiencies.json", FitTarget::training_mfu_rule, r.id, r.calibrated_by, r.value, 0));
    for (const auto& r : c.decode_compute_8bit_rules)
        if (!r.calibrated_by.empty())
            out.push_back(make_value("decode_compute_efficiency_8bit." + r.id, "efficiencies.json", FitTarget::decode_compute_8bit_rule, r.id,
                                     r.calibrated_by, r.value, 0));
    for (const auto& r : c.training_runtimes)
        if (!r.adapter_timing_calibrated_by.empty())
            out.push_back(make_value("runtimes." + r.id + ".adapter_step_overhead_s", "runtimes.json", FitTarget::runtime_adapter_overhead, r.id,
                                     r.adapter_timing_calibrated_by, r.adapter_step_overhead_s, 0));
    // A linked value is fitted after the one it reads.
    std::stable_sort(out.begin(), out.end(), [](const FittedValue& a, const FittedValue& b) { return a.linked.empty() && !b.linked.empty(); });
    return out;
}

// [SECTION] setting a value in a catalog copy ------------------------------------------------------------

EfficiencyRule* find_rule(std::vector<EfficiencyRule>& rules, const std::string& id) {
    for (auto& r : rules)
        if (r.id == id) return &r;
    return nullptr;
}

template <class T> void widen(T& e, double v) {
    e.low = std::min(e.low, v);
    e.high = std::max(e.high, v);
}

// Puts `value` (and a decode rule's `step_s`; 0: the catalog-wide step) into `c`.
void set_value(Catalog& c, const FittedValue& v, double value, double step_s) {
    switch (v.target) {
    case FitTarget::assumption: {
        auto it = c.assumptions.find(v.key);
        if (it == c.assumptions.end()) return;
        it->second.value = value;
        widen(it->second, value);
        break;
    }
    case FitTarget::decode_bandwidth_rule:
        if (EfficiencyRule* r = find_rule(c.decode_bandwidth_rules, v.key)) {
            r->value = value;
            widen(*r, value);
            r->step_overhead_s = step_s;
            if (step_s > 0) {
                r->step_overhead_low_s = std::min(r->step_overhead_low_s, step_s);
                r->step_overhead_high_s = std::max(r->step_overhead_high_s, step_s);
            } else {
                r->step_overhead_low_s = r->step_overhead_high_s = 0;
            }
        }
        break;
    case FitTarget::training_mfu_rule:
        if (EfficiencyRule* r = find_rule(c.training_mfu_rules, v.key)) {
            r->value = value;
            widen(*r, value);
        }
        break;
    case FitTarget::decode_compute_8bit_rule:
        if (EfficiencyRule* r = find_rule(c.decode_compute_8bit_rules, v.key)) {
            r->value = value;
            widen(*r, value);
        }
        break;
    case FitTarget::runtime_adapter_overhead:
        for (auto& r : c.training_runtimes)
            if (r.id == v.key) r.adapter_step_overhead_s = value;
        break;
    }
}

double g_of(const FittedValue& v, double value) { return v.reciprocal ? 1.0 / value : value; }

// The value whose g is `g`; NaN when none is meaningful (an efficiency needs g > 0, an overhead g >= 0).
double value_of_g(const FittedValue& v, double g) {
    if (!std::isfinite(g)) return std::numeric_limits<double>::quiet_NaN();
    if (v.reciprocal) return g > 0 ? 1.0 / g : std::numeric_limits<double>::quiet_NaN();
    return g >= 0 ? g : std::numeric_limits<double>::quiet_NaN();
}

double time_of(const CaseResult& r) { return r.modelled && r.predicted > 0 ? 1.0 / r.predicted : std::numeric_limits<double>::quiet_NaN(); }

// [SECTION] fitting ---------------------------------------------------------------------------------

// The value that reproduces case `k` alone at step `step_s` (NaN: none does).
double root(const FittedValue& v, const FitCase& k, double step_s) {
    if (!k.moved || k.slope == 0) return std::numeric_limits<double>::quiet_NaN();
    return value_of_g(v, (k.time - k.base - k.step_slope * step_s) / k.slope);
}

double median(std::vector<double> xs) {
    std::sort(xs.begin(), xs.end());
    const size_t n = xs.size();
    return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

// Minimizes `cost` over [lo, hi]: a scan of 2,000 steps, then golden-section search in the best step's neighbours.
template <class F> double minimize(F cost, double lo, double hi) {
    constexpr int kSteps = 2000;
    const double h = (hi - lo) / kSteps;
    double best = lo, best_cost = cost(lo);
    for (int i = 1; i <= kSteps; ++i) {
        const double x = lo + i * h, c = cost(x);
        if (c < best_cost) best = x, best_cost = c;
    }
    double a = std::max(lo, best - h), b = std::min(hi, best + h);
    const double phi = 0.5 * (std::sqrt(5.0) - 1);
    for (int i = 0; i < 60; ++i) {
        const double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
        if (cost(x1) < cost(x2)) b = x2;
        else a = x1;
    }
    return 0.5 * (a + b);
}

// The least-squares fits over `ks` at step `step_s`: the log error of the predicted figure (the same for its time),
// or the relative error of the predicted time per unit (a step time, as runtimes.json's adapter overheads were fitted).
double least_squares(const FittedValue& v, const std::vector<const FitCase*>& ks, double step_s, bool log_error) {
    auto cost = [&](double x) {
        double s = 0;
        for (const FitCase* k : ks) {
            const double t = k->base + k->slope * g_of(v, x) + k->step_slope * step_s;
            if (!(t > 0)) return std::numeric_limits<double>::infinity();
            const double ratio = k->time / t; // predicted / measured figure; its reciprocal is the time's
            s += log_error ? std::log(ratio) * std::log(ratio) : (1 / ratio - 1) * (1 / ratio - 1);
        }
        return s;
    };
    double hi = 1.0; // an efficiency
    if (!v.reciprocal) {
        hi = 4 * std::max(v.value, 1e-3);
        for (const FitCase* k : ks)
            if (double r = root(v, *k, step_s); std::isfinite(r)) hi = std::max(hi, 4 * r);
    }
    const double lo = v.reciprocal ? 1e-3 : 0.0, x = minimize(cost, lo, hi);
    return x - lo < 1e-9 * (hi - lo) ? lo : x; // the bound itself, not the search's last step beside it
}

// t = base + slope / share + step_slope x step, least squares in (1 / share, step) over `ks`. A negative step is
// held at 0, and one case cannot fit both: the step is then the catalog-wide `prior_step_s` (returned as 0, which
// a rule reads as the catalog-wide step); either way the share is refitted alone.
std::pair<double, double> share_and_step(const std::vector<const FitCase*>& ks, double prior_step_s) {
    double sss = 0, ssq = 0, sqq = 0, ssy = 0, sqy = 0;
    for (const FitCase* k : ks) {
        const double y = k->time - k->base;
        sss += k->slope * k->slope;
        ssq += k->slope * k->step_slope;
        sqq += k->step_slope * k->step_slope;
        ssy += k->slope * y;
        sqy += k->step_slope * y;
    }
    const double det = sss * sqq - ssq * ssq;
    double a = 0, o = 0;
    if (ks.size() >= 2 && std::abs(det) > 1e-12 * sss * sqq) {
        a = (ssy * sqq - sqy * ssq) / det;
        o = (sss * sqy - ssq * ssy) / det;
    }
    if (ks.size() < 2 || !(o >= 0)) {
        const double held = ks.size() < 2 ? prior_step_s : 0;
        double sy = 0;
        for (const FitCase* k : ks) sy += k->slope * (k->time - k->base - k->step_slope * held);
        a = sss > 0 ? sy / sss : 0;
        o = 0;
    }
    return {a > 0 ? 1.0 / a : std::numeric_limits<double>::quiet_NaN(), o};
}

struct FamilyPool {
    std::vector<const FitCase*> cases;
    int sources = 0;
    bool with_step = true; // every case was probed with a step (share-and-step rules)
};

// The prior of `v` in a fold whose assumptions are already refitted in `fold`.
Refit prior_of(const FittedValue& v, const Catalog& fold) {
    Refit r;
    r.prior = true;
    auto assumption = [&](const std::string& k) {
        auto it = fold.assumptions.find(k);
        return it == fold.assumptions.end() ? 0.0 : it->second.value;
    };
    switch (v.target) {
    case FitTarget::assumption:
        r.value = v.value;
        for (const auto& p : kAssumptionPriors)
            if (v.key == p.assumption) r.value = *p.from ? assumption(p.from) : p.value;
        break;
    case FitTarget::decode_bandwidth_rule: r.value = assumption("decode_bandwidth_efficiency"); break;
    case FitTarget::training_mfu_rule: r.value = assumption("training_mfu"); break;
    case FitTarget::decode_compute_8bit_rule: r.value = assumption("decode_compute_efficiency_8bit"); break;
    case FitTarget::runtime_adapter_overhead: r.value = 0; break;
    }
    return r;
}

} // namespace

std::string_view name(FitMethod m) {
    switch (m) {
    case FitMethod::median: return "median";
    case FitMethod::log_least_squares: return "log least squares";
    case FitMethod::relative_least_squares: return "relative least squares";
    case FitMethod::anchor: return "anchor case";
    case FitMethod::share_and_step: return "share and step (least squares)";
    case FitMethod::share_at_linked_step: return "share at a linked step";
    }
    return "";
}

std::string source_key(const MeasurementSource& s) {
    if (s.url.empty()) return s.title + " | " + s.publisher;
    std::string k = s.url.substr(0, s.url.find('#'));
    while (!k.empty() && (k.back() == '/' || k.back() == ' ')) k.pop_back();
    for (char& ch : k) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    // A file in a GitHub repository at one commit is that repository's release, not a source of its own: MaxText's
    // v4, v5e and v5p READMEs of one commit are one team's one measurement campaign, and counting them as three let
    // each refit from the other two when it was left out. So the repository at its commit (or branch) is the source,
    // except a results repository that gathers other publishers' submissions (MLCommons' inference_results_vX: one
    // folder per submitter, closed/<org>/...), where the submitter is.
    static const std::string gh = "https://github.com/";
    if (k.rfind(gh, 0) != 0) return k;
    std::vector<std::string> part;
    for (size_t at = gh.size(); at <= k.size();) {
        const size_t slash = std::min(k.find('/', at), k.size());
        part.push_back(k.substr(at, slash - at));
        at = slash + 1;
    }
    if (part.size() < 4 || (part[2] != "blob" && part[2] != "tree" && part[2] != "raw")) return k;
    std::string key = gh + part[0] + "/" + part[1] + "@" + part[3];
    if (part[0] == "mlcommons" && part[1].rfind("inference_results_", 0) == 0 && part.size() >= 6) key += "/" + part[4] + "/" + part[5];
    return key;
}

// [SECTION] probing ------------------------------------------------------------------------------------

FitSet probe_fits(const Catalog& catalog, const std::vector<CaseResult>& results) {
    FitSet f;
    f.values = fitted_values(catalog);
    Catalog work = catalog;
    for (const FittedValue& v : f.values) {
        work = catalog; // the last value's probes widened its band: start each value from the catalog itself
        std::vector<FitCase> ks;
        std::vector<std::string> sources;
        for (const std::string& id : v.calibrated_by) {
            auto hit = std::find_if(results.begin(), results.end(), [&](const CaseResult& c) { return c.m.id == id; });
            if (hit == results.end() || hit->m.split != "calibration" || !hit->modelled) continue;
            FitCase k;
            k.id = id;
            k.source = source_key(hit->m.source);
            k.time = 1.0 / hit->m.measured_si;
            const double t0 = time_of(*hit);
            // The value moved by a fifth (an efficiency down, an overhead or byte count up from at least a small figure).
            const double v1 = v.reciprocal ? 0.8 * v.value : std::max(1.25 * v.value, v.value + 1e-3);
            set_value(work, v, v1, v.step_s);
            const double t1 = time_of(run_case(hit->m, work));
            double t2 = t0;
            const bool with_step = v.method == FitMethod::share_and_step || v.method == FitMethod::share_at_linked_step;
            constexpr double kStepProbe_s = 1e-3;
            if (with_step) {
                set_value(work, v, v.value, v.step_s + kStepProbe_s);
                t2 = time_of(run_case(hit->m, work));
            }
            set_value(work, v, v.value, v.step_s);
            if (std::isfinite(t0) && std::isfinite(t1) && std::isfinite(t2) && std::abs(t1 - t0) > 1e-9 * t0) {
                k.moved = true;
                k.slope = (t1 - t0) / (g_of(v, v1) - g_of(v, v.value));
                k.step_slope = with_step ? (t2 - t0) / kStepProbe_s : 0;
                k.base = t0 - k.slope * g_of(v, v.value) - k.step_slope * v.step_s;
                if (std::find(sources.begin(), sources.end(), k.source) == sources.end()) sources.push_back(k.source);
            }
            ks.push_back(k);
        }
        f.cases.push_back(std::move(ks));
        f.sources.push_back(std::move(sources));
    }
    return f;
}

// [SECTION] refitting ----------------------------------------------------------------------------------

std::vector<Refit> refit_all(const FitSet& f, const Catalog& catalog, const std::string& left_out, bool keep_untouched) {
    std::vector<Refit> out(f.values.size());
    Catalog fold = catalog; // holds the values refitted so far: a rule's prior reads its assumption's fold value
    const auto wide = catalog.assumptions.find("decode_step_overhead_s");
    const double wide_step_s = wide == catalog.assumptions.end() ? 0 : wide->second.value; // a rule's step 0 means this one
    for (size_t i = 0; i < f.values.size(); ++i) {
        const FittedValue& v = f.values[i];
        Refit& r = out[i];
        const auto& srcs = f.sources[i];
        if (keep_untouched && std::find(srcs.begin(), srcs.end(), left_out) == srcs.end()) {
            r.value = v.value;
            r.step_s = v.step_s;
            r.cases = int(std::count_if(f.cases[i].begin(), f.cases[i].end(), [](const FitCase& k) { return k.moved; }));
            continue;
        }
        std::vector<const FitCase*> ks;
        for (const FitCase& k : f.cases[i])
            if (k.moved && k.source != left_out) ks.push_back(&k);
        r.cases = int(ks.size());
        r.step_s = v.step_s;
        auto roots = [&](double step_s) {
            std::vector<double> xs;
            for (const FitCase* k : ks)
                if (double x = root(v, *k, step_s); std::isfinite(x)) xs.push_back(x);
            return xs;
        };
        // The cases of the other rules of v's runtime family (FittedValue::family) from sources other than the left-out one,
        // one-device rules apart.
        auto family_pool = [&] {
            FamilyPool fp;
            if (v.target != FitTarget::decode_bandwidth_rule || v.family.empty()) return fp;
            std::vector<std::string> seen;
            for (size_t j = 0; j < f.values.size(); ++j) {
                if (j == i || f.values[j].target != FitTarget::decode_bandwidth_rule || f.values[j].family != v.family) continue;
                // A one-device rule (its share held at a family rule's step: FittedValue::linked) measures one chip, not
                // the family: it never stands in for the family's other rules (the M1 Max's K-quant rows, item 83).
                if (!f.values[j].linked.empty()) continue;
                for (const FitCase& k : f.cases[j]) {
                    if (!k.moved || k.source == left_out) continue;
                    fp.cases.push_back(&k);
                    fp.with_step = fp.with_step && k.step_slope != 0;
                    if (std::find(seen.begin(), seen.end(), k.source) == seen.end()) seen.push_back(k.source);
                }
            }
            fp.sources = int(seen.size());
            return fp;
        };
        double value = std::numeric_limits<double>::quiet_NaN();
        switch (v.method) {
        case FitMethod::median:
            if (auto xs = roots(v.step_s); !xs.empty()) value = median(xs);
            break;
        case FitMethod::log_least_squares:
        case FitMethod::relative_least_squares:
            if (!ks.empty()) value = least_squares(v, ks, v.step_s, v.method == FitMethod::log_least_squares);
            break;
        case FitMethod::anchor: {
            const FitCase* a = nullptr;
            for (const FitCase* k : ks)
                if (!v.calibrated_by.empty() && k->id == v.calibrated_by[0]) a = k;
            if (a) value = root(v, *a, v.step_s);
            if (!std::isfinite(value))
                if (auto xs = roots(v.step_s); !xs.empty()) value = median(xs);
            break;
        }
        case FitMethod::share_and_step: {
            // One case cannot separate share and step: it holds the step at its runtime family's, fitted on the
            // family's other rules (at least two sources), where there is one; else at the catalog-wide step.
            double held_step_s = wide_step_s;
            if (ks.size() == 1) {
                const FamilyPool fp = family_pool();
                if (fp.sources >= 2 && fp.with_step) {
                    const double family_step_s = share_and_step(fp.cases, wide_step_s).second;
                    if (family_step_s > 0) held_step_s = family_step_s;
                }
            }
            if (!ks.empty()) std::tie(value, r.step_s) = share_and_step(ks, held_step_s);
            if (ks.size() == 1 && held_step_s != wide_step_s) r.step_s = held_step_s;
            break;
        }
        case FitMethod::share_at_linked_step: {
            double step = 0;
            for (size_t j = 0; j < i; ++j)
                if (f.values[j].id == v.linked) step = out[j].step_s;
            const double at = step > 0 ? step : wide_step_s;
            if (auto xs = roots(at); !xs.empty()) value = median(xs);
            r.step_s = step;
            break;
        }
        }
        if (!std::isfinite(value) && v.target == FitTarget::decode_bandwidth_rule) {
            if (!v.linked.empty()) {
                // A one-device rule with no case left: its family's rule as refitted in this fold (the chip is then
                // planned as its family is, which is what the catalog did before the chip was measured apart).
                for (size_t j = 0; j < i; ++j)
                    if (f.values[j].id == v.linked) value = out[j].value, r.step_s = out[j].step_s, r.family = true;
            } else if (!v.family.empty()) {
                // A rule with no case left: the other rules of its runtime family (the same weight-format kinds under
                // the same runtime, on other device families or backends: llama.cpp's GGUF mat-vec kernels on HBM,
                // GDDR, Vulkan and Apple) fitted together, as one rule, on their cases from the other sources, if
                // those come from at least two sources. A family-wide share and step, not a figure of the left-out
                // source; else (fewer sources) the catalog-wide value below.
                const FamilyPool fp = family_pool();
                if (fp.sources >= 2) {
                    if (fp.with_step && (v.method == FitMethod::share_and_step || v.method == FitMethod::share_at_linked_step)) {
                        std::tie(value, r.step_s) = share_and_step(fp.cases, wide_step_s);
                    } else {
                        std::vector<double> xs;
                        for (const FitCase* k : fp.cases)
                            if (double x = root(v, *k, v.step_s); std::isfinite(x)) xs.push_back(x);
                        if (!xs.empty()) value = median(xs);
                    }
                    r.family = std::isfinite(value);
                }
            }
        }
        if (v.reciprocal && std::isfinite(value)) value = std::min(value, 1.0);
        if (!std::isfinite(value)) {
            const Refit p = prior_of(v, fold);
            r.value = p.value;
            r.step_s = p.step_s;
            r.prior = true;
        } else {
            r.value = value;
        }
        set_value(fold, v, r.value, r.step_s);
    }
    return out;
}

Catalog refitted_catalog(const Catalog& catalog, const FitSet& f, const std::vector<Refit>& refits) {
    Catalog c = catalog;
    for (size_t i = 0; i < f.values.size() && i < refits.size(); ++i) set_value(c, f.values[i], refits[i].value, refits[i].step_s);
    return c;
}

} // namespace hwplan
