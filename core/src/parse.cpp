// parse.cpp: strict number parsing. The text is checked against the decimal number grammar first (so
// no locale, hex float or trailing garbage gets through), then converted with strtod (std::from_chars
// for double is missing from Emscripten's libc++ 14).
#include "hwplan/parse.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace hwplan {

namespace {

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
    return true;
}

// [sign] digits [. digits] [(e|E) [sign] digits], with at least one digit in the mantissa.
bool is_decimal_number(std::string_view s) {
    size_t i = 0;
    auto digits = [&] {
        size_t start = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        return i - start;
    };
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t mantissa = digits();
    if (i < s.size() && s[i] == '.') {
        ++i;
        mantissa += digits();
    }
    if (mantissa == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (digits() == 0) return false;
    }
    return i == s.size();
}

} // namespace

std::optional<double> parse_number(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    std::string_view body = text;
    bool negative = false;
    if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
        negative = body.front() == '-';
        body.remove_prefix(1);
    }
    if (iequals(body, "nan")) return std::numeric_limits<double>::quiet_NaN();
    if (iequals(body, "inf") || iequals(body, "infinity"))
        return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (!is_decimal_number(text)) return std::nullopt;
    const std::string copy(text);
    return std::strtod(copy.c_str(), nullptr);
}

std::optional<double> parse_count(std::string_view text) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    if (text.empty()) return std::nullopt;
    double scale = 1;
    switch (std::tolower(static_cast<unsigned char>(text.back()))) {
    case 'k': scale = 1e3; break;
    case 'm': scale = 1e6; break;
    case 'b': scale = 1e9; break;
    case 't': scale = 1e12; break;
    default: return parse_number(text);
    }
    text.remove_suffix(1);
    const auto v = parse_number(text);
    if (!v || !std::isfinite(*v)) return std::nullopt; // "infB", "nanK": not a size
    return *v * scale;
}

} // namespace hwplan
