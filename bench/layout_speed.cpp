// layout_speed.cpp: layouts searched per second, one program built natively and for WebAssembly (Node runs
// the .js), so the two are measured like for like: the same jobs, the same clock (std::chrono::steady_clock),
// the median of several rounds. Google Benchmark is not available under Emscripten, hence this plain main.
// Usage: build/native/bench/hwplan_layout_speed        node build/wasm/bench/hwplan_layout_speed.js
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "hwplan/catalog_embedded.h"
#include "hwplan/memory.h"
#include "hwplan/parallel.h"

namespace {

const hwplan::Catalog& catalog() { return hwplan::embedded_catalog().catalog; }

// The same two searches as core_bench.cpp's BM_LayoutSearch405BOn16kH100 and BM_LayoutSearchMoEOnNvl72.
hwplan::TrainingJob llama405b_job() {
    hwplan::TrainingJob j;
    auto& a = j.arch;
    a.layers = 126, a.hidden = 16384, a.heads = 128, a.kv_heads = 8, a.head_dim = 128, a.intermediate = 53248, a.vocab = 128256;
    a.attention_layers = {{hwplan::AttentionKind::full, 126, 0}};
    j.params = j.active_params = j.trainable_params = 405e9;
    j.seq_len = 8192;
    j.global_batch = 2048;
    j.tokens = 15.6e12;
    j.trainable_state = hwplan::full_training_state_bytes(hwplan::Optimizer::adamw, false);
    return j;
}

hwplan::TrainingJob kimi_job() {
    hwplan::TrainingJob j = llama405b_job();
    for (const auto& m : catalog().models)
        if (m.id == "kimi-k2") {
            j.arch = m.arch;
            j.params = j.trainable_params = m.published_params;
            j.active_params = m.published_active_params;
        }
    j.seq_len = 4096;
    j.global_batch = 4608;
    return j;
}

void run(const char* name, const hwplan::TrainingJob& job, const char* device, int n, int rounds, int calls) {
    hwplan::Issues issues;
    const hwplan::Assumptions a = hwplan::assumptions_for(catalog(), {}, issues).typical;
    const hwplan::Device& d = *catalog().device_by_id(device);
    const hwplan::Cluster c = hwplan::cluster_of(d, n, d.bf16.flop_per_s, d.memory_bytes, a);
    long searched = 0;
    std::vector<double> per_call_s;
    for (int r = 0; r <= rounds; ++r) { // round 0 warms up
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i) searched = hwplan::search_layouts(job, c, a).searched;
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / calls;
        if (r > 0) per_call_s.push_back(s);
    }
    std::sort(per_call_s.begin(), per_call_s.end());
    const double median = per_call_s[per_call_s.size() / 2];
    std::printf("%-40s %8ld layouts  median %10.1f us/search  %8.2f M layouts/s\n", name, searched, median * 1e6, double(searched) / median / 1e6);
}

} // namespace

int main() {
    run("405B on 16,384 H100", llama405b_job(), "h100-sxm", 16384, 7, 200);
    run("Kimi K2 (1T MoE) on 4,608 GB200 NVL72", kimi_job(), "gb200-nvl72", 4608, 7, 5);
    return 0;
}
