// format.cpp: display formatting (decimal units, a few significant digits, no exponents in text).
#include "hwplan/format.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

namespace hwplan {

std::string format_sig(double value, int significant) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "infinity" : "-infinity";
    if (value == 0) return "0";
    const double mag = std::floor(std::log10(std::fabs(value)));
    if (mag >= 15 || mag < -6) { // too large or small for plain digits: scientific
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*g", significant, value);
        return buf;
    }
    int decimals = significant - 1 - static_cast<int>(mag);
    if (decimals < 0) decimals = 0;
    // Fixed-point by integer rounding (printf of a double is slow, and explanations format thousands of
    // numbers per plan): |value| x 10^decimals < 1e16 here, so the integer is exact in a long long.
    static constexpr double kPow10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16};
    std::string s;
    if (decimals < static_cast<int>(std::size(kPow10)) && std::fabs(value) * kPow10[decimals] < 9e15) {
        const long long scaled = std::llround(std::fabs(value) * kPow10[decimals]);
        std::string digits = std::to_string(scaled);
        if (decimals > 0) {
            if (digits.size() <= static_cast<size_t>(decimals)) digits.insert(0, decimals + 1 - digits.size(), '0');
            digits.insert(digits.size() - decimals, ".");
        }
        s = (value < 0 && scaled != 0 ? "-" : "") + digits;
    } else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
        s = buf;
    }
    if (s.find('.') != std::string::npos) { // drop trailing zeros: "14.0" -> "14"
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

std::string format_bytes(double bytes) {
    static constexpr std::array<const char*, 6> kUnits{"B", "kB", "MB", "GB", "TB", "PB"};
    double v = bytes;
    size_t u = 0;
    while (std::fabs(v) >= 1000.0 && u + 1 < kUnits.size()) {
        v /= 1000.0;
        ++u;
    }
    // 3 significant digits; a value that rounds up to 1000 moves to the next unit ("1 TB", not "1000 GB")
    if (std::fabs(v) >= 999.5 && u + 1 < kUnits.size()) {
        v /= 1000.0;
        ++u;
    }
    return format_sig(v, 3) + " " + kUnits[u];
}

std::string format_count(double n) {
    const double a = std::fabs(n);
    if (a >= 1e12) return format_sig(n / 1e12, 3) + " trillion";
    if (a >= 1e9) return format_sig(n / 1e9, 3) + " billion";
    if (a >= 1e6) return format_sig(n / 1e6, 3) + " million";
    return format_sig(n, 6);
}

} // namespace hwplan
