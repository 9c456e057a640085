// parallel.cpp: the network of a device, collective costs, and the exhaustive training layout search
// (formulas and sources in parallel.h and beside each function).
#include "hwplan/parallel.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>

#include "hwplan/format.h"
#include "hwplan/performance.h"

namespace hwplan {

// [SECTION] Network ------------------------------------------------------------------------------------

double hop_latency_s(double small_allreduce_s, int ranks, double launch_s, bool across_domains) {
    if (!(small_allreduce_s > 0) || ranks < 2) return 0;
    // NCCL picks the faster algorithm for a small message: inside one domain ring and chain both take
    // 2(n-1) steps; one rank per domain, the tree takes 2 ceil(log2 n) (tuning.cc, ncclTopoTuneModel).
    const double steps = across_domains ? 2.0 * std::ceil(std::log2(double(ranks))) : 2.0 * (ranks - 1);
    return std::max(0.0, small_allreduce_s - launch_s) / steps;
}

Network network_of(const Device& d, const Assumptions& a) {
    Network n;
    const double eff = a.interconnect_efficiency;
    n.launch_latency_s = a.allreduce_base_latency_s;
    n.domain_size = std::max(1, d.domain_size);
    n.scale_up.bytes_per_s = 0.5 * d.interconnect_bytes_per_s * eff;
    // The device's own measurement when one is recorded, else the catalog's step latency (a ring fit on
    // DGX A100 NVLink, nccl-tests issue #123).
    n.scale_up.hop_latency_s = d.scale_up_allreduce_s > 0 ? hop_latency_s(d.scale_up_allreduce_s, d.scale_up_allreduce_ranks, n.launch_latency_s)
                                                          : a.allreduce_hop_latency_s;
    n.scale_out.bytes_per_s = d.scale_out_bytes_per_s * eff;
    n.scale_out.hop_latency_s = hop_latency_s(d.scale_out_allreduce_s, d.scale_out_allreduce_ranks, n.launch_latency_s, true);
    n.multi_node = n.scale_out.bytes_per_s > 0;
    // A network whose small-message time is not recorded: a step across it costs at least a step inside the domain
    // (a NIC, the host's PCIe and a switch lie on the way, where an NVLink or Infinity Fabric step crosses one link), so
    // it takes the scale-up step's latency as a floor rather than none; the plan's figures are then a lower bound there.
    if (n.multi_node && !(n.scale_out.hop_latency_s > 0)) n.scale_out.hop_latency_s = n.scale_up.hop_latency_s;
    // A desktop card (scale_out kind "none") shares the machine's PCIe with its neighbours: every card of
    // the machine is in one domain whose link is PCIe, and nothing spans machines. A device whose network
    // is not recorded is planned as the rest of the planner plans it: all n devices on its scale-up link.
    if ((d.scale_out_kind == "none" || d.scale_out_kind.empty()) && n.scale_up.bytes_per_s > 0) n.domain_size = INT_MAX;
    // Cards joined only by PCIe hand a stage's hidden state on through the host: the serving runtimes'
    // measured hand-off replaces NCCL's point-to-point latency there (catalog pcie_handoff_s).
    if (d.interconnect_kind.rfind("pcie", 0) == 0) {
        n.handoff_s = a.pcie_handoff_s;
        // Their ring collectives share the host's CPU and memory path: the measured bus bandwidth of 4 and 8
        // ranks (catalog pcie_allreduce_share_*_ranks: NVIDIA/nccl #1639, voipmonitor/rtx6kpro), ring_link.
        n.pcie_bytes_per_s = 0.5 * d.interconnect_bytes_per_s;
        n.pcie_share_4_ranks = a.pcie_allreduce_share_4_ranks;
        n.pcie_share_8_ranks = a.pcie_allreduce_share_8_ranks;
    }
    // A domain whose link speed is not published (MI300X's Infinity Fabric here): the NICs carry the bytes,
    // while a collective among the devices of one server keeps the scale-up step latency.
    if (n.scale_up.bytes_per_s <= 0 && n.multi_node) {
        n.domain_size = 1;
        n.scale_up.bytes_per_s = n.scale_out.bytes_per_s;
    }
    return n;
}

Link ring_link(const Network& net, int ranks) {
    Link l = net.scale_up;
    const double peak = net.pcie_bytes_per_s, s4 = net.pcie_share_4_ranks, s8 = net.pcie_share_8_ranks;
    if (ranks <= 2 || !(peak > 0) || !(s4 > 0) || !(s8 > 0) || !(l.bytes_per_s > 0)) return l;
    // Linear in the ranks between the measured points: 2 (the link's own share), 4 and 8 (nccl #1639).
    const double s2 = l.bytes_per_s / peak;
    const double share = ranks <= 4 ? s2 + (s4 - s2) * (ranks - 2) / 2.0 : ranks < 8 ? s4 + (s8 - s4) * (ranks - 4) / 4.0 : s8;
    l.bytes_per_s = std::min(l.bytes_per_s, peak * share); // never faster than a pair's point-to-point rate
    return l;
}

// [SECTION] Collectives ---------------------------------------------------------------------------------

namespace {

// Seconds to move `bytes` at the link's rate; nothing to move costs nothing even on an unpublished link.
double beta_s(double bytes, const Link& l) {
    if (bytes <= 0) return 0;
    return l.bytes_per_s > 0 ? bytes / l.bytes_per_s : INFINITY;
}

} // namespace

double ring_allreduce_s(double bytes, int n, const Link& l) {
    if (n <= 1) return 0;
    return 2.0 * (n - 1) * l.hop_latency_s + beta_s(2.0 * (n - 1) / n * bytes, l);
}

double tree_allreduce_s(double bytes, int n, const Link& l) {
    if (n <= 1) return 0;
    return 2.0 * std::ceil(std::log2(double(n))) * l.hop_latency_s + beta_s(2.0 * (n - 1) / n * bytes, l);
}

double ring_allgather_s(double bytes, int n, const Link& l) {
    if (n <= 1) return 0;
    return (n - 1) * l.hop_latency_s + beta_s(double(n - 1) / n * bytes, l);
}

double alltoall_s(double bytes, int n, const Link& l) {
    if (n <= 1) return 0;
    return (n - 1) * l.hop_latency_s + beta_s(double(n - 1) / n * bytes, l);
}

namespace {

// Ranks of the group per domain and domains spanned, clamped to what the sizes allow.
void split(const Group& g, int& inside, int& across) {
    inside = std::clamp(g.inside, 1, std::max(1, g.size));
    across = std::max(1, g.size / inside);
}

} // namespace

double allreduce_latency_s(const Group& g, const Network& net) {
    if (g.size <= 1) return 0;
    int inside = 1, across = 1;
    split(g, inside, across);
    const double n = double(inside) * across, intra = net.scale_up.hop_latency_s, inter = across > 1 ? net.scale_out.hop_latency_s : 0;
    const double ring = 2.0 * (n - across) * intra + 2.0 * (across - 1) * inter;
    const double tree = 2.0 * ((inside - 1) * intra + std::ceil(std::log2(double(across))) * inter);
    return net.launch_latency_s + std::min(ring, tree);
}

double allreduce_time_s(double bytes, const Group& g, const Network& net) {
    if (g.size <= 1 || bytes <= 0) return 0;
    int inside = 1, across = 1;
    split(g, inside, across);
    // Bytes: a reduce-scatter and an all-gather inside (2(k-1)/k), an all-reduce of 1/k across; the ring inside
    // at the bus bandwidth k ranks reach (ring_link: below the link rate over PCIe).
    const double up = inside > 1 ? beta_s(2.0 * (inside - 1) / inside * bytes, ring_link(net, inside)) : 0;
    const double out = across > 1 ? beta_s(2.0 * (across - 1) / across * bytes / inside, net.scale_out) : 0;
    return allreduce_latency_s(g, net) + up + out;
}

double intra_node_allreduce_time_s(double bytes, int ranks, bool hybrid_cube_mesh, const Network& net) {
    // intra_node_comm.cu of December 2023 (pull request #114001): kMaxDevices 8; selectAllReduceAlgo takes HCM
    // ("hyperCubeAllReduce only supports exactly 8 GPUs") or ONE_SHOT up to 256 * 1024 bytes, TWO_SHOT up to
    // 10 * 1024 * 1024 (fully connected), each after alignUp to a warp's 32 x 16 bytes; else NONE (NCCL).
    if (ranks < 2 || ranks > 8) return -1;
    const double aligned = std::ceil(std::max(0.0, bytes) / 512.0) * 512.0;
    const double n = ranks, hop = net.scale_up.hop_latency_s;
    if (hybrid_cube_mesh && ranks == 8) {
        if (aligned > 256.0 * 1024.0) return -1;
        return net.launch_latency_s + 4.0 * hop + beta_s(4.0 * bytes, net.scale_up);
    }
    if (hybrid_cube_mesh && ranks > 4) return -1; // 5-7 ranks of a hybrid cube mesh are not all linked to each other
    if (aligned <= 256.0 * 1024.0) return net.launch_latency_s + 2.0 * hop + beta_s((n - 1.0) * bytes, net.scale_up);
    const double two_shot = std::ceil(std::max(0.0, bytes) / (512.0 * n)) * 512.0 * n;
    if (two_shot <= 10.0 * 1024.0 * 1024.0) return net.launch_latency_s + 4.0 * hop + beta_s(2.0 * (n - 1.0) / n * bytes, net.scale_up);
    return -1;
}

double allgather_time_s(double bytes, const Group& g, const Network& net) {
    if (g.size <= 1 || bytes <= 0) return 0;
    int inside = 1, across = 1;
    split(g, inside, across);
    const double n = double(inside) * across;
    const double steps = (n - across) * net.scale_up.hop_latency_s + (across - 1) * (across > 1 ? net.scale_out.hop_latency_s : 0);
    const double up = inside > 1 ? beta_s(double(inside - 1) / inside * bytes, ring_link(net, inside)) : 0;
    const double out = across > 1 ? beta_s(double(across - 1) / across * bytes / inside, net.scale_out) : 0;
    return net.launch_latency_s + steps + up + out;
}

double alltoall_time_s(double bytes, const Group& g, const Network& net) {
    if (g.size <= 1 || bytes <= 0) return 0;
    int inside = 1, across = 1;
    split(g, inside, across);
    const double n = g.size;
    const double in = inside > 1 ? (inside - 1) * net.scale_up.hop_latency_s + beta_s(bytes * (inside - 1) / n, net.scale_up) : 0;
    const double out = across > 1 ? (n - inside) * net.scale_out.hop_latency_s + beta_s(bytes * (n - inside) / n, net.scale_out) : 0;
    return net.launch_latency_s + std::max(in, out);
}

double send_time_s(double bytes, bool across_domains, const Network& net) {
    if (bytes <= 0) return 0;
    const Link& l = across_domains ? net.scale_out : net.scale_up;
    return net.launch_latency_s + l.hop_latency_s + beta_s(bytes, l);
}

double handoff_time_s(double bytes, bool across_domains, const Network& net) {
    const Link& l = across_domains ? net.scale_out : net.scale_up;
    if (l.bytes_per_s <= 0) return net.launch_latency_s + l.hop_latency_s; // an unpublished link: the latency alone
    if (across_domains || net.handoff_s <= 0) return send_time_s(bytes, across_domains, net);
    return net.handoff_s + beta_s(bytes, l);
}

double broadcast_time_s(double bytes, const Group& g, const Network& net) {
    if (g.size <= 1 || bytes <= 0) return 0;
    int inside = 1, across = 1;
    split(g, inside, across);
    const double steps = (double(inside) * across - across) * net.scale_up.hop_latency_s + (across - 1) * (across > 1 ? net.scale_out.hop_latency_s : 0);
    // Pipelined along the chain, every link carries the whole buffer once; the slowest link sets the pace.
    const double up = inside > 1 ? beta_s(bytes, net.scale_up) : 0;
    const double out = across > 1 ? beta_s(bytes, net.scale_out) : 0;
    return net.launch_latency_s + steps + std::max(up, out);
}

// [SECTION] Layer-wise activation offload ----------------------------------------------------------------

OffloadStall activation_offload_stall(int layers, int offloaded, double forward_block_s, double backward_block_s, double copy_s) {
    OffloadStall out;
    const int L = layers, N = std::clamp(offloaded, 0, std::max(0, layers - 1));
    if (N <= 0 || !(copy_s > 0)) return out;
    std::vector<double> done(size_t(N), 0.0);
    double t = 0, stream = 0; // the compute stream's clock and the time the offload stream is next free
    for (int j = 0; j < L; ++j) {
        if (j >= 1 && j - 1 < N) done[size_t(j - 1)] = stream = std::max(stream, t) + copy_s; // fwd_step: block j-1 to the host
        const int i = j - (L - N);                                                              // released before block j runs
        if (i >= 0 && i < N && done[size_t(i)] > t) {
            out.forward_s += done[size_t(i)] - t;
            t = done[size_t(i)];
        }
        t += forward_block_s;
    }
    t = stream = 0;
    for (int k = L - 1; k >= 0; --k) {
        const int i = k - (L - 1 - N); // bwd_step(k): block i back to the device
        if (i >= 0 && i < N) done[size_t(i)] = stream = std::max(stream, t) + copy_s;
        if (k < N && done[size_t(k)] > t) {
            out.backward_s += done[size_t(k)] - t;
            t = done[size_t(k)];
        }
        t += backward_block_s;
    }
    return out;
}

// [SECTION] Layout arithmetic ------------------------------------------------------------------------------

namespace {

// The parameters of the job split the way layouts shard them, scaled so that they add up to job.params.
struct ParamSplit {
    double embedding = 0, head = 0;   // token embedding (+ positions), output head
    double dense_blocks = 0;          // every block's attention, norms, dense or shared MLP, routers
    double routed_per_moe_layer = 0;  // routed experts of one MoE block
    int moe_layers = 0;
};

ParamSplit split_params(const TrainingJob& job) {
    const ModelArch& a = job.arch;
    const ParamCount c = derive_params(a);
    ParamSplit s;
    if (a.has_moe) {
        s.moe_layers = std::max(0, a.layers - a.moe.dense_layers);
        s.routed_per_moe_layer = double(a.moe.experts) * (a.mlp == MlpKind::gated ? 3.0 : 2.0) * a.hidden * a.moe.expert_intermediate;
    }
    const double blocks = c.attention + c.mlp + c.norms + c.other;
    const double scale = c.total > 0 && job.params > 0 ? job.params / (c.total - c.extra) : 1.0;
    s.embedding = c.embedding * scale;
    s.head = c.head * scale;
    s.routed_per_moe_layer *= scale;
    s.dense_blocks = std::max(0.0, blocks * scale - s.routed_per_moe_layer * s.moe_layers);
    return s;
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Evaluation with the parameter split precomputed (the search calls this in its inner loop).
// Activation bytes for one (t, b, recomputation): per block, the block rebuilt under full recomputation,
// and the logits (memory.cpp). The search fills it once per (t, b) and reuses it across p, v, ZeRO.
struct ActivationBytes {
    double per_layer = 0, working = 0, logits = 0;
};

ActivationBytes activation_bytes(const TrainingJob& job, int t, double b, Checkpointing rc) {
    ActivationSettings as;
    as.seq_len = job.seq_len;
    as.micro_batch = b;
    as.tensor_parallel = t;
    as.sequence_parallel = t > 1;
    as.checkpointing = rc;
    as.flash_attention = job.flash_attention;
    as.bytes_per_value = job.activation_bytes_per_value;
    as.logits_kept_bytes_per_value = job.logits_kept_bytes_per_value;
    as.loss_fp32_bytes_per_value = job.loss_fp32_bytes_per_value;
    as.loss_chunks = job.loss_chunks;
    as.gated_mlp_saved_tensors = job.gated_mlp_saved_tensors;
    as.linear_input_bytes_per_value = job.linear_input_bytes_per_value;
    as.offload_checkpoints = job.offload_checkpoints; // under full recomputation the per-block figure then leaves the input out
    as.remat_saved_split_bytes_per_token = job.remat_saved_split_bytes_per_token;
    as.remat_saved_whole_bytes_per_token = job.remat_saved_whole_bytes_per_token;
    ActivationBytes out;
    out.per_layer = training_activation_bytes_per_layer(job.arch, as);
    if (rc == Checkpointing::full) { // full recomputation rebuilds one block at a time
        ActivationSettings w = as;
        w.checkpointing = Checkpointing::none;
        out.working = training_activation_bytes_per_layer(job.arch, w);
    }
    out.logits = training_activation_bytes(job.arch, as, 0).logits_bytes;
    return out;
}

// `bound`: the search's current cut-off in seconds per token. A layout that does not fit, or whose compute
// and bubble alone already reach the bound, returns after its memory (time fields 0, `complete` false):
// it cannot enter the ranking, so its communication is not priced. INFINITY evaluates everything.
LayoutResult evaluate(const TrainingJob& job, const ParamSplit& ps, const Cluster& cl, const Assumptions& a, const TrainingLayout& l,
                      const ActivationBytes& act, double bound, bool& complete) {
    complete = false;
    LayoutResult r;
    r.layout = l;
    const ModelArch& arch = job.arch;
    const Network& net = cl.network;
    const int t = l.tensor_parallel, p = l.pipeline_parallel, d = l.data_parallel, e = l.expert_parallel, v = l.virtual_stages;
    const int cp = std::max(1, l.context_parallel);
    const int m = l.micro_batches;
    const double s = job.seq_len, b = l.micro_batch, h = arch.hidden;
    const int L = std::max(1, arch.layers);
    const int stage_layers = ceil_div(L, p);             // the fullest (slowest) stage
    const double frac = double(stage_layers) / L;
    const bool full = job.method == TrainMethod::full;
    const ModelStateBytes& st = job.trainable_state;

    // Parameters on one device of the fullest stage: blocks split by t (routed experts by t x e), the
    // embedding on the first stage and the head on the last (both when p = 1).
    const int stage_moe = std::min(stage_layers, ps.moe_layers);
    const double dense = ps.dense_blocks * frac / t + (p == 1 ? ps.embedding + ps.head : std::max(ps.embedding, ps.head)) / t;
    const double routed = ps.routed_per_moe_layer * stage_moe / (double(t) * e);
    const double trainable_dense = full ? dense : job.trainable_params * frac / t;
    const double trainable_routed = full ? routed : 0;
    const double frozen = full ? 0 : dense + routed;
    // ZeRO shards the dense state over the d x c ranks that hold the same weights (Megatron-LM's distributed
    // optimizer spans data and context parallelism), the experts' over d/e x c.
    const double dz = double(d) * cp, dze = double(std::max(1, d / e)) * cp;

    // ZeRO (Rajbhandari et al. 2020, section 5): stage 1 shards the optimizer state, 2 also the gradients,
    // 3 also the weights, which are then gathered one layer ahead (the current and the prefetched one).
    const double w_dense = trainable_dense * st.weights + frozen * job.frozen_bytes_per_param;
    r.weights_bytes = l.zero_stage >= 3 ? w_dense / dz + trainable_routed * st.weights / dze : w_dense + trainable_routed * st.weights;
    if (l.zero_stage >= 3) {
        const double layer = (ps.dense_blocks / L) / t + (ps.moe_layers > 0 ? ps.routed_per_moe_layer / (double(t) * e) : 0);
        r.weights_bytes += 2.0 * layer * (full ? st.weights : job.frozen_bytes_per_param);
    }
    r.gradients_bytes = (trainable_dense / (l.zero_stage >= 2 ? dz : 1.0) + trainable_routed / (l.zero_stage >= 2 ? dze : 1.0)) * st.gradients;
    r.optimizer_bytes = (trainable_dense / (l.zero_stage >= 1 ? dz : 1.0) + trainable_routed / (l.zero_stage >= 1 ? dze : 1.0)) * st.optimizer;

    // Activations (memory.h, Korthikanti et al. 2022): sequence parallelism whenever t > 1. Under 1F1B the
    // first stage holds min(m, p) micro-batches in flight; interleaving multiplies that by 1 + (p-1)/(p v)
    // (Korthikanti et al. 2022, section 4.2.3). The last stage holds one micro-batch and the logits.
    // Context parallelism keeps s/c tokens of every sequence on each rank: activations divide by c.
    const double per_layer = act.per_layer / cp, working = act.working / cp, logits = act.logits / cp;
    double in_flight = p == 1 ? 1.0 : std::min(m, p);
    if (v > 1) in_flight *= 1.0 + double(p - 1) / (double(p) * v);
    // Layer-wise activation offload (job.offloaded_layers, memory.h): one stage only (Megatron-Core refuses a pipeline with
    // it, and the search offers none), whose device keeps L - N blocks' saved activations, as eval_train counts them.
    const int kept_layers = p == 1 ? stage_layers - std::clamp(job.offloaded_layers, 0, stage_layers - 1) : stage_layers;
    // Checkpoints offloaded under full recomputation (job.offload_checkpoints, memory.h): none stay on the device, as
    // eval_train counts them (per_layer then holds only what a custom remat policy saves on the device); the block being
    // recomputed (working) does.
    const double kept = kept_layers * per_layer;
    const double first = in_flight * kept + working + (p == 1 ? logits : 0.0);
    const double last = kept + working + logits;
    r.activations_bytes = std::max(first, last);
    r.overhead_bytes = (cl.runtime_context_bytes >= 0 ? cl.runtime_context_bytes : a.runtime_context_bytes) + a.allocator_fragmentation_ratio * (r.activations_bytes + r.gradients_bytes);
    r.memory_bytes = r.weights_bytes + r.gradients_bytes + r.optimizer_bytes + r.activations_bytes + r.overhead_bytes;
    r.capacity_bytes = cl.capacity_bytes;
    r.fits = r.memory_bytes <= r.capacity_bytes;
    if (!r.fits && std::isfinite(bound)) return r;

    // Time of one micro-batch on the slowest stage: its share of the FLOPs at the large-GEMM efficiency,
    // plus the traffic that waits on it (Megatron-LM's tensor-parallel collectives and the MoE all-to-all
    // sit on the critical path; pipeline sends too).
    const double tokens_mb = s * b / cp; // tokens of one micro-batch on one rank
    const double flops_per_token = training_flops_per_token(arch, job.active_params, s, job.method, l.recompute);
    const double achieved = cl.peak_flop_per_s * a.prefill_compute_efficiency;
    // causal attention load-balanced over c
    const double compute_mb =
        job.compute_s_per_token > 0
            ? job.compute_s_per_token * flops_per_token /
                  training_flops_per_token(arch, job.active_params, s, job.method, job.compute_basis_recompute) * tokens_mb * frac / t
            : flops_per_token * tokens_mb * frac / t / achieved;
    const double tokens_step = double(m) * b * d * s;
    if ((m + double(p - 1) / v) * compute_mb / tokens_step >= bound) return r; // cannot rank
    const double act_bytes = tokens_mb * h * job.activation_bytes_per_value; // one s x b x h tensor
    const int passes = l.recompute == Checkpointing::full ? 3 : 2;            // forward, backward (+ recomputed forward)
    const int domain = net.domain_size;
    double comm_mb = 0;
    // Tensor parallelism with sequence parallelism: per block and pass, two all-gathers and two
    // reduce-scatters of s x b x h (Korthikanti et al. 2022, section 4.2.2), i.e. two all-reduces' worth.
    // A runtime that overlaps them (Transformer Engine's userbuffers under Megatron-Core and NeMo, NeMo's
    // communication_overlap.rst: the collectives with no dependency run in bulk beside the weight- and data-gradient
    // GEMMs; the dependent ones are "chunked and the chunks are overlapped in pipeline", the all-gather replaced by
    // P2P ring exchanges, exposing one chunk) hides all but one of the t ring chunks of the share it overlaps
    // (assumptions.json tensor_parallel_overlap; 0: every collective waits, Megatron-LM 2021), never more than the
    // micro-batch's compute on the stage.
    if (t > 1) {
        const double tp = stage_layers * passes * 2.0 * allreduce_time_s(act_bytes, {t, t}, net);
        comm_mb += tp - std::min(a.tensor_parallel_overlap * tp * (t - 1) / t, compute_mb);
    }
    // Context parallelism (Llama 3, section 3.3.2): per block, K and V of the whole sequence are all-gathered
    // in the forward pass (again when recomputed) and their gradients reduce-scattered in the backward pass;
    // each rank holds its t-th of the KV heads. The c ranks sit next to the t tensor ranks.
    if (cp > 1) {
        const double kv_width = double(std::max(1, arch.kv_heads)) * arch.head_dim;
        const double kv_bytes = 2.0 * s * b * kv_width * job.activation_bytes_per_value / std::min(t, std::max(1, arch.kv_heads));
        comm_mb += stage_layers * (passes + 1) * allgather_time_s(kv_bytes, {cp, std::max(1, std::min(cp, domain / t))}, net);
    }
    // Expert parallelism: dispatch and combine all-to-alls per MoE block and pass; each rank sends its tokens'
    // k routed copies (split over the t ranks by sequence parallelism). The e ranks are data-parallel
    // neighbours t apart, so domain / t of them share a domain.
    // Under a pipeline schedule that pairs the forward chunk of one micro-batch with the backward chunk of another
    // (DeepSeek-V3's DualPipe, arXiv 2412.19437 section 3.2.1), the all-to-alls of one chunk run while the other
    // computes: up to moe_alltoall_overlap x a micro-batch's compute of them is hidden (1 = DualPipe's "fully hidden";
    // 0 = a schedule that waits on each all-to-all). Without a pipeline there is no second chunk to hide behind.
    if (e > 1 && arch.has_moe) {
        const double sent = tokens_mb * arch.moe.active_experts * h * job.activation_bytes_per_value / t;
        const double a2a = stage_moe * passes * 2.0 * alltoall_time_s(sent, {e, std::max(1, domain / t)}, net);
        comm_mb += std::max(0.0, a2a - (p > 1 ? a.moe_alltoall_overlap * compute_mb : 0.0));
    }
    // Pipeline: one activation forward and one gradient back per micro-batch and model chunk, across domains
    // once the t x d ranks of a stage fill a domain.
    // Under the interleaved schedule a trainer that overlaps them (runtimes.json pipeline_p2p_overlap: Megatron-LM's
    // overlap_p2p_comm, NeMo's MegatronCommOverlapCallback wherever virtual pipeline size > 1) posts each send and receive
    // asynchronously and waits for it only when the next chunk needs it: the activation sent forward runs beside a chunk's
    // forward (a third of its compute: 2N of 6N), the gradient sent back beside a chunk's backward (two thirds), and only
    // what outlasts that compute is exposed. Without virtual stages Megatron turns the overlap off (arguments.py:
    // "non-interleaved schedule does not support overlapping p2p communication").
    if (p > 1) {
        const bool across = double(t) * cp * d * p > domain;
        const double send = send_time_s(act_bytes / t, across, net);
        if (a.pipeline_p2p_overlap > 0 && v > 1) {
            const double chunk = compute_mb / v;
            comm_mb += v * (std::max(0.0, send - chunk / 3.0) + std::max(0.0, send - 2.0 * chunk / 3.0));
        } else {
            comm_mb += 2.0 * v * send;
        }
    }
    // ZeRO-3 (FSDP) gathers every block's 16-bit weights before its forward and again before its backward, one
    // all-gather per block and pass (PyTorch FSDP, Zhao et al. 2023, arXiv 2304.11277, section 3.3: one FlatParameter
    // per wrapped block, prefetched one block ahead), so each pays its own ring latency across the ranks; over
    // thousands of ranks that latency, not the bytes, is what these gathers cost. They share the network with the
    // gradient reduce-scatter below, and all of it hides behind the step's compute.
    const Group dense_group{d * cp, std::max(1, domain / t)};
    const Group expert_group{std::max(1, d / e) * cp, std::max(1, domain / (t * e))};
    double gather_mb = 0;
    if (l.zero_stage >= 3) {
        const double block_dense = ps.dense_blocks / L / t * 2.0;
        const double block_routed = ps.moe_layers > 0 ? ps.routed_per_moe_layer / (double(t) * e) * 2.0 : 0.0;
        gather_mb = 2.0 * (stage_layers * allgather_time_s(block_dense, dense_group, net) + stage_moe * allgather_time_s(block_routed, expert_group, net));
    }
    // Layer-wise activation offload (job.offloaded_layers, one stage): each micro-batch copies N blocks' saved activations to
    // the host and back over the host link, beside the compute; what the compute waits for (activation_offload_stall) is
    // exposed. A block's forward is a third of the stage's micro-batch compute per block (2N of 6N FLOPs: no recomputation
    // with offload), its backward two thirds. No host link recorded: not priced (0).
    double offload_mb = 0;
    if (p == 1 && job.offloaded_layers > 0 && cl.host_bytes_per_s > 0) {
        const double block_s = compute_mb / stage_layers;
        const OffloadStall st_mb = activation_offload_stall(stage_layers, job.offloaded_layers, block_s / 3.0, 2.0 * block_s / 3.0,
                                                            per_layer / cl.host_bytes_per_s);
        offload_mb = st_mb.forward_s + st_mb.backward_s;
    }
    comm_mb += offload_mb;
    const double t_mb = compute_mb + comm_mb;

    // Data-parallel gradient reduction once per step, overlapped with the last micro-batch's backward pass
    // (about 2/3 of its compute: 4N of 6N); only the rest is exposed (PyTorch DDP, Li et al. 2020).
    // A trainer that reduces after the schedule (job.after_schedule_allreduce_bytes > 0; DeepSpeed's pipeline engine:
    // pipe/schedule.py TrainSchedule issues ReduceTiedGrads, ReduceGrads and OptimizerStep after the last step's
    // BackwardPass, and its BF16_Optimizer all-reduces the FP32 gradient buffer, then all-gathers the bf16 weights each
    // rank's partition updated) has no backward left to hide either collective: all of it is exposed.
    const bool after_schedule = job.after_schedule_allreduce_bytes > 0 && l.zero_stage < 3;
    const double grad_wire = after_schedule ? job.after_schedule_allreduce_bytes : st.gradients; // bytes per gradient on the wire
    double dp = 0;
    if (d * cp > 1) {
        auto reduce = [&](double bytes, const Group& g) { return l.zero_stage >= 3 ? allgather_time_s(bytes, g, net) : allreduce_time_s(bytes, g, net); };
        dp = reduce(trainable_dense * grad_wire, dense_group) + reduce(trainable_routed * grad_wire, expert_group);
        if (after_schedule && l.zero_stage >= 1)
            dp += allgather_time_s(trainable_dense * job.after_schedule_allgather_bytes, dense_group, net) +
                  allgather_time_s(trainable_routed * job.after_schedule_allgather_bytes, expert_group, net);
    }
    // ZeRO-3: the m micro-batches' weight gathers and the reduce-scatter go over the same links while the step
    // computes; what exceeds the step's compute is exposed, and never less than the reduction's own tail.
    const double exposed_dp = after_schedule ? dp : std::max({0.0, dp - 2.0 / 3.0 * compute_mb, m * gather_mb + dp - m * compute_mb});

    // 1F1B: (m + (p-1)/v) micro-batch slots; the (p-1)/v extra slots are the bubble (Narayanan et al. 2021,
    // section 2.2: bubble fraction (p-1)/m, divided by v when interleaved).
    const double bubble_slots = double(p - 1) / v;
    r.step_s = (m + bubble_slots) * t_mb + exposed_dp;
    r.compute_s = m * compute_mb;
    r.bubble_s = bubble_slots * t_mb;
    r.communication_s = m * comm_mb + exposed_dp;
    r.host_copy_s = m * offload_mb;
    complete = true;
    const double n = cl.devices;
    if (r.step_s > 0 && std::isfinite(r.step_s)) {
        r.tokens_per_s = tokens_step / r.step_s;
        const double model_flops = training_flops_per_token(arch, job.active_params, s, job.method, Checkpointing::none);
        r.mfu = model_flops * tokens_step / (r.step_s * n * cl.peak_flop_per_s);
        r.hardware_flop_per_s = flops_per_token * tokens_step / (r.step_s * n);
        if (job.tokens > 0) {
            r.time_to_train_s = job.tokens / r.tokens_per_s;
            if (cl.usd_per_device_hour > 0) r.cost_usd = n * cl.usd_per_device_hour * r.time_to_train_s / 3600.0;
        }
    }
    return r;
}

// Ranking key: seconds per token (time to train is tokens x this, so the order is the same).
double key(const LayoutResult& r) { return r.tokens_per_s > 0 ? 1.0 / r.tokens_per_s : INFINITY; }

std::string gb_text(double bytes) { return format_sig(bytes / 1e9, 3) + " GB"; }

std::string summary(const LayoutResult& r) {
    return describe(r.layout) + ": step " + format_sig(r.step_s, 3) + " s (compute " + format_sig(r.compute_s, 3) + ", communication " +
           format_sig(r.communication_s, 3) + ", bubble " + format_sig(r.bubble_s, 3) + "), MFU " + format_sig(100 * r.mfu, 3) + " %, " +
           gb_text(r.memory_bytes) + " of " + gb_text(r.capacity_bytes) + " per device";
}

// Checks the job and the cluster; the first problem, naming its field, or "".
std::string invalid(const TrainingJob& job, const Cluster& cl) {
    auto bad = [](double x) { return !std::isfinite(x) || x <= 0; };
    if (bad(job.params)) return "job.params must be a positive number of parameters";
    if (bad(job.active_params)) return "job.active_params must be a positive number of parameters";
    if (job.arch.layers <= 0 || job.arch.hidden <= 0 || job.arch.heads <= 0) return "job.arch needs layers, hidden and heads above 0";
    if (bad(job.seq_len)) return "job.seq_len must be a positive number of tokens";
    if (!std::isfinite(job.global_batch) || job.global_batch < 0) return "job.global_batch must be 0 (one micro-batch per rank) or a positive number of sequences";
    if (job.global_batch == 0 && bad(job.micro_batch)) return "job.micro_batch must be positive when job.global_batch is 0";
    if (bad(cl.peak_flop_per_s)) return "cluster.peak_flop_per_s must be positive (the device publishes no peak at this precision)";
    if (bad(cl.capacity_bytes)) return "cluster.capacity_bytes must be positive";
    return "";
}

struct Searcher {
    const TrainingJob& job;
    const Cluster& cl;
    const Assumptions& a;
    const LayoutLimits& lim;
    ParamSplit ps;
    LayoutSearch out;
    LayoutResult nearest;
    bool have_nearest = false;
    long valid = 0;

    // Seconds per token a layout must beat to enter the ranking (the last kept one, once the list is full).
    double bound() const {
        const size_t keep = size_t(std::max(1, lim.keep));
        return out.layouts.size() == keep ? key(out.layouts.back()) : INFINITY;
    }

    void consider(const LayoutResult& r, bool complete) {
        ++out.searched;
        if (r.fits && !complete) return;       // pruned: its compute and bubble alone are too slow to rank
        if (r.fits && !std::isfinite(r.step_s)) return; // a collective over a link that is not published
        if (r.fits) {
            ++out.fitting;
            auto& v = out.layouts;
            const size_t keep = size_t(std::max(1, lim.keep));
            if (v.size() == keep && key(r) >= key(v.back())) return;
            auto at = std::upper_bound(v.begin(), v.end(), r, [](const LayoutResult& x, const LayoutResult& y) { return key(x) < key(y); });
            v.insert(at, r);
            if (v.size() > keep) v.pop_back();
        } else if (!have_nearest || r.memory_bytes < nearest.memory_bytes) {
            nearest = r;
            have_nearest = true;
        }
    }

    void run(int n, double global_batch) {
        const ModelArch& arch = job.arch;
        const Network& net = cl.network;
        const int L = arch.layers;
        const int max_t = std::min({n, net.domain_size, arch.heads});
        std::vector<Checkpointing> recomputes{Checkpointing::none, Checkpointing::full};
        if (!job.flash_attention) recomputes.push_back(Checkpointing::selective);
        // Megatron-Core's layer-wise activation offload runs without recomputation and without a pipeline
        // (transformer_config.py at d98e8a6 refuses both): with it the search offers neither.
        const bool offload = job.offloaded_layers > 0;
        if (offload) recomputes = {Checkpointing::none};
        for (int t = 1; t <= max_t; ++t) {
            if (n % t || arch.heads % t) continue;
            if (arch.kv_heads > 0 && arch.kv_heads % t && t % arch.kv_heads) continue;
            if (lim.tensor_parallel && t != lim.tensor_parallel) continue;
            ActivationBytes acts_by_b[32][3];
            bool act_ready[32] = {};
            // Context parallelism: powers of two that divide the devices left and split each sequence into 2c
            // equal chunks (load-balanced causal attention), down to min_tokens_per_context_rank per rank.
            for (int c = 1; c <= n / t; c *= 2) {
            if ((n / t) % c || (c > 1 && (std::fmod(job.seq_len, 2.0 * c) != 0 || job.seq_len / c < lim.min_tokens_per_context_rank))) continue;
            if (lim.context_parallel && c != lim.context_parallel) continue;
            for (int p = 1; p <= std::min(L, n / (t * c)); ++p) {
                if ((n / (t * c)) % p) continue;
                if (lim.pipeline_parallel && p != lim.pipeline_parallel) continue;
                if (offload && p > 1) continue;
                const int d = n / (t * c * p);
                if (!net.multi_node && double(t) * c * d * p > net.domain_size) continue; // no network joins the domains
                const int max_e = arch.has_moe ? std::min(d, arch.moe.experts) : 1;
                for (int e = 1; e <= max_e; ++e) {
                    if (d % e || (e > 1 && arch.moe.experts % e)) continue;
                    if (lim.expert_parallel && e != lim.expert_parallel) continue;
                    for (int b = 1;; b *= 2) {
                        const double per_rank = global_batch / d; // sequences per data-parallel rank per step
                        if (b > per_rank) break;
                        if (lim.micro_batch && b != lim.micro_batch) continue;
                        const double mm = per_rank / b;
                        if (mm != std::floor(mm)) continue;
                        const int m = int(mm);
                        const int stage_layers = ceil_div(L, p);
                        const int lb = std::countr_zero(unsigned(b)); // b = 2^lb
                        if (!act_ready[lb]) { // depends on (t, b, recomputation) only: once per t and b
                            for (Checkpointing rc : recomputes) acts_by_b[lb][int(rc)] = activation_bytes(job, t, b, rc);
                            act_ready[lb] = true;
                        }
                        const ActivationBytes* acts = acts_by_b[lb];
                        for (int v = 1; v <= (p > 1 ? stage_layers : 1); ++v) {
                            // Interleaving needs whole chunks per stage and m a multiple of p (Megatron-LM); the
                            // stages may hold one block fewer at the ends (Llama 3, section 3.3.2).
                            if (v > 1 && (stage_layers % v || m % p)) continue;
                            if (lim.virtual_stages && v != lim.virtual_stages) continue;
                            for (int z = 0; z <= (d > 1 ? std::clamp(lim.max_zero_stage, 0, 3) : 0); ++z) {
                                if (lim.zero_stage >= 0 && z != lim.zero_stage && !(d == 1 && z == 0)) continue;
                                for (Checkpointing rc : recomputes) {
                                    if (lim.recompute >= 0 && int(rc) != lim.recompute) continue;
                                    ++valid;
                                    bool complete = false;
                                    const LayoutResult r = evaluate(job, ps, cl, a, {.tensor_parallel = t, .pipeline_parallel = p, .data_parallel = d,
                                                                                     .context_parallel = c, .expert_parallel = e, .virtual_stages = v, .zero_stage = z,
                                                                                     .micro_batch = b, .micro_batches = m, .recompute = rc},
                                                                    acts[int(rc)], bound(), complete);
                                    consider(r, complete);
                                }
                            }
                        }
                    }
                }
            }
            }
        }
    }
};

} // namespace

LayoutResult evaluate_layout(const TrainingJob& job, const Cluster& cluster, const Assumptions& a, const TrainingLayout& l) {
    bool complete = false;
    return evaluate(job, split_params(job), cluster, a, l, activation_bytes(job, l.tensor_parallel, l.micro_batch, l.recompute), INFINITY, complete);
}

std::string describe(const TrainingLayout& l) {
    std::string s = "TP " + std::to_string(l.tensor_parallel);
    if (l.context_parallel > 1) s += " x CP " + std::to_string(l.context_parallel);
    s += " x PP " + std::to_string(l.pipeline_parallel);
    if (l.virtual_stages > 1) s += " (interleaved " + std::to_string(l.virtual_stages) + ")";
    s += " x DP " + std::to_string(l.data_parallel);
    if (l.expert_parallel > 1) s += " (EP " + std::to_string(l.expert_parallel) + ")";
    s += ", ZeRO-" + std::to_string(l.zero_stage) + ", micro-batch " + std::to_string(l.micro_batch) + " x " + std::to_string(l.micro_batches);
    s += l.recompute == Checkpointing::full ? ", full recomputation" : l.recompute == Checkpointing::selective ? ", selective recomputation" : ", no recomputation";
    return s;
}

namespace {

// One search on cluster.devices devices, no fallbacks. `valid` counts layouts that divide everything.
LayoutSearch search_once(const TrainingJob& job, const Cluster& cluster, const Assumptions& a, const LayoutLimits& limits,
                         long& valid, LayoutResult* nearest) {
    const int n = cluster.devices;
    const double batch = job.global_batch > 0 ? job.global_batch : job.micro_batch * n;
    Searcher s{job, cluster, a, limits, split_params(job), {}, {}, false, 0};
    s.out.devices = n;
    s.out.global_batch = batch;
    s.run(n, batch);
    valid = s.valid;
    if (nearest && s.have_nearest) *nearest = evaluate_layout(job, cluster, a, s.nearest.layout); // its time too
    LayoutSearch out = std::move(s.out);
    if (!out.layouts.empty()) {
        out.found = true;
        out.explanation = "fastest of " + std::to_string(out.searched) + " layouts on " + std::to_string(n) + " devices (" +
                          std::to_string(out.fitting) + " fit): " + summary(out.layouts.front());
    }
    return out;
}

} // namespace

LayoutSearch search_layouts(const TrainingJob& job, const Cluster& cluster, const Assumptions& a, const LayoutLimits& limits) {
    if (const std::string why = invalid(job, cluster); !why.empty()) {
        LayoutSearch out;
        out.explanation = why;
        return out;
    }
    if (cluster.devices <= 0) {
        LayoutSearch out = fewest_devices(job, cluster, a, 1 << 20, limits);
        out.explanation = "cluster.devices must be at least 1, got " + std::to_string(cluster.devices) + "; nearest: " + out.explanation;
        out.found = false;
        return out;
    }
    const int n = cluster.devices;
    long valid = 0;
    LayoutResult nearest;
    nearest.memory_bytes = -1;
    LayoutSearch out = search_once(job, cluster, a, limits, valid, &nearest);
    if (out.found) return out;
    const double batch = out.global_batch;
    if (valid == 0) {
        // Nothing divides: no (t, p, d, micro-batch) splits the heads, the layers and the global batch.
        std::string why = "no layout on " + std::to_string(n) + " devices divides the global batch of " + format_sig(batch, 6) +
                          " sequences, the " + std::to_string(job.arch.heads) + " heads and the " + std::to_string(job.arch.layers) + " layers";
        if (!cluster.network.multi_node && n > cluster.network.domain_size)
            why = "no scale-out network is recorded for this device, so a job stays inside one domain of " +
                  std::to_string(cluster.network.domain_size) + " devices, not " + std::to_string(n);
        Cluster c = cluster;
        c.devices = std::min(n, cluster.network.multi_node ? n : cluster.network.domain_size);
        TrainingJob j = job;
        j.global_batch = std::ceil(batch / c.devices) * c.devices;
        if (c.devices == n && j.global_batch == batch) {
            out.explanation = why;
            return out;
        }
        LayoutSearch near = search_layouts(j, c, a, limits);
        near.found = false;
        near.explanation = why + "; nearest: " + (c.devices != n ? std::to_string(c.devices) + " devices" : "") +
                           (c.devices != n && j.global_batch != batch ? " and " : "") +
                           (j.global_batch != batch ? "a global batch of " + format_sig(j.global_batch, 6) + " sequences" : "") + ", " +
                           near.explanation;
        return near;
    }
    // Layouts exist but none fits: the fewest devices that fit, else the layout closest to fitting.
    std::string why = "none of " + std::to_string(out.searched) + " layouts fits on " + std::to_string(n) + " devices";
    if (nearest.memory_bytes >= 0) why += " (the closest needs " + gb_text(nearest.memory_bytes) + " of " + gb_text(nearest.capacity_bytes) + " per device)";
    LayoutSearch more;
    if (limits.find_fewest) more = fewest_devices(job, cluster, a, 1 << 20, limits);
    if (more.found && more.devices > n) {
        more.found = false;
        more.explanation = why + "; the fewest that fit: " + std::to_string(more.devices) + " devices, " + summary(more.layouts.front());
        return more;
    }
    if (nearest.memory_bytes >= 0) out.layouts.push_back(nearest);
    out.explanation = why + (nearest.memory_bytes >= 0 ? "; nearest: " + summary(nearest) : "");
    return out;
}

LayoutSearch fewest_devices(const TrainingJob& job, const Cluster& cluster, const Assumptions& a, int max_devices, const LayoutLimits& limits) {
    LayoutSearch last;
    const int domain = std::min(cluster.network.domain_size, max_devices);
    // Model state spread evenly over n devices (ZeRO-3 with everything sharded) is a floor on the memory of
    // any layout on n devices: below it, no search is needed.
    const ModelStateBytes& st = job.trainable_state;
    const double state_bytes = job.trainable_params * (st.weights + st.gradients + st.optimizer) +
                               (job.method == TrainMethod::full ? 0.0 : job.params * job.frozen_bytes_per_param);
    auto try_n = [&](int n) {
        if (state_bytes / n > cluster.capacity_bytes) return false;
        Cluster c = cluster;
        c.devices = n;
        long valid = 0;
        last = search_once(job, c, a, limits, valid, nullptr);
        return last.found;
    };
    for (int n = 1; n <= domain; n *= 2)
        if (try_n(n)) return last;
    if (domain > 1 && (domain & (domain - 1)) && try_n(domain)) return last;
    if (cluster.network.multi_node)
        for (long n = 2L * domain; n <= max_devices; n *= 2)
            if (try_n(int(n))) return last;
    last.found = false;
    last.explanation = "nothing fits on up to " + std::to_string(cluster.network.multi_node ? max_devices : domain) + " devices of this kind; " +
                       last.explanation;
    return last;
}

// [SECTION] From a workload -------------------------------------------------------------------------------

TrainingJob training_job(const Workload& w, double trainable_params, const ModelStateBytes& state, double frozen_bytes_per_param,
                         const ActivationSettings& as) {
    TrainingJob j;
    j.arch = w.model.model.arch;
    j.params = w.model.params;
    j.active_params = w.model.active_params;
    j.method = w.train.method;
    j.trainable_params = trainable_params;
    j.trainable_state = state;
    j.frozen_bytes_per_param = frozen_bytes_per_param;
    j.seq_len = w.train.seq_len;
    j.global_batch = w.train.global_batch;
    j.micro_batch = w.train.micro_batch;
    j.tokens = w.train.tokens;
    j.flash_attention = as.flash_attention;
    j.activation_bytes_per_value = as.bytes_per_value;
    j.logits_kept_bytes_per_value = as.logits_kept_bytes_per_value;
    j.loss_fp32_bytes_per_value = as.loss_fp32_bytes_per_value;
    j.loss_chunks = as.loss_chunks;
    j.gated_mlp_saved_tensors = as.gated_mlp_saved_tensors;
    j.linear_input_bytes_per_value = as.linear_input_bytes_per_value;
    j.offloaded_layers = as.offloaded_layers;
    j.offload_checkpoints = as.offload_checkpoints;
    j.remat_saved_split_bytes_per_token = as.remat_saved_split_bytes_per_token;
    j.remat_saved_whole_bytes_per_token = as.remat_saved_whole_bytes_per_token;
    return j;
}

Cluster cluster_of(const Device& d, int n, double peak_flop_per_s, double capacity_bytes, const Assumptions& a) {
    return {.devices = n, .peak_flop_per_s = peak_flop_per_s, .capacity_bytes = capacity_bytes, .network = network_of(d, a),
            .host_bytes_per_s = 0.5 * d.host_link_bytes_per_s, .runtime_context_bytes = d.runtime_reserved_bytes};
}

} // namespace hwplan
