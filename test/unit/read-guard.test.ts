/**
 * The read-only guard that parses (`src/results/db/read-guard.ts`): the syntax trees come from the real
 * ClickHouse parser of the npm chdb engine (26.7, in-process `EXPLAIN AST`, nothing run). A table of
 * variants that hide a file, URL or process behind quotes, backticks, comments in identifiers, heredoc
 * strings, nesting, unions, EXPLAIN and settings is refused by the tree — each also on its own, with the
 * text check out of the way — and plain reads of chbench's tables pass. No server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { astReadProblem } from '../../src/results/db/read-guard';
import { REFUSED_TABLE_FUNCTIONS, readOnlyProblem } from '../../src/results/db';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const chdb = require('chdb') as { query(sql: string, format: string): string };
const ast = (sql: string) => chdb.query(`EXPLAIN AST ${sql}`, 'TSVRaw');
const judged = (sql: string) => astReadProblem(ast(sql), REFUSED_TABLE_FUNCTIONS);

const BYPASSES: [string, RegExp][] = [
  [`SELECT 1 AS "#", line FROM file('/etc/shadow', 'LineAsString')`, /table function file|function file/],
  ["SELECT 1 AS `--`, line FROM file('/etc/shadow', 'LineAsString')", /function file/],
  [`SELECT 1 AS "a/*", line FROM file('/etc/passwd', 'LineAsString') -- */`, /function file/],
  [`SELECT * FROM runs INTO OUTFILE '/tmp/x' APPEND`, /INTO OUTFILE/],
  [`SELECT "#" FROM (SELECT 1 AS "#") INTO OUTFILE '/tmp/y'`, /INTO OUTFILE/],
  [`SELECT file('/etc/hostname')`, /function file/],
  [`SELECT * FROM view(SELECT * FROM url('http://127.0.0.1:1/', CSV, 'a String'))`, /function url/],
  [`SELECT * FROM numbers(1) WHERE 1 IN (SELECT 1 FROM s3('http://127.0.0.1:1/x', CSV, 'a UInt8'))`, /function s3/],
  [`SELECT 1 UNION ALL SELECT * FROM executable('id', TSV, 'a String')`, /function executable/],
  [`WITH x AS (SELECT * FROM FiLe('/etc/shadow', 'LineAsString')) SELECT * FROM x`, /function FiLe/],
  [`SELECT * FROM remoteSecure('127.0.0.1:9440', system.one)`, /function remoteSecure/],
  [`SELECT * FROM merge(system, '.*')`, /table function merge is not allowed/],
  [`SELECT * FROM \`file\`('/etc/shadow', 'LineAsString')`, /function file/],
  [`SELECT $$a$$ AS h, line FROM file('/etc/shadow', 'LineAsString')`, /function file/],
  [`EXPLAIN SELECT * FROM url('http://127.0.0.1:1/', CSV, 'a String')`, /function url/],
  [`EXPLAIN INSERT INTO runs SELECT * FROM runs`, /InsertQuery/],
  [`INSERT INTO FUNCTION file('/tmp/z', CSV, 'a UInt8') SELECT 1`, /InsertQuery/],
  [`SELECT * FROM input('a String')`, /function input/],
];

test('the parsed guard refuses every variant that reaches outside the database, each by its tree alone', () => {
  for (const [sql, why] of BYPASSES) {
    const p = judged(sql);
    assert.ok(p, `not refused by the tree: ${sql}`);
    assert.match(p, why, sql);
  }
});

test("the text check's old blind spot is closed too: a # or -- inside a quoted identifier starts no comment", () => {
  assert.match(
    readOnlyProblem(`SELECT 1 AS "#", line FROM file('/etc/shadow', 'LineAsString')`)!,
    /table function file/,
  );
  assert.match(readOnlyProblem("SELECT 1 AS `--x`, line FROM url('http://x', CSV, 'a String')")!, /table function url/);
  assert.match(readOnlyProblem(`SELECT 1 AS "#" INTO OUTFILE '/tmp/x'`)!, /INTO OUTFILE/);
  assert.match(readOnlyProblem('SELECT 1 SETTINGS max_execution_time = 0')!, /time limit/);
});

test("plain reads of chbench's tables pass the tree", () => {
  for (const sql of [
    'SELECT run_id, count() FROM query_runs GROUP BY run_id ORDER BY run_id',
    "WITH w AS (SELECT * FROM figures WHERE figure = 'read_rows') SELECT count() FROM w",
    'SELECT * FROM runs AS r INNER JOIN cells AS c ON c.run_id = r.run_id LIMIT 3',
    'SELECT number FROM numbers(3) UNION ALL SELECT 1',
    'SHOW TABLES',
    'DESCRIBE TABLE runs',
    'EXISTS TABLE runs',
    'SHOW CREATE TABLE runs',
    'EXPLAIN SELECT * FROM runs',
    'SELECT "#" FROM (SELECT 1 AS "#")',
    "SELECT name FROM system.settings WHERE name = 'max_execution_time'",
  ])
    assert.equal(judged(sql), undefined, sql);
});
