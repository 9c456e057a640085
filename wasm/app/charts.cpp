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
    // The name column is as wide as the longest name (at most 45 % of the chart); a longer name is shortened
    // with "..." and shown whole on hover, so no name runs into the bars.
    float names_w = 0, values_w = 0;
    for (const auto* o : rows) {
        names_w = std::max(names_w, ImGui::CalcTextSize(o->name.c_str()).x);
        values_w = std::max(values_w, ImGui::CalcTextSize(show_figure(o->unit, o->cost.value).c_str()).x);
    }
    const float row_h = ImGui::GetFrameHeight(), label_w = std::min(names_w + 18, width * 0.45f), value_w = values_w + 16;
    auto fit_text = [](std::string s, float w) {
        if (ImGui::CalcTextSize(s.c_str()).x <= w) return s;
        while (!s.empty() && ImGui::CalcTextSize((s + "...").c_str()).x > w) {
            s.pop_back();
            while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back(); // a whole UTF-8 character
            if (!s.empty() && static_cast<unsigned char>(s.back()) >= 0xC0) s.pop_back();
        }
        return s + "...";
    };
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
        plot.dl->AddText(ImVec2(plot.min.x + 6, y + 2), o.feasible ? pal.text : pal.muted, fit_text(o.name, label_w - 14).c_str());
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

// [SECTION] what-if curves ----------------------------------------------------------------------------------
namespace hwplan::ui {

std::string show_axis_value(const std::string& x_key, double x) {
    if (x_key == "ratio") return format_sig(100 * x, 3) + " %";
    return format_sig(x, 6) + (x_key.empty() ? "" : " " + x_key);
}

ChartHover curve_chart(const char* id, const CurveChart& chart, float width, float height) {
    ChartHover out;
    const Palette& pal = palette();
    if (chart.curves.empty() || chart.curves.front().x.empty()) {
        ImGui::TextDisabled("Nothing to draw for this input.");
        return out;
    }
    const std::vector<double>& xs = chart.curves.front().x;
    // Data range: x over the points; y from 0 to the highest band end (and the limit line) plus headroom.
    const double xlo = xs.front(), xhi = std::max(xs.back(), xs.front() * (chart.log_x ? 2 : 1) + (chart.log_x ? 0 : 1e-9));
    double yhi = 0;
    for (const auto& c : chart.curves)
        for (const auto& f : c.y)
            for (double v : {f.value, f.high})
                if (std::isfinite(v)) yhi = std::max(yhi, v);
    // A limit far above the data (a 2 s target over 30 ms answers) would flatten the curves: it is then named
    // in a corner instead of drawn to scale.
    const bool limit_in_range = chart.limit_y > 0 && chart.limit_y <= 3 * yhi;
    if (limit_in_range) yhi = std::max(yhi, chart.limit_y);
    if (yhi <= 0) yhi = 1;
    yhi *= 1.12;
    const std::string& ykey = chart.curves.front().unit();
    float label_w = 0; // the y labels' column is as wide as its widest label
    for (int k = 1; k <= 4; ++k) label_w = std::max(label_w, ImGui::CalcTextSize(show_figure(ykey, yhi / 1.12 * k / 4).c_str()).x);
    const float pad_l = label_w + 14, pad_r = 14, pad_t = 10, pad_b = 38;
    Plot plot = begin_plot(width, height);
    const float px0 = plot.min.x + pad_l, px1 = plot.max.x - pad_r, py0 = plot.max.y - pad_b, py1 = plot.min.y + pad_t;
    auto fx = [&](double x) {
        const double t = chart.log_x ? (std::log(x) - std::log(xlo)) / (std::log(xhi) - std::log(xlo)) : (x - xlo) / (xhi - xlo);
        return px0 + static_cast<float>(t) * (px1 - px0);
    };
    auto fy = [&](double y) { return py0 - static_cast<float>(std::clamp(y, 0.0, yhi) / yhi) * (py0 - py1); };
    // Grid and tick labels: five y levels; each x point (every other one when crowded).
    for (int k = 0; k <= 4; ++k) {
        const double y = yhi / 1.12 * k / 4;
        plot.dl->AddLine(ImVec2(px0, fy(y)), ImVec2(px1, fy(y)), pal.grid);
        const std::string t = k == 0 ? std::string("0") : show_figure(ykey, y);
        plot.dl->AddText(ImVec2(px0 - 6 - ImGui::CalcTextSize(t.c_str()).x, fy(y) - ImGui::GetTextLineHeight() * 0.5f), pal.muted, t.c_str());
    }
    const size_t every = xs.size() > 12 ? (xs.size() + 11) / 12 : 1;
    float last_label_end = -1e9f;
    for (size_t i = 0; i < xs.size(); ++i) {
        const float x = fx(xs[i]);
        plot.dl->AddLine(ImVec2(x, py1), ImVec2(x, py0), pal.grid);
        const std::string t = format_sig(chart.x_key == "ratio" ? 100 * xs[i] : xs[i], 4);
        const float w = ImGui::CalcTextSize(t.c_str()).x;
        if (i % every != 0 || x - w * 0.5f < last_label_end + 6) continue;
        plot.dl->AddText(ImVec2(x - w * 0.5f, py0 + 3), pal.muted, t.c_str());
        last_label_end = x + w * 0.5f;
    }
    {
        const std::string t = chart.x_label + (chart.log_x ? " (log scale)" : "");
        plot.dl->AddText(ImVec2((px0 + px1) * 0.5f - ImGui::CalcTextSize(t.c_str()).x * 0.5f, py0 + 3 + ImGui::GetTextLineHeight()), pal.text, t.c_str());
    }
    // Markers: the workload's value, the limit, the crossing.
    if (chart.today_x > 0 && chart.today_x >= xlo && chart.today_x <= xhi) {
        const float x = fx(chart.today_x);
        for (float y = py1; y < py0; y += 8) plot.dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 4, py0)), pal.text, 1.0f);
        plot.dl->AddText(ImVec2(x + 4, py1), pal.text, "this workload");
    }
    if (chart.limit_y > 0 && !limit_in_range) {
        const std::string t = chart.limit_label + ": above this range";
        // One line below the top, so it never sits on the "this workload" marker's label.
        plot.dl->AddText(ImVec2(px1 - ImGui::CalcTextSize(t.c_str()).x - 4, py1 + ImGui::GetTextLineHeight() + 2), pal.bad, t.c_str());
    } else if (chart.limit_y > 0) {
        plot.dl->AddLine(ImVec2(px0, fy(chart.limit_y)), ImVec2(px1, fy(chart.limit_y)), pal.bad, 2.0f);
        const float w = ImGui::CalcTextSize(chart.limit_label.c_str()).x;
        plot.dl->AddText(ImVec2(px1 - w - 4, fy(chart.limit_y) - ImGui::GetTextLineHeight() - 1), pal.bad, chart.limit_label.c_str());
    }
    if (chart.cross_x > 0 && chart.cross_x >= xlo && chart.cross_x <= xhi) {
        const float x = fx(chart.cross_x);
        plot.dl->AddLine(ImVec2(x, py1), ImVec2(x, py0), pal.accent, 2.0f);
        const float w = ImGui::CalcTextSize(chart.cross_label.c_str()).x;
        plot.dl->AddText(ImVec2(x + w + 8 < px1 ? x + 4 : x - w - 4, py1 + ImGui::GetTextLineHeight()), pal.accent, chart.cross_label.c_str());
    }
    // Curves: the band as a shaded range, then the typical line and its points.
    out.at.resize(chart.curves.size());
    for (size_t ci = 0; ci < chart.curves.size(); ++ci) {
        const Curve& c = chart.curves[ci];
        const ImU32 col = pal.series[ci % std::size(pal.series)];
        const ImU32 band = (col & ~IM_COL32_A_MASK) | (60u << IM_COL32_A_SHIFT);
        std::vector<ImVec2> line;
        for (size_t i = 0; i < c.x.size() && i < c.y.size(); ++i) {
            const Figure& f = c.y[i];
            const bool ok = std::isfinite(f.value) && f.value >= 0;
            out.at[ci].push_back(ok ? ImVec2(fx(c.x[i]), fy(f.value)) : ImVec2(-1, -1));
            if (i + 1 < c.x.size() && i + 1 < c.y.size()) {
                const Figure& g = c.y[i + 1];
                if (std::isfinite(f.low) && std::isfinite(f.high) && std::isfinite(g.low) && std::isfinite(g.high) && (f.low != f.high || g.low != g.high)) {
                    const ImVec2 quad[4] = {ImVec2(fx(c.x[i]), fy(f.low)), ImVec2(fx(c.x[i]), fy(f.high)), ImVec2(fx(c.x[i + 1]), fy(g.high)),
                                            ImVec2(fx(c.x[i + 1]), fy(g.low))};
                    plot.dl->AddConvexPolyFilled(quad, 4, band);
                }
            }
            if (ok) line.push_back(out.at[ci].back());
            if ((!ok || i + 1 == c.x.size()) && line.size() > 1) plot.dl->AddPolyline(line.data(), static_cast<int>(line.size()), col, ImDrawFlags_None, 2.0f);
            if (!ok) line.clear();
        }
        for (const ImVec2& q : out.at[ci])
            if (q.x >= 0) plot.dl->AddCircleFilled(q, 3.5f, col);
    }
    // Hover: the x column nearest the pointer.
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const bool inside = mouse.x >= plot.min.x && mouse.x < plot.max.x && mouse.y >= plot.min.y && mouse.y < plot.max.y;
    if (inside) {
        float best = 1e9f;
        for (size_t i = 0; i < xs.size(); ++i)
            if (std::fabs(fx(xs[i]) - mouse.x) < best) best = std::fabs(fx(xs[i]) - mouse.x), out.point = static_cast<int>(i);
        const float x = fx(xs[out.point]);
        plot.dl->AddLine(ImVec2(x, py1), ImVec2(x, py0), pal.text, 1.0f);
        for (size_t ci = 0; ci < out.at.size(); ++ci)
            if (static_cast<size_t>(out.point) < out.at[ci].size() && out.at[ci][out.point].x >= 0)
                plot.dl->AddCircle(out.at[ci][out.point], 7, pal.text, 0, 2.0f);
    }
    end_plot(plot, id);
    if (out.point >= 0 && !ImGui::IsItemHovered()) out.point = -1; // a popup or another window covers the chart
    if (out.point >= 0) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 34.0f);
        ImGui::PushFont(bold_font(), 0.0f);
        ImGui::Text("%s: %s", chart.x_label.c_str(), show_axis_value(chart.x_key, xs[out.point]).c_str());
        ImGui::PopFont();
        for (size_t ci = 0; ci < chart.curves.size(); ++ci) {
            const Curve& c = chart.curves[ci];
            if (static_cast<size_t>(out.point) >= c.y.size()) continue;
            const Figure& f = c.y[out.point];
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.series[ci % std::size(pal.series)]), "%s: %s", c.label.c_str(), show_band(c.unit(), f).c_str());
            if (!f.why.empty()) ImGui::TextDisabled("  %s: %s", std::string(name(f.label)).c_str(), f.why.c_str());
        }
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
    // Legend: one swatch per curve, then the markers.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float line_h = ImGui::GetTextLineHeight();
    for (size_t ci = 0; ci < chart.curves.size(); ++ci) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(ImVec2(p.x, p.y + line_h * 0.35f), ImVec2(p.x + line_h * 1.2f, p.y + line_h * 0.65f), pal.series[ci % std::size(pal.series)]);
        ImGui::Dummy(ImVec2(line_h * 1.3f, line_h));
        ImGui::SameLine();
        ImGui::TextUnformatted(chart.curves[ci].label.c_str());
        ImGui::SameLine(0, 18);
    }
    ImGui::TextDisabled("shaded: low .. high over the assumptions");
    return out;
}

} // namespace hwplan::ui
