// cost_test.cpp: device-hour costs, hand-computed.
#include "hwplan/cost.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hwplan {

namespace {

Device priced_device() {
    Device d;
    d.id = "test-gpu";
    d.tdp_w = 500;
    d.can_buy = d.can_rent = true;
    d.prices = {{PriceKind::cloud_on_demand, 0, 2.5, "cloud A", "s"}, {PriceKind::cloud_on_demand, 0, 1.9, "cloud B", "s"},
                {PriceKind::purchase, 10000, 0, "list", "s"}};
    return d;
}

CostDefaults defaults() {
    CostDefaults c;
    c.electricity_usd_per_j = 0.10 / 3.6e6; // $0.10 per kWh
    c.pue_ratio = 1.5;
    c.amortization_s = 4 * 365.25 * 86400;  // 4 years
    return c;
}

} // namespace

TEST(Cost, RentTakesTheWorkloadPriceElseTheLowestOnDemand) {
    const Device d = priced_device();
    EXPECT_DOUBLE_EQ(rent_cost(d, {}).usd_per_hour, 1.9);
    EXPECT_DOUBLE_EQ(rent_cost(d, {.usd_per_device_hour = 3.0}).usd_per_hour, 3.0);
    Device none = d;
    none.prices.clear();
    EXPECT_FALSE(rent_cost(none, {}).available);
}

TEST(Cost, HoursUsedPerMonth) {
    EXPECT_DOUBLE_EQ(hours_used_per_month({.hours_per_month = 100}), 100);
    // Lesson 001's solo researcher: 2.5 jobs a week of 5 hours = 2.5 x 5 x 52 / 12 = 54.17 hours a month.
    EXPECT_NEAR(hours_used_per_month({.jobs_per_week = 2.5, .hours_per_job = 5}), 54.1667, 1e-3);
    EXPECT_EQ(hours_used_per_month({}), 0);
}

// $10,000 over 4 years (35,040 h) = $0.2854/h, at 50 % utilization $0.5708 per hour used, plus
// 500 W x PUE 1.5 x $0.10/kWh = $0.075/h of power: $0.6458 per hour used.
TEST(Cost, OwnAmortizesOverTheHoursActuallyUsedPlusPower) {
    Workload w;
    w.cost.utilization = 0.5;
    const HourlyCost own = own_cost(priced_device(), w, defaults());
    ASSERT_TRUE(own.available);
    EXPECT_NEAR(own.usd_per_hour, 10000.0 / 35040 / 0.5 + 0.075, 1e-9);
    Device rented_only = priced_device();
    rented_only.can_buy = false;
    EXPECT_FALSE(own_cost(rented_only, w, defaults()).available);
}

TEST(Cost, RackPricesAreSplitPerAccelerator) {
    Device rack = priced_device();
    rack.system_accelerators = 72;
    rack.prices = {{PriceKind::purchase, 3.6e6, 0, "rack", "s"}};
    EXPECT_DOUBLE_EQ(purchase_usd_per_device(rack), 50000);
}

// Break-even: $8,000 / (($1.39 - $0.0854) x 54.17 h a month) = 113 months; never when renting is
// cheaper than the power alone.
TEST(Cost, BreakevenMonths) {
    const double power = 0.4 * 1.58 * 0.1351;
    EXPECT_NEAR(breakeven_months(8000, 1.39, power, 2.5 * 5 * 52 / 12.0), 8000 / ((1.39 - power) * 2.5 * 5 * 52 / 12.0), 1e-9);
    EXPECT_TRUE(std::isinf(breakeven_months(8000, 0.05, 0.1, 100)));
}

} // namespace hwplan
