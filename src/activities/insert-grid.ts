/**
 * insertPoint: one point of the insert grid (`grids.insert`) as its own durable activity. The point gets its
 * own table, generates its rows on the server before any timing, then `concurrency` closed-loop
 * clients INSERT the ready bodies (`src/measure/insert-load.ts`) while a sampler watches the server;
 * afterwards `count()` is checked against what the server acknowledged.
 *
 * Idempotent: the table `<workload table>_ins_<key>` is dropped and created at the start, so a retry
 * starts clean; it is dropped at the end unless the grid's `keepTables`.
 *
 * The record `grids/insert-<key>.json` (in the cell folder) holds everything with each figure's
 * source; the activity returns the small {@link InsertPointSummary}.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { connect, queryRows, queryScalar, tryCommand } from '../clickhouse/client';
import { checkSettings } from '../clickhouse/settings';
import { probeServer } from '../clickhouse/probe';
import { fetchQueryLog } from '../clickhouse/query-log';
import { loadWorkload, renderTemplate } from '../lib/workload';
import { abortableDelay } from '../lib/poll';
import { sqlIdent, sqlString } from '../lib/sql';
import { PreparedTooBig, prepareBatches, runInsertLoop, type InsertLoopResult } from '../measure/insert-load';
import { latencySummary } from '../measure/stats';
import { insertPointFlags } from '../measure/validity';
import { cellDir, readJsonIfExists, writeJsonAtomic } from '../results/store';
import { FAILURE } from '../schema/failures';
import { InsertGridSpec, type InsertPoint, type InsertPointSummary, type LatencySummary } from '../schema/grids';
import { cellCodecProfile, queryIdPrefix, type StepInput } from '../schema/cell';
import type { CapabilityProbe, ProvisionRecord } from '../schema/results';
import { capabilitiesOf } from '../targets';
import { activityIdentity, attempt, cancellationSignal, heartbeat } from '../temporal/activity-context';
import { readCellSettings } from './provision';

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

/** One sample of the server during a point's timed loop (and the async flush wait). */
export interface InsertSample {
  /** ms since the timed loop started. */
  t_ms: number;
  /** Active parts of the point's table (`system.parts`, `active`). */
  active_parts: number;
  /** Merges running on the point's table (`system.merges`). */
  merges: number;
  /**
   * Server memory, bytes (`system.metrics` `MemoryTracking`): the server's total tracked memory on newer
   * versions; on 18.16 only the memory of the queries executing (its own description says so); null when
   * the server has no such metric.
   */
  memory_bytes: number | null;
}

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

async function readEvents(client: ClickHouseClient): Promise<Record<string, number>> {
  const rows = await queryRows<{ event: string; value: string }>(
    client,
    `SELECT event, value FROM system.events WHERE event IN (${INSERT_EVENTS.map(sqlString).join(', ')})`,
  );
  const out: Record<string, number> = {};
  for (const e of INSERT_EVENTS) out[e] = 0;
  for (const r of rows) out[r.event] = Number(r.value);
  return out;
}

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

/** Activity factory (no dependencies: the batches stay in memory, the target is the cell's). */
export function createInsertGrid() {
  return {
    /**
     * Run one insert point and write `grids/insert-<key>.json`.
     * @returns the point's small summary (rows/s, MB/s, latency, errors, verified, client-bound).
     * @throws ApplicationFailure `InvalidSpec` (non-retryable) when the cell has no `grids.insert`;
     *   `InvalidSetting` (non-retryable) when a setting of the point's profile is unknown on the server or
     *   at the wrong level (the message names the point and the setting);
     *   CancelledFailure when the activity was cancelled; ClickHouse errors of the DDL/generation.
     */
    async insertPoint(si: StepInput, point: InsertPoint): Promise<InsertPointSummary> {
      const { cell, target } = si;
      const step = `insert-${point.key}`;
      heartbeat({ step, progress: `insert point ${point.key}: preparing` });
      if (!cell.grids?.insert)
        throw ApplicationFailure.create({
          type: FAILURE.InvalidSpec,
          nonRetryable: true,
          message: `insert point ${point.key}: the cell has no grids.insert spec`,
        });
      const grid = InsertGridSpec.parse(cell.grids.insert);
      const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
      const m = loadWorkload(cell.workload);
      const table = pointTable(m.table, point.key);
      const cellSettings = readCellSettings(cell);
      const provision = readJsonIfExists<ProvisionRecord>(path.join(dir, 'provision.json'));
      const signal = cancellationSignal();
      const file = path.join('grids', `insert-${point.key}.json`);
      const identity = activityIdentity();
      // An earlier attempt of this very activity finished the point (its record is written) but its
      // completion never reached Temporal (the worker died in between): the point is not run again.
      const earlier = readJsonIfExists<{ summary?: InsertPointSummary; activity?: typeof identity; table?: string }>(
        path.join(dir, file),
      );
      if (earlier?.summary && identity && JSON.stringify(earlier.activity) === JSON.stringify(identity)) {
        if (!grid.keepTables && earlier.table) {
          const c = connect(target);
          try {
            await c.command({ query: `DROP TABLE IF EXISTS ${sqlIdent(earlier.table)}` });
          } finally {
            await c.close();
          }
        }
        heartbeat({
          step,
          progress: `insert point ${point.key}: finished by attempt ${earlier.summary.attempt}, kept`,
        });
        return earlier.summary;
      }
      const client = connect(target);
      const sampler = connect(target);
      let sampling = false;
      let samplerDone: Promise<void> = Promise.resolve();
      try {
        // The profile's settings, checked at their level against the server's capability probe.
        const probe =
          readJsonIfExists<CapabilityProbe>(path.join(dir, 'probe.json')) ??
          (await probeServer(client, await queryScalar<string>(client, 'SELECT version()')));
        const checked = checkSettings(
          // Names the spec marks optional (settings.optional) are recorded as not applied on a version that lacks them, as at provisioning.
          { query: point.profile.query, mergeTree: point.profile.mergeTree, optional: cell.settings?.optional ?? [] },
          probe,
          `insert point ${point.key}: settings profile "${point.profile.name}"`,
          { query: 'query', mergeTree: 'mergeTree' },
        );
        if (checked.problems.length)
          throw ApplicationFailure.create({
            type: FAILURE.InvalidSetting,
            nonRetryable: true,
            message: `settings refused before inserting:\n  - ${checked.problems.join('\n  - ')}`,
          });
        const tableSettings = { ...cellSettings.table, ...checked.applied.mergeTree };
        const insertSettings = { ...cellSettings.runs, ...checked.applied.query };
        const asyncRequested = String(insertSettings.async_insert ?? '0') === '1';
        const dedup = tableDeduplicates(tableSettings, insertSettings);

        // A clean table for this attempt.
        await client.command({ query: `DROP TABLE IF EXISTS ${sqlIdent(table)}` });
        const ddl = renderTemplate(cell.workload, m.schema, {
          table,
          rows: grid.rows,
          codec: cellCodecProfile(cell),
          tableSettings,
        });
        await client.command({ query: ddl });

        // Generation, before any timing.
        heartbeat({ step, progress: `insert point ${point.key}: generating ${grid.rows} rows (${point.format})` });
        const prepared = await prepareBatches(client, {
          workload: cell.workload,
          rows: grid.rows,
          batchSize: point.batchSize,
          format: point.format,
          data: grid.data,
          codec: cellCodecProfile(cell),
          maxBytes: grid.maxBufferMiB * 2 ** 20,
          signal,
          onBatch: (k, count) =>
            heartbeat({ step, progress: `insert point ${point.key}: generated batch ${k}/${count} (${point.format})` }),
        }).catch((e: unknown) => {
          // Rows that cannot fit in memory will not fit on a retry either.
          if (e instanceof PreparedTooBig)
            throw ApplicationFailure.create({
              type: FAILURE.InvalidSpec,
              nonRetryable: true,
              message: `insert point ${point.key}: ${e.message}`,
            });
          throw e;
        });
        if (signal?.aborted) throw new CancelledFailure(`insert point ${point.key} cancelled`);

        const eventsBefore = await readEvents(client);
        const samples: InsertSample[] = [];
        sampling = true;
        const t0 = performance.now();
        samplerDone = (async () => {
          while (sampling) {
            try {
              samples.push(await sampleServer(sampler, table, t0));
            } catch {
              /* a failed sample is a gap in the series, not a failed point */
            }
            await abortableDelay(grid.sampleMs, signal).catch(() => undefined);
            if (signal?.aborted) return;
          }
        })();
        let lastBeat = 0;
        const beat = (p: { rowsAcked: number; inserts: number; errors: number }) => {
          const now = performance.now();
          if (now - lastBeat < 1000) return;
          lastBeat = now;
          const last = samples[samples.length - 1];
          heartbeat({
            step,
            written_rows: p.rowsAcked,
            ...(last ? { active_parts: last.active_parts, merges: last.merges } : {}),
            progress: `insert point ${point.key}: ${p.rowsAcked}/${prepared.rows} rows acknowledged, ${p.inserts} inserts, ${p.errors} errors`,
          });
        };
        const attemptNo = attempt();
        const idPrefix = `${queryIdPrefix(cell.runId, cell.cellKey, `ins-${point.key}`)}-a${attemptNo}`;
        let loop: InsertLoopResult;
        let current = { rowsAcked: 0, inserts: 0, errors: 0 };
        const ticker = setInterval(() => beat(current), 1000);
        try {
          loop = await runInsertLoop(target, {
            table,
            database: target.database,
            prepared,
            concurrency: point.concurrency,
            maxConnections: grid.maxConnections,
            settings: insertSettings,
            durationS: grid.durationS,
            queryIdPrefix: idPrefix,
            signal,
            serverOnHost: capabilitiesOf(target).onWorkerHost,
            onProgress: (p) => {
              current = p;
              beat(p);
            },
          });
        } finally {
          clearInterval(ticker);
        }
        if (loop.stoppedBy === 'cancelled') {
          throw new CancelledFailure(`insert point ${point.key} cancelled`);
        }

        // Expected rows: what was acknowledged, minus the repeats a deduplicating table drops.
        const dupRowsKnown =
          grid.data === 'repeat' && dedup && loop.inserts > 0 ? loop.rowsAcked - prepared.batchRows[0] : 0;
        const expected = loop.rowsAcked - dupRowsKnown;

        // One sample right after the loop, so the peaks include the parts the last INSERTs made.
        try {
          samples.push(await sampleServer(sampler, table, t0));
        } catch {
          /* a failed sample is a gap in the series */
        }
        // Async inserts: rows may land after the responses. Wait until visible (or stable).
        const eventsMid = asyncRequested ? await readEvents(client) : undefined;
        const asyncRecord: Record<string, unknown> = { requested: asyncRequested };
        let visibleMs = loop.wallMs;
        let count = Number(await queryScalar(client, `SELECT count() FROM ${sqlIdent(table)}`));
        // Every row already visible when the loop ended: the loop's time stands (no flush wait to add).
        const visibleAtEnd = count >= expected;
        if (asyncRequested) {
          const flush = await tryCommand(client, 'SYSTEM FLUSH ASYNC INSERT QUEUE');
          asyncRecord.flush = flush;
          const waitStart = performance.now();
          let lastChange = waitStart;
          let prev = count;
          while (count < expected && performance.now() - waitStart < grid.flushTimeoutMs) {
            heartbeat({
              step,
              progress: `insert point ${point.key}: waiting for async inserts (${count}/${expected} rows visible)`,
            });
            await abortableDelay(100, signal);
            count = Number(await queryScalar(client, `SELECT count() FROM ${sqlIdent(table)}`));
            if (count !== prev) [prev, lastChange] = [count, performance.now()];
            else if (performance.now() - lastChange > 5000) break;
          }
          if (!visibleAtEnd)
            visibleMs = Math.max(loop.wallMs, (count >= expected ? performance.now() : lastChange) - t0);
          asyncRecord.waited_ms = performance.now() - waitStart;
          asyncRecord.visible_after_ms = visibleMs;
          const asyncQueries = (eventsMid?.AsyncInsertQuery ?? 0) - eventsBefore.AsyncInsertQuery;
          asyncRecord.async_insert_query_delta = asyncQueries;
          asyncRecord.effective = asyncQueries > 0 ? 'asynchronous' : 'synchronous';
          asyncRecord.note =
            asyncQueries > 0
              ? `async_insert=1 requested; the server queued ${asyncQueries} inserts asynchronously (system.events AsyncInsertQuery +${asyncQueries}); rows/s counts until the rows were visible in count()`
              : `async_insert=1 requested; the server ran the inserts synchronously (system.events AsyncInsertQuery +0)`;
          if (probe.query_log.enabled) {
            // system.asynchronous_insert_log, where the server has it.
            try {
              await client.command({ query: 'SYSTEM FLUSH LOGS' });
              asyncRecord.asynchronous_insert_log = await queryRows(
                client,
                `SELECT status, count() AS flushes, sum(rows) AS rows FROM system.asynchronous_insert_log WHERE database = currentDatabase() AND table = ${sqlString(table)} AND event_date >= yesterday() GROUP BY status`,
              );
            } catch (e) {
              asyncRecord.asynchronous_insert_log = `not available: ${(e as Error).message.split('\n')[0].slice(0, 200)}`;
            }
          } else asyncRecord.asynchronous_insert_log = 'not available (no system logs on this server)';
        }
        sampling = false;
        await samplerDone;
        const eventsAfter = await readEvents(client);
        const events: Record<string, number> = {};
        for (const e of INSERT_EVENTS) events[e] = eventsAfter[e] - eventsBefore[e];

        // Parts created: system.part_log NewPart rows of the point's table where the server keeps it,
        // else the MergeTreeDataWriterBlocks delta (server-wide: system log flushes count too).
        let partsCreated = events.MergeTreeDataWriterBlocks;
        let partsSource = 'system.events MergeTreeDataWriterBlocks delta (server-wide: includes system log tables)';
        // Tried whatever the probe said: a server creates system.part_log at its first flush, which on a
        // fresh server comes after the probe (18.16 then lists it only once a part was written).
        {
          try {
            await client.command({ query: 'SYSTEM FLUSH LOGS' });
            partsCreated = Number(
              await queryScalar(
                client,
                `SELECT count() FROM system.part_log WHERE event_date >= yesterday() AND database = currentDatabase() AND table = ${sqlString(table)} AND toString(event_type) IN ('NewPart', 'NEW_PART')`,
              ),
            );
            // The Enum value is `NewPart` on newer servers, `NEW_PART` on 18.16 (checked).
            partsSource = "system.part_log rows of the point's table with event_type NewPart (NEW_PART on 18.16)";
          } catch {
            /* keep the events figure */
          }
        }

        // Server-side latency, where the server keeps query_log.
        let serverLatency: LatencySummary | null = null;
        let serverLatencyNote = 'not available: the server keeps no system.query_log';
        if (provision?.server.query_log === 'available' || (provision === undefined && probe.query_log.enabled)) {
          try {
            const durations: number[] = [];
            for (let i = 0; i < loop.queryIds.length; i += 1000) {
              const rows = await fetchQueryLog(client, loop.queryIds.slice(i, i + 1000));
              for (const r of rows.values()) durations.push(Number(r.query_duration_ms));
            }
            serverLatency = latencySummary(durations);
            serverLatencyNote = 'system.query_log query_duration_ms of the QueryFinish rows, by query_id';
          } catch (e) {
            serverLatencyNote = `not available: ${(e as Error).message.split('\n')[0].slice(0, 200)}`;
          }
        }

        // Verification.
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
          reasons.push(
            `async inserts: ${count}/${expected} rows visible after waiting ${grid.flushTimeoutMs} ms at most`,
          );
        const verified = reasons.length === 0;

        // Delayed, rejected or retried INSERTs qualify the figure (src/measure/validity.ts).
        const judged = insertPointFlags({
          inserts: loop.inserts,
          errors: loop.errors,
          errorsByCode: loop.errorsByCode,
          deltas: events,
          attempt: attemptNo,
        });
        const latency = latencySummary(loop.latenciesMs);
        const rowsPerS = visibleMs > 0 ? (loop.rowsAcked / visibleMs) * 1000 : 0;
        const mbPerS = visibleMs > 0 ? loop.bytesAcked / 1e6 / (visibleMs / 1000) : 0;
        const peakParts = samples.reduce((a, s) => Math.max(a, s.active_parts), 0);
        const peakMerges = samples.reduce((a, s) => Math.max(a, s.merges), 0);
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
          file,
          attempt: attemptNo,
        };
        writeJsonAtomic(path.join(dir, file), {
          summary,
          // The scheduled activity that measured the point: a later attempt of the same one keeps this record.
          activity: identity ?? null,
          point,
          attempt: attemptNo,
          table,
          server_version: probe.version,
          rows_planned: prepared.rows,
          data: grid.data,
          settings_sent: { query: insertSettings, table: tableSettings, ddl },
          settings_not_applied: checked.not_applied,
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
            query_id_prefix: idPrefix,
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
            server: serverLatency,
            server_source: serverLatencyNote,
          },
          latencies_ms: loop.latenciesMs,
          parts: {
            created: partsCreated,
            created_source: partsSource,
            per_insert: loop.inserts ? partsCreated / loop.inserts : null,
            peak_active: peakParts,
            peak_merges: peakMerges,
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
          async_insert: asyncRecord,
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
          finished_at: new Date().toISOString(),
        });
        if (!grid.keepTables) await client.command({ query: `DROP TABLE IF EXISTS ${sqlIdent(table)}` });
        heartbeat({ step, progress: `insert point ${point.key}: done, ${Math.round(rowsPerS)} rows/s` });
        return summary;
      } finally {
        sampling = false;
        await samplerDone;
        await Promise.all([client.close(), sampler.close()]);
      }
    },
  };
}
