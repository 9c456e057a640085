// run_it_test.cpp: the run section (core/src/run_it.cpp). Every command and config written for every scenario
// and example workload is read back here with the tool's own syntax (a tokenizer and a small TOML reader of this
// file, not the writer's), and each flag, key and listed value is checked against catalog/tools.json for the
// tool's release; each config holds the planned layout; the predicted lines are the plan's own figures.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hwplan/assumptions.h"
#include "hwplan/catalog.h"
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

// Checks one command or config against its tool: the program it starts with, every flag or key recorded, every
// value one the source lists. Returns the flags it used (key -> value).
std::multimap<std::string, std::string> check_command(const RunCommand& c, const std::string& label) {
    const ToolInterface* t = catalog().find_tool(c.tool);
    EXPECT_NE(t, nullptr) << label << ": unknown tool " << c.tool;
    if (!t) return {};
    EXPECT_EQ(c.release, t->release) << label;
    std::multimap<std::string, std::string> used;
    if (!c.file.empty()) {
        EXPECT_EQ(t->syntax, "toml") << label;
        std::string error;
        for (const auto& kv : parse_toml(c.text, error)) used.insert(kv);
        EXPECT_EQ(error, "") << label << ": " << c.file << " does not parse";
    } else {
        used = flags_of(c.text);
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
    ASSERT_GE(planned().size(), 25u); // 18 single scenarios + a team of 3 + 10 examples + 1
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
                    ++checked;
                }
    }
    EXPECT_GT(checked, 200);
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
                    if (c.tool == "vllm-serve") {
                        EXPECT_EQ(as_int(f, "--tensor-parallel-size"), l.tensor_parallel) << label;
                        EXPECT_EQ(f.count("--enable-expert-parallel"), l.expert_parallel > 1 ? 1u : 0u) << label;
                        EXPECT_EQ(as_int(f, "--max-model-len"), int(p.workload.serve.context_tokens)) << label;
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
                    } else if (c.tool == "torchtune") {
                        EXPECT_EQ(as_int(f, "batch_size"), l.micro_batch) << label;
                        EXPECT_EQ(as_int(f, "gradient_accumulation_steps"), l.micro_batches) << label;
                        EXPECT_EQ(as_int(f, "tokenizer.max_seq_len"), int(p.workload.train.seq_len)) << label;
                    }
                }
        }
    for (const char* t : {"vllm-serve", "vllm-bench-serve", "llama-server", "llama-bench", "torchtune", "torchtitan", "megatron-lm"})
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
    EXPECT_EQ(as_int(serve, "--max-model-len"), 8192);
    EXPECT_EQ(as_int(serve, "--max-num-seqs"), 200);
    ASSERT_EQ(r.measure.size(), 1u);
    const auto bench = flags_of(r.measure[0].text);
    EXPECT_EQ(as_int(bench, "--random-input-len"), 2000);
    EXPECT_EQ(as_int(bench, "--random-output-len"), 500);
    EXPECT_EQ(as_int(bench, "--max-concurrency"), 200);
    EXPECT_EQ(bench.find("--dataset-name")->second, "random");
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

// [SECTION] No command, and bad input ----------------------------------------------------------------------

TEST(RunIt, HostedApisAndUnrecordedStacksSayWhy) {
    for (const auto& p : planned()) {
        const RunIt& r = p.plan.run;
        if (p.plan.recommendation.found && p.plan.recommendation.option.kind == "api") {
            EXPECT_FALSE(r.available) << p.label;
            EXPECT_NE(r.reason.find("hosted API"), std::string::npos) << p.label;
        }
    }
    const Planned& rl = find("scenario reasoning-rl-1t-moe");
    EXPECT_FALSE(rl.plan.run.available);
    EXPECT_NE(rl.plan.run.reason.find("reinforcement learning"), std::string::npos);
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
                EXPECT_EQ(s->read_on, "2026-12-02") << t.id << " " << flag;
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
