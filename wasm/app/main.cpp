// main.cpp: the web planner's platform loop: GLFW (Emscripten 3.1.6's JS implementation) + WebGL2 + Dear
// ImGui 1.92. The app does three things itself (DESIGN.md, "Dear ImGui 1.92 on Emscripten 3.1.6"): it sizes
// the canvas itself (never glfwSetWindowSize, which asks for full screen when the size equals the screen),
// takes the wheel from the DOM (about 100 pixels a step), and renders at devicePixelRatio with layout in CSS
// pixels. It draws only after input or a change (idle pages cost nothing), and talks to the page through
// bridge.h (link, messages, clipboard, paste and drop, the live region).
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>

#include "app_state.h"
#include "bridge.h"
#include "custom.h"
#include "hwplan/catalog_embedded.h"
#include "hwplan/guard.h"
#include "hwplan/json_api.h"
#include "panels.h"
#include "plan_words.h"
#include "theme.h"
#include "workload_doc.h"

namespace {

// [SECTION] app ------------------------------------------------------------------------------------
struct Command {
    std::string kind; // "fragment", "scenario", "import", "paste", "undo"
    std::string text;
};

struct App {
    GLFWwindow* window = nullptr;
    hwplan::ui::AppState state;
    float css_w = 1280, css_h = 800, dpr = 1; // canvas size in CSS pixels and the device pixel ratio
    float view_w = 1280, view_h = 800;        // the browser window's size in CSS pixels (the layout's choice: page.cpp)
    float page_height = 0;                    // the stacked page's height told to the page (0: side by side)
    int frames_left = 4;                      // frames still to draw after the last input or change
    long frames_drawn = 0;                    // published for the idle-redraw test: frames laid out
    long frames_rendered = 0;                 // published: frames rasterized (a frame the same as the one on screen is not)
    std::uint64_t rendered_hash = 0;          // what the canvas shows now (frame_hash), 0 before the first
    long pastes_typed = 0;                    // published: a test presses Enter only once the paste is in the field
    long pastes_seen = 0;                     // published: every paste the app has handled (typed, imported or dropped)
    std::deque<Command> commands;             // from the page, applied at the start of the next frame
    std::string pending_paste;                // pasted text waiting for Ctrl/Cmd to be released (see frame)
    // Input held back behind a press that follows a move (see on_button): the press, and the keys and characters that
    // come after it, released in the order they came.
    struct HeldInput { enum class Kind { button, key, character } kind; int code, action, mods, scancode; unsigned int character; }; // code: the button or the key
    std::deque<HeldInput> held_input;         // held-back input (see on_button)
    bool moved = false;                       // the cursor moved since the last frame began
    bool drawn_light_theme = false;           // the theme of the last frame drawn
    int held_waited = 0;                      // frames the held-back input has waited
    std::string published_summary, published_layout, published_layout_only, published_fragment, published_plan_key;
    std::string published_team;               // the team plan last told to the page (a team edit changes only it)
};

// [SECTION] rendering only a changed frame ------------------------------------------------------------
// A frame whose draw data is the same as what the canvas already shows (the same vertices, indices, clip
// rectangles and textures on the same framebuffer and background) is not rendered again: WebGL presents a
// drawing buffer only when it was drawn to, so the canvas keeps showing the frame. Most frames after an input
// are such frames (ImGui settles hover and layout over two or three), and each rendered one costs about 100 ms
// of CPU in software WebGL (SwiftShader; what a machine without a GPU uses) plus a round trip to the GPU process for
// every state query the OpenGL backend makes.
std::uint64_t mix(std::uint64_t h, const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull; // FNV-1a's prime, a word at a time
        h ^= h >> 29;
    }
    for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

// The frame's fingerprint, or 0 when it must be rendered whatever it holds (a texture to create, update or
// destroy; a draw callback).
std::uint64_t frame_hash(const ImDrawData& d, int fb_w, int fb_h, const ImVec4& background) {
    if (d.Textures)
        for (const ImTextureData* t : *d.Textures)
            if (t->Status != ImTextureStatus_OK) return 0;
    std::uint64_t h = 0xcbf29ce484222325ull;
    const int size[2] = {fb_w, fb_h};
    h = mix(h, size, sizeof size);
    h = mix(h, &background, sizeof background);
    h = mix(h, &d.DisplayPos, sizeof d.DisplayPos);
    h = mix(h, &d.DisplaySize, sizeof d.DisplaySize);
    h = mix(h, &d.FramebufferScale, sizeof d.FramebufferScale);
    for (const ImDrawList* list : d.CmdLists) {
        h = mix(h, list->VtxBuffer.Data, static_cast<std::size_t>(list->VtxBuffer.size_in_bytes()));
        h = mix(h, list->IdxBuffer.Data, static_cast<std::size_t>(list->IdxBuffer.size_in_bytes()));
        for (const ImDrawCmd& c : list->CmdBuffer) {
            if (c.UserCallback) return 0;
            const ImTextureID texture = c.GetTexID();
            const unsigned counts[3] = {c.ElemCount, c.IdxOffset, c.VtxOffset};
            h = mix(h, &c.ClipRect, sizeof c.ClipRect);
            h = mix(h, &texture, sizeof texture);
            h = mix(h, counts, sizeof counts);
        }
    }
    return h == 0 ? 1 : h;
}

App& app() {
    static App a;
    return a;
}

// [SECTION] keyboard navigation ---------------------------------------------------------------------
// The widget the keyboard is on, while ImGui shows its cursor (after Tab or an arrow), as {x, y, w, h} in CSS pixels,
// or "null". A stacked page scrolls the document to keep it in view (bridge.cpp, hwplan_publish).
std::string nav_rect() {
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    if (!g.NavWindow || g.NavId == 0 || !g.NavCursorVisible) return "null";
    const ImRect r = ImGui::WindowRectRelToAbs(g.NavWindow, g.NavWindow->NavRectRel[g.NavLayer]);
    char buf[96];
    std::snprintf(buf, sizeof buf, "{\"x\":%.1f,\"y\":%.1f,\"w\":%.1f,\"h\":%.1f}", r.Min.x, r.Min.y, r.GetWidth(), r.GetHeight());
    return buf;
}

} // namespace

// [SECTION] GL state ------------------------------------------------------------------------------------
// Dear ImGui's OpenGL backend reads the GL state before each frame it renders and restores it after (about 25 reads).
// In WebGL each read is getParameter or isEnabled, a synchronous round trip to the GPU process: about 45 ms of the
// main thread per rendered frame in headless Chromium (bench/hover.mjs), and as many wake-ups of the GPU process.
// The backend is the only thing that draws on this canvas besides the clear in frame(), so between its frames the
// state is what it restored, which is what it read; starting from WebGL's defaults, that is always the defaults
// (no program, buffer, vertex array, texture or sampler bound; texture unit 0; blending off with ONE/ZERO and
// FUNC_ADD; no test enabled), with the viewport frame() set. The backend's compile line maps its reads to these
// (wasm/CMakeLists.txt); any other query (its start-up's version, texture size, extensions) asks WebGL.
static GLint g_viewport[4] = {0, 0, 0, 0}; // the viewport frame() set for the frame being rendered

extern "C" void hwplan_gl_get_integerv(GLenum name, GLint* out) {
    switch (name) {
    case GL_ACTIVE_TEXTURE: *out = GL_TEXTURE0; return;
    case GL_CURRENT_PROGRAM:
    case GL_TEXTURE_BINDING_2D:
    case GL_SAMPLER_BINDING:
    case GL_ARRAY_BUFFER_BINDING:
    case GL_ELEMENT_ARRAY_BUFFER_BINDING:
    case GL_VERTEX_ARRAY_BINDING:
    case GL_PIXEL_UNPACK_BUFFER_BINDING: *out = 0; return;
    case GL_VIEWPORT:
    case GL_SCISSOR_BOX: std::memcpy(out, g_viewport, sizeof g_viewport); return; // the scissor test is off between frames
    case GL_BLEND_SRC_RGB:
    case GL_BLEND_SRC_ALPHA: *out = GL_ONE; return;
    case GL_BLEND_DST_RGB:
    case GL_BLEND_DST_ALPHA: *out = GL_ZERO; return;
    case GL_BLEND_EQUATION_RGB:
    case GL_BLEND_EQUATION_ALPHA: *out = GL_FUNC_ADD; return;
    default: glGetIntegerv(name, out); return;
    }
}
extern "C" GLboolean hwplan_gl_is_enabled(GLenum name) {
    switch (name) {
    case GL_BLEND:
    case GL_CULL_FACE:
    case GL_DEPTH_TEST:
    case GL_STENCIL_TEST:
    case GL_SCISSOR_TEST: return GL_FALSE;
    default: return glIsEnabled(name);
    }
}

namespace {

// Idle costs nothing: when no frame is left to draw, the main loop itself is paused (no animation-frame
// ticks), and every source of change (GLFW input, the wheel, page commands, a resize) resumes it here.
bool g_loop_paused = false;

void wake(int frames = 4) {
    app().frames_left = std::max(app().frames_left, frames);
    hwplan_mark_busy();
    if (g_loop_paused) {
        g_loop_paused = false;
        emscripten_resume_main_loop();
    }
}

// [SECTION] input: GLFW callbacks forwarded to ImGui with positions in CSS pixels ---------------------
void on_cursor(GLFWwindow* w, double x, double y) {
    ImGui_ImplGlfw_CursorPosCallback(w, x / app().dpr, y / app().dpr);
    app().moved = true;
    wake();
}
// A press that follows a move within one frame waits a frame: ImGui hovers an item (tabs, overlapping
// items) from the previous frame's hover, so a pointer that jumps and clicks at once (a fast click, a
// touch, a test driver) would otherwise press nothing.
// Keys and characters typed while a press is held back wait behind it: typed right after a click on a field, they
// would otherwise reach ImGui first and go to no field, or to the field before (a test driver's, or a fast hand's,
// click-and-type lost the first keys: tests/e2e/input.test.mjs).
void on_button(GLFWwindow* w, int button, int action, int mods) {
    App& a = app();
    if (a.moved || !a.held_input.empty()) a.held_input.push_back({App::HeldInput::Kind::button, button, action, mods, 0, 0});
    else ImGui_ImplGlfw_MouseButtonCallback(w, button, action, mods);
    wake();
}
void release_held_input(App& a) {
    const bool moved = a.moved;
    a.moved = false;
    if (a.held_input.empty()) return;
    if (moved && ++a.held_waited < 3) return;
    for (const auto& b : a.held_input) {
        switch (b.kind) {
        case App::HeldInput::Kind::button: ImGui_ImplGlfw_MouseButtonCallback(a.window, b.code, b.action, b.mods); break;
        case App::HeldInput::Kind::key: ImGui_ImplGlfw_KeyCallback(a.window, b.code, b.scancode, b.action, b.mods); break;
        case App::HeldInput::Kind::character: ImGui_ImplGlfw_CharCallback(a.window, b.character); break;
        }
    }
    a.held_input.clear();
    a.held_waited = 0;
}
void on_key(GLFWwindow* w, int key, int scancode, int action, int mods) {
    App& a = app();
    if (!a.held_input.empty()) a.held_input.push_back({App::HeldInput::Kind::key, key, action, mods, scancode, 0});
    else ImGui_ImplGlfw_KeyCallback(w, key, scancode, action, mods);
    wake();
}
void on_char(GLFWwindow* w, unsigned int c) {
    App& a = app();
    if (!a.held_input.empty()) a.held_input.push_back({App::HeldInput::Kind::character, 0, 0, 0, 0, c});
    else ImGui_ImplGlfw_CharCallback(w, c);
    wake();
}
void on_focus(GLFWwindow* w, int focused) { ImGui_ImplGlfw_WindowFocusCallback(w, focused); wake(); }
void on_enter(GLFWwindow*, int entered) {
    // Leaving: no hover. (Not forwarded: the backend would then poll the raw, unscaled cursor position.)
    if (!entered) ImGui::GetIO().AddMousePosEvent(-FLT_MAX, -FLT_MAX);
    wake();
}

// Could the window under the mouse scroll further this way? If not, the page around the planner (a course
// page embedding it) scrolls instead of the wheel being swallowed.
bool can_scroll(float wheel_y) {
    ImGuiContext& g = *ImGui::GetCurrentContext();
    if (g.OpenPopupStack.Size > 0) return true;
    for (ImGuiWindow* w = g.HoveredWindow; w; w = w->ParentWindow) {
        if (w->Flags & ImGuiWindowFlags_NoScrollWithMouse) continue;
        if (w->ScrollMax.y <= 0) continue;
        if (wheel_y < 0 ? w->Scroll.y < w->ScrollMax.y - 0.5f : w->Scroll.y > 0.5f) return true;
    }
    return false;
}

EM_BOOL on_wheel(int, const EmscriptenWheelEvent* ev, void*) {
    // About 100 DOM pixels (or 3 lines) make one step; DOM deltaY > 0 scrolls down, ImGui's wheel_y < 0 does.
    float step = 1.0f / 100.0f;
    if (ev->deltaMode == DOM_DELTA_LINE) step = 1.0f / 3.0f;
    else if (ev->deltaMode == DOM_DELTA_PAGE) step = 10.0f;
    const float wx = static_cast<float>(-ev->deltaX) * step, wy = static_cast<float>(-ev->deltaY) * step;
    if (wy != 0 && !can_scroll(wy)) return EM_FALSE; // let the page scroll
    ImGui::GetIO().AddMouseWheelEvent(wx, wy);
    wake();
    return EM_TRUE;
}

// [SECTION] commands from the page --------------------------------------------------------------
void apply(App& a, const Command& c, const hwplan::Catalog&) {
    auto& s = a.state;
    const hwplan::Catalog& catalog = hwplan::ui::page_catalog(s);
    if (c.kind == "fragment") {
        hwplan::ui::remember(s);
        hwplan::ui::apply_extension_fragment(s, c.text); // the link's own models and devices first
        hwplan::ui::apply_fragment(s, c.text, hwplan::ui::page_catalog(s));
    } else if (c.kind == "scenario") {
        hwplan::ui::remember(s);
        s.notice.clear();
        if (!hwplan::ui::load_scenario(s, c.text, catalog))
            s.notice = "Unknown scenario \"" + hwplan::ui::clip_for_message(c.text) + "\".";
    } else if (c.kind == "import") {
        hwplan::ui::import_json(s, c.text, catalog);
    } else if (c.kind == "undo") {
        hwplan::ui::undo(s);
    } else {
        hwplan::ui::custom_command(s, c.kind, c.text);
    }
    s.planned_json.clear();
}

// [SECTION] start-up: the first frame before the catalog and the first plan ---------------------------
// main() reads no catalog: the first frame shows the form (the default workload, which needs no catalog)
// and "Planning..." on the plan side. A task right after it reads the catalog and the user's stored extension;
// the next tick applies what the page asked for meanwhile (the link's fragment, hashchange, postMessage,
// hwplanPage calls: all queued in App::commands) and plans. Until then the status line and hwplanPage
// report no plan (BENCHMARKS.md, "Load time": what this saves).
const hwplan::Catalog& no_catalog() {
    static const hwplan::Catalog empty; // the form's lists are empty for the first frame only
    return empty;
}

void read_catalog(App& a) {
    const auto& load = hwplan::embedded_catalog(); // parses the embedded catalog once
    for (const auto& issue : load.issues) std::fprintf(stderr, "hwplan: catalog: %s\n", hwplan::to_string(issue).c_str());
    hwplan::ui::load_stored_extension(a.state); // the user's own models and devices, before any link names them
    a.state.catalog_ready = true;
}

void new_frame(const App& a) {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(a.css_w, a.css_h);
    io.DisplayFramebufferScale = ImVec2(a.dpr, a.dpr);
    ImGui::NewFrame();
}

// Runs as its own task right after the first frame's tick: the frame is already handed to the compositor,
// which draws it (on another thread) while this reads the catalog. The next tick applies the link and plans.
void read_catalog_soon(void*) {
    App& a = app();
    if (a.state.catalog_ready) return;
    read_catalog(a);
    wake(6);
}

void frame_unguarded() {
    App& a = app();
    if (!a.state.catalog_ready && a.frames_drawn > 0) { // the first frame is on screen and the task above has not run yet
        read_catalog_soon(nullptr);
        return; // the plan comes in the next tick, so a page event queued meanwhile still goes first
    }
    const auto& catalog = a.state.catalog_ready ? hwplan::ui::page_catalog(a.state) : no_catalog();
    float css_w = 0, css_h = 0, dpr = 1, view_w = 0, view_h = 0;
    hwplan_canvas_fit(&css_w, &css_h, &dpr, &view_w, &view_h);
    if (css_w != a.css_w || css_h != a.css_h || dpr != a.dpr || view_w != a.view_w || view_h != a.view_h) {
        a.css_w = css_w, a.css_h = css_h, a.dpr = dpr, a.view_w = view_w, a.view_h = view_h;
        wake();
    }
    if (!a.commands.empty()) wake(6);
    if (a.frames_left <= 0) { // idle: nothing changed, nothing to draw; sleep until wake()
        g_loop_paused = true;
        emscripten_pause_main_loop();
        return;
    }
    --a.frames_left;
    ++a.frames_drawn;
    release_held_input(a);
    if (!a.held_input.empty()) wake(2);

    ImGuiIO& io = ImGui::GetIO();
    if (a.frames_drawn == 1) { // the first frame is laid out once unseen: a tab bar shows its tabs from its second frame on
        new_frame(a);
        hwplan::ui::draw_page(a.state, no_catalog(), {a.css_w, a.css_h, a.view_w, a.view_h});
        ImGui::EndFrame();
    }
    new_frame(a);
    // Pasted text is typed into the active field once Ctrl/Cmd is up: a text field ignores characters
    // while Ctrl is held, and the browser's paste event comes while the Ctrl+V chord is still down.
    // With no field open, pasted JSON is a workload to import (as a dropped file is); other text is not typed
    // anywhere, and the notice says why (a paste that seems to do nothing reads as a broken page).
    // io.WantTextInput here says whether the last frame left a text field open, whatever the page published.
    if (!a.pending_paste.empty() && !io.KeyCtrl && !io.KeySuper) {
        if (io.WantTextInput) {
            hwplan::ui::paste_text(a.pending_paste.c_str());
            ++a.pastes_typed;
        } else if (const auto first = a.pending_paste.find_first_not_of(" \t\r\n");
                   first != std::string::npos && a.pending_paste[first] == '{') {
            a.commands.push_back({"import", a.pending_paste});
        } else if (first != std::string::npos) {
            a.state.notice = "Pasted text is not a workload (a workload is a JSON object, {...}); to type it into a field, "
                             "click the field first.";
        }
        a.pending_paste.clear();
        ++a.pastes_seen;
        wake(3);
    }
    while (a.state.catalog_ready && !a.commands.empty()) { // before the catalog, commands wait in order
        const Command c = a.commands.front();
        a.commands.pop_front();
        // A throw from the core (a bug) is the command's named error in the notice; the next command still runs.
        hwplan::guarded(c.kind, [&] { apply(a, c, catalog); }, [&](const hwplan::Issue& i) { a.state.notice = hwplan::to_string(i); });
    }
    a.state.input_waiting = !ImGui::GetCurrentContext()->InputEventsQueue.empty() || !a.commands.empty() || !a.held_input.empty() ||
                            !a.pending_paste.empty();
    a.state.active_widget_before = std::move(a.state.active_widget); // stacked, the plan side is drawn before the form
    a.state.active_widget.clear();
    a.state.widgets.clear();
    a.state.hover.clear();
    a.state.help_open.clear();
    // The page's last line of defence: each core call in the panels is guarded already, and whatever still throws
    // while drawing ends the frame's open windows, tab bars and tables (ImGui's error recovery) and becomes the
    // notice, so the page keeps drawing instead of stopping for good with no message.
    ImGuiErrorRecoveryState drawing;
    ImGui::ErrorRecoveryStoreState(&drawing);
    const std::string summary = hwplan::guarded("page", [&] {
        return hwplan::ui::draw_page(a.state, a.state.catalog_ready ? hwplan::ui::page_catalog(a.state) : no_catalog(),
                                     {a.css_w, a.css_h, a.view_w, a.view_h});
    }, [&](const hwplan::Issue& i) {
        ImGui::ErrorRecoveryTryToRecoverState(&drawing);
        a.state.notice = hwplan::to_string(i);
        wake(2);
        return "Error: " + a.state.notice;
    });
    // Stacked, the canvas grows to the page's content (the document scrolls); the next frame lays out at that height.
    if (a.state.page_height != a.page_height) {
        a.page_height = a.state.page_height;
        hwplan_set_page_height(a.page_height);
        wake(3);
    }
    ImGui::Render();

    const int fb_w = static_cast<int>(std::lround(a.css_w * a.dpr)), fb_h = static_cast<int>(std::lround(a.css_h * a.dpr));
    const ImVec4 bg = hwplan::ui::background(a.state.light_theme);
    const std::uint64_t drawn = frame_hash(*ImGui::GetDrawData(), fb_w, fb_h, bg);
    if (drawn == 0 || drawn != a.rendered_hash) {
        glViewport(0, 0, fb_w, fb_h);
        g_viewport[2] = fb_w, g_viewport[3] = fb_h;
        glClearColor(bg.x, bg.y, bg.z, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        a.rendered_hash = drawn;
        ++a.frames_rendered;
    }

    // A changed plan or document: keep drawing a few frames (layout settles), and tell the page.
    // The page API, the status line and the parent frame get whole plans only (with the workload each was made from):
    // the quick plan a keystroke shows first is on screen for a frame or two, never published (page.cpp refresh_plan).
    const std::string plan_key = a.state.planned_json + hwplan::ui::extension_fragment(a.state); // a new extension re-plans the same document
    if (!a.state.plan_pending() && (plan_key != a.published_plan_key || a.state.team_markdown != a.published_team)) {
        a.published_plan_key = plan_key;
        a.published_team = a.state.team_markdown;
        hwplan_publish_plan(a.state.workload.dump().c_str(), a.state.plan_json.c_str(), a.state.card_markdown.c_str(),
                            a.state.team_markdown.c_str());
        if (a.state.catalog_ready && !(a.state.shown.candidates.empty() && a.state.shown.options.empty())) // the last valid plan, as the canvas shows it
            hwplan_publish_mirror(hwplan::ui::mirror_json(a.state.shown).c_str());
        wake();
    }
    const std::string fragment = hwplan::ui::fragment_of(a.state) + hwplan::ui::extension_fragment(a.state);
    if (a.state.catalog_ready && fragment != a.published_fragment) { // before the catalog the link is not applied yet
        hwplan_set_fragment(fragment.c_str());
        a.published_fragment = fragment;
    }
    std::string layout = std::string(",\"wantText\":") + (io.WantTextInput ? "true" : "false");
    layout += std::string(",\"ctrl\":") + (io.KeyCtrl ? "true" : "false"); // tests hold Ctrl until the app has seen it
    layout += ",\"order\":\"" + a.state.table_order + "\",\"view\":\"" + std::string(hwplan::ui::name(a.state.view)) + "\"";
    layout += ",\"hover\":" + (a.state.hover.empty() ? std::string("null") : a.state.hover) + ",\"sweepMs\":" + std::to_string(a.state.sweep_ms);
    layout += ",\"tab\":\"" + std::string(hwplan::ui::name(a.state.form_tab)) + "\"";
    layout += ",\"plans\":" + std::to_string(a.state.plans_shown); // plans drawn, quick and whole (bench/load_time.mjs: key to plan)
    layout += ",\"colors\":" + hwplan::ui::colors_json(a.state.light_theme); // what text is drawn in and on (contrast tests)
    layout += std::string(",\"stacked\":") + (a.state.page_height > 0 ? "true" : "false");
    layout += ",\"nav\":" + nav_rect(); // the keyboard's widget, while its cursor shows (the page scrolls it into view)
    layout += ",\"help\":" + (a.state.help_open.empty() ? std::string("null") : nlohmann::json{{"field", a.state.help_open}, {"text", a.state.help_text}}.dump());
    for (const auto& [name, r] : a.state.widgets) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "{\"x\":%.1f,\"y\":%.1f,\"w\":%.1f,\"h\":%.1f}", r.x, r.y, r.w, r.h);
        layout += ",\"" + name + "\":" + buf; // names are ids and labels we chose: no quotes or backslashes
    }
    layout += "}";
    // Keep drawing while anything moved or input is still queued (ImGui applies a tab switch, a popup or a
    // trickled click over several frames); a frame identical to the last lets the page go idle.
    if (!ImGui::GetCurrentContext()->InputEventsQueue.empty()) wake(2);
    if (a.state.light_theme != a.drawn_light_theme) wake(3); // colours changed mid-frame: draw it whole
    if (a.state.plan_pending()) wake(2);                     // the whole plan or its words are still to come (page.cpp refresh_plan)
    a.drawn_light_theme = a.state.light_theme;
    if (summary != a.published_summary || layout != a.published_layout_only) wake(3);
    a.published_layout_only = layout;
    // Idle: this frame left nothing to draw and no input waits, so what it publishes is what stays on screen
    // (tests and scripts wait for it before they click; wake() clears it the moment input arrives).
    const bool idle = a.state.catalog_ready && a.frames_left <= 0 && a.commands.empty() && a.held_input.empty() && a.pending_paste.empty() &&
                      !a.state.plan_pending();
    layout = "{\"active\":\"" + a.state.active_widget + "\",\"frames\":" + std::to_string(a.frames_drawn) + ",\"rendered\":" + std::to_string(a.frames_rendered) +
             ",\"pasted\":" + std::to_string(a.pastes_typed) + ",\"pastes\":" + std::to_string(a.pastes_seen) + ",\"idle\":" + (idle ? "true" : "false") + layout;
    const std::string& status = a.state.plan_pending() ? a.published_summary : summary;
    if (status != a.published_summary || layout != a.published_layout) {
        hwplan_publish(status.c_str(), layout.c_str(), a.state.notice.c_str());
        a.published_summary = status;
        a.published_layout = layout;
    }
    if (a.frames_drawn == 1) emscripten_async_call(read_catalog_soon, nullptr, 0); // the slow part, after this frame
}

// The main loop's tick. A throw escaping a tick would end Emscripten's main loop: the page would stop drawing for
// good, with no message. Drawing recovers by itself (above); anything else becomes the notice, a frame begun is
// ended, and the next tick draws the page with it.
void frame(void*) {
    hwplan::guarded("page", [] { frame_unguarded(); }, [](const hwplan::Issue& i) {
        if (ImGui::GetCurrentContext()->WithinFrameScope) ImGui::EndFrame();
        app().state.notice = hwplan::to_string(i);
        wake(2);
    });
}

} // namespace

// [SECTION] the page's entry point --------------------------------------------------------------
// Called by the page's resize listener (bridge.cpp): the canvas size is read at the start of each frame.
extern "C" EMSCRIPTEN_KEEPALIVE void hwplan_wake() { wake(); }

// Called by bridge.js glue (web/hwplan page API): kind is "fragment", "scenario", "import", "paste", "undo".
extern "C" EMSCRIPTEN_KEEPALIVE void hwplan_command(const char* kind, const char* text) {
    // Pasted text goes into ImGui's input queue as typed characters for the active field (bridge.cpp),
    // at the first frame without Ctrl held.
    if (kind && std::string(kind) == "paste") app().pending_paste += text ? text : "";
    else app().commands.push_back({kind ? kind : "", text ? text : ""});
    wake(6);
}

// Called by the page API's scenarios() (bridge.cpp): the catalog's worked examples as `hwplan scenarios --format json`
// and the JSON module's hw.scenarios() give them ({"scenarios": [{id, name, question, source, workload}, ...]}).
// Written once, on the first call (the embedded catalog does not change; a call before start-up reads it then).
extern "C" EMSCRIPTEN_KEEPALIVE const char* hwplan_scenarios() {
    static const std::string json = hwplan::guarded("scenarios", [] { return hwplan::scenarios_json(hwplan::embedded_catalog().catalog); },
                                                    [](const hwplan::Issue& i) { return hwplan::issues_json({i}); });
    return json.c_str();
}

int main() {
    hwplan_keep_keys_on_focus_moves(); // before GLFW registers its own listeners (bridge.cpp)
    if (!glfwInit()) {
        std::fprintf(stderr, "hwplan: GLFW could not start\n");
        return 1;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    // ImGui draws flat 2-D triangles: no depth or stencil buffer, and an opaque canvas (every frame clears it to the
    // theme's background), so the browser neither allocates nor clears the buffers nor blends the canvas into the page.
    glfwWindowHint(GLFW_DEPTH_BITS, 0);
    glfwWindowHint(GLFW_STENCIL_BITS, 0);
    glfwWindowHint(GLFW_ALPHA_BITS, 0); // web/shell.html's WebGL2 check creates the canvas's context with these attributes
    App& a = app();
    a.window = glfwCreateWindow(1280, 800, "hwplan", nullptr, nullptr);
    if (!a.window) {
        std::fprintf(stderr, "hwplan: this browser could not create a WebGL2 context\n");
        return 1;
    }
    glfwMakeContextCurrent(a.window);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;               // layout is code, not a saved file
    io.ConfigInputTextCursorBlink = false;  // a blinking cursor would need frames while idle
    // Keyboard: Tab and the arrows move between widgets, Space or Enter presses, Escape closes a list, menu or popup
    // (README.md, after "What you get"). The cursor is drawn only once the keyboard is used.
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    io.ConfigErrorRecoveryEnableAssert = false;  // recovering from a throw while drawing (frame()) must not assert
    io.ConfigErrorRecoveryEnableTooltip = false; // ... nor show ImGui's debug tooltip: the notice names the error
    hwplan::ui::load_fonts();
    ImGui_ImplGlfw_InitForOpenGL(a.window, false); // our callbacks below scale positions to CSS pixels
    glfwSetCursorPosCallback(a.window, on_cursor);
    glfwSetMouseButtonCallback(a.window, on_button);
    glfwSetKeyCallback(a.window, on_key);
    glfwSetCharCallback(a.window, on_char);
    glfwSetWindowFocusCallback(a.window, on_focus);
    glfwSetCursorEnterCallback(a.window, on_enter);
    ImGui_ImplGlfw_CursorEnterCallback(a.window, 1); // the backend then never polls the unscaled position
    io.AddMousePosEvent(-FLT_MAX, -FLT_MAX);
    emscripten_set_wheel_callback("#canvas", nullptr, false, on_wheel);
    ImGui_ImplOpenGL3_Init("#version 300 es");
    hwplan::ui::install_clipboard();

    a.state.light_theme = hwplan_prefers_light() != 0;
    hwplan::ui::apply_theme(a.state.light_theme);
    hwplan::ui::load_default(a.state, no_catalog()); // the form of the first frame; the catalog comes after it
    hwplan_install_page(); // reads the address's fragment into the first command, listens for more
    hwplan_install_custom_api();
    emscripten_set_main_loop_arg(frame, nullptr, 0, true);
    return 0;
}
