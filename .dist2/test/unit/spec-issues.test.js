"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Spec typos get a line a user can act on: "did you mean …" for a misspelt key, enum value or target
 * kind (closest allowed name), "missing" for a field left out (not zod's "received undefined"), and
 * the rejected value quoted. Each input is a spec a user could write; the lines come from `checkSpec`,
 * which `chbench validate`, `chbench run` and the worker's validateSpec all use.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const validate_spec_1 = require("../../src/activities/matrix/validate-spec");
const spec_issues_1 = require("../../src/schema/spec-issues");
const base = {
    name: 'typos',
    workload: 'logs',
    scale: 1000,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
};
const problems = (spec) => (0, validate_spec_1.checkSpec)(spec).problems;
(0, node_test_1.test)('a misspelt key: did you mean the closest allowed key, at the root and nested', () => {
    strict_1.default.deepEqual(problems({ ...base, concurrncy: 2 }), [
        '(root): unknown key(s) "concurrncy" (did you mean "concurrency"?)',
    ]);
    strict_1.default.deepEqual(problems({ ...base, protocol: { warmRun: 3 } }), [
        'protocol: unknown key(s) "warmRun" (did you mean "warmRuns"?)',
    ]);
    // The target's keys are those of its kind (the discriminated union's option for "local").
    strict_1.default.ok(problems({ ...base, target: { kind: 'local', binares: { '26.7': '/usr/bin/clickhouse' } } }).includes('target: unknown key(s) "binares" (did you mean "binaries"?)'));
});
(0, node_test_1.test)('an unknown key with no close name lists the allowed keys', () => {
    const [line] = problems({ ...base, zzzzzz: 1 });
    strict_1.default.match(line, /^\(root\): unknown key\(s\) "zzzzzz"; allowed: specVersion, name, workload, scale, target, /);
    strict_1.default.doesNotMatch(line, /did you mean/);
});
(0, node_test_1.test)('an unknown enum value: quoted, with the closest allowed value and the list', () => {
    strict_1.default.deepEqual(problems({ ...base, teardown: 'nevr' }), [
        'teardown: "nevr" is not allowed (did you mean "never"?); allowed: "always", "on-success", "never"',
    ]);
    // Codec expressions are not a closed list: the server's trial at provisioning judges them.
    strict_1.default.deepEqual(problems({ ...base, matrix: { version: ['26.7'], codec: ['ZTSD(3)'] } }), []);
    strict_1.default.deepEqual(problems({ ...base, target: { kind: 'embeded' } }), [
        'target.kind: "embeded" is not allowed (did you mean "embedded"?); one of "embedded", "local", "external", "kubernetes"',
    ]);
});
(0, node_test_1.test)('a field left out says "missing", never "received undefined"', () => {
    const { scale: _scale, ...noScale } = base;
    strict_1.default.deepEqual(problems(noScale), ['scale: missing (expected number)']);
    strict_1.default.deepEqual(problems({ ...base, target: {} }), [
        'target.kind: missing; one of "embedded", "local", "external", "kubernetes"',
    ]);
    const local = problems({ ...base, target: { kind: 'local' } });
    strict_1.default.ok(local.includes('target.binaries: missing (expected record)'), local.join('\n'));
    for (const l of [...problems(noScale), ...local])
        strict_1.default.doesNotMatch(l, /received undefined/);
});
(0, node_test_1.test)('a rejected value is quoted', () => {
    strict_1.default.deepEqual(problems({ ...base, scale: -5 }), ['scale: Too small: expected number to be >0; got -5']);
    strict_1.default.deepEqual(problems({ ...base, name: 'Bad Name' }), [
        'name: lower-case letters, digits and dashes, at most 41 characters; got "Bad Name"',
    ]);
    strict_1.default.deepEqual(problems({ ...base, matrix: { version: ['26,7'], codec: ['LZ4'] } }), [
        'matrix.version.0: a ClickHouse version such as "26.7" or "24.8.14.39"; got "26,7"',
    ]);
    strict_1.default.deepEqual(problems({ ...base, queries: 'Q1' }), ['queries: expected array, got "Q1"']);
});
(0, node_test_1.test)('closestName: a typo finds its name; a far or ambiguous word finds none', () => {
    strict_1.default.equal((0, spec_issues_1.closestName)('concurrncy', ['concurrency', 'cloud']), 'concurrency');
    strict_1.default.equal((0, spec_issues_1.closestName)('TearDown', ['teardown']), 'teardown', 'case is ignored');
    strict_1.default.equal((0, spec_issues_1.closestName)('zzzzzz', ['teardown', 'scale']), undefined);
    strict_1.default.equal((0, spec_issues_1.closestName)('ab', ['ax', 'ay']), undefined, 'two names at the same distance: no guess');
});
//# sourceMappingURL=spec-issues.test.js.map