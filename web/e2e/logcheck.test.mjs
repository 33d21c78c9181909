// End-to-end test of the log paste box in Debian's chromium: a real
// llama-server start-up log from the H200 grid, pasted into the page with
// the model it loaded picked from its file, is read and planned in the
// browser, and the page shows the rows and the launch command that
// `vramplan check --log --json` gives for the same log, model and GPU.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, browser, repo, bin, shot } from './harness.mjs';

const grid = join(repo, 'planner/testdata/engines/llamacpp-h200');
const model = join(grid, 'models/swa-gemma3-4b.json');
const gpu = 'h200-linux-cuda13.0';
let server, chrome;

const dbDir = mkdtempSync(join(tmpdir(), 'logcheck-db-'));
before(async () => { [server, chrome] = await Promise.all([serve(['--db', join(dbDir, 'e2e.db')]), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

test('a pasted llama-server log is checked in the page as the CLI checks it', async () => {
  const log = ['logs/swa/load.log', 'logs/swa/32768_4_1_f16_f16_0_512_0.log'].map((f) => readFileSync(join(grid, f), 'utf8')).join('');
  const file = join(mkdtempSync(join(tmpdir(), 'logcheck-')), 'llama-server.log');
  writeFileSync(file, log);
  const want = JSON.parse(execFileSync(bin, ['check', '--log', file, '--model', model, '--gpu', gpu, '--json'], { encoding: 'utf8' }));

  const page = await chrome.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}?gpu=${gpu}&engine=llama.cpp`);
  await page.waitForSelector('#calc[data-ready="true"]');
  await page.setInputFiles('[data-testid="file"]', model);
  await page.waitForFunction(() => document.querySelector('[data-testid="file-status"]').textContent.startsWith('Read'));

  await page.click('[data-testid="log-check"] summary');
  await page.fill('[data-testid="log-text"]', log);
  await page.click('[data-testid="log-check-button"]');
  await page.waitForSelector('[data-testid="log-rows"]:not([hidden])');
  assert.match(await page.innerText('[data-testid="log-status"]'), /^llama\.cpp log, planned as llama\.cpp b12072/);
  const rows = await page.$$eval('[data-testid="log-rows"] tbody tr', (trs) => trs.map((tr) => [tr.dataset.key, ...[...tr.cells].map((td) => td.textContent)]));
  const mib = (b) => (b / 2 ** 20).toFixed(2);
  assert.deepEqual(rows, want.rows.map((r) => [r.key, r.name, mib(r.plan_bytes), mib(r.log_bytes),
    (r.residual_bytes >= 0 ? '+' : '') + mib(r.residual_bytes), r.within_resolution ? "within the log's rounding" : '']));
  assert.ok(rows.filter((r) => r[5]).length >= 2, 'model and KV buffers within the log\'s rounding');
  // The page names a model read from a local file file:<id>, in the launch command as everywhere.
  assert.equal(await page.innerText('[data-testid="log-launch"]'), want.plan.engine.launch.replace(' -m swa-gemma3-4b ', ' -m file:swa-gemma3-4b '));
  await shot(page, 'logcheck.png', { fullPage: true });

  await page.fill('[data-testid="log-text"]', 'nothing an engine printed\n');
  await page.click('[data-testid="log-check-button"]');
  assert.match(await page.innerText('[data-testid="log-status"]'), /^Could not check the log: /);
  assert.equal(await page.isHidden('[data-testid="log-rows"]'), true);
  assert.deepEqual(errors, []);
});

test('the checked log is uploaded from the page as the observation the CLI writes', async () => {
  const log = ['logs/swa/load.log', 'logs/swa/32768_1_0_f16_f16_0_512_0.log'].map((f) => readFileSync(join(grid, f), 'utf8')).join('');
  const dir = mkdtempSync(join(tmpdir(), 'observe-'));
  const file = join(dir, 'llama-server.log'), obs = join(dir, 'obs.json');
  writeFileSync(file, log);
  execFileSync(bin, ['check', '--log', file, '--model', model, '--gpu', gpu, '--engine-version', 'b12072',
    '--day', new Date().toISOString().slice(0, 10), '--observation', obs], { encoding: 'utf8', stdio: 'pipe' });
  const want = readFileSync(obs, 'utf8');

  const page = await chrome.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}?gpu=${gpu}&engine=llama.cpp`);
  await page.waitForSelector('#calc[data-ready="true"]');
  await page.setInputFiles('[data-testid="file"]', model);
  await page.waitForFunction(() => document.querySelector('[data-testid="file-status"]').textContent.startsWith('Read'));
  await page.click('[data-testid="log-check"] summary');
  await page.fill('[data-testid="log-text"]', log);
  await page.click('[data-testid="log-check-button"]');
  await page.waitForSelector('[data-testid="log-observe"]:not([hidden])');

  // The release field shows an example of the log's engine's own form.
  assert.equal(await page.getAttribute('[data-testid="log-version"]', 'placeholder'), 'such as b12072');
  // This log states no release: the page says so by field, as the server would, and sends nothing.
  await page.click('[data-testid="log-observe-button"]');
  await page.waitForSelector('[data-testid="log-observe-reasons"] li[data-field="engine_version"]');
  assert.equal(await page.isHidden('[data-testid="log-upload-button"]'), true);

  await page.fill('[data-testid="log-version"]', 'b12072');
  await page.click('[data-testid="log-observe-button"]');
  await page.waitForSelector('[data-testid="log-upload-button"]:not([hidden])');
  assert.equal(await page.innerText('[data-testid="log-observe-document"]'), want, 'the page shows the document the CLI writes');
  await page.click('[data-testid="log-upload-button"]');
  await page.waitForFunction(() => /^(accepted|held|Refused)/.test(document.querySelector('[data-testid="log-upload-status"]').textContent));
  const status = await page.innerText('[data-testid="log-upload-status"]');
  assert.match(status, /^accepted: observation [0-9a-f]{20}\. Deletion token .*: \S{24}$/);
  const id = status.split(' ')[2].replace('.', '');
  const listed = await (await fetch(`${server.url}api/observations`)).json();
  assert.deepEqual(listed.observations.map((o) => [o.id, o.status]), [[id, 'accepted']]);
  assert.equal(JSON.stringify(listed.observations[0].observation), JSON.stringify(JSON.parse(want)));

  await page.click('[data-testid="log-upload-button"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="log-upload-status"]').textContent.startsWith('Already'));
  assert.equal(await page.innerText('[data-testid="log-upload-status"]'), `Already uploaded: observation ${id} (accepted).`);
  await shot(page, 'logcheck-upload.png', { fullPage: true });
  assert.deepEqual(errors, []);
});

test('a log checked against another model, or under another engine, says so first and offers no upload', async () => {
  const log = ['logs/swa/load.log', 'logs/swa/32768_4_1_f16_f16_0_512_0.log'].map((f) => readFileSync(join(grid, f), 'utf8')).join('');
  const page = await chrome.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // The page's default model, not the Gemma 3 4B the log loaded.
  await page.goto(`${server.url}?gpu=${gpu}&engine=llama.cpp`);
  await page.waitForSelector('#calc[data-ready="true"]');
  await page.click('[data-testid="log-check"] summary');
  await page.fill('[data-testid="log-text"]', log);
  await page.click('[data-testid="log-check-button"]');
  await page.waitForSelector('[data-testid="log-rows"]:not([hidden])');
  await page.waitForSelector('[data-testid="log-conflicts"] li');
  const conflicts = await page.locator('[data-testid="log-conflicts"] li').allInnerTexts();
  assert.equal(conflicts.length, 1, `conflicts: ${conflicts}`);
  assert.match(conflicts[0], /^The log's model weights are [\d,]+ MiB, and .+'s are [\d,]+ MiB( \([\d.]+ GiB\))?: the log is of another model\. It loaded swa-gemma3-4b\.gguf; pick that model\.$/);
  const [first, status] = await page.evaluate(() => {
    const box = document.querySelector('[data-testid="log-check"]');
    const shown = [...box.querySelectorAll('[data-testid="log-conflicts"], [data-testid="log-status"], [data-testid="log-rows"]')];
    return [shown[0].dataset.testid, box.querySelector('[data-testid="log-status"]').textContent];
  });
  assert.equal(first, 'log-conflicts', 'the contradiction is said before the rows');
  assert.match(status, /^Not the selected setup: /);
  assert.equal(await page.isHidden('[data-testid="log-observe"]'), true, 'no upload is offered from a contradiction');
  await shot(page, 'logcheck-conflict.png', { fullPage: true });

  // The reader module refuses to build one, whatever the page shows.
  const refused = JSON.parse(await page.evaluate(async (text) => {
    const { loadReader } = await import('/static/reader.js');
    const m = document.getElementById('boot').textContent;
    const { model, calibrations } = JSON.parse(m);
    const check = document.querySelector('[data-testid="log-check"]').vramplanCheck; // what the page sends: the check's answer
    return (await loadReader()).observeLog(text, JSON.stringify(model), JSON.stringify(calibrations.find((c) => c.id === 'h200-linux-cuda13.0')),
      { version: 'b12072', day: '2026-12-01', engine: 'llama.cpp', check });
  }, log));
  assert.equal(refused.ok, false);
  assert.match(refused.reasons[0].reason, /^The log's model weights are /);
  assert.equal(refused.document, undefined, 'no document to send');

  // The model the log loaded, under another engine: the engine is the contradiction.
  await page.setInputFiles('[data-testid="file"]', model);
  await page.waitForFunction(() => document.querySelector('[data-testid="file-status"]').textContent.startsWith('Read'));
  await page.selectOption('[data-testid="engine-picker"]', 'vllm');
  await page.click('[data-testid="log-check-button"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="log-conflicts"] li').length === 1 &&
    document.querySelector('[data-testid="log-conflicts"] li').textContent.startsWith("The log is llama.cpp's"));
  await page.selectOption('[data-testid="engine-picker"]', 'llama.cpp');
  await page.click('[data-testid="log-check-button"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="log-conflicts"] li').length === 0);
  assert.equal(await page.isHidden('[data-testid="log-observe"]'), false, 'the log\'s own setup: an upload is offered');
  assert.deepEqual(errors, []);
});

test('an H200\'s log checked on an L4, which holds its charges, is of another GPU: said first, no upload offered, as the CLI refuses it', async () => {
  const log = ['logs/swa/load.log', 'logs/swa/32768_4_1_f16_f16_0_512_0.log'].map((f) => readFileSync(join(grid, f), 'utf8')).join('');
  const want = 'The log ran on the NVIDIA H200, with 143,155 MiB (139.8 GiB), and the NVIDIA L4 selected has 22,559 MiB (22 GiB): the log is of another GPU.';
  const page = await chrome.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}?gpu=est-l4-linux&engine=llama.cpp`);
  await page.waitForSelector('#calc[data-ready="true"]');
  await page.setInputFiles('[data-testid="file"]', model);
  await page.waitForFunction(() => document.querySelector('[data-testid="file-status"]').textContent.startsWith('Read'));
  await page.click('[data-testid="log-check"] summary');
  await page.fill('[data-testid="log-text"]', log);
  await page.click('[data-testid="log-check-button"]');
  await page.waitForSelector('[data-testid="log-conflicts"] li');
  assert.deepEqual(await page.locator('[data-testid="log-conflicts"] li').allInnerTexts(), [want]);
  assert.match(await page.innerText('[data-testid="log-status"]'), /^Not the selected setup: /);
  assert.equal(await page.isHidden('[data-testid="log-observe"]'), true, 'no upload is offered from a contradiction');
  assert.doesNotMatch(await page.locator('[data-testid="log-assumed"]').innerText(), /names no GPU/);
  const file = join(mkdtempSync(join(tmpdir(), 'logcheck-')), 'llama-server.log');
  writeFileSync(file, log);
  let refused;
  try {
    execFileSync(bin, ['check', '--log', file, '--model', model, '--gpu', 'est-l4-linux', '--engine-version', 'b12072', '--observation', join(tmpdir(), 'never.json')],
      { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) { refused = e; }
  assert.equal(refused?.status, 2, 'the CLI builds no observation from it');
  assert.ok(refused.stderr.includes(want), refused.stderr);
  assert.deepEqual(errors, []);
});
