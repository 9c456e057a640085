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

void rank_options(Plan& p, Priced& priced, const Workload& w, const Catalog& cat, const DecideInputs& in) {
    // What the order reads of each option beyond its own numbers, looked up once (not once per comparison).
    struct Key {
        bool compromised = false, small_on_cpu = false, home = false, in_domain = true;
        int domain = 0;     // the device's fast scale-up domain (0 for an API)
        double memory = 0;  // the device's memory (0 for an API)
    };
    const std::vector<Option>& options = priced.options;
    std::vector<Key> keys(options.size());
    for (size_t i = 0; i < options.size(); ++i) {
        const Option& o = options[i];
        Key& k = keys[i];
        k.compromised = priced.compromised.count(o.name) > 0;
        k.small_on_cpu = priced.small_on_cpu.count(o.name) > 0;
        // Inside a named cloud its own accelerators first (lesson 004, Try it: "serving inside Google Cloud or AWS
        // can recommend TPUs or Trainium first").
        k.home = own_accelerator(o, cat, in.site);
        k.in_domain = w.decision.priority != Priority::simplest || in_fast_domain(o, p, w, cat); // read by that priority only
        const Device* d = o.kind == "api" ? nullptr : cat.device_by_id(o.device);
        k.domain = d ? d->domain_size : 0;
        k.memory = d ? d->memory_bytes : 0.0;
    }
    const Priority prio = w.decision.priority;
    // With a fixed demand every option's cost per token is its monthly cost over the same demanded tokens,
    // so this order is also the order of the fleets' monthly costs.
    auto cheaper = [](const Option& a, const Option& b) {
        const bool ac = a.cost.value > 0, bc = b.cost.value > 0;
        if (ac != bc) return ac;
        return a.cost.value < b.cost.value;
    };
    // At rack scale the largest fast domain ranks first: pretraining and RL "Buy the largest fast domain you
    // can get"; large MoE serving wants "wide expert parallelism: NVL72, Helios or a TPU slice" (lesson 004).
    // The serving plan prices the expert all-to-all per layout (plan_serving.cpp eval_serve: over the scale-up link inside
    // one domain, across the scale-out network beyond it); this ordering keeps the guide's preference among
    // options whose unit cost is unknown (rack-scale systems have no public price in the catalog).
    const bool largest_domain = in.level.level == Scale::rack;
    auto lower_known = [](double a, double b) { // 0 = unknown, last
        if ((a > 0) != (b > 0)) return a > 0;
        return a < b;
    };
    std::vector<size_t> order(options.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t ia, size_t ib) {
        const Option& a = options[ia];
        const Option& b = options[ib];
        const Key& ka = keys[ia];
        const Key& kb = keys[ib];
        if (a.feasible != b.feasible) return a.feasible;
        // What the team already owns and the job fits is planned on first (hardware.owned).
        if ((a.kind == "owned") != (b.kind == "owned")) return a.kind == "owned";
        if (prio == Priority::unit_cost && ka.compromised != kb.compromised) return !ka.compromised;
        if ((prio == Priority::unit_cost || prio == Priority::simplest) && ka.small_on_cpu != kb.small_on_cpu) return ka.small_on_cpu;
        if (ka.home != kb.home) return ka.home;
        if (largest_domain && ka.domain != kb.domain) return ka.domain > kb.domain;
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
            if (ka.in_domain != kb.in_domain) return ka.in_domain;           // no tensor parallel over a slow link
            const int an = a.kind == "api" ? 0 : a.count, bn = b.kind == "api" ? 0 : b.count;
            if (an != bn) return an < bn;
            if (a.power_w != b.power_w) return lower_known(a.power_w, b.power_w); // less power and cooling
            break;
        }
        }
        if (a.cost.value != b.cost.value) return cheaper(a, b);
        // Equal or unknown on the priority and the price: the faster, then more headroom for capacity.
        if (a.speed != b.speed) return a.speed > b.speed;
        return ka.memory > kb.memory;
    });
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
