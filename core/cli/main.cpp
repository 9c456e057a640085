// hwplan command-line program: the same core as the web planner, for course authors, scripts and tests.
// Usage: hwplan weights --params 7e9 --precision bf16 [--format text|json]
//        hwplan version
// Exit codes: 0 ok, 2 bad input (the message names the option and the reason).
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "hwplan/format.h"
#include "hwplan/json_api.h"
#include "hwplan/memory.h"
#include "hwplan/parse.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;

constexpr const char* kUsage = R"(hwplan: an AI hardware planner

Usage:
  hwplan weights --params N --precision P [--format text|json]
        Memory to hold a model's weights. N: parameter count (7e9 for 7B).
        P: fp32, bf16, fp16, fp8, int8, int4.
  hwplan version
  hwplan --help
)";

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
        if (!known) return a.rfind("--", 0) == 0 ? a + ": unknown option" : "unexpected argument \"" + a + "\"";
        if (i + 1 >= args.size()) return a + ": missing value";
        out[a] = args[++i];
    }
    return "";
}

int cmd_weights(const std::vector<std::string>& args) {
    std::map<std::string, std::string> opt;
    if (auto err = parse_options(args, {"--params", "--precision", "--format"}, opt); !err.empty())
        return bad_input(err);
    if (!opt.count("--params")) return bad_input("--params: required option is missing");
    if (!opt.count("--precision")) return bad_input("--precision: required option is missing");
    const std::string fmt = opt.count("--format") ? opt["--format"] : "text";
    if (fmt != "text" && fmt != "json") return bad_input("--format: expected text or json, got \"" + fmt + "\"");
    auto params = hwplan::parse_number(opt["--params"]);
    if (!params) return bad_input("--params: expected a number such as 7e9, got \"" + opt["--params"] + "\"");

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

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::fputs(kUsage, args.empty() ? stderr : stdout);
        return args.empty() ? kExitBadInput : kExitOk;
    }
    const std::string cmd = args[0];
    args.erase(args.begin());
    if (cmd == "weights") return cmd_weights(args);
    if (cmd == "version") {
        std::printf("%s\n", hwplan::version_json().c_str());
        return kExitOk;
    }
    return bad_input("unknown command \"" + cmd + "\"; run hwplan --help");
}
