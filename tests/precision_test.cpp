// precision_test.cpp: format names and storage sizes (IEEE 754 / OCP 8-bit FP: bits per value).
#include "hwplan/precision.h"

#include <gtest/gtest.h>

namespace hwplan {

TEST(Precision, BytesPerValueFollowTheFormatWidth) {
    struct Row { const char* name; double bytes; };
    const Row rows[] = {{"fp32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}, {"int8", 1}, {"int4", 0.5}, {"fp4", 0.5}};
    for (const auto& r : rows) {
        auto p = parse_precision(r.name);
        ASSERT_TRUE(p) << r.name;
        EXPECT_EQ(bytes_per_value(*p), r.bytes) << r.name;
        EXPECT_EQ(name(*p), r.name);
    }
}

TEST(Precision, NamesAreCaseInsensitive) {
    EXPECT_EQ(parse_precision("BF16"), Precision::bf16);
    EXPECT_EQ(parse_precision("Fp8"), Precision::fp8);
}

TEST(Precision, UnknownNamesAreRejected) {
    for (const char* bad : {"", "fp7", "bf 16", "bf16 ", "float"}) EXPECT_FALSE(parse_precision(bad)) << bad;
}

TEST(Precision, EveryFormatIsListedOnce) {
    EXPECT_EQ(all_precisions().size(), 7u);
    EXPECT_EQ(precision_names(), "fp32, bf16, fp16, fp8, int8, int4, fp4"); // fp4 last: the page's lists keep their indexes
}

} // namespace hwplan
