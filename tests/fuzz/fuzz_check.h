// fuzz_check.h: what every fuzz target asserts about an answer, beyond "no crash, no sanitizer report":
// a JSON answer parses as JSON and is a result or {"errors"}; no entry point leaks an internal error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

// A target's body: `HWPLAN_FUZZ_TARGET(fuzz_x) { ... }` in fuzz_x.cpp. The bodies compile together into one library
// (CMakeLists.txt: one unity translation unit, so nlohmann_json's templates are compiled once, not once a target) and
// each target's program is libFuzzer's entry point calling its body (fuzz_main.cpp.in).
#define HWPLAN_FUZZ_TARGET(name) extern "C" int hwplan_##name(const uint8_t* data, size_t size)

namespace hwplan::fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
    std::fprintf(stderr, "fuzz check failed: %s: %.500s\n", what, detail.c_str());
    std::abort();
}

// An edge's guard (guard.h) turns an escaped exception into {entry point, "internal error: ..."}: a named error
// for the user, but a bug for the fuzzer.
inline bool is_internal_error(const std::string& message) { return message.rfind("internal error: ", 0) == 0; }

// `text` must be valid JSON holding `key` or "errors", and never an "internal error" (an escaped throw) among
// "errors"[i].message. In fuzz_check.cpp, compiled without coverage: reading the answer back is not the input's work.
void check_answer(const std::string& text, const char* key);

// Every issue names a path or the whole document with a reason, and none is an escaped exception.
template <class Issues> void check_issues(const Issues& issues, const std::string& input) {
    for (const auto& i : issues) {
        if (i.message.empty()) fail("an issue without a message", i.path + " for " + input);
        if (is_internal_error(i.message)) fail("an exception escaped the core", i.path + ": " + i.message + " for " + input);
    }
}

} // namespace hwplan::fuzz
