/**
 * How chbench talks to a target: `@clickhouse/client` over HTTP, the same for every target kind.
 * Exactly one place builds clients, runs a measured statement and parses the server's summary.
 */
import {
  createClient,
  ClickHouseError,
  ClickHouseLogLevel,
  type ClickHouseClient,
  type ClickHouseSettings,
} from '@clickhouse/client';
import { createHash, type Hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { CommandOutcome } from '../schema/results';
import type { TargetHandle } from '../schema/target';
import { currentWatcher, watchClient } from './statement-watch';
import { parseServerError } from '../schema/server-error';
import { canonicalRows, metaColumnTypes, type ColumnType } from './result-values';

/** Options for {@link connect}. */
export interface ConnectOptions {
  /** Server-side limit per statement (`max_execution_time`, s). The request timeout is this + 60 s. @default 3600 */
  maxExecutionTimeS?: number;
}

/**
 * Open a client for a target. The password, if any, is read from the environment variable the
 * handle names (never from the handle itself).
 *
 * Inside a Temporal activity the client is watched (`statement-watch.ts`): every statement gets a
 * query_id (unless given) and, until its result is consumed, keeps the activity heartbeating with
 * its progress read from the server; a statement without progress for `protocol.stuckAfterS` is
 * killed where the target can and fails with `ApplicationFailure` type `StatementStuck`.
 * Outside an activity (bench/, tests) it is the plain client.
 * @throws Error if the handle names a password variable that is not set.
 */
export function connect(t: TargetHandle, opts: ConnectOptions = {}): ClickHouseClient {
  const client = openClient(t, opts);
  const w = currentWatcher();
  // Progress is read over its own connection, never queued behind the watched statements.
  return w ? watchClient(client, t, w, () => openClient(t, { maxExecutionTimeS: 30 })) : client;
}

/**
 * What this worker process loaded to reach a target whose handle alone is not enough: the password
 * read from a Kubernetes Secret, and a local URL (a port-forward) replacing the handle's `url`.
 * Filled by the target's `prepare` verb (`src/targets/target.ts`), read by {@link targetPassword}
 * and {@link connect}. Process memory only: never written anywhere.
 */
export interface TargetAccess {
  /** The password (from the Secret the handle's `passwordSecret` names). */
  password?: string;
  /** Base URL to use instead of `handle.url`, e.g. `http://127.0.0.1:40123` (a port-forward). */
  url?: string;
}

const access = new Map<string, TargetAccess>();

/**
 * The access-registry key of a handle: its URL, when it has one its password Secret, and for a pod
 * its `metadata.uid` (a pod re-created under the same name may get the same IP, and must not be
 * reached through the old handle's registration).
 */
export function targetAccessKey(t: {
  url: string;
  passwordSecret?: { namespace: string; name: string; key: string };
  kubernetes?: { podUid: string };
}): string {
  const s = t.passwordSecret;
  const base = s ? `${t.url} secret ${s.namespace}/${s.name}/${s.key}` : t.url;
  return t.kubernetes ? `${base} pod ${t.kubernetes.podUid}` : base;
}

/** Register (merge) what this process loaded to reach the target of `key` ({@link targetAccessKey}). */
export function setTargetAccess(key: string, a: TargetAccess): void {
  access.set(key, { ...access.get(key), ...a });
}

/** What {@link setTargetAccess} registered for `key`, if anything. */
export function getTargetAccess(key: string): TargetAccess | undefined {
  return access.get(key);
}

/** Forget what was registered for `key` (teardown), or everything (tests). */
export function clearTargetAccess(key?: string): void {
  if (key === undefined) access.clear();
  else access.delete(key);
}

/** The URL this process uses for a target: the registered one (a port-forward) or the handle's. */
export function targetUrl(t: {
  url: string;
  passwordSecret?: { namespace: string; name: string; key: string };
  kubernetes?: { podUid: string };
}): string {
  return access.get(targetAccessKey(t))?.url ?? t.url;
}

/**
 * The `X-ClickHouse-User` / `X-ClickHouse-Key` headers of a target for plain HTTP requests outside the
 * client (the embedded engine's `/chbench/*` endpoints): empty when the target has no password.
 * @throws Error as {@link targetPassword}
 */
export function authHeaders(t: {
  url: string;
  username: string;
  passwordEnv?: string;
  passwordFile?: string;
  passwordSecret?: { namespace: string; name: string; key: string };
}): Record<string, string> {
  const password = targetPassword(t);
  return password || t.passwordSecret || t.passwordFile
    ? { 'X-ClickHouse-User': t.username, 'X-ClickHouse-Key': password }
    : {};
}

/**
 * The password of a target: the content of its credential file (`passwordFile`, the embedded cell's,
 * readable by the worker's user only), else the one its `prepare` verb loaded from the Secret its handle names
 * (`passwordSecret`), else the value of the environment variable it names (`passwordEnv`), or empty
 * when it names none. The one place chbench reads a password; it never enters a handle, a spec, a
 * result or workflow history.
 * @throws Error `target <url>: environment variable <NAME> (the password) is not set on the worker`;
 *   `target <url>: the password in Secret <ns>/<name> is not loaded in this worker process …` when the
 *   handle names a Secret and no `prepare` loaded it
 */
export function targetPassword(t: {
  url: string;
  passwordEnv?: string;
  passwordFile?: string;
  passwordSecret?: { namespace: string; name: string; key: string };
  kubernetes?: { podUid: string };
}): string {
  if (t.passwordFile) {
    try {
      return readFileSync(t.passwordFile, 'utf8').trim();
    } catch (e) {
      throw new Error(
        `target ${t.url}: its credential file ${t.passwordFile} cannot be read on this worker (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        { cause: e },
      );
    }
  }
  if (t.passwordSecret) {
    const a = access.get(targetAccessKey(t));
    if (a?.password === undefined)
      throw new Error(
        `target ${t.url}: the password in Secret ${t.passwordSecret.namespace}/${t.passwordSecret.name} (key ${t.passwordSecret.key}) is not loaded in this worker process (the target's prepare verb did not run or failed)`,
      );
    return a.password;
  }
  if (!t.passwordEnv) return '';
  const v = process.env[t.passwordEnv];
  if (v === undefined)
    throw new Error(`target ${t.url}: environment variable ${t.passwordEnv} (the password) is not set on the worker`);
  return v;
}

/** The plain client of {@link connect} (not watched). */
function openClient(t: TargetHandle, opts: ConnectOptions): ClickHouseClient {
  const password = targetPassword(t);
  const maxS = opts.maxExecutionTimeS ?? 3600;
  return createClient({
    url: targetUrl(t),
    username: t.username,
    password,
    database: t.database,
    request_timeout: (maxS + 60) * 1000,
    compression: { request: false, response: false },
    max_open_connections: 4,
    application: 'chbench',
    // chbench records every server error itself (some are expected, e.g. a cache this version lacks).
    log: { level: ClickHouseLogLevel.OFF },
  });
}

/**
 * The `X-ClickHouse-Summary` response header, as the server sent it. Values are decimal strings
 * (UInt64 arrive quoted). Fields are absent when the server did not send them — older servers send
 * no summary at all, and chbench's embedded engine omits what it cannot measure.
 */
export interface HttpSummary {
  read_rows?: string;
  read_bytes?: string;
  written_rows?: string;
  written_bytes?: string;
  result_rows?: string;
  result_bytes?: string;
  /** Server-side elapsed time in ns (newer servers; the embedded engine reports chdb's own elapsed). */
  elapsed_ns?: string;
}

/** Parse the summary header; `undefined` if absent or unparsable. */
export function parseSummary(headers: Record<string, string | string[] | undefined>): HttpSummary | undefined {
  const raw = headers['x-clickhouse-summary'];
  const s = Array.isArray(raw) ? raw[0] : raw;
  if (!s) return undefined;
  try {
    return JSON.parse(s) as HttpSummary;
  } catch {
    return undefined;
  }
}

/** Number from a summary field, or `null` when the server did not send it (never 0 for "unknown"). */
export function summaryNumber(s: HttpSummary | undefined, k: keyof HttpSummary): number | null {
  const v = s?.[k];
  if (v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** One measured statement (see {@link runMeasured}). */
export interface MeasuredResult {
  query_id: string;
  /**
   * Client wall time in ms: from just before the request is sent until the last byte of the body
   * arrived (performance.now()). Hashing happens while the body arrives, so it is inside this time
   * (a few ms per 100 MB, see `bench/big-result.ts`).
   */
  wall_ms: number;
  /**
   * The server's `X-ClickHouse-Summary` header, if any. It is written when the headers go out: for a
   * result the server streams, that is before the query finished, so it is a snapshot (partial)
   * unless `wait_end_of_query` was requested (see {@link MeasuredResult.wait_end_of_query}).
   */
  summary?: HttpSummary;
  /**
   * The `statistics` block the server writes at the end of JSON output formats (`rows_read`,
   * `bytes_read`, `elapsed` in s): written after the last row, so complete even when the summary
   * header is not. chbench's embedded server omits `rows_read`/`bytes_read` from it when it streamed
   * the result (the engine does not report them then; see `src/engine/server.ts`).
   */
  output_statistics?: { rows_read?: number; bytes_read?: number; elapsed?: number };
  /** Rows in the result (counted while parsing the body's `data` array; checked against its `rows`). */
  result_rows: number;
  /** Bytes of the HTTP response body received (after any transfer decoding), i.e. the JSONCompact document. */
  result_bytes: number;
  /**
   * sha256 (hex) of `JSON.stringify(data)`, `data` being the body's `data` array (each row parsed with
   * JSON.parse and serialised again), computed incrementally: `[`, the rows joined by `,`, `]`.
   * Identical to the definition before results were streamed, so hashes compare across chbench
   * versions — but NOT across ClickHouse versions: it hashes formatting (a quoted vs unquoted UInt64 differ)
   * and loses integer precision beyond 2^53 (JSON.parse). Kept for comparisons with older results.
   */
  result_sha256: string;
  /**
   * sha256 (hex) of the rows' canonical VALUES by the `meta` column types (`[`, canonical rows joined by
   * `,`, `]`; see src/clickhouse/result-values.ts): equal across versions whose JSON formatting differs
   * (integer quoting, float digits, decimal zeros, string escapes), different when a value differs, read
   * from the text (no precision loss). Streamed like `result_sha256`. null when it could not be computed
   * (`result_values_unknown` says why): never replaced by the formatting hash.
   */
  result_values_sha256?: string | null;
  result_values_unknown?: string;
  /** The first ≤ 5 rows (their canonical values when known: 64-bit integers as strings, no precision loss), to show what a result looked like when hashes disagree. */
  first_rows: unknown[][];
  /** Whether `wait_end_of_query=1` was sent (server buffers the result, the summary header is complete). */
  wait_end_of_query: boolean;
}

/** Options of {@link runMeasured}. */
export interface RunMeasuredOptions {
  /**
   * Send `wait_end_of_query=1`: the server buffers the whole result before sending headers, so
   * `X-ClickHouse-Summary` is complete (not a snapshot). Costs server memory/disk for big results.
   * @default false
   */
  waitEndOfQuery?: boolean;
  /**
   * Called while the body arrives, at most once per second (never after the promise settled), with
   * the rows parsed and bytes received so far. For activity heartbeats.
   */
  onProgress?: (p: { result_rows: number; result_bytes: number }) => void;
}

/**
 * The server failed the statement after it had started the response (HTTP 200 already sent): a
 * `ClickHouseError` (so a Temporal activity failure's type is `ClickHouseError`), with what had
 * arrived before the failure.
 */
export type MidStreamClickHouseError = ClickHouseError & {
  /** HTTP status of the response: 200, since the server had started it. */
  http_status: number;
  /** Body bytes received, including the exception text. */
  result_bytes: number;
  /** Complete rows parsed before the failure. */
  result_rows: number;
  /** How the server wrote the exception (see {@link runMeasured}). */
  exception_source: 'exception tag block' | 'json exception key' | 'text appended to the body';
};

/**
 * The body ended without being a complete JSONCompact document and without a recognisable server
 * exception (e.g. cut by a proxy or a dying server that still closed the response cleanly). Never
 * a result. Retryable (type `IncompleteResult`).
 */
class IncompleteResultError extends Error {
  constructor(
    message: string,
    /** Body bytes received. */
    readonly result_bytes: number,
    /** Complete rows parsed before the body broke off. */
    readonly result_rows: number,
  ) {
    super(message);
    this.name = 'IncompleteResult';
  }
}

/** How many bytes of the body's end are kept to find an exception the server appended (its blocks are ≤ 16 KiB). */
const TAIL_BYTES = 64 * 1024;
/** Cap on a captured top-level value other than `data` (`statistics`, `rows`, `exception`). */
const CAPTURE_CAP = 1024 * 1024;
// `meta` (before `data` in every version's JSONCompact) gives the column types of the value hash.
const CAPTURED_KEYS = new Set(['meta', 'rows', 'statistics', 'exception']);

const B_QUOTE = 0x22;
const B_BACKSLASH = 0x5c;

/** Bytes allowed outside strings in a JSON document (structure, whitespace, numbers, true/false/null). */
const JSON_OUTSIDE_STRING = (() => {
  const ok = new Uint8Array(256);
  for (const c of '{}[],:" \t\r\n0123456789.eE+-truefalsn') ok[c.charCodeAt(0)] = 1;
  return ok;
})();

/**
 * Incremental parser of a JSONCompact document as it arrives, in bytes: a small state machine
 * (strings with escapes, nesting, top-level keys) that does not depend on whitespace or line breaks.
 * Rows of the top-level `data` array are cut out one at a time, parsed (JSON.parse) and hashed
 * (JSON.stringify); only the current row, the first 5 rows, the small top-level values
 * (`rows`, `statistics`, `exception`) and the body's last {@link TAIL_BYTES} are kept.
 */
class JsonCompactStream {
  readonly hash = createHash('sha256');
  /** Hash of the rows' canonical values by column type ({@link canonicalRows}); null once it cannot be computed. */
  private valueHash: Hash | null = createHash('sha256');
  /** Why the value hash is unknown (no `meta`, a value not of its type). */
  valuesUnknown: string | null = null;
  private columns: ColumnType[] | null = null;
  rows = 0;
  bytes = 0;
  readonly firstRows: unknown[][] = [];
  /** `done` once the top-level object closed; `broken` at the first byte that cannot be JSON here. */
  state: 'doc' | 'done' | 'broken' = 'doc';
  /** Body offset where the document broke (or where non-whitespace followed the complete document). */
  brokenAt = -1;
  brokenReason = '';
  /** Bytes from `brokenAt` on (capped), where an exception text appended by the server is. */
  private trailer: Buffer[] = [];
  private trailerLen = 0;
  /** Last bytes of the body. */
  private tail: Buffer = Buffer.alloc(0);
  readonly captured = new Map<string, string>();

  private depth = 0;
  private readonly stack: number[] = [];
  private inStr = false;
  private esc = false;
  /** Bytes of the current depth-1 string (a key, or a string value), while in it. */
  private strParts: Buffer[] | null = null;
  private lastStr = '';
  private key: string | null = null;
  /** Capture of the current top-level value (for CAPTURED_KEYS). */
  private capParts: Buffer[] | null = null;
  private capLen = 0;
  private capStart = -1;
  private inData = false;
  private dataSeen = false;
  private rowParts: Buffer[] = [];
  private rowStart = -1;
  /** Complete rows of the current chunk not yet hashed: bytes [batchStart, batchEnd) of the chunk. */
  private batchStart = -1;
  private batchEnd = -1;
  private hashedOpen = false;

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.keepTail(chunk);
    if (this.state !== 'doc') {
      if (this.state === 'broken' || this.brokenAt >= 0) this.keepTrailer(chunk);
      else this.afterDocument(chunk, 0);
      return;
    }
    const n = chunk.length;
    let i = 0;
    let bs = -2;
    // Where capture/row collection resumes in this chunk.
    if (this.capParts) this.capStart = 0;
    if (this.rowParts.length) this.rowStart = 0;
    if (this.strParts) this.strStart = 0;
    while (i < n) {
      if (this.inStr) {
        if (this.esc) {
          this.esc = false;
          i++;
          continue;
        }
        const q = chunk.indexOf(B_QUOTE, i);
        // Next backslash in this chunk, searched again only once passed (strings rarely hold one).
        if (bs !== -1 && bs < i) bs = chunk.indexOf(B_BACKSLASH, i);
        if (bs >= 0 && (q < 0 || bs < q)) {
          this.esc = true;
          i = bs + 1;
          continue;
        }
        if (q < 0) break; // the string continues in the next chunk
        this.inStr = false;
        i = q + 1;
        if (this.strParts) {
          this.strParts.push(chunk.subarray(this.strStart, q));
          this.lastStr = Buffer.concat(this.strParts).toString('utf8');
          this.strParts = null;
        }
        continue;
      }
      const c = chunk[i];
      if (!JSON_OUTSIDE_STRING[c])
        return this.breakAt(chunk, i, `unexpected byte ${JSON.stringify(String.fromCharCode(c))} outside a string`);
      if (c === B_QUOTE) {
        this.inStr = true;
        if (this.depth === 1) {
          this.strParts = [];
          this.strStart = i + 1;
        }
        if (this.depth === 2 && this.inData && this.rowStart < 0 && !this.rowParts.length)
          return this.breakAt(chunk, i, 'a row of `data` is not an array');
        if (this.depth === 1 && this.key !== null && this.capParts === null && CAPTURED_KEYS.has(this.key))
          this.startCapture(i);
        i++;
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        // { [
        if (this.depth === 0 && (c !== 0x7b || this.dataSeen || this.stack.length))
          return this.breakAt(chunk, i, 'the document is not one JSON object');
        if (this.depth === 1 && this.key !== null) {
          if (this.key === 'data' && c === 0x5b && !this.dataSeen) {
            this.inData = true;
            this.dataSeen = true;
            this.hash.update('[');
            this.hashedOpen = true;
            this.startValues();
          } else if (this.capParts === null && CAPTURED_KEYS.has(this.key)) this.startCapture(i);
        }
        if (this.depth === 2 && this.inData) {
          if (c !== 0x5b) return this.breakAt(chunk, i, 'a row of `data` is not an array');
          this.rowStart = i;
        }
        this.stack.push(c);
        this.depth++;
        i++;
        continue;
      }
      if (c === 0x7d || c === 0x5d) {
        // } ]
        const open = this.stack.pop();
        if (open === undefined || (c === 0x7d) !== (open === 0x7b))
          return this.breakAt(chunk, i, 'unbalanced brackets');
        this.depth--;
        if (this.depth === 2 && this.inData) {
          if (this.rowParts.length) {
            this.endRow(chunk, i + 1);
            if (this.state !== 'doc') return;
          } else {
            // A row wholly inside this chunk: hashed with its neighbours in one batch.
            if (this.batchStart < 0) this.batchStart = this.rowStart;
            this.batchEnd = i + 1;
            this.rowStart = -1;
          }
        } else if (this.depth === 1 && this.inData) {
          this.flushBatch(chunk);
          if (this.state !== 'doc') return;
          this.inData = false;
          this.hash.update(']');
        } else if (this.depth === 0) {
          this.endCapture(chunk, i);
          this.state = 'done';
          this.afterDocument(chunk, i + 1);
          return;
        }
        i++;
        continue;
      }
      if (c === 0x3a && this.depth === 1) {
        // :
        this.key = this.lastStr;
        i++;
        continue;
      }
      if (c === 0x2c && this.depth === 1) {
        // ,
        this.endCapture(chunk, i);
        this.key = null;
        i++;
        continue;
      }
      if (
        this.depth === 1 &&
        this.key !== null &&
        this.capParts === null &&
        CAPTURED_KEYS.has(this.key) &&
        c !== 0x20 &&
        c !== 0x09 &&
        c !== 0x0a &&
        c !== 0x0d
      )
        this.startCapture(i);
      if (this.depth === 2 && this.inData && c !== 0x2c && c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d)
        return this.breakAt(chunk, i, 'a row of `data` is not an array');
      i++;
    }
    // The chunk ended inside something: keep the partial pieces.
    this.flushBatch(chunk);
    if (this.state !== 'doc') return;
    if (this.rowStart >= 0) this.rowParts.push(chunk.subarray(this.rowStart));
    this.rowStart = -1;
    if (this.capParts) this.addCapture(chunk.subarray(this.capStart));
    if (this.strParts) this.strParts.push(chunk.subarray(this.strStart));
  }

  private strStart = 0;

  /** At `data`'s `[`: the column types from the captured `meta`. */
  private startValues(): void {
    const meta = this.captured.get('meta');
    const cols = meta === undefined ? 'the document has no meta before data' : metaColumnTypes(meta);
    if (typeof cols === 'string') this.dropValues(cols);
    else this.columns = cols;
    this.valueHash?.update('[');
  }

  private dropValues(why: string): void {
    this.valueHash = null;
    this.valuesUnknown ??= why;
  }

  /** Hash the canonical values of complete rows (`[…],[…]`); their canonical texts, or null when unknown. */
  private hashValues(rowsText: string): string[] | null {
    if (!this.valueHash || !this.columns) return null;
    let rows: string[];
    try {
      rows = canonicalRows(rowsText, this.columns);
    } catch (e) {
      this.dropValues(`row ${this.rows + 1}…: ${(e as Error).message}`);
      return null;
    }
    if (!rows.length) return rows;
    this.valueHash.update(this.rows > 0 ? `,${rows.join(',')}` : rows.join(','));
    return rows;
  }

  private startCapture(at: number): void {
    this.capParts = [];
    this.capLen = 0;
    this.capStart = at;
  }

  private addCapture(b: Buffer): void {
    if (!this.capParts) return;
    this.capLen += b.length;
    if (this.capLen > CAPTURE_CAP) {
      this.capParts = null; // too big to be one of ours; dropped
      return;
    }
    this.capParts.push(b);
  }

  /** End the capture of a top-level value at `end` (exclusive) of `chunk`. */
  private endCapture(chunk: Buffer, end: number): void {
    if (this.capParts && this.key !== null) {
      this.addCapture(chunk.subarray(this.capStart, end));
      if (this.capParts) this.captured.set(this.key, Buffer.concat(this.capParts).toString('utf8').trim());
    }
    this.capParts = null;
  }

  /**
   * Hash the complete rows of this chunk in one go: `JSON.stringify(JSON.parse('[' + rows + ']'))`
   * is `[` + each row's JSON.stringify joined by `,` + `]`, so the hashed text is the same as row by
   * row (and as the whole `data` array's), at a fraction of the cost.
   */
  private flushBatch(chunk: Buffer): void {
    if (this.batchStart < 0) return;
    const start = this.batchStart;
    const end = this.batchEnd;
    this.batchStart = this.batchEnd = -1;
    let rows: unknown[][];
    try {
      rows = JSON.parse(`[${chunk.toString('utf8', start, end)}]`) as unknown[][];
    } catch (e) {
      this.breakAt(chunk, start, `rows ${this.rows + 1}… are not valid JSON (${(e as Error).message})`);
      return;
    }
    if (rows.length === 0) return;
    const text = JSON.stringify(rows);
    if (this.rows > 0) this.hash.update(',');
    this.hash.update(text.substring(1, text.length - 1));
    const canonical = this.hashValues(chunk.toString('utf8', start, end));
    for (let k = 0; k < rows.length && this.firstRows.length < 5; k++)
      this.firstRows.push(canonical ? (JSON.parse(canonical[k]) as unknown[]) : rows[k]);
    this.rows += rows.length;
  }

  private endRow(chunk: Buffer, end: number): void {
    let text: string;
    if (this.rowParts.length) {
      this.rowParts.push(chunk.subarray(0, end));
      text = Buffer.concat(this.rowParts).toString('utf8');
      this.rowParts = [];
    } else {
      text = chunk.toString('utf8', this.rowStart, end);
    }
    this.rowStart = -1;
    let row: unknown[];
    try {
      row = JSON.parse(text) as unknown[];
    } catch (e) {
      this.breakAt(chunk, end - 1, `row ${this.rows + 1} is not valid JSON (${(e as Error).message})`);
      return;
    }
    const canonical = JSON.stringify(row);
    this.hash.update(this.rows === 0 ? canonical : `,${canonical}`);
    const values = this.hashValues(text);
    if (this.firstRows.length < 5) this.firstRows.push(values ? (JSON.parse(values[0]) as unknown[]) : row);
    this.rows++;
  }

  /** Bytes after the complete document: whitespace only, else the document is followed by something (an exception). */
  private afterDocument(chunk: Buffer, from: number): void {
    for (let i = from; i < chunk.length; i++) {
      const c = chunk[i];
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) {
        this.brokenAt = this.bytes - chunk.length + i;
        this.brokenReason = 'bytes follow the complete document';
        this.keepTrailer(chunk.subarray(i));
        return;
      }
    }
  }

  private breakAt(chunk: Buffer, i: number, reason: string): void {
    if (this.batchStart >= 0) {
      // The complete rows before the break count (flushBatch resets the batch first, so a failure
      // inside it breaks without coming back here with a batch).
      this.flushBatch(chunk);
      if (this.state === 'broken') return;
    }
    this.state = 'broken';
    this.brokenAt = this.bytes - chunk.length + i;
    this.brokenReason = reason;
    // Keep the row in progress too: an exception text may have started inside it.
    const from = this.rowStart >= 0 ? this.rowStart : i;
    for (const p of this.rowParts) this.keepTrailer(p);
    this.rowParts = [];
    this.keepTrailer(chunk.subarray(from));
  }

  private keepTrailer(b: Buffer): void {
    if (this.trailerLen >= TAIL_BYTES) return;
    const part = b.subarray(0, TAIL_BYTES - this.trailerLen);
    this.trailer.push(part);
    this.trailerLen += part.length;
  }

  private keepTail(chunk: Buffer): void {
    if (chunk.length >= TAIL_BYTES) this.tail = Buffer.from(chunk.subarray(chunk.length - TAIL_BYTES));
    else {
      const keep = Math.min(this.tail.length, TAIL_BYTES - chunk.length);
      this.tail = Buffer.concat([this.tail.subarray(this.tail.length - keep), chunk]);
    }
  }

  /** A complete document with nothing but whitespace after it. */
  get complete(): boolean {
    return this.state === 'done' && this.brokenAt < 0 && this.dataSeen && !this.inData;
  }

  trailerText(): string {
    return Buffer.concat(this.trailer).toString('utf8');
  }

  tailBuffer(): Buffer {
    return this.tail;
  }

  digest(): string {
    if (!this.hashedOpen) this.hash.update('[');
    return this.hash.digest('hex');
  }

  /** sha256 of the canonical values (`[row,row,…]`, see src/clickhouse/result-values.ts), or null when unknown. */
  valuesDigest(): string | null {
    if (!this.valueHash || !this.complete) return null;
    this.valueHash.update(']');
    return this.valueHash.digest('hex');
  }
}

/**
 * The exception a server wrote into a response it had already started, or undefined.
 *
 * - ClickHouse ≥ 25.11 sends `X-ClickHouse-Exception-Tag: <16 random chars>` with the headers and, on
 *   a failure after the body started, writes `\r\n__exception__\r\n<tag>\r\n<message>\n<length> <tag>\r\n__exception__\r\n`
 *   (`<length>` = bytes of `<message>\n`) and closes the connection without ending the chunked body.
 * - Servers before that (and with `http_write_exception_in_output_format=0`) append the message
 *   text: 18.16 writes `Code: 395, e.displayText() = DB::Exception: …, e.what() = DB::Exception\n`
 *   right after the last complete row; 2x versions `Code: 395. DB::Exception: … (TYPE) (version …)`.
 * - With `http_write_exception_in_output_format=1` (default 23.9–25.10) JSON formats end the
 *   document with an `"exception": "Code: …"` key.
 */
function findStreamedException(
  p: JsonCompactStream,
  tag: string | undefined,
): { text: string; source: MidStreamClickHouseError['exception_source'] } | undefined {
  if (tag) {
    const tail = p.tailBuffer();
    const open = Buffer.from(`__exception__\r\n${tag}\r\n`);
    const at = tail.lastIndexOf(open);
    if (at >= 0) {
      let body = tail.subarray(at + open.length).toString('utf8');
      const end = new RegExp(`\\n(\\d+) ${tag}\\r\\n__exception__\\r\\n?$`).exec(body);
      if (end) body = body.slice(0, end.index + 1);
      return { text: body.trim(), source: 'exception tag block' };
    }
  }
  if (p.complete || (p.state === 'done' && p.brokenAt < 0)) {
    const ex = p.captured.get('exception');
    if (ex !== undefined) {
      try {
        return { text: String(JSON.parse(ex)), source: 'json exception key' };
      } catch {
        return { text: ex, source: 'json exception key' };
      }
    }
    return undefined;
  }
  // Broken or incomplete: the exception text is where the document broke (or, if the break fell
  // inside a string, somewhere in the last bytes).
  const where = p.brokenAt >= 0 ? p.trailerText() : p.tailBuffer().toString('utf8');
  const m = /Code: (\d+)[.,] (?:e\.displayText\(\) = )?[\s\S]*$/.exec(where);
  if (m && /Exception/.test(m[0])) return { text: m[0].trim(), source: 'text appended to the body' };
  return undefined;
}

/** A ClickHouseError from an exception text of any server version (18.16 has no `(TYPE)` suffix: type `UNKNOWN`). */
function clickHouseErrorFrom(text: string): ClickHouseError {
  const parsed = parseServerError(text);
  // The message keeps the server's text after `DB::Exception: ` (with its name and version suffix).
  const message = text
    .replace(/^Code: \d+[.,]\s*/, '')
    .replace(/^e\.displayText\(\) = /, '')
    .replace(/^DB::Exception: /, '');
  return new ClickHouseError({ message, code: String(parsed?.code ?? 0), type: parsed?.name ?? 'UNKNOWN' });
}

/**
 * Run one SELECT and measure it, streaming: the body (format JSONCompact, appended to the SQL as
 * `client.query()` does) is parsed, hashed and counted as it arrives and never held whole, so the
 * worker's memory does not grow with the result (measured in test/integration/measured-statement.test.ts).
 *
 * A result is returned only when the body is one complete JSONCompact document followed by nothing
 * but whitespace, and its `rows` equals the rows counted.
 *
 * @param settings query settings (URL parameters); the caller sends e.g. `output_format_json_quote_64bit_integers=1`.
 * @param signal aborts the request and the body download (rejects with the abort error).
 * @throws ClickHouseError (code, type) for a server error: before the response started (HTTP
 *   status ≠ 200, from `@clickhouse/client`) or after it (HTTP 200 with the exception in the body;
 *   then a {@link MidStreamClickHouseError} carrying `http_status`, `result_bytes`, `result_rows`).
 *   18.16's text has no type name: `type` is then `UNKNOWN`.
 * @throws IncompleteResultError when the body is not a complete document and holds no exception.
 * @throws the network error (e.g. `aborted`, ECONNRESET) when the connection broke without an
 *   exception in what had arrived (a killed server).
 */
export async function runMeasured(
  client: ClickHouseClient,
  sql: string,
  queryId: string,
  settings: ClickHouseSettings = {},
  signal?: AbortSignal,
  opts: RunMeasuredOptions = {},
): Promise<MeasuredResult> {
  const waitEnd = opts.waitEndOfQuery === true;
  const query = `${sql.trim().replace(/;+$/, '')} \nFORMAT JSONCompact`;
  const t0 = performance.now();
  let rs: Awaited<ReturnType<ClickHouseClient['exec']>>;
  try {
    rs = await client.exec({
      query,
      query_id: queryId,
      clickhouse_settings: { ...settings, ...(waitEnd ? { wait_end_of_query: 1 } : {}) },
      abort_signal: signal,
      decompress_response_stream: false,
    });
  } catch (e) {
    // An error status with a server exception text the client could not parse (18.16 writes
    // `Code: 46, e.displayText() = …` without a type name): still a ClickHouseError.
    const msg = (e as Error)?.message ?? '';
    if (!(e instanceof ClickHouseError) && /^Code: \d+[.,] /.test(msg)) throw clickHouseErrorFrom(msg.trim());
    throw e;
  }
  const headers = rs.response_headers as Record<string, string | string[] | undefined>;
  const tagRaw = headers['x-clickhouse-exception-tag'];
  const tag = Array.isArray(tagRaw) ? tagRaw[0] : tagRaw;
  const status = (rs as { http_status_code?: number }).http_status_code ?? 200;
  const p = new JsonCompactStream();
  const stream = rs.stream;
  const onAbort = () =>
    stream.destroy(signal?.reason instanceof Error ? signal.reason : new Error('The user aborted a request.'));
  signal?.addEventListener('abort', onAbort, { once: true });
  let lastProgress = performance.now();
  let networkError: unknown;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      p.push(chunk);
      if (opts.onProgress) {
        const now = performance.now();
        if (now - lastProgress >= 1000) {
          lastProgress = now;
          opts.onProgress({ result_rows: p.rows, result_bytes: p.bytes });
        }
      }
    }
  } catch (e) {
    if (signal?.aborted) throw e;
    networkError = e;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  const wall_ms = performance.now() - t0;
  const ex = findStreamedException(p, tag);
  if (ex) {
    const err = clickHouseErrorFrom(ex.text) as MidStreamClickHouseError;
    err.http_status = status;
    err.result_bytes = p.bytes;
    err.result_rows = p.rows;
    err.exception_source = ex.source;
    throw err;
  }
  if (networkError !== undefined) throw networkError instanceof Error ? networkError : new Error(String(networkError));
  if (!p.complete) {
    const why =
      p.brokenAt >= 0 ? `${p.brokenReason} at byte ${p.brokenAt}` : 'the body ended before the document was complete';
    throw new IncompleteResultError(
      `query ${queryId}: the response body (${p.bytes} bytes, HTTP ${status}) is not a complete JSONCompact document: ${why}`,
      p.bytes,
      p.rows,
    );
  }
  const rowsField = p.captured.get('rows');
  if (rowsField !== undefined && Number(rowsField) !== p.rows) {
    throw new IncompleteResultError(
      `query ${queryId}: the body says rows: ${rowsField} but holds ${p.rows} rows`,
      p.bytes,
      p.rows,
    );
  }
  let output_statistics: MeasuredResult['output_statistics'];
  const st = p.captured.get('statistics');
  if (st !== undefined) {
    try {
      output_statistics = JSON.parse(st) as MeasuredResult['output_statistics'];
    } catch {
      output_statistics = undefined;
    }
  }
  return {
    query_id: rs.query_id,
    wall_ms,
    summary: parseSummary(headers),
    ...(output_statistics ? { output_statistics } : {}),
    result_rows: p.rows,
    result_bytes: p.bytes,
    result_sha256: p.digest(),
    result_values_sha256: p.valuesDigest(),
    ...(p.valuesUnknown ? { result_values_unknown: p.valuesUnknown } : {}),
    first_rows: p.firstRows,
    wait_end_of_query: waitEnd,
  };
}

/** Rows of a query as objects (JSONEachRow). */
export async function queryRows<T>(
  client: ClickHouseClient,
  sql: string,
  settings: ClickHouseSettings = {},
): Promise<T[]> {
  const rs = await client.query({ query: sql, format: 'JSONEachRow', clickhouse_settings: settings });
  return rs.json<T>();
}

/** One scalar (first column of the first row). */
export async function queryScalar<T = string>(client: ClickHouseClient, sql: string): Promise<T> {
  // JSONCompact exists on every version (JSONCompactEachRow does not on old ones such as 18.16).
  const rs = await client.query({ query: sql, format: 'JSONCompact' });
  const body = (await rs.json()) as unknown as { data: unknown[][] };
  return body.data[0][0] as T;
}

/**
 * Run a statement; return its outcome instead of throwing on any error (a server error, and also a
 * server that did not answer: callers that must tell the two apart, like the capability probe, use
 * {@link failedOutcome} with `classifyFailure` of `./no-answer.ts`).
 */
export async function tryCommand(
  client: ClickHouseClient,
  sql: string,
  settings: ClickHouseSettings = {},
): Promise<CommandOutcome> {
  try {
    await client.command({ query: sql, clickhouse_settings: settings });
    return { sql, ok: true };
  } catch (e) {
    return failedOutcome(sql, e);
  }
}

/**
 * The outcome of `sql` that failed with `e`: `{ sql, ok: false, code?, error }`, the error's first
 * line and its ClickHouse code (`ClickHouseError.code`, else the `Code: N` of the text).
 */
export function failedOutcome(sql: string, e: unknown): CommandOutcome {
  if (e instanceof ClickHouseError) return { sql, ok: false, code: e.code, error: e.message.split('\n')[0] };
  // Old servers (e.g. 18.16) answer `Code: 60, e.displayText() = DB::Exception: …`, which the client
  // does not parse into a ClickHouseError: take the code from the text.
  const msg = (e as Error)?.message ?? String(e);
  const code = errorCode(e);
  return { sql, ok: false, ...(code ? { code } : {}), error: msg.split('\n')[0] };
}

/** ClickHouse error code of an error from any server version, or undefined. */
export function errorCode(e: unknown): string | undefined {
  if (e instanceof ClickHouseError) return e.code;
  const parsed = parseServerError((e as Error)?.message ?? '');
  return parsed ? String(parsed.code) : undefined;
}

/**
 * The ClickHouse error code of a raw HTTP answer (for load generators that speak HTTP themselves):
 * the `X-ClickHouse-Exception-Code` header, else the `Code: N` of its body as any version writes it
 * ({@link parseServerError}); undefined when neither has one.
 */
export function httpErrorCode(
  headers: Record<string, string | string[] | undefined>,
  body: string,
): string | undefined {
  const h = headers['x-clickhouse-exception-code'];
  return (Array.isArray(h) ? h[0] : h) ?? bodyErrorCode(body);
}

/** The `Code: N` of an exception text in a response body (a mid-stream exception after a 200), or undefined. */
export function bodyErrorCode(body: string): string | undefined {
  const parsed = parseServerError(body);
  return parsed ? String(parsed.code) : undefined;
}

/** Exported for tests and benchmarks of the streaming parser. */
export const _internal = { JsonCompactStream, findStreamedException };
