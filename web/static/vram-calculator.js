// vram-calculator.js defines <vram-calculator model="…" gpu="…">, a small
// calculator documentation pages embed. It plans in the reader's browser
// with the same WebAssembly as the full page, loaded from this server.
// Optional attributes: batch, len, kv, budget (MiB).

import { load } from './bridge.js';

const base = new URL('..', import.meta.url);
let shared;
const shapes = new Map(); // model id → its shape, fetched once per page

const get = (p) => fetch(new URL(p, base)).then((r) => r.ok ? r.json() : Promise.reject(new Error(`${p}: ${r.status}`)));

// fetchShared loads the wasm and the calibration table once per page.
function fetchShared() {
  shared ??= Promise.all([load(), get('api/calibrations')]);
  return shared;
}

function fetchModel(id) {
  if (!shapes.has(id)) shapes.set(id, get(`api/models/${encodeURIComponent(id)}`));
  return shapes.get(id);
}

const css = `
:host { display: block; font: 14px/1.4 system-ui, sans-serif; color: #1b1f24; border: 1px solid #d9dde1; border-radius: 8px; padding: .8rem; max-width: 34rem; background: #fff; }
.verdict { font-weight: 600; padding: .4rem .6rem; border-radius: 6px; margin: .4rem 0; }
.fits { background: #e3f4ea; color: #145c33; } .nofit { background: #fbe5e3; color: #8a231c; }
.bar { display: flex; height: 1rem; border-radius: 4px; overflow: hidden; background: #eee; }
.bar span { height: 100%; } .driver { background: #8a939c; } .T2 { background: #8e5bd0; } .T1 { background: #2f6fd0; } .T3 { background: #1f9a6a; } .T4 { background: #e08a1e; }
label { display: block; margin-top: .5rem; color: #5b6570; } input { width: 100%; }
dl { display: flex; gap: 1.2rem; margin: .5rem 0; } dt { font-size: .8rem; color: #5b6570; } dd { margin: 0; font-weight: 600; }
`;

class VramCalculator extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${css}</style>
      <strong data-testid="wc-model"></strong> <span data-testid="wc-gpu"></span>
      <p class="verdict" data-testid="wc-verdict" role="status">Loading the planner…</p>
      <div class="bar" data-testid="wc-bar" role="img" aria-label="memory by tier against the budget"></div>
      <label>Max batch: <output data-testid="wc-batch-value"></output>
        <input type="range" min="1" max="256" data-testid="wc-batch" aria-label="Max batch"></label>
      <label>Max sequence length: <output data-testid="wc-len-value"></output>
        <input type="range" min="0" max="48" data-testid="wc-len" aria-label="Max sequence length"></label>
      <dl><div><dt>Total MiB</dt><dd data-testid="wc-total"></dd></div>
        <div><dt>Sequences at this length</dt><dd data-testid="wc-max-seqs"></dd></div>
        <div><dt>Longest at this batch</dt><dd data-testid="wc-max-len"></dd></div></dl>
      <a data-testid="wc-link" target="_blank" rel="noopener">Open in vramplan</a>`;
    this.start(root).catch((err) => { root.querySelector('.verdict').textContent = err.message; });
  }

  async start(root) {
    const [[api, cals], model] = await Promise.all([fetchShared(), fetchModel(this.getAttribute('model') ?? '')]);
    const cal = cals.find((c) => c.id === this.getAttribute('gpu')) ?? cals[0];
    const q = new URLSearchParams({ model: model.id, gpu: cal.id });
    for (const k of ['batch', 'len', 'kv', 'budget']) if (this.hasAttribute(k)) q.set(k, this.getAttribute(k));
    this.api = api;
    this.json = [JSON.stringify(model), JSON.stringify(cal)];
    this.state = JSON.parse(api.parseQuery(q.toString()));
    this.query = new URLSearchParams(api.encodeState(JSON.stringify(this.state))); // checked and complete
    root.querySelector('[data-testid="wc-model"]').textContent = model.name || model.id;
    root.querySelector('[data-testid="wc-gpu"]').textContent = `on ${cal.gpu}`;
    const batch = root.querySelector('[data-testid="wc-batch"]');
    const len = root.querySelector('[data-testid="wc-len"]');
    batch.value = this.state.batch;
    len.value = api.lenIndex(this.state.len);
    batch.addEventListener('input', () => { this.state.batch = +batch.value; this.paint(root); });
    len.addEventListener('input', () => { this.state.len = api.lenAt(+len.value); this.paint(root); });
    this.paint(root);
    this.dataset.ready = 'true';
  }

  // paint plans the element's state and writes the result; the bridge
  // passes the model and calibration to the module only when another
  // calculator on the page used it last.
  paint(root) {
    this.query.set('batch', this.state.batch);
    this.query.set('len', this.state.len);
    const v = JSON.parse(this.api.calculate(this.query.toString(), ...this.json));
    const $ = (id) => root.querySelector(`[data-testid="${id}"]`);
    $('wc-verdict').textContent = v.error || v.verdict;
    $('wc-verdict').className = `verdict ${v.fits ? 'fits' : 'nofit'}`;
    $('wc-bar').replaceChildren(...(v.bars ?? []).map((b) => {
      const s = document.createElement('span');
      s.className = b.tier; s.style.width = b.pct; s.title = `${b.label} ${b.mib} MiB`;
      return s;
    }));
    $('wc-batch-value').textContent = this.state.batch;
    $('wc-len-value').textContent = this.state.len;
    $('wc-total').textContent = v.total_mib;
    $('wc-max-seqs').textContent = v.max_seqs;
    $('wc-max-len').textContent = v.max_len;
    $('wc-link').href = new URL(`?${v.query}`, base).href;
  }
}

customElements.define('vram-calculator', VramCalculator);
