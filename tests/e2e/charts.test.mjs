// charts.test.mjs: the pictures and the team view, driven as a person would. The what-if view draws the core's
// sweep for the selected device; hovering a point shows its value, which must be the CLI's `hwplan sweep` at
// that point (window.hwplanUi.hover carries the hovered value). The team view adds, duplicates and removes
// cards, and its fleet cost is `hwplan team` on the downloaded team file. Screenshots go to build/e2e/. The page
// is loaded once for the file; each test starts from its link through reset() (helpers.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAll, open, reset, status, workload, waitStatus, click, shot, cli, widget, T } from './helpers.mjs';

let browser, server, page, problems;
before(async () => {
  ({ browser, server } = await startAll());
  ({ page, problems } = await open(browser, server.url, { acceptDownloads: true }));
});
after(async () => { await browser?.close(); await server?.close(); });

const view = async (page, v) => {
  await click(page, `view:${v}`);
  await page.waitForFunction((x) => window.hwplanUi.view === x, v, { timeout: T.step });
};

// Scrolls the view under the pointer (the wheel, as a person does) until the widget's top and middle are on
// screen (the top of the scrolling area is the views' tab row), or the view scrolls no further.
async function reveal(page, name) {
  const { width, height } = page.viewportSize();
  for (let i = 0; i < 20; i++) {
    const tabs = await widget(page, 'view:whatif');
    const r = await widget(page, name);
    const top = tabs.y + tabs.h + 8, bottom = height - 24;
    if (r.y >= top && r.y + Math.min(r.h, bottom - top) <= bottom) return r;
    const dy = r.y - (top + bottom) / 2; // toward the middle, in wheel steps (about 100 pixels each)
    await page.mouse.move(width * 0.75, height - 40);
    await page.mouse.wheel(0, Math.sign(dy) * Math.min(900, Math.max(100, Math.round(Math.abs(dy) / 100) * 100)));
    const moved = await page.waitForFunction(([n, y]) => window.hwplanUi[n] && window.hwplanUi[n].y !== y, [name, r.y], { timeout: 10000 })
      .then(() => true, () => false);
    if (!moved) break; // at the end of the view
  }
  return widget(page, name);
}

// Moves the pointer onto a published point and waits until the page reports a hovered value for it.
async function hover(page, name, chart) {
  const r = await reveal(page, name);
  await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2, { steps: 4 });
  await page.waitForFunction((c) => window.hwplanUi.hover && window.hwplanUi.hover.chart === c, chart, { timeout: T.step });
  return page.evaluate(() => window.hwplanUi.hover);
}

const tmpFile = (name, text) => {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hwplan-e2e-')), name);
  fs.writeFileSync(f, text);
  return f;
};

test('what-if view: hovering a point shows the CLI sweep value at that point, for each input', async () => {
  // Lesson 003's live chat on an H100 (a device the catalog both rents and sells: both cost curves and a
  // break-even), opened by a link that names the device and the view.
  const device = 'h100-sxm';
  await reset(page, `#scenario=team-live-chat&view=whatif&device=${device}`);
  await page.waitForFunction(() => window.hwplanUi.view === 'whatif' && !!window.hwplanUi['whatif:memory:0:0'], null, { timeout: T.step });
  assert.match(await page.evaluate(() => window.hwplanUi['whatif:device'] && document.getElementById('hwplan-status').textContent), /^Plan: /);
  const file = tmpFile('w.json', JSON.stringify(await workload(page)));
  const rows = [
    // [axis radio, chart, curve key]
    ['concurrent_users', 'memory', 'memory_bytes'],
    ['concurrent_users', 'ttft', 'ttft_s'],
    ['batch_size', 'throughput', 'throughput_tokens_per_s'],
    ['batch_size', 'per_user', 'decode_tokens_per_s_per_user'],
    ['utilization', 'cost', 'rent_cost'],
  ];
  let shown = '';
  for (const [axis, chart, key] of rows) {
    if (shown !== axis) {
      await reveal(page, `whatif:axis:${axis}`);
      await click(page, `whatif:axis:${axis}`);
      await page.waitForFunction((c) => Object.keys(window.hwplanUi).some((k) => k.startsWith(`whatif:${c}:0:`)), chart, { timeout: T.step });
      shown = axis;
    }
    const point = 3;
    const h = await hover(page, `whatif:${chart}:0:${point}`, chart);
    assert.equal(h.key, key);
    const ref = JSON.parse(cli('sweep', file, '--device', device, '--axis', axis, '--format', 'json')).sweep;
    const at = ref.points[point];
    assert.equal(h.x, at.x, `${chart}: the hovered x is the CLI's point ${point}`);
    assert.equal(h.value, at.figures[key].value, `${chart} at ${at.x}: the page's value is the CLI's`);
    assert.equal(h.low, at.figures[key].low);
    assert.equal(h.high, at.figures[key].high);
    assert.ok(h.why.length > 0, 'the terms that make up the value are shown');
    if (chart === 'ttft') await shot(page, 'whatif-hover-1280x800');
  }
  // The buy-or-rent break-even is drawn where the core puts it.
  const ref = JSON.parse(cli('sweep', file, '--device', device, '--axis', 'utilization', '--format', 'json')).sweep;
  assert.ok(ref.breakeven_utilization > 0 && ref.breakeven_utilization < 1);
  await shot(page, 'whatif-utilization-1280x800');
  // The roofline of the selected device, with the workload's phases, is reachable in this view.
  await reveal(page, 'whatif:axis:concurrent_users');
  await click(page, 'whatif:axis:concurrent_users');
  await page.waitForFunction(() => !!window.hwplanUi['whatif:memory:0:0'], null, { timeout: T.step });
  await reveal(page, 'whatif:roofline');
  await shot(page, 'whatif-roofline-1280x800');
  assert.deepEqual(problems, []);
});

test('team view: add, duplicate and remove cards; the fleet cost is `hwplan team` on the same cards', async () => {
  await reset(page, '#scenario=small-team-three-jobs');
  await waitStatus(page, /^Team plan: /);
  const cardCount = () => page.evaluate(() => Object.keys(window.hwplanUi).filter((k) => /^team:card:\d+$/.test(k)).length);
  await page.waitForFunction(() => !!window.hwplanUi['team:card:2'], null, { timeout: T.step });
  assert.equal(await cardCount(), 3);
  // The team file the page downloads, planned by the CLI, is the page's team plan (the Markdown the page
  // publishes, fleet cost included), and the fleet cost shown is the CLI's.
  const fleet = async () => {
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: T.step }), click(page, 'team:download')]);
    const text = fs.readFileSync(await download.path(), 'utf8');
    const md = cli('team', tmpFile('team.json', text)).trim();
    await page.waitForFunction((m) => window.hwplanPage.team().trim() === m, md, { timeout: T.step }).catch(() => {});
    assert.equal((await page.evaluate(() => window.hwplanPage.team())).trim(), md);
    const cost = /Fleet cost: (\$[0-9.,]+) a month/.exec(md)[1];
    await waitStatus(page, new RegExp('Fleet cost: \\$' + cost.slice(1).replace(/[.]/g, '\\.') + ' a month'));
    return { cards: JSON.parse(text).cards.length, cost };
  };
  let f = await fleet();
  assert.equal(f.cards, 3);
  // Duplicate the chat card: four cards, and the fleet grows by the chat card's monthly cost.
  await click(page, 'team:duplicate:0');
  await page.waitForFunction(() => !!window.hwplanUi['team:card:3'], null, { timeout: T.step });
  const three = f.cost;
  f = await fleet();
  assert.equal(f.cards, 4);
  assert.notEqual(f.cost, three, 'a fourth card costs something');
  await shot(page, 'view-team-edited-1280x800');
  // Remove the copy and the nightly embeddings: two cards.
  await click(page, 'team:remove:1');
  await page.waitForFunction(() => !window.hwplanUi['team:card:3'], null, { timeout: T.step });
  await click(page, 'team:remove:1');
  await page.waitForFunction(() => !window.hwplanUi['team:card:2'], null, { timeout: T.step });
  f = await fleet();
  assert.equal(f.cards, 2);
  // Open the second card in the form, then add the form's workload as a third card.
  await click(page, 'team:open:1');
  await page.waitForFunction(() => window.hwplanPage.workload().stage === 'finetune', null, { timeout: T.step });
  const before = await workload(page);
  await click(page, 'team:add');
  await page.waitForFunction(() => !!window.hwplanUi['team:card:2'], null, { timeout: T.step });
  f = await fleet();
  assert.equal(f.cards, 3);
  assert.deepEqual(before, await workload(page), 'adding a card leaves the form as it was');
  // The edited team travels in the link: a new page opens the same three cards.
  const link = await page.evaluate(() => location.href);
  assert.match(link, /#team=/);
  const again = await open(browser, link);
  await waitStatus(again.page, /^Team plan: /);
  assert.equal(/Fleet cost: (\$[0-9.,]+) a month/.exec(await status(again.page))[1], f.cost);
  assert.deepEqual(again.problems, []);
  await again.context.close();
  assert.deepEqual(problems, []);
});

test('team view: a team starts from the form\'s workload', async () => {
  await reset(page);
  await view(page, 'team');
  await click(page, 'team:start');
  await waitStatus(page, /^Team plan: /);
  await page.waitForFunction(() => !!window.hwplanUi['team:card:0'] && !window.hwplanUi['team:card:1'], null, { timeout: T.step });
  await click(page, 'team:duplicate:0');
  await page.waitForFunction(() => !!window.hwplanUi['team:card:1'], null, { timeout: T.step });
  assert.deepEqual(problems, []);
});

for (const [w, h] of [[1280, 800], [1920, 1080], [1024, 700]]) {
  test(`screenshots of the what-if, costs and team views at ${w}x${h}`, async () => {
    await reset(page, '#scenario=bank-70b-fp8&view=whatif', { width: w, height: h });
    await page.waitForFunction(() => window.hwplanUi.view === 'whatif' && !!window.hwplanUi['whatif:memory:0:0'], null, { timeout: T.step });
    await shot(page, `view-whatif-${w}x${h}`);
    await view(page, 'costs');
    await shot(page, `view-costs-bars-${w}x${h}`);
    await view(page, 'devices');
    await shot(page, `view-devices-${w}x${h}-charts`);
    await page.evaluate(() => { location.hash = '#scenario=small-team-three-jobs'; });
    await waitStatus(page, /^Team plan: /);
    await page.waitForFunction(() => !!window.hwplanUi['team:card:2'], null, { timeout: T.step });
    await shot(page, `view-team-cards-${w}x${h}`);
    assert.deepEqual(problems, []);
  });
}

test('export: the team plan downloads as Markdown, the same as `hwplan team` on its cards', async () => {
  await reset(page, '#scenario=small-team-three-jobs');
  await waitStatus(page, /^Team plan: /);
  await page.waitForFunction(() => !!window.hwplanUi['team:card:2'], null, { timeout: T.step });
  const [teamFile] = await Promise.all([page.waitForEvent('download', { timeout: T.step }), click(page, 'team:download')]);
  const md = cli('team', tmpFile('team-export.json', fs.readFileSync(await teamFile.path(), 'utf8'))).trim();
  await click(page, 'export');
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: T.step }), click(page, 'export:team-download')]);
  assert.equal(download.suggestedFilename(), 'small-team-three-jobs.team.md');
  assert.equal(fs.readFileSync(await download.path(), 'utf8').trim(), md);
  assert.deepEqual(problems, []);
});
