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
  for (let i = 0; i < 1000; i++) fn(); // warm up the JIT and the wasm tier-up
  const perCall = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    perCall.push(((performance.now() - start) * 1e6) / iterations);
  }
  perCall.sort((a, b) => a - b);
  console.log(`${name.padEnd(36)} median ${perCall[rounds >> 1].toFixed(0).padStart(8)} ns/call  (${rounds} rounds x ${iterations})`);
}

const request = JSON.stringify({ params: 7e9, precision: 'bf16' });
console.log(`module: ${path.relative(root, modulePath)}  ${(fs.statSync(modulePath).size / 1024).toFixed(0)} KiB (wasm embedded)`);
console.log(`startup (instantiate) ${startupMs.toFixed(1)} ms`);
bench('weights (JSON in, JSON out)', () => hw.weights(request));
bench('weights (malformed JSON -> error)', () => hw.weights('{"params":'));
