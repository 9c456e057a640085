// precision.cpp: number formats and their storage size.
#include "hwplan/precision.h"

#include <array>
#include <cctype>

namespace hwplan {

namespace {

struct FormatInfo {
    Precision precision;
    std::string_view name;
    double bits; // storage bits per value (IEEE/OCP definitions; int4 raw, without group scales)
};

// fp4 last, so the page's lists keep their indexes: the 4-bit float element (OCP MXFP4 / NVIDIA NVFP4 E2M1) that
// Blackwell and CDNA 4 tensor cores multiply natively; raw, without the blocks' scales (formats.json has those).
constexpr std::array<FormatInfo, 7> kFormats{{
    {Precision::fp32, "fp32", 32},
    {Precision::bf16, "bf16", 16},
    {Precision::fp16, "fp16", 16},
    {Precision::fp8, "fp8", 8},
    {Precision::int8, "int8", 8},
    {Precision::int4, "int4", 4},
    {Precision::fp4, "fp4", 4},
}};

constexpr std::array<Precision, 7> kAll{Precision::fp32, Precision::bf16, Precision::fp16, Precision::fp8,
                                        Precision::int8, Precision::int4, Precision::fp4};

const FormatInfo& info(Precision p) {
    for (const auto& f : kFormats)
        if (f.precision == p) return f;
    return kFormats[0]; // unreachable: every enumerator is in kFormats
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

} // namespace

std::optional<Precision> parse_precision(std::string_view text) {
    for (const auto& f : kFormats)
        if (iequals(text, f.name)) return f.precision;
    return std::nullopt;
}

std::string_view name(Precision p) { return info(p).name; }
double bits_per_value(Precision p) { return info(p).bits; }
double bytes_per_value(Precision p) { return info(p).bits / 8.0; }
std::span<const Precision> all_precisions() { return kAll; }

std::string precision_names() {
    std::string out;
    for (const auto& f : kFormats) {
        if (!out.empty()) out += ", ";
        out += f.name;
    }
    return out;
}

} // namespace hwplan
