// bench.mjs measures the calculator in chromium and prints a Markdown
// report (docs/benchmarks.md, "Browser calculator" holds one): the planner wasm's size, time
// to interactive on loopback, slider input to painted result, the bridge's
// calculate call, and an 8B-sized GGUF header read from a picked file by
// our reader (dist/gguf.wasm) and by @huggingface/gguf, the peer, on the
// same file in the same run. Run: make bench-web.

import { readFileSync, mkdtempSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { serve, browser, repo } from './harness.mjs';
import { writeGGUF } from './gguf.mjs';

const RUNS = +(process.env.RUNS ?? 10); // the peer's GGUF reads (each takes seconds)
const LOADS = +(process.env.LOADS ?? 20); // page loads for time to interactive
const MOVES = +(process.env.MOVES ?? 200);
const COLD = +(process.env.COLD ?? 40); // moves made at once when the page is interactive
const READS = +(process.env.READS ?? 30); // our GGUF reads
const q = 'model=qwen3-coder-30b-a3b-instruct-nvfp4&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=32768';

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(p / 100 * s.length) - 1)]; };
const ms = (x) => `${x.toFixed(1)} ms`;
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
const stats = (xs) => `p50 ${ms(pct(xs, 50))}, p95 ${ms(pct(xs, 95))}, max ${ms(Math.max(...xs))} (n=${xs.length})`;

function sizes(name = 'planner.wasm') {
  const wasm = readFileSync(join(repo, 'web/static/dist', name));
  const br = brotliCompressSync(wasm, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  return { raw: wasm.length, gzip: gzipSync(wasm, { level: 9 }).length, brotli: br.length };
}

async function tti(chrome, url) {
  const out = [];
  for (let i = 0; i < LOADS; i++) {
    const ctx = await chrome.newContext();
    const page = await ctx.newPage();
    await page.goto(`${url}?${q}`);
    await page.waitForSelector('#calc[data-ready="true"]');
    out.push(await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark')
      .filter((m) => m.name.startsWith('vramplan:')).map((m) => [m.name.slice(9), m.startTime]))));
    await ctx.close();
  }
  return out;
}

// sliderLatency presses arrow keys on the length and batch sliders and
// times each from keydown to the first task after the next frame, split
// into the page's input handling (and the planner's wasm calls within
// it, timed by wrapping globalThis.vramplan's functions, which bridge.js
// looks up on every call), the wait for the next frame to start, and the
// frame itself (style, layout, paint). With warm, the moves start once
// the page has warmed the planner up in idle time (#calc data-warm), as
// they would at a person's pace; without, at once when it is interactive.
async function sliderLatency(chrome, url, { warm, moves: n }) {
  const page = await (await chrome.newContext()).newPage();
  await page.goto(`${url}?${q}`);
  await page.waitForSelector(warm ? '#calc[data-warm="true"]' : '#calc[data-ready="true"]');
  await page.evaluate(() => {
    window.moves = [];
    let t0 = 0, t1 = 0, wasm = 0;
    const raw = globalThis.vramplan;
    for (const name of ['parseQuery', 'calculate', 'lenAt']) {
      const f = raw[name];
      raw[name] = (...args) => {
        const t = performance.now();
        try { return f(...args); } finally { wasm += performance.now() - t; }
      };
    }
    addEventListener('keydown', (e) => { t0 = e.timeStamp; t1 = performance.now(); wasm = 0; }, true);
    document.getElementById('controls').addEventListener('input', () => {
      const end = performance.now(), w = wasm; // runs after app.js's listener: plan and DOM written
      requestAnimationFrame(() => {
        const frame = performance.now();
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          const now = performance.now();
          window.moves.push({ deliver: t1 - t0, work: end - t0, handle: end - t1, wasm: w, wait: frame - end, frame: now - frame, paint: now - t0 });
        };
        ch.port2.postMessage(0);
      });
    });
  });
  const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  for (let i = 0; i < n; i++) {
    const slider = i % 2 ? '#batch-slider' : '#len-slider';
    await page.focus(slider);
    await page.keyboard.press(Math.floor(i / 20) % 2 ? 'ArrowLeft' : 'ArrowRight');
    await settle();
  }
  if (!warm) {
    const moves = await page.evaluate(() => window.moves);
    await page.context().close();
    return { paint: moves.map((m) => m.paint) };
  }
  const calc = await page.evaluate(async () => {
    const [m, c] = await Promise.all(['/api/models/qwen3-coder-30b-a3b-instruct-nvfp4', '/api/calibrations'].map((u) => fetch(u).then((r) => r.json())));
    const model = JSON.stringify(m), cal = JSON.stringify(c.find((x) => x.id === 'rtx5090-wsl2-cuda13.3'));
    const out = [];
    for (let i = 0; i < 500; i++) {
      const t0 = performance.now();
      globalThis.vramplan.calculate(`batch=${1 + (i % 64)}&len=${1024 * (1 + (i % 32))}`, model, cal);
      out.push(performance.now() - t0);
    }
    return out;
  });
  const moves = await page.evaluate(() => window.moves);
  const of = (k) => moves.map((m) => m[k]);
  return { paint: of('paint'), work: of('work'), deliver: of('deliver'), handle: of('handle'), wasm: of('wasm'), wait: of('wait'), frame: of('frame'), calc };
}

// quietScript defines quiet() in a page: it resolves after two frames and
// 50 ms more, so a timed read does not share its frames with the page
// painting the previous result (the same for ours and the peer).
const quietScript = () => {
  globalThis.quiet = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))));
};

// ggufOurs picks the GGUF in the calculator page: the first pick loads
// the reader module and plans; then vramplanGGUF.read is timed alone.
async function ggufOurs(chrome, url, file) {
  const page = await (await chrome.newContext()).newPage();
  await page.addInitScript(quietScript);
  await page.goto(`${url}?${q}`);
  await page.waitForSelector('#calc[data-ready="true"]');
  const t0 = Date.now();
  await page.setInputFiles('#file', file);
  await page.waitForFunction(() => document.querySelector('[data-testid="file-status"]').textContent.startsWith('Read'), null, { timeout: 60000 });
  const first = Date.now() - t0;
  const times = await page.evaluate(async (runs) => {
    const file = document.getElementById('file').files[0];
    const out = [];
    for (let i = 0; i < runs; i++) {
      await quiet();
      const t0 = performance.now();
      const m = JSON.parse(await globalThis.vramplanGGUF.read(file));
      out.push(performance.now() - t0);
      if (m.layers[0].count !== 32) throw new Error(`${m.layers[0].count} layers`);
    }
    return out;
  }, READS);
  return { first, times };
}

// ggufPeer reads the header of the same GGUF picked in a page with
// @huggingface/gguf, serving its ESM from node_modules.
async function ggufPeer(chrome, url, file) {
  const ctx = await chrome.newContext();
  await ctx.route('**/bench/peer.html', (r) => r.fulfill({ contentType: 'text/html', body: `<!doctype html>
    <script type="importmap">{"imports":{"@huggingface/tasks":"/node_modules/@huggingface/tasks/dist/esm/index.js"}}</script>
    <input type="file" id="f"><script type="module">
      import { gguf } from '/node_modules/@huggingface/gguf/dist/browser/index.mjs';
      window.peer = gguf; document.body.dataset.ready = 'true';
    </script>` }));
  await ctx.route('**/node_modules/**', (r) => r.fulfill({ path: join(repo, new URL(r.request().url()).pathname), contentType: 'text/javascript' }));
  const page = await ctx.newPage();
  await page.addInitScript(quietScript);
  await page.goto(`${url}bench/peer.html`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.setInputFiles('#f', file);
  const times = await page.evaluate(async (runs) => {
    const file = document.getElementById('f').files[0];
    const sliceFetch = async (_url, init) => {
      const [a, b] = /bytes=(\d+)-(\d+)/.exec(init.headers.Range).slice(1).map(Number);
      return new Response(file.slice(a, b + 1), { status: 206 });
    };
    const out = [];
    for (let i = 0; i < runs; i++) {
      await quiet();
      const t0 = performance.now();
      const { tensorInfos } = await window.peer('https://local.invalid/model.gguf', { fetch: sliceFetch });
      out.push(performance.now() - t0);
      if (tensorInfos.length !== 291) throw new Error(`${tensorInfos.length} tensors`);
    }
    return out;
  }, RUNS);
  return { times };
}

const server = await serve();
const chrome = await browser();
try {
  await fetch(`${server.url}static/dist/planner.wasm`, { headers: { 'accept-encoding': 'gzip' } }).then((r) => r.arrayBuffer());
  const s = sizes();
  const gs = sizes('gguf.wasm');
  const t = await tti(chrome, server.url);
  const cold = await sliderLatency(chrome, server.url, { warm: false, moves: COLD });
  const l = await sliderLatency(chrome, server.url, { warm: true, moves: MOVES });
  const file = join(mkdtempSync(join(tmpdir(), 'vramplan-bench-')), 'llama-3-8b-q8_0.gguf');
  const shape = writeGGUF(file);
  const ours = await ggufOurs(chrome, server.url, file);
  const peer = await ggufPeer(chrome, server.url, file);
  const header = `llama-3-8B Q8_0 header (${kb(shape.header)} of ${(shape.size / 2 ** 30).toFixed(1)} GiB) from a picked file`;
  console.log(`## Browser calculator (chromium ${chrome.version()}, ${cpus().length} × ${cpus()[0].model}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})

| measure | result | target |
|---|---|---|
| planner.wasm raw / gzip -9 / brotli 11 | ${kb(s.raw)} / ${kb(s.gzip)} / ${kb(s.brotli)} | gzip ≤ 1 MB (${s.gzip <= 1e6 ? 'met' : 'missed'}) |
| time to interactive, loopback, fresh profile | ${stats(t.map((x) => x.interactive))} | ≤ 1 s |
| … of which: wasm fetched and compiled (started from the <head>) at | ${stats(t.map((x) => x.compiled))} | |
| … instantiated at | ${stats(t.map((x) => x.instantiated))} | |
| … Go runtime started at | ${stats(t.map((x) => x.started))} | |
| slider keydown → plan computed and DOM written | ${stats(l.work)} | |
| … of which the input's delivery: the event's timestamp to the page's first keydown listener | ${stats(l.deliver)} | |
| … of which the page's handling: keydown listener to the end of the input listeners | ${stats(l.handle)} | |
| … of which in the planner's wasm (calculate; lenAt once per slider index) | ${stats(l.wasm)} | |
| … then until the next frame starts (requestAnimationFrame) | ${stats(l.wait)} | |
| … then the frame: style, layout, paint, to the first task after it | ${stats(l.frame)} | |
| slider keydown → painted (first task after the next frame) | ${stats(l.paint)} | p95 ≤ 16 ms (${pct(l.paint, 95) <= 16 ? 'met' : 'missed'}) |
| … the first ${COLD} moves, made at once when the page is interactive, before its warm-up | ${stats(cold.paint)} | — |
| calculate() in wasm (plan + levers + 16-point frontier + view) | ${stats(l.calc)} | — |
| gguf.wasm (the model-file reader, loaded on the first pick) raw / gzip -9 / brotli 11 | ${kb(gs.raw)} / ${kb(gs.gzip)} / ${kb(gs.brotli)} | — |
| first pick: reader fetched, compiled, started; header read; plan painted | ${ms(ours.first)} (n=1) | — |
| ours, vramplanGGUF.read: ${header} | ${stats(ours.times)} | ≤ 150 ms (p50 ${pct(ours.times, 50) <= 150 ? 'met' : 'missed'}, p95 ${pct(ours.times, 95) <= 150 ? 'met' : 'missed'}) |
| @huggingface/gguf: the same header, same file | ${stats(peer.times)} | the peer |
`);
} finally {
  await chrome.close();
  server.stop();
}
