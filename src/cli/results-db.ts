/**
 * What `chbench results …` and `chbench export` share: the options that name the results database
 * (`--results-dir <dir>`, default `results`, whose embedded database is `<dir>/db`; or a server:
 * `--url` or `CHBENCH_RESULTS_URL`, with `--database`, `--user`, `--password-env <VAR>`), and opening it.
 */
import type { Command } from 'commander';
import { resultsUrl } from '../config';
import {
  openResultsDb,
  resultsDbLocation,
  ResultsDbUnavailableError,
  type OpenResultsDbOptions,
  type ResultsDb,
  type ResultsDbLocation,
} from '../results/db';
import { fail, RESULTS_EXIT } from './exit-codes';

/** Options every command shares. */
export interface DbOptions {
  resultsDir: string;
  url?: string;
  database: string;
  user: string;
  passwordEnv?: string;
}

/** The exit code of a database error: 3 busy or unreachable, else 1. */
export function dbErrorCode(e: unknown): number {
  return e instanceof ResultsDbUnavailableError ? RESULTS_EXIT.unavailable : RESULTS_EXIT.failed;
}

/** Add the options that name the results database to `c`. */
export function withDbOptions(c: Command): Command {
  return c
    .option('--results-dir <dir>', 'results directory (the embedded database is <dir>/db)', 'results')
    .option(
      '--url <url>',
      'ClickHouse server holding the results database (default: CHBENCH_RESULTS_URL, else embedded)',
    )
    .option('--database <db>', 'database on that server', 'chbench')
    .option('--user <user>', 'user on that server', 'default')
    .option('--password-env <VAR>', "environment variable holding that user's password");
}

/** The database the options name: `--url`, else `CHBENCH_RESULTS_URL`, else `<results-dir>/db`. */
export function locationFromOptions(o: DbOptions): ResultsDbLocation {
  const url = o.url ?? resultsUrl();
  if (!url) return resultsDbLocation(undefined, o.resultsDir);
  return {
    kind: 'server',
    url,
    database: o.database,
    user: o.user,
    ...(o.passwordEnv ? { passwordEnv: o.passwordEnv } : {}),
  };
}

/**
 * Open the database the options name, run `fn` on it and close it.
 * @throws exits 3 when the database is busy or unreachable, 1 when it cannot be opened otherwise
 */
export async function withDb<T>(
  o: DbOptions,
  fn: (db: ResultsDb) => Promise<T>,
  open: OpenResultsDbOptions = {},
): Promise<T> {
  let db: ResultsDb;
  try {
    db = await openResultsDb(locationFromOptions(o), open);
  } catch (e) {
    fail(dbErrorCode(e), (e as Error).message);
  }
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}
