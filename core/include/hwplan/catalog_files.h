// hwplan/catalog_files.h: reading the catalog folder from disk (native builds only; the web build embeds
// the same files at build time). This is the one place the native programs touch the file system for it.
// Usage: std::string err; auto files = hwplan::read_catalog_dir("catalog", err); auto load = load_catalog(files);
#pragma once
#include <string>
#include <vector>

#include "hwplan/catalog.h"

namespace hwplan {

// Every *.json under `dir`, with paths relative to it ("devices/h100-sxm.json"). On failure `error` says why.
std::vector<CatalogFile> read_catalog_dir(const std::string& dir, std::string& error);

} // namespace hwplan
