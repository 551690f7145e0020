/**
 * The after-load method of a cell: the workload's after-load statements (`afterLoad` in its manifest)
 * sent in order on the loaded, quiet table, each with its own query_id and wait (`mutations`: until
 * every mutation of the table is done; `merges`: until no merge or mutation runs either). The
 * `afterLoad` activity (src/activities/after-load.ts) settles earlier attempts and saves the record
 * (`after-load.json`) through the `save` it passes, after each statement.
 *
 * Idempotent: each statement is recorded `pending` with the table's state (`SHOW CREATE TABLE` and
 * its mutation ids, src/clickhouse/table-state.ts `tableState`) before it is sent, and `done` with the
 * state after. A retry skips the done ones when the table is in the last done one's state, and for a
 * pending one compares the table with its recorded state before sending: a table already changed (a
 * new column, a new mutation) means the earlier attempt's statement took effect, so it is waited for,
 * not sent again.
 *
 * Figures and their sources: `elapsed_ms` worker wall time of the statement (HTTP request to
 * response); `server_elapsed_ms` the HTTP summary's `elapsed_ns`; `wait_result.waited_ms` worker wall
 * time polling `system.mutations.is_done` (and `system.merges`); `wait_result.mutations` the
 * `system.mutations` rows new since the statement was sent.
 */
import { performance } from 'node:perf_hooks';
import type { ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { parseSummary, summaryNumber } from '../clickhouse/client';
import { runningMerges, tableMutations, tableState } from '../clickhouse/table-state';
import type { AfterLoadStatement } from '../lib/workload';
import { pollUntil } from '../lib/poll';
import { FAILURE } from '../schema/failures';
import type { AfterLoadRecord, AfterLoadStatementRecord, TableState } from '../schema/results';

/**
 * Whether the table changed since `from`: another `SHOW CREATE TABLE`, or a mutation id `from` did not
 * have (a finished mutation the server no longer lists is not a change). Pure.
 */
export function tableChanged(from: TableState, now: TableState): boolean {
  return (
    from.show_create_table !== now.show_create_table || now.mutation_ids.some((id) => !from.mutation_ids.includes(id))
  );
}

/** What {@link runAfterLoad} needs besides the client, the record and the statements. */
export interface AfterLoadRun {
  table: string;
  /** query_id prefix of the step; each statement is sent as `<prefix>-s<n>-a<attempt>`. */
  prefix: string;
  attempt: number;
  /** Path of `after-load.json`, for the error that names it. */
  where: string;
  /** Save the record (called after each change of a statement's status). */
  save(rec: AfterLoadRecord): void;
  heartbeat(details: Record<string, unknown>): void;
  sleep(ms: number): Promise<void>;
}

/**
 * Send the statements `rec` does not record as done, updating `rec` in place and saving it.
 * @returns how many statements this attempt sent (the rest were done, or applied, by an earlier attempt).
 * @throws ApplicationFailure `AfterLoadStateUnknown` (non-retryable) when the table matches none of the
 *   states the records name (changed by someone else); `MutationFailed` (non-retryable) with a
 *   mutation's `latest_fail_reason`; what the client throws when the server refuses a statement.
 */
export async function runAfterLoad(
  client: ClickHouseClient,
  rec: AfterLoadRecord,
  stmts: AfterLoadStatement[],
  o: AfterLoadRun,
): Promise<number> {
  let now = await tableState(client, o.table);
  dropRecordsThatDoNotFit(rec, stmts, now, o);
  let sent = 0;
  for (const s of stmts) {
    const prev = rec.statements.find((r) => r.n === s.n);
    if (prev?.status === 'done') continue;
    if (prev && tableChanged(prev.state_before, now)) {
      // Sent by an earlier attempt that did not live to record it: wait for it, do not send it again.
      prev.applied_by_earlier_attempt = true;
      prev.wait_result = await waitAfter(client, s, prev.state_before, o);
      prev.elapsed_ms = null;
      prev.elapsed_source = 'not measured: sent by an earlier attempt';
      prev.server_elapsed_ms = null;
      prev.server_elapsed_source = 'not measured: sent by an earlier attempt';
      prev.state_after = now = await tableState(client, o.table);
      prev.status = 'done';
      prev.finished_at = new Date().toISOString();
      o.save(rec);
      continue;
    }
    const queryId = `${o.prefix}-s${s.n}-a${o.attempt}`;
    const r: AfterLoadStatementRecord = {
      n: s.n,
      file: s.file,
      sql: s.sql,
      query_id: queryId,
      wait: s.wait,
      status: 'pending',
      state_before: now,
      attempt: o.attempt,
      started_at: new Date().toISOString(),
    };
    rec.statements = [...rec.statements.filter((x) => x.n !== s.n), r].sort((a, b) => a.n - b.n);
    o.save(rec);
    o.heartbeat({ step: 'after-load', statement: s.file, query_id: queryId });
    const t0 = performance.now();
    const res = await client.command({ query: s.sql, query_id: queryId });
    r.elapsed_ms = performance.now() - t0;
    r.elapsed_source = 'client wall time of the statement (HTTP request to response)';
    const ns = summaryNumber(parseSummary(res.response_headers as Record<string, string>), 'elapsed_ns');
    r.server_elapsed_ms = ns === null ? null : ns / 1e6;
    r.server_elapsed_source =
      ns === null ? 'not available: no elapsed_ns in the HTTP summary' : 'http summary elapsed_ns';
    sent++;
    r.wait_result = await waitAfter(client, s, r.state_before, o);
    r.state_after = now = await tableState(client, o.table);
    r.status = 'done';
    r.finished_at = new Date().toISOString();
    o.save(rec);
  }
  return sent;
}

/**
 * Records that do not fit the table (another server, or statements changed) are dropped, with a note,
 * when the table is in the first statement's recorded state before: a fresh table.
 * @throws ApplicationFailure `AfterLoadStateUnknown` when the table is in none of the recorded states.
 */
function dropRecordsThatDoNotFit(rec: AfterLoadRecord, stmts: AfterLoadStatement[], now: TableState, o: AfterLoadRun) {
  const last = rec.statements.filter((r) => r.status === 'done').at(-1);
  const pending = rec.statements.find((r) => r.status === 'pending');
  const fits =
    (!last || !tableChanged(last.state_after!, now) || (pending && tableChanged(pending.state_before, now))) &&
    rec.statements.every((r) => stmts[r.n - 1]?.sql === r.sql);
  if (!rec.statements.length || fits) return;
  if (tableChanged(rec.statements[0].state_before, now))
    throw ApplicationFailure.create({
      type: FAILURE.AfterLoadStateUnknown,
      nonRetryable: true,
      message: `after-load: table ${o.table} is in none of the states after-load.json records (${o.where}); it was changed by something else, so the statements are not sent again`,
    });
  rec.notes.push(
    `attempt ${o.attempt}: the table was as before the first statement; the earlier records (${rec.statements.length}) were dropped and every statement runs again`,
  );
  rec.statements = [];
}

/**
 * Wait after a statement, heartbeating.
 * @throws ApplicationFailure `MutationFailed` (non-retryable) with a mutation's `latest_fail_reason`.
 */
async function waitAfter(
  client: ClickHouseClient,
  s: AfterLoadStatement,
  before: TableState,
  o: AfterLoadRun,
): Promise<NonNullable<AfterLoadStatementRecord['wait_result']>> {
  const t0 = performance.now();
  if (s.wait !== 'none')
    await pollUntil(
      async () => {
        const rows = await tableMutations(client, o.table);
        const failed = rows.find((r) => r.latest_fail_reason && !Number(r.is_done));
        if (failed)
          throw ApplicationFailure.create({
            type: FAILURE.MutationFailed,
            nonRetryable: true,
            message: `after-load statement ${s.n} (${s.file}): mutation ${failed.mutation_id} failed: ${failed.latest_fail_reason}`,
          });
        const todo = rows.filter((r) => !Number(r.is_done)).length;
        const merges = s.wait === 'merges' ? ((await runningMerges(client, o.table)) ?? 0) : 0;
        o.heartbeat({ step: 'after-load', statement: s.file, mutations_to_do: todo, merges });
        return todo === 0 && merges === 0;
      },
      { timeoutMs: Infinity, intervalMs: (polls) => Math.min(2000, 200 * polls), sleep: o.sleep, stopOn: () => true },
    );
  const mine = (await tableMutations(client, o.table)).filter((r) => !before.mutation_ids.includes(r.mutation_id));
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
