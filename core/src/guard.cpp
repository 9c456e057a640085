// guard.cpp: an escaped exception as the named error of the edge that caught it (guard.h).
#include "hwplan/guard.h"

#include <exception>
#include <new>
#include <string>

namespace hwplan {

Issue internal_error(std::string_view where) {
    std::string what;
    try {
        throw;
    } catch (const std::bad_alloc&) {
        what = "out of memory";
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
        what = "an exception that is not a std::exception";
    }
    if (what.size() > 300) what = what.substr(0, 300) + "...";
    return {std::string(where), "internal error: " + what + " (a bug in hwplan: please report it with the input)"};
}

} // namespace hwplan
