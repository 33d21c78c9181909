// End-to-end test of the engine-release field in Debian's chromium: a
// release typed under an engine re-plans in the page under that release's
// rules, the URL holds it, the launch command is the CLI's for the same
// state and release, a release outside every range is said by the field's
// label with the ranges named, and <vram-calculator version> plans it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, browser, planJSON, cliFlags, text } from './harness.mjs';

// Issue 29's vLLM 0.6 run: Llama-3.1-8B on an RTX 3090 at 20,000 tokens.
const v0 = 'model=llama-3.1-8b-instruct-bf16&gpu=est-rtx3090-linux&engine=vllm&batch=0&len=20000';
let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

test('the engine release plans under that release and the URL keeps it', async () => {
  const ctx = await chrome.newContext();
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}?${v0}`);
  await page.waitForSelector('#calc[data-ready="true"]');
  assert.match(await text(page, 'engine'), /^planned as vLLM 0\.22 \(V1 engine\)/);

  await page.fill('[data-testid="engine-version"]', '0.6.3');
  await page.waitForFunction(() => document.querySelector('[data-testid="engine"]').textContent.startsWith('planned as vLLM 0.6.3, by the rules read at vLLM 0.6 (V0 engine)'));
  await page.waitForFunction(() => location.search.includes('version=0.6.3'));
  const query = new URL(page.url()).search.slice(1);
  const want = planJSON(cliFlags(query)).engine;
  assert.equal(want.version, 'vLLM 0.6 (V0 engine)');
  assert.equal(await text(page, 'launch-command'), want.launch);
  assert.match(want.launch, /--max-num-batched-tokens 20000 .*--gpu-memory-utilization 0\.9 /);

  await page.fill('[data-testid="engine-version"]', '0.3');
  await page.waitForFunction(() => /^Engine release: vLLM 0\.3 is outside/.test(document.querySelector('[data-testid="error"]')?.innerText ?? ''));
  assert.match(await page.locator('[data-testid="error"]').first().innerText(), /0\.4 up to 0\.8 \(V0 engine\)/);

  const again = await ctx.newPage(); // a shared link plans the same release
  await again.goto(`${server.url}?${query}`);
  await again.waitForSelector('#calc[data-ready="true"]');
  assert.equal(await again.locator('[data-testid="engine-version"]').inputValue(), '0.6.3');
  assert.match(await text(again, 'engine'), /^planned as vLLM 0\.6\.3, by the rules read at vLLM 0\.6 \(V0 engine\)/);

  const docs = await ctx.newPage(); // <vram-calculator version="…"> plans that release too
  await docs.goto(`${server.url}docs`);
  await docs.evaluate(() => {
    const wc = document.createElement('vram-calculator');
    wc.id = 'version-wc';
    for (const [k, v] of Object.entries({ model: 'llama-3.1-8b-instruct-bf16', gpu: 'est-rtx3090-linux', engine: 'vllm', len: '20000', version: '0.6.3' })) wc.setAttribute(k, v);
    document.body.append(wc);
  });
  const wc = docs.locator('#version-wc[data-ready="true"]');
  await wc.waitFor();
  assert.match(await wc.locator('[data-testid="wc-engine"]').innerText(), /^planned as vLLM 0\.6\.3, by the rules read at vLLM 0\.6 \(V0 engine\)/);
  assert.deepEqual(errors, []);
  await ctx.close();
});
