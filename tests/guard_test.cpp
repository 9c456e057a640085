// guard_test.cpp: an escaped exception becomes the named error of the edge that caught it (guard.h), whatever
// was thrown: the entry point as the path, the exception's text in the message, the program still running.
#include "hwplan/guard.h"

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace hwplan {

namespace {

// The issue guarded() hands to its error branch when `fn` throws.
template <class Fn> Issue caught(Fn fn) {
    return guarded("calibrate", [&] { fn(); return Issue{}; }, [](const Issue& i) { return i; });
}

} // namespace

TEST(Guard, EveryKindOfThrowIsANamedError) {
    const std::string tail = " (a bug in hwplan: please report it with the input)";
    struct Row {
        Issue got;
        std::string message;
    };
    const Row rows[] = {
        {caught([] { throw std::out_of_range("index 3 out of range"); }), "internal error: index 3 out of range" + tail},
        {caught([] { (void)nlohmann::json("bf16")["weights"]; }),
         "internal error: [json.exception.type_error.305] cannot use operator[] with a string argument with string" + tail},
        {caught([] { throw std::bad_alloc(); }), "internal error: out of memory" + tail},
        {caught([] { throw 42; }), "internal error: an exception that is not a std::exception" + tail},
        {caught([] { throw std::runtime_error(std::string(1000, 'x')); }), "internal error: " + std::string(300, 'x') + "..." + tail},
    };
    for (const auto& r : rows) {
        EXPECT_EQ(r.got.path, "calibrate");
        EXPECT_EQ(r.got.message, r.message);
    }
}

TEST(Guard, NoThrowIsTheValueItself) {
    EXPECT_EQ(guarded("plan", [] { return 7; }, [](const Issue&) { return -1; }), 7);
    EXPECT_EQ(guarded("plan", []() -> int { throw std::logic_error("x"); }, [](const Issue& i) { return int(i.path.size()); }), 4);
}

} // namespace hwplan
