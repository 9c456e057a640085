// hwplan/memory.h: what a model holds in memory. This first slice covers model weights; KV cache,
// activations, gradients and optimizer state join it with the estimation core.
// Usage: auto r = hwplan::estimate_weights({.params = 7e9, .precision = "bf16"});
//        if (r.issues.empty()) print(r.weights_bytes);   // 1.4e10
#pragma once
#include <string>

#include "hwplan/issues.h"
#include "hwplan/precision.h"

namespace hwplan {

inline constexpr double kMaxParams = 1e14; // 100 trillion: above any published model by ~50x

// Bytes to hold `params` weights stored at `p`: params x bits / 8 (lesson 001, "The GPU Memory
// Bottleneck": a P-parameter model at 16 bits needs 2P bytes). Raw storage, no quantization scales.
double weights_bytes(double params, Precision p);

struct WeightsInput {
    double params = 0;     // parameter count (plain number, 7e9 for a 7B model)
    std::string precision; // format name as the user wrote it ("bf16")
};

struct WeightsEstimate {
    double params = 0;               // as given
    Precision precision = Precision::bf16;
    double bytes_per_param = 0;      // bytes per weight at that precision
    double weights_bytes = 0;        // params x bytes_per_param
    Issues issues;                   // non-empty: the input was rejected and the figures are 0
    bool operator==(const WeightsEstimate&) const = default;
};

// Validates the input (params: finite, > 0, <= kMaxParams; precision: a known format) and computes.
WeightsEstimate estimate_weights(const WeightsInput& in);

} // namespace hwplan
