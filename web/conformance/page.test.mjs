// The calculator page served by the worker under `wrangler dev --local`, in
// Debian's chromium, once: it loads (the planner wasm from Workers static
// assets), a slider moves and a lever applies, and each time the page's
// figures equal `vramplan plan --json` for the page's URL. The full browser
// suite runs against the native server (web/e2e); this proves the worker
// serves the same working page. Screenshots go to test-output/e2e/.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveWorker } from './servers.mjs';
import { browser, shot, planJSON, cliFlags, figures, planFigures } from '../e2e/harness.mjs';

const nofit = 'model=qwen3-coder-30b-a3b-instruct-nvfp4&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=32768';
let worker, chrome;

before(async () => { [worker, chrome] = await Promise.all([serveWorker(), browser()]); });
after(async () => { await chrome?.close(); await worker?.stop(); });

// assertMatchesCLI checks the page's figures against the CLI's plan for the
// page's URL. app.js writes the URL 100 ms after the last input; on a loaded
// machine later, so the check is retried for up to 5 s until URL and
// figures agree: a real difference persists and fails.
async function assertMatchesCLI(page, what) {
  const deadline = Date.now() + 5000;
  for (;;) {
    await page.waitForTimeout(150);
    const query = new URL(page.url()).search.slice(1);
    const want = planFigures(planJSON(cliFlags(query)));
    const got = await figures(page);
    const differ = Object.keys(want).filter((k) => JSON.stringify(got[k]) !== JSON.stringify(want[k]));
    if (differ.length === 0) return query;
    if (Date.now() > deadline) {
      for (const k of differ) assert.deepEqual(got[k], want[k], `${what}: ${k} (URL ?${query})`);
    }
  }
}

test('the worker serves the calculator: load, move a slider, apply a lever', async () => {
  const page = await (await chrome.newContext()).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const failed = [];
  page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
  await page.goto(`${worker.url}/?${nofit}`);
  await page.waitForSelector('#calc[data-ready="true"]');
  await assertMatchesCLI(page, 'loaded');

  await page.focus('[data-testid="batch-slider"]');
  await page.keyboard.press('ArrowLeft');
  const moved = await assertMatchesCLI(page, 'after a slider move');
  assert.notEqual(moved, nofit, 'the move changed the state');

  const lever = page.locator('[data-testid="lever"].fits').first();
  const label = await lever.innerText();
  await lever.click();
  assert.equal(await page.getAttribute('[data-testid="verdict"]', 'data-fits'), 'true', `after "${label}"`);
  await assertMatchesCLI(page, `after lever "${label}"`);
  await shot(page, 'worker-lever-applied.png', { fullPage: true });
  assert.deepEqual(errors, [], 'no script errors');
  assert.deepEqual(failed, [], 'no failed requests');
});
