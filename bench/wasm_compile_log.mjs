// wasm_compile_log.mjs: which WebAssembly functions the page's start compiles, and with which compiler, in headless
// Chromium (Debian's, software WebGL). V8 compiles each function with Liftoff on its first call (on the page's thread)
// and again with TurboFan, in the background, once it has run enough (dynamic tiering); on a 2-core machine that
// background work competes with the page's thread and the GPU process. One load of the served page per run, each in a
// fresh browser (V8's --trace-wasm-compilation-times is a process flag), until the page shows its whole first plan.
// Prints, per compiler, the time and body bytes compiled and the functions that took longest. Function names need a
// module linked with --profiling-funcs (a name section); otherwise functions are shown by index.
// Usage: node bench/wasm_compile_log.mjs [--dist DIR] [--runs N] [--top N]
//   A named build of the served page (from build/wasm, after build-scripts/build-web.sh):
//   cd build/wasm/wasm && em++ <the flags of CMakeFiles/hwplan_web.dir/link.txt> --profiling-funcs \
//     @CMakeFiles/hwplan_web.dir/objects1 -o /tmp/named/hwplan_web.js @CMakeFiles/hwplan_web.dir/linkLibs.rsp
//   then copy dist/ to a folder, put /tmp/named/hwplan_web.{js,wasm} in it, and pass it as --dist.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../build-scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const dist = path.resolve(opt('--dist', path.join(root, 'dist')));
const runs = Number(opt('--runs', 3));
const top = Number(opt('--top', 12));

// The name section of a module (function index -> name), empty when it has none.
function functionNames(bytes) {
  const names = new Map();
  let p = 8;
  const leb = () => { let r = 0, s = 0, x; do { x = bytes[p++]; r |= (x & 0x7f) << s; s += 7; } while (x & 0x80); return r >>> 0; };
  while (p < bytes.length) {
    const id = bytes[p++], size = leb(), end = p + size;
    if (id === 0) {
      const len = leb(), name = bytes.subarray(p, p + len).toString();
      p += len;
      while (name === 'name' && p < end) {
        const sub = bytes[p++], subSize = leb(), subEnd = p + subSize;
        if (sub === 1) for (let i = 0, n = leb(); i < n; i++) { const index = leb(), l = leb(); names.set(index, bytes.subarray(p, p + l).toString()); p += l; }
        p = subEnd;
      }
    }
    p = end;
  }
  return names;
}

// One load in a fresh Chromium: its stdout carries V8's compile log; stopped once the status line shows the plan.
async function loadOnce(url) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'hwplan-compile-'));
  const chrome = spawn('/usr/bin/chromium', ['--headless', '--no-sandbox', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-quic', `--user-data-dir=${profile}`, '--use-gl=angle',
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--window-size=1280,800', '--js-flags=--trace-wasm-compilation-times',
    '--virtual-time-budget=20000', '--dump-dom', url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  chrome.stdout.on('data', (d) => { log += d; });
  chrome.stderr.on('data', (d) => { log += d; });
  await new Promise((resolve) => { chrome.on('exit', resolve); setTimeout(() => chrome.kill('SIGKILL'), 90000); });
  fs.rmSync(profile, { recursive: true, force: true });
  const planned = /id="hwplan-status"[^>]*>Plan: /.test(log);
  const compiles = [];
  for (const m of log.matchAll(/#(\d+) using (Liftoff|TurboFan), took (\d+) μs.*?bodysize (\d+)/g))
    compiles.push({ index: Number(m[1]), tier: m[2], us: Number(m[3]), bytes: Number(m[4]) });
  return { planned, compiles };
}

const names = functionNames(fs.readFileSync(path.join(dist, 'hwplan_web.wasm')));
const server = await startServer({ dir: dist, port: 0 });
const totals = { Liftoff: [], TurboFan: [] };
const byFunction = new Map();
for (let r = 0; r < runs; r++) {
  const { planned, compiles } = await loadOnce(server.url);
  const line = [];
  for (const tier of ['Liftoff', 'TurboFan']) {
    const mine = compiles.filter((c) => c.tier === tier);
    const ms = mine.reduce((s, c) => s + c.us, 0) / 1000, kb = mine.reduce((s, c) => s + c.bytes, 0) / 1024;
    totals[tier].push(ms);
    line.push(`${tier} ${mine.length} functions, ${kb.toFixed(0)} KiB of body, ${ms.toFixed(0)} ms`);
    for (const c of mine) {
      const key = `${tier} ${c.index}`;
      const e = byFunction.get(key) || { tier, index: c.index, bytes: c.bytes, us: [] };
      e.us.push(c.us);
      byFunction.set(key, e);
    }
  }
  console.log(`run ${r + 1}${planned ? '' : ' (the plan was not shown: read with care)'}: ${line.join('; ')}`);
}
server.close();
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
console.log(`\nmedian of ${runs} loads: Liftoff ${median(totals.Liftoff).toFixed(0)} ms, TurboFan ${median(totals.TurboFan).toFixed(0)} ms ` +
            '(compile time on whichever thread ran it; TurboFan runs in the background)');
for (const tier of ['TurboFan', 'Liftoff']) {
  console.log(`\n${tier}: the ${top} functions with the most compile time (mean over the loads that compiled them)`);
  const rows = [...byFunction.values()].filter((e) => e.tier === tier)
    .map((e) => ({ ...e, mean: e.us.reduce((s, x) => s + x, 0) / e.us.length / 1000 }))
    .sort((a, b) => b.mean - a.mean).slice(0, top);
  for (const e of rows)
    console.log(`${e.mean.toFixed(0).padStart(7)} ms ${String(e.bytes).padStart(7)} B  ${e.us.length}/${runs}  ${(names.get(e.index) || `function #${e.index}`).slice(0, 110)}`);
}
process.exit(0);
