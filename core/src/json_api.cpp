// json_api.cpp: JSON text in, JSON text out. Every failure is returned as {"errors": [...]}; nothing
// here throws to the caller (a throw across the WebAssembly boundary would abort the module).
#include "hwplan/json_api.h"

#include <nlohmann/json.hpp>

#ifndef HWPLAN_VERSION
#error "HWPLAN_VERSION must be defined by the build"
#endif

namespace hwplan {

namespace {

using nlohmann::json;

std::string errors_json(const Issues& issues) {
    json arr = json::array();
    for (const auto& i : issues) arr.push_back({{"path", i.path}, {"message", i.message}});
    return json{{"errors", arr}}.dump();
}

std::string type_name(const json& v) {
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_boolean()) return "a boolean";
    if (v.is_null()) return "null";
    if (v.is_array()) return "an array";
    return "an object";
}

// Parses `text` as a JSON object; on failure returns the issue describing why.
std::optional<Issue> parse_object(const std::string& text, json& out) {
    try {
        out = json::parse(text);
    } catch (const json::parse_error& e) {
        // e.what() reads "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
        std::string what = e.what();
        auto pos = what.find("] ");
        return Issue{"", "malformed JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2))};
    }
    if (!out.is_object()) return Issue{"", "expected a JSON object, got " + type_name(out)};
    return std::nullopt;
}

} // namespace

std::string to_json(const WeightsEstimate& e) {
    if (!e.issues.empty()) return errors_json(e.issues);
    return json{{"params", e.params},
                {"precision", std::string(name(e.precision))},
                {"bytes_per_param", e.bytes_per_param},
                {"weights_bytes", e.weights_bytes}}
        .dump();
}

std::string weights_json(const std::string& request) {
    json doc;
    if (auto bad = parse_object(request, doc)) return errors_json({*bad});
    Issues issues;
    WeightsInput in;
    const auto params = doc.find("params");
    if (params == doc.end())
        issues.push_back({"params", "required field is missing"});
    else if (!params->is_number())
        issues.push_back({"params", "expected a number, got " + type_name(*params)});
    else
        in.params = params->get<double>();
    const auto precision = doc.find("precision");
    if (precision == doc.end())
        issues.push_back({"precision", "required field is missing"});
    else if (!precision->is_string())
        issues.push_back({"precision", "expected a string, got " + type_name(*precision)});
    else
        in.precision = precision->get<std::string>();
    for (const auto& [key, value] : doc.items())
        if (key != "params" && key != "precision") issues.push_back({key, "unknown field"});
    if (!issues.empty()) return errors_json(issues);
    return to_json(estimate_weights(in));
}

std::string version_json() { return json{{"name", "hwplan"}, {"version", HWPLAN_VERSION}}.dump(); }

} // namespace hwplan
