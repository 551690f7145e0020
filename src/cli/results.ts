/**
 * `chbench results …` and `chbench export …`: the results database from the command line.
 *
 *   chbench results sql "<SELECT …>" [--format table|json|csv] [--max-execution-time 60]
 *                                                                read-only SQL inside the database (other statements refused, exit 2)
 *   chbench results import <dir…>                                load run folders (a folder of runs: each subfolder with run.json)
 *   chbench results stop                                         stop the embedded database's engine process
 *   chbench export --format clickbench|jsonl|csv <runId> [--out path]
 *
 * Every command takes `--results-dir <dir>` (default `results`; the embedded database is
 * `<dir>/db`) or a server: `--url <http(s)://…>` (or `CHBENCH_RESULTS_URL`) with `--database`
 * (default `chbench`), `--user` (default `default`) and `--password-env <VAR>` (the name of the
 * variable holding the password, never the password).
 *
 * Run ids: the stored one (`q1-2026-11-30T14:16:43Z`) or its folder name (`q1-2026-11-30T14_16_43Z`).
 *
 * Exit codes: 0 ok; 1 some runs could not be imported, or the statement failed on the server; 2 invalid
 * arguments, an unknown run or a refused statement; 3 the results database is busy or unreachable.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { resultsUrl } from '../config';

import {
  openResultsDb,
  readOnlyProblem,
  REFUSED_TABLE_FUNCTIONS,
  resultsDbLocation,
  ResultsDbUnavailableError,
  stopEmbeddedResultsDb,
  type OpenResultsDbOptions,
  type ResultsDb,
  type ResultsDbLocation,
} from '../results/db';
import { clickBenchResults, samplesExportSql } from '../results/db/export';

/** Options every command shares. */
interface DbOptions {
  resultsDir: string;
  url?: string;
  database: string;
  user: string;
  passwordEnv?: string;
}

/** Exit codes of `results` and `export`. */
export const RESULTS_EXIT = { ok: 0, failed: 1, invalid: 2, unavailable: 3 } as const;

/** Default `--max-execution-time` of `results sql`, seconds. */
export const DEFAULT_MAX_EXECUTION_TIME_S = 60;

/** The exit code of a database error: 3 busy or unreachable, else 1. */
function dbErrorCode(e: unknown): number {
  return e instanceof ResultsDbUnavailableError ? RESULTS_EXIT.unavailable : RESULTS_EXIT.failed;
}

function die(code: number, msg: string): never {
  console.error(`chbench: ${msg}`);
  process.exit(code);
}

function withDbOptions(c: Command): Command {
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

async function withDb<T>(o: DbOptions, fn: (db: ResultsDb) => Promise<T>, open: OpenResultsDbOptions = {}): Promise<T> {
  let db: ResultsDb;
  try {
    db = await openResultsDb(locationFromOptions(o), open);
  } catch (e) {
    die(dbErrorCode(e), (e as Error).message);
  }
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** Rows as an aligned text table (column names from the first row). */
export function formatTable(rows: Record<string, unknown>[]): string {
  if (!rows.length) return '(0 rows)';
  const cols = Object.keys(rows[0]);
  const cell = (v: unknown) =>
    v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  const body = rows.map((r) => cols.map((c) => cell(r[c])));
  const width = cols.map((c, i) => Math.max(c.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((s, i) => s.padEnd(width[i]))
      .join('  ')
      .trimEnd();
  return [
    line(cols),
    line(width.map((w) => '-'.repeat(w))),
    ...body.map(line),
    `(${rows.length} row${rows.length === 1 ? '' : 's'})`,
  ].join('\n');
}

/** Run folders under `dir`: itself when it holds `run.json`, else every subfolder that does (sorted). */
export function runFolders(dir: string): string[] {
  if (existsSync(path.join(dir, 'run.json'))) return [dir];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .sort()
    .map((d) => path.join(dir, d))
    .filter((d) => existsSync(path.join(d, 'run.json')));
}

/** The run id a run folder stores (`run.json` `runId`), else the folder name. */
function storedRunId(dir: string): string {
  try {
    return (
      (JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as { runId?: string }).runId ?? path.basename(dir)
    );
  } catch {
    return path.basename(dir);
  }
}

/** Add `results` and `export` to the program. */
export function registerResultsCommands(program: Command): void {
  const results = program
    .command('results')
    .description('the results database (embedded in <results-dir>/db, or a ClickHouse server)');

  withDbOptions(results.command('sql <statement>'))
    .description('run a read-only statement (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN, EXISTS) and print its rows')
    .option('--format <format>', 'table | json | csv', 'table')
    .option(
      '--max-execution-time <s>',
      'the server stops the statement after this many seconds (max_execution_time)',
      String(DEFAULT_MAX_EXECUTION_TIME_S),
    )
    .addHelpText(
      'after',
      `
Refused before sending (exit 2): statements other than SELECT, WITH, SHOW, DESCRIBE, EXPLAIN, EXISTS; a
second statement; INTO OUTFILE; any readonly setting; table functions that reach files, the network
or processes (${REFUSED_TABLE_FUNCTIONS.join(', ')}; * = any name with that prefix).
On a ClickHouse server each statement is also sent with readonly=2. This check is a guard, not a
sandbox: a team server should give the CLI a read-only user (a profile with readonly = 2, so that
max_execution_time can still be sent) with SELECT on the results database only.

Exit codes:
  0  ok
  1  the statement failed on the server (its one-line message is printed)
  2  refused statement or bad argument
  3  results database busy or unreachable (e.g. another statement holds the embedded engine)
`,
    )
    .action(async (sql: string, o: DbOptions & { format: string; maxExecutionTime: string }) => {
      if (!['table', 'json', 'csv'].includes(o.format)) die(2, `--format ${o.format}: expected table, json or csv`);
      const maxS = Number(o.maxExecutionTime);
      if (!/^\d+(\.\d+)?$/.test(o.maxExecutionTime) || !(maxS > 0))
        die(2, `--max-execution-time ${o.maxExecutionTime}: expected a number of seconds above 0`);
      const problem = readOnlyProblem(sql);
      if (problem) die(2, `refused: ${problem}`);
      const read = { maxExecutionTimeS: maxS };
      await withDb(
        o,
        async (db) => {
          try {
            if (o.format === 'csv') process.stdout.write(await db.queryText(sql, 'CSVWithNames', read));
            else {
              const rows = await db.query(sql, read);
              console.log(o.format === 'json' ? JSON.stringify(rows, null, 2) : formatTable(rows));
            }
          } catch (e) {
            die(dbErrorCode(e), (e as Error).message);
          }
        },
        // The client waits 30 s longer than the server may run the statement: the server's TIMEOUT_EXCEEDED comes first.
        { requestTimeoutMs: Math.ceil(maxS * 1000) + 30_000 },
      );
    });

  withDbOptions(results.command('import <dirs...>'))
    .description('load run folders (results/<runId>/ with run.json) into the database; a folder of runs loads each')
    .action(async (dirs: string[], o: DbOptions) => {
      const folders = dirs.flatMap((d) => runFolders(path.resolve(d)));
      if (!folders.length) die(2, `no run folder (with run.json) in ${dirs.join(', ')}`);
      let failed = 0;
      await withDb(o, async (db) => {
        console.log(`results database: ${db.description}`);
        for (const f of folders) {
          try {
            const n = await db.storeRun(f);
            console.log(
              `stored ${storedRunId(f)} (folder ${path.basename(f)}): ${n.cells} cell(s), ${n.samples} sample(s)${n.comparisons ? ', a comparison' : ''}`,
            );
          } catch (e) {
            if (e instanceof ResultsDbUnavailableError) die(RESULTS_EXIT.unavailable, e.message);
            failed++;
            console.error(`chbench: ${f}: ${(e as Error).message}`);
          }
        }
      });
      console.log(`${folders.length - failed} of ${folders.length} run(s) stored`);
      if (failed) process.exit(1);
    });

  results
    .command('stop')
    .description("stop the embedded results database's engine process (it also stops by itself when idle)")
    .option('--results-dir <dir>', 'results directory', 'results')
    .action(async (o: { resultsDir: string }) => {
      const dir = path.resolve(o.resultsDir, 'db');
      const pid = await stopEmbeddedResultsDb(dir);
      console.log(
        pid
          ? `stopped the results database engine (pid ${pid}) of ${dir}`
          : `no results database engine running for ${dir}`,
      );
    });

  withDbOptions(program.command('export <runId>'))
    .description(
      'write a stored run in a format other tools read: clickbench (ClickBench result JSON per cell and phase), jsonl or csv (one line per measured query run)',
    )
    .requiredOption('--format <format>', 'clickbench | jsonl | csv')
    .option('--out <path>', 'file (jsonl, csv) or directory (clickbench: <cell>.<phase>.json each); default stdout')
    .addHelpText(
      'after',
      '\n<runId>: the stored run id or its folder name (`:` as `_`).\n\nExit codes: 0 written; 1 the database failed; 2 bad arguments or an unknown run; 3 results database busy or unreachable\n',
    )
    .action(async (given: string, o: DbOptions & { format: string; out?: string }) => {
      if (!['clickbench', 'jsonl', 'csv'].includes(o.format))
        die(2, `--format ${o.format}: expected clickbench, jsonl or csv`);
      await withDb(o, async (db) => {
        try {
          const runId = await db.resolveRunId(given);
          if (!runId)
            die(2, `no run ${given} in the results database (${db.description}); load it with chbench results import`);
          if (o.format === 'clickbench') {
            const docs = await clickBenchResults(db, runId);
            if (!o.out)
              return console.log(
                JSON.stringify(
                  docs.map((d) => d.doc),
                  null,
                  2,
                ),
              );
            mkdirSync(o.out, { recursive: true });
            for (const d of docs)
              writeFileSync(path.join(o.out, `${d.name}.json`), JSON.stringify(d.doc, null, 2) + '\n');
            console.log(`${docs.length} ClickBench result file(s) in ${path.resolve(o.out)}`);
            return;
          }
          const text = await db.queryText(samplesExportSql(runId), o.format === 'csv' ? 'CSVWithNames' : 'JSONEachRow');
          if (!o.out) return void process.stdout.write(text);
          mkdirSync(path.dirname(path.resolve(o.out)), { recursive: true });
          writeFileSync(o.out, text);
          console.log(path.resolve(o.out));
        } catch (e) {
          die(dbErrorCode(e), (e as Error).message);
        }
      });
    });
}
