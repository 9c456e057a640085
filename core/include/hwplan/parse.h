// hwplan/parse.h: strict text-to-number parsing for command lines and text inputs. No locale, no
// trailing garbage, no silent defaults: "7e9" -> 7e9, "7e9x" and "" -> nullopt.
// Usage: if (auto v = hwplan::parse_number(text)) use(*v); else report("expected a number");
//        hwplan::parse_count("70B") == 70e9
#pragma once
#include <optional>
#include <string_view>

namespace hwplan {

std::optional<double> parse_number(std::string_view text); // accepts "nan"/"inf" so validation can name them
// A count as model sizes are written: a number with an optional K, M, B or T (thousand, million, billion,
// trillion; either case), "3B" -> 3e9, "1.5T" -> 1.5e12; a plain number as parse_number ("7e9"); "3GB" -> nullopt.
std::optional<double> parse_count(std::string_view text);

} // namespace hwplan
