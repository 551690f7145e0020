/**
 * The attempt log of cell steps (`src/activities/support/attempt-log.ts`) in Temporal's mock activity
 * environment, and the report's "retries" cell built from it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger } from '@temporalio/worker';
import {
  ATTEMPT_LOG_FILE,
  clearCellDirKeepingAttempts,
  phaseOf,
  readAttemptLog,
  withAttemptLog,
} from '../../src/activities/support/attempt-log';
import { cellDir } from '../../src/results/store';
import { FAILURE } from '../../src/schema/failures';
import { retries } from '../../src/results/report';
import type { CellResult } from '../../src/schema/results';

const resultsDir = mkdtempSync(path.join(os.tmpdir(), 'chbench-attempt-log-'));
const cell = { resultsDir, runId: 'run-1', cellKey: 'v24.8-lz4' };
const dir = cellDir(resultsDir, cell.runId, cell.cellKey);

/** Run `fn` as attempt `attempt` of an activity of workflow run `wfRun`. */
function runAs<R>(fn: () => Promise<R>, attempt: number, wfRun = 'wf-run-a'): Promise<R> {
  const env = new MockActivityEnvironment(
    { attempt, workflowExecution: { workflowId: 'run-1/v24.8-lz4', runId: wfRun } },
    // The failures are expected: the worker's log of them would only clutter the test output.
    { logger: new DefaultLogger('ERROR') },
  );
  return env.run(fn);
}

test('each attempt of a step is logged: a retryable failure, then success; a non-retryable failure says so', async () => {
  let n = 0;
  const acts = withAttemptLog({
    loadData: async (_si: unknown) => {
      if (++n === 1) throw new Error('socket closed mid-insert');
      return { rows: 1 };
    },
    provision: async (_c: unknown, _fresh: boolean) => {
      throw ApplicationFailure.create({
        type: FAILURE.VersionMismatch,
        nonRetryable: true,
        message: 'local target: x is ClickHouse 18.16.1, but the cell asks for version 24.8',
      });
    },
    writeReport: async () => ({ ok: true }),
  });
  await assert.rejects(
    runAs(() => acts.loadData({ cell, target: {} }), 1),
    /socket closed/,
  );
  assert.deepEqual(await runAs(() => acts.loadData({ cell, target: {} }), 2), { rows: 1 });
  await assert.rejects(
    runAs(() => acts.provision(cell, true), 1),
    /asks for version 24\.8/,
  );
  await runAs(() => acts.writeReport(), 1);

  const log = readAttemptLog(dir, 'wf-run-a');
  assert.deepEqual(
    log.map((r) => [r.phase, r.activity, r.attempt, r.outcome, r.failure_type ?? null, r.retryable ?? null]),
    [
      ['load', 'loadData', 1, 'failed', 'Error', true],
      ['load', 'loadData', 2, 'succeeded', null, null],
      ['provision', 'provision', 1, 'failed', FAILURE.VersionMismatch, false],
    ],
    'the matrix activity writeReport is not a cell step: not logged',
  );
  assert.match(log[0].error!, /socket closed mid-insert/);
  for (const r of log) {
    assert.equal(r.workflow_run_id, 'wf-run-a');
    assert.ok(r.duration_ms >= 0);
    assert.equal(Date.parse(r.ended_at) - Date.parse(r.started_at), r.duration_ms);
  }
  // Another execution of the cell reads none of them.
  assert.deepEqual(readAttemptLog(dir, 'wf-run-b'), []);
});

test('a fresh provisioning empties the cell folder but keeps the attempts of its own workflow run', async () => {
  await runAs(async () => clearCellDirKeepingAttempts(dir), 2, 'wf-run-a');
  assert.equal(readAttemptLog(dir).length, 3, readFileSync(path.join(dir, ATTEMPT_LOG_FILE), 'utf8'));
  await runAs(async () => clearCellDirKeepingAttempts(dir), 1, 'wf-run-b');
  assert.equal(existsSync(dir), false, 'a new execution starts from an empty folder');
});

test('phases of activities that serve several phases come from their arguments', () => {
  assert.equal(phaseOf('runQueries', [{}, 'index', true]), 'queries-index');
  assert.equal(phaseOf('runQueries', [{}, 'baseline', true]), 'queries-baseline');
  assert.equal(phaseOf('quiesceMerges', [{}, 'after-index']), 'quiesce-index');
  assert.equal(phaseOf('collectMetrics', [{}, 'end']), 'collect-metrics-end');
  assert.equal(phaseOf('writeCellResult', [{}]), undefined);
});

test('the "retries" cell names a failed step, its attempts and why it was not retried', () => {
  const rec = (attempt: number, outcome: 'succeeded' | 'failed', failure_type?: string, retryable?: boolean) => ({
    phase: 'x',
    activity: 'x',
    attempt,
    started_at: '2026-12-01T00:00:00.000Z',
    ended_at: '2026-12-01T00:00:01.000Z',
    duration_ms: 1000,
    outcome,
    ...(failure_type ? { failure_type, retryable } : {}),
  });
  const c = {
    attempts: { provision: 1 },
    attempt_log: { provision: [rec(1, 'failed', 'VersionMismatch', false)] },
    target_restarts: [],
  } as unknown as CellResult;
  assert.equal(retries(c), 'provision ×1 failed: VersionMismatch (not retryable)');
  const d = {
    attempts: { provision: 1, load: 3 },
    attempt_log: {
      provision: [rec(1, 'succeeded')],
      load: [rec(1, 'failed', 'Error', true), rec(2, 'failed', 'Error', true), rec(3, 'succeeded')],
    },
    target_restarts: [],
  } as unknown as CellResult;
  assert.equal(retries(d), 'load ×3 (2 failed: Error)');
  // Results written before attempts were logged: counts only, as before.
  assert.equal(retries({ attempts: { load: 2 }, target_restarts: [] } as unknown as CellResult), 'load ×2');
  assert.equal(retries({ attempts: { load: 1 }, target_restarts: [] } as unknown as CellResult), 'none');
});
