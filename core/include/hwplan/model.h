// hwplan/model.h: one model preset of the catalog (catalog/models/<id>.json): the architecture as its
// config file gives it, the published parameter counts, and the parameter count derived from the
// architecture (which the tests hold within 2 % of the published one).
// Usage: ParamCount c = derive_params(model.arch, model.extra_params);   c.total, c.active
#pragma once
#include <map>
#include <string>
#include <vector>

#include "hwplan/device.h"

namespace hwplan {

enum class ModelKind { decoder, encoder, vision_language };
enum class AttentionKind { full, sliding, latent, none };
enum class MlpKind { gated, plain };
enum class NormKind { rmsnorm, layernorm };
enum class BiasKind { none, qkv, all };
enum class PositionKind { rope, learned };

// A run of transformer blocks sharing one attention kind (order does not matter for memory or FLOPs).
struct AttentionLayers {
    AttentionKind kind = AttentionKind::full;
    int count = 0;   // blocks of this kind
    int window = 0;  // tokens, for sliding window attention
    bool operator==(const AttentionLayers&) const = default;
};

// Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds kv_lora_rank + qk_rope_head_dim
// values per token per layer (DeepSeek-V2 paper, section 2.1).
struct LatentAttention {
    int kv_lora_rank = 0;
    int q_lora_rank = 0; // 0 when queries are not compressed
    int qk_nope_head_dim = 0;
    int qk_rope_head_dim = 0;
    int v_head_dim = 0;
    bool operator==(const LatentAttention&) const = default;
};

struct MixtureOfExperts {
    int experts = 0;                    // routed experts per MoE block
    int active_experts = 0;             // routed experts per token
    int shared_experts = 0;             // always-active experts
    int expert_intermediate = 0;        // MLP width of one routed expert
    int shared_expert_intermediate = 0; // MLP width of one shared expert
    int dense_layers = 0;               // leading blocks with a dense MLP of width `intermediate`
    bool operator==(const MixtureOfExperts&) const = default;
};

struct ModelArch {
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kv_heads = 0;
    int head_dim = 0;
    int intermediate = 0;
    int vocab = 0;
    bool tied_embeddings = false;
    int max_context = 0;
    MlpKind mlp = MlpKind::gated;
    NormKind norm = NormKind::rmsnorm;
    BiasKind bias = BiasKind::none;
    bool qk_norm = false;
    int norms_per_layer = 2;
    PositionKind position = PositionKind::rope;
    int type_vocab = 0;
    bool pooler = false;
    std::vector<AttentionLayers> attention_layers;
    bool has_mla = false;
    LatentAttention mla;
    bool has_moe = false;
    MixtureOfExperts moe;
    bool operator==(const ModelArch&) const = default;
};

struct Model {
    std::string id;                         // "llama-3.1-8b"
    std::string name;
    std::vector<std::string> aliases;
    std::string family;
    ModelKind kind = ModelKind::decoder;
    double published_params = 0;            // total, as the model card or paper gives it
    double published_active_params = 0;     // MoE only (0 otherwise)
    bool active_excludes_embedding = false; // the publisher's active count leaves out the input embedding
    ModelArch arch;
    std::map<std::string, double> extra_params; // outside the text transformer: "vision_encoder", "mtp_module"
    std::vector<Source> sources;
    std::map<std::string, std::string> source_of; // figure path -> source id
    bool operator==(const Model&) const = default;
};

// Parameter count derived from the architecture, by part (catalog/README.md gives the formula).
struct ParamCount {
    double embedding = 0;  // token (+ position, + token-type) embeddings
    double head = 0;       // output projection (0 when tied)
    double attention = 0;  // all blocks
    double mlp = 0;        // all blocks: dense MLPs, routed and shared experts, routers
    double norms = 0;      // all norm vectors
    double other = 0;      // pooler
    double extra = 0;      // extra_params (vision encoder, MTP module)
    double total = 0;      // sum of the above
    double active = 0;     // parameters used per token (MoE: active experts only; no MTP module)
    bool operator==(const ParamCount&) const = default;
};

ParamCount derive_params(const ModelArch& arch, const std::map<std::string, double>& extra_params = {});

std::string_view name(ModelKind k);
std::string_view name(AttentionKind k);

} // namespace hwplan
