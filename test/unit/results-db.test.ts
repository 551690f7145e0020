/**
 * Results database pieces that need no engine: the read-only statement check, where the database
 * is, the rows a run folder gives (from the committed fixture), spec hashing and time conversion.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { canonicalJson, readOnlyProblem, readRunRows, resultsDbLocation, specHash } from '../../src/results/db';
import {
  fromDbTime,
  RECORDED_ZERO_READ,
  sampleMemory,
  sampleReads,
  sampleValidity,
  toDbTime,
} from '../../src/results/db/rows';
import { formatTable, runFolders } from '../../src/cli/commands/results';
import { ResultsDbSpec } from '../../src/schema/run-spec';
import type { CellResult, RunSample } from '../../src/schema/results';
import { REPO_ROOT } from '../../src/config';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');

test('read-only check: reads pass, writes and second statements are refused', () => {
  for (const ok of [
    'SELECT 1',
    '  (SELECT 1)',
    'with x AS (SELECT 1) SELECT * FROM x',
    '-- c\nSHOW TABLES',
    '/* x */ DESCRIBE runs',
    'EXPLAIN SELECT 1',
    'EXISTS runs',
    "SELECT ';' AS s;",
    "SELECT 'x' -- ; DROP",
  ])
    assert.equal(readOnlyProblem(ok), undefined, ok);
  assert.match(readOnlyProblem('DROP TABLE runs')!, /starts with DROP/);
  assert.match(readOnlyProblem('insert into runs select 1')!, /starts with INSERT/);
  assert.match(readOnlyProblem('ALTER TABLE samples DELETE WHERE 1')!, /starts with ALTER/);
  assert.match(readOnlyProblem('SELECT 1; DROP TABLE runs')!, /one statement only/);
  assert.match(readOnlyProblem('SELECT 1; SELECT 2')!, /one statement only/);
  // A read keyword first does not carry a write.
  assert.match(readOnlyProblem('WITH x AS (SELECT 1) INSERT INTO bisects SELECT * FROM bisects')!, /has INSERT/);
  for (const ok of [
    'SHOW CREATE TABLE runs',
    'SELECT * FROM system.tables',
    "SELECT 'INSERT' AS kind, `update`.x FROM t AS `update`",
    'SELECT * FROM system . parts',
  ])
    assert.equal(readOnlyProblem(ok), undefined, ok);
  assert.match(
    readOnlyProblem('SELECT 1 FROM t WHERE 1 SETTINGS max_threads = 1; SET readonly = 0')!,
    /has SET|one statement/,
  );
  assert.match(readOnlyProblem('   ')!, /no statement/);
});

test('read-only check: nothing outside the database (INTO OUTFILE, readonly, file/network/process table functions)', () => {
  for (const ok of [
    "SELECT cos(1), URLHash('x'), 'file(x)' AS s, toString(getSetting('readonly'))",
    'SELECT * FROM samples AS file_rows',
    "SELECT 1 -- INTO OUTFILE 'x'",
  ])
    assert.equal(readOnlyProblem(ok), undefined, ok);
  assert.match(readOnlyProblem("SELECT 1 INTO OUTFILE '/tmp/x.csv'")!, /INTO OUTFILE/);
  assert.match(readOnlyProblem("select 1 into\n outfile 'x' format CSV")!, /INTO OUTFILE/);
  for (const q of [
    'SELECT 1 SETTINGS readonly=0',
    'SELECT 1 SETTINGS `readonly` = 0',
    'WITH 1 AS x SELECT x SETTINGS READONLY = 2',
  ])
    assert.match(readOnlyProblem(q)!, /readonly setting/, q);
  for (const [q, fn] of [
    ["SELECT * FROM file('/etc/hostname', 'LineAsString')", 'file'],
    ["SELECT * FROM url('http://127.0.0.1:1/', CSV)", 'url'],
    ["SELECT * FROM s3Cluster('c', 'x')", 's3Cluster'],
    ["SELECT * FROM remoteSecure('h', system.one)", 'remoteSecure'],
    ["SELECT * FROM clusterAllReplicas('c', system.one)", 'clusterAllReplicas'],
    ["SELECT * FROM executable('x.sh', TabSeparated, 'a String')", 'executable'],
    ["SELECT * FROM icebergS3('x')", 'icebergS3'],
    ["SELECT * FROM mysql ('h', 'd', 't', 'u', 'p')", 'mysql'],
    ["SELECT * FROM `postgresql`('h', 'd', 't', 'u', 'p')", 'postgresql'],
    ["SELECT * FROM input('a String')", 'input'],
    ["SELECT (SELECT count() FROM deltaLake('x'))", 'deltaLake'],
  ])
    assert.match(readOnlyProblem(q)!, new RegExp(`table function ${fn} is not allowed`), q);
});

test('location: the spec server when given, else <resultsDir>/db', () => {
  assert.deepEqual(resultsDbLocation(undefined, 'results'), { kind: 'embedded', dir: path.resolve('results', 'db') });
  const spec = ResultsDbSpec.parse({ url: 'http://ch.internal:8123', passwordEnv: 'RESULTS_PW' });
  assert.deepEqual(resultsDbLocation(spec, 'results'), {
    kind: 'server',
    url: 'http://ch.internal:8123',
    database: 'chbench',
    user: 'default',
    passwordEnv: 'RESULTS_PW',
  });
});

test('rows of the fixture run folder: one sample row per measured query run', () => {
  const rows = readRunRows(FIXTURE);
  const run = JSON.parse(readFileSync(path.join(FIXTURE, 'run.json'), 'utf8')) as {
    runId: string;
    cells: string[];
    spec: unknown;
  };
  assert.equal(rows.run.run_id, run.runId);
  assert.equal(rows.run.schedule_id, null);
  assert.equal(rows.run.spec_hash, specHash(run.spec));
  assert.deepEqual(
    rows.cells.map((c) => c.cell_key),
    run.cells,
  );
  const cells = run.cells.map(
    (k) => JSON.parse(readFileSync(path.join(FIXTURE, 'cells', k, 'result.json'), 'utf8')) as CellResult,
  );
  const expected = cells.flatMap((c) =>
    [c.queries_baseline, c.queries_index].flatMap((q) =>
      (q?.queries ?? []).flatMap((x) => x.samples.map((s) => `${c.cellKey}/${q!.phase}/${x.id}/${s.kind}${s.n}`)),
    ),
  );
  assert.deepEqual(
    rows.samples.map((s) => `${s.cell_key}/${s.phase}/${s.query_id}/${s.kind}${s.n}`),
    expected,
  );
  assert.equal(rows.comparison, undefined);
  assert.ok(rows.samples.every((s) => s.valid && s.invalid_reason === null));
});

test('stored reads: a 0 is unknown (null, with why), never a figure; memory_usage from the query_log row', () => {
  const r = (x: Partial<RunSample>) =>
    sampleReads({ read_rows: null, read_bytes: null, read_source: null, ...x } as RunSample);
  assert.deepEqual(r({ read_rows: 41_000, read_bytes: 900_000, read_source: 'system.query_log' }), {
    read_rows: 41_000,
    read_bytes: 900_000,
    read_source: 'system.query_log',
    read_unknown: null,
  });
  // An older record took the engine's 0 statistics as the figure.
  assert.deepEqual(r({ read_rows: 0, read_bytes: 0, read_source: 'output statistics' }), {
    read_rows: null,
    read_bytes: null,
    read_source: null,
    read_unknown: `read_rows and read_bytes ${RECORDED_ZERO_READ}`,
  });
  // Rows known, bytes 0: the rows stay, the bytes are unknown.
  assert.deepEqual(r({ read_rows: 10, read_bytes: 0, read_source: 'http summary' }), {
    read_rows: 10,
    read_bytes: null,
    read_source: 'http summary',
    read_unknown: `read_bytes ${RECORDED_ZERO_READ}`,
  });
  // A run that recorded its unknown read already keeps its reason.
  const why = 'output statistics rows_read 0: a 0 read is unknown, not a figure';
  assert.deepEqual(r({ read_unknown: why }), {
    read_rows: null,
    read_bytes: null,
    read_source: null,
    read_unknown: why,
  });
  assert.equal(sampleMemory({ query_log: { memory_usage: '4194304' } }), 4_194_304);
  assert.equal(sampleMemory({ query_log: { memory_usage: 12 } }), 12);
  for (const q of [null, undefined, {}, { memory_usage: '' }, { memory_usage: 'n/a' }])
    assert.equal(sampleMemory({ query_log: q }), null, JSON.stringify(q));
  // The fixture (embedded 26.7: no query_log) stores every new column, as null where the engine gave nothing.
  for (const s of readRunRows(FIXTURE).samples) {
    assert.equal(s.memory_usage, null);
    assert.ok(s.read_rows === null || s.read_rows > 0, `no 0 read stored: ${JSON.stringify(s)}`);
    assert.ok('result_values_sha256' in s && 'read_unknown' in s && 'read_source' in s);
  }
});

test('validity: not cold (cold runs only) or not quiet makes a run invalid; unknown does not', () => {
  const s = (v: RunSample['validity'], kind: RunSample['kind'] = 'cold') =>
    sampleValidity({ kind, validity: v } as RunSample);
  const quiet = { valid: true, label: 'quiet', reasons: [] };
  assert.deepEqual(s({ quiet, cold: { valid: null, label: 'cold?', reasons: ['no counters'] } }), {
    valid: true,
    invalid_reason: null,
  });
  assert.deepEqual(s({ quiet, cold: { valid: false, label: 'not cold', reasons: ['read from cache'] } }), {
    valid: false,
    invalid_reason: 'not cold: read from cache',
  });
  assert.deepEqual(s({ quiet: { valid: false, label: 'not quiet', reasons: ['merge'] } }, 'warm'), {
    valid: false,
    invalid_reason: 'not quiet: merge',
  });
});

test('canonical JSON ignores key order; times round-trip through DateTime64(3) UTC', () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } }),
    '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
  );
  assert.equal(specHash({ a: 1, b: 2 }), specHash({ b: 2, a: 1 }));
  assert.equal(toDbTime('2026-11-30T06:46:39.818Z'), '2026-11-30 06:46:39.818');
  assert.equal(toDbTime('2026-11-30T07:46:39.818+01:00'), '2026-11-30 06:46:39.818');
  assert.equal(fromDbTime('2026-11-30 06:46:39.818'), '2026-11-30T06:46:39.818Z');
  assert.equal(toDbTime(null), null);
  assert.throws(() => toDbTime('yesterday'), /not a time/);
});

test('CLI helpers: table format and run folders', () => {
  assert.equal(
    formatTable([
      { a: 1, bb: null },
      { a: 22, bb: 'x' },
    ]),
    'a   bb\n--  ----\n1   NULL\n22  x\n(2 rows)',
  );
  assert.equal(formatTable([]), '(0 rows)');
  assert.deepEqual(runFolders(FIXTURE), [FIXTURE]);
  // Every run folder of the fixtures' results directory (the grids demo's run is there too).
  assert.deepEqual(runFolders(path.dirname(FIXTURE)), [FIXTURE, path.join(path.dirname(FIXTURE), 'grids-26.7')]);
  assert.deepEqual(runFolders(path.join(FIXTURE, 'nope')), []);
});
