// decide_option_words.cpp: each option in words, written from the numbers it was priced from (decide_pricing.cpp):
// why it is out (from Option::eliminated_by), or why it stays and its notes; the unit cost's derivation (cost.why and
// the cost terms, line by line); the candidate's price figures and the buy-versus-rent break-even.
#include <algorithm>
#include <cmath>

#include "decide_internal.h"
#include "hwplan/format.h"
#include "hwplan/render.h"

namespace hwplan::decide_parts {

namespace {

// A time of hours or days in seconds is hard to read ("4011694 s"): the cost terms keep the seconds the arithmetic
// uses and add the same time in hours or days beside them, from two hours on.
std::string in_hours_or_days(double s) {
    if (!std::isfinite(s) || s < 7200) return "";
    if (s < 172800) return " (" + format_sig(s / 3600, 3) + " hours)";
    return " (" + format_sig(s / 86400, 3) + " days)";
}

// A missed target in words: the target and the candidate's figure against it.
std::string missed_target_words(Elimination e, const Candidate& c, const Workload& w) {
    switch (e) {
    case Elimination::ttft_target: {
        const Figure* t = fig(c, "p95_ttft_s") ? fig(c, "p95_ttft_s") : fig(c, "ttft_s");
        const char* what = fig(c, "p95_ttft_s") ? "p95 time to first token" : "time to first token";
        return std::string("misses the ") + format_sig(w.serve.ttft_target_s, 3) + " s target: " + what + " " + format_figure("ttft_s", t->value);
    }
    case Elimination::speed_target:
        return "misses the " + format_sig(w.serve.tokens_per_s_per_user_target, 3) + " tokens/s per user target: " +
               format_sig(fig(c, "decode_tokens_per_s_per_user")->value, 3) + " tokens/s";
    case Elimination::window:
        return "misses the " + format_figure("window_s", w.embed.window_s) + " window: needs " +
               format_figure("embed_time_s", fig(c, "window_used_ratio")->value * w.embed.window_s);
    case Elimination::deadline:
        return "misses the " + format_sig(w.decision.deadline_days, 4) + "-day deadline: " + format_sig(fig(c, "train_time_s")->value / 86400, 3) +
               " days to train";
    default: return "";
    }
}

// Why a users' demand has no fleet of this device: it streams slower than a user reads.
std::string no_fleet_words(const Option& o, const Workload& w, const DecideInputs& in) {
    return "demand: streams " + format_sig(o.speed, 3) + " tokens/s per user, slower than the " + format_sig(in.demand.per_user_tokens_per_s, 3) +
           " tokens/s a user reads (assumption user_read_tokens_per_s), " +
           (w.hardware.count > 0 || workload_gives(w, "serve.batch_size") ? std::string("at the count and batch given")
                                                                    : "with the users split over as many replicas as the search tried") +
           ": no fleet of it meets the demand, so no unit cost";
}

std::string budget_words(double usd_per_month, const Workload& w) {
    if (usd_per_month < 0)
        return "budget: no monthly cost in the catalog to hold against the $" + format_sig(w.decision.budget_usd_per_month, 6) + " ceiling";
    return "budget: $" + format_sig(usd_per_month, 4) + " a month is over the $" + format_sig(w.decision.budget_usd_per_month, 6) + " ceiling";
}

// One device option in words: its reasons, cost.why and cost terms, and the candidate's price figures.
void device_option_words(Option& o, const OptionPricing& r, const CandidatePricing& cp, Candidate& c, const Workload& w, const Catalog& cat,
                         const DecideInputs& in) {
    const Device& d = *cp.device;
    const HourlyCost& hc = price_of(cp, r.way);
    const bool owning = r.way == Way::own || r.way == Way::owned;
    const PurchaseUnits& bought = r.bought;
    const int replicas = r.replicas, per_replica = cp.per_replica, spares = in.spares;
    const Demand& demand = in.demand;
    const std::string& unit = in.unit;
    const std::string& site = in.site;
    // The "devices" cost term and the cost's why: the count paid for, then what it is made of.
    std::string made_of = c.rl.sized ? std::to_string(c.rl.trainer_devices) + " trainer + " + std::to_string(c.rl.rollout_devices) +
                                           " rollout, each paid for the whole RL step"
                                     : std::string();
    if (!r.layout_words.empty()) made_of += (made_of.empty() ? "" : "; ") + r.layout_words;
    if (r.in_units && bought.devices_idle > 0) made_of += ", " + std::to_string(bought.devices_idle) + " idle";
    const std::string made_of_words = made_of.empty() ? "" : " (" + made_of + ")";
    const std::string devices_words = std::to_string(o.count) + made_of_words;

    // Why it is out: the checks before price in feasibility.cpp's words, then the decision's own.
    std::vector<std::string> out = eliminations(d, w, owning ? "own" : o.kind, cp.fleet, in.level, per_replica);
    for (size_t i = out.size(); i < o.eliminated_by.size(); ++i) {
        const Elimination e = o.eliminated_by[i];
        switch (e) {
        case Elimination::power_budget: out.push_back(power_budget_elimination(d, w, per_replica * replicas)); break;
        case Elimination::fit:
            out.push_back("does not fit: needs " + format_bytes(c.memory.total_bytes) + " per device, " + format_bytes(c.memory.capacity_bytes) + " usable");
            break;
        case Elimination::cannot_buy:
            out.push_back("cannot be bought" + (d.cloud_only.empty() ? std::string() : " (only in " + d.cloud_only + ")"));
            break;
        case Elimination::owned_short:
            out.push_back("owned: needs " + std::to_string(o.count) + " devices, the team owns " + std::to_string(cp.owned_count) +
                          " (hardware.owned); buy or rent the rest");
            break;
        case Elimination::purchase_budget:
            if (bought.usd > 0)
                out.push_back("purchase budget: " + std::to_string(r.to_buy.devices_bought) + " x $" + format_sig(purchase_usd_per_device(d), 5) +
                              (r.to_buy.devices_per_unit > 1 ? " (" + units_phrase(r.to_buy) + ")" : std::string()) + " = $" +
                              format_sig(r.to_buy.usd, 4) + ", over the $" + format_sig(w.decision.purchase_budget_usd, 4) + " one-off budget");
            else
                out.push_back("purchase budget: no purchase price in the catalog to hold against the $" +
                              format_sig(w.decision.purchase_budget_usd, 4) + " one-off budget");
            break;
        case Elimination::not_for_rent: out.push_back("not offered for rent"); break;
        case Elimination::no_usage:
            out.push_back(std::string(owning ? "owning" : "reserving") + ": give usage (hours a month, or jobs a week x hours) or cost.utilization to price it");
            break;
        case Elimination::interruptible: out.push_back("spot capacity can be taken back at any time: not for an interactive endpoint"); break;
        case Elimination::framework: out.push_back("does not run " + w.framework + " (catalog software list)"); break;
        case Elimination::ttft_target:
        case Elimination::speed_target:
        case Elimination::window:
        case Elimination::deadline: out.push_back(missed_target_words(e, c, w)); break;
        case Elimination::replicas:
            out.push_back("scale: the demand needs " + format_sig(cp.replicas_needed, 3) + " replicas of " + std::to_string(c.count) +
                          " device(s); more than " + format_sig(kMostReplicas, 3) + " are not planned");
            break;
        case Elimination::demand: out.push_back(no_fleet_words(o, w, in)); break;
        case Elimination::budget: out.push_back(budget_words(r.usd_per_month_checked, w)); break;
        default: break; // the checks before price are feasibility.cpp's, listed first
        }
    }

    // Why it stays: what it compromises on, then its notes, in the order its numbers were found.
    std::vector<std::string> short_of;
    if (r.fp8_at_16_bits)
        short_of.push_back("compromise: no FP8 compute path published for " + d.id + " (it would run the FP8 weights at 16-bit compute)" +
                           " (lesson 003: lower precision 'must be tested for quality and supported kernels')");
    if (r.local_runtime)
        short_of.push_back("compromise: planned with a llama.cpp-style local runtime, not a serving engine that batches " +
                           format_sig(w.serve.concurrent_users, 6) + " users (lesson 003: 'one GPU endpoint for chat')");
    if (r.tp_outside_domain)
        short_of.push_back("compromise: tensor parallel over " + std::to_string(c.layout.tensor_parallel) + " devices outside a fast scale-up domain: "
                           "every decode step pays its all-reduces over the slow link (issue 11: 'six cards can decode slower than one')");
    if (r.memory_unpriced)
        short_of.push_back("compromise: priced as the processor alone: the " + format_bytes(c.memory.total_bytes) + " of memory each socket holds here (" +
                           format_bytes(c.memory.total_bytes * o.count) + " over " + std::to_string(o.count) + " sockets) and the server around each "
                           "are bought separately and have no price in the catalog, so its cost is a lower bound; " +
                           (o.count > 1 ? std::to_string(o.count) + " separate servers drawing " + format_sig(o.power_w / 1e3, 3) + " kW at full power"
                                        : std::string("one server")));
    std::vector<std::string> notes;
    const bool notes_shown = o.feasible;
    if (notes_shown) {
        if (w.decision.power_budget_w > 0 && d.min_power_w > 0 && d.tdp_w * per_replica * replicas > w.decision.power_budget_w)
            notes.push_back("power: " + format_sig(o.power_draw_w, 4) + " W in its lowest power mode fits the " +
                            format_sig(w.decision.power_budget_w, 6) + " W budget, " + format_sig(d.tdp_w * per_replica * replicas, 4) +
                            " W at full power does not: run it capped (a Jetson's nvpmodel mode); the speeds above are modelled at "
                            "full power and will be lower");
        // With no site given, a device that may not stand in a data centre is bought for a desk or an office (cost.cpp
        // pays_colocation): the plan says where, and how to rule it out.
        if (owning && site.empty() && !pays_colocation(d, site))
            notes.push_back(std::string("site: no site given, so it stands at a desk or in an office (") +
                            (!d.datacenter_use ? "its licence keeps it out of data centres" : "a desktop machine or a module, not a server") +
                            "): no colocation counted; decision.site \"own_datacenter\" rules it out");
        if (!cp.seconds) notes.push_back("speed not modelled: no published peak for the compute precision (unit cost unknown)");
        if (r.in_units) {
            const int more = bought.replicas_fit - replicas;
            const std::string paid = owning ? "bought" : "rented";
            notes.push_back((owning ? "servers: " : "instances: ") + r.units_words + " " + paid + " (" + std::to_string(o.count) + " devices): " +
                            (replicas > 1 ? std::to_string(replicas) + " replicas of " + std::to_string(per_replica) : "one replica of " + std::to_string(per_replica)) +
                            (spares > 0 && replicas <= bought.units ? ", each on its own " + bought.unit + " so one can fail"
                             : spares > 0 ? ", " + std::to_string(cp.needed) + " of them carrying the load, spread over the " + units_phrase(bought) +
                                                " so that any " + (spares == 1 ? std::string("one") : std::to_string(spares)) + " can fail (lesson 004: 'two give redundancy')"
                             : replicas > 1 && bought.units < replicas ? " sharing a " + bought.unit + " (no spare replica asked: decision.redundancy)"
                                                                       : "") +
                            (bought.devices_idle <= 0 ? std::string()
                             : "; " + std::to_string(bought.devices_idle) + " devices " + paid + " and idle" +
                                   (more > 0 ? ", headroom for " + std::to_string(more) + " more replica" + (more > 1 ? "s" : "") + " of " + std::to_string(per_replica) +
                                                   " (not counted in the unit cost)"
                                             : std::string(", paid for in the unit cost"))));
        }
        if (!hc.available) { // and the catalog's reason why none is public, where it gives one
            const std::string& why_none = owning ? d.purchase_unpublished : d.rental_unpublished;
            notes.push_back(std::string(owning ? "price: no public purchase price in the catalog (unit cost unknown)"
                                               : "price: no public rental price in the catalog (unit cost unknown)") +
                            (why_none.empty() ? "" : ": " + why_none));
        }
    }

    // The unit cost's derivation, and the candidate's price figures.
    const auto& seconds = cp.seconds;
    const double hours = cp.hours;
    const std::string prefix = o.kind + "_";
    if (hc.available && !seconds) {
        // Priced, but no speed to divide the price by: the headline says the price and why no unit cost.
        o.cost.why = "unit cost not modelled (no published " + w.precision.compute + " peak), at $" + format_sig(hc.usd_per_hour * o.count, 4) +
                     " an hour for the devices";
        o.cost_terms = hc.terms;
        o.cost_terms.push_back({"devices", devices_words});
        if (notes_shown) notes.push_back("cost: " + hc.basis + " x " + std::to_string(o.count) + " device(s)" + made_of_words);
    }
    if (hc.available && seconds && demand.tokens_per_s > 0) {
        const double rate = cp.demand_rate, capacity = cp.capacity;
        const double usd_per_month = hc.usd_per_hour * o.count * hours; // as priced (a fleet that cannot meet the demand: -1 after)
        o.cost.why = hc.basis + " x " + std::to_string(o.count) + " device(s)" + made_of_words + ", every hour, over the tokens demanded: " + demand.why;
        if (rate > 0 && capacity > 0)
            o.cost.why += "; busy " + format_sig(100 * rate / (capacity * cp.load_replicas), 3) + " % of " + format_sig(capacity, 4) +
                          " output tokens/s per replica";
        // The same derivation term by term (the recommendation card's cost breakdown).
        o.cost_terms = hc.terms;
        o.cost_terms.push_back({"devices", devices_words});
        o.cost_terms.push_back({"a month", "$" + format_sig(usd_per_month, 4) + " = " + format_sig(hours, 4) + " hours x $" +
                                               format_sig(hc.usd_per_hour * o.count, 4) + " per hour for the devices, paid every hour"});
        o.cost_terms.push_back({"demand", demand.why});
        if (rate > 0 && capacity > 0)
            o.cost_terms.push_back({"busy", format_sig(100 * rate / (capacity * cp.load_replicas), 3) + " % of " + format_sig(capacity, 4) +
                                                " output tokens/s per replica"});
        o.cost_terms.push_back({"unit cost", format_figure(unit, o.cost.value) + " " + unit_label(unit) + " = a month / " +
                                                 format_sig(demand.tokens_per_s * hours * 3600 / 1e6, 4) + " M output tokens demanded"});
        if (notes_shown) {
            notes.push_back("cost: " + o.cost.why);
            notes.push_back("fleet: $" + format_sig(usd_per_month, 4) + " a month for " + format_sig(demand.tokens_per_s * hours * 3600 / 1e6, 4) +
                            " M output tokens demanded (" + format_sig(hours, 4) + " hours)");
        }
        if (!r.no_fleet) {
            c.figures[prefix + "usd_per_hour"] = Figure{hc.usd_per_hour * cp.fleet, hc.usd_per_hour * cp.fleet, hc.usd_per_hour * cp.fleet, Label::arithmetic, hc.basis};
            c.figures[prefix + unit] = o.cost;
            c.figures[prefix + "usd_per_month"] = Figure{o.usd_per_month, o.usd_per_month, o.usd_per_month, Label::arithmetic,
                format_sig(hours, 4) + " hours a month x " + format_sig(hc.usd_per_hour * o.count, 4) + " $/h (" + std::to_string(o.count) + " devices)"};
        }
    } else if (hc.available && seconds) {
        const double factor = r.factor, billed_s = r.billed_s, run_s = r.run_s;
        const int working = cp.fleet * cp.load_replicas;
        std::string why = hc.basis + " x " + std::to_string(o.count) + " device(s)" + made_of_words;
        if (double(o.count) / (double(cp.fleet) * cp.load_replicas) != 1) why += "; " + std::to_string(working) + " of them do the work, the rest are paid and idle";
        if (billed_s > 0)
            why += "; billed " + format_sig(billed_s, 4) + " s a run (" + format_sig(run_s, 3) + " s of work + " +
                   format_sig(cat.defaults.rental_startup_s, 3) + " s start-up, in " + format_sig(r.increment_s, 3) + " s increments" +
                   (hc.billing_increment_s > 0 ? ", the provider's" : ", the catalog default") + ")";
        if (notes_shown && r.way == Way::spot && is_training_stage(w.stage) && run_s > 3600)
            notes.push_back("spot: a " + format_sig(run_s / 3600, 3) + " h run can be interrupted; checkpoint and resume (lesson 003: 'checkpointed')");
        o.cost.why = why;
        // The same derivation term by term (the recommendation card's cost breakdown).
        o.cost_terms = hc.terms;
        o.cost_terms.push_back({"devices", devices_words});
        o.cost_terms.push_back({"time", format_sig(seconds->value, 4) + " s " + unit_label(unit) + in_hours_or_days(seconds->value) + " on " +
                                            (factor != 1 ? "the " + std::to_string(working) + " that work" : std::string("them"))});
        if (billed_s > 0)
            o.cost_terms.push_back({"billed", format_sig(billed_s, 4) + " s a run" + in_hours_or_days(billed_s) + " for " + format_sig(run_s, 3) + " s of work (+ " +
                                                  format_sig(cat.defaults.rental_startup_s, 3) + " s start-up, rounded up to " +
                                                  (hc.billing_increment_s > 0 ? "the provider's" : "the catalog default's") + " increments)"});
        o.cost_terms.push_back({"unit cost", format_figure(unit, o.cost.value) + " " + unit_label(unit) + " = price per device-hour x devices x time" +
                                                 (billed_s > 0 ? " x billed / worked" : "")});
        if (o.usd_per_month >= 0)
            o.cost_terms.push_back({"a month", "$" + format_sig(o.usd_per_month, 4) + " = " +
                                                   (billed_s > 0 && in.runs_per_month > 0 ? format_sig(in.runs_per_month, 4) + " runs x " + format_sig(billed_s, 4) + " s billed"
                                                                                          : format_sig(hours, 4) + " hours used") +
                                                   " at $" + format_sig(hc.usd_per_hour * o.count, 4) + " an hour for the devices"});
        if (notes_shown) notes.push_back("cost: " + why);
        c.figures[prefix + "usd_per_hour"] = Figure{hc.usd_per_hour * cp.fleet, hc.usd_per_hour * cp.fleet, hc.usd_per_hour * cp.fleet, Label::arithmetic, hc.basis};
        c.figures[prefix + unit] = o.cost;
        // Serving: prompt and output tokens priced separately (prefill capacity vs decode capacity).
        if (is_serving_stage(w.stage)) {
            const Figure* tp = fig(c, "throughput_tokens_per_s");
            const Figure* ttft = fig(c, "ttft_s");
            const double prompt = w.serve.prompt_tokens > 0 ? w.serve.prompt_tokens : std::round(w.serve.context_tokens / 2);
            const double per_s = hc.usd_per_hour * cp.fleet / 3600.0;
            if (tp && tp->value > 0)
                c.figures[prefix + "usd_per_million_decode_tokens"] = Figure{per_s / tp->value * 1e6, per_s / tp->high * 1e6, per_s / tp->low * 1e6,
                    Label::modelled, "device cost / decode throughput at the workload's batch"};
            if (ttft && ttft->value > 0)
                c.figures[prefix + "usd_per_million_prompt_tokens"] = Figure{per_s * ttft->value / prompt * 1e6, per_s * ttft->low / prompt * 1e6,
                    per_s * ttft->high / prompt * 1e6, Label::modelled, "device cost x prefill time / prompt tokens (one prompt at a time)"};
        }
        if (o.usd_per_month >= 0)
            c.figures[prefix + "usd_per_month"] =
                Figure{o.usd_per_month, o.usd_per_month, o.usd_per_month, Label::arithmetic,
                       billed_s > 0 && in.runs_per_month > 0 ? format_sig(in.runs_per_month, 4) + " runs a month x " + format_sig(billed_s, 4) + " s billed"
                                                             : format_sig(hours, 4) + " hours a month x " + format_sig(hc.usd_per_hour * o.count, 4) + " $/h"};
    }
    if (r.no_fleet) { // no unit cost for a fleet that cannot meet the demand, and the reason in its place
        for (const std::string& k : {prefix + unit, prefix + "usd_per_month", prefix + "usd_per_hour"}) c.figures.erase(k);
        o.cost.why = no_fleet_words(o, w, in);
        o.cost_terms.clear();
    }
    if (o.feasible) {
        o.reasons.push_back(std::string(short_of.empty() ? "fits and meets the targets; "
                                                         : "fits and meets the targets and the demand, with a compromise (ranked after every option "
                                                           "without one, whatever its price); ") +
                            (hc.available ? hc.basis : "no public price"));
        for (auto& n : short_of) o.reasons.push_back(std::move(n));
        for (auto& n : notes) o.reasons.push_back(std::move(n));
    } else {
        o.reasons = std::move(out);
    }
}

// A hosted API in words: the price's derivation and why it stays or is out.
void api_option_words(Option& o, const OptionPricing& r, const ApiPrice& api, const Workload& w, const DecideInputs& in) {
    const std::string& unit = in.unit;
    const double v = o.cost.value, prompt = r.api_prompt_tokens, output_tokens = in.output_tokens;
    if (w.stage == Stage::embed) {
        o.cost.why = "1,000 items x " + format_sig(w.embed.tokens_per_item, 6) + " tokens x $" + format_sig(api.input_usd_per_token * 1e6, 3) + "/M";
        o.cost_terms = {{"price", "$" + format_sig(api.input_usd_per_token * 1e6, 3) + " per million input tokens (" + api.provider + ")"},
                        {"tokens", format_sig(w.embed.tokens_per_item, 6) + " per item"},
                        {"unit cost", format_figure(unit, v) + " " + unit_label(unit) + " = 1,000 items x tokens x price"}};
        if (o.usd_per_month >= 0)
            o.cost_terms.push_back({"a month", "$" + format_sig(o.usd_per_month, 4) + " = " + format_sig(w.embed.items, 6) + " items x " +
                                                   format_sig(in.runs_per_month, 4) + " runs a month"});
    } else {
        o.cost.why = format_sig(prompt, 6) + " prompt tokens x $" + format_sig(api.input_usd_per_token * 1e6, 3) + "/M + " + format_sig(output_tokens, 6) +
                     " output tokens x $" + format_sig(api.output_usd_per_token * 1e6, 3) + "/M per request";
        o.cost_terms = {{"price", "$" + format_sig(api.input_usd_per_token * 1e6, 3) + " per million input tokens, $" +
                                      format_sig(api.output_usd_per_token * 1e6, 3) + " per million output tokens (" + api.provider + ")"},
                        {"request", format_sig(prompt, 6) + " prompt + " + format_sig(output_tokens, 6) + " output tokens"},
                        {"unit cost", format_figure(unit, v) + " " + unit_label(unit) + " = the request's price / its output tokens"}};
        if (o.usd_per_month >= 0)
            o.cost_terms.push_back({"a month", "$" + format_sig(o.usd_per_month, 4) + " for " +
                                                   format_sig(in.demand.tokens_per_s * in.workload_hours * 3600 / 1e6, 4) + " M output tokens demanded (" +
                                                   in.demand.why + ")"});
    }
    if (o.feasible) {
        o.reasons = {"no hardware to operate; idle time costs nothing (latency not modelled for APIs)", "cost: " + o.cost.why};
        return;
    }
    std::vector<std::string> out = api_eliminations(w);
    for (size_t i = out.size(); i < o.eliminated_by.size(); ++i) {
        switch (o.eliminated_by[i]) {
        case Elimination::context:
            out.push_back("context " + format_sig(w.serve.context_tokens, 6) + " exceeds the API's " + format_sig(api.context_tokens, 6));
            break;
        case Elimination::framework: out.push_back("a hosted API does not run " + w.framework); break;
        case Elimination::budget: out.push_back(budget_words(r.usd_per_month_checked, w)); break;
        default: break;
        }
    }
    o.reasons = std::move(out);
}

// Buy versus rent: months until the purchase of one replica's whole units pays for itself at the workload's use,
// against renting that replica's whole instances.
void breakeven(Plan& p, const CandidatePricing& cp, const Workload& w, const Catalog& cat, const DecideInputs& in) {
    Candidate& c = p.candidates[cp.candidate];
    const Device& d = *cp.device;
    const double purchase = units_to_buy(d, cp.fleet).usd;
    const double rent_hour = units_to_rent(d, w.cost, PriceKind::cloud_on_demand, cp.fleet, 1, 0, in.cloud).usd_per_hour;
    const double hours = cp.hours;
    if (!(cp.rented.price.available && cp.own.available && purchase > 0 && rent_hour > 0 && hours > 0)) return;
    const double running = d.tdp_w / 1000.0 * cat.defaults.pue_ratio * (w.cost.usd_per_kwh >= 0 ? w.cost.usd_per_kwh : cat.defaults.electricity_usd_per_j * 3.6e6);
    const double months = breakeven_months(purchase, rent_hour, running * cp.fleet, hours);
    if (p.breakeven_curve.empty()) { // the curve over usage, for the first such candidate
        p.breakeven_device = c.device;
        for (double h : {10.0, 25.0, 50.0, 100.0, 200.0, 400.0, kHoursPerMonth})
            p.breakeven_curve.push_back({h, breakeven_months(purchase, rent_hour, running * cp.fleet, h)});
    }
    if (std::isfinite(months))
        c.figures["breakeven_months"] = Figure{months, months, months, Label::arithmetic,
            "purchase $" + format_sig(purchase, 6) + " / ((rent - power) x " + format_sig(hours, 4) + " h a month)"};
}

} // namespace

void missing_inputs_words(Plan& p, const Workload& w, const DecideInputs& in) {
    // The decision's inputs the user left out, with the default used (docs/workload.md, "decision").
    auto note = [&](const std::string& key, const std::string& text) {
        if (!workload_gives(w, key)) p.missing_assumptions.push_back(key + ": " + text);
    };
    note("decision.priority", "not given; lowest cost per unit of work assumed");
    note("decision.stack", "not given; " + effective_stack(w) +
                               (!w.decision.implied_stack.empty() ? " assumed: the named " + w.decision.implied_by + " runs on it; set \"any\" to compare every stack"
                                : effective_stack(w) == "any" ? " assumed inside a named cloud (its own accelerators count)"
                                                              : " assumed (lesson 003: a GPU path fits broad PyTorch, CUDA and serving-engine ecosystems); set \"any\" to compare every stack"));
    note("decision.site", "not given; owning and renting both considered");
    if (w.stage == Stage::serve)
        note("decision.redundancy", "not given; no spare replica (production serving wants N+1: lesson 004, 'two give redundancy')");
    note("decision.budget_usd_per_month", "not given; no budget ceiling");
    note("decision.power_budget_w", "not given; no power ceiling (a robot, a desk or a rack with a power limit: give it in watts)");
    if (in.demand.from_users && w.serve.tokens_per_s_per_user_target <= 0)
        p.missing_assumptions.push_back("serve.requests_per_s: not given; demand is " + in.demand.why +
                                        " (give the arrival rate, or a per-user speed target, to price what your users really ask for)");
    else if (is_serving_stage(w.stage) && in.demand.tokens_per_s <= 0)
        p.missing_assumptions.push_back("cost at full load: no serve.requests_per_s, so each replica's unit cost assumes its concurrent "
                                        "users keep it busy all month (give the arrival rate to price the idle time)");
}

void option_words(Plan& p, Priced& priced, const Workload& w, const Catalog& cat, const DecideInputs& in) {
    for (auto& cp : priced.candidates)
        if (cp.reserved_part_time) cp.reserved.basis += ", paid for all 730 hours a month but used " + format_sig(cp.hours_used, 3);
    for (size_t i = 0; i < priced.options.size(); ++i) {
        const OptionPricing& r = priced.records[i];
        if (r.api) {
            api_option_words(priced.options[i], r, cat.apis[r.pricing], w, in);
        } else {
            const CandidatePricing& cp = priced.candidates[r.pricing];
            device_option_words(priced.options[i], r, cp, p.candidates[cp.candidate], w, cat, in);
        }
    }
    for (const auto& cp : priced.candidates) breakeven(p, cp, w, cat, in);
}

} // namespace hwplan::decide_parts
