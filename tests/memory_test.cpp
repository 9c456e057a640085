// memory_test.cpp: model memory. Reference values from the course lessons (../shared/seeds).
#include "hwplan/memory.h"

#include <gtest/gtest.h>

#include <limits>

namespace hwplan {

// Lesson 001 "The GPU Memory Bottleneck": weight storage for 7B at fp16 is 2 x 7e9 = 14 GB.
TEST(WeightsBytes, SevenBillionAtSixteenBitsIsFourteenGB) {
    EXPECT_DOUBLE_EQ(weights_bytes(7e9, Precision::bf16), 14e9);
    EXPECT_DOUBLE_EQ(weights_bytes(7e9, Precision::fp16), 14e9);
}

// Lesson 003 quiz: a 70B model in 16-bit precision needs roughly 140 GB just for weights;
// lesson 004 worked example 2: 70B at FP8 is 70 GB of weights.
TEST(WeightsBytes, SeventyBillionAtSixteenAndEightBits) {
    EXPECT_DOUBLE_EQ(weights_bytes(70e9, Precision::fp16), 140e9);
    EXPECT_DOUBLE_EQ(weights_bytes(70e9, Precision::fp8), 70e9);
}

TEST(WeightsBytes, ScalesWithBitsPerWeight) {
    EXPECT_DOUBLE_EQ(weights_bytes(1e9, Precision::fp32), 4e9);
    EXPECT_DOUBLE_EQ(weights_bytes(1e9, Precision::int8), 1e9);
    EXPECT_DOUBLE_EQ(weights_bytes(1e9, Precision::int4), 0.5e9);
}

TEST(EstimateWeights, ValidInputHasNoIssues) {
    auto e = estimate_weights({.params = 7e9, .precision = "BF16"});
    EXPECT_TRUE(e.issues.empty());
    EXPECT_EQ(e.precision, Precision::bf16);
    EXPECT_DOUBLE_EQ(e.bytes_per_param, 2.0);
    EXPECT_DOUBLE_EQ(e.weights_bytes, 14e9);
}

TEST(EstimateWeights, BadParamsNameTheFieldAndReason) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    struct Row { double params; const char* message; };
    const Row rows[] = {
        {-1, "must be a positive number of parameters, got -1"},
        {0, "must be a positive number of parameters, got 0"},
        {nan, "must be a number, got NaN"},
        {inf, "must be finite, got infinity"},
        {2e14, "must be at most 1e14 (100 trillion parameters), got 200000000000000"},
    };
    for (const auto& r : rows) {
        auto e = estimate_weights({.params = r.params, .precision = "bf16"});
        ASSERT_EQ(e.issues.size(), 1u) << r.message;
        EXPECT_EQ(e.issues[0], (Issue{"params", r.message}));
        EXPECT_EQ(e.weights_bytes, 0.0); // never a partial figure next to an error
    }
}

TEST(EstimateWeights, UnknownPrecisionListsTheKnownOnes) {
    auto e = estimate_weights({.params = 7e9, .precision = "fp7"});
    ASSERT_EQ(e.issues.size(), 1u);
    EXPECT_EQ(e.issues[0],
              (Issue{"precision", "unknown precision \"fp7\"; expected one of fp32, bf16, fp16, fp8, int8, int4"}));
}

TEST(EstimateWeights, ReportsEveryBadFieldAtOnce) {
    auto e = estimate_weights({.params = -5, .precision = ""});
    EXPECT_EQ(e.issues.size(), 2u);
}

} // namespace hwplan
