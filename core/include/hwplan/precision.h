// hwplan/precision.h: number formats for weights, KV cache and compute, and their storage size.
// Usage: auto f = hwplan::parse_precision("bf16");   // std::optional<Precision>
//        double b = hwplan::bytes_per_value(*f);      // 2.0
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace hwplan {

enum class Precision { fp32, bf16, fp16, fp8, int8, int4, fp4 };

std::optional<Precision> parse_precision(std::string_view name); // case-insensitive "bf16", "FP8", ...
std::string_view name(Precision p);                               // canonical lower-case name
double bits_per_value(Precision p);                               // storage bits per value (raw, no scales)
double bytes_per_value(Precision p);                              // bits_per_value / 8
std::span<const Precision> all_precisions();                      // every format, in display order
std::string precision_names();                                    // "fp32, bf16, fp16, fp8, int8, int4, fp4"

} // namespace hwplan
