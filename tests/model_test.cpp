// model_test.cpp: parameter counts derived from architectures. Exact references are the counts that
// Hugging Face transformers' model.num_parameters() reports (also the GGUF general.parameter_count):
// they sum every tensor in the checkpoint, so the formula must hit them to the parameter.
#include "hwplan/model.h"

#include <gtest/gtest.h>

#include "test_archs.h"

namespace hwplan {

using test::dense;

// Llama-2-7B config.json: 32 layers, 4096 hidden, 32 heads, 11008 intermediate, 32000 vocab.
// transformers num_parameters(): 6,738,415,616 (e.g. KerasHub preset llama2_7b_en "params").
TEST(DeriveParams, Llama2_7B_IsExact) {
    EXPECT_EQ(derive_params(dense(32, 4096, 32, 32, 11008, 32000)).total, 6738415616.0);
}

// Llama-2-70B: 80 layers, 8192 hidden, 64 heads, 8 KV heads (GQA), 28672 intermediate. By hand:
// 80 x (2*8192^2 + 2*8192*1024 + 3*8192*28672 + 2*8192) + 2*32000*8192 + 8192 = 68,976,648,192.
// Hugging Face's safetensors metadata for meta-llama/Llama-2-70b-hf reports 68,976,653,312 (5,120 more).
TEST(DeriveParams, Llama2_70B_GroupedQuery) {
    const double total = derive_params(dense(80, 8192, 64, 8, 28672, 32000)).total;
    EXPECT_EQ(total, 68976648192.0);
    EXPECT_NEAR(total / 68976653312.0, 1.0, 1e-6);
}

// Llama-3.1-8B: 32 layers, 4096 hidden, 32 heads, 8 KV heads, 14336 intermediate, 128256 vocab.
// 8,030,261,248 (GGUF general.parameter_count of Meta-Llama-3.1-8B).
TEST(DeriveParams, Llama31_8B_IsExact) {
    EXPECT_EQ(derive_params(dense(32, 4096, 32, 8, 14336, 128256)).total, 8030261248.0);
}

// Mixtral-8x7B: Llama-shaped blocks with 8 experts of width 14336, 2 active, a router per block.
// Total 46,702,792,704 (transformers num_parameters()). Active, by hand: the total less the 6 idle
// experts of each of the 32 blocks, 46,702,792,704 - 6*32*3*4096*14336 = 12,879,925,248 (Mixtral paper:
// "13B active parameters").
TEST(DeriveParams, Mixtral8x7B_TotalAndActiveAreExact) {
    ModelArch a = dense(32, 4096, 32, 8, 14336, 32000);
    a.has_moe = true;
    a.moe = {.experts = 8, .active_experts = 2, .shared_experts = 0, .expert_intermediate = 14336};
    const auto c = derive_params(a);
    EXPECT_EQ(c.total, 46702792704.0);
    EXPECT_EQ(c.active, 12879925248.0);
}

// bert-base-uncased: learned positions (512), token types (2), LayerNorm with bias, biases on every
// linear layer, a GELU MLP of width 3072 and a pooler. BertModel.from_pretrained(): 109,482,240.
TEST(DeriveParams, BertBase_IsExact) {
    ModelArch a = dense(12, 768, 12, 12, 3072, 30522);
    a.max_context = 512;
    a.mlp = MlpKind::plain;
    a.norm = NormKind::layernorm;
    a.bias = BiasKind::all;
    a.position = PositionKind::learned;
    a.type_vocab = 2;
    a.pooler = true;
    a.tied_embeddings = true;
    EXPECT_EQ(derive_params(a).total, 109482240.0);
}

TEST(DeriveParams, BreakdownSumsToTotal) {
    ModelArch a = dense(32, 4096, 32, 8, 14336, 128256);
    const auto c = derive_params(a, {{"vision_encoder", 4e8}});
    EXPECT_DOUBLE_EQ(c.embedding + c.head + c.attention + c.mlp + c.norms + c.other + c.extra, c.total);
    EXPECT_DOUBLE_EQ(c.active, c.total); // dense: every parameter runs per token
}

TEST(DeriveParams, TiedEmbeddingsDropTheHead) {
    ModelArch a = dense(16, 2048, 32, 8, 8192, 128256);
    const double untied = derive_params(a).total;
    a.tied_embeddings = true;
    EXPECT_DOUBLE_EQ(untied - derive_params(a).total, 128256.0 * 2048);
}

// DeepSeek-V2 paper, section 2.1: MLA's K/V up-projections act on a kv_lora_rank latent. With the
// DeepSeek-V3 shapes one latent attention block has, by hand:
//   q: 7168*1536 + 1536*128*192 + 1536 = 48,760,320
//   kv down: 7168*(512+64) = 4,128,768; kv up: 512*128*(128+128) = 16,777,216; out: 128*128*7168 = 117,440,512
//   kv norm: 512  -> 187,107,328
TEST(DeriveParams, LatentAttentionBlockByHand) {
    ModelArch a = dense(1, 7168, 128, 128, 18432, 1);
    a.head_dim = 192;
    a.attention_layers = {{AttentionKind::latent, 1, 0}};
    a.has_mla = true;
    a.mla = {.kv_lora_rank = 512, .q_lora_rank = 1536, .qk_nope_head_dim = 128, .qk_rope_head_dim = 64, .v_head_dim = 128};
    EXPECT_EQ(derive_params(a).attention, 187107328.0);
}

TEST(DeriveParams, MtpModuleCountsInTotalNotActive) {
    ModelArch a = dense(2, 256, 4, 4, 512, 1000);
    const auto c = derive_params(a, {{"mtp_module", 1e6}});
    EXPECT_DOUBLE_EQ(c.total - c.active, 1e6);
}

} // namespace hwplan
