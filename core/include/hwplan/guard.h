// hwplan/guard.h: the last line of defence at the program's edges (each CLI command, each JSON entry point, each
// of the page's commands and core calls). The core reports bad input as issues and does not throw on purpose;
// whatever still escapes it (a bug) becomes the named error {where, "internal error: <what> (...)"} here, so
// the CLI exits with a message instead of aborting and the WebAssembly page keeps drawing.
// Usage: return guarded("calibrate", [&] { return calibrate_json(cat, request); },
//                       [](const Issue& i) { return issues_json({i}); });
#pragma once
#include <string_view>

#include "hwplan/issues.h"

namespace hwplan {

// The exception being handled as an issue: path `where` (the entry point, as a user names it), message
// "internal error: <what> (a bug in hwplan: please report it with the input)". Call it only inside a catch block.
Issue internal_error(std::string_view where);

// fn(), or on_error(internal_error(where)) when fn throws anything at all.
template <class Fn, class OnError> auto guarded(std::string_view where, Fn&& fn, OnError&& on_error) -> decltype(fn()) {
    try {
        return fn();
    } catch (...) {
        return on_error(internal_error(where));
    }
}

} // namespace hwplan
