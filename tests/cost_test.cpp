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

// [SECTION] whole purchase units ------------------------------------------------------------------------

// What one purchase unit holds, by the order cost.h gives: the cheapest price's devices_per_unit, else the
// system's accelerators, else an SXM-style board's fast domain (2-8), else 1.
TEST(PurchaseUnits, UnitDevicesByCatalogThenSystemThenBoard) {
    struct Row { const char* what; DeviceKind kind; int domain; int system; int per_unit; int expected; };
    const Row rows[] = {
        {"a PCIe card", DeviceKind::gpu, 1, 1, 0, 1},
        {"an SXM GPU, priced per GPU", DeviceKind::gpu, 8, 1, 0, 8},
        {"an OAM accelerator of 8", DeviceKind::accelerator, 8, 1, 0, 8},
        {"a 4-GPU board", DeviceKind::gpu, 4, 1, 0, 4},
        {"a TPU pod is not a board", DeviceKind::tpu, 256, 1, 0, 1},
        {"a SoC pair (DGX Spark)", DeviceKind::soc, 2, 1, 0, 1},
        {"a rack of 72", DeviceKind::rack_system, 72, 72, 0, 72},
        {"a Mac sold as one", DeviceKind::soc, 1, 1, 1, 1},
        {"the catalog's unit wins", DeviceKind::gpu, 8, 1, 4, 4},
    };
    for (const auto& r : rows) {
        Device d = priced_device();
        d.kind = r.kind;
        d.domain_size = r.domain;
        d.system_accelerators = r.system;
        d.prices.back().devices_per_unit = r.per_unit;
        EXPECT_EQ(purchase_unit_devices(d), r.expected) << r.what;
    }
}

// A fleet in whole units, by hand, on 8-device servers at $10,000 a device ($80,000 a server). Spares: servers
// that may fail with the load's replicas still serving (docs/workload.md, redundancy "n+1").
//   1 replica of 4                 -> 1 server (8 bought, 4 idle, room for 2 replicas), $80,000
//   2 replicas of 4                -> 1 server (8 bought, 0 idle), $80,000
//   1 replica of 4, n+1            -> 1 server + 1 spare: 2 servers (16 bought), 2 placed (one on each), 8 idle, room for 4
//   3 replicas of 3                -> 2 per server -> 2 servers (16 bought, 7 idle, room for 4)
//   2 replicas of 12               -> 24 devices -> 3 servers (24 bought, 0 idle)
//   1 replica of 12, n+1           -> a replica spans 2 servers: 2 replicas on 2 servers each -> 4 servers (32 bought, 8 idle)
//   1 replica of 8, n+1            -> lesson 004's bank: "One 8-GPU H200 server ... holds this ...; two give redundancy": 2 servers
//   9 replicas of 1                -> 2 servers (16 bought, 7 idle, room for 16)
//   2 replicas of 1, n+1           -> 1 server + 1 spare = 2 servers; 2 on each (4 placed) so either can fail; 12 idle
//   8 replicas of 1, n+1           -> 1 server + 1 spare = 2 servers (not 9); 8 on each (16 placed): either can fail
//   3 replicas of 4, n+1           -> 2 servers + 1 spare = 3; 5 placed (2, 2, 1): losing a server of 2 leaves 3; 4 idle
//   a card (unit of 1)             -> exactly the devices needed
TEST(PurchaseUnits, FleetsRoundUpToWholeServers) {
    Device d = priced_device();
    d.domain_size = 8; // an SXM GPU: bought on 8-GPU servers
    struct Row { int per_replica; int replicas; int spares; int units; int bought; int idle; int fit; int placed; };
    const Row rows[] = {
        {4, 1, 0, 1, 8, 4, 2, 1},   {4, 2, 0, 1, 8, 0, 2, 2},   {4, 1, 1, 2, 16, 8, 4, 2},   {3, 3, 0, 2, 16, 7, 4, 3},
        {12, 2, 0, 3, 24, 0, 2, 2}, {12, 1, 1, 4, 32, 8, 2, 2}, {8, 1, 1, 2, 16, 0, 2, 2},   {1, 9, 0, 2, 16, 7, 16, 9},
        {1, 2, 1, 2, 16, 12, 16, 4}, {1, 8, 1, 2, 16, 0, 16, 16}, {4, 3, 1, 3, 24, 4, 6, 5},
    };
    for (const auto& r : rows) {
        const PurchaseUnits u = units_to_buy(d, r.per_replica, r.replicas, r.spares);
        const std::string row = std::to_string(r.replicas) + " x " + std::to_string(r.per_replica) + " + " + std::to_string(r.spares) + " spare";
        EXPECT_EQ(u.devices_per_unit, 8) << row;
        EXPECT_EQ(u.units, r.units) << row;
        EXPECT_EQ(u.replicas, r.placed) << row;
        EXPECT_EQ(u.spare_units, r.spares) << row;
        EXPECT_EQ(u.devices_needed, r.per_replica * r.placed) << row;
        EXPECT_EQ(u.devices_bought, r.bought) << row;
        EXPECT_EQ(u.devices_idle, r.idle) << row;
        EXPECT_EQ(u.replicas_fit, r.fit) << row;
        EXPECT_DOUBLE_EQ(u.usd, 10000.0 * r.bought) << row;
        EXPECT_EQ(u.unit, "8-device server") << row;
    }
    // One device alone: a single card or module (lesson 001's local GPU), not a server.
    EXPECT_EQ(units_to_buy(d, 1).devices_bought, 1);
    EXPECT_EQ(units_to_buy(d, 1).unit, "");
    EXPECT_EQ(units_to_buy(d, 1, 2).devices_bought, 8);
    const PurchaseUnits card = units_to_buy(priced_device(), 3, 1, 1); // one replica of 3 cards and a spare replica
    EXPECT_EQ(card.replicas, 2);
    EXPECT_EQ(card.units, 6);
    EXPECT_EQ(card.devices_bought, 6);
    EXPECT_EQ(card.devices_idle, 0);
    EXPECT_EQ(card.unit, "");
    Device unpriced = d;
    unpriced.prices.clear();
    EXPECT_EQ(units_to_buy(unpriced, 4).usd, -1);
    EXPECT_EQ(units_to_buy(unpriced, 4).devices_bought, 8); // still bought whole, just without a price
}

// A catalog server price: its unit and its own price per unit ($48,000 for 8), the system's name for a rack.
TEST(PurchaseUnits, CatalogServerAndRackUnits) {
    Device d = priced_device();
    Price server{.kind = PriceKind::purchase, .usd = 48000, .provider = "quote", .source = "s"};
    server.devices_per_unit = 8;
    d.prices.push_back(server);
    const PurchaseUnits u = units_to_buy(d, 5);
    EXPECT_EQ(u.devices_bought, 8);
    EXPECT_DOUBLE_EQ(u.usd, 48000);
    Device rack = priced_device();
    rack.kind = DeviceKind::rack_system;
    rack.system_accelerators = 72;
    rack.system_name = "GB200 NVL72";
    rack.prices = {{PriceKind::purchase, 3.6e6, 0, "rack", "s"}};
    const PurchaseUnits r = units_to_buy(rack, 4);
    EXPECT_EQ(r.units, 1);
    EXPECT_EQ(r.devices_bought, 72);
    EXPECT_EQ(r.devices_idle, 68);
    EXPECT_DOUBLE_EQ(r.usd, 3.6e6);
    EXPECT_EQ(r.unit, "GB200 NVL72");
    EXPECT_EQ(units_to_buy(rack, 1).devices_bought, 72); // a rack is bought whole, even for one device
}

// [SECTION] rented whole ----------------------------------------------------------------------------------

namespace {

// A GB200 NVL72-like device with three offers, as the catalog has them: $10.50 a GPU-hour rented only by the
// 72-GPU rack, $16 by 4-GPU instances, $27.04 by 4-GPU instances.
// The price without its words (a re-decision's): the same numbers as the 50 %-use case above, $0.6458 per hour used,
// and the same rented fleet as the next test's 16-GPU row (four 4-GPU instances at $256 an hour), with no basis or terms.
TEST(Cost, PricesWithoutWordsHaveTheSameNumbers) {
    Workload w;
    w.cost.utilization = 0.5;
    const HourlyCost own = own_cost(priced_device(), w, defaults(), false);
    ASSERT_TRUE(own.available);
    EXPECT_NEAR(own.usd_per_hour, 10000.0 / 35040 / 0.5 + 0.075, 1e-9);
    EXPECT_TRUE(own.basis.empty() && own.terms.empty());
    EXPECT_EQ(owned_cost(priced_device(), w, defaults(), false).usd_per_hour, owned_cost(priced_device(), w, defaults()).usd_per_hour);
    Device d = priced_device();
    Price four{.kind = PriceKind::cloud_on_demand, .usd_per_hour = 16, .provider = "four cloud", .source = "s"};
    four.devices_per_unit = 4;
    four.unit = "4-GPU instance";
    four.billing_increment_s = 60;
    d.prices = {four};
    const RentalUnits with = units_to_rent(d, {}, PriceKind::cloud_on_demand, 16);
    const RentalUnits without = units_to_rent(d, {}, PriceKind::cloud_on_demand, 16, 1, 0, "", false);
    EXPECT_DOUBLE_EQ(without.usd_per_hour, 256);
    EXPECT_EQ(without.units, with.units);
    EXPECT_EQ(without.price.usd_per_hour, with.price.usd_per_hour);
    EXPECT_EQ(without.price.billing_increment_s, 60);
    EXPECT_TRUE(without.price.basis.empty() && without.price.terms.empty() && !with.price.basis.empty());
}

Device rack_rented() {
    Device d;
    d.id = "test-rack";
    d.can_rent = true;
    Price rack{.kind = PriceKind::cloud_on_demand, .usd_per_hour = 10.5, .provider = "rack cloud", .source = "s"};
    rack.devices_per_unit = 72;
    rack.unit = "72-GPU rack";
    Price four{.kind = PriceKind::cloud_on_demand, .usd_per_hour = 16, .provider = "four cloud", .source = "s"};
    four.devices_per_unit = 4;
    four.unit = "4-GPU instance";
    Price dear = four;
    dear.usd_per_hour = 27.04;
    dear.provider = "dear cloud";
    d.prices = {rack, four, dear};
    return d;
}

} // namespace

// Per fleet, the offer whose whole instances cost least an hour, by hand:
//   16 GPUs: rack 72 x 10.5 = $756, four 16 x 16 = $256, dear 16 x 27.04 = $432.64  -> four, 4 instances
//   72 GPUs: rack $756, four 72 x 16 = $1152                                          -> rack, none idle
//   50 GPUs: rack $756, four 52 x 16 = $832                                           -> rack, 22 idle
//    1 GPU:  rack $756, four 4 x 16 = $64                                             -> four, 3 idle
TEST(RentalUnits, TheOfferWhoseWholeInstancesCostTheFleetLeast) {
    const Device d = rack_rented();
    struct Row { int devices; const char* provider; int units, rented, idle; double usd_per_hour; const char* unit; };
    const Row rows[] = {
        {16, "four cloud", 4, 16, 0, 256, "4-GPU instance"}, {72, "rack cloud", 1, 72, 0, 756, "72-GPU rack"},
        {50, "rack cloud", 1, 72, 22, 756, "72-GPU rack"},   {1, "four cloud", 1, 4, 3, 64, "4-GPU instance"},
    };
    for (const auto& r : rows) {
        const RentalUnits u = units_to_rent(d, {}, PriceKind::cloud_on_demand, r.devices);
        const std::string row = std::to_string(r.devices) + " devices";
        ASSERT_TRUE(u.price.available) << row;
        EXPECT_NE(u.price.basis.find(r.provider), std::string::npos) << row << ": " << u.price.basis;
        EXPECT_EQ(u.units.units, r.units) << row;
        EXPECT_EQ(u.units.devices_bought, r.rented) << row;
        EXPECT_EQ(u.units.devices_idle, r.idle) << row;
        EXPECT_DOUBLE_EQ(u.usd_per_hour, r.usd_per_hour) << row;
        EXPECT_EQ(u.units.unit, r.unit) << row;
        EXPECT_EQ(u.units.usd, -1) << row; // a rental has no purchase sum
    }
}

// Rented only by the rack: a 16-GPU fleet pays for 72, 72 x $10.50 = $756 an hour against 16 x $10.50 = $168
// priced per device: 4.5 times as much (the error this rounding fixes), with 56 GPUs idle.
TEST(RentalUnits, ARackRentedWholeIsPaidWhole) {
    Device d = rack_rented();
    d.prices.resize(1);
    const RentalUnits u = units_to_rent(d, {}, PriceKind::cloud_on_demand, 16);
    EXPECT_EQ(u.units.devices_bought, 72);
    EXPECT_EQ(u.units.devices_idle, 56);
    EXPECT_EQ(u.units.replicas_fit, 4); // 72 / 16 = 4 replicas of 16 would fit
    EXPECT_DOUBLE_EQ(u.usd_per_hour, 756);
    EXPECT_DOUBLE_EQ(u.usd_per_hour / (16 * 10.5), 4.5);
    // The offer's whole instance is a term of the price.
    ASSERT_EQ(u.price.terms.size(), 3u);
    EXPECT_EQ(u.price.terms[2].term, "instance");
    EXPECT_EQ(u.price.terms[2].value, "rented only whole, as 72-GPU rack: 72 devices, $756 an hour");
}

// Packed as a purchase is: replicas share an instance; with a spare, one more instance and the replicas spread so
// either can fail. By hand with 8-device instances at $2: 3 replicas of 2 = 1 instance (8, 2 idle), $16; 2 replicas
// of 2 and a spare = 1 + 1 = 2 instances (16 devices, 2 replicas on each, 8 idle), $32.
TEST(RentalUnits, ReplicasArePackedAsPurchasesAre) {
    Device d;
    Price eight{.kind = PriceKind::cloud_on_demand, .usd_per_hour = 2, .provider = "p", .source = "s"};
    eight.devices_per_unit = 8;
    d.prices = {eight};
    const RentalUnits packed = units_to_rent(d, {}, PriceKind::cloud_on_demand, 2, 3, 0);
    EXPECT_EQ(packed.units.units, 1);
    EXPECT_EQ(packed.units.devices_bought, 8);
    EXPECT_EQ(packed.units.devices_idle, 2);
    EXPECT_EQ(packed.units.unit, "8-device instance");
    EXPECT_DOUBLE_EQ(packed.usd_per_hour, 16);
    const RentalUnits apart = units_to_rent(d, {}, PriceKind::cloud_on_demand, 2, 2, 1);
    EXPECT_EQ(apart.units.units, 2);
    EXPECT_EQ(apart.units.replicas, 4);
    EXPECT_EQ(apart.units.devices_bought, 16);
    EXPECT_EQ(apart.units.devices_idle, 8);
    EXPECT_DOUBLE_EQ(apart.usd_per_hour, 32);
    // The packing is the purchase's own (whole_units), here with 8-device servers.
    EXPECT_EQ(apart.units.devices_bought, whole_units(8, 2, 2, 1).devices_bought);
    Device server = priced_device();
    server.kind = DeviceKind::gpu;
    server.domain_size = 8;
    EXPECT_EQ(units_to_buy(server, 2, 2, 1).devices_bought, apart.units.devices_bought);
}

// Ties in the hour go to fewer devices rented: 4 devices at $4 each by the device ($16) against one 8-device
// instance at $2 ($16). The workload's own price is per device; no offer of a kind is no price.
TEST(RentalUnits, TiesFewerDevicesWorkloadPricePerDeviceNoOffer) {
    Device d;
    Price eight{.kind = PriceKind::cloud_on_demand, .usd_per_hour = 2, .provider = "eight", .source = "s"};
    eight.devices_per_unit = 8;
    Price single{.kind = PriceKind::cloud_on_demand, .usd_per_hour = 4, .provider = "single", .source = "s"};
    d.prices = {eight, single};
    const RentalUnits u = units_to_rent(d, {}, PriceKind::cloud_on_demand, 4);
    EXPECT_EQ(u.units.devices_bought, 4);
    EXPECT_NE(u.price.basis.find("single"), std::string::npos) << u.price.basis;
    const RentalUnits own_price = units_to_rent(d, {.usd_per_device_hour = 3}, PriceKind::cloud_on_demand, 5);
    EXPECT_EQ(own_price.units.devices_bought, 5);
    EXPECT_DOUBLE_EQ(own_price.usd_per_hour, 15);
    const RentalUnits none = units_to_rent(d, {}, PriceKind::cloud_spot, 4);
    EXPECT_FALSE(none.price.available);
    EXPECT_EQ(none.usd_per_hour, -1);
}

// Inside a named cloud only its offers count: one H100 is Lambda's single GPU at $3.78 anywhere, but inside AWS
// it is a whole p5.48xlarge, 8 x $6.88 = $55.04 an hour.
TEST(RentalUnits, InsideANamedCloudOnlyItsOffers) {
    Device d;
    d.prices = {{PriceKind::cloud_on_demand, 0, 3.78, "Lambda, 1x H100 SXM instance", "s"}};
    Price p5{.kind = PriceKind::cloud_on_demand, .usd_per_hour = 6.88, .provider = "AWS p5.48xlarge (8x H100 SXM 80GB)", .source = "s"};
    p5.devices_per_unit = 8;
    p5.unit = "p5.48xlarge";
    d.prices.push_back(p5);
    EXPECT_DOUBLE_EQ(units_to_rent(d, {}, PriceKind::cloud_on_demand, 1).usd_per_hour, 3.78);
    const RentalUnits aws = units_to_rent(d, {}, PriceKind::cloud_on_demand, 1, 1, 0, "aws");
    EXPECT_EQ(aws.units.devices_bought, 8);
    EXPECT_EQ(aws.units.unit, "p5.48xlarge");
    EXPECT_DOUBLE_EQ(aws.usd_per_hour, 55.04);
    EXPECT_FALSE(units_to_rent(d, {}, PriceKind::cloud_on_demand, 1, 1, 0, "gcp").price.available);
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

// Where an owned device stands decides whether it pays colocation: the workload's site first, and with none given the
// device itself (a GeForce card's licence keeps it out of data centres, GeForce EULA 2.1.3; a desktop machine or a
// robot module stands on site).
TEST(Cost, ColocationFollowsWhereTheDeviceStands) {
    Device dc = priced_device();
    Device geforce = dc;
    geforce.datacenter_use = false;
    Device desktop = dc;
    desktop.form_factor = "desktop";
    Device module = dc;
    module.form_factor = "embedded_module";
    struct Row { const Device* d; const char* site; bool pays; };
    const Row rows[] = {
        {&dc, "", true},       {&geforce, "", false},           {&desktop, "", false},      {&module, "", false},
        {&dc, "desk", false},  {&dc, "office", false},          {&dc, "robot", false},      {&dc, "phone", false},
        {&dc, "own_datacenter", true}, {&geforce, "own_datacenter", true},
    };
    for (const auto& r : rows) EXPECT_EQ(pays_colocation(*r.d, r.site), r.pays) << r.d->form_factor << " " << r.d->datacenter_use << " " << r.site;
    // A GeForce card bought with no site given: purchase and power only, as at a desk.
    CostDefaults c = defaults();
    c.colocation_usd_per_w_s = 196.0 / 1000 / (365.25 / 12 * 86400);
    Workload w;
    w.cost.utilization = 1;
    EXPECT_NEAR(own_cost(geforce, w, c).usd_per_hour, 10000 / (4 * 8760.0) + 0.5 * 1.5 * 0.10, 1e-9);
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
