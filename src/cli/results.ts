/**
 * `chbench results …` and `chbench export …`: the results database from the command line.
 *
 *   chbench results sql "<SELECT …>" [--format table|json|csv]   read-only SQL (other statements refused, exit 2)
 *   chbench results import <dir…>                                load run folders (a folder of runs: each subfolder with run.json)
 *   chbench results stop                                         stop the embedded database's engine process
 *   chbench export --format clickbench|jsonl|csv <runId> [--out path]
 *
 * Every command takes `--results-dir <dir>` (default `results`; the embedded database is
 * `<dir>/db`) or a server: `--url <http(s)://…>` (or `CHBENCH_RESULTS_URL`) with `--database`
 * (default `chbench`), `--user` (default `default`) and `--password-env <VAR>` (the name of the
 * variable holding the password, never the password).
 *
 * Exit codes: 0 ok; 1 some runs could not be imported, or the database failed; 2 invalid arguments
 * or a refused statement.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { resultsUrl } from '../config';
import {
  openResultsDb,
  readOnlyProblem,
  resultsDbLocation,
  stopEmbeddedResultsDb,
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

async function withDb<T>(o: DbOptions, fn: (db: ResultsDb) => Promise<T>): Promise<T> {
  let db: ResultsDb;
  try {
    db = await openResultsDb(locationFromOptions(o));
  } catch (e) {
    die(1, (e as Error).message);
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

/** Add `results` and `export` to the program. */
export function registerResultsCommands(program: Command): void {
  const results = program
    .command('results')
    .description('the results database (embedded in <results-dir>/db, or a ClickHouse server)');

  withDbOptions(results.command('sql <statement>'))
    .description('run a read-only statement (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN, EXISTS) and print its rows')
    .option('--format <format>', 'table | json | csv', 'table')
    .action(async (sql: string, o: DbOptions & { format: string }) => {
      if (!['table', 'json', 'csv'].includes(o.format)) die(2, `--format ${o.format}: expected table, json or csv`);
      const problem = readOnlyProblem(sql);
      if (problem) die(2, `refused: ${problem}`);
      await withDb(o, async (db) => {
        try {
          if (o.format === 'csv') process.stdout.write(await db.queryText(sql, 'CSVWithNames'));
          else {
            const rows = await db.query(sql);
            console.log(o.format === 'json' ? JSON.stringify(rows, null, 2) : formatTable(rows));
          }
        } catch (e) {
          die(1, (e as Error).message);
        }
      });
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
              `stored ${path.basename(f)}: ${n.cells} cell(s), ${n.samples} sample(s)${n.comparisons ? ', a comparison' : ''}`,
            );
          } catch (e) {
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
    .action(async (runId: string, o: DbOptions & { format: string; out?: string }) => {
      if (!['clickbench', 'jsonl', 'csv'].includes(o.format))
        die(2, `--format ${o.format}: expected clickbench, jsonl or csv`);
      await withDb(o, async (db) => {
        try {
          if (!(await db.run(runId)))
            die(2, `no run ${runId} in the results database (${db.description}); load it with chbench results import`);
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
          die(1, (e as Error).message);
        }
      });
    });
}
