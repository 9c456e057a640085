// One answer on the command line: `hwplan plan` and `hwplan layouts` (the plan's own search, with the count left to
// it) must name the same candidates, device for device, with the same count and layout (tensor, pipeline, data and
// expert parallel), and each candidate must be the first point of its search (serving_search.best for serving,
// layouts.best for training). Node, not a CMake script: CMake's string(JSON GET) parses the whole plan again for
// every field it reads (34 s of the sanitizer pass for the bank plan; this reads each document once).
// A workload that states hardware.count is planned on that count: `layouts` then shows it as on_devices
// (devices_from "hardware.count") and that view, not the fewest that fit, must be the plan.
// Usage: node tests/layouts_agree.mjs HWPLAN_EXE SCENARIO|WORKLOAD.json  (exit 0 when they agree, 1 with the reason otherwise)
import { execFileSync } from 'node:child_process';

const [exe, scenario] = process.argv.slice(2);
function fail(what) {
  console.error(`${scenario}: ${what}`);
  process.exit(1);
}
if (!exe || !scenario) fail('usage: node tests/layouts_agree.mjs HWPLAN_EXE SCENARIO');

function run(command) {
  try {
    const what = scenario.endsWith('.json') ? [scenario] : ['--scenario', scenario];
    return JSON.parse(execFileSync(exe, [command, ...what, '--format', 'json'],
                                   { encoding: 'utf8', maxBuffer: 1 << 30 }));
  } catch (e) {
    fail(`hwplan ${command} failed (exit ${e.status ?? '?'}): ${e.stderr ?? e.message}`);
  }
}
const plan = run('plan');
const layouts = run('layouts');

// "device count tp pp dp ep" of every candidate, sorted.
function rows(p) {
  if (!p || !Array.isArray(p.candidates) || p.candidates.length === 0) fail('no candidates');
  return p.candidates.map((c) => [c.device, c.count, c.layout.tensor_parallel, c.layout.pipeline_parallel,
                                  c.layout.data_parallel, c.layout.expert_parallel].join(' ')).sort();
}
const fromPlan = rows(plan.plan);
const stated = layouts.devices_from === 'hardware.count';
if (!stated && layouts.devices !== 0) fail(`layouts answered for ${layouts.devices} devices (${layouts.devices_from}) though none was asked`);
const fromLayouts = rows(stated ? layouts.on_devices?.plan : layouts.fewest?.plan);
if (fromPlan.join('\n') !== fromLayouts.join('\n')) {
  fail(`plan and layouts disagree:\n  plan:    ${fromPlan.join('; ')}\n  layouts: ${fromLayouts.join('; ')}`);
}

// Each candidate is its search's first point.
let checked = 0;
for (const c of plan.plan.candidates) {
  const { tensor_parallel: tp, pipeline_parallel: pp, data_parallel: dp } = c.layout;
  const serving = c.serving_search?.best;
  const training = c.layouts?.best;
  if (serving) {
    const want = `${c.count} ${dp} ${tp} ${pp}`;
    const got = `${serving.count} ${serving.replicas} ${serving.tensor_parallel} ${serving.pipeline_parallel}`;
    if (want !== got) fail(`${c.device}: the candidate (${want}) is not its serving search's best point (${got})`);
    checked++;
  } else if (training) {
    const want = `${tp} ${pp} ${dp}`;
    const got = `${training.tensor_parallel} ${training.pipeline_parallel} ${training.data_parallel}`;
    if (want !== got) fail(`${c.device}: the candidate (${want}) is not its training search's best point (${got})`);
    checked++;
  }
}
if (checked === 0) fail('no candidate carries its search');
console.log(`${scenario}: ${plan.plan.candidates.length} candidates agree (${stated ? 'on the stated count' : 'the fewest that fit'}); ` +
            `${checked} checked against their search's first point`);
