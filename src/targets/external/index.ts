/**
 * The `external` target: an existing ClickHouse server reached by URL. chbench creates one database
 * per cell (`<prefix>_<run>_<cell>`) and drops it at teardown; it never touches anything else.
 *
 * Capabilities: not on the worker's host (a loopback URL may be a port-forward to another host), so
 * the OS page cache cannot be dropped and the worker's `/proc` says nothing about it; a running
 * statement can be killed; counters from `system.query_log` only; rows/bytes read from the HTTP
 * summary; running statements from `system.processes`; not restartable; statements archived from
 * `system.query_log`.
 */
import { createClient } from '@clickhouse/client';
import { targetPassword } from '../../clickhouse/client';
import type { ProvisionRequest, TargetHandle } from '../../schema/target';
import { registerTarget } from '../registry';
import {
  archiveFromQueryLog,
  checkServer,
  killOnServer,
  progressFromProcesses,
  runningFromProcesses,
} from '../server-verbs';
import type { Target, TargetSpecOf } from '../target';

/** Database name for a cell: lower-case, `[a-z0-9_]`, at most 200 chars, labelled with the run id. */
export function externalDatabaseName(prefix: string, runId: string, cellKey: string): string {
  const s = `${prefix}_${runId}_${cellKey}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return s.slice(0, 200);
}

/**
 * Create the cell's database on the server (idempotent: `IF NOT EXISTS`).
 * @throws Error when the server is unreachable or the password variable is missing.
 */
export async function provisionExternal(
  req: ProvisionRequest,
  t: { url: string; username: string; passwordEnv?: string; databasePrefix: string },
): Promise<TargetHandle> {
  const database = externalDatabaseName(t.databasePrefix, req.runId, req.cellKey);
  // The cell's database does not exist yet: this client has none (connect() would name it).
  const client = createClient({ url: t.url, username: t.username, password: targetPassword(t) });
  try {
    const ping = await client.ping();
    if (!ping.success) throw new Error(`external target ${t.url}: ping failed: ${String(ping.error)}`);
    await client
      .command({
        query: `CREATE DATABASE IF NOT EXISTS ${database} COMMENT 'chbench run ${req.runId} cell ${req.cellKey}'`,
      })
      .catch(async (e) => {
        // Old servers have no database COMMENT.
        if (!/COMMENT|Syntax/i.test(String(e))) throw e;
        await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
      });
  } finally {
    await client.close();
  }
  return {
    kind: 'external',
    url: t.url,
    database,
    username: t.username,
    passwordEnv: t.passwordEnv,
    runId: req.runId,
    cellKey: req.cellKey,
    provisionedBy: `existing server ${t.url}, database ${database}`,
  };
}

/** Drop the cell's database (idempotent). @throws Error when the server is unreachable or the password variable is missing */
export async function teardownExternal(h: TargetHandle): Promise<void> {
  const client = createClient({ url: h.url, username: h.username, password: targetPassword(h) });
  try {
    await client.command({ query: `DROP DATABASE IF EXISTS ${h.database}` });
  } finally {
    await client.close();
  }
}

/** The external target. */
export const externalTarget: Target<TargetSpecOf<'external'>> = {
  kind: 'external',
  capabilities: {
    onWorkerHost: false,
    loopbackMeansWorkerHost: true,
    canKillRunning: true,
    countersWithoutQueryLog: 'none',
    summaryReadSource: 'http summary',
    runningStatementsFrom: 'system.processes',
    restartable: false,
    statementArchive: false,
  },
  provision: (spec, req) => provisionExternal(req, spec),
  teardown: teardownExternal,
  async teardownCell(spec, req) {
    const database = externalDatabaseName(spec.databasePrefix, req.runId, req.cellKey);
    await teardownExternal({
      kind: 'external',
      url: spec.url,
      database,
      username: spec.username,
      passwordEnv: spec.passwordEnv,
      runId: req.runId,
      cellKey: req.cellKey,
      provisionedBy: '',
    });
    return `DROP DATABASE IF EXISTS ${database}`;
  },
  describeTeardown: (h) => `DROP DATABASE ${h.database}`,
  check: checkServer,
  runningStatements: runningFromProcesses,
  statementProgress: progressFromProcesses,
  kill: killOnServer,
  archiveStatements: archiveFromQueryLog,
  /** `worker host`: the password variable the spec names is set on the worker. */
  checkSpec(target, _versions, place) {
    if (place !== 'worker host' || typeof target.passwordEnv !== 'string') return [];
    try {
      targetPassword({ url: String(target.url), passwordEnv: target.passwordEnv });
      return [];
    } catch {
      return [`target.passwordEnv: environment variable ${target.passwordEnv} is not set on the worker`];
    }
  },
};

registerTarget(externalTarget);
