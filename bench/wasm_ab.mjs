// wasm_ab.mjs: one JSON module's CPU per plan of every workload in tests/data/workloads (hw.plan, JSON in and out), for comparing two builds like
// for like: run it once per module, alternating, on the same machine (a busy machine moves every figure; the pair moves
// together). Warm-up: 40 rounds over every workload of tests/data/workloads (V8 tiers the module up); then the median of
// 5 rounds of 8 calls per workload, in ms of CPU (process.cpuUsage: every thread of the process).
// Usage: node bench/wasm_ab.mjs [MODULE.js]   (default build/wasm/wasm/hwplan_js.js; another tree's module to compare)
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const hw = await require(path.resolve(process.argv[2] ?? path.join(root, 'build/wasm/wasm/hwplan_js.js')))();
const dir = path.join(root, 'tests/data/workloads');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
const texts = Object.fromEntries(files.map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1e-3; };
for (let r = 0; r < 40; r++) for (const f of files) hw.plan(texts[f]);
const out = [];
for (const f of files) {
  const per = [];
  for (let r = 0; r < 5; r++) {
    const start = cpuMs();
    for (let i = 0; i < 8; i++) hw.plan(texts[f]);
    per.push((cpuMs() - start) / 8);
  }
  out.push(`${f.replace(/\.json$/, '')} ${per.sort((a, b) => a - b)[2].toFixed(3)} ms`);
}
console.log(out.join('\n'));
