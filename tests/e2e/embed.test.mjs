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
  await page.waitForFunction(() => /^Plan: gemma-3-12b, edge/.test(document.getElementById('planner-says').textContent), null,
                             { timeout: T.step });
  assert.match(await frameStatus(frame), /^Plan: gemma-3-12b, edge: \d+ of \d+ candidates fit/);

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
