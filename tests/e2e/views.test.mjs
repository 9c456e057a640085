// views.test.mjs: a screenshot of each main view at 1280x800 and 1920x1080 into build/e2e/ (for people to
// look at), the Devices table (what it shows in view at 1280 px, what stays as it scrolls sideways, and its rows:
// the best-ranked option of each device, eliminated ones with their reason), and the privacy walk-through: every request made while a person works through the page (a
// scenario, typing, every view, export, re-import by paste) stays on the page's origin. Export and re-import
// round-trip the workload. The page is loaded once for the file (its requests recorded from the start); each test
// starts from its link through reset() (helpers.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chord, startAll, open, reset, status, workload, planOf, waitStatus, click, pickScenario, settled, shot, workThrough, widget, T } from './helpers.mjs';

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

// The Devices table (issue 22, "A Devices table that says what matters"): at 1280x800 rank, device, fleet, the unit
// cost the ranking uses and the stage's headline figures are in view; rank and device stay put while the table
// scrolls sideways. Each row is its device's best-ranked option (plan.candidates[i].option): its rank or "out" with
// the reason feasibility eliminated it, and its fleet with replicas as the headline says it. The rows' words are read
// from the page's text mirror, which holds the cells the canvas draws (wasm/app/plan_words.cpp builds both).
test('devices table: rank and device frozen, fleet, unit cost and headline figures in view at 1280 px; eliminated rows say why', async () => {
  await reset(page, '#scenario=bank-70b-fp8');
  const { plan } = await planOf(page);
  const table = await widget(page, 'table:candidates');
  const ui = await page.evaluate(() => window.hwplanUi);
  const headers = Object.keys(ui).filter((k) => k.startsWith('header:')).sort((a, b) => ui[a].x - ui[b].x);
  const unit = `$ ${plan.options[0].unit.replace(/^usd_/, '').replaceAll('_', ' ')}`;
  assert.deepEqual(headers.slice(0, 7).map((k) => k.slice(7)),
                   ['rank', 'device', 'fleet', unit, 'time to first token', 'tokens/s per user', 'throughput (tokens/s)']);
  for (const k of headers.slice(0, 7)) assert.ok(ui[k].x + ui[k].w <= table.x + table.w + 0.5, `${k} in view: ${JSON.stringify(ui[k])} in ${JSON.stringify(table)}`);
  // Scrolled sideways: rank and device stay where they were; the columns after them move left.
  const before = ui;
  await page.mouse.move(table.x + table.w / 2, table.y + 60);
  await settled(page);
  await page.mouse.wheel(600, 0);
  await page.waitForFunction((x) => window.hwplanUi['header:fleet'].x < x, before['header:fleet'].x, { timeout: T.step });
  await settled(page);
  const after = await page.evaluate(() => window.hwplanUi);
  const edges = (u, k) => [Math.round(u[k].x + u[k].w), Math.round(u[k].y)]; // a frozen cell's left padding may change
  assert.deepEqual(edges(after, 'header:rank'), edges(before, 'header:rank'), 'rank stays');
  assert.deepEqual(edges(after, 'header:device'), edges(before, 'header:device'), 'device stays');
  await shot(page, 'devices-table-scrolled-1280x800');
  await page.mouse.wheel(-600, 0); // back, for the tests after this one
  await page.waitForFunction((x) => window.hwplanUi['header:fleet'].x === x, before['header:fleet'].x, { timeout: T.step });
  // The rows: the plan's order, each its device's best-ranked option.
  const rows = await page.evaluate(() => [...document.querySelectorAll('#hwplan-mirror table[aria-label="Devices"] tbody tr')]
    .map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.equal(rows.length, plan.candidates.length);
  let out = 0;
  rows.forEach((r, i) => {
    const c = plan.candidates[i], o = plan.options[c.option];
    assert.equal(r[1], c.device_name);
    assert.ok(r[2].endsWith(o.fleet), `fleet: ${r[2]} (${o.name})`);
    if (o.feasible) return assert.equal(r[0], String(i + 1));
    out++;
    assert.equal(r[0], 'out', `${c.device} is not ranked`);
    assert.equal(r.at(-1), `eliminated: ${o.reasons[0]}`);
  });
  assert.ok(out > 0, 'the bank eliminates some devices');
  // The first row is the recommendation: the fleet and the unit cost the headline gives.
  const rec = plan.recommendation;
  assert.ok(rec.headline.includes(rec.option.fleet.slice(rec.option.fleet.indexOf(' ('))), `${rec.option.fleet} in ${rec.headline}`);
  assert.ok(rec.headline.includes(`: ${rows[0][3]} `), `the unit cost ${rows[0][3]} in ${rec.headline}`);
  assert.deepEqual(problems, []);
});

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
