// hwplan/run_it.h: "run it", lesson 004's second check, as commands. For the plan's recommended option (or
// the candidate on one device) the commands that deploy the chosen layout (vLLM, SGLang, TensorRT-LLM, MLX or
// llama.cpp serving; Megatron-LM or torchtitan for pretraining; torchtune, Axolotl, LLaMA-Factory or DeepSpeed for
// fine-tunes; vLLM's pooling runner for embeddings; OpenRLHF for RL), the benchmark that measures it (the engines'
// serving benchmarks, llama-bench, a short training run), and what the plan predicts that benchmark will print, line by line, with
// the band, read from the plan's own figures. Every flag written is one recorded for the tool's release in
// catalog/tools.json; where no command can be written the reason says why.
// Usage: RunIt r = run_it(plan, workload, catalog);          // the recommended option
//        RunIt r = run_it(plan, workload, catalog, "h100-sxm"); // the candidate on that device
//        RunIt r = run_it(plan, workload, catalog, "", {.releases = {{"torchtitan", "v0.1.0"}}}); // checked against an older release
#pragma once
#include <map>
#include <string>
#include <vector>


namespace hwplan {

struct Catalog;
struct Plan;
struct ToolInterface;
struct Workload;

// [SECTION] The run section -------------------------------------------------------------------------------

// One command or config file.
struct RunCommand {
    std::string tool;                   // ToolInterface id
    std::string release;                // the release its flags were read from
    std::string what;                   // "serve one replica", "benchmark one replica", "config file", ...
    std::string text;                   // the command line, or the file's text
    std::string file;                   // a config file's name ("" for a command)
    // Checked against a release chosen with RunItOptions: the flags, keys or "flag value" pairs of the text that the
    // release does not record (an outdated or not yet existing flag). Empty when every one is recorded.
    std::vector<std::string> unrecorded;
    bool operator==(const RunCommand&) const = default;
};

// One line the benchmark prints, with the plan's prediction for it.
struct PredictedLine {
    std::string metric;                 // the benchmark's own words: "Output token throughput (tok/s)"
    std::string figure;                 // where the number comes from in the plan: "throughput_tokens_per_s"
    double value = 0, low = 0, high = 0; // in the benchmark's unit (ms, tok/s, GB)
    std::string unit;
    bool banded = false;                // low..high is the plan's band (else one value)
    std::string note;                   // what to compare it with, when not the same quantity
    bool operator==(const PredictedLine&) const = default;
};

// The setup the measure command runs, so that pasted output can be checked against it and read back (run_compare.h).
struct BenchSetup {
    int prompt_tokens = 0;              // tokens a prompt (vllm --random-input-len, llama-bench -p); 0: not a serving benchmark
    int output_tokens = 0;              // tokens an output (--random-output-len, -n)
    int concurrency = 0;                // requests in flight (--max-concurrency); 1 for llama-bench
    int requests = 0;                   // requests sent (--num-prompts); 0 for llama-bench
    int batch_samples = 0;              // training: samples a step over all devices (DeepSpeed's train_batch_size), which turns
                                        // a logged samples a second into a step time; 0 otherwise
    bool operator==(const BenchSetup&) const = default;
};

struct RunIt {
    bool available = false;             // commands were written
    std::string device;                 // catalog id ("" for an API option)
    int count = 0;                      // devices
    std::string option;                 // the option's name ("rent 2 x ..."), or the candidate's device name
    std::string reason;                 // when not available: why, in one sentence
    std::string entry_point;            // when not available: the provider's documented entry point, if the catalog has it
    std::vector<RunCommand> deploy;
    std::vector<RunCommand> measure;
    std::vector<PredictedLine> predicted;
    BenchSetup setup;                   // what the serving benchmark runs (zero for training runs)
    std::vector<std::string> notes;     // what to fill in ($MODEL), what a line compares
    bool operator==(const RunIt&) const = default;
};

struct RunItOptions {
    // Tool id -> the release to check its commands against ("torchtitan" -> "v0.1.0"): a tools.json entry
    // "<id>@<release>", or the entry <id> itself when its release starts with it. The commands are written as for the
    // current release and carry the chosen release's id, release and the flags it does not record (RunCommand::unrecorded).
    std::map<std::string, std::string> releases;
};

// The run section for the recommended option (`device` empty) or for the candidate on `device`.
RunIt run_it(const Plan& plan, const Workload& workload, const Catalog& catalog, const std::string& device = "", const RunItOptions& options = {});

// The tool release `release` of tool `id` (see RunItOptions); nullptr when none is recorded.
const ToolInterface* find_tool_release(const Catalog& catalog, const std::string& id, const std::string& release);

// The flags (command lines: "--flag", "-f", key=value words and environment assignments; TOML files: "section.key")
// of `command` that `tool` does not record, and "flag value" for a value outside the values its source lists.
std::vector<std::string> unrecorded_flags(const RunCommand& command, const ToolInterface& tool);

std::string run_text(const RunIt& run); // plain text for the CLI

} // namespace hwplan
