// fuzz_measurement.cpp: libFuzzer target for pasted benchmark output (measurement.h): the parser, and the
// calibration of a small workload on one device from whatever it recognised (every measurement kind reaches
// the bisection). A measurement is finite and positive; a calibration is within its assumption's range.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/measurement.h"

HWPLAN_FUZZ_TARGET(fuzz_measurement) {
    if (size > 4096) return 0; // calibration plans ~60 times per measurement: keep inputs small enough to be fast
    const hwplan::Catalog& cat = hwplan::embedded_catalog().catalog;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const hwplan::MeasurementParse p = hwplan::parse_measurements(text);
    size_t calibrated = 0;
    for (const auto& m : p.measurements) {
        if (!(std::isfinite(m.value) && m.value > 0)) hwplan::fuzz::fail("a measurement that is not finite and positive", m.what);
        if (calibrated++ >= 2) continue;
        const bool training = m.kind == hwplan::MeasurementKind::step_time_s;
        const std::string w = training ? R"({"stage": "finetune", "model": "llama-3.2-1b", "train": {"method": "lora"}})"
                                       : R"({"stage": "serve", "model": "llama-3.2-1b"})";
        const auto c = hwplan::calibrate(cat, w, "rtx-4090", m, "2026-11-30");
        if (c.issues.empty() && !(std::isfinite(c.calibration.value) && c.calibration.value >= 0 && std::isfinite(c.ratio) && c.ratio > 0))
            hwplan::fuzz::fail("a calibration out of range", c.extension_json);
    }
    return 0;
}
