// helpers.mjs: shared set-up for the browser tests: Debian's Chromium (headless, SwiftShader WebGL2),
// the dist/ server, a page opener that records console errors, page errors and every request (a request
// leaving the page's origin is a problem), and the gestures a person makes on the canvas (widget rectangles
// come from window.hwplanUi, published by the app each frame it draws).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { startServer } from '../../build-scripts/serve.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const dist = path.join(root, 'dist');
export const shots = path.join(root, 'build', 'e2e');
fs.mkdirSync(shots, { recursive: true });

// Generous limits: CI runs this on a loaded 2-core machine with software WebGL.
export const T = { load: 60000, step: 30000 };

// WebGL on SwiftShader (the page's canvas is drawn as a user's GPU draws it, in software). The browser's own
// compositor runs on the CPU (--disable-gpu-compositing): on SwiftShader it cost more, each rendered frame composited
// by JIT-compiled shaders over the whole viewport: bench/hover.mjs 13.5 and 14.4 CPU s with it against 16.5 and 16.3
// without (BENCHMARKS.md, "Fill work per rendered frame"). Screenshots compared with and without: 67 of 77 identical,
// the rest within single pixels (a caret, an edge) but for the course page's DOM text, antialiased a shade differently.
export const chromiumArgs = ['--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-quic', '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-gpu-compositing'];

export async function startAll() {
  const server = await startServer({ dir: dist, port: 0 });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
  return { server, browser };
}

// Records problems on a page: console errors, page errors, requests outside `origin` ("null": file://, where
// only the page itself may be read). Returns {problems, requests}.
export function watch(page, origin, pageUrl) {
  const problems = [], requests = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const u = new URL(r.url());
    requests.push(r.url().slice(0, 120));
    const own = u.protocol === 'data:' || u.protocol === 'blob:' ||
                (origin === 'null' ? u.href.split('#')[0] === pageUrl.split('#')[0] : u.origin === origin);
    if (!own) problems.push(`request outside the page's origin: ${r.url()}`);
  });
  return { problems, requests };
}

// Opens `url` in a new page (options: viewport, deviceScaleFactor, screen, permissions) and waits for the
// first plan in the live region.
export async function open(browser, url, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  const origin = new URL(url).origin;
  const watched = watch(page, origin, url);
  await page.goto(url);
  await page.waitForFunction(() => /^(Plan|Team plan): /.test(document.getElementById('hwplan-status')?.textContent || ''),
                             null, { timeout: T.load });
  // The first plan changes the layout (the recommendation card above the views grows): wait until it is drawn.
  await settled(page);
  return { page, context, ...watched };
}

// Brings a page opened once for a whole test file back to a link's state without reloading it (a cold load of the
// ~900 KB page in software WebGL costs more than most tests): the window size first, then the link's fragment
// through the page's own hashchange path (wasm/app/bridge.cpp: the same fragment command a link is opened with),
// and waits until the app has applied it and drawn the result (settled). The default, "#view=devices", is the bare
// page's state: the default workload in the devices view, the Workload form tab. What a fragment does not carry
// (Undo history, table sort and filter, theme, your own catalog entries) a test that depends on it resets itself.
export async function reset(page, fragment = '#view=devices', viewport = { width: 1280, height: 800 }) {
  const size = page.viewportSize();
  if (size.width !== viewport.width || size.height !== viewport.height) {
    await page.setViewportSize(viewport);
    // Below 900 px wide the page stacks (web/shell.html): the canvas is then as tall as its content, not the window.
    await page.waitForFunction(([w, h]) => {
      const c = document.getElementById('canvas');
      const stacked = document.documentElement.classList.contains('hwplan-stacked');
      return c.clientWidth === w && (stacked || c.clientHeight === h) && c.width === Math.round(w * devicePixelRatio);
    }, [viewport.width, viewport.height], { timeout: T.step });
  }
  await settled(page);
  await page.evaluate((f) => new Promise((resolve) => {
    // Our listener runs after the page's, which has queued the fragment for the app (and cleared `idle`) by then.
    window.addEventListener('hashchange', () => resolve(), { once: true });
    history.replaceState(null, '', location.pathname + location.search); // no fragment now: setting one is a change
    window.hwplanPage._lastHash = null; // the page skips a fragment equal to the one it last wrote itself
    location.hash = f;
  }), fragment);
  await settled(page);
}

export const status = (page) => page.evaluate(() => document.getElementById('hwplan-status').textContent);
export const notice = (page) => page.evaluate(() => document.getElementById('hwplan-notice').textContent);
export const workload = (page) => page.evaluate(() => window.hwplanPage.workload());
export const planOf = (page) => page.evaluate(() => window.hwplanPage.plan());

export const waitStatus = (page, re) =>
  page.waitForFunction((src) => new RegExp(src).test(document.getElementById('hwplan-status').textContent), re.source, { timeout: T.step });

export async function widget(page, name) {
  await page.waitForFunction((w) => window.hwplanUi && window.hwplanUi[w], name, { timeout: T.step });
  return page.evaluate((w) => window.hwplanUi[w], name);
}

// Where a point of the canvas (CSS pixels, as window.hwplanUi gives them) is in the window: the same point side by side;
// on a stacked page (below 900 px wide) the document scrolls and moves the canvas.
export async function toWindow(page, x, y) {
  const top = await page.evaluate(() => document.getElementById('canvas').getBoundingClientRect().top);
  return { x, y: y + top };
}

// Clicks a widget where it is on screen, as a person does: once the page has stopped moving (an earlier click
// or edit may still be changing the layout, and on a busy machine two clicks could otherwise reach the app in
// one frame).
export async function click(page, name) {
  await widget(page, name);
  await settled(page);
  const r = await widget(page, name);
  const at = await toWindow(page, r.x + Math.min(r.w / 2, 40), r.y + r.h / 2);
  await page.mouse.click(at.x, at.y);
}

// Clicks a field (which selects its text), types, presses Enter and waits until the field lets go.
export async function typeInto(page, name, text) {
  await click(page, name);
  await page.waitForFunction((w) => window.hwplanUi.active === w, name, { timeout: T.step });
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await page.waitForFunction((w) => window.hwplanUi.active !== w, name, { timeout: T.step });
}

// Picks a scenario from the picker (opens the combo, clicks the entry).
export async function pickScenario(page, id) {
  await click(page, 'scenario');
  await widget(page, `scenario:${id}`);
  await settled(page); // a popup is measured, hidden, on its first frame: click its entry once it stays put
  await click(page, `scenario:${id}`);
}

// Waits until the page is idle: its last frame left nothing to draw and no input or command waits (the app
// draws only on input or change, and publishes `idle` with each frame; input clears it at once), so the layout
// published in window.hwplanUi is the one on screen and stays there.
export async function settled(page) {
  await page.waitForFunction(() => window.hwplanUi && window.hwplanUi.idle === true, null, { timeout: T.step, polling: 25 });
}

export function shot(page, name) {
  return page.screenshot({ path: path.join(shots, `${name}.png`) });
}

// The native CLI (built by the native preset, which test.sh builds first): the reference answer.
export function cli(...args) {
  const exe = path.join(root, 'build', 'native', 'core', 'hwplan');
  if (!fs.existsSync(exe)) throw new Error(`${exe} is missing: build the native preset first (cmake --build --preset native)`);
  return execFileSync(exe, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
}

// Ctrl+key as a person presses it, paced by what the app has seen rather than by sleeps: Ctrl goes down and
// stays down until the app has drawn a frame with it held (it publishes `ctrl`), then the key goes down and up,
// and Ctrl comes up once the app has drawn two more frames (ImGui's input queue gives the key's press and its
// release a frame each, both with Ctrl held). A busy machine makes this slower, never different. (Not `settled`:
// a paste waits for Ctrl to come up, so the app is not idle while Ctrl+V is held.)
export async function chord(page, key) {
  await page.keyboard.down('Control');
  await page.waitForFunction(() => window.hwplanUi.ctrl === true, null, { timeout: T.step, polling: 25 });
  const frames = await page.evaluate(() => window.hwplanUi.frames);
  await page.keyboard.press(key);
  await page.waitForFunction((n) => window.hwplanUi.frames >= n + 2, frames, { timeout: T.step, polling: 25 });
  await page.keyboard.up('Control');
  await page.waitForFunction(() => window.hwplanUi.ctrl === false, null, { timeout: T.step, polling: 25 });
}

// Works through the page as a person does once a plan is open: types 12 concurrent users (waits until the
// workload holds them), then opens the costs, assumptions, card and devices views in turn.
export async function workThrough(page) {
  await typeInto(page, 'concurrent_users', '12');
  await page.waitForFunction(() => window.hwplanPage.workload().serve.concurrent_users === 12, null, { timeout: T.step });
  for (const v of ['costs', 'assumptions', 'card', 'devices']) {
    await click(page, `view:${v}`);
    await page.waitForFunction((x) => window.hwplanUi.view === x, v, { timeout: T.step });
  }
}

// The page's documents are nlohmann::json (keys sorted): a value with its object keys sorted compares the same way.
export function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}
