// hwplan/sweep.h: what-if curves. One input of a workload (users, context, batch, utilization) is set to
// each of a list of values and the workload is planned again on one device at a fixed count; each point
// keeps the figures the page draws (memory against capacity, time to first token and its p95, per-user
// speed and throughput, the rent and own cost per useful result), each with its low .. high band and the
// terms that make it up. A curve is exactly plan() at its points: the page draws what the CLI computes.
// Usage: Sweep s = sweep(workload, catalog, assumptions, "h100-sxm", SweepAxis::concurrent_users, {1, 2, 4});
//        for (auto& pt : s.points) draw(pt.x, pt.figures["ttft_s"]);
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwplan/plan.h"

namespace hwplan {

// The input a curve varies. concurrent_users, context_tokens and batch_size are serving inputs
// (serve.*; batch_size is embed.batch_size for an embedding job); utilization is cost.utilization.
enum class SweepAxis { concurrent_users, context_tokens, batch_size, utilization };

struct SweepPoint {
    double x = 0;                           // the axis value planned
    bool fits = false;                      // the candidate fits at this value
    Figures figures;                        // the candidate's figures, plus "memory_bytes" (per device, banded over
                                            // the overheads), "capacity_bytes", and where priced "rent_cost" / "own_cost"
                                            // (USD per useful result, in Sweep::unit)
    bool operator==(const SweepPoint&) const = default;
};

struct Sweep {
    SweepAxis axis = SweepAxis::concurrent_users;
    std::string device;                     // catalog id
    std::string device_name;
    int count = 1;                          // devices per replica, the same at every point
    std::string unit;                       // the useful result the costs price ("usd_per_million_output_tokens", ...)
    std::vector<SweepPoint> points;         // in the order given
    // The utilization where owning becomes as cheap per useful result as renting, by linear interpolation
    // between the two points whose (own - rent) change sign; < 0 when the curves do not cross in the range.
    double breakeven_utilization = -1;
    Issues issues;                          // bad device, axis or points: then points is empty
};

// Axes that make sense for the workload's stage (the utilization axis always; the serving ones for
// serve, batch and edge; batch_size for embed).
std::vector<SweepAxis> sweep_axes(Stage stage);

// Values spread over a useful range around the workload's current value: powers of two for users,
// context and batch (the current value included), 5 % steps for utilization.
std::vector<double> default_sweep_points(const Workload& workload, SweepAxis axis);
// The workload's own value of the axis (the batch of a serve job is its users when no batch is given).
double sweep_current_value(const Workload& workload, SweepAxis axis);

// Plans `workload` with the axis input set to each of `points`, on `device` alone at `count` devices
// per replica (0: the count plan() picks for the workload as given).
Sweep sweep(const Workload& workload, const Catalog& catalog, const AssumptionSet& assumptions, const std::string& device,
            SweepAxis axis, const std::vector<double>& points, int count = 0);

// The workload with the axis input set to `value` on `device` at `count`: the exact workload a point plans.
Workload sweep_workload(const Workload& workload, const std::string& device, SweepAxis axis, double value, int count);

std::string_view name(SweepAxis axis);                      // "concurrent_users", ...
std::optional<SweepAxis> sweep_axis_from(std::string_view name);

} // namespace hwplan
