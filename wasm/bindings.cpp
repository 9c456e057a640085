// bindings.cpp: the Embind API of hwplan_js. Thin by construction: JSON text in, JSON text out, one
// function per core entry point, no logic and no class handles for JavaScript to free.
// Usage (JS): const hw = await createHwplan(); JSON.parse(hw.weights('{"params":7e9,"precision":"bf16"}'))
#include <emscripten/bind.h>

#include "hwplan/catalog_embedded.h"
#include "hwplan/guard.h"
#include "hwplan/hf_config.h"
#include "hwplan/json_api.h"

namespace {

using emscripten::val;

// JSON text back to JavaScript as one TextDecoder call over the module's memory. Embind's own std::string
// return copies the text into a new buffer and walks it byte by byte in JavaScript twice (looking for NULs)
// before decoding it: a quarter of a one-device plan's time in the module (node --cpu-prof, 2026-11-30).
val text(const std::string& s) {
    static const val decoder = val::global("TextDecoder").new_(val("utf-8"));
    return decoder.call<val>("decode", val(emscripten::typed_memory_view(s.size(), reinterpret_cast<const unsigned char*>(s.data()))));
}

// Every entry point takes any JavaScript value: a string is the JSON request; anything else (a number, an
// object, undefined) is answered with {"errors"} instead of Embind's BindingError. The core's entry points are
// guarded themselves (guard.h); this catch is the WebAssembly boundary's own, for what throws around them
// (copying the request in, the answer out): {"errors": [{"path": "request", "message": "internal error: ..."}]}.
template <std::string (*Fn)(const std::string&)> val text_call(val request) {
    return hwplan::guarded("request", [&] {
        if (request.isString()) return text(Fn(request.as<std::string>()));
        const std::string type = request.isUndefined() ? "undefined" : request.isNull() ? "null" : request.typeOf().as<std::string>();
        return text(hwplan::issues_json({{"", "expected the request as a JSON string, got " + type + " (use JSON.stringify)"}}));
    }, [](const hwplan::Issue& i) { return text(hwplan::issues_json({i})); });
}

template <std::string (*Fn)()> val text_of() {
    return hwplan::guarded("request", [] { return text(Fn()); }, [](const hwplan::Issue& i) { return text(hwplan::issues_json({i})); });
}

std::string devices(const std::string& request) { return hwplan::devices_request_json(hwplan::embedded_catalog().catalog, request); }
std::string models(const std::string& request) { return hwplan::models_request_json(hwplan::embedded_catalog().catalog, request); }
std::string plan(const std::string& workload) { return hwplan::plan_json(hwplan::embedded_catalog().catalog, workload); }
std::string plan_with(const std::string& request) { return hwplan::plan_request_json(hwplan::embedded_catalog().catalog, request); }
std::string calibrate(const std::string& request) { return hwplan::calibrate_request_json(hwplan::embedded_catalog().catalog, request); }
std::string read_back(const std::string& request) { return hwplan::read_back_request_json(hwplan::embedded_catalog().catalog, request); }
std::string sweep(const std::string& request) { return hwplan::sweep_json(hwplan::embedded_catalog().catalog, request); }
std::string scenarios() { return hwplan::scenarios_json(hwplan::embedded_catalog().catalog); }
std::string catalog_issues() { return hwplan::issues_json(hwplan::embedded_catalog().issues); }

} // namespace

EMSCRIPTEN_BINDINGS(hwplan) {
    emscripten::function("weights", &text_call<&hwplan::weights_json>); // {"params","precision"} -> {"weights_bytes",...} | {"errors"}
    emscripten::function("devices", &text_call<&devices>);              // {"extension"?} -> {"devices": [... SI units ...]} | {"errors"}
    emscripten::function("models", &text_call<&models>);                // {"extension"?} -> {"models": [...]} | {"errors"}
    emscripten::function("plan", &text_call<&plan>);                    // workload JSON (docs/workload.md) -> {"plan": ...} | {"errors"}
    emscripten::function("planWith", &text_call<&plan_with>);           // {"workload", "extension"?} -> {"plan": ...} | {"errors"} (= hwplan plan W --extend E)
    emscripten::function("importConfig", &text_call<&hwplan::hf_config_json>); // {"config", "read_on", "id"?, ...} -> {"model_id", "extension", ...} | {"errors"}
    emscripten::function("calibrate", &text_call<&calibrate>);          // {"workload", "device", "text", "read_on", "extension"?} -> {"calibration", "extension", ...} | {"errors"}
    emscripten::function("readBack", &text_call<&read_back>);           // {"workload", "text", "read_on", "device"?, "extension"?} -> {"readback": {lines, points_at, calibration, ...}} | {"errors"}
    emscripten::function("sweep", &text_call<&sweep>);                  // {"workload","device","axis","points"?,"count"?} -> {"sweep": ...} | {"errors"}
    emscripten::function("scenarios", &text_of<&scenarios>);          // -> {"scenarios": [{id, name, question, source, workload | team}]}
    emscripten::function("catalogIssues", &text_of<&catalog_issues>); // -> {"errors": [...]} (empty when the catalog is valid)
    emscripten::function("version", &text_of<&hwplan::version_json>); // -> {"name","version"}
}
