// feasibility.cpp: stage, size and what can be run and bought, before price (lesson 004; sources in
// feasibility.h and the catalog's availability fields).
#include "hwplan/feasibility.h"

#include <algorithm>
#include <cmath>

#include "hwplan/cost.h"
#include "hwplan/format.h"
#include "hwplan/memory.h"
#include "hwplan/precision.h"

namespace hwplan {

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }
bool training(Stage s) { return s == Stage::finetune || s == Stage::pretrain || s == Stage::rl; }
bool named_cloud(const std::string& site) { return site == "gcp" || site == "aws" || site == "azure"; }
bool any_cloud(const std::string& site) { return site == "cloud" || named_cloud(site); }

// The largest memory of one discrete GPU in the catalog (choose.go's 141 GB H200, generalized).
// A part that needs a data centre's power, cooling or chassis: a rack, an SRAM system, a TPU, an accelerator
// board, a GPU on a multi-GPU baseboard (SXM/OAM, domain > 1).
bool server_part(const Device& d) {
    return d.kind == DeviceKind::rack_system || d.kind == DeviceKind::sram_system || d.kind == DeviceKind::tpu ||
           d.kind == DeviceKind::accelerator || (d.kind == DeviceKind::gpu && d.domain_size > 1);
}

double largest_gpu_bytes(const Catalog& cat) {
    double m = 0;
    for (const auto& d : cat.devices)
        if (d.kind == DeviceKind::gpu) m = std::max(m, d.memory_bytes);
    return m;
}

} // namespace

double nominal_b(double params) { return std::round(params / 1e9); }

std::string_view name(Scale s) {
    switch (s) {
    case Scale::one_device: return "one device";
    case Scale::node: return "one node of up to 8 devices";
    case Scale::rack: return "a rack-scale domain (NVL72, a TPU slice, an UltraServer)";
    }
    return "";
}

std::string binding_resource(Stage s) {
    switch (s) {
    case Stage::pretrain: return "FLOPs, network and uptime";
    case Stage::rl: return "generation bandwidth, then expert all-to-all";
    case Stage::finetune: return "capacity";
    case Stage::serve: return "capacity, then bandwidth";
    case Stage::batch: return "throughput at a large batch, then capacity";
    case Stage::embed: return "throughput at a large batch (batching matters more than first-token latency)";
    case Stage::edge: return "power and capacity";
    }
    return "";
}

// choose.go: need = params x bytes/param + KV budget; MoE >= 400B -> wide expert parallelism; need <= 0.85
// x one GPU -> single GPUs; else an 8-GPU node. Fine-tuning by size (<= 8B one GPU, <= 70B 1-8 GPUs).
ScaleLevel scale_level(const Workload& w, const Catalog& cat) {
    ScaleLevel s;
    const double params = w.model.params;
    s.wide_moe = w.model.model.arch.has_moe && params >= 400e9;
    const double one = 0.85 * largest_gpu_bytes(cat);
    switch (w.stage) {
    case Stage::serve:
    case Stage::batch:
    case Stage::rl: {
        const WeightFormat* f = cat.find_format(w.precision.weights);
        const double weights = params * (f ? f->bits_per_weight : 16) / 8;
        const auto kvp = parse_precision(w.precision.kv_cache);
        // The same KV cache the memory estimate counts: sliding-window layers hold at most their window.
        const double kv = kv_bytes_per_sequence(w.model.model.arch, kvp ? bytes_per_value(*kvp) : 2, w.serve.context_tokens) *
                          w.serve.concurrent_users;
        s.need_bytes = weights + kv;
        const std::string need = format_bytes(weights) + " of weights + " + format_bytes(kv) + " of KV cache (" +
                                 format_sig(w.serve.concurrent_users, 6) + (w.serve.concurrent_users == 1 ? " user x " : " users x ") +
                                 format_sig(w.serve.context_tokens, 6) + " tokens)";
        if (s.wide_moe || (w.stage == Stage::rl && params >= 400e9)) {
            s.level = Scale::rack;
            s.why = format_count(params) + "-parameter MoE: " + need + " and an all-to-all every layer";
        } else if (s.need_bytes <= one) {
            s.level = Scale::one_device;
            s.why = need + " fits one GPU (0.85 x " + format_bytes(one / 0.85) + ", the catalog's largest)";
        } else if (s.need_bytes <= 8 * one) {
            s.level = Scale::node;
            s.why = need + " needs several GPUs: tensor parallel inside one node";
        } else {
            s.level = Scale::rack;
            s.why = need + " is more than one node of 8 holds";
        }
        break;
    }
    case Stage::finetune:
        s.level = nominal_b(params) <= 8 ? Scale::one_device : Scale::node;
        // choose.go's "16 bytes/param of optimizer state" is full fine-tuning's (mixed-precision Adam keeps it for
        // every parameter); LoRA and QLoRA keep optimizer state for the adapters only.
        s.why = nominal_b(params) <= 8 ? "up to ~8B parameters: one 24-48 GB GPU with QLoRA"
                : nominal_b(params) <= 70 ? "8B-70B parameters: one to eight GPUs"
                : w.train.method == TrainMethod::full ? "above 70B: an 8-GPU node or more with FSDP (16 bytes/param of optimizer state)"
                                                      : "above 70B: an 8-GPU node or more with FSDP (the frozen base's weights need more than one node's worth of "
                                                        "small GPUs; optimizer state is the adapters' only)";
        break;
    case Stage::pretrain:
        s.level = Scale::rack;
        s.why = "pretraining: the largest fast domain you can get and a network that will not stall it";
        break;
    case Stage::embed:
    case Stage::edge:
        s.level = Scale::one_device;
        s.why = w.stage == Stage::edge ? "the device decides" : "an encoder batch job on one device";
        break;
    }
    return s;
}

std::string effective_stack(const Workload& w) {
    if (!w.decision.stack.empty()) return w.decision.stack;
    if (!w.decision.implied_stack.empty()) return w.decision.implied_stack; // the stack the named runtime runs on
    return named_cloud(w.decision.site) ? "any" : "pytorch-cuda";
}

// A stack runs where the catalog's software list (sourced per device) has its runtime.
bool runs_stack(const Device& d, const std::string& stack) {
    const auto& sw = d.software;
    if (stack.empty() || stack == "any") return true;
    // A CPU worker runs the same PyTorch code on its CPU backend (lesson 003: "A CPU can be enough for small
    // classical models, light batch jobs, and orchestration").
    const bool cpu_torch = d.kind == DeviceKind::cpu && has(sw, "pytorch");
    if (stack == "pytorch-cuda") return has(sw, "cuda") || cpu_torch;
    if (stack == "pytorch-rocm") return has(sw, "rocm") || cpu_torch;
    if (stack == "jax-xla") return has(sw, "xla") || (has(sw, "jax") && !has(sw, "cuda") && !has(sw, "rocm")) || d.kind == DeviceKind::tpu;
    if (stack == "aws-neuron") return has(sw, "neuron");
    if (stack == "intel-gaudi") return has(sw, "synapseai");
    if (stack == "mlx-metal") return has(sw, "mlx") || has(sw, "metal");
    if (stack == "llama.cpp") return has(sw, "llama.cpp");
    return false;
}

std::vector<std::string> clouds_of(const Device& d) {
    std::vector<std::string> out;
    if (!d.cloud_only.empty()) out.push_back(d.cloud_only);
    for (const auto& p : d.prices)
        if (const std::string cloud = cloud_of(p); !cloud.empty() && !has(out, cloud)) out.push_back(cloud);
    return out;
}

// Every check before price, in the order the reasons are listed: `add(Elimination, words)` for each failed one, where
// `words()` builds its reason only when asked (a re-decision compares options without reading them).
template <class Add>
void check_feasibility(const Device& d, const Workload& w, const std::string& kind, int count, const ScaleLevel& s, int replica_devices,
                       Add add) {
    const int group = replica_devices > 0 ? replica_devices : count; // one replica's devices
    const bool own = kind == "own";
    const std::string& site = w.decision.site;
    // Stage: an SRAM system is a decode tier (lesson 004: "add an SRAM decode tier (Groq LPX, Cerebras) and
    // keep GPUs for prefill"), not a trainer.
    if (d.kind == DeviceKind::sram_system && training(w.stage))
        add(Elimination::stage, [] { return std::string("stage: an SRAM system is a decode tier for serving, not a trainer (lesson 004)"); });
    // Software the team runs.
    // A rented SRAM decode tier is served by its vendor (GroqCloud, Cerebras inference): the team's own stack
    // does not have to run on it.
    const bool vendor_served = d.kind == DeviceKind::sram_system && !own && !training(w.stage);
    if (!vendor_served && !runs_stack(d, effective_stack(w)))
        add(Elimination::software, [&] {
            std::string sw;
            for (const auto& x : d.software) sw += (sw.empty() ? "" : ", ") + x;
            return "software: does not run " + effective_stack(w) + " (runs " + sw + ")";
        });
    // Where it runs.
    if (site == "own_datacenter") {
        if (!own) add(Elimination::site, [] { return std::string("site: your own data centre; renting runs it in a provider's"); });
        else if (!d.can_buy)
            add(Elimination::site, [&] { return "site: cannot be bought" + (d.cloud_only.empty() ? std::string() : " (only in " + d.cloud_only + ")"); });
        if (!d.datacenter_use)
            add(Elimination::licence, [] { return std::string("licence: its driver licence forbids data-centre deployment (GeForce EULA 2.1.3)"); });
        if (d.form_factor == "embedded_module")
            add(Elimination::site, [] { return std::string("site: an embedded module for robots, not a data-centre server"); });
    } else if (any_cloud(site)) {
        if (own) add(Elimination::site, [&] { return "site: " + site + "; owned hardware is not there"; });
        else if (!d.can_rent) add(Elimination::site, [] { return std::string("site: not offered for rent"); });
        else if (named_cloud(site) && !has(clouds_of(d), site))
            add(Elimination::site, [&] { return "site: the catalog shows no " + site + " offer of it (cloud_only and rental price sources)"; });
    } else if (site == "desk" || site == "robot" || site == "phone") {
        if (!own) add(Elimination::site, [&] { return "site: a " + site + "; it must be owned and on site"; });
        else if (!d.can_buy) add(Elimination::site, [] { return std::string("site: cannot be bought"); });
        if (site == "phone") add(Elimination::site, [] { return std::string("site: the catalog has no phone NPU"); });
        if (site == "robot" && d.form_factor != "embedded_module")
            add(Elimination::site, [&] {
                return "site: a robot needs an embedded module within its power envelope (" +
                       (d.tdp_w > 0 ? format_sig(d.tdp_w, 4) + " W board" : std::string("no published power")) + ")";
            });
        if (site == "desk" && server_part(d))
            add(Elimination::site, [] { return std::string("site: a data-centre part (server board or rack), not a desk machine"); });
    } else if (site == "office") {
        // A desk or an office, renting allowed: what is bought stands there (no colocation, cost.cpp
        // pays_colocation), a rental or a hosted API runs in the provider's data centre.
        if (own && !d.can_buy) add(Elimination::site, [] { return std::string("site: cannot be bought"); });
        if (own && server_part(d))
            add(Elimination::site, [] { return std::string("site: a data-centre part (server board or rack), not for a desk or an office"); });
    }
    if (w.decision.data_on_premises && !own)
        add(Elimination::data, [] { return std::string("data: must stay on premises; a rental is someone else's hardware"); });
    // Size: the level of scale against the device's fast scale-up domain.
    // Serving a wide MoE: one replica's expert-parallel group must sit inside the fast domain. (Training
    // spans domains over the scale-out fabric; there the largest domain ranks first, decide.cpp.)
    if (s.level == Scale::rack && s.wide_moe && !training(w.stage) && group > std::max(1, d.domain_size))
        add(Elimination::scale, [&] {
            return "scale: needs " + std::to_string(group) + " devices in one expert-parallel group; its fast domain holds " +
                   std::to_string(std::max(1, d.domain_size)) + ", so the all-to-all would cross the slower scale-out network";
        });
    if (own && s.level != Scale::rack && d.system_accelerators > 8 && count <= 8)
        add(Elimination::scale, [&] {
            return "scale: uses " + std::to_string(count) + " of the " + std::to_string(d.system_accelerators) + " accelerators of a " +
                   (d.system_name.empty() ? std::string("rack-scale system") : d.system_name) + " that is bought whole: wasted";
        });
}

std::vector<std::string> eliminations(const Device& d, const Workload& w, const std::string& kind, int count, const ScaleLevel& s,
                                      int replica_devices) {
    std::vector<std::string> out;
    check_feasibility(d, w, kind, count, s, replica_devices, [&](Elimination, auto words) { out.push_back(words()); });
    return out;
}

std::vector<Elimination> eliminated_by(const Device& d, const Workload& w, const std::string& kind, int count, const ScaleLevel& s,
                                       int replica_devices) {
    std::vector<Elimination> out;
    check_feasibility(d, w, kind, count, s, replica_devices, [&](Elimination why, auto) { out.push_back(why); });
    return out;
}

double lowest_power_w(const Device& d) { return d.min_power_w > 0 ? d.min_power_w : d.tdp_w; }

bool over_power_budget(const Device& d, const Workload& w, int devices) {
    const double budget = w.decision.power_budget_w;
    if (!(budget > 0)) return false;
    const double each = lowest_power_w(d);
    return !(each > 0) || each * std::max(1, devices) > budget;
}

std::string power_budget_elimination(const Device& d, const Workload& w, int devices) {
    if (!over_power_budget(d, w, devices)) return "";
    const double budget = w.decision.power_budget_w;
    const std::string budget_words = "the " + format_sig(budget, 6) + " W budget (decision.power_budget_w)";
    const double each = lowest_power_w(d);
    if (!(each > 0)) return "power budget: no published power figure to hold against " + budget_words;
    const double draw = each * std::max(1, devices);
    const std::string which = d.min_power_w > 0 ? "in its lowest power mode (catalog power.min_W)"
                                                : "at its board power (catalog tdp_W; no lower power mode in the catalog)";
    return "power budget: " + std::to_string(std::max(1, devices)) + " x " + format_sig(each, 4) + " W " + which + " = " +
           format_sig(draw, 4) + " W, over " + budget_words;
}

// The hosted API's checks before price, as check_feasibility's: `add(Elimination, words)` for each failed one.
template <class Add>
void check_api(const Workload& w, Add add) {
    const std::string& site = w.decision.site;
    if (site == "own_datacenter" || site == "desk" || site == "robot" || site == "phone")
        add(Elimination::site, [&] { return "site: " + site + "; a hosted API runs in the provider's data centre"; });
    if (w.decision.data_on_premises)
        add(Elimination::data, [] { return std::string("data: must stay on premises; a hosted API sends it to the provider"); });
    if (!w.decision.stack.empty() && w.decision.stack != "any")
        add(Elimination::software, [&] { return "software: a hosted API does not run " + w.decision.stack; });
}

std::vector<std::string> api_eliminations(const Workload& w) {
    std::vector<std::string> out;
    check_api(w, [&](Elimination, auto words) { out.push_back(words()); });
    return out;
}

std::vector<Elimination> api_eliminated_by(const Workload& w) {
    std::vector<Elimination> out;
    check_api(w, [&](Elimination why, auto) { out.push_back(why); });
    return out;
}

} // namespace hwplan
