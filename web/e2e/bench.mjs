// bench.mjs measures the calculator in chromium and prints a Markdown
// report (docs/benchmarks.md, "Browser calculator" holds one): the planner wasm's size, time
// to interactive on loopback, slider input to painted result, the bridge's
// calculate call, and an 8B-sized GGUF header read from a picked file by
// our reader (dist/gguf.wasm) and by @huggingface/gguf, the peer, on the
// same file in the same run, and the "Which GPUs" table's call. Run: make
// bench-web; ONLY=gpus node web/e2e/bench.mjs measures the table alone.

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
const TABLE = +(process.env.TABLE ?? 300); // the "Which GPUs" table's calls
const TABLE_WARM = 20; // of which the first, the module's compiling them, are not counted

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(p / 100 * s.length) - 1)]; };
const ms = (x) => `${x.toFixed(1)} ms`;
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
const stats = (xs) => `p50 ${ms(pct(xs, 50))}, p95 ${ms(pct(xs, 95))}, max ${ms(Math.max(...xs))} (n=${xs.length})`;

function sizes(name = 'planner.wasm') {
  const wasm = readFileSync(join(repo, 'web/static/dist', name));
  const br = brotliCompressSync(wasm, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  return { raw: wasm.length, gzip: gzipSync(wasm, { level: 9 }).length, brotli: br.length };
}

// tti times LOADS page loads, each in a fresh browser context (an empty
// cache and a new renderer), after one load it reports apart: a browser
// just launched is still starting its own services, which a person's
// browser, already running, is not (that first load was often a run's
// slowest).
async function tti(chrome, url) {
  const out = [];
  let first;
  for (let i = -1; i < LOADS; i++) {
    const ctx = await chrome.newContext();
    const page = await ctx.newPage();
    await page.goto(`${url}?${q}`);
    await page.waitForSelector('#calc[data-ready="true"]');
    const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark')
      .filter((m) => m.name.startsWith('vramplan:')).map((m) => [m.name.slice(9), m.startTime])));
    if (i < 0) first = marks;
    else out.push(marks);
    await ctx.close();
  }
  out.first = first;
  return out;
}

// instrument times every slider move in a page from the keydown event's
// timestamp to the first task after the next frame: the input's delivery
// (timestamp to the page's first keydown listener), the page's handling
// (to the end of the input listeners under root: plan computed, DOM
// written; the planner's wasm calls within it are timed by wrapping
// globalThis.vramplan's functions, which bridge.js looks up on every
// call), the wait for the next frame to start (requestAnimationFrame),
// and the frame itself (style, layout, paint, to a MessageChannel task).
function instrument(root) {
  window.moves = [];
  let t0 = 0, t1 = 0, wasm = 0;
  const raw = globalThis.vramplan ?? {};
  for (const name of ['parseQuery', 'calculate', 'gpus', 'lenAt'].filter((n) => raw[n])) {
    const f = raw[name];
    raw[name] = (...args) => {
      const t = performance.now();
      try { return f(...args); } finally { wasm += performance.now() - t; }
    };
  }
  addEventListener('keydown', (e) => { t0 = e.timeStamp; t1 = performance.now(); wasm = 0; }, true);
  document.querySelector(root).addEventListener('input', () => {
    const end = performance.now(), w = wasm; // after the page's own listeners
    requestAnimationFrame(() => {
      const frame = performance.now();
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        const now = performance.now();
        window.moves.push({ deliver: t1 - t0, handle: end - t1, wasm: w, wait: frame - end, frame: now - frame,
          own: end - t1 + now - frame, paint: now - t0 });
      };
      ch.port2.postMessage(0);
    });
  });
}

// press makes n moves on #len-slider and #batch-slider, in runs of 20 on
// one slider (len up, batch up, len down, batch down, …), as a person
// moves one slider at a time. Before each key it waits for the page to
// paint the last move and then a random 0–17 ms, so keys land at random
// points of the display's 60 Hz frame interval, as a person's do.
async function press(page, n) {
  for (let i = 0; i < n; i++) {
    const run = Math.floor(i / 20);
    if (i % 20 === 0) await page.focus(run % 2 ? '#batch-slider' : '#len-slider');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    await new Promise((r) => setTimeout(r, Math.random() * 17));
    await page.keyboard.press(run % 4 < 2 ? 'ArrowRight' : 'ArrowLeft');
  }
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  const moves = await page.evaluate(() => window.moves);
  return Object.fromEntries(Object.keys(moves[0]).map((k) => [k, moves.map((m) => m[k])]));
}

// sliderLatency times moves in the calculator. With warm, the moves start
// once the page has warmed the planner up in idle time (#calc data-warm),
// as they would at a person's pace; without, at once when it is interactive.
async function sliderLatency(chrome, url, { warm, moves: n }) {
  const page = await (await chrome.newContext()).newPage();
  await page.goto(`${url}?${q}`);
  await page.waitForSelector(warm ? '#calc[data-warm="true"]' : '#calc[data-ready="true"]');
  await page.evaluate(instrument, '#controls');
  const moves = await press(page, n);
  if (!warm) {
    await page.context().close();
    return moves;
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
  await page.context().close();
  return { ...moves, calc };
}

// gpusTable times the "Which GPUs" table's call, vramplan.gpus, in the
// page's wasm, as a slider move makes it: the question
// (Llama-3.3-70B in FP8 under vLLM) on every calibration of the table,
// each with its fewest-GPUs search, at the lengths and batches the sliders
// move through, the documents passed once as the bridge does.
async function gpusTable(chrome, url) {
  const page = await (await chrome.newContext()).newPage();
  await page.goto(`${url}?model=llama-3.3-70b-instruct-fp8&gpu=h200-linux-cuda13.0&engine=vllm&len=32768`);
  await page.waitForSelector('#calc[data-warm="true"]');
  const r = await page.evaluate(async ([n, warm]) => {
    const [m, c] = await Promise.all(['/api/models/llama-3.3-70b-instruct-fp8', '/api/calibrations'].map((u) => fetch(u).then((x) => x.json())));
    const v = globalThis.vramplan;
    const first = JSON.parse(v.gpus('engine=vllm&len=32768', JSON.stringify(m), JSON.stringify(c)));
    const out = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      v.gpus(`engine=vllm&batch=${i % 17}&len=${1024 * (1 + (i % 64))}`);
      out.push(performance.now() - t0);
    }
    return { rows: first.rows.length, multi: first.rows.filter((x) => x.gpus > 1).length, times: out.slice(warm) };
  }, [TABLE, TABLE_WARM]);
  await page.context().close();
  return r;
}

const tableRow = (g) => `| gpus() in wasm: the "Which GPUs" table, Llama-3.3-70B FP8 under vLLM on all ${g.rows} calibrations (${g.multi} needing more than one GPU), each with its fewest-GPUs search; the first ${TABLE_WARM} calls not counted | ${stats(g.times)} | p95 ≤ 5 ms (${pct(g.times, 95) <= 5 ? 'met' : 'missed'}) |`;

// sliderFloor times the same moves in a page of two bare range inputs
// that do nothing on input: what the browser alone takes from a key to a
// painted frame on this machine, the floor under the calculator's figure.
async function sliderFloor(chrome, url, n) {
  const ctx = await chrome.newContext();
  await ctx.route('**/bench/sliders.html', (r) => r.fulfill({ contentType: 'text/html', body: `<!doctype html>
    <form id="f"><input type="range" id="len-slider" min="0" max="48" value="28">
    <input type="range" id="batch-slider" min="1" max="256" value="8"></form>` }));
  const page = await ctx.newPage();
  await page.goto(`${url}bench/sliders.html`);
  await page.evaluate(instrument, '#f');
  const moves = await press(page, n);
  await ctx.close();
  return moves;
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
  if (process.env.ONLY === 'gpus') {
    const g = await gpusTable(chrome, server.url);
    console.log(`## "Which GPUs" (chromium ${chrome.version()}, ${cpus().length} × ${cpus()[0].model}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})

| measure | result | target |
|---|---|---|
${tableRow(g)}`);
  } else {
    await fetch(`${server.url}static/dist/planner.wasm`, { headers: { 'accept-encoding': 'gzip' } }).then((r) => r.arrayBuffer());
    const s = sizes();
    const gs = sizes('gguf.wasm');
    const t = await tti(chrome, server.url);
    const cold = await sliderLatency(chrome, server.url, { warm: false, moves: COLD });
    const l = await sliderLatency(chrome, server.url, { warm: true, moves: MOVES });
    const floor = await sliderFloor(chrome, server.url, MOVES);
    const g = await gpusTable(chrome, server.url);
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
| the first load after the browser's launch, not in the rows above | ${ms(t.first.interactive)} (n=1) | — |
| slider key → painted: the keydown's timestamp to the first task after the frame that shows the new plan | ${stats(l.paint)} | p95 ≤ 16 ms (${pct(l.paint, 95) <= 16 ? 'met' : 'missed'}) |
| … the same keys on two bare sliders that do nothing on input: the browser alone | ${stats(floor.paint)} | the floor |
| … of which the input's delivery: the timestamp to the page's first keydown listener | ${stats(l.deliver)} | |
| … of which the page's handling: that listener to the end of the input listeners (plan computed, DOM written) | ${stats(l.handle)} | |
| … … in the planner's wasm (calculate and gpus; lenAt once per slider index) | ${stats(l.wasm)} | |
| … of which the wait for the next frame to start (requestAnimationFrame) | ${stats(l.wait)} | |
| … of which the frame: style, layout, paint, to the first task after it | ${stats(l.frame)} | |
| … the page's own part: its handling and the frame, without the two waits | ${stats(l.own)} | |
| … the first ${COLD} moves, made at once when the page is interactive, before its warm-up | ${stats(cold.paint)} | — |
| calculate() in wasm (plan + levers + 16-point frontier + view) | ${stats(l.calc)} | — |
${tableRow(g)}
| gguf.wasm (the model-file reader, loaded on the first pick) raw / gzip -9 / brotli 11 | ${kb(gs.raw)} / ${kb(gs.gzip)} / ${kb(gs.brotli)} | — |
| first pick: reader fetched, compiled, started; header read; plan painted | ${ms(ours.first)} (n=1) | — |
| ours, vramplanGGUF.read: ${header} | ${stats(ours.times)} | ≤ 150 ms (p50 ${pct(ours.times, 50) <= 150 ? 'met' : 'missed'}, p95 ${pct(ours.times, 95) <= 150 ? 'met' : 'missed'}) |
| @huggingface/gguf: the same header, same file | ${stats(peer.times)} | the peer |
`);
  }
} finally {
  await chrome.close();
  server.stop();
}
