// fuzz_json_api.cpp: libFuzzer target for the JavaScript API's JSON calls (json_api.h, what
// wasm/bindings.cpp exposes): weights, devices and models with an extension, and plan. Every answer
// must be valid JSON, a result or {"errors"}, whatever the bytes (invalid UTF-8 included).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"

HWPLAN_FUZZ_TARGET(fuzz_json_api) {
    if (size == 0) return 0;
    const hwplan::Catalog& cat = hwplan::embedded_catalog().catalog;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    switch (data[0] % 4) {
    case 0: hwplan::fuzz::check_answer(hwplan::weights_json(text), "weights_bytes"); break;
    case 1: hwplan::fuzz::check_answer(hwplan::devices_request_json(cat, text), "devices"); break;
    case 2: hwplan::fuzz::check_answer(hwplan::models_request_json(cat, text), "models"); break;
    default: hwplan::fuzz::check_answer(hwplan::plan_json(cat, text), "plan"); break;
    }
    return 0;
}
