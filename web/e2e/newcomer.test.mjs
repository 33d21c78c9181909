// End-to-end tests of what a newcomer meets first (issue #12): the
// <vram-calculator> element on another origin's page, given the names the
// CLI takes; URLs whose state the server cannot honour; edits made while
// the planner loads on a slow network; weights that cannot fit; hardware
// that cannot do what is asked. Every answer is checked against the CLI's.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, browser, shot, planJSON, cliFlags, figures, planFigures, bin, repo, embedded } from './harness.mjs';

let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

/** cli runs `vramplan plan --json` and returns the plan, or the one-line error of a bad input. */
function cli(args) {
  try {
    return { plan: planJSON(args) };
  } catch (e) {
    if (e.status !== 2) throw e;
    return { error: String(e.stderr).trim() };
  }
}

const docsPage = (body) => embedded(server, chrome, body);

/** element reads what a <vram-calculator> shows. */
function element(page, i) {
  return page.evaluate((i) => {
    const e = document.querySelectorAll('vram-calculator')[i];
    const t = (id) => e.shadowRoot.querySelector(`[data-testid="${id}"]`);
    const shown = (id) => t(id).checkVisibility();
    return { state: e.dataset.state, gpu: t('wc-gpu').textContent, model: t('wc-model').textContent,
      subject: t('wc-subject').textContent, error: shown('wc-error') ? t('wc-error').textContent : '',
      verdictShown: shown('wc-verdict'), verdict: t('wc-verdict').textContent, total: t('wc-total').textContent,
      legend: [...t('wc-legend').children].map((li) => li.textContent), link: t('wc-link').href,
      warnings: [...t('wc-warnings').children].map((p) => p.textContent) };
  }, i);
}

const ready = (page, n) => page.waitForFunction((n) => [...document.querySelectorAll('vram-calculator')]
  .filter((e) => e.dataset.ready === 'true').length === n, n);

test('<vram-calculator> takes every name the CLI takes, and refuses what the CLI refuses, in its words', async () => {
  const cases = [
    { model: 'qwen3-4b-instruct-2507-q8_0', gpu: 'rtx5090' }, // the short form the CLI takes
    { model: 'QWEN3-4B-instruct-2507-q8', gpu: 'H200' }, // any case, prefixes
    { model: 'qwen3-4b-instruct-2507-q8_0', gpu: 'a1000' }, // no such calibration
    { model: 'qwen3-9b-q8_0', gpu: 'h200' }, // a typo in the model
    { model: 'qwen3-8b', gpu: 'h200' }, // ambiguous
  ];
  const html = cases.map((c) => `<vram-calculator model="${c.model}" gpu="${c.gpu}" kv="fp8" len="8192"></vram-calculator>`).join('\n');
  const page = await docsPage(html);
  await ready(page, cases.length);
  for (const [i, c] of cases.entries()) {
    const got = await element(page, i);
    const want = cli(['--model', c.model, '--gpu', c.gpu, '--max-seq-len', '8192', '--kv-dtype', 'fp8']); // no batch: the CLI's default, the element's
    if (want.error) {
      // The CLI says "vramplan plan: --gpu: no calibration …"; the element says the same, with no plan beside it.
      assert.equal(got.state, 'error', `${c.model} on ${c.gpu}: state`);
      assert.ok(want.error.endsWith(got.error), `${c.model} on ${c.gpu}: element says ${JSON.stringify(got.error)}, CLI ${JSON.stringify(want.error)}`);
      assert.ok(!got.verdictShown, `${c.model} on ${c.gpu}: a verdict is shown for a setup nobody asked for`);
      continue;
    }
    const p = want.plan;
    assert.equal(got.state, 'planned', `${c.model} on ${c.gpu}: ${got.error}`);
    assert.equal(got.gpu, `on ${p.input.calibration.gpu}`);
    assert.equal(got.total, planFigures(p).total);
    assert.match(got.subject, /· KV fp8$/, 'the element names the KV dtype');
    assert.equal(got.legend.length, p.tiers.length, 'a legend entry per tier');
    assert.match(got.legend[2], /^T1 model \d{1,3}(,\d{3})* MiB( \([\d.]+ GiB\))?$/);
    assert.equal(new URL(got.link).searchParams.get('gpu'), p.input.calibration.id, 'the link names the full id');
  }
  assert.deepEqual(page.errors, []);
  await shot(page, 'component-names.png', { fullPage: true });
});

test('<vram-calculator> re-plans when its attributes change, and says what is missing', async () => {
  const page = await docsPage('<vram-calculator model="qwen3-4b-instruct-2507-q8_0" gpu="h200"></vram-calculator><vram-calculator model="qwen3-8b-q8_0"></vram-calculator>');
  await ready(page, 2);
  const missing = await element(page, 1);
  assert.equal(missing.state, 'error');
  assert.match(missing.error, /^set the gpu attribute/);
  await page.evaluate(() => {
    const e = document.querySelector('vram-calculator');
    e.setAttribute('model', 'llama-3.1-8b-instruct-q8');
    e.setAttribute('len', '32768');
    e.setAttribute('batch', '16');
    e.setAttribute('kv', 'q8_0');
  });
  await page.waitForFunction(() => document.querySelector('vram-calculator').dataset.ready === 'true' &&
    document.querySelector('vram-calculator').shadowRoot.querySelector('[data-testid="wc-model"]').textContent.includes('Llama'));
  const got = await element(page, 0);
  const want = planFigures(planJSON(['--model', 'llama-3.1-8b-instruct-q8_0', '--gpu', 'h200-linux-cuda13.0',
    '--max-batch', '16', '--max-seq-len', '32768', '--kv-dtype', 'q8_0']));
  assert.equal(got.total, want.total);
  assert.match(got.subject, /batch 16 · 32,768 tokens · KV q8_0$/);
  // A bad value: the element says which attribute, and shows no plan.
  await page.evaluate(() => document.querySelector('vram-calculator').setAttribute('len', 'lots'));
  await page.waitForFunction(() => document.querySelector('vram-calculator').dataset.state === 'error');
  assert.match((await element(page, 0)).error, /^len: "lots" is not a whole number/);
  // Fixing it plans again.
  await page.evaluate(() => document.querySelector('vram-calculator').setAttribute('len', '4096'));
  await page.waitForFunction(() => document.querySelector('vram-calculator').dataset.state === 'planned');
  await page.evaluate(() => document.querySelectorAll('vram-calculator')[1].setAttribute('gpu', 'rtx5090'));
  await page.waitForFunction(() => document.querySelectorAll('vram-calculator')[1].dataset.state === 'planned');
  assert.equal((await element(page, 1)).total, planFigures(planJSON(['--model', 'qwen3-8b-q8_0', '--gpu', 'rtx5090',
    '--max-seq-len', '4096'])).total);
  assert.deepEqual(page.errors, []);
  await shot(page, 'component-attributes.png', { fullPage: true });
});

async function open(query, opts = {}) {
  const ctx = await chrome.newContext(opts);
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${server.url}?${query}`);
  if (opts.javaScriptEnabled !== false) await page.waitForSelector('#calc[data-ready="true"]');
  return page;
}

const visible = (page, id) => page.locator(`[data-testid="${id}"]`).first().isVisible();

test('a URL the server cannot honour says so and plans nothing; short forms plan what the CLI plans', async () => {
  for (const [query, words] of [['gpu=a1000&model=qwen3-8b-q8_0', 'no calibration "a1000"; closest: '],
    ['model=nosuch&gpu=h200', 'no model "nosuch"; closest: '], ['batch=lots', 'batch: "lots" is not a whole number']]) {
    for (const javaScriptEnabled of [true, false]) {
      const page = await open(query, { javaScriptEnabled });
      assert.match(await page.locator('[data-testid="error"]').innerText(), new RegExp(words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.ok(!(await visible(page, 'verdict')), `${query}: a verdict is shown`);
      assert.ok(!(await visible(page, 'total-mib')), `${query}: figures are shown`);
      assert.doesNotMatch(await page.title(), /Fits/);
      if (query.startsWith('gpu=a1000') && javaScriptEnabled) await shot(page, 'bad-url-state.png', { fullPage: true });
      await page.context().close();
    }
  }
  const page = await open('model=qwen3-4b-instruct-2507-q8&gpu=RTX5090-wsl2&batch=8&len=4096');
  const want = planFigures(planJSON(cliFlags('model=qwen3-4b-instruct-2507-q8&gpu=RTX5090-wsl2&batch=8&len=4096')));
  const got = await figures(page);
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], k);
  assert.match(await page.locator('[data-testid="subject"]').innerText(), /on NVIDIA GeForce RTX 5090/);
  // In the page: a typo says so and hides the old plan; completing the id plans it.
  await page.fill('[data-testid="model"]', 'qwen3-9b-q8_0');
  assert.match(await page.locator('[data-testid="error"]').innerText(), /no model "qwen3-9b-q8_0"; closest: qwen3-8b-q8_0/);
  assert.ok(!(await visible(page, 'verdict')));
  await page.fill('[data-testid="model"]', 'qwen3-8b-q8');
  await page.waitForFunction(() => document.getElementById('result').dataset.planned === 'true');
  assert.ok(!(await visible(page, 'error')));
  // The URL follows the plan after its debounce, which a loaded machine stretches past any fixed wait.
  await page.waitForFunction(() => location.search.includes('model=qwen3-8b-q8_0&'), null, { timeout: 10000 });
  assert.match(page.url(), /model=qwen3-8b-q8_0&/);
  assert.match(await page.title(), /^vramplan · Qwen3-8B Q8_0 on NVIDIA GeForce RTX 5090 under WSL2 · batch 8 · 4,096 tokens/);
  const after = await figures(page);
  assert.equal(after.total, planFigures(planJSON(cliFlags(new URL(page.url()).search.slice(1)))).total);
  assert.deepEqual(page.errors, []);
});

test('edits made while the planner loads show a loading state and are planned once it is ready', async () => {
  const ctx = await chrome.newContext();
  const page = await ctx.newPage();
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/static/dist/planner.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(`${server.url}?model=qwen3-8b-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096`);
  assert.ok(await visible(page, 'loading'), 'the page says the planner is loading');
  await page.fill('[data-testid="batch"]', '32');
  await page.selectOption('[data-testid="kv"]', 'fp8');
  assert.equal(await page.locator('#calc').getAttribute('data-stale'), 'true', 'the old figures are marked stale');
  await shot(page, 'loading.png');
  release();
  await page.waitForSelector('#calc[data-ready="true"]');
  await page.waitForFunction(() => location.search.includes('batch=32&len=4096&kv=fp8'), null, { timeout: 10000 });
  const query = new URL(page.url()).search.slice(1);
  assert.match(query, /batch=32&len=4096&kv=fp8/, 'the URL follows the edits');
  const want = planFigures(planJSON(cliFlags(query)));
  const got = await figures(page);
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], k);
  assert.ok(!(await visible(page, 'loading')));
  assert.equal(await page.locator('#calc').getAttribute('data-stale'), null);
});

test('weights that cannot fit say so first, by how much, with only the levers that can matter', async () => {
  const query = 'model=llama-3.3-70b-instruct-q4_k_m&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=32768';
  const plan = planJSON(cliFlags(query));
  for (const javaScriptEnabled of [false, true]) {
    const page = await open(query, { javaScriptEnabled });
    if (javaScriptEnabled) { // the wasm's painting of the same state
      await page.focus('[data-testid="batch-slider"]');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowLeft');
    }
    assert.match(await page.locator('[data-testid="verdict"]').innerText(), /^Under WSL2: The weights alone are 40,503 MiB, 7,896 MiB more than the 32,607 MiB budget/);
    assert.equal(plan.failure.reason, 'weights_exceed_budget');
    const levers = await page.locator('[data-testid="levers"] a:not([hidden])').allInnerTexts();
    assert.deepEqual(levers, ['tensor parallel 1 → 8: 8 GPUs', '5 GPUs: tensor_parallel 1 × pipeline_parallel 5',
      'budget 32,607 MiB (31.8 GiB) → 128,617 MiB (125.6 GiB)'], 'only more GPUs or the budget can matter');
    assert.equal(await page.locator('[data-testid="frontier-path"]').getAttribute('d'), null, 'no frontier drawn along the floor');
    assert.equal(await page.locator('[data-testid="chart-note"]').textContent(), 'Nothing fits at any batch');
    if (javaScriptEnabled) await shot(page, 'weights-exceed.png', { fullPage: true });
    await page.context().close();
  }
});

test('hardware that cannot do what is asked warns, in the CLI\'s words', async () => {
  for (const query of ['model=qwen3-8b-bf16&gpu=h200-linux-cuda13.0&batch=64&len=32768&kv=nvfp4',
    'model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096&budget=1043200']) {
    const want = planFigures(planJSON(cliFlags(query)));
    assert.ok(want.warnings.length > 0, `${query}: the CLI warns`);
    const page = await open(query);
    assert.deepEqual((await figures(page)).warnings, want.warnings, `${query}: server-rendered`);
    await page.focus('[data-testid="len-slider"]');
    const before = page.url();
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((u) => location.href !== u, before, { timeout: 10000 });
    const moved = new URL(page.url()).search.slice(1);
    assert.deepEqual((await figures(page)).warnings, planFigures(planJSON(cliFlags(moved))).warnings, `${query}: after a move`);
    assert.ok(await page.locator('[data-testid="warning"]').first().isVisible());
    if (query.includes('budget')) assert.match(await page.locator('[data-testid="verdict"]').innerText(), /more than this GPU holds: 32,607 MiB \(31\.8 GiB\)/);
    await shot(page, query.includes('nvfp4') ? 'nvfp4-h200.png' : 'budget-over-device.png');
    await page.context().close();
  }
  // The levers never offer nvfp4 on a GPU without FP4, in the page or the CLI.
  const query = 'model=qwen3-8b-bf16&gpu=h200-linux-cuda13.0&batch=256&len=131072';
  const page = await open(query);
  const levers = (await page.locator('[data-testid="levers"] a').allInnerTexts()).join('\n');
  assert.doesNotMatch(levers, /nvfp4/);
  let text;
  try { text = execFileSync(bin, ['plan', ...cliFlags(query)], { encoding: 'utf8' }); } catch (e) { text = e.stdout; }
  assert.doesNotMatch(text, /nvfp4/);
});

test('a link to a local file says the file must be picked again, and plans it once it is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vramplan-e2e-'));
  const shape = JSON.parse(readFileSync(join(repo, 'planner/catalog/models/qwen3-8b-q8_0.json'), 'utf8'));
  shape.id = 'my-8b';
  const file = join(dir, 'my-8b.json');
  writeFileSync(file, JSON.stringify(shape));
  const page = await open('model=qwen3-4b-instruct-2507-q8_0&gpu=h200-linux-cuda13.0&batch=8&len=4096');
  await page.setInputFiles('[data-testid="file"]', file);
  await page.waitForFunction(() => document.querySelector('[data-testid="file-status"]').textContent.startsWith('Read'));
  await page.waitForTimeout(300);
  assert.equal(new URL(page.url()).searchParams.get('model'), 'file:my-8b', 'the URL says the model is a local file');
  await page.reload();
  await page.waitForSelector('#calc[data-ready="true"]');
  assert.match(await page.locator('[data-testid="error"]').innerText(), /"file:my-8b" is a local file, read in the browser that made this link and never uploaded: pick the file again/);
  assert.ok(!(await visible(page, 'verdict')), 'no plan of another model');
  await shot(page, 'local-link.png');
  await page.setInputFiles('[data-testid="file"]', file);
  await page.waitForFunction(() => document.getElementById('result').dataset.planned === 'true');
  const want = planFigures(planJSON(['--model', file, '--gpu', 'h200-linux-cuda13.0', '--max-batch', '8', '--max-seq-len', '4096']));
  assert.equal((await figures(page)).total, want.total);
  assert.ok(!(await visible(page, 'error')));
});

test('a file that cannot be read says what is wrong in plain words, with the detail one click away', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vramplan-e2e-'));
  const bad = join(dir, 'broken.gguf');
  writeFileSync(bad, Buffer.concat([Buffer.from('GGUF'), Buffer.from([3, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 99, 0, 0, 0])]));
  const notJSON = join(dir, 'config.json');
  writeFileSync(notJSON, '{"model_type": "llama",');
  const page = await open('model=qwen3-8b-q8_0&gpu=h200-linux-cuda13.0&batch=8&len=4096');
  for (const [file, words] of [[bad, /^Could not read broken\.gguf: it is not a GGUF model file this planner can read/],
    [notJSON, /^Could not read config\.json: it is not valid JSON/]]) {
    await page.setInputFiles('[data-testid="file"]', file);
    await page.waitForFunction(() => document.querySelector('[data-testid="file-status"]').textContent.startsWith('Could not'), null, { timeout: 60000 });
    const status = page.locator('[data-testid="file-status"]');
    assert.match(await status.innerText(), words);
    assert.match(await status.innerText(), /The plan shown is still for qwen3-8b-q8_0/);
    assert.ok(!(await page.locator('[data-testid="file-detail"]').isVisible()), 'the detail is folded away');
    await status.locator('summary').click();
    assert.ok((await page.locator('[data-testid="file-detail"]').innerText()).length > 0);
    assert.equal(await page.locator('[data-testid="file"]').inputValue(), '', 'the picker no longer names the file');
    if (file === bad) await shot(page, 'bad-file.png');
  }
  assert.deepEqual(page.errors, []);
});

test('the frontier chart has axis titles, a legend, an honest top and the trained context marked', async () => {
  const page = await open('model=qwen3-8b-q8_0&gpu=h200-linux-cuda13.0&batch=8&len=4096');
  const svg = page.locator('[data-testid="chart"] svg');
  const labels = await svg.locator('text').allTextContents();
  assert.ok(labels.includes('longest sequence, tokens') && labels.includes('batch (concurrent sequences)'), `axis titles: ${labels}`);
  assert.ok(labels.includes('1M') && !labels.some((l) => l.startsWith('≥')), `the axis is to scale up to its top: ${labels}`);
  assert.ok(await page.locator('[data-testid="chart-legend"]').isVisible());
  assert.equal(await page.locator('[data-testid="chart-trained-label"]').textContent(), 'trained context 40,960');
  const y = +(await page.locator('[data-testid="chart-trained"]').getAttribute('y1'));
  assert.ok(y > 10 && y < 150, `the trained-context line is on the plot (y ${y})`);
  await shot(page, 'chart.png', { clip: await page.locator('[data-testid="chart"]').boundingBox() });
  // Another model: the mark moves with it, painted in the page.
  await page.fill('[data-testid="model"]', 'qwen3-4b-instruct-2507-q8_0');
  await page.waitForFunction(() => document.querySelector('[data-testid="chart-trained-label"]').textContent === 'trained context 262,144');
  assert.ok(+(await page.locator('[data-testid="chart-trained"]').getAttribute('y1')) < y);
  assert.deepEqual(page.errors, []);
});
