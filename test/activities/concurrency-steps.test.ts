/**
 * Activity layer: concurrency stepping (`concurrencyStep`, src/activities/concurrency-steps.ts, built
 * by `createActivities`, so with the statement watcher and the cell-step wrapper the worker uses) on
 * two real servers, each run in a `MockActivityEnvironment`:
 * - the embedded engine (chdb, one statement at a time behind a mutex; no query_log): the `logs`
 *   workload at 200 k rows, steps 1, 2, 4 — latency is client wall time, and with a mutex the wall P50
 *   grows with the clients while QPS does not grow with them;
 * - Debian's clickhouse-server 18.16 (the local target): `logs-legacy` at 200 k rows, steps 1, 2, 4 —
 *   latency comes from `system.query_log`, never above the client's wall time.
 * The engine (src/measure/closed-loop.ts) is also driven directly: a failing query's errors are
 * counted by ClickHouse code, a dead port's by the socket error, and a rerun picks the same queries.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { CancelledFailure } from '@temporalio/common';
import { createActivities } from '../../src/activities';
import { connect, queryRows } from '../../src/clickhouse/client';
import { loadWorkload, renderTemplate } from '../../src/lib/workload';
import { freePort } from '../../src/lib/net';
import { cellDir, readJson, writeJsonAtomic } from '../../src/results/store';
import { parseRunSpec } from '../../src/schema/run-spec';
import { runClosedLoop, type ClosedLoopResult } from '../../src/measure/closed-loop';
import type { CellInput, StepInput } from '../../src/schema/cell';
import type { ConcurrencyStepInput, ConcurrencyStepSummary } from '../../src/schema/grids';
import type { TargetHandle } from '../../src/schema/target';
import type { ConcurrencyStepRecord } from '../../src/schema/results';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { provisionLocal, teardownLocal } from '../../src/targets/local';
import { startActivity } from '../helpers/activity-env';
import { concurrencyTable } from '../../src/results/report-grids';

const ROWS = 200_000;
/** Largest gap allowed between two heartbeats of a step: half the cell steps' 10 s heartbeat timeout. */
const HEARTBEAT_GAP_MS = 5_000;
const MIX = [
  { id: 'q1', weight: 2 },
  { id: 'q2', weight: 1 },
  { id: 'q4', weight: 1 },
];
const DURATION_S = 2;
const WARMUP_S = 0.5;
const SERVER_BINARY = ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((p) => fs.existsSync(p));

/** One server of the test: its handle, the cell around it, and the steps it measured. */
interface Server {
  target: TargetHandle;
  si: StepInput;
  steps: ConcurrencyStepSummary[];
}

let tmp: string;
let acts: ReturnType<typeof createActivities>;
const runId = `conc-${randomUUID().slice(0, 8)}`;

/**
 * Load `workload` at {@link ROWS} rows and write the cell's `provision.json` / `settings.json` as the
 * provision step would (only the fields `concurrencyStep` reads: `server.query_log`, `runs`).
 */
async function prepareCell(
  target: TargetHandle,
  workload: string,
  version: string,
  queryLog: boolean,
  tableSettings: Record<string, string | number>,
): Promise<StepInput> {
  const m = loadWorkload(workload);
  const c = connect(target);
  try {
    const v = { table: m.table, rows: ROWS, codec: 'LZ4' as const, tableSettings };
    await c.command({ query: renderTemplate(workload, m.schema, v) });
    await c.command({ query: renderTemplate(workload, m.load, v) });
  } finally {
    await c.close();
  }
  const spec = parseRunSpec({
    name: 'conc',
    workload,
    scale: ROWS,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    resultsDir: path.join(tmp, 'results'),
  });
  const cell: CellInput = {
    runId,
    cellKey: target.cellKey,
    version,
    codec: 'LZ4',
    workload,
    scale: ROWS,
    skipIndex: false,
    protocol: spec.protocol,
    target: spec.target,
    teardown: 'always',
    resultsDir: spec.resultsDir,
  };
  const dir = cellDir(cell.resultsDir, runId, cell.cellKey);
  writeJsonAtomic(path.join(dir, 'provision.json'), {
    server: { query_log: queryLog ? 'available' : 'not available' },
  });
  writeJsonAtomic(path.join(dir, 'settings.json'), {
    load: {},
    runs: { max_threads: 1 },
    table: {},
    not_applied: {},
    problems: [],
  });
  return { cell, target };
}

/** Run steps 1, 2, 4 through the activity; check what every step must hold. */
async function runSteps(s: Server, label: string): Promise<void> {
  for (const [i, clients] of [1, 2, 4].entries()) {
    const step: ConcurrencyStepInput = { clients, n: i + 1, mix: MIX, durationS: DURATION_S, warmupS: WARMUP_S };
    const a = startActivity(acts.concurrencyStep, s.si, step);
    const sum = await a.result;
    s.steps.push(sum);
    console.log(
      `${label} c${clients}: qps ${sum.qps.toFixed(1)}, requests ${sum.requests}, errors ${sum.errors}, ` +
        `P50/P99 ${sum.latencyMs.p50?.toFixed(2)}/${sum.latencyMs.p99?.toFixed(2)} ms (${sum.latencySource}), ` +
        `wall P50/P99 ${sum.wallLatencyMs.p50?.toFixed(2)}/${sum.wallLatencyMs.p99?.toFixed(2)} ms, client-bound ${sum.clientBound}`,
    );
    assert.equal(sum.clients, clients);
    assert.equal(sum.attempt, 1);
    assert.ok(sum.requests > 0, 'requests were counted');
    assert.equal(sum.errors, 0, JSON.stringify(sum.errorsByCode));
    // QPS counts the successful completions inside the window over its measured length: at most
    // `clients` more (carried in from the warm-up) or fewer (in flight at its end) than the requests.
    assert.ok(sum.windowMs! >= DURATION_S * 1000 * 0.95, `window ${sum.windowMs} ms`);
    const inWindow = Math.round((sum.qps * sum.windowMs!) / 1000);
    assert.ok(
      inWindow <= sum.requests + clients && inWindow >= sum.requests - clients,
      `qps × window ${inWindow} vs requests ${sum.requests}`,
    );
    assert.equal(sum.wallLatencyMs.count, sum.requests);
    assert.equal(sum.file, `grids/concurrency-c${clients}.json`);
    // The step heartbeated with its progress (the engine reports every second).
    const mine = a.beats.filter((b) => b.d.step === `concurrency-c${clients}`);
    assert.ok(mine.length >= 2, `${mine.length} heartbeats of the step`);
    const gaps = mine.slice(1).map((b, j) => b.at - mine[j].at);
    // The engine reports every second; half the 10 s heartbeat timeout leaves room for a loaded machine.
    assert.ok(Math.max(...gaps) <= HEARTBEAT_GAP_MS, `heartbeat gaps ${gaps.join(', ')} ms`);

    const rec = readJson<ConcurrencyStepRecord>(
      path.join(cellDir(s.si.cell.resultsDir, runId, s.si.cell.cellKey), sum.file),
    );
    assert.deepEqual(rec.step, step);
    assert.equal(rec.samples.length, sum.requests);
    // The cell's run settings, the time limit and (where the version has them) the result caches off, as the measured runs.
    assert.equal(rec.settings.max_threads, 1);
    assert.equal(rec.settings.max_execution_time, 3600);
    if (label === 'embedded')
      assert.deepEqual([rec.settings.use_query_cache, rec.settings.use_query_condition_cache], [0, 0]);
    else assert.equal(rec.settings.use_query_cache, undefined, '18.16 has no query cache');
    assert.equal(
      Object.values(rec.queries).reduce((a, q) => a + q.requests, 0),
      sum.requests,
    );
    // Every mix entry was picked (weights 2:1:1 over hundreds of requests).
    for (const { id } of MIX) assert.ok(rec.queries[id].requests > 0, `${id} was sent`);
    assert.ok(rec.samples.every((x) => x.queryId.startsWith(`${rec.query_id_prefix}-`) && x.queryId.endsWith('-a1')));
    assert.match(rec.query_id_prefix, new RegExp(`-conc-c${clients}$`));
    assert.ok(rec.cpu && rec.cpu.wallMs >= DURATION_S * 1000 * 0.9, `cpu over the window: ${rec.cpu?.wallMs} ms`);
    assert.match(rec.definitions.qps, /successful requests that completed inside the measured window/);
    assert.equal(rec.window.ms, sum.windowMs);
    assert.equal(rec.window.completed, inWindow);
    assert.equal(rec.window.flag, null, 'a 2 s window is many latencies long');
    assert.equal(sum.windowFlag, null);
  }
}

describe('concurrency stepping at the activity level', { timeout: 120_000 }, () => {
  const embedded = {} as Server;
  const local = {} as Server;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-conc-'));
    const workDir = path.join(tmp, 'targets');
    acts = createActivities({ workDir, temporalAddress: '127.0.0.1:1', namespace: 'default' });
    assert.ok(SERVER_BINARY, 'Debian clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse');
    const [e, l] = await Promise.all([
      provisionEmbedded({ runId, cellKey: 'v26.7-lz4', version: '26.7', workDir }),
      provisionLocal({ runId, cellKey: 'v18.16-lz4', version: '18.16', workDir }, SERVER_BINARY),
    ]);
    Object.assign(embedded, { target: e, steps: [] });
    Object.assign(local, { target: l, steps: [] });
    // 18.16 has no min_bytes_for_wide_part: the table gets no settings there.
    embedded.si = await prepareCell(e, 'logs', '26.7', false, { min_bytes_for_wide_part: 0 });
    local.si = await prepareCell(l, 'logs-legacy', '18.16', true, {});
  });

  after(async () => {
    if (embedded.target) await teardownEmbedded(embedded.target).catch(() => undefined);
    if (local.target) await teardownLocal(local.target).catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('embedded engine: client wall latency; the mutex makes P50 grow with clients, not QPS', async () => {
    await runSteps(embedded, 'embedded');
    const [c1, , c4] = embedded.steps;
    for (const s of embedded.steps) {
      assert.equal(s.latencySource, 'client wall');
      assert.deepEqual(s.latencyMs, s.wallLatencyMs);
    }
    // One statement at a time: a request spends part of its time outside the mutex (HTTP, the
    // server's own work), so 2 clients can still overlap those parts; beyond that the mutex is the
    // bottleneck. Closed loop (Little's law: clients = QPS × latency): 4 clients get far less than
    // 4× the QPS, and the wall latency grows instead. Seen on a shared 2-core machine: QPS 54 → 112,
    // P50 16 → 30 ms.
    assert.ok(c4.qps < 3 * c1.qps, `QPS ${c1.qps} → ${c4.qps}: not ~linear in the clients`);
    assert.ok(
      c4.wallLatencyMs.p50! > 1.5 * c1.wallLatencyMs.p50!,
      `P50 ${c1.wallLatencyMs.p50} → ${c4.wallLatencyMs.p50}`,
    );
  });

  test('clickhouse-server 18.16: server latency from query_log, never above the wall latency', async () => {
    await runSteps(local, '18.16');
    for (const s of local.steps) {
      assert.equal(s.latencySource, 'query_log');
      assert.ok(
        s.latencyMs.p50! <= s.wallLatencyMs.p50! && s.latencyMs.p99! <= s.wallLatencyMs.p99!,
        JSON.stringify(s),
      );
      const rec = readJson<ConcurrencyStepRecord>(
        path.join(cellDir(local.si.cell.resultsDir, runId, local.si.cell.cellKey), s.file),
      );
      assert.equal(rec.query_log.source, 'system.query_log.query_duration_ms');
      assert.equal(rec.query_log.missing, 0);
      assert.equal(s.latencyMs.count, s.requests);
      // query_duration_ms is whole milliseconds (truncated): each is within the request's wall time.
      for (const x of rec.samples) assert.ok(x.serverMs !== null && x.serverMs <= x.wallMs + 1, JSON.stringify(x));
      // The cell's run settings reached the server with every request (query_log's Settings of one).
      const c = connect(local.target);
      try {
        const rows = await queryRows<{ v: string }>(
          c,
          `SELECT Settings.Values[indexOf(Settings.Names, 'max_threads')] AS v FROM system.query_log WHERE type = 2 AND query_id = '${rec.samples[0].queryId}'`,
        );
        assert.deepEqual(rows, [{ v: '1' }]);
      } finally {
        await c.close();
      }
    }
  });

  test('a query slower than the heartbeat timeout (15 s of sleepEachRow on 18.16): the step heartbeats throughout and counts it', async () => {
    const si = await prepareCell(local.target, 'edge', '18.16', true, {});
    const step: ConcurrencyStepInput = { clients: 1, n: 1, mix: [{ id: 'slow', weight: 1 }], durationS: 1, warmupS: 0 };
    const a = startActivity(acts.concurrencyStep, si, step);
    const sum = await a.result;
    assert.equal(sum.requests, 1, 'the one request that started in the window is counted');
    assert.equal(sum.errors, 0, JSON.stringify(sum.errorsByCode));
    assert.equal(sum.latencySource, 'query_log');
    assert.ok(sum.latencyMs.p50! >= 14_000, `server-side ${sum.latencyMs.p50} ms`);
    assert.ok(sum.wallLatencyMs.p50! >= sum.latencyMs.p50!, 'wall ≥ server');
    // It finished after the window: QPS counts completions inside it.
    assert.equal(sum.qps, 0);
    // A 1 s window against a 15 s median latency: flagged, in the summary, the record and the report.
    assert.match(sum.windowFlag ?? '', /^window 1\.\d\d s < 3 × median latency 1[5-9]\.\d\d s/);
    const rec = readJson<ConcurrencyStepRecord>(
      path.join(cellDir(si.cell.resultsDir, runId, si.cell.cellKey), sum.file),
    );
    assert.equal(rec.window.flag, sum.windowFlag);
    const row = concurrencyTable([rec as unknown as Parameters<typeof concurrencyTable>[0][number]]).rows[0];
    assert.match(row[1], /^0\.0 ⚠ short window$/);
    const mine = a.beats.filter((b) => b.d.step === 'concurrency-c1');
    const gaps = mine.slice(1).map((b, j) => b.at - mine[j].at);
    assert.ok(
      mine.length >= 3 && Math.max(...gaps) <= HEARTBEAT_GAP_MS,
      `${mine.length} heartbeats, gaps ${gaps.join(', ')} ms`,
    );
  });

  test('a retry re-measures the step and overwrites its record; cancel ends it without a record', async () => {
    const step: ConcurrencyStepInput = { clients: 2, n: 9, mix: MIX, durationS: 30, warmupS: 0 };
    const dir = cellDir(embedded.si.cell.resultsDir, runId, embedded.si.cell.cellKey);
    const file = path.join(dir, 'grids/concurrency-c2.json');
    const before = fs.statSync(file).mtimeMs; // written by the 2-client step above
    const a = startActivity(acts.concurrencyStep, embedded.si, step);
    await new Promise((r) => setTimeout(r, 1_000));
    const t0 = Date.now();
    a.cancel();
    const out = await a.settled;
    assert.ok(
      !out.ok && out.error instanceof CancelledFailure,
      `cancelled, got ${out.ok ? 'a result' : String(out.error)}`,
    );
    assert.ok(Date.now() - t0 < 5_000, `ended ${Date.now() - t0} ms after the cancel`);
    assert.equal(fs.statSync(file).mtimeMs, before, 'the cancelled step wrote no record');
    const again = await startActivity(acts.concurrencyStep, embedded.si, { ...step, durationS: 1 }).result;
    assert.ok(again.requests > 0);
    const rec = readJson<ConcurrencyStepRecord>(path.join(dir, again.file));
    assert.equal(rec.step.durationS, 1, 'the record is the rerun’s');
    assert.ok(fs.statSync(path.join(dir, again.file)).mtimeMs > before);
  });

  test("QPS ≈ clients ÷ latency (Little's law) on 18.16 with sleep(0.5): completions in the measured window count", async () => {
    // 8 closed-loop clients of a 0.5 s query: 16 QPS. The window [0.25 s, 2.25 s] holds 4 completions
    // per client (0.5, 1.0, 1.5, 2.0 s); counting only requests that start AND end inside it keeps 3 (12 QPS).
    const clients = 8;
    const r = await runClosedLoop({
      target: local.target,
      clients,
      mix: [{ id: 'sleep', sql: 'SELECT sleep(0.5)', weight: 1 }],
      warmupS: 0.25,
      durationS: 2,
      seed: 'little',
      queryIdPrefix: `chb-little-${randomUUID().slice(0, 6)}`,
    });
    assert.equal(r.errors, 0, JSON.stringify(r.samples.find((x) => !x.ok)));
    const ok = r.samples.filter((x) => x.ok);
    const meanS = ok.reduce((a, x) => a + x.wallMs, 0) / ok.length / 1000;
    const little = clients / meanS;
    assert.ok(meanS >= 0.5 && meanS < 0.7, `mean latency ${meanS} s`);
    assert.ok(Math.abs(r.qps / little - 1) < 0.1, `QPS ${r.qps} vs Little's law ${little}`);
    console.log(
      `18.16 sleep(0.5) × ${clients} clients: QPS ${r.qps.toFixed(2)} over a ${r.windowMs.toFixed(0)} ms window (${r.completedInWindow} completions, ${r.carriedIn} carried in), clients ÷ mean latency ${little.toFixed(2)} (mean ${(meanS * 1000).toFixed(0)} ms)`,
    );
    // The denominator is the measured window, and it is the one the two instants on record span.
    assert.ok(Math.abs(r.windowMs - 2000) < 200, `window ${r.windowMs} ms`);
    assert.equal(r.qps, r.completedInWindow / (r.windowMs / 1000));
    const isoMs = Date.parse(r.windowEndAt) - Date.parse(r.windowStartAt);
    assert.ok(Math.abs(isoMs - r.windowMs) <= 2, `ISO span ${isoMs} vs window ${r.windowMs}`);
  });

  test('engine: errors counted by ClickHouse code and by socket error; the same seed picks the same queries', async () => {
    const mix = [
      { id: 'bad', sql: 'SELECT no_such_column FROM logs', weight: 1 },
      { id: 'ok', sql: 'SELECT count() FROM logs', weight: 1 },
    ];
    const run = (t: TargetHandle, seed = 'seed-1'): Promise<ClosedLoopResult> =>
      runClosedLoop({
        target: t,
        clients: 2,
        mix,
        warmupS: 0.2,
        durationS: 1,
        seed,
        queryIdPrefix: `chb-test-${randomUUID().slice(0, 6)}`,
      });
    for (const s of [embedded, local]) {
      const r = await run(s.target);
      const bad = r.samples.filter((x) => x.query === 'bad');
      assert.ok(bad.length > 0 && r.ok > 0, `${s.target.kind}: ${bad.length} bad, ${r.ok} ok`);
      // Code 47: UNKNOWN_IDENTIFIER on 26.x and 18.16 alike.
      assert.ok(
        bad.every((x) => !x.ok && x.code === '47'),
        JSON.stringify(bad[0]),
      );
      assert.match(bad[0].message!, /no_such_column/);
      assert.ok(r.samples.filter((x) => x.query === 'ok').every((x) => x.ok));
      assert.equal(r.errors, bad.length);
      console.log(
        `${s.target.kind} error mix: requests ${r.requests}, errors ${r.errors} (code 47), qps ${r.qps.toFixed(1)}`,
      );
    }
    // The same seed: request n of client k is the same query in both runs.
    const [a, b] = [await run(embedded.target, 'same'), await run(embedded.target, 'same')];
    const seq = (r: ClosedLoopResult) => new Map(r.samples.map((x) => [/k\d+r\d+$/.exec(x.queryId)![0], x.query]));
    const [sa, sb] = [seq(a), seq(b)];
    const common = [...sa.keys()].filter((k) => sb.has(k));
    assert.ok(common.length >= 10, `${common.length} requests in common`);
    for (const k of common) assert.equal(sa.get(k), sb.get(k), k);

    // Nothing listens: every request fails with the socket error, named.
    const dead = { ...embedded.target, url: `http://127.0.0.1:${await freePort()}` };
    const r = await runClosedLoop({
      target: dead,
      clients: 2,
      mix,
      warmupS: 0,
      durationS: 0.5,
      seed: 'x',
      queryIdPrefix: 'chb-dead',
    });
    assert.ok(r.requests > 0 && r.errors === r.requests && r.qps === 0);
    assert.ok(
      r.samples.every((x) => x.code === 'client:ECONNREFUSED'),
      JSON.stringify(r.samples[0]),
    );
  });
});
