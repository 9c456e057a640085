// json_reader.h (private to the core): typed, validated access to one JSON object. The Reader records
// which keys it consumed (the rest are reported as "unknown key") and turns every type or range problem
// into an Issue naming the file, the dotted path and the reason. Used by the catalog and workload parsers.
#pragma once
#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hwplan/format.h"
#include "hwplan/issues.h"

namespace hwplan::detail {

using nlohmann::json;

inline std::string type_name(const json& v) {
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_boolean()) return "a boolean";
    if (v.is_null()) return "null";
    if (v.is_array()) return "an array";
    return "an object";
}

struct Context {
    std::string file; // "devices/h100-sxm.json"
    Issues& issues;
    void add(const std::string& path, const std::string& message) const { issues.push_back({path, message, file}); }
};

class Reader {
  public:
    Reader(const Context& ctx, std::string path, const json& obj) : ctx_(ctx), path_(std::move(path)), obj_(obj) {}

    std::string at(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
    bool has(const std::string& key) const { return obj_.contains(key); }
    const json* raw(const std::string& key) {
        seen_.insert(key);
        auto it = obj_.find(key);
        return it == obj_.end() ? nullptr : &*it;
    }
    void error(const std::string& key, const std::string& message) const { ctx_.add(at(key), message); }

    // A number in [lo, hi]; `what` names the unit in messages. Missing and required: an issue.
    std::optional<double> number(const std::string& key, bool required, double lo, double hi) {
        const json* v = raw(key);
        if (!v) {
            if (required) error(key, "required field is missing");
            return std::nullopt;
        }
        if (!v->is_number()) {
            error(key, "expected a number, got " + type_name(*v));
            return std::nullopt;
        }
        const double x = v->get<double>();
        if (!std::isfinite(x)) {
            error(key, "must be finite");
            return std::nullopt;
        }
        if (x < lo || x > hi) {
            error(key, "implausible value " + format_sig(x, 6) + "; expected " + format_sig(lo, 6) + " to " +
                           format_sig(hi, 6));
            return std::nullopt;
        }
        return x;
    }

    std::optional<int> integer(const std::string& key, bool required, int lo, int hi) {
        const json* v = raw(key);
        if (!v) {
            if (required) error(key, "required field is missing");
            return std::nullopt;
        }
        if (!v->is_number_integer()) {
            error(key, "expected an integer, got " + (v->is_number() ? "a fractional number" : type_name(*v)));
            return std::nullopt;
        }
        const auto x = v->get<long long>();
        if (x < lo || x > hi) {
            error(key, "implausible value " + std::to_string(x) + "; expected " + std::to_string(lo) + " to " +
                           std::to_string(hi));
            return std::nullopt;
        }
        return static_cast<int>(x);
    }

    std::optional<std::string> string(const std::string& key, bool required) {
        const json* v = raw(key);
        if (!v) {
            if (required) error(key, "required field is missing");
            return std::nullopt;
        }
        if (!v->is_string()) {
            error(key, "expected a string, got " + type_name(*v));
            return std::nullopt;
        }
        if (v->get<std::string>().empty()) {
            error(key, "must not be empty");
            return std::nullopt;
        }
        return v->get<std::string>();
    }

    // A string from a fixed set of values.
    std::optional<std::string> choice(const std::string& key, bool required, const std::vector<std::string>& allowed) {
        auto s = string(key, required);
        if (!s) return std::nullopt;
        if (std::find(allowed.begin(), allowed.end(), *s) == allowed.end()) {
            std::string list;
            for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
            error(key, "unknown value \"" + *s + "\"; expected one of " + list);
            return std::nullopt;
        }
        return s;
    }

    std::optional<bool> boolean(const std::string& key, bool required) {
        const json* v = raw(key);
        if (!v) {
            if (required) error(key, "required field is missing");
            return std::nullopt;
        }
        if (!v->is_boolean()) {
            error(key, "expected true or false, got " + type_name(*v));
            return std::nullopt;
        }
        return v->get<bool>();
    }

    std::vector<std::string> strings(const std::string& key, bool required) {
        std::vector<std::string> out;
        const json* v = raw(key);
        if (!v) {
            if (required) error(key, "required field is missing");
            return out;
        }
        if (!v->is_array()) {
            error(key, "expected an array of strings, got " + type_name(*v));
            return out;
        }
        for (size_t i = 0; i < v->size(); ++i) {
            if (!(*v)[i].is_string() || (*v)[i].get<std::string>().empty())
                ctx_.add(at(key) + "[" + std::to_string(i) + "]", "expected a non-empty string, got " + type_name((*v)[i]));
            else
                out.push_back((*v)[i].get<std::string>());
        }
        return out;
    }

    // A nested object; its own Reader is returned through `fn`.
    bool object(const std::string& key, bool required, const std::function<void(Reader&)>& fn) {
        const json* v = raw(key);
        if (!v) {
            if (required) error(key, "required field is missing");
            return false;
        }
        if (!v->is_object()) {
            error(key, "expected an object, got " + type_name(*v));
            return false;
        }
        Reader sub(ctx_, at(key), *v);
        fn(sub);
        sub.finish();
        return true;
    }

    // Reports every key of the object that no accessor asked for.
    void finish() const {
        for (const auto& [key, value] : obj_.items())
            if (!seen_.count(key)) ctx_.add(at(key), "unknown key");
    }

    const Context& ctx() const { return ctx_; }
    const std::string& path() const { return path_; }
    const json& json_value() const { return obj_; }

  private:
    const Context& ctx_;
    std::string path_;
    const json& obj_;
    std::set<std::string> seen_;
};

// Parses `text` as a JSON object; on failure adds the issue (path "") and returns nullopt.
inline std::optional<json> parse_object(const std::string& text, const Context& ctx) {
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        std::string what = e.what(); // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
        auto pos = what.find("] ");
        ctx.add("", "malformed JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2)));
        return std::nullopt;
    }
    if (!doc.is_object()) {
        ctx.add("", "expected a JSON object, got " + type_name(doc));
        return std::nullopt;
    }
    return doc;
}

} // namespace hwplan::detail
