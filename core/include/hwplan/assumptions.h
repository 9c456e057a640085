// hwplan/assumptions.h: every efficiency, overhead and engine setting the planner's model depends on,
// as one value. Defaults (a typical value and a plausible low..high range, each with its source) come
// from catalog/assumptions.json; a workload may override any of them by name.
// Usage: AssumptionSet a = assumptions_for(catalog, workload.assumptions, issues);
//        double eff = a.at(Case::typical).decode_bandwidth_efficiency;
#pragma once
#include <map>
#include <string>
#include <vector>

#include "hwplan/catalog.h"
#include "hwplan/issues.h"

namespace hwplan {

// One set of values, all in SI (ratios in [0, 1], bytes, seconds, tokens).
struct Assumptions {
    double decode_bandwidth_efficiency = 0;  // achieved / peak memory bandwidth in decode
    double prefill_compute_efficiency = 0;   // achieved / peak FLOP/s in prefill
    double decode_compute_efficiency = 0;    // achieved / peak FLOP/s of a decode step's weight GEMMs when compute-bound (16-bit and wider peaks)
    double decode_compute_efficiency_8bit = 0; // the same against an 8-bit peak (fp8, int8): those GEMMs reach a smaller share of it
    double training_mfu = 0;                 // model FLOPs utilization, large-scale pretraining
    double finetune_mfu = 0;                 // model FLOPs utilization, single-node fine-tuning
    double encoder_compute_efficiency = 0;   // achieved / peak FLOP/s, encoder (embedding) inference
    double interconnect_efficiency = 0;      // achieved all-reduce bus bandwidth / peak link bandwidth
    double pcie_allreduce_share_4_ranks = 0; // PCIe-joined cards: all-reduce bus bandwidth / per-direction link rate, 4 ranks
    double pcie_allreduce_share_8_ranks = 0; // the same at 8 ranks (the host's CPU and memory path is shared by every flow)
    double runtime_context_bytes = 0;        // CUDA/ROCm context + framework before any model
    double tensor_parallel_buffer_bytes = 0; // per device, memory outside PyTorch a serving engine adds at TP > 1
    double allocator_fragmentation_ratio = 0;// extra memory from the caching allocator / allocated
    double serving_memory_utilization = 0;   // share of device memory a serving engine may use
    double kv_cache_free_memory_fraction = 0; // share of the memory free after weights and buffers TensorRT-LLM gives its KV cache
    double kv_block_tokens = 0;              // paged KV cache block size
    double prefill_chunk_tokens = 0;         // chunked-prefill token budget per step
    double allreduce_inputs_held_share = 0;  // share of a profile pass's all-reduce inputs an engine without
                                             // TORCH_NCCL_AVOID_RECORD_STREAMS still holds when it reads the memory
    double vllm_profile_sampler_sequences = 0; // dummy requests vLLM V1's profile samples (its max_num_seqs)
    double decode_step_overhead_s = 0;       // fixed cost of one decode iteration
    double llama_cpp_compute_buffer_bytes = 0; // llama.cpp compute buffer (edge / Apple runtimes)
    double macos_gpu_wired_ratio = 0;        // share of unified memory macOS lets the GPU wire by default
    double allreduce_base_latency_s = 0;     // fixed latency of one small all-reduce (launch, synchronization)
    double allreduce_hop_latency_s = 0;      // latency per ring step; a ring all-reduce over n takes 2(n-1) steps
    double user_read_tokens_per_s = 0;       // output tokens a second one chat user reads (fixed-demand serving)
    double training_attention_efficiency = 0; // achieved / BF16 peak of training's attention FLOPs; 0: at the MFU
    double training_fp8_cast_bytes_per_element = 0; // bytes FP8 training moves per GEMM operand element (casts)
    double training_elementwise_bytes_per_element = 0; // bytes per activation element a training step's element-wise kernels read or write
    double pcie_handoff_s = 0;               // one pipeline-stage hand-off between cards joined only by PCIe, per step
    double gemm_tile_elements = 0;           // edge of a GEMM kernel's square output tile (rows = columns), for wave quantisation
    double moe_alltoall_overlap = 0;         // share of a micro-batch's compute that hides the expert all-to-alls under a pipeline
    double tensor_parallel_overlap = 0;      // share of the tensor-parallel collectives run chunked under the GEMMs (one chunk of t exposed)
    double kernel_launch_overhead_s = 0;     // host time per kernel an eager or graph-compiled framework launches (encoder runtimes)
    double eager_op_host_s = 0;              // host time per framework operation of an eager Python decode loop (decode runtimes)
    double python_value_round_trip_host_s = 0; // host time per value carried from native memory through a Python list and back (decode runtimes)
    double triton_launch_host_s = 0;         // host time of one Triton kernel launched from Python under its autotuner (decode runtimes)
    double strided_reduction_bandwidth_ratio = 1; // a compiled GEMV that reduces over a non-innermost (strided) weight dimension:
                                             // its share of a contiguous one's bandwidth (decode runtimes with a strided expert down projection)
    double gathered_expert_one_row_bandwidth_ratio = 1; // a gathered quantized expert mat-vec at one row (MLX's gather_qmm at
                                             // M=1): its share of a plain read's bandwidth (decode runtimes with expert_gather_one_row)
    double cpu_decode_bandwidth_efficiency_low = 0; // slow end of the decode share on a CPU no decode rule covers (declared, not calibrated)
    double training_mfu_uncalibrated_low = 0;  // slow end of the pretraining basis on another vendor's accelerator no family basis covers
    double training_mfu_uncalibrated_high = 0; // its fast end (both declared, not calibrated: assumptions.json)
    double power_cap_idle_power_ratio = 0;   // power-capped boards: power of a cycle whose tensor cores wait / a busy cycle's (0: power roofline)
    // Not a catalog assumption (no name, never read from assumptions.json): 1 in the fast case of a board whose power
    // cap is another board's rule carried over (device.h sustained_16bit_measured false), whose fast end runs uncapped.
    double power_cap_lifted = 0;
    // Not a catalog assumption either: 1 where the trainer overlaps the interleaved pipeline schedule's sends and receives
    // with the model chunks' compute (runtimes.json pipeline_p2p_overlap; set by the training plan's layout assumptions).
    double pipeline_p2p_overlap = 0;
};

enum class Case { typical, low, high }; // which end of each range

// The three cases of every assumption: typical values and the low and high ends of their ranges.
// "low"/"high" are the assumption values, not the outcome: a low efficiency gives a slow result.
struct AssumptionSet {
    Assumptions typical, low, high;
    std::map<std::string, std::string> source;   // name -> source id (catalog) or "workload" (user override)
    const Assumptions& at(Case c) const { return c == Case::low ? low : c == Case::high ? high : typical; }
};

// Names in the order of the struct; each maps to one field.
const std::vector<std::string>& assumption_names();
double Assumptions::*assumption_member(const std::string& name); // the field of that name; nullptr when unknown

// Builds the set from the catalog's defaults and the workload's overrides (an override pins all three
// cases to the user's value). Unknown names and out-of-range values become issues under "assumptions.<name>".
AssumptionSet assumptions_for(const Catalog& catalog, const std::map<std::string, double>& overrides, Issues& issues);

} // namespace hwplan
