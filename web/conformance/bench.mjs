// bench.mjs times requests to the worker under `wrangler dev --local` and,
// for comparison, to the native server: `make bench-worker` (after make
// build worker). Each request is sent alone (one in flight), N times after
// a few warm-ups, and timed from the client: on loopback that is the
// worker's own time plus wrangler's local proxy, which the static asset
// row (served by Workers static assets, no Go) shows on its own. Every
// worker request starts a fresh Go instance (syumai/workers), so the
// worker rows include that start.
//
// Usage: node web/conformance/bench.mjs [N]   (default 100)

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveNative, serveWorker, repo } from './servers.mjs';

const n = Number(process.argv[2] ?? 100);
const b1 = 'model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096&kv=fp8&block=16';

// upload is the i-th distinct calibration upload (the measured H200 file,
// its context moved by i × 4 KiB): each is stored, none is a duplicate.
const h200 = JSON.parse(readFileSync(join(repo, 'calibrations', 'h200-linux-cuda13.0.json'), 'utf8'));
function upload(i) {
  const c = structuredClone(h200);
  c.context_bytes += (i + 1) * 4096;
  c.provenance.runs = 3;
  c.provenance.notes = `bench upload ${i}`;
  return { path: '/api/uploads', init: { method: 'POST', body: JSON.stringify(c), headers: { 'content-type': 'application/json' } } };
}

const requests = {
  'page /?…': () => ({ path: `/?${b1}` }),
  'GET /api/plan?…': () => ({ path: `/api/plan?${b1}` }),
  'POST /api/uploads': upload,
  'GET /static/style.css': () => ({ path: '/static/style.css' }),
};

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function time(base, make) {
  const ms = [];
  for (let i = 0; i < n + 5; i++) {
    const { path, init } = make(i);
    const t0 = performance.now();
    const r = await fetch(base + path, init);
    await r.arrayBuffer();
    if (r.status >= 400) throw new Error(`${path}: ${r.status}`);
    if (i >= 5) ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: pct(ms, 0.5), p95: pct(ms, 0.95) };
}

const many = 1000000; // upload limits out of the way
const servers = await Promise.all([serveNative(['--uploads-per-hour', String(many)]),
  serveWorker({ vars: { UPLOADS_PER_HOUR: many } })]);
try {
  console.log(`| request | server | p50 ms | p95 ms |  (N=${n})`);
  console.log('|---|---|---:|---:|');
  for (const [name, make] of Object.entries(requests)) {
    for (const s of servers) {
      const { p50, p95 } = await time(s.url, make);
      console.log(`| ${name} | ${s.name} | ${p50.toFixed(1)} | ${p95.toFixed(1)} |`);
    }
  }
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
