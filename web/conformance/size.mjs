// size.mjs measures the worker as Cloudflare checks an upload: by
// `wrangler deploy --dry-run`, which bundles build/worker as a deployment
// would (esbuild, minify = true in wrangler.toml) and reports the upload's
// size and its gzip (Node's zlib at its default level, over every module
// together). That figure, not `gzip -9` of the files (it reads ~1.7 %
// less), is the one held to the budget, so `make worker` (this file run as
// a program) and deploy.test.mjs share it and fail together.
//
//   node web/conformance/size.mjs    # after the Go side of make worker
//
// It prints the raw bytes of build/worker's modules, their gzip -9, and
// wrangler's upload and gzip with the margin left under the budget and
// under the plan's limit, and exits 1 over budget.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync, constants } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { repo, wrangler, offline } from './servers.mjs';

/**
 * limit is the Workers Paid plan's limit on the upload's gzip, in bytes
 * (10 MB). The free plan's 3 MB no longer holds the worker: on main at
 * f63a05b it is 3,028,480 B with wasm-opt -O1, the names merge's resolver,
 * quorum and look-alike checks being the last 22 KiB, and only a fork of
 * echo (its http.Server and TLS, ~437 KB raw) would win it back
 * (docs/benchmarks.md, "Worker", "Size").
 */
export const limit = 10_000_000;

/**
 * budget is what the upload's gzip may reach, in bytes: the worker as
 * measured on main after the which-GPUs and engine-release merges (#30,
 * #29: 3,075,154 B) and ~35 KB, far below the plan's limit so that growth
 * is spent only by raising this line, with the reason, in
 * docs/benchmarks.md ("Worker", "Size").
 */
export const budget = 3_110_000;

/**
 * measure runs `wrangler deploy --dry-run` offline and resolves to the
 * upload's size and gzip as it reports them, in bytes (from its KiB with
 * two decimals), and its log.
 */
export function measure() {
  const out = mkdtempSync(join(tmpdir(), 'vramplan-dry-'));
  try {
    const log = execFileSync(wrangler, ['deploy', '--dry-run', '--outdir', out], { cwd: repo, env: offline, encoding: 'utf8' });
    const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(log);
    if (!m) throw new Error(`wrangler deploy --dry-run printed no size:\n${log}`);
    return { raw: Math.round(Number(m[1]) * 1024), gzip: Math.round(Number(m[2]) * 1024), log };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

// modules are build/worker's files that wrangler bundles (the loader, Go's
// wasm_exec.js, app.wasm), as `make worker` leaves them.
function modules() {
  const dir = join(repo, 'build', 'worker');
  return readdirSync(dir).filter((f) => /\.(mjs|js|wasm)$/.test(f)).sort().map((f) => readFileSync(join(dir, f)));
}

const kib = (n) => (n / 1024).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = Buffer.concat(modules());
  const gz9 = gzipSync(files, { level: constants.Z_BEST_COMPRESSION }).length;
  const { raw, gzip } = measure();
  console.log(`worker: ${files.length} bytes raw, ${gz9} bytes gzip -9 (build/worker/*.mjs, *.js, app.wasm)`);
  const left = (n) => (gzip <= n ? `${kib(n - gzip)} KiB left` : `${kib(gzip - n)} KiB over`);
  console.log(`worker: wrangler's upload ${kib(raw)} KiB, gzip ${kib(gzip)} KiB: of the budget's ${kib(budget)} KiB ${left(budget)}, of the Paid plan's ${kib(limit)} KiB ${left(limit)}`);
  if (gzip > budget) process.exit(1);
}
