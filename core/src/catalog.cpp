// catalog.cpp: loads and validates the catalog's JSON files and converts every figure to SI, once.
// Every problem becomes an Issue naming the file, the dotted path and the reason (see json_reader.h).
// Each file kind's reader is kept out of line ([[gnu::noinline]]): load_catalog runs once, and with every reader inlined
// its loop was a 40 KB WebAssembly function that the browser's engine compiled a second time, optimised, in the
// background on the page's start (0.6-1.1 s of a core per load) for a function that never runs again (BENCHMARKS.md,
// "The page's start: background compiles").
#include "hwplan/catalog.h"
#include "hwplan/assumptions.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include "hwplan/format.h"
#include "hwplan/units.h"
#include "hwplan/workload.h"
#include "json_reader.h"

namespace hwplan {

namespace {

using namespace detail;

// [SECTION] Sources: every figure group names a reference with a title, a locator and a date ------

bool is_iso_date(const std::string& s) {
    if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
    for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    const int month = std::stoi(s.substr(5, 2)), day = std::stoi(s.substr(8, 2));
    return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

struct SourceBook {
    std::vector<Source> sources;
    std::set<std::string> used;
    std::map<std::string, std::string> source_of; // figure path -> source id

    bool known(const std::string& id) const {
        return std::any_of(sources.begin(), sources.end(), [&](const Source& s) { return s.id == id; });
    }
};

void read_sources(Reader& r, SourceBook& book) {
    r.object("sources", true, [&](Reader& s) {
        for (const auto& [id, value] : s.json_value().items()) {
            s.raw(id);
            if (!value.is_object()) {
                s.error(id, "expected an object, got " + type_name(value));
                continue;
            }
            Reader ref(s.ctx(), s.at(id), value);
            Source src;
            src.id = id;
            src.title = ref.string("title", true).value_or("");
            src.publisher = ref.string("publisher", false).value_or("");
            src.locator = ref.string("locator", true).value_or("");
            src.url = ref.string("url", false).value_or("");
            src.read_on = ref.string("read_on", true).value_or("");
            if (ref.has("read_on") && !src.read_on.empty() && !is_iso_date(src.read_on)) {
                ref.error("read_on", "expected an ISO date YYYY-MM-DD, got \"" + src.read_on + "\"");
            }
            src.derivation = ref.string("derivation", false).value_or("");
            ref.finish();
            book.sources.push_back(std::move(src));
        }
        if (s.json_value().empty()) s.ctx().add(s.path(), "must list at least one reference");
    });
}

// The group's "source" and "source_overrides": records figure path -> source id for each figure key.
// Call after reading the group's figures; `figures` are the keys present in the group.
void attach_source(Reader& g, SourceBook& book, const std::vector<std::string>& figures) {
    const bool has_figures = std::any_of(figures.begin(), figures.end(), [&](const std::string& k) { return g.has(k); });
    auto id = g.string("source", has_figures);
    if (id && !book.known(*id)) {
        g.error("source", "names \"" + *id + "\", which is not in sources");
        id.reset();
    }
    if (id) book.used.insert(*id);
    std::map<std::string, std::string> overrides;
    g.object("source_overrides", false, [&](Reader& o) {
        for (const auto& [key, value] : o.json_value().items()) {
            o.raw(key);
            if (!value.is_string()) {
                o.error(key, "expected a source id, got " + type_name(value));
            } else if (std::find(figures.begin(), figures.end(), key) == figures.end() || !g.has(key)) {
                o.error(key, "is not a figure of this group");
            } else if (!book.known(value.get<std::string>())) {
                o.error(key, "names \"" + value.get<std::string>() + "\", which is not in sources");
            } else {
                overrides[key] = value.get<std::string>();
                book.used.insert(value.get<std::string>());
            }
        }
    });
    for (const auto& k : figures) {
        if (!g.has(k)) continue;
        auto it = overrides.find(k);
        if (it != overrides.end())
            book.source_of[g.at(k)] = it->second;
        else if (id)
            book.source_of[g.at(k)] = *id;
    }
}

void check_sources_used(Reader& r, const SourceBook& book) {
    for (const auto& s : book.sources)
        if (!book.used.count(s.id)) r.ctx().add("sources." + s.id, "is not used by any figure");
}

// [SECTION] Common keys -------------------------------------------------------------------------

bool valid_id(const std::string& id) {
    if (id.empty()) return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    });
}

// The id: lower-case [a-z0-9.-], and equal to the file name stem when the entry has a file.
std::string read_id(Reader& r, const std::string& stem) {
    auto id = r.string("id", true);
    if (!id) return "";
    if (!valid_id(*id)) {
        r.error("id", "must be lower-case letters, digits, '-' and '.', got \"" + *id + "\"");
        return "";
    }
    if (!stem.empty() && *id != stem) {
        r.error("id", "\"" + *id + "\" must equal the file name \"" + stem + "\"");
        return "";
    }
    return *id;
}

std::string file_stem(const std::string& path) {
    auto slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    auto dot = name.rfind(".json");
    return dot == std::string::npos ? name : name.substr(0, dot);
}

// [SECTION] Devices -----------------------------------------------------------------------------

const std::vector<std::string> kDeviceKinds{"gpu", "tpu", "cpu", "soc", "npu", "sram_system", "rack_system", "accelerator"};
const std::vector<std::string> kSoftware{
    "cuda",     "rocm", "xla",     "jax",  "pytorch", "pytorch-xla", "tensorrt-llm", "vllm",      "sglang",
    "metal",    "mps",  "mlx",     "llama.cpp", "neuron", "openvino", "onnxruntime", "qnn",     "coreml",
    "groqcloud", "cerebras-sdk", "synapseai"};
const std::vector<std::string> kPriceKinds{"purchase", "cloud_on_demand", "cloud_spot", "cloud_reserved"};

DeviceKind device_kind(const std::string& s) {
    for (size_t i = 0; i < kDeviceKinds.size(); ++i)
        if (kDeviceKinds[i] == s) return static_cast<DeviceKind>(i);
    return DeviceKind::gpu;
}

PriceKind price_kind(const std::string& s) {
    for (size_t i = 0; i < kPriceKinds.size(); ++i)
        if (kPriceKinds[i] == s) return static_cast<PriceKind>(i);
    return PriceKind::purchase;
}

// Plausible ranges in SI (per device). SRAM systems (Cerebras wafer-scale) exceed HBM bandwidths by 100x.
constexpr double kMinMemoryBytes = 1e8, kMaxMemoryBytes = 1e13;
constexpr double kMinBandwidth = 1e9, kMaxBandwidth = 1e14, kMaxSramBandwidth = 1e17;
constexpr double kMinTflops = 1e-3, kMaxTflops = 1e6;

// One precision's dense peak: a number (TFLOPS), null (not supported in hardware), or absent.
PeakRate read_peak(Reader& c, const std::string& key) {
    PeakRate p;
    if (!c.has(key)) {
        c.raw(key);
        return p;
    }
    if (c.json_value().at(key).is_null()) {
        c.raw(key);
        p.published = true;
        return p;
    }
    if (auto t = c.number(key, true, kMinTflops, kMaxTflops)) {
        p.published = true;
        p.supported = true;
        p.flop_per_s = *t * kTera;
    }
    return p;
}

[[gnu::noinline]] std::optional<Device> read_device(const json& doc, const Context& ctx, const std::string& stem) {
    const size_t issues_before = ctx.issues.size();
    Reader r(ctx, "", doc);
    Device d;
    SourceBook book;
    read_sources(r, book);
    d.id = read_id(r, stem);
    d.name = r.string("name", true).value_or("");
    d.aliases = r.strings("aliases", false);
    d.vendor = r.string("vendor", true).value_or("");
    if (auto k = r.choice("kind", true, kDeviceKinds)) d.kind = device_kind(*k);
    d.released = r.string("released", false).value_or("");
    d.notes = r.string("notes", false).value_or("");

    r.object("memory", true, [&](Reader& m) {
        auto gb = m.number("capacity_GB", false, kMinMemoryBytes / kGB, kMaxMemoryBytes / kGB);
        auto gib = m.number("capacity_GiB", false, kMinMemoryBytes / kGiB, kMaxMemoryBytes / kGiB);
        if (m.has("capacity_GB") && m.has("capacity_GiB"))
            m.error("capacity_GB", "give capacity_GB or capacity_GiB, not both");
        else if (!m.has("capacity_GB") && !m.has("capacity_GiB"))
            m.error("capacity_GB", "required field is missing (or capacity_GiB)");
        d.memory_bytes = gb ? *gb * kGB : gib ? *gib * kGiB : 0;
        d.memory_type = m.string("type", true).value_or("");
        const double max_bw = d.kind == DeviceKind::sram_system ? kMaxSramBandwidth : kMaxBandwidth;
        d.bandwidth_bytes_per_s = m.number("bandwidth_GBps", true, kMinBandwidth / kGB, max_bw / kGB).value_or(0) * kGB;
        if (m.has("usable_ratio")) {
            auto u = m.number("usable_ratio", false, 0.0, 1.0);
            if (u && *u <= 0) m.error("usable_ratio", "must be above 0");
            else if (u) d.usable_memory_ratio = *u;
        }
        d.usable_rule = m.string("usable_rule", false).value_or("");
        // What the driver reports to a runtime as the device's total (cudaMemGetInfo, torch's total_memory): the
        // memory chips' size less what the driver keeps. A datasheet's "80 GB" of HBM is 80 GiB of chips, so the
        // reading may exceed capacity_GB x 1e9 but not the capacity read in GiB.
        if (m.has("runtime_total_GiB")) {
            auto t = m.number("runtime_total_GiB", false, kMinMemoryBytes / kGiB, kMaxMemoryBytes / kGiB);
            const double chips_GiB = gb ? *gb : gib ? *gib : 0;
            if (t && chips_GiB > 0 && *t > chips_GiB * (1 + 1e-9))
                m.error("runtime_total_GiB", "must not exceed the capacity read in GiB (" + format_sig(chips_GiB, 6) + "), got " + format_sig(*t, 6));
            else if (t) d.runtime_total_bytes = *t * kGiB;
        }
        // What the device's own runtime reserves on each device before any model (0 where the vendor's compiler lays the
        // whole memory out for the model): replaces the GPU runtime context the assumptions charge (plan_facts.cpp).
        if (m.has("runtime_reserved_MB")) {
            auto r = m.number("runtime_reserved_MB", false, 0.0, kMaxMemoryBytes / 1e6);
            const double cap = d.memory_bytes;
            if (r && cap > 0 && *r * 1e6 >= cap)
                m.error("runtime_reserved_MB", "must be below the capacity (" + format_sig(cap / 1e6, 6) + " MB), got " + format_sig(*r, 6));
            else if (r) d.runtime_reserved_bytes = *r * 1e6;
        }
        m.string("note", false);
        attach_source(m, book, {"capacity_GB", "capacity_GiB", "type", "bandwidth_GBps", "usable_ratio", "usable_rule", "runtime_total_GiB",
                                "runtime_reserved_MB"});
    });

    r.object("compute", true, [&](Reader& c) {
        d.fp64 = read_peak(c, "fp64_dense_TFLOPS");
        d.fp32 = read_peak(c, "fp32_dense_TFLOPS");
        d.tf32 = read_peak(c, "tf32_dense_TFLOPS");
        d.bf16 = read_peak(c, "bf16_dense_TFLOPS");
        d.fp16 = read_peak(c, "fp16_dense_TFLOPS");
        d.fp8 = read_peak(c, "fp8_dense_TFLOPS");
        d.int8 = read_peak(c, "int8_dense_TOPS");
        d.fp4 = read_peak(c, "fp4_dense_TFLOPS");
        d.compute_note = c.string("note", false).value_or("");
        d.streaming_multiprocessors = c.integer("streaming_multiprocessors", false, 1, 100000).value_or(0);
        d.tensor_parallel_cores = c.integer("tensor_parallel_cores", false, 1, 1024).value_or(1);
        d.vector_engine_elements_per_s = c.number("vector_engine_Gelements_per_s", false, 1, 1e6).value_or(0) * 1e9;
        d.sustained_16bit_flop_per_s = c.number("sustained_16bit_TFLOPS", false, 0.001, 1e6).value_or(0) * 1e12;
        d.sustained_16bit_measured = c.boolean("sustained_16bit_measured", false).value_or(true);
        if (!d.sustained_16bit_measured && d.sustained_16bit_flop_per_s <= 0)
            c.ctx().add(c.path() + ".sustained_16bit_measured", "needs sustained_16bit_TFLOPS: it says whether that rate was measured on this board");
        const std::vector<std::string> keys{"fp64_dense_TFLOPS", "fp32_dense_TFLOPS", "tf32_dense_TFLOPS",
                                            "bf16_dense_TFLOPS", "fp16_dense_TFLOPS", "fp8_dense_TFLOPS",
                                            "int8_dense_TOPS",   "fp4_dense_TFLOPS"};
        if (std::none_of(keys.begin(), keys.end(), [&](const std::string& k) {
                return c.has(k) && c.json_value().at(k).is_number();
            }))
            c.ctx().add(c.path(), "needs at least one published peak (a dense TFLOPS figure)");
        std::vector<std::string> figures = keys;
        figures.push_back("streaming_multiprocessors");
        figures.push_back("tensor_parallel_cores");
        figures.push_back("vector_engine_Gelements_per_s");
        figures.push_back("sustained_16bit_TFLOPS");
        attach_source(c, book, figures);
    });

    // Absent group: no public figure for a scale-up link (the device counts as a domain of one).
    // Absent bandwidth_GBps: the link exists but its speed is not published.
    r.object("interconnect", false, [&](Reader& i) {
        d.interconnect_kind = i.string("kind", true).value_or("");
        d.interconnect_bytes_per_s = i.number("bandwidth_GBps", false, 1.0, 1e5).value_or(0) * kGB;
        if (d.interconnect_kind == "none" && d.interconnect_bytes_per_s > 0)
            i.error("bandwidth_GBps", "a link of kind \"none\" has no bandwidth");
        d.domain_size = i.integer("domain_size", true, 1, 1000000).value_or(1);
        i.string("note", false);
        attach_source(i, book, {"bandwidth_GBps", "domain_size"});
    });

    // Absent group: no public figure for the accelerator's link to its host's memory (host-device copies are then unpriced).
    r.object("host_link", false, [&](Reader& h) {
        d.host_link_kind = h.string("kind", true).value_or("");
        d.host_link_bytes_per_s = h.number("bandwidth_GBps", true, 1.0, 1e5).value_or(0) * kGB;
        h.string("note", false);
        attach_source(h, book, {"bandwidth_GBps"});
    });

    // Absent group: the host the device is normally installed in is not recorded (a host-side optimizer step is then unpriced).
    r.object("host", false, [&](Reader& h) {
        d.host_system = h.string("system", true).value_or("");
        d.host_cpu = h.string("cpu", true).value_or("");
        d.host_devices = h.integer("devices_per_host", true, 1, 1000).value_or(0);
        d.host_memory_bytes_per_s = h.number("memory_bandwidth_GBps", true, 1.0, 1e5).value_or(0) * kGB;
        d.host_memory_sustained_bytes_per_s = h.number("memory_sustained_GBps", false, 1.0, 1e5).value_or(0) * kGB;
        if (d.host_memory_sustained_bytes_per_s > d.host_memory_bytes_per_s)
            h.error("memory_sustained_GBps", "exceeds memory_bandwidth_GBps (the peak)");
        h.string("note", false);
        attach_source(h, book, {"system", "cpu", "devices_per_host", "memory_bandwidth_GBps", "memory_sustained_GBps"});
    });

    r.object("power", false, [&](Reader& p) {
        d.tdp_w = p.number("tdp_W", true, 0.5, 1e5).value_or(0);
        d.min_power_w = p.number("min_W", false, 0.5, 1e5).value_or(0);
        if (d.min_power_w > 0 && d.tdp_w > 0 && d.min_power_w > d.tdp_w)
            p.error("min_W", "is above tdp_W (" + format_sig(d.tdp_w, 6) + "): the lowest power mode cannot draw more than the maximum");
        p.string("note", false);
        attach_source(p, book, {"tdp_W", "min_W"});
    });

    r.object("partitioning", false, [&](Reader& p) {
        d.partitioning_kind = p.string("kind", true).value_or("");
        const json* profiles = p.raw("profiles");
        if (!profiles) p.error("profiles", "required field is missing");
        else if (!profiles->is_array()) p.error("profiles", "expected an array, got " + type_name(*profiles));
        else
            for (size_t i = 0; i < profiles->size(); ++i) {
                const std::string path = p.at("profiles") + "[" + std::to_string(i) + "]";
                if (!(*profiles)[i].is_object()) {
                    p.ctx().add(path, "expected an object, got " + type_name((*profiles)[i]));
                    continue;
                }
                Reader pr(p.ctx(), path, (*profiles)[i]);
                MigProfile mp;
                mp.name = pr.string("name", true).value_or("");
                mp.memory_bytes = pr.number("memory_GB", true, 0.1, kMaxMemoryBytes / kGB).value_or(0) * kGB;
                mp.max_instances = pr.integer("max_instances", true, 1, 64).value_or(0);
                pr.finish();
                d.partitions.push_back(mp);
            }
        p.string("note", false);
        attach_source(p, book, {"profiles"});
    });

    r.object("system", false, [&](Reader& s) {
        d.system_accelerators = s.integer("accelerators", true, 1, 1000000).value_or(1);
        d.system_name = s.string("name", false).value_or("");
        s.string("note", false);
        attach_source(s, book, {"accelerators"});
    });

    // Scale-out network: a per-device rate (per_device_Gbps) or NICs per device x their line rate, and
    // optional measured small-message all-reduce times (catalog/README.md, "scale_out group").
    r.object("scale_out", false, [&](Reader& n) {
        d.scale_out_kind = n.string("kind", true).value_or("");
        auto nics = n.number("nics_per_device", false, 0.0, 64.0);
        auto rate = n.number("nic_Gbps", false, 1.0, 1e5);
        auto per = n.number("per_device_Gbps", false, 0.0, 1e6);
        if (nics.has_value() != rate.has_value())
            n.error(nics ? "nic_Gbps" : "nics_per_device", "nics_per_device and nic_Gbps go together");
        double gbps = per.value_or(nics && rate ? *nics * *rate : 0);
        if (per && nics && rate && std::abs(*per - *nics * *rate) > 1e-6 * *per)
            n.error("per_device_Gbps", "disagrees with nics_per_device x nic_Gbps");
        if (d.scale_out_kind == "none" && gbps > 0) n.error("kind", "a network of kind \"none\" has no rate");
        d.scale_out_bytes_per_s = gbps * 1e9 / 8.0;
        auto read_latency = [&](const std::string& us_key, const std::string& ranks_key, double& s, int& ranks) {
            auto us = n.number(us_key, false, 0.01, 1e5);
            auto k = n.integer(ranks_key, false, 2, 1000000);
            if (us.has_value() != k.has_value()) n.error(us ? ranks_key : us_key, us_key + " and " + ranks_key + " go together");
            else if (us) { s = *us * 1e-6; ranks = *k; }
        };
        read_latency("scale_up_allreduce_us", "scale_up_allreduce_ranks", d.scale_up_allreduce_s, d.scale_up_allreduce_ranks);
        read_latency("scale_out_allreduce_us", "scale_out_allreduce_ranks", d.scale_out_allreduce_s, d.scale_out_allreduce_ranks);
        d.cross_domain_training_low_ratio = n.number("cross_domain_training_time_unmodelled_low_ratio", false, 0.0, 0.95).value_or(0);
        n.string("note", false);
        attach_source(n, book, {"nics_per_device", "nic_Gbps", "per_device_Gbps", "scale_up_allreduce_us", "scale_up_allreduce_ranks",
                                "scale_out_allreduce_us", "scale_out_allreduce_ranks", "cross_domain_training_time_unmodelled_low_ratio"});
    });

    d.software = r.strings("software", true);
    for (size_t i = 0; i < d.software.size(); ++i)
        if (std::find(kSoftware.begin(), kSoftware.end(), d.software[i]) == kSoftware.end())
            ctx.add("software[" + std::to_string(i) + "]",
                    "unknown ecosystem \"" + d.software[i] + "\" (catalog/README.md lists the known ones)");

    r.object("availability", true, [&](Reader& a) {
        d.can_buy = a.boolean("buy", true).value_or(false);
        d.can_rent = a.boolean("rent", true).value_or(false);
        const json* c = a.raw("cloud_only");
        if (!c) a.error("cloud_only", "required field is missing (null when the device is not tied to one cloud)");
        else if (c->is_string() && !c->get<std::string>().empty()) d.cloud_only = c->get<std::string>();
        else if (!c->is_null()) a.error("cloud_only", "expected null or a cloud name, got " + type_name(*c));
        if (auto dc = a.boolean("datacenter_use", false)) d.datacenter_use = *dc;
        if (auto ff = a.choice("form_factor", false, {"embedded_module", "desktop"})) d.form_factor = *ff;
        a.string("note", false);
        attach_source(a, book, {"datacenter_use", "form_factor"});
    });

    const json* prices = r.raw("prices");
    if (!prices) r.error("prices", "required field is missing (an empty array when no price is public)");
    else if (!prices->is_array()) r.error("prices", "expected an array, got " + type_name(*prices));
    else
        for (size_t i = 0; i < prices->size(); ++i) {
            const std::string path = "prices[" + std::to_string(i) + "]";
            if (!(*prices)[i].is_object()) {
                ctx.add(path, "expected an object, got " + type_name((*prices)[i]));
                continue;
            }
            Reader pr(ctx, path, (*prices)[i]);
            Price price;
            auto kind = pr.choice("kind", true, kPriceKinds);
            if (kind) price.kind = price_kind(*kind);
            if (kind && *kind == "purchase") {
                price.usd = pr.number("usd", true, 1.0, 1e9).value_or(0);
                price.devices_per_unit = pr.integer("devices_per_unit", false, 1, 1000000).value_or(0);
                price.unit = pr.string("unit", false).value_or("");
            } else if (kind) {
                price.usd_per_hour = pr.number("usd_per_hour", true, 0.001, 1e4).value_or(0);
                price.billing_increment_s = pr.number("billing_increment_s", false, 0.001, 86400).value_or(-1);
                // Rented only as whole instances of this many devices (an 8-GPU instance, a rack); absent: per device.
                price.devices_per_unit = pr.integer("devices_per_unit", false, 1, 1000000).value_or(0);
                price.unit = pr.string("unit", false).value_or("");
            }
            price.provider = pr.string("provider", true).value_or("");
            pr.string("note", false);
            pr.string("date", false);
            attach_source(pr, book, {"usd", "usd_per_hour", "billing_increment_s", "devices_per_unit"});
            price.source = book.source_of.count(pr.at("usd")) ? book.source_of[pr.at("usd")]
                                                               : book.source_of[pr.at("usd_per_hour")];
            pr.finish();
            d.prices.push_back(price);
        }

    // Why no price is public, per kind, in words (optional "source": the page that says so).
    r.object("price_unpublished", false, [&](Reader& u) {
        d.purchase_unpublished = u.string("purchase", false).value_or("");
        d.rental_unpublished = u.string("rental", false).value_or("");
        if (!u.has("purchase") && !u.has("rental")) u.ctx().add(u.path(), "must give a \"purchase\" or a \"rental\" reason");
        attach_source(u, book, {});
    });

    check_sources_used(r, book);
    r.finish();
    if (ctx.issues.size() != issues_before) return std::nullopt;
    d.sources = std::move(book.sources);
    d.source_of = std::move(book.source_of);
    return d;
}

// [SECTION] Models ------------------------------------------------------------------------------

template <class E> std::optional<E> enum_choice(Reader& r, const std::string& key, bool required,
                                                const std::vector<std::string>& names, E fallback) {
    auto s = r.choice(key, required, names);
    if (!s) return required ? std::nullopt : std::optional<E>(fallback);
    return static_cast<E>(std::find(names.begin(), names.end(), *s) - names.begin());
}

[[gnu::noinline]] std::optional<Model> read_model(const json& doc, const Context& ctx, const std::string& stem) {
    const size_t issues_before = ctx.issues.size();
    Reader r(ctx, "", doc);
    Model m;
    SourceBook book;
    read_sources(r, book);
    m.id = read_id(r, stem);
    m.name = r.string("name", true).value_or("");
    m.aliases = r.strings("aliases", false);
    m.family = r.string("family", true).value_or("");
    m.kind = enum_choice<ModelKind>(r, "kind", true, {"decoder", "encoder", "vision_language"}, ModelKind::decoder)
                 .value_or(ModelKind::decoder);
    r.string("notes", false);

    r.object("published", true, [&](Reader& p) {
        m.published_params = p.number("params", true, 1e6, 1e14).value_or(0);
        m.published_active_params = p.number("active_params", false, 1e6, 1e14).value_or(0);
        m.active_excludes_embedding = p.boolean("active_excludes_embedding", false).value_or(false);
        p.string("note", false);
        attach_source(p, book, {"params", "active_params", "active_excludes_embedding"});
    });

    auto& a = m.arch;
    r.object("architecture", true, [&](Reader& g) {
        a.layers = g.integer("layers", true, 1, 1000).value_or(0);
        a.hidden = g.integer("hidden", true, 16, 1000000).value_or(0);
        a.heads = g.integer("heads", true, 1, 10000).value_or(0);
        a.kv_heads = g.integer("kv_heads", true, 1, 10000).value_or(0);
        a.head_dim = g.integer("head_dim", true, 1, 10000).value_or(0);
        a.intermediate = g.integer("intermediate", true, 1, 10000000).value_or(0);
        a.vocab = g.integer("vocab", true, 1, 10000000).value_or(0);
        a.tied_embeddings = g.boolean("tied_embeddings", true).value_or(false);
        a.max_context = g.integer("max_context", true, 1, 100000000).value_or(0);
        a.mlp = enum_choice<MlpKind>(g, "mlp", true, {"gated", "plain"}, MlpKind::gated).value_or(MlpKind::gated);
        a.norm = enum_choice<NormKind>(g, "norm", true, {"rmsnorm", "layernorm"}, NormKind::rmsnorm).value_or(NormKind::rmsnorm);
        a.bias = enum_choice<BiasKind>(g, "bias", true, {"none", "qkv", "all"}, BiasKind::none).value_or(BiasKind::none);
        a.qk_norm = g.boolean("qk_norm", false).value_or(false);
        a.norms_per_layer = g.integer("norms_per_layer", false, 0, 16).value_or(2);
        a.position = enum_choice<PositionKind>(g, "position", true, {"rope", "learned"}, PositionKind::rope)
                         .value_or(PositionKind::rope);
        a.type_vocab = g.integer("type_vocab", false, 0, 1000).value_or(0);
        a.pooler = g.boolean("pooler", false).value_or(false);
        if (a.kv_heads > a.heads) g.error("kv_heads", "cannot exceed heads (" + std::to_string(a.heads) + ")");

        const json* layers = g.raw("attention_layers");
        int counted = 0;
        if (!layers) g.error("attention_layers", "required field is missing");
        else if (!layers->is_array() || layers->empty()) g.error("attention_layers", "expected a non-empty array");
        else
            for (size_t i = 0; i < layers->size(); ++i) {
                const std::string path = g.at("attention_layers") + "[" + std::to_string(i) + "]";
                if (!(*layers)[i].is_object()) {
                    ctx.add(path, "expected an object, got " + type_name((*layers)[i]));
                    continue;
                }
                Reader lr(ctx, path, (*layers)[i]);
                AttentionLayers run;
                run.kind = enum_choice<AttentionKind>(lr, "kind", true, {"full", "sliding", "latent", "none"},
                                                      AttentionKind::full).value_or(AttentionKind::full);
                run.count = lr.integer("count", true, 1, 1000).value_or(0);
                if (run.kind == AttentionKind::sliding) run.window = lr.integer("window", true, 1, 100000000).value_or(0);
                lr.finish();
                counted += run.count;
                a.attention_layers.push_back(run);
            }
        if (layers && layers->is_array() && a.layers > 0 && counted != a.layers)
            g.error("attention_layers", "counts add up to " + std::to_string(counted) + " blocks, but layers is " +
                                            std::to_string(a.layers));
        const bool has_latent = std::any_of(a.attention_layers.begin(), a.attention_layers.end(),
                                            [](const AttentionLayers& l) { return l.kind == AttentionKind::latent; });
        a.has_mla = g.object("mla", false, [&](Reader& x) {
            a.mla.kv_lora_rank = x.integer("kv_lora_rank", true, 1, 100000).value_or(0);
            const json* q = x.raw("q_lora_rank");
            if (!q) x.error("q_lora_rank", "required field is missing (null when queries are not compressed)");
            else if (q->is_number_integer() && q->get<long long>() > 0 && q->get<long long>() < 100000)
                a.mla.q_lora_rank = static_cast<int>(q->get<long long>());
            else if (!q->is_null()) x.error("q_lora_rank", "expected a positive integer or null, got " + type_name(*q));
            a.mla.qk_nope_head_dim = x.integer("qk_nope_head_dim", true, 1, 10000).value_or(0);
            a.mla.qk_rope_head_dim = x.integer("qk_rope_head_dim", true, 0, 10000).value_or(0);
            a.mla.v_head_dim = x.integer("v_head_dim", true, 1, 10000).value_or(0);
        });
        if (has_latent && !a.has_mla) g.error("mla", "required for latent attention layers");
        if (!has_latent && a.has_mla) g.error("mla", "given, but no attention_layers entry has kind \"latent\"");
        a.has_moe = g.object("moe", false, [&](Reader& x) {
            auto& e = a.moe;
            e.experts = x.integer("experts", true, 2, 100000).value_or(0);
            e.active_experts = x.integer("active_experts", true, 1, 100000).value_or(0);
            e.shared_experts = x.integer("shared_experts", true, 0, 1000).value_or(0);
            e.expert_intermediate = x.integer("expert_intermediate", true, 1, 10000000).value_or(0);
            e.shared_expert_intermediate = x.integer("shared_expert_intermediate", false, 1, 10000000).value_or(0);
            e.dense_layers = x.integer("dense_layers", false, 0, 1000).value_or(0);
            if (e.active_experts > e.experts) x.error("active_experts", "cannot exceed experts (" + std::to_string(e.experts) + ")");
            if (e.dense_layers > a.layers) x.error("dense_layers", "cannot exceed layers (" + std::to_string(a.layers) + ")");
        });
        attach_source(g, book, {"layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab",
                                "tied_embeddings", "max_context", "mlp", "norm", "bias", "qk_norm", "norms_per_layer",
                                "position", "type_vocab", "pooler", "attention_layers", "mla", "moe"});
    });
    if (m.published_active_params > 0 && !a.has_moe)
        ctx.add("published.active_params", "is only for mixture-of-experts models (architecture.moe is absent)");

    r.object("extra_params", false, [&](Reader& x) {
        std::vector<std::string> keys;
        for (const auto& [key, value] : x.json_value().items()) {
            if (key == "source" || key == "source_overrides" || key == "note") continue;
            keys.push_back(key);
            if (auto n = x.number(key, true, 1.0, 1e14)) m.extra_params[key] = *n;
        }
        x.string("note", false);
        attach_source(x, book, keys);
    });

    check_sources_used(r, book);
    r.finish();
    if (ctx.issues.size() != issues_before) return std::nullopt;
    m.sources = std::move(book.sources);
    m.source_of = std::move(book.source_of);
    return m;
}

// [SECTION] APIs and defaults -------------------------------------------------------------------

constexpr double kPerMillion = 1e-6;

[[gnu::noinline]] std::optional<ApiPrice> read_api(const json& doc, const Context& ctx, const std::string& stem) {
    const size_t issues_before = ctx.issues.size();
    Reader r(ctx, "", doc);
    ApiPrice p;
    SourceBook book;
    read_sources(r, book);
    p.id = read_id(r, stem);
    p.name = r.string("name", true).value_or("");
    p.provider = r.string("provider", true).value_or("");
    const json* model = r.raw("model");
    if (!model) r.error("model", "required field is missing (null when the model is not in the catalog)");
    else if (model->is_string()) p.model = model->get<std::string>();
    else if (!model->is_null()) r.error("model", "expected a model id or null, got " + type_name(*model));
    p.model_name = r.string("model_name", true).value_or("");
    p.input_usd_per_token = r.number("input_usd_per_million_tokens", true, 0, 1000).value_or(0) * kPerMillion;
    p.output_usd_per_token = r.number("output_usd_per_million_tokens", true, 0, 1000).value_or(0) * kPerMillion;
    if (auto c = r.number("cached_input_usd_per_million_tokens", false, 0, 1000)) p.cached_input_usd_per_token = *c * kPerMillion;
    p.context_tokens = r.number("context_tokens", false, 1, 1e9).value_or(0);
    r.string("note", false);
    r.string("notes", false);
    attach_source(r, book, {"input_usd_per_million_tokens", "output_usd_per_million_tokens",
                            "cached_input_usd_per_million_tokens", "context_tokens"});
    check_sources_used(r, book);
    r.finish();
    if (ctx.issues.size() != issues_before) return std::nullopt;
    p.sources = std::move(book.sources);
    p.source_of = std::move(book.source_of);
    return p;
}

[[gnu::noinline]] std::optional<CostDefaults> read_defaults(const json& doc, const Context& ctx) {
    const size_t issues_before = ctx.issues.size();
    Reader r(ctx, "", doc);
    CostDefaults d;
    SourceBook book;
    read_sources(r, book);
    auto value = [&](const std::string& key, bool required, double lo, double hi) -> std::optional<double> {
        std::optional<double> v;
        r.object(key, required, [&](Reader& g) {
            v = g.number("value", true, lo, hi);
            g.string("note", false);
            attach_source(g, book, {"value"});
        });
        return v;
    };
    d.electricity_usd_per_j = value("electricity_usd_per_kWh", true, 0.001, 10).value_or(0) / 3.6e6;
    d.pue_ratio = value("pue_ratio", true, 1.0, 5.0).value_or(0);
    d.amortization_s = value("amortization_years", true, 0.25, 20).value_or(0) * 365.25 * 86400;
    if (auto h = value("hosting_usd_per_device_month", false, 0, 1e5)) d.hosting_usd_per_device_s = *h / (365.25 / 12 * 86400);
    if (auto c = value("colocation_usd_per_kW_month", false, 0, 1e5)) d.colocation_usd_per_w_s = *c / 1000 / (365.25 / 12 * 86400);
    if (auto b = value("rental_billing_increment_s", false, 0, 86400)) d.rental_billing_increment_s = *b;
    if (auto b = value("rental_startup_s", false, 0, 86400)) d.rental_startup_s = *b;
    check_sources_used(r, book);
    r.finish();
    if (ctx.issues.size() != issues_before) return std::nullopt;
    d.sources = std::move(book.sources);
    d.source_of = std::move(book.source_of);
    return d;
}

// [SECTION] Formats and assumptions -------------------------------------------------------------

const std::vector<std::string> kFormatKinds{"float", "int", "blockquant", "gguf"};
const std::vector<std::string> kAssumptionUnits{"ratio", "bytes", "s", "tokens", "count", "tokens_per_s"};

// One group of named entries ({name: {...}, ...}) under `group` of reader `r`: `read(name, reader, book)`
// reads one entry; `keep(entry)` takes it when it had no issue.
template <class Read, class Keep>
void read_entry_group(Reader& r, const Context& ctx, const char* group, bool required, SourceBook& book, Read read, Keep keep) {
    r.object(group, required, [&](Reader& entries) {
        for (const auto& [key, value] : entries.json_value().items()) {
            entries.raw(key);
            if (!value.is_object()) {
                entries.error(key, "expected an object, got " + type_name(value));
                continue;
            }
            const size_t before = ctx.issues.size();
            Reader entry(ctx, entries.at(key), value);
            auto e = read(key, entry, book);
            entry.finish();
            if (ctx.issues.size() == before) keep(std::move(e));
        }
    });
}

// A file holding one object of named entries ("formats": {name: {...}}, "assumptions": {name: {...}})
// and its sources.
template <class Read, class Keep>
void read_named_entries(const json& doc, const Context& ctx, const char* group, SourceBook& book, Read read, Keep keep) {
    Reader r(ctx, "", doc);
    read_sources(r, book);
    read_entry_group(r, ctx, group, true, book, read, keep);
    check_sources_used(r, book);
    r.finish();
}

[[gnu::noinline]] void read_formats(const json& doc, const Context& ctx, Catalog& catalog) {
    SourceBook book;
    read_named_entries(
        doc, ctx, "formats", book,
        [](const std::string& key, Reader& f, SourceBook& b) {
            WeightFormat w;
            w.name = key;
            w.bits_per_weight = f.number("bits_per_weight", true, 1, 64).value_or(0);
            w.kind = f.choice("kind", true, kFormatKinds).value_or("");
            w.meaning = f.string("meaning", true).value_or("");
            f.string("note", false);
            attach_source(f, b, {"bits_per_weight"});
            w.source = b.source_of.count(f.at("bits_per_weight")) ? b.source_of[f.at("bits_per_weight")] : "";
            return w;
        },
        [&](WeightFormat w) { catalog.formats.push_back(std::move(w)); });
    catalog.format_sources = std::move(book.sources);
}

[[gnu::noinline]] void read_assumptions(const json& doc, const Context& ctx, Catalog& catalog) {
    SourceBook book;
    read_named_entries(
        doc, ctx, "assumptions", book,
        [&](const std::string& key, Reader& a, SourceBook& b) {
            const size_t before = ctx.issues.size();
            AssumptionDefault d;
            d.unit = a.choice("unit", true, kAssumptionUnits).value_or("");
            const double hi = d.unit == "ratio" ? 1.0 : 1e15;
            d.value = a.number("value", true, 0, hi).value_or(0);
            d.low = a.number("low", true, 0, hi).value_or(0);
            d.high = a.number("high", true, 0, hi).value_or(0);
            if (ctx.issues.size() == before && !(d.low <= d.value && d.value <= d.high))
                a.error("value", "must lie within low..high (" + format_sig(d.low, 6) + ".." + format_sig(d.high, 6) + ")");
            d.meaning = a.string("meaning", true).value_or("");
            a.string("note", false);
            d.calibrated_by = a.strings("calibrated_by", false);
            attach_source(a, b, {"value", "low", "high"});
            d.source = b.source_of.count(a.at("value")) ? b.source_of[a.at("value")] : "";
            return std::make_pair(key, d);
        },
        [&](std::pair<std::string, AssumptionDefault> e) { catalog.assumptions[e.first] = std::move(e.second); });
    catalog.assumption_sources = std::move(book.sources);
}

// [SECTION] Training runtime profiles (runtimes.json) ---------------------------------------------

// One encoder runtime profile (EncoderRuntime, runtime.h): per-layer counts and the suite cases it was calibrated on.
EncoderRuntime read_encoder_runtime(const std::string& key, Reader& e, SourceBook& b) {
    EncoderRuntime t;
    t.id = key;
    if (!valid_id(key)) e.ctx().add(e.path(), "id must be lower-case letters, digits, '-' or '.'");
    t.name = e.string("name", true).value_or("");
    t.meaning = e.string("meaning", true).value_or("");
    t.activation_passes_per_layer = e.number("activation_passes_per_layer", true, 0, 1000).value_or(0);
    t.score_passes_per_layer = e.number("score_passes_per_layer", true, 0, 100).value_or(0);
    t.kernels_per_layer = e.number("kernels_per_layer", true, 0, 1000).value_or(0);
    t.passes_on_vector_engine = e.choice("passes_priced_at", false, {"device_memory", "vector_engine"}).value_or("device_memory") == "vector_engine";
    t.is_default = e.boolean("default", false).value_or(false);
    t.default_on_stack = e.choice("default_on_stack", false, {"pytorch-cuda", "pytorch-rocm", "jax-xla", "aws-neuron", "intel-gaudi", "mlx-metal", "llama.cpp"}).value_or("");
    t.calibrated_by = e.strings("calibrated_by", false);
    e.string("note", false);
    attach_source(e, b, {"activation_passes_per_layer", "score_passes_per_layer", "kernels_per_layer", "passes_priced_at", "default_on_stack"});
    t.source = b.source_of.count(e.at("activation_passes_per_layer")) ? b.source_of[e.at("activation_passes_per_layer")] : "";
    return t;
}

// One decode runtime profile (DecodeRuntime, runtime.h): the host's operations per layer and per step.
DecodeRuntime read_decode_runtime(const std::string& key, Reader& e, SourceBook& b) {
    DecodeRuntime t;
    t.id = key;
    if (!valid_id(key)) e.ctx().add(e.path(), "id must be lower-case letters, digits, '-' or '.'");
    t.name = e.string("name", true).value_or("");
    t.meaning = e.string("meaning", true).value_or("");
    t.host_ops_per_layer = e.number("host_ops_per_layer", true, 0, 10000).value_or(0);
    t.host_ops_per_step = e.number("host_ops_per_step", true, 0, 10000).value_or(0);
    t.host_ops_per_grouped_kv_layer = e.number("host_ops_per_grouped_kv_layer", false, 0, 10000).value_or(0);
    t.host_collectives_per_layer = e.number("host_collectives_per_layer", false, 0, 10000).value_or(0);
    t.host_collectives_per_step = e.number("host_collectives_per_step", false, 0, 10000).value_or(0);
    t.host_ops_per_added_sequence = e.number("host_ops_per_added_sequence", false, 0, 10000).value_or(0);
    if (t.host_collectives_per_layer > t.host_ops_per_layer) e.error("host_collectives_per_layer", "exceeds host_ops_per_layer, of which it is a part");
    if (t.host_collectives_per_step > t.host_ops_per_step) e.error("host_collectives_per_step", "exceeds host_ops_per_step, of which it is a part");
    t.serial_vocab_round_trips = e.number("serial_vocab_round_trips", false, 0, 100).value_or(0);
    t.recomputes_context = e.boolean("recomputes_context", false).value_or(false);
    t.expert_down_projection_strided = e.boolean("expert_down_projection_strided", false).value_or(false);
    t.expert_gather_one_row = e.boolean("expert_gather_one_row", false).value_or(false);
    {
        const auto g = e.number("graphs_step_saving_s", false, 0, 1), gl = e.number("graphs_step_saving_low_s", false, 0, 1),
                   gh = e.number("graphs_step_saving_high_s", false, 0, 1);
        if (g || gl || gh) {
            if (!(g && gl && gh)) e.error("graphs_step_saving_s", "give graphs_step_saving_s, graphs_step_saving_low_s and graphs_step_saving_high_s together");
            else if (*g < *gl || *g > *gh)
                e.error("graphs_step_saving_s", "must lie within graphs_step_saving_low_s..graphs_step_saving_high_s (" + format_sig(*gl, 6) + ".." + format_sig(*gh, 6) + ")");
            else { t.graphs_step_saving_s = *g; t.graphs_step_saving_low_s = *gl; t.graphs_step_saving_high_s = *gh; }
        }
    }
    if (auto span = e.choice("attention_span", false, {"history", "power_of_two_bucket", "compiled_sequence"})) t.attention_span = *span == "history" ? "" : *span;
    t.attention_bucket_min_tokens = e.number("attention_bucket_min_tokens", t.attention_span == "power_of_two_bucket", 1, 1e7).value_or(0);
    t.pads_batch_to_compiled = e.boolean("pads_batch_to_compiled", false).value_or(false);
    t.prefill_pads_to_compiled_context = e.boolean("prefill_pads_to_compiled_context", false).value_or(false);
    if (auto hs = e.choice("head_sharding", false, {"even", "pad-replicate-to-heads", "pad-replicate-to-ranks"})) t.head_sharding = *hs == "even" ? "" : *hs;
    if (auto ar = e.choice("tensor_parallel_allreduce", false, {"nccl", "pytorch-intra-node"})) t.tensor_parallel_allreduce = *ar == "nccl" ? "" : *ar;
    t.replicates_output_head = e.boolean("replicates_output_head", false).value_or(false);
    t.moe_all_experts_share = e.number("moe_all_experts_share", false, 0, 1e3).value_or(0);
    t.is_default = e.boolean("default", false).value_or(false);
    t.served_host_time_unmodelled_share = e.number("served_host_time_unmodelled_share", false, 0, 0.95).value_or(0);
    t.profile_tokens_floor = e.number("profile_tokens_floor", false, 0, 1e7).value_or(0);
    t.profile_holds_allreduce_inputs = e.boolean("profile_holds_allreduce_inputs", false).value_or(false);
    t.profile_sampler_bytes_per_logit = e.number("profile_sampler_bytes_per_logit", false, 0, 1000).value_or(0);
    t.int4_column_gemv_time_ratio = e.number("int4_column_gemv_time_ratio", false, 0, 4).value_or(0);
    t.triton_projections_per_layer = e.number("triton_projections_per_layer", false, 0, 100).value_or(0);
    t.host_op_s = e.number("host_op_s", false, 0, 0.01).value_or(0);
    t.stack = e.choice("stack", false, {"pytorch-cuda", "pytorch-rocm", "jax-xla", "aws-neuron", "intel-gaudi", "mlx-metal", "llama.cpp"}).value_or("");
    t.calibrated_by = e.strings("calibrated_by", false);
    e.string("note", false);
    attach_source(e, b, {"host_ops_per_layer", "host_ops_per_step", "host_ops_per_grouped_kv_layer", "host_collectives_per_layer",
                         "host_collectives_per_step", "host_ops_per_added_sequence", "serial_vocab_round_trips", "recomputes_context", "expert_down_projection_strided", "expert_gather_one_row",
                         "graphs_step_saving_s", "graphs_step_saving_low_s", "graphs_step_saving_high_s",
                         "served_host_time_unmodelled_share", "attention_span", "attention_bucket_min_tokens", "pads_batch_to_compiled",
                         "prefill_pads_to_compiled_context", "head_sharding", "tensor_parallel_allreduce", "replicates_output_head", "moe_all_experts_share",
                         "profile_tokens_floor", "profile_holds_allreduce_inputs", "profile_sampler_bytes_per_logit", "int4_column_gemv_time_ratio",
                         "triton_projections_per_layer", "host_op_s"});
    t.source = b.source_of.count(e.at("host_ops_per_layer")) ? b.source_of[e.at("host_ops_per_layer")] : "";
    if (t.host_op_s > 0) t.host_op_source = b.source_of.count(e.at("host_op_s")) ? b.source_of[e.at("host_op_s")] : t.source;
    return t;
}

[[gnu::noinline]] void read_runtimes(const json& doc, const Context& ctx, Catalog& catalog) {
    SourceBook book;
    Reader top(ctx, "", doc);
    read_sources(top, book);
    read_entry_group(top, ctx, "encoder_runtimes", false, book, read_encoder_runtime,
                     [&](EncoderRuntime t) { catalog.encoder_runtimes.push_back(std::move(t)); });
    if (!catalog.encoder_runtimes.empty()) {
        const auto defaults = std::count_if(catalog.encoder_runtimes.begin(), catalog.encoder_runtimes.end(), [](const EncoderRuntime& r) { return r.is_default; });
        if (defaults != 1) ctx.add("encoder_runtimes", "exactly one encoder runtime must be the default, found " + std::to_string(defaults));
    }
    read_entry_group(top, ctx, "decode_runtimes", false, book, read_decode_runtime,
                     [&](DecodeRuntime t) { catalog.decode_runtimes.push_back(std::move(t)); });
    if (!catalog.decode_runtimes.empty()) {
        const auto defaults = std::count_if(catalog.decode_runtimes.begin(), catalog.decode_runtimes.end(), [](const DecodeRuntime& r) { return r.is_default; });
        if (defaults != 1) ctx.add("decode_runtimes", "exactly one decode runtime must be the default, found " + std::to_string(defaults));
    }
    read_entry_group(
        top, ctx, "runtimes", true, book,
        [](const std::string& key, Reader& e, SourceBook& b) {
            TrainingRuntime t;
            t.id = key;
            if (!valid_id(key)) e.ctx().add(e.path(), "id must be lower-case letters, digits, '-' or '.'");
            t.name = e.string("name", true).value_or("");
            t.meaning = e.string("meaning", true).value_or("");
            t.adapter_bytes_per_param = e.number("adapter_bytes_per_param", true, 1, 8).value_or(0);
            t.adapter_gradient_bytes_per_param = e.number("adapter_gradient_bytes_per_param", true, 1, 8).value_or(0);
            t.optimizer_state_bytes_per_value = e.number("optimizer_state_bytes_per_value", true, 1, 8).value_or(0);
            t.logits_kept_bytes_per_value = e.number("logits_kept_bytes_per_value", true, 0, 8).value_or(0);
            t.loss_fp32_bytes_per_value = e.number("loss_fp32_bytes_per_value", true, 0, 16).value_or(0);
            t.loss_chunks = e.number("loss_chunks", true, 1, 1e6).value_or(1);
            t.paged_optimizer = e.boolean("paged_optimizer", true).value_or(false);
            t.paged_optimizer_methods = e.strings("paged_optimizer_methods", false);
            for (const auto& m : t.paged_optimizer_methods)
                if (m != "full" && m != "lora" && m != "qlora")
                    e.error("paged_optimizer_methods", "unknown method \"" + m + "\"; expected full, lora or qlora");
            t.full_master_weights = e.boolean("full_master_weights", true).value_or(true);
            t.optimizer_in_backward = e.boolean("optimizer_in_backward", true).value_or(false);
            t.eager_attention = e.choice("attention", true, {"sdpa", "eager"}).value_or("sdpa") == "eager";
            t.offload_checkpoints = e.boolean("offload_checkpoints", false).value_or(false);
            t.caching_allocator = e.boolean("caching_allocator", false).value_or(true);
            t.gated_mlp_saved_tensors = e.number("gated_mlp_saved_tensors", false, 1, 8).value_or(4);
            t.fp8_linear_input_bytes_per_value = e.number("fp8_linear_input_bytes_per_value", false, 0, 2).value_or(0);
            t.fp8_attention_at_16_bits = e.boolean("fp8_attention_at_16_bits", false).value_or(false);
            t.fp8_output_head_at_16_bits = e.boolean("fp8_output_head_at_16_bits", false).value_or(false);
            t.lora_targets = e.choice("lora_targets", false, {"all", "query-value", "query-key-value"}).value_or("all");
            t.lora_dropout = e.number("lora_dropout", false, 0, 0.9).value_or(0);
            t.lora_dropout_per_module = e.boolean("lora_dropout_per_module", false).value_or(true);
            t.quantized_base_keeps_inputs = e.boolean("quantized_base_keeps_inputs", false).value_or(true);
            t.quantizes_head = e.boolean("quantizes_head", false).value_or(false);
            t.dequantized_copy_bytes_per_param = e.number("dequantized_copy_bytes_per_param", false, 0, 8).value_or(2);
            t.quantize_transient_bytes_per_element = e.number("quantize_transient_bytes_per_element", false, 0, 256).value_or(0);
            t.fused_qkv_kept = e.boolean("fused_qkv_kept", false).value_or(false);
            t.lora_zero_pad_kept = e.boolean("lora_zero_pad_kept", false).value_or(false);
            t.memory_unmodelled_high_ratio = e.number("memory_unmodelled_high_ratio", false, 0, 2).value_or(0);
            t.sharded_qlora_time_unmodelled_low_ratio = e.number("sharded_qlora_time_unmodelled_low_ratio", false, 0, 0.95).value_or(0);
            t.optimizer_fp32_gradient_bytes_per_param = e.number("optimizer_fp32_gradient_bytes_per_param", false, 0, 8).value_or(0);
            t.optimizer_fp32_gradients_partitioned = e.boolean("optimizer_fp32_gradients_partitioned", false).value_or(true);
            t.zero2_shards_gradients = e.boolean("zero2_shards_gradients", false).value_or(true);
            t.zero3_layer_gather_bytes_per_param = e.number("zero3_layer_gather_bytes_per_param", false, 0, 16).value_or(0);
            t.zero3_reduce_bucket_elements = e.number("zero3_reduce_bucket_elements", false, 0, 1e12).value_or(0);
            t.zero3_max_reuse_distance_elements = e.number("zero3_max_reuse_distance_elements", false, 0, 1e15).value_or(0);
            t.zero3_prefetch_bucket_elements = e.number("zero3_prefetch_bucket_elements", false, 0, 1e12).value_or(0);
            t.offload_gradients = e.boolean("offload_gradients", false).value_or(false);
            t.offload_parameters = e.boolean("offload_parameters", false).value_or(false);
            t.shard_embeddings_and_head = e.boolean("shard_embeddings_and_head", false).value_or(false);
            t.fsdp_units_in_flight = e.integer("fsdp_units_in_flight", false, 0, 8).value_or(0);
            t.fsdp_init_cache_kept = e.boolean("fsdp_init_cache_kept", false).value_or(false);
            t.quant_state_replicated = e.boolean("quant_state_replicated", false).value_or(false);
            t.fsdp_offload_shard_copies_kept = e.boolean("fsdp_offload_shard_copies_kept", false).value_or(false);
            t.adapter_step_overhead_s = e.number("adapter_step_overhead_s", false, 0, 10).value_or(0);
            t.adapter_host_ops_forward_per_layer = e.number("adapter_host_ops_forward_per_layer", false, 0, 10000).value_or(0);
            t.adapter_host_ops_backward_per_layer = e.number("adapter_host_ops_backward_per_layer", false, 0, 10000).value_or(0);
            t.adapter_host_ops_dequant_per_linear = e.number("adapter_host_ops_dequant_per_linear", false, 0, 100).value_or(0);
            t.adapter_host_ops_outside_layers = e.number("adapter_host_ops_outside_layers", false, 0, 100000).value_or(0);
            t.causal_attention_flops_ratio = e.number("causal_attention_flops_ratio", false, 0.5, 1).value_or(1);
            t.adapter_timing_calibrated_by = e.strings("adapter_timing_calibrated_by", false);
            t.max_zero_stage = e.integer("max_zero_stage", false, 0, 3).value_or(3);
            t.recompute = e.choice("recompute", false, {"none", "selective", "full"}).value_or("");
            t.tensor_parallel_overlap = e.boolean("tensor_parallel_overlap", false).value_or(true);
            t.pipeline_p2p_overlap = e.boolean("pipeline_p2p_overlap", false).value_or(false);
            t.data_parallel_reduce_after_schedule = e.boolean("data_parallel_reduce_after_schedule", false).value_or(false);
            t.attention_dropout = e.boolean("attention_dropout", false).value_or(false);
            t.default_for = e.strings("default_for", false);
            for (const auto& m : t.default_for)
                if (m != "full" && m != "lora" && m != "qlora") e.error("default_for", "unknown method \"" + m + "\"; expected full, lora or qlora");
            t.default_for_device_kinds = e.strings("default_for_device_kinds", false);
            t.stack = e.choice("stack", false, {"pytorch-cuda", "pytorch-rocm", "jax-xla", "aws-neuron", "intel-gaudi", "mlx-metal", "llama.cpp"}).value_or("");
            for (const auto& k : t.default_for_device_kinds)
                if (std::find(kDeviceKinds.begin(), kDeviceKinds.end(), k) == kDeviceKinds.end())
                    e.error("default_for_device_kinds", "unknown device kind \"" + k + "\"");
            e.string("note", false);
            attach_source(e, b, {"adapter_bytes_per_param", "adapter_gradient_bytes_per_param", "optimizer_state_bytes_per_value",
                                 "logits_kept_bytes_per_value", "loss_fp32_bytes_per_value", "loss_chunks", "paged_optimizer", "paged_optimizer_methods",
                                 "full_master_weights", "optimizer_in_backward", "attention", "offload_checkpoints", "caching_allocator", "gated_mlp_saved_tensors", "fp8_linear_input_bytes_per_value", "fp8_attention_at_16_bits", "fp8_output_head_at_16_bits", "optimizer_fp32_gradient_bytes_per_param", "optimizer_fp32_gradients_partitioned",
                                 "zero2_shards_gradients", "zero3_layer_gather_bytes_per_param", "zero3_reduce_bucket_elements", "zero3_max_reuse_distance_elements",
                                 "zero3_prefetch_bucket_elements", "offload_gradients",
                                 "offload_parameters", "shard_embeddings_and_head", "fsdp_units_in_flight", "fsdp_init_cache_kept", "quant_state_replicated", "fsdp_offload_shard_copies_kept",
                                 "adapter_step_overhead_s", "adapter_host_ops_forward_per_layer", "adapter_host_ops_backward_per_layer",
                                 "adapter_host_ops_dequant_per_linear", "adapter_host_ops_outside_layers",
                                 "causal_attention_flops_ratio", "max_zero_stage", "recompute", "tensor_parallel_overlap", "pipeline_p2p_overlap", "data_parallel_reduce_after_schedule", "attention_dropout", "lora_targets",
                                 "lora_dropout", "lora_dropout_per_module", "quantized_base_keeps_inputs", "quantizes_head",
                                 "dequantized_copy_bytes_per_param", "quantize_transient_bytes_per_element", "fused_qkv_kept", "lora_zero_pad_kept", "memory_unmodelled_high_ratio",
                                 "sharded_qlora_time_unmodelled_low_ratio", "default_for_device_kinds"});
            t.source = b.source_of.count(e.at("adapter_bytes_per_param")) ? b.source_of[e.at("adapter_bytes_per_param")] : "";
            return t;
        },
        [&](TrainingRuntime t) { catalog.training_runtimes.push_back(std::move(t)); });
    check_sources_used(top, book);
    top.finish();
    catalog.runtime_sources = std::move(book.sources);
    for (const char* m : {"full", "lora", "qlora"}) {
        int n = 0;
        for (const auto& t : catalog.training_runtimes) n += int(std::count(t.default_for.begin(), t.default_for.end(), m));
        if (n != 1) ctx.add("runtimes", std::string("exactly one profile must be the default for \"") + m + "\", found " + std::to_string(n));
    }
    for (const auto& k : kDeviceKinds) {
        int n = 0;
        for (const auto& t : catalog.training_runtimes)
            n += int(std::count(t.default_for_device_kinds.begin(), t.default_for_device_kinds.end(), k));
        if (n > 1) ctx.add("runtimes", "at most one profile may be the default for device kind \"" + k + "\", found " + std::to_string(n));
    }
}

// [SECTION] Tool interfaces (tools.json) -----------------------------------------------------------

const std::vector<std::string> kToolSyntaxes{"flags", "overrides", "toml", "json", "yaml"};

// A named source of tools.json: known, and counted as used.
void use_source(Reader& r, SourceBook& book, const std::string& key = "source") {
    const auto id = r.string(key, true);
    if (!id) return;
    if (!book.known(*id)) r.error(key, "names \"" + *id + "\", which is not in sources");
    else book.used.insert(*id);
}

// {name: {"meaning", "values"?, "source"}, ...}: flags or recipes.
std::map<std::string, ToolFlag> read_tool_flags(Reader& t, const char* group, bool required, SourceBook& book) {
    std::map<std::string, ToolFlag> out;
    t.object(group, required, [&](Reader& flags) {
        for (const auto& [key, value] : flags.json_value().items()) {
            flags.raw(key);
            if (!value.is_object()) {
                flags.error(key, "expected an object, got " + type_name(value));
                continue;
            }
            Reader f(flags.ctx(), flags.at(key), value);
            ToolFlag flag;
            flag.meaning = f.string("meaning", true).value_or("");
            flag.values = f.strings("values", false);
            use_source(f, book);
            flag.source = f.string("source", false).value_or("");
            f.finish();
            out[key] = std::move(flag);
        }
        if (flags.json_value().empty()) flags.ctx().add(flags.path(), "must list at least one entry");
    });
    return out;
}

[[gnu::noinline]] void read_tools(const json& doc, const Context& ctx, Catalog& catalog) {
    SourceBook book;
    read_named_entries(
        doc, ctx, "tools", book,
        [](const std::string& key, Reader& e, SourceBook& b) {
            ToolInterface t;
            t.id = key;
            // "torchtitan", or "torchtitan@v0.1.0" for an older release of the same tool (run_it.h, RunItOptions)
            const auto at = key.find('@');
            if (!valid_id(key.substr(0, at)) || (at != std::string::npos && !valid_id(key.substr(at + 1))))
                e.ctx().add(e.path(), "id must be lower-case letters, digits, '-' or '.', and may end in @RELEASE of the same");
            t.name = e.string("name", true).value_or("");
            t.program = e.string("program", true).value_or("");
            t.repository = e.string("repository", true).value_or("");
            t.release = e.string("release", true).value_or("");
            t.syntax = e.choice("syntax", true, kToolSyntaxes).value_or("");
            t.flags = read_tool_flags(e, "flags", true, b);
            t.recipes = read_tool_flags(e, "recipes", false, b);
            // torchtune: model id -> {recipe: {method: config}, "source"}; every recipe named must be listed.
            e.object("configs", false, [&](Reader& models) {
                for (const auto& [model, value] : models.json_value().items()) {
                    models.raw(model);
                    if (!value.is_object()) { models.error(model, "expected an object, got " + type_name(value)); continue; }
                    Reader m(models.ctx(), models.at(model), value);
                    use_source(m, b);
                    for (const auto& [recipe, methods] : value.items()) {
                        if (recipe == "source") continue;
                        m.raw(recipe);
                        if (!t.recipes.count(recipe)) m.error(recipe, "is not a recipe of this tool (recipes)");
                        if (!methods.is_object()) { m.error(recipe, "expected an object, got " + type_name(methods)); continue; }
                        for (const auto& [method, config] : methods.items()) {
                            if (method != "full" && method != "lora" && method != "qlora")
                                m.error(recipe + "." + method, "unknown method; expected full, lora or qlora");
                            else if (!config.is_string()) m.error(recipe + "." + method, "expected a config name, got " + type_name(config));
                            else t.configs[model][recipe][method] = config.get<std::string>();
                        }
                    }
                    m.finish();
                }
            });
            // torchtitan: model id -> {"name", "flavor", "source"}.
            e.object("models", false, [&](Reader& models) {
                for (const auto& [model, value] : models.json_value().items()) {
                    models.raw(model);
                    if (!value.is_object()) { models.error(model, "expected an object, got " + type_name(value)); continue; }
                    Reader m(models.ctx(), models.at(model), value);
                    t.models[model]["name"] = m.string("name", true).value_or("");
                    t.models[model]["flavor"] = m.string("flavor", true).value_or("");
                    use_source(m, b);
                    m.finish();
                }
            });
            t.note = e.string("note", false).value_or("");
            return t;
        },
        [&](ToolInterface t) { catalog.tools.push_back(std::move(t)); });
    catalog.tool_sources = std::move(book.sources);
}

// [SECTION] Efficiencies per device family (efficiencies.json) ----------------------------------------

EfficiencyRule read_efficiency_rule(const std::string& key, Reader& e, SourceBook& b);

// The file holds groups of rules over one sources object (read_named_entries reads one group).
[[gnu::noinline]] void read_efficiencies(const json& doc, const Context& ctx, Catalog& catalog) {
    SourceBook book;
    Reader r(ctx, "", doc);
    read_sources(r, book);
    auto group = [&](const char* name, std::vector<EfficiencyRule>& out) {
        read_entry_group(r, ctx, name, false, book, read_efficiency_rule,
                         [&](EfficiencyRule rule) { out.push_back(std::move(rule)); });
    };
    group("decode_bandwidth_efficiency", catalog.decode_bandwidth_rules);
    group("training_mfu", catalog.training_mfu_rules);
    group("training_attention_efficiency", catalog.training_attention_rules);
    group("decode_compute_efficiency_8bit", catalog.decode_compute_8bit_rules);
    check_sources_used(r, book);
    r.finish();
    catalog.efficiency_sources = std::move(book.sources);
}

EfficiencyRule read_efficiency_rule(const std::string& key, Reader& e, SourceBook& b) {
    const size_t before = e.ctx().issues.size();
    EfficiencyRule r;
    r.id = key;
    r.meaning = e.string("meaning", true).value_or("");
    r.kinds = e.strings("kinds", true);
    r.vendors = e.strings("vendors", false);
    r.memory_type_prefix = e.string("memory_type_prefix", false).value_or("");
    r.frameworks = e.strings("frameworks", false);
    r.devices = e.strings("devices", false);
    r.weight_format_kinds = e.strings("weight_format_kinds", false);
    for (const auto& k : r.weight_format_kinds)
        if (std::find(kFormatKinds.begin(), kFormatKinds.end(), k) == kFormatKinds.end())
            e.error("weight_format_kinds", "unknown format kind \"" + k + "\"; expected float, int, blockquant or gguf");
    r.weight_formats = e.strings("weight_formats", false); // checked against formats.json once it is read (load_catalog)
    r.value = e.number("value", true, 1e-3, 1).value_or(0);
    r.low = e.number("low", true, 1e-3, 1).value_or(0);
    r.high = e.number("high", true, 1e-3, 1).value_or(0);
    r.measurements = e.integer("measurements", true, 1, 100000).value_or(0);
    r.calibrated_by = e.strings("calibrated_by", false);
    if (e.ctx().issues.size() == before && !(r.low <= r.value && r.value <= r.high))
        e.error("value", "must lie within low..high (" + format_sig(r.low, 6) + ".." + format_sig(r.high, 6) + ")");
    // An optional fixed time per decode step fitted with the share: all three or none.
    const size_t before_overhead = e.ctx().issues.size();
    const auto so = e.number("step_overhead_s", false, 0, 1), sl = e.number("step_overhead_low_s", false, 0, 1),
               sh = e.number("step_overhead_high_s", false, 0, 1);
    if (so || sl || sh) {
        if (!(so && sl && sh)) e.error("step_overhead_s", "give step_overhead_s, step_overhead_low_s and step_overhead_high_s together");
        else if (e.ctx().issues.size() == before_overhead && !(*sl <= *so && *so <= *sh))
            e.error("step_overhead_s", "must lie within step_overhead_low_s..step_overhead_high_s (" + format_sig(*sl, 6) + ".." + format_sig(*sh, 6) + ")");
        else { r.step_overhead_s = *so; r.step_overhead_low_s = *sl; r.step_overhead_high_s = *sh; }
    }
    e.string("note", false);
    attach_source(e, b, {"value", "low", "high", "weight_format_kinds", "weight_formats"}); // which formats a rule covers may rest on its own source
    r.source = b.source_of.count(e.at("value")) ? b.source_of[e.at("value")] : "";
    return r;
}

// [SECTION] Scenarios (their workloads are checked once the rest of the catalog is loaded) --------

[[gnu::noinline]] std::optional<Scenario> read_scenario(const json& doc, const Context& ctx, const std::string& stem) {
    const size_t before = ctx.issues.size();
    Reader r(ctx, "", doc);
    Scenario sc;
    sc.id = read_id(r, stem);
    sc.name = r.string("name", true).value_or("");
    sc.question = r.string("question", true).value_or("");
    r.object("source", true, [&](Reader& l) {
        sc.lesson.title = l.string("title", true).value_or("");
        sc.lesson.locator = l.string("locator", true).value_or("");
        sc.lesson.read_on = l.string("read_on", true).value_or("");
        if (!sc.lesson.read_on.empty() && !is_iso_date(sc.lesson.read_on)) l.error("read_on", "expected an ISO date YYYY-MM-DD");
    });
    const json* w = r.raw("workload");
    const json* team = r.raw("team");
    if (!w && !team) r.error("workload", "required field is missing (or team, for several workloads)");
    else if (w && team) r.error("team", "give workload or team, not both");
    else if (w && !w->is_object()) r.error("workload", "expected an object, got " + type_name(*w));
    else if (team && (!team->is_object() || !team->contains("cards") || !(*team)["cards"].is_array()))
        r.error("team", "expected an object with a cards array");
    else if (w) sc.workload_json = w->dump();
    else sc.team_json = team->dump();
    r.finish();
    if (ctx.issues.size() != before) return std::nullopt;
    return sc;
}

// [SECTION] Whole catalog -----------------------------------------------------------------------

template <class T> [[gnu::noinline]] void check_unique(std::vector<T>& items, Issues& issues, const std::string& folder) {
    std::map<std::string, std::string> owner; // normalized name -> id
    std::vector<T> kept;
    for (auto& item : items) {
        bool clash = false;
        for (const auto& id : std::vector<std::string>{item.id}) {
            if (owner.count("#" + id)) {
                issues.push_back({"id", "duplicate id \"" + id + "\"", folder + "/" + id + ".json"});
                clash = true;
            }
        }
        if (clash) continue;
        std::vector<std::string> names = item.aliases;
        names.push_back(item.name);
        names.push_back(item.id);
        for (const auto& n : names) {
            const std::string key = normalize_name(n);
            auto it = owner.find(key);
            if (it != owner.end() && it->second != item.id)
                issues.push_back({"aliases", "name \"" + n + "\" also names \"" + it->second + "\"",
                                  folder + "/" + item.id + ".json"});
        }
        for (const auto& n : names) owner.emplace(normalize_name(n), item.id);
        owner["#" + item.id] = item.id;
        kept.push_back(std::move(item));
    }
    items = std::move(kept);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// A rule's weight_formats name formats.json ids of the kinds it covers (efficiencies.json is read before formats.json).
[[gnu::noinline]] void check_rule_formats(CatalogLoad& out) {
    const Catalog& c = out.catalog;
    for (const auto& [group, rules] : {std::pair{"decode_bandwidth_efficiency", &c.decode_bandwidth_rules}, std::pair{"training_mfu", &c.training_mfu_rules},
                                       std::pair{"training_attention_efficiency", &c.training_attention_rules},
                                       std::pair{"decode_compute_efficiency_8bit", &c.decode_compute_8bit_rules}})
        for (const auto& r : *rules)
            for (const auto& id : r.weight_formats) {
                const WeightFormat* f = c.find_format(id);
                const std::string path = std::string(group) + "." + r.id + ".weight_formats";
                if (!f) out.issues.push_back({path, "unknown weight format \"" + id + "\" (an id in formats.json)", "efficiencies.json"});
                else if (!r.weight_format_kinds.empty() &&
                         std::find(r.weight_format_kinds.begin(), r.weight_format_kinds.end(), f->kind) == r.weight_format_kinds.end())
                    out.issues.push_back({path, "\"" + id + "\" is of kind " + f->kind + ", which the rule's weight_format_kinds do not name", "efficiencies.json"});
            }
}

// Each scenario's workload must be valid against the catalog it ships with; the others are dropped with their issues.
[[gnu::noinline]] void keep_valid_scenarios(CatalogLoad& out) {
    std::vector<Scenario> scenarios;
    for (auto& sc : out.catalog.scenarios) {
        std::vector<std::pair<std::string, std::string>> workloads; // path prefix, workload JSON
        if (!sc.workload_json.empty()) workloads.push_back({"workload", sc.workload_json});
        else {
            const json cards = json::parse(sc.team_json)["cards"];
            for (size_t i = 0; i < cards.size(); ++i) workloads.push_back({"team.cards[" + std::to_string(i) + "]", cards[i].dump()});
        }
        bool ok = true;
        for (const auto& [prefix, text] : workloads) {
            auto parsed = parse_workload(text, out.catalog);
            for (const auto& i : parsed.issues)
                out.issues.push_back({prefix + (i.path.empty() ? "" : "." + i.path), i.message, "scenarios/" + sc.id + ".json"});
            ok = ok && parsed.issues.empty();
        }
        if (ok) scenarios.push_back(std::move(sc));
    }
    out.catalog.scenarios = std::move(scenarios);
}

} // namespace

std::string normalize_name(const std::string& name) {
    std::string out;
    for (char c : name) {
        if (c == ' ' || c == '-' || c == '_' || c == '.') continue;
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

CatalogLoad load_catalog(const std::vector<CatalogFile>& files) {
    CatalogLoad out;
    auto sorted = files;
    std::sort(sorted.begin(), sorted.end(), [](const CatalogFile& a, const CatalogFile& b) { return a.path < b.path; });
    for (const auto& f : sorted) {
        Context ctx{f.path, out.issues};
        auto doc = parse_object(f.text, ctx);
        if (!doc) continue;
        const std::string stem = file_stem(f.path);
        if (starts_with(f.path, "devices/")) {
            if (auto d = read_device(*doc, ctx, stem)) out.catalog.devices.push_back(std::move(*d));
        } else if (starts_with(f.path, "models/")) {
            if (auto m = read_model(*doc, ctx, stem)) out.catalog.models.push_back(std::move(*m));
        } else if (starts_with(f.path, "apis/")) {
            if (auto a = read_api(*doc, ctx, stem)) out.catalog.apis.push_back(std::move(*a));
        } else if (f.path == "formats.json") {
            read_formats(*doc, ctx, out.catalog);
        } else if (f.path == "assumptions.json") {
            read_assumptions(*doc, ctx, out.catalog);
        } else if (f.path == "runtimes.json") {
            read_runtimes(*doc, ctx, out.catalog);
        } else if (f.path == "efficiencies.json") {
            read_efficiencies(*doc, ctx, out.catalog);
        } else if (f.path == "tools.json") {
            read_tools(*doc, ctx, out.catalog);
        } else if (f.path == "defaults.json") {
            if (auto d = read_defaults(*doc, ctx)) {
                out.catalog.defaults = std::move(*d);
                out.catalog.has_defaults = true;
            }
        } else if (starts_with(f.path, "scenarios/")) {
            if (auto sc = read_scenario(*doc, ctx, stem)) out.catalog.scenarios.push_back(std::move(*sc));
        } else {
            ctx.add("", "not a catalog file (expected devices/, models/, apis/, scenarios/, defaults.json, formats.json, "
                        "assumptions.json, runtimes.json, efficiencies.json or tools.json)");
        }
    }
    check_unique(out.catalog.devices, out.issues, "devices");
    check_unique(out.catalog.models, out.issues, "models");
    std::vector<ApiPrice> apis;
    for (auto& a : out.catalog.apis) {
        if (!a.model.empty() && !resolve_model(out.catalog, a.model).item) {
            out.issues.push_back({"model", "names \"" + a.model + "\", which is not a model in the catalog",
                                  "apis/" + a.id + ".json"});
            continue;
        }
        apis.push_back(std::move(a));
    }
    out.catalog.apis = std::move(apis);
    if (out.catalog.formats.empty())
        out.issues.push_back({"", "formats.json is missing or empty: weight formats are required", "formats.json"});
    else
        check_rule_formats(out);
    if (out.catalog.assumptions.empty())
        out.issues.push_back({"", "assumptions.json is missing or empty: the planner's defaults are required", "assumptions.json"});
    keep_valid_scenarios(out);
    if (!out.catalog.has_defaults)
        out.issues.push_back({"", "defaults.json is missing: cost defaults are required", "defaults.json"});
    return out;
}

namespace {

// One calibration of an extension: a known device and assumption, a value in the assumption's range.
std::optional<Calibration> read_calibration(const json& doc, const Context& ctx, const Catalog& catalog) {
    const size_t before = ctx.issues.size();
    Reader r(ctx, "", doc);
    Calibration k;
    k.device = r.string("device", true).value_or("");
    if (!k.device.empty() && !catalog.device_by_id(k.device))
        r.error("device", "unknown device id " + quote_input(k.device) + " (a catalog id, or a device of this extension listed before)");
    k.assumption = r.string("assumption", true).value_or("");
    if (!k.assumption.empty() && !assumption_member(k.assumption)) r.error("assumption", "unknown assumption " + quote_input(k.assumption));
    const auto def = catalog.assumptions.find(k.assumption);
    const bool ratio = def != catalog.assumptions.end() && def->second.unit == "ratio";
    k.value = r.number("value", true, ratio ? 1e-3 : 0.0, ratio ? 1.0 : 1e15).value_or(0);
    k.figure = r.string("figure", true).value_or("");
    k.measured = r.number("measured", true, 0.0, 1e18).value_or(0);
    k.modelled = r.number("modelled", true, 0.0, 1e18).value_or(0);
    k.measurement = r.string("measurement", true).value_or("");
    k.model = r.string("model", false).value_or("");
    k.precision = r.string("precision", false).value_or("");
    k.read_on = r.string("read_on", true).value_or("");
    if (!k.read_on.empty() && !is_iso_date(k.read_on)) r.error("read_on", "expected an ISO date YYYY-MM-DD, got " + quote_input(k.read_on));
    r.finish();
    if (ctx.issues.size() != before) return std::nullopt;
    return k;
}

} // namespace

Issues extend_catalog(Catalog& catalog, const std::string& json_text, const std::string& label) {
    Issues issues;
    Context ctx{label, issues};
    auto doc = parse_object(json_text, ctx);
    if (!doc) return issues;
    for (const auto& [key, value] : doc->items())
        if (key != "devices" && key != "models" && key != "calibrations")
            ctx.add(key, "unknown key (expected devices, models and calibrations)");
    auto each = [&](const char* key, auto&& fn) {
        if (!doc->contains(key)) return;
        const json& arr = (*doc)[key];
        if (!arr.is_array()) {
            ctx.add(key, "expected an array, got " + type_name(arr));
            return;
        }
        for (size_t i = 0; i < arr.size(); ++i) {
            Issues local;
            Context item_ctx{label, local};
            const std::string prefix = std::string(key) + "[" + std::to_string(i) + "]";
            if (!arr[i].is_object()) {
                issues.push_back({prefix, "expected an object, got " + type_name(arr[i]), label});
                continue;
            }
            fn(arr[i], item_ctx);
            for (auto& is : local) issues.push_back({prefix + (is.path.empty() ? "" : "." + is.path), is.message, label});
        }
    };
    auto clashes = [&](const auto& list, const auto& item, Context& c) {
        std::vector<std::string> names = item.aliases;
        names.push_back(item.name);
        names.push_back(item.id);
        for (const auto& existing : list) {
            std::vector<std::string> theirs = existing.aliases;
            theirs.push_back(existing.name);
            theirs.push_back(existing.id);
            for (const auto& n : names)
                for (const auto& t : theirs)
                    if (normalize_name(n) == normalize_name(t)) {
                        c.add(n == item.id ? "id" : "aliases",
                              "\"" + n + "\" already names \"" + existing.id + "\" in the catalog");
                        return true;
                    }
        }
        return false;
    };
    each("devices", [&](const json& v, Context& c) {
        if (auto d = read_device(v, c, ""); d && !clashes(catalog.devices, *d, c)) catalog.devices.push_back(std::move(*d));
    });
    each("models", [&](const json& v, Context& c) {
        if (auto m = read_model(v, c, ""); m && !clashes(catalog.models, *m, c)) catalog.models.push_back(std::move(*m));
    });
    each("calibrations", [&](const json& v, Context& c) {
        if (auto k = read_calibration(v, c, catalog)) {
            auto& list = catalog.calibrations;
            list.erase(std::remove_if(list.begin(), list.end(), [&](const Calibration& x) { return x.device == k->device && x.assumption == k->assumption; }),
                       list.end());
            list.push_back(std::move(*k));
        }
    });
    return issues;
}

// [SECTION] Name resolution ---------------------------------------------------------------------

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

// Whether normalize_name(name) == normalized, without building the normalized copy: resolve() runs this
// against every name of every catalog entry on each plan (callgrind put normalize_name's allocations at
// about 7 % of a one-device plan natively, more in WebAssembly, where each allocation costs more).
bool same_normalized(const std::string& name, const std::string& normalized) {
    size_t at = 0;
    for (char c : name) {
        if (c == ' ' || c == '-' || c == '_' || c == '.') continue;
        if (at == normalized.size() || static_cast<char>(std::tolower(static_cast<unsigned char>(c))) != normalized[at]) return false;
        ++at;
    }
    return at == normalized.size();
}

template <class T> Resolved<T> resolve(const std::vector<T>& items, const std::string& query, const char* what) {
    Resolved<T> out;
    const std::string q = normalize_name(query);
    std::vector<const T*> hits;
    for (const auto& item : items) {
        bool hit = same_normalized(item.id, q) || same_normalized(item.name, q);
        for (const auto& a : item.aliases) hit = hit || same_normalized(a, q);
        if (hit) hits.push_back(&item);
    }
    if (hits.size() == 1) {
        out.item = hits.front();
        return out;
    }
    if (hits.size() > 1) {
        std::string list;
        for (const auto* h : hits) list += (list.empty() ? "" : ", ") + h->id;
        out.issue = {"", quote_input(query) + " is ambiguous: it names " + list + "; use an id"};
        return out;
    }
    // Unknown: suggest up to three close names (small edit distance, or one contains the other). A query
    // longer than any name plus a typo's worth is no misspelling; skipping it keeps a pasted megabyte fast.
    constexpr size_t kMaxSuggestLength = 128;
    std::vector<std::pair<size_t, std::string>> close;
    for (const auto& item : items) {
        if (q.size() > kMaxSuggestLength) break;
        size_t best = std::string::npos;
        std::vector<std::string> names = item.aliases;
        names.push_back(item.id);
        names.push_back(item.name);
        for (const auto& n : names) {
            const std::string k = normalize_name(n);
            size_t d = edit_distance(q, k);
            if (!q.empty() && (k.find(q) != std::string::npos || q.find(k) != std::string::npos)) d = std::min<size_t>(d, 1);
            best = std::min(best, d);
        }
        if (best <= std::max<size_t>(2, q.size() / 3)) close.push_back({best, item.id});
    }
    std::sort(close.begin(), close.end());
    std::string msg = std::string("unknown ") + what + " " + quote_input(query);
    if (!close.empty()) {
        msg += "; close matches: ";
        for (size_t i = 0; i < close.size() && i < 3; ++i) msg += (i ? ", " : "") + close[i].second;
    }
    out.issue = {"", msg};
    return out;
}

} // namespace

Resolved<Device> resolve_device(const Catalog& catalog, const std::string& name) {
    return resolve(catalog.devices, name, "device");
}

Resolved<Model> resolve_model(const Catalog& catalog, const std::string& name) {
    return resolve(catalog.models, name, "model");
}

const Scenario* find_scenario(const Catalog& catalog, const std::string& id) {
    for (const auto& s : catalog.scenarios)
        if (s.id == id) return &s;
    return nullptr;
}

const Device* Catalog::device_by_id(const std::string& id) const {
    for (const auto& d : devices)
        if (d.id == id) return &d;
    return nullptr;
}

const ToolInterface* Catalog::find_tool(const std::string& id) const {
    for (const auto& t : tools)
        if (t.id == id) return &t;
    return nullptr;
}

const EncoderRuntime* Catalog::find_encoder_runtime(const std::string& id) const {
    for (const auto& r : encoder_runtimes)
        if (id.empty() ? r.is_default : r.id == id) return &r;
    return nullptr;
}

const DecodeRuntime* Catalog::find_decode_runtime(const std::string& id) const {
    for (const auto& r : decode_runtimes)
        if (id.empty() ? r.is_default : r.id == id) return &r;
    return nullptr;
}

const TrainingRuntime* Catalog::find_runtime(const std::string& id) const {
    for (const auto& t : training_runtimes)
        if (t.id == id) return &t;
    return nullptr;
}

const WeightFormat* Catalog::find_format(const std::string& name) const {
    for (const auto& f : formats) // the canonical name, as the planner passes it, without normalizing
        if (f.name == name) return &f;
    const std::string key = normalize_name(name);
    for (const auto& f : formats)
        if (same_normalized(f.name, key)) return &f;
    return nullptr;
}

std::string_view name(DeviceKind k) { return kDeviceKinds[static_cast<size_t>(k)]; }
std::string_view name(PriceKind k) { return kPriceKinds[static_cast<size_t>(k)]; }

} // namespace hwplan
