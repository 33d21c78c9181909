// End-to-end test of the log paste box with vLLM and SGLang start-up logs
// that users posted in public threads (planner/enginelog/testdata/logs,
// cited in logs_test.go): one V0, one V1, one SGLang and a TP 4 V1 log, a
// corpus V1 log that names its model checked against another one and a
// corpus TP 2 x PP 2 one whose stages print their own figures,
// each pasted into the page with a catalog model and GPU picked, shows what
// `vramplan check --log --json` gives for the same log, model and GPU: the
// rows, the KV pool, the figures read that no plan line is set against,
// what the check assumed (those that decide the comparison first, above
// the rows) and the memory lines it did not read.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, browser, repo, bin, shot } from './harness.mjs';

const logs = join(repo, 'planner/enginelog/testdata/logs');
let server, chrome;

before(async () => { [server, chrome] = await Promise.all([serve(), browser()]); });
after(async () => { await chrome?.close(); server?.stop(); });

const mib = (b) => (b / 2 ** 20).toFixed(2);
const signed = (x, s) => (x >= 0 ? '+' : '') + s;

for (const c of [
  { name: 'V0', log: 'vllm-v0-rtx3090-llama31-8b.log', model: 'llama-3.1-8b-instruct-bf16', gpu: 'est-rtx3090-linux', engine: 'vllm', decides: [] }, // planned by V0's rules (planner.VLLMV0Release), which decides nothing
  // A V1 log that states no release and prints no line that bounds it: the releases from 0.8 plan its KV cache more than 3 % apart.
  { name: 'V1', log: 'vllm-v1-l40s-llama31-8b.log', model: 'llama-3.1-8b-instruct-bf16', gpu: 'est-l40s-linux', engine: 'vllm', decides: ['engine_version', 'utilization'] },
  { name: 'SGLang', log: 'sglang-0.4-gemma3-4b-h200.log', model: 'gemma-3-4b-it-bf16', gpu: 'h200-linux-cuda13.0', engine: 'sglang', decides: ['utilization'] },
  // A corpus log that names its model (Qwen3-30B-A3B AWQ), checked with a model of about its weights picked: the name decides the comparison.
  { name: 'V1, another model picked', log: '../../../testdata/engines/corpus/vllm/vllm-0.10.0-qwen3-30b-a3b-awq-rtx-3090.log', model: 'llama-3.1-8b-instruct-bf16', gpu: 'est-rtx3090-linux', engine: 'vllm', decides: ['model'] },
  // The TP 4 log names no model: the test picks one that fits four RTX 3090s, to hold the layout to the CLI's. Its CUDA-graph
  // estimate is printed by rank 1 only, and its '(default since v0.21.0)' line bounds its release to 0.21 and later, whose
  // rules plan its KV cache alike at the utilization it states.
  { name: 'V1 TP 4', log: 'vllm-v1-0.21-tp4-rtx3090.log', model: 'llama-3.3-70b-instruct-fp8', gpu: 'est-rtx3090-linux', engine: 'vllm', decides: [], tp: 4 },
  // A TP 2 x PP 2 corpus log whose stages print their own KV cache memory ('VllmWorker rank=N', ranks 2 and 3 stage 1's): each
  // stage's rows against its own plan, the pool against the stage with the fewest tokens, and which stage binds in the plan and
  // in the log. The catalog's DeepSeek-V2-Lite is the GGUF Q4_K_M one, which holds the page to the CLI as well as the bf16 run's.
  { name: 'V1 TP 2 x PP 2', log: '../../../testdata/engines/corpus/vllm/vllm-unknown-v1-deepseek-v2-lite-l4-tp2-pp2.log', model: 'deepseek-v2-lite-chat-q4_k_m', gpu: 'est-l4-linux', engine: 'vllm', decides: ['engine_version', 'utilization'], tp: 2, stages: 2 },
]) {
  test(`a ${c.name} start-up log is checked in the page as the CLI checks it`, async () => {
    const file = join(logs, c.log);
    const want = JSON.parse(execFileSync(bin, ['check', '--log', file, '--model', c.model, '--gpu', c.gpu, '--json'], { encoding: 'utf8' }));
    assert.deepEqual(want.assumptions.filter((a) => a.decides).map((a) => a.fact), c.decides, 'the CLI\'s deciding assumptions');

    const ctx = await chrome.newContext();
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}?model=${c.model}&gpu=${c.gpu}&engine=${c.engine}`);
    await page.waitForSelector('#calc[data-ready="true"]');
    await page.click('[data-testid="log-check"] summary');
    await page.fill('[data-testid="log-text"]', readFileSync(file, 'utf8'));
    await page.click('[data-testid="log-check-button"]');
    await page.waitForSelector('[data-testid="log-rows"]:not([hidden])');

    const status = await page.innerText('[data-testid="log-status"]');
    const engine = want.plan.engine ?? want.plan.layout.ranks[0].plan.engine; // a layout's engine report is its ranks'
    assert.ok(status.includes(`${want.log.engine} log, planned as `) && status.includes(`${engine.version} for ${c.model} on ${c.gpu}`), status);
    if (engine.release) assert.ok(status.includes(`${engine.release}, by the rules read at ${engine.version}`), status); // the log's own release is said
    assert.equal(await page.innerText('[data-testid="log-launch"]'), engine.launch);
    const rows = await page.$$eval('[data-testid="log-rows"] tbody tr', (trs) => trs.map((tr) => [tr.dataset.key, ...[...tr.cells].map((td) => td.textContent)]));
    const staged = want.rank_rows || want.pool?.stages; // a pipeline's rows name their stage
    const wanted = [...want.rows.map((r) => [r, staged ? 'stage 0: ' : '', '']),
      ...(want.rank_rows ?? []).flatMap((rr) => rr.rows.map((r) => [r, `stage ${rr.stage}: `, `printed by rank ${rr.rank}`]))];
    assert.deepEqual(rows, wanted.map(([r, stage, note]) => [r.key, stage + r.name, mib(r.plan_bytes), mib(r.log_bytes),
      signed(r.residual_bytes, mib(r.residual_bytes)), [note, r.within_resolution ? "within the log's rounding" : ''].filter(Boolean).join('; ')]));
    assert.equal(want.rank_rows?.length ?? 0, (c.stages ?? 1) - 1, 'one row set for each later stage');
    if (want.pool) {
      let pool = `KV pool (${want.pool.unit}): plan ${want.pool.plan}, log ${want.pool.log}, ${signed(want.pool.residual, (100 * want.pool.residual).toFixed(1))}%`;
      if (want.pool.stages) { // the CLI's text says which stage binds, and the page says it alike
        const text = execFileSync(bin, ['check', '--log', file, '--model', c.model, '--gpu', c.gpu], { encoding: 'utf8' });
        pool += `. ${text.split('\n').find((l) => l.includes('the stage with the fewest tokens')).trim()}`;
      }
      assert.equal(await page.innerText('[data-testid="log-pool"]'), pool);
      assert.equal(Boolean(want.pool.stages), Boolean(c.stages), 'the pool says which stage binds for a pipeline only');
    } else {
      assert.equal(await page.isHidden('[data-testid="log-pool"]'), true);
    }
    const texts = (id) => page.locator(`[data-testid="${id}"] li`).allTextContents();
    assert.deepEqual(await texts('log-decides'), want.assumptions.filter((a) => a.decides).map((a) => `Assumed, and it decides the comparison: ${a.text}`));
    assert.deepEqual(await texts('log-assumed'), want.assumptions.filter((a) => !a.decides).map((a) => `Assumed: ${a.text}`));
    assert.deepEqual(await texts('log-reported'), (want.log.reported ?? []).map((f) => `${f.name}: ${mib(f.bytes)} MiB (read; no plan line${f.rank ? `; printed by rank ${f.rank}` : ''})`));
    assert.deepEqual(await texts('log-unread'), want.log.unread ?? []);
    if (c.decides.length) {
      const first = await page.evaluate(() => {
        const shown = [...document.querySelectorAll('[data-testid="log-check"] [data-testid="log-decides"] li, [data-testid="log-check"] [data-testid="log-rows"]')];
        return shown[0].closest('[data-testid]').dataset.testid;
      });
      assert.equal(first, 'log-decides', 'what decides the comparison is said before the rows');
    }
    if (want.plan.layout) assert.equal(want.plan.layout.parallel.tensor_parallel, c.tp, `the log is planned as TP ${c.tp}`);
    await shot(page, `logformats-${c.name.replace(/\W+/g, '-').toLowerCase()}.png`, { fullPage: true });
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}
