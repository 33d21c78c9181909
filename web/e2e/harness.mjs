// harness.mjs starts bin/vramplan serve on a free loopback port and Debian's
// chromium through playwright-core, for the browser tests and benchmarks.

import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = join(repo, 'bin', 'vramplan');
export const shots = join(repo, 'test-output', 'e2e');
mkdirSync(shots, { recursive: true });

/** serve starts the server (with extra flags) and resolves to its base URL and a stop function. */
export function serve(flags = []) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['serve', '--addr', '127.0.0.1:0', ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
    p.on('error', reject);
    p.stdout.on('data', (d) => {
      const m = /http:\/\/[^\s/]+\//.exec(String(d));
      if (m) resolve({ url: m[0], stop: () => p.kill('SIGTERM') });
    });
  });
}

/**
 * embedded opens a documentation page that embeds <vram-calculator> (body
 * is the page's markup), served from another origin (a second loopback
 * server, as a docs site on its own port would be), so the element loads
 * its module, wasm and API across origins. Closing the page's context
 * stops that server.
 */
export async function embedded(server, chrome, body) {
  const site = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><body><script type="module" src="${server.url}static/vram-calculator.js"></script>${body}</body></html>`);
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', r));
  const ctx = await chrome.newContext();
  ctx.on('close', () => site.close());
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`http://127.0.0.1:${site.address().port}/guide`);
  return page;
}

/**
 * opener returns open(query, {path, ...contextOptions}): a page of the
 * calculator at path ('' or 'embed') for the query, in a new context that
 * contexts collects (a test file closes them as each test ends: left open,
 * their keep-alive connections pile up past serve's cap on one peer's
 * connections, 64, and a later page is refused its wasm). The page keeps
 * its response and its uncaught errors, and with JavaScript on it is
 * returned once the planner is ready.
 */
export function opener(server, chrome, contexts) {
  return async (query, { path = '', ...opts } = {}) => {
    const ctx = await chrome().newContext(opts);
    contexts.push(ctx);
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.response = await page.goto(`${server().url}${path}?${query}`);
    if (opts.javaScriptEnabled !== false) await page.waitForSelector('#calc[data-ready="true"]');
    page.errors = errors;
    return page;
  };
}

/**
 * settled resolves to the page's query once the URL has held still for
 * 300 ms (app.js writes it 100 ms after the last input, later under load).
 */
export async function settled(page) {
  let last = page.url();
  for (let still = 0; still < 3; still++) {
    await page.waitForTimeout(100);
    if (page.url() !== last) { last = page.url(); still = -1; }
  }
  return new URL(last).search.slice(1);
}

/** browser launches chromium; playwright gives it a fresh temporary profile. */
export function browser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    headless: true,
  });
}

/** planJSON runs `vramplan plan --json` with flags and returns the plan document. */
export function planJSON(args) {
  try {
    return JSON.parse(execFileSync(bin, ['plan', '--json', ...args], { encoding: 'utf8' }));
  } catch (e) {
    if (e.status === 1) return JSON.parse(e.stdout); // does not fit: still a plan
    throw e;
  }
}

/** text returns the trimmed text of the element with a data-testid. */
export const text = (page, id) => page.locator(`[data-testid="${id}"]`).first().innerText().then((s) => s.trim());

export const mib = (bytes) => Math.trunc(bytes / 2 ** 20); // as planner.Bytes.MiB

/** cliFlags turns a calculator query into `vramplan plan` flags for the same input. */
export function cliFlags(query) {
  const q = new URLSearchParams(query);
  const model = q.get('model');
  const flags = ['--model', model, // a catalog id or a file's path
    '--gpu', q.get('gpu'), '--max-batch', q.get('batch'), '--max-seq-len', q.get('len')];
  if (q.get('engine')) flags.push('--engine', q.get('engine')); // the page plans under it; none is vramplan's own
  const opt = { kv: '--kv-dtype', block: '--block-tokens', prefill: '--max-prefill-tokens', cache: '--weight-cache', spec: '--spec-k' };
  for (const [k, f] of Object.entries(opt)) if (q.has(k)) flags.push(f, q.get(k));
  if (q.get('vision') === '1') flags.push('--vision');
  if (q.get('graphs') === '1') flags.push('--cuda-graphs');
  if (q.has('budget')) flags.push('--budget', `${q.get('budget')}MiB`);
  if (q.get('version') && q.get('engine')) flags.push('--engine-version', q.get('version')); // the page plans it under an engine only
  if (q.get('engine') === 'llama.cpp' && ['layer', 'tensor'].includes(q.get('sm'))) { // calc's parseSplitMode: the GPUs move
    const n = Math.max(1, +q.get('tp') || 1) * Math.max(1, +q.get('pp') || 1);
    q.delete('tp'); q.delete('pp');
    if (n > 1) q.set(q.get('sm') === 'tensor' ? 'tp' : 'pp', String(n));
  }
  const layout = { tp: '--tensor-parallel', pp: '--pipeline-parallel', ep: '--expert-parallel', dp: '--data-parallel', ts: '--tensor-split',
    ngl: '--gpu-layers' };
  for (const [k, f] of Object.entries(layout)) if (q.get(k)) flags.push(f, q.get(k)); // empty is unset, as the server reads it
  return flags;
}

/** figures reads every number the result shows, by data-testid. */
export function figures(page) {
  return page.evaluate(() => {
    const t = (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent.trim();
    const items = {};
    for (const tr of document.querySelectorAll('[data-testid^="item-"]:not([data-testid="item-mib"])')) {
      items[tr.dataset.testid.slice(5)] = tr.querySelector('[data-testid="item-mib"]').textContent.trim();
    }
    const warnings = [...document.querySelectorAll('[data-testid="warning"]')].map((w) => w.textContent.trim());
    return { fits: document.querySelector('[data-testid="verdict"]').dataset.fits, verdict: t('verdict'),
      total: t('total-mib'), budget: t('budget-mib'), headroom: t('headroom-mib'),
      maxSeqs: t('max-seqs'), maxLen: t('max-len'), kv: document.querySelector('.items caption [data-testid="kv"]').textContent.trim(), items, warnings };
  });
}

/** bindingPlan is the plan of a layout's binding rank, or p itself for one GPU. */
export const bindingPlan = (p) => (p.layout ? p.layout.ranks.find((r) => r.ranks.includes(p.layout.binding_rank)).plan : p);

/**
 * planFigures is what figures should read for a plan document: the totals
 * over every GPU, the line items of one (a layout's binding rank).
 */
export function planFigures(p) {
  const items = {};
  for (const it of bindingPlan(p).items) items[it.key] = group(mib(it.bytes));
  return { fits: String(p.fits), total: group(mib(p.total_bytes)), budget: group(mib(p.budget_bytes)),
    headroom: group(mib(p.headroom_bytes)), maxSeqs: group(p.capacity.max_seqs_at_max_len),
    maxLen: group(p.capacity.max_len_at_batch), items, warnings: p.warnings ?? [] };
}

/** group writes a whole number with thousands separators, as the page shows it: 143,771. */
export const group = (n) => n.toLocaleString('en-US');

/**
 * shot saves a screenshot of page under shots. Screenshots are evidence,
 * not assertions: a capture that times out (headless chromium has once
 * left one unanswered for 30 s in a full run, and not in 40 tries since)
 * is retried once, after checking that the page still runs script; a page
 * that does not fails the test.
 */
export async function shot(page, name, opts = {}) {
  const path = join(shots, name);
  try {
    return await page.screenshot({ path, timeout: 10000, ...opts });
  } catch (e) {
    if (e.name !== 'TimeoutError') throw e;
    const alive = await Promise.race([page.evaluate(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
    if (!alive) throw new Error(`${name}: the page stopped answering script while its screenshot was taken`);
    console.error(`# ${name}: screenshot timed out once; retrying`);
    return page.screenshot({ path, timeout: 20000, ...opts });
  }
}
