/**
 * The embedded target's server: a separate Node process that opens ONE chdb engine on
 * `<dataDir>/data` and serves, on 127.0.0.1 (or another loopback address, `--host`), the subset of
 * the ClickHouse HTTP interface that `@clickhouse/client` 1.x uses. Two backends (driver.ts):
 * - `--engine npm` (default): the npm `chdb` package in this process (chdb 3.4.0 = ClickHouse 26.7);
 * - `--engine python --python <venv>/bin/python`: a PyPI chdb build (chdb 1.4.1 … chdb-core 26.9.0 =
 *   ClickHouse 23.10 … 26.9, installed by install.ts) in a Python child process running
 *   `python/host.py`, spoken to over framed stdin/stdout (python-driver.ts). If that process dies,
 *   every pending statement fails with code 1001 naming its exit code/signal and stderr tail, and
 *   this server exits with code 70 (the engine is not silently restarted).
 *   `CHBENCH_ENGINE_MAX_RESULT_BYTES` (default 1 GiB) caps a BUFFERED result passed from the host:
 *   a larger one fails with code 396 TOO_MANY_ROWS_OR_BYTES (the host has built it by then).
 *
 * What each build cannot do (`capabilities` in `/chbench/info`, from NOTES "ClickHouse versions"):
 * | build | cannot |
 * |---|---|
 * | npm chdb 3.4.0 (26.7) | system.query_log |
 * | chdb-core 26.5 / 26.9 | system.query_log (26.9's config-file query_log is not wired) |
 * | chdb-core 26.1 / 26.3 | JSON statistics say rows_read 0 (not used; storage_rows_read is) |
 * | chdb 3.7.2 (25.8) | a 2nd session during a statement (no progress, no KILL of a running buffered statement) |
 * | chdb 3.1.2 (24.8) | as 3.7.2, and no streaming (every result buffered) and no storage rows read (read_rows unmeasured) |
 * | chdb 1.4.1 (23.10) | as 3.1.2, and the engine re-opens its data every statement; no system.parts |
 *
 * Run (always through the engine launcher `launch.ts` next to this file, `startEngineServer`: the
 * embedded target, the results database and the simulated kubelet use it):
 *
 *     node dist/src/engine/server.js --data-dir <dir> --port <n|0> --port-file <file> [--engine npm|python --python <interpreter>]
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
 * ## Test hook (test-only, off by default)
 * `CHBENCH_TEST_EXIT_ON_STATEMENT=<ClickHouse version prefix or *>:<regex>` in the server's
 * environment (a detached server inherits the worker's): when this server's ClickHouse version
 * matches the prefix (`26.9` matches 26.9.2.1), a request whose statement text matches the regex
 * makes the server SIGKILL itself on receipt, before the statement runs, as a server that crashes
 * on it would (the client sees the connection reset; a PyPI build's Python host exits on its closed
 * stdin). For tests of what chbench does when a server dies part-way (test/e2e/probe-interrupted);
 * never set it elsewhere. A malformed value stops the server at start.
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
 * - A statement whose buffered result is being sent (see "Buffered results") is listed with
 *   `state: 'sending'`, `sent_bytes` (bytes of the body written so far, before any response
 *   compression) and `result_bytes` (the body's size): the engine is already free for the next one.
 * - `GET /chbench/statements` → the statement log (JSON lines, see `logStatement`).
 * - `GET /chbench/info` → JSON `{chdb, clickhouse, engine, backend, package, capabilities, limits,
 *   python?, pid, dataDir, timezone, startedAt}` (`limits`: what the build cannot do, in words;
 *   `python`: the interpreter hosting a PyPI build).
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
 *   (buffered: DDL, inserts, EXPLAIN, SHOW, wait_end_of_query=1 …) is killed, where the build runs a
 *   second session beside it (`capabilities.concurrentSessions`: npm 3.4.0, PyPI chdb-core ≥ 26.1),
 *   by finding it in `system.processes` from that session (by its SQL text: chdb gives it its own
 *   query_id) and sending `KILL QUERY WHERE query_id = '<its id>'`: the statement fails inside the
 *   engine with code 394 (checked: 0.5 s after the KILL on 26.9). On the other builds (PyPI chdb
 *   ≤ 3.7.2) that KILL fails with code 48 NOT_IMPLEMENTED naming the build. Other KILL forms: 48.
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
 * `streamed` or `buffered`. With `--engine python` the same holds through `Session.send_query`
 * (PyPI ≥ 3.7.2; the host sends at most 4 unacknowledged chunks, checked: a 600 MB result on 26.9
 * raised server + host RSS by ≈ 170 MiB with `max_block_size = 8192`); builds without it (≤ 3.1.2)
 * buffer every result.
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
 * ## Buffered results (checked with chdb 3.4.0)
 * A buffered SELECT/WITH (`wait_end_of_query=1`, response compression, a format that is not
 * streamed) never holds its result in memory: it runs as `… INTO OUTFILE '<dataDir>/results/<uuid>'
 * FORMAT <format> [SETTINGS …]` (inserted before the top-level FORMAT clause, or appended with the
 * request's format; see `withOutfile`), still through the driver's `query()`, so elapsed and the
 * result rows are the engine's (chdb reports the same `elapsed`/`rowsRead`/`bytesRead` with and
 * without OUTFILE; a JSON/XML statistics block is read from the file's last 4 KiB; the file holds the
 * same bytes as the in-memory result, checked for PrettyCompact, Pretty, Vertical, Markdown,
 * CSVWithNames, TSVWithNamesAndTypes, JSONEachRow, Values, XML, JSON, Parquet, Native, RowBinary,
 * ArrowStream — only the statistics' `elapsed` differs). The file is
 * then sent with `Content-Length` (chunked when compressed) and removed after the last byte, when
 * the client disconnects, or when the statement fails; a server start removes what a killed one
 * left. Measured (bench/results/big-result-server.json): a 1 GB JSONCompact result grew the server
 * by +3,140 MB before, and holds only the engine's working memory now. `X-Chbench-Buffered-In`
 * says `file`, or `memory` (every other statement) with the reason for a SELECT/WITH that could not
 * go to a file. A client's own `INTO OUTFILE` is refused (see "Reach" below). While the body goes out the
 * statement is listed as `sending` in `/chbench/running` without holding the mutex; a KILL QUERY of
 * it cuts the response.
 *
 * ## Reach: nothing outside the engine's data
 * chdb is ClickHouse's local mode: its `file()`, `url()`, `INTO OUTFILE`, `executable()`, … are not
 * confined to a user-files folder as a server's are. Every statement a client sends is checked by
 * `reachProblem` (sql-reach.ts) before it is queued, and refused with code 291
 * (`DATABASE_ACCESS_DENIED`, what a server answers for a path outside user_files) naming the call.
 * Only the server's own result files are written with OUTFILE. With the credential check (every
 * request carries the server's password), a local user can neither run statements nor, through the
 * worker's, reach outside the data folder.
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
 *   With `--engine python` on PyPI ≥ 3.7.2 they are the engine's `storage_rows_read()` /
 *   `storage_bytes_read()` for every format (before 26.5 the JSON block's 0 is never used).
 * - `written_rows`, `written_bytes`: for `INSERT INTO t [(cols)] FORMAT <text format>` with the rows in
 *   the body, the statement runs through chdb's raw insert, which reports the engine's
 *   rows/bytes written (npm; with `--engine python` chdb-core 26.x `Session.send_insert`; older PyPI
 *   builds get the rows as statement text and leave them unmeasured). Omitted for every other write
 *   (e.g. INSERT … SELECT).
 * - Header `X-Chbench-Unmeasured` lists the standard summary fields that were omitted.
 *
 * ## Event loop (checked with chdb 3.4.0 on Node 20)
 * `Session.queryAsync` really runs off the event loop (on a libuv worker thread): during a 390 ms
 * `SELECT sum(cityHash64(number)) FROM numbers(3e8)` a 10 ms interval timer kept firing (largest gap
 * 12 ms), while the synchronous `Session.query` froze it for the whole query. So `/ping`,
 * `/chbench/running` and KILL answer while a long statement runs. Two queryAsync calls on the same
 * connection do not overlap (the second waited for the first), which the mutex makes explicit.
 * With `--engine python` the engine runs in the host process (a thread per chdb connection), so the
 * event loop here only moves frames.
 *
 * ## Shutdown
 * SIGTERM/SIGINT: stop accepting connections, fail queued statements (code 394), let the executing
 * statement finish and its response go out (a streaming response gets at most 5 s to drain, then
 * its connection is closed), close the chdb session, exit 0.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import { writeFileAtomic } from '../lib/fs';
import { pollWithin } from '../lib/poll';
import { claimDataDir } from './data-version';
import type { EngineDriver } from './driver';
import { Engine, ProgressMonitor, type Job, type Outcome } from './engine';
import { parseClickHouseError, ServerError, statusFor, toErrorAnswer } from './errors';
import {
  BINARY_FORMAT_RE,
  contentTypeFor,
  JSON_DOC_FORMATS,
  RAW_INSERT_FORMATS,
  statisticsFromOutput,
  STREAM_ROW_FORMATS,
} from './formats';
import { findPypiBuild } from './install';
import { createNpmDriver } from './npm-driver';
import { createPythonDriver } from './python-driver';
import { setStatementLog, statementLog, StatementQueue, type SendingHandle } from './queue';
import { analyzeSql } from './sql-shape';
import { reachProblem } from './sql-reach';

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

// ---------------------------------------------------------------------------------------------
// HTTP

function log(msg: string): void {
  process.stdout.write(`${new Date().toISOString()} [embedded-server ${process.pid}] ${msg}\n`);
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const enc = String(req.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase();
    let src: NodeJS.ReadableStream = req;
    if (enc === 'gzip' || enc === 'x-gzip') src = req.pipe(zlib.createGunzip());
    else if (enc === 'deflate') src = req.pipe(zlib.createInflate());
    else if (enc === 'br') src = req.pipe(zlib.createBrotliDecompress());
    else if (enc !== '' && enc !== 'identity') {
      req.resume();
      reject(
        new ServerError(
          48,
          'NOT_IMPLEMENTED',
          `Content-Encoding ${enc} is not supported by the chbench embedded server (gzip, deflate, br are)`,
        ),
      );
      return;
    }
    const chunks: Buffer[] = [];
    src.on('data', (c: Buffer) => chunks.push(c));
    src.on('end', () => resolve(Buffer.concat(chunks)));
    src.on('error', (e: Error) =>
      reject(new ServerError(1001, 'STD_EXCEPTION', `cannot read request body: ${e.message}`, 400)),
    );
  });
}

function responseEncoding(req: http.IncomingMessage, params: URLSearchParams): 'gzip' | 'deflate' | 'br' | undefined {
  if (params.get('enable_http_compression') !== '1') return undefined;
  const accepted = String(req.headers['accept-encoding'] ?? '')
    .split(',')
    .map((s) => s.split(';')[0].trim().toLowerCase());
  return accepted.find((e): e is 'gzip' | 'deflate' | 'br' => e === 'gzip' || e === 'deflate' || e === 'br');
}

function compress(body: Buffer, enc: 'gzip' | 'deflate' | 'br' | undefined): Buffer {
  if (!enc) return body;
  if (enc === 'gzip') return zlib.gzipSync(body);
  if (enc === 'deflate') return zlib.deflateSync(body);
  return zlib.brotliCompressSync(body);
}

const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };
const tsv = (v: string) => v.replace(/[\\\t\n\r\0]/g, (c) => TSV_ESCAPES[c]);

/** Render KILL QUERY's result rows in a few formats (others: code 48). */
function renderKillRows(
  rows: { kill_status: string; query_id: string; user: string; query: string }[],
  format: string,
): Buffer {
  const cols = ['kill_status', 'query_id', 'user', 'query'] as const;
  const f = format.toUpperCase();
  if (f === 'TABSEPARATED' || f === 'TSV' || f === 'TABSEPARATEDWITHNAMES' || f === 'TSVWITHNAMES') {
    const head = f.includes('WITHNAMES') ? `${cols.join('\t')}\n` : '';
    return Buffer.from(head + rows.map((r) => cols.map((c) => tsv(r[c])).join('\t') + '\n').join(''));
  }
  if (f === 'JSONEACHROW') return Buffer.from(rows.map((r) => JSON.stringify(r) + '\n').join(''));
  if (f === 'JSON') {
    const meta = cols.map((name) => ({ name, type: 'String' }));
    return Buffer.from(JSON.stringify({ meta, data: rows, rows: rows.length }, null, '\t') + '\n');
  }
  throw new ServerError(
    48,
    'NOT_IMPLEMENTED',
    `KILL QUERY output in format ${format} is not supported by the chbench embedded server (TabSeparated, TabSeparatedWithNames, JSONEachRow, JSON are)`,
  );
}

const KILL_RE =
  /^\s*KILL\s+QUERY\s+WHERE\s+query_id\s*=\s*'((?:[^'\\]|\\.)*)'\s*(SYNC|ASYNC|TEST)?\s*(?:FORMAT\s+([A-Za-z_][A-Za-z0-9_]*))?\s*;?\s*$/i;
/** An identifier as an INSERT may name a table or column: bare, or in backquotes with `\\` escapes. */
const IDENT = '(?:[A-Za-z0-9_]+|`(?:[^`\\\\]|\\\\.)+`)';
const INSERT_RE = new RegExp(
  `^\\s*INSERT\\s+INTO\\s+(?:TABLE\\s+)?(${IDENT}(?:\\.${IDENT})?)\\s*(?:\\(\\s*(${IDENT}(?:\\s*,\\s*${IDENT})*)\\s*\\))?\\s*FORMAT\\s+([A-Za-z]+)\\s*$`,
  'i',
);
/** A table name as `db.table` of plain segments (backquotes removed), or undefined when a segment needs its quotes. */
function plainTable(name: string): string | undefined {
  const segs = name.match(/`(?:[^`\\]|\\.)+`|[A-Za-z0-9_]+/g) ?? [];
  const plain = segs.map((x) => x.replace(/^`(.*)`$/, '$1'));
  return plain.length && plain.every((x) => /^[A-Za-z0-9_]+$/.test(x)) ? plain.join('.') : undefined;
}

/** Column names of an INSERT's column list, backquotes removed. */
function insertColumns(list: string | undefined): string[] | undefined {
  return list?.split(',').map((c) =>
    c
      .trim()
      .replace(/^`(.*)`$/, '$1')
      .replace(/\\(.)/g, '$1'),
  );
}

/** An INSERT at the start of a request body, its format name, and the whitespace before its data. */
const BODY_INSERT_RE = new RegExp(
  `^(\\s*INSERT\\s+INTO\\s+(?:TABLE\\s+)?${IDENT}(?:\\.${IDENT})?\\s*(?:\\(\\s*${IDENT}(?:\\s*,\\s*${IDENT})*\\s*\\))?\\s*FORMAT\\s+([A-Za-z]+))(?:[ \\t]*\\r?\\n|[ \\t]+)`,
  'i',
);

/** The exception tag of each query response (sent in `X-ClickHouse-Exception-Tag`). */
const exceptionTags = new WeakMap<http.ServerResponse, string>();

/** 16 random lower-case letters and digits, like a 26.x server's exception tag. */
function exceptionTag(): string {
  const abc = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(16)].map((b) => abc[b % abc.length]).join('');
}

/**
 * Send a file-buffered result (`outcome.file`) as the response body: read in 1 MiB pieces and
 * written with backpressure (optionally through a compressor), each piece added to the statement's
 * `sent_bytes` in `/chbench/running` (uncompressed bytes). The file is removed and the statement
 * unlisted at the end, also when the client disconnects or the send fails (then the response is
 * destroyed: a client sees a body shorter than its Content-Length).
 */
async function sendResultFile(
  res: http.ServerResponse,
  outcome: Outcome,
  sending: SendingHandle,
  headers: Record<string, string>,
  enc: 'gzip' | 'deflate' | 'br' | undefined,
): Promise<void> {
  const file = outcome.file!.path;
  try {
    res.writeHead(200, headers);
    const count = new Transform({
      transform(chunk: Buffer, _e, cb) {
        sending.progress(chunk.length);
        cb(null, chunk);
      },
    });
    const src = fs.createReadStream(file, { highWaterMark: 1 << 20 });
    if (enc) {
      const z =
        enc === 'gzip' ? zlib.createGzip() : enc === 'deflate' ? zlib.createDeflate() : zlib.createBrotliCompress();
      await pipeline(src, count, z, res);
    } else await pipeline(src, count, res);
  } catch (e) {
    if (!res.destroyed) res.destroy();
    log(`sending the result file ${path.basename(file)} stopped: ${(e as Error).message}`);
  } finally {
    sending.end();
    fs.rmSync(file, { force: true });
  }
}

/** Start the server. Resolves once it listens; returns the port. */
async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const dataDir = path.resolve(args.dataDir);
  const dataPath = path.join(dataDir, 'data');
  setStatementLog(path.join(dataDir, 'statements.jsonl'));
  fs.mkdirSync(dataPath, { recursive: true });
  // Buffered results of a previous server on this directory (killed while sending) are removed.
  const resultsDir = path.join(dataDir, 'results');
  fs.rmSync(resultsDir, { recursive: true, force: true });
  fs.mkdirSync(resultsDir, { recursive: true });
  const driver: EngineDriver = await createDriver(args);
  // Never open a directory a newer engine wrote (it would lose every part without an error).
  claimDataDir(dataDir, driver.clickhouseVersion, driver.packageLabel);
  const chVersion = driver.clickhouseVersion;
  const v = { chdb: driver.chdbVersion };
  const engineLabel = `chdb ${v.chdb} (ClickHouse ${chVersion})`;
  const exitOn = exitOnStatement(process.env[EXIT_ON_ENV], chVersion);
  if (exitOn) log(`${EXIT_ON_ENV} set (test hook): a statement matching ${exitOn.statement} kills this server`);
  const engine = new Engine(driver, dataPath, new StatementQueue(), log);
  await engine.init();
  const monitor = new ProgressMonitor(driver, dataPath);
  const startedAt = new Date().toISOString();
  let shuttingDown = false;
  let inFlight = 0;

  const baseHeaders = (queryId?: string): Record<string, string> => ({
    'X-Chbench-Engine': `chdb ${v.chdb}`,
    'X-ClickHouse-Server-Display-Name': 'chbench-embedded',
    ...(queryId ? { 'X-ClickHouse-Query-Id': queryId } : {}),
  });

  const sendError = (res: http.ServerResponse, e: unknown, queryId?: string) => {
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

  const handleKill = async (m: RegExpExecArray, format: string, res: http.ServerResponse, queryId: string) => {
    const target = m[1].replace(/\\(.)/g, '$1');
    const mode = (m[2] ?? 'ASYNC').toUpperCase();
    const found = engine.queue.find(target);
    const rows: { kill_status: string; query_id: string; user: string; query: string }[] = [];
    if (found && found.state !== 'queued') {
      const abort = found.entry.abortRunning;
      if (!abort && !driver.capabilities.concurrentSessions) {
        throw new ServerError(
          48,
          'NOT_IMPLEMENTED',
          `query '${target}' is already executing inside the chdb engine (${driver.packageLabel}, ClickHouse ${chVersion}), which cannot open a second session while a statement runs, so it cannot interrupt a running statement that is not streaming its result; it will run to completion. Only queued and streaming statements can be killed`,
        );
      }
      if (!abort) {
        // A buffered statement: KILL QUERY from the monitor's second session; the statement fails
        // inside the engine with code 394, which its request answers.
        if (mode !== 'TEST') {
          await monitor.kill(found.entry.sqlHead, false);
          if (mode === 'SYNC')
            await pollWithin(() => engine.queue.find(target)?.entry !== found.entry, {
              timeoutMs: 60_000,
              intervalMs: 10,
              stopOn: () => true,
            });
        }
      } else if (mode !== 'TEST') {
        abort(
          new ServerError(
            394,
            'QUERY_WAS_CANCELLED',
            'Query was cancelled (KILL QUERY; the chbench embedded server stopped the stream between two chunks)',
          ),
        );
        if (mode === 'SYNC')
          await pollWithin(() => engine.queue.find(target)?.entry !== found.entry, {
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
    } else if (found) {
      if (mode !== 'TEST')
        engine.queue.cancelQueued(
          target,
          new ServerError(
            394,
            'QUERY_WAS_CANCELLED',
            `Query was cancelled (KILL QUERY while queued in the chbench embedded server)`,
          ),
        );
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

  const handleQuery = async (req: http.IncomingMessage, res: http.ServerResponse, url: URL, queryId: string) => {
    const params = url.searchParams;
    if (params.get('compress') === '1' || params.get('decompress') === '1') {
      req.resume();
      throw new ServerError(
        48,
        'NOT_IMPLEMENTED',
        'ClickHouse native compression (compress=1 / decompress=1) is not supported by the chbench embedded server; use enable_http_compression / Content-Encoding',
      );
    }
    const body = req.method === 'POST' ? await readBody(req) : Buffer.alloc(0);
    if (req.method === 'GET') req.resume();
    const qParam = params.get('query') ?? '';
    const database = params.get('database') || String(req.headers['x-clickhouse-database'] ?? '') || 'default';
    const defaultFormat =
      params.get('default_format') || String(req.headers['x-clickhouse-format'] ?? '') || 'TabSeparated';
    const head = qParam !== '' ? qParam : body.toString('utf8', 0, Math.min(body.length, 64 * 1024));
    if (exitOn && exitOn.statement.test(head)) {
      // Test-only (see "Test hook" in the file header): die as a crashing server would, mid-request.
      log(`${EXIT_ON_ENV}: statement matches ${exitOn.statement}: SIGKILL to self (test hook)`);
      process.kill(process.pid, 'SIGKILL');
    }
    const shape = analyzeSql(head);
    if (shape.first === '') throw new ServerError(62, 'SYNTAX_ERROR', 'Empty query');
    if (shape.multi) throw new ServerError(62, 'SYNTAX_ERROR', 'Syntax error (Multi-statements are not allowed)');
    const format = shape.outputFormat ?? defaultFormat;

    if (shape.first === 'KILL') {
      const m = KILL_RE.exec(qParam !== '' ? `${qParam}\n${body.toString('utf8')}` : body.toString('utf8'));
      if (shape.second !== 'QUERY' || !m) {
        if (shape.second === 'QUERY')
          throw new ServerError(
            48,
            'NOT_IMPLEMENTED',
            "the chbench embedded server supports only KILL QUERY WHERE query_id = '…' [SYNC|ASYNC|TEST]",
          );
      } else {
        await handleKill(m, m[3] ?? defaultFormat, res, queryId);
        return;
      }
    }
    if ((shape.first === 'SET' || shape.first === 'USE') && params.get('session_id')) {
      throw new ServerError(
        48,
        'NOT_IMPLEMENTED',
        `HTTP sessions (session_id) are not supported by the chbench embedded server: a ${shape.first} statement would not carry over to later requests`,
      );
    }

    const settings: [string, string][] = [];
    const qparams: [string, string][] = [];
    for (const [k, val] of params) {
      if (k.startsWith('param_')) {
        const name = k.slice(6);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
          throw new ServerError(457, 'BAD_QUERY_PARAMETER', `Invalid query parameter name ${JSON.stringify(name)}`);
        qparams.push([name, val]);
      } else if (!NOT_SETTINGS.has(k)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
          throw new ServerError(115, 'UNKNOWN_SETTING', `Unknown setting ${JSON.stringify(k)}`);
        settings.push([k, val]);
      }
    }

    let rawInsert: Job['rawInsert'];
    let fileInsert: Job['fileInsert'];
    let sql: string;
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
      } else if (m && BINARY_FORMAT_RE.test(m[3].toUpperCase())) {
        fileInsert = {
          table: m[1],
          columns: insertColumns(m[2]),
          format: m[3],
          body: insertData,
        };
      } else if (shape.insertFormat && BINARY_FORMAT_RE.test(shape.insertFormat.toUpperCase())) {
        throw new ServerError(
          48,
          'NOT_IMPLEMENTED',
          `INSERT in binary format ${shape.insertFormat} is supported by the chbench embedded server only as \`INSERT INTO <table> [(<columns>)] FORMAT <format>\` in the query parameter with the rows as the body`,
        );
      }
    }
    if (rawInsert || fileInsert) sql = insertSql;
    else if (qParam !== '' && body.length > 0) sql = `${qParam}\n${body.toString('utf8')}`;
    else sql = qParam !== '' ? qParam : body.toString('utf8');
    // Nothing that reaches files, URLs, processes or other servers (chdb's local mode does not confine them).
    const reach = reachProblem(sql);
    if (reach) throw new ServerError(291, 'DATABASE_ACCESS_DENIED', reach);

    if (engine.queue.find(queryId)) {
      throw new ServerError(
        216,
        'QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING',
        `Query with id = ${queryId} is already running`,
      );
    }
    const job: Job = { queryId, sql, shape, rawInsert, fileInsert, database, format, settings, params: qparams };
    const enc = responseEncoding(req, params);
    const tag = exceptionTag();
    exceptionTags.set(res, tag);
    const F = format.toUpperCase();
    const streamable =
      driver.capabilities.streaming &&
      !rawInsert &&
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
          return new Promise<void>((resolve) => {
            if (res.destroyed || ac.signal.aborted) return resolve();
            if (res.write(b)) return resolve();
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
    let cancelQueued: ((e: Error) => boolean) | undefined;
    let done = false;
    res.on('close', () => {
      if (done) return;
      if (
        cancelQueued?.(
          new ServerError(
            394,
            'QUERY_WAS_CANCELLED',
            'Query was cancelled: the client disconnected while it was queued',
          ),
        )
      )
        return;
      if (!res.writableFinished)
        ac.abort(
          new ServerError(
            394,
            'QUERY_WAS_CANCELLED',
            'Query was cancelled: the client disconnected while the result was streamed',
          ),
        );
    });
    // A buffered SELECT/WITH writes its result to a file (sent from there, never whole in memory).
    let memoryReason: string | undefined;
    if (!streamable && !rawInsert && !fileInsert && (shape.first === 'SELECT' || shape.first === 'WITH')) {
      const full = analyzeSql(sql);
      if (full.multi) memoryReason = 'multi-statement';
      else job.resultFile = path.join(resultsDir, randomUUID());
    }
    let sending: SendingHandle | undefined;
    const sqlHead = (qParam !== '' ? qParam : sql).slice(0, 200);
    let outcome: Outcome;
    try {
      outcome = await engine.queue.run(
        queryId,
        sqlHead,
        async () => {
          const running = engine.queue.find(queryId);
          if (running && job.sink) running.entry.abortRunning = (e) => ac.abort(e);
          const o = await engine.execute(job);
          if (o.file) {
            // Listed (`sending`) from here until the last byte went out, without holding the mutex.
            sending = engine.queue.startSending(queryId, o.file.bytes, () => res.destroy());
          }
          return o;
        },
        (c) => (cancelQueued = c),
      );
    } catch (e) {
      sending?.end();
      if (job.resultFile) fs.rmSync(job.resultFile, { force: true });
      throw e;
    } finally {
      done = true;
    }
    if (outcome.streamed) return;
    if (outcome.file) {
      await sendResultFile(
        res,
        outcome,
        sending!,
        {
          ...baseHeaders(queryId),
          'X-ClickHouse-Exception-Tag': tag,
          'X-Chbench-Result': 'buffered',
          'X-Chbench-Buffered-In': 'file',
          'Content-Type': contentTypeFor(outcome.format),
          'X-ClickHouse-Format': outcome.format,
          'X-ClickHouse-Timezone': engine.timezone,
          'X-ClickHouse-Summary': JSON.stringify(outcome.summary),
          ...(outcome.unmeasured.length ? { 'X-Chbench-Unmeasured': outcome.unmeasured.join(',') } : {}),
          ...(enc ? { 'Content-Encoding': enc } : { 'Content-Length': String(outcome.file.bytes) }),
        },
        enc,
      );
      return;
    }
    const payload = compress(outcome.body, enc);
    res.writeHead(200, {
      ...baseHeaders(queryId),
      'X-ClickHouse-Exception-Tag': tag,
      'X-Chbench-Result': 'buffered',
      'X-Chbench-Buffered-In': memoryReason ? `memory; ${memoryReason}` : 'memory',
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
    const json = (status: number, v: unknown) => {
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
        sendError(
          res,
          new ServerError(
            516,
            'AUTHENTICATION_FAILED',
            `${who.user}: Authentication failed: password is incorrect, or there is no user with such name`,
            403,
          ),
        );
        return;
      }
    }
    if (p === '/chbench/statements' && req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
      res.end(
        (() => {
          const f = statementLog();
          return f && fs.existsSync(f) ? fs.readFileSync(f) : '';
        })(),
      );
      return;
    }
    if (p === '/chbench/running' && req.method === 'GET') {
      req.resume();
      monitor.running(engine.queue).then(
        (list) => json(200, list),
        (e) => sendError(res, e),
      );
      return;
    }
    if (p === '/chbench/info' && req.method === 'GET') {
      req.resume();
      json(200, {
        chdb: v.chdb,
        clickhouse: chVersion,
        engine: engineLabel,
        backend: driver.backend,
        package: driver.packageLabel,
        capabilities: driver.capabilities,
        ...(driver.backend === 'python'
          ? { python: args.python, limits: findPypiBuild(chVersion)?.limits ?? [] }
          : { limits: [] }),
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
      res.end(
        `There is no handle ${p}\n\nUse / or /ping (chbench embedded server: also /chbench/running, /chbench/info)\n`,
      );
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
    const queryId = url.searchParams.get('query_id') || randomUUID();
    handleQuery(req, res, url, queryId).catch((e) => {
      const a = toErrorAnswer(e);
      log(`query ${queryId} failed: code ${a.code} ${a.type}`);
      sendError(res, e, queryId);
    });
  });
  server.keepAliveTimeout = 10_000;
  server.requestTimeout = 0;

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(args.port, args.host, () => {
      const a = server.address();
      resolve(typeof a === 'object' && a ? a.port : 0);
    });
  });
  writeFileAtomic(args.portFile, `${port}\n`);
  log(
    `${engineLabel} on ${dataPath}, listening on http://${args.host.includes(':') ? `[${args.host}]` : args.host}:${port}${args.auth ? ` (user ${args.auth.user}, password required)` : ''}, timezone ${engine.timezone}`,
  );

  const shutdown = async (sig: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log(`${sig}: stopping (no new connections; queued statements cancelled; waiting for the executing one)`);
    server.close();
    server.closeIdleConnections();
    engine.queue.cancelAllQueued(
      new ServerError(394, 'QUERY_WAS_CANCELLED', 'Query was cancelled: the server is shutting down'),
    );
    await engine.queue.idle();
    // Let the responses of the last statement go out (bounded).
    await pollWithin(() => inFlight === 0, { timeoutMs: 5000, intervalMs: 20 });
    server.closeAllConnections();
    await monitor.close();
    await engine.close();
    await driver.shutdown();
    log('chdb session closed; exit 0');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  if (args.idleExitS !== undefined) {
    const idleMs = args.idleExitS * 1000;
    const timer = setInterval(
      () => {
        if (inFlight === 0 && Date.now() - lastActivityMs >= idleMs) void shutdown(`idle for ${args.idleExitS} s`);
      },
      Math.min(5000, Math.max(200, idleMs / 4)),
    );
    timer.unref();
  }
}

/** The test hook's environment variable (see "Test hook" in the file header). */
const EXIT_ON_ENV = 'CHBENCH_TEST_EXIT_ON_STATEMENT';

/**
 * The test hook's setting for this server: `<ClickHouse version prefix>:<regex>` (e.g.
 * `26.9:^SELECT name FROM system\.table_functions`, prefix matched at a dot boundary, `*` = any
 * version). Unset or empty: off.
 * @returns the statement pattern when the hook applies to `clickhouseVersion`, else undefined
 * @throws Error when the value is set but malformed (the server does not start: a test must not
 *   silently run without the fault it asked for)
 */
function exitOnStatement(value: string | undefined, clickhouseVersion: string): { statement: RegExp } | undefined {
  if (!value) return undefined;
  const colon = value.indexOf(':');
  if (colon <= 0) throw new Error(`${EXIT_ON_ENV}=${value}: expected <ClickHouse version prefix or *>:<regex>`);
  const prefix = value.slice(0, colon);
  const statement = new RegExp(value.slice(colon + 1));
  const applies = prefix === '*' || clickhouseVersion === prefix || clickhouseVersion.startsWith(`${prefix}.`);
  return applies ? { statement } : undefined;
}

/** Command-line options of the server (see the file header). */
interface ServerArgs {
  dataDir: string;
  port: number;
  portFile: string;
  /** Listen address, loopback only. @default 127.0.0.1 */
  host: string;
  /** With `--auth-from-env`: the one user and password every request must carry. */
  auth?: { user: string; password: string };
  /** `--idle-exit-s <n>`: exit (as on SIGTERM) after n seconds without a request. @default never */
  idleExitS?: number;
  /** `--engine npm|python`: the in-process npm chdb, or a PyPI chdb build hosted by `--python`. @default npm */
  engine: 'npm' | 'python';
  /** `--python <interpreter>`: the Python whose environment holds the chdb build (with `--engine python`). */
  python?: string;
}

/**
 * The driver the arguments name.
 * @throws Error when the engine cannot load (the message names the package and the cause)
 */
async function createDriver(args: ServerArgs): Promise<EngineDriver> {
  if (args.engine === 'npm') return createNpmDriver();
  const max = process.env.CHBENCH_ENGINE_MAX_RESULT_BYTES;
  return createPythonDriver({
    python: args.python!,
    log,
    ...(max ? { maxResultBytes: Number(max) } : {}),
    onExit(e) {
      // The engine is gone: fail (done by the driver), let the error responses go out, exit non-zero.
      log(`fatal: ${e.message}`);
      setTimeout(() => process.exit(70), 300);
    },
  });
}

function parseArgs(argv: string[]): ServerArgs {
  const get = (name: string): string | undefined => {
    const k = argv.indexOf(name);
    return k >= 0 ? argv[k + 1] : undefined;
  };
  const usage =
    'usage: embedded-server --data-dir <dir> [--port <n|0>] [--port-file <file>] [--host <loopback ip>] [--auth-from-env] [--idle-exit-s <n>] [--engine npm|python] [--python <interpreter>]';
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
  if (!loopback) throw new Error(`--host ${host}: only loopback addresses (127.0.0.0/8, ::1) are allowed; ${usage}`);
  const engine = get('--engine') ?? 'npm';
  if (engine !== 'npm' && engine !== 'python') throw new Error(`--engine ${engine}: expected npm or python; ${usage}`);
  const python = get('--python');
  if (engine === 'python' && !python) throw new Error(`--engine python needs --python <interpreter>; ${usage}`);
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
    engine,
    ...(python ? { python } : {}),
  };
}

/**
 * The user and password a request carries, in ClickHouse's order: HTTP basic auth, else the
 * `X-ClickHouse-User`/`X-ClickHouse-Key` headers, else the `user`/`password` URL parameters; a
 * missing user is `default`, a missing password empty.
 */
function requestCredentials(req: http.IncomingMessage, url: URL): { user: string; password: string } {
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
function credentialsMatch(got: { user: string; password: string }, want: { user: string; password: string }): boolean {
  const eq = (a: string, b: string) => {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  };
  return eq(got.user, want.user) && eq(got.password, want.password);
}

/** Exported for unit tests of the SQL shape detection. */
export const _internal = { analyzeSql, statisticsFromOutput, parseClickHouseError, statusFor };

if (require.main === module) {
  main().catch((e) => {
    log(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  });
}
