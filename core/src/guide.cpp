// guide.cpp: choose.go (lesson 004, "Code") over the catalog. The branches and thresholds are the
// lesson's; the device families are read from the catalog's kinds, memory, domains and availability.
#include "hwplan/guide.h"

#include <algorithm>

#include "hwplan/format.h"

namespace hwplan {

namespace {

std::string names(const Catalog& cat, const std::vector<std::string>& ids) {
    std::string out;
    for (const auto& id : ids)
        if (const Device* d = cat.device_by_id(id)) out += (out.empty() ? "" : ", ") + d->name;
    return out;
}

// Data-centre GPUs (NVLink/Infinity Fabric domain of 8) with at least `min_bytes`, fastest memory first.
std::vector<std::string> node_gpus(const Catalog& cat, double min_bytes, size_t n) {
    std::vector<const Device*> v;
    for (const auto& d : cat.devices)
        if (d.kind == DeviceKind::gpu && d.domain_size == 8 && d.memory_bytes >= min_bytes && d.datacenter_use) v.push_back(&d);
    std::stable_sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->bandwidth_bytes_per_s > b->bandwidth_bytes_per_s; });
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size() && i < n; ++i) out.push_back(v[i]->id);
    return out;
}

// The GPUs lesson 004 names for a job ("serve on single GPUs (H100, H200, B200, MI355X)"; fine-tuning "one to
// eight H100/H200/B200-class GPUs") that the catalog has, with at least `min_bytes` of memory; then, for a wider
// family, the data-centre node GPUs node_gpus adds (deduplicated).
std::vector<std::string> lesson_gpus(const Catalog& cat, const std::vector<const char*>& named, double min_bytes, size_t more) {
    std::vector<std::string> out;
    for (const char* id : named)
        if (const Device* d = cat.device_by_id(id); d && d->memory_bytes >= min_bytes) out.push_back(id);
    for (const auto& id : node_gpus(cat, min_bytes, more))
        if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
    return out;
}

const std::vector<const char*> kServingGpus = {"h100-sxm", "h100-pcie", "h200", "b200", "mi355x"}; // lesson 004, "Serving"
const std::vector<const char*> kFinetuneGpus = {"h100-sxm", "h100-pcie", "h200", "b200"};         // lesson 004, "Fine-tuning"

} // namespace

Guide first_cut(const Workload& w, const Catalog& cat) {
    Guide g;
    const ScaleLevel s = scale_level(w, cat);
    g.level = s.level;
    switch (w.stage) {
    case Stage::pretrain:
    case Stage::rl: {
        for (const auto& d : cat.devices)
            if (d.domain_size >= 64) g.devices.push_back(d.id);
        if (w.stage == Stage::pretrain) {
            g.recommendation = "NVL72 racks, TPU pods or Trainium3 UltraServers on an 800G+ rail fabric (catalog: " + names(cat, g.devices) + ")";
            g.why = "bound by FLOPs, network and uptime; pick by software and committed capacity";
        } else {
            g.recommendation = "the training cluster split into trainer and rollout pools (catalog: " + names(cat, g.devices) + ")";
            g.why = "rollouts are decode: size them like a serving fleet";
        }
        break;
    }
    case Stage::finetune: {
        const double p = nominal_b(w.model.params);
        if (p <= 8) {
            for (const char* id : {"rtx-5090", "l40s", "rtx-4090", "rtx-6000-ada"})
                if (cat.device_by_id(id)) g.devices.push_back(id);
            g.recommendation = "one 24-48 GB GPU with QLoRA (" + names(cat, g.devices) + ")";
            g.why = "capacity-bound; 4-bit base fits";
        } else if (p <= 70) {
            g.devices = lesson_gpus(cat, kFinetuneGpus, 80e9, 0);
            if (cat.device_by_id("rtx-pro-6000-blackwell")) g.devices.push_back("rtx-pro-6000-blackwell");
            g.recommendation = "1-8 H100/H200/B200-class GPUs, or one RTX PRO 6000 with QLoRA (" + names(cat, g.devices) + ")";
            g.why = "capacity-bound";
        } else {
            g.devices = node_gpus(cat, 80e9, 6);
            g.recommendation = "an 8-GPU node or more with FSDP (" + names(cat, g.devices) + ")";
            // choose.go's reason is full fine-tuning's; adapters keep optimizer state for themselves only.
            g.why = w.train.method == TrainMethod::full ? "16 bytes/param of optimizer state" : "the frozen base's weights across the node (adapters' optimizer state only)";
        }
        break;
    }
    case Stage::serve:
    case Stage::batch: {
        const std::string need = format_bytes(s.need_bytes);
        if (s.wide_moe) {
            for (const auto& d : cat.devices)
                if (d.domain_size >= 64) g.devices.push_back(d.id);
            g.recommendation = "NVL72, Helios or a TPU slice with wide expert parallelism (catalog: " + names(cat, g.devices) + ")";
            g.why = need + " and an all-to-all every layer";
        } else if (s.level == Scale::one_device) {
            // The lesson's single GPUs that hold the job (choose.go's 0.85 of one GPU); the fastest others when none does.
            g.devices = lesson_gpus(cat, kServingGpus, s.need_bytes / 0.85, 0);
            if (g.devices.empty()) g.devices = node_gpus(cat, s.need_bytes / 0.85, 4);
            const std::string site = w.decision.site;
            for (const auto& d : cat.devices)
                if (!d.cloud_only.empty() && (site == d.cloud_only)) g.devices.push_back(d.id);
            g.recommendation = "single GPUs (" + names(cat, g.devices) + "), or TPU/Inferentia in that cloud";
            if (w.decision.priority == Priority::per_user_speed || w.decision.priority == Priority::latency) {
                for (const auto& d : cat.devices)
                    if (d.kind == DeviceKind::sram_system) g.devices.push_back(d.id);
                g.recommendation += ", plus an SRAM decode tier";
            }
            g.why = need + " fits one GPU";
        } else {
            // Lesson 004, example 2: "One 8-GPU H200 server"; the lesson's serving GPUs first, then the fastest nodes.
            g.devices = lesson_gpus(cat, kServingGpus, 0, 8);
            g.recommendation = "an 8-GPU node with tensor parallelism (" + names(cat, g.devices) + ")";
            g.why = need + " needs several GPUs";
        }
        break;
    }
    case Stage::embed:
        g.recommendation = "a CPU worker or one GPU, batched (lesson 003: CPU for light batch jobs; GPU when tensor operations dominate)";
        g.why = "throughput at a large batch; retryable on cheaper capacity";
        for (const auto& d : cat.devices)
            if (d.kind == DeviceKind::cpu || (d.kind == DeviceKind::gpu && d.domain_size <= 1)) g.devices.push_back(d.id);
        break;
    case Stage::edge: {
        const std::string& site = w.decision.site;
        for (const auto& d : cat.devices) {
            if (site == "robot" && d.form_factor == "embedded_module") g.devices.push_back(d.id);
            if (site == "desk" && (d.form_factor == "desktop" || (d.kind == DeviceKind::soc && d.vendor == "Apple") ||
                                   d.id == "rtx-pro-6000-blackwell"))
                g.devices.push_back(d.id);
        }
        if (site == "robot") {
            // The largest-memory embedded module first: "Jetson AGX Thor" in the lesson.
            std::stable_sort(g.devices.begin(), g.devices.end(), [&](const std::string& a, const std::string& b) {
                return cat.device_by_id(a)->memory_bytes > cat.device_by_id(b)->memory_bytes;
            });
            g.recommendation = "Jetson AGX Thor (catalog embedded modules: " + names(cat, g.devices) + ")";
        } else if (site == "phone") {
            g.recommendation = "the device NPU (none in the catalog)";
        } else if (site == "desk") {
            g.recommendation = "DGX Spark, Mac Studio or an RTX PRO workstation (" + names(cat, g.devices) + ")";
        } else {
            g.recommendation = "the device decides: give decision.site (phone, robot, desk)";
        }
        g.why = "bound by power and capacity";
        break;
    }
    }
    return g;
}

} // namespace hwplan
