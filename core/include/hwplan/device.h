// hwplan/device.h: one device of the catalog in SI units (bytes, bytes/s, FLOP/s, W, USD), as the
// loader converts it from catalog/devices/<id>.json. Figures a vendor does not publish are absent.
// Usage: const Device* d = catalog.find_device("H100 SXM");  double bw = d->bandwidth_bytes_per_s;
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hwplan {

enum class DeviceKind { gpu, tpu, cpu, soc, npu, sram_system, rack_system, accelerator };

// Peak dense throughput at one precision, in three states: not published (the catalog has no figure),
// published as unsupported (the catalog's null: no hardware path), or a positive rate.
struct PeakRate {
    bool published = false; // the catalog gives a figure or null
    bool supported = false; // the hardware has this precision
    double flop_per_s = 0;  // FLOP/s (int8: OP/s), dense, no sparsity; > 0 when supported
    bool operator==(const PeakRate&) const = default;
};

struct MigProfile {
    std::string name;        // "1g.10gb"
    double memory_bytes = 0; // memory of one instance
    int max_instances = 0;   // how many fit on one device
    bool operator==(const MigProfile&) const = default;
};

enum class PriceKind { purchase, cloud_on_demand, cloud_spot, cloud_reserved };

struct Price {
    PriceKind kind = PriceKind::purchase;
    double usd = 0;          // purchase: one unit as sold (devices_per_unit of them; a whole system by default)
    double usd_per_hour = 0; // cloud kinds: per device-hour
    std::string provider;    // where it was seen
    std::string source;      // source id in Device::sources
    double billing_increment_s = -1; // cloud kinds: billed in whole increments of this; < 0: catalog default
    int devices_per_unit = 0; // purchase: devices the unit holds (8 for an HGX server); 0 = Device::system_accelerators;
                              // cloud kinds: rented only as whole instances of this many (8 for p5.48xlarge); 0 = per device
    std::string unit;        // what is bought or rented whole ("8x H100 SXM server", "Mac Studio, 192 GB", "p5.48xlarge"); "" = the device
    bool operator==(const Price&) const = default;
};

// A reference: the document a figure was read from, where in it, and when.
struct Source {
    std::string id;
    std::string title;
    std::string publisher;
    std::string locator;    // section, table or page
    std::string url;
    std::string read_on;    // ISO date
    std::string derivation; // for derived figures: the arithmetic
    bool operator==(const Source&) const = default;
};

struct Device {
    std::string id;                   // "h100-sxm"
    std::string name;                 // "NVIDIA H100 SXM5 80GB"
    std::vector<std::string> aliases; // "H100 SXM", "H100"
    std::string vendor;
    DeviceKind kind = DeviceKind::gpu;
    std::string released;             // "2022" or "2022-03"

    double memory_bytes = 0;          // addressable memory per device
    std::string memory_type;          // "HBM3"
    double bandwidth_bytes_per_s = 0; // peak memory bandwidth
    double usable_memory_ratio = 1;   // share of memory_bytes a model may use by default (macOS GPU wiring)
    double runtime_total_bytes = 0;   // total memory the driver reports to a runtime (cudaMemGetInfo); 0 = not measured
    std::string usable_rule;          // that rule in words
    // What the device's own runtime keeps on each device before any model, communication buffers included (catalog
    // memory.runtime_reserved_MB): where recorded it replaces the GPU runtime context and engine buffers the assumptions
    // charge (runtime_context_bytes, tensor_parallel_buffer_bytes; llama.cpp's compute buffer on local runtimes).
    // < 0 = not recorded (those assumptions apply). Groq: 0, each chip's SRAM is all model memory (catalog source).
    double runtime_reserved_bytes = -1;

    PeakRate fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4; // dense peaks
    std::string compute_note;
    int streaming_multiprocessors = 0;           // SMs that run GEMM tiles side by side (wave quantisation); 0 = not recorded
    int tensor_parallel_cores = 1;               // cores one device runs as tensor-parallel ranks under its own runtime (an
                                                 // Inferentia2 chip's 2 NeuronCores; a Trainium2 chip's 8 at the default
                                                 // LNC=2, 4 logical cores); a runtime that pads heads pads to these ranks
    double vector_engine_elements_per_s = 0;     // elements the device's vector engines process per second, summed over its cores
                                                 // (NeuronCore-v2: 128 lanes x 1.12 GHz each): what a Neuron-compiled encoder's
                                                 // element-wise work runs at (runtime.h EncoderRuntime); 0 = not recorded
    double sustained_16bit_flop_per_s = 0;       // what continuous 16-bit matrix multiply sustains under the board's power cap; 0 = the peak holds
    bool sustained_16bit_measured = true;        // false: that rate is another board's rule carried over, not measured on this one

    std::string interconnect_kind;                // "nvlink4"; "" when no link is published
    double interconnect_bytes_per_s = 0;          // per-device aggregate, bidirectional, as quoted; 0 = not published
    int domain_size = 1;                          // devices in one fast domain
    // The link between one accelerator and its host CPU's memory (catalog "host_link": NVLink-C2C on Grace superchips, PCIe
    // elsewhere): what layer-wise activation offload copies over (parallel.h activation_offload_stall).
    std::string host_link_kind;                   // "nvlink-c2c", "pcie5"; "" = not recorded
    double host_link_bytes_per_s = 0;             // per device, bidirectional, as quoted; 0 = not recorded (copies unpriced)
    // The host the device is normally installed in (catalog "host": the vendor's own system, e.g. DGX A100 for the A100 SXM),
    // read where the host's CPU does the work: the optimizer step of train.cpu_offload runs on its memory bandwidth.
    std::string host_system;                      // "NVIDIA DGX A100"; "" = not recorded (the host step is unpriced)
    std::string host_cpu;                         // "2 x AMD EPYC 7742"
    int host_devices = 0;                         // accelerators that share one host's memory
    double host_memory_bytes_per_s = 0;           // the host's peak DRAM bandwidth, all sockets (channels x transfer rate x 8 bytes)
    double host_memory_sustained_bytes_per_s = 0; // what STREAM sustains on that host; 0 = not measured (the peak is used)
    double tdp_w = 0;                             // board/module power
    double min_power_w = 0;                       // lowest configurable power mode (a Jetson's nvpmodel mode); 0 = only tdp_w published

    std::string partitioning_kind;                // "mig" or ""
    std::vector<MigProfile> partitions;
    int system_accelerators = 1;                  // chips in one system (72 for an NVL72 rack)

    // Scale-out network (catalog "scale_out"): what joins one fast domain to the next, and the measured
    // small-message all-reduce times from which collectives take their latency (core/src/parallel.cpp).
    std::string scale_out_kind;                   // "infiniband-ndr", "roce-integrated", "tpu-dcn", "none"; "" = not recorded
    double scale_out_bytes_per_s = 0;             // per device, per direction (NICs x line rate / 8); 0 = none or not published
    double scale_up_allreduce_s = 0;              // measured small-message all-reduce time on the scale-up link; 0 = not published
    int scale_up_allreduce_ranks = 0;             // ranks of that measurement
    double scale_out_allreduce_s = 0;             // the same across the scale-out network; 0 = not published
    int scale_out_allreduce_ranks = 0;
    // Declared, not modelled (catalog scale_out cross_domain_training_time_unmodelled_low_ratio): how far below the
    // planned tokens/s pretraining runs that span several fast domains over this network have come in, from mechanisms
    // the layout model does not reproduce; widens the slow end of the time band, moves no point (plan.cpp). 0 = none.
    double cross_domain_training_low_ratio = 0;
    std::string system_name;

    std::vector<std::string> software;            // "cuda", "pytorch", ...
    bool can_buy = false, can_rent = false;
    std::string cloud_only;                       // "" or the one cloud ("gcp")
    bool datacenter_use = true;                   // false: its licence forbids data-centre deployment (GeForce driver EULA)
    std::string form_factor;                      // "" (not recorded) or "embedded_module" (robots), "desktop"
    std::vector<Price> prices;
    std::string purchase_unpublished;             // why no purchase price is public ("" = not stated)
    std::string rental_unpublished;               // why no rental price is public ("" = not stated)
    std::string notes;

    std::vector<Source> sources;
    std::map<std::string, std::string> source_of; // figure path ("memory.bandwidth_GBps") -> source id

    bool operator==(const Device&) const = default;
};

std::string_view name(DeviceKind k);
std::string_view name(PriceKind k);

} // namespace hwplan
