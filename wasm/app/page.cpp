// page.cpp: the whole page: a top bar (title, scenarios, undo, reset, export, theme), a notice line for bad
// links and imports, the form on the left (with the weight calculator as a second tab), the plan on the
// right. Also plans the document when it changed, keeping the last valid plan on screen.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "bridge.h"
#include "custom.h"
#include "format.h"
#include "hwplan/card.h"
#include "hwplan/guard.h"
#include "hwplan/json_api.h"
#include "hwplan/parse.h"
#include "panels.h"
#include "theme.h"
#include "workload_doc.h"

namespace hwplan::ui {

namespace {

// [SECTION] the top bar: a row that wraps ------------------------------------------------------------
// The right edge of the window's content, in screen pixels (the page's window has no scrollbar of its own).
float row_right() { return ImGui::GetWindowPos().x + ImGui::GetWindowWidth() - ImGui::GetStyle().WindowPadding.x; }

// Puts the next item, `next_w` wide, on the current line after a gap when it still fits, else at the start of the next
// line: the top bar wraps on a narrow window (a phone, a zoomed page) instead of running off its right edge.
void flow(float next_w, float gap = -1.0f) {
    if (gap < 0) gap = ImGui::GetStyle().ItemSpacing.x;
    if (ImGui::GetItemRectMax().x + gap + next_w <= row_right()) ImGui::SameLine(0, gap);
}

float button_width(const char* label) { return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2; }

void scenario_picker(AppState& state, const Catalog& cat, float width) {
    std::string current = "Worked examples from the lessons...";
    for (const auto& sc : cat.scenarios)
        if (sc.id == (state.team_id.empty() ? state.scenario_id : state.team_id)) current = sc.name;
    ImGui::SetNextItemWidth(width);
    if (ImGui::BeginCombo("##scenario", current.c_str(), ImGuiComboFlags_HeightLargest)) {
        for (const auto& sc : cat.scenarios) {
            const std::string label = sc.name + (sc.workload_json.empty() ? "  [team]" : "");
            if (ImGui::Selectable((label + "##" + sc.id).c_str(), sc.id == state.scenario_id || sc.id == state.team_id)) {
                remember(state);
                state.notice.clear();
                load_scenario(state, sc.id, cat);
            }
            publish(state, "scenario:" + sc.id);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s\n(%s: %s)", sc.question.c_str(), sc.lesson.title.c_str(), sc.lesson.locator.c_str());
        }
        ImGui::EndCombo();
    }
    publish(state, "scenario");
}

void export_menu(AppState& state) {
    if (ImGui::Button("Export / import"))
        ImGui::OpenPopup("export_popup");
    publish(state, "export");
    if (ImGui::BeginPopup("export_popup")) {
        const std::string workload = state.workload.dump(2);
        const std::string base = state.scenario_id.empty() ? "hwplan" : state.scenario_id;
        const bool team_scenario = !state.team_id.empty() && state.team_id != "edited" && state.team_id != "imported";
        const std::string team_base = team_scenario ? state.team_id : "hwplan";
        auto item = [&](const char* label, const char* name, bool enabled, auto&& action) {
            if (ImGui::MenuItem(label, nullptr, false, enabled)) action();
            publish(state, name);
        };
        ImGui::TextDisabled("Workload (docs/workload.md)");
        item("Copy the workload JSON", "export:workload-copy", true, [&] { hwplan_clipboard_write(workload.c_str()); });
        item("Download the workload JSON", "export:workload-download", true,
             [&] { hwplan_download((base + ".workload.json").c_str(), "application/json", workload.c_str()); });
        ImGui::TextDisabled("Plan (docs/plan.md)");
        item("Copy the plan JSON", "export:plan-copy", !state.plan_json.empty(), [&] { hwplan_clipboard_write(state.plan_json.c_str()); });
        item("Download the plan JSON", "export:plan-download", !state.plan_json.empty(),
             [&] { hwplan_download((base + ".plan.json").c_str(), "application/json", state.plan_json.c_str()); });
        item("Copy the workload card (Markdown)", "export:card-copy", !state.card_markdown.empty(),
             [&] { hwplan_clipboard_write(state.card_markdown.c_str()); });
        item("Download the workload card (Markdown)", "export:card-download", !state.card_markdown.empty(),
             [&] { hwplan_download((base + ".card.md").c_str(), "text/markdown", state.card_markdown.c_str()); });
        item("Copy the team plan (Markdown)", "export:team-copy", !state.team_markdown.empty(),
             [&] { hwplan_clipboard_write(state.team_markdown.c_str()); });
        item("Download the team plan (Markdown)", "export:team-download", !state.team_markdown.empty(),
             [&] { hwplan_download((team_base + ".team.md").c_str(), "text/markdown", state.team_markdown.c_str()); });
        ImGui::Separator();
        ImGui::TextDisabled("Import: paste a workload JSON (Ctrl+V) or drop a .json file on the page.");
        ImGui::EndPopup();
    }
}

// Title, scenarios, Undo, Reset, Export / import and the theme in one row on a wide window; on a narrow one each
// item that no longer fits starts the next row, and the scenario list takes a whole row.
void top_bar(AppState& state, const Catalog& cat, bool narrow) {
    ImGui::PushFont(bold_font(), 20.0f);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("hwplan");
    ImGui::PopFont();
    const char* tagline = "AI hardware planner, running in this page";
    flow(ImGui::CalcTextSize(tagline).x);
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", tagline);
    const float row = row_right() - ImGui::GetWindowPos().x - ImGui::GetStyle().WindowPadding.x; // a whole row's width
    const float picker = narrow ? std::min(460.0f, row) : std::min(460.0f, (row_right() - ImGui::GetItemRectMax().x - 24) * 0.4f);
    flow(picker, 24);
    scenario_picker(state, cat, picker);
    flow(button_width("Undo"));
    ImGui::BeginDisabled(state.undo.empty());
    if (ImGui::Button("Undo")) undo(state);
    ImGui::EndDisabled();
    publish(state, "undo");
    flow(button_width("Reset"));
    if (ImGui::Button("Reset")) {
        remember(state);
        state.notice.clear();
        load_default(state, cat);
    }
    publish(state, "reset");
    flow(button_width("Export / import"));
    export_menu(state);
    const char* theme = state.light_theme ? "Dark theme" : "Light theme";
    flow(button_width(theme));
    if (ImGui::Button(theme)) {
        state.light_theme = !state.light_theme;
        apply_theme(state.light_theme);
    }
    publish(state, "theme");
    if (!state.notice.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, bad_color());
        ImGui::AlignTextToFramePadding();
        ImGui::TextWrapped("%s", state.notice.c_str());
        ImGui::PopStyleColor();
        publish(state, "notice");
        ImGui::SameLine();
        if (ImGui::SmallButton("Dismiss")) state.notice.clear();
    }
}

// The plan side of the first frame, drawn before the catalog is read (main.cpp plans in the ticks after it).
std::string planning_panel() {
    ImGui::Dummy(ImVec2(0, ImGui::GetContentRegionAvail().y * 0.3f));
    ImGui::PushFont(bold_font(), 20.0f);
    const char* title = "Planning...";
    ImGui::SetCursorPosX((ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(title).x) * 0.5f);
    ImGui::TextUnformatted(title);
    ImGui::PopFont();
    const char* line = "Reading the catalog of devices and models, then planning this workload.";
    ImGui::SetCursorPosX(std::max(0.0f, (ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(line).x) * 0.5f));
    ImGui::TextDisabled("%s", line);
    return "Planning...";
}

} // namespace

// A keystroke plans at once without what needs re-planning (the flip points found by re-planning, the sensitivity
// probes: several plans more), so typing never waits for them. The whole plan, the one the CLI, the card and the JS API
// give, follows in two steps, each in the next frame with no input waiting, so that no frame does more than one step's
// work (bench/load_time.mjs times each frame after a key): first the quick plan is completed (its candidates kept) and
// drawn, then its words for the page (the workload card and the plan's JSON) are written and the plan is published.
// Tests and the page API see the whole plan: the page is not idle until both steps are done (main.cpp).
void refresh_plan(AppState& state, const Catalog& catalog) {
    const std::string doc = state.workload.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    // The plan shown settles once no field is being typed in (this frame or the last: stacked, the plan side is drawn
    // before the form) and the whole plan is in (a keystroke's quick plan never settles): it is the last valid plan
    // from then on (AppState::settled).
    if (state.active_widget.empty() && state.active_widget_before.empty() && state.plan.issues.empty() && !state.plan_pending() &&
        !state.shown_doc.empty() && state.shown_doc == state.planned_json && state.settled.doc != state.shown_doc)
        state.settled = {state.shown_doc, state.shown, state.shown_workload, state.card_markdown, state.plan_json};
    const bool changed = doc != state.planned_json;
    if (!changed && !(state.plan_pending() && !state.input_waiting)) return;
    if (!changed && !state.plan_pending_whole) { // the second step: the words of the plan already drawn
        state.plan_pending_words = false;
        guarded("plan", [&] {
            state.card_markdown = render_card(state.shown, state.shown_workload, catalog);
            state.plan_json = to_json(state.shown);
            return true;
        }, [&](const Issue& i) {
            state.notice = to_string(i);
            return false;
        });
        return;
    }
    const bool whole = !changed;
    state.planned_json = doc; // planned once, even when planning fails (no retry every frame)
    state.plan_pending_whole = false;
    state.plan_pending_words = false;
    // A throw from the core (a bug) is the plan's named error, shown where a field's error shows; the last
    // valid plan stays on screen (guard.h).
    const std::string selected_device =
        state.selected >= 0 && state.selected < static_cast<int>(state.shown.candidates.size()) ? state.shown.candidates[state.selected].device : "";
    const bool planned = guarded("plan", [&] {
        // The whole plan completes the quick one this document was planned into (it is state.plan: a failed quick
        // plan leaves nothing pending), so the candidates are evaluated once per edit (plan.h complete_plan).
        state.plan = whole ? complete_plan_from_json(std::move(state.plan), doc, catalog) : plan_from_json(doc, catalog, false);
        if (!state.plan.issues.empty()) return false; // the last valid plan stays on screen
        state.shown = state.plan;
        state.shown_doc = doc;
        if (!whole) state.shown_workload = parse_workload(doc, catalog).workload; // the whole plan's is the same document's
        // The card and the plan's JSON (export, the page API) are the second step's: the quick plan is never published.
        // An open card view shows the quick plan's card until then (written at the keystroke only for that view).
        if (!whole) state.card_markdown = state.view == View::card ? render_card(state.shown, state.shown_workload, catalog) : std::string();
        state.plan_json.clear();
        return true;
    }, [&](const Issue& i) {
        state.plan = Plan{};
        state.plan.issues = {i};
        state.notice = to_string(i);
        return false;
    });
    if (!planned) {
        // An invalid document: the last settled plan is shown (not the plan of a keystroke on the way, "1e3" of "1e30").
        if (!state.settled.doc.empty() && state.shown_doc != state.settled.doc) {
            state.shown = state.settled.plan;
            state.shown_doc = state.settled.doc;
            state.shown_workload = state.settled.workload;
            state.card_markdown = state.settled.card_markdown;
            state.plan_json = state.settled.plan_json;
            const int rows = static_cast<int>(state.shown.candidates.size());
            if (state.selected >= rows) state.selected = std::max(0, rows - 1);
        }
        return;
    }
    ++state.plans_shown;
    if (whole) { // the same candidates in the same order: keep the row the user is on
        state.plan_pending_words = true;
        for (int i = 0; i < static_cast<int>(state.shown.candidates.size()); ++i)
            if (state.shown.candidates[i].device == selected_device) state.selected = i;
        return;
    }
    state.plan_pending_whole = true;
    // Show the recommended device (or the one a link asked for) and scroll the table to it. A device the link
    // names that is not a row of this plan (a typo, a device the workload leaves out) is said, not ignored.
    const std::string asked = state.wanted_device;
    state.wanted_device.clear();
    const std::string recommended = state.plan.recommendation.found ? state.plan.recommendation.option.device : std::string();
    auto row_of = [&](const std::string& id) {
        for (int i = 0; i < static_cast<int>(state.shown.candidates.size()); ++i)
            if (state.shown.candidates[i].device == id) return i;
        return -1;
    };
    int row = asked.empty() ? -1 : row_of(asked);
    if (!asked.empty() && row < 0)
        state.notice = "The link's device value (\"" + clip_for_message(asked) + "\") is not a device of this plan; " +
                       (recommended.empty() ? "the first row is shown." : "the recommended device is shown.");
    if (row < 0 && !recommended.empty()) row = row_of(recommended);
    state.selected = std::max(0, row);
    state.scroll_to_selected = true;
}

namespace {

// The form side: the Workload form, your own hardware and the weight check, as tabs. Returns the weight check's
// summary while its tab is open (the status line then reads it), else "".
// The panels are child windows "flattened" for the keyboard (ImGuiChildFlags_NavFlattened, here and in the panels): Tab
// goes through every widget of the page in reading order, the top bar, the form, then the plan, rather than stopping at
// each panel as one item that Enter must open.
std::string form_side(AppState& state, const Catalog& catalog, ImVec2 size) {
    std::string summary;
    ImGui::BeginChild("left##left", size, ImGuiChildFlags_Borders | ImGuiChildFlags_NavFlattened);
    if (ImGui::BeginTabBar("tabs##tabs")) {
        // A link names the open tab (form_tab_pending): the tab bar switches to it over the next frames, and
        // until it shows, the tab drawn does not overwrite the wish.
        auto open_tab = [&](FormTab t, const char* label, const char* name) {
            const ImGuiTabItemFlags flags = state.form_tab_pending && state.form_tab == t ? ImGuiTabItemFlags_SetSelected : 0;
            const bool open = ImGui::BeginTabItem(label, nullptr, flags);
            publish(state, name);
            if (open && state.form_tab_pending && state.form_tab == t) state.form_tab_pending = false;
            if (open && !state.form_tab_pending) state.form_tab = t;
            return open;
        };
        if (open_tab(FormTab::workload, "Workload##tab_workload", "tab_workload")) {
            begin_nested_child("form##form", ImVec2(0, 0), ImGuiChildFlags_NavFlattened);
            panel_workload(state, catalog);
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
        if (open_tab(FormTab::hardware, "Your hardware##tab_custom", "tab_custom")) {
            begin_nested_child("custom##custom", ImVec2(0, 0), ImGuiChildFlags_NavFlattened);
            panel_custom(state);
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
        if (open_tab(FormTab::weights, "Weight check##tab_weights", "tab_weights")) {
            summary = panel_weights(state, catalog);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    ImGui::EndChild();
    return summary;
}

// The plan side: plans the document when it changed (against the page's catalog as it is now: the form may have
// just added a model or a device), then draws the recommendation and the views. Returns the status line's summary.
std::string plan_side(AppState& state, const Catalog& catalog, ImVec2 size) {
    // The form may have just changed the catalog ("Add model", "Add device", a calibration): the plan side reads
    // the page's catalog as it is now, not the one this frame began with (which, for the first entry of your
    // own, was the embedded catalog: the plan said "unknown model" for the model just added until a reload).
    const Catalog& now = state.catalog_ready ? page_catalog(state) : catalog;
    if (state.catalog_ready) {
        refresh_plan(state, now);
        refresh_team(state, now); // a team restored by Undo is planned even before its view draws
    }
    ImGui::BeginChild("right##right", size, ImGuiChildFlags_Borders | ImGuiChildFlags_NavFlattened);
    const std::string summary = state.catalog_ready ? panel_plan(state, now) : planning_panel();
    ImGui::EndChild();
    return summary;
}

} // namespace

std::string draw_page(AppState& state, const Catalog& catalog, const PageSize& size) {
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(size.width, size.height));
    // No background of its own: the frame's clear (main.cpp) is the same colour (theme.cpp background()), and one
    // full-canvas fill less is a fifth to a quarter of a frame's pixels for the browser's software rasterizer.
    ImGui::Begin("hwplan##main", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoTitleBar |
                     ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse |
                     ImGuiWindowFlags_NoBackground);
    const bool stacked = size.view_width < kStackBelowPx;
    top_bar(state, catalog, stacked);
    // Escape leaves the team view (when no field is being edited).
    if (!state.team_id.empty() && state.view == View::team && !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(ImGuiKey_Escape))
        state.view = View::candidates;

    std::string summary;
    if (!stacked) { // side by side: the form left, the plan right, both the window's height; only the panels scroll
        state.page_height = 0;
        const float left = std::clamp(size.width * 0.32f, 340.0f, 470.0f);
        summary = form_side(state, catalog, ImVec2(left, 0));
        ImGui::SameLine();
        const std::string plan_summary = plan_side(state, catalog, ImVec2(0, 0));
        if (summary.empty()) summary = plan_summary;
    } else { // stacked: the plan fills the first screen under the top bar, the form the next; the document scrolls
        const ImGuiStyle& style = ImGui::GetStyle();
        const float min_h = 420.0f; // CSS px: a short window (a landscape phone, a zoomed laptop) still gets usable panels
        const float plan_h = std::max(min_h, size.view_height - ImGui::GetCursorPosY() - style.WindowPadding.y);
        const float form_h = std::max(min_h, size.view_height - 2 * style.WindowPadding.y);
        summary = plan_side(state, catalog, ImVec2(0, plan_h));
        const std::string form_summary = form_side(state, catalog, ImVec2(0, form_h));
        if (!form_summary.empty()) summary = form_summary;
        state.page_height = std::ceil(ImGui::GetCursorPosY() - style.ItemSpacing.y + style.WindowPadding.y);
    }
    ImGui::End();
    return summary;
}

} // namespace hwplan::ui
