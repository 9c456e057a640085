// undo.test.mjs: Undo covers every change a person makes (issue 10, "Undo for the last changes"), team edits
// included: duplicating, removing and adding cards, opening a card in the form, saving the form into a card and
// starting a team each go back one step with Undo, and the team comes back exactly (the same team plan the page
// published before the edit, planned again by the core; the scenario's link again).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, open, reset, status, workload, waitStatus, click, typeInto, widget, settled, T } from './helpers.mjs';

let browser, server, page, problems;
before(async () => {
  ({ browser, server } = await startAll());
  ({ page, problems } = await open(browser, server.url));
});
after(async () => { await browser?.close(); await server?.close(); });

const team = (page) => page.evaluate(() => window.hwplanPage.team());
const cards = (page) => page.evaluate(() => Object.keys(window.hwplanUi).filter((k) => /^team:card:\d+$/.test(k)).length);
const waitCards = (page, n) =>
  page.waitForFunction((k) => Object.keys(window.hwplanUi).filter((x) => /^team:card:\d+$/.test(x)).length === k, n, { timeout: T.step });

// Clicks Undo and waits until the page publishes the team plan `md` with `n` cards.
async function undoTo(page, md, n) {
  await click(page, 'undo');
  await waitCards(page, n);
  await page.waitForFunction((m) => window.hwplanPage.team() === m, md, { timeout: T.step });
}

test('team edits are undone one step at a time, the team exactly as it was', async () => {
  await reset(page, '#scenario=small-team-three-jobs');
  await waitStatus(page, /^Team plan: /);
  await waitCards(page, 3);
  const original = await team(page);
  assert.match(original, /Fleet cost: /);
  const link = await page.evaluate(() => location.hash);
  assert.match(link, /^#scenario=small-team-three-jobs(&|$)/);

  // Duplicate, then Undo: three cards, the scenario's team plan and link.
  await click(page, 'team:duplicate:0');
  await waitCards(page, 4);
  await page.waitForFunction((m) => window.hwplanPage.team() !== m, original, { timeout: T.step });
  await undoTo(page, original, 3);
  assert.equal(await page.evaluate(() => location.hash), link, 'the unedited team is the scenario again');
  assert.equal(await page.evaluate(() => window.hwplanUi.view), 'team', 'Undo stays in the team view');

  // Remove, then Undo.
  await click(page, 'team:remove:1');
  await waitCards(page, 2);
  await undoTo(page, original, 3);

  // Open the second card in the form (the form changes), then Undo: the form's first card again.
  const first = await workload(page);
  await click(page, 'team:open:1');
  await page.waitForFunction((w) => JSON.stringify(window.hwplanPage.workload()) !== w, JSON.stringify(first), { timeout: T.step });
  await click(page, 'undo');
  await page.waitForFunction((w) => JSON.stringify(window.hwplanPage.workload()) === w, JSON.stringify(first), { timeout: T.step });
  assert.equal(await cards(page), 3);

  // Add the form's workload as a card, then Undo.
  await click(page, 'team:add');
  await waitCards(page, 4);
  await undoTo(page, original, 3);

  // Open the first card, change it in the form, save it into the card, then Undo: the team as before the save,
  // and the form still holds the change.
  await click(page, 'team:open:0');
  await widget(page, 'concurrent_users');
  await typeInto(page, 'concurrent_users', '77');
  await page.waitForFunction(() => window.hwplanPage.workload().serve.concurrent_users === 77, null, { timeout: T.step });
  await widget(page, 'team:save:0');
  await settled(page);
  await click(page, 'team:save:0');
  // Saved: the card is the form now, so the save button goes.
  await page.waitForFunction(() => !window.hwplanUi['team:save:0'], null, { timeout: T.step });
  await undoTo(page, original, 3);
  await widget(page, 'team:save:0'); // the card is as before the save again, and the form still differs from it
  assert.equal((await workload(page)).serve.concurrent_users, 77, 'Undo of the save keeps the form as it was just before it');
  assert.match(await status(page), /^Team plan: /);
  assert.deepEqual(problems, []);
});

test('starting a team is undone: the view offers to start one again', async () => {
  await reset(page);
  await click(page, 'view:team');
  await page.waitForFunction(() => window.hwplanUi.view === 'team', null, { timeout: T.step });
  await click(page, 'team:start');
  await waitStatus(page, /^Team plan: /);
  await waitCards(page, 1);
  await click(page, 'undo');
  await page.waitForFunction(() => !!window.hwplanUi['team:start'] && !window.hwplanUi['team:card:0'], null, { timeout: T.step });
  assert.equal(await team(page), '', 'no team plan is published');
  assert.doesNotMatch(await page.evaluate(() => location.hash), /team=/, 'the link no longer carries a team');
  assert.deepEqual(problems, []);
});
