// wrangler deploy --dry-run: the worker bundles as a real deployment
// would, offline, within the size budget under the Workers Paid plan's 10 MB gzip (the free plan's 3 MB no longer holds it)
// (size.mjs: the same measure and budget `make worker` checks). It is a file of its own
// because wrangler rebuilds its .wrangler/tmp bundle folder, which a running
// `wrangler dev` of the other files reads (node --test runs files one at a
// time here: --test-concurrency=1).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budget, limit, measure } from './size.mjs';

test('wrangler deploy --dry-run bundles the worker within its budget', () => {
  const { gzip } = measure();
  assert.ok(gzip <= budget, `the upload is ${(gzip / 1024).toFixed(2)} KiB gzip, over the budget's ${(budget / 1024).toFixed(2)} KiB (the Paid plan allows ${(limit / 1024).toFixed(2)}): see docs/benchmarks.md ("Worker", "Size")`);
});
