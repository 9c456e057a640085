// fuzz_extension.cpp: libFuzzer target for a user's catalog extension ({"devices", "models", "calibrations"}) as
// the page and `hwplan plan --extend` use it: the extension validated by extend_catalog, then planned: a serving
// workload and a fine-tune on every device it adds (with its first model, if any), and a what-if sweep on its
// first device. fuzz_catalog reaches the readers; this reaches the estimators with a stranger's figures.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"
#include "hwplan/plan.h"

HWPLAN_FUZZ_TARGET(fuzz_extension) {
    if (size == 0 || size > 16384) return 0;
    using nlohmann::json;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    hwplan::Catalog cat = hwplan::embedded_catalog().catalog;
    const size_t devices_before = cat.devices.size(), models_before = cat.models.size();
    const hwplan::Issues issues = hwplan::extend_catalog(cat, text, "extension");
    hwplan::fuzz::check_issues(issues, text);
    if (!issues.empty()) return 0;
    hwplan::fuzz::check_answer(hwplan::devices_json(cat), "devices");
    hwplan::fuzz::check_answer(hwplan::models_json(cat), "models");
    json devices = json::array();
    for (size_t i = devices_before; i < cat.devices.size() && devices.size() < 4; ++i) devices.push_back(cat.devices[i].id);
    const std::string model = models_before < cat.models.size() ? cat.models[models_before].id : "llama-3.2-1b";
    json serve = {{"stage", "serve"}, {"model", model}};
    json tune = {{"stage", "finetune"}, {"model", model}, {"train", {{"method", data[0] % 2 ? "qlora" : "lora"}}}};
    if (!devices.empty()) serve["hardware"] = tune["hardware"] = {{"devices", devices}};
    for (const json& w : {serve, tune}) {
        const hwplan::Plan p = hwplan::plan_from_json(w.dump(), cat);
        hwplan::fuzz::check_issues(p.issues, w.dump());
        hwplan::fuzz::check_answer(hwplan::to_json(p), "plan");
    }
    if (!devices.empty())
        hwplan::fuzz::check_answer(hwplan::sweep_json(cat, json{{"workload", serve}, {"device", devices[0]}, {"axis", "concurrent_users"}}.dump()),
                                   "sweep");
    return 0;
}
