// servers.mjs starts the two servers the conformance suite compares: the
// native one (bin/vramplan serve, `make build`) and the worker (build/worker,
// `make worker`) under `wrangler dev --local`, with Node 22 and wrangler from
// node_modules, offline, on free loopback ports and with fresh local state.
// Each resolves to { name, url, stop }; stop ends the process group it
// started, workerd included.

import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = join(repo, 'bin', 'vramplan');
export const wrangler = join(repo, 'node_modules', '.bin', 'wrangler');

// offline keeps wrangler from asking the network anything.
export const offline = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: '1' };

/** freePort asks the kernel for a free loopback port. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// start spawns argv in its own process group and resolves once a line of
// its output matches ready; it rejects when the process exits first or
// the wait passes ms.
function start(name, argv, opts, ready, ms = 60000) {
  return new Promise((resolve, reject) => {
    const p = spawn(argv[0], argv.slice(1), { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const exited = new Promise((r) => p.on('exit', r));
    const stop = () => {
      try { process.kill(-p.pid, 'SIGTERM'); } catch { /* already gone */ }
      const kill = setTimeout(() => { try { process.kill(-p.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
      return exited.then(() => clearTimeout(kill));
    };
    const timer = setTimeout(() => { stop(); reject(new Error(`${name}: not ready after ${ms} ms\n${log}`)); }, ms);
    const seen = (d) => {
      log += d;
      const m = ready.exec(log);
      if (m) { clearTimeout(timer); resolve({ name, url: m[1], stop, log: () => log, pid: p.pid }); }
    };
    p.stdout.on('data', seen);
    p.stderr.on('data', seen);
    p.on('error', (e) => { clearTimeout(timer); reject(e); });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${name} exited (${code}) before it was ready\n${log}`)); });
  });
}

/** serveNative starts bin/vramplan serve on a fresh SQLite file, removed by stop. */
export async function serveNative(flags = []) {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run make build`);
  const state = mkdtempSync(join(tmpdir(), 'vramplan-native-'));
  const s = await start('native', [bin, 'serve', '--addr', '127.0.0.1:0', '--db', join(state, 'uploads.db'), ...flags], {},
    /(http:\/\/127\.0\.0\.1:\d+)\//);
  const stop = s.stop;
  s.stop = () => stop().then(() => rmSync(state, { recursive: true, force: true }));
  return s;
}

/**
 * serveWorker starts a built worker under `wrangler dev --local` with its
 * state in a fresh temporary folder, removed by stop, after applying the D1
 * migrations there with `wrangler d1 migrations apply --local`, as a
 * deployment applies them. config is a wrangler.toml relative to the
 * repository (the calculator's by default), build the folder it serves;
 * d1: false for a worker without the DB binding.
 */
export async function serveWorker({ config = 'wrangler.toml', build = 'build/worker', name = 'worker', vars = {}, d1 = true } = {}) {
  if (!existsSync(join(repo, build, 'app.wasm'))) throw new Error(`${build} is missing: run make worker-test`);
  const state = mkdtempSync(join(tmpdir(), 'vramplan-wrangler-'));
  if (d1) {
    execFileSync(wrangler, ['d1', 'migrations', 'apply', 'DB', '--local', '-c', config, '--persist-to', state],
      { cwd: repo, env: offline, stdio: ['ignore', 'pipe', 'pipe'] });
  }
  const [port, inspector] = [await freePort(), await freePort()];
  const w = await start(name, [wrangler, 'dev', '--local', '-c', config, '--ip', '127.0.0.1', '--port', String(port),
    '--inspector-port', String(inspector), '--persist-to', state, '--show-interactive-dev-session=false',
    ...Object.entries(vars).map(([k, v]) => `--var=${k}:${v}`)],
  { cwd: repo, env: offline }, /Ready on (http:\/\/127\.0\.0\.1:\d+)/);
  const stop = w.stop;
  w.stop = () => stop().then(() => rmSync(state, { recursive: true, force: true }));
  w.state = state;
  return w;
}

/** planCLI runs `vramplan plan --json` and returns its output, fitting or not. */
export function planCLI(args) {
  try {
    return execFileSync(bin, ['plan', '--json', ...args], { encoding: 'utf8' });
  } catch (e) {
    if (e.status === 1) return e.stdout; // does not fit: still a plan
    throw e;
  }
}

/** calibration returns the n-th distinct upload: the measured H200 file with its context moved by n × 4 KiB. */
export function calibration(n, edit = () => {}) {
  const c = JSON.parse(readFileSync(join(repo, 'calibrations', 'h200-linux-cuda13.0.json'), 'utf8'));
  c.context_bytes += n * 4096;
  c.provenance.runs = 3;
  c.provenance.notes = `conformance upload ${n}`;
  edit(c);
  return JSON.stringify(c);
}

/** post is the fetch init of a POST of body as type. */
export const post = (body, type = 'application/json') => ({ method: 'POST', body, headers: { 'content-type': type } });

/** hourNow is the hour the servers count uploads in: Unix seconds / 3600. */
export const hourNow = () => Math.floor(Date.now() / 3_600_000);

/**
 * roomInHour waits, when fewer than need seconds are left in the current
 * hour, for the next one to begin, and returns the hour it leaves room in.
 * Both servers count a client's uploads by the hour, so a suite that counts
 * against the allowance must not cross an hour's end: one did, at 01:00 UTC,
 * and let 7 uploads more than the allowance through.
 */
export async function roomInHour(need = 60) {
  const left = 3600 - (Date.now() / 1000) % 3600;
  if (left < need) await new Promise((res) => setTimeout(res, (left + 1) * 1000));
  return hourNow();
}
