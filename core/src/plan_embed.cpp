// plan_embed.cpp: encoder (embedding) evaluation: the weights and one batch's working set in memory, and one
// encoder batch on its roofline with tile and wave quantisation of the weight GEMMs, plus what the encoder runtime
// does not fuse (element-wise and score-matrix traffic, per-kernel launches); items/s and the job's time.
#include <algorithm>

#include "hwplan/feasibility.h"
#include "hwplan/format.h"
#include "hwplan/memory.h"
#include "plan_eval.h"

namespace hwplan::plan_detail {

// A stack's own profile that prices its passes on a vector engine the device does not record (Trainium2's NeuronCore-v3
// has no rate in the catalog) is not taken by default: the plan then keeps the catalog default and its uncalibrated band.
const EncoderRuntime* encoder_runtime_for(const Catalog& cat, const Workload& w, const Device& d) {
    if (w.embed.runtime.empty())
        for (const EncoderRuntime& r : cat.encoder_runtimes)
            if (!r.default_on_stack.empty() && runs_stack(d, r.default_on_stack) && (!r.passes_on_vector_engine || d.vector_engine_elements_per_s > 0))
                return &r;
    return cat.find_encoder_runtime(w.embed.runtime);
}

// Encoder batches of `embed.batch_size` items of `embed.tokens_per_item` tokens, data parallel over n devices.
void eval_embed(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e) {
    Candidate& c = e.c;
    const auto& arch = w.model.model.arch;
    const auto& s = w.embed;
    c.layout = {.data_parallel = n};
    const WeightBytes wb = weight_bytes(w, cat, w.precision.weights, w.model.params, e.explain);
    MemoryUse& m = c.memory;
    m.capacity_bytes = usable_bytes(d, a, true);
    m.weights_bytes = wb.total;
    e.term(m, "weights", wb.total, [&] { return std::string(wb.why); });
    const double tokens = s.batch_size * s.tokens_per_item;
    // The encoder runtime profile (runtimes.json "encoder_runtimes"): the workload's embed.runtime, else its stack's own
    // on the device (encoder_runtime_for), else the default.
    static const EncoderRuntime kFused{.id = "fused", .name = "fused kernels (no catalog encoder runtimes)"};
    const EncoderRuntime* found = encoder_runtime_for(cat, w, d);
    const EncoderRuntime& rt = found ? *found : kFused;
    const double value_bytes = w.precision.compute == "fp32" ? 4.0 : 2.0;
    // An unfused attention keeps one layer's scores and probabilities at once (DLE modeling.py BertSelfAttention:
    // attention_scores, then attention_probs = softmax(attention_scores)); a fused kernel keeps neither.
    // (A Neuron-compiled graph keeps them in on-chip SRAM: passes_on_vector_engine.)
    const double score_bytes = rt.score_passes_per_layer > 0 && !rt.passes_on_vector_engine ? 2.0 * s.batch_size * double(arch.heads) * s.tokens_per_item * s.tokens_per_item * value_bytes : 0;
    m.activations_bytes = inference_activation_bytes(arch, tokens, 0) + score_bytes;
    e.term(m, "activations", m.activations_bytes, [&] { return std::string("one block's working set for " + format_sig(s.batch_size, 6) + " items x " +
                                                        format_sig(s.tokens_per_item, 6) + " tokens" +
                                                        (score_bytes > 0 ? " + one layer's score and probability matrices (" + gb(score_bytes) + ", " + rt.id + ")" : "")); });
    m.overhead_bytes = runtime_overhead_bytes(d, a);
    e.term(m, "overhead", m.overhead_bytes, [&] { return std::string("runtime context and framework"); });
    finish_memory(m);
    c.fits = m.total_bytes <= m.capacity_bytes;

    const Peak peak = peak_for(d, w.precision.compute);
    if (peak.fell_back() && e.explain) c.notes.push_back(peak.note());
    Phase b;
    if (e.explain) b.name = "encoder batch (" + format_sig(s.batch_size, 6) + " items)";
    b.precision = peak.precision;
    // Small batches leave multiprocessors idle: the weight GEMMs (M = batch x tokens rows) run at their tile and wave
    // quantisation share (performance.h gemm_wave_efficiency) of the kernel efficiency; attention's per-sequence GEMMs
    // (batch x heads of them) fill the device and keep the full share. 1 where the catalog records no SM count.
    const double flops = s.batch_size * encoder_flops_per_item(arch, w.model.params, s.tokens_per_item);
    const double attention_flops = s.batch_size * encoder_flops_per_item(arch, 0, s.tokens_per_item); // no parameters: attention alone
    const double wave = block_gemm_wave_efficiency(arch, tokens, a.gemm_tile_elements, d.streaming_multiprocessors);
    const double wave_share = flops > 0 ? flops / ((flops - attention_flops) / wave + attention_flops) : 1.0;
    // A power-capped board (T4: 70 W) raises its clock as the kernel leaves its tensor cores waiting, up to the boost
    // clock the datasheet peak assumes: the achieved rate is the kernel's share of the unthrottled peak under the cap's
    // power ceiling (performance.h power_capped_flop_per_s; power_cap_idle_power_ratio's range is its band).
    const double achieved = peak.achieved(a.encoder_compute_efficiency * wave_share, a);
    b.roofline = roofline(flops, wb.total, achieved, d.bandwidth_bytes_per_s * a.decode_bandwidth_efficiency);
    // What the runtime leaves unfused (performance.h encoder_unfused_bytes_per_item) runs between the GEMMs at the
    // device's bandwidth, and an eager or graph-compiled framework launches kernels_per_layer kernels per layer, each
    // at the host's launch cost (kernel_launch_overhead_s); neither overlaps the GEMMs it waits on.
    // A Neuron-compiled graph (rt.passes_on_vector_engine) runs the same count as element-cycles of its vector engines
    // (one cycle per element and input tensor on each of 128 lanes, AWS's NKI cost model), at the device's
    // vector_engine_elements_per_s, after the tensor engine's work as on the GPUs; unpriced where no rate is recorded.
    const int layers = arch.layers;
    const bool on_engine = rt.passes_on_vector_engine;
    const double unfused_bytes = s.batch_size * encoder_unfused_bytes_per_item(arch, s.tokens_per_item, rt.activation_passes_per_layer,
                                                                               rt.score_passes_per_layer, on_engine ? 1.0 : value_bytes);
    const double bandwidth = d.bandwidth_bytes_per_s * a.decode_bandwidth_efficiency;
    const double rate = on_engine ? d.vector_engine_elements_per_s : bandwidth;
    const double unfused_s = rate > 0 ? unfused_bytes / rate : 0;
    const double launch_s = layers * rt.kernels_per_layer * a.kernel_launch_overhead_s;
    b.time_s = b.roofline.time_s + unfused_s + launch_s;
    c.phases.push_back(b);
    if (e.explain) {
        c.notes.push_back("encoder runtime: " + rt.name + " [" + rt.id + "]" + (rt.meaning.empty() ? "" : ": " + rt.meaning));
        if (on_engine && unfused_bytes > 0 && d.vector_engine_elements_per_s <= 0)
            c.notes.push_back("no vector engine rate recorded for " + d.id + " (catalog compute.vector_engine_Gelements_per_s): the " + rt.id +
                              " profile's element-wise work is not priced, so the plan is fast by that much");
        if (found && rt.calibrated_by.empty())
            c.notes.push_back(on_engine ? "not calibrated for this runtime (" + rt.id + "): its per-layer vector-engine work is counted from the model's "
                                          "operations under AWS's NKI cost model, not read from the compiler's output and not fitted; the matmuls "
                                          "take encoder_compute_efficiency (fitted on TensorRT, A100), whose range is the band"
                                        : rt.kernels_per_layer == 0
                                            // a C++ engine (FasterTransformer): no host cost per kernel, only the traffic its kernels move
                                            // outside the GEMMs beyond what the fused engine the efficiency was fitted on moves
                                            ? "not calibrated for this runtime (" + rt.id + "): the per-layer traffic its kernels move outside the GEMMs, beyond "
                                              "the fused engine's, is counted from its code, not fitted; the GEMMs take encoder_compute_efficiency (fitted on "
                                              "TensorRT, A100), whose range is the band"
                                            : "not calibrated for this runtime (" + rt.id + "): its per-layer traffic and launches are counted from its model code, "
                                              "not fitted; the band spans kernel_launch_overhead_s's range (known weak area: eager encoder throughput)");
    }
    if (b.time_s > 0) {
        const double items_per_s = n * s.batch_size / b.time_s;
        auto why = [&] { return format_sig(encoder_flops_per_item(arch, w.model.params, s.tokens_per_item) / 1e9, 4) +
                                " GFLOP per item at " + format_sig(s.tokens_per_item, 6) + " tokens" +
                                (wave < 1 ? "; weight GEMMs of " + format_sig(tokens, 6) + " rows keep " + format_sig(100 * wave, 3) + " % of " +
                                                std::to_string(d.streaming_multiprocessors) + " SMs busy (" + format_sig(a.gemm_tile_elements, 4) +
                                                "-square tiles, wave quantisation)"
                                          : std::string()) +
                                (unfused_s > 0 && on_engine ? "; " + rt.id + " runs " + format_sig(unfused_bytes / 1e9, 4) + " G element-cycles outside the matmuls per batch on the vector engines at " +
                                                                  format_sig(d.vector_engine_elements_per_s / 1e9, 4) + " G/s (" + format_sig(1e3 * unfused_s, 3) + " ms)"
                                 : unfused_s > 0 ? "; " + rt.id + " moves " + gb(unfused_bytes) + " outside the GEMMs per batch (" + format_sig(1e3 * unfused_s, 3) + " ms)" : "") +
                                (launch_s > 0 ? "; " + format_sig(layers * rt.kernels_per_layer, 4) + " kernel launches x " + format_sig(1e6 * a.kernel_launch_overhead_s, 3) +
                                                    " us (" + format_sig(1e3 * launch_s, 3) + " ms)" : ""); };
        c.figures["items_per_s"] = e.figure(items_per_s, Label::modelled, why);
        if (s.items > 0) {
            const double total = s.items / items_per_s;
            c.figures["embed_time_s"] = e.figure(total, Label::modelled, [&] { return std::string(format_sig(s.items, 6) + " items / items per second"); });
            if (s.window_s > 0) c.figures["window_used_ratio"] = e.figure(total / s.window_s, Label::modelled, [&] { return std::string("job time / batch window"); });
        }
        e.headline = items_per_s;
    }
    c.regime = !c.fits ? Regime::capacity : b.roofline.compute_bound ? Regime::compute : Regime::bandwidth;
    if (e.explain) c.regime_why = !c.fits ? "needs " + gb(m.total_bytes) + " but " + gb(m.capacity_bytes) + " is usable"
                           : "encoder batch: " + format_sig(b.roofline.intensity_flop_per_byte, 3) + " FLOP/byte against a ridge of " +
                                 format_sig(b.roofline.ridge_flop_per_byte, 3);
}

} // namespace hwplan::plan_detail
