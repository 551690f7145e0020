/**
 * {@link ResultsDb} over HTTP with `@clickhouse/client`: one implementation for the embedded
 * database's engine process and for a team's ClickHouse server (the same statements, plain SQL
 * with literals quoted by `lib/sql`, since both kinds take them alike).
 */
import { ClickHouseError, type ClickHouseClient } from '@clickhouse/client';
import { median } from 'simple-statistics';
import { ComparisonRecord } from '../../schema/comparison';
import { sqlString } from '../../lib/sql';
import { sanitizePathSegment } from '../../lib/fs';
import { comparisonRows, fromDbTime, readRunRows, samplesOf, toDbTime } from './rows';
import { astReadProblem } from './read-guard';
import type { BisectRow, ResultsDb, ReusableCellQuery, SeriesPoint, StoredCell, StoredFigure, StoredQueryRun, StoredRun, StoredSample } from './types';

/** Default number of runs {@link ClickHouseResultsDb.series} looks back. */
export const DEFAULT_SERIES_LIMIT = 20;

/** Statement kinds `query`/`queryText` (and `chbench results sql`) accept: reads only. */
const READ_KEYWORDS = ['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'EXISTS'];
/** Keywords of statements that write or change the server, refused anywhere in a read (see {@link readOnlyProblem}). */
const WRITE_KEYWORDS = ['INSERT', 'ALTER', 'CREATE', 'DROP', 'TRUNCATE', 'RENAME', 'OPTIMIZE', 'DELETE', 'UPDATE', 'ATTACH', 'DETACH', 'EXCHANGE', 'GRANT', 'REVOKE', 'KILL', 'SYSTEM', 'BACKUP', 'RESTORE', 'UNDROP', 'SET'];
const WRITE_KEYWORD_RE = new RegExp(`(?<![\\w.$])(${WRITE_KEYWORDS.join('|')})(?![\\w$])(?!\\s*\\.)`, 'gi');

/**
 * Table functions (and the scalar `file()`) that read or write outside the database: files, other
 * servers, object stores, processes, the request body. A name ending in `*` covers every name with
 * that prefix (`s3*`: s3, s3Cluster; `iceberg*`: icebergS3, icebergAzure, …; `file*`: file, fileCluster). Compared
 * case-insensitively, when followed by `(`.
 */
export const REFUSED_TABLE_FUNCTIONS = [
  'file*',
  'url',
  'urlCluster',
  's3*',
  'gcs',
  'oss',
  'cosn',
  'azureBlobStorage*',
  'hdfs*',
  'remote',
  'remoteSecure',
  'cluster',
  'clusterAllReplicas',
  'mysql',
  'postgresql',
  'mongodb',
  'redis',
  'sqlite',
  'jdbc',
  'odbc',
  'executable*',
  'input',
  'iceberg*',
  'deltaLake*',
  'hudi*',
  'paimon*',
  'arrowFlight*',
  'ytsaurus',
  'prometheusQuery*',
]

const REFUSED_FUNCTION_RE = new RegExp(
  `(?<![\\w.$])(${REFUSED_TABLE_FUNCTIONS.map((n) => (n.endsWith('*') ? `${n.slice(0, -1)}\\w*` : n)).join('|')})\\s*\\(`,
  'gi',
);

/**
 * Why `sql` is not one read-only statement that stays inside the database, or undefined when it is:
 * - its first keyword (after comments, whitespace and opening parentheses) must be one of SELECT,
 *   WITH, SHOW, DESCRIBE, DESC, EXPLAIN, EXISTS;
 * - no second statement may follow a `;` outside quotes and comments;
 * - no write keyword (INSERT, ALTER, CREATE, DROP, … SYSTEM, SET) anywhere as a word, so a read
 *   keyword first cannot carry a write (`WITH … INSERT`); `SHOW CREATE` is allowed;
 * - no `INTO OUTFILE` (the client would write a file);
 * - no `readonly` setting (it would lift the server's read-only mode for the statement), and no time
 *   limit setting (`max_execution_time`, …: a statement may not outlive the CLI's deadline);
 * - no table function of {@link REFUSED_TABLE_FUNCTIONS} (files, network, processes).
 * Quoted identifiers count as names (`` `readonly` = 0`` is refused); string literals and comments do not.
 */
export function readOnlyProblem(sql: string): string | undefined {
  // Blank out string literals and comments, keeping positions, in ONE left-to-right scan: a quoted
  // identifier is kept whole (a `#` or `--` inside "…" or `…` starts no comment); it loses its quotes below.
  const named = sql.replace(
    /'(?:\\.|''|[^'\\])*'|"(?:\\.|""|[^"\\])*"|`(?:\\.|``|[^`\\])*`|--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\//g,
    (m) => (m[0] === '"' || m[0] === '`' ? m : ' '.repeat(m.length)),
  );
  // …and the quoted identifiers blanked too, for the statement's shape.
  const bare = named.replace(/"(?:\\.|[^"\\])*"|`(?:\\.|[^`\\])*`/g, (m) => ' '.repeat(m.length));
  const names = named.replace(/["`]/g, ' ');
  const first = /^[\s(]*([A-Za-z]+)/.exec(bare)?.[1]?.toUpperCase();
  if (!first) return 'no statement';
  if (!READ_KEYWORDS.includes(first)) return `only read statements are allowed (${READ_KEYWORDS.join(', ')}); this one starts with ${first}`;
  const semi = bare.indexOf(';');
  if (semi >= 0 && bare.slice(semi + 1).trim()) return 'one statement only (text follows a `;`)';
  // A read keyword first is not enough: `WITH x AS (SELECT 1) INSERT INTO …` starts with WITH. A
  // write keyword anywhere as a word (not a database or column qualifier: `system.tables`) is refused;
  // `SHOW CREATE TABLE` is the one read that names one.
  const writes = [...bare.matchAll(WRITE_KEYWORD_RE)].map((m) => m[1].toUpperCase()).filter((w) => !(w === 'CREATE' && first === 'SHOW'));
  if (writes.length) return `only read statements are allowed; this one has ${[...new Set(writes)].join(', ')}`;
  if (/\bINTO\s+OUTFILE\b/i.test(bare)) return 'INTO OUTFILE is not allowed (it writes a file)';
  if (/(?<![\w.$])readonly(?![\w$])/i.test(names)) return 'the readonly setting may not be set or changed';
  if (/(?<![\w.$])(max_execution_time|max_estimated_execution_time|timeout_overflow_mode)(?![\w$])/i.test(names))
    return 'the time limit may not be set or changed (the CLI sends max_execution_time itself)';
  const fns = [...new Set([...names.matchAll(REFUSED_FUNCTION_RE)].map((m) => m[1]))];
  if (fns.length) return `table function ${fns.join(', ')} is not allowed (it reads or writes outside the results database: files, network or processes)`;
  return undefined;
}

/** A statement the read-only guard refused (the text check or the parsed tree): nothing was run. */
export class ReadRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReadRefusedError';
  }
}

/**
 * The results database did not answer in time or could not be reached (the client's request timed
 * out, the connection was refused or reset): for the embedded database, usually another statement
 * holding its one engine. Message: `results database busy or unreachable: (<where>) …`.
 */
export class ResultsDbUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`results database busy or unreachable: ${message}`, options);
    this.name = 'ResultsDbUnavailableError';
  }
}

/** True when `e` is a timeout or a connection failure of `@clickhouse/client` (not an answer of the server). */
export function isUnavailableError(e: unknown): boolean {
  if (e instanceof ClickHouseError) return false;
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|ETIMEDOUT|EPIPE|EAI_AGAIN)$/.test(code)) return true;
  return /Timeout error|ECONNREFUSED|ECONNRESET|socket hang up|EHOSTUNREACH|ETIMEDOUT/i.test(String((e as Error)?.message ?? e));
}

/**
 * One line for an error of `@clickhouse/client`: a server error as `Code <n> (<TYPE>): <first line>`
 * (the server's code and name from `ClickHouseError`), anything else as its message's first line.
 */
export function oneLineError(e: unknown): string {
  const first = String((e as Error)?.message ?? e).trim().split('\n')[0].trim();
  if (e instanceof ClickHouseError) return `Code ${e.code}${e.type ? ` (${e.type})` : ''}: ${first}`;
  return first;
}

/** Options of a read through {@link ResultsDb.query}/{@link ResultsDb.queryText}. */
export interface ReadOptions {
  /** `max_execution_time` sent with the statement, seconds: the server stops it after this (code 159, TIMEOUT_EXCEEDED). */
  maxExecutionTimeS?: number;
}

/** A UInt64/Float64 value as the server sends it in JSON (64-bit integers quoted) → number; null stays null. */
function num(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

const RUN_COLUMNS = 'run_id, name, workload, scale, target_kind, spec_hash, spec_json, chbench_version, chbench_commit, schedule_id, started_at, finished_at, status, cells_total, cells_succeeded';

function toRun(r: Record<string, unknown>): StoredRun {
  return {
    ...(r as unknown as StoredRun),
    scale: Number(r.scale),
    started_at: fromDbTime(r.started_at as string)!,
    finished_at: fromDbTime(r.finished_at as string | null),
    cells_total: Number(r.cells_total),
    cells_succeeded: Number(r.cells_succeeded),
  };
}

function toCell(r: Record<string, unknown>): StoredCell {
  return {
    ...(r as unknown as StoredCell),
    scale: Number(r.scale),
    written_at: fromDbTime(r.written_at as string | null),
    load_rows: num(r.load_rows),
    load_elapsed_ms: num(r.load_elapsed_ms),
    load_rows_per_s: num(r.load_rows_per_s),
    bytes_on_disk: num(r.bytes_on_disk),
    compressed_bytes: num(r.compressed_bytes),
    uncompressed_bytes: num(r.uncompressed_bytes),
    compression_ratio: num(r.compression_ratio),
  };
}

/** The results database over one `@clickhouse/client` connection whose default database is the results database. */
export class ClickHouseResultsDb implements ResultsDb {
  /**
   * @param kind `server`: reads through `query`/`queryText` also carry `readonly=2` (the server then
   *   refuses writes whatever the statement); `embedded`: not sent, since the engine process runs
   *   every statement on one shared chdb session and `SET readonly = DEFAULT` is refused once readonly
   *   is on (the server would then replace its session after every read).
   */
  constructor(
    private readonly client: ClickHouseClient,
    readonly description: string,
    private readonly kind: 'embedded' | 'server' = 'server',
  ) {}

  /**
   * Run `fn`; an error is rethrown naming the database and the statement's first line, with the
   * server's one-line message (`Code <n> (<TYPE>): …`); a timeout or connection failure as
   * {@link ResultsDbUnavailableError}.
   */
  private async wrap<T>(sql: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      const head = sql.trim().split('\n')[0].slice(0, 160);
      if (isUnavailableError(e)) throw new ResultsDbUnavailableError(`(${this.description}): ${head}: ${oneLineError(e)}`, { cause: e });
      throw new Error(`results database (${this.description}): ${head}: ${oneLineError(e)}`, { cause: e });
    }
  }

  /**
   * A user's read: time-limited when asked, and on a server read-only (`readonly = 2`: no write, settings
   * still sent). Not on the embedded engine: it applies a request's settings with `SET` on its one session
   * and resets them after, which `readonly = 2` itself forbids — it would stick and refuse the next store.
   */
  private readSettings(o: ReadOptions): Record<string, string> {
    return {
      ...(o.maxExecutionTimeS !== undefined ? { max_execution_time: String(o.maxExecutionTimeS) } : {}),
      ...(this.kind === 'server' ? { readonly: '2' } : {}),
    };
  }

  private async rows<T = Record<string, unknown>>(sql: string, settings: Record<string, string> = {}): Promise<T[]> {
    return this.wrap(sql, async () => (await this.client.query({ query: sql, format: 'JSONEachRow', clickhouse_settings: settings })).json<T>());
  }

  private async command(sql: string, settings: Record<string, string> = {}): Promise<void> {
    await this.wrap(sql, () => this.client.command({ query: sql, clickhouse_settings: settings }));
  }

  private async insert(table: string, values: Record<string, unknown>[]): Promise<void> {
    if (!values.length) return;
    await this.wrap(`INSERT INTO ${table} FORMAT JSONEachRow (${values.length} rows)`, () => this.client.insert({ table, values, format: 'JSONEachRow' }));
  }

  /** Delete a run's rows of `table` synchronously (a mutation waited for with `mutations_sync = 2`), when it has any. */
  private async deleteRun(table: string, runId: string): Promise<void> {
    const where = `run_id = ${sqlString(runId)}`;
    const [c] = await this.rows<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE ${where}`);
    if (Number(c?.n ?? 0) > 0) await this.command(`ALTER TABLE ${table} DELETE WHERE ${where}`, { mutations_sync: '2' });
  }

  async storeRun(runDir: string): Promise<{ runs: number; cells: number; samples: number; comparisons: number; verdicts: number }> {
    const { run, cells, queryRuns, figures, comparison, verdicts } = readRunRows(runDir);
    // The runs row goes first out and last in: a run row means its cells, query runs and figures are all there.
    // `samples` (schema 1–4) is no longer written; a run stored there before schema 5 loses those rows here.
    for (const t of ['runs', 'cells', 'samples', 'query_runs', 'figures', 'verdicts']) await this.deleteRun(t, run.run_id);
    await this.insert(
      'query_runs',
      queryRuns.map((q) => ({ ...q, valid: q.valid ? 1 : 0, started_at: toDbTime(q.started_at) })),
    );
    // One row per figure (schema 4): what every reader of a figure reads.
    await this.insert('figures', figures as unknown as Record<string, unknown>[]);
    await this.insert(
      'cells',
      cells.map((c) => ({ ...c, written_at: toDbTime(c.written_at) })),
    );
    await this.insert('runs', [{ ...run, started_at: toDbTime(run.started_at), finished_at: toDbTime(run.finished_at), stored_at: toDbTime(new Date().toISOString()) }]);
    await this.insert('verdicts', verdicts as unknown as Record<string, unknown>[]);
    if (comparison) await this.storeComparison(comparison);
    return { runs: 1, cells: cells.length, samples: queryRuns.length, comparisons: comparison ? 1 : 0, verdicts: verdicts.length };
  }

  async storeComparison(c: ComparisonRecord): Promise<void> {
    const parsed = ComparisonRecord.parse(c);
    const { comparison, queries } = comparisonRows(parsed);
    for (const t of ['comparisons', 'comparison_queries']) await this.deleteRun(t, parsed.run_id);
    await this.insert('comparison_queries', queries);
    await this.insert('comparisons', [comparison]);
  }

  async reusableCell(q: ReusableCellQuery): Promise<{ run_id: string; cell_key: string } | undefined> {
    const [r] = await this.rows<{ run_id: string; cell_key: string }>(
      `SELECT c.run_id AS run_id, c.cell_key AS cell_key FROM cells AS c INNER JOIN runs AS r ON r.run_id = c.run_id
      WHERE c.status = 'succeeded' AND c.version_label = ${sqlString(q.version)} AND c.cell_spec_sha256 = ${sqlString(q.cellSpecSha256)}
        AND c.host_kind = ${sqlString(q.hostKind)} AND c.target_kind = ${sqlString(q.targetKind)}
        AND r.workload_sha256 = ${sqlString(q.workloadSha256)} AND c.run_id != ${sqlString(q.notRunId)}
      ORDER BY c.written_at DESC, c.run_id, c.cell_key LIMIT 1`,
    );
    return r && { run_id: r.run_id, cell_key: r.cell_key };
  }

  async storeBisect(row: BisectRow): Promise<void> {
    await this.deleteRun('bisects', row.run_id);
    await this.insert('bisects', [{ ...row, stored_at: toDbTime(row.stored_at) }]);
  }

  async bisects(runId?: string): Promise<BisectRow[]> {
    const where = runId === undefined ? '' : ` WHERE run_id = ${sqlString(runId)}`;
    return (await this.rows<BisectRow>(`SELECT * FROM bisects${where} ORDER BY stored_at DESC, run_id`)).map((r) => ({
      ...r,
      cells_run: Number(r.cells_run),
      cells_new: r.cells_new === null ? null : Number(r.cells_new),
      cells_reused: Number(r.cells_reused),
      stored_at: fromDbTime(r.stored_at) ?? r.stored_at,
    }));
  }

  async run(runId: string): Promise<StoredRun | undefined> {
    const [r] = await this.rows(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = ${sqlString(runId)} LIMIT 1`);
    return r && toRun(r);
  }

  async cells(runId: string): Promise<StoredCell[]> {
    return (await this.rows(`SELECT * FROM cells WHERE run_id = ${sqlString(runId)} ORDER BY cell_key`)).map(toCell);
  }

  async samples(runId: string, cellKey?: string): Promise<StoredSample[]> {
    const cell = cellKey === undefined ? '' : ` AND cell_key = ${sqlString(cellKey)}`;
    const runs = (
      await this.rows(
        `SELECT run_id, cell_key, phase, query_id, query_pos, kind, n, server_resolution_ms, server_elapsed_below_ms, result_sha256, result_values_sha256, valid, invalid_reason, started_at, statement_id
        FROM query_runs WHERE run_id = ${sqlString(runId)}${cell} ORDER BY cell_key, phase, query_id, indexOf(['cold', 'warmup', 'warm'], kind), n`,
      )
    ).map(
      (r): StoredQueryRun => ({
        ...(r as unknown as StoredQueryRun),
        n: Number(r.n),
        query_pos: num(r.query_pos),
        server_resolution_ms: num(r.server_resolution_ms),
        server_elapsed_below_ms: num(r.server_elapsed_below_ms),
        result_values_sha256: (r.result_values_sha256 as string | null | undefined) ?? null,
        valid: Number(r.valid) === 1,
        started_at: fromDbTime(r.started_at as string | null),
      }),
    );
    const figures = (await this.figures(runId)).filter((f) => cellKey === undefined || f.cell_key === cellKey);
    return samplesOf(runs, figures);
  }

  async figures(runId: string): Promise<StoredFigure[]> {
    return (
      await this.rows<StoredFigure>(
        `SELECT run_id, cell_key, phase, query_id, kind, n, figure, value, unit, source, unknown FROM figures WHERE run_id = ${sqlString(runId)} ORDER BY cell_key, phase, query_id, indexOf(['cold', 'warmup', 'warm'], kind), n, figure`,
      )
    ).map((f) => ({ ...f, n: Number(f.n), value: f.value === null ? null : Number(f.value) }));
  }

  async comparison(runId: string): Promise<ComparisonRecord | undefined> {
    const [r] = await this.rows<{ record_json: string }>(`SELECT record_json FROM comparisons WHERE run_id = ${sqlString(runId)} ORDER BY created_at DESC LIMIT 1`);
    return r && ComparisonRecord.parse(JSON.parse(r.record_json));
  }

  async previousSuccessfulRun(scheduleId: string, beforeStartedAt: string): Promise<StoredRun | undefined> {
    const [r] = await this.rows(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE schedule_id = ${sqlString(scheduleId)} AND started_at < toDateTime64(${sqlString(toDbTime(beforeStartedAt)!)}, 3, 'UTC') AND status = 'completed' AND cells_succeeded > 0 ORDER BY started_at DESC LIMIT 1`,
    );
    return r && toRun(r);
  }

  /**
   * The last `limit` runs (default {@link DEFAULT_SERIES_LIMIT}) of the schedule, or of runs named
   * `name` when `scheduleId` is null, whatever their status; per run, cell, phase and query the median
   * of the valid warm runs (server-side elapsed when every one of them has it, else client wall time).
   * Oldest run first.
   */
  async series(opts: { scheduleId: string | null; name: string; limit?: number }): Promise<SeriesPoint[]> {
    const limit = Math.max(1, Math.floor(opts.limit ?? DEFAULT_SERIES_LIMIT));
    const which = opts.scheduleId === null ? `name = ${sqlString(opts.name)}` : `schedule_id = ${sqlString(opts.scheduleId)}`;
    const rows = await this.rows<Record<string, unknown> & { srv: number[]; wall: number[]; srv_missing: string }>(
      `SELECT s.run_id AS run_id, r.started_at AS started_at, s.cell_key AS cell_key, c.version_label AS version_label,
        c.server_version AS server_version, c.codec AS codec, s.phase AS phase, s.query_id AS query_id,
        groupArrayIf(s.value, s.figure = 'server_elapsed_ms') AS srv, groupArrayIf(s.value, s.figure = 'wall_ms') AS wall,
        countIf(s.figure = 'server_elapsed_ms' AND isNull(s.value)) AS srv_missing
      FROM figures AS s
      INNER JOIN (SELECT run_id, started_at FROM runs WHERE ${which} ORDER BY started_at DESC LIMIT ${limit}) AS r ON r.run_id = s.run_id
      INNER JOIN cells AS c ON c.run_id = s.run_id AND c.cell_key = s.cell_key
      WHERE s.kind = 'warm' AND s.figure IN ('server_elapsed_ms', 'wall_ms')
        AND (s.run_id, s.cell_key, s.phase, s.query_id, s.kind, s.n) NOT IN (SELECT run_id, cell_key, phase, query_id, kind, n FROM query_runs WHERE valid = 0)
      GROUP BY run_id, started_at, cell_key, version_label, server_version, codec, phase, query_id
      ORDER BY started_at, cell_key, phase, query_id`,
    );
    return rows.map((r) => {
      const server = Number(r.srv_missing) === 0;
      return {
        run_id: r.run_id as string,
        started_at: fromDbTime(r.started_at as string)!,
        cell_key: r.cell_key as string,
        version_label: r.version_label as string,
        server_version: (r.server_version as string | null) ?? null,
        codec: r.codec as string,
        phase: r.phase as SeriesPoint['phase'],
        query_id: r.query_id as string,
        warm_median_ms: median((server ? r.srv : r.wall).map(Number)),
        figure: server ? 'server_elapsed_ms' : 'wall_ms',
      };
    });
  }

  /**
   * Why `sql` may not run, or undefined: the text check ({@link readOnlyProblem}, offline), then the
   * database's own parser (`EXPLAIN AST`, parsed and never run, read-only and time-limited) and the
   * syntax tree judged by {@link astReadProblem}. A statement that does not parse is refused with the
   * parser's message.
   * @throws ResultsDbUnavailableError when the database does not answer the parse in time
   */
  private async readProblem(sql: string): Promise<string | undefined> {
    const text = readOnlyProblem(sql);
    if (text) return text;
    let ast: string;
    try {
      ast = await (
        await this.client.query({
          query: `EXPLAIN AST ${sql}`,
          format: 'TabSeparatedRaw',
          clickhouse_settings: { max_execution_time: 10, ...(this.kind === 'server' ? { readonly: '2' as const } : {}) },
        })
      ).text();
    } catch (e) {
      if (isUnavailableError(e)) throw new ResultsDbUnavailableError(`(${this.description}) ${oneLineError(e)}`, { cause: e });
      return `the statement does not parse: ${oneLineError(e)}`;
    }
    return astReadProblem(ast, REFUSED_TABLE_FUNCTIONS);
  }

  async query<T = Record<string, unknown>>(sql: string, o: ReadOptions = {}): Promise<T[]> {
    const problem = await this.readProblem(sql);
    if (problem) throw new ReadRefusedError(`results database (${this.description}): refused: ${problem}`);
    return this.rows<T>(sql, this.readSettings(o));
  }

  async queryText(sql: string, format: 'CSVWithNames' | 'JSONEachRow' | 'TabSeparatedWithNames', o: ReadOptions = {}): Promise<string> {
    const problem = await this.readProblem(sql);
    if (problem) throw new ReadRefusedError(`results database (${this.description}): refused: ${problem}`);
    // CSV: NULL as an empty field (ClickHouse's default `\N` is not what spreadsheet and dataframe readers expect).
    const settings = { ...this.readSettings(o), ...(format === 'CSVWithNames' ? { format_csv_null_representation: '' } : {}) };
    return this.wrap(sql, async () => (await this.client.query({ query: sql, format, clickhouse_settings: settings })).text());
  }

  async resolveRunId(given: string): Promise<string | undefined> {
    if (await this.run(given)) return given;
    // The folder form: `:` (and anything else a path segment may not hold) replaced by `_`.
    const candidates = await this.rows<{ run_id: string }>(
      `SELECT run_id FROM runs WHERE length(run_id) = ${given.length} AND replaceRegexpAll(run_id, '[^A-Za-z0-9._-]', '_') = ${sqlString(given)} ORDER BY run_id`,
    );
    const ids = candidates.map((r) => r.run_id).filter((id) => sanitizePathSegment(id) === given);
    return ids.length === 1 ? ids[0] : undefined;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
