/**
 * Statements at real scale (long, big, failing mid-stream) through the whole workflow, on real components (Temporal dev server + worker, the embedded
 * engine, Debian's clickhouse-server 18.16): the `edge` workload's statements — one slower than every
 * heartbeat timeout, a result bigger than a JavaScript string, a query that fails after the server
 * started sending rows — are measured or fail cleanly, never kill the cell by a timeout or a parse.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import type { MatrixResult } from '../../src/workflows';
import type { CellResult as CellResultDoc } from '../../src/schema/results';
import { defaultPayloadConverter } from '@temporalio/common';
import { FAILURE } from '../../src/schema/failures';

const BINARY = process.env.CHBENCH_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';
let env: TemporalEnv;
before(async () => {
  env = await startTemporalEnv('edge');
});
after(async () => {
  await env?.stop();
});

async function runEdge(name: string, queries: string[], target: Record<string, unknown>, version = '26.7') {
  const spec = {
    name,
    workload: 'edge',
    scale: 1000,
    queries,
    target,
    matrix: { version: [version], codec: ['LZ4'] },
    protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1 },
    skipIndex: false,
    resultsDir: env.resultsDir,
  };
  const runId = `${name}-${Date.now()}`;
  const r = (await env.client.workflow.execute('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [spec],
  })) as MatrixResult;
  const cell = r.cells[0];
  const doc = JSON.parse(readFileSync(cell.resultFile, 'utf8')) as CellResultDoc;
  const report = readFileSync(
    path.join(path.dirname(path.dirname(path.dirname(cell.resultFile))), 'report.md'),
    'utf8',
  );
  return { runId, cell, doc, report };
}

test('embedded: a 15 s statement and a 600 MB result are measured; the cell succeeds', async () => {
  const { cell, doc } = await runEdge('edge-long-big', ['slow', 'big', 'count'], { kind: 'embedded' });
  assert.equal(cell.status, 'succeeded', cell.error);
  const byId = Object.fromEntries(doc.queries_baseline!.queries.map((q) => [q.id, q]));
  // sleepEachRow(0.5) × 30 rows: 15 s, longer than the 10 s heartbeat timeout, cold and warm.
  for (const s of byId.slow.samples) {
    assert.ok(s.wall_ms >= 14_500 && s.wall_ms < 60_000, `slow ${s.kind}: ${s.wall_ms} ms`);
    assert.ok(s.server_elapsed_ms! >= 14_500, `slow ${s.kind} server: ${s.server_elapsed_ms} ms`);
  }
  assert.deepEqual(
    byId.slow.samples.map((s) => s.kind),
    ['cold', 'warm'],
  );
  // 600,000 rows of 1,000 chars: more than a JavaScript string can hold, hashed and counted as streamed.
  for (const s of byId.big.samples) {
    assert.equal(s.result_rows, 600_000);
    assert.ok(s.result_bytes! > 600_000_000, `big: result_bytes ${s.result_bytes}`);
  }
  assert.equal(byId.big.stats.result_sha256.length, 1, 'cold and warm returned the same rows');
  assert.equal(doc.attempts?.['queries-baseline'], 1, 'measured on the first attempt, no timeout retry');
});

for (const t of [
  { name: 'embedded', target: { kind: 'embedded' }, version: '26.7' },
  { name: '18.16', target: { kind: 'local', binaries: { '18.16': BINARY } }, version: '18.16' },
]) {
  test(`${t.name}: a query that fails (on 18.16 after the response started; embedded buffers it for a complete summary) is a failed run with the server's code, not retried; other queries are kept`, async () => {
    if (t.name === '18.16')
      assert.ok(existsSync(BINARY), `${BINARY} is missing: run ./scripts/setup.sh --with-debian-clickhouse`);
    const { runId, cell, doc, report } = await runEdge(
      `edge-late-error-${t.name.replace('.', '')}`,
      ['count', 'late_error'],
      t.target,
      t.version,
    );
    assert.equal(cell.status, 'failed');
    assert.match(cell.error!, /QueryFailed|LATE_ERROR|failed on run cold 1/);
    assert.match(cell.error!, /Code 395/);
    assert.match(cell.error!, /Value passed to 'throwIf' function is non.zero/);
    assert.equal(doc.queries_baseline!.attempt, 1, 'a query error is not retried (the record is from attempt 1)');
    const byId = Object.fromEntries(doc.queries_baseline!.queries.map((q) => [q.id, q]));
    assert.equal(byId.count.samples.length, 2, 'the query measured before the failure is kept');
    assert.equal(byId.count.stats.result_rows, 1);
    assert.equal(byId.late_error.error?.code, '395');
    if (t.name === '18.16') {
      // No query log short-cut here: 18.16 streams, so the error came inside an HTTP 200 body.
      assert.equal(byId.late_error.error?.after_response_started?.http_status, 200);
      assert.ok(
        byId.late_error.error!.after_response_started!.result_bytes > 100_000,
        'rows had been received before the error',
      );
      assert.equal(byId.late_error.error?.after_response_started?.exception_source, 'text appended to the body');
    }
    assert.equal(byId.late_error.samples.length, 0, 'no sample was recorded from the failed body');
    // The query id as the workload spells it (issue 13: ids are not upper-cased).
    assert.match(report, /⚠ late_error failed in v\d+\.\d+-lz4 \(failed\)\*\* on run cold 1/);
    // The QueryFailed failure itself carries the server's identity of the error, per query.
    const hist = await env.client.workflow.getHandle(`${runId}/${cell.cellKey}`).fetchHistory();
    const failure = hist
      .events!.map((e) => e.activityTaskFailedEventAttributes?.failure)
      .find((f) => f?.applicationFailureInfo?.type === FAILURE.QueryFailed);
    assert.ok(failure, 'runQueries failed with QueryFailed');
    const payload = failure.applicationFailureInfo!.details?.payloads?.[0];
    assert.ok(payload, 'QueryFailed has details');
    const details = defaultPayloadConverter.fromPayload<{
      failed: string[];
      errors: { id: string; code: number | null; name: string | null }[];
    }>(payload);
    assert.deepEqual(details.failed, ['late_error']);
    assert.deepEqual(details.errors, [{ id: 'late_error', code: 395, name: 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO' }]);
  });
}

for (const t of [
  { name: 'embedded', target: { kind: 'embedded' }, version: '26.7' },
  { name: '18.16', target: { kind: 'local', binaries: { '18.16': BINARY } }, version: '18.16' },
]) {
  test(`${t.name}: a query with a syntax error fails its step in one attempt, recorded with the server's error and times`, async () => {
    if (t.name === '18.16')
      assert.ok(existsSync(BINARY), `${BINARY} is missing: run ./scripts/setup.sh --with-debian-clickhouse`);
    const t0 = Date.now();
    const { cell, doc, report } = await runEdge(
      `edge-syntax-${t.name.replace('.', '')}`,
      ['count', 'syntax_error'],
      t.target,
      t.version,
    );
    assert.equal(cell.status, 'failed');
    assert.match(cell.error!, /Code:? 62|SYNTAX_ERROR/);
    assert.ok(Date.now() - t0 < 60_000, `failed in ${Date.now() - t0} ms, not after retries`);
    // The step that met the error (the query step, or a check of the queries before it) ran once.
    const log = doc.attempt_log ?? {};
    const failedPhases = Object.entries(log).filter(([, recs]) => recs.at(-1)?.outcome === 'failed');
    assert.equal(failedPhases.length, 1, JSON.stringify(log));
    const [phase, recs] = failedPhases[0];
    assert.equal(recs.length, 1, `${phase}: one attempt`);
    assert.equal(doc.attempts[phase], 1);
    assert.equal(recs[0].attempt, 1);
    assert.equal(recs[0].retryable, false);
    assert.match(recs[0].error!, /SELEC|Syntax error/i);
    assert.ok(recs[0].duration_ms >= 0 && Date.parse(recs[0].ended_at) >= Date.parse(recs[0].started_at));
    // Every step before it succeeded on its first attempt, and says so.
    for (const [p, r] of Object.entries(log))
      if (p !== phase)
        assert.deepEqual(
          r.map((a) => [a.attempt, a.outcome]),
          [[1, 'succeeded']],
          p,
        );
    assert.match(report, new RegExp(`${phase} ×1 failed: [\\w.]+ \\(not retryable\\)`));
  });
}

for (const t of [
  { name: 'embedded', target: { kind: 'embedded' }, version: '26.7' },
  { name: '18.16', target: { kind: 'local', binaries: { '18.16': BINARY } }, version: '18.16' },
]) {
  test(`${t.name}: a run cancelled in the middle of the query step ends Canceled and keeps the queries already measured`, async () => {
    const runId = `edge-cancel-${t.name.replace('.', '')}-${Date.now()}`;
    const spec = {
      name: 'edge-cancel',
      workload: 'edge',
      scale: 1000,
      queries: ['count', 'slow'],
      target: t.target,
      matrix: { version: [t.version], codec: ['LZ4'] },
      protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1 },
      skipIndex: false,
      resultsDir: env.resultsDir,
    };
    const handle = await env.client.workflow.start('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [spec],
    });
    const cellKey = `v${t.version}-lz4`;
    // Wait until the cell measures (count takes milliseconds; slow then runs for 2 × 15 s), then cancel.
    for (let i = 0; i < 600; i++) {
      const p = await env.client.workflow
        .getHandle(`${runId}/${cellKey}`)
        .query<{ step: string }>('progress')
        .catch(() => undefined);
      if (p?.step === 'queries-baseline') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 6000));
    await handle.cancel();
    await handle.result().catch(() => undefined);
    const doc = JSON.parse(
      readFileSync(path.join(env.resultsDir, runId, 'cells', cellKey, 'result.json'), 'utf8'),
    ) as CellResultDoc;
    assert.equal(doc.status, 'cancelled', doc.error);
    const qb = doc.queries_baseline!;
    assert.ok(
      qb,
      `queries-baseline.json written: files ${readdirSync(path.join(env.resultsDir, runId, 'cells', cellKey)).join(', ')}; error ${doc.error}; attempts ${JSON.stringify(doc.attempts)}`,
    );
    assert.match(qb.incomplete!, /^cancelled; 1 of 2 queries measured/);
    assert.deepEqual(
      qb.queries.map((q) => q.id),
      ['count'],
    );
    assert.equal(qb.queries[0].samples.length, 2);
    const report = readFileSync(path.join(env.resultsDir, runId, 'report.md'), 'utf8');
    assert.match(report, /Query steps stopped before every query was measured/);
    assert.match(
      report,
      /not collected \(cancelled\)/,
      'counters of a cell stopped early are not shown as missing on the server',
    );
  });
}
