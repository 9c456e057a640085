// catalog_files.cpp: the catalog folder from disk (std::filesystem), sorted by path for stable output.
#include "hwplan/catalog_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hwplan {

std::vector<CatalogFile> read_catalog_dir(const std::string& dir, std::string& error) {
    namespace fs = std::filesystem;
    std::vector<CatalogFile> files;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        error = "catalog folder \"" + dir + "\" not found";
        return files;
    }
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file() || it->path().extension() != ".json") continue;
        std::ifstream in(it->path(), std::ios::binary);
        if (!in) {
            error = "cannot read \"" + it->path().string() + "\"";
            return {};
        }
        std::stringstream text;
        text << in.rdbuf();
        files.push_back({fs::relative(it->path(), dir).generic_string(), text.str()});
    }
    if (ec) error = "cannot read catalog folder \"" + dir + "\": " + ec.message();
    std::sort(files.begin(), files.end(), [](const CatalogFile& a, const CatalogFile& b) { return a.path < b.path; });
    return files;
}

} // namespace hwplan
