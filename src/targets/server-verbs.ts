/**
 * Target verbs that any ClickHouse server answers the same way over SQL, shared by the targets
 * whose capabilities say so: reachability and version, running statements from `system.processes`,
 * and the statement archive from `system.query_log`.
 */
import { writeFileSync } from 'node:fs';
import type { ClickHouseClient } from '@clickhouse/client';
import { connect, queryRows, queryScalar, sqlString, tryCommand } from '../clickhouse/client';
import { runningQueryIds } from '../clickhouse/table-state';
import type { TargetHandle } from '../schema/target';
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

/**
 * Copy the cell's statements from `system.query_log` (after `SYSTEM FLUSH LOGS`) into `file` as JSON
 * lines `{query_id, started_at_ms, finished_at_ms, ok}`; start at second resolution.
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
    writeFileSync(
      file,
      ended
        .map((r) =>
          JSON.stringify({
            query_id: r.query_id,
            started_at_ms: Number(r.start_ms),
            finished_at_ms: Number(r.start_ms) + Number(r.duration_ms),
            ok: r.type === 'QueryFinish' || r.type === '2',
          }),
        )
        .join('\n') + (ended.length ? '\n' : ''),
    );
    return 'system.query_log (start at second resolution)';
  } catch (e) {
    return `not available: ${(e as Error).message.split('\n')[0]}`;
  } finally {
    await client.close();
  }
}
