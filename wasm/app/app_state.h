// app_state.h: the only mutable state of the web planner. Widgets edit it each frame; the core computes
// from it (memoized on the workload JSON); panels draw the result read-only (Dear ImGui's pattern).
#pragma once
#include <array>
#include <map>
#include <string>
#include <vector>

#include "hwplan/plan.h"

namespace hwplan::ui {

// Screen rectangle of a widget in CSS pixels, published to the page for accessibility and tests.
struct Rect {
    float x = 0, y = 0, w = 0, h = 0;
    bool operator==(const Rect&) const = default;
};

// The workload as the form edits it; workload_json() turns it into the core's JSON form (docs/workload.md).
struct WorkloadForm {
    int stage = 0;                 // index into kStages (serve, batch, embed, finetune, pretrain, rl, edge)
    int model = -1;                // index into the catalog's models; -1 = a custom size
    std::array<char, 32> custom_params{"7e9"};
    int weights_format = 0;        // index into the catalog's formats
    int kv_precision = 1;          // index into hwplan::all_precisions()
    int compute_precision = 1;
    // serve / batch / edge / rl rollouts
    std::array<char, 32> context_tokens{"8192"};
    std::array<char, 32> prompt_tokens{"1500"};
    std::array<char, 32> output_tokens{"400"};
    std::array<char, 32> concurrent_users{"20"};
    std::array<char, 32> requests_per_s{""};
    std::array<char, 32> ttft_target_s{"2"};
    std::vector<TrafficClass> traffic; // classes loaded from a scenario (lesson 003's mixed traffic)
    // finetune / pretrain / rl trainer
    int method = 0;                // full, lora, qlora
    int optimizer = 0;             // adamw, adamw_fp32, adamw_8bit, sgd, adafactor
    int checkpointing = 0;         // none, selective, full
    std::array<char, 32> seq_len{"2048"};
    std::array<char, 32> micro_batch{"1"};
    std::array<char, 32> lora_rank{"16"};
    std::array<char, 32> train_tokens{""};
    // embed
    std::array<char, 32> items{"50000"};
    std::array<char, 32> tokens_per_item{"512"};
    std::array<char, 32> window_s{"7200"};
    // hardware
    int device = -1;               // index into the catalog's devices; -1 = every device
    std::array<char, 32> count{""}; // empty = the fewest that fit
};

struct AppState {
    WorkloadForm form;
    std::string workload_json;     // the form as JSON, rebuilt every frame
    std::string planned_json;      // the JSON the current plan was made from (memo key)
    Plan plan;                     // the current plan (issues set when the form is invalid)
    std::string card_markdown;     // lesson 003's workload card for the current plan
    std::string team_name;         // a team scenario loaded from the picker ("" = none)
    std::string team_markdown;     // its team plan (the fleet, then one card per workload)
    int selected = 0;              // candidate shown in detail

    // The weight-memory calculator (the first slice, kept as its own tab).
    std::array<char, 64> params_text{"7e9"};
    int precision_index = 1;       // index into hwplan::all_precisions(); 1 = bf16

    // Layout published for the page (tests, assistive tech): widget name -> rectangle, and the active one.
    std::map<std::string, Rect> widgets;
    std::string active_widget;
};

} // namespace hwplan::ui
