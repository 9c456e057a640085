// plan_serving.cpp: serving, batch and edge evaluation: one replica's memory, decode and prefill rooflines, the
// batch the engine would run, the queue at an arrival rate and disaggregation beside it; a MoE laid out both ways;
// the split of a given count into replicas (serving layouts); MIG partitions reported beside a one-device plan.
#include <algorithm>
#include <cmath>
#include <optional>

#include "hwplan/format.h"
#include "hwplan/memory.h"
#include "hwplan/parallel.h"
#include "hwplan/render.h"
#include "plan_eval.h"

namespace hwplan::plan_detail {

// [SECTION] the engine's batch: the one with the most output tokens/s ---------------------------

// An offline batch job (stage batch without concurrent_users or batch_size) runs as many sequences at once
// as maximizes output tokens/s within memory, as offline engines do: vLLM's LLM class and trtllm-bench
// throughput queue every request at once and let the scheduler fill the KV cache.
bool offline_batch(const Workload& w) {
    return w.stage == Stage::batch && !is_given(w, "serve.concurrent_users") && !is_given(w, "serve.batch_size");
}

// Interactive serving to a number of users with the count left to the planner and the batch to the engine: the
// users may be split over replicas, each holding its share (lesson 004: "if the model fits one GPU at FP8 with room
// for its KV cache, serve on single GPUs"; choose_count searches replicas x devices per replica).
bool splits_users(const Workload& w) {
    return w.stage == Stage::serve && w.hardware.count <= 0 && !rate_batch(w) && w.serve.concurrent_users > 1 && !is_given(w, "serve.batch_size");
}

ServeBasis serve_basis(const Workload& w, const Catalog& cat, const Device& d, const Assumptions& a, bool explain) {
    ServeBasis b;
    b.weights = weight_bytes(w, cat, w.precision.weights, w.model.params, explain);
    b.kv_value_bytes = kv_value_bytes(w.precision.kv_cache);
    b.peak = peak_for(d, w.precision.compute);
    b.net = network_of(d, a);
    const std::string& runtime = framework_runtime(w.framework);
    b.layer_split = runtime == "llama.cpp";
    b.free_share = !local_runtime(d) && runtime == "tensorrt-llm";
    b.runtime = cat.find_decode_runtime(w.serve.runtime);
    return b;
}

namespace {

struct BatchChoice {
    double batch = 0;            // sequences per step
    double throughput = 0;       // output tokens/s at that batch
    bool found = false;
};

// The batch with the most output tokens/s among those that fit and pass `ok` (latency targets): powers
// of two up to the most sequences whose KV cache fits, and that most itself. Each trial is one plain
// evaluation at that many concurrent sequences.
template <class Ok>
BatchChoice best_batch(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, const ServeBasis* basis, Ok ok,
                       bool mixed_prefill = false) {
    auto trial = [&](double b) {
        Eval t;
        t.basis = basis;
        t.explain = false;
        t.numbers_only = true; // a point of this search, never shown
        t.search_batch = false;
        t.mixed_prefill = mixed_prefill;
        t.batch_trial = b;
        eval_serve(w, cat, d, n, a, t);
        return t;
    };
    BatchChoice best;
    const Eval one = trial(1);
    if (!one.c.fits || !one.has("max_concurrent_users")) return best;
    const double most = std::max(1.0, one.value("max_concurrent_users"));
    auto consider = [&](double b, const Eval& c) {
        if (!c.c.fits || !c.has("throughput_tokens_per_s") || !ok(c)) return false;
        const double v = c.value("throughput_tokens_per_s");
        if (v > best.throughput) best = {b, v, true};
        return true;
    };
    for (double b = 1;; b = std::min(most, b * 2)) {
        if (!consider(b, b == 1 ? one : trial(b)) && b == most && b > 1) {
            const double fewer = std::floor(0.9 * most); // the largest batch's own activations may not fit
            if (fewer > best.batch) consider(fewer, trial(fewer));
        }
        if (b >= most) break;
    }
    return best;
}

// The fewest k >= lo (at most 2^30) for which ok(k) holds, ok being monotone in k (a queue's wait falls as the
// arrivals are split over more replicas): doubling, then bisection. 2^30 when none does.
template <class Ok>
int fewest_replicas(double lo_value, Ok ok) {
    constexpr int kMost = 1 << 30;
    int lo = std::isnan(lo_value) ? kMost : int(std::clamp(std::ceil(lo_value), 1.0, double(kMost))), hi = lo;
    while (!ok(hi) && hi < kMost) {
        lo = hi + 1;
        hi = hi > kMost / 2 ? kMost : 2 * hi;
    }
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (ok(mid)) hi = mid;
        else lo = mid + 1;
    }
    return hi;
}

// The widest tensor-parallel split of n devices up to `most`: it must divide the devices (the rest are
// pipeline stages of tp devices each) and the attention heads (vLLM's config.py: "Total number of attention
// heads must be divisible by tensor parallel size").
int serving_tensor_parallel(int n, int most, int heads) {
    for (int t = std::min(n, most); t > 1; --t)
        if (n % t == 0 && (heads <= 0 || heads % t == 0)) return t;
    return 1;
}

// One serving replica of n devices laid out one way: `ep` = 1, tensor parallel x pipeline stages; `ep` = n
// (MoE only), expert parallelism: the routed experts spread over all n devices, attention and the dense
// layers tensor parallel over t devices and data parallel over the n / t groups, an all-to-all of the
// tokens to their experts and back in every MoE block (DeepSeek-V3 technical report, section 3.4: decoding
// with attention TP4 x DP80 and the MoE part on EP320; vLLM's --enable-expert-parallel, EP = TP x DP).
void eval_serve_layout(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, int ep, Eval& e) {
    Candidate& c = e.c;
    const ServeBasis& basis = *e.basis;
    const auto& arch = w.model.model.arch;
    // The replica's share of the workload (Eval: users split over replicas, or a batch search's trial).
    ServeShape sh = serve_shape(w);
    const bool batch_trial = e.batch_trial > 0;
    if (batch_trial) {
        sh.users = sh.batch = e.batch_trial;
    } else if (e.users_share > 0) {
        sh.users = e.users_share;
        sh.batch = w.serve.batch_size > 0 ? w.serve.batch_size : sh.users;
    }
    const bool at_a_rate = !batch_trial && rate_batch(w); // a trial's users are given: no rate of its own
    // Latency targets: each user's decode speed (1 / TPOT) and the first token's time.
    const double tps_target = w.serve.tokens_per_s_per_user_target, ttft_target = w.serve.ttft_target_s;
    auto meets_targets = [&](const Eval& t) {
        return (tps_target <= 0 || t.value("decode_tokens_per_s_per_user") >= tps_target) &&
               (ttft_target <= 0 || t.value("ttft_s") <= ttft_target);
    };
    BatchChoice offline, at_rate;
    if (e.search_batch && !batch_trial && offline_batch(w)) {
        offline = best_batch(w, cat, d, n, a, e.basis, [](const Eval&) { return true; });
        if (offline.found) sh.users = sh.batch = offline.batch;
    } else if (e.search_batch && at_a_rate && basis.peak.flop_per_s > 0) {
        at_rate = best_batch(w, cat, d, n, a, e.basis, meets_targets, true);
        if (at_rate.found) sh.users = sh.batch = at_rate.batch;
    }
    // An offline run of a fixed request count (serve.requests; this replica's share when the count is split over
    // replicas) never holds more sequences than it has requests, whatever its KV cache would take.
    const double run_requests = w.stage == Stage::batch && w.serve.requests > 0 ? std::ceil(w.serve.requests / std::max(1, e.arrivals_split)) : 0.0;
    if (run_requests > 0) {
        sh.users = std::min(sh.users, run_requests);
        sh.batch = std::min(sh.batch, run_requests);
    }
    // Tensor parallelism inside the fast domain, at most 8 ways (one HGX/UBB board, where serving engines
    // put it; past that the all-reduces and KV-head replication cost more than they give); the rest of the
    // devices form pipeline stages. Cards joined only by PCIe form one domain (parallel.h network_of): serving
    // engines (vLLM, SGLang, TensorRT-LLM) split them by tensor parallelism over NCCL, as on a board (vLLM
    // issue #6955: four RTX 3090 Ti over PCIe 4.0, Llama 3.1 70B AWQ, one client 30 -> 46 tokens/s from TP 2 to
    // TP 4). llama.cpp splits by layers (its default --split-mode layer since PR #4606): one stage after another.
    const Network& net = basis.net;
    const bool layer_split = basis.layer_split;
    const int domain = layer_split ? 1 : std::max({1, d.domain_size, net.handoff_s > 0 ? net.domain_size : 1});
    const bool wide = ep > 1;                     // expert parallel: no pipeline, attention data parallel over g groups
    // Under expert parallelism a latent-attention model (one KV head) runs attention data parallel, one group per
    // device: tensor parallelism would copy its whole KV cache onto every rank (SGLang's "DP, DPA and SGLang DP
    // Router" guide: DP attention for MLA models such as DeepSeek and Kimi-K2).
    // A stated engine layout (serve.tensor_parallel, best_serving_layout) is tensor parallel over the replica's
    // devices, as the engine runs it: TGI shards every layer over all the GPUs it is given (its --num-shard), over
    // PCIe too, and Neuron's tensor parallelism spans a whole instance (TP 24 over the 24 NeuronCores of 12
    // Inferentia2 chips). The search's own limits (the fast domain, 8 ways, heads that divide) are its guesses for a
    // layout nobody named; they do not override one that was.
    const bool stated_tp = !wide && !layer_split && n > 1 && w.serve.tensor_parallel > 0 && n == int(w.serve.tensor_parallel);
    // AWS Neuron's engines shard every layer over all the NeuronCores they are given, padding the heads to the ranks
    // (runtimes.json head_sharding): the Neuron performance tables run every inf2.48xlarge row at TP 24 over its 12
    // Inferentia2 chips and NxD Inference at TP 64 over a trn2.48xlarge's 16 Trainium2 (the suite's neuron-2.18 and
    // nxdi-trn2 cases). So on a Neuron device the search's tensor parallelism spans the replica inside its NeuronLink
    // domain, the 8-way limit of a GPU board and the heads-divide rule aside.
    const bool neuron = !layer_split && std::find(d.software.begin(), d.software.end(), "neuron") != d.software.end();
    const int tp = stated_tp                ? n
                   : wide && arch.has_mla ? 1
                   : neuron               ? serving_tensor_parallel(n, domain, 0)
                                          : serving_tensor_parallel(n, std::min(domain, kMaxTensorParallel), arch.heads);
    if (stated_tp && arch.heads > 0 && arch.heads % tp != 0 && e.explain)
        c.notes.push_back("tensor parallel " + std::to_string(tp) + " as stated, over " + std::to_string(arch.heads) +
                          " attention heads that do not divide by it: an engine that pads the heads runs it (Neuron), vLLM refuses it "
                          "(\"Total number of attention heads must be divisible by tensor parallel size\")");
    const int pp = wide ? 1 : std::max(1, n / tp);
    const int groups = wide ? std::max(1, n / tp) : 1;
    c.layout = {.tensor_parallel = tp, .pipeline_parallel = pp, .data_parallel = 1, .expert_parallel = std::max(1, ep)};
    const WeightBytes& wb = basis.weights;
    const double kvb = basis.kv_value_bytes;
    // The decode runtime (runtimes.json "decode_runtimes", serve.runtime; runtime.h DecodeRuntime).
    static const DecodeRuntime kTuned{.id = "tuned", .name = "tuned runtime (no catalog decode runtimes)"};
    const DecodeRuntime* found_rt = basis.runtime;
    const DecodeRuntime& drt = found_rt ? *found_rt : kTuned;
    // KV heads split across tensor-parallel ranks (replicated when there are fewer heads than ranks;
    // latent caches are per token, not per head, and replicate); layers split across pipeline stages.
    const bool latent = arch.has_mla;
    // A runtime that shards heads over its own ranks (each device's tensor_parallel_cores NeuronCores) pads the query
    // heads to a multiple of the ranks and replicates KV heads that do not divide by them (runtime.h head_sharding,
    // performance.h sharded_heads): transformers-neuronx 2.18 runs Llama 2 7B's 32 heads as 48 on 24 NeuronCores, and
    // Mistral 7B's 8 KV heads as 48 (decoder.py to_neuron and init_caches). The padded and replicated heads'
    // projections are stored and read like the model's own, and every rank holds its heads' KV cache.
    const int head_ranks = tp * std::max(1, d.tensor_parallel_cores);
    const ShardedHeads sharded = !latent && !drt.head_sharding.empty() && arch.head_dim > 0
        ? sharded_heads(arch.heads, arch.kv_heads, head_ranks, drt.head_sharding) : ShardedHeads{double(arch.heads), double(arch.kv_heads > 0 ? arch.kv_heads : arch.heads)};
    const double model_kv_heads = arch.kv_heads > 0 ? arch.kv_heads : arch.heads;
    const bool heads_sharded = !latent && !drt.head_sharding.empty() && arch.heads > 0 && (sharded.query != arch.heads || sharded.kv != model_kv_heads);
    const double kv_head_scale = heads_sharded ? sharded.kv / model_kv_heads : 1.0;
    const double query_head_scale = heads_sharded ? sharded.query / arch.heads : 1.0;
    // q and o projections of the padded query heads, k and v of the extra KV heads, at the weights' storage bits
    const double head_pad_bytes = heads_sharded
        ? double(arch.layers) * arch.hidden * arch.head_dim * (2.0 * (sharded.query - arch.heads) + 2.0 * (sharded.kv - model_kv_heads)) *
              (wb.quantized_params > 0 ? wb.bits_per_weight : 16.0) / 8.0
        : 0.0;
    // A runtime that shards only the blocks under tensor parallelism (gpt-fast's tp.py: apply_tp shards each block's
    // attention and feed-forward; the output head stays whole) reads the whole head on every rank: counted as
    // (tp - 1) more copies of it in the total the ranks split, and its GEMV's FLOPs likewise. The head's storage
    // is the input table's (16 bits where a weight-only format keeps them, memory.h).
    const double head_params = double(arch.vocab) * arch.hidden;
    const double head_param_bytes = wb.input_embedding_row_bytes > 0 && arch.hidden > 0 ? wb.input_embedding_row_bytes / arch.hidden : 2.0;
    const double head_replicated_bytes = drt.replicates_output_head && tp > 1 && pp == 1 && !w.model.size_only ? head_params * head_param_bytes * (tp - 1) : 0.0;
    const double head_extra_bytes = head_pad_bytes + head_replicated_bytes;
    // Static shapes (runtime.h attention_span, pads_batch_to_compiled): the graphs were compiled for
    // serve.compiled_batch sequences of serve.compiled_sequence_tokens; a runtime that pads runs every step at them.
    const double compiled_sequence = w.serve.compiled_sequence_tokens > 0 ? w.serve.compiled_sequence_tokens : sh.context;
    const bool static_cache = !drt.attention_span.empty();
    const double kv_div = heads_sharded ? double(tp) * pp * groups : (latent ? 1.0 : std::min<double>(tp, std::max(1, arch.kv_heads))) * pp * groups;
    const double kv_seq = kv_head_scale * kv_bytes_per_sequence(arch, kvb, static_cache ? std::max(sh.context, compiled_sequence) : sh.context, a.kv_block_tokens);

    MemoryUse& m = c.memory;
    if (!e.numbers_only) m.terms.reserve(4); // weights, KV cache, activations, overhead
    if (!e.numbers_only) c.phases.reserve(2); // decode, prefill (a trial's steps are its figures)
    m.capacity_bytes = usable_bytes(d, a, true);
    // Weights per device: everything split over tp x pp; under expert parallelism the dense part over tp and
    // the routed experts over all ep devices.
    m.weights_bytes = wide ? (wb.total + head_extra_bytes - wb.experts) / tp + wb.experts / ep : (wb.total + head_extra_bytes) / (tp * pp);
    e.term(m, "weights", m.weights_bytes, [&] { return std::string(wb.why + (wide ? ", dense layers split over " + std::to_string(tp) + " and the routed experts over " + std::to_string(ep) + " devices"
                                                                                  : n > 1 ? ", split over " + std::to_string(n) + " devices" : "") +
                                                       (head_replicated_bytes > 0 ? ", the output head (" + gb(head_params * head_param_bytes) + ") whole on each (" + drt.id + ")" : "")); });
    const double cache_rows = static_cache && drt.pads_batch_to_compiled && w.serve.compiled_batch > sh.users ? w.serve.compiled_batch : sh.users;
    m.kv_cache_bytes = cache_rows * kv_seq / kv_div;
    e.term(m, "kv_cache", m.kv_cache_bytes, [&] { return std::string(format_sig(cache_rows, 6) + " sequences x " +
                 format_sig(static_cache ? std::max(sh.context, compiled_sequence) : sh.context, 6) + " tokens x " +
                 gb(kv_head_scale * kv_bytes_per_token(arch, kvb)) + "/token (" + w.precision.kv_cache + ")" +
                 (static_cache ? ", a static cache of the compiled shapes (" + drt.id + ")" : std::string()) +
                 (heads_sharded ? ", " + format_sig(sharded.kv, 4) + " KV heads as " + drt.id + " shards them over " + std::to_string(head_ranks) + " ranks" : std::string()) +
                 (kv_div > 1 ? " / " + format_sig(kv_div, 3) : "") + ", sliding layers capped at their window, " +
                 format_sig(a.kv_block_tokens, 3) + "-token blocks"); });
    // A serving engine reserves activations for its whole token budget, whatever the prompts: vLLM sizes the KV
    // cache after a profile run of a dummy batch of max_num_batched_tokens tokens (vllm/worker/worker.py
    // determine_num_available_blocks: "profiles the peak memory usage of the model" with the max batch size;
    // PR #10511's log: "PyTorch activation peak memory 1.26GiB" for an 8B model at 8,192 tokens).
    // llama.cpp-style runtimes allocate their compute buffer for the batch they run (llama_cpp_compute_buffer_bytes).
    // A named engine release (serve.runtime, runtimes.json decode_runtimes) may size its profile pass differently:
    // vLLM 0.2.x profiled max_num_batched_tokens = max(max_model_len, 2048) tokens (SchedulerConfig), not a chunk.
    const DecodeRuntime* prt = local_runtime(d) ? nullptr : basis.runtime;
    double chunk = local_runtime(d) ? std::min(a.prefill_chunk_tokens, std::max(sh.prompt, sh.batch)) : a.prefill_chunk_tokens;
    if (prt && prt->profile_tokens_floor > 0) chunk = std::max(prt->profile_tokens_floor, double(arch.max_context));
    const double forward_bytes = inference_activation_bytes(arch, chunk, std::max(1.0, std::ceil(sh.batch / groups))) / tp;
    // vLLM V1's profile then runs its sampler on max_num_seqs dummy requests with top-k and top-p on (v0.8.4
    // gpu_model_runner.py _dummy_sampler_run, top_k = vocab - 1, top_p = 0.9), after the forward pass has freed its
    // working set: the whole vocabulary's logits of every request (gathered whole on every rank), sorted (sampler.py,
    // ops/topk_topp_sampler.py apply_top_k_top_p). Its peak replaces the forward pass's when larger, never adds to it.
    const double sampler_bytes = prt && prt->profile_sampler_bytes_per_logit > 0
                                     ? prt->profile_sampler_bytes_per_logit * a.vllm_profile_sampler_sequences * double(arch.vocab)
                                     : 0.0;
    m.activations_bytes = std::max(forward_bytes, sampler_bytes);
    e.term(m, "activations", m.activations_bytes, [&] {
        const std::string forward = "one block's working set for a " + format_sig(chunk, 6) + "-token chunk" +
                                    (local_runtime(d) ? "" : " (the engine's token budget, profiled before the KV cache is sized)") +
                                    " + FP32 logits for " + format_sig(sh.batch, 6) + " sequences";
        if (sampler_bytes <= 0) return forward;
        const std::string sampler = "the profile's dummy sampler: " + format_sig(a.vllm_profile_sampler_sequences, 6) + " requests x " +
                                    format_sig(double(arch.vocab), 6) + " logits x " + format_sig(prt->profile_sampler_bytes_per_logit, 3) +
                                    " bytes, sorted for top-k/top-p";
        return sampler_bytes >= forward_bytes ? sampler + " (larger than the forward pass's " + gb(forward_bytes) + ")"
                                              : forward + " (larger than " + sampler + ", " + gb(sampler_bytes) + ")";
    });
    // A serving engine split over tensor-parallel ranks of a scale-up domain (NVLink, Infinity Fabric) also holds
    // memory outside PyTorch's allocator on each device (NCCL and custom all-reduce buffers; vLLM's profile:
    // 1.79 GiB at TP 1, 3.58 GiB at TP 2). Over PCIe vLLM turns its custom all-reduce off beyond two GPUs
    // (custom_all_reduce.py: "not supported on more than two PCIe-only GPUs"), and a PCIe multi-GPU log shows
    // no more than a single device's context (the assumption's low end): none is added there.
    // A device whose own runtime's reserve is recorded (catalog memory.runtime_reserved_MB) runs no NCCL or engine
    // buffers: that figure is all its runtime keeps (Groq's compiler schedules the chip-to-chip traffic statically).
    const bool own_reserve = runtime_reserve_recorded(d);
    const double tp_buffers = tp > 1 && !local_runtime(d) && !own_reserve && d.domain_size > 1 ? a.tensor_parallel_buffer_bytes : 0.0;
    // An engine that lets torch.distributed record its all-reduce inputs on the NCCL stream (vLLM before PR #2151, which
    // set TORCH_NCCL_AVOID_RECORD_STREAMS=1: "torch.distributed.all_reduce does not free the input tensor until the
    // synchronization point. This causes the memory usage to grow as the number of all_reduce calls increases",
    // worker.py) cannot reuse a freed input until the device has passed that all-reduce; the host runs ahead of a
    // prefill-sized pass, so the pass's inputs stay reserved when the engine reads the device's free memory after it
    // (vLLM issue #2150: "the activation memory for all reduce is not reused"). Two all-reduces a layer (attention's
    // output projection and the MLP's down projection, row-parallel), each the pass's tokens x hidden at 16 bits.
    const double held_allreduce = prt && prt->profile_holds_allreduce_inputs && tp > 1 && !own_reserve
                                      ? a.allreduce_inputs_held_share * 2.0 * std::ceil(double(arch.layers) / pp) * chunk * arch.hidden * 2.0
                                      : 0.0;
    m.overhead_bytes = runtime_overhead_bytes(d, a) + tp_buffers + held_allreduce;
    e.term(m, "overhead", m.overhead_bytes, [&] { return std::string(own_reserve ? "what " + d.id + "'s own runtime reserves on each device (catalog memory.runtime_reserved_MB)"
                                                                  : local_runtime(d) ? "llama.cpp-style compute buffer" : "runtime context (CUDA/ROCm/XLA) and framework") +
                                                  (tp_buffers > 0 ? " + tensor-parallel communication buffers " + gb(tp_buffers) : "") +
                                                  (held_allreduce > 0 ? " + the profile pass's all-reduce inputs still reserved (" + format_sig(100 * a.allreduce_inputs_held_share, 3) +
                                                                            " % of 2 per layer x " + format_sig(chunk, 6) + " tokens x hidden at 16 bits) " + gb(held_allreduce)
                                                                      : ""); });
    // TensorRT-LLM sizes its KV cache from what is free once the weights and its buffers are loaded, not from the
    // device's whole memory as vLLM's gpu_memory_utilization does: "The default value for free_gpu_memory_fraction
    // is 0.9, which means TensorRT-LLM tries to allocate 90% of free GPU memory (after loading weights) for KV
    // cache" (TensorRT-LLM docs/source/examples/kvcacheconfig.md). So the engine may claim everything but
    // (1 - kv_cache_free_memory_fraction) of the free memory; on a model that barely fits that is several times
    // the cache a share of the whole device leaves.
    const bool free_share = basis.free_share;
    if (free_share) {
        const double others = m.weights_bytes + m.overhead_bytes + m.activations_bytes;
        m.capacity_bytes = others + a.kv_cache_free_memory_fraction * std::max(0.0, usable_bytes(d, a, false) - others);
    }
    finish_memory(m);
    c.fits = m.total_bytes <= m.capacity_bytes;

    const double free_for_kv = m.capacity_bytes - m.weights_bytes - m.overhead_bytes - m.activations_bytes;
    const double max_users = max_active_users(m.capacity_bytes, m.weights_bytes, m.overhead_bytes + m.activations_bytes, kv_seq / kv_div);
    e.put("max_concurrent_users", max_users, Label::arithmetic, [&] { return std::string("(capacity " + gb(m.capacity_bytes) + " - weights - overhead - activations) / KV per user " + gb(kv_seq / kv_div)); });
    // Longest single-sequence context whose cache fits beside everything else: a figure shown, never one a search ranks
    // by, so a search's trial (numbers_only) leaves it out.
    if (!e.numbers_only) {
        double max_ctx = max_context_tokens(arch, kvb, free_for_kv * kv_div, a.kv_block_tokens);
        const bool capped = arch.max_context > 0 && max_ctx > arch.max_context;
        if (capped) max_ctx = arch.max_context;
        auto ctx_why = [&] {
            return "largest context whose KV cache fits the " + gb(std::max(0.0, free_for_kv)) + " left" +
                   (capped ? "; capped at the model's maximum context" : "");
        };
        e.put("max_context_tokens", max_ctx, Label::arithmetic, ctx_why);
    }

    const Peak& peak = basis.peak;
    if (peak.fell_back() && e.explain) c.notes.push_back(peak.note());
    if (peak.capped_flop_per_s > 0 && e.explain) c.notes.push_back(peak.cap_note("prefill and batched decode"));
    if (peak.precision == "fp4" && e.explain)
        c.notes.push_back("decode GEMMs at FP4 not calibrated: no FP4 decode measurement sets their share of the FP4 peak; the 8-bit share "
                          "(decode_compute_efficiency_8bit " + format_sig(a.decode_compute_efficiency_8bit, 3) + ", measured on FP8) is used");
    const bool link = d.interconnect_bytes_per_s > 0; // the scale-up link's own rate, not a NIC standing in for it
    // PyTorch's IntraNodeComm (runtimes.json tensor_parallel_allreduce "pytorch-intra-node"): CUDA only (its
    // isIntraNodeCommSupported() is false under USE_ROCM), among devices its topology detection finds NVLinked, for
    // bf16 messages (selectAllReduceAlgo returns NONE for any other dtype); elsewhere, and above its size thresholds,
    // the all-reduce is NCCL's (parallel.h intra_node_allreduce_time_s).
    const bool intra_node_comm = drt.tensor_parallel_allreduce == "pytorch-intra-node" && link && d.vendor == "NVIDIA" &&
                                 d.interconnect_kind.rfind("nvlink", 0) == 0 && w.precision.compute == "bf16";
    const bool hybrid_cube_mesh = w.serve.scale_up_topology == "hybrid_cube_mesh";
    auto tp_comm = [&](double tokens) { // two all-reduces of the hidden state per block (Megatron-LM) inside
        if (tp <= 1) return 0.0;       // the domain, each paying its latency and its bytes (parallel.h)
        const Group g{tp, tp};
        const double bytes = tokens * arch.hidden * 2.0;
        const double intra = intra_node_comm && tp <= net.domain_size ? intra_node_allreduce_time_s(bytes, tp, hybrid_cube_mesh, net) : -1.0;
        if (intra >= 0) return 2.0 * arch.layers * intra;
        return 2.0 * arch.layers * (link ? allreduce_time_s(bytes, g, net) : allreduce_latency_s(g, net));
    };
    if (tp > 1 && !link && !e.numbers_only) c.notes.push_back("no published link bandwidth on " + d.id + ": tensor-parallel communication counts its latency only");
    if (tp > 1 && intra_node_comm && tp <= 8 && e.explain)
        c.notes.push_back(std::string("tensor-parallel all-reduce: PyTorch's IntraNodeComm (serve.runtime ") + drt.id + "), a small message in " +
                          (hybrid_cube_mesh && tp == 8 ? "its hybrid-cube-mesh kernel (launch + 4 NVLink steps)"
                           : hybrid_cube_mesh && tp > 4 ? "NCCL's ring (IntraNodeComm needs all ranks linked or all 8 of the mesh)"
                                                       : "its one-shot kernel (launch + 2 NVLink steps)") +
                          " instead of NCCL's ring of 2(n-1) steps");
    // Pipeline stages hand the hidden state of every token on to the next stage, one after another: pp - 1
    // hand-offs per step (parallel.h handoff_time_s), over the scale-up link while the stages share a domain
    // (PCIe on a desktop of consumer cards, at the measured hand-off) and across the scale-out network once
    // tp x stages fill it.
    auto pp_comm = [&](double tokens) {
        if (pp <= 1) return 0.0;
        const int per_domain = std::max(1, net.domain_size / std::max(1, tp));
        const int across = net.multi_node ? (pp - 1) / per_domain : 0;
        const double bytes = tokens * arch.hidden * 2.0;
        return (pp - 1 - across) * handoff_time_s(bytes, false, net) + across * handoff_time_s(bytes, true, net);
    };

    // Decode: one step advances every running sequence by one token; `ctx` is the sequences' average history.
    const double batch = c.fits ? std::max(1.0, std::min(sh.batch, max_users)) : sh.batch;
    // A step reads the weights once, but of the untied input embedding table only the batch's rows (OpenAI's
    // gpt-oss model card leaves the table out of the active parameters for that reason), and of the routed
    // experts only those the batch's tokens touch.
    // A runtime with static shapes that pads the batch (optimum-neuron 0.4: NxDDecoderWrapper.forward pads a smaller
    // batch "up to the compiled batch size", _forward_with_pad) runs every step at serve.compiled_batch rows: the
    // padding rows cost what real ones do (GEMM rows, KV cache read, attention) and produce nothing.
    auto padded_rows = [&](double rows) { return drt.pads_batch_to_compiled && w.serve.compiled_batch > rows ? double(w.serve.compiled_batch) : rows; };
    // What a step of `rows` sequences (padded already) reads: the weights, of them the routed experts' share, and
    // whether every expert runs over every token of the step (NxD forward_all_experts).
    struct StepRead {
        double weights = 0, experts = 0;
        bool all_experts_dense = false;
    };
    auto step_weights_read = [&](double rows) {
        StepRead r;
        r.weights = wb.total + head_extra_bytes - wb.input_embedding + std::min(wb.input_embedding, rows * wb.input_embedding_row_bytes);
        if (wb.experts > 0) {
            const auto& ex = arch.moe;
            double touched = expected_experts_touched(ex.experts, ex.active_experts, rows);
            if (drt.moe_all_experts_share > 0 && ex.experts > 0) {
                // NxD ExpertMLPsV2.forward at token generation: perc_experts_loaded = tokens x top_k / experts; at or above
                // DEFAULT_SELECTIVE_LOADING_THRESHOLD (1.0) forward_all_experts ("all tokens are computed by all experts"),
                // below it forward_selective_loading, a loop over the tokens that loads each one's top_k experts.
                r.all_experts_dense = rows * ex.active_experts / ex.experts >= drt.moe_all_experts_share;
                touched = r.all_experts_dense ? ex.experts : std::min<double>(ex.experts, rows * ex.active_experts);
            }
            r.weights -= wb.experts - wb.experts * touched / ex.experts;
            r.experts = wb.experts * touched / ex.experts;
        }
        return r;
    };
    const double step_rows = padded_rows(batch);                                   // the steady batch's step, for the notes below
    const bool all_experts_dense = step_weights_read(step_rows).all_experts_dense; // likewise
    // Bytes one device reads per step: the weights' share (under expert parallelism the dense part over tp and
    // the experts the batch touches over ep) and the KV cache of the sequences it holds.
    auto device_weights_read = [&](double total, double experts) { return wide ? (total - experts) / tp + experts / ep : total / (tp * pp); };
    // Expert all-to-all (wide layouts only): each MoE block sends every token's hidden state to its k experts
    // and their outputs back (dispatch and combine, BF16), over the scale-up link inside the domain and the
    // scale-out network beyond it (parallel.h alltoall_time_s). `tokens` is the replica's whole batch, spread
    // evenly over the n devices.
    const int moe_layers = arch.has_moe ? std::max(0, arch.layers - arch.moe.dense_layers) : 0;
    const Group a2a_group{n, std::clamp(net.domain_size, 1, n)};
    auto a2a_comm = [&](double tokens) {
        if (!wide || moe_layers == 0) return 0.0;
        const double bytes = tokens / n * arch.moe.active_experts * arch.hidden * 2.0;
        const double one = link ? alltoall_time_s(bytes, a2a_group, net)
                                : net.launch_latency_s + (n - 1) * (a2a_group.inside < n ? net.scale_out.hop_latency_s : net.scale_up.hop_latency_s);
        return 2.0 * moe_layers * one;
    };
    // The routed experts' memory-bound kernels around their grouped GEMMs (performance.h moe_routing_bytes_per_token:
    // TensorRT-LLM's expand, gated activation and finalize kernels; vLLM's fused_moe writes the same intermediate
    // caches): bytes per device for `tokens` of the replica, the experts' columns split over tp ranks, or under
    // expert parallelism whole experts and 1/n of the token copies per device; a stage holds 1/pp of the blocks.
    const double routing_in_bytes = peak.precision == "fp32" ? 4.0 : peak.precision == "fp8" || peak.precision == "int8" || peak.precision == "fp4" || peak.precision == "int4" ? 1.0 : 2.0;
    const double routing_per_token = moe_layers > 0 ? moe_routing_bytes_per_token(arch, wide ? 1.0 : double(tp), routing_in_bytes, 2.0) : 0.0;
    auto routing_bytes = [&](double tokens) { return routing_per_token * (wide ? tokens / n : tokens) * double(moe_layers) / pp; };
    // A decode kernel that runs one thread block per query head reads each KV head once for every query head of
    // its group (serve.decode_attention "per_query_head"); a latent (MLA) cache is shared by design.
    const double kv_reads = w.serve.decode_attention == "per_query_head" && !latent && arch.kv_heads > 0
        ? std::max(1.0, double(arch.heads) / arch.kv_heads) : 1.0;
    // Prefill of one prompt, chunked: each chunk reads the weights once. Under expert parallelism one attention
    // group of tp devices runs the prompt's dense layers while its routed-expert work spreads over all n.
    // The routed experts' share of a token's weight FLOPs (k experts x their MLP matrices in every MoE block).
    const double routed_flop_share = moe_layers > 0 && w.model.active_params > 0
        ? std::min(1.0, double(moe_layers) * arch.moe.active_experts * (arch.mlp == MlpKind::gated ? 3.0 : 2.0) * arch.hidden * arch.moe.expert_intermediate / w.model.active_params)
        : 0.0;
    const double expert_flop_share = wide ? routed_flop_share : 0.0;
    // `seqs` prompts of `prompt` tokens prefilled together: an engine step's token budget (prefill_chunk_tokens,
    // vLLM's max_num_batched_tokens) takes several short prompts at once, so each chunk reads the weights once
    // for all of them and its all-reduces carry all their tokens (one latency each).
    // A runtime that encodes every prompt at its compiled context length (optimum-neuron 0.4: one context-encoding
    // bucket, max_context_length = sequence_length, and pad_to_max_compiled_seq pads input_ids to it) runs the
    // padded length's FLOPs and cache writes for any prompt.
    auto encoded_tokens = [&](double prompt) { return drt.prefill_pads_to_compiled_context ? std::max(prompt, compiled_sequence) : prompt; };
    auto prefill_phase = [&](double prompt_given, double seqs = 1) {
        const double prompt = encoded_tokens(prompt_given);
        const double tokens = prompt * seqs;
        const double chunks = std::ceil(tokens / std::max(1.0, a.prefill_chunk_tokens));
        const double f = seqs * prefill_flops(arch, w.model.active_params, prompt);
        Phase ph;
        ph.precision = peak.precision;
        const Roofline body = roofline(wide ? f * (1 - expert_flop_share) / tp + f * expert_flop_share / n : f / (tp * pp),
                                       chunks * device_weights_read(wb.total + head_extra_bytes, wb.experts) + tokens * kv_head_scale * kv_bytes_per_token(arch, kvb) / (tp * pp),
                                       peak.achieved(a.prefill_compute_efficiency, a), d.bandwidth_bytes_per_s * a.decode_bandwidth_efficiency);
        ph.roofline = routing_per_token > 0 ? roofline_sequence(body, roofline(0, routing_bytes(tokens), peak.achieved(a.prefill_compute_efficiency, a),
                                                                                d.bandwidth_bytes_per_s * a.decode_bandwidth_efficiency))
                                            : body;
        ph.communication_s = tp_comm(tokens) + pp_comm(tokens) + a2a_comm(tokens);
        ph.time_s = pp * ph.roofline.time_s + ph.communication_s;
        return ph;
    };
    // The decode runtime (runtimes.json "decode_runtimes", serve.runtime; runtime.h DecodeRuntime). A tuned runtime
    // counts no host operations: its step is the device's time plus decode_step_overhead_s. An eager Python loop issues
    // host_ops_per_layer x layers + host_ops_per_step framework operations a step at eager_op_host_s each; the device
    // runs ahead of the host asynchronously, so the step takes the longer of the two (the gpt-fast blog: eager
    // decoding is "heavily CPU overhead bound", 25.5 tok/s where the same model compiled runs 107). The launch
    // overhead decode_step_overhead_s stands for is inside that count, so it is not added again.
    // A model that groups its KV heads (kv_heads < heads) adds host_ops_per_grouped_kv_layer a layer: transformers'
    // repeat_kv (modeling_llama.py since v4.31, called before attention in v4.34's eager and v4.36's SDPA paths) expands
    // K and V to the query heads and reshapes them, a copy each; with as many KV heads as query heads it returns them as
    // they are.
    const bool grouped_kv = arch.kv_heads > 0 && arch.kv_heads < arch.heads;
    // A replica on one device skips the collectives its runtime counts (TGI calls torch.distributed only at world size > 1).
    const bool one_device = tp * pp * groups <= 1;
    const double host_ops = (drt.host_ops_per_layer + (grouped_kv ? drt.host_ops_per_grouped_kv_layer : 0.0) -
                             (one_device ? drt.host_collectives_per_layer : 0.0)) * arch.layers +
                            drt.host_ops_per_step - (one_device ? drt.host_collectives_per_step : 0.0);
    // Of those, a runtime that launches its 4-bit projections through Triton from Python (TGI 1.0.3's GPTQ QuantLinear:
    // an autograd Function, custom_autotune's key, torch.empty, then JITFunction.run's launcher for matmul_248's 19
    // arguments) spends triton_launch_host_s on each where a cuBLAS projection costs eager_op_host_s (triton-lang/triton
    // issue #459: a Triton matmul called from Python takes 0.0964 ms of CPU time where torch's takes 0.0232 ms; pull
    // request #1431: Triton's bare launch about 55 us before its typed fast path). Dense 4-bit weights only.
    const double triton_ops = drt.triton_projections_per_layer > 0 && host_ops > 0 && moe_layers == 0 && wb.quantized_params > 0 && wb.bits_per_weight <= 4.5
                                  ? std::min(host_ops, drt.triton_projections_per_layer * arch.layers) : 0.0;
    const double host_s = host_ops * a.eager_op_host_s + triton_ops * std::max(0.0, a.triton_launch_host_s - a.eager_op_host_s);
    // Host work that starts only once the device has returned the step's logits cannot overlap the device and adds to
    // the step: llama-cpp-python before 0.2.76 slices llama_get_logits()'s float pointer into a Python list and
    // assigns that list into its numpy scores in Llama.eval, a round trip of every vocabulary entry per token
    // (llama_cpp/llama.py at v0.2.32; abetlen/llama-cpp-python PR #1476 replaced it with np.ctypeslib.as_array).
    const double serial_host_s = drt.serial_vocab_round_trips * arch.vocab * a.python_value_round_trip_host_s;
    // A decode step runs its weight GEMMs and then attention over the KV cache, one after the other, each on its
    // own roofline (LLM-Viewer's per-operator roofline, performance.h roofline_sequence): at a large batch the
    // GEMMs are compute-bound while attention reads every sequence's cache at about one FLOP per byte per query
    // head of a group and stays memory-bound. At batch 1 both are memory-bound and the sum is the step's total
    // bytes over the bandwidth, as one roofline gives. Attention runs at the same shares of the same peak and
    // bandwidth (its compute side never binds at decode). GEMMs at an 8-bit peak (FP8, INT8) reach a smaller share
    // of it than 16-bit ones of theirs (decode_compute_efficiency_8bit: TensorRT-LLM v0.9.0's LLaMA 7B 128/128 rows,
    // 0.30-0.36 of the FP8 peak on H100, H200 and L40S against 0.90 of the FP16 peak on the A100).
    // A runtime that stores its experts' down projection (w2) so that the decode GEMV reduces over a strided weight
    // dimension (gpt-fast's mixtral-moe before commit 48328fb, "transposed w2 to have reduction dim be innermost dim":
    // w2 as [experts, intermediate, hidden] and einsum('tao, taoi -> tai'), lowered by Inductor to a product and a sum
    // over the strided intermediate axis) reads those bytes at strided_reduction_bandwidth_ratio of the contiguous rate:
    // priced as the extra bytes a contiguous read would take the same time over. The down projection is one of a gated
    // expert's three equal matrices (gate, up, down), one of a plain expert's two.
    const double down_share = arch.mlp == MlpKind::gated ? 1.0 / 3.0 : 0.5;
    auto strided_extra = [&](double experts) {
        return drt.expert_down_projection_strided && experts > 0 ? experts * down_share * (1.0 / std::max(1e-3, a.strided_reduction_bandwidth_ratio) - 1.0) : 0.0;
    };
    // A runtime whose routed experts run through one gathered quantized mat-vec per projection (mlx-lm's SwitchGLU:
    // QuantizedSwitchLinear calls mx.gather_qmm with the routed indices, unsorted below 64 of them, so a one-token step
    // takes MLX's one-row gathered kernel) reads them, at a one-row step, at gathered_expert_one_row_bandwidth_ratio of
    // a plain read (ml-explore/mlx issue #4509: 4-bit experts at M=1, 42 layers chained, 387 GB/s on an M3 Ultra whose
    // plain read of the same memory reaches 454-514 GB/s; at M=4 the same call reaches 542): priced as the extra bytes a
    // plain read would take the same time over. At more rows a step reads them like the other weights.
    auto gather_extra = [&](double experts, double rows) {
        return drt.expert_gather_one_row && experts > 0 && rows <= 1
                   ? experts * (1.0 / std::max(1e-3, a.gathered_expert_one_row_bandwidth_ratio) - 1.0) : 0.0;
    };
    // A runtime whose 4-bit column-parallel projections run a GEMM-tiled kernel at decode (text-generation-inference
    // 1.0.3: Weights.get_multi_weights_col hard-codes use_exllama False, so query_key_value and gate_up_proj take the
    // Triton matmul_248 kernel, whose smallest tile is 16 rows) spends int4_column_gemv_time_ratio of a 16-bit GEMV's
    // time on each such matrix (fpgaminer/GPTQ-triton's kernel benchmark on a 3090: at 1-16 rows the 4-bit kernel
    // takes 0.5-0.86 of torch's fp16 time on the same shapes): priced as the extra bytes that time would read, the
    // matrices' 4-bit bytes x (ratio x 16 / bits - 1). Dense 4-bit models only, at most 16 rows a step.
    const double column_params = arch.layers > 0 && moe_layers == 0
        ? double(arch.layers) * arch.hidden * (double(arch.heads + 2 * arch.kv_heads) * arch.head_dim + (arch.mlp == MlpKind::gated ? 2.0 : 1.0) * arch.intermediate) : 0.0;
    auto column_extra = [&](double rows) {
        return drt.int4_column_gemv_time_ratio > 0 && rows / groups <= 16 && wb.quantized_params > 0 && wb.bits_per_weight <= 4.5
            ? std::min(column_params, wb.quantized_params) * wb.bits_per_weight / 8 * std::max(0.0, drt.int4_column_gemv_time_ratio * 16 / wb.bits_per_weight - 1) : 0.0;
    };
    // FP4 GEMMs (NVFP4/MXFP4) take the same narrow-precision share: no FP4 decode measurement calibrates one, and a
    // narrower element makes the GEMM's share of its peak smaller, not larger (the plan says so: narrow_decode_gemm).
    const double gemm_share = narrow_decode_gemm(peak.precision) ? a.decode_compute_efficiency_8bit : a.decode_compute_efficiency;
    // A step of `rows` sequences at their average history: `prompt` tokens and half of `output` generated.
    auto decode_phase = [&](double prompt, double output, double rows) {
        const double ctx = prompt + output / 2;
        // The step's rows as the runtime runs them (padded to a compiled batch) and what they read.
        const double run_rows = padded_rows(rows);
        const StepRead read = step_weights_read(run_rows);
        const double weights_read = read.weights, rows_experts_read = read.experts;
        const bool dense_experts = read.all_experts_dense;
        const double rows_strided_bytes = strided_extra(rows_experts_read);
        const double rows_column_bytes = column_extra(run_rows);
        const double rows_gather_bytes = gather_extra(rows_experts_read, run_rows / groups);
        // What each step's attention spans (runtime.h attention_span): the history itself, or under static shapes the
        // compiled bucket that holds it, masked beyond the history but read and scored whole (transformers-neuronx
        // 2.18: each token bucket's program takes the KV cache sliced to its n_positions, and attention.score and
        // attention.context run over all of them; optimum-neuron 0.4: one token-generation bucket, the sequence length).
        const double span = drt.attention_span == "compiled_sequence"     ? std::max(ctx, compiled_sequence)
                            : drt.attention_span == "power_of_two_bucket" ? mean_power_of_two_bucket(prompt, std::max(1.0, output), drt.attention_bucket_min_tokens, compiled_sequence)
                                                                          : ctx;
        Phase ph;
        ph.precision = peak.precision;
        const double share = 1.0 / (tp * pp * groups);
        const double weight_flops_per_token = decode_flops_per_token(arch, w.model.active_params, 0); // no history: the weights' GEMMs alone
        // Under forward_all_experts every token runs every routed expert: experts / k times the routed GEMMs' FLOPs.
        const double routed_dense_factor = dense_experts && arch.moe.active_experts > 0 ? double(arch.moe.experts) / arch.moe.active_experts : 1.0;
        const double gemm_flops_per_token = weight_flops_per_token * (1 + routed_flop_share * (routed_dense_factor - 1)) +
                                            (head_pad_bytes > 0 ? 2.0 * head_pad_bytes / ((wb.quantized_params > 0 ? wb.bits_per_weight : 16.0) / 8.0) : 0.0) +
                                            (head_replicated_bytes > 0 ? 2.0 * head_params * (tp - 1) : 0.0);
        const double gemm_flops = run_rows * gemm_flops_per_token * share;
        const double attention_flops = run_rows * query_head_scale * (decode_flops_per_token(arch, w.model.active_params, span) - weight_flops_per_token) * share;
        const double kv_bytes = kv_reads * run_rows * kv_head_scale * kv_bytes_per_sequence(arch, kvb, span, 0) * share;
        const double flop_per_s = peak.achieved(gemm_share, a), bytes_per_s = d.bandwidth_bytes_per_s * a.decode_bandwidth_efficiency;
        // Tile quantisation of the rows (performance.h gemm_row_tile_efficiency): the dense GEMMs run the step's
        // sequences as rows; a grouped GEMM tiles each routed expert's own rows apart (CUTLASS GemmGrouped: one
        // problem per expert), on average rows x k / experts of them (each device holds all experts' columns under
        // tensor parallelism, whole experts with the same rows under expert parallelism). decode_compute_efficiency
        // is the dense share at full tiles (its anchor runs 256 rows: two whole tiles).
        const double tile = a.gemm_tile_elements;
        const double rows_per_expert = moe_layers > 0 ? (dense_experts ? run_rows : run_rows * arch.moe.active_experts / std::max(1, arch.moe.experts)) : 0.0;
        const double routed_share_now = routed_flop_share * routed_dense_factor / (1 + routed_flop_share * (routed_dense_factor - 1));
        const double slow = (1 - routed_share_now) / gemm_row_tile_efficiency(run_rows / groups, tile) +
                            (routed_share_now > 0 ? routed_share_now / gemm_row_tile_efficiency(rows_per_expert, tile) : 0.0);
        const Roofline gemm = roofline(gemm_flops, device_weights_read(weights_read + rows_strided_bytes + rows_column_bytes + rows_gather_bytes,
                                                                     rows_experts_read + rows_strided_bytes + rows_gather_bytes),
                                         flop_per_s / slow, bytes_per_s);
        const Roofline attention = roofline(attention_flops, kv_bytes, flop_per_s, bytes_per_s);
        const Roofline routing = roofline(0, routing_bytes(run_rows), flop_per_s, bytes_per_s);
        ph.roofline = routing_per_token > 0 ? roofline_sequence(roofline_sequence(gemm, attention), routing) : roofline_sequence(gemm, attention);
        if (e.explain) {
            auto part = [](const Roofline& r) { return std::string(r.compute_bound ? "compute" : "memory") + "-bound " + format_sig(r.time_s * 1e3, 3) + " ms"; };
            ph.name = "decode step (rows " + format_sig(rows, 6) + ", " + format_sig(ctx, 6) + "-token history" +
                      (run_rows > rows ? ", run as the compiled batch of " + format_sig(run_rows, 6) + " rows (" + drt.id + " pads to it)" : std::string()) +
                      (span != ctx ? ", attention over " + format_sig(span, 6) + " tokens (" + drt.id + ": " +
                                         (drt.attention_span == "compiled_sequence" ? std::string("the compiled sequence length") : std::string("the mean compiled bucket")) + ")" : std::string()) +
                      (heads_sharded ? ", heads run as " + format_sig(sharded.query, 4) + " query / " + format_sig(sharded.kv, 4) + " KV over " + std::to_string(head_ranks) + " ranks" : std::string()) +
                      (dense_experts ? ", every routed expert over every row" : std::string()) +
                      (kv_reads > 1 ? ", KV cache read " + format_sig(kv_reads, 3) + "x: once per query head" : "") +
                      "; weight GEMMs " + part(gemm) +
                      (slow > 1.0005 ? " (rows padded to " + format_sig(tile, 4) + "-row tiles" + (rows_per_expert > 0 ? ", " + format_sig(rows_per_expert, 4) + " per routed expert" : std::string()) +
                                           ": x" + format_sig(slow, 3) + " compute)" : std::string()) + " + attention over the KV cache " + part(attention) +
                      (routing_per_token > 0 ? " + the routed experts' expand, activation and finalize kernels " + gb(routing.bytes) + " " + part(routing) : std::string()) + ")";
        }
        if (e.explain && rows_column_bytes > 0)
            ph.name += "; " + drt.id + "'s 4-bit query/key/value and gate/up projections run a kernel at " + format_sig(drt.int4_column_gemv_time_ratio, 3) +
                       " of a 16-bit GEMV's time, priced as " + gb(device_weights_read(rows_column_bytes, 0)) + " more read per device";
        ph.communication_s = tp_comm(run_rows / groups) + pp_comm(run_rows) + a2a_comm(run_rows);
        double device_s = pp * ph.roofline.time_s + ph.communication_s;
        if (drt.recomputes_context) {
            // No KV cache (Optimum's ORTModelForCausalLM with use_cache=False): the step that emits token j runs the
            // forward pass over all prompt + j tokens, a prefill of that length (prefill_phase), so the figure is the
            // mean of that prefill over the output's steps, j = 0 .. output - 1 (the first runs the prompt alone). Summed
            // over at most kPoints equal spans of those steps, each at its mean length (exact where the output is that short).
            constexpr double kPoints = 64;
            const double steps = std::max(1.0, output), spans = std::min(steps, kPoints);
            double sum_s = 0;
            for (double k = 0; k < spans; ++k) sum_s += prefill_phase(prompt + (k + 0.5) * steps / spans - 0.5, rows).time_s;
            const Phase mid = prefill_phase(prompt + 0.5 * (steps - 1), rows);
            ph.roofline = mid.roofline;
            ph.communication_s = mid.communication_s;
            device_s = sum_s / spans;
            if (e.explain)
                ph.name = "decode step without a KV cache (rows " + format_sig(rows, 6) + "; " + drt.id + " runs the whole sequence every step: " +
                          format_sig(prompt + 0.5 * (steps - 1), 6) + " tokens at the middle of the output, a mean of " + format_sig(1e3 * device_s, 3) + " ms over its " +
                          format_sig(steps, 6) + " steps)";
        }
        // an eager loop: the device waits on the host for whatever the host takes beyond the device's own time; the
        // step's count holds one sequence's bookkeeping, each further sequence adds host_ops_per_added_sequence
        const double step_host_ops = host_ops > 0 ? host_ops + drt.host_ops_per_added_sequence * std::max(0.0, rows - 1) : 0.0;
        const double step_host_s = host_s + (step_host_ops - host_ops) * a.eager_op_host_s;
        ph.overhead_s = (host_ops > 0 ? std::max(0.0, step_host_s - device_s) : a.decode_step_overhead_s) + serial_host_s;
        ph.time_s = device_s + ph.overhead_s;
        if (e.explain && host_ops > 0)
            ph.name += "; " + drt.id + " issues " + format_sig(step_host_ops, 4) + " host operations x " + format_sig(1e6 * a.eager_op_host_s, 3) + " us" +
                       (triton_ops > 0 ? ", " + format_sig(triton_ops, 4) + " of them Triton launches at " + format_sig(1e6 * std::max(a.triton_launch_host_s, a.eager_op_host_s), 3) + " us," : "") +
                       " = " + format_sig(1e3 * step_host_s, 3) + " ms" + (step_host_s > device_s ? ", which the device waits on" : ", under the device's time");
        if (e.explain && serial_host_s > 0)
            ph.name += "; then " + drt.id + " carries the " + format_sig(arch.vocab, 6) + " logits through a Python list " + format_sig(drt.serial_vocab_round_trips, 3) +
                       " time(s) at " + format_sig(1e9 * a.python_value_round_trip_host_s, 3) + " ns each = " + format_sig(1e3 * serial_host_s, 3) + " ms, the device idle";
        return ph;
    };
    const Phase dec = decode_phase(sh.prompt, sh.output, batch);
    if (!e.numbers_only) c.phases.push_back(dec);
    // An SRAM system's decode step is its SRAM reads (microseconds at a wafer's or a chip's bandwidth), the hand-offs
    // between its stages and decode_step_overhead_s, a GPU engine's kernel-launch time (assumptions.json), which is most
    // of the step here. No stored source gives such a system's own fixed time per token: Cerebras says only that a
    // model larger than one CS-3 is split over several ("70B models fit on as few as four systems") and that its first
    // inference software "utilized only a fraction of its peak bandwidth, compute, and IO capacity" (its October 2024
    // release notes), with no per-layer, per-wafer or per-hop time. So the figure is a GPU engine's step over this
    // device's memory, and the plan says so (issue 20, docs/accuracy-history.md item 85).
    if (d.kind == DeviceKind::sram_system && host_ops <= 0 && e.explain)
        e.c.notes.push_back("decode step not calibrated for SRAM systems: " + format_sig(1e3 * dec.overhead_s, 3) + " ms of its " +
                            format_sig(1e3 * dec.time_s, 3) + " ms is decode_step_overhead_s, a GPU engine's kernel-launch time; no source gives " +
                            d.id + "'s own fixed time per token or the hop between its systems, so the per-user speed is a GPU engine's step over " +
                            d.id + "'s memory, not calibrated for it");

    Phase pre = prefill_phase(sh.prompt);
    if (e.explain)
        pre.name = "prefill (" + format_sig(sh.prompt, 6) + " tokens" +
                   (encoded_tokens(sh.prompt) > sh.prompt ? ", encoded padded to the compiled " + format_sig(encoded_tokens(sh.prompt), 6) + " (" + drt.id + ")" : std::string()) + ")";
    if (!e.numbers_only) c.phases.push_back(pre);
    // Device time per sequence's prefill when a batch runs (throughput, not one request's first token): prompts
    // shorter than the step's token budget share a step with as many others as fit in it (continuous batching
    // with chunked prefill, Agrawal et al. 2024; TensorRT-LLM's static batches prefill the whole batch at once).
    const double packed_seqs = drt.prefill_pads_to_compiled_context ? 1.0 // one prompt per context-encoding call (ctx_batch_size 1)
                                                                     : std::clamp(std::floor(a.prefill_chunk_tokens / std::max(1.0, sh.prompt)), 1.0, std::max(1.0, batch));
    const double prefill_per_seq_s = packed_seqs > 1 ? prefill_phase(sh.prompt, packed_seqs).time_s / packed_seqs : pre.time_s;

    // Serving under a steady arrival rate (continuous batching, chunked prefill): each step, batch / output
    // sequences finish and as many arrive, and their prefill shares the step (Sarathi-Serve's stall-free
    // batching, Agrawal et al. 2024): step = decode step + batch x prefill / output. Its inverse is each
    // user's speed (1 / TPOT) and batch / step the replica's output tokens/s, prefill counted.
    // A closed loop of users (serve.closed_loop: each sends its next request when its last completes) prefills every
    // request between the decode steps just as a steady arrival rate does: batch / output requests start per step.
    const bool mixed = e.mixed_prefill || at_a_rate || w.serve.closed_loop;
    const double step_s = mixed ? dec.time_s + batch * prefill_per_seq_s / std::max(1.0, sh.output) : dec.time_s;
    auto step_why = [&] { return format_sig(batch, 6) + " sequences per step; " + gb(dec.roofline.bytes) + " read and " +
                                 format_sig(dec.roofline.flops / 1e9, 4) + " GFLOP per device per step" +
                                 (mixed ? "; plus the prefill of the " + format_sig(batch / std::max(1.0, sh.output), 3) +
                                              (w.serve.closed_loop && !at_a_rate ? " requests the users send per step as their last ones complete (" : " requests that arrive per step at a steady rate (") + format_sig(prefill_per_seq_s * 1e3, 3) + " ms each" +
                                              (packed_seqs > 1 ? ", " + format_sig(packed_seqs, 4) + " prompts per prefill step" : std::string()) + ")" : std::string()); };
    e.put("decode_step_s", step_s, Label::modelled, step_why);
    e.put("decode_tokens_per_s_per_user", 1.0 / step_s, Label::modelled, [&] { return std::string("1 / decode step time; " + step_why()); });
    if (w.stage == Stage::batch) {
        // Offline: every sequence is prefilled once and decoded `output` steps in a batch of `batch`, so the
        // device time per sequence is prefill + output x step / batch (continuous batching, chunked prefill).
        const double per_sequence_s = prefill_per_seq_s + sh.output * dec.time_s / batch;
        // A fixed request count (serve.requests) of uniform lengths runs in waves: the engine admits as many as
        // the batch holds, they finish together `output` steps later and the next ones take their places
        // (TensorRT-LLM's perf overview: prepare_dataset.py --num-requests, input and output stdev 0, every request
        // queued at once, scheduling policy Guaranteed No Evict). So floor(N / batch) full waves and a last, short
        // one of the remainder, whose `output` steps run at its own smaller batch: the run ends with the last
        // request, so those steps count although they carry fewer sequences.
        double full_waves = 0, rest = 0, run_s = 0;
        if (run_requests > 0) {
            full_waves = std::floor(run_requests / batch);
            rest = run_requests - full_waves * batch;
            auto rest_per_sequence_s = [&](double rows) {
                const double packed = std::clamp(std::floor(a.prefill_chunk_tokens / std::max(1.0, sh.prompt)), 1.0, std::max(1.0, rows));
                const double p_s = packed > 1 ? prefill_phase(sh.prompt, packed).time_s / packed : pre.time_s;
                return p_s + sh.output * decode_phase(sh.prompt, sh.output, rows).time_s / rows;
            };
            run_s = full_waves * batch * per_sequence_s + (rest > 1e-9 ? rest * rest_per_sequence_s(rest) : 0.0);
        }
        const double offline_tokens_per_s = run_s > 0 ? run_requests * sh.output / run_s : sh.output / per_sequence_s;
        e.put("throughput_tokens_per_s", offline_tokens_per_s, Label::modelled, [&] {
            return format_sig(batch, 6) + " sequences in flight: " + format_sig(sh.output, 6) + " output tokens / (prefill " +
                   format_sig(prefill_per_seq_s * 1e3, 3) + " ms" +
                   (packed_seqs > 1 ? " (" + format_sig(packed_seqs, 4) + " prompts per " + format_sig(a.prefill_chunk_tokens, 6) + "-token prefill step)" : std::string()) +
                   " + " + format_sig(sh.output, 6) + " x step / " + format_sig(batch, 6) + ")" +
                   (offline.found ? ", the batch that gives the most output tokens/s within memory" : "") +
                   (run_s > 0 ? "; " + format_sig(run_requests, 8) + " requests (serve.requests) in waves of uniform length: " + format_sig(full_waves, 6) +
                                    " of " + format_sig(batch, 6) + (rest > 1e-9 ? " and a last one of " + format_sig(rest, 6) + " at its own batch" : std::string()) +
                                    ", " + format_sig(100 * (offline_tokens_per_s * per_sequence_s / sh.output - 1), 3) + " % against a steady state"
                              : std::string()); });
        if (offline.found)
            e.put("batch_sequences", batch, Label::arithmetic, [&] { return std::string("sequences per step that maximize output tokens/s within memory (powers of two up to the most whose KV cache fits)"); });
    } else {
        e.put("throughput_tokens_per_s", batch / step_s, Label::modelled, [&] {
            return std::string("batch / decode step time; " + step_why()) +
                   (at_rate.found ? "; at an arrival rate the engine batches up to the largest output tokens/s that meets the latency targets" : ""); });
        if (at_rate.found)
            e.put("batch_sequences", batch, Label::arithmetic, [&] { return std::string("sequences per step: the batch with the most output tokens/s whose per-user speed and first-token time still meet the targets (powers of two up to the most whose KV cache fits)"); });
    }
    e.put("ttft_s", pre.time_s, Label::modelled, [&] { return std::string("prefill of " + format_sig(sh.prompt, 6) + " prompt tokens, no queue"); });
    // A wafer-scale or SRAM system's prefill roofline runs at a peak hundreds of times a GPU's, so its first token
    // comes out in microseconds to milliseconds; the only first-token time published for one (Cerebras' own service,
    // catalog/devices/cerebras-cs3.json notes: 0.24 s for Llama 3.1 405B) is a served figure, about 11x this model's
    // roofline for that model at a 1,000-token prompt, its prompt length not stated: what the roofline leaves out
    // (request handling, scheduling, the network) is most of what a user waits for there. Said beside the figure.
    // Its memory terms are a GPU serving engine's (a runtime context of runtime_context_bytes per device unless the catalog
    // records the device's own reserve, memory.runtime_reserved_MB; the engine's profiled activation working set); no SRAM
    // system's compiler-scheduled allocation is modelled, and on a chip of a few hundred MB they alone can decide the fit.
    // Said, not hidden.
    if (d.kind == DeviceKind::sram_system && e.explain)
        e.c.notes.push_back(runtime_reserve_recorded(d)
                                ? "memory not calibrated for SRAM systems: the per-device overhead (" + gb(c.memory.overhead_bytes) +
                                      ") is " + d.id + "'s own recorded reserve (catalog memory.runtime_reserved_MB), but the activation working set (" +
                                      gb(c.memory.activations_bytes) + ") and the usable share are GPU engines' figures; how " + d.id +
                                      "'s compiler lays weights, KV cache and activations over its " + gb(c.memory.capacity_bytes) +
                                      " per device is not modelled"
                                : "memory not calibrated for SRAM systems: the per-device overhead (" + gb(c.memory.overhead_bytes) +
                                      ", a GPU serving engine's runtime context) and the activation working set (" + gb(c.memory.activations_bytes) +
                                      ") are GPU engines' figures; how " + d.id + "'s compiler lays weights, KV cache and activations over its " +
                                      gb(c.memory.capacity_bytes) + " per device is not modelled, so its fit is a GPU engine's fit");
    if (d.kind == DeviceKind::sram_system && e.explain)
        e.c.notes.push_back("time to first token " + format_figure("ttft_s", pre.time_s) + " is the prefill on " + d.id +
                            "'s peak compute alone; served, the first token waits for request handling, scheduling and the network, "
                            "which this figure leaves out (the device's catalog notes give a published served figure)");

    // Latency under load: the replica as an M/G/1 server of GPU time per request.
    if (e.search_batch && (!w.serve.traffic.empty() || w.serve.requests_per_s > 0)) { // a batch search's trials need no queue
        std::vector<TrafficClass> classes = w.serve.traffic;
        if (classes.empty()) classes.push_back({"requests", w.serve.requests_per_s, sh.prompt, sh.output});
        if (e.arrivals_split > 1)
            for (auto& tc : classes) tc.requests_per_s /= e.arrivals_split;
        double lambda = 0, m1 = 0, m2 = 0;
        std::vector<double> prefill_s;
        for (const auto& tc : classes) {
            const double p_s = prefill_phase(tc.prompt_tokens).time_s;
            // its share of the decode steps, at its own history length
            const double service = p_s + tc.output_tokens * decode_phase(tc.prompt_tokens, tc.output_tokens, batch).time_s / batch;
            prefill_s.push_back(p_s);
            lambda += tc.requests_per_s;
            m1 += tc.requests_per_s * service;
            m2 += tc.requests_per_s * service * service;
        }
        // When the workload leaves the count to the planner, the arrivals are split evenly over the fewest
        // replicas whose queue is stable and whose p95 time to first token meets the target (the fleet that
        // meets the rate; decide.cpp prices that many); a fixed count takes the whole rate.
        int replicas = 1;
        auto wait_at = [&](int k) { return mg1_wait(lambda / k, m1 / lambda, m2 / lambda); };
        if (w.hardware.count <= 0) {
            // The wait falls as the replicas grow (each gets lambda / k), so the fewest that meet it are found
            // by doubling from the fewest with a stable queue, then bisecting. The prefill itself no count
            // shortens: past the target, the fewest stable replicas are reported (and the target is missed).
            auto ok = [&](int k) {
                const QueueWait t = wait_at(k);
                return t.stable && (ttft_target <= 0 || t.p95_s + prefill_s[0] <= ttft_target);
            };
            const bool hopeless = ttft_target > 0 && prefill_s[0] > ttft_target;
            replicas = fewest_replicas(m1 * (1 + 1e-9), [&](int k) { return hopeless ? wait_at(k).stable : ok(k); });
            e.put("replicas_for_rate", replicas, Label::modelled, [&] {
                return "the fewest replicas whose M/G/1 queue is stable" + std::string(ttft_target > 0 ? " and whose p95 time to first token meets the target" : "") +
                       " with " + format_sig(lambda, 4) + " requests/s split evenly over them"; });
        }
        const QueueWait q = wait_at(replicas);
        auto qwhy = [&] { return format_sig(lambda / replicas, 4) + " requests/s per replica (" + std::to_string(replicas) + ") over " + std::to_string(classes.size()) +
                                 " traffic class(es); utilization " + format_sig(100 * q.utilization, 3) + " %; first class's prefill " +
                                 format_sig(prefill_s[0], 3) + " s plus the M/G/1 wait"; };
        e.put("utilization_ratio", q.utilization, Label::modelled, [&] { return std::string("arrival rate x mean GPU time per request"); });
        e.put("p50_ttft_s", q.p50_s + prefill_s[0], Label::modelled, qwhy);
        e.put("p95_ttft_s", q.p95_s + prefill_s[0], Label::modelled, qwhy);
        if (!q.stable && !e.numbers_only) c.notes.push_back("the request rate exceeds what one replica serves (utilization >= 100 %): the queue grows without bound");
        // Workload isolation (lesson 003): the first (interactive) class alone on its own replica.
        if (classes.size() > 1) {
            const auto& tc = classes.front();
            const double service = prefill_s[0] + tc.output_tokens * decode_phase(tc.prompt_tokens, tc.output_tokens, batch).time_s / batch;
            const QueueWait alone = mg1_wait(tc.requests_per_s, service, service * service);
            e.put("isolated_p95_ttft_s", alone.p95_s + prefill_s[0], Label::modelled, [&] {
                return "the \"" + tc.name + "\" class alone on its own replica (the other classes moved elsewhere): utilization " +
                       format_sig(100 * alone.utilization, 3) + " %";
            });
        }
        // Prefill/decode disaggregation (DistServe, Zhong et al., OSDI 2024: prefill and decode on separate
        // devices, so no prefill stalls a decode step): a prefill pool sized as an M/G/1 queue of prompts whose
        // p95 wait + prefill + the KV cache's hand-off over the scale-up link meets the first-token target, and a
        // decode pool at the batch whose pure decode step meets the per-user speed, against this colocated
        // replica at its mixed step. Reported beside the plan in replicas of this many devices; the pricing
        // stays colocated.
        const double link_bytes_per_s = d.interconnect_bytes_per_s * a.interconnect_efficiency;
        if (at_rate.found && e.search_batch && link_bytes_per_s > 0) {
            const BatchChoice pure = best_batch(w, cat, d, n, a, e.basis, [&](const Eval& t) {
                return tps_target <= 0 || t.value("decode_tokens_per_s_per_user") >= tps_target; });
            const double handoff_s = sh.prompt * kv_bytes_per_token(arch, kvb) / (tp * pp) / link_bytes_per_s;
            const double demand_tokens_per_s = lambda * sh.output;
            if (pure.found && pure.throughput > 0) {
                const double p_s = prefill_s[0];
                auto prefill_ok = [&](int k) {
                    const QueueWait t = mg1_wait(lambda / k, p_s, p_s * p_s);
                    return t.stable && (ttft_target <= 0 || t.p95_s + p_s + handoff_s <= ttft_target);
                };
                const bool hopeless = ttft_target > 0 && p_s + handoff_s > ttft_target;
                const int k = fewest_replicas(lambda * p_s * (1 + 1e-9), [&](int x) { return hopeless ? mg1_wait(lambda / x, p_s, p_s * p_s).stable : prefill_ok(x); });
                const double decode_replicas = std::ceil(demand_tokens_per_s / pure.throughput);
                const double colocated = std::max(std::ceil(demand_tokens_per_s / e.value("throughput_tokens_per_s")), double(replicas));
                auto dwhy = [&] {
                    return std::to_string(k) + " prefill replica(s) (each prompt " + format_sig(p_s * 1e3, 3) + " ms + KV hand-off " +
                           format_sig(handoff_s * 1e3, 3) + " ms) + " + format_sig(decode_replicas, 6) + " decode replica(s) at batch " +
                           format_sig(pure.batch, 6) + " (" + format_sig(pure.throughput, 4) + " output tokens/s each, no prefill in its steps), of " +
                           std::to_string(n) + " device(s) each, against " + format_sig(colocated, 6) + " colocated";
                };
                e.put("disaggregated_replicas", k + decode_replicas, Label::modelled, dwhy);
                e.put("colocated_replicas", colocated, Label::modelled, dwhy);
                if (e.explain)
                    c.notes.push_back("prefill/decode disaggregation: " + dwhy() +
                                      (k + decode_replicas < colocated ? ": fewer devices split" : ": no fewer devices split"));
            }
        }
    }

    if (!c.fits) {
        c.regime = Regime::capacity;
        if (e.explain) c.regime_why = "needs " + gb(m.total_bytes) + " per device but " + gb(m.capacity_bytes) + " is usable";
    } else {
        c.regime = dec.roofline.compute_bound ? Regime::compute : Regime::bandwidth;
        if (e.explain) c.regime_why = "decode: " + format_sig(dec.roofline.intensity_flop_per_byte, 3) + " FLOP/byte against a ridge of " +
                       format_sig(dec.roofline.ridge_flop_per_byte, 3) + " FLOP/byte; most of the step " +
                       (dec.roofline.compute_bound ? "in compute-bound weight GEMMs" : "bound by memory (weights and KV cache read)") +
                       (host_ops > 0 && dec.overhead_s > 0 ? "; the host's eager loop (" + drt.id + ") is slower still, so the device waits on it" : "");
    }
    if (e.explain && found_rt && !w.serve.runtime.empty()) {
        c.notes.push_back("decode runtime: " + drt.name + " [" + drt.id + "]" + (drt.meaning.empty() ? "" : ": " + drt.meaning));
        if (host_ops > 0 && drt.calibrated_by.empty())
            c.notes.push_back("not calibrated for this runtime (" + drt.id + "): its host operations per step are counted from its code and priced at " +
                              (drt.host_op_s > 0 && a.eager_op_host_s == drt.host_op_s
                                   ? "its own measured host time per operation (runtimes.json host_op_s, " + format_sig(1e6 * drt.host_op_s, 3) + " us: " + drt.host_op_source + ")"
                                   : std::string("eager_op_host_s")) +
                              std::string(triton_ops > 0 ? " (its Triton-launched 4-bit projections at triton_launch_host_s)" : "") +
                              ", not fitted; the band spans that cost's range (known weak area: eager decode loops, whose speed follows the host CPU)");
        if (serial_host_s > 0 && drt.calibrated_by.empty())
            c.notes.push_back("not calibrated for this runtime (" + drt.id + "): after each step it carries the vocabulary's logits through a Python list, "
                              "counted from its code and priced at python_value_round_trip_host_s, not fitted; the band spans that cost's range");
        if (drt.served_host_time_unmodelled_share > 0)
            c.notes.push_back("throughput not calibrated for this runtime (" + drt.id + "): a served run's host side (API server, scheduling, "
                              "output processing of every running sequence) is not modelled; the plan is the device's time alone, and the "
                              "band's slow end allows the host up to " + format_sig(100 * drt.served_host_time_unmodelled_share, 3) +
                              " % of the run (runtimes.json served_host_time_unmodelled_share)");
        if (drt.graphs_step_saving_s > 0)
            c.notes.push_back(w.framework == "llama.cpp" && d.kind == DeviceKind::gpu && d.vendor == "NVIDIA"
                                  ? "step time for this runtime (" + drt.id + "): the llama.cpp CUDA rule's fixed time a step, measured on builds "
                                    "before CUDA graphs, less the launch time graphs were measured removing (" +
                                    format_sig(1e3 * drt.graphs_step_saving_s, 2) + " ms, " + format_sig(1e3 * drt.graphs_step_saving_low_s, 2) + "-" +
                                    format_sig(1e3 * drt.graphs_step_saving_high_s, 2) + " ms across the band; runtimes.json), not fitted on this release's rows"
                                  : "decode runtime " + drt.id + " changes nothing here: it shortens the step of llama.cpp's CUDA backend on NVIDIA GPUs only");
        if (strided_extra(step_weights_read(step_rows).experts) > 0 && drt.calibrated_by.empty())
            c.notes.push_back("not calibrated for this runtime (" + drt.id + "): its experts' down projection reduces over a strided weight dimension, "
                              "read at strided_reduction_bandwidth_ratio (" + format_sig(a.strided_reduction_bandwidth_ratio, 2) + ") of the contiguous "
                              "rate, a figure measured on another Inductor kernel, not fitted; the band spans its range");
        if (gather_extra(step_weights_read(step_rows).experts, step_rows / groups) > 0 && drt.calibrated_by.empty())
            c.notes.push_back("not calibrated for this runtime (" + drt.id + "): at one row a step its routed experts go through a gathered "
                              "quantized mat-vec read at gathered_expert_one_row_bandwidth_ratio (" + format_sig(a.gathered_expert_one_row_bandwidth_ratio, 2) +
                              ") of a plain read, a figure measured on another chip and MLX release, not fitted; the band spans its range");
        if ((static_cache || heads_sharded || step_rows > batch || all_experts_dense) && drt.calibrated_by.empty())
            c.notes.push_back("not calibrated for this runtime (" + drt.id + "): its static shapes (the compiled bucket or batch each step runs, "
                              "heads padded over its ranks, experts run densely) are counted from its code and priced on the decode roofline, "
                              "not fitted; what its compiled kernels take beyond the bytes they read is not modelled");
        if (drt.recomputes_context && drt.calibrated_by.empty())
            c.notes.push_back("not calibrated for this runtime (" + drt.id + "): it calls the model without a KV cache, so every step runs the whole "
                              "sequence so far at prefill_compute_efficiency; its KV-cache memory above is what a cached run would hold, not what it holds");
        if (drt.profile_holds_allreduce_inputs && c.layout.tensor_parallel > 1 && drt.calibrated_by.empty())
            c.notes.push_back("KV-cache capacity not calibrated for this runtime (" + drt.id + "): how many of its profile pass's all-reduce inputs "
                              "are still reserved when it reads the free memory depends on how far the host runs ahead of the device; counted "
                              "as allreduce_inputs_held_share of them, and the band spans that share's range");
        if (drt.profile_sampler_bytes_per_logit > 0 && drt.calibrated_by.empty())
            c.notes.push_back("KV-cache capacity not calibrated for this runtime (" + drt.id + "): its profile's dummy sampler is counted from its "
                              "code for vllm_profile_sampler_sequences requests (its max_num_seqs; the band spans the engine's defaults), and "
                              "whatever else the engine leaves beside weights and cache is not modelled");
    }
    e.headline = w.stage == Stage::batch ? e.value("throughput_tokens_per_s") : 1.0 / step_s;

    // Interactive serving with latency targets: the most output tokens/s any batch reaches while every user
    // still gets the target speed and first-token time (at an arrival rate, the batch searched above). A count
    // search's trial skips that search: it ranks by fit, per-user speed, first token and users held.
    if (e.search_batch && (at_rate.found || !e.count_trial) && w.stage == Stage::serve && (tps_target > 0 || ttft_target > 0) && c.fits &&
        peak.flop_per_s > 0) {
        const BatchChoice within = at_rate.found ? at_rate : best_batch(w, cat, d, n, a, e.basis, meets_targets);
        if (within.found) {
            auto why = [&] { return "batch " + format_sig(within.batch, 6) + ": the largest output tokens/s at which each user still gets " +
                                    (tps_target > 0 ? format_sig(tps_target, 4) + " tokens/s" : std::string("any speed")) +
                                    (ttft_target > 0 ? " and a first token within " + format_sig(ttft_target, 4) + " s" : ""); };
            e.put("max_throughput_within_targets_tokens_per_s", within.throughput, Label::modelled, why);
            e.put("batch_within_targets_sequences", within.batch, Label::arithmetic, why);
        } else if (e.explain) {
            c.notes.push_back("no batch meets the latency targets on " + std::to_string(n) + " x " + d.id);
        }
    }
}

} // namespace

// A MoE model on several devices of a serving engine is laid out both ways, tensor x pipeline and expert
// parallel (eval_serve_layout), and the one that fits with the most output tokens/s kept, the other named
// in a note: wide expert parallelism pays when the all-to-all stays on a fast scale-up link (lesson 004:
// "Large MoE models want wide expert parallelism: NVL72, Helios or a TPU slice"), and loses where it must
// cross the scale-out network in every MoE block.
namespace {

// One replica of n devices, the MoE laid out both ways (eval_serve with the basis set).
void eval_serve_laid_out(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e) {
    const auto& arch = w.model.model.arch;
    const bool moe = arch.has_moe && !w.model.size_only && arch.moe.experts > 1;
    // Expert parallelism needs a link to carry its all-to-all: a published scale-up rate or a scale-out network.
    const bool carried = d.interconnect_bytes_per_s > 0 || e.basis->net.multi_node;
    if (!moe || n <= 1 || !carried || e.basis->layer_split) return eval_serve_layout(w, cat, d, n, a, 1, e);
    Eval dense = e, wide = e;
    eval_serve_layout(w, cat, d, n, a, 1, dense);
    eval_serve_layout(w, cat, d, n, a, n, wide);
    auto tokens_per_s = [](const Eval& x) { return x.value_or("throughput_tokens_per_s", 0.0); };
    const bool take_wide = wide.c.fits != dense.c.fits ? wide.c.fits : tokens_per_s(wide) > tokens_per_s(dense);
    Eval& kept = take_wide ? wide : dense;
    const Eval& other = take_wide ? dense : wide;
    if (e.explain) {
        auto a2a = [&](const Eval& x) { return x.c.phases.empty() ? 0.0 : x.c.phases.front().communication_s; };
        const Network& net = e.basis->net;
        const bool spans = net.domain_size < n;
        auto describe_one = [&](const Eval& x) {
            return (x.c.layout.expert_parallel > 1 ? "expert parallel " + std::to_string(n) + " (attention tensor parallel " + std::to_string(x.c.layout.tensor_parallel) + ")"
                                                   : "tensor parallel " + std::to_string(x.c.layout.tensor_parallel) + " x " + std::to_string(x.c.layout.pipeline_parallel) + " stage(s)") +
                   (x.c.fits ? ": " + format_sig(tokens_per_s(x), 4) + " output tokens/s, " + format_sig(a2a(x) * 1e3, 3) + " ms of communication per decode step" : ": does not fit");
        };
        kept.c.notes.push_back("MoE layout: " + describe_one(kept) + ", kept over " + describe_one(other) + "; the expert all-to-all of every MoE block runs " +
                               (spans ? "across the scale-out network (" + std::to_string(n) + " devices span " + std::to_string((n + net.domain_size - 1) / net.domain_size) +
                                            " scale-up domains of " + std::to_string(net.domain_size) + ")"
                                      : "inside one scale-up domain"));
    }
    e = std::move(kept);
}

} // namespace

void eval_serve(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e) {
    // The basis: the caller's (a batch search's trial), else looked up here for this evaluation and its trials.
    std::optional<ServeBasis> own;
    const ServeBasis* const lent = e.basis;
    if (!lent) e.basis = &own.emplace(serve_basis(w, cat, d, a, e.explain));
    eval_serve_laid_out(w, cat, d, n, a, e);
    e.basis = lent; // `own` ends here
}

// [SECTION] serving layouts: a given count split into replicas ------------------------------------

namespace {

// The n devices as `replicas` data-parallel copies of n / replicas devices each (tensor parallel inside the
// fast domain, pipeline stages past it, as eval_serve lays out one replica): one replica is evaluated at its
// share of the arrival rate (and of the concurrent users, when they are split: splits_users), and its throughput
// and user capacity are multiplied by the replicas.
Eval eval_serve_replicas(const Workload& w, const Catalog& cat, const Device& d, int n, int replicas, const Assumptions& a, bool explain, bool count_trial,
                         bool numbers_only, const ServeBasis* basis) {
    Eval e;
    e.basis = basis; // the search's, lent for this evaluation (eval_serve); null: its own
    e.explain = explain;
    e.count_trial = count_trial;
    e.numbers_only = numbers_only && !explain;
    if (!e.numbers_only) { // a trial is never shown: it needs no names
        e.c.device = d.id;
        e.c.device_name = d.name;
    }
    e.c.count = n;
    if (replicas > 1) { // the replica's share, applied by the evaluation (Eval::arrivals_split, users_share)
        e.arrivals_split = replicas;
        if (splits_users(w)) e.users_share = std::ceil(w.serve.concurrent_users / replicas);
    }
    eval_serve(w, cat, d, n / replicas, a, e);
    e.basis = nullptr; // the lender's: not kept past the evaluation
    if (replicas <= 1) return e;
    e.c.layout.data_parallel = replicas;
    for (const char* k : {"throughput_tokens_per_s", "max_concurrent_users", "max_throughput_within_targets_tokens_per_s"}) {
        if (e.numbers_only) {
            for (int i = 0; i < e.nums_n; ++i)
                if (e.nums[i].first == k) e.nums[i].second *= replicas;
            continue;
        }
        auto it = e.c.figures.find(k);
        if (it == e.c.figures.end()) continue;
        it->second.value *= replicas;
        it->second.low *= replicas;
        it->second.high *= replicas;
        if (explain) it->second.why += "; x " + std::to_string(replicas) + " replicas of " + std::to_string(n / replicas) + " device(s)" +
                                       (splits_users(w) ? ", " + format_sig(std::ceil(w.serve.concurrent_users / replicas), 6) + " users each" : "");
    }
    if (w.stage == Stage::batch) e.headline = e.value("throughput_tokens_per_s");
    return e;
}

// Offline jobs and serving at an arrival rate leave the batch to the engine (offline_batch, rate_batch), and
// on n devices the layout too: every split of n into replicas x devices per replica (powers of two) is
// evaluated, exhaustively, and the one with the most output tokens/s kept (at an arrival rate, the most that
// still meets the latency targets). A tie keeps fewer, larger replicas (a shorter time to first token).
// A given batch or user count is a fixed engine configuration: one replica of n, as the benchmark ran it.
double layout_score(const Workload& w, const Eval& e) {
    if (!e.c.fits) return -1;
    const bool targets = w.serve.ttft_target_s > 0 || w.serve.tokens_per_s_per_user_target > 0;
    const char* key = rate_batch(w) && targets ? "max_throughput_within_targets_tokens_per_s" : "throughput_tokens_per_s";
    return e.value_or(key, 0);
}

} // namespace

// A point of the serving search from its evaluation: its count, split and layout, and the figures the objective
// ranks by (`score` is the split's output tokens/s, within the targets at a rate; the count search sets its own).
ServingPoint serving_point(const Workload& w, const Eval& e) {
    const Candidate& c = e.c;
    auto value = [&](const char* k) { return e.value_or(k, 0.0); };
    ServingPoint p;
    p.count = c.count;
    p.replicas = std::max(1, c.layout.data_parallel);
    p.devices_per_replica = c.count / p.replicas;
    p.tensor_parallel = c.layout.tensor_parallel;
    p.pipeline_parallel = c.layout.pipeline_parallel;
    p.expert_parallel = c.layout.expert_parallel;
    p.batch_sequences = e.has("batch_sequences") ? value("batch_sequences") : serve_shape(w).batch;
    p.fits = c.fits;
    const double tps_target = w.serve.tokens_per_s_per_user_target, ttft_target = w.serve.ttft_target_s;
    p.meets_targets = c.fits && (tps_target <= 0 || value("decode_tokens_per_s_per_user") >= tps_target) &&
                      (ttft_target <= 0 || (e.has("ttft_s") && value("ttft_s") <= ttft_target));
    p.throughput_tokens_per_s = value("throughput_tokens_per_s");
    p.tokens_per_s_per_device = p.count > 0 ? p.throughput_tokens_per_s / p.count : 0;
    p.fleet_devices = p.count;
    p.score = layout_score(w, e);
    return p; // its words (describe_point) only once it is kept: a search evaluates many more points than it shows
}

void describe_point(ServingPoint& p) {
    p.describe = std::to_string(p.replicas) + " replica(s) x " + std::to_string(p.devices_per_replica) + " device(s) (" +
                 (p.expert_parallel > 1 ? "expert parallel " + std::to_string(p.expert_parallel) + ", attention tensor parallel " + std::to_string(p.tensor_parallel)
                                        : "tensor parallel " + std::to_string(p.tensor_parallel) + " x " + std::to_string(p.pipeline_parallel) + " stage(s)") +
                 ")";
}

// With the count left to the planner the replica size is the choice itself (choose_count: the fewest devices
// that fit, or at a rate the size whose fleet has the fewest devices), so only a given count is split.
// `fixed_replicas` > 0 skips the search (the bands of a layout already chosen). `points`, when given, receives
// every split evaluated, in the order tried (serving_point).
Eval best_serving_layout(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, bool explain, int fixed_replicas,
                         std::vector<ServingPoint>* points, bool count_trial, bool numbers_only, const ServeBasis* basis) {
    if (fixed_replicas > 0 && n % fixed_replicas == 0) return eval_serve_replicas(w, cat, d, n, fixed_replicas, a, explain, count_trial, numbers_only, basis);
    // A stated engine layout (serve.tensor_parallel: devices per replica, as the benchmark ran it) is not searched:
    // TensorRT-LLM's perf overview runs Llama 3.1 70B at "Tensor Model Parallel Size" 8 on 8 GPUs, one replica whose
    // every layer all-reduces over the 8 (v0.17, docs/source/performance/perf-overview.md), where 8 replicas of 1
    // would not communicate at all.
    if (const int tp = int(w.serve.tensor_parallel); tp > 0 && n % tp == 0) {
        Eval pinned = eval_serve_replicas(w, cat, d, n, n / tp, a, explain, count_trial, numbers_only, basis);
        if (points) points->push_back(serving_point(w, pinned));
        if (explain) pinned.c.notes.push_back("layout: " + std::to_string(n / tp) + " replica(s) x " + std::to_string(tp) + " device(s) (tensor parallel " +
                                              std::to_string(pinned.c.layout.tensor_parallel) + "), as serve.tensor_parallel states");
        return pinned;
    }
    Eval best = eval_serve_replicas(w, cat, d, n, 1, a, explain, count_trial, numbers_only, basis);
    if (points) points->push_back(serving_point(w, best));
    if (n <= 1 || w.hardware.count <= 0 || !(offline_batch(w) || rate_batch(w))) return best;
    double best_score = layout_score(w, best);
    std::string tried = explain ? "1 x " + std::to_string(n) + ": " + (best_score >= 0 ? format_sig(best_score, 4) : std::string("does not fit")) : "";
    for (int r = 2; r <= n; r *= 2) {
        if (n % r != 0) continue;
        Eval t = eval_serve_replicas(w, cat, d, n, r, a, explain, count_trial, numbers_only, basis);
        if (points) points->push_back(serving_point(w, t));
        const double score = layout_score(w, t);
        if (explain) tried += ", " + std::to_string(r) + " x " + std::to_string(n / r) + ": " + (score >= 0 ? format_sig(score, 4) : std::string("does not fit"));
        if (score > best_score * (1 + 1e-9)) {
            best = std::move(t);
            best_score = score;
        }
    }
    if (explain)
        best.c.notes.push_back("layout: " + std::to_string(best.c.layout.data_parallel) + " replica(s) x " + std::to_string(n / best.c.layout.data_parallel) +
                               " device(s) (tensor parallel " + std::to_string(best.c.layout.tensor_parallel) + "), the most output tokens/s" +
                               (rate_batch(w) ? " within the latency targets" : "") + " of every split tried (replicas x devices: output tokens/s): " + tried);
    return best;
}

// [SECTION] MIG partitions ----------------------------------------------------------------------------
// Several small replicas on one large device: NVIDIA's Multi-Instance GPU splits an A100/H100/H200/B200 into up to
// seven instances (the catalog's partitioning profiles, from nvidia/mig-parted). The MIG user guide ("Concepts",
// terminology): "A GPU memory slice is roughly one eighth of the total GPU memory resources, including both
// capacity and bandwidth", and an SM slice "roughly one seventh of the total number of SMs". An instance is planned
// as a device of its own: the profile's memory, the memory bandwidth in proportion to its memory, the compute in
// proportion to its compute slices (the "Ng" of the profile's name, of the whole device's). The profile with the most
// instances that holds the model for its share of the users is reported beside the plan (figures and a note); the
// pricing stays whole-device. Lesson 003: MIG "improves sharing and isolation, but it does not remove memory limits
// or make one device equivalent to many full GPUs": each instance reads the weights again, at its slice's bandwidth.

namespace {

int compute_slices(const std::string& profile) { // "3g.40gb" -> 3; 0 when the name does not say
    const size_t g = profile.find('g');
    if (g == 0 || g == std::string::npos) return 0;
    int v = 0;
    for (size_t i = 0; i < g; ++i) {
        if (profile[i] < '0' || profile[i] > '9') return 0;
        v = v * 10 + (profile[i] - '0');
    }
    return v;
}

} // namespace

void mig_partitions(const Workload& w, const Catalog& cat, const Device& d, const Assumptions& a, Eval& e) {
    Candidate& c = e.c;
    if (d.partitions.size() < 2 || c.count != 1 || !c.fits || !c.figures.count("throughput_tokens_per_s")) return;
    const MigProfile* whole = nullptr;
    int most = 0;
    for (const auto& p : d.partitions) {
        if (!whole || p.memory_bytes > whole->memory_bytes) whole = &p;
        most = std::max(most, compute_slices(p.name));
    }
    if (!whole || whole->memory_bytes <= 0 || most <= 0) return;
    std::vector<const MigProfile*> order;
    for (const auto& p : d.partitions)
        if (p.max_instances > 1 && compute_slices(p.name) > 0) order.push_back(&p);
    std::stable_sort(order.begin(), order.end(), [](const MigProfile* x, const MigProfile* y) {
        return x->max_instances != y->max_instances ? x->max_instances > y->max_instances : x->memory_bytes < y->memory_bytes; });
    for (const MigProfile* p : order) {
        const int k = p->max_instances;
        const double memory_share = p->memory_bytes / whole->memory_bytes, compute_share = double(compute_slices(p->name)) / most;
        Device part = d;
        part.memory_bytes = d.memory_bytes * memory_share;
        part.bandwidth_bytes_per_s = d.bandwidth_bytes_per_s * memory_share;
        for (PeakRate Device::*r : {&Device::fp64, &Device::fp32, &Device::tf32, &Device::bf16, &Device::fp16, &Device::fp8, &Device::int8, &Device::fp4})
            (part.*r).flop_per_s *= compute_share;
        part.sustained_16bit_flop_per_s *= compute_share; // a power-capped rate, like the peaks, is the slices' share
        part.partitions.clear();
        Workload share = w;
        if (share.serve.concurrent_users > 0) share.serve.concurrent_users = std::ceil(share.serve.concurrent_users / k);
        if (share.serve.batch_size > 0) share.serve.batch_size = std::ceil(share.serve.batch_size / k);
        share.serve.requests_per_s /= k;
        for (auto& t : share.serve.traffic) t.requests_per_s /= k;
        Eval t;
        t.explain = false;
        eval_serve(share, cat, part, 1, a, t);
        if (!t.c.fits || !t.c.figures.count("throughput_tokens_per_s")) continue;
        const double per_user = fig(t.c, "decode_tokens_per_s_per_user").value, total = k * fig(t.c, "throughput_tokens_per_s").value;
        auto why = [&] {
            return std::to_string(k) + " x MIG " + p->name + " (" + format_sig(100 * memory_share, 3) + " % of the memory and its bandwidth, " +
                   std::to_string(compute_slices(p->name)) + "/" + std::to_string(most) + " of the compute each), the profile with the most instances that holds the model for its share of the load";
        };
        c.figures["mig_instances"] = e.figure(k, Label::arithmetic, why);
        c.figures["mig_decode_tokens_per_s_per_user"] = e.figure(per_user, Label::modelled, why);
        c.figures["mig_throughput_tokens_per_s"] = e.figure(total, Label::modelled, why);
        c.notes.push_back("MIG: " + why() + ": " + format_sig(per_user, 3) + " tokens/s per user and " + format_sig(total, 4) +
                          " output tokens/s together, against " + format_sig(fig(c, "throughput_tokens_per_s").value, 4) +
                          " on the whole device; instances isolate tenants but each reads the weights again (lesson 003)");
        return;
    }
}

} // namespace hwplan::plan_detail
