// fuzz_catalog.cpp: libFuzzer target for the catalog files and users' extensions. The first byte picks
// the kind of file (the loader reads each kind with its own reader); the rest is the file's text, loaded
// beside the real catalog's other files, and also offered as an extension to the real catalog.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "hwplan/catalog.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
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
    // The real catalog with this one file replaced (or added).
    std::vector<hwplan::CatalogFile> files;
    for (const auto& f : hwplan::embedded_catalog_files())
        if (f.path != path) files.push_back(f);
    files.push_back({path, text});
    const hwplan::CatalogLoad load = hwplan::load_catalog(files);
    hwplan::fuzz::check_answer(hwplan::issues_json(load.issues), "errors");
    hwplan::fuzz::check_answer(hwplan::devices_json(load.catalog), "devices");
    hwplan::fuzz::check_answer(hwplan::models_json(load.catalog), "models");
    hwplan::fuzz::check_answer(hwplan::scenarios_json(load.catalog), "scenarios");
    return 0;
}
