// panels.h: one function per ImGui panel. Each draws from AppState and returns the one-line summary
// it publishes to the page's live region (so screen readers and tests can read what the canvas shows).
#pragma once
#include <string>

#include "app_state.h"

namespace hwplan::ui {

std::string panel_weights(AppState& state, float width, float height); // the model-weights calculator

} // namespace hwplan::ui
