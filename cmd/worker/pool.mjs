// pool.mjs keeps the worker's Go instances between requests. syumai/workers'
// generated loader starts a fresh Go instance (new Go, new
// WebAssembly.Instance, go.run until main is ready) for every request, about
// 20 ms of CPU before the handler runs; here an instance, once started,
// serves request after request (cmd/worker/internal/bridge is its Go side).
//
// An instance serves one request at a time. The Workers runtime ties every
// promise to the request whose code created it and cancels the
// continuations of one settled from another request's context; Go's
// scheduler runs any goroutine that is ready whenever JavaScript calls in,
// so two requests in one instance would settle each other's promises (D1's
// answers, the response). A request therefore takes an idle instance, or
// starts one while fewer than `size` exist, or waits for the first to come
// free. Its env and ctx go on the instance's runtime context object (what
// syumai/workers' cloudflare packages read: cloudflare.Getenv, the D1
// connector, WaitUntil) for that request only, and both are cleared after.
// Work a request starts that outlives its answer (bridge.Background: the
// community aggregates' refresh) keeps the instance, and through
// ctx.waitUntil the request's context, until it is done: its D1 promises
// belong to that request and could not settle once it had ended.
//
// An instance whose Go program exits (a panic outside a handler, os.Exit, a
// fatal error) is dropped: the request it was serving gets a 500 in the
// app's error shape, and the next request starts a fresh instance. A
// request whose signal aborts (its client went away) has its Go context
// cancelled (package bridge's cancel), so its handler stops and the
// instance comes free. One busy for longer than `lost` ms all the same (its
// request ended by the runtime before it finished, with no abort, so its
// finally never ran) no longer counts against `size` and is never reused.
//
// prepare, called once where the module loads (worker.mjs), instantiates
// the first instance's WebAssembly module there: copying its data and
// setting up its memory is about half of an instance's start (24 of 44 ms
// CPU in Node for an isolate's first request), and Workers' startup budget
// pays for it instead of that request. The Go program itself cannot start
// there: workerd refuses crypto.getRandomValues and setTimeout outside a
// request and reads the clock as 0, and Go's runtime reads random bytes and
// the clock (throwing "nanotime returning zero") before main runs. So the
// first request still runs the runtime, package init and main.
//
// It is plain JavaScript with no Workers imports, so web/conformance/cpu.mjs
// runs this same file in Node to time requests.

/** Pool serves requests on up to `size` Go instances of one module. */
export class Pool {
  #mod; #Go; #size; #maxBody; #lost;
  #idle = []; // instances free now, the most recently used last
  #busy = new Set();
  #waiting = []; // resolvers of requests waiting for an instance
  #prepared = null; // an instance instantiated by prepare, not yet started
  /** started counts the instances this pool has started, for tests and cpu.mjs. */
  started = 0;

  /**
   * @param {WebAssembly.Module} mod the Go program (app.wasm)
   * @param {object} o Go: wasm_exec.js's class; size: the most instances;
   *   maxBody: the most body bytes a route reads (the Go side's bridge.Serve
   *   maxBody, checked when an instance starts); lost: see above.
   */
  constructor(mod, { Go = globalThis.Go, size = 4, maxBody, lost = 120000 } = {}) {
    if (!Number.isSafeInteger(maxBody) || maxBody < 0) throw new Error('pool: maxBody is not a byte count');
    this.#mod = mod; this.#Go = Go; this.#size = size; this.#maxBody = maxBody; this.#lost = lost;
  }

  /**
   * prepare instantiates the module for the next instance the pool starts
   * (see above), where it is cheaper to do now than in a request. It keeps
   * one such instance at most.
   */
  prepare() {
    this.#prepared ??= new Instance(this.#mod, this.#Go);
  }

  /** prepared reports whether an instance made by prepare waits to be started. */
  get prepared() { return this.#prepared !== null; }

  /** fetch answers req as the Go handler does. */
  async fetch(req, env, ctx) {
    const body = await readBody(req, this.#maxBody + 1);
    const inst = await this.#take(env, ctx);
    let settled;
    try {
      let res;
      [res, settled] = await inst.serve(req, body);
      return res;
    } finally {
      // The instance is this request's until the work it started in the
      // background (bridge.Background) is done, and waitUntil keeps the
      // request's context, where that work's promises settle, alive.
      const give = () => this.#give(inst);
      if (!settled) give();
      else {
        const freed = settled.then(give);
        if (typeof ctx?.waitUntil === 'function') ctx.waitUntil(freed);
      }
    }
  }

  async #take(env, ctx) {
    for (;;) {
      this.#forgetLost();
      let inst;
      while ((inst = this.#idle.pop()) && inst.exited);
      if (!inst && this.#busy.size < this.#size) {
        this.started++;
        inst = this.#prepared ?? new Instance(this.#mod, this.#Go);
        this.#prepared = null;
        await inst.start(env, ctx, this.#maxBody);
      }
      if (inst) {
        inst.use(env, ctx);
        this.#busy.add(inst);
        return inst;
      }
      // The handoff comes from another request's context, which the
      // runtime reschedules into this one; the timer is a pending event of
      // this request's own, so it is never taken for hung meanwhile.
      await new Promise((resolve) => { this.#waiting.push(resolve); setTimeout(resolve, 20); });
    }
  }

  #give(inst) {
    inst.release();
    if (this.#busy.delete(inst) && !inst.exited) this.#idle.push(inst);
    this.#waiting.shift()?.();
  }

  #forgetLost() {
    const now = Date.now();
    for (const inst of this.#busy) if (now - inst.since > this.#lost) this.#busy.delete(inst);
  }
}

// Instance is one Go program and its runtime context object.
class Instance {
  since = 0;
  #go; #context; #serve; #broken = false; #unlisten;
  #onExit; // resolves the exit promise of the request being served

  #wasm; #ready;

  /**
   * The constructor instantiates mod for a Go program, which start runs;
   * no Go code runs before then.
   */
  constructor(mod, Go) {
    this.#go = new Go();
    this.#context = { env: undefined, ctx: undefined, binding: {} };
    const ready = () => this.#ready?.(true);
    this.#context.binding.ready = ready;
    this.#wasm = new WebAssembly.Instance(mod, { ...this.#go.importObject, workers: { ready } });
  }

  /**
   * start runs the program until main says it is ready to serve, serving
   * for now the request whose env and ctx are given.
   */
  async start(env, ctx, maxBody) {
    const go = this.#go;
    this.use(env, ctx);
    const isReady = new Promise((resolve) => { this.#ready = resolve; });
    // The program ends in a call from the request being served: exit tells
    // that request, through a promise of its own (a promise made by an
    // earlier request, such as the one go.run returns, cannot settle in a
    // later one).
    go.exit = (code) => {
      console.error(`worker: the Go program exited (code ${code}); the next request starts a fresh instance`);
      this.#onExit?.(undefined);
    };
    const exited = this.#exited();
    // wasm_exec.js (syumai/workers' copy) shows the program a globalThis
    // whose `context` is the instance's context object.
    go.run(this.#wasm, this.#context);
    this.#wasm = undefined;
    const ok = await Promise.race([isReady, exited]);
    this.#onExit = undefined;
    this.#ready = undefined;
    if (!ok) throw new Error('the worker\'s Go program exited before it was ready');
    if (this.#context.binding.maxBody !== maxBody) {
      throw new Error(`the worker's Go program reads bodies of ${this.#context.binding.maxBody} bytes, the loader ${maxBody}`);
    }
    this.#serve = this.#context.binding.serve;
  }

  /** exited reports whether the program has ended, or broke in a call from here. */
  get exited() { return this.#go.exited || this.#broken; }

  #exited() { return new Promise((resolve) => { this.#onExit = resolve; }); }

  use(env, ctx) { this.#context.env = env; this.#context.ctx = ctx; this.since = Date.now(); }

  release() {
    this.#context.env = undefined; this.#context.ctx = undefined; this.#onExit = undefined;
    this.#unlisten?.();
    this.#unlisten = undefined;
  }

  // cancelOnAbort cancels the Go request's context when signal aborts (the
  // runtime's word that the client went away: the enable_request_signal
  // compatibility flag, wrangler.toml), so its handler stops and the
  // instance comes free; release stops listening, so an abort can never
  // reach a later request.
  #cancelOnAbort(signal) {
    if (!signal) return;
    const cancel = () => { try { this.#context.binding.cancel?.(); } catch (e) { this.#broken = true; console.error(`worker: cancelling a request: ${e}`); } };
    if (signal.aborted) { cancel(); return; }
    signal.addEventListener('abort', cancel, { once: true });
    this.#unlisten = () => signal.removeEventListener('abort', cancel);
  }

  /**
   * serve hands req (its body already read) to the program and returns its
   * Response and a promise of the end of the work it started in the
   * background (null when there is none to wait for).
   */
  async serve(req, body) {
    const lines = [];
    for (const [name, value] of req.headers) lines.push(name, value);
    let done, settle;
    const answered = new Promise((resolve) => { done = resolve; });
    const settled = new Promise((resolve) => { settle = resolve; });
    const exited = this.#exited();
    try {
      this.#serve(req.method, req.url, lines.join('\n'), body,
        (status, statusText, header, b) => done(response(status, statusText, header, b)), () => settle());
      this.#cancelOnAbort(req.signal);
    } catch (e) { // a trap, or a program that ended since it was taken
      this.#broken = true;
      return [failed(req, e), null];
    }
    const res = await Promise.race([answered, exited]);
    return res ? [res, Promise.race([settled, exited])] : [failed(req, 'the Go program exited'), null];
  }
}

// failed is the answer to a request the program ended (or broke) while
// serving: a 500 in the app's error shape, as a panic the app recovers.
function failed(req, why) {
  console.error(`worker: ${req.method} ${new URL(req.url).pathname}: ${why}; the next request starts a fresh instance`);
  return new Response('{"error":"internal server error"}\n', { status: 500, headers: { 'content-type': 'application/json' } });
}

// response builds the Response the program answered: header alternates
// names and values, one a line.
function response(status, statusText, header, body) {
  const headers = new Headers();
  if (header !== '') {
    const f = header.split('\n');
    for (let i = 0; i + 1 < f.length; i += 2) headers.append(f[i], f[i + 1]);
  }
  return new Response(body, { status, statusText, headers });
}

// readBody reads at most max bytes of req's body: a body past a route's
// limit is still seen to be past it, and no more of it is held. null is no
// body.
async function readBody(req, max) {
  if (req.body === null) return null;
  const length = Number(req.headers.get('content-length') ?? NaN);
  if (length <= max) return new Uint8Array(await req.arrayBuffer());
  const reader = req.body.getReader();
  const chunks = [];
  let n = 0;
  while (n < max) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    n += value.length;
  }
  if (n >= max) reader.cancel().catch(() => {});
  const out = new Uint8Array(Math.min(n, max));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, out.length - at);
    out.set(part, at);
    at += part.length;
  }
  return out;
}
