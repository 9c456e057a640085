// panel_custom.cpp: the user's own models, devices and measurements (custom.h): the page API's commands,
// local storage and the link, and the "Your hardware" tab. Every entry goes through the core (hf_config.h,
// measurement.h, extend_catalog); this file only keeps the extension document and draws it.
#include <emscripten.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "app_state.h"
#include "custom.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/format.h"
#include "hwplan/guard.h"
#include "hwplan/hf_config.h"
#include "hwplan/measurement.h"
#include "panels.h"
#include "theme.h"
#include "workload_doc.h"

// [SECTION] browser glue: local storage and the page API --------------------------------------------
EM_JS(void, hwplan_store_extension, (const char* text), {
    const s = UTF8ToString(text);
    try {
        if (s === "{}") localStorage.removeItem("hwplan.extension");
        else localStorage.setItem("hwplan.extension", s);
    } catch (e) { /* storage disabled: the link still carries the extension */ }
    if (window.hwplanPage) window.hwplanPage._extension = s;
    else window.hwplanExtension = s;
});

EM_JS(char*, hwplan_stored_extension, (), {
    let s = "";
    try { s = localStorage.getItem("hwplan.extension") || ""; } catch (e) { s = ""; }
    const n = lengthBytesUTF8(s) + 1;
    const p = _malloc(n);
    stringToUTF8(s, p, n);
    return p;
});

EM_JS(char*, hwplan_today, (), {
    const s = new Date().toISOString().slice(0, 10);
    const n = lengthBytesUTF8(s) + 1;
    const p = _malloc(n);
    stringToUTF8(s, p, n);
    return p;
});

// window.hwplanPage gains: importConfig(text, {id, name}), addExtension(objectOrJson), calibrate(text, deviceId),
// removeCustom("models:ID" | "devices:ID" | "calibrations:DEVICE:ASSUMPTION"), clearCustom(), extension().
EM_JS(void, hwplan_install_custom_api, (), {
    const page = window.hwplanPage;
    if (!page) return;
    const cmd = page._cmd; // bridge.cpp's hwplan_command wrapper
    const today = () => new Date().toISOString().slice(0, 10);
    page._extension = page._extension || window.hwplanExtension || "{}";
    page.importConfig = (text, o) => cmd("config", JSON.stringify({ config: typeof text === "string" ? text : JSON.stringify(text),
                                                                   id: (o && o.id) || undefined, name: (o && o.name) || undefined, read_on: today() }));
    page.addExtension = (e) => cmd("extension", typeof e === "string" ? e : JSON.stringify(e));
    page.calibrate = (text, device) => cmd("calibrate", JSON.stringify({ text: String(text), device: String(device), read_on: today() }));
    page.removeCustom = (key) => cmd("custom-remove", String(key));
    page.clearCustom = () => cmd("custom-clear", "");
    page.extension = () => JSON.parse(page._extension || "{}");
});

namespace hwplan::ui {

namespace {

using nlohmann::json;

std::string take(char* p) {
    std::string s = p ? p : "";
    std::free(p);
    return s;
}

std::string today() { return today_iso(); }

void say(AppState& state, const std::string& text, bool bad) {
    state.custom.message = text;
    state.custom.message_bad = bad;
    if (bad) state.notice = text;
}

// The key an entry is replaced by: a device or model id, a calibration's device and assumption.
std::string entry_key(const std::string& group, const json& e) {
    if (!e.is_object()) return "";
    if (group == "calibrations") return e.value("device", std::string()) + ":" + e.value("assumption", std::string());
    return e.value("id", std::string());
}

// `base` with `add`'s entries, an entry of the same key replaced (a newer measurement, an edited device).
json merged(const json& base, const json& add) {
    json out = base.is_object() ? base : json::object();
    for (const char* group : {"devices", "models", "calibrations"}) {
        if (!add.contains(group) || !add[group].is_array()) continue;
        json& list = out[group];
        if (!list.is_array()) list = json::array();
        for (const auto& e : add[group]) {
            const std::string key = entry_key(group, e);
            json kept = json::array();
            for (const auto& x : list)
                if (key.empty() || entry_key(group, x) != key) kept.push_back(x);
            kept.push_back(e);
            list = kept;
        }
    }
    for (auto it = out.begin(); it != out.end();)
        if (it.value().is_array() && it.value().empty()) it = out.erase(it);
        else ++it;
    return out;
}

std::string first_error(const json& answer) {
    if (!answer.contains("errors") || !answer["errors"].is_array() || answer["errors"].empty()) return "unreadable answer";
    const auto& e = answer["errors"][0];
    const std::string path = e.value("path", std::string());
    return (path.empty() ? "" : path + ": ") + e.value("message", std::string());
}

// "%7B" -> "{"; '+' stays (encodeURIComponent never writes it for a space).
std::string percent_decode(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) && std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += static_cast<char>(std::strtol(s.substr(i + 1, 2).c_str(), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::string percent_encode(const std::string& s) {
    static const char* kHex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || std::string_view("-_.~{}:,[]").find(static_cast<char>(c)) != std::string_view::npos) out += static_cast<char>(c);
        else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

void set_model_of_workload(AppState& state, const std::string& id) {
    remember(state);
    set_value(state, "model", id);
}

} // namespace

const Catalog& page_catalog(const AppState& state) {
    return state.custom.extended ? state.custom.catalog : embedded_catalog().catalog;
}

bool set_extension(AppState& state, const json& extension, bool persist) {
    Catalog cat = embedded_catalog().catalog;
    const bool empty = !extension.is_object() || extension.empty();
    if (!empty) {
        const Issues issues = extend_catalog(cat, extension.dump(-1, ' ', false, json::error_handler_t::replace), "extension");
        if (!issues.empty()) {
            say(state, "Not added: " + issues.front().path + ": " + issues.front().message, true);
            return false;
        }
    }
    state.custom.catalog = std::move(cat);
    state.custom.extended = !empty;
    state.custom.extension = empty ? json::object() : extension;
    state.planned_json.clear(); // plan again with the new catalog
    if (persist) hwplan_store_extension(state.custom.extension.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
    return true;
}

void load_stored_extension(AppState& state) {
    const std::string text = take(hwplan_stored_extension());
    if (text.empty()) return;
    const json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !set_extension(state, doc, false))
        say(state, "Your stored models and devices could not be read; they are left out.", true);
    else
        hwplan_store_extension(state.custom.extension.dump().c_str()); // publish it to the page API
}

std::string extension_fragment(const AppState& state) {
    if (!state.custom.extended) return "";
    return "&ext=" + percent_encode(state.custom.extension.dump(-1, ' ', false, json::error_handler_t::replace));
}

void apply_extension_fragment(AppState& state, const std::string& fragment) {
    size_t at = 0;
    while (at < fragment.size()) {
        const size_t amp = fragment.find('&', at);
        const std::string part = fragment.substr(at, amp == std::string::npos ? std::string::npos : amp - at);
        if (part.rfind("ext=", 0) == 0) {
            const json doc = json::parse(percent_decode(part.substr(4)), nullptr, false);
            if (doc.is_discarded() || !doc.is_object()) {
                say(state, "The link's own models and devices are not valid JSON; they are left out.", true);
                return;
            }
            if (!set_extension(state, merged(state.custom.extension, doc))) state.notice = "The link's " + state.custom.message.substr(0, 200);
            return;
        }
        if (amp == std::string::npos) break;
        at = amp + 1;
    }
}

namespace {

bool custom_command_unguarded(AppState& state, const std::string& kind, const std::string& text) {
    if (kind == "config") {
        const json answer = json::parse(hf_config_json(text), nullptr, false);
        if (answer.is_discarded() || answer.contains("errors")) {
            say(state, "config.json: " + first_error(answer), true);
            return true;
        }
        if (!set_extension(state, merged(state.custom.extension, answer["extension"]))) return true;
        const std::string id = answer.value("model_id", std::string());
        set_model_of_workload(state, id);
        say(state, "Added model " + id + ": " + format_count(answer.value("derived_params", 0.0)) + " parameters from its config.json.", false);
        return true;
    }
    if (kind == "extension") {
        const json doc = json::parse(text, nullptr, false);
        if (doc.is_discarded() || !doc.is_object()) {
            say(state, "Not added: expected a JSON object {\"devices\": [...], \"models\": [...]}", true);
            return true;
        }
        if (set_extension(state, merged(state.custom.extension, doc))) say(state, "Added to your models and devices.", false);
        return true;
    }
    if (kind == "calibrate") {
        json request = json::parse(text, nullptr, false);
        if (request.is_discarded() || !request.is_object()) {
            say(state, "Not calibrated: expected {text, device}", true);
            return true;
        }
        request["workload"] = state.workload;
        const json answer = json::parse(calibrate_json(page_catalog(state), request.dump(-1, ' ', false, json::error_handler_t::replace)), nullptr, false);
        if (answer.is_discarded() || answer.contains("errors")) {
            say(state, "Not calibrated: " + first_error(answer), true);
            return true;
        }
        if (!set_extension(state, merged(state.custom.extension, answer["extension"]))) return true;
        const json& k = answer["calibration"];
        say(state, "Calibrated " + k.value("assumption", std::string()) + " on " + k.value("device", std::string()) + ": " +
                       format_sig(k.value("value", 0.0), 4) + " (measured / modelled " + format_sig(answer.value("ratio", 0.0), 3) + ").",
            false);
        return true;
    }
    if (kind == "custom-remove") {
        const auto colon = text.find(':');
        const std::string group = text.substr(0, colon);
        const std::string key = colon == std::string::npos ? "" : text.substr(colon + 1);
        json ext = state.custom.extension;
        if (ext.contains(group) && ext[group].is_array()) {
            json kept = json::array();
            for (const auto& e : ext[group])
                if (entry_key(group, e) != key) kept.push_back(e);
            ext[group] = kept;
        }
        if (set_extension(state, merged(json::object(), ext))) say(state, "Removed " + key + ".", false);
        return true;
    }
    if (kind == "custom-clear") {
        set_extension(state, json::object());
        say(state, "Your models, devices and calibrations are cleared.", false);
        return true;
    }
    return false;
}

} // namespace

std::string today_iso() {
    char* p = hwplan_today();
    std::string s = p ? p : "";
    std::free(p);
    return s;
}

// Each command behind the page's error boundary: a throw from the core (a bug) is a named error in the panel's
// message and the page's notice, and the page goes on drawing (guard.h).
bool custom_command(AppState& state, const std::string& kind, const std::string& text) {
    return guarded(kind, [&] { return custom_command_unguarded(state, kind, text); }, [&](const Issue& i) {
        say(state, "Not done: " + to_string(i), true);
        return true;
    });
}

// [SECTION] the "Your hardware" tab ---------------------------------------------------------------

namespace {

bool area(AppState& state, const char* label, const char* name, std::vector<char>& buf, float lines) {
    const bool changed = ImGui::InputTextMultiline(label, buf.data(), buf.size(), ImVec2(-1, ImGui::GetTextLineHeight() * lines),
                                                   ImGuiInputTextFlags_AllowTabInput);
    publish(state, name);
    if (ImGui::IsItemActive()) state.active_widget = name;
    return changed;
}

// A dimmed line that wraps at the panel's edge (a plain TextDisabled line is cut at 1024 px wide).
void hint(AppState& state, const char* name, const char* text) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", text);
    ImGui::PopStyleColor();
    publish(state, name);
}

bool button(AppState& state, const char* label, const char* name) {
    const bool pressed = ImGui::Button(label);
    publish(state, name);
    return pressed;
}

// The memory types the device form offers (catalog key memory.type, required): the plan's efficiency rules match a
// device family by its prefix (HBM, GDDR, LPDDR; catalog/efficiencies.json memory_type_prefix), as the catalog's own
// entries spell them.
constexpr const char* kFormMemoryTypes[] = {"HBM3e", "HBM3", "HBM2e", "GDDR7", "GDDR6X", "GDDR6", "LPDDR5X (unified memory)",
                                            "LPDDR5 (unified memory)", "DDR5"};

// The form's device as a catalog entry: the figures a plan needs, with the user as their source.
json device_from_form(const CustomState& c, std::string& problem) {
    auto num = [&](const std::array<char, 64>& b, const char* what) -> double {
        char* end = nullptr;
        const double v = std::strtod(b.data(), &end);
        if (!b[0] || (end && *end) || !(v > 0)) problem = problem.empty() ? std::string(what) + ": expected a positive number" : problem;
        return v;
    };
    const double mem = num(c.dev_memory_gb, "memory (GB)"), bw = num(c.dev_bandwidth_gbps, "bandwidth (GB/s)"), tf = num(c.dev_bf16_tflops, "BF16 dense TFLOPS");
    const std::string id = c.dev_id.data(), name = c.dev_name[0] ? c.dev_name.data() : c.dev_id.data();
    const std::string src = c.dev_source[0] ? c.dev_source.data() : "the user's own figures";
    return {{"id", id}, {"name", name}, {"vendor", "custom"}, {"kind", "gpu"},
            {"memory", {{"capacity_GB", mem}, {"type", kFormMemoryTypes[std::clamp(c.dev_memory_type, 0, int(std::size(kFormMemoryTypes)) - 1)]},
                        {"bandwidth_GBps", bw}, {"source", "user"}}},
            {"compute", {{"bf16_dense_TFLOPS", tf}, {"source", "user"}}},
            {"software", json::array({"cuda", "pytorch"})},
            {"availability", {{"buy", true}, {"rent", false}, {"cloud_only", nullptr}}},
            {"prices", json::array()},
            {"sources", {{"user", {{"title", src}, {"locator", "entered in the planner's device form"}, {"read_on", today()}}}}}};
}

} // namespace

void panel_custom(AppState& state) {
    CustomState& c = state.custom;
    const Catalog& cat = page_catalog(state);
    publish_region(state, "custom:panel");
    ImGui::TextWrapped("Models, devices and measurements of your own. They are checked like the catalog, kept in this "
                       "browser and carried in the link; `hwplan plan --extend` plans the same with them.");
    if (!c.message.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, c.message_bad ? bad_color() : good_color());
        ImGui::TextWrapped("%s", c.message.c_str());
        ImGui::PopStyleColor();
        publish(state, "custom:message");
    }

    ImGui::SeparatorText("A model from its config.json");
    hint(state, "custom:hint-config", "Paste a Hugging Face config.json (Llama, Mistral, Mixtral, Qwen, Gemma, Phi-3, DeepSeek).");
    area(state, "##config_text", "custom:config-text", c.config_text, 6);
    ImGui::SetNextItemWidth(160);
    ImGui::InputTextWithHint("##model_id", "id (optional)", c.model_id.data(), c.model_id.size());
    publish(state, "custom:model-id");
    ImGui::SameLine();
    if (button(state, "Add model##add_model", "custom:add-model")) {
        json req = {{"config", std::string(c.config_text.data())}, {"read_on", today()}};
        if (c.model_id[0]) req["id"] = std::string(c.model_id.data());
        custom_command(state, "config", req.dump(-1, ' ', false, json::error_handler_t::replace));
    }

    ImGui::SeparatorText("A device the catalog lacks");
    // One field a row, the label left of it (row_label narrows the field or moves it under a long label, so
    // no label is cut at 1024 px wide); the help says the meaning, the default and where the figure goes.
    auto field = [&](const char* label, const char* id, const char* name, std::array<char, 64>& b, const char* hint, const char* help) {
        row_label(state, name, label, help);
        ImGui::InputTextWithHint(id, hint, b.data(), b.size());
        publish(state, name);
        if (ImGui::IsItemActive()) state.active_widget = name;
    };
    field("Id", "##dev_id", "custom:device-id", c.dev_id, "my-gpu",
          "A short id for the device; a workload names it in hardware.devices. Required.");
    field("Name", "##dev_name", "custom:device-name", c.dev_name, "My GPU 48GB", "The name the plan shows. Default: the id.");
    field("Memory (GB)", "##dev_mem", "custom:device-memory", c.dev_memory_gb, "48",
          "Memory capacity in GB (10^9 bytes) from the datasheet (catalog key memory.capacity_GB). Required.");
    row_label(state, "custom:device-memory-type", "Memory type",
              "The memory's kind from the datasheet (catalog key memory.type): HBM, GDDR and LPDDR devices each take their "
              "family's measured share of the bandwidth when decoding. Default: HBM3e.");
    if (ImGui::BeginCombo("##dev_memory_type", kFormMemoryTypes[std::clamp(c.dev_memory_type, 0, int(std::size(kFormMemoryTypes)) - 1)])) {
        for (int i = 0; i < int(std::size(kFormMemoryTypes)); ++i)
            if (ImGui::Selectable(kFormMemoryTypes[i], i == c.dev_memory_type)) c.dev_memory_type = i;
        ImGui::EndCombo();
    }
    publish(state, "custom:device-memory-type");
    field("Bandwidth (GB/s)", "##dev_bw", "custom:device-bandwidth", c.dev_bandwidth_gbps, "960",
          "Memory bandwidth in GB/s from the datasheet (catalog key memory.bandwidth_GBps); decode speed is bound by it. Required.");
    field("BF16 TFLOPS", "##dev_tf", "custom:device-tflops", c.dev_bf16_tflops, "180",
          "Peak dense BF16 tensor throughput in TFLOPS, without sparsity (catalog key compute.bf16_dense_TFLOPS); prefill "
          "and training are bound by it. Required.");
    field("Source", "##dev_src", "custom:device-source", c.dev_source, "datasheet URL",
          "Where the figures come from (a datasheet URL or document), kept as their source like every catalog figure. "
          "Default: \"the user's own figures\".");
    if (button(state, "Add device##add_device_form", "custom:add-device-form")) {
        std::string problem;
        const json d = device_from_form(c, problem);
        if (!problem.empty()) say(state, "Not added: " + problem, true);
        else custom_command(state, "extension", json{{"devices", json::array({d})}}.dump());
    }
    hint(state, "custom:hint-device", "...or paste device JSON (catalog/README.md schema, or {\"devices\": [...]})");
    area(state, "##device_text", "custom:device-text", c.device_text, 4);
    if (button(state, "Add device JSON##add_device_json", "custom:add-device-json")) {
        json doc = json::parse(std::string(c.device_text.data()), nullptr, false);
        if (doc.is_object() && !doc.contains("devices") && !doc.contains("models") && !doc.contains("calibrations")) doc = {{"devices", json::array({doc})}};
        if (doc.is_discarded() || !doc.is_object()) say(state, "Not added: the device text is not a JSON object", true);
        else custom_command(state, "extension", doc.dump());
    }

    ImGui::SeparatorText("Calibrate with your measurement");
    hint(state, "custom:hint-measurement",
         "llama-bench's table, vLLM benchmark output, \"step time: 1.2 s\" or \"peak memory: 21 GB\", measured with this "
         "workload's model on:");
    if (c.calibrate_device.empty() && !state.shown.candidates.empty()) c.calibrate_device = state.shown.candidates[static_cast<size_t>(state.selected)].device;
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##calibrate_device", c.calibrate_device.empty() ? "a device" : c.calibrate_device.c_str())) {
        for (const auto& d : cat.devices)
            if (ImGui::Selectable((d.name + "##cal_" + d.id).c_str(), d.id == c.calibrate_device)) c.calibrate_device = d.id;
        ImGui::EndCombo();
    }
    publish(state, "custom:calibrate-device");
    area(state, "##measurement_text", "custom:measurement-text", c.measurement_text, 5);
    if (button(state, "Calibrate##calibrate", "custom:calibrate")) {
        const json req = {{"text", std::string(c.measurement_text.data())}, {"device", c.calibrate_device}, {"read_on", today()}};
        custom_command(state, "calibrate", req.dump(-1, ' ', false, json::error_handler_t::replace));
    }

    ImGui::SeparatorText("Yours, in this browser");
    bool any = false;
    for (const char* group : {"models", "devices", "calibrations"}) {
        if (!c.extension.contains(group)) continue;
        for (const auto& e : c.extension[group]) {
            any = true;
            const std::string key = entry_key(group, e);
            std::string line = std::string(group).substr(0, std::string(group).size() - 1) + ": " + key;
            if (std::string(group) == "calibrations")
                line = "calibrated " + e.value("assumption", std::string()) + " = " + format_sig(e.value("value", 0.0), 4) + " on " +
                       e.value("device", std::string()) + " (" + e.value("measurement", std::string()) + ", " + e.value("read_on", std::string()) + ")";
            ImGui::PushID(key.c_str());
            if (ImGui::SmallButton("Remove")) custom_command(state, "custom-remove", std::string(group) + ":" + key);
            ImGui::PopID();
            ImGui::SameLine();
            ImGui::TextWrapped("%s", line.c_str());
        }
    }
    if (!any) ImGui::TextDisabled("Nothing yet.");
    else if (button(state, "Clear all##custom_clear", "custom:clear")) custom_command(state, "custom-clear", "");
}

} // namespace hwplan::ui
