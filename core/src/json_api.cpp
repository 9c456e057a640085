// json_api.cpp: JSON text in, JSON text out. Every failure is returned as {"errors": [...]}; nothing
// here throws to the caller (a throw across the WebAssembly boundary would abort the module).
#include "hwplan/json_api.h"
#include "hwplan/guard.h"
#include "hwplan/measurement.h"
#include "hwplan/run_compare.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "json_reader.h"
#include "json_writer.h"

#ifndef HWPLAN_VERSION
#error "HWPLAN_VERSION must be defined by the build"
#endif

namespace hwplan {

namespace {

using nlohmann::json;

json issue_array(const Issues& issues) {
    json arr = json::array();
    for (const auto& i : issues) {
        json e{{"path", i.path}, {"message", i.message}};
        if (!i.file.empty()) e["file"] = i.file;
        arr.push_back(e);
    }
    return arr;
}

// Messages quote user text through quote_input (valid UTF-8); `replace` keeps even a stray byte from throwing.
std::string errors_json(const Issues& issues) {
    return json{{"errors", issue_array(issues)}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The last line of defence at the JSON edge (guard.h): whatever escapes the core, of any type, comes back as
// {"errors": [{"path": <entry point>, "message": "internal error: ..."}]}, never as a throw across the
// WebAssembly boundary (which would abort the module and the page with it).
template <class F> std::string answer(std::string_view entry_point, F&& fn) {
    return guarded(entry_point, fn, [](const Issue& i) { return errors_json({i}); });
}

json sources_json(const std::vector<Source>& sources, const std::map<std::string, std::string>& source_of) {
    json refs = json::object();
    for (const auto& s : sources) {
        json r{{"title", s.title}, {"locator", s.locator}, {"read_on", s.read_on}};
        if (!s.publisher.empty()) r["publisher"] = s.publisher;
        if (!s.url.empty()) r["url"] = s.url;
        if (!s.derivation.empty()) r["derivation"] = s.derivation;
        refs[s.id] = r;
    }
    return json{{"references", refs}, {"figures", source_of}};
}

// A peak rate: a number, null when the hardware lacks the precision; absent when not published.
void put_peak(json& j, const char* key, const PeakRate& p) {
    if (!p.published) return;
    j[key] = p.supported ? json(p.flop_per_s) : json(nullptr);
}

// Parses `text` as a JSON object; on failure returns the issue describing why.
std::optional<Issue> parse_object(const std::string& text, json& out) {
    Issues issues;
    auto doc = detail::parse_object(text, detail::Context{"", issues});
    if (!doc) return issues.front();
    out = std::move(*doc);
    return std::nullopt;
}

using detail::type_name;

} // namespace

std::string to_json(const WeightsEstimate& e) {
    if (!e.issues.empty()) return errors_json(e.issues);
    return json{{"params", e.params},
                {"precision", std::string(name(e.precision))},
                {"bytes_per_param", e.bytes_per_param},
                {"weights_bytes", e.weights_bytes}}
        .dump();
}

namespace {

std::string weights_json_unguarded(const std::string& request) {
    json doc;
    if (auto bad = parse_object(request, doc)) return errors_json({*bad});
    Issues issues;
    WeightsInput in;
    const auto params = doc.find("params");
    if (params == doc.end())
        issues.push_back({"params", "required field is missing"});
    else if (!params->is_number())
        issues.push_back({"params", "expected a number, got " + type_name(*params)});
    else
        in.params = params->get<double>();
    const auto precision = doc.find("precision");
    if (precision == doc.end())
        issues.push_back({"precision", "required field is missing"});
    else if (!precision->is_string())
        issues.push_back({"precision", "expected a string, got " + type_name(*precision)});
    else
        in.precision = precision->get<std::string>();
    for (const auto& [key, value] : doc.items())
        if (key != "params" && key != "precision") issues.push_back({key, "unknown field"});
    if (!issues.empty()) return errors_json(issues);
    return to_json(estimate_weights(in));
}

} // namespace

std::string weights_json(const std::string& request) {
    return answer("weights", [&] { return weights_json_unguarded(request); });
}

std::string issues_json(const Issues& issues) { return errors_json(issues); }

std::string devices_json(const Catalog& catalog) {
    json arr = json::array();
    for (const auto& d : catalog.devices) {
        json j{{"id", d.id}, {"name", d.name}, {"aliases", d.aliases}, {"vendor", d.vendor},
               {"kind", std::string(name(d.kind))}, {"released", d.released},
               {"memory_bytes", d.memory_bytes}, {"memory_type", d.memory_type},
               {"usable_memory_ratio", d.usable_memory_ratio}, {"bandwidth_bytes_per_s", d.bandwidth_bytes_per_s}};
        if (!d.usable_rule.empty()) j["usable_rule"] = d.usable_rule;
        put_peak(j, "fp64_flop_per_s", d.fp64);
        put_peak(j, "fp32_flop_per_s", d.fp32);
        put_peak(j, "tf32_flop_per_s", d.tf32);
        put_peak(j, "bf16_flop_per_s", d.bf16);
        put_peak(j, "fp16_flop_per_s", d.fp16);
        put_peak(j, "fp8_flop_per_s", d.fp8);
        put_peak(j, "int8_op_per_s", d.int8);
        put_peak(j, "fp4_flop_per_s", d.fp4);
        if (!d.compute_note.empty()) j["compute_note"] = d.compute_note;
        j["interconnect"] = {{"kind", d.interconnect_kind}, {"bandwidth_bytes_per_s", d.interconnect_bytes_per_s},
                             {"domain_size", d.domain_size}};
        if (d.tdp_w > 0) j["tdp_w"] = d.tdp_w;
        if (d.min_power_w > 0) j["min_power_w"] = d.min_power_w;
        if (!d.partitions.empty()) {
            json parts = json::array();
            for (const auto& p : d.partitions)
                parts.push_back({{"name", p.name}, {"memory_bytes", p.memory_bytes}, {"max_instances", p.max_instances}});
            j["partitioning"] = {{"kind", d.partitioning_kind}, {"profiles", parts}};
        }
        if (d.system_accelerators > 1) j["system"] = {{"accelerators", d.system_accelerators}, {"name", d.system_name}};
        j["software"] = d.software;
        j["availability"] = {{"buy", d.can_buy}, {"rent", d.can_rent},
                             {"cloud_only", d.cloud_only.empty() ? json(nullptr) : json(d.cloud_only)}};
        json prices = json::array();
        for (const auto& p : d.prices) {
            json pj{{"kind", std::string(name(p.kind))}, {"provider", p.provider}, {"source", p.source}};
            if (p.kind == PriceKind::purchase) {
                pj["usd"] = p.usd;
            } else {
                pj["usd_per_hour"] = p.usd_per_hour;
            }
            if (p.devices_per_unit > 0) pj["devices_per_unit"] = p.devices_per_unit;
            if (!p.unit.empty()) pj["unit"] = p.unit;
            prices.push_back(pj);
        }
        j["prices"] = prices;
        if (!d.purchase_unpublished.empty() || !d.rental_unpublished.empty()) {
            json why = json::object();
            if (!d.purchase_unpublished.empty()) why["purchase"] = d.purchase_unpublished;
            if (!d.rental_unpublished.empty()) why["rental"] = d.rental_unpublished;
            j["price_unpublished"] = why;
        }
        if (!d.notes.empty()) j["notes"] = d.notes;
        j["sources"] = sources_json(d.sources, d.source_of);
        arr.push_back(j);
    }
    return json{{"devices", arr}}.dump();
}

std::string models_json(const Catalog& catalog) {
    json arr = json::array();
    for (const auto& m : catalog.models) {
        const auto& a = m.arch;
        const ParamCount c = derive_params(a, m.extra_params);
        json layers = json::array();
        for (const auto& l : a.attention_layers) {
            json lj{{"kind", std::string(name(l.kind))}, {"count", l.count}};
            if (l.kind == AttentionKind::sliding) lj["window_tokens"] = l.window;
            layers.push_back(lj);
        }
        json arch{{"layers", a.layers}, {"hidden", a.hidden}, {"heads", a.heads}, {"kv_heads", a.kv_heads},
                  {"head_dim", a.head_dim}, {"intermediate", a.intermediate}, {"vocab", a.vocab},
                  {"tied_embeddings", a.tied_embeddings}, {"max_context_tokens", a.max_context},
                  {"attention_layers", layers}};
        if (a.has_mla)
            arch["mla"] = {{"kv_lora_rank", a.mla.kv_lora_rank}, {"q_lora_rank", a.mla.q_lora_rank},
                           {"qk_nope_head_dim", a.mla.qk_nope_head_dim}, {"qk_rope_head_dim", a.mla.qk_rope_head_dim},
                           {"v_head_dim", a.mla.v_head_dim}};
        if (a.has_moe)
            arch["moe"] = {{"experts", a.moe.experts}, {"active_experts", a.moe.active_experts},
                           {"shared_experts", a.moe.shared_experts}, {"expert_intermediate", a.moe.expert_intermediate},
                           {"dense_layers", a.moe.dense_layers}};
        json j{{"id", m.id}, {"name", m.name}, {"aliases", m.aliases}, {"family", m.family},
               {"kind", std::string(name(m.kind))}, {"published_params", m.published_params},
               {"derived_params", c.total}, {"derived_active_params", c.active}, {"architecture", arch}};
        if (m.published_active_params > 0) j["published_active_params"] = m.published_active_params;
        if (!m.extra_params.empty()) j["extra_params"] = m.extra_params;
        j["sources"] = sources_json(m.sources, m.source_of);
        arr.push_back(j);
    }
    return json{{"models", arr}}.dump();
}

namespace {

// Adds a request's "extension" value (models, devices, calibrations) to `catalog`; the issues name their path
// under "extension" (empty on success).
Issues extend_with(const json& extension, Catalog& catalog) {
    if (!extension.is_object()) return {{"extension", "expected an object, got " + type_name(extension)}};
    Issues issues = extend_catalog(catalog, extension.dump(), "extension");
    for (auto& i : issues) i.path = "extension." + i.path;
    return issues;
}

// A request that holds only an optional extension: applies it to `catalog` (a copy of the base).
Issues apply_extension(const std::string& request, Catalog& catalog) {
    json doc;
    if (auto bad = parse_object(request, doc)) return {*bad};
    Issues issues;
    for (const auto& [key, value] : doc.items())
        if (key != "extension") issues.push_back({key, "unknown field"});
    if (!issues.empty()) return issues;
    return doc.contains("extension") ? extend_with(doc["extension"], catalog) : Issues{};
}

} // namespace

std::string devices_request_json(const Catalog& base, const std::string& request) {
    return answer("devices", [&] {
        Catalog catalog = base;
        if (auto issues = apply_extension(request, catalog); !issues.empty()) return errors_json(issues);
        return devices_json(catalog);
    });
}

std::string models_request_json(const Catalog& base, const std::string& request) {
    return answer("models", [&] {
        Catalog catalog = base;
        if (auto issues = apply_extension(request, catalog); !issues.empty()) return errors_json(issues);
        return models_json(catalog);
    });
}

namespace {

// JSON has no NaN or infinity: an unbounded figure (an unstable queue) becomes null with the reason kept.
json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json figure_json_checked(const Figure& f) {
    return json{{"value", finite_or_null(f.value)}, {"low", finite_or_null(f.low)}, {"high", finite_or_null(f.high)},
                {"label", std::string(name(f.label))}, {"why", f.why}};
}

// [SECTION] The plan's JSON, written straight from the plan (json_writer.h): each object's keys in the order dump()
// sorts them into, so the text is byte for byte what building the nlohmann tree and dumping it printed. Non-finite
// numbers are written as null (an unbounded figure, an unstable queue), as dump() writes them.
using detail::JsonWriter;

void write_figure(JsonWriter& w, const Figure& f) {
    w.begin_object();
    w.member("high", f.high);
    w.member("label", name(f.label));
    w.member("low", f.low);
    w.member("value", f.value);
    w.member("why", f.why);
    w.end_object();
}

// The members of an object whose keys are not all known in advance (a candidate's figures sit beside its fixed keys,
// an option's cost under its unit's name): gathered in the order the tree code assigned them, put in key order, and
// where two share a key the later one written, as assigning it again in the tree kept the later value.
struct Member {
    std::string_view key;
    int what;            // the caller's tag for the value
    const Figure* figure; // the figure, for a figure member
};
template <class F> void write_members(JsonWriter& w, std::vector<Member>& members, F&& write_value) {
    std::stable_sort(members.begin(), members.end(), [](const Member& a, const Member& b) { return a.key < b.key; });
    w.begin_object();
    for (size_t i = 0; i < members.size(); ++i) {
        if (i + 1 < members.size() && members[i + 1].key == members[i].key) continue; // assigned again later
        w.key(members[i].key);
        write_value(members[i]);
    }
    w.end_object();
}

// A training layout (parallel.h) with its memory, step split and MFU.
void write_layout_result(JsonWriter& w, const LayoutResult& r) {
    const TrainingLayout& l = r.layout;
    w.begin_object();
    w.member("activations_bytes", r.activations_bytes);
    w.member("bubble_s", r.bubble_s);
    w.member("capacity_bytes", r.capacity_bytes);
    w.member("communication_s", r.communication_s);
    w.member("compute_s", r.compute_s);
    w.member("context_parallel", l.context_parallel);
    w.member("data_parallel", l.data_parallel);
    w.member("describe", describe(l));
    w.member("expert_parallel", l.expert_parallel);
    w.member("fits", r.fits);
    w.member("gradients_bytes", r.gradients_bytes);
    w.member("memory_bytes", r.memory_bytes);
    w.member("mfu", r.mfu);
    w.member("micro_batch", l.micro_batch);
    w.member("micro_batches", l.micro_batches);
    w.member("optimizer_bytes", r.optimizer_bytes);
    w.member("overhead_bytes", r.overhead_bytes);
    w.member("pipeline_parallel", l.pipeline_parallel);
    w.member("recompute", name(l.recompute));
    w.member("step_s", r.step_s);
    w.member("tensor_parallel", l.tensor_parallel);
    w.member("time_to_train_s", r.time_to_train_s);
    w.member("tokens_per_s", r.tokens_per_s);
    w.member("virtual_stages", l.virtual_stages);
    w.member("weights_bytes", r.weights_bytes);
    w.member("zero_stage", l.zero_stage);
    w.end_object();
}

// A candidate's layout; a training one also says its context parallelism, pipeline chunks, micro-batches and
// recomputation (the point of the training search it is).
void write_layout_of(JsonWriter& w, const Candidate& c, Stage stage) {
    const Layout& l = c.layout;
    const bool trains = stage == Stage::finetune || stage == Stage::pretrain || stage == Stage::rl;
    w.begin_object();
    if (trains) w.member("context_parallel", l.context_parallel);
    if (!c.count_why.empty()) w.member("count_why", c.count_why);
    w.member("data_parallel", l.data_parallel);
    w.member("expert_parallel", l.expert_parallel);
    if (trains) {
        w.member("micro_batch", l.micro_batch);
        w.member("micro_batches", l.micro_batches);
    }
    w.member("pipeline_parallel", l.pipeline_parallel);
    if (trains) w.member("recompute", name(l.recompute));
    w.member("tensor_parallel", l.tensor_parallel);
    if (trains) w.member("virtual_stages", l.virtual_stages);
    w.member("zero_stage", l.zero_stage);
    w.end_object();
}

void write_layouts(JsonWriter& w, const LayoutSearch& s) {
    w.begin_object();
    w.key("alternatives");
    w.begin_array();
    for (size_t i = 1; i < s.layouts.size(); ++i) write_layout_result(w, s.layouts[i]);
    w.end_array();
    w.key("best");
    if (s.layouts.empty()) w.null();
    else write_layout_result(w, s.layouts.front());
    w.member("devices", s.devices);
    w.member("explanation", s.explanation);
    w.member("fitting", s.fitting);
    w.member("found", s.found);
    w.member("global_batch", s.global_batch);
    w.member("searched", s.searched);
    w.end_object();
}

void write_serving_point(JsonWriter& w, const ServingPoint& p) {
    w.begin_object();
    w.member("batch_sequences", p.batch_sequences);
    w.member("count", p.count);
    w.member("describe", p.describe);
    w.member("devices_per_replica", p.devices_per_replica);
    w.member("expert_parallel", p.expert_parallel);
    w.member("fits", p.fits);
    w.member("fleet_devices", p.fleet_devices);
    w.member("meets_targets", p.meets_targets);
    w.member("pipeline_parallel", p.pipeline_parallel);
    w.member("replicas", p.replicas);
    w.member("score", p.score);
    w.member("tensor_parallel", p.tensor_parallel);
    w.member("throughput_tokens_per_s", p.throughput_tokens_per_s);
    w.member("tokens_per_s_per_device", p.tokens_per_s_per_device);
    w.end_object();
}

// The serving search as the training one is written: the best point (the candidate's) and the runners-up.
void write_serving(JsonWriter& w, const ServingSearch& s) {
    w.begin_object();
    w.key("alternatives");
    w.begin_array();
    for (size_t i = 1; i < s.points.size(); ++i) write_serving_point(w, s.points[i]);
    w.end_array();
    w.key("best");
    if (s.points.empty()) w.null();
    else write_serving_point(w, s.points.front());
    w.member("explanation", s.explanation);
    w.member("objective", s.objective);
    w.member("searched", s.searched);
    w.end_object();
}

void write_rl(JsonWriter& w, const RlPools& r) {
    w.begin_object();
    w.member("explanation", r.explanation);
    w.member("generation_s", r.generation_s);
    w.member_strings("reasons", r.reasons);
    w.member("replica_devices", r.replica_devices);
    w.member("rollout_devices", r.rollout_devices);
    w.member("rollout_replicas", r.rollout_replicas);
    w.member("rollout_share", r.rollout_share);
    w.member("rollouts_per_replica", r.rollouts_per_replica);
    w.member("sized", r.sized);
    w.member("splits_searched", r.splits_searched);
    w.member("step_s", r.step_s);
    w.member("sync_bytes_per_device", r.sync_bytes_per_device);
    w.member("sync_over_scale_out", r.sync_over_scale_out);
    w.member("sync_s", r.sync_s);
    w.member("train_s", r.train_s);
    w.member("trainer_devices", r.trainer_devices);
    w.end_object();
}

// The run section (run_it.h): {"available", "device", "count", "option", "reason"?, "entry_point"?, "deploy": [...],
// "measure": [...], "predicted": [...], "notes", "setup"?}.
void write_run(JsonWriter& w, const RunIt& r) {
    auto commands = [&](const std::vector<RunCommand>& cs) {
        w.begin_array();
        for (const auto& c : cs) {
            w.begin_object();
            if (!c.file.empty()) w.member("file", c.file);
            w.member("release", c.release);
            w.member("text", c.text);
            w.member("tool", c.tool);
            if (!c.unrecorded.empty()) w.member_strings("unrecorded", c.unrecorded); // only with a chosen release (RunItOptions)
            w.member("what", c.what);
            w.end_object();
        }
        w.end_array();
    };
    w.begin_object();
    w.member("available", r.available);
    w.member("count", r.count);
    w.key("deploy");
    commands(r.deploy);
    w.member("device", r.device);
    if (!r.entry_point.empty()) w.member("entry_point", r.entry_point);
    w.key("measure");
    commands(r.measure);
    w.member_strings("notes", r.notes);
    w.member("option", r.option);
    w.key("predicted");
    w.begin_array();
    for (const auto& l : r.predicted) {
        w.begin_object();
        w.member("figure", l.figure);
        if (l.banded) w.member("high", l.high);
        if (l.banded) w.member("low", l.low);
        w.member("metric", l.metric);
        if (!l.note.empty()) w.member("note", l.note);
        w.member("unit", l.unit);
        w.member("value", l.value);
        w.end_object();
    }
    w.end_array();
    if (!r.reason.empty()) w.member("reason", r.reason);
    if (r.setup.prompt_tokens > 0) {
        w.key("setup");
        w.begin_object();
        w.member("concurrency", r.setup.concurrency);
        w.member("output_tokens", r.setup.output_tokens);
        w.member("prompt_tokens", r.setup.prompt_tokens);
        w.member("requests", r.setup.requests);
        w.end_object();
    } else if (r.setup.batch_samples > 0) {
        w.key("setup");
        w.begin_object();
        w.member("batch_samples", r.setup.batch_samples);
        w.end_object();
    }
    w.end_object();
}

void write_candidate(JsonWriter& w, const Candidate& c, Stage stage, std::vector<Member>& members) {
    // The tree code's order of assignment: the fixed keys, the figures under their own names, then the searches.
    enum { count, device, device_name, fits, layout, memory, notes, option, phases, regime, regime_why, figure, layouts, rl, serving_search };
    members.clear();
    for (auto [k, what] : {std::pair<std::string_view, int>{"count", count}, {"device", device}, {"device_name", device_name}, {"fits", fits},
                           {"layout", layout}, {"memory", memory}, {"notes", notes}, {"option", option}, {"phases", phases},
                           {"regime", regime}, {"regime_why", regime_why}})
        members.push_back({k, what, nullptr});
    for (const auto& [k, f] : c.figures) members.push_back({k, figure, &f});
    if (c.layouts.searched > 0 || !c.layouts.explanation.empty()) members.push_back({"layouts", layouts, nullptr});
    if (!c.rl.explanation.empty()) members.push_back({"rl", rl, nullptr});
    if (!c.serving.points.empty()) members.push_back({"serving_search", serving_search, nullptr});
    write_members(w, members, [&](const Member& m) {
        switch (m.what) {
        case count: w.value(c.count); break;
        case device: w.value(c.device); break;
        case device_name: w.value(c.device_name); break;
        case fits: w.value(c.fits); break;
        case layout: write_layout_of(w, c, stage); break;
        case memory: {
            const auto& mu = c.memory;
            w.begin_object();
            w.member("activations_bytes", mu.activations_bytes);
            w.member("capacity_bytes", mu.capacity_bytes);
            w.member("gradients_bytes", mu.gradients_bytes);
            w.member("kv_cache_bytes", mu.kv_cache_bytes);
            w.member("optimizer_bytes", mu.optimizer_bytes);
            w.member("overhead_bytes", mu.overhead_bytes);
            w.key("terms");
            w.begin_array();
            for (const auto& t : mu.terms) {
                w.begin_object();
                w.member("bytes", t.bytes);
                w.member("name", t.name);
                w.member("why", t.why);
                w.end_object();
            }
            w.end_array();
            w.member("total_bytes", mu.total_bytes);
            w.member("total_high_bytes", mu.total_high_bytes);
            w.member("total_low_bytes", mu.total_low_bytes);
            w.member("weights_bytes", mu.weights_bytes);
            w.end_object();
            break;
        }
        case notes: w.strings(c.notes); break;
        case option: w.value(c.option); break;
        case phases:
            w.begin_array();
            for (const auto& ph : c.phases) {
                const auto& r = ph.roofline;
                w.begin_object();
                w.member("bound", r.compute_bound ? "compute" : "bandwidth");
                w.member("bytes", r.bytes);
                w.member("communication_s", ph.communication_s);
                w.member("compute_s", r.compute_s);
                w.member("flops", r.flops);
                w.member("intensity_flop_per_byte", r.intensity_flop_per_byte);
                w.member("memory_s", r.memory_s);
                w.member("name", ph.name);
                w.member("overhead_s", ph.overhead_s);
                w.member("precision", ph.precision);
                w.member("ridge_flop_per_byte", r.ridge_flop_per_byte);
                w.member("time_s", ph.time_s);
                w.end_object();
            }
            w.end_array();
            break;
        case regime: w.value(name(c.regime)); break;
        case regime_why: w.value(c.regime_why); break;
        case figure: write_figure(w, *m.figure); break;
        case layouts: write_layouts(w, c.layouts); break;
        case rl: write_rl(w, c.rl); break;
        case serving_search: write_serving(w, c.serving); break;
        }
    });
}

void write_option(JsonWriter& w, const Option& o, std::vector<Member>& members) {
    enum { kind, name_, device, count, unit, feasible, reasons, rank_why, replicas, fleet, cost_terms, speed, latency_s, power_w, power_draw_w, cost, usd_per_month };
    members.clear();
    for (auto [k, what] : {std::pair<std::string_view, int>{"kind", kind}, {"name", name_}, {"device", device}, {"count", count}, {"unit", unit},
                           {"feasible", feasible}, {"reasons", reasons}})
        members.push_back({k, what, nullptr});
    if (o.kind != "api") {
        members.push_back({"replicas", replicas, nullptr});
        members.push_back({"fleet", fleet, nullptr});
    }
    if (!o.rank_why.empty()) members.push_back({"rank_why", rank_why, nullptr});
    if (!o.cost_terms.empty()) members.push_back({"cost_terms", cost_terms, nullptr});
    if (o.speed > 0) members.push_back({"speed", speed, nullptr});
    if (o.latency_s > 0) members.push_back({"latency_s", latency_s, nullptr});
    if (o.power_w > 0) members.push_back({"power_w", power_w, nullptr});
    if (o.power_draw_w > 0) members.push_back({"power_draw_w", power_draw_w, nullptr});
    if (o.cost.value > 0) members.push_back({o.unit, cost, &o.cost}); // the cost under its unit's name
    if (o.usd_per_month >= 0) members.push_back({"usd_per_month", usd_per_month, nullptr});
    write_members(w, members, [&](const Member& m) {
        switch (m.what) {
        case kind: w.value(o.kind); break;
        case name_: w.value(o.name); break;
        case device: w.value(o.device); break;
        case count: w.value(o.count); break;
        case unit: w.value(o.unit); break;
        case feasible: w.value(o.feasible); break;
        case reasons: w.strings(o.reasons); break;
        case rank_why: w.value(o.rank_why); break;
        case replicas: w.value(o.replicas); break;
        case fleet: w.value(o.fleet); break;
        case cost_terms:
            w.begin_array();
            for (const auto& t : o.cost_terms) {
                w.begin_object();
                w.member("term", t.term);
                w.member("value", t.value);
                w.end_object();
            }
            w.end_array();
            break;
        case speed: w.value(o.speed); break;
        case latency_s: w.value(o.latency_s); break;
        case power_w: w.value(o.power_w); break;
        case power_draw_w: w.value(o.power_draw_w); break;
        case cost: write_figure(w, *m.figure); break;
        case usd_per_month: w.value(o.usd_per_month); break;
        }
    });
}

} // namespace

std::string to_json(const RunIt& run) {
    std::string out;
    JsonWriter w(out);
    w.begin_object();
    w.key("run");
    write_run(w, run);
    w.end_object();
    return out;
}

std::string to_json(const Plan& p) {
    if (!p.issues.empty()) return errors_json(p.issues);
    std::string out;
    out.reserve(64 * 1024 + 8 * 1024 * p.candidates.size()); // a whole-catalog serving plan: about 10 KB a candidate
    JsonWriter w(out);
    std::vector<Member> members;
    members.reserve(64);
    w.begin_object();
    w.key("plan");
    w.begin_object();
    w.key("best_by_kind");
    w.begin_array();
    for (const int i : p.best_by_kind) {
        const Option& o = p.options[static_cast<size_t>(i)];
        w.begin_object();
        w.key("cost");
        if (o.cost.value > 0) w.value(o.cost.value);
        else w.null();
        w.member("kind", o.kind);
        w.member("name", o.name);
        w.member("unit", o.unit);
        if (o.usd_per_month >= 0) w.member("usd_per_month", o.usd_per_month);
        w.end_object();
    }
    w.end_array();
    w.key("breakeven");
    w.begin_object();
    w.key("curve");
    w.begin_array();
    for (const auto& [h, m] : p.breakeven_curve) {
        w.begin_object();
        w.member("hours_per_month", h);
        w.member("months", m);
        w.end_object();
    }
    w.end_array();
    w.member("device", p.breakeven_device);
    w.end_object();
    w.key("candidates");
    w.begin_array();
    for (const auto& c : p.candidates) write_candidate(w, c, p.stage, members);
    w.end_array();
    const Decision& d = p.decision;
    w.key("decision");
    w.begin_object();
    w.member("binding", d.binding);
    w.member_strings("checks", d.checks);
    w.member_strings("eliminated", d.eliminated);
    w.member("guide", d.guide);
    w.member("guide_agrees", d.guide_agrees);
    w.member("guide_note", d.guide_note);
    w.member("guide_why", d.guide_why);
    w.member("priority", d.priority);
    w.member("runner_up", d.runner_up);
    w.member("scale", d.scale);
    w.member("scale_why", d.scale_why);
    w.member("site", d.site);
    w.member("stack", d.stack);
    w.end_object();
    w.key("flips");
    w.begin_array();
    for (const auto& f : p.flips) {
        w.begin_object();
        if (f.found) w.member("at", f.at);
        if (f.found) w.member("becomes", f.becomes);
        w.member("found", f.found);
        w.member("high", f.high);
        w.member("input", f.input);
        w.member("low", f.low);
        w.member("text", f.text);
        w.member("unit", f.unit);
        w.member("value", f.value);
        w.end_object();
    }
    w.end_array();
    w.member_strings("missing_assumptions", p.missing_assumptions);
    w.key("model");
    w.begin_object();
    w.member("active_params", p.active_params);
    w.member("id", p.model_id);
    w.member("name", p.model_name);
    w.member("params", p.params);
    w.end_object();
    w.member("name", p.name);
    w.member_strings("notes", p.notes);
    w.key("options");
    w.begin_array();
    for (const auto& o : p.options) write_option(w, o, members);
    w.end_array();
    w.key("precision");
    w.begin_object();
    w.member("compute", p.precision.compute);
    w.member("kv_cache", p.precision.kv_cache);
    w.member("weights", p.precision.weights);
    w.end_object();
    w.key("recommendation");
    w.begin_object();
    w.member("found", p.recommendation.found);
    w.member("headline", p.recommendation.headline);
    w.member("lever", p.recommendation.lever);
    if (p.recommendation.found) {
        w.key("option");
        write_option(w, p.recommendation.option, members);
    }
    w.member_strings("reasons", p.recommendation.reasons);
    w.member("summary", p.recommendation.summary);
    w.end_object();
    w.key("run");
    write_run(w, p.run);
    w.member_strings("sensitivity", p.sensitivity);
    w.member("stage", name(p.stage));
    w.end_object();
    w.end_object();
    return out;
}

std::string scenarios_json(const Catalog& catalog) {
    json arr = json::array();
    for (const auto& s : catalog.scenarios)
        arr.push_back({{"id", s.id}, {"name", s.name}, {"question", s.question},
                       {"source", {{"title", s.lesson.title}, {"locator", s.lesson.locator}, {"read_on", s.lesson.read_on}}},
                       {s.team_json.empty() ? "workload" : "team", json::parse(s.team_json.empty() ? s.workload_json : s.team_json)}});
    return json{{"scenarios", arr}}.dump();
}

std::string plan_json(const Catalog& catalog, const std::string& workload_json) {
    return answer("plan", [&] { return to_json(plan_from_json(workload_json, catalog)); });
}

std::string plan_request_json(const Catalog& base, const std::string& request) {
    return answer("plan", [&] {
        json doc;
        if (auto bad = parse_object(request, doc)) return errors_json({*bad});
        Issues issues;
        for (const auto& [key, value] : doc.items())
            if (key != "workload" && key != "extension") issues.push_back({key, "unknown field"});
        if (!doc.contains("workload")) issues.push_back({"workload", "required field is missing"});
        else if (!doc["workload"].is_object()) issues.push_back({"workload", "expected an object, got " + type_name(doc["workload"])});
        if (!issues.empty()) return errors_json(issues);
        Catalog catalog = base;
        if (doc.contains("extension"))
            if (auto bad = extend_with(doc["extension"], catalog); !bad.empty()) return errors_json(bad);
        return to_json(plan_from_json(doc["workload"].dump(), catalog));
    });
}

std::string calibrate_request_json(const Catalog& base, const std::string& request) {
    return answer("calibrate", [&] {
        json doc;
        if (auto bad = parse_object(request, doc)) return errors_json({*bad});
        Catalog catalog = base;
        if (doc.contains("extension")) {
            if (auto bad = extend_with(doc["extension"], catalog); !bad.empty()) return errors_json(bad);
            doc.erase("extension");
        }
        return calibrate_json(catalog, doc.dump());
    });
}

std::string read_back_request_json(const Catalog& base, const std::string& request) {
    return answer("read back", [&] {
        json doc;
        if (auto bad = parse_object(request, doc)) return errors_json({*bad});
        Catalog catalog = base;
        if (doc.contains("extension")) {
            if (auto bad = extend_with(doc["extension"], catalog); !bad.empty()) return errors_json(bad);
            doc.erase("extension");
        }
        return read_back_json(catalog, doc.dump(-1, ' ', false, json::error_handler_t::replace));
    });
}

std::string to_json(const Sweep& s) {
    if (!s.issues.empty()) return errors_json(s.issues);
    json points = json::array();
    for (const auto& pt : s.points) {
        json figures = json::object();
        for (const auto& [k, f] : pt.figures) figures[k] = figure_json_checked(f);
        points.push_back({{"x", pt.x}, {"fits", pt.fits}, {"figures", figures}});
    }
    return json{{"sweep", {{"axis", std::string(name(s.axis))}, {"device", s.device}, {"device_name", s.device_name}, {"count", s.count},
                           {"unit", s.unit}, {"breakeven_utilization", s.breakeven_utilization >= 0 ? json(s.breakeven_utilization) : json(nullptr)},
                           {"points", points}}}}
        .dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

std::string sweep_json_unguarded(const Catalog& catalog, const std::string& request) {
    json doc;
    if (auto bad = parse_object(request, doc)) return errors_json({*bad});
    Issues issues;
    for (const auto& [k, v] : doc.items())
        if (k != "workload" && k != "device" && k != "axis" && k != "points" && k != "count")
            issues.push_back({k, "unknown field (expected workload, device, axis, points, count)"});
    if (!doc.contains("workload") || !doc["workload"].is_object()) issues.push_back({"workload", "expected the workload as a JSON object"});
    if (!doc.contains("device") || !doc["device"].is_string()) issues.push_back({"device", "expected a catalog device id (a string)"});
    std::optional<SweepAxis> axis;
    if (!doc.contains("axis") || !doc["axis"].is_string() || !(axis = sweep_axis_from(doc["axis"].get<std::string>())))
        issues.push_back({"axis", "expected concurrent_users, context_tokens, batch_size or utilization"});
    std::vector<double> points;
    if (doc.contains("points")) {
        if (!doc["points"].is_array()) issues.push_back({"points", "expected an array of numbers"});
        else
            for (size_t i = 0; i < doc["points"].size(); ++i) {
                if (doc["points"][i].is_number()) points.push_back(doc["points"][i].get<double>());
                else issues.push_back({"points[" + std::to_string(i) + "]", "expected a number, got " + std::string(type_name(doc["points"][i]))});
            }
    }
    int count = 0;
    if (doc.contains("count")) {
        if (!doc["count"].is_number_integer() || doc["count"].get<long long>() < 1 || doc["count"].get<long long>() > 100000)
            issues.push_back({"count", "expected a whole number of devices from 1 to 100000"});
        else count = doc["count"].get<int>();
    }
    if (!issues.empty()) return errors_json(issues);
    const auto parsed = parse_workload(doc["workload"].dump(), catalog);
    for (const auto& i : parsed.issues) issues.push_back({"workload" + (i.path.empty() ? "" : "." + i.path), i.message});
    if (!issues.empty()) return errors_json(issues);
    const AssumptionSet as = assumptions_for(catalog, parsed.workload.assumptions, issues);
    for (auto& i : issues) i.path = "workload." + i.path;
    if (!issues.empty()) return errors_json(issues);
    if (!doc.contains("points")) points = default_sweep_points(parsed.workload, *axis);
    return to_json(sweep(parsed.workload, catalog, as, doc["device"].get<std::string>(), *axis, points, count));
}

} // namespace

std::string sweep_json(const Catalog& catalog, const std::string& request) {
    return answer("sweep", [&] { return sweep_json_unguarded(catalog, request); });
}

std::string version_json() { return json{{"name", "hwplan"}, {"version", HWPLAN_VERSION}}.dump(); }

} // namespace hwplan
