// custom.h: the user's own models, devices and measurements in the page. They form one catalog extension
// ({"devices", "models", "calibrations"}, catalog/README.md "Your own entries"), validated by the core's
// catalog readers, kept in the browser's local storage ("hwplan.extension") and carried in the link
// ("&ext=..."), so a link plans the same on another machine and `hwplan plan --extend` plans the same
// workload with the same extension to the same result.
// Usage: const Catalog& cat = page_catalog(state);   custom_command(state, "config", "{...}");
#pragma once
#include <nlohmann/json.hpp>

#include <array>
#include <string>
#include <vector>

#include "hwplan/catalog.h"

namespace hwplan::ui {

struct AppState;

struct CustomState {
    nlohmann::json extension = nlohmann::json::object(); // {"devices": [...], "models": [...], "calibrations": [...]}
    Catalog catalog;                 // the embedded catalog + extension (valid when extended is true)
    bool extended = false;
    std::string message;             // the last result, shown in the panel ("" = none)
    bool message_bad = false;
    // The panel's text fields (multi-line areas for pasted text).
    std::vector<char> config_text = std::vector<char>(65536, 0);
    std::vector<char> device_text = std::vector<char>(32768, 0);
    std::vector<char> measurement_text = std::vector<char>(32768, 0);
    std::array<char, 64> model_id{""};
    std::array<char, 64> dev_id{""}, dev_name{""}, dev_memory_gb{""}, dev_bandwidth_gbps{""}, dev_bf16_tflops{""}, dev_source{""};
    int dev_memory_type = 0;         // index into kFormMemoryTypes (panel_custom.cpp): catalog key memory.type
    std::string calibrate_device;    // device the measurement was taken on
};

const Catalog& page_catalog(const AppState& state);   // the catalog every plan of the page uses
// Commands from the page API: "config" ({config, id?, name?, read_on}), "extension" (an extension document),
// "calibrate" ({text, device, read_on}), "custom-remove" ("models:ID", "devices:ID", "calibrations:DEVICE:ASSUMPTION"),
// "custom-clear". Returns false for another kind. Sets state.notice on bad input (path and reason).
bool custom_command(AppState& state, const std::string& kind, const std::string& text);
// Replaces the extension (validated whole); false and a message when it has issues. `persist`: save it.
bool set_extension(AppState& state, const nlohmann::json& extension, bool persist = true);
void load_stored_extension(AppState& state);          // at start-up, from local storage
std::string extension_fragment(const AppState& state); // "&ext=..." ("" when there is none)
// Reads "ext=" from a link's fragment (merging it over the stored one) before the link's workload is read.
void apply_extension_fragment(AppState& state, const std::string& fragment);
void panel_custom(AppState& state);                   // the "Your hardware" tab
std::string today_iso();                              // the browser's date, YYYY-MM-DD (a measurement's read_on)

} // namespace hwplan::ui

extern "C" void hwplan_install_custom_api(); // window.hwplanPage: importConfig, addExtension, calibrate, removeCustom, clearCustom, extension

namespace hwplan::ui {

} // namespace hwplan::ui
