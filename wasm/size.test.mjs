// The planner module's size budget: web/static/dist/planner.wasm, as
// `make wasm` builds it, must stay within 1 MB (1,000,000 bytes) gzip -9,
// the figure docs/benchmarks.md holds it to. What costs the most and how it
// was cut is in docs/benchmarks.md ("Size"). Run by `make bridge-test`,
// which builds the module first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { gzipSync, constants } from 'node:zlib';

const budget = 1_000_000;

test('planner.wasm is within its 1 MB gzip budget', async () => {
  const wasm = await readFile(new URL('../web/static/dist/planner.wasm', import.meta.url));
  const gz = gzipSync(wasm, { level: constants.Z_BEST_COMPRESSION }).length;
  console.log(`planner.wasm: ${wasm.length} bytes raw, ${gz} bytes gzip -9 (budget ${budget})`);
  assert.ok(gz <= budget, `planner.wasm is ${gz} bytes gzip -9, over its ${budget}-byte budget: see docs/benchmarks.md ("Size") for what it costs and what was cut`);
});
