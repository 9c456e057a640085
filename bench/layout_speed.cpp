// layout_speed.cpp: layouts searched per second, one program built natively and for WebAssembly (Node runs
// the .js), so the two are measured like for like: the same jobs, the same clock (std::chrono::steady_clock),
// the median of several rounds. Google Benchmark is not available under Emscripten, hence this plain main.
// Usage: build/native/bench/hwplan_layout_speed        node build/wasm/bench/hwplan_layout_speed.js
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "hwplan/catalog_embedded.h"
#include "layout_jobs.h"

namespace {

const hwplan::Catalog& catalog() { return hwplan::embedded_catalog().catalog; }

void run(const char* name, const hwplan::TrainingJob& job, const char* device, int n, int rounds, int calls) {
    const auto setup = hwplan::bench::layout_setup(catalog(), device, n);
    long searched = 0;
    std::vector<double> per_call_s;
    for (int r = 0; r <= rounds; ++r) { // round 0 warms up
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i) searched = hwplan::search_layouts(job, setup.cluster, setup.assumptions).searched;
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / calls;
        if (r > 0) per_call_s.push_back(s);
    }
    std::sort(per_call_s.begin(), per_call_s.end());
    const double median = per_call_s[per_call_s.size() / 2];
    std::printf("%-40s %8ld layouts  median %10.1f us/search  %8.2f M layouts/s\n", name, searched, median * 1e6, double(searched) / median / 1e6);
}

} // namespace

int main() {
    run("405B on 16,384 H100", hwplan::bench::llama405b_job(), "h100-sxm", 16384, 7, 200);
    run("Kimi K2 (1T MoE) on 4,608 GB200 NVL72", hwplan::bench::kimi_job(catalog()), "gb200-nvl72", 4608, 7, 5);
    return 0;
}
