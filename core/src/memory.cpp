// memory.cpp: memory held by a model. Weights for now.
#include "hwplan/memory.h"

#include <cmath>

#include "hwplan/format.h"

namespace hwplan {

// Lesson 001, "The GPU Memory Bottleneck": P parameters at b bits occupy P*b/8 bytes.
double weights_bytes(double params, Precision p) { return params * bytes_per_value(p); }

WeightsEstimate estimate_weights(const WeightsInput& in) {
    WeightsEstimate out;
    out.params = in.params;
    if (std::isnan(in.params))
        out.issues.push_back({"params", "must be a number, got NaN"});
    else if (std::isinf(in.params))
        out.issues.push_back({"params", "must be finite, got infinity"});
    else if (in.params <= 0)
        out.issues.push_back({"params", "must be a positive number of parameters, got " + format_sig(in.params, 6)});
    else if (in.params > kMaxParams)
        out.issues.push_back({"params", "must be at most 1e14 (100 trillion parameters), got " +
                                            format_sig(in.params, 6)});
    auto p = parse_precision(in.precision);
    if (!p)
        out.issues.push_back({"precision", "unknown precision \"" + in.precision + "\"; expected one of " +
                                               precision_names()});
    if (!out.issues.empty()) return out;
    out.precision = *p;
    out.bytes_per_param = bytes_per_value(*p);
    out.weights_bytes = weights_bytes(in.params, *p);
    return out;
}

} // namespace hwplan
