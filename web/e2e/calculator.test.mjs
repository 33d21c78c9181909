// End-to-end tests of the calculator in Debian's chromium: load the page,
// move sliders with the keyboard, apply a lever, pick local files, open a
// shared URL with and without JavaScript, embed it. Every figure is checked
// against `vramplan plan --json` for the same input. Screenshots go to
// test-output/e2e/.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, browser, shot, planJSON, cliFlags, figures, planFigures, repo } from './harness.mjs';
import { writeGGUF, writeMmproj } from './gguf.mjs';
import { llamaTensors, writeSharded } from './safetensors.mjs';

const b1 = 'model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096&kv=fp8';
const nofit = 'model=qwen3-coder-30b-a3b-instruct-nvfp4&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=32768';
let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

async function open(query, { api, ...opts } = {}) {
  const ctx = await chrome.newContext(opts);
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.api = [];
  if (api) page.on('request', (r) => { if (new URL(r.url()).pathname.startsWith('/api/')) page.api.push(r.url()); });
  await page.goto(`${server.url}?${query}`);
  if (opts.javaScriptEnabled !== false) await page.waitForSelector('#calc[data-ready="true"]');
  page.errors = errors;
  return page;
}

// queryOf returns the page's state once the URL has caught up with it:
// app.js writes the URL 100 ms after the last input, later on a loaded
// machine, so it waits for the URL to hold still for 300 ms.
async function queryOf(page) {
  await page.waitForTimeout(150);
  let last = page.url();
  for (let still = 0; still < 3; still++) {
    await page.waitForTimeout(100);
    if (page.url() !== last) { last = page.url(); still = -1; }
  }
  return new URL(last).search.slice(1);
}

/**
 * assertMatchesCLI checks the page's figures against the CLI's plan for the
 * page's URL. The URL can be written before a re-plan that waits on a fetch
 * (a new model's shape) is painted, so on a loaded machine it gives the
 * page up to 5 s to show the CLI's figures before it compares them.
 */
async function assertMatchesCLI(page, what) {
  const want = planFigures(planJSON(cliFlags(await queryOf(page))));
  const keys = Object.keys(want);
  let got = await figures(page);
  for (const until = Date.now() + 5000; Date.now() < until && !keys.every((k) => same(got[k], want[k]));) {
    await page.waitForTimeout(100);
    got = await figures(page);
  }
  for (const k of keys) assert.deepEqual(got[k], want[k], `${what}: ${k}`);
}

function same(a, b) {
  try { assert.deepEqual(a, b); return true; } catch { return false; }
}

test('the page loads, plans in wasm and matches the CLI', async () => {
  const page = await open(b1, { api: true });
  await assertMatchesCLI(page, 'server-rendered');
  assert.deepEqual(page.api, [], 'the first plan needs no API request: the page carries its boot data');
  // The warm-up plans other states in idle time; the page still shows this one.
  const shown = await figures(page);
  await page.waitForSelector('#calc[data-warm="true"]');
  assert.deepEqual(await figures(page), shown);
  await page.focus('[data-testid="batch-slider"]');
  await page.keyboard.press('ArrowLeft');
  await assertMatchesCLI(page, 'a move after the warm-up');
  await shot(page, 'page.png', { fullPage: true });
  assert.deepEqual(page.errors, []);
});

test('the first move repaints the server-rendered lists in place', async () => {
  const page = await open(nofit);
  const lists = ['bar', 'legend', 'items-body', 'levers'];
  await page.evaluate((ids) => ids.forEach((id) => { document.querySelector(`[data-testid="${id}"]`).firstElementChild.dataset.server = id; }), lists);
  await page.focus('[data-testid="len-slider"]');
  await page.keyboard.press('ArrowLeft');
  await assertMatchesCLI(page, 'the first move');
  const kept = await page.evaluate((ids) => ids.filter((id) => document.querySelector(`[data-testid="${id}"]`).firstElementChild.dataset.server === id), lists);
  assert.deepEqual(kept, lists, 'lists whose shape did not change are written in place, not rebuilt');
});

test('warnings follow the sliders, as the CLI gives them', async () => {
  const page = await open(b1);
  assert.deepEqual((await figures(page)).warnings, []);
  await page.focus('[data-testid="len-slider"]');
  await page.keyboard.press('End');
  await assertMatchesCLI(page, 'the longest length');
  assert.match((await figures(page)).warnings.join(), /trained context/);
  await page.keyboard.press('Home');
  await assertMatchesCLI(page, 'the shortest length');
  assert.deepEqual((await figures(page)).warnings, []);
});

test('keyboard slider moves re-plan in the page and match the CLI', async () => {
  const page = await open(b1);
  let requests = 0;
  page.on('request', (r) => { if (r.url().includes('/api/')) requests++; });
  await page.focus('[data-testid="len-slider"]');
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight'); // 4 steps per doubling
  await page.focus('[data-testid="batch-slider"]');
  for (let i = 0; i < 24; i++) await page.keyboard.press('ArrowRight');
  await page.selectOption('[data-testid="kv"]', 'q8_0');
  await page.check('[data-testid="graphs"]');
  const q = new URLSearchParams(await queryOf(page));
  assert.equal(q.get('len'), '8192');
  assert.equal(q.get('batch'), '32');
  assert.equal(q.get('kv'), 'q8_0');
  assert.equal(q.get('graphs'), '1');
  assert.equal(await page.getAttribute('[data-testid="len-slider"]', 'aria-valuetext'), '8192');
  assert.equal(requests, 0, 'no server round trip');
  await assertMatchesCLI(page, 'after slider moves');
  await shot(page, 'sliders.png', { fullPage: true });
});

test('choosing another catalog model fetches its shape once and re-plans', async () => {
  const page = await open(b1);
  const shapes = [];
  page.on('request', (r) => { if (r.url().includes('/api/models')) shapes.push(new URL(r.url()).pathname); });
  await page.fill('[data-testid="model"]', 'gemma-3-4b-it-q4_k_m');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('model') === 'gemma-3-4b-it-q4_k_m');
  assert.deepEqual(shapes, ['/api/models/gemma-3-4b-it-q4_k_m']);
  await assertMatchesCLI(page, 'after choosing gemma-3-4b-it-q4_k_m');
});

test('a lever applies and the plan fits', async () => {
  const page = await open(nofit);
  assert.equal(await page.getAttribute('[data-testid="verdict"]', 'data-fits'), 'false');
  await shot(page, 'levers.png', { fullPage: true });
  const lever = page.locator('[data-testid="lever"].fits').first();
  const label = await lever.innerText();
  await lever.click();
  assert.equal(await page.getAttribute('[data-testid="verdict"]', 'data-fits'), 'true', `after "${label}"`);
  assert.notEqual(await queryOf(page), nofit);
  await assertMatchesCLI(page, `after lever "${label}"`);
  await shot(page, 'lever-applied.png', { fullPage: true });
});

test('a shared URL renders the same numbers without JavaScript and with wasm', async () => {
  const shared = 'model=gemma-3-4b-it-q4_k_m&gpu=rtx5090-wsl2-cuda13.3&batch=5&len=6144&cache=fp8&vision=1&spec=3&graphs=1&budget=30000';
  const noJS = await open(shared, { javaScriptEnabled: false });
  const server = await figures(noJS);
  assert.equal(await noJS.isVisible('[data-testid="submit"]'), true, 'the form submits without JS');
  await shot(noJS, 'no-js.png', { fullPage: true });
  const live = await open(shared);
  await live.dispatchEvent('[data-testid="spec"]', 'input'); // repaint from wasm, no change
  assert.deepEqual(await figures(live), server);
  assert.equal(await queryOf(live), shared);
  await assertMatchesCLI(live, 'shared URL');
});

test('a local model-shape file is read in the page, never uploaded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vramplan-e2e-'));
  const shape = JSON.parse(readFileSync(join(repo, 'planner/catalog/models/qwen3-4b-instruct-2507-q8_0.json'), 'utf8'));
  shape.id = 'my-local-model';
  shape.name = 'My local model';
  const file = join(dir, 'model.json');
  writeFileSync(file, JSON.stringify(shape));
  const page = await open(b1);
  let uploads = 0;
  page.on('request', (r) => { if (r.method() !== 'GET') uploads++; });
  await page.setInputFiles('[data-testid="file"]', file);
  await page.waitForFunction(() => document.querySelector('[data-testid="file-status"]').textContent.startsWith('Read'));
  assert.equal(new URLSearchParams(await queryOf(page)).get('model'), 'file:my-local-model');
  const want = planFigures(planJSON(cliFlags((await queryOf(page)).replace('file:my-local-model', encodeURIComponent(file)))));
  const got = await figures(page);
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], k);
  assert.equal(uploads, 0);
  await shot(page, 'local-file.png', { fullPage: true });

  // The same file dropped on the page.
  shape.id = 'my-dropped-model';
  const drop = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
    return dt;
  }, JSON.stringify(shape));
  await page.dispatchEvent('#result', 'drop', { dataTransfer: drop });
  await page.waitForFunction(() => document.querySelector('[data-testid="file-status"]').textContent.startsWith('Read dropped.json'));
  assert.equal(new URLSearchParams(await queryOf(page)).get('model'), 'file:my-dropped-model');
});

// pickAndCompare picks files in the page and checks the plan it shows
// against `vramplan plan --json` with flags for the same files.
async function pickAndCompare(page, files, wantModel, flags) {
  await page.setInputFiles('[data-testid="file"]', files);
  await page.waitForFunction(() => /^(Read|.*: )/.test(document.querySelector('[data-testid="file-status"]').textContent)
    && !document.querySelector('[data-testid="file-status"]').textContent.startsWith('Opening'), null, { timeout: 60000 });
  const st = await page.innerText('[data-testid="file-status"]');
  assert.match(st, /^Read /);
  const q = await queryOf(page);
  assert.equal(new URLSearchParams(q).get('model'), wantModel, st);
  const want = planFigures(planJSON([...cliFlags(q).slice(2), ...flags]));
  const got = await figures(page);
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], `${wantModel}: ${k}`);
}

test('a generated GGUF (and an mmproj) is read in the page and matches the CLI', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vramplan-e2e-'));
  const gguf = join(dir, 'llama-3-8b-q8_0.gguf'), mmproj = join(dir, 'mmproj-f16.gguf');
  writeGGUF(gguf);
  writeMmproj(mmproj);
  const page = await open('model=qwen3-4b-instruct-2507-q8_0&gpu=h200-linux-cuda13.0&batch=8&len=4096');
  const reader = [], uploads = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/gguf.wasm')) reader.push(r.url());
    if (r.method() !== 'GET') uploads.push(r.url());
  });
  await page.waitForTimeout(200);
  assert.equal(reader.length, 0, 'the GGUF reader is not loaded before a file is picked');
  await pickAndCompare(page, gguf, 'file:llama-3-8b-q8_0', ['--model', gguf]);
  assert.equal(reader.length, 1);
  await shot(page, 'gguf.png', { fullPage: true });
  await pickAndCompare(page, [gguf, mmproj], 'file:llama-3-8b-q8_0', ['--model', gguf, '--mmproj', mmproj]);
  assert.equal(await page.isChecked('[data-testid="vision"]'), true, 'an mmproj turns the vision tower on');
  assert.ok(+(await page.innerText('[data-testid="item-vision_tower"] [data-testid="item-mib"]')).replaceAll(',', '') > 0, 'the tower is charged');
  assert.deepEqual(uploads, []);
  assert.deepEqual(page.errors, []);
});

test('a config.json, alone and with safetensors shards, is read in the page and matches the CLI', async () => {
  const cfg = readFileSync(join(repo, 'planner/hf/testdata/configs/meta-llama__Llama-3.2-1B-Instruct.json'), 'utf8');
  const alone = mkdtempSync(join(tmpdir(), 'vramplan-e2e-'));
  const sharded = mkdtempSync(join(tmpdir(), 'vramplan-e2e-'));
  for (const d of [alone, sharded]) writeFileSync(join(d, 'config.json'), cfg);
  const shards = writeSharded(sharded, llamaTensors(JSON.parse(cfg)), 2);
  const page = await open('model=qwen3-4b-instruct-2507-q8_0&gpu=h200-linux-cuda13.0&batch=4&len=16384&kv=fp8');
  await pickAndCompare(page, join(alone, 'config.json'), 'file:local-llama', ['--model', join(alone, 'config.json')]);
  const formula = await page.innerText('[data-testid="item-weights"] [data-testid="item-mib"]');
  await pickAndCompare(page, [join(sharded, 'config.json'), join(sharded, 'model.safetensors.index.json'),
    ...shards.map((n) => join(sharded, n))], 'file:local-llama', ['--model', join(sharded, 'config.json')]);
  assert.match(await page.innerText('[data-testid="item-weights"]'), /exact/);
  assert.equal(await page.innerText('[data-testid="item-weights"] [data-testid="item-mib"]'), formula, 'bf16 tensors: the formula was right');
  await page.setInputFiles('[data-testid="file"]', [join(sharded, 'config.json'), join(sharded, 'model.safetensors.index.json')]);
  await page.waitForFunction(() => /not picked/.test(document.querySelector('[data-testid="file-status"]').textContent));
  await shot(page, 'config.png', { fullPage: true });
});

test('phone width: no sideways scroll, verdict in view', async () => {
  const page = await open(nofit, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
  assert.ok(await page.locator('[data-testid="verdict"]').isVisible());
  await shot(page, 'phone.png');
  await shot(page, 'phone-full.png', { fullPage: true });
});

test('the docs page embeds an iframe and a <vram-calculator> that match the CLI', async () => {
  const ctx = await chrome.newContext();
  const page = await ctx.newPage();
  await page.goto(`${server.url}docs`);
  const frame = page.frameLocator('[data-testid="embed-iframe"]');
  await frame.locator('#calc[data-ready="true"]').waitFor();
  const wc = page.locator('vram-calculator[data-ready="true"]');
  await wc.waitFor();
  const slider = wc.locator('[data-testid="wc-batch"]');
  await slider.focus();
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  const link = new URL(await wc.locator('[data-testid="wc-link"]').getAttribute('href'));
  const want = planFigures(planJSON(cliFlags(link.search.slice(1))));
  assert.equal(new URLSearchParams(link.search).get('batch'), '4'); // from the default, 0, the planner's (as many as fit)
  assert.equal(await wc.locator('[data-testid="wc-total"]').innerText(), want.total);
  assert.equal(await wc.locator('[data-testid="wc-max-seqs"]').innerText(), want.maxSeqs);
  assert.equal(await frame.locator('[data-testid="total-mib"]').innerText(), String(planFigures(planJSON(cliFlags(
    new URL(await page.getAttribute('[data-testid="embed-iframe"]', 'src'), server.url).search.slice(1)))).total));
  await shot(page, 'docs.png', { fullPage: true });
});
