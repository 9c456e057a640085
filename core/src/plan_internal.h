// plan_internal.h (private to the core): the pieces of planning shared between plan.cpp and decide.cpp.
#pragma once
#include "hwplan/plan.h"

namespace hwplan {

inline bool is_training_stage(Stage s) { return s == Stage::finetune || s == Stage::pretrain || s == Stage::rl; }

// Prices every candidate (rented, owned), adds hosted APIs, ranks by cost per useful result and
// writes the recommendation (decide.cpp).
void decide(Plan& plan, const Workload& workload, const Catalog& catalog);
void isolation_reason(Plan& plan, const Workload& workload); // mixed traffic: the split that fixes the tail

} // namespace hwplan
