// decide.cpp: from numbers to a decision (lesson 004: stage, size, what can be run and bought, then the
// price per unit of useful work). Prices every candidate rented and owned, and hosted APIs serving the
// same model; marks each option feasible or says why not; ranks by cost per useful result; names the
// binding resource and the lever that moves it.
#include <algorithm>
#include <cmath>

#include "hwplan/cost.h"
#include "hwplan/format.h"
#include "hwplan/plan.h"
#include "hwplan/render.h"
#include "plan_internal.h"

namespace hwplan {

namespace {

bool serving(Stage s) { return s == Stage::serve || s == Stage::batch || s == Stage::edge; }

// The useful result each stage is priced in.
std::string unit_of(const Workload& w) {
    if (serving(w.stage)) return "usd_per_million_output_tokens";
    if (w.stage == Stage::embed) return "usd_per_1000_items";
    return w.train.tokens > 0 ? "usd_per_run" : "usd_per_million_training_tokens";
}

const Figure* fig(const Candidate& c, const char* key) {
    auto it = c.figures.find(key);
    return it == c.figures.end() ? nullptr : &it->second;
}

// Device-seconds of work per unit of useful result, banded (a low time gives a low cost). Empty when the
// candidate has no time figures (no published peak).
std::optional<Figure> seconds_per_unit(const Candidate& c, const Workload& w, double output_tokens_per_request) {
    auto inv = [](const Figure& f, double scale) {
        Figure out = f;
        out.value = scale / f.value;
        out.low = scale / f.high;
        out.high = scale / f.low;
        return out;
    };
    if (serving(w.stage)) {
        // GPU time per request (prefill + its share of decode steps), spread over its output tokens.
        const Figure* step = fig(c, "decode_step_s");
        const Figure* tput = fig(c, "throughput_tokens_per_s");
        const Figure* ttft = fig(c, "ttft_s");
        if (!step || !tput || !ttft) return std::nullopt;
        Figure per_token = inv(*tput, 1.0);
        Figure out = per_token;
        const double prefill_share = 1.0 / output_tokens_per_request;
        out.value = per_token.value + ttft->value * prefill_share;
        out.low = per_token.low + ttft->low * prefill_share;
        out.high = per_token.high + ttft->high * prefill_share;
        for (double* v : {&out.value, &out.low, &out.high}) *v *= 1e6; // per million output tokens
        return out;
    }
    if (w.stage == Stage::embed) {
        const Figure* ips = fig(c, "items_per_s");
        if (!ips) return std::nullopt;
        return inv(*ips, 1000.0);
    }
    if (w.train.tokens > 0) {
        const Figure* t = fig(c, "train_time_s");
        if (!t) return std::nullopt;
        return *t;
    }
    const Figure* tps = fig(c, "train_tokens_per_s");
    if (!tps) return std::nullopt;
    return inv(*tps, 1e6);
}

Figure scale(Figure f, double usd_per_second) {
    f.value *= usd_per_second;
    f.low *= usd_per_second;
    f.high *= usd_per_second;
    f.label = Label::modelled;
    return f;
}

// Targets the workload set: time to first token (p95 under load when modelled), per-user speed, window.
std::vector<std::string> missed_targets(const Candidate& c, const Workload& w) {
    std::vector<std::string> missed;
    if (serving(w.stage) && w.serve.ttft_target_s > 0) {
        const Figure* t = fig(c, "p95_ttft_s") ? fig(c, "p95_ttft_s") : fig(c, "ttft_s");
        const char* what = fig(c, "p95_ttft_s") ? "p95 time to first token" : "time to first token";
        if (t && !(t->value <= w.serve.ttft_target_s))
            missed.push_back(std::string("misses the ") + format_sig(w.serve.ttft_target_s, 3) + " s target: " + what + " " +
                             format_figure("ttft_s", t->value));
    }
    if (serving(w.stage) && w.serve.tokens_per_s_per_user_target > 0) {
        const Figure* t = fig(c, "decode_tokens_per_s_per_user");
        if (t && t->value < w.serve.tokens_per_s_per_user_target)
            missed.push_back("misses the " + format_sig(w.serve.tokens_per_s_per_user_target, 3) + " tokens/s per user target: " +
                             format_sig(t->value, 3) + " tokens/s");
    }
    if (w.stage == Stage::embed && w.embed.window_s > 0) {
        const Figure* r = fig(c, "window_used_ratio");
        if (r && r->value > 1) missed.push_back("misses the " + format_figure("window_s", w.embed.window_s) + " window: needs " +
                                                format_figure("embed_time_s", r->value * w.embed.window_s));
    }
    return missed;
}

std::string lever_for(const Candidate& c, const Workload& w) {
    switch (c.regime) {
    case Regime::capacity:
        return is_training_stage(w.stage) ? "capacity: LoRA/QLoRA, 8-bit optimizer state, ZeRO/FSDP sharding over more devices, or recomputation"
                                          : "capacity: quantize the weights (FP8, INT4) or the KV cache, cap the context, or shard over more devices";
    case Regime::bandwidth:
        return serving(w.stage) ? "bandwidth: batch more sequences per step, quantize weights and KV cache to move fewer bytes, or a device with faster memory"
                                : "bandwidth: larger batches, or a faster link or memory";
    case Regime::compute:
        return "compute: lower precision (FP8/FP4 where the kernels support it) or more devices";
    }
    return "";
}

} // namespace

// Lesson 003: when interactive and batch traffic share a replica, show what separating them does.
void isolation_reason(Plan& p, const Workload& w) {
    if (w.serve.traffic.size() < 2 || p.candidates.empty()) return;
    const Candidate& c = p.candidates.front();
    const Figure* mixed = fig(c, "p95_ttft_s");
    const Figure* alone = fig(c, "isolated_p95_ttft_s");
    if (!mixed || !alone) return;
    p.recommendation.reasons.push_back("isolation: on " + c.device + ", \"" + w.serve.traffic.front().name + "\" p95 time to first token is " +
                                       format_figure("ttft_s", mixed->value) + " sharing the replica and " +
                                       format_figure("ttft_s", alone->value) + " on a replica of its own: separate the traffic " +
                                       "(and cap the interactive route's context) before buying hardware");
}

void decide(Plan& p, const Workload& w, const Catalog& cat) {
    const std::string unit = unit_of(w);
    const double output_tokens = w.serve.output_tokens > 0 ? w.serve.output_tokens : std::round(w.serve.context_tokens / 4);
    const double hours = hours_used_per_month(w.usage) > 0 ? hours_used_per_month(w.usage) : serving(w.stage) ? kHoursPerMonth : 0;
    std::vector<Option> options;

    for (auto& c : p.candidates) {
        const Device* d = cat.device_by_id(c.device);
        if (!d) continue;
        const auto seconds = seconds_per_unit(c, w, std::max(1.0, output_tokens));
        const HourlyCost rent = rent_cost(*d, w.cost);
        const HourlyCost spot = rent_cost(*d, w.cost, PriceKind::cloud_spot);
        // A reservation is paid every hour of its term: per hour actually used it costs rate x 730 / hours used.
        HourlyCost reserved = rent_cost(*d, w.cost, PriceKind::cloud_reserved);
        const double used = serving(w.stage) ? kHoursPerMonth : hours_used_per_month(w.usage);
        if (reserved.available && used > 0 && used < kHoursPerMonth) {
            reserved.basis += ", paid for all 730 hours a month but used " + format_sig(used, 3);
            reserved.usd_per_hour *= kHoursPerMonth / used;
        }
        const HourlyCost own = own_cost(*d, w, cat.defaults);
        std::vector<const HourlyCost*> ways{&rent, &own};
        if (spot.available) ways.push_back(&spot);        // interruptible: for retryable batch work
        if (reserved.available) ways.push_back(&reserved); // a 1-3 year commitment
        for (const HourlyCost* hc : ways) {
            Option o;
            o.kind = hc == &own ? "own" : hc == &spot ? "rent_spot" : hc == &reserved ? "rent_reserved" : "rent";
            o.device = c.device;
            o.count = c.count;
            o.name = (hc == &spot ? std::string("rent (spot)") : hc == &reserved ? std::string("rent (reserved)") : o.kind) + " " +
                     std::to_string(c.count) + " x " + c.device_name;
            o.unit = unit;
            if (!c.fits) o.reasons.push_back("does not fit: needs " + format_bytes(c.memory.total_bytes) + " per device, " +
                                             format_bytes(c.memory.capacity_bytes) + " usable");
            // An owned job that runs now and then costs its purchase spread over the hours it is used;
            // without those hours (or a utilization) the owned price per result is unknown.
            if ((hc == &own || hc == &reserved) && hc->available && !serving(w.stage) && hours_used_per_month(w.usage) <= 0 &&
                w.cost.utilization <= 0)
                o.reasons.push_back(std::string(hc == &own ? "owning" : "reserving") +
                                    ": give usage (hours a month, or jobs a week x hours) or cost.utilization to price it");
            if (hc == &spot && w.stage == Stage::serve)
                o.reasons.push_back("spot capacity can be taken back at any time: not for an interactive endpoint");
            if (!hc->available)
                o.reasons.push_back(hc != &own ? (d->can_rent ? "no public rental price in the catalog" : "not offered for rent")
                                                : (d->can_buy ? "no public purchase price in the catalog"
                                                              : "cannot be bought" + (d->cloud_only.empty() ? std::string() : " (only in " + d->cloud_only + ")")));
            if (!w.framework.empty() && std::find(d->software.begin(), d->software.end(), w.framework) == d->software.end())
                o.reasons.push_back("does not run " + w.framework + " (catalog software list)");
            if (!seconds) o.reasons.push_back("speed not modelled: no published peak for the compute precision");
            for (auto& m : missed_targets(c, w)) o.reasons.push_back(m);
            if (hc->available && seconds) {
                o.cost = scale(*seconds, hc->usd_per_hour * c.count / 3600.0);
                o.cost.why = hc->basis + " x " + std::to_string(c.count) + " device(s)";
                if (hours > 0) o.usd_per_month = hc->usd_per_hour * c.count * hours;
                const std::string prefix = o.kind + "_";
                c.figures[prefix + "usd_per_hour"] =
                    Figure{hc->usd_per_hour * c.count, hc->usd_per_hour * c.count, hc->usd_per_hour * c.count, Label::arithmetic, hc->basis};
                c.figures[prefix + unit] = o.cost;
                // Serving: prompt and output tokens priced separately (prefill capacity vs decode capacity).
                if (serving(w.stage)) {
                    const Figure* tput = fig(c, "throughput_tokens_per_s");
                    const Figure* ttft = fig(c, "ttft_s");
                    const double prompt = w.serve.prompt_tokens > 0 ? w.serve.prompt_tokens : std::round(w.serve.context_tokens / 2);
                    const double per_s = hc->usd_per_hour * c.count / 3600.0;
                    if (tput && tput->value > 0)
                        c.figures[prefix + "usd_per_million_decode_tokens"] = Figure{per_s / tput->value * 1e6, per_s / tput->high * 1e6,
                            per_s / tput->low * 1e6, Label::modelled, "device cost / decode throughput at the workload's batch"};
                    if (ttft && ttft->value > 0)
                        c.figures[prefix + "usd_per_million_prompt_tokens"] = Figure{per_s * ttft->value / prompt * 1e6,
                            per_s * ttft->low / prompt * 1e6, per_s * ttft->high / prompt * 1e6, Label::modelled,
                            "device cost x prefill time / prompt tokens (one prompt at a time)"};
                }
                if (o.usd_per_month >= 0)
                    c.figures[prefix + "usd_per_month"] =
                        Figure{o.usd_per_month, o.usd_per_month, o.usd_per_month, Label::arithmetic,
                               format_sig(hours, 4) + " hours a month x " + format_sig(hc->usd_per_hour * c.count, 4) + " $/h"};
            }
            o.feasible = o.reasons.empty();
            if (o.feasible) o.reasons.push_back("fits and meets the targets; " + hc->basis);
            options.push_back(std::move(o));
        }
        // Buy versus rent: months until the purchase pays for itself at the workload's use.
        const double price = purchase_usd_per_device(*d);
        if (rent.available && own.available && price > 0 && hours > 0) {
            const double running = d->tdp_w / 1000.0 * cat.defaults.pue_ratio *
                                   (w.cost.usd_per_kwh >= 0 ? w.cost.usd_per_kwh : cat.defaults.electricity_usd_per_j * 3.6e6);
            const double months = breakeven_months(price * c.count, rent.usd_per_hour * c.count, running * c.count, hours);
            if (p.breakeven_curve.empty()) { // the curve over usage, for the first such candidate
                p.breakeven_device = c.device;
                for (double h : {10.0, 25.0, 50.0, 100.0, 200.0, 400.0, kHoursPerMonth})
                    p.breakeven_curve.push_back({h, breakeven_months(price * c.count, rent.usd_per_hour * c.count, running * c.count, h)});
            }
            if (std::isfinite(months))
                c.figures["breakeven_months"] = Figure{months, months, months, Label::arithmetic,
                    "purchase $" + format_sig(price * c.count, 6) + " / ((rent - power) x " + format_sig(hours, 4) + " h a month)"};
        }
    }

    // Hosted APIs serving the same model: priced per token, nothing to fit or operate.
    if (serving(w.stage) && w.model.from_catalog) {
        const double prompt = w.serve.prompt_tokens > 0 ? w.serve.prompt_tokens : std::round(w.serve.context_tokens / 2);
        for (const auto& api : cat.apis) {
            if (api.model != w.model.model.id) continue;
            Option o;
            o.kind = "api";
            o.name = api.provider + " " + api.model_name;
            o.unit = unit;
            const double per_request = prompt * api.input_usd_per_token + output_tokens * api.output_usd_per_token;
            const double v = per_request / output_tokens * 1e6;
            o.cost = Figure{v, v, v, Label::arithmetic, format_sig(prompt, 6) + " prompt tokens x $" + format_sig(api.input_usd_per_token * 1e6, 3) +
                                                          "/M + " + format_sig(output_tokens, 6) + " output tokens x $" +
                                                          format_sig(api.output_usd_per_token * 1e6, 3) + "/M per request"};
            if (api.context_tokens > 0 && w.serve.context_tokens > api.context_tokens)
                o.reasons.push_back("context " + format_sig(w.serve.context_tokens, 6) + " exceeds the API's " + format_sig(api.context_tokens, 6));
            if (!w.framework.empty()) o.reasons.push_back("a hosted API does not run " + w.framework);
            o.feasible = o.reasons.empty();
            if (o.feasible) o.reasons.push_back("no hardware to operate; idle time costs nothing (latency not modelled for APIs)");
            options.push_back(std::move(o));
        }
    }

    std::stable_sort(options.begin(), options.end(), [](const Option& a, const Option& b) {
        if (a.feasible != b.feasible) return a.feasible;
        const bool ac = a.cost.value > 0, bc = b.cost.value > 0;
        if (ac != bc) return ac;
        return a.cost.value < b.cost.value;
    });
    p.options = std::move(options);

    Recommendation& r = p.recommendation;
    if (p.options.empty() || !p.options.front().feasible) {
        r.summary = "No option fits, meets the targets and has a price.";
        if (!p.candidates.empty()) { // the nearest miss and what would move it
            const Candidate& c = p.candidates.front();
            r.summary += " Nearest: " + std::to_string(c.count) + " x " + c.device_name + " (" +
                         (c.fits ? "fits" : "needs " + format_bytes(c.memory.total_bytes) + " of " + format_bytes(c.memory.capacity_bytes) + " usable") + ").";
            r.lever = lever_for(c, w);
            for (const auto& o : p.options)
                if (o.device == c.device && !o.reasons.empty()) {
                    r.reasons = o.reasons;
                    break;
                }
        }
        isolation_reason(p, w);
        return;
    }
    r.found = true;
    r.option = p.options.front();
    const std::string cost = format_figure(unit, r.option.cost.value);
    r.summary = r.option.name + ": " + cost + " " + unit_label(unit) + " (" + r.option.cost.why + ")";
    if (r.option.kind != "api") {
        for (const auto& c : p.candidates)
            if (c.device == r.option.device) {
                r.reasons.push_back(std::string(name(c.regime)) + ": " + c.regime_why);
                r.lever = lever_for(c, w);
                r.reasons.push_back("memory: " + format_bytes(c.memory.total_bytes) + " of " + format_bytes(c.memory.capacity_bytes) +
                                    " usable per device");
                break;
            }
    } else {
        r.lever = "volume: at steady high traffic, owned or rented devices can undercut per-token prices; compare at your usage";
    }
    isolation_reason(p, w);
    for (size_t i = 1; i < p.options.size() && i < 4; ++i) {
        const Option& o = p.options[i];
        r.reasons.push_back("runner-up " + o.name + ": " + (o.feasible ? format_figure(unit, o.cost.value) + " " + unit_label(unit) : o.reasons.front()));
    }
}

} // namespace hwplan
