// fuzz_fragment.cpp: libFuzzer target for the page's address fragment (wasm/app/workload_doc.cpp, compiled
// natively: it holds no browser code): "scenario=ID", "w=<workload JSON>", "&view=", "&device=". A damaged or
// hostile fragment leaves a short notice (never an echo of the input) and a plan the page can draw; an
// accepted one restores itself from its own fragment (the link round trip).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "hwplan/catalog_embedded.h"
#include "workload_doc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const hwplan::Catalog& cat = hwplan::embedded_catalog().catalog;
    const std::string text(reinterpret_cast<const char*>(data), size);
    hwplan::ui::AppState s;
    hwplan::ui::load_default(s, cat);
    hwplan::ui::apply_fragment(s, text, cat);
    if (s.notice.size() > 400) hwplan::fuzz::fail("a fragment's notice is long (an echo of the input?)", s.notice);
    if (!s.workload.is_object()) hwplan::fuzz::fail("the workload document is not an object", s.workload.dump());
    if (!s.notice.empty()) return 0;
    hwplan::ui::AppState again;
    hwplan::ui::load_default(again, cat);
    const std::string fragment = hwplan::ui::fragment_of(s);
    hwplan::ui::apply_fragment(again, fragment, cat);
    if (!again.notice.empty() || again.workload != s.workload)
        hwplan::fuzz::fail("a link does not restore its own fragment", fragment + " | " + again.notice);
    return 0;
}
