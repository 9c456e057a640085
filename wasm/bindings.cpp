// bindings.cpp: the Embind API of hwplan_js. Thin by construction: JSON text in, JSON text out, one
// function per core entry point, no logic and no class handles for JavaScript to free.
// Usage (JS): const hw = await createHwplan(); JSON.parse(hw.weights('{"params":7e9,"precision":"bf16"}'))
#include <emscripten/bind.h>

#include "hwplan/catalog_embedded.h"
#include "hwplan/json_api.h"

namespace {

using emscripten::val;

// Every entry point takes any JavaScript value: a string is the JSON request; anything else (a number, an
// object, undefined) is answered with {"errors"} instead of Embind's BindingError.
template <std::string (*Fn)(const std::string&)> std::string text_call(val request) {
    if (request.isString()) return Fn(request.as<std::string>());
    const std::string type = request.isUndefined() ? "undefined" : request.isNull() ? "null" : request.typeOf().as<std::string>();
    return hwplan::issues_json({{"", "expected the request as a JSON string, got " + type + " (use JSON.stringify)"}});
}

std::string devices(const std::string& request) { return hwplan::devices_request_json(hwplan::embedded_catalog().catalog, request); }
std::string models(const std::string& request) { return hwplan::models_request_json(hwplan::embedded_catalog().catalog, request); }
std::string plan(const std::string& workload) { return hwplan::plan_json(hwplan::embedded_catalog().catalog, workload); }
std::string sweep(const std::string& request) { return hwplan::sweep_json(hwplan::embedded_catalog().catalog, request); }
std::string scenarios() { return hwplan::scenarios_json(hwplan::embedded_catalog().catalog); }
std::string catalog_issues() { return hwplan::issues_json(hwplan::embedded_catalog().issues); }

} // namespace

EMSCRIPTEN_BINDINGS(hwplan) {
    emscripten::function("weights", &text_call<&hwplan::weights_json>); // {"params","precision"} -> {"weights_bytes",...} | {"errors"}
    emscripten::function("devices", &text_call<&devices>);              // {"extension"?} -> {"devices": [... SI units ...]} | {"errors"}
    emscripten::function("models", &text_call<&models>);                // {"extension"?} -> {"models": [...]} | {"errors"}
    emscripten::function("plan", &text_call<&plan>);                    // workload JSON (docs/workload.md) -> {"plan": ...} | {"errors"}
    emscripten::function("sweep", &text_call<&sweep>);                  // {"workload","device","axis","points"?,"count"?} -> {"sweep": ...} | {"errors"}
    emscripten::function("scenarios", &scenarios);          // -> {"scenarios": [{id, name, question, source, workload | team}]}
    emscripten::function("catalogIssues", &catalog_issues); // -> {"errors": [...]} (empty when the catalog is valid)
    emscripten::function("version", &hwplan::version_json); // -> {"name","version"}
}
