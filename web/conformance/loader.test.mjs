// The worker's loader (cmd/worker/worker.mjs and pool.mjs) under `wrangler
// dev --local`, with the test worker cmd/worker/internal/bridge/bridgetest
// (make loadertest): an instance serves request after request, concurrent
// requests get instances of their own (at most the pool's four) and never
// share one, nor one still at work its last request started, a request's body reaches the program up to one byte past the
// largest a route reads, and a program that panics or exits answers its
// request 500 and is replaced by a fresh instance for the next. In Node:
// the module-load preparation of the first instance (Pool.prepare), and a
// request whose signal aborts cancelled in Go.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveWorker, repo } from './servers.mjs';

let w;
before(async () => {
  w = await serveWorker({ config: 'cmd/worker/internal/bridge/bridgetest/wrangler.toml', build: 'build/loadertest', name: 'loader test', d1: false });
});
after(async () => { await w?.stop(); });

const maxBody = 8 << 20; // planner.MaxDocument, as worker.mjs has it

async function get(path, init) {
  const r = await fetch(w.url + path, init);
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
}

/** instance answers [id, served] of the instance serving GET /instance. */
async function instance(sleep = 0) {
  const r = await get(`/instance?sleep=${sleep}`);
  assert.equal(r.status, 200, r.text);
  const [id, n] = r.text.trim().split(' ');
  return [id, Number(n)];
}

test('one instance serves request after request', async () => {
  const [id, n] = await instance();
  for (let i = 1; i <= 10; i++) assert.deepEqual(await instance(), [id, n + i], `request ${i} after the first`);
});

test('a request reads its own Worker variables', async () => {
  assert.deepEqual(await get('/var/GREETING'), { status: 200, type: 'text/plain; charset=utf-8', text: 'hello from wrangler.toml\n' });
});

test('a program that panics or exits answers 500 and is replaced by a fresh instance', async () => {
  const seen = new Set([(await instance())[0]]);
  for (const path of ['/panic', '/exit']) {
    // The pool may hold idle instances from other tests: fail them all.
    for (let i = 0; i < 4; i++) {
      const r = await get(path);
      assert.equal(r.status, 500, `${path}: ${r.text}`);
      assert.equal(r.type, 'application/json');
      assert.deepEqual(JSON.parse(r.text), { error: 'internal server error' });
    }
    const [id, n] = await instance();
    assert.ok(!seen.has(id), `${path}: an instance that ended served again`);
    assert.equal(n, 1, `${path}: the next request is the fresh instance's first`);
    assert.deepEqual(await instance(), [id, 2], `${path}: the fresh instance is kept`);
    seen.add(id);
  }
  await new Promise((res) => setTimeout(res, 200));
  assert.match(w.log(), /bridgetest: asked to panic/);
  assert.match(w.log(), /the Go program exited \(code 3\)/);
});

test('concurrent requests get instances of their own, at most four', async () => {
  const answers = await Promise.all(Array.from({ length: 12 }, () => instance(300)));
  const byInstance = new Map();
  for (const [id, n] of answers) byInstance.set(id, [...(byInstance.get(id) ?? []), n]);
  assert.ok(byInstance.size > 1, `12 requests of 300 ms at once were served by one instance: ${JSON.stringify(answers)}`);
  assert.ok(byInstance.size <= 4, `${byInstance.size} instances: the pool holds at most 4`);
  for (const [id, ns] of byInstance) {
    assert.equal(new Set(ns).size, ns.length, `instance ${id} counted ${ns} (two requests at once?)`);
  }
});

test('an instance serves no other request until the work its request started in the background is done', async () => {
  const r = await get('/later?sleep=1500');
  assert.equal(r.status, 200, r.text);
  const [busy] = r.text.trim().split(' ');
  const others = await Promise.all(Array.from({ length: 3 }, () => instance()));
  for (const [id] of others) assert.notEqual(id, busy, 'a request went to the instance still at work in the background');
  await new Promise((res) => setTimeout(res, 1600));
  // Four at once take every instance the pool holds, that one again too.
  const all = await Promise.all(Array.from({ length: 4 }, () => instance(300)));
  assert.ok(all.some(([id]) => id === busy), `the instance did not come back once its work was done: ${all}`);
});

test('a body reaches the program whole, or one byte past the most a route reads', async () => {
  const small = 'a' + 'x'.repeat(998) + 'z';
  assert.equal((await get('/body', { method: 'POST', body: small, headers: { 'x-test': 'hi' } })).text, '1000 a z hi\n');
  const big = Buffer.alloc(maxBody + 100, 'y');
  big[0] = 'b'.charCodeAt(0);
  assert.equal((await get('/body', { method: 'POST', body: big })).text, `${maxBody + 1} b y \n`, 'with a Content-Length');
  let at = 0;
  const stream = new ReadableStream({
    pull(c) { c.enqueue(big.subarray(at, at += 1 << 20)); if (at >= big.length) c.close(); },
  });
  assert.equal((await get('/body', { method: 'POST', body: stream, duplex: 'half' })).text, `${maxBody + 1} b y \n`, 'streamed, without one');
});

// In Node, on the same loader and test worker: worker.mjs prepares its pool
// where the module loads, and the instance so made is the one the first
// request starts; one that has ended is replaced by an instance made in a
// request, as before.
test('Pool.prepare instantiates the module for the first instance, which the first request starts', async () => {
  const dir = join(repo, 'build', 'loadertest');
  await import(join(dir, 'wasm_exec.js'));
  const { Pool } = await import(join(dir, 'pool.mjs'));
  const pool = new Pool(await WebAssembly.compile(readFileSync(join(dir, 'app.wasm'))), { maxBody });
  const serve = async (path) => {
    const r = await pool.fetch(new Request('http://localhost' + path), {}, {});
    return { status: r.status, text: await r.text() };
  };
  assert.equal(pool.prepared, false, 'a new pool holds a prepared instance');
  pool.prepare();
  pool.prepare();
  assert.equal(pool.prepared, true);
  assert.equal(pool.started, 0, 'prepare started the program');
  const first = await serve('/instance');
  assert.equal(first.status, 200, first.text);
  assert.equal(first.text.trim().split(' ')[1], '1');
  assert.deepEqual([pool.prepared, pool.started], [false, 1], 'the first request did not start the prepared instance');
  assert.equal((await serve('/instance')).text.trim().split(' ')[0], first.text.trim().split(' ')[0], 'the prepared instance was not kept');
  assert.equal((await serve('/exit')).status, 500);
  const fresh = await serve('/instance');
  assert.equal(fresh.status, 200, fresh.text);
  assert.notEqual(fresh.text.trim().split(' ')[0], first.text.trim().split(' ')[0]);
  assert.deepEqual([pool.prepared, pool.started], [false, 2]);
});

// A request whose signal aborts (workerd aborts an incoming request's signal
// when its client goes away: enable_request_signal, the default since the
// 2026-11-17 compatibility date) has its Go context cancelled, so its
// handler stops and its instance comes free. wrangler dev's local proxy
// does not pass a client's disconnect on to the worker, so this runs in
// Node, on the same loader and test worker.
test('a request whose signal aborts has its context cancelled, and its instance comes free', async () => {
  const dir = join(repo, 'build', 'loadertest');
  await import(join(dir, 'wasm_exec.js'));
  const { Pool } = await import(join(dir, 'pool.mjs'));
  const pool = new Pool(await WebAssembly.compile(readFileSync(join(dir, 'app.wasm'))), { maxBody });
  const serve = async (path, init) => (await pool.fetch(new Request('http://localhost' + path, init), {}, {})).text();
  const [id] = (await serve('/instance')).trim().split(' ');
  const ac = new AbortController();
  const waiting = serve('/wait?ms=60000', { signal: ac.signal });
  setTimeout(() => ac.abort(), 200);
  assert.equal(await waiting, `${id} cancelled\n`);
  assert.equal((await serve('/instance')).trim().split(' ')[0], id, 'the instance did not come free');
  // One aborted before it is served is cancelled at once.
  const gone = new AbortController();
  gone.abort();
  assert.equal(await serve('/wait?ms=60000', { signal: gone.signal }), `${id} cancelled\n`);
  // The abort of a request that is done reaches no later request.
  const late = new AbortController();
  assert.equal(await serve('/wait?ms=100', { signal: late.signal }), `${id} not cancelled\n`);
  const next = serve('/wait?ms=1000');
  late.abort();
  assert.equal(await next, `${id} not cancelled\n`);
  assert.equal(pool.started, 1);
});
