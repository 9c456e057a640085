// test_archs.h: architectures the tests build by hand (config.json shapes of public models).
#pragma once
#include "hwplan/model.h"

namespace hwplan::test {

// A dense decoder with full (multi-head or grouped-query) attention, gated MLP, RMSNorm, RoPE, untied
// embeddings: the Llama family's shape. head_dim = hidden / heads.
inline ModelArch dense(int layers, int hidden, int heads, int kv_heads, int intermediate, int vocab) {
    ModelArch a;
    a.layers = layers;
    a.hidden = hidden;
    a.heads = heads;
    a.kv_heads = kv_heads;
    a.head_dim = hidden / heads;
    a.intermediate = intermediate;
    a.vocab = vocab;
    a.attention_layers = {{AttentionKind::full, layers, 0}};
    return a;
}

// Llama-3.1-70B config.json: 80 layers, 8192 hidden, 64 heads, 8 KV heads, 28672 intermediate, 128256 vocab.
inline ModelArch llama31_70b() { return dense(80, 8192, 64, 8, 28672, 128256); }

// Llama-3.1-8B config.json: 32 layers, 4096 hidden, 32 heads, 8 KV heads, 14336 intermediate, 128256 vocab.
inline ModelArch llama31_8b() { return dense(32, 4096, 32, 8, 14336, 128256); }

} // namespace hwplan::test
