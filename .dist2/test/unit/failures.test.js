"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Failures as data, on captured server texts (no server): parseServerError on 18.16 and 26.x bodies,
 * the ClickHouse.<NAME> failure with its code/name details and retryability, and the retry lists.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("@clickhouse/client");
const common_1 = require("@temporalio/common");
const config_1 = require("../../src/config");
const failures_1 = require("../../src/schema/failures");
const activities_1 = require("../../src/activities");
const captured = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'server-errors.json'), 'utf8'));
/** SQL → [code, name] the server reports (18.16 by code only). */
const EXPECTED = {
    'SELEC 1': [62, 'SYNTAX_ERROR'],
    'SELECT * FROM no_such_table': [60, 'UNKNOWN_TABLE'],
    'SELECT no_such_column': [47, 'UNKNOWN_IDENTIFIER'],
    'SELECT no_such_function(1)': [46, 'UNKNOWN_FUNCTION'],
    'SELECT 1 SETTINGS no_such_setting_xyz = 1': [115, 'UNKNOWN_SETTING'],
    'SELECT throwIf(1)': [395, 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO'],
    "SELECT toDate('x')": [38, 'CANNOT_PARSE_DATE'],
    "SELECT plus('a', 1)": [43, 'ILLEGAL_TYPE_OF_ARGUMENT'],
};
(0, node_test_1.test)('26.x texts: code, name and message without prefix or suffix', () => {
    for (const [sql, [code, name]] of Object.entries(EXPECTED)) {
        const p = (0, failures_1.parseServerError)(captured['26.x'][sql].body);
        strict_1.default.ok(p, sql);
        strict_1.default.equal(p.code, code, sql);
        strict_1.default.equal(p.name, name, sql);
        strict_1.default.doesNotMatch(p.message, /^Code|DB::Exception|\(\w+\)$/, sql);
    }
    // A real server appends its version after the name.
    const server = "Code: 60. DB::Exception: Unknown table expression identifier 'nope' in scope SELECT * FROM nope. (UNKNOWN_TABLE) (version 26.7.1.1 (official build))";
    strict_1.default.deepEqual((0, failures_1.parseServerError)(server), {
        code: 60,
        name: 'UNKNOWN_TABLE',
        message: "Unknown table expression identifier 'nope' in scope SELECT * FROM nope.",
    });
});
(0, node_test_1.test)('18.16 texts: code and message; no name in the text, so the name comes from the code', () => {
    for (const [sql, [code, name]] of Object.entries(EXPECTED)) {
        const p = (0, failures_1.parseServerError)(captured['18.16'][sql].body);
        strict_1.default.ok(p, sql);
        strict_1.default.equal(p.code, code, sql);
        strict_1.default.equal(p.name, undefined, `${sql}: 18.16 writes no name`);
        strict_1.default.doesNotMatch(p.message, /e\.displayText|e\.what|^DB::Exception/, sql);
        strict_1.default.equal((0, failures_1.clickHouseErrorName)(p.code, p.name), name, sql);
    }
    strict_1.default.equal((0, failures_1.parseServerError)(captured['18.16']['SELECT * FROM no_such_table'].body)?.message, "Table default.no_such_table doesn't exist.");
});
(0, node_test_1.test)('a text without a server error marker is not a server error', () => {
    strict_1.default.equal((0, failures_1.parseServerError)('connect ECONNREFUSED 127.0.0.1:8123'), undefined);
    strict_1.default.equal((0, failures_1.parseServerError)('Code: abc'), undefined);
    strict_1.default.equal((0, failures_1.clickHouseErrorName)(9999), 'CODE_9999');
    strict_1.default.equal((0, failures_1.clickHouseErrorName)('60', 'UNKNOWN'), 'UNKNOWN_TABLE', "the client's UNKNOWN counts as no name");
});
(0, node_test_1.test)('a ClickHouse error becomes ClickHouse.<NAME> with code and name; query errors are non-retryable', () => {
    const f = (0, failures_1.clickHouseFailure)({ code: 62, name: 'SYNTAX_ERROR', message: 'Syntax error' });
    strict_1.default.equal(f.type, 'ClickHouse.SYNTAX_ERROR');
    strict_1.default.deepEqual(f.details, [{ code: 62, name: 'SYNTAX_ERROR' }]);
    strict_1.default.equal(f.nonRetryable, true);
    const mem = (0, failures_1.clickHouseFailure)({ code: 241, message: 'Memory limit (total) exceeded' });
    strict_1.default.equal(mem.type, 'ClickHouse.MEMORY_LIMIT_EXCEEDED');
    strict_1.default.equal(mem.nonRetryable, false, 'a resource error may pass on another attempt');
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
        strict_1.default.ok(failures_1.NON_RETRYABLE.includes(`ClickHouse.${name}`), name);
    // Every type chbench raises is raised with `nonRetryable: true`; the list must agree with the raisers.
    for (const t of Object.values(failures_1.FAILURE))
        strict_1.default.ok(failures_1.NON_RETRYABLE.includes(t), t);
    strict_1.default.ok(!failures_1.NON_RETRYABLE.includes('ClickHouseError'), 'retry policies list error names, not a JavaScript class');
    strict_1.default.equal(new Set(Object.values(failures_1.CLICKHOUSE_QUERY_ERRORS)).size, Object.keys(failures_1.CLICKHOUSE_QUERY_ERRORS).length, 'one name per code');
});
(0, node_test_1.test)('a query error is non-retryable by its code: a server that names it otherwise, or not at all, is still not retried', () => {
    const renamed = (0, failures_1.clickHouseFailure)({ code: 47, name: 'UNKNOWN_IDENTIFIER_RENAMED', message: 'Missing columns' });
    strict_1.default.equal(renamed.type, 'ClickHouse.UNKNOWN_IDENTIFIER_RENAMED');
    strict_1.default.equal(renamed.nonRetryable, true);
    // Captured 18.16 bodies (no name in the text) of errors a retry cannot fix: no column, syntax.
    for (const [sql, [code, name]] of Object.entries(EXPECTED)) {
        const parsed = (0, failures_1.parseServerError)(captured['18.16'][sql].body);
        const f = (0, failures_1.clickHouseFailure)({ ...parsed, message: parsed.message });
        strict_1.default.equal(f.type, `ClickHouse.${name}`, sql);
        strict_1.default.equal(f.nonRetryable, true, `${sql}: code ${code}`);
    }
    const noColumn = (0, failures_1.clickHouseFailure)({ code: 8, message: 'There is no column x in table' });
    strict_1.default.equal(noColumn.type, 'ClickHouse.THERE_IS_NO_COLUMN');
    strict_1.default.equal(noColumn.nonRetryable, true);
    // A load.sql that does not match its schema (a new user's first mistake): not retried for minutes.
    const columns = (0, failures_1.clickHouseFailure)({
        code: 20,
        message: "Number of columns doesn't match (source: 3 and result: 4)",
    });
    strict_1.default.equal(columns.type, 'ClickHouse.NUMBER_OF_COLUMNS_DOESNT_MATCH');
    strict_1.default.equal(columns.nonRetryable, true);
});
(0, node_test_1.test)('the activity boundary converts a ClickHouseError (26.x) and an 18.16 text error; other errors pass', () => {
    const fromClient = (0, activities_1.clickHouseFailureOf)(new client_1.ClickHouseError({ message: 'Unknown codec', code: '432', type: 'UNKNOWN_CODEC' }));
    strict_1.default.equal(fromClient?.type, 'ClickHouse.UNKNOWN_CODEC');
    strict_1.default.equal(fromClient?.nonRetryable, true);
    const old = (0, activities_1.clickHouseFailureOf)(new Error(captured['18.16']['SELECT * FROM no_such_table'].body.trim()));
    strict_1.default.equal(old?.type, 'ClickHouse.UNKNOWN_TABLE');
    strict_1.default.deepEqual(old?.details, [{ code: 60, name: 'UNKNOWN_TABLE' }]);
    strict_1.default.equal((0, activities_1.clickHouseFailureOf)(new Error('socket hang up')), undefined);
    strict_1.default.equal((0, activities_1.clickHouseFailureOf)(common_1.ApplicationFailure.create({ type: 'QueryFailed', message: 'Code: 60. x' })), undefined, 'a chbench failure is kept');
});
(0, node_test_1.test)('describeFailure reads the chain outermost first; hasFailureType finds a type in the chain', () => {
    const cause = common_1.ApplicationFailure.create({
        type: failures_1.FAILURE.TargetUnavailable,
        message: 'loadData: the ClickHouse server is unreachable',
    });
    const err = new common_1.ActivityFailure('Activity task failed', 'loadData', '5', common_1.RetryState.NON_RETRYABLE_FAILURE, undefined, cause);
    strict_1.default.equal((0, failures_1.describeFailure)(err), 'activity loadData failed: Activity task failed: loadData: the ClickHouse server is unreachable');
    strict_1.default.ok((0, failures_1.hasFailureType)(err, failures_1.FAILURE.TargetUnavailable));
    strict_1.default.ok(!(0, failures_1.hasFailureType)(err, failures_1.FAILURE.InvalidSpec));
});
//# sourceMappingURL=failures.test.js.map