// json_api_test.cpp: the JSON edge. Exact error texts and paths, like nlohmann/json's own tests.
#include "hwplan/json_api.h"

#include "hwplan/catalog.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "../core/src/json_writer.h"

namespace hwplan {

using nlohmann::json;

TEST(WeightsJson, SevenBillionBf16) {
    auto out = json::parse(weights_json(R"({"params": 7e9, "precision": "bf16"})"));
    EXPECT_DOUBLE_EQ(out["weights_bytes"].get<double>(), 14e9);
    EXPECT_DOUBLE_EQ(out["bytes_per_param"].get<double>(), 2.0);
    EXPECT_EQ(out["precision"], "bf16");
    EXPECT_FALSE(out.contains("errors"));
}

TEST(WeightsJson, ErrorsNamePathAndReason) {
    struct Row { const char* request; const char* path; const char* message; };
    const Row rows[] = {
        {R"({"precision": "bf16"})", "params", "required field is missing"},
        {R"({"params": "7e9", "precision": "bf16"})", "params", "expected a number, got a string"},
        {R"({"params": 7e9})", "precision", "required field is missing"},
        {R"({"params": 7e9, "precision": 16})", "precision", "expected a string, got a number"},
        {R"({"params": -7e9, "precision": "bf16"})", "params", "must be a positive number of parameters, got -7000000000"},
        {R"({"params": 7e9, "precision": "fp7"})", "precision",
         "unknown precision \"fp7\"; expected one of fp32, bf16, fp16, fp8, int8, int4, fp4"},
        {R"({"params": 7e9, "precision": "bf16", "parms": 1})", "parms", "unknown field"},
        {R"([1, 2])", "", "expected a JSON object, got an array"},
    };
    for (const auto& r : rows) {
        auto out = json::parse(weights_json(r.request));
        ASSERT_TRUE(out.contains("errors")) << r.request;
        ASSERT_EQ(out["errors"].size(), 1u) << r.request;
        EXPECT_EQ(out["errors"][0]["path"], r.path) << r.request;
        EXPECT_EQ(out["errors"][0]["message"], r.message) << r.request;
    }
}

TEST(WeightsJson, MalformedJsonIsAnErrorNotAThrow) {
    auto out = json::parse(weights_json(R"({"params": 7e9,)"));
    ASSERT_EQ(out["errors"].size(), 1u);
    EXPECT_EQ(out["errors"][0]["path"], "");
    EXPECT_EQ(out["errors"][0]["message"].get<std::string>().rfind("malformed JSON: parse error at line 1", 0), 0u)
        << out.dump();
}

TEST(VersionJson, NamesTheProgram) {
    auto out = json::parse(version_json());
    EXPECT_EQ(out["name"], "hwplan");
    EXPECT_FALSE(out["version"].get<std::string>().empty());
}

// planWith in the JavaScript API: a plan over the catalog extended by the request's own entries is the plan
// the extended catalog gives (what `hwplan plan W --extend E` prints), and the request's shape is checked.
TEST(PlanRequestJson, ExtensionGivesTheExtendedCatalogsPlan) {
    const std::string device = R"({"devices": [{"id": "my-lab-gpu", "name": "Lab GPU 48GB", "vendor": "Example", "kind": "gpu",
        "memory": {"capacity_GB": 48, "type": "GDDR6", "bandwidth_GBps": 960, "source": "spec"},
        "compute": {"fp32_dense_TFLOPS": 90, "bf16_dense_TFLOPS": 180, "source": "spec"},
        "software": ["cuda", "pytorch"], "availability": {"buy": true, "rent": false, "cloud_only": null}, "prices": [],
        "sources": {"spec": {"title": "test fixture", "locator": "table 1", "read_on": "2026-11-29"}}}]})";
    const std::string workload = R"({"stage": "serve", "model": "llama-2-7b", "hardware": {"devices": ["my-lab-gpu"]}})";
    Catalog extended = embedded_catalog().catalog;
    ASSERT_TRUE(extend_catalog(extended, device).empty());
    const json expected = json::parse(plan_json(extended, workload));
    ASSERT_TRUE(expected.contains("plan")) << expected.dump().substr(0, 300);
    const json got = json::parse(plan_request_json(embedded_catalog().catalog,
                                                   R"({"workload": )" + workload + R"(, "extension": )" + device + "}"));
    EXPECT_EQ(got, expected);
    // Without the extension the device is unknown: the same error as a plain plan gives.
    const json plain = json::parse(plan_request_json(embedded_catalog().catalog, R"({"workload": )" + workload + "}"));
    EXPECT_EQ(plain, json::parse(plan_json(embedded_catalog().catalog, workload)));
    ASSERT_TRUE(plain.contains("errors"));
}

TEST(PlanRequestJson, ErrorsNamePathAndReason) {
    struct Row { const char* request; const char* path; const char* message; };
    const Row rows[] = {
        {R"({})", "workload", "required field is missing"},
        {R"({"workload": "serve"})", "workload", "expected an object, got a string"},
        {R"({"workload": {"stage": "serve", "model": "llama-2-7b"}, "extra": 1})", "extra", "unknown field"},
        {R"({"workload": {"stage": "serve", "model": "llama-2-7b"}, "extension": []})", "extension", "expected an object, got an array"},
        {R"(42)", "", "expected a JSON object, got a number"},
    };
    for (const auto& r : rows) {
        const json out = json::parse(plan_request_json(embedded_catalog().catalog, r.request));
        ASSERT_TRUE(out.contains("errors")) << r.request;
        EXPECT_EQ(out["errors"][0]["path"], r.path) << r.request;
        EXPECT_EQ(out["errors"][0]["message"], r.message) << r.request;
    }
}

// The plan's JSON is written without building an nlohmann tree (json_writer.h), to print what dump() printed for the
// tree: re-parsing it and dumping it again must give the same bytes. dump() sorts each object's keys, keeps one value per
// key and prints each number one way, so a key out of order, a key twice or a number printed otherwise would differ.
// Every scenario (serving, training, RL, owned devices, flips) and a plan that fails.
TEST(PlanJson, IsWhatDumpPrintsForEveryScenario) {
    const Catalog& cat = embedded_catalog().catalog;
    int planned = 0;
    for (const auto& sc : cat.scenarios) {
        if (sc.workload_json.empty()) continue; // a team of workloads (hwplan team)
        const std::string text = plan_json(cat, sc.workload_json);
        const json j = json::parse(text);
        ASSERT_TRUE(j.contains("plan")) << sc.id << ": " << text.substr(0, 200);
        EXPECT_EQ(j.dump(), text) << sc.id;
        ++planned;
    }
    EXPECT_GE(planned, 15);
    const std::string bad = plan_json(cat, R"({"stage": "serve", "model": "no-such-model"})");
    EXPECT_EQ(json::parse(bad).dump(), bad);
}

// The writer against dump() on the same values: every ASCII byte in a string (the control characters escaped as dump()
// escapes them), a string with UTF-8 in it, a bad UTF-8 sequence (dump() throws type_error 316; so does the writer),
// integral and fractional doubles, non-finite ones (null), signed and unsigned integers, booleans, null, nesting.
TEST(JsonWriter, PrintsWhatDumpPrints) {
    std::string ascii;
    for (int b = 1; b < 0x80; ++b) ascii += static_cast<char>(b);
    const std::string utf8 = "tokens/s \xe2\x89\x88 4 \xc3\x97 H100 \xe2\x80\x94 \"quoted\"\n";
    const double nums[] = {0.0, -0.0, 2.0, 1e30, 1.5e-7, 0.1, 1.0 / 3, 7e9, -123456.75, 1e301, std::numeric_limits<double>::infinity(), std::nan("")};
    json tree = {{"ascii", ascii}, {"utf8", utf8}, {"t", true}, {"f", false}, {"n", nullptr}, {"i", -42}, {"u", 4096u},
                 {"l", 1234567890123L}, {"nums", json::array()}, {"empty", json::object()}};
    for (const double d : nums) tree["nums"].push_back(d);
    std::string out;
    detail::JsonWriter w(out);
    w.begin_object(); // keys in dump()'s order: ascii, empty, f, i, l, n, nums, t, u, utf8
    w.member("ascii", ascii);
    w.key("empty");
    w.begin_object();
    w.end_object();
    w.member("f", false);
    w.member("i", -42);
    w.member("l", 1234567890123L);
    w.key("n");
    w.null();
    w.key("nums");
    w.begin_array();
    for (const double d : nums) w.value(d);
    w.end_array();
    w.member("t", true);
    w.member("u", 4096u);
    w.member("utf8", utf8);
    w.end_object();
    EXPECT_EQ(out, tree.dump());
    EXPECT_NE(out.find("null,null]"), std::string::npos); // infinity and NaN, as dump() prints them

    const std::string broken = "bad \xff byte";
    std::string sink;
    detail::JsonWriter bw(sink);
    try {
        bw.value(broken);
        FAIL() << "a bad UTF-8 byte was written";
    } catch (const json::type_error& e) {
        EXPECT_EQ(e.id, 316);
    }
}

// One answer through the JS API: plan_json (what wasm/bindings.cpp's plan calls) writes the plan's candidates as they
// are, device for device, with the same count and layout (tensor, pipeline, data, expert parallel), and each one's
// search with that candidate as its best point: the serving search for the bank (serving, every catalog device), the
// training search for frontier pretraining (GB200 NVL72, H100 SXM, TPU v5p). tests/layouts_agree.cmake checks the CLI.
TEST(OneAnswer, JsApiPlanIsThePlansCandidates) {
    const Catalog& cat = embedded_catalog().catalog;
    for (const std::string id : {"bank-70b-fp8", "frontier-pretraining"}) {
        const Scenario* sc = nullptr;
        for (const auto& s : cat.scenarios)
            if (s.id == id) sc = &s;
        ASSERT_NE(sc, nullptr) << id;
        const Plan p = plan_from_json(sc->workload_json, cat);
        const json j = json::parse(plan_json(cat, sc->workload_json));
        const json& cands = j.at("plan").at("candidates");
        ASSERT_EQ(cands.size(), p.candidates.size()) << id;
        ASSERT_FALSE(p.candidates.empty()) << id;
        for (size_t i = 0; i < cands.size(); ++i) {
            const Candidate& c = p.candidates[i];
            const json& x = cands[i];
            const std::string at = id + " " + c.device;
            EXPECT_EQ(x.at("device"), c.device) << at;
            EXPECT_EQ(x.at("count"), c.count) << at;
            const json& l = x.at("layout");
            EXPECT_EQ(l.at("tensor_parallel"), c.layout.tensor_parallel) << at;
            EXPECT_EQ(l.at("pipeline_parallel"), c.layout.pipeline_parallel) << at;
            EXPECT_EQ(l.at("data_parallel"), c.layout.data_parallel) << at;
            EXPECT_EQ(l.at("expert_parallel"), c.layout.expert_parallel) << at;
            if (p.stage == Stage::serve) {
                const json& b = x.at("serving_search").at("best");
                EXPECT_EQ(b.at("count"), c.count) << at;
                EXPECT_EQ(b.at("replicas"), std::max(1, c.layout.data_parallel)) << at;
                EXPECT_EQ(b.at("tensor_parallel"), c.layout.tensor_parallel) << at;
                EXPECT_EQ(b.at("pipeline_parallel"), c.layout.pipeline_parallel) << at;
                EXPECT_EQ(b.at("expert_parallel"), c.layout.expert_parallel) << at;
                EXPECT_EQ(x.at("serving_search").at("alternatives").size() + 1, c.serving.points.size()) << at;
            } else {
                const json& b = x.at("layouts").at("best");
                ASSERT_FALSE(b.is_null()) << at;
                EXPECT_EQ(b.at("tensor_parallel"), c.layout.tensor_parallel) << at;
                EXPECT_EQ(b.at("pipeline_parallel"), c.layout.pipeline_parallel) << at;
                EXPECT_EQ(b.at("data_parallel"), c.layout.data_parallel) << at;
                EXPECT_EQ(b.at("expert_parallel"), c.layout.expert_parallel) << at;
            }
        }
    }
}

} // namespace hwplan
