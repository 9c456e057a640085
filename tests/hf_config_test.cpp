// hf_config_test.cpp: pasted Hugging Face config.json files read into catalog models (hf_config.h). The
// configs are real ones (tests/data/hf_configs/README.md: repository, path, commit, read 2026-11-30); each
// import must give the catalog preset's architecture (read independently from the model's own config) and
// a parameter count within 2 % of the publisher's (model.h holds the catalog to the same 2 %).
#include "hwplan/hf_config.h"

#include <gtest/gtest.h>

#include "hwplan/catalog.h"
#include "hwplan/json_api.h"
#include "test_files.h"

namespace hwplan {

namespace {

std::string config_text(const std::string& name) { return test::data_file("hf_configs/" + name); }

using test::files_catalog;

const Model& preset(const std::string& id) {
    for (const auto& m : files_catalog().models)
        if (m.id == id) return m;
    throw std::runtime_error("no preset " + id);
}

HfConfigRead read(const std::string& file, const std::string& id) {
    return read_hf_config(config_text(file), {.id = id, .read_on = "2026-11-30"});
}

} // namespace

// [SECTION] real configs against the catalog presets and the published counts --------------------

// Llama 3.1 8B: the catalog preset's architecture, exactly; 8,030,261,248 parameters (GGUF
// general.parameter_count of Meta-Llama-3.1-8B, model_test.cpp), the "8.03B" of the Hugging Face page.
TEST(HfConfig, Llama31_8B_MatchesThePresetAndItsCount) {
    const auto r = read("llama-3.1-8b.json", "my-llama-8b");
    ASSERT_TRUE(r.issues.empty()) << to_string(r.issues.front());
    EXPECT_EQ(r.model.arch, preset("llama-3.1-8b").arch);
    EXPECT_EQ(derive_params(r.model.arch).total, 8030261248.0);
    EXPECT_NEAR(derive_params(r.model.arch).total / 8.03e9, 1.0, 0.001);
    EXPECT_EQ(r.precision, "bf16");
    EXPECT_EQ(r.model.published_params, 8030261248.0); // no published count given: the derived one, said so
}

// Llama 3.2 3B ties its embeddings (tie_word_embeddings: true) and gives head_dim: the preset's shape, and
// within 2 % of the published 3.21B (catalog/models/llama-3.2-3b.json, Meta's model card).
TEST(HfConfig, Llama32_3B_TiedEmbeddings) {
    const auto r = read("llama-3.2-3b.json", "my-llama-3b");
    ASSERT_TRUE(r.issues.empty()) << to_string(r.issues.front());
    EXPECT_TRUE(r.model.arch.tied_embeddings);
    EXPECT_EQ(r.model.arch, preset("llama-3.2-3b").arch);
    EXPECT_NEAR(derive_params(r.model.arch).total / preset("llama-3.2-3b").published_params, 1.0, 0.02);
}

// Qwen2.5 7B: Qwen2's q, k and v carry biases though the config does not say so (modeling_qwen2.py);
// use_sliding_window false means full attention everywhere. Published 7.61B (Qwen2.5 model card).
TEST(HfConfig, Qwen25_7B_BiasAndNoSlidingWindow) {
    const auto r = read("qwen2.5-7b.json", "my-qwen-7b");
    ASSERT_TRUE(r.issues.empty()) << to_string(r.issues.front());
    EXPECT_EQ(r.model.arch.bias, BiasKind::qkv);
    ASSERT_EQ(r.model.arch.attention_layers.size(), 1u);
    EXPECT_EQ(r.model.arch.attention_layers[0].kind, AttentionKind::full);
    EXPECT_EQ(r.model.arch.attention_layers[0].count, 28);
    EXPECT_NEAR(derive_params(r.model.arch).total / 7.61e9, 1.0, 0.02);
    // The preset differs only in max_context (its card's 131072 = this config's max_position_embeddings).
    EXPECT_EQ(r.model.arch, preset("qwen2.5-7b").arch);
}

// Qwen3-30B-A3B: 128 experts (num_experts), 8 per token, expert width 768, per-head q/k norms.
// Published 30.5B total, 3.3B activated (Qwen3-30B-A3B model card, catalog/models/qwen3-30b-a3b.json).
TEST(HfConfig, Qwen3_30B_A3B_MixtureOfExperts) {
    const auto r = read("qwen3-30b-a3b.json", "my-qwen3-moe");
    ASSERT_TRUE(r.issues.empty()) << to_string(r.issues.front());
    EXPECT_EQ(r.model.arch, preset("qwen3-30b-a3b").arch);
    const auto c = derive_params(r.model.arch);
    EXPECT_NEAR(c.total / 30.5e9, 1.0, 0.02);
    EXPECT_NEAR(c.active / 3.3e9, 1.0, 0.05); // "3.3B" has two digits: +-0.05B is 1.5 %, 5 % leaves the rounding room
    EXPECT_EQ(r.model.published_active_params, c.active);
}

// Mixtral 8x7B: num_local_experts 8, 2 per token, experts as wide as intermediate_size, and a 4096-token
// window is absent from this config (full attention). 46,702,792,704 total and 12,879,925,248 active
// (transformers num_parameters(), model_test.cpp); Mistral's "47B total, 13B active".
TEST(HfConfig, Mixtral8x7B_ExactCounts) {
    const auto r = read("mixtral-8x7b.json", "my-mixtral");
    ASSERT_TRUE(r.issues.empty()) << to_string(r.issues.front());
    const auto c = derive_params(r.model.arch);
    EXPECT_EQ(c.total, 46702792704.0);
    EXPECT_EQ(c.active, 12879925248.0);
    EXPECT_EQ(r.model.arch, preset("mixtral-8x7b").arch);
}

// DeepSeek-V3 (the keys verl's test quotes): latent attention and 256 routed + 1 shared experts after 3
// dense blocks. Without max_position_embeddings the import names it; with DeepSeek-V3's 163840 the
// count is within 1 % of the 671B main model (685B less the 14B multi-token-prediction module, DeepSeek-V3 README).
TEST(HfConfig, DeepSeekV3_LatentAttentionAndSharedExperts) {
    const auto missing = read("deepseek-v3-partial.json", "my-dsv3");
    ASSERT_EQ(missing.issues.size(), 1u);
    EXPECT_EQ(missing.issues[0].path, "max_position_embeddings");
    EXPECT_EQ(missing.issues[0].message, "required field is missing (the longest context the model was trained for)");

    std::string text = config_text("deepseek-v3-partial.json");
    text.insert(text.find('{') + 1, "\n  \"max_position_embeddings\": 163840,");
    const auto r = read_hf_config(text, {.id = "my-dsv3", .read_on = "2026-11-30"});
    ASSERT_TRUE(r.issues.empty()) << to_string(r.issues.front());
    EXPECT_TRUE(r.model.arch.has_mla);
    EXPECT_EQ(r.model.arch.head_dim, 192); // qk_nope_head_dim + qk_rope_head_dim
    EXPECT_EQ(r.model.arch.moe.dense_layers, 3);
    EXPECT_EQ(r.model.arch.moe.shared_experts, 1);
    const Model& p = preset("deepseek-v3");
    EXPECT_EQ(r.model.arch.mla, p.arch.mla);
    EXPECT_EQ(r.model.arch.moe, p.arch.moe);
    EXPECT_NEAR(derive_params(r.model.arch).total / 671e9, 1.0, 0.01);
}

// [SECTION] family rules (transformers' configuration and modeling code) ---------------------------

// Gemma 2 alternates a local window with global attention, block by block (modeling_gemma2.py), keeps
// pre- and post-norms (4 per block) and ties its embeddings by default (Gemma2Config).
TEST(HfConfig, Gemma2AlternatesSlidingWindows) {
    const auto r = read_hf_config(R"({"model_type": "gemma2", "hidden_size": 3584, "num_hidden_layers": 42, "num_attention_heads": 16,
        "num_key_value_heads": 8, "head_dim": 256, "intermediate_size": 14336, "vocab_size": 256000,
        "max_position_embeddings": 8192, "sliding_window": 4096})",
                                  {.id = "g2", .read_on = "2026-11-30"});
    ASSERT_TRUE(r.issues.empty()) << to_string(r.issues.front());
    ASSERT_EQ(r.model.arch.attention_layers.size(), 2u);
    EXPECT_EQ(r.model.arch.attention_layers[0].kind, AttentionKind::sliding);
    EXPECT_EQ(r.model.arch.attention_layers[0].count, 21);
    EXPECT_EQ(r.model.arch.attention_layers[0].window, 4096);
    EXPECT_EQ(r.model.arch.attention_layers[1].count, 21);
    EXPECT_TRUE(r.model.arch.tied_embeddings);
    EXPECT_EQ(r.model.arch.norms_per_layer, 4);
}

// transformers' layer_types (newer configs) is counted as given.
TEST(HfConfig, LayerTypesAreCounted) {
    const auto r = read_hf_config(R"({"model_type": "llama", "hidden_size": 512, "num_hidden_layers": 3, "num_attention_heads": 8,
        "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 4096, "sliding_window": 128,
        "layer_types": ["sliding_attention", "sliding_attention", "full_attention"]})",
                                  {.id = "lt", .read_on = "2026-11-30"});
    ASSERT_TRUE(r.issues.empty()) << to_string(r.issues.front());
    ASSERT_EQ(r.model.arch.attention_layers.size(), 2u);
    EXPECT_EQ(r.model.arch.attention_layers[0].count, 2);
    EXPECT_EQ(r.model.arch.attention_layers[1].count, 1);
}

// [SECTION] errors name the config key ----------------------------------------------------------------

struct BadConfig {
    const char* text;
    const char* path;
    const char* message;
};

TEST(HfConfig, BadConfigsNameTheKey) {
    const BadConfig rows[] = {
        {R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 2048})",
         "hidden_size", "required field is missing"},
        {R"({"hidden_size": "4096", "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 2048})",
         "hidden_size", "expected an integer, got a string"},
        {R"({"hidden_size": 512, "num_hidden_layers": -2, "num_attention_heads": 8, "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 2048})",
         "num_hidden_layers", "implausible value -2; expected 1 to 1000"},
        {R"({"hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 3, "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 2048})",
         "num_key_value_heads", "must divide num_attention_heads (8), got 3"},
        {R"({"hidden_size": 500, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 2048})",
         "head_dim", "required when hidden_size (500) is not a multiple of num_attention_heads (8)"},
        {R"({"model_type": "bert", "hidden_size": 768})", "model_type",
         "\"bert\" is not a decoder with rotary positions and RMSNorm; the config import reads Llama, Mistral, Mixtral, Qwen, Gemma, Phi-3 and DeepSeek configs"},
        {R"({"hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 2048, "num_local_experts": 8, "num_experts_per_tok": 9})",
         "num_experts_per_tok", "cannot exceed num_local_experts (8)"},
        {R"({"hidden_size": 1e400})", "hidden_size", "number too large (beyond the range of a double, about 1.8e308)"},
        {"[1, 2]", "", "expected a JSON object, got an array"},
    };
    for (const auto& row : rows) {
        const auto r = read_hf_config(row.text, {.id = "bad", .read_on = "2026-11-30"});
        ASSERT_FALSE(r.issues.empty()) << row.text;
        EXPECT_EQ(r.issues[0].path, row.path) << row.text;
        EXPECT_EQ(r.issues[0].message, row.message) << row.text;
    }
}

// [SECTION] the extension and the JSON entry point --------------------------------------------------

// The import's extension loads through extend_catalog (the CLI's --extend path) into the same model.
TEST(HfConfig, ExtensionLoadsThroughTheCatalogReader) {
    const auto r = read("llama-3.1-8b.json", "my-llama-8b");
    ASSERT_TRUE(r.issues.empty());
    Catalog cat = files_catalog();
    const Issues issues = extend_catalog(cat, r.extension_json, "ext");
    ASSERT_TRUE(issues.empty()) << to_string(issues.front());
    const auto found = resolve_model(cat, "my-llama-8b");
    ASSERT_NE(found.item, nullptr);
    EXPECT_EQ(found.item->arch, r.model.arch);
    EXPECT_EQ(found.item->sources.front().read_on, "2026-11-30");
}

TEST(HfConfig, JsonRequest) {
    const std::string ok = hf_config_json(R"({"config": )" + config_text("mixtral-8x7b.json") + R"(, "id": "mx", "read_on": "2026-11-30"})");
    EXPECT_NE(ok.find("\"model_id\":\"mx\""), std::string::npos) << ok;
    EXPECT_NE(ok.find("\"derived_params\":46702792704.0"), std::string::npos) << ok;
    EXPECT_EQ(hf_config_json(R"({"config": {"hidden_size": 4096}, "read_on": "2026-11-30"})").rfind("{\"errors\"", 0), 0u);
    EXPECT_EQ(hf_config_json(R"({"config": 3, "read_on": "2026-11-30"})"),
              R"({"errors":[{"message":"expected an object or a string, got a number","path":"config"}]})");
    EXPECT_EQ(hf_config_json(R"({"config": {}})"), R"({"errors":[{"message":"required field is missing","path":"read_on"}]})");
}

} // namespace hwplan
