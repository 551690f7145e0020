/**
 * `chbench results …`: the results database from the command line.
 *
 *   chbench results sql "<SELECT …>" [--format table|json|csv] [--max-execution-time 60]
 *                                                                read-only SQL inside the database (other statements refused, exit 2)
 *   chbench results import <dir…>                                load run folders (a folder of runs: each subfolder with run.json)
 *   chbench results stop                                         stop the embedded database's engine process
 *
 * Every subcommand takes `--results-dir <dir>` (default `results`; the embedded database is
 * `<dir>/db`) or a server: `--url <http(s)://…>` (or `CHBENCH_RESULTS_URL`) with `--database`
 * (default `chbench`), `--user` (default `default`) and `--password-env <VAR>` (the name of the
 * variable holding the password, never the password); see `src/cli/results-db.ts`.
 *
 * Exit codes: 0 ok; 1 some runs could not be imported, or the statement failed on the server; 2 invalid
 * arguments or a refused statement; 3 the results database is busy or unreachable.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import {
  readOnlyProblem,
  ReadRefusedError,
  REFUSED_TABLE_FUNCTIONS,
  ALLOWED_TABLE_FUNCTIONS,
  ResultsDbUnavailableError,
  stopEmbeddedResultsDb,
} from '../../results/db';
import { fail, RESULTS_EXIT } from '../exit-codes';
import { dbErrorCode, withDb, withDbOptions, type DbOptions } from '../results-db';

/** Default `--max-execution-time` of `results sql`, seconds. */
export const DEFAULT_MAX_EXECUTION_TIME_S = 60;

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

/** Add `results sql|import|stop` to the chbench program. */
export function registerResultsCommand(program: Command): void {
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
second statement; INTO OUTFILE; any readonly or time-limit setting; table functions that reach files, the network
or processes (${REFUSED_TABLE_FUNCTIONS.join(', ')}; * = any name with that prefix).
Then the database's own parser (EXPLAIN AST, never run) must give one read whose tree holds no such
function (table or scalar), no other table function than ${ALLOWED_TABLE_FUNCTIONS.join(', ')}, and no INTO OUTFILE.
Each statement is also sent with the time limit (and readonly=2 on a server). This check is a guard, not a
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
      if (!['table', 'json', 'csv'].includes(o.format)) fail(2, `--format ${o.format}: expected table, json or csv`);
      const maxS = Number(o.maxExecutionTime);
      if (!/^\d+(\.\d+)?$/.test(o.maxExecutionTime) || !(maxS > 0))
        fail(2, `--max-execution-time ${o.maxExecutionTime}: expected a number of seconds above 0`);
      const problem = readOnlyProblem(sql);
      if (problem) fail(2, `refused: ${problem}`);
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
            // Refused by the parsed check (nothing ran): a refused statement, as the text check's.
            fail(e instanceof ReadRefusedError ? 2 : dbErrorCode(e), (e as Error).message);
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
      if (!folders.length) fail(2, `no run folder (with run.json) in ${dirs.join(', ')}`);
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
            if (e instanceof ResultsDbUnavailableError) fail(RESULTS_EXIT.unavailable, e.message);
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
}
