// start_profile.mjs: where the served page's main thread spends its start, per function, in headless Chromium
// (Debian's, software WebGL): a V8 CPU profile (Chrome DevTools Protocol Profiler, 250 us sampling, which slows a load
// about 1.6x: read shares, not times) of each load, from navigation until the status line shows the whole first plan,
// in fresh contexts of one browser warmed by a throwaway WebGL2 page (as bench/load_time.mjs). Prints each function's
// inclusive and self time, averaged over the loads. WebAssembly functions have names with a module linked with
// --profiling-funcs (see bench/wasm_compile_log.mjs's header for the link line); V8 compiles a function on its first
// call, and that compile shows as the caller's self time.
// Usage: node bench/start_profile.mjs DIST [RUNS]     (DIST: a built site, e.g. dist/ or a named copy of it)
import { chromium } from 'playwright-core';
import { startServer } from '../build-scripts/serve.mjs';
import fs from 'node:fs';
const dist = process.argv[2] || 'dist'; const runs = Number(process.argv[3] || 2);
const args = ['--no-sandbox','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync','--disable-quic','--use-gl=angle','--use-angle=swiftshader','--enable-unsafe-swiftshader'];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args });
const server = await startServer({ dir: dist, port: 0 });
{ const c = await browser.newContext(); const p = await c.newPage(); await p.setContent('<canvas id=c></canvas>'); await p.evaluate(() => document.getElementById('c').getContext('webgl2')); await c.close(); }
const agg = new Map(); const inc = new Map(); let total = 0;
for (let r = 0; r < runs; r++) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
  await cdp.send('Profiler.start');
  const t0 = Date.now();
  await page.goto(server.url);
  await page.waitForFunction(() => /^Plan: /.test(document.getElementById('hwplan-status')?.textContent || ''), null, { timeout: 60000, polling: 20 });
  const t1 = Date.now();
  const { profile } = await cdp.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas; let ms = 0;
  const parent = new Map(); for (const n of profile.nodes) for (const c of (n.children || [])) parent.set(c, n);
  for (let i = 0; i < profile.samples.length; i++) {
    const n = byId.get(profile.samples[i]); const name = n.callFrame.functionName || n.callFrame.url || '(anon)';
    const d = (dt[i + 1] ?? 0) / 1000; ms += d;
    agg.set(name, (agg.get(name) || 0) + d);
    const seen = new Set(); for (let m = n; m; m = parent.get(m.id)) { const nm = (m.callFrame.functionName || m.callFrame.url || '(anon)'); if (!seen.has(nm)) { seen.add(nm); inc.set(nm, (inc.get(nm) || 0) + d); } }
  }
  total += ms;
  console.log(`run ${r+1}: wall to whole plan ${t1 - t0} ms, sampled ${ms.toFixed(0)} ms`);
  await ctx.close();
}
server.close(); await browser.close();
const rows = [...agg.entries()].sort((a, b) => b[1] - a[1]).slice(0, 45);
console.log('--- inclusive'); for (const [n, ms] of [...inc.entries()].sort((a, b) => b[1] - a[1]).slice(0, 70)) console.log(`${(ms / runs).toFixed(1).padStart(8)} ms  ${n.slice(0, 130)}`);
console.log('--- self'); for (const [n, ms] of rows) console.log(`${(ms / runs).toFixed(1).padStart(8)} ms  ${n.slice(0, 130)}`);
