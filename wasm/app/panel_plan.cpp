// panel_plan.cpp: the plan side of the page. The recommendation card first (the decision in one sentence,
// reasons, lever, runner-up, cost), then the views: devices (a sortable, filterable table with the
// recommended row highlighted, and the selected device's memory, roofline and figures), costs (cost per
// useful result across the options), assumptions, the workload card and the team.
#include <imgui.h>
#include <imgui_internal.h> // RenderTextEllipsis: a device name or fleet cut with "..." in its cell

#include <algorithm>
#include <cfloat>
#include <cctype>
#include <cmath>
#include <numeric>

#include "charts.h"
#include "format.h"
#include "panels.h"
#include "plan_words.h"
#include "theme.h"
#include "workload_doc.h"

namespace hwplan::ui {

namespace {

std::string summary_of(const Plan& p) {
    size_t fit = 0;
    for (const auto& c : p.candidates) fit += c.fits;
    std::string s = "Plan: " + p.model_id + ", " + std::string(name(p.stage)) + ": " + std::to_string(fit) + " of " +
                    std::to_string(p.candidates.size()) + " candidates fit";
    if (p.recommendation.found) s += "; recommended: " + p.recommendation.option.name;
    if (!p.candidates.empty()) {
        const auto& c = p.candidates.front();
        s += "; first: " + c.device + " x" + std::to_string(c.count) + ", " + show_bytes(c.memory.total_bytes) + " per device, " +
             std::string(name(c.regime));
        for (const auto& k : headline_keys(p.stage))
            if (auto it = c.figures.find(k); it != c.figures.end()) {
                s += ", " + k + " " + show_figure(k, it->second.value);
                break;
            }
    }
    return s;
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

void heading(const char* text, float size = 0.0f) {
    ImGui::PushFont(bold_font(), size);
    ImGui::TextUnformatted(text);
    ImGui::PopFont();
}

// [SECTION] recommendation card ------------------------------------------------------------------
// The decision in one short sentence (the core's recommendation.headline, as the CLI and the card say it),
// its cost breakdown term by term, then the reasons, lever, first-cut guide and the checks. In the Team
// view the card answers for the team instead (team_card, panel_team.cpp), so nobody reads the form's
// workload as the team's answer. Published: "reco:form:DEVICE" or "reco:team" (tests check which it is).
void form_card(AppState& state) {
    const Plan& p = state.shown;
    const auto& r = p.recommendation;
    const CardWords words = card_words(p); // the words the page's text mirror also holds (plan_words.h)
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped(words.workload.c_str());
    ImGui::PopStyleColor();
    ImGui::PushStyleColor(ImGuiCol_Text, r.found ? good_color() : bad_color());
    heading(words.heading.c_str(), 19.0f);
    ImGui::PopStyleColor();
    publish(state, "recommendation");
    publish(state, "reco:form:" + published_id(r.found ? r.option.device : std::string("none")));
    ImGui::PushFont(bold_font(), 0.0f);
    text_wrapped(words.headline.c_str());
    ImGui::PopFont();
    publish(state, "reco:headline");
    if (r.found) run_it_toggle(state); // lesson 004's second check as commands; the section is drawn at the card's end
    if (!words.costs.empty() && ImGui::BeginTable("costs##reco", 2, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("term", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("per device-hour").x + 12);
        ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
        for (const auto& [term, value] : words.costs) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%s", term.c_str());
            ImGui::TableNextColumn();
            text_wrapped(value.c_str());
        }
        ImGui::EndTable();
        publish(state, "reco:costs");
    }
    if (!words.cost_range.empty()) ImGui::TextDisabled("%s", words.cost_range.c_str());
    for (const auto& reason : words.reasons) {
        ImGui::Bullet();
        text_wrapped(reason.c_str());
    }
    if (!words.lever.empty()) {
        ImGui::Bullet();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().accent), "%s", kLeverLabel);
        ImGui::SameLine();
        text_wrapped(words.lever.c_str());
    }
    // Lesson 004's first-cut guide beside the computed answer, and the three checks before buying.
    if (!words.guide.empty()) {
        ImGui::Bullet();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().accent), "%s", kGuideLabel);
        ImGui::SameLine();
        text_wrapped(words.guide.c_str());
    }
    if (!words.checks.empty() && ImGui::TreeNode("checks##reco", "%s", kChecksHeading)) {
        for (const auto& check : words.checks) text_wrapped(check.c_str());
        ImGui::TreePop();
    }
    // The second check, as commands: deploy, measure, and the benchmark's output read back (panel_run_it.cpp).
    if (r.found) run_it_section(state);
}

void recommendation_card(AppState& state, const Catalog& catalog) {
    // At most 40 % of the plan side's height (it scrolls inside beyond that), so the views below keep room at 1024x700.
    // With "Run it" open, up to 85 %: its commands, paste box and table are what the reader is working with then.
    const float share = state.runit.open && state.view != View::team ? 0.85f : 0.4f;
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, std::max(140.0f, ImGui::GetContentRegionAvail().y * share)));
    begin_nested_child("card##reco", ImVec2(0, 0), ImGuiChildFlags_Borders | ImGuiChildFlags_AutoResizeY | ImGuiChildFlags_NavFlattened);
    if (state.view == View::team && !state.team_doc.is_null()) team_card(state, catalog);
    else form_card(state);
    ImGui::EndChild();
}

// [SECTION] devices view ---------------------------------------------------------------------------
// The option a row shows (Candidate::option), or null.
const Option* option_of(const Plan& p, const Candidate& c) {
    return c.option >= 0 && c.option < static_cast<int>(p.options.size()) ? &p.options[static_cast<size_t>(c.option)] : nullptr;
}

// The selected row's detail: the device, then the option its row shows (Candidate::option) and, when feasibility
// eliminated it, why.
void detail(const Candidate& c, const Option* o) {
    heading((c.device_name + " x" + std::to_string(c.count)).c_str());
    ImGui::SameLine();
    ImGui::TextColored(c.fits ? good_color() : bad_color(), "%s", c.fits ? "fits" : "does not fit");
    ImGui::SameLine();
    ImGui::Text("| %s", std::string(name(c.regime)).c_str());
    if (o) {
        ImGui::PushStyleColor(ImGuiCol_Text, o->feasible ? ImGui::GetStyleColorVec4(ImGuiCol_Text) : bad_color());
        text_wrapped((o->name + (o->feasible || o->reasons.empty() ? std::string() : ": eliminated: " + o->reasons.front())).c_str());
        ImGui::PopStyleColor();
    }
    text_wrapped(c.regime_why.c_str());
    if (c.count > 1)
        ImGui::TextDisabled("layout: tensor %d x pipeline %d%s x data %d%s%s", c.layout.tensor_parallel, c.layout.pipeline_parallel,
                            c.layout.context_parallel > 1 ? (" x context " + std::to_string(c.layout.context_parallel)).c_str() : "",
                            c.layout.data_parallel, c.layout.zero_stage ? (", ZeRO-" + std::to_string(c.layout.zero_stage)).c_str() : "",
                            c.layout.expert_parallel > 1 ? (", experts over " + std::to_string(c.layout.expert_parallel)).c_str() : "");
    ImGui::Spacing();
    heading("Memory per device");
    memory_bar(c.memory, ImGui::GetContentRegionAvail().x - 10, 20);
    if (ImGui::BeginTable("terms##terms", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("term", ImGuiTableColumnFlags_WidthFixed, 140);
        ImGui::TableSetupColumn("memory", ImGuiTableColumnFlags_WidthFixed, 90);
        ImGui::TableSetupColumn("what was counted");
        ImGui::TableHeadersRow();
        for (const auto& t : c.memory.terms) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(t.name.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(show_bytes(t.bytes).c_str());
            ImGui::TableNextColumn();
            text_wrapped(t.why.c_str());
        }
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("total");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(show_bytes(c.memory.total_bytes).c_str());
        ImGui::TableNextColumn();
        text_wrappedf("of %s usable (range %s .. %s over the overhead assumptions)", show_bytes(c.memory.capacity_bytes).c_str(),
                           show_bytes(c.memory.total_low_bytes).c_str(), show_bytes(c.memory.total_high_bytes).c_str());
        ImGui::EndTable();
    }
    if (!c.phases.empty()) {
        ImGui::Spacing();
        heading("Roofline: where each phase sits against the device's ceilings");
        roofline_chart(c, ImGui::GetContentRegionAvail().x - 10, 220);
    }
    ImGui::Spacing();
    heading("Figures (typical, with the low .. high band over the assumptions)");
    if (ImGui::BeginTable("figures##figures", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("figure", ImGuiTableColumnFlags_WidthFixed, 200);
        ImGui::TableSetupColumn("typical (low .. high)", ImGuiTableColumnFlags_WidthFixed, 260);
        ImGui::TableSetupColumn("how it was obtained");
        ImGui::TableHeadersRow();
        for (const auto& [k, f] : c.figures) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(figure_label(k).c_str());
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", k.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(show_band(k, f).c_str());
            ImGui::TableNextColumn();
            ImGui::TextDisabled("%s:", std::string(name(f.label)).c_str());
            ImGui::SameLine();
            text_wrapped(f.why.c_str());
        }
        ImGui::EndTable();
    }
    for (const auto& n : c.notes) text_wrappedf("Note: %s", n.c_str());
}

// A number right-aligned in its table cell, so figures line up down a column; the first rows' cells are
// published as num:ROW:COLUMN (tests check the alignment).
void number_cell(AppState& state, int row, const char* column, const std::string& text) {
    const float w = ImGui::CalcTextSize(text.c_str()).x, avail = ImGui::GetContentRegionAvail().x;
    if (avail > w) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + avail - w);
    ImGui::TextUnformatted(text.c_str());
    if (row < 5) publish(state, "num:" + std::to_string(row) + ":" + column);
}

double headline_of(const Candidate& c, const std::string& key) {
    auto it = c.figures.find(key);
    return it == c.figures.end() ? -1 : it->second.value;
}

// A header over two lines when it is wider than `width` (split at the space nearest its middle), so the figures'
// columns are as wide as their numbers, not their names, and more of them fit at 1280 px.
std::string header_label(const std::string& header, float width) {
    if (ImGui::CalcTextSize(header.c_str()).x <= width) return header;
    size_t best = std::string::npos;
    for (size_t i = header.find(' '); i != std::string::npos; i = header.find(' ', i + 1))
        if (best == std::string::npos || std::abs(static_cast<double>(i) - header.size() / 2.0) < std::abs(static_cast<double>(best) - header.size() / 2.0))
            best = i;
    return best == std::string::npos ? header : header.substr(0, best) + "\n" + header.substr(best + 1);
}

// Text cut to its cell with "..." (the row's tooltip and the text mirror have it whole).
void ellipsis_cell(const std::string& text) {
    const ImVec2 at = ImGui::GetCursorScreenPos(), size = ImGui::CalcTextSize(text.c_str());
    const float w = ImGui::GetContentRegionAvail().x;
    ImGui::RenderTextEllipsis(ImGui::GetWindowDrawList(), at, ImVec2(at.x + w, at.y + size.y), at.x + w, text.c_str(), nullptr, &size);
    ImGui::Dummy(ImVec2(std::min(w, size.x), size.y));
}

// The published name of a column's cells (num:ROW:NAME), for the columns of numbers.
std::string cell_name(TableColumn col, size_t figure) {
    switch (col) {
    case TableColumn::cost: return "cost";
    case TableColumn::figure: return "figure" + std::to_string(figure);
    case TableColumn::memory: return "memory";
    default: return "";
    }
}

// One row of the Devices table: the device's best-ranked option, the recommended option's row highlighted (its fleet
// may hold several replicas of the candidate's count, or whole servers bought around them). `i` indexes the plan's
// candidates, `shown_row` is the row's position in the table, top to bottom.
void table_row(AppState& state, const TableWords& table, int i, int shown_row) {
    const TableRow& row = table.rows[static_cast<size_t>(i)];
    ImGui::TableNextRow();
    if (row.recommended) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, palette().highlight_row);
    size_t figure = 0;
    for (size_t col = 0; col < row.cells.size(); ++col) {
        ImGui::TableNextColumn();
        const std::string& text = row.cells[col];
        switch (table.columns[col]) {
        case TableColumn::rank:
            // The rank, or "out" (eliminated) in the warning colour; the whole row selects the detail.
            if (!row.ranked) ImGui::PushStyleColor(ImGuiCol_Text, bad_color());
            if (ImGui::Selectable((text + "##row" + std::to_string(i)).c_str(), state.selected == i, ImGuiSelectableFlags_SpanAllColumns))
                state.selected = i;
            if (!row.ranked) ImGui::PopStyleColor();
            if (ImGui::IsItemHovered()) // device and fleet (cut to their width) and why, whole
                ImGui::SetTooltip("%s\n%s\n%s", row.cells[1].c_str(), row.cells[2].c_str(), row.cells.back().c_str());
            publish(state, "row:" + row.device);
            if (state.scroll_to_selected && state.selected == i) ImGui::SetScrollHereY(0.3f);
            break;
        case TableColumn::device:
        case TableColumn::fleet: ellipsis_cell(text); break;
        case TableColumn::regime: ImGui::TextUnformatted(text.c_str()); break;
        case TableColumn::why:
            if (row.ranked) ImGui::TextUnformatted(text.c_str());
            else ImGui::TextColored(bad_color(), "%s", text.c_str());
            break;
        default:
            number_cell(state, shown_row, cell_name(table.columns[col], figure).c_str(), text);
            figure += table.columns[col] == TableColumn::figure;
            break;
        }
    }
}

void devices_view(AppState& state) {
    const Plan& p = state.shown;
    const TableWords table = table_words(p); // the words the page's text mirror also holds (plan_words.h)
    ImGui::SetNextItemWidth(240);
    ImGui::InputTextWithHint("##filter", "filter devices (name or id)", state.filter.data(), state.filter.size());
    publish(state, "filter");
    if (ImGui::IsItemActive()) state.active_widget = "filter";
    ImGui::SameLine();
    ImGui::TextDisabled("click a column to sort, a row for its detail");

    // Rows: indices into the candidates, filtered, then ordered by the table's sort column.
    const std::string needle = lower(state.filter.data());
    std::vector<int> rows;
    for (int i = 0; i < static_cast<int>(p.candidates.size()); ++i) {
        const auto& c = p.candidates[i];
        if (needle.empty() || lower(c.device).find(needle) != std::string::npos || lower(c.device_name).find(needle) != std::string::npos)
            rows.push_back(i);
    }
    const float table_h = std::max(160.0f, std::min(ImGui::GetContentRegionAvail().y * 0.45f,
                                                    ImGui::GetFrameHeightWithSpacing() * (static_cast<float>(rows.size()) + 2.6f))); // + two header lines
    const int columns = static_cast<int>(table.headers.size());
    const ImVec2 table_at = ImGui::GetCursorScreenPos(); // the table's rectangle on screen (tests: which columns are in view)
    state.widgets["table:candidates"] = {table_at.x, table_at.y, ImGui::GetContentRegionAvail().x, table_h};
    if (begin_nested_table("candidates##table", columns,
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                              ImGuiTableFlags_Resizable | ImGuiTableFlags_Sortable | ImGuiTableFlags_SizingFixedFit,
                          ImVec2(0, table_h))) {
        ImGui::TableSetupScrollFreeze(2, 1); // rank and device stay in view while the figures scroll sideways
        // Widths fitted to the numbers (long headers over two lines), device names and fleets cut with "..." at a
        // readable width (whole in the row's tooltip), so at 1280 px rank, device, fleet, unit cost and the headline
        // figures are in view; the long "why" comes last, and a narrow window scrolls sideways.
        const float em = ImGui::GetFontSize();
        std::vector<std::string> labels(table.headers.size());
        for (size_t col = 0; col < table.headers.size(); ++col) {
            const TableColumn what = table.columns[col];
            const float width = what == TableColumn::device ? 11 * em : what == TableColumn::fleet ? 9.5f * em : 0;
            labels[col] = what == TableColumn::why ? table.headers[col] : header_label(table.headers[col], 6.5f * em);
            ImGui::TableSetupColumn(labels[col].c_str(), (col == 0 ? ImGuiTableColumnFlags_DefaultSort : 0) | (width > 0 ? ImGuiTableColumnFlags_WidthFixed : 0), width);
        }
        ImGui::TableNextRow(ImGuiTableRowFlags_Headers); // TableHeadersRow(), with each header's rectangle published
        for (int col = 0; col < columns; ++col) {
            ImGui::TableSetColumnIndex(col);
            ImGui::TableHeader(labels[static_cast<size_t>(col)].c_str());
            publish(state, "header:" + table.headers[static_cast<size_t>(col)]);
        }
        if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsCount > 0) {
            const int col = specs->Specs[0].ColumnIndex;
            const bool desc = specs->Specs[0].SortDirection == ImGuiSortDirection_Descending;
            const TableColumn what = table.columns[static_cast<size_t>(col)];
            size_t figure = 0; // which figure column `col` is
            for (int k = 0; k < col; ++k) figure += table.columns[static_cast<size_t>(k)] == TableColumn::figure;
            std::stable_sort(rows.begin(), rows.end(), [&](int x, int y) {
                const auto &a = p.candidates[x], &b = p.candidates[y];
                const Option *oa = option_of(p, a), *ob = option_of(p, b);
                bool less = false, greater = false;
                auto cmp = [&](auto u, auto v) { less = u < v; greater = v < u; };
                switch (what) {
                case TableColumn::rank: cmp(x, y); break;
                case TableColumn::device: cmp(a.device_name, b.device_name); break;
                case TableColumn::fleet: cmp(oa ? oa->count : a.count, ob ? ob->count : b.count); break;
                case TableColumn::cost: cmp(oa && oa->cost.value > 0 ? oa->cost.value : DBL_MAX, ob && ob->cost.value > 0 ? ob->cost.value : DBL_MAX); break;
                case TableColumn::figure: cmp(headline_of(a, table.figure_keys[figure]), headline_of(b, table.figure_keys[figure])); break;
                case TableColumn::regime: cmp(std::string(name(a.regime)), std::string(name(b.regime))); break;
                case TableColumn::memory: cmp(a.memory.total_bytes, b.memory.total_bytes); break;
                case TableColumn::why: cmp(table.rows[static_cast<size_t>(x)].cells.back(), table.rows[static_cast<size_t>(y)].cells.back()); break;
                }
                return desc ? greater : less;
            });
            state.sort = what == TableColumn::rank ? SortKey::rank : what == TableColumn::device ? SortKey::device
                       : what == TableColumn::fleet ? SortKey::count : what == TableColumn::memory ? SortKey::memory : SortKey::headline;
            state.sort_descending = desc;
        }
        // Only the rows in view are laid out (Dear ImGui's list clipper; every row is one line, so they are all as tall
        // as the first): up to 53 rows of ten cells each took most of a frame's main-thread time in WebAssembly. A row
        // scrolled out of view publishes nothing (row:DEVICE, num:ROW:COLUMN); the text mirror and the published order
        // hold every row. Every row is laid out while the table fits its columns to their contents (its first frames, or
        // a double click on a column's edge), so the widths are those of all rows, as before; and the selected row is
        // laid out when a link asks to scroll to it.
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(rows.size()));
        const ImGuiTable* laid_out = ImGui::GetCurrentTable();
        bool fitting = false;
        for (int col = 0; col < columns; ++col) fitting = fitting || laid_out->Columns[col].AutoFitQueue != 0;
        if (fitting) clipper.IncludeItemsByIndex(0, static_cast<int>(rows.size()));
        else if (state.scroll_to_selected)
            if (const auto at = std::find(rows.begin(), rows.end(), state.selected); at != rows.end())
                clipper.IncludeItemByIndex(static_cast<int>(at - rows.begin()));
        while (clipper.Step())
            for (int shown_row = clipper.DisplayStart; shown_row < clipper.DisplayEnd; ++shown_row) // position, top to bottom
                table_row(state, table, rows[static_cast<size_t>(shown_row)], shown_row);
        state.scroll_to_selected = false;
        ImGui::EndTable();
    }
    // The sorted order, published for tests and assistive tech (device ids, top to bottom).
    std::string order;
    for (int i : rows) order += (order.empty() ? "" : ",") + p.candidates[i].device;
    state.table_order = order;
    if (state.selected >= 0 && state.selected < static_cast<int>(p.candidates.size())) {
        ImGui::Separator();
        begin_nested_child("detail##detail", ImVec2(0, 0), ImGuiChildFlags_NavFlattened);
        detail(p.candidates[state.selected], option_of(p, p.candidates[state.selected]));
        ImGui::EndChild();
    }
}

// [SECTION] costs, assumptions, card, team --------------------------------------------------------
void costs_view(AppState& state) {
    const Plan& p = state.shown;
    if (const auto changes = change_lines(p); !changes.empty()) { // the same lines as the CLI and the card (render.h)
        heading("What would change the answer");
        for (size_t i = 0; i < changes.size(); ++i) {
            ImGui::Bullet();
            text_wrapped(changes[i].c_str());
            publish(state, "changes:" + std::to_string(i)); // a line each (tests compare their count with the CLI's)
        }
        ImGui::Spacing();
    }
    heading("Cost per useful result across the options");
    cost_bars(p, ImGui::GetContentRegionAvail().x - 10);
    if (!p.breakeven_curve.empty()) {
        ImGui::Spacing();
        heading(("Buy or rent: months to break even against hours used a month (" + p.breakeven_device + ")").c_str());
        breakeven_chart(p, ImGui::GetContentRegionAvail().x - 10, 200);
    }
    ImGui::Spacing();
    if (ImGui::BeginTable("options##table", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerV)) {
        ImGui::TableSetupColumn("option", ImGuiTableColumnFlags_WidthStretch, 1.5f);
        ImGui::TableSetupColumn("cost per useful result", ImGuiTableColumnFlags_WidthStretch, 1.5f);
        ImGui::TableSetupColumn("a month", ImGuiTableColumnFlags_WidthFixed, 90);
        ImGui::TableSetupColumn("why", ImGuiTableColumnFlags_WidthStretch, 3.0f);
        ImGui::TableHeadersRow();
        for (const auto& o : p.options) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(o.feasible ? good_color() : ImGui::ColorConvertU32ToFloat4(palette().muted), "%s", o.name.c_str());
            ImGui::TableNextColumn();
            text_wrapped(o.cost.value > 0 ? (show_figure(o.unit, o.cost.value) + " " + unit_label(o.unit)).c_str() : "-");
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(o.usd_per_month >= 0 ? show_figure("usd_per_month", o.usd_per_month).c_str() : "-");
            ImGui::TableNextColumn();
            text_wrapped(o.reasons.empty() ? "" : o.reasons.front().c_str());
        }
        ImGui::EndTable();
    }
}

void assumptions_view(AppState& state) {
    const Plan& p = state.shown;
    heading("Assumed because not given");
    if (p.missing_assumptions.empty()) ImGui::TextDisabled("Nothing: every input that changes the answer was given.");
    for (const auto& m : p.missing_assumptions) ImGui::Bullet(), text_wrapped(m.c_str());
    if (!p.sensitivity.empty()) {
        ImGui::Spacing();
        heading("How the answer moves across those inputs");
        for (const auto& m : p.sensitivity) ImGui::Bullet(), text_wrapped(m.c_str());
    }
    if (!p.notes.empty()) {
        ImGui::Spacing();
        heading("Notes");
        for (const auto& n : p.notes) ImGui::Bullet(), text_wrapped(n.c_str());
    }
}

void markdown_view(const std::string& md) {
    // Markdown as a person reads it: headings bold, table pipes turned into aligned columns of text.
    for (size_t at = 0; at < md.size();) {
        size_t end = md.find('\n', at);
        if (end == std::string::npos) end = md.size();
        std::string line = md.substr(at, end - at);
        at = end + 1;
        if (line.rfind("#", 0) == 0) {
            const size_t text = line.find_first_not_of("# ");
            ImGui::Spacing();
            heading(text == std::string::npos ? "" : line.substr(text).c_str(), line.rfind("##", 0) == 0 ? 0.0f : 18.0f);
        } else if (line.rfind("|", 0) == 0) {
            if (line.find("---") != std::string::npos) continue;
            std::vector<std::string> cells;
            size_t c = 1;
            while (c < line.size()) {
                size_t bar = line.find('|', c);
                if (bar == std::string::npos) break;
                std::string cell = line.substr(c, bar - c);
                const size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
                cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
                c = bar + 1;
            }
            const float w = ImGui::GetContentRegionAvail().x / static_cast<float>(std::max<size_t>(1, cells.size()));
            const float x0 = ImGui::GetCursorPosX();
            for (size_t i = 0; i < cells.size(); ++i) {
                if (i) ImGui::SameLine(x0 + w * static_cast<float>(i));
                ImGui::PushTextWrapPos(x0 + w * static_cast<float>(i + 1) - 8);
                text_wrapped(cells[i].c_str());
                ImGui::PopTextWrapPos();
            }
        } else if (line.empty()) {
            ImGui::Spacing();
        } else {
            std::string text = line;
            for (size_t s; (s = text.find("**")) != std::string::npos;) text.erase(s, 2);
            if (text.rfind("- ", 0) == 0) ImGui::Bullet(), text_wrapped(text.substr(2).c_str());
            else text_wrapped(text.c_str());
        }
    }
}

} // namespace

std::string panel_plan(AppState& state, const Catalog& catalog) {
    const Plan& p = state.shown;
    std::string summary;
    if (!state.plan.issues.empty()) {
        summary = "Error: " + to_string(state.plan.issues.front());
        ImGui::PushStyleColor(ImGuiCol_Text, bad_color());
        text_wrappedf("A field needs fixing (%s); the plan below is the last valid one.", to_string(state.plan.issues.front()).c_str());
        ImGui::PopStyleColor();
        publish(state, "stale");
    }
    if (p.candidates.empty() && p.options.empty()) {
        ImGui::TextDisabled("No plan yet.");
        return summary;
    }
    if (summary.empty()) summary = summary_of(p);
    recommendation_card(state, catalog);
    if (ImGui::BeginTabBar("views##views")) {
        const struct { const char* label; View v; const char* name; bool shown; } tabs[] = {
            {"Devices##v_devices", View::candidates, "view:devices", true},
            {"Costs##v_costs", View::costs, "view:costs", true},
            {"Assumptions##v_assumptions", View::assumptions, "view:assumptions", true},
            {"Workload card##v_card", View::card, "view:card", true},
            {"What if##v_whatif", View::whatif, "view:whatif", true},
            {"Team##v_team", View::team, "view:team", true},
        };
        const bool pending = state.view != state.tab_shown; // a view set by code (a link, a team) not yet shown
        for (const auto& t : tabs) {
            if (!t.shown) continue;
            const ImGuiTabItemFlags flags = (pending && state.view == t.v) ? ImGuiTabItemFlags_SetSelected : 0;
            const bool open = ImGui::BeginTabItem(t.label, nullptr, flags);
            publish(state, t.name);
            if (!open) continue;
            if (!pending) state.view = t.v;
            if (state.view == t.v) state.tab_shown = t.v;
            begin_nested_child((std::string("view##") + t.name).c_str(), ImVec2(0, 0), ImGuiChildFlags_NavFlattened);
            switch (t.v) {
            case View::candidates: devices_view(state); break;
            case View::costs: costs_view(state); break;
            case View::assumptions: assumptions_view(state); break;
            case View::card: markdown_view(state.card_markdown); break;
            case View::whatif: whatif_view(state, catalog); break;
            case View::team: team_view(state, catalog); break;
            }
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    if (state.view == View::team && !state.team_markdown.empty() && state.plan.issues.empty()) {
        const auto fleet = state.team_markdown.find("Fleet cost: ");
        summary = "Team plan: " + state.team_name +
                  (fleet == std::string::npos ? "" : "; " + state.team_markdown.substr(fleet, state.team_markdown.find('*', fleet) - fleet));
    }
    return summary;
}

} // namespace hwplan::ui
