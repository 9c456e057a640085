// panels.h: the page and its panels. Panels draw from AppState; the page returns the one-line summary it
// mirrors into its live region (so screen readers and tests read what the canvas shows).
#pragma once
#include <imgui.h>

#include <limits>
#include <string>

#include "app_state.h"
#include "hwplan/catalog.h"

namespace hwplan::ui {

// The page's size in CSS pixels: the canvas, and the browser window it sits in (smaller under zoom).
struct PageSize {
    float width = 1280, height = 800;           // the canvas
    float view_width = 1280, view_height = 800; // the window (window.innerWidth/innerHeight)
};
// Windows narrower than this stack the plan above the form and let the document scroll (phones, a 360 px frame,
// a desktop window at 150-200 % zoom); wider ones put the form left of the plan, both the window's height.
inline constexpr float kStackBelowPx = 900.0f;
std::string draw_page(AppState& state, const Catalog& catalog, const PageSize& size); // the whole page (sets state.page_height)
void panel_workload(AppState& state, const Catalog& catalog);   // the workload form (edits state.workload)
std::string panel_plan(AppState& state, const Catalog& catalog); // the recommendation card and the views
std::string panel_weights(AppState& state, const Catalog& catalog); // the weight-memory calculator (catalog: its formats' sources)
void panel_custom(AppState& state);                              // your own models, devices and measurements (custom.h)
void run_it_toggle(AppState& state);                             // the card's "Run it" button, under the headline (panel_run_it.cpp)
void run_it_section(AppState& state);                            // "Run it" at the end of the card, while open
void refresh_plan(AppState& state, const Catalog& catalog);      // plans the document when it changed
void whatif_view(AppState& state, const Catalog& catalog);       // what-if curves and the roofline (panel_whatif.cpp)
void team_view(AppState& state, const Catalog& catalog);         // the team's cards and fleet (panel_team.cpp)
void refresh_team(AppState& state, const Catalog& catalog);      // plans the team document when it changed
void team_card(AppState& state, const Catalog& catalog);         // the team's answer for the card at the top (panel_team.cpp)
std::string published_id(const std::string& text);               // text kept to [A-Za-z0-9._-], safe in a published widget name

// A labelled text input whose rectangle is published under `name` (for tests and assistive tech).
bool text_field(AppState& state, const char* label, const char* name, char* buf, size_t size, float width = 140);
void text_wrapped(const char* text);  // a paragraph wrapped at spaces only (never inside "$1.052" or "2,000")
void text_wrappedf(const char* fmt, ...) IM_FMTARGS(1); // the same, printf-formatted
bool help_marker(const char* text);   // "(?)" with the text on hover; true while it shows
// A form row's label (with its help) on the left; the next widget goes right of it, `input_width` wide (<= 0: a
// share of the row), narrowed to fit or moved under the label when the label leaves too little room, so no
// label is covered or cut at any width. Publishes the label's rectangle as NAME + ":label".
// input_width: CSS pixels beside the label (shrunk to the room there; below it when under 90), -1 a choice's share of the
// row, kOwnLine the whole row on a line of its own under the label.
constexpr float kOwnLine = std::numeric_limits<float>::infinity();
void row_label(AppState& state, const std::string& name, const char* label, const char* help, float input_width = -1);
Rect item_rect();                     // the last item's rectangle
void publish(AppState& state, const std::string& name); // item_rect() under name
void publish_region(AppState& state, const std::string& name); // the current window's content region (x, width) and height

} // namespace hwplan::ui
