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

// A server bought whole is priced per device, compared per device with a single card, and named in the
// purchase term: $48,000 / 8 = $6,000 per GPU loses to the $10,000 card only when the card is cheaper per device.
TEST(Cost, AServerPriceIsPerDeviceAndNamed) {
    Device d = priced_device();
    Price server{.kind = PriceKind::purchase, .usd = 48000, .provider = "quote", .source = "s"};
    server.devices_per_unit = 8;
    server.unit = "8-GPU server";
    d.prices.push_back(server);
    EXPECT_DOUBLE_EQ(devices_per_purchase(d, d.prices.back()), 8);
    EXPECT_DOUBLE_EQ(purchase_usd_per_device(d), 6000);
    const HourlyCost own = own_cost(d, Workload{}, defaults());
    ASSERT_TRUE(own.available);
    EXPECT_EQ(own.terms[0].value.find("$6000 per device"), 0u) << own.terms[0].value;
    EXPECT_NE(own.terms[0].value.find("(bought as 8-GPU server, $48000 for 8)"), std::string::npos) << own.terms[0].value;
    d.prices.back().usd = 96000; // $12,000 per GPU: the card wins and no unit is named
    EXPECT_DOUBLE_EQ(purchase_usd_per_device(d), 10000);
    EXPECT_EQ(own_cost(d, Workload{}, defaults()).terms[0].value.find("bought as"), std::string::npos);
}

// Break-even: $8,000 / (($1.39 - $0.0854) x 54.17 h a month) = 113 months; never when renting is
// cheaper than the power alone.
TEST(Cost, BreakevenMonths) {
    const double power = 0.4 * 1.58 * 0.1351;
    EXPECT_NEAR(breakeven_months(8000, 1.39, power, 2.5 * 5 * 52 / 12.0), 8000 / ((1.39 - power) * 2.5 * 5 * 52 / 12.0), 1e-9);
    EXPECT_TRUE(std::isinf(breakeven_months(8000, 0.05, 0.1, 100)));
}

// Colocation: $196/kW/month (defaults.json, Encor Advisors) on a 500 W board = $98 a month, paid whether
// the device works or not; none at a desk. By hand at 100 % use over 730 hours:
// 10000 / (4 x 8760) + 98 / 730.5 (30.44-day month) + 0.5 kW x 1.5 x $0.10 = 0.28539 + 0.13416 + 0.075.
TEST(Cost, OwnedHardwareCarriesColocationUnlessOnSite) {
    CostDefaults c = defaults();
    c.colocation_usd_per_w_s = 196.0 / 1000 / (365.25 / 12 * 86400);
    Workload w;
    w.cost.utilization = 1;
    const HourlyCost hosted = own_cost(priced_device(), w, c);
    EXPECT_NEAR(hosted.usd_per_hour, 10000 / (4 * 8760.0) + 98 / (365.25 / 12 * 24) + 0.5 * 1.5 * 0.10, 1e-9);
    EXPECT_NE(hosted.basis.find("colocation $98"), std::string::npos) << hosted.basis;
    w.decision.site = "desk";
    const HourlyCost desk = own_cost(priced_device(), w, c);
    EXPECT_NEAR(desk.usd_per_hour, 10000 / (4 * 8760.0) + 0.5 * 1.5 * 0.10, 1e-9);
}

// A rented run is billed from start-up to the end of its last increment: lesson 003's nightly embeddings on
// an H100 take about 13 s, and with 100 s of start-up in 60 s increments the bill is 2 minutes, not 13 s.
TEST(Cost, RentedRunsAreBilledInWholeIncrementsFromStartUp) {
    CostDefaults c = defaults();
    c.rental_startup_s = 100;
    c.rental_billing_increment_s = 60;
    EXPECT_DOUBLE_EQ(billed_seconds(13, c), 120);
    EXPECT_DOUBLE_EQ(billed_seconds(20, c), 120);
    EXPECT_DOUBLE_EQ(billed_seconds(21, c), 180);
    c.rental_billing_increment_s = 0;
    EXPECT_DOUBLE_EQ(billed_seconds(13, c), 113);
    // A provider with per-second billing (the catalog's Modal prices) overrides the default increment.
    c.rental_billing_increment_s = 60;
    Device d = priced_device();
    d.prices[1].billing_increment_s = 1;
    const HourlyCost r = rent_cost(d, {});
    EXPECT_DOUBLE_EQ(r.billing_increment_s, 1);
    EXPECT_DOUBLE_EQ(billed_seconds(13, c, r.billing_increment_s), 113);
}

} // namespace hwplan
