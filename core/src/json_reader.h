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

    // An integer in [lo, hi]. A whole number written as a float (4.0, 1e308) is checked against the range;
    // the comparison is in double so that 2^63 and beyond are reported as they were written.
    std::optional<int> integer(const std::string& key, bool required, int lo, int hi) {
        const json* v = raw(key);
        if (!v) {
            if (required) error(key, "required field is missing");
            return std::nullopt;
        }
        if (!v->is_number()) {
            error(key, "expected an integer, got " + type_name(*v));
            return std::nullopt;
        }
        const double x = v->get<double>();
        if (v->is_number_float() && std::isfinite(x) && x != std::floor(x)) {
            error(key, "expected an integer, got " + format_sig(x, 6));
            return std::nullopt;
        }
        if (!(x >= lo && x <= hi)) {
            error(key, "implausible value " + format_sig(x, 6) + "; expected " + std::to_string(lo) + " to " +
                           std::to_string(hi));
            return std::nullopt;
        }
        return static_cast<int>(x);
    }

    // A count of things (users, sequences, rank): a number in [lo, hi] that is whole.
    std::optional<double> whole(const std::string& key, bool required, double lo, double hi) {
        auto x = number(key, required, lo, hi);
        if (x && *x != std::floor(*x)) {
            error(key, "must be a whole number, got " + format_sig(*x, 6));
            return std::nullopt;
        }
        return x;
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
            error(key, "unknown value " + quote_input(*s) + "; expected one of " + list);
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

// [SECTION] Limits on one document ----------------------------------------------------------------
// Text from strangers is bounded before it is read: a workload, a catalog file or an extension is a
// few kilobytes (the largest catalog file is 30 kB), so 1 MiB leaves room and keeps a pasted mistake fast.
constexpr size_t kMaxInputBytes = size_t{1} << 20; // bytes of JSON text in one document
constexpr int kMaxDepth = 32;                      // nested objects and arrays (the schema uses at most 5)

// The reading position while a document is parsed, one frame per open array or object, for the paths in messages.
struct JsonFrame {
    bool array = false;
    size_t index = 0;      // array: the element being read
    std::string key;       // object: the key being read
    bool has_key = false;  // object: a key was read
};

// "devices[2].memory.type": the path of the first `frames` frames.
inline std::string json_path(const std::vector<JsonFrame>& stack, size_t frames) {
    std::string p;
    for (size_t i = 0; i < frames && i < stack.size(); ++i) {
        const JsonFrame& f = stack[i];
        if (f.array) p += "[" + std::to_string(f.index) + "]";
        else if (f.has_key) p += (p.empty() ? "" : ".") + f.key;
    }
    return p;
}

struct JsonStop { // a document rejected beyond the grammar: where and why
    std::string path, message;
};

// nlohmann's SAX interface, building the document as its own DOM parser does (json_sax_dom_parser), with
// parse_object's checks on the way: a duplicate key is found by the insertion into the object being built, so no set of
// keys, no callback through std::function and no discarded-value bookkeeping (nlohmann's callback parser, used before).
// The embedded catalog's files are read this way at every start of the page (BENCHMARKS.md, "WebAssembly against native, like for like, and the page's start").
class JsonDomBuilder {
  public:
    JsonDomBuilder(json& root, std::vector<JsonFrame>& stack) : root_(root), stack_(stack) {}

    bool null() { put(nullptr); return value_done(); }
    bool boolean(bool v) { put(v); return value_done(); }
    bool number_integer(json::number_integer_t v) { put(v); return value_done(); }
    bool number_unsigned(json::number_unsigned_t v) { put(v); return value_done(); }
    bool number_float(json::number_float_t v, const json::string_t&) { put(v); return value_done(); }
    bool string(json::string_t& v) { put(std::move(v)); return value_done(); }
    bool binary(json::binary_t& v) { put(std::move(v)); return value_done(); }
    bool start_object(std::size_t) { return open(false); }
    bool start_array(std::size_t) { return open(true); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(json::string_t& k) {
        JsonFrame& f = stack_.back();
        f.key = k;
        f.has_key = true;
        auto [it, inserted] = refs_.back()->get_ref<json::object_t&>().try_emplace(std::move(k));
        if (!inserted) throw JsonStop{json_path(stack_, stack_.size()), "duplicate key (given twice in the same object)"};
        element_ = &it->second;
        return true;
    }
    template <class Exception> bool parse_error(std::size_t, const std::string&, const Exception& e) { throw e; }

  private:
    template <class Value> json* put(Value&& v) {
        if (refs_.empty()) {
            root_ = json(std::forward<Value>(v));
            return &root_;
        }
        if (refs_.back()->is_array()) {
            auto& array = refs_.back()->get_ref<json::array_t&>();
            array.emplace_back(std::forward<Value>(v));
            return &array.back();
        }
        *element_ = json(std::forward<Value>(v));
        return element_;
    }
    bool value_done() { // an array's element is complete: the next one has the next index
        if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
        return true;
    }
    bool open(bool array) {
        if (stack_.size() >= static_cast<size_t>(kMaxDepth))
            throw JsonStop{json_path(stack_, stack_.size()), "nested deeper than " + std::to_string(kMaxDepth) + " levels"};
        refs_.push_back(put(array ? json::value_t::array : json::value_t::object));
        stack_.push_back({array, 0, {}, false});
        return true;
    }
    bool close() {
        refs_.pop_back();
        stack_.pop_back();
        return value_done();
    }

    json& root_;
    std::vector<JsonFrame>& stack_;
    std::vector<json*> refs_;    // the open arrays and objects
    json* element_ = nullptr;    // where an object's next value goes (after its key)
};

// Parses `text` as a JSON object; on failure adds the issue and returns nullopt. Beyond the JSON grammar
// it rejects: input over kMaxInputBytes, nesting deeper than kMaxDepth, a key given twice in one object
// (JSON leaves it undefined; nlohmann keeps the last silently), and numbers beyond a double's range.
// Each of these names the path where it happened.
inline std::optional<json> parse_object(const std::string& text, const Context& ctx) {
    if (text.size() > kMaxInputBytes) {
        ctx.add("", "input is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxInputBytes) +
                        " bytes (1 MiB)");
        return std::nullopt;
    }
    std::vector<JsonFrame> stack;
    auto path_of = [&](size_t frames) { return json_path(stack, frames); };
    json doc;
    try {
        JsonDomBuilder builder{doc, stack};
        json::sax_parse(text, &builder);
    } catch (const JsonStop& s) {
        ctx.add(s.path, s.message);
        return std::nullopt;
    } catch (const json::parse_error& e) {
        // "[json.exception.parse_error.101] parse error at line 1, column 2: ...; last read: '<token>'": the
        // token is the user's text, so it is quoted as a short escaped excerpt of its end.
        std::string what = e.what();
        auto pos = what.find("] ");
        what = pos == std::string::npos ? what : what.substr(pos + 2);
        const std::string marker = "; last read: '";
        if (auto lr = what.find(marker); lr != std::string::npos) {
            std::string token = what.substr(lr + marker.size());
            if (!token.empty() && token.back() == '\'') token.pop_back();
            const size_t keep = 40;
            what = what.substr(0, lr) + "; last read: " +
                   (token.size() > keep ? "..." + quote_input(std::string_view(token).substr(token.size() - keep), keep)
                                        : quote_input(token, keep));
        }
        ctx.add("", "malformed JSON: " + what);
        return std::nullopt;
    } catch (const json::out_of_range&) {
        // nlohmann: "number overflow parsing '1e400'" (a number beyond +-1.8e308). The callback saw the key.
        ctx.add(path_of(stack.size()), "number too large (beyond the range of a double, about 1.8e308)");
        return std::nullopt;
    } catch (const json::exception& e) {
        ctx.add("", std::string("malformed JSON: ") + e.what());
        return std::nullopt;
    }
    if (!doc.is_object()) {
        ctx.add("", "expected a JSON object, got " + type_name(doc));
        return std::nullopt;
    }
    return doc;
}

} // namespace hwplan::detail
