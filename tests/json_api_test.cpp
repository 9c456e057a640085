// json_api_test.cpp: the JSON edge. Exact error texts and paths, like nlohmann/json's own tests.
#include "hwplan/json_api.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
         "unknown precision \"fp7\"; expected one of fp32, bf16, fp16, fp8, int8, int4"},
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

} // namespace hwplan
