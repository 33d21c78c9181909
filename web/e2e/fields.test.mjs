// End-to-end tests of the calculator's fields and figures as a newcomer
// reads them (issue #12, "Smaller, all expected"): figures with thousands
// separators and GiB, a budget typed with a unit, the bar's label and a
// result that does not re-announce itself on every slider step, empty and
// zero batch fields, the unmeasured CUDA-graph pool, a GGUF and a
// config.json picked together, the stale result dimmed while a model is
// fetched, and the page without JavaScript. Every figure is checked
// against `vramplan plan --json` for the same input.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, browser, shot, planJSON, cliFlags, figures, planFigures, group, mib, repo, settled } from './harness.mjs';
import { writeGGUF } from './gguf.mjs';

let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

const h200 = 'model=qwen3-8b-q8_0&gpu=h200-linux-cuda13.0&batch=8&len=4096';

async function open(query, opts = {}) {
  const ctx = await chrome.newContext(opts);
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${server.url}?${query}`);
  if (opts.javaScriptEnabled !== false) await page.waitForSelector('#calc[data-ready="true"]');
  return page;
}

const shown = (page, id) => page.locator(`[data-testid="${id}"]`).first().innerText();

async function matchesCLI(page, flags, what) {
  const want = planFigures(planJSON(flags));
  const got = await figures(page);
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], `${what}: ${k}`);
  return want;
}

test('figures have thousands separators, and GiB beside long MiB figures', async () => {
  const page = await open(h200);
  const plan = planJSON(cliFlags(h200));
  await matchesCLI(page, cliFlags(h200), 'server-rendered');
  assert.match(await shown(page, 'budget-mib'), /^\d{1,3}(,\d{3})+$/);
  assert.equal(await shown(page, 'budget-gib'), `(${(mib(plan.budget_bytes) / 1024).toFixed(1)} GiB)`);
  assert.match(await shown(page, 'verdict'), /^Under (Linux|WSL2): Fits in the \d{1,3}(,\d{3})+ MiB \([\d.]+ GiB\) budget with \d{1,3}(,\d{3})+ MiB \([\d.]+ GiB\) to spare\.$/);
  await page.focus('[data-testid="len-slider"]');
  for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowRight'); // 16384 tokens
  const q = await settled(page);
  assert.match(q, /len=16384/);
  await matchesCLI(page, cliFlags(q), 'painted in the page');
  assert.match(await shown(page, 'subject'), /· 16,384 tokens ·/);
  assert.match(await shown(page, 'max-len'), /^\d{1,3}(,\d{3})+$/);
  const legend = await page.locator('[data-testid="legend"] li').allInnerTexts();
  assert.ok(legend.every((l) => /^[\w ]+ \d{1,3}(,\d{3})* MiB( \([\d.]+ GiB\))?$/.test(l)), `legend: ${legend}`);
  assert.deepEqual(page.errors, []);
});

test('the budget field takes a size with a unit, as the CLI does, and says how it read it', async () => {
  const page = await open(h200);
  assert.match(await shown(page, 'budget-note'), /^Empty: the whole of this GPU, [\d,]+ MiB \([\d.]+ GiB\)\.$/);
  for (const [typed, cli, note] of [
    ['24GiB', '24GiB', /^Read as 24,576 MiB \(24 GiB\)\.$/],
    ['24 gib', '24GiB', /^Read as 24,576 MiB/],
    ['24gb', '24GB', /^Read as 24 GB, in decimal units \(1 GB = 10⁹ bytes\): 22,888 MiB \(22\.4 GiB\)\./],
    ['24 GB', '24GB', /^Read as 24 GB, in decimal units/],
    ['30,000', '30000MiB', /^Read as 30,000 MiB \(29\.3 GiB\)\.$/],
    ['24', '24MiB', /a bare number is MiB; write 24GiB for GiB\.$/],
  ]) {
    await page.fill('[data-testid="budget"]', typed);
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('[data-testid="budget-note"]').textContent), note.source);
    const q = await settled(page);
    const flags = [...cliFlags(q).filter((f, i, a) => f !== '--budget' && a[i - 1] !== '--budget'), '--budget', cli];
    const want = await matchesCLI(page, flags, `budget ${typed}`);
    assert.equal(await page.locator('[data-testid="budget-slider"]').inputValue(),
      String(Math.min(Math.round(+want.budget.replaceAll(',', '') / 256) * 256, +(await page.getAttribute('[data-testid="budget-slider"]', 'max')))),
      `budget ${typed}: the slider follows the figure read`);
    if (typed === '24gb') {
      assert.match(q, /budget=24GB/, 'the URL holds the decimal unit');
      await shot(page, 'budget-decimal.png');
      const again = await open(q); // a shared link says the same
      assert.match(await shown(again, 'budget-note'), note);
      assert.equal(await again.locator('[data-testid="budget"]').inputValue(), '24GB');
      await again.context().close();
    }
  }
  await page.fill('[data-testid="budget"]', '1,5 GB');
  assert.match(await shown(page, 'error'), /^Budget: invalid size "1,5 GB"/);
  assert.deepEqual(page.errors, []);
});

test('the bar says its figures; the result announces the verdict once the input settles', async () => {
  const page = await open(h200);
  const label = await page.getAttribute('[data-testid="bar"]', 'aria-label');
  assert.match(label, /^memory by tier: driver [\d,]+ MiB, T2 engine [\d,]+ MiB.*; total [\d,]+ of the [\d,]+ MiB \([\d.]+ GiB\) budget$/);
  assert.equal(await page.getAttribute('[data-testid="result"]', 'aria-live'), null, 'the result region is not live');
  await page.evaluate(() => {
    const box = document.querySelector('[data-testid="announce"]');
    window.announced = [];
    new MutationObserver(() => window.announced.push(box.textContent)).observe(box, { childList: true, characterData: true, subtree: true });
  });
  await page.focus('[data-testid="batch-slider"]');
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.announced.length > 0);
  await page.waitForTimeout(1000);
  const announced = await page.evaluate(() => window.announced);
  assert.equal(announced.length, 1, `one announcement for twenty steps: ${announced}`);
  assert.equal(announced[0], await shown(page, 'verdict'));
  const moved = await page.getAttribute('[data-testid="bar"]', 'aria-label');
  assert.notEqual(moved, label, 'the label follows the plan');
  assert.ok(moved.includes(`; total ${await shown(page, 'total-mib')} of the `), `the label carries the total shown: ${moved}`);
  assert.deepEqual(page.errors, []);
});

test('an empty batch field plans the default, 0, as the CLI plans --max-batch left out, and says so', async () => {
  const page = await open(h200.replace('batch=8', 'batch=5'));
  assert.equal(await page.getAttribute('[data-testid="batch"]', 'placeholder'), '0', 'an empty field shows the default it plans');
  assert.match(await shown(page, 'batch-hint'), /^0 or empty: as many sequences as fit at this length, [\d,]+ now\.$/);
  await page.fill('[data-testid="batch"]', '');
  await page.waitForFunction(() => / · batch 0: as many as fit, /.test(document.querySelector('[data-testid="subject"]').textContent));
  let q = await settled(page);
  assert.match(q, /batch=0&/);
  const plan = planJSON(cliFlags(q).filter((f, i, all) => f !== '--max-batch' && all[i - 1] !== '--max-batch')); // the CLI's default
  assert.match(await shown(page, 'subject'), new RegExp(` · batch 0: as many as fit, ${group(plan.capacity.max_seqs_at_max_len)} · `));
  assert.equal(await shown(page, 'batch-hint'), `0 or empty: as many sequences as fit at this length, ${group(plan.capacity.max_seqs_at_max_len)} now.`);
  assert.equal(await page.locator('[data-testid="batch-slider"]').inputValue(), '0', 'the slider shows the batch planned');
  await matchesCLI(page, cliFlags(q), 'empty batch');
  await page.fill('[data-testid="batch"]', '12');
  await page.waitForFunction(() => / · batch 12 · /.test(document.querySelector('[data-testid="subject"]').textContent));
  assert.match(await shown(page, 'batch-hint'), /^0 or empty: as many sequences as fit/, 'the hint says the same whatever the field holds');
  await page.selectOption('[data-testid="engine-picker"]', 'vllm');
  await page.fill('[data-testid="batch"]', '');
  await page.waitForFunction(() => / · batch 0: the engine's default, 1,024 · /.test(document.querySelector('[data-testid="subject"]').textContent));
  assert.equal(await shown(page, 'batch-hint'), "0 or empty: the engine's own default, 1,024 sequences.");
  assert.match(await shown(page, 'launch-command'), / --max-num-seqs 1024 /, "vLLM's default, as the CLI writes it");
  await page.fill('[data-testid="len"]', '');
  await page.waitForFunction(() => document.querySelector('[data-testid="subject"]').textContent.includes(' · 4,096 tokens · '));
  assert.equal(await shown(page, 'len-hint'), 'Left empty, the default, 4,096 tokens.');
  assert.deepEqual(page.errors, []);
});

test('the CUDA-graph pool whose size is not measured says so in its line, as the warning does', async () => {
  const page = await open(`${h200}&graphs=1`);
  const line = async () => ({ row: await shown(page, 'item-cuda_graph_pool'), tag: await page.locator('[data-testid="item-cuda_graph_pool"] .tag').innerText() });
  assert.equal((await line()).tag, 'not measured');
  assert.match((await figures(page)).warnings.join(), /has not measured graph_exec_bytes/);
  await matchesCLI(page, cliFlags(`${h200}&graphs=1`), 'server-rendered');
  await page.uncheck('[data-testid="graphs"]');
  await page.waitForFunction(() => !document.querySelector('[data-testid="item-cuda_graph_pool"]'));
  await page.check('[data-testid="graphs"]');
  await page.waitForSelector('[data-testid="item-cuda_graph_pool"]');
  assert.equal((await line()).tag, 'not measured', 'painted in the page');
  assert.doesNotMatch((await line()).row, /calibrated/);
  assert.equal(planJSON(cliFlags(`${h200}&graphs=1`)).items.find((it) => it.key === 'cuda_graph_pool').source, 'unmeasured');
  assert.deepEqual(page.errors, []);
});

test('a GGUF and a config.json picked together: the GGUF is planned, and the page says the config.json was not used', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vramplan-e2e-'));
  const gguf = join(dir, 'llama-3-8b-q8_0.gguf'), cfg = join(dir, 'config.json');
  writeGGUF(gguf);
  writeFileSync(cfg, readFileSync(join(repo, 'planner/hf/testdata/configs/meta-llama__Llama-3.2-1B-Instruct.json')));
  const page = await open(h200);
  await page.setInputFiles('[data-testid="file"]', [cfg, gguf]);
  await page.waitForFunction(() => /^Read /.test(document.querySelector('[data-testid="file-status"]').textContent));
  assert.match(await shown(page, 'file-status'),
    /^Read llama-3-8b-q8_0\.gguf, in this browser only: .*\. Not used: config\.json \(the GGUF holds the whole shape, with its tensors' exact sizes; pick the config\.json alone to plan from it instead\)\.$/);
  const q = await settled(page);
  assert.match(q, /model=file:llama-3-8b-q8_0/);
  await matchesCLI(page, [...cliFlags(q).filter((f, i, a) => f !== '--model' && a[i - 1] !== '--model'), '--model', gguf], 'the GGUF');
  await shot(page, 'gguf-and-config.png');
  assert.deepEqual(page.errors, []);
});

test('while another model is fetched the old result is dimmed, then replaced', async () => {
  const page = await open(h200);
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/api/models/**', async (route) => { await held; await route.continue(); });
  await page.fill('[data-testid="model"]', 'gemma-3-4b-it-q4_k_m');
  await page.waitForFunction(() => document.getElementById('calc').dataset.stale === 'true');
  const opacity = () => page.locator('[data-testid="verdict"]').evaluate((e) => getComputedStyle(e).opacity);
  assert.equal(await opacity(), '0.4', 'the figures shown are for the last model, and look it');
  assert.match(await shown(page, 'subject'), /^Qwen3-8B/);
  await shot(page, 'stale.png');
  release();
  await page.waitForFunction(() => !document.getElementById('calc').dataset.stale);
  assert.equal(await opacity(), '1');
  assert.match(await shown(page, 'subject'), /^gemma-3-4b-it Q4_K_M on /);
  await matchesCLI(page, cliFlags(await settled(page)), 'the model fetched');
  assert.deepEqual(page.errors, []);
});

test('without JavaScript: what cannot work is hidden, the footer says what does, and Plan re-plans on the server', async () => {
  const page = await open(h200, { javaScriptEnabled: false });
  for (const id of ['batch-slider', 'len-slider', 'budget-slider', 'file', 'loading', 'copy-launch']) {
    assert.equal(await page.locator(`[data-testid="${id}"]`).first().isVisible(), false, `${id} is shown, and cannot work`);
  }
  assert.equal(await page.locator('footer').innerText(),
    'JavaScript is off: press Plan after a change and this server plans it; local model files need JavaScript.');
  await page.fill('[data-testid="batch"]', '16');
  await page.fill('[data-testid="budget"]', '40 GiB');
  await Promise.all([page.waitForNavigation(), page.click('[data-testid="submit"]')]);
  const q = new URL(page.url()).search.slice(1);
  assert.match(q, /batch=16/);
  assert.match(await shown(page, 'budget-note'), /^Read as 40,960 MiB \(40 GiB\)\.$/);
  assert.equal(await shown(page, 'budget-mib'), '40,960');
  await matchesCLI(page, [...cliFlags(q).filter((f, i, a) => f !== '--budget' && a[i - 1] !== '--budget'), '--budget', '40GiB'], 'planned on the server');
  await shot(page, 'no-js-planned.png', { fullPage: true });
});

test('the weights control: a catalog model\'s other formats, and a config.json in another format as --weights-dtype plans it', async () => {
  const query = 'model=llama-3.1-8b-instruct-q8_0&gpu=h200-linux-cuda13.0&batch=8&len=4096';
  const page = await open(query);
  const options = () => page.locator('[data-testid="weights"] option').evaluateAll((os) => os.map((o) => ({ value: o.value, label: o.textContent })));
  const catalog = await options();
  const own = planJSON(cliFlags(query)).input.model;
  assert.deepEqual(catalog.map((o) => o.value), [own.id, ...own.variants.map((v) => v.id)]);
  assert.equal(catalog[0].label, `q8_0, ${group(mib(own.weights.bytes))} MiB`);
  const other = catalog[catalog.length - 1].value;
  await page.selectOption('[data-testid="weights"]', other);
  await page.waitForFunction((id) => new URL(location.href).searchParams.get('model') === id, other);
  await matchesCLI(page, cliFlags(await settled(page)), `the catalog's ${other}`);
  assert.equal(await page.locator('[data-testid="weights"]').inputValue(), other);
  // A config.json: the formats the CLI's --weights-dtype takes.
  const dir = mkdtempSync(join(tmpdir(), 'vramplan-e2e-'));
  const cfg = join(dir, 'config.json');
  writeFileSync(cfg, readFileSync(join(repo, 'planner/hf/testdata/configs/meta-llama__Llama-3.2-1B-Instruct.json')));
  await page.setInputFiles('[data-testid="file"]', cfg);
  await page.waitForFunction(() => /^Read /.test(document.querySelector('[data-testid="file-status"]').textContent));
  assert.deepEqual((await options()).map((o) => o.value), ['', 'bf16', 'fp8', 'int4', 'nvfp4', 'mxfp4', 'q8_0', 'q6_k', 'q4_k_m']);
  const flags = (q, ...more) => [...cliFlags(q).filter((f, i, a) => f !== '--model' && a[i - 1] !== '--model'), '--model', cfg, ...more];
  await matchesCLI(page, flags(await settled(page)), 'as published');
  await page.selectOption('[data-testid="weights"]', 'fp8');
  await page.waitForFunction(() => document.querySelector('[data-testid="weights"]').selectedOptions[0]?.textContent.startsWith('fp8, '));
  const fp8 = await matchesCLI(page, flags(await settled(page), '--weights-dtype', 'fp8'), 'fp8 weights');
  assert.notEqual(fp8.items.weights, planFigures(planJSON(flags(await settled(page)))).items.weights, 'fp8 weights are not the bf16 checkpoint\'s');
  await shot(page, 'weights-fp8.png');
  assert.deepEqual(page.errors, []);
});

test('"70B in FP8" is asked in the browser: the catalog\'s Llama-3.3-70B offers its bf16 and fp8 formats and plans them as the CLI does', async () => {
  const query = 'model=llama-3.3-70b-instruct-q4_k_m&gpu=h200-linux-cuda13.0&batch=8&len=8192';
  const page = await open(query);
  const values = await page.locator('[data-testid="weights"] option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual([...values].sort(), ['llama-3.3-70b-instruct-bf16', 'llama-3.3-70b-instruct-fp8', 'llama-3.3-70b-instruct-q4_k_m']);
  await page.selectOption('[data-testid="weights"]', 'llama-3.3-70b-instruct-fp8');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('model') === 'llama-3.3-70b-instruct-fp8');
  const fp8 = await matchesCLI(page, cliFlags(await settled(page)), 'the 70B in fp8');
  assert.notEqual(fp8.items.weights, planFigures(planJSON(cliFlags(query))).items.weights, 'fp8 weights are not the q4_k_m file\'s');
  assert.deepEqual(page.errors, []);
});

test('a frontier past 1M tokens rescales the chart\'s y axis, in the page as on the server', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vramplan-e2e-'));
  const cfg = join(dir, 'config.json');
  writeFileSync(cfg, readFileSync(join(repo, 'planner/hf/testdata/configs/meta-llama__Llama-3.2-1B-Instruct.json')));
  const page = await open(h200);
  const ticks = () => page.locator('[data-testid="chart-yticks"] text').allTextContents();
  assert.deepEqual(await ticks(), ['256', '4K', '64K', '1M'], 'Qwen3-8B on an H200: the usual axis');
  await page.setInputFiles('[data-testid="file"]', cfg);
  await page.waitForFunction(() => /^Read /.test(document.querySelector('[data-testid="file-status"]').textContent));
  const plan = planJSON([...cliFlags(await settled(page)).filter((f, i, a) => f !== '--model' && a[i - 1] !== '--model'), '--model', cfg]);
  assert.ok(plan.fits);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="chart-yticks"] text').length === 5);
  assert.deepEqual(await ticks(), ['256', '4K', '64K', '1M', '16M']);
  const d = await page.getAttribute('[data-testid="frontier-path"]', 'd');
  const ys = [...d.matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((m) => +m[1]);
  assert.ok(ys[0] > 10 && ys[0] < +(await page.locator('[data-testid="chart-yticks"] line').nth(3).getAttribute('y1')),
    `batch 1 is drawn past the 1M line and below the top, to scale (y ${ys[0]})`);
  assert.ok(new Set(ys.slice(0, 4)).size === 4, `no flat run along the top: ${ys}`);
  await shot(page, 'chart-past-1m.png', { clip: await page.locator('[data-testid="chart"]').boundingBox() });
  assert.deepEqual(page.errors, []);
});
