// workload.cpp: the workload's JSON form (docs/workload.md) into a Workload, validating as it reads.
// Every problem is an Issue with the dotted path and the reason; nothing is clamped silently.
#include "hwplan/workload.h"

#include <algorithm>
#include <cmath>

#include "hwplan/memory.h"
#include "hwplan/precision.h"
#include "json_reader.h"

namespace hwplan {

// The enum-backed lists follow their enums' order (Stage, TrainMethod, Optimizer, Checkpointing, Priority):
// name() and the reader index them.
const WorkloadChoices& workload_choices() {
    static const WorkloadChoices choices{
        .stage = {"serve", "batch", "embed", "finetune", "pretrain", "rl", "edge"},
        .train_method = {"full", "lora", "qlora"},
        .train_optimizer = {"adamw", "adamw_fp32", "adamw_8bit", "sgd", "adafactor"},
        .train_checkpointing = {"none", "selective", "full"},
        .decision_priority = {"unit_cost", "per_user_speed", "latency", "simplest"},
        .decision_stack = {"pytorch-cuda", "pytorch-rocm", "jax-xla", "aws-neuron", "intel-gaudi", "mlx-metal", "llama.cpp", "any"},
        .decision_site = {"own_datacenter", "cloud", "gcp", "aws", "azure", "desk", "office", "robot", "phone"},
        .decision_redundancy = {"none", "n+1"},
        .framework = {"cuda", "rocm", "xla", "jax", "pytorch", "pytorch-xla", "tensorrt-llm", "vllm", "sglang", "metal", "mps", "mlx",
                      "llama.cpp", "llama.cpp-vulkan", "neuron", "openvino", "onnxruntime", "qnn", "coreml", "groqcloud",
                      "cerebras-sdk", "synapseai", "axolotl", "llama-factory", "torchtune"},
        .serve_decode_attention = {"per_kv_head", "per_query_head"},
        .serve_scale_up_topology = {"fully_connected", "hybrid_cube_mesh"},
        .train_attention = {"sdpa", "eager"},
        .train_lora_targets = {"all", "query-value", "query-key-value"},
    };
    return choices;
}

namespace {

using namespace detail;

template <class E> E index_of(const std::vector<std::string>& names, const std::string& s) {
    return static_cast<E>(std::find(names.begin(), names.end(), s) - names.begin());
}

// Reads an optional number into `out` and notes the key as given.
void opt_number(Reader& r, const std::string& key, double lo, double hi, double& out, Workload& w) {
    if (auto v = r.number(key, false, lo, hi)) {
        out = *v;
        w.given.push_back(r.at(key));
    }
}

// Reads an optional whole number (a count of users, sequences, a rank) into `out`.
void opt_whole(Reader& r, const std::string& key, double lo, double hi, double& out, Workload& w) {
    if (auto v = r.whole(key, false, lo, hi)) {
        out = *v;
        w.given.push_back(r.at(key));
    }
}

// An optional number that is either 0 (none) or in [lo, hi]: a rate or a price that divides another
// figure, where a positive value below `lo` (5e-324 was seen) would overflow costs to infinity.
void opt_zero_or(Reader& r, const std::string& key, double lo, double hi, double& out, Workload& w) {
    auto v = r.number(key, false, 0, hi);
    if (v && *v > 0 && *v < lo) {
        r.error(key, "implausible value " + format_sig(*v, 6) + "; expected 0 or " + format_sig(lo, 6) + " to " + format_sig(hi, 6));
        return;
    }
    if (v) {
        out = *v;
        w.given.push_back(r.at(key));
    }
}

// Lists longer than any real workload needs are refused before each entry is resolved (a name lookup
// compares against every catalog name): this keeps one pasted mistake from costing seconds.
constexpr size_t kMaxListEntries = 256;

// [SECTION] A size-only model's shape ----------------------------------------------------------------------

// The presets whose shapes stand in for a model given only by its size: one family, Meta's Llama 3.x dense
// decoders, ordered by size. Along it every figure the shape feeds grows with the size (each file's
// config.json, cited in catalog/models/): layers 16, 28, 32, 80, 126; hidden 2048, 3072, 4096, 8192, 16384;
// intermediate 8192, 8192, 14336, 28672, 53248; KV cache per token 2 x layers x 8 KV heads x head_dim
// (64, then 128) = 16,384, 57,344, 65,536, 163,840, 258,048 values; one vocabulary (128,256). So more
// parameters never borrow a smaller KV cache or smaller activations (issue 12's invariant). Borrowing the
// nearest preset of the whole catalog did not hold it: 5.05e9 parameters took a full multi-head shape and
// 1.01e10 a grouped-query one, and the KV cache fell from 3.56 to 1.91 GB.
// tests/invariants_test.cpp checks that the borrowed KV cache per token and sizes never fall as params grow.
constexpr const char* kSizeOnlyShapeLadder[] = {"llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"};

// The ladder's preset closest to `params` (log distance; the nearest point of a sorted ladder, so the
// choice never steps down as params grow). Null if the catalog lacks every preset of the ladder.
const Model* closest_shape(const Catalog& catalog, double params) {
    const Model* best = nullptr;
    double best_d = 1e300;
    for (const char* id : kSizeOnlyShapeLadder) {
        const auto it = std::find_if(catalog.models.begin(), catalog.models.end(), [&](const Model& m) { return m.id == id; });
        if (it == catalog.models.end()) continue;
        const double d = std::fabs(std::log(it->published_params / params));
        if (d < best_d) {
            best_d = d;
            best = &*it;
        }
    }
    return best;
}

void read_model(Reader& r, const Catalog& catalog, Workload& w) {
    const json* v = r.raw("model");
    auto& spec = w.model;
    if (!v) {
        r.error("model", "required field is missing (a catalog model name, or {\"params\": N}, or an architecture)");
        return;
    }
    if (v->is_string()) {
        auto res = resolve_model(catalog, v->get<std::string>());
        if (!res.item) {
            r.error("model", res.issue.message);
            return;
        }
        spec.model = *res.item;
        spec.from_catalog = true;
        const auto c = derive_params(spec.model.arch, spec.model.extra_params);
        spec.params = c.total;
        spec.active_params = c.active;
        return;
    }
    if (!v->is_object()) {
        r.error("model", "expected a model name or an object, got " + type_name(*v));
        return;
    }
    Reader m(r.ctx(), r.at("model"), *v);
    auto params = m.number("params", true, 1e5, 1e14);
    const bool arch_given = v->contains("layers") || v->contains("hidden") || v->contains("heads");
    if (!arch_given) {
        m.finish();
        if (!params) return;
        spec.size_only = true;
        spec.params = spec.active_params = *params;
        const Model* shape = closest_shape(catalog, *params);
        if (!shape) {
            r.error("model", "only a size was given and the catalog has none of the Llama 3.x presets (llama-3.2-1b ... llama-3.1-405b) "
                            "whose shape stands in for its KV cache and activations; give layers, hidden and heads too");
            return;
        }
        spec.model = *shape;
        spec.model.id = "custom";
        spec.model.name = "Custom model (" + format_sig(*params / 1e9, 3) + "B parameters)";
        spec.model.published_params = *params;
        spec.shape_from = shape->id;
        return;
    }
    ModelArch& a = spec.model.arch;
    a.layers = m.integer("layers", true, 1, 1000).value_or(0);
    a.hidden = m.integer("hidden", true, 16, 1000000).value_or(0);
    a.heads = m.integer("heads", true, 1, 10000).value_or(0);
    a.kv_heads = m.integer("kv_heads", false, 1, 10000).value_or(a.heads);
    a.head_dim = m.integer("head_dim", false, 1, 10000).value_or(a.heads > 0 ? a.hidden / a.heads : 0);
    a.intermediate = m.integer("intermediate", false, 1, 10000000).value_or(4 * a.hidden);
    a.vocab = m.integer("vocab", false, 1, 10000000).value_or(32000);
    // The MLP's kind (catalog/README.md "mlp"): gated (SwiGLU/GeGLU, three matrices; the default, as in every
    // catalog LLM) or plain (GELU, two: GPT, BLOOM, MPT).
    if (auto mlp = m.choice("mlp", false, {"gated", "plain"})) a.mlp = *mlp == "plain" ? MlpKind::plain : MlpKind::gated;
    a.max_context = m.integer("max_context", false, 1, 100000000).value_or(0);
    a.attention_layers = {{AttentionKind::full, a.layers, 0}};
    if (auto window = m.integer("sliding_window", false, 1, 100000000)) a.attention_layers[0] = {AttentionKind::sliding, a.layers, *window};
    auto experts = m.integer("experts", false, 2, 100000);
    auto active_experts = m.integer("active_experts", false, 1, 100000);
    auto active_params = m.number("active_params", false, 1e5, 1e14);
    m.finish();
    if (a.heads > 0 && a.hidden > 0 && !v->contains("head_dim") && a.hidden / a.heads == 0)
        m.error("heads", "cannot exceed hidden (" + std::to_string(a.hidden) + ") unless head_dim is given: each head needs a dimension");
    if (a.attention_layers[0].kind == AttentionKind::sliding && a.max_context == 0 && !v->contains("max_context"))
        m.error("max_context", "required with sliding_window: when every layer has a window the cache no longer bounds the context");
    if (a.kv_heads > a.heads) m.error("kv_heads", "cannot exceed heads (" + std::to_string(a.heads) + ")");
    if (experts.has_value() != active_experts.has_value())
        m.error(experts ? "active_experts" : "experts", "experts and active_experts go together");
    if (experts && active_experts) {
        if (*active_experts > *experts) m.error("active_experts", "cannot exceed experts (" + std::to_string(*experts) + ")");
        a.has_moe = true;
        a.moe = {.experts = *experts, .active_experts = *active_experts, .expert_intermediate = a.intermediate};
        // The routed experts alone (gated MLP: 3 x hidden x intermediate each, per layer; as plan_facts.cpp's
        // weight split counts them) must fit inside the stated total.
        const double per_expert = (a.mlp == MlpKind::gated ? 3.0 : 2.0) * a.hidden * double(a.intermediate);
        const double routed = per_expert * *experts * a.layers;
        if (params && routed > *params)
            m.error("experts", std::to_string(*experts) + " experts of " + format_count(per_expert) + " parameters in " +
                                   std::to_string(a.layers) + " layers make " + format_count(routed) +
                                   " parameters, more than params (" + format_count(*params) + ")");
    }
    if (!params) return;
    spec.model.id = "custom";
    spec.model.name = "Custom model (" + format_sig(*params / 1e9, 3) + "B parameters)";
    spec.model.published_params = *params;
    spec.params = *params;
    const auto c = derive_params(a);
    spec.active_params = active_params ? *active_params : a.has_moe ? *params * c.active / c.total : *params;
    if (active_params && *active_params > *params) m.error("active_params", "cannot exceed params");
}

// "bf16" for everything, or {"weights", "kv_cache", "compute"}.
void read_precision(Reader& r, const Catalog& catalog, Workload& w) {
    const json* v = r.raw("precision");
    if (!v) return; // default bf16 throughout; listed as a missing assumption
    w.given.push_back("precision");
    auto check_weights = [&](const std::string& path, const std::string& name) {
        if (catalog.find_format(name)) return true;
        std::string list;
        for (const auto& f : catalog.formats) list += (list.empty() ? "" : ", ") + f.name;
        r.ctx().add(path, "unknown weight format " + quote_input(name) + "; expected one of " + list);
        return false;
    };
    auto check_numeric = [&](const std::string& path, const std::string& name) {
        if (parse_precision(name)) return true;
        r.ctx().add(path, "unknown precision " + quote_input(name) + "; expected one of " + precision_names());
        return false;
    };
    if (v->is_string()) {
        const std::string s = v->get<std::string>();
        if (!check_weights("precision", s)) return;
        w.precision.weights = catalog.find_format(s)->name;
        // A numeric format also sets the KV cache and compute; a quantized storage format (nf4, q4_k_m,
        // int4, int8) is dequantized to bf16 for compute and keeps a bf16 KV cache.
        const auto p = parse_precision(s);
        const bool numeric = p && (*p == Precision::fp32 || *p == Precision::bf16 || *p == Precision::fp16 || *p == Precision::fp8);
        w.precision.kv_cache = w.precision.compute = numeric ? std::string(name(*p)) : "bf16";
        return;
    }
    if (!v->is_object()) {
        r.error("precision", "expected a format name or an object {weights, kv_cache, compute}, got " + type_name(*v));
        return;
    }
    Reader p(r.ctx(), r.at("precision"), *v);
    if (auto s = p.string("weights", false); s && check_weights(p.at("weights"), *s)) w.precision.weights = catalog.find_format(*s)->name;
    if (auto s = p.string("kv_cache", false); s && check_numeric(p.at("kv_cache"), *s)) w.precision.kv_cache = std::string(name(*parse_precision(*s)));
    if (auto s = p.string("compute", false); s && check_numeric(p.at("compute"), *s)) w.precision.compute = std::string(name(*parse_precision(*s)));
    p.finish();
}

// A runtime profile named by its id ("runtime": "deepspeed"): one of the catalog's `profiles` (training, encoder
// or decode runtimes), else a named error listing the ids it knows. An empty id names none.
template <class Profile>
void read_runtime(Reader& r, const std::vector<Profile>& profiles, const std::string& kind, const std::string& given, std::string& out, Workload& w) {
    const auto rt = r.string("runtime", false);
    if (!rt) return;
    const auto named = rt->empty() ? profiles.end() : std::find_if(profiles.begin(), profiles.end(), [&](const Profile& p) { return p.id == *rt; });
    if (named != profiles.end()) {
        out = *rt;
        w.given.push_back(given);
        // A runtime that runs on one stack only says which stack the user means (decision.stack, when not given).
        if constexpr (requires { named->stack; })
            if (!named->stack.empty() && w.decision.implied_stack.empty()) {
                w.decision.implied_stack = named->stack;
                w.decision.implied_by = given + " " + *rt;
            }
        return;
    }
    std::string known;
    for (const auto& p : profiles) known += (known.empty() ? "" : ", ") + p.id;
    r.error("runtime", "unknown " + kind + " runtime \"" + *rt + "\"; expected one of " + (known.empty() ? "(none in the catalog)" : known));
}

void read_serve(Reader& r, const Catalog& catalog, Workload& w) {
    r.object("serve", false, [&](Reader& s) {
        auto& v = w.serve;
        opt_number(s, "context_tokens", 2, 1e8, v.context_tokens, w); // a prompt and an output of a token each
        opt_number(s, "prompt_tokens", 1, 1e8, v.prompt_tokens, w);
        opt_number(s, "output_tokens", 1, 1e8, v.output_tokens, w);
        opt_whole(s, "concurrent_users", 1, 1e7, v.concurrent_users, w);
        opt_number(s, "requests_per_s", 0, 1e6, v.requests_per_s, w);
        opt_number(s, "ttft_target_s", 1e-3, 3600, v.ttft_target_s, w);
        opt_number(s, "tokens_per_s_per_user_target", 1e-3, 1e5, v.tokens_per_s_per_user_target, w);
        opt_whole(s, "batch_size", 1, 1e6, v.batch_size, w);
        opt_whole(s, "tensor_parallel", 1, 1024, v.tensor_parallel, w);
        opt_whole(s, "requests", 1, 1e9, v.requests, w);
        opt_whole(s, "compiled_batch", 1, 1e6, v.compiled_batch, w);
        opt_whole(s, "compiled_sequence_tokens", 1, 1e8, v.compiled_sequence_tokens, w);
        if (auto da = s.choice("decode_attention", false, workload_choices().serve_decode_attention)) {
            v.decode_attention = *da;
            w.given.push_back("serve.decode_attention");
        }
        if (auto tp = s.choice("scale_up_topology", false, workload_choices().serve_scale_up_topology)) {
            v.scale_up_topology = *tp;
            w.given.push_back("serve.scale_up_topology");
        }
        read_runtime(s, catalog.decode_runtimes, "decode", "serve.runtime", v.runtime, w);
        if (auto o = s.boolean("closed_loop", false)) { v.closed_loop = *o; w.given.push_back("serve.closed_loop"); }
        const json* t = s.raw("traffic");
        if (t && !t->is_array()) s.error("traffic", "expected an array of traffic classes, got " + type_name(*t));
        if (t && t->is_array() && t->size() > kMaxListEntries)
            s.error("traffic", "has " + std::to_string(t->size()) + " classes; at most " + std::to_string(kMaxListEntries));
        else if (t && t->is_array()) {
            w.given.push_back(s.at("traffic"));
            for (size_t i = 0; i < t->size(); ++i) {
                const std::string path = s.at("traffic") + "[" + std::to_string(i) + "]";
                if (!(*t)[i].is_object()) {
                    s.ctx().add(path, "expected an object, got " + type_name((*t)[i]));
                    continue;
                }
                Reader c(s.ctx(), path, (*t)[i]);
                TrafficClass tc;
                tc.name = c.string("name", true).value_or("");
                tc.requests_per_s = c.number("requests_per_s", true, 1e-9, 1e6).value_or(0);
                tc.prompt_tokens = c.number("prompt_tokens", true, 1, 1e8).value_or(0);
                tc.output_tokens = c.number("output_tokens", true, 1, 1e8).value_or(0);
                c.finish();
                v.traffic.push_back(tc);
            }
        }
        if (v.prompt_tokens > v.context_tokens)
            s.error("prompt_tokens", "cannot exceed context_tokens (" + format_sig(v.context_tokens, 6) + ")");
        else if (v.prompt_tokens > 0 && v.output_tokens > 0 && v.prompt_tokens + v.output_tokens > v.context_tokens)
            s.error("output_tokens", "prompt_tokens + output_tokens (" + format_sig(v.prompt_tokens + v.output_tokens, 6) +
                                         ") exceed context_tokens (" + format_sig(v.context_tokens, 6) + ")");
        else if (v.output_tokens > v.context_tokens)
            s.error("output_tokens", "cannot exceed context_tokens (" + format_sig(v.context_tokens, 6) + ")");
    });
}

void read_train(Reader& r, const Catalog& catalog, Workload& w) {
    const WorkloadChoices& choices = workload_choices();
    r.object("train", false, [&](Reader& t) {
        auto& v = w.train;
        if (auto m = t.choice("method", false, choices.train_method)) { v.method = index_of<TrainMethod>(choices.train_method, *m); w.given.push_back("train.method"); }
        if (auto o = t.choice("optimizer", false, choices.train_optimizer)) { v.optimizer = index_of<Optimizer>(choices.train_optimizer, *o); w.given.push_back("train.optimizer"); }
        opt_whole(t, "lora_rank", 1, 4096, v.lora_rank, w);
        opt_number(t, "seq_len", 1, 1e7, v.seq_len, w);
        opt_whole(t, "micro_batch", 1, 1e5, v.micro_batch, w);
        opt_whole(t, "global_batch", 1, 1e8, v.global_batch, w);
        opt_number(t, "tokens", 1, 1e16, v.tokens, w);
        if (auto c = t.choice("checkpointing", false, choices.train_checkpointing)) { v.checkpointing = index_of<Checkpointing>(choices.train_checkpointing, *c); w.given.push_back("train.checkpointing"); }
        if (auto z = t.integer("zero_stage", false, 0, 3)) { v.zero_stage = *z; w.given.push_back("train.zero_stage"); }
        if (auto o = t.boolean("cpu_offload", false)) { v.cpu_offload = *o; w.given.push_back("train.cpu_offload"); }
        if (auto o = t.boolean("offload_activations", false)) { v.offload_activations = *o; w.given.push_back("train.offload_activations"); }
        if (auto o = t.boolean("compiled", false)) { v.compiled = *o; w.given.push_back("train.compiled"); }
        if (auto o = t.integer("offload_activation_layers", false, 0, 1000000)) {
            v.offload_activation_layers = *o;
            w.given.push_back("train.offload_activation_layers");
        }
        // MaxText's custom remat policy by its tensor names (maxtext-tutorial-v1.5.0 src/MaxText/configs/base.yml, remat_policy
        // 'custom': "select tensors from the following list to offload on host memory, rematerialize or save on device memory").
        t.object("remat_tensors", false, [&](Reader& r) {
            for (const std::string& n : maxtext_remat_tensor_names())
                if (auto c = r.choice(n, false, {"remat", "device", "offload"})) v.remat_tensors[n] = *c;
        });
        if (t.has("remat_tensors") && t.raw("remat_tensors")->is_object() && t.raw("remat_tensors")->empty())
            t.error("remat_tensors", "names no tensor; give at least one of MaxText's names (decoder_layer_input, query_proj, ...)");
        if (!v.remat_tensors.empty()) {
            auto is_given = [](const Workload& wl, const std::string& key) { return std::find(wl.given.begin(), wl.given.end(), key) != wl.given.end(); };
            w.given.push_back("train.remat_tensors");
            const std::string field = "remat_tensors";
            const auto input = v.remat_tensors.find("decoder_layer_input");
            const std::string where = input == v.remat_tensors.end() ? std::string("device") : input->second;
            if (where == "remat")
                t.error(field + ".decoder_layer_input", "cannot be \"remat\": MaxText's base.yml says this tensor \"cannot be rematerialized - it serves as "
                                                        "periodic checkpoints that act as the remat start points\"; give \"device\" or \"offload\"");
            else if (is_given(w, "train.checkpointing") && v.checkpointing != Checkpointing::full)
                t.error(field, "states MaxText's custom policy, which recomputes from each block's input (full recomputation less what it saves); "
                               "train.checkpointing \"" + std::string(name(v.checkpointing)) + "\" contradicts it: leave checkpointing out or give \"full\"");
            else if (v.offload_activation_layers > 0)
                t.error(field, "cannot be combined with train.offload_activation_layers (Megatron-Core's layer-wise offload without recomputation)");
            else if (is_given(w, "train.offload_activations") && v.offload_activations != (where == "offload"))
                t.error(field, std::string("decoder_layer_input \"") + where + "\" contradicts train.offload_activations " +
                                   (v.offload_activations ? "true" : "false") + ": the block inputs are the checkpoints it offloads; give one of them");
            else {
                v.checkpointing = Checkpointing::full;
                if (!is_given(w, "train.checkpointing")) w.given.push_back("train.checkpointing");
                v.offload_activations = where == "offload";
            }
        }
        // [runtime profile] (issue 9)
        read_runtime(t, catalog.training_runtimes, "training", "train.runtime", v.runtime, w);
        if (auto a = t.choice("attention", false, choices.train_attention)) { v.attention = *a; w.given.push_back("train.attention"); }
        if (auto g = t.choice("lora_targets", false, choices.train_lora_targets)) { v.lora_targets = *g; w.given.push_back("train.lora_targets"); }
        t.object("layout", false, [&](Reader& l) {
            auto pin = [&](const char* key, int& out) {
                if (auto n = l.integer(key, false, 1, 1000000)) {
                    out = *n;
                    w.given.push_back(l.at(key));
                }
            };
            pin("tensor_parallel", v.tensor_parallel);
            pin("pipeline_parallel", v.pipeline_parallel);
            pin("context_parallel", v.context_parallel);
            pin("expert_parallel", v.expert_parallel);
            pin("virtual_stages", v.virtual_stages);
            pin("micro_batch", v.layout_micro_batch);
        });
        // Layer-wise activation offload as Megatron-Core runs it (cpu_offloading_num_layers): what it refuses, the plan refuses,
        // naming the field. NVIDIA/Megatron-LM at d98e8a6, megatron/core/transformer/transformer_config.py __post_init__:
        // "CPU offloading can be done only for layers less than {num_layers}", "Currently there is no support for Pipeline
        // parallelism with CPU offloading", "CPU offloading does not work when activation recomputation is enabled"; and
        // NVIDIA/TransformerEngine at d0067d0, transformer_engine/pytorch/cpu_offload.py get_cpu_offload_context: "Cannot offload
        // all layers without manual synchronization - last layer is not offloaded".
        if (v.offload_activation_layers > 0) {
            const int layers = w.model.model.arch.layers;
            const TrainingRuntime* rt = v.runtime.empty() ? nullptr : catalog.find_runtime(v.runtime);
            const std::string field = "offload_activation_layers";
            if (w.stage != Stage::pretrain && w.stage != Stage::finetune)
                t.error(field, "applies to stages pretrain and finetune only: " + std::string(name(w.stage)) +
                                   " does not plan a trainer's saved activations layer by layer; remove it");
            else if (layers > 0 && v.offload_activation_layers >= layers)
                t.error(field, "is " + std::to_string(v.offload_activation_layers) + " but the model has " + std::to_string(layers) +
                                   " blocks: at most " + std::to_string(layers - 1) +
                                   " (the last block's activations stay on the device: Megatron-Core offloads only layers less than num_layers)");
            else if (v.checkpointing != Checkpointing::none)
                t.error(field, "cannot be combined with train.checkpointing \"" + std::string(name(v.checkpointing)) +
                                   "\": Megatron-Core refuses CPU offloading with activation recomputation; set checkpointing \"none\" or leave it out");
            else if (rt && !rt->recompute.empty() && rt->recompute != "none")
                t.error(field, "cannot be combined with train.runtime \"" + v.runtime + "\", which always recomputes (" + rt->recompute +
                                   "): Megatron-Core refuses CPU offloading with activation recomputation");
            else if (v.offload_activations)
                t.error(field, "cannot be combined with train.offload_activations, which offloads the checkpoints of full recomputation: "
                               "give one or the other");
            else if (v.pipeline_parallel > 1)
                t.error(field, "cannot be combined with train.layout.pipeline_parallel " + std::to_string(v.pipeline_parallel) +
                                   ": Megatron-Core has no pipeline parallelism with CPU offloading; pin pipeline_parallel 1 or leave it out");
        }
        // The routed experts' grouped GEMMs as a tiled kernel runs them (MaxText sparse_matmul: megablox gmm / tokamax
        // ragged_dot): the rows one call sees and its tile, rows x contraction x output (performance.h grouped_gemm_tile_factor).
        t.object("grouped_gemm", false, [&](Reader& r) {
            v.grouped_gemm_rows = r.number("rows", true, 1, 1e12).value_or(0);
            // Three calls a matrix (forward, dlhs, drhs), each [tile_m, tile_k, tile_n] of whole positive numbers.
            auto tiles = [&](const std::string& key, std::array<std::array<int, 3>, 3>& out) {
                const json* a = r.raw(key);
                if (!a) {
                    r.error(key, "required field is missing");
                    return;
                }
                bool ok = a->is_array() && a->size() == 3;
                for (size_t i = 0; ok && i < 3; ++i) {
                    const json& call = (*a)[i];
                    ok = call.is_array() && call.size() == 3;
                    for (size_t j = 0; ok && j < 3; ++j) {
                        ok = call[j].is_number() && call[j].get<double>() >= 1 && call[j].get<double>() <= 1e6 &&
                             call[j].get<double>() == std::floor(call[j].get<double>());
                        if (ok) out[i][j] = static_cast<int>(call[j].get<double>());
                    }
                }
                if (!ok)
                    r.error(key, "expected three tiles, forward, dlhs and drhs, each [tile_m, tile_k, tile_n] of whole numbers 1 to 1000000");
            };
            tiles("wi", v.grouped_gemm_wi);
            tiles("wo", v.grouped_gemm_wo);
        });
        if (v.grouped_gemm_rows > 0) w.given.push_back("train.grouped_gemm");
        // Only pretraining searches model-parallel layouts (plan_training.cpp train_points); a fine-tune or an RL trainer
        // is planned data parallel with ZeRO/FSDP sharding, so a pin there would be ignored: said, not dropped.
        if (t.raw("layout") && w.stage != Stage::pretrain)
            t.error("layout", "applies to stage pretrain only: " + std::string(name(w.stage)) +
                                  " is planned data parallel with ZeRO/FSDP sharding (train.zero_stage), without tensor, pipeline, "
                                  "context or expert parallelism; remove it");
    });
}

void read_embed(Reader& r, const Catalog& catalog, Workload& w) {
    r.object("embed", false, [&](Reader& e) {
        auto& v = w.embed;
        opt_number(e, "items", 1, 1e13, v.items, w);
        opt_number(e, "tokens_per_item", 1, 1e6, v.tokens_per_item, w);
        opt_number(e, "window_s", 1, 1e9, v.window_s, w);
        opt_whole(e, "batch_size", 1, 1e6, v.batch_size, w);
        read_runtime(e, catalog.encoder_runtimes, "encoder", "embed.runtime", v.runtime, w);
    });
}

void read_hardware(Reader& r, const Catalog& catalog, Workload& w) {
    r.object("hardware", false, [&](Reader& h) {
        const json* d = h.raw("devices");
        if (d && !d->is_array()) h.error("devices", "expected an array of device names, got " + type_name(*d));
        if (d && d->is_array() && d->size() > kMaxListEntries)
            h.error("devices", "names " + std::to_string(d->size()) + " devices; at most " + std::to_string(kMaxListEntries) +
                                   " (leave it out to consider every device)");
        else if (d && d->is_array()) {
            if (d->empty()) h.error("devices", "must name at least one device (leave it out to consider every device)");
            for (size_t i = 0; i < d->size(); ++i) {
                const std::string path = h.at("devices") + "[" + std::to_string(i) + "]";
                if (!(*d)[i].is_string()) {
                    h.ctx().add(path, "expected a device name, got " + type_name((*d)[i]));
                    continue;
                }
                auto res = resolve_device(catalog, (*d)[i].get<std::string>());
                if (!res.item) h.ctx().add(path, res.issue.message);
                else if (std::find(w.hardware.devices.begin(), w.hardware.devices.end(), res.item->id) == w.hardware.devices.end())
                    w.hardware.devices.push_back(res.item->id);
            }
            w.given.push_back("hardware.devices");
        }
        if (auto c = h.integer("count", false, 1, 1000000)) {
            w.hardware.count = *c;
            w.given.push_back("hardware.count");
        }
        // What the team already has: [{"device": "h100-sxm", "count": 8}, ...]; each device once.
        const json* o = h.raw("owned");
        if (o && !o->is_array()) h.error("owned", "expected an array of {\"device\", \"count\"} objects, got " + type_name(*o));
        else if (o && o->size() > kMaxListEntries)
            h.error("owned", "names " + std::to_string(o->size()) + " entries; at most " + std::to_string(kMaxListEntries));
        else if (o) {
            for (size_t i = 0; i < o->size(); ++i) {
                const std::string path = h.at("owned") + "[" + std::to_string(i) + "]";
                if (!(*o)[i].is_object()) {
                    h.ctx().add(path, "expected an object with device and count, got " + type_name((*o)[i]));
                    continue;
                }
                Reader e(h.ctx(), path, (*o)[i]);
                OwnedDevices od;
                if (auto name = e.string("device", true)) {
                    auto res = resolve_device(catalog, *name);
                    if (!res.item) h.ctx().add(e.at("device"), res.issue.message);
                    else od.device = res.item->id;
                }
                od.count = e.integer("count", true, 1, 1000000).value_or(0);
                e.finish();
                if (od.device.empty() || od.count <= 0) continue;
                const bool twice = std::any_of(w.hardware.owned.begin(), w.hardware.owned.end(), [&](const OwnedDevices& x) { return x.device == od.device; });
                if (twice) h.ctx().add(e.at("device"), "\"" + od.device + "\" is listed twice; give one entry with the total count");
                else w.hardware.owned.push_back(od);
            }
            if (!o->empty()) w.given.push_back("hardware.owned");
        }
    });
}

void read_usage_and_cost(Reader& r, Workload& w) {
    r.object("usage", false, [&](Reader& u) {
        opt_zero_or(u, "jobs_per_week", 1e-3, 1000, w.usage.jobs_per_week, w);
        opt_zero_or(u, "hours_per_job", 1e-3, 10000, w.usage.hours_per_job, w);
        opt_zero_or(u, "hours_per_month", 1e-3, 744, w.usage.hours_per_month, w);
    });
    r.object("cost", false, [&](Reader& c) {
        opt_zero_or(c, "usd_per_device_hour", 1e-3, 1e4, w.cost.usd_per_device_hour, w);
        opt_number(c, "utilization", 1e-3, 1, w.cost.utilization, w);
        opt_zero_or(c, "usd_per_kwh", 1e-3, 10, w.cost.usd_per_kwh, w);
        opt_number(c, "amortization_years", 0.25, 20, w.cost.amortization_years, w);
    });
}

// The decision block (lesson 004's inputs before price): each optional, each noted as given.
void read_decision(Reader& r, Workload& w) {
    const WorkloadChoices& choices = workload_choices();
    r.object("decision", false, [&](Reader& d) {
        auto& v = w.decision;
        if (auto p = d.choice("priority", false, choices.decision_priority)) { v.priority = index_of<Priority>(choices.decision_priority, *p); w.given.push_back("decision.priority"); }
        if (auto s = d.choice("stack", false, choices.decision_stack)) { v.stack = *s; w.given.push_back("decision.stack"); }
        if (auto s = d.choice("site", false, choices.decision_site)) { v.site = *s; w.given.push_back("decision.site"); }
        if (auto s = d.choice("redundancy", false, choices.decision_redundancy)) { v.spares = *s == "n+1" ? 1 : 0; w.given.push_back("decision.redundancy"); }
        opt_number(d, "budget_usd_per_month", 1, 1e10, v.budget_usd_per_month, w);
        opt_number(d, "purchase_budget_usd", 1, 1e12, v.purchase_budget_usd, w);
        opt_number(d, "deadline_days", 1e-3, 36500, v.deadline_days, w);
        // 1 W (a microcontroller-class module) to 1 GW (the largest announced AI campuses); 0 is "none", as absent.
        opt_zero_or(d, "power_budget_w", 1, 1e9, v.power_budget_w, w);
        if (auto b = d.boolean("data_on_premises", false)) { v.data_on_premises = *b; w.given.push_back("decision.data_on_premises"); }
        const bool remote = v.site == "cloud" || v.site == "gcp" || v.site == "aws" || v.site == "azure";
        if (v.data_on_premises && remote)
            d.error("data_on_premises", "cannot be true when site is \"" + v.site + "\" (a cloud is not your premises)");
    });
}

void read_assumption_overrides(Reader& r, Workload& w) {
    r.object("assumptions", false, [&](Reader& a) {
        for (const auto& [key, value] : a.json_value().items()) {
            a.raw(key);
            if (!value.is_number()) {
                a.error(key, "expected a number, got " + type_name(value));
                continue;
            }
            w.assumptions[key] = value.get<double>();
            w.given.push_back(a.at(key));
        }
    });
}

} // namespace

WorkloadParse parse_workload(const std::string& json_text, const Catalog& catalog) {
    WorkloadParse out;
    Context ctx{"", out.issues};
    auto doc = parse_object(json_text, ctx);
    if (!doc) return out;
    Workload& w = out.workload;
    Reader r(ctx, "", *doc);
    w.name = r.string("name", false).value_or("");
    if (auto s = r.choice("stage", true, workload_choices().stage)) w.stage = index_of<Stage>(workload_choices().stage, *s);
    read_model(r, catalog, w);
    read_precision(r, catalog, w);
    read_serve(r, catalog, w);
    read_train(r, catalog, w);
    read_embed(r, catalog, w);
    read_hardware(r, catalog, w);
    read_usage_and_cost(r, w);
    read_assumption_overrides(r, w);
    read_decision(r, w);
    r.object("card", false, [&](Reader& c) {
        w.card.data_source = c.string("data_source", false).value_or("");
        w.card.retry_plan = c.string("retry_plan", false).value_or("");
        w.card.observability = c.string("observability", false).value_or("");
        w.card.owner = c.string("owner", false).value_or("");
        w.given.push_back("card");
    });
    if (auto fw = r.choice("framework", false, workload_choices().framework)) {
        w.framework = *fw;
        w.given.push_back("framework");
    }
    r.finish();
    // FP4 GEMMs are an inference path here: no training recipe's FP4 casts and scaling are modelled.
    if (w.precision.compute == "fp4" && (w.stage == Stage::pretrain || w.stage == Stage::finetune || w.stage == Stage::rl))
        ctx.add("precision.compute", "fp4 compute is planned for inference stages only (serve, batch, edge, embed): training with FP4 "
                                     "GEMMs (NVFP4 recipes) is not modelled; use fp8 or bf16");
    // serve.tensor_parallel splits a given count into replicas of that many devices: it needs the count and must divide it.
    if (w.serve.tensor_parallel > 0) {
        if (w.hardware.count <= 0)
            ctx.add("serve.tensor_parallel", "needs hardware.count: it splits a given device count into replicas of " +
                                                 format_sig(w.serve.tensor_parallel, 6) + " devices");
        else if (std::fmod(double(w.hardware.count), w.serve.tensor_parallel) != 0)
            ctx.add("serve.tensor_parallel", "must divide hardware.count (" + std::to_string(w.hardware.count) + "), got " +
                                                 format_sig(w.serve.tensor_parallel, 6));
    }
    // serve.requests is an offline run's fixed request count: a served stream has no last request.
    if (w.serve.requests > 0 && w.stage != Stage::batch)
        ctx.add("serve.requests", "is the request count of an offline run (stage \"batch\"); stage \"" + std::string(name(w.stage)) +
                                      "\" serves a stream (give serve.requests_per_s instead)");
    if (w.model.from_catalog && w.model.model.kind == ModelKind::encoder && w.stage != Stage::embed)
        ctx.add("stage", "\"" + std::string(name(w.stage)) + "\" needs a generative model; " + w.model.model.id +
                             " is an encoder (use stage \"embed\")");
    return out;
}

std::string framework_runtime(const std::string& framework) {
    if (framework == "axolotl" || framework == "llama-factory" || framework == "torchtune") return "pytorch"; // fine-tuning tools on PyTorch
    return framework == "llama.cpp-vulkan" ? "llama.cpp" : framework;
}

std::string workload_to_json(const Workload& w) {
    auto given = [&](const std::string& k) { return std::find(w.given.begin(), w.given.end(), k) != w.given.end(); };
    json j;
    if (!w.name.empty()) j["name"] = w.name;
    j["stage"] = std::string(name(w.stage));
    if (w.model.from_catalog) {
        j["model"] = w.model.model.id;
    } else if (w.model.size_only) {
        j["model"] = {{"params", w.model.params}};
    } else {
        const auto& a = w.model.model.arch;
        json m{{"params", w.model.params}, {"layers", a.layers}, {"hidden", a.hidden}, {"heads", a.heads}, {"kv_heads", a.kv_heads},
               {"head_dim", a.head_dim}, {"intermediate", a.intermediate}, {"vocab", a.vocab}};
        if (a.max_context > 0) m["max_context"] = a.max_context;
        if (a.mlp == MlpKind::plain) m["mlp"] = "plain";
        if (!a.attention_layers.empty() && a.attention_layers[0].kind == AttentionKind::sliding) m["sliding_window"] = a.attention_layers[0].window;
        if (a.has_moe) {
            m["experts"] = a.moe.experts;
            m["active_experts"] = a.moe.active_experts;
            m["active_params"] = w.model.active_params;
        }
        j["model"] = m;
    }
    if (given("precision"))
        j["precision"] = {{"weights", w.precision.weights}, {"kv_cache", w.precision.kv_cache}, {"compute", w.precision.compute}};
    auto section = [&](const char* name, std::initializer_list<std::pair<const char*, double>> fields) {
        json o = json::object();
        for (const auto& [k, v] : fields)
            if (given(std::string(name) + "." + k)) o[k] = v;
        if (!o.empty()) j[name] = o;
    };
    section("serve", {{"context_tokens", w.serve.context_tokens}, {"prompt_tokens", w.serve.prompt_tokens},
                      {"output_tokens", w.serve.output_tokens}, {"concurrent_users", w.serve.concurrent_users},
                      {"requests_per_s", w.serve.requests_per_s}, {"ttft_target_s", w.serve.ttft_target_s},
                      {"tokens_per_s_per_user_target", w.serve.tokens_per_s_per_user_target}, {"batch_size", w.serve.batch_size},
                      {"tensor_parallel", w.serve.tensor_parallel}, {"requests", w.serve.requests}, {"compiled_batch", w.serve.compiled_batch},
                      {"compiled_sequence_tokens", w.serve.compiled_sequence_tokens}});
    if (!w.serve.traffic.empty()) {
        json t = json::array();
        for (const auto& c : w.serve.traffic)
            t.push_back({{"name", c.name}, {"requests_per_s", c.requests_per_s}, {"prompt_tokens", c.prompt_tokens}, {"output_tokens", c.output_tokens}});
        j["serve"]["traffic"] = t;
    }
    if (given("serve.decode_attention")) j["serve"]["decode_attention"] = w.serve.decode_attention;
    if (given("serve.scale_up_topology")) j["serve"]["scale_up_topology"] = w.serve.scale_up_topology;
    if (given("serve.runtime")) j["serve"]["runtime"] = w.serve.runtime;
    if (given("serve.closed_loop")) j["serve"]["closed_loop"] = w.serve.closed_loop;
    section("train", {{"lora_rank", w.train.lora_rank}, {"seq_len", w.train.seq_len}, {"micro_batch", w.train.micro_batch},
                      {"global_batch", w.train.global_batch}, {"tokens", w.train.tokens}});
    if (given("train.method")) j["train"]["method"] = std::string(name(w.train.method));
    if (given("train.optimizer")) j["train"]["optimizer"] = std::string(name(w.train.optimizer));
    if (given("train.checkpointing")) j["train"]["checkpointing"] = std::string(name(w.train.checkpointing));
    if (given("train.zero_stage")) j["train"]["zero_stage"] = w.train.zero_stage;
    if (given("train.cpu_offload")) j["train"]["cpu_offload"] = w.train.cpu_offload;
    if (given("train.offload_activations")) j["train"]["offload_activations"] = w.train.offload_activations;
    if (given("train.compiled")) j["train"]["compiled"] = w.train.compiled;
    if (given("train.remat_tensors"))
        for (const auto& [k, v] : w.train.remat_tensors) j["train"]["remat_tensors"][k] = v;
    if (given("train.grouped_gemm"))
    {
        json& g = j["train"]["grouped_gemm"];
        g["rows"] = w.train.grouped_gemm_rows;
        for (const auto& [key, tiles] : {std::pair<const char*, const std::array<std::array<int, 3>, 3>*>{"wi", &w.train.grouped_gemm_wi},
                                         {"wo", &w.train.grouped_gemm_wo}}) {
            json calls = json::array();
            for (const auto& call : *tiles) calls.push_back(json::array({call[0], call[1], call[2]}));
            g[key] = calls;
        }
    }
    if (given("train.offload_activation_layers")) j["train"]["offload_activation_layers"] = w.train.offload_activation_layers;
    if (given("train.runtime")) j["train"]["runtime"] = w.train.runtime;
    if (given("train.attention")) j["train"]["attention"] = w.train.attention;
    if (given("train.lora_targets")) j["train"]["lora_targets"] = w.train.lora_targets;
    for (const auto& [key, value] : {std::pair<const char*, int>{"tensor_parallel", w.train.tensor_parallel}, {"pipeline_parallel", w.train.pipeline_parallel},
                                     {"context_parallel", w.train.context_parallel}, {"expert_parallel", w.train.expert_parallel},
                                     {"virtual_stages", w.train.virtual_stages}, {"micro_batch", w.train.layout_micro_batch}})
        if (given(std::string("train.layout.") + key)) j["train"]["layout"][key] = value;
    section("embed", {{"items", w.embed.items}, {"tokens_per_item", w.embed.tokens_per_item}, {"window_s", w.embed.window_s},
                      {"batch_size", w.embed.batch_size}});
    if (given("embed.runtime")) j["embed"]["runtime"] = w.embed.runtime;
    if (!w.hardware.devices.empty()) j["hardware"]["devices"] = w.hardware.devices;
    if (w.hardware.count > 0) j["hardware"]["count"] = w.hardware.count;
    if (!w.hardware.owned.empty()) {
        json owned = json::array();
        for (const auto& o : w.hardware.owned) owned.push_back({{"device", o.device}, {"count", o.count}});
        j["hardware"]["owned"] = owned;
    }
    section("usage", {{"jobs_per_week", w.usage.jobs_per_week}, {"hours_per_job", w.usage.hours_per_job}, {"hours_per_month", w.usage.hours_per_month}});
    section("cost", {{"usd_per_device_hour", w.cost.usd_per_device_hour}, {"utilization", w.cost.utilization},
                     {"usd_per_kwh", w.cost.usd_per_kwh}, {"amortization_years", w.cost.amortization_years}});
    if (!w.framework.empty()) j["framework"] = w.framework;
    if (given("card")) {
        json c = json::object();
        if (!w.card.data_source.empty()) c["data_source"] = w.card.data_source;
        if (!w.card.retry_plan.empty()) c["retry_plan"] = w.card.retry_plan;
        if (!w.card.observability.empty()) c["observability"] = w.card.observability;
        if (!w.card.owner.empty()) c["owner"] = w.card.owner;
        j["card"] = c;
    }
    if (!w.assumptions.empty()) j["assumptions"] = w.assumptions;
    {
        json d = json::object();
        if (given("decision.priority")) d["priority"] = std::string(name(w.decision.priority));
        if (given("decision.stack")) d["stack"] = w.decision.stack;
        if (given("decision.site")) d["site"] = w.decision.site;
        if (given("decision.redundancy")) d["redundancy"] = w.decision.spares > 0 ? "n+1" : "none";
        if (given("decision.budget_usd_per_month")) d["budget_usd_per_month"] = w.decision.budget_usd_per_month;
        if (given("decision.purchase_budget_usd")) d["purchase_budget_usd"] = w.decision.purchase_budget_usd;
        if (given("decision.deadline_days")) d["deadline_days"] = w.decision.deadline_days;
        if (given("decision.power_budget_w")) d["power_budget_w"] = w.decision.power_budget_w;
        if (given("decision.data_on_premises")) d["data_on_premises"] = w.decision.data_on_premises;
        if (!d.empty()) j["decision"] = d;
    }
    return j.dump(2);
}

std::string_view name(Stage s) { return workload_choices().stage[static_cast<size_t>(s)]; }
std::string_view name(TrainMethod m) { return workload_choices().train_method[static_cast<size_t>(m)]; }
std::string_view name(Optimizer o) { return workload_choices().train_optimizer[static_cast<size_t>(o)]; }
std::string_view name(Checkpointing c) { return workload_choices().train_checkpointing[static_cast<size_t>(c)]; }
std::string_view name(Priority p) { return workload_choices().decision_priority[static_cast<size_t>(p)]; }

} // namespace hwplan
