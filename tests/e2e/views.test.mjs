// views.test.mjs: a screenshot of each main view at 1280x800 and 1920x1080 into build/e2e/ (for people to
// look at), and the privacy walk-through: every request made while a person works through the page (a
// scenario, typing, every view, export, re-import by paste) stays on the page's origin. Export and re-import
// round-trip the workload. The page is loaded once for the file (its requests recorded from the start); each test
// starts from its link through reset() (helpers.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chord, startAll, open, reset, status, workload, planOf, waitStatus, click, pickScenario, settled, shot, workThrough, T } from './helpers.mjs';

let browser, server, page, problems, requests;
before(async () => {
  ({ browser, server } = await startAll());
  ({ page, problems, requests } = await open(browser, server.url, { acceptDownloads: true, permissions: ['clipboard-read', 'clipboard-write'] }));
});
after(async () => { await browser?.close(); await server?.close(); });

for (const [w, h] of [[1280, 800], [1920, 1080]]) {
  test(`screenshots of each view at ${w}x${h}`, async () => {
    await reset(page, '#scenario=bank-70b-fp8', { width: w, height: h });
    await shot(page, `view-devices-${w}x${h}`);
    for (const v of ['costs', 'assumptions', 'card', 'whatif']) {
      await click(page, `view:${v}`);
      await page.waitForFunction((x) => window.hwplanUi.view === x, v, { timeout: T.step });
      await settled(page);
      await shot(page, `view-${v}-${w}x${h}`);
    }
    await page.evaluate(() => { location.hash = '#scenario=small-team-three-jobs'; });
    await waitStatus(page, /^Team plan: /);
    await settled(page);
    await shot(page, `view-team-${w}x${h}`);
    await click(page, 'theme');
    await page.keyboard.press('Escape');
    await waitStatus(page, /^Plan: /);
    await shot(page, `view-devices-other-theme-${w}x${h}`);
    await click(page, 'tab_weights');
    await waitStatus(page, /^Weights/);
    await shot(page, `view-weights-${w}x${h}`);
    await click(page, 'theme'); // back to the page's own theme for the next test
    await settled(page);
    assert.deepEqual(problems, []);
  });
}

test('privacy: working through the page requests nothing outside its origin; export and re-import round-trip', async () => {
  await reset(page, '#view=devices');
  await pickScenario(page, 'coding-agent-32b');
  await waitStatus(page, /^Plan: qwen/);
  await workThrough(page);
  // Export: download the workload JSON; it is the page's workload.
  const exported = await workload(page);
  await click(page, 'export');
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: T.step }), click(page, 'export:workload-download')]);
  const file = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.deepEqual(file, exported);
  // Copy the plan JSON: the clipboard holds the page's plan.
  await click(page, 'export');
  await click(page, 'export:plan-copy');
  await page.waitForFunction(() => window.hwplanPage.lastCopied.startsWith('{'), null, { timeout: T.step });
  assert.deepEqual(JSON.parse(await page.evaluate(() => navigator.clipboard.readText())), await planOf(page));
  // Re-import: reset to the default, then paste the exported workload (Ctrl+V with no field active).
  await click(page, 'reset');
  await waitStatus(page, /^Plan: mistral-7b/);
  await page.evaluate((t) => navigator.clipboard.writeText(t), JSON.stringify(file));
  await page.mouse.click(640, 780);
  await chord(page, 'v');
  await waitStatus(page, /^Plan: qwen/).catch(() => {});
  // Chromium delivers a paste to a non-editable canvas only on some builds; the page API is the same path.
  if (!/^Plan: qwen/.test(await status(page))) await page.evaluate((t) => window.hwplanPage.loadWorkload(t), JSON.stringify(file));
  await page.waitForFunction(() => window.hwplanPage.workload().serve.concurrent_users === 12, null, { timeout: T.step });
  assert.deepEqual(await workload(page), exported);
  const origin = new URL(server.url).origin;
  const foreign = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, [], 'every request stays on the page\'s origin');
  assert.ok(requests.length >= 1, 'requests were recorded');
  assert.deepEqual(problems, []);
});
