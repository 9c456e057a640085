// seed-corpus.mjs: writes the seed corpus kept in tests/fuzz/corpus/ from the repository's own inputs: the
// lessons' workloads (tests/data/workloads), the scenarios' workloads and teams, every catalog file and
// the extension examples. Each seed starts with the selector byte its target reads first.
// Usage: node tests/fuzz/seed-corpus.mjs   (rerun when the schema or the examples change; review the diff)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const out = path.join(root, 'tests/fuzz/corpus');
const read = (p) => fs.readFileSync(path.join(root, p), 'utf8');
const list = (dir) => fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.json')).sort().map((f) => `${dir}/${f}`);
fs.rmSync(out, { recursive: true, force: true });
const put = (target, name, selector, text) => {
  fs.mkdirSync(path.join(out, target), { recursive: true });
  fs.writeFileSync(path.join(out, target, name), selector + text);
};
const stem = (p) => path.basename(p, '.json');

// fuzz_workload: '0' plan, '1' card, '2' team (selector byte % 3); fuzz_json_api: '0' weights, '1' devices,
// '2' models, '3' plan (% 4); fuzz_catalog: '0' devices ... '6' defaults, '7' extension (% 8).
for (const p of list('tests/data/workloads')) {
  put('fuzz_workload', `plan-${stem(p)}`, '0', read(p));
  put('fuzz_workload', `card-${stem(p)}`, '1', read(p));
  put('fuzz_json_api', `plan-${stem(p)}`, '3', read(p));
}
for (const p of list('catalog/scenarios')) {
  const s = JSON.parse(read(p));
  if (s.workload) put('fuzz_workload', `plan-scenario-${stem(p)}`, '0', JSON.stringify(s.workload, null, 1));
  if (s.team) put('fuzz_workload', `team-scenario-${stem(p)}`, '2', JSON.stringify(s.team, null, 1));
  put('fuzz_catalog', `scenario-${stem(p)}`, '3', read(p));
}
put('fuzz_json_api', 'weights', '0', '{"params": 7e9, "precision": "bf16"}');
put('fuzz_json_api', 'devices-empty', '1', '{}');
put('fuzz_json_api', 'models-empty', '2', '{}');
const kinds = [['catalog/devices', '0'], ['catalog/models', '1'], ['catalog/apis', '2']];
for (const [dir, sel] of kinds) for (const p of list(dir).slice(0, 6)) put('fuzz_catalog', `${path.basename(dir)}-${stem(p)}`, sel, read(p));
put('fuzz_catalog', 'formats', '4', read('catalog/formats.json'));
put('fuzz_catalog', 'assumptions', '5', read('catalog/assumptions.json'));
put('fuzz_catalog', 'defaults', '6', read('catalog/defaults.json'));
for (const p of ['tests/data/extension-my-gpu.json', 'tests/data/extension-bad.json']) {
  put('fuzz_catalog', `extension-${stem(p)}`, '7', read(p));
  put('fuzz_json_api', `devices-${stem(p)}`, '1', JSON.stringify({ extension: JSON.parse(read(p)) }));
  put('fuzz_json_api', `models-${stem(p)}`, '2', JSON.stringify({ extension: JSON.parse(read(p)) }));
}
