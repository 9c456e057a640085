// decide_figures.cpp: what a decision reads from a candidate and the workload, as numbers: the unit each stage is
// priced in, the device-seconds per unit of useful result, the speed and latency the priorities rank by, and the
// demand a serving workload fixes (lesson 003's "cost per useful result").
#include <algorithm>
#include <cmath>

#include "decide_internal.h"
#include "hwplan/format.h"

namespace hwplan::decide_parts {

std::string unit_of(const Workload& w) {
    if (is_serving_stage(w.stage)) return "usd_per_million_output_tokens";
    if (w.stage == Stage::embed) return "usd_per_1000_items";
    return w.train.tokens > 0 ? "usd_per_run" : "usd_per_million_training_tokens";
}

const Figure* fig(const Candidate& c, std::string_view key) {
    auto it = c.figures.find(key);
    return it == c.figures.end() ? nullptr : &it->second;
}

// A low time gives a low cost: the band follows the figure's. Only the numbers are kept (the words are the option's).
std::optional<Figure> seconds_per_unit(const Candidate& c, const Workload& w, double output_tokens_per_request) {
    auto inv = [](const Figure& f, double scale) { return Figure{scale / f.value, scale / f.high, scale / f.low, f.label, {}}; };
    if (is_serving_stage(w.stage)) {
        // GPU time per request (prefill + its share of decode steps), spread over its output tokens.
        const Figure* step = fig(c, "decode_step_s");
        const Figure* tput = fig(c, "throughput_tokens_per_s");
        const Figure* ttft = fig(c, "ttft_s");
        if (!step || !tput || !ttft) return std::nullopt;
        Figure out = inv(*tput, 1.0);
        // Offline batches and serving at an arrival rate count prefill in their throughput already (plan_serving.cpp).
        const double prefill_share = w.stage == Stage::batch || rate_batch(w) ? 0.0 : 1.0 / output_tokens_per_request;
        out.value += ttft->value * prefill_share;
        out.low += ttft->low * prefill_share;
        out.high += ttft->high * prefill_share;
        for (double* v : {&out.value, &out.low, &out.high}) *v *= 1e6; // per million output tokens
        return out;
    }
    if (w.stage == Stage::embed) {
        const Figure* ips = fig(c, "items_per_s");
        if (!ips) return std::nullopt;
        return inv(*ips, 1000.0);
    }
    // RL: the whole job (both pools, every step: plan_rl.cpp rl_job_figures); unknown without sized pools.
    if (w.stage == Stage::rl && !fig(c, "rl_tokens_per_s")) return std::nullopt;
    if (w.train.tokens > 0) {
        const Figure* t = fig(c, "train_time_s");
        if (!t) return std::nullopt;
        return Figure{t->value, t->low, t->high, t->label, {}};
    }
    const Figure* tps = fig(c, w.stage == Stage::rl ? "rl_tokens_per_s" : "train_tokens_per_s");
    if (!tps) return std::nullopt;
    return inv(*tps, 1e6);
}

// Per-user decode speed when serving, else the job's rate.
double speed_of(const Candidate& c, const Workload& w) {
    const Figure* f = is_serving_stage(w.stage) ? fig(c, "decode_tokens_per_s_per_user")
                      : w.stage == Stage::embed ? fig(c, "items_per_s")
                      : fig(c, w.stage == Stage::rl ? "rl_tokens_per_s" : "train_tokens_per_s");
    return f ? f->value : 0;
}

double latency_of(const Candidate& c) {
    const Figure* p95 = fig(c, "p95_ttft_s");
    const Figure* f = p95 ? p95 : fig(c, "ttft_s");
    return f ? f->value : 0;
}

// An RL job's trainer and rollout pools together (plan_rl.cpp rl_job_figures), else the candidate's count.
int fleet_devices(const Candidate& c) {
    const Figure* f = fig(c, "rl_devices");
    return f ? int(f->value) : c.count;
}

// Rentals of a batch or training job are billed per run.
double run_seconds(const Candidate& c, const Workload& w) {
    const Figure* f = w.stage == Stage::embed ? fig(c, "embed_time_s") : is_training_stage(w.stage) ? fig(c, "train_time_s") : nullptr;
    return f ? f->value : 0;
}

bool workload_gives(const Workload& w, const std::string& key) { return std::find(w.given.begin(), w.given.end(), key) != w.given.end(); }

// SoCs, CPUs and NPUs are planned with a llama.cpp-style local runtime (plan_facts.cpp local_runtime), not a batching serving engine.
bool local_device(const Device& d) { return d.kind == DeviceKind::soc || d.kind == DeviceKind::cpu || d.kind == DeviceKind::npu; }

// FP8 compute asked for on a device with no published FP8 peak: plan_facts.cpp peak_for times it at a 16-bit peak, i.e.
// a different numeric path (FP8 weights dequantized to 16 bits). A bf16/fp16 swap is not counted: serving engines
// treat the two as equivalent.
bool computes_fp8_at_16_bits(const Device& d, const std::string& compute) { return compute == "fp8" && !d.fp8.supported; }

std::string units_phrase(const PurchaseUnits& u) {
    auto ends = [&](const std::string& tail) { return u.unit.size() > tail.size() && u.unit.compare(u.unit.size() - tail.size(), tail.size(), tail) == 0; };
    const bool plural = u.units > 1 && (ends("server") || ends("instance") || ends("rack"));
    return std::to_string(u.units) + " x " + u.unit + (plural ? "s" : "");
}

// [SECTION] fixed demand ----------------------------------------------------------------------------
// A faster device does not create more useful tokens: users read at their own rate (lesson 003's "cost per useful
// result"), so a fixed demand is priced as the monthly cost of the fleet that meets it.
// Arrival rate x output tokens (every traffic class), else concurrent users x the pace each consumes: the per-user
// speed target when given, else the reading pace (assumption user_read_tokens_per_s: Brysbaert 2019, 238 words a
// minute, x 100/70 tokens a word from Google's Gemini token guide).
Demand fixed_demand(const Workload& w, const AssumptionSet& as, double output_tokens) {
    Demand d;
    if (!is_serving_stage(w.stage)) return d;
    if (!w.serve.traffic.empty() || w.serve.requests_per_s > 0) {
        if (!w.serve.traffic.empty())
            for (const auto& c : w.serve.traffic) d.tokens_per_s += c.requests_per_s * c.output_tokens;
        else
            d.tokens_per_s = w.serve.requests_per_s * output_tokens;
        d.low_tokens_per_s = d.high_tokens_per_s = d.tokens_per_s;
        return d;
    }
    if (w.stage != Stage::serve || !workload_gives(w, "serve.concurrent_users") || w.serve.concurrent_users <= 0) return d;
    d.from_users = true;
    const double users = w.serve.concurrent_users;
    const bool target = w.serve.tokens_per_s_per_user_target > 0;
    d.per_user_tokens_per_s = target ? w.serve.tokens_per_s_per_user_target : as.typical.user_read_tokens_per_s;
    d.tokens_per_s = users * d.per_user_tokens_per_s;
    d.low_tokens_per_s = target ? d.tokens_per_s : users * as.low.user_read_tokens_per_s;
    d.high_tokens_per_s = target ? d.tokens_per_s : users * as.high.user_read_tokens_per_s;
    return d;
}

std::string demand_words(const Demand& d, const Workload& w, double output_tokens) {
    if (d.from_users) {
        const bool target = w.serve.tokens_per_s_per_user_target > 0;
        return format_sig(w.serve.concurrent_users, 6) + " users x " + format_sig(d.per_user_tokens_per_s, 3) + " tokens/s each (" +
               (target ? std::string("their speed target") : "a reader's pace, assumption user_read_tokens_per_s") + ") = " +
               format_sig(d.tokens_per_s, 4) + " output tokens/s";
    }
    if (!is_serving_stage(w.stage)) return "";
    if (!w.serve.traffic.empty())
        return format_sig(d.tokens_per_s, 4) + " output tokens/s over " + std::to_string(w.serve.traffic.size()) + " traffic class(es)";
    if (w.serve.requests_per_s > 0)
        return format_sig(w.serve.requests_per_s, 4) + " requests/s x " + format_sig(output_tokens, 6) + " output tokens = " +
               format_sig(d.tokens_per_s, 4) + " output tokens/s";
    return "";
}

DecideInputs decide_inputs(const Workload& w, const Catalog& cat, const AssumptionSet& as, bool words) {
    DecideInputs in;
    in.unit = unit_of(w);
    in.output_tokens = w.serve.output_tokens > 0 ? w.serve.output_tokens : std::round(w.serve.context_tokens / 4);
    in.demand = fixed_demand(w, as, in.output_tokens);
    if (words) in.demand.why = demand_words(in.demand, w, in.output_tokens);
    in.workload_hours = hours_used_per_month(w.usage) > 0 ? hours_used_per_month(w.usage) : is_serving_stage(w.stage) ? kHoursPerMonth : 0;
    in.runs_per_month = w.usage.jobs_per_week > 0 ? w.usage.jobs_per_week * 52.0 / 12.0 : 0;
    in.spares = std::max(0, w.decision.spares);
    in.level = scale_level(w, cat);
    in.site = w.decision.site;
    in.cloud = in.site == "aws" || in.site == "gcp" || in.site == "azure" ? in.site : "";
    in.words = words;
    return in;
}

} // namespace hwplan::decide_parts
