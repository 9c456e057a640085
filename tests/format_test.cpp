// format_test.cpp: display formatting, decimal units.
#include "hwplan/format.h"

#include <gtest/gtest.h>

namespace hwplan {

TEST(FormatSig, RoundsToSignificantDigitsWithoutTrailingZeros) {
    EXPECT_EQ(format_sig(14.0), "14");
    EXPECT_EQ(format_sig(3.5), "3.5");
    EXPECT_EQ(format_sig(0.1234), "0.123");
    EXPECT_EQ(format_sig(1234.0), "1234");
    EXPECT_EQ(format_sig(-1.0, 6), "-1");
    EXPECT_EQ(format_sig(0.0), "0");
    EXPECT_EQ(format_sig(1.4e10, 6), "14000000000");
    EXPECT_EQ(format_sig(-3.5), "-3.5");
    EXPECT_EQ(format_sig(0.000999), "0.000999");
    EXPECT_EQ(format_sig(99.96), "100");
    EXPECT_EQ(format_sig(-0.0004), "-0.0004");
    EXPECT_EQ(format_sig(2e15), "2e+15"); // beyond plain digits: scientific
}

TEST(FormatBytes, ChoosesDecimalUnit) {
    EXPECT_EQ(format_bytes(512), "512 B");
    EXPECT_EQ(format_bytes(1.4e10), "14 GB");
    EXPECT_EQ(format_bytes(1.4e11), "140 GB");
    EXPECT_EQ(format_bytes(1.12e11), "112 GB");
    EXPECT_EQ(format_bytes(1.1e12), "1.1 TB");
    EXPECT_EQ(format_bytes(3.5e9), "3.5 GB");
}

TEST(FormatBytes, RoundingUpToAThousandMovesToTheNextUnit) {
    EXPECT_EQ(format_bytes(999.7e9), "1 TB");
    EXPECT_EQ(format_bytes(999.4e9), "999 GB");
}

TEST(FormatCount, NamesTheScale) {
    EXPECT_EQ(format_count(7e9), "7 billion");
    EXPECT_EQ(format_count(405e9), "405 billion");
    EXPECT_EQ(format_count(1.04e12), "1.04 trillion");
    EXPECT_EQ(format_count(512), "512");
}

} // namespace hwplan
