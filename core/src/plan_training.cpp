// plan_training.cpp: training evaluation and the training search. eval_train is one data-parallel layout under
// the trainer's runtime profile (memory term by term, the step at its MFU); the search tries counts and layouts
// (data parallel with every ZeRO stage, and for pretraining the layout search's model-parallel layouts) and keeps
// the best point with its runners-up; eval_train_point makes a candidate of one point.
#include <algorithm>
#include <cmath>

#include "hwplan/format.h"
#include "hwplan/memory.h"
#include "hwplan/parallel.h"
#include "plan_eval.h"

namespace hwplan::plan_detail {

// The profile that is the default for full training on d's kind (runtimes.json default_for_device_kinds), or null:
// none for that kind, no device, or an adapter method (LoRA and QLoRA keep their method's default).
const TrainingRuntime* device_default_runtime(const Workload& w, const Catalog& cat, const Device* d) {
    if (!d || w.train.method != TrainMethod::full) return nullptr;
    const std::string kind(name(d->kind));
    for (const auto& r : cat.training_runtimes)
        if (std::find(r.default_for_device_kinds.begin(), r.default_for_device_kinds.end(), kind) != r.default_for_device_kinds.end()) return &r;
    return nullptr;
}

// The training runtime profile (catalog/runtimes.json): the workload's, else for a full run on a device whose kind a
// profile is the default for (default_for_device_kinds: MaxText on a TPU) that profile, else the catalog's default for
// the method. A catalog without runtimes.json gets the struct's defaults (the hf-peft storage rules).
const TrainingRuntime& training_runtime(const Workload& w, const Catalog& cat, const Device* d) {
    static const TrainingRuntime kBuiltIn{.id = "built-in", .name = "built-in defaults (no catalog/runtimes.json)"};
    if (!w.train.runtime.empty())
        if (const TrainingRuntime* r = cat.find_runtime(w.train.runtime)) return *r;
    if (const TrainingRuntime* r = device_default_runtime(w, cat, d)) return *r;
    const std::string method(name(w.train.method));
    for (const auto& r : cat.training_runtimes)
        if (std::find(r.default_for.begin(), r.default_for.end(), method) != r.default_for.end()) return r;
    return kBuiltIn;
}

// Training-shaped stages: finetune, pretrain, and the trainer half of rl.
// What the layout search needs from the trainer's runtime profile to price layouts eval_train does not
// evaluate itself (tensor, context, pipeline and expert parallelism): the job with its storage rules, the
// devices, and the profile's compute time per token on one device (the measured MFU basis with its
// attention, FP8-cast, dequantization and per-micro-batch terms), at the workload's own recomputation.
struct TrainBasis {
    TrainingJob job;
    Cluster cluster;
    bool valid = false;  // a peak is published and the job has a shape the search can split
};

namespace {

// The ZeRO stage eval_train uses on n devices when the search does not choose one: the workload's, else
// ZeRO-3 for a full fine-tune or pretraining over several devices (FSDP), else none; never above what the trainer
// offers (runtimes.json max_zero_stage).
int default_zero(const Workload& w, int n, const TrainingRuntime& rt) {
    if (is_given(w, "train.zero_stage")) return w.train.zero_stage;
    return std::min(rt.max_zero_stage, n > 1 && w.train.method == TrainMethod::full ? 3 : 0);
}

// The recomputation a trainer always applies (runtimes.json recompute), when the workload does not name one.
bool runtime_recompute(const Workload& w, const TrainingRuntime& rt, Checkpointing& rc) {
    if (is_given(w, "train.checkpointing") || rt.recompute.empty()) return false;
    rc = rt.recompute == "full" ? Checkpointing::full : rt.recompute == "selective" ? Checkpointing::selective : Checkpointing::none;
    return true;
}

// The assumptions the layout model prices this trainer's layouts under: a trainer that does not overlap its
// tensor-parallel collectives (runtimes.json tensor_parallel_overlap false) pays them all; one that overlaps the
// interleaved schedule's pipeline sends with the chunks' compute (runtimes.json pipeline_p2p_overlap) pays what outlasts it.
Assumptions layout_assumptions(const Assumptions& a, const TrainingRuntime& rt) {
    Assumptions out = a;
    if (!rt.tensor_parallel_overlap) out.tensor_parallel_overlap = 0;
    out.pipeline_p2p_overlap = rt.pipeline_p2p_overlap ? 1 : 0;
    if (!rt.caching_allocator) out.allocator_fragmentation_ratio = 0; // XLA lays the step's memory out when it compiles it
    return out;
}

} // namespace

// One data-parallel layout with the trainer's own sharding: n devices, ZeRO stage `zero` (< 0: default_zero),
// the workload's micro-batch, recomputation `recompute_choice` (< 0: the trainer's fixed one, else the workload's).
// `basis`, when given, receives what the layout search needs.
void eval_train(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, Eval& e, int zero_choice,
                TrainBasis* basis, int recompute_choice) {
    Candidate& c = e.c;
    const auto& arch = w.model.model.arch;
    const auto& t = w.train;
    const bool full = t.method == TrainMethod::full;
    const TrainingRuntime& rt = training_runtime(w, cat, &d);
    const int zero = zero_choice >= 0 ? zero_choice : default_zero(w, n, rt);
    // The recomputation of this point: the search's choice when the workload leaves it open (train_points), else the
    // trainer's fixed one, else the workload's. A fine-tune's MFU was read at full recomputation (finetune_mfu: torchtune's
    // runs, which recompute), so a fine-tune without it skips that extra forward (below); pretraining's is a kernel-level
    // basis read at the workload's own setting, so a recomputation added beyond it costs its extra forward (below), as in
    // the layout search.
    Checkpointing basis_recompute = t.checkpointing; // what the MFU was read at: the trainer's fixed one, else the workload's
    runtime_recompute(w, rt, basis_recompute);
    const Checkpointing recompute = recompute_choice >= 0 ? Checkpointing(recompute_choice) : basis_recompute;
    c.layout = {.tensor_parallel = 1, .pipeline_parallel = 1, .data_parallel = n, .zero_stage = zero, .micro_batch = int(t.micro_batch),
                .micro_batches = int(std::max(1.0, (t.global_batch > 0 ? t.global_batch : t.micro_batch * n) / (std::max(1.0, t.micro_batch) * n))),
                .recompute = recompute};
    // The adapted layers: the workload's (the recipe it ran), else the trainer profile's default.
    const LoraTargets targets = lora_targets_from_name(t.lora_targets.empty() ? rt.lora_targets : t.lora_targets);
    const double trainable = full ? w.model.params : lora_params(arch, t.lora_rank, targets);
    const bool fp32 = w.precision.compute == "fp32"; // an fp32 run stores 4-byte weights, gradients and activations
    if (e.explain) c.notes.push_back("training runtime: " + rt.name + " [" + rt.id + "]" + (rt.meaning.empty() ? "" : ": " + rt.meaning));

    MemoryUse& m = c.memory;
    m.capacity_bytes = usable_bytes(d, a, false);
    double weights = 0, grad_per = 0, opt_per = 0, frozen_per = 0; // frozen_per, st_per: for the layout search
    ModelStateBytes st_per;
    WeightBytes frozen_base; // LoRA/QLoRA: the frozen base as stored (its quantized share is dequantized per use)
    std::string wwhy;
    if (full) {
        // Mixed precision keeps FP32 master weights (lesson 001's 16 bytes per parameter with AdamW); a pure-bf16
        // trainer (torchtune dtype bf16) updates the bf16 weights in place, its moments in the weights' dtype.
        const ModelStateBytes st = rt.full_master_weights || fp32
                                       ? full_training_state_bytes(t.optimizer, fp32)
                                       : ModelStateBytes{2.0, 2.0, optimizer_moment_bytes_per_param(t.optimizer, rt.optimizer_state_bytes_per_value)};
        weights = w.model.params * st.weights;
        st_per = st;
        grad_per = st.gradients;
        opt_per = st.optimizer;
        if (e.explain) wwhy = format_count(w.model.params) + " params x " + format_sig(st.weights, 2) + " bytes" + (fp32 ? " (fp32)" : "");
    } else {
        const std::string base = t.method == TrainMethod::qlora && w.precision.weights == "bf16" ? "nf4" : w.precision.weights;
        WeightBytes wb = weight_bytes(w, cat, base, w.model.params, e.explain);
        // A quantizer that replaces every linear layer quantizes the output head too (Lightning's BitsandbytesPrecision
        // swaps torch.nn.Linear for its 4-bit class while the model is built: init_context's _ClassReplacementContextManager);
        // only the embedding table stays 16-bit.
        const double head_params = double(arch.vocab) * arch.hidden;
        if (t.method == TrainMethod::qlora && rt.quantizes_head && !arch.tied_embeddings && wb.quantized_params < w.model.params &&
            wb.quantized_params + head_params <= w.model.params) {
            wb.total -= head_params * (2.0 - wb.bits_per_weight / 8);
            wb.quantized_params += head_params;
            if (e.explain) wb.why += "; the head (" + format_count(head_params) + ") quantized too (" + rt.id + ")";
        }
        frozen_base = wb;
        const double adapter = fp32 ? 4.0 : rt.adapter_bytes_per_param;
        weights = wb.total + trainable * adapter;
        grad_per = fp32 ? 4.0 : rt.adapter_gradient_bytes_per_param;
        opt_per = optimizer_moment_bytes_per_param(t.optimizer, fp32 ? 4.0 : rt.optimizer_state_bytes_per_value);
        st_per = {adapter, grad_per, opt_per};
        frozen_per = wb.total / w.model.params;
        if (e.explain) wwhy = "frozen base: " + wb.why + "; adapters " + format_count(trainable) + " x " + format_sig(adapter, 2) +
                              " bytes (rank " + format_sig(t.lora_rank, 4) + ", " + rt.id + ")";
    }
    // With the optimizer step fused into backward only the tensor being updated holds a gradient.
    const double grad_params = rt.optimizer_in_backward ? std::min(trainable, full ? largest_tensor_params(arch) : trainable) : trainable;
    // A mixed-precision optimizer step that converts the gradients to FP32 holds that copy beside its state
    // (DeepSpeed's memory.rst: "16b for fp32: 4b params, 4b grads, 4b momentum and 4b variance").
    // DeepSpeed's BF16_Optimizer (runtime/bf16_optimizer.py, v0.8.1) keeps that copy whole on every data-parallel rank
    // ("self.fp32_groups_gradients_flat.append(torch.zeros_like(self.bf16_groups_flat[i], dtype=torch.float32))"), while its
    // FP32 master weights and Adam state are one partition per rank (fp32_groups_flat_partition): the copy counts with
    // the gradients, not the sharded optimizer (runtimes.json optimizer_fp32_gradients_partitioned false).
    const double fp32_grad_per = full && !fp32 && rt.full_master_weights ? rt.optimizer_fp32_gradient_bytes_per_param : 0;
    const double fp32_grad_whole = rt.optimizer_fp32_gradients_partitioned ? 0 : fp32_grad_per;
    const double fp32_grad_sharded = fp32_grad_per - fp32_grad_whole;
    // The layout search (model-parallel points) holds the bytes this evaluation (data-parallel points) counts: the whole
    // copy with the gradients, a partitioned one with the optimizer state it is sharded like. Before, the search left a
    // partitioned copy out (the deepspeed profile's), so a pipeline layout under DeepSpeed could fit 4 bytes a parameter
    // light and be offered where it does not fit.
    st_per.gradients += fp32_grad_whole;
    st_per.optimizer += fp32_grad_sharded;
    double grads = grad_params * (grad_per + fp32_grad_whole), opt = trainable * (opt_per + fp32_grad_sharded);
    if (zero >= 1) opt /= n;
    const bool grads_sharded = zero >= 3 || (zero == 2 && rt.zero2_shards_gradients);
    if (grads_sharded) grads /= n;
    if (zero >= 3) weights /= n;
    // ZeRO-3 as DeepSpeed runs it gathers one layer at a time: its 16-bit parameters and the 16-bit gradients
    // computed for it (memory.rst: largest_layer_memory = 4 x largest_layer_params); the rest are partitions.
    const double gather_params = zero >= 3 && full && rt.zero3_layer_gather_bytes_per_param > 0 ? largest_tensor_params(arch) : 0;
    if (gather_params > 0) {
        weights += gather_params * rt.zero3_layer_gather_bytes_per_param / 2;
        grads = gather_params * rt.zero3_layer_gather_bytes_per_param / 2;
    }
    const double host_opt = t.cpu_offload ? opt : 0;
    if (t.cpu_offload) opt = 0;
    // Optimizer offload that reduces the gradients into host buffers (DeepSpeed ZeRO-2: "offload_optimizer": 2 * params).
    const bool grads_offloaded = t.cpu_offload && rt.offload_gradients && gather_params == 0;
    if (grads_offloaded) grads = 0;
    // FSDP's CPU offload (PyTorch FSDP2 CPUOffloadPolicy: "offloads parameters, gradients, and optimizer states
    // to CPU. Sharded parameters are copied host-to-device before all-gather"): the device holds only what is
    // unsharded at the moment, the block being computed and the next one whose all-gather overlaps it, and
    // the root unit (embeddings, final norm, head), which FSDP2 does not reshard after forward; in backward the
    // current block's gradient until it is reduce-scattered and copied out, and the root's until backward ends.
    // The same holds for LoRA/QLoRA under FSDP (Answer.AI fsdp_qlora train.py: FSDP(..., cpu_offload=CPUOffload(
    // offload_params=True)) over the whole model, the frozen base included): the frozen blocks stream from host memory.
    const bool params_offloaded = t.cpu_offload && rt.offload_parameters && zero >= 3 && arch.layers > 0;
    const double tables_params = params_offloaded ? std::min(w.model.params, embedding_and_head_params(arch)) : 0;
    const double block_params = params_offloaded ? (w.model.params - tables_params) / arch.layers : 0;
    // A runtime that wraps the token embeddings and the head as FSDP units of their own (torchtune: 70B_full.yaml
    // custom_sharded_layers: ['tok_embeddings', 'output'], which training.shard_model passes to fully_shard with
    // reshard_after_forward=True) reshards them like the blocks: the root keeps only what is left (a learned position
    // table; Llama: the final norm), and the largest unit in flight is the head (vocab x hidden) beside a block.
    const double table_params = double(arch.vocab) * arch.hidden;
    const double own_units_params = rt.shard_embeddings_and_head ? std::min(tables_params, table_params * (arch.tied_embeddings ? 1.0 : 2.0)) : 0;
    const double root_params = tables_params - own_units_params;
    const double largest_unit_params = own_units_params > 0 ? std::max(block_params, table_params) : block_params;
    // The units whose all-gathered storage the device holds at once: the largest and the next block, and under PyTorch FSDP1
    // the one more its rate limiter leaves pending (runtimes.json fsdp_units_in_flight, see below).
    const int offload_units_in_flight = std::max(2, rt.fsdp_units_in_flight);
    const double in_flight_params = largest_unit_params + (offload_units_in_flight - 1) * block_params;
    double offload_shard_copies = 0; // FSDP1's device copies of offloaded shards awaiting their all-gather (below)
    if (params_offloaded && full) {
        weights = (in_flight_params + root_params) * st_per.weights;
        grads = (largest_unit_params + root_params) * grad_per;
        if (rt.fsdp_offload_shard_copies_kept && n > 1) { // FSDP1's shard copies awaiting their all-gather (see below)
            offload_shard_copies = (root_params + block_params) * st_per.weights / n;
            weights += offload_shard_copies;
        }
    } else if (params_offloaded) {
        // Adapters: the units in flight hold the frozen base as stored (quantized blocks at the format's bytes, the
        // 16-bit tables at 2) and their blocks' adapters; gradients exist for the current block's adapters only.
        const double table_bytes_per_param = frozen_base.quantized_params < w.model.params ? 2.0 : frozen_per;
        const double block_bytes_per_param = w.model.params > tables_params
                                                 ? std::max(0.0, frozen_base.total - tables_params * table_bytes_per_param) / (w.model.params - tables_params)
                                                 : frozen_per;
        const double adapters_per_block = trainable / arch.layers;
        weights = in_flight_params * block_bytes_per_param + root_params * table_bytes_per_param +
                  offload_units_in_flight * adapters_per_block * st_per.weights;
        grads = adapters_per_block * grad_per;
        // FSDP1's CPU offload copies each unit's shard to the device before its all-gather, on the pre-unshard stream
        // (_flat_param.py pre_unshard: 'self.flat_param_to(self.device, non_blocking=True)', "This creates a new tensor
        // distinct from any attributes"), and hands it to the unshard stream ('_no_dispatch_record_stream(sharded_flat_param,
        // ...)  # unshard_stream' in _all_gather_flat_param), so the caching allocator keeps it until that all-gather has run.
        // The step opens with the root unit's all-gather, and the first block's shard is copied while it runs: that stream's
        // pool, which no other stream's tensors use, holds both copies (runtimes.json fsdp_offload_shard_copies_kept). A
        // flat parameter holds the 4-bit codes only: bitsandbytes' statistics stay on the parameter object.
        if (rt.fsdp_offload_shard_copies_kept && n > 1) {
            const double stats_bytes_per_param =
                rt.quant_state_replicated && frozen_base.quantized_params > 0
                    ? std::max(0.0, frozen_base.bits_per_weight - std::floor(frozen_base.bits_per_weight)) / 8.0 *
                          std::min(1.0, frozen_base.quantized_params / std::max(1.0, w.model.params - tables_params))
                    : 0.0;
            offload_shard_copies = (root_params * table_bytes_per_param + block_params * (block_bytes_per_param - stats_bytes_per_param)) / n;
            weights += offload_shard_copies;
        }
    }
    // PyTorch FSDP without CPU offload holds all-gathered units beside the shards (runtimes.json fsdp_units_in_flight): the
    // root unit, which it does not reshard after forward (torch/distributed/fsdp/_runtime_utils.py _post_forward_reshard:
    // 'free_unsharded_flat_param = not state._is_root and ...'), unsharded from the first forward to the end of backward,
    // and the block units held at once, each as stored with its adapters. In backward with the default BACKWARD_PRE
    // (api.py: 'at the peak, it holds the current set of parameters, next set of parameters') these are the current and
    // the prefetched block, and the block just resharded: _free_unsharded_flat_param calls record_stream on the compute
    // stream before freeing, so the caching allocator cannot hand its block to the next all-gather until the compute stream
    // has passed it, and limit_all_gathers (_unshard: 'event = state._free_event_queue.dequeue_if_needed()',
    // _max_num_inflight_all_gathers = 2) waits only for the older of the last two frees before the next all-gather: 3.
    // They are separate padded flat parameters allocated on FSDP's unshard stream, whose pool the other streams do not use.
    const bool fsdp_sharded = zero >= 3 && n > 1 && arch.layers > 0;
    double fsdp_root_bytes = 0, fsdp_block_bytes = 0, fsdp_gathered = 0;
    if (fsdp_sharded && (rt.fsdp_units_in_flight > 0 || rt.fsdp_init_cache_kept)) {
        const double tables = std::min(w.model.params, embedding_and_head_params(arch));
        const double block = (w.model.params - tables) / arch.layers;
        if (full) {
            fsdp_root_bytes = tables * st_per.weights;
            fsdp_block_bytes = block * st_per.weights;
        } else {
            const double table_bpp = frozen_base.quantized_params < w.model.params ? 2.0 : frozen_per;
            const double block_bpp = w.model.params > tables ? std::max(0.0, frozen_base.total - tables * table_bpp) / (w.model.params - tables) : frozen_per;
            fsdp_root_bytes = tables * table_bpp;
            fsdp_block_bytes = block * block_bpp + trainable / arch.layers * st_per.weights;
        }
        if (!params_offloaded && rt.fsdp_units_in_flight > 0) {
            fsdp_gathered = fsdp_root_bytes + rt.fsdp_units_in_flight * fsdp_block_bytes;
            weights += fsdp_gathered;
        }
    }
    // DeepSpeed ZeRO-3 over a frozen base (LoRA/QLoRA): the base is partitioned like any parameter (zero.Init), and the
    // parameter coordinator gathers each module's weights for its forward and again for its backward. It releases a module's
    // gathered weights after use unless their next use comes within stage3_max_reuse_distance elements of traced parameters
    // (partitioned_param_coordinator.py __params_to_release: 'examine all modules within max_reuse_dist_in_numel of the
    // current step'; ds_numel counts the stored elements, a 4-bit base packed in 16-bit quant storage at a quarter of its
    // parameters). Under full recomputation a block's recomputed forward runs just before its backward, so a linear layer
    // is kept from one to the other when twice the elements of the layers after it in the block (their recomputed forward,
    // then their backward) stay under that distance; the coordinator also gathers ahead, past what is already available, at
    // least one module and up to stage3_prefetch_bucket_size elements. The peak holds the kept layers and that prefetch.
    double zero3_gathered = 0, zero3_gathered_elements = 0;
    if (zero >= 3 && !full && n > 1 && rt.zero3_max_reuse_distance_elements > 0 && arch.layers > 0 && !arch.has_moe &&
        !arch.has_mla && recompute == Checkpointing::full && !params_offloaded) {
        const double h = arch.hidden, inter = arch.intermediate;
        const double qw = double(arch.heads) * arch.head_dim, kvw = double(arch.kv_heads) * arch.head_dim;
        std::vector<double> mods = {h * qw, h * kvw, h * kvw, qw * h}; // q, k, v, o
        if (arch.mlp == MlpKind::gated) mods.insert(mods.end(), {h * inter, h * inter, inter * h}); // gate, up, down
        else mods.insert(mods.end(), {h * inter, inter * h});                                       // up, down
        const double storage_bytes = fp32 ? 4.0 : 2.0;
        const double code_bytes = frozen_base.quantized_params > 0 && frozen_base.bits_per_weight < 16
                                      ? std::floor(frozen_base.bits_per_weight) / 8.0
                                      : (fp32 ? 4.0 : 2.0);
        for (auto& m_el : mods) m_el *= code_bytes / storage_bytes; // stored elements of the 16-bit (or fp32) dtype
        double kept = 0, after = 0;
        std::vector<bool> is_kept(mods.size(), false);
        for (size_t i = mods.size(); i-- > 0;) {
            is_kept[i] = 2.0 * after < rt.zero3_max_reuse_distance_elements;
            if (is_kept[i]) kept += mods[i];
            after += mods[i];
        }
        // Gathered ahead: the block's released layers in backward order, then the next block's recomputed forward.
        std::vector<double> ahead;
        for (size_t i = mods.size(); i-- > 0;)
            if (!is_kept[i]) ahead.push_back(mods[i]);
        for (double m_el : mods) ahead.push_back(m_el);
        double prefetched = 0;
        for (double m_el : ahead) {
            if (prefetched >= rt.zero3_prefetch_bucket_elements && prefetched > 0) break;
            prefetched += m_el;
        }
        zero3_gathered_elements = kept + prefetched;
        zero3_gathered = zero3_gathered_elements * storage_bytes;
        weights += zero3_gathered;
    }
    auto weights_why = [&]() -> std::string {
        if (zero3_gathered > 0)
            return std::string(wwhy + ", sharded over " + std::to_string(n) + " + the base's gathered layers (" + gb(zero3_gathered) + ", " +
                               format_count(zero3_gathered_elements) + " elements: the recomputed block's layers reused within " +
                               format_count(rt.zero3_max_reuse_distance_elements) + " elements and the prefetch, " + rt.id + ")");
        if (fsdp_gathered > 0)
            return std::string(wwhy + ", sharded over " + std::to_string(n) + " + all-gathered units (" + rt.id + "): the root unit, embeddings and head (" +
                               gb(fsdp_root_bytes) + "), unsharded through the step, and " + std::to_string(rt.fsdp_units_in_flight) + " blocks in flight (" +
                               gb(rt.fsdp_units_in_flight * fsdp_block_bytes) + ")");
        if (params_offloaded && own_units_params > 0)
            return std::string(wwhy + "; offloaded with FSDP's CPU offload (" + rt.id + "): on the device the largest unit in flight (" +
                               format_count(largest_unit_params) + " params) and the next block (" + format_count(block_params) +
                               "); embeddings and head are units of their own, resharded after forward" +
                               (root_params > 0 ? ", the root keeps " + format_count(root_params) : ""));
        if (params_offloaded) return std::string(wwhy + "; offloaded with FSDP's CPU offload (" + rt.id + "): on the device " +
                                                 std::to_string(offload_units_in_flight) + " blocks in flight (" + format_count(in_flight_params) +
                                                 " params) and the root unit, embeddings and head (" + format_count(root_params) + ")" +
                                                 (offload_shard_copies > 0 ? ", and the device copies of the root's and a block's shards awaiting their all-gather (" +
                                                                                 gb(offload_shard_copies) + ")"
                                                                           : ""));
        return std::string(wwhy + (zero >= 3 ? ", sharded over " + std::to_string(n) : "") +
                                                           (gather_params > 0 ? " + the largest layer gathered (" + format_count(gather_params) + " params x 2 bytes)" : "")); };
    // A 4-bit base's quantization statistics outside the sharded parameters (runtimes.json quant_state_replicated):
    // (FSDP, and DeepSpeed ZeRO-3, which partitions a 4-bit base's parameter data after each device quantized it whole)
    // bitsandbytes keeps them on the parameter object ('self.quant_state = quant_state', bitsandbytes/nn/modules.py
    // Params4bit.__new__), and FSDP flattens, shards and offloads only the parameter's tensor data, so every device holds
    // the whole model's statistics: the format's bits beyond its 4-bit codes (nf4: 0.127 bits a weight, formats.json).
    // What the weights above already count of them (a 1/n share, or the units in flight under CPU offload) is not added twice.
    double replicated_stats = 0;
    if (fsdp_sharded && !full && rt.quant_state_replicated && frozen_base.quantized_params > 0) {
        const double stats_per_param = std::max(0.0, frozen_base.bits_per_weight - std::floor(frozen_base.bits_per_weight)) / 8.0;
        const double whole = frozen_base.quantized_params * stats_per_param;
        const double quantized_share = frozen_base.quantized_params / std::max(1.0, w.model.params - (params_offloaded ? tables_params : 0.0));
        const double counted = params_offloaded ? std::min(frozen_base.quantized_params, in_flight_params * quantized_share) * stats_per_param
                                                : whole / n;
        replicated_stats = std::max(0.0, whole - counted);
        weights += replicated_stats;
    }
    m.weights_bytes = weights;
    e.term(m, "weights", weights, [&] {
        const std::string stats_why = replicated_stats > 0 ? "; the 4-bit base's quantization statistics whole on each device (" + gb(replicated_stats) +
                                                                 " more; " + rt.id + ": bitsandbytes' quant_state is not in the parameter data the runtime shards)"
                                                           : "";
        return weights_why() + stats_why;
    });
    m.gradients_bytes = grads;
    e.term(m, "gradients", grads, [&] {
        if (params_offloaded && !full)
            return std::string("the current block's adapters (" + format_count(trainable / arch.layers) + ") x " + format_sig(grad_per, 2) +
                               " bytes; the rest are copied to host memory as they are reduce-scattered (" + rt.id + ")");
        if (params_offloaded && own_units_params > 0)
            return std::string("the largest unit's (" + format_count(largest_unit_params) + ")" +
                               (root_params > 0 ? " and the root unit's (" + format_count(root_params) + ")" : "") + " x " + format_sig(grad_per, 2) +
                               " bytes; the rest are copied to host memory as they are reduce-scattered (" + rt.id + ")");
        if (params_offloaded) return std::string("the current block's (" + format_count(block_params) + ") and the root unit's (" + format_count(root_params) + ") x " +
                                                 format_sig(grad_per, 2) + " bytes; the rest are copied to host memory as they are reduce-scattered (" + rt.id + ")");
        if (grads_offloaded) return std::string("reduced into host memory with the offloaded optimizer (" + rt.id + ")");
        if (gather_params > 0) return std::string("16-bit gradients of the largest layer only (" + format_count(gather_params) + " params x 2 bytes; ZeRO-3, " + rt.id + ")");
        return std::string(format_count(grad_params) + (grad_params < trainable ? " (the largest tensor; optimizer step in backward)" : " trainable") +
                           " x " + format_sig(grad_per, 2) + " bytes" +
                           (fp32_grad_whole > 0 ? " + " + format_sig(fp32_grad_whole, 2) + " for the FP32 gradient copy, whole on each device (" + rt.id + ")" : "") +
                           (grads_sharded ? ", sharded" : zero == 2 ? ", whole on each device (" + rt.id + ")" : ""));
    });
    ActivationSettings as;
    as.seq_len = t.seq_len;
    as.micro_batch = t.micro_batch;
    as.checkpointing = recompute;
    as.bytes_per_value = fp32 ? 4.0 : 2.0;
    as.flash_attention = t.attention.empty() ? !rt.eager_attention : t.attention != "eager";
    as.logits_kept_bytes_per_value = fp32 && rt.logits_kept_bytes_per_value > 0 ? 4.0 : rt.logits_kept_bytes_per_value; // fp32 logits
    // In an fp32 run the logits are already FP32: the loss's upcast (logits.float()) returns the same tensor,
    // so of the profile's FP32 bytes per logit (copy 4 + gradient 4, hf-loss-utils) only the gradient is new.
    as.loss_fp32_bytes_per_value = fp32 ? std::max(0.0, rt.loss_fp32_bytes_per_value - 4.0) : rt.loss_fp32_bytes_per_value;
    as.loss_chunks = rt.loss_chunks;
    // Checkpoints in host memory: a runtime that always offloads them (Unsloth), or a run that turned activation offloading
    // on (train.offload_activations; torchtune's lora_finetune_single_device from 2024-09-16, enable_activation_offloading:
    // 'with self.activations_handling_ctx: logits = self._model(tokens, ...)', an OffloadActivations whose pack hook moves each
    // saved tensor over 1 KB to host memory, so under activation checkpointing the block inputs the checkpoints save; the
    // output head runs under a NoOpManager, so what it saves and the logits stay on the device).
    as.offload_checkpoints = rt.offload_checkpoints || t.offload_activations;
    // Layer-wise activation offload without recomputation (train.offload_activation_layers; Megatron-Core's
    // cpu_offloading_num_layers, memory.h ActivationSettings::offloaded_layers): the device keeps L - N blocks' saved tensors.
    as.offloaded_layers = t.offload_activation_layers;
    // MaxText's custom remat policy (train.remat_tensors, memory.h RematTensors): full recomputation from each block's input,
    // less what it saves; what it saves on the device stays there beside the inputs, what it offloads goes to host memory.
    const bool custom_remat = !t.remat_tensors.empty() && recompute == Checkpointing::full;
    const RematTensors remat = custom_remat ? maxtext_remat_tensors(arch, t.remat_tensors) : RematTensors{};
    as.remat_saved_split_bytes_per_token = remat.device_split_elements * as.bytes_per_value;
    as.remat_saved_whole_bytes_per_token = remat.device_whole_elements * as.bytes_per_value;
    if (e.explain && custom_remat) {
        std::string on_device, in_host;
        auto add = [](std::string& list, const std::string& n) { list += (list.empty() ? "" : ", ") + n; };
        if (t.remat_tensors.find("decoder_layer_input") == t.remat_tensors.end()) add(on_device, "decoder_layer_input"); // base.yml's default
        for (const auto& [k, where] : t.remat_tensors) {
            if (where == "device") add(on_device, k);
            else if (where == "offload") add(in_host, k);
        }
        c.notes.push_back("activation recomputation: MaxText's custom remat policy (train.remat_tensors): saved on the device " +
                          (on_device.empty() ? std::string("nothing") : on_device) + "; in host memory " + (in_host.empty() ? std::string("nothing") : in_host) +
                          "; the rest recomputed from each block's input: " + format_sig(100 * remat.recompute_share, 3) +
                          " % of the blocks' forward GEMM FLOPs run again" + (remat.attention_recomputed ? " and the attention kernel's forward" : ", the attention kernel's forward not (context saved)") +
                          (remat.offloaded_elements > 0 || remat.input_offloaded
                               ? "; " + format_sig(remat.offloaded_elements + (remat.input_offloaded ? arch.hidden : 0), 4) +
                                     " values a token a block copied to host memory and back, not priced in the step time"
                               : std::string()) +
                          (w.stage == Stage::pretrain ? "; the pretraining basis is read at the run's stated recomputation, so no forward is added to it" : ""));
    }
    as.gated_mlp_saved_tensors = rt.gated_mlp_saved_tensors;
    // Under torch.compile (train.compiled) AOTAutograd's min-cut partitioner (torch/_functorch/partitioners.py
    // min_cut_rematerialization_partition) saves what it must and recomputes the rest: aten.silu is in its default
    // recomputable ops, and should_ban_recomputation bans only nodes that are compute-intensive (the matmuls: gate and up
    // stay saved) or "materialized" in backward (used there by an op that cannot fuse, as the down projection's weight
    // gradient uses its input); SiLU's output is used in backward only by the element-wise product's gradient, so it is
    // recomputed from the saved gate output. That leaves the gate and up outputs and, where the down projection's weight
    // trains, its input: 3 at most (a runtime that already keeps fewer keeps its count).
    if (t.compiled) as.gated_mlp_saved_tensors = std::min(as.gated_mlp_saved_tensors, 3.0);
    // Under FP8 compute a trainer whose linear layers keep the FP8 copy of their input (Transformer Engine: runtimes.json
    // fp8_linear_input_bytes_per_value) holds those copies at that width, not at the activations' 16 bits (memory.h).
    const bool fp8_linear_inputs = w.precision.compute == "fp8" && rt.fp8_linear_input_bytes_per_value > 0;
    if (fp8_linear_inputs) as.linear_input_bytes_per_value = rt.fp8_linear_input_bytes_per_value;
    // Over a frozen base a linear layer's input is kept only when something needs it in backward (memory.h
    // ActivationSettings): a 4-bit base whose matmul keeps it, or the layer's adapter when it reads the input undropped.
    // With dropout the adapter keeps its dropped copy and mask instead (lora_dropout_bytes_per_token).
    if (!full) {
        const bool base_keeps = t.method == TrainMethod::qlora && rt.quantized_base_keeps_inputs;
        const bool adapter_keeps = rt.lora_dropout <= 0;
        const bool all_linears = targets == LoraTargets::all;
        as.qkv_input_kept = base_keeps || adapter_keeps;
        as.mlp_input_kept = base_keeps || (all_linears && adapter_keeps);
        as.down_input_kept = base_keeps || (all_linears && adapter_keeps);
        const double aw = double(arch.heads) * arch.head_dim, kv_width = double(arch.kv_heads) * arch.head_dim; // Q; K and V widths
        as.extra_bytes_per_token = lora_dropout_bytes_per_token(arch, targets, rt.lora_dropout, rt.lora_dropout_per_module, as.bytes_per_value) +
                                   (rt.fused_qkv_kept ? as.bytes_per_value * (aw + kv_width) : 0.0) +
                                   (rt.lora_zero_pad_kept && targets == LoraTargets::query_value ? as.bytes_per_value * (aw + kv_width) : 0.0);
    }
    const auto act = training_activation_bytes(arch, as, arch.layers);
    // A 4-bit base is dequantized to a 16-bit copy for each matmul, forward and backward (bitsandbytes MatMul4Bit:
    // 'F.dequantize_4bit(B, quant_state).to(A.dtype)'; torchao LinearNF4: 'weight.to(input.dtype)'): the largest quantized
    // matrix's copy is live at the peak, when backward starts beside every kept activation (the head's, where it is quantized).
    double dequant_copy = 0;
    if (t.method == TrainMethod::qlora) {
        const double block_matrix = double(arch.hidden) * std::max(arch.intermediate, arch.has_moe ? arch.moe.expert_intermediate : 0);
        const double head_matrix = rt.quantizes_head && !arch.tied_embeddings ? double(arch.vocab) * arch.hidden : 0.0;
        // An fp32 run's copy is cast to FP32: 2 bytes more per parameter than the profile's 16-bit copy.
        dequant_copy = std::max(block_matrix, head_matrix) * (rt.dequantized_copy_bytes_per_param + (fp32 ? 2.0 : 0.0));
    }
    m.activations_bytes = act.total_bytes + dequant_copy;
    // The caching allocator fragments what is allocated and freed every step (activations, the loss's
    // buffers, gradients freed by zero_grad(set_to_none=True)); weights and optimizer state are allocated
    // once, each large tensor in a segment of its own size (PyTorch CUDACachingAllocator: "Large (>1MB)
    // allocation requests can be filled by a cudaMalloc call of the exact size").
    const double transient = m.activations_bytes + m.gradients_bytes;
    // A runtime without PyTorch's caching allocator (runtimes.json caching_allocator false: XLA's compile-time buffer
    // assignment) adds none.
    m.fragmentation_ratio = rt.caching_allocator ? a.allocator_fragmentation_ratio : 0.0;
    const double fragmentation = m.fragmentation_ratio * transient;
    m.overhead_bytes = runtime_context_bytes(d, a) + fragmentation;
    // DeepSpeed ZeRO-3's gradient bucket (stage3.py: 'if self.contiguous_gradients: self.__ipg_bucket_flat_buffer =
    // torch.empty(self.reduce_bucket_size, dtype=self.dtype, device=...)'), allocated whole when the optimizer is built.
    const double ipg_bucket = zero >= 3 && n > 1 ? rt.zero3_reduce_bucket_elements * (fp32 ? 4.0 : 2.0) : 0.0;
    m.overhead_bytes += ipg_bucket;
    // FSDP's init leaves its transients cached (runtimes.json fsdp_init_cache_kept): FlatParamHandle concatenates a unit's
    // original tensors into a flat parameter while they live, then shard() clones this rank's chunk and frees the unsharded
    // one (torch/distributed/fsdp/_flat_param.py flatten_tensors, shard), so the last units it wraps, a block and the root,
    // leave two copies each in the caching allocator; fsdp_qlora's train.py calls torch.cuda.reset_peak_memory_stats only
    // after the wrap, so the reserved peak starts there. The step's default-stream tensors (optimizer state, activations and
    // their fragmentation) reuse that cache; what they do not fill stays reserved.
    double init_cache = 0;
    if (fsdp_sharded && rt.fsdp_init_cache_kept) {
        const double cached = 2.0 * (fsdp_root_bytes + fsdp_block_bytes);
        init_cache = std::max(0.0, cached - (opt + m.activations_bytes + fragmentation));
        m.overhead_bytes += init_cache;
    }
    // Quantizing the base at model load (runtimes.json quantize_transient_bytes_per_element: torchao 0.1 quantized each
    // weight whole, (n, 16) BF16 temporaries for the nearest NF4 value) allocates a transient the caching allocator keeps
    // reserved when the recipe never empties its cache; the step's tensors reuse it, so what they do not fill stays
    // reserved, as FSDP init's cache above.
    double quantize_cache = 0;
    if (t.method == TrainMethod::qlora && rt.quantize_transient_bytes_per_element > 0 && frozen_base.bits_per_weight < 16) {
        const double block_matrix = double(arch.hidden) * std::max(arch.intermediate, arch.has_moe ? arch.moe.expert_intermediate : 0);
        const double head_matrix = rt.quantizes_head && !arch.tied_embeddings ? double(arch.vocab) * arch.hidden : 0.0;
        const double cached = rt.quantize_transient_bytes_per_element * std::max(block_matrix, head_matrix);
        quantize_cache = std::max(0.0, cached - (opt + m.activations_bytes + fragmentation + init_cache));
        m.overhead_bytes += quantize_cache;
    }
    // Paged optimizers (bitsandbytes, QLoRA section 3) keep the optimizer state in unified memory: when the
    // rest leaves too little room, the part that does not fit pages to host memory instead of failing.
    // Only the recipes that set a paged optimizer page it (torchtune: its full single-device config's PagedAdamW8bit; its
    // LoRA and QLoRA configs use torch.optim.AdamW, allocated by the caching allocator: runtimes.json paged_optimizer_methods).
    const bool paged_state = pages_optimizer(rt, std::string(name(t.method)));
    double paged = 0;
    if (paged_state && opt > 0) {
        const double rest = weights + grads + m.activations_bytes + m.overhead_bytes;
        paged = std::clamp(rest + opt - m.capacity_bytes, 0.0, opt);
        opt -= paged;
    }
    m.optimizer_bytes = opt;
    m.context_bytes = runtime_context_bytes(d, a);
    m.managed_bytes = paged_state ? opt : 0.0; // what stays on the device of the paged state is still managed memory
    e.term(m, "optimizer", opt, [&] { return std::string(std::string(name(t.optimizer)) + ": " + format_sig(opt_per, 3) + " bytes per trainable parameter" +
                                      (fp32_grad_sharded > 0 ? " + " + format_sig(fp32_grad_sharded, 2) + " for the FP32 gradient copy (" + rt.id + ")" : "") +
                                      (zero >= 1 ? ", sharded (ZeRO-" + std::to_string(zero) + ")" : "") +
                                      (t.cpu_offload ? "; offloaded: " + gb(host_opt) + " in host memory" : "") +
                                      (paged > 0 ? "; paged optimizer: " + gb(paged) + " paged out to host memory" : "")); });
    e.term(m, "activations", m.activations_bytes, [&] { return std::string("blocks " + gb(act.blocks_bytes) + " (" +
                                                    (recompute == Checkpointing::none ? std::string("no") : std::string(name(recompute))) +
                                                    " recomputation, " + (as.flash_attention ? "fused attention" : "eager attention: score matrices stored") +
                                                    (fp32 ? ", fp32" : "") +
                                                    (t.compiled && arch.mlp == MlpKind::gated && as.gated_mlp_saved_tensors < rt.gated_mlp_saved_tensors ? ", compiled: the MLP's SiLU output recomputed in backward (train.compiled)" : std::string()) +
                                                    (fp8_linear_inputs ? ", the linear layers' inputs kept as FP8 copies of " + format_sig(as.linear_input_bytes_per_value, 3) + " byte a value (" + rt.id + ")" : std::string()) +
                                                    (as.offload_checkpoints && recompute == Checkpointing::full ? std::string(", checkpoints offloaded to host memory") + (custom_remat ? " (train.remat_tensors decoder_layer_input \"offload\")" : t.offload_activations && !rt.offload_checkpoints ? " (train.offload_activations)" : "") : std::string()) +
                                                    (custom_remat && remat.device_split_elements + remat.device_whole_elements > 0
                                                         ? ", and what MaxText's custom remat policy saves on the device (train.remat_tensors): " +
                                                               format_sig(remat.device_split_elements + remat.device_whole_elements, 4) + " values a token a block"
                                                         : std::string()) +
                                                    (as.offloaded_layers > 0 && arch.layers > 0
                                                         ? ", the saved activations of " + std::to_string(std::min(as.offloaded_layers, arch.layers - 1)) + " of " +
                                                               std::to_string(arch.layers) + " blocks in host memory (train.offload_activation_layers), " +
                                                               gb(training_activation_bytes_per_layer(arch, as)) + " a block"
                                                         : std::string()) +
                                                    ") + logits and the loss " + gb(act.logits_bytes) + " (" + rt.id +
                                                    (rt.loss_chunks > 1             ? ": " + format_sig(rt.loss_chunks, 3) + " chunks"
                                                     : as.loss_fp32_bytes_per_value >= 4 ? ": whole FP32 logits"
                                                     : as.loss_fp32_bytes_per_value > 0  ? ": the logits kept and " + format_sig(as.loss_fp32_bytes_per_value, 2) +
                                                                                               " bytes a logit more while the loss is taken, no FP32 copy"
                                                                                         : ": the logits kept, no FP32 copy") + ")" +
                                                    (dequant_copy > 0 ? " + the dequantized copy of the largest 4-bit matrix " + gb(dequant_copy) : "")); });
    e.term(m, "overhead", m.overhead_bytes, [&] { return std::string("runtime context " + gb(runtime_context_bytes(d, a)) +
                                                  (rt.caching_allocator ? " + allocator fragmentation " + format_sig(100 * a.allocator_fragmentation_ratio, 3) +
                                                                              " % of the per-step tensors (" + gb(transient) + ")"
                                                                        : std::string("; no caching-allocator fragmentation: XLA lays the step's memory out when it compiles it (") +
                                                                              rt.id + ")") +
                                                  (ipg_bucket > 0 ? " + ZeRO-3's gradient bucket " + gb(ipg_bucket) + " (reduce_bucket_size " +
                                                                        format_count(rt.zero3_reduce_bucket_elements) + " elements, " + rt.id + ")" : "") +
                                                  (init_cache > 0 ? " + FSDP init's cache the step does not fill, " + gb(init_cache) + " (" + rt.id + ")" : "") +
                                                  (quantize_cache > 0 ? " + the load-time quantization's cache the step does not fill, " + gb(quantize_cache) + " (" +
                                                                            format_sig(rt.quantize_transient_bytes_per_element, 3) + " bytes per element of the largest quantized matrix, " + rt.id + ")"
                                                                      : "")); });
    finish_memory(m);
    m.unmodelled_high_ratio = rt.memory_unmodelled_high_ratio;
    if (e.explain && m.unmodelled_high_ratio > 0)
        c.notes.push_back("memory not calibrated for this trainer (" + rt.id + "): its published peaks have run up to " +
                          format_sig(100 * m.unmodelled_high_ratio, 2) + " % above the plan from mechanisms the profile does not model; "
                          "the memory band's high end includes that");
    c.fits = m.total_bytes <= m.capacity_bytes;

    const Peak peak = peak_for(d, w.precision.compute);
    if (peak.fell_back() && e.explain) c.notes.push_back(peak.note());
    if (peak.capped_flop_per_s > 0 && e.explain) c.notes.push_back(peak.cap_note("training"));
    const double mfu = w.stage == Stage::pretrain ? a.training_mfu : a.finetune_mfu;
    const double sequences = t.global_batch > 0 ? t.global_batch : t.micro_batch * n;
    const double tokens_per_step = sequences * t.seq_len;
    // Adapter fine-tunes take the runtime's own timing (runtimes.json, adapter_step_overhead_s and
    // causal_attention_flops_ratio, fitted on its calibration rows); full training keeps the MFU's full count.
    const bool adapter = t.method != TrainMethod::full;
    // Eager attention computes the whole score matrix, masked or not: only a fused kernel skips (Dao 2023, 3.1.1).
    const double attention_ratio = adapter && !rt.eager_attention ? rt.causal_attention_flops_ratio : 1.0;
    const double flops_per_token = training_flops_per_token(arch, w.model.active_params, t.seq_len, t.method, recompute, attention_ratio,
                                                            remat.recompute_share, remat.attention_recomputed);
    Phase step;
    if (e.explain) step.name = "training step (" + format_sig(tokens_per_step, 6) + " tokens)";
    step.precision = peak.precision;
    // MFU is a share of peak in *model* FLOPs (PaLM appendix B; Llama 3 and torchtune's figures count no
    // recomputation), so the step time divides the model FLOPs by it; what recomputation costs is already in
    // the measured MFU of the runs that recompute.
    const double model_flops_per_token =
        training_flops_per_token(arch, w.model.active_params, t.seq_len, t.method, Checkpointing::none, attention_ratio);
    // Where the attention kernels' own share of peak was measured for the device family (efficiencies.json
    // training_attention_efficiency), attention FLOPs run at that share of the 16-bit peak (FlashAttention runs
    // in BF16 under FP8 recipes too) and the MFU prices the rest; elsewhere the MFU prices all of it.
    const Peak attention_peak = peak_for(d, w.precision.compute == "fp8" ? "bf16" : w.precision.compute);
    const bool attention_apart = a.training_attention_efficiency > 0 && attention_peak.flop_per_s > 0;
    const double attention_flops_per_token =
        attention_apart ? training_flops_per_token(arch, 0, t.seq_len, t.method, Checkpointing::none, attention_ratio) : 0.0; // no parameters: attention alone
    // The kernels also run the forward that recomputation repeats: full checkpointing recomputes each block's
    // forward, attention included, and selective recomputation recomputes exactly the attention core (Korthikanti
    // et al. 2022, arXiv:2205.05198, "Selective Activation Recomputation"). The MFU absorbs the recomputed GEMMs
    // (it is measured on runs that recompute); a kernel's share of peak does not absorb extra kernel work, so
    // attention counts 4 forwards instead of 3 (llm-foundry scripts/train/benchmarking/README.md, "HFU": with
    // checkpointing "4 * attn_flops_per_seq").
    const double attention_run_flops_per_token =
        attention_apart ? training_flops_per_token(arch, 0, t.seq_len, t.method,
                                                   recompute == Checkpointing::none ? Checkpointing::none : Checkpointing::full,
                                                   attention_ratio, 1.0, remat.attention_recomputed)
                        : 0.0;
    const double attention_s = attention_apart ? tokens_per_step * attention_run_flops_per_token / n /
                                                     attention_peak.achieved(a.training_attention_efficiency, a)
                                               : 0.0;
    // Pretraining with a recomputation other than the one its basis was read at: the GEMMs' FLOPs scale
    // by the hardware FLOPs of the two settings, attention apart (priced above with its own recomputed forward), as
    // the layout search scales its compute basis (parallel.cpp, compute_basis_recompute), so the two kinds of point
    // of one pretraining search compete on one basis. A fine-tune's basis is full recomputation (finetune_mfu was
    // read on torchtune's recomputing runs), so one without it runs the GEMMs of one forward fewer: torchtune's own
    // A/B (README "Optimization flags", pytorch/torchtune #2003: Llama 3.2 3B full fine-tune on an A100, batch 2,
    // packed 4,096, compile and chunked loss: 9,415 tokens/s, 7,394 with activation checkpointing, -21.5 %) against
    // 6N -> 8N FLOPs a token (-25 %). Reinforcement learning keeps its step as it was (its basis not read).
    // A custom remat policy (train.remat_tensors) recomputes its share of the forward; a fine-tune's basis is plain full
    // recomputation, so one that saves tensors runs fewer GEMMs than it; a pretraining run that states its policy is read at
    // it, as any stated recomputation.
    auto gemm_flops = [&](Checkpointing rc, const RematTensors& rs) {
        return training_flops_per_token(arch, w.model.active_params, t.seq_len, t.method, rc, attention_ratio, rs.recompute_share, rs.attention_recomputed) -
               (attention_apart ? training_flops_per_token(arch, 0, t.seq_len, t.method, rc, attention_ratio, 1.0, rs.attention_recomputed) : 0.0);
    };
    const Checkpointing mfu_basis_recompute = w.stage == Stage::finetune ? Checkpointing::full : basis_recompute;
    const bool basis_differs = recompute != mfu_basis_recompute || (w.stage == Stage::finetune && custom_remat);
    const double recompute_ratio = (w.stage == Stage::pretrain || w.stage == Stage::finetune) && basis_differs
                                       ? gemm_flops(recompute, remat) / gemm_flops(mfu_basis_recompute, RematTensors{})
                                       : 1.0;
    step.roofline = roofline(tokens_per_step * (model_flops_per_token - attention_flops_per_token) * recompute_ratio / n, 0,
                             peak.achieved(mfu, a),
                             d.bandwidth_bytes_per_s);
    // The step's compute is both parts, and its FLOPs the whole model's (what an MFU is read against).
    step.roofline.flops = tokens_per_step * model_flops_per_token / n;
    step.roofline.compute_s += attention_s;
    step.roofline.time_s = std::max(step.roofline.compute_s, step.roofline.memory_s);
    // FP8 GEMMs also pay for casting their operands (performance.h, fp8_cast_time_s), memory-bound work the
    // MFU of the BF16 runs above does not contain; it runs between the GEMMs, so it adds to their time.
    const double fp8_cast_s = peak.precision == "fp8" && peak.flop_per_s > 0
                                  ? fp8_cast_time_s(arch, tokens_per_step / n, a.training_fp8_cast_bytes_per_element, d.bandwidth_bytes_per_s)
                                  : 0.0;
    // QLoRA dequantizes its frozen 4-bit base on every use (performance.h, qlora_dequant_time_s): forward and
    // backward, plus the recomputed forward under full checkpointing, once per micro-batch; every device
    // dequantizes whole layers (data parallel, or FSDP after its all-gather).
    const double micro_batches = std::max(1.0, sequences / (std::max(1.0, t.micro_batch) * n));
    const double dequant_uses = micro_batches * (recompute == Checkpointing::full ? 3.0 : 2.0);
    const double dequant_s = t.method == TrainMethod::qlora && frozen_base.bits_per_weight < 16
                                 ? qlora_dequant_time_s(frozen_base.quantized_params, frozen_base.bits_per_weight, dequant_uses,
                                                        d.bandwidth_bytes_per_s)
                                 : 0.0;
    // The host's time per micro-batch of an eager adapter fine-tune (performance.h adapter_host_ops_per_micro_batch,
    // runtimes.json adapter_host_ops_*, counted from the trainer's code): each operation the Python step issues at
    // eager_op_host_s (the gpt-fast blog's eager A100 run, not fitted here). Added to the device's time, not hidden
    // behind it: the adapters' operations (a clone, a cast, two rank-r products, a scaling and an add per linear, the
    // eager norms and rotary products) each take the device less time than the host takes to issue them, so the
    // device waits through them; what it runs in the meantime, the large GEMMs, is what the MFU prices. The band's
    // fast end takes the launch alone (eager_op_host_s low). A runtime may instead declare a fixed time per
    // micro-batch (adapter_step_overhead_s, fitted on its calibration rows).
    const int linears_per_layer = arch.mlp == MlpKind::gated ? 7 : 6; // q, k, v, o + gate, up, down (plain: fc1, fc2)
    const double host_ops = adapter ? adapter_host_ops_per_micro_batch(rt.adapter_host_ops_forward_per_layer, rt.adapter_host_ops_backward_per_layer,
                                                                       rt.adapter_host_ops_dequant_per_linear, rt.adapter_host_ops_outside_layers, arch.layers,
                                                                       linears_per_layer, recompute == Checkpointing::full,
                                                                       t.method == TrainMethod::qlora && frozen_base.bits_per_weight < 16)
                                    : 0.0;
    const double host_s = micro_batches * host_ops * a.eager_op_host_s;
    const double overhead_s = adapter ? micro_batches * rt.adapter_step_overhead_s + host_s : 0.0;
    if (e.explain && host_s > 0)
        c.notes.push_back("the step includes the host issuing " + format_sig(host_ops, 4) + " operations per micro-batch (" + rt.id +
                          ", counted from its code) at " + format_sig(1e6 * a.eager_op_host_s, 3) +
                          " us each, read from an eager run on an A100's host: the host's speed is not calibrated for this trainer, and the band "
                          "spans the per-operation cost from the launch alone to PyTorch's slowest eager dispatch");
    // Pretraining's element-wise kernels (norms, residual adds, the MLP's activation, the loss) run at memory speed
    // outside the GEMMs the MFU prices (performance.h, training_elementwise_time_s), so the basis is the GEMMs' share
    // of peak and these add to it at any precision: an FP8 step speeds up its GEMMs only. Fine-tunes keep their
    // end-to-end MFU (finetune_mfu), which holds them.
    const double elementwise_s = w.stage == Stage::pretrain && peak.flop_per_s > 0
                                     ? training_elementwise_time_s(arch, tokens_per_step / n, recompute == Checkpointing::full,
                                                                   a.training_elementwise_bytes_per_element * (fp32 ? 2.0 : 1.0), d.bandwidth_bytes_per_s)
                                     : 0.0;
    // Eager attention (as.flash_attention false: the runtime's, e.g. Megatron-LM's and Megatron-DeepSpeed's unfused core
    // attention, or train.attention "eager") also moves its score matrices through the softmax (and, where the trainer
    // drops out attention probabilities, the dropout) kernels at memory speed, outside the two batched GEMMs the FLOPs
    // count (performance.h, eager_attention_elementwise_elements_per_token); pretraining only, like the element-wise term.
    const double eager_score_elements = w.stage == Stage::pretrain && !as.flash_attention && peak.flop_per_s > 0
                                            ? eager_attention_elementwise_elements_per_token(arch, t.seq_len, recompute != Checkpointing::none, rt.attention_dropout)
                                            : 0.0;
    const double eager_scores_s = eager_score_elements > 0 && d.bandwidth_bytes_per_s > 0
                                      ? tokens_per_step / n * eager_score_elements * a.training_elementwise_bytes_per_element * (fp32 ? 2.0 : 1.0) /
                                            d.bandwidth_bytes_per_s
                                      : 0.0;
    if (e.explain && eager_scores_s > 0)
        c.notes.push_back("eager attention: the score matrices' softmax" + std::string(rt.attention_dropout ? " and dropout" : "") + " kernels move " +
                          format_sig(eager_score_elements / 1e6, 3) + " million elements a token at memory bandwidth (" +
                          format_sig(eager_scores_s, 3) + " s a step), outside the attention GEMMs' FLOPs");
    // The routed experts' grouped GEMMs as a tiled kernel runs them (train.grouped_gemm; performance.h grouped_gemm_tile_factor,
    // read from tokamax's megablox kernel): the row tiles its group boundaries revisit and the padded contraction and output
    // tiles are MXU work beyond the useful FLOPs the basis prices, so they run at the GEMMs' basis (recomputation scaling it
    // as it scales the GEMMs). The groups are one device's experts: all, or experts / the pinned expert-parallel size.
    const int local_experts = arch.has_moe ? std::max(1, arch.moe.experts / std::max(1, t.expert_parallel)) : 0;
    const double tile_factor = t.grouped_gemm_rows > 0 && arch.has_moe
                                   ? routed_expert_tile_factor(arch, t.grouped_gemm_rows, local_experts, t.grouped_gemm_wi, t.grouped_gemm_wo)
                                   : 1.0;
    const double expert_tile_s = tile_factor > 1 && peak.flop_per_s > 0
                                     ? tokens_per_step / n * (tile_factor - 1) * routed_expert_training_flops_per_token(arch, t.method) *
                                           recompute_ratio / peak.achieved(mfu, a)
                                     : 0.0;
    if (e.explain && t.grouped_gemm_rows > 0)
        c.notes.push_back(arch.has_moe ? "routed experts' grouped GEMMs (train.grouped_gemm): " + format_sig(t.grouped_gemm_rows, 6) + " rows a call in " +
                                             std::to_string(local_experts) + " expert groups, forward tiles " + std::to_string(t.grouped_gemm_wi[0][0]) + " x " +
                                             std::to_string(t.grouped_gemm_wi[0][1]) + " x " + std::to_string(t.grouped_gemm_wi[0][2]) +
                                             " (up) and " + std::to_string(t.grouped_gemm_wo[0][0]) + " x " + std::to_string(t.grouped_gemm_wo[0][1]) + " x " +
                                             std::to_string(t.grouped_gemm_wo[0][2]) + " (down): the kernel executes " + format_sig(tile_factor, 4) +
                                             " x their useful FLOPs over the forward and both gradients (a row tile again for each group starting "
                                             "inside one, contraction and output in whole tiles), " + format_sig(expert_tile_s, 3) + " s a step at the GEMMs' basis"
                                       : "train.grouped_gemm is given but the model has no routed experts: nothing priced");
    // A TPU's attention kernels hold each head's vectors in 128-lane rows (performance.h attention_lane_padding_factor, read from
    // tokamax's splash kernel): a head_dim under a multiple of 128 (gpt-oss's 64) runs every score and context matmul padded
    // with zeros (latent layers: the scores at their padded qk width, the weighted sum at their padded v width, DeepSeek-V3's
    // 192 -> 256 and 128), MXU work beyond the attention FLOPs the step counts, priced where those are priced: at the attention
    // kernels' own share of peak where measured, else at the GEMMs' basis (recomputation scaling it as it scales the GEMMs).
    const double lane_factor = d.kind == DeviceKind::tpu ? attention_lane_padding_factor(arch, t.seq_len, 128) : 1.0;
    const double attention_pad_s =
        lane_factor > 1 && peak.flop_per_s > 0
            ? (lane_factor - 1) * (attention_apart ? attention_s
                                                   : tokens_per_step / n * training_flops_per_token(arch, 0, t.seq_len, t.method, Checkpointing::none, attention_ratio) *
                                                         recompute_ratio / peak.achieved(mfu, a))
            : 0.0;
    if (e.explain && attention_pad_s > 0) {
        const bool latent_widths = arch.has_mla && arch.mla.v_head_dim > 0 &&
                                   std::any_of(arch.attention_layers.begin(), arch.attention_layers.end(),
                                               [](const auto& r) { return r.kind == AttentionKind::latent; });
        const int qk = arch.mla.qk_nope_head_dim + arch.mla.qk_rope_head_dim;
        const std::string widths =
            latent_widths ? "latent attention trained unabsorbed, scores over " + std::to_string(qk) + " dims and the weighted sum over " +
                                std::to_string(arch.mla.v_head_dim) + ": the TPU attention kernel holds each head in 128-lane rows, so the scores run padded to " +
                                format_sig(std::ceil(qk / 128.0) * 128, 4) + " and the weighted sum to " + format_sig(std::ceil(arch.mla.v_head_dim / 128.0) * 128, 4)
                          : "head_dim " + std::to_string(arch.head_dim) +
                                ": the TPU attention kernel holds each head in 128-lane rows, so every score and context matmul runs padded to " +
                                format_sig(std::ceil(arch.head_dim / 128.0) * 128, 4);
        c.notes.push_back("attention on " + d.id + " with " + widths + " (tokamax splash attention: \"padded to that multiple with zeros\"): " +
                          format_sig(lane_factor, 4) + " x the attention FLOPs counted, " + format_sig(attention_pad_s, 3) + " s a step more");
    }
    // An FP8 step prices its attention at the FP8 peak inside the MFU unless the attention kernels are priced apart (at the
    // 16-bit peak). A runtime whose FP8 recipe leaves the attention kernel at 16 bits (runtimes.json fp8_attention_at_16_bits:
    // MaxText's fp8_full through qwix, which does not intercept inside pallas_call, so splash runs on BF16 q, k, v) runs those
    // FLOPs, padding included, at the 16-bit peak: the difference is added, on the basis the GEMMs are priced at.
    const double fp8_attention_16bit_s =
        rt.fp8_attention_at_16_bits && peak.precision == "fp8" && !attention_apart && attention_peak.flop_per_s > 0 && peak.flop_per_s > 0
            ? lane_factor * tokens_per_step / n *
                  training_flops_per_token(arch, 0, t.seq_len, t.method, Checkpointing::none, attention_ratio) * recompute_ratio *
                  (1.0 / attention_peak.achieved(mfu, a) - 1.0 / peak.achieved(mfu, a))
            : 0.0;
    if (e.explain && fp8_attention_16bit_s > 0)
        c.notes.push_back("attention at 16 bits under FP8 (" + rt.id + ", runtimes.json fp8_attention_at_16_bits: the FP8 recipe quantizes the "
                          "projections' and experts' matmuls, not the attention kernel's): its FLOPs at the " + attention_peak.precision +
                          " peak, " + format_sig(fp8_attention_16bit_s, 3) + " s a step more");
    // Likewise a runtime that leaves its output head's matmul at 16 bits under FP8 (runtimes.json fp8_output_head_at_16_bits:
    // MaxText's logits_dense, "We do not quantize the logits matmul"): its forward and both gradients, (6 or 4) x hidden x vocab
    // a token, at the 16-bit peak instead of the FP8 one. The head sits outside the decoder layers' remat, so nothing recomputes it.
    const double head_flops_per_token = (t.method == TrainMethod::full ? 6.0 : 4.0) * double(arch.hidden) * double(arch.vocab);
    const double fp8_head_16bit_s = rt.fp8_output_head_at_16_bits && peak.precision == "fp8" && attention_peak.flop_per_s > 0 &&
                                            peak.flop_per_s > 0 && head_flops_per_token > 0
                                        ? tokens_per_step / n * head_flops_per_token * (1.0 / attention_peak.achieved(mfu, a) - 1.0 / peak.achieved(mfu, a))
                                        : 0.0;
    if (e.explain && fp8_head_16bit_s > 0)
        c.notes.push_back("output head at 16 bits under FP8 (" + rt.id + ", runtimes.json fp8_output_head_at_16_bits: the recipe does not quantize "
                          "the logits matmul): its FLOPs at the " + attention_peak.precision + " peak, " + format_sig(fp8_head_16bit_s, 3) + " s a step more");
    const double compute_s = step.roofline.time_s + fp8_cast_s + elementwise_s + eager_scores_s + dequant_s + overhead_s + expert_tile_s + attention_pad_s +
                             fp8_attention_16bit_s + fp8_head_16bit_s;
    // Layer-wise activation offload (train.offload_activation_layers): each micro-batch copies the offloaded blocks' saved
    // activations to host memory and back over the device's host link (catalog host_link, half its quoted bandwidth each way),
    // on Transformer Engine's offload stream beside the compute; only what the compute waits for is added to the step
    // (parallel.h activation_offload_stall: the layout model prices the same copies the same way). Without a recorded host link
    // the copies are not priced.
    const int offloaded_blocks = arch.layers > 0 ? std::clamp(t.offload_activation_layers, 0, arch.layers - 1) : 0;
    const double offload_block_bytes = offloaded_blocks > 0 ? training_activation_bytes_per_layer(arch, as) : 0.0;
    const double offload_step_bytes = micro_batches * offloaded_blocks * offload_block_bytes; // each way, one step
    const double host_bytes_per_s = 0.5 * d.host_link_bytes_per_s;
    auto offload_exposed_s = [&] {
        if (offloaded_blocks <= 0 || host_bytes_per_s <= 0) return 0.0;
        const double block_s = compute_s / (micro_batches * arch.layers); // one micro-batch's forward and backward of a block
        const OffloadStall st = activation_offload_stall(arch.layers, offloaded_blocks, block_s / 3.0, 2.0 * block_s / 3.0,
                                                         offload_block_bytes / host_bytes_per_s);
        return micro_batches * (st.forward_s + st.backward_s);
    };
    double host_copy_s = 0;
    if (e.explain && offloaded_blocks > 0)
        c.notes.push_back("layer-wise activation offload (train.offload_activation_layers " + std::to_string(offloaded_blocks) + " of " +
                          std::to_string(arch.layers) + " blocks, Megatron-Core's cpu_offloading_num_layers): their saved activations are copied to host "
                          "memory in the forward pass and back for the backward on a side stream, beside the other blocks' compute; " +
                          (host_bytes_per_s > 0 ? "priced over the host link (" + d.host_link_kind + ", " + format_sig(host_bytes_per_s / 1e9, 3) +
                                                      " GB/s each way, catalog host_link): only what the compute does not hide is added to the step"
                                                : "no host link bandwidth is recorded for " + d.id + " (catalog host_link), so the copies are not priced: "
                                                  "the step counts none of their time"));
    // The layout search's job and devices on this profile's basis: compute time per token on one device (what the
    // step above spends outside communication, over the tokens one device computes).
    TrainingJob job;
    Cluster cluster;
    const bool shaped = peak.flop_per_s > 0 && arch.layers > 0 && arch.hidden > 0 && arch.heads > 0;
    if (shaped) {
        job = training_job(w, trainable, st_per, frozen_per, as);
        // MFU is read against the datasheet peak (on a power-capped board, the boost-clock one: Peak::achieved prices the cap).
        cluster = cluster_of(d, n, peak.unthrottled_flop_per_s, m.capacity_bytes, a);
        job.compute_s_per_token = compute_s * n / tokens_per_step;
        job.compute_basis_recompute = recompute;
        // A trainer that reduces after the schedule (runtimes.json data_parallel_reduce_after_schedule: DeepSpeed's pipeline
        // engine) all-reduces its FP32 gradient buffer where it keeps one (BF16_Optimizer), else the gradients, and then
        // all-gathers the 16-bit weights; the layout model leaves both exposed (parallel.cpp).
        if (rt.data_parallel_reduce_after_schedule) {
            job.after_schedule_allreduce_bytes = fp32_grad_per > 0 ? fp32_grad_per : st_per.gradients;
            job.after_schedule_allgather_bytes = st_per.weights;
        }
    }
    // Pretraining's MFU is a kernel-level basis (assumptions.json training_mfu: the anchor run with its modelled
    // bubble and exposed communication taken out), so over several devices the step adds what the layout model
    // leaves exposed of this data-parallel layout's traffic (parallel.cpp: the gradient all-reduce or, under ZeRO-3,
    // the per-block weight gathers and the reduce-scatter on the scale-up and scale-out links, less what the
    // compute hides). Fine-tunes keep their end-to-end MFU (finetune_mfu, single-node runs): the gradient all-reduce
    // over the scale-up link (parallel.h) is a floor for slow links (PCIe), overlapping the backward pass; not
    // counted when the device publishes no link.
    const bool layout_priced = shaped && w.stage == Stage::pretrain && n > 1;
    double zero3_traffic_s = 0; // a fine-tune's ZeRO-3 gathers and reduce-scatter, all of it (its exposed part is step.communication_s)
    if (layout_priced) {
        const LayoutResult lr = evaluate_layout(job, cluster, layout_assumptions(a, rt), {.data_parallel = n, .zero_stage = zero, .micro_batch = std::max(1, c.layout.micro_batch),
                                                                  .micro_batches = std::max(1, c.layout.micro_batches), .recompute = recompute});
        step.communication_s = std::isfinite(lr.communication_s) ? lr.communication_s : 0.0; // the host copies' exposed part included
        host_copy_s = lr.host_copy_s;
        step.time_s = compute_s + step.communication_s;
    } else if (zero >= 3 && n > 1 && d.interconnect_bytes_per_s > 0 && arch.layers > 0) {
        // ZeRO-3 / FSDP over a fine-tune's devices: each step all-gathers the 16-bit weights before the forward and
        // again before the backward, and reduce-scatters the gradients inside the backward, 1.5x the traffic of
        // data parallel's all-reduce (Rajbhandari et al. 2020, ZeRO, section 7.2.2: "a maximum of 1.5x communication
        // volume compared to baseline DP"; PyTorch FSDP2 tutorial: "a decomposition of DDP's all-reduce into
        // reduce-scatter and all-gather"). Each overlaps only the phase it serves: the forward's gathers the forward
        // compute ("The 1st all-gather will not be able to overlap with anything": PyTorch FSDP notes, "FSDP Prefetch
        // Nuances"), the backward's gathers and reduce-scatters, issued on one communication stream, the backward
        // compute (with full recomputation, the recomputed forward too). What a phase's traffic outlasts its compute
        // by is exposed, and adds to the step: over NVLink almost nothing, over PCIe the forward's gather.
        const Network net = network_of(d, a);
        const double gathered_bytes = full ? w.model.params * (fp32 ? 4.0 : 2.0) : frozen_base.total + trainable * st_per.weights;
        const double gather_s = allgather_time_s(gathered_bytes, {n, n}, net);
        const double reduce_s = allgather_time_s(trainable * (fp32 ? 4.0 : 2.0), {n, n}, net); // reduce-scatter: the same volume
        // The forward's share of the step's FLOPs: 2N of 6N, of 8N with full recomputation (Chen et al. 2016: one more forward).
        const double forward_share = recompute == Checkpointing::full ? 2.0 / 8.0 : 2.0 / 6.0;
        const double exposed_s = gather_s / arch.layers + std::max(0.0, gather_s - forward_share * compute_s) +
                                 std::max(0.0, gather_s + reduce_s - (1 - forward_share) * compute_s);
        zero3_traffic_s = 2 * gather_s + reduce_s;
        host_copy_s = offload_exposed_s();
        step.communication_s = exposed_s + host_copy_s;
        step.time_s = compute_s + step.communication_s;
    } else {
        const Network net = network_of(d, a);
        step.communication_s = d.interconnect_bytes_per_s > 0 ? allreduce_time_s(trainable * 2.0, {n, n}, net) : 0.0;
        host_copy_s = offload_exposed_s(); // on the compute stream's path: the all-reduce overlaps the backward, the copies' wait does not
        step.time_s = std::max(compute_s + host_copy_s, step.communication_s); // gradient all-reduce overlaps the backward pass
    }
    // The optimizer step on the host (train.cpu_offload): the optimizer state lives in host memory and the CPU updates
    // each rank's shard after the backward (PyTorch FSDP2 CPUOffloadPolicy: the step runs on the CPU tensors; DeepSpeed
    // ZeRO-Offload: its CPU Adam), outside the device's compute, so it adds to the step. An Adam step is memory-bound
    // streaming: it reads the weight, the gradient and both moments and writes the weight and the moments back
    // (host_step_bytes_per_param). Under a master-weight trainer the master copy is in the optimizer bytes (read and
    // written) and the 16-bit weight is only written. The ranks of one host share its DRAM bandwidth (catalog device
    // "host": the system the device normally sits in; what STREAM sustains on it where measured, else the peak).
    // Without a recorded host the step is not priced and the plan says so.
    const double host_dram_bytes_per_s = d.host_memory_sustained_bytes_per_s > 0 ? d.host_memory_sustained_bytes_per_s : d.host_memory_bytes_per_s;
    const double host_step_per_param = t.cpu_offload ? host_step_bytes_per_param(st_per.weights, grad_per, st_per.optimizer, full && rt.full_master_weights && !fp32) : 0.0;
    const int ranks_per_host = d.host_devices > 0 ? std::min(n, d.host_devices) : n;
    const double host_step_bytes = t.cpu_offload ? (zero >= 1 ? trainable / n : trainable) * host_step_per_param * ranks_per_host : 0.0; // on one host
    const double host_step_s = host_dram_bytes_per_s > 0 ? host_step_bytes / host_dram_bytes_per_s : 0.0;
    step.time_s += host_step_s;
    if (e.explain && t.cpu_offload)
        c.notes.push_back(host_dram_bytes_per_s > 0
                              ? "the optimizer steps in host memory (train.cpu_offload): " + format_sig(host_step_per_param, 3) + " bytes read and written per trainable parameter, " +
                                    gb(host_step_bytes) + " on each host (" + std::to_string(ranks_per_host) + " ranks), at " + format_sig(host_dram_bytes_per_s / 1e9, 4) +
                                    " GB/s (" + d.host_system + ", " + d.host_cpu + ", " + (d.host_memory_sustained_bytes_per_s > 0 ? "STREAM-sustained" : "peak") +
                                    " DRAM bandwidth, catalog host): " + format_sig(host_step_s, 3) + " s a step, after the backward"
                              : "the optimizer steps in host memory (train.cpu_offload), but no host is recorded for " + d.id +
                                    " (catalog host), so that step is not priced: the step time counts none of it");
    c.phases.push_back(step);
    auto why = [&] { return format_sig(flops_per_token / w.model.active_params, 3) + "N FLOPs per token (with attention) x " +
                            format_sig(tokens_per_step, 6) + " tokens / (" + std::to_string(n) + " x " +
                            (peak.capped_flop_per_s > 0
                                 ? format_sig(peak.achieved(mfu, a) / 1e12, 4) + " TFLOPS: MFU " + format_sig(mfu, 2) +
                                       " of the " + format_sig(peak.unthrottled_flop_per_s / 1e12, 4) + " TFLOPS peak under the board's power cap (" +
                                       format_sig(peak.capped_flop_per_s / 1e12, 4) + " TFLOPS sustained))"
                                 : format_sig(peak.flop_per_s / 1e12, 4) + " TFLOPS x MFU " + format_sig(mfu, 2) + ")") +
                            (attention_s > 0 ? " + attention " + format_sig(attention_run_flops_per_token * tokens_per_step, 4) + " FLOPs" +
                                                   (attention_run_flops_per_token > attention_flops_per_token ? " (with its recomputed forward)" : "") + " at " +
                                                   format_sig(a.training_attention_efficiency, 2) + " of the " + attention_peak.precision + " peak (" +
                                                   format_sig(attention_s, 3) + " s)"
                                             : "") +
                            (fp8_cast_s > 0 ? " + FP8 casts " + format_sig(a.training_fp8_cast_bytes_per_element, 3) + " bytes per GEMM operand element (" +
                                                  format_sig(fp8_cast_s, 3) + " s)"
                                            : "") +
                            (elementwise_s > 0 ? " + element-wise kernels " + format_sig(training_elementwise_elements_per_token(arch, recompute == Checkpointing::full), 3) +
                                                     " activation elements per token read or written (" + format_sig(elementwise_s, 3) + " s)"
                                               : "") +
                            (dequant_s > 0 ? " + dequantizing the " + format_sig(frozen_base.bits_per_weight, 4) + "-bit base " + format_sig(dequant_uses, 3) +
                                                 " times to 16 bits (" + format_sig(dequant_s, 3) + " s)"
                                           : "") +
                            (attention_ratio < 1 ? "; attention counted at " + format_sig(attention_ratio, 2) + " of T x T (causal kernel, " + rt.id + ")" : "") +
                            (w.stage == Stage::finetune && recompute_ratio != 1.0
                                 ? "; the fine-tune MFU was read on runs with full recomputation, so without it the GEMMs take " +
                                       format_sig(recompute_ratio, 3) + " of that time (one forward fewer)"
                                 : "") +
                            (host_s > 0 ? " + the host issuing " + format_sig(host_ops, 4) + " operations per micro-batch x " + format_sig(1e6 * a.eager_op_host_s, 3) +
                                              " us (" + rt.id + ", " + format_sig(host_s, 3) + " s)"
                                        : "") +
                            (overhead_s - host_s > 0 ? " + " + format_sig(overhead_s - host_s, 3) + " s per-step overhead (" + rt.id + ")" : "") +
                            (layout_priced && step.communication_s - host_copy_s > 0 ? " + exposed data-parallel communication " + format_sig(step.communication_s - host_copy_s, 3) + " s" : "") +
                            (offload_step_bytes > 0 ? std::string(" + host copies of the offloaded activations, ") + gb(offload_step_bytes) + " each way a step (" +
                                                          format_sig(micro_batches, 3) + " micro-batches x " + std::to_string(offloaded_blocks) + " blocks x " +
                                                          gb(offload_block_bytes) + "): " +
                                                          (host_bytes_per_s > 0 ? format_sig(host_copy_s, 3) + " s the compute does not hide"
                                                                                : "not priced, no host link recorded")
                                                    : std::string()) +
                            (host_step_s > 0 ? " + the optimizer step in host memory " + format_sig(host_step_s, 3) + " s (" + gb(host_step_bytes) + " at " +
                                                   format_sig(host_dram_bytes_per_s / 1e9, 4) + " GB/s)"
                                             : "") +
                            (zero3_traffic_s > 0 && step.communication_s - host_copy_s > 0
                                 ? " + ZeRO-3 traffic the compute does not hide " + format_sig(step.communication_s - host_copy_s, 3) + " s (of " + format_sig(zero3_traffic_s, 3) +
                                       " s: weights gathered for the forward and the backward, gradients reduce-scattered)"
                                 : ""); };
    if (peak.flop_per_s > 0) {
        c.figures["step_time_s"] = e.figure(step.time_s, Label::modelled, why);
        c.figures["train_tokens_per_s"] = e.figure(tokens_per_step / step.time_s, Label::modelled, why);
        if (t.tokens > 0) c.figures["train_time_s"] = e.figure(t.tokens / (tokens_per_step / step.time_s), Label::modelled, [&] { return std::string(format_sig(t.tokens, 4) + " tokens / tokens per second"); });
        e.headline = tokens_per_step / step.time_s;
    }
    // A declared slow side, not a model (runtimes.json sharded_qlora_time_unmodelled_low_ratio): plan.cpp widens the time
    // figures' slow end by it for a QLoRA run this trainer shards over several devices.
    if (e.explain && t.method == TrainMethod::qlora && zero >= 3 && n > 1 && rt.sharded_qlora_time_unmodelled_low_ratio > 0)
        c.notes.push_back("throughput not calibrated for QLoRA sharded over several devices with this trainer (" + rt.id + "): its published runs have landed up to " +
                          format_sig(100 * rt.sharded_qlora_time_unmodelled_low_ratio, 2) +
                          " % below the planned tokens/s from mechanisms the profile does not model; the time band's slow end includes that");
    // A declared slow side, not a model (catalog scale_out cross_domain_training_time_unmodelled_low_ratio): plan.cpp widens
    // the time figures' slow end by it for pretraining over more devices than one fast domain (TPU slices over DCN).
    if (e.explain && w.stage == Stage::pretrain && d.domain_size > 0 && n > d.domain_size && d.cross_domain_training_low_ratio > 0)
        c.notes.push_back("throughput not calibrated across fast domains (" + std::to_string(n) + " devices, " + std::to_string(d.domain_size) +
                          " per " + (d.kind == DeviceKind::tpu ? "slice" : "domain") + ", joined by the data-centre network): published runs have landed up to " +
                          format_sig(100 * d.cross_domain_training_low_ratio, 2) +
                          " % below one domain's rate per device, more than the exposed gradient reduction priced here; the time band's slow end includes that");
    c.figures["trainable_params"] = e.figure(trainable, Label::arithmetic, [&] { return std::string(full ? "every parameter" : "LoRA adapters on every linear layer"); });
    if (!c.fits) {
        c.regime = Regime::capacity;
        if (e.explain) c.regime_why = "needs " + gb(m.total_bytes) + " per device but " + gb(m.capacity_bytes) + " is usable";
    } else if (step.communication_s > compute_s || zero3_traffic_s > compute_s) {
        c.regime = Regime::bandwidth;
        if (e.explain)
            c.regime_why = zero3_traffic_s > 0 ? "the ZeRO-3 weight gathers and gradient reduce-scatter (" + format_sig(zero3_traffic_s, 3) + " s, " +
                                                     format_sig(step.communication_s, 3) + " s of it exposed) outlast the compute"
                                               : std::string(layout_priced ? "the exposed data-parallel communication (" : "the gradient all-reduce (") +
                                                     format_sig(step.communication_s, 3) + " s) outlasts the compute";
    } else {
        c.regime = Regime::compute;
        if (e.explain) c.regime_why = "training at MFU " + format_sig(mfu, 2) + " of the " + peak.precision + " peak";
    }
    // The layout search's basis: the same job and devices, and this profile's compute time per token on one
    // device (what the step above spends outside communication, over the tokens one device computes).
    if (basis && shaped) {
        basis->job = job;
        basis->cluster = cluster;
        basis->valid = true;
    }
}

// [SECTION] training: one search over count and layout ------------------------------------------------
// A training candidate is the best point of one search over device count and layout. Points are of two
// kinds, one evaluator each, on one compute basis: data-parallel layouts with the trainer's own sharding
// (ZeRO/FSDP stage: eval_train's runtime-profile model, the one the validation suite checks), and for
// pretraining the layout search's model-parallel layouts (parallel.h: tensor, context, pipeline and expert
// parallelism, micro-batch, recomputation), priced on the profile's compute time per token. Fine-tunes keep to
// data parallelism with sharding: what their trainers (torchtune, PEFT with accelerate/DeepSpeed) run.

namespace {

double model_flops_per_token(const Workload& w) {
    return training_flops_per_token(w.model.model.arch, w.model.active_params, w.train.seq_len, w.train.method, Checkpointing::none);
}

// The numbers of a data-parallel point, in the layout search's terms.
LayoutResult result_of(const Workload& w, const Eval& e, double peak_flop_per_s) {
    const Candidate& c = e.c;
    LayoutResult r;
    r.layout = {.tensor_parallel = 1, .pipeline_parallel = 1, .data_parallel = c.layout.data_parallel, .zero_stage = c.layout.zero_stage,
                .micro_batch = std::max(1, c.layout.micro_batch), .micro_batches = std::max(1, c.layout.micro_batches), .recompute = c.layout.recompute};
    r.weights_bytes = c.memory.weights_bytes;
    r.gradients_bytes = c.memory.gradients_bytes;
    r.optimizer_bytes = c.memory.optimizer_bytes;
    r.activations_bytes = c.memory.activations_bytes;
    r.overhead_bytes = c.memory.overhead_bytes;
    r.memory_bytes = c.memory.total_bytes;
    r.capacity_bytes = c.memory.capacity_bytes;
    r.fits = c.fits;
    auto value = [&](const char* k) { auto it = c.figures.find(k); return it == c.figures.end() ? 0.0 : it->second.value; };
    r.step_s = value("step_time_s");
    r.tokens_per_s = value("train_tokens_per_s");
    r.time_to_train_s = value("train_time_s");
    if (!c.phases.empty()) {
        const Phase& ph = c.phases.front();
        // Pretraining over several devices adds the exposed communication to the compute (eval_train); otherwise the
        // all-reduce overlaps the compute and only what outlasts it shows.
        // A fine-tune under ZeRO-3 adds the part of its traffic the compute does not hide the same way (eval_train).
        const bool added = (w.stage == Stage::pretrain || c.layout.zero_stage >= 3) && c.layout.data_parallel > 1;
        r.compute_s = std::max(0.0, added ? ph.time_s - ph.communication_s : ph.time_s - std::max(0.0, ph.communication_s - ph.roofline.time_s));
        r.communication_s = ph.communication_s;
    }
    const int n = c.layout.data_parallel;
    if (r.step_s > 0 && peak_flop_per_s > 0) r.mfu = model_flops_per_token(w) * r.tokens_per_s / (n * peak_flop_per_s);
    return r;
}

bool model_parallel(const TrainingLayout& l) {
    return l.tensor_parallel > 1 || l.pipeline_parallel > 1 || l.context_parallel > 1 || l.expert_parallel > 1;
}

// Faster first among fitting points; a misfit only when nothing fits, closest to fitting first.
bool better(const TrainPoint& x, const TrainPoint& y) {
    if (x.result.fits != y.result.fits) return x.result.fits;
    if (x.result.fits) return x.result.tokens_per_s > y.result.tokens_per_s;
    return x.result.memory_bytes / x.result.capacity_bytes < y.result.memory_bytes / y.result.capacity_bytes;
}

// Every point on n devices, best first (at most `keep`). `searched` counts the layouts looked at.
std::vector<TrainPoint> train_points(const Workload& w, const Catalog& cat, const Device& d, int n, const Assumptions& a, size_t keep,
                                     long& searched) {
    std::vector<TrainPoint> out;
    TrainBasis basis;
    const auto& tr = w.train;
    const TrainingRuntime& rt = training_runtime(w, cat, &d);
    std::vector<int> zeros;
    if (is_given(w, "train.zero_stage") || n == 1) zeros = {default_zero(w, n, rt)};
    else
        for (int z = 0; z <= rt.max_zero_stage; ++z) zeros.push_back(z);
    // A data-parallel point gives every rank whole sequences: pretraining with a global batch below the count has
    // none (the layout search splits those counts by tensor, context and pipeline parallelism instead).
    const bool whole_sequences = !(w.stage == Stage::pretrain && tr.global_batch > 0 && tr.global_batch < n);
    const bool profile_allowed = whole_sequences && tr.tensor_parallel <= 1 && tr.pipeline_parallel <= 1 && tr.context_parallel <= 1 &&
                                 tr.expert_parallel <= 1;
    // Recomputation is searched when the workload leaves it open: off and full, and selective where attention is not
    // fused (with a fused kernel selective recomputation stores what no recomputation stores: memory.h); the objective
    // picks (better: the faster point that fits, so recomputation only where memory asks for it). The layout search's
    // basis is the workload's own setting, which it rescales per layout.
    std::vector<Checkpointing> recomputes{tr.checkpointing};
    Checkpointing fixed = tr.checkpointing;
    if (tr.offload_activation_layers > 0) {
        // Megatron-Core's layer-wise activation offload runs without recomputation (workload.cpp refuses any other setting).
        recomputes = {Checkpointing::none};
    } else if (runtime_recompute(w, rt, fixed)) {
        recomputes = {fixed};
    } else if (!is_given(w, "train.checkpointing")) {
        const bool fused = tr.attention.empty() ? !rt.eager_attention : tr.attention != "eager";
        recomputes = {Checkpointing::none, Checkpointing::full};
        if (!fused) recomputes.push_back(Checkpointing::selective);
    }
    for (int z : zeros)
        for (Checkpointing rc : recomputes) {
            Eval e;
            e.explain = false;
            const bool base = z == default_zero(w, n, rt) && rc == recomputes.front();
            eval_train(w, cat, d, n, a, e, z, base ? &basis : nullptr, int(rc));
            if (profile_allowed) out.push_back({n, true, result_of(w, e, peak_for(d, w.precision.compute).unthrottled_flop_per_s)});
            ++searched;
        }
    const bool pinned_data_parallel = tr.tensor_parallel == 1 && tr.pipeline_parallel == 1 && tr.context_parallel == 1 && tr.expert_parallel <= 1;
    if (w.stage == Stage::pretrain && n > 1 && basis.valid && !pinned_data_parallel) {
        LayoutLimits lim;
        lim.keep = 12;
        lim.find_fewest = false;
        lim.tensor_parallel = tr.tensor_parallel;
        lim.pipeline_parallel = tr.pipeline_parallel;
        lim.context_parallel = tr.context_parallel;
        lim.expert_parallel = tr.expert_parallel;
        lim.virtual_stages = tr.virtual_stages;
        lim.micro_batch = tr.layout_micro_batch;
        if (is_given(w, "train.zero_stage")) lim.zero_stage = w.train.zero_stage;
        if (is_given(w, "train.checkpointing")) lim.recompute = int(w.train.checkpointing);
        else if (tr.offload_activation_layers > 0) lim.recompute = int(Checkpointing::none); // and one stage: search_layouts
        else if (runtime_recompute(w, rt, fixed)) lim.recompute = int(fixed);
        lim.max_zero_stage = rt.max_zero_stage;
        const LayoutSearch s = search_layouts(basis.job, basis.cluster, layout_assumptions(a, rt), lim);
        searched += s.searched;
        // Only layouts of this job on these devices (a search that finds none may answer for another batch or count).
        const double batch = basis.job.global_batch > 0 ? basis.job.global_batch : basis.job.micro_batch * n;
        if (s.devices == n && s.global_batch == batch)
            for (const LayoutResult& r : s.layouts)
                if (model_parallel(r.layout) && r.fits) out.push_back({n, false, r});
        // No data-parallel point stands beside them (a pinned model-parallel layout, or fewer sequences than devices)
        // and none fits: the layout closest to fitting is the candidate, so its memory, not a data-parallel point's
        // the workload ruled out, is what the misfit shows.
        if (out.empty() && !profile_allowed && s.devices == n && s.global_batch == batch)
            for (const LayoutResult& r : s.layouts)
                if (model_parallel(r.layout)) out.push_back({n, false, r});
    }
    std::stable_sort(out.begin(), out.end(), better);
    if (out.size() > keep) out.resize(keep);
    return out;
}

// The device counts tried: powers of two up to the fast domain, the whole domain, then whole domains doubling
// while a scale-out network joins them.
std::vector<int> count_ladder(const Device& d, const Assumptions& a) {
    const Network net = network_of(d, a);
    const int domain = std::min(std::max(1, net.domain_size), most_devices(d, a));
    std::vector<int> out;
    for (int n = 1; n <= domain; n *= 2) out.push_back(n);
    if (out.back() != domain) out.push_back(domain);
    if (net.multi_node)
        for (long n = 2L * domain; n <= (1L << 17); n *= 2) out.push_back(int(n));
    return out;
}

} // namespace

// The count and layout of a training candidate. Given a count, the best layout on it. Otherwise, with a
// deadline and a token count, the fewest devices (the cheapest: device-hours grow with the count as
// efficiency falls) whose best layout finishes in time; without a deadline, the fewest that fit.
TrainChoice choose_training(const Workload& w, const Catalog& cat, const Device& d, const Assumptions& a, bool explain) {
    TrainChoice out;
    const size_t keep = 4;
    auto at = [&](int n) { return train_points(w, cat, d, n, a, keep, out.searched); };
    // What a misfit says: how many layouts were looked at and how far the closest is from fitting.
    auto misfit = [&](int n) {
        const LayoutResult& r = out.points.front().result;
        return "none of " + std::to_string(out.searched) + " layouts fits on " + std::to_string(n) + " devices (the closest needs " +
               format_sig(r.memory_bytes / 1e9, 3) + " GB of " + format_sig(r.capacity_bytes / 1e9, 3) + " GB per device)";
    };
    if (w.hardware.count > 0) {
        out.points = at(w.hardware.count);
        if (explain)
            out.why = !out.points.empty() && !out.points.front().result.fits ? misfit(w.hardware.count)
                                                                             : std::to_string(w.hardware.count) + " devices, as given";
        return out;
    }
    const double deadline_s = w.decision.deadline_days * 86400;
    auto meets = [&](const std::vector<TrainPoint>& p) { return !p.empty() && p.front().result.fits && p.front().result.time_to_train_s > 0 &&
                                                                p.front().result.time_to_train_s <= deadline_s; };
    // Devices the team owns come first: all of them, when the job fits them (and meets its deadline).
    for (const auto& od : w.hardware.owned)
        if (od.device == d.id) {
            std::vector<TrainPoint> mine = at(od.count);
            if (!mine.empty() && mine.front().result.fits && (deadline_s <= 0 || w.train.tokens <= 0 || meets(mine))) {
                out.points = std::move(mine);
                if (explain) out.why = std::to_string(od.count) + " devices, the ones the team owns (hardware.owned)";
                return out;
            }
        }
    const std::vector<int> ladder = count_ladder(d, a);
    // Model state spread over n devices is a floor on any layout's memory there: below it, no search.
    Eval whole;
    whole.explain = false;
    eval_train(w, cat, d, 1, a, whole, 0);
    const double state = whole.c.memory.weights_bytes + whole.c.memory.gradients_bytes + whole.c.memory.optimizer_bytes;
    size_t i = 0;
    std::vector<TrainPoint> nearest;
    for (; i < ladder.size(); ++i) {
        if (state / ladder[i] > whole.c.memory.capacity_bytes && i + 1 < ladder.size()) continue;
        out.points = at(ladder[i]);
        if (!out.points.empty() && out.points.front().result.fits) break;
        if (nearest.empty() && !out.points.empty()) nearest = out.points;
    }
    if (i == ladder.size()) { // nothing fits on the largest count: report the smallest count's nearest point
        if (!nearest.empty()) out.points = nearest;
        if (explain) out.why = "nothing fits on up to " + std::to_string(ladder.back()) + " devices" +
                               (out.points.empty() ? std::string() : "; " + misfit(out.points.front().n));
        return out;
    }
    if (deadline_s <= 0 || w.train.tokens <= 0 || out.points.front().result.time_to_train_s <= 0) {
        if (explain) out.why = std::to_string(ladder[i]) + " devices, the fewest that fit" +
                               (w.train.tokens > 0 ? std::string(" (no deadline given)") : std::string(""));
        return out;
    }
    if (meets(out.points)) {
        if (explain) out.why = std::to_string(ladder[i]) + " devices, the fewest that fit, finish within the " + format_sig(w.decision.deadline_days, 4) + "-day deadline";
        return out;
    }
    // Jump to the count that would meet the deadline at the same speed per device, then walk: up while it does
    // not, down while the one below also does.
    const double need = ladder[i] * out.points.front().result.time_to_train_s / deadline_s;
    size_t j = i;
    while (j + 1 < ladder.size() && ladder[j] < need) ++j;
    std::vector<TrainPoint> best = out.points;
    size_t best_at = i;
    auto faster = [](const std::vector<TrainPoint>& x, const std::vector<TrainPoint>& y) {
        return !x.empty() && x.front().result.fits && (y.empty() || !y.front().result.fits || x.front().result.tokens_per_s > y.front().result.tokens_per_s); };
    std::vector<TrainPoint> cur = at(ladder[j]);
    if (faster(cur, best)) { best = cur; best_at = j; }
    while (!meets(cur) && j + 1 < ladder.size()) {
        cur = at(ladder[++j]);
        if (faster(cur, best)) { best = cur; best_at = j; }
    }
    if (meets(cur)) {
        while (j > i + 1) {
            std::vector<TrainPoint> below = at(ladder[j - 1]);
            if (!meets(below)) break;
            cur = std::move(below);
            --j;
        }
        out.points = cur;
        if (explain) out.why = std::to_string(ladder[j]) + " devices, the fewest that finish within the " + format_sig(w.decision.deadline_days, 4) + "-day deadline";
        return out;
    }
    out.points = best;
    if (explain) out.why = "no count up to " + std::to_string(ladder.back()) + " finishes within the " + format_sig(w.decision.deadline_days, 4) +
                           "-day deadline; the fastest, " + std::to_string(ladder[best_at]) + " devices, takes " +
                           format_sig(best.front().result.time_to_train_s / 86400, 3) + " days";
    return out;
}

// The candidate at one point: the profile's own evaluation for a data-parallel point; for a layout-search
// point, the profile on the same devices (its notes, trainable parameters, basis) with the point's memory,
// step and figures in place of its own.
void eval_train_point(const Workload& w, const Catalog& cat, const Device& d, const TrainPoint& pt, const Assumptions& a, Eval& e) {
    // Recomputation the workload left open was the search's choice: say so, and what it chose.
    auto say_recompute = [&] {
        if (!e.explain || is_given(w, "train.checkpointing")) return;
        if (w.train.offload_activation_layers > 0) {
            e.c.notes.push_back("activation recomputation: none, as Megatron-Core runs layer-wise activation offload (train.offload_activation_layers " +
                                std::to_string(w.train.offload_activation_layers) + "): it refuses recomputation and pipeline parallelism with it");
            return;
        }
        const Checkpointing rc = e.c.layout.recompute;
        const TrainingRuntime& rt = training_runtime(w, cat, &d);
        Checkpointing fixed = rc;
        if (runtime_recompute(w, rt, fixed)) {
            e.c.notes.push_back(std::string("activation recomputation: ") + std::string(name(fixed)) + ", as the trainer always runs it (" + rt.id + ")");
            return;
        }
        e.c.notes.push_back(std::string("activation recomputation: ") + std::string(name(rc)) +
                            ", chosen by the search (train.checkpointing not given, so recomputation off and on were tried" +
                            (rc == Checkpointing::none ? ": the job fits without it, and runs fastest so)"
                                                       : ": without it the activations do not fit, or only on a slower point)"));
    };
    if (pt.profile) {
        eval_train(w, cat, d, pt.n, a, e, pt.result.layout.zero_stage, nullptr, int(pt.result.layout.recompute));
        say_recompute();
        return;
    }
    TrainBasis basis;
    eval_train(w, cat, d, pt.n, a, e, -1, &basis);
    const LayoutResult r = basis.valid ? evaluate_layout(basis.job, basis.cluster, layout_assumptions(a, training_runtime(w, cat, &d)), pt.result.layout)
                                       : pt.result;
    const TrainingLayout& l = r.layout;
    Candidate& c = e.c;
    c.layout = {.tensor_parallel = l.tensor_parallel, .pipeline_parallel = l.pipeline_parallel, .data_parallel = l.data_parallel,
                .zero_stage = l.zero_stage, .expert_parallel = l.expert_parallel, .context_parallel = l.context_parallel,
                .virtual_stages = l.virtual_stages, .micro_batch = l.micro_batch, .micro_batches = l.micro_batches, .recompute = l.recompute};
    MemoryUse& m = c.memory;
    const double context = m.context_bytes, unmodelled = m.unmodelled_high_ratio, fragmentation_ratio = m.fragmentation_ratio;
    m = MemoryUse{};
    m.capacity_bytes = r.capacity_bytes;
    m.context_bytes = context;
    // The trainer's declared uncalibrated share (its note, pushed by eval_train above, says the band includes it) and the
    // fragmentation ratio the layout model took (layout_assumptions: the same as eval_train's) carry over to the layout's memory.
    m.unmodelled_high_ratio = unmodelled;
    m.fragmentation_ratio = fragmentation_ratio;
    m.weights_bytes = r.weights_bytes;
    m.gradients_bytes = r.gradients_bytes;
    m.optimizer_bytes = r.optimizer_bytes;
    m.activations_bytes = r.activations_bytes;
    m.overhead_bytes = r.overhead_bytes;
    const std::string where = describe(l);
    e.term(m, "weights", r.weights_bytes, [&] { return "the fullest pipeline stage's share, " + where; });
    e.term(m, "gradients", r.gradients_bytes, [&] { return std::string("its trainable share") + (l.zero_stage >= 2 ? ", sharded (ZeRO-" + std::to_string(l.zero_stage) + ")" : ""); });
    e.term(m, "optimizer", r.optimizer_bytes, [&] { return std::string("its trainable share") + (l.zero_stage >= 1 ? ", sharded (ZeRO-" + std::to_string(l.zero_stage) + ")" : ""); });
    e.term(m, "activations", r.activations_bytes, [&] {
        return std::string("micro-batches in flight on the first stage (1F1B), sequence parallel under tensor parallelism") +
               (w.train.offload_activation_layers > 0 ? "; the saved activations of " + std::to_string(w.train.offload_activation_layers) +
                                                            " blocks in host memory (train.offload_activation_layers)"
                                                      : std::string());
    });
    e.term(m, "overhead", r.overhead_bytes, [&] { return "runtime context + allocator fragmentation of the per-step tensors"; });
    finish_memory(m);
    c.fits = r.fits;
    const double tokens_per_step = l.micro_batch * double(l.micro_batches) * l.data_parallel * w.train.seq_len;
    Phase step;
    if (e.explain) step.name = "training step (" + format_sig(tokens_per_step, 6) + " tokens, " + where + ")";
    step.precision = c.phases.empty() ? std::string() : c.phases.front().precision;
    step.roofline.flops = tokens_per_step * model_flops_per_token(w) / pt.n;
    step.roofline.compute_s = step.roofline.time_s = r.compute_s + r.bubble_s;
    step.roofline.compute_bound = true;
    step.communication_s = r.communication_s;
    step.time_s = r.step_s;
    c.phases = {step};
    auto why = [&] { return "compute " + format_sig(r.compute_s, 3) + " s + pipeline bubble " + format_sig(r.bubble_s, 3) + " s + exposed communication " +
                            format_sig(r.communication_s, 3) + " s a step" +
                            (r.host_copy_s > 0 ? " (of it " + format_sig(r.host_copy_s, 3) + " s waiting on the offloaded activations' host copies)" : "") +
                            " (" + where + "); compute on the profile's basis (" +
                            format_sig(basis.job.compute_s_per_token * 1e6, 4) + " us per token on one device), MFU " + format_sig(100 * r.mfu, 3) + " %"; };
    c.figures["step_time_s"] = e.figure(r.step_s, Label::modelled, why);
    c.figures["train_tokens_per_s"] = e.figure(r.tokens_per_s, Label::modelled, why);
    c.figures.erase("train_time_s");
    if (w.train.tokens > 0 && r.tokens_per_s > 0)
        c.figures["train_time_s"] = e.figure(w.train.tokens / r.tokens_per_s, Label::modelled, [&] { return std::string(format_sig(w.train.tokens, 4) + " tokens / tokens per second"); });
    e.headline = r.tokens_per_s;
    if (!c.fits) {
        c.regime = Regime::capacity;
        if (e.explain) c.regime_why = "needs " + gb(m.total_bytes) + " per device but " + gb(m.capacity_bytes) + " is usable";
    } else if (r.communication_s + r.bubble_s > r.compute_s) {
        c.regime = Regime::bandwidth;
        if (e.explain) c.regime_why = "communication and the pipeline bubble (" + format_sig(r.communication_s + r.bubble_s, 3) + " s) outlast the compute (" +
                                      format_sig(r.compute_s, 3) + " s)";
    } else {
        c.regime = Regime::compute;
        if (e.explain) c.regime_why = "MFU " + format_sig(100 * r.mfu, 3) + " % with " + format_sig(r.communication_s + r.bubble_s, 3) +
                                      " s of communication and bubble a step";
    }
    say_recompute();
}

} // namespace hwplan::plan_detail
