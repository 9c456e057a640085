// validate.cpp: the validation suite's runner. Reads each measurement (schema: catalog/README.md,
// "Measurements"), plans its workload with plan_from_json (the same path as the CLI, the page and the JS
// API), reads the predicted figure, compares it with the published value, and summarizes per split and kind.
#include "hwplan/validate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hwplan/format.h"
#include "hwplan/plan.h"
#include "hwplan/refit.h"
#include "json_reader.h"

namespace hwplan {

using detail::json;

namespace {

// [SECTION] kinds, quantities, units ----------------------------------------------------------------

const std::vector<std::string> kKinds = {"memory", "decode", "serving", "training", "embedding"};
const std::vector<std::string> kSplits = {"calibration", "validation"};

// What a measurement compares against, read from the plan's candidate for the workload's device:
//   memory.total_bytes        peak memory per device (weights + KV/activations + gradients + optimizer + overhead)
//   memory.model_state_bytes  weights + gradients + optimizer state per device (ZeRO's "model states")
//   memory.allocated_peak_bytes  the peak without the runtime overhead term (CUDA context, the caching allocator's
//                             cached blocks): what torch.cuda.max_memory_allocated() reports, which scripts such as
//                             PEFT's examples (TorchTracemalloc) print; optimizer state in managed memory (paged
//                             optimizers) is left out too, as no PyTorch counter sees it
//   memory.reserved_peak_bytes  the peak the caching allocator holds: the total less the runtime context and the managed
//                             optimizer state (what torch.cuda.max_memory_reserved() reports; PyTorch's docs: memory
//                             "managed by the caching allocator"), as torchtune's memory logs read it
//   kv_cache_tokens           max_concurrent_users x serve.context_tokens: with a context of one KV block,
//                             the tokens of KV cache that fit (what vLLM prints as "# GPU blocks" x block size)
//   kv_cache_capacity_bytes   the same capacity in bytes per device: max_concurrent_users x the KV bytes one
//                             sequence of that context holds on a device (what vLLM logs as available KV cache memory)
//   train_flop_per_s_per_device  the training step's FLOPs per device / its time: the FLOP count the planner
//                             uses (6N + attention, PaLM appendix B; one more forward pass with full
//                             recomputation), to compare with papers that publish achieved TFLOP/s per GPU
//   train_mfu                 the same / the device's dense peak at the step's precision (model FLOPs utilization)
//   figure.NAME               any figure of the candidate (figure.decode_tokens_per_s_per_user, ...)
const std::vector<std::string> kQuantities = {"memory.total_bytes", "memory.model_state_bytes", "memory.allocated_peak_bytes", "memory.reserved_peak_bytes",
                                              "kv_cache_tokens", "kv_cache_capacity_bytes", "train_flop_per_s_per_device", "train_mfu"};

struct Unit {
    const char* name;
    double to_si;
    const char* si;
    bool reciprocal = false; // a time per token: the rate is 1 / (value x to_si)
    bool per_device = false; // quoted per device: x setup.device_count for the whole system
};
constexpr Unit kUnits[] = {
    {"bytes", 1, "bytes"},       {"MB", 1e6, "bytes"},          {"MiB", 1048576.0, "bytes"},
    {"GB", 1e9, "bytes"},        {"GiB", 1073741824.0, "bytes"}, {"tokens", 1, "tokens"},
    {"blocks", 0, "tokens"},     // x measured.block_tokens
    {"tokens/s", 1, "tokens/s"}, {"items/s", 1, "items/s"},      {"params", 1, "params"},
    {"billion params", 1e9, "params"}, {"ms/token", 1e-3, "tokens/s", true},
    {"s/token", 1, "tokens/s", true},     {"tokens/s/device", 1, "tokens/s", false, true},
    {"TFLOP/s", 1e12, "flop/s"},          {"%", 0.01, "ratio"},
    {"ratio", 1, "ratio"},                {"ms/batch", 1e-3, "items/s", true},
};

const Unit* find_unit(const std::string& name) {
    for (const auto& u : kUnits)
        if (name == u.name) return &u;
    return nullptr;
}

std::string unit_list() {
    std::string s;
    for (const auto& u : kUnits) s += (s.empty() ? "" : ", ") + std::string(u.name);
    return s;
}

// A value in SI shown in the unit a reader expects.
std::string show(double si, const std::string& unit) {
    if (unit == "bytes") return format_sig(si / 1e9, 3) + " GB";
    if (unit == "params") return format_sig(si / 1e9, 3) + "B params";
    if (unit == "flop/s") return format_sig(si / 1e12, 3) + " TFLOP/s";
    if (unit == "ratio") return format_sig(100 * si, 3) + " %";
    return format_sig(si, 3) + " " + unit;
}

std::string percent(double ratio) { return format_sig(100 * ratio, 3) + " %"; }

std::string signed_percent(double ratio) { return (ratio >= 0 ? "+" : "") + format_sig(100 * ratio, 3) + " %"; }

} // namespace

double tolerance_ratio(const std::string& kind) {
    if (kind == "memory") return 0.10;
    if (kind == "decode") return 0.25;
    if (kind == "serving") return 0.35;
    if (kind == "training") return 0.25;
    if (kind == "embedding") return 0.35;
    return 0;
}

// [SECTION] reading a measurement ---------------------------------------------------------------------

Issues parse_measurement(const CatalogFile& file, Measurement& out) {
    Issues issues;
    detail::Context ctx{file.path, issues};
    auto doc = detail::parse_object(file.text, ctx);
    if (!doc) return issues;
    detail::Reader r(ctx, "", *doc);
    Measurement m;
    int device_count = 0;
    m.file = file.path;
    m.id = r.string("id", true).value_or("");
    m.kind = r.choice("kind", true, kKinds).value_or("");
    m.measure = r.string("measure", true).value_or("");
    m.split = r.choice("split", true, kSplits).value_or("");
    if (auto q = r.string("quantity", true)) {
        const bool known = std::find(kQuantities.begin(), kQuantities.end(), *q) != kQuantities.end() || q->rfind("figure.", 0) == 0;
        if (!known) r.error("quantity", "unknown quantity \"" + *q + "\"; expected memory.total_bytes, memory.model_state_bytes, memory.allocated_peak_bytes, memory.reserved_peak_bytes, kv_cache_tokens, kv_cache_capacity_bytes, train_flop_per_s_per_device, train_mfu or figure.NAME");
        else m.quantity = *q;
    }
    r.object("source", true, [&](detail::Reader& s) {
        m.source.title = s.string("title", true).value_or("");
        m.source.publisher = s.string("publisher", true).value_or("");
        m.source.locator = s.string("locator", true).value_or("");
        m.source.quote = s.string("quote", true).value_or("");
        m.source.url = s.string("url", true).value_or("");
        m.source.read_on = s.string("read_on", true).value_or("");
        if (!m.source.read_on.empty() && (m.source.read_on.size() != 10 || m.source.read_on[4] != '-' || m.source.read_on[7] != '-'))
            s.error("read_on", "expected a date YYYY-MM-DD, got \"" + m.source.read_on + "\"");
    });
    r.object("setup", true, [&](detail::Reader& s) {
        const std::string model = s.string("model", true).value_or("");
        const std::string precision = s.string("precision", true).value_or("");
        const std::string batch = s.string("batch", true).value_or("");
        const std::string sequence = s.string("sequence", true).value_or("");
        const std::string runtime = s.string("runtime", true).value_or("");
        const std::string device = s.string("device", true).value_or("");
        const int count = s.integer("device_count", true, 1, 1000000).value_or(0);
        device_count = count;
        const auto notes = s.string("notes", false);
        m.setup_text = model + ", " + precision + ", batch " + batch + ", " + sequence + "; " + std::to_string(count) + " x " + device + " (" +
                       runtime + ")" + (notes ? "; " + *notes : "");
    });
    if (const json* w = r.raw("workload")) {
        if (!w->is_object()) r.error("workload", "expected an object (a hwplan workload, docs/workload.md), got " + detail::type_name(*w));
        else m.workload_json = w->dump();
    } else {
        r.error("workload", "required field is missing");
    }
    r.object("measured", true, [&](detail::Reader& s) {
        const auto value = s.number("value", true, 1e-9, 1e18);
        const auto unit = s.string("unit", true);
        const auto block = s.number("block_tokens", false, 1, 1024);
        const auto batch_items = s.number("batch_items", false, 1, 1e7);
        const auto derived = s.string("derived", false);
        const auto resolution = s.number("resolution", false, 1e-12, 1e18);
        if (!value || !unit) return;
        const Unit* u = find_unit(*unit);
        if (!u) {
            s.error("unit", "unknown unit \"" + *unit + "\"; expected one of " + unit_list());
            return;
        }
        double factor = u->to_si;
        if (std::string(u->name) == "blocks") {
            if (!block) {
                s.error("block_tokens", "required when the unit is blocks (tokens per KV block, 16 in vLLM)");
                return;
            }
            factor = *block;
        }
        if (std::string(u->name) == "ms/batch") {
            if (!batch_items) {
                s.error("batch_items", "required when the unit is ms/batch (items per batch)");
                return;
            }
            m.measured_si = *batch_items / (*value * factor);
        } else {
            m.measured_si = u->reciprocal ? 1.0 / (*value * factor) : *value * factor;
        }
        if (u->per_device) m.measured_si *= std::max(device_count, 1);
        // The step the source rounds to, in the value's own unit (a linear unit only: bytes, tokens, ...).
        if (resolution) {
            if (u->reciprocal || factor <= 0 || std::string(u->name) == "ms/batch") s.error("resolution", "only for a value in a linear unit (bytes, tokens, tokens/s, ...), not " + *unit);
            else m.resolution_si = *resolution * factor * (u->per_device ? std::max(device_count, 1) : 1);
        }
        m.unit_si = u->si;
        m.measured_text = format_sig(*value, 6) + " " + *unit + (derived ? " (" + *derived + ")" : "");
        if (m.resolution_si > 0) m.measured_text += ", published rounded to " + format_sig(*resolution, 6) + " " + *unit;
    });
    if (auto nm = r.string("not_modelled", false)) m.not_modelled = *nm;
    r.finish();
    if (!m.quantity.empty() && !m.unit_si.empty()) {
        const std::string want = m.quantity.rfind("memory.", 0) == 0 || m.quantity == "kv_cache_capacity_bytes" ? "bytes"
                                 : m.quantity == "train_flop_per_s_per_device" ? "flop/s"
                                 : m.quantity == "train_mfu"               ? "ratio"
                                                                           : "";
        const bool ok = want.empty() ? (m.unit_si != "bytes" && m.unit_si != "flop/s" && m.unit_si != "ratio") : m.unit_si == want;
        if (!ok)
            issues.push_back({"measured.unit", "quantity " + m.quantity + " is compared in " + (want.empty() ? "a rate or count" : want) +
                                                   " but the unit is " + m.unit_si, file.path});
    }
    if (issues.empty()) out = std::move(m);
    return issues;
}

// [SECTION] one case ------------------------------------------------------------------------------

CaseResult run_case(const Measurement& m, const Catalog& catalog) {
    CaseResult r;
    r.m = m;
    if (!m.not_modelled.empty()) {
        r.reason = m.not_modelled;
        return r;
    }
    const Plan p = plan_from_json(m.workload_json, catalog, false);
    if (!p.issues.empty()) {
        r.reason = "the workload cannot be planned: " + to_string(p.issues.front());
        return r;
    }
    if (p.candidates.empty()) {
        r.reason = "the plan has no candidate device";
        return r;
    }
    const Candidate& c = p.candidates.front();
    if (m.quantity == "memory.total_bytes") {
        r.predicted = c.memory.total_bytes;
        r.low = c.memory.total_low_bytes > 0 ? c.memory.total_low_bytes : r.predicted;
        r.high = c.memory.total_high_bytes > 0 ? c.memory.total_high_bytes : r.predicted;
        r.label = "modelled";
    } else if (m.quantity == "memory.allocated_peak_bytes") {
        // The tensors alone: the overhead term's context and fragmentation are what the allocated counter leaves
        // out, and none of the other terms depends on an assumption's range, so the band is the figure itself.
        r.predicted = r.low = r.high = c.memory.total_bytes - c.memory.overhead_bytes - c.memory.managed_bytes;
        r.high *= 1 + c.memory.unmodelled_high_ratio; // a trainer's declared uncalibrated share (runtimes.json)
        r.label = "modelled";
    } else if (m.quantity == "memory.reserved_peak_bytes") {
        // The caching allocator's peak: allocated tensors and their fragmentation (whose assumption range is the
        // band), without the runtime context and managed memory, which it never holds.
        r.predicted = c.memory.total_bytes - c.memory.context_bytes - c.memory.managed_bytes;
        r.low = std::min(r.predicted, c.memory.reserved_low_bytes);
        r.high = std::max(r.predicted, c.memory.reserved_high_bytes);
        r.label = "modelled";
    } else if (m.quantity == "memory.model_state_bytes") {
        r.predicted = r.low = r.high = c.memory.weights_bytes + c.memory.gradients_bytes + c.memory.optimizer_bytes;
        r.label = "arithmetic";
    } else if (m.quantity == "kv_cache_tokens" || m.quantity == "kv_cache_capacity_bytes") {
        auto it = c.figures.find("max_concurrent_users");
        if (it == c.figures.end()) {
            r.reason = "the plan gives no max_concurrent_users for this stage";
            return r;
        }
        // the context the plan resolved: the workload's serve.context_tokens
        const json w = json::parse(m.workload_json);
        const double ctx = w.contains("serve") && w["serve"].contains("context_tokens") ? w["serve"]["context_tokens"].get<double>() : 4096.0;
        const double users = w.contains("serve") && w["serve"].contains("concurrent_users") ? w["serve"]["concurrent_users"].get<double>() : 1.0;
        // per unit of max_concurrent_users: the context's tokens, or the KV bytes one such sequence holds per device
        const double per = m.quantity == "kv_cache_tokens" ? ctx : c.memory.kv_cache_bytes / std::max(users, 1.0);
        r.predicted = it->second.value * per;
        r.low = it->second.low * per;
        r.high = it->second.high * per;
        r.label = std::string(name(it->second.label));
    } else if (m.quantity == "train_flop_per_s_per_device" || m.quantity == "train_mfu") {
        auto it = c.figures.find("train_tokens_per_s");
        if (it == c.figures.end() || c.phases.empty() || c.phases.front().time_s <= 0) {
            r.reason = "the plan gives no training step time on " + c.device + (c.regime_why.empty() ? "" : ": " + c.regime_why);
            return r;
        }
        const Phase& step = c.phases.front();
        double scale = step.roofline.flops / step.time_s / it->second.value; // FLOP/s per device per (token/s)
        if (m.quantity == "train_mfu") {
            const Device* d = nullptr;
            for (const auto& dev : catalog.devices)
                if (dev.id == c.device) d = &dev;
            const PeakRate* peak = !d ? nullptr : step.precision == "fp8" ? &d->fp8 : step.precision == "fp16" ? &d->fp16
                                                : step.precision == "fp32" ? &d->fp32 : &d->bf16;
            if (!peak || peak->flop_per_s <= 0) {
                r.reason = "no dense peak for " + step.precision + " on " + c.device;
                return r;
            }
            scale /= peak->flop_per_s;
        }
        r.predicted = it->second.value * scale;
        r.low = std::min(it->second.low, it->second.high) * scale;
        r.high = std::max(it->second.low, it->second.high) * scale;
        r.label = std::string(name(it->second.label));
    } else {
        const std::string key = m.quantity.substr(7);
        auto it = c.figures.find(key);
        if (it == c.figures.end()) {
            std::string why = "the plan leaves out " + key + " on " + c.device;
            for (const auto& n : c.notes)
                if (n.find("not modelled") != std::string::npos || n.find("no published") != std::string::npos) why += ": " + n;
            if (!c.regime_why.empty() && c.regime_why.find("not modelled") != std::string::npos) why += ": " + c.regime_why;
            r.reason = why;
            return r;
        }
        r.predicted = it->second.value;
        r.low = std::min(it->second.low, it->second.high);
        r.high = std::max(it->second.low, it->second.high);
        r.label = std::string(name(it->second.label));
    }
    if (!std::isfinite(r.predicted) || r.predicted <= 0) {
        r.reason = "the plan's " + m.quantity + " is " + format_sig(r.predicted, 3) + " (no usable prediction)";
        return r;
    }
    r.modelled = true;
    r.error_ratio = (r.predicted - m.measured_si) / m.measured_si;
    r.within = std::abs(r.error_ratio) <= tolerance_ratio(m.kind) + 1e-12;
    // A published value rounded to a step stands for the half step either side of it (DeepSpeed's estimator
    // prints "6.10GB"): the band holds it when the two ranges meet.
    const double eps = 1e-9 * m.measured_si + m.resolution_si / 2;
    r.in_band = r.low - eps <= m.measured_si && m.measured_si <= r.high + eps;
    if (!c.fits) r.label += ", plan says it does not fit";
    return r;
}

// [SECTION] the suite ------------------------------------------------------------------------------

namespace {

KindSummary summarize(const std::vector<const CaseResult*>& rs) {
    KindSummary s;
    std::vector<double> errors;
    int within = 0, band = 0;
    for (const CaseResult* r : rs) {
        ++s.cases;
        if (!r->modelled) continue;
        ++s.modelled;
        errors.push_back(std::abs(r->error_ratio));
        within += r->within;
        band += r->in_band;
    }
    if (s.modelled > 0) {
        std::sort(errors.begin(), errors.end());
        const size_t n = errors.size();
        s.median_abs_error = n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
        s.within_share = double(within) / s.modelled;
        s.band_share = double(band) / s.modelled;
    }
    return s;
}

// Leave one source out (refit.h): each source that feeds a fitted value is left out in turn, every fitted value it
// feeds is refitted from the other sources' cases (the rest keep the catalog's figure, so a fold differs from today
// only in what the left-out source set), and that source's cases are planned with the refitted catalog. Cases of a
// source that feeds no fitted value keep today's prediction.
void leave_one_source_out(ValidationReport& rep, const Catalog& catalog) {
    rep.loso = rep.results;
    const FitSet f = probe_fits(catalog, rep.results);
    const std::vector<Refit> full = refit_all(f, catalog, "");
    std::vector<std::string> feeding;
    for (size_t i = 0; i < f.values.size(); ++i) {
        const FittedValue& v = f.values[i];
        FitReport fr;
        fr.id = v.id;
        fr.file = v.file;
        fr.method = std::string(name(v.method));
        fr.prior = v.prior;
        fr.declared = v.declared;
        fr.value = v.value;
        fr.step_s = v.step_s;
        fr.refit = full[i].value;
        fr.refit_step_s = full[i].step_s;
        fr.cases = full[i].cases;
        fr.sources = f.sources[i];
        fr.loso_low = std::numeric_limits<double>::infinity();
        fr.loso_high = -fr.loso_low;
        rep.fits.push_back(fr);
        for (const auto& s : f.sources[i])
            if (std::find(feeding.begin(), feeding.end(), s) == feeding.end()) feeding.push_back(s);
    }
    for (const std::string& s : feeding) {
        const std::vector<Refit> refits = refit_all(f, catalog, s, true);
        for (size_t i = 0; i < f.values.size(); ++i) {
            if (std::find(f.sources[i].begin(), f.sources[i].end(), s) == f.sources[i].end()) continue;
            FitReport& fr = rep.fits[i];
            if (refits[i].value < fr.loso_low) fr.loso_low = refits[i].value, fr.loso_low_step_s = refits[i].step_s;
            if (refits[i].value > fr.loso_high) fr.loso_high = refits[i].value, fr.loso_high_step_s = refits[i].step_s;
            fr.loso_priors += refits[i].prior;
            fr.loso_family += refits[i].family;
        }
        const Catalog fold = refitted_catalog(catalog, f, refits);
        // Its cases that feed no value (other kinds, validation rows) are planned with the same fold.
        for (size_t i = 0; i < rep.results.size(); ++i)
            if (source_key(rep.results[i].m.source) == s) rep.loso[i] = run_case(rep.results[i].m, fold);
    }
    for (FitReport& fr : rep.fits)
        if (fr.loso_low > fr.loso_high) fr.loso_low = fr.loso_high = fr.refit, fr.loso_low_step_s = fr.loso_high_step_s = fr.refit_step_s;
}

} // namespace

ValidationReport run_validation(const std::vector<CatalogFile>& files, const Catalog& catalog) {
    ValidationReport rep;
    std::map<std::string, std::string> ids; // id -> file
    for (const auto& f : files) {
        Measurement m;
        Issues is = parse_measurement(f, m);
        if (!is.empty()) {
            rep.issues.insert(rep.issues.end(), is.begin(), is.end());
            continue;
        }
        if (ids.count(m.id)) {
            rep.issues.push_back({"id", "duplicate id \"" + m.id + "\" (also in " + ids[m.id] + ")", f.path});
            continue;
        }
        ids[m.id] = f.path;
        rep.results.push_back(run_case(m, catalog));
    }
    // An assumption may name the measurements that set it (assumptions.json "calibrated_by"): each must be
    // in the suite and in the calibration split; a validation case is never used for fitting.
    // Efficiency rules (efficiencies.json) and runtime timings (runtimes.json) likewise.
    auto check_calibrated_by = [&](const std::vector<std::string>& list, const std::string& prefix, const std::string& file,
                                   const std::string& key = "calibrated_by") {
        for (size_t i = 0; i < list.size(); ++i) {
            const std::string& id = list[i];
            const std::string path = prefix + "." + key + "[" + std::to_string(i) + "]";
            auto hit = std::find_if(rep.results.begin(), rep.results.end(), [&](const CaseResult& c) { return c.m.id == id; });
            if (hit == rep.results.end())
                rep.issues.push_back({path, "names \"" + id + "\", which is not a measurement in the suite", file});
            else if (hit->m.split != "calibration")
                rep.issues.push_back({path, "names \"" + id + "\", a validation case: only calibration cases may set an assumption", file});
        }
    };
    for (const auto& [name, d] : catalog.assumptions) check_calibrated_by(d.calibrated_by, "assumptions." + name, "assumptions.json");
    for (const auto& r : catalog.decode_bandwidth_rules) check_calibrated_by(r.calibrated_by, "decode_bandwidth_efficiency." + r.id, "efficiencies.json");
    for (const auto& r : catalog.training_mfu_rules) check_calibrated_by(r.calibrated_by, "training_mfu." + r.id, "efficiencies.json");
    for (const auto& r : catalog.training_attention_rules)
        check_calibrated_by(r.calibrated_by, "training_attention_efficiency." + r.id, "efficiencies.json");
    for (const auto& r : catalog.training_runtimes)
        check_calibrated_by(r.adapter_timing_calibrated_by, "runtimes." + r.id, "runtimes.json", "adapter_timing_calibrated_by");
    auto order = [](const std::string& kind) { return std::find(kKinds.begin(), kKinds.end(), kind) - kKinds.begin(); };
    std::sort(rep.results.begin(), rep.results.end(), [&](const CaseResult& a, const CaseResult& b) {
        if (a.m.split != b.m.split) return a.m.split < b.m.split;
        if (a.m.kind != b.m.kind) return order(a.m.kind) < order(b.m.kind);
        return a.m.id < b.m.id;
    });
    leave_one_source_out(rep, catalog);
    for (const std::string& split : {std::string("calibration"), std::string("validation"), std::string("all"), std::string("loso")}) {
        const std::vector<CaseResult>& results = split == "loso" ? rep.loso : rep.results;
        for (const std::string& kind : kKinds) {
            std::vector<const CaseResult*> rs;
            for (const auto& r : results)
                if ((split == "all" || split == "loso" || r.m.split == split) && r.m.kind == kind) rs.push_back(&r);
            if (!rs.empty()) rep.summary[split][kind] = summarize(rs);
        }
        std::vector<const CaseResult*> rs;
        for (const auto& r : results)
            if (split == "all" || split == "loso" || r.m.split == split) rs.push_back(&r);
        if (!rs.empty()) rep.summary[split]["all"] = summarize(rs);
    }
    return rep;
}

// [SECTION] sources ---------------------------------------------------------------------------------

std::vector<SourceSummary> source_summaries(const ValidationReport& r) {
    std::map<std::string, SourceSummary> by_key;
    for (size_t i = 0; i < r.results.size(); ++i) {
        const CaseResult& c = r.results[i];
        const std::string key = source_key(c.m.source);
        SourceSummary& s = by_key[key];
        if (s.cases == 0) {
            s.key = key;
            s.title = c.m.source.title;
            s.publisher = c.m.source.publisher;
            s.url = c.m.source.url;
        }
        ++s.cases;
        if (std::find(s.kinds.begin(), s.kinds.end(), c.m.kind) == s.kinds.end()) s.kinds.push_back(c.m.kind);
        if (!c.modelled) continue;
        ++s.modelled;
        s.within += c.within;
        if (i < r.loso.size() && r.loso[i].modelled) s.loso_within += r.loso[i].within;
    }
    std::vector<SourceSummary> out;
    for (auto& [key, s] : by_key) {
        std::sort(s.kinds.begin(), s.kinds.end(), [](const std::string& a, const std::string& b) {
            return std::find(kKinds.begin(), kKinds.end(), a) < std::find(kKinds.begin(), kKinds.end(), b);
        });
        out.push_back(s);
    }
    std::stable_sort(out.begin(), out.end(), [](const SourceSummary& a, const SourceSummary& b) { return a.cases > b.cases; });
    return out;
}

// [SECTION] output ----------------------------------------------------------------------------------

namespace {

std::string pad(std::string s, size_t n) {
    if (s.size() < n) s.append(n - s.size(), ' ');
    return s;
}

std::string predicted_text(const CaseResult& r) {
    if (!r.modelled) return "not modelled";
    std::string s = show(r.predicted, r.m.unit_si);
    if (r.low != r.high) s += " [" + show(r.low, r.m.unit_si) + " .. " + show(r.high, r.m.unit_si) + "]";
    return s;
}

// Text safe inside a Markdown table cell.
std::string cell(const std::string& s) {
    std::string o;
    for (char ch : s) o += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
    return o;
}

// The summary's splits, leave one source out first: the figure a new source's cases would see.
std::vector<std::string> summary_splits(const ValidationReport& r) {
    std::vector<std::string> out;
    if (r.summary.count("loso")) out.push_back("loso");
    for (const auto& [sp, kinds] : r.summary)
        if (sp != "loso") out.push_back(sp);
    return out;
}

std::vector<std::string> summary_kinds() {
    std::vector<std::string> k = kKinds;
    k.push_back("all");
    return k;
}

std::string fit_value(double v, double step_s) {
    std::string s = format_sig(v, 3);
    if (step_s > 0) s += " + " + format_sig(1e3 * step_s, 3) + " ms";
    return s;
}

std::string loso_range(const FitReport& f) {
    // A decode rule's step is shown beside its share (fit_value), so a fold that moved the step says so.
    std::string s = f.loso_low == f.loso_high && f.loso_low_step_s == f.loso_high_step_s
                        ? fit_value(f.loso_low, f.loso_low_step_s)
                        : fit_value(f.loso_low, f.loso_low_step_s) + " .. " + fit_value(f.loso_high, f.loso_high_step_s);
    if (f.loso_priors > 0) s += " (prior in " + std::to_string(f.loso_priors) + ")";
    if (f.loso_family > 0) s += " (family in " + std::to_string(f.loso_family) + ")";
    return s;
}

std::string fit_label(const FitReport& f) {
    std::string s;
    if (f.sources.size() == 1) s = "fitted on one source";
    if (f.cases == 0) s = "no case moves it";
    if (!f.declared) s += std::string(s.empty() ? "" : "; ") + "fit method not declared";
    return s;
}

// The cases whose leave-one-source-out prediction differs from today's.
std::vector<size_t> loso_changed(const ValidationReport& r) {
    std::vector<size_t> out;
    for (size_t i = 0; i < r.results.size() && i < r.loso.size(); ++i)
        if (r.results[i].modelled != r.loso[i].modelled || r.results[i].predicted != r.loso[i].predicted) out.push_back(i);
    return out;
}

std::string error_text(const CaseResult& c) {
    if (!c.modelled) return "not modelled";
    return signed_percent(c.error_ratio) + (c.within ? "" : " (out)") + (c.in_band ? "" : " (band misses)");
}

} // namespace

std::string render_validation_table(const ValidationReport& r) {
    std::string out;
    std::string split;
    size_t idw = 4;
    for (const auto& c : r.results) idw = std::max(idw, c.m.id.size() + 2);
    for (const auto& c : r.results) {
        if (c.m.split != split) {
            split = c.m.split;
            out += "\n== " + split + " ==\n";
            out += pad("id", idw) + pad("kind", 10) + pad("measured", 18) + pad("predicted [low .. high]", 46) + pad("error", 10) +
                   pad("within", 8) + "in band\n";
        }
        out += pad(c.m.id, idw) + pad(c.m.kind, 10) + pad(show(c.m.measured_si, c.m.unit_si), 18) + pad(predicted_text(c), 46);
        if (c.modelled) {
            out += pad(signed_percent(c.error_ratio), 10) + pad(c.within ? "yes" : "NO", 8) + (c.in_band ? "yes" : "NO") + "\n";
        } else {
            out += "\n    not modelled: " + c.reason + "\n";
        }
    }
    out += "\nSummary (tolerance: memory 10 %, decode 25 %, serving 35 %, training 25 %, embedding 35 %)\n";
    out += pad("split", 13) + pad("kind", 11) + pad("cases", 7) + pad("modelled", 10) + pad("median |error|", 16) + pad("within tol.", 13) +
           "band holds\n";
    for (const auto& sp : summary_splits(r))
        for (const auto& k : summary_kinds()) {
            auto it = r.summary.at(sp).find(k);
            if (it == r.summary.at(sp).end()) continue;
            const KindSummary& s = it->second;
            out += pad(sp, 13) + pad(k, 11) + pad(std::to_string(s.cases), 7) + pad(std::to_string(s.modelled), 10) +
                   pad(percent(s.median_abs_error), 16) + pad(percent(s.within_share), 13) + percent(s.band_share) + "\n";
        }
    out += "(loso: every case, each predicted with the fitted values refitted without its own source's cases)\n";
    if (!r.fits.empty()) {
        size_t w = 4;
        for (const auto& f : r.fits) w = std::max(w, f.id.size() + 2);
        out += "\nFitted values (refit: from all their calibration cases; loso: with one of their sources left out)\n";
        out += pad("id", w) + pad("method", 32) + pad("cases", 7) + pad("sources", 9) + pad("catalog", 18) + pad("refit", 18) + pad("loso", 44) + "\n";
        for (const auto& f : r.fits)
            out += pad(f.id, w) + pad(f.method, 32) + pad(std::to_string(f.cases), 7) + pad(std::to_string(f.sources.size()), 9) +
                   pad(fit_value(f.value, f.step_s), 18) + pad(fit_value(f.refit, f.refit_step_s), 18) + pad(loso_range(f), 44) + fit_label(f) + "\n";
    }
    const auto changed = loso_changed(r);
    if (!changed.empty()) {
        size_t w = 4;
        for (size_t i : changed) w = std::max(w, r.results[i].m.id.size() + 2);
        out += "\nCases whose leave-one-source-out prediction differs from today's\n";
        out += pad("id", w) + pad("kind", 10) + pad("today", 30) + "leave one source out\n";
        for (size_t i : changed)
            out += pad(r.results[i].m.id, w) + pad(r.results[i].m.kind, 10) + pad(error_text(r.results[i]), 30) + error_text(r.loso[i]) + "\n";
    }
    for (const auto& i : r.issues) out += "problem: " + to_string(i) + "\n";
    return out;
}

std::string render_validation_markdown(const ValidationReport& r) {
    std::string out;
    out += "### Summary\n\n| split | kind | cases | modelled | median abs. error | within tolerance | band holds the measurement |\n";
    out += "|---|---|---:|---:|---:|---:|---:|\n";
    for (const auto& sp : summary_splits(r))
        for (const auto& k : summary_kinds()) {
            auto it = r.summary.at(sp).find(k);
            if (it == r.summary.at(sp).end()) continue;
            const KindSummary& s = it->second;
            out += "| " + (sp == "loso" ? std::string("**leave one source out** (loso)") : sp) + " | " + k + " | " + std::to_string(s.cases) + " | " + std::to_string(s.modelled) + " | " +
                   percent(s.median_abs_error) + " | " + percent(s.within_share) + " | " + percent(s.band_share) + " |\n";
        }
    out += "\nThe split `loso` (leave one source out) holds every case, each predicted with the catalog's fitted values refitted "
           "without its own source's cases.\n";
    if (!r.fits.empty()) {
        out += "\n### Fitted values\n\n| value | file | method | cases | sources | catalog | refit from all cases | leave one source out | |\n";
        out += "|---|---|---|---:|---:|---:|---:|---:|---|\n";
        for (const auto& f : r.fits)
            out += "| `" + f.id + "` | " + f.file + " | " + f.method + " | " + std::to_string(f.cases) + " | " + std::to_string(f.sources.size()) + " | " +
                   fit_value(f.value, f.step_s) + " | " + fit_value(f.refit, f.refit_step_s) + " | " + loso_range(f) + " | " + fit_label(f) + " |\n";
    }
    const auto changed = loso_changed(r);
    if (!changed.empty()) {
        out += "\n### Cases whose leave-one-source-out prediction differs\n\n| id | kind | split | today | leave one source out |\n";
        out += "|---|---|---|---|---|\n";
        for (size_t i : changed)
            out += "| `" + r.results[i].m.id + "` | " + r.results[i].m.kind + " | " + r.results[i].m.split + " | " + error_text(r.results[i]) + " | " +
                   error_text(r.loso[i]) + " |\n";
    }
    const auto sources = source_summaries(r);
    if (!sources.empty()) {
        out += "\n### Sources\n\n" + std::to_string(r.results.size()) + " cases from " + std::to_string(sources.size()) +
               " sources (a source: what leave one source out leaves out, the URL without its anchor, a GitHub repository at one commit).\n\n"
               "| source | kinds | cases | modelled | within tolerance | leave one source out: within |\n|---|---|---:|---:|---:|---:|\n";
        for (const auto& s : sources) {
            std::string kinds;
            for (const auto& k : s.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
            out += "| [" + cell(s.title) + "](" + s.url + "), " + cell(s.publisher) + " | " + kinds + " | " + std::to_string(s.cases) + " | " +
                   std::to_string(s.modelled) + " | " + std::to_string(s.within) + " | " + std::to_string(s.loso_within) + " |\n";
        }
    }
    std::string split;
    for (const auto& c : r.results) {
        if (c.m.split != split) {
            split = c.m.split;
            out += "\n### " + split + " cases\n\n| id | kind | setup | measured | predicted [low .. high] | error | within | in band | source |\n";
            out += "|---|---|---|---|---|---:|---|---|---|\n";
        }
        out += "| `" + c.m.id + "` | " + c.m.kind + " | " + cell(c.m.setup_text) + " | " + cell(c.m.measured_text) + " | " + predicted_text(c) + " | ";
        if (c.modelled) out += signed_percent(c.error_ratio) + " | " + (c.within ? "yes" : "**no**") + " | " + (c.in_band ? "yes" : "**no**");
        else out += "- | - | - (" + cell(c.reason) + ")";
        out += " | [" + cell(c.m.source.title) + "](" + c.m.source.url + "), " + cell(c.m.source.locator) + " |\n";
    }
    return out;
}

std::string validation_json(const ValidationReport& r) {
    json cases = json::array();
    for (const auto& c : r.results) {
        json j = {{"id", c.m.id}, {"file", c.m.file}, {"kind", c.m.kind}, {"measure", c.m.measure}, {"split", c.m.split},
                  {"quantity", c.m.quantity}, {"measured", c.m.measured_si}, {"unit", c.m.unit_si}, {"modelled", c.modelled}};
        if (c.modelled) {
            j["predicted"] = c.predicted;
            j["low"] = c.low;
            j["high"] = c.high;
            j["error_ratio"] = c.error_ratio;
            j["within_tolerance"] = c.within;
            j["in_band"] = c.in_band;
            j["label"] = c.label;
        } else {
            j["reason"] = c.reason;
        }
        const size_t i = cases.size();
        if (i < r.loso.size() && r.loso[i].modelled)
            j["loso"] = {{"predicted", r.loso[i].predicted}, {"low", r.loso[i].low}, {"high", r.loso[i].high}, {"error_ratio", r.loso[i].error_ratio},
                         {"within_tolerance", r.loso[i].within}, {"in_band", r.loso[i].in_band}};
        cases.push_back(j);
    }
    json fits = json::array();
    for (const auto& f : r.fits)
        fits.push_back({{"id", f.id}, {"file", f.file}, {"method", f.method}, {"declared", f.declared}, {"prior", f.prior}, {"value", f.value},
                        {"step_s", f.step_s}, {"refit", f.refit}, {"refit_step_s", f.refit_step_s}, {"cases", f.cases}, {"sources", f.sources},
                        {"one_source", f.sources.size() == 1}, {"loso_low", f.loso_low}, {"loso_high", f.loso_high}, {"loso_priors", f.loso_priors}, {"loso_family", f.loso_family},
                        {"loso_low_step_s", f.loso_low_step_s}, {"loso_high_step_s", f.loso_high_step_s}});
    json out = {{"cases", cases}, {"fits", fits}, {"summary", json::parse(baseline_json(r))["summary"]}};
    json issues = json::array();
    for (const auto& i : r.issues) issues.push_back(to_string(i));
    out["issues"] = issues;
    return out.dump(2);
}

std::string baseline_json(const ValidationReport& r) {
    auto round4 = [](double x) { return std::round(x * 1e4) / 1e4; };
    json summary = json::object();
    for (const auto& [sp, kinds] : r.summary)
        for (const auto& [k, s] : kinds)
            summary[sp][k] = {{"cases", s.cases}, {"modelled", s.modelled}, {"median_abs_error", round4(s.median_abs_error)},
                              {"within_share", round4(s.within_share)}, {"band_share", round4(s.band_share)}};
    json out = {{"recorded_with", "hwplan validate --record tests/validation/baseline.json"}, {"summary", summary}};
    return out.dump(2) + "\n";
}

// [SECTION] the gate --------------------------------------------------------------------------------

Issues check_baseline(const ValidationReport& r, const std::string& baseline_text) {
    Issues issues;
    json base;
    try {
        base = json::parse(baseline_text);
    } catch (const json::parse_error&) {
        issues.push_back({"", "the baseline is not valid JSON"});
        return issues;
    }
    if (!base.is_object() || !base.contains("summary") || !base["summary"].is_object()) {
        issues.push_back({"summary", "the baseline has no summary object"});
        return issues;
    }
    constexpr double kSlack = 1e-4; // the baseline keeps four decimals
    for (const auto& [sp, kinds] : base["summary"].items()) {
        if (!kinds.is_object()) continue;
        for (const auto& [k, b_] : kinds.items()) {
            const json& b = b_; // clang 14 (the fuzz preset) cannot capture a structured binding in a lambda
            const std::string path = "summary." + sp + "." + k;
            auto si = r.summary.find(sp);
            if (si == r.summary.end() || !si->second.count(k)) {
                issues.push_back({path, "recorded but no longer measured"});
                continue;
            }
            const KindSummary& s = si->second.at(k);
            const auto& recorded = b; // a named reference: clang 14 (Emscripten 3.1.6) cannot capture a structured binding
            auto num = [&recorded](const char* key) {
                return recorded.contains(key) && recorded[key].is_number() ? recorded[key].get<double>() : 0.0;
            };
            if (s.modelled < num("modelled"))
                issues.push_back({path + ".modelled", std::to_string(s.modelled) + " cases modelled, " + format_sig(num("modelled"), 6) + " recorded"});
            if (s.within_share + kSlack < num("within_share"))
                issues.push_back({path + ".within_share", "within tolerance fell to " + percent(s.within_share) + " from " + percent(num("within_share"))});
            if (s.band_share + kSlack < num("band_share"))
                issues.push_back({path + ".band_share", "band coverage fell to " + percent(s.band_share) + " from " + percent(num("band_share"))});
            if (b.contains("median_abs_error") && s.median_abs_error > num("median_abs_error") + kSlack)
                issues.push_back({path + ".median_abs_error", "median error rose to " + percent(s.median_abs_error) + " from " +
                                                                  percent(num("median_abs_error"))});
        }
    }
    return issues;
}

} // namespace hwplan
