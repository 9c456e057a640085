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
    [{ params: 7e9, precision: 'fp7' }, 'precision', 'unknown precision "fp7"; expected one of fp32, bf16, fp16, fp8, int8, int4, fp4'],
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

test('the embedded catalog loads without issues and lists devices in SI units', () => {
  assert.deepEqual(JSON.parse(hw.catalogIssues()), { errors: [] });
  const { devices } = call('devices', {});
  const h100 = devices.find((d) => d.id === 'h100-sxm');
  assert.equal(h100.memory_bytes, 80e9);
  assert.equal(h100.bandwidth_bytes_per_s, 3350e9);
  assert.ok(Math.abs(h100.bf16_flop_per_s - 989.4e12) < 1e9, 'dense BF16, not the sparse 1979');
  assert.equal(h100.fp4_flop_per_s, null, 'Hopper has no FP4 path');
  assert.ok(devices.length >= 39);
});

test('models carry derived parameter counts', () => {
  const { models } = call('models', {});
  const llama = models.find((m) => m.id === 'llama-3.1-8b');
  assert.equal(llama.derived_params, 8030261248);
  assert.equal(llama.architecture.kv_heads, 8);
});

test('a user extension goes through the validator: good entries list, bad ones are named', async () => {
  const fs = await import('node:fs');
  const ext = JSON.parse(fs.readFileSync(path.join(root, 'tests/data/extension-my-gpu.json'), 'utf8'));
  const { devices } = call('devices', { extension: ext });
  assert.equal(devices.find((d) => d.id === 'my-lab-gpu').memory_bytes, 48e9);
  const bad = JSON.parse(fs.readFileSync(path.join(root, 'tests/data/extension-bad.json'), 'utf8'));
  assert.deepEqual(call('devices', { extension: bad }), { errors: [{
    file: 'extension', path: 'extension.devices[0].memory.bandwidth_GBps', message: 'implausible value -1; expected 1 to 100000' }] });
  assert.deepEqual(call('devices', { extnsion: {} }), { errors: [{ path: 'extnsion', message: 'unknown field' }] });
});

test('every lesson workload plans through the JavaScript API, with the same numbers as the core', async () => {
  const fs = await import('node:fs');
  const dir = path.join(root, 'tests/data/workloads');
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const out = JSON.parse(hw.plan(fs.readFileSync(path.join(dir, f), 'utf8')));
    assert.ok(out.plan, `${f}: ${JSON.stringify(out.errors)}`);
    assert.ok(out.plan.candidates.length > 0, f);
    for (const c of out.plan.candidates)
      for (const k of ['weights_bytes', 'kv_cache_bytes', 'activations_bytes', 'gradients_bytes', 'optimizer_bytes', 'overhead_bytes', 'total_bytes', 'capacity_bytes'])
        assert.ok(Number.isFinite(c.memory[k]), `${f} ${c.device} ${k}`);
  }
  // Lesson 001: 7B at 16 bits = 14 GB of weights on a single device.
  const seven = JSON.parse(hw.plan(fs.readFileSync(path.join(dir, '7b-weights-bf16.json'), 'utf8'))).plan;
  assert.equal(seven.candidates.find((c) => c.count === 1).memory.weights_bytes, 14e9);
});

test('a bad workload is named by path, and malformed JSON never throws', () => {
  assert.deepEqual(call('plan', { stage: 'serve', model: 'Llama-3.1-8B', serve: { concurrent_users: 0 } }),
    { errors: [{ path: 'serve.concurrent_users', message: 'implausible value 0; expected 1 to 10000000' }] });
  const bad = JSON.parse(hw.plan('{"stage": '));
  assert.equal(bad.errors[0].path, '');
  assert.match(bad.errors[0].message, /^malformed JSON/);
});
