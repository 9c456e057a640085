// bad_input_test.cpp: the bad-input matrix (issue 12). Every class of bad input a stranger can paste
// (malformed JSON, wrong types, missing fields, unknown keys, negative, zero, NaN, infinite, absurdly
// large or tiny, unknown ids, huge arrays, deep nesting, invalid UTF-8, duplicate keys, non-objects) is
// answered with the exact path and message, never a crash, a hang, NaN or a silent clamp. The rows marked
// "probe" are the findings of the issue's probe, each of which crashed, hung or passed silently before.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "hwplan/card.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/hf_config.h"
#include "hwplan/json_api.h"
#include "hwplan/measurement.h"
#include "hwplan/plan.h"
#include "hwplan/workload.h"

namespace hwplan {

namespace {

const Catalog& catalog() { return embedded_catalog().catalog; }

// A serve workload for Llama-3.1-8B with `extra` spliced in as more top-level keys.
std::string serve(const std::string& extra) { return R"({"stage": "serve", "model": "Llama-3.1-8B")" + (extra.empty() ? "" : ", " + extra) + "}"; }

struct Row {
    std::string text;
    std::string path;
    std::string message;
};

// The first issue of parse + plan, or {"", "<no issue>"}.
Issue first_issue(const std::string& text) {
    const Plan p = plan_from_json(text, catalog());
    return p.issues.empty() ? Issue{"", "<no issue>", ""} : p.issues.front();
}

void check(const std::vector<Row>& rows) {
    for (const auto& r : rows) {
        const Issue i = first_issue(r.text);
        EXPECT_EQ(i.path, r.path) << r.text.substr(0, 200);
        EXPECT_EQ(i.message, r.message) << r.text.substr(0, 200);
    }
}

} // namespace

// [SECTION] The probe's findings: each crashed, hung or was accepted silently before --------------

TEST(BadInput, NumbersBeyondADoubleAreNamedNotAborted) {
    // probe: nlohmann throws out_of_range (406) for 1e400 and 400-digit integers; the reader caught only parse_error.
    check({
        {serve(R"("serve": {"concurrent_users": 1e400})"), "serve.concurrent_users",
         "number too large (beyond the range of a double, about 1.8e308)"},
        {serve(R"("serve": {"context_tokens": )" + std::string(400, '9') + "}"), "serve.context_tokens",
         "number too large (beyond the range of a double, about 1.8e308)"},
        {serve(R"("hardware": {"devices": ["h100-sxm"], "count": -1e999})"), "hardware.count",
         "number too large (beyond the range of a double, about 1.8e308)"},
        {serve(R"("serve": {"traffic": [{"name": "a", "requests_per_s": 1, "prompt_tokens": 1, "output_tokens": 1}, 1e400]})"),
         "serve.traffic[1]", "number too large (beyond the range of a double, about 1.8e308)"},
    });
}

TEST(BadInput, IntegersReportTheValueAsWritten) {
    // probe: 2^63 was reported as -9223372036854775808 (read as long long); 1e308 as "a fractional number".
    check({
        {serve(R"("hardware": {"count": 9223372036854775808})"), "hardware.count",
         "implausible value 9.22337e+18; expected 1 to 1000000"},
        {serve(R"("hardware": {"count": 1e308})"), "hardware.count", "implausible value 1e+308; expected 1 to 1000000"},
        {serve(R"("hardware": {"count": 2.5})"), "hardware.count", "expected an integer, got 2.5"},
        {serve(R"("hardware": {"count": "8"})"), "hardware.count", "expected an integer, got a string"},
    });
    // A whole number written with a decimal point is still that whole number.
    EXPECT_TRUE(parse_workload(serve(R"("hardware": {"devices": ["h100-sxm"], "count": 2.0})"), catalog()).issues.empty());
}

TEST(BadInput, KvBlockTokensMustBeWholeTokens) {
    // probe: a block of 5e-324 tokens never changed `tokens -= block` and the plan hung forever.
    check({
        {serve(R"("assumptions": {"kv_block_tokens": 5e-324})"), "assumptions.kv_block_tokens",
         "must be a whole number of tokens, at least 1, got 4.94066e-324"},
        {serve(R"("assumptions": {"kv_block_tokens": 16.5})"), "assumptions.kv_block_tokens",
         "must be a whole number of tokens, at least 1, got 16.5"},
        // probe: a prefill chunk of 0 tokens was accepted.
        {serve(R"("assumptions": {"prefill_chunk_tokens": 0})"), "assumptions.prefill_chunk_tokens",
         "must be a whole number of tokens, at least 1, got 0"},
    });
}

TEST(BadInput, DenormalOverridesAreRejectedBeforeTheyOverflowCosts) {
    // probe: 5e-324 as an efficiency or as hours per month gave null step times and costs (x / 5e-324 = inf).
    check({
        {serve(R"("assumptions": {"decode_bandwidth_efficiency": 5e-324})"), "assumptions.decode_bandwidth_efficiency",
         "must be a ratio from 0.001 to 1, got 4.94066e-324"},
        {serve(R"("assumptions": {"decode_compute_efficiency_8bit": 1.5})"), "assumptions.decode_compute_efficiency_8bit",
         "must be a ratio from 0.001 to 1, got 1.5"},
        {serve(R"("usage": {"hours_per_month": 5e-324})"), "usage.hours_per_month",
         "implausible value 4.94066e-324; expected 0 or 0.001 to 744"},
        {serve(R"("cost": {"usd_per_device_hour": 5e-324})"), "cost.usd_per_device_hour",
         "implausible value 4.94066e-324; expected 0 or 0.001 to 10000"},
    });
}

TEST(BadInput, TokenBudgetsMustHoldTogether) {
    // probe: output_tokens above context_tokens passed when prompt_tokens was left out.
    check({
        {serve(R"("serve": {"context_tokens": 100, "output_tokens": 200})"), "serve.output_tokens",
         "cannot exceed context_tokens (100)"},
        // probe: a 1-token context gave a default output of round(1/4) = 0 tokens and an API option with a
        // null cost marked feasible; a context holds at least one prompt and one output token.
        {serve(R"("serve": {"context_tokens": 1})"), "serve.context_tokens", "implausible value 1; expected 2 to 100000000"},
    });
}

TEST(BadInput, CountsMustBeWhole) {
    // probe: 1.5 users, a LoRA rank of 8.5 and a micro-batch of 0.5 were accepted.
    check({
        {serve(R"("serve": {"concurrent_users": 1.5})"), "serve.concurrent_users", "must be a whole number, got 1.5"},
        {R"({"stage": "finetune", "model": "Llama-3.1-8B", "train": {"method": "lora", "lora_rank": 8.5}})", "train.lora_rank",
         "must be a whole number, got 8.5"},
        {R"({"stage": "finetune", "model": "Llama-3.1-8B", "train": {"micro_batch": 2.5}})", "train.micro_batch",
         "must be a whole number, got 2.5"},
        {R"({"stage": "finetune", "model": "Llama-3.1-8B", "train": {"global_batch": 31.5}})", "train.global_batch",
         "must be a whole number, got 31.5"},
    });
}

TEST(BadInput, DuplicateKeysAreNamed) {
    // probe: the last value won silently (RFC 8259 section 4 leaves duplicate names undefined).
    check({
        {R"({"stage": "serve", "stage": "batch", "model": "Llama-3.1-8B"})", "stage", "duplicate key (given twice in the same object)"},
        {serve(R"("serve": {"concurrent_users": 4, "concurrent_users": 8})"), "serve.concurrent_users",
         "duplicate key (given twice in the same object)"},
        {serve(R"("serve": {"traffic": [{"name": "a", "name": "b"}]})"), "serve.traffic[0].name",
         "duplicate key (given twice in the same object)"},
    });
}

TEST(BadInput, CustomArchitecturesMustBeConsistent) {
    // probe: 64 experts of 3 x 4096 x 14336 in 32 layers (about 361 billion) under params 7e9 gave negative bytes.
    check({
        {R"({"stage": "serve", "model": {"params": 7e9, "layers": 32, "hidden": 4096, "heads": 32, "intermediate": 14336,
             "experts": 64, "active_experts": 2}})",
         "model.experts", "64 experts of 176 million parameters in 32 layers make 361 billion parameters, more than params (7 billion)"},
        // probe: every layer windowed and no max_context gave a null max_context_tokens.
        {R"({"stage": "serve", "model": {"params": 7e9, "layers": 32, "hidden": 4096, "heads": 32, "sliding_window": 4096}})",
         "model.max_context", "required with sliding_window: when every layer has a window the cache no longer bounds the context"},
        // probe: hidden 16 over 32 heads gave head_dim 0 and a 0-byte KV cache.
        {R"({"stage": "serve", "model": {"params": 1e6, "layers": 2, "hidden": 16, "heads": 32}})", "model.heads",
         "cannot exceed hidden (16) unless head_dim is given: each head needs a dimension"},
    });
}

TEST(BadInput, LongNamesAreQuotedAsShortEscapedExcerpts) {
    // probe: a 10 MB unknown model name took 85 s (edit distance against every name) and was echoed whole.
    const std::string name(200000, 'x');
    const Issue i = first_issue(serve("").replace(serve("").find("Llama-3.1-8B"), 12, name));
    EXPECT_EQ(i.path, "model");
    EXPECT_EQ(i.message, "unknown model \"" + std::string(40, 'x') + "\"... (200000 bytes)");
    // probe: a NUL cut the CLI message short; control characters and quotes are escaped.
    check({
        {serve(R"("hardware": {"devices": ["x\u0000y\"z"]})"), "hardware.devices[0]", R"(unknown device "x\u0000y\"z")"},
        {R"({"stage": "serve", "model": "Llama-3.1-8B", "precision": {"weights": "bf16", "compute": "q\u0007"}})", "precision.compute",
         R"(unknown precision "q\u0007"; expected one of fp32, bf16, fp16, fp8, int8, int4, fp4)"},
    });
}

TEST(BadInput, ResourceLimitsAreErrorsNotHangs) {
    // An input size cap, a nesting cap and a cap on list lengths (each entry is resolved against the catalog).
    std::string big = serve(R"("name": ")" + std::string(1 << 20, 'a') + "\"");
    check({
        {big, "", "input is " + std::to_string(big.size()) + " bytes; the limit is 1048576 bytes (1 MiB)"},
        {serve(R"("x": )" + std::string(40, '[') + std::string(40, ']')), "x[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]",
         "nested deeper than 32 levels"},
    });
    std::string devices = "\"hardware\": {\"devices\": [";
    for (int i = 0; i < 100000; ++i) devices += (i ? ",\"d" : "\"d") + std::to_string(i) + "\"";
    check({{serve(devices + "]}"), "hardware.devices", "names 100000 devices; at most 256 (leave it out to consider every device)"}});
}

// [SECTION] The matrix: one row per class of bad input, on the workload reader ---------------------

TEST(BadInput, EveryClassNamesPathAndReason) {
    check({
        // malformed JSON
        {R"({"stage": "serve",)", "", "malformed JSON: parse error at line 1, column 19: syntax error while parsing object key - "
                                      "unexpected end of input; expected string literal"},
        // a JSON value that is not an object
        {"[]", "", "expected a JSON object, got an array"},
        {"42", "", "expected a JSON object, got a number"},
        {"\"serve\"", "", "expected a JSON object, got a string"},
        {"", "", "malformed JSON: parse error at line 1, column 1: syntax error while parsing value - unexpected end of input; "
                 "expected '[', '{', or a literal"},
        // wrong types
        {serve(R"("serve": [])"), "serve", "expected an object, got an array"},
        {serve(R"("serve": {"context_tokens": "4k"})"), "serve.context_tokens", "expected a number, got a string"},
        {serve(R"("train": {"cpu_offload": "yes"})"), "train.cpu_offload", "expected true or false, got a string"},
        {R"({"stage": 3, "model": "Llama-3.1-8B"})", "stage", "expected a string, got a number"},
        {R"({"stage": "serve", "model": 8})", "model", "expected a model name or an object, got a number"},
        // missing required fields
        {R"({"model": "Llama-3.1-8B"})", "stage", "required field is missing"},
        {R"({"stage": "serve", "model": {"layers": 2}})", "model.params", "required field is missing"},
        // unknown keys
        {serve(R"("serve": {"users": 4})"), "serve.users", "unknown key"},
        // negative, zero
        {serve(R"("serve": {"concurrent_users": -4})"), "serve.concurrent_users", "implausible value -4; expected 1 to 10000000"},
        {serve(R"("serve": {"concurrent_users": 0})"), "serve.concurrent_users", "implausible value 0; expected 1 to 10000000"},
        // NaN and infinity have no JSON spelling: they are malformed JSON
        {serve(R"("serve": {"concurrent_users": NaN})"), "",
         "malformed JSON: parse error at line 1, column 75: syntax error while parsing value - invalid literal; last read: "
         "\"\\\"concurrent_users\\\": N\""},
        {serve(R"("serve": {"concurrent_users": Infinity})"), "",
         "malformed JSON: parse error at line 1, column 75: syntax error while parsing value - invalid literal; last read: "
         "\"\\\"concurrent_users\\\": I\""},
        // absurdly large or tiny
        {serve(R"("serve": {"concurrent_users": 1e300})"), "serve.concurrent_users", "implausible value 1e+300; expected 1 to 10000000"},
        {serve(R"("serve": {"ttft_target_s": 1e-300})"), "serve.ttft_target_s", "implausible value 1e-300; expected 0.001 to 3600"},
        // unknown ids
        {R"({"stage": "serve", "model": "Llama-9"})", "model", "unknown model \"Llama-9\""},
        {serve(R"("precision": "fp7")"), "precision",
         "unknown weight format \"fp7\"; expected one of bf16, fp16, fp32, fp4, fp8, int4, int8, iq4_xs, mxfp4, nf4, nf4-no-dq, nvfp4, q2_k, "
         "q3_k_m, q4_0, q4_k_m, q5_k_m, q6_k, q8_0"},
        // huge arrays
        {serve(R"("serve": {"traffic": [)" + [] {
                   std::string s;
                   for (int i = 0; i < 300; ++i) s += (i ? "," : "") + std::string("{}");
                   return s;
               }() + "]}"),
         "serve.traffic", "has 300 classes; at most 256"},
        // invalid UTF-8 (bytes 0xff 0xfe inside a string; column 56 is the 0xff)
        {serve("\"name\": \"Ll\xff\xfe\""), "",
         "malformed JSON: parse error at line 1, column 56: syntax error while parsing value - invalid string: ill-formed UTF-8 "
         "byte; last read: \"\\\"Ll\\xff\""},
    });
}

// [SECTION] The JSON API: the same classes come back as {"errors"}, never a throw -----------------

TEST(BadInput, JsonApiAnswersEveryClassWithErrors) {
    using nlohmann::json;
    struct ApiRow {
        std::string (*call)(const std::string&);
        std::string request;
        std::string path, message;
    };
    static const auto plan = [](const std::string& r) { return plan_json(catalog(), r); };
    static const auto devices = [](const std::string& r) { return devices_request_json(catalog(), r); };
    const ApiRow rows[] = {
        {+plan, serve(R"("serve": {"concurrent_users": 1e400})"), "serve.concurrent_users",
         "number too large (beyond the range of a double, about 1.8e308)"},
        {+plan, "\"Ll\xff\"", "",
         "malformed JSON: parse error at line 1, column 4: syntax error while parsing value - invalid string: ill-formed UTF-8 "
         "byte; last read: \"\\\"Ll\\xff\""},
        {+plan, serve(R"("stage": "batch")"), "stage", "duplicate key (given twice in the same object)"},
        {&weights_json, R"({"params": 1e400, "precision": "bf16"})", "params", "number too large (beyond the range of a double, about 1.8e308)"},
        {&weights_json, "[1]", "", "expected a JSON object, got an array"},
        {+devices, R"({"extension": {"devices": [{"id": 1e999}]}})", "extension.devices[0].id",
         "number too large (beyond the range of a double, about 1.8e308)"},
    };
    for (const auto& r : rows) {
        std::string out;
        ASSERT_NO_THROW(out = r.call(r.request)) << r.request.substr(0, 100);
        const json j = json::parse(out); // always valid JSON, even when the input was not UTF-8
        ASSERT_TRUE(j.contains("errors")) << out.substr(0, 300);
        EXPECT_EQ(j["errors"][0]["path"], r.path) << r.request.substr(0, 100);
        EXPECT_EQ(j["errors"][0]["message"], r.message) << r.request.substr(0, 100);
    }
}

// [SECTION] The other text entry points: calibrate with a workload, config import, extensions, sweep, team ------

// Each answers bad input with its first error's exact path and message, as JSON, never a throw and never an
// internal error (an exception its guard had to catch). The calibrate rows mark the page's report (issue 22):
// a precision given as a name, then of the wrong type, threw inside calibrate and aborted the CLI and the page.
TEST(BadInput, EveryTextEntryPointAnswersWithErrors) {
    using nlohmann::json;
    struct EntryRow {
        std::string (*call)(const std::string&);
        std::string request;
        std::string path, message;
    };
    static const auto calibrate = [](const std::string& r) { return calibrate_request_json(catalog(), r); };
    static const auto sweep = [](const std::string& r) { return sweep_json(catalog(), r); };
    static const auto plan_with = [](const std::string& r) { return plan_request_json(catalog(), r); };
    static const auto team = [](const std::string& r) { return issues_json(team_plan(r, catalog()).issues); };
    static const auto read_back = [](const std::string& r) { return read_back_request_json(catalog(), r); };
    const std::string bench = R"(| model | params | backend | test | t/s |\n| --- | --: | --- | --: | --: |\n| llama 7B Q4_0 | 6.74 B | CUDA | tg 128 | 131.42 |)";
    auto cal = [&](const std::string& workload, const std::string& more = "") {
        return R"({"workload": )" + workload + R"(, "device": "rtx-a6000", "text": ")" + bench + R"(", "read_on": "2026-12-02")" + more + "}";
    };
    const EntryRow rows[] = {
        // calibrate with a workload
        {+calibrate, cal(R"({"stage": "serve", "model": "mistral-7b", "precision": 16})"), "workload.precision",
         "expected a format name or an object {weights, kv_cache, compute}, got a number"},
        {+calibrate, cal(R"({"stage": "serve", "model": "mistral-7b", "precision": "fp7"})"), "workload.precision",
         "unknown weight format \"fp7\"; expected one of bf16, fp16, fp32, fp4, fp8, int4, int8, iq4_xs, mxfp4, nf4, nf4-no-dq, nvfp4, q2_k, q3_k_m, "
         "q4_0, q4_k_m, q5_k_m, q6_k, q8_0"},
        {+calibrate, cal(R"({"stage": "serve", "model": "mistral-7b", "serve": {"concurrent_users": 1e400}})"), "workload.serve.concurrent_users",
         "number too large (beyond the range of a double, about 1.8e308)"},
        {+calibrate, cal(R"({"stage": "serve"})"), "workload.model", "required field is missing (the model the measurement was taken with)"},
        {+calibrate, cal(R"("mistral-7b")"), "workload", "expected an object, got a string"},
        {+calibrate, cal(R"({"stage": "serve", "model": "mistral-7b"})", R"(, "index": 3)"), "index", "the text has 1 measurement (index 0)"},
        {+calibrate, cal(R"({"stage": "serve", "model": "mistral-7b"})", R"(, "extension": [])"), "extension", "expected an object, got an array"},
        {+calibrate, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "h999", "text": "| test | t/s |\n| tg 128 | 50 |", "read_on": "2026-12-02"})",
         "device", "unknown device id \"h999\""},
        {+calibrate, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "rtx-a6000", "text": "", "read_on": "2026-12-02"})",
         "text", "must not be empty"},
        {+calibrate, "[1]", "", "expected a JSON object, got an array"},
        // config import (the page's "Add model", importConfig)
        {&hf_config_json, R"({"config": "{", "read_on": "2026-12-02"})", "config",
         "malformed JSON: parse error at line 1, column 2: syntax error while parsing object key - unexpected end of input; expected string literal"},
        {&hf_config_json, R"({"config": 42, "read_on": "2026-12-02"})", "config", "expected an object or a string, got a number"},
        {&hf_config_json, R"({"read_on": "2026-12-02"})", "config", "required field is missing (the config.json, as an object or as its text)"},
        {&hf_config_json, R"({"config": {"model_type": "llama", "hidden_size": 1e400}, "read_on": "2026-12-02"})", "config.hidden_size",
         "number too large (beyond the range of a double, about 1.8e308)"},
        // a user's extension, planned with (planWith, hwplan plan --extend)
        {+plan_with, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "extension": []})", "extension", "expected an object, got an array"},
        {+plan_with, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "extension": {"devices": [{"id": "my-gpu"}]}})", "extension.devices[0].sources", "required field is missing"},
        {+plan_with, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "extension": {"gpus": []}})", "extension.gpus",
         "unknown key (expected devices, models and calibrations)"},
        // sweep
        {+sweep, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "h100-sxm", "axis": "users"})", "axis",
         "expected concurrent_users, context_tokens, batch_size or utilization"},
        {+sweep, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "h100-sxm", "axis": "concurrent_users", "points": [1, "2"]})",
         "points[1]", "expected a number, got a string"},
        {+sweep, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "h100-sxm", "axis": "concurrent_users", "points": [1e400]})",
         "points[0]", "number too large (beyond the range of a double, about 1.8e308)"},
        {+sweep, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "h100-sxm", "axis": "concurrent_users", "count": 0})", "count",
         "expected a whole number of devices from 1 to 100000"},
        {+sweep, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "device": "h999", "axis": "utilization"})", "device", "unknown device \"h999\""},
        {+sweep, R"({"workload": {"stage": "serve", "model": "mistral-7b", "precision": 16}, "device": "h100-sxm", "axis": "utilization"})",
         "workload.precision", "expected a format name or an object {weights, kv_cache, compute}, got a number"},
        // run-it's benchmark output read back (readBack, hwplan run-it --measured)
        {+read_back, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "text": "all good, 42 ms", "read_on": "2026-12-02"})", "text",
         "no benchmark output found: paste the result block `vllm bench serve`, `python -m sglang.bench_serving` or TensorRT-LLM's "
         "benchmark_serving prints (from \"============ Serving Benchmark Result ============\" on), the table `llama-bench -o md` prints, "
         "mlx_lm.benchmark's lines, or torchtitan's, torchtune's, Megatron-LM's, DeepSpeed's, Axolotl's, LLaMA-Factory's or OpenRLHF's training log"},
        {+read_back, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "text": "", "read_on": "2026-12-02"})", "text", "must not be empty"},
        {+read_back, R"({"text": "x", "read_on": "2026-12-02"})", "workload",
         "required field is missing (the workload the plan and its run section come from)"},
        {+read_back, R"({"workload": {"stage": "serve", "model": "mistral-7b", "precision": 16}, "text": "x", "read_on": "2026-12-02"})",
         "workload.precision", "expected a format name or an object {weights, kv_cache, compute}, got a number"},
        {+read_back, R"({"workload": {"stage": "serve", "model": "mistral-7b"}, "text": "x", "read_on": "2026-12-02", "extension": []})", "extension",
         "expected an object, got an array"},
        {+read_back, "[1]", "", "expected a JSON object, got an array"},
        // team
        {+team, R"({"name": "x"})", "cards", "required field is missing (a list of workloads)"},
        {+team, R"({"name": "x", "cards": [42]})", "cards[0]", "expected a JSON object, got a number"},
        {+team, R"({"name": "x", "cards": [{"stage": "serve", "model": "mistral-7b", "precision": 16}]})", "cards[0].precision",
         "expected a format name or an object {weights, kv_cache, compute}, got a number"},
        {+team, "[]", "", "expected a JSON object, got an array"},
    };
    for (const auto& r : rows) {
        std::string out;
        ASSERT_NO_THROW(out = r.call(r.request)) << r.request.substr(0, 100);
        const json j = json::parse(out);
        ASSERT_TRUE(j.contains("errors") && !j["errors"].empty()) << r.request.substr(0, 200) << " -> " << out.substr(0, 300);
        const std::string path = j["errors"][0]["path"], message = j["errors"][0]["message"];
        EXPECT_EQ(path, r.path) << r.request.substr(0, 200) << " -> " << message;
        EXPECT_EQ(message, r.message) << r.request.substr(0, 200);
        EXPECT_EQ(message.rfind("internal error", 0), std::string::npos) << message;
    }
}

} // namespace hwplan
