// plan_speed.cpp: the time of one plan per workload file, one program built natively and for WebAssembly (Node
// runs the .js with the real file system), so the two are compared like for like: the same embedded catalog, the
// same call (plan_json: the workload's JSON text in, the plan's JSON text out, sensitivity on, as the JavaScript API
// and the page plan), the same clock (std::chrono::steady_clock) and the same rounds. What the JavaScript API adds
// on top (the request copied in, the answer decoded into a JavaScript string) is timed by bench/budgets.mjs apart.
// Prints one JSON object: {"workloads": [{"workload": STEM, "s_per_plan": S, "rounds": [...]}, ...]}.
// Usage: build/native/bench/hwplan_plan_speed [--quick] FILE.json...
//        node build/wasm/bench/hwplan_plan_speed.js [--quick] FILE.json...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"

namespace {

struct Input {
    std::string stem;
    std::string text;
};

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Median seconds per plan of `rounds` rounds, each of the number of calls that first took at least `round_s`.
double time_plans(const hwplan::Catalog& catalog, const std::string& text, int rounds, double round_s, std::vector<double>& per_round) {
    std::size_t sink = 0;
    long n = 1;
    for (;; n *= 2) {
        const double t0 = now_s();
        for (long i = 0; i < n; ++i) sink += hwplan::plan_json(catalog, text).size();
        if (now_s() - t0 >= round_s) break;
    }
    for (int r = 0; r < rounds; ++r) {
        const double t0 = now_s();
        for (long i = 0; i < n; ++i) sink += hwplan::plan_json(catalog, text).size();
        per_round.push_back((now_s() - t0) / double(n));
    }
    if (sink == 0) std::fputs("no plan text\n", stderr); // keeps the calls observable
    std::vector<double> sorted = per_round;
    std::sort(sorted.begin(), sorted.end());
    return sorted[sorted.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::vector<Input> inputs;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) { quick = true; continue; }
        std::ifstream in(argv[i], std::ios::binary);
        if (!in) { std::fprintf(stderr, "plan_speed: cannot read %s\n", argv[i]); return 2; }
        std::stringstream s;
        s << in.rdbuf();
        std::string stem = argv[i];
        if (const auto slash = stem.find_last_of('/'); slash != std::string::npos) stem = stem.substr(slash + 1);
        if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) stem.resize(stem.size() - 5);
        inputs.push_back({stem, s.str()});
    }
    if (inputs.empty()) { std::fputs("usage: hwplan_plan_speed [--quick] FILE.json...\n", stderr); return 2; }
    const hwplan::Catalog& catalog = hwplan::embedded_catalog().catalog;
    for (const Input& w : inputs)
        if (hwplan::plan_json(catalog, w.text).find("\"plan\"") == std::string::npos) {
            std::fprintf(stderr, "plan_speed: %s did not plan\n", w.stem.c_str());
            return 1;
        }

    // Warm-up, round-robin over every workload until one round costs within 5 % of the one before (at least
    // 1 s; --quick 0.5 s; at most 20 s). WebAssembly starts on baseline code and swaps in optimized code once
    // functions are hot; natively this only warms the caches. The same rule on both sides.
    const double warm_s = quick ? 0.5 : 1.0;
    const double start = now_s();
    double previous = -1;
    for (;;) {
        const double t0 = now_s();
        for (const Input& w : inputs) hwplan::plan_json(catalog, w.text);
        const double t = now_s() - t0;
        const double spent = now_s() - start;
        if ((spent > warm_s && previous > 0 && t <= 1.05 * previous && t >= 0.95 * previous) || spent > 20) break;
        previous = t;
    }

    const int rounds = quick ? 3 : 5;
    const double round_s = quick ? 0.03 : 0.08;
    std::printf("{\"workloads\": [");
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        std::vector<double> per_round;
        const double median = time_plans(catalog, inputs[k].text, rounds, round_s, per_round);
        std::printf("%s\n  {\"workload\": \"%s\", \"s_per_plan\": %.9g, \"rounds\": [", k ? "," : "", inputs[k].stem.c_str(), median);
        for (std::size_t r = 0; r < per_round.size(); ++r) std::printf("%s%.9g", r ? ", " : "", per_round[r]);
        std::printf("]}");
    }
    std::printf("\n]}\n");
    return 0;
}
