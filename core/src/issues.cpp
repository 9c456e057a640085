// issues.cpp: text form of a validation issue.
#include "hwplan/issues.h"

namespace hwplan {

std::string to_string(const Issue& issue) {
    return issue.path.empty() ? issue.message : issue.path + ": " + issue.message;
}

} // namespace hwplan
