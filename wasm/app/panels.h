// panels.h: the page and its panels. Panels draw from AppState; the page returns the one-line summary it
// mirrors into its live region (so screen readers and tests read what the canvas shows).
#pragma once
#include <string>

#include "app_state.h"
#include "hwplan/catalog.h"

namespace hwplan::ui {

std::string draw_page(AppState& state, const Catalog& catalog, float width, float height); // the whole page
void panel_workload(AppState& state, const Catalog& catalog);   // the workload form (edits state.workload)
std::string panel_plan(AppState& state, const Catalog& catalog); // the recommendation card and the views
std::string panel_weights(AppState& state);                      // the weight-memory calculator
void panel_custom(AppState& state);                              // your own models, devices and measurements (custom.h)
void refresh_plan(AppState& state, const Catalog& catalog);      // plans the document when it changed
void whatif_view(AppState& state, const Catalog& catalog);       // what-if curves and the roofline (panel_whatif.cpp)
void team_view(AppState& state, const Catalog& catalog);         // the team's cards and fleet (panel_team.cpp)
void refresh_team(AppState& state, const Catalog& catalog);      // plans the team document when it changed

// A labelled text input whose rectangle is published under `name` (for tests and assistive tech).
bool text_field(AppState& state, const char* label, const char* name, char* buf, size_t size, float width = 140);
void help_marker(const char* text);   // "(?)" with the text on hover
Rect item_rect();                     // the last item's rectangle
void publish(AppState& state, const std::string& name); // item_rect() under name

} // namespace hwplan::ui
