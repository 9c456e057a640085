// hwplan/units.h: SI scale constants. The core works in SI base units (bytes, FLOP, seconds, W, USD);
// these constants convert catalog and display scales (GB, GiB, TFLOPS) at the edges only.
// Usage: double bytes = 80 * hwplan::kGB;   double gb = bytes / hwplan::kGB;
#pragma once

namespace hwplan {

inline constexpr double kKB = 1e3;                            // kilobyte (decimal)
inline constexpr double kMB = 1e6;                            // megabyte (decimal)
inline constexpr double kGB = 1e9;                            // gigabyte (decimal), as datasheets use it
inline constexpr double kTB = 1e12;                           // terabyte (decimal)
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;      // gibibyte (2^30), as drivers report it
inline constexpr double kTera = 1e12;                         // TFLOPS -> FLOP/s
inline constexpr double kBitsPerByte = 8.0;

} // namespace hwplan
