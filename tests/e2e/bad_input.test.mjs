// bad_input.test.mjs: the bad-input matrix through the page (issue 12): each class of bad workload handed
// to the page's import path (window.hwplanPage.loadWorkload, the path paste and drop take) shows the core's
// own path and reason, the same words as the CLI and the JavaScript API (tests/js/bad_input.test.mjs), and
// keeps the last valid plan on screen. Nothing aborts the module: after every row a good workload plans.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startAll, open, status, notice, waitStatus, root, shot, T } from './helpers.mjs';

let browser, server;
before(async () => ({ browser, server } = await startAll()));
after(async () => { await browser?.close(); await server?.close(); });

const serve = (extra) => `{"stage": "serve", "model": "Llama-3.1-8B", ${extra}}`;
const bad = (name) => fs.readFileSync(path.join(root, 'tests/data/bad', name), 'utf8');
const big = serve(`"name": "${'a'.repeat(1 << 20)}"`);
const tooLarge = 'number too large (beyond the range of a double, about 1.8e308)';

// [class, text, "path: reason" the notice must hold]
const rows = [
  ['malformed JSON', '{"stage": "serve",', 'malformed JSON: parse error at line 1, column 19: syntax error while parsing object key - unexpected end of input; expected string literal'],
  ['not an object', '42', 'expected a JSON object, got a number'],
  ['an array', bad('not-an-object.json'), 'expected a JSON object, got an array'],
  ['a wrong type', serve('"serve": {"context_tokens": "4k"}'), 'serve.context_tokens: expected a number, got a string'],
  ['a missing field', '{"model": "Llama-3.1-8B"}', 'stage: required field is missing'],
  ['an unknown key', serve('"serve": {"users": 4}'), 'serve.users: unknown key'],
  ['a negative value', serve('"serve": {"concurrent_users": -4}'), 'serve.concurrent_users: implausible value -4; expected 1 to 10000000'],
  ['zero', serve('"serve": {"concurrent_users": 0}'), 'serve.concurrent_users: implausible value 0; expected 1 to 10000000'],
  ['an absurdly large value', serve('"serve": {"concurrent_users": 1e300}'), 'serve.concurrent_users: implausible value 1e+300; expected 1 to 10000000'],
  ['a number beyond a double', bad('number-overflow.json'), `serve.concurrent_users: ${tooLarge}`],
  ['a 400-digit integer', bad('integer-400-digits.json'), `serve.context_tokens: ${tooLarge}`],
  ['a tiny (denormal) value', bad('kv-block-denormal.json'), 'assumptions.kv_block_tokens: must be a whole number of tokens, at least 1, got 4.94066e-324'],
  ['a fraction where a count is due', serve('"serve": {"concurrent_users": 1.5}'), 'serve.concurrent_users: must be a whole number, got 1.5'],
  ['NaN (not JSON)', serve('"serve": {"concurrent_users": NaN}'), 'malformed JSON: parse error'],
  ['a duplicate key', bad('duplicate-key.json'), 'stage: duplicate key (given twice in the same object)'],
  ['deep nesting', serve(`"x": ${'['.repeat(40)}${']'.repeat(40)}`), 'x' + '[0]'.repeat(31) + ': nested deeper than 32 levels'],
  ['an unknown model', `{"stage": "serve", "model": "${'x'.repeat(100000)}"}`, `model: unknown model "${'x'.repeat(40)}"... (100000 bytes)`],
  ['an unknown device', bad('nul-in-name.json'), 'hardware.devices[0]: unknown device "x\\u0000yz"'],
  ['a huge array', serve(`"hardware": {"devices": [${Array(300).fill('"h100-sxm"').join(',')}]}`),
   'hardware.devices: names 300 devices; at most 256 (leave it out to consider every device)'],
  ['an input over the size cap', big, `input is ${big.length} bytes; the limit is 1048576 bytes (1 MiB)`],
];

test('every class of bad input names its path and reason on the page, and the last plan stays', async () => {
  const { page, context, problems } = await open(browser, server.url + '#scenario=team-live-chat');
  await waitStatus(page, /^Plan: /);
  const before = await status(page);
  let last = '';
  for (const [what, text, said] of rows) { // each row's notice differs from the one before it
    await page.evaluate((t) => window.hwplanPage.loadWorkload(t), text);
    await page.waitForFunction((prev) => document.getElementById('hwplan-notice').textContent !== prev, last, { timeout: T.step });
    const shown = await notice(page);
    assert.ok(shown.includes(said), `${what}: the notice names "${said}"; it says "${shown}"`);
    assert.ok(shown.length < 320, `${what}: the notice is short (${shown.length} characters)`);
    assert.equal(await status(page), before, `${what}: the last valid plan stays`);
    last = shown;
  }
  await shot(page, 'bad-input-notice');
  // A dropped image is not a workload: the notice says that, not a JSON parser's complaint about its first byte.
  await page.evaluate(() => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    const dt = new DataTransfer();
    dt.items.add(new File([png], 'screenshot.png', { type: 'image/png' }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForFunction((prev) => document.getElementById('hwplan-notice').textContent !== prev, last, { timeout: T.step });
  assert.match(await notice(page), /^That is not a workload: it is not text \(a dropped image or other binary file\?\)/);
  assert.equal(await status(page), before, 'a dropped image: the last valid plan stays');
  // The module is alive and plans a good workload after all of them.
  await page.evaluate(() => window.hwplanPage.loadWorkload('{"stage": "serve", "model": "Llama-3.1-8B"}'));
  await waitStatus(page, /^Plan: Llama-3\.1-8B|^Plan: llama-3\.1-8b/i);
  assert.equal(await notice(page), '');
  assert.deepEqual(problems, []);
  await context.close();
});
