// The planner's WebAssembly bridge under Node: web/static/bridge.js loads
// web/static/dist/planner.wasm (built by `make wasm`) and its functions are
// checked against the golden plan documents the native planner wrote.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { load } from '../web/static/bridge.js';

const root = new URL('..', import.meta.url);
const read = (p) => readFile(new URL(p, root), 'utf8');
const api = await load(() => readFile(new URL('web/static/dist/planner.wasm', root)));

test('plan reproduces the golden plan documents byte for byte', async () => {
  for (const name of ['b1-qwen3-4b-fp8', 'a43-example']) {
    const input = await read(`planner/testdata/golden/${name}.input.json`);
    assert.equal(api.plan(input), await read(`planner/testdata/golden/${name}.plan.json`), name);
  }
});

test('frontier falls as the batch grows', async () => {
  const input = await read('planner/testdata/golden/b1-qwen3-4b-fp8.input.json');
  const pts = JSON.parse(api.frontier(input, 8));
  assert.equal(pts.length, 8);
  assert.deepEqual(pts[0], { batch: 1, max_seq_len: pts[0].max_seq_len });
  for (let i = 1; i < pts.length; i++) assert.ok(pts[i].max_seq_len <= pts[i - 1].max_seq_len);
});

test('the query parser is the server one', () => {
  const q = 'model=meta-llama%2FLlama-3.1-8B&gpu=h200&batch=1&len=131072&kv=fp8&cache=nvfp4&vision=1&spec=4&graphs=1&budget=30720';
  const s = JSON.parse(api.parseQuery(q));
  assert.equal(s.model, 'meta-llama/Llama-3.1-8B');
  assert.equal(s.budget, 30720 * 2 ** 20);
  assert.equal(api.encodeState(JSON.stringify(s)), q);
  assert.equal(api.lenAt(16), 4096);
  assert.equal(api.lenIndex(4096), 16);
});

test('calculate passes the model and calibration only when they change, so callers can take turns', async () => {
  const [a, b] = await Promise.all(['b1-qwen3-4b-fp8', 'a43-example'].map(async (n) => JSON.parse(await read(`planner/testdata/golden/${n}.input.json`))));
  const docs = (x) => [JSON.stringify(x.model), JSON.stringify(x.calibration)]; // new strings, equal values
  const q = 'batch=8&len=4096';
  const va = api.calculate(q, ...docs(a));
  const vb = api.calculate(q, ...docs(b));
  assert.notEqual(va, vb);
  for (let i = 0; i < 3; i++) {
    assert.equal(api.calculate(q, ...docs(a)), va);
    assert.equal(api.calculate(q, ...docs(a)), va);
    assert.equal(api.calculate(q, ...docs(b)), vb);
  }
  // A call that fails on its query leaves the module holding what it held.
  assert.throws(() => api.calculate('batch=many', ...docs(a)), /batch/);
  assert.equal(api.calculate(q, ...docs(a)), va);
  assert.equal(api.calculate(q, ...docs(b)), vb);
});

test('gpus answers every calibration, taking turns with calculate over the model they share', async () => {
  const [a, b] = await Promise.all(['b1-qwen3-4b-fp8', 'a43-example'].map(async (n) => JSON.parse(await read(`planner/testdata/golden/${n}.input.json`))));
  const cals = JSON.stringify([a.calibration, b.calibration]);
  const q = 'batch=1&len=4096';
  const ta = api.gpus(q, JSON.stringify(a.model), cals);
  const rows = JSON.parse(ta).rows;
  assert.deepEqual(rows.map((r) => r.id).sort(), [a.calibration.id, b.calibration.id].sort());
  const vb = api.calculate(q, JSON.stringify(b.model), JSON.stringify(b.calibration)); // the module now holds b's model
  assert.equal(api.gpus(q, JSON.stringify(a.model), cals), ta, 'gpus passes its model again once calculate changed it');
  assert.equal(api.calculate(q, JSON.stringify(b.model), JSON.stringify(b.calibration)), vb, 'and calculate its own');
  assert.throws(() => api.gpus('gsort=speed', JSON.stringify(a.model), cals), (e) => e.field === 'gsort' && /sorted by/.test(e.message));
  assert.equal(JSON.parse(api.gpus(`${q}&gsort=gpu`, JSON.stringify(a.model), cals)).columns.find((c) => c.key === 'gpu').aria, 'ascending');
});

test('calculate gives the plan document figures', async () => {
  const input = JSON.parse(await read('planner/testdata/golden/b1-qwen3-4b-fp8.input.json'));
  const plan = JSON.parse(await read('planner/testdata/golden/b1-qwen3-4b-fp8.plan.json'));
  const v = JSON.parse(api.calculate('batch=8&len=4096&kv=fp8&block=16', JSON.stringify(input.model), JSON.stringify(input.calibration)));
  assert.equal(v.total_mib, Math.floor(plan.total_bytes / 2 ** 20));
  assert.equal(v.fits, plan.fits);
  assert.deepEqual(v.items.map((i) => i.mib), plan.items.map((i) => Math.floor(i.bytes / 2 ** 20)));
  assert.equal(v.query, `model=${input.model.id}&gpu=${input.calibration.id}&batch=8&len=4096&kv=fp8`);
  const again = JSON.parse(api.calculate('batch=8&len=4096&kv=fp8&block=16')); // the module kept the model
  assert.deepEqual(again, v);
});

test('errors and panics come back as JavaScript errors', () => {
  assert.throws(() => api.plan('{"limits":{"max_seq_len":-1}}'), /vramplan\.plan: /);
  assert.throws(() => api.parseQuery('len=lots'), (e) => e.field === 'len');
  assert.throws(() => api.plan(42), /must be a string/);
  assert.throws(() => api.lenAt(), /panic/); // an index out of range, recovered
  assert.throws(() => api.parseModel('{"id":"x","layers":[]}'), Error);
  assert.ok(api.lenAt(0) === 256, 'the module survives a panic');
});
