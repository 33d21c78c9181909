// vram-calculator.js defines <vram-calculator model="…" gpu="…">, a small
// calculator documentation pages embed. It plans in the reader's browser
// with the same WebAssembly as the full page, loaded from this server.
//
// model and gpu take what the CLI's --model and --gpu take for the catalog
// and the calibration table: an id, in any case, or an unambiguous prefix
// ("qwen3-8b-q8"); for gpu also the card as people name it ("4090",
// "RTX 4090": its Linux entry). A gpu that fits several cards ("h100")
// shows them as buttons that set it. Optional attributes: batch, len, kv, budget (MiB, or with a
// unit: 24GiB), engine (llama.cpp, vllm or sglang: plan as that engine
// allocates, and show its launch command and notes), tp, pp, ep and dp (a parallel
// layout: a bar per distinct rank, the binding rank marked; the total is
// then summed over its GPUs and says so), ts (llama.cpp's tensor split,
// one share per GPU: "3,1", under engine="llama.cpp"), sm (llama.cpp's
// split mode, layer or tensor: how the layout's GPUs split the model,
// under engine="llama.cpp"), ngl (llama.cpp's
// -ngl, the layers on the GPUs, counted over all of them, under
// engine="llama.cpp"). Changing any attribute re-plans. A name that matches
// nothing, or a value that cannot be read, shows what is wrong and no plan:
// the element never shows a plan of something its author did not ask for.

import { load } from './bridge.js';

const base = new URL('..', import.meta.url);
let shared;
const shapes = new Map(); // "models/name", "calibrations/name" → the server's answer, once per page

// get fetches a JSON document and the server's note on it (the
// Vramplan-Note header: what a GPU name resolved to, and why); an error
// answer becomes an Error with the server's words (the API answers
// {"error": "…"}) and, for a GPU name that fits several cards, the
// choices ({id, label}).
async function get(p) {
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
  if (!shapes.has(k)) shapes.set(k, get(`api/${kind}/${encodeURIComponent(name)}`));
  return shapes.get(k);
}

// words strips the bridge's "vramplan.fn: " from an error: a reader wants
// what is wrong, not where.
const words = (err) => String(err?.message ?? err).replace(/^vramplan\.\w+: /, '');

// group writes a whole number as the view's figures are written (calc.Group): "143,771".
const grouping = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const group = (n) => grouping.format(n);

const attrs = ['model', 'gpu', 'batch', 'len', 'kv', 'budget', 'engine', 'tp', 'pp', 'ep', 'dp', 'ts', 'sm', 'ngl'];

const css = `
:host { display: block; font: 14px/1.4 system-ui, sans-serif; color: #1b1f24; border: 1px solid #d9dde1; border-radius: 8px; padding: .8rem; max-width: 34rem; background: #fff; }
.verdict { font-weight: 600; padding: .4rem .6rem; border-radius: 6px; margin: .4rem 0; }
.fits { background: #e3f4ea; color: #145c33; } .nofit { background: #fbe5e3; color: #8a231c; }
.error { background: #fff3cd; border: 1px solid #e6c86a; padding: .4rem .6rem; border-radius: 6px; margin: .4rem 0; }
.choices { list-style: none; padding: 0; margin: .3rem 0 0; display: flex; flex-wrap: wrap; gap: .3rem; } .choices:empty { display: none; }
.choices button { font: inherit; font-size: .85rem; padding: .2rem .5rem; border: 1px solid #b9c0c7; border-radius: 4px; background: #fff; cursor: pointer; }
.gpu-note { color: #5b6570; font-size: .8rem; margin: .2rem 0; } .gpu-note:empty { display: none; }
.subject { color: #5b6570; margin: .2rem 0; }
.bar { display: flex; height: 1rem; border-radius: 4px; overflow: hidden; background: #eee; }
.bar span { height: 100%; } .driver { --c: #8a939c; } .T2 { --c: #8e5bd0; } .T1 { --c: #2f6fd0; } .T3 { --c: #1f9a6a; } .T4 { --c: #e08a1e; }
.bar span { background: var(--c); }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: .1rem .8rem; padding: 0; margin: .3rem 0; font-size: .8rem; }
.legend li::before { content: ""; display: inline-block; width: .6rem; height: .6rem; border-radius: 2px; margin-right: .25rem; background: var(--c); }
.notes { margin: .2rem 0; padding-left: 1.2rem; font-size: .85rem; overflow-wrap: anywhere; } .notes:empty { display: none; }
.warning { color: #8a5a00; font-size: .85rem; margin: .2rem 0; }
label { display: block; margin-top: .5rem; color: #5b6570; } input { width: 100%; }
dl { display: flex; gap: 1.2rem; margin: .5rem 0; } dt { font-size: .8rem; color: #5b6570; } dd { margin: 0; font-weight: 600; }
.rank { margin: .3rem 0; } .rank .bar { height: .7rem; } .rank p { margin: .1rem 0; font-size: .8rem; }
.rank.binding p { font-weight: 600; }
:host([data-state="error"]) .plan, :host([data-state="loading"]) .plan { display: none; }
:host(:not([data-state="error"])) .error, :host(:not([data-state="error"])) .choices { display: none; }
`;

class VramCalculator extends HTMLElement {
  static observedAttributes = attrs;

  connectedCallback() {
    if (!this.shadowRoot) this.build();
    this.refresh();
  }

  attributeChangedCallback() {
    if (this.shadowRoot) this.refresh();
  }

  build() {
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${css}</style>
      <strong data-testid="wc-model"></strong> <span data-testid="wc-gpu"></span>
      <p class="verdict" data-testid="wc-status" role="status">Loading the planner…</p>
      <p class="error" data-testid="wc-error" role="alert"></p>
      <ul class="choices" data-testid="wc-choices"></ul>
      <p class="gpu-note" data-testid="wc-gpu-note"></p>
      <div class="plan">
        <p class="subject" data-testid="wc-subject"></p>
        <p class="subject" data-testid="wc-engine"></p>
        <ul class="notes" data-testid="wc-notes"></ul>
        <p class="verdict" data-testid="wc-verdict"></p>
        <div class="bar" data-testid="wc-bar" role="img"></div>
        <ul class="legend" data-testid="wc-legend"></ul>
        <div data-testid="wc-ranks"></div>
        <div data-testid="wc-warnings"></div>
        <label>Max batch: <output data-testid="wc-batch-value"></output>
          <input type="range" min="1" max="256" data-testid="wc-batch" aria-label="Max batch"></label>
        <label>Max sequence length: <output data-testid="wc-len-value"></output>
          <input type="range" min="0" max="48" data-testid="wc-len" aria-label="Max sequence length"></label>
        <dl><div><dt data-testid="wc-total-label">Total MiB</dt><dd data-testid="wc-total"></dd></div>
          <div><dt>Sequences at this length</dt><dd data-testid="wc-max-seqs"></dd></div>
          <div><dt>Longest at this batch</dt><dd data-testid="wc-max-len"></dd></div></dl>
        <a data-testid="wc-link" target="_blank" rel="noopener">Open in vramplan</a>
      </div>`;
    this.$('wc-batch').addEventListener('input', (e) => { if (this.state) { this.state.batch = +e.target.value; this.paint(); } });
    this.$('wc-len').addEventListener('input', (e) => { if (this.state) { this.state.len = this.api.lenAt(+e.target.value); this.paint(); } });
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
    const missing = ['model', 'gpu'].filter((k) => !this.getAttribute(k)?.trim());
    if (missing.length) throw new Error(`set the ${missing.join(' and ')} attribute${missing.length > 1 ? 's' : ''} (a catalog id and a GPU calibration id, as vramplan plan --model and --gpu take them)`);
    const [api, { doc: model }, { doc: cal, note }] = await Promise.all([fetchShared(), named('models', this.getAttribute('model').trim()),
      named('calibrations', this.getAttribute('gpu').trim())]);
    if (run !== this.run) return; // the attributes changed meanwhile
    this.api = api;
    const q = new URLSearchParams({ model: model.id, gpu: cal.id });
    for (const k of attrs.slice(2)) if (this.hasAttribute(k)) q.set(k, this.getAttribute(k));
    this.json = [JSON.stringify(model), JSON.stringify(cal)];
    this.state = JSON.parse(api.parseQuery(q.toString()));
    this.query = new URLSearchParams(api.encodeState(JSON.stringify(this.state))); // checked and complete
    this.$('wc-model').textContent = model.name || model.id;
    this.$('wc-gpu').textContent = `on ${cal.gpu}`;
    this.$('wc-gpu-note').textContent = note;
    this.$('wc-batch').value = this.state.batch;
    this.$('wc-len').value = api.lenIndex(this.state.len);
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

  // paint plans the element's state and writes the result; the bridge
  // passes the model and calibration to the module only when another
  // calculator on the page used it last. It reports whether it planned.
  paint() {
    this.query.set('batch', this.state.batch);
    this.query.set('len', this.state.len);
    const v = JSON.parse(this.api.calculate(this.query.toString(), ...this.json));
    if (v.error) {
      this.fail(v.error);
      return false;
    }
    this.dataset.state = 'planned';
    this.$('wc-status').textContent = '';
    this.$('wc-subject').textContent = v.subject;
    this.$('wc-engine').textContent = v.launch ? `${v.engine}: ${v.launch}` : v.engine;
    this.$('wc-notes').replaceChildren(...(v.notes ?? []).map((n) => {
      const li = document.createElement('li');
      li.textContent = n;
      return li;
    }));
    this.$('wc-verdict').textContent = v.verdict;
    this.$('wc-verdict').className = `verdict ${v.fits ? 'fits' : 'nofit'}`;
    const bars = v.bars ?? [];
    this.$('wc-bar').setAttribute('aria-label', v.bar_label);
    this.$('wc-bar').replaceChildren(...bars.map((b) => {
      const s = document.createElement('span');
      s.className = b.tier; s.style.width = b.pct; s.title = `${b.label} ${b.size}`;
      return s;
    }));
    this.$('wc-legend').replaceChildren(...bars.map((b) => {
      const li = document.createElement('li');
      li.className = b.tier; li.textContent = `${b.label} ${b.size}`;
      return li;
    }));
    this.$('wc-warnings').replaceChildren(...(v.warnings ?? []).map((w) => {
      const p = document.createElement('p');
      p.className = 'warning'; p.textContent = w;
      return p;
    }));
    this.$('wc-ranks').replaceChildren(...(v.layout?.ranks ?? []).map((k) => rank(k)));
    this.$('wc-batch-value').textContent = group(this.state.batch);
    this.$('wc-len-value').textContent = group(this.state.len);
    this.$('wc-total').textContent = group(v.total_mib);
    this.$('wc-total-label').textContent = v.across ? `Total MiB, ${v.across}` : 'Total MiB';
    this.$('wc-max-seqs').textContent = group(v.max_seqs);
    this.$('wc-max-len').textContent = group(v.max_len);
    this.$('wc-link').href = new URL(`?${v.query}`, base).href;
    return true;
  }
}

// rank is one distinct rank of a layout: its ranks, its bar on the
// layout's scale, its figures; the binding rank says so.
function rank(k) {
  const box = document.createElement('div');
  box.className = k.binding ? 'rank binding' : 'rank';
  box.dataset.testid = 'wc-rank';
  box.dataset.binding = String(k.binding);
  const label = document.createElement('p');
  label.textContent = `${k.label}${k.binding ? ' · binding rank' : ''}: ${k.figures}`;
  const bar = document.createElement('div');
  bar.className = 'bar';
  bar.setAttribute('role', 'img');
  bar.setAttribute('aria-label', `${k.label}: ${k.figures}`);
  bar.replaceChildren(...k.bars.map((b) => {
    const s = document.createElement('span');
    s.className = b.tier; s.style.width = b.pct; s.title = `${b.label} ${b.mib} MiB`;
    return s;
  }));
  box.append(label, bar);
  return box;
}

customElements.define('vram-calculator', VramCalculator);
