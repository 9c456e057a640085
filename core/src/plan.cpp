// plan.cpp: the assembly of a plan. For each candidate device: its assumptions (plan_assumptions.cpp), the count
// and layout (the training search in plan_training.cpp; for serving the fewest devices that fit, or at an arrival
// rate the replica size whose fleet is smallest), the stage's evaluation (plan_serving.cpp, plan_training.cpp,
// plan_embed.cpp, plan_rl.cpp) at the typical assumptions and again at their low and high ends to band every
// figure; then decide (decide.cpp) and what would change the answer (flips.cpp).
#include "hwplan/plan.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "hwplan/feasibility.h"
#include "hwplan/format.h"
#include "hwplan/render.h"
#include "hwplan/run_it.h"
#include "plan_eval.h"

namespace hwplan {

namespace plan_detail {
namespace {

// Without a published peak for the compute precision (or a wider one) the device's speed is unknown:
// time figures are left out rather than shown as if compute were free.
void drop_time_figures(Eval& e) {
    e.erase_if([](std::string_view k) {
        return k.size() > 2 && (k.compare(k.size() - 2, 2, "_s") == 0 || k.find("per_s") != std::string_view::npos ||
                                k == "utilization_ratio" || k == "window_used_ratio");
    });
    e.headline = 0;
    if (e.c.fits) e.c.regime_why = "compute peak not published for this precision: speed and regime not modelled";
}

// Decode of the user's own batch is bound by memory bandwidth, which every datasheet gives: when the compute
// peak is unknown (FP4-only datasheets such as Jetson AGX Thor), decode keeps its bandwidth roofline, a
// lower bound on the step time and so an upper bound on speed, and says that the compute side is unknown.
// Everything that needs the compute side (prefill, queueing, offline batches, training) is left out.
void keep_bandwidth_figures(Eval& e, const std::string& precision) {
    const std::string why = " [bandwidth roofline only: no published " + precision +
                            " (or wider) peak, so the compute side is unknown and this is an upper bound on speed]";
    if (e.explain)
        for (auto& [k, f] : e.c.figures)
            if (k == "decode_step_s" || k == "decode_tokens_per_s_per_user") f.why += why;
    e.erase_if([](std::string_view k) {
        if (k == "decode_step_s" || k == "decode_tokens_per_s_per_user") return false;
        return k.size() > 2 && (k.compare(k.size() - 2, 2, "_s") == 0 || k.find("per_s") != std::string_view::npos ||
                                k == "utilization_ratio" || k == "window_used_ratio" || k.find("within_targets") != std::string_view::npos);
    });
    if (e.c.fits) e.c.regime_why = "decode: bandwidth-bound at this batch as far as the datasheet tells; the compute peak for " + precision +
                                   " is not published, so prefill, time to first token and throughput at large batches are not modelled";
}

// `point`: a training candidate's point of the training search (choose_training); null: the profile's default.
// `splits`: a serving candidate's splits of a given count into replicas, as evaluated (best_serving_layout).
// `count_trial`: a serving count search's trial (Eval::count_trial), not a candidate's own evaluation.
// `numbers_only`: a search trial no plan shows (Eval::numbers_only; serving stages only).
// `basis`: the serving search's basis for its trials (serving stages, explain off; null: the evaluation looks up its own).
Eval evaluate(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, bool explain = true, int replicas = 0,
              const TrainPoint* point = nullptr, std::vector<ServingPoint>* splits = nullptr, bool count_trial = false, bool numbers_only = false,
              const ServeBasis* basis = nullptr) {
    Eval e;
    e.explain = explain;
    e.c.count = n;
    // The serving search returns its own evaluation, named; the other stages fill this one.
    if (!is_serving_stage(w.stage)) {
        e.c.device = d.id;
        e.c.device_name = d.name;
    }
    switch (w.stage) {
    case Stage::serve:
    case Stage::batch:
    case Stage::edge:
        e = best_serving_layout(w, cat, d, n, a, explain, replicas, splits, count_trial, numbers_only, basis);
        if (explain && w.stage == Stage::serve) mig_partitions(w, cat, d, a, e);
        break;
    case Stage::finetune:
    case Stage::pretrain:
        if (point) eval_train_point(w, cat, d, *point, a, e);
        else eval_train(w, cat, d, n, a, e);
        break;
    case Stage::rl: {
        // The trainer decides what must fit; the rollout pool's decode speed is reported beside it.
        eval_train(w, cat, d, n, a, e);
        e.c.figures.erase("train_time_s"); // the trainer's alone: the job's time needs its pools (rl_job_figures)
        Eval rollout;
        rollout.explain = e.explain;
        eval_serve(w, cat, d, n, a, rollout);
        for (const char* k : {"decode_tokens_per_s_per_user", "throughput_tokens_per_s"})
            if (rollout.c.figures.count(k)) e.c.figures[std::string("rollout_") + k] = rollout.c.figures[k];
        if (e.explain && e.c.fits) {
            e.c.rl = rl_pools(w, cat, d, n, a, e.c);
            e.c.notes.push_back("RL pools: " + e.c.rl.explanation);
            rl_job_figures(w, e.c.rl, e);
        }
        break;
    }
    case Stage::embed: eval_embed(w, cat, d, n, a, e); break;
    }
    if ((basis ? basis->peak : peak_for(d, w.precision.compute)).flop_per_s <= 0) {
        if ((w.stage == Stage::serve || w.stage == Stage::edge) && e.has("decode_step_s"))
            keep_bandwidth_figures(e, w.precision.compute);
        else
            drop_time_figures(e);
    }
    // Wafer-scale SRAM systems train by streaming weights from external memory (Cerebras CS-3 with MemoryX,
    // the device's catalog note) and their quoted peak may count sparsity: neither the GPU memory model
    // (weights resident, ZeRO sharding) nor its MFU describes them, so no training number is given.
    if (is_training_stage(w.stage) && d.kind == DeviceKind::sram_system) {
        drop_time_figures(e);
        e.c.regime_why = "training on " + d.id + " is not modelled: it streams weights from external memory rather than holding them, "
                         "and its quoted peak may include sparsity; no speed is given";
        if (e.explain) e.c.notes.push_back(e.c.regime_why + "; the memory terms above assume weights held on the device and do not apply either");
    }
    return e;
}

// Band every figure and the memory total across the low and high cases of the assumptions.
void widen(Candidate& c, const Candidate& other) {
    for (auto& [k, f] : c.figures) {
        auto it = other.figures.find(k);
        if (it == other.figures.end()) continue;
        f.low = std::min(f.low, it->second.value);
        f.high = std::max(f.high, it->second.value);
    }
    c.memory.total_low_bytes = std::min(c.memory.total_low_bytes, other.memory.total_bytes);
    c.memory.total_high_bytes = std::max(c.memory.total_high_bytes, other.memory.total_bytes);
    const double reserved = other.memory.total_bytes - other.memory.context_bytes - other.memory.managed_bytes;
    c.memory.reserved_low_bytes = std::min(c.memory.reserved_low_bytes, reserved);
    c.memory.reserved_high_bytes = std::max(c.memory.reserved_high_bytes, reserved);
    // The caching allocator's fragmentation as its source measured it (assumptions.json allocator_fragmentation_ratio, GMLake:
    // 1 - peak active / peak reserved, a share of everything the allocator holds, frozen weights and optimizer state
    // included), where the point estimate applies it to the per-step tensors alone (eval_train: large tensors allocated once
    // keep segments of their own size). Which base holds on a given job is not known (load-time transients stay cached:
    // FSDP's init, torchao's quantization), so the high ends also reach the allocated tensors x (1 + ratio): at the high
    // assumptions, 1.43 x. The low ends keep the per-step reading, the smaller of the two.
    if (const MemoryUse& o = other.memory; o.fragmentation_ratio > 0) {
        const double allocated = o.total_bytes - o.overhead_bytes - o.managed_bytes; // what max_memory_allocated() counts
        const double whole = allocated * (1 + o.fragmentation_ratio);
        c.memory.reserved_high_bytes = std::max(c.memory.reserved_high_bytes, whole);
        c.memory.total_high_bytes = std::max(c.memory.total_high_bytes, whole + o.context_bytes + o.managed_bytes);
    }
}

// [SECTION] the serving search: count and split ----------------------------------------------------------
// A serving candidate is the best point of one search over devices per replica (tensor parallel inside the fast
// domain, pipeline stages past it, or expert parallel for a MoE: eval_serve) and replicas, at the batch the engine
// runs (the planner's choice offline and at an arrival rate: best_batch). With the count left to the planner the
// points are replica sizes in powers of two, from the fewest devices whose weights fit up to the fast domain (8 at
// most); with a count given they are the splits of it into replicas (best_serving_layout). The objective:
// - count open, no arrival rate: the fewest devices that fit and meet the latency targets, else the fewest that
//   fit ("fewest_devices"); the other sizes up to the fast domain are runners-up;
// - count open at an arrival rate: the size whose fleet (replicas for the rate and its queue x the size) has the
//   fewest devices, ties to the smaller size ("fewest_fleet_devices");
// - count given, batch left to the engine: the split with the most output tokens/s, within the latency targets at
//   a rate, ties to fewer replicas ("most_output_tokens_per_s");
// - count given with the users or batch given, or an edge device: the one configuration ("given").
// The latency targets enter through the batch (at a rate, the largest that meets them) and the fleet (replicas
// whose p95 time to first token meets the target); every point says whether it meets them.

constexpr size_t kServingPointsKept = 6; // the best point and up to five runners-up

// The objective's name as the comparison reads it (read once per sort, not once per comparison).
struct ServingObjective {
    bool targets_first = false; // "fewest_devices": among fitting points, those that meet the targets first
    bool most_first = false;    // "most_output_tokens_per_s": the higher score first (else the lower)
    explicit ServingObjective(const std::string& objective)
        : targets_first(objective == "fewest_devices"), most_first(objective == "most_output_tokens_per_s") {}
};

// Whether x ranks before y under the objective: fitting points first; among misfits the most devices (the closest
// to fitting) first.
bool serving_ahead(const ServingPoint& x, const ServingPoint& y, const ServingObjective& objective) {
    if (x.fits != y.fits) return x.fits;
    if (!x.fits) return x.count > y.count;
    if (objective.targets_first && x.meets_targets != y.meets_targets) return x.meets_targets;
    if (objective.most_first) return x.score > y.score;
    return x.score < y.score || (x.score == y.score && x.count < y.count);
}

// The points in the objective's order with the chosen one (count and replicas of the candidate) first, at most
// kServingPointsKept of them.
void rank_serving(ServingSearch& s, int count, int replicas) {
    const ServingObjective objective(s.objective);
    std::stable_sort(s.points.begin(), s.points.end(), [&](const ServingPoint& x, const ServingPoint& y) { return serving_ahead(x, y, objective); });
    const auto chosen = std::find_if(s.points.begin(), s.points.end(), [&](const ServingPoint& p) { return p.count == count && p.replicas == replicas; });
    if (chosen != s.points.end()) std::rotate(s.points.begin(), chosen, chosen + 1);
    if (s.points.size() > kServingPointsKept) s.points.resize(kServingPointsKept);
    for (ServingPoint& p : s.points) describe_point(p);
}

// The count of a candidate (when the workload does not fix it): training counts come from choose_training; edge
// and embeddings run on one device; serving and batch search the replica sizes above, recording each point in
// `search` when given. `split_replicas` receives the replicas the count is split into (users split over replicas), 0
// when the candidate is one replica.
int choose_count(const Workload& w, const Catalog& cat, const Device& d, const Assumptions& a, ServingSearch* search = nullptr,
                 int* split_replicas = nullptr) {
    if (split_replicas) *split_replicas = 0;
    if (w.hardware.count > 0) return w.hardware.count;
    if (w.stage == Stage::edge || w.stage == Stage::embed) return 1;
    int n0 = 1;
    // The trials' basis, looked up once for the whole search (serving stages; the others evaluate without one).
    std::optional<ServeBasis> basis;
    if (is_serving_stage(w.stage)) basis.emplace(serve_basis(w, cat, d, a, false));
    const ServeBasis* const lent = basis ? &*basis : nullptr;
    if (w.stage == Stage::serve || w.stage == Stage::batch) {
        // The weights alone must fit the devices' usable memory: start the search there.
        const double weights = basis->weights.total;
        const double usable = usable_bytes(d, a, true);
        while (n0 < 4096 && weights / n0 > usable) n0 *= 2;
    }
    std::vector<ServingPoint> points;
    auto at = [&](int n) {
        Eval e = evaluate(w, cat, d, n, a, false, 0, nullptr, nullptr, true, true, lent);
        points.push_back(serving_point(w, e));
        return e;
    };
    int first = 0;
    Eval first_eval; // the fewest devices that fit, as evaluated (the fleet at a rate starts from it)
    for (int n = n0; n <= most_devices(d, a) && !first; n *= 2)
        if (Eval e = at(n); e.c.fits) {
            first = n;
            first_eval = std::move(e);
        }
    const bool rate = rate_batch(w);
    if (search) search->objective = rate && first ? "fewest_fleet_devices" : "fewest_devices";
    int best = first;
    if (first && !rate) {
        // The larger replica sizes up to the fast domain (more devices, more output tokens/s each): the runners-up,
        // or, when the fewest that fit miss the latency targets, the fewest that meet them.
        const bool missed = !points.back().meets_targets;
        for (int n = first * 2; (search || missed) && n <= std::min(std::max(1, d.domain_size), kMaxTensorParallel); n *= 2)
            if (at(n).c.fits && missed && best == first && points.back().meets_targets) best = n;
        for (auto& p : points) p.score = p.count;
        if (splits_users(w)) {
            // Users split over replicas: for each replica size from the fewest devices whose weights fit up to the fast
            // domain (8 at most), the fewest replicas whose share of the users fits a replica and meets the latency
            // targets and, with no per-user target given, a reader's pace (assumption user_read_tokens_per_s, the
            // demand decide.cpp prices): more replicas hold fewer users each, less KV cache and a faster step. The
            // fleet with the fewest devices (replicas x size) wins; a tie goes to single-device replicas (lesson 004:
            // "if the model fits one GPU at FP8 with room for its KV cache, serve on single GPUs"), then to fewer,
            // larger replicas (a shorter time to first token).
            const double users = w.serve.concurrent_users;
            const double pace = w.serve.tokens_per_s_per_user_target <= 0 && is_given(w, "serve.concurrent_users") ? a.user_read_tokens_per_s : 0;
            auto paced = [&](const ServingPoint& p, const Eval& e) {
                const double* f = e.find("decode_tokens_per_s_per_user");
                return p.fits && p.meets_targets && (pace <= 0 || (f && *f >= pace));
            };
            struct Tried {
                bool fits = false, paced = false;
                double held = 0; // users the point's memory holds
            };
            std::map<std::pair<int, int>, Tried> tried; // (size, replicas) -> what the point gave
            auto trial = [&](int size, int r) -> Tried {
                auto it = tried.find({size, r});
                if (it != tried.end()) return it->second;
                const Eval e = evaluate(w, cat, d, size * r, a, false, r == 1 ? 0 : r, nullptr, nullptr, true, true, lent);
                ServingPoint p = serving_point(w, e);
                p.score = p.count;
                const Tried v{p.fits, paced(p, e), e.value_or("max_concurrent_users", 0.0)};
                p.meets_targets = v.paced; // the pace is one of the targets the points rank by
                const auto same = std::find_if(points.begin(), points.end(), [&](const ServingPoint& q) { return q.count == size * r && q.replicas == r; });
                if (same != points.end()) same->meets_targets = v.paced;
                else points.push_back(std::move(p));
                return tried[{size, r}] = v;
            };
            int best_size = best, best_r = 1, best_devices = best;
            bool best_meets = trial(best, 1).paced;
            const int top = std::max(first, std::min(std::max(1, d.domain_size), kMaxTensorParallel));
            const int most = int(std::clamp(users, 1.0, 4096.0)); // one user a replica at most
            for (int size = n0; size <= top; size *= 2) {
                // How many users a replica of `size` holds gives the fewest replicas to try.
                const double held = trial(size, 1).held;
                if (held < 1) continue; // the weights alone leave no room
                const int lo = int(std::clamp(std::ceil(users / std::floor(held)), 1.0, double(most)));
                // The fewest replicas that fit and meet the targets and pace, else (when none does) the fewest that fit:
                // doubling, then bisection (both improve as the replicas grow).
                for (const bool targets : {true, false}) {
                    auto ok = [&](int r) { const Tried v = trial(size, r); return targets ? v.paced : v.fits; };
                    int l = lo, h = lo;
                    while (!ok(h) && h < most) {
                        l = h + 1;
                        h = std::min(most, 2 * h);
                    }
                    if (!ok(h)) continue;
                    while (l < h) {
                        const int mid = l + (h - l) / 2;
                        if (ok(mid)) h = mid;
                        else l = mid + 1;
                    }
                    const int devices = size * h;
                    const bool better = targets != best_meets ? targets
                                        : devices != best_devices ? devices < best_devices
                                        : (size == 1) != (best_size == 1) ? size == 1
                                                                          : size > best_size;
                    if (better) {
                        best_size = size;
                        best_r = h;
                        best_devices = devices;
                        best_meets = targets;
                    }
                    break;
                }
            }
            best = best_size * best_r;
            if (split_replicas && best_r > 1) *split_replicas = best_r;
        }
    } else if (first) {
        for (auto& p : points) p.score = p.count;
        // At an arrival rate the fleet is ceil(demand / capacity) copies of the n devices planned here: among the
        // sizes from the fewest that fit up to the fast domain (8 at most), keep the one whose fleet has the fewest
        // devices (replicas x tensor parallelism at least cost). At a rate the throughput counts each
        // request's prefill already (eval_serve), as the pricing does (decide.cpp).
        double demand = w.serve.requests_per_s * serve_shape(w).output;
        if (!w.serve.traffic.empty()) {
            demand = 0;
            for (const auto& t : w.serve.traffic) demand += t.requests_per_s * t.output_tokens;
        }
        auto fleet = [&](const Eval& e, int n) {
            const double* tp = e.find("throughput_tokens_per_s");
            if (!e.c.fits || !tp || *tp <= 0) return 1e300;
            const double replicas = std::max(std::ceil(demand / *tp), e.value_or("replicas_for_rate", 1.0));
            return replicas * n;
        };
        // A fleet no size of this device can give (no throughput modelled) ranks last: infinity, null in the JSON.
        auto fleet_at = [&](ServingPoint& p, const Eval& e) {
            const double devices = fleet(e, p.count);
            p.fleet_devices = p.score = devices < 1e300 ? devices : std::numeric_limits<double>::infinity();
            return devices;
        };
        double best_devices = fleet(first_eval, first);
        for (auto& p : points)
            if (p.count == first) p.fleet_devices = p.score = best_devices < 1e300 ? best_devices : std::numeric_limits<double>::infinity();
        for (int n = first * 2; n <= std::min(std::max(1, d.domain_size), kMaxTensorParallel); n *= 2) {
            const Eval e = at(n);
            if (const double devices = fleet_at(points.back(), e); devices < best_devices) {
                best = n;
                best_devices = devices;
            }
        }
    }
    if (search) {
        search->searched = int(points.size());
        search->points = std::move(points);
    }
    return first ? best : 1;
}

// The candidate's serving search: the count search's points (count open), else the splits of the count as the
// candidate's own evaluation tried them; ranked with the candidate's point first and explained in one line.
void finish_serving_search(const Workload& w, Candidate& c, ServingSearch& s, std::vector<ServingPoint>& splits) {
    const int replicas = std::max(1, c.layout.data_parallel);
    if (s.points.empty()) {
        s.objective = splits.size() > 1 ? "most_output_tokens_per_s" : "given";
        s.searched = int(splits.size());
        s.points = std::move(splits);
    } else if (std::none_of(s.points.begin(), s.points.end(), [&](const ServingPoint& p) { return p.count == c.count && p.replicas == replicas; }) &&
               !splits.empty()) {
        // Nothing fits on any size tried: the candidate is one device, as evaluated for it.
        s.points.push_back(splits.front());
        s.points.back().score = c.count;
        ++s.searched;
    }
    rank_serving(s, c.count, replicas);
    if (s.points.empty()) return;
    const ServingPoint& b = s.points.front();
    const bool targets = w.serve.ttft_target_s > 0 || w.serve.tokens_per_s_per_user_target > 0;
    std::string why = !b.fits ? "nothing fits on any size tried; the nearest: " + std::to_string(b.count) + " device(s)"
                      : s.objective == "fewest_devices" ? std::string("the fewest devices that fit") + (targets && b.meets_targets ? " and meet the latency targets" : "") +
                                                              (b.replicas > 1 ? ", the users split over " + std::to_string(b.replicas) + " replicas" +
                                                                                    (b.devices_per_replica == 1 ? " of one device (lesson 004: 'serve on single GPUs' when the model fits one)" : "")
                                                                              : std::string())
                      : s.objective == "fewest_fleet_devices" ? "the replica size whose fleet meets the arrival rate with the fewest devices (" + format_sig(b.fleet_devices, 6) + ")"
                      : s.objective == "most_output_tokens_per_s" ? std::string("the split of the ") + std::to_string(b.count) + " devices with the most output tokens/s" +
                                                                        (rate_batch(w) && targets ? " within the latency targets" : "")
                                                                  : std::string("the configuration the workload gives");
    s.explanation = why + ": " + b.describe + (b.meets_targets || !targets ? "" : ", which misses the latency targets") + "; " +
                    std::to_string(s.searched) + " point(s) searched" + (s.points.size() > 1 ? ", runners-up listed after it" : "");
    c.serving = std::move(s);
}

// [SECTION] sensitivity ----------------------------------------------------------------------------

std::string outcome(const Plan& p) {
    if (!p.recommendation.found) return "no feasible option";
    const auto& o = p.recommendation.option;
    if (!(o.cost.value > 0)) return o.name + " (no price in the catalog)"; // an unpriced option, not a free one
    return o.name + " at " + format_figure(o.unit, o.cost.value) + " " + unit_label(o.unit);
}

// For inputs the user did not give, the recommendation at the low and high ends of their plausible range.
void add_sensitivity(Plan& p, const Workload& w, const Catalog& cat, const AssumptionSet& as) {
    auto given = [&](const std::string& k) { return std::find(w.given.begin(), w.given.end(), k) != w.given.end(); };
    struct Probe {
        std::string key;
        std::function<void(Workload&, bool)> set; // false: low end, true: high end
        std::function<std::string(const Workload&)> show;
    };
    std::vector<Probe> probes;
    const bool serving = w.stage == Stage::serve || w.stage == Stage::batch;
    if (serving) {
        // Context from 2k to 32k tokens (never below the prompt and output the user gave, nor above the model's maximum).
        probes.push_back({"serve.context_tokens", [](Workload& x, bool hi) {
                              const double floor_tokens = std::max(2048.0, x.serve.prompt_tokens + x.serve.output_tokens);
                              double top = std::max(floor_tokens, 32768.0);
                              if (x.model.model.arch.max_context > 0) top = std::min(top, std::max(floor_tokens, double(x.model.model.arch.max_context)));
                              x.serve.context_tokens = hi ? top : floor_tokens;
                          },
                          [](const Workload& x) { return format_sig(x.serve.context_tokens, 6) + " tokens"; }});
        probes.push_back({"serve.concurrent_users", [](Workload& x, bool hi) { x.serve.concurrent_users = hi ? x.serve.concurrent_users * 10 : 1; },
                          [](const Workload& x) { return format_sig(x.serve.concurrent_users, 6) + " users"; }});
    }
    if (w.stage == Stage::finetune || w.stage == Stage::pretrain) {
        probes.push_back({"train.seq_len", [](Workload& x, bool hi) { x.train.seq_len = hi ? 8192 : 512; },
                          [](const Workload& x) { return format_sig(x.train.seq_len, 6) + " tokens"; }});
        probes.push_back({"train.micro_batch", [](Workload& x, bool hi) { x.train.micro_batch = hi ? 8 : 1; },
                          [](const Workload& x) { return format_sig(x.train.micro_batch, 6) + " sequences"; }});
    }
    if (w.stage == Stage::embed)
        probes.push_back({"embed.tokens_per_item", [](Workload& x, bool hi) { x.embed.tokens_per_item = hi ? 2048 : 128; },
                          [](const Workload& x) { return format_sig(x.embed.tokens_per_item, 6) + " tokens"; }});
    for (const auto& probe : probes) {
        if (given(probe.key)) continue;
        std::string line = probe.key + ":";
        for (bool hi : {false, true}) {
            Workload v = w;
            probe.set(v, hi);
            const Plan q = answer_plan(v, cat, as);
            line += std::string(hi ? "; " : " ") + "at " + probe.show(v) + ": " + outcome(q);
        }
        p.sensitivity.push_back(line);
    }
    // The decision inputs left out that choose between answers (lesson 004 asks first what the team runs, and whether
    // cost or latency comes first): the answer with the other choice, so a buyer sees what the default decided. Neither
    // enters a candidate's evaluation (plan_*.cpp read no decision.stack or decision.priority), so the plan's own
    // candidates are decided again (redecided_on), those of the devices the choice could make the answer
    // (devices_that_may_answer: with another stack also those out for their stack alone; a priority moves the ranking,
    // never a fixed elimination). tests/plan_test.cpp checks each against the scenario planned whole with that choice.
    struct Choice {
        std::string key, said;
        bool stack;
        std::function<void(Workload&)> set;
    };
    std::vector<Choice> choices;
    if (!given("decision.stack") && effective_stack(w) != "any")
        choices.push_back({"decision.stack", "with every stack compared (\"any\" instead of the assumed " + effective_stack(w) + ")", true,
                           [](Workload& x) { x.decision.stack = "any"; }});
    if (!given("decision.priority") && w.stage == Stage::serve && w.decision.priority != Priority::latency)
        choices.push_back({"decision.priority", "with latency first (first token, then per-user speed)", false,
                           [](Workload& x) { x.decision.priority = Priority::latency; }});
    for (const auto& choice : choices) {
        Workload v = w;
        choice.set(v);
        const Plan q = redecided_on(p, v, cat, as, devices_that_may_answer(p, choice.stack));
        const std::string now = outcome(q);
        p.sensitivity.push_back(choice.key + ": " + choice.said + ": " + now + (now == outcome(p) ? " (the same answer)" : ""));
    }
}

} // namespace
} // namespace plan_detail

namespace {

// `answer_only`: the candidates at the typical assumptions, decided, and nothing after (no bands, flips, sensitivity
// or run section): the recommendation and the options' typical costs, which is all a flip or a sensitivity probe
// compares (neither feasibility nor the ranking reads a band).
// `only`: the candidate devices, when not every one of the workload's (answer_plan).
Plan plan_candidates(const Workload& w, const Catalog& cat, const AssumptionSet& as, bool sensitivity, bool answer_only,
                     const std::vector<std::string>* only = nullptr) {
    Plan p;
    p.name = w.name;
    p.stage = w.stage;
    p.model_id = w.model.model.id;
    p.model_name = w.model.model.name;
    p.params = w.model.params;
    p.active_params = w.model.active_params;
    p.precision = w.precision;
    plan_detail::missing(w, p);
    if (w.model.size_only)
        p.notes.push_back("KV cache and activations use the shape of " + w.model.shape_from + " scaled to " + format_count(w.model.params) + " parameters");

    std::vector<const Device*> devices;
    if (w.hardware.devices.empty()) {
        for (const auto& d : cat.devices) devices.push_back(&d);
    } else {
        for (const auto& id : w.hardware.devices)
            if (const Device* d = cat.device_by_id(id)) devices.push_back(d);
    }
    if (only)
        std::erase_if(devices, [&](const Device* d) { return std::find(only->begin(), only->end(), d->id) == only->end(); });
    if (is_training_stage(w.stage) && !plan_detail::is_given(w, "train.runtime")) { // the trainer whose storage rules the memory follows (named in each candidate)
        // A device kind with a trainer of its own (runtimes.json default_for_device_kinds: MaxText on a TPU) takes that one
        // for full training instead of the method's default: say which, and on which devices.
        std::vector<std::pair<std::string, const TrainingRuntime*>> by_kind; // kind, its profile
        bool all_kind_defaults = !devices.empty();
        for (const Device* d : devices) {
            const TrainingRuntime* kr = plan_detail::device_default_runtime(w, cat, d);
            if (!kr) {
                all_kind_defaults = false;
                continue;
            }
            const std::string k(name(d->kind));
            if (std::none_of(by_kind.begin(), by_kind.end(), [&](const auto& x) { return x.first == k; })) by_kind.emplace_back(k, kr);
        }
        std::string line;
        if (all_kind_defaults) {
            line = "train.runtime: not given; " + by_kind.front().second->id + " assumed (" + by_kind.front().second->name + "): the trainer that runs on " +
                   by_kind.front().first + " devices, the default for full training there; name train.runtime to plan another";
            for (size_t i = 1; i < by_kind.size(); ++i) line += "; on " + by_kind[i].first + " devices " + by_kind[i].second->id;
        } else {
            line = "train.runtime: not given; " + plan_detail::training_runtime(w, cat).id + " assumed (the default for " + std::string(name(w.train.method)) + ")";
            for (const auto& [k, kr] : by_kind) line += "; on " + k + " devices " + kr->id + " (" + kr->name + "), the trainer that runs there";
        }
        p.missing_assumptions.push_back(line);
    }
    std::vector<std::pair<double, Candidate>> ranked;
    ranked.reserve(devices.size());
    for (const Device* d : devices) {
        const EfficiencyRule *rule = nullptr, *mfu_rule = nullptr, *attention_rule = nullptr, *gemm_rule = nullptr;
        AssumptionSet das = plan_detail::device_assumptions(as, cat, w, *d, rule, mfu_rule, attention_rule, gemm_rule);
        const auto calibrated = plan_detail::apply_calibrations(das, cat, *d);
        for (const Calibration* k : calibrated) {
            if (k->assumption == "decode_bandwidth_efficiency") rule = nullptr;
            if (k->assumption == "training_mfu") mfu_rule = nullptr;
            if (k->assumption == "training_attention_efficiency") attention_rule = nullptr;
            if (k->assumption == "training_mfu") plan_detail::end_to_end_mfu(das, attention_rule);
        }
        // Training: the count and layout are the best point of one search (choose_training); the candidate is
        // that point, its layouts the runners-up of the same search.
        const bool trains = w.stage == Stage::finetune || w.stage == Stage::pretrain;
        plan_detail::TrainChoice tc;
        if (trains) tc = plan_detail::choose_training(w, cat, *d, das.typical, true);
        const plan_detail::TrainPoint* point = trains && !tc.points.empty() ? &tc.points.front() : nullptr;
        // Serving: the count, split and batch are the best point of the serving search (choose_count over replica
        // sizes with the count open, best_serving_layout over splits of a given one); the runners-up are kept.
        const bool serves = w.stage == Stage::serve || w.stage == Stage::batch || w.stage == Stage::edge;
        ServingSearch ss;
        std::vector<ServingPoint> splits;
        int split = 0; // users split over replicas by the count search (0: one replica)
        // An answer alone keeps no search points (finish_serving_search below), so its count search evaluates no runners-up
        // beyond the count it chooses (choose_count chooses the same count with or without them).
        const int n = point ? point->n : plan_detail::choose_count(w, cat, *d, das.typical, serves && !answer_only ? &ss : nullptr, &split);
        // An answer alone needs neither the batch within the latency targets (decide ranks by other figures) nor, when
        // serving, the words: evaluated as a count search's trial is. (An RL job's pools are sized only when explaining.)
        plan_detail::Eval e = plan_detail::evaluate(w, cat, *d, n, das.typical, !(answer_only && serves), split, point, serves ? &splits : nullptr,
                                                    answer_only);
        // The search's ranked points and their words are the candidate's table; decide() reads none of them, so an
        // answer alone leaves them out.
        if (serves && !answer_only) plan_detail::finish_serving_search(w, e.c, ss, splits);
        if (point) {
            LayoutSearch& ls = e.c.layouts;
            ls.devices = n;
            ls.searched = tc.searched;
            ls.global_batch = w.train.global_batch > 0 ? w.train.global_batch : w.train.micro_batch * point->result.layout.data_parallel;
            for (const plan_detail::TrainPoint& tp : tc.points) {
                ls.layouts.push_back(tp.result);
                ls.fitting += tp.result.fits ? 1 : 0;
            }
            ls.found = point->result.fits;
            ls.explanation = tc.why + ": " + describe(point->result.layout) + (tc.points.size() > 1 ? "; runners-up on the same devices listed after it" : "");
            e.c.count_why = tc.why;
        }
        e.c.memory.total_low_bytes = e.c.memory.total_high_bytes = e.c.memory.total_bytes;
        e.c.memory.reserved_low_bytes = e.c.memory.reserved_high_bytes = e.c.memory.total_bytes - e.c.memory.context_bytes - e.c.memory.managed_bytes;
        if (answer_only) {
            ranked.push_back({e.headline, std::move(e.c)});
            continue;
        }
        // The bands of the layout chosen; an RL job's time also needs its pools sized at each end.
        auto band = [&](const Assumptions& ba) {
            plan_detail::Eval b = plan_detail::evaluate(w, cat, *d, n, ba, false, e.c.layout.data_parallel, point);
            if (w.stage == Stage::rl && b.c.fits) plan_detail::rl_job_figures(w, plan_detail::rl_pools(w, cat, *d, n, ba, b.c), b);
            b.c.figures.erase("rl_devices"); // the fleet priced is the typical split's, not a band
            return std::move(b.c); // a member of a local: returned by copy unless moved
        };
        plan_detail::widen(e.c, band(das.low));
        plan_detail::widen(e.c, band(das.high));
        // An encoder on another vendor's accelerator with no runtime named: which of the catalog's encoder runtime profiles
        // (fused TensorRT, XLA's fusions, PyTorch eager) its stack behaves like is not known, so the band also spans each of
        // them as the plan would take it, at the typical assumptions; the point estimate stays the fused default's and its
        // own band the default's (the note below says so).
        const bool encoder_uncalibrated = plan_detail::encoder_runtime_uncalibrated(das, cat, w, *d) && e.c.figures.count("items_per_s");
        if (encoder_uncalibrated) {
            Workload wr = w;
            // (a profile priced on vector engines the device does not have, neuronx-cc off a NeuronCore, is no candidate)
            auto applies = [&](const EncoderRuntime& rt) { return !rt.passes_on_vector_engine || d->vector_engine_elements_per_s > 0; };
            for (const EncoderRuntime& rt : cat.encoder_runtimes) {
                if (!applies(rt)) continue;
                wr.embed.runtime = rt.id;
                plan_detail::widen(e.c, plan_detail::evaluate(wr, cat, *d, n, das.typical, false, e.c.layout.data_parallel, point).c);
            }
            std::string profiles;
            for (const EncoderRuntime& rt : cat.encoder_runtimes)
                if (applies(rt)) profiles += (profiles.empty() ? "" : ", ") + rt.id;
            e.c.notes.push_back("encoder runtime not calibrated for " + d->id + ": no embed.runtime was named, and the default the plan "
                                "takes, a fused TensorRT engine (under which encoder_compute_efficiency was calibrated, on NVIDIA A100), "
                                "does not run on " + d->vendor + "'s devices; the point estimate keeps the fused profile, and the band "
                                "also spans every encoder runtime profile the catalog records (" + profiles + ", catalog/runtimes.json "
                                "encoder_runtimes), each as the plan would take it; name embed.runtime, or calibrate "
                                "encoder_compute_efficiency on your stack, to narrow it");
        }
        if (const double r = e.c.memory.unmodelled_high_ratio; r > 0) { // the trainer's declared uncalibrated share
            MemoryUse& mu = e.c.memory;
            mu.total_high_bytes = std::max(mu.total_high_bytes, mu.total_bytes * (1 + r));
            mu.reserved_high_bytes = std::max(mu.reserved_high_bytes, (mu.total_bytes - mu.context_bytes - mu.managed_bytes) * (1 + r));
        }
        // The trainer's declared uncalibrated slow side for QLoRA sharded over several devices (runtimes.json
        // sharded_qlora_time_unmodelled_low_ratio): the slow end of the time figures reaches the plan x (1 - r) in tokens/s.
        // The same condition as the note that says so (plan_training.cpp eval_train: ZeRO-3 over more than one device).
        if (trains && w.train.method == TrainMethod::qlora && e.c.layout.zero_stage >= 3 && e.c.count > 1)
            if (const double r = plan_detail::training_runtime(w, cat, d).sharded_qlora_time_unmodelled_low_ratio; r > 0)
                for (const char* k : {"step_time_s", "train_time_s", "train_tokens_per_s"}) {
                    auto f = e.c.figures.find(k);
                    if (f == e.c.figures.end() || f->second.value <= 0) continue;
                    if (std::string(k) == "train_tokens_per_s") f->second.low = std::min(f->second.low, f->second.value * (1 - r));
                    else f->second.high = std::max(f->second.high, f->second.value / (1 - r));
                }
        // The device's declared uncalibrated slow side for pretraining that spans fast domains (catalog scale_out
        // cross_domain_training_time_unmodelled_low_ratio: TPU slices joined by the data-centre network): the declared
        // shortfall is against the rate of one domain, whose own uncertainty the assumptions' band already carries, so
        // the slow end in tokens/s becomes that band's slow end x (1 - r), the step time's its slow end / (1 - r).
        // The same condition as the note that says so (plan_training.cpp eval_train: more devices than one domain).
        if (trains && w.stage == Stage::pretrain && d->domain_size > 0 && e.c.count > d->domain_size)
            if (const double r = d->cross_domain_training_low_ratio; r > 0)
                for (const char* k : {"step_time_s", "train_time_s", "train_tokens_per_s"}) {
                    auto f = e.c.figures.find(k);
                    if (f == e.c.figures.end() || f->second.value <= 0) continue;
                    if (std::string(k) == "train_tokens_per_s") f->second.low *= 1 - r;
                    else f->second.high /= 1 - r;
                }
        // A power cap carried from another board: the band's fast end already runs uncapped (device_assumptions); say so.
        if (!answer_only && das.high.power_cap_lifted > 0)
            e.c.notes.push_back("power cap not measured on " + d->id + ": its sustained 16-bit rate (" + format_sig(d->sustained_16bit_flop_per_s / 1e12, 3) +
                                " TFLOPS) is the T4's measured rule carried over (catalog compute.sustained_16bit_measured false), so the "
                                "band's fast end runs its compute at the boost-clock peak (" +
                                format_sig(std::max({d->fp16.flop_per_s, d->bf16.flop_per_s}) / 1e12, 3) + " TFLOPS)");
        // A CPU no decode rule covers: the band's slow end already takes the declared CPU share (device_assumptions); say so.
        if (!answer_only && plan_detail::cpu_decode_uncalibrated(das, w, *d, rule) && e.c.figures.count("decode_tokens_per_s_per_user"))
            e.c.notes.push_back("decode bandwidth efficiency not calibrated for CPUs: no measured decode rule covers " + d->id +
                                " (catalog/efficiencies.json), so the plan takes the catalog-wide share (" +
                                format_sig(das.typical.decode_bandwidth_efficiency, 3) + ", measured on llama.cpp's GPU backends) of its " +
                                "DRAM peak, and the band's slow end reaches " + format_sig(das.low.decode_bandwidth_efficiency, 3) +
                                " of it (assumptions.json cpu_decode_bandwidth_efficiency_low: a CPU backend's share of a chip's peak)");
        // Pretraining on another vendor's accelerator with no family basis: the band already spans every family basis
        // (device_assumptions); say so.
        if (!answer_only && plan_detail::training_basis_uncalibrated(das, w, *d, mfu_rule) && e.c.figures.count("train_tokens_per_s"))
            e.c.notes.push_back("training basis not calibrated for " + d->id + ": no pretraining measurement of " + d->vendor +
                                "'s stack sets a family basis (catalog/efficiencies.json training_mfu), so the plan takes the catalog-wide MFU (" +
                                format_sig(das.typical.training_mfu, 3) + ", measured on NVIDIA H100 under PyTorch) and its band spans every "
                                "family basis the catalog records, " + format_sig(das.low.training_mfu, 3) + " to " +
                                format_sig(das.high.training_mfu, 3) + " (assumptions.json training_mfu_uncalibrated_low/high)");
        // The decode runtime's declared uncalibrated host side of a served run (runtimes.json decode_runtimes
        // served_host_time_unmodelled_share: an engine behind its API server, fed at an infinite rate): the host's share
        // of the run is not modelled, so the slow end of the serving rates reaches the plan x (1 - share) and the step's
        // slow end the plan / (1 - share). The same condition as the note that says so (plan_serving.cpp eval_serve).
        if (!trains && (w.stage == Stage::serve || w.stage == Stage::batch))
            if (const DecodeRuntime* rt = cat.find_decode_runtime(w.serve.runtime); rt && !w.serve.runtime.empty())
                if (const double r = rt->served_host_time_unmodelled_share; r > 0)
                    for (const char* k : {"throughput_tokens_per_s", "decode_tokens_per_s_per_user", "decode_step_s"}) {
                        auto f = e.c.figures.find(k);
                        if (f == e.c.figures.end() || f->second.value <= 0) continue;
                        if (std::string(k) == "decode_step_s") f->second.high = std::max(f->second.high, f->second.value / (1 - r));
                        else f->second.low = std::min(f->second.low, f->second.value * (1 - r));
                    }
        // A layout-search point's fast end: at the high end of the assumptions a runner-up of the same search may
        // overtake the layout chosen at the typical ones (a faster compute basis favours layouts that hide less behind
        // compute: a pipeline over ZeRO-3's per-block gathers), so the time figures' fast side also spans the kept
        // points evaluated there (at most three evaluations, not a search). Memory stays the chosen layout's.
        if (point && !point->profile)
            for (const plan_detail::TrainPoint& tp : tc.points) {
                if (&tp == point || !tp.result.fits || tp.n != n) continue;
                const plan_detail::Eval b = plan_detail::evaluate(w, cat, *d, n, das.high, false, tp.result.layout.data_parallel, &tp);
                if (!b.c.fits) continue;
                for (const char* k : {"step_time_s", "train_time_s", "train_tokens_per_s"}) {
                    auto f = e.c.figures.find(k);
                    auto g = b.c.figures.find(k);
                    if (f == e.c.figures.end() || g == b.c.figures.end()) continue;
                    if (std::string(k) == "train_tokens_per_s") f->second.high = std::max(f->second.high, g->second.value);
                    else f->second.low = std::min(f->second.low, g->second.value);
                }
            }
        // The catalog-wide basis's calibration cases ran on NVIDIA H100: on another vendor's accelerator without a family basis
        // the training figures are modelled, not calibrated (the note above says so).
        // Likewise an encoder on another vendor's accelerator with no runtime named (the note above).
        if (!plan_detail::training_basis_uncalibrated(das, w, *d, mfu_rule) && !encoder_uncalibrated)
            plan_detail::label_calibrated(e.c, w, cat, das, rule, mfu_rule, attention_rule, gemm_rule);
        if (rule && w.stage != Stage::finetune && w.stage != Stage::pretrain)
            e.c.notes.push_back("decode bandwidth efficiency " + format_sig(rule->value, 3) + " (" + format_sig(rule->low, 3) + ".." +
                                format_sig(rule->high, 3) + ") for this device family [" + rule->id + ", " + std::to_string(rule->measurements) +
                                " measurements]: " + rule->meaning);
        if (gemm_rule && w.stage != Stage::finetune && w.stage != Stage::pretrain && e.c.phases.size() > 0 &&
            (e.c.phases.front().precision == "fp8" || e.c.phases.front().precision == "int8"))
            e.c.notes.push_back("decode GEMM share of the 8-bit peak " + format_sig(gemm_rule->value, 3) + " (" + format_sig(gemm_rule->low, 3) + ".." +
                                format_sig(gemm_rule->high, 3) + ") for this device family [" + gemm_rule->id + "]: " + gemm_rule->meaning);
        if (mfu_rule && w.stage == Stage::pretrain)
            e.c.notes.push_back("training MFU " + format_sig(mfu_rule->value, 3) + " (" + format_sig(mfu_rule->low, 3) + ".." +
                                format_sig(mfu_rule->high, 3) + ") for this device family [" + mfu_rule->id + "]: " + mfu_rule->meaning);
        plan_detail::label_user_calibrated(e.c, calibrated);
        if (!e.c.fits) {
            const double over = e.c.memory.total_bytes / e.c.memory.capacity_bytes;
            e.c.notes.push_back("does not fit: needs " + format_sig(over, 3) + "x the usable memory of " + std::to_string(n) +
                                " device(s)" + (w.hardware.count > 0 ? "" : ", the most tried"));
        }
        ranked.push_back({e.headline, std::move(e.c)});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
        if (x.second.fits != y.second.fits) return x.second.fits;
        return x.first > y.first; // the stage's headline figure: faster first
    });
    for (auto& r : ranked) p.candidates.push_back(std::move(r.second));
    decide(p, w, cat, as, !answer_only);
    if (answer_only) return p;
    add_flips(p, w, cat, as, sensitivity);
    if (sensitivity) plan_detail::add_sensitivity(p, w, cat, as);
    p.run = run_it(p, w, cat);
    return p;
}

} // namespace

Plan plan(const Workload& w, const Catalog& cat, const AssumptionSet& as, bool sensitivity) { return plan_candidates(w, cat, as, sensitivity, false); }

Plan answer_plan(const Workload& w, const Catalog& cat, const AssumptionSet& as, const std::vector<std::string>* only) {
    return plan_candidates(w, cat, as, false, true, only);
}

// What plan_candidates does after decide() with `sensitivity` on, where the quick plan did it with it off: add_flips
// and run_it write only the flips, the best option of each kind and the run section, add_sensitivity only the
// sensitivity lines, so doing them again from scratch on the quick plan gives the whole plan's (tests/plan_test.cpp
// compares the two for every scenario and random workloads).
Plan complete_plan(Plan p, const Workload& w, const Catalog& cat, const AssumptionSet& as) {
    if (!p.issues.empty()) return p;
    p.flips.clear();
    p.best_by_kind.clear();
    p.sensitivity.clear();
    add_flips(p, w, cat, as, true);
    plan_detail::add_sensitivity(p, w, cat, as);
    p.run = run_it(p, w, cat);
    return p;
}

namespace {

// Parses the workload and builds its assumption set, then `then(workload, assumptions)`; a problem with either is the
// plan's issues.
template <class F> Plan with_workload(const std::string& workload_json, const Catalog& catalog, F&& then) {
    auto parsed = parse_workload(workload_json, catalog);
    Plan p;
    if (!parsed.issues.empty()) {
        p.issues = std::move(parsed.issues);
        return p;
    }
    Issues issues;
    const AssumptionSet as = assumptions_for(catalog, parsed.workload.assumptions, issues);
    if (!issues.empty()) {
        p.issues = std::move(issues);
        return p;
    }
    return then(parsed.workload, as);
}

} // namespace

Plan plan_from_json(const std::string& workload_json, const Catalog& catalog, bool sensitivity) {
    return with_workload(workload_json, catalog, [&](const Workload& w, const AssumptionSet& as) { return plan(w, catalog, as, sensitivity); });
}

Plan complete_plan_from_json(Plan quick, const std::string& workload_json, const Catalog& catalog) {
    return with_workload(workload_json, catalog,
                         [&](const Workload& w, const AssumptionSet& as) { return complete_plan(std::move(quick), w, catalog, as); });
}

std::string_view name(Label l) {
    switch (l) {
    case Label::arithmetic: return "arithmetic";
    case Label::modelled: return "modelled";
    case Label::calibrated: return "calibrated";
    }
    return "";
}

std::string_view name(Regime r) {
    switch (r) {
    case Regime::compute: return "compute-bound";
    case Regime::bandwidth: return "bandwidth-bound";
    case Regime::capacity: return "capacity-bound";
    }
    return "";
}

} // namespace hwplan
