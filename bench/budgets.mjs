// budgets.mjs: the budgets of issue 12, measured in one run and checked. Native and WebAssembly plan the
// same workloads (tests/data/workloads) like for like: one program (bench/plan_speed.cpp: plan_json, the workload's
// JSON text in and the plan's JSON text out, sensitivity on, the embedded catalog, the same clock and rounds) built
// natively and for WebAssembly, run alternately; their ratio per workload is the "within 2x" budget. Then the
// JavaScript API's own call (hw.plan in hwplan_js, what the course page and Node users call; the page's ImGui
// program plans inside the module like plan_speed) with what it adds on top of the module's plan (the request
// copied in, the answer decoded into a JavaScript string), the single file's and the served page's gzip sizes.
// Exits 1 when a budget is exceeded.
// Usage: node bench/budgets.mjs [--quick]   (build-scripts/bench.sh runs it after building build/native/bench/
// hwplan_plan_speed and build/wasm/bench/hwplan_plan_speed.js; see BENCHMARKS.md)
// --quick (test.sh's report): two alternations of plan_speed --quick (3 rounds of 0.03 s+) instead of three of 5
// rounds of 0.08 s+; for the JavaScript API 3 timed rounds of at least 0.08 s instead of 5 of at least 0.2 s and a
// warm-up of at least 1 s of CPU instead of 2; the same workloads, the same budget lines.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const hw = await require(path.join(root, 'build/wasm/wasm/hwplan_js.js'))();
const quick = process.argv.includes('--quick');
const kRounds = quick ? 3 : 5;      // timed rounds per call (the median is reported)
const kCalibrateS = quick ? 0.02 : 0.05; // a round is 4x the calls that first took this much CPU (0.2 s+; --quick 0.08 s+)
const kWarmUpCpuS = quick ? 1 : 2;  // least CPU spent warming up before any timing
const kAlternations = quick ? 2 : 3; // plan_speed runs per side, native and WebAssembly alternated

// The budgets (issue 12).
const kSingleFileGzipBytes = 1e6;  // dist/hwplan.html, gzip -9: at most 1 MB
const kWasmOverNative = 2;         // WebAssembly within 2x of native, for every workload
const kWholeCatalogPlanMs = 16;    // a whole-catalog plan per edit fits one 60 Hz frame in WebAssembly

// CPU seconds of this process (user + system).
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1e-6; };

// Median CPU seconds per call over kRounds rounds of at least 0.2 s each (--quick: 0.08 s), after a warm-up.
function wasmTime(fn) {
  for (let i = 0; i < 5; i++) fn();
  let n = 1;
  for (let t = 0; t < kCalibrateS; n *= 2) { const s = cpu(); for (let i = 0; i < n; i++) fn(); t = cpu() - s; }
  const per = [];
  for (let r = 0; r < kRounds; r++) {
    const s = cpu();
    for (let i = 0; i < n * 4; i++) fn();
    per.push((cpu() - s) / (n * 4));
  }
  return per.sort((a, b) => a - b)[(kRounds - 1) / 2];
}

const dir = path.join(root, 'tests/data/workloads');
const inputs = [];
for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) {
  const text = fs.readFileSync(path.join(dir, f), 'utf8');
  if (!JSON.parse(hw.plan(text)).plan) throw new Error(`${f}: the module did not plan it`);
  inputs.push({ stem: f.replace(/\.json$/, ''), text, wholeCatalog: !JSON.parse(text).hardware?.devices });
}

// Like for like: plan_speed natively, then in WebAssembly, kAlternations times. Each run reports per workload the
// median of its rounds (wall time, steady_clock, on the same rule both sides); per side the fastest run's median is
// kept. Why the fastest: on this shared machine kind a whole process sometimes runs 1.5-1.7x slower than the next
// one (the same native binary, 2026-12-04: 104 us and 183 us per plan in back-to-back runs), on either side; the
// fastest run is the one least disturbed, and taking it on both sides keeps the ratio like for like.
const planSpeed = (argv0, args) => JSON.parse(execFileSync(argv0, [...args, ...(quick ? ['--quick'] : []),
  ...inputs.map((w) => path.join(dir, `${w.stem}.json`))], { encoding: 'utf8', maxBuffer: 1 << 24 })).workloads;
const speed = { native: new Map(), wasm: new Map() };
for (let a = 0; a < kAlternations; a++) {
  for (const [side, runs] of [['native', planSpeed(path.join(root, 'build/native/bench/hwplan_plan_speed'), [])],
                              ['wasm', planSpeed(process.execPath, [path.join(root, 'build/wasm/bench/hwplan_plan_speed.js')])]])
    for (const r of runs) speed[side].set(r.workload, Math.min(speed[side].get(r.workload) ?? Infinity, r.s_per_plan));
}

// Warm-up to steady state before any timing. V8 first runs a module's functions as baseline (Liftoff) code
// and swaps in optimized (TurboFan) code only once they are hot, compiling it on background threads; both
// the slow baseline calls and that compile (process.cpuUsage() counts every thread) would otherwise land
// on the first workloads timed: 3b-finetune-rtx3090, timed first, measured 3.3 ms per plan on baseline code
// and 0.4 ms once optimized (Node 20; Node 18 tiers up later). Native code has no such phase, so timing
// it would not be like for like. Round-robin over every workload until one round costs within 5 % of
// the previous one, at least 2 s (--quick: 1 s) and at most 20 s of CPU.
{
  const round = () => { const s = cpu(); for (const w of inputs) hw.plan(w.text); return cpu() - s; };
  const start = cpu();
  let prev = round(), rounds = 1;
  for (;;) {
    const t = round();
    rounds++;
    const spent = cpu() - start;
    if ((spent > kWarmUpCpuS && Math.abs(t - prev) <= 0.05 * prev) || spent > 20) break;
    prev = t;
  }
  console.log(`warm-up: ${rounds} rounds over ${inputs.length} workloads, ${(cpu() - start).toFixed(1)} s CPU, last round ${(prev * 1e3).toFixed(1)} ms\n`);
}

const rows = [];
for (const { stem, text, wholeCatalog } of inputs)
  rows.push({ stem, wholeCatalog, api: wasmTime(() => hw.plan(text)), wasm: speed.wasm.get(stem), native: speed.native.get(stem) });

const ms = (s) => (s * 1e3).toFixed(3).padStart(9);
console.log(`plan_json per workload (JSON in and out), like for like: bench/plan_speed.cpp natively and in WebAssembly,
the fastest of ${kAlternations} alternated runs per side; then the JavaScript API's call (hw.plan, CPU of the process) and what
it adds on top of the module's plan (the request in, the answer decoded into a JavaScript string)`);
console.log('workload                                   devices   native ms    wasm ms   ratio   hw.plan ms  added ms');
let logSum = 0;
for (const r of rows) {
  if (r.native === undefined || r.wasm === undefined) throw new Error(`no plan_speed time for ${r.stem}`);
  r.ratio = r.wasm / r.native;
  logSum += Math.log(r.ratio);
  console.log(`${r.stem.padEnd(42)} ${(r.wholeCatalog ? 'all' : 'given').padStart(7)} ${ms(r.native)}  ${ms(r.wasm)}  ${r.ratio.toFixed(2).padStart(6)}  ${ms(r.api)}  ${ms(r.api - r.wasm)}`);
}
const geomean = Math.exp(logSum / rows.length);
const worst = rows.reduce((a, b) => (b.ratio > a.ratio ? b : a));
const whole = rows.filter((r) => r.wholeCatalog);
const slowestWhole = whole.reduce((a, b) => (b.api > a.api ? b : a));

const gz = (files) => files.reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(root, 'dist', f)), { level: 9 }).length, 0);
const raw = (files) => files.reduce((n, f) => n + fs.statSync(path.join(root, 'dist', f)).size, 0);
const served = ['index.html', 'hwplan_web.js', 'hwplan_web.wasm'];
console.log(`\nsizes (gzip -9): dist/hwplan.html ${gz(['hwplan.html'])} bytes (${raw(['hwplan.html'])} raw); served page ` +
  `${served.join(' + ')} ${gz(served)} bytes (${raw(served)} raw); dist/hwplan_js.js ${gz(['hwplan_js.js'])} bytes`);

// The what-if view's per-edit cost (issue 10): the page computes the curves of one device for one input
// after an edit while the view is open; each axis's default range on the page's default workload (lesson
// 003's live chat) and on the bank scenario (70B, 8-device candidates), for the recommended device.
const sweepRows = [];
for (const file of ['team-live-chat.json', 'bank-70b-fp8.json']) {
  const text = fs.readFileSync(path.join(dir, file), 'utf8');
  const device = JSON.parse(hw.plan(text)).plan.recommendation.option.device;
  for (const axis of ['concurrent_users', 'context_tokens', 'batch_size', 'utilization']) {
    const request = JSON.stringify({ workload: JSON.parse(text), device, axis });
    const out = JSON.parse(hw.sweep(request));
    if (!out.sweep) throw new Error(`${file} ${axis}: the module did not sweep it: ${JSON.stringify(out.errors)}`);
    sweepRows.push({ name: `${file.replace(/\.json$/, '')} ${axis} (${out.sweep.points.length} points on ${device})`, wasm: wasmTime(() => hw.sweep(request)) });
  }
}
console.log('\nwhat-if curves (hw.sweep, one device, one input)            wasm ms');
for (const r of sweepRows) console.log(`${r.name.padEnd(60)} ${ms(r.wasm)}`);
const slowestSweep = sweepRows.reduce((a, b) => (b.wasm > a.wasm ? b : a));

const budgets = [
  ['single file dist/hwplan.html <= 1 MB gzip', gz(['hwplan.html']), kSingleFileGzipBytes, 'bytes'],
  [`WebAssembly within ${kWasmOverNative}x of native (worst: ${worst.stem}; geometric mean ${geomean.toFixed(2)}x)`, worst.ratio, kWasmOverNative, 'x'],
  [`whole-catalog plan per edit in WebAssembly <= ${kWholeCatalogPlanMs} ms (through the JavaScript API, hw.plan; slowest: ${slowestWhole.stem})`, slowestWhole.api * 1e3, kWholeCatalogPlanMs, 'ms'],
  [`what-if curves per edit in WebAssembly <= ${kWholeCatalogPlanMs} ms (slowest: ${slowestSweep.name})`, slowestSweep.wasm * 1e3, kWholeCatalogPlanMs, 'ms'],
];
let exceeded = 0;
console.log('');
for (const [name, value, limit, unit] of budgets) {
  const held = value <= limit;
  exceeded += held ? 0 : 1;
  console.log(`budget: ${held ? 'held    ' : 'EXCEEDED'} ${name}: ${unit === 'bytes' ? value : value.toFixed(2)} ${unit} (limit ${limit} ${unit})`);
}
process.exit(exceeded ? 1 : 0);
