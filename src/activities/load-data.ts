/**
 * loadData: run the workload's generator (`INSERT … SELECT … FROM numbers_mt(N)`) and record
 * elapsed time, rows/s, partitions and active parts; how this version did the INSERT (its insert
 * settings in effect, read from its own `system.settings`; `async_insert = 0` sent where the version
 * turns async inserts on by default) and written_rows as it reported it, checked against `count()`,
 * which is the truth (`src/clickhouse/insert-settings.ts`).
 *
 * Idempotent: before inserting it waits for any statement of an earlier attempt that is still
 * running (by query_id prefix, `system.processes`), then checks the table. If `load.json` exists and
 * the table holds exactly `scale` rows, the earlier load is reused. Otherwise a partly or completely
 * loaded table without a recorded measurement is truncated and loaded again, so the figure always
 * comes from one clean, complete INSERT and rows are never loaded twice.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { parseSummary, summaryNumber } from '../clickhouse/client';
import { readEvents } from '../clickhouse/events';
import { renderTemplate } from '../lib/workload';
import { activeParts, rowCount } from '../clickhouse/table-state';
import { settlePreviousAttempts, killOnCancel } from './support/attempts';
import { fetchQueryLog } from '../clickhouse/query-log';
import { queryIdPrefix, type LoadSummary } from '../schema/cell';
import { LoadRecord } from '../schema/results';
import type { StepContext } from './step-context';
import {
  effectiveInsertSettings,
  loadInsertAdditions,
  readInsertSettingsRows,
  writtenRows,
  type InsertSettingsRow,
} from '../clickhouse/insert-settings';
import { performance } from 'node:perf_hooks';

/** `DuplicatedInsertedBlocks` and `InsertedRows` from `system.events` (absent there = 0), or null if unreadable. */
async function loadCounters(
  client: ClickHouseClient,
): Promise<{ DuplicatedInsertedBlocks: number; InsertedRows: number } | null> {
  try {
    const e = await readEvents(client, ['DuplicatedInsertedBlocks', 'InsertedRows']);
    return { DuplicatedInsertedBlocks: e.DuplicatedInsertedBlocks ?? 0, InsertedRows: e.InsertedRows ?? 0 };
  } catch {
    return null;
  }
}

/** The insert settings in effect for the load (read with `settings`), or why they could not be read. */
async function insertSettingsOf(
  client: ClickHouseClient,
  settings: Record<string, string | number>,
): Promise<{ rows: InsertSettingsRow[] | null; source: string }> {
  try {
    return {
      rows: await readInsertSettingsRows(client, settings),
      source: "system.settings of this server, read with the INSERT's settings",
    };
  } catch (e) {
    return { rows: null, source: `not available: ${(e as Error).message.split('\n')[0]}` };
  }
}

/** Activity factory. */
export function createLoadData() {
  return {
    /**
     * Load the table. Writes `load.json`.
     * @throws Error when the table does not hold exactly `scale` rows afterwards.
     */
    async loadData(ctx: StepContext): Promise<LoadSummary> {
      const { cell, target, workload: m } = ctx;
      const client = ctx.client({ maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      const prefix = queryIdPrefix(cell.runId, cell.cellKey, 'load');
      // Never run beside our own earlier attempt: kill it (or, on the embedded engine, wait for it).
      const previous = await settlePreviousAttempts(target, client, prefix);
      const existing = await rowCount(client, m.table);
      const prev = ctx.read('load.json', LoadRecord);
      if (prev && existing === cell.scale) return { ...pick(prev), reused: true };
      let truncated: LoadRecord['truncated_before_load'] = null;
      if (existing > 0) {
        truncated = {
          rows_found: existing,
          reason: prev
            ? 'row count differs from the recorded load'
            : 'rows present without a recorded load (earlier attempt crashed)',
        };
        await client.command({ query: `TRUNCATE TABLE ${m.table}`, query_id: `${prefix}-truncate-a${ctx.attempt}` });
      }
      const sql = renderTemplate(cell.workload, m.load, {
        table: m.table,
        rows: cell.scale,
        codec: ctx.codec,
      });
      const specSettings = { ...ctx.settings.load, max_execution_time: cell.protocol.maxExecutionTimeS };
      // How this version does the INSERT, from its own system.settings; where async_insert is on by
      // default (26.3+), the load says async_insert = 0 so it stays one synchronous insert.
      const read = await insertSettingsOf(client, specSettings as Record<string, string | number>);
      const plan = read.rows
        ? loadInsertAdditions(effectiveInsertSettings(read.rows, specSettings), ctx.settings.load)
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
      const queryId = `${prefix}-a${ctx.attempt}`;
      const eventsBefore = await loadCounters(client);
      // Wall clock beside the monotonic one: the step window the cloud metrics read (load.json started_at/finished_at).
      const startedAt = new Date().toISOString();
      const t0 = performance.now();
      // The watched client heartbeats the INSERT's progress (rows read/written) while it runs.
      ctx.heartbeat({ step: 'load' });
      const res = await killOnCancel(
        target,
        queryId,
        client.command({
          query: sql,
          query_id: queryId,
          // wait_end_of_query: the summary header is sent when the INSERT has ended (complete written_rows).
          clickhouse_settings: { ...(settings as Record<string, number>), wait_end_of_query: 1 },
          abort_signal: ctx.signal,
        }),
      );
      const elapsed = performance.now() - t0;
      const finishedAt = new Date().toISOString();
      const summary = parseSummary(res.response_headers as Record<string, string>);
      const rows = await rowCount(client, m.table);
      if (rows !== cell.scale)
        throw new Error(`load: table ${m.table} holds ${rows} rows after loading, expected ${cell.scale} (spec scale)`);
      const parts = await activeParts(client, m.table);
      const eventsAfter = await loadCounters(client);
      const probe = ctx.probe;
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
        eventsAreTheStatements: ctx.caps.countersWithoutQueryLog === 'system.events',
        count: rows,
        asyncInsert: effective?.async_insert.value ?? null,
        duplicatedBlocks: duplicated,
      });
      const rec: LoadRecord = {
        rows,
        elapsed_ms: elapsed,
        rows_per_s: rows / (elapsed / 1000),
        partitions: parts.partitions,
        active_parts: parts.available ? parts.names.length : null,
        parts_source: parts.source,
        reused: false,
        sql,
        settings,
        query_id: queryId,
        server_elapsed_ms: serverElapsed,
        server_elapsed_source: serverElapsedSource,
        written_rows_summary: summaryNumber(summary, 'written_rows'),
        rows_in_table: rows,
        bytes_on_disk: parts.bytes_on_disk,
        truncated_before_load: truncated,
        verification: {
          rows_equal_scale: rows === cell.scale,
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
        previous_attempts: previous,
        attempt: ctx.attempt,
        started_at: startedAt,
        finished_at: finishedAt,
      };
      ctx.write('load.json', LoadRecord, rec);
      return pick(rec);
    },
  };
}

function pick(r: LoadSummary): LoadSummary {
  return {
    rows: r.rows,
    elapsed_ms: r.elapsed_ms,
    rows_per_s: r.rows_per_s,
    partitions: r.partitions,
    active_parts: r.active_parts,
    reused: r.reused,
  };
}
