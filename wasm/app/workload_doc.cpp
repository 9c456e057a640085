// workload_doc.cpp: the workload document as the page's state (see workload_doc.h): field edits by path,
// loading, undo, and the page-address fragment that restores it.
#include "workload_doc.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "fields.h"
#include "hwplan/format.h"
#include "hwplan/memory.h"
#include "hwplan/parse.h"
#include "hwplan/precision.h"

namespace hwplan::ui {

namespace {

constexpr size_t kUndoDepth = 50;            // states (document and team) kept for undo
constexpr size_t kMaxFragmentBytes = 16384;  // a longer link is refused, not parsed

// One step of a path: an object's key, or an array's index ("hardware.owned[1].count" is hardware, owned, [1],
// count: the core's issue paths name list entries this way).
struct Step {
    std::string key;
    size_t index = 0;
    bool is_index = false;
};

std::vector<Step> split_path(const std::string& path) {
    std::vector<Step> steps;
    size_t at = 0;
    while (at <= path.size()) {
        const size_t dot = path.find('.', at);
        std::string part = path.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
        const size_t open = part.find('[');
        steps.push_back({part.substr(0, open)});
        for (size_t i = open; i != std::string::npos && i < part.size(); i = part.find('[', i + 1)) {
            char* end = nullptr;
            const size_t index = std::strtoul(part.c_str() + i + 1, &end, 10);
            const bool digits = std::isdigit(static_cast<unsigned char>(part[i + 1])) && *end == ']';
            steps.push_back({"", digits ? index : std::numeric_limits<size_t>::max(), true}); // "[x]" names no entry
        }
        if (dot == std::string::npos) break;
        at = dot + 1;
    }
    return steps;
}

// The value at `step` inside `at`, or nullptr when `at` has no such key or entry (J: json or const json).
template <class J> J* child(J& at, const Step& step) {
    if (step.is_index) return at.is_array() && step.index < at.size() ? &at[step.index] : nullptr;
    if (!at.is_object()) return nullptr;
    auto it = at.find(step.key);
    return it == at.end() ? nullptr : &*it;
}

std::string number_text(const nlohmann::json& v) {
    if (v.is_number_integer()) return std::to_string(v.get<long long>());
    if (v.is_number_unsigned()) return std::to_string(v.get<unsigned long long>());
    if (v.is_number()) return format_sig(v.get<double>(), 10);
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

// Percent-encoding for a fragment value: JSON's braces, colons and commas stay readable; '&', '=', '%',
// '#', quotes, spaces and everything outside printable ASCII are encoded.
std::string pct_encode(const std::string& s) {
    static const std::string keep = "-._~:,{}[]!*()/?@'+$;";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || keep.find(static_cast<char>(c)) != std::string::npos) out += static_cast<char>(c);
        else {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        }
    }
    return out;
}

std::string pct_decode(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// Finds "key=value" in an '&'-separated fragment; the value comes back percent-decoded.
std::string fragment_value(const std::string& fragment, const std::string& key) {
    size_t at = 0;
    while (at <= fragment.size()) {
        const size_t amp = fragment.find('&', at);
        const std::string part = fragment.substr(at, amp == std::string::npos ? std::string::npos : amp - at);
        if (part.rfind(key + "=", 0) == 0) return pct_decode(part.substr(key.size() + 1));
        if (amp == std::string::npos) break;
        at = amp + 1;
    }
    return {};
}

std::string trim(const std::string& s) {
    const size_t first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// Is "key=" one of the fragment's parts (even with an empty value)?
bool has_key(const std::string& fragment, const std::string& key) {
    size_t at = 0;
    while (at <= fragment.size()) {
        const size_t amp = fragment.find('&', at);
        if (fragment.compare(at, key.size() + 1, key + "=") == 0) return true;
        if (amp == std::string::npos) break;
        at = amp + 1;
    }
    return false;
}

// The weight check's inputs as a link value: "PARAMS" at the default precision, else "PARAMS,PRECISION";
// "" when both are the defaults or the typed count is not a valid one (a link carries valid inputs only).
std::string weights_value(const AppState& state) {
    const std::string params = trim(state.params_text.data());
    const auto formats = all_precisions();
    if (state.precision_index < 0 || state.precision_index >= static_cast<int>(formats.size())) return {};
    const std::string precision(name(formats[state.precision_index]));
    if (params == kDefaultWeightParams && state.precision_index == kDefaultPrecisionIndex) return {};
    const auto count = parse_count(params);
    if (!count || !estimate_weights({.params = *count, .precision = precision}).issues.empty()) return {};
    return state.precision_index == kDefaultPrecisionIndex ? params : params + "," + precision;
}

// Reads "weights=PARAMS[,PRECISION]" into the weight check; false (and nothing changed) when it is not a
// valid parameter count and format, as the weight check itself would refuse it.
bool apply_weights_value(AppState& state, const std::string& value) {
    const size_t comma = value.find(',');
    const std::string params = trim(value.substr(0, comma));
    const std::string precision = comma == std::string::npos ? std::string(name(all_precisions()[kDefaultPrecisionIndex]))
                                                             : trim(value.substr(comma + 1));
    if (params.empty() || params.size() >= std::tuple_size_v<decltype(state.params_text)>) return false;
    const auto format = parse_precision(precision);
    const auto count = parse_count(params);
    if (!format || !count || !estimate_weights({.params = *count, .precision = precision}).issues.empty()) return false;
    const auto formats = all_precisions();
    state.precision_index = static_cast<int>(std::find(formats.begin(), formats.end(), *format) - formats.begin());
    state.params_text.fill('\0');
    std::copy(params.begin(), params.end(), state.params_text.begin());
    return true;
}

void reset_weights(AppState& state) {
    state.params_text.fill('\0');
    const std::string params = kDefaultWeightParams;
    std::copy(params.begin(), params.end(), state.params_text.begin());
    state.precision_index = kDefaultPrecisionIndex;
}

} // namespace

std::string_view name(FormTab t) {
    switch (t) {
    case FormTab::workload: return "workload";
    case FormTab::hardware: return "hardware";
    case FormTab::weights: return "weights";
    }
    return "workload";
}

const nlohmann::json* field(const nlohmann::json& doc, const std::string& path) {
    const nlohmann::json* at = &doc;
    for (const auto& step : split_path(path))
        if (!(at = child(*at, step))) return nullptr;
    return at;
}

std::string field_text(const nlohmann::json& doc, const std::string& path) {
    const nlohmann::json* v = field(doc, path);
    return v ? number_text(*v) : std::string();
}

void set_value(AppState& state, const std::string& path, const nlohmann::json& value) {
    nlohmann::json* at = &state.workload;
    const auto steps = split_path(path);
    for (size_t i = 0; i + 1 < steps.size(); ++i) {
        if (steps[i].is_index) { // a list entry is edited where it is, never made up
            if (!(at = child(*at, steps[i]))) return;
        } else {
            if (!at->is_object()) return;
            at = &(*at)[steps[i].key];
        }
        if (!steps[i + 1].is_index && !at->is_object()) *at = nlohmann::json::object();
    }
    if (steps.back().is_index) {
        if (nlohmann::json* entry = child(*at, steps.back())) *entry = value;
    } else if (at->is_object()) {
        (*at)[steps.back().key] = value;
    }
}

void erase_field(AppState& state, const std::string& path) {
    const auto steps = split_path(path);
    nlohmann::json* at = &state.workload;
    std::vector<nlohmann::json*> chain{at};
    for (size_t i = 0; i + 1 < steps.size(); ++i) {
        if (!(at = child(*at, steps[i]))) return;
        chain.push_back(at);
    }
    const Step& last = steps.back();
    if (last.is_index && at->is_array() && last.index < at->size()) at->erase(last.index);
    else if (!last.is_index && at->is_object()) at->erase(last.key);
    else return;
    // An emptied section or list goes too ("hardware": {} would say nothing anyway); a list's other entries stay.
    for (size_t i = chain.size() - 1; i > 0; --i) {
        if (steps[i - 1].is_index || !chain[i - 1]->is_object() || !chain[i]->empty()) break;
        chain[i - 1]->erase(steps[i - 1].key);
    }
}

std::string tiles_text(const nlohmann::json& doc, const std::string& path) {
    const nlohmann::json* v = field(doc, path);
    if (!v) return {};
    if (v->is_string()) return v->get<std::string>(); // as typed, the core's error beside it
    std::string out;
    if (!v->is_array()) return number_text(*v);
    for (const auto& call : *v) {
        if (!out.empty()) out += ", ";
        std::string one;
        if (call.is_array())
            for (const auto& x : call) one += (one.empty() ? "" : " ") + number_text(x);
        out += one;
    }
    return out;
}

bool set_tiles(AppState& state, const std::string& path, const std::string& text) {
    const std::string before = state.workload.dump();
    // Nine whole numbers (three calls' [tile_m, tile_k, tile_n]) separated by spaces, commas, semicolons or "x" become the
    // array the core reads; anything else goes in as typed, and the core names the field and what it expected.
    std::vector<long long> numbers;
    bool clean = true;
    size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            long long n = 0;
            while (i < text.size() && text[i] >= '0' && text[i] <= '9' && n < 1000000000LL) n = n * 10 + (text[i++] - '0');
            if (i < text.size() && text[i] >= '0' && text[i] <= '9') clean = false; // absurdly long: left to the core
            numbers.push_back(n);
        } else {
            if (c != ' ' && c != ',' && c != ';' && c != 'x' && c != 'X' && c != '\t') clean = false;
            ++i;
        }
    }
    if (text.find_first_not_of(" \t") == std::string::npos) {
        erase_field(state, path);
    } else if (clean && numbers.size() == 9) {
        nlohmann::json calls = nlohmann::json::array();
        for (size_t c = 0; c < 3; ++c) calls.push_back({numbers[3 * c], numbers[3 * c + 1], numbers[3 * c + 2]});
        set_value(state, path, calls);
    } else {
        set_value(state, path, text);
    }
    return state.workload.dump() != before;
}

bool set_field(AppState& state, const std::string& path, const std::string& text) {
    const std::string before = state.workload.dump();
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) {
        erase_field(state, path);
    } else if (auto v = parse_number(text); v && std::isfinite(*v)) {
        // Whole numbers are JSON integers: the core reads counts (hardware.count, zero_stage) as integers.
        if (std::floor(*v) == *v && std::fabs(*v) < 9.0e15) set_value(state, path, static_cast<long long>(*v));
        else set_value(state, path, *v);
    } else {
        set_value(state, path, text.substr(first)); // the core names the field and says what it expected
    }
    return state.workload.dump() != before;
}

void sync_text(AppState& state) {
    state.text.clear();
    auto sync = [&](const std::string& path) {
        std::array<char, 80> buf{};
        std::snprintf(buf.data(), buf.size(), "%s", field_text(state.workload, path).c_str());
        state.text[path] = buf;
    };
    for (const auto& f : kFields) sync(f.path);
    sync("train.grouped_gemm.rows");
    for (const char* path : {"train.grouped_gemm.wi", "train.grouped_gemm.wo"}) {
        std::array<char, 80> buf{};
        std::snprintf(buf.data(), buf.size(), "%s", tiles_text(state.workload, path).c_str());
        state.text[path] = buf;
    }
    if (const nlohmann::json* owned = field(state.workload, "hardware.owned"); owned && owned->is_array())
        for (size_t i = 0; i < owned->size(); ++i) sync(owned_path(i, "count"));
}

std::string owned_path(size_t row, const char* key) { return "hardware.owned[" + std::to_string(row) + "]." + key; }

void load_workload(AppState& state, const nlohmann::json& doc, const std::string& scenario_id) {
    state.workload = doc;
    state.scenario_id = scenario_id;
    state.scenario_json = scenario_id.empty() ? std::string() : doc.dump();
    state.team_id.clear();
    state.team_name.clear();
    state.team_markdown.clear();
    state.team = TeamPlan{};
    state.team_doc = nullptr;
    state.team_planned.clear();
    state.team_open_card = -1;
    if (state.view == View::team) state.view = View::candidates;
    sync_text(state);
}

bool load_scenario(AppState& state, const std::string& id, const Catalog& catalog) {
    const Scenario* sc = find_scenario(catalog, id);
    if (!sc) return false;
    if (!sc->workload_json.empty()) {
        load_workload(state, nlohmann::json::parse(sc->workload_json, nullptr, false), sc->id);
        return true;
    }
    // A team of workloads: its team view opens; the form keeps the team's first card.
    TeamPlan team = team_plan(sc->team_json, catalog);
    const auto doc = nlohmann::json::parse(sc->team_json, nullptr, false);
    if (doc.is_object() && doc.contains("cards") && doc["cards"].is_array() && !doc["cards"].empty())
        load_workload(state, doc["cards"][0], "");
    state.team_id = sc->id;
    state.team_name = sc->name;
    state.team_markdown = render_team(team, catalog);
    state.team = std::move(team);
    state.team_doc = doc;
    state.team_planned = doc.dump();
    state.view = View::team;
    return true;
}

void load_default(AppState& state, const Catalog& catalog) {
    (void)catalog;
    state.default_json.clear();
    // Lesson 003's live chat card: Mistral 7B, 20 users, 8k context, a 2 s first-token target.
    load_workload(state, nlohmann::json{{"name", "Live chat (lesson 003)"}, {"stage", "serve"}, {"model", "mistral-7b"},
                                        {"precision", "bf16"},
                                        {"serve", {{"context_tokens", 8192}, {"prompt_tokens", 1500}, {"output_tokens", 400},
                                                   {"concurrent_users", 20}, {"ttft_target_s", 2}}}},
                  "");
    state.default_json = state.workload.dump();
}

namespace {

// What Undo restores: the form's document and the team (its cards, its name, the card open in the form), so
// a team edit is undone like a field edit; and whether the team view was open (not a change of its own: two
// states that differ only in it are the same step). Compact JSON.
nlohmann::json snapshot(const AppState& state) {
    nlohmann::json s = {{"workload", state.workload}};
    if (!state.team_doc.is_null())
        s["team"] = {{"doc", state.team_doc}, {"id", state.team_id}, {"name", state.team_name}, {"open_card", state.team_open_card}};
    return s;
}

// An undo entry's state without the view, to compare with snapshot(state).
std::string content_of(const std::string& entry) {
    auto s = nlohmann::json::parse(entry, nullptr, false);
    if (s.is_object()) s.erase("team_view");
    return s.dump();
}

} // namespace

void remember(AppState& state) {
    nlohmann::json s = snapshot(state);
    const std::string content = s.dump();
    if (!state.undo.empty() && content_of(state.undo.back()) == content) return;
    s["team_view"] = state.view == View::team;
    std::string now = s.dump();
    state.undo.push_back(std::move(now));
    if (state.undo.size() > kUndoDepth) state.undo.erase(state.undo.begin());
}

bool undo(AppState& state) {
    const std::string now = snapshot(state).dump();
    while (!state.undo.empty()) {
        std::string prev = std::move(state.undo.back());
        state.undo.pop_back();
        if (content_of(prev) == now) continue;
        const auto s = nlohmann::json::parse(prev, nullptr, false);
        if (s.is_discarded() || !s.is_object() || !s.contains("workload")) continue;
        const std::string keep_scenario = state.scenario_json;
        const std::string keep_id = state.scenario_id;
        load_workload(state, s["workload"], ""); // leaves the team view; the state's own view is restored below
        if (s["workload"].dump() == keep_scenario) { state.scenario_id = keep_id; state.scenario_json = keep_scenario; }
        if (s.contains("team")) { // the team comes back as it was; refresh_team() plans it again
            const auto& t = s["team"];
            state.team_doc = t["doc"];
            state.team_id = t.value("id", std::string("edited"));
            state.team_name = t.value("name", std::string());
            state.team_open_card = t.value("open_card", -1);
            state.team_planned.clear();
        }
        if (s.value("team_view", false)) state.view = View::team;
        return true;
    }
    return false;
}

std::string_view name(View v) {
    switch (v) {
    case View::candidates: return "devices";
    case View::costs: return "costs";
    case View::assumptions: return "assumptions";
    case View::card: return "card";
    case View::team: return "team";
    case View::whatif: return "whatif";
    }
    return "devices";
}

std::string fragment_of(const AppState& state) {
    std::string f;
    if (!state.team_id.empty() && state.team_id != "edited" && state.team_id != "imported") f = "scenario=" + state.team_id;
    else if (!state.team_doc.is_null()) f = "team=" + pct_encode(state.team_doc.dump()); // an edited or imported team travels whole
    else if (!state.scenario_id.empty() && state.workload.dump() == state.scenario_json) f = "scenario=" + state.scenario_id;
    else if (state.workload.dump() != state.default_json) f = "w=" + pct_encode(state.workload.dump());
    std::string extra;
    if (state.view != View::candidates) extra += "&view=" + std::string(name(state.view));
    const auto& cs = state.shown.candidates;
    const bool recommended = state.shown.recommendation.found && state.selected >= 0 && state.selected < static_cast<int>(cs.size()) &&
                             cs[state.selected].device == state.shown.recommendation.option.device;
    if (state.selected >= 0 && state.selected < static_cast<int>(cs.size()) && !recommended)
        extra += "&device=" + pct_encode(cs[state.selected].device);
    if (state.form_tab != FormTab::workload) extra += "&tab=" + std::string(name(state.form_tab));
    const std::string weights = weights_value(state);
    if (!weights.empty()) extra += "&weights=" + pct_encode(weights);
    if (f.empty() && !extra.empty()) return extra.substr(1); // the default workload: its keys alone
    return f + extra;
}

std::string clip_for_message(const std::string& input, size_t max_chars) {
    std::string out;
    for (char c : input) {
        if (out.size() >= max_chars) { out += "..."; break; }
        out += (c >= 0x20 && c < 0x7f && c != '"' && c != '<' && c != '>') ? c : '?';
    }
    return out;
}

std::string core_message(const Issue& issue) {
    // The core's messages quote input only as short escaped excerpts (issues.h, quote_input); cut at a
    // UTF-8 character boundary so a long reason still fits the notice line.
    std::string text = to_string(issue);
    constexpr size_t kMaxChars = 240;
    if (text.size() <= kMaxChars) return text;
    size_t cut = kMaxChars;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return text.substr(0, cut) + "...";
}

void apply_fragment(AppState& state, const std::string& fragment, const Catalog& catalog) {
    state.notice.clear();
    if (fragment.empty()) return;
    if (fragment.size() > kMaxFragmentBytes) {
        load_default(state, catalog);
        state.notice = "The link is too long to be a plan (" + std::to_string(fragment.size()) + " characters); showing the default plan.";
        return;
    }
    // The form side (the open tab, the weight check) is part of the link: absent keys are the defaults (an
    // anchor without "=" is not a link of ours and changes nothing).
    if (fragment.find('=') != std::string::npos) {
        state.form_tab = FormTab::workload;
        state.form_tab_pending = true;
        reset_weights(state);
    }
    const std::string id = fragment_value(fragment, "scenario");
    const std::string w = fragment_value(fragment, "w");
    const std::string team = fragment_value(fragment, "team");
    if (id.empty() && w.empty() && !team.empty()) {
        const auto doc = nlohmann::json::parse(team, nullptr, false);
        if (doc.is_discarded() || !doc.is_object() || !doc.contains("cards")) {
            load_default(state, catalog);
            state.notice = "The link's team is not a team (expected {\"name\", \"cards\": [...]}); showing the default plan.";
            return;
        }
        if (!import_json(state, team, catalog)) {
            load_default(state, catalog);
            state.notice = "The link's team has a problem; showing the default plan.";
            return;
        }
        state.team_id = "edited";
    } else if (!id.empty()) {
        if (!load_scenario(state, id, catalog)) {
            load_default(state, catalog);
            state.notice = "The link names an unknown scenario (\"" + clip_for_message(id) + "\"); showing the default plan.";
            return;
        }
    } else if (!w.empty()) {
        auto doc = nlohmann::json::parse(w, nullptr, false);
        Issues issues;
        if (doc.is_discarded() || !doc.is_object()) {
            load_default(state, catalog);
            state.notice = "The link's workload is not valid JSON; showing the default plan.";
            return;
        }
        const auto parsed = parse_workload(doc.dump(), catalog);
        if (!parsed.issues.empty()) {
            load_default(state, catalog);
            state.notice = "The link's workload has a problem at " + clip_for_message(parsed.issues.front().path, 48) +
                           "; showing the default plan.";
            return;
        }
        load_workload(state, doc, "");
    } else if (has_key(fragment, "view") || has_key(fragment, "device") || has_key(fragment, "tab") || has_key(fragment, "weights") ||
               has_key(fragment, "ext")) {
        load_default(state, catalog); // no workload key: the default workload, with the keys that follow
    } else {
        // A fragment that is not ours (an anchor, garbage): say so only when it looks like an attempt.
        if (fragment.find('=') != std::string::npos) {
            load_default(state, catalog);
            state.notice = "The link's fragment is not a plan (expected #scenario=ID or #w=...); showing the default plan.";
        }
        return;
    }
    const std::string view = fragment_value(fragment, "view");
    bool view_known = view.empty();
    for (View v : {View::candidates, View::costs, View::assumptions, View::card, View::team, View::whatif})
        if (view == name(v)) state.view = v, view_known = true;
    state.planned_json.clear();
    const std::string device = fragment_value(fragment, "device");
    state.selected = -1;
    if (!device.empty()) state.wanted_device = device;
    // A damaged value names its key and keeps that input's default; the plan it came with still opens.
    const std::string tab = fragment_value(fragment, "tab");
    bool tab_known = tab.empty();
    for (FormTab t : {FormTab::workload, FormTab::hardware, FormTab::weights})
        if (tab == name(t)) state.form_tab = t, tab_known = true;
    if (!tab_known)
        state.notice = "The link's tab value (\"" + clip_for_message(tab) + "\") is not workload, hardware or weights; the Workload tab is open.";
    if (!view_known)
        state.notice = "The link's view value (\"" + clip_for_message(view) +
                       "\") is not devices, costs, assumptions, card, team or whatif; the devices view is open.";
    if (has_key(fragment, "weights") && !apply_weights_value(state, fragment_value(fragment, "weights")))
        state.notice = "The link's weights value (\"" + clip_for_message(fragment_value(fragment, "weights")) +
                       "\") is not a parameter count and a format such as 7e9,bf16; the weight check keeps 7e9 at bf16.";
}

bool import_json(AppState& state, const std::string& text, const Catalog& catalog) {
    // The core reads the text exactly as pasted, so the page names the same path and reason as the CLI and
    // the JavaScript API: malformed JSON, a number beyond a double, invalid UTF-8, deep nesting, duplicate
    // keys (a re-serialised copy would have dropped the first silently). A scenario file's inner workload
    // is re-serialised, which is the one place a duplicate key inside it goes unnoticed.
    // Something that is not text at all (a dropped image, a PDF): say what it is not, rather than quote a JSON
    // parser's complaint about its first byte. Text holds no NUL or other control bytes but tab and line breaks
    // (JSON allows no others outside strings, and inside strings only escaped).
    const auto binary = std::find_if(text.begin(), text.end(), [](char ch) {
        const auto u = static_cast<unsigned char>(ch);
        return u < 0x20 && u != '\t' && u != '\n' && u != '\r';
    });
    if (binary != text.end()) {
        state.notice = "That is not a workload: it is not text (a dropped image or other binary file?). A workload is a JSON "
                       "object ({...}; docs/workload.md describes the form).";
        return false;
    }
    auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        const auto parsed = parse_workload(text, catalog);
        state.notice = parsed.issues.empty() ? "That is not a workload: it is not a JSON object (docs/workload.md describes the form)."
                                             : "The workload has a problem: " + core_message(parsed.issues.front());
        return false;
    }
    const bool wrapped = doc.contains("workload") && doc["workload"].is_object(); // a scenario file
    if (wrapped) doc = doc["workload"];
    const std::string as_given = wrapped ? doc.dump() : text;
    if (doc.contains("cards")) {
        TeamPlan team = team_plan(as_given, catalog);
        if (!team.issues.empty()) {
            state.notice = "The team has a problem: " + core_message(team.issues.front());
            return false;
        }
        remember(state);
        load_workload(state, doc["cards"][0], "");
        state.team_id = "imported";
        state.team_name = doc.value("name", std::string("imported team"));
        state.team_markdown = render_team(team, catalog);
        state.team = std::move(team);
        state.team_doc = doc;
        state.team_planned = doc.dump();
        state.view = View::team;
        state.notice.clear();
        return true;
    }
    const auto parsed = parse_workload(as_given, catalog);
    if (!parsed.issues.empty()) {
        state.notice = "The workload has a problem: " + core_message(parsed.issues.front());
        return false;
    }
    // Some checks need the catalog's assumptions (an override's unit and range) and run when planning:
    // an imported workload the planner would refuse is refused here, with the planner's words.
    const Plan check = plan_from_json(as_given, catalog, false);
    if (!check.issues.empty()) {
        state.notice = "The workload has a problem: " + core_message(check.issues.front());
        return false;
    }
    remember(state);
    load_workload(state, doc, "");
    state.notice.clear();
    return true;
}

} // namespace hwplan::ui
