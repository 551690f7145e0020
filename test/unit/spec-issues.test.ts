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
  // Codec expressions are not a closed list: the server's trial at provisioning judges them.
  assert.deepEqual(problems({ ...base, matrix: { version: ['26.7'], codec: ['ZTSD(3)'] } }), []);
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
