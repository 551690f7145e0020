/**
 * The method of one insert grid point (`grids.insert`; the activity is `insertPoint`,
 * src/activities/insert-grid.ts): a clean table, rows generated on the server before any timing
 * (`prepareBatches`), `concurrency` closed-loop clients POSTing the ready bodies (`runInsertLoop`,
 * src/measure/insert-load.ts) while a sampler watches the table and the server, then:
 * - async inserts: the wait until the rows are visible in `count()` (the rates' window ends there);
 * - parts created: `system.part_log` NewPart rows of the table where the server keeps it, else
 *   Δ `MergeTreeDataWriterBlocks` of `system.events` (server-wide);
 * - server latency: `system.query_log` `query_duration_ms` of each INSERT where the server keeps it;
 * - verification: `count()` of the table against the rows acknowledged minus the repeats a
 *   deduplicating table drops;
 * - rates: rows/s and MB/s over the loop's wall time (or until visible), and the throttling judgement
 *   (`insertPointFlags`, src/measure/validity.ts).
 *
 * Every figure is returned with its source, as the sections of `grids/insert-<key>.json`
 * ({@link InsertPointRecord}).
 */
import { performance } from 'node:perf_hooks';
import type { ClickHouseClient } from '@clickhouse/client';
import { CancelledFailure } from '@temporalio/common';
import { queryRows, queryScalar, tryCommand } from '../clickhouse/client';
import { readEvents } from '../clickhouse/events';
import { serverDurations } from '../clickhouse/query-log';
import { renderTemplate } from '../lib/workload';
import { abortableDelay } from '../lib/poll';
import { sqlIdent, sqlString } from '../lib/sql';
import type { InsertGridSpec, InsertPoint, InsertPointSummary, LatencySummary } from '../schema/grids';
import type { InsertPointRecord, InsertSample } from '../schema/results';
import type { CodecProfile } from '../schema/run-spec';
import type { TargetHandle } from '../schema/target';
import { prepareBatches, runInsertLoop, type InsertLoopResult, type PreparedBatches } from './insert-load';
import { latencySummary } from './stats';
import { insertPointFlags } from './validity';

/** `system.events` counters read before and after a point (an event missing from the table counts 0). */
export const INSERT_EVENTS = [
  'InsertQuery',
  'FailedInsertQuery',
  'InsertedRows',
  'MergeTreeDataWriterBlocks',
  'DuplicatedInsertedBlocks',
  'DelayedInserts',
  'DelayedInsertsMilliseconds',
  'RejectedInserts',
  'AsyncInsertQuery',
  'AsyncInsertRows',
  'AsyncInsertBytes',
] as const;

type InsertEvents = Record<(typeof INSERT_EVENTS)[number], number>;

/** The point's own table: `<workload table>_ins_<key>` with every character outside `[a-z0-9_]` as `_`. Pure. */
export function pointTable(workloadTable: string, key: string): string {
  return `${workloadTable}_ins_${key.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
}

/**
 * Does the point's table deduplicate repeated INSERT blocks? Only a non-replicated MergeTree with
 * `non_replicated_deduplication_window` > 0 and the query setting `insert_deduplicate` not 0 (its
 * default is 1). Pure.
 */
export function tableDeduplicates(
  tableSettings: Record<string, string | number>,
  querySettings: Record<string, string | number>,
): boolean {
  return (
    Number(tableSettings.non_replicated_deduplication_window ?? 0) > 0 &&
    String(querySettings.insert_deduplicate ?? '1') !== '0'
  );
}

/** What {@link measureInsertPoint} needs: the point, its table and settings, and the step's hooks. */
export interface InsertPointOptions {
  /** The server (the timed loop opens its own connections to it). */
  target: TargetHandle;
  /** For the DDL, the generation, `system.events`, `count()` and the logs. */
  client: ClickHouseClient;
  /** The sampler's own connection. */
  sampler: ClickHouseClient;
  point: InsertPoint;
  grid: InsertGridSpec;
  /** The workload's name and its schema file (manifest `schema`). */
  workload: string;
  schemaFile: string;
  codec: CodecProfile;
  /** The point's table ({@link pointTable}): dropped and created first. */
  table: string;
  /** MergeTree settings of the table and query settings of every INSERT (checked already). */
  tableSettings: Record<string, string | number>;
  insertSettings: Record<string, string | number>;
  /** query_id prefix of the INSERTs (each `<prefix>-<batch index>`). */
  queryIdPrefix: string;
  /** Attempt of the activity (a retried point is flagged). */
  attempt: number;
  /** The server runs on the worker's host (the client's CPU then competes with it). */
  serverOnHost: boolean;
  /** Read server latency from `system.query_log` (the server keeps it). */
  queryLog: boolean;
  /** The server has system logs (`system.asynchronous_insert_log` may be read). */
  systemLogs: boolean;
  /** The record's path relative to the cell folder (the summary names it). */
  file: string;
  signal?: AbortSignal;
  /** Heartbeat with progress details. */
  heartbeat: (details: Record<string, unknown>) => void;
}

/** The measured sections of the point's record. */
export type InsertPointFigures = Pick<
  InsertPointRecord,
  | 'generation'
  | 'loop'
  | 'rates'
  | 'latency_ms'
  | 'latencies_ms'
  | 'parts'
  | 'samples'
  | 'events'
  | 'throttling'
  | 'async_insert'
  | 'verification'
  | 'cpu'
>;

/** What {@link measureInsertPoint} returns. */
export interface MeasuredInsertPoint {
  /** The workflow's summary (rows/s, MB/s, latency ms, errors, verified, client-bound). */
  summary: InsertPointSummary;
  /** The table's DDL as sent. */
  ddl: string;
  /** Rows generated for the point (`grid.rows`). */
  rowsPlanned: number;
  figures: InsertPointFigures;
}

/**
 * The point's record `grids/insert-<key>.json` ({@link InsertPointRecord}) from its options and what
 * {@link measureInsertPoint} measured, stamped `finished_at` now (ISO time of the worker's clock).
 * `activity` is the scheduled activity that measured it (null outside Temporal), `serverVersion`
 * the probe's `version()`, `notApplied` the profile's optional settings this version lacks.
 */
export function insertPointRecord(
  o: InsertPointOptions,
  m: MeasuredInsertPoint,
  run: { activity: InsertPointRecord['activity']; serverVersion: string; notApplied: Record<string, string> },
): InsertPointRecord {
  return {
    summary: m.summary,
    activity: run.activity,
    point: o.point,
    attempt: o.attempt,
    table: o.table,
    server_version: run.serverVersion,
    rows_planned: m.rowsPlanned,
    data: o.grid.data,
    settings_sent: { query: o.insertSettings, table: o.tableSettings, ddl: m.ddl },
    settings_not_applied: run.notApplied,
    ...m.figures,
    finished_at: new Date().toISOString(),
  };
}

/**
 * Measure one insert point (see the module comment). The table is left in place.
 * @returns the workflow's summary, the table's DDL, the rows generated and the record's sections.
 * @throws PreparedTooBig when the rows do not fit in `grid.maxBufferMiB` (src/measure/insert-load.ts);
 *   CancelledFailure when `signal` aborts; ClickHouse errors of the DDL and the generation.
 */
export async function measureInsertPoint(o: InsertPointOptions): Promise<MeasuredInsertPoint> {
  const { client, point, grid, table, signal } = o;
  const asyncRequested = String(o.insertSettings.async_insert ?? '0') === '1';
  const dedup = tableDeduplicates(o.tableSettings, o.insertSettings);

  // A clean table for this attempt.
  await client.command({ query: `DROP TABLE IF EXISTS ${sqlIdent(table)}` });
  const ddl = renderTemplate(o.workload, o.schemaFile, {
    table,
    rows: grid.rows,
    codec: o.codec,
    tableSettings: o.tableSettings,
  });
  await client.command({ query: ddl });

  // Generation, before any timing.
  o.heartbeat({ progress: `insert point ${point.key}: generating ${grid.rows} rows (${point.format})` });
  const prepared = await prepareBatches(client, {
    workload: o.workload,
    rows: grid.rows,
    batchSize: point.batchSize,
    format: point.format,
    data: grid.data,
    codec: o.codec,
    maxBytes: grid.maxBufferMiB * 2 ** 20,
    signal,
    onBatch: (k, count) =>
      o.heartbeat({ progress: `insert point ${point.key}: generated batch ${k}/${count} (${point.format})` }),
  });
  if (signal?.aborted) throw new CancelledFailure(`insert point ${point.key} cancelled`);

  const eventsBefore = await insertEvents(client);
  const t0 = performance.now();
  const sampler = startSampler(o.sampler, table, t0, grid.sampleMs, signal);
  try {
    const loop = await timedLoop(o, prepared, sampler.samples);
    // Expected rows: what was acknowledged, minus the repeats a deduplicating table drops.
    const dupRowsKnown =
      grid.data === 'repeat' && dedup && loop.inserts > 0 ? loop.rowsAcked - prepared.batchRows[0] : 0;
    const expected = loop.rowsAcked - dupRowsKnown;

    // One sample right after the loop, so the peaks include the parts the last INSERTs made.
    await sampler.once();
    const visible = await waitVisible(o, loop, expected, eventsBefore, t0, asyncRequested);
    await sampler.stop();
    const eventsAfter = await insertEvents(client);
    const events = {} as InsertEvents;
    for (const e of INSERT_EVENTS) events[e] = eventsAfter[e] - eventsBefore[e];

    const parts = await partsCreated(client, table, events.MergeTreeDataWriterBlocks);
    const server = await serverLatency(o, loop.queryIds);

    // Verification.
    const { count } = visible;
    const reasons: string[] = [];
    if (count !== expected)
      reasons.push(
        `count() ${count} != expected ${expected} (rows acknowledged ${loop.rowsAcked} − known duplicate rows ${dupRowsKnown})`,
      );
    if (loop.inserts === 0)
      reasons.push(
        `no INSERT succeeded (errors by code: ${JSON.stringify(loop.errorsByCode)}): an empty table verifies nothing`,
      );
    if (grid.data === 'distinct' && events.DuplicatedInsertedBlocks > 0)
      reasons.push(
        `data was distinct but the server counted DuplicatedInsertedBlocks +${events.DuplicatedInsertedBlocks}: blocks were dropped as duplicates`,
      );
    if (asyncRequested && count < expected)
      reasons.push(`async inserts: ${count}/${expected} rows visible after waiting ${grid.flushTimeoutMs} ms at most`);
    const verified = reasons.length === 0;

    // Delayed, rejected or retried INSERTs qualify the figure (src/measure/validity.ts).
    const judged = insertPointFlags({
      inserts: loop.inserts,
      errors: loop.errors,
      errorsByCode: loop.errorsByCode,
      deltas: events,
      attempt: o.attempt,
    });
    const latency = latencySummary(loop.latenciesMs);
    const visibleMs = visible.ms;
    const rowsPerS = visibleMs > 0 ? (loop.rowsAcked / visibleMs) * 1000 : 0;
    const mbPerS = visibleMs > 0 ? loop.bytesAcked / 1e6 / (visibleMs / 1000) : 0;
    const samples = sampler.samples;
    const mems = samples.map((s) => s.memory_bytes).filter((x): x is number => x !== null);
    const summary: InsertPointSummary = {
      key: point.key,
      rowsPerS,
      mbPerS,
      latencyMs: latency,
      inserts: loop.inserts,
      errors: loop.errors,
      verified,
      clientBound: loop.cpu.clientBound,
      delayedInserts: judged.delayed,
      delayedMs: judged.delayedMs,
      rejectedInserts: judged.rejected,
      flags: judged.reasons,
      file: o.file,
      attempt: o.attempt,
    };
    const figures: InsertPointFigures = {
      generation: {
        ms: prepared.generateMs,
        batches: prepared.batches.length,
        bytes: prepared.bytes,
        source:
          "the workload's load.sql SELECT, one numbers(offset, batch) slice per batch, FORMAT <format>, read by the worker before the timed loop",
      },
      loop: {
        concurrency: point.concurrency,
        connections: point.concurrency,
        wall_ms: loop.wallMs,
        stopped_by: loop.stoppedBy,
        inserts: loop.inserts,
        errors: loop.errors,
        errors_by_code: loop.errorsByCode,
        error_samples: loop.errorSamples,
        rows_acked: loop.rowsAcked,
        bytes_sent: loop.bytesSent,
        bytes_acked: loop.bytesAcked,
        success_rate: loop.inserts + loop.errors ? loop.inserts / (loop.inserts + loop.errors) : null,
        query_id_prefix: o.queryIdPrefix,
      },
      rates: {
        rows_per_s: rowsPerS,
        mb_per_s: mbPerS,
        window_ms: visibleMs,
        source: asyncRequested
          ? 'rows acknowledged (HTTP 200) / time from the first request until the rows were visible in count() (async inserts)'
          : 'rows acknowledged (HTTP 200) / wall time of the timed loop; MB/s = body bytes of the acknowledged INSERTs / 10^6 / s',
      },
      latency_ms: {
        client_wall: latency,
        client_wall_source: 'request written → response read, per successful INSERT (performance.now)',
        server: server.latency,
        server_source: server.source,
      },
      latencies_ms: loop.latenciesMs,
      parts: {
        created: parts.created,
        created_source: parts.source,
        per_insert: loop.inserts ? parts.created / loop.inserts : null,
        peak_active: samples.reduce((a, s) => Math.max(a, s.active_parts), 0),
        peak_merges: samples.reduce((a, s) => Math.max(a, s.merges), 0),
        peak_memory_bytes: mems.length ? Math.max(...mems) : null,
        source:
          'sampler every sampleMs: system.parts (active, this table), system.merges (this table), system.metrics MemoryTracking (server-wide)',
      },
      samples,
      events: {
        deltas: events,
        source:
          'system.events after − before the timed loop (server-wide; an event missing from system.events counts 0)',
        note: 'DuplicatedInsertedBlocks is recorded raw: on 26.7 each duplicate block is counted twice (one repeated 2-partition INSERT gave +4), so no row count is derived from it',
      },
      throttling: {
        delayed_inserts: judged.delayed,
        delayed_ms: judged.delayedMs,
        rejected_inserts: judged.rejected,
        marks: judged.marks,
        reasons: judged.reasons,
        source:
          "system.events DelayedInserts / DelayedInsertsMilliseconds / RejectedInserts deltas over the point (server-wide) and the inserter's count of code 252; attempt of the activity",
      },
      async_insert: visible.record,
      verification: {
        verified,
        count,
        expected,
        rows_acked: loop.rowsAcked,
        duplicate_rows_known: dupRowsKnown,
        table_deduplicates: dedup,
        duplicated_inserted_blocks: events.DuplicatedInsertedBlocks,
        reasons,
        source: 'SELECT count() of the point table after the loop (and the async wait)',
      },
      cpu: loop.cpu,
    };
    return { summary, ddl, rowsPlanned: prepared.rows, figures };
  } finally {
    await sampler.stop();
  }
}

/** The {@link INSERT_EVENTS} from `system.events`, an event the table does not list as 0. */
async function insertEvents(client: ClickHouseClient): Promise<InsertEvents> {
  const listed = await readEvents(client, INSERT_EVENTS);
  const out = {} as InsertEvents;
  for (const e of INSERT_EVENTS) out[e] = listed[e] ?? 0;
  return out;
}

/** One sample of the table and the server: active parts, merges running, `MemoryTracking`. */
async function sampleServer(client: ClickHouseClient, table: string, t0: number): Promise<InsertSample> {
  const [r] = await queryRows<{ parts: string; merges: string; memory: (string | number)[] }>(
    client,
    `SELECT (SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = ${sqlString(table)} AND active) AS parts, ` +
      `(SELECT count() FROM system.merges WHERE database = currentDatabase() AND table = ${sqlString(table)}) AS merges, ` +
      `(SELECT groupArray(value) FROM system.metrics WHERE metric = 'MemoryTracking') AS memory`,
  );
  return {
    t_ms: Math.round(performance.now() - t0),
    active_parts: Number(r.parts),
    merges: Number(r.merges),
    memory_bytes: r.memory.length ? Number(r.memory[0]) : null,
  };
}

/**
 * Sample every `sampleMs` until stopped (a failed sample is a gap in the series, not a failed
 * point); `once()` adds one sample now; `stop()` ends the loop and waits for it (idempotent).
 */
function startSampler(client: ClickHouseClient, table: string, t0: number, sampleMs: number, signal?: AbortSignal) {
  const samples: InsertSample[] = [];
  let sampling = true;
  const take = async () => {
    try {
      samples.push(await sampleServer(client, table, t0));
    } catch {
      /* a failed sample is a gap in the series */
    }
  };
  const done = (async () => {
    while (sampling) {
      await take();
      await abortableDelay(sampleMs, signal).catch(() => undefined);
      if (signal?.aborted) return;
    }
  })();
  return {
    samples,
    once: take,
    stop: async () => {
      sampling = false;
      await done;
    },
  };
}

/** The timed loop, heartbeating about every second with the rows acknowledged and the last sample. */
async function timedLoop(
  o: InsertPointOptions,
  prepared: PreparedBatches,
  samples: readonly InsertSample[],
): Promise<InsertLoopResult> {
  let lastBeat = 0;
  const beat = (p: { rowsAcked: number; inserts: number; errors: number }) => {
    const now = performance.now();
    if (now - lastBeat < 1000) return;
    lastBeat = now;
    const last = samples[samples.length - 1];
    o.heartbeat({
      written_rows: p.rowsAcked,
      ...(last ? { active_parts: last.active_parts, merges: last.merges } : {}),
      progress: `insert point ${o.point.key}: ${p.rowsAcked}/${prepared.rows} rows acknowledged, ${p.inserts} inserts, ${p.errors} errors`,
    });
  };
  let current = { rowsAcked: 0, inserts: 0, errors: 0 };
  const ticker = setInterval(() => beat(current), 1000);
  let loop: InsertLoopResult;
  try {
    loop = await runInsertLoop(o.target, {
      table: o.table,
      database: o.target.database,
      prepared,
      concurrency: o.point.concurrency,
      maxConnections: o.grid.maxConnections,
      settings: o.insertSettings,
      durationS: o.grid.durationS,
      queryIdPrefix: o.queryIdPrefix,
      signal: o.signal,
      serverOnHost: o.serverOnHost,
      onProgress: (p) => {
        current = p;
        beat(p);
      },
    });
  } finally {
    clearInterval(ticker);
  }
  if (loop.stoppedBy === 'cancelled') throw new CancelledFailure(`insert point ${o.point.key} cancelled`);
  return loop;
}

/**
 * `count()` of the table and the rates' window. Async inserts: rows may land after the responses, so
 * after `SYSTEM FLUSH ASYNC INSERT QUEUE` it waits until `expected` rows are visible, the count stops
 * changing for 5 s, or `flushTimeoutMs`; the window then ends when they were visible. A count already
 * complete when the loop ended keeps the loop's time.
 */
async function waitVisible(
  o: InsertPointOptions,
  loop: InsertLoopResult,
  expected: number,
  eventsBefore: InsertEvents,
  t0: number,
  asyncRequested: boolean,
): Promise<{ count: number; ms: number; record: InsertPointRecord['async_insert'] }> {
  const { client, table } = o;
  const countRows = async () => Number(await queryScalar(client, `SELECT count() FROM ${sqlIdent(table)}`));
  const eventsMid = asyncRequested ? await insertEvents(client) : undefined;
  const record: InsertPointRecord['async_insert'] = { requested: asyncRequested };
  let visibleMs = loop.wallMs;
  let count = await countRows();
  if (!asyncRequested) return { count, ms: visibleMs, record };
  // Every row already visible when the loop ended: the loop's time stands (no flush wait to add).
  const visibleAtEnd = count >= expected;
  record.flush = await tryCommand(client, 'SYSTEM FLUSH ASYNC INSERT QUEUE');
  const waitStart = performance.now();
  let lastChange = waitStart;
  let prev = count;
  while (count < expected && performance.now() - waitStart < o.grid.flushTimeoutMs) {
    o.heartbeat({
      progress: `insert point ${o.point.key}: waiting for async inserts (${count}/${expected} rows visible)`,
    });
    await abortableDelay(100, o.signal);
    count = await countRows();
    if (count !== prev) [prev, lastChange] = [count, performance.now()];
    else if (performance.now() - lastChange > 5000) break;
  }
  if (!visibleAtEnd) visibleMs = Math.max(loop.wallMs, (count >= expected ? performance.now() : lastChange) - t0);
  record.waited_ms = performance.now() - waitStart;
  record.visible_after_ms = visibleMs;
  const asyncQueries = (eventsMid?.AsyncInsertQuery ?? 0) - eventsBefore.AsyncInsertQuery;
  record.async_insert_query_delta = asyncQueries;
  record.effective = asyncQueries > 0 ? 'asynchronous' : 'synchronous';
  record.note =
    asyncQueries > 0
      ? `async_insert=1 requested; the server queued ${asyncQueries} inserts asynchronously (system.events AsyncInsertQuery +${asyncQueries}); rows/s counts until the rows were visible in count()`
      : `async_insert=1 requested; the server ran the inserts synchronously (system.events AsyncInsertQuery +0)`;
  if (o.systemLogs) {
    // system.asynchronous_insert_log, where the server has it.
    try {
      await client.command({ query: 'SYSTEM FLUSH LOGS' });
      record.asynchronous_insert_log = await queryRows<{ status: string; flushes: string; rows: string }>(
        client,
        `SELECT status, count() AS flushes, sum(rows) AS rows FROM system.asynchronous_insert_log WHERE database = currentDatabase() AND table = ${sqlString(table)} AND event_date >= yesterday() GROUP BY status`,
      );
    } catch (e) {
      record.asynchronous_insert_log = `not available: ${(e as Error).message.split('\n')[0].slice(0, 200)}`;
    }
  } else record.asynchronous_insert_log = 'not available (no system logs on this server)';
  return { count, ms: visibleMs, record };
}

/**
 * Parts the INSERTs created: `system.part_log` NewPart rows of the table, tried whatever the probe
 * said (a server creates system.part_log at its first flush, which on a fresh server comes after the
 * probe; 18.16 then lists it only once a part was written), else `writerBlocks` (Δ
 * MergeTreeDataWriterBlocks, server-wide: system log flushes count too).
 */
async function partsCreated(
  client: ClickHouseClient,
  table: string,
  writerBlocks: number,
): Promise<{ created: number; source: string }> {
  try {
    await client.command({ query: 'SYSTEM FLUSH LOGS' });
    const created = Number(
      await queryScalar(
        client,
        `SELECT count() FROM system.part_log WHERE event_date >= yesterday() AND database = currentDatabase() AND table = ${sqlString(table)} AND toString(event_type) IN ('NewPart', 'NEW_PART')`,
      ),
    );
    // The Enum value is `NewPart` on newer servers, `NEW_PART` on 18.16 (checked).
    return { created, source: "system.part_log rows of the point's table with event_type NewPart (NEW_PART on 18.16)" };
  } catch {
    return {
      created: writerBlocks,
      source: 'system.events MergeTreeDataWriterBlocks delta (server-wide: includes system log tables)',
    };
  }
}

/** Server-side latency of the INSERTs (`query_duration_ms`, whole ms), where the server keeps query_log. */
async function serverLatency(
  o: InsertPointOptions,
  queryIds: string[],
): Promise<{ latency: LatencySummary | null; source: string }> {
  if (!o.queryLog) return { latency: null, source: 'not available: the server keeps no system.query_log' };
  try {
    const durations = queryIds.length
      ? await serverDurations(o.client, o.queryIdPrefix, new Set(queryIds), { wholeMs: true })
      : new Map();
    return {
      latency: latencySummary([...durations.values()].map((d) => d.ms)),
      source: 'system.query_log query_duration_ms of the QueryFinish rows, by query_id',
    };
  } catch (e) {
    return { latency: null, source: `not available: ${(e as Error).message.split('\n')[0].slice(0, 200)}` };
  }
}
