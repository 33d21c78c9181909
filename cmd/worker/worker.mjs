// worker.mjs is the Workers entry of cmd/worker, the loader `make worker`
// puts in place of the one syumai/workers' workers-assets-gen writes: it
// keeps Go instances between requests (pool.mjs) where that one starts a
// fresh instance for every request. wasm_exec.js is still syumai's copy of
// Go's, which shows the program a per-instance runtime context.
import './wasm_exec.js';
import mod from './app.wasm';
import { Pool } from './pool.mjs';

// maxBody is planner.MaxDocument, the largest body a route reads (8 MiB);
// an instance that says otherwise when it starts is refused.
const pool = new Pool(mod, { maxBody: 8 << 20 });
// The first instance's module is instantiated here, at startup, not in the
// isolate's first request (pool.mjs says why Go itself cannot start here).
pool.prepare();

export default {
  fetch: (req, env, ctx) => pool.fetch(req, env, ctx),
};
