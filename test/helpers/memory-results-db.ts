/**
 * TEST DOUBLE: an in-memory {@link ResultsDb} for the comparison's unit and activity tests. It is not
 * the results database (that is `src/results/db/`): it keeps rows in arrays, answers only the
 * methods the comparison uses, and is filled either from a real results folder (`storeRun`, the
 * fixture `test/fixtures/results/embedded-26.7`) or from synthetic runs ({@link syntheticRun}).
 */
import seedrandom from 'seedrandom';
import type {
  BisectRow,
  ResultsDb,
  SeriesPoint,
  StoredCell,
  StoredFigure,
  StoredRun,
  StoredSample,
} from '../../src/results/db/types';
import type { ComparisonRecord } from '../../src/schema/comparison';
import { lognormalSamples } from '../../src/measure/compare';
import { figureRows, readRunRows } from '../../src/results/db/rows';
import { sanitizePathSegment } from '../../src/lib/fs';

/** In-memory rows; `storeRun` reads `run.json` and each cell's `result.json` of a results folder. */
export class MemoryResultsDb implements ResultsDb {
  readonly description = 'in-memory test double';
  runs: StoredRun[] = [];
  cellRows: StoredCell[] = [];
  sampleRows: StoredSample[] = [];
  figureRows: StoredFigure[] = [];
  comparisons: ComparisonRecord[] = [];
  closed = false;

  /** Rows from a results folder, read by the real store's reader (`readRunRows`). */
  async storeRun(runDir: string) {
    const { run, cells, samples, figures, verdicts } = readRunRows(runDir);
    this.add(run, cells, samples, figures);
    return { runs: 1, cells: cells.length, samples: samples.length, comparisons: 0, verdicts: verdicts.length };
  }

  async queryText(): Promise<string> {
    throw new Error('MemoryResultsDb: no SQL (use the real results database)');
  }

  /** Replace a run's rows (as the real store does: idempotent). */
  add(
    run: StoredRun,
    cells: StoredCell[],
    samples: StoredSample[],
    figures: StoredFigure[] = samples.flatMap((s) => figureRows(s)),
  ): void {
    this.figureRows = [...this.figureRows.filter((f) => f.run_id !== run.run_id), ...figures];
    this.runs = [...this.runs.filter((r) => r.run_id !== run.run_id), run];
    this.cellRows = [...this.cellRows.filter((c) => c.run_id !== run.run_id), ...cells];
    this.sampleRows = [...this.sampleRows.filter((s) => s.run_id !== run.run_id), ...samples];
  }

  async storeComparison(c: ComparisonRecord) {
    this.comparisons = [...this.comparisons.filter((x) => x.run_id !== c.run_id), c];
  }
  async run(runId: string) {
    return this.runs.find((r) => r.run_id === runId);
  }
  /** As the real store: the id itself, else the one run id whose folder name (`sanitizePathSegment`) it is. */
  async resolveRunId(given: string) {
    if (this.runs.some((r) => r.run_id === given)) return given;
    const ids = this.runs.map((r) => r.run_id).filter((id) => sanitizePathSegment(id) === given);
    return ids.length === 1 ? ids[0] : undefined;
  }
  async cells(runId: string) {
    return this.cellRows.filter((c) => c.run_id === runId);
  }
  async samples(runId: string, cellKey?: string) {
    return this.sampleRows.filter((s) => s.run_id === runId && (cellKey === undefined || s.cell_key === cellKey));
  }
  async figures(runId: string) {
    return this.figureRows.filter((f) => f.run_id === runId);
  }
  /** Not answered by the double (the bisect's reuse is tested on the real results database). */
  async reusableCell(): Promise<undefined> {
    throw new Error('MemoryResultsDb: reusableCell is not answered (use the real results database)');
  }
  bisectRows: BisectRow[] = [];
  async storeBisect(row: BisectRow) {
    this.bisectRows = [...this.bisectRows.filter((b) => b.run_id !== row.run_id), row];
  }
  async bisects(runId?: string) {
    return this.bisectRows.filter((b) => runId === undefined || b.run_id === runId);
  }
  async comparison(runId: string) {
    return this.comparisons.find((c) => c.run_id === runId);
  }
  async previousSuccessfulRun(scheduleId: string, beforeStartedAt: string) {
    return this.runs
      .filter(
        (r) =>
          r.schedule_id === scheduleId &&
          r.started_at < beforeStartedAt &&
          r.status === 'completed' &&
          r.cells_succeeded > 0,
      )
      .sort((a, b) => b.started_at.localeCompare(a.started_at))[0];
  }
  async series(): Promise<SeriesPoint[]> {
    throw new Error('MemoryResultsDb.series: not used by the comparison');
  }
  async query<T>(): Promise<T[]> {
    throw new Error('MemoryResultsDb.query: not used by the comparison');
  }
  async close() {
    this.closed = true;
  }
}

/** A synthetic query of a synthetic run: warm times lognormal around `medianMs`. */
export interface SyntheticQuery {
  id: string;
  phase?: 'baseline' | 'index';
  medianMs: number;
}

/**
 * A synthetic run: per cell and query, 1 cold, 1 warm-up and `warm` warm runs of lognormal noise
 * `sigma` around the query's median (times `slow[queryId]` for a slowed query), server-side elapsed
 * from the HTTP summary and a wall time 1 ms above it. Deterministic from `seed`.
 */
export function syntheticRun(p: {
  runId: string;
  startedAt?: string;
  scheduleId?: string | null;
  status?: string;
  cells: { version: string; codec: string; settings?: Record<string, unknown>; status?: string; repetition?: number }[];
  queries: SyntheticQuery[];
  warm: number;
  sigma: number;
  slow?: Record<string, number>;
  /** Per cell key, per query id: a factor (applied after `slow`). */
  slowCell?: Record<string, Record<string, number>>;
  seed: string;
  workload?: string;
  scale?: number;
}): { run: StoredRun; cells: StoredCell[]; samples: StoredSample[] } {
  const rng = seedrandom(p.seed);
  const workload = p.workload ?? 'logs';
  const scale = p.scale ?? 1_000_000;
  const cells: StoredCell[] = p.cells.map((c) => ({
    run_id: p.runId,
    cell_key: `v${c.version}-${c.codec.toLowerCase().replace(/[()]/g, '')}${c.repetition ? `-r${c.repetition}` : ''}`,
    version_label: c.version,
    server_version: `${c.version}.1.1`,
    codec: c.codec,
    target_kind: 'embedded',
    workload,
    scale,
    settings_json: JSON.stringify(c.settings ?? {}),
    status: c.status ?? 'succeeded',
    error: c.status && c.status !== 'succeeded' ? 'synthetic failure' : null,
    facts_json: '{}',
    written_at: null,
    load_rows: null,
    load_elapsed_ms: null,
    load_rows_per_s: null,
    bytes_on_disk: null,
    compressed_bytes: null,
    uncompressed_bytes: null,
    compression_ratio: null,
  }));
  const samples: StoredSample[] = [];
  for (const cell of cells) {
    if (cell.status !== 'succeeded') continue;
    for (const q of p.queries) {
      const factor = (p.slow?.[q.id] ?? 1) * (p.slowCell?.[cell.cell_key]?.[q.id] ?? 1);
      const warm = lognormalSamples(rng, p.warm, q.medianMs * factor, p.sigma);
      const runs: { kind: StoredSample['kind']; n: number; ms: number }[] = [
        { kind: 'cold', n: 1, ms: q.medianMs * factor * 3 },
        { kind: 'warmup', n: 1, ms: q.medianMs * factor * 1.3 },
        ...warm.map((ms, i) => ({ kind: 'warm' as const, n: i + 1, ms })),
      ];
      for (const r of runs)
        samples.push({
          run_id: p.runId,
          cell_key: cell.cell_key,
          phase: q.phase ?? 'baseline',
          query_id: q.id,
          kind: r.kind,
          n: r.n,
          server_elapsed_ms: r.ms,
          server_elapsed_source: 'http summary elapsed_ns',
          wall_ms: r.ms + 1,
          read_rows: 1000,
          read_bytes: 8000,
          result_rows: 1,
          result_bytes: 10,
          result_sha256: 'x',
          valid: true,
          invalid_reason: null,
          started_at: null,
          statement_id: `${p.runId}-${cell.cell_key}-${q.id}-${r.kind}${r.n}`,
        });
    }
  }
  const run: StoredRun = {
    run_id: p.runId,
    name: 'synthetic',
    workload,
    scale,
    target_kind: 'embedded',
    spec_hash: 'synthetic',
    spec_json: '{}',
    chbench_version: '0.3.0',
    chbench_commit: null,
    schedule_id: p.scheduleId ?? null,
    started_at: p.startedAt ?? '2026-01-01T00:00:00.000Z',
    finished_at: p.startedAt ?? '2026-01-01T00:00:00.000Z',
    status: p.status ?? 'completed',
    cells_total: cells.length,
    cells_succeeded: cells.filter((c) => c.status === 'succeeded').length,
  };
  return { run, cells, samples };
}
