// charts.cpp: the page's pictures (see charts.h). Every chart: compute the data range, map data to pixels
// with one transform, draw primitives clipped to the plot rectangle, then hover text with the exact value.
#include "charts.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "format.h"
#include "theme.h"

namespace hwplan::ui {

namespace {

struct Plot {
    ImVec2 min, max; // pixel rectangle
    ImDrawList* dl;
};

Plot begin_plot(float width, float height) {
    const ImVec2 o = ImGui::GetCursorScreenPos();
    Plot p{o, ImVec2(o.x + width, o.y + height), ImGui::GetWindowDrawList()};
    p.dl->AddRectFilled(p.min, p.max, palette().chart_bg, 4.0f);
    p.dl->PushClipRect(p.min, p.max, true);
    return p;
}

void end_plot(Plot& p, const char* id) {
    p.dl->PopClipRect();
    ImGui::InvisibleButton(id, ImVec2(p.max.x - p.min.x, p.max.y - p.min.y));
}

// Log-scale axis: value -> 0..1.
struct LogAxis {
    double lo, hi;
    float at(double v) const { return static_cast<float>((std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))); }
};

} // namespace

void memory_bar(const MemoryUse& m, float width, float height) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const double scale_max = std::max(m.total_bytes, m.capacity_bytes) * 1.05;
    if (scale_max <= 0) return;
    const Palette& pal = palette();
    auto x_of = [&](double bytes) { return origin.x + static_cast<float>(bytes / scale_max) * width; }; // data -> pixels
    dl->PushClipRect(origin, ImVec2(origin.x + width, origin.y + height), true);
    dl->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), pal.chart_bg);
    double at = 0;
    size_t i = 0;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const MemoryTerm* hovered = nullptr;
    for (const auto& t : m.terms) {
        if (t.bytes > 0) {
            const ImVec2 a(x_of(at), origin.y), b(x_of(at + t.bytes), origin.y + height);
            dl->AddRectFilled(a, b, pal.series[i % std::size(pal.series)]);
            if (mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y) hovered = &t;
            at += t.bytes;
        }
        ++i;
    }
    const float cap = x_of(m.capacity_bytes);
    dl->AddLine(ImVec2(cap, origin.y), ImVec2(cap, origin.y + height), pal.text, 2.0f);
    dl->PopClipRect();
    ImGui::Dummy(ImVec2(width, height + 4));
    if (hovered && ImGui::IsWindowHovered()) ImGui::SetTooltip("%s: %s\n%s", hovered->name.c_str(), show_bytes(hovered->bytes).c_str(), hovered->why.c_str());
    // Legend: one colour per term, then the capacity marker.
    i = 0;
    for (const auto& t : m.terms) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float line = ImGui::GetTextLineHeight();
        dl->AddRectFilled(ImVec2(p.x, p.y + line * 0.2f), ImVec2(p.x + line * 0.7f, p.y + line * 0.9f), pal.series[i++ % std::size(pal.series)]);
        ImGui::Dummy(ImVec2(line * 0.8f, line));
        ImGui::SameLine();
        ImGui::Text("%s %s", t.name.c_str(), show_bytes(t.bytes).c_str());
        ImGui::SameLine(0, 14);
        if (ImGui::GetContentRegionAvail().x < 160) ImGui::NewLine();
    }
    ImGui::Text("| usable %s", show_bytes(m.capacity_bytes).c_str());
}

void roofline_chart(const Candidate& c, float width, float height) {
    // Each phase: attained FLOP/s = flops / time; intensity = flops / bytes. The device's ceilings (for the
    // phase's precision) are min(peak, bandwidth x intensity) with peak = flops / compute_s and bandwidth =
    // bytes / memory_s, the achievable rates the core used (Williams et al., "Roofline", CACM 2009).
    struct Point { const Phase* phase; double x, y, peak, bw; };
    std::vector<Point> pts;
    for (const auto& ph : c.phases) {
        const auto& r = ph.roofline;
        if (r.flops <= 0 || r.bytes <= 0 || r.compute_s <= 0 || r.memory_s <= 0 || ph.time_s <= 0) continue;
        pts.push_back({&ph, r.intensity_flop_per_byte, r.flops / ph.time_s, r.flops / r.compute_s, r.bytes / r.memory_s});
    }
    if (pts.empty()) {
        ImGui::TextDisabled("No phase with both work and traffic to place.");
        return;
    }
    double xlo = 1e300, xhi = 0, ylo = 1e300, yhi = 0;
    for (const auto& p : pts) {
        xlo = std::min({xlo, p.x, p.peak / p.bw}), xhi = std::max({xhi, p.x, p.peak / p.bw});
        ylo = std::min(ylo, p.y), yhi = std::max(yhi, p.peak);
    }
    const LogAxis ax{xlo / 10, xhi * 10}, ay{ylo / 10, yhi * 2};
    const float pad_l = 70, pad_b = 22;
    Plot plot = begin_plot(width, height);
    const Palette& pal = palette();
    auto to_px = [&](double x, double y) {
        return ImVec2(plot.min.x + pad_l + ax.at(x) * (width - pad_l - 8), plot.max.y - pad_b - ay.at(y) * (height - pad_b - 8));
    };
    // Grid: decades.
    for (double d = std::pow(10, std::floor(std::log10(ax.lo))); d <= ax.hi; d *= 10) {
        const ImVec2 a = to_px(d, ay.lo);
        plot.dl->AddLine(ImVec2(a.x, plot.min.y), ImVec2(a.x, plot.max.y - pad_b), pal.grid);
        plot.dl->AddText(ImVec2(a.x - 10, plot.max.y - pad_b + 3), pal.muted, format_sig(d, 2).c_str());
    }
    for (double d = std::pow(10, std::floor(std::log10(ay.lo))); d <= ay.hi; d *= 10) {
        const ImVec2 a = to_px(ax.lo, d);
        plot.dl->AddLine(ImVec2(plot.min.x + pad_l, a.y), ImVec2(plot.max.x, a.y), pal.grid);
        plot.dl->AddText(ImVec2(plot.min.x + 4, a.y - 8), pal.muted, (format_sig(d / 1e12, 3) + " TFLOP/s").c_str());
    }
    // Ceilings: one per distinct (peak, bandwidth).
    for (size_t i = 0; i < pts.size(); ++i) {
        const auto& p = pts[i];
        bool dup = false;
        for (size_t j = 0; j < i; ++j) dup |= pts[j].peak == p.peak && pts[j].bw == p.bw;
        if (dup) continue;
        const double ridge = p.peak / p.bw;
        plot.dl->AddLine(to_px(ax.lo, p.bw * ax.lo), to_px(ridge, p.peak), pal.accent, 2.0f);
        plot.dl->AddLine(to_px(ridge, p.peak), to_px(ax.hi, p.peak), pal.accent, 2.0f);
    }
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const Point* hovered = nullptr;
    for (size_t i = 0; i < pts.size(); ++i) {
        const ImVec2 q = to_px(pts[i].x, pts[i].y);
        plot.dl->AddCircleFilled(q, 6, pal.series[(i + 1) % std::size(pal.series)]);
        plot.dl->AddText(ImVec2(q.x + 8, q.y - 8), pal.text, pts[i].phase->name.c_str());
        if (std::hypot(mouse.x - q.x, mouse.y - q.y) < 10) hovered = &pts[i];
    }
    plot.dl->AddText(ImVec2(plot.max.x - 220, plot.max.y - pad_b - 18), pal.muted, "intensity (FLOP per byte), log");
    end_plot(plot, "##roofline");
    if (hovered && ImGui::IsItemHovered()) {
        const auto& r = hovered->phase->roofline;
        ImGui::SetTooltip("%s (%s)\nintensity %s FLOP/byte (ridge %s)\nattained %s TFLOP/s of %s peak\n%s-bound: compute %s, memory %s, total %s",
                          hovered->phase->name.c_str(), hovered->phase->precision.c_str(), format_sig(r.intensity_flop_per_byte, 3).c_str(),
                          format_sig(r.ridge_flop_per_byte, 3).c_str(), format_sig(hovered->y / 1e12, 3).c_str(),
                          format_sig(hovered->peak / 1e12, 3).c_str(), r.compute_bound ? "compute" : "bandwidth",
                          format_figure("compute_s", r.compute_s).c_str(), format_figure("memory_s", r.memory_s).c_str(),
                          format_figure("time_s", hovered->phase->time_s).c_str());
    }
}

void cost_bars(const Plan& p, float width) {
    // The priced options in the plan's unit (the first priced option's), cheapest first as the core ranks them.
    std::vector<const Option*> rows;
    std::string unit;
    for (const auto& o : p.options) {
        if (o.cost.value <= 0) continue;
        if (unit.empty()) unit = o.unit;
        if (o.unit == unit && rows.size() < 14) rows.push_back(&o);
    }
    if (rows.empty()) {
        ImGui::TextDisabled("No option has a price for this workload.");
        return;
    }
    double hi = 0;
    for (const auto* o : rows) hi = std::max({hi, o->cost.high, o->cost.value});
    const float row_h = ImGui::GetFrameHeight(), label_w = std::min(300.0f, width * 0.38f), value_w = 110;
    const float height = row_h * static_cast<float>(rows.size()) + 22;
    Plot plot = begin_plot(width, height);
    const Palette& pal = palette();
    const float x0 = plot.min.x + label_w, x1 = plot.max.x - value_w;
    auto x_of = [&](double v) { return x0 + static_cast<float>(v / hi) * (x1 - x0); };
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const Option* hovered = nullptr;
    const std::string best = p.recommendation.found ? p.recommendation.option.name : std::string();
    for (size_t i = 0; i < rows.size(); ++i) {
        const Option& o = *rows[i];
        const float y = plot.min.y + 4 + row_h * static_cast<float>(i);
        const ImU32 col = o.name == best ? pal.good : o.feasible ? pal.series[0] : pal.muted;
        plot.dl->AddText(ImVec2(plot.min.x + 6, y + 2), o.feasible ? pal.text : pal.muted, o.name.c_str());
        plot.dl->AddRectFilled(ImVec2(x0, y + 3), ImVec2(x_of(o.cost.value), y + row_h - 3), col, 2.0f);
        if (o.cost.low != o.cost.high) { // the band as a range
            const float ym = y + row_h * 0.5f;
            plot.dl->AddLine(ImVec2(x_of(o.cost.low), ym), ImVec2(x_of(o.cost.high), ym), pal.text, 1.5f);
            plot.dl->AddLine(ImVec2(x_of(o.cost.low), ym - 4), ImVec2(x_of(o.cost.low), ym + 4), pal.text, 1.5f);
            plot.dl->AddLine(ImVec2(x_of(o.cost.high), ym - 4), ImVec2(x_of(o.cost.high), ym + 4), pal.text, 1.5f);
        }
        plot.dl->AddText(ImVec2(x1 + 6, y + 2), pal.text, show_figure(o.unit, o.cost.value).c_str());
        if (mouse.y >= y && mouse.y < y + row_h && mouse.x >= plot.min.x && mouse.x < plot.max.x) hovered = &o;
    }
    plot.dl->AddText(ImVec2(x0, plot.max.y - 18), pal.muted, ("USD " + unit_label(unit) + "; whiskers: low .. high").c_str());
    end_plot(plot, "##cost_bars");
    if (hovered && ImGui::IsItemHovered())
        ImGui::SetTooltip("%s\n%s %s (range %s .. %s)\n%s", hovered->name.c_str(), show_figure(hovered->unit, hovered->cost.value).c_str(),
                          unit_label(hovered->unit).c_str(), show_figure(hovered->unit, hovered->cost.low).c_str(),
                          show_figure(hovered->unit, hovered->cost.high).c_str(),
                          hovered->reasons.empty() ? "" : hovered->reasons.front().c_str());
}

void breakeven_chart(const Plan& p, float width, float height) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& [h, m] : p.breakeven_curve)
        if (std::isfinite(m) && m > 0) pts.push_back({h, m});
    if (pts.empty()) {
        ImGui::TextDisabled("Renting stays cheaper at every usage level.");
        return;
    }
    double xhi = 0, yhi = 0;
    for (const auto& [h, m] : pts) xhi = std::max(xhi, h), yhi = std::max(yhi, m);
    yhi = std::min(yhi, 240.0);
    const float pad_l = 60, pad_b = 22;
    Plot plot = begin_plot(width, height);
    const Palette& pal = palette();
    auto to_px = [&](double x, double y) {
        return ImVec2(plot.min.x + pad_l + static_cast<float>(x / xhi) * (width - pad_l - 10),
                      plot.max.y - pad_b - static_cast<float>(std::min(y, yhi) / yhi) * (height - pad_b - 10));
    };
    for (int k = 0; k <= 4; ++k) {
        const double y = yhi * k / 4, x = xhi * k / 4;
        plot.dl->AddLine(to_px(0, y), to_px(xhi, y), pal.grid);
        plot.dl->AddText(ImVec2(plot.min.x + 4, to_px(0, y).y - 8), pal.muted, (format_sig(y, 3) + " mo").c_str());
        plot.dl->AddText(ImVec2(to_px(x, 0).x - 10, plot.max.y - pad_b + 3), pal.muted, (format_sig(x, 3) + " h").c_str());
    }
    std::vector<ImVec2> line;
    for (const auto& [h, m] : pts) line.push_back(to_px(h, m));
    plot.dl->AddPolyline(line.data(), static_cast<int>(line.size()), pal.accent, ImDrawFlags_None, 2.0f);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const std::pair<double, double>* hovered = nullptr;
    for (size_t i = 0; i < pts.size(); ++i) {
        plot.dl->AddCircleFilled(line[i], 3.5f, pal.accent);
        if (std::fabs(mouse.x - line[i].x) < 8 && mouse.y >= plot.min.y && mouse.y < plot.max.y) hovered = &pts[i];
    }
    end_plot(plot, "##breakeven");
    if (hovered && ImGui::IsItemHovered())
        ImGui::SetTooltip("%s hours used a month: buying %s pays back in %s months", format_sig(hovered->first, 3).c_str(),
                          p.breakeven_device.c_str(), format_sig(hovered->second, 3).c_str());
}

} // namespace hwplan::ui
