// format.h: display formatting for the web app. Every number shown on the page goes through here (which
// uses the core's formatters, so the page, the CLI and the Markdown worksheet say the same thing), and
// figure keys get human names with their unit.
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

// "ttft_s" -> "time to first token"; unknown keys lose their underscores and unit suffix.
inline std::string figure_label(const std::string& key) {
    static const std::pair<const char*, const char*> kNames[] = {
        {"ttft_s", "time to first token"}, {"p95_ttft_s", "p95 time to first token"},
        {"decode_tokens_per_s_per_user", "tokens/s per user"}, {"throughput_tokens_per_s", "throughput (tokens/s)"},
        {"max_concurrent_users", "max users at once"}, {"step_time_s", "step time"},
        {"train_tokens_per_s", "training tokens/s"}, {"train_time_s", "training time"},
        {"rollout_throughput_tokens_per_s", "rollout tokens/s"}, {"items_per_s", "items/s"},
        {"rl_step_s", "RL step (generate + train + sync)"}, {"rl_tokens_per_s", "RL tokens/s (both pools)"},
        {"embed_time_s", "embedding time"}, {"window_used_ratio", "share of the window used"},
        {"prefill_s", "prefill time"}, {"decode_step_s", "decode step time"}, {"trainable_params", "trainable parameters"},
    };
    for (const auto& [k, v] : kNames)
        if (key == k) return v;
    std::string s = key;
    for (const char* suffix : {"_s", "_bytes", "_ratio", "_usd"})
        if (s.size() > std::string(suffix).size() && s.compare(s.size() - std::string(suffix).size(), std::string::npos, suffix) == 0)
            s.resize(s.size() - std::string(suffix).size());
    for (char& c : s)
        if (c == '_') c = ' ';
    return s;
}

} // namespace hwplan::ui
