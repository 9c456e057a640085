// layout_jobs.h: the two training jobs whose layout search both benchmarks time (core_bench.cpp with Google
// Benchmark, layout_speed.cpp natively and in WebAssembly), and the cluster each is searched on, so the two
// programs measure the same searches.
// Usage: const auto s = hwplan::bench::layout_setup(catalog, "h100-sxm", 16384); search_layouts(llama405b_job(), s.cluster, s.assumptions);
#pragma once
#include "hwplan/catalog.h"
#include "hwplan/memory.h"
#include "hwplan/parallel.h"

namespace hwplan::bench {

// Llama 3.1 405B (config.json) pretraining at 8k tokens, global batch 2048, AdamW in mixed precision.
inline TrainingJob llama405b_job() {
    TrainingJob j;
    auto& a = j.arch;
    a.layers = 126, a.hidden = 16384, a.heads = 128, a.kv_heads = 8, a.head_dim = 128, a.intermediate = 53248, a.vocab = 128256;
    a.attention_layers = {{AttentionKind::full, 126, 0}};
    j.params = j.active_params = j.trainable_params = 405e9;
    j.seq_len = 8192;
    j.global_batch = 2048;
    j.tokens = 15.6e12;
    j.trainable_state = full_training_state_bytes(Optimizer::adamw, false);
    return j;
}

// A 1T MoE (Kimi K2's shape from the catalog) at 4k tokens, global batch 4608: expert parallelism joins the space.
inline TrainingJob kimi_job(const Catalog& catalog) {
    TrainingJob j = llama405b_job();
    for (const auto& m : catalog.models)
        if (m.id == "kimi-k2") {
            j.arch = m.arch;
            j.params = j.trainable_params = m.published_params;
            j.active_params = m.published_active_params;
        }
    j.seq_len = 4096;
    j.global_batch = 4608;
    return j;
}

// `n` of `device` at their BF16 peak and memory, with the catalog's typical assumptions.
struct LayoutSetup {
    Assumptions assumptions;
    Cluster cluster;
};
inline LayoutSetup layout_setup(const Catalog& catalog, const char* device, int n) {
    Issues issues;
    const Assumptions a = assumptions_for(catalog, {}, issues).typical;
    const Device& d = *catalog.device_by_id(device);
    return {a, cluster_of(d, n, d.bf16.flop_per_s, d.memory_bytes, a)};
}

} // namespace hwplan::bench
