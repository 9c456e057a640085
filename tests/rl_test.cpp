// rl_test.cpp: RL post-training pools: weight synchronisation by hand, the least-cost split on a made-up
// generation curve by hand, and lesson 004's reasoning-RL example (a 1T MoE on NVL72 racks) planned.
#include "hwplan/rl.h"

#include <gtest/gtest.h>

#include <cmath>

#include "hwplan/catalog_embedded.h"
#include "hwplan/plan.h"

namespace hwplan {

namespace {

const Catalog& catalog() { return embedded_catalog().catalog; }

// A network of 8-device domains joined by 50 GB/s NICs, round latencies.
Network test_network() {
    Network n;
    n.scale_up = {.bytes_per_s = 400e9, .hop_latency_s = 1e-6};
    n.scale_out = {.bytes_per_s = 50e9, .hop_latency_s = 10e-6};
    n.domain_size = 8;
    n.multi_node = true;
    n.launch_latency_s = 5e-6;
    return n;
}

} // namespace

// [SECTION] Weight synchronisation ---------------------------------------------------------------------------

TEST(RlWeightSync, BroadcastOfEachShardByHand) {
    const Network n = test_network();
    // 100 GB of weights, replicas of 4 devices: each rollout device needs a 25 GB shard. Three replicas and the
    // trainer (4 + 12 = 16 devices > one 8-device domain): a chain of 4 ranks across domains, 3 steps, and the
    // shard crosses the 50 GB/s NIC once (pipelined): 5 us + 3 x 10 us + 25e9 / 50e9 = 0.500035 s.
    EXPECT_NEAR(weight_sync_s(100e9, 4, 3, 16, n), 5e-6 + 3 * 10e-6 + 0.5, 1e-12);
    // Both pools inside one domain (2 trainers + 1 replica of 4 = 6 devices): over the 400 GB/s scale-up link.
    EXPECT_NEAR(weight_sync_s(100e9, 4, 1, 6, n), 5e-6 + 1e-6 + 25e9 / 400e9, 1e-12);
    EXPECT_EQ(weight_sync_s(100e9, 4, 0, 6, n), 0.0);
}

// [SECTION] The split --------------------------------------------------------------------------------------

TEST(RlPools, LeastCostSplitByHand) {
    // 64 rollouts per step; a replica of 8 devices generates p rollouts in 100 + 10 p seconds (a fixed decode
    // floor plus a share that grows with the batch); training takes 20 s on 8 trainers; 10 GB of weights.
    // Device-seconds per step for r replicas: (8 + 8r) x (100 + 10 x 64/r + 20 + sync). By hand, without the
    // sync (under 0.2 s): r = 1: 16 x 760 = 12,160; r = 2: 24 x 440 = 10,560; r = 3 (22 each): 32 x 340 = 10,880;
    // r = 4: 40 x 280 = 11,200. The least is r = 2.
    const RlJob job{.rollouts = 64, .weight_bytes = 10e9, .trainer_devices = 8, .replica_devices = 8};
    const RlPools p = size_rl_pools(job, 20.0, test_network(), [](double per) { return 100 + 10 * per; });
    ASSERT_TRUE(p.sized) << p.explanation;
    EXPECT_EQ(p.rollout_replicas, 2);
    EXPECT_EQ(p.rollout_devices, 16);
    EXPECT_DOUBLE_EQ(p.rollouts_per_replica, 32);
    EXPECT_DOUBLE_EQ(p.generation_s, 420);
    EXPECT_NEAR(p.rollout_share, 16.0 / 24, 1e-12);
    // Sync: 10 GB / 8 = 1.25 GB per device, 2 replicas + the trainer across domains: 5 us + 2 x 10 us + 1.25 / 50 s.
    EXPECT_NEAR(p.sync_s, 5e-6 + 2 * 10e-6 + 1.25e9 / 50e9, 1e-12);
    EXPECT_TRUE(p.sync_over_scale_out);
    EXPECT_NEAR(p.step_s, 420 + 20 + p.sync_s, 1e-9);
    EXPECT_EQ(p.splits_searched, 64); // every replica count from 1 to one per rollout
}

TEST(RlPools, ImpossibleRequestsExplain) {
    const Network n = test_network();
    auto gen = [](double per) { return 10 * per; };
    EXPECT_FALSE(size_rl_pools({.rollouts = 0}, 1.0, n, gen).sized);
    const RlPools no_replica = size_rl_pools({.rollouts = 8, .trainer_devices = 8, .replica_devices = 0}, 1.0, n, gen);
    EXPECT_FALSE(no_replica.sized);
    EXPECT_EQ(no_replica.explanation, "one rollout replica does not fit on any device count tried");
    Network desktop = n;
    desktop.multi_node = false;
    const RlPools apart = size_rl_pools({.rollouts = 8, .trainer_devices = 8, .replica_devices = 4}, 1.0, desktop, gen);
    EXPECT_FALSE(apart.sized);
    EXPECT_NE(apart.explanation.find("no scale-out network"), std::string::npos) << apart.explanation;
    const RlPools never = size_rl_pools({.rollouts = 8, .trainer_devices = 8, .replica_devices = 4}, 1.0, n, [](double) { return INFINITY; });
    EXPECT_FALSE(never.sized);
}

// [SECTION] Lesson 004's reasoning RL on a 1T MoE ---------------------------------------------------------------

TEST(RlPools, Lesson004ReasoningRlOnA1TMoe) {
    // Lesson 004 (seed 004), "Post-training and RL": "The same cluster, divided into a trainer pool and a rollout
    // pool. Size the rollout pool like a serving fleet, because generation dominates RL time. Keep weight
    // synchronisation from trainers to generators on the fastest links you have." Worked example 3: "A lab runs
    // RL post-training on a 1T-parameter MoE with long reasoning rollouts. [...] Rollouts on NVL72 racks with
    // wide expert parallelism; trainers on more NVL72 racks; weight sync over the scale-out fabric after every
    // step. Budget most of the GPUs for rollouts."
    const Scenario* s = find_scenario(catalog(), "reasoning-rl-1t-moe");
    ASSERT_NE(s, nullptr);
    const Plan p = plan_from_json(s->workload_json, catalog());
    ASSERT_TRUE(p.issues.empty());
    ASSERT_FALSE(p.candidates.empty());
    const Candidate& c = p.candidates.front();
    ASSERT_EQ(c.device, "gb200-nvl72");
    const RlPools& rl = c.rl;
    ASSERT_TRUE(rl.sized) << rl.explanation;
    // "generation dominates RL time": more than half of every step is generation (the model: about 90 %).
    EXPECT_GT(rl.generation_s, 0.5 * rl.step_s) << rl.explanation;
    EXPECT_GT(rl.generation_s, rl.train_s + rl.sync_s);
    // "Rollouts on NVL72 racks": a rollout replica sits inside one 72-GPU NVLink domain.
    EXPECT_LE(rl.replica_devices, 72);
    // "trainers on more NVL72 racks": the trainer pool spans more than one rack.
    EXPECT_GT(rl.trainer_devices, 72);
    // "Budget most of the GPUs for rollouts": far most of the device-time of a step is rollout work. In device
    // count the least-cost pool is smaller than the trainer's 256: a rollout replica of 16 GB200s runs wide expert
    // parallelism (the lesson's own "Rollouts on NVL72 racks with wide expert parallelism"), whose decode step
    // carries about 9 ms of all-to-all and launch latency whatever its batch, so 16,000 sequential decode steps
    // set a floor under generation that more replicas cannot lower; the trainer pool is the fewest devices the
    // 1T model's training state fits on. The split is derived, not fixed: the replica count with the fewest
    // device-seconds per step of every count tried.
    EXPECT_GT(rl.rollout_devices * rl.generation_s, 5.0 * rl.trainer_devices * rl.train_s) << rl.explanation;
    EXPECT_EQ(rl.splits_searched, 256) << rl.explanation; // every replica count from 1 to one per rollout
    EXPECT_GT(rl.rollout_share, 0.0);
    // "weight sync over the scale-out fabric after every step", by hand: Kimi K2 at BF16 is 1.0264e12
    // parameters x 2 bytes = 2.053 TB (the planner's parameter count from the architecture, shown in the
    // memory breakdown as "1.03 trillion params x 2 bytes"; the model card rounds to 1.04T); each rollout device of a replica of k receives 2.08 TB / k, broadcast along a chain of
    // (replicas + 1) ranks, one per rack, over one 400 Gb/s ConnectX-7 per GPU at the catalog's 0.82 efficiency
    // (41 GB/s): launch 6.05 us + replicas x 12.14 us (dgx-spark-playbooks #103) + shard / 41 GB/s.
    EXPECT_TRUE(rl.sync_over_scale_out);
    const double shard = 1.0264e12 * 2 / rl.replica_devices;
    const double by_hand = 6.05e-6 + rl.rollout_replicas * (30.33e-6 - 6.05e-6) / 2 + shard / (400e9 / 8 * 0.82);
    EXPECT_NEAR(rl.sync_s, by_hand, 0.001 * by_hand); // 0.1 %: the parameter count above has 5 digits
    EXPECT_LT(rl.sync_s, 0.05 * rl.step_s); // the fast fabric keeps it a small share of the step
}

} // namespace hwplan
