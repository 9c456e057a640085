// hwplan/feasibility.h: lesson 004's questions before price. What stage (the binding resource), what size
// (the level of scale), and what can actually be run and bought (software stack, where it can be had, its
// licence, the stages it suits, its fast scale-up domain). An option that fails keeps its reasons.
// Usage: ScaleLevel s = scale_level(w, cat);  auto why = eliminations(device, w, "own", count, s);
//        std::string over = power_budget_elimination(device, w, replicas * count);
#pragma once
#include <string>
#include <vector>

#include "hwplan/catalog.h"
#include "hwplan/plan.h"
#include "hwplan/workload.h"

namespace hwplan {

enum class Scale { one_device, node, rack };

// Lesson 004's size step: the memory the job needs (weights + KV cache for serving, as choose.go counts it)
// against one device and one node of up to 8.
struct ScaleLevel {
    Scale level = Scale::one_device;
    double need_bytes = 0;   // choose.go's estimate (0 for stages it sizes by parameters only)
    bool wide_moe = false;   // an MoE of >= 400B parameters: wide expert parallelism
    std::string why;
};

ScaleLevel scale_level(const Workload& w, const Catalog& cat);

// Parameters in whole billions, as choose.go's ParamsB names a model ("8B" for 8.03e9).
double nominal_b(double params);
std::string_view name(Scale s);

// The binding resource of the stage (lesson 004, "The guide, branch by branch" and the worked examples).
std::string binding_resource(Stage s);

// The stack the decision uses: the workload's, else "any" inside a named cloud (its own accelerators
// count), else "pytorch-cuda" (lesson 003: "A GPU path usually fits broad PyTorch, CUDA, and
// serving-engine ecosystems").
std::string effective_stack(const Workload& w);
bool runs_stack(const Device& d, const std::string& stack);

// Clouds where the catalog shows the device for rent: its cloud_only, else the clouds its rental prices
// were read from ("aws", "gcp", "azure").
std::vector<std::string> clouds_of(const Device& d);

// Why `kind` ("own", "rent", "rent_spot", "rent_reserved") of `count` devices is out before price; empty
// when it stays in.
// `replica_devices`: one serving replica's devices when the count holds several replicas (0: the count is one).
std::vector<std::string> eliminations(const Device& d, const Workload& w, const std::string& kind, int count, const ScaleLevel& s,
                                      int replica_devices = 0);

// The same checks as data, without their words: one entry per reason eliminations() gives, in its order.
std::vector<Elimination> eliminated_by(const Device& d, const Workload& w, const std::string& kind, int count, const ScaleLevel& s,
                                       int replica_devices = 0);

// The power one device draws at its lowest published setting: the catalog's lowest configurable power mode
// (power.min_W: a Jetson's lowest nvpmodel mode) where it gives one, else the board power (tdp_W); 0 when the
// catalog publishes neither.
double lowest_power_w(const Device& d);

// Why `devices` running devices are out against decision.power_budget_w: together they draw more than the
// budget at their lowest published power, or no power figure is published to hold against it; "" when they
// stay in or no budget is given. decide.cpp holds every option's running fleet (replicas x devices) against it.
std::string power_budget_elimination(const Device& d, const Workload& w, int devices);
bool over_power_budget(const Device& d, const Workload& w, int devices); // the same test, without its words

// Why a hosted API is out (site, data location); empty when it stays in.
std::vector<std::string> api_eliminations(const Workload& w);
std::vector<Elimination> api_eliminated_by(const Workload& w); // the same, as data

} // namespace hwplan
