// Many requests at once to the worker under `wrangler dev --local`, where
// the loader (cmd/worker/pool.mjs) spreads them over its Go instances and
// serves each instance request after request: plans and pages are what
// the same requests get one at a time, byte for byte; every upload stored
// is the one its answer names, once, with a token of its own; concurrent
// duplicates get one id; deletes take effect with their own token only; the
// per-client limit, counted in D1, lets through exactly its allowance; and
// the work an upload leaves in the background hangs no later request.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveWorker, calibration, post, roomInHour, hourNow } from './servers.mjs';

const perHour = 60;
let w;
after(async () => { await w?.stop(); });

async function send(path, init) {
  const r = await fetch(w.url + path, init);
  return { path, status: r.status, type: r.headers.get('content-type'), body: Buffer.from(await r.arrayBuffer()) };
}

const gpus = ['rtx5090-wsl2-cuda13.3', 'h200-linux-cuda13.0'];
const plans = gpus.flatMap((gpu) => [1, 4, 16].map((batch) =>
  `model=qwen3-4b-instruct-2507-q8_0&gpu=${gpu}&batch=${batch}&len=${4096 * batch}&kv=fp8`));
const reads = [...plans.map((q) => `/api/plan?${q}`), ...plans.slice(0, 3).map((q) => `/?${q}`), '/api/models', '/nosuch'];
let alone; // path → the answer it gets alone

let posts = 0; // POST /api/uploads sent: each counts against the hour
const upload = (body) => { posts++; return send('/api/uploads', post(body)); };
let hour; // the hour every upload here is counted in

before(async () => {
  w = await serveWorker({ vars: { UPLOADS_PER_HOUR: perHour } });
  alone = new Map();
  for (const path of reads) alone.set(path, await send(path));
  hour = await roomInHour();
});

/** sameAsAlone asserts r is the answer its path gets alone. */
function sameAsAlone(r) {
  const want = alone.get(r.path);
  assert.equal(r.status, want.status, `${r.path}: status`);
  assert.equal(r.type, want.type, `${r.path}: content type`);
  assert.ok(r.body.equals(want.body), `${r.path}: ${r.body.length} bytes at once, ${want.body.length} alone`);
}

// shuffled returns a copy of a in an order fixed by seed.
function shuffled(a, seed) {
  const out = [...a];
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

test('plans and pages at once answer as they do alone', async () => {
  const many = shuffled([...reads, ...reads, ...reads, ...reads], 7);
  for (const r of await Promise.all(many.map((p) => send(p)))) sameAsAlone(r);
});

const stored = new Map(); // n → the upload's answer

test('uploads at once, with plans and duplicates among them: each stored once, as its own', async () => {
  const ns = [101, 102, 103, 104, 105, 106, 107, 108];
  const jobs = shuffled([
    ...ns.map((n) => ['upload', n]), ...ns.slice(0, 4).map((n) => ['duplicate', n]),
    // Not the pages: their picker shows the community calibration these
    // uploads change.
    ['bad', 0], ['bad', 1], ...reads.filter((p) => !p.startsWith('/?')).map((p) => ['read', p]),
  ], 11);
  const answers = await Promise.all(jobs.map(async ([kind, x]) => {
    if (kind === 'read') return [kind, x, await send(x)];
    return [kind, x, await upload(kind === 'bad' ? '{"schema":' : calibration(x))];
  }));
  const byN = new Map();
  for (const [kind, x, r] of answers) {
    if (kind === 'read') { sameAsAlone(r); continue; }
    if (kind === 'bad') { assert.equal(r.status, 422, `a bad upload: ${r.body}`); continue; }
    assert.ok(r.status === 201 || r.status === 200, `upload ${x}: ${r.status} ${r.body}`);
    byN.set(x, [...(byN.get(x) ?? []), JSON.parse(r.body)]);
  }
  const tokens = new Set();
  for (const n of ns) {
    const got = byN.get(n);
    const created = got.filter((a) => a.status === 'accepted' && !a.duplicate);
    assert.equal(created.length, 1, `upload ${n}: ${JSON.stringify(got)}`);
    for (const a of got) assert.equal(a.id, created[0].id, `upload ${n}: every answer names the one stored`);
    if (got.length === 2) assert.ok(got.some((a) => a.duplicate === true), `upload ${n}: the other is a duplicate`);
    assert.ok(!tokens.has(created[0].deletion_token), 'a token of its own');
    tokens.add(created[0].deletion_token);
    stored.set(n, created[0]);
  }
  // Each id holds the calibration its upload sent, not another's.
  for (const r of await Promise.all(ns.map((n) => send(`/api/uploads/${stored.get(n).id}`)))) {
    assert.equal(r.status, 200, `${r.path}: ${r.body}`);
    const n = ns.find((k) => r.path.endsWith(stored.get(k).id));
    const doc = JSON.parse(r.body);
    assert.equal(JSON.stringify(doc).includes(`conformance upload ${n}`), true, `${r.path} is upload ${n}: ${r.body}`);
  }
});

test('deletes at once: each with its own token only', async () => {
  const ns = [...stored.keys()];
  const del = (n, token) => send(`/api/uploads/${stored.get(n).id}`,
    { method: 'DELETE', headers: { authorization: `Bearer ${token}` } }).then((r) => [n, r]);
  // The first four are withdrawn by their own tokens, the other four are
  // tried with a withdrawn upload's token.
  const answers = await Promise.all(shuffled([
    ...ns.slice(0, 4).map((n) => del(n, stored.get(n).deletion_token)),
    ...ns.slice(4).map((n, i) => del(n, stored.get(ns[i]).deletion_token)),
  ], 3));
  for (const [n, r] of answers) assert.equal(r.status, ns.indexOf(n) < 4 ? 204 : 403, `DELETE upload ${n}: ${r.body}`);
  const jsonl = await send('/api/uploads.jsonl');
  const ids = String(jsonl.body).trim().split('\n').map((l) => JSON.parse(l).id).sort();
  assert.deepEqual(ids, ns.slice(4).map((n) => stored.get(n).id).sort(), 'the uploads left');
});

test('an upload\'s background refresh of its group leaves later requests served', async () => {
  // Three accepted uploads establish the group (community.MinGroup); once
  // its aggregate is a second old, the next upload refreshes it in the
  // background, whose D1 queries must finish in that upload's context.
  for (const n of [201, 202, 203]) assert.equal((await upload(calibration(n))).status, 201);
  await new Promise((res) => setTimeout(res, 1100));
  assert.equal((await upload(calibration(204))).status, 201);
  for (const r of await Promise.all(['/api/calibrations', '/api/community', `/api/plan?${plans[0]}`].map((p) => send(p)))) {
    assert.equal(r.status, 200, `${r.path} after the refresh: ${r.body}`);
  }
});

test('uploads at once past the hour\'s allowance: exactly the allowance gets through', async () => {
  assert.equal(hourNow(), hour, 'the uploads crossed the end of an hour, where the count starts again');
  const left = perHour - posts;
  assert.ok(left > 0, `${posts} uploads sent already`);
  const answers = await Promise.all(Array.from({ length: left + 10 }, () => upload('{"schema":')));
  const statuses = answers.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 422).length, left, `the allowance: ${statuses}`);
  assert.equal(statuses.filter((s) => s === 429).length, 10, `past it: ${statuses}`);
});
