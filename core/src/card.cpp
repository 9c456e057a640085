// card.cpp: workload cards and the team plan (lesson 003: "Create one card per workload"; "the same team
// may use CPU workers for orchestration, one GPU endpoint for chat, spot or scheduled GPU jobs for
// embeddings, and hosted or rented capacity for rare training").
#include "hwplan/card.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "hwplan/cost.h"
#include "hwplan/format.h"
#include "hwplan/render.h"
#include "json_reader.h"

namespace hwplan {

namespace {

const Candidate* recommended_candidate(const Plan& p) {
    if (!p.recommendation.found) return nullptr;
    for (const auto& c : p.candidates)
        if (c.device == p.recommendation.option.device) return &c;
    return nullptr;
}

std::string or_not_given(const std::string& s) { return s.empty() ? "not given" : s; }

// Monthly cost of a card's recommendation: always-on serving for a month, or the runs a month implies.
double monthly_usd(const Plan& p, const Workload& w) {
    if (!p.recommendation.found) return -1;
    const Option& o = p.recommendation.option;
    if (o.usd_per_month >= 0) return o.usd_per_month;
    const double runs = w.usage.jobs_per_week > 0 ? w.usage.jobs_per_week * 52.0 / 12.0 : 0;
    if (o.unit == "usd_per_run" && runs > 0) return o.cost.value * runs;
    if (o.unit == "usd_per_1000_items" && w.embed.items > 0 && runs > 0) return o.cost.value * w.embed.items / 1000 * runs;
    return -1;
}

} // namespace

std::string recommended_path(const Plan& p, const Catalog& cat) {
    if (!p.recommendation.found) return "none";
    if (p.recommendation.option.kind == "api") return "managed API";
    const Device* d = cat.device_by_id(p.recommendation.option.device);
    if (!d) return "unknown";
    switch (d->kind) {
    case DeviceKind::gpu:
    case DeviceKind::rack_system: return "GPU";
    case DeviceKind::tpu: return "TPU";
    case DeviceKind::cpu: return "CPU";
    case DeviceKind::soc: return "unified-memory SoC";
    case DeviceKind::npu: return "NPU";
    case DeviceKind::sram_system:
    case DeviceKind::accelerator: return "accelerator";
    }
    return "unknown";
}

std::string first_load_test(const Plan& p, const Workload& w) {
    const std::string where = p.recommendation.found ? p.recommendation.option.name : "the nearest candidate";
    switch (w.stage) {
    case Stage::serve:
    case Stage::batch:
    case Stage::edge:
    case Stage::rl: {
        std::string s = "On " + where + ", replay " + format_sig(w.serve.concurrent_users, 6) + " concurrent streams of " +
                        format_sig(w.serve.prompt_tokens > 0 ? w.serve.prompt_tokens : w.serve.context_tokens / 2, 6) + "-token prompts and " +
                        format_sig(w.serve.output_tokens > 0 ? w.serve.output_tokens : w.serve.context_tokens / 4, 6) + "-token answers";
        if (w.serve.requests_per_s > 0) s += " at " + format_sig(w.serve.requests_per_s, 4) + " requests/s";
        s += "; record p50/p95 time to first token, tokens/s per user and KV-cache headroom";
        if (w.serve.ttft_target_s > 0) s += ", and check p95 time to first token under " + format_sig(w.serve.ttft_target_s, 3) + " s";
        return s + ". Then raise the load until the p95 breaks, to find the real ceiling.";
    }
    case Stage::embed:
        return "On " + where + ", embed a 1 % sample (" + format_sig(std::max(1.0, w.embed.items / 100), 6) + " items of " +
               format_sig(w.embed.tokens_per_item, 6) + " tokens) at batch " + format_sig(w.embed.batch_size, 6) +
               "; record items per minute, failed batches and upsert time, and project the full run against the window.";
    case Stage::finetune:
    case Stage::pretrain:
        return "On " + where + ", run 50 steps at sequence length " + format_sig(w.train.seq_len, 6) + " and micro-batch " +
               format_sig(w.train.micro_batch, 6) + "; record step time, peak memory and tokens/s, and compare with the plan before a full run.";
    }
    return "";
}

std::string render_card(const Plan& p, const Workload& w, const Catalog& cat) {
    std::string out = "# Workload card: " + (w.name.empty() ? std::string("unnamed workload") : w.name) + "\n\n";
    out += "| field | value |\n|---|---|\n";
    auto row = [&](const std::string& k, const std::string& v) { out += "| " + k + " | " + v + " |\n"; };
    row("stage", std::string(name(w.stage)));
    row("model", p.model_name + " (" + format_count(p.params) + " parameters" +
                     (p.active_params < p.params ? ", " + format_count(p.active_params) + " active" : "") + ")");
    row("precision", "weights " + p.precision.weights + ", KV cache " + p.precision.kv_cache + ", compute " + p.precision.compute);
    if (is_serving_stage(w.stage) || w.stage == Stage::rl) {
        row("input size", format_sig(w.serve.prompt_tokens > 0 ? w.serve.prompt_tokens : w.serve.context_tokens / 2, 6) + " prompt tokens (context " +
                              format_sig(w.serve.context_tokens, 6) + ")");
        row("output size", format_sig(w.serve.output_tokens > 0 ? w.serve.output_tokens : w.serve.context_tokens / 4, 6) + " tokens");
        row("latency target", w.serve.ttft_target_s > 0 ? format_sig(w.serve.ttft_target_s, 3) + " s to first token" : "not given");
        row("concurrency", format_sig(w.serve.concurrent_users, 6) + " users");
    }
    if (w.stage == Stage::embed) {
        row("input size", format_sig(w.embed.items, 6) + " items x " + format_sig(w.embed.tokens_per_item, 6) + " tokens");
        row("output size", "one vector per item");
        row("batch window", w.embed.window_s > 0 ? format_figure("window_s", w.embed.window_s) : "not given");
    }
    if (w.stage == Stage::finetune || w.stage == Stage::pretrain || w.stage == Stage::rl) {
        row("input size", format_sig(w.train.seq_len, 6) + "-token sequences, micro-batch " + format_sig(w.train.micro_batch, 6) +
                              (w.train.tokens > 0 ? ", " + format_count(w.train.tokens) + " tokens in all" : ""));
        row("method", std::string(name(w.train.method)) + ", " + std::string(name(w.train.optimizer)) + ", " +
                          std::string(name(w.train.checkpointing)) + " recomputation");
    }
    if (const Candidate* c = recommended_candidate(p)) {
        row("memory estimate", format_bytes(c->memory.total_bytes) + " per device of " + format_bytes(c->memory.capacity_bytes) +
                                   " usable, on " + std::to_string(c->count) + " x " + c->device_name);
        row("binding resource", std::string(name(c->regime)) + ": " + c->regime_why);
    }
    row("data source", or_not_given(w.card.data_source));
    row("retry plan", or_not_given(w.card.retry_plan));
    row("observability", or_not_given(w.card.observability));
    row("owner", or_not_given(w.card.owner));
    row("cost per useful result", p.recommendation.found ? format_figure(p.recommendation.option.unit, p.recommendation.option.cost.value) + " " +
                                                               unit_label(p.recommendation.option.unit)
                                                         : "no feasible option");
    const double month = monthly_usd(p, w);
    row("cost per month", month >= 0 ? "$" + format_sig(month, 4) : "not known (give usage)");
    row("recommended path", recommended_path(p, cat) + (p.recommendation.found ? ": " + p.recommendation.option.name : ""));
    row("first load test", first_load_test(p, w));
    out += "\n" + recommendation_markdown(p.recommendation);
    for (const auto& r : p.recommendation.reasons) out += "- " + r + "\n";
    if (!p.recommendation.lever.empty()) out += "- lever: " + p.recommendation.lever + "\n";
    for (const auto& l : decision_lines(p)) out += (l.rfind("  ", 0) == 0 ? "  - " + l.substr(2) : "- " + l) + "\n";
    if (const auto changes = change_lines(p); !changes.empty()) {
        out += "\n**What would change the answer:**\n\n";
        for (const auto& l : changes) out += "- " + l + "\n";
    }
    if (!p.missing_assumptions.empty()) {
        out += "\n**Assumed because not given:**\n\n";
        for (const auto& m : p.missing_assumptions) out += "- " + m + "\n";
    }
    return out;
}

TeamPlan team_plan(const std::string& text, const Catalog& cat) {
    TeamPlan t;
    detail::Context ctx{"", t.issues};
    auto doc = detail::parse_object(text, ctx);
    if (!doc) return t;
    detail::Reader r(ctx, "", *doc);
    t.name = r.string("name", false).value_or("");
    const auto* cards = r.raw("cards");
    r.finish();
    if (!cards) {
        ctx.add("cards", "required field is missing (a list of workloads)");
        return t;
    }
    if (!cards->is_array() || cards->empty()) {
        ctx.add("cards", "expected a non-empty array of workloads");
        return t;
    }
    for (size_t i = 0; i < cards->size(); ++i) {
        const std::string prefix = "cards[" + std::to_string(i) + "]";
        auto parsed = parse_workload((*cards)[i].dump(), cat);
        for (const auto& issue : parsed.issues) t.issues.push_back({prefix + (issue.path.empty() ? "" : "." + issue.path), issue.message});
        if (!parsed.issues.empty()) continue;
        Issues as_issues;
        const AssumptionSet as = assumptions_for(cat, parsed.workload.assumptions, as_issues);
        for (const auto& issue : as_issues) t.issues.push_back({prefix + "." + issue.path, issue.message});
        if (!as_issues.empty()) continue;
        t.plans.push_back(plan(parsed.workload, cat, as, false));
        t.workloads.push_back(std::move(parsed.workload));
    }
    if (!t.issues.empty()) {
        t.plans.clear();
        t.workloads.clear();
        return t;
    }
    for (size_t i = 0; i < t.plans.size(); ++i) {
        const double m = monthly_usd(t.plans[i], t.workloads[i]);
        t.card_usd_per_month.push_back(m);
        if (m >= 0) t.usd_per_month += m;
        else t.unpriced.push_back((t.workloads[i].name.empty() ? "card " + std::to_string(i + 1) : t.workloads[i].name) + ": " +
                                  (t.plans[i].recommendation.found ? "no usage given (jobs a week, hours a month)" : "no feasible option"));
    }
    return t;
}

std::string render_team(const TeamPlan& t, const Catalog& cat) {
    std::string out = "# Team plan" + (t.name.empty() ? std::string() : ": " + t.name) + "\n\n";
    out += "| workload | stage | path | option | cost per useful result | per month |\n|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < t.plans.size(); ++i) {
        const Plan& p = t.plans[i];
        const Workload& w = t.workloads[i];
        const double m = monthly_usd(p, w);
        out += "| " + (w.name.empty() ? "card " + std::to_string(i + 1) : w.name) + " | " + std::string(name(w.stage)) + " | " +
               recommended_path(p, cat) + " | " + (p.recommendation.found ? p.recommendation.option.name : "none feasible") + " | " +
               (p.recommendation.found ? format_figure(p.recommendation.option.unit, p.recommendation.option.cost.value) + " " +
                                             unit_label(p.recommendation.option.unit)
                                       : "-") +
               " | " + (m >= 0 ? "$" + format_sig(m, 4) : "-") + " |\n";
    }
    out += "\n**Fleet cost: $" + format_sig(t.usd_per_month, 4) + " a month** for the cards with a monthly figure.";
    if (!t.unpriced.empty()) {
        out += " Not included:\n\n";
        for (const auto& u : t.unpriced) out += "- " + u + "\n";
    }
    out += "\nOrchestration (queues, retries, the API front end) runs on ordinary CPU workers beside this fleet; "
           "hwplan does not size them.\n";
    for (size_t i = 0; i < t.plans.size(); ++i) out += "\n---\n\n" + render_card(t.plans[i], t.workloads[i], cat);
    return out;
}

std::string team_to_json(const TeamPlan& t) {
    nlohmann::json cards = nlohmann::json::array();
    for (const auto& w : t.workloads) cards.push_back(nlohmann::json::parse(workload_to_json(w)));
    nlohmann::json j{{"cards", cards}};
    if (!t.name.empty()) j["name"] = t.name;
    return j.dump(2);
}

} // namespace hwplan
