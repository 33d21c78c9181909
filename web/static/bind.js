// bind.js paints a calc.View into markup the server rendered from the same
// view (templates/*.templ): the page, /embed and <vram-calculator> all
// paint through it, so no list, row or label is built a second time here.
//
// An element says what it shows in data-v, bindings separated by ';', each
// `target=template`. A template is a path in the view in braces ("{kv}"),
// optionally with text around it ("item-{key}", ", {across}"; a template
// whose path is empty is empty), or "!{path}", the path's negation. The
// targets: text; hidden; .name (toggles the class name); style.prop (a CSS
// property, custom ones too); any other name is an attribute, removed when
// empty. Numbers are written grouped, as calc.Group writes them. A list is
// an element with data-list="path": its children are clones of the
// <template> named by data-proto, one per element, each painted with its
// element (the path "." is the element itself); they are rebuilt only when
// the list's shape changes (the items' data-key values, or their number),
// which the server renders as data-shape.
//
// Every path is looked up in view.js, the view's keys as go generate
// ./web/static writes them from calc.View, before it is read: a key that
// is not the view's throws, so the page's tests see it.

import { view } from './view.js';

const scopes = new WeakMap(); // scope element → its bindings and lists, with the schema they were checked against
const compiled = new Map(); // data-v text → parsed bindings

/** paint writes data into the bindings under scope (an element or a shadow root). */
export function paint(scope, data, schema = view) {
  let s = scopes.get(scope);
  if (!s || s.schema !== schema) {
    s = collect(scope, schema);
    scopes.set(scope, s);
  }
  for (const [el, bindings] of s.binds) for (const b of bindings) apply(el, b, data);
  for (const list of s.lists) paintList(list, data, schema);
}

/** get returns the value at a path of a view, checked against view.js. */
export function get(v, path) {
  return read(v, check(view, path));
}

// group writes a whole number as calc.Group does: "143,771".
const grouping = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const group = (n) => grouping.format(n);

// words strips the bridge's "vramplan.fn: " from an error's message: a
// reader wants what is wrong, not where.
export const words = (err) => String(err?.message ?? err).replace(/^vramplan(GGUF)?\.\w+: /, '');

// collect finds the bound elements and the lists of a scope, leaving out
// what lies inside a list (each of its children is a scope of its own).
function collect(scope, schema) {
  const s = { schema, binds: [], lists: [] };
  const visit = (el) => {
    if (el.dataset?.v) s.binds.push([el, parse(el.dataset.v).map((b) => ({ ...b, paths: b.parts.filter((p) => p.path).map((p) => check(schema, p.path)) }))]);
    if (el !== scope && el.dataset?.list !== undefined) {
      check(schema, el.dataset.list);
      s.lists.push(el);
      return;
    }
    for (const c of el.children) visit(c);
  };
  visit(scope);
  return s;
}

// parse reads a data-v attribute into its bindings.
function parse(text) {
  let out = compiled.get(text);
  if (out) return out;
  out = text.split(';').map((b) => b.trim()).filter(Boolean).map((b) => {
    const eq = b.indexOf('=');
    const target = b.slice(0, eq).trim();
    let template = b.slice(eq + 1);
    const not = template.startsWith('!{') && template.endsWith('}') && template.indexOf('{', 2) < 0;
    if (not) template = template.slice(1);
    const parts = template.split(/(\{[^}]*\})/).filter((p) => p !== '').map((p) => (p.startsWith('{') ? { path: p.slice(1, -1) } : { text: p }));
    return { target, parts, not };
  });
  compiled.set(text, out);
  return out;
}

// check returns the steps of a path in a schema; it throws for a key the
// view does not have.
function check(schema, path) {
  if (path === '.') return [];
  const steps = path.split('.');
  let at = schema;
  for (const k of steps) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || !(k in at)) throw new Error(`bind.js: the view has no key "${k}" (in "${path}")`);
    at = at[k];
  }
  return steps;
}

function read(data, steps) {
  let v = data;
  for (const k of steps) v = v?.[k];
  return v;
}

// value evaluates a binding: the raw value of a lone path, else the text.
function value(b, data) {
  if (b.parts.length === 1 && b.paths.length === 1) {
    const v = read(data, b.paths[0]);
    return b.not ? !truthy(v) : v;
  }
  let out = '', i = 0;
  for (const p of b.parts) {
    if (!p.path) { out += p.text; continue; }
    const v = format(read(data, b.paths[i++]));
    if (v === '') return '';
    out += v;
  }
  return out;
}

const truthy = (v) => (Array.isArray(v) ? v.length > 0 : Boolean(v));

function format(v) {
  if (typeof v === 'number') return group(v);
  if (v === undefined || v === null) return '';
  return String(v);
}

// apply writes one binding, only when what it writes changed. Each element
// remembers what was last written to each target, so a slider move
// compares strings in JavaScript rather than reading the page back.
function apply(el, b, data) {
  const raw = value(b, data);
  const { target } = b;
  const on = target === 'hidden' || target[0] === '.';
  const v = on ? truthy(raw) : format(raw);
  const seen = (el.vramplanSeen ??= {});
  if (target in seen ? seen[target] === v : initial(el, target) === v) {
    seen[target] = v;
    return;
  }
  seen[target] = v;
  if (target === 'text') setText(el, v);
  else if (target === 'hidden') el.hidden = v;
  else if (target[0] === '.') el.classList.toggle(target.slice(1), v);
  else if (target.startsWith('style.')) el.style.setProperty(target.slice(6), v);
  else if (v === '') el.removeAttribute(target);
  else el.setAttribute(target, v);
}

// initial is what the server rendered for a target, read once.
function initial(el, target) {
  if (target === 'text') return el.textContent;
  if (target === 'hidden') return el.hidden;
  if (target[0] === '.') return el.classList.contains(target.slice(1));
  if (target.startsWith('style.')) return el.style.getPropertyValue(target.slice(6));
  return el.getAttribute(target) ?? '';
}

// setText rewrites a lone text node's data in place: only the line is laid
// out again, where a new node would be restyled too.
function setText(el, t) {
  const n = el.firstChild;
  if (n && n === el.lastChild && n.nodeType === Node.TEXT_NODE) n.data = t;
  else el.textContent = t;
}

// paintList paints a list's children, rebuilding them from the prototype
// when the list's shape changed.
function paintList(list, data, schema) {
  const steps = check(schema, list.dataset.list);
  const items = read(data, steps) ?? [];
  const elem = read(schema, steps)[0];
  const key = list.dataset.key ? check(elem, list.dataset.key) : null;
  const shape = key ? items.map((it) => format(read(it, key))).join('\n') : String(items.length);
  if (list.dataset.shape !== shape) {
    const proto = list.getRootNode().getElementById(list.dataset.proto);
    if (!proto) throw new Error(`bind.js: no prototype #${list.dataset.proto}`);
    list.replaceChildren(...items.map(() => clone(proto)));
    list.dataset.shape = shape;
  }
  items.forEach((it, i) => paint(list.children[i], it, elem));
}

// clone copies a prototype's element; an SVG element's prototype is
// wrapped in an <svg>, so that it is parsed as SVG.
function clone(proto) {
  const e = proto.content.firstElementChild;
  return (e.localName === 'svg' ? e.firstElementChild : e).cloneNode(true);
}
