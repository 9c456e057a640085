// parse_test.cpp: strict number parsing, and counts written with a size suffix ("3B").
#include "hwplan/parse.h"

#include <cmath>
#include <gtest/gtest.h>

namespace hwplan {

TEST(ParseNumber, AcceptsPlainAndScientific) {
    EXPECT_EQ(parse_number("7e9"), 7e9);
    EXPECT_EQ(parse_number("7000000000"), 7e9);
    EXPECT_EQ(parse_number(" 1.5 "), 1.5);
    EXPECT_EQ(parse_number("+3"), 3.0);
    EXPECT_EQ(parse_number("-1"), -1.0);
}

TEST(ParseNumber, RejectsGarbage) {
    for (const char* bad : {"", " ", "7e", "7B", "seven", "1,5", "7e9x", "0x10"})
        EXPECT_FALSE(parse_number(bad)) << '"' << bad << '"';
}

TEST(ParseNumber, PassesNanAndInfinityThroughForValidationToName) {
    auto nan = parse_number("nan");
    ASSERT_TRUE(nan);
    EXPECT_TRUE(std::isnan(*nan));
    auto inf = parse_number("inf");
    ASSERT_TRUE(inf);
    EXPECT_TRUE(std::isinf(*inf));
}

TEST(ParseCount, ReadsModelSizesWithTheirSuffix) {
    EXPECT_EQ(parse_count("3B"), 3e9);
    EXPECT_EQ(parse_count("3b"), 3e9);
    EXPECT_EQ(parse_count("1.5T"), 1.5e12);
    EXPECT_EQ(parse_count("350M"), 350e6);
    EXPECT_EQ(parse_count("125k"), 125e3);
    EXPECT_EQ(parse_count(" 70B "), 70e9);
    EXPECT_EQ(parse_count("7e9"), 7e9); // a plain number is read as parse_number reads it
}

TEST(ParseCount, RejectsOtherSuffixesAndSizesThatAreNotNumbers) {
    for (const char* bad : {"", "B", "3GB", "3BB", "seven", "infB", "nanK", "7e"})
        EXPECT_FALSE(parse_count(bad)) << '"' << bad << '"';
}

} // namespace hwplan
