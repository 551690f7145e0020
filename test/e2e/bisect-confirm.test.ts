/**
 * A time step confirmed by the comparison's interleaved re-run (issue 25 "each step reuses the
 * comparison method, the confirming re-run included"), on real engines: `bisectVersions --metric
 * warm` with every activity real over PyPI chdb 26.3 and 26.5 on the `bisect-settings` workload's q3
 * at 1,000,000 rows. `use_skip_indexes` is set by hand to 0 on 26.3 and 1 on 26.5, so 26.3's q3
 * scans and hashes every row and 26.5's reads one granule (1,024 rows): a real, deterministic change
 * of the warm time, tens of ms against a few. The good end is the slow side because it is every
 * comparison's baseline and its own runs set the noise threshold: a baseline of a few ms (q2's bare
 * count, 2 ms) disagreed with itself by up to 95 % on a busy 2-core machine, and the comparison then
 * calls any change unstable. The bad end's first pass says faster; the re-run (two fresh cells,
 * interleaved) must confirm it before the bisect takes it, and the step carries both, its verdict
 * (`faster` with its interval, from the re-run) and the host's load during its runs.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { findPypiBuild, installEngine } from '../../src/engine/install';
import type { BisectResult } from '../../src/workflows/bisect-versions';
import { historyFile, saveHistory, showHistory } from '../helpers/histories';

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
    const workflowId = `bisect-confirm-${Date.now()}`;
    const r = (await env.client.workflow.execute('bisectVersions', {
      taskQueue: env.taskQueue,
      workflowId,
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
    // The step is a verdict with its interval, from the interleaved re-run that confirmed the first pass.
    assert.deepEqual([bad.verdict?.verdict, bad.verdict?.from], ['faster', 're-run'], bad.reason);
    assert.ok(bad.verdict!.high! < 1 / (1 + bad.verdict!.threshold!), JSON.stringify(bad.verdict));
    assert.match(bad.reason, /^bad end, faster: .*first pass faster/);
    assert.equal(bad.confirmation?.confirmed, true, bad.reason);
    assert.equal(bad.confirmation?.final, 'improvement');
    assert.equal(bad.confirmation?.rounds, 12);
    assert.deepEqual(r.outcome.bracket, ['26.3', '26.5']);
    // Each step's cell carries the host's load during its warm runs (metrics-end.json of the embedded cell).
    for (const s of r.steps)
      assert.match(
        s.hostLoad?.words ?? '',
        /^(quiet|disturbed): other processes used \d\.\d\d of \d+ cores during q3 warm/,
        s.version,
      );
    const md = readFileSync(r.reportPath, 'utf8');
    assert.match(
      md,
      /\| 2 \| 26\.5 \| bad \| faster \| 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] \| ±\d+\.\d % \| interleaved re-run, 12 rounds \|/,
    );
    assert.match(md, /^Host load: \d of 2 steps' cells quiet/m);
    // `CHBENCH_RECORD_HISTORIES=1` records this release's time-bisect history (the verdicts path:
    // a first pass, its interleaved re-run child, the store) for the replay test.
    if (process.env.CHBENCH_RECORD_HISTORIES)
      saveHistory(historyFile('bisect-versions'), workflowId, showHistory(env.server.address, workflowId));
  },
);
