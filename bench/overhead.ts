/**
 * `npm run bench:overhead`: what chbench itself adds to the figures it reports, measured in one run
 * on the same engine (the embedded target), written to `bench/results/overhead.json`.
 *
 * 1. Measurement overhead per query run: chbench's `runMeasured` (the function the query step uses)
 *    against a plain `@clickhouse/client` loop running the same SQL with the same settings and
 *    format, interleaved run by run on one client. Overhead = median chbench wall time − median plain
 *    wall time (ms), per query and overall. Target: < 1 ms.
 * 2. Orchestration overhead per activity, from a real workflow history (real dev server, real worker):
 *    schedule→start (ActivityTaskStarted − ActivityTaskScheduled) plus completion→next command (the
 *    next ActivityTaskScheduled − ActivityTaskCompleted). Target: median < 50 ms.
 */
import { stopResultsDbsStartedHere } from '../src/results/db';
import { mkdtempSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { median, quantile } from 'simple-statistics';
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { provisionEmbedded, teardownEmbedded } from '../src/targets/embedded';
import { connect, runMeasured } from '../src/clickhouse/client';
import { loadWorkload, workloadQueries, renderTemplate } from '../src/lib/workload';
import { resultCacheSettings } from '../src/measure/cold-cycle';
import { startDevServer } from '../src/temporal/dev-server';
import { createWorker, installRuntime } from '../src/worker';
import { REPO_ROOT } from '../src/config';

const ROWS = Number(process.env.BENCH_ROWS ?? 500_000);
const ITER = Number(process.env.BENCH_ITERATIONS ?? 60);

async function measurementOverhead(tmp: string) {
  const target = await provisionEmbedded({
    runId: 'bench-overhead',
    cellKey: 'v26.7-lz4',
    version: '26.7',
    workDir: tmp,
  });
  const client = connect(target);
  try {
    const m = loadWorkload('logs');
    const v = { table: m.table, rows: ROWS, codec: 'LZ4' as const };
    await client.command({ query: renderTemplate('logs', m.schema, v) });
    await client.command({
      query: renderTemplate('logs', m.load, v),
      clickhouse_settings: m.loadSettings as Record<string, number>,
    });
    const settings = { max_execution_time: 3600, ...(await resultCacheSettings(client)) };
    const perQuery: Record<
      string,
      { plain_median_ms: number; chbench_median_ms: number; overhead_ms: number; iterations: number }
    > = {};
    const diffs: number[] = [];
    for (const q of workloadQueries(m, v)) {
      const plain: number[] = [];
      const ours: number[] = [];
      for (let i = 0; i < 3; i++) await runMeasured(client, q.sql, `bench-warmup-${q.id}-${i}-${Date.now()}`, settings);
      const plainRun = async (i: number) => {
        const t0 = performance.now();
        const rs = await client.query({
          query: q.sql,
          format: 'JSONCompact',
          query_id: `bench-plain-${q.id}-${i}-${Date.now()}`,
          clickhouse_settings: settings,
        });
        await rs.text();
        plain.push(performance.now() - t0);
      };
      const ourRun = async (i: number) => {
        const r = await runMeasured(client, q.sql, `bench-chbench-${q.id}-${i}-${Date.now()}`, settings);
        ours.push(r.wall_ms);
      };
      // Alternate which goes first, so neither always runs right after the other.
      for (let i = 0; i < ITER; i++) {
        if (i % 2) {
          await plainRun(i);
          await ourRun(i);
        } else {
          await ourRun(i);
          await plainRun(i);
        }
      }
      const o = median(ours) - median(plain);
      perQuery[q.id] = {
        plain_median_ms: median(plain),
        chbench_median_ms: median(ours),
        overhead_ms: o,
        iterations: ITER,
      };
      diffs.push(o);
    }
    return {
      rows: ROWS,
      per_query: perQuery,
      measurement_overhead_ms_median: median(diffs),
      measurement_overhead_ms_max: Math.max(...diffs),
    };
  } finally {
    await client.close();
    await teardownEmbedded(target);
  }
}

function ms(t?: temporal.api.history.v1.IHistoryEvent | null): number {
  const ts = t?.eventTime;
  return ts ? Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6) : NaN;
}

async function activityOverhead(tmp: string) {
  const server = await startDevServer();
  const taskQueue = 'chbench-bench';
  const { worker, connection: wconn } = await createWorker({
    temporalAddress: server.address,
    namespace: 'default',
    taskQueue,
    workDir: path.join(tmp, 'targets'),
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection });
    const runId = `bench-${Date.now()}`;
    await client.workflow.execute('benchmarkMatrix', {
      taskQueue,
      workflowId: runId,
      args: [
        {
          name: 'bench',
          workload: 'logs',
          scale: 100_000,
          target: { kind: 'embedded' },
          matrix: { version: ['26.7'], codec: ['LZ4'] },
          resultsDir: path.join(tmp, 'results'),
          protocol: { warmRuns: 1, quiesce: { stableForMs: 0 } },
        },
      ],
    });
    const hist = await client.workflow.getHandle(`${runId}/v26.7-lz4`).fetchHistory();
    const ev = hist.events ?? [];
    const rows: {
      activity: string;
      schedule_to_start_ms: number;
      completion_to_next_command_ms: number;
      total_ms: number;
    }[] = [];
    for (let i = 0; i < ev.length; i++) {
      const s = ev[i].activityTaskScheduledEventAttributes;
      if (!s) continue;
      const id = Number(ev[i].eventId);
      const started = ev.find((e) => Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === id);
      const completedIdx = ev.findIndex((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === id);
      const next = ev
        .slice(completedIdx + 1)
        .find((e) => e.activityTaskScheduledEventAttributes || e.workflowExecutionCompletedEventAttributes);
      if (!started || completedIdx < 0 || !next) continue;
      const a = ms(started) - ms(ev[i]);
      const b = ms(next) - ms(ev[completedIdx]);
      rows.push({
        activity: s.activityType!.name!,
        schedule_to_start_ms: a,
        completion_to_next_command_ms: b,
        total_ms: a + b,
      });
    }
    return {
      per_activity: rows,
      activity_overhead_ms_median: median(rows.map((r) => r.total_ms)),
      activity_overhead_ms_p90: quantile(
        rows.map((r) => r.total_ms),
        0.9,
      ),
      source: 'event times of the benchmarkCell workflow history (server clock, ms resolution)',
    };
  } finally {
    worker.shutdown();
    await running;
    await wconn.close();
    await connection.close();
    await server.stop();
    await stopResultsDbsStartedHere();
  }
}

async function main() {
  installRuntime('WARN');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-bench-'));
  try {
    const meas = await measurementOverhead(tmp);
    const act = await activityOverhead(tmp);
    const out = {
      measured_at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, memory_bytes: os.totalmem(), node: process.version },
      engine: 'embedded (chdb 3.4.0, ClickHouse 26.7) in a separate process',
      measurement_overhead_ms_median: meas.measurement_overhead_ms_median,
      activity_overhead_ms_median: act.activity_overhead_ms_median,
      targets: { measurement_overhead_ms_median: '< 1', activity_overhead_ms_median: '< 50' },
      measurement: meas,
      orchestration: act,
    };
    const file = path.join(REPO_ROOT, 'bench', 'results', 'overhead.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
    console.log(
      `measurement overhead median ${meas.measurement_overhead_ms_median.toFixed(3)} ms per query run; activity overhead median ${act.activity_overhead_ms_median.toFixed(1)} ms`,
    );
    console.log(file);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
