// scenarios.test.mjs: one answer everywhere. Every lesson scenario, opened in the page by its link
// (#scenario=ID) in one page that moves from scenario to scenario, must plan exactly what the CLI plans:
// the page's plan JSON equals `hwplan plan --scenario ID --format json` (and a team's Markdown equals
// `hwplan team --scenario ID --format markdown`). The page used to rebuild the workload from its form and
// drop the fields it did not hold (a speed target, a device list, usage), and to send a count as 2.0.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, open, status, cli, sortKeys, T } from './helpers.mjs';

let browser, server;
before(async () => ({ browser, server } = await startAll()));
after(async () => { await browser?.close(); await server?.close(); });

test('every scenario plans the same on the page as in the CLI', async () => {
  const scenarios = JSON.parse(cli('scenarios', '--format', 'json')).scenarios;
  assert.ok(scenarios.length >= 10, `the catalog's scenarios (${scenarios.length})`);
  const { page, context, problems } = await open(browser, server.url);
  for (const sc of scenarios) {
    await page.evaluate((id) => { window.location.hash = '#scenario=' + id; }, sc.id);
    if (sc.team) {
      await page.waitForFunction(() => /^Team plan: /.test(document.getElementById('hwplan-status').textContent), null, { timeout: T.step });
      const team = await page.evaluate(() => window.hwplanPage.team());
      assert.equal(team, cli('team', '--scenario', sc.id, '--format', 'markdown').replace(/\n$/, ''), `${sc.id}: the team plan`);
      continue;
    }
    // Wait until the page holds this scenario's workload and has planned it.
    await page.waitForFunction((w) => window.hwplanPage._workload && JSON.stringify(JSON.parse(window.hwplanPage._workload)) === w &&
                                      /^Plan: /.test(document.getElementById('hwplan-status').textContent),
                               JSON.stringify(sortKeys(sc.workload)), { timeout: T.step })
      .catch(async (e) => { throw new Error(`${sc.id}: the page did not plan it (status: ${await status(page)})`, { cause: e }); });
    const pagePlan = await page.evaluate(() => window.hwplanPage.plan());
    const cliPlan = JSON.parse(cli('plan', '--scenario', sc.id, '--format', 'json'));
    assert.deepEqual(pagePlan, cliPlan, `${sc.id}: page and CLI plan the same`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});
