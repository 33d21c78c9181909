// The page's state and its looks (issue 27 §11, §13), in Debian's chromium:
// a length out of range says so in the tab title and in a person's words;
// a JSON that is not a model says what it is not; a page that plans
// nothing logs no console error; and the page, /embed and
// <vram-calculator> follow prefers-color-scheme, the element's theme
// attribute overriding it. Screenshots of both schemes are kept.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, browser, shot, shots } from './harness.mjs';

const query = 'model=qwen3-8b-q8_0&gpu=h200-linux-cuda13.0&batch=8&len=4096';
let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

// open loads a page and collects its script errors and console errors.
async function open(path, opts = {}) {
  const page = await (await chrome.newContext(opts)).newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(e.message));
  // The document's own 400 or 404 is its answer, not a problem of the page.
  page.on('console', (m) => { if (m.type() === 'error' && m.location().url !== page.url()) page.problems.push(m.text()); });
  await page.goto(`${server.url}${path}`);
  return page;
}

test('a length out of range says so in the title and in the page\'s words', async () => {
  const page = await open(`?${query}`);
  await page.waitForSelector('#calc[data-ready="true"]');
  assert.match(await page.title(), / · Fits /);
  await page.fill('[data-testid="len"]', '999999999');
  const want = 'Max sequence length: 999,999,999 is too large: it takes 1 to 134,217,728 tokens.';
  await page.waitForFunction((w) => document.querySelector('[data-testid="error"]')?.textContent === w, want);
  await page.waitForFunction((w) => document.title === `vramplan · not planned: ${w}`, want);
  await page.fill('[data-testid="len"]', '4096');
  await page.waitForFunction(() => / · Fits /.test(document.title));
  assert.deepEqual(page.problems, []);
});

test('an estimated GPU says so under the verdict, and its link opens how it was estimated', async () => {
  const page = await open('?model=qwen3-8b-q8_0&gpu=est-rtx4090-linux&batch=0&len=4096');
  await page.waitForSelector('#calc[data-ready="true"]');
  assert.match(await page.innerText('[data-testid="estimate"]'), /^Estimated, not measured: est-rtx4090-linux .* up to 795 MiB less than planned\. The [\d,]+ MiB to spare is less than that: it may not fit\. How it was estimated$/);
  await page.fill('[data-testid="len"]', '2048'); // the wasm's repaint says it too
  await page.waitForFunction(() => document.querySelector('[data-testid="subject"]').textContent.includes('2,048 tokens'));
  assert.match(await page.innerText('[data-testid="estimate-text"]'), /^Estimated, not measured: /);
  await Promise.all([page.waitForURL(/\/calibrations#est-rtx4090-linux$/), page.click('[data-testid="estimate-link"]')]);
  assert.equal(await page.getAttribute('#est-rtx4090-linux [data-testid="cal-estimate"]', 'open'), '', 'how it was estimated is open');
  await shot(page, 'estimate-link.png');
  assert.deepEqual(page.problems, []);
});

test('a JSON file that is not a model says what it is not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'state-'));
  const files = { 'settings.json': '{"theme": "dark", "fontSize": 14}', 'broken.json': '{"model_type": "llama",' };
  for (const [n, t] of Object.entries(files)) writeFileSync(join(dir, n), t);
  const page = await open(`?${query}`);
  await page.waitForSelector('#calc[data-ready="true"]');
  for (const [name, words] of [['settings.json', /^Could not read settings\.json: it is JSON, but not a model's config\.json \(it names no model_type or architectures\) or a vramplan model-shape file \(it has no layers\)\. /],
    ['broken.json', /^Could not read broken\.json: it is not valid JSON\. /]]) {
    await page.setInputFiles('[data-testid="file"]', join(dir, name));
    await page.waitForFunction((n) => document.querySelector('[data-testid="file-status"]').textContent.startsWith(`Could not read ${n}`), name);
    assert.match(await page.innerText('[data-testid="file-status"]'), words);
  }
  assert.deepEqual(page.problems, []);
});

test('a page that plans nothing logs no console error', async () => {
  for (const path of ['?len=-4', '?model=nosuch', '?batch=lots', `embed?len=0`]) {
    const page = await open(path);
    await page.waitForSelector('#calc[data-ready="true"]');
    assert.equal(await page.getAttribute('#result', 'data-planned'), 'false', path);
    await page.waitForTimeout(300);
    assert.deepEqual(page.problems, [], `${path}: console errors`);
    await page.context().close();
  }
});

// background reads the colour an element is painted on: its own
// background, or the nearest ancestor's that is not transparent.
const background = (page, sel) => page.evaluate((s) => {
  for (let e = document.querySelector(s); e; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor;
    if (c !== 'rgba(0, 0, 0, 0)') return c;
  }
  return 'rgb(255, 255, 255)';
}, sel);
const dark = (rgb) => rgb.match(/\d+/g).slice(0, 3).reduce((a, n) => a + +n, 0) < 3 * 80;

test('the page, /embed and <vram-calculator> follow prefers-color-scheme; the element\'s theme attribute overrides it', async () => {
  for (const colorScheme of ['light', 'dark']) {
    for (const path of [`?${query}`, `embed?${query}`]) {
      const page = await open(path, { colorScheme });
      await page.waitForSelector('#calc[data-ready="true"]');
      assert.equal(dark(await background(page, 'body')), colorScheme === 'dark', `${path} in ${colorScheme}: the body`);
      assert.equal(dark(await background(page, '.controls fieldset')), colorScheme === 'dark', `${path} in ${colorScheme}: a fieldset`);
      await shot(page, `${path.startsWith('embed') ? 'embed' : 'page'}-${colorScheme}.png`, { fullPage: true });
      assert.deepEqual(page.problems, []);
      await page.context().close();
    }
    const docs = await open('docs', { colorScheme });
    await docs.evaluate(() => {
      for (const theme of [null, 'light', 'dark']) {
        const e = document.createElement('vram-calculator');
        e.setAttribute('model', 'qwen3-8b-q8_0'); e.setAttribute('gpu', 'h200');
        if (theme) e.setAttribute('theme', theme);
        e.id = `wc-${theme ?? 'auto'}`;
        document.querySelector('main').append(e);
      }
    });
    for (const [id, isDark] of [['wc-auto', colorScheme === 'dark'], ['wc-light', false], ['wc-dark', true]]) {
      await docs.waitForSelector(`#${id}[data-ready="true"]`);
      assert.equal(dark(await background(docs, `#${id}`)), isDark, `${id} in ${colorScheme}`);
    }
    await docs.locator('#wc-auto').screenshot({ path: join(shots, `component-${colorScheme}.png`) });
    assert.deepEqual(docs.problems, []);
    await docs.context().close();
  }
  const page = await open('docs');
  await page.evaluate(() => { const e = document.createElement('vram-calculator'); e.id = 'bad'; e.setAttribute('model', 'qwen3-8b-q8_0'); e.setAttribute('gpu', 'h200'); e.setAttribute('theme', 'blue'); document.body.append(e); });
  await page.waitForSelector('#bad[data-state="error"]');
  assert.equal(await page.locator('#bad [data-testid="wc-error"]').innerText(), 'theme "blue" is not one of light, dark, auto');
});

