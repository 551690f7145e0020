/**
 * validateSpec (the matrix workflow's first activity) checks the run id itself: a workflow started
 * directly with `temporal workflow start` bypasses the CLI's check, and a 300-character id used to
 * end in a raw ENAMETOOLONG when the run's folder was created.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createValidateSpec } from '../../src/activities/matrix/validate-spec';
import { FAILURE } from '../../src/schema/failures';

test('a 300-character run id fails validateSpec with InvalidSpec naming the problem, and writes nothing', async () => {
  const resultsDir = mkdtempSync(path.join(os.tmpdir(), 'chbench-runid-'));
  try {
    const runId = 'r'.repeat(300);
    const spec = {
      name: 'longid',
      workload: 'logs',
      scale: 1000,
      target: { kind: 'embedded' },
      matrix: { version: ['26.7'], codec: ['LZ4'] },
      queries: ['q1'],
      resultsDir,
    };
    const { validateSpec } = createValidateSpec();
    await assert.rejects(validateSpec({ spec, runId, startedAt: new Date().toISOString() }), (e: unknown) => {
      assert.ok(e instanceof ApplicationFailure, String(e));
      assert.equal(e.type, FAILURE.InvalidSpec, e.message);
      assert.equal(e.nonRetryable, true);
      assert.match(e.message, /run id .*at most 200 characters \(this one 300\)/);
      assert.doesNotMatch(e.message, /ENAMETOOLONG/);
      return true;
    });
    assert.deepEqual(readdirSync(resultsDir), [], 'nothing written to the results store');
    // The same spec with a good id is valid (the failure above is the id's alone).
    const ok = await validateSpec({ spec, runId: 'short-id', startedAt: new Date().toISOString() });
    assert.ok(existsSync(path.join(ok.runDir, 'run.json')));
  } finally {
    rmSync(resultsDir, { recursive: true, force: true });
  }
});
