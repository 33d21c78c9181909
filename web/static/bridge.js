// bridge.js loads the planner's WebAssembly once and returns its functions
// (globalThis.vramplan, see wasm/vramplan.d.ts) wrapped to throw the Error
// values the Go side returns. Pages and the <vram-calculator> element share
// it; the assets are found relative to this module, so it also works from
// another origin.

const base = new URL('.', import.meta.url);
let loading;

/**
 * gogc is the planner module's GOGC, set here rather than in Go, where
 * runtime/debug would cost 60 KB of the module's gzip. A "Which GPUs"
 * table allocates ~400 KB (the fewest-GPUs search's rank inputs, per
 * layout tried), and at Go's default of 100 the page's small heap was
 * collected every few tables: in chromium at load 0.6 the table's p95 was
 * 4.7-5.5 ms at 100 and 3.5-3.9 ms at 400 (docs/benchmarks.md, "Which
 * GPUs"), for a heap a few MB larger in a tab that holds a 4 MB module.
 */
const gogc = '400';

/**
 * load instantiates dist/planner.wasm (once) and resolves to the bridge.
 * @param {() => Promise<Response|WebAssembly.Module|ArrayBuffer|Uint8Array>} [source] the wasm, for tests
 */
export function load(source) {
  loading ??= instantiate(source ?? (() => globalThis.vramplanCompiled ?? fetch(new URL('dist/planner.wasm', base))));
  return loading;
}

async function instantiate(source) {
  mark('vramplan:load');
  if (!globalThis.Go) await import(new URL('dist/wasm_exec.js', base).href);
  const go = new globalThis.Go();
  go.env = { ...go.env, GOGC: gogc };
  mark('vramplan:fetch');
  const src = await source();
  mark('vramplan:compiled'); // or fetched, when the <head> did not start it
  const instance = await instantiated(src, go.importObject);
  mark('vramplan:instantiated');
  go.run(instance); // returns when main blocks; the exports are installed
  mark('vramplan:started');
  return wrap(globalThis.vramplan);
}

// instantiated accepts the wasm as a Response, a compiled Module (the
// page's <head> starts compiling early) or bytes.
async function instantiated(src, imports) {
  if (src instanceof Response && !src.ok) { // the server says why: a build without `make wasm` answers 503
    const why = await src.json().then((b) => b.error, () => '');
    throw new Error(why || `the planner's WebAssembly could not be loaded (${src.status})`);
  }
  if (src instanceof Response) return (await WebAssembly.instantiateStreaming(src, imports)).instance;
  if (src instanceof WebAssembly.Module) return WebAssembly.instantiate(src, imports);
  return (await WebAssembly.instantiate(src, imports)).instance;
}

// mark records a step of the start-up for the benchmarks.
function mark(name) { globalThis.performance?.mark?.(name); }

function wrap(raw) {
  const api = { version: raw.version };
  for (const name of ['plan', 'frontier', 'parseModel', 'parseQuery', 'encodeState', 'calculate', 'gpus', 'lenAt', 'lenIndex', 'checkLog']) {
    api[name] = (...args) => {
      const r = raw[name](...args);
      if (r instanceof Error) throw r;
      return r;
    };
  }
  held(api);
  return api;
}

// held wraps the module's calculate and gpus so that callers always pass
// their documents (the model and calibration JSON, or the model and the
// calibration table's), and each crosses into the module only when it
// differs from the one the module holds: a slider move then copies a short
// query, not kilobytes of JSON, and several calculators on one page (the
// page and its <vram-calculator> elements share the module) take turns
// safely. The two calls share the module's model.
function held(api) {
  const { calculate, gpus } = api;
  const docs = {}; // the documents the module holds, once a call with them succeeded
  api.calculate = (query, m, c) => {
    if (m === undefined && c === undefined) return calculate(query);
    if (m === docs.model && c === docs.cal) return calculate(query);
    const r = calculate(query, m, c);
    [docs.model, docs.cal] = [m, c];
    return r;
  };
  api.gpus = (query, m, cs) => {
    if (m === undefined && cs === undefined) return gpus(query);
    const r = gpus(query, m === docs.model ? undefined : m, cs === docs.cals ? undefined : cs);
    [docs.model, docs.cals] = [m, cs];
    return r;
  };
}
