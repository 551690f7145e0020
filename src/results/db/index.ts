/**
 * The results database: where it is ({@link resultsDbLocation}) and how to open it
 * ({@link openResultsDb}). The contract is in `./types.ts`; the schema in `./migrations.ts`; rows
 * from a run folder in `./rows.ts`; the embedded engine process in `./embedded.ts`.
 */
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ResultsDbSpec } from '../../schema/run-spec';
import { REPO_ROOT } from '../../config';
import { sqlIdent } from '../../lib/sql';
import { ClickHouseResultsDb } from './db';
import { ensureEmbeddedResultsDb } from './embedded';
import { migrate } from './migrations';
import type { ResultsDb, ResultsDbLocation } from './types';

export type * from './types';
export { readOnlyProblem, DEFAULT_SERIES_LIMIT } from './db';
export { stopEmbeddedResultsDb, stopResultsDbsStartedHere, ensureEmbeddedResultsDb, embeddedResultsDbProcess, type EmbeddedDbProcess } from './embedded';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations';
export { readRunRows, specHash, canonicalJson } from './rows';

/** Database name of the embedded results database (inside its engine process). */
export const EMBEDDED_DATABASE = 'chbench';

/**
 * Where a run's results go: the spec's `results` server when given, else the embedded database
 * in `<resultsDir>/db` (absolute).
 */
export function resultsDbLocation(spec: ResultsDbSpec | undefined, resultsDir: string): ResultsDbLocation {
  if (spec) return { kind: 'server', url: spec.url, database: spec.database, user: spec.user, ...(spec.passwordEnv ? { passwordEnv: spec.passwordEnv } : {}) };
  return { kind: 'embedded', dir: path.resolve(resultsDir, 'db') };
}

/** chbench's package version (recorded in `schema_migrations.chbench`). */
function packageVersion(): string {
  const f = path.join(REPO_ROOT, 'package.json');
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as { version: string }).version : 'unknown';
}

/** URL without user info (never print a password someone put in a URL). */
function safeUrl(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString().replace(/\/$/, '');
}

/**
 * Open the results database: for `embedded`, find or start its engine process
 * (`ensureEmbeddedResultsDb`); create the database if missing; apply pending migrations.
 * @throws Error when the password variable named by `passwordEnv` is unset, the server cannot be
 *   reached, the database cannot be created, or a migration fails (each names the location)
 */
export async function openResultsDb(loc: ResultsDbLocation): Promise<ResultsDb> {
  let url: string;
  let database: string;
  let username = 'default';
  let password = '';
  let description: string;
  if (loc.kind === 'embedded') {
    const p = await ensureEmbeddedResultsDb(loc.dir, loc.idleExitS === undefined ? {} : { idleExitS: loc.idleExitS });
    url = p.url;
    database = EMBEDDED_DATABASE;
    description = `embedded database ${path.resolve(loc.dir)} (pid ${p.pid}, ${p.url})`;
  } else {
    url = loc.url;
    database = loc.database;
    username = loc.user ?? 'default';
    if (loc.passwordEnv) {
      const v = process.env[loc.passwordEnv];
      if (v === undefined) throw new Error(`results database ${safeUrl(url)}: the password variable ${loc.passwordEnv} is not set`);
      password = v;
    }
    description = `${safeUrl(url)} database ${database}`;
  }
  const make = (db: string): ClickHouseClient => createClient({ url, database: db, username, password, application: 'chbench-results' });
  const admin = make('default');
  try {
    await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${sqlIdent(database)}` });
  } catch (e) {
    // A team's user may not create databases: fine when it exists already.
    const exists = await admin
      .query({ query: `EXISTS DATABASE ${sqlIdent(database)}`, format: 'JSONEachRow' })
      .then((r) => r.json<{ result: number | string }>())
      .then((rows) => Number(rows[0]?.result) === 1)
      .catch(() => false);
    if (!exists) {
      await admin.close();
      throw new Error(`results database (${description}): cannot create database ${database}: ${(e as Error).message}`, { cause: e });
    }
  }
  await admin.close();
  const client = make(database);
  try {
    await migrate(client, packageVersion());
  } catch (e) {
    await client.close();
    throw new Error(`results database (${description}): ${(e as Error).message}`, { cause: e });
  }
  return new ClickHouseResultsDb(client, description);
}
