// hf_config.cpp: a Hugging Face config.json read into a catalog model entry (hf_config.h). The meaning of each
// key and each model type's defaults follow transformers' configuration_<type>.py and modeling_<type>.py
// (LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, Qwen3Config, Qwen3MoeConfig, Gemma2Config,
// Gemma3TextConfig, DeepseekV3Config); the entry is then validated by the catalog's own model reader.
#include "hwplan/hf_config.h"

#include <algorithm>
#include <cmath>

#include "hwplan/catalog.h"
#include "hwplan/format.h"
#include "hwplan/guard.h"
#include "json_reader.h"

namespace hwplan {

namespace {

using namespace detail;

// [SECTION] model types ----------------------------------------------------------------------------

bool one_of(const std::string& s, std::initializer_list<const char*> list) {
    return std::any_of(list.begin(), list.end(), [&](const char* x) { return s == x; });
}
bool is_gemma(const std::string& t) { return one_of(t, {"gemma", "gemma2", "gemma3", "gemma3_text"}); }
bool is_qwen(const std::string& t) { return one_of(t, {"qwen2", "qwen2_moe", "qwen3", "qwen3_moe"}); }
// Model types whose blocks the catalog's architecture describes (decoder-only, pre-norm, rotary positions).
bool known_type(const std::string& t) {
    return one_of(t, {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3",
                      "gemma3_text", "phi3", "deepseek_v2", "deepseek_v3", "granite", "olmo2", "smollm3", "ministral"});
}
// Encoder and older decoder families with learned positions, LayerNorm and plain MLPs: the catalog's
// presets cover the encoders; a config of these is not read (its keys mean other things).
bool unsupported_type(const std::string& t) {
    return one_of(t, {"bert", "roberta", "xlm-roberta", "distilbert", "t5", "bart", "gpt2", "gpt_neox", "gptj", "opt", "bloom",
                      "falcon", "mpt", "mamba", "whisper", "clip", "vit"});
}

// "bfloat16" -> "bf16" (transformers' torch_dtype, or dtype since 4.56).
std::string precision_of(const std::string& dtype) {
    if (dtype == "bfloat16") return "bf16";
    if (dtype == "float16") return "fp16";
    if (dtype == "float32") return "fp32";
    return "";
}

// "meta-llama/Llama-3.1-8B" -> "llama-3.1-8b" (the catalog's id alphabet: a-z 0-9 . -).
std::string slug(const std::string& s) {
    std::string base = s.substr(s.find_last_of('/') == std::string::npos ? 0 : s.find_last_of('/') + 1);
    std::string out;
    for (char c : base) {
        const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '.') out += l;
        else if (!out.empty() && out.back() != '-') out += '-';
        if (out.size() >= 60) break;
    }
    while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
    while (!out.empty() && (out.front() == '-' || out.front() == '.')) out.erase(out.begin());
    return out;
}

// [SECTION] reading the keys ----------------------------------------------------------------------

// A key that may be null or absent (then `fallback`); otherwise an integer in [lo, hi].
std::optional<int> optional_int(Reader& r, const std::string& key, int lo, int hi) {
    const json* v = r.raw(key);
    if (!v || v->is_null()) return std::nullopt;
    return r.integer(key, true, lo, hi);
}

struct Arch {
    json entry;                     // the catalog "architecture" object
    bool moe = false;
    std::vector<std::string> notes;
};

// Attention runs: transformers' layer_types when given, else each family's rule for sliding windows.
void read_attention(Reader& r, const std::string& type, int layers, int max_context, Arch& out) {
    auto runs = json::array();
    auto add = [&](const char* kind, int count, int window) {
        if (count <= 0) return;
        json run = {{"kind", kind}, {"count", count}};
        if (window > 0) run["window"] = window;
        runs.push_back(run);
    };
    const bool latent = r.has("kv_lora_rank") && !r.json_value()["kv_lora_rank"].is_null();
    const auto window = optional_int(r, "sliding_window", 1, 100000000);
    if (latent) {
        add("latent", layers, 0);
    } else if (const json* types = r.raw("layer_types"); types && !types->is_null()) {
        int sliding = 0, full = 0;
        if (!types->is_array()) r.error("layer_types", "expected an array of \"full_attention\" / \"sliding_attention\", got " + type_name(*types));
        else
            for (size_t i = 0; i < types->size(); ++i) {
                const json& t = (*types)[i];
                if (t == "sliding_attention") ++sliding;
                else if (t == "full_attention") ++full;
                else r.ctx().add(r.at("layer_types") + "[" + std::to_string(i) + "]",
                                 "unsupported layer type " + (t.is_string() ? quote_input(t.get<std::string>()) : type_name(t)) +
                                     " (expected \"full_attention\" or \"sliding_attention\")");
            }
        if (types->is_array() && int(types->size()) != layers)
            r.error("layer_types", "lists " + std::to_string(types->size()) + " layers, but num_hidden_layers is " + std::to_string(layers));
        if (sliding > 0 && !window) r.error("sliding_window", "required when layer_types has sliding_attention layers");
        add("sliding", sliding, window.value_or(0));
        add("full", full, 0);
    } else if (type == "gemma2" && window) {
        // Gemma 2 alternates: even blocks (0, 2, ...) use the local window (modeling_gemma2.py, is_sliding = not bool(layer_idx % 2)).
        add("sliding", (layers + 1) / 2, *window);
        add("full", layers / 2, 0);
        out.notes.push_back("gemma2: every other block uses the " + std::to_string(*window) + "-token sliding window");
    } else if ((type == "gemma3" || type == "gemma3_text") && window) {
        // Gemma 3: one global block in every sliding_window_pattern (default 6): block i is global when (i + 1) % pattern == 0.
        const auto pattern = optional_int(r, "sliding_window_pattern", 1, 1000).value_or(6);
        add("sliding", layers - layers / pattern, *window);
        add("full", layers / pattern, 0);
        out.notes.push_back("gemma3: one global block in every " + std::to_string(pattern));
    } else if (is_qwen(type)) {
        // Qwen: the window applies only with use_sliding_window, and only to blocks from max_window_layers on.
        const json* use = r.raw("use_sliding_window");
        const bool on = use && use->is_boolean() && use->get<bool>();
        if (use && !use->is_boolean() && !use->is_null()) r.error("use_sliding_window", "expected true or false, got " + type_name(*use));
        const int from = optional_int(r, "max_window_layers", 0, 100000).value_or(layers);
        const int sliding = on && window ? std::max(0, layers - std::min(from, layers)) : 0;
        add("sliding", sliding, window.value_or(0));
        add("full", layers - sliding, 0);
    } else if (window && *window < max_context) {
        add("sliding", layers, *window); // Mistral 7B v0.1, Mixtral: every block, sliding_window tokens
    } else {
        add("full", layers, 0);
    }
    r.raw("use_sliding_window");
    r.raw("max_window_layers");
    out.entry["attention_layers"] = runs;
}

// Mixture of experts: Mixtral's num_local_experts, DeepSeek's n_routed_experts (+ n_shared_experts,
// first_k_dense_replace), Qwen's num_experts (+ shared_expert_intermediate_size, mlp_only_layers).
void read_moe(Reader& r, int layers, int intermediate, Arch& out) {
    std::string key;
    for (const char* k : {"num_local_experts", "n_routed_experts", "num_experts"})
        if (r.has(k) && !r.json_value()[k].is_null()) key = k;
    if (key.empty()) return;
    const int experts = r.integer(key, true, 2, 100000).value_or(0);
    const int active = r.integer("num_experts_per_tok", true, 1, 100000).value_or(0);
    const int width = optional_int(r, "moe_intermediate_size", 1, 10000000).value_or(intermediate);
    int shared = optional_int(r, "n_shared_experts", 0, 1000).value_or(0);
    int shared_width = 0;
    if (auto w = optional_int(r, "shared_expert_intermediate_size", 1, 10000000)) { // Qwen2-MoE: one shared expert of this width
        shared = std::max(shared, 1);
        shared_width = *w;
    }
    int dense = optional_int(r, "first_k_dense_replace", 0, 1000).value_or(0);
    if (const json* only = r.raw("mlp_only_layers"); only && only->is_array()) dense += int(only->size());
    if (auto step = optional_int(r, "decoder_sparse_step", 1, 1000); step && *step != 1)
        r.error("decoder_sparse_step", "only 1 (every block has experts) is supported, got " + std::to_string(*step));
    if (auto freq = optional_int(r, "moe_layer_freq", 1, 1000); freq && *freq != 1)
        r.error("moe_layer_freq", "only 1 (every block after the dense ones has experts) is supported, got " + std::to_string(*freq));
    if (active > experts && experts > 0) r.error("num_experts_per_tok", "cannot exceed " + key + " (" + std::to_string(experts) + ")");
    if (dense > layers) r.error("first_k_dense_replace", "cannot exceed num_hidden_layers (" + std::to_string(layers) + ")");
    json moe = {{"experts", experts}, {"active_experts", active}, {"shared_experts", shared}, {"expert_intermediate", width},
                {"dense_layers", dense}};
    if (shared_width > 0) moe["shared_expert_intermediate"] = shared_width;
    out.entry["moe"] = moe;
    out.moe = true;
}

// Multi-head latent attention (DeepSeek-V2/V3): kv_lora_rank and the per-head query, key and value widths.
void read_mla(Reader& r, Arch& out) {
    if (!r.has("kv_lora_rank") || r.json_value()["kv_lora_rank"].is_null()) return;
    json mla;
    mla["kv_lora_rank"] = r.integer("kv_lora_rank", true, 1, 100000).value_or(0);
    const auto q = optional_int(r, "q_lora_rank", 1, 100000);
    mla["q_lora_rank"] = q ? json(*q) : json(nullptr);
    mla["qk_nope_head_dim"] = r.integer("qk_nope_head_dim", true, 1, 10000).value_or(0);
    mla["qk_rope_head_dim"] = r.integer("qk_rope_head_dim", true, 0, 10000).value_or(0);
    mla["v_head_dim"] = r.integer("v_head_dim", true, 1, 10000).value_or(0);
    out.entry["mla"] = mla;
}

} // namespace

HfConfigRead read_hf_config(const std::string& json_text, const HfConfigOptions& opt) {
    HfConfigRead out;
    Context ctx{"config.json", out.issues};
    auto doc = parse_object(json_text, ctx);
    if (!doc) return out;
    Reader top(ctx, "", *doc);
    // A multimodal checkpoint (Gemma 3, Llama 4, Qwen-VL) keeps its language model under text_config.
    const json* text_config = top.raw("text_config");
    const bool nested = text_config && text_config->is_object();
    Reader r(ctx, nested ? "text_config" : "", nested ? *text_config : *doc);

    const std::string type = [&] {
        for (Reader* x : {&r, &top}) {
            const json* t = x->raw("model_type");
            if (t && t->is_string()) return t->get<std::string>();
        }
        return std::string();
    }();
    if (unsupported_type(type)) {
        ctx.add(r.at("model_type"), quote_input(type) + " is not a decoder with rotary positions and RMSNorm; the config import "
                                    "reads Llama, Mistral, Mixtral, Qwen, Gemma, Phi-3 and DeepSeek configs");
        return out;
    }
    if (type.empty()) out.notes.push_back("no model_type: read as a Llama-style decoder");
    else if (!known_type(type)) out.notes.push_back("model_type " + quote_input(type) + " is not one the import knows: read as a Llama-style decoder");

    Arch arch;
    auto& a = arch.entry;
    const int layers = r.integer("num_hidden_layers", true, 1, 1000).value_or(0);
    const int hidden = r.integer("hidden_size", true, 16, 1000000).value_or(0);
    const int heads = r.integer("num_attention_heads", true, 1, 10000).value_or(0);
    const int kv_heads = optional_int(r, "num_key_value_heads", 1, 10000).value_or(heads);
    const int vocab = r.integer("vocab_size", true, 1, 10000000).value_or(0);
    const bool moe_keys = r.has("num_local_experts") || r.has("n_routed_experts") || r.has("num_experts");
    const int intermediate = moe_keys ? optional_int(r, "intermediate_size", 1, 10000000).value_or(0)
                                      : r.integer("intermediate_size", true, 1, 10000000).value_or(0);
    const int max_context = [&] {
        if (r.has("max_position_embeddings")) return r.integer("max_position_embeddings", true, 1, 100000000).value_or(0);
        if (r.has("n_positions")) return r.integer("n_positions", true, 1, 100000000).value_or(0);
        r.error("max_position_embeddings", "required field is missing (the longest context the model was trained for)");
        return 0;
    }();
    if (kv_heads > heads && heads > 0) r.error("num_key_value_heads", "cannot exceed num_attention_heads (" + std::to_string(heads) + ")");
    if (heads > 0 && kv_heads > 0 && heads % kv_heads != 0)
        r.error("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(heads) + "), got " + std::to_string(kv_heads));

    read_mla(r, arch);
    int head_dim = 0;
    if (a.contains("mla")) head_dim = a["mla"]["qk_nope_head_dim"].get<int>() + a["mla"]["qk_rope_head_dim"].get<int>();
    else if (auto d = optional_int(r, "head_dim", 1, 10000)) head_dim = *d;
    else if (heads > 0 && hidden > 0) {
        if (hidden % heads != 0) r.error("head_dim", "required when hidden_size (" + std::to_string(hidden) + ") is not a multiple of num_attention_heads (" + std::to_string(heads) + ")");
        head_dim = hidden / heads;
    }
    read_moe(r, layers, intermediate, arch);
    if (!arch.moe && moe_keys) r.error("num_experts_per_tok", "required with experts");
    if (!arch.moe && intermediate == 0 && !moe_keys) r.error("intermediate_size", "required field is missing");
    if (arch.moe && intermediate == 0 && a["moe"]["dense_layers"].get<int>() > 0)
        r.error("intermediate_size", "required: first_k_dense_replace / mlp_only_layers blocks use a dense MLP of this width");

    // Tied embeddings: transformers' PretrainedConfig default is true; Llama, Mistral, Mixtral, Qwen and DeepSeek
    // configs default to false, Gemma's to true.
    bool tied = true;
    if (!type.empty() && !is_gemma(type) && known_type(type)) tied = false;
    for (Reader* x : {&r, &top})
        if (const json* t = x->raw("tie_word_embeddings"); t && !t->is_null()) {
            if (!t->is_boolean()) x->error("tie_word_embeddings", "expected true or false, got " + type_name(*t));
            else tied = t->get<bool>();
        }

    // Biases: Qwen2's q, k and v projections always carry one (modeling_qwen2.py, bias=True); Llama-style
    // configs say so with attention_bias (and mlp_bias for the MLP).
    std::string bias = "none";
    const json* attn_bias = r.raw("attention_bias");
    const json* mlp_bias = r.raw("mlp_bias");
    if (attn_bias && !attn_bias->is_boolean() && !attn_bias->is_null()) r.error("attention_bias", "expected true or false, got " + type_name(*attn_bias));
    if (mlp_bias && !mlp_bias->is_boolean() && !mlp_bias->is_null()) r.error("mlp_bias", "expected true or false, got " + type_name(*mlp_bias));
    const bool ab = attn_bias && attn_bias->is_boolean() && attn_bias->get<bool>();
    const bool mb = mlp_bias && mlp_bias->is_boolean() && mlp_bias->get<bool>();
    if (type == "qwen2" || type == "qwen2_moe" || ab) bias = "qkv";
    if (mb) bias = "all";

    std::string dtype;
    for (Reader* x : {&r, &top})
        for (const char* k : {"torch_dtype", "dtype"})
            if (const json* d = x->raw(k); d && d->is_string() && dtype.empty()) dtype = d->get<std::string>();
    out.precision = precision_of(dtype);

    a["layers"] = layers;
    a["hidden"] = hidden;
    a["heads"] = heads;
    a["kv_heads"] = kv_heads;
    a["head_dim"] = head_dim;
    a["intermediate"] = intermediate > 0 ? intermediate : (arch.moe ? a["moe"]["expert_intermediate"].get<int>() : 1);
    a["vocab"] = vocab;
    a["tied_embeddings"] = tied;
    a["max_context"] = max_context;
    a["mlp"] = "gated";
    a["norm"] = "rmsnorm";
    a["bias"] = bias;
    a["position"] = "rope";
    if (one_of(type, {"qwen3", "qwen3_moe", "gemma3", "gemma3_text"})) a["qk_norm"] = true;       // per-head RMSNorm on q and k
    if (one_of(type, {"gemma2", "gemma3", "gemma3_text"})) a["norms_per_layer"] = 4;              // pre- and post-norms
    read_attention(r, type, layers, max_context, arch);
    a["source"] = "config";
    if (const json* n = r.raw("num_nextn_predict_layers"); n && n->is_number_integer() && n->get<long long>() > 0)
        out.notes.push_back("num_nextn_predict_layers: the multi-token-prediction module is not counted (it is not used per generated token)");
    if (!ctx.issues.empty()) return out;

    // [SECTION] the catalog entry, read back by the catalog's own reader ------------------------------
    std::string name_or_path;
    if (const json* n = top.raw("_name_or_path"); n && n->is_string()) name_or_path = n->get<std::string>();
    std::string id = !opt.id.empty() ? opt.id : slug(name_or_path);
    if (id.empty()) id = "custom-model";
    const std::string name = !opt.name.empty() ? opt.name : !name_or_path.empty() ? name_or_path.substr(name_or_path.find_last_of('/') + 1) : id;

    json entry = {{"id", id}, {"name", name}, {"family", type.empty() ? "custom" : type}, {"kind", "decoder"}};
    entry["architecture"] = a;
    std::string locator = "config.json keys num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads, head_dim, "
                          "intermediate_size, vocab_size, max_position_embeddings, tie_word_embeddings";
    if (arch.moe) locator += ", experts, num_experts_per_tok, moe_intermediate_size";
    json src = {{"title", name + " config.json (" + (opt.url.empty() ? "pasted by the user" : "as given") + ")"},
                {"publisher", "the user (Hugging Face config.json)"},
                {"locator", locator},
                {"read_on", opt.read_on}};
    if (!opt.url.empty()) src["url"] = opt.url;
    json sources = {{"config", src}};

    // A first pass with a placeholder count gives the derived one (catalog reader's arithmetic, model.h).
    Catalog scratch;
    json published = {{"params", 1e9}, {"source", "config"}};
    if (arch.moe) published["active_params"] = 1e9;
    entry["published"] = published;
    entry["sources"] = sources;
    Issues first = extend_catalog(scratch, json{{"models", json::array({entry})}}.dump(), "config.json");
    if (!first.empty()) {
        for (auto& is : first) {
            std::string p = is.path;
            if (p.rfind("models[0].", 0) == 0) p = p.substr(10);
            out.issues.push_back({p, is.message, "config.json"});
        }
        return out;
    }
    const ParamCount c = derive_params(scratch.models.front().arch);
    if (opt.published_params > 0) {
        published["params"] = opt.published_params;
    } else {
        published["params"] = c.total;
        published["note"] = "derived from the architecture: " + format_count(c.total) + " parameters (no published count given)";
    }
    if (arch.moe) published["active_params"] = c.active;
    else published.erase("active_params");
    entry["published"] = published;
    if (opt.published_params <= 0) entry["sources"]["config"]["derivation"] = "parameter count = the catalog's formula over these keys (catalog/README.md)";
    const std::string ext = json{{"models", json::array({entry})}}.dump();
    Catalog check;
    Issues second = extend_catalog(check, ext, "config.json");
    for (auto& is : second) out.issues.push_back({is.path, is.message, "config.json"});
    if (!second.empty()) return out;
    out.model = check.models.front();
    out.extension_json = ext;
    out.notes.insert(out.notes.end(), arch.notes.begin(), arch.notes.end());
    return out;
}

namespace {

std::string hf_config_json_unguarded(const std::string& request) {
    Issues issues;
    Context ctx{"", issues};
    auto doc = parse_object(request, ctx);
    json errors = json::array();
    auto fail = [&](const Issues& list) {
        for (const auto& is : list) errors.push_back({{"path", is.path}, {"message", is.message}});
        return json{{"errors", errors}}.dump(-1, ' ', false, json::error_handler_t::replace);
    };
    if (!doc) return fail(issues);
    Reader r(ctx, "", *doc);
    HfConfigOptions opt;
    opt.id = r.string("id", false).value_or("");
    opt.name = r.string("name", false).value_or("");
    opt.read_on = r.string("read_on", true).value_or("");
    opt.url = r.string("url", false).value_or("");
    opt.published_params = r.number("published_params", false, 1e6, 1e14).value_or(0);
    const json* config = r.raw("config");
    r.finish();
    if (!config) ctx.add("config", "required field is missing (the config.json, as an object or as its text)");
    else if (!config->is_object() && !config->is_string()) ctx.add("config", "expected an object or a string, got " + type_name(*config));
    if (!issues.empty()) return fail(issues);
    const std::string text = config->is_string() ? config->get<std::string>() : config->dump();
    HfConfigRead read = read_hf_config(text, opt);
    if (!read.issues.empty()) {
        for (auto& is : read.issues) is.path = "config" + (is.path.empty() ? "" : "." + is.path);
        return fail(read.issues);
    }
    const ParamCount c = derive_params(read.model.arch, read.model.extra_params);
    json out = {{"model_id", read.model.id},
                {"model_name", read.model.name},
                {"extension", json::parse(read.extension_json)},
                {"precision", read.precision},
                {"derived_params", c.total},
                {"derived_active_params", c.active},
                {"notes", read.notes}};
    return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace

// An edge (the page's "Add model" and the JavaScript API's importConfig call it with pasted text): guarded (guard.h).
std::string hf_config_json(const std::string& request) {
    return guarded("config", [&] { return hf_config_json_unguarded(request); }, [](const Issue& i) {
        return json{{"errors", json::array({{{"path", i.path}, {"message", i.message}}})}}.dump(-1, ' ', false, json::error_handler_t::replace);
    });
}

} // namespace hwplan
