// flips.cpp: what would change the answer. For a plan's recommendation: the cheapest feasible option of each kind
// side by side, how far its own cost per result may rise before the runner-up wins, and the inputs whose change
// flips it and where: utilization (re-decided on the same candidates, since only prices move with it), demand
// (users, requests/s or items, re-planned: counts and layouts move with it), the deadline (from the chosen
// count's own time to train) and the power budget (from the chosen fleet's own draw). Lesson 004, "what would
// change the answer": a decision a buyer can act on says where it stops holding.
#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <string_view>

#include "hwplan/cost.h"
#include "hwplan/format.h"
#include "hwplan/render.h"
#include "plan_internal.h"

namespace hwplan {

namespace {

// [SECTION] what counts as another answer -------------------------------------------------------------
// The option's kind and device (or the API's name): more or fewer devices of the same kind is the same answer
// at another size, a different device or a different way to pay for it is another answer.
std::string answer_of(const Option& o) { return o.kind + "|" + (o.device.empty() ? o.name : o.device); }
std::string answer_of(const Plan& p) { return p.recommendation.found ? answer_of(p.recommendation.option) : ""; }

std::string shown_answer(const Plan& p) { return p.recommendation.found ? p.recommendation.option.name : "no feasible option"; }

std::string percent(double ratio) { return format_sig(100 * ratio, 3) + " %"; }

// The plan's candidates (or those given) priced again under another workload (decide() reorders and reprices them).
// `candidates` by value: a caller that re-decides its copies once moves them in (redecided_on); one that re-decides
// the same copies again and again moves them in and takes them back in their order (utilization_flips, in_order).
Plan redecided(const Plan& p, std::vector<Candidate> candidates, const Workload& w, const Catalog& cat, const AssumptionSet& as) {
    Plan q;
    q.name = p.name;
    q.stage = p.stage;
    q.model_id = p.model_id;
    q.model_name = p.model_name;
    q.params = p.params;
    q.active_params = p.active_params;
    q.precision = p.precision;
    q.candidates = std::move(candidates);
    decide(q, w, cat, as, false); // the answer and the options' costs: no words
    return q;
}

// A copy of a candidate for decide() alone: what it reads of a candidate is numbers (figures, memory, count, layout,
// regime, the RL pools' sizes), so the words, the phases and the search's points are left out of a copy that may be
// re-decided many times (utilization flips: up to nineteen). Field by field: copying the whole candidate and then
// clearing those was half of what re-deciding cost.
Candidate decision_copy(const Candidate& c) {
    Candidate k;
    k.device = c.device;
    k.device_name = c.device_name;
    k.count = c.count;
    k.layout = c.layout;
    k.fits = c.fits;
    k.regime = c.regime;
    const MemoryUse& m = c.memory; // its totals, not its terms
    k.memory = MemoryUse{.weights_bytes = m.weights_bytes, .kv_cache_bytes = m.kv_cache_bytes, .activations_bytes = m.activations_bytes,
                         .gradients_bytes = m.gradients_bytes, .optimizer_bytes = m.optimizer_bytes, .overhead_bytes = m.overhead_bytes,
                         .total_bytes = m.total_bytes, .capacity_bytes = m.capacity_bytes, .total_low_bytes = m.total_low_bytes,
                         .total_high_bytes = m.total_high_bytes, .context_bytes = m.context_bytes, .managed_bytes = m.managed_bytes,
                         .reserved_low_bytes = m.reserved_low_bytes, .reserved_high_bytes = m.reserved_high_bytes,
                         .unmodelled_high_ratio = m.unmodelled_high_ratio,
                         .fragmentation_ratio = m.fragmentation_ratio, .terms = {}};
    for (const auto& [name, f] : c.figures) k.figures.emplace_hint(k.figures.end(), name, Figure{f.value, f.low, f.high, f.label, {}});
    k.layouts.found = c.layouts.found;
    k.layouts.devices = c.layouts.devices;
    k.layouts.global_batch = c.layouts.global_batch;
    k.serving.objective = c.serving.objective;
    k.serving.searched = c.serving.searched;
    k.rl = c.rl;
    k.option = c.option;
    return k;
}

// The candidates a re-decision reordered (rank_options), back in the order of `devices` (their order before it): the
// options are priced in the candidates' order, and equal options keep it, so the next re-decision must start from it.
// Two candidates of one device are the same evaluation, so matching by device restores the order exactly.
std::vector<Candidate> in_order(std::vector<Candidate> reordered, const std::vector<std::string>& devices) {
    std::vector<Candidate> out;
    out.reserve(reordered.size());
    std::vector<bool> taken(reordered.size(), false);
    for (const std::string& device : devices)
        for (size_t i = 0; i < reordered.size(); ++i)
            if (!taken[i] && reordered[i].device == device) {
                out.push_back(std::move(reordered[i]));
                taken[i] = true;
                break;
            }
    return out;
}

// Decision copies (decision_copy) of the plan's candidates that `keep` selects, in the plan's order.
template <class Keep> std::vector<Candidate> decision_copies(const Plan& p, Keep keep) {
    std::vector<Candidate> out;
    out.reserve(p.candidates.size());
    for (const Candidate& c : p.candidates)
        if (keep(c)) out.push_back(decision_copy(c));
    return out;
}

// [SECTION] the best option of each kind ---------------------------------------------------------------
// The recommendation first, as the best of its own kind (the order that chose it; its headline prices it), then for
// each other kind its first feasible option with a price, else its first feasible one. A kind whose feasible options
// are all unpriced while its priced ones wait only for usage has no best: change_lines says the usage that would price
// it (render.cpp), not an unpriced device as its best.
void best_by_kind(Plan& p) {
    std::vector<std::string> seen;
    if (p.recommendation.found) {
        seen.push_back(p.options.front().kind);
        p.best_by_kind.push_back(0);
    }
    auto waits_for_usage = [&](const std::string& kind) {
        return std::any_of(p.options.begin(), p.options.end(), [&](const Option& o) {
            return o.kind == kind && o.eliminated_by == std::vector<Elimination>{Elimination::no_usage};
        });
    };
    for (size_t i = 0; i < p.options.size(); ++i) {
        const Option& o = p.options[i];
        if (!o.feasible || std::find(seen.begin(), seen.end(), o.kind) != seen.end()) continue;
        seen.push_back(o.kind);
        // A priced option of the kind before an unpriced one (options rank unknown prices last within their group only).
        size_t best = i;
        for (size_t j = i; j < p.options.size() && !(p.options[best].cost.value > 0); ++j)
            if (p.options[j].feasible && p.options[j].kind == o.kind && p.options[j].cost.value > 0) best = j;
        if (!(p.options[best].cost.value > 0) && waits_for_usage(o.kind)) continue;
        p.best_by_kind.push_back(static_cast<int>(best));
    }
}

// [SECTION] the runner-up's margin --------------------------------------------------------------------
// Options are ranked by cost per result under the unit-cost priority, after the steps ahead of the price (owned,
// compromise, a small job's CPU, the cloud's own accelerators, the largest fast domain). The recommendation stays
// first until its own cost rises to that of the first priced option of another answer that it goes before on the
// price alone; one it goes before at an earlier step (its reason says kRankedAfter) stays behind whatever it costs,
// and so does every option after it (the order is lexicographic).
void runner_up_margin(Plan& p, const Workload& w) {
    if (!p.recommendation.found || w.decision.priority != Priority::unit_cost) return;
    const Option& r = p.recommendation.option;
    if (!(r.cost.value > 0)) return;
    const std::string mine = answer_of(p);
    for (const Option& o : p.options) {
        if (!o.feasible || o.unit != r.unit || !(o.cost.value > 0)) continue;
        if (answer_of(o) == mine) continue;
        if (o.kind == "owned" || r.kind == "owned") return; // owned devices go first whatever they cost
        const bool before_the_price = std::any_of(o.reasons.begin(), o.reasons.end(), [](const std::string& x) { return x.rfind(kRankedAfter, 0) == 0; });
        if (before_the_price || o.cost.value <= r.cost.value) return; // ranked below for another reason (site, scale): not a price flip
        FlipPoint f;
        f.input = "unit_cost";
        f.unit = r.unit;
        f.value = r.cost.value;
        f.low = r.cost.value;
        f.high = o.cost.value;
        f.found = true;
        f.at = o.cost.value;
        f.becomes = o.name;
        f.text = "Price: " + r.name + " stays first until its cost per result rises " + percent(o.cost.value / r.cost.value - 1) + ", to " +
                 format_figure(r.unit, o.cost.value) + " " + unit_label(r.unit) + " (from " + format_figure(r.unit, r.cost.value) +
                 "), where " + o.name + " wins.";
        p.flips.push_back(std::move(f));
        return;
    }
}

// [SECTION] an unpriced runner-up ------------------------------------------------------------------------
// When nothing else moves the answer and the next other answer has no public price, that price is what would change
// it (issue 19: a plan never ranks an unpriced option above a priced one on cost, and says so). Only an option the
// recommendation goes before on the price alone (unpriced last): one behind it at an earlier step stays behind.
void unpriced_runner_up(Plan& p, const Workload& w) {
    if (!p.recommendation.found || w.decision.priority != Priority::unit_cost) return;
    const Option& r = p.recommendation.option;
    if (!(r.cost.value > 0)) return;
    const std::string mine = answer_of(p);
    const bool others_priced = std::any_of(p.options.begin(), p.options.end(), [&](const Option& o) {
        return o.feasible && o.cost.value > 0 && answer_of(o) != mine;
    });
    for (const Option& o : p.options) {
        if (!o.feasible || o.cost.value > 0 || answer_of(o) == mine) continue;
        if (std::any_of(o.reasons.begin(), o.reasons.end(), [](const std::string& x) { return x.rfind(kRankedAfter, 0) == 0; })) continue;
        FlipPoint f;
        f.input = "unit_cost";
        f.unit = r.unit;
        f.value = f.low = f.high = r.cost.value;
        f.becomes = o.name;
        f.text = "Price: " + std::string(others_priced ? "" : "no other feasible option here is priced; ") + o.name +
                 " has no public price and would be recommended only at a cost per result under " + format_figure(r.unit, r.cost.value) + " " +
                 unit_label(r.unit) + ".";
        p.flips.push_back(std::move(f));
        return;
    }
}

// [SECTION] utilization: buying against renting ---------------------------------------------------------
// An owned device's cost per result is (purchase + hosting) / utilization + power; a rented one's does not move.
// Re-decides at a grid of utilizations and bisects each change nearest to the plan's value on either side.
void utilization_flips(Plan& p, const Workload& w, const Catalog& cat, const AssumptionSet& as) {
    // Only where buying is priced here: without usage or a utilization an owned device's cost per result is unknown
    // (decide.cpp), and giving one would change the answer by pricing it, not by moving it.
    const bool any_bought = std::any_of(p.options.begin(), p.options.end(), [](const Option& o) { return o.kind == "own" && o.feasible && o.cost.value > 0; });
    if (!any_bought || w.decision.priority != Priority::unit_cost) return;
    const double u0 = effective_utilization(w);
    // Utilization moves prices only: an option eliminated for another reason (fit, targets, stack, site, scale) stays
    // eliminated at every utilization, so only the candidates with an option that is feasible, or held back by the
    // monthly budget alone (a price), are re-decided; the others cannot become the answer.
    std::vector<Candidate> live = decision_copies(p, [&](const Candidate& c) {
        return std::any_of(p.options.begin(), p.options.end(), [&](const Option& o) {
            return o.device == c.device &&
                   (o.feasible || (!o.eliminated_by.empty() && std::all_of(o.eliminated_by.begin(), o.eliminated_by.end(), [](Elimination r) {
                                       return r == Elimination::budget; })));
        });
    });
    std::vector<std::string> order; // the live candidates' devices, in the plan's order (in_order)
    order.reserve(live.size());
    for (const Candidate& c : live) order.push_back(c.device);
    Workload v = w; // one copy, its utilization moved for each re-decision
    // The answer at utilization u: the live copies re-decided, then taken back for the next one (the plan returned keeps
    // its recommendation and options, not the candidates; only its answer is read).
    auto at = [&](double u) {
        v.cost.utilization = u;
        Plan q = redecided(p, std::move(live), v, cat, as);
        live = in_order(std::move(q.candidates), order);
        return q;
    };
    const std::string base = answer_of(at(u0));
    if (base != answer_of(p)) return; // stating the utilization alone changes the answer: no flip to report
    const bool given = std::find(w.given.begin(), w.given.end(), "cost.utilization") != w.given.end();
    const std::string now = percent(u0) + (given ? "" : std::string(", ") + (hours_used_per_month(w.usage) > 0 ? "from the usage" : "assumed"));
    for (const int dir : {-1, 1}) {
        const std::vector<double> grid = dir < 0 ? std::vector<double>{0.5, 0.25, 0.1, 0.05} : std::vector<double>{0.25, 0.5, 0.75, 1.0};
        double inside = u0, outside = 0;
        std::string becomes;
        for (double g : grid) {
            if (dir < 0 ? g >= u0 : g <= u0) continue;
            const Plan q = at(g);
            if (answer_of(q) != base) {
                outside = g;
                becomes = shown_answer(q);
                break;
            }
            inside = g;
        }
        if (outside == 0) continue;
        for (int step = 0; step < 5; ++step) { // to about 1/32 of the grid step
            const double mid = (inside + outside) / 2;
            const Plan q = at(mid);
            if (answer_of(q) != base) {
                outside = mid;
                becomes = shown_answer(q);
            } else {
                inside = mid;
            }
        }
        FlipPoint f;
        f.input = "cost.utilization";
        f.unit = "ratio";
        f.value = u0;
        f.low = dir < 0 ? 0.05 : u0;
        f.high = dir < 0 ? u0 : 1.0;
        f.found = true;
        f.at = (inside + outside) / 2;
        f.becomes = becomes;
        f.text = "Utilization: " + std::string(dir < 0 ? "below " : "above ") + percent(f.at) + " of the hours (now " + now + "), " + becomes +
                 " would be recommended instead of " + shown_answer(p) + ".";
        p.flips.push_back(std::move(f));
    }
}

// [SECTION] demand: users, requests or items -------------------------------------------------------------
// Re-planned (sensitivity off) at a quarter and at four times the demand: what the recommendation becomes, or that
// it holds over that range. Only the devices that another demand could make the answer are re-planned
// (devices_that_may_answer): a device whose every option is out for a reason the demand does not enter stays out at
// any demand, and the options are ranked pairwise (decide_ranking.cpp), so leaving it out moves no other option
// (tests/flips_test.cpp re-plans every scenario both ways).
void demand_flips(Plan& p, const Workload& w, const Catalog& cat, const AssumptionSet& as) {
    struct DemandInput {
        std::string key, unit;
        std::function<double(const Workload&)> get;
        std::function<void(Workload&, double)> set;
    };
    std::vector<DemandInput> ds;
    if (w.stage == Stage::serve || w.stage == Stage::batch) {
        if (rate_batch(w))
            ds.push_back({"serve.requests_per_s", "requests/s", [](const Workload& x) { return x.serve.requests_per_s; },
                          [](Workload& x, double v) { x.serve.requests_per_s = v; }});
        else if (w.serve.concurrent_users >= 1)
            ds.push_back({"serve.concurrent_users", "users", [](const Workload& x) { return x.serve.concurrent_users; },
                          [](Workload& x, double v) { x.serve.concurrent_users = std::max(1.0, std::round(v)); }});
    }
    if (w.stage == Stage::embed && w.embed.items > 0)
        ds.push_back({"embed.items", "items", [](const Workload& x) { return x.embed.items; },
                      [](Workload& x, double v) { x.embed.items = std::max(1.0, std::round(v)); }});
    if (!p.recommendation.found) return; // what would make it feasible is the nearest miss's story (decide.cpp), not a flip
    const std::string base = answer_of(p);
    if (ds.empty()) return;
    const std::vector<std::string> may_answer = devices_that_may_answer(p);
    for (const auto& d : ds) {
        const double v0 = d.get(w);
        if (!(v0 > 0)) continue;
        FlipPoint f;
        f.input = d.key;
        f.unit = d.unit;
        f.value = v0;
        std::string changes;
        double lo = v0, hi = v0;
        for (double factor : {0.25, 4.0}) {
            Workload v = w;
            d.set(v, v0 * factor);
            const double tried = d.get(v);
            if (tried == v0) continue; // one user cannot be a quarter
            const Plan q = answer_plan(v, cat, as, &may_answer);
            if (!q.issues.empty()) continue;
            if (answer_of(q) != base) {
                f.found = true;
                f.at = tried;
                f.becomes = shown_answer(q);
                changes += std::string(changes.empty() ? "" : "; ") + "at " + format_sig(tried, 4) + " " + d.unit + ": " + f.becomes;
            } else {
                (factor < 1 ? lo : hi) = tried;
            }
            (factor < 1 ? f.low : f.high) = tried;
        }
        if (f.low == 0) f.low = v0;
        if (f.high == 0) f.high = v0;
        std::string name = d.key.substr(d.key.find('.') + 1);
        std::replace(name.begin(), name.end(), '_', ' ');
        f.text = "Demand (" + name + ", now " + format_sig(v0, 4) + "): " +
                 (changes.empty() ? "the answer holds from " + format_sig(f.low, 4) + " to " + format_sig(f.high, 4) + " " + d.unit + " (re-planned at both)"
                                  : changes + (lo < v0 || hi > v0 ? "; it holds at " + format_sig(lo < v0 ? lo : hi, 4) + " " + d.unit : std::string())) +
                 ".";
        p.flips.push_back(std::move(f));
    }
}

// [SECTION] the deadline ---------------------------------------------------------------------------------
// With a deadline the count is the fewest devices (on the count ladder) that finish in time: below the chosen count's
// own time to train it no longer does, and the next count is needed (plan_training.cpp, choose_training).
void deadline_flip(Plan& p, const Workload& w) {
    if (!(w.decision.deadline_days > 0) || !p.recommendation.found || p.recommendation.option.kind == "api") return;
    if (w.stage != Stage::pretrain && w.stage != Stage::finetune) return;
    const Option& r = p.recommendation.option;
    const Candidate* c = nullptr;
    for (const auto& x : p.candidates)
        if (x.device == r.device) c = &x;
    if (!c) return;
    const auto t = c->figures.find("train_time_s");
    if (t == c->figures.end() || !(t->second.value > 0)) return;
    const double days = t->second.value / 86400;
    FlipPoint f;
    f.input = "decision.deadline_days";
    f.unit = "days";
    f.value = w.decision.deadline_days;
    f.low = days;
    f.high = w.decision.deadline_days;
    f.found = true;
    f.at = days;
    f.becomes = "more than " + std::to_string(c->count) + " x " + c->device_name;
    f.text = "Deadline: " + std::to_string(c->count) + " x " + c->device_name + " take " + format_sig(days, 3) + " days (deadline " +
             format_sig(w.decision.deadline_days, 4) + "); a deadline under " + format_sig(days, 3) + " days needs more devices.";
    p.flips.push_back(std::move(f));
}

// [SECTION] the power budget -----------------------------------------------------------------------------
// With a power budget the recommendation holds while its running devices, at their lowest published power, fit
// under it (decide.cpp, feasibility.cpp power_budget_elimination): below that draw it is eliminated, and the
// same candidates decided again under a budget just below it say what is recommended then. An edge device with no
// budget given gets the same line: power binds there (lesson 004, the robot: "binding: power and capacity").
void power_flip(Plan& p, const Workload& w, const Catalog& cat, const AssumptionSet& as) {
    const bool budget = w.decision.power_budget_w > 0;
    if (!(budget || w.stage == Stage::edge) || !p.recommendation.found || p.recommendation.option.kind == "api") return;
    const Option& r = p.recommendation.option;
    if (!(r.power_draw_w > 0)) return;
    Workload lower = w;
    lower.decision.power_budget_w = r.power_draw_w * (1 - 1e-9);
    const Plan q = redecided(p, p.candidates, lower, cat, as);
    FlipPoint f;
    f.input = "decision.power_budget_w";
    f.unit = "W";
    f.value = budget ? w.decision.power_budget_w : r.power_draw_w;
    f.low = r.power_draw_w;
    f.high = budget ? w.decision.power_budget_w : r.power_draw_w;
    f.found = true;
    f.at = r.power_draw_w;
    f.becomes = shown_answer(q);
    f.text = "Power: " + r.name + " draws " + format_sig(r.power_draw_w, 4) + " W at its lowest published power (" +
             (budget ? "budget " + format_sig(w.decision.power_budget_w, 6) + " W" : std::string("no budget given: decision.power_budget_w")) + "); under " +
             format_sig(r.power_draw_w, 4) + " W the answer becomes " + f.becomes + ".";
    p.flips.push_back(std::move(f));
}

// [SECTION] what would make it fit -----------------------------------------------------------------------
// No feasible answer because nothing fits: the levers the lessons name for capacity, each re-planned (sensitivity
// off), and the first setting of each at which an answer appears. Serving: narrower weights (lesson 003:
// "Quantization reduces the number of bits used to store each weight ... halving precision roughly halves the memory
// required for weights"). A full fine-tune: LoRA, then QLoRA on 4-bit NF4 weights (lesson 001: "full fine-tuning
// requires multi-GPU setups or parameter-efficient methods like LoRA"). A count the workload fixes: more devices.
void fit_flips(Plan& p, const Workload& w, const Catalog& cat, const AssumptionSet& as) {
    if (p.recommendation.found || p.candidates.empty() || p.candidates.front().fits) return;
    struct Lever {
        std::string input, unit, words;
        std::function<void(Workload&)> set;
        double value = 0, at = 0;
    };
    std::vector<Lever> levers;
    const std::string& wt = w.precision.weights;
    if (is_serving_stage(w.stage)) {
        const bool wide = wt == "fp32" || wt == "bf16" || wt == "fp16";
        for (const char* narrower : {"fp8", "int4"}) {
            if (!wide && std::string(narrower) == "fp8") continue;
            if (wt == narrower || wt == "int4" || wt == "nf4") continue;
            const std::string n = narrower;
            levers.push_back({"precision.weights", "", n + " weights (now " + wt + ")", [n](Workload& x) { x.precision.weights = n; }});
        }
    }
    if (w.stage == Stage::finetune && w.train.method == TrainMethod::full) {
        levers.push_back({"train.method", "", "LoRA (now a full fine-tune)", [](Workload& x) { x.train.method = TrainMethod::lora; }});
        levers.push_back({"train.method", "", "QLoRA on 4-bit NF4 weights (now a full fine-tune)", [](Workload& x) {
                              x.train.method = TrainMethod::qlora;
                              x.precision.weights = "nf4";
                          }});
    }
    if (w.hardware.count > 0)
        for (int n = w.hardware.count * 2; n <= std::max(8, w.hardware.count * 2) && n <= 1024; n *= 2)
            levers.push_back({"hardware.count", "devices", std::to_string(n) + " devices (now " + std::to_string(w.hardware.count) + ")",
                              [n](Workload& x) { x.hardware.count = n; }, double(w.hardware.count), double(n)});
    std::string seen; // one flip per input: its first setting that gives an answer
    for (const Lever& l : levers) {
        if (seen.find("|" + l.input + "|") != std::string::npos) continue;
        Workload v = w;
        l.set(v);
        const Plan q = answer_plan(v, cat, as);
        if (!q.issues.empty() || !q.recommendation.found) continue;
        seen += "|" + l.input + "|";
        FlipPoint f;
        f.input = l.input;
        f.unit = l.unit;
        f.value = f.low = l.value;
        f.high = f.at = l.at;
        f.found = true;
        f.becomes = shown_answer(q);
        f.text = "Fit: nothing fits now (" + p.candidates.front().device_name + " needs " + format_bytes(p.candidates.front().memory.total_bytes) +
                 " of " + format_bytes(p.candidates.front().memory.capacity_bytes) + " usable); with " + l.words + " the answer becomes " + f.becomes + ".";
        p.flips.push_back(std::move(f));
    }
}

} // namespace

std::vector<std::string> devices_that_may_answer(const Plan& p, bool stack_may_change) {
    auto fixed = [stack_may_change](Elimination r) { // a reason the demand does not enter (feasibility.cpp check_feasibility, decide_pricing.cpp)
        switch (r) {
        case Elimination::software: return !stack_may_change;
        case Elimination::stage:
        case Elimination::site:
        case Elimination::licence:
        case Elimination::data:
        case Elimination::framework:
        case Elimination::cannot_buy:
        case Elimination::not_for_rent:
        case Elimination::interruptible: return true;
        default: return false;
        }
    };
    // Each device's options, looked up by name once (a plan lists hundreds of options over dozens of devices): a
    // device is live when one of its options is.
    std::vector<std::pair<std::string_view, bool>> named; // (device, that option live), by device
    named.reserve(p.options.size());
    for (const Option& o : p.options)
        if (o.kind != "api") named.emplace_back(o.device, o.feasible || std::none_of(o.eliminated_by.begin(), o.eliminated_by.end(), fixed));
    std::sort(named.begin(), named.end());
    std::vector<std::string> out;
    for (const Candidate& c : p.candidates) {
        // Sorted by (device, live): the last of the device's entries is live when any is.
        const auto end = std::upper_bound(named.begin(), named.end(), std::pair<std::string_view, bool>(c.device, true));
        const bool listed = end != named.begin() && std::prev(end)->first == c.device;
        const bool live = listed && std::prev(end)->second;
        if (live || !listed) out.push_back(c.device); // a device no option names is kept: nothing says it cannot answer
    }
    return out;
}

Plan redecided_on(const Plan& p, const Workload& w, const Catalog& cat, const AssumptionSet& as, const std::vector<std::string>& devices) {
    return redecided(p, decision_copies(p, [&](const Candidate& c) { return std::find(devices.begin(), devices.end(), c.device) != devices.end(); }),
                     w, cat, as);
}

void add_flips(Plan& p, const Workload& w, const Catalog& cat, const AssumptionSet& as, bool replan) {
    best_by_kind(p);
    runner_up_margin(p, w);
    deadline_flip(p, w);
    power_flip(p, w, cat, as);
    if (!replan) {
        if (p.flips.empty()) unpriced_runner_up(p, w);
        return;
    }
    utilization_flips(p, w, cat, as);
    demand_flips(p, w, cat, as);
    fit_flips(p, w, cat, as);
    if (p.flips.empty()) unpriced_runner_up(p, w);
}

} // namespace hwplan
