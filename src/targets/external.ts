/**
 * External target: an existing ClickHouse server reached by URL. chbench creates one database per
 * cell (`<prefix>_<run>_<cell>`) and drops it at teardown; it never touches anything else.
 */
import { createClient } from '@clickhouse/client';
import type { TargetHandle, ProvisionRequest } from '../schema/target';

/** Database name for a cell: lower-case, `[a-z0-9_]`, at most 200 chars, labelled with the run id. */
export function externalDatabaseName(prefix: string, runId: string, cellKey: string): string {
  const s = `${prefix}_${runId}_${cellKey}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return s.slice(0, 200);
}

function passwordFrom(env?: string): string {
  if (!env) return '';
  const v = process.env[env];
  if (v === undefined) throw new Error(`external target: environment variable ${env} (the password) is not set on the worker`);
  return v;
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
  const client = createClient({ url: t.url, username: t.username, password: passwordFrom(t.passwordEnv) });
  try {
    const ping = await client.ping();
    if (!ping.success) throw new Error(`external target ${t.url}: ping failed: ${String(ping.error)}`);
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database} COMMENT 'chbench run ${req.runId} cell ${req.cellKey}'` }).catch(async (e) => {
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

/** Drop the cell's database (idempotent). */
export async function teardownExternal(h: TargetHandle): Promise<void> {
  const client = createClient({ url: h.url, username: h.username, password: passwordFrom(h.passwordEnv) });
  try {
    await client.command({ query: `DROP DATABASE IF EXISTS ${h.database}` });
  } finally {
    await client.close();
  }
}
