// fuzz_config_import.cpp: libFuzzer target for the page's "Add model" (and the JavaScript API's importConfig):
// a pasted config.json through hf_config_json, and an accepted model planned at once over the catalog extended
// by its entry, as the page plans the workload that now names it (serving, or a LoRA fine-tune: the first byte
// picks). The plan must know the model: "unknown model" after "Added model" is the bug this guards.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/hf_config.h"
#include "hwplan/json_api.h"

HWPLAN_FUZZ_TARGET(fuzz_config_import) {
    if (size == 0) return 0;
    using nlohmann::json;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::string request =
        json{{"config", text}, {"id", "my-model"}, {"read_on", "2026-12-02"}}.dump(-1, ' ', false, json::error_handler_t::replace);
    const std::string out = hwplan::hf_config_json(request);
    hwplan::fuzz::check_answer(out, "model_id");
    const json answer = json::parse(out);
    if (answer.contains("errors")) return 0;
    const json workload = data[0] % 2 ? json{{"stage", "finetune"}, {"model", answer["model_id"]}, {"train", {{"method", "lora"}}}}
                                      : json{{"stage", "serve"}, {"model", answer["model_id"]}};
    const std::string plan = hwplan::plan_request_json(hwplan::embedded_catalog().catalog,
                                                       json{{"workload", workload}, {"extension", answer["extension"]}}.dump());
    hwplan::fuzz::check_answer(plan, "plan");
    const json p = json::parse(plan);
    if (p.contains("errors"))
        for (const auto& e : p["errors"])
            if (e.value("path", "") == "model" || e.value("path", "").rfind("extension", 0) == 0)
                hwplan::fuzz::fail("an accepted config's model is not planned with its own extension", plan);
    return 0;
}
