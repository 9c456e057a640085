// small_screens.test.mjs: the page fits the screen it is on. Below 900 CSS px wide (a phone, a narrow window, a desktop
// window at 150-200 % zoom: the browser's zoom is a higher devicePixelRatio over fewer CSS pixels) the plan stacks above
// the form and the document scrolls: the top bar wraps inside the width, the recommendation's headline is in the first
// screen, and the form is below it, reached by scrolling (or by Tab, which scrolls the document along), where a click
// types into a field. Wider windows keep the form
// beside the plan with the top bar on one row. The page is loaded once, in a context at devicePixelRatio 2 (so 640x400
// is a 1280x800 window at 200 % zoom, 960x540 a 1920x1080 one), and each test starts from the bare page at its size
// through reset() (helpers.mjs); screenshots of each size go to build/e2e/ for people to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, open, reset, settled, shot, widget, typeInto, T } from './helpers.mjs';

let browser, server, page, problems;
before(async () => {
  ({ browser, server } = await startAll());
  ({ page, problems } = await open(browser, server.url, { deviceScaleFactor: 2 }));
});
after(async () => { await browser?.close(); await server?.close(); });

const EPS = 0.5; // CSS pixels: rectangles are published rounded to 0.1 px
const TOP_BAR = ['scenario', 'undo', 'reset', 'export', 'theme'];

// Problems with the top bar at `width` ([] = none): each of its widgets inside the width, in the first screen, and no
// two of them on top of each other.
async function topBarProblems(width, height) {
  const ui = await page.evaluate(() => window.hwplanUi);
  const out = [];
  for (const name of TOP_BAR) {
    const r = ui[name];
    if (!r) { out.push(`${name}: not drawn`); continue; }
    if (r.x < -EPS || r.x + r.w > width + EPS) out.push(`${name}: x ${r.x}..${r.x + r.w} outside 0..${width}`);
    if (r.y < -EPS || r.y + r.h > height + EPS) out.push(`${name}: y ${r.y}..${r.y + r.h} outside the first screen (${height})`);
  }
  for (let i = 0; i < TOP_BAR.length; i++)
    for (let j = i + 1; j < TOP_BAR.length; j++) {
      const a = ui[TOP_BAR[i]], b = ui[TOP_BAR[j]];
      if (a && b && a.x < b.x + b.w - EPS && b.x < a.x + a.w - EPS && a.y < b.y + b.h - EPS && b.y < a.y + a.h - EPS)
        out.push(`${TOP_BAR[i]} and ${TOP_BAR[j]} overlap`);
    }
  return out;
}

// The recommendation's headline: inside the width, in the first screen (the document not scrolled), and wide enough to
// read (not the 20 px sliver a 390 px window used to leave the plan side).
async function assertHeadlineInView(width, height) {
  const h = await widget(page, 'reco:headline');
  assert.ok(h.x >= -EPS && h.x + h.w <= width + EPS, `headline x ${h.x}..${h.x + h.w} inside 0..${width}`);
  assert.ok(h.y >= 0 && h.y + h.h <= height + EPS, `headline y ${h.y}..${h.y + h.h} in the first screen (${height})`);
  assert.ok(h.w >= Math.min(250, width * 0.5), `headline ${h.w} px wide at ${width}`);
}

// Scrolls a stacked page as a person does until the form's widget `name` shows whole: the document down to the form's
// panel (as far as it goes), then the wheel over the panel's part in the window, a notch at a time, each waited for.
// Returns window.scrollY.
async function bringIntoView(name, height) {
  const panel = await widget(page, 'workload:panel');
  const target = await page.evaluate((y) => Math.min(y, document.documentElement.scrollHeight - innerHeight), panel.y);
  await page.evaluate((y) => window.scrollTo(0, y), target);
  await page.waitForFunction((y) => Math.abs(window.scrollY - y) < 1, target, { timeout: T.step });
  const scrolled = await page.evaluate(() => window.scrollY);
  const top = Math.max(panel.y, scrolled), bottom = Math.min(panel.y + panel.h, scrolled + height); // canvas y, in the window
  for (let notch = 0; notch < 40; notch++) {
    const r = await widget(page, name);
    if (r.y >= top && r.y + r.h <= bottom) return scrolled;
    await page.mouse.move(panel.x + panel.w / 2, (top + bottom) / 2 - scrolled);
    await page.mouse.wheel(0, r.y + r.h > bottom ? 100 : -100);
    await settled(page);
  }
  assert.fail(`${name} never came into view`);
}

// Stacked sizes: a phone, a 1280x800 window at 200 % and at 150 % zoom (853x533 CSS px).
for (const [w, h, what] of [[390, 844, 'a phone (390x844)'], [640, 400, 'a 1280x800 window at 200 % zoom'],
                            [853, 533, 'a 1280x800 window at 150 % zoom']]) {
  test(`${what}: the plan stacks above the form, the top bar wraps, the headline is in view and the form is reached by scrolling`, async () => {
    await reset(page, '#view=devices', { width: w, height: h });
    await page.evaluate(() => window.scrollTo(0, 0));
    await settled(page);
    await shot(page, `small-screen-${w}x${h}`);
    assert.deepEqual(await topBarProblems(w, h), [], 'top bar');
    await assertHeadlineInView(w, h);

    // Stacked: the plan's panel above the form's, each the window's width; the canvas (and the document) as tall as both.
    const ui = await page.evaluate(() => window.hwplanUi);
    const form = ui['workload:panel'], reco = ui.recommendation;
    assert.ok(form.y > reco.y + reco.h, `the form (y ${form.y}) is below the recommendation (y ${reco.y})`);
    assert.ok(form.w >= w - 60, `the form is ${form.w} px wide of ${w}`);
    const doc = await page.evaluate(() => ({ scroll: document.documentElement.scrollHeight, inner: innerHeight, width: document.documentElement.scrollWidth }));
    assert.ok(doc.scroll >= form.y + 200, `the document (${doc.scroll} px) reaches down to the form (y ${form.y})`);
    assert.equal(doc.width, w, 'nothing sticks out sideways');

    // One wheel notch over the title (nothing there scrolls inside the planner) scrolls the document, as on any page.
    await page.mouse.move(12, 12);
    await page.mouse.wheel(0, 100);
    await page.waitForFunction(() => window.scrollY > 0, null, { timeout: T.step });

    // Down to the form: the document scrolled to its panel, the wheel over the panel until its users field shows, a
    // click there opens it, typing sets the workload, and the document stays where it is while typing.
    const scrolled = await bringIntoView('concurrent_users', h);
    await typeInto(page, 'concurrent_users', '31');
    await page.waitForFunction(() => window.hwplanPage.workload().serve.concurrent_users === 31, null, { timeout: T.step });
    assert.equal(await page.evaluate(() => window.scrollY), scrolled, 'typing did not scroll the document');
    assert.equal(await page.evaluate(() => window.hwplanUi.stacked), true, 'the app says it is stacked');
    assert.deepEqual(problems, []);
  });
}

for (const [w, h] of [[1280, 800], [1920, 1080], [960, 540]]) {
  test(`${w}x${h}: the form beside the plan, the top bar on one row, the headline in view`, async () => {
    await reset(page, '#view=devices', { width: w, height: h });
    await settled(page);
    await shot(page, `wide-screen-${w}x${h}`);
    assert.deepEqual(await topBarProblems(w, h), [], 'top bar');
    await assertHeadlineInView(w, h);
    const ui = await page.evaluate(() => window.hwplanUi);
    assert.ok(TOP_BAR.every((n) => Math.abs(ui[n].y - ui.scenario.y) < 2), 'the top bar is one row');
    assert.ok(ui['workload:panel'].x + ui['workload:panel'].w < ui.recommendation.x, 'the form is left of the plan');
    const doc = await page.evaluate(() => ({ scroll: document.documentElement.scrollHeight, inner: innerHeight }));
    assert.equal(doc.scroll, doc.inner, 'the document does not scroll');
    assert.equal(await page.evaluate(() => window.hwplanUi.stacked), false, 'the app says it is side by side');
    assert.deepEqual(problems, []);
  });
}

// A keyboard on a stacked page: Tab walks the top bar, the plan and on into the form below the first screen; the
// document scrolls with it, so the field being typed in is in the window (the app knows nothing of the document's
// scroll: the page brings the keyboard's widget into view, bridge.cpp).
// Stacked, the plan side is drawn before the form in each frame, so the page cannot tell from this frame alone that a
// field is being typed in when it plans (page.cpp refresh_plan reads the last frame's too): typing 1e30 keeps the plan
// settled before the typing, not the in-between 1e3's (input.test.mjs checks the same side by side).
test('a phone (390x844): typing 1e30 keeps the plan settled before the typing, not the plan of 1e3 on the way', async () => {
  await reset(page, '#view=devices', { width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await settled(page);
  const settledPlan = await page.evaluate(() => window.hwplanPage.plan());
  await bringIntoView('concurrent_users', 844);
  const r = await widget(page, 'concurrent_users');
  const top = await page.evaluate(() => document.getElementById('canvas').getBoundingClientRect().top);
  await page.mouse.click(r.x + Math.min(r.w / 2, 40), r.y + r.h / 2 + top);
  await page.waitForFunction(() => window.hwplanUi.active === 'concurrent_users', null, { timeout: T.step });
  await page.keyboard.type('1e3');
  await page.waitForFunction(() => window.hwplanPage.workload().serve.concurrent_users === 1000 && window.hwplanUi.idle, null, { timeout: T.step });
  assert.notDeepEqual(await page.evaluate(() => window.hwplanPage.plan()), settledPlan, 'the plan of 1,000 users was shown');
  await page.keyboard.type('0');
  await page.waitForFunction(() => /^Error: serve\.concurrent_users: implausible value 1e\+30;/.test(document.getElementById('hwplan-status').textContent),
                             null, { timeout: T.step });
  await settled(page);
  assert.deepEqual(await page.evaluate(() => window.hwplanPage.plan()), settledPlan, 'the plan kept is the one settled before the typing');
  await page.keyboard.press('Escape');
  assert.deepEqual(problems, []);
});

test('a phone (390x844) with a keyboard: Tab down to the users field scrolls the document to it', async () => {
  await reset(page, '#view=devices', { width: 390, height: 844 });
  await page.evaluate(() => { window.scrollTo(0, 0); document.getElementById('canvas').focus(); });
  await settled(page);
  for (let steps = 0; (await page.evaluate(() => window.hwplanUi.active)) !== 'concurrent_users'; steps++) {
    assert.ok(steps < 150, 'Tab reaches the users field within 150 presses');
    await page.keyboard.press('Tab');
    await settled(page);
  }
  const r = await widget(page, 'concurrent_users');
  const top = await page.evaluate(() => document.getElementById('canvas').getBoundingClientRect().top);
  assert.ok(top < 0, `the document scrolled (canvas top ${top})`);
  assert.ok(r.y + top >= 0 && r.y + r.h + top <= 844, `the field (y ${r.y + top} in the window) is in view`);
  await page.keyboard.type('9');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.hwplanPage.workload().serve.concurrent_users === 9, null, { timeout: T.step });
  assert.deepEqual(problems, []);
});
