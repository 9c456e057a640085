// issues.cpp: text form of a validation issue.
#include "hwplan/issues.h"

namespace hwplan {

std::string to_string(const Issue& issue) {
    std::string out;
    if (!issue.file.empty()) out += issue.file + ": ";
    if (!issue.path.empty()) out += issue.path + ": ";
    return out + issue.message;
}

} // namespace hwplan
