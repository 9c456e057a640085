// hwplan/parallel.h: scale-out training. The network of a device (its fast scale-up domain and the NICs
// that join domains), the cost of collectives over it (alpha-beta), and an exhaustive search over training
// layouts: data x tensor (inside the fast domain) x context x pipeline (1F1B, optionally interleaved) x expert
// parallelism, ZeRO stage, micro-batch and recomputation, at a fixed global batch. Pure functions.
// Usage: Network net = network_of(device, assumptions);
//        double t = allreduce_time_s(bytes, {.size = 64, .inside = 8}, net);
//        LayoutSearch s = search_layouts(job, cluster, assumptions);  s.layouts.front() is the fastest that fits
#pragma once
#include <string>
#include <vector>

#include "hwplan/assumptions.h"
#include "hwplan/device.h"
#include "hwplan/memory.h"
#include "hwplan/model.h"
#include "hwplan/workload.h"

namespace hwplan {

// [SECTION] Network ------------------------------------------------------------------------------------
// One alpha-beta model for every collective in the planner: tensor-parallel all-reduces of a decode step
// (plan_serving.cpp), the training layouts' tensor, expert, pipeline and data-parallel traffic (below), RL weight
// synchronisation (rl.h). Its latency terms are NCCL's own tuning model (src/graph/tuning.cc,
// ncclTopoTuneModel): a fixed launch latency per collective (baseLat), a per-step latency inside the
// scale-up domain (intraLat) and one per step across it (interLat).

// One link class as collectives see it: achieved bytes per second per device per direction, and the
// latency of one step of a collective (alpha).
struct Link {
    double bytes_per_s = 0;   // per device, per direction, after the interconnect efficiency; 0 = no link
    double hop_latency_s = 0; // alpha per algorithm step; 0 = not published (latency not counted)
};

struct Network {
    Link scale_up;            // NVLink/NVSwitch, ICI, NeuronLink, Infinity Fabric, Gaudi's scale-up ports, PCIe
    Link scale_out;           // InfiniBand, RoCE, EFA, the TPU data-centre network
    int domain_size = 1;      // devices joined by the scale-up link
    bool multi_node = false;  // a scale-out network is recorded (else layouts stay inside one domain)
    double launch_latency_s = 0; // fixed latency of one collective (kernel launch, synchronisation): NCCL's baseLat
    double handoff_s = 0;     // a serving runtime's pipeline hand-off over a PCIe scale-up link, measured end to end
                              // (catalog pcie_handoff_s); 0: the alpha-beta send below
    // Cards joined only by PCIe: the per-direction link rate and the all-reduce bus bandwidth shares of 4 and 8
    // ranks (catalog pcie_allreduce_share_*_ranks); 0: ring collectives see scale_up.bytes_per_s at any size.
    double pcie_bytes_per_s = 0;   // per direction, before any efficiency
    double pcie_share_4_ranks = 0; // busbw / pcie_bytes_per_s on 4 ranks
    double pcie_share_8_ranks = 0; // the same on 8 (and held beyond)
};

// The scale-up link as a ring collective (all-reduce, all-gather, reduce-scatter) over `ranks` devices of one
// domain sees it. On NVLink-class fabrics: scale_up. Over PCIe every flow of the ring crosses the host's CPU
// and memory path (NVIDIA/nccl #1639, maintainer), so the bus bandwidth falls with the ranks: 2 ranks keep
// scale_up (one flow each way), 4 and 8 ranks take the measured shares of the link rate, linear between
// (3 between 2 and 4, 5-7 between 4 and 8), held at the 8-rank share beyond.
Link ring_link(const Network& net, int ranks);

// Per-step latency from a measured small-message all-reduce of `ranks` ranks on `nodes` domains (one rank
// per domain when nodes = ranks): (measured - launch) / the steps NCCL's ring takes there,
// 2(ranks - nodes) inside the domains and 2(nodes - 1) across (tuning.cc; inside one domain the tree is a
// chain and takes the same steps). Returns the step latency of the level the measurement exercises.
double hop_latency_s(double small_allreduce_s, int ranks, double launch_s, bool across_domains = false);

// The device's network: scale-up = half the quoted bidirectional interconnect bandwidth x efficiency (PCIe
// rings: x the rank-dependent share instead, ring_link);
// scale-out = NICs x line rate / 8 x efficiency; step latencies from the device's measured small
// all-reduces, else (scale-up only) the catalog's allreduce_hop_latency_s; launch = allreduce_base_latency_s.
Network network_of(const Device& d, const Assumptions& a);

// [SECTION] Collectives ---------------------------------------------------------------------------------
// Alpha-beta costs (Hockney 1994; Thakur, Rabenseifner & Gropp 2005, "Optimization of Collective
// Communication Operations in MPICH"). `bytes` is the full buffer of one rank (all-reduce: the gradient;
// all-gather / reduce-scatter: the gathered tensor; all-to-all: everything one rank sends).
// The single-link forms below count steps and bytes only; the group forms further down add the launch
// latency once per collective.

// Ring all-reduce: 2(n-1) alpha + 2(n-1)/n x bytes / beta (Patarasuk & Yuan 2009).
double ring_allreduce_s(double bytes, int n, const Link& l);
// Binary tree all-reduce on a flat network: 2 ceil(log2 n) alpha + 2(n-1)/n x bytes / beta (NCCL 2.4's
// double binary trees move what a ring moves, in logarithmic rather than linear latency).
double tree_allreduce_s(double bytes, int n, const Link& l);
// Ring all-gather or reduce-scatter: (n-1) alpha + (n-1)/n x bytes / beta.
double ring_allgather_s(double bytes, int n, const Link& l);
// Pairwise all-to-all: (n-1) alpha + (n-1)/n x bytes / beta.
double alltoall_s(double bytes, int n, const Link& l);

// A group of ranks spread over domains: `size` ranks, `inside` of them in each scale-up domain (1 when
// every rank sits in its own domain; = size when the whole group is inside one domain).
struct Group {
    int size = 1;
    int inside = 1;
};

// Latency of one all-reduce over the group, the faster of NCCL's ring and tree (tuning.cc):
//   ring: launch + 2(n - nodes) intra + 2(nodes - 1) inter
//   tree: launch + 2((n/nodes - 1) intra + ceil(log2 nodes) inter)      (a chain inside, a tree across)
double allreduce_latency_s(const Group& g, const Network& net);
// Hierarchical collectives over a group (NCCL's intra-node then inter-node scheme): reduce-scatter inside
// the domain, all-reduce of 1/inside of the data across domains, all-gather inside; the latency above.
// No bytes, no collective (0 s). A link without a published bandwidth makes the time infinite.
double allreduce_time_s(double bytes, const Group& g, const Network& net);
// PyTorch's IntraNodeComm (ENABLE_INTRA_NODE_COMM=1; pytorch/pytorch pull request #114001, November 2023,
// torch/csrc/distributed/c10d/intra_node_comm.cu): a bf16 all-reduce among the NVLink-connected ranks of one
// machine done by one kernel that reads the peers' buffers directly instead of NCCL's ring. Its latency is a
// fixed number of dependent NVLink exchanges, not 2(n-1) ring steps:
//   one-shot (every pair of ranks NVLink-connected, input <= 256 KiB after 512-byte alignment): each rank
//     signals every peer and waits for theirs (1 step), then reads all n buffers and sums them (1 step):
//     launch + 2 steps + (n-1) x bytes / beta;
//   two-shot (fully connected, input <= 10 MiB): signal, read and sum 1/n of every buffer, signal, read the
//     other ranks' sums: launch + 4 steps + 2(n-1)/n x bytes / beta;
//   hybrid cube mesh (exactly 8 ranks each linked to 4 others, input <= 256 KiB): signal the 3 non-relay
//     neighbours, read and sum their buffers, signal the relay neighbour, read its partial sum:
//     launch + 4 steps + 4 x bytes / beta.
// A step is the domain's per-step latency (net.scale_up.hop_latency_s), the launch net.launch_latency_s (each
// once; the copy of the input into the registered buffer before the kernel is not priced). Returns a negative
// number where IntraNodeComm falls back to NCCL: more than 8 ranks, a message above the thresholds, 5 to 7
// ranks of a hybrid cube mesh (not fully connected), or 1 rank.
double intra_node_allreduce_time_s(double bytes, int ranks, bool hybrid_cube_mesh, const Network& net);
// Ring all-gather or reduce-scatter: launch + (n - nodes) intra + (nodes - 1) inter steps, and the bytes
// inside and across as for the all-reduce's halves.
double allgather_time_s(double bytes, const Group& g, const Network& net); // also reduce-scatter
// All-to-all: the share for ranks inside the domain goes over the scale-up link while the rest crosses the
// scale-out network at the same time; the slower of the two, plus the launch.
double alltoall_time_s(double bytes, const Group& g, const Network& net);
// One point-to-point send (pipeline stages, weight transfers): launch + alpha + bytes / beta.
double send_time_s(double bytes, bool across_domains, const Network& net);
// One pipeline-stage hand-off of a serving runtime: across domains, or on a link without a measured
// hand-off, the send above; over PCIe the measured hand-off (net.handoff_s: the host-staged copy and the
// synchronisation around it, XiongjieDai's multi-GPU llama.cpp rows) + bytes / beta. Latency only on a link
// whose bandwidth is not published.
double handoff_time_s(double bytes, bool across_domains, const Network& net);
// One broadcast of `bytes` from one rank to the group, pipelined along a ring or chain (NCCL's broadcast):
// launch + (n - 1) steps + bytes / beta of the slowest link crossed (Thakur et al. 2005, pipelined
// broadcast, large-message limit).
double broadcast_time_s(double bytes, const Group& g, const Network& net);

// [SECTION] Layer-wise activation offload ----------------------------------------------------------------
// Megatron-Core's cpu_offloading_num_layers as Transformer Engine runs it (NVIDIA/TransformerEngine at d0067d0,
// transformer_engine/pytorch/cpu_offload.py, DefaultOffloadSynchronizer; Megatron-Core calls it around every layer,
// NVIDIA/Megatron-LM at d98e8a6, megatron/core/transformer/transformer_block.py). Blocks 0..N-1 are offloaded; the copies
// run on one offload stream beside the compute ("Transfers are asynchronous", TE docs cpu_offloading.rst):
//   forward: before block j runs (fwd_step), block j-1's copy to the host is queued; block i's device copy is released, so
//            block L-N+i waits until that copy has finished (finish_offload_map);
//   backward: as block k's backward begins (bwd_step), block k-(L-1-N)'s copy back is queued (start_reload_map, after the
//            compute reached that point: offload_stream.wait_stream(current_stream())); block i's backward waits for its own.
// With one stream the copies run one after another, each `copy_s`. What the compute waits is returned: 0 while a copy
// takes no longer than the blocks between it and its deadline compute (TE: "Specifying a low enough num_layers enables full
// overlap"); N = L - 1 leaves no block between ("prevents overlapping of computation and offload/reload"). Block i's copy
// is taken to start when the block has finished (TE may start a tensor's copy earlier, as it is saved: an upper bound by
// up to a block's forward), and a block's backward to need all its tensors at its start.
struct OffloadStall {
    double forward_s = 0;  // one micro-batch's forward pass
    double backward_s = 0; // its backward pass
};
OffloadStall activation_offload_stall(int layers, int offloaded, double forward_block_s, double backward_block_s, double copy_s);

// [SECTION] Training layouts -----------------------------------------------------------------------------

// The job, in the planner's terms.
struct TrainingJob {
    ModelArch arch;
    double params = 0;                  // total parameters
    double active_params = 0;           // per token (MoE: active experts only)
    TrainMethod method = TrainMethod::full;
    double trainable_params = 0;        // full: = params; LoRA/QLoRA: adapter parameters
    ModelStateBytes trainable_state{2, 2, 12}; // bytes per trainable parameter: weights, gradients, optimizer
    double frozen_bytes_per_param = 0;  // LoRA/QLoRA: stored bytes of each frozen base weight (0 for full)
    double seq_len = 4096;              // tokens per sequence
    double global_batch = 0;            // sequences per optimizer step; 0: one micro-batch per data-parallel rank
    double micro_batch = 1;             // only when global_batch is 0: the sequences of that micro-batch
    double tokens = 0;                  // tokens to train on; 0: rank by throughput
    bool flash_attention = true;        // fused attention: no score matrices stored
    double activation_bytes_per_value = 2;
    double logits_kept_bytes_per_value = 0; // the loss over the vocabulary (see ActivationSettings)
    double loss_fp32_bytes_per_value = 8;
    double loss_chunks = 1;
    double gated_mlp_saved_tensors = 4; // see ActivationSettings
    double linear_input_bytes_per_value = 0; // the linear layers' saved inputs (ActivationSettings); 0 = activation_bytes_per_value
    // Layer-wise activation offload (train.offload_activation_layers, ActivationSettings::offloaded_layers): the search keeps
    // to what Megatron-Core runs with it, one pipeline stage and no recomputation, and the device holds L - N blocks' saved
    // activations; 0 = none.
    int offloaded_layers = 0;
    // Full recomputation's saved block inputs in host memory (train.offload_activations, or a runtime that always does it:
    // ActivationSettings::offload_checkpoints): a layout that recomputes fully keeps none of them on the device.
    bool offload_checkpoints = false;
    // Under full recomputation, what a custom remat policy saves on the device besides each block's input (train.remat_tensors,
    // ActivationSettings::remat_saved_split_bytes_per_token / remat_saved_whole_bytes_per_token): bytes per token and block.
    double remat_saved_split_bytes_per_token = 0;
    double remat_saved_whole_bytes_per_token = 0;
    // The compute of one token on one device, whole model, at `compute_basis_recompute`: when > 0 it replaces
    // FLOPs at prefill_compute_efficiency, so that the search prices layouts on the plan's measured training
    // efficiency (the runtime profile's MFU basis, plan_training.cpp); a layout that recomputes more or less scales it
    // by its hardware FLOPs.
    double compute_s_per_token = 0;
    Checkpointing compute_basis_recompute = Checkpointing::none;
    // A trainer that reduces the data-parallel gradients after the step's last micro-batch (runtimes.json
    // data_parallel_reduce_after_schedule: DeepSpeed's pipeline engine with its BF16_Optimizer): when > 0, the bytes a
    // trainable parameter's gradient carries in that all-reduce (the FP32 gradient buffer: 4), and the 16-bit weights'
    // all-gather after the optimizer step (`after_schedule_allgather_bytes` a parameter, where ZeRO-1 or more partitions
    // the update); both are exposed, none overlapped with a backward. 0: the gradients' own bytes in one all-reduce,
    // overlapped with the last micro-batch's backward.
    double after_schedule_allreduce_bytes = 0;
    double after_schedule_allgather_bytes = 0;
};

// The devices: how many, how fast, how much memory a job may use on each, and the network.
struct Cluster {
    int devices = 0;
    double peak_flop_per_s = 0;         // dense peak at the compute precision, per device
    double capacity_bytes = 0;          // usable memory per device
    Network network;
    double usd_per_device_hour = 0;     // 0: not priced
    double host_bytes_per_s = 0;        // per device, per direction, to host memory (catalog host_link); 0: not recorded
    double runtime_context_bytes = -1;  // what the device's own runtime reserves (catalog memory.runtime_reserved_MB);
                                        // < 0: not recorded, the assumptions' runtime_context_bytes
};

// What the search may vary; 0 = any (used by tests to pin a published layout).
struct LayoutLimits {
    int tensor_parallel = 0;
    int pipeline_parallel = 0;
    int expert_parallel = 0;
    int context_parallel = 0;           // 0: any (the sequence split over c ranks); 1: none
    int zero_stage = -1;                // -1: any of 0-3
    int max_zero_stage = 3;             // the highest stage the trainer offers (Megatron-LM 2021: 0)
    int micro_batch = 0;
    int virtual_stages = 0;             // 0: any; 1: plain 1F1B
    int recompute = -1;                 // -1: any; else int(Checkpointing)
    int keep = 4;                       // layouts returned: the best and the next ones
    double min_tokens_per_context_rank = 4096; // search bound: c > 1 only while each rank keeps this many tokens of a
                                        // sequence (Llama 3 ran CP 16 at 131,072 tokens: 8,192 per rank; 8K sequences: CP 1)
    bool find_fewest = true;            // when nothing fits: also search for the fewest devices that fit
};

struct TrainingLayout {
    int tensor_parallel = 1;            // t, inside the fast domain
    int pipeline_parallel = 1;          // p stages
    int data_parallel = 1;              // d = devices / (t x c x p)
    int context_parallel = 1;           // c: every sequence split over c ranks (Llama 3, section 3.3.2: all-gather of K and V)
    int expert_parallel = 1;            // e, drawn from the data-parallel ranks (MoE only)
    int virtual_stages = 1;             // v model chunks per stage (interleaved 1F1B); 1 = plain 1F1B
    int zero_stage = 0;                 // 0-3 (3 = FSDP full sharding)
    int micro_batch = 1;                // b sequences per micro-batch
    int micro_batches = 1;              // m per data-parallel rank per step (gradient accumulation)
    Checkpointing recompute = Checkpointing::none;
    bool operator==(const TrainingLayout&) const = default;
};

struct LayoutResult {
    TrainingLayout layout;
    // Memory per device on the fullest pipeline stage.
    double weights_bytes = 0, gradients_bytes = 0, optimizer_bytes = 0, activations_bytes = 0, overhead_bytes = 0;
    double memory_bytes = 0;            // the sum
    double capacity_bytes = 0;
    bool fits = false;
    // One optimizer step, split: compute, exposed communication, pipeline bubble.
    double step_s = 0;
    double compute_s = 0;
    double communication_s = 0;         // tensor, expert and pipeline traffic plus the data-parallel exposed tail
    double bubble_s = 0;
    double host_copy_s = 0;             // of communication_s: layer-wise activation offload's copies the compute does not hide
    double tokens_per_s = 0;
    double mfu = 0;                     // model FLOPs (no recomputation) / (step x devices x peak)
    double hardware_flop_per_s = 0;     // per device, recomputation included (what Megatron-LM reports)
    double time_to_train_s = 0;         // tokens / tokens_per_s; 0 when the job gives no token count
    double cost_usd = 0;                // devices x hours x price; 0 when not priced or no token count
    bool operator==(const LayoutResult&) const = default;
};

struct LayoutSearch {
    std::vector<LayoutResult> layouts;  // fitting ones, fastest first; or the nearest one when none fits
    long searched = 0;                  // layouts evaluated (the whole space, not a sample)
    long fitting = 0;
    bool found = false;                 // layouts.front() fits
    int devices = 0;                    // the device count searched (the fewest that fit when asked for 0)
    double global_batch = 0;            // the global batch honoured (sequences)
    std::string explanation;            // one sentence: the best, or why nothing fits and what is nearest
    bool operator==(const LayoutSearch&) const = default;
};

// Step time, memory and MFU of one layout (no validity checks beyond what the arithmetic needs).
LayoutResult evaluate_layout(const TrainingJob& job, const Cluster& cluster, const Assumptions& a, const TrainingLayout& l);

// Every layout of the space for `cluster.devices` devices that divides the heads, layers, experts and the
// global batch; keeps those that fit, ranked by time to train (by step time per token without a token
// count). Never returns an empty answer: with no fitting layout it explains why and returns the nearest
// (the fewest devices that fit, or the layout closest to fitting).
LayoutSearch search_layouts(const TrainingJob& job, const Cluster& cluster, const Assumptions& a, const LayoutLimits& limits = {});

// The fewest devices of this kind on which some layout fits (powers of two up to one domain, then whole
// domains); the search there. found = false when nothing fits on up to `max_devices`.
LayoutSearch fewest_devices(const TrainingJob& job, const Cluster& cluster, const Assumptions& a, int max_devices = 1 << 20,
                            const LayoutLimits& limits = {});

std::string describe(const TrainingLayout& l); // "TP 8 x PP 16 x DP 128, ZeRO-1, micro-batch 1 x 16, no recomputation"

// [SECTION] From a workload -------------------------------------------------------------------------------

// The job of a training workload with the storage the plan's runtime profile decided (plan_training.cpp): bytes per
// trainable parameter, stored bytes per frozen weight (LoRA/QLoRA) and the activation settings.
TrainingJob training_job(const Workload& w, double trainable_params, const ModelStateBytes& state, double frozen_bytes_per_param,
                         const ActivationSettings& activations);
// n devices of one kind at the compute precision's peak, `capacity_bytes` usable each.
Cluster cluster_of(const Device& d, int n, double peak_flop_per_s, double capacity_bytes, const Assumptions& a);

} // namespace hwplan
