// The model-file reader's WebAssembly under Node: web/static/reader.js loads
// web/static/dist/gguf.wasm (built by `make wasm`) and reads Blobs as a
// browser reads picked Files: a generated GGUF and a config.json with its
// safetensors headers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, mkdtemp } from 'node:fs/promises';
import { openAsBlob } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadReader } from '../web/static/reader.js';
import { writeGGUF, writeMmproj } from '../web/e2e/gguf.mjs';
import { llamaTensors, writeSafetensors } from '../web/e2e/safetensors.mjs';

const root = new URL('..', import.meta.url);
const reader = await loadReader(() => readFile(new URL('web/static/dist/gguf.wasm', root)));
const dir = await mkdtemp(join(tmpdir(), 'vramplan-gguf-'));
const file = async (path, name) => new File([await openAsBlob(path)], name);
const small = { layers: 4, hidden: 512, ffn: 1024, heads: 8, kvHeads: 2, vocab: 1000, merges: 100, context: 2048 };

test('read gives the shape of a GGUF held in a File', async () => {
  const path = join(dir, 'Small-Q8_0.gguf');
  const { size } = writeGGUF(path, small);
  const m = JSON.parse(await reader.read(await file(path, 'Small-Q8_0.gguf')));
  assert.equal(m.id, 'small-q8_0');
  assert.equal(m.arch, 'llama');
  assert.deepEqual(m.layers, [{ count: 4, kind: 'full', kv_heads: 2, key_dim: 64, value_dim: 64 }]);
  assert.equal(m.vocab_size, 1000);
  assert.equal(m.weights.source, 'exact');
  assert.ok(m.weights.bytes > 0 && m.weights.bytes < size, `${m.weights.bytes} bytes of weights in a ${size}-byte file`);
  assert.deepEqual(JSON.parse(await reader.read([await file(path, 'Small-Q8_0.gguf')])), m, 'a list of one file');
});

test('read takes an mmproj file as the vision tower', async () => {
  const model = join(dir, 'vision.gguf'), mmproj = join(dir, 'mmproj-f16.gguf');
  writeGGUF(model, small);
  const { tensorBytes } = writeMmproj(mmproj);
  const m = JSON.parse(await reader.read([await file(model, 'vision.gguf')], await file(mmproj, 'mmproj-f16.gguf')));
  assert.deepEqual(m.vision, { bytes: tensorBytes, source: 'exact', image_tokens: 256, image_size: 896 });
  await assert.rejects(reader.read(await file(mmproj, 'mmproj-f16.gguf')), /vision projector \(mmproj\)/);
});

test('readConfig reads a config.json, then its safetensors headers', async () => {
  const cfgPath = new URL('planner/hf/testdata/configs/meta-llama__Llama-3.2-1B-Instruct.json', root);
  const cfg = JSON.parse(await readFile(cfgPath, 'utf8'));
  const config = new File([JSON.stringify(cfg)], 'config.json');
  const m = JSON.parse(await reader.readConfig(config));
  assert.equal(m.weights.source, 'formula');
  assert.equal(m.weights.bytes, 2471628800); // 1,235,814,400 parameters in bf16
  const st = join(dir, 'model.safetensors');
  const bytes = writeSafetensors(st, llamaTensors(cfg));
  const exact = JSON.parse(await reader.readConfig(config, [await file(st, 'model.safetensors')]));
  assert.equal(exact.weights.source, 'exact');
  assert.equal(exact.weights.bytes, bytes);
});

test('bad files and bad calls reject with Errors; the module survives', async () => {
  await assert.rejects(reader.read(new File(['GGUF\x03\0\0\0'], 'short.gguf')), /vramplanGGUF\.read: short\.gguf: /);
  await assert.rejects(reader.read(), /argument 1 \(GGUF files\) is missing/);
  await assert.rejects(reader.read(42), /must be a File/);
  await assert.rejects(reader.read({ length: 1 }), /item 0 is not a File/);
  await assert.rejects(reader.read([new File([''], 'a-00001-of-00002.gguf')]), /pick all of them/);
  await assert.rejects(reader.readConfig(new File(['{"model_type":"llama"}'], 'config.json')), /config\.json: /);
  await assert.rejects(reader.readConfig(new File(['{}'], 'config.json'), [new File([''], 'model.safetensors.index.json')]), Error);
  const path = join(dir, 'again.gguf');
  writeGGUF(path, small);
  assert.equal(JSON.parse(await reader.read(await file(path, 'again.gguf'))).id, 'again');
});

test('checkCalibration checks a calibration as the server checks an upload, naming each field it refuses', async () => {
  const measured = JSON.parse(await readFile(new URL('calibrations/h200-linux-cuda13.0.json', root), 'utf8'));
  const good = JSON.parse(reader.checkCalibration(JSON.stringify(measured)));
  assert.equal(good.ok, true);
  assert.equal(good.group, 'h200-140gib-linux-r580-cuda13.0');
  assert.match(good.id, /^[0-9a-f]{20}$/);
  assert.equal(good.calibration.context_bytes, measured.context_bytes);
  const refused = (doc) => JSON.parse(reader.checkCalibration(doc));
  const bad = refused(JSON.stringify({ ...measured, vmm: { ...measured.vmm, granularity_bytes: 3000000 } }));
  assert.equal(bad.ok, false);
  assert.deepEqual(bad.reasons.map((r) => r.field), ['vmm.granularity_bytes']);
  assert.equal(refused(JSON.stringify({ ...measured, context_bytes: 1e30 })).reasons[0].field, 'context_bytes');
  assert.equal(refused(JSON.stringify({ ...measured, gpu: '<script>x</script>' })).reasons[0].field, 'gpu');
  assert.equal(refused(JSON.stringify({ ...measured, extra: 1 })).reasons[0].field, 'extra');
  assert.equal(refused(JSON.stringify(measured).replace('"gpu":', '"GPU":"x","gpu":')).reasons[0].field, 'gpu');
  assert.equal(refused('{{').ok, false);
  assert.ok(reader.checkCalibration(42) instanceof Error, 'a number is not a document');
});

test('checkObservation checks an engine observation as the server does', async () => {
  const grid = new URL('planner/testdata/engines/llamacpp-h200/', root);
  const log = (await Promise.all(['logs/dense/load.log', 'logs/dense/4096_1_0_f16_f16_1_512_0.log']
    .map((f) => readFile(new URL(f, grid), 'utf8')))).join('');
  const model = await readFile(new URL('models/dense-llama3-8b.json', grid), 'utf8');
  const cal = await readFile(new URL('calibrations/h200-linux-cuda13.0.json', root), 'utf8');
  const built = JSON.parse(reader.observeLog(log, model, cal, { version: 'b12072', day: '2026-11-30' }));
  assert.equal(built.ok, true, JSON.stringify(built.reasons));
  assert.doesNotMatch(built.document, /\/tmp|\.gguf/);
  const again = JSON.parse(reader.checkObservation(built.document));
  assert.deepEqual([again.ok, again.id, again.document], [true, built.id, built.document]);
  const bad = JSON.parse(reader.checkObservation(built.document.replace('"day":', '"hostname": "gpu-7", "day":')));
  assert.deepEqual([bad.ok, bad.reasons[0].field], [false, 'hostname']);
  assert.ok(reader.checkObservation(42) instanceof TypeError);
  assert.equal(JSON.parse(reader.observeLog(log, model, cal, {})).reasons[0].field, 'engine_version');
});

test('parseLog reads a log for the planner module; checkConflicts says what it contradicts of the selection', async () => {
  const grid = new URL('planner/testdata/engines/llamacpp-h200/', root);
  const log = (await Promise.all(['logs/dense/load.log', 'logs/dense/4096_1_0_f16_f16_1_512_0.log']
    .map((f) => readFile(new URL(f, grid), 'utf8')))).join('');
  const model = await readFile(new URL('models/dense-llama3-8b.json', grid), 'utf8');
  const cal = await readFile(new URL('calibrations/h200-linux-cuda13.0.json', root), 'utf8');
  const parsed = JSON.parse(reader.parseLog(log));
  assert.equal(parsed.engine, 'llama.cpp');
  assert.ok(parsed.figures.some((f) => f.key === 'weights'));
  assert.match(reader.parseLog('nothing an engine printed\n').message, /^vramplanGGUF\.parseLog: no memory figures/);
  assert.ok(reader.parseLog(42) instanceof TypeError);
  const check = JSON.stringify({ rows: [] }); // no plan: only the engine and the GPU can be judged
  assert.deepEqual(JSON.parse(reader.checkConflicts(log, model, cal, 'llama.cpp', check)), []);
  assert.match(JSON.parse(reader.checkConflicts(log, model, cal, 'sglang', check))[0], /^The log is llama\.cpp's, and the engine selected is sglang/);
  const rows = JSON.stringify({ rows: [{ key: 'weights', plan_bytes: 40 * 2 ** 30, log_bytes: 15 * 2 ** 30 }] });
  assert.match(JSON.parse(reader.checkConflicts(log, model, cal, '', rows))[0], /^The log's model weights are 15,360 MiB \(15 GiB\), and .* the log is of another model/);
  const refused = JSON.parse(reader.observeLog(log, model, cal, { version: 'b12072', day: '2026-11-30', check: rows }));
  assert.equal(refused.ok, false);
  assert.match(refused.reasons[0].reason, /^The log's model weights/);
});

test('checkAssumptions says what a check assumed, the deciding ones first', async () => {
  const log = await readFile(new URL('planner/enginelog/testdata/logs/vllm-v1-l40s-llama31-8b.log', root), 'utf8');
  const model = await readFile(new URL('planner/testdata/engines/llamacpp-h200/models/dense-llama3-8b.json', root), 'utf8');
  const cal = await readFile(new URL('calibrations/h200-linux-cuda13.0.json', root), 'utf8');
  const check = JSON.stringify({ rows: [], version: 'vLLM 0.22 (V1 engine)', fraction: 0.92 });
  const got = JSON.parse(reader.checkAssumptions(log, model, cal, check));
  assert.deepEqual(got.map((a) => [a.fact, a.decides]).slice(0, 2), [['utilization', true], ['engine_version', false]]);
  assert.match(got[0].text, /^The log states no gpu_memory_utilization: planned at 0\.92\. .* give --gpu-memory-utilization/);
  assert.ok(reader.checkAssumptions(log, model, cal) instanceof TypeError);
  assert.match(reader.checkAssumptions(log, model, cal, '{').message, /^vramplanGGUF\.checkAssumptions: check: /);
});
