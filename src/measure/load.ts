/**
 * The load method of a cell: one `INSERT … SELECT` of the workload's generator, timed, and what the
 * server says it did, checked against `count()`, which is the truth. The `loadData` activity
 * (src/activities/load-data.ts) settles earlier attempts, decides reuse or truncation, and writes the
 * record this returns as `load.json`.
 *
 * Figures and their sources:
 * - `elapsed_ms`: worker wall time (`performance.now()`) around the INSERT, which is sent with
 *   `wait_end_of_query = 1` so it answers when the INSERT has ended; `rows_per_s` = rows / elapsed;
 * - `server_elapsed_ms`: the HTTP summary's `elapsed_ns`, else `system.query_log.query_duration_ms`
 *   of the INSERT's query_id (old servers send no summary), else null;
 * - `rows` / `rows_in_table`: `count()` after the INSERT; partitions, active parts, bytes on disk:
 *   `system.parts` (src/clickhouse/table-state.ts);
 * - insert settings in effect: this server's `system.settings`, read with the INSERT's settings
 *   (src/clickhouse/insert-settings.ts); `async_insert = 0` added where the version turns it on by default;
 * - written_rows: the summary, query_log and `system.events` `InsertedRows` difference, checked
 *   against `count()` (`writtenRows`); `DuplicatedInsertedBlocks`: `system.events` difference around the INSERT.
 */
import { performance } from 'node:perf_hooks';
import type { ClickHouseClient } from '@clickhouse/client';
import { parseSummary, summaryNumber } from '../clickhouse/client';
import { readLoadCounters } from '../clickhouse/events';
import { fetchQueryLog } from '../clickhouse/query-log';
import { activeParts, rowCount } from '../clickhouse/table-state';
import {
  effectiveInsertSettings,
  loadInsertAdditions,
  readInsertSettingsOrWhy,
  readInsertSettingsRows,
  writtenRows,
} from '../clickhouse/insert-settings';
import type { LoadSummary } from '../schema/cell';
import type { CapabilityProbe, LoadRecord } from '../schema/results';

/** What {@link measureLoad} needs: the statement, its settings and the cell's facts. */
export interface LoadPlan {
  /** The cell's table. */
  table: string;
  /** The rendered `INSERT … SELECT` of the workload. */
  sql: string;
  /** The cell's scale (rows): the table must hold exactly this many afterwards. */
  scale: number;
  /** The query_id the INSERT is sent with (`<prefix>-a<attempt>`). */
  queryId: string;
  /** The spec's checked load settings (`settings.json` `load`). */
  loadSettings: Record<string, string | number>;
  /** The protocol's `max_execution_time` (s), sent with the INSERT. */
  maxExecutionTimeS: number;
  /** `probe.json` (query_log enabled, counter list), undefined before provisioning wrote it. */
  probe: CapabilityProbe | undefined;
  /** Whether `system.events` differences are this target's statements' (`caps.countersWithoutQueryLog`). */
  eventsAreTheStatements: boolean;
  /** Cancellation of the INSERT. */
  signal: AbortSignal | undefined;
  /** Wraps the INSERT (e.g. kill it on the server when the step is cancelled); identity by default. */
  run?: <T>(insert: Promise<T>) => Promise<T>;
  /** Called just before the INSERT is sent (e.g. a heartbeat). */
  onStart?: () => void;
  /** Facts of the step recorded as they are: the truncation before, earlier attempts, this attempt. */
  recorded: Pick<LoadRecord, 'truncated_before_load' | 'previous_attempts' | 'attempt'>;
}

/**
 * Run the load's INSERT and measure it (figures and sources: module comment).
 * @returns the `load.json` record (`reused` false); started_at/finished_at are the worker's wall
 *   clock (ISO) around the INSERT, the step window cloud metrics read.
 * @throws Error when the table does not hold exactly `scale` rows afterwards; what the client throws
 *   for the INSERT (a server error, the abort of `signal`).
 */
export async function measureLoad(client: ClickHouseClient, p: LoadPlan): Promise<LoadRecord> {
  const specSettings = { ...p.loadSettings, max_execution_time: p.maxExecutionTimeS };
  // How this version does the INSERT, from its own system.settings; where async_insert is on by
  // default (26.3+), the load says async_insert = 0 so it stays one synchronous insert.
  const read = await readInsertSettingsOrWhy(client, specSettings as Record<string, string | number>);
  const plan = read.rows
    ? loadInsertAdditions(effectiveInsertSettings(read.rows, specSettings), p.loadSettings)
    : { settings: {}, notes: [] };
  const settings = { ...specSettings, ...plan.settings };
  const effective = read.rows
    ? effectiveInsertSettings(
        Object.keys(plan.settings).length
          ? await readInsertSettingsRows(client, settings as Record<string, string | number>)
          : read.rows,
        specSettings,
        plan.settings,
      )
    : null;
  const queryId = p.queryId;
  const eventsBefore = await readLoadCounters(client);
  // Wall clock beside the monotonic one: the step window the cloud metrics read (load.json started_at/finished_at).
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  p.onStart?.();
  const insert = client.command({
    query: p.sql,
    query_id: queryId,
    // wait_end_of_query: the summary header is sent when the INSERT has ended (complete written_rows).
    clickhouse_settings: { ...(settings as Record<string, number>), wait_end_of_query: 1 },
    abort_signal: p.signal,
  });
  const res = await (p.run ? p.run(insert) : insert);
  const elapsed = performance.now() - t0;
  const finishedAt = new Date().toISOString();
  const summary = parseSummary(res.response_headers as Record<string, string>);
  const rows = await rowCount(client, p.table);
  if (rows !== p.scale)
    throw new Error(`load: table ${p.table} holds ${rows} rows after loading, expected ${p.scale} (spec scale)`);
  const parts = await activeParts(client, p.table);
  const eventsAfter = await readLoadCounters(client);
  const probe = p.probe;
  // Server-side elapsed: the HTTP summary, else the INSERT's query_log row (old servers send no summary).
  let serverElapsed =
    summaryNumber(summary, 'elapsed_ns') === null ? null : (summaryNumber(summary, 'elapsed_ns') as number) / 1e6;
  let serverElapsedSource = serverElapsed === null ? 'not available' : 'http summary elapsed_ns';
  const logRow = probe?.query_log.enabled ? (await fetchQueryLog(client, [queryId])).get(queryId) : undefined;
  if (serverElapsed === null && logRow)
    [serverElapsed, serverElapsedSource] = [Number(logRow.query_duration_ms), 'system.query_log.query_duration_ms'];
  const duplicated =
    eventsBefore && eventsAfter && probe?.events_complete && probe.events?.includes('DuplicatedInsertedBlocks')
      ? eventsAfter.DuplicatedInsertedBlocks - eventsBefore.DuplicatedInsertedBlocks
      : null;
  const unmeasuredHeader = (res.response_headers as Record<string, string | undefined>)['x-chbench-unmeasured'];
  const logWritten = logRow?.written_rows;
  const written = writtenRows({
    summary: summaryNumber(summary, 'written_rows'),
    summaryUnmeasured: unmeasuredHeader ? unmeasuredHeader.split(',').map((x) => x.trim()) : [],
    queryLog: logWritten === undefined || logWritten === null || logWritten === '' ? null : Number(logWritten),
    insertedRowsDelta: eventsBefore && eventsAfter ? eventsAfter.InsertedRows - eventsBefore.InsertedRows : null,
    eventsAreTheStatements: p.eventsAreTheStatements,
    count: rows,
    asyncInsert: effective?.async_insert.value ?? null,
    duplicatedBlocks: duplicated,
  });
  return {
    rows,
    elapsed_ms: elapsed,
    rows_per_s: rows / (elapsed / 1000),
    partitions: parts.partitions,
    active_parts: parts.available ? parts.names.length : null,
    parts_source: parts.source,
    reused: false,
    sql: p.sql,
    settings,
    query_id: queryId,
    server_elapsed_ms: serverElapsed,
    server_elapsed_source: serverElapsedSource,
    written_rows_summary: summaryNumber(summary, 'written_rows'),
    rows_in_table: rows,
    bytes_on_disk: parts.bytes_on_disk,
    truncated_before_load: p.recorded.truncated_before_load,
    verification: {
      rows_equal_scale: rows === p.scale,
      written_rows_check: written.check,
      // Absent from system.events means 0 only where the probe saw the full counter list with it.
      duplicated_inserted_blocks: duplicated,
      counters_source: eventsBefore && eventsAfter ? 'system.events difference around the INSERT' : 'not available',
    },
    insert_settings: {
      values: effective ?? {},
      added: plan.settings,
      notes: plan.notes,
      source: read.source,
    },
    written_rows: written,
    previous_attempts: p.recorded.previous_attempts,
    attempt: p.recorded.attempt,
    started_at: startedAt,
    finished_at: finishedAt,
  };
}

/** The headline figures of a `load.json` record the workflow gets back (rows, ms, rows/s, partitions, parts, reused). Pure. */
export function loadSummary(r: LoadSummary): LoadSummary {
  return {
    rows: r.rows,
    elapsed_ms: r.elapsed_ms,
    rows_per_s: r.rows_per_s,
    partitions: r.partitions,
    active_parts: r.active_parts,
    reused: r.reused,
  };
}
