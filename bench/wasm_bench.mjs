// wasm_bench.mjs: timing harness for the WebAssembly JSON module under Node (the browser runs the same
// wasm). Reports the median of several rounds per entry point, and the module's size on disk.
// Usage: node bench/wasm_bench.mjs   (after build-scripts/build-web.sh)
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modulePath = path.join(root, 'build/wasm/wasm/hwplan_js.js');
const require = createRequire(import.meta.url);
const t0 = performance.now();
const hw = await require(modulePath)();
const startupMs = performance.now() - t0;

function bench(name, fn, iterations = 20000, rounds = 7) {
  for (let i = 0; i < Math.min(1000, iterations); i++) fn(); // warm up the JIT and the wasm tier-up
  const perCall = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    perCall.push(((performance.now() - start) * 1e6) / iterations);
  }
  perCall.sort((a, b) => a - b);
  const ns = perCall[rounds >> 1];
  const shown = ns > 1e6 ? `${(ns / 1e6).toFixed(2).padStart(8)} ms/call` : `${ns.toFixed(0).padStart(8)} ns/call`;
  console.log(`${name.padEnd(36)} median ${shown}  (${rounds} rounds x ${iterations})`);
}

const request = JSON.stringify({ params: 7e9, precision: 'bf16' });
console.log(`module: ${path.relative(root, modulePath)}  ${(fs.statSync(modulePath).size / 1024).toFixed(0)} KiB (wasm embedded)`);
console.log(`startup (instantiate) ${startupMs.toFixed(1)} ms`);
bench('weights (JSON in, JSON out)', () => hw.weights(request));
bench('weights (malformed JSON -> error)', () => hw.weights('{"params":'));
const bank = fs.readFileSync(path.join(root, 'tests/data/workloads/bank-70b-fp8.json'), 'utf8');
bench('plan (bank 70B FP8, every device)', () => hw.plan(bank), 50, 5);
const chat = JSON.stringify({ stage: 'serve', model: 'Mistral-7B-Instruct', hardware: { devices: ['L40S'], count: 1 } });
bench('plan (chat 7B, one device)', () => hw.plan(chat), 2000, 5);
