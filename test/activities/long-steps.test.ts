/**
 * Activity layer: the two long waiting steps, quiesceMerges and materializeSkipIndex, each run alone
 * in a `MockActivityEnvironment` (built by `createActivities`, so with the statement watcher and the
 * cell-step wrapper the worker uses) against one embedded target holding the `logs` workload.
 *
 * For each: it heartbeats while it waits, with details that carry its progress; on `cancel()` it
 * ends promptly with `CancelledFailure` (not the statement's abort error), writes no result file,
 * and leaves nothing of its own running on the server.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { CancelledFailure } from '@temporalio/common';
import { createActivities } from '../../src/activities';
import { connect } from '../../src/clickhouse/client';
import { loadWorkload, renderTemplate } from '../../src/lib/workload';
import { pollUntil } from '../../src/lib/poll';
import { cellDir } from '../../src/results/store';
import { parseRunSpec } from '../../src/schema/run-spec';
import type { CellInput, StepInput } from '../../src/schema/cell';
import type { TargetHandle } from '../../src/schema/target';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { embeddedRunning, startActivity } from '../helpers/activity-env';
import type { HeartbeatDetails } from '../../src/clickhouse/statement-watch';

/** Rows the workload's generator loads; then the table is doubled {@link DOUBLINGS} times (copying is faster than generating). */
const BASE_ROWS = 2_000_000;
const DOUBLINGS = Number(process.env.CHBENCH_TEST_ACTIVITY_DOUBLINGS ?? 4);
// Heartbeat with progress every 250 ms (not 2 s): MATERIALIZE INDEX over 32 M rows takes only ~2.5–4 s
// on an idle machine, and the test must see its progress and cancel it while it runs.
process.env.CHBENCH_WATCH_TICK_MS ??= '250';
/** Rows in the table: enough for MATERIALIZE INDEX to run for several seconds on the embedded engine. */
const ROWS = BASE_ROWS * 2 ** DOUBLINGS;

describe('long steps at the activity level (embedded target)', { timeout: 600_000 }, () => {
  let tmp: string;
  let target: TargetHandle | undefined;
  let acts: ReturnType<typeof createActivities>;
  const runId = `act-${randomUUID().slice(0, 8)}`;
  const cellKey = 'v26.7-lz4';
  const m = loadWorkload('logs');

  /** A cell of the `logs` workload on the embedded target, with `protocol` overrides. */
  const cellInput = (protocol: Record<string, unknown> = {}): StepInput => {
    const spec = parseRunSpec({
      name: 'activities',
      workload: 'logs',
      scale: ROWS,
      target: { kind: 'embedded' },
      matrix: { version: ['26.7'], codec: ['LZ4'] },
      protocol,
      resultsDir: path.join(tmp, 'results'),
    });
    const cell: CellInput = {
      runId,
      cellKey,
      version: '26.7',
      codec: 'LZ4',
      workload: 'logs',
      scale: ROWS,
      skipIndex: true,
      protocol: spec.protocol,
      target: spec.target,
      teardown: 'always',
      resultsDir: spec.resultsDir,
    };
    return { cell, target: target! };
  };

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-activities-'));
    const workDir = path.join(tmp, 'targets');
    target = await provisionEmbedded({ runId, cellKey, version: '26.7', workDir });
    acts = createActivities({ workDir, temporalAddress: '127.0.0.1:1', namespace: 'default' });
    const c = connect(target);
    try {
      const v = { table: m.table, rows: BASE_ROWS, codec: 'LZ4' as const, tableSettings: m.tableSettings };
      const t0 = Date.now();
      await c.command({ query: renderTemplate('logs', m.schema, v) });
      await c.command({
        query: renderTemplate('logs', m.load, v),
        clickhouse_settings: m.loadSettings as Record<string, number>,
      });
      for (let i = 0; i < DOUBLINGS; i++) await c.command({ query: `INSERT INTO ${m.table} SELECT * FROM ${m.table}` });
      console.log(`loaded ${ROWS} rows in ${Date.now() - t0} ms`);
    } finally {
      await c.close();
    }
  });

  after(async () => {
    if (target) await teardownEmbedded(target).catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('quiesceMerges heartbeats its wait (parts, merges, stable_ms) and stops at once on cancel', async () => {
    // Never stable within the test: the step keeps polling until it is cancelled.
    const input = cellInput({ quiesce: { stableForMs: 3_600_000, timeoutMs: 3_600_000, pollMs: 200 } });
    const a = startActivity(acts.quiesceMerges, input, 'after-load');
    const polls = () => a.beats.filter((b) => b.d.step === 'quiesce' && b.d.stable_ms !== undefined);
    await pollUntil(() => polls().length >= 3 && new Set(polls().map((b) => b.d.stable_ms)).size >= 2, {
      timeoutMs: 60_000,
      what: 'three quiesce heartbeats',
    });
    for (const { d } of polls()) {
      assert.ok(Number.isInteger(d.active_parts) && d.active_parts! > 0, `active_parts ${d.active_parts}`);
      assert.ok(Number.isInteger(d.merges) && Number.isInteger(d.mutations), JSON.stringify(d));
      assert.ok(d.stable_ms! >= 0);
    }
    const stable = polls().map((b) => b.d.stable_ms!);
    assert.ok(stable[stable.length - 1] > stable[0], `stable_ms grows while the table is quiet: ${stable.join(', ')}`);

    const cancelledAt = Date.now();
    a.cancel();
    const out = await a.settled;
    const tookMs = Date.now() - cancelledAt;
    assert.ok(
      !out.ok && out.error instanceof CancelledFailure,
      `cancelled, got ${out.ok ? 'a result' : String(out.error)}`,
    );
    assert.ok(tookMs < 5_000, `ends within 5 s of the cancel (${tookMs} ms): the poll's sleep is cancellable`);
    assert.ok(
      !fs.existsSync(path.join(cellDir(input.cell.resultsDir, runId, cellKey), 'quiesce-after-load.json')),
      'no result file',
    );
    // Its last poll statement, if any was in flight, finishes; nothing stays running or queued.
    await pollUntil(async () => (await embeddedRunning(target!)).length === 0, {
      timeoutMs: 10_000,
      what: 'no statement running',
    });
  });

  test('materializeSkipIndex heartbeats the running ALTER with its progress; cancel ends the step, the ALTER leaves the server', async () => {
    const input = cellInput();
    const a = startActivity(acts.materializeSkipIndex, input);
    const isAlter = (sql: string | undefined) => /MATERIALIZE INDEX/i.test(sql ?? '');
    // The watcher's heartbeats name the statement in flight and its counters.
    const alterBeats = () => a.beats.filter((b) => b.d.step === 'materialize-index' && isAlter(b.d.statement));
    const hasCounter = (d: HeartbeatDetails) =>
      d.elapsed_ms !== undefined || d.parts_to_do !== undefined || d.rows_read !== undefined;
    await pollUntil(
      async () => {
        const done = await Promise.race([a.settled, Promise.resolve(undefined)]);
        if (done)
          throw new Error(
            `materializeSkipIndex ended before it could be cancelled (${ROWS} rows is too few): ${JSON.stringify(done)}`,
          );
        return alterBeats().some((b) => hasCounter(b.d));
      },
      {
        timeoutMs: 120_000,
        intervalMs: 100,
        what: 'a heartbeat with progress counters during MATERIALIZE INDEX',
        stopOn: (e) => e instanceof Error && /ended before/.test(e.message),
      },
    );
    const running = await embeddedRunning(target!);
    const alter = running.find((s) => isAlter(s.sql_head));
    assert.ok(alter, `the ALTER is running: ${JSON.stringify(running)}`);
    for (const { d } of alterBeats()) {
      assert.equal(d.query_id, alter.query_id, 'heartbeats name the running statement');
      assert.match(d.progress, /MATERIALIZE INDEX/, 'the human line names the statement');
    }
    const counted = alterBeats().filter((b) => hasCounter(b.d));
    assert.ok(
      counted.every((b) => (b.d.elapsed_ms ?? 0) >= 0 && (b.d.parts_to_do ?? 0) >= 0),
      JSON.stringify(counted.map((b) => b.d)),
    );
    console.log(`materialize heartbeat: ${JSON.stringify(alterBeats().at(-1)?.d)}`);

    const cancelledAt = Date.now();
    a.cancel();
    const out = await a.settled;
    const tookMs = Date.now() - cancelledAt;
    assert.ok(
      !out.ok && out.error instanceof CancelledFailure,
      `cancelled, got ${out.ok ? 'a result' : String(out.error)}`,
    );
    assert.ok(tookMs < 5_000, `ends within 5 s of the cancel (${tookMs} ms), not when the ALTER finishes`);
    assert.ok(
      !fs.existsSync(path.join(cellDir(input.cell.resultsDir, runId, cellKey), 'index.json')),
      'no result file',
    );
    // The cancel sends KILL QUERY for the ALTER (the npm engine kills it through a second session, or
    // it finishes on its own); either way nothing of the step is left running or queued.
    const goneAfter = await pollUntil(
      async () =>
        (await embeddedRunning(target!)).some((s) => isAlter(s.sql_head)) ? undefined : Date.now() - cancelledAt,
      {
        timeoutMs: 300_000,
        intervalMs: 200,
        what: 'the ALTER to leave /chbench/running',
      },
    );
    console.log(`the ALTER left the running statements ${goneAfter} ms after the cancel`);
    assert.deepEqual(await embeddedRunning(target!), []);
  });
});
