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
    // Inside a named cloud its own accelerators first (lesson 004, Try it: "serving inside Google Cloud or AWS can
    // recommend TPUs or Trainium first"); then by the user's priority.
    const Priority prio = w.decision.priority;
    auto home = [&](const Option& o) { return own_accelerator(o, cat, in.site); };
    auto in_domain = [&](const Option& o) { return in_fast_domain(o, p, w, cat); };
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
    const bool largest_domain = in.level.level == Scale::rack;
    auto lower_known = [](double a, double b) { // 0 = unknown, last
        if ((a > 0) != (b > 0)) return a > 0;
        return a < b;
    };
    const std::set<std::string>& compromised = priced.compromised;
    const std::set<std::string>& small_on_cpu = priced.small_on_cpu;
    std::stable_sort(priced.options.begin(), priced.options.end(), [&](const Option& a, const Option& b) {
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
    p.options = std::move(priced.options);
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
