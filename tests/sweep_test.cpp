// sweep_test.cpp: what-if curves (sweep.h). A curve is plan() at its points: every point is checked
// against a plan of the workload JSON edited by hand (the same document a person would give the CLI), and
// the shapes are checked against arithmetic done by hand.
#include "hwplan/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"

namespace hwplan {

namespace {

const Catalog& catalog() { return embedded_catalog().catalog; }

// Lesson 003's live chat card (the page's default workload): Mistral 7B, bf16, 8k context, 20 users.
const char* kChat = R"({"name": "Live chat", "stage": "serve", "model": "mistral-7b", "precision": "bf16",
  "serve": {"context_tokens": 8192, "prompt_tokens": 1500, "output_tokens": 400, "concurrent_users": 20, "ttft_target_s": 2}})";

struct Parsed {
    Workload w;
    AssumptionSet as;
};

Parsed parsed(const std::string& text) {
    auto p = parse_workload(text, catalog());
    EXPECT_TRUE(p.issues.empty()) << to_string(p.issues.front());
    Issues issues;
    AssumptionSet as = assumptions_for(catalog(), p.workload.assumptions, issues);
    return {p.workload, as};
}

// The candidate `device` x `count` in the plan of `doc` with `path` (a JSON pointer) set to `value`.
const Candidate* planned(const nlohmann::json& doc, const std::string& pointer, double value, const std::string& device, int count, Plan& keep) {
    nlohmann::json d = doc;
    d[nlohmann::json::json_pointer(pointer)] = value;
    d["hardware"] = {{"devices", {device}}, {"count", count}};
    keep = plan_from_json(d.dump(), catalog(), false);
    for (const auto& c : keep.candidates)
        if (c.device == device && c.count == count) return &c;
    return nullptr;
}

} // namespace

// [SECTION] the curve is plan() at its points --------------------------------------------------------
TEST(Sweep, EveryServingAxisEqualsAPlanOfTheEditedJson) {
    const auto [w, as] = parsed(kChat);
    const nlohmann::json doc = nlohmann::json::parse(kChat);
    const struct { SweepAxis axis; const char* pointer; } rows[] = {
        {SweepAxis::concurrent_users, "/serve/concurrent_users"},
        {SweepAxis::context_tokens, "/serve/context_tokens"},
        {SweepAxis::batch_size, "/serve/batch_size"},
        {SweepAxis::utilization, "/cost/utilization"},
    };
    for (const auto& row : rows) {
        const auto points = default_sweep_points(w, row.axis);
        const Sweep s = sweep(w, catalog(), as, "h100-sxm", row.axis, points);
        ASSERT_TRUE(s.issues.empty()) << name(row.axis) << ": " << to_string(s.issues.front());
        ASSERT_EQ(s.points.size(), points.size());
        EXPECT_EQ(s.count, 1) << "Mistral 7B in bf16 fits one H100 (80 GB)";
        for (size_t i = 0; i < points.size(); ++i) {
            Plan p;
            const Candidate* c = planned(doc, row.pointer, points[i], "h100-sxm", s.count, p);
            ASSERT_NE(c, nullptr) << name(row.axis) << " " << points[i];
            EXPECT_EQ(s.points[i].x, points[i]);
            EXPECT_EQ(s.points[i].fits, c->fits);
            for (const auto& [k, f] : c->figures) {
                ASSERT_TRUE(s.points[i].figures.count(k)) << k;
                EXPECT_EQ(s.points[i].figures.at(k), f) << name(row.axis) << " " << points[i] << " " << k;
            }
            EXPECT_EQ(s.points[i].figures.at("memory_bytes").value, c->memory.total_bytes);
            EXPECT_EQ(s.points[i].figures.at("memory_bytes").low, c->memory.total_low_bytes);
            EXPECT_EQ(s.points[i].figures.at("memory_bytes").high, c->memory.total_high_bytes);
            for (const auto& o : p.options)
                if (o.device == "h100-sxm" && (o.kind == "rent" || o.kind == "own") && o.cost.value > 0) {
                    EXPECT_EQ(s.points[i].figures.at(o.kind + "_cost"), o.cost) << o.name;
                }
        }
    }
}

// [SECTION] shapes checked by hand ------------------------------------------------------------------
// Mistral 7B's KV cache (its config.json, catalog/models/mistral-7b.json: 32 layers, 8 KV heads of 128, a
// sliding window of 4,096 tokens on every layer): 2 (K and V) x 32 x 8 x 128 x 2 bytes (bf16) = 131,072 bytes
// a token, and a sequence of 8,192 tokens keeps only the last 4,096: one more user adds 536,870,912 bytes.
// Activations grow with the batch too, so the step is at least that and within 10 % of it.
TEST(Sweep, OneMoreUserAddsOneSequenceOfKvCache) {
    const auto [w, as] = parsed(kChat);
    const Sweep s = sweep(w, catalog(), as, "h100-sxm", SweepAxis::concurrent_users, {1, 2, 3});
    ASSERT_TRUE(s.issues.empty());
    const double kv_per_user = 2.0 * 32 * 8 * 128 * 2 * 4096;
    for (size_t i = 1; i < 3; ++i) {
        const double step = s.points[i].figures.at("memory_bytes").value - s.points[i - 1].figures.at("memory_bytes").value;
        EXPECT_GE(step, kv_per_user * (1 - 1e-9)) << i;
        EXPECT_LE(step, kv_per_user * 1.10) << i;
        EXPECT_EQ(s.points[i].figures.at("capacity_bytes").value, s.points[0].figures.at("capacity_bytes").value);
    }
}

// More users on one device: the first token comes no sooner and each user's speed does not rise; past the
// capacity the candidate stops fitting (80 GB holds about 120 windows of 4k beside 14.5 GB of weights).
TEST(Sweep, MoreUsersSlowEachUserAndEventuallyDoNotFit) {
    const auto [w, as] = parsed(kChat);
    const Sweep s = sweep(w, catalog(), as, "h100-sxm", SweepAxis::concurrent_users, {1, 8, 32, 256}, 1);
    ASSERT_TRUE(s.issues.empty());
    for (size_t i = 1; i < s.points.size(); ++i) {
        EXPECT_GE(s.points[i].figures.at("ttft_s").value, s.points[i - 1].figures.at("ttft_s").value * (1 - 1e-12));
        EXPECT_LE(s.points[i].figures.at("decode_tokens_per_s_per_user").value,
                  s.points[i - 1].figures.at("decode_tokens_per_s_per_user").value * (1 + 1e-12));
    }
    EXPECT_TRUE(s.points[0].fits);
    EXPECT_FALSE(s.points[3].fits) << "256 x 0.54 GB of KV cache is more than 80 GB";
}

// Buy or rent: renting costs the same per result at any utilization; owning costs less the more the
// devices are used ((price / amortization hours) / utilization + power, cost.h). Where the two cross, a
// plan at that utilization prices both within the interpolation's error (2 %).
TEST(Sweep, UtilizationCrossesTheBuyOrRentBreakEven) {
    const auto [w, as] = parsed(kChat);
    const Sweep s = sweep(w, catalog(), as, "h100-sxm", SweepAxis::utilization, default_sweep_points(w, SweepAxis::utilization));
    ASSERT_TRUE(s.issues.empty());
    ASSERT_EQ(s.points.size(), 20u);
    EXPECT_FALSE(s.unit.empty());
    for (size_t i = 1; i < s.points.size(); ++i) {
        ASSERT_TRUE(s.points[i].figures.count("own_cost") && s.points[i].figures.count("rent_cost")) << "the H100 has both prices";
        EXPECT_LT(s.points[i].figures.at("own_cost").value, s.points[i - 1].figures.at("own_cost").value);
        EXPECT_DOUBLE_EQ(s.points[i].figures.at("rent_cost").value, s.points[0].figures.at("rent_cost").value);
    }
    ASSERT_GT(s.breakeven_utilization, 0.05);
    ASSERT_LT(s.breakeven_utilization, 1.0);
    const Sweep at = sweep(w, catalog(), as, "h100-sxm", SweepAxis::utilization, {s.breakeven_utilization});
    ASSERT_TRUE(at.issues.empty());
    EXPECT_NEAR(at.points[0].figures.at("own_cost").value / at.points[0].figures.at("rent_cost").value, 1.0, 0.02);
}

TEST(Sweep, AxesFollowTheStage) {
    EXPECT_EQ(sweep_axes(Stage::serve).size(), 4u);
    EXPECT_EQ(sweep_axes(Stage::embed), (std::vector<SweepAxis>{SweepAxis::batch_size, SweepAxis::utilization}));
    EXPECT_EQ(sweep_axes(Stage::pretrain), (std::vector<SweepAxis>{SweepAxis::utilization}));
}

// Default points: powers of two with today's value among them; the context starts where prompt + output fit.
TEST(Sweep, DefaultPointsIncludeTodaysValue) {
    const auto [w, as] = parsed(kChat);
    const auto users = default_sweep_points(w, SweepAxis::concurrent_users);
    EXPECT_NE(std::find(users.begin(), users.end(), 20.0), users.end());
    EXPECT_EQ(users.front(), 1.0);
    EXPECT_EQ(users.back(), 128.0); // the next power of two above 4 x 20
    const auto ctx = default_sweep_points(w, SweepAxis::context_tokens);
    EXPECT_EQ(ctx.front(), 2048.0); // 1,500 + 400 tokens need at least 2,048
    EXPECT_NE(std::find(ctx.begin(), ctx.end(), 8192.0), ctx.end());
}

// [SECTION] bad input: the field and the reason -------------------------------------------------------
TEST(Sweep, BadInputNamesTheFieldAndTheReason) {
    const auto [w, as] = parsed(kChat);
    const struct { std::string device; SweepAxis axis; std::vector<double> points; std::string path, message; } rows[] = {
        {"no-such-gpu", SweepAxis::concurrent_users, {1}, "device", "unknown device \"no-such-gpu\""},
        {"h100-sxm", SweepAxis::concurrent_users, {}, "points", "expected at least one value"},
        {"h100-sxm", SweepAxis::concurrent_users, {0}, "points[0]", "expected concurrent_users from 1 to 10000000, got 0"},
        {"h100-sxm", SweepAxis::concurrent_users, {2, 2.5}, "points[1]", "expected a whole number of concurrent_users, got 2.5"},
        {"h100-sxm", SweepAxis::utilization, {1.5}, "points[0]", "expected utilization from 0.001 to 1, got 1.5"},
        {"h100-sxm", SweepAxis::context_tokens, {1024}, "points[0]", "a context of 1024 tokens cannot hold the prompt + output given (1900)"},
        {"h100-sxm", SweepAxis::utilization, {std::nan("")}, "points[0]", "expected utilization from 0.001 to 1, got a non-finite number"},
    };
    for (const auto& r : rows) {
        const Sweep s = sweep(w, catalog(), as, r.device, r.axis, r.points);
        ASSERT_FALSE(s.issues.empty()) << r.path;
        EXPECT_EQ(s.issues.front().path, r.path);
        EXPECT_EQ(s.issues.front().message, r.message);
        EXPECT_TRUE(s.points.empty());
    }
    const auto train = parsed(find_scenario(catalog(), "7b-full-finetune-adam")->workload_json);
    const Sweep s = sweep(train.w, catalog(), train.as, "h100-sxm", SweepAxis::concurrent_users, {1});
    ASSERT_FALSE(s.issues.empty());
    EXPECT_EQ(s.issues.front().path, "axis");
    EXPECT_EQ(s.issues.front().message, "concurrent_users is not an input of a finetune workload");
}

// [SECTION] the JSON API: the page and the CLI read the same text ---------------------------------------
TEST(Sweep, JsonApiIsTheSweepAsJson) {
    const auto [w, as] = parsed(kChat);
    const std::string request = std::string(R"({"workload": )") + kChat + R"(, "device": "h100-sxm", "axis": "concurrent_users", "points": [1, 20]})";
    const std::string out = sweep_json(catalog(), request);
    EXPECT_EQ(out, to_json(sweep(w, catalog(), as, "h100-sxm", SweepAxis::concurrent_users, {1, 20})));
    const auto j = nlohmann::json::parse(out);
    ASSERT_TRUE(j.contains("sweep")) << out.substr(0, 300);
    EXPECT_EQ(j["sweep"]["points"].size(), 2u);
    EXPECT_EQ(j["sweep"]["points"][1]["x"], 20);
    EXPECT_TRUE(j["sweep"]["breakeven_utilization"].is_null());
    // Without points: the default range.
    const auto d = nlohmann::json::parse(sweep_json(catalog(), std::string(R"({"workload": )") + kChat + R"(, "device": "h100-sxm", "axis": "utilization"})"));
    EXPECT_EQ(d["sweep"]["points"].size(), 20u);
    EXPECT_TRUE(d["sweep"]["breakeven_utilization"].is_number());
}

TEST(Sweep, JsonApiErrorsNameTheField) {
    const struct { std::string request, path, message; } rows[] = {
        {"[]", "", "expected a JSON object, got an array"},
        {R"({"device": "h100-sxm", "axis": "utilization"})", "workload", "expected the workload as a JSON object"},
        {R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "axis": "utilization"})", "device", "expected a catalog device id (a string)"},
        {R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "h100-sxm", "axis": "speed"})", "axis",
         "expected concurrent_users, context_tokens, batch_size or utilization"},
        {R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "h100-sxm", "axis": "utilization", "points": [0.5, "x"]})",
         "points[1]", "expected a number, got a string"},
        {R"({"workload": {"stage": "serve", "model": "nope"}, "device": "h100-sxm", "axis": "utilization"})", "workload.model", ""},
        {R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "h100-sxm", "axis": "utilization", "count": 0})", "count",
         "expected a whole number of devices from 1 to 100000"},
        {R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "h100-sxm", "axis": "utilization", "extra": 1})", "extra",
         "unknown field (expected workload, device, axis, points, count)"},
    };
    for (const auto& r : rows) {
        const auto j = nlohmann::json::parse(sweep_json(catalog(), r.request));
        ASSERT_TRUE(j.contains("errors")) << r.request;
        EXPECT_EQ(j["errors"][0]["path"], r.path) << r.request;
        if (!r.message.empty()) {
            EXPECT_EQ(j["errors"][0]["message"], r.message) << r.request;
        }
    }
}

} // namespace hwplan
