/**
 * Rows of the results database from a run's results folder (pure apart from reading the files):
 * `run.json` → one `runs` row, every `cells/<key>/result.json` → one `cells` row, one `query_runs`
 * row per measured query run (cold, warm-up and warm of both phases) and one `figures` row per
 * measured run and {@link SAMPLE_FIGURES} entry, `comparison.json` → the
 * `comparisons` / `comparison_queries` rows, `verdicts.json` → one `verdicts` row per comparison. Files are read with `readRecord`, so a foreign or old
 * file fails naming the file and field.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ComparisonRecord } from '../../schema/comparison';
import { VerdictsRecord } from '../../schema/verdicts';
import { CellResult, RunRecord, type QueriesRecord, type RunSample } from '../../schema/results';
import { readRecord, readRecordIfExists } from '../store';
import type { FigureValue, StoredCell, StoredFigure, StoredQueryRun, StoredRun, StoredSample, StoredVerdict } from './types';
import { runElapsed } from '../../measure/figures';
import { WORK_COUNTERS } from '../../measure/work';
import { hostKindOf } from '../../schema/host';

/** Everything one run folder contributes. */
export interface RunRows {
  run: StoredRun;
  cells: StoredCell[];
  /** Each measured query run with its figures as named fields (from which `queryRuns` and `figures` are written). */
  samples: StoredSample[];
  /** The `query_runs` rows: one per measured query run, no figures. */
  queryRuns: StoredQueryRun[];
  /** One row per measured run and figure ({@link SAMPLE_FIGURES}). */
  figures: StoredFigure[];
  comparison: ComparisonRecord | undefined;
  /** The `verdicts` rows: one per comparison of `verdicts.json` (none without one). */
  verdicts: StoredVerdict[];
}

/** The `verdicts` rows of a run's `verdicts.json` (schema 8), in the record's order. */
export function verdictRows(runId: string, r: VerdictsRecord): StoredVerdict[] {
  return r.entries.map((e) => ({
    run_id: runId,
    axis: e.axis,
    reference: e.reference,
    cell: e.cell,
    query: e.query,
    phase: e.phase,
    verdict: e.verdict,
    ratio: e.ratio,
    low: e.low,
    high: e.high,
    mde: e.mde,
    runs_reference: e.runs.reference,
    runs_cell: e.runs.cell,
    confirmed: e.confirmed === null ? null : e.confirmed ? 1 : 0,
    remeasured: e.remeasured ? 1 : 0,
    figure: e.figure ?? null,
    reason: e.reason,
    stage: r.stage,
  }));
}

/** JSON with object keys sorted at every level (arrays keep their order). */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  );
}

/** sha256 (hex) of the canonical JSON of a parsed spec. */
export function specHash(spec: unknown): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
}

/**
 * A run's validity as one flag and its reasons: invalid when the validity record says the run was
 * not cold (cold runs only) or the table was not quiet (`valid === false`); unknown (`null`) counts as valid.
 */
export function sampleValidity(s: RunSample): { valid: boolean; invalid_reason: string | null } {
  const reasons: string[] = [];
  if (s.kind === 'cold' && s.validity.cold?.valid === false) reasons.push(`${s.validity.cold.label}: ${s.validity.cold.reasons.join('; ')}`);
  if (s.validity.quiet.valid === false) reasons.push(`${s.validity.quiet.label}: ${s.validity.quiet.reasons.join('; ')}`);
  return { valid: reasons.length === 0, invalid_reason: reasons.length ? reasons.join(' | ') : null };
}

/** Text of a recorded 0 read (results written before a 0 read was recorded as unknown). */
export const RECORDED_ZERO_READ = 'recorded as 0 (a result written before a 0 read was recorded as unknown): a 0 read is unknown, not a figure';

/**
 * A run's read figures as stored: read_rows / read_bytes with their source, a 0 (older results took
 * the engines' 0 statistics as figures) turned into null with `read_unknown` saying so, so no reader
 * of the database takes an unknown read for a read of nothing.
 */
export function sampleReads(s: Pick<RunSample, 'read_rows' | 'read_bytes' | 'read_source' | 'read_unknown'>): Pick<StoredSample, 'read_rows' | 'read_bytes' | 'read_source' | 'read_unknown'> {
  const zero = [s.read_rows === 0 ? 'read_rows' : null, s.read_bytes === 0 ? 'read_bytes' : null].filter((x) => x !== null);
  const rows = s.read_rows === 0 ? null : s.read_rows;
  // read_bytes goes with its rows: a read whose rows are unknown has no bytes of its own.
  const bytes = rows === null || s.read_bytes === 0 ? null : s.read_bytes;
  const unknown = [s.read_unknown, zero.length ? `${zero.join(' and ')} ${RECORDED_ZERO_READ}` : undefined].filter(Boolean).join('; ');
  return {
    read_rows: rows,
    read_bytes: bytes,
    read_source: rows === null && bytes === null ? null : (s.read_source ?? null),
    read_unknown: unknown || null,
  };
}

/** `system.query_log.memory_usage` of the run's row, bytes; null when the run has no row or the row no figure. */
export function sampleMemory(s: Pick<RunSample, 'query_log'>): number | null {
  const m = s.query_log?.memory_usage;
  if (m === undefined || m === null || m === '') return null;
  const n = Number(m);
  return Number.isFinite(n) ? n : null;
}

/** One cell result as its `cells` row. Extra flat figures (load, storage) come from `load.json`/`storage.json` as assembled in `result.json`. */
export function cellRow(runId: string, r: CellResult): StoredCell {
  const q = r.queries_baseline ?? r.queries_index;
  const facts = {
    protocol: r.protocol,
    attempts: r.attempts,
    target_restarts: r.target_restarts,
    skip_reason: r.skip_reason ?? null,
    server: r.provision?.server ?? null,
    load: r.load && { rows: r.load.rows, elapsed_ms: r.load.elapsed_ms, rows_per_s: r.load.rows_per_s, server_elapsed_ms: r.load.server_elapsed_ms, server_elapsed_source: r.load.server_elapsed_source, active_parts: r.load.active_parts, reused: r.load.reused },
    storage: r.storage && { rows: r.storage.rows, active_parts: r.storage.active_parts, bytes_on_disk: r.storage.bytes_on_disk, compressed_bytes: r.storage.compressed_bytes, uncompressed_bytes: r.storage.uncompressed_bytes, ratio: r.storage.ratio },
    index: r.index && { index: r.index.index, materialize_ms: r.index.materialize_ms, index_bytes: r.index.index_bytes, index_uncompressed_bytes: r.index.index_uncompressed_bytes },
    metrics_delta: r.metrics_delta?.server_events ?? null,
  };
  return {
    run_id: runId,
    cell_key: r.cellKey,
    version_label: r.matrix.version,
    server_version: r.provision?.server.version ?? null,
    codec: r.matrix.codec,
    target_kind: r.target_kind,
    workload: r.workload,
    scale: r.scale,
    settings_json: JSON.stringify(q?.run_settings ?? {}),
    cell_spec_sha256: r.cell_spec_sha256 ?? null,
    host_kind: r.host ? hostKindOf(r.host) : null,
    status: r.status,
    error: r.error ?? null,
    facts_json: JSON.stringify(facts),
    written_at: r.written_at,
    load_rows: r.load?.rows ?? null,
    load_elapsed_ms: r.load?.elapsed_ms ?? null,
    load_rows_per_s: r.load?.rows_per_s ?? null,
    bytes_on_disk: r.storage?.bytes_on_disk ?? null,
    compressed_bytes: r.storage?.compressed_bytes ?? null,
    uncompressed_bytes: r.storage?.uncompressed_bytes ?? null,
    compression_ratio: r.storage?.ratio ?? null,
  };
}

/** One row per measured query run of a cell (both phases, record order). */
export function sampleRows(runId: string, r: CellResult): StoredSample[] {
  return measuredRuns(runId, r).map((x) => x.stored);
}

/** Each measured query run of a cell (both phases, record order): its sample (the `query_runs` row with its figures as named fields) and the run as recorded. */
function measuredRuns(runId: string, r: CellResult): { stored: StoredSample; run: RunSample }[] {
  const out: { stored: StoredSample; run: RunSample }[] = [];
  for (const rec of [r.queries_baseline, r.queries_index] as (QueriesRecord | null)[])
    for (const [pos, q] of (rec?.queries ?? []).entries())
      for (const s of q.samples)
        out.push({
          run: s,
          stored: {
            run_id: runId,
            cell_key: r.cellKey,
            phase: rec!.phase,
            query_id: q.id,
            query_pos: pos,
            kind: s.kind,
            n: s.n,
            ...runElapsed(q.stats.timing_source, s),
            wall_ms: s.wall_ms,
            ...sampleReads(s),
            result_rows: s.result_rows,
            result_bytes: s.result_bytes,
            result_sha256: s.result_sha256,
            result_values_sha256: s.result_values_sha256 ?? null,
            memory_usage: sampleMemory(s),
            ...sampleValidity(s),
            started_at: s.started_at ?? null,
            statement_id: s.query_id,
          },
        });
  return out;
}

/** The `figures` rows of a cell's measured runs (see {@link SAMPLE_FIGURES}). */
export function cellFigureRows(runId: string, r: CellResult): StoredFigure[] {
  return measuredRuns(runId, r).flatMap((x) => figureRows(x.stored, x.run));
}

/** The `query_runs` row of a measured run: its keys, position, validity, hashes, start and statement id (its figures go to `figures`). */
export function queryRunRow(s: StoredSample): StoredQueryRun {
  return {
    run_id: s.run_id,
    cell_key: s.cell_key,
    phase: s.phase,
    query_id: s.query_id,
    query_pos: s.query_pos ?? null,
    kind: s.kind,
    n: s.n,
    server_resolution_ms: s.server_resolution_ms ?? null,
    server_elapsed_below_ms: s.server_elapsed_below_ms ?? null,
    result_sha256: s.result_sha256,
    result_values_sha256: s.result_values_sha256 ?? null,
    valid: s.valid,
    invalid_reason: s.invalid_reason,
    started_at: s.started_at,
    statement_id: s.statement_id,
  };
}

/**
 * The figures that were columns of the wide `samples` table (schema 1–4), in its column order: the
 * csv/jsonl export keeps them in their columns (with their source columns) so its output for them
 * is what it was when it read `samples`; every other figure is appended after them.
 */
export const SAMPLES_COLUMN_FIGURES = [
  'server_elapsed_ms',
  'wall_ms',
  'elapsed_ms',
  'read_rows',
  'read_bytes',
  'result_rows',
  'result_bytes',
  'memory_usage',
] as const;

/** Key of a measured run within a database: run, cell, phase, query, kind, n. */
function runKey(x: Pick<StoredFigure, 'run_id' | 'cell_key' | 'phase' | 'query_id' | 'kind' | 'n'>): string {
  return [x.run_id, x.cell_key, x.phase, x.query_id, x.kind, x.n].join('\u0000');
}

/**
 * Measured runs with their figures, from `query_runs` rows and `figures` rows: each run's named
 * figure fields (`server_elapsed_ms` with `server_elapsed_source`, `wall_ms`, `elapsed_ms` with
 * `elapsed_source`, `read_rows`/`read_bytes` with `read_source` and `read_unknown`, `result_rows`,
 * `result_bytes`, `memory_usage`) taken from its `figures` rows of those names, and every one of its
 * figures rows in `figures` by name. A run without a `wall_ms` or `result_rows` row gets NaN there.
 */
export function samplesOf(queryRuns: readonly StoredQueryRun[], figures: readonly StoredFigure[]): StoredSample[] {
  const byRun = new Map<string, Record<string, FigureValue>>();
  for (const f of figures) {
    const k = runKey(f);
    const m = byRun.get(k) ?? {};
    m[f.figure] = { value: f.value, unit: f.unit, source: f.source, unknown: f.unknown };
    byRun.set(k, m);
  }
  return queryRuns.map((q) => {
    const fs = byRun.get(runKey(q)) ?? {};
    const value = (name: string) => fs[name]?.value ?? null;
    const source = (name: string) => fs[name]?.source ?? null;
    return {
      ...q,
      server_elapsed_ms: value('server_elapsed_ms'),
      server_elapsed_source: source('server_elapsed_ms'),
      wall_ms: value('wall_ms') ?? Number.NaN,
      elapsed_ms: value('elapsed_ms'),
      elapsed_source: source('elapsed_ms'),
      read_rows: value('read_rows'),
      read_bytes: value('read_bytes'),
      read_source: source('read_rows') ?? source('read_bytes'),
      read_unknown: fs.read_rows?.unknown ?? fs.read_bytes?.unknown ?? null,
      result_rows: value('result_rows') ?? Number.NaN,
      result_bytes: value('result_bytes'),
      memory_usage: value('memory_usage'),
      figures: fs,
    };
  });
}

/**
 * Read a run folder into rows.
 * @param dir `results/<runId>/` (absolute or relative to the cwd)
 * @throws Error when `run.json` or a cell's `result.json` is missing or does not parse (named)
 */
export function readRunRows(dir: string): RunRows {
  const run = readRecord(path.join(dir, 'run.json'), RunRecord);
  const cellsDir = path.join(dir, 'cells');
  // Cells in run.json's matrix order, then any other folder holding a result.
  const keys = [...run.cells, ...(existsSync(cellsDir) ? readdirSync(cellsDir).sort().filter((k) => !run.cells.includes(k)) : [])];
  const results = keys.map((k) => readRecordIfExists(path.join(cellsDir, k, 'result.json'), CellResult)).filter((r): r is CellResult => r !== undefined);
  const cells = results.map((r) => cellRow(run.runId, r));
  const samples = results.flatMap((r) => sampleRows(run.runId, r));
  const figures = results.flatMap((r) => cellFigureRows(run.runId, r));
  const queryRuns = samples.map(queryRunRow);
  const stored: StoredRun = {
    run_id: run.runId,
    name: run.spec.name,
    workload: run.spec.workload,
    scale: run.spec.scale,
    target_kind: run.spec.target.kind,
    spec_hash: specHash(run.spec),
    spec_json: JSON.stringify(run.spec),
    workload_sha256: run.workload_files?.sha256 ?? null,
    chbench_version: run.chbench.version,
    chbench_commit: run.chbench.commit,
    schedule_id: run.scheduleId ?? null,
    started_at: run.startedAt,
    finished_at: run.finishedAt ?? null,
    status: run.status ?? null,
    cells_total: run.cells.length,
    cells_succeeded: cells.filter((c) => c.status === 'succeeded').length,
  };
  const verdicts = readRecordIfExists(path.join(dir, 'verdicts.json'), VerdictsRecord);
  return {
    run: stored,
    cells,
    samples,
    queryRuns,
    figures,
    comparison: readRecordIfExists(path.join(dir, 'comparison.json'), ComparisonRecord),
    verdicts: verdicts ? verdictRows(run.runId, verdicts) : [],
  };
}

/** A `DateTime64(3)` value (`YYYY-MM-DD hh:mm:ss.sss`, UTC) from an ISO time; null stays null. */
export function toDbTime(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) throw new Error(`not a time: ${JSON.stringify(iso)}`);
  return t.toISOString().replace('T', ' ').replace('Z', '');
}

/** An ISO time (`…Z`) from a `DateTime64(3, 'UTC')` value as the server prints it; null stays null. */
export function fromDbTime(v: string | null | undefined): string | null {
  if (!v) return null;
  return /Z$|[+-]\d\d:?\d\d$/.test(v) ? new Date(v).toISOString() : new Date(`${v.replace(' ', 'T')}Z`).toISOString();
}

/** The `comparisons` row and `comparison_queries` rows of a comparison record. */
export function comparisonRows(c: ComparisonRecord): { comparison: Record<string, unknown>; queries: Record<string, unknown>[] } {
  return {
    comparison: {
      comparison_id: c.comparison_id,
      run_id: c.run_id,
      baseline_run_id: c.baseline_run_id,
      baseline_chosen_by: c.baseline_chosen_by,
      method: c.method,
      options_json: JSON.stringify(c.options),
      unpaired_json: JSON.stringify(c.unpaired),
      flagged_json: JSON.stringify(c.flagged),
      confirmed_json: JSON.stringify(c.confirmed),
      verdict: c.verdict,
      created_at: toDbTime(c.created_at),
      confirm_error: c.confirm_error ?? null,
      record_json: JSON.stringify(c),
    },
    queries: c.pairs.flatMap((p) =>
      p.queries.map((q) => ({
        comparison_id: c.comparison_id,
        run_id: c.run_id,
        pair_key: p.pair_key,
        baseline_run: p.baseline_run,
        baseline_cell: p.baseline_cell,
        new_run: p.new_run,
        new_cell: p.new_cell,
        differences_json: JSON.stringify(p.differences),
        query_id: q.query_id,
        phase: q.phase,
        figure: q.figure,
        n_baseline: q.n_baseline,
        n_new: q.n_new,
        median_baseline_ms: q.median_baseline_ms,
        median_new_ms: q.median_new_ms,
        ratio: q.ratio,
        ci_low: q.ci_low,
        ci_high: q.ci_high,
        threshold: q.threshold,
        verdict: q.verdict,
        reason: q.reason,
        confirm_rounds: q.confirm?.rounds ?? null,
        confirm_ratio: q.confirm?.ratio ?? null,
        confirm_ci_low: q.confirm?.ci_low ?? null,
        confirm_ci_high: q.confirm?.ci_high ?? null,
        confirm_verdict: q.confirm?.verdict ?? null,
        confirmed: q.confirm ? (q.confirm.confirmed ? 1 : 0) : null,
        confirm_reason: q.confirm?.reason ?? null,
        final: q.final,
      })),
    ),
  };
}

/** A figure the store writes to `figures`: its name, unit and how a measured run gives its value, source and why it is unknown. */
export interface FigureDef {
  name: string;
  unit: StoredFigure['unit'];
  value: (s: StoredSample, run: RunSample | undefined) => number | null | undefined;
  source: (s: StoredSample, run: RunSample | undefined) => string | null | undefined;
  unknown?: (s: StoredSample, run: RunSample | undefined) => string | null | undefined;
}

/**
 * A work counter of the run (a ProfileEvents name of `RUN_COUNTERS`, src/measure/validity.ts), from
 * `RunSample.counters`: source `<counters_source> <name>`; null with the reason when the target gave
 * no per-run counters or the version lacks the counter.
 */
function counterFigure(name: string, unit: StoredFigure['unit']): FigureDef {
  return {
    name,
    unit,
    value: (_s, run) => run?.counters?.[name] ?? null,
    source: (_s, run) => (run?.counters?.[name] == null ? null : `${run.counters_source} ${name}`),
    unknown: (_s, run) =>
      !run
        ? null
        : !run.counters
          ? 'n/a: no per-run counters on this target (no system.query_log and no system.events difference)'
          : !(name in run.counters)
            ? `n/a: not recorded (measured before chbench read ${name})`
            : run.counters[name] === null
              ? `n/a: the server does not have the counter ${name}`
              : null,
  };
}

/** The work counters (defined with the work comparison, `src/measure/work.ts`): each one a figure of {@link SAMPLE_FIGURES}. */
export { WORK_COUNTERS };

/**
 * The figures of a measured run, the one list the store writes (`figures` rows) and the readers
 * name. A figure already in {@link StoredSample} or a per-run counter is one entry here (a counter
 * also needs its name in `RUN_COUNTERS`).
 */
export const SAMPLE_FIGURES: readonly FigureDef[] = [
  { name: 'server_elapsed_ms', unit: 'ms', value: (s) => s.server_elapsed_ms, source: (s) => s.server_elapsed_source },
  { name: 'wall_ms', unit: 'ms', value: (s) => s.wall_ms, source: () => 'client wall time' },
  { name: 'elapsed_ms', unit: 'ms', value: (s) => s.elapsed_ms, source: (s) => s.elapsed_source },
  { name: 'read_rows', unit: 'rows', value: (s) => s.read_rows, source: (s) => s.read_source, unknown: (s) => s.read_unknown },
  { name: 'read_bytes', unit: 'bytes', value: (s) => s.read_bytes, source: (s) => s.read_source, unknown: (s) => s.read_unknown },
  { name: 'result_rows', unit: 'rows', value: (s) => s.result_rows, source: () => 'client result' },
  { name: 'result_bytes', unit: 'bytes', value: (s) => s.result_bytes, source: () => 'client result' },
  { name: 'memory_usage', unit: 'bytes', value: (s) => s.memory_usage, source: (s) => (s.memory_usage == null ? null : 'system.query_log.memory_usage') },
  ...WORK_COUNTERS.map((c) => counterFigure(c.name, c.unit)),
];

/** The `figures` rows of one measured run: one per {@link SAMPLE_FIGURES} entry (an unknown figure is a row with a null value). */
export function figureRows(s: StoredSample, run?: RunSample): StoredFigure[] {
  return SAMPLE_FIGURES.map((f) => ({
    run_id: s.run_id,
    cell_key: s.cell_key,
    phase: s.phase,
    query_id: s.query_id,
    kind: s.kind,
    n: s.n,
    figure: f.name,
    value: f.value(s, run) ?? null,
    unit: f.unit,
    source: f.source(s, run) ?? null,
    unknown: f.unknown?.(s, run) ?? null,
  }));
}
