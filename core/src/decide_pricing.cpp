// decide_pricing.cpp: every way to get the job done, priced in numbers: each candidate rented (on demand, spot,
// reserved), bought or run on the team's own devices, in whole units, for the load and its spares, per unit of
// useful work; then the hosted APIs. What eliminates an option is recorded as data (Option::eliminated_by), and
// what each was priced from as an OptionPricing, from which the words are written afterwards.
#include <algorithm>
#include <cmath>

#include "decide_internal.h"

namespace hwplan::decide_parts {

namespace {

// Targets the workload set: time to first token (p95 under load when modelled), per-user speed, window, deadline.
void add_missed_targets(std::vector<Elimination>& out, const Candidate& c, const Workload& w) {
    if (is_serving_stage(w.stage) && w.serve.ttft_target_s > 0) {
        const Figure* p95 = fig(c, "p95_ttft_s");
        const Figure* t = p95 ? p95 : fig(c, "ttft_s");
        if (t && !(t->value <= w.serve.ttft_target_s)) out.push_back(Elimination::ttft_target);
    }
    if (is_serving_stage(w.stage) && w.serve.tokens_per_s_per_user_target > 0) {
        const Figure* t = fig(c, "decode_tokens_per_s_per_user");
        if (t && t->value < w.serve.tokens_per_s_per_user_target) out.push_back(Elimination::speed_target);
    }
    if (w.stage == Stage::embed && w.embed.window_s > 0) {
        const Figure* r = fig(c, "window_used_ratio");
        if (r && r->value > 1) out.push_back(Elimination::window);
    }
    if (is_training_stage(w.stage) && w.decision.deadline_days > 0) {
        const Figure* t = fig(c, "train_time_s");
        if (t && t->value > w.decision.deadline_days * 86400) out.push_back(Elimination::deadline);
    }
}

// A cost band from a time band: the price of a device-second times each bound.
Figure priced_time(const Figure& seconds, double usd_per_second) {
    return Figure{seconds.value * usd_per_second, seconds.low * usd_per_second, seconds.high * usd_per_second, Label::modelled, {}};
}

// One candidate's devices priced every way they can be had (the numbers its options share).
CandidatePricing price_candidate(size_t index, const Candidate& c, const Device& d, const Workload& w, const Catalog& cat,
                                 const DecideInputs& in) {
    CandidatePricing cp;
    cp.candidate = index;
    cp.device = &d;
    cp.seconds = seconds_per_unit(c, w, std::max(1.0, in.output_tokens));
    cp.speed = speed_of(c, w);
    cp.latency_s = latency_of(c);
    add_missed_targets(cp.missed, c, w);
    cp.fleet = fleet_devices(c); // the devices priced: both RL pools, else the candidate's count
    // Jobs a week without hours a job: each run lasts the modelled run time on this candidate.
    // (A copy of the workload only then: decide() runs once per re-decided utilization, for every candidate.)
    std::optional<Workload> per_run;
    if (!is_serving_stage(w.stage) && w.usage.jobs_per_week > 0 && w.usage.hours_per_job <= 0 && w.usage.hours_per_month <= 0 &&
        run_seconds(c, w) > 0) {
        per_run = w;
        per_run->usage.hours_per_job = run_seconds(c, w) / 3600;
    }
    const Workload& wc = per_run ? *per_run : w;
    cp.hours_used = hours_used_per_month(wc.usage);
    cp.hours = in.workload_hours > 0 ? in.workload_hours : cp.hours_used;
    const Figure* throughput = fig(c, "throughput_tokens_per_s");
    const double tput = throughput ? throughput->value : 0;
    // Output tokens/s one replica sustains with each request's prefill counted (and its band), for an
    // arrival rate; users held at once are one replica (the count was chosen to fit them).
    const auto& seconds = cp.seconds;
    cp.capacity = seconds && seconds->value > 0 ? 1e6 / seconds->value : tput;
    cp.capacity_fast = seconds && seconds->low > 0 ? 1e6 / seconds->low : cp.capacity;
    cp.capacity_slow = seconds && seconds->high > 0 ? 1e6 / seconds->high : cp.capacity;
    cp.demand_rate = in.demand.from_users ? 0 : in.demand.tokens_per_s;
    // Replicas: enough copies of the candidate for the load (when an arrival rate is given), each copy being the
    // candidate's own replicas (users split over single-device replicas, plan.cpp choose_count; a given count's
    // split), plus the spares for redundancy.
    cp.split = !c.rl.sized && is_serving_stage(w.stage) && c.layout.data_parallel > 1 && cp.fleet % c.layout.data_parallel == 0
                   ? c.layout.data_parallel : 1;
    cp.per_replica = cp.fleet / cp.split;
    // The queue's own count (plan_serving.cpp: the fewest replicas whose p95 time to first token meets the target) when larger.
    const Figure* queue = fig(c, "replicas_for_rate");
    cp.queue_replicas = queue ? int(queue->value) : 1;
    const double rate = cp.demand_rate;
    cp.replicas_needed = rate > 0 && cp.capacity > 0 ? std::max({1.0, double(cp.queue_replicas), std::ceil(rate / cp.capacity)}) : 1.0;
    cp.load_replicas = int(std::min(cp.replicas_needed, double(kMostReplicas))); // counted in double: reported, not overflowed
    cp.needed = cp.load_replicas * cp.split;
    // Bought and rented devices come in whole units (an 8-device server or instance, a rack): the one count
    // the price, the name, the budget and the notes read (cost.h units_to_buy, units_to_rent). With spares the
    // units are enough that `spares` of them can fail with the load still served (docs/workload.md, redundancy
    // "n+1"; lesson 004: "two give redundancy"). The team's own devices are counted per device.
    // Inside a named cloud only its own offers can be rented (decision.site "aws", "gcp", "azure").
    cp.rented = units_to_rent(d, w.cost, PriceKind::cloud_on_demand, cp.per_replica, cp.needed, in.spares, in.cloud, in.words);
    cp.rented_spot = units_to_rent(d, w.cost, PriceKind::cloud_spot, cp.per_replica, cp.needed, in.spares, in.cloud, in.words);
    cp.rented_reserved = units_to_rent(d, w.cost, PriceKind::cloud_reserved, cp.per_replica, cp.needed, in.spares, in.cloud, in.words);
    // A reservation is paid every hour of its term: per hour actually used it costs rate x 730 / hours used.
    cp.reserved = cp.rented_reserved.price;
    const double used = is_serving_stage(w.stage) ? kHoursPerMonth : cp.hours_used;
    if (cp.reserved.available && used > 0 && used < kHoursPerMonth) {
        cp.reserved_part_time = true;
        cp.reserved.usd_per_hour *= kHoursPerMonth / used;
    }
    cp.own = own_cost(d, wc, cat.defaults, in.words);
    // Devices the team already has: planned on first when the job fits them (issue 18, hardware.owned).
    for (const auto& od : w.hardware.owned)
        if (od.device == c.device) cp.owned_count = od.count;
    if (cp.owned_count > 0) cp.owned = owned_cost(d, wc, cat.defaults, in.words);
    return cp;
}

// The fleet for `copies` copies of the candidate paid `way`: whole units bought or rented, spares included; the
// team's own devices one by one, with `spares` spare replicas.
PurchaseUnits fleet_for(const CandidatePricing& cp, Way way, int copies, int spares) {
    const int n = copies * cp.split;
    if (way == Way::own) return units_to_buy(*cp.device, cp.per_replica, n, spares);
    const RentalUnits* rental = way == Way::rent ? &cp.rented : way == Way::spot ? &cp.rented_spot : way == Way::reserved ? &cp.rented_reserved : nullptr;
    if (rental) return whole_units(rental->units.devices_per_unit, cp.per_replica, n, spares);
    PurchaseUnits each = whole_units(1, cp.per_replica, n + spares);
    each.spare_units = spares;
    return each;
}

const char* kind_of(Way way) {
    switch (way) {
    case Way::owned: return "owned";
    case Way::own: return "own";
    case Way::rent: return "rent";
    case Way::spot: return "rent_spot";
    case Way::reserved: return "rent_reserved";
    }
    return "";
}

// One way of paying for one candidate: the option's numbers, its name, and why it is out.
void price_option(Priced& priced, size_t pricing_index, Way way, const Candidate& c, const Workload& w, const Catalog& cat,
                  const DecideInputs& in, bool& rentals_mostly_startup) {
    const CandidatePricing& cp = priced.candidates[pricing_index];
    const Device& d = *cp.device;
    const HourlyCost& hc = price_of(cp, way);
    const bool owning = way == Way::own || way == Way::owned;
    const RentalUnits* rental = way == Way::rent ? &cp.rented : way == Way::spot ? &cp.rented_spot : way == Way::reserved ? &cp.rented_reserved : nullptr;
    const int spares = in.spares;
    Option o;
    OptionPricing r;
    r.pricing = pricing_index;
    r.way = way;
    o.kind = kind_of(way);
    o.device = c.device;
    r.bought = way == Way::own ? units_to_buy(d, cp.per_replica, cp.needed, spares)
               : rental && rental->usd_per_hour >= 0 ? rental->units : fleet_for(cp, way, cp.load_replicas, spares);
    const PurchaseUnits& bought = r.bought;
    r.in_units = bought.devices_per_unit > 1;
    r.replicas = bought.replicas; // placed: the load's and the spares'
    const int replicas = r.replicas;
    o.count = fleet_for(cp, way, cp.load_replicas, spares).devices_bought;
    o.replicas = replicas;
    o.speed = cp.speed;
    o.latency_s = cp.latency_s;
    o.power_w = d.tdp_w > 0 ? d.tdp_w * o.count : 0;
    o.power_draw_w = lowest_power_w(d) * cp.per_replica * replicas;
    // "2 x 8-device servers", "1 x GB200 NVL72": what is bought, when a unit is more than one device.
    r.units_words = r.in_units ? units_phrase(bought) : "";
    const std::string replicas_words =
        replicas > 1 ? std::to_string(replicas) + " replicas of " + std::to_string(cp.per_replica) + (spares > 0 ? ", N+" + std::to_string(spares) : "")
        : r.in_units && bought.devices_idle > 0 ? std::to_string(cp.per_replica) + " used"
                                                 : "";
    r.layout_words = r.units_words.empty() ? replicas_words : replicas_words.empty() ? r.units_words : r.units_words + ": " + replicas_words;
    if (in.words) o.fleet = std::to_string(o.count) + (r.layout_words.empty() ? "" : " (" + r.layout_words + ")"); // shown only
    if (in.words) o.name = option_name(way, o.count, c.device_name, r.layout_words);
    o.unit = in.unit;

    // What eliminates it, in the order its reasons are listed (decide_option_words.cpp writes them).
    std::vector<Elimination>& out = o.eliminated_by;
    out = eliminated_by(d, w, owning ? "own" : o.kind, cp.fleet, in.level, cp.per_replica);
    // The power budget (decision.power_budget_w): the devices that run, replicas x a replica's devices, at their
    // lowest published power; devices bought or rented with a whole unit and left idle are off.
    if (over_power_budget(d, w, cp.per_replica * replicas)) out.push_back(Elimination::power_budget);
    if (!c.fits) out.push_back(Elimination::fit);
    if (way == Way::own && !d.can_buy) out.push_back(Elimination::cannot_buy);
    if (way == Way::owned && o.count > cp.owned_count) out.push_back(Elimination::owned_short);
    // The one-off budget (decision.purchase_budget_usd): the whole units bought, at list price; with devices
    // already owned (hardware.owned), the whole units that buy the rest.
    if (way == Way::own && w.decision.purchase_budget_usd > 0 && bought.usd > 0) {
        const int rest = std::max(0, bought.devices_needed - cp.owned_count);
        r.to_buy = cp.owned_count <= 0 ? bought : rest > 0 ? units_to_buy(d, rest) : PurchaseUnits{.usd = 0};
        if (r.to_buy.usd > w.decision.purchase_budget_usd) out.push_back(Elimination::purchase_budget);
    } else if (way == Way::own && w.decision.purchase_budget_usd > 0 && d.can_buy && bought.devices_needed > cp.owned_count) {
        // No public purchase price: what it would cost cannot be held against the budget, so it is not
        // ranked as if it fitted (issue 19: never an unpriced option above a priced one without saying so).
        out.push_back(Elimination::purchase_budget);
    }
    if (!owning && !d.can_rent) out.push_back(Elimination::not_for_rent);
    // An owned job that runs now and then costs its purchase spread over the hours it is used;
    // without those hours (or a utilization) the owned price per result is unknown.
    if ((way == Way::own || way == Way::reserved) && hc.available && !is_serving_stage(w.stage) && cp.hours_used <= 0 && w.cost.utilization <= 0)
        out.push_back(Elimination::no_usage);
    if (way == Way::spot && w.stage == Stage::serve) out.push_back(Elimination::interruptible);
    if (!w.framework.empty() && std::find(d.software.begin(), d.software.end(), framework_runtime(w.framework)) == d.software.end())
        out.push_back(Elimination::framework);
    out.insert(out.end(), cp.missed.begin(), cp.missed.end());
    if (cp.replicas_needed > kMostReplicas) out.push_back(Elimination::replicas);
    // A fixed demand of users is met only by a fleet that streams each as fast as they read: the serving search
    // splits the users over as many replicas as that takes (plan.cpp choose_count), so a candidate still slower
    // is one no fleet of the device meets: out, with no unit cost (its fleet's price would be for less than the
    // demand). A fleet that meets the demand but not as asked (a 16-bit compute path for FP8, a local runtime
    // instead of a batching engine, tensor parallel over a slow link) stays an option (lesson 004: "If budget is
    // tight, RTX PRO 6000 ... are an option, at lower decode speed") and ranks after every option without a
    // compromise, whatever its price; its reasons say so.
    const Demand& demand = in.demand;
    if (demand.tokens_per_s > 0 && w.stage == Stage::serve) {
        if (demand.from_users && w.serve.tokens_per_s_per_user_target <= 0 && o.speed > 0 && o.speed < demand.per_user_tokens_per_s) {
            r.no_fleet = true;
            out.push_back(Elimination::demand);
        }
        r.fp8_at_16_bits = computes_fp8_at_16_bits(d, w.precision.compute);
        r.local_runtime = local_device(d) && demand.from_users && w.serve.concurrent_users > 1;
        // Tensor parallel all-reduces every layer of every decode step; pipeline stages pass one activation between
        // them, so only the tensor-parallel group must sit inside a fast domain (issue 11).
        r.tp_outside_domain = c.layout.tensor_parallel > std::max(1, d.domain_size);
        // A server processor is sold as the socket alone: the catalog's CPU purchase prices are the chip's (AMD's 1kU
        // tray price), while its memory capacity is the most the socket addresses with DIMMs bought separately
        // (catalog/devices/epyc-9654.json notes: "up to 6 TB per socket ... 24 x 256 GB"). Owning a fleet of them
        // prices neither the memory the plan puts on each nor the server around it, so the unit cost is a lower bound
        // and, like the other compromises, ranks after every option fully priced. Every other device kind is sold
        // with its memory (a card, a module, a Mac, a system).
        r.memory_unpriced = owning && d.kind == DeviceKind::cpu;
    }

    // The unit cost.
    const auto& seconds = cp.seconds;
    if (hc.available && seconds && demand.tokens_per_s > 0) {
        // Fixed demand: the fleet that meets it, paid every hour, over the output tokens demanded (not
        // over what the devices could produce at full load).
        auto per_million = [&](int replicas_n, double tokens_per_s) {
            return hc.usd_per_hour * fleet_for(cp, way, replicas_n, spares).devices_bought / (tokens_per_s * 3600) * 1e6;
        };
        auto replicas_for = [&](double cap) {
            const double n = cp.demand_rate > 0 && cap > 0 ? std::max({1.0, double(cp.queue_replicas), std::ceil(cp.demand_rate / cap)}) : 1.0;
            return int(std::min(n, double(kMostReplicas)));
        };
        o.cost.value = per_million(cp.load_replicas, demand.tokens_per_s);
        o.cost.low = per_million(replicas_for(cp.capacity_fast), demand.high_tokens_per_s);
        o.cost.high = per_million(replicas_for(cp.capacity_slow), demand.low_tokens_per_s);
        o.cost.label = Label::modelled;
        o.usd_per_month = hc.usd_per_hour * o.count * cp.hours;
    } else if (hc.available && seconds) {
        // Every device paid for (spare replicas, the idle part of a whole server) over those doing the work.
        r.factor = double(o.count) / (double(cp.fleet) * cp.load_replicas);
        // A rented batch or training run is billed from start-up to the end of its last increment.
        r.run_s = run_seconds(c, w);
        if (!owning && !is_serving_stage(w.stage) && r.run_s > 0 && way != Way::reserved) {
            r.increment_s = hc.billing_increment_s > 0 ? hc.billing_increment_s : cat.defaults.rental_billing_increment_s;
            r.billed_s = billed_seconds(r.run_s, cat.defaults, r.increment_s);
            if (r.run_s > r.billed_s / 2) rentals_mostly_startup = false;
            r.factor *= r.billed_s / r.run_s;
        }
        o.cost = priced_time(*seconds, hc.usd_per_hour * cp.fleet / 3600.0 * r.factor);
        if (r.billed_s > 0 && in.runs_per_month > 0) o.usd_per_month = in.runs_per_month * r.billed_s / 3600 * hc.usd_per_hour * o.count;
        else if (cp.hours > 0) o.usd_per_month = hc.usd_per_hour * o.count * cp.hours;
    }
    if (w.decision.budget_usd_per_month > 0) {
        r.usd_per_month_checked = o.usd_per_month;
        if (o.usd_per_month < 0 || o.usd_per_month > w.decision.budget_usd_per_month) out.push_back(Elimination::budget);
    }
    if (r.no_fleet) { // no unit cost for a fleet that cannot meet the demand
        o.cost = Figure{};
        o.usd_per_month = -1;
    }
    o.feasible = out.empty();
    if (o.feasible) {
        r.ranks_compromised = r.compromised();
        r.small_on_cpu = d.kind == DeviceKind::cpu && w.stage == Stage::embed && run_seconds(c, w) > 0 && run_seconds(c, w) <= cat.defaults.rental_startup_s;
    }
    priced.options.push_back(std::move(o));
    priced.records.push_back(std::move(r));
}

// Hosted APIs serving the same model: priced per token, nothing to fit or operate.
void price_apis(Priced& priced, const Workload& w, const Catalog& cat, const DecideInputs& in) {
    if (!((is_serving_stage(w.stage) || w.stage == Stage::embed) && w.model.from_catalog)) return;
    const double prompt = w.serve.prompt_tokens > 0 ? w.serve.prompt_tokens : std::round(w.serve.context_tokens / 2);
    for (size_t i = 0; i < cat.apis.size(); ++i) {
        const ApiPrice& api = cat.apis[i];
        if (api.model != w.model.model.id) continue;
        Option o;
        OptionPricing r;
        r.pricing = i;
        r.api = true;
        r.api_prompt_tokens = prompt;
        o.kind = "api";
        o.name = api.provider + " " + api.model_name;
        o.unit = in.unit;
        if (w.stage == Stage::embed) {
            // Per 1,000 items: their tokens at the input price.
            const double v = 1000 * w.embed.tokens_per_item * api.input_usd_per_token;
            o.cost = Figure{v, v, v, Label::arithmetic, {}};
            if (in.runs_per_month > 0 && w.embed.items > 0) o.usd_per_month = v * w.embed.items / 1000 * in.runs_per_month;
        } else {
            const double per_request = prompt * api.input_usd_per_token + in.output_tokens * api.output_usd_per_token;
            const double v = per_request / in.output_tokens * 1e6;
            o.cost = Figure{v, v, v, Label::arithmetic, {}};
            if (in.demand.tokens_per_s > 0) o.usd_per_month = v / 1e6 * in.demand.tokens_per_s * in.workload_hours * 3600;
        }
        std::vector<Elimination>& out = o.eliminated_by;
        out = api_eliminated_by(w);
        if (api.context_tokens > 0 && is_serving_stage(w.stage) && w.serve.context_tokens > api.context_tokens) out.push_back(Elimination::context);
        if (!w.framework.empty()) out.push_back(Elimination::framework);
        if (w.decision.budget_usd_per_month > 0 && o.usd_per_month > w.decision.budget_usd_per_month) {
            r.usd_per_month_checked = o.usd_per_month;
            out.push_back(Elimination::budget);
        }
        o.feasible = out.empty();
        priced.options.push_back(std::move(o));
        priced.records.push_back(std::move(r));
    }
}

} // namespace

Priced price_options(Plan& p, const Workload& w, const Catalog& cat, const DecideInputs& in) {
    Priced priced;
    priced.candidates.reserve(p.candidates.size());
    priced.options.reserve(5 * p.candidates.size() + cat.apis.size()); // at most five ways per candidate, and the APIs
    priced.records.reserve(5 * p.candidates.size() + cat.apis.size());
    // Lesson 003's CPU row: "Start here when the model is small or latency is loose." An embedding job (a batch job
    // with a run time) that one CPU finishes in less time than a rented GPU is billed to start (defaults rental_startup_s) is a small
    // job: its CPU options rank first under the unit_cost and simplest priorities, whatever the GPUs' prices (by name).
    bool rentals_mostly_startup = true; // every rented run priced is billed mostly for start-up (its work under half the bill)
    for (size_t i = 0; i < p.candidates.size(); ++i) {
        const Candidate& c = p.candidates[i];
        const Device* d = cat.device_by_id(c.device);
        if (!d) continue;
        priced.candidates.push_back(price_candidate(i, c, *d, w, cat, in));
        const CandidatePricing& cp = priced.candidates.back();
        std::vector<Way> ways{Way::rent, Way::own};
        if (cp.owned_count > 0) ways.insert(ways.begin(), Way::owned);
        if (cp.rented_spot.price.available) ways.push_back(Way::spot);  // interruptible: for retryable batch work
        if (cp.reserved.available) ways.push_back(Way::reserved);       // a 1-3 year commitment
        for (const Way way : ways) price_option(priced, priced.candidates.size() - 1, way, c, w, cat, in, rentals_mostly_startup);
    }
    price_apis(priced, w, cat, in);
    // The CPU rule holds only for a job so small that every rented device would be billed mostly to start up: where
    // some rental does more work than start-up (lesson 003's nightly 50,000 chunks: "spot or scheduled GPU jobs for
    // embeddings"), the GPUs compete on price as usual.
    if (!rentals_mostly_startup)
        for (OptionPricing& r : priced.records) r.small_on_cpu = false;
    return priced;
}

std::string option_name(Way way, int count, const std::string& device_name, const std::string& layout_words) {
    return (way == Way::spot ? std::string("rent (spot)") : way == Way::reserved ? std::string("rent (reserved)") : way == Way::owned ? std::string("use owned") : kind_of(way)) +
           " " + std::to_string(count) + " x " + device_name + (layout_words.empty() ? "" : " (" + layout_words + ")");
}

} // namespace hwplan::decide_parts
