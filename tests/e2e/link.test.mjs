// link.test.mjs: the whole state in the page address. A changed input, a selected device and an open view
// round-trip through the fragment into a new page that plans exactly the same; a damaged or hostile
// fragment shows a visible message and the default plan, and never echoes the input back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, open, reset, status, notice, workload, planOf, typeInto, click, shot, T } from './helpers.mjs';

// The page is loaded once for the file and each test starts from its link through reset() (helpers.mjs); the link
// opened "in a new page" is one.
let browser, server, page, problems;
before(async () => {
  ({ browser, server } = await startAll());
  ({ page, problems } = await open(browser, server.url));
});
after(async () => { await browser?.close(); await server?.close(); });

test('a link restores the same workload, device and view in a new page', async () => {
  await reset(page, '#scenario=bank-70b-fp8');
  await typeInto(page, 'concurrent_users', '1500');
  await page.waitForFunction(() => window.hwplanPage.workload().serve.concurrent_users === 1500, null, { timeout: T.step });
  await click(page, 'view:costs');
  await page.waitForFunction(() => window.hwplanUi.view === 'costs' && /view=costs/.test(location.hash), null, { timeout: T.step });
  const link = await page.evaluate(() => location.href);
  assert.match(link, /#w=.*&view=costs/, 'the edited workload and the view are in the link');
  const [w, plan] = [await workload(page), await planOf(page)];
  const again = await open(browser, link);
  await again.page.waitForFunction(() => window.hwplanUi.view === 'costs', null, { timeout: T.step });
  assert.deepEqual(await workload(again.page), w);
  assert.deepEqual(await planOf(again.page), plan);
  assert.equal(await notice(again.page), '');
  assert.deepEqual([...problems, ...again.problems], []);
  await again.context.close();
});

for (const [what, fragment, message] of [
  ['an unknown scenario', '#scenario=no-such-thing', /unknown scenario/],
  ['a hostile workload', '#w=' + encodeURIComponent('{"stage":"serve","model":"<img src=x onerror=alert(1)>' + 'A'.repeat(500) + '"}'), /problem at model/],
  ['broken JSON', '#w=%7B%22stage%22%3A', /not valid JSON/],
  ['a damaged escape', '#w=%E0%A4%A', /not valid JSON/],
  ['an overlong link', '#w=' + 'x'.repeat(20000), /too long/],
  ['an unknown device', '#device=nope', /^The link's device value \("nope"\) is not a device of this plan; the recommended device is shown\.$/],
]) {
  test(`${what} in the link: a visible message, the default plan, no echo`, async () => {
    await reset(page, fragment);
    assert.match(await status(page), /^Plan: mistral-7b, serve: /, 'the default plan');
    const said = await notice(page);
    assert.match(said, message);
    assert.ok(said.length < 200, `the message is short (${said.length} characters)`);
    assert.ok(!said.includes('<img') && !said.includes('AAAAAAAAAA'), 'the input is not echoed');
    if (what === 'a hostile workload') await shot(page, 'hostile-link');
    assert.deepEqual(problems, []);
  });
}
