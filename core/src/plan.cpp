// plan.cpp: one workload against its candidate devices. For each device: choose the count and layout,
// account memory term by term, run the stage's rooflines, and repeat under the low and high ends of the
// assumptions to band every figure. Formulas live in memory.cpp and performance.cpp; this file only
// decides which of them a stage needs and with what sizes.
#include "hwplan/plan.h"

#include <algorithm>
#include <optional>
#include <climits>
#include <cmath>
#include <functional>
#include <span>

#include "hwplan/format.h"
#include "hwplan/memory.h"
#include "hwplan/parallel.h"
#include "hwplan/precision.h"
#include "hwplan/render.h"
#include "hwplan/run_it.h"
#include "plan_internal.h"

namespace hwplan {

namespace {

// [SECTION] device facts ---------------------------------------------------------------------------

constexpr int kMaxTensorParallel = 8;

struct Peak {
    double flop_per_s = 0;
    std::string precision;   // the precision whose peak is used ("" when none is published)
    std::string requested;
    std::string device;
    bool fell_back() const { return precision != requested; }
    std::string note() const {
        if (precision.empty())
            return "no published dense peak for " + requested + " or a wider format on " + device + ": compute time is not modelled";
        return "no published " + requested + " peak on " + device + "; compute time uses its " + precision + " peak (" +
               format_sig(flop_per_s / 1e12, 4) + " TFLOPS)";
    }
};

// The dense peak for the requested compute precision, falling back to the nearest wider path the
// device has (FP8 -> BF16 -> FP16 -> FP32; INT8 -> FP16 -> BF16 -> FP32), with a note saying so. INT8
// compute (TensorRT's INT8 engines, W8A8 kernels) runs on the integer tensor-core path, whose dense OP/s the
// datasheet gives beside the FLOP/s (int8_dense_TOPS; A100: 624 TOPS vs 312 TFLOPS at FP16).
Peak peak_for(const Device& d, const std::string& compute) {
    struct Path {
        const char* name;
        PeakRate Device::*rate;
    };
    static constexpr Path kFp8[] = {{"fp8", &Device::fp8}, {"bf16", &Device::bf16}, {"fp16", &Device::fp16}, {"fp32", &Device::fp32}};
    static constexpr Path kBf16[] = {{"bf16", &Device::bf16}, {"fp16", &Device::fp16}, {"fp32", &Device::fp32}};
    static constexpr Path kFp16[] = {{"fp16", &Device::fp16}, {"bf16", &Device::bf16}, {"fp32", &Device::fp32}};
    static constexpr Path kFp32[] = {{"fp32", &Device::fp32}};
    static constexpr Path kInt8[] = {{"int8", &Device::int8}, {"fp16", &Device::fp16}, {"bf16", &Device::bf16}, {"fp32", &Device::fp32}};
    const std::span<const Path> order = compute == "fp8" ? std::span<const Path>(kFp8)
                                        : compute == "int8" ? std::span<const Path>(kInt8)
                                        : compute == "fp16" ? std::span<const Path>(kFp16)
                                        : compute == "fp32" ? std::span<const Path>(kFp32)
                                                            : std::span<const Path>(kBf16);
    Peak p;
    p.requested = compute;
    p.device = d.id;
    for (const auto& path : order) {
        const PeakRate& rate = d.*path.rate;
        if (rate.supported) {
            p.flop_per_s = rate.flop_per_s;
            p.precision = path.name;
            return p;
        }
    }
    return p;
}

// Unified-memory Apple SoCs and CPUs/NPUs run llama.cpp/MLX-style runtimes; the rest run a serving
// engine (vLLM-like) or a training framework on a discrete accelerator.
bool local_runtime(const Device& d) { return d.kind == DeviceKind::soc || d.kind == DeviceKind::cpu || d.kind == DeviceKind::npu; }

// What one device lets a job use: the total the driver reports to the runtime where the catalog has that
// reading (cudaMemGetInfo: what vLLM multiplies by gpu_memory_utilization, vllm/worker/worker.py
// determine_num_available_blocks, and what PyTorch can allocate), else the datasheet capacity; the platform's
// usable share (macOS GPU wiring on Apple SoCs); and for serving engines their memory-utilization setting.
double usable_bytes(const Device& d, const Assumptions& a, bool serving) {
    double ratio = d.usable_memory_ratio;
    if (d.vendor == "Apple" && d.usable_rule.empty() && d.usable_memory_ratio == 1.0) ratio = a.macos_gpu_wired_ratio;
    double bytes = (d.runtime_total_bytes > 0 ? d.runtime_total_bytes : d.memory_bytes) * ratio;
    if (serving && !local_runtime(d)) bytes *= a.serving_memory_utilization;
    return bytes;
}

double runtime_overhead_bytes(const Device& d, const Assumptions& a) {
    return local_runtime(d) ? a.llama_cpp_compute_buffer_bytes : a.runtime_context_bytes;
}

// The most devices of one kind a plan joins: for cards whose only link is PCIe and which have no scale-out
// network one machine of kCardsPerMachine, lesson 004's node ("one node of up to 8"); else 4096 (devices whose
// network is not recorded, SRAM systems chained on their own links, domains joined by a network).
constexpr int kCardsPerMachine = 8;
int most_devices(const Device& d, const Assumptions& a) {
    const Network net = network_of(d, a);
    if (!net.multi_node && d.interconnect_kind.rfind("pcie", 0) == 0) return kCardsPerMachine;
    return 4096;
}

// [SECTION] model facts ----------------------------------------------------------------------------

struct WeightBytes {
    double total = 0;     // whole model
    double experts = 0;   // the routed-expert share of `total` (MoE)
    double input_embedding = 0;           // the untied input token table's share of `total`
    double input_embedding_row_bytes = 0; // one token's row of it
    double quantized_params = 0;          // parameters stored at the format's bits (the rest at 16)
    double bits_per_weight = 16;          // the format's storage bits per quantized parameter
    std::string why;
};

// Weights at the storage format: weight-only quantizers keep embeddings and head in 16 bits (memory.h).
WeightBytes weight_bytes(const Workload& w, const Catalog& cat, const std::string& format_name, double params, bool explain) {
    WeightBytes out;
    const WeightFormat* f = cat.find_format(format_name);
    const double bits = f ? f->bits_per_weight : 16;
    const auto& arch = w.model.model.arch;
    const bool keep_embeddings = f && f->kind != "gguf" && f->kind != "float" && !w.model.size_only;
    const bool low_float = f && f->kind == "float" && bits < 16 && !w.model.size_only; // fp8 engines too
    const double embed = (keep_embeddings || low_float) ? std::min(params, embedding_and_head_params(arch)) : 0;
    out.total = (params - embed) * bits / 8 + embed * 2;
    out.quantized_params = params - embed;
    out.bits_per_weight = bits;
    // An untied input table is a lookup: a step reads only its tokens' rows (a tied one is also the head,
    // read whole). Stored at 16 bits where the embeddings are kept, else at the format's bits.
    if (!arch.tied_embeddings && !w.model.size_only && arch.vocab > 0 && embedding_and_head_params(arch) <= params) {
        out.input_embedding_row_bytes = double(arch.hidden) * (embed > 0 ? 2.0 : bits / 8);
        out.input_embedding = double(arch.vocab) * out.input_embedding_row_bytes;
    }
    if (explain) {
        out.why = format_count(params) + " params x " + format_sig(bits, 4) + " bits (" + format_name + ")";
        if (embed > 0) out.why += ", embeddings and head (" + format_count(embed) + ") kept at 16 bits";
    }
    if (arch.has_moe && !w.model.size_only) { // routed experts are stored at the format's bits
        const auto& e = arch.moe;
        const double per_expert = (arch.mlp == MlpKind::gated ? 3.0 : 2.0) * arch.hidden * e.expert_intermediate;
        out.experts = per_expert * e.experts * (arch.layers - e.dense_layers) * bits / 8;
    }
    return out;
}

double kv_value_bytes(const std::string& kv) {
    auto p = parse_precision(kv);
    return p ? bytes_per_value(*p) : 2.0;
}

// [SECTION] bands ----------------------------------------------------------------------------------



// [SECTION] one evaluation: a device, a count, one case of the assumptions ------------------------

// One evaluation. Explanations (the "why" texts) are built only when `explain` is set: the trial
// evaluations that choose a count and the low/high cases need numbers, not prose.
struct Eval {
    Candidate c;
    double headline = 0; // the stage's ranking figure, larger is better
    bool explain = true;
    bool search_batch = true; // false inside a batch search's own trials
    bool mixed_prefill = false; // a batch search's trials at an arrival rate: prefill mixed into the decode steps

    template <class Why> Figure figure(double value, Label label, Why&& why) const {
        Figure f;
        f.value = f.low = f.high = value;
        f.label = label;
        if (explain) f.why = why();
        return f;
    }
    template <class Why> void term(MemoryUse& m, const char* name, double bytes, Why&& why) const {
        m.terms.push_back({name, bytes, explain ? why() : std::string()});
    }
};



void finish_memory(MemoryUse& m) {
    m.total_bytes = m.weights_bytes + m.kv_cache_bytes + m.activations_bytes + m.gradients_bytes + m.optimizer_bytes + m.overhead_bytes;
}

std::string gb(double bytes) { return format_bytes(bytes); }

bool is_given(const Workload& w, const std::string& key) { return std::find(w.given.begin(), w.given.end(), key) != w.given.end(); }

// [SECTION] batch search (issue 9) -------------------------------------------------------------------

// An offline batch job (stage batch without concurrent_users or batch_size) runs as many sequences at once
// as maximizes output tokens/s within memory, as offline engines do: vLLM's LLM class and trtllm-bench
// throughput queue every request at once and let the scheduler fill the KV cache.
bool offline_batch(const Workload& w) {
    return w.stage == Stage::batch && !is_given(w, "serve.concurrent_users") && !is_given(w, "serve.batch_size");
}

void eval_serve(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e);

struct BatchChoice {
    double batch = 0;            // sequences per step
    double throughput = 0;       // output tokens/s at that batch
    bool found = false;
};

// The batch with the most output tokens/s among those that fit and pass `ok` (latency targets): powers
// of two up to the most sequences whose KV cache fits, and that most itself. Each trial is one plain
// evaluation at that many concurrent sequences.
template <class Ok>
BatchChoice best_batch(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Ok ok, bool mixed_prefill = false) {
    Workload probe = w;
    probe.given.push_back("serve.concurrent_users");
    probe.serve.batch_size = 0;
    auto trial = [&](double b) {
        probe.serve.concurrent_users = b;
        Eval t;
        t.explain = false;
        t.search_batch = false;
        t.mixed_prefill = mixed_prefill;
        eval_serve(probe, cat, d, n, a, t);
        return t.c;
    };
    BatchChoice best;
    const Candidate one = trial(1);
    if (!one.fits || !one.figures.count("max_concurrent_users")) return best;
    const double most = std::max(1.0, one.figures.at("max_concurrent_users").value);
    auto consider = [&](double b, const Candidate& c) {
        if (!c.fits || !c.figures.count("throughput_tokens_per_s") || !ok(c)) return false;
        const double v = c.figures.at("throughput_tokens_per_s").value;
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
    const auto& arch = w.model.model.arch;
    ServeShape sh = serve_shape(w);
    // Latency targets: each user's decode speed (1 / TPOT) and the first token's time.
    const double tps_target = w.serve.tokens_per_s_per_user_target, ttft_target = w.serve.ttft_target_s;
    auto meets_targets = [&](const Candidate& t) {
        return (tps_target <= 0 || t.figures.at("decode_tokens_per_s_per_user").value >= tps_target) &&
               (ttft_target <= 0 || t.figures.at("ttft_s").value <= ttft_target);
    };
    BatchChoice offline, at_rate;
    if (e.search_batch && offline_batch(w)) {
        offline = best_batch(w, cat, d, n, a, [](const Candidate&) { return true; });
        if (offline.found) sh.users = sh.batch = offline.batch;
    } else if (e.search_batch && rate_batch(w) && peak_for(d, w.precision.compute).flop_per_s > 0) {
        at_rate = best_batch(w, cat, d, n, a, meets_targets, true);
        if (at_rate.found) sh.users = sh.batch = at_rate.batch;
    }
    // Tensor parallelism inside the fast domain, at most 8 ways (one HGX/UBB board, where serving engines
    // put it; past that the all-reduces and KV-head replication cost more than they give); the rest of the
    // devices form pipeline stages. Cards joined only by PCIe form one domain (parallel.h network_of): serving
    // engines (vLLM, SGLang, TensorRT-LLM) split them by tensor parallelism over NCCL, as on a board (vLLM
    // issue #6955: four RTX 3090 Ti over PCIe 4.0, Llama 3.1 70B AWQ, one client 30 -> 46 tokens/s from TP 2 to
    // TP 4). llama.cpp splits by layers (its default --split-mode layer since PR #4606): one stage after another.
    const Network net = network_of(d, a);
    const bool layer_split = framework_runtime(w.framework) == "llama.cpp";
    const int domain = layer_split ? 1 : std::max({1, d.domain_size, net.handoff_s > 0 ? net.domain_size : 1});
    const bool wide = ep > 1;                     // expert parallel: no pipeline, attention data parallel over g groups
    // Under expert parallelism a latent-attention model (one KV head) runs attention data parallel, one group per
    // device: tensor parallelism would copy its whole KV cache onto every rank (SGLang's "DP, DPA and SGLang DP
    // Router" guide: DP attention for MLA models such as DeepSeek and Kimi-K2).
    const int tp = wide && arch.has_mla ? 1 : serving_tensor_parallel(n, std::min(domain, kMaxTensorParallel), arch.heads);
    const int pp = wide ? 1 : std::max(1, n / tp);
    const int groups = wide ? std::max(1, n / tp) : 1;
    c.layout = {.tensor_parallel = tp, .pipeline_parallel = pp, .data_parallel = 1, .expert_parallel = std::max(1, ep)};
    const WeightBytes wb = weight_bytes(w, cat, w.precision.weights, w.model.params, e.explain);
    const double kvb = kv_value_bytes(w.precision.kv_cache);
    // KV heads split across tensor-parallel ranks (replicated when there are fewer heads than ranks;
    // latent caches are per token, not per head, and replicate); layers split across pipeline stages.
    const bool latent = arch.has_mla;
    const double kv_div = (latent ? 1.0 : std::min<double>(tp, std::max(1, arch.kv_heads))) * pp * groups;
    const double kv_seq = kv_bytes_per_sequence(arch, kvb, sh.context, a.kv_block_tokens);

    MemoryUse& m = c.memory;
    m.capacity_bytes = usable_bytes(d, a, true);
    // Weights per device: everything split over tp x pp; under expert parallelism the dense part over tp and
    // the routed experts over all ep devices.
    m.weights_bytes = wide ? (wb.total - wb.experts) / tp + wb.experts / ep : wb.total / (tp * pp);
    e.term(m, "weights", m.weights_bytes, [&] { return std::string(wb.why + (wide ? ", dense layers split over " + std::to_string(tp) + " and the routed experts over " + std::to_string(ep) + " devices"
                                                                                  : n > 1 ? ", split over " + std::to_string(n) + " devices" : "")); });
    m.kv_cache_bytes = sh.users * kv_seq / kv_div;
    e.term(m, "kv_cache", m.kv_cache_bytes, [&] { return std::string(format_sig(sh.users, 6) + " sequences x " + format_sig(sh.context, 6) + " tokens x " +
                 gb(kv_bytes_per_token(arch, kvb)) + "/token (" + w.precision.kv_cache + ")" +
                 (kv_div > 1 ? " / " + format_sig(kv_div, 3) : "") + ", sliding layers capped at their window, " +
                 format_sig(a.kv_block_tokens, 3) + "-token blocks"); });
    // A serving engine reserves activations for its whole token budget, whatever the prompts: vLLM sizes the KV
    // cache after a profile run of a dummy batch of max_num_batched_tokens tokens (vllm/worker/worker.py
    // determine_num_available_blocks: "profiles the peak memory usage of the model" with the max batch size;
    // PR #10511's log: "PyTorch activation peak memory 1.26GiB" for an 8B model at 8,192 tokens).
    // llama.cpp-style runtimes allocate their compute buffer for the batch they run (llama_cpp_compute_buffer_bytes).
    const double chunk = local_runtime(d) ? std::min(a.prefill_chunk_tokens, std::max(sh.prompt, sh.batch)) : a.prefill_chunk_tokens;
    m.activations_bytes = inference_activation_bytes(arch, chunk, std::max(1.0, std::ceil(sh.batch / groups))) / tp;
    e.term(m, "activations", m.activations_bytes, [&] { return std::string("one block's working set for a " + format_sig(chunk, 6) +
                                                        "-token chunk" + (local_runtime(d) ? "" : " (the engine's token budget, profiled before the KV cache is sized)") +
                                                        " + FP32 logits for " + format_sig(sh.batch, 6) + " sequences"); });
    // A serving engine split over tensor-parallel ranks of a scale-up domain (NVLink, Infinity Fabric) also holds
    // memory outside PyTorch's allocator on each device (NCCL and custom all-reduce buffers; vLLM's profile:
    // 1.79 GiB at TP 1, 3.58 GiB at TP 2). Over PCIe vLLM turns its custom all-reduce off beyond two GPUs
    // (custom_all_reduce.py: "not supported on more than two PCIe-only GPUs"), and a PCIe multi-GPU log shows
    // no more than a single device's context (the assumption's low end): none is added there.
    const double tp_buffers = tp > 1 && !local_runtime(d) && d.domain_size > 1 ? a.tensor_parallel_buffer_bytes : 0.0;
    m.overhead_bytes = runtime_overhead_bytes(d, a) + tp_buffers;
    e.term(m, "overhead", m.overhead_bytes, [&] { return std::string(local_runtime(d) ? "llama.cpp-style compute buffer" : "runtime context (CUDA/ROCm/XLA) and framework") +
                                                  (tp_buffers > 0 ? " + tensor-parallel communication buffers " + gb(tp_buffers) : ""); });
    finish_memory(m);
    c.fits = m.total_bytes <= m.capacity_bytes;

    const double free_for_kv = m.capacity_bytes - m.weights_bytes - m.overhead_bytes - m.activations_bytes;
    const double max_users = max_active_users(m.capacity_bytes, m.weights_bytes, m.overhead_bytes + m.activations_bytes, kv_seq / kv_div);
    c.figures["max_concurrent_users"] = e.figure(max_users, Label::arithmetic, [&] { return std::string("(capacity " + gb(m.capacity_bytes) + " - weights - overhead - activations) / KV per user " + gb(kv_seq / kv_div)); });
    // Longest single-sequence context whose cache fits beside everything else.
    double max_ctx = max_context_tokens(arch, kvb, free_for_kv * kv_div, a.kv_block_tokens);
    const bool capped = arch.max_context > 0 && max_ctx > arch.max_context;
    if (capped) max_ctx = arch.max_context;
    auto ctx_why = [&] {
        return "largest context whose KV cache fits the " + gb(std::max(0.0, free_for_kv)) + " left" +
               (capped ? "; capped at the model's maximum context" : "");
    };
    c.figures["max_context_tokens"] = e.figure(max_ctx, Label::arithmetic, ctx_why);

    const Peak peak = peak_for(d, w.precision.compute);
    if (peak.fell_back() && e.explain) c.notes.push_back(peak.note());
    const bool link = d.interconnect_bytes_per_s > 0; // the scale-up link's own rate, not a NIC standing in for it
    auto tp_comm = [&](double tokens) { // two all-reduces of the hidden state per block (Megatron-LM) inside
        if (tp <= 1) return 0.0;       // the domain, each paying its latency and its bytes (parallel.h)
        const Group g{tp, tp};
        return 2.0 * arch.layers * (link ? allreduce_time_s(tokens * arch.hidden * 2.0, g, net) : allreduce_latency_s(g, net));
    };
    if (tp > 1 && !link) c.notes.push_back("no published link bandwidth on " + d.id + ": tensor-parallel communication counts its latency only");
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
    double weights_read = wb.total - wb.input_embedding + std::min(wb.input_embedding, batch * wb.input_embedding_row_bytes);
    double experts_read = 0; // the routed experts' share of weights_read
    if (wb.experts > 0) {
        const auto& ex = arch.moe;
        const double touched = expected_experts_touched(ex.experts, ex.active_experts, batch);
        weights_read -= wb.experts - wb.experts * touched / ex.experts;
        experts_read = wb.experts * touched / ex.experts;
    }
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
    // A decode kernel that runs one thread block per query head reads each KV head once for every query head of
    // its group (serve.decode_attention "per_query_head"); a latent (MLA) cache is shared by design.
    const double kv_reads = w.serve.decode_attention == "per_query_head" && !latent && arch.kv_heads > 0
        ? std::max(1.0, double(arch.heads) / arch.kv_heads) : 1.0;
    // A decode step runs its weight GEMMs and then attention over the KV cache, one after the other, each on its
    // own roofline (LLM-Viewer's per-operator roofline, performance.h roofline_sequence): at a large batch the
    // GEMMs are compute-bound while attention reads every sequence's cache at about one FLOP per byte per query
    // head of a group and stays memory-bound. At batch 1 both are memory-bound and the sum is the step's total
    // bytes over the bandwidth, as one roofline gives. Attention runs at the same shares of the same peak and
    // bandwidth (its compute side never binds at decode). GEMMs at an 8-bit peak (FP8, INT8) reach a smaller share
    // of it than 16-bit ones of theirs (decode_compute_efficiency_8bit: TensorRT-LLM v0.9.0's LLaMA 7B 128/128 rows,
    // 0.30-0.36 of the FP8 peak on H100, H200 and L40S against 0.90 of the FP16 peak on the A100).
    const bool eight_bit_peak = peak.precision == "fp8" || peak.precision == "int8";
    const double gemm_share = eight_bit_peak ? a.decode_compute_efficiency_8bit : a.decode_compute_efficiency;
    auto decode_phase = [&](double ctx) {
        Phase ph;
        ph.precision = peak.precision;
        const double share = 1.0 / (tp * pp * groups);
        const double gemm_flops = batch * decode_flops_per_token(arch, w.model.active_params, 0) * share;
        const double attention_flops = batch * (decode_flops_per_token(arch, w.model.active_params, ctx) - decode_flops_per_token(arch, w.model.active_params, 0)) * share;
        const double kv_bytes = kv_reads * batch * kv_bytes_per_sequence(arch, kvb, ctx, 0) * share;
        const double flop_per_s = peak.flop_per_s * gemm_share, bytes_per_s = d.bandwidth_bytes_per_s * a.decode_bandwidth_efficiency;
        const Roofline gemm = roofline(gemm_flops, device_weights_read(weights_read, experts_read), flop_per_s, bytes_per_s);
        const Roofline attention = roofline(attention_flops, kv_bytes, flop_per_s, bytes_per_s);
        ph.roofline = roofline_sequence(gemm, attention);
        if (e.explain) {
            auto part = [](const Roofline& r) { return std::string(r.compute_bound ? "compute" : "memory") + "-bound " + format_sig(r.time_s * 1e3, 3) + " ms"; };
            ph.name = "decode step (batch " + format_sig(batch, 6) + ", " + format_sig(ctx, 6) + "-token history" +
                      (kv_reads > 1 ? ", KV cache read " + format_sig(kv_reads, 3) + "x: once per query head" : "") +
                      "; weight GEMMs " + part(gemm) + " + attention over the KV cache " + part(attention) + ")";
        }
        ph.overhead_s = a.decode_step_overhead_s;
        ph.communication_s = tp_comm(batch / groups) + pp_comm(batch) + a2a_comm(batch);
        ph.time_s = pp * ph.roofline.time_s + ph.overhead_s + ph.communication_s;
        return ph;
    };
    const Phase dec = decode_phase(sh.prompt + sh.output / 2);
    c.phases.push_back(dec);

    // Prefill of one prompt, chunked: each chunk reads the weights once. Under expert parallelism one attention
    // group of tp devices runs the prompt's dense layers while its routed-expert work spreads over all n.
    const double expert_flop_share = wide && w.model.active_params > 0
        ? std::min(1.0, double(moe_layers) * arch.moe.active_experts * (arch.mlp == MlpKind::gated ? 3.0 : 2.0) * arch.hidden * arch.moe.expert_intermediate / w.model.active_params)
        : 0.0;
    // `seqs` prompts of `prompt` tokens prefilled together: an engine step's token budget (prefill_chunk_tokens,
    // vLLM's max_num_batched_tokens) takes several short prompts at once, so each chunk reads the weights once
    // for all of them and its all-reduces carry all their tokens (one latency each).
    auto prefill_phase = [&](double prompt, double seqs = 1) {
        const double tokens = prompt * seqs;
        const double chunks = std::ceil(tokens / std::max(1.0, a.prefill_chunk_tokens));
        const double f = seqs * prefill_flops(arch, w.model.active_params, prompt);
        Phase ph;
        ph.precision = peak.precision;
        ph.roofline = roofline(wide ? f * (1 - expert_flop_share) / tp + f * expert_flop_share / n : f / (tp * pp),
                               chunks * device_weights_read(wb.total, wb.experts) + tokens * kv_bytes_per_token(arch, kvb) / (tp * pp),
                               peak.flop_per_s * a.prefill_compute_efficiency, d.bandwidth_bytes_per_s * a.decode_bandwidth_efficiency);
        ph.communication_s = tp_comm(tokens) + pp_comm(tokens) + a2a_comm(tokens);
        ph.time_s = pp * ph.roofline.time_s + ph.communication_s;
        return ph;
    };
    Phase pre = prefill_phase(sh.prompt);
    if (e.explain) pre.name = "prefill (" + format_sig(sh.prompt, 6) + " tokens)";
    c.phases.push_back(pre);
    // Device time per sequence's prefill when a batch runs (throughput, not one request's first token): prompts
    // shorter than the step's token budget share a step with as many others as fit in it (continuous batching
    // with chunked prefill, Agrawal et al. 2024; TensorRT-LLM's static batches prefill the whole batch at once).
    const double packed_seqs = std::clamp(std::floor(a.prefill_chunk_tokens / std::max(1.0, sh.prompt)), 1.0, std::max(1.0, batch));
    const double prefill_per_seq_s = packed_seqs > 1 ? prefill_phase(sh.prompt, packed_seqs).time_s / packed_seqs : pre.time_s;

    // Serving under a steady arrival rate (continuous batching, chunked prefill): each step, batch / output
    // sequences finish and as many arrive, and their prefill shares the step (Sarathi-Serve's stall-free
    // batching, Agrawal et al. 2024): step = decode step + batch x prefill / output. Its inverse is each
    // user's speed (1 / TPOT) and batch / step the replica's output tokens/s, prefill counted.
    const bool mixed = e.mixed_prefill || rate_batch(w);
    const double step_s = mixed ? dec.time_s + batch * prefill_per_seq_s / std::max(1.0, sh.output) : dec.time_s;
    auto step_why = [&] { return format_sig(batch, 6) + " sequences per step; " + gb(dec.roofline.bytes) + " read and " +
                                 format_sig(dec.roofline.flops / 1e9, 4) + " GFLOP per device per step" +
                                 (mixed ? "; plus the prefill of the " + format_sig(batch / std::max(1.0, sh.output), 3) +
                                              " requests that arrive per step at a steady rate (" + format_sig(prefill_per_seq_s * 1e3, 3) + " ms each" +
                                              (packed_seqs > 1 ? ", " + format_sig(packed_seqs, 4) + " prompts per prefill step" : std::string()) + ")" : std::string()); };
    c.figures["decode_step_s"] = e.figure(step_s, Label::modelled, step_why);
    c.figures["decode_tokens_per_s_per_user"] = e.figure(1.0 / step_s, Label::modelled, [&] { return std::string("1 / decode step time; " + step_why()); });
    if (w.stage == Stage::batch) {
        // Offline: every sequence is prefilled once and decoded `output` steps in a batch of `batch`, so the
        // device time per sequence is prefill + output x step / batch (continuous batching, chunked prefill).
        const double per_sequence_s = prefill_per_seq_s + sh.output * dec.time_s / batch;
        c.figures["throughput_tokens_per_s"] = e.figure(sh.output / per_sequence_s, Label::modelled, [&] {
            return format_sig(batch, 6) + " sequences in flight: " + format_sig(sh.output, 6) + " output tokens / (prefill " +
                   format_sig(prefill_per_seq_s * 1e3, 3) + " ms" +
                   (packed_seqs > 1 ? " (" + format_sig(packed_seqs, 4) + " prompts per " + format_sig(a.prefill_chunk_tokens, 6) + "-token prefill step)" : std::string()) +
                   " + " + format_sig(sh.output, 6) + " x step / " + format_sig(batch, 6) + ")" +
                   (offline.found ? ", the batch that gives the most output tokens/s within memory" : ""); });
        if (offline.found)
            c.figures["batch_sequences"] = e.figure(batch, Label::arithmetic, [&] { return std::string("sequences per step that maximize output tokens/s within memory (powers of two up to the most whose KV cache fits)"); });
    } else {
        c.figures["throughput_tokens_per_s"] = e.figure(batch / step_s, Label::modelled, [&] {
            return std::string("batch / decode step time; " + step_why()) +
                   (at_rate.found ? "; at an arrival rate the engine batches up to the largest output tokens/s that meets the latency targets" : ""); });
        if (at_rate.found)
            c.figures["batch_sequences"] = e.figure(batch, Label::arithmetic, [&] { return std::string("sequences per step: the batch with the most output tokens/s whose per-user speed and first-token time still meet the targets (powers of two up to the most whose KV cache fits)"); });
    }
    c.figures["ttft_s"] = e.figure(pre.time_s, Label::modelled, [&] { return std::string("prefill of " + format_sig(sh.prompt, 6) + " prompt tokens, no queue"); });

    // Latency under load: the replica as an M/G/1 server of GPU time per request.
    std::vector<TrafficClass> classes = w.serve.traffic;
    if (classes.empty() && w.serve.requests_per_s > 0) classes.push_back({"requests", w.serve.requests_per_s, sh.prompt, sh.output});
    if (!classes.empty() && e.search_batch) { // a batch search's trials need no queue
        double lambda = 0, m1 = 0, m2 = 0;
        std::vector<double> prefill_s;
        for (const auto& tc : classes) {
            const double p_s = prefill_phase(tc.prompt_tokens).time_s;
            // its share of the decode steps, at its own history length
            const double service = p_s + tc.output_tokens * decode_phase(tc.prompt_tokens + tc.output_tokens / 2).time_s / batch;
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
            c.figures["replicas_for_rate"] = e.figure(replicas, Label::modelled, [&] {
                return "the fewest replicas whose M/G/1 queue is stable" + std::string(ttft_target > 0 ? " and whose p95 time to first token meets the target" : "") +
                       " with " + format_sig(lambda, 4) + " requests/s split evenly over them"; });
        }
        const QueueWait q = wait_at(replicas);
        auto qwhy = [&] { return format_sig(lambda / replicas, 4) + " requests/s per replica (" + std::to_string(replicas) + ") over " + std::to_string(classes.size()) +
                                 " traffic class(es); utilization " + format_sig(100 * q.utilization, 3) + " %; first class's prefill " +
                                 format_sig(prefill_s[0], 3) + " s plus the M/G/1 wait"; };
        c.figures["utilization_ratio"] = e.figure(q.utilization, Label::modelled, [&] { return std::string("arrival rate x mean GPU time per request"); });
        c.figures["p50_ttft_s"] = e.figure(q.p50_s + prefill_s[0], Label::modelled, qwhy);
        c.figures["p95_ttft_s"] = e.figure(q.p95_s + prefill_s[0], Label::modelled, qwhy);
        if (!q.stable) c.notes.push_back("the request rate exceeds what one replica serves (utilization >= 100 %): the queue grows without bound");
        // Workload isolation (lesson 003): the first (interactive) class alone on its own replica.
        if (classes.size() > 1) {
            const auto& tc = classes.front();
            const double service = prefill_s[0] + tc.output_tokens * decode_phase(tc.prompt_tokens + tc.output_tokens / 2).time_s / batch;
            const QueueWait alone = mg1_wait(tc.requests_per_s, service, service * service);
            c.figures["isolated_p95_ttft_s"] = e.figure(alone.p95_s + prefill_s[0], Label::modelled, [&] {
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
            const BatchChoice pure = best_batch(w, cat, d, n, a, [&](const Candidate& t) {
                return tps_target <= 0 || t.figures.at("decode_tokens_per_s_per_user").value >= tps_target; });
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
                const double colocated = std::max(std::ceil(demand_tokens_per_s / c.figures.at("throughput_tokens_per_s").value), double(replicas));
                auto dwhy = [&] {
                    return std::to_string(k) + " prefill replica(s) (each prompt " + format_sig(p_s * 1e3, 3) + " ms + KV hand-off " +
                           format_sig(handoff_s * 1e3, 3) + " ms) + " + format_sig(decode_replicas, 6) + " decode replica(s) at batch " +
                           format_sig(pure.batch, 6) + " (" + format_sig(pure.throughput, 4) + " output tokens/s each, no prefill in its steps), of " +
                           std::to_string(n) + " device(s) each, against " + format_sig(colocated, 6) + " colocated";
                };
                c.figures["disaggregated_replicas"] = e.figure(k + decode_replicas, Label::modelled, dwhy);
                c.figures["colocated_replicas"] = e.figure(colocated, Label::modelled, dwhy);
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
                       (dec.roofline.compute_bound ? "in compute-bound weight GEMMs" : "bound by memory (weights and KV cache read)");
    }
    e.headline = w.stage == Stage::batch ? c.figures.at("throughput_tokens_per_s").value : 1.0 / step_s;

    // Interactive serving with latency targets: the most output tokens/s any batch reaches while every user
    // still gets the target speed and first-token time (at an arrival rate, the batch searched above).
    if (e.search_batch && w.stage == Stage::serve && (tps_target > 0 || ttft_target > 0) && c.fits && peak.flop_per_s > 0) {
        const BatchChoice within = at_rate.found ? at_rate : best_batch(w, cat, d, n, a, meets_targets);
        if (within.found) {
            auto why = [&] { return "batch " + format_sig(within.batch, 6) + ": the largest output tokens/s at which each user still gets " +
                                    (tps_target > 0 ? format_sig(tps_target, 4) + " tokens/s" : std::string("any speed")) +
                                    (ttft_target > 0 ? " and a first token within " + format_sig(ttft_target, 4) + " s" : ""); };
            c.figures["max_throughput_within_targets_tokens_per_s"] = e.figure(within.throughput, Label::modelled, why);
            c.figures["batch_within_targets_sequences"] = e.figure(within.batch, Label::arithmetic, why);
        } else if (e.explain) {
            c.notes.push_back("no batch meets the latency targets on " + std::to_string(n) + " x " + d.id);
        }
    }
}

// A MoE model on several devices of a serving engine is laid out both ways, tensor x pipeline and expert
// parallel (eval_serve_layout), and the one that fits with the most output tokens/s kept, the other named
// in a note: wide expert parallelism pays when the all-to-all stays on a fast scale-up link (lesson 004:
// "Large MoE models want wide expert parallelism: NVL72, Helios or a TPU slice"), and loses where it must
// cross the scale-out network in every MoE block.
void eval_serve(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e) {
    const auto& arch = w.model.model.arch;
    const bool moe = arch.has_moe && !w.model.size_only && arch.moe.experts > 1;
    // Expert parallelism needs a link to carry its all-to-all: a published scale-up rate or a scale-out network.
    const bool carried = d.interconnect_bytes_per_s > 0 || network_of(d, a).multi_node;
    if (!moe || n <= 1 || !carried || framework_runtime(w.framework) == "llama.cpp") return eval_serve_layout(w, cat, d, n, a, 1, e);
    Eval dense = e, wide = e;
    eval_serve_layout(w, cat, d, n, a, 1, dense);
    eval_serve_layout(w, cat, d, n, a, n, wide);
    auto tokens_per_s = [](const Eval& x) {
        auto it = x.c.figures.find("throughput_tokens_per_s");
        return it == x.c.figures.end() ? 0.0 : it->second.value;
    };
    const bool take_wide = wide.c.fits != dense.c.fits ? wide.c.fits : tokens_per_s(wide) > tokens_per_s(dense);
    Eval& kept = take_wide ? wide : dense;
    const Eval& other = take_wide ? dense : wide;
    if (e.explain) {
        auto a2a = [&](const Eval& x) { return x.c.phases.empty() ? 0.0 : x.c.phases.front().communication_s; };
        const Network net = network_of(d, a);
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

// The training runtime profile (catalog/runtimes.json): the workload's, else the catalog's default for the
// method. A catalog without runtimes.json gets the struct's defaults (the hf-peft storage rules).
const TrainingRuntime& training_runtime(const Workload& w, const Catalog& cat) {
    static const TrainingRuntime kBuiltIn{.id = "built-in", .name = "built-in defaults (no catalog/runtimes.json)"};
    if (!w.train.runtime.empty())
        if (const TrainingRuntime* r = cat.find_runtime(w.train.runtime)) return *r;
    const std::string method(name(w.train.method));
    for (const auto& r : cat.training_runtimes)
        if (std::find(r.default_for.begin(), r.default_for.end(), method) != r.default_for.end()) return r;
    return kBuiltIn;
}

// Training-shaped stages: finetune, pretrain, and the trainer half of rl.
// What the layout search needs from the trainer's runtime profile to price layouts eval_train does not
// evaluate itself (tensor, context, pipeline and expert parallelism): the job with its storage rules, the
// devices, and the profile's compute time per token on one device (the measured MFU basis with its
// attention, FP8-cast, dequantization and per-micro-batch terms), at the workload's own recomputation.
struct TrainBasis {
    TrainingJob job;
    Cluster cluster;
    bool valid = false;  // a peak is published and the job has a shape the search can split
};

// The ZeRO stage eval_train uses on n devices when the search does not choose one: the workload's, else
// ZeRO-3 for a full fine-tune or pretraining over several devices (FSDP), else none.
int default_zero(const Workload& w, int n) {
    if (is_given(w, "train.zero_stage")) return w.train.zero_stage;
    return n > 1 && w.train.method == TrainMethod::full ? 3 : 0;
}

// One data-parallel layout with the trainer's own sharding: n devices, ZeRO stage `zero` (< 0: default_zero),
// the workload's micro-batch and recomputation. `basis`, when given, receives what the layout search needs.
void eval_train(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e, int zero_choice = -1,
                TrainBasis* basis = nullptr) {
    Candidate& c = e.c;
    const auto& arch = w.model.model.arch;
    const auto& t = w.train;
    const bool full = t.method == TrainMethod::full;
    const int zero = zero_choice >= 0 ? zero_choice : default_zero(w, n);
    c.layout = {.tensor_parallel = 1, .pipeline_parallel = 1, .data_parallel = n, .zero_stage = zero, .micro_batch = int(t.micro_batch),
                .micro_batches = int(std::max(1.0, (t.global_batch > 0 ? t.global_batch : t.micro_batch * n) / (std::max(1.0, t.micro_batch) * n))),
                .recompute = t.checkpointing};
    const double trainable = full ? w.model.params : lora_params(arch, t.lora_rank);
    const TrainingRuntime& rt = training_runtime(w, cat);
    const bool fp32 = w.precision.compute == "fp32"; // an fp32 run stores 4-byte weights, gradients and activations
    if (e.explain) c.notes.push_back("training runtime: " + rt.name + " [" + rt.id + "]" + (rt.meaning.empty() ? "" : ": " + rt.meaning));

    MemoryUse& m = c.memory;
    m.capacity_bytes = usable_bytes(d, a, false);
    double weights = 0, grad_per = 0, opt_per = 0, frozen_per = 0; // frozen_per, st_per: for the layout search
    ModelStateBytes st_per;
    WeightBytes frozen_base; // LoRA/QLoRA: the frozen base as stored (its quantized share is dequantized per use)
    std::string wwhy;
    if (full) {
        // Mixed precision keeps FP32 master weights (lesson 001's 16 bytes per parameter with AdamW); a pure-bf16
        // trainer (torchtune dtype bf16) updates the bf16 weights in place, its moments in the weights' dtype.
        const ModelStateBytes st = rt.full_master_weights || fp32
                                       ? full_training_state_bytes(t.optimizer, fp32)
                                       : ModelStateBytes{2.0, 2.0, optimizer_moment_bytes_per_param(t.optimizer, rt.optimizer_state_bytes_per_value)};
        weights = w.model.params * st.weights;
        st_per = st;
        grad_per = st.gradients;
        opt_per = st.optimizer;
        if (e.explain) wwhy = format_count(w.model.params) + " params x " + format_sig(st.weights, 2) + " bytes" + (fp32 ? " (fp32)" : "");
    } else {
        const std::string base = t.method == TrainMethod::qlora && w.precision.weights == "bf16" ? "nf4" : w.precision.weights;
        const WeightBytes wb = weight_bytes(w, cat, base, w.model.params, e.explain);
        frozen_base = wb;
        const double adapter = fp32 ? 4.0 : rt.adapter_bytes_per_param;
        weights = wb.total + trainable * adapter;
        grad_per = fp32 ? 4.0 : rt.adapter_gradient_bytes_per_param;
        opt_per = optimizer_moment_bytes_per_param(t.optimizer, fp32 ? 4.0 : rt.optimizer_state_bytes_per_value);
        st_per = {adapter, grad_per, opt_per};
        frozen_per = wb.total / w.model.params;
        if (e.explain) wwhy = "frozen base: " + wb.why + "; adapters " + format_count(trainable) + " x " + format_sig(adapter, 2) +
                              " bytes (rank " + format_sig(t.lora_rank, 4) + ", " + rt.id + ")";
    }
    // With the optimizer step fused into backward only the tensor being updated holds a gradient.
    const double grad_params = rt.optimizer_in_backward ? std::min(trainable, full ? largest_tensor_params(arch) : trainable) : trainable;
    // A mixed-precision optimizer step that converts the gradients to FP32 holds that copy beside its state
    // (DeepSpeed's memory.rst: "16b for fp32: 4b params, 4b grads, 4b momentum and 4b variance").
    const double fp32_grad_per = full && !fp32 && rt.full_master_weights ? rt.optimizer_fp32_gradient_bytes_per_param : 0;
    double grads = grad_params * grad_per, opt = trainable * (opt_per + fp32_grad_per);
    if (zero >= 1) opt /= n;
    const bool grads_sharded = zero >= 3 || (zero == 2 && rt.zero2_shards_gradients);
    if (grads_sharded) grads /= n;
    if (zero >= 3) weights /= n;
    // ZeRO-3 as DeepSpeed runs it gathers one layer at a time: its 16-bit parameters and the 16-bit gradients
    // computed for it (memory.rst: largest_layer_memory = 4 x largest_layer_params); the rest are partitions.
    const double gather_params = zero >= 3 && full && rt.zero3_layer_gather_bytes_per_param > 0 ? largest_tensor_params(arch) : 0;
    if (gather_params > 0) {
        weights += gather_params * rt.zero3_layer_gather_bytes_per_param / 2;
        grads = gather_params * rt.zero3_layer_gather_bytes_per_param / 2;
    }
    const double host_opt = t.cpu_offload ? opt : 0;
    if (t.cpu_offload) opt = 0;
    // Optimizer offload that reduces the gradients into host buffers (DeepSpeed ZeRO-2: "offload_optimizer": 2 * params).
    const bool grads_offloaded = t.cpu_offload && rt.offload_gradients && gather_params == 0;
    if (grads_offloaded) grads = 0;
    // FSDP's CPU offload (PyTorch FSDP2 CPUOffloadPolicy: "offloads parameters, gradients, and optimizer states
    // to CPU. Sharded parameters are copied host-to-device before all-gather"): the device holds only what is
    // unsharded at the moment, the block being computed and the next one whose all-gather overlaps it, and
    // the root unit (embeddings, final norm, head), which FSDP2 does not reshard after forward; in backward the
    // current block's gradient until it is reduce-scattered and copied out, and the root's until backward ends.
    const bool params_offloaded = t.cpu_offload && rt.offload_parameters && full && zero >= 3 && arch.layers > 0;
    const double tables_params = params_offloaded ? std::min(w.model.params, embedding_and_head_params(arch)) : 0;
    const double block_params = params_offloaded ? (w.model.params - tables_params) / arch.layers : 0;
    // A runtime that wraps the token embeddings and the head as FSDP units of their own (torchtune: 70B_full.yaml
    // custom_sharded_layers: ['tok_embeddings', 'output'], which training.shard_model passes to fully_shard with
    // reshard_after_forward=True) reshards them like the blocks: the root keeps only what is left (a learned position
    // table; Llama: the final norm), and the largest unit in flight is the head (vocab x hidden) beside a block.
    const double table_params = double(arch.vocab) * arch.hidden;
    const double own_units_params = rt.shard_embeddings_and_head ? std::min(tables_params, table_params * (arch.tied_embeddings ? 1.0 : 2.0)) : 0;
    const double root_params = tables_params - own_units_params;
    const double largest_unit_params = own_units_params > 0 ? std::max(block_params, table_params) : block_params;
    if (params_offloaded) {
        weights = (largest_unit_params + block_params + root_params) * st_per.weights;
        grads = (largest_unit_params + root_params) * grad_per;
    }
    m.weights_bytes = weights;
    e.term(m, "weights", weights, [&] {
        if (params_offloaded && own_units_params > 0)
            return std::string(wwhy + "; offloaded with FSDP's CPU offload (" + rt.id + "): on the device the largest unit in flight (" +
                               format_count(largest_unit_params) + " params) and the next block (" + format_count(block_params) +
                               "); embeddings and head are units of their own, resharded after forward" +
                               (root_params > 0 ? ", the root keeps " + format_count(root_params) : ""));
        if (params_offloaded) return std::string(wwhy + "; offloaded with FSDP's CPU offload (" + rt.id + "): on the device two blocks in flight (" +
                                                 format_count(2 * block_params) + " params) and the root unit, embeddings and head (" + format_count(root_params) + ")");
        return std::string(wwhy + (zero >= 3 ? ", sharded over " + std::to_string(n) : "") +
                                                           (gather_params > 0 ? " + the largest layer gathered (" + format_count(gather_params) + " params x 2 bytes)" : "")); });
    m.gradients_bytes = grads;
    e.term(m, "gradients", grads, [&] {
        if (params_offloaded && own_units_params > 0)
            return std::string("the largest unit's (" + format_count(largest_unit_params) + ")" +
                               (root_params > 0 ? " and the root unit's (" + format_count(root_params) + ")" : "") + " x " + format_sig(grad_per, 2) +
                               " bytes; the rest are copied to host memory as they are reduce-scattered (" + rt.id + ")");
        if (params_offloaded) return std::string("the current block's (" + format_count(block_params) + ") and the root unit's (" + format_count(root_params) + ") x " +
                                                 format_sig(grad_per, 2) + " bytes; the rest are copied to host memory as they are reduce-scattered (" + rt.id + ")");
        if (grads_offloaded) return std::string("reduced into host memory with the offloaded optimizer (" + rt.id + ")");
        if (gather_params > 0) return std::string("16-bit gradients of the largest layer only (" + format_count(gather_params) + " params x 2 bytes; ZeRO-3, " + rt.id + ")");
        return std::string(format_count(grad_params) + (grad_params < trainable ? " (the largest tensor; optimizer step in backward)" : " trainable") +
                           " x " + format_sig(grad_per, 2) + " bytes" + (grads_sharded ? ", sharded" : zero == 2 ? ", whole on each device (" + rt.id + ")" : ""));
    });
    ActivationSettings as;
    as.seq_len = t.seq_len;
    as.micro_batch = t.micro_batch;
    as.checkpointing = t.checkpointing;
    as.bytes_per_value = fp32 ? 4.0 : 2.0;
    as.flash_attention = t.attention.empty() ? !rt.eager_attention : t.attention != "eager";
    as.logits_kept_bytes_per_value = fp32 && rt.logits_kept_bytes_per_value > 0 ? 4.0 : rt.logits_kept_bytes_per_value; // fp32 logits
    // In an fp32 run the logits are already FP32: the loss's upcast (logits.float()) returns the same tensor,
    // so of the profile's FP32 bytes per logit (copy 4 + gradient 4, hf-loss-utils) only the gradient is new.
    as.loss_fp32_bytes_per_value = fp32 ? std::max(0.0, rt.loss_fp32_bytes_per_value - 4.0) : rt.loss_fp32_bytes_per_value;
    as.loss_chunks = rt.loss_chunks;
    as.offload_checkpoints = rt.offload_checkpoints;
    const auto act = training_activation_bytes(arch, as, arch.layers);
    m.activations_bytes = act.total_bytes;
    // The caching allocator fragments what is allocated and freed every step (activations, the loss's
    // buffers, gradients freed by zero_grad(set_to_none=True)); weights and optimizer state are allocated
    // once, each large tensor in a segment of its own size (PyTorch CUDACachingAllocator: "Large (>1MB)
    // allocation requests can be filled by a cudaMalloc call of the exact size").
    const double transient = m.activations_bytes + m.gradients_bytes;
    const double fragmentation = a.allocator_fragmentation_ratio * transient;
    m.overhead_bytes = a.runtime_context_bytes + fragmentation;
    // Paged optimizers (bitsandbytes, QLoRA section 3) keep the optimizer state in unified memory: when the
    // rest leaves too little room, the part that does not fit pages to host memory instead of failing.
    double paged = 0;
    if (rt.paged_optimizer && opt > 0) {
        const double rest = weights + grads + m.activations_bytes + m.overhead_bytes;
        paged = std::clamp(rest + opt - m.capacity_bytes, 0.0, opt);
        opt -= paged;
    }
    m.optimizer_bytes = opt;
    m.context_bytes = a.runtime_context_bytes;
    m.managed_bytes = rt.paged_optimizer ? opt : 0.0; // what stays on the device of the paged state is still managed memory
    e.term(m, "optimizer", opt, [&] { return std::string(std::string(name(t.optimizer)) + ": " + format_sig(opt_per, 3) + " bytes per trainable parameter" +
                                      (fp32_grad_per > 0 ? " + " + format_sig(fp32_grad_per, 2) + " for the FP32 gradient copy (" + rt.id + ")" : "") +
                                      (zero >= 1 ? ", sharded (ZeRO-" + std::to_string(zero) + ")" : "") +
                                      (t.cpu_offload ? "; offloaded: " + gb(host_opt) + " in host memory" : "") +
                                      (paged > 0 ? "; paged optimizer: " + gb(paged) + " paged out to host memory" : "")); });
    e.term(m, "activations", act.total_bytes, [&] { return std::string("blocks " + gb(act.blocks_bytes) + " (" + std::string(name(t.checkpointing)) +
                                                    " recomputation, " + (as.flash_attention ? "fused attention" : "eager attention: score matrices stored") +
                                                    (fp32 ? ", fp32" : "") +
                                                    (as.offload_checkpoints && t.checkpointing == Checkpointing::full ? ", checkpoints offloaded to host memory" : "") +
                                                    ") + logits and the loss " + gb(act.logits_bytes) + " (" + rt.id +
                                                    (rt.loss_chunks > 1 ? ": " + format_sig(rt.loss_chunks, 3) + " chunks" : ": whole FP32 logits") + ")"); });
    e.term(m, "overhead", m.overhead_bytes, [&] { return std::string("runtime context " + gb(a.runtime_context_bytes) + " + allocator fragmentation " +
                                                  format_sig(100 * a.allocator_fragmentation_ratio, 3) + " % of the per-step tensors (" + gb(transient) + ")"); });
    finish_memory(m);
    c.fits = m.total_bytes <= m.capacity_bytes;

    const Peak peak = peak_for(d, w.precision.compute);
    if (peak.fell_back() && e.explain) c.notes.push_back(peak.note());
    const double mfu = w.stage == Stage::pretrain ? a.training_mfu : a.finetune_mfu;
    const double sequences = t.global_batch > 0 ? t.global_batch : t.micro_batch * n;
    const double tokens_per_step = sequences * t.seq_len;
    // Adapter fine-tunes take the runtime's own timing (runtimes.json, adapter_step_overhead_s and
    // causal_attention_flops_ratio, fitted on its calibration rows); full training keeps the MFU's full count.
    const bool adapter = t.method != TrainMethod::full;
    // Eager attention computes the whole score matrix, masked or not: only a fused kernel skips (Dao 2023, 3.1.1).
    const double attention_ratio = adapter && !rt.eager_attention ? rt.causal_attention_flops_ratio : 1.0;
    const double flops_per_token = training_flops_per_token(arch, w.model.active_params, t.seq_len, t.method, t.checkpointing, attention_ratio);
    Phase step;
    if (e.explain) step.name = "training step (" + format_sig(tokens_per_step, 6) + " tokens)";
    step.precision = peak.precision;
    // MFU is a share of peak in *model* FLOPs (PaLM appendix B; Llama 3 and torchtune's figures count no
    // recomputation), so the step time divides the model FLOPs by it; what recomputation costs is already in
    // the measured MFU of the runs that recompute.
    const double model_flops_per_token =
        training_flops_per_token(arch, w.model.active_params, t.seq_len, t.method, Checkpointing::none, attention_ratio);
    // Where the attention kernels' own share of peak was measured for the device family (efficiencies.json
    // training_attention_efficiency), attention FLOPs run at that share of the 16-bit peak (FlashAttention runs
    // in BF16 under FP8 recipes too) and the MFU prices the rest; elsewhere the MFU prices all of it.
    const Peak attention_peak = peak_for(d, w.precision.compute == "fp8" ? "bf16" : w.precision.compute);
    const bool attention_apart = a.training_attention_efficiency > 0 && attention_peak.flop_per_s > 0;
    const double attention_flops_per_token =
        attention_apart ? training_flops_per_token(arch, 0, t.seq_len, t.method, Checkpointing::none, attention_ratio) : 0.0; // no parameters: attention alone
    // The kernels also run the forward that recomputation repeats: full checkpointing recomputes each block's
    // forward, attention included, and selective recomputation recomputes exactly the attention core (Korthikanti
    // et al. 2022, arXiv:2205.05198, "Selective Activation Recomputation"). The MFU absorbs the recomputed GEMMs
    // (it is measured on runs that recompute); a kernel's share of peak does not absorb extra kernel work, so
    // attention counts 4 forwards instead of 3 (llm-foundry scripts/train/benchmarking/README.md, "HFU": with
    // checkpointing "4 * attn_flops_per_seq").
    const double attention_run_flops_per_token =
        attention_apart ? training_flops_per_token(arch, 0, t.seq_len, t.method,
                                                   t.checkpointing == Checkpointing::none ? Checkpointing::none : Checkpointing::full,
                                                   attention_ratio)
                        : 0.0;
    const double attention_s = attention_apart ? tokens_per_step * attention_run_flops_per_token / n /
                                                     (attention_peak.flop_per_s * a.training_attention_efficiency)
                                               : 0.0;
    step.roofline = roofline(tokens_per_step * (model_flops_per_token - attention_flops_per_token) / n, 0, peak.flop_per_s * mfu,
                             d.bandwidth_bytes_per_s);
    // The step's compute is both parts, and its FLOPs the whole model's (what an MFU is read against).
    step.roofline.flops = tokens_per_step * model_flops_per_token / n;
    step.roofline.compute_s += attention_s;
    step.roofline.time_s = std::max(step.roofline.compute_s, step.roofline.memory_s);
    // FP8 GEMMs also pay for casting their operands (performance.h, fp8_cast_time_s), memory-bound work the
    // MFU of the BF16 runs above does not contain; it runs between the GEMMs, so it adds to their time.
    const double fp8_cast_s = peak.precision == "fp8" && peak.flop_per_s > 0
                                  ? fp8_cast_time_s(arch, tokens_per_step / n, a.training_fp8_cast_bytes_per_element, d.bandwidth_bytes_per_s)
                                  : 0.0;
    // QLoRA dequantizes its frozen 4-bit base on every use (performance.h, qlora_dequant_time_s): forward and
    // backward, plus the recomputed forward under full checkpointing, once per micro-batch; every device
    // dequantizes whole layers (data parallel, or FSDP after its all-gather).
    const double micro_batches = std::max(1.0, sequences / (std::max(1.0, t.micro_batch) * n));
    const double dequant_uses = micro_batches * (t.checkpointing == Checkpointing::full ? 3.0 : 2.0);
    const double dequant_s = t.method == TrainMethod::qlora && frozen_base.bits_per_weight < 16
                                 ? qlora_dequant_time_s(frozen_base.quantized_params, frozen_base.bits_per_weight, dequant_uses,
                                                        d.bandwidth_bytes_per_s)
                                 : 0.0;
    // Gradient all-reduce of the n devices over the scale-up link (parallel.h), a floor for slow links (PCIe):
    // the MFU above is measured end to end on runs whose network traffic it already includes, so the
    // scale-out network is priced by the layout search (c.layouts), not added here. Not counted when the
    // device publishes no link.
    const Network net = network_of(d, a);
    step.communication_s = d.interconnect_bytes_per_s > 0 ? allreduce_time_s(trainable * 2.0, {n, n}, net) : 0.0;
    // A fixed time per micro-batch of an adapter fine-tune (runtimes.json adapter_step_overhead_s): the per-step
    // cost the LLaMA-Factory rows show beyond FLOPs and dequantization (launches and Python work of the wrapped
    // layers, the optimizer step every few micro-batches); a fit on the runtime's calibration rows, not a mechanism.
    const double overhead_s = adapter ? micro_batches * rt.adapter_step_overhead_s : 0.0;
    step.time_s = std::max(step.roofline.time_s + fp8_cast_s + dequant_s + overhead_s, step.communication_s); // gradient all-reduce overlaps the backward pass
    c.phases.push_back(step);
    auto why = [&] { return format_sig(flops_per_token / w.model.active_params, 3) + "N FLOPs per token (with attention) x " +
                            format_sig(tokens_per_step, 6) + " tokens / (" + std::to_string(n) + " x " + format_sig(peak.flop_per_s / 1e12, 4) +
                            " TFLOPS x MFU " + format_sig(mfu, 2) + ")" +
                            (attention_s > 0 ? " + attention " + format_sig(attention_run_flops_per_token * tokens_per_step, 4) + " FLOPs" +
                                                   (attention_run_flops_per_token > attention_flops_per_token ? " (with its recomputed forward)" : "") + " at " +
                                                   format_sig(a.training_attention_efficiency, 2) + " of the " + attention_peak.precision + " peak (" +
                                                   format_sig(attention_s, 3) + " s)"
                                             : "") +
                            (fp8_cast_s > 0 ? " + FP8 casts " + format_sig(a.training_fp8_cast_bytes_per_element, 3) + " bytes per GEMM operand element (" +
                                                  format_sig(fp8_cast_s, 3) + " s)"
                                            : "") +
                            (dequant_s > 0 ? " + dequantizing the " + format_sig(frozen_base.bits_per_weight, 4) + "-bit base " + format_sig(dequant_uses, 3) +
                                                 " times to 16 bits (" + format_sig(dequant_s, 3) + " s)"
                                           : "") +
                            (attention_ratio < 1 ? "; attention counted at " + format_sig(attention_ratio, 2) + " of T x T (causal kernel, " + rt.id + ")" : "") +
                            (overhead_s > 0 ? " + " + format_sig(overhead_s, 3) + " s per-step overhead (" + rt.id + ")" : ""); };
    if (peak.flop_per_s > 0) {
        c.figures["step_time_s"] = e.figure(step.time_s, Label::modelled, why);
        c.figures["train_tokens_per_s"] = e.figure(tokens_per_step / step.time_s, Label::modelled, why);
        if (t.tokens > 0) c.figures["train_time_s"] = e.figure(t.tokens / (tokens_per_step / step.time_s), Label::modelled, [&] { return std::string(format_sig(t.tokens, 4) + " tokens / tokens per second"); });
        e.headline = tokens_per_step / step.time_s;
    }
    c.figures["trainable_params"] = e.figure(trainable, Label::arithmetic, [&] { return std::string(full ? "every parameter" : "LoRA adapters on every linear layer"); });
    if (!c.fits) {
        c.regime = Regime::capacity;
        if (e.explain) c.regime_why = "needs " + gb(m.total_bytes) + " per device but " + gb(m.capacity_bytes) + " is usable";
    } else if (step.communication_s > step.roofline.time_s + fp8_cast_s + dequant_s + overhead_s) {
        c.regime = Regime::bandwidth;
        if (e.explain) c.regime_why = "the gradient all-reduce (" + format_sig(step.communication_s, 3) + " s) outlasts the compute";
    } else {
        c.regime = Regime::compute;
        if (e.explain) c.regime_why = "training at MFU " + format_sig(mfu, 2) + " of the " + peak.precision + " peak";
    }
    // The layout search's basis: the same job and devices, and this profile's compute time per token on one
    // device (what the step above spends outside communication, over the tokens one device computes).
    if (basis && peak.flop_per_s > 0) {
        basis->job = training_job(w, trainable, st_per, frozen_per, as);
        basis->cluster = cluster_of(d, n, peak.flop_per_s, m.capacity_bytes, a);
        basis->job.compute_s_per_token = (step.roofline.time_s + fp8_cast_s + dequant_s + overhead_s) * n / tokens_per_step;
        basis->job.compute_basis_recompute = t.checkpointing;
        basis->valid = arch.layers > 0 && arch.hidden > 0 && arch.heads > 0;
    }
}

// [SECTION] training: one search over count and layout ------------------------------------------------
// A training candidate is the best point of one search over device count and layout. Points are of two
// kinds, one evaluator each, on one compute basis: data-parallel layouts with the trainer's own sharding
// (ZeRO/FSDP stage: eval_train's runtime-profile model, the one the validation suite checks), and for
// pretraining the layout search's model-parallel layouts (parallel.h: tensor, context, pipeline and expert
// parallelism, micro-batch, recomputation), priced on the profile's compute time per token. Fine-tunes keep to
// data parallelism with sharding: what their trainers (torchtune, PEFT with accelerate/DeepSpeed) run.

struct TrainPoint {
    int n = 0;
    bool profile = true;   // a data-parallel point evaluated by eval_train; else one of the layout search's
    LayoutResult result;   // its layout and numbers (memory per device, step, tokens/s, time to train)
};

double model_flops_per_token(const Workload& w) {
    return training_flops_per_token(w.model.model.arch, w.model.active_params, w.train.seq_len, w.train.method, Checkpointing::none);
}

// The numbers of a data-parallel point, in the layout search's terms.
LayoutResult result_of(const Workload& w, const Eval& e, double peak_flop_per_s) {
    const Candidate& c = e.c;
    LayoutResult r;
    r.layout = {.tensor_parallel = 1, .pipeline_parallel = 1, .data_parallel = c.layout.data_parallel, .zero_stage = c.layout.zero_stage,
                .micro_batch = std::max(1, c.layout.micro_batch), .micro_batches = std::max(1, c.layout.micro_batches), .recompute = c.layout.recompute};
    r.weights_bytes = c.memory.weights_bytes;
    r.gradients_bytes = c.memory.gradients_bytes;
    r.optimizer_bytes = c.memory.optimizer_bytes;
    r.activations_bytes = c.memory.activations_bytes;
    r.overhead_bytes = c.memory.overhead_bytes;
    r.memory_bytes = c.memory.total_bytes;
    r.capacity_bytes = c.memory.capacity_bytes;
    r.fits = c.fits;
    auto value = [&](const char* k) { auto it = c.figures.find(k); return it == c.figures.end() ? 0.0 : it->second.value; };
    r.step_s = value("step_time_s");
    r.tokens_per_s = value("train_tokens_per_s");
    r.time_to_train_s = value("train_time_s");
    if (!c.phases.empty()) {
        r.compute_s = std::max(0.0, c.phases.front().time_s - std::max(0.0, c.phases.front().communication_s - c.phases.front().roofline.time_s));
        r.communication_s = c.phases.front().communication_s;
    }
    const int n = c.layout.data_parallel;
    if (r.step_s > 0 && peak_flop_per_s > 0) r.mfu = model_flops_per_token(w) * r.tokens_per_s / (n * peak_flop_per_s);
    return r;
}

bool model_parallel(const TrainingLayout& l) {
    return l.tensor_parallel > 1 || l.pipeline_parallel > 1 || l.context_parallel > 1 || l.expert_parallel > 1;
}

// Faster first among fitting points; a misfit only when nothing fits, closest to fitting first.
bool better(const TrainPoint& x, const TrainPoint& y) {
    if (x.result.fits != y.result.fits) return x.result.fits;
    if (x.result.fits) return x.result.tokens_per_s > y.result.tokens_per_s;
    return x.result.memory_bytes / x.result.capacity_bytes < y.result.memory_bytes / y.result.capacity_bytes;
}

// Every point on n devices, best first (at most `keep`). `searched` counts the layouts looked at.
std::vector<TrainPoint> train_points(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, size_t keep,
                                     long& searched) {
    std::vector<TrainPoint> out;
    TrainBasis basis;
    const auto& tr = w.train;
    std::vector<int> zeros;
    if (is_given(w, "train.zero_stage") || n == 1) zeros = {default_zero(w, n)};
    else zeros = {0, 1, 2, 3};
    const bool profile_allowed = tr.tensor_parallel <= 1 && tr.pipeline_parallel <= 1 && tr.context_parallel <= 1 && tr.expert_parallel <= 1;
    for (int z : zeros) {
        Eval e;
        e.explain = false;
        eval_train(w, cat, d, n, a, e, z, z == default_zero(w, n) ? &basis : nullptr);
        if (profile_allowed) out.push_back({n, true, result_of(w, e, peak_for(d, w.precision.compute).flop_per_s)});
        ++searched;
    }
    const bool pinned_data_parallel = tr.tensor_parallel == 1 && tr.pipeline_parallel == 1 && tr.context_parallel == 1 && tr.expert_parallel <= 1;
    if (w.stage == Stage::pretrain && n > 1 && basis.valid && !pinned_data_parallel) {
        LayoutLimits lim;
        lim.keep = 12;
        lim.find_fewest = false;
        lim.tensor_parallel = tr.tensor_parallel;
        lim.pipeline_parallel = tr.pipeline_parallel;
        lim.context_parallel = tr.context_parallel;
        lim.expert_parallel = tr.expert_parallel;
        if (is_given(w, "train.zero_stage")) lim.zero_stage = w.train.zero_stage;
        if (is_given(w, "train.checkpointing")) lim.recompute = int(w.train.checkpointing);
        const LayoutSearch s = search_layouts(basis.job, basis.cluster, a, lim);
        searched += s.searched;
        // Only layouts of this job on these devices (a search that finds none may answer for another batch or count).
        const double batch = basis.job.global_batch > 0 ? basis.job.global_batch : basis.job.micro_batch * n;
        if (s.devices == n && s.global_batch == batch)
            for (const LayoutResult& r : s.layouts)
                if (model_parallel(r.layout) && r.fits) out.push_back({n, false, r});
    }
    std::stable_sort(out.begin(), out.end(), better);
    if (out.size() > keep) out.resize(keep);
    return out;
}

// The device counts tried: powers of two up to the fast domain, the whole domain, then whole domains doubling
// while a scale-out network joins them.
std::vector<int> count_ladder(const Device& d, const Assumptions& a) {
    const Network net = network_of(d, a);
    const int domain = std::min(std::max(1, net.domain_size), most_devices(d, a));
    std::vector<int> out;
    for (int n = 1; n <= domain; n *= 2) out.push_back(n);
    if (out.back() != domain) out.push_back(domain);
    if (net.multi_node)
        for (long n = 2L * domain; n <= (1L << 17); n *= 2) out.push_back(int(n));
    return out;
}

struct TrainChoice {
    std::vector<TrainPoint> points; // the chosen point first, then the runners-up on the same count
    long searched = 0;
    std::string why;                // how the count was chosen, in words (built only when explaining)
};

// The count and layout of a training candidate. Given a count, the best layout on it. Otherwise, with a
// deadline and a token count, the fewest devices (the cheapest: device-hours grow with the count as
// efficiency falls) whose best layout finishes in time; without a deadline, the fewest that fit.
TrainChoice choose_training(const Workload& w, const Catalog& cat, const Device& d, const Assumptions& a, bool explain) {
    TrainChoice out;
    const size_t keep = 4;
    auto at = [&](int n) { return train_points(w, cat, d, n, a, keep, out.searched); };
    // What a misfit says: how many layouts were looked at and how far the closest is from fitting.
    auto misfit = [&](int n) {
        const LayoutResult& r = out.points.front().result;
        return "none of " + std::to_string(out.searched) + " layouts fits on " + std::to_string(n) + " devices (the closest needs " +
               format_sig(r.memory_bytes / 1e9, 3) + " GB of " + format_sig(r.capacity_bytes / 1e9, 3) + " GB per device)";
    };
    if (w.hardware.count > 0) {
        out.points = at(w.hardware.count);
        if (explain)
            out.why = !out.points.empty() && !out.points.front().result.fits ? misfit(w.hardware.count)
                                                                             : std::to_string(w.hardware.count) + " devices, as given";
        return out;
    }
    const double deadline_s = w.decision.deadline_days * 86400;
    auto meets = [&](const std::vector<TrainPoint>& p) { return !p.empty() && p.front().result.fits && p.front().result.time_to_train_s > 0 &&
                                                                p.front().result.time_to_train_s <= deadline_s; };
    // Devices the team owns come first: all of them, when the job fits them (and meets its deadline).
    for (const auto& od : w.hardware.owned)
        if (od.device == d.id) {
            std::vector<TrainPoint> mine = at(od.count);
            if (!mine.empty() && mine.front().result.fits && (deadline_s <= 0 || w.train.tokens <= 0 || meets(mine))) {
                out.points = std::move(mine);
                if (explain) out.why = std::to_string(od.count) + " devices, the ones the team owns (hardware.owned)";
                return out;
            }
        }
    const std::vector<int> ladder = count_ladder(d, a);
    // Model state spread over n devices is a floor on any layout's memory there: below it, no search.
    Eval whole;
    whole.explain = false;
    eval_train(w, cat, d, 1, a, whole, 0);
    const double state = whole.c.memory.weights_bytes + whole.c.memory.gradients_bytes + whole.c.memory.optimizer_bytes;
    size_t i = 0;
    std::vector<TrainPoint> nearest;
    for (; i < ladder.size(); ++i) {
        if (state / ladder[i] > whole.c.memory.capacity_bytes && i + 1 < ladder.size()) continue;
        out.points = at(ladder[i]);
        if (!out.points.empty() && out.points.front().result.fits) break;
        if (nearest.empty() && !out.points.empty()) nearest = out.points;
    }
    if (i == ladder.size()) { // nothing fits on the largest count: report the smallest count's nearest point
        if (!nearest.empty()) out.points = nearest;
        if (explain) out.why = "nothing fits on up to " + std::to_string(ladder.back()) + " devices" +
                               (out.points.empty() ? std::string() : "; " + misfit(out.points.front().n));
        return out;
    }
    if (deadline_s <= 0 || w.train.tokens <= 0 || out.points.front().result.time_to_train_s <= 0) {
        if (explain) out.why = std::to_string(ladder[i]) + " devices, the fewest that fit" +
                               (w.train.tokens > 0 ? std::string(" (no deadline given)") : std::string(""));
        return out;
    }
    if (meets(out.points)) {
        if (explain) out.why = std::to_string(ladder[i]) + " devices, the fewest that fit, finish within the " + format_sig(w.decision.deadline_days, 4) + "-day deadline";
        return out;
    }
    // Jump to the count that would meet the deadline at the same speed per device, then walk: up while it does
    // not, down while the one below also does.
    const double need = ladder[i] * out.points.front().result.time_to_train_s / deadline_s;
    size_t j = i;
    while (j + 1 < ladder.size() && ladder[j] < need) ++j;
    std::vector<TrainPoint> best = out.points;
    size_t best_at = i;
    auto faster = [](const std::vector<TrainPoint>& x, const std::vector<TrainPoint>& y) {
        return !x.empty() && x.front().result.fits && (y.empty() || !y.front().result.fits || x.front().result.tokens_per_s > y.front().result.tokens_per_s); };
    std::vector<TrainPoint> cur = at(ladder[j]);
    if (faster(cur, best)) { best = cur; best_at = j; }
    while (!meets(cur) && j + 1 < ladder.size()) {
        cur = at(ladder[++j]);
        if (faster(cur, best)) { best = cur; best_at = j; }
    }
    if (meets(cur)) {
        while (j > i + 1) {
            std::vector<TrainPoint> below = at(ladder[j - 1]);
            if (!meets(below)) break;
            cur = std::move(below);
            --j;
        }
        out.points = cur;
        if (explain) out.why = std::to_string(ladder[j]) + " devices, the fewest that finish within the " + format_sig(w.decision.deadline_days, 4) + "-day deadline";
        return out;
    }
    out.points = best;
    if (explain) out.why = "no count up to " + std::to_string(ladder.back()) + " finishes within the " + format_sig(w.decision.deadline_days, 4) +
                           "-day deadline; the fastest, " + std::to_string(ladder[best_at]) + " devices, takes " +
                           format_sig(best.front().result.time_to_train_s / 86400, 3) + " days";
    return out;
}

// The candidate at one point: the profile's own evaluation for a data-parallel point; for a layout-search
// point, the profile on the same devices (its notes, trainable parameters, basis) with the point's memory,
// step and figures in place of its own.
void eval_train_point(const Workload& w, const Catalog& cat, const Device& d, const TrainPoint& pt, const Assumptions& a, Eval& e) {
    if (pt.profile) {
        eval_train(w, cat, d, pt.n, a, e, pt.result.layout.zero_stage);
        return;
    }
    TrainBasis basis;
    eval_train(w, cat, d, pt.n, a, e, -1, &basis);
    const LayoutResult r = basis.valid ? evaluate_layout(basis.job, basis.cluster, a, pt.result.layout) : pt.result;
    const TrainingLayout& l = r.layout;
    Candidate& c = e.c;
    c.layout = {.tensor_parallel = l.tensor_parallel, .pipeline_parallel = l.pipeline_parallel, .data_parallel = l.data_parallel,
                .zero_stage = l.zero_stage, .expert_parallel = l.expert_parallel, .context_parallel = l.context_parallel,
                .virtual_stages = l.virtual_stages, .micro_batch = l.micro_batch, .micro_batches = l.micro_batches, .recompute = l.recompute};
    MemoryUse& m = c.memory;
    const double context = m.context_bytes;
    m = MemoryUse{};
    m.capacity_bytes = r.capacity_bytes;
    m.context_bytes = context;
    m.weights_bytes = r.weights_bytes;
    m.gradients_bytes = r.gradients_bytes;
    m.optimizer_bytes = r.optimizer_bytes;
    m.activations_bytes = r.activations_bytes;
    m.overhead_bytes = r.overhead_bytes;
    const std::string where = describe(l);
    e.term(m, "weights", r.weights_bytes, [&] { return "the fullest pipeline stage's share, " + where; });
    e.term(m, "gradients", r.gradients_bytes, [&] { return std::string("its trainable share") + (l.zero_stage >= 2 ? ", sharded (ZeRO-" + std::to_string(l.zero_stage) + ")" : ""); });
    e.term(m, "optimizer", r.optimizer_bytes, [&] { return std::string("its trainable share") + (l.zero_stage >= 1 ? ", sharded (ZeRO-" + std::to_string(l.zero_stage) + ")" : ""); });
    e.term(m, "activations", r.activations_bytes, [&] { return "micro-batches in flight on the first stage (1F1B), sequence parallel under tensor parallelism"; });
    e.term(m, "overhead", r.overhead_bytes, [&] { return "runtime context + allocator fragmentation of the per-step tensors"; });
    finish_memory(m);
    c.fits = r.fits;
    const double tokens_per_step = l.micro_batch * double(l.micro_batches) * l.data_parallel * w.train.seq_len;
    Phase step;
    if (e.explain) step.name = "training step (" + format_sig(tokens_per_step, 6) + " tokens, " + where + ")";
    step.precision = c.phases.empty() ? std::string() : c.phases.front().precision;
    step.roofline.flops = tokens_per_step * model_flops_per_token(w) / pt.n;
    step.roofline.compute_s = step.roofline.time_s = r.compute_s + r.bubble_s;
    step.roofline.compute_bound = true;
    step.communication_s = r.communication_s;
    step.time_s = r.step_s;
    c.phases = {step};
    auto why = [&] { return "compute " + format_sig(r.compute_s, 3) + " s + pipeline bubble " + format_sig(r.bubble_s, 3) + " s + exposed communication " +
                            format_sig(r.communication_s, 3) + " s a step (" + where + "); compute on the profile's basis (" +
                            format_sig(basis.job.compute_s_per_token * 1e6, 4) + " us per token on one device), MFU " + format_sig(100 * r.mfu, 3) + " %"; };
    c.figures["step_time_s"] = e.figure(r.step_s, Label::modelled, why);
    c.figures["train_tokens_per_s"] = e.figure(r.tokens_per_s, Label::modelled, why);
    c.figures.erase("train_time_s");
    if (w.train.tokens > 0 && r.tokens_per_s > 0)
        c.figures["train_time_s"] = e.figure(w.train.tokens / r.tokens_per_s, Label::modelled, [&] { return std::string(format_sig(w.train.tokens, 4) + " tokens / tokens per second"); });
    e.headline = r.tokens_per_s;
    if (!c.fits) {
        c.regime = Regime::capacity;
        if (e.explain) c.regime_why = "needs " + gb(m.total_bytes) + " per device but " + gb(m.capacity_bytes) + " is usable";
    } else if (r.communication_s + r.bubble_s > r.compute_s) {
        c.regime = Regime::bandwidth;
        if (e.explain) c.regime_why = "communication and the pipeline bubble (" + format_sig(r.communication_s + r.bubble_s, 3) + " s) outlast the compute (" +
                                      format_sig(r.compute_s, 3) + " s)";
    } else {
        c.regime = Regime::compute;
        if (e.explain) c.regime_why = "compute-bound: MFU " + format_sig(100 * r.mfu, 3) + " % with " + format_sig(r.communication_s + r.bubble_s, 3) +
                                      " s of communication and bubble a step";
    }
}

void eval_embed(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e) {
    Candidate& c = e.c;
    const auto& arch = w.model.model.arch;
    const auto& s = w.embed;
    c.layout = {.data_parallel = n};
    const WeightBytes wb = weight_bytes(w, cat, w.precision.weights, w.model.params, e.explain);
    MemoryUse& m = c.memory;
    m.capacity_bytes = usable_bytes(d, a, true);
    m.weights_bytes = wb.total;
    e.term(m, "weights", wb.total, [&] { return std::string(wb.why); });
    const double tokens = s.batch_size * s.tokens_per_item;
    m.activations_bytes = inference_activation_bytes(arch, tokens, 0); // fused attention: no score matrices
    e.term(m, "activations", m.activations_bytes, [&] { return std::string("one block's working set for " + format_sig(s.batch_size, 6) + " items x " +
                                                        format_sig(s.tokens_per_item, 6) + " tokens"); });
    m.overhead_bytes = runtime_overhead_bytes(d, a);
    e.term(m, "overhead", m.overhead_bytes, [&] { return std::string("runtime context and framework"); });
    finish_memory(m);
    c.fits = m.total_bytes <= m.capacity_bytes;

    const Peak peak = peak_for(d, w.precision.compute);
    if (peak.fell_back() && e.explain) c.notes.push_back(peak.note());
    Phase b;
    if (e.explain) b.name = "encoder batch (" + format_sig(s.batch_size, 6) + " items)";
    b.precision = peak.precision;
    // Small batches leave multiprocessors idle: the weight GEMMs (M = batch x tokens rows) run at their tile and wave
    // quantisation share (performance.h gemm_wave_efficiency) of the kernel efficiency; attention's per-sequence GEMMs
    // (batch x heads of them) fill the device and keep the full share. 1 where the catalog records no SM count.
    const double flops = s.batch_size * encoder_flops_per_item(arch, w.model.params, s.tokens_per_item);
    const double attention_flops = s.batch_size * encoder_flops_per_item(arch, 0, s.tokens_per_item); // no parameters: attention alone
    const double wave = block_gemm_wave_efficiency(arch, tokens, a.gemm_tile_elements, d.streaming_multiprocessors);
    const double wave_share = flops > 0 ? flops / ((flops - attention_flops) / wave + attention_flops) : 1.0;
    b.roofline = roofline(flops, wb.total, peak.flop_per_s * a.encoder_compute_efficiency * wave_share,
                          d.bandwidth_bytes_per_s * a.decode_bandwidth_efficiency);
    b.time_s = b.roofline.time_s;
    c.phases.push_back(b);
    if (b.time_s > 0) {
        const double items_per_s = n * s.batch_size / b.time_s;
        auto why = [&] { return format_sig(encoder_flops_per_item(arch, w.model.params, s.tokens_per_item) / 1e9, 4) +
                                " GFLOP per item at " + format_sig(s.tokens_per_item, 6) + " tokens" +
                                (wave < 1 ? "; weight GEMMs of " + format_sig(tokens, 6) + " rows keep " + format_sig(100 * wave, 3) + " % of " +
                                                std::to_string(d.streaming_multiprocessors) + " SMs busy (" + format_sig(a.gemm_tile_elements, 4) +
                                                "-square tiles, wave quantisation)"
                                          : std::string()); };
        c.figures["items_per_s"] = e.figure(items_per_s, Label::modelled, why);
        if (s.items > 0) {
            const double total = s.items / items_per_s;
            c.figures["embed_time_s"] = e.figure(total, Label::modelled, [&] { return std::string(format_sig(s.items, 6) + " items / items per second"); });
            if (s.window_s > 0) c.figures["window_used_ratio"] = e.figure(total / s.window_s, Label::modelled, [&] { return std::string("job time / batch window"); });
        }
        e.headline = items_per_s;
    }
    c.regime = !c.fits ? Regime::capacity : b.roofline.compute_bound ? Regime::compute : Regime::bandwidth;
    if (e.explain) c.regime_why = !c.fits ? "needs " + gb(m.total_bytes) + " but " + gb(m.capacity_bytes) + " is usable"
                           : "encoder batch: " + format_sig(b.roofline.intensity_flop_per_byte, 3) + " FLOP/byte against a ridge of " +
                                 format_sig(b.roofline.ridge_flop_per_byte, 3);
}

// Without a published peak for the compute precision (or a wider one) the device's speed is unknown:
// time figures are left out rather than shown as if compute were free.
void drop_time_figures(Eval& e) {
    for (auto it = e.c.figures.begin(); it != e.c.figures.end();) {
        const std::string& k = it->first;
        const bool timing = k.size() > 2 && (k.compare(k.size() - 2, 2, "_s") == 0 || k.find("per_s") != std::string::npos ||
                                             k == "utilization_ratio" || k == "window_used_ratio");
        it = timing ? e.c.figures.erase(it) : std::next(it);
    }
    e.headline = 0;
    if (e.c.fits) e.c.regime_why = "compute peak not published for this precision: speed and regime not modelled";
}

// Decode of the user's own batch is bound by memory bandwidth, which every datasheet gives: when the compute
// peak is unknown (FP4-only datasheets such as Jetson AGX Thor), decode keeps its bandwidth roofline, a
// lower bound on the step time and so an upper bound on speed, and says that the compute side is unknown.
// Everything that needs the compute side (prefill, queueing, offline batches, training) is left out.
void keep_bandwidth_figures(Eval& e, const std::string& precision) {
    const std::string why = " [bandwidth roofline only: no published " + precision +
                            " (or wider) peak, so the compute side is unknown and this is an upper bound on speed]";
    for (auto it = e.c.figures.begin(); it != e.c.figures.end();) {
        const std::string& k = it->first;
        if (k == "decode_step_s" || k == "decode_tokens_per_s_per_user") {
            if (e.explain) it->second.why += why;
            ++it;
            continue;
        }
        const bool timing = k.size() > 2 && (k.compare(k.size() - 2, 2, "_s") == 0 || k.find("per_s") != std::string::npos ||
                                             k == "utilization_ratio" || k == "window_used_ratio" || k.find("within_targets") != std::string::npos);
        it = timing ? e.c.figures.erase(it) : std::next(it);
    }
    if (e.c.fits) e.c.regime_why = "decode: bandwidth-bound at this batch as far as the datasheet tells; the compute peak for " + precision +
                                   " is not published, so prefill, time to first token and throughput at large batches are not modelled";
}

// [SECTION] serving layouts (issue 11) ---------------------------------------------------------------

// The n devices as `replicas` data-parallel copies of n / replicas devices each (tensor parallel inside the
// fast domain, pipeline stages past it, as eval_serve lays out one replica): one replica is evaluated at its
// share of the arrival rate, and its throughput and user capacity are multiplied by the replicas.
Eval eval_serve_replicas(const Workload& w, const Catalog& cat, const Device& d, int n, int replicas, const Assumptions& a, bool explain) {
    // The workload is copied only to split its arrival rate (the search evaluates thousands of layouts).
    std::optional<Workload> split;
    if (replicas > 1) {
        split = w;
        split->serve.requests_per_s /= replicas;
        for (auto& t : split->serve.traffic) t.requests_per_s /= replicas;
    }
    const Workload& share = split ? *split : w;
    Eval e;
    e.explain = explain;
    e.c.device = d.id;
    e.c.device_name = d.name;
    e.c.count = n;
    eval_serve(share, cat, d, n / replicas, a, e);
    if (replicas <= 1) return e;
    e.c.layout.data_parallel = replicas;
    for (const char* k : {"throughput_tokens_per_s", "max_concurrent_users", "max_throughput_within_targets_tokens_per_s"}) {
        auto it = e.c.figures.find(k);
        if (it == e.c.figures.end()) continue;
        it->second.value *= replicas;
        it->second.low *= replicas;
        it->second.high *= replicas;
        if (explain) it->second.why += "; x " + std::to_string(replicas) + " replicas of " + std::to_string(n / replicas) + " device(s)";
    }
    if (w.stage == Stage::batch) e.headline = e.c.figures.at("throughput_tokens_per_s").value;
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
    auto it = e.c.figures.find(key);
    return it == e.c.figures.end() ? 0 : it->second.value;
}

// With the count left to the planner the replica size is the choice itself (choose_count: the fewest devices
// that fit, or at a rate the size whose fleet has the fewest devices), so only a given count is split.
// `fixed_replicas` > 0 skips the search (the bands of a layout already chosen).
Eval best_serving_layout(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, bool explain, int fixed_replicas) {
    if (fixed_replicas > 0 && n % fixed_replicas == 0) return eval_serve_replicas(w, cat, d, n, fixed_replicas, a, explain);
    Eval best = eval_serve_replicas(w, cat, d, n, 1, a, explain);
    if (n <= 1 || w.hardware.count <= 0 || !(offline_batch(w) || rate_batch(w))) return best;
    double best_score = layout_score(w, best);
    std::string tried = explain ? "1 x " + std::to_string(n) + ": " + (best_score >= 0 ? format_sig(best_score, 4) : std::string("does not fit")) : "";
    for (int r = 2; r <= n; r *= 2) {
        if (n % r != 0) continue;
        Eval t = eval_serve_replicas(w, cat, d, n, r, a, explain);
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

// [SECTION] MIG partitions (issue 11) -------------------------------------------------------------------------
// Several small replicas on one large device: NVIDIA's Multi-Instance GPU splits an A100/H100/H200/B200 into up to
// seven instances (the catalog's partitioning profiles, from nvidia/mig-parted). The MIG user guide ("Concepts",
// terminology): "A GPU memory slice is roughly one eighth of the total GPU memory resources, including both
// capacity and bandwidth", and an SM slice "roughly one seventh of the total number of SMs". An instance is planned
// as a device of its own: the profile's memory, the memory bandwidth in proportion to its memory, the compute in
// proportion to its compute slices (the "Ng" of the profile's name, of the whole device's). The profile with the most
// instances that holds the model for its share of the users is reported beside the plan (figures and a note); the
// pricing stays whole-device. Lesson 003: MIG "improves sharing and isolation, but it does not remove memory limits
// or make one device equivalent to many full GPUs": each instance reads the weights again, at its slice's bandwidth.

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
        const double per_user = t.c.figures.at("decode_tokens_per_s_per_user").value, total = k * t.c.figures.at("throughput_tokens_per_s").value;
        auto why = [&] {
            return std::to_string(k) + " x MIG " + p->name + " (" + format_sig(100 * memory_share, 3) + " % of the memory and its bandwidth, " +
                   std::to_string(compute_slices(p->name)) + "/" + std::to_string(most) + " of the compute each), the profile with the most instances that holds the model for its share of the load";
        };
        c.figures["mig_instances"] = e.figure(k, Label::arithmetic, why);
        c.figures["mig_decode_tokens_per_s_per_user"] = e.figure(per_user, Label::modelled, why);
        c.figures["mig_throughput_tokens_per_s"] = e.figure(total, Label::modelled, why);
        c.notes.push_back("MIG: " + why() + ": " + format_sig(per_user, 3) + " tokens/s per user and " + format_sig(total, 4) +
                          " output tokens/s together, against " + format_sig(c.figures.at("throughput_tokens_per_s").value, 4) +
                          " on the whole device; instances isolate tenants but each reads the weights again (lesson 003)");
        return;
    }
}

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

// `point`: a training candidate's point of the training search (choose_training); null: the profile's default.
Eval evaluate(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, bool explain = true, int replicas = 0,
              const TrainPoint* point = nullptr) {
    Eval e;
    e.explain = explain;
    e.c.device = d.id;
    e.c.device_name = d.name;
    e.c.count = n;
    switch (w.stage) {
    case Stage::serve:
    case Stage::batch:
    case Stage::edge:
        e = best_serving_layout(w, cat, d, n, a, explain, replicas);
        if (explain && w.stage == Stage::serve) mig_partitions(w, cat, d, a, e);
        break;
    case Stage::finetune:
    case Stage::pretrain:
        if (point) eval_train_point(w, cat, d, *point, a, e);
        else eval_train(w, cat, d, n, a, e);
        break;
    case Stage::rl: {
        // The trainer decides what must fit; the rollout pool's decode speed is reported beside it.
        eval_train(w, cat, d, n, a, e);
        e.c.figures.erase("train_time_s"); // the trainer's alone: the job's time needs its pools (rl_job_figures)
        Eval rollout;
        rollout.explain = e.explain;
        eval_serve(w, cat, d, n, a, rollout);
        for (const char* k : {"decode_tokens_per_s_per_user", "throughput_tokens_per_s"})
            if (rollout.c.figures.count(k)) e.c.figures[std::string("rollout_") + k] = rollout.c.figures[k];
        if (e.explain && e.c.fits) {
            e.c.rl = rl_pools(w, cat, d, n, a, e.c);
            e.c.notes.push_back("RL pools: " + e.c.rl.explanation);
            rl_job_figures(w, e.c.rl, e);
        }
        break;
    }
    case Stage::embed: eval_embed(w, cat, d, n, a, e); break;
    }
    if (peak_for(d, w.precision.compute).flop_per_s <= 0) {
        if ((w.stage == Stage::serve || w.stage == Stage::edge) && e.c.figures.count("decode_step_s"))
            keep_bandwidth_figures(e, w.precision.compute);
        else
            drop_time_figures(e);
    }
    // Wafer-scale SRAM systems train by streaming weights from external memory (Cerebras CS-3 with MemoryX,
    // the device's catalog note) and their quoted peak may count sparsity: neither the GPU memory model
    // (weights resident, ZeRO sharding) nor its MFU describes them, so no training number is given.
    if (is_training_stage(w.stage) && d.kind == DeviceKind::sram_system) {
        drop_time_figures(e);
        e.c.regime_why = "training on " + d.id + " is not modelled: it streams weights from external memory rather than holding them, "
                         "and its quoted peak may include sparsity; no speed is given";
        if (e.explain) e.c.notes.push_back(e.c.regime_why + "; the memory terms above assume weights held on the device and do not apply either");
    }
    return e;
}

// Band every figure and the memory total across the low and high cases of the assumptions.
void widen(Candidate& c, const Candidate& other) {
    for (auto& [k, f] : c.figures) {
        auto it = other.figures.find(k);
        if (it == other.figures.end()) continue;
        f.low = std::min(f.low, it->second.value);
        f.high = std::max(f.high, it->second.value);
    }
    c.memory.total_low_bytes = std::min(c.memory.total_low_bytes, other.memory.total_bytes);
    c.memory.total_high_bytes = std::max(c.memory.total_high_bytes, other.memory.total_bytes);
    const double reserved = other.memory.total_bytes - other.memory.context_bytes - other.memory.managed_bytes;
    c.memory.reserved_low_bytes = std::min(c.memory.reserved_low_bytes, reserved);
    c.memory.reserved_high_bytes = std::max(c.memory.reserved_high_bytes, reserved);
}

// The fewest devices that fit (when the workload does not fix the count): powers of two up to most_devices().
int choose_count(const Workload& w, const Catalog& cat, const Device& d, const Assumptions& a) {
    if (w.hardware.count > 0) return w.hardware.count;
    if (w.stage == Stage::edge || w.stage == Stage::embed) return 1;
    int n0 = 1;
    if (w.stage == Stage::serve || w.stage == Stage::batch) {
        // The weights alone must fit the devices' usable memory: start the search there.
        const double weights = weight_bytes(w, cat, w.precision.weights, w.model.params, false).total;
        const double usable = usable_bytes(d, a, true);
        while (n0 < 4096 && weights / n0 > usable) n0 *= 2;
    }
    int first = 0;
    for (int n = n0; n <= most_devices(d, a) && !first; n *= 2)
        if (evaluate(w, cat, d, n, a, false).c.fits) first = n;
    if (!first) return 1;
    if (!rate_batch(w)) return first;
    // At an arrival rate the fleet is ceil(demand / capacity) copies of the n devices planned here: among the
    // sizes from the fewest that fit up to the fast domain (8 at most), keep the one whose fleet has the fewest
    // devices (issue 11: replicas x tensor parallelism at least cost). At a rate the throughput counts each
    // request's prefill already (eval_serve), as the pricing does (decide.cpp).
    double demand = w.serve.requests_per_s * serve_shape(w).output;
    if (!w.serve.traffic.empty()) {
        demand = 0;
        for (const auto& t : w.serve.traffic) demand += t.requests_per_s * t.output_tokens;
    }
    auto fleet = [&](int n) {
        const Eval e = evaluate(w, cat, d, n, a, false);
        const auto tp = e.c.figures.find("throughput_tokens_per_s");
        const auto q = e.c.figures.find("replicas_for_rate");
        if (!e.c.fits || tp == e.c.figures.end() || tp->second.value <= 0) return 1e300;
        const double replicas = std::max(std::ceil(demand / tp->second.value), q == e.c.figures.end() ? 1.0 : q->second.value);
        return replicas * n;
    };
    int best = first;
    double best_devices = fleet(first);
    for (int n = first * 2; n <= std::min(std::max(1, d.domain_size), kMaxTensorParallel); n *= 2)
        if (const double devices = fleet(n); devices < best_devices) {
            best = n;
            best_devices = devices;
        }
    return best;
}

// The first rule of `rules` that matches the device, its runtime (the workload's framework as given, so a
// backend variant such as "llama.cpp-vulkan" takes only rules that name it, else llama.cpp-style on SoCs, CPUs
// and NPUs and a serving engine or trainer on discrete accelerators) and the
// kind of the weight format (llama.cpp's block-quantized GGUF kernels dequantize as they read and reach a
// smaller share of bandwidth than its F16 ones: efficiencies.json).
const EfficiencyRule* matching_rule(const std::vector<EfficiencyRule>& rules, const Workload& w, const Catalog& cat, const Device& d) {
    auto has = [](const std::vector<std::string>& list, const std::string& x) { return list.empty() || std::find(list.begin(), list.end(), x) != list.end(); };
    const std::string runtime = !w.framework.empty() ? w.framework : local_runtime(d) ? "llama.cpp" : "serving-engine";
    const WeightFormat* f = cat.find_format(w.precision.weights);
    const std::string format_kind = f ? f->kind : "float";
    // Rules that name weight formats are tried first, and among them rules that name devices before family
    // rules (the catalog's rules are read in key order, so the more specific rule must win by what it says,
    // not where it sits): one chip measured apart from its family keeps its own figure.
    for (const bool by_format : {true, false})
        for (const bool by_device : {true, false})
            for (const auto& r : rules) {
                if (r.weight_format_kinds.empty() == by_format || r.devices.empty() == by_device) continue;
                if (!has(r.kinds, std::string(name(d.kind))) || !has(r.vendors, d.vendor) || !has(r.devices, d.id)) continue;
                if (!r.memory_type_prefix.empty() && d.memory_type.rfind(r.memory_type_prefix, 0) != 0) continue;
                if (!has(r.frameworks, runtime)) continue;
                if (!has(r.weight_format_kinds, format_kind)) continue;
                return &r;
            }
    return nullptr;
}

// An MFU the user measured (a workload override or a calibration) is end to end: it already holds the step's
// attention and FP8 casts, so they are not priced apart as well (unless the user pinned them too).
void end_to_end_mfu(AssumptionSet& das, const EfficiencyRule*& attention_rule) {
    for (const char* key : {"training_attention_efficiency", "training_fp8_cast_bytes_per_element"}) {
        const auto src = das.source.find(key);
        if (src != das.source.end() && (src->second == "workload" || src->second == "calibration")) continue;
        double Assumptions::*field = assumption_member(key);
        das.typical.*field = das.low.*field = das.high.*field = 0;
        das.source[key] = "training_mfu";
        if (std::string(key) == "training_attention_efficiency") attention_rule = nullptr;
    }
}

// Efficiencies measured for the device's family and runtime (catalog/efficiencies.json) replace the
// catalog-wide ones, unless the workload pinned them: decode bandwidth efficiency, pretraining MFU, training's
// attention share and a decode step's GEMM share of an 8-bit peak.
AssumptionSet device_assumptions(const AssumptionSet& as, const Catalog& cat, const Workload& w, const Device& d,
                                 const EfficiencyRule*& decode_rule, const EfficiencyRule*& mfu_rule, const EfficiencyRule*& attention_rule,
                                 const EfficiencyRule*& gemm_rule) {
    AssumptionSet out = as;
    auto apply = [&](const std::vector<EfficiencyRule>& rules, const char* key, double Assumptions::*field) -> const EfficiencyRule* {
        const auto src = as.source.find(key);
        if (src != as.source.end() && src->second == "workload") return nullptr;
        const EfficiencyRule* r = matching_rule(rules, w, cat, d);
        if (!r) return nullptr;
        out.typical.*field = r->value;
        out.low.*field = r->low;
        out.high.*field = r->high;
        out.source[key] = r->source;
        return r;
    };
    decode_rule = apply(cat.decode_bandwidth_rules, "decode_bandwidth_efficiency", &Assumptions::decode_bandwidth_efficiency);
    // A rule fitted with its own fixed step time (llama.cpp's quantized kernels) sets that too. Share and step
    // were fitted together, so the slow case pairs the smaller share with the longer step (the low set) and
    // the fast case the larger share with the shorter step: the band is the spread of the fit's cases.
    const auto pinned = as.source.find("decode_step_overhead_s");
    if (decode_rule && decode_rule->step_overhead_s > 0 && !(pinned != as.source.end() && pinned->second == "workload")) {
        out.typical.decode_step_overhead_s = decode_rule->step_overhead_s;
        out.low.decode_step_overhead_s = decode_rule->step_overhead_high_s;
        out.high.decode_step_overhead_s = decode_rule->step_overhead_low_s;
        out.source["decode_step_overhead_s"] = decode_rule->source;
    } else if (!(pinned != as.source.end() && pinned->second == "workload")) {
        // The catalog-wide step is a cost measured apart from the share: the slow case (the low set, with the
        // smaller share) takes the longest step and the fast case the shortest, so the band spans both ranges.
        std::swap(out.low.decode_step_overhead_s, out.high.decode_step_overhead_s);
    }
    mfu_rule = apply(cat.training_mfu_rules, "training_mfu", &Assumptions::training_mfu);
    // FP8's cast bytes are a cost, not an efficiency: the slow case (the low set, with the smaller MFU) takes the
    // most bytes and the fast case the fewest, so the band spans both ends of the fit (assumptions.json).
    std::swap(out.low.training_fp8_cast_bytes_per_element, out.high.training_fp8_cast_bytes_per_element);
    attention_rule = apply(cat.training_attention_rules, "training_attention_efficiency", &Assumptions::training_attention_efficiency);
    gemm_rule = apply(cat.decode_compute_8bit_rules, "decode_compute_efficiency_8bit", &Assumptions::decode_compute_efficiency_8bit);
    const auto mfu_src = as.source.find("training_mfu");
    if (mfu_src != as.source.end() && mfu_src->second == "workload") end_to_end_mfu(out, attention_rule);
    return out;
}

// [SECTION] the user's calibrations (catalog.h, Calibration) --------------------------------------

// The figures each calibrated assumption drives: they become "calibrated (your measurement)".
const std::vector<std::string>& figures_driven_by(const std::string& assumption) {
    static const std::map<std::string, std::vector<std::string>> kDriven{
        {"decode_bandwidth_efficiency", {"decode_step_s", "decode_tokens_per_s_per_user", "throughput_tokens_per_s",
                                         "max_throughput_within_targets_tokens_per_s", "rollout_decode_tokens_per_s_per_user",
                                         "rollout_throughput_tokens_per_s", "rl_step_s", "rl_tokens_per_s", "train_time_s"}},
        {"prefill_compute_efficiency", {"ttft_s", "p50_ttft_s", "p95_ttft_s", "isolated_p95_ttft_s"}},
        {"training_mfu", {"step_time_s", "train_tokens_per_s", "train_time_s", "rl_step_s", "rl_tokens_per_s"}},
        {"finetune_mfu", {"step_time_s", "train_tokens_per_s", "train_time_s", "rl_step_s", "rl_tokens_per_s"}},
    };
    static const std::vector<std::string> kNone;
    auto it = kDriven.find(assumption);
    return it == kDriven.end() ? kNone : it->second;
}

// Pins each calibrated assumption of device `d` (all three cases: a measurement, not a range) unless the
// workload pinned it; returns the calibrations applied.
std::vector<const Calibration*> apply_calibrations(AssumptionSet& das, const Catalog& cat, const Device& d) {
    std::vector<const Calibration*> applied;
    for (const auto& k : cat.calibrations) {
        if (k.device != d.id) continue;
        double Assumptions::*field = assumption_member(k.assumption);
        const auto src = das.source.find(k.assumption);
        if (!field || (src != das.source.end() && src->second == "workload")) continue;
        das.typical.*field = das.low.*field = das.high.*field = k.value;
        das.source[k.assumption] = "calibration";
        // The measurement was solved with the share pinned, so without a device rule's own step time: the
        // catalog-wide step goes with it (efficiencies.json step_overhead_s).
        const auto step = cat.assumptions.find("decode_step_overhead_s");
        const auto step_src = das.source.find("decode_step_overhead_s");
        if (k.assumption == "decode_bandwidth_efficiency" && step != cat.assumptions.end() &&
            !(step_src != das.source.end() && step_src->second == "workload")) {
            das.typical.decode_step_overhead_s = step->second.value;
            das.low.decode_step_overhead_s = step->second.high; // the slow case takes the longest step (device_assumptions)
            das.high.decode_step_overhead_s = step->second.low;
            das.source["decode_step_overhead_s"] = step->second.source;
        }
        applied.push_back(&k);
    }
    return applied;
}

void label_user_calibrated(Candidate& c, const std::vector<const Calibration*>& applied) {
    for (const Calibration* k : applied) {
        const std::string tag = "calibrated (your measurement: " + k->measurement + ", " + k->read_on + ")";
        for (const auto& name : figures_driven_by(k->assumption)) {
            auto it = c.figures.find(name);
            if (it == c.figures.end()) continue;
            it->second.label = Label::calibrated;
            it->second.why = tag + "; " + it->second.why;
        }
        const bool time_like = k->figure.size() > 2 && k->figure.substr(k->figure.size() - 2) == "_s";
        const double ratio = k->modelled > 0 && k->measured > 0 ? (time_like ? k->modelled / k->measured : k->measured / k->modelled) : 0;
        c.notes.push_back("calibrated (your measurement): " + k->assumption + " = " + format_sig(k->value, 4) + " from " + k->measurement +
                          (k->model.empty() ? "" : " with " + k->model + (k->precision.empty() ? "" : " " + k->precision)) +
                          " (measured / modelled before: " + format_sig(ratio, 3) + "), " + k->read_on);
    }
}

// [SECTION] calibrated labels ------------------------------------------------------------------------
// A figure is `calibrated` when every efficiency it rests on was set from measurements of the suite's
// calibration split (assumptions.json or efficiencies.json "calibrated_by"; issue #9); its why names them.
// The efficiencies are those of the bound the candidate ran into: a compute-bound training step rests on its
// MFU alone, a bandwidth- or communication-bound one on more than that; an encoder batch on the side of the
// roofline that bound it; decode on the bandwidth share and the fixed step overhead, and on the GEMMs' share of
// the peak when they were compute-bound. A value the workload
// pinned is the user's, not calibrated.
void label_calibrated(Candidate& c, const Workload& w, const Catalog& cat, const AssumptionSet& das, const EfficiencyRule* decode_rule,
                      const EfficiencyRule* mfu_rule, const EfficiencyRule* attention_rule, const EfficiencyRule* gemm_rule) {
    std::vector<std::string> keys, figures;
    switch (w.stage) {
    case Stage::finetune:
    case Stage::pretrain:
        if (c.regime != Regime::compute) return;
        keys = {w.stage == Stage::pretrain ? "training_mfu" : "finetune_mfu"};
        if (!c.phases.empty() && c.phases.back().precision == "fp8") keys.push_back("training_fp8_cast_bytes_per_element"); // its FP8 casts
        if (das.typical.training_attention_efficiency > 0) keys.push_back("training_attention_efficiency");         // its attention
        figures = {"step_time_s", "train_tokens_per_s", "train_time_s"};
        break;
    case Stage::embed:
        if (c.phases.empty()) return;
        keys = {c.phases.back().roofline.compute_bound ? "encoder_compute_efficiency" : "decode_bandwidth_efficiency"};
        figures = {"items_per_s", "embed_time_s", "window_used_ratio"};
        break;
    case Stage::serve:
    case Stage::batch:
    case Stage::edge:
        keys = {"decode_bandwidth_efficiency", "decode_step_overhead_s"};
        // a step whose weight GEMMs were compute-bound (its time exceeds its memory time: decode_phase sums
        // two rooflines) also rests on their share of the peak
        if (!c.phases.empty() && c.phases.front().roofline.time_s > c.phases.front().roofline.memory_s * (1 + 1e-9))
            keys.push_back(c.phases.front().precision == "fp8" || c.phases.front().precision == "int8" ? "decode_compute_efficiency_8bit" : "decode_compute_efficiency");
        figures = {"decode_step_s", "decode_tokens_per_s_per_user"};
        break;
    case Stage::rl: return;
    }
    std::vector<std::string> named; // "key: id, id"
    for (const auto& key : keys) {
        const auto src = das.source.find(key);
        if (src != das.source.end() && (src->second == "workload" || src->second == "calibration")) return; // the user's value, labelled by label_user_calibrated
        const std::vector<std::string>* ids = nullptr;
        if (key == "decode_bandwidth_efficiency" && decode_rule) ids = &decode_rule->calibrated_by;
        else if (key == "decode_step_overhead_s" && decode_rule && decode_rule->step_overhead_s > 0) ids = &decode_rule->calibrated_by;
        else if (key == "training_mfu" && mfu_rule) ids = &mfu_rule->calibrated_by;
        else if (key == "training_attention_efficiency" && attention_rule) ids = &attention_rule->calibrated_by;
        else if (key == "decode_compute_efficiency_8bit" && gemm_rule) ids = &gemm_rule->calibrated_by;
        else if (auto it = cat.assumptions.find(key); it != cat.assumptions.end()) ids = &it->second.calibrated_by;
        if (!ids || ids->empty()) return;
        std::string list;
        for (const auto& id : *ids) list += (list.empty() ? "" : ", ") + id;
        const EfficiencyRule* rule = key == "decode_bandwidth_efficiency" || (key == "decode_step_overhead_s" && decode_rule && decode_rule->step_overhead_s > 0)
                                         ? decode_rule : key == "training_mfu" ? mfu_rule
                                         : key == "training_attention_efficiency" ? attention_rule
                                         : key == "decode_compute_efficiency_8bit" ? gemm_rule : nullptr;
        named.push_back(key + (rule ? " [" + rule->id + "]" : "") + " from " + list);
    }
    std::string note;
    for (const auto& n : named) note += (note.empty() ? "" : "; ") + n;
    for (const auto& f : figures) {
        auto it = c.figures.find(f);
        if (it == c.figures.end() || it->second.label != Label::modelled) continue;
        it->second.label = Label::calibrated;
        it->second.why += " [calibrated: " + note + "]";
    }
}

void missing(const Workload& w, Plan& p) {
    auto given = [&](const std::string& k) { return std::find(w.given.begin(), w.given.end(), k) != w.given.end(); };
    auto note = [&](const std::string& key, const std::string& text) {
        if (!given(key)) p.missing_assumptions.push_back(key + ": " + text);
    };
    note("precision", "not given; bf16 weights, KV cache and compute assumed");
    if (w.hardware.devices.empty()) p.missing_assumptions.push_back("hardware.devices: not given; every catalog device is a candidate");
    if (w.model.size_only)
        p.missing_assumptions.push_back("model architecture: only a size was given; KV cache and activations use " + w.model.shape_from +
                                        "'s shape (the closest by size of the Llama 3.x dense presets, 1B to 405B, whose KV cache "
                                        "per token and activations grow with size)");
    switch (w.stage) {
    case Stage::serve:
    case Stage::batch:
    case Stage::edge:
    case Stage::rl:
        note("serve.context_tokens", "not given; " + format_sig(w.serve.context_tokens, 6) + " tokens per sequence assumed");
        note("serve.concurrent_users", "not given; " + format_sig(w.serve.concurrent_users, 6) + " assumed");
        note("serve.prompt_tokens", "not given; half the context assumed");
        note("serve.output_tokens", "not given; a quarter of the context assumed");
        if (w.stage == Stage::serve) {
            note("serve.ttft_target_s", "no latency target: nothing to check time to first token against");
            if (!given("serve.requests_per_s") && !given("serve.traffic"))
                p.missing_assumptions.push_back("serve.requests_per_s: not given; latency under load (p50/p95) is not modelled");
        }
        if (w.stage != Stage::rl) break;
        [[fallthrough]];
    case Stage::finetune:
    case Stage::pretrain:
        note("train.seq_len", "not given; " + format_sig(w.train.seq_len, 6) + " tokens assumed");
        note("train.micro_batch", "not given; " + format_sig(w.train.micro_batch, 6) + " assumed");
        note("train.optimizer", "not given; AdamW in mixed precision assumed");
        note("train.checkpointing", "not given; no activation recomputation assumed");
        note("train.tokens", "not given; no total training time");
        break;
    case Stage::embed:
        note("embed.tokens_per_item", "not given; " + format_sig(w.embed.tokens_per_item, 6) + " assumed");
        note("embed.batch_size", "not given; " + format_sig(w.embed.batch_size, 6) + " assumed");
        note("embed.window_s", "no batch window to check against");
        break;
    }
}

} // namespace

namespace {

std::string outcome(const Plan& p) {
    if (!p.recommendation.found) return "no feasible option";
    const auto& o = p.recommendation.option;
    return o.name + " at " + format_figure(o.unit, o.cost.value) + " " + unit_label(o.unit);
}

// For inputs the user did not give, the recommendation at the low and high ends of their plausible range.
void add_sensitivity(Plan& p, const Workload& w, const Catalog& cat, const AssumptionSet& as) {
    auto given = [&](const std::string& k) { return std::find(w.given.begin(), w.given.end(), k) != w.given.end(); };
    struct Probe {
        std::string key;
        std::function<void(Workload&, bool)> set; // false: low end, true: high end
        std::function<std::string(const Workload&)> show;
    };
    std::vector<Probe> probes;
    const bool serving = w.stage == Stage::serve || w.stage == Stage::batch;
    if (serving) {
        // Context from 2k to 32k tokens (never below the prompt and output the user gave, nor above the model's maximum).
        probes.push_back({"serve.context_tokens", [](Workload& x, bool hi) {
                              const double floor_tokens = std::max(2048.0, x.serve.prompt_tokens + x.serve.output_tokens);
                              double top = std::max(floor_tokens, 32768.0);
                              if (x.model.model.arch.max_context > 0) top = std::min(top, std::max(floor_tokens, double(x.model.model.arch.max_context)));
                              x.serve.context_tokens = hi ? top : floor_tokens;
                          },
                          [](const Workload& x) { return format_sig(x.serve.context_tokens, 6) + " tokens"; }});
        probes.push_back({"serve.concurrent_users", [](Workload& x, bool hi) { x.serve.concurrent_users = hi ? x.serve.concurrent_users * 10 : 1; },
                          [](const Workload& x) { return format_sig(x.serve.concurrent_users, 6) + " users"; }});
    }
    if (w.stage == Stage::finetune || w.stage == Stage::pretrain) {
        probes.push_back({"train.seq_len", [](Workload& x, bool hi) { x.train.seq_len = hi ? 8192 : 512; },
                          [](const Workload& x) { return format_sig(x.train.seq_len, 6) + " tokens"; }});
        probes.push_back({"train.micro_batch", [](Workload& x, bool hi) { x.train.micro_batch = hi ? 8 : 1; },
                          [](const Workload& x) { return format_sig(x.train.micro_batch, 6) + " sequences"; }});
    }
    if (w.stage == Stage::embed)
        probes.push_back({"embed.tokens_per_item", [](Workload& x, bool hi) { x.embed.tokens_per_item = hi ? 2048 : 128; },
                          [](const Workload& x) { return format_sig(x.embed.tokens_per_item, 6) + " tokens"; }});
    for (const auto& probe : probes) {
        if (given(probe.key)) continue;
        std::string line = probe.key + ":";
        for (bool hi : {false, true}) {
            Workload v = w;
            probe.set(v, hi);
            const Plan q = plan(v, cat, as, false);
            line += std::string(hi ? "; " : " ") + "at " + probe.show(v) + ": " + outcome(q);
        }
        p.sensitivity.push_back(line);
    }
}

} // namespace

Plan plan(const Workload& w, const Catalog& cat, const AssumptionSet& as, bool sensitivity) {
    Plan p;
    p.name = w.name;
    p.stage = w.stage;
    p.model_id = w.model.model.id;
    p.model_name = w.model.model.name;
    p.params = w.model.params;
    p.active_params = w.model.active_params;
    p.precision = w.precision;
    missing(w, p);
    if (is_training_stage(w.stage)) { // the trainer whose storage rules the memory follows (named in each candidate)
        const TrainingRuntime& rt = training_runtime(w, cat);
        const bool given = std::find(w.given.begin(), w.given.end(), "train.runtime") != w.given.end();
        if (!given) p.missing_assumptions.push_back("train.runtime: not given; " + rt.id + " assumed (the default for " + std::string(name(w.train.method)) + ")");
    }
    if (w.model.size_only)
        p.notes.push_back("KV cache and activations use the shape of " + w.model.shape_from + " scaled to " + format_count(w.model.params) + " parameters");

    std::vector<const Device*> devices;
    if (w.hardware.devices.empty()) {
        for (const auto& d : cat.devices) devices.push_back(&d);
    } else {
        for (const auto& id : w.hardware.devices)
            if (const Device* d = cat.device_by_id(id)) devices.push_back(d);
    }
    std::vector<std::pair<double, Candidate>> ranked;
    for (const Device* d : devices) {
        const EfficiencyRule *rule = nullptr, *mfu_rule = nullptr, *attention_rule = nullptr, *gemm_rule = nullptr;
        AssumptionSet das = device_assumptions(as, cat, w, *d, rule, mfu_rule, attention_rule, gemm_rule);
        const auto calibrated = apply_calibrations(das, cat, *d);
        for (const Calibration* k : calibrated) {
            if (k->assumption == "decode_bandwidth_efficiency") rule = nullptr;
            if (k->assumption == "training_mfu") mfu_rule = nullptr;
            if (k->assumption == "training_attention_efficiency") attention_rule = nullptr;
            if (k->assumption == "training_mfu") end_to_end_mfu(das, attention_rule);
        }
        // Training: the count and layout are the best point of one search (choose_training); the candidate is
        // that point, its layouts the runners-up of the same search.
        const bool trains = w.stage == Stage::finetune || w.stage == Stage::pretrain;
        TrainChoice tc;
        if (trains) tc = choose_training(w, cat, *d, das.typical, true);
        const TrainPoint* point = trains && !tc.points.empty() ? &tc.points.front() : nullptr;
        const int n = point ? point->n : choose_count(w, cat, *d, das.typical);
        Eval e = evaluate(w, cat, *d, n, das.typical, true, 0, point);
        if (point) {
            LayoutSearch& ls = e.c.layouts;
            ls.devices = n;
            ls.searched = tc.searched;
            ls.global_batch = w.train.global_batch > 0 ? w.train.global_batch : w.train.micro_batch * point->result.layout.data_parallel;
            for (const TrainPoint& tp : tc.points) {
                ls.layouts.push_back(tp.result);
                ls.fitting += tp.result.fits ? 1 : 0;
            }
            ls.found = point->result.fits;
            ls.explanation = tc.why + ": " + describe(point->result.layout) + (tc.points.size() > 1 ? "; runners-up on the same devices listed after it" : "");
            e.c.count_why = tc.why;
        }
        e.c.memory.total_low_bytes = e.c.memory.total_high_bytes = e.c.memory.total_bytes;
        e.c.memory.reserved_low_bytes = e.c.memory.reserved_high_bytes = e.c.memory.total_bytes - e.c.memory.context_bytes - e.c.memory.managed_bytes;
        // The bands of the layout chosen; an RL job's time also needs its pools sized at each end.
        auto band = [&](const Assumptions& ba) {
            Eval b = evaluate(w, cat, *d, n, ba, false, e.c.layout.data_parallel, point);
            if (w.stage == Stage::rl && b.c.fits) rl_job_figures(w, rl_pools(w, cat, *d, n, ba, b.c), b);
            b.c.figures.erase("rl_devices"); // the fleet priced is the typical split's, not a band
            return b.c;
        };
        widen(e.c, band(das.low));
        widen(e.c, band(das.high));
        label_calibrated(e.c, w, cat, das, rule, mfu_rule, attention_rule, gemm_rule);
        if (rule && w.stage != Stage::finetune && w.stage != Stage::pretrain)
            e.c.notes.push_back("decode bandwidth efficiency " + format_sig(rule->value, 3) + " (" + format_sig(rule->low, 3) + ".." +
                                format_sig(rule->high, 3) + ") for this device family [" + rule->id + ", " + std::to_string(rule->measurements) +
                                " measurements]: " + rule->meaning);
        if (gemm_rule && w.stage != Stage::finetune && w.stage != Stage::pretrain && e.c.phases.size() > 0 &&
            (e.c.phases.front().precision == "fp8" || e.c.phases.front().precision == "int8"))
            e.c.notes.push_back("decode GEMM share of the 8-bit peak " + format_sig(gemm_rule->value, 3) + " (" + format_sig(gemm_rule->low, 3) + ".." +
                                format_sig(gemm_rule->high, 3) + ") for this device family [" + gemm_rule->id + "]: " + gemm_rule->meaning);
        if (mfu_rule && w.stage == Stage::pretrain)
            e.c.notes.push_back("training MFU " + format_sig(mfu_rule->value, 3) + " (" + format_sig(mfu_rule->low, 3) + ".." +
                                format_sig(mfu_rule->high, 3) + ") for this device family [" + mfu_rule->id + "]: " + mfu_rule->meaning);
        label_user_calibrated(e.c, calibrated);
        if (!e.c.fits) {
            const double over = e.c.memory.total_bytes / e.c.memory.capacity_bytes;
            e.c.notes.push_back("does not fit: needs " + format_sig(over, 3) + "x the usable memory of " + std::to_string(n) +
                                " device(s)" + (w.hardware.count > 0 ? "" : ", the most tried"));
        }
        ranked.push_back({e.headline, std::move(e.c)});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
        if (x.second.fits != y.second.fits) return x.second.fits;
        return x.first > y.first; // the stage's headline figure: faster first
    });
    for (auto& r : ranked) p.candidates.push_back(std::move(r.second));
    decide(p, w, cat, as);
    add_flips(p, w, cat, as, sensitivity);
    if (sensitivity) add_sensitivity(p, w, cat, as);
    p.run = run_it(p, w, cat);
    return p;
}

Plan plan_from_json(const std::string& workload_json, const Catalog& catalog, bool sensitivity) {
    auto parsed = parse_workload(workload_json, catalog);
    Plan p;
    if (!parsed.issues.empty()) {
        p.issues = std::move(parsed.issues);
        return p;
    }
    Issues issues;
    const AssumptionSet as = assumptions_for(catalog, parsed.workload.assumptions, issues);
    if (!issues.empty()) {
        p.issues = std::move(issues);
        return p;
    }
    return plan(parsed.workload, catalog, as, sensitivity);
}

std::string_view name(Label l) {
    switch (l) {
    case Label::arithmetic: return "arithmetic";
    case Label::modelled: return "modelled";
    case Label::calibrated: return "calibrated";
    }
    return "";
}

std::string_view name(Regime r) {
    switch (r) {
    case Regime::compute: return "compute-bound";
    case Regime::bandwidth: return "bandwidth-bound";
    case Regime::capacity: return "capacity-bound";
    }
    return "";
}

} // namespace hwplan
