// plan_facts.cpp: what a device and a model give every stage's evaluation: the dense peak at the compute precision
// (with its fallback), the memory a job may use, the runtime's own overhead, how many devices a plan joins, and the
// weights' bytes at their storage format.
#include <algorithm>
#include <span>
#include <string_view>

#include "hwplan/format.h"
#include "hwplan/memory.h"
#include "hwplan/precision.h"
#include "plan_eval.h"

namespace hwplan::plan_detail {

// [SECTION] device facts ---------------------------------------------------------------------------

// The dense peak for the requested compute precision, falling back to the nearest wider path the
// device has (FP4 -> FP8 -> BF16 -> FP16 -> FP32; FP8 -> BF16 -> FP16 -> FP32; INT8 -> FP16 -> BF16 -> FP32), with a
// note saying so. FP4 compute (NVFP4/MXFP4 GEMMs: TensorRT-LLM and vLLM on Blackwell, MI355X) multiplies 4-bit
// elements on the tensor cores' FP4 path (fp4_dense_TFLOPS; B200: 9,000 against 4,500 at FP8). INT8
// compute (TensorRT's INT8 engines, W8A8 kernels) runs on the integer tensor-core path, whose dense OP/s the
// datasheet gives beside the FLOP/s (int8_dense_TOPS; A100: 624 TOPS vs 312 TFLOPS at FP16).
Peak peak_for(const Device& d, const std::string& compute) {
    struct Path {
        const char* name;
        PeakRate Device::*rate;
    };
    static constexpr Path kFp4[] = {{"fp4", &Device::fp4}, {"fp8", &Device::fp8}, {"bf16", &Device::bf16}, {"fp16", &Device::fp16}, {"fp32", &Device::fp32}};
    static constexpr Path kFp8[] = {{"fp8", &Device::fp8}, {"bf16", &Device::bf16}, {"fp16", &Device::fp16}, {"fp32", &Device::fp32}};
    static constexpr Path kBf16[] = {{"bf16", &Device::bf16}, {"fp16", &Device::fp16}, {"fp32", &Device::fp32}};
    static constexpr Path kFp16[] = {{"fp16", &Device::fp16}, {"bf16", &Device::bf16}, {"fp32", &Device::fp32}};
    static constexpr Path kFp32[] = {{"fp32", &Device::fp32}};
    static constexpr Path kInt8[] = {{"int8", &Device::int8}, {"fp16", &Device::fp16}, {"bf16", &Device::bf16}, {"fp32", &Device::fp32}};
    const std::span<const Path> order = compute == "fp4" ? std::span<const Path>(kFp4)
                                        : compute == "fp8" ? std::span<const Path>(kFp8)
                                        : compute == "int8" ? std::span<const Path>(kInt8)
                                        : compute == "fp16" ? std::span<const Path>(kFp16)
                                        : compute == "fp32" ? std::span<const Path>(kFp32)
                                                            : std::span<const Path>(kBf16);
    Peak p;
    p.requested = compute;
    p.device = d.id;
    for (const auto& path : order) {
        const PeakRate& rate = d.*path.rate;
        if (rate.supported) {
            p.flop_per_s = p.unthrottled_flop_per_s = rate.flop_per_s;
            // A power-capped board clocks down under continuous matrix multiply: its 16-bit tensor paths run at the
            // sustained rate the catalog records (device.h sustained_16bit_flop_per_s), not at the boost-clock peak.
            // Evaluators that model the cap as a power ceiling (performance.h power_capped_flop_per_s) read both.
            const bool sixteen = std::string_view(path.name) == "fp16" || std::string_view(path.name) == "bf16";
            if (sixteen && d.sustained_16bit_flop_per_s > 0) {
                p.capped_flop_per_s = d.sustained_16bit_flop_per_s;
                p.flop_per_s = std::min(p.flop_per_s, d.sustained_16bit_flop_per_s);
            }
            p.precision = path.name;
            return p;
        }
    }
    return p;
}

// Unified-memory Apple SoCs and CPUs/NPUs run llama.cpp/MLX-style runtimes; the rest run a serving
// engine (vLLM-like) or a training framework on a discrete accelerator.
bool local_runtime(const Device& d) { return d.kind == DeviceKind::soc || d.kind == DeviceKind::cpu || d.kind == DeviceKind::npu; }

// What one device lets a job use: the total the driver reports to the runtime where the catalog has that
// reading (cudaMemGetInfo: what vLLM multiplies by gpu_memory_utilization, vllm/worker/worker.py
// determine_num_available_blocks, and what PyTorch can allocate), else the datasheet capacity; the platform's
// usable share (macOS GPU wiring on Apple SoCs); and for serving engines their memory-utilization setting.
double usable_bytes(const Device& d, const Assumptions& a, bool serving) {
    double ratio = d.usable_memory_ratio;
    if (d.vendor == "Apple" && d.usable_rule.empty() && d.usable_memory_ratio == 1.0) ratio = a.macos_gpu_wired_ratio;
    double bytes = (d.runtime_total_bytes > 0 ? d.runtime_total_bytes : d.memory_bytes) * ratio;
    if (serving && !local_runtime(d)) bytes *= a.serving_memory_utilization;
    return bytes;
}

// What a runtime keeps on each device before any model: the device's own recorded figure where the catalog has one
// (memory.runtime_reserved_MB: Groq's compiler lays each chip's whole SRAM out for the model), else the assumptions'
// GPU runtime context, or llama.cpp's compute buffer on a local runtime.
bool runtime_reserve_recorded(const Device& d) { return d.runtime_reserved_bytes >= 0; }

double runtime_context_bytes(const Device& d, const Assumptions& a) {
    return runtime_reserve_recorded(d) ? d.runtime_reserved_bytes : a.runtime_context_bytes;
}

double runtime_overhead_bytes(const Device& d, const Assumptions& a) {
    if (runtime_reserve_recorded(d)) return d.runtime_reserved_bytes;
    return local_runtime(d) ? a.llama_cpp_compute_buffer_bytes : a.runtime_context_bytes;
}

// The most devices of one kind a plan joins: for cards whose only link is PCIe and which have no scale-out
// network one machine of kCardsPerMachine, lesson 004's node ("one node of up to 8"); else 4096 (devices whose
// network is not recorded, SRAM systems chained on their own links, domains joined by a network).
constexpr int kCardsPerMachine = 8;
int most_devices(const Device& d, const Assumptions& a) {
    const Network net = network_of(d, a);
    if (!net.multi_node && d.interconnect_kind.rfind("pcie", 0) == 0) return kCardsPerMachine;
    return 4096;
}

// [SECTION] model facts ----------------------------------------------------------------------------

// Weights at the storage format: weight-only quantizers keep embeddings and head in 16 bits (memory.h).
WeightBytes weight_bytes(const Workload& w, const Catalog& cat, const std::string& format_name, double params, bool explain) {
    WeightBytes out;
    const WeightFormat* f = cat.find_format(format_name);
    const double bits = f ? f->bits_per_weight : 16;
    const auto& arch = w.model.model.arch;
    const bool moe = arch.has_moe && !w.model.size_only;
    const double routed_params = moe ? (arch.mlp == MlpKind::gated ? 3.0 : 2.0) * arch.hidden * arch.moe.expert_intermediate *
                                           arch.moe.experts * (arch.layers - arch.moe.dense_layers)
                                     : 0.0;
    // llama.cpp keeps an MoE model's block-quantized (MXFP4) checkpoint as ggml's MXFP4_MOE file type: the routed
    // experts' 3-D tensors in the block format, every other weight, the output head and the token table included, in
    // Q8_0 (src/llama-quant.cpp llama_tensor_get_type_impl at 007dbbf: "MoE tensors -> MXFP4, other tensors -> Q8_0";
    // the output tensor of an MXFP4_MOE file "new_type = GGML_TYPE_Q8_0"). A GGUF quantizer never keeps them at 16 bits.
    const WeightFormat* q8 = cat.find_format("q8_0");
    const bool gguf_moe_file = f && f->kind == "blockquant" && moe && routed_params > 0 && routed_params < params && q8 &&
                               framework_runtime(w.framework) == "llama.cpp";
    const double other_bits = gguf_moe_file ? q8->bits_per_weight : bits;
    const bool keep_embeddings = f && f->kind != "gguf" && f->kind != "float" && !w.model.size_only && !gguf_moe_file;
    const bool low_float = f && f->kind == "float" && bits < 16 && !w.model.size_only; // fp8 engines too
    const double embed = (keep_embeddings || low_float) ? std::min(params, embedding_and_head_params(arch)) : 0;
    out.total = gguf_moe_file ? routed_params * bits / 8 + (params - routed_params) * other_bits / 8 : (params - embed) * bits / 8 + embed * 2;
    out.quantized_params = params - embed;
    out.bits_per_weight = bits;
    // An untied input table is a lookup: a step reads only its tokens' rows (a tied one is also the head,
    // read whole). Stored at 16 bits where the embeddings are kept, else at the format's bits (Q8_0 in an MXFP4_MOE file).
    if (!arch.tied_embeddings && !w.model.size_only && arch.vocab > 0 && embedding_and_head_params(arch) <= params) {
        out.input_embedding_row_bytes = double(arch.hidden) * (embed > 0 ? 2.0 : other_bits / 8);
        out.input_embedding = double(arch.vocab) * out.input_embedding_row_bytes;
    }
    if (explain) {
        out.why = format_count(params) + " params x " + format_sig(bits, 4) + " bits (" + format_name + ")";
        if (embed > 0) out.why += ", embeddings and head (" + format_count(embed) + ") kept at 16 bits";
        if (gguf_moe_file)
            out.why = format_count(routed_params) + " routed-expert params x " + format_sig(bits, 4) + " bits (" + format_name + ") + " +
                      format_count(params - routed_params) + " others x " + format_sig(other_bits, 4) +
                      " bits (q8_0: llama.cpp's MXFP4_MOE GGUF file type)";
    }
    if (moe) out.experts = routed_params * bits / 8; // routed experts are stored at the format's bits
    return out;
}

double kv_value_bytes(const std::string& kv) {
    auto p = parse_precision(kv);
    // An FP4 KV cache stores E2M1 values with an 8-bit scale per 16 of them (SGLang's fp4_e2m1 cache, "blocks of 16
    // elements", 3.56x the tokens of BF16: docs/advanced_features/quantized_kv_cache.md at 70310f0; NVFP4's FP8 scale per
    // 16, catalog/formats.json): 4 + 8/16 = 4.5 bits a value.
    if (p && *p == Precision::fp4) return 4.5 / 8;
    return p ? bytes_per_value(*p) : 2.0;
}

} // namespace hwplan::plan_detail
