// hwplan/format.h: display formatting shared by the CLI and the web app. The core computes in SI;
// these functions choose the display unit and the digits. Decimal units (GB = 1e9 bytes).
// Usage: hwplan::format_bytes(1.4e10) -> "14 GB";   hwplan::format_count(7e9) -> "7 billion"
#pragma once
#include <string>

namespace hwplan {

std::string format_sig(double value, int significant = 3); // "14", "3.5", "0.123", "1234" (no exponent below 1e15)
std::string format_bytes(double bytes);                    // "512 B", "1.5 kB", "14 GB", "1.1 TB"
std::string format_count(double n);                        // "7 billion", "405 billion", "1.04 trillion", "512"

} // namespace hwplan
