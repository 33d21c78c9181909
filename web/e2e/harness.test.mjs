// Tests of the harness itself: cliFlags, which every browser test uses to
// set the page against `vramplan plan`, must turn a page URL into the
// flags that plan what the server plans for the same URL (GET /api/plan
// of the query). A key it drops — as it once dropped engine=, so that every
// test under an engine added --engine by hand, and one that forgot planned
// vramplan's own engine — makes the two inputs differ here, with no browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, planJSON, cliFlags } from './harness.mjs';

let server;

before(async () => { server = await serve(); });
after(() => { server?.stop(); });

// The queries cover every key cliFlags reads, each engine among them.
const queries = [
  'model=llama-3.1-8b-instruct-q8_0&gpu=h200-linux-cuda13.0&batch=4&len=8192',
  'model=llama-3.1-8b-instruct-q8_0&gpu=h200-linux-cuda13.0&engine=llama.cpp&batch=4&len=8192',
  'model=llama-3.3-70b-instruct-q4_k_m&gpu=rtx5090-wsl2-cuda13.3&engine=llama.cpp&batch=4&len=65536&pp=2&ngl=30',
  'model=llama-3.1-8b-instruct-q8_0&gpu=h200-linux-cuda13.0&engine=llama.cpp&batch=4&len=8192&tp=2&sm=tensor&ts=3,1',
  'model=llama-3.3-70b-instruct-fp8&gpu=h200-linux-cuda13.0&engine=vllm&batch=0&len=32768',
  'model=llama-3.3-70b-instruct-fp8&gpu=h200-linux-cuda13.0&engine=vllm&version=0.6.3&batch=0&len=32768&tp=2',
  'model=llama-3.3-70b-instruct-fp8&gpu=h200-linux-cuda13.0&engine=sglang&batch=0&len=32768&kv=fp8',
  'model=qwen3-4b-instruct-2507-q8&gpu=RTX5090-wsl2&batch=8&len=4096&kv=q8_0&block=32&prefill=1024&budget=20000&graphs=1',
];

// planned is the server's plan of a page URL's query.
async function planned(query) {
  const res = await fetch(`${server.url}api/plan?${query}`);
  assert.ok(res.ok || res.status === 422, `GET /api/plan?${query}: ${res.status}`);
  return res.json();
}

test('cliFlags plans what the server plans for the same page URL, its engine among the rest', async () => {
  for (const q of queries) {
    const page = await planned(q);
    const cli = planJSON(cliFlags(q));
    assert.deepEqual(cli.input, page.input, `the inputs of ${q}`);
    const engine = new URLSearchParams(q).get('engine');
    assert.equal(cli.input.serving?.engine ?? '', engine ?? '', `${q}: the CLI plans under the URL's engine`);
  }
});
