// render.cpp: terminal table and Markdown worksheet of a plan.
#include "hwplan/render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "hwplan/format.h"

namespace hwplan {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string duration(double s) {
    if (!std::isfinite(s)) return "unbounded";
    if (s < 1e-3) return format_sig(s * 1e6, 3) + " us";
    if (s < 1) return format_sig(s * 1e3, 3) + " ms";
    if (s < 120) return format_sig(s, 3) + " s";
    if (s < 7200) return format_sig(s / 60, 3) + " min";
    if (s < 172800) return format_sig(s / 3600, 3) + " h";
    return format_sig(s / 86400, 3) + " days";
}

std::string band(const std::string& key, const Figure& f) {
    std::string s = format_figure(key, f.value);
    if (f.low != f.high) s += " (" + format_figure(key, f.low) + " .. " + format_figure(key, f.high) + ")";
    return s;
}

std::string title_of(const Plan& p) {
    return (p.name.empty() ? std::string("Workload") : p.name) + " (" + std::string(name(p.stage)) + ", " + p.model_name + ", " +
           p.precision.weights + " weights)";
}

} // namespace

std::vector<std::string> headline_keys(Stage s) {
    switch (s) {
    case Stage::serve:
    case Stage::batch:
    case Stage::edge:
        return {"ttft_s", "decode_tokens_per_s_per_user", "throughput_tokens_per_s", "max_concurrent_users", "p95_ttft_s"};
    case Stage::finetune:
    case Stage::pretrain: return {"step_time_s", "train_tokens_per_s", "train_time_s"};
    case Stage::rl: return {"rl_step_s", "rl_tokens_per_s", "train_time_s", "step_time_s", "rollout_throughput_tokens_per_s"};
    case Stage::embed: return {"items_per_s", "embed_time_s", "window_used_ratio"};
    }
    return {};
}

std::string format_figure(const std::string& key, double v) {
    if (!std::isfinite(v)) return "unbounded";
    if (ends_with(key, "_bytes")) return format_bytes(v);
    if (ends_with(key, "_ratio")) return format_sig(100 * v, 3) + " %";
    if (ends_with(key, "tokens_per_s") || ends_with(key, "_per_s_per_user")) return format_sig(v, 3) + " tokens/s";
    if (key == "items_per_s") return format_sig(v, 3) + " items/s";
    if (ends_with(key, "_s")) return duration(v);
    if (key == "trainable_params") return format_count(v);
    if (key.rfind("usd", 0) == 0 || key.find("_usd") != std::string::npos) return "$" + format_sig(v, 3);
    if (key == "breakeven_months") return format_sig(v, 3) + " months";
    return format_sig(v, 6);
}

std::string unit_label(const std::string& unit_key) {
    std::string s = unit_key.rfind("usd_", 0) == 0 ? unit_key.substr(4) : unit_key;
    for (auto& ch : s)
        if (ch == '_') ch = ' ';
    return s;
}

std::vector<std::string> decision_lines(const Plan& p, size_t max_eliminated) {
    const Decision& d = p.decision;
    std::vector<std::string> out;
    if (!d.guide.empty())
        out.push_back("first-cut guide (lesson 004, choose.go): " + d.guide + " (" + d.guide_why + "); " +
                      (d.guide_agrees ? "the computed answer agrees" : "differs: " + d.guide_note));
    if (!d.eliminated.empty()) {
        out.push_back("eliminated before price (" + std::to_string(d.eliminated.size()) + "):");
        for (size_t i = 0; i < d.eliminated.size() && i < max_eliminated; ++i) out.push_back("  " + d.eliminated[i]);
        if (d.eliminated.size() > max_eliminated)
            out.push_back("  ... and " + std::to_string(d.eliminated.size() - max_eliminated) + " more (--format json lists all)");
    }
    if (!d.checks.empty()) {
        out.push_back("the three checks before signing:");
        for (const auto& c : d.checks) out.push_back("  " + c);
    }
    return out;
}

std::string recommendation_text(const Recommendation& r) {
    std::string out = "Recommendation: " + r.headline + "\n";
    if (r.found && !r.option.cost_terms.empty()) {
        out += "  cost breakdown:\n";
        char line[64];
        for (const auto& t : r.option.cost_terms) {
            std::snprintf(line, sizeof line, "    %-16s ", t.term.c_str());
            out += line + t.value + "\n";
        }
    }
    return out;
}

std::string recommendation_markdown(const Recommendation& r) {
    std::string out = "**Recommendation:** " + r.headline + "\n\n";
    if (r.found && !r.option.cost_terms.empty()) {
        out += "| cost term | value |\n|---|---|\n";
        for (const auto& t : r.option.cost_terms) out += "| " + t.term + " | " + t.value + " |\n";
        out += "\n";
    }
    return out;
}

std::string render_table(const Plan& p, size_t max_candidates) {
    std::string out = title_of(p) + "\n";
    out += recommendation_text(p.recommendation);
    for (const auto& r : p.recommendation.reasons) out += "  - " + r + "\n";
    if (!p.recommendation.lever.empty()) out += "  lever: " + p.recommendation.lever + "\n";
    for (const auto& l : decision_lines(p)) out += "  " + l + "\n";
    out += "\n";
    const auto keys = headline_keys(p.stage);
    char line[512];
    std::snprintf(line, sizeof line, "%-24s %5s %-5s %-16s %10s %10s  %s\n", "device", "count", "fits", "regime", "memory", "usable", "figures");
    out += line;
    size_t shown = 0;
    for (const auto& c : p.candidates) {
        if (shown++ >= max_candidates) break;
        std::string figs;
        for (const auto& k : keys) {
            auto it = c.figures.find(k);
            if (it == c.figures.end()) continue;
            if (!figs.empty()) figs += "; ";
            figs += k + " " + band(k, it->second);
        }
        std::snprintf(line, sizeof line, "%-24s %5d %-5s %-16s %10s %10s  ", c.device.c_str(), c.count, c.fits ? "yes" : "NO",
                      std::string(name(c.regime)).c_str(), format_bytes(c.memory.total_bytes).c_str(),
                      format_bytes(c.memory.capacity_bytes).c_str());
        // The row's ranking reason where a step ahead of the price put it after the recommendation (Option::rank_why).
        const Option* o = c.option >= 0 && c.option < static_cast<int>(p.options.size()) ? &p.options[static_cast<size_t>(c.option)] : nullptr;
        out += line + figs + (o && o->feasible && !o->rank_why.empty() ? "\n" + std::string(26, ' ') + "(" + o->rank_why + ")" : std::string()) + "\n";
    }
    if (p.candidates.size() > max_candidates)
        out += "(" + std::to_string(p.candidates.size() - max_candidates) + " more candidates; --format json lists all)\n";
    if (!p.candidates.empty()) {
        const auto& c = p.candidates.front();
        out += "\nMemory on one " + c.device + " (" + (c.fits ? "fits" : "does not fit") + "):\n";
        for (const auto& t : c.memory.terms) {
            std::snprintf(line, sizeof line, "  %-12s %10s  ", t.name.c_str(), format_bytes(t.bytes).c_str());
            out += line + t.why + "\n";
        }
        std::snprintf(line, sizeof line, "  %-12s %10s  of %s usable\n", "total", format_bytes(c.memory.total_bytes).c_str(),
                      format_bytes(c.memory.capacity_bytes).c_str());
        out += line;
        out += "Regime: " + std::string(name(c.regime)) + ": " + c.regime_why + "\n";
        for (const auto& n : c.notes) out += "Note: " + n + "\n";
        if (c.rl.sized)
            for (const auto& r : c.rl.reasons) out += "RL pools: " + r + "\n";
    }
    if (const auto changes = change_lines(p); !changes.empty()) {
        out += "\nWhat would change the answer:\n";
        for (const auto& l : changes) out += "  - " + l + "\n";
    }
    if (!p.missing_assumptions.empty()) {
        out += "\nAssumed because not given:\n";
        for (const auto& m : p.missing_assumptions) out += "  - " + m + "\n";
    }
    if (!p.sensitivity.empty()) {
        out += "How the recommendation moves across them:\n";
        for (const auto& m : p.sensitivity) out += "  - " + m + "\n";
    }
    return out;
}

std::string unit_cost_words(const Option& o) {
    if (o.cost.value > 0) return format_figure(o.unit, o.cost.value) + " " + unit_label(o.unit);
    return o.cost.why.empty() ? "price not in the catalog" : o.cost.why;
}

namespace {

// A kind of option as a buyer says it ("no purchase", "the best priced rental").
std::string kind_words(const std::string& kind) {
    return kind == "own" ? "purchase" : kind == "rent" ? "rental" : kind == "rent_spot" ? "spot rental" : kind == "rent_reserved" ? "reservation"
           : kind == "api" ? "hosted API" : kind;
}

// The reason an option ranks after the recommendation ahead of the price (kRankedAfter), or nullptr.
const std::string* ranked_after(const Option& o) {
    for (const std::string& r : o.reasons)
        if (r.rfind(kRankedAfter, 0) == 0) return &r;
    return nullptr;
}

// Set aside only because no usage is given: a catalog price that usage would turn into a unit cost.
bool waits_for_usage(const Option& o) { return o.eliminated_by == std::vector<Elimination>{Elimination::no_usage}; }

// One entry of the best-of-kind line: the option and its unit cost as its headline says it; the recommendation, when
// unpriced with a priced option of its kind feasible, on what it goes first; another kind's best that costs less than
// the recommendation (or prices what the recommendation cannot), why it ranks after it.
std::string best_entry(const Plan& p, const Option& o) {
    const Option& r = p.options.front();
    std::string s = o.name + (o.cost.value > 0 ? " at " : ": ") + unit_cost_words(o);
    if (&o == &r && !(o.cost.value > 0)) {
        for (const Option& x : p.options)
            if (x.feasible && x.kind == o.kind && x.cost.value > 0) {
                const std::string* why = ranked_after(x);
                const std::string on = why ? why->substr(std::string(kRankedAfter).size()) : "";
                s += " (first on " + on.substr(0, on.find(": ")) + ", not on cost; the best priced " + kind_words(o.kind) + ": " + x.name + " at " +
                     unit_cost_words(x) + ")";
                break;
            }
        // Recommended unpriced while the priced options of its kind wait only for usage: the usage that would price them.
        const auto waiting = std::find_if(p.options.begin(), p.options.end(), [&](const Option& x) { return x.kind == o.kind && waits_for_usage(x); });
        if (waiting != p.options.end()) s += " (the " + kind_words(o.kind) + "s the catalog prices wait for usage: " + waiting->reasons.front() + ")";
    } else if (&o != &r && o.cost.value > 0 && o.unit == r.unit && (!(r.cost.value > 0) || o.cost.value < r.cost.value)) {
        if (const std::string* why = ranked_after(o)) s += " (" + *why + ")";
    }
    return s;
}

} // namespace

std::vector<std::string> change_lines(const Plan& p) {
    std::vector<std::string> out;
    if (!p.best_by_kind.empty()) {
        std::string best = "Best of each kind:";
        std::vector<std::string> kinds;
        for (const int i : p.best_by_kind) {
            const Option& o = p.options[static_cast<size_t>(i)];
            kinds.push_back(o.kind);
            best += (best.back() == ':' ? " " : "; ") + best_entry(p, o);
        }
        // A kind whose priced options wait for usage and whose feasible ones have no price (flips.cpp best_by_kind
        // lists none of them): the usage that would price it, and the first unpriced one.
        for (const Option& o : p.options) {
            if (!waits_for_usage(o) || std::find(kinds.begin(), kinds.end(), o.kind) != kinds.end()) continue;
            const auto unpriced = std::find_if(p.options.begin(), p.options.end(), [&](const Option& x) { return x.feasible && x.kind == o.kind; });
            if (unpriced == p.options.end()) continue;
            kinds.push_back(o.kind);
            best += "; no priced " + kind_words(o.kind) + " (" + o.reasons.front() + "; " + unpriced->name + ": " + unit_cost_words(*unpriced) + ")";
        }
        // One kind alone: why none of the others is there (the reason that eliminated most options of that kind, the
        // first met on a tie: "site: your own data centre ..." rather than one device's software).
        if (p.best_by_kind.size() == 1)
            for (const Option& o : p.options) {
                if (std::find(kinds.begin(), kinds.end(), o.kind) != kinds.end() || o.reasons.empty()) continue;
                kinds.push_back(o.kind);
                std::vector<std::pair<std::string, int>> counts;
                for (const Option& x : p.options)
                    if (x.kind == o.kind)
                        for (const std::string& r : x.reasons) {
                            auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == r; });
                            if (it == counts.end()) counts.push_back({r, 1});
                            else ++it->second;
                        }
                const auto most = std::max_element(counts.begin(), counts.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
                best += "; no " + kind_words(o.kind) + " (" + (most != counts.end() ? most->first : o.reasons.front()) + ")";
            }
        out.push_back(best + ".");
    }
    for (const auto& f : p.flips) out.push_back(f.text);
    return out;
}

std::string render_markdown(const Plan& p, size_t max_candidates) {
    std::string out = "# " + title_of(p) + "\n\n";
    out += recommendation_markdown(p.recommendation);
    for (const auto& r : p.recommendation.reasons) out += "- " + r + "\n";
    if (!p.recommendation.lever.empty()) out += "- lever: " + p.recommendation.lever + "\n";
    for (const auto& l : decision_lines(p)) out += (l.rfind("  ", 0) == 0 ? "  - " + l.substr(2) : "- " + l) + "\n";
    if (!p.options.empty()) {
        out += "\n## Options by cost per useful result\n\n| option | cost | per month | feasible | why |\n|---|---|---|---|---|\n";
        size_t shown = 0;
        for (const auto& o : p.options) {
            if (shown++ >= max_candidates * 2) break;
            out += "| " + o.name + " | " + (o.cost.value > 0 ? format_figure(o.unit, o.cost.value) + " " + unit_label(o.unit) : std::string("-")) +
                   " | " + (o.usd_per_month >= 0 ? "$" + format_sig(o.usd_per_month, 4) : std::string("-")) + " | " +
                   (o.feasible ? "yes" : "no") + " | " + (o.reasons.empty() ? "" : o.reasons.front()) + " |\n";
        }
    }
    out += "\n";
    out += "Parameters: " + format_count(p.params) + " (" + format_count(p.active_params) + " active per token). Precision: weights " +
           p.precision.weights + ", KV cache " + p.precision.kv_cache + ", compute " + p.precision.compute + ".\n\n";
    const auto keys = headline_keys(p.stage);
    out += "| device | count | fits | regime | memory per device | usable |";
    for (const auto& k : keys) out += " " + k + " |";
    out += "\n|---|---|---|---|---|---|";
    for (size_t i = 0; i < keys.size(); ++i) out += "---|";
    out += "\n";
    size_t shown = 0;
    for (const auto& c : p.candidates) {
        if (shown++ >= max_candidates) break;
        out += "| " + c.device_name + " | " + std::to_string(c.count) + " | " + (c.fits ? "yes" : "no") + " | " +
               std::string(name(c.regime)) + " | " + format_bytes(c.memory.total_bytes) + " | " + format_bytes(c.memory.capacity_bytes) + " |";
        for (const auto& k : keys) {
            auto it = c.figures.find(k);
            out += " " + (it == c.figures.end() ? std::string("-") : band(k, it->second)) + " |";
        }
        out += "\n";
    }
    if (!p.candidates.empty()) {
        const auto& c = p.candidates.front();
        out += "\n## Memory on one " + c.device_name + "\n\n| term | bytes | why |\n|---|---|---|\n";
        for (const auto& t : c.memory.terms) out += "| " + t.name + " | " + format_bytes(t.bytes) + " | " + t.why + " |\n";
        out += "| **total** | **" + format_bytes(c.memory.total_bytes) + "** | of " + format_bytes(c.memory.capacity_bytes) + " usable |\n";
        out += "\n**Regime:** " + std::string(name(c.regime)) + ": " + c.regime_why + "\n";
        for (const auto& n : c.notes) out += "\n- " + n;
        if (!c.notes.empty()) out += "\n";
    }
    if (!p.breakeven_curve.empty()) {
        out += "\n## Buy or rent (" + p.breakeven_device + ")\n\n| hours used a month | months until buying pays off |\n|---|---|\n";
        for (const auto& [h, m] : p.breakeven_curve)
            out += "| " + format_sig(h, 4) + " | " + (std::isfinite(m) ? format_sig(m, 3) : std::string("never")) + " |\n";
    }
    if (const auto changes = change_lines(p); !changes.empty()) {
        out += "\n## What would change the answer\n\n";
        for (const auto& l : changes) out += "- " + l + "\n";
    }
    if (!p.missing_assumptions.empty()) {
        out += "\n## Assumed because not given\n\n";
        for (const auto& m : p.missing_assumptions) out += "- " + m + "\n";
    }
    if (!p.sensitivity.empty()) {
        out += "\n## How the recommendation moves across them\n\n";
        for (const auto& m : p.sensitivity) out += "- " + m + "\n";
    }
    out += "\nFigures are typical values with the range across the assumptions' low and high ends in brackets.\n";
    return out;
}

} // namespace hwplan
