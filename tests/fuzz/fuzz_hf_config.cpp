// fuzz_hf_config.cpp: libFuzzer target for a pasted Hugging Face config.json (hf_config.h): the reader, its
// JSON entry point, and the extension it produces loaded back through the catalog (the --extend path).
// An accepted config must give an extension the catalog reader accepts and a finite, positive count.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/hf_config.h"

HWPLAN_FUZZ_TARGET(fuzz_hf_config) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const hwplan::HfConfigRead r = hwplan::read_hf_config(text, {.id = "fuzz-model", .read_on = "2026-11-30"});
    if (r.issues.empty()) {
        hwplan::Catalog cat = hwplan::embedded_catalog().catalog;
        const hwplan::Issues issues = hwplan::extend_catalog(cat, r.extension_json, "fuzz");
        if (!issues.empty()) hwplan::fuzz::fail("an accepted config gives an extension the catalog rejects", hwplan::to_string(issues.front()));
        const auto c = hwplan::derive_params(r.model.arch);
        if (!(std::isfinite(c.total) && c.total > 0 && c.active > 0 && c.active <= c.total * (1 + 1e-12)))
            hwplan::fuzz::fail("an accepted config gives an impossible parameter count", r.extension_json);
    }
    hwplan::fuzz::check_answer(hwplan::hf_config_json("{\"read_on\": \"2026-11-30\", \"config\": " + nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "}"), "model_id");
    return 0;
}
