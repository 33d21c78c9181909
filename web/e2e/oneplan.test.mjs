// One input, one plan, on every surface (issue 27 §6): a vLLM user's 70B in
// FP8 on two H100s, the batch left out, is planned by `vramplan plan`, by
// GET /api/plan, by the server-rendered page (no JavaScript) and by the
// browser's WebAssembly (the page after a move and back), and every
// surface gives the same plan: vLLM's default --max-num-seqs, not the
// page's own; one GPU's line items under a per-GPU caption; each rank's
// weights per GPU; the same launch command and activation estimate.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, browser, shot, planJSON, figures, planFigures, bindingPlan, mib, group } from './harness.mjs';

const query = 'model=llama-3.3-70b-instruct-fp8&gpu=est-h100-sxm-linux&engine=vllm&tp=2&len=16384';
const flags = ['--model', 'llama-3.3-70b-instruct-fp8', '--gpu', 'est-h100-sxm-linux', '--engine', 'vllm',
  '--tensor-parallel', '2', '--max-seq-len', '16384']; // the same input, as a CLI user types it
let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

// surface reads what a page shows of the plan.
async function surface(page) {
  return {
    ...(await figures(page)),
    launch: await page.locator('[data-testid="launch-command"]').innerText(),
    caption: await page.locator('[data-testid="items-caption"]').innerText(),
    weights: await page.locator('[data-testid="rank-weights"]').allInnerTexts(),
  };
}

test('one input gives one plan in the CLI, /api/plan, the server-rendered page and the wasm', async () => {
  const cli = planJSON(flags);
  const api = await (await fetch(`${server.url}api/plan?${query}`)).json();
  assert.deepEqual(api, cli, 'GET /api/plan is the CLI\'s plan');
  const b = bindingPlan(cli);
  assert.match(b.engine.launch, / --max-num-seqs 1024 /, 'vLLM\'s default, not a batch the page chose');
  const want = planFigures(cli);
  const activation = group(mib(b.items.find((it) => it.key === 'activation_peak').bytes));

  const noJS = await (await chrome.newContext({ javaScriptEnabled: false })).newPage();
  await noJS.goto(`${server.url}?${query}`);
  const live = await (await chrome.newContext({ colorScheme: 'light' })).newPage();
  const errors = [];
  live.on('pageerror', (e) => errors.push(e.message));
  await live.goto(`${server.url}?${query}`);
  await live.waitForSelector('#calc[data-ready="true"]');
  await live.focus('[data-testid="len-slider"]'); // the wasm paints it: a move and back
  await live.keyboard.press('ArrowRight');
  await live.waitForFunction(() => !location.search.includes('len=16384'));
  await live.keyboard.press('ArrowLeft');
  await live.waitForFunction(() => location.search.includes('len=16384'));

  for (const [what, page] of [['the server-rendered page', noJS], ['the wasm', live]]) {
    const got = await surface(page);
    for (const k of ['fits', 'total', 'budget', 'headroom', 'maxSeqs', 'maxLen', 'items', 'warnings']) assert.deepEqual(got[k], want[k], `${what}: ${k}`);
    assert.equal(got.items.activation_peak, activation, `${what}: the activation estimate is one GPU's, the CLI's`);
    assert.equal(got.launch, b.engine.launch, `${what}: the launch command`);
    assert.equal(got.caption, `Line items of one GPU, the binding rank ${cli.layout.binding_rank}`, `${what}: the items say they are one GPU's`);
    assert.match(got.kv, new RegExp(`^${group(b.kv.blocks)} blocks of 16 tokens, `), `${what}: one GPU's KV blocks`);
    assert.deepEqual(got.weights, [`weights ${group(mib(b.items.find((it) => it.key === 'weights').bytes))} MiB (33.8 GiB) on each of its GPUs`],
      `${what}: the weights per GPU`);
  }
  await shot(live, 'oneplan.png', { fullPage: true });
  assert.deepEqual(errors, []);
});
