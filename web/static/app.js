// app.js makes the server-rendered calculator live: every input re-plans
// in WebAssembly and repaints the result from the same calc.View the
// server rendered it from. Without it the page is a plain GET form.

import { load } from './bridge.js';
import { attach as attachLogCheck, attachObserve } from './logcheck.js';
import { loadReader } from './reader.js';

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
  attachLogCheck(root, api, logDocs);
  attachObserve(root, logDocs);
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
  if (!view) return;
  paint(view);
  remember(view);
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

// words strips the bridge's "vramplan.fn: " from an error's message.
const words = (err) => String(err?.message ?? err).replace(/^vramplan\.\w+: /, '');

// unplanned shows why the form's state cannot be planned and hides the
// figures of the last plan, which are not its answer; the URL and title
// follow, so a shared link says the same.
function unplanned(msg, p) {
  const r = document.getElementById('result');
  const shown = byTest('error', r);
  if (shown) setText(shown, msg); // an alert is announced when it changes, not on every keystroke
  else r.prepend(el('p', { class: 'error', role: 'alert', 'data-testid': 'error' }, msg));
  setAttr(r, 'data-planned', 'false');
  announce('');
  if (root.dataset.stale) delete root.dataset.stale;
  remember({ query: p.toString(), title: `vramplan · not planned: ${msg}` });
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
function remember(v) {
  clearTimeout(pending);
  pending = setTimeout(() => {
    history.replaceState(null, '', `?${v.query}`);
    if (v.title && v.title !== document.title) document.title = v.title;
  }, 100);
}

function onLever(e) {
  const a = e.target.closest('a[data-query]');
  if (!a || !api) return;
  e.preventDefault();
  applyState(JSON.parse(api.parseQuery(a.dataset.query)));
  update();
}

// applyState sets every control from a state.
function applyState(s) {
  const f = form.elements;
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
    const [m, ignored] = await readModel(files, dtype);
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
    fileError(names, files, words(err));
  }
}

// fileError says in a reader's words why the files could not be read, with
// the reader's own message one click away, and that the plan shown is still
// for the model in the form.
function fileError(names, files, detail) {
  const box = byTest('file-status');
  const shown = form.elements.model.value;
  box.replaceChildren(el('strong', {}, `Could not read ${names}: `), `${plainWords(files, detail)}. `,
    shown ? `The plan shown is still for ${shown}. ` : '',
    el('details', {}, el('summary', {}, 'Details'), el('code', { 'data-testid': 'file-detail' }, detail)));
}

// plainWords turns a reader's message into what is wrong with the file.
// Messages that already say what to pick are kept as they are.
function plainWords(files, detail) {
  if (/\bpick\b|not picked|split/i.test(detail)) return detail.replace(/^[^:]*\.(gguf|json): /i, '');
  if (files.some(isGGUF)) return 'it is not a GGUF model file this planner can read (it is cut short, damaged, or not GGUF)';
  if (/JSON|unexpected (token|end)|invalid character/i.test(detail)) return 'it is not valid JSON';
  return 'it is not a config.json or model-shape file this planner can read';
}

// summary describes a model shape in a few words.
function summary(m) {
  const layers = m.layers.reduce((n, l) => n + l.count, 0);
  const mib = Math.floor(m.weights.bytes / 2 ** 20);
  const kind = m.weights.dtype ? `${m.weights.dtype}, ${m.weights.source}` : m.weights.source;
  return `${m.arch || m.id}, ${layers} layers, ${group(mib)} MiB of weights (${kind})${m.vision ? ', a vision tower' : ''}`;
}

const lower = (f) => f.name.toLowerCase();
const isGGUF = (f) => lower(f).endsWith('.gguf');
const isMmproj = (f) => isGGUF(f) && lower(f).includes('mmproj');
const isTensors = (f) => lower(f).endsWith('.safetensors') || lower(f).endsWith('.safetensors.index.json');

// readModel reads what was picked: GGUF files (the splits of one model and
// an optional mmproj), a config.json with optional safetensors files (one,
// or an index and its shards), or a planner model-shape .json. It returns
// the shape, the files it did not use and why: a GGUF holds the whole
// shape, so a config.json or safetensors picked beside it is not read.
async function readModel(files, dtype) {
  const others = (used, why) => ({ files: files.filter((f) => !used.includes(f)), why });
  if (files.some(isGGUF)) {
    const mmproj = files.filter(isMmproj);
    const parts = files.filter((f) => isGGUF(f) && !isMmproj(f));
    if (mmproj.length > 1 || !parts.length) throw new Error('pick one GGUF model (or all its splits) and at most one mmproj file');
    const m = JSON.parse(await (await loadReader()).read(parts, mmproj[0]));
    return [m, others([...parts, ...mmproj], files.some((f) => lower(f).endsWith('.json') || isTensors(f))
      ? "the GGUF holds the whole shape, with its tensors' exact sizes; pick the config.json alone to plan from it instead"
      : 'not a model file')];
  }
  const tensors = files.filter(isTensors);
  const docs = files.filter((f) => lower(f).endsWith('.json') && !isTensors(f));
  if (docs.length !== 1) throw new Error(tensors.length ? 'pick the config.json together with the safetensors files' : 'pick one .json file');
  const doc = JSON.parse(await docs[0].text());
  if (doc.layers) return [JSON.parse(api.parseModel(JSON.stringify(doc))), others(docs, 'a model-shape file carries its own weights')];
  if (doc.model_type || doc.architectures) {
    const m = JSON.parse(await (await loadReader()).readConfig(docs[0], tensors.length ? tensors : undefined,
      dtype ? { weights_dtype: dtype } : undefined));
    return [m, { ...others([...docs, ...tensors], 'not a model file'), config: true }];
  }
  throw new Error('not a model-shape document or a config.json');
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

// ignoredNote says which picked files the plan does not use, and why.
function ignoredNote(ignored) {
  return ignored.files.length ? ` Not used: ${ignored.files.map((f) => f.name).join(', ')} (${ignored.why}).` : '';
}

// paint writes a calc.View into the result, element by element, exactly
// as templates/result.templ renders it. It writes only what changed and
// rebuilds a list only when its shape changed: a slider move usually
// changes a few numbers.
function paint(v) {
  const r = document.getElementById('result');
  if (v.error) {
    unplanned(v.error, new URLSearchParams(v.query));
    return;
  }
  byTest('error', r)?.remove();
  setAttr(r, 'data-planned', 'true');
  if (root.dataset.stale) delete root.dataset.stale;
  setText(byTest('subject', r), v.subject);
  const verdict = byTest('verdict', r);
  setText(verdict, v.verdict);
  setAttr(verdict, 'class', v.fits ? 'verdict fits' : 'verdict nofit');
  setAttr(verdict, 'data-fits', String(v.fits));
  const texts = { 'total-mib': group(v.total_mib), 'budget-mib': group(v.budget_mib), 'headroom-mib': group(v.headroom_mib),
    'total-gib': v.total_gib ?? '', 'budget-gib': v.budget_gib ?? '', 'headroom-gib': v.headroom_gib ?? '',
    'max-seqs': group(v.max_seqs), 'max-len': group(v.max_len), kv: v.kv };
  for (const [id, t] of Object.entries(texts)) setText(byTest(id, r), t);
  const across = v.across ? `, ${v.across}` : ''; // the totals of a layout are sums over its GPUs
  r.vramplanAcross ??= [...r.querySelectorAll('[data-testid="across"]')];
  for (const span of r.vramplanAcross) setText(span, across);
  setText(byTest('budget-note'), v.budget_note);
  const bar = byTest('bar', r);
  setAttr(bar, 'aria-label', v.bar_label);
  paintList(bar, v.bars.map((b) => b.tier).join(), () => [...v.bars.map((b) => el('span', {
    class: `seg ${b.tier}`, 'data-testid': `bar-${b.tier}` })), el('span', { class: 'budget-mark', title: 'budget', 'data-testid': 'budget-mark' })]);
  const segs = bar.children;
  v.bars.forEach((b, i) => { setAttr(segs[i], 'style', `width:${b.pct};`); setAttr(segs[i], 'title', `${b.label} ${b.size}`); });
  setAttr(segs[v.bars.length], 'style', `left:${v.budget_pct};`);
  paintList(byTest('legend', r), v.bars.map((b) => b.tier).join(), () => v.bars.map((b) => el('li', { class: b.tier })));
  v.bars.forEach((b, i) => setText(byTest('legend', r).children[i], `${b.label} ${b.size}`));
  const body = byTest('items-body', r);
  paintList(body, v.items.map((it) => it.key).join(), () => v.items.map(row));
  v.items.forEach((it, i) => paintRow(body.children[i], it));
  paintLevers(byTest('levers', r), v);
  const warnings = v.warnings ?? [];
  paintList(byTest('warnings', r), warnings.join('\n'), () => warnings.map((w) => el('p', { class: 'warning', 'data-testid': 'warning' }, w)));
  paintChart(v.chart);
  paintSliders(v);
  paintEngine(r, v);
  paintRanks(r, v.layout);
  paintHints(v.state);
  paintWeights(v.state.model);
  announce(v.verdict);
}

// paintHints says, under the batch and length fields, that an empty field
// plans the default, when it is empty.
function paintHints(s) {
  const empty = { batch: `Empty: planned as the default, batch ${group(s.batch)}. 0 plans as many sequences as fit at this length.`,
    len: `Empty: planned as the default, ${group(s.len)} tokens.` };
  for (const [name, text] of Object.entries(empty)) {
    const hint = byTest(`${name}-hint`);
    if (!hint) continue;
    hint.vramplanIdle ??= hint.textContent; // the server's words, for a field that holds a value
    const blank = form.elements[name].value === '';
    setText(hint, blank ? text : hint.vramplanIdle);
    const slider = document.getElementById(`${name}-slider`);
    const at = name === 'len' ? api.lenIndex(s.len) : s.batch;
    if (blank && +slider.value !== at) slider.value = at; // the slider shows what is planned
  }
}

// paintGPUs writes how many GPUs the layout controls add up to, and shows
// the tensor-split field (calc.State.SplitShown) and -ngl field
// (calc.State.OffloadShown) where the engine's profile plans them, as its
// option's data-split and data-offload say.
function paintGPUs() {
  const f = form.elements;
  const n = ['tp', 'pp', 'dp'].reduce((m, k) => m * Math.max(1, Math.trunc(+f[k].value) || 1), 1);
  setText(byTest('gpu-count'), n === 1 ? '1 GPU' : `${n} GPUs`);
  const engine = f.engine.selectedOptions[0]?.dataset ?? {};
  for (const [id, hide] of [['ts-field', !('split' in engine && n > 1)], ['ngl-field', !('offload' in engine)]]) {
    const field = byTest(id);
    if (field.hidden !== hide) field.hidden = hide;
  }
}

// paintRanks writes a layout's bar per distinct rank, as
// templates/parallel.templ renders it, and hides the section for one GPU.
// It rebuilds the ranks only when their view changed.
function paintRanks(r, l) {
  const box = byTest('ranks', r);
  if (box.hidden !== !l) box.hidden = !l;
  const key = l ? JSON.stringify(l) : '';
  if (box.vramplanKey === key) return;
  box.vramplanKey = key;
  box.replaceChildren(el('h2', {}, 'Per GPU'), ...(l ? [el('p', { class: 'layout-label', 'data-testid': 'layout-label' }, l.label),
    ...l.ranks.map(rankBox)] : []));
}

function rankBox(k) {
  const bar = el('div', { class: 'bar', role: 'img', 'aria-label': `${k.label}: memory by tier against the budget` },
    ...k.bars.map((b) => el('span', { class: `seg ${b.tier}`, style: `width:${b.pct}`, title: `${b.label} ${b.mib} MiB` })),
    el('span', { class: 'budget-mark', style: `left:${k.budget_pct}`, title: 'budget' }));
  const tag = k.binding ? [' ', el('strong', { class: 'binding-tag', 'data-testid': 'binding' }, 'binding rank')] : [];
  return el('div', { class: `rank${k.binding ? ' binding' : ''}${k.fits ? '' : ' nofit'}`, 'data-testid': 'rank',
    'data-binding': String(k.binding), 'data-fits': String(k.fits) },
  el('p', { class: 'rank-label' }, el('span', { 'data-testid': 'rank-label' }, k.label), ...tag),
  bar, el('p', { class: 'rank-figures', 'data-testid': 'rank-figures' }, k.figures));
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

// paintEngine writes the engine the plan follows, its answer, its notes
// and the launch command that pins the plan.
function paintEngine(r, v) {
  setText(byTest('engine', r), v.engine ?? '');
  setText(byTest('answer', r), v.answer ?? '');
  const host = byTest('host-memory', r);
  setText(host, v.host ?? '');
  if (host.hidden !== !v.host) host.hidden = !v.host;
  const notes = v.notes ?? [], list = byTest('engine-notes', r);
  paintList(list, notes.join('\n'), () => notes.map((n) => el('li', { 'data-testid': 'engine-note' }, n)));
  if (list.hidden !== !notes.length) list.hidden = !notes.length;
  setText(byTest('launch-command', r), v.launch ?? '');
  const box = byTest('launch', r);
  if (box.hidden !== !v.launch) box.hidden = !v.launch;
}

// onCopy copies the launch command to the clipboard.
function onCopy(e) {
  const b = e.target.closest?.('[data-testid="copy-launch"]');
  if (!b) return;
  const text = byTest('launch-command', document.getElementById('result')).textContent;
  navigator.clipboard?.writeText(text).then(() => { b.textContent = 'Copied'; setTimeout(() => { b.textContent = 'Copy'; }, 1500); },
    () => { b.textContent = 'Select and copy'; });
}

// paintList replaces a list's children when its shape (a key) changed.
function paintList(box, shape, build) {
  if (box.dataset.shape === shape) return;
  box.replaceChildren(...build());
  box.dataset.shape = shape;
}

// setText and setAttr write only what changed. Each remembers on the
// element what it last wrote, so a slider move compares strings in
// JavaScript rather than reading back the DOM; the first write to an
// element compares with what the server rendered.
function setText(e, t) {
  if (e.vramplanText === t) return;
  e.vramplanText = t;
  const n = e.firstChild;
  if (n && n === e.lastChild && n.nodeType === Node.TEXT_NODE) {
    if (n.data !== t) n.data = t; // only the line is laid out again; a new node would be restyled too
  } else if (e.textContent !== t) {
    e.textContent = t;
  }
}

function setAttr(e, k, v) {
  const seen = (e.vramplanAttrs ??= {});
  if (seen[k] === v) return;
  seen[k] = v;
  if (e.getAttribute(k) !== v) e.setAttribute(k, v);
}

function row(it) {
  return el('tr', { 'data-testid': `item-${it.key}` }, el('th', { scope: 'row' }),
    el('td', { class: 'num', 'data-testid': 'item-mib' }), el('td', {}), el('td', {}, el('span', {})));
}

function paintRow(tr, it) {
  const [name, mib, tier, source] = tr.children;
  setText(name, it.name); setAttr(name, 'title', it.detail || '');
  setText(mib, group(it.mib)); setText(tier, it.tier);
  setText(source.firstChild, sourceLabel(it.source)); setAttr(source.firstChild, 'class', `tag ${it.source}`);
}

// sourceLabel is templates.sourceLabel: an unmeasured charge (0 bytes) says so.
const sourceLabel = (s) => (s === 'unmeasured' ? 'not measured' : s);

// paintLevers rebuilds the lever links only when their number or kinds
// change; a slider move usually changes only their queries and labels,
// which are written in place.
function paintLevers(box, v) {
  const levers = v.levers ?? [];
  const all = [...levers.map((l) => [l, 'lever']), ...(v.combination ? [[v.combination, 'combination']] : [])];
  paintList(box, all.map(([, kind]) => kind).join(), () => [
    ...(levers.length ? [el('h2', {}, 'Levers')] : []),
    ...all.map(([, kind]) => el('a', { class: 'lever', 'data-testid': kind }))]);
  const links = box.querySelectorAll('a');
  all.forEach(([l], i) => {
    setAttr(links[i], 'class', l.fits ? 'lever fits' : 'lever');
    setAttr(links[i], 'href', `?${l.query}`);
    setAttr(links[i], 'data-query', l.query);
    setText(links[i], l.label);
  });
}

function paintChart(c) {
  paintList(byTest('chart-yticks'), String(c.top), () => c.y_ticks.flatMap((t) => [
    svg('text', { x: 40, y: t.at, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, t.label),
    svg('line', { class: 'grid', x1: 44, y1: t.at, x2: 312, y2: t.at })]));
  setAttr(byTest('frontier-path'), 'd', c.path);
  const pt = byTest('frontier-point');
  setAttr(pt, 'cx', c.point_x);
  setAttr(pt, 'cy', c.point_y);
  setAttr(pt, 'class', c.fits ? 'point fits' : 'point nofit');
  setText(byTest('chart-summary'), c.summary);
  setText(byTest('chart-note'), c.note ?? '');
  const trained = byTest('chart-trained');
  setAttr(trained, 'y1', c.trained_y); setAttr(trained, 'y2', c.trained_y);
  const label = byTest('chart-trained-label');
  setAttr(label, 'y', c.trained_y); setText(label, c.trained_label);
}

function paintSliders(v) {
  const s = v.sliders;
  const set = (name, cliff) => setAttr(byTest(`${name}-group`), 'style', `--cliff:${cliff};`);
  set('batch', s.batch_cliff); set('len', s.len_cliff); set('budget', s.budget_cliff);
  const b = document.getElementById('budget-slider');
  setAttr(b, 'max', String(s.budget_max_mib));
  if (+b.value !== s.budget_mib) b.value = s.budget_mib; // the field may hold a size with a unit: the view says its MiB
  setAttr(b, 'aria-valuetext', `${group(s.budget_mib)} MiB`);
  if (form.elements.budget.value === '') setAttr(form.elements.budget, 'placeholder', String(s.budget_mib));
}

// group writes a whole number as calc.Group does: "143,771".
const grouping = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const group = (n) => grouping.format(n);

// svg makes an SVG element, as el makes an HTML one.
function svg(tag, attrs, ...kids) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}
