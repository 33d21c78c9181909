// End-to-end test of the engine picker in Debian's chromium: a link that
// names an engine plans as that engine allocates, says so, shows the launch
// command the CLI gives for the same input, copies it, and picking another
// engine re-plans in the page and puts the engine in the URL.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, browser, planJSON, cliFlags, text } from './harness.mjs';

const llama = 'model=llama-3.1-8b-instruct-q8_0&gpu=h200-linux-cuda13.0&engine=llama.cpp&batch=4&len=8192';
let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

// engineCLI is what the CLI says of the page's state: its engine report.
function engineCLI(query) {
  const q = new URLSearchParams(query);
  return planJSON([...cliFlags(query), '--engine', q.get('engine') ?? 'vramplan']).engine;
}

test('the engine picker plans as the engine allocates and gives its launch command', async () => {
  const ctx = await chrome.newContext();
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}?${llama}`);
  await page.waitForSelector('#calc[data-ready="true"]');
  const want = engineCLI(llama);
  assert.match(await text(page, 'engine'), /^planned as llama\.cpp b12072/);
  assert.equal(await text(page, 'launch-command'), want.launch);
  assert.match(await text(page, 'answer'), /fits with every layer on the GPU/);
  await page.click('[data-testid="copy-launch"]');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), want.launch);

  await page.selectOption('[data-testid="engine-picker"]', 'vllm');
  await page.waitForFunction(() => document.querySelector('[data-testid="engine"]').textContent.startsWith('planned as vLLM'));
  await page.waitForTimeout(200); // the URL follows 100 ms after the last input
  const query = new URL(page.url()).search.slice(1);
  assert.match(query, /engine=vllm/);
  assert.equal(await text(page, 'launch-command'), engineCLI(query).launch);

  await page.selectOption('[data-testid="engine-picker"]', '');
  await page.waitForFunction(() => document.querySelector('[data-testid="engine"]').textContent.includes('gpuagent'));
  assert.equal(await page.locator('[data-testid="launch"]').isHidden(), true);
  assert.deepEqual(errors, []);
});
