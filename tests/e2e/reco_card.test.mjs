// reco_card.test.mjs: the recommendation card at the top of the plan side (issue 10: "a clear recommendation
// card at the top (the decision in one sentence, then reasons, lever, runner-up, and the costs in a tidy
// breakdown)"). In the Team view the card is the team's answer (the fleet's monthly cost and each job's
// decision in a line), not the form's workload; in the Devices view it is the form's recommendation, whose
// headline and cost terms are the CLI's for the same workload. Screenshots of both views at 1280x800,
// 1024x700 and 1920x1080 go to build/e2e/reco-*.png, and nothing of the card is cut at the right edge.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAll, open, reset, workload, planOf, waitStatus, click, shot, cli, settled, T } from './helpers.mjs';

let browser, server, page, problems;
before(async () => {
  ({ browser, server } = await startAll());
  ({ page, problems } = await open(browser, server.url));
});
after(async () => { await browser?.close(); await server?.close(); });

const tmpFile = (name, text) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hwplan-reco-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

// The published widget names (window.hwplanUi) that start with `prefix`.
const keys = (page, prefix) => page.evaluate((p) => Object.keys(window.hwplanUi || {}).filter((k) => k.startsWith(p)), prefix);

// The fleet's monthly cost as `hwplan team` writes it ("**Fleet cost: $1234 a month**"): the reference.
function cliFleetCost(id) {
  const md = cli('team', '--scenario', id, '--format', 'markdown');
  const m = /\*\*Fleet cost: \$([0-9.]+) a month\*\*/.exec(md);
  assert.ok(m, `hwplan team --scenario ${id} names the fleet cost`);
  return m[1];
}

test('team view: the card at the top is the team\'s answer (fleet cost, a line per job); the devices view shows the form\'s', async () => {
  await reset(page, '#scenario=small-team-three-jobs');
  await waitStatus(page, /^Team plan: /);
  // The card names the team and its fleet cost, the same as the CLI's team plan.
  await page.waitForFunction(() => !!window.hwplanUi['reco:team'], null, { timeout: T.step });
  const fleet = cliFleetCost('small-team-three-jobs');
  assert.deepEqual(await keys(page, 'reco:fleet:'), [`reco:fleet:${fleet}`]);
  // Each of the three jobs' decisions has its line; the form's recommendation is not what the card shows.
  assert.deepEqual((await keys(page, 'reco:job:')).sort(), ['reco:job:0', 'reco:job:1', 'reco:job:2']);
  assert.deepEqual(await keys(page, 'reco:form:'), []);
  // The card sits above the views' tabs.
  const ui = await page.evaluate(() => window.hwplanUi);
  assert.ok(ui['reco:team'].y < ui['view:devices'].y, 'the team card is at the top');

  // The devices view: the card is the form's recommendation again, the device the CLI recommends for the
  // form's workload, with the CLI's headline and cost terms.
  await settled(page);
  await click(page, 'view:devices');
  await page.waitForFunction(() => window.hwplanUi.view === 'devices' && !window.hwplanUi['reco:team'], null, { timeout: T.step });
  const expected = JSON.parse(cli('plan', tmpFile('form.json', JSON.stringify(await workload(page))), '--format', 'json')).plan;
  const device = expected.recommendation.found ? expected.recommendation.option.device : 'none';
  await page.waitForFunction((d) => !!window.hwplanUi[`reco:form:${d.replace(/[^A-Za-z0-9._-]/g, '')}`], device, { timeout: T.step });
  assert.deepEqual(await keys(page, 'reco:fleet:'), []);
  const shown = (await planOf(page)).plan.recommendation;
  assert.equal(shown.headline, expected.recommendation.headline);
  assert.deepEqual(shown.option?.cost_terms, expected.recommendation.option?.cost_terms);
  assert.deepEqual(problems, []);
});

for (const [w, h] of [[1280, 800], [1024, 700], [1920, 1080]]) {
  test(`screenshots of the card in the devices and team views at ${w}x${h}; nothing of it is cut`, async () => {
    await reset(page, '#scenario=bank-70b-fp8', { width: w, height: h });
    await page.waitForFunction(() => !!window.hwplanUi['reco:costs'], null, { timeout: T.step });
    await settled(page);
    const ui = await page.evaluate(() => window.hwplanUi);
    for (const k of ['reco:headline', 'reco:costs']) {
      assert.ok(ui[k].x >= 0 && ui[k].x + ui[k].w <= w + 0.5, `${k} inside the window: ${JSON.stringify(ui[k])}`);
      assert.ok(ui[k].y >= 0 && ui[k].y + ui[k].h <= h, `${k} on screen: ${JSON.stringify(ui[k])}`);
    }
    await shot(page, `reco-devices-${w}x${h}`);
    await page.evaluate(() => { location.hash = '#scenario=small-team-three-jobs'; });
    await waitStatus(page, /^Team plan: /);
    await page.waitForFunction(() => !!window.hwplanUi['reco:team'] && !!window.hwplanUi['reco:job:2'], null, { timeout: T.step });
    await settled(page);
    const team = await page.evaluate(() => window.hwplanUi);
    for (const k of ['reco:team', 'reco:job:0']) assert.ok(team[k].x + team[k].w <= w + 0.5, `${k} inside the window`);
    await shot(page, `reco-team-${w}x${h}`);
    assert.deepEqual(problems, []);
  });
}
