// panel_whatif.cpp: the what-if view. For the selected device only, the core's sweep() re-plans the workload
// with one input moved across a range (users, context, batch or utilization), and the charts draw what it
// returns: memory against the usable capacity, time to first token and its p95 against the target, per-user
// speed and throughput, and the rent and own cost per useful result with the buy-or-rent break-even. Below,
// the device's roofline with the workload's phases as points. Curves are computed only while this view is
// open, once per (document, device, count, input); hovering a point shows its exact value and its terms.
#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "charts.h"
#include "format.h"
#include "hwplan/guard.h"
#include "panels.h"
#include "theme.h"

namespace hwplan::ui {

namespace {

struct AxisInfo {
    const char* label;   // the radio button and the x axis
    const char* unit;    // x values' unit word
    bool log_x;
    const char* help;
};

AxisInfo info(SweepAxis a) {
    switch (a) {
    case SweepAxis::concurrent_users: return {"concurrent users", "users", true, "sequences decoding at once (serve.concurrent_users)"};
    case SweepAxis::context_tokens: return {"context length", "tokens", true, "tokens held per sequence (serve.context_tokens)"};
    case SweepAxis::batch_size: return {"batch size", "sequences", true, "sequences per step (serve.batch_size, embed.batch_size)"};
    case SweepAxis::utilization: return {"utilization", "ratio", false, "share of the month the devices do useful work (cost.utilization)"};
    }
    return {"", "", false, ""};
}

// A curve of one figure key across the sweep's points (points without it are left out of the line).
Curve curve_of(const Sweep& s, const std::string& key, const std::string& label) {
    Curve c{label, key, "", {}, {}};
    for (const auto& pt : s.points) {
        c.x.push_back(pt.x);
        auto it = pt.figures.find(key);
        c.y.push_back(it == pt.figures.end() ? Figure{NAN, NAN, NAN, Label::modelled, ""} : it->second);
    }
    return c;
}

bool has(const Sweep& s, const std::string& key) {
    for (const auto& pt : s.points)
        if (pt.figures.count(key)) return true;
    return false;
}

// Draws one chart and publishes its points ("whatif:<name>:<curve>:<point>") and the hovered value.
void chart(AppState& state, const std::string& name, CurveChart c, float height) {
    const float width = ImGui::GetContentRegionAvail().x - 10;
    const ChartHover h = curve_chart(("##whatif_" + name).c_str(), c, width, height);
    for (size_t ci = 0; ci < h.at.size(); ++ci)
        for (size_t i = 0; i < h.at[ci].size(); ++i)
            if (h.at[ci][i].x >= 0)
                state.widgets["whatif:" + name + ":" + std::to_string(ci) + ":" + std::to_string(i)] = {h.at[ci][i].x - 4, h.at[ci][i].y - 4, 8, 8};
    if (h.point >= 0 && !c.curves.empty()) {
        const Curve& first = c.curves.front();
        const Figure& f = first.y[h.point];
        nlohmann::json j{{"chart", name}, {"x", first.x[h.point]}, {"key", first.key}, {"label", first.label},
                         {"text", show_band(first.unit(), f)}, {"why", f.why}};
        for (const char* k : {"value", "low", "high"}) {
            const double v = k[0] == 'v' ? f.value : k[0] == 'l' ? f.low : f.high;
            j[k] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
        }
        state.hover = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    ImGui::Spacing();
}

void heading(const std::string& text) {
    ImGui::PushFont(bold_font(), 0.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopFont();
}

} // namespace

void whatif_view(AppState& state, const Catalog& catalog) {
    const Plan& p = state.shown;
    if (p.candidates.empty()) {
        ImGui::TextDisabled("No device to draw.");
        return;
    }
    if (state.selected < 0 || state.selected >= static_cast<int>(p.candidates.size())) state.selected = 0;
    const Candidate& cand = p.candidates[state.selected];

    // The device (the selected candidate, shared with the devices view) and the input to move.
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Device");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::min(320.0f, ImGui::GetContentRegionAvail().x * 0.4f));
    if (ImGui::BeginCombo("##whatif_device", (cand.device_name + " x" + std::to_string(cand.count)).c_str(), ImGuiComboFlags_HeightLarge)) {
        for (int i = 0; i < static_cast<int>(p.candidates.size()); ++i) {
            const auto& c = p.candidates[i];
            if (ImGui::Selectable((c.device_name + " x" + std::to_string(c.count) + (c.fits ? "" : "  (does not fit)") + "##wd" + std::to_string(i)).c_str(),
                                  i == state.selected))
                state.selected = i;
            state.widgets["whatif:device:" + c.device] = item_rect();
        }
        ImGui::EndCombo();
    }
    publish(state, "whatif:device");
    const auto axes = sweep_axes(p.stage);
    state.whatif_axis = std::clamp(state.whatif_axis, 0, static_cast<int>(axes.size()) - 1);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Vary");
    ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 1.0f); // the unchosen circles stay visible on either theme
    for (int i = 0; i < static_cast<int>(axes.size()); ++i) {
        ImGui::SameLine(0, i ? 16 : 8);
        if (ImGui::RadioButton((std::string(info(axes[i]).label) + "##axis" + std::to_string(i)).c_str(), state.whatif_axis == i)) state.whatif_axis = i;
        publish(state, "whatif:axis:" + std::string(name(axes[i])));
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info(axes[i]).help);
    }
    ImGui::PopStyleVar();
    const SweepAxis axis = axes[state.whatif_axis];
    const AxisInfo ai = info(axis);

    // The curves: computed once per document, device, count and input, and only here (the view is open).
    const std::string key = state.planned_json + "|" + cand.device + "|" + std::to_string(cand.count) + "|" + std::string(name(axis));
    if (key != state.sweep_key) {
        const auto t0 = std::chrono::steady_clock::now();
        state.sweep = guarded("sweep", [&] {
            Issues issues;
            const AssumptionSet as = assumptions_for(catalog, state.shown_workload.assumptions, issues);
            return sweep(state.shown_workload, catalog, as, cand.device, axis, default_sweep_points(state.shown_workload, axis), cand.count);
        }, [](const Issue& i) { // a bug in the core: the curves' named error, shown where their issues show (guard.h)
            Sweep failed;
            failed.issues = {i};
            return failed;
        });
        state.sweep_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        state.sweep_key = key;
    }
    const Sweep& s = state.sweep;
    ImGui::TextDisabled("Each point is a full plan of this workload on %s x%d with %s set to that value (hwplan sweep).", s.device_name.c_str(),
                        s.count, ai.label);
    if (!s.issues.empty()) {
        ImGui::TextColored(bad_color(), "%s", to_string(s.issues.front()).c_str());
        return;
    }
    const Workload& w = state.shown_workload;
    const double today = sweep_current_value(w, axis);
    auto base = [&](const std::string& x_key) {
        CurveChart c;
        c.x_label = std::string(ai.label) + (x_key == "ratio" ? " (% of the month)" : "");
        c.x_key = x_key;
        c.log_x = ai.log_x;
        c.today_x = today;
        return c;
    };
    const float h = std::clamp(ImGui::GetContentRegionAvail().y * 0.42f, 170.0f, 260.0f);
    if (axis == SweepAxis::utilization) {
        heading("Cost per useful result, renting against owning (" + unit_label(s.unit) + ")");
        if (!has(s, "own_cost") && !has(s, "rent_cost")) {
            ImGui::TextDisabled("%s has no price in the catalog for this workload.", s.device_name.c_str());
        } else {
            CurveChart c = base("ratio");
            if (has(s, "rent_cost")) c.curves.push_back(curve_of(s, "rent_cost", "rent"));
            if (has(s, "own_cost")) c.curves.push_back(curve_of(s, "own_cost", "own (bought, amortized)"));
            for (auto& cv : c.curves) cv.format_key = s.unit;
            if (s.breakeven_utilization > 0) {
                c.cross_x = s.breakeven_utilization;
                c.cross_label = "break-even " + format_sig(100 * s.breakeven_utilization, 3) + " %";
            }
            chart(state, "cost", c, h);
            ImGui::TextWrapped("%s", s.breakeven_utilization > 0
                                         ? ("Owning is cheaper per useful result above " + format_sig(100 * s.breakeven_utilization, 3) +
                                            " % utilization; below it, renting is.").c_str()
                                         : "The curves do not cross between 5 % and 100 % utilization.");
        }
        if (has(s, "own_usd_per_month") || has(s, "rent_usd_per_month")) {
            heading("A month at the workload's usage");
            CurveChart c = base("ratio");
            if (has(s, "rent_usd_per_month")) c.curves.push_back(curve_of(s, "rent_usd_per_month", "rent a month"));
            if (has(s, "own_usd_per_month")) c.curves.push_back(curve_of(s, "own_usd_per_month", "own a month"));
            chart(state, "monthly", c, h * 0.8f);
        }
    } else if (p.stage == Stage::embed) {
        heading("Items per second");
        CurveChart c = base(ai.unit);
        c.curves.push_back(curve_of(s, "items_per_s", "items/s"));
        chart(state, "items", c, h);
    } else {
        if (axis != SweepAxis::batch_size) {
            heading("Memory per device against what it can use");
            CurveChart c = base(ai.unit);
            c.curves.push_back(curve_of(s, "memory_bytes", "memory per device"));
            c.limit_y = s.points.front().figures.count("capacity_bytes") ? s.points.front().figures.at("capacity_bytes").value : -1;
            c.limit_label = "usable " + show_bytes(c.limit_y);
            chart(state, "memory", c, h);
            heading("Time to first token");
            CurveChart t = base(ai.unit);
            t.curves.push_back(curve_of(s, "ttft_s", "time to first token"));
            if (has(s, "p95_ttft_s")) t.curves.push_back(curve_of(s, "p95_ttft_s", "p95 under load"));
            if (w.serve.ttft_target_s > 0) {
                t.limit_y = w.serve.ttft_target_s;
                t.limit_label = "target " + show_figure("ttft_s", w.serve.ttft_target_s);
            }
            chart(state, "ttft", t, h);
            if (!has(s, "p95_ttft_s")) ImGui::TextDisabled("p95 under load needs an arrival rate (serve.requests_per_s).");
        }
        heading("Throughput, all users together");
        CurveChart t = base(ai.unit);
        t.curves.push_back(curve_of(s, "throughput_tokens_per_s", "throughput (tokens/s)"));
        chart(state, "throughput", t, h);
        heading("Speed each user sees");
        CurveChart u = base(ai.unit);
        u.curves.push_back(curve_of(s, "decode_tokens_per_s_per_user", "tokens/s per user"));
        if (w.serve.tokens_per_s_per_user_target > 0) {
            u.limit_y = w.serve.tokens_per_s_per_user_target;
            u.limit_label = "target " + show_figure("decode_tokens_per_s_per_user", w.serve.tokens_per_s_per_user_target);
        }
        chart(state, "per_user", u, h);
    }
    if (!cand.phases.empty()) {
        ImGui::Separator();
        heading("Roofline of " + cand.device_name + ": each phase against the compute and bandwidth ceilings");
        roofline_chart(cand, ImGui::GetContentRegionAvail().x - 10, 240);
        publish(state, "whatif:roofline");
    }
}

} // namespace hwplan::ui
