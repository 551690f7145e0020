/**
 * How chbench talks to a target: `@clickhouse/client` over HTTP, the same for every target kind.
 * Exactly one place builds clients, runs a measured statement and parses the server's summary.
 */
import { createClient, ClickHouseError, ClickHouseLogLevel, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { TargetHandle } from '../targets/types';
import { currentWatcher, watchClient } from './statement-watch';

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

/** The plain client of {@link connect} (not watched). */
function openClient(t: TargetHandle, opts: ConnectOptions): ClickHouseClient {
  let password = '';
  if (t.passwordEnv) {
    const v = process.env[t.passwordEnv];
    if (v === undefined) throw new Error(`target ${t.url}: environment variable ${t.passwordEnv} (the password) is not set on the worker`);
    password = v;
  }
  const maxS = opts.maxExecutionTimeS ?? 3600;
  return createClient({
    url: t.url,
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

/** One measured statement. */
export interface MeasuredResult {
  query_id: string;
  /** Client wall time in ms: from just before the request is sent until the whole body was read (performance.now()). */
  wall_ms: number;
  /** The server's summary header, if any. */
  summary?: HttpSummary;
  /**
   * The `statistics` block the server writes into JSON output formats (`rows_read`, `bytes_read`,
   * `elapsed` in s): server-side figures every ClickHouse version (and the embedded engine) provides.
   */
  output_statistics?: { rows_read?: number; bytes_read?: number; elapsed?: number };
  /** Result rows (`data` of the JSONCompact body). */
  data: unknown[][];
  /** Rows in the result. */
  result_rows: number;
  /** sha256 of `JSON.stringify(data)`, to compare results across cells. */
  result_sha256: string;
}

/**
 * Run one SELECT and measure it. The result (format JSONCompact) is read completely before the
 * clock stops; parsing happens after.
 * @throws ClickHouseError with the server's code/type on a server error.
 */
export async function runMeasured(
  client: ClickHouseClient,
  sql: string,
  queryId: string,
  settings: ClickHouseSettings = {},
  signal?: AbortSignal,
): Promise<MeasuredResult> {
  const t0 = performance.now();
  const rs = await client.query({ query: sql, format: 'JSONCompact', query_id: queryId, clickhouse_settings: settings, abort_signal: signal });
  const text = await rs.text();
  const wall_ms = performance.now() - t0;
  const body = JSON.parse(text) as { data: unknown[][]; statistics?: MeasuredResult['output_statistics'] };
  const canonical = JSON.stringify(body.data);
  return {
    query_id: rs.query_id,
    wall_ms,
    summary: parseSummary(rs.response_headers as Record<string, string>),
    ...(body.statistics ? { output_statistics: body.statistics } : {}),
    data: body.data,
    result_rows: body.data.length,
    result_sha256: createHash('sha256').update(canonical).digest('hex'),
  };
}

/** Rows of a query as objects (JSONEachRow). */
export async function queryRows<T>(client: ClickHouseClient, sql: string, settings: ClickHouseSettings = {}): Promise<T[]> {
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

/** Outcome of a statement whose failure is acceptable (recorded, not thrown). */
export interface CommandOutcome {
  sql: string;
  ok: boolean;
  /** Server error text (first line) when `ok` is false. */
  error?: string;
  /** ClickHouse error code when `ok` is false. */
  code?: string;
}

/** Run a statement; return its outcome instead of throwing on a server error. */
export async function tryCommand(client: ClickHouseClient, sql: string, settings: ClickHouseSettings = {}): Promise<CommandOutcome> {
  try {
    await client.command({ query: sql, clickhouse_settings: settings });
    return { sql, ok: true };
  } catch (e) {
    if (e instanceof ClickHouseError) return { sql, ok: false, code: e.code, error: e.message.split('\n')[0] };
    // Old servers (e.g. 18.16) answer `Code: 60, e.displayText() = DB::Exception: …`, which the client
    // does not parse into a ClickHouseError: take the code from the text.
    const msg = (e as Error).message ?? String(e);
    const m = /Code: (\d+)/.exec(msg);
    return { sql, ok: false, ...(m ? { code: m[1] } : {}), error: msg.split('\n')[0] };
  }
}

/** ClickHouse error code of an error from any server version, or undefined. */
export function errorCode(e: unknown): string | undefined {
  if (e instanceof ClickHouseError) return e.code;
  const m = /Code: (\d+)/.exec((e as Error)?.message ?? '');
  return m?.[1];
}

/** Quote a string literal for ClickHouse SQL. */
export function sqlString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** True when a target URL is on this host's loopback (127.0.0.1, [::1], localhost). */
export function isLoopbackUrl(url: string): boolean {
  return /^https?:\/\/(127\.0\.0\.1|\[::1\]|localhost)[:/]/.test(url);
}
