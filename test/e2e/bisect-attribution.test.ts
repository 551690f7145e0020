/**
 * Attribution where the answer is known (issue 25 "Show it"), on real engines: the `bisectVersions`
 * workflow on a dev server with every activity real, over the embedded target's PyPI chdb builds,
 * on the `bisect-settings` workload (100,000 rows, one part, 1,024-row granules, a minmax skip index).
 *
 * - A real default change: `use_skip_indexes_for_top_k` is 0 on 26.3 (chdb-core 26.3.0) and 1 on 26.5
 *   (chdb-core 26.5.0), so q1 (`ORDER BY v LIMIT 5`) reads the whole table on 26.3 and ≈ 10 k rows
 *   on 26.5. Pinned back with `compatibility = '26.3'`, 26.5 reads the whole table again (the change
 *   vanishes), and halving the defaults that differ between the two servers (their `defaults.json`)
 *   ends at that setting: `default change: use_skip_indexes_for_top_k 0→1 (26.5)`; the verdict is
 *   also the run's row of the results database's `bisects` table.
 * - A setting flipped by hand on both sides: `use_skip_indexes` (default 1 on every version) is set
 *   to 1 on 26.1 and to 0 from 26.3 on (the input's `handSettings`), so q2 (a range of w) reads 1,024
 *   rows on 26.1 and every row from 26.3 (query condition cache off in the spec). The bisect over 26.1 … 26.5 brackets [26.1, 26.3], the pinned re-run
 *   (26.3 with 26.1's defaults and hand settings) reads as few rows as 26.1, and the halving finds
 *   the hand-set setting among the real differing defaults: `default change: use_skip_indexes 1→0
 *   (26.3, set by hand)`.
 *
 * Each figure is `read_rows` of the query's warm run as the cell's result.json records it. Installs
 * the three builds on demand (as the provision step would).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { findPypiBuild, installEngine } from '../../src/engine/install';
import type { BisectResult } from '../../src/workflows/bisect-versions';
import { withResultsDb } from '../../src/results/db';
import { historyFile, saveHistory, showHistory } from '../helpers/histories';

const BUILDS = ['26.1', '26.3', '26.5'];
let env: TemporalEnv;
before(async () => {
  for (const v of BUILDS) await installEngine(findPypiBuild(v)!);
  env = await startTemporalEnv('bisect-attribution');
});
after(async () => {
  await env?.stop();
});

const spec = (query: string) => ({
  name: 'bisect-attribution',
  workload: 'bisect-settings',
  scale: 100_000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.5'], codec: ['LZ4'] },
  queries: [query],
  skipIndex: false,
  protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1, dropOsPageCache: false },
  // Without the query condition cache (26.x) a repeated filter's read_rows is the index's alone.
  settings: { query: { use_query_condition_cache: 0 } },
  resultsDir: env.resultsDir,
});

/** Every step and probe as a test diagnostic (the figures quoted in docs/regression.md). */
function show(t: { diagnostic(m: string): void }, r: BisectResult): void {
  for (const s of r.steps) t.diagnostic(`${s.version}: ${s.side}, ${s.figure} (${s.reason})`);
  for (const p of r.attribution?.probes ?? [])
    t.diagnostic(`probe ${p.settings.join(', ')}: change ${p.disappeared ? 'gone' : 'stays'}`);
  t.diagnostic(`cells run ${r.cellsRun}, candidates ${r.diffs?.length ?? 0}, verdict ${r.verdict}`);
}

const rowsOf = (figure: string) => Number(/read_rows ([\d,]+)/.exec(figure)?.[1].replace(/,/g, '') ?? NaN);

test(
  'a real default change (use_skip_indexes_for_top_k, 26.3 → 26.5): pinned back with compatibility the change vanishes, and the halving names the setting',
  { timeout: 900_000 },
  async (t) => {
    const runId = `bisect-attr-topk-${Date.now()}`;
    const r = (await env.client.workflow.execute('bisectVersions', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [{ spec: spec('q1'), good: '26.3', bad: '26.5', query: 'q1' }],
    })) as BisectResult;
    show(t, r);
    assert.deepEqual(r.versions, ['26.3', '26.5']);
    assert.deepEqual(r.outcome.bracket, ['26.3', '26.5'], JSON.stringify(r.steps));
    const [good, bad] = r.steps.map((s) => rowsOf(s.figure));
    assert.ok(good >= 100_000, `26.3 reads the whole table: ${r.steps[0].figure}`);
    assert.ok(bad < good / 4, `26.5 reads a few granules: ${r.steps[1].figure}`);
    assert.deepEqual(r.attribution?.probes[0], { settings: ['compatibility=26.3'], disappeared: true });
    assert.ok(r.diffs?.some((d) => d.name === 'use_skip_indexes_for_top_k' && d.old === '0' && d.new === '1'));
    assert.equal(r.verdict, 'default change: use_skip_indexes_for_top_k 0→1 (26.5)');
    // The last probe set that setting alone, and it alone removed the change.
    assert.deepEqual(r.attribution?.probes.at(-1), { settings: ['use_skip_indexes_for_top_k'], disappeared: true });
    const desc = await env.client.workflow.getHandle(runId).describe();
    assert.equal(desc.searchAttributes.ChbenchBisectVerdict?.[0], r.verdict);
    assert.match(readFileSync(r.reportPath, 'utf8'), /use_skip_indexes_for_top_k/);
    // The verdict in the results database: the run's one `bisects` row (schema 7).
    const rows = await withResultsDb(undefined, env.resultsDir, (db) => db.bisects(runId));
    assert.deepEqual(
      rows.map((b) => [b.verdict, b.bracket_older, b.first_changed, b.cells_run]),
      [[r.verdict, '26.3', '26.5', r.cellsRun]],
    );
    // `CHBENCH_RECORD_HISTORIES=1` records this release's bisect history (a bracket, the pinned
    // re-run, the halving, the store) for the replay test.
    if (process.env.CHBENCH_RECORD_HISTORIES)
      saveHistory(historyFile('bisect-versions'), runId, showHistory(env.server.address, runId));
  },
);

test(
  'a setting flipped by hand on both sides (use_skip_indexes 1 on 26.1, 0 from 26.3): bracketed at 26.3 and found as the cause among the real differing defaults',
  { timeout: 900_000 },
  async (t) => {
    const runId = `bisect-attr-hand-${Date.now()}`;
    const r = (await env.client.workflow.execute('bisectVersions', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [
        {
          spec: spec('q2'),
          good: '26.1',
          bad: '26.5',
          query: 'q2',
          handSettings: { '26.1': { use_skip_indexes: 1 }, '26.3': { use_skip_indexes: 0 } },
        },
      ],
    })) as BisectResult;
    show(t, r);
    assert.deepEqual(r.versions, ['26.1', '26.3', '26.5']);
    assert.deepEqual(r.outcome.bracket, ['26.1', '26.3'], JSON.stringify(r.steps));
    assert.equal(r.firstChanged, '26.3');
    const byVersion = Object.fromEntries(r.steps.map((s) => [s.version, rowsOf(s.figure)]));
    assert.ok(byVersion['26.1'] < 10_000, `26.1 skips granules: ${JSON.stringify(r.steps)}`);
    assert.ok(byVersion['26.3'] >= 100_000 && byVersion['26.5'] >= 100_000, JSON.stringify(r.steps));
    assert.deepEqual(r.attribution?.probes[0], { settings: ['compatibility=26.1'], disappeared: true });
    const hand = r.diffs?.find((d) => d.name === 'use_skip_indexes');
    assert.deepEqual(hand, { name: 'use_skip_indexes', old: '1', new: '0', byHand: true });
    assert.ok((r.diffs?.length ?? 0) > 1, 'the real differing defaults are candidates too');
    assert.equal(r.verdict, 'default change: use_skip_indexes 1→0 (26.3, set by hand)');
  },
);
