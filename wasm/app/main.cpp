// main.cpp: the web planner's platform loop: GLFW (Emscripten's JS implementation) + WebGL2 + Dear ImGui.
// Each frame: size the canvas to the page, run the panels over AppState, render, and publish the
// visible result and widget positions to the page (live region for screen readers, window.hwplanUi).
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cstdio>
#include <string>

#include "app_state.h"
#include "panels.h"

// [SECTION] page bridge ---------------------------------------------------------------------------
// Writes the one-line summary into #hwplan-status (aria-live) and the widget layout into window.hwplanUi.
EM_JS(void, hwplan_publish, (const char* summary, const char* layout_json), {
    const el = document.getElementById('hwplan-status');
    if (el) el.textContent = UTF8ToString(summary);
    window.hwplanUi = JSON.parse(UTF8ToString(layout_json));
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
    const std::string summary =
        hwplan::ui::panel_weights(app.state, static_cast<float>(css_w), static_cast<float>(css_h));
    ImGui::Render();

    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(app.window, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.09f, 0.10f, 0.12f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    const std::string layout = "{\"params\":" + rect_json(app.state.params_rect) +
                               ",\"precision\":" + rect_json(app.state.precision_rect) +
                               ",\"active\":\"" + (app.state.params_active ? "params" : "") + "\"}";
    if (summary != app.published_summary || layout != app.published_layout) {
        hwplan_publish(summary.c_str(), layout.c_str());
        app.published_summary = summary;
        app.published_layout = layout;
    }
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

    emscripten_set_main_loop_arg(frame, &app, 0, true);
    return 0;
}
