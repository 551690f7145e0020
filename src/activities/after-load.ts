/**
 * afterLoad: run the workload's after-load statements (`afterLoad` in its manifest) on the loaded,
 * quiet table, in order, each with its own query_id and wait (`mutations`: poll `system.mutations`
 * until every mutation of the table is done; `merges`: until no merge or mutation runs), heartbeating.
 * Writes `after-load.json` after each statement.
 *
 * Idempotent: each statement is recorded `pending` with the table's state (`SHOW CREATE TABLE` and
 * its mutation ids) before it is sent, and `done` with the state after. A retry skips the done ones
 * when the table is in the last done one's state, and for a pending one compares the table with its
 * recorded state before sending: a table already changed (a new column, a new mutation) means the
 * earlier attempt's statement took effect, so it is waited for, not sent again.
 */
import { performance } from 'node:perf_hooks';
import type { ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { parseSummary, queryRows, summaryNumber } from '../clickhouse/client';
import { sqlString } from '../lib/sql';
import { afterLoadStatements } from '../lib/workload';
import { pollUntil } from '../lib/poll';
import { runningMerges } from '../clickhouse/table-state';
import { heartbeat, sleep } from '../temporal/activity-context';
import { queryIdPrefix } from '../schema/cell';
import { FAILURE } from '../schema/failures';
import { AfterLoadRecord, type AfterLoadStatementRecord, type TableState } from '../schema/results';
import { settlePreviousAttempts } from './support/attempts';
import type { StepContext } from './step-context';

/** What the step returns to the workflow (details in `after-load.json`). */
export interface AfterLoadSummary {
  statements: number;
  /** Statements this attempt sent (the rest were done, or applied, by an earlier attempt). */
  sent: number;
}

/** The table's state: `SHOW CREATE TABLE` and the ids of its mutations (`system.mutations`). */
export async function tableState(client: ClickHouseClient, table: string): Promise<TableState> {
  const create = await client.query({ query: `SHOW CREATE TABLE ${table}`, format: 'TabSeparatedRaw' });
  const rows = await queryRows<{ mutation_id: string }>(
    client,
    `SELECT mutation_id FROM system.mutations WHERE database = currentDatabase() AND table = ${sqlString(table)} ORDER BY mutation_id`,
  );
  return { show_create_table: (await create.text()).trim(), mutation_ids: rows.map((r) => r.mutation_id) };
}

/**
 * Whether the table changed since `from`: another `SHOW CREATE TABLE`, or a mutation id `from` did not
 * have (a finished mutation the server no longer lists is not a change). Pure.
 */
export function tableChanged(from: TableState, now: TableState): boolean {
  return (
    from.show_create_table !== now.show_create_table || now.mutation_ids.some((id) => !from.mutation_ids.includes(id))
  );
}

type MutationRow = { mutation_id: string; command: string; is_done: number | string; latest_fail_reason: string };

async function mutationsOf(client: ClickHouseClient, table: string, ids?: string[]): Promise<MutationRow[]> {
  const rows = await queryRows<MutationRow>(
    client,
    `SELECT mutation_id, command, is_done, latest_fail_reason FROM system.mutations WHERE database = currentDatabase() AND table = ${sqlString(table)}`,
  );
  return ids ? rows.filter((r) => !ids.includes(r.mutation_id)) : rows;
}

/**
 * Wait after a statement, heartbeating.
 * @throws ApplicationFailure `MutationFailed` (non-retryable) with a mutation's `latest_fail_reason`.
 */
async function waitAfter(
  client: ClickHouseClient,
  table: string,
  s: { n: number; file: string; wait: AfterLoadStatementRecord['wait'] },
  before: TableState,
): Promise<NonNullable<AfterLoadStatementRecord['wait_result']>> {
  const t0 = performance.now();
  if (s.wait !== 'none')
    await pollUntil(
      async () => {
        const rows = await mutationsOf(client, table);
        const failed = rows.find((r) => r.latest_fail_reason && !Number(r.is_done));
        if (failed)
          throw ApplicationFailure.create({
            type: FAILURE.MutationFailed,
            nonRetryable: true,
            message: `after-load statement ${s.n} (${s.file}): mutation ${failed.mutation_id} failed: ${failed.latest_fail_reason}`,
          });
        const todo = rows.filter((r) => !Number(r.is_done)).length;
        const merges = s.wait === 'merges' ? ((await runningMerges(client, table)) ?? 0) : 0;
        heartbeat({ step: 'after-load', statement: s.file, mutations_to_do: todo, merges });
        return todo === 0 && merges === 0;
      },
      { timeoutMs: Infinity, intervalMs: (polls) => Math.min(2000, 200 * polls), sleep, stopOn: () => true },
    );
  const mine = await mutationsOf(client, table, before.mutation_ids);
  return {
    kind: s.wait,
    waited_ms: performance.now() - t0,
    mutations: mine.map((r) => ({ mutation_id: r.mutation_id, command: r.command, is_done: Number(r.is_done) })),
    source:
      s.wait === 'none'
        ? 'no wait (wait: none); mutations: system.mutations rows new since the statement was sent'
        : `client wall time polling system.mutations.is_done${s.wait === 'merges' ? ' and system.merges' : ''} for the table until nothing ran`,
  };
}

/** Activity factory. */
export function createAfterLoad() {
  return {
    /**
     * Run the workload's after-load statements. Writes `after-load.json`.
     * @throws ApplicationFailure `AfterLoadStateUnknown` (non-retryable) when the table matches none of
     *   the states the records name (changed by someone else); `MutationFailed`; a `ClickHouse.<NAME>`
     *   failure when the server refuses a statement.
     */
    async afterLoad(ctx: StepContext): Promise<AfterLoadSummary> {
      const { cell, target, workload: m } = ctx;
      const stmts = afterLoadStatements(m, { table: m.table, rows: cell.scale, codec: ctx.codec });
      const file = 'after-load.json';
      const save = (rec: AfterLoadRecord) => ctx.write(file, AfterLoadRecord, rec);
      const prefix = queryIdPrefix(cell.runId, cell.cellKey, 'after-load');
      const client = ctx.client({ maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      let sent = 0;
      // An earlier attempt's statement still running finishes (or is killed) before the table is read.
      await settlePreviousAttempts(target, client, prefix);
      const rec: AfterLoadRecord = ctx.read(file, AfterLoadRecord) ?? {
        table: m.table,
        statements: [],
        notes: [],
      };
      rec.notes ??= [];
      let now = await tableState(client, m.table);
      // Records that do not fit the table (another server, or statements changed) are dropped when
      // the table is in the first statement's recorded state before: a fresh table.
      const done = rec.statements.filter((r) => r.status === 'done');
      const last = done.at(-1);
      const pending = rec.statements.find((r) => r.status === 'pending');
      const fits =
        (!last || !tableChanged(last.state_after!, now) || (pending && tableChanged(pending.state_before, now))) &&
        rec.statements.every((r) => stmts[r.n - 1]?.sql === r.sql);
      if (rec.statements.length && !fits) {
        if (tableChanged(rec.statements[0].state_before, now))
          throw ApplicationFailure.create({
            type: FAILURE.AfterLoadStateUnknown,
            nonRetryable: true,
            message: `after-load: table ${m.table} is in none of the states after-load.json records (${ctx.file(file)}); it was changed by something else, so the statements are not sent again`,
          });
        rec.notes.push(
          `attempt ${ctx.attempt}: the table was as before the first statement; the earlier records (${rec.statements.length}) were dropped and every statement runs again`,
        );
        rec.statements = [];
      }
      for (const s of stmts) {
        const prev = rec.statements.find((r) => r.n === s.n);
        if (prev?.status === 'done') continue;
        const queryId = `${prefix}-s${s.n}-a${ctx.attempt}`;
        if (prev && tableChanged(prev.state_before, now)) {
          // Sent by an earlier attempt that did not live to record it: wait for it, do not send it again.
          prev.applied_by_earlier_attempt = true;
          prev.wait_result = await waitAfter(client, m.table, s, prev.state_before);
          prev.elapsed_ms = null;
          prev.elapsed_source = 'not measured: sent by an earlier attempt';
          prev.server_elapsed_ms = null;
          prev.server_elapsed_source = 'not measured: sent by an earlier attempt';
          prev.state_after = now = await tableState(client, m.table);
          prev.status = 'done';
          prev.finished_at = new Date().toISOString();
          save(rec);
          continue;
        }
        const r: AfterLoadStatementRecord = {
          n: s.n,
          file: s.file,
          sql: s.sql,
          query_id: queryId,
          wait: s.wait,
          status: 'pending',
          state_before: now,
          attempt: ctx.attempt,
          started_at: new Date().toISOString(),
        };
        rec.statements = [...rec.statements.filter((x) => x.n !== s.n), r].sort((a, b) => a.n - b.n);
        save(rec);
        ctx.heartbeat({ step: 'after-load', statement: s.file, query_id: queryId });
        const t0 = performance.now();
        const res = await client.command({ query: s.sql, query_id: queryId });
        r.elapsed_ms = performance.now() - t0;
        r.elapsed_source = 'client wall time of the statement (HTTP request to response)';
        const ns = summaryNumber(parseSummary(res.response_headers as Record<string, string>), 'elapsed_ns');
        r.server_elapsed_ms = ns === null ? null : ns / 1e6;
        r.server_elapsed_source =
          ns === null ? 'not available: no elapsed_ns in the HTTP summary' : 'http summary elapsed_ns';
        sent++;
        r.wait_result = await waitAfter(client, m.table, s, r.state_before);
        r.state_after = now = await tableState(client, m.table);
        r.status = 'done';
        r.finished_at = new Date().toISOString();
        save(rec);
      }
      return { statements: stmts.length, sent };
    },
  };
}
