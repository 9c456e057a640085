// decide_ranking.cpp: the options in lesson 004's order: feasible first, the team's own devices first, then inside a
// named cloud its own accelerators, at rack scale the largest fast domain, then the user's priority and the price;
// the candidate table follows the same order. Numbers only: ranking reads no words.
#include <algorithm>

#include "decide_internal.h"

namespace hwplan::decide_parts {

// The cloud's own silicon (TPU in Google Cloud; Trainium and Inferentia in AWS), not every device that only one
// cloud rents.
bool own_accelerator(const Option& o, const Catalog& cat, const std::string& site) {
    const std::string own_vendor = site == "gcp" ? "Google" : site == "aws" ? "AWS" : site == "azure" ? "Microsoft" : "";
    const Device* d = o.kind == "api" ? nullptr : cat.device_by_id(o.device);
    return d && !own_vendor.empty() && d->vendor == own_vendor && d->cloud_only == site;
}

// A serving candidate's replica (users split over replicas), else the whole count, inside the device's fast domain.
bool in_fast_domain(const Option& o, const Plan& p, const Workload& w, const Catalog& cat) {
    const Device* d = o.kind == "api" ? nullptr : cat.device_by_id(o.device);
    if (!d) return true;
    for (const auto& c : p.candidates)
        if (c.device == o.device)
            return (is_serving_stage(w.stage) ? c.count / std::max(1, c.layout.data_parallel) : c.count) <= std::max(1, d->domain_size);
    return true;
}

RankStep rank_step(const Option& a, const Option& b, const RankKey& ka, const RankKey& kb, Priority prio, bool largest_domain, bool& a_first) {
    // Each step: where a and b differ, which goes first, and at which step.
    auto at = [&](RankStep step, bool first) {
        a_first = first;
        return step;
    };
    // Lower first with 0 (unknown) last.
    auto lower_known = [](double x, double y) { return (x > 0) != (y > 0) ? x > 0 : x < y; };
    if (a.feasible != b.feasible) return at(RankStep::feasible, a.feasible);
    // What the team already owns and the job fits is planned on first (hardware.owned).
    if ((a.kind == "owned") != (b.kind == "owned")) return at(RankStep::owned, a.kind == "owned");
    if (prio == Priority::unit_cost && ka.compromised != kb.compromised) return at(RankStep::compromise, !ka.compromised);
    if ((prio == Priority::unit_cost || prio == Priority::simplest) && ka.small_on_cpu != kb.small_on_cpu) return at(RankStep::small_on_cpu, ka.small_on_cpu);
    if (ka.home != kb.home) return at(RankStep::home, ka.home);
    if (largest_domain && ka.domain != kb.domain) return at(RankStep::domain, ka.domain > kb.domain);
    switch (prio) {
    case Priority::unit_cost: break;
    case Priority::per_user_speed:
        if (a.speed != b.speed) return at(RankStep::speed, a.speed > b.speed);
        break;
    case Priority::latency:
        if (a.latency_s != b.latency_s) return at(RankStep::latency, lower_known(a.latency_s, b.latency_s));
        break;
    case Priority::simplest: {
        if ((a.kind == "api") != (b.kind == "api")) return at(RankStep::api, a.kind == "api"); // nothing to operate
        if (ka.in_domain != kb.in_domain) return at(RankStep::in_domain, ka.in_domain);      // no tensor parallel over a slow link
        const int an = a.kind == "api" ? 0 : a.count, bn = b.kind == "api" ? 0 : b.count;
        if (an != bn) return at(RankStep::count, an < bn);
        if (a.power_w != b.power_w) return at(RankStep::power, lower_known(a.power_w, b.power_w)); // less power and cooling
        break;
    }
    }
    // With a fixed demand every option's cost per token is its monthly cost over the same demanded tokens, so this
    // order is also the order of the fleets' monthly costs. Unpriced last.
    if (a.cost.value != b.cost.value) return at(RankStep::cost, lower_known(a.cost.value, b.cost.value));
    // Equal or unknown on the priority and the price: the faster, then more headroom for capacity.
    if (a.speed != b.speed) return at(RankStep::speed_tie, a.speed > b.speed);
    if (ka.memory != kb.memory) return at(RankStep::memory, ka.memory > kb.memory);
    return at(RankStep::none, false);
}

void rank_options(Plan& p, Priced& priced, const Workload& w, const Catalog& cat, const DecideInputs& in) {
    // What the order reads of each option beyond its own numbers, looked up once (not once per comparison).
    const std::vector<Option>& options = priced.options;
    std::vector<RankKey> keys(options.size());
    for (size_t i = 0; i < options.size(); ++i) {
        const Option& o = options[i];
        RankKey& k = keys[i];
        const OptionPricing& rec = priced.records[i]; // records: one per option, in the options' order before ranking
        k.compromised = rec.ranks_compromised;
        if (k.compromised) {
            k.fp8_at_16_bits = rec.fp8_at_16_bits;
            k.local_runtime = rec.local_runtime;
            k.tp_outside_domain = rec.tp_outside_domain;
            k.memory_unpriced = rec.memory_unpriced;
        }
        k.small_on_cpu = rec.small_on_cpu;
        // Inside a named cloud its own accelerators first (lesson 004, Try it: "serving inside Google Cloud or AWS
        // can recommend TPUs or Trainium first").
        k.home = own_accelerator(o, cat, in.site);
        k.in_domain = w.decision.priority != Priority::simplest || in_fast_domain(o, p, w, cat); // read by that priority only
        const Device* d = o.kind == "api" ? nullptr : cat.device_by_id(o.device);
        k.domain = d ? d->domain_size : 0;
        k.memory = d ? d->memory_bytes : 0.0;
    }
    const Priority prio = w.decision.priority;
    // At rack scale the largest fast domain ranks first: pretraining and RL "Buy the largest fast domain you
    // can get"; large MoE serving wants "wide expert parallelism: NVL72, Helios or a TPU slice" (lesson 004).
    // The serving plan prices the expert all-to-all per layout (plan_serving.cpp eval_serve: over the scale-up link inside
    // one domain, across the scale-out network beyond it); this ordering keeps the guide's preference among
    // options whose unit cost is unknown (rack-scale systems have no public price in the catalog).
    const bool largest_domain = in.level.level == Scale::rack;
    std::vector<size_t> order(options.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t ia, size_t ib) {
        bool a_first = false;
        rank_step(options[ia], options[ib], keys[ia], keys[ib], prio, largest_domain, a_first);
        return a_first;
    });
    // Without words only the answer is named (the first option, when it is a device's: an API's name is its own).
    if (!in.words && !order.empty() && !priced.records[order.front()].api) {
        const OptionPricing& rec = priced.records[order.front()];
        Option& first = priced.options[order.front()];
        first.name = option_name(rec.way, first.count, p.candidates[priced.candidates[rec.pricing].candidate].device_name, rec.layout_words);
    }
    priced.keys.clear();
    priced.keys.reserve(order.size());
    for (size_t i : order) priced.keys.push_back(keys[i]);
    p.options.clear();
    p.options.reserve(order.size());
    for (size_t i : order) p.options.push_back(std::move(priced.options[i]));
    priced.options.clear();

    // The candidate table follows the same order: the device of the first option that names it, which is the
    // option the table's row shows (Candidate::option).
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

} // namespace hwplan::decide_parts
