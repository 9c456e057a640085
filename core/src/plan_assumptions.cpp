// plan_assumptions.cpp: the assumptions each device is planned under, and what the plan says about them: the
// efficiency rules measured for its family and runtime (catalog/efficiencies.json), the user's own calibrations,
// which figures are calibrated and from what, and the inputs the user did not give (missing assumptions).
#include <algorithm>
#include <map>

#include "hwplan/format.h"
#include "plan_eval.h"

namespace hwplan::plan_detail {

// [SECTION] efficiency rules per device -------------------------------------------------------------

namespace {

// The first rule of `rules` that matches the device, its runtime (the workload's framework as given, so a
// backend variant such as "llama.cpp-vulkan" takes only rules that name it, else llama.cpp-style on SoCs, CPUs
// and NPUs and a serving engine or trainer on discrete accelerators) and the
// kind of the weight format (llama.cpp's block-quantized GGUF kernels dequantize as they read and reach a
// smaller share of bandwidth than its F16 ones: efficiencies.json).
// Training rules (`trainer` set) match the workload's training runtime (train.runtime) instead: a rule that names
// trainers applies only to them, and is tried before the family's own.
const EfficiencyRule* matching_rule(const std::vector<EfficiencyRule>& rules, const Workload& w, const Catalog& cat, const Device& d,
                                    bool trainer = false) {
    auto has = [](const std::vector<std::string>& list, const std::string& x) { return list.empty() || std::find(list.begin(), list.end(), x) != list.end(); };
    const std::string runtime = trainer ? w.train.runtime : !w.framework.empty() ? w.framework : local_runtime(d) ? "llama.cpp" : "serving-engine";
    const WeightFormat* f = cat.find_format(w.precision.weights);
    const std::string format_kind = f ? f->kind : "float";
    const std::string format_name = f ? f->name : w.precision.weights; // find_format is case-insensitive, the rules name ids
    const std::string kind(name(d.kind));
    // Rules that name weight formats are tried first, and among them rules that name devices before family
    // rules (the catalog's rules are read in key order, so the more specific rule must win by what it says,
    // not where it sits): one chip measured apart from its family keeps its own figure.
    for (const bool by_format : {true, false})
        for (const bool by_device : {true, false})
            for (const bool by_framework : {true, false}) {
                if (!trainer && !by_framework) continue; // only training rules are ordered by framework: a second pass would repeat the first
                for (const auto& r : rules) {
                    if ((r.weight_format_kinds.empty() && r.weight_formats.empty()) == by_format || r.devices.empty() == by_device) continue;
                    if (trainer && r.frameworks.empty() == by_framework) continue;
                    if (!has(r.kinds, kind) || !has(r.vendors, d.vendor) || !has(r.devices, d.id)) continue;
                    if (!r.memory_type_prefix.empty() && d.memory_type.rfind(r.memory_type_prefix, 0) != 0) continue;
                    if (!has(r.frameworks, runtime)) continue;
                    if (!has(r.weight_format_kinds, format_kind)) continue;
                    if (!has(r.weight_formats, format_name)) continue;
                    return &r;
                }
            }
    return nullptr;
}

} // namespace

// An MFU the user measured (a workload override or a calibration) is end to end: it already holds the step's
// attention and FP8 casts, so they are not priced apart as well (unless the user pinned them too).
void end_to_end_mfu(AssumptionSet& das, const EfficiencyRule*& attention_rule) {
    for (const char* key : {"training_attention_efficiency", "training_fp8_cast_bytes_per_element", "training_elementwise_bytes_per_element"}) {
        const auto src = das.source.find(key);
        if (src != das.source.end() && (src->second == "workload" || src->second == "calibration")) continue;
        double Assumptions::*field = assumption_member(key);
        das.typical.*field = das.low.*field = das.high.*field = 0;
        das.source[key] = "training_mfu";
        if (std::string(key) == "training_attention_efficiency") attention_rule = nullptr;
    }
}

bool cpu_decode_uncalibrated(const AssumptionSet& as, const Workload& w, const Device& d, const EfficiencyRule* decode_rule) {
    if (decode_rule || d.kind != DeviceKind::cpu) return false;
    if (!(w.stage == Stage::serve || w.stage == Stage::batch || w.stage == Stage::edge)) return false;
    const auto src = as.source.find("decode_bandwidth_efficiency");
    return !(src != as.source.end() && (src->second == "workload" || src->second == "calibration")) && as.typical.cpu_decode_bandwidth_efficiency_low > 0;
}

// Pretraining on another vendor's accelerator that no family basis covers: the catalog-wide basis was measured on NVIDIA
// H100 under PyTorch (assumptions.json training_mfu), so there it is kept as the point estimate but is not calibrated, and
// the band spans every family basis the catalog records (training_mfu_uncalibrated_low/high). Not when the user pinned
// or calibrated the MFU.
bool training_basis_uncalibrated(const AssumptionSet& as, const Workload& w, const Device& d, const EfficiencyRule* mfu_rule) {
    if (mfu_rule || w.stage != Stage::pretrain || d.vendor == "NVIDIA") return false;
    const auto src = as.source.find("training_mfu");
    return !(src != as.source.end() && (src->second == "workload" || src->second == "calibration")) && as.typical.training_mfu_uncalibrated_high > 0;
}

// An encoder batch on another vendor's accelerator (Neuron, XLA on TPU, ROCm, Metal, a CPU) with no encoder runtime named:
// the default profile is TensorRT's fused engine, and encoder_compute_efficiency was calibrated under it on NVIDIA A100
// (runtimes.json encoder_runtimes tensorrt calibrated_by); neither runs there. Not when the user pinned or calibrated the
// efficiency (their own stack's measurement).
bool encoder_runtime_uncalibrated(const AssumptionSet& as, const Catalog& cat, const Workload& w, const Device& d) {
    if (w.stage != Stage::embed || !w.embed.runtime.empty() || d.vendor == "NVIDIA") return false;
    if (const EncoderRuntime* r = encoder_runtime_for(cat, w, d); r && !r->default_on_stack.empty()) return false; // its stack's own
    const auto src = as.source.find("encoder_compute_efficiency");
    return !(src != as.source.end() && (src->second == "workload" || src->second == "calibration"));
}

// Efficiencies measured for the device's family and runtime (catalog/efficiencies.json) replace the
// catalog-wide ones, unless the workload pinned them: decode bandwidth efficiency, pretraining MFU, training's
// attention share and a decode step's GEMM share of an 8-bit peak.
AssumptionSet device_assumptions(const AssumptionSet& as, const Catalog& cat, const Workload& w, const Device& d,
                                 const EfficiencyRule*& decode_rule, const EfficiencyRule*& mfu_rule, const EfficiencyRule*& attention_rule,
                                 const EfficiencyRule*& gemm_rule) {
    // The three cases, and of the sources only the values the user set (or calibrated) and what this device changes:
    // every later reader of a device's sources asks only whether a value is the user's ("workload", "calibration";
    // end_to_end_mfu, apply_calibrations, label_calibrated). The whole map, copied for every device of every plan,
    // was a tenth of a bank plan's allocations.
    AssumptionSet out{.typical = as.typical, .low = as.low, .high = as.high, .source = {}};
    for (const auto& [key, src] : as.source)
        if (src == "workload" || src == "calibration") out.source.emplace_hint(out.source.end(), key, src);
    auto apply = [&](const std::vector<EfficiencyRule>& rules, const char* key, double Assumptions::*field, bool trainer = false) -> const EfficiencyRule* {
        const auto src = as.source.find(key);
        if (src != as.source.end() && src->second == "workload") return nullptr;
        const EfficiencyRule* r = matching_rule(rules, w, cat, d, trainer);
        if (!r) return nullptr;
        out.typical.*field = r->value;
        out.low.*field = r->low;
        out.high.*field = r->high;
        out.source[key] = r->source;
        return r;
    };
    decode_rule = apply(cat.decode_bandwidth_rules, "decode_bandwidth_efficiency", &Assumptions::decode_bandwidth_efficiency);
    // A CPU that no decode rule covers takes the catalog-wide share, measured on GPU backends: the slow end reaches the
    // declared CPU low (assumptions.json cpu_decode_bandwidth_efficiency_low, a CPU backend's share of a chip's peak), the
    // point estimate does not move, and the plan says the share is not calibrated for CPUs (plan.cpp). Serving stages only.
    if (cpu_decode_uncalibrated(as, w, d, decode_rule))
        out.low.decode_bandwidth_efficiency = std::min(out.low.decode_bandwidth_efficiency, out.typical.cpu_decode_bandwidth_efficiency_low);
    // A rule fitted with its own fixed step time (llama.cpp's quantized kernels) sets that too. Share and step
    // were fitted together, so the slow case pairs the smaller share with the longer step (the low set) and
    // the fast case the larger share with the shorter step: the band is the spread of the fit's cases.
    const auto pinned = as.source.find("decode_step_overhead_s");
    if (decode_rule && decode_rule->step_overhead_s > 0 && !(pinned != as.source.end() && pinned->second == "workload")) {
        out.typical.decode_step_overhead_s = decode_rule->step_overhead_s;
        out.low.decode_step_overhead_s = decode_rule->step_overhead_high_s;
        out.high.decode_step_overhead_s = decode_rule->step_overhead_low_s;
        out.source["decode_step_overhead_s"] = decode_rule->source;
    } else if (!(pinned != as.source.end() && pinned->second == "workload")) {
        // The catalog-wide step is a cost measured apart from the share: the slow case (the low set, with the
        // smaller share) takes the longest step and the fast case the shortest, so the band spans both ranges.
        std::swap(out.low.decode_step_overhead_s, out.high.decode_step_overhead_s);
    }
    // A llama.cpp release that launches each decode step as one CUDA graph (serve.runtime naming a decode runtime with
    // graphs_step_saving_s, runtimes.json: llama.cpp pull request #6766, merged in May 2024). Every llama.cpp CUDA rule
    // (efficiencies.json) was measured on builds before it, its fixed step time included the kernel launches graphs
    // remove, so the step is shortened by the launch time that pull request measured them removing: the slow case by
    // the smallest figure, the fast case by the largest, never below zero. CUDA only (NVIDIA GPUs, framework
    // llama.cpp: the Vulkan backend has its own rule and no such measurement). Not when the user pinned the step.
    if (!(pinned != as.source.end() && pinned->second == "workload") && w.framework == "llama.cpp" && d.kind == DeviceKind::gpu && d.vendor == "NVIDIA")
        if (const DecodeRuntime* rt = cat.find_decode_runtime(w.serve.runtime); rt && !w.serve.runtime.empty() && rt->graphs_step_saving_s > 0) {
            out.typical.decode_step_overhead_s = std::max(0.0, out.typical.decode_step_overhead_s - rt->graphs_step_saving_s);
            out.low.decode_step_overhead_s = std::max(0.0, out.low.decode_step_overhead_s - rt->graphs_step_saving_low_s);
            out.high.decode_step_overhead_s = std::max(0.0, out.high.decode_step_overhead_s - rt->graphs_step_saving_high_s);
        }
    mfu_rule = apply(cat.training_mfu_rules, "training_mfu", &Assumptions::training_mfu, true);
    // FP8's cast bytes are a cost, not an efficiency: the slow case (the low set, with the smaller MFU) takes the
    // most bytes and the fast case the fewest, so the band spans both ends of the fit (assumptions.json).
    std::swap(out.low.training_fp8_cast_bytes_per_element, out.high.training_fp8_cast_bytes_per_element);
    // An eager decode loop's host time per operation is a cost too: the slow case pairs the smaller bandwidth share
    // with the dearest operation, the fast case the larger share with the cheapest (assumptions.json eager_op_host_s).
    std::swap(out.low.eager_op_host_s, out.high.eager_op_host_s);
    // A decode runtime whose own step was measured waiting on its host (runtimes.json host_op_s: TGI's flash Llama at
    // tensor parallel, text-generation-inference issue #1315) prices each of its counted operations at that measurement
    // for the point estimate: its Python issues a view, slice, select, module call or collective wrapper for about every
    // kernel it launches, where the gpt-fast blog's eager run behind eager_op_host_s launched several kernels per Python
    // call, so the catalog-wide price per kernel undercounts it. The band keeps eager_op_host_s's low and high (the
    // launch alone; PyTorch's dearest eager dispatch). Serving stages only; not when the user pinned or calibrated it.
    if (w.stage == Stage::serve || w.stage == Stage::batch || w.stage == Stage::edge) {
        const auto eager_src = as.source.find("eager_op_host_s");
        const bool users = eager_src != as.source.end() && (eager_src->second == "workload" || eager_src->second == "calibration");
        if (const DecodeRuntime* rt = cat.find_decode_runtime(w.serve.runtime); !users && rt && !w.serve.runtime.empty() && rt->host_op_s > 0) {
            out.typical.eager_op_host_s = rt->host_op_s;
            out.source["eager_op_host_s"] = rt->host_op_source;
        }
    }
    std::swap(out.low.python_value_round_trip_host_s, out.high.python_value_round_trip_host_s); // likewise (assumptions.json)
    std::swap(out.low.triton_launch_host_s, out.high.triton_launch_host_s);                     // likewise (assumptions.json)
    // So is an eager encoder runtime's launch cost per kernel: the slow case pairs the smaller encoder efficiency with the
    // dearest launch, the fast case the larger with the cheapest (assumptions.json kernel_launch_overhead_s).
    std::swap(out.low.kernel_launch_overhead_s, out.high.kernel_launch_overhead_s);
    // So is the power a power-capped board's idle tensor cycles draw: the slow case takes the most (the clock held at a
    // continuous GEMM's), the fast case the least (assumptions.json power_cap_idle_power_ratio).
    std::swap(out.low.power_cap_idle_power_ratio, out.high.power_cap_idle_power_ratio);
    // A cap that is another board's rule carried over (the T4's measured base-clock rule on the L4 and the A10), not a
    // measurement of this board, bounds nothing known: the fast case runs at the datasheet's boost-clock peak.
    if (d.sustained_16bit_flop_per_s > 0 && !d.sustained_16bit_measured) out.high.power_cap_lifted = 1;
    // Training's attention kernels are the trainer's (train.runtime), not a serving framework's: a rule that names
    // trainers (Megatron-Core's Transformer Engine attention, cuDNN's fused kernels on Hopper) applies only to them and is
    // tried before the family's own (FlashAttention-2 under PyTorch).
    attention_rule = apply(cat.training_attention_rules, "training_attention_efficiency", &Assumptions::training_attention_efficiency, true);
    gemm_rule = apply(cat.decode_compute_8bit_rules, "decode_compute_efficiency_8bit", &Assumptions::decode_compute_efficiency_8bit);
    const auto mfu_src = as.source.find("training_mfu");
    if (mfu_src != as.source.end() && mfu_src->second == "workload") end_to_end_mfu(out, attention_rule);
    if (training_basis_uncalibrated(as, w, d, mfu_rule)) {
        out.low.training_mfu = std::min(out.low.training_mfu, out.typical.training_mfu_uncalibrated_low);
        out.high.training_mfu = std::max(out.high.training_mfu, out.typical.training_mfu_uncalibrated_high);
    }
    return out;
}

// [SECTION] the user's calibrations (catalog.h, Calibration) --------------------------------------

namespace {

// The figures each calibrated assumption drives: they become "calibrated (your measurement)".
const std::vector<std::string>& figures_driven_by(const std::string& assumption) {
    static const std::map<std::string, std::vector<std::string>> kDriven{
        {"decode_bandwidth_efficiency", {"decode_step_s", "decode_tokens_per_s_per_user", "throughput_tokens_per_s",
                                         "max_throughput_within_targets_tokens_per_s", "rollout_decode_tokens_per_s_per_user",
                                         "rollout_throughput_tokens_per_s", "rl_step_s", "rl_tokens_per_s", "train_time_s"}},
        {"prefill_compute_efficiency", {"ttft_s", "p50_ttft_s", "p95_ttft_s", "isolated_p95_ttft_s"}},
        {"training_mfu", {"step_time_s", "train_tokens_per_s", "train_time_s", "rl_step_s", "rl_tokens_per_s"}},
        {"finetune_mfu", {"step_time_s", "train_tokens_per_s", "train_time_s", "rl_step_s", "rl_tokens_per_s"}},
        {"encoder_compute_efficiency", {"items_per_s", "embed_time_s", "window_used_ratio"}},
    };
    static const std::vector<std::string> kNone;
    auto it = kDriven.find(assumption);
    return it == kDriven.end() ? kNone : it->second;
}

} // namespace

// Pins each calibrated assumption of device `d` (all three cases: a measurement, not a range) unless the
// workload pinned it; returns the calibrations applied.
std::vector<const Calibration*> apply_calibrations(AssumptionSet& das, const Catalog& cat, const Device& d) {
    std::vector<const Calibration*> applied;
    for (const auto& k : cat.calibrations) {
        if (k.device != d.id) continue;
        double Assumptions::*field = assumption_member(k.assumption);
        const auto src = das.source.find(k.assumption);
        if (!field || (src != das.source.end() && src->second == "workload")) continue;
        das.typical.*field = das.low.*field = das.high.*field = k.value;
        das.source[k.assumption] = "calibration";
        // The measurement was solved with the share pinned, so without a device rule's own step time: the
        // catalog-wide step goes with it (efficiencies.json step_overhead_s).
        const auto step = cat.assumptions.find("decode_step_overhead_s");
        const auto step_src = das.source.find("decode_step_overhead_s");
        if (k.assumption == "decode_bandwidth_efficiency" && step != cat.assumptions.end() &&
            !(step_src != das.source.end() && step_src->second == "workload")) {
            das.typical.decode_step_overhead_s = step->second.value;
            das.low.decode_step_overhead_s = step->second.high; // the slow case takes the longest step (device_assumptions)
            das.high.decode_step_overhead_s = step->second.low;
            das.source["decode_step_overhead_s"] = step->second.source;
        }
        applied.push_back(&k);
    }
    return applied;
}

void label_user_calibrated(Candidate& c, const std::vector<const Calibration*>& applied) {
    for (const Calibration* k : applied) {
        const std::string tag = "calibrated (your measurement: " + k->measurement + ", " + k->read_on + ")";
        for (const auto& name : figures_driven_by(k->assumption)) {
            auto it = c.figures.find(name);
            if (it == c.figures.end()) continue;
            it->second.label = Label::calibrated;
            it->second.why = tag + "; " + it->second.why;
        }
        const bool time_like = k->figure.size() > 2 && k->figure.substr(k->figure.size() - 2) == "_s";
        const double ratio = k->modelled > 0 && k->measured > 0 ? (time_like ? k->modelled / k->measured : k->measured / k->modelled) : 0;
        c.notes.push_back("calibrated (your measurement): " + k->assumption + " = " + format_sig(k->value, 4) + " from " + k->measurement +
                          (k->model.empty() ? "" : " with " + k->model + (k->precision.empty() ? "" : " " + k->precision)) +
                          " (measured / modelled before: " + format_sig(ratio, 3) + "), " + k->read_on);
    }
}

// [SECTION] calibrated labels ------------------------------------------------------------------------
// A figure is `calibrated` when every efficiency it rests on was set from measurements of the suite's
// calibration split (assumptions.json or efficiencies.json "calibrated_by"); its why names them.
// The efficiencies are those of the bound the candidate ran into: a compute-bound training step rests on its
// MFU alone, a bandwidth- or communication-bound one on more than that; an encoder batch on the side of the
// roofline that bound it; decode on the bandwidth share and the fixed step overhead, and on the GEMMs' share of
// the peak when they were compute-bound. A value the workload
// pinned is the user's, not calibrated.
void label_calibrated(Candidate& c, const Workload& w, const Catalog& cat, const AssumptionSet& das, const EfficiencyRule* decode_rule,
                      const EfficiencyRule* mfu_rule, const EfficiencyRule* attention_rule, const EfficiencyRule* gemm_rule) {
    std::vector<std::string> keys, figures;
    switch (w.stage) {
    case Stage::finetune:
    case Stage::pretrain:
        if (c.regime != Regime::compute) return;
        keys = {w.stage == Stage::pretrain ? "training_mfu" : "finetune_mfu"};
        if (!c.phases.empty() && c.phases.back().precision == "fp8") keys.push_back("training_fp8_cast_bytes_per_element"); // its FP8 casts
        if (das.typical.training_attention_efficiency > 0) keys.push_back("training_attention_efficiency");         // its attention
        figures = {"step_time_s", "train_tokens_per_s", "train_time_s"};
        break;
    case Stage::embed:
        if (c.phases.empty()) return;
        // an encoder runtime no efficiency was fitted under is modelled, not calibrated (runtimes.json)
        {
            const Device* dev = cat.device_by_id(c.device);
            const EncoderRuntime* r = dev ? encoder_runtime_for(cat, w, *dev) : cat.find_encoder_runtime(w.embed.runtime);
            if (r && r->calibrated_by.empty()) return;
        }
        keys = {c.phases.back().roofline.compute_bound ? "encoder_compute_efficiency" : "decode_bandwidth_efficiency"};
        figures = {"items_per_s", "embed_time_s", "window_used_ratio"};
        break;
    case Stage::serve:
    case Stage::batch:
    case Stage::edge:
        // a step under an eager loop (serve.runtime, runtimes.json decode_runtimes) rests on counted host operations and
        // eager_op_host_s, neither fitted, and one of a runtime that converts its logits in Python or recomputes the
        // sequence without a cache on counted work too: modelled, not calibrated
        if (const DecodeRuntime* r = cat.find_decode_runtime(w.serve.runtime);
            r && r->calibrated_by.empty() &&
            (r->host_ops_per_layer > 0 || r->host_ops_per_step > 0 || r->serial_vocab_round_trips > 0 || r->recomputes_context))
            return;
        keys = {"decode_bandwidth_efficiency", "decode_step_overhead_s"};
        // a step whose weight GEMMs were compute-bound (its time exceeds its memory time: decode_phase sums
        // two rooflines) also rests on their share of the peak
        if (!c.phases.empty() && c.phases.front().roofline.time_s > c.phases.front().roofline.memory_s * (1 + 1e-9))
            keys.push_back(narrow_decode_gemm(c.phases.front().precision) ? "decode_compute_efficiency_8bit" : "decode_compute_efficiency");
        figures = {"decode_step_s", "decode_tokens_per_s_per_user"};
        break;
    case Stage::rl: return;
    }
    std::vector<std::string> named; // "key: id, id"
    for (const auto& key : keys) {
        const auto src = das.source.find(key);
        if (src != das.source.end() && (src->second == "workload" || src->second == "calibration")) return; // the user's value, labelled by label_user_calibrated
        const std::vector<std::string>* ids = nullptr;
        if (key == "decode_bandwidth_efficiency" && decode_rule) ids = &decode_rule->calibrated_by;
        else if (key == "decode_step_overhead_s" && decode_rule && decode_rule->step_overhead_s > 0) ids = &decode_rule->calibrated_by;
        else if (key == "training_mfu" && mfu_rule) ids = &mfu_rule->calibrated_by;
        else if (key == "training_attention_efficiency" && attention_rule) ids = &attention_rule->calibrated_by;
        else if (key == "decode_compute_efficiency_8bit" && gemm_rule) ids = &gemm_rule->calibrated_by;
        else if (auto it = cat.assumptions.find(key); it != cat.assumptions.end()) ids = &it->second.calibrated_by;
        if (!ids || ids->empty()) return;
        std::string list;
        for (const auto& id : *ids) list += (list.empty() ? "" : ", ") + id;
        const EfficiencyRule* rule = key == "decode_bandwidth_efficiency" || (key == "decode_step_overhead_s" && decode_rule && decode_rule->step_overhead_s > 0)
                                         ? decode_rule : key == "training_mfu" ? mfu_rule
                                         : key == "training_attention_efficiency" ? attention_rule
                                         : key == "decode_compute_efficiency_8bit" ? gemm_rule : nullptr;
        named.push_back(key + (rule ? " [" + rule->id + "]" : "") + " from " + list);
    }
    std::string note;
    for (const auto& n : named) note += (note.empty() ? "" : "; ") + n;
    for (const auto& f : figures) {
        auto it = c.figures.find(f);
        if (it == c.figures.end() || it->second.label != Label::modelled) continue;
        it->second.label = Label::calibrated;
        it->second.why += " [calibrated: " + note + "]";
    }
}

// [SECTION] missing assumptions ---------------------------------------------------------------------

// The inputs the user did not give that change the answer, each with the value assumed.
void missing(const Workload& w, Plan& p) {
    auto given = [&](const std::string& k) { return std::find(w.given.begin(), w.given.end(), k) != w.given.end(); };
    auto note = [&](const std::string& key, const std::string& text) {
        if (!given(key)) p.missing_assumptions.push_back(key + ": " + text);
    };
    note("precision", "not given; bf16 weights, KV cache and compute assumed");
    if (w.hardware.devices.empty()) p.missing_assumptions.push_back("hardware.devices: not given; every catalog device is a candidate");
    if (w.model.size_only)
        p.missing_assumptions.push_back("model architecture: only a size was given; KV cache and activations use " + w.model.shape_from +
                                        "'s shape (the closest by size of the Llama 3.x dense presets, 1B to 405B, whose KV cache "
                                        "per token and activations grow with size)");
    switch (w.stage) {
    case Stage::serve:
    case Stage::batch:
    case Stage::edge:
    case Stage::rl:
        note("serve.context_tokens", "not given; " + format_sig(w.serve.context_tokens, 6) + " tokens per sequence assumed");
        note("serve.concurrent_users", "not given; " + format_sig(w.serve.concurrent_users, 6) + " assumed");
        note("serve.prompt_tokens", "not given; half the context assumed");
        note("serve.output_tokens", "not given; a quarter of the context assumed");
        if (w.stage == Stage::serve) {
            note("serve.ttft_target_s", "no latency target: nothing to check time to first token against");
            if (!given("serve.requests_per_s") && !given("serve.traffic"))
                p.missing_assumptions.push_back("serve.requests_per_s: not given; latency under load (p50/p95) is not modelled");
        }
        if (w.stage != Stage::rl) break;
        [[fallthrough]];
    case Stage::finetune:
    case Stage::pretrain:
        note("train.seq_len", "not given; " + format_sig(w.train.seq_len, 6) + " tokens assumed");
        note("train.micro_batch", "not given; " + format_sig(w.train.micro_batch, 6) + " assumed");
        note("train.optimizer", "not given; AdamW in mixed precision assumed");
        note("train.checkpointing", w.stage == Stage::rl ? "not given; no activation recomputation assumed"
                                                          : "not given; the training search tries recomputation off and on and keeps the faster point that fits");
        note("train.tokens", "not given; no total training time");
        break;
    case Stage::embed:
        note("embed.tokens_per_item", "not given; " + format_sig(w.embed.tokens_per_item, 6) + " assumed");
        note("embed.batch_size", "not given; " + format_sig(w.embed.batch_size, 6) + " assumed");
        note("embed.window_s", "no batch window to check against");
        note("embed.runtime", "not given; a fused engine (TensorRT) assumed: eager PyTorch or TensorFlow run slower "
                              "(pytorch-eager, tensorflow-xla in catalog/runtimes.json encoder_runtimes); on AWS Neuron devices "
                              "their compiler's own profile (neuronx-cc)");
        break;
    }
}

} // namespace hwplan::plan_detail
