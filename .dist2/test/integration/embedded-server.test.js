"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Embedded target end to end, with the real chdb engine in a separate process and the real
 * @clickhouse/client over HTTP on 127.0.0.1. No mocks.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const node_crypto_1 = require("node:crypto");
const client_1 = require("@clickhouse/client");
const embedded_1 = require("../../src/targets/embedded");
const server_1 = require("../../src/targets/embedded/server");
const process_1 = require("../../src/targets/process");
const poll_1 = require("../../src/lib/poll");
/** The expected errors would otherwise be logged by the client. */
const QUIET = { level: client_1.ClickHouseLogLevel.OFF };
async function running(url) {
    return JSON.parse((await (0, process_1.httpGet)(`${url}/chbench/running`, 5000)).body);
}
/** Wait (at most 20 s, checking every 20 ms) until `cond` holds; an error of `cond` ends the wait. */
async function waitUntil(what, cond) {
    await (0, poll_1.pollUntil)(cond, { what, timeoutMs: 20_000, intervalMs: 20, stopOn: () => true });
}
function summaryOf(headers) {
    const raw = headers['x-clickhouse-summary'];
    strict_1.default.equal(typeof raw, 'string', 'x-clickhouse-summary header present');
    return JSON.parse(raw);
}
(0, node_test_1.describe)('embedded target (chdb in a separate process)', { timeout: 180_000 }, () => {
    let workDir;
    let req;
    let handle;
    let client;
    const started = [];
    (0, node_test_1.before)(async () => {
        workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-embedded-test-'));
        req = { runId: `test/run ${(0, node_crypto_1.randomUUID)().slice(0, 8)}`, cellKey: 'cell-a', version: '26.7', workDir };
    });
    (0, node_test_1.after)(async () => {
        await client?.close();
        for (const h of started)
            await (0, embedded_1.teardownEmbedded)(h).catch(() => undefined);
        fs.rmSync(workDir, { recursive: true, force: true });
    });
    (0, node_test_1.it)('provisions a separate process with a label, on loopback', async () => {
        handle = await (0, embedded_1.provisionEmbedded)(req);
        started.push(handle);
        strict_1.default.equal(handle.kind, 'embedded');
        strict_1.default.match(handle.url, /^http:\/\/127\.0\.0\.1:\d+$/);
        strict_1.default.equal(handle.database, 'default');
        strict_1.default.equal(handle.username, 'default');
        strict_1.default.ok(handle.pid && handle.pid !== process.pid && (0, process_1.isAlive)(handle.pid));
        strict_1.default.ok(handle.dataDir && handle.dataDir.startsWith(workDir) && fs.existsSync(handle.dataDir));
        strict_1.default.ok((0, process_1.processMentions)(handle.pid, handle.dataDir), 'the server command line names its data dir');
        strict_1.default.match(handle.provisionedBy, new RegExp(`^chdb 3\\.4\\.0 \\(ClickHouse 26\\.7\\.[\\d.]+\\) in pid ${handle.pid}, separate process$`));
        const label = (0, process_1.readLabel)(handle.dataDir);
        strict_1.default.ok(label && fs.existsSync(path.join(handle.dataDir, process_1.LABEL_FILE)));
        strict_1.default.equal(label.runId, req.runId);
        strict_1.default.equal(label.cellKey, req.cellKey);
        strict_1.default.equal(label.pid, handle.pid);
        strict_1.default.equal(label.url, handle.url);
        client = (0, client_1.createClient)({
            url: handle.url,
            username: handle.username,
            password: '',
            request_timeout: 120_000,
            log: QUIET,
        });
    });
    (0, node_test_1.it)('answers ping', async () => {
        const r = await client.ping();
        strict_1.default.equal(r.success, true);
    });
    (0, node_test_1.it)('creates a MergeTree table and inserts JSONEachRow rows (written_rows measured)', async () => {
        await client.command({
            query: 'CREATE TABLE t (id UInt64, name String, ts DateTime64(3)) ENGINE = MergeTree ORDER BY id',
        });
        const rows = [1, 2, 3, 4, 5].map((i) => ({ id: i, name: `n${i}`, ts: '2026-11-29 12:00:00.000' }));
        const ins = await client.insert({ table: 't', values: rows, format: 'JSONEachRow' });
        strict_1.default.equal(ins.executed, true);
        strict_1.default.equal(ins.summary?.written_rows, '5');
        // INSERT … SELECT: written rows are not measured, so they must be absent (not "0").
        const cmd = await client.command({ query: "INSERT INTO t SELECT number + 100, 'gen', now64(3) FROM numbers(995)" });
        strict_1.default.equal(summaryOf(cmd.response_headers).written_rows, undefined);
        strict_1.default.match(String(cmd.response_headers['x-chbench-unmeasured']), /written_rows/);
    });
    (0, node_test_1.it)('inserts binary formats (RowBinary, Native), the statement in the query parameter or at the head of the body; backquoted names', async () => {
        await client.command({ query: 'CREATE TABLE bin (id UInt64, name String) ENGINE = MergeTree ORDER BY id' });
        // RowBinary: UInt64 little-endian, then String as a LEB128 length and its bytes (a NUL byte included).
        const rowBinary = (ids) => Buffer.concat(ids.flatMap((i) => {
            const n = Buffer.alloc(8);
            n.writeBigUInt64LE(BigInt(i));
            const name = Buffer.from(`n\u0000${i}`);
            return [n, Buffer.from([name.length]), name];
        }));
        const post = async (query, body) => {
            const url = `${handle.url}/?${query ? `query=${encodeURIComponent(query)}&` : ''}query_id=bin-${(0, node_crypto_1.randomUUID)()}`;
            const r = await fetch(url, { method: 'POST', body });
            return { status: r.status, text: await r.text() };
        };
        strict_1.default.deepEqual(await post('INSERT INTO `bin` (`id`, name) FORMAT RowBinary', rowBinary([1, 2, 3])), {
            status: 200,
            text: '',
        });
        const inBody = await post(undefined, Buffer.concat([Buffer.from('INSERT INTO bin FORMAT RowBinary\n'), rowBinary([4, 5])]));
        strict_1.default.equal(inBody.status, 200, inBody.text);
        // Native, produced by the engine itself, inserted back.
        const native = await fetch(`${handle.url}/?query=${encodeURIComponent("SELECT number + 10 AS id, concat('x', toString(number)) AS name FROM numbers(4) FORMAT Native")}`);
        strict_1.default.equal((await post('INSERT INTO bin FORMAT Native', Buffer.from(await native.arrayBuffer()))).status, 200);
        // A text format with a backquoted table name (what chbench's inserter sends) goes through chdb's raw insert.
        strict_1.default.equal((await post('INSERT INTO `bin` (`id`, `name`) FORMAT JSONEachRow', Buffer.from('{"id":20,"name":"j"}\n'))).status, 200);
        const rs = await client.query({ query: 'SELECT id, name FROM bin ORDER BY id', format: 'JSONEachRow' });
        const rows = await rs.json();
        strict_1.default.deepEqual(rows.map((r) => [Number(r.id), r.name]), [
            [1, 'n\u00001'],
            [2, 'n\u00002'],
            [3, 'n\u00003'],
            [4, 'n\u00004'],
            [5, 'n\u00005'],
            [10, 'x0'],
            [11, 'x1'],
            [12, 'x2'],
            [13, 'x3'],
            [20, 'j'],
        ], 'every row exactly once, bytes intact (no garbage rows from binary data read as SQL)');
        const left = fs.existsSync(path.join(handle.dataDir, 'insert-bodies'))
            ? fs.readdirSync(path.join(handle.dataDir, 'insert-bodies'))
            : [];
        strict_1.default.deepEqual(left, [], 'body files are removed after each insert');
    });
    (0, node_test_1.it)('echoes query_id and reports the engine-measured summary', async () => {
        const queryId = `q-${(0, node_crypto_1.randomUUID)()}`;
        // wait_end_of_query=1: the result is buffered and the summary holds the engine's figures.
        const sql = "SELECT count() AS c, sum(id) AS s FROM t WHERE name != ''";
        const rs = await client.query({
            query: sql,
            query_id: queryId,
            format: 'JSON',
            clickhouse_settings: { wait_end_of_query: 1 },
        });
        strict_1.default.equal(rs.query_id, queryId);
        const body = await rs.json();
        // ClickHouse 26.7 defaults output_format_json_quote_64bit_integers to 0: UInt64 comes unquoted.
        strict_1.default.equal(Number(body.data[0].c), 1000);
        strict_1.default.equal(rs.response_headers['x-clickhouse-query-id'], queryId);
        const s = summaryOf(rs.response_headers);
        strict_1.default.equal(s.read_rows, '1000', 'read_rows = rows scanned');
        strict_1.default.ok(Number(s.read_bytes) > 0);
        strict_1.default.equal(s.result_rows, '1');
        strict_1.default.ok(Number(s.elapsed_ns) > 0);
        strict_1.default.equal(s.written_rows, undefined);
        strict_1.default.equal(rs.response_headers['x-clickhouse-format'], 'JSON');
        strict_1.default.match(String(rs.response_headers['x-clickhouse-timezone']), /\S/);
        strict_1.default.match(String(rs.response_headers['x-chbench-engine']), /^chdb 3\.4\.0$/);
        strict_1.default.equal(rs.response_headers['x-chbench-result'], 'buffered');
        strict_1.default.match(String(rs.response_headers['x-clickhouse-exception-tag']), /^[a-z0-9]{16}$/);
        // Without it the result is streamed: nothing was measured when the headers went out.
        const rsS = await client.query({ query: sql, format: 'JSON' });
        const bodyS = await rsS.json();
        strict_1.default.equal(Number(bodyS.data[0].c), 1000);
        strict_1.default.equal(rsS.response_headers['x-chbench-result'], 'streamed');
        strict_1.default.deepEqual(summaryOf(rsS.response_headers), {});
        strict_1.default.match(String(rsS.response_headers['x-chbench-unmeasured']), /read_rows.*elapsed_ns/);
        strict_1.default.ok(bodyS.statistics.elapsed > 0);
        strict_1.default.equal(bodyS.statistics.rows_read, undefined);
        // A format without a statistics block: read_rows is unmeasured, hence omitted; result_rows stays.
        const rs2 = await client.query({
            query: 'SELECT id FROM t WHERE id > 1000 ORDER BY id',
            format: 'JSONEachRow',
            clickhouse_settings: { wait_end_of_query: 1 },
        });
        const ids = await rs2.json();
        strict_1.default.equal(ids.length, 94);
        const s2 = summaryOf(rs2.response_headers);
        strict_1.default.equal(s2.read_rows, undefined);
        strict_1.default.equal(s2.result_rows, '94');
        strict_1.default.match(String(rs2.response_headers['x-chbench-unmeasured']), /read_rows/);
    });
    (0, node_test_1.it)('applies clickhouse_settings for one statement only', async () => {
        const get = async (settings) => {
            const rs = await client.query({
                query: "SELECT getSetting('max_threads') AS v",
                format: 'JSONEachRow',
                clickhouse_settings: settings,
            });
            return Number((await rs.json())[0].v);
        };
        const before = await get();
        strict_1.default.equal(await get({ max_threads: 3 }), 3);
        strict_1.default.equal(await get(), before, 'reset afterwards');
        strict_1.default.notEqual(before, 3);
    });
    (0, node_test_1.it)('honours database and query parameters', async () => {
        await client.command({ query: 'CREATE DATABASE IF NOT EXISTS other' });
        const other = (0, client_1.createClient)({ url: handle.url, database: 'other', log: QUIET });
        try {
            const rs = await other.query({
                query: 'SELECT currentDatabase() AS d, {x:String} AS x, {n:UInt8} + 1 AS n',
                format: 'JSONEachRow',
                query_params: { x: "it's\ta", n: 41 },
            });
            strict_1.default.deepEqual(await rs.json(), [{ d: 'other', x: "it's\ta", n: 42 }]);
        }
        finally {
            await other.close();
        }
        const rs = await client.query({ query: 'SELECT currentDatabase() AS d', format: 'JSONEachRow' });
        strict_1.default.deepEqual(await rs.json(), [{ d: 'default' }]);
    });
    (0, node_test_1.it)('maps engine errors to ClickHouseError with code and type', async () => {
        await strict_1.default.rejects(client.query({ query: 'SELECT * FROM no_such_table', format: 'JSON' }), (e) => {
            strict_1.default.ok(e instanceof client_1.ClickHouseError, `ClickHouseError, got ${String(e)}`);
            strict_1.default.equal(e.code, '60');
            strict_1.default.equal(e.type, 'UNKNOWN_TABLE');
            return true;
        });
        await strict_1.default.rejects(client.command({ query: 'SELECT 1; SELECT 2' }), (e) => e instanceof client_1.ClickHouseError && e.code === '62');
    });
    (0, node_test_1.it)('answers /ping during a long query, lists running/queued ids, kills a queued one only', async () => {
        const longId = `long-${(0, node_crypto_1.randomUUID)()}`;
        const queuedId = `queued-${(0, node_crypto_1.randomUUID)()}`;
        const long = client.query({
            query: 'SELECT sum(cityHash64(number)) AS s FROM numbers(2000000000)',
            query_id: longId,
            format: 'JSONEachRow',
            // Buffered (wait_end_of_query=1): chdb cannot interrupt it (a streamed one stops between chunks).
            clickhouse_settings: { output_format_json_quote_64bit_integers: 1, wait_end_of_query: 1 },
        });
        await waitUntil('long query running', async () => (await running(handle.url)).some((r) => r.query_id === longId && r.state === 'running'));
        const t0 = Date.now();
        strict_1.default.equal((await client.ping()).success, true);
        const pingMs = Date.now() - t0;
        strict_1.default.ok(pingMs < 500, `ping took ${pingMs} ms while a query ran`);
        const queued = client.query({ query: 'SELECT 1', query_id: queuedId, format: 'JSONEachRow' });
        const queuedOutcome = queued.then(() => 'resolved', (e) => e);
        await waitUntil('second query queued', async () => (await running(handle.url)).some((r) => r.query_id === queuedId && r.state === 'queued' && r.started_at_ms === null));
        const list = await running(handle.url);
        const longEntry = list.find((r) => r.query_id === longId);
        strict_1.default.ok(longEntry && typeof longEntry.started_at_ms === 'number' && longEntry.sql_head.includes('numbers(2000000000)'));
        // The same query_id cannot run twice.
        await strict_1.default.rejects(client.query({ query: 'SELECT 2', query_id: longId }), (e) => e instanceof client_1.ClickHouseError && e.code === '216');
        // A running statement cannot be interrupted: a clear error, not a pretend success.
        await strict_1.default.rejects(client.command({ query: `KILL QUERY WHERE query_id = '${longId}'` }), (e) => e instanceof client_1.ClickHouseError && e.code === '48');
        // A queued one is removed and fails with QUERY_WAS_CANCELLED.
        const kill = await client.query({ query: `KILL QUERY WHERE query_id = '${queuedId}' SYNC`, format: 'JSONEachRow' });
        strict_1.default.deepEqual((await kill.json()).map((r) => [r.kill_status, r.query_id]), [['finished', queuedId]]);
        const err = await queuedOutcome;
        strict_1.default.ok(err instanceof client_1.ClickHouseError && err.code === '394' && err.type === 'QUERY_WAS_CANCELLED', `queued query cancelled, got ${String(err)}`);
        const res = await (await long).json();
        strict_1.default.match(res[0].s, /^\d+$/);
        strict_1.default.deepEqual(await running(handle.url), []);
    });
    (0, node_test_1.it)('adopts the running server when provisioned again, even by two attempts at once', async () => {
        const [a, b] = await Promise.all([(0, embedded_1.provisionEmbedded)(req), (0, embedded_1.provisionEmbedded)(req)]);
        strict_1.default.deepEqual(a, handle);
        strict_1.default.deepEqual(b, handle);
    });
    (0, node_test_1.it)('restarts on the same data when the process died (retry after a crash)', async () => {
        const oldPid = handle.pid;
        process.kill(oldPid, 'SIGKILL');
        await waitUntil('killed server gone', async () => !(0, process_1.isAlive)(oldPid));
        const fresh = await (0, embedded_1.provisionEmbedded)(req);
        started.push(fresh);
        strict_1.default.notEqual(fresh.pid, oldPid);
        strict_1.default.equal(fresh.dataDir, handle.dataDir);
        const c2 = (0, client_1.createClient)({ url: fresh.url, log: QUIET });
        try {
            const rs = await c2.query({
                query: 'SELECT count() AS c FROM t',
                format: 'JSONEachRow',
                clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
            });
            strict_1.default.deepEqual(await rs.json(), [{ c: '1000' }]);
        }
        finally {
            await c2.close();
        }
        handle = fresh;
    });
    (0, node_test_1.it)('teardown lets the executing statement finish, stops the process, removes the directory; twice is fine', async () => {
        const pid = handle.pid;
        const dir = handle.dataDir;
        const c3 = (0, client_1.createClient)({ url: handle.url, log: QUIET, request_timeout: 120_000 });
        const inFlightId = `last-${(0, node_crypto_1.randomUUID)()}`;
        const last = c3.query({
            query: 'SELECT count() AS c FROM numbers(600000000) WHERE cityHash64(number) % 7 = 0',
            query_id: inFlightId,
            format: 'JSONEachRow',
        });
        await waitUntil('last query running', async () => (await running(handle.url)).some((r) => r.query_id === inFlightId));
        await (0, embedded_1.teardownEmbedded)(handle);
        const rows = await (await last).json();
        strict_1.default.ok(Number(rows[0].c) > 0, 'the statement executing at SIGTERM completed and was answered');
        await c3.close();
        strict_1.default.equal((0, process_1.isAlive)(pid), false);
        strict_1.default.equal(fs.existsSync(dir), false);
        await (0, embedded_1.teardownEmbedded)(handle);
        started.length = 0;
    });
});
(0, node_test_1.describe)('embedded server: SQL shape detection', () => {
    // Pure functions of the server script (no process needed; importing it does not load chdb).
    (0, node_test_1.it)('finds the output FORMAT clause, not a column named format', () => {
        strict_1.default.equal(server_1._internal.analyzeSql('SELECT 1\nFORMAT JSON').outputFormat, 'JSON');
        strict_1.default.equal(server_1._internal.analyzeSql('SELECT 1 FORMAT JSONEachRow SETTINGS max_threads = 1').outputFormat, 'JSONEachRow');
        strict_1.default.equal(server_1._internal.analyzeSql('SELECT format FROM t').outputFormat, undefined);
        strict_1.default.equal(server_1._internal.analyzeSql("SELECT 'FORMAT CSV' -- FORMAT XML\n").outputFormat, undefined);
        strict_1.default.equal(server_1._internal.analyzeSql('SELECT * FROM (SELECT 1 FORMAT CSV)').outputFormat, undefined);
        strict_1.default.equal(server_1._internal.analyzeSql('INSERT INTO t FORMAT JSONEachRow').outputFormat, undefined);
        strict_1.default.equal(server_1._internal.analyzeSql('INSERT INTO t FORMAT JSONEachRow').insertFormat, 'JSONEachRow');
    });
    (0, node_test_1.it)('detects multi-statements outside strings, comments and insert data', () => {
        strict_1.default.equal(server_1._internal.analyzeSql('SELECT 1; SELECT 2').multi, true);
        strict_1.default.equal(server_1._internal.analyzeSql('SELECT 1;').multi, false);
        strict_1.default.equal(server_1._internal.analyzeSql("SELECT ';' /* ; x */ -- ; y\n").multi, false);
        strict_1.default.equal(server_1._internal.analyzeSql('INSERT INTO t FORMAT CSV\n1;2\n').multi, false);
        strict_1.default.equal(server_1._internal.analyzeSql("INSERT INTO t VALUES (1, 'a'); (2, 'b')").multi, false);
    });
    (0, node_test_1.it)('reads rows_read from a JSON statistics block only', () => {
        const out = Buffer.from('{"data":[{"x":"\\"statistics\\": 1"}],"rows":1,\n\t"statistics":\n\t{\n\t\t"elapsed": 0.1,\n\t\t"rows_read": 1234,\n\t\t"bytes_read": 9872\n\t}\n}\n');
        strict_1.default.deepEqual(server_1._internal.statisticsFromOutput('JSON', out), { rows: '1234', bytes: '9872' });
        strict_1.default.equal(server_1._internal.statisticsFromOutput('JSONEachRow', out), undefined);
    });
});
//# sourceMappingURL=embedded-server.test.js.map