// vram-calculator.js defines <vram-calculator model="…" gpu="…">, a small
// calculator documentation pages embed. It plans in the reader's browser
// with the same WebAssembly as the full page, loaded from this server.
//
// Its attributes are templates.ComponentAttributes (their names come in
// component.js), which /docs lists: model and gpu, required, take the
// CLI's names (gpu also the card as people name it, "4090" or "RTX 4090":
// its Linux entry; a name that fits several cards, "h100", shows them as
// buttons that set it); the others are the calculator URL's keys, and theme.
// Changing any attribute re-plans. A name that matches nothing, or a value
// that cannot be read, shows what is wrong and no plan: the element never
// shows a plan of something its author did not ask for.

import { load } from './bridge.js';
import { paint as bind, get, group, words } from './bind.js';
import { markup, attributes } from './component.js';
import { gpusView } from './view.js';

const base = new URL('..', import.meta.url);
let shared;
const shapes = new Map(); // "models/name", "calibrations/name" → the server's answer, once per page

// fetchJSON fetches a JSON document and the server's note on it (the
// Vramplan-Note header: what a GPU name resolved to, and why); an error
// answer becomes an Error with the server's words (the API answers
// {"error": "…"}) and, for a GPU name that fits several cards, the
// choices ({id, label}).
async function fetchJSON(p) {
  const r = await fetch(new URL(p, base));
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error(body.error || `${p}: the server answered ${r.status}`), { choices: body.choices });
  return { doc: body, note: decodeURIComponent(r.headers.get('vramplan-note') ?? '') };
}

// fetchShared loads the wasm once per page.
function fetchShared() {
  shared ??= load();
  return shared;
}

// named asks the server for the model or calibration a name names: it
// resolves the name as the CLI does (a model's id or unambiguous prefix; a
// GPU's id or the card as people name it, calibrations.Resolve) and says
// which ids are near when none matches, or which cards a GPU name fits.
function named(kind, name) {
  const k = `${kind}/${name}`;
  if (!shapes.has(k)) shapes.set(k, fetchJSON(`api/${kind}/${encodeURIComponent(name)}`));
  return shapes.get(k);
}

// The attributes that make the plan's state: all but view and theme, which
// say what the element shows and how.
const attrs = attributes.filter((a) => a !== 'theme' && a !== 'view');
const themes = ['light', 'dark', 'auto'];
const views = ['plan', 'gpus'];

// table fetches the calibration table once per page, as one JSON array, for
// view="gpus".
let calibrations;
const table = () => (calibrations ??= fetchJSON('api/calibrations').then(({ doc }) => JSON.stringify(doc)));

// The colours of a theme; auto is light unless the reader's system prefers dark.
const light = '--fg: #1b1f24; --muted: #5b6570; --bg: #fff; --line: #d9dde1; --fits-bg: #e3f4ea; --fits: #145c33; --nofit-bg: #fbe5e3; --nofit: #8a231c; --warn: #8a5a00; --error-bg: #fff3cd; --error-line: #e6c86a; --track: #eee; --link: #2f5fd0;';
const dark = '--fg: #e6e8eb; --muted: #a3acb5; --bg: #16191d; --line: #3a4148; --fits-bg: #143524; --fits: #8fe0b0; --nofit-bg: #3d1a18; --nofit: #ffb4ab; --warn: #f0c36a; --error-bg: #3a300f; --error-line: #8a7230; --track: #2a2f35; --link: #8ab4ff;';

const css = `
:host { ${light} display: block; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); border: 1px solid var(--line); border-radius: 8px; padding: .8rem; max-width: 34rem; background: var(--bg); color-scheme: light; }
:host([theme="dark"]) { ${dark} color-scheme: dark; }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { ${dark} color-scheme: dark; } }
a { color: var(--link); }
.verdict { font-weight: 600; padding: .4rem .6rem; border-radius: 6px; margin: .4rem 0; }
.fits { background: var(--fits-bg); color: var(--fits); } .nofit { background: var(--nofit-bg); color: var(--nofit); }
.estimate { font-size: .85rem; margin: .2rem 0; color: var(--warn); } [hidden] { display: none !important; }
.error { background: var(--error-bg); border: 1px solid var(--error-line); padding: .4rem .6rem; border-radius: 6px; margin: .4rem 0; }
.choices { list-style: none; padding: 0; margin: .3rem 0 0; display: flex; flex-wrap: wrap; gap: .3rem; } .choices:empty { display: none; }
.choices button { font: inherit; font-size: .85rem; padding: .2rem .5rem; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); cursor: pointer; }
.gpu-note { color: var(--muted); font-size: .8rem; margin: .2rem 0; } .gpu-note:empty { display: none; }
.subject { color: var(--muted); margin: .2rem 0; }
.bar { position: relative; display: flex; height: 1rem; border-radius: 4px; overflow: hidden; background: var(--track); }
.list { display: contents; } .budget-mark { position: absolute; top: 0; bottom: 0; border-left: 2px dashed var(--fg); }
.seg { height: 100%; background: var(--c); }
[data-tier="driver"] { --c: #8a939c; } [data-tier="T2"] { --c: #8e5bd0; } [data-tier="T1"] { --c: #2f6fd0; } [data-tier="T3"] { --c: #1f9a6a; } [data-tier="T4"] { --c: #e08a1e; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: .1rem .8rem; padding: 0; margin: .3rem 0; font-size: .8rem; }
.legend li::before { content: ""; display: inline-block; width: .6rem; height: .6rem; border-radius: 2px; margin-right: .25rem; background: var(--c); }
.notes { margin: .2rem 0; padding-left: 1.2rem; font-size: .85rem; overflow-wrap: anywhere; }
.warning { color: var(--warn); font-size: .85rem; margin: .2rem 0; }
label { display: block; margin-top: .5rem; color: var(--muted); } input { width: 100%; }
dl { display: flex; gap: 1.2rem; margin: .5rem 0; } dt { font-size: .8rem; color: var(--muted); } dd { margin: 0; font-weight: 600; }
.rank { margin: .3rem 0; } .rank .bar { height: .7rem; } .rank p { margin: .1rem 0; font-size: .8rem; }
.rank.binding .rank-label { font-weight: 600; } .binding-tag { font-weight: 400; margin-left: .3rem; }
:host([data-state="error"]) .plan, :host([data-state="loading"]) .plan { display: none; }
:host(:not([view="gpus"])) .gpus-view, :host([view="gpus"]) .plan, :host([data-state="error"]) .gpus-view, :host([data-state="loading"]) .gpus-view { display: none; }
.table-scroll { overflow-x: auto; } table { border-collapse: collapse; font-size: .85rem; width: 100%; }
caption { text-align: left; color: var(--muted); } th, td { text-align: left; padding: .25rem .4rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; } tr[data-fits=false] td { color: var(--muted); } thead a:not([href]) { color: inherit; } th[scope=row] { font-weight: 400; }
.tag { font-size: .75rem; padding: 0 .35rem; border-radius: 1rem; border: 1px solid; } code { font-size: .75rem; }
[aria-sort=ascending] a::after { content: " ▲"; } [aria-sort=descending] a::after { content: " ▼"; }
:host(:not([data-state="error"])) .error, :host(:not([data-state="error"])) .choices { display: none; }
`;

class VramCalculator extends HTMLElement {
  static observedAttributes = attributes;

  connectedCallback() {
    if (!this.shadowRoot) this.build();
    this.refresh();
  }

  attributeChangedCallback() {
    if (this.shadowRoot) this.refresh();
  }

  build() {
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${css}</style>${markup}`;
    this.$('wc-batch').addEventListener('input', (e) => { if (this.state) { this.state.batch = +e.target.value; this.paint(); } });
    this.$('wc-len').addEventListener('input', (e) => { if (this.state) { this.state.len = this.api.lenAt(+e.target.value); this.paint(); } });
    this.$('wc-gpus').addEventListener('click', (e) => this.onTable(e));
  }

  // onTable re-sorts the table in the element when a heading is followed;
  // a GPU's link opens the calculator on that GPU and layout.
  onTable(e) {
    const a = e.target.closest('a[data-query]');
    if (!a || a.closest('tbody')) return;
    e.preventDefault();
    this.setAttribute('gsort', new URLSearchParams(a.dataset.query).get('gsort') ?? '');
  }

  $(id) { return this.shadowRoot.querySelector(`[data-testid="${id}"]`); }

  // refresh re-plans from the attributes once the current task is done, so
  // that setting several attributes in a row plans once.
  refresh() {
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      const run = (this.run ?? 0) + 1;
      this.run = run;
      this.dataset.state = 'loading';
      delete this.dataset.ready;
      this.start(run).catch((err) => { if (run === this.run) this.fail(words(err), err?.choices); });
    });
  }

  async start(run) {
    const view = this.getAttribute('view') ?? 'plan';
    if (!views.includes(view)) throw new Error(`view "${view}" is not one of ${views.join(', ')}`);
    this.table = view === 'gpus';
    const missing = (this.table ? ['model'] : ['model', 'gpu']).filter((k) => !this.getAttribute(k)?.trim());
    if (missing.length) throw new Error(`set the ${missing.join(' and ')} attribute${missing.length > 1 ? 's' : ''} (a catalog id and a GPU calibration id, as vramplan plan --model and --gpu take them)`);
    const theme = this.getAttribute('theme');
    if (theme !== null && !themes.includes(theme)) throw new Error(`theme "${theme}" is not one of ${themes.join(', ')}`);
    const gpu = this.getAttribute('gpu')?.trim();
    const [api, { doc: model }, { doc: cal, note }, cals] = await Promise.all([fetchShared(), named('models', this.getAttribute('model').trim()),
      gpu ? named('calibrations', gpu) : { doc: {} }, this.table ? table() : undefined]);
    if (run !== this.run) return; // the attributes changed meanwhile
    this.api = api;
    const q = new URLSearchParams({ model: model.id });
    if (cal.id) q.set('gpu', cal.id);
    for (const k of attrs.slice(2)) if (this.hasAttribute(k)) q.set(k, this.getAttribute(k));
    this.json = [JSON.stringify(model), this.table ? cals : JSON.stringify(cal)];
    this.state = JSON.parse(api.parseQuery(q.toString()));
    this.query = new URLSearchParams(api.encodeState(JSON.stringify(this.state))); // checked and complete
    this.$('wc-model').textContent = model.name || model.id;
    this.$('wc-gpu').textContent = cal.gpu ? `on ${cal.gpu}` : '';
    this.$('wc-gpu-note').textContent = note;
    this.$('wc-batch').value = get({ state: this.state }, 'state.batch');
    this.$('wc-len').value = api.lenIndex(get({ state: this.state }, 'state.len'));
    if (this.paint()) this.dataset.ready = 'true';
  }

  // fail shows what is wrong and no plan; for a GPU name of several cards,
  // a button per card that sets the gpu attribute to it.
  fail(msg, choices = []) {
    this.state = undefined;
    this.$('wc-error').textContent = choices.length ? `"${this.getAttribute('gpu')}" fits ${choices.length} GPUs; choose one:` : msg;
    this.$('wc-choices').replaceChildren(...choices.map((c) => {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button'; b.textContent = c.label; b.title = c.id; b.dataset.id = c.id; b.dataset.testid = 'wc-choice';
      b.addEventListener('click', () => this.setAttribute('gpu', c.id));
      li.append(b);
      return li;
    }));
    this.$('wc-gpu-note').textContent = '';
    this.$('wc-status').textContent = 'Not planned.';
    this.dataset.state = 'error';
    this.dataset.ready = 'true';
  }

  // paint plans the element's state and paints the shadow root from the
  // view (static/bind.js); the bridge passes the model and calibration to
  // the module only when another calculator on the page used it last. It
  // reports whether it planned.
  paint() {
    this.query.set('batch', this.state.batch);
    this.query.set('len', this.state.len);
    if (this.table) return this.paintTable();
    const v = JSON.parse(this.api.calculate(this.query.toString(), ...this.json));
    if (get(v, 'error')) {
      this.fail(get(v, 'error'));
      return false;
    }
    this.dataset.state = 'planned';
    this.$('wc-status').textContent = '';
    bind(this.shadowRoot.querySelector('.plan'), v);
    const link = this.$('estimate-link'); // the view's links are this server's, not the embedding page's
    if (get(v, 'estimate_url')) link.href = new URL(get(v, 'estimate_url'), base).href;
    this.$('wc-batch-value').textContent = group(get(v, 'state.batch'));
    this.$('wc-len-value').textContent = group(get(v, 'state.len'));
    this.$('wc-link').href = new URL(`?${get(v, 'query')}`, base).href;
    return true;
  }

  // paintTable plans the "Which GPUs" table of the element's state and
  // paints it; each GPU's link opens this server's calculator on it.
  paintTable() {
    const t = JSON.parse(this.api.gpus(this.query.toString(), ...this.json));
    const box = this.$('wc-gpus');
    bind(box, t, gpusView);
    for (const a of box.querySelectorAll('tbody a[data-query]')) {
      a.href = new URL(`?${a.dataset.query}`, base).href;
      a.target = '_blank';
    }
    this.$('wc-gpus-subject').textContent = `at ${group(get({ state: this.state }, 'state.len'))} tokens`;
    this.dataset.state = 'planned';
    this.$('wc-status').textContent = '';
    return true;
  }
}

customElements.define('vram-calculator', VramCalculator);
