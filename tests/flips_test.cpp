// flips_test.cpp: what would change the answer (flips.cpp). Each flip point is checked against a derivation that
// does not use the search that found it: the utilization where owning costs what renting does, solved from the
// owned option's cost at two other utilizations (cost = A / utilization + B, cost.h); the demand at which the
// answer changes, against the plan made at that demand; the deadline, against the plan made just under it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "hwplan/assumptions.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"
#include "hwplan/plan.h"
#include "hwplan/render.h"
#include "test_plans.h"
#include "../core/src/plan_internal.h" // answer_plan and devices_that_may_answer, what the demand flips re-plan

#include <nlohmann/json.hpp>

namespace hwplan {

namespace {

const Catalog& catalog() { return embedded_catalog().catalog; }

Plan run(const std::string& workload_json) {
    Plan p = test::planned_once(workload_json, catalog());
    for (const auto& i : p.issues) ADD_FAILURE() << to_string(i);
    return p;
}

const FlipPoint* flip(const Plan& p, const std::string& input) {
    for (const auto& f : p.flips)
        if (f.input == input) return &f;
    return nullptr;
}

const Option* option(const Plan& p, const std::string& kind, const std::string& device) {
    for (const auto& o : p.options)
        if (o.kind == kind && o.device == device) return &o;
    return nullptr;
}

// A chat service on one device kind that is sold and rented (H100 SXM: purchase and on-demand prices in the catalog),
// with a model no hosted API in the catalog serves.
const std::string kChat = R"({"stage": "serve", "model": "mistral-small-24b", "precision": "bf16",
    "serve": {"context_tokens": 4096, "concurrent_users": 16}, "hardware": {"devices": ["h100-sxm"]})";

} // namespace

// Owning costs (purchase + hosting) / utilization + power per device-hour (cost.h), so an owned option's cost per
// result is A / u + B on the same candidate. A and B come from two plans at 100 % and 50 % utilization; the
// flip is where that equals the cheapest other answer's cost, which does not move with utilization.
TEST(Flips, UtilizationFlipIsWhereOwningCostsWhatTheCheapestRentalDoes) {
    const Plan p = run(kChat + "}");
    ASSERT_TRUE(p.recommendation.found) << p.recommendation.summary;
    ASSERT_EQ(p.recommendation.option.kind, "own") << p.recommendation.headline; // busy every hour: buying wins
    const FlipPoint* f = flip(p, "cost.utilization");
    ASSERT_NE(f, nullptr);
    ASSERT_TRUE(f->found);
    EXPECT_DOUBLE_EQ(f->value, 1.0); // no usage given: busy every hour, as the cost terms say
    const Plan full = run(kChat + R"(, "cost": {"utilization": 1.0}})");
    const Plan half = run(kChat + R"(, "cost": {"utilization": 0.5}})");
    const Option* c1 = option(full, "own", "h100-sxm");
    const Option* c2 = option(half, "own", "h100-sxm");
    ASSERT_TRUE(c1 && c2);
    const double a = (c2->cost.value - c1->cost.value) / (1 / 0.5 - 1); // A / u + B at u = 1 and u = 0.5
    const double b = c1->cost.value - a;
    double rent = 0; // the cheapest feasible rental: its cost per result does not depend on utilization
    for (const auto& o : full.options)
        if (o.feasible && o.kind.rfind("rent", 0) == 0 && o.cost.value > 0 && (rent == 0 || o.cost.value < rent)) rent = o.cost.value;
    ASSERT_GT(rent, b);
    const double crossing = a / (rent - b);
    // Bisected five times inside a grid step of at most 0.5 of utilization: within 0.5 / 32.
    EXPECT_NEAR(f->at, crossing, 0.5 / 32) << f->text;
    EXPECT_EQ(f->becomes.rfind("rent", 0), 0u) << f->becomes;
    // The sentence every surface prints states the point and what wins past it.
    EXPECT_NE(f->text.find("below "), std::string::npos) << f->text;
    EXPECT_NE(f->text.find(f->becomes), std::string::npos) << f->text;
}

// A utilization the workload does not state is not a flip when stating it would price an option that had no price:
// the nightly embedding job gives no usage, so buying is unpriced and only renting competes.
TEST(Flips, NoUtilizationFlipWhereBuyingIsNotPriced) {
    const Plan p = run(R"({"stage": "embed", "model": "bge-large-en-v1.5", "embed": {"items": 50000, "tokens_per_item": 512}})");
    ASSERT_TRUE(p.recommendation.found);
    const bool bought_priced = std::any_of(p.options.begin(), p.options.end(), [](const Option& o) { return o.kind == "own" && o.feasible && o.cost.value > 0; });
    EXPECT_FALSE(bought_priced); // a batch job without usage: an owned device's cost per item is unknown (decide.cpp)
    EXPECT_EQ(flip(p, "cost.utilization"), nullptr);
    // Given the hours, buying is priced and the utilization flip appears if renting and buying trade places.
    const Plan used = run(R"({"stage": "embed", "model": "bge-large-en-v1.5", "embed": {"items": 50000, "tokens_per_item": 512},
        "usage": {"hours_per_month": 300}})");
    EXPECT_TRUE(std::any_of(used.options.begin(), used.options.end(), [](const Option& o) { return o.kind == "own" && o.feasible && o.cost.value > 0; }));
}

// The price flip is the runner-up's cost: the recommendation stays first until its own cost per result reaches it.
TEST(Flips, RunnerUpWinsWhereItsCostIsReached) {
    const Plan p = run(kChat + "}");
    const FlipPoint* f = flip(p, "unit_cost");
    ASSERT_NE(f, nullptr);
    ASSERT_TRUE(p.recommendation.found);
    EXPECT_DOUBLE_EQ(f->value, p.recommendation.option.cost.value);
    const Option* runner = nullptr;
    for (const auto& o : p.options)
        if (o.feasible && o.name == f->becomes) runner = &o;
    ASSERT_NE(runner, nullptr) << f->becomes;
    EXPECT_DOUBLE_EQ(f->at, runner->cost.value);
    EXPECT_GT(f->at, f->value); // options are ranked cheapest first
    EXPECT_NE(runner->kind + runner->device, p.recommendation.option.kind + p.recommendation.option.device); // another answer
}

// Demand: the answer reported at a quarter or four times the users is the plan's own answer at that demand.
TEST(Flips, DemandFlipIsThePlanAtThatDemand) {
    const std::string base = R"({"stage": "serve", "model": "llama-3.1-70b", "precision": "fp8",
        "serve": {"context_tokens": 8192, "concurrent_users": 40}, "decision": {"site": "own_datacenter"})";
    const Plan p = run(base + "}");
    const FlipPoint* f = flip(p, "serve.concurrent_users");
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->value, 40);
    EXPECT_DOUBLE_EQ(f->low, 10);
    EXPECT_DOUBLE_EQ(f->high, 160);
    if (f->found) {
        const Plan there = run(R"({"stage": "serve", "model": "llama-3.1-70b", "precision": "fp8",
            "serve": {"context_tokens": 8192, "concurrent_users": )" + std::to_string(static_cast<int>(f->at)) +
                               R"(}, "decision": {"site": "own_datacenter"}})");
        ASSERT_TRUE(there.recommendation.found);
        EXPECT_EQ(there.recommendation.option.name, f->becomes);
    } else {
        EXPECT_NE(f->text.find("holds from 10 to 160 users"), std::string::npos) << f->text;
    }
}

// Deadline: 8B on 1T tokens in Google Cloud within 30 days (plan_test OneAnswer): a deadline just under the chosen
// count's own time to train needs more devices.
TEST(Flips, DeadlineUnderTheChosenCountsTimeNeedsMoreDevices) {
    const std::string base = R"({"stage": "pretrain", "model": "llama-3.1-8b", "precision": "bf16",
        "train": {"method": "full", "seq_len": 8192, "global_batch": 512, "tokens": 1e12}, "decision": {"site": "gcp", "deadline_days": )";
    const Plan p = run(base + "30}}");
    ASSERT_TRUE(p.recommendation.found);
    const FlipPoint* f = flip(p, "decision.deadline_days");
    ASSERT_NE(f, nullptr);
    EXPECT_GT(f->at, 0.0);
    EXPECT_LE(f->at, 30.0); // the chosen count meets the deadline
    char tighter[32];
    std::snprintf(tighter, sizeof tighter, "%.3f", f->at * 0.98);
    const Plan q = run(base + tighter + "}}");
    ASSERT_TRUE(q.recommendation.found) << q.recommendation.summary;
    EXPECT_GT(q.recommendation.option.count, p.recommendation.option.count) << q.recommendation.headline;
}

// The best option of each kind: one per kind, each the cheapest priced feasible option of its kind, the
// recommendation's kind first.
TEST(Flips, BestOfEachKindIsTheCheapestFeasibleOfThatKind) {
    const Plan p = run(kChat + "}");
    ASSERT_GE(p.best_by_kind.size(), 2u);
    std::vector<std::string> kinds;
    for (const int i : p.best_by_kind) {
        const Option& o = p.options.at(static_cast<size_t>(i));
        EXPECT_TRUE(o.feasible);
        EXPECT_EQ(std::count(kinds.begin(), kinds.end(), o.kind), 0) << o.kind;
        kinds.push_back(o.kind);
        for (const auto& other : p.options)
            if (other.feasible && other.kind == o.kind && other.cost.value > 0 && other.unit == o.unit) {
                EXPECT_GE(other.cost.value, o.cost.value) << other.name;
            }
    }
    EXPECT_EQ(p.options.at(static_cast<size_t>(p.best_by_kind.front())).kind, p.recommendation.option.kind);
}

// Every scenario whose recommendation is priced says what would change it, on every surface in the same words.
TEST(Flips, EveryPricedScenarioSaysWhatWouldChangeTheAnswer) {
    for (const auto& s : catalog().scenarios) {
        if (s.workload_json.empty()) continue; // a team
        const Plan p = run(s.workload_json);
        if (!p.recommendation.found || !(p.recommendation.option.cost.value > 0)) continue;
        EXPECT_FALSE(p.flips.empty()) << s.id;
        const auto lines = change_lines(p);
        const std::string md = render_markdown(p), text = render_table(p);
        for (const auto& l : lines) {
            EXPECT_NE(md.find(l), std::string::npos) << s.id << ": " << l;
            EXPECT_NE(text.find(l), std::string::npos) << s.id << ": " << l;
        }
        const auto j = nlohmann::json::parse(plan_json(catalog(), s.workload_json))["plan"];
        ASSERT_EQ(j["flips"].size(), p.flips.size()) << s.id;
        for (size_t i = 0; i < p.flips.size(); ++i) EXPECT_EQ(j["flips"][i]["text"], p.flips[i].text) << s.id;
        EXPECT_EQ(j["best_by_kind"].size(), p.best_by_kind.size()) << s.id;
    }
}

// Issue 19, done when: "Every scenario's plan prints at least one flip point and the best option of each kind; the
// page shows them." The page draws change_lines (wasm/app/panel_plan.cpp costs_view), as the CLI and the card do.
// Every scenario with a recommendation prints both; where only one kind of option is feasible (the bank, in its own
// data centre, can only buy), the line says why each other kind is not there. The robot, whose Thor has no speed to
// price per result, gets the power line (lesson 004, the robot: "binding: power and capacity"). The two lesson
// questions with no feasible answer (a 3B full fine-tune on one RTX 3090, a 70B at 16 bits on one 80 GB GPU) say
// what would make it fit: the lever the lessons name, re-planned.
TEST(Flips, EveryScenarioWithAnAnswerPrintsAFlipAndTheBestOfEachKind) {
    int checked = 0;
    for (const auto& s : catalog().scenarios) {
        if (s.workload_json.empty()) continue; // a team
        const Plan p = run(s.workload_json);
        if (!p.recommendation.found) {
            EXPECT_FALSE(p.flips.empty()) << s.id << ": no answer, and nothing said about what would give one";
            for (const auto& f : p.flips) EXPECT_EQ(f.text.rfind("Fit: nothing fits now (", 0), 0u) << s.id << ": " << f.text;
            continue;
        }
        ++checked;
        EXPECT_FALSE(p.flips.empty()) << s.id;
        const auto lines = change_lines(p);
        ASSERT_FALSE(lines.empty()) << s.id;
        EXPECT_EQ(lines.front().rfind("Best of each kind: ", 0), 0u) << s.id << ": " << lines.front();
        if (p.best_by_kind.size() == 1) {
            EXPECT_NE(lines.front().find("; no "), std::string::npos) << s.id << ": " << lines.front();
        }
        if (s.id == "bank-70b-fp8") { // owned in its own data centre: every rental is out for the site
            EXPECT_NE(lines.front().find("; no rental (site: your own data centre"), std::string::npos) << lines.front();
        }
    }
    EXPECT_GE(checked, 15);
}

// Lesson 003's quiz: "A 70-billion-parameter model stored in 16-bit precision needs roughly 140 GB of GPU memory just for
// weights. A team wants to serve it on a single GPU with 80 GB of VRAM" and its answer, "Quantization reduces the number
// of bits used to store each weight ... halving precision roughly halves the memory required for weights": 70.6 B
// parameters x 1 byte = 70.6 GB at FP8, under an H100's 76.6 GB usable. The plan says so, and that a second H100
// (tensor parallel: 141 GB / 2 = 70.6 GB each) also does it. Lesson 001: a 3B full fine-tune with Adam on a 24 GB RTX
// 3090 needs "multi-GPU setups or parameter-efficient methods like LoRA": with LoRA it fits.
TEST(Flips, NothingFitsSaysWhatWouldMakeItFit) {
    const Plan p = run(find_scenario(catalog(), "70b-fp16-on-80gb")->workload_json);
    ASSERT_FALSE(p.recommendation.found);
    const FlipPoint* precision = flip(p, "precision.weights");
    ASSERT_NE(precision, nullptr);
    EXPECT_NE(precision->text.find("with fp8 weights (now fp16) the answer becomes "), std::string::npos) << precision->text;
    const FlipPoint* count = flip(p, "hardware.count");
    ASSERT_NE(count, nullptr);
    EXPECT_DOUBLE_EQ(count->at, 2);
    const Plan ft = run(find_scenario(catalog(), "3b-finetune-rtx3090")->workload_json);
    ASSERT_FALSE(ft.recommendation.found);
    const FlipPoint* method = flip(ft, "train.method");
    ASSERT_NE(method, nullptr);
    EXPECT_NE(method->text.find("with LoRA (now a full fine-tune) the answer becomes "), std::string::npos) << method->text;
}

// The demand flips re-plan only the devices another demand could make the answer (flips.cpp devices_that_may_answer):
// for every scenario with a demand (users, requests/s or items), at a quarter and at four times of it (what
// demand_flips tries), the re-plan on those devices recommends exactly what the re-plan on every device does: the
// same option (name, kind, device) at the same cost per result (equal doubles: the same evaluations, decided alike).
// Not vacuous: the bank's own data centre rules out renting and the non-CUDA stacks, so most devices are left out.
TEST(Flips, DemandReplansOnTheDevicesThatMayAnswerGiveTheWholeCatalogsAnswer) {
    int compared = 0;
    for (const Scenario& s : catalog().scenarios) {
        if (s.workload_json.empty()) continue; // a team of workloads
        const WorkloadParse parsed = parse_workload(s.workload_json, catalog());
        ASSERT_TRUE(parsed.issues.empty()) << s.id;
        const Workload& w = parsed.workload;
        Issues issues;
        const AssumptionSet as = assumptions_for(catalog(), w.assumptions, issues);
        ASSERT_TRUE(issues.empty()) << s.id;
        const Plan p = plan(w, catalog(), as, false);
        const std::vector<std::string> may = devices_that_may_answer(p);
        if (s.id == "bank-70b-fp8") {
            EXPECT_LT(may.size() * 2, p.candidates.size()) << "the bank leaves out most devices";
        }
        for (const double factor : {0.25, 4.0}) {
            Workload v = w;
            if ((w.stage == Stage::serve || w.stage == Stage::batch) && rate_batch(w)) v.serve.requests_per_s *= factor;
            else if ((w.stage == Stage::serve || w.stage == Stage::batch) && w.serve.concurrent_users >= 1)
                v.serve.concurrent_users = std::max(1.0, std::round(w.serve.concurrent_users * factor));
            else if (w.stage == Stage::embed && w.embed.items > 0) v.embed.items = std::max(1.0, std::round(w.embed.items * factor));
            else continue;
            const Plan all = answer_plan(v, catalog(), as);
            const Plan some = answer_plan(v, catalog(), as, &may);
            const std::string at = s.id + " x " + std::to_string(factor);
            ASSERT_EQ(all.recommendation.found, some.recommendation.found) << at;
            ++compared;
            if (!all.recommendation.found) continue;
            const Option& a = all.recommendation.option;
            const Option& b = some.recommendation.option;
            EXPECT_EQ(a.name, b.name) << at;
            EXPECT_EQ(a.kind, b.kind) << at;
            EXPECT_EQ(a.device, b.device) << at;
            EXPECT_EQ(a.cost.value, b.cost.value) << at;
        }
    }
    EXPECT_GE(compared, 10); // the serving, batch and embedding scenarios, two demands each
}

} // namespace hwplan
