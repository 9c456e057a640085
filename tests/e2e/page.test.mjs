// page.test.mjs: the web planner as a person meets it. Debian's Chromium (headless, SwiftShader WebGL2)
// opens the served page and dist/hwplan.html straight from disk; each must render the ImGui window on a
// WebGL2 canvas (the screenshot is not blank), log no console error, request nothing outside its own
// origin, and update the result when a new parameter count is typed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { startServer } from '../../build-scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');
const shots = path.join(root, 'build', 'e2e');
fs.mkdirSync(shots, { recursive: true });

let browser, server;
before(async () => {
  server = await startServer({ dir: dist, port: 0 });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--disable-quic', '--use-gl=angle', '--use-angle=swiftshader',
           '--enable-unsafe-swiftshader'],
  });
});
after(async () => { await browser?.close(); await server?.close(); });

// Opens `url` in a fresh page and records console errors and requests leaving the page's origin.
async function open(url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems = [];
  const origin = new URL(url).origin; // "null" for file:// URLs
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const u = new URL(r.url());
    const own = u.protocol === 'data:' || u.protocol === 'blob:' ||
                (origin === 'null' ? u.href === url : u.origin === origin);
    if (!own) problems.push(`request outside the page's origin: ${r.url()}`);
  });
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('hwplan-status')?.textContent.startsWith('Plan: '),
                             null, { timeout: 30000 });
  return { page, problems };
}

const status = (page) => page.evaluate(() => document.getElementById('hwplan-status').textContent);

// Share of pixels that differ from the clear colour, and the number of distinct colours.
function inkOf(png) {
  const img = PNG.sync.read(png);
  const bg = [0x17, 0x19, 0x1f];
  const colours = new Set();
  let ink = 0;
  for (let i = 0; i < img.data.length; i += 4) {
    const [r, g, b] = [img.data[i], img.data[i + 1], img.data[i + 2]];
    colours.add((r << 16) | (g << 8) | b);
    if (Math.abs(r - bg[0]) + Math.abs(g - bg[1]) + Math.abs(b - bg[2]) > 24) ink++;
  }
  return { ink: ink / (img.width * img.height), colours: colours.size };
}

// A click as a person makes one: move there, press, hold for a few frames, release. (Dear ImGui 1.86
// samples the mouse once per frame; a press and release inside one frame can be missed by some widgets.)
async function humanClick(page, r) {
  await page.mouse.move(r.x + r.w / 2, r.y + r.h / 2);
  await page.waitForTimeout(50);
  await page.mouse.down();
  await page.waitForTimeout(120);
  await page.mouse.up();
}

async function typeInto(page, widget, text) {
  const r = await page.evaluate((w) => window.hwplanUi[w], widget);
  await humanClick(page, r); // AutoSelectAll: the click selects the old text
  // ImGui acts on input once per frame: wait until the field is active before typing into it.
  await page.waitForFunction((w) => window.hwplanUi.active === w, widget, { timeout: 10000 });
  await page.keyboard.type(text);
  // A key held as a person holds it: ImGui 1.86 reads key state once per frame, so a press and release
  // that both land between two frames (a slow software-rendered frame is ~50 ms) would be lost.
  await page.keyboard.down('Enter');
  await page.waitForTimeout(120);
  await page.keyboard.up('Enter');
  // Enter ends the edit; wait until ImGui has processed it, so the next click starts a fresh edit
  // (a click inside a field that is still active would place the cursor instead of selecting all).
  await page.waitForFunction((w) => window.hwplanUi.active !== w, widget, { timeout: 10000 });
}

const waitStatus = (page, predicate, arg) =>
  page.waitForFunction(predicate, arg, { timeout: 15000 }).catch(() => {});

async function click(page, widget) {
  await humanClick(page, await page.evaluate((w) => window.hwplanUi[w], widget));
}

for (const [label, where] of [['served page', () => server.url], ['hwplan.html from disk', () => pathToFileURL(path.join(dist, 'hwplan.html')).href]]) {
  test(`${label}: WebGL2 canvas renders the planner, plans update on typing, no errors, no foreign requests`, async () => {
    const { page, problems } = await open(where());
    const webgl2 = await page.evaluate(() => !!document.getElementById('canvas').getContext('webgl2'));
    assert.ok(webgl2, 'the canvas holds a WebGL2 context');

    // The first view plans the lesson's live chat (Mistral 7B, 20 users, 8k context) on every device.
    const first = await status(page);
    assert.match(first, /^Plan: mistral-7b, serve: \d+ of \d+ candidates fit; (recommended: [^;]+; )?first: [a-z0-9.-]+ x\d+, /);
    const shot1 = await page.screenshot({ path: path.join(shots, `${label.replace(/\W+/g, '-')}-plan.png`) });
    const { ink, colours } = inkOf(shot1);
    assert.ok(ink > 0.05 && colours >= 8, `the screenshot is not blank (ink ${ink.toFixed(4)}, ${colours} colours)`);

    // A person raises the concurrent users from 20 to 2000: the plan changes (more memory per device).
    await typeInto(page, 'concurrent_users', '2000');
    await waitStatus(page, (t) => document.getElementById('hwplan-status').textContent !== t, first);
    const second = await status(page);
    assert.notEqual(second, first);
    assert.match(second, /^Plan: /);
    const shot2 = await page.screenshot({ path: path.join(shots, `${label.replace(/\W+/g, '-')}-plan-2000.png`) });
    assert.notDeepEqual(shot2, shot1, 'the canvas shows the new plan');

    // Bad input is named by its path, not computed.
    await typeInto(page, 'concurrent_users', '-5');
    const expected = 'Error: serve.concurrent_users: implausible value -5; expected 1 to 10000000';
    await waitStatus(page, (t) => document.getElementById('hwplan-status').textContent === t, expected);
    assert.equal(await status(page), expected);

    // A worked example from the lessons loads into the form: the bank's 70B at FP8 (lesson 004).
    await click(page, 'scenario');
    await page.waitForFunction(() => window.hwplanUi['scenario:bank-70b-fp8'], null, { timeout: 10000 });
    await click(page, 'scenario:bank-70b-fp8');
    await waitStatus(page, () => document.getElementById('hwplan-status').textContent.startsWith('Plan: llama-3.1-70b, serve'));
    assert.match(await status(page), /^Plan: llama-3\.1-70b, serve: \d+ of \d+ candidates fit; recommended: /);
    await page.screenshot({ path: path.join(shots, `${label.replace(/\W+/g, '-')}-bank.png`) });

    // The small team's three jobs (lesson 003) open as a team plan with the fleet's monthly cost.
    await click(page, 'scenario');
    await page.waitForFunction(() => window.hwplanUi['scenario:small-team-three-jobs'], null, { timeout: 10000 });
    await click(page, 'scenario:small-team-three-jobs');
    await waitStatus(page, () => document.getElementById('hwplan-status').textContent.startsWith('Team plan: '));
    assert.match(await status(page), /^Team plan: Small team: .*; Fleet cost: \$[0-9.]+ a month/);
    await page.screenshot({ path: path.join(shots, `${label.replace(/\W+/g, '-')}-team.png`) });
    await page.keyboard.press('Escape');
    await page.reload();
    await page.waitForFunction(() => document.getElementById('hwplan-status')?.textContent.startsWith('Plan: '), null, { timeout: 30000 });

    // The weight check tab: 7e9 at bf16 is 14 GB (lesson 001); typing 70e9 gives 140 GB.
    await click(page, 'tab_weights');
    await waitStatus(page, () => document.getElementById('hwplan-status').textContent.startsWith('Weights'));
    assert.equal(await status(page), 'Weights: 14 GB = 7 billion parameters x 2 bytes (bf16)');
    await typeInto(page, 'params', '70e9');
    await waitStatus(page, () => document.getElementById('hwplan-status').textContent.startsWith('Weights: 140 GB'));
    assert.equal(await status(page), 'Weights: 140 GB = 70 billion parameters x 2 bytes (bf16)');
    await page.screenshot({ path: path.join(shots, `${label.replace(/\W+/g, '-')}-weights.png`) });

    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('the example course page embeds the planner at a scenario, with no errors and no foreign requests', async () => {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const problems = [];
  const origin = new URL(server.url).origin;
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol !== 'data:' && u.protocol !== 'blob:' && u.origin !== origin) problems.push(`request outside the origin: ${r.url()}`);
  });
  await page.goto(new URL('examples/course-page.html', server.url).href);
  const frame = page.frame({ name: 'planner' });
  assert.ok(frame, 'the planner iframe is there');
  await frame.waitForFunction(() => document.getElementById('hwplan-status')?.textContent.startsWith('Plan: llama-3.1-70b, serve'),
                              null, { timeout: 30000 });
  await page.screenshot({ path: path.join(shots, 'course-page.png') });
  assert.deepEqual(problems, []);
  await page.close();
});
