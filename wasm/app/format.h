// format.h: display formatting for the web app. Every number shown on the page goes through here (which
// uses the core's formatters, so the page, the CLI and the Markdown worksheet say the same thing).
#pragma once
#include <string>

#include "hwplan/format.h"
#include "hwplan/plan.h"
#include "hwplan/render.h"

namespace hwplan::ui {

inline std::string show_bytes(double bytes) { return format_bytes(bytes); }
inline std::string show_figure(const std::string& key, double v) { return format_figure(key, v); }
inline std::string show_band(const std::string& key, const Figure& f) {
    std::string s = format_figure(key, f.value);
    if (f.low != f.high) s += "  (" + format_figure(key, f.low) + " .. " + format_figure(key, f.high) + ")";
    return s;
}

} // namespace hwplan::ui
