// panels.h: one function per panel of the web planner. Panels draw from AppState; the plan panel returns
// the one-line summary the page mirrors into its live region (so screen readers and tests read what the
// canvas shows).
#pragma once
#include <string>

#include "app_state.h"
#include "hwplan/catalog.h"
#include "hwplan/workload.h"

namespace hwplan::ui {

void panel_workload(AppState& state, const Catalog& catalog);          // the workload form
std::string panel_plan(AppState& state);                               // candidates and the selected one's detail
std::string panel_weights(AppState& state);                            // the weight-memory calculator
std::string workload_json(const WorkloadForm& form, const Catalog& catalog); // the form in docs/workload.md's form
void form_from_workload(WorkloadForm& form, const Workload& workload, const Catalog& catalog); // load a scenario into the form

// A labelled text input whose rectangle is published under `name` (for tests and assistive tech).
bool text_field(AppState& state, const char* label, const char* name, char* buf, size_t size, float width = 140);

} // namespace hwplan::ui
