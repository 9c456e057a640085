// hwplan/parse.h: strict text-to-number parsing for command lines and text inputs. No locale, no
// trailing garbage, no silent defaults: "7e9" -> 7e9, "7e9x" and "" -> nullopt.
// Usage: if (auto v = hwplan::parse_number(text)) use(*v); else report("expected a number");
#pragma once
#include <optional>
#include <string_view>

namespace hwplan {

std::optional<double> parse_number(std::string_view text); // accepts "nan"/"inf" so validation can name them

} // namespace hwplan
