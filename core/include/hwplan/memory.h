// hwplan/memory.h: what a job holds in memory, term by term: weights, KV cache, activations, gradients,
// optimizer state. Pure functions of the architecture and the settings; each names its source.
// Usage: double kv = kv_bytes_per_token(arch, 1.0);                 // 163,840 for Llama-3.1-70B at FP8
//        double act = training_activation_bytes_per_layer(arch, {.seq_len = 2048, .micro_batch = 1});
#pragma once
#include <map>
#include <string>
#include <vector>

#include "hwplan/issues.h"
#include "hwplan/model.h"
#include "hwplan/precision.h"
#include "hwplan/workload.h"

namespace hwplan {

inline constexpr double kMaxParams = 1e14; // 100 trillion: above any published model by ~50x

// Bytes to hold `params` weights stored at `p`: params x bits / 8 (lesson 001, "The GPU Memory
// Bottleneck": a P-parameter model at 16 bits needs 2P bytes). Raw storage, no quantization scales.
double weights_bytes(double params, Precision p);

struct WeightsInput {
    double params = 0;     // parameter count (plain number, 7e9 for a 7B model)
    std::string precision; // format name as the user wrote it ("bf16")
};

struct WeightsEstimate {
    double params = 0;               // as given
    Precision precision = Precision::bf16;
    double bytes_per_param = 0;      // bytes per weight at that precision
    double weights_bytes = 0;        // params x bytes_per_param
    Issues issues;                   // non-empty: the input was rejected and the figures are 0
    bool operator==(const WeightsEstimate&) const = default;
};

// Validates the input (params: finite, > 0, <= kMaxParams; precision: a known format) and computes.
WeightsEstimate estimate_weights(const WeightsInput& in);

// [SECTION] KV cache ---------------------------------------------------------------------------------

// Bytes of KV cache one token adds across all layers, ignoring sliding-window caps: full and sliding
// layers store K and V, 2 x kv_heads x head_dim values (grouped-query attention, Ainslie et al. 2023);
// latent layers store kv_lora_rank + qk_rope_head_dim values (DeepSeek-V2, section 2.1); "none" layers
// store nothing. Lesson 004: Llama-3.1-70B at FP8 = 2 x 8 x 128 x 80 x 1 = 163,840 bytes per token.
double kv_bytes_per_token(const ModelArch& arch, double bytes_per_value);

// Bytes of KV cache for one sequence of `context_tokens`: sliding layers hold at most `window` tokens;
// with `block_tokens` > 0 the held tokens round up to whole blocks (paged attention, Kwon et al. 2023).
double kv_bytes_per_sequence(const ModelArch& arch, double bytes_per_value, double context_tokens, double block_tokens = 0);

// The longest single sequence whose KV cache fits `free_bytes` (solved exactly: the cache is piecewise
// linear in the context); INFINITY when no layer's cache grows (only sliding windows, all full).
double max_context_tokens(const ModelArch& arch, double bytes_per_value, double free_bytes, double block_tokens = 0);

// Lesson 003's planning function: users whose KV cache fits beside the weights and the runtime,
// floor((capacity - weights - overhead) / kv_per_user); 0 when nothing is left.
double max_active_users(double capacity_bytes, double weights_bytes, double overhead_bytes, double kv_bytes_per_user);

// [SECTION] Activations ------------------------------------------------------------------------------

struct ActivationSettings {
    double seq_len = 2048;            // s, tokens per sequence
    double micro_batch = 1;           // b, sequences per device per step
    int tensor_parallel = 1;          // t
    bool sequence_parallel = false;   // Megatron sequence parallelism (splits the non-tensor-parallel parts)
    Checkpointing checkpointing = Checkpointing::none;
    bool flash_attention = true;      // fused attention: no s x s score matrices are stored
    bool dropout = false;             // dropout masks (1 byte per element); modern LLM recipes use none
    double bytes_per_value = 2;       // 16-bit activations (4 for fp32 training)
    // The loss over the vocabulary (runtime profile, catalog/runtimes.json): bytes per logit held whole
    // (bf16 chunks kept for backward), FP32 bytes per logit live while the loss and its gradient are taken,
    // and how many chunks the FP32 part is split into (one chunk live at a time).
    double logits_kept_bytes_per_value = 0;
    double loss_fp32_bytes_per_value = 8;
    double loss_chunks = 1;
    // With full recomputation the saved block inputs go to host memory as they are made and come back for
    // backward (Unsloth's gradient checkpointing: "offloads intermediate activations to system RAM
    // asynchronously"): only the block being recomputed is on the device.
    bool offload_checkpoints = false;
    // Layer-wise activation offload without recomputation (train.offload_activation_layers; Megatron-Core's
    // cpu_offloading_num_layers, NVIDIA/Megatron-LM d98e8a6 megatron/core/transformer/transformer_block.py, which wraps every
    // layer's forward in Transformer Engine's offload context): the saved tensors of the first N blocks are copied to host
    // memory, and TE's DefaultOffloadSynchronizer (NVIDIA/TransformerEngine d0067d0, transformer_engine/pytorch/cpu_offload.py)
    // releases block i's device copy before block L - N + i runs and reloads it one block ahead of its backward, so that
    // "peak memory usage of saving activations is (num_layers - num_offloaded_layers) * T": the device holds L - N blocks'
    // saved activations (the block being computed among them, and a block whose copy is in flight until it is released).
    // At most layers_on_device - 1 (the last block is never offloaded); the logits and the loss stay on the device.
    int offloaded_layers = 0;
    // Tensors of the MLP's width (i per token) a gated MLP, down(act(gate(x)) * up(x)), keeps for backward.
    // Unfused eager PyTorch keeps 4: the gate output (SiLU's backward reads its input: derivatives.yaml
    // 'silu(Tensor self): self: silu_backward(grad, self)'), the activation and the up output (mul keeps both
    // operands: 'mul.Tensor: self: mul_tensor_backward(grad, other, ...), other: mul_tensor_backward(grad, self, ...)'),
    // and their product, the down projection's input. A fused SwiGLU saves its input (gate and up, 2i) and
    // the down projection its input: 3 (Megatron-core fused_bias_swiglu.py SwiGLUFunction:
    // ctx.save_for_backward(input)); Unsloth's LoRA_MLP saves X, e, g and recomputes the product: 2
    // (unsloth/kernels/fast_lora.py). A plain MLP keeps 2 (Korthikanti's GeLU input and output).
    double gated_mlp_saved_tensors = 4;
    // Bytes per element of the copies the linear layers keep of their inputs for the weight gradient: the QKV projection's
    // input (h per token), the MLP's (h) and the down projection's (i); 0 = bytes_per_value. An FP8 run under Transformer
    // Engine keeps the FP8 copy its GEMM read, 1 byte (runtimes.json fp8_linear_input_bytes_per_value; TE 2.14
    // module/layernorm_linear.py and module/linear.py save the quantized ln_out / inputmat, one FP8 copy: columnwise only,
    // or rowwise where sequence parallelism gathers it again in backward). The norms' inputs, Q, K, V, the attention output
    // (the output projection's input, which Megatron-Core has that projection share with attention: set_save_original_input)
    // and the other MLP tensors stay at bytes_per_value.
    double linear_input_bytes_per_value = 0;
    // Adapter runs (LoRA/QLoRA over a frozen base): which linear layers' inputs a block keeps. PyTorch's own linear keeps
    // its input only to form the weight's gradient (derivatives.yaml 'mm: mat2: mm_mat2_backward(grad, self, ...)', saved
    // under grad_fn->should_compute_output by tools/autograd/gen_variable_type.py guard_for), so a frozen 16-bit layer keeps
    // none unless an adapter's path does; bitsandbytes' MatMul4Bit keeps it whatever the weight ('if
    // any(ctx.needs_input_grad[:2]): ctx.tensors = (A, B)', bitsandbytes/autograd/_functions.py). The out projection's
    // input is the attention kernel's output, which that kernel keeps anyway. A full run keeps all three.
    bool qkv_input_kept = true;       // the QKV projection's input (the first norm's output), h per token
    bool mlp_input_kept = true;       // the MLP's input (the second norm's output), h per token
    bool down_input_kept = true;      // the down projection's input, i per token (one of gated_mlp_saved_tensors; of a plain MLP's 2)
    // Further bytes per token a block keeps that the terms above do not name (LoRA dropout's masks and dropped inputs,
    // lora_dropout_bytes_per_token; a trainer's own copies, from its runtime profile in plan_training.cpp eval_train);
    // split across tensor-parallel ranks like the MLP's.
    double extra_bytes_per_token = 0;
    // Under full recomputation, the bytes per token a block keeps on the device besides its input (MaxText's custom remat
    // policy, train.remat_tensors: the tensors it saves on the device, RematTensors below): split across tensor-parallel
    // ranks (Q, K, V, the attention output, the MLP's inner tensors) or hidden-wide (the output projection's and the MLP's
    // outputs, split only by sequence parallelism).
    double remat_saved_split_bytes_per_token = 0;
    double remat_saved_whole_bytes_per_token = 0;
};

// MaxText's custom remat policy (train.remat_tensors; maxtext-tutorial-v1.5.0, the release Google's Ironwood recipes pin):
// decoders.py wraps each decoder layer in jax.checkpoint with jax.checkpoint_policies.save_and_offload_only_these_names(
// names_which_can_be_saved = the names set "device", names_which_can_be_offloaded = those set "offload"), so a tensor the
// layer tags with one of those names (checkpoint_name) is kept on the device or in host memory for the backward pass and
// everything else is recomputed from the block's input (decoder_layer_input, which "cannot be rematerialized"). The names
// and what each tags (layers/*.py at that tag): decoder_layer_input, the block's input (hidden); query_proj, key_proj,
// value_proj, the projections' outputs (attentions.py, attention_mla.py); qkv_proj, the fused projection's output (models
// with fused_qkv); context, the attention kernel's output and its logsumexp residual (splash_attention_kernel.py
// residual_checkpoint_name="context"; FP32, one value per head and token); out_proj, the output projection's output
// (hidden); mlpwi_0 and mlpwi_1, the gated MLP's two input projections' outputs (linears.py; moe.py per routed expert),
// mlpwi the fused (or single) one; mlpwo, the down projection's output (hidden; moe.py: each routed expert's, before they
// are combined); mla_q and mla_kv, latent attention's low-rank query and key-value (q_lora_rank, kv_lora_rank wide).
const std::vector<std::string>& maxtext_remat_tensor_names();
struct RematTensors {
    double device_split_elements = 0; // per token and block, saved on the device, split across tensor-parallel ranks
    double device_whole_elements = 0; // per token and block, saved on the device, hidden-wide (out_proj, mlpwo)
    double offloaded_elements = 0;    // per token and block, in host memory, the block input apart
    bool input_offloaded = false;     // decoder_layer_input "offload": the checkpoints themselves in host memory
    // The share of the blocks' forward GEMM FLOPs the backward pass runs again: a projection whose output is saved (on the
    // device or in host memory) is not recomputed, every other one is, as full recomputation counts a whole forward (an
    // upper bound: XLA may drop a recomputed GEMM whose output the backward never reads, such as the down projection's).
    double recompute_share = 1;
    bool attention_recomputed = true; // the attention kernel's forward runs again: its output and residual (context) not saved
};
// Averaged over the model's blocks (a MoE model's dense blocks have their own MLP width).
RematTensors maxtext_remat_tensors(const ModelArch& arch, const std::map<std::string, std::string>& policy);

// Activation memory one transformer block keeps for the backward pass. Korthikanti et al. 2022,
// "Reducing Activation Recomputation in Large Transformer Models", section 4 and Table 2: for a GPT block
// (4h MLP, multi-head attention, dropout) sbh(34 + 5as/h) bytes without parallelism; sbh(10 + 24/t +
// 5as/(ht)) with tensor parallelism; sbh(34/t + 5as/(ht)) with sequence parallelism; the 5as/h term
// vanishes with selective recomputation or fused attention; 2sbh with full recomputation. Generalized
// here term by term to grouped-query attention, gated MLPs of any width and runs without dropout.
double training_activation_bytes_per_layer(const ModelArch& arch, const ActivationSettings& s);

// All activations of a training step on one device: every block (full recomputation keeps only block
// inputs plus one block's working set while it is recomputed) and the logits buffer,
// s x b x vocab / t x (kept + fp32 / chunks) bytes: transformers upcasts the whole logits tensor to FP32
// before cross-entropy and its gradient is the same size (kept 0, fp32 8, 1 chunk: 8 bytes per logit, which
// for 128k-256k vocabularies rivals the blocks); torchtune's CEWithChunkedOutputLoss keeps the bf16 chunks
// and upcasts one of 8 at a time (2 + 8/8 = 3 bytes per logit).
struct TrainingActivations {
    double blocks_bytes = 0;
    double logits_bytes = 0;
    double total_bytes = 0;
};
// With s.offloaded_layers N the blocks term counts layers_on_device - N blocks (N clamped to layers_on_device - 1).
TrainingActivations training_activation_bytes(const ModelArch& arch, const ActivationSettings& s, int layers_on_device);

// Inference working memory for one forward chunk of `chunk_tokens` tokens (prefill or a decode batch):
// one block's largest live tensors, 2 bytes x tokens x (2h + q + 2kv + 3i) for a gated MLP
// (2i for a plain one), plus FP32 logits for `sampled_sequences` positions.
double inference_activation_bytes(const ModelArch& arch, double chunk_tokens, double sampled_sequences);

// [SECTION] Weights, gradients, optimizer state ------------------------------------------------------

// Parameters that a weight-only quantizer stores in low precision. GPTQ/AWQ/bitsandbytes/FP8 engines
// quantize the linear layers of the blocks and keep the token embedding and output head in 16 bits;
// llama.cpp's GGUF types quantize every tensor (the format's average bits per weight covers them).
double embedding_and_head_params(const ModelArch& arch);

// Model-state bytes per trainable parameter beside the 16-bit weights (lesson 001, "Training Memory
// Lower Bound": mixed-precision Adam = 2 weights + 2 gradients + 4 master + 4 + 4 moments = 16P).
//   adamw        12 (FP32 master + two FP32 moments)      -> 16P in all
//   adamw_fp32    8 (two FP32 moments; weights are FP32)  -> 16P (4 + 4 + 8)
//   adamw_8bit    6 (FP32 master + two 8-bit moments, Dettmers et al. 2022) -> 10P
//   sgd           8 (FP32 master + FP32 momentum)         -> 12P
//   adafactor     4 (FP32 master; factored second moment, Shazeer & Stern 2018, is O(rows + cols))
double optimizer_bytes_per_param(Optimizer o);
double gradient_bytes_per_param(Optimizer o);  // 4 for adamw_fp32, else 2 (bf16 gradients)
double weight_bytes_per_param(Optimizer o);    // training copy: 4 for adamw_fp32, else 2

// Model state per parameter of a full (all-weights) training run. Mixed precision as above; an fp32 run
// (precision.compute fp32) keeps 4-byte weights and gradients and needs no master copy, so the optimizer
// holds only its moments: adamw 8 (two FP32 moments), adamw_8bit 2, sgd 4, adafactor ~0 (factored).
struct ModelStateBytes {
    double weights = 0, gradients = 0, optimizer = 0; // bytes per trainable parameter
};
ModelStateBytes full_training_state_bytes(Optimizer o, bool fp32);

// Optimizer bytes per parameter trained in its own dtype (LoRA adapters; pure-bf16 full training as in
// torchtune): the optimizer's moments (AdamW 2, SGD with momentum 1, Adafactor ~0) at
// `state_bytes_per_value` each (torch.optim creates them with the parameter's dtype: 4 for FP32
// adapters, 2 for bf16), or 1 byte each for 8-bit AdamW (Dettmers et al. 2022); no master copy.
double optimizer_moment_bytes_per_param(Optimizer o, double state_bytes_per_value);

// LoRA adapter parameters (Hu et al. 2021): rank r on every linear layer of every block (the QLoRA
// recipe, Dettmers et al. 2023): r x (in + out) for Q, K, V, O and the MLP matrices. For MoE blocks the
// adapters go on attention and shared experts only.
double lora_params(const ModelArch& arch, double rank);

// Which linear layers of a block carry adapters: every one (the QLoRA recipe; PEFT's "all-linear"), the query and value
// projections only (Hu et al. 2021, section 7.1; LitGPT's finetune/lora.py defaults lora_query and lora_value; PEFT's
// default for Llama, T5 and BLOOM's fused QKV, r x (h + 3h) = r x 2 x (h + h) for multi-head attention), or query, key and
// value (torchtune's llama3_1/70B_lora.yaml: lora_attn_modules ['q_proj', 'k_proj', 'v_proj']). workload train.lora_targets,
// else the trainer profile's default (runtimes.json lora_targets).
enum class LoraTargets { all, query_value, query_key_value };
// "all", "query-value", "query-key-value" -> the enum; anything else is "all" (the readers check the names).
LoraTargets lora_targets_from_name(const std::string& name);
double lora_params(const ModelArch& arch, double rank, LoraTargets targets);

// Bytes per token one block keeps for LoRA's own path beyond the linear layers' inputs: with dropout on the adapter's
// input (lora_dropout > 0) each adapted input keeps the dropped copy (the A matrix's input, `bytes_per_value`) and
// the dropout mask (1 byte a value: native_dropout saves its bool mask, derivatives.yaml 'native_dropout: input:
// ... native_dropout_backward(grad, result1, ...)'). `dropout_per_module`: PEFT gives each adapted module its own
// dropout (peft/tuners/lora/layer.py lora_dropout[adapter_name](x)), so Q, K and V each copy their shared input;
// LitGPT's fused QKV linear drops it once (lit_gpt/lora.py LoRAQKVLinear.forward: self.lora_dropout(x)).
double lora_dropout_bytes_per_token(const ModelArch& arch, LoraTargets targets, double lora_dropout, bool dropout_per_module,
                                    double bytes_per_value);

// Parameters of the largest single weight tensor (the token embedding or output head, or an MLP matrix):
// with the optimizer step fused into backward (torchtune optimizer_in_bwd) only one gradient is alive.
double largest_tensor_params(const ModelArch& arch);

} // namespace hwplan
