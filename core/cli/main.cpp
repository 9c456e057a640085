// hwplan command-line program: the same core as the web planner, for course authors, scripts and tests.
// Usage: hwplan weights --params 7e9 --precision bf16 [--format text|json]
//        hwplan devices|models [--format table|json] [--catalog DIR]
//        hwplan plan FILE|- [--format table|json|markdown] [--catalog DIR] [--extend FILE]
//        hwplan plan --scenario ID ...;  hwplan scenarios [--format table|json]
//        hwplan sweep FILE|--scenario ID --device ID --axis NAME [--points 1,2,4] [--count N] [--format table|json]
//        hwplan check-catalog [--catalog DIR]
//        hwplan validate [--suite DIR] [--format table|markdown|json] [--check FILE] [--record FILE]
//        hwplan import-config FILE|- [--id ID] [--name NAME] [--read-on DATE]    (writes an --extend file)
//        hwplan calibrate FILE|- --workload FILE --device ID [--read-on DATE] [--extend FILE]
//        hwplan run-it FILE|--scenario ID [--device ID] [--release TOOL=RELEASE] [--measured FILE [--read-on DATE]] [--format text|json]
//        hwplan version
// Exit codes: 0 ok, 2 bad input (the message names the option and the reason), 3 internal error (a bug: the
// message names the command and what went wrong; never an abort).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hwplan/card.h"
#include "hwplan/catalog.h"
#include "hwplan/catalog_files.h"
#include "hwplan/cost.h"
#include "hwplan/format.h"
#include "hwplan/guard.h"
#include "hwplan/hf_config.h"
#include "hwplan/json_api.h"
#include "hwplan/measurement.h"
#include "hwplan/memory.h"
#include "hwplan/parse.h"
#include "hwplan/plan.h"
#include "hwplan/render.h"
#include "hwplan/run_compare.h"
#include "hwplan/run_it.h"
#include "hwplan/validate.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr int kExitInternalError = 3;

constexpr const char* kUsage = R"(hwplan: an AI hardware planner

Usage:
  hwplan weights --params N --precision P [--format text|json]
        Memory to hold a model's weights. N: parameter count (7e9 for 7B).
        P: fp32, bf16, fp16, fp8, int8, int4, fp4.
  hwplan devices [--format table|json] [--catalog DIR] [--extend FILE]
        The device catalog. JSON carries SI values (memory_bytes, bf16_flop_per_s, ...).
        --extend adds your own entries ({"devices": [...], "models": [...]}, catalog schema).
  hwplan models [--format table|json] [--catalog DIR] [--extend FILE]
        The model presets, with parameter counts derived from their architecture.
  hwplan plan FILE|-|--scenario ID [--format table|json|markdown] [--catalog DIR] [--extend FILE]
        Plans a workload (docs/workload.md) over its candidate devices. Exit 2 on bad input,
        with the JSON path and the reason.
  hwplan layouts FILE|-|--scenario ID [--devices N] [--format table|json] [--catalog DIR]
        The fewest devices of each kind for the job, with the fastest training layout there; with
        --devices N, the fastest layout on N devices of each kind (or why none fits, and the nearest);
        a workload stating hardware.count is shown first on that count, as hwplan plan plans it.
  hwplan card FILE|-|--scenario ID [--format markdown|json] [--catalog DIR]
        Lesson 003's one-page workload card (markdown), or the workload's canonical JSON.
  hwplan team FILE|-|--scenario ID [--format markdown|json] [--catalog DIR]
        A team plan over several cards ({"name", "cards": [workload, ...]}): the fleet and its monthly cost.
  hwplan sweep FILE|-|--scenario ID --device ID --axis NAME [--points V,V,...] [--count N] [--format table|json]
        What-if curves: the workload planned on one device with one input set to each value.
        NAME: concurrent_users, context_tokens, batch_size or utilization. Without --points, a
        range around the workload's value. The page's what-if view draws exactly these numbers.
  hwplan scenarios [--format table|json] [--catalog DIR]
        The lessons' worked examples, planned with: hwplan plan --scenario ID.
  hwplan check-catalog [--catalog DIR]
        Validates every catalog file; lists each problem as file: path: reason. Exit 1 if any.
  hwplan validate [--suite DIR] [--format table|markdown|json] [--check FILE] [--record FILE] [--catalog DIR]
        Plans every published measurement in the validation suite (tests/validation/cases/) and prints
        predicted against measured, the error, the band, and a summary per kind; beside the split, leave
        one source out (loso): each source's cases predicted with every fitted value refitted without them,
        and the fitted values with their refits. --check fails (exit 1) when accuracy (loso included) fell
        below the level recorded in FILE; --record writes the current level to FILE.
  hwplan import-config FILE|- [--id ID] [--name NAME] [--read-on YYYY-MM-DD]
        Reads a Hugging Face config.json into a model entry; prints {"models": [...]} for --extend.
  hwplan calibrate FILE|- --workload FILE --device ID [--read-on YYYY-MM-DD] [--catalog DIR] [--extend FILE]
        Reads pasted benchmark output (llama-bench's table, vLLM benchmark_serving / benchmark_throughput,
        vllm bench serve against a pooling server (an embed workload), OpenRLHF's step log (an rl workload),
        "step time: 1.25 s", "peak memory: 21.3 GB") and calibrates the device's assumption so the plan of
        the workload reproduces it; prints {"calibrations": [...]} for --extend (add it to your extension).
  hwplan run-it FILE|-|--scenario ID [--device ID] [--release TOOL=RELEASE,...] [--measured FILE [--read-on DATE]] [--format text|json]
        [--catalog DIR] [--extend FILE]
        Run it: the commands that deploy the recommended option (or the candidate on device ID) with its
        planned layout, the benchmark that measures it, and what the plan predicts the benchmark prints,
        with the band. Flags are those recorded per tool release in catalog/tools.json (docs/run-it.md).
        --release TOOL=RELEASE: check TOOL's commands against that recorded release (torchtitan=v0.1.0);
        the flags it does not record are listed under each command.
        --measured FILE (- for standard input): the benchmark's output (vllm bench serve's or SGLang
        bench_serving's result block, llama-bench's table) read back: predicted against measured line by line (band, ratio), the
        assumption the largest difference points at, and the plan again with the measurement as a
        calibration (as calibrate makes it; --read-on YYYY-MM-DD dates it, default today).
  hwplan version
  hwplan --help

The catalog is read from DIR, else $HWPLAN_CATALOG, else the source tree's catalog/.
Exit codes: 0 ok, 1 check failed, 2 bad input (the option or JSON path and the reason),
3 internal error (a bug in hwplan: the command and what went wrong; please report it with the input).
)";

int bad_input(const std::string& message);

// The --format value, checked against the allowed ones; "" after reporting a bad one.
std::string format_option(const std::map<std::string, std::string>& opt, const std::vector<std::string>& allowed) {
    const std::string fmt = opt.count("--format") ? opt.at("--format") : allowed.front();
    if (std::find(allowed.begin(), allowed.end(), fmt) != allowed.end()) return fmt;
    std::string list;
    for (size_t i = 0; i < allowed.size(); ++i) list += (i ? (i + 1 == allowed.size() ? " or " : ", ") : "") + allowed[i];
    bad_input("--format: expected " + list + ", got " + hwplan::quote_input(fmt));
    return "";
}

int bad_input(const std::string& message) {
    std::fprintf(stderr, "hwplan: error: %s\n", message.c_str());
    return kExitBadInput;
}

// Parses "--key value" pairs after the subcommand into `out`; returns an error text or "".
std::string parse_options(const std::vector<std::string>& args, const std::vector<std::string>& allowed,
                          std::map<std::string, std::string>& out) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        bool known = false;
        for (const auto& k : allowed) known = known || a == k;
        if (!known) return a.rfind("--", 0) == 0 ? a + ": unknown option" : "unexpected argument " + hwplan::quote_input(a);
        if (i + 1 >= args.size()) return a + ": missing value";
        out[a] = args[++i];
    }
    return "";
}

#ifndef HWPLAN_CATALOG_DIR
#error "HWPLAN_CATALOG_DIR must be defined by the build"
#endif

// Loads the catalog named by --catalog, $HWPLAN_CATALOG or the build's default; prints its issues.
bool load(const std::map<std::string, std::string>& opt, hwplan::CatalogLoad& out, bool quiet_issues = false) {
    std::string dir = HWPLAN_CATALOG_DIR;
    if (const char* env = std::getenv("HWPLAN_CATALOG"); env && *env) dir = env;
    if (opt.count("--catalog")) dir = opt.at("--catalog");
    std::string error;
    auto files = hwplan::read_catalog_dir(dir, error);
    if (!error.empty()) {
        bad_input("--catalog: " + error);
        return false;
    }
    out = hwplan::load_catalog(files);
    if (!quiet_issues)
        for (const auto& i : out.issues) std::fprintf(stderr, "hwplan: catalog: %s\n", hwplan::to_string(i).c_str());
    if (opt.count("--extend")) {
        const std::string path = opt.at("--extend");
        std::FILE* f = std::fopen(path.c_str(), "rb");
        if (!f) {
            bad_input("--extend: cannot read \"" + path + "\"");
            return false;
        }
        std::string text;
        char buf[65536];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
        std::fclose(f);
        const auto issues = hwplan::extend_catalog(out.catalog, text, path);
        for (const auto& i : issues) bad_input(hwplan::to_string(i));
        if (!issues.empty()) return false;
    }
    return true;
}

std::string tflops(const hwplan::PeakRate& p) {
    if (!p.published) return "?";
    if (!p.supported) return "-";
    return hwplan::format_sig(p.flop_per_s / 1e12, 4);
}

int cmd_devices(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    if (auto err = parse_options(args, {"--format", "--catalog", "--extend"}, opt); !err.empty()) return bad_input(err);
    const std::string fmt = format_option(opt, {"table", "json"});
    if (fmt.empty()) return kExitBadInput;
    hwplan::CatalogLoad cat;
    if (!load(opt, cat)) return kExitBadInput;
    if (fmt == "json") {
        std::printf("%s\n", hwplan::devices_json(cat.catalog).c_str());
        return kExitOk;
    }
    std::printf("%-24s %-12s %9s %10s %9s %9s %9s %7s %6s\n", "id", "kind", "memory", "bandwidth", "bf16", "fp8",
                "fp4", "TDP", "domain");
    std::printf("%-24s %-12s %9s %10s %9s %9s %9s %7s %6s\n", "", "", "GB", "GB/s", "TFLOPS", "TFLOPS", "TFLOPS", "W", "");
    for (const auto& d : cat.catalog.devices)
        std::printf("%-24s %-12s %9s %10s %9s %9s %9s %7s %6d\n", d.id.c_str(), std::string(hwplan::name(d.kind)).c_str(),
                    hwplan::format_sig(d.memory_bytes / 1e9, 4).c_str(),
                    hwplan::format_sig(d.bandwidth_bytes_per_s / 1e9, 4).c_str(), tflops(d.bf16).c_str(),
                    tflops(d.fp8).c_str(), tflops(d.fp4).c_str(), d.tdp_w > 0 ? hwplan::format_sig(d.tdp_w, 4).c_str() : "?",
                    d.domain_size);
    std::printf("(%zu devices; dense peaks; ? = no public figure, - = not supported in hardware)\n",
                cat.catalog.devices.size());
    return kExitOk;
}

int cmd_models(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    if (auto err = parse_options(args, {"--format", "--catalog", "--extend"}, opt); !err.empty()) return bad_input(err);
    const std::string fmt = format_option(opt, {"table", "json"});
    if (fmt.empty()) return kExitBadInput;
    hwplan::CatalogLoad cat;
    if (!load(opt, cat)) return kExitBadInput;
    if (fmt == "json") {
        std::printf("%s\n", hwplan::models_json(cat.catalog).c_str());
        return kExitOk;
    }
    std::printf("%-22s %-15s %10s %10s %6s %6s %5s %8s %s\n", "id", "kind", "params", "active", "layers", "hidden",
                "kv", "context", "attention");
    for (const auto& m : cat.catalog.models) {
        const auto c = hwplan::derive_params(m.arch, m.extra_params);
        std::string attention;
        for (const auto& l : m.arch.attention_layers) {
            if (!attention.empty()) attention += " + ";
            attention += std::to_string(l.count) + " " + std::string(hwplan::name(l.kind));
            if (l.kind == hwplan::AttentionKind::sliding) attention += "(" + std::to_string(l.window) + ")";
        }
        std::printf("%-22s %-15s %9sB %9sB %6d %6d %5d %8d %s\n", m.id.c_str(), std::string(hwplan::name(m.kind)).c_str(),
                    hwplan::format_sig(c.total / 1e9, 3).c_str(), hwplan::format_sig(c.active / 1e9, 3).c_str(),
                    m.arch.layers, m.arch.hidden, m.arch.kv_heads, m.arch.max_context, attention.c_str());
    }
    std::printf("(%zu models; parameter counts derived from the architecture)\n", cat.catalog.models.size());
    return kExitOk;
}

std::string read_all(std::FILE* f) {
    std::string text;
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
    return text;
}

// Reads the workload text named by the first argument (a file, "-" for stdin, or --scenario ID).
bool read_workload_arg(const std::vector<std::string>& args, std::map<std::string, std::string>& opt, hwplan::CatalogLoad& cat,
                       std::string& text, std::string& label, const std::vector<std::string>& allowed) {
    if (args.empty()) {
        bad_input("name a workload file, - for standard input, or --scenario ID");
        return false;
    }
    const bool by_scenario = args[0] == "--scenario";
    if (auto err = parse_options({args.begin() + (by_scenario ? 0 : 1), args.end()}, allowed, opt); !err.empty()) {
        bad_input(err);
        return false;
    }
    if (!load(opt, cat)) return false;
    if (by_scenario) {
        const hwplan::Scenario* sc = hwplan::find_scenario(cat.catalog, opt["--scenario"]);
        if (!sc) {
            bad_input("--scenario: unknown scenario " + hwplan::quote_input(opt["--scenario"]) + "; hwplan scenarios lists them");
            return false;
        }
        text = sc->workload_json.empty() ? sc->team_json : sc->workload_json;
        label = "scenario " + sc->id;
        return true;
    }
    label = args[0] == "-" ? "stdin" : args[0];
    std::FILE* f = args[0] == "-" ? stdin : std::fopen(args[0].c_str(), "rb");
    if (!f) {
        bad_input("cannot read workload file \"" + args[0] + "\"");
        return false;
    }
    text = read_all(f);
    if (f != stdin) std::fclose(f);
    return true;
}

int cmd_plan(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    hwplan::CatalogLoad cat;
    std::string text, label;
    if (!read_workload_arg(args, opt, cat, text, label, {"--format", "--catalog", "--extend", "--scenario"})) return kExitBadInput;
    const std::string fmt = format_option(opt, {"table", "json", "markdown"});
    if (fmt.empty()) return kExitBadInput;
    if (opt.count("--scenario") && text.find("\"cards\"") != std::string::npos)
        return bad_input("--scenario: " + opt["--scenario"] + " is a team of workloads; use hwplan team --scenario " + opt["--scenario"]);
    const hwplan::Plan p = hwplan::plan_from_json(text, cat.catalog);
    if (!p.issues.empty()) {
        for (const auto& i : p.issues) bad_input(label + ": " + hwplan::to_string(i));
        return kExitBadInput;
    }
    if (fmt == "json") std::printf("%s\n", hwplan::to_json(p).c_str());
    else if (fmt == "markdown") std::printf("%s", hwplan::render_markdown(p).c_str());
    else std::printf("%s", hwplan::render_table(p).c_str());
    return kExitOk;
}

int cmd_card(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    hwplan::CatalogLoad cat;
    std::string text, label;
    if (!read_workload_arg(args, opt, cat, text, label, {"--format", "--catalog", "--scenario"})) return kExitBadInput;
    const std::string fmt = format_option(opt, {"markdown", "json"});
    if (fmt.empty()) return kExitBadInput;
    if (text.find("\"cards\"") != std::string::npos && opt.count("--scenario"))
        return bad_input("--scenario: " + opt["--scenario"] + " is a team of workloads; use hwplan team --scenario " + opt["--scenario"]);
    auto parsed = hwplan::parse_workload(text, cat.catalog);
    if (!parsed.issues.empty()) {
        for (const auto& i : parsed.issues) bad_input(label + ": " + hwplan::to_string(i));
        return kExitBadInput;
    }
    if (fmt == "json") {
        std::printf("%s\n", hwplan::workload_to_json(parsed.workload).c_str());
        return kExitOk;
    }
    const hwplan::Plan p = hwplan::plan_from_json(text, cat.catalog);
    if (!p.issues.empty()) {
        for (const auto& i : p.issues) bad_input(label + ": " + hwplan::to_string(i));
        return kExitBadInput;
    }
    std::printf("%s", hwplan::render_card(p, parsed.workload, cat.catalog).c_str());
    return kExitOk;
}

int cmd_team(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    hwplan::CatalogLoad cat;
    std::string text, label;
    if (!read_workload_arg(args, opt, cat, text, label, {"--format", "--catalog", "--scenario"})) return kExitBadInput;
    const std::string fmt = format_option(opt, {"markdown", "json"});
    if (fmt.empty()) return kExitBadInput;
    const hwplan::TeamPlan t = hwplan::team_plan(text, cat.catalog);
    if (!t.issues.empty()) {
        for (const auto& i : t.issues) bad_input(label + ": " + hwplan::to_string(i));
        return kExitBadInput;
    }
    std::printf("%s\n", fmt == "json" ? hwplan::team_to_json(t).c_str() : hwplan::render_team(t, cat.catalog).c_str());
    return kExitOk;
}

int cmd_sweep(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    hwplan::CatalogLoad cat;
    std::string text, label;
    if (!read_workload_arg(args, opt, cat, text, label, {"--format", "--catalog", "--scenario", "--device", "--axis", "--points", "--count"}))
        return kExitBadInput;
    const std::string fmt = format_option(opt, {"table", "json"});
    if (fmt.empty()) return kExitBadInput;
    if (!opt.count("--device")) return bad_input("--device: required (a catalog device id; hwplan devices lists them)");
    if (!opt.count("--axis")) return bad_input("--axis: required (concurrent_users, context_tokens, batch_size or utilization)");
    // The request is the JSON API's: the CLI and the page's what-if view share sweep_json.
    const auto workload = nlohmann::json::parse(text, nullptr, false);
    if (workload.is_discarded()) return bad_input(label + ": not valid JSON");
    nlohmann::json request{{"workload", workload}, {"device", opt["--device"]}, {"axis", opt["--axis"]}};
    if (opt.count("--points")) {
        nlohmann::json pts = nlohmann::json::array();
        std::string list = opt["--points"];
        for (size_t at = 0; at <= list.size();) {
            size_t comma = list.find(',', at);
            if (comma == std::string::npos) comma = list.size();
            const std::string item = list.substr(at, comma - at);
            char* end = nullptr;
            const double v = std::strtod(item.c_str(), &end);
            if (item.empty() || *end != '\0') return bad_input("--points: expected numbers separated by commas, got " + hwplan::quote_input(item));
            pts.push_back(v);
            at = comma + 1;
        }
        request["points"] = pts;
    }
    if (opt.count("--count")) {
        char* end = nullptr;
        const long n = std::strtol(opt["--count"].c_str(), &end, 10);
        if (opt["--count"].empty() || *end != '\0') return bad_input("--count: expected a whole number of devices, got " + hwplan::quote_input(opt["--count"]));
        request["count"] = n;
    }
    const std::string out = hwplan::sweep_json(cat.catalog, request.dump());
    const auto j = nlohmann::json::parse(out);
    if (j.contains("errors")) {
        for (const auto& e : j["errors"]) bad_input(label + ": " + e.value("path", "") + ": " + e.value("message", ""));
        return kExitBadInput;
    }
    if (fmt == "json") {
        std::printf("%s\n", out.c_str());
        return kExitOk;
    }
    const auto& s = j["sweep"];
    std::printf("%s x%d, %s\n", s["device_name"].get<std::string>().c_str(), s["count"].get<int>(), s["axis"].get<std::string>().c_str());
    for (const auto& pt : s["points"]) {
        std::string line = hwplan::format_sig(pt["x"].get<double>(), 6) + (pt["fits"].get<bool>() ? "" : " (does not fit)") + ":";
        for (const auto& [k, f] : pt["figures"].items())
            if (f["value"].is_number())
                line += " " + k + " " + hwplan::format_figure(k == "rent_cost" || k == "own_cost" ? s["unit"].get<std::string>() : k, f["value"].get<double>()) + ";";
        std::printf("%s\n", line.c_str());
    }
    if (s["breakeven_utilization"].is_number())
        std::printf("owning costs what renting costs per useful result at %s %% utilization\n",
                    hwplan::format_sig(100 * s["breakeven_utilization"].get<double>(), 3).c_str());
    return kExitOk;
}

int cmd_scenarios(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    if (auto err = parse_options(args, {"--format", "--catalog"}, opt); !err.empty()) return bad_input(err);
    const std::string fmt = format_option(opt, {"table", "json"});
    if (fmt.empty()) return kExitBadInput;
    hwplan::CatalogLoad cat;
    if (!load(opt, cat)) return kExitBadInput;
    if (fmt == "json") {
        std::printf("%s\n", hwplan::scenarios_json(cat.catalog).c_str());
        return kExitOk;
    }
    for (const auto& sc : cat.catalog.scenarios)
        std::printf("%-30s %s%s\n%-30s   (%s: %s)\n", sc.id.c_str(), sc.team_json.empty() ? "" : "[team] ", sc.question.c_str(), "",
                    sc.lesson.title.c_str(), sc.lesson.locator.c_str());
    std::printf("(%zu scenarios; hwplan plan --scenario ID, or hwplan team --scenario ID for a team)\n", cat.catalog.scenarios.size());
    return kExitOk;
}

int cmd_check_catalog(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    if (auto err = parse_options(args, {"--catalog"}, opt); !err.empty()) return bad_input(err);
    hwplan::CatalogLoad cat;
    if (!load(opt, cat, true)) return kExitBadInput;
    for (const auto& i : cat.issues) std::printf("%s\n", hwplan::to_string(i).c_str());
    // Prices: a device with neither a price nor a stated reason is a problem (a plan would recommend what it
    // cannot price without saying why).
    const hwplan::PriceCoverage pc = hwplan::price_coverage(cat.catalog.devices);
    for (const auto& id : pc.unpriced)
        std::printf("devices/%s.json: prices: no purchase or rental price and no price_unpublished reason\n", id.c_str());
    std::string clouds;
    for (const auto& [cloud, n] : pc.rental_by_cloud) clouds += (clouds.empty() ? "" : ", ") + cloud + " " + std::to_string(n);
    std::printf("prices: %d of %d devices with a purchase price (%d more say why none is public), %d with a rental price "
                "(%s%s%d from GPU clouds and marketplaces; %d more say why none is public), %zu with neither price nor reason\n",
                pc.with_purchase, pc.devices, pc.purchase_reason, pc.with_rental, clouds.c_str(), clouds.empty() ? "" : "; ",
                pc.rental_elsewhere, pc.rental_reason, pc.unpriced.size());
    auto list = [](const std::vector<std::string>& ids) {
        std::string s;
        for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
        return s;
    };
    if (!pc.purchase_unexplained.empty())
        std::printf("  sold, but no purchase price or reason: %s\n", list(pc.purchase_unexplained).c_str());
    if (!pc.rental_unexplained.empty())
        std::printf("  rented, but no rental price or reason: %s\n", list(pc.rental_unexplained).c_str());
    const size_t problems = cat.issues.size() + pc.unpriced.size();
    std::printf("%zu devices, %zu models, %zu APIs loaded; %zu problems\n", cat.catalog.devices.size(),
                cat.catalog.models.size(), cat.catalog.apis.size(), problems);
    return problems == 0 ? kExitOk : 1;
}

int cmd_weights(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    if (auto err = parse_options(args, {"--params", "--precision", "--format"}, opt); !err.empty())
        return bad_input(err);
    if (!opt.count("--params")) return bad_input("--params: required option is missing");
    if (!opt.count("--precision")) return bad_input("--precision: required option is missing");
    const std::string fmt = format_option(opt, {"text", "json"});
    if (fmt.empty()) return kExitBadInput;
    auto params = hwplan::parse_count(opt["--params"]);
    if (!params) return bad_input("--params: expected a number such as 7e9 or 7B, got " + hwplan::quote_input(opt["--params"]));

    const auto est = hwplan::estimate_weights({.params = *params, .precision = opt["--precision"]});
    if (!est.issues.empty()) {
        for (const auto& issue : est.issues) bad_input("--" + issue.path + ": " + issue.message);
        return kExitBadInput;
    }
    if (fmt == "json") {
        std::printf("%s\n", hwplan::to_json(est).c_str());
        return kExitOk;
    }
    std::printf("%s\n", hwplan::format_bytes(est.weights_bytes).c_str());
    std::printf("  %s parameters x %s bytes (%s) = %s bytes\n", hwplan::format_count(est.params).c_str(),
                hwplan::format_sig(est.bytes_per_param).c_str(), std::string(hwplan::name(est.precision)).c_str(),
                hwplan::format_sig(est.weights_bytes, 6).c_str());
    return kExitOk;
}

// One candidate's answer in a line: its count, whether it fits, and the layout (the training layout search's
// best, or its explanation when none fits; the serving split otherwise).
void print_layout_row(const hwplan::Candidate& c) {
    std::string layout;
    if (c.layouts.searched > 0 || !c.layouts.explanation.empty())
        layout = c.layouts.explanation;
    else
        layout = "TP " + std::to_string(c.layout.tensor_parallel) + " x PP " + std::to_string(c.layout.pipeline_parallel) +
                 (c.figures.count("decode_tokens_per_s_per_user")
                      ? ", " + hwplan::format_sig(c.figures.at("decode_tokens_per_s_per_user").value, 3) + " tokens/s per user"
                      : std::string());
    std::printf("%-24s %6d  %-4s %s\n", c.device.c_str(), c.count, c.fits ? "yes" : "no", layout.c_str());
}

// "The fewest devices of each kind for this job" (the plan's own count, ignoring a fixed count), and with
// --devices N "the fastest layout on N devices" of each kind; an impossible N says why and lists the fewest. A workload
// that states hardware.count is planned on that count, as `hwplan plan` plans it, and that view comes first: the fewest
// that fit are then a comparison, not the plan (--devices N asks about another count and replaces it).
int cmd_layouts(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    hwplan::CatalogLoad cat;
    std::string text, label;
    if (!read_workload_arg(args, opt, cat, text, label, {"--format", "--catalog", "--scenario", "--devices"})) return kExitBadInput;
    const std::string fmt = format_option(opt, {"table", "json"});
    if (fmt.empty()) return kExitBadInput;
    auto parsed = hwplan::parse_workload(text, cat.catalog);
    hwplan::Issues issues = parsed.issues;
    const hwplan::AssumptionSet as = hwplan::assumptions_for(cat.catalog, parsed.workload.assumptions, issues);
    if (!issues.empty()) {
        for (const auto& i : issues) bad_input(label + ": " + hwplan::to_string(i));
        return kExitBadInput;
    }
    int n = 0;
    std::string why;
    if (opt.count("--devices")) {
        const auto v = hwplan::parse_number(opt["--devices"]);
        if (!v) return bad_input("--devices: expected a whole number of devices, got " + hwplan::quote_input(opt["--devices"]));
        if (*v < 1 || *v != std::floor(*v) || *v > 1e6)
            why = "--devices: must be a whole number of devices from 1 to 1000000, got " + hwplan::quote_input(opt["--devices"]) +
                  "; nearest: the fewest devices of each kind that fit, below";
        else
            n = int(*v);
    }
    const bool stated = n == 0 && why.empty() && parsed.workload.hardware.count > 0; // the workload's own count: the plan's
    if (stated) n = parsed.workload.hardware.count;
    hwplan::Workload fewest = parsed.workload;
    fewest.hardware.count = 0;
    const hwplan::Plan least = hwplan::plan(fewest, cat.catalog, as, false);
    hwplan::Plan on_n;
    if (n > 0) {
        hwplan::Workload w = parsed.workload;
        w.hardware.count = n;
        on_n = hwplan::plan(w, cat.catalog, as, false);
    }
    if (fmt == "json") {
        std::printf("{\"fewest\": %s, \"on_devices\": %s", hwplan::to_json(least).c_str(), n > 0 ? hwplan::to_json(on_n).c_str() : "null");
        std::printf(", \"devices\": %d, \"devices_from\": %s, \"error\": %s}\n", n,
                    n == 0 ? "null" : stated ? "\"hardware.count\"" : "\"--devices\"", why.empty() ? "null" : ("\"" + why + "\"").c_str());
    } else {
        if (!why.empty()) std::fprintf(stderr, "hwplan: error: %s\n", why.c_str());
        const char* header = "%-24s %6s  %-4s %s\n";
        if (stated) {
            std::printf("The plan (%s): %d devices of each kind, as the workload states (hardware.count), each with its fastest layout:\n", label.c_str(), n);
            std::printf(header, "device", "count", "fits", "layout");
            for (const auto& c : on_n.candidates) print_layout_row(c);
            std::printf("\nFor comparison, the fewest of each kind that fit (not the plan: the workload states its count):\n");
        } else {
            std::printf("Each kind's count and layout as the plan's search chooses them, without a fixed count (%s):\n", label.c_str());
        }
        std::printf(header, "device", "count", "fits", "layout");
        for (const auto& c : least.candidates) print_layout_row(c);
        if (n > 0 && !stated) {
            std::printf("\nThe fastest layout on %d devices of each kind:\n", n);
            std::printf(header, "device", "count", "fits", "layout");
            for (const auto& c : on_n.candidates) print_layout_row(c);
        }
    }
    return why.empty() ? kExitOk : kExitBadInput;
}

#ifndef HWPLAN_VALIDATION_DIR
#error "HWPLAN_VALIDATION_DIR must be defined by the build"
#endif

int cmd_validate(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    if (auto err = parse_options(args, {"--suite", "--format", "--check", "--record", "--catalog"}, opt); !err.empty()) return bad_input(err);
    const std::string fmt = format_option(opt, {"table", "markdown", "json"});
    if (fmt.empty()) return kExitBadInput;
    hwplan::CatalogLoad cat;
    if (!load(opt, cat)) return kExitBadInput;
    const std::string dir = opt.count("--suite") ? opt.at("--suite") : HWPLAN_VALIDATION_DIR;
    std::string error;
    const auto files = hwplan::read_catalog_dir(dir, error);
    if (!error.empty()) return bad_input("--suite: " + error);
    const hwplan::ValidationReport rep = hwplan::run_validation(files, cat.catalog);
    if (fmt == "json") std::printf("%s\n", hwplan::validation_json(rep).c_str());
    else if (fmt == "markdown") std::printf("%s", hwplan::render_validation_markdown(rep).c_str());
    else std::printf("%s", hwplan::render_validation_table(rep).c_str());
    std::fflush(stdout); // the report, then the verdicts on stderr, in that order in a shared log
    for (const auto& i : rep.issues) std::fprintf(stderr, "hwplan: validate: %s\n", hwplan::to_string(i).c_str());
    int rc = rep.issues.empty() ? kExitOk : 1;
    if (opt.count("--record")) {
        std::FILE* f = std::fopen(opt.at("--record").c_str(), "wb");
        if (!f) return bad_input("--record: cannot write \"" + opt.at("--record") + "\"");
        const std::string text = hwplan::baseline_json(rep);
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
        std::fprintf(stderr, "hwplan: validate: recorded the current accuracy in %s\n", opt.at("--record").c_str());
    }
    if (opt.count("--check")) {
        std::FILE* f = std::fopen(opt.at("--check").c_str(), "rb");
        if (!f) return bad_input("--check: cannot read \"" + opt.at("--check") + "\"");
        const std::string text = read_all(f);
        std::fclose(f);
        const auto drops = hwplan::check_baseline(rep, text);
        for (const auto& i : drops) std::fprintf(stderr, "hwplan: validate: accuracy fell: %s\n", hwplan::to_string(i).c_str());
        if (!drops.empty()) rc = 1;
        else std::fprintf(stderr, "hwplan: validate: accuracy at or above the level recorded in %s\n", opt.at("--check").c_str());
    }
    return rc;
}

// Today's date (UTC) for a source's read_on: the CLI is the edge that may read the clock.
std::string today() {
    const std::time_t now = std::time(nullptr);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
    return buf;
}

bool read_text_arg(const std::string& path, std::string& text) {
    std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
    if (!f) return false;
    text = read_all(f);
    if (f != stdin) std::fclose(f);
    return true;
}

int cmd_import_config(const std::vector<std::string>& args) {
    if (args.empty()) return bad_input("import-config: expected a config.json file (or - for standard input)");
    std::map<std::string, std::string> opt;
    if (auto err = parse_options({args.begin() + 1, args.end()}, {"--id", "--name", "--read-on"}, opt); !err.empty()) return bad_input(err);
    std::string text;
    if (!read_text_arg(args[0], text)) return bad_input("cannot read config file \"" + args[0] + "\"");
    const hwplan::HfConfigOptions o{.id = opt.count("--id") ? opt["--id"] : "", .name = opt.count("--name") ? opt["--name"] : "",
                                    .read_on = opt.count("--read-on") ? opt["--read-on"] : today()};
    const hwplan::HfConfigRead r = hwplan::read_hf_config(text, o);
    if (!r.issues.empty()) {
        for (const auto& i : r.issues) bad_input(args[0] + ": " + hwplan::to_string(i));
        return kExitBadInput;
    }
    for (const auto& n : r.notes) std::fprintf(stderr, "hwplan: note: %s\n", n.c_str());
    std::printf("%s\n", r.extension_json.c_str());
    return kExitOk;
}

int cmd_calibrate(const std::vector<std::string>& args) {
    if (args.empty()) return bad_input("calibrate: expected a file of benchmark output (or - for standard input)");
    std::map<std::string, std::string> opt;
    if (auto err = parse_options({args.begin() + 1, args.end()}, {"--workload", "--device", "--read-on", "--catalog", "--extend"}, opt); !err.empty())
        return bad_input(err);
    if (!opt.count("--workload")) return bad_input("--workload: required option is missing (the workload the measurement belongs to)");
    if (!opt.count("--device")) return bad_input("--device: required option is missing (the catalog id of the measured device)");
    hwplan::CatalogLoad cat;
    if (!load(opt, cat, true)) return kExitBadInput;
    std::string text, workload;
    if (!read_text_arg(args[0], text)) return bad_input("cannot read \"" + args[0] + "\"");
    if (!read_text_arg(opt["--workload"], workload)) return bad_input("--workload: cannot read \"" + opt["--workload"] + "\"");
    const hwplan::MeasurementParse parsed = hwplan::parse_measurements(text);
    for (const auto& i : parsed.issues) std::fprintf(stderr, "hwplan: %s: %s\n", parsed.measurements.empty() ? "error" : "note", hwplan::to_string(i).c_str());
    if (parsed.measurements.empty()) return kExitBadInput;
    const auto c = hwplan::calibrate(cat.catalog, workload, opt["--device"], parsed.measurements.back(),
                                     opt.count("--read-on") ? opt["--read-on"] : today());
    if (!c.issues.empty()) {
        for (const auto& i : c.issues) bad_input(hwplan::to_string(i));
        return kExitBadInput;
    }
    std::fprintf(stderr, "hwplan: %s = %s from %s (measured / modelled: %s)\n", c.calibration.assumption.c_str(),
                 hwplan::format_sig(c.calibration.value, 4).c_str(), c.calibration.measurement.c_str(), hwplan::format_sig(c.ratio, 3).c_str());
    std::printf("%s\n", c.extension_json.c_str());
    return kExitOk;
}

int cmd_run_it(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    hwplan::CatalogLoad cat;
    std::string text, label;
    if (!read_workload_arg(args, opt, cat, text, label, {"--format", "--catalog", "--extend", "--scenario", "--device", "--measured", "--read-on", "--release"}))
        return kExitBadInput;
    // --release TOOL=RELEASE[,TOOL=RELEASE]: check the commands of TOOL against that recorded release
    hwplan::RunItOptions run_options;
    if (opt.count("--release")) {
        std::string list = opt["--release"];
        for (size_t start = 0; start <= list.size();) {
            const size_t comma = std::min(list.find(',', start), list.size());
            const std::string item = list.substr(start, comma - start);
            const size_t eq = item.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
                return bad_input("--release: expected TOOL=RELEASE (torchtitan=v0.1.0), got " + hwplan::quote_input(item));
            const std::string tool = item.substr(0, eq), release = item.substr(eq + 1);
            if (!cat.catalog.find_tool(tool)) return bad_input("--release: no tool \"" + tool + "\" in catalog/tools.json");
            if (!hwplan::find_tool_release(cat.catalog, tool, release)) {
                std::string known;
                for (const auto& t : cat.catalog.tools)
                    if (t.id == tool || t.id.rfind(tool + "@", 0) == 0) known += (known.empty() ? "" : ", ") + t.release;
                return bad_input("--release: no release \"" + release + "\" of " + tool + " is recorded (recorded: " + known + ")");
            }
            run_options.releases[tool] = release;
            start = comma + 1;
        }
    }
    const std::string fmt = format_option(opt, {"text", "json"});
    if (fmt.empty()) return kExitBadInput;
    if (opt.count("--scenario") && text.find("\"cards\"") != std::string::npos)
        return bad_input("--scenario: " + opt["--scenario"] + " is a team of workloads; run-it takes one workload");
    if (opt.count("--read-on") && !opt.count("--measured")) return bad_input("--read-on: goes with --measured (the date of the measurement)");
    auto parsed = hwplan::parse_workload(text, cat.catalog);
    hwplan::Issues issues = parsed.issues;
    hwplan::AssumptionSet as;
    if (issues.empty()) as = hwplan::assumptions_for(cat.catalog, parsed.workload.assumptions, issues);
    if (!issues.empty()) {
        for (const auto& i : issues) bad_input(label + ": " + hwplan::to_string(i));
        return kExitBadInput;
    }
    const hwplan::Plan p = hwplan::plan(parsed.workload, cat.catalog, as, false);
    std::string device;
    if (opt.count("--device")) {
        const auto d = hwplan::resolve_device(cat.catalog, opt["--device"]);
        if (!d.item) return bad_input("--device: " + d.issue.message);
        device = d.item->id;
        const bool candidate = std::any_of(p.candidates.begin(), p.candidates.end(), [&](const hwplan::Candidate& c) { return c.device == device; });
        if (!candidate) return bad_input("--device: " + device + " is not a candidate of this plan (the workload's hardware.devices names them)");
    }
    if (opt.count("--measured")) { // predicted against measured, and the plan again with the measurement as a calibration
        std::string pasted;
        if (!read_text_arg(opt["--measured"], pasted)) return bad_input("--measured: cannot read \"" + opt["--measured"] + "\"");
        const hwplan::RunComparison c =
            hwplan::read_back(cat.catalog, text, device, pasted, opt.count("--read-on") ? opt["--read-on"] : today());
        if (!c.issues.empty()) {
            for (const auto& i : c.issues)
                bad_input((i.path.rfind("text", 0) == 0 ? "--measured: " + opt["--measured"] + ": " : label + ": ") + hwplan::to_string(i));
            return kExitBadInput;
        }
        if (fmt == "json") std::printf("%s\n", hwplan::to_json(c).c_str());
        else std::printf("%s", hwplan::comparison_text(c).c_str());
        return kExitOk;
    }
    const hwplan::RunIt r =
        device.empty() && run_options.releases.empty() ? p.run : hwplan::run_it(p, parsed.workload, cat.catalog, device, run_options);
    if (fmt == "json") std::printf("%s\n", hwplan::to_json(r).c_str());
    else std::printf("%s", hwplan::run_text(r).c_str());
    return kExitOk;
}

// One command's body; main() catches whatever escapes it.
int run_command(const std::string& cmd, const std::vector<std::string>& args) {
    if (cmd == "weights") return cmd_weights(args);
    if (cmd == "devices") return cmd_devices(args);
    if (cmd == "models") return cmd_models(args);
    if (cmd == "check-catalog") return cmd_check_catalog(args);
    if (cmd == "plan") return cmd_plan(args);
    if (cmd == "layouts") return cmd_layouts(args);
    if (cmd == "scenarios") return cmd_scenarios(args);
    if (cmd == "card") return cmd_card(args);
    if (cmd == "team") return cmd_team(args);
    if (cmd == "sweep") return cmd_sweep(args);
    if (cmd == "validate") return cmd_validate(args);
    if (cmd == "import-config") return cmd_import_config(args);
    if (cmd == "calibrate") return cmd_calibrate(args);
    if (cmd == "run-it") return cmd_run_it(args);
    if (cmd == "version") {
        std::printf("%s\n", hwplan::version_json().c_str());
        return kExitOk;
    }
    return bad_input("unknown command " + hwplan::quote_input(cmd) + "; run hwplan --help");
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::fputs(kUsage, args.empty() ? stderr : stdout);
        return args.empty() ? kExitBadInput : kExitOk;
    }
    const std::string cmd = args[0];
    args.erase(args.begin());
    // Every command behind one catch: an exception is "hwplan: error: COMMAND: internal error: ...", exit 3,
    // never std::terminate's abort (exit 134) with a C++ type name.
    return hwplan::guarded(cmd, [&] { return run_command(cmd, args); }, [](const hwplan::Issue& i) {
        std::fflush(stdout);
        std::fprintf(stderr, "hwplan: error: %s\n", hwplan::to_string(i).c_str());
        return kExitInternalError;
    });
}
