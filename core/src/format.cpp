// format.cpp: display formatting (decimal units, a few significant digits, no exponents in text).
#include "hwplan/format.h"

#include <array>
#include <cmath>
#include <cstdio>

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
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    std::string s = buf;
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
