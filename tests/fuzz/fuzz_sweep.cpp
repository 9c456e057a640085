// fuzz_sweep.cpp: libFuzzer target for the what-if curves (sweep.h) as the CLI and the page's what-if view ask for
// them: the JSON API's request {"workload", "device", "axis", "points"?, "count"?} (first byte even), or a workload
// alone swept on a device and axis the first byte picks, at the default points (odd). Every answer is a sweep or
// {"errors"}; every point's x is finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"

HWPLAN_FUZZ_TARGET(fuzz_sweep) {
    if (size == 0 || size > 16384) return 0;
    using nlohmann::json;
    static const char* kAxes[] = {"concurrent_users", "context_tokens", "batch_size", "utilization"};
    static const char* kDevices[] = {"h100-sxm", "rtx-4090", "mi300x", "tpu-v5e"};
    const hwplan::Catalog& cat = hwplan::embedded_catalog().catalog;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::string request = text;
    if (data[0] & 1) {
        const json workload = json::parse(text, nullptr, false);
        if (workload.is_discarded()) return 0;
        request = json{{"workload", workload}, {"device", kDevices[(data[0] >> 1) % 4]}, {"axis", kAxes[(data[0] >> 3) % 4]}}.dump();
    }
    const std::string out = hwplan::sweep_json(cat, request);
    hwplan::fuzz::check_answer(out, "sweep");
    const json j = json::parse(out);
    if (j.contains("sweep"))
        for (const auto& pt : j["sweep"]["points"])
            if (!pt["x"].is_number() || !std::isfinite(pt["x"].get<double>())) hwplan::fuzz::fail("a sweep point without a finite x", out.substr(0, 500));
    return 0;
}
