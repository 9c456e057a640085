// invariants_test.cpp: properties every plan must have, over thousands of seeded random valid workloads
// across all stages, catalog models, weight formats and devices (issue 12). Reproducible: the generator
// is a fixed-seed SplitMix64 with its own integer-to-range maps (std:: distributions differ across
// standard libraries). A failure prints the workload's JSON, ready for `hwplan plan -`.
// Properties: no NaN anywhere and no infinity outside the two documented unbounded figures; the memory
// terms and the six named parts sum to the total; a fitting candidate's total is within capacity;
// low <= value <= high for every figure; the recommendation is feasible, fits and meets the stated
// targets; more users, a longer context, more parameters or a longer sequence never lower memory or
// time; a higher ZeRO stage never raises memory per device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hwplan/assumptions.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/cost.h"
#include "hwplan/plan.h"
#include "hwplan/workload.h"

namespace hwplan {

namespace {

using nlohmann::json;

const Catalog& catalog() { return embedded_catalog().catalog; }

// How many random workloads. The sanitizer build is ~20x slower; it runs a tenth (see tests/CMakeLists.txt).
#ifndef HWPLAN_INVARIANT_WORKLOADS
#define HWPLAN_INVARIANT_WORKLOADS 5000
#endif
constexpr int kWorkloads = HWPLAN_INVARIANT_WORKLOADS;

// SplitMix64 (Steele, Lea and Flood 2014): a fixed sequence on every platform.
struct Rng {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
    bool chance(int percent) { return below(100) < percent; }
    // A whole number spread evenly in log between lo and hi.
    double log_int(double lo, double hi) {
        const double u = static_cast<double>(next() >> 11) / 9007199254740992.0;
        return std::round(lo * std::pow(hi / lo, u));
    }
    template <class T> const T& pick(const std::vector<T>& v) { return v[static_cast<size_t>(below(static_cast<int>(v.size())))]; }
};

const std::vector<std::string> kStages{"serve", "batch", "embed", "finetune", "pretrain", "rl", "edge"};

bool training(const std::string& stage) { return stage == "finetune" || stage == "pretrain" || stage == "rl"; }

// One random valid workload. Devices: one or two from the catalog (a whole-catalog plan is the
// benchmark's job); the count given or left to the planner.
json random_workload(Rng& rng) {
    const std::string stage = rng.pick(kStages);
    json w{{"stage", stage}};
    std::vector<const Model*> models;
    for (const auto& m : catalog().models)
        if ((stage == "embed") == (m.kind == ModelKind::encoder) || (stage == "embed" && m.kind == ModelKind::decoder && m.published_params < 2e9))
            models.push_back(&m);
    const Model& model = *rng.pick(models);
    if (rng.chance(10) && model.kind == ModelKind::decoder) w["model"] = {{"params", rng.log_int(1e8, 2e11)}};
    else w["model"] = model.id;
    if (rng.chance(60)) w["precision"] = rng.pick(catalog().formats).name;
    json devices = json::array();
    devices.push_back(rng.pick(catalog().devices).id);
    if (rng.chance(30)) devices.push_back(rng.pick(catalog().devices).id);
    w["hardware"] = {{"devices", devices}};
    if (rng.chance(50)) w["hardware"]["count"] = 1 << rng.below(4);
    if (stage == "serve" || stage == "batch" || stage == "edge") {
        const double context = rng.log_int(256, model.arch.max_context > 0 ? std::min(131072, model.arch.max_context) : 32768);
        json s{{"context_tokens", context}, {"concurrent_users", rng.log_int(1, 256)}};
        if (rng.chance(50)) s["prompt_tokens"] = std::max(1.0, std::round(context * 0.6));
        if (rng.chance(50)) s["output_tokens"] = std::max(1.0, std::round(context * 0.3));
        if (rng.chance(20)) s["ttft_target_s"] = 2;
        if (rng.chance(20)) s["tokens_per_s_per_user_target"] = 10;
        w["serve"] = s;
    } else if (stage == "embed") {
        w["embed"] = {{"items", rng.log_int(1e3, 1e9)}, {"tokens_per_item", rng.log_int(16, 512)}};
    } else {
        json t{{"seq_len", rng.log_int(256, 8192)}, {"micro_batch", rng.log_int(1, 16)}};
        if (stage == "finetune") t["method"] = rng.pick(std::vector<std::string>{"full", "lora", "qlora"});
        if (rng.chance(50)) t["zero_stage"] = rng.below(4);
        if (rng.chance(30)) t["checkpointing"] = rng.pick(std::vector<std::string>{"none", "selective", "full"});
        w["train"] = t;
    }
    if (rng.chance(30)) w["usage"] = {{"hours_per_month", rng.log_int(1, 730)}};
    return w;
}

Plan plan_of(const json& w) { return plan_from_json(w.dump(), catalog(), false); }

const Candidate* same(const Plan& p, const Candidate& c) {
    for (const auto& x : p.candidates)
        if (x.device == c.device && x.count == c.count) return &x;
    return nullptr;
}

// Figures that may be infinite by design: a queue that never drains, a purchase that never pays back.
bool may_be_unbounded(const std::string& name) { return name == "breakeven_months" || name.find("queue") != std::string::npos; }

bool close_le(double a, double b) { return a <= b + 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

// Checks one plan's own properties; returns the first violation or "".
std::string check_plan(const Plan& p, const json& w) {
    if (!p.issues.empty()) return "a valid workload was rejected: " + to_string(p.issues[0]);
    if (p.candidates.empty()) return "no candidates";
    for (const auto& c : p.candidates) {
        const std::string at = c.device + " x" + std::to_string(c.count) + ": ";
        const auto& m = c.memory;
        for (double v : {m.weights_bytes, m.kv_cache_bytes, m.activations_bytes, m.gradients_bytes, m.optimizer_bytes,
                         m.overhead_bytes, m.total_bytes, m.capacity_bytes, m.total_low_bytes, m.total_high_bytes})
            if (!std::isfinite(v) || v < 0) return at + "memory figure not finite and non-negative";
        const double parts = m.weights_bytes + m.kv_cache_bytes + m.activations_bytes + m.gradients_bytes + m.optimizer_bytes + m.overhead_bytes;
        if (std::fabs(parts - m.total_bytes) > 1e-9 * m.total_bytes + 1) return at + "the six parts do not sum to the total";
        double terms = 0;
        for (const auto& t : m.terms) terms += t.bytes;
        if (std::fabs(terms - m.total_bytes) > 1e-9 * m.total_bytes + 1) return at + "the terms do not sum to the total";
        if (!close_le(m.total_low_bytes, m.total_bytes) || !close_le(m.total_bytes, m.total_high_bytes)) return at + "memory band out of order";
        if (c.fits && !close_le(m.total_bytes, m.capacity_bytes)) return at + "fits, but total exceeds capacity";
        for (const auto& [name, f] : c.figures) {
            if (std::isnan(f.value) || std::isnan(f.low) || std::isnan(f.high)) return at + name + " is NaN";
            if (!may_be_unbounded(name) && !(std::isfinite(f.value) && std::isfinite(f.low) && std::isfinite(f.high)))
                return at + name + " is infinite";
            if (!(f.low <= f.value && f.value <= f.high) && !close_le(f.low, f.value)) return at + name + ": low > value";
            if (!close_le(f.value, f.high)) return at + name + ": value > high";
        }
        for (const auto& ph : c.phases)
            if (!std::isfinite(ph.time_s) || ph.time_s < 0) return at + "phase " + ph.name + " time not finite";
        // One answer (issue 18): a training candidate is the first point of its own search, figure for figure.
        if (!c.layouts.layouts.empty() && (p.stage == Stage::finetune || p.stage == Stage::pretrain)) {
            const LayoutResult& b = c.layouts.layouts.front();
            const TrainingLayout& l = b.layout;
            const Layout& cl = c.layout;
            if (l.tensor_parallel != cl.tensor_parallel || l.pipeline_parallel != cl.pipeline_parallel || l.data_parallel != cl.data_parallel ||
                l.context_parallel != cl.context_parallel || l.expert_parallel != cl.expert_parallel || l.zero_stage != cl.zero_stage ||
                l.virtual_stages != cl.virtual_stages || l.recompute != cl.recompute)
                return at + "the candidate's layout is not its search's first point (" + describe(l) + ")";
            if (c.layouts.devices != c.count) return at + "the search's devices differ from the candidate's count";
            if (b.fits != c.fits) return at + "the search's first point and the candidate disagree on fitting";
            auto same_value = [](double x, double y) { return std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y)); };
            if (!same_value(b.memory_bytes, m.total_bytes)) return at + "memory differs from the search's first point";
            if (c.figures.count("step_time_s") && !same_value(b.step_s, c.figures.at("step_time_s").value))
                return at + "step time differs from the search's first point";
            if (c.figures.count("train_tokens_per_s") && !same_value(b.tokens_per_s, c.figures.at("train_tokens_per_s").value))
                return at + "tokens/s differ from the search's first point";
            for (size_t i = 1; i < c.layouts.layouts.size(); ++i) // runners-up never beat it
                if (c.layouts.layouts[i].fits && b.fits && c.layouts.layouts[i].tokens_per_s > b.tokens_per_s * (1 + 1e-12))
                    return at + "a runner-up of the search is faster than the candidate";
        }
    }
    // One answer, serving: a serving, batch or edge candidate is the first point of its serving search (count, split,
    // layout and output tokens/s), and no runner-up beats it on the search's objective (docs/plan.md, serving search).
    if (p.stage == Stage::serve || p.stage == Stage::batch || p.stage == Stage::edge)
        for (const auto& c : p.candidates) {
            const std::string at = c.device + " x" + std::to_string(c.count) + ": ";
            const ServingSearch& s = c.serving;
            if (s.points.empty()) return at + "a serving candidate without its search";
            if (s.searched < int(s.points.size()) || s.points.size() > 6) return at + "the serving search keeps more points than it searched, or more than six";
            const ServingPoint& b = s.points.front();
            if (b.count != c.count || b.replicas != std::max(1, c.layout.data_parallel) || b.tensor_parallel != c.layout.tensor_parallel ||
                b.pipeline_parallel != c.layout.pipeline_parallel || b.expert_parallel != c.layout.expert_parallel || b.devices_per_replica * b.replicas != b.count)
                return at + "the candidate is not its serving search's first point (" + b.describe + ")";
            if (b.fits != c.fits) return at + "the serving search's first point and the candidate disagree on fitting";
            if (c.figures.count("throughput_tokens_per_s") &&
                std::fabs(b.throughput_tokens_per_s - c.figures.at("throughput_tokens_per_s").value) > 1e-9 * b.throughput_tokens_per_s)
                return at + "output tokens/s differ from the serving search's first point";
            for (size_t i = 1; i < s.points.size(); ++i) {
                const ServingPoint& r = s.points[i];
                if (!r.fits || !b.fits) continue;
                // The fewest devices that fit rank those that meet the latency targets first (docs/plan.md).
                const bool targets_first = s.objective == "fewest_devices" && r.meets_targets != b.meets_targets;
                const bool beats = targets_first ? r.meets_targets
                                   : s.objective == "most_output_tokens_per_s" ? r.score > b.score * (1 + 1e-9)
                                                                               : r.score < b.score || (r.score == b.score && r.count < b.count);
                if (beats) return at + "a runner-up of the serving search (" + r.describe + ") beats the candidate on " + s.objective;
            }
        }
    for (const auto& o : p.options) {
        if (std::isnan(o.cost.value) || std::isnan(o.cost.low) || std::isnan(o.cost.high)) return "option " + o.name + ": NaN cost";
        // A feasible option may lack a public price (cost 0: "unit cost unknown"); a priced one is finite and ordered.
        if (o.cost.value != 0 && !(std::isfinite(o.cost.value) && o.cost.value > 0)) return "option " + o.name + ": a cost that is not finite and positive";
        if (o.cost.value > 0 && !(close_le(o.cost.low, o.cost.value) && close_le(o.cost.value, o.cost.high))) return "option " + o.name + ": cost band out of order";
    }
    // A fixed demand of users is met, or the option has no unit cost (decide.cpp, docs/plan.md "Fixed demand"): with
    // concurrent users and no per-user target, every feasible serving option streams each user at least a reader's
    // pace (assumption user_read_tokens_per_s at the catalog's value: no random workload sets it), and an option out
    // for the demand carries no unit cost and no monthly cost.
    {
        const auto s = w.value("serve", json::object());
        const bool users = p.stage == Stage::serve && s.contains("concurrent_users") && !s.contains("tokens_per_s_per_user_target");
        Issues none;
        const double pace = assumptions_for(catalog(), {}, none).typical.user_read_tokens_per_s;
        for (const auto& o : p.options) {
            const bool out_for_demand = std::any_of(o.reasons.begin(), o.reasons.end(), [](const std::string& x) { return x.rfind("demand: ", 0) == 0; });
            if (out_for_demand && (o.feasible || o.cost.value != 0 || o.usd_per_month >= 0))
                return "option " + o.name + ": out for the demand, yet feasible or priced";
            if (users && o.feasible && o.kind != "api" && o.speed > 0 && o.speed < pace * (1 - 1e-9))
                return "option " + o.name + ": feasible at " + std::to_string(o.speed) + " tokens/s per user, under a reader's pace";
        }
    }
    const auto& r = p.recommendation;
    if (r.found) {
        if (!r.option.feasible) return "the recommendation is not feasible";
        if (r.option.kind != "api") {
            // The devices the option pays for: its replicas of the candidate's devices (an RL option rents or buys
            // both pools, docs/plan.md, rl), bought in whole servers or racks and rented in whole instances of the
            // offer chosen (cost.h units_to_buy, units_to_rent; docs/plan.md "Priced as bought"), with a spare enough
            // units that one can fail; devices the team owns are counted one by one.
            const Device* d = catalog().device_by_id(r.option.device);
            const Workload parsed = parse_workload(w.dump(), catalog()).workload;
            const std::string site = parsed.decision.site;
            const std::string cloud = site == "aws" || site == "gcp" || site == "azure" ? site : "";
            const PriceKind rental = r.option.kind == "rent_spot" ? PriceKind::cloud_spot
                                     : r.option.kind == "rent_reserved" ? PriceKind::cloud_reserved : PriceKind::cloud_on_demand;
            // The replicas the load needs are found back from the option's placed replicas: at most all of them,
            // with 0 or 1 spare (decision.redundancy "n+1").
            auto paid_for = [&](int per_replica) {
                if (!d || r.option.kind == "owned") return per_replica * r.option.replicas == r.option.count;
                for (int load = 1; load <= r.option.replicas; ++load)
                    for (const int spares : {0, 1}) {
                        if (r.option.kind == "own") {
                            const PurchaseUnits u = units_to_buy(*d, per_replica, load, spares);
                            if (u.devices_bought == r.option.count && u.replicas == r.option.replicas) return true;
                            continue;
                        }
                        // A rental with no offer of its kind in whole instances (rent_cost's other prices) is per device.
                        const RentalUnits rented = units_to_rent(*d, parsed.cost, rental, per_replica, load, spares, cloud);
                        const int placed = rented.usd_per_hour < 0 ? load + spares : rented.units.replicas;
                        if ((rented.usd_per_hour < 0 ? per_replica * placed : rented.units.devices_bought) == r.option.count && placed == r.option.replicas)
                            return true;
                    }
                return false;
            };
            // A serving candidate may itself be several replicas (users split over them: layout.data_parallel).
            auto per_replica_of = [&](const Candidate& x) {
                const bool serving = p.stage == Stage::serve || p.stage == Stage::batch || p.stage == Stage::edge;
                return serving && x.layout.data_parallel > 1 && x.count % x.layout.data_parallel == 0 ? x.count / x.layout.data_parallel : x.count;
            };
            const Candidate* c = nullptr;
            for (const auto& x : p.candidates)
                if (x.device == r.option.device && (paid_for(per_replica_of(x)) || (x.rl.sized && paid_for(x.rl.trainer_devices + x.rl.rollout_devices))))
                    c = &x;
            if (!c) return "the recommendation names no candidate";
            if ((p.stage == Stage::finetune || p.stage == Stage::pretrain) && r.option.replicas != 1)
                return "the recommendation's count is not its candidate's";
            if (!c->fits) return "the recommended candidate does not fit";
            const auto s = w.value("serve", json::object());
            if (s.contains("ttft_target_s") && c->figures.count("ttft_s") && !close_le(c->figures.at("ttft_s").value, s["ttft_target_s"].get<double>()))
                return "the recommendation misses the TTFT target";
            if (s.contains("tokens_per_s_per_user_target") && c->figures.count("decode_tokens_per_s_per_user") &&
                !close_le(s["tokens_per_s_per_user_target"].get<double>(), c->figures.at("decode_tokens_per_s_per_user").value))
                return "the recommendation misses the tokens-per-second target";
        }
    }
    return "";
}

// The stage's time figure that must not fall when the job grows (a duration, larger is slower).
const char* time_figure(const std::string& stage) {
    if (stage == "embed") return nullptr;
    return training(stage) ? "step_time_s" : "decode_step_s";
}

// `bigger` is `w` with one size grown: memory per device and the step time must not fall on any
// candidate present in both plans (same device and count, so the same layout search).
std::string check_grows(const Plan& a, const Plan& b, const std::string& stage, const std::string& what) {
    if (!b.issues.empty()) return what + ": the grown workload was rejected: " + to_string(b.issues[0]);
    for (const auto& c : a.candidates) {
        const Candidate* d = same(b, c);
        if (!d || c.layout != d->layout) continue; // a different layout is a different machine
        if (!close_le(c.memory.total_bytes, d->memory.total_bytes))
            return what + " lowered memory on " + c.device + " x" + std::to_string(c.count);
        if (const char* t = time_figure(stage); t && c.figures.count(t) && d->figures.count(t) &&
            !close_le(c.figures.at(t).value, d->figures.at(t).value))
            return what + " lowered " + t + " on " + c.device + " x" + std::to_string(c.count);
    }
    return "";
}

} // namespace

TEST(Invariants, RandomValidWorkloadsKeepEveryProperty) {
    Rng rng{20261130};
    int failures = 0, grown = 0, zero = 0;
    for (int i = 0; i < kWorkloads; ++i) {
        const json w = random_workload(rng);
        const Plan p = plan_of(w);
        const std::string stage = w["stage"];
        std::string bad = check_plan(p, w);
        // Monotonicity: grow one size at a time.
        auto grow = [&](const char* section, const char* key, double factor, const char* what) {
            if (!bad.empty() || !w.contains(section) || !w[section].contains(key)) return;
            json v = w;
            v[section][key] = std::round(v[section][key].get<double>() * factor);
            bad = check_grows(p, plan_of(v), stage, what);
            ++grown;
        };
        if (i % 4 == 0) { // every fourth workload: its grown versions too (each is another plan)
            grow("serve", "concurrent_users", 2, "more users");
            if (w.contains("serve") && !w["serve"].contains("prompt_tokens") && !w["serve"].contains("output_tokens"))
                grow("serve", "context_tokens", 2, "a longer context");
            grow("train", "seq_len", 2, "a longer sequence");
            // More parameters: a size-only model borrows the shape of the nearest Llama 3.x preset, whose KV
            // cache per token and activations rise with size, so memory and time never fall (the test below
            // checks the ladder itself).
            if (w["model"].is_object()) grow("model", "params", 2, "more parameters");
            // ZeRO: stage k+1 never needs more memory per device than stage k (same devices, same count).
            if (bad.empty() && training(stage) && w["hardware"].contains("count") && w["hardware"]["count"].get<int>() >= 2) {
                json v = w;
                v["hardware"]["devices"] = json::array({w["hardware"]["devices"][0]});
                double prev = -1;
                Layout prev_layout;
                for (int z = 0; z <= 3 && bad.empty(); ++z) {
                    v["train"]["zero_stage"] = z;
                    const Plan q = plan_of(v);
                    if (!q.issues.empty() || q.candidates.empty()) break;
                    // Only on the same layout otherwise: a different layout is a different machine.
                    Layout l = q.candidates.front().layout;
                    l.zero_stage = 0;
                    if (prev >= 0 && l != prev_layout) break;
                    prev_layout = l;
                    const double mem = q.candidates.front().memory.total_bytes;
                    if (prev >= 0 && !close_le(mem, prev)) bad = "ZeRO stage " + std::to_string(z) + " raised memory per device";
                    prev = mem;
                    ++zero;
                }
            }
        }
        if (!bad.empty() && ++failures <= 20) ADD_FAILURE() << "workload " << i << ": " << bad << "\n" << w.dump();
    }
    // The run covers what it claims (kWorkloads plans plus the grown and ZeRO variants).
    EXPECT_GT(grown, kWorkloads / 8);
    EXPECT_GT(zero, 0);
    EXPECT_EQ(failures, 0) << "of " << kWorkloads << " workloads (the first 20 are listed above)";
}

} // namespace hwplan

namespace hwplan {
namespace {

// KV cache values per token of a shape: K and V, per layer, per KV head, per head dimension.
double kv_values_per_token(const ModelArch& a) { return 2.0 * a.layers * a.kv_heads * a.head_dim; }

} // namespace

// The root of the "more parameters" invariant: the shape a size-only model borrows never shrinks as its
// size grows. From 1e8 to 1e12 parameters in steps of 2^(1/8), the borrowed preset's layers, hidden size,
// intermediate size and KV cache per token never fall. Before the fix, 5.05e9 borrowed a full multi-head
// shape and 1.01e10 a grouped-query one, and the KV cache fell from 3.56 to 1.91 GB (the case the invariant
// run found). The Llama 3.x presets' config.json figures (catalog/models/) give, by hand, 16,384, 57,344,
// 65,536, 163,840 and 258,048 KV values per token for 1B, 3B, 8B, 70B and 405B.
TEST(Invariants, SizeOnlyModelsBorrowShapesThatGrowWithSize) {
    std::optional<ModelArch> prev;
    std::string prev_id;
    std::vector<double> kv_seen;
    for (double params = 1e8; params <= 1e12; params *= std::pow(2.0, 0.125)) {
        const json w{{"stage", "serve"}, {"model", {{"params", std::round(params)}}}};
        const auto p = parse_workload(w.dump(), catalog());
        ASSERT_TRUE(p.issues.empty()) << params << ": " << to_string(p.issues[0]);
        ASSERT_TRUE(p.workload.model.size_only);
        const ModelArch& a = p.workload.model.model.arch;
        const std::string& id = p.workload.model.shape_from;
        if (prev) {
            EXPECT_GE(a.layers, prev->layers) << params << ": " << prev_id << " -> " << id;
            EXPECT_GE(a.hidden, prev->hidden) << params << ": " << prev_id << " -> " << id;
            EXPECT_GE(a.intermediate, prev->intermediate) << params << ": " << prev_id << " -> " << id;
            EXPECT_GE(kv_values_per_token(a), kv_values_per_token(*prev)) << params << ": " << prev_id << " -> " << id;
        }
        if (id != prev_id) kv_seen.push_back(kv_values_per_token(a));
        prev = a;
        prev_id = id;
    }
    // Each of the ladder's five presets is borrowed somewhere in the range, with the hand-derived KV sizes.
    EXPECT_EQ(kv_seen, (std::vector<double>{16384, 57344, 65536, 163840, 258048}));
}

} // namespace hwplan
