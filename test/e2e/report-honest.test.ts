/**
 * Honest reports through the whole workflow, on real components (Temporal dev server + worker, the
 * embedded engine): reports that stay honest when things go wrong. A run whose only cell fails, and a
 * run cancelled while its skip index is being materialized, are run for real; report.md, report.html
 * and result.json are then read as a user would.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import type { CellResult as CellResultDoc } from '../../src/schema/results';

let env: TemporalEnv;
before(async () => {
  env = await startTemporalEnv('report-honest');
});
after(async () => {
  await env?.stop();
});

const read = (runId: string, f: string) => readFileSync(path.join(env.resultsDir, runId, f), 'utf8');

test('a run whose only cell failed before measuring: the banner says nothing was measured, the status counts the failed cell', async () => {
  const runId = `honest-failed-${Date.now()}`;
  // A table setting whose value the server refuses (index_granularity 0): the cell fails before loading
  // (an unknown setting name no longer gets this far: validate refuses it from the builds' catalog).
  const spec = {
    name: 'honest-failed',
    workload: 'trivial',
    scale: 1000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1 },
    settings: { mergeTree: { index_granularity: 0 } },
    resultsDir: env.resultsDir,
  };
  await env.client.workflow.execute('benchmarkMatrix', { taskQueue: env.taskQueue, workflowId: runId, args: [spec] });
  const doc = JSON.parse(read(runId, 'cells/v26.7-lz4/result.json')) as CellResultDoc;
  assert.equal(doc.status, 'failed');
  assert.ok(['provision', 'create-schema'].includes(doc.stopped_in ?? ''), String(doc.stopped_in));
  assert.equal(doc.load, null);
  assert.equal(doc.workflow_id, `${runId}/v26.7-lz4`);
  const md = read(runId, 'report.md');
  assert.match(md, /run status \*\*completed, 1 of 1 cells failed\*\*/);
  assert.doesNotMatch(md, /Validity: every cold run was cold/);
  assert.doesNotMatch(md, /run status \*\*completed\*\*/);
  assert.match(
    md,
    /> \*\*No cell measured anything\*\* — v26\.7-lz4 failed in (provision|create-schema): .*index_granularity/,
  );
  assert.match(md, /are left out: no cell measured anything/);
  assert.doesNotMatch(md, /^## (Ingest|Queries|Validity)$/m, 'no empty measurement tables');
  const html = read(runId, 'report.html');
  assert.match(html, /run status <strong>completed, 1 of 1 cells failed<\/strong>/);
  assert.match(html, /<strong>No cell measured anything<\/strong> — v26\.7-lz4 failed in (provision|create-schema)/);
  assert.doesNotMatch(html, /every cold run was cold/);
});

test('a run cancelled during index materialization: "cancelled before its index was built", counters "not collected (cancelled)"', async () => {
  const runId = `honest-cancel-index-${Date.now()}`;
  // The slow-index workload: a tiny table whose skip index takes ~50 s to materialize (20,000 hashes per row).
  const spec = {
    name: 'honest-cancel-index',
    workload: 'slow-index',
    scale: 300_000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['ZSTD(3)'] },
    protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1 },
    resultsDir: env.resultsDir,
  };
  const handle = await env.client.workflow.start('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec],
  });
  const cellKey = 'v26.7-zstd3';
  let seen = '';
  for (let i = 0; i < 6000 && seen !== 'materialize-index'; i++) {
    const p = await env.client.workflow
      .getHandle(`${runId}/${cellKey}`)
      .query<{ step: string }>('progress')
      .catch(() => undefined);
    seen = p?.step ?? seen;
    if (seen !== 'materialize-index') await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(seen, 'materialize-index', 'the cell reached the index step');
  await handle.cancel();
  await handle.result().catch(() => undefined);

  const doc = JSON.parse(read(runId, `cells/${cellKey}/result.json`)) as CellResultDoc;
  assert.equal(doc.status, 'cancelled');
  assert.equal(doc.stopped_in, 'materialize-index', 'cancelled while the index was being built');
  assert.equal(doc.index, null, 'no index.json: the build did not finish');
  assert.equal(doc.skip_index_planned, true);
  assert.ok(doc.queries_baseline?.queries.length, 'the baseline queries were measured');
  assert.equal(doc.metrics_delta, null);
  assert.match(doc.metrics_delta_unavailable!, /^not collected \(cancelled during materialize-index/);

  const md = read(runId, 'report.md');
  assert.match(md, /run status \*\*cancelled, 1 of 1 cells cancelled\*\*/);
  assert.match(
    md,
    /No cell materialized a skip index: v26\.7-zstd3 was cancelled before its index was built \(during materialize-index\)\./,
  );
  assert.doesNotMatch(md, /disabled in the spec, or the workload defines none/);
  assert.doesNotMatch(md, /before and after the index/);
  assert.doesNotMatch(md, /## Skip index .*before \/ after/, 'no before/after heading without an index');
  const counters = md.split('\n').find((l) => l.startsWith(`| ${cellKey} (cancelled)`) && l.includes('not collected'));
  assert.ok(counters, 'the counters row of the cancelled cell');
  assert.match(counters, /not collected \(cancelled\)/);
  assert.doesNotMatch(counters, /\| n\/a /, 'no counter shown as missing on the server');
  // Captions from what ran: the generator source of load.sql as sent; the query id as spelled.
  assert.match(md, /reading `numbers\(300000\)`/);
  assert.doesNotMatch(md, /numbers_mt/);
  assert.match(md, /\| q1 count of a range/);
  assert.doesNotMatch(md, /\bQ1\b/);
  // The banner covers only what was measured, and says which cell did not finish.
  assert.match(
    md,
    /> \*\*Validity of what was measured only\*\*|> \*\*Validity could not be fully judged\*\*|> \*\*⚠ This run has invalid/,
  );
  assert.match(md, /v26\.7-zstd3 cancelled during materialize-index/);
  assert.doesNotMatch(md, /^Validity: every cold run was cold/m);
  const html = read(runId, 'report.html');
  assert.match(html, /cancelled before its index was built \(during materialize-index\)/);
});
