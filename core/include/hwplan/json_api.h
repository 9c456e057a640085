// hwplan/json_api.h: the JSON edge of the core. JSON text in, JSON text out, never a throw: malformed
// input, a missing field or a wrong type comes back as {"errors": [{"path", "message"}]}.
// The JavaScript module and the CLI's JSON output use exactly these functions.
// Usage: std::string out = hwplan::weights_json(R"({"params": 7e9, "precision": "bf16"})");
//        // {"params":7e9,"precision":"bf16","bytes_per_param":2.0,"weights_bytes":1.4e10}
#pragma once
#include <string>

#include "hwplan/catalog.h"
#include "hwplan/memory.h"
#include "hwplan/plan.h"
#include "hwplan/sweep.h"

namespace hwplan {

std::string weights_json(const std::string& request);   // request: {"params": number, "precision": string}
std::string to_json(const WeightsEstimate& estimate);   // the response form of one estimate
std::string version_json();                             // {"name":"hwplan","version":"..."}
std::string devices_json(const Catalog& catalog);       // every device in SI units (memory_bytes, bf16_flop_per_s, ...)
std::string models_json(const Catalog& catalog);        // every model preset with derived parameter counts
std::string issues_json(const Issues& issues);          // {"errors": [{"file", "path", "message"}]}

// Catalog listings for callers that pass a request: {"extension": {"devices": [...], "models": [...]}}
// (optional) adds the caller's own entries through the catalog validator first; any issue in them
// returns {"errors": [...]} instead of a listing.
std::string devices_request_json(const Catalog& base, const std::string& request);
std::string models_request_json(const Catalog& base, const std::string& request);
std::string scenarios_json(const Catalog& catalog);      // {"scenarios": [{id, name, question, source, workload | team}]}

// The plan's JSON form (docs/plan.md): {"plan": {...}} or {"errors": [...]}.
std::string to_json(const Plan& plan);
std::string plan_json(const Catalog& catalog, const std::string& workload_json); // parse + plan + to_json
std::string to_json(const RunIt& run);                  // {"run": {...}}: the plan's "run" section on its own (hwplan run-it)
// {"workload": {...}, "extension"?: {...}} -> the plan over the catalog extended by the user's own models,
// devices and calibrations (the same plan as `hwplan plan W --extend E`), or {"errors": [...]}.
std::string plan_request_json(const Catalog& catalog, const std::string& request);
// calibrate_json (measurement.h) over the catalog extended by the request's optional "extension" (a device of
// the user's own can be calibrated): {"workload", "device", "text", "read_on", "index"?, "extension"?}.
std::string calibrate_request_json(const Catalog& catalog, const std::string& request);
// read_back_json (run_compare.h) over the catalog extended by the request's optional "extension" (the page's own
// models, devices and calibrations): {"workload", "text", "read_on", "device"?, "extension"?} -> {"readback": {...}}.
std::string read_back_request_json(const Catalog& catalog, const std::string& request);

// What-if curves (sweep.h): {"workload": {...}, "device": "h100-sxm", "axis": "concurrent_users",
// "points": [1, 2, 4] (optional: default_sweep_points), "count": 2 (optional: the planner's)}
// -> {"sweep": {"axis", "device", "device_name", "count", "unit", "breakeven_utilization" (null: none),
//     "points": [{"x", "fits", "figures": {key: {value, low, high, label, why}}}]}} | {"errors": [...]}.
std::string to_json(const Sweep& sweep);
std::string sweep_json(const Catalog& catalog, const std::string& request);

} // namespace hwplan
