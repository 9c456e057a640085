// csp.test.mjs: the Content-Security-Policy of the served page and of the single file (dist/hwplan.html).
// Each page allows no inline script but its own, by hash (wasm/assemble_dist.cmake writes them), and no eval:
// the test checks the policy's text, recomputes every inline script's SHA-256 here and finds it in the policy,
// works through the page (a scenario link, typing, every view) with no policy violation and no console error,
// and shows that the policy is enforced: a script injected into the page does not run and is reported.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startAll, watch, dist, T, waitStatus, workThrough } from './helpers.mjs';

let browser, server;
before(async () => ({ browser, server } = await startAll()));
after(async () => { await browser?.close(); await server?.close(); });

// Runs in the page before its own scripts: records every violation the browser reports.
function recordViolations() {
  window.hwplanCspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    window.hwplanCspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} ${e.sample || ''}`.trim()));
}

// The source list of one directive in a policy: "script-src 'self' x" -> ["'self'", "x"].
function directive(policy, name) {
  const d = policy.split(';').map((s) => s.trim().split(/\s+/)).find((t) => t[0] === name);
  return d ? d.slice(1) : null;
}

for (const [label, where] of [['served page', () => server.url], ['single file', () => pathToFileURL(path.join(dist, 'hwplan.html')).href]]) {
  test(`Content-Security-Policy on the ${label}: inline scripts by hash only, no violation while working, injection blocked`, async () => {
    const url = where();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(recordViolations);
    const page = await context.newPage();
    const { problems } = watch(page, new URL(url).origin, url);
    await page.goto(url);
    await page.waitForFunction(() => /^Plan: /.test(document.getElementById('hwplan-status')?.textContent || ''), null, { timeout: T.load });

    // The policy: no 'unsafe-inline' or 'unsafe-eval' for scripts; WebAssembly compiles under 'wasm-unsafe-eval'.
    const policy = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]').content);
    const scripts = directive(policy, 'script-src');
    assert.ok(scripts, `a script-src directive in: ${policy}`);
    assert.ok(!scripts.includes("'unsafe-inline'") && !scripts.includes("'unsafe-eval'"), `script-src: ${scripts.join(' ')}`);
    assert.ok(scripts.includes("'wasm-unsafe-eval'"));
    assert.ok(!policy.includes('HWPLAN_INLINE_SCRIPT_HASHES'), 'the build replaced the placeholder');
    // Every inline script's hash, computed here from the text the browser runs, is in the policy, and the
    // policy names no other hash.
    const inline = await page.evaluate(() => [...document.querySelectorAll('script:not([src])')].map((s) => s.textContent));
    assert.ok(inline.length >= 1);
    const expected = inline.map((t) => `'sha256-${crypto.createHash('sha256').update(t, 'utf8').digest('base64')}'`).sort();
    assert.deepEqual(scripts.filter((s) => s.startsWith("'sha256-")).sort(), expected);

    // Working through the page: a scenario link, a typed value, every view.
    await page.evaluate(() => { location.hash = '#scenario=coding-agent-32b'; });
    await waitStatus(page, /^Plan: qwen/);
    await workThrough(page);
    assert.deepEqual(await page.evaluate(() => window.hwplanCspViolations), [], 'no policy violation while working');
    assert.deepEqual(problems, [], 'no console error, page error or outside request while working');

    // Enforcement: an injected inline script does not run, and the browser reports it.
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.hwplanInjected = true;';
      document.body.append(s);
    });
    await page.waitForFunction(() => window.hwplanCspViolations.length > 0, null, { timeout: T.step });
    assert.equal(await page.evaluate(() => window.hwplanInjected), undefined, 'the injected script did not run');
    const violations = await page.evaluate(() => window.hwplanCspViolations);
    assert.equal(violations.length, 1, violations.join('\n'));
    assert.match(violations[0], /^script-src-elem blocked inline/);
    await context.close();
  });
}
