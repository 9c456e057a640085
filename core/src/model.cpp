// model.cpp: parameter count from a transformer's architecture (catalog/README.md, "The parameter
// count the tests check"). Linear layers are in x out weights (+ out biases); norms are vectors.
#include "hwplan/model.h"

namespace hwplan {

namespace {

// One MLP of width w: gated (SwiGLU/GeGLU: gate, up, down) has 3 matrices, plain (GELU) 2.
double mlp_params(const ModelArch& a, double w) {
    const double h = a.hidden;
    double n = (a.mlp == MlpKind::gated ? 3.0 : 2.0) * h * w;
    if (a.bias == BiasKind::all) n += w + h;
    return n;
}

// One attention block. Grouped-query (Ainslie et al. 2023): Q and O are heads x head_dim wide, K and V
// kv_heads x head_dim. Latent (DeepSeek-V2, section 2.1): low-rank projections of Q and of the joint KV.
double attention_params(const ModelArch& a, AttentionKind kind) {
    const double h = a.hidden, H = a.heads, kv = a.kv_heads, d = a.head_dim;
    switch (kind) {
    case AttentionKind::full:
    case AttentionKind::sliding: {
        double n = h * H * d + 2 * h * kv * d + H * d * h;
        if (a.bias != BiasKind::none) n += (H + 2 * kv) * d;
        if (a.bias == BiasKind::all) n += h;
        return n;
    }
    case AttentionKind::latent: {
        const auto& m = a.mla;
        const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
        double n = m.q_lora_rank > 0 ? h * m.q_lora_rank + double(m.q_lora_rank) * H * qk + m.q_lora_rank
                                     : h * H * qk;
        n += h * (m.kv_lora_rank + m.qk_rope_head_dim);                            // joint KV down-projection
        n += double(m.kv_lora_rank) * H * (m.qk_nope_head_dim + m.v_head_dim);     // K and V up-projections
        n += H * m.v_head_dim * h + m.kv_lora_rank;                                // output, KV norm
        return n;
    }
    case AttentionKind::none:
        return 0;
    }
    return 0;
}

} // namespace

ParamCount derive_params(const ModelArch& a, const std::map<std::string, double>& extra_params) {
    ParamCount c;
    const double h = a.hidden;
    c.embedding = double(a.vocab) * h;
    if (a.position == PositionKind::learned) c.embedding += double(a.max_context) * h;
    c.embedding += double(a.type_vocab) * h;
    c.head = a.tied_embeddings ? 0 : double(a.vocab) * h;
    const double per_norm = a.norm == NormKind::layernorm ? 2 * h : h;
    c.norms = per_norm; // final norm (BERT: the embedding LayerNorm, same size)

    double active_mlp = 0;
    int block = 0;
    for (const auto& run : a.attention_layers) {
        for (int i = 0; i < run.count; ++i, ++block) {
            c.attention += attention_params(a, run.kind);
            c.norms += a.norms_per_layer * per_norm + (a.qk_norm ? 2.0 * a.head_dim : 0.0);
            if (!a.has_moe || block < a.moe.dense_layers) {
                const double m = mlp_params(a, a.intermediate);
                c.mlp += m;
                active_mlp += m;
                continue;
            }
            const auto& e = a.moe;
            const double shared_w = e.shared_expert_intermediate > 0 ? e.shared_expert_intermediate : e.expert_intermediate;
            const double shared = e.shared_experts * mlp_params(a, shared_w);
            const double router = h * e.experts;
            c.mlp += e.experts * mlp_params(a, e.expert_intermediate) + shared + router;
            active_mlp += e.active_experts * mlp_params(a, e.expert_intermediate) + shared + router;
        }
    }
    if (a.pooler) c.other = h * h + h;
    double extra_active = 0;
    for (const auto& [key, n] : extra_params) {
        c.extra += n;
        if (key != "mtp_module") extra_active += n; // multi-token prediction is not run per generated token
    }
    c.total = c.embedding + c.head + c.attention + c.mlp + c.norms + c.other + c.extra;
    c.active = c.total - c.mlp + active_mlp - c.extra + extra_active;
    return c;
}

std::string_view name(ModelKind k) {
    switch (k) {
    case ModelKind::decoder: return "decoder";
    case ModelKind::encoder: return "encoder";
    case ModelKind::vision_language: return "vision_language";
    }
    return "";
}

std::string_view name(AttentionKind k) {
    switch (k) {
    case AttentionKind::full: return "full";
    case AttentionKind::sliding: return "sliding";
    case AttentionKind::latent: return "latent";
    case AttentionKind::none: return "none";
    }
    return "";
}

} // namespace hwplan
