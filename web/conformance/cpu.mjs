// cpu.mjs measures the CPU time the worker spends on one request, the
// figure the free plan limits to 10 ms: `make bench-worker` runs it after
// bench.mjs. It has two ways to measure.
//
// In this Node (22, the V8 that workerd embeds) it runs build/worker's own
// loader, pool.mjs, on app.wasm, and reads process.cpuUsage() around each
// request: "first" is a request to a fresh pool, prepared as worker.mjs
// prepares it where the module loads (the Go runtime, package init, main's
// web.New, then the request; the module's instantiation, Pool.prepare, is
// timed on its own), "next"
// a request to the instance the earlier ones left, as every request but an
// isolate's first is served. The process's CPU includes V8's and the
// collector's helper threads, so these are upper bounds of the isolate's
// own. There is no D1 binding here, so only the routes that need no store
// are timed (the worker logs that it has no upload store).
//
// With --workerd it serves build/worker under `wrangler dev --local` with
// local D1 and reads the workerd process's CPU (/proc/PID/task/*/schedstat,
// every thread, in ns) around each request, sent one at a time, uploads
// included. That is the whole runtime's CPU: its HTTP server, wrangler's
// proxy worker in front of ours, and the local D1's SQLite, which on
// Cloudflare runs outside the isolate, so it is an upper bound again.
//
// Usage: node web/conformance/cpu.mjs [--workerd] [N] [DIR]   (default 100, build/worker)

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { repo, serveWorker, calibration, post } from './servers.mjs';

const args = process.argv.slice(2);
const inWorkerd = args[0] === '--workerd';
if (inWorkerd) args.shift();
const n = Number(args[0] ?? 100);
const dir = args[1] ?? join(repo, 'build', 'worker');
const b1 = 'model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096&kv=fp8&block=16';
const paths = { '/nosuch (no route)': '/nosuch', 'GET /api/plan?…': `/api/plan?${b1}`, 'page /?…': `/?${b1}`,
  'GET /api/calibrations': '/api/calibrations' };

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const f = (x) => x.toFixed(1);
const stats = (a) => { a.sort((x, y) => x - y); return [pct(a, 0.5), pct(a, 0.95)]; };

if (inWorkerd) await underWorkerd(); else await inNode();
process.exit(0); // the pools' Go instances wait for requests forever

async function inNode() {
  await import(join(dir, 'wasm_exec.js'));
  const { Pool } = await import(join(dir, 'pool.mjs'));
  const mod = await WebAssembly.compile(readFileSync(join(dir, 'app.wasm')));
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  // newPool makes a pool as worker.mjs does where the module loads: its
  // first instance's module instantiated (Pool.prepare), outside the
  // timed request; prepares collects what that took.
  const prepares = [];
  const newPool = () => {
    const p = new Pool(mod, { maxBody: 8 << 20 });
    const c0 = cpu();
    p.prepare();
    prepares.push(cpu() - c0);
    return p;
  };
  // timed serves path on pool and returns the ms of CPU it took.
  async function timed(pool, path) {
    const c0 = cpu();
    const res = await pool.fetch(new Request('http://localhost' + path), {}, {});
    await res.arrayBuffer();
    if (res.status >= 500) throw new Error(`${path}: ${res.status}`);
    return cpu() - c0;
  }
  // wasm_exec.js prints the Go side's stderr with console.log: drop the
  // worker's note that it has no upload store, made once per instance.
  const log = console.log;
  console.log = (...a) => { if (!String(a[0]).startsWith('worker: no upload store')) log(...a); };
  try {
    log(`| request | first p50 | first p95 | next p50 | next p95 |  (ms CPU in Node, N=${n}; first: N/10 fresh pools)`);
    log('|---|---:|---:|---:|---:|');
    // V8 compiles the module's functions in a quick tier first and
    // optimizes the hot ones as they run, as workerd does across requests:
    // warm every route up on a few instances before timing any.
    for (let i = 0; i < 3; i++) { const p = newPool(); for (let j = 0; j < 10; j++) for (const path of Object.values(paths)) await timed(p, path); }
    prepares.length = 0;
    for (const [name, path] of Object.entries(paths)) {
      const first = [];
      for (let i = 0; i < Math.max(3, n / 10); i++) first.push(await timed(newPool(), path));
      const pool = newPool();
      await timed(pool, path);
      const next = [];
      for (let i = 0; i < n; i++) next.push(await timed(pool, path));
      const [f50, f95] = stats(first), [n50, n95] = stats(next);
      log(`| ${name} | ${f(f50)} | ${f(f95)} | ${f(n50)} | ${f(n95)} |`);
    }
    const [p50, p95] = stats(prepares);
    log(`\nPool.prepare (at module load, in Workers' startup budget): p50 ${f(p50)}, p95 ${f(p95)} ms CPU`);
  } finally {
    console.log = log;
  }
}

async function underWorkerd() {
  const w = await serveWorker({ vars: { UPLOADS_PER_HOUR: 1e9, UPLOADS_PER_DAY: 1e9 } });
  try {
    const pid = workerdOf(w.pid);
    const cpu = () => readdirSync(`/proc/${pid}/task`).reduce((sum, t) => {
      try { return sum + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]); } catch { return sum; }
    }, 0) / 1e6;
    let u = 0;
    const requests = { ...Object.fromEntries(Object.entries(paths).map(([k, p]) => [k, () => [p, {}]])),
      'POST /api/uploads (accepted, D1)': () => ['/api/uploads', post(calibration(1000 + u++))] };
    async function timed(make) {
      const [path, init] = make();
      const c0 = cpu();
      const r = await fetch(w.url + path, init);
      const body = Buffer.from(await r.arrayBuffer());
      const c = cpu() - c0;
      if (r.status >= 500 || (init.method === 'POST' && r.status !== 201)) throw new Error(`${path}: ${r.status} ${body.toString().slice(0, 300)}`);
      return c;
    }
    console.log(`| request | p50 | p95 |  (ms CPU of the whole workerd process under wrangler dev --local, N=${n})`);
    console.log('|---|---:|---:|');
    for (const make of Object.values(requests)) for (let i = 0; i < 20; i++) await timed(make);
    for (const [name, make] of Object.entries(requests)) {
      const a = [];
      for (let i = 0; i < n; i++) a.push(await timed(make));
      const [p50, p95] = stats(a);
      console.log(`| ${name} | ${f(p50)} | ${f(p95)} |`);
    }
  } catch (e) {
    await new Promise((r) => setTimeout(r, 500));
    console.error(w.log().split("\n").filter((l) => !/ 20[01] |404 Not Found/.test(l)).join("\n"));
    throw e;
  } finally {
    await w.stop();
  }
}

// workerdOf returns the pid of the workerd process in wrangler's process
// group (serveWorker starts wrangler as its group's leader).
function workerdOf(group) {
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const [comm, rest] = [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), stat.slice(stat.lastIndexOf(')') + 2).split(' ')];
      if (comm === 'workerd' && Number(rest[2]) === group) return p;
    } catch { /* gone */ }
  }
  throw new Error(`no workerd process in group ${group}`);
}
