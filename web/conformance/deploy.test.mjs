// wrangler deploy --dry-run: the worker bundles as a real deployment
// would, offline, within the free plan's 3 MB gzip. It is a file of its own
// because wrangler rebuilds its .wrangler/tmp bundle folder, which a running
// `wrangler dev` of the other files reads (node --test runs files one at a
// time here: --test-concurrency=1).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, wrangler, offline } from './servers.mjs';

test('wrangler deploy --dry-run bundles the worker within the free plan', () => {
  const out = mkdtempSync(join(tmpdir(), 'vramplan-dry-'));
  try {
    const log = execFileSync(wrangler, ['deploy', '--dry-run', '--outdir', out], { cwd: repo, env: offline, encoding: 'utf8' });
    const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(log);
    assert.ok(m, `dry-run reports its size:\n${log}`);
    assert.ok(Number(m[2]) * 1024 <= 3e6, `the upload is ${m[2]} KiB gzip, over the 3 MB free-plan limit`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
