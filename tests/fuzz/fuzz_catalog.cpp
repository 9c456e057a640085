// fuzz_catalog.cpp: libFuzzer target for the catalog files and users' extensions. The first byte picks
// the kind of file (the loader reads each kind with its own reader) or a user's extension to the real
// catalog; the rest is the text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "hwplan/catalog.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"

HWPLAN_FUZZ_TARGET(fuzz_catalog) {
    if (size == 0) return 0;
    static const char* kPaths[] = {"devices/fuzz.json", "models/fuzz.json", "apis/fuzz.json", "scenarios/fuzz.json",
                                   "formats.json", "assumptions.json", "defaults.json", "extension"};
    const std::string path = kPaths[data[0] % 8];
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    if (path == "extension") {
        hwplan::Catalog cat = hwplan::embedded_catalog().catalog;
        (void)hwplan::extend_catalog(cat, text, "extension");
        hwplan::fuzz::check_answer(hwplan::devices_json(cat), "devices");
        hwplan::fuzz::check_answer(hwplan::models_json(cat), "models");
        return 0;
    }
    // The file alone: its own reader runs in full, and the loader's whole-catalog checks (missing formats,
    // assumptions, defaults) report what is absent. Loading the real catalog beside it would cost ~100 ms
    // per input under the sanitizers, for checks the extension branch and the seeds already cover.
    const hwplan::CatalogLoad load = hwplan::load_catalog({{path, text}});
    hwplan::fuzz::check_answer(hwplan::issues_json(load.issues), "errors");
    hwplan::fuzz::check_answer(hwplan::devices_json(load.catalog), "devices");
    hwplan::fuzz::check_answer(hwplan::models_json(load.catalog), "models");
    hwplan::fuzz::check_answer(hwplan::scenarios_json(load.catalog), "scenarios");
    return 0;
}
