"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEFAULT_MAX_EXECUTION_TIME_S = exports.RESULTS_EXIT = void 0;
exports.locationFromOptions = locationFromOptions;
exports.formatTable = formatTable;
exports.runFolders = runFolders;
exports.registerResultsCommands = registerResultsCommands;
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
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../config");
const db_1 = require("../results/db");
const export_1 = require("../results/db/export");
/** Exit codes of `results` and `export`. */
exports.RESULTS_EXIT = { ok: 0, failed: 1, invalid: 2, unavailable: 3 };
/** Default `--max-execution-time` of `results sql`, seconds. */
exports.DEFAULT_MAX_EXECUTION_TIME_S = 60;
/** The exit code of a database error: 3 busy or unreachable, else 1. */
function dbErrorCode(e) {
    return e instanceof db_1.ResultsDbUnavailableError ? exports.RESULTS_EXIT.unavailable : exports.RESULTS_EXIT.failed;
}
function die(code, msg) {
    console.error(`chbench: ${msg}`);
    process.exit(code);
}
function withDbOptions(c) {
    return c
        .option('--results-dir <dir>', 'results directory (the embedded database is <dir>/db)', 'results')
        .option('--url <url>', 'ClickHouse server holding the results database (default: CHBENCH_RESULTS_URL, else embedded)')
        .option('--database <db>', 'database on that server', 'chbench')
        .option('--user <user>', 'user on that server', 'default')
        .option('--password-env <VAR>', "environment variable holding that user's password");
}
/** The database the options name: `--url`, else `CHBENCH_RESULTS_URL`, else `<results-dir>/db`. */
function locationFromOptions(o) {
    const url = o.url ?? (0, config_1.resultsUrl)();
    if (!url)
        return (0, db_1.resultsDbLocation)(undefined, o.resultsDir);
    return {
        kind: 'server',
        url,
        database: o.database,
        user: o.user,
        ...(o.passwordEnv ? { passwordEnv: o.passwordEnv } : {}),
    };
}
async function withDb(o, fn, open = {}) {
    let db;
    try {
        db = await (0, db_1.openResultsDb)(locationFromOptions(o), open);
    }
    catch (e) {
        die(dbErrorCode(e), e.message);
    }
    try {
        return await fn(db);
    }
    finally {
        await db.close();
    }
}
/** Rows as an aligned text table (column names from the first row). */
function formatTable(rows) {
    if (!rows.length)
        return '(0 rows)';
    const cols = Object.keys(rows[0]);
    const cell = (v) => v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    const body = rows.map((r) => cols.map((c) => cell(r[c])));
    const width = cols.map((c, i) => Math.max(c.length, ...body.map((r) => r[i].length)));
    const line = (cells) => cells
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
function runFolders(dir) {
    if ((0, node_fs_1.existsSync)(node_path_1.default.join(dir, 'run.json')))
        return [dir];
    if (!(0, node_fs_1.existsSync)(dir) || !(0, node_fs_1.statSync)(dir).isDirectory())
        return [];
    return (0, node_fs_1.readdirSync)(dir)
        .sort()
        .map((d) => node_path_1.default.join(dir, d))
        .filter((d) => (0, node_fs_1.existsSync)(node_path_1.default.join(d, 'run.json')));
}
/** The run id a run folder stores (`run.json` `runId`), else the folder name. */
function storedRunId(dir) {
    try {
        return (JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(dir, 'run.json'), 'utf8')).runId ?? node_path_1.default.basename(dir));
    }
    catch {
        return node_path_1.default.basename(dir);
    }
}
/** Add `results` and `export` to the program. */
function registerResultsCommands(program) {
    const results = program
        .command('results')
        .description('the results database (embedded in <results-dir>/db, or a ClickHouse server)');
    withDbOptions(results.command('sql <statement>'))
        .description('run a read-only statement (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN, EXISTS) and print its rows')
        .option('--format <format>', 'table | json | csv', 'table')
        .option('--max-execution-time <s>', 'the server stops the statement after this many seconds (max_execution_time)', String(exports.DEFAULT_MAX_EXECUTION_TIME_S))
        .addHelpText('after', `
Refused before sending (exit 2): statements other than SELECT, WITH, SHOW, DESCRIBE, EXPLAIN, EXISTS; a
second statement; INTO OUTFILE; any readonly setting; table functions that reach files, the network
or processes (${db_1.REFUSED_TABLE_FUNCTIONS.join(', ')}; * = any name with that prefix).
On a ClickHouse server each statement is also sent with readonly=2. This check is a guard, not a
sandbox: a team server should give the CLI a read-only user (a profile with readonly = 2, so that
max_execution_time can still be sent) with SELECT on the results database only.

Exit codes:
  0  ok
  1  the statement failed on the server (its one-line message is printed)
  2  refused statement or bad argument
  3  results database busy or unreachable (e.g. another statement holds the embedded engine)
`)
        .action(async (sql, o) => {
        if (!['table', 'json', 'csv'].includes(o.format))
            die(2, `--format ${o.format}: expected table, json or csv`);
        const maxS = Number(o.maxExecutionTime);
        if (!/^\d+(\.\d+)?$/.test(o.maxExecutionTime) || !(maxS > 0))
            die(2, `--max-execution-time ${o.maxExecutionTime}: expected a number of seconds above 0`);
        const problem = (0, db_1.readOnlyProblem)(sql);
        if (problem)
            die(2, `refused: ${problem}`);
        const read = { maxExecutionTimeS: maxS };
        await withDb(o, async (db) => {
            try {
                if (o.format === 'csv')
                    process.stdout.write(await db.queryText(sql, 'CSVWithNames', read));
                else {
                    const rows = await db.query(sql, read);
                    console.log(o.format === 'json' ? JSON.stringify(rows, null, 2) : formatTable(rows));
                }
            }
            catch (e) {
                die(dbErrorCode(e), e.message);
            }
        }, 
        // The client waits 30 s longer than the server may run the statement: the server's TIMEOUT_EXCEEDED comes first.
        { requestTimeoutMs: Math.ceil(maxS * 1000) + 30_000 });
    });
    withDbOptions(results.command('import <dirs...>'))
        .description('load run folders (results/<runId>/ with run.json) into the database; a folder of runs loads each')
        .action(async (dirs, o) => {
        const folders = dirs.flatMap((d) => runFolders(node_path_1.default.resolve(d)));
        if (!folders.length)
            die(2, `no run folder (with run.json) in ${dirs.join(', ')}`);
        let failed = 0;
        await withDb(o, async (db) => {
            console.log(`results database: ${db.description}`);
            for (const f of folders) {
                try {
                    const n = await db.storeRun(f);
                    console.log(`stored ${storedRunId(f)} (folder ${node_path_1.default.basename(f)}): ${n.cells} cell(s), ${n.samples} sample(s)${n.comparisons ? ', a comparison' : ''}`);
                }
                catch (e) {
                    if (e instanceof db_1.ResultsDbUnavailableError)
                        die(exports.RESULTS_EXIT.unavailable, e.message);
                    failed++;
                    console.error(`chbench: ${f}: ${e.message}`);
                }
            }
        });
        console.log(`${folders.length - failed} of ${folders.length} run(s) stored`);
        if (failed)
            process.exit(1);
    });
    results
        .command('stop')
        .description("stop the embedded results database's engine process (it also stops by itself when idle)")
        .option('--results-dir <dir>', 'results directory', 'results')
        .action(async (o) => {
        const dir = node_path_1.default.resolve(o.resultsDir, 'db');
        const pid = await (0, db_1.stopEmbeddedResultsDb)(dir);
        console.log(pid
            ? `stopped the results database engine (pid ${pid}) of ${dir}`
            : `no results database engine running for ${dir}`);
    });
    withDbOptions(program.command('export <runId>'))
        .description('write a stored run in a format other tools read: clickbench (ClickBench result JSON per cell and phase), jsonl or csv (one line per measured query run)')
        .requiredOption('--format <format>', 'clickbench | jsonl | csv')
        .option('--out <path>', 'file (jsonl, csv) or directory (clickbench: <cell>.<phase>.json each); default stdout')
        .addHelpText('after', '\n<runId>: the stored run id or its folder name (`:` as `_`).\n\nExit codes: 0 written; 1 the database failed; 2 bad arguments or an unknown run; 3 results database busy or unreachable\n')
        .action(async (given, o) => {
        if (!['clickbench', 'jsonl', 'csv'].includes(o.format))
            die(2, `--format ${o.format}: expected clickbench, jsonl or csv`);
        await withDb(o, async (db) => {
            try {
                const runId = await db.resolveRunId(given);
                if (!runId)
                    die(2, `no run ${given} in the results database (${db.description}); load it with chbench results import`);
                if (o.format === 'clickbench') {
                    const docs = await (0, export_1.clickBenchResults)(db, runId);
                    if (!o.out)
                        return console.log(JSON.stringify(docs.map((d) => d.doc), null, 2));
                    (0, node_fs_1.mkdirSync)(o.out, { recursive: true });
                    for (const d of docs)
                        (0, node_fs_1.writeFileSync)(node_path_1.default.join(o.out, `${d.name}.json`), JSON.stringify(d.doc, null, 2) + '\n');
                    console.log(`${docs.length} ClickBench result file(s) in ${node_path_1.default.resolve(o.out)}`);
                    return;
                }
                const text = await db.queryText((0, export_1.samplesExportSql)(runId), o.format === 'csv' ? 'CSVWithNames' : 'JSONEachRow');
                if (!o.out)
                    return void process.stdout.write(text);
                (0, node_fs_1.mkdirSync)(node_path_1.default.dirname(node_path_1.default.resolve(o.out)), { recursive: true });
                (0, node_fs_1.writeFileSync)(o.out, text);
                console.log(node_path_1.default.resolve(o.out));
            }
            catch (e) {
                die(dbErrorCode(e), e.message);
            }
        });
    });
}
//# sourceMappingURL=results.js.map