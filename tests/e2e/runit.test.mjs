// runit.test.mjs: "Run it" on the recommendation card, as a person uses it on the bank scenario: open the section,
// copy the measure command (the clipboard then holds exactly what `hwplan run-it --scenario bank-70b-fp8` writes),
// paste a vLLM result block into the box (tests/data/measurements/run-it/vllm-bench-serve-pr33743.txt, quoted in
// vLLM's pull request 33743; see that folder's README), press Compare, and read the predicted-against-measured table:
// each measured cell shows the number vLLM printed for that predicted line. Then a paste that is no benchmark output:
// a named error on the card. The page is loaded once, with the clipboard permissions; the screenshot of the table is
// build/e2e/runit-bank.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startAll, open, reset, click, settled, widget, shot, cli, root, T } from './helpers.mjs';

let browser, server, page, problems;
before(async () => {
  ({ browser, server } = await startAll());
  ({ page, problems } = await open(browser, server.url, { permissions: ['clipboard-read', 'clipboard-write'] }));
});
after(async () => { await browser?.close(); await server?.close(); });

// Waits for `fn` in the page; a timeout names the step and what the app showed then.
const until = (what, fn, arg) => page.waitForFunction(fn, arg, { timeout: T.step }).catch(async (e) => {
  const seen = await page.evaluate(() => JSON.stringify({ active: window.hwplanUi.active, idle: window.hwplanUi.idle,
    pasted: window.hwplanUi.pasted, runit: Object.keys(window.hwplanUi).filter((k) => k.startsWith('runit:')) }));
  throw new Error(`${what}: ${e.message} (the app showed ${seen})`);
});

// Pastes `text` into the Run it box: the box opened by a click, then the browser's paste event with the text, the one
// path every paste takes into the page (wasm/app/bridge.cpp). Ctrl+V itself is input.test.mjs's subject; here it was
// the flaky part (twice in six runs the app never saw Ctrl go down after a Compare; the cause is not known yet).
async function pasteIntoBox(text) {
  await click(page, 'runit:paste');
  await until('the paste box opens', () => window.hwplanUi.active === 'runit:paste');
  const pasted = await page.evaluate(() => window.hwplanUi.pasted);
  await page.evaluate((t) => {
    const data = new DataTransfer();
    data.setData('text/plain', t);
    window.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
  await until('Ctrl+V types the benchmark output into the box', (n) => window.hwplanUi.pasted > n, pasted);
  await settled(page);
}

test('Run it on the bank scenario: copy the measure command, paste vLLM\'s output, read predicted against measured', async () => {
  await reset(page, '#scenario=bank-70b-fp8');
  const run = JSON.parse(cli('run-it', '--scenario', 'bank-70b-fp8', '--format', 'json')).run;
  await until('the card recommends the CLI\'s device', (d) => !!window.hwplanUi[`reco:form:${d}`], run.device);

  // Open the section; copy the measure command.
  await click(page, 'runit:open');
  await widget(page, 'runit:copy-measure:0');
  await click(page, 'runit:copy-measure:0');
  await until('the copy button copies the measure command', (t) => window.hwplanPage.lastCopied === t, run.measure[0].text);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), run.measure[0].text);

  // Paste the benchmark's output and compare.
  const text = fs.readFileSync(path.join(root, 'tests/data/measurements/run-it/vllm-bench-serve-pr33743.txt'), 'utf8');
  await pasteIntoBox(text);
  await click(page, 'runit:compare');
  await until('the table is drawn', () => Object.keys(window.hwplanUi).some((k) => k.startsWith('runit:measured:')));
  await settled(page);

  // Each predicted line shows what vLLM printed on the line of the same words (read here from the text itself).
  const printed = (metric) => {
    const line = text.split('\n').find((l) => l.startsWith(`${metric}:`));
    assert.ok(line, `the sample prints ${metric}`);
    return line.slice(metric.length + 1).trim();
  };
  const shown = await page.evaluate(() => Object.keys(window.hwplanUi).filter((k) => k.startsWith('runit:measured:')).sort());
  const expected = run.predicted.map((p, i) => `runit:measured:${i}:${printed(p.metric)}`).sort();
  assert.deepEqual(shown, expected);
  assert.deepEqual(expected.map((k) => k.split(':').pop()).sort(), ['2648.65', '268.31', '51.78']);
  // 268.31 tok/s at 51.78 ms a token is 14 sequences at once against 200 planned: the batch reached.
  assert.ok(await page.evaluate(() => !!window.hwplanUi['runit:points-at:batch_sequences']));
  const ui = await page.evaluate(() => window.hwplanUi);
  assert.ok(ui['runit:table'].y >= 0 && ui['runit:table'].y + ui['runit:table'].h <= 800, `the table is on screen: ${JSON.stringify(ui['runit:table'])}`);
  await shot(page, 'runit-bank');

  // A paste that is no benchmark output: a named error on the card, the table gone.
  await click(page, 'runit:clear');
  await until('Clear empties the box', () => !Object.keys(window.hwplanUi).some((k) => k.startsWith('runit:measured:')));
  await pasteIntoBox('the server felt fast, maybe 40 ms a token');
  await click(page, 'runit:compare');
  await until('a named error', () => !!window.hwplanUi['runit:error']);
  assert.deepEqual(problems, []);
});
