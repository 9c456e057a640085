// errors.test.mjs: nothing a person pastes freezes the page (issue 22). The page's own default workload (its
// precision given as a name, "bf16") calibrated from llama-bench's own README table once threw inside the
// WebAssembly module: the page stopped drawing for good, with no message. And a model added with the
// "Add model" button was unknown to the plan until a reload (the plan side kept the frame's old catalog).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startAll, open, click, typeInto, chord, shot, status, root, T } from './helpers.mjs';

let browser, server;
before(async () => ({ browser, server } = await startAll()));
after(async () => { await browser?.close(); await server?.close(); });

const readme = fs.readFileSync(path.join(root, 'tests/data/measurements/llama-bench-readme.md'), 'utf8');
const until = (page, what, fn, arg) => page.waitForFunction(fn, arg, { timeout: T.step })
  .catch(async (e) => { throw new Error(`${what} (status: ${await status(page)}; notice: ${await page.evaluate(() => document.getElementById('hwplan-notice')?.textContent)}): ${e.message}`); });

test('the default workload calibrates from llama-bench\'s README table, and the page keeps drawing', async () => {
  const { page, context, problems } = await open(browser, server.url);
  await until(page, 'the default plan', () => /^Plan: /.test(document.getElementById('hwplan-status').textContent));
  await page.evaluate((t) => window.hwplanPage.calibrate(t, 'rtx-a6000'), readme);
  await until(page, 'a calibration on the RTX A6000', () => (window.hwplanPage.extension().calibrations || []).some((c) => c.device === 'rtx-a6000'));
  const [k] = (await page.evaluate(() => window.hwplanPage.extension())).calibrations;
  assert.equal(k.model, 'mistral-7b');
  assert.equal(k.precision, 'q4_0');
  assert.equal(k.assumption, 'decode_bandwidth_efficiency');
  // Still drawing: an edit re-plans.
  await typeInto(page, 'concurrent_users', '12');
  await until(page, 'the plan after an edit', () => window.hwplanPage.workload().serve.concurrent_users === 12 && /^Plan: /.test(document.getElementById('hwplan-status').textContent));
  assert.deepEqual(problems, []);
  await context.close();
});

test('a model added with the Add model button is planned at once', async () => {
  const { page, context, problems } = await open(browser, server.url, { permissions: ['clipboard-read', 'clipboard-write'] });
  await until(page, 'the default plan', () => /^Plan: /.test(document.getElementById('hwplan-status').textContent));
  await click(page, 'tab_custom');
  await click(page, 'custom:config-text');
  await until(page, 'the config field opens', () => window.hwplanUi.active === 'custom:config-text');
  const pasted = await page.evaluate(() => window.hwplanUi.pasted);
  await page.evaluate((t) => navigator.clipboard.writeText(t), fs.readFileSync(path.join(root, 'tests/data/hf_configs/llama-3.2-3b.json'), 'utf8'));
  await chord(page, 'v');
  await until(page, 'the config is pasted', (n) => window.hwplanUi.pasted > n, pasted);
  await click(page, 'custom:add-model');
  await until(page, 'the model is added and the workload names it', () => (window.hwplanPage.extension().models || []).length === 1 &&
                                                                       window.hwplanPage.workload().model === window.hwplanPage.extension().models[0].id);
  await until(page, 'the plan knows the model', () => /^Plan: /.test(document.getElementById('hwplan-status').textContent));
  assert.doesNotMatch(await status(page), /unknown model/);
  await shot(page, 'errors-add-model');
  assert.deepEqual(problems, []);
  await context.close();
});
