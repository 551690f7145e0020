/**
 * `chbench series <schedule|workload> [--query q] [--figure warm|cold|read_rows|…] [--db dir]`: the
 * stored runs of a Temporal schedule (or of a workload) as a series per query, cell, phase and figure,
 * in time order, with its change points and a drift verdict (`src/measure/change-points.ts`
 * {@link seriesChangePoints}: the detector and parameters report.html's series chart uses).
 *
 * The database: `--db <dir>` (an embedded results database's directory), else the options of
 * `chbench results` (`--results-dir`, `--url`/`CHBENCH_RESULTS_URL`, …; `src/cli/results-db.ts`).
 * `<schedule|workload>` is first looked up as a schedule id (`runs.schedule_id`), then as a workload
 * name (`runs.workload`).
 *
 * Exit codes (`RESULTS_EXIT`): 0 printed (whatever was found); 1 the database failed; 2 bad arguments,
 * or no stored run of that schedule or workload; 3 the results database is busy or unreachable.
 */
import path from 'node:path';
import type { Command } from 'commander';
import markdownTable from 'markdown-table';
import {
  MIN_CHANGE_POINT_RUNS,
  MIN_DRIFT_RUNS,
  seriesChangePoints,
  type SeriesChangePoints,
} from '../../measure/change-points';
import {
  DEFAULT_FIGURE_SERIES_LIMIT,
  figureSeries,
  SERIES_FIGURES,
  seriesNames,
  type FigureSeriesPoint,
  type SeriesSelection,
} from '../../results/db/figure-series';
import { openResultsDb, type ResultsDb } from '../../results/db';
import { fail, RESULTS_EXIT } from '../exit-codes';
import { dbErrorCode, withDb, withDbOptions, type DbOptions } from '../results-db';

/** One series: one query in one cell and phase, its points oldest first and what the detector found. */
export interface PrintedSeries {
  query_id: string;
  cell_key: string;
  phase: 'baseline' | 'index';
  figure: string;
  points: FigureSeriesPoint[];
  /** Over the points with a value (`points` without the unknown ones), in the same order. */
  found: SeriesChangePoints;
}

/** What the figure is, for the header line. */
export function figureMeaning(figure: string): string {
  if (figure === 'warm' || figure === 'cold')
    return `median of the run's valid ${figure} runs, ms: server-side elapsed (figures server_elapsed_ms) when every one has it, else client wall time (wall_ms)`;
  return `median of the run's valid warm runs' ${figure} (figures ${figure})`;
}

/** The points grouped into series (by query, cell, phase; in first-seen order) with their change points. */
export function seriesOfPoints(points: FigureSeriesPoint[]): PrintedSeries[] {
  const groups = new Map<string, FigureSeriesPoint[]>();
  for (const p of points) {
    const k = [p.query_id, p.cell_key, p.phase].join('\u0000');
    groups.set(k, [...(groups.get(k) ?? []), p]);
  }
  const out = [...groups.values()].map((ps) => {
    const sorted = ps.slice().sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
    const known = sorted.filter((p) => p.value !== null);
    return {
      query_id: ps[0]!.query_id,
      cell_key: ps[0]!.cell_key,
      phase: ps[0]!.phase,
      figure: ps[0]!.figure,
      points: sorted,
      found: seriesChangePoints(known.map((p) => ({ runId: p.run_id, at: p.started_at, value: p.value! }))),
    };
  });
  return out.sort(
    (a, b) =>
      a.query_id.localeCompare(b.query_id, 'en', { numeric: true }) ||
      a.cell_key.localeCompare(b.cell_key) ||
      (a.phase === b.phase ? 0 : a.phase === 'baseline' ? -1 : 1),
  );
}

/** A value in its unit: ms with 2 decimals under 10 and 1 above; counts as integers with separators. */
export function fmtValue(v: number | null, unit: string): string {
  if (v === null || !Number.isFinite(v)) return 'n/a';
  if (unit === 'ms') return v < 10 ? v.toFixed(2) : v.toFixed(1);
  return Math.round(v).toLocaleString('en-US');
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;
const utc = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');
const fmtP = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

/** One series as text: a heading, its runs, its change points and the drift verdict. */
export function formatSeries(s: PrintedSeries): string {
  const unit = s.points.find((p) => p.value !== null)?.unit ?? s.points[0]?.unit ?? '';
  const phase = s.phase === 'index' ? 'after the skip index' : 'before the skip index';
  const lines = [`${s.query_id} · cell ${s.cell_key} · ${phase} · ${s.figure} (${s.points.length} run(s))`, ''];
  let i = 0;
  const runs = s.points.map((p) => {
    const index = p.value === null ? '–' : String(i++);
    const source =
      p.value === null
        ? `n/a: ${p.unknown.join('; ') || 'no valid measured run'}`
        : `${p.from_figure}, median of ${p.runs} run(s): ${p.sources.join(' / ') || 'no source recorded'}`;
    return [
      index,
      p.run_id,
      utc(p.started_at),
      p.status ?? '',
      p.server_version ?? p.version_label,
      fmtValue(p.value, p.unit),
      p.unit,
      source,
    ];
  });
  lines.push(
    markdownTable([['#', 'run', 'started (UTC)', 'status', 'server', 'value', 'unit', 'source'], ...runs], {
      align: ['r', 'l', 'l', 'l', 'l', 'r', 'l', 'l'],
    }),
    '',
  );
  const f = s.found;
  if (!f.changePointsTested) lines.push(`change points: not tested, ${f.tooFew}`);
  else if (!f.changePoints.length) lines.push(`change points: none (${f.method}; ${f.runs} runs)`);
  else {
    lines.push(`change points (${f.changePoints.length}; ${f.method}; ${f.runs} runs):`, '');
    lines.push(
      markdownTable(
        [
          ['index', 'run', 'started (UTC)', `before → after (mean, ${unit})`, 'change', 'p-value', 'method'],
          ...f.changePoints.map((c) => [
            String(c.index),
            c.runId,
            utc(c.at),
            `${fmtValue(c.meanBefore, unit)} → ${fmtValue(c.meanAfter, unit)}`,
            pct(c.relativeChange),
            fmtP(c.pValue),
            'E-divisive means',
          ]),
        ],
        { align: ['r', 'l', 'l', 'r', 'r', 'r', 'l'] },
      ),
    );
  }
  const d = f.drift;
  if (!d) lines.push(`drift: not tested, ${f.runs} run(s) (Mann-Kendall needs at least ${MIN_DRIFT_RUNS})`);
  else
    lines.push(
      `drift: ${d.significant ? 'yes' : 'no'} (${f.driftMethod}: S = ${d.s}, p ${fmtP(d.pValue)}; Sen's slope ${pct(d.relativeSlopePerRun)} per run, ${pct(d.relativeChange)} over the series)` +
        (d.significant && f.changePoints.length
          ? '; a step also reads as a trend: the change point(s) above may account for it'
          : ''),
    );
  return lines.join('\n');
}

/**
 * The selection `given` names: a schedule id with stored runs, else a workload with stored runs.
 * @returns undefined (and the names there are) when neither has a run
 */
async function selectionOf(
  db: ResultsDb,
  given: string,
): Promise<{ sel: SeriesSelection; what: string } | { known: Awaited<ReturnType<typeof seriesNames>> }> {
  const known = await seriesNames(db);
  if (known.schedules.some((s) => s.name === given)) return { sel: { scheduleId: given }, what: `schedule ${given}` };
  if (known.workloads.some((w) => w.name === given)) return { sel: { workload: given }, what: `workload ${given}` };
  return { known };
}

/** Print the series of `given` from `db`. Exits 2 when no run is stored for it. */
async function printSeries(
  db: ResultsDb,
  given: string,
  o: { query?: string; figure: string; limit: number },
): Promise<void> {
  const s = await selectionOf(db, given);
  if ('known' in s) {
    const list = (xs: { name: string; runs: number }[]) => xs.map((x) => `${x.name} (${x.runs})`).join(', ') || 'none';
    fail(
      RESULTS_EXIT.invalid,
      `no stored run of a schedule or workload named ${given} in the results database (${db.description}); schedules: ${list(s.known.schedules)}; workloads: ${list(s.known.workloads)}`,
    );
  }
  const points = await figureSeries(db, s.sel, o.figure, { ...(o.query ? { query: o.query } : {}), limit: o.limit });
  const runs = [...new Set(points.map((p) => p.run_id))];
  console.log(
    `series of ${s.what}: ${runs.length} run(s)${points.length ? ` from ${utc(points[0]!.started_at)} to ${utc(points[points.length - 1]!.started_at)}` : ''}, figure ${o.figure} (${figureMeaning(o.figure)}); results database ${db.description}`,
  );
  if (!points.length) {
    console.log(
      o.query
        ? `no measured ${o.figure} figure of query ${o.query} in those runs`
        : `no measured ${o.figure} figure in those runs`,
    );
    return;
  }
  for (const x of seriesOfPoints(points)) console.log(`\n${formatSeries(x)}`);
  console.log(
    `\nChange points need at least ${MIN_CHANGE_POINT_RUNS} runs, a drift ${MIN_DRIFT_RUNS}; index = position among the runs with a value, the first run after the change.`,
  );
}

/** Add `series <schedule|workload>` to the chbench program. */
export function registerSeriesCommand(program: Command): void {
  withDbOptions(program.command('series <schedule|workload>'))
    .description(
      'print the stored runs of a schedule (or of a workload) per query and figure, in time order, with their change points (E-divisive means + permutation test) and a Mann-Kendall drift verdict',
    )
    .option('--query <id>', 'one query id (default: every query)')
    .option('--figure <figure>', `figure followed: ${SERIES_FIGURES.join(' | ')}`, 'warm')
    .option('--limit <n>', 'the last n runs', String(DEFAULT_FIGURE_SERIES_LIMIT))
    .option('--db <dir>', 'an embedded results database directory (instead of <results-dir>/db or --url)')
    .addHelpText(
      'after',
      `
<schedule|workload>: a schedule id (runs.schedule_id), else a workload name (runs.workload).

Exit codes: 0 printed; 1 the database failed; 2 bad arguments or no stored run of that schedule or
workload; 3 results database busy or unreachable
`,
    )
    .action(async (given: string, o: DbOptions & { query?: string; figure: string; limit: string; db?: string }) => {
      if (!SERIES_FIGURES.includes(o.figure))
        fail(RESULTS_EXIT.invalid, `--figure ${o.figure}: expected one of ${SERIES_FIGURES.join(', ')}`);
      const limit = Number(o.limit);
      if (!/^\d+$/.test(o.limit) || limit < 1)
        fail(RESULTS_EXIT.invalid, `--limit ${o.limit}: expected a whole number of runs above 0`);
      if (o.db && o.url) fail(RESULTS_EXIT.invalid, '--db and --url both name a results database: give one');
      const run = async (db: ResultsDb) => {
        try {
          await printSeries(db, given, { ...(o.query ? { query: o.query } : {}), figure: o.figure, limit });
        } catch (e) {
          fail(dbErrorCode(e), (e as Error).message);
        }
      };
      if (!o.db) return withDb(o, run);
      let db: ResultsDb;
      try {
        db = await openResultsDb({ kind: 'embedded', dir: path.resolve(o.db) });
      } catch (e) {
        fail(dbErrorCode(e), (e as Error).message);
      }
      try {
        await run(db);
      } finally {
        await db.close();
      }
    });
}
