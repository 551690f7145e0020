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
Object.defineProperty(exports, "__esModule", { value: true });
exports._internal = void 0;
/**
 * The embedded target's server: a separate Node process that opens ONE chdb session (ClickHouse
 * engine in-process, npm `chdb`) on `<dataDir>/data` and serves, on 127.0.0.1 (or another loopback
 * address, `--host`), the subset of the ClickHouse HTTP interface that `@clickhouse/client` 1.x uses.
 *
 * Run (normally by `provisionEmbedded`, see provision.ts next to this file):
 *
 *     node dist/src/targets/embedded/server.js --data-dir <dir> --port <n|0> --port-file <file>
 *
 * `--port 0` lets the kernel choose a free port; the chosen port is written (decimal + newline,
 * atomically) to `--port-file` once the server listens.
 *
 * Options for the simulated Kubernetes kubelet (test/k8s/eks-sim.ts), both off by default:
 * - `--host <ip>`: the address to listen on (default `127.0.0.1`). Loopback only: any address
 *   outside 127.0.0.0/8 or other than `::1` is refused at start (exit 1), so a pod's own loopback IP
 *   (127.0.0.N) works and nothing is ever exposed off the machine.
 * - `--idle-exit-s <n>` (used by the results database, `src/results/db/embedded.ts`): shut down as on
 *   SIGTERM once no request has been open for n seconds (checked every min(5 s, n/4)). Off by default.
 * - `--auth-from-env`: every request except `/ping` (and `GET /` without a query, a static handler
 *   on a server too) must carry the user and password from the environment variables
 *   `CLICKHOUSE_USER` (default `default`) and `CLICKHOUSE_PASSWORD` (default empty), the way
 *   ClickHouse accepts them: HTTP basic auth, else the `X-ClickHouse-User`/`X-ClickHouse-Key`
 *   headers, else the `user`/`password` URL parameters (a missing user is `default`). A wrong or
 *   missing one is answered as ClickHouse does: HTTP 403, `X-ClickHouse-Exception-Code: 516`, body
 *   `Code: 516. DB::Exception: <user>: Authentication failed: password is incorrect, or there is no
 *   user with such name. (AUTHENTICATION_FAILED)`.
 *
 * ## Endpoints
 * - `GET|HEAD /ping` and `GET /` without a query → `Ok.\n`.
 * - `GET /?query=…` and `POST /?…` (SQL = `query` parameter, then `\n`, then the body; or the body
 *   alone). Inserts: `POST /?query=INSERT INTO t FORMAT JSONEachRow` with the rows as body; a
 *   binary format (`RowBinary`, `Native`, …) in the same shape is written to a file under the data
 *   directory and inserted with `INSERT … FROM INFILE` (the engine's query text cannot carry binary
 *   bytes; the file write is part of the statement's time).
 * - `GET /chbench/running` → JSON `[{query_id, state, received_at_ms, started_at_ms, sql_head}]` for
 *   the statement executing (`state: 'running'`) and those waiting for it (`state: 'queued'`,
 *   `started_at_ms: null`). Times are epoch milliseconds; `sql_head` is the first 200 characters.
 *   The executing entry also carries the engine's progress counters — `read_rows`,
 *   `total_rows_approx`, `written_rows`, `elapsed_ms`, `memory_usage` (bytes) from
 *   `system.processes`, and the engine's background work `merges_rows_read` (rows read + written
 *   by running merges/mutations), `merges_progress` (sum of `system.merges.progress`), `parts_to_do`
 *   (unfinished mutations) — read by a second chdb session on the same data path while the main
 *   session's statement runs (checked with chdb 3.4.0: `read_rows` of
 *   `SELECT sum(sleepEachRow(0.5)) FROM numbers(12) SETTINGS max_block_size = 1` read 3, 5, 7, 9, 11
 *   at 1 s intervals). chdb gives the statement its own query_id, so the row is matched by its SQL
 *   text (else the only other row); when none matches or the read fails, the counters are `null` and
 *   `progress_error` says why.
 * - `GET /chbench/statements` → the statement log (JSON lines, see `logStatement`).
 * - `GET /chbench/info` → JSON `{chdb, clickhouse, pid, dataDir, timezone, startedAt}`.
 *
 * ## URL parameters
 * - `query_id`: echoed in `X-ClickHouse-Query-Id`; a UUID is generated when absent. A query_id that
 *   is running or queued is refused (code 216, QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING), like a server.
 * - `database`: `USE db` before the statement, `USE default` after.
 * - `default_format`: output format when the SQL has no `FORMAT` clause (default TabSeparated).
 * - `param_<name>`: query parameters; the statement then runs on a short-lived second session on
 *   the same data (`SET param_<name> = '<value>'`), so parameters never leak into later statements.
 * - Not settings (ignored): `user`, `password`, `quota_key`, `session_id`, `session_timeout`,
 *   `session_check`, `close_session`, `role`, `stacktrace`, `buffer_size`,
 *   `wait_end_of_query` (`1` = buffer the result, see "Streaming"), `send_progress_in_http_headers`, `http_headers_progress_interval_ms`, `enable_http_compression`
 *   (used for response compression, gzip/deflate/br only), `http_zlib_compression_level`,
 *   `http_response_buffer_size`, `client_protocol_version`, `add_http_cors_header`.
 *   `compress=1` / `decompress=1` (ClickHouse's native block compression) are refused (code 48).
 * - Every other parameter is a query setting: `SET k = 'v'` before and `SET k = DEFAULT` after the
 *   statement, inside the mutex.
 *
 * ## Differences from a real server (documented, not hidden)
 * - Users: the embedded engine has none. Without `--auth-from-env`, `Authorization` (basic),
 *   `X-ClickHouse-User`, `X-ClickHouse-Key` and `user`/`password` are accepted and ignored; with it,
 *   one user/password pair from the environment is checked (no grants, no roles). Bind is loopback
 *   only.
 * - One statement at a time: a mutex serialises statements (the engine session is shared).
 * - `SET …` and `USE …` sent as statements behave as on a server without `session_id`: they run on a
 *   short-lived session and have no effect on later requests. There are no HTTP sessions.
 * - GET requests are not forced read-only.
 * - Results of SELECT/WITH are streamed, other statements' results are buffered (see "Streaming");
 *   insert bodies are read fully before the statement starts.
 * - Multi-statement bodies are refused (code 62), like a server.
 * - `KILL QUERY WHERE query_id = '…'` cancels a statement that is still queued (it fails with code
 *   394 QUERY_WAS_CANCELLED) and a statement that is streaming its result: the stream stops before
 *   the next chunk (chdb cancels a stream between chunks; a chunk already being computed is
 *   finished first), the killed request gets code 394 (as an HTTP error if no byte had gone out,
 *   else as the exception block below). KILL answers `kill_status` `finished` for SYNC (after the
 *   statement ended, bounded by 60 s) and `waiting` for ASYNC. Any other executing statement
 *   (buffered: DDL, inserts, EXPLAIN, SHOW, wait_end_of_query=1 …) cannot be interrupted by chdb (no
 *   interrupt in its C API): that KILL fails with code 48 NOT_IMPLEMENTED. Other KILL forms: 48.
 *   A request whose client disconnects while queued is dropped the same way; one whose client
 *   disconnects while its result streams is cancelled between chunks.
 *
 * ## Streaming (checked with chdb 3.4.0)
 * A SELECT/WITH whose output format is a row format (TabSeparated/TSV[Raw], CSV, JSONEachRow,
 * JSONLines/NDJSON, JSONCompactEachRow, JSONStringsEachRow, JSONCompactStringsEachRow, RowBinary) or
 * a JSON document format (JSON, JSONCompact, JSONStrings, JSONCompactStrings) runs through chdb's
 * `Session.queryStream`: one chunk (a block, `max_block_size` rows) is in memory at a time and is
 * written to the response with backpressure while the statement holds the mutex. Headers go out with
 * the first chunk, so an error before it is an ordinary HTTP error with its status. chdb writes each
 * chunk of a JSON format as a complete document; the server splices them into one (see
 * `JsonDocSplicer`). Buffered instead (as before, chdb `queryAsync`): every other statement and
 * format, `wait_end_of_query=1`, response compression (`enable_http_compression=1`), and statements
 * chdb refuses to stream (code 36: EXPLAIN, SHOW, DESCRIBE, EXISTS, DDL …). `X-Chbench-Result` says
 * `streamed` or `buffered`.
 *
 * What a stream cannot report (verified): chdb's per-chunk statistics block carries
 * `rows_read = bytes_read = 0` and an elapsed per chunk, and the stream API gives no elapsed or
 * rows read. So for a streamed result the `X-ClickHouse-Summary` header is `{}` (every field listed
 * in `X-Chbench-Unmeasured`: nothing was measured when the headers went out), and the JSON
 * statistics block at the end holds only `elapsed`, measured by this server from the start of the
 * statement to its last chunk (like a server's, it includes time spent waiting for a slow client);
 * `rows_read`/`bytes_read` are omitted, never 0. For the engine's own elapsed and rows read (the
 * figures the report uses on this target), send `wait_end_of_query=1`.
 *
 * ## Errors after the response started (emulating ClickHouse ≥ 25.11, read in its source)
 * Every query response carries `X-ClickHouse-Exception-Tag: <16 random lower-case letters/digits>`.
 * When a streamed statement fails after the headers went out (HTTP 200 already sent), the server
 * writes, as 26.x does, `\r\n__exception__\r\n<tag>\r\n<message>\n<length> <tag>\r\n__exception__\r\n`
 * (`<length>` = bytes of `<message>\n`, the message being `Code: N. DB::Exception: … (TYPE)`) and
 * closes the connection without the final empty chunk, so the body is also an incomplete HTTP
 * message. Not emulated: 26.x with `http_write_exception_in_output_format=1` (off by default since
 * 25.11; the engine's system.settings_changes says so) would end a JSON document with an
 * `"exception"` key instead; this server always writes the tagged block.
 *
 * ## X-ClickHouse-Summary of a buffered result (values are strings, as a server sends them; unmeasured fields are OMITTED)
 * - `elapsed_ns`: chdb's `elapsed` (seconds, measured by the engine) × 1e9.
 * - `result_rows`, `result_bytes`: chdb's `rowsRead`/`bytesRead`. Checked: despite the names they
 *   are the rows/bytes of the RESULT (e.g. `SELECT sum(a) FROM t` over 1234 rows gives rowsRead 1),
 *   so they are reported as result_* and only for statements that return a result set
 *   (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN, EXISTS).
 * - `read_rows`, `read_bytes`: the engine's own progress counters, only available when the output
 *   format carries a statistics block (JSON, JSONCompact, JSONStrings, JSONCompactStrings, XML and
 *   JSONColumnsWithMetadata, with output_format_write_statistics on); taken from that block.
 *   For other formats they are omitted: the node binding does not expose chdb_result_storage_rows_read.
 * - `written_rows`, `written_bytes`: for `INSERT INTO t [(cols)] FORMAT <text format>` with the rows in
 *   the body, the statement runs through chdb's raw insert, which reports the engine's
 *   rows/bytes written. Omitted for every other write (e.g. INSERT … SELECT).
 * - Header `X-Chbench-Unmeasured` lists the standard summary fields that were omitted.
 *
 * ## Event loop (checked with chdb 3.4.0 on Node 20)
 * `Session.queryAsync` really runs off the event loop (on a libuv worker thread): during a 390 ms
 * `SELECT sum(cityHash64(number)) FROM numbers(3e8)` a 10 ms interval timer kept firing (largest gap
 * 12 ms), while the synchronous `Session.query` froze it for the whole query. So `/ping`,
 * `/chbench/running` and KILL answer while a long statement runs. Two queryAsync calls on the same
 * connection do not overlap (the second waited for the first), which the mutex makes explicit.
 *
 * ## Shutdown
 * SIGTERM/SIGINT: stop accepting connections, fail queued statements (code 394), let the executing
 * statement finish and its response go out (a streaming response gets at most 5 s to drain, then
 * its connection is closed), close the chdb session, exit 0.
 */
const node_crypto_1 = require("node:crypto");
const fs = __importStar(require("node:fs"));
const http = __importStar(require("node:http"));
const net = __importStar(require("node:net"));
const path = __importStar(require("node:path"));
const zlib = __importStar(require("node:zlib"));
const server_error_1 = require("../../schema/server-error");
const sql_1 = require("../../lib/sql");
const fs_1 = require("../../lib/fs");
const poll_1 = require("../../lib/poll");
/** chdb is loaded only when the server runs (importing this module for its helpers stays light). */
function loadChdb() {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('chdb');
}
// ---------------------------------------------------------------------------------------------
// Errors
/** An error to answer with the ClickHouse HTTP error shape. */
class ServerError extends Error {
    code;
    type;
    status;
    constructor(code, type, message, status) {
        super(message);
        this.code = code;
        this.type = type;
        this.status = status;
    }
}
/** Parse `Code: N. DB::Exception: … (TYPE)` (the first code, the last type). */
function parseClickHouseError(msg) {
    const parsed = (0, server_error_1.parseServerError)(msg);
    return parsed && { code: parsed.code, type: parsed.name ?? 'UNKNOWN_EXCEPTION' };
}
/** HTTP status for an exception type, approximately as a ClickHouse server maps it. */
function statusFor(type) {
    if (type === 'SYNTAX_ERROR' ||
        type.startsWith('CANNOT_PARSE') ||
        type === 'TYPE_MISMATCH' ||
        type === 'INCORRECT_DATA' ||
        type === 'BAD_QUERY_PARAMETER' ||
        type === 'UNKNOWN_QUERY_PARAMETER')
        return 400;
    if (/^UNKNOWN_(TABLE|DATABASE|FUNCTION|IDENTIFIER|TYPE|STORAGE|SETTING|FORMAT|AGGREGATE_FUNCTION|DATABASE_ENGINE|TYPE_OF_QUERY)$/.test(type))
        return 404;
    if (type === 'NOT_IMPLEMENTED')
        return 501;
    if (type === 'QUERY_IS_TOO_LARGE')
        return 413;
    return 500;
}
/** Turn anything thrown into `{code, type, status, body}`. Non-ClickHouse errors get code 1001. */
function toErrorAnswer(e) {
    if (e instanceof ServerError) {
        const body = `Code: ${e.code}. DB::Exception: ${e.message}. (${e.type})`;
        return { code: e.code, type: e.type, status: e.status ?? statusFor(e.type), body };
    }
    const msg = e instanceof Error ? e.message : String(e);
    const parsed = parseClickHouseError(msg);
    if (parsed && /DB::Exception/.test(msg))
        return { ...parsed, status: statusFor(parsed.type), body: msg };
    return { code: 1001, type: 'STD_EXCEPTION', status: 500, body: `Code: 1001. DB::Exception: ${msg}. (STD_EXCEPTION)` };
}
function analyzeSql(sql) {
    const n = sql.length;
    const words = [];
    let first = '';
    let depth = 0;
    let semis = 0;
    let afterSemi = false;
    let i = 0;
    let insertFormat;
    const isWordStart = (c) => /[A-Za-z_]/.test(c);
    scan: while (i < n) {
        const c = sql[i];
        if (c === '-' && sql[i + 1] === '-') {
            while (i < n && sql[i] !== '\n')
                i++;
        }
        else if (c === '#') {
            while (i < n && sql[i] !== '\n')
                i++;
        }
        else if (c === '/' && sql[i + 1] === '*') {
            let d = 1;
            i += 2;
            while (i < n && d > 0) {
                if (sql[i] === '/' && sql[i + 1] === '*') {
                    d++;
                    i += 2;
                }
                else if (sql[i] === '*' && sql[i + 1] === '/') {
                    d--;
                    i += 2;
                }
                else
                    i++;
            }
        }
        else if (c === "'" || c === '"' || c === '`') {
            if (semis > 0)
                afterSemi = true;
            i++;
            while (i < n) {
                if (sql[i] === '\\')
                    i += 2;
                else if (sql[i] === c && sql[i + 1] === c)
                    i += 2;
                else if (sql[i] === c) {
                    i++;
                    break;
                }
                else
                    i++;
            }
        }
        else if (c === '(') {
            if (semis > 0)
                afterSemi = true;
            depth++;
            i++;
        }
        else if (c === ')') {
            depth = Math.max(0, depth - 1);
            i++;
        }
        else if (c === ';' && depth === 0) {
            semis++;
            i++;
        }
        else if (isWordStart(c)) {
            let j = i + 1;
            while (j < n && /[A-Za-z0-9_]/.test(sql[j]))
                j++;
            const raw = sql.slice(i, j);
            const w = raw.toUpperCase();
            i = j;
            if (semis > 0)
                afterSemi = true;
            if (!first)
                first = w;
            if (depth === 0 && semis === 0) {
                words.push({ v: w, raw });
                if (first === 'INSERT') {
                    if (w === 'VALUES')
                        break scan; // the rest is data
                    if (w === 'FORMAT') {
                        const m = /^\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(sql.slice(i));
                        if (m)
                            insertFormat = m[1];
                        break scan; // the rest is data
                    }
                }
            }
        }
        else if (/\s/.test(c)) {
            i++;
        }
        else {
            if (semis > 0)
                afterSemi = true;
            i++;
        }
    }
    let outputFormat;
    if (first !== 'INSERT') {
        for (let k = words.length - 2; k >= 0; k--) {
            if (words[k].v === 'FORMAT' && (k + 2 === words.length || words[k + 2].v === 'SETTINGS')) {
                outputFormat = words[k + 1].raw;
                break;
            }
        }
    }
    return { first, second: words[1]?.v ?? '', outputFormat, insertFormat, multi: afterSemi };
}
const READ_LIKE = new Set(['SELECT', 'WITH', 'SHOW', 'DESC', 'DESCRIBE', 'EXPLAIN', 'EXISTS']);
/** Formats whose output ends with a statistics block holding the engine's rows_read/bytes_read. */
const STATS_FORMATS = new Set([
    'JSON',
    'JSONCOMPACT',
    'JSONSTRINGS',
    'JSONCOMPACTSTRINGS',
    'JSONCOLUMNSWITHMETADATA',
    'XML',
]);
/**
 * Output formats streamed chunk by chunk (when the statement is a SELECT/WITH and the client did
 * not ask for wait_end_of_query or response compression). Row formats: chdb's chunks concatenate
 * as they are. JSON document formats: chdb writes every chunk as a complete document, so the
 * server splices them into one ({@link JsonDocSplicer}). Every other format is buffered.
 */
const STREAM_ROW_FORMATS = new Set([
    'TABSEPARATED',
    'TSV',
    'TABSEPARATEDRAW',
    'TSVRAW',
    'CSV',
    'JSONEACHROW',
    'JSONLINES',
    'NDJSON',
    'JSONCOMPACTEACHROW',
    'JSONSTRINGSEACHROW',
    'JSONCOMPACTSTRINGSEACHROW',
    'ROWBINARY',
]);
const JSON_DOC_FORMATS = new Set(['JSON', 'JSONCOMPACT', 'JSONSTRINGS', 'JSONCOMPACTSTRINGS']);
/**
 * Joins chdb's per-chunk JSON documents (each `{meta, data, rows, statistics}`, checked with chdb
 * 3.4.0) into the one document a server writes. It relies on chdb's layout, which does not depend
 * on whitespace settings: the `data` array opens with the raw bytes `\n\t"data":\n\t[` and closes
 * with `\n\t]` (a raw newline never occurs inside a JSON string, and nested values are indented
 * deeper), and every chunk repeats the first chunk's prefix (meta) byte for byte. A chunk that does
 * not fit fails the statement (never a silently wrong document).
 *
 * The end of the document is the last chunk's, with `rows` = the total, `rows_before_limit_at_least`
 * removed (chdb writes it per chunk) and a statistics block holding only `elapsed`: the server's
 * own clock from the start of the statement to its last chunk, in s (chdb's per-chunk statistics
 * carry rows_read = bytes_read = 0 and a per-chunk elapsed; those are not passed on).
 */
class JsonDocSplicer {
    prefix;
    suffix = '';
    wroteRows = false;
    n = 0;
    chunk(b) {
        this.n++;
        if (!this.prefix) {
            const at = b.indexOf(DATA_OPEN);
            if (at < 0)
                throw new ServerError(1001, 'STD_EXCEPTION', 'the chbench embedded server cannot splice the streamed JSON chunks: no data array in the first chunk');
            this.prefix = Buffer.from(b.subarray(0, at + DATA_OPEN.length));
        }
        else if (b.length < this.prefix.length || !b.subarray(0, this.prefix.length).equals(this.prefix)) {
            throw new ServerError(1001, 'STD_EXCEPTION', `the chbench embedded server cannot splice the streamed JSON chunks: chunk ${this.n} does not repeat the first chunk's header`);
        }
        const end = b.indexOf(DATA_CLOSE, this.prefix.length - 1);
        if (end < 0)
            throw new ServerError(1001, 'STD_EXCEPTION', `the chbench embedded server cannot splice the streamed JSON chunks: chunk ${this.n} has no end of its data array`);
        this.suffix = b.toString('utf8', end);
        const content = b.subarray(this.prefix.length, end);
        const empty = content.length === 0 || (content.length === 1 && content[0] === 0x0a);
        const parts = [];
        if (this.n === 1)
            parts.push(this.prefix);
        if (!empty) {
            if (this.wroteRows)
                parts.push(COMMA);
            parts.push(content);
            this.wroteRows = true;
        }
        return parts.length === 1 ? parts[0] : Buffer.concat(parts);
    }
    finish(rows, elapsedS) {
        let tail = this.suffix
            .replace(/"rows":\s*\d+/, `"rows": ${rows}`)
            .replace(/\n\t"rows_before_limit_at_least":\s*\d+,\n/, '\n')
            .replace(/"statistics":\s*\{[^}]*\}/, `"statistics":\n\t{\n\t\t"elapsed": ${elapsedS.toFixed(9)}\n\t}`);
        if (!this.wroteRows)
            tail = `\n${tail}`;
        return Buffer.from(tail);
    }
}
const DATA_OPEN = Buffer.from('\n\t"data":\n\t[');
const DATA_CLOSE = Buffer.from('\n\t]');
const COMMA = Buffer.from(',');
/** Text formats chdb's raw insert accepts (case as chdb wants it). */
const RAW_INSERT_FORMATS = {
    JSONEACHROW: 'JSONEachRow',
    JSONCOMPACTEACHROW: 'JSONCompactEachRow',
    CSV: 'CSV',
    CSVWITHNAMES: 'CSVWithNames',
    TSV: 'TSV',
    TABSEPARATED: 'TabSeparated',
    TSVWITHNAMES: 'TSVWithNames',
    TABSEPARATEDWITHNAMES: 'TabSeparatedWithNames',
};
/** Input formats that are binary: their body cannot travel through queryAsync's string argument. */
const BINARY_FORMAT_RE = /^(ROWBINARY|NATIVE|PARQUET|ARROW|ARROWSTREAM|ORC|AVRO|MSGPACK|PROTOBUF|PROTOBUFSINGLE|CAPNPROTO|BSONEACHROW|NPY|RAWBLOB)/;
function contentTypeFor(format) {
    const f = format.toUpperCase();
    if (f.startsWith('TABSEPARATED') || f.startsWith('TSV'))
        return 'text/tab-separated-values; charset=UTF-8';
    if (f.startsWith('CSV'))
        return `text/csv; charset=UTF-8; header=${f.includes('WITHNAMES') ? 'present' : 'absent'}`;
    if (f.includes('EACHROW') || f === 'JSONLINES' || f === 'NDJSON')
        return 'application/x-ndjson; charset=UTF-8';
    if (f.startsWith('JSON'))
        return 'application/json; charset=UTF-8';
    if (f === 'XML')
        return 'application/xml; charset=UTF-8';
    if (BINARY_FORMAT_RE.test(f))
        return 'application/octet-stream';
    return 'text/plain; charset=UTF-8';
}
/** Engine-measured rows/bytes read from a JSON/XML statistics block at the end of the output. */
function statisticsFromOutput(format, out) {
    if (!STATS_FORMATS.has(format.toUpperCase()))
        return undefined;
    const tail = out.subarray(Math.max(0, out.length - 600)).toString('utf8');
    if (format.toUpperCase() === 'XML') {
        const r = /<rows_read>(\d+)<\/rows_read>/.exec(tail);
        const b = /<bytes_read>(\d+)<\/bytes_read>/.exec(tail);
        return r && b ? { rows: r[1], bytes: b[1] } : undefined;
    }
    const at = tail.lastIndexOf('"statistics":');
    if (at < 0)
        return undefined;
    const block = tail.slice(at);
    const r = /"rows_read":\s*"?(\d+)/.exec(block);
    const b = /"bytes_read":\s*"?(\d+)/.exec(block);
    return r && b ? { rows: r[1], bytes: b[1] } : undefined;
}
/**
 * Every finished statement is appended, as one JSON line, to `<dataDir>/statements.jsonl`
 * (`{query_id, received_at_ms, started_at_ms, finished_at_ms, ok, sql_head}`), served by
 * `GET /chbench/statements`: the embedded engine's stand-in for `system.query_log`, used to prove
 * that no retry ran beside its own previous attempt.
 */
let statementLogFile;
function logStatement(e, ok) {
    if (!statementLogFile)
        return;
    const record = {
        query_id: e.queryId,
        received_at_ms: e.receivedAtMs,
        started_at_ms: e.startedAtMs,
        finished_at_ms: Date.now(),
        ok,
        sql_head: e.sqlHead.slice(0, 120),
    };
    const line = JSON.stringify(record);
    try {
        fs.appendFileSync(statementLogFile, line + '\n');
    }
    catch {
        /* the directory is being removed at teardown */
    }
}
class StatementQueue {
    running;
    waiting = [];
    idleWaiters = [];
    /** Entry for `queryId`, running or queued. */
    find(queryId) {
        if (this.running?.queryId === queryId)
            return { entry: this.running, state: 'running' };
        const q = this.waiting.find((e) => e.queryId === queryId);
        return q ? { entry: q, state: 'queued' } : undefined;
    }
    list() {
        const all = this.running ? [{ e: this.running, s: 'running' }] : [];
        for (const e of this.waiting)
            all.push({ e, s: 'queued' });
        return all.map(({ e, s }) => ({
            query_id: e.queryId,
            state: s,
            received_at_ms: e.receivedAtMs,
            started_at_ms: e.startedAtMs,
            sql_head: e.sqlHead,
        }));
    }
    /**
     * Run `fn` when every earlier statement is done. `register` receives a function that cancels the
     * statement while it is still queued (returns false once it started).
     */
    async run(queryId, sqlHead, fn, register) {
        let entry;
        const turn = new Promise((go, cancel) => {
            entry = { queryId, sqlHead, receivedAtMs: Date.now(), startedAtMs: null, go, cancel };
        });
        this.waiting.push(entry);
        register?.((e) => this.cancelQueued(queryId, e));
        this.pump();
        await turn; // rejects when cancelled while queued
        let ok = false;
        try {
            const r = await fn();
            ok = true;
            return r;
        }
        finally {
            logStatement(entry, ok);
            this.running = undefined;
            this.pump();
        }
    }
    /** Cancel a queued statement. @returns whether it was queued (and is now cancelled) */
    cancelQueued(queryId, e) {
        const k = this.waiting.findIndex((x) => x.queryId === queryId);
        if (k < 0)
            return false;
        const [entry] = this.waiting.splice(k, 1);
        entry.cancel(e);
        return true;
    }
    /** Cancel every queued statement. */
    cancelAllQueued(e) {
        for (const entry of this.waiting.splice(0))
            entry.cancel(e);
    }
    /** Resolves when nothing runs and nothing waits. */
    idle() {
        if (!this.running && this.waiting.length === 0)
            return Promise.resolve();
        return new Promise((r) => this.idleWaiters.push(r));
    }
    pump() {
        if (this.running)
            return;
        const next = this.waiting.shift();
        if (!next) {
            const w = this.idleWaiters;
            this.idleWaiters = [];
            w.forEach((r) => r());
            return;
        }
        this.running = next;
        next.startedAtMs = Date.now();
        next.go();
    }
}
// ---------------------------------------------------------------------------------------------
// Progress of the executing statement (for GET /chbench/running)
/** Reads `system.processes` through its own chdb session on the same data path (opened on first use). */
class ProgressMonitor {
    dataPath;
    s;
    constructor(dataPath) {
        this.dataPath = dataPath;
    }
    /** `list()` with progress counters on the executing entry. */
    async running(queue) {
        const entries = queue.list();
        const run = entries.find((e) => e.state === 'running');
        if (!run)
            return entries;
        const empty = {
            read_rows: null,
            total_rows_approx: null,
            written_rows: null,
            elapsed_ms: null,
            memory_usage: null,
            merges_rows_read: null,
            merges_progress: null,
            parts_to_do: null,
        };
        try {
            this.s ??= new (loadChdb().Session)(this.dataPath);
            const r = await this.s.queryAsync(`SELECT query, read_rows, total_rows_approx, written_rows, elapsed, memory_usage,
           (SELECT sum(rows_read) + sum(rows_written) FROM system.merges) AS merges_rows,
           (SELECT sum(progress) FROM system.merges) AS merges_progress,
           (SELECT sum(parts_to_do) FROM system.mutations WHERE is_done = 0) AS parts_to_do
         FROM system.processes WHERE query_id != queryID()`, { format: 'JSONEachRow' });
            const rows = r
                .text()
                .split('\n')
                .filter((l) => l.trim())
                .map((l) => JSON.parse(l));
            const head = String(run.sql_head).trim().slice(0, 100);
            const row = rows.find((x) => String(x.query).trim().startsWith(head)) ?? (rows.length === 1 ? rows[0] : undefined);
            if (!row)
                Object.assign(run, empty, {
                    progress_error: rows.length
                        ? `${rows.length} statements in system.processes, none matches the executing one`
                        : 'the executing statement is not in system.processes (starting or finishing)',
                });
            else
                Object.assign(run, {
                    read_rows: Number(row.read_rows),
                    total_rows_approx: Number(row.total_rows_approx),
                    written_rows: Number(row.written_rows),
                    elapsed_ms: Math.round(Number(row.elapsed) * 1000),
                    memory_usage: Number(row.memory_usage),
                    merges_rows_read: Number(row.merges_rows),
                    merges_progress: Number(row.merges_progress),
                    parts_to_do: Number(row.parts_to_do),
                });
        }
        catch (e) {
            Object.assign(run, empty, {
                progress_error: `system.processes unreadable: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`,
            });
        }
        return entries;
    }
    close() {
        this.s?.close();
        this.s = undefined;
    }
}
// ---------------------------------------------------------------------------------------------
// The engine
/** URL parameters that are not query settings. */
const NOT_SETTINGS = new Set([
    'query',
    'query_id',
    'database',
    'default_format',
    'user',
    'password',
    'quota_key',
    'session_id',
    'session_timeout',
    'session_check',
    'close_session',
    'role',
    'stacktrace',
    'buffer_size',
    'wait_end_of_query',
    'send_progress_in_http_headers',
    'http_headers_progress_interval_ms',
    'enable_http_compression',
    'http_zlib_compression_level',
    'http_response_buffer_size',
    'client_protocol_version',
    'add_http_cors_header',
    'compress',
    'decompress',
    'http_native_compression_disable_checksumming_on_decompress',
]);
const SUMMARY_FIELDS = [
    'read_rows',
    'read_bytes',
    'written_rows',
    'written_bytes',
    'total_rows_to_read',
    'result_rows',
    'result_bytes',
    'elapsed_ns',
];
class Engine {
    dataPath;
    main;
    queue = new StatementQueue();
    timezone = 'UTC';
    Session = loadChdb().Session;
    constructor(dataPath) {
        this.dataPath = dataPath;
        this.main = new this.Session(dataPath);
    }
    async init() {
        const r = await this.main.queryAsync('SELECT timezone()', { format: 'TabSeparated' });
        this.timezone = r.text().trim();
    }
    close() {
        this.main.close();
    }
    /** Execute inside the mutex (the caller holds it). */
    async execute(job) {
        const transient = job.params.length > 0 || job.shape.first === 'SET' || job.shape.first === 'USE';
        const s = transient ? new this.Session(this.dataPath) : this.main;
        const applied = [];
        let usedDb = false;
        let poisoned = false;
        try {
            if (job.database !== 'default') {
                await s.queryAsync(`USE ${(0, sql_1.sqlIdent)(job.database)}`);
                usedDb = true;
            }
            for (const [k, v] of job.settings) {
                applied.push(k); // reset even if this SET failed half-way
                await s.queryAsync(`SET ${k} = ${(0, sql_1.sqlString)(v)}`);
            }
            for (const [k, v] of job.params)
                await s.queryAsync(`SET param_${k} = ${(0, sql_1.sqlString)(v)}`);
            return await this.run(s, job);
        }
        finally {
            if (transient) {
                s.close();
            }
            else {
                for (const k of applied) {
                    try {
                        await s.queryAsync(`SET ${k} = DEFAULT`);
                    }
                    catch (e) {
                        // An unknown setting was never applied; anything else leaves the session in doubt.
                        if (!/UNKNOWN_SETTING/.test(String(e.message)))
                            poisoned = true;
                    }
                }
                if (usedDb || job.shape.first === 'DROP' || job.shape.first === 'RENAME' || job.shape.first === 'DETACH') {
                    try {
                        await s.queryAsync('USE default');
                    }
                    catch {
                        poisoned = true;
                    }
                }
                if (poisoned)
                    this.renewMain();
            }
        }
    }
    /** Replace the main session by a fresh one on the same data (same-path sessions coexist). */
    renewMain() {
        log('resetting a setting or the database failed: replacing the chdb session');
        const old = this.main;
        this.main = new this.Session(this.dataPath);
        old.close();
    }
    /**
     * Stream a SELECT's result into the sink with chdb's `queryStream` (one chunk in memory at a
     * time, each written with backpressure while the mutex is held). Headers go out with the first
     * chunk, so an error before it is an ordinary HTTP error. Returns undefined when chdb cannot
     * stream this statement (code 36 "Streaming query is not supported", before any output): the
     * caller then runs it buffered.
     */
    async stream(s, job, sink) {
        const t0 = performance.now();
        let st;
        try {
            st = s.queryStream(job.sql, { format: job.format, signal: sink.signal });
        }
        catch (e) {
            if (/Streaming query is not supported/.test(String(e?.message)))
                return undefined;
            throw e;
        }
        const splicer = JSON_DOC_FORMATS.has(job.format.toUpperCase()) ? new JsonDocSplicer() : undefined;
        const unmeasured = [...SUMMARY_FIELDS];
        let rows = 0;
        try {
            for await (const chunk of st) {
                const raw = chunk.raw();
                const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
                rows += chunk.numRows;
                const out = splicer ? splicer.chunk(buf) : buf;
                if (!sink.started)
                    sink.start({}, unmeasured);
                if (out.length)
                    await sink.write(out);
                if (sink.signal.aborted)
                    break;
            }
        }
        catch (e) {
            if (sink.signal.aborted)
                throw sink.signal.reason;
            if (!sink.started && /Streaming query is not supported/.test(String(e?.message)))
                return undefined;
            throw e;
        }
        if (sink.signal.aborted)
            throw sink.signal.reason;
        const elapsedS = (performance.now() - t0) / 1000;
        if (!sink.started)
            sink.start({}, unmeasured);
        if (splicer)
            await sink.write(splicer.finish(rows, elapsedS));
        sink.end();
        return { streamed: true, body: Buffer.alloc(0), format: job.format, summary: {}, unmeasured };
    }
    async run(s, job) {
        const summary = {};
        let body = Buffer.alloc(0);
        if (job.rawInsert) {
            const r = await s.insert({
                table: job.rawInsert.table,
                columns: job.rawInsert.columns,
                values: job.rawInsert.body,
                format: job.rawInsert.format,
            });
            body = Buffer.alloc(0);
            summary.written_rows = String(r.rowsWritten);
            summary.written_bytes = String(r.bytesWritten);
            summary.elapsed_ns = String(Math.round(r.elapsed * 1e9));
        }
        else if (job.sink) {
            const streamed = await this.stream(s, job, job.sink);
            if (streamed)
                return streamed;
        }
        if (job.fileInsert) {
            const fi = job.fileInsert;
            const dir = path.join(this.dataPath, '..', 'insert-bodies');
            fs.mkdirSync(dir, { recursive: true });
            const file = path.join(dir, `${(0, node_crypto_1.randomUUID)()}.bin`);
            fs.writeFileSync(file, fi.body);
            try {
                const cols = fi.columns ? ` (${fi.columns.map(sql_1.sqlIdent).join(', ')})` : '';
                const r = await s.queryAsync(`INSERT INTO ${fi.table}${cols} FROM INFILE ${(0, sql_1.sqlString)(file)} FORMAT ${fi.format}`, {
                    format: job.format,
                });
                summary.elapsed_ns = String(Math.round(r.elapsed * 1e9));
            }
            finally {
                fs.rmSync(file, { force: true });
            }
            return { body, format: job.format, summary, unmeasured: SUMMARY_FIELDS.filter((f) => !(f in summary)) };
        }
        if (!job.rawInsert) {
            const r = await s.queryAsync(job.sql, { format: job.format });
            const bytes = r.bytes();
            body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
            const stats = statisticsFromOutput(job.format, body);
            if (stats) {
                summary.read_rows = stats.rows;
                summary.read_bytes = stats.bytes;
            }
            if (READ_LIKE.has(job.shape.first)) {
                summary.result_rows = String(r.rowsRead);
                summary.result_bytes = String(r.bytesRead);
            }
            summary.elapsed_ns = String(Math.round(r.elapsed * 1e9));
        }
        return { body, format: job.format, summary, unmeasured: SUMMARY_FIELDS.filter((f) => !(f in summary)) };
    }
}
// ---------------------------------------------------------------------------------------------
// HTTP
function log(msg) {
    process.stdout.write(`${new Date().toISOString()} [embedded-server ${process.pid}] ${msg}\n`);
}
function readBody(req) {
    return new Promise((resolve, reject) => {
        const enc = String(req.headers['content-encoding'] ?? '')
            .trim()
            .toLowerCase();
        let src = req;
        if (enc === 'gzip' || enc === 'x-gzip')
            src = req.pipe(zlib.createGunzip());
        else if (enc === 'deflate')
            src = req.pipe(zlib.createInflate());
        else if (enc === 'br')
            src = req.pipe(zlib.createBrotliDecompress());
        else if (enc !== '' && enc !== 'identity') {
            req.resume();
            reject(new ServerError(48, 'NOT_IMPLEMENTED', `Content-Encoding ${enc} is not supported by the chbench embedded server (gzip, deflate, br are)`));
            return;
        }
        const chunks = [];
        src.on('data', (c) => chunks.push(c));
        src.on('end', () => resolve(Buffer.concat(chunks)));
        src.on('error', (e) => reject(new ServerError(1001, 'STD_EXCEPTION', `cannot read request body: ${e.message}`, 400)));
    });
}
function responseEncoding(req, params) {
    if (params.get('enable_http_compression') !== '1')
        return undefined;
    const accepted = String(req.headers['accept-encoding'] ?? '')
        .split(',')
        .map((s) => s.split(';')[0].trim().toLowerCase());
    return accepted.find((e) => e === 'gzip' || e === 'deflate' || e === 'br');
}
function compress(body, enc) {
    if (!enc)
        return body;
    if (enc === 'gzip')
        return zlib.gzipSync(body);
    if (enc === 'deflate')
        return zlib.deflateSync(body);
    return zlib.brotliCompressSync(body);
}
const TSV_ESCAPES = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };
const tsv = (v) => v.replace(/[\\\t\n\r\0]/g, (c) => TSV_ESCAPES[c]);
/** Render KILL QUERY's result rows in a few formats (others: code 48). */
function renderKillRows(rows, format) {
    const cols = ['kill_status', 'query_id', 'user', 'query'];
    const f = format.toUpperCase();
    if (f === 'TABSEPARATED' || f === 'TSV' || f === 'TABSEPARATEDWITHNAMES' || f === 'TSVWITHNAMES') {
        const head = f.includes('WITHNAMES') ? `${cols.join('\t')}\n` : '';
        return Buffer.from(head + rows.map((r) => cols.map((c) => tsv(r[c])).join('\t') + '\n').join(''));
    }
    if (f === 'JSONEACHROW')
        return Buffer.from(rows.map((r) => JSON.stringify(r) + '\n').join(''));
    if (f === 'JSON') {
        const meta = cols.map((name) => ({ name, type: 'String' }));
        return Buffer.from(JSON.stringify({ meta, data: rows, rows: rows.length }, null, '\t') + '\n');
    }
    throw new ServerError(48, 'NOT_IMPLEMENTED', `KILL QUERY output in format ${format} is not supported by the chbench embedded server (TabSeparated, TabSeparatedWithNames, JSONEachRow, JSON are)`);
}
const KILL_RE = /^\s*KILL\s+QUERY\s+WHERE\s+query_id\s*=\s*'((?:[^'\\]|\\.)*)'\s*(SYNC|ASYNC|TEST)?\s*(?:FORMAT\s+([A-Za-z_][A-Za-z0-9_]*))?\s*;?\s*$/i;
/** An identifier as an INSERT may name a table or column: bare, or in backquotes with `\\` escapes. */
const IDENT = '(?:[A-Za-z0-9_]+|`(?:[^`\\\\]|\\\\.)+`)';
const INSERT_RE = new RegExp(`^\\s*INSERT\\s+INTO\\s+(?:TABLE\\s+)?(${IDENT}(?:\\.${IDENT})?)\\s*(?:\\(\\s*(${IDENT}(?:\\s*,\\s*${IDENT})*)\\s*\\))?\\s*FORMAT\\s+([A-Za-z]+)\\s*$`, 'i');
/** A table name as `db.table` of plain segments (backquotes removed), or undefined when a segment needs its quotes. */
function plainTable(name) {
    const segs = name.match(/`(?:[^`\\]|\\.)+`|[A-Za-z0-9_]+/g) ?? [];
    const plain = segs.map((x) => x.replace(/^`(.*)`$/, '$1'));
    return plain.length && plain.every((x) => /^[A-Za-z0-9_]+$/.test(x)) ? plain.join('.') : undefined;
}
/** Column names of an INSERT's column list, backquotes removed. */
function insertColumns(list) {
    return list?.split(',').map((c) => c
        .trim()
        .replace(/^`(.*)`$/, '$1')
        .replace(/\\(.)/g, '$1'));
}
/** An INSERT at the start of a request body, its format name, and the whitespace before its data. */
const BODY_INSERT_RE = new RegExp(`^(\\s*INSERT\\s+INTO\\s+(?:TABLE\\s+)?${IDENT}(?:\\.${IDENT})?\\s*(?:\\(\\s*${IDENT}(?:\\s*,\\s*${IDENT})*\\s*\\))?\\s*FORMAT\\s+([A-Za-z]+))(?:[ \\t]*\\r?\\n|[ \\t]+)`, 'i');
/** The exception tag of each query response (sent in `X-ClickHouse-Exception-Tag`). */
const exceptionTags = new WeakMap();
/** 16 random lower-case letters and digits, like a 26.x server's exception tag. */
function exceptionTag() {
    const abc = 'abcdefghijklmnopqrstuvwxyz0123456789';
    return [...(0, node_crypto_1.randomBytes)(16)].map((b) => abc[b % abc.length]).join('');
}
/** Start the server. Resolves once it listens; returns the port. */
async function main() {
    const args = parseArgs(process.argv.slice(2));
    const dataDir = path.resolve(args.dataDir);
    const dataPath = path.join(dataDir, 'data');
    statementLogFile = path.join(dataDir, 'statements.jsonl');
    fs.mkdirSync(dataPath, { recursive: true });
    const { version: chdbVersion, drainPending } = loadChdb();
    const v = chdbVersion();
    const chVersion = String(v.libchdb).replace(/"/g, '');
    const engineLabel = `chdb ${v.chdb} (ClickHouse ${chVersion})`;
    const engine = new Engine(dataPath);
    await engine.init();
    const monitor = new ProgressMonitor(dataPath);
    const startedAt = new Date().toISOString();
    let shuttingDown = false;
    let inFlight = 0;
    const baseHeaders = (queryId) => ({
        'X-Chbench-Engine': `chdb ${v.chdb}`,
        'X-ClickHouse-Server-Display-Name': 'chbench-embedded',
        ...(queryId ? { 'X-ClickHouse-Query-Id': queryId } : {}),
    });
    const sendError = (res, e, queryId) => {
        const a = toErrorAnswer(e);
        if (res.headersSent) {
            // The response has started (status 200 is gone): write the exception the way ClickHouse
            // ≥ 25.11 does and break the response (no end of the chunked body), see the file header.
            const tag = exceptionTags.get(res);
            if (tag && !res.destroyed && !res.writableEnded) {
                const msg = a.body.endsWith('\n') ? a.body : `${a.body}\n`;
                const block = `\r\n__exception__\r\n${tag}\r\n${msg}${Buffer.byteLength(msg)} ${tag}\r\n__exception__\r\n`;
                res.write(block, () => res.destroy());
                setTimeout(() => res.destroy(), 5000).unref(); // a client that stopped reading
                return;
            }
            res.destroy();
            return;
        }
        res.writeHead(a.status, {
            ...baseHeaders(queryId),
            'Content-Type': 'text/plain; charset=UTF-8',
            'X-ClickHouse-Exception-Code': String(a.code),
        });
        res.end(`${a.body}\n`);
    };
    const handleKill = async (m, format, res, queryId) => {
        const target = m[1].replace(/\\(.)/g, '$1');
        const mode = (m[2] ?? 'ASYNC').toUpperCase();
        const found = engine.queue.find(target);
        const rows = [];
        if (found?.state === 'running') {
            const abort = found.entry.abortRunning;
            if (!abort) {
                throw new ServerError(48, 'NOT_IMPLEMENTED', `query '${target}' is already executing inside the chdb engine, which cannot interrupt a running statement that is not streaming its result; it will run to completion. Only queued and streaming statements can be killed`);
            }
            if (mode !== 'TEST') {
                abort(new ServerError(394, 'QUERY_WAS_CANCELLED', 'Query was cancelled (KILL QUERY; the chbench embedded server stopped the stream between two chunks)'));
                if (mode === 'SYNC')
                    await (0, poll_1.pollWithin)(() => engine.queue.find(target)?.entry !== found.entry, {
                        timeoutMs: 60_000,
                        intervalMs: 10,
                        stopOn: () => true,
                    });
            }
            rows.push({
                kill_status: mode === 'TEST' ? 'cant_cancel' : mode === 'SYNC' ? 'finished' : 'waiting',
                query_id: target,
                user: 'default',
                query: found.entry.sqlHead,
            });
        }
        else if (found) {
            if (mode !== 'TEST')
                engine.queue.cancelQueued(target, new ServerError(394, 'QUERY_WAS_CANCELLED', `Query was cancelled (KILL QUERY while queued in the chbench embedded server)`));
            rows.push({
                kill_status: mode === 'TEST' ? 'cant_cancel' : 'finished',
                query_id: target,
                user: 'default',
                query: found.entry.sqlHead,
            });
        }
        const out = renderKillRows(rows, format);
        res.writeHead(200, {
            ...baseHeaders(queryId),
            'Content-Type': contentTypeFor(format),
            'X-ClickHouse-Format': format,
            'X-ClickHouse-Timezone': engine.timezone,
        });
        res.end(out);
    };
    const handleQuery = async (req, res, url, queryId) => {
        const params = url.searchParams;
        if (params.get('compress') === '1' || params.get('decompress') === '1') {
            req.resume();
            throw new ServerError(48, 'NOT_IMPLEMENTED', 'ClickHouse native compression (compress=1 / decompress=1) is not supported by the chbench embedded server; use enable_http_compression / Content-Encoding');
        }
        const body = req.method === 'POST' ? await readBody(req) : Buffer.alloc(0);
        if (req.method === 'GET')
            req.resume();
        const qParam = params.get('query') ?? '';
        const database = params.get('database') || String(req.headers['x-clickhouse-database'] ?? '') || 'default';
        const defaultFormat = params.get('default_format') || String(req.headers['x-clickhouse-format'] ?? '') || 'TabSeparated';
        const head = qParam !== '' ? qParam : body.toString('utf8', 0, Math.min(body.length, 64 * 1024));
        const shape = analyzeSql(head);
        if (shape.first === '')
            throw new ServerError(62, 'SYNTAX_ERROR', 'Empty query');
        if (shape.multi)
            throw new ServerError(62, 'SYNTAX_ERROR', 'Syntax error (Multi-statements are not allowed)');
        const format = shape.outputFormat ?? defaultFormat;
        if (shape.first === 'KILL') {
            const m = KILL_RE.exec(qParam !== '' ? `${qParam}\n${body.toString('utf8')}` : body.toString('utf8'));
            if (shape.second !== 'QUERY' || !m) {
                if (shape.second === 'QUERY')
                    throw new ServerError(48, 'NOT_IMPLEMENTED', "the chbench embedded server supports only KILL QUERY WHERE query_id = '…' [SYNC|ASYNC|TEST]");
            }
            else {
                await handleKill(m, m[3] ?? defaultFormat, res, queryId);
                return;
            }
        }
        if ((shape.first === 'SET' || shape.first === 'USE') && params.get('session_id')) {
            throw new ServerError(48, 'NOT_IMPLEMENTED', `HTTP sessions (session_id) are not supported by the chbench embedded server: a ${shape.first} statement would not carry over to later requests`);
        }
        const settings = [];
        const qparams = [];
        for (const [k, val] of params) {
            if (k.startsWith('param_')) {
                const name = k.slice(6);
                if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
                    throw new ServerError(457, 'BAD_QUERY_PARAMETER', `Invalid query parameter name ${JSON.stringify(name)}`);
                qparams.push([name, val]);
            }
            else if (!NOT_SETTINGS.has(k)) {
                if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
                    throw new ServerError(115, 'UNKNOWN_SETTING', `Unknown setting ${JSON.stringify(k)}`);
                settings.push([k, val]);
            }
        }
        let rawInsert;
        let fileInsert;
        let sql;
        // An INSERT sent in the body (`INSERT INTO t FORMAT RowBinary\n<rows>`, as clickhouse-connect does):
        // a binary format's rows must not be read as SQL text, so the statement and its data are split
        // (latin1 keeps one character per byte, so the match's length is the data's byte offset).
        let insertSql = qParam;
        let insertData = body;
        if (shape.first === 'INSERT' && qParam === '') {
            const bm = BODY_INSERT_RE.exec(body.toString('latin1', 0, Math.min(body.length, 64 * 1024)));
            if (bm && BINARY_FORMAT_RE.test(bm[2].toUpperCase())) {
                insertSql = bm[1];
                insertData = body.subarray(bm[0].length);
            }
        }
        if (shape.first === 'INSERT' && insertSql !== '') {
            const m = INSERT_RE.exec(insertSql);
            const raw = m ? RAW_INSERT_FORMATS[m[3].toUpperCase()] : undefined;
            // chdb's raw insert takes a plain `db.table` name only: a backquoted one is unquoted, and one that
            // needs its quotes goes the text way (SQL and rows as one statement).
            const rawTable = m ? plainTable(m[1]) : undefined;
            if (m && raw && rawTable) {
                rawInsert = {
                    table: rawTable,
                    columns: insertColumns(m[2]),
                    format: raw,
                    body,
                };
            }
            else if (m && BINARY_FORMAT_RE.test(m[3].toUpperCase())) {
                fileInsert = {
                    table: m[1],
                    columns: insertColumns(m[2]),
                    format: m[3],
                    body: insertData,
                };
            }
            else if (shape.insertFormat && BINARY_FORMAT_RE.test(shape.insertFormat.toUpperCase())) {
                throw new ServerError(48, 'NOT_IMPLEMENTED', `INSERT in binary format ${shape.insertFormat} is supported by the chbench embedded server only as \`INSERT INTO <table> [(<columns>)] FORMAT <format>\` in the query parameter with the rows as the body`);
            }
        }
        if (rawInsert || fileInsert)
            sql = insertSql;
        else if (qParam !== '' && body.length > 0)
            sql = `${qParam}\n${body.toString('utf8')}`;
        else
            sql = qParam !== '' ? qParam : body.toString('utf8');
        if (engine.queue.find(queryId)) {
            throw new ServerError(216, 'QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING', `Query with id = ${queryId} is already running`);
        }
        const job = { queryId, sql, shape, rawInsert, fileInsert, database, format, settings, params: qparams };
        const enc = responseEncoding(req, params);
        const tag = exceptionTag();
        exceptionTags.set(res, tag);
        const F = format.toUpperCase();
        const streamable = !rawInsert &&
            !fileInsert &&
            (shape.first === 'SELECT' || shape.first === 'WITH') &&
            params.get('wait_end_of_query') !== '1' &&
            !enc &&
            (STREAM_ROW_FORMATS.has(F) || JSON_DOC_FORMATS.has(F));
        const ac = new AbortController();
        if (streamable) {
            job.sink = {
                signal: ac.signal,
                started: false,
                start(summary, unmeasured) {
                    this.started = true;
                    res.writeHead(200, {
                        ...baseHeaders(queryId),
                        'Content-Type': contentTypeFor(format),
                        'X-ClickHouse-Format': format,
                        'X-ClickHouse-Timezone': engine.timezone,
                        'X-ClickHouse-Summary': JSON.stringify(summary),
                        'X-ClickHouse-Exception-Tag': tag,
                        'X-Chbench-Result': 'streamed',
                        ...(unmeasured.length ? { 'X-Chbench-Unmeasured': unmeasured.join(',') } : {}),
                    });
                },
                write(b) {
                    return new Promise((resolve) => {
                        if (res.destroyed || ac.signal.aborted)
                            return resolve();
                        if (res.write(b))
                            return resolve();
                        const done = () => {
                            res.off('drain', done);
                            res.off('close', done);
                            ac.signal.removeEventListener('abort', done);
                            resolve();
                        };
                        res.on('drain', done);
                        res.on('close', done);
                        ac.signal.addEventListener('abort', done);
                    });
                },
                end() {
                    res.end();
                },
            };
        }
        let cancelQueued;
        let done = false;
        res.on('close', () => {
            if (done)
                return;
            if (cancelQueued?.(new ServerError(394, 'QUERY_WAS_CANCELLED', 'Query was cancelled: the client disconnected while it was queued')))
                return;
            if (!res.writableFinished)
                ac.abort(new ServerError(394, 'QUERY_WAS_CANCELLED', 'Query was cancelled: the client disconnected while the result was streamed'));
        });
        const sqlHead = (qParam !== '' ? qParam : sql).slice(0, 200);
        let outcome;
        try {
            outcome = await engine.queue.run(queryId, sqlHead, () => {
                const running = engine.queue.find(queryId);
                if (running && job.sink)
                    running.entry.abortRunning = (e) => ac.abort(e);
                return engine.execute(job);
            }, (c) => (cancelQueued = c));
        }
        finally {
            done = true;
        }
        if (outcome.streamed)
            return;
        const payload = compress(outcome.body, enc);
        res.writeHead(200, {
            ...baseHeaders(queryId),
            'X-ClickHouse-Exception-Tag': tag,
            'X-Chbench-Result': 'buffered',
            'Content-Type': contentTypeFor(outcome.format),
            'X-ClickHouse-Format': outcome.format,
            'X-ClickHouse-Timezone': engine.timezone,
            'X-ClickHouse-Summary': JSON.stringify(outcome.summary),
            ...(outcome.unmeasured.length ? { 'X-Chbench-Unmeasured': outcome.unmeasured.join(',') } : {}),
            ...(enc ? { 'Content-Encoding': enc } : {}),
            'Content-Length': String(payload.length),
        });
        res.end(payload);
    };
    let lastActivityMs = Date.now();
    const server = http.createServer((req, res) => {
        inFlight++;
        lastActivityMs = Date.now();
        res.on('close', () => {
            inFlight--;
            lastActivityMs = Date.now();
        });
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const p = url.pathname;
        const json = (status, v) => {
            res.writeHead(status, { ...baseHeaders(), 'Content-Type': 'application/json; charset=UTF-8' });
            res.end(`${JSON.stringify(v)}\n`);
        };
        if (p === '/ping' || (p === '/' && req.method !== 'POST' && !url.searchParams.has('query'))) {
            req.resume();
            res.writeHead(200, { ...baseHeaders(), 'Content-Type': 'text/html; charset=UTF-8' });
            res.end(req.method === 'HEAD' ? undefined : 'Ok.\n');
            return;
        }
        if (args.auth) {
            const who = requestCredentials(req, url);
            if (!credentialsMatch(who, args.auth)) {
                req.resume();
                sendError(res, new ServerError(516, 'AUTHENTICATION_FAILED', `${who.user}: Authentication failed: password is incorrect, or there is no user with such name`, 403));
                return;
            }
        }
        if (p === '/chbench/statements' && req.method === 'GET') {
            res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
            res.end(statementLogFile && fs.existsSync(statementLogFile) ? fs.readFileSync(statementLogFile) : '');
            return;
        }
        if (p === '/chbench/running' && req.method === 'GET') {
            req.resume();
            monitor.running(engine.queue).then((list) => json(200, list), (e) => sendError(res, e));
            return;
        }
        if (p === '/chbench/info' && req.method === 'GET') {
            req.resume();
            json(200, {
                chdb: v.chdb,
                clickhouse: chVersion,
                engine: engineLabel,
                pid: process.pid,
                dataDir,
                timezone: engine.timezone,
                startedAt,
            });
            return;
        }
        if (p !== '/') {
            req.resume();
            res.writeHead(404, { ...baseHeaders(), 'Content-Type': 'text/plain; charset=UTF-8' });
            res.end(`There is no handle ${p}\n\nUse / or /ping (chbench embedded server: also /chbench/running, /chbench/info)\n`);
            return;
        }
        if (req.method !== 'GET' && req.method !== 'POST') {
            req.resume();
            sendError(res, new ServerError(1001, 'STD_EXCEPTION', `HTTP method ${req.method} is not supported`, 405));
            return;
        }
        if (shuttingDown) {
            req.resume();
            sendError(res, new ServerError(394, 'QUERY_WAS_CANCELLED', 'the server is shutting down', 503));
            return;
        }
        const queryId = url.searchParams.get('query_id') || (0, node_crypto_1.randomUUID)();
        handleQuery(req, res, url, queryId).catch((e) => {
            const a = toErrorAnswer(e);
            log(`query ${queryId} failed: code ${a.code} ${a.type}`);
            sendError(res, e, queryId);
        });
    });
    server.keepAliveTimeout = 10_000;
    server.requestTimeout = 0;
    const port = await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(args.port, args.host, () => {
            const a = server.address();
            resolve(typeof a === 'object' && a ? a.port : 0);
        });
    });
    (0, fs_1.writeFileAtomic)(args.portFile, `${port}\n`);
    log(`${engineLabel} on ${dataPath}, listening on http://${args.host.includes(':') ? `[${args.host}]` : args.host}:${port}${args.auth ? ` (user ${args.auth.user}, password required)` : ''}, timezone ${engine.timezone}`);
    const shutdown = async (sig) => {
        if (shuttingDown)
            return;
        shuttingDown = true;
        log(`${sig}: stopping (no new connections; queued statements cancelled; waiting for the executing one)`);
        server.close();
        server.closeIdleConnections();
        engine.queue.cancelAllQueued(new ServerError(394, 'QUERY_WAS_CANCELLED', 'Query was cancelled: the server is shutting down'));
        await engine.queue.idle();
        // Let the responses of the last statement go out (bounded).
        await (0, poll_1.pollWithin)(() => inFlight === 0, { timeoutMs: 5000, intervalMs: 20 });
        server.closeAllConnections();
        monitor.close();
        engine.close();
        await drainPending();
        log('chdb session closed; exit 0');
        process.exit(0);
    };
    process.on('SIGTERM', () => void shutdown('SIGTERM'));
    process.on('SIGINT', () => void shutdown('SIGINT'));
    if (args.idleExitS !== undefined) {
        const idleMs = args.idleExitS * 1000;
        const timer = setInterval(() => {
            if (inFlight === 0 && Date.now() - lastActivityMs >= idleMs)
                void shutdown(`idle for ${args.idleExitS} s`);
        }, Math.min(5000, Math.max(200, idleMs / 4)));
        timer.unref();
    }
}
function parseArgs(argv) {
    const get = (name) => {
        const k = argv.indexOf(name);
        return k >= 0 ? argv[k + 1] : undefined;
    };
    const usage = 'usage: embedded-server --data-dir <dir> [--port <n|0>] [--port-file <file>] [--host <loopback ip>] [--auth-from-env] [--idle-exit-s <n>]';
    const dataDir = get('--data-dir');
    const port = Number(get('--port') ?? '0');
    const portFile = get('--port-file') ?? (dataDir ? path.join(dataDir, 'port') : undefined);
    const host = get('--host') ?? '127.0.0.1';
    const idle = get('--idle-exit-s');
    const idleExitS = idle === undefined ? undefined : Number(idle);
    if (idleExitS !== undefined && !(Number.isFinite(idleExitS) && idleExitS > 0))
        throw new Error(`--idle-exit-s ${idle}: expected a positive number of seconds; ${usage}`);
    if (!dataDir || !portFile || !Number.isInteger(port) || port < 0 || port > 65535) {
        throw new Error(usage);
    }
    const loopback = (net.isIPv4(host) && host.startsWith('127.')) || (net.isIPv6(host) && host === '::1');
    if (!loopback)
        throw new Error(`--host ${host}: only loopback addresses (127.0.0.0/8, ::1) are allowed; ${usage}`);
    const auth = argv.includes('--auth-from-env')
        ? { user: process.env.CLICKHOUSE_USER || 'default', password: process.env.CLICKHOUSE_PASSWORD ?? '' }
        : undefined;
    return {
        dataDir,
        port,
        portFile: path.resolve(portFile),
        host,
        ...(auth ? { auth } : {}),
        ...(idleExitS !== undefined ? { idleExitS } : {}),
    };
}
/**
 * The user and password a request carries, in ClickHouse's order: HTTP basic auth, else the
 * `X-ClickHouse-User`/`X-ClickHouse-Key` headers, else the `user`/`password` URL parameters; a
 * missing user is `default`, a missing password empty.
 */
function requestCredentials(req, url) {
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
        const text = Buffer.from(basic[1], 'base64').toString('utf8');
        const colon = text.indexOf(':');
        return colon < 0
            ? { user: text || 'default', password: '' }
            : { user: text.slice(0, colon) || 'default', password: text.slice(colon + 1) };
    }
    const hUser = req.headers['x-clickhouse-user'];
    const hKey = req.headers['x-clickhouse-key'];
    if (hUser !== undefined || hKey !== undefined)
        return { user: String(hUser ?? '') || 'default', password: String(hKey ?? '') };
    return {
        user: url.searchParams.get('user') || 'default',
        password: url.searchParams.get('password') ?? '',
    };
}
/** Constant-time comparison of the request's credentials with the configured ones. */
function credentialsMatch(got, want) {
    const eq = (a, b) => {
        const x = Buffer.from(a);
        const y = Buffer.from(b);
        return x.length === y.length && (0, node_crypto_1.timingSafeEqual)(x, y);
    };
    return eq(got.user, want.user) && eq(got.password, want.password);
}
/** Exported for unit tests of the SQL shape detection. */
exports._internal = { analyzeSql, statisticsFromOutput, parseClickHouseError, statusFor };
if (require.main === module) {
    main().catch((e) => {
        log(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        process.exit(1);
    });
}
//# sourceMappingURL=server.js.map