// hwplan/json_api.h: the JSON edge of the core. JSON text in, JSON text out, never a throw: malformed
// input, a missing field or a wrong type comes back as {"errors": [{"path", "message"}]}.
// The JavaScript module and the CLI's JSON output use exactly these functions.
// Usage: std::string out = hwplan::weights_json(R"({"params": 7e9, "precision": "bf16"})");
//        // {"params":7e9,"precision":"bf16","bytes_per_param":2.0,"weights_bytes":1.4e10}
#pragma once
#include <string>

#include "hwplan/memory.h"

namespace hwplan {

std::string weights_json(const std::string& request);   // request: {"params": number, "precision": string}
std::string to_json(const WeightsEstimate& estimate);   // the response form of one estimate
std::string version_json();                             // {"name":"hwplan","version":"..."}

} // namespace hwplan
