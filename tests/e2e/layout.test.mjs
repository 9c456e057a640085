// layout.test.mjs: no form label is cut off or covered (issue 10: "nothing clipped from 1024 px wide up"). At
// 1024x700, 1280x800 and 1920x1080, every labelled row of the Workload form (its Decision section open) and of the
// "Your hardware" tab keeps its label clear of its field, and label, field and the tab's hint lines end inside their
// panel. Rectangles come from window.hwplanUi (the app publishes NAME:label for a row's label, and WORKLOAD/CUSTOM:panel
// for the panel's content region); screenshots of both forms go to build/e2e/ for people to look at. The candidate
// table's numbers are right-aligned ("numbers aligned"): each column's first rows end at the same x. The page is loaded
// once for the file; each test starts from a link's state at its window size through reset() (helpers.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, open, reset, click, settled, shot, widget, T } from './helpers.mjs';

let browser, server, page, problems;
before(async () => {
  ({ browser, server } = await startAll());
  ({ page, problems } = await open(browser, server.url));
});
after(async () => { await browser?.close(); await server?.close(); });

const EPS = 0.5; // CSS pixels: rectangles are published rounded to 0.1 px

// Problems with the rows named `prefix*` inside the panel `panelName` ([] = none).
async function clipped(page, panelName, prefix) {
  const ui = await page.evaluate(() => window.hwplanUi);
  const panel = ui[panelName];
  assert.ok(panel && panel.w > 100, `${panelName} is published`);
  const right = panel.x + panel.w + EPS;
  const out = [];
  const labels = Object.keys(ui).filter((k) => k.endsWith(':label') && k.startsWith(prefix));
  for (const key of labels) {
    const name = key.slice(0, -':label'.length), label = ui[key], field = ui[name];
    if (!field) { out.push(`${name}: no field`); continue; }
    if (label.x + label.w > right) out.push(`${name}: label ends at ${label.x + label.w}, past the panel (${right})`);
    const sameRow = field.y < label.y + label.h - EPS;
    if (sameRow && label.x + label.w > field.x + EPS) out.push(`${name}: the field (x ${field.x}) covers the label (ends ${label.x + label.w})`);
    if (field.x + field.w > right) out.push(`${name}: field ends at ${field.x + field.w}, past the panel (${right})`);
  }
  // Every other widget of the panel (its hint lines, text areas, buttons), when its names have a prefix.
  for (const name of Object.keys(ui).filter((k) => prefix && k.startsWith(prefix) && !k.endsWith(':label') && !k.endsWith(':panel')))
    if (ui[name].x + ui[name].w > right) out.push(`${name}: ends at ${ui[name].x + ui[name].w}, past the panel (${right})`);
  return { out, labels: labels.length, names: labels.map((k) => k.slice(0, -':label'.length)) };
}

// The default workload (wasm/app/workload_doc.cpp, load_default) with decision inputs and a device the team owns: the
// link opens the form with its Decision section open, so its rows are measured too.
const decided = {
  name: 'Live chat (lesson 003)', stage: 'serve', model: 'mistral-7b', precision: 'bf16',
  serve: { context_tokens: 8192, prompt_tokens: 1500, output_tokens: 400, concurrent_users: 20, ttft_target_s: 2 },
  decision: { priority: 'latency', budget_usd_per_month: 50000 }, hardware: { owned: [{ device: 'l40s', count: 2 }] },
};

for (const [w, h] of [[1024, 700], [1280, 800], [1920, 1080]]) {
  test(`no label is cut off or covered in the forms at ${w}x${h}`, async () => {
    await reset(page, `#w=${encodeURIComponent(JSON.stringify(decided))}&view=devices`, { width: w, height: h });
    await widget(page, 'workload:panel');
    await settled(page);
    // The workload form: names are field names (concurrent_users, stage, ...), no common prefix.
    const form = await clipped(page, 'workload:panel', '');
    assert.ok(form.labels >= 12, `the form's rows publish their labels (${form.labels})`);
    for (const row of ['decision.priority', 'decision.site', 'framework', 'data_on_premises', 'budget_usd_per_month', 'power_budget_w', 'owned:0:device', 'owned:0:count'])
      assert.ok(form.names.includes(row), `the Decision section's row ${row} is measured`);
    assert.deepEqual(form.out, [], 'workload form');
    // The "Your hardware" tab: the device form and its hint lines.
    await click(page, 'tab_custom');
    await widget(page, 'custom:device-source');
    await settled(page);
    const custom = await clipped(page, 'custom:panel', 'custom:');
    assert.equal(custom.labels, 7, 'the device form has seven labelled rows');
    assert.deepEqual(custom.out, [], 'device form');
    await shot(page, `custom-form-${w}x${h}`);
    assert.deepEqual(problems, []);
  });
}

test('numbers in the candidate table are right-aligned, so figures line up down each column', async () => {
  await reset(page);
  await widget(page, 'num:4:memory');
  await settled(page);
  const ui = await page.evaluate(() => window.hwplanUi);
  let uneven = 0; // columns whose texts differ in width (where alignment shows)
  for (const col of ['cost', 'memory', 'figure0', 'figure1', 'figure2']) {
    const cells = [0, 1, 2, 3, 4].map((r) => ui[`num:${r}:${col}`]).filter(Boolean);
    if (col !== 'figure2') assert.equal(cells.length, 5, `five rows of ${col}`);
    const rights = cells.map((c) => c.x + c.w);
    assert.ok(Math.max(...rights) - Math.min(...rights) <= 1, `${col}: right edges ${rights.join(', ')}`);
    if (new Set(cells.map((c) => Math.round(c.w))).size > 1) uneven++;
  }
  assert.ok(uneven >= 1, 'some column has texts of different widths');
  assert.deepEqual(problems, []);
});
