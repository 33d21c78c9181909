// app.js makes the server-rendered calculator live: every input re-plans
// in WebAssembly and repaints the result from the same calc.View the
// server rendered it from. Without it the page is a plain GET form.

import { load } from './bridge.js';

const root = document.getElementById('calc');
const form = document.getElementById('controls');
const byTest = (id, el = document) => el.querySelector(`[data-testid="${id}"]`);
const models = new Map(); // id → model-shape JSON
const cals = new Map(); // id → calibration JSON
let api;

if (root && form) {
  document.documentElement.classList.add('js');
  boot().catch((err) => status(`The planner could not start: ${err.message}`));
}

async function boot() {
  const [bridge, ms, cs] = await Promise.all([load(), getJSON('/api/models'), getJSON('/api/calibrations')]);
  api = bridge;
  for (const m of ms) models.set(m.id, JSON.stringify(m));
  for (const c of cs) cals.set(c.id, JSON.stringify(c));
  form.addEventListener('input', onInput);
  form.addEventListener('submit', (e) => { e.preventDefault(); update(); });
  root.addEventListener('click', onLever);
  document.getElementById('file').addEventListener('change', onFile);
  root.dataset.ready = 'true';
  performance.mark('vramplan:interactive');
}

async function getJSON(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return r.json();
}

// onInput keeps each slider and its number in step, then re-plans.
function onInput(e) {
  const el = e.target;
  if (el.type === 'range') {
    const name = el.id.replace(/-slider$/, '');
    form.elements[name].value = name === 'len' ? api.lenAt(+el.value) : el.value;
    el.setAttribute('aria-valuetext', form.elements[name].value);
  } else if (el.type === 'number') {
    syncSlider(el.name);
  }
  if (el.type !== 'file') update();
}

function syncSlider(name) {
  const slider = document.getElementById(`${name}-slider`);
  const v = form.elements[name]?.value;
  if (!slider || v === '' || v === undefined) return;
  slider.value = name === 'len' ? api.lenIndex(+v) : v;
  slider.setAttribute('aria-valuetext', v);
}

function query() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (v !== '') q.append(k, v);
  return q.toString();
}

// update plans the form's state and paints it. It is the hot path of a
// slider move: one call into WebAssembly and a repaint.
export function update() {
  const q = query();
  const s = JSON.parse(api.parseQuery(q));
  const model = models.get(s.model);
  const cal = cals.get(s.gpu);
  if (!model || !cal) {
    status(!model ? `Model "${s.model}" is not in the catalog.` : `No calibration "${s.gpu}".`);
    return;
  }
  const view = JSON.parse(api.calculate(q, model, cal));
  paint(view);
  history.replaceState(null, '', `?${view.query}`);
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
  f.budget.value = s.budget ? Math.floor(s.budget / 2 ** 20) : '';
  for (const n of ['batch', 'len', 'budget']) syncSlider(n);
}

function status(msg) {
  const p = byTest('file-status');
  if (p) p.textContent = msg;
}

// onFile reads a local model file in the page; nothing is uploaded.
async function onFile(e) {
  const file = e.target.files[0];
  if (!file) return;
  try {
    const m = await readModel(file);
    models.set(m.id, JSON.stringify(m));
    const opt = document.createElement('option');
    opt.value = m.id; opt.textContent = `${m.name || m.id} (local file)`;
    document.getElementById('model-list').append(opt);
    form.elements.model.value = m.id;
    status(`Read ${file.name}: ${m.name || m.id}, in this browser only.`);
    update();
  } catch (err) {
    status(`${file.name}: ${err.message}`);
  }
}

async function readModel(file) {
  const name = file.name.toLowerCase();
  if (name.endsWith('.gguf') || name.endsWith('.safetensors')) {
    throw new Error('the GGUF and safetensors readers are not built into this server yet');
  }
  const doc = JSON.parse(await file.text());
  if (doc.layers) return JSON.parse(api.parseModel(JSON.stringify(doc)));
  if (doc.model_type || doc.architectures) throw new Error('the config.json reader is not built into this server yet');
  throw new Error('not a model-shape document or a config.json');
}

// paint writes a calc.View into the result, element by element, exactly
// as templates/result.templ renders it.
function paint(v) {
  const r = document.getElementById('result');
  const err = byTest('error', r);
  if (err) err.remove();
  if (v.error) {
    const p = el('p', { class: 'error', role: 'alert', 'data-testid': 'error' }, v.error);
    r.prepend(p);
    return;
  }
  const verdict = byTest('verdict', r);
  verdict.textContent = v.verdict;
  verdict.className = v.fits ? 'verdict fits' : 'verdict nofit';
  verdict.dataset.fits = String(v.fits);
  byTest('total-mib', r).textContent = v.total_mib;
  byTest('budget-mib', r).textContent = v.budget_mib;
  byTest('headroom-mib', r).textContent = v.headroom_mib;
  byTest('max-seqs', r).textContent = v.max_seqs;
  byTest('max-len', r).textContent = v.max_len;
  byTest('kv', r).textContent = v.kv;
  byTest('bar', r).replaceChildren(...v.bars.map((b) => el('span', {
    class: `seg ${b.tier}`, style: `width:${b.pct};`, title: `${b.label} ${b.mib} MiB`, 'data-testid': `bar-${b.tier}` })),
    el('span', { class: 'budget-mark', style: `left:${v.budget_pct};`, title: 'budget', 'data-testid': 'budget-mark' }));
  byTest('legend', r).replaceChildren(...v.bars.map((b) => el('li', { class: b.tier }, `${b.label} ${b.mib} MiB`)));
  byTest('items-body', r).replaceChildren(...v.items.map(row));
  paintLevers(byTest('levers', r), v);
  paintChart(v.chart);
  paintSliders(v);
  document.title = document.title.replace(/ · [^·]*$/, ` · ${v.verdict}`);
}

function row(it) {
  return el('tr', { 'data-testid': `item-${it.key}` },
    el('th', { scope: 'row', title: it.detail || '' }, it.name),
    el('td', { class: 'num', 'data-testid': 'item-mib' }, String(it.mib)),
    el('td', {}, it.tier),
    el('td', {}, el('span', { class: `tag ${it.source}` }, it.source)));
}

function paintLevers(box, v) {
  const kids = [];
  if (v.levers?.length) kids.push(el('h2', {}, 'Levers'));
  for (const l of v.levers ?? []) kids.push(leverLink(l, 'lever'));
  if (v.combination) kids.push(leverLink(v.combination, 'combination'));
  box.replaceChildren(...kids);
}

function leverLink(l, testid) {
  return el('a', { class: l.fits ? 'lever fits' : 'lever', href: `?${l.query}`, 'data-query': l.query, 'data-testid': testid }, l.label);
}

function paintChart(c) {
  byTest('frontier-path').setAttribute('d', c.path);
  const pt = byTest('frontier-point');
  pt.setAttribute('cx', c.point_x);
  pt.setAttribute('cy', c.point_y);
  pt.setAttribute('class', c.fits ? 'point fits' : 'point nofit');
  byTest('chart-summary').textContent = c.summary;
}

function paintSliders(v) {
  const s = v.sliders;
  const set = (name, cliff) => byTest(`${name}-group`).setAttribute('style', `--cliff:${cliff};`);
  set('batch', s.batch_cliff); set('len', s.len_cliff); set('budget', s.budget_cliff);
  const b = document.getElementById('budget-slider');
  b.max = s.budget_max_mib;
  if (form.elements.budget.value === '') { b.value = s.budget_mib; form.elements.budget.placeholder = s.budget_mib; }
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}
