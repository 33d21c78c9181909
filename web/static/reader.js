// reader.js loads dist/gguf.wasm, the model-file reader (wasm/gguf), the
// first time a file is picked: at ~2.6 MB gzip it is kept off the page's
// start. It returns globalThis.vramplanGGUF (see wasm/vramplan.d.ts).
// Files are read in the page through Blob slices; nothing is uploaded.

const base = new URL('.', import.meta.url);
let loading;

/**
 * loadReader instantiates dist/gguf.wasm (once) and resolves to the reader.
 * @param {() => Promise<Response|ArrayBuffer|Uint8Array>} [source] the wasm, for tests
 */
export function loadReader(source) {
  loading ??= start(source ?? (() => fetch(new URL('dist/gguf.wasm', base)))).catch((err) => {
    loading = undefined; // a later pick tries again
    throw err;
  });
  return loading;
}

async function start(source) {
  if (!globalThis.Go) await import(new URL('dist/wasm_exec.js', base).href);
  const go = new globalThis.Go();
  const src = await source();
  if (src instanceof Response && !src.ok) throw new Error(`the model-file reader is not available (${src.status}: run make wasm)`);
  const { instance } = src instanceof Response
    ? await WebAssembly.instantiateStreaming(src, go.importObject)
    : await WebAssembly.instantiate(src, go.importObject);
  go.run(instance); // returns when main blocks; the exports are installed
  return globalThis.vramplanGGUF;
}
