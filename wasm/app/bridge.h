// bridge.h: the web planner's side of the page (JavaScript glue in bridge.cpp, one EM_JS function per
// concern): canvas size and pixel ratio, the live region and widget layout for tests and screen readers, the
// plan as DOM text beside the canvas, the address fragment, the plan for the page API and postMessage,
// clipboard, downloads, paste and drop.
#pragma once

extern "C" {
void hwplan_canvas_fit(float* css_w, float* css_h, float* dpr, float* view_w, float* view_h); // backing store = CSS x dpr; the window's size
void hwplan_set_page_height(float height);                             // > 0: stacked, the canvas this tall, the document scrolls
void hwplan_publish(const char* summary, const char* layout_json, const char* notice); // #hwplan-status, window.hwplanUi
void hwplan_mark_busy();                                               // window.hwplanUi.idle = false (input is on its way)
void hwplan_publish_plan(const char* workload, const char* plan, const char* card, const char* team); // page API + parent frame
void hwplan_publish_mirror(const char* mirror_json);                   // #hwplan-mirror: the plan as DOM text (plan_words.h)
void hwplan_set_fragment(const char* fragment);                        // replaces the address fragment (no history entry)
void hwplan_clipboard_write(const char* text);                         // browser clipboard (with a fallback)
void hwplan_download(const char* file_name, const char* mime, const char* text); // a download from a Blob
int hwplan_prefers_light();                                            // prefers-color-scheme: light
void hwplan_install_page();                                            // listeners: hashchange, message, paste, drop
void hwplan_keep_keys_on_focus_moves();                                // before glfwInit: focus moving inside the page keeps held keys
}

namespace hwplan::ui {
void install_clipboard(); // ImGui's copy goes to the browser clipboard; paste arrives from the DOM paste event
void paste_text(const char* text);      // types pasted text into the active field (from the DOM paste event)
}
