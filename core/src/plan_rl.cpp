// plan_rl.cpp: RL jobs' two pools beside the trainer: the rollout pool sized from the serving model (rl.h), and
// the whole job's step, rate, devices and time from both pools.
#include <algorithm>
#include <cmath>

#include "hwplan/format.h"
#include "hwplan/rl.h"
#include "plan_eval.h"

namespace hwplan::plan_detail {

// [SECTION] RL pools ---------------------------------------------------------------------------------------
// The trainer is this candidate's n devices (the fewest the training step fits on); the rollout pool is
// sized with rl.h from the serving model: a replica is the fewest devices (powers of two) that hold the
// weights and one rollout, and it generates its share of the step's rollouts in as many waves as its KV
// cache needs, each wave a prefill per rollout and `output` decode steps at the wave's batch.
RlPools rl_pools(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, const Candidate& trainer) {
    const ServeShape sh = serve_shape(w);
    Workload one = w;
    one.stage = Stage::serve;
    one.serve.concurrent_users = 1;
    one.serve.batch_size = 0;
    one.serve.requests_per_s = 0;
    auto serve_on = [&](int k, double users) {
        Workload x = one;
        x.serve.concurrent_users = users;
        Eval r;
        r.explain = false;
        r.search_batch = false;
        eval_serve(x, cat, d, k, a, r);
        return r.c;
    };
    RlJob job;
    job.rollouts = std::max(1.0, std::ceil(sh.users));
    job.trainer_devices = n;
    job.weight_bytes = weight_bytes(w, cat, w.precision.weights, w.model.params, false).total;
    job.max_devices = 1 << 16;
    job.replica_devices = 0;
    double most_users = 0;
    for (int k = 1; k <= 4096; k *= 2) {
        const Candidate c = serve_on(k, 1);
        if (c.fits && c.figures.count("max_concurrent_users")) {
            job.replica_devices = k;
            most_users = std::floor(c.figures.at("max_concurrent_users").value);
            break;
        }
    }
    // The trainer learns from this step's rollouts: their prompt and output tokens at its tokens per second.
    const double trained_tokens = job.rollouts * (sh.prompt + sh.output);
    const double train_s = trainer.figures.count("train_tokens_per_s") ? trained_tokens / trainer.figures.at("train_tokens_per_s").value : 0;
    auto generation = [&](double per) {
        const double batch = std::max(1.0, std::min(per, most_users));
        const Candidate c = serve_on(job.replica_devices, batch);
        if (!c.fits || !c.figures.count("decode_step_s") || !c.figures.count("ttft_s")) return double(INFINITY);
        const double waves = std::ceil(per / batch);
        return waves * (batch * c.figures.at("ttft_s").value + sh.output * c.figures.at("decode_step_s").value);
    };
    return size_rl_pools(job, train_s, network_of(d, a), generation);
}

// The whole RL job's rate and time from its pools (rl.h: one synchronous step is generation, then
// training, then weight sync, not overlapped): rl_tokens_per_s = the step's trained tokens (rollouts x
// (prompt + output)) / step_s; train_time_s = train.tokens / that rate (steps x step_s), replacing the
// trainer-only time; rl_devices = trainer + rollout devices, the fleet decide.cpp prices. Without sized
// pools the job's time is unknown (evaluate drops the trainer-only time).
void rl_job_figures(const Workload& w, const RlPools& rl, Eval& e) {
    Candidate& c = e.c;
    if (!rl.sized || !(rl.step_s > 0)) return;
    const ServeShape sh = serve_shape(w);
    const double tokens_per_step = std::max(1.0, std::ceil(sh.users)) * (sh.prompt + sh.output);
    const double rate = tokens_per_step / rl.step_s;
    auto step_why = [&] { return format_sig(tokens_per_step, 6) + " trained tokens per step / (generation " + format_sig(rl.generation_s, 3) +
                                 " s + training " + format_sig(rl.train_s, 3) + " s + weight sync " + format_sig(rl.sync_s, 3) + " s)"; };
    c.figures["rl_step_s"] = e.figure(rl.step_s, Label::modelled, [&] { return std::string("generation + training + weight sync, one after another (synchronous, on-policy)"); });
    c.figures["rl_tokens_per_s"] = e.figure(rate, Label::modelled, step_why);
    c.figures["rl_devices"] = e.figure(rl.trainer_devices + rl.rollout_devices, Label::arithmetic, [&] {
        return std::to_string(rl.trainer_devices) + " trainer + " + std::to_string(rl.rollout_devices) + " rollout devices"; });
    if (w.train.tokens > 0)
        c.figures["train_time_s"] = e.figure(w.train.tokens / rate, Label::modelled, [&] {
            return format_sig(w.train.tokens / tokens_per_step, 4) + " RL steps (" + format_sig(w.train.tokens, 4) + " tokens / " +
                   format_sig(tokens_per_step, 6) + " a step) x " + format_sig(rl.step_s, 4) + " s a step"; });
    e.headline = rate;
}

} // namespace hwplan::plan_detail
