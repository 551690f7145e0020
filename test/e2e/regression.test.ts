/**
 * The comparison end to end on real components (dev server, worker, embedded engine, the results
 * database): run A, then run B with the skip index switched off for its measured runs and run A as
 * its baseline. B's comparison must flag and confirm exactly Q5 after the index (the only query the
 * setting slows: it reads every granule again), set `ChbenchVerdict`, and leave the record in
 * `comparison.json`, the results database and both reports.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { historyFile, saveHistory, showHistory } from '../helpers/histories';
import { openResultsDb, resultsDbLocation } from '../../src/results/db';
import { runDir } from '../../src/results/store';
import { ComparisonRecord } from '../../src/schema/comparison';
import type { MatrixResult } from '../../src/workflows';
import type { CellResult } from '../../src/schema/results';

let env: TemporalEnv;
before(async () => {
  env = await startTemporalEnv('regression');
});
after(async () => {
  await env?.stop();
});

const spec = (extra: Record<string, unknown> = {}) => ({
  name: 'e2e-regression',
  workload: 'logs',
  // 1 M rows: Q5 without its index reads every granule (several times the indexed read), far above any noise here.
  scale: 1_000_000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.7'], codec: ['ZSTD(3)'] },
  queries: ['q1', 'q5'],
  protocol: { coldRuns: 1, warmupRuns: 1, warmRuns: 9, statistic: 'median' },
  resultsDir: env.resultsDir,
  ...extra,
});

/** Measured query runs (cold, warm-up, warm) in a run's result files. */
function measuredRuns(r: MatrixResult): number {
  return r.cells
    .map((c) => JSON.parse(readFileSync(c.resultFile, 'utf8')) as CellResult)
    .flatMap((c) => [c.queries_baseline, c.queries_index])
    .flatMap((p) => p?.queries ?? [])
    .reduce((n, q) => n + q.samples.length, 0);
}

test('A/B with the skip index off: Q5 after the index is flagged and confirmed by the interleaved re-run, nothing else', async () => {
  const a = `e2e-reg-a-${Date.now()}`;
  const ra = (await env.client.workflow.execute('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: a,
    args: [spec()],
  })) as MatrixResult;
  assert.equal(ra.status, 'completed');
  assert.equal(ra.comparison, undefined, 'no baseline in the spec: no comparison');

  const b = `e2e-reg-b-${Date.now()}`;
  const handle = await env.client.workflow.start('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: b,
    args: [
      spec({
        settings: { query: { use_skip_indexes: 0 } },
        // A shared test machine's noise must not turn a 5× slowdown into "unstable": judge up to 100 % noise.
        baseline: { from: 'run', run: a, confirmRounds: 10, unstableAbove: 1 },
      }),
    ],
  });
  const rb = (await handle.result()) as MatrixResult;
  assert.equal(rb.status, 'completed');
  assert.deepEqual(
    rb.cells.map((c) => c.status),
    ['succeeded'],
  );
  assert.equal(rb.comparison?.baselineRunId, a);
  assert.equal(rb.comparison?.verdict, 'regression', JSON.stringify(rb.comparison));
  assert.ok(rb.comparison?.flagged.includes('Q5@index'), `first pass flagged ${rb.comparison?.flagged}`);
  assert.deepEqual(rb.comparison?.confirmed, ['Q5@index']);

  // The record: Q5 after the index at least 1.5× slower with an interval above 1; the re-run measured both sides.
  const rec = ComparisonRecord.parse(
    JSON.parse(readFileSync(path.join(runDir(env.resultsDir, b), 'comparison.json'), 'utf8')),
  );
  assert.equal(rec.baseline_run_id, a);
  assert.deepEqual(rec.pairs[0].differences, ['setting use_skip_indexes: unset → 0']);
  const q5 = rec.pairs[0].queries.find((q) => q.query_id === 'q5' && q.phase === 'index');
  assert.ok(q5 && q5.ratio! > 1.5 && q5.ci_low! > 1, JSON.stringify(q5));
  assert.equal(q5.confirm?.confirmed, true);
  assert.ok(
    q5.confirm!.n_baseline >= 7 && q5.confirm!.n_baseline <= 10,
    `re-run kept ${q5.confirm?.n_baseline} of 10 rounds`,
  );
  assert.equal(q5.final, 'regression');
  for (const q of rec.pairs[0].queries.filter((x) => x !== q5))
    assert.notEqual(q.final, 'regression', JSON.stringify(q));

  // ChbenchVerdict lists the run as regressed; the re-run is a child workflow of its own.
  const desc = await handle.describe();
  assert.deepEqual(desc.searchAttributes.ChbenchVerdict, ['regression']);
  const confirm = await env.client.workflow.getHandle(`${b}/confirm`).describe();
  assert.equal(confirm.status.name, 'COMPLETED');

  // The results database holds both runs' every measured run and the comparison.
  const db = await openResultsDb(resultsDbLocation(undefined, env.resultsDir));
  try {
    const [n] = await db.query<{ n: string }>(`SELECT count() AS n FROM query_runs WHERE run_id IN ('${a}', '${b}')`);
    assert.equal(Number(n.n), measuredRuns(ra) + measuredRuns(rb));
    assert.equal((await db.comparison(b))?.verdict, 'regression');
    assert.equal((await db.run(b))?.status, 'completed');
  } finally {
    await db.close();
  }

  // Both reports say it.
  const md = readFileSync(rb.reportPath, 'utf8');
  assert.match(md, /\*\*regression\*\* — confirmed by the interleaved re-run: Q5@index/);
  assert.match(md, /## Comparison with the baseline/);
  const html = readFileSync(rb.reportPath.replace(/\.md$/, '.html'), 'utf8');
  assert.match(html, /<svg/);
  assert.match(html, /Q5/);

  // `CHBENCH_RECORD_HISTORIES=1` records this release's histories of a compared run (matrix with the
  // comparison steps, a cell, the confirming re-run); files are never overwritten.
  if (process.env.CHBENCH_RECORD_HISTORIES) {
    const address = env.server.address;
    saveHistory(historyFile('benchmark-matrix'), b, showHistory(address, b));
    saveHistory(historyFile('benchmark-cell'), `${b}/v26.7-zstd3`, showHistory(address, `${b}/v26.7-zstd3`));
    saveHistory(historyFile('confirm-comparison'), `${b}/confirm`, showHistory(address, `${b}/confirm`));
  }
});
