// test_plans.h: a plan computed once per distinct input in a test binary. plan_from_json is a pure function of
// its arguments (DESIGN.md: no globals, no clocks, no I/O), so the tests that each plan every scenario share one
// plan per scenario instead of planning it again: under the sanitizers a whole-catalog plan costs seconds, and
// a dozen tests walk every scenario. Only for a catalog that lives as long as the program (the embedded one):
// the cache is keyed by the catalog's address.
// Usage: const Plan& p = test::planned_once(workload_json, embedded_catalog().catalog);
#pragma once
#include <map>
#include <string>
#include <tuple>

#include "hwplan/plan.h"

namespace hwplan::test {

inline const Plan& planned_once(const std::string& workload_json, const Catalog& catalog, bool sensitivity = true) {
    static std::map<std::tuple<const Catalog*, bool, std::string>, Plan> memo;
    auto key = std::make_tuple(&catalog, sensitivity, workload_json);
    auto it = memo.find(key);
    if (it == memo.end()) it = memo.emplace(std::move(key), plan_from_json(workload_json, catalog, sensitivity)).first;
    return it->second;
}

} // namespace hwplan::test
