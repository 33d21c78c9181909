// End-to-end tests of the GPU names people type (issue #27, points 1 and
// 2) in Debian's chromium: a name of several cards is a chooser page whose
// links plan the same state on each card, and a <vram-calculator> on
// another origin shows the choice as buttons; a card's name plans its
// Linux entry and says so. Every plan is checked against the CLI's.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, browser, shot, planJSON, cliFlags, figures, planFigures, embedded } from './harness.mjs';

let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

test('a GPU name of several cards is a chooser page; its link plans the same state on the card chosen, as the CLI does', async () => {
  const ctx = await chrome.newContext();
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const res = await page.goto(`${server.url}?model=qwen3-8b-q8_0&gpu=h100&batch=4&len=8192`);
  assert.equal(res.status(), 300);
  assert.match(await page.title(), /which GPU\? "h100"/);
  const choices = page.locator('[data-testid="choice"]');
  assert.deepEqual(await choices.evaluateAll((as) => as.map((a) => new URL(a.href).searchParams.get('gpu'))), ['est-h100-nvl-linux', 'est-h100-pcie-linux', 'est-h100-sxm-linux']);
  assert.equal(await choices.nth(2).innerText(), 'NVIDIA H100 80GB HBM3 under Linux, estimated (est-h100-sxm-linux)');
  await shot(page, 'gpu-chooser.png', { fullPage: true });
  await Promise.all([page.waitForNavigation(), choices.nth(2).click()]);
  await page.waitForSelector('#calc[data-ready="true"]');
  const q = new URL(page.url()).searchParams;
  assert.deepEqual([q.get('gpu'), q.get('model'), q.get('batch'), q.get('len')], ['est-h100-sxm-linux', 'qwen3-8b-q8_0', '4', '8192']);
  assert.equal(await page.inputValue('[data-testid="gpu"]'), 'est-h100-sxm-linux');
  const want = planFigures(planJSON(cliFlags(new URL(page.url()).search.slice(1))));
  const got = await figures(page);
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], `the chosen card's page vs the CLI: ${k}`);
  assert.match(await page.locator('[data-testid="verdict"]').innerText(), /^Under Linux: /);

  const embed = await page.goto(`${server.url}embed?model=qwen3-8b-q8_0&gpu=a100`);
  assert.equal(embed.status(), 300);
  assert.equal(await page.locator('header.site').count(), 0, 'the embed has no site chrome');
  await Promise.all([page.waitForNavigation(), page.locator('[data-testid="choice"][href*="gpu=est-a100-80gb-linux"]').click()]);
  assert.equal(new URL(page.url()).pathname, '/embed', 'a choice stays in the embed');
  await page.waitForSelector('#calc[data-ready="true"]');
  assert.equal(await page.inputValue('[data-testid="gpu"]'), 'est-a100-80gb-linux');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('<vram-calculator gpu="h100"> shows the choice as buttons, and a card\'s name plans its Linux entry, saying so', async () => {
  const page = await embedded(server, chrome, ['h100', 'RTX 4090', '5090']
    .map((g) => `<vram-calculator model="qwen3-8b-q8_0" gpu="${g}" len="8192"></vram-calculator>`).join('\n'));
  await page.waitForFunction(() => [...document.querySelectorAll('vram-calculator')].every((e) => e.dataset.ready === 'true'));
  const shown = (i, id) => page.evaluate(([i, id]) => {
    const t = document.querySelectorAll('vram-calculator')[i].shadowRoot.querySelector(`[data-testid="${id}"]`);
    return t.checkVisibility() ? t.textContent : '';
  }, [i, id]);
  const el = (i) => page.locator('vram-calculator').nth(i);
  assert.equal(await el(0).getAttribute('data-state'), 'error');
  assert.match(await shown(0, 'wc-error'), /"h100" fits 3 GPUs; choose one:/);
  const buttons = el(0).locator('[data-testid="wc-choice"]');
  assert.deepEqual(await buttons.allInnerTexts(), ['NVIDIA H100 NVL under Linux, estimated', 'NVIDIA H100 PCIe under Linux, estimated', 'NVIDIA H100 80GB HBM3 under Linux, estimated']);
  assert.equal(await shown(0, 'wc-verdict'), '', 'no plan beside the choice');
  await shot(page, 'component-chooser.png', { fullPage: true });
  await buttons.nth(1).click();
  await page.waitForFunction(() => document.querySelector('vram-calculator').dataset.state === 'planned');
  assert.equal(await el(0).getAttribute('gpu'), 'est-h100-pcie-linux');
  // The element gives no batch, so it plans at the CLI's default batch, as every surface does.
  const cli = (gpu) => planFigures(planJSON(['--model', 'qwen3-8b-q8_0', '--gpu', gpu, '--max-seq-len', '8192']));
  assert.equal(await shown(0, 'wc-total'), cli('est-h100-pcie-linux').total);
  assert.equal(await shown(0, 'wc-choices'), '', 'the choice is gone once made');

  assert.equal(await el(1).getAttribute('data-state'), 'planned');
  assert.equal(await shown(1, 'wc-gpu'), 'on NVIDIA GeForce RTX 4090');
  assert.equal(await shown(1, 'wc-total'), cli('RTX 4090').total);
  assert.match(await shown(1, 'wc-verdict'), /^Under Linux: /);
  assert.equal(await shown(2, 'wc-gpu'), 'on NVIDIA GeForce RTX 5090');
  assert.match(await shown(2, 'wc-gpu-note'), /est-rtx5090-linux.*also: rtx5090-wsl2-cuda13\.3 \(NVIDIA GeForce RTX 5090 under WSL2, measured\)/);
  assert.deepEqual(page.errors, []);
});
