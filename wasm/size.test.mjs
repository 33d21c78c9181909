// The WebAssembly modules' size budgets, as `make wasm` builds them into
// web/static/dist: the planner module (loaded with every page) within
// 1,048,576 bytes zlib level 9 (1,000,000 until #29's per-release engine
// rules took it to 1,002,843, 1,040,000 until the corpus's residual table
// and #29's later rules took it to 1,040,028: docs/benchmarks.md, "Planner
// module size", says why the line moved rather than a feature), and the model-file reader (fetched on the
// first file pick or log paste) within 3,200,000 bytes. docs/benchmarks.md
// ("Size") says what each costs and what was cut. Run by `make bridge-test`,
// which builds the modules first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { gzipSync, constants } from 'node:zlib';

for (const [name, budget] of [['planner.wasm', 1_048_576], ['gguf.wasm', 3_200_000]]) {
  test(`${name} is within its ${budget.toLocaleString('en')}-byte gzip budget`, async () => {
    const wasm = await readFile(new URL(`../web/static/dist/${name}`, import.meta.url));
    const gz = gzipSync(wasm, { level: constants.Z_BEST_COMPRESSION }).length;
    console.log(`${name}: ${wasm.length} bytes raw, ${gz} bytes gzip -9 (budget ${budget})`);
    assert.ok(gz <= budget, `${name} is ${gz} bytes gzip -9, over its ${budget}-byte budget: see docs/benchmarks.md ("Size") for what it costs and what was cut`);
  });
}
