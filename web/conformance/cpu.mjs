// cpu.mjs measures the CPU time the worker spends on one request, the
// figure the free plan limits to 10 ms: `make bench-worker` runs it after
// bench.mjs. It runs build/worker/app.wasm in this Node (22, the V8 that
// workerd embeds) the way syumai/workers' worker.mjs does for every fetch —
// a fresh Go instance, run until it is ready, then handleRequest — and
// reads process.cpuUsage() around each step: "start" is instantiating the
// module, the Go runtime, package init and main (web.New), "handle" is the
// request itself. The process's CPU includes V8's and the collector's
// helper threads, so the figures are upper bounds of the isolate's own.
// There is no D1 binding here, so only the routes that need no store are
// timed (the worker logs that it has no upload store).
//
// Usage: node web/conformance/cpu.mjs [N] [DIR]   (default 100, build/worker)

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repo } from './servers.mjs';

const n = Number(process.argv[2] ?? 100);
const dir = process.argv[3] ?? join(repo, 'build', 'worker');
const b1 = 'model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096&kv=fp8&block=16';
const paths = { '/nosuch (no route)': '/nosuch', 'GET /api/plan?…': `/api/plan?${b1}`, 'page /?…': `/?${b1}`,
  'GET /api/calibrations': '/api/calibrations' };

await import(join(dir, 'wasm_exec.js'));
globalThis.tryCatch = (fn) => { try { return { result: fn() }; } catch (e) { return { error: e }; } };
const mod = await WebAssembly.compile(readFileSync(join(dir, 'app.wasm')));
const log = console.log;

const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

// once serves path from a fresh instance and returns its [start, handle] ms.
async function once(path) {
  const c0 = cpu();
  const go = new Go();
  let ready;
  const started = new Promise((r) => { ready = r; });
  const binding = {};
  const inst = new WebAssembly.Instance(mod, { ...go.importObject, workers: { ready: () => ready() } });
  go.run(inst, { env: {}, ctx: { waitUntil() {}, passThroughOnException() {} }, binding });
  await started;
  const c1 = cpu();
  const res = await binding.handleRequest(new Request('http://localhost' + path));
  await res.arrayBuffer();
  if (res.status >= 500) throw new Error(`${path}: ${res.status}`);
  return [c1 - c0, cpu() - c1];
}

// wasm_exec.js prints the Go side's stderr with console.log: drop the
// worker's note that it has no upload store, made once per instance.
console.log = (...a) => { if (!String(a[0]).startsWith('worker: no upload store')) log(...a); };
try {
  console.log(`| request | start p50 | start p95 | handle p50 | handle p95 | total p50 |  (ms CPU, N=${n})`);
  console.log('|---|---:|---:|---:|---:|---:|');
  // V8 compiles the module's functions in a quick tier first and optimizes
  // the hot ones as they run, across instances, as workerd does across
  // requests: warm every route up before timing any.
  for (let i = 0; i < 10; i++) for (const path of Object.values(paths)) await once(path);
  for (const [name, path] of Object.entries(paths)) {
    const start = [], handle = [], total = [];
    for (let i = 0; i < n; i++) {
      const [s, h] = await once(path);
      start.push(s); handle.push(h); total.push(s + h);
    }
    for (const a of [start, handle, total]) a.sort((x, y) => x - y);
    const f = (x) => x.toFixed(1);
    console.log(`| ${name} | ${f(pct(start, 0.5))} | ${f(pct(start, 0.95))} | ${f(pct(handle, 0.5))} | ${f(pct(handle, 0.95))} | ${f(pct(total, 0.5))} |`);
  }
} finally {
  console.log = log;
}
process.exit(0); // the last instance's Go runtime waits on its done channel
