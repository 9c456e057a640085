// hwplan/issues.h: errors at the edges of the core are data, not exceptions: a list of {path, message}.
// `path` names the field (dotted JSON path such as "train.seq_len" or "hardware.devices[0]"; empty for
// the document as a whole), `message` says why, in words a user can act on.
// Usage: std::vector<Issue> errors = validate(...); if (!errors.empty()) show(errors);
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace hwplan {

struct Issue {
    std::string path;    // dotted JSON path of the offending field ("" = whole document)
    std::string message; // the reason, e.g. "must be a positive number, got -1"
    std::string file;    // the file it came from ("devices/h100-sxm.json"), "" for a single document
    bool operator==(const Issue&) const = default;
};

using Issues = std::vector<Issue>;

// "file: path: message", leaving out the parts that are empty.
std::string to_string(const Issue& issue);

// A user's text as it may appear in a message: quoted, at most `max_chars` characters (then "..." and the
// length), control characters as \u00XX and bytes that are not UTF-8 as \xNN, so a message never echoes
// a pasted megabyte, never cuts at a NUL and always dumps as valid JSON.
// Usage: "unknown device " + quote_input(name)   ->   unknown device "H100\u0000x"
std::string quote_input(std::string_view text, size_t max_chars = 40);

} // namespace hwplan
