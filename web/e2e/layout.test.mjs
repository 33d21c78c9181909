// End-to-end tests of multi-GPU layouts in Debian's chromium: a model too
// big for one GPU offers a layout lever that applies in the page; the
// layout controls re-plan; a bar per distinct rank with the binding rank
// marked; the URL carries the layout (with and without JavaScript) and a
// bad size is the 400 page; the iframe embed and <vram-calculator> carry it
// too; the totals say they are sums over the GPUs; under llama.cpp the ts
// field (its -ts) re-plans each device. Every figure is checked against
// `vramplan plan --json`.

import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { serve, browser, shot, planJSON, cliFlags, figures, planFigures, mib, group, text, opener, settled } from './harness.mjs';

// One RTX 5090 does not hold Llama-3.3-70B's Q4_K_M weights; two do.
const llama = 'model=llama-3.3-70b-instruct-q4_k_m&gpu=rtx5090-wsl2-cuda13.3&batch=1&len=8192';
// DeepSeek-V3 in FP8 on H200s at TP8 × EP8: 8 GPUs, then two stages.
const deepseek = 'model=deepseek-v3-fp8&gpu=h200-linux-cuda13.0&batch=16&len=16384&kv=fp8&tp=8&ep=8';
let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });
// Each test's contexts close when it ends: left open, their keep-alive
// connections pile up past the server's cap on one peer's connections
// (serve's --max-conns-per-peer, 64), and a later test's page is refused
// its wasm and never becomes ready.
const contexts = [];
afterEach(async () => { await Promise.all(contexts.splice(0).map((c) => c.close())); });

const open = opener(() => server, () => chrome, contexts);

// ranksOf reads the per-rank section: each rank's label, figures and
// whether it is marked binding.
function ranksOf(page) {
  return page.evaluate(() => [...document.querySelectorAll('[data-testid="rank"]')].map((r) => ({
    label: r.querySelector('[data-testid="rank-label"]').textContent.trim(),
    figures: r.querySelector('[data-testid="rank-figures"]').textContent.trim(),
    binding: r.dataset.binding === 'true', marked: !!r.querySelector('[data-testid="binding"]:not([hidden])'),
    segs: r.querySelectorAll('.bar .seg').length })));
}

// wantRanks is what ranksOf should read for the CLI's plan of query.
function wantRanks(plan) {
  return plan.layout.ranks.map((rp) => {
    const p = rp.plan;
    const spare = p.fits ? `${group(mib(p.headroom_bytes))} MiB to spare` : `over by ${group(mib(p.total_bytes - p.budget_bytes))} MiB`;
    const binding = rp.ranks[0] === plan.layout.binding_rank;
    return { figures: `${group(mib(p.total_bytes))} of ${group(mib(p.budget_bytes))} MiB, ${spare}`, binding, marked: binding, segs: p.tiers.length };
  });
}

// acrossOf reads the labels of the totals (Total, Budget, Headroom).
const acrossOf = (page) => page.evaluate(() => [...document.querySelectorAll('.totals dt')].map((d) => d.textContent.trim()));

async function assertLayoutMatchesCLI(page, what, extra = []) {
  const query = await settled(page);
  const plan = planJSON([...cliFlags(query), ...extra]);
  const want = planFigures(plan);
  const got = await figures(page);
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], `${what}: ${k}`);
  const ranks = (await ranksOf(page)).map(({ label, ...r }) => r);
  assert.deepEqual(ranks, wantRanks(plan), `${what}: the ranks`);
  assert.equal(await text(page, 'gpu-count'), `${plan.layout.gpus} GPUs`, `${what}: the GPU count`);
  const all = `all ${plan.layout.gpus} GPUs`;
  assert.deepEqual(await acrossOf(page), [`Total, ${all}`, `Budget, ${all}`, `Headroom, ${all}`], `${what}: the totals say they are sums`);
  assert.match(await text(page, 'budget-note'), new RegExp(`each GPU.* on ${all}\\.$`), `${what}: the budget note`);
  assert.match(await page.getAttribute('[data-testid="bar"]', 'aria-label'), new RegExp(`^memory by tier, summed over ${all}: `), `${what}: the bar's label`);
  return { query, plan };
}

test('a model too big for one GPU: the tensor-parallel lever applies a layout, a bar per rank', async () => {
  const page = await open(llama);
  assert.equal(await page.getAttribute('[data-testid="verdict"]', 'data-fits'), 'false');
  assert.equal(await page.locator('[data-testid="ranks"]').isHidden(), true, 'one GPU: no per-rank section');
  assert.match(await text(page, 'verdict'), /tensor_parallel 1 -> 2 fits/);
  const lever = page.locator('[data-testid="lever"]', { hasText: 'tensor parallel 1 → 2' });
  await lever.click();
  await page.waitForSelector('[data-testid="rank"][data-binding="true"]');
  assert.equal(await page.getAttribute('[data-testid="verdict"]', 'data-fits'), 'true');
  assert.equal(await page.inputValue('[data-testid="tp"]'), '2');
  const { query } = await assertLayoutMatchesCLI(page, 'after the tensor-parallel lever');
  assert.match(query, /&tp=2$/);
  assert.match(await text(page, 'rank-label'), /^ranks 0-1 · stage 0 · layers 0-79$/);
  await shot(page, 'layout-lever.png', { fullPage: true });
  assert.deepEqual(page.errors, []);
});

test('a smaller weight format of the catalog is a lever: DeepSeek-V3 at Q4_K_M on fewer H200s than FP8', async () => {
  const page = await open('model=deepseek-v3-fp8&gpu=h200-linux-cuda13.0&batch=16&len=32768');
  const gpus = await page.locator('[data-testid="lever"]', { hasText: /^\d+ GPUs: / }).innerText();
  const lever = page.locator('[data-testid="lever"]', { hasText: 'weights deepseek-v3-fp8 → deepseek-v3-q4_k_m, on ' });
  const label = await lever.innerText();
  assert.ok(+/on (\d+) GPUs/.exec(label)[1] < +/^(\d+)/.exec(gpus)[1], `${label} uses fewer GPUs than ${gpus}`);
  await lever.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="model"]').value === 'deepseek-v3-q4_k_m');
  await page.waitForSelector('[data-testid="verdict"][data-fits="true"]');
  const { query } = await assertLayoutMatchesCLI(page, `after "${label}"`);
  assert.match(query, /^model=deepseek-v3-q4_k_m&/);
  await shot(page, 'layout-weights-lever.png', { fullPage: true });
  assert.deepEqual(page.errors, []);
});

test('the layout controls re-plan; the shared URL reproduces the layout with and without JavaScript', async () => {
  const page = await open(deepseek);
  await assertLayoutMatchesCLI(page, 'TP8 × EP8');
  await page.fill('[data-testid="pp"]', '2');
  await page.waitForFunction(() => document.querySelector('[data-testid="gpu-count"]').textContent === '16 GPUs');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="rank"]').length === 2);
  const { query, plan } = await assertLayoutMatchesCLI(page, 'TP8 × PP2 × EP8');
  assert.match(query, /&tp=8&pp=2&ep=8$/);
  const labels = (await ranksOf(page)).map((r) => r.label);
  assert.deepEqual(labels.map((l) => l.split(' · ')[0]), ['ranks 0-7', 'ranks 8-15']);
  assert.equal((await ranksOf(page)).filter((r) => r.binding).length, 1);
  assert.match(await text(page, 'verdict'), new RegExp(`binding rank ${plan.layout.binding_rank}\\b`));
  await shot(page, 'layout-pp2.png', { fullPage: true });

  const noJS = await open(query, { javaScriptEnabled: false });
  assert.deepEqual(await ranksOf(noJS), await ranksOf(page), 'the server renders the shared URL\'s ranks');
  assert.equal(await noJS.inputValue('[data-testid="pp"]'), '2');
  assert.equal(await text(noJS, 'gpu-count'), '16 GPUs');
  const live = await open(query);
  assert.deepEqual(await ranksOf(live), await ranksOf(page));
  await live.dispatchEvent('[data-testid="pp"]', 'input'); // repaint from wasm, no change
  assert.deepEqual(await ranksOf(live), await ranksOf(page), 'wasm repaints the server\'s ranks unchanged');

  await page.fill('[data-testid="pp"]', '1');
  await page.fill('[data-testid="tp"]', '1');
  await page.fill('[data-testid="ep"]', '1');
  await page.waitForFunction(() => document.querySelector('[data-testid="ranks"]').hidden);
  assert.equal(await text(page, 'gpu-count'), '1 GPU');
  assert.deepEqual(await acrossOf(page), ['Total', 'Budget', 'Headroom'], 'one GPU: the totals are its own');
  assert.doesNotMatch(await settled(page), /tp=|pp=|ep=/);
  assert.deepEqual(page.errors, []);
});

test('under llama.cpp a pipeline layout is its layer split, in the launch command the CLI gives', async () => {
  const q = 'model=llama-3.1-8b-instruct-q8_0&gpu=h200-linux-cuda13.0&engine=llama.cpp&batch=4&len=8192&pp=2';
  const page = await open(q);
  const plan = planJSON(cliFlags(q));
  const launch = await text(page, 'launch-command');
  assert.match(launch, / -ngl 33 -sm layer -ts 1,1$/);
  const bound = plan.layout.ranks.find((rp) => rp.ranks[0] === plan.layout.binding_rank);
  assert.equal(launch, bound.plan.engine.launch);
  assert.deepEqual((await ranksOf(page)).map((r) => r.label.split(' · ').slice(0, 3).join(' · ')),
    ['rank 0 · stage 0 · layers 0-16', 'rank 1 · stage 1 · layers 17-31']);
  assert.deepEqual(page.errors, []);
});

test('a bad layout is the 400 page, and in the page says what is wrong', async () => {
  for (const [q, want] of [['tp=0', /^Tensor parallel: /], ['pp=two', /^Pipeline stages: /], ['tp=3', /^Tensor parallel: model\.query_heads/]]) {
    const page = await open(`${llama}&${q}`, { javaScriptEnabled: false });
    assert.equal(page.response.status(), 400, q);
    assert.match(await text(page, 'error'), want, q);
    assert.equal(await page.locator('[data-testid="verdict"]').isVisible(), false, `${q}: no plan shown`);
  }
  const page = await open(`${llama}&tp=2`);
  await page.fill('[data-testid="tp"]', '3');
  await page.waitForSelector('#result[data-planned="false"] [data-testid="error"]');
  assert.match(await text(page, 'error'), /^Tensor parallel: /);
  assert.match(await settled(page), /&tp=3$/);
  assert.deepEqual(page.errors, []);
});

// component puts a <vram-calculator> with attrs on the docs page, waits for
// its plan, and checks its total, labelled as a sum over the GPUs, against
// the CLI's plan of the state its link carries.
async function component(id, attrs) {
  const page = await (await chrome.newContext()).newPage();
  await page.goto(`${server.url}docs`);
  await page.evaluate(([id, attrs]) => {
    const wc = document.createElement('vram-calculator');
    wc.id = id;
    for (const [k, v] of Object.entries(attrs)) wc.setAttribute(k, v);
    document.body.append(wc);
  }, [id, attrs]);
  const wc = page.locator(`#${id}[data-ready="true"]`);
  await wc.waitFor();
  const link = new URL(await wc.locator('[data-testid="wc-link"]').getAttribute('href'));
  const plan = planJSON(cliFlags(link.search.slice(1)));
  assert.equal(await wc.locator('[data-testid="wc-total"]').innerText(), group(mib(plan.total_bytes)));
  assert.equal(await wc.locator('[data-testid="wc-total-label"]').innerText(), `Total MiB, all ${plan.layout.gpus} GPUs`);
  return { page, wc, link, plan };
}

test('the iframe embed and <vram-calculator> carry the layout', async () => {
  const embed = await open(`${llama}&tp=2`, { path: 'embed' });
  await assertLayoutMatchesCLI(embed, 'the iframe embed');

  const { page, wc, link, plan } = await component('layout-wc',
    { model: 'llama-3.3-70b-instruct-q4', gpu: 'rtx5090-wsl2', batch: '1', len: '8192', tp: '2', engine: 'vllm' });
  assert.equal(link.searchParams.get('tp'), '2');
  assert.equal(await wc.locator('[data-testid="rank"]').count(), plan.layout.ranks.length);
  assert.equal(await wc.locator('[data-testid="rank"][data-binding="true"]').count(), 1);
  assert.match(await wc.locator('[data-testid="rank"]').first().innerText(), /binding rank/);
  assert.match(await wc.locator('[data-testid="wc-engine"]').innerText(), /--tensor-parallel-size 2/);
  await wc.evaluate((el) => el.setAttribute('tp', '1'));
  await page.waitForFunction(() => document.getElementById('layout-wc').shadowRoot.querySelectorAll('[data-testid="rank"]').length === 0);
  assert.equal(await wc.locator('[data-testid="wc-total-label"]').innerText(), 'Total MiB');
  await wc.evaluate((el) => el.setAttribute('tp', '0'));
  await page.waitForFunction(() => document.getElementById('layout-wc').dataset.state === 'error');
  assert.match(await wc.locator('[data-testid="wc-error"]').innerText(), /^tp: /);
  await shot(page, 'layout-wc.png', { fullPage: true });
});

// llama.cpp's tensor split: Llama-3.1-8B on two H200s, 3:1.
const split = 'model=llama-3.1-8b-instruct-q8_0&gpu=h200-linux-cuda13.0&engine=llama.cpp&batch=4&len=8192&pp=2';
const rankLayers = async (page) => (await ranksOf(page)).map((r) => r.label.split(' · ')[2]);

test('llama.cpp\'s tensor split: the ts field re-plans each device as vramplan plan --tensor-split does', async () => {
  const page = await open(split);
  assert.equal(await page.locator('[data-testid="ts-field"]').isVisible(), true, 'llama.cpp, 2 GPUs: the field is shown');
  assert.equal(await page.inputValue('[data-testid="ts"]'), '');
  assert.deepEqual(await rankLayers(page), ['layers 0-16', 'layers 17-31'], 'equal shares');
  await page.fill('[data-testid="ts"]', '3,1');
  await page.waitForFunction(() => document.querySelector('[data-testid="rank-label"]').textContent.includes('layers 0-24'));
  const { query, plan } = await assertLayoutMatchesCLI(page, '-ts 3,1', ['--engine', 'llama.cpp']);
  assert.match(query, /&pp=2&ts=3,1$/);
  assert.deepEqual(await rankLayers(page), ['layers 0-24', 'layers 25-31']);
  const bound = plan.layout.ranks.find((rp) => rp.ranks[0] === plan.layout.binding_rank);
  assert.equal(await text(page, 'launch-command'), bound.plan.engine.launch);
  assert.match(bound.plan.engine.launch, / -ngl 33 -sm layer -ts 3,1$/);
  await shot(page, 'layout-tensor-split.png', { fullPage: true });

  await page.fill('[data-testid="ts"]', '1/3'); // llama.cpp's other separator, written back with ','
  await page.waitForFunction(() => document.querySelector('[data-testid="rank-label"]').textContent.includes('layers 0-8'));
  await assertLayoutMatchesCLI(page, '-ts 1/3', ['--engine', 'llama.cpp']);
  assert.match(await settled(page), /&ts=1,3$/);

  await page.fill('[data-testid="ts"]', '3,x');
  await page.waitForSelector('#result[data-planned="false"] [data-testid="error"]');
  assert.match(await text(page, 'error'), /^llama\.cpp tensor split \(-ts\): share 1, "x", is not a number/);
  await page.fill('[data-testid="ts"]', '3,1,1');
  await page.waitForFunction(() => /^llama\.cpp tensor split \(-ts\): 3 shares for the layout's 2 GPUs/.test(document.querySelector('[data-testid="error"]')?.textContent));
  await page.fill('[data-testid="ts"]', '');
  await page.waitForSelector('#result[data-planned="true"]');
  assert.deepEqual(await rankLayers(page), ['layers 0-16', 'layers 17-31'], 'empty: equal shares again');

  await page.selectOption('[data-testid="engine-picker"]', 'vllm');
  await page.waitForFunction(() => document.querySelector('[data-testid="ts-field"]').hidden);
  await page.selectOption('[data-testid="engine-picker"]', 'llama.cpp');
  await page.waitForFunction(() => !document.querySelector('[data-testid="ts-field"]').hidden);
  await page.fill('[data-testid="pp"]', '1');
  await page.waitForFunction(() => document.querySelector('[data-testid="ts-field"]').hidden);
  assert.deepEqual(page.errors, []);
});

test('a shared tensor split: the server renders it, a bad one is the 400 page naming ts, the embed and <vram-calculator> carry it', async () => {
  const noJS = await open(`${split}&ts=3,1`, { javaScriptEnabled: false });
  assert.equal(noJS.response.status(), 200);
  assert.equal(await noJS.inputValue('[data-testid="ts"]'), '3,1');
  const live = await open(`${split}&ts=3,1`);
  assert.deepEqual(await ranksOf(noJS), await ranksOf(live), 'the server and the page agree');
  await assertLayoutMatchesCLI(live, 'the shared -ts 3,1', ['--engine', 'llama.cpp']);
  for (const [ts, want] of [['3,x', /^llama\.cpp tensor split \(-ts\): share 1, "x", is not a number/], ['0,1', /^llama\.cpp tensor split \(-ts\): share 0 is 0: want a positive number/],
    ['1,1,1', /^llama\.cpp tensor split \(-ts\): 3 shares for the layout's 2 GPUs/]]) {
    const bad = await open(`${split}&ts=${ts}`, { javaScriptEnabled: false });
    assert.equal(bad.response.status(), 400, ts);
    assert.match(await text(bad, 'error'), want, ts);
    assert.equal(await bad.locator('[data-testid="verdict"]').isVisible(), false, `${ts}: no plan shown`);
  }

  const embed = await open(`${split}&ts=3,1`, { path: 'embed' });
  await assertLayoutMatchesCLI(embed, 'the iframe embed\'s -ts 3,1', ['--engine', 'llama.cpp']);

  const { page, wc, link, plan } = await component('split-wc',
    { model: 'llama-3.1-8b-instruct-q8_0', gpu: 'h200-linux-cuda13.0', batch: '4', len: '8192', engine: 'llama.cpp', pp: '2', ts: '3,1' });
  assert.equal(link.searchParams.get('ts'), '3,1');
  const figs = await wc.locator('[data-testid="rank-figures"]').allInnerTexts();
  assert.deepEqual(figs, wantRanks(plan).map((r) => r.figures), 'each device\'s figures');
  assert.match(await wc.locator('[data-testid="rank-label"]').first().innerText(), /layers 0-24/);
  assert.match(await wc.locator('[data-testid="wc-engine"]').innerText(), /-sm layer -ts 3,1$/);
  await wc.evaluate((el) => el.setAttribute('ts', '1,x'));
  await page.waitForFunction(() => document.getElementById('split-wc').dataset.state === 'error');
  assert.match(await wc.locator('[data-testid="wc-error"]').innerText(), /^ts: share 1/);
});

// llama.cpp's -ngl across a split: Llama-3.3-70B Q4_K_M at 64K × 4 on two
// RTX 5090s does not fit with every layer on the GPUs.
const offload = 'model=llama-3.3-70b-instruct-q4_k_m&gpu=rtx5090-wsl2-cuda13.3&engine=llama.cpp&batch=4&len=65536&pp=2';

test('llama.cpp\'s -ngl across a split: the largest -ngl that fits is a lever, and the ngl field re-plans each device as vramplan plan --gpu-layers does', async () => {
  const page = await open(offload);
  assert.equal(await page.locator('[data-testid="ngl-field"]').isVisible(), true, 'llama.cpp: the -ngl field is shown');
  assert.equal(await page.inputValue('[data-testid="ngl"]'), '');
  assert.equal(await page.getAttribute('[data-testid="verdict"]', 'data-fits'), 'false');
  const lever = page.locator('[data-testid="lever"]', { hasText: /^GPU layers \(-ngl\) 81 → \d+, layers 0-\d+ on the CPU$/ });
  const label = await lever.innerText();
  const k = +/→ (\d+)/.exec(label)[1];
  const cli = planJSON(cliFlags(offload));
  const notes = cli.layout.ranks[0].plan.engine.notes.join('\n');
  assert.match(notes, new RegExp(`does not fit on every device of the layout: the launch command is the one with -ngl ${k},`), `the lever's -ngl ${k} is the CLI's`);
  assert.match(label, new RegExp(`layers 0-${80 - k} on the CPU$`));
  await lever.click();
  await page.waitForSelector('[data-testid="verdict"][data-fits="true"]');
  assert.equal(await page.inputValue('[data-testid="ngl"]'), String(k), 'the lever sets the field');
  const { query, plan } = await assertLayoutMatchesCLI(page, `after the -ngl ${k} lever`, ['--engine', 'llama.cpp']);
  assert.match(query, new RegExp(`&pp=2&ngl=${k}$`));
  const bound = plan.layout.ranks.find((rp) => rp.ranks[0] === plan.layout.binding_rank);
  assert.equal(await text(page, 'launch-command'), bound.plan.engine.launch);
  assert.match(bound.plan.engine.launch, new RegExp(` -ngl ${k} -sm layer -ts 1,1$`));
  assert.deepEqual(await rankLayers(page), [`layers ${81 - k}-${plan.layout.ranks[0].plan.input.rank.layers[1] - 1}`,
    `layers ${plan.layout.ranks[1].plan.input.rank.layers[0]}-79`], 'the CPU keeps the first layers');
  await shot(page, 'layout-ngl-lever.png', { fullPage: true });

  await page.fill('[data-testid="ngl"]', '20');
  await page.waitForFunction(() => document.querySelector('[data-testid="rank-label"]').textContent.includes('layers 61-'));
  const at20 = (await assertLayoutMatchesCLI(page, '-ngl 20', ['--engine', 'llama.cpp'])).plan;
  assert.match(await text(page, 'launch-command'), / -ngl 20 -sm layer -ts 1,1$/);
  // The host memory is the process's: every device's own items, summed.
  const host = at20.layout.ranks.flatMap((rp) => rp.plan.engine.host);
  const hostText = await text(page, 'host-memory');
  assert.ok(hostText.startsWith(`Host memory: ${group(mib(host.reduce((n, it) => n + it.bytes, 0)))} MiB`), hostText);
  const cpuKV = host.find((it) => it.key === 'cpu_kv');
  assert.ok(cpuKV.bytes > 0 && hostText.includes(`CPU KV buffer ${group(mib(cpuKV.bytes))} MiB`), `${hostText}: the CPU's layers' KV`);

  await page.fill('[data-testid="ngl"]', '2'); // fewer than one repeating layer per device
  await page.waitForSelector('#result[data-planned="false"] [data-testid="error"]');
  assert.match(await text(page, 'error'), /^llama\.cpp tensor split \(-ts\): .*-ngl 2/);
  await page.fill('[data-testid="ngl"]', '');
  await page.waitForSelector('[data-testid="verdict"][data-fits="false"]');
  assert.doesNotMatch(await settled(page), /ngl=/, 'empty: every layer');

  await page.selectOption('[data-testid="engine-picker"]', 'vllm');
  await page.waitForFunction(() => document.querySelector('[data-testid="ngl-field"]').hidden);
  await page.selectOption('[data-testid="engine-picker"]', 'llama.cpp');
  await page.fill('[data-testid="pp"]', '1');
  await page.waitForFunction(() => document.querySelector('[data-testid="ts-field"]').hidden);
  assert.equal(await page.locator('[data-testid="ngl-field"]').isVisible(), true, 'one GPU under llama.cpp: the -ngl field stays');
  assert.deepEqual(page.errors, []);
});

test('a shared -ngl: the server renders it, a bad one is the 400 page naming ngl, the embed and <vram-calculator ngl> carry it', async () => {
  const q = `${offload}&ngl=30`;
  const noJS = await open(q, { javaScriptEnabled: false });
  assert.equal(noJS.response.status(), 200);
  assert.equal(await noJS.inputValue('[data-testid="ngl"]'), '30');
  const live = await open(q);
  assert.deepEqual(await ranksOf(noJS), await ranksOf(live), 'the server and the page agree');
  await assertLayoutMatchesCLI(live, 'the shared -ngl 30', ['--engine', 'llama.cpp']);
  for (const [ngl, want] of [['-1', /^llama\.cpp GPU layers \(-ngl\): -1 is not a layer count/], ['all', /^llama\.cpp GPU layers \(-ngl\): "all" is not a whole number/], ['2', /^llama\.cpp tensor split \(-ts\): .*-ngl 2/]]) {
    const bad = await open(`${offload}&ngl=${ngl}`, { javaScriptEnabled: false });
    assert.equal(bad.response.status(), 400, ngl);
    assert.match(await text(bad, 'error'), want, ngl);
  }
  const embed = await open(q, { path: 'embed' });
  await assertLayoutMatchesCLI(embed, 'the iframe embed\'s -ngl 30', ['--engine', 'llama.cpp']);

  const { page, wc, link } = await component('ngl-wc', { model: 'llama-3.3-70b-instruct-q4_k_m', gpu: 'rtx5090-wsl2-cuda13.3',
    batch: '4', len: '65536', engine: 'llama.cpp', pp: '2', ngl: '30' });
  assert.equal(link.searchParams.get('ngl'), '30');
  assert.match(await wc.locator('[data-testid="wc-engine"]').innerText(), / -ngl 30 -sm layer -ts 1,1$/);
  await wc.evaluate((el) => el.setAttribute('ngl', '-3'));
  await page.waitForFunction(() => document.getElementById('ngl-wc').dataset.state === 'error');
  assert.match(await wc.locator('[data-testid="wc-error"]').innerText(), /^ngl: /);
});

// llama.cpp's split mode: the sm field moves the layout's GPUs between
// -sm layer (pp) and -sm tensor (tp), each device planned as vramplan plan
// --tensor-parallel --tensor-split plans it.
test('llama.cpp\'s split mode: -sm tensor re-plans each device as vramplan plan --tensor-parallel --tensor-split does', async () => {
  const page = await open(`${split}&ts=3,1`);
  assert.equal(await page.inputValue('[data-testid="sm"]'), 'layer', 'a pipeline layout is -sm layer');
  await page.selectOption('[data-testid="sm"]', 'tensor');
  await page.waitForFunction(() => document.querySelector('[data-testid="launch-command"]').textContent.includes('-sm tensor'));
  const { query, plan } = await assertLayoutMatchesCLI(page, '-sm tensor -ts 3,1', ['--engine', 'llama.cpp']);
  assert.match(query, /&tp=2&ts=3,1$/, 'the URL keeps tp, not sm');
  assert.deepEqual([await page.inputValue('[data-testid="tp"]'), await page.inputValue('[data-testid="pp"]')], ['2', '1'],
    'the GPUs moved to tensor parallel in the fields too');
  assert.equal(plan.layout.ranks.length, 2);
  const heads = plan.layout.ranks.map((rp) => rp.plan.input.model.layers[0].kv_heads);
  assert.deepEqual(heads, [6, 2], 'the KV heads split 3:1');
  const bound = plan.layout.ranks.find((rp) => rp.ranks[0] === plan.layout.binding_rank);
  assert.equal(await text(page, 'launch-command'), bound.plan.engine.launch);
  assert.match(bound.plan.engine.launch, / -ngl 33 -sm tensor -ts 3,1$/);
  await shot(page, 'layout-sm-tensor.png', { fullPage: true });

  await page.fill('[data-testid="tp"]', '4'); // four GPUs, -sm tensor
  await page.fill('[data-testid="ts"]', '');
  await page.waitForFunction(() => document.querySelector('[data-testid="launch-command"]').textContent.endsWith('-sm tensor -ts 1,1,1,1'));
  const four = await assertLayoutMatchesCLI(page, '-sm tensor on 4 GPUs', ['--engine', 'llama.cpp']);
  assert.match(four.query, /&tp=4$/);

  await page.selectOption('#kv', 'q8_0');
  await page.waitForSelector('#result[data-planned="false"] [data-testid="error"]');
  assert.match(await text(page, 'error'), /-sm tensor has no quantized KV cache/);
  assert.deepEqual(page.errors, []);
});

test('a shared split mode: the server renders it, a bad one is the 400 page naming sm, the embed and <vram-calculator sm> carry it', async () => {
  const q = `${split}&ts=3,1&sm=tensor`;
  const noJS = await open(q, { javaScriptEnabled: false });
  assert.equal(noJS.response.status(), 200);
  assert.equal(await noJS.inputValue('[data-testid="sm"]'), 'tensor');
  const live = await open(q);
  assert.deepEqual(await ranksOf(noJS), await ranksOf(live), 'the server and the page agree');
  await assertLayoutMatchesCLI(live, 'the shared -sm tensor', ['--engine', 'llama.cpp']);
  for (const [sm, want] of [['row', /^llama\.cpp split mode \(-sm\): row: llama\.cpp b12072 .* has no row split on CUDA/], ['columns', /^llama\.cpp split mode \(-sm\): "columns" is not a split mode/]]) {
    const bad = await open(`${split}&sm=${sm}`, { javaScriptEnabled: false });
    assert.equal(bad.response.status(), 400, sm);
    assert.match(await text(bad, 'error'), want, sm);
  }
  const embed = await open(q, { path: 'embed' });
  await assertLayoutMatchesCLI(embed, 'the iframe embed\'s -sm tensor', ['--engine', 'llama.cpp']);

  const { page, wc, link } = await component('sm-wc', { model: 'llama-3.1-8b-instruct-q8_0', gpu: 'h200-linux-cuda13.0',
    batch: '4', len: '8192', engine: 'llama.cpp', pp: '2', ts: '3,1', sm: 'tensor' });
  assert.equal(link.searchParams.get('tp'), '2');
  assert.match(await wc.locator('[data-testid="wc-engine"]').innerText(), / -sm tensor -ts 3,1$/);
  await wc.evaluate((el) => el.setAttribute('sm', 'row'));
  await page.waitForFunction(() => document.getElementById('sm-wc').dataset.state === 'error');
  assert.match(await wc.locator('[data-testid="wc-error"]').innerText(), /^sm: row/);
});
