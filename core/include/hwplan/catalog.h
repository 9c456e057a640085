// hwplan/catalog.h: the catalog (devices, models, API prices, cost defaults) and its loader/validator.
// Loading is pure: the caller passes the files' text (read from catalog/ natively, embedded at build
// time in the web build). Every problem becomes an Issue with the file, the JSON path and the reason;
// a bad entry is reported and left out, the rest still loads.
// Usage: CatalogLoad load = load_catalog(files);          // files: {"devices/h100-sxm.json", text}
//        auto d = resolve_device(load.catalog, "H100 SXM"); // d.item or d.issue (with close matches)
#pragma once
#include <string>
#include <vector>

#include "hwplan/device.h"
#include "hwplan/issues.h"
#include "hwplan/model.h"
#include "hwplan/tool.h"
#include "hwplan/runtime.h"

namespace hwplan {

// A hosted model API's price list (catalog/apis/<id>.json), USD per token in SI-style units.
struct ApiPrice {
    std::string id;
    std::string name;
    std::string provider;
    std::string model;                     // model id in the catalog, "" when the model is not open
    std::string model_name;                // the provider's name for it
    double input_usd_per_token = 0;        // prompt tokens
    double output_usd_per_token = 0;       // generated tokens
    double cached_input_usd_per_token = -1;// < 0: no cached-input price published
    double context_tokens = 0;             // 0: not published
    std::vector<Source> sources;
    std::map<std::string, std::string> source_of;
    bool operator==(const ApiPrice&) const = default;
};

// Cost defaults for owned hardware (catalog/defaults.json).
struct CostDefaults {
    double electricity_usd_per_j = 0;        // USD per joule (the catalog's USD/kWh / 3.6e6)
    double pue_ratio = 0;                    // facility power / IT power
    double amortization_s = 0;               // depreciation period
    double hosting_usd_per_device_s = -1;    // < 0: no public figure
    double colocation_usd_per_w_s = 0;       // colocation rent per watt of IT capacity per second (0: not counted)
    double rental_billing_increment_s = 0;   // rentals are billed in whole increments of this (0: continuous)
    double rental_startup_s = 0;             // billed seconds before a rented run does useful work
    std::vector<Source> sources;
    std::map<std::string, std::string> source_of;
    bool operator==(const CostDefaults&) const = default;
};

// A weight storage format (catalog/formats.json): bits per weight including its scales.
struct WeightFormat {
    std::string name;            // "bf16", "nf4", "q4_k_m"
    double bits_per_weight = 0;  // storage bits per parameter, scales and zero points included
    std::string kind;            // "float", "int", "blockquant", "gguf"
    std::string meaning;
    std::string source;          // source id in Catalog::format_sources
    bool operator==(const WeightFormat&) const = default;
};

// One default of the planner's model (catalog/assumptions.json): a typical value and its plausible range.
struct AssumptionDefault {
    double value = 0, low = 0, high = 0; // low <= value <= high, in `unit`
    std::string unit;                    // "ratio", "bytes", "s", "tokens", "count"
    std::string meaning;
    std::string source;                  // source id in Catalog::assumption_sources
    std::vector<std::string> calibrated_by; // ids of the calibration-split measurements (tests/validation/) that set it
    bool operator==(const AssumptionDefault&) const = default;
};

// A worked example from the lessons (catalog/scenarios/<id>.json): the question, where it comes from,
// and the workload that asks it (validated against the rest of the catalog when loaded).
struct Scenario {
    std::string id;
    std::string name;
    std::string question;
    Source lesson;             // the lesson and section it comes from
    std::string workload_json; // docs/workload.md form; empty for a team scenario
    std::string team_json;     // {"name", "cards": [...]} for a team of workloads (hwplan team); else empty
    bool operator==(const Scenario&) const = default;
};

// A user's own measurement on one device, turned into the value of one assumption (core/src/measurement.cpp):
// the value that makes the planner reproduce the measured figure. Plans on that device use it (unless the
// workload pins the assumption) and label the figures it drives "calibrated (your measurement)". Extensions
// carry it as {"calibrations": [...]} (catalog/README.md), so a page link and `hwplan plan --extend` agree.
struct Calibration {
    std::string device;        // catalog device id
    std::string assumption;    // assumptions.h name: "decode_bandwidth_efficiency", "prefill_compute_efficiency", ...
    double value = 0;          // the calibrated value, in the assumption's unit (SI)
    std::string figure;        // the plan figure it reproduces: "decode_tokens_per_s_per_user", "step_time_s", "memory_total_bytes"
    double measured = 0;       // the measurement, SI (tokens/s, s, bytes)
    double modelled = 0;       // the planner's figure before calibration, same unit
    std::string measurement;   // what was measured, in words ("llama-bench tg 128: 132.19 t/s")
    std::string model;         // the model it was measured with (catalog id)
    std::string precision;     // the weight format it was measured with
    std::string read_on;       // ISO date
    bool operator==(const Calibration&) const = default;
};

struct Catalog {
    std::vector<Device> devices;
    std::vector<Model> models;
    std::vector<ApiPrice> apis;
    CostDefaults defaults;
    bool has_defaults = false;
    std::vector<WeightFormat> formats;
    std::vector<Source> format_sources;
    std::map<std::string, AssumptionDefault> assumptions;
    std::vector<Source> assumption_sources;
    std::vector<Scenario> scenarios;
    std::vector<TrainingRuntime> training_runtimes; // catalog/runtimes.json
    std::vector<EncoderRuntime> encoder_runtimes;   // catalog/runtimes.json "encoder_runtimes"
    std::vector<DecodeRuntime> decode_runtimes;     // catalog/runtimes.json "decode_runtimes"
    std::vector<Source> runtime_sources;
    std::vector<EfficiencyRule> decode_bandwidth_rules; // catalog/efficiencies.json
    std::vector<EfficiencyRule> training_mfu_rules;
    std::vector<EfficiencyRule> training_attention_rules; // FlashAttention's achieved share of peak in training
    std::vector<EfficiencyRule> decode_compute_8bit_rules; // a decode step's GEMM share of an 8-bit peak, per device family
    std::vector<Source> efficiency_sources;
    std::vector<Calibration> calibrations;              // the user's measurements (extensions only)
    std::vector<ToolInterface> tools;                   // catalog/tools.json: deploy and benchmark tools' flags per release
    std::vector<Source> tool_sources;

    const TrainingRuntime* find_runtime(const std::string& id) const; // exact id
    const EncoderRuntime* find_encoder_runtime(const std::string& id) const; // exact id; "": the default profile (nullptr when none)
    const DecodeRuntime* find_decode_runtime(const std::string& id) const;   // exact id; "": the default profile (nullptr when none)
    const WeightFormat* find_format(const std::string& name) const; // case-insensitive
    const Device* device_by_id(const std::string& id) const;        // exact id (resolve_device for names users type)
    const ToolInterface* find_tool(const std::string& id) const;    // exact id
};

// One file of the catalog: its path relative to the catalog folder and its text.
struct CatalogFile {
    std::string path; // "devices/h100-sxm.json", "models/x.json", "apis/x.json", "defaults.json", "formats.json", "assumptions.json"
    std::string text;
};

struct CatalogLoad {
    Catalog catalog;
    Issues issues; // empty when every file was valid
};

CatalogLoad load_catalog(const std::vector<CatalogFile>& files);

// Adds a user's own entries (JSON text {"devices": [...], "models": [...], "calibrations": [...]}) through the
// same validator. Entries with issues are left out; an id that already exists is an issue, never a silent
// replacement. A calibration names a device of the catalog (or of the same extension) and a known assumption;
// a later calibration of the same device and assumption replaces the earlier one (a new measurement).
Issues extend_catalog(Catalog& catalog, const std::string& json_text, const std::string& label = "extension");

// Name lookup: id, name or alias, case-insensitive, ignoring spaces, '-', '_' and '.'.
template <class T> struct Resolved {
    const T* item = nullptr; // set when exactly one entry matches
    Issue issue;             // otherwise: unknown (with close matches) or ambiguous (with the candidates)
};
Resolved<Device> resolve_device(const Catalog& catalog, const std::string& name);
Resolved<Model> resolve_model(const Catalog& catalog, const std::string& name);
const Scenario* find_scenario(const Catalog& catalog, const std::string& id);

std::string normalize_name(const std::string& name); // "A100 80GB" -> "a10080gb"

} // namespace hwplan
