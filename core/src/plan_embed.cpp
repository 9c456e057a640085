// plan_embed.cpp: encoder (embedding) evaluation: the weights and one batch's working set in memory, and one
// encoder batch on its roofline with tile and wave quantisation of the weight GEMMs; items/s and the job's time.
#include <algorithm>

#include "hwplan/format.h"
#include "hwplan/memory.h"
#include "plan_eval.h"

namespace hwplan::plan_detail {

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
    m.activations_bytes = inference_activation_bytes(arch, tokens, 0); // fused attention: no score matrices
    e.term(m, "activations", m.activations_bytes, [&] { return std::string("one block's working set for " + format_sig(s.batch_size, 6) + " items x " +
                                                        format_sig(s.tokens_per_item, 6) + " tokens"); });
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
    b.roofline = roofline(flops, wb.total, peak.flop_per_s * a.encoder_compute_efficiency * wave_share,
                          d.bandwidth_bytes_per_s * a.decode_bandwidth_efficiency);
    b.time_s = b.roofline.time_s;
    c.phases.push_back(b);
    if (b.time_s > 0) {
        const double items_per_s = n * s.batch_size / b.time_s;
        auto why = [&] { return format_sig(encoder_flops_per_item(arch, w.model.params, s.tokens_per_item) / 1e9, 4) +
                                " GFLOP per item at " + format_sig(s.tokens_per_item, 6) + " tokens" +
                                (wave < 1 ? "; weight GEMMs of " + format_sig(tokens, 6) + " rows keep " + format_sig(100 * wave, 3) + " % of " +
                                                std::to_string(d.streaming_multiprocessors) + " SMs busy (" + format_sig(a.gemm_tile_elements, 4) +
                                                "-square tiles, wave quantisation)"
                                          : std::string()); };
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
