// End-to-end tests of the calculator's fields and figures as a newcomer
// reads them (issue #12, "Smaller, all expected"): figures with thousands
// separators and GiB, a budget typed with a unit, the bar's label and a
// result that does not re-announce itself on every slider step. Every
// figure is checked against `vramplan plan --json` for the same input.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, browser, shot, planJSON, cliFlags, figures, planFigures, group, mib } from './harness.mjs';

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

// settled returns the page's query once the URL has held still for 300 ms.
async function settled(page) {
  let last = page.url();
  for (let still = 0; still < 3; still++) {
    await page.waitForTimeout(100);
    if (page.url() !== last) { last = page.url(); still = -1; }
  }
  return new URL(last).search.slice(1);
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
  assert.match(await shown(page, 'verdict'), /^Fits in the \d{1,3}(,\d{3})+ MiB \([\d.]+ GiB\) budget with \d{1,3}(,\d{3})+ MiB \([\d.]+ GiB\) to spare\.$/);
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
  assert.match(await shown(page, 'error'), /^budget: invalid size "1,5 GB"/);
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
