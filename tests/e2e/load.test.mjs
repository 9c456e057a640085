// load.test.mjs: the first frame comes before the first plan (issue 10, "Load time"). The page draws the form
// and "Planning..." before it reads the catalog and plans (wasm/app/main.cpp); until the plan is there the
// status line, window.hwplanPage and postMessage report none; a link, a hashchange, a page API call or a
// message that arrives before the catalog is read waits and applies once it is, in order. The held start
// below stops the page's animation-frame ticks after its first frame (the app's main loop runs in them), so
// the "Planning..." state can be looked at and acted on; releasing them lets the page go on as it would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, watch, status, settled, shot, cli, sortKeys, T } from './helpers.mjs';

let browser, server;
before(async () => ({ browser, server } = await startAll()));
after(async () => { await browser?.close(); await server?.close(); });

// Runs in the page before its scripts: logs the status line as it changes, with the frames drawn by then;
// with `hold`, animation-frame callbacks wait once the app has published its first frame, until release().
function instrument(hold) {
  const raf = window.requestAnimationFrame.bind(window);
  const held = [];
  const load = (window.__load = { hold, seen: [], messages: [] });
  window.requestAnimationFrame = (cb) => {
    if (load.hold && window.hwplanUi) { held.push(cb); return 0; }
    return raf(cb);
  };
  load.release = () => { load.hold = false; for (const cb of held.splice(0)) raf(cb); };
  new MutationObserver(() => {
    const s = document.getElementById('hwplan-status');
    const text = s ? s.textContent : '';
    if (text && (load.seen.length === 0 || load.seen[load.seen.length - 1].text !== text))
      load.seen.push({ text, frames: window.hwplanUi ? window.hwplanUi.frames : 0, plan: !!(window.hwplanPage && window.hwplanPage.plan()) });
  }).observe(document, { subtree: true, childList: true, characterData: true });
  window.addEventListener('message', (e) => { if (e.data && e.data.hwplan === 'plan') load.messages.push(e.data); });
}

// Opens `url` cold (a new context) and waits for the first published frame, not the plan.
async function openCold(url, { hold = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(instrument, hold);
  const page = await context.newPage();
  const watched = watch(page, new URL(url).origin, url);
  await page.goto(url);
  await page.waitForFunction(() => window.hwplanUi && window.hwplanUi.frames >= 1, null, { timeout: T.load });
  return { page, context, ...watched };
}

const waitPlan = (page) =>
  page.waitForFunction(() => /^Plan: /.test(document.getElementById('hwplan-status').textContent) && window.hwplanPage.plan(), null,
                       { timeout: T.load });

// What the page reports while it plans: no plan, no workload, the status line "Planning...".
async function reportsNoPlan(page) {
  const r = await page.evaluate(() => ({
    status: document.getElementById('hwplan-status').textContent, plan: window.hwplanPage.plan(), workload: window.hwplanPage.workload(),
    frames: window.hwplanUi.frames,
  }));
  assert.equal(r.status, 'Planning...');
  assert.equal(r.plan, null, 'hwplanPage.plan() reports no plan before there is one');
  assert.equal(r.workload, null, 'hwplanPage.workload() reports nothing before the plan');
  assert.ok(r.frames >= 1, `a frame is on screen (${r.frames})`);
}

// One cold load for both: holding the animation frames after the first changes nothing before it, so the first
// frame's report and the order of the status lines are those of an unheld load (a cold load of the page in software
// WebGL is the costliest step of a browser test).
test('the first frame comes before the first plan and says "Planning..."; held, the form and no plan; released, the default plan', async () => {
  const { page, context, problems } = await openCold(server.url, { hold: true });
  await reportsNoPlan(page);
  // The form of the first frame is drawn: its fields are published with their places.
  const ui = await page.evaluate(() => window.hwplanUi);
  for (const w of ['stage', 'model', 'concurrent_users']) assert.ok(ui[w] && ui[w].w > 0, `the form's ${w} field is drawn`);
  await shot(page, 'load-planning');
  await page.evaluate(() => window.__load.release());
  await waitPlan(page);
  const seen = await page.evaluate(() => window.__load.seen);
  const firstPlan = seen.findIndex((s) => /^Plan: /.test(s.text));
  assert.ok(firstPlan > 0, `a status before the plan (${JSON.stringify(seen)})`);
  assert.deepEqual(seen[0], { text: 'Planning...', frames: 1, plan: false }, 'the first frame says Planning..., with no plan reported');
  assert.ok(seen.slice(0, firstPlan).every((s) => !s.plan && !/^(Error|Plan: |Team plan: )/.test(s.text)), `no plan or error before the plan: ${JSON.stringify(seen)}`);
  assert.match(await status(page), /^Plan: mistral-7b, serve: /, 'then the default plan');
  await settled(page);
  await shot(page, 'load-planned');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a scenario link opened cold plans that scenario, as the CLI does', async () => {
  const id = 'coding-agent-32b';
  const { page, context, problems } = await openCold(`${server.url}#scenario=${id}`, { hold: true });
  await reportsNoPlan(page);
  await shot(page, 'load-planning-link'); // the default form and "Planning...": the link applies once the catalog is read
  await page.evaluate(() => window.__load.release());
  await waitPlan(page);
  assert.deepEqual(await page.evaluate(() => window.hwplanPage.plan()), JSON.parse(cli('plan', '--scenario', id, '--format', 'json')),
                   `the page plans ${id} exactly as hwplan plan --scenario ${id}`);
  const seen = await page.evaluate(() => window.__load.seen);
  assert.equal(seen.filter((s) => /^Plan: /.test(s.text)).length, 1, `no default plan shown on the way: ${JSON.stringify(seen)}`);
  assert.equal(await page.evaluate(() => location.hash), `#scenario=${id}`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a hashchange, an API call and a message before the catalog wait and apply in order', async () => {
  const { page, context, problems } = await openCold(server.url, { hold: true });
  await reportsNoPlan(page);
  await page.evaluate(() => {
    window.location.hash = '#scenario=bank-70b-fp8';              // a course page's link changes the fragment
    window.postMessage({ hwplan: 'get' }, '*');                   // a frame asks for the plan: none yet
  });
  await page.waitForFunction(() => location.hash === '#scenario=bank-70b-fp8', null, { timeout: T.step });
  // hashchange and message events are delivered as tasks; let them land before the API call and check that
  // nothing was answered yet (the message listener got no plan).
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
  await page.evaluate(() => window.hwplanPage.load('warehouse-robot'));
  await reportsNoPlan(page);
  assert.deepEqual(await page.evaluate(() => window.__load.messages), [], 'no answer to "get" before there is a plan');
  await page.evaluate(() => window.__load.release());
  await waitPlan(page);
  assert.deepEqual(await page.evaluate(() => window.hwplanPage.plan()),
                   JSON.parse(cli('plan', '--scenario', 'warehouse-robot', '--format', 'json')), 'the last request wins');
  const first = await page.evaluate(() => window.__load.messages[0]);
  assert.ok(first && first.plan && /^Plan: /.test(first.summary), `the frame that asked gets the first plan: ${JSON.stringify(first && first.summary)}`);
  // Both requests applied, in order: Undo goes back to the scenario of the hashchange (its workload; Undo
  // keeps documents, so the link then carries it as #w=).
  const bank = JSON.parse(cli('plan', '--scenario', 'bank-70b-fp8', '--format', 'json'));
  await page.evaluate(() => window.hwplanPage.undo());
  await page.waitForFunction((want) => {
    const sorted = (v) => (Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object'
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
    return JSON.stringify(sorted(window.hwplanPage.plan())) === want;
  }, JSON.stringify(sortKeys(bank)), { timeout: T.step });
  assert.deepEqual(problems, []);
  await context.close();
});

// The served page fetches its module itself and compiles it as it streams in (web/shell.html, Module.instantiateWasm). A
// module that does not arrive (here answered 404) leaves a message in the page saying why, not "Loading hwplan…" for good.
test('a served page whose module cannot be fetched says so in the page', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.route('**/hwplan_web.wasm', (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }));
  await page.goto(server.url);
  await page.waitForFunction(() => /could not start/.test(document.getElementById('hwplan-loading')?.textContent || ''), null,
                             { timeout: T.step });
  assert.equal(await page.evaluate(() => document.getElementById('hwplan-loading').textContent),
               'hwplan could not start: hwplan_web.wasm: HTTP 404');
  assert.ok(errors.some((e) => e.includes('hwplan: cannot start the WebAssembly module: hwplan_web.wasm: HTTP 404')), errors.join('\n'));
  await context.close();
});

// A browser without WebGL2 (here: the canvas refuses a webgl2 context) is told so, and the line stays once the module
// has started and its main() has given up (the loading line used to be removed when the runtime started, leaving a
// blank page).
test('a browser without WebGL2 keeps the page saying so', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(() => {
    const getContext = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) { return kind === 'webgl2' ? null : getContext.call(this, kind, ...rest); };
  });
  const page = await context.newPage();
  const gaveUp = page.waitForEvent('console', { predicate: (m) => m.text().includes('hwplan: this browser could not create a WebGL2 context'),
                                                timeout: T.step });
  await page.goto(server.url);
  await gaveUp; // main() has run and stopped
  assert.equal(await page.evaluate(() => document.getElementById('hwplan-loading')?.textContent),
               'hwplan needs WebGL2, which this browser does not provide.');
  await context.close();
});
