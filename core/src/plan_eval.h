// plan_eval.h (private to the core): what the plan's stage files share. Device and model facts (plan_facts.cpp),
// the record of one evaluation (Eval), each stage's evaluator and search (plan_serving.cpp, plan_training.cpp,
// plan_embed.cpp, plan_rl.cpp) and the assumptions per device (plan_assumptions.cpp); plan.cpp assembles them.
// Namespace hwplan::plan_detail: the core compiles in unity batches of five files, so these names stay out of
// hwplan's own scope, where a neighbour's file-local helper of the same name would collide with them.
#pragma once
#include <algorithm>
#include <iterator>
#include <utility>
#include <stdexcept>
#include <string_view>
#include <string>
#include <vector>

#include "hwplan/format.h"
#include "hwplan/parallel.h"
#include "hwplan/performance.h"
#include "hwplan/plan.h"
#include "plan_internal.h"

namespace hwplan::plan_detail {

// [SECTION] device and model facts (plan_facts.cpp) -----------------------------------------------------------

constexpr int kMaxTensorParallel = 8;

struct Peak {
    double flop_per_s = 0;             // the peak the evaluators scale by an efficiency (a power-capped board: its capped rate)
    double unthrottled_flop_per_s = 0; // the datasheet peak at the boost clock (= flop_per_s unless the board is power-capped)
    double capped_flop_per_s = 0;      // what continuous matrix multiply sustains under the board's power cap; 0 = no cap recorded
    std::string precision;   // the precision whose peak is used ("" when none is published)
    std::string requested;
    std::string_view device; // the catalog's id (the catalog outlives every evaluation): no copy per evaluation
    bool fell_back() const { return precision != requested; }
    // The rate a kernel that keeps `share` of the peak busy achieves: share x peak, or on a power-capped board the
    // share under the cap's power ceiling (performance.h power_capped_flop_per_s, `idle_power_ratio` its r). One rule
    // for every evaluator (encoders, prefill, decode's GEMMs, training), so a capped board is not read two ways.
    // A cap carried from another board's measurement (Assumptions::power_cap_lifted, the fast case) is lifted: the
    // board may hold a higher clock than the rule gives it, up to the boost clock its datasheet peak assumes.
    double achieved(double share, const Assumptions& a) const {
        if (capped_flop_per_s > 0 && a.power_cap_lifted > 0) return unthrottled_flop_per_s * share;
        return capped_flop_per_s > 0 ? power_capped_flop_per_s(unthrottled_flop_per_s, capped_flop_per_s, share, a.power_cap_idle_power_ratio)
                                     : flop_per_s * share;
    }
    // What a capped board's rate in `what` (prefill, training) rests on: the encoders' rule, with no case of its own.
    std::string cap_note(const char* what) const {
        return std::string(what) + " on " + std::string(device) + " runs under its power cap (" + format_sig(capped_flop_per_s / 1e12, 3) +
               " TFLOPS sustained of " + format_sig(unthrottled_flop_per_s / 1e12, 3) + " at boost) by the rule calibrated on T4 encoder " +
               "runs (power_cap_idle_power_ratio): not calibrated for " + what + "; the band's slow end holds the clock at a continuous GEMM's";
    }
    std::string note() const {
        if (precision.empty())
            return "no published dense peak for " + requested + " or a wider format on " + std::string(device) + ": compute time is not modelled";
        return "no published " + requested + " peak on " + std::string(device) + "; compute time uses its " + precision + " peak (" +
               format_sig(flop_per_s / 1e12, 4) + " TFLOPS)";
    }
};

Peak peak_for(const Device& d, const std::string& compute);             // the dense peak at `compute`, or the nearest wider path
// A decode step's weight GEMMs at this peak's precision take the narrow-precision share (decode_compute_efficiency_8bit):
// FP8 and INT8, where it was measured, and FP4, where nothing measured says otherwise.
inline bool narrow_decode_gemm(const std::string& peak_precision) { return peak_precision == "fp8" || peak_precision == "int8" || peak_precision == "fp4"; }
bool local_runtime(const Device& d);                                     // SoCs, CPUs, NPUs: llama.cpp/MLX-style runtimes
double usable_bytes(const Device& d, const Assumptions& a, bool serving); // what one device lets a job use
double runtime_overhead_bytes(const Device& d, const Assumptions& a);     // runtime context or compute buffer
double runtime_context_bytes(const Device& d, const Assumptions& a);      // the device's recorded reserve, else the GPU context
bool runtime_reserve_recorded(const Device& d);                           // catalog memory.runtime_reserved_MB present
int most_devices(const Device& d, const Assumptions& a);                  // the most devices of one kind a plan joins

struct WeightBytes {
    double total = 0;     // whole model
    double experts = 0;   // the routed-expert share of `total` (MoE)
    double input_embedding = 0;           // the untied input token table's share of `total`
    double input_embedding_row_bytes = 0; // one token's row of it
    double quantized_params = 0;          // parameters stored at the format's bits (the rest at 16)
    double bits_per_weight = 16;          // the format's storage bits per quantized parameter
    std::string why;
};

WeightBytes weight_bytes(const Workload& w, const Catalog& cat, const std::string& format_name, double params, bool explain);
double kv_value_bytes(const std::string& kv); // bytes per KV cache value at the named precision (2 when unknown)

// [SECTION] a serving evaluation's basis (plan_serving.cpp) ----------------------------------------------------

// What a serving evaluation reads of the device, the workload and the catalog whatever the count, the layout or the
// batch: looked up once per device's search (choose_count) or
// evaluation (eval_serve) and lent to its trials, which would otherwise look up the weight format, the peak, the
// network and the decode runtime by name again in every one.
struct ServeBasis {
    WeightBytes weights;          // the whole model's weights at the storage format (`why` only when explaining)
    double kv_value_bytes = 2;    // bytes per KV cache value
    Peak peak;                    // the dense peak at the compute precision, or the nearest wider path
    Network net;                  // the device's scale-up domain and scale-out network
    bool layer_split = false;     // llama.cpp: devices split by layers, one stage after another
    bool free_share = false;      // TensorRT-LLM: the KV cache sized from what is free after the weights
    const DecodeRuntime* runtime = nullptr; // serve.runtime's decode runtime from the catalog (null: none there)
};

// The basis of device d's serving evaluations (the weights' `why` only when explaining).
ServeBasis serve_basis(const Workload& w, const Catalog& cat, const Device& d, const Assumptions& a, bool explain);

// [SECTION] one evaluation: a device, a count, one case of the assumptions ------------------------

// One evaluation. Explanations (the "why" texts) are built only when `explain` is set: the trial
// evaluations that choose a count and the low/high cases need numbers, not prose.
struct Eval {
    Candidate c;
    double headline = 0; // the stage's ranking figure, larger is better
    bool explain = true;
    bool search_batch = true; // false inside a batch search's own trials
    bool mixed_prefill = false; // a batch search's trials at an arrival rate: prefill mixed into the decode steps
    bool count_trial = false;   // a count search's trial: only the figures it ranks by (fits, per-user speed, first token,
                                // throughput, users held); the batch within the latency targets is left to the point chosen
    // The share of the workload one replica serves, applied by the serving evaluation instead of a copy of the workload
    // (a search evaluates thousands of points, and a copy carries the whole model):
    int arrivals_split = 1;     // the arrivals (serve.requests_per_s and every traffic class) divided over this many replicas
    double users_share = 0;     // > 0: the replica's concurrent users (users split over replicas: splits_users)
    double batch_trial = 0;     // > 0: a batch search's trial at this many sequences, as if serve.concurrent_users were given
                                // as that and serve.batch_size were not
    // A search trial that no plan shows (the serving count search's and the batch search's points): its figures are kept
    // as plain numbers by name (`nums`, names that are string literals) instead of the candidate's map, and its memory
    // terms are not listed (DESIGN.md, "Numbers first, words after"). The map and the words are built for the points
    // shown, evaluated again as candidates. Only with `explain` off.
    bool numbers_only = false;
    // A serving evaluation's facts that no count, layout or batch changes (the weights' bytes, the peak, the network,
    // the runtimes), looked up once per evaluation and lent to its batch search's trials; null outside eval_serve.
    const ServeBasis* basis = nullptr;
    static constexpr int kMaxNums = 24; // a serving evaluation sets 16 figures at most
    std::pair<std::string_view, double> nums[kMaxNums];
    int nums_n = 0;

    // Sets figure `name` (a string literal): in the candidate's map, or as a number alone in a trial.
    template <class Why> void put(std::string_view name, double value, Label label, Why&& why) {
        if (!numbers_only) {
            c.figures[std::string(name)] = figure(value, label, why);
            return;
        }
        for (int i = 0; i < nums_n; ++i)
            if (nums[i].first == name) {
                nums[i].second = value;
                return;
            }
        if (nums_n == kMaxNums) throw std::logic_error("Eval: more figures than kMaxNums");
        nums[nums_n++] = {name, value};
    }
    // The value of figure `name`, null when it is not set.
    const double* find(std::string_view name) const {
        if (numbers_only) {
            for (int i = 0; i < nums_n; ++i)
                if (nums[i].first == name) return &nums[i].second;
            return nullptr;
        }
        const auto it = c.figures.find(name);
        return it == c.figures.end() ? nullptr : &it->second.value;
    }
    bool has(std::string_view name) const { return find(name) != nullptr; }
    double value_or(std::string_view name, double missing) const {
        const double* v = find(name);
        return v ? *v : missing;
    }
    // Throws like std::map::at when the figure is not set.
    double value(std::string_view name) const {
        const double* v = find(name);
        if (!v) throw std::out_of_range("no figure " + std::string(name));
        return *v;
    }
    // Removes every figure whose name satisfies `drop`.
    template <class Drop> void erase_if(Drop&& drop) {
        if (!numbers_only) {
            for (auto it = c.figures.begin(); it != c.figures.end();) it = drop(std::string_view(it->first)) ? c.figures.erase(it) : std::next(it);
            return;
        }
        int kept = 0;
        for (int i = 0; i < nums_n; ++i)
            if (!drop(nums[i].first)) nums[kept++] = nums[i];
        nums_n = kept;
    }

    template <class Why> Figure figure(double value, Label label, Why&& why) const {
        Figure f;
        f.value = f.low = f.high = value;
        f.label = label;
        if (explain) f.why = why();
        return f;
    }
    template <class Why> void term(MemoryUse& m, const char* name, double bytes, Why&& why) const {
        if (numbers_only) return; // a trial's memory is its totals (finish_memory)
        m.terms.push_back({name, bytes, explain ? why() : std::string()});
    }
};

inline void finish_memory(MemoryUse& m) {
    m.total_bytes = m.weights_bytes + m.kv_cache_bytes + m.activations_bytes + m.gradients_bytes + m.optimizer_bytes + m.overhead_bytes;
}

inline std::string gb(double bytes) { return format_bytes(bytes); }

// A figure the evaluation has set, looked up without building a key string (Figures is transparent); throws like
// std::map::at when it is missing.
inline const Figure& fig(const Candidate& c, std::string_view name) {
    const auto it = c.figures.find(name);
    if (it == c.figures.end()) throw std::out_of_range("no figure " + std::string(name));
    return it->second;
}

inline bool is_given(const Workload& w, const std::string& key) { return std::find(w.given.begin(), w.given.end(), key) != w.given.end(); }

// [SECTION] serving, batch and edge (plan_serving.cpp) -------------------------------------------------------

bool offline_batch(const Workload& w); // an offline batch job whose batch the planner chooses
bool splits_users(const Workload& w);  // interactive users that the count search may split over replicas
// One replica of n devices (a MoE laid out both ways, the faster kept).
void eval_serve(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e);
// The candidate on n devices: split into replicas (the best split of a given count, or `fixed_replicas`); `points`
// receives every split evaluated.
Eval best_serving_layout(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, bool explain, int fixed_replicas,
                         std::vector<ServingPoint>* points = nullptr, bool count_trial = false, bool numbers_only = false,
                         const ServeBasis* basis = nullptr); // `basis`: the search's (explain off), else each evaluation looks up its own
ServingPoint serving_point(const Workload& w, const Eval& e); // a point of the serving search from its evaluation, numbers only
void describe_point(ServingPoint& p);                         // its `describe` words, for a point kept (rank_serving)
// MIG instances on one device, reported beside the plan (figures and a note).
void mig_partitions(const Workload& w, const Catalog& cat, const Device& d, const Assumptions& a, Eval& e);

// [SECTION] training (plan_training.cpp) ---------------------------------------------------------------------

// The trainer's runtime profile: the workload's, else the default for full training on d's kind (MaxText on a TPU), else
// the method's default. d null: the method's default.
const TrainingRuntime& training_runtime(const Workload& w, const Catalog& cat, const Device* d = nullptr);
const TrainingRuntime* device_default_runtime(const Workload& w, const Catalog& cat, const Device* d); // null: none for d's kind
struct TrainBasis; // what the layout search needs from eval_train (plan_training.cpp)
// One data-parallel layout with the trainer's own sharding: ZeRO stage `zero_choice` (< 0: the default), activation
// recomputation `recompute_choice` (int(Checkpointing); < 0: the workload's).
void eval_train(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e, int zero_choice = -1,
                TrainBasis* basis = nullptr, int recompute_choice = -1);

// One point of the training search.
struct TrainPoint {
    int n = 0;
    bool profile = true;   // a data-parallel point evaluated by eval_train; else one of the layout search's
    LayoutResult result;   // its layout and numbers (memory per device, step, tokens/s, time to train)
};

struct TrainChoice {
    std::vector<TrainPoint> points; // the chosen point first, then the runners-up on the same count
    long searched = 0;
    std::string why;                // how the count was chosen, in words (built only when explaining)
};

TrainChoice choose_training(const Workload& w, const Catalog& cat, const Device& d, const Assumptions& a, bool explain);
void eval_train_point(const Workload& w, const Catalog& cat, const Device& d, const TrainPoint& pt, const Assumptions& a, Eval& e);

// [SECTION] embeddings (plan_embed.cpp) and RL pools (plan_rl.cpp) --------------------------------------------

void eval_embed(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e);
RlPools rl_pools(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, const Candidate& trainer);
void rl_job_figures(const Workload& w, const RlPools& rl, Eval& e);

// [SECTION] assumptions per device (plan_assumptions.cpp) ----------------------------------------------------

void end_to_end_mfu(AssumptionSet& das, const EfficiencyRule*& attention_rule);
// The assumptions on device d: its family's efficiency rules over the workload's set. Its `source` keeps only the user's
// values ("workload") and what the device changed, which is all a device's set is asked.
AssumptionSet device_assumptions(const AssumptionSet& as, const Catalog& cat, const Workload& w, const Device& d,
                                 const EfficiencyRule*& decode_rule, const EfficiencyRule*& mfu_rule, const EfficiencyRule*& attention_rule,
                                 const EfficiencyRule*& gemm_rule);
// A CPU (device kind cpu) served with no decode rule of efficiencies.json and the share not the user's: the catalog-wide
// share is not calibrated for it, so its slow end reaches cpu_decode_bandwidth_efficiency_low (assumptions.json).
bool cpu_decode_uncalibrated(const AssumptionSet& as, const Workload& w, const Device& d, const EfficiencyRule* decode_rule);
// Pretraining on another vendor's accelerator than NVIDIA that no training_mfu rule covers, the MFU not the user's: the
// catalog-wide basis (measured on H100) is not calibrated there, so its band spans training_mfu_uncalibrated_low/high.
bool training_basis_uncalibrated(const AssumptionSet& as, const Workload& w, const Device& d, const EfficiencyRule* mfu_rule);
// An encoder batch on another vendor's accelerator than NVIDIA with no encoder runtime named, the encoder efficiency not
// the user's: the default profile (a fused TensorRT engine) and encoder_compute_efficiency were calibrated on NVIDIA A100,
// and that vendor's stack is none of the catalog's encoder runtimes, so the estimate is not calibrated there and its band
// spans every encoder runtime profile the catalog records (plan.cpp).
// Not where the device's stack has an encoder runtime of its own (encoder_runtime_for).
bool encoder_runtime_uncalibrated(const AssumptionSet& as, const Catalog& cat, const Workload& w, const Device& d);
// The encoder runtime profile an embed workload runs under on device d: the one it names; else the profile that is the
// default on a stack the device runs (runtimes.json default_on_stack: neuronx-cc on a Neuron device, whose compiler is
// the only way onto it), where the device records what that profile is priced at; else the catalog default. nullptr
// when the catalog records none.
const EncoderRuntime* encoder_runtime_for(const Catalog& cat, const Workload& w, const Device& d);
std::vector<const Calibration*> apply_calibrations(AssumptionSet& das, const Catalog& cat, const Device& d);
void label_user_calibrated(Candidate& c, const std::vector<const Calibration*>& applied);
void label_calibrated(Candidate& c, const Workload& w, const Catalog& cat, const AssumptionSet& das, const EfficiencyRule* decode_rule,
                      const EfficiencyRule* mfu_rule, const EfficiencyRule* attention_rule, const EfficiencyRule* gemm_rule);
void missing(const Workload& w, Plan& p);

} // namespace hwplan::plan_detail
