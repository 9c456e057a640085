// hwplan/plan.h: the planner's answer for one workload: per candidate device (and count), the memory
// breakdown, whether it fits, the regime, and the stage's figures, each with a low..high band and a
// label saying how it was obtained. A plain value: render it as JSON, a table, Markdown or ImGui panels.
// Usage: Plan p = plan(workload, catalog, assumptions);  for (auto& c : p.candidates) show(c);
#pragma once
#include <map>
#include <string>
#include <vector>

#include "hwplan/assumptions.h"
#include "hwplan/catalog.h"
#include "hwplan/cost.h"
#include "hwplan/parallel.h"
#include "hwplan/rl.h"
#include "hwplan/run_it.h"
#include "hwplan/performance.h"
#include "hwplan/workload.h"

namespace hwplan {

// How a figure was obtained: exact arithmetic from given sizes, a model with assumed efficiencies, or a
// model whose efficiency was checked against a published measurement (the test names it).
enum class Label { arithmetic, modelled, calibrated };

struct Figure {
    double value = 0;   // with typical assumptions
    double low = 0;     // the smallest value across the assumptions' ranges
    double high = 0;    // the largest
    Label label = Label::modelled;
    std::string why;    // the terms that make it up, in words
    bool operator==(const Figure&) const = default;
};

// A candidate's figures by name. The comparator is transparent, so find/count/contains with a string literal look up
// without building a std::string (a search evaluates thousands of candidates).
using Figures = std::map<std::string, Figure, std::less<>>;

// One named term of the memory on one device.
struct MemoryTerm {
    std::string name;   // "weights", "kv_cache", ...
    double bytes = 0;
    std::string why;    // "8.03e9 params x 4.127 bits / 8 ..."
    bool operator==(const MemoryTerm&) const = default;
};

struct MemoryUse {
    double weights_bytes = 0;
    double kv_cache_bytes = 0;
    double activations_bytes = 0;
    double gradients_bytes = 0;
    double optimizer_bytes = 0;
    double overhead_bytes = 0;
    double total_bytes = 0;      // the sum of the six
    double capacity_bytes = 0;   // what the job may use on one device
    double total_low_bytes = 0;  // total across the overhead assumptions' range
    double total_high_bytes = 0;
    // What a framework's caching allocator does not see (PyTorch's torch.cuda.max_memory_reserved() and
    // max_memory_allocated() count only its own blocks): the runtime context inside `overhead_bytes`, and
    // optimizer state in managed memory (bitsandbytes' paged optimizers allocate it with cudaMallocManaged and
    // wrap it with torch.frombuffer) inside `optimizer_bytes`. Training plans set both; serving plans leave 0.
    double context_bytes = 0;
    double managed_bytes = 0;
    double reserved_low_bytes = 0;   // total - context - managed across the assumptions' range
    double reserved_high_bytes = 0;
    // Not calibrated: the trainer's published peaks have run up to this share above the plan from mechanisms its profile does
    // not model (runtimes.json memory_unmodelled_high_ratio); the high ends above include it. 0: none declared.
    double unmodelled_high_ratio = 0;
    // The caching allocator's fragmentation ratio this evaluation took (assumptions.json allocator_fragmentation_ratio; 0 where
    // no caching allocator holds the memory: a serving plan, an XLA trainer). The point estimate applies it to the per-step
    // tensors only; its source measured it on everything allocated (GMLake: 1 - peak active / peak reserved), so the band's
    // high ends also reach the allocated tensors x (1 + the ratio's high end) (widen, plan.cpp).
    double fragmentation_ratio = 0;
    std::vector<MemoryTerm> terms;
    bool operator==(const MemoryUse&) const = default;
};

// One phase's roofline on one device (decode step, prefill, training step, embedding batch).
struct Phase {
    std::string name;
    Roofline roofline;
    double overhead_s = 0;       // fixed per-step cost outside the roofline
    double communication_s = 0;  // collectives that do not overlap
    double time_s = 0;           // roofline + overhead + communication
    std::string precision;       // the compute precision whose peak was used
    bool operator==(const Phase&) const = default;
};

struct Layout {
    int tensor_parallel = 1;
    int pipeline_parallel = 1;
    int data_parallel = 1;
    int zero_stage = 0;
    int expert_parallel = 1;     // a MoE: routed experts spread over this many devices (of a replica when serving)
    // Training only (0 / none when serving):
    int context_parallel = 1;    // every sequence split over this many devices
    int virtual_stages = 1;      // model chunks per pipeline stage (interleaved 1F1B)
    int micro_batch = 0;         // sequences per micro-batch
    int micro_batches = 0;       // micro-batches per data-parallel rank per optimizer step
    Checkpointing recompute = Checkpointing::none;
    bool operator==(const Layout&) const = default;
};

enum class Regime { compute, bandwidth, capacity };

// One point of the serving search (plan_serving.cpp, plan.cpp): `count` devices as `replicas` replicas of
// `devices_per_replica` each, a replica tensor parallel inside the fast domain and pipeline stages past it (or, for a
// MoE, expert parallel over the replica), at the batch its engine runs. Its figures are those of its evaluation.
struct ServingPoint {
    int count = 0;                       // devices planned on (the candidate's `count`)
    int replicas = 1;                    // replicas inside them (the candidate's layout.data_parallel)
    int devices_per_replica = 0;         // count / replicas
    int tensor_parallel = 1;
    int pipeline_parallel = 1;
    int expert_parallel = 1;
    double batch_sequences = 0;          // sequences a replica runs per step: the engine's batch, or the users given
    bool fits = false;
    bool meets_targets = true;           // time to first token and per-user speed meet the workload's targets (true without any)
    double throughput_tokens_per_s = 0;  // output tokens/s of the `count` devices
    double tokens_per_s_per_device = 0;  // throughput / count
    double fleet_devices = 0;            // with the count left open at an arrival rate: the devices whose replicas meet it
                                         // (replicas for the rate x count); otherwise `count`
    double score = 0;                    // the figure the search's objective ranks by (ServingSearch::objective)
    std::string describe;                // "2 replicas x 4 devices (tensor parallel 4)"
    bool operator==(const ServingPoint&) const = default;
};

// The points of one serving search, best first: the candidate is points[0] (its count, layout and figures), the rest
// are the runners-up (at most five) on the same device.
struct ServingSearch {
    std::string objective;               // "fewest_devices" (score: devices, fewer first), "fewest_fleet_devices" (score: the
                                         // fleet at the rate, fewer first), "most_output_tokens_per_s" (score: output tokens/s,
                                         // within the latency targets at a rate; more first), "given" (one point: the engine
                                         // configuration the workload fixes)
    int searched = 0;                    // points evaluated
    std::string explanation;             // what was searched and why the first point won, in words
    std::vector<ServingPoint> points;
    bool operator==(const ServingSearch&) const = default;
};

struct Candidate {
    std::string device;          // catalog id
    std::string device_name;
    int count = 1;               // devices per replica
    Layout layout;
    bool fits = false;
    Regime regime = Regime::capacity;
    std::string regime_why;
    MemoryUse memory;            // per device
    Figures figures;             // "ttft_s", "decode_tokens_per_s_per_user", "step_time_s", ...
    std::vector<Phase> phases;
    std::vector<std::string> notes; // precision fallbacks, missing figures, how far off a misfit is
    LayoutSearch layouts;        // pretrain/finetune: the points of the training search on `count` devices, this candidate's first
                                 // (parallel.h; its figures are the candidate's); empty otherwise
    std::string count_why;       // pretrain/finetune: how the count was chosen (given, fewest that fit, deadline)
    ServingSearch serving;       // serve/batch/edge: the points of the serving search, this candidate its first; empty otherwise
    RlPools rl;                  // rl: trainer pool (`count` devices) and the rollout pool beside it (rl.h); empty otherwise
    int option = -1;             // index into Plan::options of the best-ranked option on this device (its unit cost, fleet,
                                 // feasibility and reasons are the table's row); -1 when no option names it (decide.cpp)
    bool operator==(const Candidate&) const = default;
};

// Why an option is out, as data (feasibility.cpp, decide_pricing.cpp): one entry per reason, in the order of the
// option's reasons, whose words are built from it (decide_words.cpp). Code that asks why reads these, not the words.
enum class Elimination {
    stage,           // the device does not suit the stage (an SRAM decode tier asked to train)
    software,        // does not run the stack (decision.stack)
    site,            // not available where it must run (decision.site), or cannot be bought or rented there
    licence,         // its licence forbids the site
    data,            // the data must stay on premises
    scale,           // one replica's expert-parallel group outside the fast domain, or a rack bought whole for a few devices
    power_budget,    // its running devices draw more than decision.power_budget_w, or no power figure is published
    fit,             // does not fit in the device's usable memory
    cannot_buy,      // not for sale (cloud only)
    owned_short,     // needs more devices than the team owns (hardware.owned)
    purchase_budget, // over decision.purchase_budget_usd, or no purchase price to hold against it
    not_for_rent,    // not offered for rent
    no_usage,        // owned or reserved without usage to spread the price over
    interruptible,   // spot capacity for an interactive endpoint
    framework,       // does not run the workload's framework
    ttft_target,     // misses the time-to-first-token target
    speed_target,    // misses the per-user speed target
    window,          // misses the embedding job's window
    deadline,        // misses the training deadline
    replicas,        // the demand needs more replicas than are planned
    demand,          // no fleet of it meets the users' demand
    budget,          // over decision.budget_usd_per_month, or no monthly cost to hold against it
    context,         // a hosted API's context is shorter than the workload's
};

// One way to get the job done: rent or own a candidate's devices, or call a hosted API.
struct Option {
    std::string kind;            // "rent", "own", "api"
    std::string name;            // "rent 2 x NVIDIA H200", "Groq llama-3.1-8b-instant"
    std::string device;          // catalog id ("" for an API)
    int count = 0;               // devices paid for: bought or rented in whole units (servers, instances, racks), owned per device
    int replicas = 1;            // replicas planned on them (load + spares); count / replicas can exceed a replica's devices when bought whole
    std::string fleet;           // the devices paid for as the name and the headline say them: "8 (2 replicas of 4)",
                                 // "8 (1 x 8-device server: 4 used)", "1"; "" for an API
    std::string unit;            // the useful result priced: "usd_per_million_output_tokens", "usd_per_run", ...
    Figure cost;                 // USD per unit, banded like the time figures it comes from
    double usd_per_month = -1;   // at the workload's usage (< 0: usage not given)
    bool feasible = false;       // fits, meets the targets, and survives feasibility (stack, site, licence, stage, scale, budget)
    std::vector<std::string> reasons; // why it won or lost (an infeasible option: the reasons it was eliminated)
    std::string rank_why;        // a feasible option ranked after the recommendation at a step ahead of the price: that step
                                 // and what this option lacks ("ranked after the recommendation on a fleet without a
                                 // compromise: ..."), the last of its reasons; the Devices table's row says it (decide_explain.cpp)
    std::vector<Elimination> eliminated_by; // why it is out, one entry per reason of an infeasible option; empty when feasible
    std::vector<CostTerm> cost_terms; // cost.why term by term: the price's parts, the devices, the demand, the month, the unit cost
    double speed = 0;            // the priority's speed figure: per-user tokens/s (serving), tokens or items/s (others); 0 unknown
    double latency_s = 0;        // time to first token (p95 under load where modelled); 0 unknown
    double power_w = 0;          // board power of all its devices (0: not published)
    double power_draw_w = 0;     // the devices that run (replicas x a replica's devices) at their lowest published power
                                 // (catalog min_W, else tdp_W): what decision.power_budget_w holds; 0: not published
    bool operator==(const Option&) const = default;
};

struct Recommendation {
    bool found = false;
    Option option;
    std::string headline;              // the decision in one short sentence: what to do and its unit cost (decide.cpp)
    std::string summary;               // the same decision with the cost's whole derivation (option.cost_terms, line by line)
    std::vector<std::string> reasons;  // binding resource, regime, the runner-up and why it lost
    std::string lever;                 // what would move the binding resource
    bool operator==(const Recommendation&) const = default;
};

// Lesson 004's order made visible: stage -> binding resource, size -> level of scale, what feasibility
// eliminated, the ranking by the user's priority, the first-cut guide beside it, and the three checks.
struct Decision {
    std::string binding;                 // the stage's binding resource
    std::string scale;                   // the level of scale ("one node of up to 8 devices")
    std::string scale_why;
    std::string priority;                // the ranking used ("unit_cost", ...)
    std::string stack;                   // the software stack assumed or given
    std::string site;                    // "" when not given
    std::vector<std::string> eliminated; // "own 1 x NVIDIA GeForce RTX 5090: licence: ..." (one line per option)
    std::string guide;                   // choose.go's first-cut recommendation
    std::string guide_why;
    bool guide_agrees = false;
    std::string guide_note;              // where the computed answer differs from the guide, why
    std::string runner_up;               // the second option and why it lost
    std::vector<std::string> checks;     // regime (with its lever), run it (first load test), unit cost
    bool operator==(const Decision&) const = default;
};

// What would change the answer (flips.cpp): one input of the workload, the range it was moved over, and
// whether and where the recommendation becomes another option.
struct FlipPoint {
    std::string input;           // the workload key moved ("cost.utilization", "serve.concurrent_users", "decision.deadline_days",
                                 // "decision.power_budget_w"), or "unit_cost" (the recommendation's own cost per result)
    std::string unit;            // the input's unit as shown ("ratio", "users", "requests/s", "items", "days", or the plan's cost unit)
    double value = 0;            // the input's value in this plan
    double low = 0, high = 0;    // the range tried
    bool found = false;          // the recommendation changes inside the range
    double at = 0;               // where it changes (found), to the resolution the search reached
    std::string becomes;         // what is recommended past `at` ("no feasible option" when nothing survives)
    std::string text;            // the sentence the CLI, the card and the page print
    bool operator==(const FlipPoint&) const = default;
};

struct Plan {
    std::string name;
    Stage stage = Stage::serve;
    std::string model_id;
    std::string model_name;
    double params = 0;
    double active_params = 0;
    PrecisionSpec precision;
    std::vector<Candidate> candidates;       // fitting ones first, then by the stage's headline figure
    std::vector<Option> options;             // feasible ones first, cheapest first; then the rest with reasons
    Recommendation recommendation;
    Decision decision;                       // the decision's steps (lesson 004)
    std::vector<std::string> missing_assumptions; // inputs the user did not give that change the answer
    std::vector<std::string> sensitivity;    // how the recommendation moves across those inputs' plausible range
    std::vector<FlipPoint> flips;            // what would change the answer, and where (flips.cpp)
    std::vector<int> best_by_kind;           // the cheapest feasible option of each kind (own, rent, reserve, spot, API, owned):
                                             // indices into `options`, the recommendation's kind first
    // Buy versus rent for the first candidate with both prices: (hours used a month, months to break even;
    // infinity when renting stays cheaper).
    std::string breakeven_device;
    std::vector<std::pair<double, double>> breakeven_curve;
    std::vector<std::string> notes;
    RunIt run;                               // the commands that deploy and measure the recommended option (run_it.h)
    Issues issues;                           // problems that stopped the plan (then candidates is empty)
};

// Plans `workload` over its candidate devices. `assumptions` comes from assumptions_for().
// `sensitivity`: also re-plan at the ends of the inputs the user did not give (a few more plans).
Plan plan(const Workload& workload, const Catalog& catalog, const AssumptionSet& assumptions, bool sensitivity = true);

// Parses, builds the assumption set and plans; every problem ends up in Plan::issues.
Plan plan_from_json(const std::string& workload_json, const Catalog& catalog, bool sensitivity = true);

// The plan plan(..., true) gives, from the plan plan(..., false) gave for the same workload, catalog and assumptions:
// its candidates, options and recommendation kept (they do not depend on `sensitivity`), the flip points found by
// re-planning and the sensitivity probes added. The page shows the quick plan at a keystroke and completes it when
// typing pauses (wasm/app/page.cpp refresh_plan), so the candidates are evaluated once per edit, not twice.
Plan complete_plan(Plan quick, const Workload& workload, const Catalog& catalog, const AssumptionSet& assumptions);
// The same from the workload's JSON (as plan_from_json reads it); every problem ends up in Plan::issues.
Plan complete_plan_from_json(Plan quick, const std::string& workload_json, const Catalog& catalog);

std::string_view name(Label l);
std::string_view name(Regime r);

} // namespace hwplan
