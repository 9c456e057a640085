// decide.cpp: from numbers to a decision in lesson 004's order: the stage's binding resource, the level of
// scale, what feasibility eliminates (feasibility.cpp), then each option priced per unit of useful work
// (rented in the provider's billing increments, owned with colocation and power at the load the usage
// implies) and ranked by the user's priority, feasible first; the runner-up and why it lost; choose.go's
// first cut beside it (guide.cpp); and the three checks (regime and lever, run it, unit cost).
#include <algorithm>
#include <optional>
#include <cmath>
#include <set>

#include "hwplan/cost.h"
#include "hwplan/feasibility.h"
#include "hwplan/format.h"
#include "hwplan/guide.h"
#include "hwplan/plan.h"
#include "hwplan/render.h"
#include "plan_internal.h"

namespace hwplan {

namespace {

// The useful result each stage is priced in.
std::string unit_of(const Workload& w) {
    if (is_serving_stage(w.stage)) return "usd_per_million_output_tokens";
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
    if (is_serving_stage(w.stage)) {
        // GPU time per request (prefill + its share of decode steps), spread over its output tokens.
        const Figure* step = fig(c, "decode_step_s");
        const Figure* tput = fig(c, "throughput_tokens_per_s");
        const Figure* ttft = fig(c, "ttft_s");
        if (!step || !tput || !ttft) return std::nullopt;
        Figure per_token = inv(*tput, 1.0);
        Figure out = per_token;
        // Offline batches and serving at an arrival rate count prefill in their throughput already (plan_serving.cpp).
        const double prefill_share = w.stage == Stage::batch || rate_batch(w) ? 0.0 : 1.0 / output_tokens_per_request;
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
    // RL: the whole job (both pools, every step: plan_rl.cpp rl_job_figures); unknown without sized pools.
    if (w.stage == Stage::rl && !fig(c, "rl_tokens_per_s")) return std::nullopt;
    if (w.train.tokens > 0) {
        const Figure* t = fig(c, "train_time_s");
        if (!t) return std::nullopt;
        return *t;
    }
    const Figure* tps = fig(c, w.stage == Stage::rl ? "rl_tokens_per_s" : "train_tokens_per_s");
    if (!tps) return std::nullopt;
    return inv(*tps, 1e6);
}

// The unit cost in words: the figure, or why there is none (priced but speed not modelled: the price an hour; no
// public price: "price not in the catalog", the reason in the option's reasons).
std::string unit_cost_words(const Option& o, const std::string& unit) {
    if (o.cost.value > 0) return format_figure(unit, o.cost.value) + " " + unit_label(unit);
    return o.cost.why.empty() ? "price not in the catalog" : o.cost.why;
}

// The decision in one short sentence (issue 10: "the decision in one sentence"): what to do (buy, rent or
// call an API), which devices in what layout, and the unit cost with the month; the derivation is the
// option's cost_terms, shown line by line under it. Says the same as the summary (decide_test checks it).
std::string headline(const Option& o, const Candidate* c, const std::string& unit, const Workload& w) {
    std::string s;
    if (o.kind == "api") {
        s = "Call the " + o.name + " API";
    } else {
        const char* verb = o.kind == "owned" ? "Use the team's own " : o.kind == "own" ? "Buy " : o.kind == "rent_spot" ? "Rent spot capacity: " : o.kind == "rent_reserved" ? "Reserve " : "Rent ";
        const size_t count_at = o.name.find_first_of("0123456789"); // the name is "<kind words> <count> x <device>..."
        s = verb + (count_at == std::string::npos ? o.name : o.name.substr(count_at));
        if (c && c->rl.sized) { // two pools, each paid for the whole RL step
            s += ", " + std::to_string(c->rl.trainer_devices) + " training + " + std::to_string(c->rl.rollout_devices) + " generating";
        } else if (c && c->count > 1) {
            std::string layout;
            auto add = [&](int n, const char* what) {
                if (n > 1) layout += (layout.empty() ? "" : " x ") + std::string(what) + " " + std::to_string(n);
            };
            add(c->layout.tensor_parallel, "tensor parallel");
            add(c->layout.pipeline_parallel, "pipeline");
            if (!is_serving_stage(w.stage)) add(c->layout.data_parallel, "data parallel"); // serving: the replicas, named already
            add(c->layout.expert_parallel, "experts over");
            if (!layout.empty()) s += ", " + layout + (o.replicas > 1 ? " per replica" : "");
        }
    }
    s += ": " + unit_cost_words(o, unit);
    if (o.usd_per_month >= 0) s += ", $" + format_sig(o.usd_per_month, 4) + " a month";
    // A training job's time to result at the count chosen, and whether the user asked for it (issue 18: never a
    // count whose time the user did not ask for without saying so).
    const Figure* days = c && is_training_stage(w.stage) && w.stage != Stage::rl ? fig(*c, "train_time_s") : nullptr;
    if (days && days->value > 0)
        s += "; " + format_sig(days->value / 86400, 3) + " days to train" +
             (w.decision.deadline_days > 0 ? " (deadline " + format_sig(w.decision.deadline_days, 4) + " days)" : " (no deadline given)");
    return s + ".";
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
    if (is_serving_stage(w.stage) && w.serve.ttft_target_s > 0) {
        const Figure* t = fig(c, "p95_ttft_s") ? fig(c, "p95_ttft_s") : fig(c, "ttft_s");
        const char* what = fig(c, "p95_ttft_s") ? "p95 time to first token" : "time to first token";
        if (t && !(t->value <= w.serve.ttft_target_s))
            missed.push_back(std::string("misses the ") + format_sig(w.serve.ttft_target_s, 3) + " s target: " + what + " " +
                             format_figure("ttft_s", t->value));
    }
    if (is_serving_stage(w.stage) && w.serve.tokens_per_s_per_user_target > 0) {
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
    if (is_training_stage(w.stage) && w.decision.deadline_days > 0) {
        const Figure* t = fig(c, "train_time_s");
        if (t && t->value > w.decision.deadline_days * 86400)
            missed.push_back("misses the " + format_sig(w.decision.deadline_days, 4) + "-day deadline: " + format_sig(t->value / 86400, 3) + " days to train");
    }
    return missed;
}

std::string lever_for(const Candidate& c, const Workload& w) {
    switch (c.regime) {
    case Regime::capacity:
        return is_training_stage(w.stage) ? "capacity: LoRA/QLoRA, 8-bit optimizer state, ZeRO/FSDP sharding over more devices, or recomputation"
                                          : "capacity: quantize the weights (FP8, INT4) or the KV cache, cap the context, or shard over more devices";
    case Regime::bandwidth:
        return is_serving_stage(w.stage) ? "bandwidth: batch more sequences per step, quantize weights and KV cache to move fewer bytes, or a device with faster memory"
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
    // Lesson 003's diagnosis is an operational fix: "Separate batch traffic, cap context for interactive routes, and
    // measure again before changing hardware." Where the mix alone breaks the interactive route's target (it misses
    // it sharing the replica and meets it alone; without a target, the tail at least halves), the headline says the
    // fix first and the hardware change after it, as the alternative.
    const double target = w.serve.ttft_target_s;
    const bool operational = target > 0 ? mixed->value > target && alone->value <= target : alone->value * 2 <= mixed->value;
    if (!operational || !p.recommendation.found) return;
    p.recommendation.headline = "Separate the batch traffic and cap \"" + w.serve.traffic.front().name + "\"'s context first (lesson 003): p95 first token " +
                                format_figure("ttft_s", mixed->value) + " shared, " + format_figure("ttft_s", alone->value) + " alone on " +
                                std::to_string(c.count) + " x " + c.device_name + ". Else: " + p.recommendation.headline;
}

namespace {

// The figure the "per_user_speed" priority ranks by: per-user decode speed when serving, else the job's rate.
double speed_of(const Candidate& c, const Workload& w) {
    const Figure* f = is_serving_stage(w.stage) ? fig(c, "decode_tokens_per_s_per_user")
                      : w.stage == Stage::embed ? fig(c, "items_per_s")
                      : fig(c, w.stage == Stage::rl ? "rl_tokens_per_s" : "train_tokens_per_s");
    return f ? f->value : 0;
}

double latency_of(const Candidate& c) {
    const Figure* f = fig(c, "p95_ttft_s") ? fig(c, "p95_ttft_s") : fig(c, "ttft_s");
    return f ? f->value : 0;
}

// Seconds of work in one run of a batch or training job (0 when not modelled): rentals are billed per run.
// Devices one replica pays for: an RL job's trainer and rollout pools together (plan_rl.cpp rl_job_figures),
// else the candidate's count.
int fleet_devices(const Candidate& c) {
    const Figure* f = fig(c, "rl_devices");
    return f ? int(f->value) : c.count;
}

double run_seconds(const Candidate& c, const Workload& w) {
    const Figure* f = w.stage == Stage::embed ? fig(c, "embed_time_s") : is_training_stage(w.stage) ? fig(c, "train_time_s") : nullptr;
    return f ? f->value : 0;
}

// [SECTION] fixed demand ----------------------------------------------------------------------------

// What a serving workload asks for, when it fixes it: an arrival rate (any serving stage), or, for
// interactive serving, a number of concurrent users who each read the streamed answer at a fixed pace.
// A faster device does not create more useful tokens: users read at their own rate (lesson 003's "cost per
// useful result"), so a fixed demand is priced as the monthly cost of the fleet that meets it.
constexpr int kMostReplicas = 1000000; // replicas of one option the pricing counts; more is reported as out of scale

struct Demand {
    double tokens_per_s = 0;          // output tokens a second demanded; 0: the demand is not fixed
    double low_tokens_per_s = 0;      // across the reading pace's range (users); equal to tokens_per_s for a rate
    double high_tokens_per_s = 0;
    double per_user_tokens_per_s = 0; // users: the speed each must get (their target, else the reading pace); 0 for a rate
    bool from_users = false;
    std::string why;
};

// FP8 compute asked for on a device with no published FP8 peak: plan_facts.cpp peak_for times it at a 16-bit peak, i.e.
// a different numeric path (FP8 weights dequantized to 16 bits); "" otherwise. A bf16/fp16 swap is not
// counted: serving engines treat the two as equivalent.
std::string compute_fallback(const Device& d, const std::string& compute) {
    if (compute != "fp8" || d.fp8.supported) return "";
    return "no FP8 compute path published for " + d.id + " (it would run the FP8 weights at 16-bit compute)";
}

// SoCs, CPUs and NPUs are planned with a llama.cpp-style local runtime (plan_facts.cpp local_runtime), not a batching serving engine.
bool local_device(const Device& d) { return d.kind == DeviceKind::soc || d.kind == DeviceKind::cpu || d.kind == DeviceKind::npu; }

bool is_given(const Workload& w, const std::string& key) { return std::find(w.given.begin(), w.given.end(), key) != w.given.end(); }

// Arrival rate x output tokens (every traffic class), else concurrent users x the pace each consumes: the
// per-user speed target when given, else the reading pace (assumption user_read_tokens_per_s: Brysbaert
// 2019, 238 words a minute, x 100/70 tokens a word from Google's Gemini token guide).
Demand fixed_demand(const Workload& w, const AssumptionSet& as, double output_tokens) {
    Demand d;
    if (!is_serving_stage(w.stage)) return d;
    if (!w.serve.traffic.empty() || w.serve.requests_per_s > 0) {
        if (!w.serve.traffic.empty()) {
            for (const auto& c : w.serve.traffic) d.tokens_per_s += c.requests_per_s * c.output_tokens;
            d.why = format_sig(d.tokens_per_s, 4) + " output tokens/s over " + std::to_string(w.serve.traffic.size()) + " traffic class(es)";
        } else {
            d.tokens_per_s = w.serve.requests_per_s * output_tokens;
            d.why = format_sig(w.serve.requests_per_s, 4) + " requests/s x " + format_sig(output_tokens, 6) + " output tokens = " +
                    format_sig(d.tokens_per_s, 4) + " output tokens/s";
        }
        d.low_tokens_per_s = d.high_tokens_per_s = d.tokens_per_s;
        return d;
    }
    if (w.stage != Stage::serve || !is_given(w, "serve.concurrent_users") || w.serve.concurrent_users <= 0) return d;
    d.from_users = true;
    const double users = w.serve.concurrent_users;
    const bool target = w.serve.tokens_per_s_per_user_target > 0;
    d.per_user_tokens_per_s = target ? w.serve.tokens_per_s_per_user_target : as.typical.user_read_tokens_per_s;
    d.tokens_per_s = users * d.per_user_tokens_per_s;
    d.low_tokens_per_s = target ? d.tokens_per_s : users * as.low.user_read_tokens_per_s;
    d.high_tokens_per_s = target ? d.tokens_per_s : users * as.high.user_read_tokens_per_s;
    d.why = format_sig(users, 6) + " users x " + format_sig(d.per_user_tokens_per_s, 3) + " tokens/s each (" +
            (target ? std::string("their speed target") : "a reader's pace, assumption user_read_tokens_per_s") + ") = " +
            format_sig(d.tokens_per_s, 4) + " output tokens/s";
    return d;
}


// "2 x 8-device servers", "1 x GB200 NVL72", "4 x BM.GPU.GB200.4": whole units bought or rented as the option names them.
std::string units_phrase(const PurchaseUnits& u) {
    auto ends = [&](const std::string& tail) { return u.unit.size() > tail.size() && u.unit.compare(u.unit.size() - tail.size(), tail.size(), tail) == 0; };
    const bool plural = u.units > 1 && (ends("server") || ends("instance") || ends("rack"));
    return std::to_string(u.units) + " x " + u.unit + (plural ? "s" : "");
}

} // namespace

void decide(Plan& p, const Workload& w, const Catalog& cat, const AssumptionSet& as) {
    const std::string unit = unit_of(w);
    const double output_tokens = w.serve.output_tokens > 0 ? w.serve.output_tokens : std::round(w.serve.context_tokens / 4);
    const Demand demand = fixed_demand(w, as, output_tokens);
    const double workload_hours = hours_used_per_month(w.usage) > 0 ? hours_used_per_month(w.usage) : is_serving_stage(w.stage) ? kHoursPerMonth : 0;
    const double runs_per_month = w.usage.jobs_per_week > 0 ? w.usage.jobs_per_week * 52.0 / 12.0 : 0;
    const int spares = std::max(0, w.decision.spares);
    const ScaleLevel level = scale_level(w, cat);
    const std::string site = w.decision.site;
    std::vector<Option> options;
    std::set<std::string> compromised; // feasible options short of a fixed demand in full (by name)
    // Lesson 003's CPU row: "Start here when the model is small or latency is loose." An embedding job (a batch job
    // with a run time) that one CPU finishes in less time than a rented GPU is billed to start (defaults rental_startup_s) is a small
    // job: its CPU options rank first under the unit_cost and simplest priorities, whatever the GPUs' prices (by name).
    std::set<std::string> small_on_cpu;
    bool rentals_mostly_startup = true; // every rented run priced is billed mostly for start-up (its work under half the bill)
    {   // The decision's inputs the user left out, with the default used (docs/workload.md, "decision").
        auto given = [&](const std::string& k) { return std::find(w.given.begin(), w.given.end(), k) != w.given.end(); };
        auto note = [&](const std::string& key, const std::string& text) {
            if (!given(key)) p.missing_assumptions.push_back(key + ": " + text);
        };
        note("decision.priority", "not given; lowest cost per unit of work assumed");
        note("decision.stack", "not given; " + effective_stack(w) +
                                   (effective_stack(w) == "any" ? " assumed inside a named cloud (its own accelerators count)"
                                                                : " assumed (lesson 003: a GPU path fits broad PyTorch, CUDA and serving-engine ecosystems); set \"any\" to compare every stack"));
        note("decision.site", "not given; owning and renting both considered");
        if (w.stage == Stage::serve)
            note("decision.redundancy", "not given; no spare replica (production serving wants N+1: lesson 004, 'two give redundancy')");
        note("decision.budget_usd_per_month", "not given; no budget ceiling");
        note("decision.power_budget_w", "not given; no power ceiling (a robot, a desk or a rack with a power limit: give it in watts)");
        if (demand.from_users && w.serve.tokens_per_s_per_user_target <= 0)
            p.missing_assumptions.push_back("serve.requests_per_s: not given; demand is " + demand.why +
                                            " (give the arrival rate, or a per-user speed target, to price what your users really ask for)");
        else if (is_serving_stage(w.stage) && demand.tokens_per_s <= 0)
            p.missing_assumptions.push_back("cost at full load: no serve.requests_per_s, so each replica's unit cost assumes its concurrent "
                                            "users keep it busy all month (give the arrival rate to price the idle time)");
    }

    for (auto& c : p.candidates) {
        const Device* d = cat.device_by_id(c.device);
        if (!d) continue;
        const auto seconds = seconds_per_unit(c, w, std::max(1.0, output_tokens));
        const int fleet = fleet_devices(c); // the devices priced: both RL pools, else the candidate's count
        // Jobs a week without hours a job: each run lasts the modelled run time on this candidate.
        // (A copy of the workload only then: decide() runs once per re-decided utilization, for every candidate.)
        std::optional<Workload> per_run;
        if (!is_serving_stage(w.stage) && w.usage.jobs_per_week > 0 && w.usage.hours_per_job <= 0 && w.usage.hours_per_month <= 0 &&
            run_seconds(c, w) > 0) {
            per_run = w;
            per_run->usage.hours_per_job = run_seconds(c, w) / 3600;
        }
        const Workload& wc = per_run ? *per_run : w;
        const double hours = workload_hours > 0 ? workload_hours : hours_used_per_month(wc.usage);
        const double tput = fig(c, "throughput_tokens_per_s") ? fig(c, "throughput_tokens_per_s")->value : 0;
        // Output tokens/s one replica sustains with each request's prefill counted (and its band), for an
        // arrival rate; users held at once are one replica (the count was chosen to fit them).
        const double capacity = seconds && seconds->value > 0 ? 1e6 / seconds->value : tput;
        const double capacity_fast = seconds && seconds->low > 0 ? 1e6 / seconds->low : capacity;
        const double capacity_slow = seconds && seconds->high > 0 ? 1e6 / seconds->high : capacity;
        const double demand_rate = demand.from_users ? 0 : demand.tokens_per_s;
        // The queue's own count (plan_serving.cpp: the fewest replicas whose p95 time to first token meets the target) when larger.
        const int queue_replicas = fig(c, "replicas_for_rate") ? int(fig(c, "replicas_for_rate")->value) : 1;
        // Counted in double: a tiny capacity against a large rate is reported, not overflowed (see kMostReplicas).
        auto replicas_needed = [&](double cap) { return demand_rate > 0 && cap > 0 ? std::max({1.0, double(queue_replicas), std::ceil(demand_rate / cap)}) : 1.0; };
        auto replicas_for = [&](double cap) { return int(std::min(replicas_needed(cap), double(kMostReplicas))); };
        // Replicas: enough copies of the candidate for the load (when an arrival rate is given), each copy being the
        // candidate's own replicas (users split over single-device replicas, plan.cpp choose_count; a given count's
        // split), plus the spares for redundancy.
        const int split = !c.rl.sized && is_serving_stage(w.stage) && c.layout.data_parallel > 1 && fleet % c.layout.data_parallel == 0
                              ? c.layout.data_parallel : 1;
        const int per_replica = fleet / split;
        const int load_replicas = replicas_for(capacity); // copies of the candidate
        const int needed = load_replicas * split;         // replicas the load needs
        // Bought and rented devices come in whole units (an 8-device server or instance, a rack): the one count
        // the price, the name, the budget and the notes read (cost.h units_to_buy, units_to_rent). With spares the
        // units are enough that `spares` of them can fail with the load still served (docs/workload.md, redundancy
        // "n+1"; lesson 004: "two give redundancy"). The team's own devices are counted per device.
        // Inside a named cloud only its own offers can be rented (decision.site "aws", "gcp", "azure").
        const std::string cloud = site == "aws" || site == "gcp" || site == "azure" ? site : "";
        const RentalUnits rented = units_to_rent(*d, w.cost, PriceKind::cloud_on_demand, per_replica, needed, spares, cloud);
        const RentalUnits rented_spot = units_to_rent(*d, w.cost, PriceKind::cloud_spot, per_replica, needed, spares, cloud);
        const RentalUnits rented_reserved = units_to_rent(*d, w.cost, PriceKind::cloud_reserved, per_replica, needed, spares, cloud);
        const HourlyCost& rent = rented.price;
        const HourlyCost& spot = rented_spot.price;
        // A reservation is paid every hour of its term: per hour actually used it costs rate x 730 / hours used.
        HourlyCost reserved = rented_reserved.price;
        const double used = is_serving_stage(w.stage) ? kHoursPerMonth : hours_used_per_month(wc.usage);
        if (reserved.available && used > 0 && used < kHoursPerMonth) {
            reserved.basis += ", paid for all 730 hours a month but used " + format_sig(used, 3);
            reserved.usd_per_hour *= kHoursPerMonth / used;
        }
        const HourlyCost own = own_cost(*d, wc, cat.defaults);
        // Devices the team already has: planned on first when the job fits them (issue 18, hardware.owned).
        int owned_count = 0;
        for (const auto& od : w.hardware.owned)
            if (od.device == c.device) owned_count = od.count;
        const HourlyCost owned = owned_count > 0 ? owned_cost(*d, wc, cat.defaults) : HourlyCost{};
        std::vector<const HourlyCost*> ways{&rent, &own};
        if (owned_count > 0) ways.insert(ways.begin(), &owned);
        if (spot.available) ways.push_back(&spot);        // interruptible: for retryable batch work
        if (reserved.available) ways.push_back(&reserved); // a 1-3 year commitment
        for (const HourlyCost* hc : ways) {
            Option o;
            o.kind = hc == &owned ? "owned" : hc == &own ? "own" : hc == &spot ? "rent_spot" : hc == &reserved ? "rent_reserved" : "rent";
            const bool owning = hc == &own || hc == &owned;
            o.device = c.device;
            const RentalUnits* rental = hc == &rent ? &rented : hc == &spot ? &rented_spot : hc == &reserved ? &rented_reserved : nullptr;
            // The fleet for `copies` copies of the candidate: whole units bought or rented, spares included; the
            // team's own devices one by one, with `spares` spare replicas.
            auto fleet_for = [&](int copies) {
                const int n = copies * split;
                if (hc == &own) return units_to_buy(*d, per_replica, n, spares);
                if (rental) return whole_units(rental->units.devices_per_unit, per_replica, n, spares);
                PurchaseUnits each = whole_units(1, per_replica, n + spares);
                each.spare_units = spares;
                return each;
            };
            auto paid_devices = [&](int copies) { return fleet_for(copies).devices_bought; };
            const PurchaseUnits bought = hc == &own ? units_to_buy(*d, per_replica, needed, spares)
                                         : rental && rental->usd_per_hour >= 0 ? rental->units : fleet_for(load_replicas);
            const bool in_units = bought.devices_per_unit > 1;
            const int replicas = bought.replicas; // placed: the load's and the spares'
            o.count = paid_devices(load_replicas);
            o.replicas = replicas;
            o.speed = speed_of(c, w);
            o.latency_s = latency_of(c);
            o.power_w = d->tdp_w > 0 ? d->tdp_w * o.count : 0;
            o.power_draw_w = lowest_power_w(*d) * per_replica * replicas;
            // "2 x 8-device servers", "1 x GB200 NVL72": what is bought, when a unit is more than one device.
            const std::string units_words = in_units ? units_phrase(bought) : "";
            const std::string replicas_words =
                replicas > 1 ? std::to_string(replicas) + " replicas of " + std::to_string(per_replica) + (spares > 0 ? ", N+" + std::to_string(spares) : "")
                : in_units && bought.devices_idle > 0 ? std::to_string(per_replica) + " used"
                                                         : "";
            const std::string layout_words = units_words.empty() ? replicas_words : replicas_words.empty() ? units_words : units_words + ": " + replicas_words;
            // The "devices" cost term and the cost's why: the count paid for, then what it is made of.
            std::string made_of = c.rl.sized ? std::to_string(c.rl.trainer_devices) + " trainer + " + std::to_string(c.rl.rollout_devices) +
                                                   " rollout, each paid for the whole RL step"
                                             : std::string();
            if (!layout_words.empty()) made_of += (made_of.empty() ? "" : "; ") + layout_words;
            if (in_units && bought.devices_idle > 0) made_of += ", " + std::to_string(bought.devices_idle) + " idle";
            const std::string made_of_words = made_of.empty() ? "" : " (" + made_of + ")";
            const std::string devices_words = std::to_string(o.count) + made_of_words;
            o.fleet = std::to_string(o.count) + (layout_words.empty() ? "" : " (" + layout_words + ")");
            o.name = (hc == &spot ? std::string("rent (spot)") : hc == &reserved ? std::string("rent (reserved)") : hc == &owned ? std::string("use owned") : o.kind) + " " +
                     std::to_string(o.count) + " x " + c.device_name + (layout_words.empty() ? "" : " (" + layout_words + ")");
            o.unit = unit;
            std::vector<std::string> out = eliminations(*d, w, owning ? "own" : o.kind, fleet, level, per_replica);
            std::vector<std::string> notes;
            // The power budget (decision.power_budget_w): the devices that run, replicas x a replica's devices, at their
            // lowest published power; devices bought or rented with a whole unit and left idle are off.
            if (const std::string over = power_budget_elimination(*d, w, per_replica * replicas); !over.empty())
                out.push_back(over);
            else if (w.decision.power_budget_w > 0 && d->min_power_w > 0 && d->tdp_w * per_replica * replicas > w.decision.power_budget_w)
                notes.push_back("power: " + format_sig(o.power_draw_w, 4) + " W in its lowest power mode fits the " +
                                format_sig(w.decision.power_budget_w, 6) + " W budget, " + format_sig(d->tdp_w * per_replica * replicas, 4) +
                                " W at full power does not: run it capped (a Jetson's nvpmodel mode); the speeds above are modelled at "
                                "full power and will be lower");
            // With no site given, a device that may not stand in a data centre is bought for a desk or an office (cost.cpp
            // pays_colocation): the plan says where, and how to rule it out.
            if (owning && site.empty() && !pays_colocation(*d, site))
                notes.push_back(std::string("site: no site given, so it stands at a desk or in an office (") +
                                (!d->datacenter_use ? "its licence keeps it out of data centres" : "a desktop machine or a module, not a server") +
                                "): no colocation counted; decision.site \"own_datacenter\" rules it out");
            if (!c.fits) out.push_back("does not fit: needs " + format_bytes(c.memory.total_bytes) + " per device, " +
                                       format_bytes(c.memory.capacity_bytes) + " usable");
            if (hc == &own && !d->can_buy) out.push_back("cannot be bought" + (d->cloud_only.empty() ? std::string() : " (only in " + d->cloud_only + ")"));
            if (hc == &owned && o.count > owned_count)
                out.push_back("owned: needs " + std::to_string(o.count) + " devices, the team owns " + std::to_string(owned_count) +
                              " (hardware.owned); buy or rent the rest");
            // The one-off budget (decision.purchase_budget_usd): the whole units bought, at list price; with devices
            // already owned (hardware.owned), the whole units that buy the rest.
            if (hc == &own && w.decision.purchase_budget_usd > 0 && bought.usd > 0) {
                const int rest = std::max(0, bought.devices_needed - owned_count);
                const PurchaseUnits to_buy = owned_count <= 0 ? bought : rest > 0 ? units_to_buy(*d, rest) : PurchaseUnits{.usd = 0};
                if (to_buy.usd > w.decision.purchase_budget_usd)
                    out.push_back("purchase budget: " + std::to_string(to_buy.devices_bought) + " x $" + format_sig(purchase_usd_per_device(*d), 5) +
                                  (to_buy.devices_per_unit > 1 ? " (" + units_phrase(to_buy) + ")" : std::string()) + " = $" +
                                  format_sig(to_buy.usd, 4) + ", over the $" + format_sig(w.decision.purchase_budget_usd, 4) + " one-off budget");
            } else if (hc == &own && w.decision.purchase_budget_usd > 0 && d->can_buy && bought.devices_needed > owned_count) {
                // No public purchase price: what it would cost cannot be held against the budget, so it is not
                // ranked as if it fitted (issue 19: never an unpriced option above a priced one without saying so).
                out.push_back("purchase budget: no purchase price in the catalog to hold against the $" +
                              format_sig(w.decision.purchase_budget_usd, 4) + " one-off budget");
            }
            if (!owning && !d->can_rent) out.push_back("not offered for rent");
            // An owned job that runs now and then costs its purchase spread over the hours it is used;
            // without those hours (or a utilization) the owned price per result is unknown.
            if ((hc == &own || hc == &reserved) && hc->available && !is_serving_stage(w.stage) && hours_used_per_month(wc.usage) <= 0 &&
                w.cost.utilization <= 0)
                out.push_back(std::string(owning ? "owning" : "reserving") +
                              ": give usage (hours a month, or jobs a week x hours) or cost.utilization to price it");
            if (hc == &spot && w.stage == Stage::serve)
                out.push_back("spot capacity can be taken back at any time: not for an interactive endpoint");
            if (!w.framework.empty() && std::find(d->software.begin(), d->software.end(), framework_runtime(w.framework)) == d->software.end())
                out.push_back("does not run " + w.framework + " (catalog software list)");
            if (!seconds) notes.push_back("speed not modelled: no published peak for the compute precision (unit cost unknown)");
            for (auto& m : missed_targets(c, w)) out.push_back(m);
            if (replicas_needed(capacity) > kMostReplicas)
                out.push_back("scale: the demand needs " + format_sig(replicas_needed(capacity), 3) + " replicas of " + std::to_string(c.count) +
                              " device(s); more than " + format_sig(kMostReplicas, 3) + " are not planned");
            // A fixed demand of users is met only by a fleet that streams each as fast as they read: the serving search
            // splits the users over as many replicas as that takes (plan.cpp choose_count), so a candidate still slower
            // is one no fleet of the device meets: out, with no unit cost (its fleet's price would be for less than the
            // demand). A fleet that meets the demand but not as asked (a 16-bit compute path for FP8, a local runtime
            // instead of a batching engine, tensor parallel over a slow link) stays an option (lesson 004: "If budget is
            // tight, RTX PRO 6000 ... are an option, at lower decode speed") and ranks after every option without a
            // compromise, whatever its price; its reasons say so.
            std::string no_fleet; // why no fleet of it meets the demand ("" when one does)
            std::vector<std::string> short_of;
            if (demand.tokens_per_s > 0 && w.stage == Stage::serve) {
                if (demand.from_users && w.serve.tokens_per_s_per_user_target <= 0 && o.speed > 0 && o.speed < demand.per_user_tokens_per_s) {
                    no_fleet = "demand: streams " + format_sig(o.speed, 3) + " tokens/s per user, slower than the " +
                                  format_sig(demand.per_user_tokens_per_s, 3) + " tokens/s a user reads (assumption user_read_tokens_per_s), " +
                                  (w.hardware.count > 0 || is_given(w, "serve.batch_size") ? std::string("at the count and batch given")
                                                                                           : "with the users split over as many replicas as the search tried") +
                                  ": no fleet of it meets the demand, so no unit cost";
                    out.push_back(no_fleet);
                }
                const std::string fallback = compute_fallback(*d, w.precision.compute);
                if (!fallback.empty())
                    short_of.push_back("compromise: " + fallback + " (lesson 003: lower precision 'must be tested for quality and supported kernels')");
                if (local_device(*d) && demand.from_users && w.serve.concurrent_users > 1)
                    short_of.push_back("compromise: planned with a llama.cpp-style local runtime, not a serving engine that batches " +
                                       format_sig(w.serve.concurrent_users, 6) + " users (lesson 003: 'one GPU endpoint for chat')");
                if (per_replica > std::max(1, d->domain_size))
                    short_of.push_back("compromise: tensor parallel over " + std::to_string(per_replica) + " devices outside a fast scale-up domain: "
                                       "every decode step pays its all-reduces over the slow link (issue 11: 'six cards can decode slower than one')");
            }
            if (in_units) {
                const int more = bought.replicas_fit - replicas;
                const std::string paid = owning ? "bought" : "rented";
                notes.push_back((owning ? "servers: " : "instances: ") + units_words + " " + paid + " (" + std::to_string(o.count) + " devices): " +
                                (replicas > 1 ? std::to_string(replicas) + " replicas of " + std::to_string(per_replica) : "one replica of " + std::to_string(per_replica)) +
                                (spares > 0 && replicas <= bought.units ? ", each on its own " + bought.unit + " so one can fail"
                                 : spares > 0 ? ", " + std::to_string(needed) + " of them carrying the load, spread over the " + units_phrase(bought) +
                                                    " so that any " + (spares == 1 ? std::string("one") : std::to_string(spares)) + " can fail (lesson 004: 'two give redundancy')"
                                 : replicas > 1 && bought.units < replicas ? " sharing a " + bought.unit + " (no spare replica asked: decision.redundancy)"
                                                                           : "") +
                                (bought.devices_idle <= 0 ? std::string()
                                 : "; " + std::to_string(bought.devices_idle) + " devices " + paid + " and idle" +
                                       (more > 0 ? ", headroom for " + std::to_string(more) + " more replica" + (more > 1 ? "s" : "") + " of " + std::to_string(per_replica) +
                                                       " (not counted in the unit cost)"
                                                 : std::string(", paid for in the unit cost"))));
            }
            if (!hc->available && out.empty()) { // and the catalog's reason why none is public, where it gives one
                const std::string& why_none = owning ? d->purchase_unpublished : d->rental_unpublished;
                notes.push_back(std::string(owning ? "price: no public purchase price in the catalog (unit cost unknown)"
                                                   : "price: no public rental price in the catalog (unit cost unknown)") +
                                (why_none.empty() ? "" : ": " + why_none));
            }
            if (hc->available && !seconds) {
                // Priced, but no speed to divide the price by: the headline says the price and why no unit cost.
                o.cost.why = "unit cost not modelled (no published " + w.precision.compute + " peak), at $" +
                             format_sig(hc->usd_per_hour * o.count, 4) + " an hour for the devices";
                o.cost_terms = hc->terms;
                o.cost_terms.push_back({"devices", devices_words});
                notes.push_back("cost: " + hc->basis + " x " + std::to_string(o.count) + " device(s)" + made_of_words);
            }
            if (hc->available && seconds && demand.tokens_per_s > 0) {
                // Fixed demand: the fleet that meets it, paid every hour, over the output tokens demanded (not
                // over what the devices could produce at full load).
                auto per_million = [&](int replicas_n, double tokens_per_s) { return hc->usd_per_hour * paid_devices(replicas_n) / (tokens_per_s * 3600) * 1e6; };
                o.cost.value = per_million(load_replicas, demand.tokens_per_s);
                o.cost.low = per_million(replicas_for(capacity_fast), demand.high_tokens_per_s);
                o.cost.high = per_million(replicas_for(capacity_slow), demand.low_tokens_per_s);
                o.cost.label = Label::modelled;
                o.cost.why = hc->basis + " x " + std::to_string(o.count) + " device(s)" + made_of_words + ", every hour, over the tokens demanded: " + demand.why;
                if (demand_rate > 0 && capacity > 0)
                    o.cost.why += "; busy " + format_sig(100 * demand_rate / (capacity * load_replicas), 3) + " % of " +
                                  format_sig(capacity, 4) + " output tokens/s per replica";
                o.usd_per_month = hc->usd_per_hour * o.count * hours;
                // The same derivation term by term (the recommendation card's cost breakdown).
                o.cost_terms = hc->terms;
                o.cost_terms.push_back({"devices", devices_words});
                o.cost_terms.push_back({"a month", "$" + format_sig(o.usd_per_month, 4) + " = " + format_sig(hours, 4) + " hours x $" +
                                                       format_sig(hc->usd_per_hour * o.count, 4) + " per hour for the devices, paid every hour"});
                o.cost_terms.push_back({"demand", demand.why});
                if (demand_rate > 0 && capacity > 0)
                    o.cost_terms.push_back({"busy", format_sig(100 * demand_rate / (capacity * load_replicas), 3) + " % of " + format_sig(capacity, 4) +
                                                        " output tokens/s per replica"});
                o.cost_terms.push_back({"unit cost", format_figure(unit, o.cost.value) + " " + unit_label(unit) + " = a month / " +
                                                         format_sig(demand.tokens_per_s * hours * 3600 / 1e6, 4) + " M output tokens demanded"});
                notes.push_back("cost: " + o.cost.why);
                notes.push_back("fleet: $" + format_sig(o.usd_per_month, 4) + " a month for " + format_sig(demand.tokens_per_s * hours * 3600 / 1e6, 4) +
                                " M output tokens demanded (" + format_sig(hours, 4) + " hours)");
                const std::string prefix = o.kind + "_";
                c.figures[prefix + "usd_per_hour"] =
                    Figure{hc->usd_per_hour * fleet, hc->usd_per_hour * fleet, hc->usd_per_hour * fleet, Label::arithmetic, hc->basis};
                c.figures[prefix + unit] = o.cost;
                c.figures[prefix + "usd_per_month"] = Figure{o.usd_per_month, o.usd_per_month, o.usd_per_month, Label::arithmetic,
                    format_sig(hours, 4) + " hours a month x " + format_sig(hc->usd_per_hour * o.count, 4) + " $/h (" + std::to_string(o.count) + " devices)"};
            } else if (hc->available && seconds) {
                // Every device paid for (spare replicas, the idle part of a whole server) over those doing the work.
                double factor = double(o.count) / (double(fleet) * load_replicas);
                std::string why = hc->basis + " x " + std::to_string(o.count) + " device(s)" + made_of_words;
                if (factor != 1) why += "; " + std::to_string(fleet * load_replicas) + " of them do the work, the rest are paid and idle";
                // A rented batch or training run is billed from start-up to the end of its last increment.
                double billed_s = 0;
                const double run_s = run_seconds(c, w);
                if (!owning && !is_serving_stage(w.stage) && run_s > 0 && hc != &reserved) {
                    const double inc = hc->billing_increment_s > 0 ? hc->billing_increment_s : cat.defaults.rental_billing_increment_s;
                    billed_s = billed_seconds(run_s, cat.defaults, inc);
                    if (run_s > billed_s / 2) rentals_mostly_startup = false;
                    factor *= billed_s / run_s;
                    why += "; billed " + format_sig(billed_s, 4) + " s a run (" + format_sig(run_s, 3) + " s of work + " +
                           format_sig(cat.defaults.rental_startup_s, 3) + " s start-up, in " + format_sig(inc, 3) + " s increments" +
                           (hc->billing_increment_s > 0 ? ", the provider's" : ", the catalog default") + ")";
                }
                if (hc == &spot && is_training_stage(w.stage) && run_s > 3600)
                    notes.push_back("spot: a " + format_sig(run_s / 3600, 3) + " h run can be interrupted; checkpoint and resume (lesson 003: 'checkpointed')");
                o.cost = scale(*seconds, hc->usd_per_hour * fleet / 3600.0 * factor);
                o.cost.why = why;
                if (billed_s > 0 && runs_per_month > 0) o.usd_per_month = runs_per_month * billed_s / 3600 * hc->usd_per_hour * o.count;
                else if (hours > 0) o.usd_per_month = hc->usd_per_hour * o.count * hours;
                // The same derivation term by term (the recommendation card's cost breakdown).
                o.cost_terms = hc->terms;
                o.cost_terms.push_back({"devices", devices_words});
                o.cost_terms.push_back({"time", format_sig(seconds->value, 4) + " s " + unit_label(unit) + " on " +
                                                    (factor != 1 ? "the " + std::to_string(fleet * load_replicas) + " that work" : std::string("them"))});
                if (billed_s > 0)
                    o.cost_terms.push_back({"billed", format_sig(billed_s, 4) + " s a run for " + format_sig(run_s, 3) + " s of work (+ " +
                                                          format_sig(cat.defaults.rental_startup_s, 3) + " s start-up, rounded up to " +
                                                          (hc->billing_increment_s > 0 ? "the provider's" : "the catalog default's") + " increments)"});
                o.cost_terms.push_back({"unit cost", format_figure(unit, o.cost.value) + " " + unit_label(unit) + " = price per device-hour x devices x time" +
                                                         (billed_s > 0 ? " x billed / worked" : "")});
                if (o.usd_per_month >= 0)
                    o.cost_terms.push_back({"a month", "$" + format_sig(o.usd_per_month, 4) + " = " +
                                                           (billed_s > 0 && runs_per_month > 0 ? format_sig(runs_per_month, 4) + " runs x " + format_sig(billed_s, 4) + " s billed"
                                                                                               : format_sig(hours, 4) + " hours used") +
                                                           " at $" + format_sig(hc->usd_per_hour * o.count, 4) + " an hour for the devices"});
                notes.push_back("cost: " + why);
                const std::string prefix = o.kind + "_";
                c.figures[prefix + "usd_per_hour"] =
                    Figure{hc->usd_per_hour * fleet, hc->usd_per_hour * fleet, hc->usd_per_hour * fleet, Label::arithmetic, hc->basis};
                c.figures[prefix + unit] = o.cost;
                // Serving: prompt and output tokens priced separately (prefill capacity vs decode capacity).
                if (is_serving_stage(w.stage)) {
                    const Figure* tp = fig(c, "throughput_tokens_per_s");
                    const Figure* ttft = fig(c, "ttft_s");
                    const double prompt = w.serve.prompt_tokens > 0 ? w.serve.prompt_tokens : std::round(w.serve.context_tokens / 2);
                    const double per_s = hc->usd_per_hour * fleet / 3600.0;
                    if (tp && tp->value > 0)
                        c.figures[prefix + "usd_per_million_decode_tokens"] = Figure{per_s / tp->value * 1e6, per_s / tp->high * 1e6,
                            per_s / tp->low * 1e6, Label::modelled, "device cost / decode throughput at the workload's batch"};
                    if (ttft && ttft->value > 0)
                        c.figures[prefix + "usd_per_million_prompt_tokens"] = Figure{per_s * ttft->value / prompt * 1e6,
                            per_s * ttft->low / prompt * 1e6, per_s * ttft->high / prompt * 1e6, Label::modelled,
                            "device cost x prefill time / prompt tokens (one prompt at a time)"};
                }
                if (o.usd_per_month >= 0)
                    c.figures[prefix + "usd_per_month"] =
                        Figure{o.usd_per_month, o.usd_per_month, o.usd_per_month, Label::arithmetic,
                               billed_s > 0 && runs_per_month > 0 ? format_sig(runs_per_month, 4) + " runs a month x " + format_sig(billed_s, 4) + " s billed"
                                                                  : format_sig(hours, 4) + " hours a month x " + format_sig(hc->usd_per_hour * o.count, 4) + " $/h"};
            }
            if (w.decision.budget_usd_per_month > 0) {
                if (o.usd_per_month < 0) out.push_back("budget: no monthly cost in the catalog to hold against the $" +
                                                       format_sig(w.decision.budget_usd_per_month, 6) + " ceiling");
                else if (o.usd_per_month > w.decision.budget_usd_per_month)
                    out.push_back("budget: $" + format_sig(o.usd_per_month, 4) + " a month is over the $" +
                                  format_sig(w.decision.budget_usd_per_month, 6) + " ceiling");
            }
            if (!no_fleet.empty()) { // no unit cost for a fleet that cannot meet the demand, and the reason in its place
                for (const std::string& k : {o.kind + "_" + unit, o.kind + "_usd_per_month", o.kind + "_usd_per_hour"}) c.figures.erase(k);
                o.cost = Figure{};
                o.cost.why = no_fleet;
                o.cost_terms.clear();
                o.usd_per_month = -1;
            }
            o.feasible = out.empty();
            if (o.feasible) {
                o.reasons.push_back(std::string(short_of.empty() ? "fits and meets the targets; "
                                                                 : "fits and meets the targets and the demand, with a compromise (ranked after every option "
                                                                   "without one, whatever its price); ") +
                                    (hc->available ? hc->basis : "no public price"));
                for (auto& n : short_of) o.reasons.push_back(n);
                for (auto& n : notes) o.reasons.push_back(n);
                if (!short_of.empty()) compromised.insert(o.name);
                if (d->kind == DeviceKind::cpu && w.stage == Stage::embed && run_seconds(c, w) > 0 &&
                    run_seconds(c, w) <= cat.defaults.rental_startup_s)
                    small_on_cpu.insert(o.name);
            } else {
                o.reasons = std::move(out);
            }
            options.push_back(std::move(o));
        }
        // Buy versus rent: months until the purchase of one replica's whole units pays for itself at the workload's use,
        // against renting that replica's whole instances.
        const double purchase = units_to_buy(*d, fleet).usd;
        const double rent_hour = units_to_rent(*d, w.cost, PriceKind::cloud_on_demand, fleet, 1, 0, cloud).usd_per_hour;
        if (rent.available && own.available && purchase > 0 && rent_hour > 0 && hours > 0) {
            const double running = d->tdp_w / 1000.0 * cat.defaults.pue_ratio *
                                   (w.cost.usd_per_kwh >= 0 ? w.cost.usd_per_kwh : cat.defaults.electricity_usd_per_j * 3.6e6);
            const double months = breakeven_months(purchase, rent_hour, running * fleet, hours);
            if (p.breakeven_curve.empty()) { // the curve over usage, for the first such candidate
                p.breakeven_device = c.device;
                for (double h : {10.0, 25.0, 50.0, 100.0, 200.0, 400.0, kHoursPerMonth})
                    p.breakeven_curve.push_back({h, breakeven_months(purchase, rent_hour, running * fleet, h)});
            }
            if (std::isfinite(months))
                c.figures["breakeven_months"] = Figure{months, months, months, Label::arithmetic,
                    "purchase $" + format_sig(purchase, 6) + " / ((rent - power) x " + format_sig(hours, 4) + " h a month)"};
        }
    }

    // Hosted APIs serving the same model: priced per token, nothing to fit or operate.
    if ((is_serving_stage(w.stage) || w.stage == Stage::embed) && w.model.from_catalog) {
        const double prompt = w.serve.prompt_tokens > 0 ? w.serve.prompt_tokens : std::round(w.serve.context_tokens / 2);
        for (const auto& api : cat.apis) {
            if (api.model != w.model.model.id) continue;
            Option o;
            o.kind = "api";
            o.name = api.provider + " " + api.model_name;
            o.unit = unit;
            if (w.stage == Stage::embed) {
                // Per 1,000 items: their tokens at the input price.
                const double v = 1000 * w.embed.tokens_per_item * api.input_usd_per_token;
                o.cost = Figure{v, v, v, Label::arithmetic, "1,000 items x " + format_sig(w.embed.tokens_per_item, 6) + " tokens x $" +
                                                          format_sig(api.input_usd_per_token * 1e6, 3) + "/M"};
                if (runs_per_month > 0 && w.embed.items > 0) o.usd_per_month = v * w.embed.items / 1000 * runs_per_month;
                o.cost_terms = {{"price", "$" + format_sig(api.input_usd_per_token * 1e6, 3) + " per million input tokens (" + api.provider + ")"},
                                {"tokens", format_sig(w.embed.tokens_per_item, 6) + " per item"},
                                {"unit cost", format_figure(unit, v) + " " + unit_label(unit) + " = 1,000 items x tokens x price"}};
                if (o.usd_per_month >= 0)
                    o.cost_terms.push_back({"a month", "$" + format_sig(o.usd_per_month, 4) + " = " + format_sig(w.embed.items, 6) + " items x " +
                                                           format_sig(runs_per_month, 4) + " runs a month"});
            } else {
                const double per_request = prompt * api.input_usd_per_token + output_tokens * api.output_usd_per_token;
                const double v = per_request / output_tokens * 1e6;
                o.cost = Figure{v, v, v, Label::arithmetic, format_sig(prompt, 6) + " prompt tokens x $" + format_sig(api.input_usd_per_token * 1e6, 3) +
                                                              "/M + " + format_sig(output_tokens, 6) + " output tokens x $" +
                                                              format_sig(api.output_usd_per_token * 1e6, 3) + "/M per request"};
                if (demand.tokens_per_s > 0) o.usd_per_month = v / 1e6 * demand.tokens_per_s * workload_hours * 3600;
                o.cost_terms = {{"price", "$" + format_sig(api.input_usd_per_token * 1e6, 3) + " per million input tokens, $" +
                                              format_sig(api.output_usd_per_token * 1e6, 3) + " per million output tokens (" + api.provider + ")"},
                                {"request", format_sig(prompt, 6) + " prompt + " + format_sig(output_tokens, 6) + " output tokens"},
                                {"unit cost", format_figure(unit, v) + " " + unit_label(unit) + " = the request's price / its output tokens"}};
                if (o.usd_per_month >= 0)
                    o.cost_terms.push_back({"a month", "$" + format_sig(o.usd_per_month, 4) + " for " + format_sig(demand.tokens_per_s * workload_hours * 3600 / 1e6, 4) +
                                                           " M output tokens demanded (" + demand.why + ")"});
            }
            std::vector<std::string> out = api_eliminations(w);
            if (api.context_tokens > 0 && is_serving_stage(w.stage) && w.serve.context_tokens > api.context_tokens)
                out.push_back("context " + format_sig(w.serve.context_tokens, 6) + " exceeds the API's " + format_sig(api.context_tokens, 6));
            if (!w.framework.empty()) out.push_back("a hosted API does not run " + w.framework);
            if (w.decision.budget_usd_per_month > 0 && o.usd_per_month > w.decision.budget_usd_per_month)
                out.push_back("budget: $" + format_sig(o.usd_per_month, 4) + " a month is over the $" + format_sig(w.decision.budget_usd_per_month, 6) + " ceiling");
            o.feasible = out.empty();
            if (o.feasible) o.reasons = {"no hardware to operate; idle time costs nothing (latency not modelled for APIs)", "cost: " + o.cost.why};
            else o.reasons = std::move(out);
            options.push_back(std::move(o));
        }
    }

    // The CPU rule holds only for a job so small that every rented device would be billed mostly to start up: where
    // some rental does more work than start-up (lesson 003's nightly 50,000 chunks: "spot or scheduled GPU jobs for
    // embeddings"), the GPUs compete on price as usual.
    if (!rentals_mostly_startup) small_on_cpu.clear();

    // Rank: feasible first; inside a named cloud its own accelerators first (lesson 004, Try it: "serving
    // inside Google Cloud or AWS can recommend TPUs or Trainium first"); then by the user's priority.
    const Priority prio = w.decision.priority;
    // The cloud's own silicon (TPU in Google Cloud; Trainium and Inferentia in AWS), not every device that
    // only one cloud rents.
    const std::string own_vendor = site == "gcp" ? "Google" : site == "aws" ? "AWS" : site == "azure" ? "Microsoft" : "";
    auto home = [&](const Option& o) {
        const Device* d = o.kind == "api" ? nullptr : cat.device_by_id(o.device);
        return d && !own_vendor.empty() && d->vendor == own_vendor && d->cloud_only == site;
    };
    auto in_domain = [&](const Option& o) {
        const Device* d = o.kind == "api" ? nullptr : cat.device_by_id(o.device);
        if (!d) return true;
        for (const auto& c : p.candidates)
            if (c.device == o.device) // a serving candidate's replica (users split over replicas), else the whole count
                return (is_serving_stage(w.stage) ? c.count / std::max(1, c.layout.data_parallel) : c.count) <= std::max(1, d->domain_size);
        return true;
    };
    // With a fixed demand every option's cost per token is its monthly cost over the same demanded tokens,
    // so this order is also the order of the fleets' monthly costs.
    auto cheaper = [](const Option& a, const Option& b) {
        const bool ac = a.cost.value > 0, bc = b.cost.value > 0;
        if (ac != bc) return ac;
        return a.cost.value < b.cost.value;
    };
    auto domain_of = [&](const Option& o) {
        const Device* d = o.kind == "api" ? nullptr : cat.device_by_id(o.device);
        return d ? d->domain_size : 0;
    };
    auto memory_of = [&](const Option& o) {
        const Device* d = o.kind == "api" ? nullptr : cat.device_by_id(o.device);
        return d ? d->memory_bytes : 0.0;
    };
    // At rack scale the largest fast domain ranks first: pretraining and RL "Buy the largest fast domain you
    // can get"; large MoE serving wants "wide expert parallelism: NVL72, Helios or a TPU slice" (lesson 004).
    // The serving plan prices the expert all-to-all per layout (plan_serving.cpp eval_serve: over the scale-up link inside
    // one domain, across the scale-out network beyond it); this ordering keeps the guide's preference among
    // options whose unit cost is unknown (rack-scale systems have no public price in the catalog).
    const bool largest_domain = level.level == Scale::rack;
    auto lower_known = [](double a, double b) { // 0 = unknown, last
        if ((a > 0) != (b > 0)) return a > 0;
        return a < b;
    };
    std::stable_sort(options.begin(), options.end(), [&](const Option& a, const Option& b) {
        if (a.feasible != b.feasible) return a.feasible;
        // What the team already owns and the job fits is planned on first (hardware.owned).
        if ((a.kind == "owned") != (b.kind == "owned")) return a.kind == "owned";
        if (prio == Priority::unit_cost && compromised.count(a.name) != compromised.count(b.name)) return compromised.count(a.name) == 0;
        if ((prio == Priority::unit_cost || prio == Priority::simplest) && small_on_cpu.count(a.name) != small_on_cpu.count(b.name))
            return small_on_cpu.count(a.name) > 0;
        if (home(a) != home(b)) return home(a);
        if (largest_domain && domain_of(a) != domain_of(b)) return domain_of(a) > domain_of(b);
        switch (prio) {
        case Priority::unit_cost: break;
        case Priority::per_user_speed:
            if (a.speed != b.speed) return a.speed > b.speed;
            break;
        case Priority::latency:
            if (a.latency_s != b.latency_s) return lower_known(a.latency_s, b.latency_s);
            break;
        case Priority::simplest: {
            if ((a.kind == "api") != (b.kind == "api")) return a.kind == "api"; // nothing to operate
            if (in_domain(a) != in_domain(b)) return in_domain(a);           // no tensor parallel over a slow link
            const int an = a.kind == "api" ? 0 : a.count, bn = b.kind == "api" ? 0 : b.count;
            if (an != bn) return an < bn;
            if (a.power_w != b.power_w) return lower_known(a.power_w, b.power_w); // less power and cooling
            break;
        }
        }
        if (a.cost.value != b.cost.value) return cheaper(a, b);
        // Equal or unknown on the priority and the price: the faster, then more headroom for capacity.
        if (a.speed != b.speed) return a.speed > b.speed;
        return memory_of(a) > memory_of(b);
    });
    p.options = std::move(options);

    // The candidate table follows the same order: the device of the first option that names it, which is the
    // option the table's row shows (Candidate::option).
    {
        std::vector<Candidate> ordered;
        for (size_t i = 0; i < p.options.size(); ++i)
            for (auto& c : p.candidates)
                if (!c.device.empty() && c.device == p.options[i].device) {
                    ordered.push_back(std::move(c));
                    ordered.back().option = static_cast<int>(i);
                    c.device.clear();
                }
        for (auto& c : p.candidates)
            if (!c.device.empty()) {
                ordered.push_back(std::move(c));
                ordered.back().option = -1;
            }
        p.candidates = std::move(ordered);
    }

    Decision& dec = p.decision;
    dec.binding = binding_resource(w.stage);
    dec.scale = std::string(name(level.level));
    dec.scale_why = level.why;
    dec.priority = std::string(name(prio));
    dec.stack = effective_stack(w);
    dec.site = site;
    for (const auto& o : p.options)
        if (!o.feasible && !o.reasons.empty()) dec.eliminated.push_back(o.name + ": " + o.reasons.front());

    Recommendation& r = p.recommendation;
    if (p.options.empty() || !p.options.front().feasible) {
        r.summary = "No option survives feasibility, fits and meets the targets.";
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
    } else {
        r.found = true;
        r.option = p.options.front();
        const std::string cost = r.option.cost.value > 0 ? unit_cost_words(r.option, unit) + " (" + r.option.cost.why + ")" : unit_cost_words(r.option, unit);
        r.summary = r.option.name + ": " + cost;
        const Candidate* lc = nullptr;
        for (const auto& c : p.candidates)
            if (c.device == r.option.device) lc = &c;
        r.headline = headline(r.option, lc, unit, w);
        if (small_on_cpu.count(r.option.name) && lc) {
            // The CPU first, with the run's time and its price or why none; the cheapest priced GPU option as the alternative.
            const Option* alt = nullptr;
            for (const auto& o : p.options)
                if (o.feasible && o.cost.value > 0 && !small_on_cpu.count(o.name)) {
                    alt = &o;
                    break;
                }
            const Candidate* ac = nullptr;
            for (const auto& c : p.candidates)
                if (alt && c.device == alt->device) ac = &c;
            // The device's name without its parenthesis ("Intel Xeon Platinum 8480+"): the headline stays one short sentence.
            const std::string short_name = lc->device_name.substr(0, lc->device_name.find(" ("));
            r.headline = "Run it on a CPU (lesson 003: 'Start here when the model is small'): " + std::to_string(r.option.count) + " x " + short_name +
                         " does it in " + format_figure("embed_time_s", run_seconds(*lc, w)) + ", under the " +
                         format_figure("rental_startup_s", cat.defaults.rental_startup_s) + " a rented GPU is billed to start; " +
                         unit_cost_words(r.option, unit) + (alt ? ". Else: " + headline(*alt, ac, unit, w) : std::string("."));
        }
        // Training: the size step is the count the search chose, with the lesson's rule of thumb beside it.
        if (lc && (w.stage == Stage::pretrain || w.stage == Stage::finetune) && !lc->count_why.empty()) {
            const Device* d = cat.device_by_id(lc->device);
            const int domain = d ? std::max(1, d->domain_size) : 8;
            const Scale chosen = lc->count == 1 ? Scale::one_device : lc->count <= domain ? Scale::node : Scale::rack;
            dec.scale_why = lc->count_why + (chosen == level.level ? "; as the lesson's rule of thumb says: " : "; the lesson's rule of thumb says " +
                                                                                                                 std::string(name(level.level)) + ": ") +
                            level.why;
            dec.scale = std::string(name(chosen));
        }
    }
    if (!r.found) r.headline = r.summary; // already short: no cost to derive
    r.reasons.insert(r.reasons.begin(), {"stage: " + std::string(name(w.stage)) + "; binding resource: " + dec.binding,
                                         "size: " + dec.scale + " (" + dec.scale_why + ")",
                                         "feasibility: " + std::to_string(dec.eliminated.size()) + " of " + std::to_string(p.options.size()) +
                                             " options eliminated (stack " + dec.stack + (site.empty() ? "" : ", site " + site) +
                                             (w.decision.budget_usd_per_month > 0 ? ", budget" : "") + ")",
                                         "ranked by " + dec.priority + (site == "gcp" || site == "aws" || site == "azure" ? ", " + site + "'s own accelerators first" : "")});
    if (demand.tokens_per_s > 0)
        r.reasons.insert(r.reasons.begin() + 4, "demand: " + demand.why + "; each option is priced as the monthly cost of the fleet that "
                                                "meets it, over the tokens demanded (a faster device does not create more useful tokens), not at full load");
    const Candidate* rc = nullptr;
    if (r.found && r.option.kind != "api") {
        for (const auto& c : p.candidates)
            if (c.device == r.option.device) rc = &c;
        if (rc) {
            r.reasons.push_back(std::string(name(rc->regime)) + ": " + rc->regime_why);
            r.lever = lever_for(*rc, w);
            r.reasons.push_back("memory: " + format_bytes(rc->memory.total_bytes) + " of " + format_bytes(rc->memory.capacity_bytes) +
                                " usable per device");
        }
        for (size_t i = 1; i < r.option.reasons.size(); ++i) r.reasons.push_back(r.option.reasons[i]);
        // Lesson 004, example 3: "Budget most of the GPUs for rollouts." Where the split departs from it, say so and
        // why, with the lesson's split priced beside it (rl.h: the best split with more rollout than trainer devices).
        if (rc && rc->rl.sized && rc->rl.rollout_share <= 0.5) {
            const RlPools& rl = rc->rl;
            const int total = rl.trainer_devices + rl.rollout_devices;
            std::string why = "rollout pool: " + std::to_string(rl.rollout_devices) + " of " + std::to_string(total) + " devices (" +
                              format_sig(100 * rl.rollout_share, 3) + " %), not most of them as lesson 004 says ('Budget most of the GPUs for "
                              "rollouts'): the trainer pool is " + std::to_string(rl.trainer_devices) + " devices, the fewest the training step "
                              "fits on, and generation is " + format_sig(100 * rl.generation_s / rl.step_s, 3) + " % of the step at this split, "
                              "the fewest device-seconds per step of the " + std::to_string(rl.splits_searched) + " tried";
            if (rl.lesson_rollout_devices > 0 && r.option.cost.value > 0 && rl.device_s_per_step > 0) {
                const double lesson_cost = r.option.cost.value * rl.lesson_device_s_per_step / rl.device_s_per_step;
                why += "; the lesson's split, " + std::to_string(rl.trainer_devices) + " trainer + " + std::to_string(rl.lesson_rollout_devices) +
                       " rollout devices (" + format_sig(100.0 * rl.lesson_rollout_devices / (rl.trainer_devices + rl.lesson_rollout_devices), 3) +
                       " %), steps in " + format_figure("rl_step_s", rl.lesson_step_s) + " against " + format_figure("rl_step_s", rl.step_s) +
                       " and costs " + format_figure(unit, lesson_cost) + " " + unit_label(unit) + " at the same price per device-hour (" +
                       format_sig(100 * (lesson_cost / r.option.cost.value - 1), 3) + " % more)";
            }
            r.reasons.push_back(why);
        }
        // An SRAM decode tier sells speed; the lesson keeps GPUs for prefill.
        const Device* rd = cat.device_by_id(r.option.device);
        if (rd && rd->kind == DeviceKind::sram_system)
            for (const auto& o : p.options)
                if (o.feasible && o.kind != "api")
                    if (const Device* od = cat.device_by_id(o.device); od && od->kind == DeviceKind::gpu) {
                        r.reasons.push_back("prefill: keep GPUs for prefill (lesson 004), e.g. " + o.name);
                        break;
                    }
    } else if (r.found) {
        r.lever = "volume: at steady high traffic, owned or rented devices can undercut per-token prices; compare at your usage";
    }
    isolation_reason(p, w);
    if (r.found && p.options.size() > 1) {
        const Option& o = p.options[1];
        std::string why;
        if (!o.feasible) why = o.reasons.front();
        else if (prio == Priority::per_user_speed && o.speed != r.option.speed) {
            // speed_of's figure, with its unit.
            const std::string u = is_serving_stage(w.stage) ? " tokens/s per user" : w.stage == Stage::embed ? " items/s" : " tokens/s";
            why = format_sig(o.speed, 3) + u + " against " + format_sig(r.option.speed, 3) + u;
        }
        else if (prio == Priority::latency && o.latency_s != r.option.latency_s) why = "time to first token " + format_sig(o.latency_s, 3) + " s against " + format_sig(r.option.latency_s, 3) + " s";
        else if (prio == Priority::simplest && o.count != r.option.count) why = std::to_string(o.count) + " devices against " + std::to_string(r.option.count);
        else if (prio == Priority::simplest && !in_domain(o) && in_domain(r.option)) why = "tensor parallel outside a fast scale-up domain (lower decode speed)";
        else if (prio == Priority::simplest && o.power_w != r.option.power_w) why = format_sig(o.power_w, 4) + " W against " + format_sig(r.option.power_w, 4) + " W";
        else if (home(r.option) && !home(o)) why = "not " + site + "'s own accelerator";
        else if (small_on_cpu.count(r.option.name) && !small_on_cpu.count(o.name))
            why = "ranked after a CPU that finishes the job before a rented GPU starts (lesson 003: 'Start here when the model is small'); " +
                  unit_cost_words(o, unit);
        else why = o.cost.value > 0 ? format_figure(unit, o.cost.value) + " " + unit_label(unit) + " against " +
                                          (r.option.cost.value > 0 ? format_figure(unit, r.option.cost.value) : std::string("an unpriced first"))
                                    : o.cost.why.empty() ? "no public price" : o.cost.why;
        dec.runner_up = o.name + ": " + why;
        r.reasons.push_back("runner-up " + dec.runner_up);
    }

    // choose.go beside the computed answer.
    const Guide g = first_cut(w, cat);
    dec.guide = g.recommendation;
    dec.guide_why = g.why;
    if (r.found) {
        const bool same_family = r.option.kind == "api" ? g.devices.empty()
                                                        : std::find(g.devices.begin(), g.devices.end(), r.option.device) != g.devices.end();
        dec.guide_agrees = same_family;
        if (!same_family) {
            std::string lost;
            for (const auto& id : g.devices) {
                for (const auto& o : p.options)
                    if (o.device == id) {
                        lost = o.name + (o.feasible ? " ranked lower by " + dec.priority : " eliminated: " + o.reasons.front());
                        break;
                    }
                if (!lost.empty()) break;
            }
            dec.guide_note = "the computed answer (" + r.option.name + ") is outside the guide's family" +
                             (lost.empty() ? std::string(": the guide names no catalog device for it") : ": " + lost);
        }
    } else {
        dec.guide_note = "no feasible option: the guide's first cut is the place to start";
    }

    // The three checks (lesson 004, "The three checks, always").
    const std::string lever = r.lever.empty() ? "" : " (lever: " + r.lever + ")";
    dec.checks.push_back("regime: measure whether the job is compute-, bandwidth- or capacity-bound on your current hardware; predicted " +
                         std::string(rc ? name(rc->regime) : "unknown") + lever);
    std::string test;
    if (is_serving_stage(w.stage))
        test = format_sig(w.serve.concurrent_users, 6) + " concurrent users at " + format_sig(w.serve.context_tokens, 6) +
               "-token context: measure p95 time to first token, tokens/s per user and memory headroom";
    else if (w.stage == Stage::embed)
        test = "one batch window of " + format_sig(w.embed.items, 6) + " items: measure items per minute and failed batches";
    else
        test = "a few hundred steps at the real sequence length and batch: measure steps per second and peak memory";
    dec.checks.push_back("run it: your exact model, precision and stack on " + (r.found ? r.option.name : std::string("the nearest candidate")) +
                         "; first load test: " + test + "; count the days it took to make it work");
    dec.checks.push_back("unit cost: convert to " + unit_label(unit) + " at the batch you will really run" +
                         (r.found && r.option.kind == "own" ? ", including power and hosting (counted here)" : ""));
}

} // namespace hwplan
