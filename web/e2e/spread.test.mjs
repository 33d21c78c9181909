// End-to-end test of the ranges a vLLM plan quotes in Debian's chromium:
// the page shows, next to the KV figure, the same range of real start-ups
// like this one that `vramplan plan` prints for the same input, served by
// the server and again after the wasm planner re-plans a move of the batch slider.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { serve, browser, bin, cliFlags, text } from './harness.mjs';

const vllm = 'model=llama-3.3-70b-instruct-fp8&gpu=h200-linux-cuda13.0&engine=vllm&batch=1&len=16384';
let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

// kvRangeCLI is the CLI's "KV tokens …: real start-ups like this one" line
// for the page's query.
function kvRangeCLI(query) {
  const out = execFileSync(bin, ['plan', ...cliFlags(query)], { encoding: 'utf8' });
  const line = out.split('\n').map((l) => l.trim()).find((l) => l.startsWith('KV tokens '));
  assert.ok(line?.includes('real start-ups like this one'), `the CLI prints a KV range for ${query}`);
  return line;
}

test('the page shows the KV range the CLI prints, as served and after the wasm planner re-plans', async () => {
  const page = await (await chrome.newContext()).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}?${vllm}`);
  await page.waitForSelector('#calc[data-ready="true"]');
  const served = kvRangeCLI(vllm);
  assert.equal(await text(page, 'kv-range'), served);

  await page.focus('[data-testid="batch-slider"]');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((f) => location.search.slice(1) !== f, vllm);
  const moved = new URL(page.url()).search.slice(1);
  const want = kvRangeCLI(moved);
  assert.notEqual(want, served, `the batch moves the KV tokens (${moved})`);
  await page.waitForFunction((w) => document.querySelector('[data-testid="kv-range"]').textContent.trim() === w, want, { timeout: 10_000 })
    .catch(async () => assert.equal(await text(page, 'kv-range'), want, `after the batch slider moves (${moved})`));
  assert.deepEqual(errors, []);
});
