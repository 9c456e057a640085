// bad_input.test.mjs: the bad-input matrix through the WebAssembly module under Node (issue 12). Every
// class of bad input returns {"errors": [{path, message}]} with the same path and message as the native
// reader (tests/bad_input_test.cpp); nothing throws, aborts the module or hangs. After every row the
// module must still plan a good workload (an abort would leave it dead).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const createHwplan = require(path.join(root, 'build/wasm/wasm/hwplan_js.js'));
const hw = await createHwplan();

const good = '{"stage": "serve", "model": "Llama-3.1-8B"}';
const serve = (extra) => `{"stage": "serve", "model": "Llama-3.1-8B", ${extra}}`;
const bad = (name) => fs.readFileSync(path.join(root, 'tests/data/bad', name), 'latin1');
const big = serve(`"name": "${'a'.repeat(1 << 20)}"`);
const tooLarge = 'number too large (beyond the range of a double, about 1.8e308)';

const precisionType = 'expected a format name or an object {weights, kv_cache, compute}, got a number';
const bench = fs.readFileSync(path.join(root, 'tests/data/measurements/llama-bench-readme.md'), 'utf8');
const tg = '| test | t/s |\n| tg 128 | 50 |';
const cal = (workload, more = {}) => JSON.stringify({ workload, device: 'rtx-a6000', text: tg, read_on: '2026-12-02', ...more });
const sw = (more) => JSON.stringify({ workload: { stage: 'serve', model: 'mistral-7b' }, device: 'h100-sxm', axis: 'concurrent_users', ...more });

// [fn, request, path, message]
const rows = [
  // the probe's findings: each aborted the module, hung it or was accepted silently
  ['plan', bad('number-overflow.json'), 'serve.concurrent_users', tooLarge],
  ['plan', bad('integer-400-digits.json'), 'serve.context_tokens', tooLarge],
  ['plan', bad('integer-2-pow-63.json'), 'hardware.count', 'implausible value 9.22337e+18; expected 1 to 1000000'],
  ['plan', bad('nul-in-name.json'), 'hardware.devices[0]', 'unknown device "x\\u0000yz"'],
  ['plan', bad('duplicate-key.json'), 'stage', 'duplicate key (given twice in the same object)'],
  ['plan', bad('kv-block-denormal.json'), 'assumptions.kv_block_tokens', 'must be a whole number of tokens, at least 1, got 4.94066e-324'],
  ['plan', bad('not-an-object.json'), '', 'expected a JSON object, got an array'],
  ['plan', serve('"usage": {"hours_per_month": 5e-324}'), 'usage.hours_per_month', 'implausible value 4.94066e-324; expected 0 or 0.001 to 744'],
  ['plan', serve('"serve": {"context_tokens": 100, "output_tokens": 200}'), 'serve.output_tokens', 'cannot exceed context_tokens (100)'],
  ['plan', serve('"serve": {"context_tokens": 1}'), 'serve.context_tokens', 'implausible value 1; expected 2 to 100000000'],
  ['plan', serve('"serve": {"concurrent_users": 1.5}'), 'serve.concurrent_users', 'must be a whole number, got 1.5'],
  ['plan', serve('"assumptions": {"prefill_chunk_tokens": 0}'), 'assumptions.prefill_chunk_tokens', 'must be a whole number of tokens, at least 1, got 0'],
  ['plan', `{"stage": "serve", "model": "${'x'.repeat(100000)}"}`, 'model', `unknown model "${'x'.repeat(40)}"... (100000 bytes)`],
  // a lone surrogate: Emscripten 3.1.6's stringToUTF8 pairs it with the next unit (here the closing quote)
  // into U+10022, 4 bytes, so the core sees an unterminated string; the answer is still an error, quoted
  ['plan', '"\ud800"', '', 'malformed JSON: parse error at line 1, column 6: syntax error while parsing value - invalid string: missing closing quote; last read: "\\"\u{10022}"'],
  // the classes of the matrix
  ['plan', '{"stage": "serve",', '', 'malformed JSON: parse error at line 1, column 19: syntax error while parsing object key - unexpected end of input; expected string literal'],
  ['plan', '42', '', 'expected a JSON object, got a number'],
  ['plan', serve('"serve": {"context_tokens": "4k"}'), 'serve.context_tokens', 'expected a number, got a string'],
  ['plan', '{"model": "Llama-3.1-8B"}', 'stage', 'required field is missing'],
  ['plan', serve('"serve": {"users": 4}'), 'serve.users', 'unknown key'],
  ['plan', serve('"serve": {"concurrent_users": -4}'), 'serve.concurrent_users', 'implausible value -4; expected 1 to 10000000'],
  ['plan', serve('"serve": {"concurrent_users": 0}'), 'serve.concurrent_users', 'implausible value 0; expected 1 to 10000000'],
  ['plan', serve('"serve": {"concurrent_users": 1e300}'), 'serve.concurrent_users', 'implausible value 1e+300; expected 1 to 10000000'],
  ['plan', '{"stage": "serve", "model": "Llama-9"}', 'model', 'unknown model "Llama-9"'],
  ['plan', serve(`"x": ${'['.repeat(40)}${']'.repeat(40)}`), 'x' + '[0]'.repeat(31), 'nested deeper than 32 levels'],
  ['plan', big, '', `input is ${big.length} bytes; the limit is 1048576 bytes (1 MiB)`],
  ['weights', '{"params": 1e400, "precision": "bf16"}', 'params', tooLarge],
  ['devices', '{"extension": {"devices": [{"id": 1e999}]}}', 'extension.devices[0].id', tooLarge],
  // the other text entry points (issue 22; the same rows as bad_input_test.cpp's EveryTextEntryPointAnswersWithErrors).
  // calibrate with a workload: a precision of the wrong type threw inside calibrate (a name did too, see below)
  ['calibrate', cal({ stage: 'serve', model: 'mistral-7b', precision: 16 }), 'workload.precision', precisionType],
  ['calibrate', cal({ stage: 'serve', model: 'mistral-7b', serve: { concurrent_users: 0 } }), 'workload.serve.concurrent_users', 'implausible value 0; expected 1 to 10000000'],
  ['calibrate', cal({ stage: 'serve' }), 'workload.model', 'required field is missing (the model the measurement was taken with)'],
  ['calibrate', cal('mistral-7b'), 'workload', 'expected an object, got a string'],
  ['calibrate', cal({ stage: 'serve', model: 'mistral-7b' }, { index: 3 }), 'index', 'the text has 1 measurement (index 0)'],
  ['calibrate', cal({ stage: 'serve', model: 'mistral-7b' }, { extension: [] }), 'extension', 'expected an object, got an array'],
  ['calibrate', cal({ stage: 'serve', model: 'mistral-7b' }, { device: 'h999' }), 'device', 'unknown device id "h999"'],
  ['calibrate', cal({ stage: 'serve', model: 'mistral-7b' }, { text: '' }), 'text', 'must not be empty'],
  // config import (importConfig, the page's "Add model")
  ['importConfig', '{"config": "{", "read_on": "2026-12-02"}', 'config',
   'malformed JSON: parse error at line 1, column 2: syntax error while parsing object key - unexpected end of input; expected string literal'],
  ['importConfig', '{"config": 42, "read_on": "2026-12-02"}', 'config', 'expected an object or a string, got a number'],
  ['importConfig', '{"config": {"model_type": "llama", "hidden_size": 1e400}, "read_on": "2026-12-02"}', 'config.hidden_size', tooLarge],
  // a user's extension (planWith = hwplan plan W --extend E)
  ['planWith', '{"workload": {"stage": "serve", "model": "mistral-7b"}, "extension": []}', 'extension', 'expected an object, got an array'],
  ['planWith', '{"workload": {"stage": "serve", "model": "mistral-7b"}, "extension": {"devices": [{"id": "my-gpu"}]}}', 'extension.devices[0].sources', 'required field is missing'],
  ['planWith', '{"workload": {"stage": "serve", "model": "mistral-7b"}, "extension": {"gpus": []}}', 'extension.gpus', 'unknown key (expected devices, models and calibrations)'],
  // sweep
  ['sweep', sw({ axis: 'users' }), 'axis', 'expected concurrent_users, context_tokens, batch_size or utilization'],
  ['sweep', sw({ points: [1, '2'] }), 'points[1]', 'expected a number, got a string'],
  ['sweep', sw({}).replace('"axis"', '"points": [1e400], "axis"'), 'points[0]', tooLarge],
  ['sweep', sw({ count: 0 }), 'count', 'expected a whole number of devices from 1 to 100000'],
  ['sweep', sw({ device: 'h999' }), 'device', 'unknown device "h999"'],
  ['sweep', sw({ workload: { stage: 'serve', model: 'mistral-7b', precision: 16 } }), 'workload.precision', precisionType],
  // not a string at all: Embind used to throw a BindingError
  ['plan', 42, '', 'expected the request as a JSON string, got number (use JSON.stringify)'],
  ['plan', { stage: 'serve' }, '', 'expected the request as a JSON string, got object (use JSON.stringify)'],
  ['weights', undefined, '', 'expected the request as a JSON string, got undefined (use JSON.stringify)'],
  ['models', null, '', 'expected the request as a JSON string, got null (use JSON.stringify)'],
];

for (const [fn, request, where, message] of rows) {
  const label = `${fn}(${typeof request === 'string' ? request.slice(0, 60) : String(request)}) names ${where || 'the document'}`;
  test(label, () => {
    let text;
    assert.doesNotThrow(() => { text = hw[fn](request); });
    const out = JSON.parse(text);
    assert.ok(Array.isArray(out.errors), text.slice(0, 300));
    assert.equal(out.errors[0].path, where);
    assert.equal(out.errors[0].message, message);
    assert.ok(JSON.parse(hw.plan(good)).plan, 'the module still plans after the bad input');
  });
}

// The page's report (issue 22): its default workload names its precision ("bf16"); calibrating it from llama-bench's
// own README table threw inside the module. Every sample against that workload is now a calibration.
test('calibrate: the page\'s default workload with llama-bench\'s README table is a calibration', () => {
  const workload = JSON.parse(fs.readFileSync(path.join(root, 'tests/data/page-default-workload.json'), 'utf8'));
  const out = JSON.parse(hw.calibrate(JSON.stringify({ workload, device: 'rtx-a6000', text: bench, read_on: '2026-12-02' })));
  assert.ok(out.calibration, JSON.stringify(out).slice(0, 300));
  assert.equal(out.calibration.precision, 'q4_0');
  assert.equal(out.calibration.model, 'mistral-7b');
  assert.ok(JSON.parse(hw.plan(good)).plan, 'the module still plans');
});
