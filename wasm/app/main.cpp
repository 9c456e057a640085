// main.cpp: the web planner's platform loop: GLFW (Emscripten's JS implementation) + WebGL2 + Dear ImGui.
// Each frame: size the canvas to the page, run the panels over AppState (the core plans only when the
// workload changed), render, and publish the visible result and widget positions to the page (live
// region for screen readers, window.hwplanUi for tests).
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app_state.h"
#include "hwplan/card.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/plan.h"
#include "panels.h"

// [SECTION] page bridge ---------------------------------------------------------------------------
// Writes the one-line summary into #hwplan-status (aria-live) and the widget layout into window.hwplanUi.
EM_JS(void, hwplan_publish, (const char* summary, const char* layout_json), {
    const el = document.getElementById('hwplan-status');
    if (el) el.textContent = UTF8ToString(summary);
    window.hwplanUi = JSON.parse(UTF8ToString(layout_json));
});

// The page's "#scenario=ID" (how course pages link or embed a worked example), or "".
EM_JS(char*, hwplan_url_scenario, (), {
    const m = /[#&]scenario=([a-z0-9.-]+)/.exec(window.location.hash || "");
    const s = m ? m[1] : "";
    const n = lengthBytesUTF8(s) + 1;
    const p = _malloc(n);
    stringToUTF8(s, p, n);
    return p;
});

// CSS size of the canvas's container, so the ImGui window follows the page layout.
EM_JS(int, hwplan_canvas_css_width, (), { return Module.canvas.clientWidth | 0; });
EM_JS(int, hwplan_canvas_css_height, (), { return Module.canvas.clientHeight | 0; });

namespace {

struct App {
    GLFWwindow* window = nullptr;
    hwplan::ui::AppState state;
    std::string published_summary;
    std::string published_layout;
};

std::string rect_json(const hwplan::ui::Rect& r) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "{\"x\":%.1f,\"y\":%.1f,\"w\":%.1f,\"h\":%.1f}", r.x, r.y, r.w, r.h);
    return buf;
}

// The whole page: the form on the left (with the weight calculator in a second tab), the plan on the right.
std::string draw(hwplan::ui::AppState& state, const hwplan::Catalog& catalog, float width, float height) {
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(width, height));
    ImGui::Begin("hwplan: AI hardware planner (runs entirely in this page)##main", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    std::string summary;
    const float left = std::min(430.0f, width * 0.4f);
    ImGui::BeginChild("left##left", ImVec2(left, 0), true);
    if (ImGui::BeginTabBar("tabs##tabs")) {
        const bool plan_tab = ImGui::BeginTabItem("Workload##tab_workload");
        state.widgets["tab_workload"] = {ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y,
                                         ImGui::GetItemRectSize().x, ImGui::GetItemRectSize().y};
        if (plan_tab) {
            hwplan::ui::panel_workload(state, catalog);
            ImGui::EndTabItem();
        }
        const bool weights_tab = ImGui::BeginTabItem("Weight check##tab_weights");
        state.widgets["tab_weights"] = {ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y,
                                        ImGui::GetItemRectSize().x, ImGui::GetItemRectSize().y};
        if (weights_tab) {
            summary = hwplan::ui::panel_weights(state);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("right##right", ImVec2(0, 0), true);
    // The core runs only when the workload changed (memoized on its JSON form).
    state.workload_json = hwplan::ui::workload_json(state.form, catalog);
    if (state.workload_json != state.planned_json) {
        state.plan = hwplan::plan_from_json(state.workload_json, catalog);
        state.planned_json = state.workload_json;
        state.card_markdown.clear();
        if (state.plan.issues.empty())
            state.card_markdown = hwplan::render_card(state.plan, hwplan::parse_workload(state.workload_json, catalog).workload, catalog);
        state.selected = 0; // show the recommended device's detail first
        for (int i = 0; i < static_cast<int>(state.plan.candidates.size()); ++i)
            if (state.plan.recommendation.found && state.plan.candidates[i].device == state.plan.recommendation.option.device) state.selected = i;
    }
    const std::string plan_summary = hwplan::ui::panel_plan(state);
    if (summary.empty()) summary = plan_summary;
    ImGui::EndChild();
    ImGui::End();
    // A team scenario's plan: its own window over the page until closed.
    if (!state.team_markdown.empty()) {
        bool open = true;
        ImGui::SetNextWindowPos(ImVec2(width * 0.2f, height * 0.08f), ImGuiCond_Appearing);
        ImGui::SetNextWindowSize(ImVec2(width * 0.75f, height * 0.85f), ImGuiCond_Appearing);
        ImGui::Begin(("Team plan: " + state.team_name + "##team").c_str(), &open);
        ImGui::TextWrapped("The fleet for the team's workloads, then one card per workload (Markdown: select and copy).");
        ImGui::InputTextMultiline("##team_text", state.team_markdown.data(), state.team_markdown.size() + 1, ImVec2(-1, -1),
                                  ImGuiInputTextFlags_ReadOnly);
        ImGui::End();
        if (!open) state.team_markdown.clear();
        const auto fleet = state.team_markdown.find("Fleet cost: ");
        summary = "Team plan: " + state.team_name +
                  (fleet == std::string::npos ? "" : "; " + state.team_markdown.substr(fleet, state.team_markdown.find('*', fleet) - fleet));
    }
    return summary;
}

void frame(void* arg) {
    App& app = *static_cast<App*>(arg);
    int css_w = hwplan_canvas_css_width(), css_h = hwplan_canvas_css_height();
    if (css_w <= 0) css_w = 1280;
    if (css_h <= 0) css_h = 800;
    int win_w = 0, win_h = 0;
    glfwGetWindowSize(app.window, &win_w, &win_h);
    if (win_w != css_w || win_h != css_h) glfwSetWindowSize(app.window, css_w, css_h);

    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    app.state.active_widget.clear();
    const std::string summary = draw(app.state, hwplan::embedded_catalog().catalog, static_cast<float>(css_w), static_cast<float>(css_h));
    ImGui::Render();

    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(app.window, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.09f, 0.10f, 0.12f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    std::string layout = "{\"active\":\"" + app.state.active_widget + "\"";
    for (const auto& [name, rect] : app.state.widgets) layout += ",\"" + name + "\":" + rect_json(rect);
    layout += "}";
    if (summary != app.published_summary || layout != app.published_layout) {
        hwplan_publish(summary.c_str(), layout.c_str());
        app.published_summary = summary;
        app.published_layout = layout;
    }
}

// Start on the scenario the URL names (#scenario=ID), else on the lesson's live-chat card (Mistral 7B,
// 20 users, 8k context), so the first view is a plan.
void initial_form(hwplan::ui::AppState& state, const hwplan::Catalog& catalog) {
    char* requested = hwplan_url_scenario();
    const std::string id = requested;
    std::free(requested);
    if (const hwplan::Scenario* sc = hwplan::find_scenario(catalog, id); sc && !sc->workload_json.empty()) {
        const auto parsed = hwplan::parse_workload(sc->workload_json, catalog);
        if (parsed.issues.empty()) {
            hwplan::ui::form_from_workload(state.form, parsed.workload, catalog);
            return;
        }
    } else if (!id.empty()) {
        std::fprintf(stderr, "hwplan: unknown scenario \"%s\" in the page address; showing the default\n", id.c_str());
    }
    if (auto m = hwplan::resolve_model(catalog, "Mistral-7B-Instruct"); m.item) state.form.model = static_cast<int>(m.item - catalog.models.data());
    for (int i = 0; i < static_cast<int>(catalog.formats.size()); ++i)
        if (catalog.formats[i].name == "bf16") state.form.weights_format = i;
}

} // namespace

int main() {
    if (!glfwInit()) {
        std::fprintf(stderr, "hwplan: GLFW could not start\n");
        return 1;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    static App app;
    app.window = glfwCreateWindow(1280, 800, "hwplan", nullptr, nullptr);
    if (!app.window) {
        std::fprintf(stderr, "hwplan: this browser could not create a WebGL2 context\n");
        return 1;
    }
    glfwMakeContextCurrent(app.window);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr; // layout is code, not a saved file
    ImGui::StyleColorsDark();
    ImGui::GetStyle().WindowRounding = 0;
    ImGui_ImplGlfw_InitForOpenGL(app.window, true);
    ImGui_ImplOpenGL3_Init("#version 300 es");

    const auto& load = hwplan::embedded_catalog();
    for (const auto& issue : load.issues) std::fprintf(stderr, "hwplan: catalog: %s\n", hwplan::to_string(issue).c_str());
    initial_form(app.state, load.catalog);
    emscripten_set_main_loop_arg(frame, &app, 0, true);
    return 0;
}
