// sweep.cpp: what-if curves (see sweep.h). Each point is plan() of the workload with one input changed,
// restricted to one device at one count; the point keeps that candidate's figures and its options' costs.
#include "hwplan/sweep.h"

#include <algorithm>
#include <cmath>

#include "hwplan/format.h"

namespace hwplan {

namespace {

// [SECTION] the input each axis sets, and its valid range (the same ranges parse_workload checks) ----------
struct AxisRange {
    double lo, hi;
    bool whole;
};

AxisRange range_of(SweepAxis axis) {
    switch (axis) {
    case SweepAxis::concurrent_users: return {1, 1e7, true};   // serve.concurrent_users (workload.cpp)
    case SweepAxis::context_tokens: return {2, 1e8, false};    // serve.context_tokens
    case SweepAxis::batch_size: return {1, 1e6, true};         // serve.batch_size / embed.batch_size
    case SweepAxis::utilization: return {1e-3, 1, false};      // cost.utilization
    }
    return {0, 0, false};
}

// Powers of two from lo to hi, with `also` among them (when in range), sorted and unique.
std::vector<double> powers_of_two(double lo, double hi, double also) {
    std::vector<double> out;
    for (double v = lo; v <= hi; v *= 2) out.push_back(v);
    if (also >= lo && also <= hi) out.push_back(also);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

double next_power_of_two(double v) { return std::pow(2.0, std::ceil(std::log2(std::max(1.0, v)))); }

} // namespace

double sweep_current_value(const Workload& w, SweepAxis axis) {
    switch (axis) {
    case SweepAxis::concurrent_users: return w.serve.concurrent_users;
    case SweepAxis::context_tokens: return w.serve.context_tokens;
    case SweepAxis::batch_size: return w.stage == Stage::embed ? w.embed.batch_size : w.serve.batch_size > 0 ? w.serve.batch_size : w.serve.concurrent_users;
    case SweepAxis::utilization: return w.cost.utilization;
    }
    return 0;
}

// [SECTION] axes and default points -----------------------------------------------------------------------
std::vector<SweepAxis> sweep_axes(Stage stage) {
    switch (stage) {
    case Stage::serve:
    case Stage::batch:
    case Stage::edge: return {SweepAxis::concurrent_users, SweepAxis::context_tokens, SweepAxis::batch_size, SweepAxis::utilization};
    case Stage::embed: return {SweepAxis::batch_size, SweepAxis::utilization};
    case Stage::finetune:
    case Stage::pretrain:
    case Stage::rl: return {SweepAxis::utilization};
    }
    return {SweepAxis::utilization};
}

std::vector<double> default_sweep_points(const Workload& w, SweepAxis axis) {
    const double now = sweep_current_value(w, axis);
    switch (axis) {
    case SweepAxis::concurrent_users: return powers_of_two(1, std::max(64.0, next_power_of_two(4 * now)), now);
    case SweepAxis::context_tokens: {
        // From the prompt + output the workload fixes (a shorter context could not hold them) up to 4x today's.
        const double fixed = w.serve.prompt_tokens + w.serve.output_tokens;
        const double lo = std::max(512.0, next_power_of_two(fixed));
        return powers_of_two(lo, std::max(lo * 8, std::max(32768.0, next_power_of_two(4 * now))), now);
    }
    case SweepAxis::batch_size: return powers_of_two(1, std::max(256.0, next_power_of_two(2 * now)), now);
    case SweepAxis::utilization: {
        std::vector<double> out;
        for (int k = 1; k <= 20; ++k) out.push_back(k * 0.05);
        return out;
    }
    }
    return {};
}

// [SECTION] one point's workload -------------------------------------------------------------------------
Workload sweep_workload(const Workload& workload, const std::string& device, SweepAxis axis, double value, int count) {
    Workload w = workload;
    w.hardware.devices = {device};
    w.hardware.count = count;
    switch (axis) {
    case SweepAxis::concurrent_users: w.serve.concurrent_users = value; break;
    case SweepAxis::context_tokens: w.serve.context_tokens = value; break;
    case SweepAxis::batch_size: (w.stage == Stage::embed ? w.embed.batch_size : w.serve.batch_size) = value; break;
    case SweepAxis::utilization: w.cost.utilization = value; break;
    }
    return w;
}

// [SECTION] the sweep ------------------------------------------------------------------------------------
Sweep sweep(const Workload& workload, const Catalog& catalog, const AssumptionSet& assumptions, const std::string& device,
            SweepAxis axis, const std::vector<double>& points, int count) {
    Sweep s;
    s.axis = axis;
    s.device = device;
    const Device* d = catalog.device_by_id(device);
    if (!d) {
        s.issues.push_back({"device", "unknown device " + quote_input(device)});
        return s;
    }
    s.device_name = d->name;
    const auto axes = sweep_axes(workload.stage);
    if (std::find(axes.begin(), axes.end(), axis) == axes.end())
        s.issues.push_back({"axis", std::string(name(axis)) + " is not an input of a " + std::string(name(workload.stage)) + " workload"});
    if (count < 0) s.issues.push_back({"count", "expected 0 (the planner's choice) or a positive device count, got " + std::to_string(count)});
    if (points.empty()) s.issues.push_back({"points", "expected at least one value"});
    const AxisRange r = range_of(axis);
    for (size_t i = 0; i < points.size(); ++i) {
        const double v = points[i];
        const std::string path = "points[" + std::to_string(i) + "]";
        if (!std::isfinite(v) || v < r.lo || v > r.hi)
            s.issues.push_back({path, "expected " + std::string(name(axis)) + " from " + format_sig(r.lo, 6) + " to " + format_sig(r.hi, 6) +
                                          ", got " + (std::isfinite(v) ? format_sig(v, 6) : std::string("a non-finite number"))});
        else if (r.whole && v != std::floor(v))
            s.issues.push_back({path, "expected a whole number of " + std::string(name(axis)) + ", got " + format_sig(v, 6)});
        else if (axis == SweepAxis::context_tokens && v < workload.serve.prompt_tokens + workload.serve.output_tokens)
            s.issues.push_back({path, "a context of " + format_sig(v, 6) + " tokens cannot hold the prompt + output given (" +
                                          format_sig(workload.serve.prompt_tokens + workload.serve.output_tokens, 6) + ")"});
    }
    if (!s.issues.empty()) return s;

    // The count: the caller's, else the one plan() picks for this device and the workload as given.
    if (count == 0) {
        Workload w = workload;
        w.hardware.devices = {device};
        const Plan p = plan(w, catalog, assumptions, false);
        if (!p.issues.empty()) {
            s.issues = p.issues;
            return s;
        }
        for (const auto& c : p.candidates)
            if (c.device == device) count = c.count;
        if (count == 0) {
            s.issues.push_back({"device", d->name + " is not a candidate for this workload"});
            return s;
        }
    }
    s.count = count;

    for (size_t i = 0; i < points.size(); ++i) {
        const Plan p = plan(sweep_workload(workload, device, axis, points[i], count), catalog, assumptions, false);
        if (!p.issues.empty()) {
            for (const auto& issue : p.issues) s.issues.push_back({"points[" + std::to_string(i) + "]." + issue.path, issue.message});
            continue;
        }
        SweepPoint pt;
        pt.x = points[i];
        const Candidate* c = nullptr;
        for (const auto& cand : p.candidates)
            if (cand.device == device && cand.count == count) c = &cand;
        if (c) {
            pt.fits = c->fits;
            pt.figures = c->figures;
            const MemoryUse& m = c->memory;
            std::string terms;
            for (const auto& t : m.terms)
                if (t.bytes > 0) terms += (terms.empty() ? "" : " + ") + t.name + " " + format_bytes(t.bytes);
            pt.figures["memory_bytes"] = Figure{m.total_bytes, m.total_low_bytes, m.total_high_bytes, Label::arithmetic, terms};
            pt.figures["capacity_bytes"] = Figure{m.capacity_bytes, m.capacity_bytes, m.capacity_bytes, Label::arithmetic,
                                                  "usable memory per device"};
        }
        for (const auto& o : p.options) {
            if (o.device != device || o.count != count || (o.kind != "rent" && o.kind != "own") || o.cost.value <= 0) continue;
            if (s.unit.empty()) s.unit = o.unit;
            if (o.unit != s.unit) continue;
            pt.figures[o.kind + "_cost"] = o.cost; // the monthly figures are the candidate's own (rent_usd_per_month, ...)
        }
        s.points.push_back(std::move(pt));
    }
    if (!s.issues.empty()) {
        s.points.clear();
        return s;
    }

    // Buy or rent: where own - rent changes sign between two neighbouring points (linear in between).
    if (axis == SweepAxis::utilization)
        for (size_t i = 1; i < s.points.size() && s.breakeven_utilization < 0; ++i) {
            const auto &a = s.points[i - 1].figures, &b = s.points[i].figures;
            if (!a.count("own_cost") || !a.count("rent_cost") || !b.count("own_cost") || !b.count("rent_cost")) continue;
            const double da = a.at("own_cost").value - a.at("rent_cost").value, db = b.at("own_cost").value - b.at("rent_cost").value;
            if (da == 0) s.breakeven_utilization = s.points[i - 1].x;
            else if ((da > 0) != (db > 0) || db == 0)
                s.breakeven_utilization = s.points[i - 1].x + (s.points[i].x - s.points[i - 1].x) * da / (da - db);
        }
    return s;
}

std::string_view name(SweepAxis axis) {
    switch (axis) {
    case SweepAxis::concurrent_users: return "concurrent_users";
    case SweepAxis::context_tokens: return "context_tokens";
    case SweepAxis::batch_size: return "batch_size";
    case SweepAxis::utilization: return "utilization";
    }
    return "";
}

std::optional<SweepAxis> sweep_axis_from(std::string_view n) {
    for (SweepAxis a : {SweepAxis::concurrent_users, SweepAxis::context_tokens, SweepAxis::batch_size, SweepAxis::utilization})
        if (name(a) == n) return a;
    return std::nullopt;
}

} // namespace hwplan
