// bridge.cpp: the JavaScript glue of the web planner (see bridge.h). The page API it installs is
// documented in README.md ("Embedding"): window.hwplanPage and the postMessage protocol.
#include "bridge.h"

#include <emscripten.h>
#include <imgui.h>

#include <string>

// [SECTION] canvas ------------------------------------------------------------------------------------
// The canvas's CSS size comes from the stylesheet; its backing store is that times devicePixelRatio, so
// text is rasterized at the screen's density (DESIGN.md: never glfwSetWindowSize on 3.1.6). The window's own size
// (the browser's viewport in CSS pixels, smaller under zoom) decides the layout: side by side, or stacked with the
// document scrolling (page.cpp, kStackBelowPx).
EM_JS(void, hwplan_canvas_fit, (float* css_w, float* css_h, float* dpr, float* view_w, float* view_h), {
    const c = Module.canvas;
    const r = window.devicePixelRatio || 1;
    const w = c.clientWidth || 1280, h = c.clientHeight || 800;
    const bw = Math.max(1, Math.round(w * r)), bh = Math.max(1, Math.round(h * r));
    if (c.width !== bw) c.width = bw;
    if (c.height !== bh) c.height = bh;
    HEAPF32[css_w >> 2] = w;
    HEAPF32[css_h >> 2] = h;
    HEAPF32[dpr >> 2] = r;
    HEAPF32[view_w >> 2] = window.innerWidth || w;
    HEAPF32[view_h >> 2] = window.innerHeight || h;
});

// Stacked layout (height > 0): the canvas is as tall as the page's content and the document scrolls (a phone, a
// narrow frame, a zoomed window); 0: the canvas fills the window and nothing but its panels scrolls. Through a class
// and a custom property of the stylesheet (web/shell.html), since GLFW may clear the canvas's inline size.
EM_JS(void, hwplan_set_page_height, (float height), {
    const root = document.documentElement;
    root.classList.toggle("hwplan-stacked", height > 0);
    if (height > 0) root.style.setProperty("--hwplan-page-h", Math.ceil(height) + "px");
    else root.style.removeProperty("--hwplan-page-h");
});

// [SECTION] live region and layout ---------------------------------------------------------------
EM_JS(void, hwplan_publish, (const char* summary, const char* layout_json, const char* notice), {
    const el = document.getElementById("hwplan-status");
    if (el) el.textContent = UTF8ToString(summary);
    const n = document.getElementById("hwplan-notice");
    if (n) n.textContent = UTF8ToString(notice);
    window.hwplanUi = JSON.parse(UTF8ToString(layout_json));
    // While a field is being edited, a hidden textarea holds the keyboard focus: the browser then delivers
    // paste (Ctrl+V, the context menu) and on-screen keyboards to the page. Keys still reach GLFW on window.
    const input = document.getElementById("hwplan-input");
    if (input) {
        if (window.hwplanUi.wantText && document.activeElement !== input) input.focus({ preventScroll: true });
        else if (!window.hwplanUi.wantText && document.activeElement === input) Module.canvas.focus({ preventScroll: true });
    }
    // Stacked, the document scrolls and the app cannot see it: when the keyboard moves to a widget (the nav cursor) or
    // opens a field outside the window's view, bring it into view, once per move (the user's own scrolling stays).
    const target = window.hwplanUi.nav || null;
    const key = target ? target.x + "," + target.y : "";
    if (key !== Module.hwplanNavKey) {
        Module.hwplanNavKey = key;
        if (target && document.documentElement.classList.contains("hwplan-stacked")) {
            const top = Module.canvas.getBoundingClientRect().top + target.y, margin = 16;
            if (top < margin) window.scrollBy(0, top - margin);
            else if (top + target.h > window.innerHeight - margin) window.scrollBy(0, top + target.h - window.innerHeight + margin);
        }
    }
});

// Input or a command arrived: the layout published last may be about to move. Cleared here, at once (the
// next frame may be a while away on a busy machine), and set again by the frame that leaves nothing to draw.
EM_JS(void, hwplan_mark_busy, (), {
    if (window.hwplanUi && window.hwplanUi.idle) window.hwplanUi.idle = false;
});

// [SECTION] the plan as text ------------------------------------------------------------------------------
// #hwplan-mirror: the recommendation, its cost terms, reasons, what would change the answer and the Devices table
// as real DOM text beside the canvas (web/shell.html hides it from sight and shows it when printed), so screen
// readers, find in page, selection, translation and printing have the plan. The words are the canvas's own
// (plan_words.cpp builds both); every string goes in as textContent, never as markup.
EM_JS(void, hwplan_publish_mirror, (const char* mirror_json), {
    const root = document.getElementById("hwplan-mirror");
    if (!root) return;
    const m = JSON.parse(UTF8ToString(mirror_json));
    const el = (tag, text, attrs) => {
        const e = document.createElement(tag);
        if (text) e.textContent = text;
        for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
        return e;
    };
    const list = (tag, items) => {
        const l = el(tag);
        for (const t of items) if (t) l.append(el("li", t));
        return l;
    };
    const parts = [el("p", m.workload), el("h2", m.heading), el("p", m.headline)];
    if (m.costs.length) {
        const t = el("table", "", { "aria-label": "Cost breakdown" });
        for (const c of m.costs) { // no destructuring here: 3.1.6's JS minifier drops it from a for-of
            const tr = el("tr");
            tr.append(el("th", c[0], { scope: "row" }), el("td", c[1]));
            t.append(tr);
        }
        parts.push(t);
    }
    if (m.range) parts.push(el("p", m.range));
    parts.push(list("ul", m.reasons.concat([m.lever, m.guide])));
    if (m.checks.length) parts.push(el("h3", m.checks_heading), list("ul", m.checks));
    if (m.changes.length) parts.push(el("h3", m.changes_heading), list("ul", m.changes));
    parts.push(el("h3", m.table_heading));
    const table = el("table", "", { "aria-label": m.table_heading });
    const head = el("tr");
    for (const h of m.headers) head.append(el("th", h, { scope: "col" }));
    table.append(el("thead"), el("tbody"));
    table.tHead.append(head);
    for (const r of m.rows) {
        const tr = el("tr");
        r.forEach((c, i) => tr.append(el(i === 1 ? "th" : "td", c, i === 1 ? { scope: "row" } : {})));
        table.tBodies[0].append(tr);
    }
    parts.push(table);
    root.replaceChildren(...parts);
});

// [SECTION] plan, fragment --------------------------------------------------------------------------
EM_JS(void, hwplan_publish_plan, (const char* workload, const char* plan, const char* card, const char* team), {
    const page = window.hwplanPage;
    if (!page) return;
    page._workload = UTF8ToString(workload);
    page._plan = UTF8ToString(plan);
    page._card = UTF8ToString(card);
    page._team = UTF8ToString(team);
    setTimeout(page._notify, 0); // after this frame has also updated the live region
});

EM_JS(void, hwplan_set_fragment, (const char* fragment), {
    const raw = UTF8ToString(fragment);
    const f = raw ? "#" + raw : "";
    if (window.location.hash === f) return;
    try { history.replaceState(history.state, "", f || (window.location.pathname + window.location.search)); } catch (e) { /* a sandboxed frame may refuse: the plan still shows */ }
    if (window.hwplanPage) window.hwplanPage._lastHash = window.location.hash;
});

// [SECTION] clipboard and downloads ------------------------------------------------------------------
EM_JS(void, hwplan_clipboard_write, (const char* text), {
    const s = UTF8ToString(text);
    const fallback = () => {
        const ta = document.createElement("textarea");
        ta.value = s;
        ta.setAttribute("readonly", "");
        ta.style.position = "fixed";
        ta.style.opacity = "0";
        document.body.appendChild(ta);
        ta.select();
        try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
        ta.remove();
        Module.canvas.focus();
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(s).catch(fallback);
    else fallback();
    if (window.hwplanPage) window.hwplanPage.lastCopied = s;
});

EM_JS(void, hwplan_download, (const char* file_name, const char* mime, const char* text), {
    const blob = new Blob([UTF8ToString(text)], { type: UTF8ToString(mime) });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = UTF8ToString(file_name);
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
});

// Emscripten's GLFW listens for "blur" on window in the capture phase, so it also sees every element's blur (focus
// moving from the hidden text field to the canvas when a field lets go, or to the clipboard fallback's textarea) and
// releases every key it holds down: a Ctrl held across such a move never reached the app again until pressed anew.
// Registered before glfwInit, this listener runs first and keeps those blurs from GLFW; the window's own blur (the
// user leaves the page or the tab) still releases the keys.
//
// Tab: Emscripten's GLFW cancels every Tab on the window, so the keyboard could never reach the canvas. Outside the
// planner Tab now moves the browser's focus as on any page; on the canvas it moves between the planner's widgets
// (main.cpp, keyboard navigation); Escape (which hides the planner's keyboard cursor when nothing is open), then Tab or
// Shift+Tab, leaves the canvas, so the keyboard is never trapped in it.
EM_JS(void, hwplan_keep_keys_on_focus_moves, (), {
    window.addEventListener("blur", (e) => { if (e.target !== window) e.stopImmediatePropagation(); }, true);
    let escaped = false;
    window.addEventListener("keydown", (e) => {
        const active = document.activeElement, canvas = Module.canvas;
        if (e.key === "Tab") {
            const editing = active && active.id === "hwplan-input";
            const leaving = active === canvas && escaped && !(window.hwplanUi && window.hwplanUi.nav);
            if ((active !== canvas && !editing) || leaving) {
                e.stopImmediatePropagation(); // GLFW never sees it: the browser moves the focus
                escaped = false;
                return;
            }
        }
        escaped = e.key === "Escape";
    }, true);
});

EM_JS(int, hwplan_prefers_light, (), {
    return (window.matchMedia && window.matchMedia("(prefers-color-scheme: light)").matches) ? 1 : 0;
});

// [SECTION] page API and listeners -------------------------------------------------------------------
// window.hwplanPage: load(scenarioId), loadWorkload(objectOrJson), workload(), plan(), card(), team(),
// undo(), scenarios(). postMessage from a parent frame: {hwplan: 'scenario', id} | {hwplan: 'workload', workload} |
// {hwplan: 'get'}; the planner answers {hwplan: 'plan', summary, headline, workload, plan} to that frame, and again
// after every change. In a frame, the planner tells its parent {hwplan: 'ready'} once it listens, so a parent can ask
// for the plan without guessing when the planner has started.
EM_JS(void, hwplan_install_page, (), {
    const cmd = (kind, text) => {
        const put = (s) => { const n = lengthBytesUTF8(s) + 1; const p = _malloc(n); stringToUTF8(s, p, n); return p; };
        const k = put(String(kind)), t = put(String(text));
        _hwplan_command(k, t);
        _free(k);
        _free(t);
    };
    const page = window.hwplanPage = {
        _workload: "", _plan: "", _card: "", _team: "", _lastHash: "", _peers: [], lastCopied: "",
        _cmd: cmd, // hwplan_command(kind, text) for the page's other JavaScript (panel_custom.cpp)
        load: (id) => cmd("scenario", id),
        loadWorkload: (w) => cmd("import", typeof w === "string" ? w : JSON.stringify(w)),
        undo: () => cmd("undo", ""),
        // The catalog's worked examples: [{id, name, question, source, workload}, ...], as hw.scenarios() and
        // `hwplan scenarios --format json` list them.
        scenarios: () => { const s = JSON.parse(UTF8ToString(_hwplan_scenarios())); return s.scenarios || []; },
        workload: () => page._workload ? JSON.parse(page._workload) : null,
        plan: () => page._plan ? JSON.parse(page._plan) : null,
        card: () => page._card,
        team: () => page._team,
        _notify: () => {
            const status = document.getElementById("hwplan-status");
            const plan = page.plan(), rec = plan && plan.plan && plan.plan.recommendation;
            // headline: the recommendation's sentence as the page shows it above its cost terms, for a course page to
            // quote; summary: the status line (stage, model, how many candidates fit, the recommendation).
            const headline = (rec && rec.headline) || "";
            const msg = { hwplan: "plan", summary: status ? status.textContent : "", headline, workload: page.workload(), plan };
            for (const p of page._peers) {
                try { p.source.postMessage(msg, p.origin === "null" ? "*" : p.origin); } catch (e) { /* the frame went away */ }
            }
        },
    };
    // The main loop sleeps while idle (main.cpp): a new window size or pixel ratio wakes it.
    window.addEventListener("resize", () => _hwplan_wake());
    if (window.visualViewport) window.visualViewport.addEventListener("resize", () => _hwplan_wake());
    const fragment = () => window.location.hash.replace(/^#/, "");
    if (fragment()) cmd("fragment", fragment());
    window.addEventListener("hashchange", () => {
        if (window.location.hash === page._lastHash) return; // our own replaceState
        cmd("fragment", fragment());
    });
    if (window.parent !== window) { // embedded: say so once, with nothing of the plan (a parent asks with 'get')
        try { window.parent.postMessage({ hwplan: "ready" }, "*"); } catch (e) { /* a parent that went away */ }
    }
    window.addEventListener("message", (e) => {
        const d = e.data;
        if (!d || typeof d !== "object" || typeof d.hwplan !== "string" || !e.source) return;
        if (!page._peers.some((p) => p.source === e.source)) page._peers.push({ source: e.source, origin: e.origin });
        if (d.hwplan === "scenario" && typeof d.id === "string") cmd("scenario", d.id.slice(0, 200));
        else if (d.hwplan === "workload" && d.workload) cmd("import", typeof d.workload === "string" ? d.workload : JSON.stringify(d.workload));
        else if (d.hwplan === "get" && page._plan) setTimeout(page._notify, 0); // no plan yet: the first one is sent when it comes
    });
    // Paste has one path into the page: the browser's paste event (Ctrl+V, Shift+Insert, the context menu)
    // hands the text to the app, which types it into the active field. Some Chromium builds (150, headless)
    // never fire that event for a synthesized Ctrl+V; there the keydown starts a clipboard read instead,
    // used only if no paste event came first (one keydown, one paste).
    // The app, not this listener, decides where the text goes (main.cpp, frame): into the field being edited,
    // or, with no field open, a workload import when it is JSON. The field that is open is known for certain
    // only in the app's next frame: the state published last may be a frame old (a click that opened the
    // field a moment ago), which on a busy machine dropped the paste.
    let pending = 0, seq = 0;
    const deliver = (text) => { if (text) cmd("paste", text); };
    window.addEventListener("paste", (e) => {
        pending = 0;
        const text = e.clipboardData ? e.clipboardData.getData("text/plain") : "";
        if (!text) return;
        e.preventDefault();
        deliver(text);
    });
    window.addEventListener("keydown", (e) => {
        if (!(e.ctrlKey || e.metaKey) || e.altKey || (e.key !== "v" && e.key !== "V") || e.repeat) return;
        if (!navigator.clipboard || !navigator.clipboard.readText) return;
        const mine = pending = ++seq;
        setTimeout(() => {
            if (pending !== mine) return; // the paste event came
            pending = 0;
            navigator.clipboard.readText().then(deliver, () => { /* no permission: nothing to paste */ });
        }, 250);
    }, true);
    const input = document.getElementById("hwplan-input");
    if (input) input.addEventListener("input", () => { input.value = ""; });
    // The arrows (and Space on the canvas) move and press in the planner (keyboard navigation, main.cpp): the browser must
    // not also scroll the document or a parent page with them. Space in a field being edited still types a space.
    window.addEventListener("keydown", (e) => {
        const own = document.activeElement === Module.canvas || (input && document.activeElement === input);
        if (!own || e.altKey || e.ctrlKey || e.metaKey) return;
        if (e.key.startsWith("Arrow") || (e.key === " " && document.activeElement === Module.canvas)) e.preventDefault();
    });
    window.addEventListener("dragover", (e) => { e.preventDefault(); });
    window.addEventListener("drop", (e) => {
        e.preventDefault();
        const f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
        if (f) f.text().then((t) => cmd("import", t));
        else if (e.dataTransfer) cmd("import", e.dataTransfer.getData("text/plain"));
    });
});

namespace hwplan::ui {

namespace {
std::string g_clipboard; // the last text copied in the page
}

void paste_text(const char* text) {
    // Typed into the active field as if keyed in: it replaces the selection and passes the field's own
    // character filter (decimal fields drop letters; single-line fields drop line breaks), as ImGui's paste does.
    if (text && *text) ImGui::GetIO().AddInputCharactersUTF8(text);
}

void install_clipboard() {
    ImGuiPlatformIO& pio = ImGui::GetPlatformIO();
    pio.Platform_SetClipboardTextFn = [](ImGuiContext*, const char* text) {
        g_clipboard = text ? text : "";
        hwplan_clipboard_write(g_clipboard.c_str());
    };
    // ImGui's own paste (Ctrl+V, Shift+Insert in a field) finds nothing: the browser hands its clipboard
    // over only in a paste event, which the page's listener turns into typed text (paste_text below).
    // One path, so text is never pasted twice or from a stale copy.
    pio.Platform_GetClipboardTextFn = [](ImGuiContext*) -> const char* { return nullptr; };
}

} // namespace hwplan::ui
