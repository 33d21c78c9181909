// End-to-end tests of community calibrations (issues #14 and #31) in
// Debian's chromium: a calibration file uploaded through the calibrations
// page's form (checked in the browser by the server's validator, compiled
// to WebAssembly), held or accepted, pending until three distinct clients
// sent uploads, then shown with its provenance, listed in the calculator's
// GPU picker with its count, planned on with its source in the plan's
// lines (the same plan as the CLI's on the exported file), and withdrawn
// with its deletion token; then hostile uploads through the form with and
// without JavaScript and through the API.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, browser, shot, planJSON, figures, planFigures, bin, repo } from './harness.mjs';

const dir = mkdtempSync(join(tmpdir(), 'vramplan-cal-e2e-'));
let server, chrome;

before(async () => {
  [server, chrome] = await Promise.all([
    serve(['--db', join(dir, 'uploads.db'), '--uploads-per-hour', '10000', '--uploads-per-day', '100000']), browser()]);
});
after(async () => { await chrome?.close(); server?.stop(); });

const measured = JSON.parse(readFileSync(join(repo, 'calibrations', 'h200-linux-cuda13.0.json'), 'utf8'));

// card is what `gpuagent calibrate` would write on a card nobody in the
// project owns (an A100 80GB PCIe: its total is known, the table has no
// entry of it): the H200's figures with this card's name and total, the
// context moved by dMiB.
function card(dMiB = 0, edit = (c) => c) {
  const c = structuredClone(measured);
  Object.assign(c, { id: 'a100-pcie-linux', gpu: 'NVIDIA A100 80GB PCIe', arch: 'sm_80', sm_count: 108,
    device_total_bytes: 85899345920, context_bytes: measured.context_bytes + dMiB * 2 ** 20 });
  c.provenance = { ...c.provenance, date: '2026-12-01', notes: `e2e ${dMiB}` };
  return JSON.stringify(edit(c), null, 2);
}
const group = 'a10080gbpcie-80gib-linux-r580-cuda13.0';

function file(name, text) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function open(path, opts = {}) {
  const ctx = await chrome.newContext(opts);
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.dialogs = [];
  page.on('dialog', (d) => { page.dialogs.push(d.message()); d.dismiss(); });
  await page.goto(server.url + path.replace(/^\//, ''));
  return page;
}

const api = (path, init) => fetch(server.url + path.replace(/^\//, ''), init);
const post = (body) => api('/api/uploads', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
// postFrom uploads body from the loopback address from (127.0.0.2, …): a
// client of its own, as another operator's machine is.
const postFrom = (from, body) => new Promise((resolve, reject) => {
  const req = request(new URL('api/uploads', server.url), { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } },
    (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
  req.on('error', reject);
  req.end(body);
});
const exported = async () => (await (await api('/api/uploads.jsonl?status=accepted')).text()).split('\n').filter(Boolean).length;

/** pick sets the form's file and resolves to the in-browser check's state once it is done. */
async function pick(page, path) {
  await page.setInputFiles('[data-testid="upload-file"]', path);
  await page.waitForFunction(() => ['valid', 'invalid', 'unchecked'].includes(document.getElementById('upload-check').dataset.state));
  return page.getAttribute('[data-testid="upload-check"]', 'data-state');
}

/** press clicks a button that submits a form and waits for the page it posts to. */
const press = (page, id) => Promise.all([page.waitForNavigation(), page.click(`[data-testid="${id}"]`)]);

/** submit presses Upload and resolves to the answer the page shows. */
async function submit(page) {
  await press(page, 'upload-submit');
  const r = page.locator('[data-testid="upload-result"]');
  return { status: await r.getAttribute('data-status'), code: Number(await r.getAttribute('data-code')),
    heading: await r.locator('[data-testid="upload-heading"]').innerText(),
    token: await page.locator('[data-testid="upload-token"]').count() ? await page.innerText('[data-testid="upload-token"]') : '' };
}

const row = (page, id) => page.locator(`[data-testid="cal-${id}"]`);

test('the loop: upload through the page, held or accepted, on the page and in the picker, planned with its source, withdrawn', async () => {
  const page = await open('/calibrations');
  assert.equal(await row(page, 'h200-linux-cuda13.0').getAttribute('data-kind'), 'measured');
  assert.match(await row(page, 'est-l4-linux').locator('[data-testid="cal-total-source"]').innerText(), /23034 MiB/);

  // A file the server would refuse is refused in the page, by field, and not sent.
  const bad = file('bad.json', card(0, (c) => ({ ...c, vmm: { ...c.vmm, granularity_bytes: 3000000 } })));
  assert.equal(await pick(page, bad), 'invalid');
  assert.deepEqual(await page.locator('#upload-check li').evaluateAll((ls) => ls.map((l) => l.dataset.field)), ['vmm.granularity_bytes']);
  await page.click('[data-testid="upload-submit"]');
  await page.waitForTimeout(300);
  assert.equal(new URL(page.url()).pathname, '/calibrations');
  assert.equal(await page.locator('[data-testid="upload-result"]').count(), 0, 'nothing was sent');
  assert.equal(await exported(), 0);

  // A good one is checked in the page, sent, accepted, and shown with its group.
  assert.equal(await pick(page, file('mycard.json', card(0))), 'valid');
  assert.match(await page.innerText('[data-testid="upload-check"]'), new RegExp(`group ${group}`));
  const first = await submit(page);
  assert.equal(first.status, 'accepted', first.heading);
  assert.equal(first.code, 201);
  assert.ok(first.token.length > 10);
  // One client's upload is pending: listed apart, not in the picker.
  assert.equal(await row(page, group).count(), 0);
  assert.match(await page.innerText('[data-testid="unlisted"]'), /^Community groups not in the picker: 1\./);
  assert.match(await (await api(`/api/community?group=${group}`)).text(), /"status":"pending".*"pending":"1 of the 3 distinct clients/);

  // Two more operators upload through the API; a fourth contradicts them and is held.
  for (const [i, d] of [4, 8].entries()) assert.equal(await postFrom(`127.0.0.${i + 2}`, card(d)), 201);
  await page.goto(server.url + 'calibrations');
  assert.equal(await pick(page, file('odd.json', card(150))), 'valid', 'held is the server\'s verdict: the file itself is fine');
  const held = await submit(page);
  assert.equal(held.status, 'held', held.heading);
  assert.match(await page.innerText('[data-testid="upload-reasons"]'), /context_bytes .* from the group's median/);
  const r = row(page, group);
  assert.equal(await r.getAttribute('data-kind'), 'community');
  assert.match(await r.locator('[data-testid="cal-count"]').innerText(), /median of 3 distinct clients' medians over 3 uploads · 3 accepted, 1 held/);
  const inMiB = (d) => ((measured.context_bytes + d * 2 ** 20) / 2 ** 20).toFixed(1);
  assert.deepEqual(await r.locator('[data-testid="stat-context_bytes"] td').allInnerTexts(), [inMiB(4), '4.0', inMiB(0), inMiB(8), '3'],
    'median, MAD, min, max and count of the context over the three clients');
  await shot(page, 'calibrations.png', { fullPage: true });

  // The calculator's picker lists it with its count, and a plan on it names its source.
  const calc = await open('/?model=qwen3-4b-instruct-2507-q8_0&batch=8&len=4096');
  await calc.waitForSelector('#calc[data-ready="true"]');
  const label = await calc.locator(`[data-testid="gpu"] option[value="${group}"]`).innerText();
  assert.match(label, /^NVIDIA A100 80GB PCIe · community: 3 uploads, spread [\d.]+ % · linux · driver 580\.159\.04$/);
  await calc.selectOption('[data-testid="gpu"]', group);
  await calc.waitForFunction((g) => new URL(location.href).searchParams.get('gpu') === g, group);
  await calc.waitForFunction(() => /community/.test(document.querySelector('[data-testid="item-library_reserve"] th')?.textContent));
  assert.match(await calc.getAttribute('[data-testid="item-cuda_context"] th', 'title'), new RegExp(`community: ${group}`));

  // The same plan as the CLI's on the exported file.
  const out = join(dir, `${group}.json`);
  execFileSync(bin, ['calibrations', 'export', '--from', server.url, '--group', group, '-o', out]);
  const want = planFigures(planJSON(['--model', 'qwen3-4b-instruct-2507-q8_0', '--gpu', out, '--max-batch', '8', '--max-seq-len', '4096']));
  const got = await figures(calc);
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], `page vs CLI on the exported file: ${k}`);

  // Withdrawn with its token (the form is filled in after an upload): out of the aggregate, and pending again.
  const firstID = (await post(card(0)).then((x) => x.json())).id;
  await page.fill('[data-testid="withdraw-id"]', firstID);
  await page.fill('[data-testid="withdraw-token"]', 'not-the-token');
  await press(page, 'withdraw-submit');
  assert.match(await page.innerText('[data-testid="withdraw-result"]'), /Not withdrawn: the deletion token does not match/);
  await page.fill('[data-testid="withdraw-id"]', firstID);
  await page.fill('[data-testid="withdraw-token"]', first.token);
  await press(page, 'withdraw-submit');
  assert.equal(await page.getAttribute('[data-testid="withdraw-result"]', 'data-ok'), 'true');
  assert.equal(await row(page, group).count(), 0);
  assert.match(await (await api(`/api/community?group=${group}`)).text(), /"accepted":2,"held":1,"status":"pending".*"pending":"2 of the 3/);
  assert.deepEqual([page.errors, calc.errors], [[], []]);
});

// hostile are uploads an attacker or a broken tool might send, each with
// the status and the words the answer must hold.
const hostile = [
  { name: 'oversized', text: card(0).replace('"e2e 0"', JSON.stringify('x'.repeat(70 << 10))), status: 413, words: /more than 65536/ },
  { name: 'malformed JSON', text: '{"schema": "vramplan.calibration/v1", "gpu": ', status: 422, words: /decoding calibration/ },
  { name: 'absurd number', text: card(0, (c) => ({ ...c, context_bytes: 1e30 })), status: 422, field: 'context_bytes' },
  { name: 'negative latency', text: card(0, (c) => { c.vmm.commit[0].p50_us = -5; return c; }), status: 422, field: 'vmm.commit[0]' },
  { name: 'duplicate keys', text: card(0).replace('"gpu": ', '"GPU": "NVIDIA H200", "gpu": '), status: 422, field: 'gpu' },
  { name: 'script in the name', text: card(0, (c) => ({ ...c, gpu: '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">' })), status: 422, field: 'gpu' },
];

test('hostile uploads: refused in the page, and with a clear 4xx by the server, form (no JavaScript) and API alike', async () => {
  const page = await open('/calibrations');
  for (const h of hostile) {
    assert.equal(await pick(page, file(`${h.name}.json`, h.text)), 'invalid', `${h.name}: checked in the page`);
    if (h.field) assert.ok((await page.locator('#upload-check li').evaluateAll((ls) => ls.map((l) => l.dataset.field))).includes(h.field), h.name);
  }
  const plain = await open('/calibrations', { javaScriptEnabled: false });
  for (const h of hostile) {
    await plain.setInputFiles('[data-testid="upload-file"]', join(dir, `${h.name}.json`));
    const got = await submit(plain);
    assert.equal(got.code, h.status, `${h.name}: ${got.heading}`);
    assert.equal(got.status, 'rejected', h.name);
    const reasons = await plain.locator('[data-testid="upload-result"]').innerText();
    if (h.words) assert.match(reasons, h.words, h.name);
    if (h.field) assert.equal(await plain.getAttribute('[data-testid="upload-reasons"] li', 'data-field'), h.field, h.name);
    assert.equal(await plain.locator('img, [onerror]').count(), 0, `${h.name}: nothing from the upload became markup`);
    assert.equal(await plain.locator('script:not([src]):not([type])').count(), 1, `${h.name}: the layout's own start-up script only`);
    const res = await post(h.text);
    const body = await res.json();
    assert.equal(res.status, h.status, `${h.name} through the API: ${JSON.stringify(body)}`);
    assert.ok(body.error, `${h.name}: the API says why`);
    if (h.field) assert.equal(body.field, h.field, h.name);
  }
  const before = await exported();
  assert.equal((await post('{"a":1,"a":2}')).status, 422);
  assert.equal((await api('/api/uploads', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: card(0) })).status, 415);
  assert.equal(await exported(), before, 'no hostile upload was stored');
});

test('a name with quotes and ampersands is stored as the card said it and shown nowhere: its group is pending, counted apart from the picker', async () => {
  const name = 'NVIDIA RTX A4000 "Ada" & <\'x\'> onmouseover="window.pwned=3"'.replace(/[<>]/g, '');
  const res = await post(card(0, (c) => ({ ...c, gpu: name, device_total_bytes: 21470642176, provenance: { ...c.provenance, notes: '<b>bold</b> notes' } })));
  assert.equal(res.status, 201, JSON.stringify(await res.clone().json()));
  const { group: g } = await res.json();
  assert.equal(g, 'rtxa4000adaxonmouseoverwindowpwned3-20gib-linux-r580-cuda13.0');
  const page = await open('/calibrations');
  assert.equal(await row(page, g).count(), 0, 'a card whose total is not known is not offered');
  assert.match(await page.innerText('[data-testid="unlisted"]'), /^Community groups not in the picker: 2\./);
  assert.equal(await page.locator('[onmouseover], b, img').count(), 0, 'nothing from the upload became markup');
  assert.doesNotMatch(await page.locator('main').innerText(), /"Ada"/, 'the uploaded name is not shown');
  const calc = await open(`/?model=qwen3-4b-instruct-2507-q8_0&gpu=${g}`);
  await calc.waitForSelector('#calc[data-ready="true"]');
  assert.match(await calc.locator('[data-testid="error"]').innerText(), /no calibration ".*" to plan on: community group .* is pending/);
  assert.equal(await calc.locator(`[data-testid="gpu"] option[value="${g}"]`).count(), 1, 'the picker holds the id the URL names, as not calibrated here');
  assert.equal(await calc.locator('[onmouseover]').count(), 0);
  assert.equal(await calc.evaluate(() => window.pwned), undefined);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.deepEqual([page.errors, calc.errors, page.dialogs, calc.dialogs], [[], [], [], []]);
});
