/**
 * Failures as data, on captured server texts (no server): parseServerError on 18.16 and 26.x bodies,
 * the ClickHouse.<NAME> failure with its code/name details and retryability, and the retry lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ClickHouseError } from '@clickhouse/client';
import { ApplicationFailure, ActivityFailure, RetryState } from '@temporalio/common';
import { REPO_ROOT } from '../../src/config';
import {
  CLICKHOUSE_QUERY_ERRORS,
  FAILURE,
  NON_RETRYABLE,
  RETRIED_FAILURES,
  clickHouseFailure,
  clickHouseErrorName,
  describeFailure,
  hasFailureType,
  parseServerError,
} from '../../src/schema/failures';
import { clickHouseFailureOf } from '../../src/activities';

type Captured = Record<'18.16' | '26.x', Record<string, { http_status: number; body: string }>>;
const captured = JSON.parse(
  readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'server-errors.json'), 'utf8'),
) as Captured;

/** SQL → [code, name] the server reports (18.16 by code only). */
const EXPECTED: Record<string, [number, string]> = {
  'SELEC 1': [62, 'SYNTAX_ERROR'],
  'SELECT * FROM no_such_table': [60, 'UNKNOWN_TABLE'],
  'SELECT no_such_column': [47, 'UNKNOWN_IDENTIFIER'],
  'SELECT no_such_function(1)': [46, 'UNKNOWN_FUNCTION'],
  'SELECT 1 SETTINGS no_such_setting_xyz = 1': [115, 'UNKNOWN_SETTING'],
  'SELECT throwIf(1)': [395, 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO'],
  "SELECT toDate('x')": [38, 'CANNOT_PARSE_DATE'],
  "SELECT plus('a', 1)": [43, 'ILLEGAL_TYPE_OF_ARGUMENT'],
};

test('26.x texts: code, name and message without prefix or suffix', () => {
  for (const [sql, [code, name]] of Object.entries(EXPECTED)) {
    const p = parseServerError(captured['26.x'][sql].body);
    assert.ok(p, sql);
    assert.equal(p.code, code, sql);
    assert.equal(p.name, name, sql);
    assert.doesNotMatch(p.message, /^Code|DB::Exception|\(\w+\)$/, sql);
  }
  // A real server appends its version after the name.
  const server =
    "Code: 60. DB::Exception: Unknown table expression identifier 'nope' in scope SELECT * FROM nope. (UNKNOWN_TABLE) (version 26.7.1.1 (official build))";
  assert.deepEqual(parseServerError(server), {
    code: 60,
    name: 'UNKNOWN_TABLE',
    message: "Unknown table expression identifier 'nope' in scope SELECT * FROM nope.",
  });
});

test('18.16 texts: code and message; no name in the text, so the name comes from the code', () => {
  for (const [sql, [code, name]] of Object.entries(EXPECTED)) {
    const p = parseServerError(captured['18.16'][sql].body);
    assert.ok(p, sql);
    assert.equal(p.code, code, sql);
    assert.equal(p.name, undefined, `${sql}: 18.16 writes no name`);
    assert.doesNotMatch(p.message, /e\.displayText|e\.what|^DB::Exception/, sql);
    assert.equal(clickHouseErrorName(p.code, p.name), name, sql);
  }
  assert.equal(
    parseServerError(captured['18.16']['SELECT * FROM no_such_table'].body)?.message,
    "Table default.no_such_table doesn't exist.",
  );
});

test('a text without a server error marker is not a server error', () => {
  assert.equal(parseServerError('connect ECONNREFUSED 127.0.0.1:8123'), undefined);
  assert.equal(parseServerError('Code: abc'), undefined);
  assert.equal(clickHouseErrorName(9999), 'CODE_9999');
  assert.equal(clickHouseErrorName('60', 'UNKNOWN'), 'UNKNOWN_TABLE', "the client's UNKNOWN counts as no name");
});

test('a ClickHouse error becomes ClickHouse.<NAME> with code and name; query errors are non-retryable', () => {
  const f = clickHouseFailure({ code: 62, name: 'SYNTAX_ERROR', message: 'Syntax error' });
  assert.equal(f.type, 'ClickHouse.SYNTAX_ERROR');
  assert.deepEqual(f.details, [{ code: 62, name: 'SYNTAX_ERROR' }]);
  assert.equal(f.nonRetryable, true);
  const mem = clickHouseFailure({ code: 241, message: 'Memory limit (total) exceeded' });
  assert.equal(mem.type, 'ClickHouse.MEMORY_LIMIT_EXCEEDED');
  assert.equal(mem.nonRetryable, false, 'a resource error may pass on another attempt');
  for (const name of [
    'SYNTAX_ERROR',
    'UNKNOWN_TABLE',
    'UNKNOWN_IDENTIFIER',
    'UNKNOWN_SETTING',
    'ILLEGAL_TYPE_OF_ARGUMENT',
    'UNKNOWN_FUNCTION',
    'TYPE_MISMATCH',
    'UNKNOWN_CODEC',
  ])
    assert.ok(NON_RETRYABLE.includes(`ClickHouse.${name}`), name);
  // Every type chbench raises is raised with `nonRetryable: true` (but the retried ones, which say
  // when they stop); the list must agree with the raisers.
  for (const t of Object.values(FAILURE))
    assert.ok(NON_RETRYABLE.includes(t) !== RETRIED_FAILURES.includes(t), `${t}: in exactly one of the two lists`);
  assert.ok(!NON_RETRYABLE.includes('ClickHouseError'), 'retry policies list error names, not a JavaScript class');
  assert.equal(
    new Set(Object.values(CLICKHOUSE_QUERY_ERRORS)).size,
    Object.keys(CLICKHOUSE_QUERY_ERRORS).length,
    'one name per code',
  );
});

test('a query error is non-retryable by its code: a server that names it otherwise, or not at all, is still not retried', () => {
  const renamed = clickHouseFailure({ code: 47, name: 'UNKNOWN_IDENTIFIER_RENAMED', message: 'Missing columns' });
  // Classified by the code (stable across versions), the name the text gave kept in the details.
  assert.equal(renamed.type, 'ClickHouse.UNKNOWN_IDENTIFIER');
  assert.deepEqual(renamed.details, [
    { code: 47, name: 'UNKNOWN_IDENTIFIER', name_in_text: 'UNKNOWN_IDENTIFIER_RENAMED' },
  ]);
  assert.equal(renamed.nonRetryable, true);
  // Captured 18.16 bodies (no name in the text) of errors a retry cannot fix: no column, syntax.
  for (const [sql, [code, name]] of Object.entries(EXPECTED)) {
    const parsed = parseServerError(captured['18.16'][sql].body)!;
    const f = clickHouseFailure({ ...parsed, message: parsed.message });
    assert.equal(f.type, `ClickHouse.${name}`, sql);
    assert.equal(f.nonRetryable, true, `${sql}: code ${code}`);
  }
  const noColumn = clickHouseFailure({ code: 8, message: 'There is no column x in table' });
  assert.equal(noColumn.type, 'ClickHouse.THERE_IS_NO_COLUMN');
  assert.equal(noColumn.nonRetryable, true);
  // A load.sql that does not match its schema (a new user's first mistake): not retried for minutes.
  const columns = clickHouseFailure({
    code: 20,
    message: "Number of columns doesn't match (source: 3 and result: 4)",
  });
  assert.equal(columns.type, 'ClickHouse.NUMBER_OF_COLUMNS_DOESNT_MATCH');
  assert.equal(columns.nonRetryable, true);
});

test('a deterministic schema-state error is not retried: chdb 1.4.1 texts of a table its database could not keep', () => {
  // Captured from chdb 1.4.1 (ClickHouse 23.10.1.1) before its host made `default` an Atomic database:
  // CREATE TABLE IF NOT EXISTS t in `_local` (engine Overlay), then SHOW CREATE TABLE t, then the CREATE again.
  // Each is the same on every attempt; before, both were retried for minutes (12 attempts, backoff to 30 s).
  const texts: [string, number, string][] = [
    [
      'Code: 390. DB::Exception: There is no metadata of table `t` in database `_local` (engine Overlay). (CANNOT_GET_CREATE_TABLE_QUERY)',
      390,
      'CANNOT_GET_CREATE_TABLE_QUERY',
    ],
    [
      'Code: 57. DB::Exception: Directory for table data data/_local/t/ already exists. (TABLE_ALREADY_EXISTS)',
      57,
      'TABLE_ALREADY_EXISTS',
    ],
    // A system table the build lacks (1.4.1 has no system.parts): a limit of the build, never passing.
    ['Code: 60. DB::Exception: Table system.parts does not exist. (UNKNOWN_TABLE)', 60, 'UNKNOWN_TABLE'],
  ];
  for (const [text, code, name] of texts) {
    const f = clickHouseFailureOf(new Error(text));
    assert.equal(f?.type, `ClickHouse.${name}`, text);
    assert.deepEqual(f?.details, [{ code, name }], text);
    assert.equal(f?.nonRetryable, true, text);
    assert.ok(NON_RETRYABLE.includes(`ClickHouse.${name}`), `${name} is in the cell steps' nonRetryableErrorTypes`);
    // By code alone too (a server that writes no name, as 18.16 does).
    assert.equal(clickHouseFailure({ code, message: text }).nonRetryable, true, `code ${code}`);
  }
  // The engine host's own failures (code 1001: the host process died, a transport error) stay retryable:
  // the next attempt runs on a provisioned-again engine.
  const gone = clickHouseFailure({ code: 1001, name: 'STD_EXCEPTION', message: 'the chdb host process exited' });
  assert.equal(gone.nonRetryable, false);
});

test('the activity boundary converts a ClickHouseError (26.x) and an 18.16 text error; other errors pass', () => {
  const fromClient = clickHouseFailureOf(
    new ClickHouseError({ message: 'Unknown codec', code: '432', type: 'UNKNOWN_CODEC' }),
  );
  assert.equal(fromClient?.type, 'ClickHouse.UNKNOWN_CODEC');
  assert.equal(fromClient?.nonRetryable, true);
  const old = clickHouseFailureOf(new Error(captured['18.16']['SELECT * FROM no_such_table'].body.trim()));
  assert.equal(old?.type, 'ClickHouse.UNKNOWN_TABLE');
  assert.deepEqual(old?.details, [{ code: 60, name: 'UNKNOWN_TABLE' }]);
  assert.equal(clickHouseFailureOf(new Error('socket hang up')), undefined);
  assert.equal(
    clickHouseFailureOf(ApplicationFailure.create({ type: 'QueryFailed', message: 'Code: 60. x' })),
    undefined,
    'a chbench failure is kept',
  );
});

test('describeFailure reads the chain outermost first; hasFailureType finds a type in the chain', () => {
  const cause = ApplicationFailure.create({
    type: FAILURE.TargetUnavailable,
    message: 'loadData: the ClickHouse server is unreachable',
  });
  const err = new ActivityFailure(
    'Activity task failed',
    'loadData',
    '5',
    RetryState.NON_RETRYABLE_FAILURE,
    undefined,
    cause,
  );
  assert.equal(
    describeFailure(err),
    'activity loadData failed: Activity task failed: loadData: the ClickHouse server is unreachable',
  );
  assert.ok(hasFailureType(err, FAILURE.TargetUnavailable));
  assert.ok(!hasFailureType(err, FAILURE.InvalidSpec));
});
