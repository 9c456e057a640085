// hwplan/guide.h: lesson 004's first-cut guide (choose.go) generalized to the catalog: describe the job,
// get the guide's recommendation, its reason, and the catalog devices it points at. Shown beside the
// computed decision; where the two disagree the plan says why (decide.cpp).
// Usage: Guide g = first_cut(workload, catalog);  g.recommendation, g.why, g.devices
#pragma once
#include <string>
#include <vector>

#include "hwplan/catalog.h"
#include "hwplan/feasibility.h"
#include "hwplan/workload.h"

namespace hwplan {

struct Guide {
    std::string recommendation;        // choose.go's first string, with catalog names
    std::string why;                   // choose.go's second string
    Scale level = Scale::one_device;   // the level of scale it implies
    std::vector<std::string> devices;  // catalog ids of the family it names ("" list: no device named)
};

Guide first_cut(const Workload& w, const Catalog& cat);

} // namespace hwplan
