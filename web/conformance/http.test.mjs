// The HTTP conformance suite: one list of requests, sent to the native
// server (bin/vramplan serve) and to the worker under `wrangler dev --local`
// (build/worker), each started and stopped here. Every answer must be the
// same on both — status, media type, CORS, and the body byte for byte, as
// all of it is deterministic but a deletion token and an upload's time —
// and right on its own: the plan API equals `vramplan plan --json` for the
// same input, bad input is a 4xx naming its field, the static assets are
// the files web/static embeds, uploads are accepted, deduplicated,
// rejected, published with their aggregate, withdrawn and rate-limited the
// same way by SQLite natively and by D1 in the worker.
//
// It is written for node --test rather than go test because both servers
// are external processes here (the worker only exists inside workerd),
// wrangler and the browser tests are Node already, and the suite needs
// nothing of Go's but the CLI, which it runs as a user would.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { serveNative, serveWorker, planCLI, repo, calibration, post, roomInHour, hourNow } from './servers.mjs';
import { cliFlags } from '../e2e/harness.mjs';

const b1 = 'model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=4096&kv=fp8&block=16';
const nofit = 'model=qwen3-coder-30b-a3b-instruct-nvfp4&gpu=rtx5090-wsl2-cuda13.3&batch=8&len=32768';
const h200 = 'model=gemma-3-4b-it-q4_k_m&gpu=h200-linux-cuda13.0&batch=64&len=8192&kv=fp8&graphs=1&budget=100000';
let servers;

// perHour is both servers' per-client upload limit, set the way each takes
// it: a flag natively, a Worker variable in the worker.
const perHour = 20;
let hour; // the hour every upload here is counted in
before(async () => {
  servers = await Promise.all([serveNative(['--uploads-per-hour', String(perHour)]),
    serveWorker({ vars: { UPLOADS_PER_HOUR: perHour } })]);
  hour = await roomInHour();
});
after(async () => { await Promise.all((servers ?? []).map((s) => s.stop())); });

/** both sends one request to each server and returns [native, worker] answers with their bodies. */
async function both(path, init = {}) {
  return Promise.all(servers.map(async (s) => {
    const r = await fetch(s.url + path, { redirect: 'manual', ...init });
    return { server: s.name, status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
  }));
}

const media = (r) => (r.headers.get('content-type') ?? '').split(';')[0].trim();

/** same asserts the two answers agree, and returns the native one. */
function same(path, [n, w]) {
  assert.equal(w.status, n.status, `${path}: status`);
  assert.equal(media(w), media(n), `${path}: content type`);
  assert.equal(w.headers.get('access-control-allow-origin'), n.headers.get('access-control-allow-origin'), `${path}: CORS`);
  assert.ok(w.body.equals(n.body), `${path}: the bodies differ (native ${n.body.length} bytes, worker ${w.body.length})`);
  return n;
}

test('pages and read APIs answer the same, byte for byte', async () => {
  const want = {
    '/': [200, 'text/html'], [`/?${b1}`]: [200, 'text/html'], [`/?${nofit}`]: [200, 'text/html'],
    [`/embed?${b1}`]: [200, 'text/html'], '/docs': [200, 'text/html'],
    '/?model=nosuch': [404, 'text/html'], '/?batch=many': [400, 'text/html'],
    '/api/models': [200, 'application/json'], '/api/models/gemma-3-4b-it-q4_k_m': [200, 'application/json'],
    '/api/models/nosuch': [404, 'application/json'], '/api/calibrations': [200, 'application/json'],
    [`/api/view?${nofit}`]: [200, 'application/json'], '/nosuch': [404, 'application/json'],
  };
  for (const [path, [status, type]] of Object.entries(want)) {
    const n = same(path, await both(path));
    assert.equal(n.status, status, `${path}: status`);
    assert.equal(media(n), type, `${path}: content type`);
  }
});

test('the pages are the calculator, and /embed is framable', async () => {
  const [n] = await both(`/embed?${b1}`);
  const html = n.body.toString();
  for (const part of ['data-testid="verdict"', 'src="/static/app.js"', '/static/dist/planner.wasm', 'id="boot"']) {
    assert.ok(html.includes(part), `/embed carries ${part}`);
  }
  assert.equal(n.headers.get('x-frame-options'), null, '/embed must not forbid framing');
});

test('the plan API equals the CLI on both servers', async () => {
  for (const q of [b1, nofit, h200]) {
    const cli = planCLI(cliFlags(q));
    const n = same(`/api/plan?${q}`, await both(`/api/plan?${q}`));
    assert.equal(n.status, 200);
    assert.equal(n.body.toString(), cli, `GET /api/plan?${q} differs from vramplan plan --json`);
    // The plan carries its input: POSTing it back plans the same.
    const input = JSON.stringify(JSON.parse(cli).input);
    const p = same('POST /api/plan', await both('/api/plan', { method: 'POST', body: input, headers: { 'content-type': 'application/json' } }));
    assert.equal(p.status, 200);
    assert.equal(p.body.toString(), cli, `POST /api/plan with the input of ${q}`);
  }
});

test('bad input is a 4xx naming its field, and every error is one shape, the same on both', async () => {
  const q = 'model=qwen3-4b-instruct-2507-q8_0&gpu=rtx5090-wsl2-cuda13.3';
  const cases = [
    [`/api/plan?${q}&batch=x`, {}, 400, 'batch'],
    [`/api/plan?${q}&budget=abc`, {}, 400, 'budget'],
    [`/api/plan?${q}&len=-5`, {}, 400, 'limits.max_seq_len'],
    [`/api/plan?${q}&batch=99999999999`, {}, 400, 'limits.max_batch'],
    [`/api/plan?${q}&kv=fp3`, {}, 400, 'limits.kv_dtype'],
    ['/api/plan?model=nosuch', {}, 404, 'model'], // as the page: a name the server does not have
    ['/api/plan', { method: 'POST', body: '{"model":' }, 400, ''],
    ['/api/plan', { method: 'POST', body: '[]' }, 400, ''],
    ['/api/plan', { method: 'POST', body: JSON.stringify({ model: { id: 'x' }, limits: { max_batch: -1 } }) }, 400, ''],
    ['/api/plan', { method: 'POST', body: 'x'.repeat(3 << 20) }, 400, ''],
    ['/api/plan', { method: 'DELETE' }, 405, ''],
    ['/api/view', { method: 'POST' }, 405, ''],
    ['/nosuch', {}, 404, ''], // echo's own answers, in the app's shape
    ['/api/nosuch', {}, 404, ''],
    ['/static/nosuch.js', {}, 404, ''], // past Workers static assets to the worker
    ['/api/models/nosuch', {}, 404, ''],
  ];
  for (const [path, init, status, field] of cases) {
    const what = `${init.method ?? 'GET'} ${path.slice(0, 80)}`;
    const pair = await both(path, init);
    const n = same(what, pair);
    assert.equal(n.status, status, `${what}: status (${n.body.toString().slice(0, 200)})`);
    const e = JSON.parse(n.body);
    // One shape for every error, the routes' own and echo's: "error", and
    // "field" where a field is at fault.
    assert.deepEqual(Object.keys(e).filter((k) => k !== 'error' && k !== 'field'), [], `${what}: ${n.body}`);
    const msg = e.error;
    assert.equal(typeof msg, 'string', `${what}: an error message`);
    if (status === 405) {
      assert.ok(n.headers.get('allow'), `${what}: Allow`);
      assert.equal(pair[1].headers.get('allow'), n.headers.get('allow'), `${what}: Allow on both`);
    }
    assert.ok(msg.length > 0, `${what}: an empty error`);
    if (field) assert.equal(e.field, field, `${what}: the field at fault (${msg})`);
  }
});

test('errors quote at most 512 bytes of the request, the same on both', async () => {
  // A URL is 32 KiB, a body 100 KiB: workerd answers a URL past 64 KiB
  // itself, 414 in plain text, before the worker sees it (measured with
  // wrangler 4.164.0 between 65,000 and 80,000 bytes), and Cloudflare's
  // edge refuses one past 16 KB; neither is this server's error to shape.
  const url = 'A'.repeat(32 << 10);
  const body = 'A'.repeat(100 << 10);
  const cases = [
    [`/api/plan?model=${url}`, {}],
    [`/api/plan?model=qwen3-4b-instruct-2507-q8_0&gpu=${url}`, {}],
    ['/api/plan', { method: 'POST', body: `{"${body}":1}` }],
    [`/api/models/${url}`, {}],
    [`/api/uploads/${url}`, {}],
    ['/api/uploads', post(`{"${body}":1}`)],
    [`/${url}`, {}],
  ];
  for (const [path, init] of cases) {
    const what = `${init.method ?? 'GET'} ${path.slice(0, 40)}…`;
    const n = same(what, await both(path, init));
    assert.ok(n.status >= 400 && n.body.length < 4096, `${what}: ${n.status} with ${n.body.length} bytes`);
    const e = JSON.parse(n.body);
    assert.ok(e.error.length <= 600 && (e.field ?? '').length <= 600, `${what}: ${e.error.slice(0, 100)}`);
  }
});

test('HEAD answers as GET does, without a body', async () => {
  for (const path of ['/', `/api/plan?${b1}`, '/api/calibrations', '/static/style.css']) {
    const [g] = await both(path);
    const [n, w] = await both(path, { method: 'HEAD' });
    for (const h of [n, w]) {
      assert.equal(h.status, g.status, `HEAD ${path} on ${h.server}`);
      assert.equal(media(h), media(g), `HEAD ${path} on ${h.server}: content type`);
      assert.equal(h.body.length, 0, `HEAD ${path} on ${h.server}: a body`);
    }
  }
});

// assets lists what web/static embeds (its patterns: *.js *.css dist), as URLs.
function assets() {
  const dir = join(repo, 'web', 'static');
  const top = readdirSync(dir).filter((f) => /\.(js|css)$/.test(f));
  const dist = readdirSync(join(dir, 'dist')).filter((f) => f !== 'README.md').map((f) => `dist/${f}`);
  return [...top, ...dist];
}

test('static assets are web/static, under the same URLs, loadable cross-origin', async () => {
  const names = assets();
  assert.ok(names.includes('dist/planner.wasm') && names.includes('dist/gguf.wasm'), 'make wasm has built the modules');
  for (const name of names) {
    const path = `/static/${name}`;
    const n = same(path, await both(path));
    assert.equal(n.status, 200, path);
    assert.ok(n.body.equals(readFileSync(join(repo, 'web', 'static', name))), `${path} is the file`);
    assert.equal(n.headers.get('access-control-allow-origin'), '*', `${path}: CORS`);
  }
  const [, w] = await both('/static/dist/planner.wasm');
  assert.equal(media(w), 'application/wasm', 'compileStreaming needs application/wasm');
  for (const path of ['/static/nope.js', '/static/static.go', '/static/dist/README.md', '/_headers']) {
    const [n, w2] = await both(path);
    assert.equal(n.status, 404, `${path} on native`);
    assert.equal(w2.status, 404, `${path} on the worker`);
  }
});

// The upload tests share the two stores, so they run in this order and the
// rate-limit test, which spends the hour's allowance, runs last.

// without drops the keys that differ by nature between two stores: the
// deletion token (random) and the time an upload was stored.
function without(body, ...keys) {
  const strip = (o) => { for (const k of keys) delete o[k]; return o; };
  return String(body).trim().split('\n').map((l) => JSON.stringify(strip(JSON.parse(l))));
}

function sameBut(what, [n, w], ...keys) {
  assert.equal(w.status, n.status, `${what}: status (native ${n.body}, worker ${w.body})`);
  assert.equal(media(w), media(n), `${what}: content type`);
  assert.deepEqual(without(w.body, ...keys), without(n.body, ...keys), `${what}: the answers differ`);
  return n;
}

const uploaded = {}; // n → { native, worker } answers

test('uploads: accepted with a deletion token, a duplicate answered with the same id, the same on both', async () => {
  for (const n of [1, 2, 3]) {
    const answers = await both('/api/uploads', post(calibration(n)));
    const a = sameBut(`POST upload ${n}`, answers, 'deletion_token');
    assert.equal(a.status, 201, `upload ${n}: ${a.body}`);
    const [na, wa] = answers.map((r) => JSON.parse(r.body));
    assert.equal(na.status, 'accepted', `upload ${n}`);
    assert.match(na.id, /\S/);
    for (const x of [na, wa]) assert.ok(x.deletion_token?.length >= 16, 'a deletion token');
    assert.notEqual(na.deletion_token, wa.deletion_token, 'tokens are random');
    uploaded[n] = { native: na, worker: wa };
  }
  const again = same('POST a duplicate', await both('/api/uploads', post(calibration(1))));
  assert.equal(again.status, 200);
  const d = JSON.parse(again.body);
  assert.equal(d.duplicate, true);
  assert.equal(d.id, uploaded[1].native.id, 'the stored upload is named');
  assert.equal(d.deletion_token, undefined, 'a duplicate gets no token');
});

test('uploads are published: one upload, the JSONL export, the community list and the picker', async () => {
  const id = uploaded[1].native.id;
  const one = sameBut(`GET /api/uploads/${id}`, await both(`/api/uploads/${id}`), 'created');
  assert.equal(one.status, 200);
  assert.equal(JSON.parse(one.body).client, undefined, 'the client hash is not published');
  const jsonl = sameBut('GET /api/uploads.jsonl', await both('/api/uploads.jsonl'), 'created');
  assert.equal(String(jsonl.body).trim().split('\n').length, 3);
  const community = same('GET /api/community?status=all', await both('/api/community?status=all'));
  assert.equal(community.status, 200);
  assert.ok(String(community.body).includes(uploaded[1].native.group), 'the group is listed');
  assert.match(String(community.body), /"status":"pending"/, 'one client is no quorum');
  assert.equal(String(same('GET /api/community', await both('/api/community')).body).trim(), '[]', 'no group the calculator plans on');
  same('GET /api/calibrations with the aggregate', await both('/api/calibrations'));
  same('GET / with the community calibration', await both('/'));
});

test('uploads are rejected with a reason, the same on both, and nothing is stored', async () => {
  const cases = [
    ['not JSON', post(calibration(9), 'text/plain'), 415],
    ['too large', post(calibration(9, (c) => { c.provenance.notes = 'x'.repeat(70 << 10); })), 413],
    ['bad JSON', post('{"schema":'), 422],
    ['an unknown field', post(calibration(9, (c) => { c.hostname = 'gpu-box-7'; })), 422],
    ['context above the device', post(calibration(9, (c) => { c.context_bytes = c.device_total_bytes * 2; })), 422],
    ['granularity not a power of two', post(calibration(9, (c) => { c.vmm.granularity_bytes = 3000000; })), 422],
  ];
  for (const [what, init, status] of cases) {
    const n = same(`POST ${what}`, await both('/api/uploads', init));
    assert.equal(n.status, status, `${what}: ${n.body}`);
    const e = JSON.parse(n.body);
    assert.ok((e.error ?? '').length > 0, `${what}: a reason`);
    if (status === 422) assert.equal(e.status, 'rejected', what);
  }
  const jsonl = await both('/api/uploads.jsonl');
  for (const r of jsonl) assert.equal(String(r.body).trim().split('\n').length, 3, `${r.server}: nothing more stored`);
});

test('an upload is withdrawn with its token only, once', async () => {
  const id = uploaded[2].native.id;
  const del = (token) => ({ method: 'DELETE', headers: token ? { authorization: `Bearer ${token}` } : {} });
  assert.equal(same('DELETE without a token', await both(`/api/uploads/${id}`, del())).status, 401);
  assert.equal(same('DELETE with a wrong token', await both(`/api/uploads/${id}`, del('not-the-token'))).status, 403);
  const answers = await Promise.all(servers.map((s, i) => fetch(`${s.url}/api/uploads/${id}`,
    del(i === 0 ? uploaded[2].native.deletion_token : uploaded[2].worker.deletion_token))));
  assert.deepEqual(answers.map((r) => r.status), [204, 204], 'each server takes its own token');
  assert.equal(same('GET a withdrawn upload', await both(`/api/uploads/${id}`)).status, 404);
  assert.equal(same('DELETE it again', await both(`/api/uploads/${id}`, del(uploaded[2].native.deletion_token))).status, 404);
  const jsonl = sameBut('GET /api/uploads.jsonl', await both('/api/uploads.jsonl'), 'created');
  assert.equal(String(jsonl.body).trim().split('\n').length, 2);
});

/** observation returns the engine observation `vramplan check --observation` writes for a run of the H200 grid. */
function observation() {
  const grid = join(repo, 'planner', 'testdata', 'engines', 'llamacpp-h200');
  const dir = mkdtempSync(join(tmpdir(), 'conformance-obs-'));
  const log = join(dir, 'llama-server.log'), out = join(dir, 'obs.json');
  writeFileSync(log, ['load.log', '4096_4_0_f16_f16_1_512_0.log'].map((f) => readFileSync(join(grid, 'logs', 'moe', f), 'utf8')).join(''));
  execFileSync(join(repo, 'bin', 'vramplan'), ['check', '--log', log, '--model', join(grid, 'models', 'moe-qwen3-30b-a3b.json'),
    '--gpu', 'h200-linux-cuda13.0', '--engine-version', 'b12072', '--day', '2026-11-30', '--observation', out], { stdio: 'pipe' });
  return readFileSync(out, 'utf8');
}

test('observations: accepted, held, listed, refused and withdrawn the same on both', async () => {
  const doc = observation();
  const answers = await both('/api/observations', post(doc));
  assert.equal(sameBut('POST an observation', answers, 'deletion_token').status, 201);
  const [na, wa] = answers.map((r) => JSON.parse(r.body));
  assert.equal(na.status, 'accepted', JSON.stringify(na));
  for (const x of [na, wa]) assert.ok(x.deletion_token?.length >= 16, 'a deletion token');
  const dup = same('POST it again', await both('/api/observations', post(doc)));
  assert.deepEqual([dup.status, JSON.parse(dup.body).duplicate, JSON.parse(dup.body).id], [200, true, na.id]);
  const contradicting = JSON.parse(doc);
  contradicting.figures.find((f) => f.key === 'kv').bytes += 8 << 20;
  const held = sameBut('POST a contradicting observation', await both('/api/observations', post(JSON.stringify(contradicting))), 'deletion_token');
  assert.equal(JSON.parse(held.body).status, 'held', String(held.body));
  for (const [what, init, status, field] of [
    ['an unknown field', post(doc.replace('"day":', '"hostname": "gpu-box-7", "day":')), 422, 'hostname'],
    ['markup in the GPU', post(doc.replace('"NVIDIA H200"', '"<b>H200</b>"')), 422, 'gpu.name'],
    ['not JSON', post(doc, 'text/plain'), 415, undefined],
  ]) {
    const n = same(`POST ${what}`, await both('/api/observations', init));
    assert.equal(n.status, status, `${what}: ${n.body}`);
    assert.equal(JSON.parse(n.body).field, field, what);
  }
  const list = same('GET /api/observations', await both('/api/observations'));
  assert.deepEqual(JSON.parse(list.body).observations.map((o) => [o.id, o.status]), [[na.id, 'accepted'], [JSON.parse(held.body).id, 'held']]);
  assert.equal(same(`GET /api/observations/${na.id}`, await both(`/api/observations/${na.id}`)).status, 200);
  const del = (token) => ({ method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  assert.equal(same('DELETE an observation with a wrong token', await both(`/api/observations/${na.id}`, del('not-the-token'))).status, 403);
  const gone = await Promise.all(servers.map((s, i) => fetch(`${s.url}/api/observations/${na.id}`, del([na, wa][i].deletion_token))));
  assert.deepEqual(gone.map((r) => r.status), [204, 204], 'each server takes its own token');
  assert.equal(same('GET a withdrawn observation', await both(`/api/observations/${na.id}`)).status, 404);
});

test('the JSONL export pages with ?after and ?limit, on both alike', async () => {
  const whole = sameBut('GET /api/uploads.jsonl', await both('/api/uploads.jsonl'), 'created');
  const lines = String(whole.body).trim().split('\n');
  assert.ok(lines.length >= 2, `${lines.length} uploads exported`);
  const first = sameBut('GET /api/uploads.jsonl?limit=1', await both('/api/uploads.jsonl?limit=1'), 'created');
  assert.deepEqual(String(first.body).trim().split('\n').map((l) => JSON.parse(l).id), [JSON.parse(lines[0]).id]);
  const { seq } = JSON.parse(lines[0]);
  const rest = sameBut(`GET /api/uploads.jsonl?after=${seq}`, await both(`/api/uploads.jsonl?after=${seq}`), 'created');
  assert.equal(String(rest.body).trim().split('\n').length, lines.length - 1);
  const bad = same('GET /api/uploads.jsonl?limit=0', await both('/api/uploads.jsonl?limit=0'));
  assert.deepEqual([bad.status, JSON.parse(bad.body).field], [400, 'limit']);
});

test('a page of another site cannot upload, delete or withdraw; the CLI and the embed\'s reads still work, on both alike', async () => {
  const evil = [{ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }];
  const form = () => { const f = new FormData(); f.set('file', new Blob([calibration(40)]), 'mycard.json'); return f; };
  for (const headers of evil) {
    for (const [what, path, init] of [
      ['the upload form, multipart', '/calibrations', { method: 'POST', body: form() }],
      ['the upload form, urlencoded', '/calibrations', { method: 'POST', body: new URLSearchParams({ document: calibration(40) }) }],
      ['the withdrawal form', '/calibrations/withdraw', { method: 'POST', body: new URLSearchParams({ id: 'x', token: 'y' }) }],
      ['an upload', '/api/uploads', post(calibration(40))],
      ['a deletion', '/api/uploads/x', { method: 'DELETE' }],
      ['an observation', '/api/observations', post('{}')],
    ]) {
      const n = same(`${what} from ${JSON.stringify(headers)}`, await both(path, { ...init, headers: { ...init.headers, ...headers } }));
      assert.equal(n.status, 403, `${what}: ${n.body}`);
      assert.match(JSON.parse(n.body).error, /cross-site request refused/);
    }
  }
  const jsonl = await both('/api/uploads.jsonl');
  for (const r of jsonl) assert.ok(!String(r.body).includes('conformance upload 40'), `${r.server}: a cross-site upload was stored`);
  const own = await Promise.all(servers.map((s) => fetch(`${s.url}/api/uploads`,
    { ...post(calibration(41)), headers: { 'content-type': 'application/json', origin: s.url, 'sec-fetch-site': 'same-origin' } })));
  assert.deepEqual(own.map((r) => r.status), [201, 201], 'an upload from the site\'s own page');
  const reads = { origin: 'https://docs.example', 'sec-fetch-site': 'cross-site' };
  for (const path of ['/api/models', `/api/plan?${b1}`, '/api/calibrations']) {
    const n = same(`cross-origin GET ${path}`, await both(path, { headers: reads }));
    assert.equal(n.status, 200, path);
    assert.equal(n.headers.get('access-control-allow-origin'), '*', `${path}: CORS`);
  }
  const input = JSON.stringify(JSON.parse(planCLI(cliFlags(b1))).input);
  const p = same('cross-origin POST /api/plan', await both('/api/plan', { method: 'POST', body: input, headers: { 'content-type': 'application/json', ...reads } }));
  assert.equal(p.status, 200, 'planning changes nothing: any origin may');
});

test('wrong deletion tokens past the hour\'s allowance per client get 429 with Retry-After, on both alike', async () => {
  assert.equal(hourNow(), hour, 'the tokens crossed the end of an hour, where the count starts again');
  const id = JSON.parse(String((await both('/api/uploads.jsonl?limit=1'))[0].body)).id;
  const limited = [];
  for (const s of servers) {
    let sent = 0;
    let r;
    do {
      r = await fetch(`${s.url}/api/uploads/${id}`, { method: 'DELETE', headers: { authorization: 'Bearer not-the-token' } });
      await r.arrayBuffer();
      sent++;
    } while (r.status === 403 && sent <= perHour);
    assert.equal(r.status, 429, `${s.name}: ${r.status} after ${sent} wrong tokens`);
    const retry = Number(r.headers.get('retry-after'));
    assert.ok(retry > 0 && retry <= 3600, `${s.name}: Retry-After ${r.headers.get('retry-after')}`);
    limited.push(sent);
  }
  assert.equal(limited[1], limited[0], 'the limit falls at the same token on both');
  assert.equal(sameBut('GET the upload', await both(`/api/uploads/${id}`), 'created').status, 200, 'still there');
});

test('uploads past the hour\'s allowance per client get 429 with Retry-After, on both alike', async () => {
  assert.equal(hourNow(), hour, 'the uploads crossed the end of an hour, where the count starts again');
  const limited = [];
  for (const s of servers) {
    let sent = 0;
    let r;
    do {
      r = await fetch(`${s.url}/api/uploads`, post('{"schema":'));
      await r.arrayBuffer();
      sent++;
    } while (r.status !== 429 && sent <= perHour);
    assert.equal(r.status, 429, `${s.name}: no 429 after ${sent} uploads`);
    const retry = Number(r.headers.get('retry-after'));
    assert.ok(retry > 0 && retry <= 3600, `${s.name}: Retry-After ${r.headers.get('retry-after')}`);
    limited.push(sent);
  }
  assert.equal(limited[1], limited[0], 'the limit falls at the same upload on both');
  assert.ok(limited[0] > 1, 'the earlier tests left some of the allowance');
});
