/**
 * A series of one figure over the stored runs of a schedule or a workload (`chbench series`): per run,
 * cell, phase and query, one value from the run's `figures` rows (schema 4), with its unit and source.
 * Read with {@link ResultsDb.query} (plain read-only SQL), so it works on the embedded database and on
 * a team's server alike.
 */
import { median } from 'simple-statistics';
import { sqlString } from '../../lib/sql';
import { fromDbTime, SAMPLE_FIGURES } from './rows';
import type { ResultsDb, StoredFigure } from './types';

/** Which runs form the series: those a Temporal schedule started (`runs.schedule_id`), or every run of a workload (`runs.workload`). */
export type SeriesSelection = { scheduleId: string } | { workload: string };

/**
 * The figures a series can follow (`--figure`):
 * - `warm`: the median of the run's valid warm runs, server-side elapsed (`server_elapsed_ms`) when
 *   every one of them has it, else client wall time (`wall_ms`), ms — the rule of `ResultsDb.series()`,
 *   so it is report.html's series value;
 * - `cold`: the same over the valid cold runs;
 * - a `figures` name ({@link SAMPLE_FIGURES}: `read_rows`, `read_bytes`, `SelectedMarks`, `memory_usage`, …):
 *   the median of its known values over the valid warm runs, in its own unit.
 */
export const SERIES_FIGURES: readonly string[] = ['warm', 'cold', ...SAMPLE_FIGURES.map((f) => f.name)];

/** Default number of runs {@link figureSeries} looks back. */
export const DEFAULT_FIGURE_SERIES_LIMIT = 40;

/** One point of a figure series: one query's value in one cell and phase of one run. */
export interface FigureSeriesPoint {
  run_id: string;
  /** `runs.started_at`, ISO (UTC). */
  started_at: string;
  /** `runs.status` (`completed`, `failed`, …). */
  status: string | null;
  cell_key: string;
  version_label: string;
  /** `SELECT version()` of the cell's server (`cells.server_version`); null if never reached. */
  server_version: string | null;
  phase: 'baseline' | 'index';
  query_id: string;
  /** The followed figure (one of {@link SERIES_FIGURES}). */
  figure: string;
  /** The `figures` row name the value was taken from (`server_elapsed_ms` or `wall_ms` for warm/cold). */
  from_figure: string;
  /** Median over `runs` measured runs, in `unit`; null when none of them had the figure (see `unknown`). */
  value: number | null;
  unit: StoredFigure['unit'];
  /** The measured runs' sources of the figure (`figures.source`, distinct, e.g. `system.query_log query_duration_ms`). */
  sources: string[];
  /** How many valid measured runs of the kind gave a value. */
  runs: number;
  /** Why the value is null: the `figures.unknown` reasons, distinct; empty otherwise. */
  unknown: string[];
}

interface Row {
  run_id: string;
  started_at: string;
  status: string | null;
  cell_key: string;
  version_label: string;
  server_version: string | null;
  phase: 'baseline' | 'index';
  query_id: string;
  figure: string;
  unit: StoredFigure['unit'];
  vals: (number | string)[];
  total: number | string;
  sources: string[];
  unknowns: string[];
}

/**
 * The series of `figure` over the last `limit` runs (default {@link DEFAULT_FIGURE_SERIES_LIMIT}) of
 * `sel`, whatever their status, oldest run first, then by cell, phase and query. Invalid measured runs
 * (`samples.valid = 0`: not cold, not quiet) are left out. `query` keeps one query id.
 * @throws Error for a figure not in {@link SERIES_FIGURES}; what {@link ResultsDb.query} throws
 */
export async function figureSeries(
  db: ResultsDb,
  sel: SeriesSelection,
  figure: string,
  opts: { query?: string; limit?: number } = {},
): Promise<FigureSeriesPoint[]> {
  if (!SERIES_FIGURES.includes(figure)) throw new Error(`unknown figure ${figure}: expected one of ${SERIES_FIGURES.join(', ')}`);
  const limit = Math.max(1, Math.floor(opts.limit ?? DEFAULT_FIGURE_SERIES_LIMIT));
  const which = 'scheduleId' in sel ? `schedule_id = ${sqlString(sel.scheduleId)}` : `workload = ${sqlString(sel.workload)}`;
  const time = figure === 'warm' || figure === 'cold';
  const kind = figure === 'cold' ? 'cold' : 'warm';
  const names = time ? ['server_elapsed_ms', 'wall_ms'] : [figure];
  const rows = await db.query<Row>(
    `SELECT f.run_id AS run_id, r.started_at AS started_at, r.status AS status, f.cell_key AS cell_key,
      c.version_label AS version_label, c.server_version AS server_version, f.phase AS phase, f.query_id AS query_id,
      f.figure AS figure, any(f.unit) AS unit, groupArray(f.value) AS vals, count() AS total,
      groupUniqArray(f.source) AS sources, groupUniqArray(f.unknown) AS unknowns
    FROM figures AS f
    INNER JOIN (SELECT run_id, started_at, status FROM runs WHERE ${which} ORDER BY started_at DESC LIMIT ${limit}) AS r ON r.run_id = f.run_id
    INNER JOIN cells AS c ON c.run_id = f.run_id AND c.cell_key = f.cell_key
    WHERE f.kind = ${sqlString(kind)} AND f.figure IN (${names.map(sqlString).join(', ')})${opts.query === undefined ? '' : ` AND f.query_id = ${sqlString(opts.query)}`}
      AND (f.run_id, f.cell_key, f.phase, f.query_id, f.kind, f.n) NOT IN (SELECT run_id, cell_key, phase, query_id, kind, n FROM samples WHERE valid = 0)
    GROUP BY run_id, started_at, status, cell_key, version_label, server_version, phase, query_id, figure
    ORDER BY started_at, cell_key, phase, query_id, figure`,
  );
  const key = (r: Row) => [r.run_id, r.cell_key, r.phase, r.query_id].join('\u0000');
  const groups = new Map<string, Row[]>();
  for (const r of rows) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  const out: FigureSeriesPoint[] = [];
  for (const rs of groups.values()) {
    // warm/cold: server-side elapsed when every valid run has it, else client wall time.
    const server = rs.find((r) => r.figure === 'server_elapsed_ms');
    const complete = (r: Row | undefined) => !!r && r.vals.length > 0 && r.vals.length === Number(r.total);
    const r = time ? (complete(server) ? server! : (rs.find((x) => x.figure === 'wall_ms') ?? rs[0]!)) : rs[0]!;
    const vals = r.vals.map(Number);
    out.push({
      run_id: r.run_id,
      started_at: fromDbTime(r.started_at)!,
      status: r.status ?? null,
      cell_key: r.cell_key,
      version_label: r.version_label,
      server_version: r.server_version ?? null,
      phase: r.phase,
      query_id: r.query_id,
      figure,
      from_figure: r.figure,
      value: vals.length ? median(vals) : null,
      unit: r.unit,
      sources: [...r.sources].sort(),
      runs: vals.length,
      unknown: vals.length ? [] : [...r.unknowns].sort(),
    });
  }
  return out;
}

/** The schedules (`runs.schedule_id`) and workloads (`runs.workload`) with stored runs, each with its run count, for "no such series" messages. */
export async function seriesNames(db: ResultsDb): Promise<{ schedules: { name: string; runs: number }[]; workloads: { name: string; runs: number }[] }> {
  const rows = await db.query<{ k: string; name: string; runs: number | string }>(
    `SELECT 'schedule' AS k, schedule_id AS name, count() AS runs FROM runs WHERE isNotNull(schedule_id) GROUP BY name
    UNION ALL SELECT 'workload' AS k, workload AS name, count() AS runs FROM runs GROUP BY name`,
  );
  const pick = (k: string) =>
    rows
      .filter((r) => r.k === k)
      .map((r) => ({ name: r.name, runs: Number(r.runs) }))
      .sort((a, b) => a.name.localeCompare(b.name));
  return { schedules: pick('schedule'), workloads: pick('workload') };
}
