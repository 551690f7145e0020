/**
 * The results database's contract: what every chbench part may ask of it. Two implementations share
 * one code path over HTTP: the default embedded database (the chdb engine chbench ships, served from
 * `<resultsDir>/db/` by one engine process per directory) and any ClickHouse server a team runs
 * (`results: { url, database, passwordEnv }` in the run spec, or `CHBENCH_RESULTS_URL`).
 *
 * Tables (schema version in `schema_migrations`): `runs` (one row per run), `cells` (one per cell),
 * `query_runs` (schema 5: one row per measured query run, cold, warm-up and warm, with its position,
 * validity, result hashes and statement id, no figures), `figures` (schema 4: one row per measured
 * run and figure: value, unit, source, why unknown), `comparisons` and `comparison_queries` (see
 * `schema/comparison.ts`). `samples` (schema 1–4: one wide row per measured run, a column per
 * figure) keeps the rows of runs stored before schema 5 and is no longer written or read: its runs
 * are in `query_runs` and `figures` since migrations 4 and 5. Writes are idempotent: storing a run
 * again replaces its rows, it never doubles them.
 */
import type { ComparisonRecord } from '../../schema/comparison';

/** Where the results database is. */
export type ResultsDbLocation =
  | {
      kind: 'embedded';
      /** directory of the database files, default `<resultsDir>/db` */ dir: string;
      /** Idle period after which an engine process started by this opener exits, seconds (default 600). */
      idleExitS?: number;
    }
  | { kind: 'server'; url: string; database: string; user?: string; /** name of the env var holding the password (never the password) */ passwordEnv?: string };

/** One row of `runs`. Times are ISO strings (UTC). */
export interface StoredRun {
  run_id: string;
  name: string;
  workload: string;
  scale: number;
  target_kind: string;
  /** sha256 of the parsed spec (canonical JSON), hex. */
  spec_hash: string;
  spec_json: string;
  /** `run.json` `workload_files.sha256`: sha256 over the workload's files as the run first read them (schema 6); null when not recorded. */
  workload_sha256?: string | null;
  chbench_version: string;
  chbench_commit: string | null;
  /** The Temporal schedule that started it (`ChbenchSchedule`), or null. */
  schedule_id: string | null;
  started_at: string;
  finished_at: string | null;
  /** `completed` | `cancelled` | … as in run.json. */
  status: string | null;
  cells_total: number;
  cells_succeeded: number;
}

/** One row of `cells`. */
export interface StoredCell {
  run_id: string;
  cell_key: string;
  version_label: string;
  /** `SELECT version()` of the server; null if never reached. */
  server_version: string | null;
  codec: string;
  target_kind: string;
  workload: string;
  scale: number;
  /** Query settings the cell's runs were sent with, JSON. */
  settings_json: string;
  /** `result.json` `cell_spec_sha256`: hash of the cell's measured inputs (`cellSpecHash`, schema 6); null when not recorded. */
  cell_spec_sha256?: string | null;
  /** `hostKindOf(result.json host)`: CPU model, cores, memory bytes of the server's host (schema 6); null when the cell has no host facts. */
  host_kind?: string | null;
  status: string;
  error: string | null;
  /** Load, storage and index figures, host facts: JSON of the cell's headline facts. */
  facts_json: string;
  /** `result.json.written_at` (ISO). */
  written_at: string | null;
  /** Flat copies of headline facts for dashboards: rows loaded (`load.json rows`), client wall time of the load (ms), rows/s. */
  load_rows: number | null;
  load_elapsed_ms: number | null;
  load_rows_per_s: number | null;
  /** `storage.json`: system.parts sums of active parts, bytes; ratio = uncompressed / compressed. */
  bytes_on_disk: number | null;
  compressed_bytes: number | null;
  uncompressed_bytes: number | null;
  compression_ratio: number | null;
}

/**
 * One figure of one measured query run: a `figures` row (schema 4). `value` in `unit` (`ms`, `rows`,
 * `bytes`); null = unknown (n/a), with `unknown` saying why when a source answered; `source` the
 * system table/column or API it came from (e.g. `system.query_log`, `http summary`, `client wall time`).
 */
export interface StoredFigure {
  run_id: string;
  cell_key: string;
  phase: StoredSample['phase'];
  query_id: string;
  kind: StoredSample['kind'];
  n: number;
  figure: string;
  value: number | null;
  unit: 'ms' | 'rows' | 'bytes' | 'parts' | 'ranges' | 'marks';
  source: string | null;
  unknown: string | null;
}

/** A figure's value as {@link StoredSample.figures} holds it: the `figures` row without its keys. */
export type FigureValue = Pick<StoredFigure, 'value' | 'unit' | 'source' | 'unknown'>;

/**
 * One row of `query_runs` (schema 5): one measured run of one query without its figures (those are
 * its `figures` rows). Field meanings as in {@link StoredSample}.
 */
export type StoredQueryRun = Pick<
  StoredSample,
  | 'run_id'
  | 'cell_key'
  | 'phase'
  | 'query_id'
  | 'kind'
  | 'n'
  | 'server_resolution_ms'
  | 'server_elapsed_below_ms'
  | 'result_sha256'
  | 'result_values_sha256'
  | 'valid'
  | 'invalid_reason'
  | 'started_at'
  | 'statement_id'
> & { query_pos: number | null };

/**
 * One measured run of one query with its figures, as {@link ResultsDb.samples} reads it: its
 * `query_runs` row, and its `figures` rows both as the named fields below (the figures that were
 * columns of the wide `samples` table, schema 1–4) and, every one of them, in {@link StoredSample.figures}.
 * Figures the server did not give are null.
 */
export interface StoredSample {
  run_id: string;
  cell_key: string;
  phase: 'baseline' | 'index';
  query_id: string;
  kind: 'cold' | 'warmup' | 'warm';
  /** 1-based within its kind. */
  n: number;
  /** Server elapsed, ms; null when the server gave none or it is below its resolution (`server_elapsed_below_ms`; never 0 for "< 1 ms"). */
  server_elapsed_ms: number | null;
  server_elapsed_source: string | null;
  wall_ms: number;
  /** 0-based position of the query in its phase's record (report.md's order); null before schema 2. */
  query_pos?: number | null;
  /** The figure report.md uses for the run (the query's headline clock), ms; null in rows stored before schema 2. */
  elapsed_ms?: number | null;
  /** Its source: a server-time source or `client wall time`; null before schema 2. */
  elapsed_source?: string | null;
  /** Smallest step of `server_elapsed_source`, ms (1 for `query_duration_ms`); null without a server time or before schema 2. */
  server_resolution_ms?: number | null;
  /** Set (to the resolution, ms) when the server's time was below its resolution: "< this many ms". */
  server_elapsed_below_ms?: number | null;
  /** Rows read by the server (`read_source` says where from); null = unknown (n/a), never 0 for "not reported". */
  read_rows: number | null;
  /** Bytes read by the server, as read_rows. */
  read_bytes: number | null;
  /** `RunSample.read_source`: `http summary`, `output statistics`, `system.query_log` or `system.events difference`; null when no source gave a read or before schema 3. */
  read_source?: string | null;
  /**
   * Why read_rows / read_bytes are null although a source answered (`RunSample.read_unknown`: it said 0,
   * which for a query that scanned a table is unknown, not a figure). Rows stored before 0 reads were
   * recorded as unknown have their recorded 0 turned into null with this set. Null otherwise or before schema 3.
   */
  read_unknown?: string | null;
  result_rows: number;
  result_bytes: number | null;
  result_sha256: string;
  /** `RunSample.result_values_sha256`: sha256 of the result's canonical values by column type (compares across versions); null when not computed or before schema 3. */
  result_values_sha256?: string | null;
  /** Memory the query used, bytes (`system.query_log.memory_usage` of its QueryFinish row); null where the server keeps no query_log, or before schema 3. */
  memory_usage?: number | null;
  /** False when the run's validity record says it was not cold (cold runs) or not quiet. */
  valid: boolean;
  invalid_reason: string | null;
  started_at: string | null;
  /** The statement's ClickHouse `query_id` (joins `system.query_log`). */
  statement_id: string;
  /**
   * Every `figures` row of the run by figure name (`SAMPLE_FIGURES` of rows.ts, e.g. `SelectedMarks`
   * in marks from `<counters_source> SelectedMarks`): set by {@link ResultsDb.samples}, so a figure
   * added to `SAMPLE_FIGURES` reaches every reader without a new field; absent on rows built from a
   * results folder before storing.
   */
  figures?: Record<string, FigureValue>;
}

/** A point of a scheduled series: one query's warm median in one cell of one run. */
export interface SeriesPoint {
  run_id: string;
  started_at: string;
  cell_key: string;
  version_label: string;
  server_version: string | null;
  codec: string;
  phase: 'baseline' | 'index';
  query_id: string;
  /** Median of the valid warm runs, ms (server-side when every one has it, else client wall). */
  warm_median_ms: number;
  figure: 'server_elapsed_ms' | 'wall_ms';
}

/** The results database as chbench uses it. Every method may throw an Error naming the database and the statement that failed. */
export interface ResultsDb {
  /** Human-readable location, e.g. `embedded database /…/results/db` or `http://host:8123 database chbench`. */
  readonly description: string;
  /** Store a run from its results folder (`run.json`, every cell's `result.json`, `comparison.json` if any): replaces earlier rows of the run. @returns rows written: runs, cells, samples (= `query_runs` rows, measured query runs; each also has one `figures` row per figure), comparisons. */
  storeRun(runDir: string): Promise<{ runs: number; cells: number; samples: number; comparisons: number; verdicts: number }>;
  storeComparison(c: ComparisonRecord): Promise<void>;
  run(runId: string): Promise<StoredRun | undefined>;
  cells(runId: string): Promise<StoredCell[]>;
  /**
   * The run's measured query runs (of one cell when `cellKey` is given), in cell, phase, query, kind
   * (cold, warmup, warm) and n order: each `query_runs` row with its `figures` rows (see {@link StoredSample}).
   */
  samples(runId: string, cellKey?: string): Promise<StoredSample[]>;
  /** The run's `figures` rows (schema 4), one per measured run and figure, in sample order then figure name. */
  figures(runId: string): Promise<StoredFigure[]>;
  comparison(runId: string): Promise<ComparisonRecord | undefined>;
  /** The newest run of `scheduleId` that started before `beforeStartedAt`, finished `completed` and has at least one succeeded cell. */
  previousSuccessfulRun(scheduleId: string, beforeStartedAt: string): Promise<StoredRun | undefined>;
  /** Warm medians of the last `limit` runs of a schedule (or of runs with the same spec name when `scheduleId` is null), oldest first. */
  series(opts: { scheduleId: string | null; name: string; limit?: number }): Promise<SeriesPoint[]>;
  /**
   * Run any read-only SQL (`readOnlyProblem` refuses the rest before sending); rows as objects.
   * `o.maxExecutionTimeS` is sent as `max_execution_time` (seconds).
   */
  query<T = Record<string, unknown>>(sql: string, o?: { maxExecutionTimeS?: number }): Promise<T[]>;
  /** Run read-only SQL and return the server's text in `format` (e.g. `CSVWithNames`, `JSONEachRow`). Options as {@link ResultsDb.query}. */
  queryText(sql: string, format: 'CSVWithNames' | 'JSONEachRow' | 'TabSeparatedWithNames', o?: { maxExecutionTimeS?: number }): Promise<string>;
  /**
   * The stored run id a user gave: itself when `runs` has it, else the one run id whose folder name
   * (`sanitizePathSegment` of `lib/fs`: `:` and other characters a path segment may not hold
   * replaced by `_`, e.g. `q1-2026-11-30T14_16_43Z`) equals `given`; undefined when none (or
   * several) match.
   */
  resolveRunId(given: string): Promise<string | undefined>;
  /**
   * The newest stored succeeded cell measured as `q` asks (schema 6): same version label, cell spec
   * hash, workload hash (`runs.workload_sha256`), host kind and target kind, in a run other than
   * `q.notRunId`; undefined when none. Rows with any of those null never match.
   */
  reusableCell(q: ReusableCellQuery): Promise<{ run_id: string; cell_key: string } | undefined>;
  /** Store a bisect's row (schema 7): replaces an earlier row of the same run (idempotent). */
  storeBisect(row: BisectRow): Promise<void>;
  /** Stored bisects, newest first (of one run when `runId` is given). */
  bisects(runId?: string): Promise<BisectRow[]>;
  close(): Promise<void>;
}

/** What {@link ResultsDb.reusableCell} matches on, every field exactly. */
export interface ReusableCellQuery {
  version: string;
  /** `cellSpecHash` of the cell to measure. */
  cellSpecSha256: string;
  /** `workloadFingerprint(workload).sha256` of the workload's files now. */
  workloadSha256: string;
  /** `hostKindOf` of the host the cell would run on. */
  hostKind: string;
  targetKind: string;
  /** The run asking (its own cells are reused by its resume, not from the database). */
  notRunId: string;
}

/**
 * One row of `verdicts` (schema 8): one comparison of a run's `verdicts.json` (`VerdictEntry` of
 * src/schema/verdicts.ts, where each field is documented). `confirmed`: 1 confirmed by the interleaved
 * re-run, 0 withdrawn, null not needed; `remeasured`: 1 when the adaptive step measured it again;
 * `stage`: `first-pass` or `final`.
 */
export interface StoredVerdict {
  run_id: string;
  axis: string;
  reference: string;
  cell: string;
  query: string | null;
  phase: string;
  verdict: string;
  ratio: number | null;
  low: number | null;
  high: number | null;
  mde: number | null;
  runs_reference: number;
  runs_cell: number;
  confirmed: 0 | 1 | null;
  remeasured: 0 | 1;
  figure: string | null;
  reason: string;
  stage: string;
}

/**
 * One row of `bisects` (schema 7): a bisect's answer, as `bisect.md` and the workflow result give
 * it. Figures come from the bisect's own steps (`BisectStep` of src/schema/bisect.ts).
 */
export interface BisectRow {
  run_id: string;
  /** The query bisected, e.g. `q3`. */
  query: string;
  /** `read_rows` (system.query_log.read_rows of the last warm run), `warm` or `cold` (run times). */
  metric: string;
  /** The two ends, as given (`--good`, `--bad`). */
  good: string;
  bad: string;
  /** The versions in range, oldest first. */
  versions: string[];
  /** The bracketing pair's older and newer version (the newer is the first that changed); null without a bracket. */
  bracket_older: string | null;
  first_changed: string | null;
  /** The attribution's verdict (`default change: …`, `engine code …`, `could not attribute: …`), or why there is none. */
  verdict: string;
  /** Cells measured (attribution's included), of which `cells_new` run by this bisect (null: not counted apart) and `cells_reused` reused from stored runs. */
  cells_run: number;
  cells_new: number | null;
  cells_reused: number;
  /** The report's record (`BisectReportInput` of src/results/report-bisect.ts) as JSON: steps, attribution, differing defaults. */
  record_json: string;
  /** When the row was written, ISO (UTC). */
  stored_at: string;
}
