// hwplan/runtime.h: training runtime profiles (catalog/runtimes.json). A profile says what a trainer
// stores per trainable parameter and per logit, and which memory savers it applies (chunked loss, paged
// optimizer state, fused attention), each from the runtime's own code or documentation. The plan names
// the profile it used; a workload picks one with train.runtime, or gets the default for its method.
// Usage: const TrainingRuntime* r = catalog.find_runtime("torchtune");
#pragma once
#include <string>
#include <vector>

namespace hwplan {

struct TrainingRuntime {
    std::string id;                              // "hf-peft", "qlora-reference", "torchtune"
    std::string stack;                           // the one software stack it runs on (decision.stack's values), "" = several
    std::string name;                            // "Hugging Face Trainer + PEFT"
    std::string meaning;                         // what it stores, in one sentence
    double adapter_bytes_per_param = 4;          // LoRA adapter weights (PEFT upcasts to FP32: 4; bf16: 2)
    double adapter_gradient_bytes_per_param = 4; // their gradients (same dtype as the adapters)
    double optimizer_state_bytes_per_value = 4;  // bytes of each optimizer moment of an adapter (FP32 4, bf16 2)
    double logits_kept_bytes_per_value = 0;      // bytes per logit held whole through the loss (bf16 chunks kept for backward)
    double loss_fp32_bytes_per_value = 8;        // FP32 bytes per logit live while the loss and its gradient are taken
    double loss_chunks = 1;                      // the FP32 part is live one chunk at a time
    bool paged_optimizer = false;                // optimizer state in paged memory: evicted to host when the device is full
    std::vector<std::string> paged_optimizer_methods; // the methods whose recipes page it ("full", "lora", "qlora"); empty: every
                                                 // method (torchtune: only its full fine-tune config sets PagedAdamW8bit)
    bool full_master_weights = true;             // full training keeps FP32 master weights (mixed precision, 16 bytes/param with AdamW)
    bool optimizer_in_backward = false;          // each gradient is applied and freed in backward: one tensor's gradient at a time
    bool eager_attention = false;                // attention stores its score matrices (no fused/SDPA kernel)
    bool offload_checkpoints = false;            // full recomputation's saved block inputs live in host memory (Unsloth)
    // The step's tensors come from PyTorch's caching allocator, which fragments what is allocated and freed every step
    // (assumptions.json allocator_fragmentation_ratio). false: a compiled runtime whose step memory XLA lays out when it
    // compiles the step (buffer assignment: arguments, outputs and temporaries; MaxText reports it from
    // compiled.memory_analysis()), so no caching-allocator fragmentation is added.
    bool caching_allocator = true;
    double gated_mlp_saved_tensors = 4;          // MLP-wide tensors a gated MLP keeps for backward (ActivationSettings)
    double fp8_linear_input_bytes_per_value = 0; // under FP8 compute, bytes per element of the linear layers' saved inputs (QKV, MLP,
                                                 // down projection): Transformer Engine keeps the FP8 copy, 1; 0 = the activations' 16 bits
    // Under FP8 compute, the attention kernel's score and weighted-sum matmuls still run at 16 bits: MaxText's fp8_full quantizes
    // through qwix, which quantizes dot_general, gmm and ragged_dot in the decoder layers but turns its interception off inside
    // pallas_call, so the splash attention kernel runs on the BF16 q, k, v the quantized projections return.
    bool fp8_attention_at_16_bits = false;
    // Under FP8 compute, the output head's matmul still runs at 16 bits: MaxText's decoders.py apply_output_head, '# We do not
    // quantize the logits matmul.' (logits_dense sits outside fp8_full's module_path "decoder/.*layers.*").
    bool fp8_output_head_at_16_bits = false;
    // What an adapter run keeps beyond the linear layers' inputs (memory.h ActivationSettings, lora_dropout_bytes_per_token).
    std::string lora_targets = "all";            // "all" linear layers, or "query-value" (the recipe's default adapted layers)
    double lora_dropout = 0;                     // the recipe's dropout on the adapters' input (0: none, nothing extra kept)
    bool lora_dropout_per_module = true;         // each adapted module drops its own copy (PEFT); false: one per fused input (LitGPT)
    bool quantized_base_keeps_inputs = true;     // the 4-bit base's matmul keeps its input (bitsandbytes MatMul4Bit; torchao's LinearNF4 does not)
    bool quantizes_head = false;                 // the 4-bit base includes the output head (LitGPT's bitsandbytes plugin replaces every nn.Linear)
    double dequantized_copy_bytes_per_param = 2; // a 4-bit base's matmul dequantizes the weight while it runs: bytes per parameter of the
                                                 // largest quantized matrix (2: one 16-bit copy; 4: a half copy cast to bf16, LitGPT)
    double quantize_transient_bytes_per_element = 0; // bytes per element of the largest quantized matrix that quantizing it at model
                                                 // load allocates at once, which the caching allocator keeps reserved (torchao 0.1's
                                                 // whole-tensor NF4 quantization: 68); 0 = quantized in chunks or on the host
    bool fused_qkv_kept = false;                 // the attention keeps the fused QKV output whole (V is a view of it) beside its own
                                                 // roped copies of Q and K (LitGPT's CausalSelfAttention): Q + K more per token
    bool lora_zero_pad_kept = false;             // LitGPT's LoRAQKVLinear.zero_pad keeps its index_copy source, the adapted slice of
                                                 // the LoRA output (Q + V per token)
    // Not calibrated: how far above the planned peak this trainer's published peaks have run, from mechanisms the profile
    // does not model (each profile's note names them and the rows); the memory band's high end is the plan x (1 + this).
    double memory_unmodelled_high_ratio = 0;
    // Not calibrated: how far below the planned tokens/s this trainer's published QLoRA runs sharded over several devices
    // (ZeRO-3/FSDP, data parallel > 1) have landed, from mechanisms the profile does not model (the profile's note names the
    // rows and the candidates read from the code and ruled out); the time band's slow end is the plan x (1 - this). 0: none.
    double sharded_qlora_time_unmodelled_low_ratio = 0;
    // ZeRO as the runtime implements it (DeepSpeed's memory.rst); the defaults shard every term at its stage.
    double optimizer_fp32_gradient_bytes_per_param = 0; // FP32 gradient copy the optimizer step keeps, sharded like the optimizer
    bool optimizer_fp32_gradients_partitioned = true;   // false: that copy is whole on every data-parallel rank and counts with
                                                         // the gradients (DeepSpeed BF16_Optimizer: fp32_groups_gradients_flat)
    bool zero2_shards_gradients = true;          // ZeRO-2 partitions the 16-bit gradients (DeepSpeed's estimate keeps them whole)
    double zero3_layer_gather_bytes_per_param = 0; // ZeRO-3 holds 16-bit gradients per layer: the largest layer's params + grads gathered
    // DeepSpeed ZeRO-3's buffers as its config sizes them, in elements of the 16-bit model dtype (0: not modelled).
    // reduce_bucket_size: stage3.py allocates the gradient bucket (__ipg_bucket_flat_buffer) whole at init when
    // contiguous_gradients is on. stage3_max_reuse_distance: the parameter coordinator keeps a gathered parameter whose next
    // use comes within that many elements of traced parameters. stage3_prefetch_bucket_size: it gathers ahead up to that
    // many elements (at least one module's).
    double zero3_reduce_bucket_elements = 0;
    double zero3_max_reuse_distance_elements = 0;
    double zero3_prefetch_bucket_elements = 0;
    bool offload_gradients = false;              // optimizer offload moves the 16-bit gradients to host memory too
    bool offload_parameters = false;             // CPU offload under ZeRO-3/FSDP moves the sharded parameters and gradients too (FSDP2 CPUOffloadPolicy)
    bool shard_embeddings_and_head = false;      // FSDP wraps the token embeddings and the output head as units of their own (torchtune's
                                                 // custom_sharded_layers): resharded after forward, so the root unit keeps neither
    // PyTorch FSDP (FullyShardedDataParallel) full sharding holds all-gathered units beside the shards: the root unit
    // (embeddings, head), which it does not reshard after forward, and this many block units at once (FSDP1 with
    // limit_all_gathers=True and the default BACKWARD_PRE: 3 in backward, the current, the prefetched, and the one just
    // resharded, whose block the caching allocator holds until the compute stream passes it, record_stream). With CPU
    // offload it is the number of blocks in flight (at least 2). 0: not counted (a trainer whose profile was not read for it).
    int fsdp_units_in_flight = 0;
    // The reserved peak is counted from after FSDP's init (train.py resets the peak counters there), whose transients stay
    // cached: the root unit's original tensors and their flat copy, and the last block's (two copies of each unit).
    bool fsdp_init_cache_kept = false;
    // A 4-bit base's quantization statistics (bitsandbytes: Params4bit.quant_state, a Python attribute of the parameter,
    // not a tensor FSDP flattens) stay whole on every device, beside the sharded (or offloaded) 4-bit data.
    bool quant_state_replicated = false;
    // PyTorch FSDP1's CPU offload copies a unit's shard to the device on its pre-unshard stream before the all-gather and
    // keeps the copy until the all-gather has read it (record_stream on the unshard stream): that stream's pool holds the
    // root unit's shard copy and, while the root's all-gather runs, the first block's (1/n of each, as stored).
    bool fsdp_offload_shard_copies_kept = false;
    // Adapter (LoRA/QLoRA) step time, fitted on the runtime's own calibration rows (runtimes.json): a fixed time per
    // micro-batch beyond its FLOPs and dequantization, and the share of the full T x T attention FLOPs its causal
    // kernel executes (FlashAttention-2 skips fully masked blocks: 0.5; Dao 2023, section 3.1.1). Full training keeps
    // the MFU's full count (llm-foundry, PaLM), so neither applies to it.
    double adapter_step_overhead_s = 0;          // seconds per micro-batch
    // Host operations an eager adapter step issues one at a time from Python (runtimes.json adapter_host_ops_*, counted
    // from the trainer's code for adapters on every linear), each at assumptions eager_op_host_s (performance.h,
    // adapter_host_ops_per_micro_batch): per decoder layer in the forward (run twice under full recomputation) and the
    // backward, the frozen 4-bit base's dequantization per linear and use (QLoRA only), and those outside the layers
    // (embedding, head, loss, the trainer's per-micro-batch work). 0: not counted.
    double adapter_host_ops_forward_per_layer = 0;
    double adapter_host_ops_backward_per_layer = 0;
    double adapter_host_ops_dequant_per_linear = 0;
    double adapter_host_ops_outside_layers = 0;
    double causal_attention_flops_ratio = 1;     // executed / full-count attention FLOPs, adapter methods only
    // The layouts the trainer offers, which the training search keeps to: its highest ZeRO stage (Megatron-LM 2021 had no
    // sharded optimizer: 0), a recomputation it always applies ("full": Megatron-LM 2021's --checkpoint-activations;
    // empty: the search's choice, or the workload's), and whether it overlaps tensor-parallel collectives with the GEMMs
    // (Transformer Engine's userbuffers; false: the layout model prices them exposed whatever tensor_parallel_overlap says).
    int max_zero_stage = 3;
    std::string recompute;                       // "", "none", "selective", "full"
    bool tensor_parallel_overlap = true;
    // Whether, under an interleaved pipeline schedule (virtual stages > 1), the trainer posts each chunk's activation and
    // gradient send/receive asynchronously and waits for it only when the next chunk needs it, so the transfer runs beside
    // a chunk's compute (Megatron-LM's overlap_p2p_comm, on by default for the interleaved schedule; NeMo's
    // MegatronCommOverlapCallback sets it wherever virtual pipeline size > 1). false: every send waits (the layout model's default).
    bool pipeline_p2p_overlap = false;
    // Whether the trainer reduces the data-parallel gradients only after the step's last micro-batch, with no backward left to
    // hide it behind, and then all-gathers the 16-bit weights its partitioned optimizer updated (DeepSpeed's pipeline engine:
    // pipe/schedule.py TrainSchedule appends ReduceTiedGrads, ReduceGrads and OptimizerStep after the last step's BackwardPass;
    // its BF16_Optimizer all-reduces the FP32 gradient buffer and then all-gathers the bf16 parameters, update_lp_params).
    // false: the reduction overlaps the last backward (PyTorch DDP buckets; the layout model's default).
    bool data_parallel_reduce_after_schedule = false;
    // Whether the trainer's eager attention drops out attention probabilities (Megatron-LM's --attention-dropout, default 0.1):
    // the dropout kernels' reads and writes of the score matrices are priced with eager attention's element-wise work.
    bool attention_dropout = false;
    std::vector<std::string> adapter_timing_calibrated_by; // calibration case ids the two values above were fitted on
    std::vector<std::string> default_for;        // training methods this profile is the default for ("full", "lora", "qlora")
    // Device kinds ("tpu") on which this profile is the default for full training (pretraining and full fine-tuning)
    // when the workload names no runtime, ahead of default_for: the trainer that runs there (Google's TPU recipes all run
    // MaxText; hf-peft's PyTorch Trainer is a GPU stack). At most one profile per kind.
    std::vector<std::string> default_for_device_kinds;
    std::string source;                          // source id in Catalog::runtime_sources
    bool operator==(const TrainingRuntime&) const = default;
};

// Whether the runtime keeps the optimizer state of a `method` ("full", "lora", "qlora") run in paged memory.
inline bool pages_optimizer(const TrainingRuntime& rt, const std::string& method) {
    if (!rt.paged_optimizer) return false;
    if (rt.paged_optimizer_methods.empty()) return true;
    for (const auto& m : rt.paged_optimizer_methods)
        if (m == method) return true;
    return false;
}

// How an encoder (embedding) runtime executes one transformer layer (catalog/runtimes.json "encoder_runtimes"):
// what its kernels move through device memory outside the weight GEMMs and how many kernels the host launches.
// A fused runtime (TensorRT, FasterTransformer: bias, activation and normalisation in the GEMM epilogues, fused
// multi-head attention) counts none of it; that is what encoder_compute_efficiency was calibrated on. An eager or
// graph-compiled framework writes each GEMM output, reads it back for every element-wise kernel, and sends the
// batch x heads x tokens x tokens score matrix through memory several times. Counted per layer from the runtime's
// model code; the plan adds the bytes at the device's bandwidth and the launches at kernel_launch_overhead_s.
// A compiled NeuronCore graph (neuronx-cc) keeps its tensors in on-chip SRAM but runs every element-wise step, every
// read-out of a matmul result from the tensor engine's accumulation buffer (PSUM) and every transpose's read-out on the
// 128-lane vector/scalar engines: its passes are lane-cycles there (passes_on_vector_engine), priced at the device's
// vector_engine_elements_per_s, not bytes at its bandwidth.
struct EncoderRuntime {
    std::string id;                              // "tensorrt", "pytorch-eager", "tensorflow-xla"
    std::string name;                            // "PyTorch eager (nn.Linear + unfused attention)"
    std::string meaning;                         // what it fuses and what it does not, in one sentence
    double activation_passes_per_layer = 0;      // elements of tokens x hidden read or written per layer by non-GEMM kernels and bias copies
    double score_passes_per_layer = 0;           // elements of batch x heads x tokens^2 read or written per layer outside a fused attention kernel
    double kernels_per_layer = 0;                // kernels the host launches per layer (0: one graph or engine launch, no per-kernel cost)
    bool passes_on_vector_engine = false;        // the passes are element-cycles of the device's vector engine (one per element and
                                                 // input tensor), priced at Device::vector_engine_elements_per_s; false: bytes at bandwidth
    bool is_default = false;                     // the profile a workload without embed.runtime gets
    std::string default_on_stack;                // "aws-neuron": what a workload without embed.runtime gets on a device of that
                                                 // stack, whose only compiler it is (before the catalog default); "" = none
    std::vector<std::string> calibrated_by;      // suite cases an efficiency under this profile was fitted on (empty: not calibrated for it)
    std::string source;                          // source id in Catalog::runtime_sources
    bool operator==(const EncoderRuntime&) const = default;
};

// How a decode runtime issues one decode step from the host (catalog/runtimes.json "decode_runtimes"). A tuned
// runtime (a compiled engine, CUDA graphs, a C++ loop: TensorRT-LLM, vLLM, gpt-fast with torch.compile, llama.cpp)
// launches a step's kernels faster than the device runs them, so the step is the device's time plus
// decode_step_overhead_s; that is what the decode efficiencies were fitted on. An eager Python runtime (transformers'
// generate(), LitGPT's generate) calls one framework operation at a time: the host needs host_ops_per_layer x layers
// + host_ops_per_step operations at eager_op_host_s each, and the device, running ahead asynchronously, waits on it
// once that exceeds its own time (the gpt-fast blog's eager baseline: "heavily CPU overhead bound"). Counted from
// each runtime's model and generation code; the plan takes the longer of the two. Work the host does only after the
// device has returned the step's logits (a Python binding converting them element by element) cannot overlap the
// device and adds to the step; a runtime that calls its model without a KV cache recomputes the whole sequence.
struct DecodeRuntime {
    std::string id;                              // "tuned", "pytorch-eager", "litgpt", "autoawq-fused"
    std::string stack;                           // the one software stack it runs on (decision.stack's values), "" = several
    std::string name;                            // "transformers generate() in eager PyTorch"
    std::string meaning;                         // how it issues a step, in one sentence
    double host_ops_per_layer = 0;               // framework operations the host issues per transformer layer per step (0: not counted)
    double host_ops_per_step = 0;                // the same outside the layers: embedding, final norm, LM head, sampling, the loop's bookkeeping
    double host_ops_per_grouped_kv_layer = 0;    // added per layer when the model groups its KV heads (kv_heads < heads): transformers'
                                                 // repeat_kv expands K and V to the query heads and reshape copies each (2)
    double host_collectives_per_layer = 0;       // of host_ops_per_layer, the collectives a replica on one device skips (TGI's
                                                 // TensorParallelRowLinear all-reduces, called only at world size > 1: 2)
    double host_collectives_per_step = 0;        // of host_ops_per_step, likewise (TGI's embedding all-reduce and head all-gather: 2)
    double host_ops_per_added_sequence = 0;      // host_ops_per_step counts one sequence; each further sequence in the step adds this
                                                 // many (TGI's generate_token copies each sequence's next token on its own: 1)
    double serial_vocab_round_trips = 0;         // per step, times the host carries each of the vocabulary's logits through a Python list
                                                 // (a Python float made from native memory, then converted back) after the device has
                                                 // returned them, so the device idles meanwhile: priced at python_value_round_trip_host_s
    bool recomputes_context = false;             // the model is called without its KV cache (use_cache=False): every step runs the
                                                 // forward pass over the whole sequence so far, as a prefill of that many tokens
    bool expert_gather_one_row = false;          // its routed experts run through one gathered quantized mat-vec per projection
                                                 // (MLX's gather_qmm under mlx-lm's SwitchGLU), which at a one-row step (one
                                                 // sequence, one token) reads their bytes at gathered_expert_one_row_bandwidth_ratio
                                                 // of a plain read; at more rows it reads like the other weights
    // A llama.cpp CUDA release that captures each decode step as one CUDA graph (llama.cpp pull request #6766, merged
    // in May 2024): every llama.cpp CUDA decode rule (efficiencies.json) was measured on builds before it, so under this
    // runtime the rule's fixed step time is shortened by the launch time graphs were measured removing (typical; the
    // slow case takes the _low saving, the fast case the _high one), never below zero. 0 = not such a release.
    double graphs_step_saving_s = 0;
    double graphs_step_saving_low_s = 0;
    double graphs_step_saving_high_s = 0;
    bool expert_down_projection_strided = false; // its MoE experts' down projection (w2) is stored so that the decode GEMV reduces
                                                 // over a strided, not the innermost, weight dimension: those bytes are read at
                                                 // strided_reduction_bandwidth_ratio of the contiguous rate
    // Static shapes (a runtime that compiles each step's graph ahead of time: AWS Neuron's transformers-neuronx, NxD
    // Inference, optimum-neuron). What a decode step's attention spans for every sequence, whatever its own history:
    //   "" / "history": the sequence's own tokens so far (a paged or dynamic-length kernel);
    //   "power_of_two_bucket": the smallest compiled bucket that holds the position, buckets doubling from
    //       attention_bucket_min_tokens up to the compiled sequence length (serve.compiled_sequence_tokens);
    //   "compiled_sequence": the whole compiled sequence length, every step.
    // The attention reads the KV cache and computes its scores over that span (masked beyond the history).
    std::string attention_span;
    double attention_bucket_min_tokens = 0;      // the smallest token-generation bucket ("power_of_two_bucket")
    bool pads_batch_to_compiled = false;         // a step runs the compiled batch (serve.compiled_batch) even when
                                                 // fewer sequences are running: the rest are padding rows
    bool prefill_pads_to_compiled_context = false; // a prompt is encoded at the compiled context length, padded
    // How the runtime shards attention heads over its tensor-parallel ranks (each a NeuronCore, Device::
    // tensor_parallel_cores of them per device): "" = the model's own heads split evenly; "pad-replicate-to-heads":
    // query heads padded up to a multiple of the ranks, and KV heads that do not divide by the ranks replicated to
    // the query heads (transformers-neuronx's GQA.REPLICATED_HEADS, then padded alike); "pad-replicate-to-ranks":
    // query heads padded likewise, KV heads fewer than the ranks (or not dividing them) replicated to one per rank
    // when the ranks divide by them, else to the padded query heads (NxD's REPLICATE_TO_TP_DEGREE / CONVERT_TO_MHA).
    // The padded and replicated heads' projections and KV cache are read like the model's own.
    std::string head_sharding;
    // How its tensor-parallel all-reduces run inside one machine: "" = NCCL (ring or tree, parallel.h
    // allreduce_time_s); "pytorch-intra-node" = PyTorch's IntraNodeComm, which gpt-fast's torchrun runs turn on with
    // ENABLE_INTRA_NODE_COMM=1: on NVIDIA devices joined by NVLink, a bf16 message small enough takes the one-shot,
    // two-shot or hybrid-cube-mesh kernel (parallel.h intra_node_allreduce_time_s, serve.scale_up_topology), else NCCL.
    std::string tensor_parallel_allreduce;
    bool replicates_output_head = false;         // under tensor parallelism every rank holds and reads the whole output head
                                                 // (gpt-fast's tp.py shards only the blocks): plan_serving.cpp counts tp copies
    // Routed experts at token generation (NxD's ExpertMLPs): when tokens x experts per token / experts reaches this
    // share, every expert runs over every token of the step (all experts' weights read, their GEMMs computed densely);
    // below it each token loads its own experts, one token after another (tokens x experts per token expert reads).
    // 0: not set (the experts the batch's tokens touch, each read once).
    double moe_all_experts_share = 0;
    bool is_default = false;                     // the profile a workload without serve.runtime gets
    double served_host_time_unmodelled_share = 0; // declared, not modelled: the share of a served run's time its host side (API server,
                                                 // scheduling, output processing) may take beside the device's steps; widens the slow
                                                 // end of the serving throughput to the plan x (1 - share) (0: none declared)
    // How the engine sizes its KV cache (a serving engine that profiles one dummy pass before it sizes the cache, as vLLM
    // does; none set: the catalog-wide account, plan_serving.cpp eval_serve_layout):
    double profile_tokens_floor = 0;             // > 0: the profile pass runs max(the model's context, this) tokens, not
                                                 // prefill_chunk_tokens (vLLM 0.2.x SchedulerConfig: max(max_model_len, 2048))
    bool profile_holds_allreduce_inputs = false; // under tensor parallelism the pass's freed all-reduce inputs stay reserved
                                                 // when the engine reads the memory (allreduce_inputs_held_share of them)
    double profile_sampler_bytes_per_logit = 0;  // device bytes the profile's dummy sampler holds at its peak per logit of
                                                 // vllm_profile_sampler_sequences x vocabulary (0: none counted)
    double int4_column_gemv_time_ratio = 0;      // > 0: at a decode step of at most 16 rows, its 4-bit (GPTQ) column-parallel
                                                 // projections (query/key/value, gate/up) take this share of the time a 16-bit
                                                 // GEMV of the same shape takes (TGI 1.0.3 runs them on the Triton matmul_248
                                                 // kernel): priced as the extra bytes a 16-bit read would take that long over
    double triton_projections_per_layer = 0;     // its 4-bit (GPTQ) projections per layer launched through Triton's Python
                                                 // launcher (TGI 1.0.3: query_key_value and gate_up_proj, QuantLinear's
                                                 // matmul_248 under custom_autotune): the host spends triton_launch_host_s on
                                                 // each where a cuBLAS projection costs eager_op_host_s
    double host_op_s = 0;                        // > 0: the host time of one counted operation under this runtime, measured on the
                                                 // runtime itself (a step that waits on its host, divided by the profile's own count),
                                                 // in place of the catalog-wide eager_op_host_s for the point estimate; the band keeps
                                                 // eager_op_host_s's low and high (TGI: its Python layers issue a view, slice or module
                                                 // call for about every kernel, where gpt-fast's blog run, which priced eager_op_host_s,
                                                 // launched several kernels for each)
    std::string host_op_source;                  // source id of host_op_s (its own measurement)
    std::vector<std::string> calibrated_by;      // suite cases a value under this profile was fitted on (empty: not calibrated for it)
    std::string source;                          // source id in Catalog::runtime_sources
    bool operator==(const DecodeRuntime&) const = default;
};

} // namespace hwplan

namespace hwplan {

// A measured efficiency for a device family (catalog/efficiencies.json): devices whose kind, vendor, memory
// type (and id, when listed) match take `value` (low..high as the band) instead of the catalog-wide
// assumption (decode_bandwidth_efficiency or training_mfu), when planned with one of `frameworks` (empty:
// any runtime).
struct EfficiencyRule {
    std::string id;                         // "hbm-gpu-llama.cpp"
    std::string meaning;
    std::vector<std::string> kinds;         // device kinds ("gpu")
    std::vector<std::string> vendors;       // "NVIDIA", "AMD"
    std::string memory_type_prefix;         // "HBM", "GDDR"
    std::vector<std::string> devices;       // catalog device ids (empty: any that matches the rest)
    std::vector<std::string> frameworks;    // runtimes the measurements used ("llama.cpp"); empty: any
    std::vector<std::string> weight_format_kinds; // kinds of the workload's weight format ("gguf"; formats.json); empty: any
    std::vector<std::string> weight_formats; // the workload's weight format itself ("q4_k_m"; formats.json ids): a rule whose
                                             // measurements cover only some formats of a kind; empty: any of its kinds
    double value = 0, low = 0, high = 0;    // ratio in (0, 1]
    // Decode rules only: the fixed time per decode step the same fit gives (0: the catalog-wide
    // decode_step_overhead_s), with its low..high
    double step_overhead_s = 0, step_overhead_low_s = 0, step_overhead_high_s = 0;
    int measurements = 0;                   // how many measurements the figures come from
    std::vector<std::string> calibrated_by; // ids of the calibration-split measurements (tests/validation/) that set it
    std::string source;                     // source id in Catalog::efficiency_sources
    bool operator==(const EfficiencyRule&) const = default;
};

} // namespace hwplan
