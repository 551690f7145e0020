/**
 * teardown: archive the server's statement log for this cell, then stop/drop what provision created
 * (process + data directory, or the cell's database). Idempotent; runs in a non-cancellable scope of
 * the cell workflow, after results were written.
 *
 * The archive — `system.query_log` rows of the cell's query ids where the server keeps it, else the
 * embedded engine's `statements.jsonl` — is written to the cell's results as `server-log.jsonl`
 * before the data directory goes away: it shows every statement chbench ran, with start and end.
 */
import path from 'node:path';
import { existsSync, copyFileSync, writeFileSync } from 'node:fs';
import { teardownTarget, teardownCellResources } from '../targets';
import { cellDir, writeJsonAtomic } from '../results/store';
import { connect, queryRows, sqlString, tryCommand } from '../clickhouse/client';
import { keepAliveDuring } from '../clickhouse/statement-watch';
import { queryIdPrefix } from '../schema/cell';
import type { CellInput, StepInput } from '../schema/cell';
import type { TargetHandle } from '../schema/target';

/**
 * Copy the statements of a cell into `file` (JSON lines: query_id, started/finished ms, ok).
 * @returns the source used, or why there is none.
 */
export async function archiveServerLog(target: TargetHandle, prefix: string, file: string): Promise<string> {
  if (target.kind === 'embedded') {
    const src = target.dataDir ? path.join(target.dataDir, 'statements.jsonl') : undefined;
    if (!src || !existsSync(src)) return 'not available: no statements.jsonl';
    copyFileSync(src, file);
    return 'embedded statements.jsonl';
  }
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
        .map((r) => JSON.stringify({ query_id: r.query_id, started_at_ms: Number(r.start_ms), finished_at_ms: Number(r.start_ms) + Number(r.duration_ms), ok: r.type === 'QueryFinish' || r.type === '2' }))
        .join('\n') + (ended.length ? '\n' : ''),
    );
    return 'system.query_log (start at second resolution)';
  } catch (e) {
    return `not available: ${(e as Error).message.split('\n')[0]}`;
  } finally {
    await client.close();
  }
}

/** Activity factory. */
export function createTeardown(deps: { workDir: string }) {
  return {
    /**
     * Tear down a cell whose provision never returned a handle (it failed, or the cell was cancelled
     * while provisioning): removes whatever the attempts created. Records `teardown.json`.
     */
    async teardownUnprovisioned(cell: CellInput): Promise<{ torn_down: true }> {
      // Stopping processes / removing directories is not a statement: heartbeat while it runs (bounded by stop deadlines).
      const what = await keepAliveDuring(
        'teardown',
        teardownCellResources(cell.target, { runId: cell.runId, cellKey: cell.cellKey, version: cell.version, workDir: path.resolve(deps.workDir) }),
      );
      writeJsonAtomic(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'teardown.json'), { torn_down_at: new Date().toISOString(), kind: cell.target.kind, what, server_log_archive: 'not available: the cell was never provisioned' });
      return { torn_down: true };
    },
    /** Archive the statement log, tear the target down; records `teardown.json`. */
    async teardown({ cell, target }: StepInput): Promise<{ torn_down: true }> {
      const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
      const prefix = queryIdPrefix(cell.runId, cell.cellKey, '').replace(/-$/, '');
      const archive = await archiveServerLog(target, prefix, path.join(dir, 'server-log.jsonl')).catch((e: Error) => `not available: ${e.message}`);
      await keepAliveDuring('teardown', teardownTarget(target));
      writeJsonAtomic(path.join(dir, 'teardown.json'), {
        torn_down_at: new Date().toISOString(),
        kind: target.kind,
        what: target.kind === 'external' ? `DROP DATABASE ${target.database}` : `stopped pid ${target.pid}, removed ${target.dataDir}`,
        server_log_archive: archive,
      });
      return { torn_down: true };
    },
  };
}
