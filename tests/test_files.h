// test_files.h: what the tests read from the source tree: a data file under tests/data/, and the catalog as
// the files in catalog/ hold it (not the embedded copy), loaded once.
// Usage: const std::string text = test::data_file("hf_configs/mixtral-8x7b.json");  test::files_catalog().models
#pragma once
#include <fstream>
#include <sstream>
#include <string>

#include "hwplan/catalog.h"
#include "hwplan/catalog_files.h"

namespace hwplan::test {

// The text of tests/data/PATH ("" when it cannot be read: the test then fails on its content).
inline std::string data_file(const std::string& path) {
    std::ifstream f(std::string(HWPLAN_SOURCE_DIR) + "/tests/data/" + path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// The catalog read from catalog/ on disk.
inline const Catalog& files_catalog() {
    static const CatalogLoad load = [] {
        std::string error;
        return load_catalog(read_catalog_dir(HWPLAN_CATALOG_DIR, error));
    }();
    return load.catalog;
}

} // namespace hwplan::test
