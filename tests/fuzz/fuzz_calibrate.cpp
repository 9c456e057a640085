// fuzz_calibrate.cpp: libFuzzer target for calibrating with a workload: pasted benchmark output and the workload
// it belongs to, as the page and the CLI pair them (measurement.h). The first byte picks the entry point and the
// device; the rest is "WORKLOAD JSON\0MEASUREMENT TEXT" (without a NUL: the page's default workload and the whole
// rest as the text). Every answer is a calibration in its assumption's range or issues naming a reason.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"
#include "hwplan/measurement.h"

HWPLAN_FUZZ_TARGET(fuzz_calibrate) {
    if (size == 0 || size > 4096) return 0; // a calibration plans ~60 times per measurement
    static const char* kDevices[] = {"rtx-a6000", "rtx-4090", "h100-sxm", "apple-m2-ultra"};
    const hwplan::Catalog& cat = hwplan::embedded_catalog().catalog;
    const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::string device = kDevices[(data[0] >> 1) % 4];
    if (data[0] & 1) { // the JavaScript API's request: {"workload", "device", "text", "read_on", "index"?, "extension"?}
        hwplan::fuzz::check_answer(hwplan::calibrate_request_json(cat, rest), "calibration");
        return 0;
    }
    const size_t nul = rest.find('\0');
    const std::string workload = nul == std::string::npos
                                     ? R"({"stage": "serve", "model": "mistral-7b", "precision": "bf16", "serve": {"context_tokens": 8192,
                                          "prompt_tokens": 1500, "output_tokens": 400, "concurrent_users": 20, "ttft_target_s": 2}})"
                                     : rest.substr(0, nul);
    const std::string text = nul == std::string::npos ? rest : rest.substr(nul + 1);
    const hwplan::MeasurementParse p = hwplan::parse_measurements(text);
    hwplan::fuzz::check_issues(p.issues, text);
    for (size_t i = 0; i < p.measurements.size() && i < 2; ++i) {
        const auto c = hwplan::calibrate(cat, workload, device, p.measurements[i], "2026-12-02");
        hwplan::fuzz::check_issues(c.issues, workload);
        if (c.issues.empty() && !(std::isfinite(c.calibration.value) && c.calibration.value >= 0 && std::isfinite(c.ratio) && c.ratio > 0))
            hwplan::fuzz::fail("a calibration out of range", c.extension_json);
    }
    return 0;
}
