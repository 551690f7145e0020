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
 * `runMeasured` streams: big results, errors after the response started, truncated bodies, the hash
 * definition, `wait_end_of_query` — against the real embedded engine (chdb in its own process) and
 * Debian's clickhouse-server 18.16. No mocks.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const node_crypto_1 = require("node:crypto");
const client_1 = require("@clickhouse/client");
const client_2 = require("../../src/clickhouse/client");
const embedded_1 = require("../../src/targets/embedded");
const local_1 = require("../../src/targets/local");
const process_1 = require("../../src/targets/process");
const QUIET = { level: client_1.ClickHouseLogLevel.OFF };
const Q64 = { output_format_json_quote_64bit_integers: 1 };
const X1000 = 'x'.repeat(1000);
const MB = 1e6;
function serverBinary() {
    const p = process.env.CHBENCH_CLICKHOUSE_SERVER ??
        ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((c) => fs.existsSync(c));
    strict_1.default.ok(p && fs.existsSync(p), 'no clickhouse-server binary: run ./scripts/setup.sh --with-debian-clickhouse, or set CHBENCH_CLICKHOUSE_SERVER');
    return p;
}
/** The old definition: sha256 of JSON.stringify(data) of the whole JSONCompact body. */
async function oldHash(client, sql) {
    const rs = await client.query({ query: sql, format: 'JSONCompact', clickhouse_settings: Q64 });
    const body = (await rs.json());
    return (0, node_crypto_1.createHash)('sha256').update(JSON.stringify(body.data)).digest('hex');
}
/**
 * Run `fn` while sampling this process's RSS every 50 ms; returns its result and the peak growth
 * over the RSS just before (bytes).
 */
async function withPeakRss(fn) {
    const base = process.memoryUsage.rss();
    let peak = base;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
    try {
        const value = await fn();
        peak = Math.max(peak, process.memoryUsage.rss());
        return { value, peakGrowth: peak - base };
    }
    finally {
        clearInterval(timer);
    }
}
/** Expected hash of `SELECT number, <1000 x> FROM numbers(n)` with quoted UInt64, built independently of the parser. */
function expectedBigHash(n) {
    const h = (0, node_crypto_1.createHash)('sha256');
    h.update('[');
    for (let i = 0; i < n; i++)
        h.update(`${i ? ',' : ''}["${i}","${X1000}"]`);
    h.update(']');
    return h.digest('hex');
}
const BIG_SQL = (n) => `SELECT number, '${X1000}' AS s FROM numbers(${n})`;
async function rejection(p) {
    try {
        const v = await p;
        strict_1.default.fail(`expected a rejection, got a result: ${JSON.stringify(v).slice(0, 200)}`);
    }
    catch (e) {
        if (e instanceof strict_1.default.AssertionError)
            throw e;
        return e;
    }
}
(0, node_test_1.describe)('runMeasured: streaming parser (no server)', () => {
    const doc = {
        meta: [{ name: 'a', type: 'String' }],
        data: [
            ['x,]"\\', [1, 2]],
            ['{}', []],
            ['\u00e9\u4e2d', [3]],
        ],
        rows: 3,
        statistics: { elapsed: 0.1, rows_read: 3, bytes_read: 9 },
    };
    const expected = (0, node_crypto_1.createHash)('sha256').update(JSON.stringify(doc.data)).digest('hex');
    for (const [name, text] of [
        ['compact', JSON.stringify(doc)],
        ['pretty', JSON.stringify(doc, null, '\t')],
        ['odd whitespace', JSON.stringify(doc, null, ' \n ')],
    ]) {
        (0, node_test_1.it)(`hashes like JSON.stringify(data) whatever the whitespace and chunking (${name})`, () => {
            const bytes = Buffer.from(text);
            for (const size of [1, 2, 7, 64, bytes.length]) {
                const p = new client_2._internal.JsonCompactStream();
                for (let i = 0; i < bytes.length; i += size)
                    p.push(bytes.subarray(i, i + size));
                strict_1.default.equal(p.complete, true, `complete with ${size}-byte chunks`);
                strict_1.default.equal(p.rows, 3);
                strict_1.default.equal(p.digest(), expected, `hash with ${size}-byte chunks`);
                strict_1.default.deepEqual(p.firstRows, doc.data);
                strict_1.default.equal(p.captured.get('rows'), '3');
            }
        });
    }
    (0, node_test_1.it)('a truncated document is not complete, and bytes after the document are noticed', () => {
        const text = JSON.stringify(doc, null, '\t');
        for (const cut of [text.length - 1, text.indexOf('"rows"'), text.indexOf('["{}"') + 3, 10]) {
            const p = new client_2._internal.JsonCompactStream();
            p.push(Buffer.from(text.slice(0, cut)));
            strict_1.default.equal(p.complete, false, `cut at ${cut}`);
        }
        const p = new client_2._internal.JsonCompactStream();
        p.push(Buffer.from(`${text}\nCode: 1. oops`));
        strict_1.default.equal(p.complete, false);
        strict_1.default.equal(p.brokenReason, 'bytes follow the complete document');
    });
});
(0, node_test_1.describe)('runMeasured on the embedded engine (chdb 26.7 in its own process)', { timeout: 900_000 }, () => {
    let workDir;
    let handle;
    let client;
    (0, node_test_1.before)(async () => {
        workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-measured-emb-'));
        handle = await (0, embedded_1.provisionEmbedded)({
            runId: `measured-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`,
            cellKey: 'emb',
            version: '26.7',
            workDir,
        });
        client = (0, client_2.connect)(handle);
    });
    (0, node_test_1.after)(async () => {
        await client?.close();
        if (handle)
            await (0, embedded_1.teardownEmbedded)(handle).catch(() => undefined);
        fs.rmSync(workDir, { recursive: true, force: true });
    });
    (0, node_test_1.it)('small results hash exactly as before (streamed and with wait_end_of_query)', async () => {
        const sql = "SELECT number, toString(number) AS s, 'a\"b\\\\c/d\\n\\t' AS e, [number, 2] AS arr, 1.5 AS f, NULL AS n FROM numbers(7)";
        const old = await oldHash(client, sql);
        const streamed = await (0, client_2.runMeasured)(client, sql, `small-s-${(0, node_crypto_1.randomUUID)()}`, Q64);
        const waited = await (0, client_2.runMeasured)(client, sql, `small-w-${(0, node_crypto_1.randomUUID)()}`, Q64, undefined, { waitEndOfQuery: true });
        for (const r of [streamed, waited]) {
            strict_1.default.equal(r.result_sha256, old);
            strict_1.default.equal(r.result_rows, 7);
            strict_1.default.deepEqual(r.first_rows[0], ['0', '0', 'a"b\\c/d\n\t', ['0', '2'], 1.5, null]);
            strict_1.default.equal(r.first_rows.length, 5);
        }
        strict_1.default.equal(streamed.wait_end_of_query, false);
        strict_1.default.equal(waited.wait_end_of_query, true);
        // Streamed: the summary went out before the query ended, so the server put nothing measured in it.
        strict_1.default.equal(streamed.summary?.result_rows, undefined);
        // wait_end_of_query=1: buffered, complete summary and the engine's statistics.
        strict_1.default.equal(waited.summary?.result_rows, '7');
        strict_1.default.equal(waited.output_statistics?.rows_read, 7);
        strict_1.default.equal(typeof streamed.output_statistics?.elapsed, 'number');
        strict_1.default.equal(streamed.output_statistics?.rows_read, undefined, 'chdb does not report rows_read for a stream: omitted, never 0');
        const empty = await (0, client_2.runMeasured)(client, 'SELECT 1 WHERE 0', `empty-${(0, node_crypto_1.randomUUID)()}`, Q64);
        strict_1.default.equal(empty.result_rows, 0);
        strict_1.default.equal(empty.result_sha256, (0, node_crypto_1.createHash)('sha256').update('[]').digest('hex'));
    });
    (0, node_test_1.it)('600,000 rows x 1,000 chars: measured, hashed and counted while streaming; worker memory stays flat', async () => {
        const n = 600_000;
        let progressCalls = 0;
        const { value: r, peakGrowth } = await withPeakRss(() => (0, client_2.runMeasured)(client, BIG_SQL(n), `big-${(0, node_crypto_1.randomUUID)()}`, Q64, undefined, { onProgress: () => progressCalls++ }));
        console.log(`embedded 600k x 1000: ${(r.result_bytes / MB).toFixed(1)} MB in ${(r.wall_ms / 1000).toFixed(1)} s = ${(r.result_bytes / MB / (r.wall_ms / 1000)).toFixed(1)} MB/s; worker peak RSS growth ${(peakGrowth / MB).toFixed(1)} MB; progress calls ${progressCalls}`);
        strict_1.default.equal(r.result_rows, n);
        strict_1.default.ok(r.result_bytes > 600 * MB, `result_bytes ${r.result_bytes}`);
        strict_1.default.equal(r.result_sha256, expectedBigHash(n));
        strict_1.default.ok(peakGrowth < 150 * MB, `worker peak RSS growth ${peakGrowth} bytes for a ${r.result_bytes}-byte result`);
        strict_1.default.ok(progressCalls >= 1, 'onProgress was called');
        strict_1.default.ok(progressCalls <= Math.ceil(r.wall_ms / 1000) + 1, `onProgress throttled to <= 1/s (${progressCalls} calls in ${r.wall_ms} ms)`);
    });
    (0, node_test_1.it)('an error after the response started is a ClickHouseError (code 395, HTTP 200, bytes already received), not a result', async () => {
        const sql = 'SELECT number, throwIf(number = 150000) FROM numbers(200000)';
        const e = (await rejection((0, client_2.runMeasured)(client, sql, `late-${(0, node_crypto_1.randomUUID)()}`, { ...Q64, max_block_size: '1000' })));
        strict_1.default.ok(e instanceof client_1.ClickHouseError, String(e));
        strict_1.default.equal(e.constructor.name, 'ClickHouseError');
        strict_1.default.equal(e.code, '395');
        strict_1.default.equal(e.type, 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO');
        strict_1.default.match(e.message, /throwIf/);
        strict_1.default.equal(e.http_status, 200);
        strict_1.default.ok(e.result_bytes > 0 && e.result_rows > 0 && e.result_rows < 150_001, `received ${e.result_bytes} bytes, ${e.result_rows} rows`);
        strict_1.default.equal(e.exception_source, 'exception tag block');
        // The engine is usable afterwards.
        strict_1.default.deepEqual((await (0, client_2.runMeasured)(client, 'SELECT 42', `after-${(0, node_crypto_1.randomUUID)()}`)).first_rows, [[42]]);
    });
    (0, node_test_1.it)('an error before the first byte is an HTTP error (ClickHouseError, not a mid-stream one)', async () => {
        const e = (await rejection((0, client_2.runMeasured)(client, 'SELECT * FROM no_such_table', `early-${(0, node_crypto_1.randomUUID)()}`)));
        strict_1.default.ok(e instanceof client_1.ClickHouseError);
        strict_1.default.equal(e.code, '60');
        strict_1.default.equal(e.http_status, undefined);
    });
    (0, node_test_1.it)('KILL QUERY stops a streaming statement between chunks (code 394 to the killed request)', async () => {
        const qid = `kill-${(0, node_crypto_1.randomUUID)()}`;
        const p = rejection((0, client_2.runMeasured)(client, `SELECT number, '${X1000}' AS s FROM numbers(50000000)`, qid, {
            ...Q64,
            max_block_size: '2000',
        }));
        const deadline = Date.now() + 30_000;
        while (!JSON.parse((await (0, process_1.httpGet)(`${handle.url}/chbench/running`, 5000)).body).some((r) => r.query_id === qid && r.state === 'running')) {
            strict_1.default.ok(Date.now() < deadline, 'statement did not start');
            await new Promise((r) => setTimeout(r, 20));
        }
        const killer = (0, client_1.createClient)({ url: handle.url, log: QUIET });
        const rs = await killer.query({ query: `KILL QUERY WHERE query_id = '${qid}' SYNC`, format: 'JSONEachRow' });
        const rows = await rs.json();
        await killer.close();
        strict_1.default.deepEqual(rows.map((r) => r.kill_status), ['finished']);
        const e = (await p);
        strict_1.default.ok(e instanceof client_1.ClickHouseError, String(e));
        strict_1.default.equal(e.code, '394');
        strict_1.default.deepEqual(JSON.parse((await (0, process_1.httpGet)(`${handle.url}/chbench/running`, 5000)).body), []);
    });
    (0, node_test_1.it)('a client that goes away mid-stream cancels the stream (the engine is free right after)', async () => {
        const ac = new AbortController();
        const qid = `gone-${(0, node_crypto_1.randomUUID)()}`;
        const p = rejection((0, client_2.runMeasured)(client, `SELECT number, '${X1000}' AS s FROM numbers(50000000)`, qid, { ...Q64, max_block_size: '2000' }, ac.signal, { onProgress: () => ac.abort() }));
        await p;
        const deadline = Date.now() + 30_000;
        while (JSON.parse((await (0, process_1.httpGet)(`${handle.url}/chbench/running`, 5000)).body).length > 0) {
            strict_1.default.ok(Date.now() < deadline, 'the stream was not cancelled after the client disconnected');
            await new Promise((r) => setTimeout(r, 50));
        }
        const log = (await (0, process_1.httpGet)(`${handle.url}/chbench/statements`, 5000)).body
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l));
        strict_1.default.equal(log.find((l) => l.query_id === qid)?.ok, false);
    });
    (0, node_test_1.it)('a body cut off by a dying server is an error, never a result', async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-measured-kill-'));
        const h = await (0, embedded_1.provisionEmbedded)({
            runId: `measured-kill-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`,
            cellKey: 'victim',
            version: '26.7',
            workDir: dir,
        });
        const c = (0, client_2.connect)(h);
        try {
            let killed = false;
            const e = await rejection((0, client_2.runMeasured)(c, BIG_SQL(5_000_000), `cut-${(0, node_crypto_1.randomUUID)()}`, { ...Q64, max_block_size: '2000' }, undefined, {
                onProgress: (p) => {
                    if (!killed && p.result_bytes > 0) {
                        killed = true;
                        process.kill(h.pid, 'SIGKILL');
                    }
                },
            }));
            strict_1.default.ok(killed, 'the server was killed mid-stream');
            strict_1.default.ok(!(e instanceof client_1.ClickHouseError), `a cut body is not a server error: ${String(e)}`);
            strict_1.default.ok(e instanceof Error);
        }
        finally {
            await c.close();
            await (0, embedded_1.teardownEmbedded)(h).catch(() => undefined);
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
(0, node_test_1.describe)('runMeasured on Debian clickhouse-server 18.16', { timeout: 600_000 }, () => {
    let workDir;
    let handle;
    let client;
    (0, node_test_1.before)(async () => {
        workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-measured-local-'));
        handle = await (0, local_1.provisionLocal)({ runId: `measured-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`, cellKey: 'l:18.16', version: '18.16', workDir }, serverBinary());
        client = (0, client_2.connect)(handle);
    });
    (0, node_test_1.after)(async () => {
        await client?.close();
        if (handle)
            await (0, local_1.teardownLocal)(handle).catch(() => undefined);
        fs.rmSync(workDir, { recursive: true, force: true });
    });
    (0, node_test_1.it)('small results hash exactly as before', async () => {
        const sql = "SELECT number, toString(number) AS s, 'a\"b\\\\c/d\\n\\t' AS e, [number, 2] AS arr, 1.5 AS f FROM numbers(7)";
        const r = await (0, client_2.runMeasured)(client, sql, `small-${(0, node_crypto_1.randomUUID)()}`, Q64);
        strict_1.default.equal(r.result_sha256, await oldHash(client, sql));
        strict_1.default.equal(r.result_rows, 7);
        strict_1.default.equal(r.output_statistics?.rows_read, 7);
        strict_1.default.equal(r.summary, undefined, '18.16 sends no X-ClickHouse-Summary');
    });
    (0, node_test_1.it)('100,000 rows x 1,000 chars: streamed, hashed, memory flat', async () => {
        const n = 100_000;
        const { value: r, peakGrowth } = await withPeakRss(() => (0, client_2.runMeasured)(client, BIG_SQL(n), `big-${(0, node_crypto_1.randomUUID)()}`, Q64));
        console.log(`18.16 100k x 1000: ${(r.result_bytes / MB).toFixed(1)} MB in ${(r.wall_ms / 1000).toFixed(1)} s = ${(r.result_bytes / MB / (r.wall_ms / 1000)).toFixed(1)} MB/s; worker peak RSS growth ${(peakGrowth / MB).toFixed(1)} MB`);
        strict_1.default.equal(r.result_rows, n);
        strict_1.default.ok(r.result_bytes > 100 * MB);
        strict_1.default.equal(r.result_sha256, expectedBigHash(n));
        strict_1.default.ok(peakGrowth < 150 * MB, `worker peak RSS growth ${peakGrowth}`);
    });
    (0, node_test_1.it)('an error after the response started (18.16 appends the text) is a ClickHouseError 395 with HTTP 200', async () => {
        const sql = 'SELECT number, throwIf(number = 150000) FROM numbers(200000)';
        const e = (await rejection((0, client_2.runMeasured)(client, sql, `late-${(0, node_crypto_1.randomUUID)()}`, { ...Q64, max_block_size: '1000' })));
        strict_1.default.ok(e instanceof client_1.ClickHouseError, String(e));
        strict_1.default.equal(e.code, '395');
        strict_1.default.match(e.message, /throwIf/);
        strict_1.default.equal(e.http_status, 200);
        strict_1.default.ok(e.result_bytes > 0 && e.result_rows > 0, `received ${e.result_bytes} bytes, ${e.result_rows} rows before the error`);
        strict_1.default.equal(e.exception_source, 'text appended to the body');
    });
    (0, node_test_1.it)('a server error before the response is a ClickHouseError too (18.16 text has no type name)', async () => {
        const e = (await rejection((0, client_2.runMeasured)(client, 'SELECT * FROM no_such_table', `early-${(0, node_crypto_1.randomUUID)()}`)));
        strict_1.default.ok(e instanceof client_1.ClickHouseError, String(e));
        strict_1.default.equal(e.code, '60');
    });
});
//# sourceMappingURL=measured-statement.test.js.map