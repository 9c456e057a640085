// cost.cpp: device-hour costs, rented and owned (sources in cost.h and catalog/defaults.json).
#include "hwplan/cost.h"

#include <algorithm>
#include <cmath>

#include "hwplan/format.h"

namespace hwplan {

namespace {

// The workload's own price (cost.usd_per_device_hour): per device, on demand.
HourlyCost workload_price(const CostSpec& cost, bool words = true) {
    HourlyCost out;
    out.available = true;
    out.usd_per_hour = cost.usd_per_device_hour;
    if (!words) return out;
    out.basis = "the workload's price, $" + format_sig(cost.usd_per_device_hour, 4) + " per device-hour";
    out.terms = {{"price", "$" + format_sig(cost.usd_per_device_hour, 4) + " per device-hour (the workload's cost.usd_per_device_hour)"}};
    return out;
}

// One catalog offer as a device-hour price, with its provider (and its instance, when it is rented whole).
HourlyCost offer_price(const Price& p, PriceKind kind, bool words = true) {
    HourlyCost out;
    out.available = true;
    out.usd_per_hour = p.usd_per_hour;
    out.billing_increment_s = p.billing_increment_s;
    if (!words) return out;
    const char* label = kind == PriceKind::cloud_spot ? "spot" : kind == PriceKind::cloud_reserved ? "reserved" : "on-demand";
    out.basis = std::string(label) + " $" + format_sig(p.usd_per_hour, 4) + " per device-hour (" + p.provider + ")";
    out.terms = {{"price", std::string(label) + " $" + format_sig(p.usd_per_hour, 4) + " per device-hour"}, {"provider", p.provider}};
    if (p.devices_per_unit > 1)
        out.terms.push_back({"instance", "rented only whole" + (p.unit.empty() ? std::string() : ", as " + p.unit) + ": " +
                                             std::to_string(p.devices_per_unit) + " devices, $" +
                                             format_sig(p.usd_per_hour * p.devices_per_unit, 4) + " an hour"});
    return out;
}

} // namespace

HourlyCost rent_cost(const Device& d, const CostSpec& cost, PriceKind kind) {
    if (cost.usd_per_device_hour >= 0 && kind == PriceKind::cloud_on_demand) return workload_price(cost);
    const Price* best = nullptr;
    for (const auto& p : d.prices)
        if (p.kind == kind && (!best || p.usd_per_hour < best->usd_per_hour)) best = &p;
    return best ? offer_price(*best, kind) : HourlyCost{};
}

double hours_used_per_month(const UsageSpec& u) {
    if (u.hours_per_month > 0) return u.hours_per_month;
    if (u.jobs_per_week > 0 && u.hours_per_job > 0) return u.jobs_per_week * u.hours_per_job * 52.0 / 12.0;
    return 0;
}

double devices_per_purchase(const Device& d, const Price& p) {
    return p.devices_per_unit > 0 ? p.devices_per_unit : std::max(1, d.system_accelerators);
}

namespace {

// The purchase price lowest per device: a server of 8 and a single card compare per device.
const Price* cheapest_purchase(const Device& d) {
    const Price* best = nullptr;
    for (const auto& p : d.prices)
        if (p.kind == PriceKind::purchase && (!best || p.usd / devices_per_purchase(d, p) < best->usd / devices_per_purchase(d, *best)))
            best = &p;
    return best;
}

} // namespace

double purchase_usd_per_device(const Device& d) {
    const Price* p = cheapest_purchase(d);
    return p ? p->usd / devices_per_purchase(d, *p) : -1;
}

int purchase_unit_devices(const Device& d) {
    if (const Price* p = cheapest_purchase(d); p && p->devices_per_unit > 0) return p->devices_per_unit;
    if (d.system_accelerators > 1) return d.system_accelerators;
    const bool board = (d.kind == DeviceKind::gpu || d.kind == DeviceKind::accelerator) && d.domain_size > 1 && d.domain_size <= 8;
    return board ? d.domain_size : 1;
}

PurchaseUnits whole_units(int devices_per_unit, int devices_per_replica, int replicas, int spare_units) {
    PurchaseUnits out;
    const int u = std::max(1, devices_per_unit), per = std::max(1, devices_per_replica), n = std::max(0, replicas), s = std::max(0, spare_units);
    out.devices_per_unit = u;
    out.spare_units = s;
    const int units_per_replica = (per + u - 1) / u; // a replica larger than a unit spans whole units
    const int per_unit = per <= u ? u / per : 0;       // whole replicas one unit holds (0: a replica spans units)
    if (s == 0) {
        out.replicas = n;
        if (per_unit > 0) out.units = (n + per_unit - 1) / per_unit;   // whole replicas packed into each unit
        else out.units = (per * n + u - 1) / u;                      // packed, replicas spanning units
    } else if (per_unit > 0 && n > 0) {
        // N+s over units that hold replicas (docs/workload.md, redundancy): enough units for the n replicas, plus s
        // units, with the replicas spread so that any s units can fail and n replicas still serve (lesson 004, the
        // bank: "One 8-GPU H200 server ... holds this ...; two give redundancy"). Placed: the fewest x with x - s x
        // (the most on one unit, ceil(x / units)) >= n.
        out.units = (n + per_unit - 1) / per_unit + s;
        int x = n;
        while (x < out.units * per_unit && x - s * ((x + out.units - 1) / out.units) < n) ++x;
        out.replicas = x;
    } else {
        // A replica spanning units fails with any of them: each replica on units of its own, s of them spare.
        out.replicas = n > 0 ? n + s : 0;
        out.units = out.replicas * units_per_replica;
    }
    out.devices_needed = per * out.replicas;
    out.devices_bought = out.units * u;
    out.devices_idle = out.devices_bought - out.devices_needed;
    out.replicas_fit = per_unit > 0 ? out.units * per_unit : s > 0 ? out.units / units_per_replica : out.devices_bought / per;
    return out;
}

PurchaseUnits units_to_buy(const Device& d, int devices_per_replica, int replicas, int spare_units) {
    const int per = std::max(1, devices_per_replica), n = std::max(0, replicas);
    // One device alone is bought as a single card or module (lesson 001's "buy a local GPU"); only the catalog's
    // own unit (a Mac, a rack) is never split.
    const bool catalog_unit = (cheapest_purchase(d) && cheapest_purchase(d)->devices_per_unit > 0) || d.system_accelerators > 1;
    const int u = per * n == 1 && spare_units <= 0 && !catalog_unit ? 1 : purchase_unit_devices(d);
    PurchaseUnits out = whole_units(u, per, n, spare_units);
    const double per_device = purchase_usd_per_device(d);
    if (per_device > 0) out.usd = per_device * out.devices_bought;
    if (u > 1) out.unit = d.system_accelerators == u && !d.system_name.empty() ? d.system_name : std::to_string(u) + "-device server";
    return out;
}

RentalUnits units_to_rent(const Device& d, const CostSpec& cost, PriceKind kind, int devices_per_replica, int replicas, int spare_units,
                          const std::string& cloud, bool words) {
    RentalUnits out;
    if (cost.usd_per_device_hour >= 0 && kind == PriceKind::cloud_on_demand) {
        out.price = workload_price(cost, words);
        out.units = whole_units(1, devices_per_replica, replicas, spare_units);
        out.usd_per_hour = out.units.devices_bought * out.price.usd_per_hour;
        return out;
    }
    const Price* best = nullptr;
    PurchaseUnits best_units;
    for (const auto& p : d.prices) {
        if (p.kind != kind || (!cloud.empty() && (d.cloud_only.empty() ? cloud_of(p) : d.cloud_only) != cloud)) continue;
        const PurchaseUnits u = whole_units(std::max(1, p.devices_per_unit), devices_per_replica, replicas, spare_units);
        const double hour = u.devices_bought * p.usd_per_hour, best_hour = best ? best_units.devices_bought * best->usd_per_hour : 0;
        if (!best || hour < best_hour ||
            (hour == best_hour && (u.devices_bought < best_units.devices_bought ||
                                   (u.devices_bought == best_units.devices_bought && p.usd_per_hour < best->usd_per_hour)))) {
            best = &p;
            best_units = u;
        }
    }
    if (!best) return out;
    out.price = offer_price(*best, kind, words);
    out.units = best_units;
    if (best_units.devices_per_unit > 1)
        out.units.unit = !best->unit.empty() ? best->unit : std::to_string(best_units.devices_per_unit) + "-device instance";
    out.usd_per_hour = out.units.devices_bought * best->usd_per_hour;
    return out;
}

std::string cloud_of(const Price& p) {
    if (p.kind == PriceKind::purchase) return "";
    for (const auto& [token, cloud] : {std::pair{"AWS", "aws"}, {"Google Cloud", "gcp"}, {"Azure", "azure"}})
        if (p.provider.find(token) != std::string::npos) return cloud;
    return "";
}

PriceCoverage price_coverage(const std::vector<Device>& devices) {
    PriceCoverage c;
    c.devices = static_cast<int>(devices.size());
    for (const auto& d : devices) {
        bool bought = false, rented = false, other = false;
        std::vector<std::string> clouds;
        for (const auto& p : d.prices) {
            if (p.kind == PriceKind::purchase) {
                bought = true;
                continue;
            }
            rented = true;
            // A cloud-only chip's prices are its cloud's, however the provider is worded.
            const std::string cloud = d.cloud_only.empty() ? cloud_of(p) : d.cloud_only;
            if (cloud.empty()) other = true;
            else if (std::find(clouds.begin(), clouds.end(), cloud) == clouds.end()) clouds.push_back(cloud);
        }
        c.with_purchase += bought;
        c.with_rental += rented;
        c.rental_elsewhere += other;
        for (const auto& cl : clouds) ++c.rental_by_cloud[cl];
        c.purchase_reason += !bought && !d.purchase_unpublished.empty();
        c.rental_reason += !rented && !d.rental_unpublished.empty();
        if (!bought && !rented && d.purchase_unpublished.empty() && d.rental_unpublished.empty()) c.unpriced.push_back(d.id);
        if (d.can_buy && !bought && d.purchase_unpublished.empty()) c.purchase_unexplained.push_back(d.id);
        if (d.can_rent && !rented && d.rental_unpublished.empty()) c.rental_unexplained.push_back(d.id);
    }
    return c;
}

double effective_utilization(const Workload& w) {
    const double used = hours_used_per_month(w.usage);
    return w.cost.utilization > 0 ? w.cost.utilization : used > 0 ? std::min(1.0, used / kHoursPerMonth) : 1.0;
}

bool pays_colocation(const Device& d, const std::string& site) {
    if (site == "own_datacenter") return true;
    if (site == "desk" || site == "office" || site == "robot" || site == "phone") return false;
    // No site (or a cloud, where owning is eliminated anyway): where the device itself may stand.
    return d.datacenter_use && d.form_factor != "desktop" && d.form_factor != "embedded_module";
}

HourlyCost own_cost(const Device& d, const Workload& w, const CostDefaults& defaults, bool words) {
    HourlyCost out;
    const double price = purchase_usd_per_device(d);
    if (price < 0 || !d.can_buy) return out;
    const double years = w.cost.amortization_years > 0 ? w.cost.amortization_years : defaults.amortization_s / (365.25 * 86400);
    const double usd_per_kwh = w.cost.usd_per_kwh >= 0 ? w.cost.usd_per_kwh : defaults.electricity_usd_per_j * 3.6e6;
    const double used = hours_used_per_month(w.usage);
    const double utilization = effective_utilization(w);
    const double amortized = price / (years * 8760.0);
    // Power while running: the board's TDP at the facility's PUE (no TDP published: power not counted).
    const double power = d.tdp_w > 0 ? d.tdp_w / 1000.0 * defaults.pue_ratio * usd_per_kwh : 0;
    double hosting = defaults.hosting_usd_per_device_s > 0 ? defaults.hosting_usd_per_device_s * 3600 : 0;
    // Colocation: rent per kW of IT capacity, paid every hour whether used or not (pays_colocation).
    const bool hosted = pays_colocation(d, w.decision.site);
    const double colo = hosted && d.tdp_w > 0 ? d.tdp_w * defaults.colocation_usd_per_w_s * 3600 : 0;
    hosting += colo;
    out.available = true;
    out.usd_per_hour = (amortized + hosting) / utilization + power;
    if (!words) return out;
    out.basis = "$" + format_sig(price, 6) + " over " + format_sig(years, 3) + " years at " + format_sig(100 * utilization, 3) +
                " % use, + " + (d.tdp_w > 0 ? format_sig(d.tdp_w, 4) + " W x PUE " + format_sig(defaults.pue_ratio, 3) + " at $" +
                                                  format_sig(usd_per_kwh, 3) + "/kWh"
                                            : std::string("power not counted (no TDP published)")) +
                (colo > 0 ? " + colocation $" + format_sig(d.tdp_w * defaults.colocation_usd_per_w_s * 365.25 / 12 * 86400, 3) + " a month (" + format_sig(d.tdp_w, 4) + " W at $" +
                                format_sig(defaults.colocation_usd_per_w_s * 1000 * 365.25 / 12 * 86400, 3) + "/kW/month)"
                          : hosted ? std::string(" (hosting not counted: no TDP or colocation figure)") : std::string(" (no hosting: on site)"));
    // The same derivation term by term, each with its share of the device-hour.
    // What is bought when it is more than the device (a server of 8, a Mac Studio): named, with its whole price.
    const Price* bought = cheapest_purchase(d);
    const std::string unit = bought && !bought->unit.empty()
                                 ? " (bought as " + bought->unit + ", $" + format_sig(bought->usd, 6) + " for " +
                                       format_sig(devices_per_purchase(d, *bought), 6) + ")"
                                 : std::string();
    out.terms.push_back({"purchase", "$" + format_sig(price, 6) + " per device over " + format_sig(years, 3) + " years ($" +
                                         format_sig(amortized / utilization, 3) + " per device-hour used)" + unit});
    out.terms.push_back({"use", format_sig(100 * utilization, 3) + " % of the hours" +
                                    (w.cost.utilization > 0 ? " (cost.utilization)"
                                     : used > 0             ? " (" + format_sig(used, 3) + " hours used a month of 730)"
                                                            : " (no usage given: busy every hour)")});
    out.terms.push_back({"power", d.tdp_w > 0 ? format_sig(d.tdp_w, 4) + " W x PUE " + format_sig(defaults.pue_ratio, 3) + " at $" +
                                                     format_sig(usd_per_kwh, 3) + "/kWh ($" + format_sig(power, 3) + " per device-hour)"
                                               : std::string("not counted (no TDP published)")});
    out.terms.push_back({"hosting", (colo > 0 ? "colocation $" + format_sig(d.tdp_w * defaults.colocation_usd_per_w_s * 365.25 / 12 * 86400, 3) +
                                                   " a month per device (" + format_sig(d.tdp_w, 4) + " W at $" +
                                                   format_sig(defaults.colocation_usd_per_w_s * 1000 * 365.25 / 12 * 86400, 3) + "/kW/month)"
                                             : hosted ? std::string("not counted (no TDP or colocation figure)") : std::string("none (on site)")) +
                                   (defaults.hosting_usd_per_device_s > 0 ? " + $" + format_sig(defaults.hosting_usd_per_device_s * 365.25 / 12 * 86400, 3) +
                                                                                " a month per device (hosting_usd_per_device_month)"
                                                                          : std::string())});
    out.terms.push_back({"per device-hour", "$" + format_sig(out.usd_per_hour, 4) + " = (purchase + hosting) / use + power"});
    return out;
}

HourlyCost owned_cost(const Device& d, const Workload& w, const CostDefaults& defaults, bool words) {
    HourlyCost out;
    const double usd_per_kwh = w.cost.usd_per_kwh >= 0 ? w.cost.usd_per_kwh : defaults.electricity_usd_per_j * 3.6e6;
    const double utilization = effective_utilization(w);
    const double power = d.tdp_w > 0 ? d.tdp_w / 1000.0 * defaults.pue_ratio * usd_per_kwh : 0;
    const bool hosted = pays_colocation(d, w.decision.site);
    const double colo = hosted && d.tdp_w > 0 ? d.tdp_w * defaults.colocation_usd_per_w_s * 3600 : 0;
    const double hosting = colo + (defaults.hosting_usd_per_device_s > 0 ? defaults.hosting_usd_per_device_s * 3600 : 0);
    out.available = true;
    out.usd_per_hour = hosting / utilization + power;
    if (!words) return out;
    out.basis = "already owned (no purchase), " + (d.tdp_w > 0 ? format_sig(d.tdp_w, 4) + " W x PUE " + format_sig(defaults.pue_ratio, 3) + " at $" +
                                                                    format_sig(usd_per_kwh, 3) + "/kWh"
                                                              : std::string("power not counted (no TDP published)")) +
                (hosting > 0 ? " + hosting $" + format_sig(hosting * 730, 3) + " a month" : std::string(" (no hosting counted)"));
    out.terms.push_back({"purchase", "none: already owned (hardware.owned)"});
    out.terms.push_back({"use", format_sig(100 * utilization, 3) + " % of the hours"});
    out.terms.push_back({"power", d.tdp_w > 0 ? format_sig(d.tdp_w, 4) + " W x PUE " + format_sig(defaults.pue_ratio, 3) + " at $" + format_sig(usd_per_kwh, 3) +
                                                     "/kWh ($" + format_sig(power, 3) + " per device-hour)"
                                               : std::string("not counted (no TDP published)")});
    out.terms.push_back({"hosting", hosting > 0 ? "$" + format_sig(hosting * 730, 3) + " a month per device" : std::string("none counted")});
    out.terms.push_back({"per device-hour", "$" + format_sig(out.usd_per_hour, 4) + " = hosting / use + power"});
    return out;
}

double billed_seconds(double run_s, const CostDefaults& defaults, double increment_s) {
    const double s = run_s + defaults.rental_startup_s;
    const double inc = increment_s > 0 ? increment_s : defaults.rental_billing_increment_s;
    return inc > 0 ? std::ceil(s / inc) * inc : s;
}

double breakeven_months(double purchase_usd, double rent_usd_per_hour, double running_usd_per_hour, double hours_per_month) {
    const double saving_per_month = (rent_usd_per_hour - running_usd_per_hour) * hours_per_month;
    if (saving_per_month <= 0) return INFINITY;
    return purchase_usd / saving_per_month;
}

} // namespace hwplan
