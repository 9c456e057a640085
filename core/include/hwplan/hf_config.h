// hwplan/hf_config.h: a pasted Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2/2.5/3 and their MoE
// variants, Gemma 2/3, Phi-3, DeepSeek-V2/V3) read into a catalog model, so a model the catalog lacks can be
// planned. The result is an extension entry ({"models": [...]}, catalog/README.md's model schema), read back
// through the catalog's own model reader: the page, the CLI (--extend) and the JavaScript API all plan it
// through the same validator. Keys are the transformers config keys; a problem names the key and the reason.
// Usage: HfConfigRead r = read_hf_config(text, {.id = "my-8b", .read_on = "2026-11-30"});
//        if (r.issues.empty()) extend_catalog(catalog, r.extension_json);
#pragma once
#include <string>
#include <vector>

#include "hwplan/issues.h"
#include "hwplan/model.h"

namespace hwplan {

struct HfConfigOptions {
    std::string id;               // catalog id for the model; "" = from _name_or_path, else "custom-model"
    std::string name;             // display name; "" = from _name_or_path, else the id
    std::string read_on;          // ISO date the config was read (the catalog requires one on every source)
    std::string url;              // where the config came from ("" when pasted without one)
    double published_params = 0;  // the publisher's total count when known; 0 = the count derived from the config
};

struct HfConfigRead {
    Model model;                       // the model as the catalog reader gives it back (valid when issues is empty)
    std::string extension_json;        // {"models": [<catalog model entry>]}
    std::string precision;             // the checkpoint's dtype as a catalog precision ("bf16", "fp16", "fp32"; "" unknown)
    std::vector<std::string> notes;    // what was assumed (defaults of the model type, parts not counted)
    Issues issues;                     // config.json key -> reason; empty when the config was read
};

HfConfigRead read_hf_config(const std::string& json_text, const HfConfigOptions& options);

// The same with the options in the request: {"config": {...} | "text", "id"?, "name"?, "read_on", "url"?,
// "published_params"?} -> {"model_id", "extension": {...}, "precision", "derived_params", "derived_active_params",
// "notes"} or {"errors": [...]}. The JavaScript API and the page call this.
std::string hf_config_json(const std::string& request);

} // namespace hwplan
