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
// Each target this script seeds is rewritten whole; the hand-kept seeds of the others (fuzz_hf_config,
// fuzz_measurement, fuzz_fragment) are left alone.
const seeded = ['fuzz_workload', 'fuzz_json_api', 'fuzz_catalog', 'fuzz_calibrate', 'fuzz_config_import', 'fuzz_extension', 'fuzz_sweep', 'fuzz_team'];
for (const t of seeded) fs.rmSync(path.join(out, t), { recursive: true, force: true });
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

// fuzz_calibrate: byte 0 even = "WORKLOAD\0TEXT" on a device ((byte >> 1) % 4: rtx-a6000, rtx-4090, h100-sxm,
// apple-m2-ultra), odd = the JavaScript API's request. Every pasted sample with the page's default workload (a
// precision given as a name), a catalog model, a finetune for step times, and as a request.
const pageDefault = read('tests/data/page-default-workload.json').trim();
const samples = fs.readdirSync(path.join(root, 'tests/data/measurements')).filter((f) => f !== 'README.md').sort();
for (const f of samples) {
  const text = read(`tests/data/measurements/${f}`);
  put('fuzz_calibrate', `default-${f}`, '\x00', text);
  put('fuzz_calibrate', `page-default-${f}`, '\x00', pageDefault + '\0' + text);
  put('fuzz_calibrate', `h100-${f}`, '\x04', read('tests/data/calibration-workload.json').trim() + '\0' + text);
  put('fuzz_calibrate', `request-${f}`, '\x01', JSON.stringify({ workload: JSON.parse(pageDefault), device: 'rtx-a6000', text, read_on: '2026-12-02' }));
}
put('fuzz_calibrate', 'step-finetune', '\x02', '{"stage": "finetune", "model": "llama-3.2-1b", "precision": "bf16", "train": {"method": "lora"}}\0step time: 1.25 s');
put('fuzz_calibrate', 'peak-memory', '\x06', '{"stage": "serve", "model": "mistral-7b", "precision": {"weights": "q4_0"}}\0peak memory: 21.3 GB');
put('fuzz_calibrate', 'request-extension', '\x01', JSON.stringify({ workload: { stage: 'serve', model: 'llama-2-7b' }, device: 'my-lab-gpu',
  text: '| test | t/s |\n| tg 128 | 50 |', read_on: '2026-12-02', extension: JSON.parse(read('tests/data/extension-my-gpu.json')) }));

// fuzz_config_import: byte 0 even = serve, odd = LoRA fine-tune; then the config.json as pasted.
for (const p of list('tests/data/hf_configs')) {
  put('fuzz_config_import', `serve-${stem(p)}`, '0', read(p));
  put('fuzz_config_import', `finetune-${stem(p)}`, '1', read(p));
}

// fuzz_extension: byte 0 picks LoRA (even) or QLoRA (odd) for the fine-tune; then the extension.
for (const p of ['tests/data/extension-my-gpu.json', 'tests/data/extension-calibrated.json', 'tests/data/extension-bad.json'])
  put('fuzz_extension', stem(p), '0', read(p));

// fuzz_sweep: byte 0 even = a sweep request; odd = a workload swept on device (byte >> 1) % 4 along axis (byte >> 3) % 4.
const chat = JSON.parse(read('tests/data/workloads/team-live-chat.json'));
for (const axis of ['concurrent_users', 'context_tokens', 'batch_size', 'utilization'])
  put('fuzz_sweep', `request-${axis}`, '0', JSON.stringify({ workload: chat, device: 'h100-sxm', axis }));
put('fuzz_sweep', 'request-points', '0', JSON.stringify({ workload: chat, device: 'rtx-4090', axis: 'concurrent_users', points: [1, 2, 64], count: 2 }));
for (const p of list('tests/data/workloads')) put('fuzz_sweep', `workload-${stem(p)}`, '1', read(p));

// fuzz_team: the team as `hwplan team` reads it (no selector byte).
for (const p of list('catalog/scenarios')) {
  const s = JSON.parse(read(p));
  if (s.team) put('fuzz_team', `scenario-${stem(p)}`, '', JSON.stringify(s.team, null, 1));
}
put('fuzz_team', 'two-cards', '', JSON.stringify({ name: 'two', cards: [JSON.parse(pageDefault), JSON.parse(read('tests/data/workloads/support-ticket-finetune.json'))] }));
