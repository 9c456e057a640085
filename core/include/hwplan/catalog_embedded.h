// hwplan/catalog_embedded.h: the catalog files compiled into the program (generated at build time from
// catalog/ by core/embed_catalog.cmake). The web build loads its catalog from here.
// Usage: CatalogLoad load = load_catalog(hwplan::embedded_catalog_files());
#pragma once
#include <vector>

#include "hwplan/catalog.h"

namespace hwplan {

std::vector<CatalogFile> embedded_catalog_files(); // sorted by path
const CatalogLoad& embedded_catalog();             // load_catalog(embedded_catalog_files()), loaded once

} // namespace hwplan
