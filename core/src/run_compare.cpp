// run_compare.cpp: predicted against measured for run-it's benchmark (run_compare.h). The numbers compared are
// the run section's predicted lines and the benchmark's printed lines of the same words; nothing is recomputed
// here. The calibration is measurement.h's, and the re-plan is the plan over the catalog extended by it.
#include "hwplan/run_compare.h"

#include <algorithm>
#include <iterator>
#include <cmath>

#include "hwplan/assumptions.h"
#include "hwplan/format.h"
#include "hwplan/guard.h"
#include "hwplan/plan.h"
#include "hwplan/workload.h"
#include "json_reader.h"

namespace hwplan {

namespace {

using namespace detail;

constexpr double kSetupTolerance = 0.10; // a measured prompt, output or concurrency this far from the command's is named
// What a difference in allocated memory (DeepSpeed's MaxMemAllocated) points at: the plan's memory terms, which no
// assumption of the catalog calibrates.
constexpr const char* kAllocatedMemory = "memory_terms";

std::string percent(double ratio) { return format_sig(std::fabs(ratio - 1) * 100, 2) + " %"; }

// The measured lines of a report that no predicted line names, each metric once (its last printing).
std::vector<MeasuredLine> unpredicted(const RunIt& run, const BenchReport& report) {
    std::vector<MeasuredLine> out;
    for (const auto& l : report.lines) {
        const bool predicted = std::any_of(run.predicted.begin(), run.predicted.end(), [&](const PredictedLine& p) {
            return p.metric == l.metric || (p.metric == "Total token throughput (tok/s)" && l.metric == "Total Token throughput (tok/s)");
        });
        if (predicted || report.find(l.metric) != &l) continue;
        out.push_back(l);
    }
    return out;
}

// [SECTION] The tools whose output is read back ---------------------------------------------------------------

// A measure command's tool, what to call its command and its pasted output in a message.
struct ReadBackTool {
    const char* id;                     // ToolInterface id, as the report names the text's tool
    const char* command;                // "the plan's measure command is ..."
    const char* text;                   // "the pasted text is ..."
};

constexpr ReadBackTool kReadBackTools[] = {
    {"vllm-bench-serve", "vllm bench serve", "vLLM's result block"},
    {"sglang-bench-serving", "python -m sglang.bench_serving", "SGLang bench_serving's result block"},
    {"trtllm-benchmark-serving", "python -m tensorrt_llm.serve.scripts.benchmark_serving", "TensorRT-LLM benchmark_serving's result block"},
    {"llama-bench", "llama-bench", "llama-bench's table"},
    {"mlx-lm-benchmark", "mlx_lm.benchmark", "mlx_lm.benchmark's lines"},
    {"torchtitan", "torchtitan's training run", "torchtitan's training log"},
    {"torchtune", "torchtune's fine-tuning run", "torchtune's step log"},
    {"megatron-lm", "Megatron-LM's training run", "Megatron-LM's iteration log"},
    {"deepspeed", "DeepSpeed's training run", "DeepSpeed's throughput log"},
    {"axolotl", "Axolotl's fine-tuning run", "Axolotl's training log"},
    {"llama-factory", "LLaMA-Factory's fine-tuning run", "LLaMA-Factory's train metrics"},
    {"openrlhf-train-ppo-ray", "OpenRLHF's RL run", "OpenRLHF's step log"},
};

const ReadBackTool* read_back_tool(const std::string& id) {
    for (const auto& t : kReadBackTools)
        if (id == t.id) return &t;
    return nullptr;
}

// [SECTION] The setup the benchmark ran, against the command's ----------------------------------------------
void check_setup(const RunIt& run, const BenchReport& report, RunComparison& c) {
    const BenchSetup& s = run.setup;
    if (report.tool == "vllm-bench-serve" || report.tool == "sglang-bench-serving" || report.tool == "trtllm-benchmark-serving") {
        // vLLM's words; SGLang's, and SGLang's spelling of early 2025 (sglang issue #2805)
        const MeasuredLine* conc = report.find("Maximum request concurrency");
        if (!conc) conc = report.find("Max request concurrency");
        if (!conc) conc = report.find("Max reqeuest concurrency");
        if (!conc && report.tool == "trtllm-benchmark-serving") // its fork prints no concurrency line (benchmark_serving.py, benchmark())
            c.notes.push_back("TensorRT-LLM's benchmark_serving prints no concurrency: the figures are taken as run at the command's --max-concurrency " +
                              std::to_string(s.concurrency));
        else if (!conc)
            c.notes.push_back("the block names no maximum request concurrency (run without --max-concurrency?): the command asks for " +
                              std::to_string(s.concurrency) + " requests in flight, so throughput and TTFT are of another load");
        else if (s.concurrency > 0 && std::fabs(conc->value / s.concurrency - 1) > kSetupTolerance)
            c.notes.push_back("measured at a maximum request concurrency of " + conc->text + ", the command asks for " + std::to_string(s.concurrency));
        const MeasuredLine* done = report.find("Successful requests");
        const MeasuredLine* in = report.find("Total input tokens");
        const MeasuredLine* out = report.find("Total generated tokens");
        if (done && done->value > 0) {
            auto per_request = [&](const MeasuredLine* total, int planned, const char* what) {
                if (!total || planned <= 0) return;
                const double mean = total->value / done->value;
                if (std::fabs(mean / planned - 1) > kSetupTolerance)
                    c.notes.push_back(std::string("measured ") + format_sig(mean, 4) + " " + what + " tokens a request (" + total->metric + " / " +
                                      done->metric + "), the command asks for " + std::to_string(planned));
            };
            per_request(in, s.prompt_tokens, "input");
            per_request(out, s.output_tokens, "output");
        }
        if (const MeasuredLine* failed = report.find("Failed requests"); failed && failed->value > 0)
            c.notes.push_back(failed->text + " requests failed: the figures are of the ones that finished");
    }
    if (report.tool == "mlx-lm-benchmark")
        // The "Timing with" line names the run's lengths and batch (its batch since batching came, in late 2025).
        for (const auto& [metric, planned] : {std::pair<const char*, int>{"prompt_tokens", s.prompt_tokens}, {"generation_tokens", s.output_tokens},
                                              {"batch_size", s.concurrency}})
            if (const MeasuredLine* l = report.find(metric); l && planned > 0 && std::lround(l->value) != planned)
                c.notes.push_back(std::string("measured with ") + metric + "=" + l->text + ", the command asks for " + std::to_string(planned));
    if (report.tool == "llama-bench")
        for (const auto& p : run.predicted)
            if (!report.find(p.metric)) {
                const std::string kind = p.metric.substr(0, 2); // "pp" or "tg"
                for (const auto& l : report.lines)
                    if (l.metric.rfind(kind, 0) == 0) {
                        c.notes.push_back("the table has " + l.metric.substr(0, l.metric.find(' ')) + ", the plan predicts " +
                                          p.metric.substr(0, p.metric.find(' ')) + " (-p " + std::to_string(s.prompt_tokens) + " -n " +
                                          std::to_string(s.output_tokens) + " in the command)");
                        break;
                    }
            }
}

// [SECTION] Which assumption the largest difference points at -----------------------------------------------

// The plan figures whose difference points at one assumption whatever the tool printed, with the sentence that says why
// (after the numbers). The figures that depend on what was printed (TTFT, throughput, memory) are decided in point().
struct Explanation {
    const char* figure;                 // the predicted line's plan figure
    const char* assumption;             // what a difference in it points at
    const char* text;                   // why
};

constexpr const char* kDecodeStep = "A decode step reads the weights and the KV cache once for every token it makes, so its time is set by the share of "
                                    "memory bandwidth the runtime reaches: decode bandwidth efficiency.";
constexpr const char* kRlTrain = "The trainer's pass over the step's rollouts does the model's FLOPs for their tokens at the share of the devices' peak it "
                                 "reaches (training MFU); OpenRLHF's step total also holds the rollouts' log-probabilities (timing/make_experience), "
                                 "which the plan does not count.";
// A step is the model FLOPs of its tokens over the devices' peak and the share of it reached (MFU); tokens a second per
// device and MFU are the same step seen from its tokens and its FLOPs.
constexpr const char* kTrainingStep = "A training step does the model's FLOPs for its tokens at the share of the devices' peak the run reaches (MFU), so the "
                                      "step time, the tokens a second and the MFU move together: training MFU.";

constexpr Explanation kExplanations[] = {
    {"decode_step_s", "decode_bandwidth_efficiency", kDecodeStep},
    {"decode_tokens_per_s_per_user", "decode_bandwidth_efficiency", kDecodeStep},
    // An embedding batch is one encoder forward pass over its items' tokens (plan_embed.cpp), compute-bound at the planned
    // batch; a server that forms smaller batches runs more, shorter ones.
    {"items_per_s", "encoder_compute_efficiency",
     "An encoder batch is one forward pass over its items' tokens at the share of the device's peak the runtime reaches "
     "(encoder compute efficiency), or the batch the server formed: --max-num-seqs, --max-num-batched-tokens and the "
     "requests in flight set it."},
    {"rl.generation_s", "decode_bandwidth_efficiency",
     "Generating the rollouts is decode on the rollout engines: each step reads the weights and the KV cache once for every "
     "token, so its time is set by the share of memory bandwidth the engines reach (decode bandwidth efficiency), or by "
     "the batch they held (KV cache blocks)."},
    {"rl.sync_s", "weight_sync_network",
     "The weight broadcast sends each engine device its shard of the new weights over the links between the pools: the "
     "scale-up or scale-out bandwidth the plan assumed (rl.h weight_sync_s), or a sync through Ray instead of NCCL."},
    {"rl.train_s", "training_mfu", kRlTrain},
    {"rl_step_s", "training_mfu", kRlTrain},
    {"step_time_s", "training_mfu", kTrainingStep},
    {"train_tokens_per_s", "training_mfu", kTrainingStep},
    {"layouts.best.mfu", "training_mfu", kTrainingStep},
    {"layouts.best.hardware_flop_per_s", "training_mfu", kTrainingStep},
};

const Explanation* explanation(const std::string& figure) {
    for (const auto& e : kExplanations)
        if (figure == e.figure) return &e;
    return nullptr;
}

void point(const BenchReport& report, RunComparison& c) {
    // An RL step's total is its phases added (and OpenRLHF's adds one the plan does not count): when a phase was printed,
    // the phase furthest off is what the difference points at, not the total.
    const bool phases = std::any_of(c.lines.begin(), c.lines.end(), [](const ComparedLine& l) { return l.measured && l.figure.rfind("rl.", 0) == 0; });
    const ComparedLine* far = nullptr;
    for (const auto& l : c.lines)
        if (l.measured && l.ratio > 0 && !(phases && l.figure == "rl_step_s") &&
            (!far || std::fabs(std::log(l.ratio)) > std::fabs(std::log(far->ratio))))
            far = &l;
    if (!far) return;
    c.largest = far->metric;
    const bool time = far->unit == "ms" || far->unit == "s";
    // "12 % slower" near the prediction; "86.3 x the prediction" far from it.
    const bool near = far->ratio > 0.5 && far->ratio < 2;
    const std::string by = near ? percent(far->ratio) + (far->ratio > 1 ? (time ? " slower" : " more") : (time ? " faster" : " less"))
                                : format_sig(far->ratio, 3) + " x the prediction";
    const std::string how = far->text + " " + far->unit + " measured against " + format_sig(far->predicted, 4) + " " + far->unit + " predicted (" + by +
                            (far->in_band ? ", inside the band" : far->banded ? ", outside the band" : "") + "). ";
    const std::string& f = far->figure;
    if (const Explanation* e = explanation(f)) {
        c.points_at = e->assumption;
        c.why = how + e->text;
    } else if (f == "ttft_s" || f == "p50_ttft_s") {
        c.points_at = "prefill_compute_efficiency";
        const bool serving = report.tool != "llama-bench" && report.tool != "mlx-lm-benchmark";
        c.why = how + "A prefill is one pass over the prompt, bound by compute: prefill compute efficiency" +
                (serving && c.setup.concurrency > 1 ? ", or the queue: the benchmark starts " + std::to_string(c.setup.concurrency) +
                                               " prompts at once, so a median TTFT includes waiting behind other prefills."
                                         : ".");
    } else if (f == "throughput_tokens_per_s" && report.tool == "mlx-lm-benchmark") {
        // mlx_lm.benchmark decodes exactly --batch-size sequences together, so the batch is the command's.
        c.points_at = "decode_bandwidth_efficiency";
        c.why = how + "mlx_lm.benchmark decodes exactly the command's batch together, so the difference is in the step time itself: a decode "
                      "step reads the weights and the KV cache once for every token it makes: decode bandwidth efficiency.";
    } else if (f == "throughput_tokens_per_s") {
        // Little's law over the decode: tokens a second x seconds a token = sequences decoding at once.
        const MeasuredLine* tpot = report.find("Mean TPOT (ms)");
        if (!tpot) tpot = report.find("Mean ITL (ms)"); // SGLang's bench_serving of early 2025: the same mean at fixed output lengths
        const int planned = c.setup.concurrency;
        if (tpot && tpot->value > 0 && planned > 0) {
            const double reached = far->value * tpot->value / 1e3;
            const bool short_batch = reached < planned * (1 - kSetupTolerance);
            c.points_at = short_batch ? "batch_sequences" : "decode_bandwidth_efficiency";
            c.why = how + "Output token throughput x Mean TPOT = " + format_sig(reached, 3) + " sequences decoding at once, against " +
                    std::to_string(planned) + " planned: " +
                    (short_batch ? "the server reached a smaller batch than planned (KV cache blocks, --max-num-seqs, prefills between decode "
                                   "steps, or too few requests to keep it full)."
                                 : "the batch was reached, so the difference is in the step time itself: decode bandwidth efficiency.");
        } else {
            c.points_at = "batch_sequences";
            c.why = how + "Throughput is the batch times the step rate; without a Mean TPOT to split them, look first at the batch the "
                          "server actually reached (--max-concurrency, --max-num-seqs, KV cache blocks).";
        }
    } else if (f == "memory.total_bytes" && (far->metric == "MaxMemAllocated (GiB)" || far->metric == "peak_memory (GB)")) {
        // DeepSpeed's MaxMemAllocated is torch.cuda.max_memory_allocated() and MLX's peak_memory mx.get_peak_memory(): the
        // tensors alone, without an allocator's cached blocks or the runtime context, so a difference is in the plan's own
        // terms, not the runtime memory.
        c.points_at = kAllocatedMemory;
        c.why = how + "This peak counts only the tensors (allocated, not reserved): the weights, gradients, optimizer state, KV cache and "
                      "activations the plan counts, without the allocator's cache or the runtime context. So the difference is in those terms "
                      "themselves, the activations first (recomputation, micro-batch, sequence length), not in the runtime memory.";
    } else if (f == "memory.total_bytes") {
        c.points_at = "runtime_context_bytes";
        c.why = how + "Peak memory reserved is the weights, gradients, optimizer state and activations the plan counts, plus what the allocator "
                      "and the runtime keep: the runtime memory.";
    } else {
        c.why = how;
    }
}

} // namespace

// [SECTION] Comparing ---------------------------------------------------------------------------------------

RunComparison compare_run(const RunIt& run, const BenchReport& report) {
    RunComparison c;
    c.tool = report.tool;
    c.device = run.device;
    c.option = run.option;
    c.setup = run.setup;
    if (!report.issues.empty()) { // the paste first: it is wrong whatever the plan
        c.issues = report.issues;
        return c;
    }
    if (!run.available) {
        c.issues.push_back({"run", "no command to compare with: " + run.reason});
        return c;
    }
    // The tool's id without a chosen release ("torchtitan@v0.1.0" reads as torchtitan's log).
    std::string expected = run.measure.empty() ? "" : run.measure.front().tool;
    expected = expected.substr(0, expected.find('@'));
    const ReadBackTool* expected_tool = read_back_tool(expected);
    if (!expected_tool) {
        c.issues.push_back({"run", "the plan's measure command is " + expected + "; reading its output back is not written yet (vllm bench serve, "
                                   "python -m sglang.bench_serving, TensorRT-LLM's benchmark_serving, llama-bench, mlx_lm.benchmark, and torchtitan's, torchtune's, "
                                   "Megatron-LM's, DeepSpeed's, Axolotl's, LLaMA-Factory's and OpenRLHF's logs are)"});
        return c;
    }
    // TensorRT-LLM's benchmark_serving is a fork of vLLM's and prints its block; one without the fork's own lines reads as vLLM's.
    const bool fork_block = expected == "trtllm-benchmark-serving" && report.tool == "vllm-bench-serve";
    // LLaMA-Factory's run prints the Hugging Face Trainer's closing dict before its metrics block; the dict alone, without the
    // memory figures Axolotl adds, reads as that summary.
    const bool trainer_dict = expected == "llama-factory" && report.tool == "axolotl" && !report.find("memory/device_reserved (GiB)") &&
                              !report.find("memory/max_allocated (GiB)");
    if (report.tool != expected && !fork_block && !trainer_dict) {
        const ReadBackTool* pasted_tool = read_back_tool(report.tool);
        c.issues.push_back({"text", "the plan's measure command is " + std::string(expected_tool->command) + ", the pasted text is " +
                                        (pasted_tool ? pasted_tool->text : "vLLM's result block") + ": paste the output of the command run-it wrote"});
        return c;
    }
    // The same line in an earlier spelling: vLLM's benchmark printed "Total Token throughput" until late 2025.
    auto printed = [&](const std::string& metric) {
        const MeasuredLine* m = report.find(metric);
        if (!m && metric == "Total token throughput (tok/s)") m = report.find("Total Token throughput (tok/s)");
        return m;
    };
    for (const auto& p : run.predicted) {
        ComparedLine l{p.metric, p.figure, p.unit, p.value, p.low, p.high, p.banded};
        if (const MeasuredLine* m = printed(p.metric)) {
            l.measured = true;
            l.value = m->value;
            l.text = m->text;
            l.line = m->line;
            l.ratio = p.value > 0 ? m->value / p.value : 0;
            l.in_band = p.banded && m->value >= p.low * (1 - 1e-12) && m->value <= p.high * (1 + 1e-12);
        }
        c.lines.push_back(std::move(l));
    }
    c.other = unpredicted(run, report);
    c.notes = report.notes;
    if (fork_block) c.notes.push_back("the block has none of TensorRT-LLM's own lines (User throughput): read as its benchmark_serving's, which prints vLLM's block");
    if (trainer_dict) c.notes.push_back("read as the Hugging Face Trainer's closing dict, which LLaMA-Factory prints before its train metrics block");
    check_setup(run, report, c);
    if (std::none_of(c.lines.begin(), c.lines.end(), [](const ComparedLine& l) { return l.measured; })) {
        std::string want, got;
        for (const auto& p : run.predicted) want += (want.empty() ? "" : ", ") + p.metric;
        for (const auto& l : report.lines) got += (got.empty() ? "" : ", ") + l.metric;
        c.issues.push_back({"text", "none of the predicted lines (" + want + ") is in the pasted output (" + got + "): run the measure command as written"});
        return c;
    }
    point(report, c);
    return c;
}

// [SECTION] The loop: plan, compare, calibrate, plan again ----------------------------------------------------

namespace {

// The measurement to calibrate from: one that calibrates the assumption the comparison points at, else the last.
const BenchMeasurement* calibrating(const MeasurementParse& parsed, const std::string& points_at) {
    auto assumption = [](MeasurementKind k) {
        return k == MeasurementKind::prefill_tokens_per_s ? "prefill_compute_efficiency"
               : k == MeasurementKind::step_time_s || k == MeasurementKind::rl_train_s ? "training_mfu"
               : k == MeasurementKind::peak_memory_bytes ? "runtime_context_bytes"
               : k == MeasurementKind::items_per_s       ? "encoder_compute_efficiency"
                                                         : "decode_bandwidth_efficiency";
    };
    const std::string want = points_at == "batch_sequences" ? "decode_bandwidth_efficiency" : points_at;
    for (auto it = parsed.measurements.rbegin(); it != parsed.measurements.rend(); ++it)
        if (assumption(it->kind) == want) return &*it;
    return parsed.measurements.empty() ? nullptr : &parsed.measurements.back();
}

RunComparison read_back_unguarded(const Catalog& catalog, const std::string& workload_json, const std::string& device, const std::string& text,
                                  const std::string& read_on) {
    RunComparison c;
    const WorkloadParse parsed = parse_workload(workload_json, catalog);
    Issues issues = parsed.issues;
    AssumptionSet as;
    if (issues.empty()) as = assumptions_for(catalog, parsed.workload.assumptions, issues);
    if (!issues.empty()) {
        for (auto& i : issues) i.path = "workload" + (i.path.empty() ? "" : "." + i.path);
        c.issues = issues;
        return c;
    }
    const Plan p = plan(parsed.workload, catalog, as, false);
    const RunIt run = device.empty() ? p.run : run_it(p, parsed.workload, catalog, device);
    const BenchReport report = read_bench_report(text);
    c = compare_run(run, report);
    if (!c.issues.empty()) return c;

    // Calibrate the run's device as `hwplan calibrate` does, then plan again over the catalog extended by it. An embedding
    // run's pooling block is items a second (encoder compute efficiency) and an RL log's timing/ppo_train the trainer's phase
    // (the fine-tune MFU), both read by parse_measurements as `hwplan calibrate` reads them.
    MeasurementParse measurements = parse_measurements(text);
    // An RL step's generation and weight sync calibrate nothing here: the rollout pool's split is searched again with any
    // decode or network assumption (rl.h size_rl_pools), so a phase of the measured split pins no single value of it.
    std::string rl_before;
    if (parsed.workload.stage == Stage::rl && c.points_at != "training_mfu")
        rl_before = "the largest difference (" + c.largest + ") points at " + c.points_at +
                    ", which an RL log does not calibrate (the rollout pool's split is searched again with it), so the training phase does: ";
    // Axolotl's memory/device_reserved (GiB) is torch.cuda.max_memory_reserved (base.py log(): get_gpu_memory_usage), a
    // reserved peak like torchtune's, which calibrates the runtime memory.
    if (const MeasuredLine* reserved = c.tool == "axolotl" ? report.find("memory/device_reserved (GiB)") : nullptr; reserved && reserved->value > 0) {
        BenchMeasurement peak;
        peak.kind = MeasurementKind::peak_memory_bytes;
        peak.value = reserved->value * 1073741824.0;
        peak.line = reserved->line;
        peak.what = "Axolotl: memory/device_reserved " + reserved->text + " GiB";
        measurements.measurements.push_back(peak);
    }
    // The Hugging Face Trainer's closing train_steps_per_second (Axolotl's, LLaMA-Factory's) is steps over the run's time: its
    // inverse is a step time, which calibrates training MFU as a printed step time does.
    const bool hf_trainer = c.tool == "axolotl" || c.tool == "llama-factory";
    if (const MeasuredLine* steps = hf_trainer ? report.find("train_steps_per_second") : nullptr; steps && steps->value > 0) {
        BenchMeasurement step;
        step.kind = MeasurementKind::step_time_s;
        step.value = 1 / steps->value;
        step.line = steps->line;
        step.what = std::string(run.measure.front().tool == "llama-factory" ? "LLaMA-Factory" : "Axolotl") + ": step time " + format_sig(step.value, 4) +
                    " s (1 / train_steps_per_second " + steps->text + ")";
        measurements.measurements.push_back(step);
    }
    // DeepSpeed prints samples a second over all devices, not a step time: timer.py's CurrSamplesPerSec is
    // train_batch_size / the step's elapsed time, so the run's train_batch_size over it is the step time, which
    // calibrates training MFU as a printed step time does.
    if (const MeasuredLine* samples = c.tool == "deepspeed" ? report.find("CurrSamplesPerSec") : nullptr;
        samples && samples->value > 0 && run.setup.batch_samples > 0) {
        BenchMeasurement step;
        step.kind = MeasurementKind::step_time_s;
        step.value = run.setup.batch_samples / samples->value;
        step.line = samples->line;
        step.what = "DeepSpeed: step time " + format_sig(step.value, 4) + " s (train_batch_size " + std::to_string(run.setup.batch_samples) +
                    " / CurrSamplesPerSec " + samples->text + ")";
        measurements.measurements.push_back(step);
    }
    // TensorRT-LLM's block prints no concurrency: its Mean TPOT is taken at the command's --max-concurrency, so it
    // calibrates decode bandwidth efficiency as vLLM's does at a printed one.
    if (const MeasuredLine* tpot = c.tool == "trtllm-benchmark-serving" && !report.find("Maximum request concurrency") ? report.find("Mean TPOT (ms)") : nullptr;
        tpot && tpot->value > 0 && run.setup.concurrency > 0) {
        BenchMeasurement step;
        step.kind = MeasurementKind::serving_tpot_s;
        step.value = tpot->value * 1e-3;
        step.line = tpot->line;
        step.concurrency = run.setup.concurrency;
        step.backend = "tensorrt-llm";
        const MeasuredLine* done = report.find("Successful requests");
        const MeasuredLine* in = report.find("Total input tokens");
        const MeasuredLine* out = report.find("Total generated tokens");
        if (done && in && out && done->value > 0) {
            step.prompt_tokens = static_cast<int>(std::lround(in->value / done->value));
            step.output_tokens = static_cast<int>(std::lround(out->value / done->value));
        }
        step.what = "TensorRT-LLM benchmark_serving: mean TPOT " + tpot->text + " ms at the command's concurrency " + std::to_string(run.setup.concurrency);
        measurements.measurements.push_back(step);
    }
    // Allocated memory (DeepSpeed's MaxMemAllocated, MLX's peak_memory) holds no runtime memory to calibrate: the run's
    // speed calibrates instead, the step time where there is one.
    const bool allocated = c.points_at == kAllocatedMemory;
    const std::string before = allocated ? "allocated memory calibrates no assumption (runtime memory is calibrated from a reserved peak), so the "
                                           "speed does: "
                                         : rl_before;
    const BenchMeasurement* m = calibrating(measurements, allocated ? "training_mfu" : c.points_at);
    if (!m) {
        c.calibration_note = "not calibrated: " + (measurements.issues.empty() ? std::string("no measurement in the text") : to_string(measurements.issues.front()));
        return c;
    }
    // A throughput short of the plan through the batch it reached is no efficiency: calibrating one from it would
    // blame the bandwidth for a queue. Mean TPOT at a stated concurrency is what calibrates the step.
    if (c.points_at == "batch_sequences" && m->kind == MeasurementKind::output_tokens_per_s) {
        c.calibration_note = "not calibrated: the throughput points at the batch the server reached, which no efficiency explains; run the "
                             "measure command as written (--max-concurrency " + std::to_string(c.setup.concurrency) +
                             ") and its Mean TPOT calibrates decode bandwidth efficiency";
        return c;
    }
    const CalibrationResult k = calibrate(catalog, workload_json, run.device, *m, read_on);
    if (!k.issues.empty()) {
        c.calibration_note = before + "not calibrated from " + m->what + ": " + to_string(k.issues.front());
        return c;
    }
    Catalog extended = catalog;
    if (const Issues bad = extend_catalog(extended, k.extension_json, "calibration"); !bad.empty()) {
        c.calibration_note = "not re-planned: " + to_string(bad.front());
        return c;
    }
    c.calibrated = true;
    c.calibration = k.calibration;
    c.calibration_ratio = k.ratio;
    c.extension_json = k.extension_json;
    c.calibration_note = before + k.calibration.assumption + " = " + format_sig(k.calibration.value, 4) + " on " + run.device + " from " + m->what;
    Issues again_issues;
    const AssumptionSet again_as = assumptions_for(extended, parsed.workload.assumptions, again_issues);
    const Plan again = plan(parsed.workload, extended, again_as, false);
    if (again.recommendation.found) c.replanned_option = again.recommendation.option.name;
    const RunIt rerun = run_it(again, parsed.workload, extended, run.device);
    for (auto& l : c.lines)
        for (const auto& q : rerun.predicted)
            if (q.metric == l.metric) l.replanned = q.value;
    return c;
}

json line_json(const MeasuredLine& l) { return {{"metric", l.metric}, {"value", l.value}, {"text", l.text}, {"line", l.line}}; }

} // namespace

RunComparison read_back(const Catalog& catalog, const std::string& workload_json, const std::string& device, const std::string& text,
                        const std::string& read_on) {
    return guarded("read back", [&] { return read_back_unguarded(catalog, workload_json, device, text, read_on); }, [](const Issue& i) {
        RunComparison failed;
        failed.issues = {i};
        return failed;
    });
}

// [SECTION] JSON and text ------------------------------------------------------------------------------------

std::string to_json(const RunComparison& c) {
    auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
    if (!c.issues.empty()) {
        json errors = json::array();
        for (const auto& i : c.issues) errors.push_back({{"path", i.path}, {"message", i.message}});
        return dump(json{{"errors", errors}});
    }
    json lines = json::array();
    for (const auto& l : c.lines) {
        json j{{"metric", l.metric}, {"figure", l.figure}, {"unit", l.unit}, {"predicted", l.predicted}, {"measured", nullptr}};
        if (l.banded) {
            j["low"] = l.low;
            j["high"] = l.high;
        }
        if (l.measured) {
            j["measured"] = l.value;
            j["text"] = l.text;
            j["line"] = l.line;
            j["ratio"] = l.ratio;
            j["in_band"] = l.in_band;
        }
        if (c.calibrated) j["replanned"] = l.replanned;
        lines.push_back(std::move(j));
    }
    json other = json::array();
    for (const auto& l : c.other) other.push_back(line_json(l));
    json r{{"tool", c.tool},         {"device", c.device}, {"option", c.option},     {"lines", lines}, {"other", other},
           {"largest", c.largest},   {"points_at", c.points_at}, {"why", c.why}, {"notes", c.notes}, {"calibration_note", c.calibration_note},
           {"calibration", nullptr}};
    if (c.calibrated) {
        const json ext = json::parse(c.extension_json);
        r["calibration"] = ext["calibrations"][0];
        r["calibration_ratio"] = c.calibration_ratio;
        r["extension"] = ext;
        r["replanned_option"] = c.replanned_option;
    }
    return dump(json{{"readback", r}});
}

std::string comparison_text(const RunComparison& c) {
    if (!c.issues.empty()) {
        std::string s;
        for (const auto& i : c.issues) s += "error: " + to_string(i) + "\n";
        return s;
    }
    std::string s = "Predicted against measured: " + (c.option.empty() ? c.device : c.option) + " (" + c.tool + ")\n\n";
    struct Row {
        std::string cells[6];
    };
    std::vector<Row> rows{{{"metric", "predicted (band)", "measured", "measured/predicted", "band", c.calibrated ? "re-planned" : ""}}};
    for (const auto& l : c.lines) {
        Row r;
        r.cells[0] = l.metric;
        r.cells[1] = format_sig(l.predicted, 4) + (l.banded ? " (" + format_sig(l.low, 3) + " .. " + format_sig(l.high, 3) + ")" : "");
        r.cells[2] = l.measured ? l.text + " (line " + std::to_string(l.line) + ")" : "not printed";
        r.cells[3] = l.measured ? format_sig(l.ratio, 3) : "";
        r.cells[4] = !l.measured ? "" : !l.banded ? "no band" : l.in_band ? "holds" : "outside";
        r.cells[5] = c.calibrated ? format_sig(l.replanned, 4) : "";
        rows.push_back(r);
    }
    size_t width[6] = {};
    for (const auto& r : rows)
        for (int i = 0; i < 6; ++i) width[i] = std::max(width[i], r.cells[i].size());
    for (const auto& r : rows) {
        std::string line = " ";
        for (int i = 0; i < 6; ++i)
            if (width[i] > 0) line += " " + r.cells[i] + std::string(width[i] - r.cells[i].size() + 1, ' ');
        while (!line.empty() && line.back() == ' ') line.pop_back();
        s += line + "\n";
    }
    if (!c.largest.empty()) s += "\nLargest difference: " + c.largest + ". Points at " + c.points_at + ".\n  " + c.why + "\n";
    if (!c.notes.empty()) {
        s += "\nNotes\n";
        for (const auto& n : c.notes) s += "  - " + n + "\n";
    }
    if (!c.other.empty()) {
        s += "\nAlso printed\n";
        for (const auto& l : c.other) s += "  " + l.metric + ": " + l.text + "\n";
    }
    s += "\nCalibration: " + c.calibration_note + "\n";
    if (c.calibrated) {
        s += "  measured / modelled " + format_sig(c.calibration_ratio, 3) + "; re-planned recommendation: " +
             (c.replanned_option.empty() ? "none" : c.replanned_option) + "\n";
        s += "  add it to your extension (--extend FILE): " + c.extension_json + "\n";
    }
    return s;
}

std::string read_back_json(const Catalog& catalog, const std::string& request) {
    auto fail = [](const Issues& list) {
        json errors = json::array();
        for (const auto& is : list) errors.push_back({{"path", is.path}, {"message", is.message}});
        return json{{"errors", errors}}.dump(-1, ' ', false, json::error_handler_t::replace);
    };
    return guarded("read back", [&] {
        Issues issues;
        Context ctx{"", issues};
        auto doc = parse_object(request, ctx);
        if (!doc) return fail(issues);
        Reader r(ctx, "", *doc);
        const json* workload = r.raw("workload");
        const std::string text = r.string("text", true).value_or("");
        const std::string read_on = r.string("read_on", true).value_or("");
        const std::string device = r.string("device", false).value_or("");
        r.finish();
        if (!workload) ctx.add("workload", "required field is missing (the workload the plan and its run section come from)");
        else if (!workload->is_object()) ctx.add("workload", "expected an object, got " + type_name(*workload));
        if (!issues.empty()) return fail(issues);
        return to_json(read_back(catalog, workload->dump(-1, ' ', false, json::error_handler_t::replace), device, text, read_on));
    }, [&](const Issue& i) { return fail({i}); });
}

} // namespace hwplan
