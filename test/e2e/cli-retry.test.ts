/**
 * `chbench run` shows a step that retries as `attempt n: <the previous attempt's error>` (from the
 * cell workflow's pending activity, Temporal `DescribeWorkflowExecution`), and ends with a one-line
 * summary. Real Temporal dev server and the real workflows; the activities are stubs, so the
 * provision step can fail with a retryable error a set number of times.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startStubEnv, type StubEnv } from '../helpers/temporal-env';
import { stubActivities } from '../helpers/stub-activities';
import { startCli } from '../helpers/cli-process';

const stubs = stubActivities();
let env: StubEnv;
let tmp: string;
before(async () => {
  env = await startStubEnv('cli-retry', stubs.activities);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-cli-retry-'));
});
after(async () => {
  await env?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

test('a retrying step shows "attempt n: <error>"; the run ends with "3/3 succeeded in N s" (two codecs and the A/A control) and the Decision', async () => {
  const runId = `retry-${randomUUID().slice(0, 8)}`;
  const file = path.join(tmp, 'spec.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: 'retry',
      workload: 'logs',
      scale: 1000,
      target: { kind: 'embedded' },
      matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(3)'] },
      skipIndex: false,
      resultsDir: path.join(tmp, 'results'),
    }),
  );
  // The first cell's provision fails 4 times (retried after 1, 2, 4, 8 s), then succeeds.
  stubs.failWith = (activity, key, n) =>
    activity === 'provision' && key.endsWith('/v26.7-lz4') && n <= 4
      ? new Error('connect ECONNREFUSED 127.0.0.1:9000')
      : undefined;
  try {
    const cli = startCli(['run', file, '--run-id', runId], {
      TEMPORAL_ADDRESS: env.server.address,
      TEMPORAL_NAMESPACE: 'default',
      CHBENCH_TASK_QUEUE: env.taskQueue,
    });
    const m = await cli.waitFor(
      /v26\.7-lz4 {2}provision — attempt ([2-5]): connect ECONNREFUSED 127\.0\.0\.1:9000/,
      30_000,
    );
    assert.ok(Number(m[1]) >= 2);
    assert.equal(await cli.exited, 0, cli.err());
    assert.match(cli.err(), new RegExp(`run ${runId}: 3/3 succeeded in \\d+ s\\n`));
    // The matrix's verdicts, last: the Decision line and the A/A control's count (the stub judges nothing).
    assert.match(
      cli.err(),
      /decision: stub decision: 0 pair\(s\) re-run, 0 not; A\/A control moves 0 of 0 — verdicts\.json/,
    );
    assert.equal(cli.out().trim(), `/stub/${runId}/report.md`);
    console.log(cli.err());
  } finally {
    stubs.failWith = undefined;
  }
});
