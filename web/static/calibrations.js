// calibrations.js checks a calibration in the upload form before the form
// sends it: the model-file reader's WebAssembly (reader.js, wasm/gguf)
// runs checkCalibration, the server's own validator, on the picked file or
// the pasted text, and the form shows each refusal with its field and
// sends nothing the server would refuse. Without it the form still posts
// and the server answers with the same reasons.

import { loadReader } from './reader.js';

// A link to an entry (/calibrations#est-rtx4090-linux, from an estimated
// plan's verdict) opens how the entry was estimated.
const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
target?.querySelector('details')?.setAttribute('open', '');

const form = document.getElementById('upload-form');
if (form) {
  document.documentElement.classList.add('js');
  const file = form.elements.file, text = form.elements.document;
  const out = document.getElementById('upload-check');
  let last; // the latest check's promise, so a slow one cannot overwrite a newer one
  const run = (source) => {
    const mine = last = check(source, out).then((r) => { if (mine === last) show(out, r); },
      (err) => { if (mine === last) show(out, { ok: false, error: err.message }); });
    return mine;
  };
  file.addEventListener('change', () => { if (file.files.length) run(file.files[0].text()); else clear(out); });
  text.addEventListener('input', () => { if (text.value.trim()) run(Promise.resolve(text.value)); else clear(out); });
  form.addEventListener('submit', (e) => {
    if (out.dataset.state === 'invalid' || out.dataset.state === 'checking') e.preventDefault();
  });
}

// check resolves to checkCalibration's answer for the text source resolves to.
async function check(source, el) {
  el.dataset.state = 'checking';
  const [reader, s] = await Promise.all([loadReader(), source]);
  const r = reader.checkCalibration(s);
  if (r instanceof Error) throw r;
  return JSON.parse(r);
}

function clear(el) {
  el.replaceChildren();
  delete el.dataset.state;
}

// show writes a check's answer into el: what will be sent, or every
// reason it would be refused, by field. Text goes in as text, never HTML.
function show(el, r) {
  // A check that could not run (the reader failed to load) leaves the
  // form to the server, which checks it anyway.
  el.dataset.state = r.ok ? 'valid' : r.error ? 'unchecked' : 'invalid';
  const lines = [];
  if (r.ok) {
    const c = r.calibration;
    lines.push(`Valid: ${c.gpu}, ${c.platform}, driver ${c.driver}, CUDA ${c.cuda}; ` +
      `context ${mib(c.context_bytes)} MiB, library reserve ${mib(c.library_reserve_bytes)} MiB. ` +
      `It will be upload ${r.id} in group ${r.group}.`);
  } else if (r.error) {
    lines.push(`Not checked here (${r.error}); the server checks it when you upload.`);
  } else {
    lines.push('The server would refuse it:');
    for (const x of r.reasons) lines.push(x.field ? `${x.field}: ${x.reason}` : x.reason);
  }
  el.replaceChildren(...lines.map((s, i) => {
    const p = document.createElement(i === 0 ? 'p' : 'li');
    p.textContent = s;
    if (i > 0) p.dataset.field = r.reasons[i - 1].field ?? '';
    return p;
  }));
}

const mib = (b) => Math.trunc(b / 2 ** 20);
