// assumptions_test.cpp: the assumption set from catalog defaults and workload overrides.
#include "hwplan/assumptions.h"

#include <gtest/gtest.h>

#include "hwplan/catalog_embedded.h"

namespace hwplan {

namespace {
const Catalog& catalog() { return embedded_catalog().catalog; }
} // namespace

TEST(Assumptions, EveryNameHasASourcedDefaultWithAnOrderedRange) {
    Issues issues;
    const AssumptionSet set = assumptions_for(catalog(), {}, issues);
    EXPECT_TRUE(issues.empty()) << (issues.empty() ? "" : to_string(issues[0]));
    for (const auto& name : assumption_names()) {
        const auto& d = catalog().assumptions.at(name);
        EXPECT_LE(d.low, d.value) << name;
        EXPECT_LE(d.value, d.high) << name;
        EXPECT_FALSE(d.source.empty()) << name;
        EXPECT_FALSE(set.source.at(name).empty()) << name;
    }
    // vLLM's default gpu_memory_utilization and PagedAttention block size (vLLM engine arguments).
    EXPECT_DOUBLE_EQ(set.typical.serving_memory_utilization, 0.9);
    EXPECT_DOUBLE_EQ(set.typical.kv_block_tokens, 16);
    EXPECT_LE(set.low.decode_bandwidth_efficiency, set.typical.decode_bandwidth_efficiency);
    EXPECT_GE(set.high.decode_bandwidth_efficiency, set.typical.decode_bandwidth_efficiency);
}

TEST(Assumptions, OverridePinsAllThreeCases) {
    Issues issues;
    const AssumptionSet set = assumptions_for(catalog(), {{"training_mfu", 0.3}}, issues);
    EXPECT_TRUE(issues.empty());
    EXPECT_DOUBLE_EQ(set.low.training_mfu, 0.3);
    EXPECT_DOUBLE_EQ(set.typical.training_mfu, 0.3);
    EXPECT_DOUBLE_EQ(set.high.training_mfu, 0.3);
    EXPECT_EQ(set.source.at("training_mfu"), "workload");
}

TEST(Assumptions, BadOverridesAreNamed) {
    Issues issues;
    assumptions_for(catalog(), {{"decode_bandwith_efficiency", 0.5}, {"training_mfu", 0}, {"runtime_context_bytes", -1}}, issues);
    ASSERT_EQ(issues.size(), 3u);
    EXPECT_EQ(issues[0].path, "assumptions.decode_bandwith_efficiency");
    EXPECT_EQ(issues[0].message.rfind("unknown assumption; known: decode_bandwidth_efficiency, ", 0), 0u) << issues[0].message;
    EXPECT_EQ(issues[1], (Issue{"assumptions.runtime_context_bytes", "must be a non-negative number, got -1"}));
    EXPECT_EQ(issues[2], (Issue{"assumptions.training_mfu", "must be a ratio from 0.001 to 1, got 0"}));
}

} // namespace hwplan
