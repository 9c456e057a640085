// bindings.cpp: the Embind API of hwplan_js. Thin by construction: JSON text in, JSON text out, one
// function per core entry point, no logic and no class handles for JavaScript to free.
// Usage (JS): const hw = await createHwplan(); JSON.parse(hw.weights('{"params":7e9,"precision":"bf16"}'))
#include <emscripten/bind.h>

#include "hwplan/json_api.h"

EMSCRIPTEN_BINDINGS(hwplan) {
    emscripten::function("weights", &hwplan::weights_json); // {"params","precision"} -> {"weights_bytes",...} | {"errors"}
    emscripten::function("version", &hwplan::version_json); // -> {"name","version"}
}
