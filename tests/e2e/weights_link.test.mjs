// weights_link.test.mjs: the Weight check tab in the link and its help (issue 10: "every input ... and the open
// view round-trip through the URL fragment"; "help on every field (meaning, default, source)"). The weight
// check's count and precision and the open form tab travel as "&tab=weights&weights=70e9,fp8"; a new page opened
// on that link shows the same tab, inputs and status line; a hostile value is a short visible message naming the
// key while that input keeps its default. The fields' "(?)" help shows on hover (window.hwplanUi.help carries
// the row and its text). Screenshots of the tab at 1280x800 and 1024x700 go to build/e2e/. The page is loaded once
// for the file and each test starts from its link through reset() (helpers.mjs); a link opened "in a new page" is one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, watch, reset, status, notice, workload, planOf, typeInto, click, settled, widget, waitStatus, shot, T } from './helpers.mjs';

let browser, server, page, problems;
before(async () => {
  ({ browser, server } = await startAll());
  ({ page, problems } = await openAt(server.url));
});
after(async () => { await browser?.close(); await server?.close(); });

// helpers.mjs's open() waits for a "Plan:" status; a link to the Weight check opens on a "Weights:" line, so this
// file waits for either (or the weight check's error line) before the page has settled.
async function openAt(url, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  const watched = watch(page, new URL(url).origin, url);
  await page.goto(url);
  await page.waitForFunction(() => /^(Plan|Team plan|Weights|Error): /.test(document.getElementById('hwplan-status')?.textContent || ''),
                             null, { timeout: T.load });
  await settled(page);
  return { page, context, ...watched };
}

const tab = (page) => page.evaluate(() => window.hwplanUi.tab);
const waitTab = (page, name) => page.waitForFunction((t) => window.hwplanUi && window.hwplanUi.tab === t, name, { timeout: T.step });

// Picks a precision in the weight check's combo (opens it, waits for the entry to stay put, clicks it).
async function pickPrecision(page, name) {
  await click(page, 'precision');
  await widget(page, `precision:${name}`);
  await settled(page);
  await click(page, `precision:${name}`);
}

// Hovers a row's "(?)" and returns the help the page shows for it ({field, text}).
async function helpOf(page, name) {
  const r = await widget(page, `${name}:help`);
  await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
  await page.waitForFunction((n) => window.hwplanUi.help && window.hwplanUi.help.field === n, name, { timeout: T.step });
  return page.evaluate(() => window.hwplanUi.help);
}

test('a link restores the open Weight check tab, its inputs and its status line in a new page', async () => {
  await reset(page, '#scenario=bank-70b-fp8');
  assert.equal(await tab(page), 'workload');
  await click(page, 'tab_weights');
  // Lesson 001: 2 bytes per parameter at 16 bits, 7e9 x 2 = 14 GB (the tab's default).
  await waitStatus(page, /^Weights: 14 GB/);
  await typeInto(page, 'params', '70e9');
  await waitStatus(page, /^Weights: 140 GB/);
  await pickPrecision(page, 'fp8');
  // 70e9 parameters x 1 byte (fp8, 8 bits) = 70 GB.
  await waitStatus(page, /^Weights: 70 GB/);
  const said = await status(page);
  assert.equal(said, 'Weights: 70 GB = 70 billion parameters x 1 bytes (fp8)');
  await page.waitForFunction(() => /&tab=weights/.test(location.hash) && /&weights=70e9,fp8/.test(location.hash), null, { timeout: T.step });
  const link = await page.evaluate(() => location.href);
  assert.match(link, /#scenario=bank-70b-fp8&tab=weights&weights=70e9,fp8$/, 'the scenario, the tab and the inputs, compactly');
  const [w, plan] = [await workload(page), await planOf(page)];

  const again = await openAt(link);
  await waitTab(again.page, 'weights');
  await waitStatus(again.page, /^Weights: 70 GB/);
  assert.equal(await status(again.page), said, 'the same status line');
  assert.equal(await again.page.evaluate(() => location.href), link, 'the same link');
  assert.deepEqual(await workload(again.page), w, 'the same workload');
  assert.deepEqual(await planOf(again.page), plan, 'the same plan');
  assert.equal(await notice(again.page), '');
  await shot(again.page, 'weights-link-restored');
  assert.deepEqual([...problems, ...again.problems], []);
  await again.context.close();
});

test('a changed fragment (a course page\'s link) switches the tab and the weight check; a plain scenario link resets them', async () => {
  await reset(page);
  await page.evaluate(() => { location.hash = '#tab=weights&weights=70e9,int4'; });
  await waitTab(page, 'weights');
  // 70e9 parameters x 0.5 byte (int4, 4 bits) = 35 GB.
  await waitStatus(page, /^Weights: 35 GB/);
  assert.equal(await status(page), 'Weights: 35 GB = 70 billion parameters x 0.5 bytes (int4)');
  assert.equal(await notice(page), '');
  await page.evaluate(() => { location.hash = '#tab=hardware'; });
  await waitTab(page, 'hardware');
  await widget(page, 'custom:panel');
  await page.evaluate(() => { location.hash = '#scenario=bank-70b-fp8'; });
  await waitTab(page, 'workload');
  await waitStatus(page, /^Plan: /);
  await click(page, 'tab_weights');
  await waitStatus(page, /^Weights: 14 GB = 7 billion parameters x 2 bytes \(bf16\)$/); // back to the defaults
  assert.deepEqual(problems, []);
});

for (const [what, fragment, message, shows] of [
  ['a hostile weights value', '&tab=weights&weights=' + encodeURIComponent('<img src=x onerror=alert(1)>' + 'A'.repeat(500)),
    /^The link's weights value .* the weight check keeps 7e9 at bf16\.$/, /^Weights: 14 GB = 7 billion parameters x 2 bytes \(bf16\)$/],
  ['an invalid count', '&tab=weights&weights=-1', /weights value \("-1"\)/, /^Weights: 14 GB/],
  ['an unknown precision', '&tab=weights&weights=7e9,fp7', /weights value \("7e9,fp7"\)/, /^Weights: 14 GB/],
  ['a hostile tab value', '&tab=' + encodeURIComponent('<script>alert(1)</script>'), /^The link's tab value .* the Workload tab is open\.$/, /^Plan: /],
]) {
  test(`${what} in the link: a visible message naming the key, that input's default, the rest of the link kept`, async () => {
    await reset(page, '#scenario=bank-70b-fp8' + fragment);
    const said = await notice(page);
    assert.match(said, message);
    assert.ok(said.length < 200, `the message is short (${said.length} characters)`);
    assert.ok(!said.includes('<img') && !said.includes('<script') && !said.includes('AAAAAAAAAA'), 'the input is not echoed');
    await waitStatus(page, shows);
    assert.match(await page.evaluate(() => location.hash), /^#scenario=bank-70b-fp8/, 'the scenario of the link still opens');
    if (what === 'a hostile weights value') await shot(page, 'weights-hostile-link');
    assert.deepEqual(problems, []);
  });
}

test('the weight check\'s fields show their help on hover: meaning, default, source', async () => {
  await reset(page, '#tab=weights');
  await waitTab(page, 'weights');
  const params = await helpOf(page, 'params');
  assert.match(params.text, /parameter count/i, 'meaning');
  assert.match(params.text, /Default 7e9/, 'default');
  assert.match(params.text, /Lesson 001/, 'source: the lesson');
  assert.match(params.text, /2 x 7e9 = 14 GB/, "the lesson's worked figure");
  await shot(page, 'weights-help-params');
  const precision = await helpOf(page, 'precision');
  assert.match(precision.text, /How each weight is stored/, 'meaning');
  assert.match(precision.text, /fp32 4, bf16 2, fp16 2, fp8 1, int8 1, int4 0\.5, fp4 0\.5\./, "this check's bytes per parameter");
  assert.match(precision.text, /Default bf16/, 'default');
  // The catalog's formats with their sources (catalog/formats.json: int4 is 4 + (16 + 4)/128 = 4.15625 bits).
  assert.match(precision.text, /int4: 4\.15625 bits per weight/);
  assert.match(precision.text, /https:\/\/pytorch\.org\/docs\/stable\/tensors\.html \(read 2026-11-29\)/);
  assert.match(precision.text, /AutoAWQ .*\(read 2026-11-29\)/);
  await shot(page, 'weights-help-precision');
  // The same mechanism serves every form row: the Workload tab's fields publish their help the same way.
  await click(page, 'tab_workload');
  await waitTab(page, 'workload');
  await settled(page);
  const users = await helpOf(page, 'concurrent_users');
  assert.match(users.text, /Default 1/);
  assert.deepEqual(problems, []);
});

for (const [w, h] of [[1280, 800], [1024, 700]]) {
  test(`the Weight check tab at ${w}x${h}: labels clear of their fields, inside the panel (screenshot)`, async () => {
    await reset(page, '#tab=weights&weights=70e9,fp8', { width: w, height: h });
    await waitTab(page, 'weights');
    await waitStatus(page, /^Weights: 70 GB/);
    await settled(page);
    const ui = await page.evaluate(() => window.hwplanUi);
    const panel = ui['weights:panel'], right = panel.x + panel.w + 0.5;
    for (const name of ['params', 'precision']) {
      const label = ui[`${name}:label`], field = ui[name];
      assert.ok(label && field, `${name} publishes its label and field`);
      assert.ok(label.x + label.w <= field.x + 0.5 || field.y >= label.y + label.h - 0.5, `${name}: the field does not cover the label`);
      assert.ok(field.x + field.w <= right, `${name}: the field ends inside the panel`);
    }
    await shot(page, `weights-tab-${w}x${h}`);
    if (w === 1280) { // a size as people write it: "3B" is 3 billion (it used to read as 3 parameters)
      await typeInto(page, 'params', '3B');
      await waitStatus(page, /^Weights: 3 GB = 3 billion parameters x /);
    }
    await typeInto(page, 'params', 'seven');
    await waitStatus(page, /^Error: params: expected a number such as 7e9 or 7B$/);
    await shot(page, `weights-error-${w}x${h}`);
    assert.deepEqual(problems, []);
  });
}
