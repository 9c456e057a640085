// hwplan_js.test.mjs: the JavaScript API (Embind module, JSON in and out) under Node, on the built module.
// Same reference values as the native tests: lesson 001, a 7B model at 16 bits holds 14 GB of weights.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const createHwplan = require(path.join(root, 'build/wasm/wasm/hwplan_js.js'));
const hw = await createHwplan();
const call = (fn, request) => JSON.parse(hw[fn](typeof request === 'string' ? request : JSON.stringify(request)));

test('7B at bf16 holds 14 GB of weights (lesson 001)', () => {
  const out = call('weights', { params: 7e9, precision: 'bf16' });
  assert.equal(out.weights_bytes, 14e9);
  assert.equal(out.bytes_per_param, 2);
  assert.equal(out.precision, 'bf16');
});

test('70B at fp8 holds 70 GB (lesson 004, worked example 2)', () => {
  assert.equal(call('weights', { params: 70e9, precision: 'FP8' }).weights_bytes, 70e9);
});

test('bad input comes back as errors naming the field, never a throw', () => {
  const rows = [
    [{ params: -1, precision: 'bf16' }, 'params', 'must be a positive number of parameters, got -1'],
    [{ params: 0, precision: 'bf16' }, 'params', 'must be a positive number of parameters, got 0'],
    [{ params: 7e9, precision: 'fp7' }, 'precision', 'unknown precision "fp7"; expected one of fp32, bf16, fp16, fp8, int8, int4'],
    [{ precision: 'bf16' }, 'params', 'required field is missing'],
    [{ params: 'seven', precision: 'bf16' }, 'params', 'expected a number, got a string'],
  ];
  for (const [request, path_, message] of rows) {
    const out = call('weights', request);
    assert.deepEqual(out, { errors: [{ path: path_, message }] }, JSON.stringify(request));
  }
});

test('NaN cannot travel in JSON: it arrives as null and is named', () => {
  // JSON.stringify turns NaN into null; the module must say so rather than compute with it.
  assert.deepEqual(call('weights', { params: NaN, precision: 'bf16' }),
                   { errors: [{ path: 'params', message: 'expected a number, got null' }] });
});

test('malformed JSON is an error, and the module keeps working after it', () => {
  const out = call('weights', '{"params": 7e9,');
  assert.equal(out.errors.length, 1);
  assert.equal(out.errors[0].path, '');
  assert.match(out.errors[0].message, /^malformed JSON: parse error at line 1, column 16/);
  assert.equal(call('weights', { params: 1e9, precision: 'int8' }).weights_bytes, 1e9);
});

test('version names the program', () => {
  const v = JSON.parse(hw.version());
  assert.equal(v.name, 'hwplan');
  assert.match(v.version, /^\d+\.\d+\.\d+$/);
});
