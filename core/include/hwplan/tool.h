// hwplan/tool.h: the interface of a deploy or benchmark tool at one release (catalog/tools.json): the flags
// or config keys hwplan may write, each with its meaning and the source it was read from.
// Usage: const ToolInterface* t = catalog.find_tool("vllm-serve");  if (t && t->flag("--max-model-len")) ...
#pragma once
#include <map>
#include <string>
#include <vector>

namespace hwplan {

struct ToolFlag {
    std::string meaning;
    std::vector<std::string> values;    // the values the source lists; empty: any
    std::string source;                 // source id in Catalog::tool_sources
    bool operator==(const ToolFlag&) const = default;
};

// One tool at one release: the flags (or config keys, "section.key" for TOML) hwplan may write.
struct ToolInterface {
    std::string id;                     // "vllm-serve", "llama-bench", "megatron-lm", "torchtune", "torchtitan"
    std::string name;
    std::string program;                // what the command line starts with: "vllm serve", "tune run"
    std::string repository;             // "vllm-project/vllm"
    std::string release;                // the release or commit the flags were read from
    std::string syntax;                 // "flags" (--flag value), "overrides" (flags, then key=value), "toml", "json" or "yaml" (a config file's syntax; keys as dotted paths)
    std::map<std::string, ToolFlag> flags;
    std::map<std::string, ToolFlag> recipes;  // torchtune: recipe names
    // torchtune: catalog model id -> recipe -> method -> config name; torchtitan: model id -> {"name", "flavor"}
    std::map<std::string, std::map<std::string, std::map<std::string, std::string>>> configs;
    std::map<std::string, std::map<std::string, std::string>> models;
    std::string note;
    const ToolFlag* flag(const std::string& f) const { auto it = flags.find(f); return it == flags.end() ? nullptr : &it->second; }
    bool operator==(const ToolInterface&) const = default;
};

} // namespace hwplan
