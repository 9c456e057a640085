// assumptions.cpp: the assumption set from catalog defaults and workload overrides.
#include "hwplan/assumptions.h"

#include <cmath>

#include "hwplan/format.h"

namespace hwplan {

namespace {

struct Field {
    const char* name;
    double Assumptions::*member;
};

const std::vector<Field>& fields() {
    static const std::vector<Field> kFields{
        {"decode_bandwidth_efficiency", &Assumptions::decode_bandwidth_efficiency},
        {"prefill_compute_efficiency", &Assumptions::prefill_compute_efficiency},
        {"decode_compute_efficiency", &Assumptions::decode_compute_efficiency},
        {"decode_compute_efficiency_8bit", &Assumptions::decode_compute_efficiency_8bit},
        {"training_mfu", &Assumptions::training_mfu},
        {"finetune_mfu", &Assumptions::finetune_mfu},
        {"encoder_compute_efficiency", &Assumptions::encoder_compute_efficiency},
        {"interconnect_efficiency", &Assumptions::interconnect_efficiency},
        {"pcie_allreduce_share_4_ranks", &Assumptions::pcie_allreduce_share_4_ranks},
        {"pcie_allreduce_share_8_ranks", &Assumptions::pcie_allreduce_share_8_ranks},
        {"runtime_context_bytes", &Assumptions::runtime_context_bytes},
        {"tensor_parallel_buffer_bytes", &Assumptions::tensor_parallel_buffer_bytes},
        {"allocator_fragmentation_ratio", &Assumptions::allocator_fragmentation_ratio},
        {"serving_memory_utilization", &Assumptions::serving_memory_utilization},
        {"kv_cache_free_memory_fraction", &Assumptions::kv_cache_free_memory_fraction},
        {"kv_block_tokens", &Assumptions::kv_block_tokens},
        {"prefill_chunk_tokens", &Assumptions::prefill_chunk_tokens},
        {"allreduce_inputs_held_share", &Assumptions::allreduce_inputs_held_share},
        {"vllm_profile_sampler_sequences", &Assumptions::vllm_profile_sampler_sequences},
        {"decode_step_overhead_s", &Assumptions::decode_step_overhead_s},
        {"llama_cpp_compute_buffer_bytes", &Assumptions::llama_cpp_compute_buffer_bytes},
        {"macos_gpu_wired_ratio", &Assumptions::macos_gpu_wired_ratio},
        {"allreduce_base_latency_s", &Assumptions::allreduce_base_latency_s},
        {"allreduce_hop_latency_s", &Assumptions::allreduce_hop_latency_s},
        {"user_read_tokens_per_s", &Assumptions::user_read_tokens_per_s},
        {"training_attention_efficiency", &Assumptions::training_attention_efficiency},
        {"training_fp8_cast_bytes_per_element", &Assumptions::training_fp8_cast_bytes_per_element},
        {"training_elementwise_bytes_per_element", &Assumptions::training_elementwise_bytes_per_element},
        {"pcie_handoff_s", &Assumptions::pcie_handoff_s},
        {"gemm_tile_elements", &Assumptions::gemm_tile_elements},
        {"moe_alltoall_overlap", &Assumptions::moe_alltoall_overlap},
        {"tensor_parallel_overlap", &Assumptions::tensor_parallel_overlap},
        {"kernel_launch_overhead_s", &Assumptions::kernel_launch_overhead_s},
        {"eager_op_host_s", &Assumptions::eager_op_host_s},
        {"python_value_round_trip_host_s", &Assumptions::python_value_round_trip_host_s},
        {"triton_launch_host_s", &Assumptions::triton_launch_host_s},
        {"strided_reduction_bandwidth_ratio", &Assumptions::strided_reduction_bandwidth_ratio},
        {"gathered_expert_one_row_bandwidth_ratio", &Assumptions::gathered_expert_one_row_bandwidth_ratio},
        {"cpu_decode_bandwidth_efficiency_low", &Assumptions::cpu_decode_bandwidth_efficiency_low},
        {"training_mfu_uncalibrated_low", &Assumptions::training_mfu_uncalibrated_low},
        {"training_mfu_uncalibrated_high", &Assumptions::training_mfu_uncalibrated_high},
        {"power_cap_idle_power_ratio", &Assumptions::power_cap_idle_power_ratio},
    };
    return kFields;
}

} // namespace

const std::vector<std::string>& assumption_names() {
    static const std::vector<std::string> kNames = [] {
        std::vector<std::string> n;
        for (const auto& f : fields()) n.push_back(f.name);
        return n;
    }();
    return kNames;
}

double Assumptions::*assumption_member(const std::string& name) {
    for (const auto& f : fields())
        if (name == f.name) return f.member;
    return nullptr;
}

AssumptionSet assumptions_for(const Catalog& catalog, const std::map<std::string, double>& overrides, Issues& issues) {
    AssumptionSet set;
    for (const auto& f : fields()) {
        auto it = catalog.assumptions.find(f.name);
        if (it == catalog.assumptions.end()) {
            issues.push_back({std::string("assumptions.") + f.name, "has no default in catalog/assumptions.json", "assumptions.json"});
            continue;
        }
        set.typical.*f.member = it->second.value;
        set.low.*f.member = it->second.low;
        set.high.*f.member = it->second.high;
        set.source[f.name] = it->second.source;
    }
    for (const auto& [key, value] : overrides) {
        const Field* field = nullptr;
        for (const auto& f : fields())
            if (key == f.name) field = &f;
        const std::string path = "assumptions." + key;
        if (!field) {
            std::string list;
            for (const auto& n : assumption_names()) list += (list.empty() ? "" : ", ") + n;
            issues.push_back({path, "unknown assumption; known: " + list});
            continue;
        }
        const auto it = catalog.assumptions.find(key);
        const bool ratio = it != catalog.assumptions.end() && it->second.unit == "ratio";
        const bool tokens = it != catalog.assumptions.end() && it->second.unit == "tokens";
        // A ratio below kMinRatio (5e-324 was seen) makes times and costs overflow to infinity; a token
        // count is whole and at least one (a block of 5e-324 tokens never finishes rounding).
        constexpr double kMinRatio = 1e-3;
        if (!(value >= 0) || (ratio && (value < kMinRatio || value > 1)) || value > 1e15) {
            issues.push_back({path, ratio ? "must be a ratio from 0.001 to 1, got " + format_sig(value, 6)
                                          : "must be a non-negative number, got " + format_sig(value, 6)});
            continue;
        }
        if (tokens && (value < 1 || value != std::floor(value))) {
            issues.push_back({path, "must be a whole number of tokens, at least 1, got " + format_sig(value, 6)});
            continue;
        }
        set.typical.*field->member = set.low.*field->member = set.high.*field->member = value;
        set.source[key] = "workload";
    }
    return set;
}

} // namespace hwplan
