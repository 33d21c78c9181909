// End-to-end tests of the "Which GPUs" table (#30) in Debian's chromium:
// its rows, server-rendered and repainted by the wasm planner on every
// change, equal `vramplan gpus --json` for the same input; its sort links
// and filters work without JavaScript and keep their state in the URL;
// following a GPU's link plans on that GPU and layout, as `vramplan plan`
// does; it is keyboard-usable and readable at 375 px; /embed and
// <vram-calculator view="gpus"> show it too.

import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { serve, browser, embedded, shot, planJSON, cliFlags, figures, planFigures, mib, group, bin, opener, settled } from './harness.mjs';

// The question: Llama-3.3-70B in FP8 at 32k under vLLM.
const llama = 'model=llama-3.3-70b-instruct-fp8&gpu=h200-linux-cuda13.0&engine=vllm&batch=0&len=32768';
let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });
const contexts = []; // closed as each test ends (see layout.test.mjs)
afterEach(async () => { await Promise.all(contexts.splice(0).map((c) => c.close())); });

const open = opener(() => server, () => chrome, contexts);

// cliRows runs `vramplan gpus --json` for a calculator query, with the
// table's gsort, gmin and glabel as its --sort, --min-memory and --label,
// and returns its rows as the page writes them.
function cliRows(query) {
  const q = new URLSearchParams(query);
  const flags = ['gpus', '--json', '--model', q.get('model'), '--max-seq-len', q.get('len') || '4096', '--max-batch', q.get('batch') || '0'];
  const opt = { engine: '--engine', kv: '--kv-dtype', gsort: '--sort', glabel: '--label' };
  for (const [k, f] of Object.entries(opt)) if (q.get(k)) flags.push(f, q.get(k));
  if (q.get('gmin')) flags.push('--min-memory', `${q.get('gmin')}GiB`);
  let out;
  try {
    out = execFileSync(bin, flags, { encoding: 'utf8' });
  } catch (e) {
    if (e.status !== 1) throw e;
    out = e.stdout; // no GPU shown serves it: still rows
  }
  return JSON.parse(out).map((f) => ({
    id: f.calibration, gpus: String(f.gpus), count: f.gpus ? String(f.gpus) : '—', layout: layoutOf(f),
    headroom: headroomOf(f), kv: f.gpus ? group(f.kv_tokens) : '',
    seqs: f.gpus ? group(f.max_seqs_at_max_len) : '', launch: f.launch ?? '', label: f.label,
    pooled: Boolean(f.gpus && f.pool_takes_rest),
  }));
}

// headroomOf writes a row's headroom as calc.HeadroomText does: "—" where
// the engine's KV pool takes what the budget leaves (pool_takes_rest).
function headroomOf(f) {
  if (!f.gpus) return '';
  return f.pool_takes_rest ? '—' : `${group(mib(f.headroom_bytes))} MiB`;
}

// rowPlan is `vramplan plan --json` of a calculator query, its engine too.
const rowPlan = (query) => planJSON(cliFlags(query));

// layoutOf writes a row's layout as calc.LayoutText does.
function layoutOf(f) {
  if (!f.gpus) return 'none';
  const tp = f.parallel.tensor_parallel || 1, pp = f.parallel.pipeline_parallel || 1;
  if (tp === 1 && pp === 1) return '1 GPU';
  if (pp === 1) return `TP ${tp}`;
  if (tp === 1) return `PP ${pp}`;
  return `TP ${tp} × PP ${pp}`;
}

// rowsOf reads the table's rows under root (the #gpus section, or the
// element whose shadow root holds it) as the page shows them.
function rowsOf(root) {
  return root.evaluate((r0) => [...(r0.shadowRoot ?? r0).querySelectorAll('[data-testid="gpu-row"]')].map((r) => {
    const t = (id) => r.querySelector(`[data-testid="${id}"]`).textContent.trim();
    return { id: r.dataset.id, gpus: r.dataset.gpus, count: t('gpu-row-count'), layout: t('gpu-layout-text'),
      headroom: t('gpu-headroom').replace(/ \(.*\)$/, ''), // the GiB beside a long figure
      pooled: r.querySelector('[data-testid="gpu-headroom"]').title !== '', // the note beside "—"
      kv: t('gpu-kv'), seqs: t('gpu-seqs'), launch: t('gpu-launch'), label: t('gpu-label') };
  }));
}

const table = (page) => page.locator('#gpus').elementHandle();

async function assertRows(page, what) {
  const query = await settled(page);
  const want = cliRows(query);
  const got = await rowsOf(await table(page));
  assert.ok(want.length > 0, `${what}: the CLI lists no GPU`);
  assert.deepEqual(got, want, `${what}: the table's rows, against vramplan gpus --json`);
  return query;
}

test('the server renders the table without JavaScript, equal to vramplan gpus --json, sortable and filterable by URL', async () => {
  const page = await open(llama, { javaScriptEnabled: false });
  assert.equal(page.response.status(), 200);
  await assertRows(page, 'server-rendered');
  // A column's heading is a link to the table sorted by it.
  await page.click('[data-testid="gpu-col-memory"] a');
  assert.match(page.url(), /gsort=memory/);
  assert.equal(await page.getAttribute('[data-testid="gpu-col-memory"]', 'aria-sort'), 'descending');
  await assertRows(page, 'sorted by memory, without JavaScript');
  // The filters submit the controls form: the state stays in the URL.
  await page.selectOption('[data-testid="gmin"]', '40');
  await page.selectOption('[data-testid="glabel"]', 'estimated');
  await page.click('[data-testid="gpus-filter"]');
  assert.match(page.url(), /gmin=40/);
  assert.match(page.url(), /glabel=estimated/);
  const q = await assertRows(page, 'filtered, without JavaScript');
  assert.match(q, /gsort=memory/, 'the order survives the filter');
  // A GPU's link plans on it, in its layout.
  const href = await page.getAttribute('[data-testid="gpu-row"]:nth-child(3) [data-testid="gpu-link"]', 'href');
  await page.goto(new URL(href, server.url).href);
  const query = new URL(page.url()).search.slice(1);
  const plan = rowPlan(query);
  const want = planFigures(plan);
  const got = await figures(page);
  for (const k of ['fits', 'total', 'budget', 'headroom', 'items']) assert.deepEqual(got[k], want[k], `the row's plan, without JavaScript: ${k}`);
});

test('with JavaScript the table re-plans on every change, and a row plans its GPU and layout', async () => {
  const page = await open(llama);
  await assertRows(page, 'as loaded');
  // The length slider: every move re-plans the table in wasm.
  await page.fill('[data-testid="len"]', '8192');
  await page.dispatchEvent('[data-testid="len"]', 'input');
  await assertRows(page, 'at 8,192 tokens');
  await page.fill('[data-testid="batch"]', '16');
  await page.dispatchEvent('[data-testid="batch"]', 'input');
  await assertRows(page, 'at batch 16');
  // The filters and the order, in the page and in the URL.
  await page.selectOption('[data-testid="glabel"]', 'estimated');
  await page.selectOption('[data-testid="gmin"]', '24');
  await page.click('[data-testid="gpu-col-kv"] a');
  const q = await assertRows(page, 'filtered and sorted by KV tokens');
  assert.match(q, /gsort=kv/);
  assert.match(q, /gmin=24/);
  assert.match(q, /glabel=estimated/);
  // A row's link plans on its GPU in its layout, as vramplan plan does.
  const multi = page.locator('[data-testid="gpu-row"]:not([data-gpus="1"]):not([data-gpus="0"]) [data-testid="gpu-link"]').first();
  const id = await multi.evaluate((a) => a.closest('tr').dataset.id);
  await multi.click();
  const query = await settled(page);
  assert.match(query, new RegExp(`gpu=${id}`));
  const plan = rowPlan(query);
  assert.ok(plan.layout, `the row's plan is a layout (${query})`);
  const want = planFigures(plan);
  const got = await figures(page);
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], `the row's plan: ${k}`);
  await assertRows(page, 'after planning a row: the table is the same question');
  assert.deepEqual(page.errors, []);
});

test('the table is keyboard-usable and readable at 375 px', async () => {
  const page = await open(llama, { viewport: { width: 375, height: 800 } });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px at 375 px`);
  const region = await page.evaluate(() => { const r = document.querySelector('#gpus .table-scroll'); return { tab: r.tabIndex, label: r.getAttribute('aria-label') }; });
  assert.deepEqual(region, { tab: 0, label: 'Which GPUs' }, 'the table scrolls in a focusable, named region');
  const name = await page.evaluate(() => { const th = document.querySelector('[data-testid="gpu-row"] th'); const r = th.getBoundingClientRect(); return r.left >= 0 && r.right <= 375; });
  assert.ok(name, 'the first GPU name is on screen');
  await shot(page, 'gpus-375.png', { fullPage: true });
  // Keyboard: a row's link takes focus and Enter plans it.
  const link = page.locator('[data-testid="gpu-row"]:nth-child(2) [data-testid="gpu-link"]');
  const id = await link.evaluate((a) => a.closest('tr').dataset.id);
  await link.focus();
  await page.keyboard.press('Enter');
  assert.match(await settled(page), new RegExp(`gpu=${id}`));
  await page.locator('[data-testid="gpu-col-gpu"] a').focus();
  await page.keyboard.press('Enter');
  assert.match(await settled(page), /gsort=gpu/);
  assert.deepEqual(page.errors, []);
});

test('/embed shows the same table', async () => {
  const page = await open(`${llama}&gsort=memory`, { path: 'embed' });
  await assertRows(page, '/embed');
});

test('<vram-calculator view="gpus"> shows the same table', async () => {
  const page = await embedded(server, chrome, '<vram-calculator model="llama-3.3-70b-instruct-fp8" engine="vllm" len="32768" view="gpus"></vram-calculator>');
  const el = await page.waitForSelector('vram-calculator[data-ready="true"]');
  const got = await rowsOf(el);
  assert.deepEqual(got, cliRows('model=llama-3.3-70b-instruct-fp8&engine=vllm&len=32768&batch=0'), 'the element\'s rows');
  const plan = await el.evaluate((e) => getComputedStyle(e.shadowRoot.querySelector('.plan')).display);
  assert.equal(plan, 'none', 'view="gpus" shows the table, not one GPU\'s plan');
  assert.deepEqual(page.errors, []);
});

test('the headroom column says "—" where the KV pool takes the rest, and a size where there is headroom, server-rendered and repainted', async () => {
  for (const [query, engine, pooled] of [[llama, 'vllm', true], [llama.replace('engine=vllm', 'engine=sglang'), 'sglang', true],
    [llama.replace('&engine=vllm', ''), 'vramplan', false]]) {
    for (const js of [false, true]) {
      const page = await open(query, { javaScriptEnabled: js });
      await assertRows(page, `${engine}, JavaScript ${js}`);
      const rows = await rowsOf(await table(page));
      const fitting = rows.filter((r) => r.gpus !== '0');
      assert.ok(fitting.length > 0, `${engine}: some GPU serves it`);
      for (const r of fitting) {
        assert.equal(r.headroom === '—', pooled, `${engine} on ${r.id}: headroom ${r.headroom}`);
        assert.equal(r.pooled, pooled, `${engine} on ${r.id}: the note on the headroom cell`);
        if (!pooled) assert.match(r.headroom, /^[\d,]+ MiB$/, `${engine} on ${r.id}: a size`);
        assert.notEqual(r.headroom, '0 MiB', `${engine} on ${r.id}`);
      }
    }
  }
  // A move under vLLM repaints the cells in wasm, still "—".
  const page = await open(llama);
  await page.fill('[data-testid="len"]', '8192');
  await page.dispatchEvent('[data-testid="len"]', 'input');
  await assertRows(page, 'vLLM at 8,192 tokens');
});
