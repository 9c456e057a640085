// decide_explain.cpp: the decision in words, written after ranking from the ranked options and their candidates:
// lesson 004's order (binding resource, size, what feasibility eliminated, the ranking), the recommendation's
// headline, summary, reasons and lever, the runner-up and why it lost, choose.go's first cut beside it (guide.cpp),
// and the three checks (regime and lever, run it, unit cost).
#include <algorithm>

#include "decide_internal.h"
#include "hwplan/format.h"
#include "hwplan/guide.h"
#include "hwplan/render.h"

namespace hwplan::decide_parts {

namespace {

// Why `after` ranks after `first` at a step of lesson 004's order (decide_ranking.cpp rank_step): the step's name,
// and where the step compares figures, after's against first's. Empty for the price and the ties after it.
struct StepWords {
    std::string name;
    std::string figures;
};
StepWords step_words(RankStep step, const Option& first, const Option& after, const RankKey& kf, const RankKey& ka, const Workload& w,
                     const DecideInputs& in) {
    const std::string simplest = "simplest to operate";
    switch (step) {
    case RankStep::owned: return {"the team's own devices (hardware.owned)", ""};
    case RankStep::compromise: {
        // Which compromises, in the order its reasons list them (decide_option_words.cpp).
        std::vector<std::string> what;
        if (ka.fp8_at_16_bits) what.push_back("FP8 weights at 16-bit compute (no FP8 path published)");
        if (ka.local_runtime) what.push_back("a local runtime, not a serving engine that batches the users");
        if (ka.tp_outside_domain) what.push_back("tensor parallel outside a fast scale-up domain (a slower decode)");
        if (ka.memory_unpriced)
            what.push_back("priced as the bare processors: the memory and the " + std::to_string(after.count) +
                           " servers they need are not in its price, so its cost is a lower bound");
        std::string figures = "this one compromises: ";
        for (size_t i = 0; i < what.size(); ++i) figures += (i ? "; " : "") + what[i];
        return {"a fleet without a compromise", what.empty() ? "this one meets the demand only with a compromise (its reasons say which)" : figures};
    }
    case RankStep::small_on_cpu: return {"a CPU for a small job (lesson 003: 'Start here when the model is small')", "a CPU finishes it before a rented GPU starts"};
    case RankStep::home: return {in.site + "'s own accelerators", "not " + in.site + "'s own"};
    case RankStep::domain:
        return {"the largest fast domain (lesson 004: 'Buy the largest fast domain you can get')",
                "a domain of " + std::to_string(ka.domain) + " devices against " + std::to_string(kf.domain)};
    case RankStep::speed: {
        // speed_of's figure, with its unit.
        const std::string u = is_serving_stage(w.stage) ? " tokens/s per user" : w.stage == Stage::embed ? " items/s" : " tokens/s";
        return {is_serving_stage(w.stage) ? "per-user speed" : "speed", format_sig(after.speed, 3) + u + " against " + format_sig(first.speed, 3) + u};
    }
    case RankStep::latency:
        return {"time to first token", (after.latency_s > 0 ? format_figure("ttft_s", after.latency_s) : std::string("not modelled")) + " against " +
                                           format_figure("ttft_s", first.latency_s)};
    case RankStep::api: return {simplest, "a hosted API has nothing to operate"};
    case RankStep::in_domain: return {simplest, "tensor parallel outside a fast scale-up domain (lower decode speed)"};
    case RankStep::count: return {simplest, std::to_string(after.count) + " devices against " + std::to_string(first.count)};
    case RankStep::power:
        return {simplest, (after.power_w > 0 ? format_sig(after.power_w, 4) + " W" : std::string("power not published")) + " against " +
                              format_sig(first.power_w, 4) + " W"};
    default: return {};
    }
}

// The step at which the recommendation (p.options[0]) goes before option i, and its words.
StepWords ranked_after_words(const Plan& p, const Priced& priced, size_t i, const Workload& w, const DecideInputs& in) {
    bool first = false;
    const RankStep step = rank_step(p.options[0], p.options[i], priced.keys[0], priced.keys[i], w.decision.priority,
                                    in.level.level == Scale::rack, first);
    return step_words(step, p.options[0], p.options[i], priced.keys[0], priced.keys[i], w, in);
}

// The decision in one short sentence (issue 10: "the decision in one sentence"): what to do (buy, rent or
// call an API), which devices in what layout, and the unit cost with the month; the derivation is the
// option's cost_terms, shown line by line under it. Says the same as the summary (decide_test checks it).
std::string headline(const Option& o, const Candidate* c, const Workload& w) {
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
            add(c->layout.context_parallel, "context parallel");
            if (!is_serving_stage(w.stage)) add(c->layout.data_parallel, "data parallel"); // serving: the replicas, named already
            add(c->layout.expert_parallel, "experts over");
            if (!layout.empty()) s += ", " + layout + (o.replicas > 1 ? " per replica" : "");
        }
    }
    s += ": " + unit_cost_words(o);
    if (o.usd_per_month >= 0) s += ", $" + format_sig(o.usd_per_month, 4) + " a month";
    // A training job's time to result at the count chosen, and whether the user asked for it (issue 18: never a
    // count whose time the user did not ask for without saying so).
    const Figure* days = c && is_training_stage(w.stage) && w.stage != Stage::rl ? fig(*c, "train_time_s") : nullptr;
    if (days && days->value > 0)
        s += "; " + format_sig(days->value / 86400, 3) + " days to train" +
             (w.decision.deadline_days > 0 ? " (deadline " + format_sig(w.decision.deadline_days, 4) + " days)" : " (no deadline given)");
    return s + ".";
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

const Candidate* candidate_of(const Plan& p, const std::string& device) {
    const Candidate* found = nullptr;
    for (const auto& c : p.candidates)
        if (c.device == device) found = &c;
    return found;
}

// The recommendation's headline and summary (or the nearest miss), and at training the size step the search chose.
void recommendation_words(Plan& p, const Priced& priced, const Workload& w, const Catalog& cat, const DecideInputs& in) {
    Decision& dec = p.decision;
    Recommendation& r = p.recommendation;
    if (!r.found) {
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
        r.headline = r.summary; // already short: no cost to derive
        return;
    }
    const std::string cost = r.option.cost.value > 0 ? unit_cost_words(r.option) + " (" + r.option.cost.why + ")" : unit_cost_words(r.option);
    r.summary = r.option.name + ": " + cost;
    const Candidate* lc = candidate_of(p, r.option.device);
    r.headline = headline(r.option, lc, w);
    if (priced.keys.front().small_on_cpu && lc) { // keys: in p.options' order, the recommendation first
        // The CPU first, with the run's time and its price or why none; the cheapest priced GPU option as the alternative.
        const Option* alt = nullptr;
        for (size_t i = 0; i < p.options.size(); ++i)
            if (const Option& o = p.options[i]; o.feasible && o.cost.value > 0 && !priced.keys[i].small_on_cpu) {
                alt = &o;
                break;
            }
        const Candidate* ac = alt ? candidate_of(p, alt->device) : nullptr;
        // The device's name without its parenthesis ("Intel Xeon Platinum 8480+"): the headline stays one short sentence.
        const std::string short_name = lc->device_name.substr(0, lc->device_name.find(" ("));
        r.headline = "Run it on a CPU (lesson 003: 'Start here when the model is small'): " + std::to_string(r.option.count) + " x " + short_name +
                     " does it in " + format_figure("embed_time_s", run_seconds(*lc, w)) + ", under the " +
                     format_figure("rental_startup_s", cat.defaults.rental_startup_s) + " a rented GPU is billed to start; " +
                     unit_cost_words(r.option) + (alt ? ". Else: " + headline(*alt, ac, w) : std::string("."));
    }
    // An unpriced option first while a priced one is feasible: the headline says on what it ranks first and names the
    // cheapest priced option with its unit cost (issue 19: "the decision never ranks an unpriced option above a priced
    // one on cost without saying so in the headline").
    // Where the order's first priced option is not the cheapest (a per-user speed priority puts a B200 before two RTX
    // 5090s), the headline names the first priced one, which the runner-up and the best-of-kind rows name too (the
    // same order), and then the cheapest, with the step it ranks after the first at.
    if (!(r.option.cost.value > 0)) {
        size_t cheapest = 0, first_priced = 0;
        for (size_t i = 1; i < p.options.size(); ++i) {
            const Option& o = p.options[i];
            if (!(o.feasible && o.cost.value > 0 && o.unit == r.option.unit)) continue;
            if (first_priced == 0) first_priced = i;
            if (cheapest == 0 || o.cost.value < p.options[cheapest].cost.value) cheapest = i;
        }
        const StepWords why = first_priced > 0 ? ranked_after_words(p, priced, first_priced, w, in) : StepWords{};
        if (!why.name.empty() && first_priced == cheapest) {
            r.headline += " First on " + why.name + ", not on cost: the cheapest priced option, " + p.options[cheapest].name + " at " +
                          unit_cost_words(p.options[cheapest]) + ", ranks after it" + (why.figures.empty() ? "" : " (" + why.figures + ")") + ".";
        } else if (!why.name.empty()) {
            bool first = false;
            const RankStep step = rank_step(p.options[first_priced], p.options[cheapest], priced.keys[first_priced], priced.keys[cheapest],
                                            w.decision.priority, in.level.level == Scale::rack, first);
            const StepWords then = step_words(step, p.options[first_priced], p.options[cheapest], priced.keys[first_priced], priced.keys[cheapest], w, in);
            r.headline += " First on " + why.name + ", not on cost: the first priced option, " + p.options[first_priced].name + " at " +
                          unit_cost_words(p.options[first_priced]) + ", ranks after it" + (why.figures.empty() ? "" : " (" + why.figures + ")") +
                          "; the cheapest, " + p.options[cheapest].name + " at " + unit_cost_words(p.options[cheapest]) +
                          (then.name.empty() ? ", after that one" : ", ranks after that one on " + then.name) + ".";
        }
        // Its kind's priced options set aside only for want of usage: the usage that would price them.
        for (const Option& o : p.options)
            if (o.kind == r.option.kind && o.eliminated_by == std::vector<Elimination>{Elimination::no_usage}) {
                r.headline += " Options of this kind with a catalog price wait for usage (" + o.reasons.front() + ").";
                break;
            }
    }
    // Training: the size step is the count the search chose, with the lesson's rule of thumb beside it.
    if (lc && (w.stage == Stage::pretrain || w.stage == Stage::finetune) && !lc->count_why.empty()) {
        // A node holds up to 8 devices whatever joins them (lesson 004's "an 8-GPU node"; eight PCIe cards in one
        // server are a node, not a rack-scale domain); past 8 the job spans a rack-scale domain or more.
        const Scale chosen = lc->count == 1 ? Scale::one_device : lc->count <= 8 ? Scale::node : Scale::rack;
        dec.scale_why = lc->count_why + (chosen == in.level.level ? "; as the lesson's rule of thumb says: "
                                                                  : "; the lesson's rule of thumb says " + std::string(name(in.level.level)) + ": ") +
                        in.level.why;
        dec.scale = std::string(name(chosen));
    }
}

// The recommendation's reasons: lesson 004's order first, then its regime, memory and own reasons, and what the
// lesson would do differently (the RL split, GPUs for prefill beside an SRAM decode tier).
void recommendation_reasons(Plan& p, const Workload& w, const Catalog& cat, const DecideInputs& in) {
    const Decision& dec = p.decision;
    Recommendation& r = p.recommendation;
    const std::string& site = in.site;
    const std::string& unit = in.unit;
    r.reasons.insert(r.reasons.begin(), {"stage: " + std::string(name(w.stage)) + "; binding resource: " + dec.binding,
                                         "size: " + dec.scale + " (" + dec.scale_why + ")",
                                         "feasibility: " + std::to_string(dec.eliminated.size()) + " of " + std::to_string(p.options.size()) +
                                             " options eliminated (stack " + dec.stack + (site.empty() ? "" : ", site " + site) +
                                             (w.decision.budget_usd_per_month > 0 ? ", budget" : "") + ")",
                                         "ranked by " + dec.priority + (site == "gcp" || site == "aws" || site == "azure" ? ", " + site + "'s own accelerators first" : "")});
    if (in.demand.tokens_per_s > 0)
        r.reasons.insert(r.reasons.begin() + 4, "demand: " + in.demand.why + "; each option is priced as the monthly cost of the fleet that "
                                                "meets it, over the tokens demanded (a faster device does not create more useful tokens), not at full load");
    if (!r.found) return;
    if (r.option.kind == "api") {
        r.lever = "volume: at steady high traffic, owned or rented devices can undercut per-token prices; compare at your usage";
        return;
    }
    const Candidate* rc = candidate_of(p, r.option.device);
    if (rc) {
        r.reasons.push_back(std::string(name(rc->regime)) + ": " + rc->regime_why);
        r.lever = lever_for(*rc, w);
        r.reasons.push_back("memory: " + format_bytes(rc->memory.total_bytes) + " of " + format_bytes(rc->memory.capacity_bytes) + " usable per device");
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
    // An SRAM decode tier sells speed; the lesson keeps GPUs for prefill: the first feasible GPU option with a price,
    // else the first without one.
    const Device* rd = cat.device_by_id(r.option.device);
    if (rd && rd->kind == DeviceKind::sram_system) {
        const Option* gpu = nullptr;
        for (const auto& o : p.options)
            if (o.feasible && o.kind != "api" && (!gpu || (!(gpu->cost.value > 0) && o.cost.value > 0)))
                if (const Device* od = cat.device_by_id(o.device); od && od->kind == DeviceKind::gpu) gpu = &o;
        if (gpu) r.reasons.push_back("prefill: keep GPUs for prefill (lesson 004), e.g. " + gpu->name);
    }
}

// The second option and why it lost: at the step of the order where the recommendation goes first (rank_step), with
// that step's figures, and the price where the step is the price (or one of the ties after it).
void runner_up_words(Plan& p, const Priced& priced, const Workload& w, const DecideInputs& in) {
    Recommendation& r = p.recommendation;
    if (!r.found || p.options.size() < 2) return;
    const std::string& unit = in.unit;
    const Option& o = p.options[1];
    auto price_words = [&] {
        return o.cost.value > 0 ? format_figure(unit, o.cost.value) + " " + unit_label(unit) + " against " +
                                      (r.option.cost.value > 0 ? format_figure(unit, r.option.cost.value) : std::string("an unpriced first"))
                                : unit_cost_words(o); // as its own headline would say it
    };
    std::string why;
    if (!o.feasible) {
        why = o.reasons.front();
    } else {
        bool first = false;
        const RankStep step = rank_step(p.options[0], o, priced.keys[0], priced.keys[1], w.decision.priority, in.level.level == Scale::rack, first);
        const StepWords sw = step_words(step, p.options[0], o, priced.keys[0], priced.keys[1], w, in);
        switch (step) {
        case RankStep::small_on_cpu:
            why = "ranked after a CPU that finishes the job before a rented GPU starts (lesson 003: 'Start here when the model is small'); " +
                  unit_cost_words(o);
            break;
        case RankStep::home: why = "not " + in.site + "'s own accelerator"; break;
        case RankStep::latency: why = "time to first token " + sw.figures; break;
        case RankStep::speed:
        case RankStep::api:
        case RankStep::in_domain:
        case RankStep::count:
        case RankStep::power: why = sw.figures; break;
        case RankStep::owned:
        case RankStep::compromise:
        case RankStep::domain: why = sw.name + ": " + sw.figures + "; " + price_words(); break; // a step ahead of the price, then the price
        default: why = price_words(); break;
        }
    }
    p.decision.runner_up = o.name + ": " + why;
    r.reasons.push_back("runner-up " + p.decision.runner_up);
}

// choose.go beside the computed answer.
void guide_words(Plan& p, const Workload& w, const Catalog& cat) {
    Decision& dec = p.decision;
    const Recommendation& r = p.recommendation;
    const Guide g = first_cut(w, cat);
    dec.guide = g.recommendation;
    dec.guide_why = g.why;
    if (!r.found) {
        dec.guide_note = "no feasible option: the guide's first cut is the place to start";
        return;
    }
    const bool same_family = r.option.kind == "api" ? g.devices.empty() : std::find(g.devices.begin(), g.devices.end(), r.option.device) != g.devices.end();
    dec.guide_agrees = same_family;
    if (same_family) return;
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

// The three checks (lesson 004, "The three checks, always").
void three_checks(Plan& p, const Workload& w, const DecideInputs& in) {
    Decision& dec = p.decision;
    const Recommendation& r = p.recommendation;
    const Candidate* rc = r.found && r.option.kind != "api" ? candidate_of(p, r.option.device) : nullptr;
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
    dec.checks.push_back("unit cost: convert to " + unit_label(in.unit) + " at the batch you will really run" +
                         (r.found && r.option.kind == "own" ? ", including power and hosting (counted here)" : ""));
}

} // namespace

void explain_decision(Plan& p, const Priced& priced, const Workload& w, const Catalog& cat, const DecideInputs& in) {
    Decision& dec = p.decision;
    dec.binding = binding_resource(w.stage);
    dec.scale = std::string(name(in.level.level));
    dec.scale_why = in.level.why;
    dec.priority = std::string(name(w.decision.priority));
    dec.stack = effective_stack(w);
    dec.site = in.site;
    for (const auto& o : p.options)
        if (!o.feasible && !o.reasons.empty()) dec.eliminated.push_back(o.name + ": " + o.reasons.front());
    // Each feasible option the recommendation goes before at a step ahead of the price says that step: what a cheaper
    // option's place means, and what the price flip reads (flips.cpp: the recommendation's cost alone keeps it below).
    for (size_t i = 1; p.recommendation.found && i < p.options.size() && p.options[i].feasible; ++i)
        if (const StepWords why = ranked_after_words(p, priced, i, w, in); !why.name.empty()) {
            p.options[i].rank_why = kRankedAfter + why.name + (why.figures.empty() ? "" : ": " + why.figures);
            p.options[i].reasons.push_back(p.options[i].rank_why);
        }
    recommendation_words(p, priced, w, cat, in);
    recommendation_reasons(p, w, cat, in);
    isolation_reason(p, w);
    runner_up_words(p, priced, w, in);
    guide_words(p, w, cat);
    three_checks(p, w, in);
}

} // namespace hwplan::decide_parts

namespace hwplan {

// Lesson 003: when interactive and batch traffic share a replica, show what separating them does.
void isolation_reason(Plan& p, const Workload& w) {
    if (w.serve.traffic.size() < 2 || p.candidates.empty()) return;
    const Candidate& c = p.candidates.front();
    const Figure* mixed = decide_parts::fig(c, "p95_ttft_s");
    const Figure* alone = decide_parts::fig(c, "isolated_p95_ttft_s");
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

} // namespace hwplan
