/**
 * Reused cells (issue 25 "Cells already measured in stored runs … are reused instead of re-run, and
 * say so"), on real engines: `bisectVersions` on a dev server with every activity real, over the
 * embedded target's PyPI chdb builds 26.3 and 26.5, on the `bisect-settings` workload's q2 (1,024
 * rows read on both: the ends are alike, so each bisect measures its two ends and stops).
 *
 * 1. A first bisect runs both cells and stores them in the embedded results database
 *    (`<resultsDir>/db`, schema 6: cell spec hash, workload files hash, host kind).
 * 2. The same bisect again runs no cell: both are reused from the first run, and its result and
 *    `bisect.md` say "reused from run <id> cell <key>"; its figures are the first run's. Each bisect's
 *    answer is one row of the database's `bisects` table (schema 7), as its result gives it.
 * 3. A different scale (another cell spec) is not reused: both cells run.
 * 4. A changed SQL file of the workload (q2.sql with a comment added, in a copy of sql/ named by
 *    `CHBENCH_SQL_ROOT`) is not reused: both cells run.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { findPypiBuild, installEngine } from '../../src/engine/install';
import { SQL_ROOT } from '../../src/lib/workload';
import type { BisectResult } from '../../src/workflows/bisect-versions';
import { withResultsDb } from '../../src/results/db';

const BUILDS = ['26.3', '26.5'];
let env: TemporalEnv;
before(async () => {
  for (const v of BUILDS) await installEngine(findPypiBuild(v)!);
  env = await startTemporalEnv('bisect-reuse');
});
after(async () => {
  await env?.stop();
});

const spec = (scale: number) => ({
  name: 'bisect-reuse',
  workload: 'bisect-settings',
  scale,
  target: { kind: 'embedded' },
  matrix: { version: ['26.5'], codec: ['LZ4'] },
  queries: ['q2'],
  skipIndex: false,
  protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1, dropOsPageCache: false },
  settings: { query: { use_query_condition_cache: 0 } },
  resultsDir: env.resultsDir,
});

async function bisect(name: string, scale = 100_000): Promise<BisectResult> {
  return (await env.client.workflow.execute('bisectVersions', {
    taskQueue: env.taskQueue,
    workflowId: `bisect-reuse-${name}-${Date.now()}`,
    args: [{ spec: spec(scale), good: '26.3', bad: '26.5', query: 'q2' }],
  })) as BisectResult;
}

test(
  'a second bisect over the same range reuses every cell and says so; another scale or a changed SQL file is not reused',
  { timeout: 600_000 },
  async (t) => {
    const first = await bisect('first');
    t.diagnostic(`first: ${first.verdict}; new ${first.cellsNew}; ${first.stored}`);
    assert.match(first.verdict, /^no change between 26\.3 and 26\.5: read_rows 1,024 at both ends/);
    assert.equal(first.cellsNew, 2);
    assert.deepEqual(first.reusedCells, []);
    assert.match(first.stored ?? '', /^2 cells stored in embedded database /);

    const again = await bisect('again');
    t.diagnostic(`again: new ${again.cellsNew}; ${JSON.stringify(again.reusedCells)}`);
    assert.equal(again.cellsNew, 0, 'no cell run');
    assert.equal(again.cellsRun, 2);
    assert.deepEqual(
      again.reusedCells?.map((c) => [c.runId, c.fromCell]),
      [
        [first.runId, 'v26.3-lz4'],
        [first.runId, 'v26.5-lz4'],
      ],
    );
    assert.deepEqual(
      again.steps.map((s) => [s.version, s.figure, s.reusedFrom?.runId]),
      first.steps.map((s) => [s.version, s.figure, first.runId]),
    );
    assert.equal(again.verdict, first.verdict);
    const md = readFileSync(again.reportPath, 'utf8');
    assert.match(md, new RegExp(`reused from run ${first.runId} cell v26\\.3-lz4`));
    assert.match(md, /Cells run by this bisect: 0; reused from stored runs .*: 2\./);
    // The verdict in the database (`bisects`, schema 7): one row per bisect, as its result says.
    assert.match(md, /This bisect's answer .*: row stored in table bisects of embedded database /);
    const rows = await withResultsDb(undefined, env.resultsDir, (db) => db.bisects());
    const mine = (id: string) => rows.filter((r) => r.run_id === id);
    assert.equal(mine(first.runId).length, 1);
    assert.deepEqual(
      [again.runId, first.runId].map((id) => {
        const r = mine(id)[0];
        return [r?.verdict, r?.good, r?.bad, r?.query, r?.metric, r?.cells_run, r?.cells_new, r?.cells_reused];
      }),
      [
        [again.verdict, '26.3', '26.5', 'q2', 'read_rows', 2, 0, 2],
        [first.verdict, '26.3', '26.5', 'q2', 'read_rows', 2, 2, 0],
      ],
    );

    const scaled = await bisect('scale', 100_100);
    assert.equal(scaled.cellsNew, 2, `another scale is another cell spec: ${JSON.stringify(scaled.reusedCells)}`);
    assert.deepEqual(scaled.reusedCells, []);

    // A copy of sql/ whose q2.sql differs by a comment: the workload's files hash differs.
    const root = path.join(env.tmp, 'sql');
    cpSync(SQL_ROOT, root, { recursive: true });
    appendFileSync(path.join(root, 'workloads', 'bisect-settings', 'q2.sql'), '\n-- changed\n');
    const was = process.env.CHBENCH_SQL_ROOT;
    process.env.CHBENCH_SQL_ROOT = root;
    try {
      const changed = await bisect('sql');
      assert.equal(changed.cellsNew, 2, `a changed SQL file: ${JSON.stringify(changed.reusedCells)}`);
      assert.deepEqual(changed.reusedCells, []);
    } finally {
      if (was === undefined) delete process.env.CHBENCH_SQL_ROOT;
      else process.env.CHBENCH_SQL_ROOT = was;
    }
  },
);
