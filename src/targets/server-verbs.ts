/**
 * Target verbs that any ClickHouse server answers the same way over SQL, shared by the targets
 * whose capabilities say so: reachability and version, running statements and their progress from
 * `system.processes`, `KILL QUERY`, and the statement archive from `system.query_log`.
 */
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { connect, queryRows, queryScalar, tryCommand } from '../clickhouse/client';
import { sqlString } from '../lib/sql';
import type { StatementProgress, WatchedStatement } from '../clickhouse/statement-watch';
import { runningQueryIds } from '../clickhouse/table-state';
import { writeFileAtomic } from '../lib/fs';
import { pollWithin } from '../lib/poll';
import type { KillOptions, KillResult, StatementLine, TargetHandle } from '../schema/target';
import type { TargetCheck } from './target';

/** `SELECT version()` on the handle's server. Never throws: a failure is `reachable: false` with the first line of the error. */
export async function checkServer(handle: TargetHandle): Promise<TargetCheck> {
  let client: ClickHouseClient | undefined;
  try {
    client = connect(handle, { maxExecutionTimeS: 30 });
    return { reachable: true, version: await queryScalar<string>(client, 'SELECT version()') };
  } catch (e) {
    return { reachable: false, error: (e as Error).message.split('\n')[0] };
  } finally {
    await client?.close().catch(() => undefined);
  }
}

/** Query ids starting with `prefix` in `system.processes`. @throws Error when the query fails */
export function runningFromProcesses(
  _handle: TargetHandle,
  client: ClickHouseClient,
  prefix: string,
): Promise<string[]> {
  return runningQueryIds(client, prefix);
}

/** Options of one statement a verb sends: its bound and tagged query_id (see {@link KillOptions}). */
function statementOptions(o: Pick<KillOptions, 'timeoutMs' | 'queryIdTag'>) {
  return {
    ...(o.queryIdTag ? { query_id: `${o.queryIdTag}-${randomUUID()}` } : {}),
    ...(o.timeoutMs ? { abort_signal: AbortSignal.timeout(o.timeoutMs) } : {}),
  };
}

/**
 * Progress of `statements` from `system.processes` (read_rows, total_rows_approx, written_rows,
 * elapsed, memory_usage); for background statements (ALTER/OPTIMIZE) also the sums of
 * `system.merges` (rows read + written, progress) and of unfinished mutations' `parts_to_do`.
 * Every read is tagged `chb-watch-<uuid>` and bounded by `timeoutMs`.
 * @returns the listed statements, keyed by query_id
 * @throws Error when a read fails
 */
export async function progressFromProcesses(
  _handle: TargetHandle,
  c: ClickHouseClient,
  list: readonly WatchedStatement[],
  timeoutMs: number,
): Promise<Map<string, StatementProgress>> {
  const out = new Map<string, StatementProgress>();
  const read = { queryIdTag: 'chb-watch', timeoutMs };
  const ids = list.map((s) => sqlString(s.queryId)).join(', ');
  const rs = await c.query({
    query: `SELECT query_id, read_rows, total_rows_approx, written_rows, elapsed, memory_usage FROM system.processes WHERE query_id IN (${ids})`,
    format: 'JSONEachRow',
    ...statementOptions(read),
  });
  const rows = await rs.json<{
    query_id: string;
    read_rows: string;
    total_rows_approx: string;
    written_rows: string;
    elapsed: number;
    memory_usage: string;
  }>();
  let bg: { r: string; w: string; p: number; todo: string } | undefined;
  if (list.some((s) => s.background)) {
    const [m] = await (
      await c.query({
        query: 'SELECT sum(rows_read) AS r, sum(rows_written) AS w, sum(progress) AS p FROM system.merges',
        format: 'JSONEachRow',
        ...statementOptions(read),
      })
    ).json<{ r: string; w: string; p: number }>();
    const [u] = await (
      await c.query({
        query: 'SELECT sum(parts_to_do) AS todo FROM system.mutations WHERE is_done = 0',
        format: 'JSONEachRow',
        ...statementOptions(read),
      })
    ).json<{ todo: string }>();
    bg = { ...m, todo: u?.todo ?? '0' };
  }
  for (const r of rows) {
    const st = list.find((s) => s.queryId === r.query_id);
    out.set(r.query_id, {
      listed: true,
      rows_read: Number(r.read_rows),
      total_rows: Number(r.total_rows_approx),
      written_rows: Number(r.written_rows),
      elapsed_ms: Math.round(Number(r.elapsed) * 1000),
      memory_usage: Number(r.memory_usage),
      ...(st?.background && bg
        ? { merges_rows: Number(bg.r) + Number(bg.w), merges_progress: Number(bg.p), parts_to_do: Number(bg.todo) }
        : {}),
    });
  }
  return out;
}

/**
 * Send `KILL QUERY WHERE query_id = '…' SYNC|ASYNC` and read its answer: no row means no such
 * statement ran. Shared by every target whose server takes KILL QUERY over SQL (the embedded server
 * too). Never throws.
 * @returns `killed` (SYNC answered), `sent` (ASYNC accepted), `not found`, or `not killable` with the
 *   first line of the server's error (at most 300 characters)
 */
export async function sendKill(client: ClickHouseClient, queryId: string, o: KillOptions = {}): Promise<KillResult> {
  try {
    const r = await client.exec({
      query: `KILL QUERY WHERE query_id = ${sqlString(queryId)} ${o.sync ? 'SYNC' : 'ASYNC'}`,
      ...statementOptions(o),
    });
    let rows = '';
    for await (const chunk of r.stream) rows += String(chunk);
    if (!rows.trim()) return { outcome: 'not found', text: 'not found (KILL QUERY matched no running statement)' };
    return o.sync
      ? { outcome: 'killed', text: 'killed (KILL QUERY SYNC)' }
      : { outcome: 'sent', text: 'KILL QUERY sent' };
  } catch (e) {
    const why = (e as Error).message.split('\n')[0].slice(0, 300);
    return { outcome: 'not killable', why, text: `not killed: ${why}` };
  }
}

/**
 * The `kill` verb of a real server: {@link sendKill}, then (ASYNC with `waitGoneMs`) wait until
 * `system.processes` no longer lists the statement, calling `onWait` at each look. Never throws.
 * @returns as {@link sendKill}; after the wait `killed (KILL QUERY; no longer in system.processes)`,
 *   or `sent` with `KILL QUERY sent, still in system.processes after <s> s`
 */
export async function killOnServer(
  _handle: TargetHandle,
  client: ClickHouseClient,
  queryId: string,
  o: KillOptions = {},
): Promise<KillResult> {
  const sent = await sendKill(client, queryId, o);
  if (sent.outcome !== 'sent' || !o.waitGoneMs) return sent;
  try {
    const gone = await pollWithin(
      async () => {
        const left = await (
          await client.query({
            query: `SELECT count() AS n FROM system.processes WHERE query_id = ${sqlString(queryId)}`,
            format: 'JSONEachRow',
            ...statementOptions(o),
          })
        ).json<{ n: string }>();
        return Number(left[0]?.n ?? 0) === 0;
      },
      { timeoutMs: o.waitGoneMs, intervalMs: 500, stopOn: () => true, onTick: o.onWait },
    );
    return gone
      ? { outcome: 'killed', text: 'killed (KILL QUERY; no longer in system.processes)' }
      : {
          outcome: 'sent',
          text: `KILL QUERY sent, still in system.processes after ${Math.round(o.waitGoneMs / 1000)} s`,
        };
  } catch (e) {
    const why = (e as Error).message.split('\n')[0].slice(0, 300);
    return { outcome: 'not killable', why, text: `not killed: ${why}` };
  }
}

/**
 * Copy the cell's statements from `system.query_log` (after `SYSTEM FLUSH LOGS`) into `file`
 * (written atomically) as {@link StatementLine} JSON lines; start at second resolution.
 * @returns `system.query_log (start at second resolution)`, or `not available: <why>` (never throws)
 */
export async function archiveFromQueryLog(target: TargetHandle, prefix: string, file: string): Promise<string> {
  const client = connect(target);
  try {
    const flush = await tryCommand(client, 'SYSTEM FLUSH LOGS');
    if (!flush.ok) return `not available: ${flush.error}`;
    const rows = await queryRows<{ query_id: string; start_ms: string; duration_ms: string; type: string }>(
      client,
      `SELECT query_id, toUInt64(query_start_time) * 1000 AS start_ms, query_duration_ms AS duration_ms, toString(type) AS type
       FROM system.query_log WHERE event_date >= yesterday() AND substring(query_id, 1, ${Buffer.byteLength(prefix)}) = ${sqlString(prefix)}`,
    );
    // `type` is an Enum on some versions and a number on others: skip QueryStart rows (1) here.
    const ended = rows.filter((r) => r.type !== 'QueryStart' && r.type !== '1');
    writeFileAtomic(
      file,
      ended
        .map((r) => {
          const line: StatementLine = {
            query_id: r.query_id,
            started_at_ms: Number(r.start_ms),
            finished_at_ms: Number(r.start_ms) + Number(r.duration_ms),
            ok: r.type === 'QueryFinish' || r.type === '2',
          };
          return JSON.stringify(line);
        })
        .join('\n') + (ended.length ? '\n' : ''),
    );
    return 'system.query_log (start at second resolution)';
  } catch (e) {
    return `not available: ${(e as Error).message.split('\n')[0]}`;
  } finally {
    await client.close();
  }
}
