// measurement.cpp: pasted benchmark output -> measurements -> a calibration of one device (measurement.h).
// Formats as the tools print them: llama-bench's Markdown table (llama.cpp examples/llama-bench/README.md,
// "Output formats: Markdown"), vLLM's benchmark_serving result block and benchmark_throughput line.
#include "hwplan/measurement.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "hwplan/assumptions.h"
#include "hwplan/format.h"
#include "hwplan/guard.h"
#include "hwplan/plan.h"
#include "hwplan/workload.h"
#include "json_reader.h"

namespace hwplan {

namespace {

using namespace detail;

// [SECTION] text helpers ---------------------------------------------------------------------------

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The first number in `s` from `from` on (digits, '.', exponent); false when none. Finite only.
bool number_at(const std::string& s, size_t from, double& out, size_t* end = nullptr) {
    for (size_t i = from; i < s.size(); ++i) {
        const char c = s[i];
        if (!(std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))))
            continue;
        size_t j = i;
        while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
                                ((s[j] == '+' || s[j] == '-') && j > i && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
            ++j;
        const std::string token = s.substr(i, std::min<size_t>(j - i, 64));
        char* stop = nullptr;
        const double v = std::strtod(token.c_str(), &stop);
        if (stop == token.c_str() || !std::isfinite(v)) return false;
        out = v;
        if (end) *end = i + static_cast<size_t>(stop - token.c_str());
        return true;
    }
    return false;
}

std::vector<std::string> cells_of(const std::string& line) {
    std::vector<std::string> cells;
    std::string t = trim(line);
    if (t.empty() || t.front() != '|') return cells;
    t = t.substr(1);
    if (!t.empty() && t.back() == '|') t.pop_back();
    std::stringstream ss(t);
    std::string cell;
    while (std::getline(ss, cell, '|')) cells.push_back(trim(cell));
    return cells;
}

bool is_separator(const std::vector<std::string>& cells) {
    return !cells.empty() && std::all_of(cells.begin(), cells.end(), [](const std::string& c) {
        return !c.empty() && c.find_first_not_of("-: ") == std::string::npos;
    });
}

std::string line_path(int line, const std::string& what) { return "line " + std::to_string(line) + (what.empty() ? "" : "." + what); }

// [SECTION] llama-bench ----------------------------------------------------------------------------

struct BenchHeader {
    int model = -1, params = -1, backend = -1, test = -1, ts = -1;
    size_t cells = 0;
};

// "pp 512", "pp512", "tg128", "pp512 @ d1024" -> kind and token count; false for other tests.
bool read_test(const std::string& cell, bool& prompt, int& tokens, std::string& problem) {
    const std::string c = lower(cell);
    if (c.find('+') != std::string::npos) {
        problem = "combined prompt and generation tests (" + quote_input(cell) + ") are not calibrated; use the pp and tg rows";
        return false;
    }
    if (c.rfind("pp", 0) != 0 && c.rfind("tg", 0) != 0) {
        problem = "unknown test " + quote_input(cell) + " (expected pp N or tg N)";
        return false;
    }
    prompt = c[0] == 'p';
    double n = 0;
    size_t end = 0;
    if (!number_at(c, 2, n, &end) || n < 1 || n > 1e7 || n != std::floor(n)) {
        problem = "expected a token count after " + std::string(prompt ? "pp" : "tg") + ", got " + quote_input(cell);
        return false;
    }
    if (c.find("@") != std::string::npos) {
        problem = "tests at a depth (" + quote_input(cell) + ") are not calibrated; use the rows without @ d";
        return false;
    }
    tokens = static_cast<int>(n);
    return true;
}

// "llama 7B mostly Q4_0" -> "q4_0": the last word, when it looks like a GGUF type or a float width.
std::string weight_format_of(const std::string& model_cell) {
    const auto pos = model_cell.find_last_of(' ');
    const std::string last = lower(pos == std::string::npos ? model_cell : model_cell.substr(pos + 1));
    if (last.size() >= 2 && (last[0] == 'q' || last[0] == 'f' || last[0] == 'b' || last[0] == 'i') &&
        std::any_of(last.begin(), last.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return last;
    return "";
}

void read_bench_row(const BenchHeader& h, const std::vector<std::string>& cells, int line, MeasurementParse& out) {
    if (cells.size() != h.cells) {
        out.issues.push_back({line_path(line, ""), "has " + std::to_string(cells.size()) + " cells, the header " + std::to_string(h.cells)});
        return;
    }
    BenchMeasurement m;
    m.line = line;
    bool prompt = false;
    int tokens = 0;
    std::string problem;
    if (!read_test(cells[h.test], prompt, tokens, problem)) {
        out.issues.push_back({line_path(line, "test"), problem});
        return;
    }
    double ts = 0;
    if (!number_at(cells[h.ts], 0, ts) || !(ts > 0) || ts > 1e9) {
        out.issues.push_back({line_path(line, "t/s"), "expected tokens per second such as 132.19 \u00b1 0.55, got " + quote_input(cells[h.ts])});
        return;
    }
    m.kind = prompt ? MeasurementKind::prefill_tokens_per_s : MeasurementKind::decode_tokens_per_s;
    m.value = ts;
    (prompt ? m.prompt_tokens : m.output_tokens) = tokens;
    if (h.model >= 0) m.weight_format = weight_format_of(cells[h.model]);
    if (h.backend >= 0) m.backend = trim(cells[h.backend]);
    if (h.params >= 0) {
        double p = 0;
        size_t end = 0;
        if (number_at(cells[h.params], 0, p, &end)) {
            const std::string unit = lower(trim(cells[h.params].substr(end)));
            const double scale = unit.rfind("b", 0) == 0 ? 1e9 : unit.rfind("m", 0) == 0 ? 1e6 : unit.rfind("t", 0) == 0 ? 1e12 : 1;
            m.model_params = p * scale;
        }
    }
    m.what = "llama-bench " + std::string(prompt ? "pp " : "tg ") + std::to_string(tokens) + ": " + format_sig(ts, 5) + " t/s" +
             (h.model >= 0 ? " (" + cells[h.model].substr(0, 60) + ")" : "");
    out.measurements.push_back(m);
}

// [SECTION] vLLM -----------------------------------------------------------------------------------

struct ServingBlock {
    int first_line = 0;
    double tpot_s = 0, itl_s = 0, output_tps = 0, requests = 0, input_tokens = 0, output_tokens = 0;
    double request_tps = 0; // "Request throughput (req/s)": items a second against a pooling server (one item a request)
    int concurrency = 0;
    std::string backend;   // SGLang's bench_serving names it ("sglang", "sglang-oai", "vllm"); vLLM's block does not
    bool any = false;
};

void finish_serving(ServingBlock& b, MeasurementParse& out) {
    if (!b.any) return;
    BenchMeasurement m;
    m.line = b.first_line;
    if (b.requests > 0) {
        m.prompt_tokens = static_cast<int>(std::lround(b.input_tokens / b.requests));
        m.output_tokens = static_cast<int>(std::lround(b.output_tokens / b.requests));
    }
    m.concurrency = b.concurrency;
    m.backend = b.backend;
    const std::string tool = b.backend.empty() ? "vLLM benchmark_serving" : "SGLang bench_serving";
    // SGLang's bench_serving of early 2025 prints no TPOT (sglang PR #4973): its mean ITL is the same mean when every
    // request makes the same number of tokens (run-it's --random-range-ratio 1), so it stands in.
    const double tpot_s = b.tpot_s > 0 ? b.tpot_s : b.backend.empty() ? 0 : b.itl_s;
    if (tpot_s > 0 && b.concurrency > 0) {
        m.kind = MeasurementKind::serving_tpot_s;
        m.value = tpot_s;
        m.what = tool + ": mean " + (b.tpot_s > 0 ? "TPOT " : "ITL ") + format_sig(tpot_s * 1e3, 4) + " ms at concurrency " + std::to_string(b.concurrency);
        out.measurements.push_back(m);
    } else if (b.output_tps > 0) {
        m.kind = MeasurementKind::output_tokens_per_s;
        m.value = b.output_tps;
        m.what = tool + ": output " + format_sig(b.output_tps, 5) + " tok/s";
        out.measurements.push_back(m);
    } else if (b.request_tps > 0 && b.output_tokens == 0) {
        // The pooling block (vllm/benchmarks/serve.py, benchmark() with an embeddings backend): no generated tokens, so each
        // request is one item and Request throughput is items a second of the server.
        m.kind = MeasurementKind::items_per_s;
        m.value = b.request_tps;
        m.output_tokens = 0;
        m.what = "vLLM bench serve (pooling): " + format_sig(b.request_tps, 5) + " items/s" +
                 (m.prompt_tokens > 0 ? " of " + std::to_string(m.prompt_tokens) + " tokens" : "") +
                 (b.concurrency > 0 ? " at concurrency " + std::to_string(b.concurrency) : "");
        out.measurements.push_back(m);
    } else {
        out.issues.push_back({line_path(b.first_line, ""), "a benchmark_serving block without \"Mean TPOT (ms)\" and "
                                                           "\"Maximum request concurrency\" or \"Output token throughput (tok/s)\""});
    }
    b = ServingBlock{};
}

// "Key:   value" lines of benchmark_serving's block; true when the line was one of them.
bool read_serving_line(const std::string& line, int number, ServingBlock& b, MeasurementParse& out) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) return false;
    std::string key = trim(line.substr(0, colon));
    if (!key.empty() && key.front() == '#') key = trim(key.substr(1)); // quoted in a shell script or a log
    double v = 0;
    const bool has_number = number_at(line, colon + 1, v);
    struct Key {
        const char* name;
        double ServingBlock::*field;
        double scale;
    };
    if (key == "Backend") { // SGLang's bench_serving: the block's first line names the API it measured
        const std::string backend = trim(line.substr(colon + 1));
        if (backend.empty()) return false;
        if (!b.any) b.first_line = number;
        b.any = true;
        b.backend = backend;
        return true;
    }
    if (key == "Mean ITL (ms)") { // kept quietly: it only stands in for a missing Mean TPOT (0.00 when not streamed)
        if (has_number && v > 0) b.itl_s = v * 1e-3;
        return true;
    }
    if (key == "Request throughput (req/s)") { // kept quietly: it is the measurement only of a pooling block (no generated tokens)
        if (has_number && v > 0) b.request_tps = v;
        return true;
    }
    static const Key kKeys[] = {{"Mean TPOT (ms)", &ServingBlock::tpot_s, 1e-3},
                                {"Output token throughput (tok/s)", &ServingBlock::output_tps, 1},
                                {"Successful requests", &ServingBlock::requests, 1},
                                {"Total input tokens", &ServingBlock::input_tokens, 1},
                                {"Total generated tokens", &ServingBlock::output_tokens, 1}};
    for (const auto& k : kKeys)
        if (key == k.name) {
            if (!has_number || !(v > 0)) {
                out.issues.push_back({line_path(number, key), "expected a positive number"});
                return true;
            }
            if (!b.any) b.first_line = number;
            b.any = true;
            b.*k.field = v * k.scale;
            return true;
        }
    // vLLM's words, SGLang's, and SGLang's spelling of early 2025 (sglang issue #2805)
    if (key == "Maximum request concurrency" || key == "Max request concurrency" || key == "Max reqeuest concurrency") {
        if (trim(line.substr(colon + 1)) == "not set") return true; // SGLang without --max-concurrency
        if (!has_number || v < 1 || v > 1e6 || v != std::floor(v)) out.issues.push_back({line_path(number, key), "expected a whole number of requests"});
        else b.concurrency = static_cast<int>(v);
        if (!b.any) b.first_line = number;
        b.any = true;
        return true;
    }
    return false;
}

// benchmark_throughput: "Throughput: 4.20 requests/s, 2150.35 total tokens/s, 1075.18 output tokens/s".
bool read_throughput_line(const std::string& line, int number, MeasurementParse& out) {
    const std::string l = lower(line);
    const auto at = l.find("throughput:");
    if (at == std::string::npos || l.find("requests/s") == std::string::npos) return false;
    const auto out_at = l.find("output tokens/s");
    if (out_at == std::string::npos) {
        out.issues.push_back({line_path(number, "Throughput"), "no output tokens/s in the line (vLLM's newer benchmark_throughput prints it)"});
        return true;
    }
    // the number right before "output tokens/s"
    size_t start = l.rfind(',', out_at);
    start = start == std::string::npos ? at : start;
    double v = 0;
    if (!number_at(l, start, v) || !(v > 0)) {
        out.issues.push_back({line_path(number, "Throughput"), "expected a number before \"output tokens/s\""});
        return true;
    }
    BenchMeasurement m;
    m.kind = MeasurementKind::output_tokens_per_s;
    m.value = v;
    m.line = number;
    m.what = "vLLM benchmark_throughput: " + format_sig(v, 5) + " output tokens/s";
    out.measurements.push_back(m);
    return true;
}

// [SECTION] torchtitan's training log ----------------------------------------------------------------

// One logged step of torchtitan's metrics line (torchtitan/components/metrics.py, MetricsProcessor.log, v0.1.0 to
// v0.2.2): "step: 10  loss:  3.9119  grad_norm:  1.6558  memory: 66.91GiB(37.51%)  tps: 10,050  tflops: 314.71
// mfu: 13.99%", after the logger's "[titan] 2026-02-24 19:46:17,508 - root - INFO - " (and "[rank0]:" from torchrun).
// tps is tokens a second per device, memory torch.cuda.max_memory_reserved in GiB, mfu a percentage; the step time is
// not printed, so it is read off the timestamps of consecutive logged steps (run-it's config logs every step).
struct TitanStep {
    int step = 0, line = 0;
    double time_s = -1;                 // the logger's timestamp, seconds (days since 1970 x 86400 + time of day); -1: none
    double tps = 0, mfu = 0, memory_gib = 0;
    std::string tps_text, mfu_text, memory_text;
};

// Days from 1970-01-01 of a civil date (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms", days_from_civil).
long days_from_civil(long y, long m, long d) {
    y -= m <= 2 ? 1 : 0;
    const long era = (y >= 0 ? y : y - 399) / 400;
    const long yoe = y - era * 400;
    const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

// "2026-02-24 19:46:17,508" anywhere before `before`; -1 when absent.
double log_timestamp_s(const std::string& l, size_t before) {
    for (size_t i = 0; i + 23 <= before && i + 23 <= l.size(); ++i) {
        const std::string t = l.substr(i, 23);
        auto digits = [&](size_t a, size_t n) {
            for (size_t k = a; k < a + n; ++k)
                if (!std::isdigit(static_cast<unsigned char>(t[k]))) return false;
            return true;
        };
        if (!(digits(0, 4) && t[4] == '-' && digits(5, 2) && t[7] == '-' && digits(8, 2) && t[10] == ' ' && digits(11, 2) && t[13] == ':' &&
              digits(14, 2) && t[16] == ':' && digits(17, 2) && (t[19] == ',' || t[19] == '.') && digits(20, 3)))
            continue;
        const long days = days_from_civil(std::stol(t.substr(0, 4)), std::stol(t.substr(5, 2)), std::stol(t.substr(8, 2)));
        return static_cast<double>(days) * 86400.0 + std::stoi(t.substr(11, 2)) * 3600.0 + std::stoi(t.substr(14, 2)) * 60.0 + std::stoi(t.substr(17, 2)) +
               std::stoi(t.substr(20, 3)) / 1000.0;
    }
    return -1;
}

// The number after `key` in `l` (commas as thousands separators dropped), as value and text; false when absent.
bool titan_field(const std::string& l, const std::string& key, double& v, std::string& text) {
    const size_t at = l.find(key);
    if (at == std::string::npos) return false;
    size_t i = at + key.size();
    while (i < l.size() && l[i] == ' ') ++i;
    size_t j = i;
    while (j < l.size() && (std::isdigit(static_cast<unsigned char>(l[j])) || l[j] == ',' || l[j] == '.')) ++j;
    text = l.substr(i, j - i);
    std::string plain;
    for (char ch : text)
        if (ch != ',') plain += ch;
    double x = 0;
    if (plain.empty() || !number_at(plain, 0, x)) return false;
    v = x;
    return true;
}

// A torchtitan metrics line; ANSI colour codes (its logger's) are dropped first.
bool read_titan_step(const std::string& raw, int number, TitanStep& out) {
    std::string l;
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '\x1b') {
            while (i < raw.size() && raw[i] != 'm') ++i;
            continue;
        }
        l += raw[i];
    }
    const size_t step_at = l.find("step:");
    if (step_at == std::string::npos || l.find("tps:") == std::string::npos || l.find("mfu:") == std::string::npos ||
        l.find("memory:") == std::string::npos || l.find("validate step:") != std::string::npos)
        return false;
    double step = 0;
    std::string text;
    if (!titan_field(l, "step:", step, text)) return false;
    out = TitanStep{};
    out.step = static_cast<int>(step);
    out.line = number;
    out.time_s = log_timestamp_s(l, step_at);
    return titan_field(l, "tps:", out.tps, out.tps_text) && titan_field(l, "mfu:", out.mfu, out.mfu_text) &&
           titan_field(l, "memory:", out.memory_gib, out.memory_text);
}

// The logged steps of a pasted torchtitan log, each step once (the first line of it: several ranks print the same step).
std::vector<TitanStep> titan_steps(const std::string& text) {
    std::vector<TitanStep> steps;
    std::stringstream ss(text);
    std::string line;
    int number = 0;
    while (std::getline(ss, line)) {
        ++number;
        TitanStep st;
        if (!read_titan_step(line, number, st)) continue;
        if (std::any_of(steps.begin(), steps.end(), [&](const TitanStep& x) { return x.step == st.step; })) continue;
        steps.push_back(st);
    }
    return steps;
}

// The step time from the last two logged steps' timestamps: (t_last - t_before) / (steps between); 0 when not stamped.
double titan_step_time_s(const std::vector<TitanStep>& steps) {
    if (steps.size() < 2) return 0;
    const TitanStep& a = steps[steps.size() - 2];
    const TitanStep& b = steps.back();
    if (a.time_s < 0 || b.time_s < 0 || b.step <= a.step || !(b.time_s > a.time_s)) return 0;
    return (b.time_s - a.time_s) / (b.step - a.step);
}

// [SECTION] Training logs and MLX's benchmark: the last value of each key -----------------------------

// One value of a logged step: as printed, and its line.
struct LoggedValue {
    double value = 0;
    std::string text;
    int line = 0;
};

using LoggedValues = std::map<std::string, LoggedValue>;

// The last logged value of each key over a log: `read(line, number, values)` fills the key/value pairs of one line and
// returns false for a line that is not the tool's; each later line overwrites the keys it holds (several ranks or steps:
// the last line wins). `lines` counts the lines read.
template <class ReadLine>
LoggedValues last_values(const std::string& text, ReadLine read, int& lines) {
    LoggedValues last;
    std::stringstream ss(text);
    std::string line;
    int number = 0;
    lines = 0;
    while (std::getline(ss, line)) {
        ++number;
        LoggedValues values;
        if (!read(line, number, values)) continue;
        ++lines;
        for (auto& [k, v] : values) last[k] = v;
    }
    return last;
}

// "key=number" pairs separated by commas, from `from` on: DeepSpeed's "CurrSamplesPerSec=16.8, MaxMemAllocated=0.97GB" and
// MLX's "prompt_tps=2902.166, generation_tps=205.099, peak_memory=3.285"; the number as printed, its unit dropped.
void comma_pairs(const std::string& line, size_t from, int number, LoggedValues& values) {
    while (from < line.size()) {
        const size_t comma = std::min(line.find(',', from), line.size());
        const std::string field = trim(line.substr(from, comma - from));
        from = comma + 1;
        const auto eq = field.find('=');
        if (eq == std::string::npos || eq == 0) continue;
        double v = 0;
        size_t end = 0;
        if (!number_at(field, eq + 1, v, &end) || end <= eq + 1) continue;
        values[field.substr(0, eq)] = {v, field.substr(eq + 1, end - eq - 1), number};
    }
}

// torchtune's metric line (torchtune/training/metric_logging.py at v0.6.1, StdoutLogger and DiskLogger log_dict):
// "Step 12 | loss:1.1174 lr:2e-05 tokens_per_second_per_gpu:542.98 peak_memory_active:.. peak_memory_alloc:..
// peak_memory_reserved:..", the memory figures in GiB (training/memory.py get_memory_stats: bytes / 1024**3).
// Returns the key:value pairs of one such line; false for any other line.
bool read_tune_step(const std::string& raw, int number, int& step, LoggedValues& values) {
    const std::string t = trim(raw);
    if (t.rfind("Step ", 0) != 0) return false;
    size_t i = 5;
    while (i < t.size() && t[i] == ' ') ++i;
    size_t j = i;
    while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
    if (j == i) return false;
    size_t bar = j;
    while (bar < t.size() && t[bar] == ' ') ++bar;
    if (bar >= t.size() || t[bar] != '|') return false;
    step = std::stoi(t.substr(i, std::min<size_t>(j - i, 9)));
    values.clear();
    std::stringstream words(t.substr(bar + 1));
    std::string w;
    while (words >> w) {
        const auto colon = w.find(':');
        if (colon == std::string::npos || colon == 0) continue;
        double v = 0;
        size_t end = 0;
        if (!number_at(w, colon + 1, v, &end)) continue;
        values[w.substr(0, colon)] = {v, w.substr(colon + 1, end - colon - 1), number};
    }
    return values.count("tokens_per_second_per_gpu") || values.count("peak_memory_reserved");
}

// The last logged values of each key over a torchtune log, the step lines and the last step's number.
LoggedValues tune_last_values(const std::string& text, int& steps, int& last_step) {
    return last_values(text, [&](const std::string& line, int number, LoggedValues& values) {
        int step = 0;
        if (!read_tune_step(line, number, step, values)) return false;
        last_step = step;
        return true;
    }, steps);
}

// Megatron-LM's iteration line (megatron/training/training.py training_log): " [2024-04-06 02:59:36] iteration 43/ 100 |
// consumed samples: 5504 | elapsed time per iteration (ms): 5444.9 | throughput per GPU (TFLOP/s/GPU): 239.8 | ...",
// the throughput with --log-throughput; and report_memory's line (megatron/training/utils.py): "[Rank 0] (after 10
// iterations) memory (MB) | allocated: .. | max allocated: .. | reserved: .. | max reserved: 66802.0", in MiB (1024**2).
// Returns "key: value" fields split on '|'; false for any other line.
// A key followed by spaces and a digit ("elapsed time per iteration (ms): 5444.9"): the key as a log prints it, not
// quoted in prose.
bool key_then_number(const std::string& raw, const std::string& key) {
    const size_t at = raw.find(key);
    if (at == std::string::npos) return false;
    size_t i = at + key.size();
    while (i < raw.size() && raw[i] == ' ') ++i;
    return i < raw.size() && std::isdigit(static_cast<unsigned char>(raw[i]));
}

bool read_megatron_line(const std::string& raw, int number, LoggedValues& values) {
    const bool iteration = key_then_number(raw, "elapsed time per iteration (ms):") && key_then_number(raw, "iteration");
    const bool memory = key_then_number(raw, "memory (MB) | allocated:") && key_then_number(raw, "max reserved:");
    if (!iteration && !memory) return false;
    values.clear();
    size_t from = 0;
    while (from <= raw.size()) {
        const size_t bar = std::min(raw.find('|', from), raw.size());
        const std::string field = trim(raw.substr(from, bar - from));
        from = bar + 1;
        const auto colon = field.rfind(':');
        if (colon == std::string::npos) continue;
        double v = 0;
        size_t end = 0;
        const std::string rest = trim(field.substr(colon + 1));
        if (!number_at(rest, 0, v, &end)) continue;
        values[trim(field.substr(0, colon))] = {v, rest.substr(0, end), number};
    }
    return !values.empty();
}

// DeepSpeed's throughput timer line (deepspeed/utils/timer.py ThroughputTimer.stop, every steps_per_print steps):
// "... epoch=0/micro_step=4500/global_step=4500, RunningAvgSamplesPerSec=16.12, CurrSamplesPerSec=16.81,
// MemAllocated=0.02GB, MaxMemAllocated=0.97GB": samples are engine.py's train_batch_size (all devices), memory
// torch.cuda.memory_allocated() / 1024**3 printed as "GB". The last such line's CurrSamplesPerSec and
// MaxMemAllocated, with the count of lines; false when none.
bool deepspeed_last_values(const std::string& text, LoggedValues& last, int& lines) {
    last = last_values(text, [](const std::string& line, int number, LoggedValues& values) {
        if (!key_then_number(line, "CurrSamplesPerSec=")) return false;
        LoggedValues all;
        comma_pairs(line, 0, number, all);
        for (const char* key : {"CurrSamplesPerSec", "MaxMemAllocated"})
            if (const auto it = all.find(key); it != all.end()) values[key] = it->second;
        return !values.empty();
    }, lines);
    return lines > 0;
}

// The last iteration's fields and the last memory report of a Megatron-LM log.
LoggedValues megatron_last_values(const std::string& text, int& iterations) {
    iterations = 0;
    int lines = 0;
    return last_values(text, [&](const std::string& line, int number, LoggedValues& values) {
        if (!read_megatron_line(line, number, values)) return false;
        if (values.count("elapsed time per iteration (ms)")) ++iterations;
        return true;
    }, lines);
}

// Python dicts printed by a trainer's logger, "{'key': value, ...}", one line or wrapped over several (a log viewer or a
// quote breaks long ones): the numeric entries of each (quoted numbers too; other strings, lists and tensors skipped), each
// with the line it is on, and the text before the dict's "{" on its first line ("... Global step 3: "). OpenRLHF's PPOTrainer logs
// logger.info(f"\u2728 Global step {global_step}: {log_status}") every step (openrlhf/trainer/ppo_trainer.py at v0.11.0), and
// the Hugging Face Trainer under Axolotl prints its log dicts with print() (trainer.py log(); Axolotl's base.py adds
// 'memory/device_reserved (GiB)' and the others), so both are Python reprs of a dict of floats.
struct PyDict {
    std::string before;                 // the first line's text before "{"
    int line = 0;                       // the line the dict opens on
    LoggedValues values;
};

std::vector<PyDict> python_dicts(const std::string& text) {
    std::vector<PyDict> out;
    std::vector<std::string> lines;
    {
        std::stringstream ss(text);
        std::string l;
        while (std::getline(ss, l)) lines.push_back(l);
    }
    for (size_t n = 0; n < lines.size(); ++n) {
        const auto open = lines[n].find("{'");
        if (open == std::string::npos) continue;
        PyDict d;
        d.before = lines[n].substr(0, open);
        d.line = int(n) + 1;
        // Entries to the closing "}" (a dict of scalars has no nested braces), at most a few lines on.
        size_t at = open + 1, row = n;
        bool closed = false;
        while (row < lines.size() && row < n + 20 && !closed) {
            const std::string& l = lines[row];
            while (at < l.size()) {
                if (l[at] == '}') { closed = true; break; }
                if (l[at] != '\'') { ++at; continue; }
                const auto key_end = l.find('\'', at + 1);
                if (key_end == std::string::npos) { at = l.size(); break; }
                const std::string key = l.substr(at + 1, key_end - at - 1);
                size_t v = key_end + 1;
                while (v < l.size() && (l[v] == ' ' || l[v] == ':')) ++v;
                const size_t start = v;
                while (v < l.size() && l[v] != ',' && l[v] != '}') ++v;
                std::string token = trim(l.substr(start, v - start));
                // Recent Trainers log their floats formatted as strings ('loss': '0.7157'): a quoted number reads as the number.
                if (token.size() >= 2 && token.front() == '\'' && token.back() == '\'') token = token.substr(1, token.size() - 2);
                char* stop = nullptr;
                const double value = token.empty() ? 0 : std::strtod(token.c_str(), &stop);
                if (!token.empty() && stop == token.c_str() + token.size() && std::isfinite(value)) d.values[key] = {value, token, int(row) + 1};
                at = v;
            }
            if (!closed) { ++row; at = 0; }
        }
        if (!d.values.empty()) out.push_back(std::move(d));
        n = row > n ? row : n;
    }
    return out;
}

// OpenRLHF's step line: the "Global step N" before the dict, N; 0 when the dict is not one.
int openrlhf_step(const PyDict& d) {
    const auto at = d.before.find("Global step ");
    if (at == std::string::npos) return 0;
    double v = 0;
    return number_at(d.before, at + 12, v) ? int(v) : 0;
}

// MLX's benchmark (mlx_lm/benchmark.py at v0.31.3): "Timing with prompt_tokens=2048, generation_tokens=128, batch_size=1."
// (before batching, in 2025: "Timing with prompt_tokens=2048 and generation_tokens=128."), one "Trial N:  prompt_tps=..,
// generation_tps=.., peak_memory=.., total_time=.." line a trial and "Averages: prompt_tps=.., generation_tps=..,
// peak_memory=..": the averages when printed, else the last trial's; peak_memory in GB (mx.get_peak_memory() / 1e9).
struct MlxRun {
    LoggedValues values;                // prompt_tps, generation_tps, peak_memory
    int trials = 0;
    bool averages = false;
    int prompt_tokens = 0, generation_tokens = 0, batch_size = 0; // from the "Timing with" line; 0 when not printed
    int timing_line = 0;
};

bool mlx_run(const std::string& text, MlxRun& out) {
    int lines = 0;
    LoggedValues trial, average;
    out.trials = 0;
    trial = last_values(text, [&](const std::string& raw, int number, LoggedValues& values) {
        const std::string t = trim(raw);
        if (t.rfind("Timing with ", 0) == 0) {
            LoggedValues setup;
            std::string pairs = t;
            for (auto& ch : pairs)
                if (ch == ' ') ch = ','; // "prompt_tokens=2048 and generation_tokens=128." reads as pairs too
            comma_pairs(pairs, 0, number, setup);
            auto whole = [&](const char* k) { const auto it = setup.find(k); return it == setup.end() ? 0 : int(std::lround(it->second.value)); };
            out.prompt_tokens = whole("prompt_tokens");
            out.generation_tokens = whole("generation_tokens");
            out.batch_size = whole("batch_size");
            out.timing_line = number;
            return false;
        }
        const bool is_trial = t.rfind("Trial ", 0) == 0, is_average = t.rfind("Averages:", 0) == 0;
        if (!is_trial && !is_average) return false;
        LoggedValues read;
        comma_pairs(t, t.find(':') + 1, number, read);
        if (!read.count("generation_tps") && !read.count("prompt_tps")) return false;
        if (is_average) {
            average = read;
            return false;
        }
        ++out.trials;
        values = read;
        return true;
    }, lines);
    out.averages = !average.empty();
    out.values = out.averages ? average : trial;
    return !out.values.empty();
}

// [SECTION] step time and peak memory --------------------------------------------------------------

bool read_step_time(const std::string& line, int number, MeasurementParse& out) {
    const std::string l = lower(line);
    size_t key = std::string::npos;
    for (const char* k : {"step time", "step_time", "time per step", "time/step"})
        if ((key = l.find(k)) != std::string::npos) break;
    const size_t per_step = l.find("/step");
    if (key == std::string::npos && per_step == std::string::npos) return false;
    double v = 0;
    size_t end = 0;
    size_t from = key;
    if (key == std::string::npos) { // "1250 ms/step": the number right before the unit
        size_t i = per_step;
        while (i > 0 && (std::isalpha(static_cast<unsigned char>(l[i - 1])) || l[i - 1] == ' ')) --i;
        while (i > 0 && (std::isdigit(static_cast<unsigned char>(l[i - 1])) || l[i - 1] == '.')) --i;
        from = i;
    }
    if (!number_at(l, from, v, &end) || !(v > 0)) {
        out.issues.push_back({line_path(number, "step time"), "expected a positive time such as 1.25 s"});
        return true;
    }
    const std::string rest = trim(l.substr(end));
    const std::string keytext = key != std::string::npos ? l.substr(key, end - key) : "";
    const bool ms = rest.rfind("ms", 0) == 0 || keytext.find("_ms") != std::string::npos;
    const bool s = rest.rfind("s", 0) == 0 || rest.rfind("sec", 0) == 0 || keytext.find("_s") != std::string::npos;
    if (!ms && !s) {
        out.issues.push_back({line_path(number, "step time"), "needs a unit: s or ms (\"step time: 1.25 s\")"});
        return true;
    }
    BenchMeasurement m;
    m.kind = MeasurementKind::step_time_s;
    m.value = ms ? v * 1e-3 : v;
    m.line = number;
    m.what = "step time " + format_sig(m.value, 4) + " s";
    if (!(m.value < 1e7)) {
        out.issues.push_back({line_path(number, "step time"), "implausible step time " + format_sig(m.value, 4) + " s"});
        return true;
    }
    out.measurements.push_back(m);
    return true;
}

bool read_peak_memory(const std::string& line, int number, MeasurementParse& out) {
    const std::string l = lower(line);
    size_t key = std::string::npos;
    for (const char* k : {"peak memory", "peak_memory", "peak mem", "max memory allocated", "max_memory_allocated", "max memory reserved",
                          "max_memory_reserved", "memory peak"})
        if ((key = l.find(k)) != std::string::npos) break;
    if (key == std::string::npos) return false;
    double v = 0;
    size_t end = 0;
    if (!number_at(l, key, v, &end) || !(v > 0)) {
        out.issues.push_back({line_path(number, "peak memory"), "expected a positive size such as 21.3 GB"});
        return true;
    }
    const std::string rest = trim(l.substr(end));
    const std::string keytext = l.substr(key, end - key);
    struct Unit {
        const char* name;
        double bytes;
    };
    static const Unit kUnits[] = {{"gib", 1073741824.0}, {"mib", 1048576.0}, {"kib", 1024.0}, {"tb", 1e12}, {"gb", 1e9},
                                  {"mb", 1e6},           {"kb", 1e3},        {"bytes", 1},     {"b", 1}};
    double scale = 0;
    for (const auto& u : kUnits)
        if (rest.rfind(u.name, 0) == 0 || keytext.find(std::string("_") + u.name) != std::string::npos) {
            scale = u.bytes;
            break;
        }
    if (scale == 0) {
        out.issues.push_back({line_path(number, "peak memory"), "needs a unit: GB, GiB, MB, MiB or bytes (\"peak memory: 21.3 GB\")"});
        return true;
    }
    BenchMeasurement m;
    m.kind = MeasurementKind::peak_memory_bytes;
    m.value = v * scale;
    m.line = number;
    m.what = "peak memory " + format_bytes(m.value);
    if (!(m.value >= 1e6 && m.value < 1e15)) {
        out.issues.push_back({line_path(number, "peak memory"), "implausible peak memory " + format_bytes(m.value)});
        return true;
    }
    out.measurements.push_back(m);
    return true;
}

} // namespace

// [SECTION] parsing --------------------------------------------------------------------------------

MeasurementParse parse_measurements(const std::string& text) {
    MeasurementParse out;
    if (text.size() > kMaxInputBytes) {
        out.issues.push_back({"", "input is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxInputBytes) + " bytes (1 MiB)"});
        return out;
    }
    std::stringstream ss(text);
    std::string line;
    int number = 0;
    BenchHeader header;
    ServingBlock serving;
    while (std::getline(ss, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto cells = cells_of(line);
        if (!cells.empty()) {
            if (is_separator(cells)) continue;
            BenchHeader h;
            h.cells = cells.size();
            for (size_t i = 0; i < cells.size(); ++i) {
                const std::string c = lower(cells[i]);
                if (c == "model") h.model = int(i);
                else if (c == "params") h.params = int(i);
                else if (c == "backend") h.backend = int(i);
                else if (c == "test") h.test = int(i);
                else if (c == "t/s") h.ts = int(i);
            }
            if (h.test >= 0 && h.ts >= 0) header = h;
            else if (header.test >= 0) read_bench_row(header, cells, number, out);
            else out.issues.push_back({line_path(number, ""), "a table row before a header with \"test\" and \"t/s\" columns"});
            continue;
        }
        if (read_serving_line(line, number, serving, out)) continue;
        if (trim(line).find("==========") != std::string::npos && serving.any && serving.tpot_s + serving.output_tps + serving.request_tps > 0) {
            finish_serving(serving, out);
            continue;
        }
        if (read_throughput_line(line, number, out)) continue;
        {
            int step = 0;
            LoggedValues logged;
            if (read_tune_step(line, number, step, logged) || read_megatron_line(line, number, logged)) continue; // after the loop
            if (line.find("generation_tps=") != std::string::npos) continue; // mlx_lm.benchmark's trial and average lines: after the loop
        }
        if (read_peak_memory(line, number, out)) continue;
        if (read_step_time(line, number, out)) continue;
    }
    finish_serving(serving, out);
    // torchtitan's metrics lines: the step time off their timestamps, and the peak memory reserved of the last step.
    if (const std::vector<TitanStep> steps = titan_steps(text); !steps.empty()) {
        const TitanStep& last = steps.back();
        if (const double step_s = titan_step_time_s(steps); step_s > 0) {
            BenchMeasurement m;
            m.kind = MeasurementKind::step_time_s;
            m.value = step_s;
            m.line = last.line;
            m.what = "torchtitan: step time " + format_sig(step_s, 4) + " s (timestamps of steps " + std::to_string(steps[steps.size() - 2].step) + " and " +
                     std::to_string(last.step) + ")";
            out.measurements.push_back(m);
        }
        if (last.memory_gib > 0) {
            BenchMeasurement m;
            m.kind = MeasurementKind::peak_memory_bytes;
            m.value = last.memory_gib * 1073741824.0;
            m.line = last.line;
            m.what = "torchtitan: memory " + last.memory_text + " GiB reserved at step " + std::to_string(last.step);
            out.measurements.push_back(m);
        }
    }
    // torchtune's last peak_memory_reserved (GiB); it prints no step time.
    {
        int steps = 0, last_step = 0;
        const auto tune = tune_last_values(text, steps, last_step);
        if (const auto it = tune.find("peak_memory_reserved"); it != tune.end() && it->second.value > 0) {
            BenchMeasurement m;
            m.kind = MeasurementKind::peak_memory_bytes;
            m.value = it->second.value * 1073741824.0;
            m.line = it->second.line;
            m.what = "torchtune: peak_memory_reserved " + it->second.text + " GiB at step " + std::to_string(last_step);
            out.measurements.push_back(m);
        }
    }
    // Megatron-LM's last iteration time and its memory report's max reserved (MiB).
    {
        int iterations = 0;
        const auto mega = megatron_last_values(text, iterations);
        if (const auto it = mega.find("elapsed time per iteration (ms)"); it != mega.end() && it->second.value > 0) {
            BenchMeasurement m;
            m.kind = MeasurementKind::step_time_s;
            m.value = it->second.value * 1e-3;
            m.line = it->second.line;
            m.what = "Megatron-LM: elapsed time per iteration " + it->second.text + " ms (the last of " + std::to_string(iterations) + " iterations)";
            out.measurements.push_back(m);
        }
        if (const auto it = mega.find("max reserved"); it != mega.end() && it->second.value > 0) {
            BenchMeasurement m;
            m.kind = MeasurementKind::peak_memory_bytes;
            m.value = it->second.value * 1048576.0;
            m.line = it->second.line;
            m.what = "Megatron-LM: max reserved " + it->second.text + " MB (MiB)";
            out.measurements.push_back(m);
        }
    }
    // MLX's benchmark: one sequence's prompt and generation speed (as llama-bench's pp and tg), or with a batch the
    // generation step of the batch: batch_size sequences a step at generation_tps tokens a second, so a token of each
    // sequence every batch_size / generation_tps seconds (BatchStats: generated tokens over the generation time).
    if (MlxRun mlx; mlx_run(text, mlx)) {
        auto add = [&](MeasurementKind kind, double value, const std::string& what, int at) {
            BenchMeasurement m;
            m.kind = kind;
            m.value = value;
            m.line = at;
            m.what = what;
            m.backend = "MLX";
            m.prompt_tokens = mlx.prompt_tokens;
            m.output_tokens = mlx.generation_tokens;
            return m;
        };
        const int batch = std::max(1, mlx.batch_size);
        if (const auto it = mlx.values.find("prompt_tps"); it != mlx.values.end() && it->second.value > 0 && batch == 1 && mlx.prompt_tokens > 0)
            out.measurements.push_back(add(MeasurementKind::prefill_tokens_per_s, it->second.value, "mlx_lm.benchmark: prompt_tps " + it->second.text +
                                           " at " + std::to_string(mlx.prompt_tokens) + " prompt tokens", it->second.line));
        if (const auto it = mlx.values.find("generation_tps"); it != mlx.values.end() && it->second.value > 0) {
            if (batch == 1)
                out.measurements.push_back(add(MeasurementKind::decode_tokens_per_s, it->second.value, "mlx_lm.benchmark: generation_tps " + it->second.text,
                                               it->second.line));
            else {
                BenchMeasurement m = add(MeasurementKind::serving_tpot_s, batch / it->second.value,
                                         "mlx_lm.benchmark: generation_tps " + it->second.text + " at batch " + std::to_string(batch) + ", a step of " +
                                             format_sig(batch / it->second.value * 1e3, 4) + " ms",
                                         it->second.line);
                m.concurrency = batch;
                out.measurements.push_back(m);
            }
        }
    }
    // OpenRLHF's last "Global step" line: its training phase (timing/ppo_train, seconds), the phase a trainer's MFU sets.
    {
        const std::vector<PyDict> dicts = python_dicts(text);
        const PyDict* last = nullptr;
        for (const auto& d : dicts)
            if (openrlhf_step(d) > 0 && d.values.count("timing/ppo_train")) last = &d;
        if (last) {
            const auto& v = last->values.at("timing/ppo_train");
            if (v.value > 0) {
                BenchMeasurement m;
                m.kind = MeasurementKind::rl_train_s;
                m.value = v.value;
                m.line = v.line;
                m.what = "OpenRLHF: timing/ppo_train " + v.text + " s at global step " + std::to_string(openrlhf_step(*last));
                out.measurements.push_back(m);
            }
        }
    }
    if (out.measurements.empty() && out.issues.empty())
        out.issues.push_back({"", "no measurement found: paste llama-bench's table, vLLM benchmark_serving's result block or "
                                  "benchmark_throughput's line, a step time (\"step time: 1.25 s\") or a peak memory (\"peak memory: 21.3 GB\")"});
    return out;
}

// [SECTION] calibration ----------------------------------------------------------------------------

namespace {

struct Target {
    std::string assumption;
    std::string figure;   // plan figure name, or "memory_total_bytes"
    double measured = 0;  // in the figure's unit
};

// A figure in seconds ("decode_step_s", "ttft_s"), not a rate ("throughput_tokens_per_s" also ends in "_s").
bool is_time(const std::string& figure) {
    const auto ends = [&](const std::string& tail) { return figure.size() > tail.size() && figure.compare(figure.size() - tail.size(), tail.size(), tail) == 0; };
    return ends("_s") && !ends("_per_s");
}

// The figure of the candidate on `device` in the plan of `doc` with the assumption pinned to `x` (x < 0: not pinned).
bool figure_at(const Catalog& cat, json doc, const std::string& device, const Target& t, double x, double& value, Issues& issues) {
    if (x >= 0) doc["assumptions"][t.assumption] = x;
    const Plan p = plan_from_json(doc.dump(), cat, false);
    if (!p.issues.empty()) {
        for (const auto& is : p.issues) issues.push_back({"workload" + (is.path.empty() ? "" : "." + is.path), is.message});
        return false;
    }
    for (const auto& c : p.candidates) {
        if (c.device != device) continue;
        if (t.figure == "memory_total_bytes") {
            value = c.memory.total_bytes;
            return true;
        }
        if (t.figure == "rl.train_s") { // the RL pools' training phase (rl.h RlPools::train_s), not a figure of its own
            if (!(c.rl.train_s > 0) || !std::isfinite(c.rl.train_s)) {
                issues.push_back({"device", "the plan on " + device + " has no RL training phase (no published peak for the compute precision?)"});
                return false;
            }
            value = c.rl.train_s;
            return true;
        }
        auto it = c.figures.find(t.figure);
        if (it == c.figures.end() || !std::isfinite(it->second.value) || !(it->second.value > 0)) {
            issues.push_back({"device", "the plan on " + device + " has no " + t.figure + " (no published peak for the compute precision?)"});
            return false;
        }
        value = it->second.value;
        return true;
    }
    issues.push_back({"device", "the plan has no candidate on " + device});
    return false;
}

CalibrationResult calibrate_unguarded(const Catalog& catalog, const std::string& workload_json, const std::string& device_id,
                                      const BenchMeasurement& m, const std::string& read_on) {
    CalibrationResult out;
    Context ctx{"", out.issues};
    auto raw = parse_object(workload_json, ctx);
    if (!raw) {
        for (auto& is : out.issues) is.path = "workload" + (is.path.empty() ? "" : "." + is.path);
        return out;
    }
    const Device* dev = catalog.device_by_id(device_id);
    if (!dev) {
        out.issues.push_back({"device", "unknown device id " + quote_input(device_id)});
        return out;
    }
    if (read_on.empty() || read_on.size() != 10) out.issues.push_back({"read_on", "expected an ISO date YYYY-MM-DD"});
    if (!raw->contains("model")) out.issues.push_back({"workload.model", "required field is missing (the model the measurement was taken with)"});
    if (!out.issues.empty()) return out;
    // The workload read by the plan's own reader, in its canonical form (workload_to_json): a precision given as
    // a format name ("bf16") is the object {weights, kv_cache, compute} there, a model name its catalog id, and a
    // field of the wrong type the plan's named error. The measured setup below is built from that form only,
    // never from the shapes of the raw JSON. A stage left out is a serving workload (a benchmark's).
    if (!raw->contains("stage")) (*raw)["stage"] = "serve";
    const WorkloadParse given = parse_workload(raw->dump(-1, ' ', false, json::error_handler_t::replace), catalog);
    for (const auto& is : given.issues) out.issues.push_back({"workload" + (is.path.empty() ? "" : "." + is.path), is.message});
    if (!out.issues.empty()) return out;
    const json base = json::parse(workload_to_json(given.workload));
    const json model = base.at("model");
    const std::string stage(name(given.workload.stage));
    json doc;
    Target t;
    auto one_sequence = [&](int prompt, int output) {
        doc = {{"stage", "serve"}, {"model", model}};
        if (base.contains("precision")) doc["precision"] = base.at("precision");
        if (!m.weight_format.empty() && catalog.find_format(m.weight_format)) doc["precision"]["weights"] = m.weight_format;
        doc["serve"] = {{"context_tokens", prompt + output}, {"prompt_tokens", prompt}, {"output_tokens", output}, {"concurrent_users", 1}};
        // llama-bench names the ggml backend it ran ("Vulkan" for a GGML_VULKAN build, "CUDA", "Metal"; "Vulkan,BLAS"
        // when a second one is loaded): the Vulkan backend is a framework of its own for the decode rules.
        doc["framework"] = lower(m.backend) == "mlx" ? "mlx" : lower(m.backend).rfind("vulkan", 0) == 0 ? "llama.cpp-vulkan" : "llama.cpp";
    };
    switch (m.kind) {
    case MeasurementKind::decode_tokens_per_s:
        one_sequence(1, std::max(1, m.output_tokens));
        t = {"decode_bandwidth_efficiency", "decode_tokens_per_s_per_user", m.value};
        break;
    case MeasurementKind::prefill_tokens_per_s:
        one_sequence(std::max(1, m.prompt_tokens), 1);
        t = {"prefill_compute_efficiency", "ttft_s", m.prompt_tokens / m.value};
        break;
    case MeasurementKind::serving_tpot_s: {
        doc = {{"stage", "serve"}, {"model", model}};
        if (base.contains("precision")) doc["precision"] = base.at("precision");
        const json serve = base.contains("serve") ? base.at("serve") : json::object();
        json s = json::object();
        if (m.prompt_tokens > 0 && m.output_tokens > 0) {
            s["prompt_tokens"] = m.prompt_tokens;
            s["output_tokens"] = m.output_tokens;
            s["context_tokens"] = m.prompt_tokens + m.output_tokens;
        } else if (serve.contains("context_tokens")) {
            for (const char* k : {"context_tokens", "prompt_tokens", "output_tokens"})
                if (serve.contains(k)) s[k] = serve.at(k);
        }
        s["concurrent_users"] = m.concurrency;
        doc["serve"] = s;
        // the engine the block measured
        doc["framework"] = lower(m.backend).rfind("sglang", 0) == 0 ? "sglang" : m.backend == "MLX" ? "mlx" : m.backend == "tensorrt-llm" ? "tensorrt-llm" : "vllm";
        t = {"decode_bandwidth_efficiency", "decode_step_s", m.value};
        break;
    }
    case MeasurementKind::output_tokens_per_s:
        if (stage != "serve" && stage != "batch") {
            out.issues.push_back({"workload.stage", "an output throughput calibrates a serve or batch workload, got " + quote_input(stage)});
            return out;
        }
        doc = base;
        t = {"decode_bandwidth_efficiency", "throughput_tokens_per_s", m.value};
        break;
    case MeasurementKind::step_time_s:
        if (stage != "finetune" && stage != "pretrain") {
            out.issues.push_back({"workload.stage", "a step time calibrates a finetune or pretrain workload, got " + quote_input(stage)});
            return out;
        }
        doc = base;
        t = {stage == "finetune" ? "finetune_mfu" : "training_mfu", "step_time_s", m.value};
        break;
    case MeasurementKind::peak_memory_bytes:
        doc = base;
        t = {"runtime_context_bytes", "memory_total_bytes", m.value};
        break;
    case MeasurementKind::items_per_s:
        // One device's server at the measured items in flight and tokens an item (plan_embed.cpp: an encoder batch of
        // embed.batch_size items on each device), so the candidate's items_per_s is that server's.
        if (stage != "embed") {
            out.issues.push_back({"workload.stage", "items a second calibrate an embed workload, got " + quote_input(stage)});
            return out;
        }
        doc = base;
        if (m.concurrency > 0) doc["embed"]["batch_size"] = m.concurrency;
        if (m.prompt_tokens > 0) doc["embed"]["tokens_per_item"] = m.prompt_tokens;
        t = {"encoder_compute_efficiency", "items_per_s", m.value};
        break;
    case MeasurementKind::rl_train_s:
        // The trainer's pass over a step's rollouts (plan_rl.cpp: rollouts x (prompt + output) tokens at the trainer's
        // train_tokens_per_s), priced by the fine-tune MFU (plan_training.cpp: every stage but pretraining).
        if (stage != "rl") {
            out.issues.push_back({"workload.stage", "an RL training phase calibrates an rl workload, got " + quote_input(stage)});
            return out;
        }
        doc = base;
        t = {"finetune_mfu", "rl.train_s", m.value};
        break;
    }
    // The measured device alone (its count as the workload gives it), the assumption free.
    json hw = doc.contains("hardware") && doc["hardware"].is_object() ? doc["hardware"] : json::object();
    hw["devices"] = json::array({device_id});
    if (m.kind == MeasurementKind::decode_tokens_per_s || m.kind == MeasurementKind::prefill_tokens_per_s || m.kind == MeasurementKind::items_per_s)
        hw["count"] = 1;
    doc["hardware"] = hw;
    if (doc.contains("assumptions") && doc["assumptions"].is_object()) doc["assumptions"].erase(t.assumption);
    if (doc.contains("decision")) doc.erase("decision"); // feasibility does not change a candidate's figures

    // Before: the plan as the catalog stands, without an earlier calibration of the same kind on this device.
    Catalog cat = catalog;
    auto& list = cat.calibrations;
    list.erase(std::remove_if(list.begin(), list.end(), [&](const Calibration& c) { return c.device == device_id && c.assumption == t.assumption; }),
               list.end());
    double modelled = 0;
    if (!figure_at(cat, doc, device_id, t, -1, modelled, out.issues)) return out;
    const WorkloadParse measured_setup = parse_workload(doc.dump(), cat); // valid: figure_at planned it
    if (m.model_params > 0) { // llama-bench names the model's size: it must be the workload's model
        const double p = measured_setup.workload.model.params;
        if (p > 0 && std::abs(m.model_params / p - 1) > 0.10)
            out.issues.push_back({"workload.model", "the measurement's model has " + format_count(m.model_params) + " parameters, the workload's " +
                                                        format_count(p) + ": pick the model that was measured"});
        if (!out.issues.empty()) return out;
    }

    // Bisection over the assumption's range: the figure is monotonic in it (faster or larger with the value).
    const auto def = cat.assumptions.find(t.assumption);
    const bool ratio = def != cat.assumptions.end() && def->second.unit == "ratio";
    double lo = ratio ? 1e-3 : 0, hi = ratio ? 1.0 : std::max(dev->memory_bytes, 1e9);
    double f_lo = 0, f_hi = 0;
    if (!figure_at(cat, doc, device_id, t, lo, f_lo, out.issues) || !figure_at(cat, doc, device_id, t, hi, f_hi, out.issues)) return out;
    const bool increasing = f_hi > f_lo;
    const double reach_lo = std::min(f_lo, f_hi), reach_hi = std::max(f_lo, f_hi);
    auto show = [&](double v) {
        if (t.figure == "memory_total_bytes") return format_bytes(v);
        if (is_time(t.figure)) return format_sig(v, 4) + " s";
        if (t.figure == "items_per_s") return format_sig(v, 4) + " items/s";
        return format_sig(v, 4) + " tokens/s";
    };
    if (t.measured < reach_lo * (1 - 1e-9) || t.measured > reach_hi * (1 + 1e-9)) {
        const bool beyond_best = increasing ? t.measured > reach_hi : t.measured < reach_lo;
        const std::string best = show(f_hi), worst = show(f_lo);
        out.issues.push_back({"measurement", "measured " + show(t.measured) + " is outside what " + t.assumption + " can reach on " + device_id + " (" +
                                                 (beyond_best ? "best " + best + " at " + format_sig(hi, 4) : "worst " + worst + " at " + format_sig(lo, 4)) +
                                                 "): check the device, the model, its precision and the count"});
        return out;
    }
    for (int i = 0; i < 60 && hi - lo > (ratio ? 1e-6 : 1e3); ++i) {
        const double mid = 0.5 * (lo + hi);
        double f = 0;
        if (!figure_at(cat, doc, device_id, t, mid, f, out.issues)) return out;
        ((f < t.measured) == increasing ? lo : hi) = mid;
    }
    const double value = 0.5 * (lo + hi);

    Calibration& k = out.calibration;
    k.device = device_id;
    k.assumption = t.assumption;
    k.value = ratio ? std::round(value * 1e4) / 1e4 : std::round(value / 1e6) * 1e6;
    k.figure = t.figure;
    k.measured = t.measured;
    k.modelled = modelled;
    k.measurement = m.what;
    k.model = model.is_string() ? model.get<std::string>() : "";
    k.precision = measured_setup.workload.precision.weights;
    k.read_on = read_on;
    const bool time_like = is_time(t.figure);
    out.ratio = time_like ? modelled / t.measured : t.measured / modelled;
    json entry = {{"device", k.device},     {"assumption", k.assumption}, {"value", k.value},       {"figure", k.figure},
                  {"measured", k.measured}, {"modelled", k.modelled},     {"measurement", k.measurement}, {"read_on", k.read_on}};
    if (!k.model.empty()) entry["model"] = k.model;
    if (!k.precision.empty()) entry["precision"] = k.precision;
    out.extension_json = json{{"calibrations", json::array({entry})}}.dump(-1, ' ', false, json::error_handler_t::replace);
    return out;
}

std::string calibrate_json_unguarded(const Catalog& catalog, const std::string& request) {
    Issues issues;
    Context ctx{"", issues};
    json errors = json::array();
    auto fail = [&](const Issues& list) {
        for (const auto& is : list) errors.push_back({{"path", is.path}, {"message", is.message}});
        return json{{"errors", errors}}.dump(-1, ' ', false, json::error_handler_t::replace);
    };
    auto doc = parse_object(request, ctx);
    if (!doc) return fail(issues);
    Reader r(ctx, "", *doc);
    const json* workload = r.raw("workload");
    const std::string device = r.string("device", true).value_or("");
    const std::string text = r.string("text", true).value_or("");
    const std::string read_on = r.string("read_on", true).value_or("");
    const auto index = r.integer("index", false, 0, 100000);
    r.finish();
    if (!workload) ctx.add("workload", "required field is missing (the workload the measurement belongs to)");
    else if (!workload->is_object()) ctx.add("workload", "expected an object, got " + type_name(*workload));
    if (!issues.empty()) return fail(issues);
    MeasurementParse parsed = parse_measurements(text);
    if (parsed.measurements.empty()) {
        for (auto& is : parsed.issues) is.path = "text" + (is.path.empty() ? "" : "." + is.path);
        return fail(parsed.issues);
    }
    const size_t pick = index ? size_t(*index) : parsed.measurements.size() - 1;
    if (pick >= parsed.measurements.size())
        return fail({{"index", parsed.measurements.size() == 1 ? std::string("the text has 1 measurement (index 0)")
                                                                : "the text has " + std::to_string(parsed.measurements.size()) + " measurements (0 to " +
                                                                      std::to_string(parsed.measurements.size() - 1) + ")"}});
    CalibrationResult c = calibrate(catalog, workload->dump(), device, parsed.measurements[pick], read_on);
    if (!c.issues.empty()) return fail(c.issues);
    json list = json::array();
    for (const auto& m : parsed.measurements)
        list.push_back({{"kind", name(m.kind)}, {"value", m.value}, {"what", m.what}, {"line", m.line}});
    json warnings = json::array();
    for (const auto& is : parsed.issues) warnings.push_back({{"path", "text." + is.path}, {"message", is.message}});
    json out = {{"calibration", json::parse(c.extension_json)["calibrations"][0]},
                {"ratio", c.ratio},
                {"extension", json::parse(c.extension_json)},
                {"measurements", list},
                {"used", pick},
                {"warnings", warnings}};
    return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace

// The two entry points are edges (the CLI and the page call them with the user's text): guarded (guard.h).
CalibrationResult calibrate(const Catalog& catalog, const std::string& workload_json, const std::string& device_id,
                            const BenchMeasurement& m, const std::string& read_on) {
    return guarded("calibrate", [&] { return calibrate_unguarded(catalog, workload_json, device_id, m, read_on); }, [](const Issue& i) {
        CalibrationResult failed;
        failed.issues = {i};
        return failed;
    });
}

std::string calibrate_json(const Catalog& catalog, const std::string& request) {
    return guarded("calibrate", [&] { return calibrate_json_unguarded(catalog, request); }, [](const Issue& i) {
        return json{{"errors", json::array({{{"path", i.path}, {"message", i.message}}})}}.dump(-1, ' ', false, json::error_handler_t::replace);
    });
}

// [SECTION] what a benchmark printed, line by line ---------------------------------------------------

namespace {

// vLLM's serving result block: "Key:   value" lines (vllm/benchmarks/serve.py, benchmarks/benchmark_serving.py).
// The keys before the block's header in older releases ("Maximum request concurrency: 32" above the "====" line)
// belong to the block that follows.
bool vllm_key(const std::string& key, bool& before_header) {
    static const char* const kBefore[] = {"Traffic request rate", "Maximum request concurrency", "Burstiness factor (1.0 = Poisson process)"};
    static const char* const kKeys[] = {"Successful requests", "Failed requests", "Request rate configured (RPS)", "Benchmark duration (s)",
                                        "Total input tokens", "Total generated tokens", "Request throughput (req/s)", "Request goodput (req/s)",
                                        "Output token throughput (tok/s)", "Peak output token throughput (tok/s)", "Peak concurrent requests",
                                        "Total Token throughput (tok/s)", "Total token throughput (tok/s)",
                                        // a pooling (embedding) run's line (serve.py, benchmark(): EmbedBenchmarkMetrics)
                                        "Input throughput (inputs/s)",
                                        // SGLang's bench_serving (python/sglang/bench_serving.py, benchmark()): its own lines, and its
                                        // concurrency line, spelt "Max reqeuest concurrency" in releases of early 2025 (issue #2805)
                                        "Max request concurrency", "Max reqeuest concurrency", "Total input text tokens", "Total input vision tokens",
                                        "Total generated tokens (retokenized)", "Input token throughput (tok/s)", "Concurrency", "Accept length",
                                        // TensorRT-LLM's fork (tensorrt_llm/serve/scripts/benchmark_serving.py): its own lines
                                        "Total requests", "User throughput (tok/s)", "Mean Request AR", "Median Request AR"};
    before_header = false;
    for (const char* k : kBefore)
        if (key == k) return before_header = true;
    for (const char* k : kKeys)
        if (key == k) return true;
    // "Mean TTFT (ms)", "Median TPOT (ms)", "P99 ITL (ms)", "P99.9 E2EL (ms)": a statistic of a per-request metric
    // (SGLang's also "Max ITL (ms)" and "Mean E2E Latency (ms)").
    const auto space = key.find(' ');
    if (space == std::string::npos || key.size() < 5 || key.substr(key.size() - 5) != " (ms)") return false;
    const std::string stat = key.substr(0, space), metric = key.substr(space + 1, key.size() - 5 - space - 1);
    const bool stat_ok = stat == "Mean" || stat == "Median" || stat == "Std" || stat == "Max" ||
                         (stat.size() > 1 && stat[0] == 'P' && stat.find_first_not_of("0123456789.", 1) == std::string::npos);
    return stat_ok && (metric == "TTFT" || metric == "TPOT" || metric == "ITL" || metric == "E2EL" || metric == "E2E Latency");
}

// Lines only TensorRT-LLM's benchmark_serving prints: a block holding one is its, not vLLM's.
bool trtllm_key(const std::string& key) {
    return key == "Total requests" || key == "User throughput (tok/s)" || key == "Mean Request AR" || key == "Median Request AR";
}

// "pp 512" -> "pp512"; "" for a test that is not one pp or tg of its own (a depth, pp+tg).
std::string compact_test(const std::string& cell) {
    bool prompt = false;
    int tokens = 0;
    std::string problem;
    if (!read_test(cell, prompt, tokens, problem)) return "";
    return (prompt ? "pp" : "tg") + std::to_string(tokens);
}

} // namespace

const MeasuredLine* BenchReport::find(const std::string& metric) const {
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (it->metric == metric) return &*it;
    return nullptr;
}

BenchReport read_bench_report(const std::string& text) {
    BenchReport out;
    if (text.size() > kMaxInputBytes) {
        out.issues.push_back({"text", "input is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxInputBytes) + " bytes (1 MiB)"});
        return out;
    }
    std::stringstream ss(text);
    std::string line;
    int number = 0;
    // vLLM: blocks of lines; the last complete one is the report.
    // A block that names its backend ("Backend:    sglang") is SGLang's bench_serving's; vLLM's names none.
    // A block with a line only TensorRT-LLM's fork prints ("User throughput (tok/s)") is its benchmark_serving's.
    std::vector<std::vector<MeasuredLine>> blocks;
    std::vector<std::string> block_tool;
    std::vector<MeasuredLine> block, before;
    bool in_block = false, sglang = false, trtllm = false;
    auto end_block = [&] {
        if (in_block && !block.empty()) {
            blocks.push_back(block);
            block_tool.push_back(sglang ? "sglang-bench-serving" : trtllm ? "trtllm-benchmark-serving" : "vllm-bench-serve");
        }
        block.clear();
        in_block = false;
        sglang = false;
        trtllm = false;
    };
    // llama-bench: the table's rows, one line per test.
    BenchHeader header;
    std::vector<MeasuredLine> rows;
    std::vector<std::string> skipped;
    while (std::getline(ss, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto cells = cells_of(line);
        if (!cells.empty()) {
            if (is_separator(cells)) continue;
            BenchHeader h;
            h.cells = cells.size();
            for (size_t i = 0; i < cells.size(); ++i) {
                const std::string c = lower(cells[i]);
                if (c == "test") h.test = int(i);
                else if (c == "t/s") h.ts = int(i);
            }
            if (h.test >= 0 && h.ts >= 0) {
                header = h;
                continue;
            }
            if (header.test < 0 || cells.size() != header.cells) continue;
            const std::string test = compact_test(cells[size_t(header.test)]);
            double v = 0;
            size_t end = 0;
            const std::string& ts = cells[size_t(header.ts)];
            if (test.empty()) {
                skipped.push_back(cells[size_t(header.test)]);
                continue;
            }
            if (!number_at(ts, 0, v, &end) || !(v > 0)) {
                out.notes.push_back("line " + std::to_string(number) + ": skipped, expected tokens per second such as 132.19 \u00b1 0.55, got " + quote_input(ts));
                continue;
            }
            const size_t start = ts.find_first_of("0123456789.");
            rows.push_back({test + " (t/s)", v, ts.substr(start, end - start), number});
            continue;
        }
        std::string t = trim(line);
        if (!t.empty() && t.front() == '#') t = trim(t.substr(1)); // quoted in a shell script or a log
        if (t.find("Serving Benchmark Result") != std::string::npos) {
            end_block();
            in_block = true;
            block = before;
            before.clear();
            continue;
        }
        if (t.size() >= 10 && t.find_first_not_of('=') == std::string::npos) {
            end_block();
            continue;
        }
        const auto colon = t.find(':');
        if (colon == std::string::npos) continue;
        const std::string key = trim(t.substr(0, colon));
        if (key == "Backend") { // SGLang's first line, a name: the block is SGLang's bench_serving's
            if (!in_block) {
                in_block = true;
                block = before;
                before.clear();
            }
            sglang = true;
            continue;
        }
        bool before_header = false;
        if (!vllm_key(key, before_header)) continue;
        const std::string rest = trim(t.substr(colon + 1));
        double v = 0;
        size_t end = 0;
        if (rest.empty() || !(std::isdigit(static_cast<unsigned char>(rest[0])) || rest[0] == '.') || !number_at(rest, 0, v, &end))
            continue; // "Traffic request rate: inf", "Max request concurrency: not set"
        MeasuredLine m{key, v, rest.substr(0, end), number};
        if (trtllm_key(key)) trtllm = true;
        if (!in_block && before_header) before.push_back(m);
        else {
            if (!in_block) { // a block pasted without its header line
                in_block = true;
                block = before;
                before.clear();
            }
            block.push_back(m);
        }
    }
    end_block();
    const bool vllm = !blocks.empty(), llama = !rows.empty();
    if (const std::vector<TitanStep> steps = titan_steps(text); !steps.empty() && !vllm && !llama) {
        // torchtitan's log: the last logged step's figures, in its words; the step time off the timestamps.
        const TitanStep& last = steps.back();
        out.tool = "torchtitan";
        if (const double step_s = titan_step_time_s(steps); step_s > 0) {
            out.lines.push_back({"step time (s)", step_s, format_sig(step_s, 4), last.line});
            out.notes.push_back("step time from the timestamps of steps " + std::to_string(steps[steps.size() - 2].step) + " and " +
                                std::to_string(last.step) + " (torchtitan does not print it)");
        } else {
            out.notes.push_back("no step time: the log's lines carry no timestamps, or fewer than two steps were pasted");
        }
        out.lines.push_back({"tps (tokens/s per device)", last.tps, last.tps_text, last.line});
        out.lines.push_back({"mfu (%)", last.mfu, last.mfu_text, last.line});
        out.lines.push_back({"memory (GiB, max reserved)", last.memory_gib, last.memory_text, last.line});
        if (steps.size() > 1) out.notes.push_back(std::to_string(steps.size()) + " steps logged: step " + std::to_string(last.step) + "'s figures (the last) are compared");
        return out;
    }
    if (MlxRun mlx; !vllm && !llama && mlx_run(text, mlx)) {
        // MLX's benchmark: the averages (or the last trial) in its words, peak_memory in GB.
        out.tool = "mlx-lm-benchmark";
        for (const auto& [key, metric] : {std::pair<std::string, std::string>{"prompt_tps", "prompt_tps"},
                                          {"generation_tps", "generation_tps"}, {"peak_memory", "peak_memory (GB)"}})
            if (const auto it = mlx.values.find(key); it != mlx.values.end()) out.lines.push_back({metric, it->second.value, it->second.text, it->second.line});
        if (mlx.prompt_tokens > 0) out.lines.push_back({"prompt_tokens", double(mlx.prompt_tokens), std::to_string(mlx.prompt_tokens), mlx.timing_line});
        if (mlx.generation_tokens > 0)
            out.lines.push_back({"generation_tokens", double(mlx.generation_tokens), std::to_string(mlx.generation_tokens), mlx.timing_line});
        if (mlx.batch_size > 0) out.lines.push_back({"batch_size", double(mlx.batch_size), std::to_string(mlx.batch_size), mlx.timing_line});
        out.notes.push_back(mlx.averages ? "the averages over " + std::to_string(mlx.trials) + " trial(s) are compared"
                                         : "no Averages line: the last of " + std::to_string(mlx.trials) + " trial(s) is compared");
        return out;
    }
    if (!vllm && !llama) {
        const std::vector<PyDict> dicts = python_dicts(text);
        // OpenRLHF's "Global step" lines: the last step's timings, in seconds, in its words.
        int rl_steps = 0;
        const PyDict* last_rl = nullptr;
        for (const auto& d : dicts)
            if (openrlhf_step(d) > 0) {
                ++rl_steps;
                last_rl = &d;
            }
        if (last_rl) {
            out.tool = "openrlhf-train-ppo-ray";
            for (const auto& [key, v] : last_rl->values)
                if (key.rfind("timing/", 0) == 0) out.lines.push_back({key, v.value, v.text, v.line});
            std::sort(out.lines.begin(), out.lines.end(), [](const MeasuredLine& a, const MeasuredLine& b) { return a.line < b.line || (a.line == b.line && a.metric < b.metric); });
            out.notes.push_back(std::to_string(rl_steps) + " step line(s) logged: step " + std::to_string(openrlhf_step(*last_rl)) +
                                "'s timings (the last) are compared; the first step's generation includes the engines' warm-up");
            if (out.lines.empty()) out.notes.push_back("the step line has no timing/ entries: OpenRLHF logs them from v0.11.0 (ppo_trainer.py)");
            return out;
        }
        // LLaMA-Factory's closing block (the Hugging Face Trainer's log_metrics, sft/workflow.py): "***** train metrics *****" then
        // "  key = value" lines, train_runtime as h:mm:ss.ss; the last block's figures.
        {
            std::stringstream lf(text);
            std::string l;
            int at = 0, block_line = 0;
            std::vector<MeasuredLine> metrics;
            bool in = false;
            while (std::getline(lf, l)) {
                ++at;
                if (!l.empty() && l.back() == '\r') l.pop_back();
                if (trim(l) == "***** train metrics *****") {
                    in = true;
                    block_line = at;
                    metrics.clear();
                    continue;
                }
                const auto eq = l.find(" = ");
                if (!in || eq == std::string::npos || l.rfind("  ", 0) != 0) {
                    in = false;
                    continue;
                }
                const std::string key = trim(l.substr(0, eq)), value = trim(l.substr(eq + 3));
                double v = 0;
                size_t end = 0;
                if (key == "train_runtime") { // 0:36:58.55
                    double h = 0, m = 0, sec = 0;
                    if (std::sscanf(value.c_str(), "%lf:%lf:%lf", &h, &m, &sec) == 3) metrics.push_back({key + " (s)", h * 3600 + m * 60 + sec, value, at});
                } else if (number_at(value, 0, v, &end) && end == value.size()) {
                    metrics.push_back({key, v, value, at});
                }
            }
            if (!metrics.empty()) {
                out.tool = "llama-factory";
                out.lines = metrics;
                out.notes.push_back("the train metrics block from line " + std::to_string(block_line) + " is compared (the run's averages)");
                if (!std::any_of(metrics.begin(), metrics.end(), [](const MeasuredLine& m) { return m.metric == "effective_tokens_per_sec"; }))
                    out.notes.push_back("no effective_tokens_per_sec: set include_effective_tokens_per_second: true, as run-it's config does");
                return out;
            }
        }
        // Axolotl (Hugging Face Trainer) log dicts: the last memory figures and the closing summary's steps a second.
        LoggedValues ax;
        int ax_dicts = 0;
        for (const auto& d : dicts)
            if (d.values.count("memory/device_reserved (GiB)") || d.values.count("train_steps_per_second")) {
                ++ax_dicts;
                for (const auto& [k, v] : d.values) ax[k] = v;
            }
        if (ax_dicts > 0) {
            out.tool = "axolotl";
            for (const char* key : {"train_steps_per_second", "memory/device_reserved (GiB)", "memory/max_allocated (GiB)", "train_runtime"})
                if (const auto it = ax.find(key); it != ax.end()) out.lines.push_back({key, it->second.value, it->second.text, it->second.line});
            out.notes.push_back(std::to_string(ax_dicts) + " logged dict(s): the last value of each figure is compared; memory/device_reserved is "
                                "torch.cuda.max_memory_reserved since the previous log, in GiB");
            if (!ax.count("train_steps_per_second")) out.notes.push_back("no train_steps_per_second: paste the log to its end, where the Trainer prints its summary");
            return out;
        }
        // torchtune's step lines: the last step's figures in its words (memory in GiB).
        int steps = 0, last_step = 0;
        const auto tune = tune_last_values(text, steps, last_step);
        if (steps > 0) {
            out.tool = "torchtune";
            for (const auto& [key, metric] : {std::pair<std::string, std::string>{"tokens_per_second_per_gpu", "tokens_per_second_per_gpu"},
                                              {"peak_memory_reserved", "peak_memory_reserved (GiB)"}})
                if (const auto it = tune.find(key); it != tune.end()) out.lines.push_back({metric, it->second.value, it->second.text, it->second.line});
            out.notes.push_back(std::to_string(steps) + " step line(s) logged: step " + std::to_string(last_step) +
                                "'s figures (the last) are compared; tokens_per_second_per_gpu counts the tokens the loss sees (labels not ignored), so "
                                "padding and masked prompt tokens are not in it");
            if (!tune.count("peak_memory_reserved")) out.notes.push_back("no peak_memory_reserved: run with log_peak_memory_stats=True, as run-it writes");
            return out;
        }
        // DeepSpeed's throughput timer lines.
        LoggedValues ds;
        int ds_lines = 0;
        if (deepspeed_last_values(text, ds, ds_lines)) {
            out.tool = "deepspeed";
            if (const auto it = ds.find("CurrSamplesPerSec"); it != ds.end()) out.lines.push_back({"CurrSamplesPerSec", it->second.value, it->second.text, it->second.line});
            if (const auto it = ds.find("MaxMemAllocated"); it != ds.end())
                out.lines.push_back({"MaxMemAllocated (GiB)", it->second.value, it->second.text, it->second.line});
            out.notes.push_back(std::to_string(ds_lines) + " throughput line(s): the last one is compared; DeepSpeed's samples are its "
                                "train_batch_size, over all devices, and its GB are GiB (2^30 bytes)");
            return out;
        }
        // Megatron-LM's iteration lines and memory report.
        int iterations = 0;
        const auto mega = megatron_last_values(text, iterations);
        if (iterations > 0) {
            out.tool = "megatron-lm";
            for (const char* key : {"elapsed time per iteration (ms)", "throughput per GPU (TFLOP/s/GPU)"})
                if (const auto it = mega.find(key); it != mega.end()) out.lines.push_back({key, it->second.value, it->second.text, it->second.line});
            if (const auto it = mega.find("max reserved"); it != mega.end())
                out.lines.push_back({"peak memory per device (GB, torch.cuda.max_memory_reserved)", it->second.value * 1048576.0 / 1e9,
                                     format_sig(it->second.value * 1048576.0 / 1e9, 4), it->second.line});
            out.notes.push_back(std::to_string(iterations) + " iteration line(s): the last one is compared (the first iterations include warm-up)");
            if (mega.count("max reserved")) out.notes.push_back("Megatron-LM's memory report is in MB of 1024 x 1024 bytes (MiB); shown here in GB (1e9 bytes)");
            if (!mega.count("throughput per GPU (TFLOP/s/GPU)")) out.notes.push_back("no throughput per GPU: run with --log-throughput, as run-it writes");
            return out;
        }
    }
    if (vllm && llama) {
        out.issues.push_back({"text", "holds both a vLLM result block and a llama-bench table: paste one benchmark's output"});
        return out;
    }
    if (vllm) {
        out.tool = block_tool.back();
        out.lines = blocks.back();
        if (blocks.size() > 1)
            out.notes.push_back(std::to_string(blocks.size()) + " result blocks: the last one (from line " + std::to_string(out.lines.front().line) + ") is compared");
    } else if (llama) {
        out.tool = "llama-bench";
        for (const auto& r : rows) {
            const bool again = std::count_if(rows.begin(), rows.end(), [&](const MeasuredLine& x) { return x.metric == r.metric; }) > 1;
            if (again && out.find(r.metric) == nullptr)
                out.notes.push_back("the table has several rows of " + r.metric.substr(0, r.metric.find(' ')) + ": the last one is compared");
            out.lines.push_back(r);
        }
    }
    if (!skipped.empty() && llama) {
        std::string list;
        for (const auto& s : skipped) list += (list.empty() ? "" : ", ") + quote_input(s);
        out.notes.push_back("skipped the tests at a depth or combined (" + list + "): run-it predicts plain pp and tg");
    }
    if (!vllm && !llama && out.issues.empty())
        out.issues.push_back({"text", "no benchmark output found: paste the result block `vllm bench serve`, `python -m sglang.bench_serving` or "
                                      "TensorRT-LLM's benchmark_serving prints (from \"============ Serving Benchmark Result ============\" on), the "
                                      "table `llama-bench -o md` prints, mlx_lm.benchmark's lines, or torchtitan's, torchtune's, Megatron-LM's, "
                                      "DeepSpeed's, Axolotl's, LLaMA-Factory's or OpenRLHF's training log"});
    return out;
}

std::string_view name(MeasurementKind k) {
    switch (k) {
    case MeasurementKind::decode_tokens_per_s: return "decode_tokens_per_s";
    case MeasurementKind::prefill_tokens_per_s: return "prefill_tokens_per_s";
    case MeasurementKind::serving_tpot_s: return "serving_tpot_s";
    case MeasurementKind::output_tokens_per_s: return "output_tokens_per_s";
    case MeasurementKind::step_time_s: return "step_time_s";
    case MeasurementKind::peak_memory_bytes: return "peak_memory_bytes";
    case MeasurementKind::items_per_s: return "items_per_s";
    case MeasurementKind::rl_train_s: return "rl_train_s";
    }
    return "";
}

} // namespace hwplan
