/**
 * Where each figure of a run comes from, and how the sources are checked against each other.
 *
 * At the run (from the HTTP response, {@link runFigures}): client wall time; server elapsed from the
 * `X-ClickHouse-Summary` header's `elapsed_ns` only when the summary is complete
 * (`wait_end_of_query=1`); read_rows/read_bytes from the complete summary, else from the JSON output's
 * statistics block. After the step (from `system.query_log`, {@link applyQueryLog}), where the server
 * keeps one: the row of the run's query_id is the headline — server elapsed from the microsecond
 * timestamps when they agree with `query_duration_ms` (±1 ms), else `query_duration_ms`; read_rows and
 * read_bytes from the row — and the summary/statistics are cross-checked against it ({@link crossCheck}).
 */
import { ClickHouseError } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  errorCode,
  summaryNumber,
  type HttpSummary,
  type MeasuredResult,
  type MidStreamClickHouseError,
} from '../clickhouse/client';
import type { QueryLogRow } from '../clickhouse/query-log';
import type { QueryRecord, RunSample } from '../schema/results';
import { SERVER_TIME_RESOLUTION_MS } from './stats';

/** The figures of one run known when its response has been read (before query_log is joined). */
export type RunFigures = Pick<
  RunSample,
  | 'wall_ms'
  | 'server_elapsed_ms'
  | 'server_elapsed_source'
  | 'read_rows'
  | 'read_bytes'
  | 'read_source'
  | 'read_unknown'
  | 'result_rows'
  | 'result_bytes'
  | 'result_sha256'
  | 'result_values_sha256'
  | 'result_values_unknown'
  | 'summary_complete'
> &
  Partial<Pick<RunSample, 'http_summary' | 'output_statistics'>>;

const zeroReadText = (zeros: string[]) => `${zeros.join('; ')}: a 0 read is unknown, not a figure`;

/**
 * read_rows / read_bytes of a run that has none from the `system.events` difference around it
 * (`counters`' SelectedRows / SelectedBytes; mutates `s`, source `system.events difference`), less
 * what the snapshot before the run read itself: `snapshotRows` rows exactly, and `overhead.bytes`
 * when that snapshot had the calibrated row count (else read_bytes stays unknown, with the reason).
 * A difference of 0 or null gives nothing. Pure but for `s`.
 */
export function readFromCounters(
  s: Pick<RunSample, 'read_rows' | 'read_bytes' | 'read_source' | 'counters' | 'read_unknown'>,
  snapshotRows?: number,
  overhead?: { rows: number; bytes: number } | null,
): void {
  if (s.read_rows !== null) return;
  const raw = s.counters?.SelectedRows ?? null;
  if (raw === null || snapshotRows === undefined) return;
  const rows = raw - snapshotRows;
  if (!(rows > 0)) return;
  const rawBytes = s.counters?.SelectedBytes ?? null;
  const bytes = rawBytes !== null && overhead && overhead.rows === snapshotRows ? rawBytes - overhead.bytes : null;
  [s.read_rows, s.read_bytes, s.read_source] = [
    rows,
    bytes !== null && bytes > 0 ? bytes : null,
    'system.events difference',
  ];
  if (s.read_bytes === null)
    s.read_unknown = `${s.read_unknown ? `${s.read_unknown}; ` : ''}read_bytes: the system.events difference holds the snapshot's own read, whose size was not calibrated for this snapshot`;
}

/**
 * The figures of a run from its response. A snapshot summary (no `wait_end_of_query`) never gives
 * a figure: it may under-report; query_log or the statistics block fill in. `summaryReadSource` names
 * the summary's read counts (`output statistics` on the embedded engine, which fills its summary
 * from the engine's own statistics). A read of 0 rows (or 0 bytes) from either is unknown (`null`, with
 * `read_unknown`): on the PyPI chdb builds before 26.5 the JSON statistics always say 0, and no query
 * that scans a table reads nothing (a legitimate 0 — every part pruned, a trivial count — is left
 * unknown too, rather than taken from a source that cannot tell it apart). Pure.
 */
export function runFigures(
  r: MeasuredResult,
  summaryReadSource: RunSample['read_source'] = 'http summary',
): RunFigures {
  const complete = r.wait_end_of_query;
  const elapsedNs = summaryNumber(r.summary, 'elapsed_ns');
  let readRows = complete ? summaryNumber(r.summary, 'read_rows') : null;
  let readBytes = complete ? summaryNumber(r.summary, 'read_bytes') : null;
  let readSource: RunSample['read_source'] = readRows === null ? null : summaryReadSource;
  const zeros: string[] = [];
  if (readRows === 0) {
    zeros.push(`${summaryReadSource} read_rows 0`);
    [readRows, readBytes, readSource] = [null, null, null];
  }
  if (readRows === null && typeof r.output_statistics?.rows_read === 'number') {
    if (r.output_statistics.rows_read === 0) zeros.push('output statistics rows_read 0');
    else {
      readRows = r.output_statistics.rows_read;
      readBytes = r.output_statistics.bytes_read ?? null;
      readSource = 'output statistics';
    }
  }
  if (readRows !== null && readBytes === 0) {
    zeros.push(`${readSource} read_bytes 0 for ${readRows} rows`);
    readBytes = null;
  }
  return {
    wall_ms: r.wall_ms,
    server_elapsed_ms: elapsedNs === null || !complete ? null : elapsedNs / 1e6,
    server_elapsed_source: elapsedNs === null || !complete ? null : 'http summary elapsed_ns',
    read_rows: readRows,
    read_bytes: readBytes,
    read_source: readSource,
    ...(zeros.length ? { read_unknown: zeroReadText(zeros) } : {}),
    result_rows: r.result_rows,
    result_bytes: r.result_bytes,
    result_sha256: r.result_sha256,
    result_values_sha256: r.result_values_sha256 ?? null,
    ...(r.result_values_unknown ? { result_values_unknown: r.result_values_unknown } : {}),
    ...(r.summary ? { http_summary: r.summary as Record<string, string> } : {}),
    summary_complete: complete,
    ...(r.output_statistics ? { output_statistics: r.output_statistics } : {}),
  };
}

/**
 * Make a run's query_log row its headline (mutates `s`): keeps the row in `query_log`, takes server
 * elapsed (microsecond difference when it agrees with `query_duration_ms` within 1 ms, else
 * `query_duration_ms`), read_rows and read_bytes from it (a 0 is unknown: `read_unknown`), and records the {@link crossCheck}.
 * `row` null: only `query_log` is set (to null); the run keeps its response figures.
 */
export function applyQueryLog(s: RunSample, row: QueryLogRow | null): void {
  s.query_log = row;
  if (!row) return;
  s.settings_check = settingsCheck(s.settings, row);
  const ms = Number(row.query_duration_ms);
  const us = row.query_duration_us === undefined ? null : Number(row.query_duration_us);
  if (us !== null && Number.isFinite(us) && Math.abs(us / 1000 - ms) <= 1)
    [s.server_elapsed_ms, s.server_elapsed_source] = [
      us / 1000,
      'system.query_log event_time_microseconds - query_start_time_microseconds',
    ];
  else [s.server_elapsed_ms, s.server_elapsed_source] = [ms, 'system.query_log.query_duration_ms'];
  const [rows, bytes] = [Number(row.read_rows), Number(row.read_bytes)];
  // A 0 is unknown: the run keeps the figures it had (if any), with the reason.
  if (rows > 0) {
    [s.read_rows, s.read_bytes, s.read_source] = [rows, bytes > 0 ? bytes : null, 'system.query_log'];
    if (!(bytes > 0)) s.read_unknown = zeroReadText([`system.query_log read_bytes ${row.read_bytes} for ${rows} rows`]);
    else delete s.read_unknown;
  } else
    s.read_unknown = zeroReadText([
      ...(s.read_unknown ? [s.read_unknown.replace(/: a 0 read is unknown, not a figure$/, '')] : []),
      `system.query_log read_rows ${row.read_rows}`,
    ]);
  s.cross_check = crossCheck(s, row);
}

/**
 * The settings sent with a run against those its query_log row says the statement ran with (the
 * `Settings` map, or `Settings.Names`/`Settings.Values` on older servers): `applied` holds each sent
 * setting the server shows with the same value, `not_shown` the others with what the server shows.
 * Where the row has no settings column, `source` says so and nothing counts as applied. Pure.
 */
export function settingsCheck(
  sent: Record<string, string | number>,
  row: QueryLogRow,
): NonNullable<RunSample['settings_check']> {
  let shown: Record<string, string> | null = null;
  if (row.Settings && typeof row.Settings === 'object')
    shown = Object.fromEntries(Object.entries(row.Settings as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  else if (Array.isArray(row['Settings.Names']) && Array.isArray(row['Settings.Values'])) {
    const values = row['Settings.Values'] as unknown[];
    shown = Object.fromEntries((row['Settings.Names'] as unknown[]).map((n, i) => [String(n), String(values[i])]));
  }
  if (!shown)
    return {
      source: 'not available on this server: its system.query_log has no Settings column',
      applied: {},
      not_shown: {},
    };
  const applied: Record<string, string> = {};
  const notShown: Record<string, string> = {};
  for (const [k, v] of Object.entries(sent)) {
    if (!(k in shown))
      notShown[k] =
        'not in the run\u2019s query_log Settings (servers may list only settings that differ from their default)';
    else if (shown[k] !== String(v)) notShown[k] = `query_log shows ${shown[k]}`;
    else applied[k] = shown[k];
  }
  return {
    source: row.Settings ? 'system.query_log.Settings' : 'system.query_log Settings.Names/Settings.Values',
    applied,
    not_shown: notShown,
  };
}

/**
 * Cross-check a run's HTTP summary and JSON statistics block against its query_log row: read_rows
 * must agree within 0.1 %, elapsed within max(2 ms, 10 %). Returns `agrees (<what was checked>)`,
 * `disagrees: …` (each difference, naming a snapshot summary as such) or `not checked: …`. Pure.
 */
export function crossCheck(
  s: Pick<RunSample, 'http_summary' | 'output_statistics' | 'summary_complete'>,
  row: QueryLogRow,
): string {
  const logRows = Number(row.read_rows);
  const logMs =
    row.query_duration_us !== undefined ? Number(row.query_duration_us) / 1000 : Number(row.query_duration_ms);
  const diffs: string[] = [];
  const checked: string[] = [];
  const sumRows = summaryNumber(s.http_summary as HttpSummary | undefined, 'read_rows');
  const sumNs = summaryNumber(s.http_summary as HttpSummary | undefined, 'elapsed_ns');
  const what = s.summary_complete ? 'summary' : 'summary (snapshot: wait_end_of_query not requested)';
  const rowsOff = (v: number) => Math.abs(v - logRows) > Math.max(0, logRows * 0.001);
  const msOff = (v: number) => Math.abs(v - logMs) > Math.max(2, logMs * 0.1);
  if (sumRows !== null) {
    checked.push('summary read_rows');
    if (rowsOff(sumRows)) diffs.push(`${what} read_rows ${sumRows} vs query_log ${logRows}`);
  }
  if (sumNs !== null) {
    checked.push('summary elapsed');
    if (msOff(sumNs / 1e6))
      diffs.push(`${what} elapsed ${(sumNs / 1e6).toFixed(3)} ms vs query_log ${logMs.toFixed(3)} ms`);
  }
  const st = s.output_statistics;
  if (typeof st?.rows_read === 'number') {
    checked.push('statistics rows_read');
    if (rowsOff(st.rows_read)) diffs.push(`statistics rows_read ${st.rows_read} vs query_log ${logRows}`);
  }
  if (!checked.length) return 'not checked: the server sent no summary and no statistics block';
  return diffs.length ? `disagrees: ${diffs.join('; ')}` : `agrees (${checked.join(', ')})`;
}

/** A failed run's error as recorded in its query's record (without the run and query_id). */
export type QueryFailure = Omit<NonNullable<QueryRecord['error']>, 'run' | 'query_id'>;

/**
 * The server's code, name and message when `e` is an error of the query itself (a `ClickHouseError`,
 * or a `Code: N` text from an old server), `undefined` for anything else — a lost server (`isGone(e)`),
 * a Temporal failure, a cancellation (`AbortError`), a network error — which must propagate.
 */
export function queryFailure(e: unknown, isGone: (e: unknown) => boolean = () => false): QueryFailure | undefined {
  if (isGone(e) || e instanceof ApplicationFailure || (e as Error)?.name === 'AbortError') return undefined;
  const code = errorCode(e);
  if (code === undefined) return undefined;
  // Old servers name no type (the client then says UNKNOWN): keep null rather than a made-up name.
  const named =
    e instanceof ClickHouseError && e.type && e.type !== 'UNKNOWN'
      ? e.type
      : /\(([A-Z][A-Z0-9_]{2,})\)/.exec((e as Error).message)?.[1];
  const late = e as Partial<MidStreamClickHouseError>;
  return {
    code,
    type: named ?? null,
    message: ((e as Error).message ?? String(e)).slice(0, 500),
    ...(late.exception_source
      ? {
          after_response_started: {
            http_status: late.http_status!,
            result_bytes: late.result_bytes!,
            exception_source: late.exception_source,
          },
        }
      : {}),
  };
}

/**
 * The settings the step's measured runs were sent with, as recorded on its first query's first warm
 * run (`RunSample.settings`; every warm run of a step gets the same base settings). `{}` when the step
 * measured no warm run.
 */
export function runSettingsOf(records: QueryRecord[]): Record<string, number | string> {
  return records[0]?.samples.find((s) => s.kind === 'warm')?.settings ?? {};
}

/**
 * A run's time as every output writes it (samples.jsonl, the results database and its exports): the
 * same choice and label as report.md. Source of each field:
 * - `elapsed_ms` / `elapsed_source`: the figure chosen for the query's headline (`stats.timing_source`,
 *   {@link stats}): the run's server elapsed and its source, or its client wall time (`wall_ms`) and
 *   `client wall time`;
 * - `server_elapsed_ms`: the server's figure (`server_elapsed_source`), **null when it is below its
 *   resolution** (e.g. `query_duration_ms` 0 on 18.16: under 1 ms, not 0 ms) — then
 *   `server_elapsed_below_ms` holds that resolution ("< 1 ms");
 * - `server_resolution_ms`: the smallest step of `server_elapsed_source` (`SERVER_TIME_RESOLUTION_MS`), ms.
 * Pure.
 */
export interface RunElapsed {
  elapsed_ms: number;
  elapsed_source: string;
  server_elapsed_ms: number | null;
  server_elapsed_source: RunSample['server_elapsed_source'];
  server_resolution_ms: number | null;
  server_elapsed_below_ms: number | null;
}

/** See {@link RunElapsed}. `timing` is the query's `stats.timing_source`. */
export function runElapsed(timing: QueryRecord['stats']['timing_source'], s: RunSample): RunElapsed {
  const src = s.server_elapsed_source;
  const res = src ? SERVER_TIME_RESOLUTION_MS[src] : null;
  const raw = s.server_elapsed_ms;
  const below = raw !== null && res !== null && raw < res;
  const server = raw === null || below ? null : raw;
  const useServer = timing === 'server-side elapsed' && server !== null;
  return {
    elapsed_ms: useServer ? server : s.wall_ms,
    elapsed_source: useServer ? src! : 'client wall time',
    server_elapsed_ms: server,
    server_elapsed_source: src,
    server_resolution_ms: res,
    server_elapsed_below_ms: below ? res : null,
  };
}
