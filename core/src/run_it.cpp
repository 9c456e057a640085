// run_it.cpp: the commands and configs that deploy and measure a plan's chosen option, and what the plan
// predicts the benchmark will print. Numbers come from the plan's candidate (its layout, figures, bands and
// memory); this file only writes them in each tool's syntax, with flags recorded in catalog/tools.json.
#include "hwplan/run_it.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "hwplan/assumptions.h"
#include "hwplan/catalog.h"
#include "hwplan/format.h"
#include "hwplan/plan.h"
#include "hwplan/workload.h"
#include "plan_eval.h"
#include "plan_internal.h"

namespace hwplan {

namespace {

// [SECTION] Writing commands --------------------------------------------------------------------------------

// A number as a command line wants it: whole numbers without a decimal point.
std::string num(double v) {
    if (std::isfinite(v) && std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    return format_sig(v, 3);
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// A command line built flag by flag, one flag a line (shell continuation), so that it reads like the tools'
// own examples and copies as one command.
struct CommandLine {
    std::string head;                   // "vllm serve \"$MODEL\""
    std::vector<std::string> parts;     // "--flag value"
    void add(const std::string& flag, const std::string& value = "") { parts.push_back(value.empty() ? flag : flag + " " + value); }
    std::string text() const {
        std::string s = head;
        for (const auto& p : parts) s += " \\\n  " + p;
        return s;
    }
};

RunCommand command(const ToolInterface& t, const std::string& what, std::string text, std::string file = "") {
    return RunCommand{t.id, t.release, what, std::move(text), std::move(file)};
}

// The catalog's entries of the tools a builder writes, in the order of `ids`; empty, with r.reason naming them, when the
// catalog records any of them under no entry.
std::vector<const ToolInterface*> recorded_tools(RunIt& r, const Catalog& cat, std::initializer_list<std::string> ids) {
    std::vector<const ToolInterface*> out;
    std::string names;
    for (const auto& id : ids) {
        out.push_back(cat.find_tool(id));
        names += (names.empty() ? "" : " or ") + id;
    }
    if (std::find(out.begin(), out.end(), nullptr) == out.end()) return out;
    r.reason = "catalog/tools.json has no " + names + " entry";
    return {};
}

// One predicted line: the plan figure `key` of the candidate, scaled to the benchmark's unit.
void predict(RunIt& r, const Candidate& c, const std::string& key, const std::string& metric, double scale, const std::string& unit,
             const std::string& note = "") {
    const auto it = c.figures.find(key);
    if (it == c.figures.end()) return;
    const Figure& f = it->second;
    PredictedLine p{metric, key, f.value * scale, f.low * scale, f.high * scale, unit, f.low != f.high, note};
    if (p.low > p.high) std::swap(p.low, p.high); // a time turned into a rate turns its band around
    r.predicted.push_back(std::move(p));
}

// [SECTION] Which tool runs the option -------------------------------------------------------------------

enum class Runner { vllm, sglang, trtllm, mlx, llama_cpp, none };

// Serving: SGLang or TensorRT-LLM when the workload names it and the device runs it, MLX when the workload names it on a
// device that runs it (Apple silicon), vLLM on a CUDA or ROCm device that runs it, llama.cpp on local hardware (Apple,
// CPUs, edge) or when the workload names it; else no recorded tool.
// A device the GPU serving engines run on: a GPU, rack system or SoC with a CUDA or ROCm stack.
bool engine_device(const Device& d) {
    const bool gpu_stack = has(d.software, "cuda") || has(d.software, "rocm");
    return gpu_stack && (d.kind == DeviceKind::gpu || d.kind == DeviceKind::rack_system || d.kind == DeviceKind::soc);
}

Runner serving_runner(const Workload& w, const Device& d) {
    const std::string fw = framework_runtime(w.framework);
    const bool engine = engine_device(d);
    const bool vllm = has(d.software, "vllm") && engine;
    const bool llama = has(d.software, "llama.cpp");
    if (fw == "sglang" && has(d.software, "sglang") && engine) return Runner::sglang;
    if (fw == "tensorrt-llm" && has(d.software, "tensorrt-llm") && engine) return Runner::trtllm;
    if (fw == "mlx" && has(d.software, "mlx")) return Runner::mlx;
    if (fw == "llama.cpp" || fw == "mlx" || w.stage == Stage::edge || d.kind == DeviceKind::cpu || d.vendor == "Apple")
        return llama ? Runner::llama_cpp : vllm ? Runner::vllm : Runner::none;
    if (vllm) return Runner::vllm;
    return llama ? Runner::llama_cpp : Runner::none;
}

// llama.cpp's cache type for the plan's KV precision (common/arg.cpp's -ctk values); "" keeps its default (f16).
std::string llama_cache_type(const std::string& kv, std::string& note) {
    if (kv == "bf16") return "bf16";
    if (kv == "fp16") return "f16";
    if (kv == "q8_0" || kv == "q4_0") return kv;
    if (kv == "fp8" || kv == "int8") {
        note = "llama.cpp has no FP8 KV cache; q8_0 (8.5 bits a value) is its nearest, so the KV cache is about 6 % larger than planned";
        return "q8_0";
    }
    return "";
}

// [SECTION] Devices per node ----------------------------------------------------------------------------

constexpr int kNodeDevices = 8;    // devices per node assumed when the catalog records no node size (an 8-GPU server); the note says so

// The devices one node holds (one host: where a launcher starts its processes, --nproc_per_node, NGPU, --num_gpus), from
// the catalog device: the smallest whole unit of 8 or fewer that its prices record (an 8-GPU server, a p5.48xlarge, a
// 4-GPU GB200 compute tray rented as one instance, a Mac), else its fast domain when that is one board of 2 to 8 (an HGX
// or OAM baseboard, interconnect.domain_size), else a system of 2 to 8 accelerators. None of these (a PCIe card): the
// launchers assume kNodeDevices and a note says so.
struct NodeSize {
    int devices = kNodeDevices;
    bool recorded = false;              // false: assumed
    std::string from;                   // where the count comes from, in words
};

NodeSize node_size(const Device& d) {
    const Price* unit = nullptr;
    for (const auto& p : d.prices)
        if (p.devices_per_unit > 0 && p.devices_per_unit <= 8 && (!unit || p.devices_per_unit < unit->devices_per_unit)) unit = &p;
    if (unit)
        return {unit->devices_per_unit, true, "the catalog's smallest whole unit of " + d.name + (unit->unit.empty() ? "" : " (" + unit->unit + ")")};
    const bool board = (d.kind == DeviceKind::gpu || d.kind == DeviceKind::accelerator) && d.domain_size > 1 && d.domain_size <= 8;
    if (board) return {d.domain_size, true, "the " + std::to_string(d.domain_size) + "-device board of " + d.name + " (its interconnect domain)"};
    if (d.system_accelerators > 1 && d.system_accelerators <= 8)
        return {d.system_accelerators, true, "the " + std::to_string(d.system_accelerators) + "-accelerator system of " + d.name};
    return {};
}

// The note for a job spanning nodes: where the per-node count comes from, or that it is assumed.
std::string node_note(const NodeSize& n, const std::string& change) {
    return n.recorded ? std::to_string(n.devices) + " devices per node, from " + n.from + "; change " + change + " if your nodes hold another count."
                      : std::to_string(n.devices) + " devices per node assumed (the catalog records no server or board size for this device); change " +
                            change + " to your servers'.";
}

// [SECTION] Serving engines' layout ----------------------------------------------------------------------

// One serving replica's devices: the candidate's count over its replicas (users split over replicas, plan.cpp choose_count).
int replica_devices(const Candidate& c) {
    const int dp = std::max(1, c.layout.data_parallel);
    return c.count % dp == 0 ? c.count / dp : c.count;
}

// What vLLM, SGLang and TensorRT-LLM read from the plan before writing their own flags: the serve and benchmark tools,
// the workload's sequence shape, the batch one replica runs, and the chosen layout as one engine instance sees it.
// Under expert parallelism the plan spreads the experts over the replica's expert_parallel devices and runs attention
// tensor parallel over groups of tensor_parallel (plan_serving.cpp, eval_serve_layout): one instance of expert_parallel
// devices whose attention is data parallel over expert_parallel / tensor_parallel groups.
struct EngineLayout {
    const ToolInterface* serve = nullptr;
    const ToolInterface* bench = nullptr;
    ServeShape shape{};
    double batch = 0;                   // sequences a replica runs: the plan's batch_sequences, else the workload's batch
    bool wide = false;                  // expert parallel (expert_parallel > 1)
    int instance = 1;                   // devices one engine instance spans: expert_parallel when wide, else tensor_parallel
    int attention_groups = 1;           // attention's data-parallel groups when wide (1 otherwise)
};

// The engine layout of candidate `c` for the tools `serve_id` and `bench_id`; false (r.reason set) when the catalog
// records either tool under no entry.
bool engine_layout(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const std::string& serve_id, const std::string& bench_id,
                   EngineLayout& e) {
    const auto tools = recorded_tools(r, cat, {serve_id, bench_id});
    if (tools.empty()) return false;
    e.serve = tools[0];
    e.bench = tools[1];
    e.shape = serve_shape(w);
    const auto b = c.figures.find("batch_sequences");
    e.batch = b != c.figures.end() ? b->second.value : e.shape.batch;
    const Layout& l = c.layout;
    e.wide = l.expert_parallel > 1;
    e.instance = e.wide ? l.expert_parallel : l.tensor_parallel;
    e.attention_groups = e.wide ? std::max(1, l.expert_parallel / std::max(1, l.tensor_parallel)) : 1;
    return true;
}

// What a replica's serve command is for, in words: one replica of several, or the whole model on its devices.
std::string serve_what(const Candidate& c, int replicas) {
    return replicas > 1 ? "serve one replica (run it on each of the " + std::to_string(replicas) + " replicas' " + std::to_string(replica_devices(c)) +
                              " devices)"
                        : "serve the model on " + std::to_string(replica_devices(c)) + " device" + (replica_devices(c) > 1 ? "s" : "");
}

// [SECTION] Serving: vLLM ----------------------------------------------------------------------------------

// vLLM's --gpu-memory-utilization: the plan's usable memory over the device's, to a hundredth; "" when either is unknown.
std::string vllm_memory_utilization(const Candidate& c, const Device& d) {
    const double device_bytes = (d.runtime_total_bytes > 0 ? d.runtime_total_bytes : d.memory_bytes) * d.usable_memory_ratio;
    if (!(device_bytes > 0) || !(c.memory.capacity_bytes > 0)) return "";
    return format_sig(std::round(c.memory.capacity_bytes / device_bytes * 100) / 100, 2);
}

void serve_vllm(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const Device& d, int replicas) {
    EngineLayout e;
    if (!engine_layout(r, w, cat, c, "vllm-serve", "vllm-bench-serve", e)) return;
    const ServeShape& sh = e.shape;
    const double batch = e.batch;
    CommandLine s{"vllm serve \"$MODEL\""};
    s.add("--tensor-parallel-size", num(c.layout.tensor_parallel));
    if (c.layout.pipeline_parallel > 1) s.add("--pipeline-parallel-size", num(c.layout.pipeline_parallel));
    if (e.wide) {
        // vLLM spreads the experts over tensor x data parallel devices (--enable-expert-parallel), so the plan's attention
        // groups are its data-parallel ranks.
        if (e.attention_groups > 1) s.add("--data-parallel-size", num(e.attention_groups));
        s.add("--enable-expert-parallel");
    }
    s.add("--max-model-len", num(sh.context));
    s.add("--max-num-seqs", num(batch));
    if (w.precision.kv_cache == "fp8") s.add("--kv-cache-dtype", "fp8");
    else if (w.precision.weights == "bf16") s.add("--dtype", "bfloat16");
    else if (w.precision.weights == "fp16") s.add("--dtype", "float16");
    // FP8 weights: vLLM quantizes a 16-bit checkpoint as it loads it (an FP8 checkpoint names fp8 in its config, which
    // the flag agrees with); int8 and int4 need a checkpoint quantized by a named method, which names itself.
    if (w.precision.weights == "fp8") s.add("--quantization", "fp8");
    if (const std::string u = vllm_memory_utilization(c, d); !u.empty()) s.add("--gpu-memory-utilization", u);
    r.deploy.push_back(command(*e.serve, serve_what(c, replicas), s.text()));
    const double prompts = std::max(100.0, 10 * batch);
    CommandLine m{"vllm bench serve"};
    m.add("--model", "\"$MODEL\"");
    m.add("--dataset-name", "random");
    m.add("--random-input-len", num(sh.prompt));
    m.add("--random-output-len", num(sh.output));
    m.add("--max-concurrency", num(batch));
    m.add("--num-prompts", num(prompts));
    m.add("--ignore-eos");
    m.add("--percentile-metrics", "ttft,tpot");
    m.add("--metric-percentiles", "50,99");
    r.measure.push_back(command(*e.bench, "benchmark one replica at the planned batch (" + num(batch) + " requests in flight)", m.text()));
    r.setup = {int(std::lround(sh.prompt)), int(std::lround(sh.output)), int(std::lround(batch)), int(std::lround(prompts))};
    predict(r, c, "throughput_tokens_per_s", "Output token throughput (tok/s)", 1, "tok/s",
            "decode tokens per second of one replica at the planned batch; the benchmark's figure also spends time on prefills");
    predict(r, c, "decode_step_s", "Mean TPOT (ms)", 1e3, "ms");
    if (c.figures.count("p50_ttft_s")) predict(r, c, "p50_ttft_s", "Median TTFT (ms)", 1e3, "ms");
    else
        predict(r, c, "ttft_s", "Median TTFT (ms)", 1e3, "ms",
                "one prefill with no queue; the benchmark opens with " + num(batch) + " prompts at once, so compare the median, not the mean");
    const bool quantized_checkpoint = w.precision.weights != "bf16" && w.precision.weights != "fp16" && w.precision.weights != "fp8";
    r.notes.push_back("Set MODEL to the Hugging Face id or local path of " + w.model.model.name +
                      (w.precision.weights == "fp8" ? ": a 16-bit checkpoint or an FP8 one (--quantization fp8 quantizes the first as it loads)."
                       : quantized_checkpoint      ? " quantized to " + w.precision.weights +
                                                    " by a method vLLM reads (AWQ, GPTQ, ...): the checkpoint's config names its quantization."
                                                   : " in " + w.precision.weights + "."));
    if (const NodeSize n = node_size(d); replica_devices(c) > n.devices)
        r.notes.push_back("One replica spans " + std::to_string(replica_devices(c)) + " devices, more than one node's " + std::to_string(n.devices) +
                          ": start a Ray cluster over its nodes (vLLM's multi-node serving guide) and run the command on its head node. " +
                          node_note(n, "the node count"));
}

// [SECTION] Serving: SGLang ---------------------------------------------------------------------------------


// SGLang's --quantization for the plan's weight format, where the format names one method (server_args.py's
// QUANTIZATION_CHOICES); "" where the checkpoint must name it (int8 and int4 are AWQ, GPTQ or W8A8 checkpoints).
std::string sglang_quantization(const Catalog& cat, const std::string& weights) {
    if (weights == "fp8") return "fp8";
    if (weights == "mxfp4") return "mxfp4";
    if (weights == "nvfp4") return "modelopt_fp4";
    if (weights == "nf4") return "bitsandbytes";
    const WeightFormat* f = cat.find_format(weights);
    if (f && f->kind == "gguf") return "gguf";
    return "";
}

// SGLang's --kv-cache-dtype for the plan's KV precision; "" keeps auto (the model's dtype). FP4 is E2M1 with a scale per
// 16 elements (docs/advanced_features/quantized_kv_cache.md at 70310f0: "--kv-cache-dtype fp4_e2m1", experimental).
std::string sglang_kv_dtype(const std::string& kv) {
    if (kv == "fp8") return "fp8_e4m3";
    if (kv == "fp4") return "fp4_e2m1";
    return "";
}

void serve_sglang(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const Device& d, int replicas) {
    EngineLayout e;
    if (!engine_layout(r, w, cat, c, "sglang-launch-server", "sglang-bench-serving", e)) return;
    const ServeShape& sh = e.shape;
    const double batch = e.batch;
    const Layout& l = c.layout;
    // SGLang says the engine layout as one instance of --tp-size devices with --ep-size experts' ranks, and attention data
    // parallel over tp / attention-tp groups (server_args.py: enable_dp_attention, "data parallelism for attention and
    // tensor parallelism for FFN").
    const bool wide = e.wide;
    const int instance = e.instance, attention_groups = e.attention_groups;
    CommandLine s{"python -m sglang.launch_server"};
    s.add("--model-path", "\"$MODEL\"");
    s.add("--tp-size", num(instance));
    if (l.pipeline_parallel > 1) s.add("--pp-size", num(l.pipeline_parallel));
    if (wide) {
        s.add("--ep-size", num(l.expert_parallel));
        if (attention_groups > 1) {
            s.add("--dp-size", num(attention_groups));
            s.add("--enable-dp-attention");
        }
    }
    s.add("--context-length", num(sh.context));
    s.add("--max-running-requests", num(batch));
    // --mem-fraction-static holds the weights and the KV cache pool, which SGLang sizes to fill the rest of it: the
    // plan's weights and KV cache over the memory the driver reports, rounded up to a hundredth, at most the plan's
    // usable share (what vLLM's --gpu-memory-utilization gets).
    const double device_bytes = d.runtime_total_bytes > 0 ? d.runtime_total_bytes : d.memory_bytes;
    if (device_bytes > 0 && c.memory.weights_bytes > 0) {
        const double usable = c.memory.capacity_bytes > 0 ? std::floor(c.memory.capacity_bytes / device_bytes * 100) / 100 : 1;
        const double fraction = std::min(usable, std::ceil((c.memory.weights_bytes + c.memory.kv_cache_bytes) / device_bytes * 100) / 100);
        s.add("--mem-fraction-static", format_sig(fraction, 2));
    }
    const std::string kv = sglang_kv_dtype(w.precision.kv_cache);
    if (!kv.empty()) s.add("--kv-cache-dtype", kv);
    const std::string quant = sglang_quantization(cat, w.precision.weights);
    if (!quant.empty()) s.add("--quantization", quant);
    else if (w.precision.weights == "bf16") s.add("--dtype", "bfloat16");
    else if (w.precision.weights == "fp16") s.add("--dtype", "float16");
    s.add("--host", "127.0.0.1");
    s.add("--port", "30000");
    r.deploy.push_back(command(*e.serve, serve_what(c, replicas), s.text()));
    const double prompts = std::max(100.0, 10 * batch);
    CommandLine m{"python -m sglang.bench_serving"};
    m.add("--backend", "sglang");
    m.add("--host", "127.0.0.1");
    m.add("--port", "30000");
    m.add("--model", "\"$MODEL\"");
    m.add("--dataset-name", "random");
    m.add("--random-input-len", num(sh.prompt));
    m.add("--random-output-len", num(sh.output));
    m.add("--random-range-ratio", "1");
    m.add("--max-concurrency", num(batch));
    m.add("--num-prompts", num(prompts));
    r.measure.push_back(command(*e.bench, "benchmark one replica at the planned batch (" + num(batch) + " requests in flight)", m.text()));
    r.setup = {int(std::lround(sh.prompt)), int(std::lround(sh.output)), int(std::lround(batch)), int(std::lround(prompts))};
    predict(r, c, "throughput_tokens_per_s", "Output token throughput (tok/s)", 1, "tok/s",
            "decode tokens per second of one replica at the planned batch; the benchmark's figure also spends time on prefills");
    predict(r, c, "decode_step_s", "Mean TPOT (ms)", 1e3, "ms");
    // bench_serving at the recorded commit prints ITL, not TPOT (later ones print both). With --random-range-ratio 1
    // every request makes the same number of tokens, so the mean over all gaps (ITL) is the mean over requests (TPOT).
    predict(r, c, "decode_step_s", "Mean ITL (ms)", 1e3, "ms", "mean inter-token latency: with every output of the same length, the mean TPOT");
    if (c.figures.count("p50_ttft_s")) predict(r, c, "p50_ttft_s", "Median TTFT (ms)", 1e3, "ms");
    else
        predict(r, c, "ttft_s", "Median TTFT (ms)", 1e3, "ms",
                "one prefill with no queue; the benchmark opens with " + num(batch) + " prompts at once, so compare the median, not the mean");
    r.notes.push_back("Set MODEL to the Hugging Face id or local path of " + w.model.model.name + " in " + w.precision.weights +
                      (quant.empty() ? " (a quantized checkpoint names its quantization in its config; SGLang reads it from there)." : "."));
    if (!w.precision.kv_cache.empty() && kv.empty() && w.precision.kv_cache != "bf16" && w.precision.kv_cache != "fp16")
        r.notes.push_back("SGLang records no " + w.precision.kv_cache + " KV cache type (server_args.py's --kv-cache-dtype choices), so the cache keeps the "
                          "model's dtype and takes more memory than planned.");
    if (const NodeSize n = node_size(d); replica_devices(c) > n.devices)
        r.notes.push_back("One replica spans " + std::to_string(replica_devices(c)) + " devices, more than one node's " + std::to_string(n.devices) +
                          ": start the same command on each of its nodes with SGLang's --nnodes, --node-rank and --dist-init-addr (not written here). " +
                          node_note(n, "the node count"));
}

// [SECTION] Serving: TensorRT-LLM ---------------------------------------------------------------------------

// trtllm-serve's --kv_cache_free_gpu_memory_fraction is the share of the memory left free once the weights and the
// runtime's buffers are loaded that the KV cache takes (serve.py: "Free GPU memory fraction reserved for KV Cache, after
// allocating model weights and buffers"): the plan's KV cache over the device's memory less the plan's other terms,
// rounded up to a hundredth, at most the share of it the plan's usable memory leaves.
double trtllm_kv_fraction(const Candidate& c, const Device& d) {
    const double device_bytes = d.runtime_total_bytes > 0 ? d.runtime_total_bytes : d.memory_bytes;
    const double others = c.memory.total_bytes - c.memory.kv_cache_bytes;
    const double free_bytes = device_bytes - others;
    if (!(free_bytes > 0) || !(c.memory.kv_cache_bytes > 0)) return 0;
    const double usable = c.memory.capacity_bytes > others ? std::floor((c.memory.capacity_bytes - others) / free_bytes * 100) / 100 : 1;
    return std::max(0.01, std::min(usable, std::ceil(c.memory.kv_cache_bytes / free_bytes * 100) / 100));
}

void serve_trtllm(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const Device& d, int replicas) {
    EngineLayout e;
    if (!engine_layout(r, w, cat, c, "trtllm-serve", "trtllm-benchmark-serving", e)) return;
    const ServeShape& sh = e.shape;
    const double batch = e.batch;
    const Layout& l = c.layout;
    // trtllm-serve says the engine layout as --tp_size devices with --ep_size experts' ranks; attention over groups is its
    // enable_attention_dp, where each rank runs attention on its own requests (attention tensor parallel 1).
    const bool wide = e.wide;
    const int instance = e.instance, attention_groups = e.attention_groups;
    // The LLM API options trtllm-serve reads with --config (the run-benchmark guide's extra-llm-api-config.yml): the KV
    // cache's precision (auto: the checkpoint's) and attention data parallelism.
    std::string yaml = "# TensorRT-LLM " + e.serve->release + ": LLM API options for trtllm-serve --config\n";
    yaml += "kv_cache_config:\n  dtype: " + std::string(w.precision.kv_cache == "fp8" ? "fp8" : "auto") + "\n";
    if (attention_groups > 1) yaml += "enable_attention_dp: true\n";
    const std::string file = "trtllm_config.yml";
    CommandLine s{"trtllm-serve \"$MODEL\""};
    s.add("--backend", "pytorch");
    s.add("--tp_size", num(instance));
    if (l.pipeline_parallel > 1) s.add("--pp_size", num(l.pipeline_parallel));
    if (wide) s.add("--ep_size", num(l.expert_parallel));
    s.add("--max_batch_size", num(batch));
    // An iteration's token budget: the plan's engine step (plan_serving.cpp prefills prompts in steps of
    // prefill_chunk_tokens); a prompt longer than it is prefilled in chunks, which trtllm-serve turns on with a flag.
    Issues unused;
    const double budget = assumptions_for(cat, w.assumptions, unused).typical.prefill_chunk_tokens;
    s.add("--max_num_tokens", num(budget));
    if (sh.prompt > budget) s.add("--enable_chunked_prefill");
    s.add("--max_seq_len", num(sh.context));
    if (const double f = trtllm_kv_fraction(c, d); f > 0) s.add("--kv_cache_free_gpu_memory_fraction", format_sig(f, 2));
    s.add("--host", "127.0.0.1");
    s.add("--port", "8000");
    s.add("--config", file);
    r.deploy.push_back(command(*e.serve, "LLM API options: the KV cache precision" + std::string(attention_groups > 1 ? " and attention data parallelism" : ""),
                               yaml, file));
    r.deploy.push_back(command(*e.serve, serve_what(c, replicas), s.text()));
    const double prompts = std::max(100.0, 10 * batch);
    CommandLine m{"python -m tensorrt_llm.serve.scripts.benchmark_serving"};
    m.add("--backend", "openai");
    m.add("--host", "127.0.0.1");
    m.add("--port", "8000");
    m.add("--model", "\"$MODEL\"");
    m.add("--dataset-name", "random");
    m.add("--random-ids");
    m.add("--random-input-len", num(sh.prompt));
    m.add("--random-output-len", num(sh.output));
    m.add("--tokenize-on-client");
    m.add("--max-concurrency", num(batch));
    m.add("--num-prompts", num(prompts));
    m.add("--ignore-eos");
    m.add("--percentile-metrics", "ttft,tpot,itl");
    m.add("--metric-percentiles", "50,99");
    r.measure.push_back(command(*e.bench, "benchmark one replica at the planned batch (" + num(batch) + " requests in flight)", m.text()));
    r.setup = {int(std::lround(sh.prompt)), int(std::lround(sh.output)), int(std::lround(batch)), int(std::lround(prompts))};
    predict(r, c, "throughput_tokens_per_s", "Output token throughput (tok/s)", 1, "tok/s",
            "decode tokens per second of one replica at the planned batch; the benchmark's figure also spends time on prefills");
    predict(r, c, "decode_step_s", "Mean TPOT (ms)", 1e3, "ms");
    if (c.figures.count("p50_ttft_s")) predict(r, c, "p50_ttft_s", "Median TTFT (ms)", 1e3, "ms");
    else
        predict(r, c, "ttft_s", "Median TTFT (ms)", 1e3, "ms",
                "one prefill with no queue; the benchmark opens with " + num(batch) + " prompts at once, so compare the median, not the mean");
    // trtllm-serve has no quantization flag: the checkpoint's own quantization config (TensorRT Model Optimizer's FP8 or
    // NVFP4 checkpoints, such as the run-benchmark guide's nvidia/Llama-3.3-70B-Instruct-FP8) says how its weights are stored.
    const bool sixteen = w.precision.weights == "bf16" || w.precision.weights == "fp16";
    r.notes.push_back("Set MODEL to the Hugging Face id or local path of " + w.model.model.name +
                      (sixteen ? " in " + w.precision.weights + "."
                               : " quantized to " + w.precision.weights + " by TensorRT Model Optimizer (an FP8 or NVFP4 checkpoint such as nvidia's): "
                                 "trtllm-serve has no quantization flag and reads it from the checkpoint."));
    if (!w.precision.kv_cache.empty() && w.precision.kv_cache != "fp8" && w.precision.kv_cache != "bf16" && w.precision.kv_cache != "fp16")
        r.notes.push_back("trtllm-serve's kv_cache_config.dtype is auto or fp8 (the run-benchmark guide); a " + w.precision.kv_cache +
                          " KV cache is not one, so the cache keeps the checkpoint's dtype and takes more memory than planned.");
    if (wide && l.tensor_parallel > 1 && attention_groups > 1)
        r.notes.push_back("The plan runs attention tensor parallel over groups of " + std::to_string(l.tensor_parallel) +
                          "; TensorRT-LLM's attention data parallelism runs it on each device alone, the nearest it writes.");
    if (const NodeSize n = node_size(d); replica_devices(c) > n.devices)
        r.notes.push_back("One replica spans " + std::to_string(replica_devices(c)) + " devices, more than one node's " + std::to_string(n.devices) +
                          ": launch trtllm-serve on its nodes with trtllm-llmapi-launch under your scheduler (the run-benchmark guide). " +
                          node_note(n, "the node count"));
}

// [SECTION] Serving: MLX -----------------------------------------------------------------------------------

void serve_mlx(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c) {
    const auto tools = recorded_tools(r, cat, {"mlx-lm-server", "mlx-lm-benchmark"});
    if (tools.empty()) return;
    const ToolInterface* server = tools[0];
    const ToolInterface* bench = tools[1];
    const ServeShape sh = serve_shape(w);
    const auto b = c.figures.find("batch_sequences");
    const double batch = std::max(1.0, b != c.figures.end() ? b->second.value : sh.batch);
    CommandLine s{"mlx_lm.server"};
    s.add("--model", "\"$MODEL\"");
    s.add("--decode-concurrency", num(batch));
    s.add("--max-tokens", num(sh.output));
    s.add("--host", "127.0.0.1");
    s.add("--port", "8080");
    r.deploy.push_back(command(*server, "serve the model (" + num(batch) + " request" + (batch > 1 ? "s" : "") + " decoded at once)", s.text()));
    CommandLine m{"mlx_lm.benchmark"};
    m.add("--model", "\"$MODEL\"");
    m.add("--prompt-tokens", num(sh.prompt));
    m.add("--generation-tokens", num(sh.output));
    m.add("--batch-size", num(batch));
    r.measure.push_back(command(*bench, "prompt and generation speed at the planned batch (" + num(batch) + " sequence" + (batch > 1 ? "s" : "") + ")",
                                m.text()));
    r.setup = {int(std::lround(sh.prompt)), int(std::lround(sh.output)), int(std::lround(batch)), 0};
    // benchmark.py prints prompt_tps (prompt tokens / prompt time), generation_tps (generated tokens / generation time,
    // over the whole batch with --batch-size above 1: batch_generate's BatchStats) and peak_memory (mx.get_peak_memory()
    // / 1e9, GB) from generate.py at v0.31.3.
    if (const auto t = c.figures.find("ttft_s"); t != c.figures.end() && t->second.value > 0) {
        const Figure& f = t->second;
        r.predicted.push_back({"prompt_tps", "ttft_s", sh.prompt / f.value, f.high > 0 ? sh.prompt / f.high : 0, f.low > 0 ? sh.prompt / f.low : 0,
                               "tok/s", f.low != f.high, "prompt tokens / the plan's time to first token"});
    }
    if (batch > 1) predict(r, c, "throughput_tokens_per_s", "generation_tps", 1, "tok/s", "the batch's generated tokens a second at the planned batch");
    else
        predict(r, c, "decode_tokens_per_s_per_user", "generation_tps", 1, "tok/s",
                "benchmark.py decodes from the prompt's context, the plan at the workload's, so expect it a little faster");
    const MemoryUse& mem = c.memory;
    if (const double arrays = mem.total_bytes - mem.overhead_bytes; arrays > 0)
        r.predicted.push_back({"peak_memory (GB)", "memory.total_bytes", arrays / 1e9, arrays / 1e9, arrays / 1e9, "GB", false,
                               "the plan's weights, KV cache and activations: MLX's peak counts its arrays, not the process's runtime"});
    const WeightFormat* f = cat.find_format(w.precision.weights);
    const bool sixteen = w.precision.weights == "bf16" || w.precision.weights == "fp16";
    r.notes.push_back("Set MODEL to an MLX checkpoint of " + w.model.model.name +
                      (sixteen ? " in " + w.precision.weights + "."
                       : f && f->kind == "gguf"
                           ? ": MLX does not read GGUF, so convert it with mlx_lm.convert -q (4 or 8 bits, the nearest to " + w.precision.weights +
                                 ") and expect the speed to follow its size."
                           : " quantized to " + w.precision.weights + " (mlx_lm.convert -q, or an mlx-community conversion)."));
    if (!w.precision.kv_cache.empty() && w.precision.kv_cache != "bf16" && w.precision.kv_cache != "fp16")
        r.notes.push_back("mlx_lm.server has no KV cache quantization flag at v0.31.3 (mlx_lm.generate's --kv-bits is not a server flag), so the "
                          "cache keeps the model's dtype and takes more memory than the planned " + w.precision.kv_cache + " cache.");
}

// [SECTION] Serving: llama.cpp -----------------------------------------------------------------------------

void serve_llama_cpp(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c) {
    const auto tools = recorded_tools(r, cat, {"llama-server", "llama-bench"});
    if (tools.empty()) return;
    const ToolInterface* server = tools[0];
    const ToolInterface* bench = tools[1];
    const ServeShape sh = serve_shape(w);
    const double slots = std::max(1.0, sh.batch);
    std::string kv_note;
    const std::string cache = llama_cache_type(w.precision.kv_cache, kv_note);
    CommandLine s{"llama-server"};
    s.add("-m", "\"$MODEL_GGUF\"");
    s.add("-c", num(sh.context * slots));
    s.add("-np", num(slots));
    s.add("-ngl", "999");
    s.add("-fa", "on");
    if (!cache.empty()) {
        s.add("-ctk", cache);
        s.add("-ctv", cache);
    }
    s.add("--host", "127.0.0.1");
    s.add("--port", "8080");
    r.deploy.push_back(command(*server, "serve the model (" + num(slots) + " slot" + (slots > 1 ? "s" : "") + " of " + num(sh.context) + " tokens)", s.text()));
    CommandLine m{"llama-bench"};
    m.add("-m", "\"$MODEL_GGUF\"");
    m.add("-p", num(sh.prompt));
    m.add("-n", num(sh.output));
    m.add("-ngl", "999");
    m.add("-fa", "on");
    if (!cache.empty()) {
        m.add("-ctk", cache);
        m.add("-ctv", cache);
    }
    m.add("-o", "md");
    r.measure.push_back(command(*bench, "prompt and generation speed of one sequence", m.text()));
    r.setup = {int(std::lround(sh.prompt)), int(std::lround(sh.output)), 1, 0};
    // pp P prints P / prefill time; tg N prints 1 / decode step time of one sequence.
    if (const auto t = c.figures.find("ttft_s"); t != c.figures.end() && t->second.value > 0) {
        const Figure& f = t->second;
        r.predicted.push_back({"pp" + num(sh.prompt) + " (t/s)", "ttft_s", sh.prompt / f.value, f.high > 0 ? sh.prompt / f.high : 0,
                               f.low > 0 ? sh.prompt / f.low : 0, "t/s", f.low != f.high, "prompt tokens / the plan's time to first token"});
    }
    predict(r, c, "decode_tokens_per_s_per_user", "tg" + num(sh.output) + " (t/s)", 1, "t/s",
            slots > 1 ? "the plan's per-user speed at " + num(slots) + " sequences; llama-bench's tg runs one, so expect it faster"
                      : "llama-bench decodes from an empty context; the plan's figure is at the workload's context, so expect it a little faster");
    const WeightFormat* f = cat.find_format(w.precision.weights);
    if (f && f->kind == "gguf") r.notes.push_back("Set MODEL_GGUF to a GGUF file of " + w.model.model.name + " in " + w.precision.weights + ".");
    else
        r.notes.push_back("Set MODEL_GGUF to a GGUF file of " + w.model.model.name + ". llama.cpp stores weights in GGUF types and " + w.precision.weights +
                          " is not one, so pick the nearest (q8_0 for 8 bits, q4_k_m for 4) and expect the speed to follow its size.");
    if (!kv_note.empty()) r.notes.push_back(kv_note);
}

// [SECTION] Embedding jobs: vLLM's pooling runner -----------------------------------------------------------

constexpr double kEmbedMeasureS = 60; // the embedding benchmark sends about a minute of requests at the predicted rate, so
                                      // its opening (the first batches forming) is a small share of the duration

// An embedding (batch-inference) job: the plan runs encoder batches of embed.batch_size items data parallel over its
// devices (plan_embed.cpp), one batch per device at a time. On each device a vLLM server with the pooling runner runs
// that batch (--max-num-seqs items, --max-num-batched-tokens items x tokens so one engine step holds it), and `vllm
// bench serve --backend openai-embeddings` keeps that many requests in flight, one item a request.
void embed_vllm(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const Device& d) {
    const auto tools = recorded_tools(r, cat, {"vllm-serve", "vllm-bench-serve"});
    if (tools.empty()) return;
    const ToolInterface* serve = tools[0];
    const ToolInterface* bench = tools[1];
    const auto f = c.figures.find("items_per_s");
    if (f == c.figures.end() || !(f->second.value > 0)) {
        r.reason = "the plan has no items a second for " + c.device_name + ", so there is nothing to measure against";
        return;
    }
    const EmbedSpec& e = w.embed;
    const int devices = std::max(1, c.layout.data_parallel);
    const double batch = std::max(1.0, e.batch_size), tokens = e.tokens_per_item;
    const double per_device = f->second.value / devices; // items a second of one device (plan_embed.cpp: n x batch / batch time)
    CommandLine s{"vllm serve \"$MODEL\""};
    s.add("--runner", "pooling");
    s.add("--max-model-len", num(tokens));
    s.add("--max-num-seqs", num(batch));
    s.add("--max-num-batched-tokens", num(batch * tokens));
    if (w.precision.weights == "bf16") s.add("--dtype", "bfloat16");
    else if (w.precision.weights == "fp16") s.add("--dtype", "float16");
    if (const std::string u = vllm_memory_utilization(c, d); !u.empty()) s.add("--gpu-memory-utilization", u);
    r.deploy.push_back(command(*serve, devices > 1 ? "serve the model on each of the " + std::to_string(devices) + " devices (one server a device)"
                                                   : "serve the model on 1 device",
                               s.text()));
    // Requests: a minute at the predicted rate, at least ten batches, at most the job's own items on one device; whole batches.
    double requests = std::max(10 * batch, std::ceil(per_device * kEmbedMeasureS));
    if (e.items > 0) requests = std::max(batch, std::min(requests, std::ceil(e.items / devices)));
    requests = std::ceil(requests / batch) * batch;
    CommandLine m{"vllm bench serve"};
    m.add("--backend", "openai-embeddings");
    m.add("--endpoint", "/v1/embeddings");
    m.add("--model", "\"$MODEL\"");
    m.add("--dataset-name", "random");
    m.add("--random-input-len", num(tokens));
    m.add("--max-concurrency", num(batch));
    m.add("--num-prompts", num(requests));
    r.measure.push_back(command(*bench, "benchmark one device's server at the planned batch (" + num(batch) + " items in flight)", m.text()));
    r.setup = {int(std::lround(tokens)), 0, int(std::lround(batch)), int(std::lround(requests))};
    // The pooling block (serve.py, benchmark()): Request throughput = items a second with one item a request; Total token
    // throughput = input tokens a second; E2EL = one request's time, which at --max-concurrency equal to the batch is one
    // batch's time when the server runs full batches.
    predict(r, c, "items_per_s", "Request throughput (req/s)", 1.0 / devices, "req/s", "items a second of one device at the planned batch (one item a request)");
    predict(r, c, "items_per_s", "Total token throughput (tok/s)", tokens / devices, "tok/s", "input tokens a second: items x " + num(tokens) + " tokens an item");
    {
        const Figure& x = f->second;
        auto batch_ms = [&](double items_per_s) { return items_per_s > 0 ? batch * devices / items_per_s * 1e3 : 0.0; };
        PredictedLine p{"Mean E2EL (ms)", "items_per_s", batch_ms(x.value), batch_ms(x.high), batch_ms(x.low), "ms", x.low != x.high,
                        "one encoder batch's time: with " + num(batch) + " requests in flight each waits about one batch"};
        if (p.low > p.high) std::swap(p.low, p.high);
        r.predicted.push_back(p);
    }
    r.notes.push_back("Set MODEL to the Hugging Face id or local path of " + w.model.model.name + (w.precision.weights == "bf16" || w.precision.weights == "fp16"
                                                                                                ? " in " + w.precision.weights + "."
                                                                                                : "; vLLM's pooling runner serves it in the checkpoint's own format."));
    if (devices > 1)
        r.notes.push_back("Start one server a device (CUDA_VISIBLE_DEVICES=i, --port 8000+i) and split the items over them; the benchmark measures one of them, "
                          "and the fleet's rate is " + std::to_string(devices) + " x its Request throughput.");
    if (e.items > 0)
        r.notes.push_back("The job: " + num(e.items) + " items / (" + std::to_string(devices) + " device" + (devices > 1 ? "s" : "") +
                          " x the measured Request throughput) is its time" + (e.window_s > 0 ? ", to hold within the " + format_sig(e.window_s / 3600, 3) + " h window." : "."));
    const EncoderRuntime* rt = cat.find_encoder_runtime(e.runtime);
    if (rt)
        r.notes.push_back("The prediction follows the encoder runtime profile " + rt->id + " (" + rt->name + "); vLLM's pooling runner is none of the catalog's "
                          "profiles, so the difference also measures its kernels against that profile's.");
}

// [SECTION] Training: Megatron-LM, torchtitan, torchtune -----------------------------------------------------

constexpr int kMeasureSteps = 20;  // a short run: enough steps past warm-up for a steady step time

struct TrainShape {
    int devices = 1, per_node = 1, nodes = 1;
    double global_batch = 1, steps = 0; // steps: 0 when the workload gives no token count
    NodeSize node;                      // the device's node size, which per_node is at most
};

TrainShape train_shape(const Workload& w, const Candidate& c, const Device& d) {
    TrainShape t;
    t.devices = std::max(1, c.count);
    t.node = node_size(d);
    t.per_node = std::min(t.devices, t.node.devices);
    t.nodes = (t.devices + t.per_node - 1) / t.per_node;
    t.global_batch = double(std::max(1, c.layout.micro_batch)) * std::max(1, c.layout.micro_batches) * std::max(1, c.layout.data_parallel);
    if (w.train.tokens > 0 && w.train.seq_len > 0) t.steps = std::ceil(w.train.tokens / (t.global_batch * w.train.seq_len));
    return t;
}

void predict_training(RunIt& r, const Candidate& c, const std::string& tool) {
    const double n = std::max(1, c.count);
    const bool hf_trainer = tool == "axolotl" || tool == "llama-factory"; // the Hugging Face Trainer's closing summary
    if (tool == "megatron-lm") predict(r, c, "step_time_s", "elapsed time per iteration (ms)", 1e3, "ms");
    else if (!hf_trainer) predict(r, c, "step_time_s", "step time (s)", 1, "s");
    if (hf_trainer) {
        // Hugging Face Trainer's closing dict: train_steps_per_second = steps / train_runtime (the run's average).
        if (const auto st = c.figures.find("step_time_s"); st != c.figures.end() && st->second.value > 0) {
            const Figure& f = st->second;
            r.predicted.push_back({"train_steps_per_second", "step_time_s", 1 / f.value, f.high > 0 ? 1 / f.high : 1 / f.value, f.low > 0 ? 1 / f.low : 1 / f.value,
                                   "steps/s", f.low != f.high, "1 / the planned step time; the run's average, its first steps included"});
        }
        // LLaMA-Factory's effective_tokens_per_sec (extras/misc.py calculate_tps): the dataset's tokens x epochs / train_runtime / world
        // size, so tokens a second of one device; with packing every sequence holds cutoff_len tokens, as the plan counts.
        if (tool == "llama-factory")
            predict(r, c, "train_tokens_per_s", "effective_tokens_per_sec", 1 / n, "tokens/s", "the plan's tokens a second of one device; the run's average, its first steps included");
    } else {
        predict(r, c, "train_tokens_per_s", tool == "torchtune" ? "tokens_per_second_per_gpu" : tool == "torchtitan" ? "tps (tokens/s per device)" : "tokens/s per device",
                1 / n, "tokens/s");
    }
    if (!c.layouts.layouts.empty()) {
        const LayoutResult& best = c.layouts.layouts.front();
        if (tool == "megatron-lm" && best.hardware_flop_per_s > 0)
            r.predicted.push_back({"throughput per GPU (TFLOP/s/GPU)", "layouts.best.hardware_flop_per_s", best.hardware_flop_per_s / 1e12,
                                   best.hardware_flop_per_s / 1e12, best.hardware_flop_per_s / 1e12, "TFLOP/s", false,
                                   "recomputation included, as Megatron-LM counts it"});
        if (best.mfu > 0 && !hf_trainer) // the Trainer's log has no MFU
            r.predicted.push_back({tool == "torchtitan" ? "mfu (%)" : "MFU (%)", "layouts.best.mfu", best.mfu * 100, best.mfu * 100, best.mfu * 100, "%", false, ""});
    }
    if (tool == "llama-factory") return; // it prints no memory (RECORD_VRAM writes it to trainer_log.jsonl only)
    const MemoryUse& m = c.memory;
    const bool reserved = m.reserved_high_bytes > 0;
    const double v = (m.total_bytes - m.context_bytes - m.managed_bytes) / 1e9;
    // torchtune logs peak_memory_reserved in GiB, torchtitan "memory: 66.91GiB" (max_memory_reserved, metrics.py) and Axolotl
    // "memory/device_reserved (GiB)" (bench.py: torch.cuda.max_memory_reserved / 1024^3): all GiB.
    const bool in_gib = tool == "torchtune" || tool == "torchtitan" || tool == "axolotl";
    const double gib = in_gib ? 1e9 / 1073741824.0 : 1;
    r.predicted.push_back({tool == "torchtune" ? "peak_memory_reserved (GiB)" : tool == "torchtitan" ? "memory (GiB, max reserved)"
                           : tool == "axolotl"  ? "memory/device_reserved (GiB)"
                                                : "peak memory per device (GB, torch.cuda.max_memory_reserved)",
                           "memory.total_bytes", (reserved ? v : m.total_bytes / 1e9) * gib,
                           (reserved ? m.reserved_low_bytes : m.total_low_bytes) / 1e9 * gib,
                           (reserved ? m.reserved_high_bytes : m.total_high_bytes) / 1e9 * gib, in_gib ? "GiB" : "GB", true,
                           reserved ? "the plan's memory less the runtime context and managed memory, which PyTorch's allocator does not count" : ""});
}

std::string recompute_name(Checkpointing k) { return k == Checkpointing::full ? "full" : k == Checkpointing::selective ? "selective" : "none"; }

// Megatron-LM's pretrain_gpt.py with the layout, the model's shape and the run's length.
std::string megatron_command(const Workload& w, const Candidate& c, const TrainShape& t, bool measure) {
    const Layout& l = c.layout;
    const ModelArch& a = w.model.model.arch;
    CommandLine s{"torchrun"};
    s.add("--nproc_per_node", num(t.per_node));
    s.add("--nnodes", num(t.nodes));
    s.parts.push_back("pretrain_gpt.py");
    s.add("--tensor-model-parallel-size", num(l.tensor_parallel));
    if (l.tensor_parallel > 1) s.add("--sequence-parallel");
    s.add("--pipeline-model-parallel-size", num(l.pipeline_parallel));
    if (l.virtual_stages > 1) s.add("--num-virtual-stages-per-pipeline-rank", num(l.virtual_stages));
    s.add("--context-parallel-size", num(l.context_parallel));
    if (l.expert_parallel > 1) s.add("--expert-model-parallel-size", num(l.expert_parallel));
    if (l.zero_stage == 1) s.add("--use-distributed-optimizer");
    if (l.zero_stage >= 2) {
        s.add("--use-megatron-fsdp");
        s.add("--data-parallel-sharding-strategy", l.zero_stage == 2 ? "optim_grads" : "optim_grads_params");
    }
    s.add("--micro-batch-size", num(std::max(1, l.micro_batch)));
    s.add("--global-batch-size", num(t.global_batch));
    if (l.recompute != Checkpointing::none) s.add("--recompute-granularity", recompute_name(l.recompute));
    if (l.recompute == Checkpointing::full) {
        s.add("--recompute-method", "uniform");
        s.add("--recompute-num-layers", "1");
    }
    s.add("--num-layers", num(a.layers));
    s.add("--hidden-size", num(a.hidden));
    s.add("--ffn-hidden-size", num(a.has_moe && a.moe.expert_intermediate > 0 ? a.moe.expert_intermediate : a.intermediate));
    s.add("--num-attention-heads", num(a.heads));
    if (a.kv_heads > 0 && a.kv_heads < a.heads) {
        s.add("--group-query-attention");
        s.add("--num-query-groups", num(a.kv_heads));
    }
    if (a.has_moe) {
        s.add("--num-experts", num(a.moe.experts));
        s.add("--moe-router-topk", num(a.moe.active_experts));
    }
    if (a.mlp == MlpKind::gated) s.add("--swiglu");
    s.add("--normalization", a.norm == NormKind::rmsnorm ? "RMSNorm" : "LayerNorm");
    if (a.position == PositionKind::rope) s.add("--position-embedding-type", "rope");
    if (!a.tied_embeddings) s.add("--untie-embeddings-and-output-weights");
    if (a.bias == BiasKind::none) s.add("--disable-bias-linear");
    s.add("--seq-length", num(w.train.seq_len));
    s.add("--max-position-embeddings", num(std::max<double>(w.train.seq_len, a.max_context)));
    if (measure) {
        s.add("--vocab-size", num(a.vocab));
        s.add("--tokenizer-type", "NullTokenizer");
        s.add("--mock-data");
    }
    s.add("--train-iters", num(measure ? kMeasureSteps : t.steps));
    s.add("--lr", "1e-4");
    s.add("--bf16");
    if (w.precision.compute == "fp8") s.add("--fp8-format", "hybrid");
    s.add("--log-interval", "1");
    s.add("--log-throughput");
    return s.text();
}

// A TOML basic string's contents: backslashes and quotes escaped (a user's model name may hold either).
std::string toml_string(const std::string& v) {
    std::string out;
    for (char ch : v) {
        if (ch == '\\' || ch == '"') out += '\\';
        if (ch != '\n') out += ch;
    }
    return out;
}

// torchtitan's TOML: [section] tables with the keys recorded in tools.json.
std::string torchtitan_toml(const Workload& w, const Candidate& c, const ToolInterface& tool, const std::map<std::string, std::string>& model,
                            double steps) {
    const Layout& l = c.layout;
    const int shard = l.zero_stage >= 2 ? l.data_parallel : 1;
    const int replicate = l.zero_stage >= 2 ? 1 : l.data_parallel;
    const int layers_per_stage = l.virtual_stages > 1 ? std::max(1, w.model.model.arch.layers / (l.pipeline_parallel * l.virtual_stages)) : 0;
    std::string s = "# torchtitan " + tool.release + ": the layout hwplan planned for " + std::to_string(c.count) + " devices\n";
    s += "[job]\ndescription = \"" + toml_string("hwplan: " + w.model.model.name + " on " + std::to_string(c.count) + " x " + c.device_name) + "\"\n\n";
    s += "[metrics]\nlog_freq = 1\n\n";
    s += "[model]\nname = \"" + model.at("name") + "\"\nflavor = \"" + model.at("flavor") + "\"\n\n";
    s += "[training]\nlocal_batch_size = " + num(std::max(1, l.micro_batch) * std::max(1, l.micro_batches)) + "\n";
    s += "global_batch_size = " + num(double(std::max(1, l.micro_batch)) * std::max(1, l.micro_batches) * std::max(1, l.data_parallel)) + "\n";
    s += "seq_len = " + num(w.train.seq_len) + "\nsteps = " + num(steps) + "\n\n";
    s += "[parallelism]\ndata_parallel_replicate_degree = " + num(replicate) + "\ndata_parallel_shard_degree = " + num(shard) + "\n";
    if (l.zero_stage == 2) s += "fsdp_reshard_after_forward = \"never\"\n";
    s += "tensor_parallel_degree = " + num(l.tensor_parallel) + "\npipeline_parallel_degree = " + num(l.pipeline_parallel) + "\n";
    if (l.pipeline_parallel > 1) {
        s += "pipeline_parallel_schedule = \"" + std::string(l.virtual_stages > 1 ? "Interleaved1F1B" : "1F1B") + "\"\n";
        s += "pipeline_parallel_microbatch_size = " + num(std::max(1, l.micro_batch)) + "\n";
        if (layers_per_stage > 0) s += "pipeline_parallel_layers_per_stage = " + num(layers_per_stage) + "\n";
    }
    s += "context_parallel_degree = " + num(l.context_parallel) + "\nexpert_parallel_degree = " + num(l.expert_parallel) + "\n\n";
    s += "[activation_checkpoint]\nmode = \"" + recompute_name(l.recompute) + "\"\n";
    return s;
}

void pretrain(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const Device& d) {
    const TrainShape t = train_shape(w, c, d);
    const ToolInterface* titan = cat.find_tool("torchtitan");
    const ToolInterface* megatron = cat.find_tool("megatron-lm");
    const std::map<std::string, std::string>* model = nullptr;
    if (titan && w.model.from_catalog)
        if (const auto it = titan->models.find(w.model.model.id); it != titan->models.end()) model = &it->second;
    if (model) {
        const std::string deploy_file = "hwplan_train.toml", measure_file = "hwplan_measure.toml";
        r.deploy.push_back(command(*titan, "training config: the planned layout" + std::string(t.steps > 0 ? ", " + num(t.steps) + " steps" : ""),
                                   torchtitan_toml(w, c, *titan, *model, t.steps > 0 ? t.steps : 1000), deploy_file));
        r.deploy.push_back(command(*titan, "launch on each node", "NGPU=" + num(t.per_node) + " CONFIG_FILE=./" + deploy_file + " ./run_train.sh"));
        r.measure.push_back(command(*titan, "the same layout for " + std::to_string(kMeasureSteps) + " steps",
                                    torchtitan_toml(w, c, *titan, *model, kMeasureSteps), measure_file));
        r.measure.push_back(command(*titan, "launch on each node", "NGPU=" + num(t.per_node) + " CONFIG_FILE=./" + measure_file + " ./run_train.sh"));
        predict_training(r, c, "torchtitan");
        if (c.layout.zero_stage == 1)
            r.notes.push_back("torchtitan has no ZeRO-1: replicated data parallelism keeps the whole optimizer state on each device, more than planned.");
        r.notes.push_back("run_train.sh starts one node; with " + std::to_string(t.nodes) +
                          " nodes launch the same config with your scheduler (torchtitan's multinode_trainer.slurm). Set the tokenizer and dataset "
                          "([model] hf_assets_path, [training] dataset) to yours.");
    } else if (megatron) {
        r.deploy.push_back(command(*megatron, "train with the planned layout" + std::string(t.steps > 0 ? " (" + num(t.steps) + " steps)" : ""),
                                   megatron_command(w, c, t, false)));
        if (t.steps <= 0) r.notes.push_back("The workload gives no token count, so --train-iters is 0: set it to your run's steps.");
        r.measure.push_back(command(*megatron, "the same layout for " + std::to_string(kMeasureSteps) + " steps on synthetic data",
                                    megatron_command(w, c, t, true)));
        predict_training(r, c, "megatron-lm");
        r.notes.push_back("Add your data and tokenizer flags to the training command. Launch it on each of the " + std::to_string(t.nodes) +
                          " node(s) with torchrun's rendezvous flags for your cluster.");
        if (w.model.model.arch.bias == BiasKind::qkv)
            r.notes.push_back("The model has biases on its query, key and value projections only; Megatron-LM's flag for that is not recorded, "
                              "so the command leaves biases on every linear layer (Megatron-LM's default): add your release's QKV-bias flag.");
        if (w.model.model.arch.has_mla || w.model.model.arch.moe.shared_experts > 0)
            r.notes.push_back("Multi-latent attention and shared experts need flags hwplan has not recorded; take them from Megatron-LM's example for the model.");
    } else {
        r.reason = "catalog/tools.json has no torchtitan or megatron-lm entry";
        return;
    }
    if (t.per_node < t.devices) r.notes.push_back(node_note(t.node, "the per-node count"));
}

// DeepSpeed (the plan's runtime profile is DeepSpeed's ZeRO engine): a ds_config.json with the planned batch, precision,
// ZeRO stage and offload (config-json.md's keys), and the deepspeed launcher over the user's training script.
void finetune_deepspeed(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const Device& d, const TrainingRuntime& rt) {
    const auto tools = recorded_tools(r, cat, {"deepspeed"});
    if (tools.empty()) return;
    const ToolInterface* ds = tools[0];
    const TrainShape t = train_shape(w, c, d);
    const Layout& l = c.layout;
    const int micro = std::max(1, l.micro_batch), accumulation = std::max(1, l.micro_batches);
    // DeepSpeed's ZeRO engine is data parallel over every device it starts: its batch identity (config-json.md) counts them all.
    const double batch = double(micro) * accumulation * t.devices;
    auto config = [&](int print_every) {
        nlohmann::ordered_json j;
        j["train_batch_size"] = static_cast<long long>(batch); // an integer: DeepSpeed checks the identity exactly
        j["train_micro_batch_size_per_gpu"] = micro;
        j["gradient_accumulation_steps"] = accumulation;
        j["steps_per_print"] = print_every;
        if (w.precision.compute == "fp16") j["fp16"]["enabled"] = true;
        else if (w.precision.compute != "fp32") j["bf16"]["enabled"] = true;
        j["zero_optimization"]["stage"] = l.zero_stage;
        if (w.train.cpu_offload) {
            j["zero_optimization"]["offload_optimizer"]["device"] = "cpu";
            if (l.zero_stage >= 3 && rt.offload_parameters) j["zero_optimization"]["offload_param"]["device"] = "cpu";
        }
        return j.dump(2) + "\n";
    };
    auto launch = [&](const std::string& file) {
        CommandLine s{"deepspeed"};
        s.add("--num_nodes", num(t.nodes));
        s.add("--num_gpus", num(t.per_node));
        s.parts.push_back("\"$TRAIN_SCRIPT\"");
        s.add("--deepspeed");
        s.add("--deepspeed_config", file);
        return s.text();
    };
    r.deploy.push_back(command(*ds, "DeepSpeed config: the planned batch, ZeRO stage and offload", config(10), "ds_config.json"));
    r.deploy.push_back(command(*ds, "launch your training script on each node", launch("ds_config.json")));
    r.measure.push_back(command(*ds, "the same config, a progress line every step", config(1), "ds_measure.json"));
    r.setup.batch_samples = static_cast<int>(batch);
    r.measure.push_back(command(*ds, "run " + std::to_string(kMeasureSteps) + " steps (your script's own step limit) and keep the log", launch("ds_measure.json")));
    // The throughput timer's line: CurrSamplesPerSec = train_batch_size / the step's time (timer.py), and
    // MaxMemAllocated = torch.cuda.max_memory_allocated() in GiB: the plan's memory without the runtime context, the
    // managed optimizer state and the allocator's share (overhead), which allocated memory does not count.
    if (const auto st = c.figures.find("step_time_s"); st != c.figures.end() && st->second.value > 0) {
        const Figure& f = st->second;
        r.predicted.push_back({"CurrSamplesPerSec", "step_time_s", batch / f.value, f.high > 0 ? batch / f.high : batch / f.value,
                               f.low > 0 ? batch / f.low : batch / f.value, "samples/s", f.low != f.high,
                               "train_batch_size (" + num(batch) + ") over the planned step time"});
    }
    const MemoryUse& m = c.memory;
    const double allocated = m.total_bytes - m.overhead_bytes - m.managed_bytes;
    if (allocated > 0)
        r.predicted.push_back({"MaxMemAllocated (GiB)", "memory.total_bytes", allocated / 1073741824.0, allocated / 1073741824.0,
                               allocated / 1073741824.0, "GiB", false,
                               "the plan's weights, gradients, optimizer state and activations on one device; DeepSpeed prints GiB as GB"});
    r.notes.push_back("TRAIN_SCRIPT is your training script: it passes its arguments to deepspeed.initialize (add_config_arguments gives it "
                      "--deepspeed and --deepspeed_config), which reads the batch, precision, ZeRO stage and offload from the config.");
    if (l.tensor_parallel > 1 || l.pipeline_parallel > 1 || l.context_parallel > 1)
        r.notes.push_back("DeepSpeed's ZeRO engine is data parallel over all " + std::to_string(t.devices) + " devices; the planned TP " +
                          std::to_string(l.tensor_parallel) + ", PP " + std::to_string(l.pipeline_parallel) + " and CP " +
                          std::to_string(l.context_parallel) + " are not in this config.");
    if (t.per_node < t.devices) r.notes.push_back(node_note(t.node, "--num_gpus"));
}

// Hugging Face Trainer's optimizer name (TrainingArguments.optim) for the plan's optimizer; paged state where the runtime
// profile pages it (qlora.py): what Axolotl's `optimizer` and LLaMA-Factory's `optim` take.
std::string hf_optimizer(const Workload& w, const TrainingRuntime& rt) {
    return w.train.optimizer == Optimizer::adamw_8bit ? (pages_optimizer(rt, std::string(name(w.train.method))) ? "paged_adamw_8bit" : "adamw_bnb_8bit")
           : w.train.optimizer == Optimizer::sgd       ? "sgd"
           : w.train.optimizer == Optimizer::adafactor ? "adafactor"
           : pages_optimizer(rt, std::string(name(w.train.method))) ? "paged_adamw_32bit"
                                                       : "adamw_torch_fused";
}

// Axolotl for a LoRA or QLoRA fine-tune whose plan follows Hugging Face Trainer + PEFT's storage rules (the hf-peft and
// qlora-reference profiles: Axolotl trains with both): one YAML file with the planned adapter, batch, recomputation and
// sharding (the schema's keys at the recorded release), and `axolotl train` over it.
void finetune_axolotl(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const Device& d, const TrainingRuntime& rt) {
    const auto tools = recorded_tools(r, cat, {"axolotl"});
    if (tools.empty()) return;
    const ToolInterface* ax = tools[0];
    const TrainShape t = train_shape(w, c, d);
    const Layout& l = c.layout;
    const bool qlora = w.train.method == TrainMethod::qlora;
    const std::string optimizer = hf_optimizer(w, rt);
    auto yaml = [&](double steps) {
        std::string y = "# Axolotl " + ax->release + ": the layout hwplan planned for " + std::to_string(t.devices) + " device" + (t.devices > 1 ? "s" : "") + "\n";
        y += "base_model: \"$MODEL\"\n";
        if (qlora) y += "load_in_4bit: true\n";
        y += std::string("adapter: ") + (qlora ? "qlora" : "lora") + "\n";
        y += "lora_r: " + num(w.train.lora_rank) + "\n";
        // The adapter's scale alpha / r changes what it learns, not what the plan counts; the schema has no default (PEFT needs
        // one), so Axolotl's own QLoRA example's 16 (examples/llama-3/qlora-1b.yml).
        y += "lora_alpha: 16\n";
        // The adapted layers the plan counted (train.lora_targets): every linear, or the named projections (Llama names).
        y += w.train.lora_targets == "query-value"       ? "lora_target_modules: [q_proj, v_proj]\n"
             : w.train.lora_targets == "query-key-value" ? "lora_target_modules: [q_proj, k_proj, v_proj]\n"
                                                         : "lora_target_linear: true\n";
        y += "datasets: [{path: \"$DATASET\", type: alpaca}]\n";
        y += "output_dir: ./outputs/hwplan\n";
        y += "sequence_len: " + num(w.train.seq_len) + "\n";
        y += "micro_batch_size: " + num(std::max(1, l.micro_batch)) + "\n";
        y += "gradient_accumulation_steps: " + num(std::max(1, l.micro_batches)) + "\n";
        y += "num_epochs: 1\n";
        if (steps > 0) y += "max_steps: " + num(steps) + "\n";
        y += "optimizer: " + optimizer + "\n";
        y += "learning_rate: 0.0002\n"; // Axolotl's own QLoRA example (examples/llama-3/qlora-1b.yml); the schema requires one
        y += std::string(w.precision.compute == "fp16" ? "fp16: true\n" : "bf16: true\n");
        y += std::string("gradient_checkpointing: ") + (l.recompute != Checkpointing::none ? "true" : "false") + "\n";
        y += "logging_steps: 1\n";
        if (l.context_parallel > 1) y += "context_parallel_size: " + num(l.context_parallel) + "\n";
        // Sharding as planned: FSDP2 reshards after forward at ZeRO-3, keeps the parameters to backward at ZeRO-2
        // (fsdp.py: reshard_after_forward); CPU offload moves parameters, gradients and optimizer state (offload_params).
        if (t.devices > 1 && l.zero_stage >= 2) {
            y += "fsdp_version: 2\nfsdp_config:\n";
            y += std::string("  reshard_after_forward: ") + (l.zero_stage >= 3 ? "true" : "false") + "\n";
            if (w.train.cpu_offload) y += "  offload_params: true\n";
            y += "  auto_wrap_policy: TRANSFORMER_BASED_WRAP\n";
        }
        return y;
    };
    const std::string file = "hwplan_axolotl.yml", measure_file = "hwplan_axolotl_measure.yml";
    r.deploy.push_back(command(*ax, "fine-tuning config: the planned adapter, batch and sharding" + std::string(t.steps > 0 ? ", " + num(t.steps) + " steps" : ""),
                               yaml(t.steps), file));
    r.deploy.push_back(command(*ax, t.nodes > 1 ? "launch on each node" : "launch", "axolotl train " + file));
    r.measure.push_back(command(*ax, "the same config for " + std::to_string(kMeasureSteps) + " steps", yaml(kMeasureSteps), measure_file));
    r.measure.push_back(command(*ax, "launch and keep the log", "axolotl train " + measure_file));
    predict_training(r, c, "axolotl");
    r.notes.push_back("Axolotl reads the file as written: put the Hugging Face id or local path of " + w.model.model.name + " in place of $MODEL and your "
                      "dataset (and its type) in place of $DATASET, or write the file with envsubst.");
    if (t.devices > 1 && l.zero_stage == 1)
        r.notes.push_back("Axolotl has no ZeRO-1 of its own (FSDP shards the parameters too); without fsdp_config it runs plain data parallelism, which keeps "
                          "the whole optimizer state on each device, more than planned.");
    if (l.tensor_parallel > 1 || l.pipeline_parallel > 1)
        r.notes.push_back("Axolotl's FSDP runs no tensor or pipeline parallelism of the plan's kind: the planned TP " + std::to_string(l.tensor_parallel) +
                          " and PP " + std::to_string(l.pipeline_parallel) + " are not in the config.");
    if (t.nodes > 1) r.notes.push_back("Multi-node: axolotl train --launcher torchrun with torchrun's rendezvous flags after --. " + node_note(t.node, "the per-node count"));
}

// LLaMA-Factory's DeepSpeed config for the planned sharding (the checkout's examples/deepspeed/, which leave the batch
// keys "auto" to the YAML): ZeRO-3 or ZeRO-2, with optimizer offload where planned; ZeRO-1 has no config of its own, so
// ZeRO-2 (a note says so). "" when one device holds the whole optimizer state with no offload, or plain data
// parallelism (ZeRO-0) runs under torchrun without DeepSpeed.
std::string llama_factory_deepspeed(const Workload& w, const Layout& l, int devices) {
    if (l.zero_stage >= 3) return std::string("examples/deepspeed/ds_z3") + (w.train.cpu_offload ? "_offload" : "") + "_config.json";
    if (w.train.cpu_offload || (devices > 1 && l.zero_stage >= 1))
        return std::string("examples/deepspeed/ds_z2") + (w.train.cpu_offload ? "_offload" : "") + "_config.json";
    return "";
}

// LLaMA-Factory when the workload names it (framework llama-factory): one YAML with the planned method (LoRA, QLoRA with
// on-the-fly 4-bit bitsandbytes, or full), batch, recomputation and DeepSpeed sharding (its documented keys at the recorded
// release), and `llamafactory-cli train` over it, the model, dataset and template given as key=value overrides from the
// environment. Packing fills each sequence to cutoff_len, the tokens a sequence the plan counts.
void finetune_llama_factory(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const Device& d, const TrainingRuntime& rt) {
    const auto tools = recorded_tools(r, cat, {"llama-factory"});
    if (tools.empty()) return;
    const ToolInterface* lf = tools[0];
    const TrainShape t = train_shape(w, c, d);
    const Layout& l = c.layout;
    const bool full = w.train.method == TrainMethod::full, qlora = w.train.method == TrainMethod::qlora;
    const std::string ds = llama_factory_deepspeed(w, l, t.devices);
    auto yaml = [&](double steps) {
        std::string y = "# LLaMA-Factory " + lf->release + ": the layout hwplan planned for " + std::to_string(t.devices) + " device" + (t.devices > 1 ? "s" : "") + "\n";
        y += "model_name_or_path: \"$MODEL\"\n";
        if (qlora) y += "quantization_bit: 4\nquantization_method: bnb\n";
        y += "stage: sft\ndo_train: true\n";
        y += std::string("finetuning_type: ") + (full ? "full" : "lora") + "\n";
        if (!full)
            y += "lora_rank: " + num(w.train.lora_rank) + "\nlora_target: " +
                 (w.train.lora_targets == "query-value"       ? "q_proj,v_proj"
                  : w.train.lora_targets == "query-key-value" ? "q_proj,k_proj,v_proj"
                                                              : "all") + "\n";
        if (!ds.empty()) y += "deepspeed: " + ds + "\n";
        y += "dataset: \"$DATASET\"\ntemplate: \"$TEMPLATE\"\n";
        y += "cutoff_len: " + num(w.train.seq_len) + "\npacking: true\n";
        y += "output_dir: saves/hwplan\nlogging_steps: 1\nreport_to: none\n";
        y += "per_device_train_batch_size: " + num(std::max(1, l.micro_batch)) + "\n";
        y += "gradient_accumulation_steps: " + num(std::max(1, l.micro_batches)) + "\n";
        // The learning rates of its own examples: 1.0e-4 for LoRA (train_lora/qwen3_lora_sft.yaml), 1.0e-5 for full
        // (train_full/qwen3_full_sft.yaml); what is learned, not what the plan counts.
        y += std::string("learning_rate: ") + (full ? "1.0e-5" : "1.0e-4") + "\n";
        y += "num_train_epochs: 1.0\n";
        if (steps > 0) y += "max_steps: " + num(steps) + "\n";
        y += std::string(w.precision.compute == "fp16" ? "fp16: true\n" : "bf16: true\n");
        y += "optim: " + hf_optimizer(w, rt) + "\n";
        if (l.recompute == Checkpointing::none) y += "disable_gradient_checkpointing: true\n"; // on by default
        y += "include_effective_tokens_per_second: true\n";
        return y;
    };
    auto launch = [&](const std::string& file) {
        std::string env;
        if (!ds.empty() || t.nodes > 1) env += "FORCE_TORCHRUN=1 ";
        if (t.nodes > 1)
            env += "NNODES=" + num(t.nodes) + " NODE_RANK=\"$NODE_RANK\" NPROC_PER_NODE=" + num(t.per_node) + " MASTER_ADDR=\"$MASTER_ADDR\" MASTER_PORT=29500 ";
        CommandLine s{env + "llamafactory-cli train " + file};
        s.parts.push_back("model_name_or_path=\"$MODEL\"");
        s.parts.push_back("dataset=\"$DATASET\"");
        s.parts.push_back("template=\"$TEMPLATE\"");
        return s.text();
    };
    const std::string file = "hwplan_llama_factory.yaml", measure_file = "hwplan_llama_factory_measure.yaml";
    r.deploy.push_back(command(*lf, "fine-tuning config: the planned method, batch and sharding" + std::string(t.steps > 0 ? ", " + num(t.steps) + " steps" : ""),
                               yaml(t.steps), file));
    r.deploy.push_back(command(*lf, t.nodes > 1 ? "launch on each node (NODE_RANK 0 to " + std::to_string(t.nodes - 1) + ")" : "launch", launch(file)));
    r.measure.push_back(command(*lf, "the same config for " + std::to_string(kMeasureSteps) + " steps", yaml(kMeasureSteps), measure_file));
    r.measure.push_back(command(*lf, "launch and keep the log", launch(measure_file)));
    predict_training(r, c, "llama-factory");
    r.notes.push_back("Run it in your LLaMA-Factory checkout (the DeepSpeed configs are its examples/deepspeed/ files). Set MODEL to the Hugging Face id or "
                      "local path of " + w.model.model.name + ", DATASET to your dataset's name in data/dataset_info.json and TEMPLATE to the model's chat "
                      "template: the command passes them as overrides of the file's placeholders.");
    if (t.devices > 1 && l.zero_stage == 1)
        r.notes.push_back("LLaMA-Factory ships no ZeRO-1 config: ds_z2_config.json shards the gradients too, which saves memory beyond the plan.");
    if (l.tensor_parallel > 1 || l.pipeline_parallel > 1 || l.context_parallel > 1)
        r.notes.push_back("LLaMA-Factory's DeepSpeed path is data parallel over all " + std::to_string(t.devices) + " devices; the planned TP " +
                          std::to_string(l.tensor_parallel) + ", PP " + std::to_string(l.pipeline_parallel) + " and CP " +
                          std::to_string(l.context_parallel) + " are not in the config.");
    if (rt.id == "torchtune" || rt.id == "deepspeed")
        r.notes.push_back("The plan's memory follows " + rt.name + "'s storage rules (train.runtime " + rt.id + "); LLaMA-Factory trains with the Hugging "
                          "Face Trainer and PEFT: plan with train.runtime hf-peft (or qlora-reference) to predict this run's figures.");
    if (t.nodes > 1) r.notes.push_back(node_note(t.node, "NPROC_PER_NODE"));
}

void finetune(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const Device& d) {
    const TrainingRuntime& rt = plan_detail::training_runtime(w, cat, &d);
    if (rt.id == "deepspeed" && w.framework != "llama-factory") {
        finetune_deepspeed(r, w, cat, c, d, rt);
        return;
    }
    if (w.framework == "llama-factory") {
        finetune_llama_factory(r, w, cat, c, d, rt);
        return;
    }
    const bool adapter = w.train.method == TrainMethod::lora || w.train.method == TrainMethod::qlora;
    if (adapter && (rt.id == "hf-peft" || rt.id == "qlora-reference" || w.framework == "axolotl") && w.framework != "torchtune") {
        finetune_axolotl(r, w, cat, c, d, rt);
        return;
    }
    const auto tools = recorded_tools(r, cat, {"torchtune"});
    if (tools.empty()) return;
    const ToolInterface* tune = tools[0];
    const TrainShape t = train_shape(w, c, d);
    const Layout& l = c.layout;
    const bool full = w.train.method == TrainMethod::full;
    const std::string method(name(w.train.method));
    const std::string recipe = std::string(full ? "full_finetune_" : "lora_finetune_") + (t.devices > 1 ? "distributed" : "single_device");
    std::string config = "\"$TORCHTUNE_CONFIG\"";
    if (const auto m = tune->configs.find(w.model.model.id); m != tune->configs.end() && w.model.from_catalog)
        if (const auto rc = m->second.find(recipe); rc != m->second.end())
            if (const auto cfg = rc->second.find(method); cfg != rc->second.end()) config = cfg->second;
    auto write = [&](bool measure) {
        CommandLine s{"tune run"};
        if (t.devices > 1) {
            s.head += " --nnodes " + num(t.nodes) + " --nproc-per-node " + num(t.per_node);
        }
        s.head += " " + recipe + " --config " + config;
        s.parts.push_back("batch_size=" + num(std::max(1, l.micro_batch)));
        s.parts.push_back("gradient_accumulation_steps=" + num(std::max(1, l.micro_batches)));
        s.parts.push_back("tokenizer.max_seq_len=" + num(w.train.seq_len));
        s.parts.push_back(std::string("enable_activation_checkpointing=") + (l.recompute != Checkpointing::none ? "True" : "False"));
        if (!full) s.parts.push_back("model.lora_rank=" + num(w.train.lora_rank));
        if (full && t.devices > 1 && l.tensor_parallel > 1) s.parts.push_back("tensor_parallel_dim=" + num(l.tensor_parallel));
        // The planned sharding and offload in the recipes' own keys (torchtune's memory guide): FSDP reshards after
        // forward by default (ZeRO-3); ZeRO-2 keeps the gathered parameters to backward. Offload: FSDP's CPU offload in
        // the distributed recipes, torchao's CPU-offload optimizer in the single-device ones.
        if (t.devices > 1 && l.zero_stage == 2) s.parts.push_back("fsdp_reshard_after_forward=False");
        if (w.train.cpu_offload) s.parts.push_back(t.devices > 1 ? "fsdp_cpu_offload=True" : "optimizer=torchao.prototype.low_bit_optim.CPUOffloadOptimizer");
        if (measure) {
            s.parts.push_back("epochs=1");
            s.parts.push_back("max_steps_per_epoch=" + std::to_string(kMeasureSteps));
        } else if (t.steps > 0) {
            s.parts.push_back("max_steps_per_epoch=" + num(t.steps));
        }
        s.parts.push_back("log_every_n_steps=1");
        s.parts.push_back("log_peak_memory_stats=True");
        return s.text();
    };
    r.deploy.push_back(command(*tune, "fine-tune with the planned layout", write(false)));
    r.measure.push_back(command(*tune, "the same run stopped after " + std::to_string(kMeasureSteps) + " steps", write(true)));
    predict_training(r, c, "torchtune");
    if (config.front() == '"')
        r.notes.push_back("torchtune v0.6.1 ships no " + method + " config for " + w.model.model.name + " with " + recipe +
                          ": set TORCHTUNE_CONFIG to one you copied (tune cp) and adapted.");
    if (rt.id != "torchtune")
        r.notes.push_back("The plan's memory follows " + rt.name + "'s storage rules (train.runtime " + rt.id +
                          "); torchtune's recipes store adapters, gradients and optimizer state their own way, so peak memory will differ from the "
                          "prediction: plan with train.runtime torchtune to predict this command's figures.");
    if (w.train.cpu_offload && t.devices > 1 && l.zero_stage < 3)
        r.notes.push_back("torchtune's CPU offload is FSDP's (fsdp_cpu_offload): it moves the sharded parameters and gradients to the CPU too, "
                          "not only the optimizer state the plan offloads.");
    if (t.per_node < t.devices) r.notes.push_back(node_note(t.node, "--nproc-per-node"));
    if (l.zero_stage == 1 && t.devices > 1)
        r.notes.push_back("torchtune's distributed recipes have no ZeRO-1 (optimizer state sharded alone): FSDP shards the parameters too, "
                          "which saves memory beyond the plan and adds parameter gathers.");
    else if ((l.zero_stage == 0 && t.devices > 1) || l.pipeline_parallel > 1 || l.context_parallel > 1)
        r.notes.push_back("torchtune's distributed recipes shard with FSDP (ZeRO-3); the planned layout (ZeRO-" + std::to_string(l.zero_stage) +
                          ", PP " + std::to_string(l.pipeline_parallel) + ", CP " + std::to_string(l.context_parallel) + ") is the nearest they run.");
}

// [SECTION] RL post-training: OpenRLHF ---------------------------------------------------------------------

constexpr int kRlMeasureSteps = 5; // a short RL run: the first step's generation includes the engines' warm-up (CUDA graph
                                   // capture), so compare a later one; each step generates a whole batch of long rollouts

// The plan's RL job (plan_rl.cpp, rl.h): a trainer pool of c.count devices and, beside it, a rollout pool of
// rollout_replicas vLLM replicas of replica_devices each; one synchronous step generates the step's rollouts, trains on
// them and sends the new weights to every replica. OpenRLHF's train_ppo_ray runs exactly that when nothing is colocated:
// the actor on actor.num_nodes x actor.num_gpus_per_node devices, vllm.num_engines engines of vllm.tensor_parallel_size,
// and a broadcast to the engines after each step. REINFORCE++ (estimator reinforce), a KL coefficient of 0 and a reward
// function keep it to the two models the plan counts: no critic, no reference model and no reward model on the devices.
void rl_openrlhf(RunIt& r, const Workload& w, const Catalog& cat, const Candidate& c, const Device& d) {
    const auto tools = recorded_tools(r, cat, {"openrlhf-train-ppo-ray"});
    if (tools.empty()) return;
    const ToolInterface* tool = tools[0];
    const RlPools& rl = c.rl;
    if (!rl.sized) {
        r.reason = "the RL pools were not sized" + (rl.explanation.empty() ? std::string() : ": " + rl.explanation);
        return;
    }
    const ServeShape sh = serve_shape(w);
    const Layout& l = c.layout;
    const int trainers = rl.trainer_devices;
    const NodeSize node = node_size(d);
    const int per_node = std::min(trainers, node.devices);
    const int nodes = (trainers + per_node - 1) / per_node;
    const double rollouts = std::max(1.0, std::ceil(sh.users));        // sequences a step (plan_rl.cpp: job.rollouts)
    const int micro = std::max(1, l.micro_batch);
    const double step_tokens = rollouts * (sh.prompt + sh.output);
    const double steps = w.train.tokens > 0 ? std::ceil(w.train.tokens / step_tokens) : 0;
    auto write = [&](double run_steps) {
        CommandLine s{"python3 -m openrlhf.cli.train_ppo_ray"};
        s.add("--actor.num_nodes", num(nodes));
        s.add("--actor.num_gpus_per_node", num(per_node));
        s.add("--vllm.num_engines", num(rl.rollout_replicas));
        s.add("--vllm.tensor_parallel_size", num(rl.replica_devices));
        s.add("--actor.model_name_or_path", "\"$MODEL\"");
        s.add("--data.prompt_dataset", "\"$PROMPTS\"");
        s.add("--reward.remote_url", "\"$REWARD\"");
        s.add("--algo.advantage.estimator", "reinforce");
        s.add("--algo.kl.init_coef", "0");
        s.add("--rollout.batch_size", num(rollouts));
        s.add("--rollout.n_samples_per_prompt", "1");
        s.add("--rollout.max_new_tokens", num(sh.output));
        s.add("--data.max_len", num(sh.prompt + sh.output));
        s.add("--rollout.micro_batch_size", num(micro));
        // One optimizer step a RL step: the plan trains once on all of the step's rollouts (plan_rl.cpp: train_s).
        s.add("--train.batch_size", num(rollouts));
        s.add("--train.micro_batch_size", num(micro));
        s.add("--train.max_epochs", "1");
        s.add("--ds.zero_stage", num(l.zero_stage));
        s.add("--ds.param_dtype", w.precision.compute == "fp16" ? "fp16" : "bf16");
        if (l.tensor_parallel > 1) s.add("--ds.tensor_parallel_size", num(l.tensor_parallel));
        if (l.context_parallel > 1) s.add("--ds.ring_attn_size", num(l.context_parallel));
        if (l.recompute != Checkpointing::none) s.add("--actor.gradient_checkpointing_enable");
        if (w.train.cpu_offload) s.add("--ds.adam_offload");
        if (run_steps > 0) s.add("--data.max_samples", num(run_steps * rollouts));
        s.add("--logger.logging_steps", "1");
        return s.text();
    };
    r.deploy.push_back(command(*tool, "RL with the planned pools: " + std::to_string(trainers) + " trainer devices and " + std::to_string(rl.rollout_replicas) +
                                          " rollout engines of " + std::to_string(rl.replica_devices) + (steps > 0 ? " (" + num(steps) + " steps)" : ""),
                               write(steps)));
    r.measure.push_back(command(*tool, "the same pools for " + std::to_string(kRlMeasureSteps) + " steps", write(kRlMeasureSteps)));
    // train_step() and fit() time each phase of a step in seconds and log them on the "Global step" line.
    auto line = [&](const char* metric, const char* figure, double value, const std::string& note) {
        if (value > 0) r.predicted.push_back({metric, figure, value, value, value, "s", false, note});
    };
    line("timing/generation", "rl.generation_s", rl.generation_s,
         std::to_string(rl.rollout_replicas) + " engines each generating " + format_sig(rl.rollouts_per_replica, 4) + " rollouts of " + num(sh.output) + " tokens");
    line("timing/ppo_train", "rl.train_s", rl.train_s, "the trainer's pass over the step's " + format_sig(step_tokens, 4) + " tokens");
    line("timing/broadcast", "rl.sync_s", rl.sync_s, "the new weights to every engine");
    predict(r, c, "rl_step_s", "timing/step_total", 1, "s",
            "generation + training + weight sync; OpenRLHF's total also holds timing/make_experience (the rollouts' log-probabilities and "
            "rewards), which the plan does not count");
    r.notes.push_back("Set MODEL to the Hugging Face id or local path of " + w.model.model.name + ", PROMPTS to your prompt dataset and REWARD to a "
                      "Python file with reward_func (a verifiable reward; a reward model would take devices the plan does not count).");
    r.notes.push_back("Start a Ray cluster over the " + std::to_string(trainers + rl.rollout_devices) + " devices (ray start --head on one node, ray start "
                      "--address on the others) and run the command on its head node. " + node_note(node, "--actor.num_gpus_per_node"));
    if (trainers % per_node != 0)
        r.notes.push_back("The trainer pool's " + std::to_string(trainers) + " devices are not whole nodes of " + std::to_string(per_node) +
                          ": OpenRLHF places actor.num_nodes x actor.num_gpus_per_node, so the command asks for " + std::to_string(nodes * per_node) + ".");
    if (l.pipeline_parallel > 1 || l.expert_parallel > 1)
        r.notes.push_back("OpenRLHF's DeepSpeed actor has no pipeline or expert parallelism: the planned PP " + std::to_string(l.pipeline_parallel) + " and EP " +
                          std::to_string(l.expert_parallel) + " are not in the command, so the trainer will hold more per device than planned.");
    const int shards = std::max(1, trainers / std::max(1, l.tensor_parallel * l.context_parallel));
    if (std::fmod(rollouts, double(micro) * shards) != 0)
        r.notes.push_back("--train.batch_size (" + num(rollouts) + ") is not a multiple of the micro-batch x the actor's " + std::to_string(shards) +
                          " data-parallel ranks, which DeepSpeed requires: raise --rollout.batch_size and --train.batch_size together to the next multiple.");
}

// [SECTION] Checking a command against a chosen release ----------------------------------------------------------

std::string strip_quotes(std::string v) {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return v;
}

// A JSON config's leaves as (dotted path, value as text): {"zero_optimization": {"stage": 2}} -> ("zero_optimization.stage", "2").
void json_leaves(const nlohmann::json& j, const std::string& path, std::vector<std::pair<std::string, std::string>>& out) {
    if (j.is_object()) {
        for (const auto& [k, v] : j.items()) json_leaves(v, path.empty() ? k : path + "." + k, out);
        return;
    }
    out.push_back({path, j.is_string() ? j.get<std::string>() : j.dump()});
}

// (flag or key, value) pairs of a command line (continuations joined, double-quoted words kept whole) or a TOML or
// JSON file.
std::vector<std::pair<std::string, std::string>> used_flags(const RunCommand& c, const ToolInterface& t) {
    std::vector<std::pair<std::string, std::string>> out;
    if (!c.file.empty() && t.syntax == "json") {
        const nlohmann::json j = nlohmann::json::parse(c.text, nullptr, false);
        if (!j.is_discarded()) json_leaves(j, "", out);
        return out;
    }
    if (!c.file.empty() && t.syntax == "yaml") {
        // Block mappings by indentation: "kv_cache_config:" then "  dtype: fp8" -> ("kv_cache_config.dtype", "fp8").
        std::vector<std::pair<size_t, std::string>> parents; // (indent, key)
        std::string line;
        std::istringstream in(c.text);
        while (std::getline(in, line)) {
            const auto first = line.find_first_not_of(' ');
            if (first == std::string::npos || line[first] == '#') continue;
            const auto colon = line.find(':', first);
            if (colon == std::string::npos) continue;
            while (!parents.empty() && parents.back().first >= first) parents.pop_back();
            std::string path;
            for (const auto& p : parents) path += p.second + ".";
            const std::string key = line.substr(first, colon - first);
            const auto v = line.find_first_not_of(' ', colon + 1);
            if (v == std::string::npos) parents.push_back({first, key});
            else out.push_back({path + key, strip_quotes(line.substr(v))});
        }
        return out;
    }
    if (!c.file.empty() && t.syntax == "toml") {
        std::string section, line;
        std::istringstream in(c.text);
        while (std::getline(in, line)) {
            const auto first = line.find_first_not_of(' ');
            if (first == std::string::npos || line[first] == '#') continue;
            if (line[first] == '[') {
                section = line.substr(first + 1, line.find(']') - first - 1);
                continue;
            }
            const auto eq = line.find(" = ");
            if (eq != std::string::npos) out.push_back({section + "." + line.substr(first, eq - first), strip_quotes(line.substr(eq + 3))});
        }
        return out;
    }
    // The program's own words ("python -m sglang.launch_server") are not flags: the text without them.
    std::string text = c.text;
    if (const auto at = text.find(t.program); !t.program.empty() && at != std::string::npos) text.erase(at, t.program.size());
    std::vector<std::string> words;
    std::string w;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (ch == '\\' && i + 1 < text.size() && text[i + 1] == '\n') { ++i; continue; }
        if (ch == '"') quoted = !quoted;
        if (!quoted && (ch == ' ' || ch == '\n')) {
            if (!w.empty()) words.push_back(w);
            w.clear();
        } else {
            w += ch;
        }
    }
    if (!w.empty()) words.push_back(w);
    auto is_flag = [](const std::string& x) { return x.size() > 1 && x[0] == '-' && !std::isdigit(static_cast<unsigned char>(x[1])); };
    for (size_t i = 0; i < words.size(); ++i) {
        if (is_flag(words[i])) {
            const bool valued = i + 1 < words.size() && !is_flag(words[i + 1]) && words[i + 1].find('=') == std::string::npos;
            out.push_back({words[i], valued ? strip_quotes(words[i + 1]) : ""});
            if (valued) ++i;
        } else if (const auto eq = words[i].find('='); eq != std::string::npos && eq > 0 && words[i][0] != '"') {
            out.push_back({words[i].substr(0, eq), strip_quotes(words[i].substr(eq + 1))});
        }
    }
    return out;
}

const Candidate* candidate_on(const Plan& p, const std::string& device) {
    for (const auto& c : p.candidates)
        if (c.device == device) return &c;
    return nullptr;
}

} // namespace

const ToolInterface* find_tool_release(const Catalog& cat, const std::string& id, const std::string& release) {
    if (const ToolInterface* t = cat.find_tool(id + "@" + release)) return t;
    const ToolInterface* t = cat.find_tool(id);
    return t && t->release.rfind(release, 0) == 0 ? t : nullptr;
}

std::vector<std::string> unrecorded_flags(const RunCommand& c, const ToolInterface& t) {
    std::vector<std::string> out;
    for (const auto& [flag, value] : used_flags(c, t)) {
        const ToolFlag* f = t.flag(flag);
        std::string miss = !f ? flag : !f->values.empty() && !has(f->values, value) ? flag + " " + value : "";
        if (!miss.empty() && !has(out, miss)) out.push_back(miss);
    }
    return out;
}

namespace {

// The commands of tools with a chosen release: that release's id and name, and what it does not record.
void check_releases(RunIt& r, const Catalog& cat, const RunItOptions& options) {
    for (const auto& [id, release] : options.releases) {
        bool used = false;
        for (auto* list : {&r.deploy, &r.measure})
            for (auto& c : *list) {
                if (c.tool != id) continue;
                used = true;
                const ToolInterface* t = find_tool_release(cat, id, release);
                if (!t) continue;
                c.tool = t->id;
                c.release = t->release;
                c.unrecorded = unrecorded_flags(c, *t);
                if (!c.unrecorded.empty()) {
                    std::string names;
                    for (const auto& u : c.unrecorded) names += (names.empty() ? "" : ", ") + u;
                    r.notes.push_back(id + " " + t->release + " does not record " + names + " (" + c.what + "): written for the current release, "
                                      "so change or drop it for yours.");
                }
            }
        if (!used) continue;
        if (!find_tool_release(cat, id, release)) {
            std::string known;
            for (const auto& t : cat.tools)
                if (t.id == id || t.id.rfind(id + "@", 0) == 0) known += (known.empty() ? "" : ", ") + t.release;
            r.notes.push_back("no release \"" + release + "\" of " + id + " is recorded in catalog/tools.json (recorded: " + known +
                              "); the commands are checked against the current one.");
        }
    }
}

} // namespace

// [SECTION] The run section ---------------------------------------------------------------------------------

RunIt run_it(const Plan& p, const Workload& w, const Catalog& cat, const std::string& device, const RunItOptions& options) {
    RunIt r;
    const Candidate* c = nullptr;
    int total = 0;
    if (device.empty()) {
        if (!p.recommendation.found) {
            r.reason = "no option is recommended, so there is nothing to run yet; ask for one candidate with --device";
            return r;
        }
        const Option& o = p.recommendation.option;
        r.option = o.name;
        if (o.kind == "api") {
            // The catalog's API entries record price lists, not API endpoints, so no entry point is given.
            r.reason = "a hosted API (" + o.name + "): the provider runs it, so there is nothing to deploy; call its API. The catalog "
                       "records the provider's prices, not its API's entry point";
            return r;
        }
        c = candidate_on(p, o.device);
        total = o.count;
    } else {
        c = candidate_on(p, device);
        if (!c) {
            r.reason = "no candidate on device \"" + device + "\" in this plan";
            return r;
        }
        r.option = c->device_name;
        total = c->count;
    }
    if (!c) {
        r.reason = "the recommended option's device has no candidate in the plan";
        return r;
    }
    r.device = c->device;
    r.count = total;
    const Device* d = cat.device_by_id(c->device);
    if (!d) {
        r.reason = "device \"" + c->device + "\" is not in the catalog";
        return r;
    }
    if (!c->fits) r.notes.push_back("This candidate does not fit as planned; the commands show its layout, which will run out of memory.");
    switch (w.stage) {
    case Stage::serve:
    case Stage::batch:
    case Stage::edge: {
        // The option's own replicas (a bought fleet may hold idle devices beyond them); a device asked for: its count.
        const int replicas = device.empty() ? std::max(1, p.recommendation.option.replicas) : std::max(1, total / replica_devices(*c));
        switch (serving_runner(w, *d)) {
        case Runner::vllm: serve_vllm(r, w, cat, *c, *d, replicas); break;
        case Runner::sglang: serve_sglang(r, w, cat, *c, *d, replicas); break;
        case Runner::trtllm: serve_trtllm(r, w, cat, *c, *d, replicas); break;
        case Runner::mlx: serve_mlx(r, w, cat, *c); break;
        case Runner::llama_cpp: serve_llama_cpp(r, w, cat, *c); break;
        case Runner::none:
            r.reason = d->kind == DeviceKind::sram_system
                           ? d->name + " runs models in its maker's own service; hwplan records no command for it"
                           : "no deploy tool recorded in catalog/tools.json runs on " + d->name + " (its software: " +
                                 [&] { std::string s; for (const auto& x : d->software) s += (s.empty() ? "" : ", ") + x; return s; }() + ")";
            break;
        }
        break;
    }
    case Stage::pretrain: pretrain(r, w, cat, *c, *d); break;
    case Stage::finetune: finetune(r, w, cat, *c, *d); break;
    case Stage::embed:
        if (has(d->software, "vllm") && engine_device(*d)) embed_vllm(r, w, cat, *c, *d);
        else
            r.reason = "the embedding server recorded in catalog/tools.json (vLLM's pooling runner) needs a GPU with CUDA or ROCm that runs vLLM; " +
                       d->name + " is not one";
        break;
    case Stage::rl: rl_openrlhf(r, w, cat, *c, *d); break;
    }
    r.available = r.reason.empty() && !r.deploy.empty();
    if (!r.available) {
        r.deploy.clear();
        r.measure.clear();
        r.predicted.clear();
        r.setup = {};
    }
    check_releases(r, cat, options);
    return r;
}

std::string run_text(const RunIt& r) {
    std::string s = "Run it: " + (r.option.empty() ? r.device : r.option) + "\n";
    if (!r.available) {
        s += "No command: " + r.reason + "\n";
        if (!r.entry_point.empty()) s += "Entry point: " + r.entry_point + "\n";
        return s;
    }
    auto block = [&](const char* title, const std::vector<RunCommand>& cmds) {
        s += std::string("\n") + title + "\n";
        for (const auto& c : cmds) {
            s += "# " + c.what + " (" + c.tool + ", " + c.release + ")" + (c.file.empty() ? "" : ": write " + c.file) + "\n";
            if (!c.unrecorded.empty()) {
                s += "# not recorded for " + c.release + ":";
                for (const auto& u : c.unrecorded) s += " " + u;
                s += "\n";
            }
            s += c.text + (c.text.empty() || c.text.back() == '\n' ? "" : "\n");
        }
    };
    block("Deploy", r.deploy);
    block("Measure", r.measure);
    s += "\nPredicted (what the benchmark should print)\n";
    for (const auto& p : r.predicted) {
        s += "  " + p.metric + ": " + format_sig(p.value, 4);
        if (p.banded) s += " (" + format_sig(p.low, 3) + " .. " + format_sig(p.high, 3) + ")";
        s += "\n";
        if (!p.note.empty()) s += "      " + p.note + "\n";
    }
    if (!r.notes.empty()) {
        s += "\nNotes\n";
        for (const auto& n : r.notes) s += "  - " + n + "\n";
    }
    return s;
}

} // namespace hwplan
