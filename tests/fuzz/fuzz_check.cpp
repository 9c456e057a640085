// fuzz_check.cpp: check_answer (fuzz_check.h), compiled without libFuzzer's coverage instrumentation. Reading a
// whole-catalog plan's JSON back (about a megabyte) is the checker's work, not the input's: instrumented, its lexer's
// edges and comparisons were a third of fuzz_workload's time and fed libFuzzer features that say nothing about the
// input (perf, 2026-12-03: check_answer 36 %, libFuzzer's feature bookkeeping 14 %). A SAX reader keeps no document,
// and its iterator type is this file's own, so the lexer is instantiated here only: the linker cannot pick a
// coverage-instrumented copy of it from the core or the targets (the same template, the same mangled name).
#include <cstddef>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"

namespace {

// const char* under another name: an input iterator nlohmann's reader accepts, whose type no other file uses.
struct CheckedChars {
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    const char* p = nullptr;
    reference operator*() const { return *p; }
    CheckedChars& operator++() { ++p; return *this; }
    CheckedChars operator++(int) { CheckedChars old = *this; ++p; return old; }
    bool operator==(const CheckedChars& o) const { return p == o.p; }
    bool operator!=(const CheckedChars& o) const { return p != o.p; }
};

// Records what check_answer asks of a document: whether it is an object, its top-level keys that matter, and any
// "errors"[i].message that is an internal error. Depth 1 is the top-level object's members.
struct AnswerReader : nlohmann::json_sax<nlohmann::json> {
    const char* key_wanted;
    int depth = 0;                  // open objects and arrays
    bool top_is_object = false, has_key = false, has_errors = false, internal = false;
    std::string top_key;            // the top-level key whose value is being read
    int errors_depth = -1;          // depth of the "errors" array while inside it
    bool message_next = false;      // the next string is an error object's "message"

    explicit AnswerReader(const char* key) : key_wanted(key) {}
    bool value() { message_next = false; return true; }
    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool string(string_t& s) override {
        if (message_next && hwplan::fuzz::is_internal_error(s)) internal = true;
        return value();
    }
    bool start_object(std::size_t) override {
        if (depth == 0) top_is_object = true;
        ++depth; message_next = false; return true;
    }
    bool end_object() override { --depth; return true; }
    bool start_array(std::size_t) override {
        if (depth == 1 && top_key == "errors") errors_depth = depth + 1;
        ++depth; message_next = false; return true;
    }
    bool end_array() override {
        if (depth == errors_depth) errors_depth = -1;
        --depth; return true;
    }
    bool key(string_t& k) override {
        if (depth == 1) {
            top_key = k;
            if (k == key_wanted) has_key = true;
            if (k == "errors") has_errors = true;
        }
        message_next = errors_depth > 0 && depth == errors_depth + 1 && k == "message"; // an object right inside "errors"
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

} // namespace

namespace hwplan::fuzz {

void check_answer(const std::string& text, const char* key) {
    AnswerReader reader(key);
    const CheckedChars first{text.data()}, last{text.data() + text.size()};
    if (!nlohmann::json::sax_parse(first, last, &reader)) fail("answer is not valid JSON", text);
    if (!reader.top_is_object || (!reader.has_key && !reader.has_errors)) fail("answer is neither a result nor errors", text);
    if (reader.internal) fail("an exception escaped the core", text);
}

} // namespace hwplan::fuzz
