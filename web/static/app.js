// app.js makes the server-rendered calculator live: every input re-plans
// in WebAssembly and repaints the result from the same calc.View the
// server rendered it from. Without it the page is a plain GET form.

import { load } from './bridge.js';
import { paint as bind, get, group, words } from './bind.js';
import { gpusView } from './view.js';
import { readModel, plainWords, summary, ignoredNote, isMmproj } from './files.js';
import { attach as attachLogCheck, attachObserve } from './logcheck.js';

const root = document.getElementById('calc');
const form = document.getElementById('controls');
const found = new Map(); // scope id + data-testid → element, while it stays in the page

// byTest finds the element with data-testid id under el (the document, or
// an element with an id). Lookups are remembered: a slider move paints
// some twenty elements, and each attribute query walks the page.
function byTest(id, el = document) {
  const key = `${el.id ?? ''}#${id}`;
  const hit = found.get(key);
  if (hit?.isConnected && el.contains(hit)) return hit;
  const e = el.querySelector(`[data-testid="${id}"]`);
  if (e) found.set(key, e);
  return e;
}

const models = new Map(); // id → model-shape JSON, fetched as they are chosen
const cals = new Map(); // id → calibration JSON
let calsJSON; // the calibration table, as one JSON array, for the "Which GPUs" table
let api;
let ids; // the catalog's model ids, as the page's picker lists them
const fetching = new Map(); // key and name → the server's answer for it, in flight
const named = new Map(); // key and name → the id the server resolved it to, or its Error

if (root && form) {
  document.documentElement.classList.add('js');
  listen();
  boot().catch((err) => status(`The planner could not start: ${err.message}`));
}

// listen attaches the page's handlers at once, before the planner is
// ready: an edit made while it loads (seconds on a slow network) marks the
// result stale and is planned the moment the planner is ready.
function listen() {
  form.addEventListener('input', onInput);
  const table = document.getElementById('gpus'); // outside the form: its filters are the form's by form="controls"
  table?.addEventListener('input', onInput);
  table?.addEventListener('click', onLever);
  form.addEventListener('submit', (e) => { e.preventDefault(); if (api) update(); });
  root.addEventListener('click', onLever);
  root.addEventListener('click', onCopy);
  document.getElementById('file').addEventListener('change', (e) => pick(e.target.files));
  document.getElementById('weights').addEventListener('change', onWeights);
  root.addEventListener('dragover', (e) => e.preventDefault());
  root.addEventListener('drop', (e) => { e.preventDefault(); pick(e.dataTransfer.files); });
}

async function boot() {
  const data = JSON.parse(document.getElementById('boot')?.textContent || '{}'); // templates.Boot
  if (data.model) models.set(data.model.id, JSON.stringify(data.model));
  const [bridge, cs] = await Promise.all([load(), data.calibrations ?? getJSON('/api/calibrations'),
    fetchModel(form.elements.model.value).catch(() => {})]);
  api = bridge;
  for (const c of cs) cals.set(c.id, JSON.stringify(c));
  calsJSON = JSON.stringify(cs);
  attachLogCheck(root, api, logDocs, () => form.elements.engine.value);
  attachObserve(root, logDocs, () => form.elements.engine.value);
  root.dataset.ready = 'true';
  performance.mark('vramplan:interactive');
  paintWeights(form.elements.model.value);
  if (early.size) {
    const edited = [...early];
    early.clear();
    for (const el of edited) sync(el);
    update();
  }
  warmUp();
}

// early holds the controls edited before the planner was ready, in the
// order of their last edit.
const early = new Set();

// fetchModel fetches a catalog model's shape once: the page names the
// catalog's ids, not its shapes, so 47 models cost nothing until chosen.
function fetchModel(id) {
  return models.has(id) || !catalogIDs().has(id) ? Promise.resolve() : lookup('model', id);
}

// lookup asks the server once for what a typed name names: it resolves
// it as the CLI does (names.Resolve: an id in any case, or an unambiguous
// prefix) and answers the document, or an error naming the near ids.
function lookup(key, name) {
  const k = `${key}\n${name}`;
  if (!fetching.has(k)) {
    const [path, docs] = key === 'gpu' ? ['calibrations', cals] : ['models', models];
    fetching.set(k, fetch(`/api/${path}/${encodeURIComponent(name)}`).then(async (r) => {
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(body.error || `the server answered ${r.status}`);
      docs.set(body.id, JSON.stringify(body));
      named.set(k, body.id);
    }).catch((err) => { named.set(k, err); }).finally(() => fetching.delete(k)));
  }
  return fetching.get(k);
}

function catalogIDs() {
  ids ??= new Set([...document.querySelectorAll('#model-list option')].map((o) => o.value));
  return ids;
}

async function getJSON(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return r.json();
}

// onInput keeps each slider and its number in step, then re-plans. Before
// the planner is ready it remembers the control and marks the result stale.
function onInput(e) {
  const el = e.target;
  if (el.type === 'file') return;
  if (el.id === 'gpu') document.getElementById('gpu-note')?.remove(); // it spoke of the GPU the URL named
  if (!api) {
    early.delete(el);
    early.add(el);
    root.dataset.stale = 'true';
    return;
  }
  sync(el);
  update();
}

function sync(el) {
  if (el.type === 'range') {
    const name = el.id.replace(/-slider$/, '');
    form.elements[name].value = name === 'len' ? lenAt(+el.value) : el.value;
    el.setAttribute('aria-valuetext', form.elements[name].value);
  } else if (el.type === 'number') {
    syncSlider(el.name);
  } else if (el.name === 'sm') {
    moveGPUs(el.value);
  }
}

// moveGPUs moves the layout's tp × pp GPUs to pp (-sm layer) or tp (-sm
// tensor), as calc's parseSplitMode reads the sm key, so the fields say
// what is planned.
function moveGPUs(mode) {
  const f = form.elements;
  const n = Math.max(1, Math.trunc(+f.tp.value) || 1) * Math.max(1, Math.trunc(+f.pp.value) || 1);
  [f.tp.value, f.pp.value] = mode === 'tensor' ? [n, 1] : [1, n];
}

// lenAt returns the length at an index of the length slider, asking the
// module once per index.
const lens = [];
const lenAt = (i) => (lens[i] ??= api.lenAt(i));

function syncSlider(name) {
  const slider = document.getElementById(`${name}-slider`);
  const v = form.elements[name]?.value;
  if (!slider || v === '' || v === undefined) return;
  slider.value = name === 'len' ? api.lenIndex(+v) : v;
  slider.setAttribute('aria-valuetext', v);
}

// query returns the form's state as URL query parameters.
function query() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (v !== '') q.append(k, v);
  return q;
}

// update plans the form's state and paints it. It is the hot path of a
// slider move: one call into WebAssembly and a repaint.
export function update() {
  paintGPUs();
  const p = query();
  let view;
  try {
    view = calculate(p);
  } catch (err) { // a value the module cannot read: it names the field
    unplanned(words(err), p);
    return;
  }
  if (view) paint(view);
  if (view && !get(view, 'error')) paintTable(p);
}

// paintTable plans the "Which GPUs" table of the query p, whose model
// calculate resolved, in WebAssembly and paints it from its calc.GPUsView
// (templates/gpus.templ), as the server rendered it.
function paintTable(p) {
  const box = document.getElementById('gpus');
  const model = box && models.get(p.get('model'));
  if (model) bind(box, JSON.parse(api.gpus(p.toString(), model, calsJSON)), gpusView);
}

// calculate plans the state in the query parameters p in WebAssembly and
// returns its calc.View, or null, having said why, when its model or
// calibration is not at hand (a catalog model being fetched re-runs update
// when it arrives). It is one call into the module, which reads (and
// checks) the query itself; the bridge passes the model and calibration
// only when they change.
function calculate(p, quiet) {
  const model = resolved(p, 'model', models, catalogIDs(), quiet);
  const cal = model && resolved(p, 'gpu', cals, cals.keys(), quiet);
  if (!model || !cal) return null;
  return JSON.parse(api.calculate(p.toString(), model, cal));
}

// logDocs returns the model and calibration JSON the page plans with, for
// the log paste box, or undefined when either is not at hand.
function logDocs() {
  const p = query();
  const model = resolved(p, 'model', models, catalogIDs(), true);
  const cal = model && resolved(p, 'gpu', cals, cals.keys(), true);
  return model && cal ? [model, cal] : undefined;
}

// resolved returns the document that p's key names, setting the key to its
// full id; a state that names none gets the first, as on the server. A
// name that is not an id is resolved by the server (lookup), once: until
// it answers, or when the name matches nothing or several (said in the
// result unless quiet), it returns undefined; update runs again when the
// answer arrives.
function resolved(p, key, docs, ids, quiet) {
  const name = p.get(key) || ids.values().next().value;
  const id = docs.has(name) ? name : named.get(`${key}\n${name}`);
  if (id instanceof Error) {
    if (!quiet) unplanned(id.message, p);
    return undefined;
  }
  if (id !== undefined && docs.has(id)) {
    p.set(key, id);
    return docs.get(id);
  }
  if (!quiet) {
    root.dataset.stale = 'true'; // the figures shown are for the last name that resolved
    lookup(key, name).then(update);
  }
  return undefined;
}

// unplanned shows why the form's state cannot be planned and hides the
// figures of the last plan, which are not its answer; the URL and title
// follow, so a shared link says the same. title is the view's, for a
// state the planner refused; the page's own words otherwise.
function unplanned(msg, p, title = `vramplan · not planned: ${msg}`) {
  const r = document.getElementById('result');
  const shown = byTest('error', r);
  if (shown) setText(shown, msg); // an alert is announced when it changes, not on every keystroke
  else r.prepend(el('p', { class: 'error', role: 'alert', 'data-testid': 'error' }, msg));
  setAttr(r, 'data-planned', 'false');
  announce('');
  if (root.dataset.stale) delete root.dataset.stale;
  remember(p.toString(), title);
}

// Warm-up. Browsers compile WebAssembly lazily, a function on its first
// call, with a baseline compiler, and optimize only the functions that
// run hot; Go's first garbage collection runs cold code too. Left alone,
// a user's first few dozen slider moves would pay for all of it, some of
// them tens of milliseconds each (docs/benchmarks.md). So once the
// page is interactive it plans states near the current one in idle time
// and then marks #calc data-warm. The first calls compile the most, so
// each of those has an idle period to itself: parsing a query, then a
// model, then a plan that fits, then one that does not (its levers);
// after them, WARM_CALLS plans run a few milliseconds at a time.
const WARM_CALLS = 200;
const WARM_SLICE_MS = 5;
const WARM_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256];

function warmUp() {
  const at = (batch, len) => { const q = query(); q.set('batch', batch); q.set('len', len); return q; };
  const steps = [
    () => api.parseQuery(query().toString()),
    () => { const m = models.get(form.elements.model.value); if (m) api.parseModel(m); },
    () => calculate(at(1, 256), true),
    () => calculate(at(256, 1 << 20), true),
    () => { const p = at(1, 256); if (calculate(p, true) && calsJSON) api.gpus(p.toString(), models.get(p.get('model')), calsJSON); }, // the "Which GPUs" table's call, unpainted
  ];
  const next = (i, done) => idle(() => {
    try {
      if (i < steps.length) {
        steps[i]();
        return next(i + 1, done);
      }
      const t0 = performance.now();
      const n = +document.getElementById('len-slider').max + 1;
      for (; done < WARM_CALLS && performance.now() - t0 < WARM_SLICE_MS; done++) {
        if (!calculate(at(WARM_BATCHES[done % WARM_BATCHES.length], lenAt((done * 7) % n)), true)) return;
      }
      if (done < WARM_CALLS) next(i, done);
      else root.dataset.warm = 'true';
    } catch {
      // The form holds a state the module rejects, or a model not at
      // hand; the next move plans it and says so.
    }
  });
  next(0, 0);
}

// idle runs f when the page is idle (soon, where the browser cannot say).
const idle = (f) => (globalThis.requestIdleCallback ? requestIdleCallback(f, { timeout: 1000 }) : setTimeout(f, 20));

// remember puts the state in the URL, and the verdict in the title, once
// the input settles: browsers throttle history updates, a slider held down
// fires many inputs, and each title change is work for the browser's own
// process too.
let pending;
function remember(q, title) {
  clearTimeout(pending);
  pending = setTimeout(() => {
    history.replaceState(null, '', `?${q}`);
    if (title !== document.title) document.title = title;
  }, 100);
}

function onLever(e) {
  const a = e.target.closest('a[data-query]');
  if (!a || !api) return;
  e.preventDefault();
  applyState(JSON.parse(api.parseQuery(a.dataset.query)));
  update();
}

// applyState sets every control from a state (a calc.State).
function applyState(state) {
  const f = form.elements;
  const s = new Proxy({}, { get: (_, k) => get({ state }, `state.${k}`) }); // each key checked against view.js
  f.model.value = s.model; f.gpu.value = s.gpu;
  f.batch.value = s.batch; f.len.value = s.len;
  f.kv.value = s.kv || 'f16'; f.block.value = s.block || 16;
  f.cache.value = s.cache || 'none'; f.spec.value = s.spec || 0;
  f.vision.checked = !!s.vision; f.graphs.checked = !!s.graphs;
  f.budget.value = !s.budget ? '' : s.budget % 2 ** 20 ? `${s.budget}b` : s.budget / 2 ** 20; // whole MiB as the slider sends it, else bytes
  for (const k of ['tp', 'pp', 'ep', 'dp']) f[k].value = s[k] || 1;
  f.ts.value = s.ts ?? '';
  f.sm.value = s.tp > 1 ? 'tensor' : 'layer'; // calc.State.SplitMode
  f.ngl.value = s.ngl || ''; // empty: every layer
  f.version.value = s.version ?? ''; // empty: the engine's newest rules
  if (f.gsort) [f.gsort.value, f.gmin.value, f.glabel.value] = [s.gsort ?? '', s.gmin || '', s.glabel ?? '']; // the "Which GPUs" table's
  for (const n of ['batch', 'len']) syncSlider(n); // the budget slider follows the view (paintSliders)
}

function status(msg) {
  const p = byTest('file-status');
  if (p) p.textContent = msg;
}


// pick reads local model files, chosen or dropped, in the page; nothing
// is uploaded. The GGUF and config.json readers load on the first pick.
async function pick(list, dtype = '') {
  const files = [...(list ?? [])];
  if (!files.length) return;
  const names = files.map((f) => f.name).join(', ');
  try {
    status(`Opening ${names} in this browser…`);
    const [m, ignored] = await readModel(files, dtype, api);
    picked = { files, dtype, id: `file:${m.id}`, config: ignored.config };
    m.id = `file:${m.id}`; // names.LocalPrefix: a link to it says the file must be picked again
    models.set(m.id, JSON.stringify(m));
    if (![...document.querySelectorAll('#model-list option')].some((o) => o.value === m.id)) {
      const opt = document.createElement('option');
      opt.value = m.id; opt.textContent = `${m.name || m.id} (local file)`;
      document.getElementById('model-list').append(opt);
    }
    form.elements.model.value = m.id;
    if (files.some(isMmproj)) form.elements.vision.checked = true; // as the CLI's --mmproj implies --vision
    const read = files.filter((f) => !ignored.files.includes(f)).map((f) => f.name).join(', ');
    status(`Read ${read}, in this browser only: ${summary(m)}.${ignoredNote(ignored)}`);
    update();
  } catch (err) {
    document.getElementById('file').value = ''; // the picker no longer names a file that was not read
    fileError(names, files, err);
  }
}

// fileError says in a reader's words why the files could not be read, with
// the reader's own message one click away, and that the plan shown is still
// for the model in the form.
function fileError(names, files, err) {
  const box = byTest('file-status');
  const shown = form.elements.model.value;
  const detail = words(err);
  box.replaceChildren(el('strong', {}, `Could not read ${names}: `), `${plainWords(files, err, detail)}. `,
    shown ? `The plan shown is still for ${shown}. ` : '',
    el('details', {}, el('summary', {}, 'Details'), el('code', { 'data-testid': 'file-detail' }, detail)));
}

// Weights. The control offers another storage format for the weights:
// for a catalog model, its other formats in the catalog (planner.Variant,
// each a catalog model of the same shape); for a config.json picked here,
// the formats `vramplan plan --weights-dtype` takes, read again by the
// model-file reader. A GGUF or model-shape file's weights are what the file
// holds.
const WEIGHT_DTYPES = ['bf16', 'fp8', 'int4', 'nvfp4', 'mxfp4', 'q8_0', 'q6_k', 'q4_k_m'];
let picked; // the local files last read: { files, dtype, id, config: whether a config.json was read }

function paintWeights(id) {
  const box = document.getElementById('weights');
  if (box.dataset.model === id && box.dataset.dtype === (picked?.id === id ? picked.dtype : '')) return;
  const m = models.has(id) ? JSON.parse(models.get(id)) : undefined;
  if (!m) return;
  box.dataset.model = id;
  const mibs = (w) => `${group(Math.floor(w.bytes / 2 ** 20))} MiB`;
  const opt = (value, label, selected) => { const o = el('option', { value }, label); o.selected = selected; return o; };
  let opts, note, local = picked?.id === id;
  if (local && picked.config) {
    box.dataset.dtype = picked.dtype;
    opts = [opt('', `as published (${picked.dtype ? 'the checkpoint\'s own' : `${m.weights.dtype || 'its dtype'}, ${mibs(m.weights)}`})`, !picked.dtype),
      ...WEIGHT_DTYPES.map((d) => opt(d, d === picked.dtype ? `${d}, ${mibs(m.weights)}` : d, d === picked.dtype))];
    note = 'The config.json\'s weights in another format, as vramplan plan --weights-dtype plans them.';
  } else if (local || id.startsWith('file:')) {
    box.dataset.dtype = '';
    opts = [opt('', `${m.weights.dtype || 'as the file holds them'}, ${mibs(m.weights)}`, true)];
    note = 'Fixed by the file: its tensors are stored as they are. Pick a config.json to plan other formats.';
  } else {
    box.dataset.dtype = '';
    opts = [opt(id, `${m.weights.dtype || id}, ${mibs(m.weights)}`, true),
      ...(m.variants ?? []).map((v) => opt(v.id, `${v.weights.dtype || v.id}, ${mibs(v.weights)}`, false))];
    note = opts.length > 1 ? 'The same model in the catalog\'s other formats.'
      : 'The catalog holds this model in one format; pick its config.json to plan others.';
  }
  box.replaceChildren(...opts);
  box.disabled = opts.length < 2;
  setText(byTest('weights-note'), note);
}

// onWeights applies the weights control: a catalog variant is another
// catalog model; a local config.json is read again in the format chosen.
function onWeights(e) {
  const v = e.target.value;
  if (picked?.id === form.elements.model.value) {
    pick(picked.files, v);
    return;
  }
  form.elements.model.value = v;
  if (api) update();
}

// paint writes a calc.View into the page: every element the server
// rendered with a data-v binding, and every list (static/bind.js), then
// what belongs to the form (the sliders, the weights) and the settled
// state (the URL and title, the announced verdict).
function paint(v) {
  const r = document.getElementById('result');
  if (get(v, 'error')) {
    unplanned(get(v, 'error'), new URLSearchParams(get(v, 'query')), get(v, 'title'));
    return;
  }
  byTest('error', r)?.remove();
  setAttr(r, 'data-planned', 'true');
  if (root.dataset.stale) delete root.dataset.stale;
  bind(root, v);
  paintSliders(v);
  paintBlank(get(v, 'state'));
  paintWeights(get(v, 'state.model'));
  announce(get(v, 'verdict'));
  remember(get(v, 'query'), get(v, 'title'));
}

// paintBlank moves an empty batch or length field's slider to what is planned.
function paintBlank(s) {
  for (const name of ['batch', 'len']) {
    if (form.elements[name].value !== '') continue;
    const slider = document.getElementById(`${name}-slider`);
    const at = name === 'len' ? api.lenIndex(get({ state: s }, 'state.len')) : get({ state: s }, 'state.batch');
    if (+slider.value !== at) slider.value = at;
  }
}

// paintGPUs writes how many GPUs the layout controls add up to.
function paintGPUs() {
  const f = form.elements;
  const n = ['tp', 'pp', 'dp'].reduce((m, k) => m * Math.max(1, Math.trunc(+f[k].value) || 1), 1);
  setText(byTest('gpu-count'), n === 1 ? '1 GPU' : `${n} GPUs`);
}

// announce tells a screen reader the verdict once the input settles: the
// result region itself is not live, or every slider step would re-read it.
// The live region is written only when the verdict it says has changed.
let announcing;
const ANNOUNCE_MS = 700;
function announce(verdict) {
  clearTimeout(announcing);
  if (!verdict) return;
  announcing = setTimeout(() => {
    const box = byTest('announce');
    if (box && box.textContent !== verdict) box.textContent = verdict;
  }, ANNOUNCE_MS);
}

// onCopy copies the launch command to the clipboard.
function onCopy(e) {
  const b = e.target.closest?.('[data-testid="copy-launch"]');
  if (!b) return;
  const text = byTest('launch-command', document.getElementById('result')).textContent;
  navigator.clipboard?.writeText(text).then(() => { b.textContent = 'Copied'; setTimeout(() => { b.textContent = 'Copy'; }, 1500); },
    () => { b.textContent = 'Select and copy'; });
}

// setText and setAttr write only what changed, remembering on the element
// what they last wrote.
function setText(e, t) {
  if (e.vramplanText === t) return;
  e.vramplanText = t;
  if (e.textContent !== t) e.textContent = t;
}

function setAttr(e, k, v) {
  const seen = (e.vramplanAttrs ??= {});
  if (seen[k] === v) return;
  seen[k] = v;
  if (e.getAttribute(k) !== v) e.setAttribute(k, v);
}

// paintSliders sets the budget slider from the view: its top, and its
// position when the field holds a size with a unit.
function paintSliders(v) {
  const b = document.getElementById('budget-slider');
  const mib = get(v, 'sliders.budget_mib');
  setAttr(b, 'max', String(get(v, 'sliders.budget_max_mib')));
  if (+b.value !== mib) b.value = mib;
  setAttr(b, 'aria-valuetext', `${group(mib)} MiB`);
  if (form.elements.budget.value === '') setAttr(form.elements.budget, 'placeholder', String(mib));
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}
