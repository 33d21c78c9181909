// logcheck.js is the calculator's log paste box (templates/logcheck.templ):
// the pasted start-up log is read and planned by the planner module's
// checkLog for the model and GPU the page has picked (the model-file
// reader's parseLog reads it first), and its rows are the ones `vramplan
// check --log` prints. What the log contradicts of the selection comes
// first, from the reader's checkConflicts (the planner's module is at its
// size budget), and builds no observation; before it, what the check
// assumed that decides the comparison (the reader's checkAssumptions),
// and after the rows, the pool, the figures read that no plan line is set
// against, the other assumptions and the memory lines not read, as
// `vramplan check --log` prints them.

import { loadReader } from './reader.js';

const mib = (b) => (b / 2 ** 20).toFixed(2);
const signed = (b) => (b >= 0 ? '+' : '') + mib(b); // as the CLI's %+.2f

/**
 * attach wires the box under root to api.checkLog; docs() returns the
 * [model, calibration] JSON the page plans with, or undefined, engine()
 * the engine selected.
 */
export function attach(root, api, docs, engine) {
  const box = root.querySelector('[data-testid="log-check"]');
  if (!box) return; // the embedded page has no box
  box.querySelector('#log-check').addEventListener('click', () => check(box, api, docs(), engine()));
}

// check checks the log against the selection. What the log contradicts of
// the model, the GPU or the engine selected is said first, above the
// rows, and marks the box (data-conflicts), which builds no observation;
// the box then says it was checked (the event vramplan:checked).
async function check(box, api, d, engine) {
  const run = (box.vramplanRun = (box.vramplanRun ?? 0) + 1); // a later check wins
  const status = box.querySelector('[data-testid="log-status"]');
  const table = box.querySelector('[data-testid="log-rows"]');
  const launch = box.querySelector('[data-testid="log-launch"]');
  const conflicts = box.querySelector('[data-testid="log-conflicts"]');
  table.hidden = launch.parentElement.hidden = true;
  conflicts.replaceChildren();
  clearExtras(box);
  box.dataset.conflicts = '0';
  box.vramplanCheck = '';
  if (!d) {
    status.textContent = 'Pick a model and a GPU first.';
    return checked(box);
  }
  let r, reader;
  const text = box.querySelector('#log-text').value;
  try {
    reader = await loadReader(); // reads the log: the planner's module plans it
    r = JSON.parse(api.checkLog(unwrap(reader.parseLog(text)), d[0], d[1]));
  } catch (e) {
    if (run === box.vramplanRun) status.textContent = `Could not check the log: ${e.message.replace(/^vramplan(GGUF)?\.\w+: /, '')}`;
    return checked(box);
  }
  if (run !== box.vramplanRun) return undefined;
  const said = `${r.log.engine} log, planned as ${r.planned_as} for ${r.model} on ${r.gpu}`;
  status.textContent = said;
  box.vramplanCheck = JSON.stringify(r);
  let found = [];
  try {
    found = JSON.parse(unwrap(reader.checkConflicts(text, d[0], d[1], engine, box.vramplanCheck)));
  } catch (e) {
    found = [`Whether the log is of this setup could not be checked: ${e.message.replace(/^vramplanGGUF\.\w+: /, '')}`];
  }
  if (run !== box.vramplanRun) return undefined;
  conflicts.replaceChildren(...found.map((c) => {
    const li = document.createElement('li');
    li.textContent = c;
    return li;
  }));
  box.dataset.conflicts = String(found.length);
  if (found.length) status.textContent = `Not the selected setup: the rows below compare two different ones. ${said}`;
  const staged = r.rank_rows || r.pool?.stages; // a pipeline's rows name their stage, as the CLI's do
  table.tBodies[0].replaceChildren(...r.rows.map((x) => row(x, staged ? 'stage 0: ' : '')),
    ...(r.rank_rows ?? []).flatMap((rr) => rr.rows.map((x) => row(x, `stage ${rr.stage}: `, `printed by rank ${rr.rank}`))));
  table.hidden = false;
  showExtras(box, r, assumptions(reader, text, d, box.vramplanCheck));
  if (r.launch) {
    launch.textContent = r.launch;
    launch.parentElement.hidden = false;
  }
  return checked(box);
}

// assumptions returns what the check assumed, or one that says why that
// could not be said.
function assumptions(reader, text, d, check) {
  try {
    return JSON.parse(unwrap(reader.checkAssumptions(text, d[0], d[1], check)));
  } catch (e) {
    return [{ decides: true, text: `What the check assumed could not be said: ${e.message.replace(/^vramplanGGUF\.\w+: /, '')}` }];
  }
}

const extras = ['log-decides', 'log-reported', 'log-assumed', 'log-unread'];

function clearExtras(box) {
  for (const id of extras) box.querySelector(`[data-testid="${id}"]`).replaceChildren();
  box.querySelector('[data-testid="log-pool"]').hidden = true;
}

// showExtras shows the deciding assumptions above the rows and the rest
// below them: the pool, the figures no plan line is set against, the
// other assumptions, the lines not read.
function showExtras(box, r, assumed) {
  const list = (id, items) => box.querySelector(`[data-testid="${id}"]`).replaceChildren(...items.map(([text, data]) => {
    const li = document.createElement('li');
    li.textContent = text;
    Object.assign(li.dataset, data ?? {});
    return li;
  }));
  list('log-decides', assumed.filter((a) => a.decides).map((a) => [`Assumed, and it decides the comparison: ${a.text}`, { fact: a.fact ?? '' }]));
  const pool = box.querySelector('[data-testid="log-pool"]');
  if (r.pool) {
    pool.textContent = `KV pool (${r.pool.unit}): plan ${r.pool.plan}, log ${r.pool.log}, ${(r.pool.residual >= 0 ? '+' : '') + (100 * r.pool.residual).toFixed(1)}%`;
    if (r.pool.stages) pool.textContent += `. ${binding(r.pool.stages)}`;
    pool.hidden = false;
  }
  list('log-reported', (r.log.reported ?? []).map((f) => [`${f.name}: ${mib(f.bytes)} MiB (read; no plan line${f.rank ? `; printed by rank ${f.rank}` : ''})`, { key: f.key }]));
  list('log-assumed', assumed.filter((a) => !a.decides).map((a) => [`Assumed: ${a.text}`, { fact: a.fact ?? '' }]));
  const unread = (r.log.unread ?? []).map((s) => [s, { unread: '' }]);
  if (r.log.unread_more) unread.push([`… and ${r.log.unread_more} more`]);
  list('log-unread', unread);
}

// checked tells the upload part that a check is done.
function checked(box) {
  box.dispatchEvent(new Event('vramplan:checked'));
}

// unwrap throws a reader export's Error result.
function unwrap(r) {
  if (r instanceof Error) throw r;
  return r;
}

// binding says which pipeline stage's KV cache binds in the plan and in
// the log, as logcheck.Binding does for `vramplan check`.
function binding(ps) {
  const tokens = (ts, b) => [`${ts[b]} tokens`, ...ts.flatMap((t, i) => (i !== b && t > 0 ? [`stage ${i} ${t}`] : []))].join('; ');
  const stated = ps.log_tokens.flatMap((t, i) => (t > 0 ? [i] : []));
  let s = `The engine sizes every rank's KV cache to the stage with the fewest tokens: in the plan stage ${ps.plan} (${tokens(ps.plan_tokens, ps.plan)})`;
  if (ps.log >= 0) s += `, in the log stage ${ps.log} (its KV cache memory at the plan's bytes per token: ${tokens(ps.log_tokens, ps.log)})`;
  else s += stated.length ? `; the log states the KV cache memory of stage ${stated.join(', ')} only` : "; the log states no stage's KV cache memory";
  return `${s}.`;
}

// row is a charge's row; prefix names a pipeline's stage, note the rank
// that printed it.
function row(r, prefix = '', note = '') {
  const tr = document.createElement('tr');
  tr.dataset.key = r.key;
  const within = r.within_resolution ? "within the log's rounding" : '';
  for (const s of [prefix + r.name, mib(r.plan_bytes), mib(r.log_bytes), signed(r.residual_bytes), [note, within].filter(Boolean).join('; ')]) {
    const td = document.createElement('td');
    td.textContent = s;
    tr.append(td);
  }
  return tr;
}

// The observation upload: after a check, the observation of the same log,
// model and GPU is built and checked by the reader module (observeLog, the
// server's own validator), shown as it will be sent, and posted to
// /api/observations only when the user asks; the server's answer is shown.


/**
 * attachObserve wires the upload part of the box; docs() and engine() as
 * for attach. A log that contradicts the selection is offered no upload.
 */
export function attachObserve(root, docs, engine, post = fetch) {
  const box = root.querySelector('[data-testid="log-check"]');
  if (!box) return;
  const part = box.querySelector('[data-testid="log-observe"]');
  let doc = '';
  box.addEventListener('vramplan:checked', () => {
    part.hidden = box.querySelector('[data-testid="log-rows"]').hidden || box.dataset.conflicts !== '0';
    reset(part);
    releaseHint(part.querySelector('#log-version'), box.vramplanCheck);
  });
  part.querySelector('#log-observe').addEventListener('click', async () => {
    doc = await observe(part, box.querySelector('#log-text').value, docs(), engine(), box.vramplanCheck);
  });
  part.querySelector('#log-upload').addEventListener('click', () => upload(part, doc, post));
}

// releaseHint shows in the release field the release the checked log
// states, else an example of its engine's form (data-examples, from the
// engines' profiles): never one engine's release for another's log.
function releaseHint(field, check) {
  const log = check ? JSON.parse(check).log : {};
  const example = Object.fromEntries(field.dataset.examples.split(' ').map((e) => e.split('=')))[log.engine];
  field.placeholder = log.version ? `${log.version}, as the log states` : (example ? `such as ${example}` : '');
}

function reset(part) {
  part.querySelector('[data-testid="log-observe-reasons"]').replaceChildren();
  part.querySelector('[data-testid="log-observe-document"]').hidden = true;
  part.querySelector('#log-upload').hidden = true;
  part.querySelector('[data-testid="log-upload-status"]').textContent = '';
}

// observe builds and checks the observation; it returns the document to
// send, or '' when there is none.
async function observe(part, text, d, engine, check) {
  reset(part);
  const reasons = part.querySelector('[data-testid="log-observe-reasons"]');
  const say = (lines) => reasons.replaceChildren(...lines.map(([field, msg]) => {
    const li = document.createElement('li');
    li.dataset.field = field ?? '';
    li.textContent = field ? `${field}: ${msg}` : msg;
    return li;
  }));
  if (!d) {
    say([[null, 'Pick a model and a GPU first.']]);
    return '';
  }
  const id = JSON.parse(d[0]).id ?? '';
  const options = { version: part.querySelector('#log-version').value.trim(), day: new Date().toISOString().slice(0, 10),
    catalog: id.startsWith('file:') ? '' : id, engine, check };
  let r;
  try {
    r = (await loadReader()).observeLog(text, d[0], d[1], options);
    if (r instanceof Error) throw r;
    r = JSON.parse(r);
  } catch (e) {
    say([[null, `Could not build the observation: ${e.message.replace(/^vramplanGGUF\.\w+: /, '')}`]]);
    return '';
  }
  if (!r.ok) {
    say([[null, r.document ? 'The server would refuse it:' : 'No observation:'], ...r.reasons.map((x) => [x.field, x.reason])]);
    return '';
  }
  const pre = part.querySelector('[data-testid="log-observe-document"]');
  pre.textContent = r.document;
  pre.hidden = false;
  say([[null, `Valid: observation ${r.id}. This is exactly what will be sent:`]]);
  part.querySelector('#log-upload').hidden = false;
  return r.document;
}

async function upload(part, doc, post) {
  const status = part.querySelector('[data-testid="log-upload-status"]');
  if (!doc) return;
  status.textContent = 'Sending…';
  let a;
  try {
    const resp = await post('/api/observations', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: doc });
    a = { code: resp.status, ...(await resp.json()) };
  } catch (e) {
    status.textContent = `Not sent: ${e.message}`;
    return;
  }
  status.dataset.status = a.status ?? 'error';
  if (a.code === 201) {
    const held = (a.reasons ?? []).map((x) => ` Held out of the refit: ${x.reason}`).join('');
    status.textContent = `${a.status}: observation ${a.id}.${held} Deletion token (shown once; keep it to withdraw the observation): ${a.deletion_token}`;
  } else if (a.duplicate) {
    status.textContent = `Already uploaded: observation ${a.id} (${a.status}).`;
  } else {
    status.textContent = `Refused (${a.code}): ${a.error}`;
  }
}
