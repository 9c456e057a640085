// plan_internal.h (private to the core): the pieces of planning shared between the plan's stage files (plan*.cpp)
// and decide.cpp, flips.cpp; the stages' own shared declarations are in plan_eval.h.
#pragma once
#include <algorithm>
#include <cmath>

#include "hwplan/plan.h"

namespace hwplan {

// A serving workload's sequence shape, its defaults filled in once: the prompt is half the context and the
// output a quarter when not given; an edge device serves one user; the batch is the concurrent users.
struct ServeShape {
    double context, prompt, output, users, batch;
};

inline ServeShape serve_shape(const Workload& w) {
    const auto& s = w.serve;
    ServeShape sh;
    sh.context = s.context_tokens;
    sh.prompt = s.prompt_tokens > 0 ? s.prompt_tokens : std::round(sh.context / 2);
    sh.output = s.output_tokens > 0 ? s.output_tokens : std::round(sh.context / 4);
    sh.users = w.stage == Stage::edge ? 1 : s.concurrent_users;
    sh.batch = s.batch_size > 0 ? s.batch_size : sh.users;
    return sh;
}

inline bool is_training_stage(Stage s) { return s == Stage::finetune || s == Stage::pretrain || s == Stage::rl; }

// Interactive serving at an arrival rate without a number of concurrent users (MLPerf's Server scenario:
// Poisson arrivals, TTFT and TPOT limits, the batch left to the engine): a replica runs the batch with the
// most output tokens/s that still meets the latency targets, each step also carrying the prefill
// of the requests that arrive, so its throughput counts prefill (plan_serving.cpp).
inline bool rate_batch(const Workload& w) {
    auto given = [&](const char* k) { return std::find(w.given.begin(), w.given.end(), k) != w.given.end(); };
    return w.stage == Stage::serve && (w.serve.requests_per_s > 0 || !w.serve.traffic.empty()) && !given("serve.concurrent_users") &&
           !given("serve.batch_size");
}

// Prices every candidate (rented, owned), adds hosted APIs, ranks by cost per useful result and
// writes the recommendation (decide.cpp). A fixed demand (an arrival rate, or concurrent users reading at
// assumption user_read_tokens_per_s) is priced as the fleet that meets it over the tokens demanded.
// words = false: the answer only (the options' numbers, names, feasibility and eliminated_by, their order, the
// candidates' order and the recommendation's found and option); no reasons, cost words, candidate price figures,
// break-even, missing assumptions or decision text, which keep what they held.
void decide(Plan& plan, const Workload& workload, const Catalog& catalog, const AssumptionSet& assumptions, bool words = true);
void isolation_reason(Plan& plan, const Workload& workload); // mixed traffic: the split that fixes the tail

// What would change the answer (flips.cpp): the best option of each kind, the margin to the runner-up, and with
// `replan` the inputs whose change flips the recommendation: utilization (re-decided on the same candidates: only
// prices move), demand (users, requests/s or items: re-planned at a quarter and four times), the deadline.
void add_flips(Plan& plan, const Workload& workload, const Catalog& catalog, const AssumptionSet& assumptions, bool replan);

// The recommendation alone (plan.cpp): every candidate at the typical assumptions, decided, without bands, flips,
// sensitivity, run section or the serving search's ranked points (Candidate::serving stays empty); what a flip or a sensitivity probe re-plans, since it compares answers and typical costs.
// `only`, when given: the candidates are those devices alone (a demand flip's re-plan: devices_that_may_answer).
Plan answer_plan(const Workload& workload, const Catalog& catalog, const AssumptionSet& assumptions, const std::vector<std::string>* only = nullptr);

// The plan's candidate devices that another demand (users, requests/s or items) could make the answer (flips.cpp): all
// but those whose every option is out for a reason the demand does not enter (stage, software, site, licence, data,
// framework, cannot be bought, not for rent, spot for an interactive endpoint: feasibility.cpp, decide_pricing.cpp).
// `stack_may_change`: a re-plan under another software stack (decision.stack), where the stack's own reason (software)
// is not fixed.
std::vector<std::string> devices_that_may_answer(const Plan& plan, bool stack_may_change = false);

// The plan's candidates for `devices`, decided again under `workload` (flips.cpp): the answer and the options' typical
// costs when only a decision input differs (decision.stack, decision.priority, cost.utilization), which no candidate's
// evaluation reads, so the candidates are the plan's own rather than planned again.
Plan redecided_on(const Plan& plan, const Workload& workload, const Catalog& catalog, const AssumptionSet& assumptions,
                  const std::vector<std::string>& devices);

} // namespace hwplan
