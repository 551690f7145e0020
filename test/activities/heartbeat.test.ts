/**
 * Statements longer than the heartbeat timeout (issue 7, item 1), on real servers:
 *
 * (a) activity level (`MockActivityEnvironment`): the measurement protocol running a 15 s query
 *     heartbeats at intervals below the 10 s heartbeat timeout, with progress details whose
 *     `rows_read` grows — on Debian's clickhouse-server 18.16 and on the embedded engine;
 * (b) end to end: a matrix cell on the embedded target whose query takes 15 s (1 cold + 1 warm run)
 *     succeeds and both samples are ≈ 15 s (the cell failed with "Heartbeat timeout" before);
 * (c) stuck detection: a statement whose counters do not move fails the activity with
 *     `StatementStuck` naming its query_id; 18.16 kills it (gone from system.processes), the
 *     embedded engine cannot and the failure says so.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createClient, ClickHouseLogLevel } from '@clickhouse/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { authHeaders, connect, targetPassword } from '../../src/clickhouse/client';
import { measureQueries } from '../../src/measure/protocol';
import { heartbeat, cancellationSignal } from '../../src/temporal/activity-context';
import { killOnCancel } from '../../src/activities/support/attempts';
import { runWatched, type HeartbeatDetails } from '../../src/clickhouse/statement-watch';
import { provisionLocal, teardownLocal } from '../../src/targets/local';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import type { TargetHandle } from '../../src/schema/target';

const SLOW = 'SELECT sum(sleepEachRow(0.5)) FROM numbers(30) SETTINGS max_block_size = 1';
/** Heartbeat timeout of every cell activity (`HEARTBEAT_TIMEOUT` in src/workflows/cell-step.ts, not exported). */
const HEARTBEAT_TIMEOUT_MS = 10_000;
const QUIET = { level: ClickHouseLogLevel.OFF };

function serverBinary(): string {
  const p =
    process.env.CHBENCH_CLICKHOUSE_SERVER ??
    ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((x) => fs.existsSync(x));
  assert.ok(
    p && fs.existsSync(p),
    'Debian clickhouse-server needed: run ./scripts/setup.sh --with-debian-clickhouse (CI does), or set CHBENCH_CLICKHOUSE_SERVER',
  );
  return p;
}

interface Beat {
  at: number;
  d: HeartbeatDetails;
}

/** Run `fn` as an activity; collect every heartbeat with its time. */
async function asActivity<T>(fn: () => Promise<T>): Promise<{ result?: T; error?: unknown; beats: Beat[] }> {
  const env = new MockActivityEnvironment({ heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS, startToCloseTimeoutMs: 600_000 });
  const beats: Beat[] = [];
  env.on('heartbeat', (d: HeartbeatDetails) => beats.push({ at: Date.now(), d }));
  try {
    return { result: await env.run(fn), beats };
  } catch (error) {
    return { error, beats };
  }
}

/** Largest gap between consecutive heartbeats in [from, to], ms. */
function maxGap(beats: Beat[], from: number, to: number): number {
  const ts = [from, ...beats.map((b) => b.at).filter((t) => t > from && t < to), to];
  return Math.max(...ts.slice(1).map((t, i) => t - ts[i]));
}

async function protocolOnSlowQuery(target: TargetHandle, queryLog: boolean) {
  const c = connect(target);
  await c.command({ query: 'CREATE TABLE IF NOT EXISTS t (n UInt64) ENGINE = MergeTree ORDER BY n' });
  await c.close();
  return asActivity(async () => {
    const client = connect(target);
    try {
      const t0 = Date.now();
      const recs = await measureQueries(
        client,
        't',
        [{ id: 'q1', title: 'slow', usesIndex: false, deterministic: true, sql: SLOW }],
        {
          coldRuns: 1,
          warmupRuns: 0,
          warmRuns: 1,
          cacheDrops: ['SYSTEM DROP MARK CACHE'],
          dropOsPageCache: false,
          maxExecutionTimeS: 600,
          queryLog,
          counters: queryLog ? 'query_log' : 'none',
          killOnCancel: (id, run) => killOnCancel(target, id, run),
          signal: cancellationSignal(),
          queryIdPrefix: `hb-${randomUUID().slice(0, 8)}`,
          // As runQueries does: a heartbeat before each run (the only ones before the fix).
          onRun: (q, kind, n) => heartbeat({ step: 'queries-baseline', query: q, run: `${kind} ${n}` }),
          onProgress: (p) => heartbeat({ result_rows: p.result_rows, result_bytes: p.result_bytes }),
        },
      );
      return { recs, t0, t1: Date.now() };
    } finally {
      await client.close();
    }
  });
}

function checkBeats(label: string, out: Awaited<ReturnType<typeof protocolOnSlowQuery>>) {
  assert.equal(out.error, undefined, `${label}: ${String(out.error)}`);
  const { recs, t0, t1 } = out.result!;
  const samples = recs[0].samples;
  assert.deepEqual(
    samples.map((s) => s.kind),
    ['cold', 'warm'],
  );
  for (const s of samples)
    assert.ok(s.wall_ms >= 14_500, `${label} ${s.kind}: wall ${s.wall_ms} ms ≥ 14.5 s (30 × 0.5 s)`);
  const gap = maxGap(out.beats, t0, t1);
  const perRun = samples.map((s) => {
    const b = out.beats.filter((x) => x.d.query_id === s.query_id);
    return {
      kind: s.kind,
      beats: b.length,
      rows: b.map((x) => x.d.rows_read).filter((r): r is number => r !== undefined),
    };
  });
  console.log(
    `${label}: ${out.beats.length} heartbeats over ${((t1 - t0) / 1000).toFixed(1)} s, largest gap ${gap} ms; per run ${JSON.stringify(perRun.map((p) => ({ kind: p.kind, beats: p.beats, rows_read: p.rows })))}; samples wall ${samples.map((s) => Math.round(s.wall_ms)).join(' / ')} ms, server ${samples.map((s) => s.server_elapsed_ms).join(' / ')} ms`,
  );
  console.log(`${label}: a heartbeat: ${JSON.stringify(out.beats.find((b) => (b.d.rows_read ?? 0) > 5)?.d)}`);
  assert.ok(
    gap < HEARTBEAT_TIMEOUT_MS,
    `${label}: largest gap between heartbeats ${gap} ms must stay below the ${HEARTBEAT_TIMEOUT_MS} ms heartbeat timeout`,
  );
  for (const p of perRun) {
    assert.ok(
      new Set(p.rows).size >= 3,
      `${label} ${p.kind}: heartbeats carry at least 3 different rows_read values (${p.rows.join(',')})`,
    );
    assert.deepEqual(
      p.rows,
      [...p.rows].sort((a, b) => a - b),
      `${label} ${p.kind}: rows_read never goes back`,
    );
    assert.ok(p.rows.every((r) => r >= 0 && r <= 30));
  }
  const line = out.beats.find((b) => (b.d.rows_read ?? 0) > 0)!.d;
  assert.equal(line.step, 'queries-baseline');
  assert.equal(line.query, 'q1');
  assert.match(line.progress, /rows read/);
}

// The two servers' statements only sleep (no CPU to share), so the two servers run side by side;
// on each server its statements run one after the other, as they did when the file was sequential.
describe(
  'heartbeats and progress during one long statement (activity level)',
  { timeout: 180_000, concurrency: true },
  () => {
    let workDir: string;
    let local: TargetHandle | undefined;
    let embedded: TargetHandle | undefined;
    before(async () => {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-heartbeat-'));
      local = await provisionLocal(
        { runId: `hb-${randomUUID().slice(0, 8)}`, cellKey: 'v18.16-lz4', version: '18.16', workDir },
        serverBinary(),
      );
      embedded = await provisionEmbedded({
        runId: `hb-${randomUUID().slice(0, 8)}`,
        cellKey: 'v26.7-lz4',
        version: '26.7',
        workDir,
      });
    });
    after(async () => {
      if (local) await teardownLocal(local).catch(() => undefined);
      if (embedded) await teardownEmbedded(embedded).catch(() => undefined);
      fs.rmSync(workDir, { recursive: true, force: true });
    });

    // Four sleeps in one expression over one row: read_rows stays 1 for ~12 s; nothing else moves.
    const NO_PROGRESS =
      'SELECT sleep(3) + sleep(2.99) + sleep(2.98) + sleep(2.97) + sleep(2.96) + sleep(2.95) FROM numbers(1)';

    async function stuckRun(target: TargetHandle) {
      const queryId = `hb-stuck-${randomUUID().slice(0, 8)}`;
      const t0 = Date.now();
      const out = await asActivity(() =>
        runWatched({ stuckAfterS: 3, tickMs: 1000 }, async () => {
          const c = connect(target);
          try {
            return await (await c.query({ query: NO_PROGRESS, format: 'JSONCompact', query_id: queryId })).text();
          } finally {
            await c.close();
          }
        }),
      );
      const failedAfterMs = Date.now() - t0;
      assert.ok(out.error instanceof ApplicationFailure, `fails with an ApplicationFailure, got ${String(out.error)}`);
      const f = out.error as ApplicationFailure;
      console.log(`${target.kind}: failed after ${failedAfterMs} ms: ${f.type}: ${f.message}`);
      assert.equal(f.type, 'StatementStuck');
      assert.equal(f.nonRetryable, true);
      assert.match(f.message, new RegExp(queryId));
      assert.match(f.message, /made no progress for \d+ s \(protocol\.stuckAfterS = 3\)/);
      assert.match(f.message, /rows_read 1\b/, 'says what was seen');
      // Heartbeats went on while it was judged (not stuck yet), and said so.
      assert.ok(
        out.beats.some((b) => b.d.query_id === queryId && /no progress for/.test(b.d.progress)),
        'heartbeats said the statement made no progress',
      );
      return { f, queryId, failedAfterMs };
    }

    describe('18.16', { concurrency: false }, () => {
      test('18.16: a 15 s query heartbeats below the timeout with growing rows_read (system.processes)', async () => {
        checkBeats('18.16', await protocolOnSlowQuery(local!, true));
      });

      test('18.16: a statement without progress is reported as StatementStuck and killed on the server', async () => {
        // 18.16 checks for a KILL between blocks, so this one-block statement ends (cancelled) only after
        // its sleeps; the watcher waits for that before failing the step. query_log proves it was killed.
        const { queryId } = await stuckRun(local!);
        const c = createClient({ url: local!.url, password: targetPassword(local!), log: QUIET });
        try {
          const rows = await (
            await c.query({
              query: `SELECT query_id FROM system.processes WHERE query_id = '${queryId}'`,
              format: 'JSONEachRow',
            })
          ).json();
          assert.deepEqual(rows, [], 'the stuck statement no longer runs on the server (killed)');
          await c.command({ query: 'SYSTEM FLUSH LOGS' });
          const log = await (
            await c.query({
              query: `SELECT type, exception FROM system.query_log WHERE query_id = '${queryId}' AND type != 1`,
              format: 'JSONEachRow',
            })
          ).json<{ type: string | number; exception: string }>();
          assert.ok(
            log.length === 1 && /cancelled/i.test(log[0].exception),
            `query_log shows it cancelled: ${JSON.stringify(log)}`,
          );
        } finally {
          await c.close();
        }
      });
    });

    describe('embedded', { concurrency: false }, () => {
      test('embedded: a 15 s query heartbeats below the timeout with growing rows_read (/chbench/running)', async () => {
        checkBeats('embedded', await protocolOnSlowQuery(embedded!, false));
      });

      test('embedded: StatementStuck, and the failure says what the KILL did', async () => {
        const { f, queryId } = await stuckRun(embedded!);
        // A streamed statement is cancelled between chunks (KILL QUERY accepted); a buffered one cannot be
        // interrupted by chdb and the failure says so. Either way the message tells which.
        assert.match(
          f.message,
          /KILL QUERY sent\.|not killed: .*(cannot interrupt|NOT_IMPLEMENTED|already executing)/i,
        );
        // chdb checks a cancelled stream only between chunks: this one-chunk statement runs to its end.
        // It runs to completion inside chdb: wait for it before tearing down.
        for (let i = 0; i < 60; i++) {
          const r = (await (
            await fetch(`${embedded!.url}/chbench/running`, { headers: authHeaders(embedded!) })
          ).json()) as {
            query_id: string;
          }[];
          if (!r.some((x) => x.query_id === queryId)) break;
          await new Promise((res) => setTimeout(res, 500));
        }
      });
    });
  },
);

// End to end (a cell whose query outlasts the heartbeat timeout): test/e2e/edge.test.ts, workload `edge`, query `slow`.
