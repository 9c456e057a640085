// run_it_test.cpp: the run section (core/src/run_it.cpp). Every command and config written for every scenario
// and example workload is read back here with the tool's own syntax (a tokenizer and a small TOML reader of this
// file, not the writer's), and each flag, key and listed value is checked against catalog/tools.json for the
// tool's release; each config holds the planned layout; the predicted lines are the plan's own figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hwplan/assumptions.h"
#include "hwplan/catalog.h"
#include "hwplan/format.h"
#include "hwplan/json_api.h"
#include "hwplan/plan.h"
#include "hwplan/run_it.h"
#include "hwplan/workload.h"
#include "test_files.h"

namespace hwplan {
namespace {

const Catalog& catalog() { return test::files_catalog(); }

std::string read(const std::filesystem::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

struct Planned {
    std::string label;
    Workload workload;
    Plan plan;
};

// Every single workload the project ships: the scenarios (a team's cards one by one) and the example files.
std::vector<Planned> every_workload() {
    std::vector<std::pair<std::string, std::string>> texts;
    for (const auto& sc : catalog().scenarios) {
        if (!sc.workload_json.empty()) texts.push_back({"scenario " + sc.id, sc.workload_json});
        else {
            const auto cards = nlohmann::json::parse(sc.team_json)["cards"];
            for (size_t i = 0; i < cards.size(); ++i) texts.push_back({"scenario " + sc.id + " card " + std::to_string(i), cards[i].dump()});
        }
    }
    for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(HWPLAN_SOURCE_DIR) / "tests/data/workloads"))
        if (f.path().extension() == ".json") texts.push_back({f.path().filename().string(), read(f.path())});
    // A pretraining job on a model torchtitan does not ship, so Megatron-LM's command is written and checked too.
    texts.push_back({"qwen2.5-7b pretraining", R"({"name": "Qwen2.5 7B pretraining", "stage": "pretrain", "model": "Qwen2.5-7B",
        "train": {"tokens": 1e11, "seq_len": 4096, "global_batch": 512}, "hardware": {"devices": ["H100 SXM", "GB200 NVL72"]}})"});
    // Serving with SGLang (the workload names it): a MoE model laid out expert parallel, and a latent-attention MoE whose
    // attention runs data parallel under expert parallelism (--dp-size with --enable-dp-attention).
    texts.push_back({"sglang qwen3-30b-a3b", R"({"name": "SGLang MoE chat", "stage": "serve", "model": "qwen3-30b-a3b", "framework": "sglang",
        "precision": {"weights": "bf16", "kv_cache": "fp8", "compute": "bf16"},
        "serve": {"context_tokens": 4096, "prompt_tokens": 1000, "output_tokens": 1000, "concurrent_users": 100},
        "hardware": {"devices": ["H100 SXM", "H200", "L40S"]}})"});
    texts.push_back({"sglang deepseek-v3", R"({"name": "SGLang DeepSeek-V3", "stage": "serve", "model": "deepseek-v3", "framework": "sglang",
        "precision": {"weights": "fp8", "kv_cache": "bf16", "compute": "fp8"},
        "serve": {"context_tokens": 8192, "prompt_tokens": 2000, "output_tokens": 500, "concurrent_users": 256},
        "hardware": {"devices": ["H200", "B200", "GB200 NVL72"]}})"});
    // NVFP4 weights with FP4 GEMMs and an FP4 KV cache on Blackwell, served by SGLang.
    texts.push_back({"sglang llama-3.1-70b nvfp4", R"({"name": "SGLang 70B NVFP4", "stage": "serve", "model": "llama-3.1-70b", "framework": "sglang",
        "precision": {"weights": "nvfp4", "kv_cache": "fp4", "compute": "fp4"},
        "serve": {"context_tokens": 8192, "prompt_tokens": 2000, "output_tokens": 500, "concurrent_users": 64},
        "hardware": {"devices": ["B200"]}})"});
    // Fine-tunes whose sharding and offload torchtune spells in its own keys: optimizer offload on one device (torchao's
    // CPU-offload optimizer), FSDP's CPU offload over several, and ZeRO-2 (FSDP without resharding after forward).
    texts.push_back({"8b full fine-tune offload one a100", R"({"name": "8B full fine-tune, optimizer in host memory", "stage": "finetune",
        "model": "llama-3.1-8b", "precision": "bf16", "train": {"method": "full", "seq_len": 2048, "micro_batch": 1, "cpu_offload": true,
        "runtime": "torchtune"}, "hardware": {"devices": ["A100 80GB"], "count": 1}})"});
    texts.push_back({"70b lora offload a100s", R"({"name": "70B LoRA, FSDP with CPU offload", "stage": "finetune", "model": "llama-3.1-70b",
        "precision": "bf16", "train": {"method": "lora", "seq_len": 2048, "micro_batch": 1, "cpu_offload": true, "checkpointing": "full"},
        "hardware": {"devices": ["A100 80GB"], "count": 4}})"});
    texts.push_back({"8b full fine-tune zero-2 h100s", R"({"name": "8B full fine-tune, ZeRO-2", "stage": "finetune", "model": "llama-3.1-8b",
        "precision": "bf16", "train": {"method": "full", "seq_len": 2048, "micro_batch": 1, "zero_stage": 2, "runtime": "torchtune"},
        "hardware": {"devices": ["H100 SXM"], "count": 8}})"});
    // A full fine-tune under DeepSpeed's ZeRO engine with optimizer offload: a ds_config.json and the deepspeed launcher.
    texts.push_back({"8b full fine-tune deepspeed offload", R"({"name": "8B full fine-tune, DeepSpeed ZeRO-2 with optimizer offload",
        "stage": "finetune", "model": "llama-3.1-8b", "precision": "bf16", "train": {"method": "full", "seq_len": 2048, "micro_batch": 1,
        "zero_stage": 2, "cpu_offload": true, "runtime": "deepspeed"}, "hardware": {"devices": ["H100 SXM"], "count": 4}})"});
    // TensorRT-LLM (the workload names it): a dense FP8 model tensor parallel, and a MoE laid out expert parallel with
    // attention data parallel (enable_attention_dp in the options file).
    texts.push_back({"trtllm llama-3.1-70b fp8", R"({"name": "TensorRT-LLM 70B FP8", "stage": "serve", "model": "llama-3.1-70b",
        "framework": "tensorrt-llm", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
        "serve": {"context_tokens": 8192, "prompt_tokens": 2000, "output_tokens": 500, "concurrent_users": 64},
        "hardware": {"devices": ["H100 SXM", "H200"]}})"});
    texts.push_back({"trtllm deepseek-v3", R"({"name": "TensorRT-LLM DeepSeek-V3", "stage": "serve", "model": "deepseek-v3",
        "framework": "tensorrt-llm", "precision": {"weights": "fp8", "kv_cache": "bf16", "compute": "fp8"},
        "serve": {"context_tokens": 8192, "prompt_tokens": 6000, "output_tokens": 500, "concurrent_users": 256},
        "hardware": {"devices": ["H200", "B200"]}})"});
    // MLX on Apple silicon (the workload names it): one user at the edge, and a small team served in a batch.
    texts.push_back({"mlx qwen2.5-7b edge", R"({"name": "MLX on a laptop", "stage": "edge", "model": "qwen2.5-7b", "framework": "mlx",
        "precision": {"weights": "int4", "kv_cache": "fp16", "compute": "fp16"},
        "serve": {"context_tokens": 4096, "prompt_tokens": 1000, "output_tokens": 300}, "hardware": {"devices": ["Apple M4 Max"]},
        "decision": {"stack": "mlx-metal"}})"});
    texts.push_back({"mlx llama-3.1-8b team", R"({"name": "MLX for a team", "stage": "serve", "model": "llama-3.1-8b", "framework": "mlx",
        "precision": {"weights": "int8", "kv_cache": "fp8", "compute": "fp16"},
        "serve": {"context_tokens": 8192, "prompt_tokens": 2000, "output_tokens": 400, "concurrent_users": 8},
        "hardware": {"devices": ["Apple M3 Ultra"]}, "decision": {"stack": "mlx-metal"}})"});
    // A QLoRA fine-tune sharded over two devices (Axolotl's FSDP2 config, resharding after forward at ZeRO-3).
    texts.push_back({"70b qlora fsdp a100s", R"({"name": "70B QLoRA, FSDP", "stage": "finetune", "model": "llama-3.1-70b",
        "precision": {"weights": "nf4", "compute": "bf16"}, "train": {"method": "qlora", "seq_len": 2048, "micro_batch": 1, "zero_stage": 3,
        "checkpointing": "full"}, "hardware": {"devices": ["A100 80GB"], "count": 2}})"});
    // LLaMA-Factory (the workload names it): a LoRA fine-tune sharded at ZeRO-3 over four devices (its ds_z3 config), and a
    // QLoRA fine-tune on one device (on-the-fly 4-bit bitsandbytes, no DeepSpeed).
    texts.push_back({"8b lora llama-factory h100s", R"({"name": "8B LoRA with LLaMA-Factory, ZeRO-3", "stage": "finetune", "model": "llama-3.1-8b",
        "precision": "bf16", "framework": "llama-factory", "train": {"method": "lora", "lora_rank": 16, "seq_len": 4096, "micro_batch": 2,
        "global_batch": 32, "zero_stage": 3, "checkpointing": "full", "runtime": "hf-peft"}, "hardware": {"devices": ["H100 SXM"], "count": 4}})"});
    texts.push_back({"8b qlora llama-factory 4090", R"({"name": "8B QLoRA with LLaMA-Factory on one card", "stage": "finetune", "model": "llama-3.1-8b",
        "precision": {"weights": "nf4", "compute": "bf16"}, "framework": "llama-factory", "train": {"method": "qlora", "seq_len": 2048,
        "micro_batch": 1, "checkpointing": "full", "tokens": 1e7}, "hardware": {"devices": ["RTX 4090"], "count": 1}})"});
    // Pretraining on a device whose board holds 4 (MI250X: interconnect domain 4), so the launchers start 4 a node.
    texts.push_back({"qwen2.5-7b pretraining mi250x", R"({"name": "Qwen2.5 7B pretraining on MI250X", "stage": "pretrain", "model": "Qwen2.5-7B",
        "train": {"tokens": 1e10, "seq_len": 4096, "global_batch": 256}, "hardware": {"devices": ["MI250X"], "count": 16},
        "decision": {"stack": "pytorch-rocm"}})"});
    std::vector<Planned> out;
    for (const auto& [label, text] : texts) {
        auto parsed = parse_workload(text, catalog());
        EXPECT_TRUE(parsed.issues.empty()) << label;
        Issues issues;
        const AssumptionSet as = assumptions_for(catalog(), parsed.workload.assumptions, issues);
        EXPECT_TRUE(issues.empty()) << label;
        out.push_back({label, parsed.workload, plan(parsed.workload, catalog(), as, false)});
    }
    return out;
}

const std::vector<Planned>& planned() {
    static const std::vector<Planned> all = every_workload();
    return all;
}

// [SECTION] Reading commands back ---------------------------------------------------------------------------

// Shell words: line continuations joined, double quotes kept as part of the word's text but not split on.
std::vector<std::string> words(const std::string& text) {
    std::string joined;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') { ++i; continue; }
        joined += text[i];
    }
    std::vector<std::string> out;
    std::string w;
    bool quoted = false;
    for (char ch : joined) {
        if (ch == '"') quoted = !quoted;
        if (!quoted && (ch == ' ' || ch == '\n' || ch == '\t')) {
            if (!w.empty()) out.push_back(w);
            w.clear();
        } else {
            w += ch;
        }
    }
    if (!w.empty()) out.push_back(w);
    return out;
}

bool is_flag(const std::string& w) { return w.size() > 1 && w[0] == '-' && !std::isdigit(static_cast<unsigned char>(w[1])); }

std::string unquote(std::string v) {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return v;
}

// The flags of a command line: {flag: value or ""}. key=value words (torchtune overrides, environment variables
// before the program) count as flags named by their key.
std::multimap<std::string, std::string> flags_of(const std::string& text) {
    const auto ws = words(text);
    std::multimap<std::string, std::string> out;
    for (size_t i = 0; i < ws.size(); ++i) {
        if (is_flag(ws[i])) {
            const bool valued = i + 1 < ws.size() && !is_flag(ws[i + 1]) && ws[i + 1].find('=') == std::string::npos;
            out.emplace(ws[i], valued ? unquote(ws[i + 1]) : "");
            if (valued) ++i;
        } else if (const auto eq = ws[i].find('='); eq != std::string::npos && eq > 0 && ws[i][0] != '"') {
            out.emplace(ws[i].substr(0, eq), unquote(ws[i].substr(eq + 1)));
        }
    }
    return out;
}

// A small TOML reader for what a training config holds: [section] tables of key = integer, "string" or boolean.
// Returns section.key -> value text; any other line is a parse error.
std::map<std::string, std::string> parse_toml(const std::string& text, std::string& error) {
    std::map<std::string, std::string> out;
    std::string section;
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        const auto first = line.find_first_not_of(' ');
        if (first == std::string::npos || line[first] == '#') continue;
        if (line[first] == '[') {
            const auto close = line.find(']');
            if (close == std::string::npos) { error = "line " + std::to_string(n) + ": unclosed table"; return out; }
            section = line.substr(first + 1, close - first - 1);
            continue;
        }
        const auto eq = line.find(" = ");
        if (eq == std::string::npos || section.empty()) { error = "line " + std::to_string(n) + ": expected key = value in a table"; return out; }
        const std::string key = line.substr(first, eq - first), value = line.substr(eq + 3);
        const bool is_string = value.size() >= 2 && value.front() == '"' && value.back() == '"' && value.find('"', 1) == value.size() - 1;
        const bool is_int = !value.empty() && value.find_first_not_of("-0123456789") == std::string::npos;
        if (!is_string && !is_int && value != "true" && value != "false") { error = "line " + std::to_string(n) + ": bad value " + value; return out; }
        if (out.count(section + "." + key)) { error = "line " + std::to_string(n) + ": duplicate key " + key; return out; }
        out[section + "." + key] = unquote(value);
    }
    return out;
}

// A small YAML reader for what an options file holds: block mappings by indentation, "key: value" scalars.
// Returns the dotted path -> value text; a line that is neither "key:" nor "key: value" is a parse error.
std::map<std::string, std::string> parse_yaml(const std::string& text, std::string& error) {
    std::map<std::string, std::string> out;
    std::vector<std::pair<size_t, std::string>> open; // (indent, key) of the mappings holding the line
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        const auto first = line.find_first_not_of(' ');
        if (first == std::string::npos || line[first] == '#') continue;
        const auto colon = line.find(": ", first);
        const bool opens = line.back() == ':' && line.find(':', first) == line.size() - 1;
        if (colon == std::string::npos && !opens) { error = "line " + std::to_string(n) + ": expected key: value or key:"; return out; }
        while (!open.empty() && open.back().first >= first) open.pop_back();
        if (!open.empty() && first <= open.back().first) { error = "line " + std::to_string(n) + ": bad indentation"; return out; }
        std::string path;
        for (const auto& o : open) path += o.second + ".";
        if (opens) { open.push_back({first, line.substr(first, line.size() - 1 - first)}); continue; }
        const std::string key = path + line.substr(first, colon - first);
        if (out.count(key)) { error = "line " + std::to_string(n) + ": duplicate key " + key; return out; }
        out[key] = line.substr(colon + 2);
    }
    return out;
}

// Checks one command or config against its tool: the program it starts with, every flag or key recorded, every
// value one the source lists. Returns the flags it used (key -> value).
std::multimap<std::string, std::string> check_command(const RunCommand& c, const std::string& label) {
    const ToolInterface* t = catalog().find_tool(c.tool);
    EXPECT_NE(t, nullptr) << label << ": unknown tool " << c.tool;
    if (!t) return {};
    EXPECT_EQ(c.release, t->release) << label;
    std::multimap<std::string, std::string> used;
    if (!c.file.empty() && t->syntax == "json") {
        // A JSON config: every leaf by its dotted path (nlohmann's parser, not the writer's code).
        const auto j = nlohmann::json::parse(c.text, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << label << ": " << c.file << " does not parse";
        const auto flat = j.is_discarded() ? nlohmann::json::object() : j.flatten();
        if (!j.is_discarded())
            for (const auto& [path, value] : flat.items()) {
                std::string key = path.substr(1);
                std::replace(key.begin(), key.end(), '/', '.');
                used.emplace(key, value.is_string() ? value.get<std::string>() : value.dump());
            }
    } else if (!c.file.empty() && t->syntax == "yaml") {
        std::string error;
        for (const auto& kv : parse_yaml(c.text, error)) used.insert(kv);
        EXPECT_EQ(error, "") << label << ": " << c.file << " does not parse";
    } else if (!c.file.empty()) {
        EXPECT_EQ(t->syntax, "toml") << label;
        std::string error;
        for (const auto& kv : parse_toml(c.text, error)) used.insert(kv);
        EXPECT_EQ(error, "") << label << ": " << c.file << " does not parse";
    } else {
        // The flags after the program's own words ("python -m sglang.launch_server": -m is the interpreter's).
        std::string rest = c.text;
        if (const auto at = rest.find(t->program); at != std::string::npos) rest.erase(at, t->program.size());
        used = flags_of(rest);
        // The program: first words, after any environment assignments.
        const auto ws = words(c.text);
        size_t i = 0;
        while (i < ws.size() && ws[i].find('=') != std::string::npos) ++i;
        std::string program;
        for (size_t k = i; k < ws.size() && program.size() < t->program.size(); ++k) program += (program.empty() ? "" : " ") + ws[k];
        EXPECT_EQ(program, t->program) << label << ": " << c.text;
        if (t->syntax == "overrides") {
            // tune run [--nnodes N --nproc-per-node N] RECIPE --config NAME key=value ...
            size_t k = i + 2;
            while (k < ws.size() && is_flag(ws[k])) k += 2;
            EXPECT_TRUE(k < ws.size() && t->recipes.count(ws[k])) << label << ": recipe " << (k < ws.size() ? ws[k] : "(none)");
        }
    }
    for (const auto& [flag, value] : used) {
        const ToolFlag* f = t->flag(flag);
        EXPECT_NE(f, nullptr) << label << ": " << c.tool << " " << t->release << " has no recorded flag " << flag;
        if (f && !f->values.empty()) {
            EXPECT_NE(std::find(f->values.begin(), f->values.end(), value), f->values.end())
                << label << ": " << flag << " " << value << " is not a value its source lists";
        }
    }
    return used;
}

int as_int(const std::multimap<std::string, std::string>& m, const std::string& key) {
    const auto it = m.find(key);
    return it == m.end() ? -1 : std::stoi(it->second);
}

// [SECTION] Every scenario and example ------------------------------------------------------------------------

TEST(RunIt, EveryWorkloadHasCommandsOrAReason) {
    ASSERT_GE(planned().size(), 27u); // 18 single scenarios + a team of 3 + 10 examples + 3
    int with_commands = 0;
    for (const auto& p : planned()) {
        const RunIt& r = p.plan.run;
        if (r.available) {
            ++with_commands;
            EXPECT_FALSE(r.deploy.empty()) << p.label;
            EXPECT_FALSE(r.measure.empty()) << p.label;
            EXPECT_FALSE(r.predicted.empty()) << p.label;
            EXPECT_EQ(r.reason, "") << p.label;
        } else {
            EXPECT_NE(r.reason, "") << p.label;
            EXPECT_TRUE(r.deploy.empty() && r.measure.empty()) << p.label;
        }
    }
    EXPECT_GE(with_commands, 15);
}

TEST(RunIt, EveryCommandUsesOnlyFlagsRecordedForItsToolRelease) {
    int checked = 0;
    for (const auto& p : planned()) {
        std::vector<RunIt> runs{p.plan.run};
        for (const auto& c : p.plan.candidates) runs.push_back(run_it(p.plan, p.workload, catalog(), c.device));
        for (const auto& r : runs)
            for (const auto* list : {&r.deploy, &r.measure})
                for (const auto& c : *list) {
                    check_command(c, p.label + " on " + r.device + " (" + c.what + ")");
                    EXPECT_TRUE(c.unrecorded.empty()) << p.label << ": no release was chosen, so nothing is unrecorded";
                    ++checked;
                }
    }
    EXPECT_GT(checked, 200);
}

const Planned& find(const std::string& label); // a workload of planned() by its label (below)

// A release chosen for a tool (tools.json "<id>@<release>"): each command of that tool names the release, and the flags
// or keys it writes that the release does not record are exactly its `unrecorded` list (read back here with this
// file's own readers, against the release's flag set), so an outdated one is visible and nothing else is.
std::set<std::string> unrecorded_by_reading(const RunCommand& c, const ToolInterface& t) {
    std::multimap<std::string, std::string> used;
    if (!c.file.empty()) {
        std::string error;
        for (const auto& kv : parse_toml(c.text, error)) used.insert(kv);
        EXPECT_EQ(error, "");
    } else {
        std::string rest = c.text;
        if (const auto at = rest.find(t.program); at != std::string::npos) rest.erase(at, t.program.size());
        used = flags_of(rest);
    }
    std::set<std::string> out;
    for (const auto& [flag, value] : used) {
        const ToolFlag* f = t.flag(flag);
        if (!f) out.insert(flag);
        else if (!f->values.empty() && std::find(f->values.begin(), f->values.end(), value) == f->values.end()) out.insert(flag + " " + value);
    }
    return out;
}

TEST(RunIt, AChosenReleaseListsExactlyTheFlagsItDoesNotRecord) {
    const ToolInterface* old = catalog().find_tool("torchtitan@v0.1.0");
    ASSERT_NE(old, nullptr);
    int commands = 0;
    for (const auto& p : planned())
        for (const auto& cand : p.plan.candidates) {
            const RunIt r = run_it(p.plan, p.workload, catalog(), cand.device, {.releases = {{"torchtitan", "v0.1.0"}}});
            for (const auto* list : {&r.deploy, &r.measure})
                for (const auto& c : *list) {
                    if (c.tool.rfind("torchtitan", 0) != 0) continue;
                    ++commands;
                    EXPECT_EQ(c.tool, "torchtitan@v0.1.0") << p.label;
                    EXPECT_EQ(c.release, old->release) << p.label;
                    EXPECT_EQ(std::set<std::string>(c.unrecorded.begin(), c.unrecorded.end()), unrecorded_by_reading(c, *old)) << p.label << ": " << c.what;
                }
        }
    EXPECT_GT(commands, 0);
    // The frontier pretraining run (DeepSeek-V3, expert parallel 8): torchtitan v0.1.0 had no expert parallelism and
    // registered only llama3 (config_manager.py and models/__init__.py at the tag), so both show.
    const Planned& f = find("scenario frontier-pretraining");
    const RunIt r = run_it(f.plan, f.workload, catalog(), "", {.releases = {{"torchtitan", "v0.1.0"}}});
    ASSERT_TRUE(r.available);
    const RunCommand& toml = r.deploy.front();
    ASSERT_FALSE(toml.file.empty());
    EXPECT_NE(std::find(toml.unrecorded.begin(), toml.unrecorded.end(), "parallelism.expert_parallel_degree"), toml.unrecorded.end());
    if (f.workload.model.model.id == "deepseek-v3") {
        EXPECT_NE(std::find(toml.unrecorded.begin(), toml.unrecorded.end(), "model.name deepseek_v3"), toml.unrecorded.end());
    }
    EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) { return n.rfind("torchtitan v0.1.0", 0) == 0; }));
    // The current release records every key it writes.
    for (const auto& c : f.plan.run.deploy) EXPECT_TRUE(c.unrecorded.empty());
}

TEST(RunIt, AReleaseNotRecordedIsNamed) {
    const Planned& f = find("scenario frontier-pretraining");
    const RunIt r = run_it(f.plan, f.workload, catalog(), "", {.releases = {{"torchtitan", "v9.9"}}});
    EXPECT_EQ(r.deploy.front().tool, "torchtitan");
    EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
        return n.rfind("no release \"v9.9\" of torchtitan is recorded in catalog/tools.json (recorded: v0.2.2", 0) == 0;
    }));
    EXPECT_EQ(find_tool_release(catalog(), "torchtitan", "v0.2.2"), catalog().find_tool("torchtitan")); // the current entry by its release
}

// Each command or config holds the candidate's layout, read back from its text.
TEST(RunIt, CommandsAndConfigsHoldThePlannedLayout) {
    std::set<std::string> tools_seen;
    for (const auto& p : planned())
        for (const auto& cand : p.plan.candidates) {
            const RunIt r = run_it(p.plan, p.workload, catalog(), cand.device);
            const Layout& l = cand.layout;
            const std::string label = p.label + " on " + cand.device;
            for (const auto* list : {&r.deploy, &r.measure})
                for (const auto& c : *list) {
                    const auto f = check_command(c, label);
                    tools_seen.insert(c.tool);
                    if (c.tool == "vllm-serve" && p.workload.stage == Stage::embed) {
                        // One server a device running the planned encoder batch: items in a step, and their tokens in one step.
                        const EmbedSpec& e = p.workload.embed;
                        EXPECT_EQ(f.find("--runner")->second, "pooling") << label;
                        EXPECT_EQ(as_int(f, "--max-num-seqs"), int(e.batch_size)) << label;
                        EXPECT_EQ(as_int(f, "--max-num-batched-tokens"), int(e.batch_size * e.tokens_per_item)) << label;
                        EXPECT_EQ(as_int(f, "--max-model-len"), int(e.tokens_per_item)) << label;
                        EXPECT_EQ(f.count("--tensor-parallel-size"), 0u) << label;
                    } else if (c.tool == "vllm-bench-serve" && p.workload.stage == Stage::embed) {
                        EXPECT_EQ(f.find("--backend")->second, "openai-embeddings") << label;
                        EXPECT_EQ(f.find("--endpoint")->second, "/v1/embeddings") << label;
                        EXPECT_EQ(as_int(f, "--random-input-len"), int(p.workload.embed.tokens_per_item)) << label;
                        EXPECT_EQ(as_int(f, "--max-concurrency"), int(p.workload.embed.batch_size)) << label;
                        EXPECT_EQ(as_int(f, "--num-prompts") % int(p.workload.embed.batch_size), 0) << label << ": whole batches";
                    } else if (c.tool == "openrlhf-train-ppo-ray") {
                        // The plan's two pools (rl.h): the actor on the trainer devices, the vLLM engines on the rollout devices.
                        const int per_node = as_int(f, "--actor.num_gpus_per_node"), nodes = as_int(f, "--actor.num_nodes");
                        EXPECT_GE(nodes * per_node, cand.rl.trainer_devices) << label;
                        EXPECT_LT((nodes - 1) * per_node, cand.rl.trainer_devices) << label;
                        EXPECT_EQ(as_int(f, "--vllm.num_engines") * as_int(f, "--vllm.tensor_parallel_size"), cand.rl.rollout_devices) << label;
                        EXPECT_EQ(as_int(f, "--vllm.tensor_parallel_size"), cand.rl.replica_devices) << label;
                        EXPECT_EQ(as_int(f, "--ds.zero_stage"), l.zero_stage) << label;
                        EXPECT_EQ(as_int(f, "--train.micro_batch_size"), l.micro_batch) << label;
                        EXPECT_EQ(as_int(f, "--rollout.batch_size"), int(std::ceil(p.workload.serve.concurrent_users))) << label;
                        EXPECT_EQ(f.count("--train.colocate_all"), 0u) << label << ": the pools are separate devices";
                    } else if (c.tool == "axolotl" && !c.file.empty()) {
                        EXPECT_EQ(as_int(f, "micro_batch_size"), l.micro_batch) << label;
                        EXPECT_EQ(as_int(f, "gradient_accumulation_steps"), l.micro_batches) << label;
                        EXPECT_EQ(as_int(f, "sequence_len"), int(p.workload.train.seq_len)) << label;
                        EXPECT_EQ(as_int(f, "lora_r"), int(p.workload.train.lora_rank)) << label;
                        const bool qlora = p.workload.train.method == TrainMethod::qlora;
                        EXPECT_EQ(f.find("adapter")->second, qlora ? "qlora" : "lora") << label;
                        EXPECT_EQ(f.count("load_in_4bit"), qlora ? 1u : 0u) << label;
                        // FSDP as planned: sharded at ZeRO-2 and 3 over several devices, resharding after forward at 3.
                        const bool fsdp = cand.count > 1 && l.zero_stage >= 2;
                        ASSERT_EQ(f.count("fsdp_config.reshard_after_forward"), fsdp ? 1u : 0u) << label;
                        if (fsdp) {
                            EXPECT_EQ(f.find("fsdp_config.reshard_after_forward")->second, l.zero_stage >= 3 ? "true" : "false") << label;
                        }
                    } else if (c.tool == "llama-factory" && !c.file.empty()) {
                        EXPECT_EQ(as_int(f, "per_device_train_batch_size"), l.micro_batch) << label;
                        EXPECT_EQ(as_int(f, "gradient_accumulation_steps"), l.micro_batches) << label;
                        EXPECT_EQ(as_int(f, "cutoff_len"), int(p.workload.train.seq_len)) << label;
                        const TrainMethod m = p.workload.train.method;
                        EXPECT_EQ(f.find("finetuning_type")->second, m == TrainMethod::full ? "full" : "lora") << label;
                        EXPECT_EQ(f.count("quantization_bit"), m == TrainMethod::qlora ? 1u : 0u) << label;
                        // DeepSpeed as planned: its ZeRO-3 config at stage 3, ZeRO-2 at 1 and 2 over several devices, offload where planned.
                        const bool ds = l.zero_stage >= 3 || p.workload.train.cpu_offload || (cand.count > 1 && l.zero_stage >= 1);
                        ASSERT_EQ(f.count("deepspeed"), ds ? 1u : 0u) << label;
                        if (ds) {
                            EXPECT_EQ(f.find("deepspeed")->second.find(l.zero_stage >= 3 ? "ds_z3" : "ds_z2"), std::string("examples/deepspeed/").size()) << label;
                            EXPECT_EQ(f.find("deepspeed")->second.find("_offload") != std::string::npos, p.workload.train.cpu_offload) << label;
                        }
                    } else if (c.tool == "vllm-serve") {
                        EXPECT_EQ(as_int(f, "--tensor-parallel-size"), l.tensor_parallel) << label;
                        EXPECT_EQ(f.count("--enable-expert-parallel"), l.expert_parallel > 1 ? 1u : 0u) << label;
                        // One replica's devices: tensor x data (the expert-parallel groups) x pipeline parallel.
                        const int dp = std::max(1, as_int(f, "--data-parallel-size")), pp = std::max(1, as_int(f, "--pipeline-parallel-size"));
                        if (cand.fits) { // the candidate's count may be several replicas (users split over them)
                            EXPECT_EQ(l.tensor_parallel * dp * pp * std::max(1, l.data_parallel), cand.count) << label;
                        }
                        EXPECT_EQ(as_int(f, "--max-model-len"), int(p.workload.serve.context_tokens)) << label;
                    } else if (c.tool == "sglang-launch-server") {
                        // One instance of --tp-size devices (x --pp-size stages) is the replica; under expert parallelism the
                        // experts span all of it and the attention runs tensor parallel over tp / dp of them.
                        const int tp = as_int(f, "--tp-size"), pp = std::max(1, as_int(f, "--pp-size"));
                        if (cand.fits) {
                            EXPECT_EQ(tp * pp * std::max(1, l.data_parallel), cand.count) << label;
                        }
                        EXPECT_EQ(std::max(1, as_int(f, "--ep-size")), l.expert_parallel) << label;
                        const int dp = std::max(1, as_int(f, "--dp-size"));
                        EXPECT_EQ(tp / dp, l.expert_parallel > 1 ? l.tensor_parallel : tp) << label;
                        EXPECT_EQ(f.count("--enable-dp-attention"), dp > 1 ? 1u : 0u) << label;
                        EXPECT_EQ(pp, l.pipeline_parallel) << label;
                        EXPECT_EQ(as_int(f, "--context-length"), int(p.workload.serve.context_tokens)) << label;
                        const auto b = cand.figures.find("batch_sequences");
                        if (b != cand.figures.end()) {
                            EXPECT_EQ(as_int(f, "--max-running-requests"), int(std::lround(b->second.value))) << label;
                        }
                        ASSERT_EQ(f.count("--mem-fraction-static"), 1u) << label;
                        const double fraction = std::stod(f.find("--mem-fraction-static")->second);
                        EXPECT_TRUE(fraction > 0 && fraction <= 1) << label << ": " << fraction;
                    } else if (c.tool == "trtllm-serve" && c.file.empty()) {
                        // One instance of --tp_size devices (x --pp_size stages) is the replica; under expert parallelism the
                        // experts span all of it (--ep_size) and attention runs data parallel (the options file).
                        const int tp = as_int(f, "--tp_size"), pp = std::max(1, as_int(f, "--pp_size"));
                        if (cand.fits) {
                            EXPECT_EQ(tp * pp * std::max(1, l.data_parallel), cand.count) << label;
                        }
                        EXPECT_EQ(std::max(1, as_int(f, "--ep_size")), l.expert_parallel) << label;
                        EXPECT_EQ(tp, l.expert_parallel > 1 ? l.expert_parallel : l.tensor_parallel) << label;
                        EXPECT_EQ(pp, l.pipeline_parallel) << label;
                        EXPECT_EQ(as_int(f, "--max_seq_len"), int(p.workload.serve.context_tokens)) << label;
                        if (const auto b = cand.figures.find("batch_sequences"); b != cand.figures.end()) {
                            EXPECT_EQ(as_int(f, "--max_batch_size"), int(std::lround(b->second.value))) << label;
                        }
                        EXPECT_EQ(f.find("--config")->second, "trtllm_config.yml") << label;
                        EXPECT_EQ(f.count("--enable_chunked_prefill"), p.workload.serve.prompt_tokens > as_int(f, "--max_num_tokens") ? 1u : 0u) << label;
                        const double fraction = std::stod(f.find("--kv_cache_free_gpu_memory_fraction")->second);
                        EXPECT_TRUE(fraction > 0 && fraction <= 1) << label << ": " << fraction;
                    } else if (c.tool == "trtllm-serve") {
                        EXPECT_EQ(c.file, "trtllm_config.yml") << label;
                        EXPECT_EQ(f.find("kv_cache_config.dtype")->second, p.workload.precision.kv_cache == "fp8" ? "fp8" : "auto") << label;
                        const bool groups = l.expert_parallel > std::max(1, l.tensor_parallel);
                        EXPECT_EQ(f.count("enable_attention_dp"), groups ? 1u : 0u) << label;
                    } else if (c.tool == "trtllm-benchmark-serving" || c.tool == "mlx-lm-benchmark") {
                        const bool trt = c.tool == "trtllm-benchmark-serving";
                        EXPECT_EQ(as_int(f, trt ? "--random-input-len" : "--prompt-tokens"), int(p.workload.serve.prompt_tokens)) << label;
                        EXPECT_EQ(as_int(f, trt ? "--random-output-len" : "--generation-tokens"), int(p.workload.serve.output_tokens)) << label;
                        EXPECT_EQ(as_int(f, trt ? "--max-concurrency" : "--batch-size"), r.setup.concurrency) << label;
                    } else if (c.tool == "mlx-lm-server") {
                        EXPECT_EQ(as_int(f, "--decode-concurrency"), r.setup.concurrency) << label;
                        EXPECT_EQ(as_int(f, "--max-tokens"), int(p.workload.serve.output_tokens)) << label;
                    } else if (c.tool == "sglang-bench-serving") {
                        EXPECT_EQ(as_int(f, "--random-input-len"), int(p.workload.serve.prompt_tokens)) << label;
                        EXPECT_EQ(as_int(f, "--random-output-len"), int(p.workload.serve.output_tokens)) << label;
                        EXPECT_EQ(f.find("--random-range-ratio")->second, "1") << label; // fixed lengths, as planned
                        EXPECT_EQ(as_int(f, "--max-concurrency"), r.setup.concurrency) << label;
                        EXPECT_EQ(as_int(f, "--num-prompts"), r.setup.requests) << label;
                    } else if (c.tool == "megatron-lm") {
                        EXPECT_EQ(as_int(f, "--tensor-model-parallel-size"), l.tensor_parallel) << label;
                        EXPECT_EQ(as_int(f, "--pipeline-model-parallel-size"), l.pipeline_parallel) << label;
                        EXPECT_EQ(as_int(f, "--context-parallel-size"), l.context_parallel) << label;
                        EXPECT_EQ(as_int(f, "--micro-batch-size"), l.micro_batch) << label;
                        EXPECT_EQ(as_int(f, "--global-batch-size"), l.micro_batch * l.micro_batches * l.data_parallel) << label;
                        EXPECT_EQ(as_int(f, "--nproc_per_node") * as_int(f, "--nnodes") >= cand.count, true) << label;
                    } else if (c.tool == "torchtitan" && !c.file.empty()) {
                        EXPECT_EQ(as_int(f, "parallelism.tensor_parallel_degree"), l.tensor_parallel) << label;
                        EXPECT_EQ(as_int(f, "parallelism.pipeline_parallel_degree"), l.pipeline_parallel) << label;
                        EXPECT_EQ(as_int(f, "parallelism.context_parallel_degree"), l.context_parallel) << label;
                        EXPECT_EQ(as_int(f, "parallelism.expert_parallel_degree"), l.expert_parallel) << label;
                        EXPECT_EQ(as_int(f, "parallelism.data_parallel_replicate_degree") * as_int(f, "parallelism.data_parallel_shard_degree"),
                                  l.data_parallel) << label;
                        // Devices = DP x TP x PP x CP (expert parallelism is drawn from the data-parallel ranks).
                        EXPECT_EQ(l.data_parallel * l.tensor_parallel * l.pipeline_parallel * l.context_parallel, cand.count) << label;
                        EXPECT_EQ(as_int(f, "training.global_batch_size"), l.micro_batch * l.micro_batches * l.data_parallel) << label;
                        EXPECT_EQ(as_int(f, "training.seq_len"), int(p.workload.train.seq_len)) << label;
                    } else if (c.tool == "deepspeed" && !c.file.empty()) {
                        EXPECT_EQ(as_int(f, "zero_optimization.stage"), l.zero_stage) << label;
                        EXPECT_EQ(as_int(f, "train_micro_batch_size_per_gpu"), l.micro_batch) << label;
                        EXPECT_EQ(as_int(f, "gradient_accumulation_steps"), l.micro_batches) << label;
                        // DeepSpeed's identity (config-json.md): micro-batch x accumulation x devices.
                        EXPECT_EQ(as_int(f, "train_batch_size"), l.micro_batch * l.micro_batches * cand.count) << label;
                        for (const char* k : {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "zero_optimization.stage"})
                            EXPECT_EQ(f.find(k)->second.find_first_not_of("0123456789"), std::string::npos) << label << ": " << k << " is a whole number";
                        EXPECT_EQ(f.count("zero_optimization.offload_optimizer.device"), p.workload.train.cpu_offload ? 1u : 0u) << label;
                    } else if (c.tool == "deepspeed") {
                        EXPECT_GE(as_int(f, "--num_nodes") * as_int(f, "--num_gpus"), cand.count) << label;
                        EXPECT_EQ(f.count("--deepspeed"), 1u) << label;
                    } else if (c.tool == "torchtune") {
                        EXPECT_EQ(as_int(f, "batch_size"), l.micro_batch) << label;
                        EXPECT_EQ(as_int(f, "gradient_accumulation_steps"), l.micro_batches) << label;
                        EXPECT_EQ(as_int(f, "tokenizer.max_seq_len"), int(p.workload.train.seq_len)) << label;
                    }
                }
        }
    for (const char* t : {"vllm-serve", "vllm-bench-serve", "sglang-launch-server", "sglang-bench-serving", "trtllm-serve", "trtllm-benchmark-serving",
                          "mlx-lm-server", "mlx-lm-benchmark", "llama-server", "llama-bench", "torchtune", "torchtitan", "megatron-lm", "deepspeed",
                          "openrlhf-train-ppo-ray", "axolotl", "llama-factory"})
        EXPECT_TRUE(tools_seen.count(t)) << t << " is never written by any scenario or example";
}

// [SECTION] Worked cases ----------------------------------------------------------------------------------

const Planned& find(const std::string& label) {
    for (const auto& p : planned())
        if (p.label == label) return p;
    static const Planned none;
    ADD_FAILURE() << "no workload " << label;
    return none;
}

// The adapted layers the plan counted are the ones the config trains: a workload that says train.lora_targets
// "query-value" gets LLaMA-Factory's lora_target "q_proj,v_proj" (its comma-separated module names), not "all".
TEST(RunIt, LlamaFactoryWritesTheWorkloadsAdaptedLayers) {
    auto parsed = parse_workload(R"({"name": "8B LoRA on q and v with LLaMA-Factory", "stage": "finetune", "model": "llama-3.1-8b",
        "precision": "bf16", "framework": "llama-factory", "train": {"method": "lora", "lora_rank": 16, "lora_targets": "query-value",
        "seq_len": 4096, "micro_batch": 2, "global_batch": 32, "zero_stage": 3, "checkpointing": "full", "runtime": "hf-peft"},
        "hardware": {"devices": ["H100 SXM"], "count": 4}})", catalog());
    ASSERT_TRUE(parsed.issues.empty());
    Issues issues;
    const Plan p = plan(parsed.workload, catalog(), assumptions_for(catalog(), parsed.workload.assumptions, issues), false);
    ASSERT_TRUE(p.run.available) << p.run.reason;
    ASSERT_FALSE(p.run.deploy.empty());
    ASSERT_EQ(p.run.deploy[0].tool, "llama-factory");
    std::string error;
    const auto y = parse_yaml(p.run.deploy[0].text, error);
    ASSERT_EQ(error, "");
    EXPECT_EQ(y.at("lora_target"), "q_proj,v_proj");
}

// Bank assistant (tests/data/workloads/bank-70b-fp8.json): 8,192-token context, 2,000 prompt and 500 output
// tokens, 200 users, FP8 KV cache; the plan recommends H200 with tensor parallel 4 per replica.
TEST(RunIt, BankAssistantServesAndBenchmarksTheWorkloadItself) {
    const Planned& p = find("bank-70b-fp8.json");
    const RunIt& r = p.plan.run;
    ASSERT_TRUE(r.available) << r.reason;
    EXPECT_EQ(r.device, p.plan.recommendation.option.device);
    ASSERT_EQ(r.deploy.size(), 1u);
    const auto serve = flags_of(r.deploy[0].text);
    EXPECT_EQ(serve.find("--kv-cache-dtype")->second, "fp8");
    // FP8 weights (the workload's precision.weights): vLLM's --quantization fp8 loads a 16-bit checkpoint as FP8.
    ASSERT_EQ(serve.count("--quantization"), 1u);
    EXPECT_EQ(serve.find("--quantization")->second, "fp8");
    EXPECT_EQ(as_int(serve, "--max-model-len"), 8192);
    EXPECT_EQ(as_int(serve, "--max-num-seqs"), 200);
    ASSERT_EQ(r.measure.size(), 1u);
    const auto bench = flags_of(r.measure[0].text);
    EXPECT_EQ(as_int(bench, "--random-input-len"), 2000);
    EXPECT_EQ(as_int(bench, "--random-output-len"), 500);
    EXPECT_EQ(as_int(bench, "--max-concurrency"), 200);
    EXPECT_EQ(bench.find("--dataset-name")->second, "random");
}

// SGLang (the workload names it): the server gets the candidate's layout and the planned batch, FP8 KV as SGLang spells
// it (server_args.py lists fp8_e4m3 and fp8_e5m2, no plain fp8); the benchmark runs the workload's fixed lengths; the
// predicted lines are the candidate's figures under bench_serving's words.
TEST(RunIt, SglangServesTheChosenLayoutAndBenchmarksTheWorkload) {
    const Planned& p = find("sglang qwen3-30b-a3b");
    const RunIt& r = p.plan.run;
    ASSERT_TRUE(r.available) << r.reason;
    ASSERT_EQ(r.deploy.size(), 1u);
    EXPECT_EQ(r.deploy[0].tool, "sglang-launch-server");
    const auto serve = flags_of(r.deploy[0].text);
    EXPECT_EQ(serve.find("--kv-cache-dtype")->second, "fp8_e4m3");
    EXPECT_EQ(serve.find("--dtype")->second, "bfloat16");
    EXPECT_EQ(as_int(serve, "--context-length"), 4096);
    ASSERT_EQ(r.measure.size(), 1u);
    const auto bench = flags_of(r.measure[0].text);
    EXPECT_EQ(bench.find("--backend")->second, "sglang");
    EXPECT_EQ(as_int(bench, "--random-input-len"), 1000);
    EXPECT_EQ(as_int(bench, "--random-output-len"), 1000);
    EXPECT_EQ(r.setup.prompt_tokens, 1000);
    const Candidate* c = nullptr;
    for (const auto& x : p.plan.candidates)
        if (x.device == r.device) c = &x;
    ASSERT_NE(c, nullptr);
    std::map<std::string, PredictedLine> by;
    for (const auto& l : r.predicted) by[l.metric] = l;
    EXPECT_DOUBLE_EQ(by.at("Mean TPOT (ms)").value, c->figures.at("decode_step_s").value * 1000);
    EXPECT_DOUBLE_EQ(by.at("Mean ITL (ms)").value, c->figures.at("decode_step_s").value * 1000);
    EXPECT_DOUBLE_EQ(by.at("Output token throughput (tok/s)").value, c->figures.at("throughput_tokens_per_s").value);
    EXPECT_TRUE(by.count("Median TTFT (ms)"));
    // An FP8 checkpoint of DeepSeek-V3: --quantization fp8, one of the values server_args.py lists.
    const Planned& ds = find("sglang deepseek-v3");
    ASSERT_TRUE(ds.plan.run.available) << ds.plan.run.reason;
    EXPECT_EQ(flags_of(ds.plan.run.deploy[0].text).find("--quantization")->second, "fp8");
    // NVFP4 weights and an FP4 KV cache: --quantization modelopt_fp4 and --kv-cache-dtype fp4_e2m1 (SGLang's
    // docs/advanced_features/quantized_kv_cache.md at 70310f0: "Enable FP4 E2M1 KV cache ... --kv-cache-dtype fp4_e2m1").
    const Planned& fp4 = find("sglang llama-3.1-70b nvfp4");
    ASSERT_TRUE(fp4.plan.run.available) << fp4.plan.run.reason;
    const auto fp4_flags = flags_of(fp4.plan.run.deploy[0].text);
    EXPECT_EQ(fp4_flags.find("--quantization")->second, "modelopt_fp4");
    EXPECT_EQ(fp4_flags.find("--kv-cache-dtype")->second, "fp4_e2m1");
}

// Under expert parallelism a latent-attention model runs attention data parallel, one group a device (plan.cpp,
// eval_serve_layout): SGLang's --tp-size N --ep-size N --dp-size N --enable-dp-attention.
TEST(RunIt, SglangWritesDataParallelAttentionForAWideExpertLayout) {
    int wide = 0;
    for (const auto& p : planned())
        for (const auto& cand : p.plan.candidates) {
            if (cand.layout.expert_parallel <= 1 || p.workload.framework != "sglang") continue;
            const RunIt r = run_it(p.plan, p.workload, catalog(), cand.device);
            if (!r.available) continue;
            const auto f = flags_of(r.deploy[0].text);
            EXPECT_EQ(as_int(f, "--ep-size"), cand.layout.expert_parallel) << p.label << " on " << cand.device;
            EXPECT_EQ(as_int(f, "--tp-size"), cand.layout.expert_parallel) << p.label << " on " << cand.device;
            if (cand.layout.tensor_parallel < cand.layout.expert_parallel) {
                EXPECT_EQ(as_int(f, "--dp-size"), cand.layout.expert_parallel / cand.layout.tensor_parallel) << p.label << " on " << cand.device;
            }
            ++wide;
        }
    EXPECT_GT(wide, 0) << "no SGLang workload was laid out expert parallel";
}

const Candidate& candidate_of(const Planned& p, const std::string& device) {
    for (const auto& c : p.plan.candidates)
        if (c.device == device) return c;
    ADD_FAILURE() << p.label << ": no candidate on " << device;
    static const Candidate none;
    return none;
}

// TensorRT-LLM (the workload names it): the options file and trtllm-serve with the candidate's layout and the planned
// batch, word for word; the KV cache fraction is serve.py's "free GPU memory fraction reserved for KV Cache, after
// allocating model weights and buffers": the plan's KV cache over the device's memory less the plan's other terms,
// rounded up to a hundredth (at most what the usable share leaves). The benchmark runs the workload's fixed lengths.
TEST(RunIt, TensorRtLlmWritesTheServerItsOptionsAndItsBenchmark) {
    const Planned& p = find("trtllm llama-3.1-70b fp8");
    const RunIt& r = p.plan.run;
    ASSERT_TRUE(r.available) << r.reason;
    const Candidate& c = candidate_of(p, r.device);
    const Device* d = catalog().device_by_id(r.device);
    ASSERT_NE(d, nullptr);
    ASSERT_EQ(c.layout.expert_parallel, 1);
    ASSERT_EQ(c.layout.pipeline_parallel, 1);
    // The planned batch: the candidate's batch_sequences where it has one, else the workload's 64 users.
    const auto planned_batch = c.figures.find("batch_sequences");
    const int batch = planned_batch != c.figures.end() ? int(std::lround(planned_batch->second.value)) : 64;
    const double device_bytes = d->runtime_total_bytes > 0 ? d->runtime_total_bytes : d->memory_bytes;
    const double others = c.memory.total_bytes - c.memory.kv_cache_bytes, free_bytes = device_bytes - others;
    const double fraction = std::min(std::floor((c.memory.capacity_bytes - others) / free_bytes * 100) / 100,
                                     std::ceil(c.memory.kv_cache_bytes / free_bytes * 100) / 100);
    // An iteration's token budget is the plan's engine step, prefill_chunk_tokens (2048 in catalog/assumptions.json); the
    // 2000-token prompt fits it, so no chunked prefill.
    Issues issues;
    const int step_tokens = int(assumptions_for(catalog(), {}, issues).typical.prefill_chunk_tokens);
    ASSERT_EQ(step_tokens, 2048);
    const ToolInterface* serve = catalog().find_tool("trtllm-serve");
    ASSERT_NE(serve, nullptr);
    ASSERT_EQ(r.deploy.size(), 2u);
    EXPECT_EQ(r.deploy[0].file, "trtllm_config.yml");
    EXPECT_EQ(r.deploy[0].text, "# TensorRT-LLM " + serve->release + ": LLM API options for trtllm-serve --config\n"
                                "kv_cache_config:\n  dtype: fp8\n");
    EXPECT_EQ(r.deploy[1].text, "trtllm-serve \"$MODEL\" \\\n  --backend pytorch \\\n  --tp_size " + std::to_string(c.layout.tensor_parallel) +
                                    " \\\n  --max_batch_size " + std::to_string(batch) + " \\\n  --max_num_tokens " + std::to_string(step_tokens) +
                                    " \\\n  --max_seq_len 8192 \\\n  --kv_cache_free_gpu_memory_fraction " + format_sig(fraction, 2) +
                                    " \\\n  --host 127.0.0.1 \\\n  --port 8000 \\\n  --config trtllm_config.yml");
    EXPECT_GT(fraction, 0);
    EXPECT_LE(fraction, 1);
    ASSERT_EQ(r.measure.size(), 1u);
    EXPECT_EQ(r.measure[0].text, "python -m tensorrt_llm.serve.scripts.benchmark_serving \\\n  --backend openai \\\n  --host 127.0.0.1 \\\n"
                                 "  --port 8000 \\\n  --model \"$MODEL\" \\\n  --dataset-name random \\\n  --random-ids \\\n  --random-input-len 2000 \\\n"
                                 "  --random-output-len 500 \\\n  --tokenize-on-client \\\n  --max-concurrency " + std::to_string(batch) +
                                     " \\\n  --num-prompts " + std::to_string(std::max(100, 10 * batch)) +
                                     " \\\n  --ignore-eos \\\n  --percentile-metrics ttft,tpot,itl \\\n  --metric-percentiles 50,99");
    std::map<std::string, PredictedLine> by;
    for (const auto& l : r.predicted) by[l.metric] = l;
    EXPECT_DOUBLE_EQ(by.at("Mean TPOT (ms)").value, c.figures.at("decode_step_s").value * 1000);
    EXPECT_DOUBLE_EQ(by.at("Output token throughput (tok/s)").value, c.figures.at("throughput_tokens_per_s").value);
    // No quantization flag: the note says the checkpoint names it.
    EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) { return n.find("trtllm-serve has no quantization flag") != std::string::npos; }));
    // A MoE laid out expert parallel: --ep_size and attention data parallel in the options file; its prompts are longer
    // than an iteration's budget, so prefilled in chunks.
    const Planned& ds = find("trtllm deepseek-v3");
    int wide = 0;
    for (const auto& cand : ds.plan.candidates) {
        if (cand.layout.expert_parallel <= 1) continue;
        const RunIt w = run_it(ds.plan, ds.workload, catalog(), cand.device);
        if (!w.available) continue;
        ++wide;
        EXPECT_EQ(as_int(flags_of(w.deploy[1].text), "--ep_size"), cand.layout.expert_parallel) << cand.device;
        const bool dp = cand.layout.expert_parallel > cand.layout.tensor_parallel;
        EXPECT_EQ(w.deploy[0].text.find("enable_attention_dp: true\n") != std::string::npos, dp) << cand.device;
        EXPECT_NE(w.deploy[0].text.find("  dtype: auto\n"), std::string::npos) << cand.device; // a BF16 KV cache: the checkpoint's
        EXPECT_EQ(flags_of(w.deploy[1].text).count("--enable_chunked_prefill"), 1u) << cand.device; // 6,000-token prompts, 2,048-token steps
    }
    EXPECT_GT(wide, 0);
}

// MLX (the workload names it, on Apple silicon): mlx_lm.server decoding the planned batch and mlx_lm.benchmark with the
// workload's lengths, word for word; prompt_tps is prompt tokens over the plan's time to first token, generation_tps one
// sequence's decode speed (the batch's tokens a second above one), peak_memory the plan's arrays in GB.
TEST(RunIt, MlxWritesTheServerAndItsBenchmark) {
    const Planned& p = find("mlx qwen2.5-7b edge");
    const RunIt& r = p.plan.run;
    ASSERT_TRUE(r.available) << r.reason;
    ASSERT_EQ(r.deploy.size(), 1u);
    EXPECT_EQ(r.deploy[0].text, "mlx_lm.server \\\n  --model \"$MODEL\" \\\n  --decode-concurrency 1 \\\n  --max-tokens 300 \\\n  --host 127.0.0.1 \\\n"
                                "  --port 8080");
    ASSERT_EQ(r.measure.size(), 1u);
    EXPECT_EQ(r.measure[0].text, "mlx_lm.benchmark \\\n  --model \"$MODEL\" \\\n  --prompt-tokens 1000 \\\n  --generation-tokens 300 \\\n  --batch-size 1");
    const Candidate& c = candidate_of(p, r.device);
    std::map<std::string, PredictedLine> by;
    for (const auto& l : r.predicted) by[l.metric] = l;
    ASSERT_EQ(by.size(), 3u);
    EXPECT_DOUBLE_EQ(by.at("prompt_tps").value, 1000 / c.figures.at("ttft_s").value);
    EXPECT_DOUBLE_EQ(by.at("generation_tps").value, c.figures.at("decode_tokens_per_s_per_user").value);
    EXPECT_DOUBLE_EQ(by.at("peak_memory (GB)").value, (c.memory.total_bytes - c.memory.overhead_bytes) / 1e9);
    // A team served in a batch: the server decodes the batch, the benchmark runs it, and an 8-bit KV cache it cannot hold is named.
    const Planned& t = find("mlx llama-3.1-8b team");
    const RunIt& team = t.plan.run;
    ASSERT_TRUE(team.available) << team.reason;
    const int batch = team.setup.concurrency;
    EXPECT_GT(batch, 1);
    EXPECT_EQ(as_int(flags_of(team.deploy[0].text), "--decode-concurrency"), batch);
    EXPECT_EQ(as_int(flags_of(team.measure[0].text), "--batch-size"), batch);
    EXPECT_TRUE(std::any_of(team.notes.begin(), team.notes.end(), [](const std::string& n) { return n.rfind("mlx_lm.server has no KV cache quantization flag", 0) == 0; }));
}

// Devices per node come from the catalog device: MI250X's 4-device board, GB200's 4-GPU instance (BM.GPU.GB200.4), H100's
// 8-GPU server; the launchers start that many a node and the note names where the count came from.
TEST(RunIt, LaunchersStartTheCatalogsDevicesPerNode) {
    struct Row {
        const char* label;
        const char* device;
        int per_node;
        const char* from;
    };
    const Row rows[] = {
        {"qwen2.5-7b pretraining mi250x", "mi250x", 4, "4 devices per node, from the 4-device board of AMD Instinct MI250X (OAM, two GCDs) (its interconnect domain)"},
    };
    for (const auto& row : rows) {
        const Planned& p = find(row.label);
        const Candidate& c = candidate_of(p, row.device);
        ASSERT_GT(c.count, row.per_node) << row.label;
        const RunIt r = run_it(p.plan, p.workload, catalog(), row.device);
        ASSERT_TRUE(r.available) << r.reason;
        const auto f = flags_of(r.deploy[0].text);
        EXPECT_EQ(as_int(f, "--nproc_per_node"), row.per_node) << row.label;
        EXPECT_EQ(as_int(f, "--nnodes"), (c.count + row.per_node - 1) / row.per_node) << row.label;
        EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.rfind(row.from, 0) == 0; })) << row.label;
    }
    // The same pretraining job on 16 of each: GB200 NVL72 rents as 4-GPU instances, H100 SXM as 8-GPU servers.
    auto parsed = parse_workload(R"({"stage": "pretrain", "model": "Qwen2.5-7B", "train": {"tokens": 1e11, "seq_len": 4096, "global_batch": 512},
        "hardware": {"devices": ["H100 SXM", "GB200 NVL72"], "count": 16}})", catalog());
    ASSERT_TRUE(parsed.issues.empty());
    Issues issues;
    const Plan plan16 = plan(parsed.workload, catalog(), assumptions_for(catalog(), parsed.workload.assumptions, issues), false);
    for (const auto& [device, per_node] : {std::pair<std::string, int>{"gb200-nvl72", 4}, {"h100-sxm", 8}}) {
        const RunIt r = run_it(plan16, parsed.workload, catalog(), device);
        ASSERT_TRUE(r.available) << device << ": " << r.reason;
        EXPECT_EQ(as_int(flags_of(r.deploy[0].text), "--nproc_per_node"), per_node) << device;
    }
    // A serving replica wider than a GB200 node (4): vLLM's command says how to span nodes, with the count's source.
    auto served = parse_workload(R"({"stage": "serve", "model": "deepseek-v3", "precision": {"weights": "fp8", "kv_cache": "fp8", "compute": "fp8"},
        "serve": {"context_tokens": 8192, "prompt_tokens": 2000, "output_tokens": 500, "concurrent_users": 256},
        "hardware": {"devices": ["GB200 NVL72"]}})", catalog());
    ASSERT_TRUE(served.issues.empty());
    const Plan wide = plan(served.workload, catalog(), assumptions_for(catalog(), served.workload.assumptions, issues), false);
    const Candidate& gb = wide.candidates.front();
    const int replica = gb.count / std::max(1, gb.layout.data_parallel);
    ASSERT_GT(replica, 4) << "DeepSeek-V3 in FP8 needs more than one 4-GPU node a replica";
    const RunIt r = run_it(wide, served.workload, catalog(), "gb200-nvl72");
    ASSERT_TRUE(r.available) << r.reason;
    EXPECT_EQ(r.deploy[0].tool, "vllm-serve");
    const std::string note = "One replica spans " + std::to_string(replica) + " devices, more than one node's 4: start a Ray cluster over its nodes";
    EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) {
        return n.rfind(note, 0) == 0 && n.find("from the catalog's smallest whole unit of NVIDIA GB200 NVL72 (per Blackwell GPU) (BM.GPU.GB200.4)") != std::string::npos;
    }));
}

// The predicted lines are the candidate's own figures in the benchmark's units: ms = s x 1000, the band kept.
TEST(RunIt, PredictedLinesAreThePlansFiguresInTheBenchmarksUnits) {
    const Planned& p = find("bank-70b-fp8.json");
    const Candidate* c = nullptr;
    for (const auto& x : p.plan.candidates)
        if (x.device == p.plan.run.device) c = &x;
    ASSERT_NE(c, nullptr);
    std::map<std::string, PredictedLine> by;
    for (const auto& l : p.plan.run.predicted) by[l.metric] = l;
    ASSERT_TRUE(by.count("Mean TPOT (ms)"));
    const Figure& step = c->figures.at("decode_step_s");
    EXPECT_DOUBLE_EQ(by["Mean TPOT (ms)"].value, step.value * 1000);
    EXPECT_DOUBLE_EQ(by["Mean TPOT (ms)"].low, step.low * 1000);
    EXPECT_DOUBLE_EQ(by["Mean TPOT (ms)"].high, step.high * 1000);
    ASSERT_TRUE(by.count("Output token throughput (tok/s)"));
    EXPECT_DOUBLE_EQ(by["Output token throughput (tok/s)"].value, c->figures.at("throughput_tokens_per_s").value);
    EXPECT_TRUE(by["Output token throughput (tok/s)"].banded);
    // Every line's band holds its value.
    for (const auto& q : planned())
        for (const auto& l : q.plan.run.predicted)
            if (l.banded) {
                EXPECT_TRUE(l.low <= l.value * (1 + 1e-9) && l.value <= l.high * (1 + 1e-9)) << q.label << ": " << l.metric;
            }
}

// A training plan: step time and tokens per device are the candidate's figures; tokens/s per device is the
// cluster's figure over its devices.
TEST(RunIt, TrainingPredictionsComeFromTheChosenPoint) {
    const Planned& p = find("scenario frontier-pretraining");
    const RunIt& r = p.plan.run;
    ASSERT_TRUE(r.available) << r.reason;
    const Candidate* c = nullptr;
    for (const auto& x : p.plan.candidates)
        if (x.device == r.device) c = &x;
    ASSERT_NE(c, nullptr);
    bool step = false, tokens = false;
    for (const auto& l : r.predicted) {
        if (l.figure == "step_time_s") {
            step = true;
            EXPECT_NEAR(l.value, c->figures.at("step_time_s").value * (l.unit == "ms" ? 1000 : 1), 1e-9 * l.value);
        }
        if (l.figure == "train_tokens_per_s") {
            tokens = true;
            EXPECT_NEAR(l.value * c->count, c->figures.at("train_tokens_per_s").value, 1e-6 * l.value * c->count);
        }
    }
    EXPECT_TRUE(step && tokens);
}

// torchtune writes the planned sharding and offload in the keys its memory guide names (docs/source/tutorials/
// memory_optimizations.rst at v0.6.1): "use CPU-offloading in distributed recipes, use fsdp_cpu_offload=True"; the
// single-device recipes take torchao's CPUOffloadOptimizer; fsdp_reshard_after_forward False is SHARD_GRAD_OP (ZeRO-2).
TEST(RunIt, TorchtuneWritesThePlannedOffloadAndSharding) {
    struct Row {
        const char* label;
        const char* key;
        const char* value; // "" = the key must be absent
    };
    const Row rows[] = {
        {"8b full fine-tune offload one a100", "optimizer", "torchao.prototype.low_bit_optim.CPUOffloadOptimizer"},
        {"8b full fine-tune offload one a100", "fsdp_cpu_offload", ""},
        {"70b lora offload a100s", "fsdp_cpu_offload", "True"},
        {"70b lora offload a100s", "optimizer", ""},
        {"8b full fine-tune zero-2 h100s", "fsdp_reshard_after_forward", "False"},
        {"8b full fine-tune zero-2 h100s", "fsdp_cpu_offload", ""},
        {"7b-full-finetune-adam.json", "fsdp_cpu_offload", ""},
    };
    for (const auto& row : rows) {
        const Planned& p = find(row.label);
        ASSERT_FALSE(p.plan.candidates.empty()) << row.label;
        const Candidate& c = p.plan.candidates.front(); // one device kind in each workload
        EXPECT_TRUE(c.fits) << row.label;
        const RunIt r = run_it(p.plan, p.workload, catalog(), c.device);
        ASSERT_TRUE(r.available) << row.label << ": " << r.reason;
        ASSERT_FALSE(r.deploy.empty()) << row.label;
        EXPECT_EQ(r.deploy[0].tool, "torchtune") << row.label;
        const auto f = check_command(r.deploy[0], row.label);
        const auto it = f.find(row.key);
        if (*row.value) {
            ASSERT_NE(it, f.end()) << row.label << ": no " << row.key << " in " << r.deploy[0].text;
            EXPECT_EQ(it->second, row.value) << row.label;
        } else {
            EXPECT_EQ(it, f.end()) << row.label << ": " << row.key << " written although not planned";
        }
    }
    // The layouts those rows rest on: one device for the first, several for the others, ZeRO-2 as asked.
    EXPECT_EQ(find("8b full fine-tune offload one a100").plan.candidates.front().count, 1);
    EXPECT_GT(find("70b lora offload a100s").plan.candidates.front().count, 1);
    EXPECT_EQ(find("8b full fine-tune zero-2 h100s").plan.candidates.front().layout.zero_stage, 2);
    // A plan made for another trainer's storage rules says the prediction is not torchtune's.
    const Planned& lp = find("70b lora offload a100s");
    const RunIt lora = run_it(lp.plan, lp.workload, catalog(), lp.plan.candidates.front().device);
    EXPECT_TRUE(std::none_of(lora.notes.begin(), lora.notes.end(), [](const std::string& n) { return n.find("storage rules") != std::string::npos; }))
        << "LoRA's default runtime is torchtune";
    const RunIt& full = find("7b-full-finetune-adam.json").plan.run;
    if (full.available) {
        EXPECT_TRUE(std::any_of(full.notes.begin(), full.notes.end(), [](const std::string& n) { return n.find("train.runtime hf-peft") != std::string::npos; }));
    }
}

// [SECTION] No command, and bad input ----------------------------------------------------------------------

// Nightly embeddings (catalog/scenarios/team-nightly-embeddings.json): 50,000 items of 512 tokens, the default encoder
// batch of 64 (workload.h EmbedSpec). One vLLM pooling server a device runs the batch: --max-num-seqs 64 and
// --max-num-batched-tokens 64 x 512 = 32,768 (by hand); the benchmark keeps 64 requests of 512 tokens in flight. What it
// prints is the plan's items a second of one device: Request throughput = items_per_s / devices, Total token throughput =
// that x 512, Mean E2EL = one batch's time, 64 x devices / items_per_s.
TEST(RunIt, EmbeddingJobServesThePoolingRunnerAndBenchmarksTheBatch) {
    const Planned& p = find("scenario team-nightly-embeddings");
    const RunIt& r = p.plan.run;
    ASSERT_TRUE(r.available) << r.reason;
    ASSERT_EQ(r.deploy.size(), 1u);
    EXPECT_EQ(r.deploy[0].tool, "vllm-serve");
    const auto serve = flags_of(r.deploy[0].text);
    EXPECT_EQ(serve.find("--runner")->second, "pooling");
    EXPECT_EQ(as_int(serve, "--max-num-seqs"), 64);
    EXPECT_EQ(as_int(serve, "--max-num-batched-tokens"), 32768);
    EXPECT_EQ(as_int(serve, "--max-model-len"), 512);
    EXPECT_EQ(serve.find("--dtype")->second, "float16"); // the scenario's precision: fp16
    ASSERT_EQ(r.measure.size(), 1u);
    const auto bench = flags_of(r.measure[0].text);
    EXPECT_EQ(bench.find("--backend")->second, "openai-embeddings");
    EXPECT_EQ(as_int(bench, "--random-input-len"), 512);
    EXPECT_EQ(as_int(bench, "--max-concurrency"), 64);
    EXPECT_EQ(r.setup.prompt_tokens, 512);
    EXPECT_EQ(r.setup.output_tokens, 0);
    EXPECT_EQ(r.setup.concurrency, 64);
    EXPECT_EQ(as_int(bench, "--num-prompts"), r.setup.requests);
    const Candidate& c = candidate_of(p, r.device);
    const double devices = std::max(1, c.layout.data_parallel), items = c.figures.at("items_per_s").value;
    // At least ten batches and at most the job's own 50,000 items on one device.
    EXPECT_GE(r.setup.requests, 640);
    EXPECT_LE(r.setup.requests, std::ceil(50000 / devices / 64) * 64);
    std::map<std::string, PredictedLine> by;
    for (const auto& l : r.predicted) by[l.metric] = l;
    EXPECT_NEAR(by.at("Request throughput (req/s)").value, items / devices, 1e-9 * items);
    EXPECT_NEAR(by.at("Total token throughput (tok/s)").value, items / devices * 512, 1e-9 * items * 512);
    EXPECT_NEAR(by.at("Mean E2EL (ms)").value, 64 * devices / items * 1e3, 1e-9);
    EXPECT_TRUE(by.at("Request throughput (req/s)").banded);
    EXPECT_LE(by.at("Mean E2EL (ms)").low, by.at("Mean E2EL (ms)").high);
}

// Reasoning RL on a 1T MoE (catalog/scenarios/reasoning-rl-1t-moe.json): 256 rollouts a step of 2,000 prompt and 16,000
// output tokens. The plan's split (rl.h) is written as OpenRLHF's two pools: the actor on actor.num_nodes x
// actor.num_gpus_per_node = the trainer devices, vllm.num_engines x vllm.tensor_parallel_size = the rollout devices. By
// hand: rollout.batch_size 256, max_new_tokens 16,000, data.max_len 2,000 + 16,000 = 18,000, and the measure run's
// data.max_samples = 5 steps x 256 = 1,280 prompts. The predicted phases are the pools' own times.
TEST(RunIt, RlJobWritesThePlannedSplitAsOpenRlhfActorAndEngines) {
    const Planned& p = find("scenario reasoning-rl-1t-moe");
    const RunIt& r = p.plan.run;
    ASSERT_TRUE(r.available) << r.reason;
    const Candidate& c = candidate_of(p, r.device);
    ASSERT_TRUE(c.rl.sized) << c.rl.explanation;
    ASSERT_EQ(r.deploy.size(), 1u);
    ASSERT_EQ(r.measure.size(), 1u);
    const auto run = flags_of(r.deploy[0].text), measure = flags_of(r.measure[0].text);
    EXPECT_EQ(as_int(run, "--actor.num_nodes") * as_int(run, "--actor.num_gpus_per_node"), c.rl.trainer_devices);
    EXPECT_EQ(c.rl.trainer_devices, c.count);
    EXPECT_EQ(as_int(run, "--vllm.num_engines"), c.rl.rollout_replicas);
    EXPECT_EQ(as_int(run, "--vllm.tensor_parallel_size"), c.rl.replica_devices);
    EXPECT_EQ(as_int(run, "--vllm.num_engines") * as_int(run, "--vllm.tensor_parallel_size"), c.rl.rollout_devices);
    EXPECT_EQ(as_int(run, "--rollout.batch_size"), 256);
    EXPECT_EQ(as_int(run, "--train.batch_size"), 256);
    EXPECT_EQ(as_int(run, "--rollout.max_new_tokens"), 16000);
    EXPECT_EQ(as_int(run, "--data.max_len"), 18000);
    EXPECT_EQ(as_int(run, "--ds.zero_stage"), 3); // the scenario's train.zero_stage
    EXPECT_EQ(run.count("--actor.gradient_checkpointing_enable"), 1u); // train.checkpointing full
    EXPECT_EQ(run.find("--algo.advantage.estimator")->second, "reinforce"); // no critic model
    EXPECT_EQ(run.find("--algo.kl.init_coef")->second, "0");              // no reference model
    EXPECT_EQ(as_int(measure, "--data.max_samples"), 1280);
    EXPECT_EQ(run.count("--data.max_samples"), 0u); // the scenario gives no token count: the whole dataset
    std::map<std::string, PredictedLine> by;
    for (const auto& l : r.predicted) by[l.metric] = l;
    EXPECT_DOUBLE_EQ(by.at("timing/generation").value, c.rl.generation_s);
    EXPECT_DOUBLE_EQ(by.at("timing/ppo_train").value, c.rl.train_s);
    EXPECT_DOUBLE_EQ(by.at("timing/broadcast").value, c.rl.sync_s);
    EXPECT_DOUBLE_EQ(by.at("timing/step_total").value, c.figures.at("rl_step_s").value);
    // rl.h: the step is its three phases one after another.
    EXPECT_NEAR(by.at("timing/step_total").value, c.rl.generation_s + c.rl.train_s + c.rl.sync_s, 1e-9 * c.rl.step_s);
}

// The small team's occasional QLoRA fine-tune (catalog/scenarios/small-team-three-jobs.json, card 2: Llama 3.1 8B in
// NF4, rank 16, 2,048-token sequences, micro-batch 1, 5e7 tokens): its plan follows the QLoRA reference profile (bitsandbytes
// + PEFT, paged AdamW), which Axolotl trains with, so the config is Axolotl's. By hand: 5e7 / (1 x 2,048) = 24,414.06 ->
// 24,415 steps when the plan keeps one sequence a step on one device; the measure run stops at 20.
TEST(RunIt, QloraFineTuneWritesAnAxolotlConfigWithThePlannedAdapter) {
    const Planned& p = find("scenario small-team-three-jobs card 2");
    const RunIt& r = p.plan.run;
    ASSERT_TRUE(r.available) << r.reason;
    ASSERT_EQ(r.deploy.size(), 2u);
    EXPECT_EQ(r.deploy[0].tool, "axolotl");
    EXPECT_EQ(r.deploy[0].file, "hwplan_axolotl.yml");
    EXPECT_EQ(r.deploy[1].text, "axolotl train hwplan_axolotl.yml");
    std::string error;
    const auto y = parse_yaml(r.deploy[0].text, error);
    ASSERT_EQ(error, "");
    EXPECT_EQ(y.at("adapter"), "qlora");
    EXPECT_EQ(y.at("load_in_4bit"), "true");
    EXPECT_EQ(y.at("lora_r"), "16");
    EXPECT_EQ(y.at("sequence_len"), "2048");
    EXPECT_EQ(y.at("optimizer"), "paged_adamw_32bit"); // the profile pages the optimizer state (runtimes.json qlora-reference)
    EXPECT_EQ(y.at("gradient_checkpointing"), "true"); // the card's checkpointing: full
    const Candidate& c = candidate_of(p, r.device);
    const double global = double(std::max(1, c.layout.micro_batch)) * std::max(1, c.layout.micro_batches) * std::max(1, c.layout.data_parallel);
    EXPECT_EQ(std::stod(y.at("max_steps")), std::ceil(5e7 / (global * 2048)));
    if (global == 1) {
        EXPECT_EQ(y.at("max_steps"), "24415");
    }
    const auto m = parse_yaml(r.measure[0].text, error);
    EXPECT_EQ(m.at("max_steps"), "20");
    std::map<std::string, PredictedLine> by;
    for (const auto& l : r.predicted) by[l.metric] = l;
    EXPECT_NEAR(by.at("train_steps_per_second").value, 1 / c.figures.at("step_time_s").value, 1e-12);
    EXPECT_EQ(by.at("memory/device_reserved (GiB)").unit, "GiB");
    EXPECT_EQ(by.count("MFU (%)"), 0u); // Axolotl's log has none
}

// LLaMA-Factory named by the workload: Llama 3.1 8B LoRA, rank 16, 4,096-token sequences, micro-batch 2 and a global batch of 32
// on 4 H100s at ZeRO-3. By hand: 32 / (2 x 4) = 4 accumulation steps when the plan keeps the 4 devices data parallel; its
// ZeRO-3 config (examples/deepspeed/ds_z3_config.json) under torchrun; LoRA on every linear layer; the Trainer's summary
// and effective tokens a second predicted, no memory line (LLaMA-Factory prints none).
TEST(RunIt, LlamaFactoryWritesItsYamlWithThePlannedShardingAndAMeasureRun) {
    const Planned& p = find("8b lora llama-factory h100s");
    const RunIt& r = p.plan.run;
    ASSERT_TRUE(r.available) << r.reason;
    ASSERT_EQ(r.deploy.size(), 2u);
    ASSERT_EQ(r.measure.size(), 2u);
    EXPECT_EQ(r.deploy[0].tool, "llama-factory");
    EXPECT_EQ(r.deploy[0].file, "hwplan_llama_factory.yaml");
    const Candidate& c = candidate_of(p, r.device);
    ASSERT_EQ(c.count, 4);
    ASSERT_EQ(c.layout.data_parallel, 4);
    std::string error;
    const auto y = parse_yaml(r.deploy[0].text, error);
    ASSERT_EQ(error, "");
    EXPECT_EQ(y.at("stage"), "sft");
    EXPECT_EQ(y.at("finetuning_type"), "lora");
    EXPECT_EQ(y.at("lora_rank"), "16");
    EXPECT_EQ(y.at("lora_target"), "all");
    EXPECT_EQ(y.at("cutoff_len"), "4096");
    EXPECT_EQ(y.at("packing"), "true");
    EXPECT_EQ(y.at("per_device_train_batch_size"), "2");
    EXPECT_EQ(y.at("gradient_accumulation_steps"), "4");
    EXPECT_EQ(y.at("deepspeed"), "examples/deepspeed/ds_z3_config.json");
    EXPECT_EQ(y.at("bf16"), "true");
    EXPECT_EQ(y.at("optim"), "adamw_torch_fused");
    EXPECT_EQ(y.count("disable_gradient_checkpointing"), 0u); // checkpointing full: LLaMA-Factory's default
    EXPECT_EQ(y.count("quantization_bit"), 0u);
    EXPECT_EQ(y.count("max_steps"), 0u); // the workload gives no token count
    EXPECT_EQ(parse_yaml(r.measure[0].text, error).at("max_steps"), "20");
    EXPECT_EQ(r.deploy[1].text, "FORCE_TORCHRUN=1 llamafactory-cli train hwplan_llama_factory.yaml \\\n  model_name_or_path=\"$MODEL\" \\\n"
                                "  dataset=\"$DATASET\" \\\n  template=\"$TEMPLATE\"");
    std::map<std::string, PredictedLine> by;
    for (const auto& l : r.predicted) by[l.metric] = l;
    ASSERT_EQ(r.predicted.size(), 2u);
    EXPECT_NEAR(by.at("train_steps_per_second").value, 1 / c.figures.at("step_time_s").value, 1e-12);
    EXPECT_NEAR(by.at("effective_tokens_per_sec").value, c.figures.at("train_tokens_per_s").value / 4, 1e-9);
}

// One card, QLoRA: on-the-fly 4-bit bitsandbytes, no DeepSpeed and no torchrun; 1e7 tokens over the planned micro-batch x
// accumulation x 2,048 tokens a step, ceil'd to whole steps.
TEST(RunIt, LlamaFactoryQloraOnOneCardQuantizesOnTheFly) {
    const Planned& p = find("8b qlora llama-factory 4090");
    const RunIt& r = p.plan.run;
    ASSERT_TRUE(r.available) << r.reason;
    std::string error;
    const auto y = parse_yaml(r.deploy[0].text, error);
    ASSERT_EQ(error, "");
    EXPECT_EQ(y.at("quantization_bit"), "4");
    EXPECT_EQ(y.at("quantization_method"), "bnb");
    EXPECT_EQ(y.at("finetuning_type"), "lora");
    EXPECT_EQ(y.count("deepspeed"), 0u);
    const Candidate& c = candidate_of(p, r.device);
    const double global = double(std::max(1, c.layout.micro_batch)) * std::max(1, c.layout.micro_batches);
    EXPECT_EQ(std::stod(y.at("max_steps")), std::ceil(1e7 / (global * 2048)));
    EXPECT_EQ(r.deploy[1].text.rfind("llamafactory-cli train hwplan_llama_factory.yaml", 0), 0u) << r.deploy[1].text;
}

TEST(RunIt, HostedApisAndUnrecordedStacksSayWhy) {
    for (const auto& p : planned()) {
        const RunIt& r = p.plan.run;
        if (p.plan.recommendation.found && p.plan.recommendation.option.kind == "api") {
            EXPECT_FALSE(r.available) << p.label;
            EXPECT_NE(r.reason.find("hosted API"), std::string::npos) << p.label;
        }
    }
    // An embedding job on a device vLLM does not run on (Apple silicon: Metal, no CUDA or ROCm) has no command, and says why.
    auto parsed = parse_workload(R"({"stage": "embed", "model": "bge-base-en-v1.5", "precision": "fp16", "embed": {"items": 1000},
        "hardware": {"devices": ["Apple M4 Max"]}})", catalog());
    ASSERT_TRUE(parsed.issues.empty());
    Issues issues;
    const Plan plan_ = plan(parsed.workload, catalog(), assumptions_for(catalog(), parsed.workload.assumptions, issues), false);
    ASSERT_FALSE(plan_.candidates.empty());
    const RunIt apple = run_it(plan_, parsed.workload, catalog(), plan_.candidates.front().device);
    EXPECT_FALSE(apple.available);
    EXPECT_NE(apple.reason.find("vLLM's pooling runner"), std::string::npos) << apple.reason;
    EXPECT_TRUE(apple.deploy.empty() && apple.measure.empty());
}

TEST(RunIt, AnUnknownDeviceIsAReasonNotACrash) {
    const Planned& p = find("bank-70b-fp8.json");
    const RunIt r = run_it(p.plan, p.workload, catalog(), "no-such-device");
    EXPECT_FALSE(r.available);
    EXPECT_EQ(r.reason, "no candidate on device \"no-such-device\" in this plan");
}

TEST(RunIt, PlanJsonCarriesTheRunSectionBesideItsKeys) {
    const auto doc = nlohmann::json::parse(plan_json(catalog(), read(std::filesystem::path(HWPLAN_SOURCE_DIR) / "tests/data/workloads/bank-70b-fp8.json")));
    const auto& plan = doc.at("plan");
    for (const char* k : {"name", "stage", "recommendation", "decision", "options", "model", "precision", "candidates", "notes", "run"})
        EXPECT_TRUE(plan.contains(k)) << k;
    EXPECT_TRUE(plan["run"]["available"].get<bool>());
    EXPECT_EQ(plan["run"]["deploy"][0]["tool"], "vllm-serve");
    EXPECT_TRUE(plan["run"]["predicted"][0].contains("low"));
}

// [SECTION] The catalog file ---------------------------------------------------------------------------------

TEST(RunIt, EveryRecordedFlagNamesASourceWithARepositoryAndADate) {
    ASSERT_GE(catalog().tools.size(), 7u);
    for (const auto& t : catalog().tools)
        for (const auto* group : {&t.flags, &t.recipes})
            for (const auto& [flag, f] : *group) {
                const std::string& source = f.source; // clang 14 cannot capture a structured binding
                const auto s = std::find_if(catalog().tool_sources.begin(), catalog().tool_sources.end(), [&](const Source& x) { return x.id == source; });
                ASSERT_NE(s, catalog().tool_sources.end()) << t.id << " " << flag;
                // Read on a date (YYYY-MM-DD) since the tools' flags were first recorded.
                EXPECT_TRUE(s->read_on.size() == 10 && s->read_on[4] == '-' && s->read_on[7] == '-' && s->read_on >= "2026-12-02")
                    << t.id << " " << flag << ": " << s->read_on;
                EXPECT_NE(s->locator.find(t.repository), std::string::npos) << t.id << " " << flag << ": the source names another repository";
            }
}

TEST(RunIt, ABadToolsFileNamesThePathAndTheReason) {
    const std::string text = R"({"sources": {"a": {"title": "t", "locator": "l", "read_on": "2026-12-02"}},
        "tools": {"x": {"name": "X", "program": "x", "repository": "o/x", "release": "1", "syntax": "flags",
                        "flags": {"--y": {"meaning": "m", "source": "b"}, "--z": {"meaning": "m", "source": "a"}}}}})";
    const CatalogLoad load = load_catalog({{"tools.json", text}});
    bool found = false;
    for (const auto& i : load.issues)
        if (i.file == "tools.json" && i.path == "tools.x.flags.--y.source") {
            EXPECT_EQ(i.message, "names \"b\", which is not in sources");
            found = true;
        }
    EXPECT_TRUE(found);
}

} // namespace
} // namespace hwplan
