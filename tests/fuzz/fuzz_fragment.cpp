// fuzz_fragment.cpp: libFuzzer target for the page's address fragment (wasm/app/workload_doc.cpp, compiled
// natively: it holds no browser code): "scenario=ID", "w=<workload JSON>", "&view=", "&device=", "&tab=",
// "&weights=". A damaged or hostile fragment leaves a short notice (never an echo of the input) and a plan the
// page can draw, and the weight check a valid count and format; an accepted one restores itself from its own
// fragment (the link round trip): the workload, the open form tab and the weight check's inputs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hwplan/memory.h"
#include "hwplan/parse.h"
#include "hwplan/precision.h"

#include "fuzz_check.h"
#include "hwplan/catalog_embedded.h"
#include "workload_doc.h"

HWPLAN_FUZZ_TARGET(fuzz_fragment) {
    const hwplan::Catalog& cat = hwplan::embedded_catalog().catalog;
    const std::string text(reinterpret_cast<const char*>(data), size);
    hwplan::ui::AppState s;
    hwplan::ui::load_default(s, cat);
    hwplan::ui::apply_fragment(s, text, cat);
    if (s.notice.size() > 400) hwplan::fuzz::fail("a fragment's notice is long (an echo of the input?)", s.notice);
    if (!s.workload.is_object()) hwplan::fuzz::fail("the workload document is not an object", s.workload.dump());
    const auto formats = hwplan::all_precisions();
    if (s.precision_index < 0 || s.precision_index >= static_cast<int>(formats.size()))
        hwplan::fuzz::fail("the weight check's precision is out of range", std::to_string(s.precision_index));
    const auto params = hwplan::parse_number(s.params_text.data());
    if (!params || !hwplan::estimate_weights({.params = *params, .precision = std::string(hwplan::name(formats[s.precision_index]))}).issues.empty())
        hwplan::fuzz::fail("a link left the weight check an invalid count", s.params_text.data());
    if (!s.notice.empty()) return 0;
    hwplan::ui::AppState again;
    hwplan::ui::load_default(again, cat);
    const std::string fragment = hwplan::ui::fragment_of(s);
    hwplan::ui::apply_fragment(again, fragment, cat);
    if (!again.notice.empty() || again.workload != s.workload)
        hwplan::fuzz::fail("a link does not restore its own fragment", fragment + " | " + again.notice);
    if (again.form_tab != s.form_tab || again.precision_index != s.precision_index || again.params_text != s.params_text)
        hwplan::fuzz::fail("a link does not restore its own tab and weight check", fragment);
    return 0;
}
