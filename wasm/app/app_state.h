// app_state.h: the only mutable state of the web planner. The workload JSON document is the state: the
// form edits its fields in place (so fields the form does not show, from a scenario or an import, are kept
// and the page plans exactly what the CLI plans). The core plans the document when it changes; panels draw
// the result read-only (Dear ImGui's pattern).
#pragma once
#include <nlohmann/json.hpp>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "custom.h"
#include "hwplan/card.h"
#include "hwplan/plan.h"
#include "hwplan/run_compare.h"
#include "hwplan/sweep.h"

namespace hwplan::ui {

// Screen rectangle of a widget in CSS pixels, published to the page for accessibility and tests.
struct Rect {
    float x = 0, y = 0, w = 0, h = 0;
    bool operator==(const Rect&) const = default;
};

// The plan of the last settled document (no field being typed in, the whole plan in): what "the last valid plan" means.
// Typing plans every keystroke; when the text ends invalid ("1e30" passes through a valid "1e3"), the page shows this
// one, not the plan of an in-between keystroke (page.cpp refresh_plan).
struct Settled {
    std::string doc;                   // the workload document it was planned from ("" = none yet)
    Plan plan;                         // as shown (AppState::shown)
    Workload workload;                 // its parsed workload (for the card)
    std::string card_markdown, plan_json;
};

// "Run it" on the recommendation card (panel_run_it.cpp): the paste box and the last read-back.
struct RunState {
    bool open = false;                 // the section is open (the card may then grow to most of the plan side)
    std::vector<char> text = std::vector<char>(65536, 0); // the benchmark output pasted
    RunComparison result;              // the last read-back (issues: its named error)
    std::string compared_for;          // planned_json it was made for (the table says when the plan changed since)
    bool scroll_to_result = false;     // scroll the card to the table once
    bool scroll_to_paste = false;      // scroll the card to the paste box once (after Clear)
    bool scroll_to_section = false;    // scroll the card to the section once (just opened)
};

enum class View { candidates, costs, assumptions, card, team, whatif }; // the tabs of the plan side
enum class SortKey { rank, device, count, memory, headline };       // candidate table order
enum class FormTab { workload, hardware, weights };                   // the tabs of the form side

constexpr const char* kDefaultWeightParams = "7e9"; // the weight check's count: lesson 001's worked 7B example
constexpr int kDefaultPrecisionIndex = 1;            // index into hwplan::all_precisions(): bf16

struct AppState {
    // [SECTION] the workload (the state) -------------------------------------------------------
    nlohmann::json workload;           // docs/workload.md form; edited in place by the form
    std::string scenario_id;           // the scenario it was loaded from ("" = none / edited away)
    std::string scenario_json;         // that scenario's workload, compact (to tell "still the scenario")
    std::map<std::string, std::array<char, 80>> text; // field path -> text as typed (numbers; a grouped GEMM's three tiles)
    std::string edit_before;           // the text of the number field being edited as it was when opened (Ctrl+Z goes back to it)
    std::vector<std::string> undo;     // earlier states: {workload, team} as compact JSON, newest last (workload_doc.cpp)
    std::string notice;                // a visible message (bad link, bad import); "" = none

    // [SECTION] the plan ---------------------------------------------------------------------
    bool catalog_ready = false;        // the catalog is read (main.cpp, the tick after the first frame); until then "Planning..."
    std::string planned_json;          // the document the current plan was made from (memo key)
    bool plan_pending_whole = false;   // the plan shown is the quick one (no re-planned flip points or sensitivity): the whole
                                       // plan follows in the first frame with no input waiting (page.cpp refresh_plan)
    bool plan_pending_words = false;   // the whole plan is drawn; its card and JSON follow in the next frame with no input
                                       // waiting, and only then is it published
    bool plan_pending() const { return plan_pending_whole || plan_pending_words; }
    bool input_waiting = false;        // this frame has input or page commands still queued (main.cpp sets it each frame)
    int plans_shown = 0;               // plans drawn so far, quick and whole (published each frame: bench/load_time.mjs times key to plan)
    Plan plan;                         // the plan of the current document (issues set when invalid)
    Plan shown;                        // the last valid plan: stays visible while a field is wrong
    Workload shown_workload;           // its parsed workload (for the card)
    std::string shown_doc;             // the document the shown plan was planned from
    Settled settled;                   // the last settled plan: shown again when the document turns invalid
    std::string plan_json;             // to_json(shown) for export and the page API
    std::string card_markdown;         // lesson 003's workload card for the shown plan
    int selected = 0;                  // candidate shown in detail (index into shown.candidates)
    bool scroll_to_selected = false;   // scroll the table to the selected row once
    std::string wanted_device;         // a device a link asked to show (selected once planned)

    // [SECTION] team view ---------------------------------------------------------------------
    std::string team_id;               // a team scenario loaded ("" = none)
    std::string team_name;
    TeamPlan team;
    std::string team_markdown;

    // [SECTION] team view: the team as a document, edited card by card (panel_team.cpp) -----------------
    nlohmann::json team_doc;           // {"name", "cards": [workload, ...]}; null = no team
    std::string team_planned;          // team_doc.dump() that `team` was planned from (memo key)
    int team_open_card = -1;           // the card the form was opened on (-1: none)

    // [SECTION] what-if view: curves from the core's sweep(), for the selected device only, computed only
    // while the view is open (panel_whatif.cpp) ---------------------------------------------------------
    int whatif_axis = 0;               // index into sweep_axes(stage)
    std::string sweep_key;             // what the curves were computed for (document, device, count, axis)
    Sweep sweep;                       // the curves
    double sweep_ms = 0;               // how long computing them took (published; the budget is bench/budgets.mjs's)
    std::string hover;                 // the chart value under the pointer as JSON {chart, x, key, value, low, high}; "" = none

    // [SECTION] your own models, devices and measurements (custom.h) ------------------------------
    CustomState custom;

    // [SECTION] run it: the recommended option's commands and its benchmark read back (panel_run_it.cpp) ----
    RunState runit;

    // [SECTION] view ----------------------------------------------------------------------------
    View view = View::candidates;
    View tab_shown = View::candidates; // the view the tab bar shows (differs while a change is pending)
    SortKey sort = SortKey::rank;
    bool sort_descending = false;
    std::array<char, 64> filter{""};
    std::string table_order;           // device ids as the table lists them (published for tests)
    std::string default_json;          // the default workload, compact (its link is the bare page)   // candidate table filter (device id or name, case-insensitive)
    bool light_theme = false;
    float page_height = 0;             // stacked layout: the page's content height in CSS pixels (the canvas grows to it); 0: side by side
    FormTab form_tab = FormTab::workload; // the open form tab (the link's "tab=")
    bool form_tab_pending = false;     // a link asked for form_tab: the tab bar selects it on the next frames

    // The weight-memory calculator (the first slice, kept as its own tab; the link's "weights=").
    std::array<char, 64> params_text{"7e9"};
    int precision_index = 1;           // index into hwplan::all_precisions(); 1 = bf16
    std::array<char, 64> model_filter{""}; // the model list's filter (cleared each time the list opens)
    bool engine_shown = false;         // the same for the Engine and layout section
    bool decision_shown = false;       // the document held decision inputs last frame: the Decision section opens when they appear
    std::string help_open;             // the form row whose "(?)" help is showing ("" = none), published with its text
    std::string help_text;

    // Layout published for the page (tests, assistive tech): widget name -> rectangle, and the active one.
    std::map<std::string, Rect> widgets;
    std::string active_widget;
    std::string active_widget_before;  // the same at the end of the previous frame (page.cpp refresh_plan: a stacked page draws
                                       // the plan side before the form, so this frame's is not known yet when it plans)
};

} // namespace hwplan::ui
