// workload_doc.h: the workload JSON document as the page's state: load it (a scenario, an import, a link),
// edit one field by its path, undo, and the page address that restores it. The document is kept whole, so
// the page plans exactly the workload it was given (fields the form does not show are not dropped).
// Usage: load_scenario(state, "bank-70b-fp8", catalog);  set_field(state, "hardware.count", "2");
#pragma once
#include <string>

#include "app_state.h"
#include "hwplan/catalog.h"

namespace hwplan::ui {

// Paths are dot-separated ("serve.context_tokens") with list entries by index ("hardware.owned[0].count"), the same
// as the core's issue paths. An edit changes an existing list entry only; it never makes one up.
const nlohmann::json* field(const nlohmann::json& doc, const std::string& path);  // nullptr when absent
std::string field_text(const nlohmann::json& doc, const std::string& path);       // "" when absent
// Sets a field from typed text: empty removes it (the core's default applies), a number is stored as a
// JSON integer when it is whole (so "2" is 2, never 2.0) and as a float otherwise, anything else is kept
// as text so the core names the field and the reason. Returns true when the document changed.
bool set_field(AppState& state, const std::string& path, const std::string& text);
// A grouped GEMM's three calls' tiles (train.grouped_gemm.wi/.wo) as typed, "128 7168 2048, 256 2048 3584, 256 1792 2048": nine
// whole numbers become [[m,k,n] x 3]; other text goes in as typed for the core to name. tiles_text writes them back that way.
bool set_tiles(AppState& state, const std::string& path, const std::string& text);
std::string tiles_text(const nlohmann::json& doc, const std::string& path);
void set_value(AppState& state, const std::string& path, const nlohmann::json& value); // a choice (combo)
void erase_field(AppState& state, const std::string& path);                         // an emptied section or list goes too
std::string owned_path(size_t row, const char* key); // "hardware.owned[ROW].KEY": a row of the devices you own

void load_workload(AppState& state, const nlohmann::json& doc, const std::string& scenario_id); // replaces the state
bool load_scenario(AppState& state, const std::string& id, const Catalog& catalog);               // false: unknown id
void load_default(AppState& state, const Catalog& catalog);                                        // lesson 003's live chat
void remember(AppState& state);    // push the current document and team on the undo list (before a change)
bool undo(AppState& state);        // back to the previous document and team; false when there is none
void sync_text(AppState& state);   // rebuild the text fields from the document

// The page address fragment that restores the state, compactly: "scenario=ID" while the document is still
// that scenario, else "w=" + the compact JSON (URI-encoded by the page), nothing for the default workload;
// "&view=...", "&device=...", "&tab=hardware|weights" and "&weights=PARAMS[,PRECISION]" (the weight check,
// when not 7e9 at bf16) follow, each only when it differs from the default.
std::string fragment_of(const AppState& state);
// Applies a fragment (without "#", already URI-decoded). A damaged or hostile one leaves the default plan
// and sets state.notice to a short message that never repeats more than a few characters of the input; a
// damaged "tab=" or "weights=" names its key and keeps that input's default (the plan still opens).
void apply_fragment(AppState& state, const std::string& fragment, const Catalog& catalog);
// Loads a pasted or dropped workload (or a team: {"name", "cards"}); false and a notice on bad input.
bool import_json(AppState& state, const std::string& text, const Catalog& catalog);

std::string_view name(View v);
std::string_view name(FormTab t); // "workload", "hardware", "weights" (the link's "tab=")
std::string clip_for_message(const std::string& input, size_t max_chars = 24); // printable, shortened
std::string core_message(const Issue& issue);                              // a core issue as "path: reason", cut at 240 bytes

} // namespace hwplan::ui
