/**
 * A time step confirmed by the comparison's interleaved re-run (issue 25 "each step reuses the
 * comparison method, the confirming re-run included"), on real engines: `bisectVersions --metric
 * warm` with every activity real over PyPI chdb 26.3 and 26.5 on the `bisect-settings` workload's q3
 * at 1,000,000 rows. `use_skip_indexes` is set by hand to 0 on 26.3 and 1 on 26.5, so 26.3's q3
 * scans and hashes every row and 26.5's reads one granule (1,024 rows): a real, deterministic change
 * of the warm time, tens of ms against a few. The good end is the slow side because it is every
 * comparison's baseline and its own runs set the noise threshold: a baseline of a few ms (q2's bare
 * count, 2 ms) disagreed with itself by up to 95 % on a busy 2-core machine, and the comparison then
 * calls any change unstable. The bad end's first pass says improvement; the re-run (two fresh cells,
 * interleaved) must confirm it before the bisect takes it, and the step carries both.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { findPypiBuild, installEngine } from '../../src/engine/install';
import type { BisectResult } from '../../src/workflows/bisect-versions';

let env: TemporalEnv;
before(async () => {
  for (const v of ['26.3', '26.5']) await installEngine(findPypiBuild(v)!);
  env = await startTemporalEnv('bisect-confirm');
});
after(async () => {
  await env?.stop();
});

test(
  '--metric warm: the bad end 26.5 (one granule instead of a full scan) is an improvement confirmed by the interleaved re-run',
  { timeout: 600_000 },
  async (t) => {
    const r = (await env.client.workflow.execute('bisectVersions', {
      taskQueue: env.taskQueue,
      workflowId: `bisect-confirm-${Date.now()}`,
      args: [
        {
          spec: {
            name: 'bisect-confirm',
            workload: 'bisect-settings',
            scale: 1_000_000,
            target: { kind: 'embedded' },
            matrix: { version: ['26.5'], codec: ['LZ4'] },
            queries: ['q3'],
            skipIndex: false,
            protocol: { coldRuns: 1, warmupRuns: 1, warmRuns: 7, dropOsPageCache: false },
            settings: { query: { use_query_condition_cache: 0 } },
            resultsDir: env.resultsDir,
          },
          good: '26.3',
          bad: '26.5',
          query: 'q3',
          metric: 'warm',
          handSettings: { '26.3': { use_skip_indexes: 0 }, '26.5': { use_skip_indexes: 1 } },
        },
      ],
    })) as BisectResult;
    for (const s of r.steps) t.diagnostic(`${s.version}: ${s.side}, ${s.figure} (${s.reason})`);
    t.diagnostic(`cells ${r.cellsRun}, verdict ${r.verdict}`);
    const bad = r.steps.find((s) => s.version === '26.5')!;
    assert.match(bad.reason, /^bad end, first pass improvement: ratio/);
    assert.equal(bad.confirmation?.confirmed, true, bad.reason);
    assert.equal(bad.confirmation?.final, 'improvement');
    assert.equal(bad.confirmation?.rounds, 12);
    assert.deepEqual(r.outcome.bracket, ['26.3', '26.5']);
    assert.match(readFileSync(r.reportPath, 'utf8'), /\| confirmed: improvement, 12 rounds, final improvement \|/);
  },
);
