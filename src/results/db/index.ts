/**
 * The results database: where it is ({@link resultsDbLocation}) and how to open it
 * ({@link openResultsDb}). The contract is in `./types.ts`; the schema in `./migrations.ts`; rows
 * from a run folder in `./rows.ts`; the embedded engine process in `./embedded.ts`.
 */
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ResultsDbSpec } from '../../schema/run-spec';
import { REPO_ROOT } from '../../config';
import { sqlIdent } from '../../lib/sql';
import { ClickHouseResultsDb, isUnavailableError, oneLineError, ResultsDbUnavailableError } from './db';
import { ensureEmbeddedResultsDb } from './embedded';
import { serverCredential } from '../../engine/credential';
import { migrate } from './migrations';
import type { ResultsDb, ResultsDbLocation } from './types';

export type * from './types';
export { ALLOWED_TABLE_FUNCTIONS } from './read-guard';
export { readOnlyProblem, ReadRefusedError, DEFAULT_SERIES_LIMIT, REFUSED_TABLE_FUNCTIONS, ResultsDbUnavailableError, isUnavailableError, oneLineError } from './db';
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

/** Default `request_timeout` of the results database's HTTP client, ms (`@clickhouse/client`'s own default). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Options of {@link openResultsDb}. */
export interface OpenResultsDbOptions {
  /**
   * How long the HTTP client waits for an answer, ms (`@clickhouse/client` `request_timeout`); keep it
   * above any `max_execution_time` sent, so the server's TIMEOUT_EXCEEDED arrives first.
   * @default DEFAULT_REQUEST_TIMEOUT_MS
   */
  requestTimeoutMs?: number;
}

/**
 * Open the results database: for `embedded`, find or start its engine process
 * (`ensureEmbeddedResultsDb`); create the database if missing; apply pending migrations. The
 * client's own logging is off: errors reach the caller once, as one line.
 * @throws ResultsDbUnavailableError when the database does not answer in time or cannot be reached
 *   (e.g. the embedded engine is busy with another statement); Error when the password variable
 *   named by `passwordEnv` is unset, the database cannot be created, or a migration fails (each
 *   names the location)
 */
export async function openResultsDb(loc: ResultsDbLocation, opts: OpenResultsDbOptions = {}): Promise<ResultsDb> {
  let url: string;
  let database: string;
  let username = 'default';
  let password = '';
  let description: string;
  if (loc.kind === 'embedded') {
    const p = await ensureEmbeddedResultsDb(loc.dir, loc.idleExitS === undefined ? {} : { idleExitS: loc.idleExitS });
    url = p.url;
    database = EMBEDDED_DATABASE;
    // The engine requires its own password (`<dir>/credential`, readable by this user only).
    password = serverCredential(path.resolve(loc.dir));
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
  const make = (db: string): ClickHouseClient =>
    createClient({
      url,
      database: db,
      username,
      password,
      application: 'chbench-results',
      request_timeout: opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      log: { level: ClickHouseLogLevel.OFF },
    });
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
      if (isUnavailableError(e)) throw new ResultsDbUnavailableError(`(${description}): ${oneLineError(e)}`, { cause: e });
      throw new Error(`results database (${description}): cannot create database ${database}: ${oneLineError(e)}`, { cause: e });
    }
  }
  await admin.close();
  const client = make(database);
  try {
    await migrate(client, packageVersion());
  } catch (e) {
    await client.close();
    if (isUnavailableError(e)) throw new ResultsDbUnavailableError(`(${description}): ${oneLineError(e)}`, { cause: e });
    throw new Error(`results database (${description}): ${oneLineError(e)}`, { cause: e });
  }
  return new ClickHouseResultsDb(client, description, loc.kind);
}

/**
 * Open the results database of `results`/`resultsDir` (see {@link resultsDbLocation}), run `fn`
 * with it and close it, whatever `fn` does.
 * @returns what `fn` returns
 * @throws what {@link openResultsDb} or `fn` throws
 */
export async function withResultsDb<T>(
  results: ResultsDbSpec | undefined,
  resultsDir: string,
  fn: (db: ResultsDb) => Promise<T>,
  opts: OpenResultsDbOptions = {},
): Promise<T> {
  const db = await openResultsDb(resultsDbLocation(results, resultsDir), opts);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}
