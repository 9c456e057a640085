// rl.cpp: RL post-training pools: weight synchronisation and the trainer/rollout split (sources in rl.h).
#include "hwplan/rl.h"

#include <cmath>
#include <map>

#include "hwplan/format.h"

namespace hwplan {

double weight_sync_s(double weight_bytes, int replica_devices, int replicas, int total_devices, const Network& net) {
    if (weight_bytes <= 0 || replicas <= 0) return 0;
    const double shard = weight_bytes / std::max(1, replica_devices);
    const bool one_domain = total_devices <= net.domain_size;
    const Group g{replicas + 1, one_domain ? replicas + 1 : 1};
    return broadcast_time_s(shard, g, net);
}

namespace {

std::string secs(double s) { return format_sig(s, 3) + " s"; }

} // namespace

RlPools size_rl_pools(const RlJob& job, double train_s, const Network& net, const GenerationTime& generation_s) {
    RlPools out;
    out.trainer_devices = job.trainer_devices;
    out.replica_devices = job.replica_devices;
    out.train_s = train_s;
    auto fail = [&](std::string why) {
        out.explanation = std::move(why);
        return out;
    };
    if (!(job.rollouts >= 1)) return fail("rl.rollouts must be at least 1 sequence per step");
    if (job.trainer_devices < 1) return fail("the trainer pool does not fit on any device count tried");
    if (job.replica_devices < 1) return fail("one rollout replica does not fit on any device count tried");
    if (!std::isfinite(train_s) || train_s <= 0) return fail("the training step time is not known (no published peak at this precision)");
    const int k = job.replica_devices, t = job.trainer_devices;
    const int most = int(std::min<double>(std::ceil(job.rollouts), double(job.max_devices - t) / k));
    if (most < 1) return fail("no room for a rollout replica of " + std::to_string(k) + " devices beside " + std::to_string(t) + " trainers");
    if (!net.multi_node && t + k > net.domain_size)
        return fail("no scale-out network is recorded for this device, so the pools cannot sit in separate domains");
    std::map<double, double> memo; // rollouts per replica -> generation time (many replica counts share one)
    double best_cost = INFINITY;
    for (int r = 1; r <= most; ++r) {
        const int total = t + r * k;
        if (!net.multi_node && total > net.domain_size) break;
        const double per = std::ceil(job.rollouts / r);
        auto it = memo.find(per);
        const double gen = it != memo.end() ? it->second : (memo[per] = generation_s(per));
        ++out.splits_searched;
        if (!std::isfinite(gen)) continue;
        const double sync = weight_sync_s(job.weight_bytes, k, r, total, net);
        const double step = gen + train_s + sync;
        const double cost = total * step;
        if (r * k > t && (out.lesson_rollout_devices == 0 || cost < out.lesson_device_s_per_step)) {
            out.lesson_rollout_devices = r * k;
            out.lesson_step_s = step;
            out.lesson_device_s_per_step = cost;
        }
        if (cost < best_cost * (1 - 1e-12) || (cost <= best_cost && step < out.step_s)) {
            best_cost = cost;
            out.rollout_replicas = r;
            out.rollouts_per_replica = per;
            out.generation_s = gen;
            out.sync_s = sync;
            out.step_s = step;
            out.sync_over_scale_out = total > net.domain_size;
        }
    }
    if (out.rollout_replicas == 0) return fail("no rollout replica of " + std::to_string(k) + " devices can generate its rollouts");
    out.sized = true;
    out.rollout_devices = out.rollout_replicas * k;
    const int total = t + out.rollout_devices;
    out.rollout_share = double(out.rollout_devices) / total;
    out.device_s_per_step = total * out.step_s;
    out.sync_bytes_per_device = job.weight_bytes / k;
    const Link& link = out.sync_over_scale_out ? net.scale_out : net.scale_up;
    out.explanation = std::to_string(t) + " trainer + " + std::to_string(out.rollout_devices) + " rollout devices (" +
                      std::to_string(out.rollout_replicas) + " replicas of " + std::to_string(k) + "; " +
                      format_sig(100 * out.rollout_share, 3) + " % for rollouts): step " + secs(out.step_s) + " = generation " +
                      secs(out.generation_s) + " + training " + secs(train_s) + " + weight sync " + secs(out.sync_s);
    out.reasons.push_back("generation takes " + format_sig(100 * out.generation_s / out.step_s, 3) + " % of the step (" +
                          format_sig(out.rollouts_per_replica, 6) + " rollouts per replica): rollouts are decode, so the rollout pool is sized like a serving fleet");
    out.reasons.push_back("rollout replica: " + std::to_string(k) + " devices, the fewest that hold the weights and a rollout's KV cache; " +
                          std::to_string(out.rollout_replicas) + " of them cost the fewest device-seconds per step of the " +
                          std::to_string(out.splits_searched) + " replica counts tried (" + format_sig(out.device_s_per_step / 3600, 4) + " device-hours)");
    out.reasons.push_back("trainer pool: " + std::to_string(t) + " devices, the fewest the training step fits on");
    out.reasons.push_back("weight sync after every step: " + format_bytes(out.sync_bytes_per_device) + " per rollout device over the " +
                          (out.sync_over_scale_out ? "scale-out network (the pools span domains)" : "scale-up link (both pools in one domain)") + " at " +
                          format_sig(link.bytes_per_s / 1e9, 3) + " GB/s: " + secs(out.sync_s));
    return out;
}

} // namespace hwplan
