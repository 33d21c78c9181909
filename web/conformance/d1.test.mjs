// The store conformance suite (web/store/storetest) on D1 inside workerd:
// web/store/d1/internal/suite is a worker whose every request runs the
// suite against its DB binding, here a fresh local D1 with the schema
// applied by `wrangler d1 migrations apply`, and answers go test's verdict.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveWorker } from './servers.mjs';

test('the D1 store passes the store conformance suite inside workerd', { timeout: 300000 }, async () => {
  const suite = await serveWorker({ config: 'web/store/d1/internal/suite/wrangler.toml', build: 'build/d1suite', name: 'd1 suite' });
  try {
    const r = await fetch(suite.url);
    const verdict = (await r.text()).trim();
    await new Promise((res) => setTimeout(res, 200)); // the console's last lines
    const log = suite.log();
    assert.equal(verdict, 'PASS 0', `the suite inside workerd:\n${log}`);
    assert.match(log, /--- PASS: TestD1Store \(/, 'the suite ran');
    assert.doesNotMatch(log, /--- (FAIL|SKIP)/, log);
  } finally {
    await suite.stop();
  }
});
