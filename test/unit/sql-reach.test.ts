/**
 * The engine server's reach check (src/engine/sql-reach.ts): what it refuses, what it lets through,
 * and the ways a lexer could be tricked into not seeing a call (quotes, comments, heredocs, escapes,
 * an INSERT's Values rows). The real server's refusal (code 291, nothing written) is in
 * test/integration/embedded-server.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reachProblem } from '../../src/engine/sql-reach';

const refused: [string, RegExp][] = [
  ["SELECT * FROM file('/etc/shadow', 'LineAsString')", /file\(…\)/],
  ["SELECT file('/etc/hostname')", /file\(…\)/],
  ["SELECT * FROM FILE ('/etc/shadow', 'LineAsString')", /FILE\(…\)/],
  ["SELECT * FROM file/* c */('/etc/shadow', 'LineAsString')", /file\(…\)/],
  ["SELECT 1 AS \"#\", line FROM file('/etc/shadow', 'LineAsString')", /file/],
  ["SELECT 1 AS \"--\", line FROM file('/etc/shadow', 'LineAsString')", /file/],
  ["SELECT 1 AS `a``--`, line FROM file('/etc/shadow', 'LineAsString')", /file/],
  ["SELECT 'it''s', line FROM file('/etc/shadow', 'LineAsString')", /file/],
  ["SELECT 'a\\'b', line FROM file('/etc/shadow', 'LineAsString')", /file/],
  ["SELECT $$'$$, line FROM file('/etc/shadow', 'LineAsString')", /file/],
  ["SELECT $tag$ ' \" $tag$, line FROM file('/etc/shadow', 'LineAsString')", /file/],
  ["SELECT 1 # it's a comment\n, line FROM file('/etc/shadow', 'LineAsString')", /file/],
  ["SELECT 1 /* outer /* inner */ ' */, line FROM file('/etc/shadow', 'LineAsString')", /file/],
  ["SELECT line FROM `file`('/etc/shadow', 'LineAsString')", /file\(…\)/],
  ["SELECT line FROM \"file\"('/etc/shadow', 'LineAsString')", /file\(…\)/],
  ["SELECT line FROM `\\x66ile`('/etc/shadow', 'LineAsString')", /not allowed/],
  ["SELECT * FROM (SELECT * FROM (SELECT * FROM url('http://127.0.0.1/', TSV, 'x String')))", /url/],
  ["SELECT * FROM s3Cluster('c', 'http://x/y', 'TSV')", /s3Cluster/],
  ["SELECT * FROM icebergS3('http://x/y')", /icebergS3/],
  ["SELECT * FROM remoteSecure('127.0.0.1', system.one)", /remoteSecure/],
  ["SELECT * FROM executable('cat /etc/shadow', TSV, 'x String')", /executable/],
  ['SELECT * FROM Python(df)', /Python/],
  ["SELECT 1 INTO OUTFILE '/tmp/x' FORMAT TSV", /INTO OUTFILE/],
  ["SELECT * FROM (SELECT 1 INTO OUTFILE '/tmp/x')", /INTO OUTFILE/],
  ["INSERT INTO t FROM INFILE '/etc/shadow' FORMAT LineAsString", /FROM INFILE/],
  ["INSERT INTO FUNCTION file('/tmp/x', 'TSV', 'x UInt8') VALUES (1)", /file/],
  ["INSERT INTO t VALUES (file('/etc/shadow'))", /file/],
  ["INSERT INTO t FORMAT Values (file('/etc/shadow'))", /file/],
  ["CREATE TABLE t (x String) ENGINE = File(TSV, '/tmp/x')", /File/],
  ["CREATE TABLE t (x String) ENGINE = Kafka SETTINGS kafka_broker_list = 'h:9092'", /Kafka/],
  ["CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x SETTINGS disk = disk(type = local, path = '/etc/')", /disk/],
  [
    "CREATE DICTIONARY d (k UInt64, v String) PRIMARY KEY k SOURCE(FILE(path '/etc/shadow' format 'TSV')) LAYOUT(FLAT()) LIFETIME(0)",
    /FILE/,
  ],
  [
    "CREATE DICTIONARY d (k UInt64) PRIMARY KEY k SOURCE(CLICKHOUSE(host '10.0.0.1' table 't')) LAYOUT(FLAT()) LIFETIME(0)",
    /CLICKHOUSE/,
  ],
  ["ATTACH TABLE t FROM '/var/lib/x' (x UInt8) ENGINE = MergeTree ORDER BY x", /ATTACH/],
  ["BACKUP TABLE t TO Disk('backups', 'b.zip')", /BACKUP/],
  ["SELECT 'unterminated", /unterminated/],
  ['SELECT 1 /* open', /unterminated/],
  ['SELECT $x$ open', /unterminated/],
];

test('refuses every call that reaches outside, however it is quoted or hidden', () => {
  for (const [sql, why] of refused) {
    const p = reachProblem(sql);
    assert.ok(p, `not refused: ${sql}`);
    assert.match(p, why, sql);
  }
});

const allowed = [
  'SELECT count() FROM logs WHERE status >= 500',
  'SELECT \'file(1)\', "url(", `s3(` FROM numbers(3)',
  "SELECT domain(url), URLHierarchy(url), cutURLParameter(url, 'a') FROM logs",
  'SELECT file_size, url_path FROM t -- file(x) in a comment',
  'SELECT 1 /* url(x) */ # remote(y)',
  "SELECT $$ file('x') $$",
  'CREATE TABLE t (x UInt64, url String, file String) ENGINE = MergeTree ORDER BY x',
  "INSERT INTO t SELECT number, 'a', 'b' FROM numbers(10)",
  'INSERT INTO t FORMAT JSONEachRow {"x": 1, "url": "file(\'/etc/shadow\')"}',
  "INSERT INTO t FORMAT TSV 1\tfile('/etc/shadow')",
  'SYSTEM DROP MARK CACHE',
  "KILL QUERY WHERE query_id = 'q' SYNC",
  'SELECT * FROM system.parts',
  "SELECT * FROM generateRandom('a UInt64', 1) LIMIT 5",
];

test('lets through what benchmarks send: reads, DDL, INSERT data that merely spells a call, URL functions on columns', () => {
  for (const sql of allowed) assert.equal(reachProblem(sql), undefined, sql);
});
