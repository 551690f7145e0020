/**
 * Spec typos get a line a user can act on: "did you mean …" for a misspelt key, enum value or target
 * kind (closest allowed name), "missing" for a field left out (not zod's "received undefined"), and
 * the rejected value quoted. Each input is a spec a user could write; the lines come from `checkSpec`,
 * which `chbench validate`, `chbench run` and the worker's validateSpec all use.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSpec } from '../../src/targets/check-spec';
import { closestName } from '../../src/schema/spec-issues';

const base = {
  name: 'typos',
  workload: 'logs',
  scale: 1000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.7'], codec: ['LZ4'] },
};
const problems = (spec: Record<string, unknown>) => checkSpec(spec).problems;

test('a misspelt key: did you mean the closest allowed key, at the root and nested', () => {
  assert.deepEqual(problems({ ...base, concurrncy: 2 }), [
    '(root): unknown key(s) "concurrncy" (did you mean "concurrency"?)',
  ]);
  assert.deepEqual(problems({ ...base, protocol: { warmRun: 3 } }), [
    'protocol: unknown key(s) "warmRun" (did you mean "warmRuns"?)',
  ]);
  // The target's keys are those of its kind (the discriminated union's option for "local").
  assert.ok(
    problems({ ...base, target: { kind: 'local', binares: { '26.7': '/usr/bin/clickhouse' } } }).includes(
      'target: unknown key(s) "binares" (did you mean "binaries"?)',
    ),
  );
});

test('an unknown key with no close name lists the allowed keys', () => {
  const [line] = problems({ ...base, zzzzzz: 1 });
  assert.match(line, /^\(root\): unknown key\(s\) "zzzzzz"; allowed: specVersion, name, workload, scale, target, /);
  assert.doesNotMatch(line, /did you mean/);
});

test('an unknown enum value: quoted, with the closest allowed value and the list', () => {
  assert.deepEqual(problems({ ...base, teardown: 'nevr' }), [
    'teardown: "nevr" is not allowed (did you mean "never"?); allowed: "always", "on-success", "never"',
  ]);
  // Codec families and levels are judged from the text (the server's trial at provisioning judges the rest).
  const codec = (c: unknown[]) => problems({ ...base, matrix: { version: ['26.7'], codec: c } });
  assert.match(
    codec(['ZTSD(3)'])[0],
    /^matrix\.codec\.0: unknown codec family ZTSD \(did you mean ZSTD\?\); ClickHouse has /,
  );
  assert.match(codec(['ZSTD(99)'])[0], /^matrix\.codec\.0: ZSTD\(99\): the level must be 1–22/);
  assert.match(codec(['LZ4HC(13)'])[0], /LZ4HC\(13\): the level must be 1–12/);
  assert.match(codec(['Delta(3), LZ4'])[0], /Delta\(3\): the byte size must be one of 1, 2, 4, 8/);
  assert.match(codec(['T64(2)'])[0], /T64 takes no arguments, not 1/);
  assert.match(
    codec([{ name: 'p', default: 'ZSTD(3)', columns: { message: 'Gorila' } }])[0],
    /^matrix\.codec\.0\.columns\.message: unknown codec family Gorila \(did you mean Gorilla\?\)/,
  );
  assert.deepEqual(
    codec(['zstd(22)', 'LZ4HC(12)', 'Delta(8), ZSTD(1)', 'T64, LZ4', 'NONE', 'DoubleDelta', 'Gorilla(8)']),
    [],
  );
  assert.deepEqual(problems({ ...base, target: { kind: 'embeded' } }), [
    'target.kind: "embeded" is not allowed (did you mean "embedded"?); one of "embedded", "local", "external", "kubernetes", "docker"',
  ]);
});

test('a field left out says "missing", never "received undefined"', () => {
  const { scale: _scale, ...noScale } = base;
  assert.deepEqual(problems(noScale), ['scale: missing (expected number)']);
  assert.deepEqual(problems({ ...base, target: {} }), [
    'target.kind: missing; one of "embedded", "local", "external", "kubernetes", "docker"',
  ]);
  const local = problems({ ...base, target: { kind: 'local' } });
  assert.ok(local.includes('target.binaries: missing (expected record)'), local.join('\n'));
  for (const l of [...problems(noScale), ...local]) assert.doesNotMatch(l, /received undefined/);
});

test('a rejected value is quoted', () => {
  assert.deepEqual(problems({ ...base, scale: -5 }), ['scale: Too small: expected number to be >0; got -5']);
  assert.deepEqual(problems({ ...base, name: 'Bad Name' }), [
    'name: lower-case letters, digits and dashes, at most 41 characters; got "Bad Name"',
  ]);
  assert.deepEqual(problems({ ...base, matrix: { version: ['26,7'], codec: ['LZ4'] } }), [
    'matrix.version.0: a ClickHouse version such as "26.7" or "24.8.14.39"; got "26,7"',
  ]);
  assert.deepEqual(problems({ ...base, queries: 'Q1' }), ['queries: expected array, got "Q1"']);
});

test('closestName: a typo finds its name; a far or ambiguous word finds none', () => {
  assert.equal(closestName('concurrncy', ['concurrency', 'cloud']), 'concurrency');
  assert.equal(closestName('TearDown', ['teardown']), 'teardown', 'case is ignored');
  assert.equal(closestName('zzzzzz', ['teardown', 'scale']), undefined);
  assert.equal(closestName('ab', ['ax', 'ay']), undefined, 'two names at the same distance: no guess');
});
