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
  return planJSON(cliFlags(query)).engine;
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

// notesOf reads the engine's notes the page shows, and whether their list
// is shown at all.
const notesOf = (page) => page.evaluate(() => {
  const list = document.querySelector('[data-testid="engine-notes"]');
  return { shown: !list.hidden && list.offsetParent !== null, notes: [...list.querySelectorAll('[data-testid="engine-note"]')].map((n) => n.textContent) };
});

// settledQuery returns the page's query once the URL has held still for
// 300 ms after it stopped being from (app.js writes it 100 ms after the
// last input, later under load).
async function settledQuery(page, from) {
  await page.waitForFunction((f) => location.search.slice(1) !== f, from);
  let last = page.url();
  for (let still = 0; still < 3; still++) {
    await page.waitForTimeout(100);
    if (page.url() !== last) { last = page.url(); still = -1; }
  }
  return new URL(last).search.slice(1);
}

const over = 'model=llama-3.3-70b-instruct-q4_k_m&gpu=rtx5090-wsl2-cuda13.3&engine=llama.cpp&batch=4&len=65536';

test('the engine\'s notes are the CLI\'s: "as asked, -ngl N does not fit" server-rendered, after a slider move, in the embed and <vram-calculator>; a plan with none shows none', async () => {
  const want = engineCLI(over).notes ?? [];
  const fit = want.find((n) => n.startsWith('as asked, -ngl '));
  assert.match(fit ?? '', /^as asked, -ngl 81 does not fit: the launch command is the one with -ngl \d+, /, 'the CLI names the -ngl asked and the one that fits');
  for (const path of ['', 'embed']) {
    const ctx = await chrome.newContext({ javaScriptEnabled: false });
    const noJS = await ctx.newPage();
    await noJS.goto(`${server.url}${path}?${over}`);
    assert.deepEqual(await notesOf(noJS), { shown: true, notes: want }, `/${path} without JavaScript`);
    await ctx.close();
  }

  const page = await (await chrome.newContext()).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.url}?${over}`);
  await page.waitForSelector('#calc[data-ready="true"]');
  assert.deepEqual(await notesOf(page), { shown: true, notes: want }, 'the live page');
  await page.focus('[data-testid="len-slider"]');
  await page.keyboard.press('ArrowLeft');
  const moved = await settledQuery(page, over);
  assert.notEqual(new URLSearchParams(moved).get('len'), '65536');
  const after = engineCLI(moved).notes ?? [];
  assert.ok(after.some((n) => n.startsWith('as asked, -ngl ')) && after.join() !== want.join(), `${moved}: the CLI's notes move with the length`);
  assert.deepEqual(await notesOf(page), { shown: true, notes: after }, `after the slider move (${moved})`);

  await page.selectOption('[data-testid="engine-picker"]', '');
  await page.waitForFunction(() => document.querySelector('[data-testid="engine"]').textContent.includes('gpuagent'));
  assert.deepEqual(await notesOf(page), { shown: false, notes: [] }, 'vramplan\'s engine has no notes');
  assert.deepEqual(errors, []);

  assert.equal(engineCLI(llama).notes, undefined, `${llama}: the CLI gives no notes`);
  const ctx = await chrome.newContext({ javaScriptEnabled: false });
  const none = await ctx.newPage();
  await none.goto(`${server.url}?${llama}`);
  assert.deepEqual(await notesOf(none), { shown: false, notes: [] }, 'a plan without notes, server-rendered');
  await ctx.close();

  const docs = await (await chrome.newContext()).newPage();
  await docs.goto(`${server.url}docs`);
  await docs.evaluate(() => {
    const wc = document.createElement('vram-calculator');
    wc.id = 'notes-wc';
    for (const [k, v] of Object.entries({ model: 'llama-3.3-70b-instruct-q4_k_m', gpu: 'rtx5090-wsl2-cuda13.3', engine: 'llama.cpp', batch: '4', len: '65536' })) wc.setAttribute(k, v);
    document.body.append(wc);
  });
  const wc = docs.locator('#notes-wc[data-ready="true"]');
  await wc.waitFor();
  assert.deepEqual(await wc.locator('[data-testid="wc-notes"] li').allTextContents(), want, '<vram-calculator>');
});
