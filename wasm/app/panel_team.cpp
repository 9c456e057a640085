// panel_team.cpp: the team view. A team is a document {"name", "cards": [workload, ...]} planned by the
// core's team_plan() (the same function as `hwplan team`): the fleet's monthly cost on top, then the cards
// side by side, each with its recommendation and monthly cost, and buttons to open it in the form, save the
// form into it, duplicate or remove it; "Add the form's workload" appends a card. The team is re-planned
// only when its document changes.
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "bridge.h"
#include "format.h"
#include "hwplan/card.h"
#include "hwplan/guard.h"
#include "panels.h"
#include "theme.h"
#include "workload_doc.h"

namespace hwplan::ui {

namespace {

std::string card_name(const nlohmann::json& card, size_t i) {
    return card.is_object() && card.contains("name") && card["name"].is_string() ? card["name"].get<std::string>() : "card " + std::to_string(i + 1);
}

// The fleet: the devices each card's recommendation uses, added up ("2 x NVIDIA L4, 1 managed API endpoint(s)").
std::string fleet_line(const TeamPlan& t, const Catalog& catalog) {
    std::map<std::string, int> fleet;
    int apis = 0;
    for (const auto& p : t.plans)
        if (p.recommendation.found) {
            const Option& o = p.recommendation.option;
            if (o.kind == "api") ++apis;
            else fleet[o.device] += o.count;
        }
    std::string line;
    for (const auto& [id, n] : fleet) {
        const Device* d = catalog.device_by_id(id);
        line += (line.empty() ? "" : ", ") + std::to_string(n) + " x " + (d ? d->name : id);
    }
    if (apis) line += (line.empty() ? "" : ", ") + std::to_string(apis) + " managed API endpoint(s)";
    return line;
}

// The team document was edited here: plan it again (a team scenario becomes "edited", so its link carries it).
void edited(AppState& state) {
    if (state.team_id.empty() || state.team_id != "edited") state.team_id = "edited";
}

} // namespace

void refresh_team(AppState& state, const Catalog& catalog) {
    if (state.team_doc.is_null()) return;
    const std::string doc = state.team_doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (doc == state.team_planned) return;
    state.team_planned = doc;
    guarded("team", [&] {
        state.team = team_plan(doc, catalog);
        state.team_markdown = state.team.issues.empty() ? render_team(state.team, catalog) : std::string();
    }, [&](const Issue& i) { // a bug in the core: the team's named error (guard.h)
        state.team = TeamPlan{};
        state.team.issues = {i};
        state.team_markdown.clear();
        state.notice = to_string(i);
    });
    state.team_name = state.team_doc.value("name", std::string("team"));
}

std::string published_id(const std::string& text) {
    std::string out;
    for (char ch : text)
        if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-') out += ch;
    return out;
}

// [SECTION] the card at the top, in the Team view: the team's answer ---------------------------------------
// The fleet and its monthly cost in one sentence (as render_team and `hwplan team` say it), then each job's
// decision in a line (its recommendation.headline). Published: "reco:team" and "reco:fleet:USD" (the cost
// as format_sig writes it, 4 digits), which tests compare with `hwplan team --format json`.
void team_card(AppState& state, const Catalog& catalog) {
    refresh_team(state, catalog);
    const TeamPlan& t = state.team;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrappedf("The team's answer for %zu workload(s) (the form edits one card at a time; the other views show the form's own plan)",
                       state.team_doc.contains("cards") && state.team_doc["cards"].is_array() ? state.team_doc["cards"].size() : size_t(0));
    ImGui::PopStyleColor();
    ImGui::PushStyleColor(ImGuiCol_Text, t.issues.empty() ? good_color() : bad_color());
    ImGui::PushFont(bold_font(), 19.0f);
    text_wrappedf("Team plan: %s", state.team_name.c_str());
    ImGui::PopFont();
    ImGui::PopStyleColor();
    publish(state, "recommendation");
    publish(state, "reco:team");
    if (!t.issues.empty()) {
        text_wrappedf("A card needs fixing: %s", to_string(t.issues.front()).c_str());
        return;
    }
    const std::string fleet = fleet_line(t, catalog);
    ImGui::PushFont(bold_font(), 0.0f);
    text_wrappedf("Fleet: %s; $%s a month.", fleet.empty() ? "nothing feasible yet" : fleet.c_str(), format_sig(t.usd_per_month, 4).c_str());
    ImGui::PopFont();
    publish(state, "reco:fleet:" + published_id(format_sig(t.usd_per_month, 4)));
    for (size_t i = 0; i < t.plans.size() && i < t.workloads.size(); ++i) {
        const Plan& p = t.plans[i];
        const std::string job = t.workloads[i].name.empty() ? "card " + std::to_string(i + 1) : t.workloads[i].name;
        ImGui::Bullet();
        ImGui::PushStyleColor(ImGuiCol_Text, p.recommendation.found ? good_color() : bad_color());
        ImGui::TextUnformatted((job + ":").c_str());
        ImGui::PopStyleColor();
        ImGui::SameLine();
        text_wrapped(p.recommendation.headline.c_str());
        publish(state, "reco:job:" + std::to_string(i));
    }
    if (!t.unpriced.empty()) {
        std::string u;
        for (const auto& x : t.unpriced) u += (u.empty() ? "" : "; ") + x;
        ImGui::TextDisabled("Not in the monthly cost: %s", u.c_str());
    }
}

void team_view(AppState& state, const Catalog& catalog) {
    if (state.team_doc.is_null()) {
        text_wrappedf("A team plan puts several workloads side by side (a chat endpoint, a nightly batch, a fine-tune) and adds up the "
                           "fleet and its monthly cost. Start one with the workload in the form, then add, duplicate or remove cards.");
        if (ImGui::Button("Start a team with this workload")) {
            remember(state); // Undo brings the team back as it was
            state.team_doc = {{"name", "My team"}, {"cards", nlohmann::json::array({state.workload})}};
            state.team_open_card = 0;
            edited(state);
        }
        publish(state, "team:start");
        ImGui::TextDisabled("Or pick a team from the worked examples (marked [team]), or paste a team JSON.");
        return;
    }
    refresh_team(state, catalog);
    const TeamPlan& t = state.team;
    auto& cards = state.team_doc["cards"];

    // [SECTION] the fleet and its monthly cost
    ImGui::PushFont(bold_font(), 18.0f);
    text_wrappedf("Team plan: %s", state.team_name.c_str());
    ImGui::PopFont();
    if (!t.issues.empty()) {
        ImGui::TextColored(bad_color(), "A card needs fixing: %s", to_string(t.issues.front()).c_str());
    } else {
        ImGui::PushFont(bold_font(), 0.0f);
        ImGui::Text("Fleet cost: $%s a month", format_sig(t.usd_per_month, 4).c_str()); // as render_team and `hwplan team` say it
        ImGui::PopFont();
        publish(state, "team:fleet");
        ImGui::SameLine();
        ImGui::TextDisabled("for %zu card(s) with a monthly figure", t.plans.size() - t.unpriced.size());
        for (const auto& u : t.unpriced) ImGui::TextDisabled("not included: %s", u.c_str());
        const std::string line = fleet_line(t, catalog);
        text_wrappedf("Fleet: %s.", line.empty() ? "nothing feasible yet" : line.c_str());
    }
    if (ImGui::Button("Add the form's workload")) {
        remember(state); // Undo brings the team back as it was
        cards.push_back(state.workload);
        state.team_open_card = static_cast<int>(cards.size()) - 1;
        edited(state);
    }
    publish(state, "team:add");
    ImGui::SameLine();
    if (ImGui::Button("Download the team JSON")) {
        const std::string text = state.team_doc.dump(2);
        hwplan_download("hwplan.team.json", "application/json", text.c_str());
    }
    publish(state, "team:download");
    ImGui::SameLine();
    ImGui::TextDisabled("plans with: hwplan team FILE");

    // [SECTION] the cards, side by side (a row that scrolls sideways when they do not fit)
    const float card_w = std::clamp(ImGui::GetContentRegionAvail().x / static_cast<float>(std::min<size_t>(3, std::max<size_t>(1, cards.size()))) - 10,
                                    260.0f, 380.0f);
    begin_nested_child("cards##team_cards", ImVec2(0, 0), ImGuiChildFlags_NavFlattened, ImGuiWindowFlags_HorizontalScrollbar);
    int remove = -1, duplicate = -1;
    const std::string form_doc = state.workload.dump();
    for (size_t i = 0; i < cards.size(); ++i) {
        if (i) ImGui::SameLine();
        const std::string id = std::to_string(i);
        begin_nested_child(("card##team_card" + id).c_str(), ImVec2(card_w, 0), ImGuiChildFlags_Borders | ImGuiChildFlags_NavFlattened);
        const bool open = state.team_open_card == static_cast<int>(i);
        ImGui::PushFont(bold_font(), 0.0f);
        text_wrapped(card_name(cards[i], i).c_str());
        ImGui::PopFont();
        publish(state, "team:card:" + id);
        // The card's actions first, so they are in view however long the card is.
        if (ImGui::SmallButton(("Open in form##open" + id).c_str())) {
            remember(state);
            state.workload = cards[i];
            state.scenario_id.clear();
            state.scenario_json.clear();
            sync_text(state);
            state.team_open_card = static_cast<int>(i);
        }
        publish(state, "team:open:" + id);
        ImGui::SameLine();
        if (ImGui::SmallButton(("Duplicate##dup" + id).c_str())) duplicate = static_cast<int>(i);
        publish(state, "team:duplicate:" + id);
        ImGui::SameLine();
        ImGui::BeginDisabled(cards.size() <= 1);
        if (ImGui::SmallButton(("Remove##rm" + id).c_str())) remove = static_cast<int>(i);
        ImGui::EndDisabled();
        publish(state, "team:remove:" + id);
        if (open && form_doc != cards[i].dump()) {
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().accent), "The form has changes for this card.");
            if (ImGui::SmallButton(("Save the form into this card##save" + id).c_str())) {
                remember(state); // Undo brings the team back as it was
                cards[i] = state.workload;
                edited(state);
            }
            publish(state, "team:save:" + id);
        } else if (open) {
            ImGui::TextDisabled("(open in the form)");
        }
        ImGui::Separator();
        if (i < t.plans.size() && t.issues.empty()) {
            const Plan& p = t.plans[i];
            ImGui::TextDisabled("%s, %s", std::string(name(p.stage)).c_str(), p.model_name.c_str());
            const double m = i < t.card_usd_per_month.size() ? t.card_usd_per_month[i] : -1;
            ImGui::PushFont(bold_font(), 0.0f);
            ImGui::Text("%s a month", m >= 0 ? ("$" + format_sig(m, 4)).c_str() : "not priced");
            ImGui::PopFont();
            publish(state, "team:card_month:" + id);
            if (m < 0) ImGui::TextDisabled("(no usage given: jobs a week, hours a month)");
            if (p.recommendation.found) {
                const Option& o = p.recommendation.option;
                ImGui::PushStyleColor(ImGuiCol_Text, good_color());
                text_wrapped(o.name.c_str());
                ImGui::PopStyleColor();
                text_wrappedf("%s %s", o.cost.value > 0 ? show_figure(o.unit, o.cost.value).c_str() : "-", unit_label(o.unit).c_str());
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.recommendation.summary.c_str());
            } else {
                ImGui::TextColored(bad_color(), "No feasible option");
            }
        }
        ImGui::EndChild();
    }
    ImGui::EndChild();
    if (duplicate >= 0) {
        remember(state); // Undo brings the team back as it was
        nlohmann::json copy = cards[duplicate];
        if (copy.is_object()) copy["name"] = card_name(copy, duplicate) + " (copy)";
        cards.insert(cards.begin() + duplicate + 1, copy);
        edited(state);
    }
    if (remove >= 0 && cards.size() > 1) {
        remember(state); // Undo brings the team back as it was
        cards.erase(cards.begin() + remove);
        if (state.team_open_card == remove) state.team_open_card = -1;
        else if (state.team_open_card > remove) --state.team_open_card;
        edited(state);
    }
}

} // namespace hwplan::ui
