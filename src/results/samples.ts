/**
 * Flat samples: one line per figure of one measured run (PerfKit Benchmarker's `Sample`:
 * `{metric, value, unit, timestamp, metadata}`), so results load straight into a database
 * (`samples.jsonl` beside each `result.json`, and one per run beside `report.md`).
 *
 * A figure the server did not give (`null` in the record) gets no line: a missing line means
 * "unknown", a line never carries 0 or null in place of a measurement. Pure: no I/O.
 */
import type { CellResult, ChbenchVersion, FlatSample, FlatSampleMetadata, QueriesRecord, QueryRecord, RunSample } from '../schema/results';
import { runElapsed } from '../measure/figures';

/** What {@link flatSamples} needs besides the cell result. */
export interface FlatSampleContext {
  /** chbench that measured the cell (`run.json.chbench`); null when unknown. */
  chbench: ChbenchVersion | null;
}

/** Source of the client wall time figures (see `RunSample.wall_ms`). */
export const WALL_TIME_SOURCE = 'client wall time (performance.now() around request and full body read)';

type Figure = [metric: string, value: number | null | undefined, unit: string, source: string];

/**
 * The figures of one query run, in a fixed order; `null` values are dropped by the caller. `elapsed`
 * is the figure the report uses for the run (`runElapsed`: the query's headline clock) with its
 * source; `server_elapsed` is left out when the server's time is below its resolution (never 0).
 */
function runFigures(q: QueryRecord, s: RunSample): Figure[] {
  const readSource = s.read_source ?? 'not available';
  const e = runElapsed(q.stats.timing_source, s);
  const chosen =
    e.elapsed_source === 'client wall time'
      ? `${WALL_TIME_SOURCE}${e.server_elapsed_below_ms !== null ? ` (server time ${e.server_elapsed_source} below its ${e.server_elapsed_below_ms} ms resolution)` : q.stats.timing_note ? ` (${q.stats.timing_note})` : ''}`
      : e.elapsed_source;
  const mem = s.query_log?.memory_usage;
  const memory = mem === undefined || mem === null || mem === '' || !Number.isFinite(Number(mem)) ? null : Number(mem);
  return [
    ['elapsed', e.elapsed_ms, 'ms', chosen],
    ['server_elapsed', e.server_elapsed_ms, 'ms', s.server_elapsed_source ?? 'not available'],
    ['wall_time', s.wall_ms, 'ms', WALL_TIME_SOURCE],
    // A 0 read (older records took the engines' 0 statistics as figures) is unknown: no line.
    ['read_rows', s.read_rows === 0 ? null : s.read_rows, 'rows', readSource],
    ['read_bytes', s.read_bytes === 0 ? null : s.read_bytes, 'bytes', readSource],
    ['result_rows', s.result_rows, 'rows', 'rows of the result received by the client'],
    ['result_bytes', s.result_bytes, 'bytes', 'bytes of the result body received by the client (JSONCompact)'],
    ['memory_usage', memory, 'bytes', 'system.query_log.memory_usage'],
  ];
}

/** Metric names a query run can produce, in line order (a run's lines are a subset, in this order). */
export const RUN_METRICS = ['elapsed', 'server_elapsed', 'wall_time', 'read_rows', 'read_bytes', 'result_rows', 'result_bytes', 'memory_usage'] as const;

/**
 * Flatten a cell result into samples: per query run (baseline and index phase, cold, warm-up and
 * warm runs) one line per {@link RUN_METRICS} figure the run has; for the load its client wall time,
 * server elapsed and rows/s; for the table its bytes on disk, compressed and uncompressed bytes and
 * compression ratio. Lines with a `null` value are not written.
 * @param r the cell's `result.json` record.
 * @returns samples in record order (load, storage, then queries by phase, query and run).
 */
export function flatSamples(r: CellResult, ctx: FlatSampleContext): FlatSample[] {
  const timestamp = Date.parse(r.written_at) / 1000;
  // Every key in schema order (later spreads override values, not positions), so lines read alike.
  const base: FlatSampleMetadata = {
    run: r.runId,
    cell: r.cellKey,
    version_label: r.matrix.version,
    version: r.provision?.server.version ?? null,
    codec: r.matrix.codec,
    target: r.target_kind,
    workload: r.workload,
    scale: r.scale,
    query: null,
    phase: null,
    kind: 'storage',
    try: null,
    query_id: null,
    cold_valid: null,
    quiet_valid: null,
    source: '',
    chbench_version: ctx.chbench?.version ?? null,
    chbench_commit: ctx.chbench?.commit ?? null,
  };
  const out: FlatSample[] = [];
  const push = (figures: Figure[], meta: FlatSampleMetadata, resolution: Partial<Record<string, number | null>> = {}) => {
    for (const [metric, value, unit, source] of figures)
      if (value !== null && value !== undefined && Number.isFinite(value))
        out.push({ metric, value, unit, timestamp, metadata: { ...meta, source, ...(metric in resolution ? { server_resolution_ms: resolution[metric] ?? null } : {}) } });
  };
  if (r.load)
    push(
      [
        ['load_wall_time', r.load.elapsed_ms, 'ms', `${WALL_TIME_SOURCE} of the INSERT … SELECT`],
        ['load_server_elapsed', r.load.server_elapsed_ms, 'ms', r.load.server_elapsed_source],
        ['load_rows_per_s', r.load.rows_per_s, 'rows/s', 'count() after loading / client wall time'],
      ],
      { ...base, kind: 'load', query_id: r.load.query_id },
    );
  if (r.storage)
    push(
      [
        ['bytes_on_disk', r.storage.bytes_on_disk, 'bytes', 'system.parts sum(bytes_on_disk), active parts'],
        ['compressed_bytes', r.storage.compressed_bytes, 'bytes', 'system.parts sum(data_compressed_bytes), active parts'],
        ['uncompressed_bytes', r.storage.uncompressed_bytes, 'bytes', 'system.parts sum(data_uncompressed_bytes), active parts'],
        ['compression_ratio', r.storage.ratio, 'ratio', 'system.parts sum(data_uncompressed_bytes) / sum(data_compressed_bytes)'],
      ],
      { ...base, kind: 'storage' },
    );
  for (const rec of [r.queries_baseline, r.queries_index] as (QueriesRecord | null)[])
    for (const q of rec?.queries ?? [])
      for (const s of q.samples) {
        const e = runElapsed(q.stats.timing_source, s);
        // The server time's resolution goes with both time lines (also when the server's figure is below it).
        const res = { elapsed: e.server_resolution_ms, server_elapsed: e.server_resolution_ms };
        push(runFigures(q, s), {
          ...base,
          query: q.id,
          phase: rec!.phase,
          kind: s.kind,
          try: s.n,
          query_id: s.query_id,
          // Optional chaining: the writer does not parse step files, and a sample line is never worth failing a cell.
          cold_valid: s.kind === 'cold' ? (s.validity?.cold?.valid ?? null) : null,
          quiet_valid: s.validity?.quiet?.valid ?? null,
        }, res);
      }
  return out;
}

/** Samples as JSON lines (one object per line, `\n`-terminated; empty string for none). */
export function toJsonLines(samples: FlatSample[]): string {
  return samples.map((s) => JSON.stringify(s) + '\n').join('');
}
