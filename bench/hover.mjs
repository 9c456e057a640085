// hover.mjs: what moving the pointer costs the page in headless Chromium (software WebGL): 40 pointer moves over the
// plan side, each waited on until the page is idle again; prints the frames laid out, the frames rendered (a frame the
// same as what the canvas shows is not rendered: wasm/app/main.cpp frame_hash), the wall time, and the main thread's
// top functions by self time from Chromium's sampling profiler (gl.getParameter is ImGui's OpenGL backend reading
// state back from the GPU process on every rendered frame).
// Usage: node bench/hover.mjs [--dist DIR]   (build the site first: build-scripts/build-web.sh)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../build-scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = process.argv.indexOf('--dist');
const dist = at > 0 ? path.resolve(process.argv[at + 1]) : path.join(root, 'dist');
const server = await startServer({ dir: dist, port: 0 });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-quic', '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.goto(server.url);
const idle = () => page.waitForFunction(() => window.hwplanUi && window.hwplanUi.idle === true, null, { timeout: 60000, polling: 25 });
await idle();
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
const state = () => page.evaluate(() => ({ frames: window.hwplanUi.frames, rendered: window.hwplanUi.rendered ?? window.hwplanUi.frames }));
const before = await state();
const t0 = Date.now();
for (let i = 0; i < 40; i++) {
  await page.mouse.move(700 + (i % 2) * 200, 300 + i * 5);
  await idle();
}
const wall = Date.now() - t0;
const after = await state();
const { profile } = await cdp.send('Profiler.stop');
const self = new Map();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
profile.samples.forEach((id, i) => {
  const f = byId.get(id).callFrame;
  const k = f.functionName || '(anonymous)';
  self.set(k, (self.get(k) || 0) + (profile.timeDeltas[i] || 0));
});
console.log(`40 pointer moves: ${after.frames - before.frames} frames laid out, ${after.rendered - before.rendered} rendered, ${wall} ms`);
console.log('main thread by self time (ms):');
for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`  ${(v / 1000).toFixed(0).padStart(7)}  ${k}`);
await browser.close();
await server.close();
