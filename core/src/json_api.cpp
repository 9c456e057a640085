// json_api.cpp: JSON text in, JSON text out. Every failure is returned as {"errors": [...]}; nothing
// here throws to the caller (a throw across the WebAssembly boundary would abort the module).
#include "hwplan/json_api.h"
#include "hwplan/guard.h"
#include "hwplan/measurement.h"
#include "hwplan/run_compare.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "json_reader.h"

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

// A training layout (parallel.h) with its memory, step split and MFU; non-finite numbers become null.
json layout_json(const LayoutResult& r) {
    const TrainingLayout& l = r.layout;
    return {{"tensor_parallel", l.tensor_parallel}, {"context_parallel", l.context_parallel}, {"pipeline_parallel", l.pipeline_parallel}, {"data_parallel", l.data_parallel},
            {"expert_parallel", l.expert_parallel}, {"virtual_stages", l.virtual_stages}, {"zero_stage", l.zero_stage},
            {"micro_batch", l.micro_batch}, {"micro_batches", l.micro_batches}, {"recompute", std::string(name(l.recompute))},
            {"describe", describe(l)}, {"fits", r.fits}, {"memory_bytes", finite_or_null(r.memory_bytes)},
            {"capacity_bytes", r.capacity_bytes}, {"weights_bytes", r.weights_bytes}, {"gradients_bytes", r.gradients_bytes},
            {"optimizer_bytes", r.optimizer_bytes}, {"activations_bytes", r.activations_bytes}, {"overhead_bytes", r.overhead_bytes},
            {"step_s", finite_or_null(r.step_s)}, {"compute_s", finite_or_null(r.compute_s)},
            {"communication_s", finite_or_null(r.communication_s)}, {"bubble_s", finite_or_null(r.bubble_s)},
            {"tokens_per_s", r.tokens_per_s}, {"mfu", r.mfu}, {"time_to_train_s", r.time_to_train_s}};
}

// A candidate's layout; a training one also says its context parallelism, pipeline chunks, micro-batches and
// recomputation (the point of the training search it is).
json layout_of(const Candidate& c, Stage stage) {
    const Layout& l = c.layout;
    json j{{"tensor_parallel", l.tensor_parallel}, {"pipeline_parallel", l.pipeline_parallel}, {"data_parallel", l.data_parallel},
           {"zero_stage", l.zero_stage}, {"expert_parallel", l.expert_parallel}};
    if (stage == Stage::finetune || stage == Stage::pretrain || stage == Stage::rl) {
        j["context_parallel"] = l.context_parallel;
        j["virtual_stages"] = l.virtual_stages;
        j["micro_batch"] = l.micro_batch;
        j["micro_batches"] = l.micro_batches;
        j["recompute"] = std::string(name(l.recompute));
    }
    if (!c.count_why.empty()) j["count_why"] = c.count_why;
    return j;
}

json layouts_json(const LayoutSearch& s) {
    json alternatives = json::array();
    for (size_t i = 1; i < s.layouts.size(); ++i) alternatives.push_back(layout_json(s.layouts[i]));
    return {{"found", s.found}, {"devices", s.devices}, {"global_batch", s.global_batch}, {"searched", s.searched},
            {"fitting", s.fitting}, {"explanation", s.explanation},
            {"best", s.layouts.empty() ? json(nullptr) : layout_json(s.layouts.front())}, {"alternatives", std::move(alternatives)}};
}

json serving_point_json(const ServingPoint& p) {
    return {{"count", p.count}, {"replicas", p.replicas}, {"devices_per_replica", p.devices_per_replica},
            {"tensor_parallel", p.tensor_parallel}, {"pipeline_parallel", p.pipeline_parallel}, {"expert_parallel", p.expert_parallel},
            {"batch_sequences", finite_or_null(p.batch_sequences)}, {"fits", p.fits}, {"meets_targets", p.meets_targets},
            {"throughput_tokens_per_s", finite_or_null(p.throughput_tokens_per_s)}, {"tokens_per_s_per_device", finite_or_null(p.tokens_per_s_per_device)},
            {"fleet_devices", finite_or_null(p.fleet_devices)}, {"score", finite_or_null(p.score)}, {"describe", p.describe}};
}

// The serving search as the training one is written: the best point (the candidate's) and the runners-up.
json serving_json(const ServingSearch& s) {
    json alternatives = json::array();
    for (size_t i = 1; i < s.points.size(); ++i) alternatives.push_back(serving_point_json(s.points[i]));
    return {{"objective", s.objective}, {"searched", s.searched}, {"explanation", s.explanation},
            {"best", s.points.empty() ? json(nullptr) : serving_point_json(s.points.front())}, {"alternatives", std::move(alternatives)}};
}

json rl_json(const RlPools& r) {
    return {{"sized", r.sized}, {"trainer_devices", r.trainer_devices}, {"rollout_devices", r.rollout_devices},
            {"rollout_replicas", r.rollout_replicas}, {"replica_devices", r.replica_devices}, {"rollout_share", r.rollout_share},
            {"rollouts_per_replica", r.rollouts_per_replica}, {"generation_s", finite_or_null(r.generation_s)},
            {"train_s", finite_or_null(r.train_s)}, {"sync_s", finite_or_null(r.sync_s)}, {"step_s", finite_or_null(r.step_s)},
            {"sync_bytes_per_device", r.sync_bytes_per_device}, {"sync_over_scale_out", r.sync_over_scale_out},
            {"splits_searched", r.splits_searched}, {"reasons", r.reasons}, {"explanation", r.explanation}};
}

json figure_json_checked(const Figure& f) {
    return json{{"value", finite_or_null(f.value)}, {"low", finite_or_null(f.low)}, {"high", finite_or_null(f.high)},
                {"label", std::string(name(f.label))}, {"why", f.why}};
}

} // namespace

namespace {

// The run section (run_it.h): {"available", "device", "count", "option", "reason"?, "entry_point"?, "deploy": [...],
// "measure": [...], "predicted": [...], "notes"}.
json run_json(const RunIt& r) {
    auto commands = [](const std::vector<RunCommand>& cs) {
        json arr = json::array();
        for (const auto& c : cs) {
            json j{{"tool", c.tool}, {"release", c.release}, {"what", c.what}, {"text", c.text}};
            if (!c.file.empty()) j["file"] = c.file;
            if (!c.unrecorded.empty()) j["unrecorded"] = c.unrecorded; // only with a chosen release (RunItOptions)
            arr.push_back(std::move(j));
        }
        return arr;
    };
    json predicted = json::array();
    for (const auto& l : r.predicted) {
        json j{{"metric", l.metric}, {"figure", l.figure}, {"value", l.value}, {"unit", l.unit}};
        if (l.banded) {
            j["low"] = l.low;
            j["high"] = l.high;
        }
        if (!l.note.empty()) j["note"] = l.note;
        predicted.push_back(std::move(j));
    }
    json j{{"available", r.available}, {"device", r.device}, {"count", r.count}, {"option", r.option}, {"deploy", commands(r.deploy)},
           {"measure", commands(r.measure)}, {"predicted", std::move(predicted)}, {"notes", r.notes}};
    if (r.setup.prompt_tokens > 0)
        j["setup"] = {{"prompt_tokens", r.setup.prompt_tokens}, {"output_tokens", r.setup.output_tokens}, {"concurrency", r.setup.concurrency},
                      {"requests", r.setup.requests}};
    else if (r.setup.batch_samples > 0)
        j["setup"] = {{"batch_samples", r.setup.batch_samples}};
    if (!r.reason.empty()) j["reason"] = r.reason;
    if (!r.entry_point.empty()) j["entry_point"] = r.entry_point;
    return j;
}

} // namespace

std::string to_json(const RunIt& run) { return json{{"run", run_json(run)}}.dump(); }

std::string to_json(const Plan& p) {
    if (!p.issues.empty()) return errors_json(p.issues);
    json cands = json::array();
    for (const auto& c : p.candidates) {
        const auto& m = c.memory;
        json terms = json::array();
        for (const auto& t : m.terms) terms.push_back({{"name", t.name}, {"bytes", t.bytes}, {"why", t.why}});
        json memory{{"weights_bytes", m.weights_bytes}, {"kv_cache_bytes", m.kv_cache_bytes},
                    {"activations_bytes", m.activations_bytes}, {"gradients_bytes", m.gradients_bytes},
                    {"optimizer_bytes", m.optimizer_bytes}, {"overhead_bytes", m.overhead_bytes},
                    {"total_bytes", m.total_bytes}, {"total_low_bytes", m.total_low_bytes},
                    {"total_high_bytes", m.total_high_bytes}, {"capacity_bytes", m.capacity_bytes}, {"terms", std::move(terms)}};
        json phases = json::array();
        for (const auto& ph : c.phases) {
            const auto& r = ph.roofline;
            phases.push_back({{"name", ph.name}, {"precision", ph.precision}, {"flops", r.flops}, {"bytes", r.bytes},
                              {"compute_s", r.compute_s}, {"memory_s", r.memory_s}, {"overhead_s", ph.overhead_s},
                              {"communication_s", ph.communication_s}, {"time_s", ph.time_s},
                              {"intensity_flop_per_byte", r.intensity_flop_per_byte},
                              {"ridge_flop_per_byte", r.ridge_flop_per_byte},
                              {"bound", r.compute_bound ? "compute" : "bandwidth"}});
        }
        json j{{"device", c.device}, {"device_name", c.device_name}, {"count", c.count},
               {"layout", layout_of(c, p.stage)},
               {"fits", c.fits}, {"regime", std::string(name(c.regime))}, {"regime_why", c.regime_why},
               {"memory", std::move(memory)}, {"phases", std::move(phases)}, {"notes", c.notes}, {"option", c.option}};
        for (const auto& [k, f] : c.figures) j[k] = figure_json_checked(f); // figures at the top level under their own names
        if (c.layouts.searched > 0 || !c.layouts.explanation.empty()) j["layouts"] = layouts_json(c.layouts);
        if (!c.rl.explanation.empty()) j["rl"] = rl_json(c.rl);
        if (!c.serving.points.empty()) j["serving_search"] = serving_json(c.serving);
        cands.push_back(std::move(j));
    }
    auto option_json = [](const Option& o) {
        json j{{"kind", o.kind}, {"name", o.name}, {"device", o.device}, {"count", o.count}, {"unit", o.unit},
               {"feasible", o.feasible}, {"reasons", o.reasons}};
        if (o.kind != "api") {
            j["replicas"] = o.replicas;
            j["fleet"] = o.fleet;
        }
        json terms = json::array();
        for (const auto& t : o.cost_terms) terms.push_back({{"term", t.term}, {"value", t.value}});
        if (!terms.empty()) j["cost_terms"] = std::move(terms);
        if (o.speed > 0) j["speed"] = o.speed;
        if (o.latency_s > 0) j["latency_s"] = o.latency_s;
        if (o.power_w > 0) j["power_w"] = o.power_w;
        if (o.power_draw_w > 0) j["power_draw_w"] = o.power_draw_w;
        if (o.cost.value > 0) j[o.unit] = figure_json_checked(o.cost);
        if (o.usd_per_month >= 0) j["usd_per_month"] = o.usd_per_month;
        return j;
    };
    json options = json::array();
    for (const auto& o : p.options) options.push_back(option_json(o));
    json rec{{"found", p.recommendation.found}, {"headline", p.recommendation.headline}, {"summary", p.recommendation.summary},
             {"reasons", p.recommendation.reasons}, {"lever", p.recommendation.lever}};
    if (p.recommendation.found) rec["option"] = option_json(p.recommendation.option);
    const Decision& d = p.decision;
    json decision{{"binding", d.binding}, {"scale", d.scale}, {"scale_why", d.scale_why}, {"priority", d.priority},
                  {"stack", d.stack}, {"site", d.site}, {"eliminated", d.eliminated}, {"guide", d.guide}, {"guide_why", d.guide_why},
                  {"guide_agrees", d.guide_agrees}, {"guide_note", d.guide_note}, {"runner_up", d.runner_up}, {"checks", d.checks}};
    json plan{{"name", p.name}, {"stage", std::string(name(p.stage))}, {"recommendation", std::move(rec)}, {"decision", std::move(decision)},
              {"options", std::move(options)},
              {"model", {{"id", p.model_id}, {"name", p.model_name}, {"params", p.params}, {"active_params", p.active_params}}},
              {"precision", {{"weights", p.precision.weights}, {"kv_cache", p.precision.kv_cache}, {"compute", p.precision.compute}}},
              {"candidates", std::move(cands)}, {"missing_assumptions", p.missing_assumptions}, {"sensitivity", p.sensitivity},
              {"flips", [&] {
                   json flips = json::array();
                   for (const auto& f : p.flips) {
                       json j{{"input", f.input}, {"unit", f.unit}, {"value", f.value}, {"low", f.low}, {"high", f.high},
                              {"found", f.found}, {"text", f.text}};
                       if (f.found) j["at"] = f.at, j["becomes"] = f.becomes;
                       flips.push_back(std::move(j));
                   }
                   return flips;
               }()},
              {"best_by_kind", [&] {
                   json best = json::array();
                   for (const int i : p.best_by_kind) {
                       const Option& o = p.options[static_cast<size_t>(i)];
                       json j{{"kind", o.kind}, {"name", o.name}, {"unit", o.unit}};
                       j["cost"] = o.cost.value > 0 ? json(o.cost.value) : json(nullptr);
                       if (o.usd_per_month >= 0) j["usd_per_month"] = o.usd_per_month;
                       best.push_back(std::move(j));
                   }
                   return best;
               }()},
              {"breakeven", [&] {
                   json points = json::array();
                   for (const auto& [h, m] : p.breakeven_curve)
                       points.push_back({{"hours_per_month", h}, {"months", finite_or_null(m)}});
                   return json{{"device", p.breakeven_device}, {"curve", std::move(points)}};
               }()}, {"notes", p.notes}};
    plan["run"] = run_json(p.run);
    return json{{"plan", std::move(plan)}}.dump();
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
