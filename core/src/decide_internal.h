// decide_internal.h (private to the decide files): what pricing, ranking and the words share. Pricing
// (decide_pricing.cpp) turns candidates into options and records the numbers each was priced from; ranking
// (decide_ranking.cpp) orders them; the words (decide_option_words.cpp, decide_explain.cpp) are written from those
// records afterwards, and only when asked: a re-decision compares options by their numbers alone.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hwplan/cost.h"
#include "hwplan/feasibility.h"
#include "plan_internal.h"

namespace hwplan::decide_parts {

// [SECTION] what a decision reads from a candidate and the workload (decide_figures.cpp) ----------------------------

std::string unit_of(const Workload& w);                             // the useful result each stage is priced in
const Figure* fig(const Candidate& c, std::string_view key);       // a candidate's figure, nullptr when absent
// Device-seconds of work per unit of useful result, banded (value, low, high; no words); empty when not modelled.
std::optional<Figure> seconds_per_unit(const Candidate& c, const Workload& w, double output_tokens_per_request);
double speed_of(const Candidate& c, const Workload& w);             // the figure the per_user_speed priority ranks by
double latency_of(const Candidate& c);                              // p95 time to first token where modelled, else ttft_s; 0 unknown
int fleet_devices(const Candidate& c);                              // devices one replica pays for (both RL pools)
double run_seconds(const Candidate& c, const Workload& w);          // seconds of work in one run; 0 when not modelled
bool workload_gives(const Workload& w, const std::string& key);
bool local_device(const Device& d);                                 // planned with a llama.cpp-style local runtime
bool computes_fp8_at_16_bits(const Device& d, const std::string& compute);
std::string units_phrase(const PurchaseUnits& u);                   // "2 x 8-device servers", "1 x GB200 NVL72"

constexpr int kMostReplicas = 1000000; // replicas of one option the pricing counts; more is reported as out of scale

// What a serving workload asks for, when it fixes it: an arrival rate (any serving stage), or, for interactive
// serving, a number of concurrent users who each read the streamed answer at a fixed pace.
struct Demand {
    double tokens_per_s = 0;          // output tokens a second demanded; 0: the demand is not fixed
    double low_tokens_per_s = 0;      // across the reading pace's range (users); equal to tokens_per_s for a rate
    double high_tokens_per_s = 0;
    double per_user_tokens_per_s = 0; // users: the speed each must get (their target, else the reading pace); 0 for a rate
    bool from_users = false;
    std::string why;                  // written by demand_words
};
Demand fixed_demand(const Workload& w, const AssumptionSet& as, double output_tokens);
std::string demand_words(const Demand& d, const Workload& w, double output_tokens);

// The decision's inputs, read once from the workload and the catalog.
struct DecideInputs {
    std::string unit;            // unit_of(w)
    double output_tokens = 0;    // a request's output tokens (a quarter of the context when not given)
    Demand demand;
    double workload_hours = 0;   // hours a month the workload uses (serving: all of them); 0 unknown
    double runs_per_month = 0;   // jobs a week x 52 / 12
    int spares = 0;              // spare units (decision.redundancy)
    ScaleLevel level;            // lesson 004's size step
    std::string site;            // decision.site
    std::string cloud;           // the named cloud only its own offers are rented in ("aws", "gcp", "azure"), else ""
    bool words = true;           // the prices' words too (their basis and terms, read by the option's words)
};
DecideInputs decide_inputs(const Workload& w, const Catalog& cat, const AssumptionSet& as, bool words);

// [SECTION] pricing (decide_pricing.cpp) -------------------------------------------------------------------------

// One candidate's devices, every way of paying for them: what its options share.
struct CandidatePricing {
    size_t candidate = 0;              // index into Plan::candidates as decide() received them
    const Device* device = nullptr;
    std::optional<Figure> seconds;     // seconds_per_unit
    double speed = 0;                  // speed_of: what the per_user_speed priority ranks by
    double latency_s = 0;              // latency_of
    std::vector<Elimination> missed;   // the targets it misses (ttft_target, speed_target, window, deadline), in that order
    int fleet = 0;                     // devices one copy pays for (both RL pools, else the count)
    int split = 1;                     // the candidate's own replicas (users split over single-device replicas)
    int per_replica = 0;               // devices of one replica
    int load_replicas = 1;             // copies of the candidate the load needs
    int needed = 1;                    // replicas the load needs (load_replicas x split)
    double hours = 0;                  // hours a month priced
    double hours_used = 0;             // hours a month used (this candidate's run time for jobs a week without hours)
    double capacity = 0;               // output tokens/s one replica sustains (prefill counted), and its band
    double capacity_fast = 0, capacity_slow = 0;
    double demand_rate = 0;            // an arrival rate's output tokens/s (0 for users)
    double replicas_needed = 1;        // copies the rate needs, uncapped (above kMostReplicas: out of scale)
    int queue_replicas = 1;            // the queue's own count (plan_serving.cpp replicas_for_rate) when larger
    RentalUnits rented, rented_spot, rented_reserved;
    HourlyCost reserved;               // rented_reserved's price per hour used
    bool reserved_part_time = false;   // a reservation paid for all 730 hours a month and used fewer
    HourlyCost own, owned;
    int owned_count = 0;               // the team's own devices of this kind (hardware.owned)
};

enum class Way { owned, own, rent, spot, reserved };

// The hourly price a way of paying takes from a candidate's pricing.
inline const HourlyCost& price_of(const CandidatePricing& cp, Way way) {
    switch (way) {
    case Way::owned: return cp.owned;
    case Way::own: return cp.own;
    case Way::rent: return cp.rented.price;
    case Way::spot: return cp.rented_spot.price;
    case Way::reserved: return cp.reserved;
    }
    return cp.own;
}

// How one option was priced: the numbers its reasons, cost terms and cost.why are written from.
struct OptionPricing {
    size_t pricing = 0;                // index into Priced::candidates; for an API, into Catalog::apis
    bool api = false;
    Way way = Way::rent;
    PurchaseUnits bought;              // the whole units bought or rented, spares included
    bool in_units = false;             // a unit is more than one device
    int replicas = 1;                  // replicas placed on them
    std::string units_words;           // "2 x 8-device servers" (in_units), as the name says it
    std::string layout_words;          // the name's parenthesis
    PurchaseUnits to_buy;              // the purchase held against decision.purchase_budget_usd
    double usd_per_month_checked = -1; // the month held against decision.budget_usd_per_month
    double billed_s = 0;               // a rented run's billed seconds (0: not billed per run)
    double run_s = 0;                  // its seconds of work
    double increment_s = 0;            // the billing increment used
    double factor = 1;                 // devices paid for over devices working, x billed over worked
    double api_prompt_tokens = 0;      // an API request's prompt tokens
    bool no_fleet = false;             // no fleet of it meets the users' demand
    bool fp8_at_16_bits = false;       // compromises: FP8 weights at 16-bit compute,
    bool local_runtime = false;        // a local runtime for many users,
    bool tp_outside_domain = false;    // tensor parallel over a slow link,
    bool memory_unpriced = false;      // a purchase priced as the processor alone, its memory and server left out
    bool compromised() const { return fp8_at_16_bits || local_runtime || tp_outside_domain || memory_unpriced; }
    bool ranks_compromised = false;    // feasible and compromised: ranks after every option without a compromise
    bool small_on_cpu = false;         // feasible, a CPU, and the job too small for a rented GPU (price_options)
};

// What lesson 004's order reads of an option beyond its own numbers (decide_ranking.cpp), looked up once per option.
struct RankKey {
    // Its compromises (OptionPricing's flags, for a feasible option only): the words of the step name them.
    bool fp8_at_16_bits = false, local_runtime = false, tp_outside_domain = false, memory_unpriced = false;
    bool compromised = false, small_on_cpu = false, home = false, in_domain = true;
    int domain = 0;         // the device's fast scale-up domain (0 for an API)
    double memory = 0;      // the device's memory, bytes (0 for an API)
};

// The step of lesson 004's order at which one option goes before another (decide_ranking.cpp rank_step): the
// ranking is these steps in this order, and the words say why an option ranks where it does from the step.
enum class RankStep { none, feasible, owned, compromise, small_on_cpu, home, domain, speed, latency, api, in_domain, count, power, cost, speed_tie, memory };

struct Priced {
    std::vector<Option> options;             // every device option, then the APIs
    std::vector<OptionPricing> records;      // one per option, in the same order
    std::vector<RankKey> keys;               // one per option, in p.options' order once ranked (rank_options)
    std::vector<CandidatePricing> candidates;
};

// An option's name: "rent 2 x NVIDIA H200 (2 replicas of 1)". Written for every option when the decision has words,
// else for the answer alone once ranked (rank_options): a re-decision reads no other option's name.
std::string option_name(Way way, int count, const std::string& device_name, const std::string& layout_words);

Priced price_options(Plan& p, const Workload& w, const Catalog& cat, const DecideInputs& in);

// [SECTION] ranking (decide_ranking.cpp) -------------------------------------------------------------------------

// Lesson 004's order: feasible first, owned first, then the user's priority and the price; moves the options into
// p.options and orders the candidates as their first options.
void rank_options(Plan& p, Priced& priced, const Workload& w, const Catalog& cat, const DecideInputs& in);
// The first step of the order at which a and b differ (RankStep::none: equal at every step); `a_first` says which goes first there.
RankStep rank_step(const Option& a, const Option& b, const RankKey& ka, const RankKey& kb, Priority prio, bool largest_domain, bool& a_first);
bool own_accelerator(const Option& o, const Catalog& cat, const std::string& site);  // the named cloud's own silicon
bool in_fast_domain(const Option& o, const Plan& p, const Workload& w, const Catalog& cat);

// [SECTION] words (decide_option_words.cpp, decide_explain.cpp) --------------------------------------------------

void missing_inputs_words(Plan& p, const Workload& w, const DecideInputs& in);
// Every option's reasons, cost.why and cost terms, and its candidate's price figures and break-even, before ranking.
void option_words(Plan& p, Priced& priced, const Workload& w, const Catalog& cat, const DecideInputs& in);
// The decision and the recommendation in words, after ranking.
void explain_decision(Plan& p, const Priced& priced, const Workload& w, const Catalog& cat, const DecideInputs& in);

} // namespace hwplan::decide_parts
