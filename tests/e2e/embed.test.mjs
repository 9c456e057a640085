// embed.test.mjs: the example course page. Its links switch the embedded planner's scenario (the planner
// listens for fragment changes, not only at start-up); its button drives the planner with postMessage and
// shows the answer; its script calls the JavaScript API directly; the wheel over the planner where nothing
// scrolls reaches the course page. No console errors, no request leaves the origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, watch, shot, T } from './helpers.mjs';

// The course page is loaded once for the file (a cold load of the planner in software WebGL is the costliest step of
// a browser test); the second test goes on in it at a lower window, where the course page scrolls.
let browser, server, page, problems;
before(async () => {
  ({ browser, server } = await startAll());
  const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  page = await context.newPage();
  const url = new URL('examples/course-page.html', server.url).href;
  ({ problems } = watch(page, new URL(url).origin, url));
  await page.goto(url);
});
after(async () => { await browser?.close(); await server?.close(); });

const frameStatus = (frame) => frame.evaluate(() => document.getElementById('hwplan-status')?.textContent || '');

test('course page: links switch the scenario, postMessage drives the planner, the JS API answers', async () => {
  const frame = page.frame({ name: 'planner' });
  assert.ok(frame, 'the planner iframe is there');
  await frame.waitForFunction(() => /^Plan: llama-3\.1-70b, serve/.test(document.getElementById('hwplan-status')?.textContent || ''),
                              null, { timeout: T.load });
  // "The planner says" fills in at load, with no button pressed: the planner tells its parent it is ready, the course
  // page asks for the plan, and shows the recommendation as the planner's page words it (it stayed "…" until the
  // button was pressed, then showed the status line).
  const bankHeadline = await frame.evaluate(() => window.hwplanPage.plan().plan.recommendation.headline);
  assert.match(bankHeadline, /^Buy 16 x NVIDIA H100 SXM5 80GB \(2 x 8-device servers/); // README's worked example
  await page.waitForFunction((h) => document.getElementById('planner-says').textContent === h, bankHeadline, { timeout: T.step });
  await shot(page, 'course-page');

  // Each link changes only the iframe's fragment; the planner must follow (it used to keep the bank).
  for (const [id, expected] of [['support-ticket-finetune', /^Plan: llama-3\.1-8b, finetune/],
                                ['chat-35-percent-utilization', /^Plan: [^,]+, serve/],
                                ['small-team-three-jobs', /^Team plan: Small team/],
                                ['bank-70b-fp8', /^Plan: llama-3\.1-70b, serve/]]) {
    await page.click(`a[href$="#scenario=${id}"]`);
    await frame.waitForFunction((re) => new RegExp(re).test(document.getElementById('hwplan-status').textContent), expected.source,
                                { timeout: T.step });
    const w = await frame.evaluate(() => window.hwplanPage.workload());
    if (id !== 'small-team-three-jobs') assert.equal(w.name !== undefined, true);
  }

  // postMessage: the button asks for the warehouse robot; the planner answers with its summary.
  await page.click('#send-robot');
  await frame.waitForFunction(() => /^Plan: gemma-3-12b, edge/.test(document.getElementById('hwplan-status').textContent), null,
                              { timeout: T.step });
  assert.match(await frameStatus(frame), /^Plan: gemma-3-12b, edge: \d+ of \d+ candidates fit/);
  const robotHeadline = await frame.evaluate(() => window.hwplanPage.plan().plan.recommendation.headline);
  assert.match(robotHeadline, /Jetson AGX Thor/);
  await page.waitForFunction((h) => document.getElementById('planner-says').textContent === h, robotHeadline, { timeout: T.step });

  // hwplanPage.scenarios(): the catalog's worked examples, the same list the JavaScript API gives.
  const pageScenarios = await frame.evaluate(() => window.hwplanPage.scenarios().map((x) => `${x.id}: ${x.name}`));
  const apiScenarios = await page.evaluate(async () => JSON.parse((await createHwplan()).scenarios()).scenarios.map((x) => `${x.id}: ${x.name}`));
  assert.ok(pageScenarios.some((x) => x.startsWith('bank-70b-fp8: ')) && pageScenarios.some((x) => x.startsWith('warehouse-robot: ')));
  assert.deepEqual(pageScenarios, apiScenarios);

  // The JavaScript API on the page itself: 70e9 parameters at FP8 (1 byte each, lesson 001) = 70 GB.
  await page.waitForFunction(() => document.getElementById('answer').textContent.endsWith('GB'), null, { timeout: T.step });
  assert.equal(await page.textContent('#answer'), '70 GB');
  assert.deepEqual(problems, []);
});

test('course page: the wheel over the planner scrolls the course page where the planner cannot scroll', async () => {
  await page.setViewportSize({ width: 1300, height: 700 });
  const frame = page.frame({ name: 'planner' });
  await frame.waitForFunction(() => /^Plan: /.test(document.getElementById('hwplan-status')?.textContent || ''), null, { timeout: T.load });
  await page.evaluate(() => window.scrollTo(0, 0));
  // Over the planner's top bar (its title: nothing there scrolls), one notch down (100 px).
  const box = await page.locator('#planner').boundingBox();
  await page.mouse.move(box.x + 30, box.y + 12);
  await frame.waitForFunction(() => window.hwplanUi.idle === true, null, { timeout: T.step, polling: 25 }); // the planner has seen the pointer
  await page.mouse.wheel(0, 100);
  await page.waitForFunction(() => window.scrollY > 0, null, { timeout: T.step });
  assert.ok(await page.evaluate(() => window.scrollY) > 0, 'the course page scrolled');
  assert.deepEqual(problems, []);
});

// A course page's narrow column (or a phone showing the course page): the planner's frame 360 px wide. The planner
// stacks (small_screens.test.mjs has the window sizes): its top bar and the recommendation's headline inside the
// frame's first screen, and the form below, reached by scrolling the frame, where its tabs answer a click.
test('course page: in a 360 px frame the top bar and the headline show, and the form is reached by scrolling the frame', async () => {
  await page.setViewportSize({ width: 1300, height: 900 });
  await page.evaluate(() => { const f = document.getElementById('planner'); f.style.width = '360px'; f.style.height = '640px'; f.scrollIntoView(); });
  const frame = page.frame({ name: 'planner' });
  await frame.waitForFunction(() => document.getElementById('canvas').clientWidth === 360, null, { timeout: T.step });
  await frame.waitForFunction(() => window.hwplanUi.idle === true, null, { timeout: T.step, polling: 25 });
  await shot(page, 'course-page-360');
  const ui = await frame.evaluate(() => window.hwplanUi);
  const out = [];
  for (const name of ['scenario', 'undo', 'reset', 'export', 'theme', 'reco:headline']) {
    const r = ui[name];
    if (!r) out.push(`${name}: not drawn`);
    else if (r.x < 0 || r.x + r.w > 360.5 || r.y < 0 || r.y + r.h > 640.5) out.push(`${name}: ${r.x},${r.y} ${r.w}x${r.h} outside 360x640`);
  }
  assert.deepEqual(out, [], 'top bar and headline inside the frame\'s first screen');
  assert.ok(ui['reco:headline'].w >= 180, `the headline is ${ui['reco:headline'].w} px wide`);
  // Scroll the frame down to the form: its Your hardware tab shows, and a click opens it.
  const form = ui['workload:panel'];
  const y = await frame.evaluate((top) => { window.scrollTo(0, top); return window.scrollY; }, form.y);
  assert.ok(y > 0 && form.y - y < 640 - 60, `the frame scrolled (${y}) to the form (y ${form.y})`);
  const tab = ui.tab_custom, box = await page.locator('#planner').boundingBox();
  await page.mouse.move(box.x + 1 + tab.x + tab.w / 2, box.y + 1 + tab.y - y + tab.h / 2);
  await frame.waitForFunction(() => window.hwplanUi.idle === true, null, { timeout: T.step, polling: 25 });
  await page.mouse.down();
  await page.mouse.up();
  await frame.waitForFunction(() => window.hwplanUi.tab === 'hardware', null, { timeout: T.step });
  assert.deepEqual(problems, []);
});
