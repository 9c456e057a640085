// access.test.mjs: the page for a keyboard-only reader and for low vision. Tab from the top of the page reaches the
// skip link (the plan as text, shown over the canvas, Escape back), then the canvas, then walks the top bar and the form, where a field takes typing, and on to the plan's views; Escape closes
// an open list, menu or popup (the model list's filter too); the arrows move in a list and Enter chooses the entry the
// keyboard is on; Ctrl+Z in a field undoes the typing and never empties the field; Escape, then Tab, leaves the canvas. Text is at least 4.5:1 against what
// it is drawn on in both themes (WCAG 2.1 AA, 1.4.3), computed here by the WCAG formula from the colours the app
// publishes (window.hwplanUi.colors). The page is loaded once; each test starts from the bare page through reset().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, open, reset, settled, click, chord, widget, workload, shot, T } from './helpers.mjs';

let browser, server, page, problems;
before(async () => {
  ({ browser, server } = await startAll());
  ({ page, problems } = await open(browser, server.url));
});
after(async () => { await browser?.close(); await server?.close(); });

// A key pressed once the page is idle, and waited for: the app has drawn it (a key wakes the app at once, so
// `idle` is false until the frames it causes are done).
async function press(key) {
  await settled(page);
  await page.keyboard.press(key);
  await settled(page);
}

// The published widget whose rectangle the keyboard's cursor is on (window.hwplanUi.nav), among names with `prefix`.
async function navOn(prefix = '') {
  return page.evaluate((p) => {
    const ui = window.hwplanUi, n = ui.nav;
    if (!n) return null;
    const hit = Object.keys(ui).filter((k) => k.startsWith(p) && ui[k] && typeof ui[k] === 'object' && 'x' in ui[k] && k !== 'nav')
      .filter((k) => Math.abs(ui[k].y - n.y) < 2 && n.x <= ui[k].x + 2 && ui[k].x + ui[k].w <= n.x + n.w + 2);
    return hit.sort((a, b) => ui[b].w - ui[a].w)[0] || null;
  }, prefix);
}

const open_ = (prefix) => page.evaluate((p) => Object.keys(window.hwplanUi).some((k) => k.startsWith(p)), prefix);

test('keyboard only: Tab reaches the canvas and the form, a field takes typing, the plan\'s views open with Enter, and Escape then Tab leaves', async () => {
  await reset(page);
  await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
  await page.keyboard.press('Tab'); // from the top of the document: the skip link first, then the canvas
  await page.waitForFunction(() => document.activeElement?.id === 'hwplan-skip', null, { timeout: T.step });
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => document.activeElement?.id === 'canvas', null, { timeout: T.step });
  let steps = 0;
  while ((await page.evaluate(() => window.hwplanUi.active)) !== 'concurrent_users') {
    assert.ok(++steps < 80, 'Tab reaches the users field within 80 presses');
    await press('Tab');
  }
  await page.keyboard.type('12');
  await press('Enter');
  await page.waitForFunction(() => window.hwplanPage.workload().serve.concurrent_users === 12, null, { timeout: T.step });
  // On through the form to the plan: the Costs view's tab, opened with Enter.
  steps = 0;
  while ((await navOn('view:')) !== 'view:costs') {
    assert.ok(++steps < 120, 'Tab reaches the plan\'s views within 120 presses');
    await press('Tab');
  }
  await press('Enter');
  await page.waitForFunction(() => window.hwplanUi.view === 'costs', null, { timeout: T.step });
  // No keyboard trap: Escape hides the planner's keyboard cursor (nothing is open), then Tab leaves the canvas.
  await press('Escape');
  await page.waitForFunction(() => window.hwplanUi.nav === null, null, { timeout: T.step });
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => document.activeElement?.id !== 'canvas', null, { timeout: T.step });
  assert.deepEqual(problems, []);
});

test('the skip link, the first Tab stop, shows the plan as text over the canvas; Escape goes back to the planner', async () => {
  await reset(page);
  const box = (id) => page.evaluate((i) => { const r = document.getElementById(i).getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; }, id);
  const hidden = await box('hwplan-skip');
  assert.ok(hidden.x + hidden.w < 0, `out of sight until the keyboard is on it (x ${hidden.x})`);
  await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => document.activeElement?.id === 'hwplan-skip', null, { timeout: T.step });
  const shown = await box('hwplan-skip');
  assert.ok(shown.x >= 0 && shown.w > 40 && shown.h > 10, `in sight with the keyboard on it (${JSON.stringify(shown)})`);
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Read the plan as text');
  const hash = await page.evaluate(() => location.hash);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.id === 'hwplan-mirror', null, { timeout: T.step });
  // Shown over the canvas, most of the window, with the recommendation's words; the link did not change the fragment.
  const mirror = await box('hwplan-mirror');
  assert.ok(mirror.w > 1000 && mirror.h > 600, `the plan as text fills the window (${JSON.stringify(mirror)})`);
  const text = await page.evaluate(() => document.getElementById('hwplan-mirror').innerText);
  assert.match(text, /Recommendation/);
  assert.equal(await page.evaluate(() => location.hash), hash);
  await shot(page, 'skip-link-plan-as-text');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.activeElement?.id === 'canvas', null, { timeout: T.step });
  assert.ok((await box('hwplan-mirror')).w <= 1, 'hidden again once the focus left it');
  assert.deepEqual(problems, []);
});

test('Escape closes the scenario list, the Export menu and the model list (with its filter open)', async () => {
  await reset(page);
  for (const [opener, inside] of [['scenario', 'scenario:'], ['export', 'export:'], ['model', 'model:filter']]) {
    await click(page, opener);
    await widget(page, inside === 'scenario:' ? 'scenario:bank-70b-fp8' : inside === 'export:' ? 'export:plan-copy' : 'model:filter');
    await press('Escape');
    assert.equal(await open_(inside), false, `Escape closed the ${opener} list`);
  }
  assert.deepEqual(problems, []);
});

test('in the scenario list and the model list the arrows move and Enter chooses the entry the keyboard is on', async () => {
  await reset(page);
  await click(page, 'scenario');
  await widget(page, 'scenario:bank-70b-fp8');
  await press('ArrowDown');
  await press('ArrowDown');
  const entry = await navOn('scenario:');
  assert.ok(entry, 'the keyboard is on an entry of the list');
  await press('Enter');
  const id = entry.slice('scenario:'.length);
  await page.waitForFunction((s) => new URLSearchParams(location.hash.slice(1)).get('scenario') === s, id, { timeout: T.step });
  assert.equal(await open_('scenario:'), false, 'the list closed');

  // The model list: its filter takes the keys first; the arrows leave it for the entries.
  await reset(page);
  await click(page, 'model');
  await page.waitForFunction(() => window.hwplanUi.active === 'model:filter', null, { timeout: T.step });
  await page.keyboard.type('llama');
  await settled(page);
  await press('ArrowDown');
  await press('ArrowDown');
  const model = await navOn('model:');
  assert.ok(model && model !== 'model:filter', `the keyboard is on a model (${model})`);
  await press('Enter');
  const want = model.slice('model:'.length);
  await page.waitForFunction((m) => window.hwplanPage.workload().model === m, want, { timeout: T.step });
  assert.deepEqual(problems, []);
});

test('Ctrl+Z in a field undoes the typing and does not empty the field', async () => {
  await reset(page);
  await click(page, 'concurrent_users'); // selects the field's 20
  await page.waitForFunction(() => window.hwplanUi.active === 'concurrent_users', null, { timeout: T.step });
  await page.keyboard.type('35');
  await chord(page, 'z');
  await press('Enter');
  await page.waitForFunction(() => window.hwplanUi.active === '', null, { timeout: T.step });
  assert.equal((await workload(page)).serve.concurrent_users, 20, 'Ctrl+Z took the field back to 20');
  // Ctrl+Z with nothing typed leaves the field as it was; typing after it still types.
  await click(page, 'concurrent_users');
  await page.waitForFunction(() => window.hwplanUi.active === 'concurrent_users', null, { timeout: T.step });
  await chord(page, 'z');
  await press('Enter');
  await page.waitForFunction(() => window.hwplanUi.active === '', null, { timeout: T.step });
  assert.equal((await workload(page)).serve.concurrent_users, 20, 'the field still holds 20');
  await click(page, 'concurrent_users');
  await page.waitForFunction(() => window.hwplanUi.active === 'concurrent_users', null, { timeout: T.step });
  await page.keyboard.type('46');
  await chord(page, 'z');
  await page.keyboard.type('6');
  await press('Enter');
  await page.waitForFunction(() => window.hwplanPage.workload().serve.concurrent_users === 6, null, { timeout: T.step });
  assert.deepEqual(problems, []);
});

// [SECTION] contrast -------------------------------------------------------------------------------
// WCAG 2.1, "relative luminance" and "contrast ratio" (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance):
// L = 0.2126 R + 0.7152 G + 0.0722 B over the linearized sRGB channels; ratio = (L1 + 0.05) / (L2 + 0.05), L1 the lighter.
const linear = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const luminance = ([r, g, b]) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
const ratio = (a, b) => { const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x); return (l1 + 0.05) / (l2 + 0.05); };
// A colour with alpha drawn over an opaque one (the GPU's blend: source alpha, one minus source alpha, in sRGB).
const over = (top, below) => [0, 1, 2].map((i) => top[3] * top[i] + (1 - top[3]) * below[i]);

// Text colours and what the page draws each on (the panels are child windows, so their fill lies over the window's).
// Returns [{what, on, fg, bg}] with bg opaque.
function pairs(c) {
  const child = over(c.child, c.background), surface = {
    'the window': c.background, 'a panel': child, 'a field': over(c.frame, child), 'a popup or tooltip': over(c.popup, child),
    'a selected row': over(c.header, child), 'a button': over(c.button, child), 'a striped row': over(c.row_alt, child),
    'the recommended row': over(c.highlight_row, child), 'a chart': over(c.chart_bg, child),
  };
  const out = [];
  const put = (fg, what, places) => { for (const p of places) out.push({ what, on: p, fg, bg: surface[p] }); };
  put(c.text, 'text', ['the window', 'a panel', 'a field', 'a popup or tooltip', 'a selected row', 'a button', 'a striped row', 'the recommended row']);
  put(c.muted, 'muted text', ['the window', 'a panel', 'a field', 'a popup or tooltip', 'a striped row']); // hints, units, menu headings, cost terms
  put(c.good, 'the good colour', ['a panel']);                                    // the recommendation's heading, "fits"
  put(c.bad, 'the warning colour', ['the window', 'a panel', 'a selected row']);   // the notice, field errors, an eliminated row
  put(c.accent, 'the accent colour', ['a panel']);                                 // "What would change it:", Run it's headings
  put(c.chart_text, 'chart text', ['a chart']);
  put(c.chart_muted, 'chart labels', ['a chart']);
  put(c.bad, 'the warning colour', ['a chart']);
  put(c.accent, 'the accent colour', ['a chart']);
  c.series.forEach((s, i) => put(s, `curve ${i + 1}'s legend`, ['a popup or tooltip'])); // the What if tooltip names each curve in its colour
  return out;
}

// Hand-checked values of the formula: black on white is 21:1, ImGui's light-theme muted grey (0.60) on white 2.85:1
// (the figure the issue measured).
test('the contrast formula gives 21:1 for black on white and 2.85:1 for ImGui\'s light muted grey on white', () => {
  assert.equal(ratio([0, 0, 0], [1, 1, 1]).toFixed(2), '21.00');
  assert.equal(ratio([0.6, 0.6, 0.6], [1, 1, 1]).toFixed(2), '2.85');
});

test('text is at least 4.5:1 against what it is drawn on, in the light and the dark theme', async () => {
  await reset(page);
  const failures = [];
  for (let i = 0; i < 2; i++) {
    const c = await page.evaluate(() => window.hwplanUi.colors);
    assert.ok(c && c.text && c.series?.length === 6, 'the app publishes its colours');
    for (const { what, on, fg, bg } of pairs(c)) {
      const r = ratio(over(fg, bg), bg);
      if (r < 4.5) failures.push(`${c.light ? 'light' : 'dark'}: ${what} on ${on}: ${r.toFixed(2)}:1`);
    }
    await click(page, 'theme');
    await page.waitForFunction((was) => window.hwplanUi.colors.light !== was, c.light, { timeout: T.step });
  }
  assert.deepEqual(failures, []);
  assert.deepEqual(problems, []);
});
