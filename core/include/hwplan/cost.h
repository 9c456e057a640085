// hwplan/cost.h: what a device-hour costs, rented or owned, and break-even between the two.
// Rented: the workload's price, else the catalog offer whose whole instances cost the fleet least (with its
// provider); bought: whole purchase units. Both rounded up by the same packing (whole_units).
// Owned: purchase price amortized over its period, plus power x PUE x electricity, plus hosting where a
// figure exists, per hour actually used (amortization and hosting divided by the utilization reached).
// Usage: RentalUnits r = units_to_rent(device, workload.cost, PriceKind::cloud_on_demand, devices);
//        PurchaseUnits b = units_to_buy(device, devices);  HourlyCost o = own_cost(device, workload, catalog);
#pragma once
#include <map>
#include <string>
#include <vector>

#include "hwplan/catalog.h"
#include "hwplan/workload.h"

namespace hwplan {

constexpr double kHoursPerMonth = 730.0; // 8,760 hours a year / 12

// One term of a cost's derivation, as a buyer reads it: "purchase" -> "$35000 per device over 5 years".
struct CostTerm {
    std::string term;   // short name: "purchase", "power", "devices", "demand", "unit cost", ...
    std::string value;  // its value with units and, where it helps, how it was made
    bool operator==(const CostTerm&) const = default;
};

struct HourlyCost {
    bool available = false;   // false: no price known (then the other fields are 0/empty)
    double usd_per_hour = 0;  // per device-hour used
    std::string basis;        // how it was made, in words
    std::vector<CostTerm> terms; // the same, term by term (the recommendation card's cost breakdown)
    double billing_increment_s = -1; // rentals: the provider's billing increment (< 0: the catalog default)
    bool operator==(const HourlyCost&) const = default;
};

// Rent: workload override, else the catalog's lowest price of that kind per device-hour (on-demand by default;
// spot and reserved where the catalog has them), whatever the offer's instance size. A fleet is priced by
// units_to_rent, which rents whole instances.
HourlyCost rent_cost(const Device& device, const CostSpec& cost, PriceKind kind = PriceKind::cloud_on_demand);

// Hours the job uses per month: usage.hours_per_month, else jobs_per_week x hours_per_job x 52/12;
// 0 when the workload does not say.
double hours_used_per_month(const UsageSpec& usage);

// The share of an owned device's hours that do useful work: cost.utilization, else hours used per month / 730
// (at most 1), else 1.
double effective_utilization(const Workload& w);

// Whether an owned device pays data-centre colocation: at the site "own_datacenter" always; at a desk, an
// office, on a robot or a phone never; with no site given only a device that may stand in a data centre
// (not a GeForce card, whose driver licence keeps it out: GeForce EULA 2.1.3, catalog datacenter_use; not a
// desktop machine or an embedded module, catalog form_factor): those stand on site.
bool pays_colocation(const Device& device, const std::string& site);

// Own: (price / amortization hours + colocation) / utilization + TDP x PUE x electricity. Colocation is the
// catalog's $/kW/month x TDP where pays_colocation says so.
// Utilization: cost.utilization, else hours used per month / 730, else 1 (and the caller says so).
// words = false: the price only (available, usd_per_hour; basis and terms left empty), as a re-decision asks for it.
HourlyCost own_cost(const Device& device, const Workload& workload, const CostDefaults& defaults, bool words = true);

// Devices the team already has (hardware.owned): the purchase is spent, so an hour of use costs its power and
// its hosting only: hosting / utilization + TDP x PUE x electricity, as own_cost without the purchase term.
HourlyCost owned_cost(const Device& device, const Workload& workload, const CostDefaults& defaults, bool words = true);

// The device's lowest purchase price per accelerator (each price divided by the devices its unit holds: a
// server of 8, a rack of 72), or -1.
double purchase_usd_per_device(const Device& device);

// Devices one purchase unit holds: its devices_per_unit, else the device's system_accelerators (1 for a card).
double devices_per_purchase(const Device& device, const Price& price);

// Devices one purchase unit of the device holds, as it is bought: the cheapest purchase price's
// devices_per_unit, else the device's system_accelerators (a rack of 72), else, for a GPU or accelerator
// board part with a fast domain of 2-8, that domain (an SXM/OAM module comes on an 8-GPU HGX/UBB board in a
// server: MLPerf's H200 system lists accelerators_per_node 8), else 1 (a card, a Mac, a module).
int purchase_unit_devices(const Device& device);

// Whole units for a fleet of `replicas` replicas of `devices_per_replica` devices each (the replicas the load
// needs): bought (a server, a rack) or rented (a cloud instance, a rack rented whole). Replicas are packed, whole
// replicas per unit when one fits a unit. With `spare_units` s > 0 (redundancy: docs/workload.md, "n+1") the fleet
// keeps its replicas serving when any s units fail: where a unit holds whole replicas, enough units for them plus
// s more, the replicas spread over all of them (lesson 004's bank: "One 8-GPU H200 server ... holds this ...; two
// give redundancy"; eight 1-device replicas and a spare need two 8-device servers, not nine); where a replica spans
// units, each replica on units of its own and s spare replicas. Devices already owned are counted per device.
struct PurchaseUnits {
    int devices_per_unit = 1; // purchase_unit_devices, or the rental offer's devices_per_unit
    int units = 0;            // units bought or rented
    int spare_units = 0;      // units that may fail with the load still served (0: no redundancy)
    int replicas = 0;         // replicas placed on them: the load's, and with spares enough more that any spare_units
                              // units can fail and the load's replicas still serve
    int devices_needed = 0;   // replicas (placed) x devices_per_replica
    int devices_bought = 0;   // units x devices_per_unit (bought, or rented)
    int devices_idle = 0;     // devices_bought - devices_needed: paid for, not used by the replicas
    int replicas_fit = 0;     // replicas of devices_per_replica the units hold, laid out the same way
    double usd = -1;          // purchases: units x the unit's price (purchase_usd_per_device x devices_per_unit); -1: no purchase price
    std::string unit;         // one unit, short: "8-device server", the system's name ("GB200 NVL72"), a rented instance
                              // ("p5.48xlarge"); "" when a unit is one device
    bool operator==(const PurchaseUnits&) const = default;
};

// The packing alone: `devices_per_unit` devices a unit, the fleet above (usd and unit left empty).
PurchaseUnits whole_units(int devices_per_unit, int devices_per_replica, int replicas = 1, int spare_units = 0);

// Bought: the device's purchase unit (purchase_unit_devices). A fleet of one device is one card or module,
// unless the catalog prices only a whole unit (a Mac, a rack). The one place a bought count is made:
// decide.cpp prices, names, budgets and notes the option from it.
PurchaseUnits units_to_buy(const Device& device, int devices_per_replica, int replicas = 1, int spare_units = 0);

// Rented: among the device's offers of `kind`, the one whose whole instances cost the fleet least an hour
// (each offer rents devices_per_unit devices at a time, 1 when the catalog gives none; ties: fewer devices
// rented, then the lower per-device price), rounded up exactly as units_to_buy rounds a purchase. A
// 16-device fleet on an offer rented only by the 72-device rack pays for 72 (CoreWeave's GB200 NVL72), and a
// 4-device offer can then be cheaper. The workload's own price (cost.usd_per_device_hour, on-demand) is per
// device. With `cloud` ("aws", "gcp", "azure": a workload bound to that cloud, decision.site) only that cloud's
// offers count (cloud_of; a cloud-only chip's offers are its cloud's). The one place a rented count is made:
// decide.cpp prices, names, budgets and notes the option from it.
struct RentalUnits {
    PurchaseUnits units;      // the count (usd stays -1: the price is per hour)
    HourlyCost price;         // the chosen offer, per device-hour (available false: no offer of that kind)
    double usd_per_hour = -1; // units.devices_bought x price.usd_per_hour: the fleet's hour as billed; -1: no offer
    bool operator==(const RentalUnits&) const = default;
};
// words = false: the price's basis and terms are left empty (the units and the numbers are the same).
RentalUnits units_to_rent(const Device& device, const CostSpec& cost, PriceKind kind, int devices_per_replica, int replicas = 1,
                          int spare_units = 0, const std::string& cloud = "", bool words = true);

// The hyperscale cloud a rental price was read from ("aws", "gcp", "azure"), from its provider's words;
// "" for a purchase or another provider (a GPU cloud, a marketplace, the vendor's own service).
std::string cloud_of(const Price& price);

// How much of the catalog is priced (hwplan check-catalog, tests/catalog_test.cpp): devices with a purchase
// price, with a rental price (per cloud), with a stated reason where none is public, and those with neither.
struct PriceCoverage {
    int devices = 0;
    int with_purchase = 0;                      // devices with at least one purchase price
    int with_rental = 0;                        // devices with at least one rental price
    std::map<std::string, int> rental_by_cloud; // "aws" -> devices with a rental price there (a cloud-only chip counts for its cloud)
    int rental_elsewhere = 0;                   // devices rented from a GPU cloud, a marketplace or the vendor's own service
    int purchase_reason = 0;                    // devices without a purchase price whose file says why
    int rental_reason = 0;                      // devices without a rental price whose file says why
    std::vector<std::string> unpriced;          // ids with no price at all and no reason: the catalog lint fails on these
    std::vector<std::string> purchase_unexplained; // can be bought, no purchase price, no reason
    std::vector<std::string> rental_unexplained;   // can be rented, no rental price, no reason
    bool operator==(const PriceCoverage&) const = default;
};
PriceCoverage price_coverage(const std::vector<Device>& devices);

// Seconds a rented run is billed: its useful time plus the start-up (provision, image, weights), rounded up
// to the provider's billing increment (catalog/defaults.json: rental_startup_s, rental_billing_increment_s).
double billed_seconds(double run_s, const CostDefaults& defaults, double increment_s = -1);

// Months until owning is cheaper than renting for `hours_per_month` of use of `count` devices:
// purchase / (rent per month - running cost per month). Infinity when renting is never dearer.
double breakeven_months(double purchase_usd, double rent_usd_per_hour, double running_usd_per_hour, double hours_per_month);

} // namespace hwplan
