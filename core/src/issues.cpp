// issues.cpp: text form of a validation issue, and the short escaped excerpt that messages quote.
#include "hwplan/issues.h"

namespace hwplan {

std::string to_string(const Issue& issue) {
    std::string out;
    if (!issue.file.empty()) out += issue.file + ": ";
    if (!issue.path.empty()) out += issue.path + ": ";
    return out + issue.message;
}

namespace {

// Length of the valid UTF-8 sequence starting at s[i] (RFC 3629: no overlongs, no surrogates,
// at most U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_length(std::string_view s, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((b(k) & 0xC0) != 0x80) return 0;
    if (n == 3 && ((c == 0xE0 && b(1) < 0xA0) || (c == 0xED && b(1) > 0x9F))) return 0;
    if (n == 4 && ((c == 0xF0 && b(1) < 0x90) || (c == 0xF4 && b(1) > 0x8F))) return 0;
    return n;
}

} // namespace

std::string quote_input(std::string_view text, size_t max_chars) {
    static const char* kHex = "0123456789abcdef";
    std::string out = "\"";
    size_t chars = 0, i = 0;
    while (i < text.size() && chars < max_chars) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        const size_t n = utf8_length(text, i);
        if (n == 0) {
            out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
            i += 1;
        } else if (c < 0x20 || c == 0x7F) {
            out += std::string("\\u00") + kHex[c >> 4] + kHex[c & 15];
            i += 1;
        } else if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
            i += 1;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
        ++chars;
    }
    out += '"';
    if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
    return out;
}

} // namespace hwplan
