// json_writer.h (internal): JSON text written straight from the data, byte for byte what nlohmann::json's dump()
// prints for the tree the same code would have built, without building it. The plan's JSON is the largest answer
// the core gives (about 0.5 MB for a whole-catalog serving plan); building it as an nlohmann tree (a std::map node
// and a string copy per member) and dumping that was about 40 % of a whole plan's instructions (callgrind,
// BENCHMARKS.md "The plan's JSON without the tree").
// What dump() does, and this writer with it (nlohmann/json 3.11, detail/output/serializer.hpp):
//  - an object's members in std::less<> order of their keys (object_t is a std::map): the caller writes keys in that
//    order (checked in debug builds; tests/json_api_test.cpp re-dumps every scenario's plan and compares);
//  - doubles with detail::to_chars (Grisu2, shortest round trip, ".0" after an integral value), NaN and
//    infinities as null; integers in decimal; booleans; null;
//  - strings: ", \ and the control characters escaped (\b \t \n \f \r, else \u00xx), everything else as is; a
//    string with a byte above 0x7F goes through nlohmann's own serializer, which checks its UTF-8 and throws its
//    own type_error 316 on a bad sequence, as dump() does.
// Usage: std::string s; JsonWriter w(s); w.begin_object(); w.key("a"); w.value(1.5); w.end_object();  // {"a":1.5}
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace hwplan::detail {

class JsonWriter {
public:
    explicit JsonWriter(std::string& out) : out_(out) {}

    void begin_object() { separate(); out_ += '{'; comma_ = false; opened(); }
    void end_object() { out_ += '}'; comma_ = true; closed(); }
    void begin_array() { separate(); out_ += '['; comma_ = false; opened_array(); }
    void end_array() { out_ += ']'; comma_ = true; closed(); }

    // A member's key; its value follows. Keys of one object come in std::less<> order (dump()'s order).
    void key(std::string_view k) {
        check_order(k);
        if (comma_) out_ += ',';
        string_text(k);
        out_ += ':';
        comma_ = false;
    }

    void value(double v) {
        separate();
        if (!std::isfinite(v)) {
            out_ += "null";
        } else {
            char buf[64];
            char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
            out_.append(buf, static_cast<size_t>(end - buf));
        }
        comma_ = true;
    }
    template <class T>
        requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
    void value(T v) {
        separate();
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        out_.append(buf, static_cast<size_t>(r.ptr - buf));
        comma_ = true;
    }
    void value(bool v) { separate(); out_ += v ? "true" : "false"; comma_ = true; }
    void value(std::string_view s) { separate(); string_text(s); comma_ = true; }
    void value(const std::string& s) { value(std::string_view(s)); }
    void value(const char* s) { value(std::string_view(s)); }
    void null() { separate(); out_ += "null"; comma_ = true; }

    template <class T> void member(std::string_view k, const T& v) { key(k); value(v); }
    void strings(const std::vector<std::string>& v) {
        begin_array();
        for (const auto& s : v) value(s);
        end_array();
    }
    void member_strings(std::string_view k, const std::vector<std::string>& v) { key(k); strings(v); }

private:
    std::string& out_;
    bool comma_ = false; // a value was written at this level: the next one needs a comma first

    void separate() {
        if (comma_) out_ += ',';
    }

    // Bytes a string holds as they are: printable ASCII other than " and \ (one table look-up a byte: the plan's JSON
    // is mostly string bytes).
    static constexpr std::array<bool, 256> kPlain = [] {
        std::array<bool, 256> t{};
        for (int b = 0x20; b < 0x80; ++b) t[static_cast<size_t>(b)] = b != '"' && b != '\\';
        return t;
    }();

    void string_text(std::string_view s) {
        const size_t start = out_.size();
        out_ += '"';
        size_t run = 0; // bytes copied as they are, in one append
        for (size_t i = 0; i < s.size(); ++i) {
            const auto b = static_cast<unsigned char>(s[i]);
            if (kPlain[b]) continue;
            if (b >= 0x80) { // UTF-8 checked (and, if bad, refused) as dump() does
                out_.resize(start);
                out_ += nlohmann::json(std::string(s)).dump();
                return;
            }
            out_.append(s.data() + run, i - run);
            run = i + 1;
            switch (b) {
            case '"': out_ += "\\\""; break;
            case '\\': out_ += "\\\\"; break;
            case '\b': out_ += "\\b"; break;
            case '\t': out_ += "\\t"; break;
            case '\n': out_ += "\\n"; break;
            case '\f': out_ += "\\f"; break;
            case '\r': out_ += "\\r"; break;
            default: {
                static constexpr char kHex[] = "0123456789abcdef"; // dump() prints \u%04x: lower case
                const char esc[6] = {'\\', 'u', '0', '0', kHex[b >> 4], kHex[b & 0xF]};
                out_.append(esc, 6);
            }
            }
        }
        out_.append(s.data() + run, s.size() - run);
        out_ += '"';
    }

#ifndef NDEBUG
    // The last key of each open object ("" at an array's level and before an object's first key).
    std::vector<std::string> last_;
    void opened() { last_.emplace_back(); }
    void opened_array() { last_.emplace_back(); }
    void closed() { last_.pop_back(); }
    void check_order(std::string_view k) {
        if (!last_.empty() && !last_.back().empty() && !(last_.back() < k))
            throw std::logic_error("JsonWriter: key \"" + std::string(k) + "\" after \"" + last_.back() + "\" (dump() sorts keys)");
        if (!last_.empty()) last_.back() = std::string(k);
    }
#else
    void opened() {}
    void opened_array() {}
    void closed() {}
    void check_order(std::string_view) {}
#endif
};

} // namespace hwplan::detail
