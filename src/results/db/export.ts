/**
 * Exports of a stored run in formats other tools read (`chbench export`):
 * - `clickbench`: ClickBench's published result JSON, one document per cell and phase;
 * - `jsonl` / `csv`: one line per `query_runs` row (one measured query run), with the cell's version
 *   label, server version and codec joined in and every one of its `figures` rows as columns
 *   ({@link samplesExportSql}).
 */
import { sqlString } from '../../lib/sql';
import { SAMPLE_FIGURES, SAMPLES_COLUMN_FIGURES } from './rows';
import type { ResultsDb, StoredCell, StoredSample } from './types';

/** ClickBench's result record (`<system>/results/*.json` in the ClickBench repository). Times in seconds, sizes in bytes. */
export interface ClickBenchResult {
  system: string;
  /** `YYYY-MM-DD` of the run's start. */
  date: string;
  machine: string;
  cluster_size: number;
  proprietary: 'no' | 'yes';
  tuned: 'no' | 'yes';
  comment: string;
  tags: string[];
  /** Client wall time of the load (INSERT … SELECT), seconds; null when the cell has no load record. */
  load_time: number | null;
  /** `system.parts` sum(bytes_on_disk) of active parts after the load, bytes; null when unknown. */
  data_size: number | null;
  /** Per query, in report.md's order (the run's query order): [cold, warm 1, warm 2] seconds, null for a try that is missing. */
  result: (number | null)[][];
}

/** Source of a ClickBench try's time, stated in each document's comment. */
export const CLICKBENCH_TIMING =
  'per query, the figure report.md uses (the samples\' elapsed_ms / elapsed_source: server-side elapsed, or client wall time where the server\'s time is missing or too coarse, e.g. under query_duration_ms\'s 1 ms resolution); tries = the first cold run, then the first two warm runs';

/**
 * ClickBench documents of a stored run: one per cell with query samples and per phase
 * (`baseline`, and `index` tagged `skip index`).
 * @throws Error when the run is not in the database
 */
export async function clickBenchResults(db: ResultsDb, runId: string): Promise<{ name: string; doc: ClickBenchResult }[]> {
  const run = await db.run(runId);
  if (!run) throw new Error(`no run ${runId} in the results database (${db.description})`);
  const [cells, samples] = await Promise.all([db.cells(runId), db.samples(runId)]);
  const out: { name: string; doc: ClickBenchResult }[] = [];
  for (const cell of cells)
    for (const phase of ['baseline', 'index'] as const) {
      const mine = samples.filter((s) => s.cell_key === cell.cell_key && s.phase === phase);
      if (!mine.length) continue;
      // report.md's order (each query's position in its phase record); rows stored before schema 2: by id.
      const pos = (q: string) => Math.min(...mine.filter((s) => s.query_id === q).map((s) => s.query_pos ?? Infinity));
      const queries = [...new Set(mine.map((s) => s.query_id))].sort((a, b) => pos(a) - pos(b) || a.localeCompare(b, 'en', { numeric: true }));
      out.push({ name: `${cell.cell_key}.${phase}`, doc: clickBenchDoc(run.started_at, runId, cell, phase, queries, mine) });
    }
  return out;
}

function clickBenchDoc(startedAt: string, runId: string, cell: StoredCell, phase: 'baseline' | 'index', queries: string[], samples: StoredSample[]): ClickBenchResult {
  const facts = JSON.parse(cell.facts_json) as { server?: { cpus: number | null; memory_bytes: number | null } | null };
  const cpus = facts.server?.cpus;
  const mem = facts.server?.memory_bytes;
  const result = queries.map((q) => {
    const pick = (kind: string, n: number) => samples.find((s) => s.query_id === q && s.kind === kind && s.n === n);
    const tries = [pick('cold', 1), pick('warm', 1), pick('warm', 2)];
    // The report's figure (elapsed_ms: the query's headline clock); rows stored before schema 2 have none.
    if (tries.every((t) => !t || (t.elapsed_ms !== null && t.elapsed_ms !== undefined))) return tries.map((t) => (t ? t.elapsed_ms! / 1000 : null));
    const server = tries.every((t) => t && t.server_elapsed_ms !== null);
    return tries.map((t) => (t ? (server ? t.server_elapsed_ms! : t.wall_ms) / 1000 : null));
  });
  return {
    system: `ClickHouse ${cell.server_version ?? cell.version_label} (chbench, ${cell.target_kind})`,
    date: startedAt.slice(0, 10),
    machine: `${cpus ?? '?'} vCPU, ${mem ? `${(mem / 2 ** 30).toFixed(0)} GiB` : '? GiB'} (${cell.target_kind})`,
    cluster_size: 1,
    proprietary: 'no',
    tuned: 'no',
    comment: `chbench run ${runId}, cell ${cell.cell_key}, phase ${phase}, workload ${cell.workload} (${cell.scale} rows), codec ${cell.codec}. Times: ${CLICKBENCH_TIMING}.`,
    tags: ['ClickHouse', 'chbench', cell.workload, cell.codec, cell.target_kind, phase === 'index' ? 'skip index' : 'no skip index'],
    load_time: cell.load_elapsed_ms === null ? null : cell.load_elapsed_ms / 1000,
    data_size: cell.bytes_on_disk,
    result,
  };
}

/** A ClickHouse identifier in backquotes (a figure name read from the database). */
function ident(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

/**
 * The figures of a stored run the `jsonl`/`csv` export appends after the columns of the wide
 * `samples` table: every figure name of the run's `figures` rows except {@link SAMPLES_COLUMN_FIGURES},
 * in {@link SAMPLE_FIGURES} order (names this chbench does not list last, by name). So a figure
 * added to `SAMPLE_FIGURES` (or a work counter to `WORK_COUNTERS`) is exported with no other edit.
 * @throws Error when the database fails
 */
export async function exportedExtraFigures(db: ResultsDb, runId: string): Promise<string[]> {
  const names = (await db.query<{ figure: string }>(`SELECT DISTINCT figure FROM figures WHERE run_id = ${sqlString(runId)}`)).map((r) => r.figure);
  const legacy = new Set<string>(SAMPLES_COLUMN_FIGURES);
  const order = (n: string) => {
    const i = SAMPLE_FIGURES.findIndex((f) => f.name === n);
    return i < 0 ? SAMPLE_FIGURES.length : i;
  };
  return names.filter((n) => !legacy.has(n)).sort((a, b) => order(a) - order(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The SQL of the `jsonl`/`csv` export: one row per `query_runs` row of the run (one measured query
 * run) with the cell's version label, server version and codec, and its figures from `figures`:
 * first the columns of the wide `samples` table (schema 1–4) in their order and types, so that
 * output is byte for byte what the export wrote when it read `samples`, then for each name of
 * `extra` ({@link exportedExtraFigures}) four columns: `<figure>` (value, in its unit),
 * `<figure>_unit`, `<figure>_source` (system table/column or API) and `<figure>_unknown` (why the
 * value is null). An unknown figure is an empty field (CSV) / null (JSON) with its `…_unknown`
 * (`read_unknown` for reads) saying why, never 0.
 */
export function samplesExportSql(runId: string, extra: readonly string[] = []): string {
  const v = (figure: string) => `anyIf(value, figure = ${sqlString(figure)})`;
  const of = (col: string, figure: string) => `anyIf(${col}, figure = ${sqlString(figure)})`;
  const inner = extra.flatMap((x, i) => [`${v(x)} AS v_${i}`, `${of('unit', x)} AS u_${i}`, `${of('source', x)} AS s_${i}`, `${of('unknown', x)} AS k_${i}`]);
  const outer = extra.flatMap((x, i) => [`f.v_${i} AS ${ident(x)}`, `f.u_${i} AS ${ident(`${x}_unit`)}`, `f.s_${i} AS ${ident(`${x}_source`)}`, `f.k_${i} AS ${ident(`${x}_unknown`)}`]);
  return `SELECT q.run_id AS run_id, q.cell_key AS cell_key, c.version_label AS version_label, c.server_version AS server_version, c.codec AS codec,
    q.phase AS phase, q.query_id AS query_id, q.kind AS kind, q.n AS n, f.server_elapsed_ms AS server_elapsed_ms,
    f.server_elapsed_source AS server_elapsed_source, q.server_resolution_ms AS server_resolution_ms,
    q.server_elapsed_below_ms AS server_elapsed_below_ms, f.wall_ms AS wall_ms, f.elapsed_ms AS elapsed_ms, f.elapsed_source AS elapsed_source, f.read_rows AS read_rows, f.read_bytes AS read_bytes,
    f.read_source AS read_source, f.read_unknown AS read_unknown,
    f.result_rows AS result_rows, f.result_bytes AS result_bytes, q.result_sha256 AS result_sha256,
    q.result_values_sha256 AS result_values_sha256, f.memory_usage AS memory_usage, q.valid AS valid,
    q.invalid_reason AS invalid_reason, q.started_at AS started_at, q.statement_id AS statement_id${outer.map((c) => `,\n    ${c}`).join('')}
  FROM query_runs AS q
  INNER JOIN cells AS c ON c.run_id = q.run_id AND c.cell_key = q.cell_key
  LEFT JOIN (
    SELECT run_id, cell_key, phase, query_id, kind, n,
      ${v('server_elapsed_ms')} AS server_elapsed_ms, ${of('source', 'server_elapsed_ms')} AS server_elapsed_source,
      ${v('wall_ms')} AS wall_ms, ${v('elapsed_ms')} AS elapsed_ms, ${of('source', 'elapsed_ms')} AS elapsed_source,
      CAST(${v('read_rows')}, 'Nullable(UInt64)') AS read_rows, CAST(${v('read_bytes')}, 'Nullable(UInt64)') AS read_bytes,
      coalesce(${of('source', 'read_rows')}, ${of('source', 'read_bytes')}) AS read_source,
      coalesce(${of('unknown', 'read_rows')}, ${of('unknown', 'read_bytes')}) AS read_unknown,
      toUInt64(ifNull(${v('result_rows')}, 0)) AS result_rows, CAST(${v('result_bytes')}, 'Nullable(UInt64)') AS result_bytes,
      CAST(${v('memory_usage')}, 'Nullable(UInt64)') AS memory_usage${inner.map((c) => `,\n      ${c}`).join('')}
    FROM figures WHERE run_id = ${sqlString(runId)}
    GROUP BY run_id, cell_key, phase, query_id, kind, n
  ) AS f ON f.run_id = q.run_id AND f.cell_key = q.cell_key AND f.phase = q.phase AND f.query_id = q.query_id AND f.kind = q.kind AND f.n = q.n
  WHERE q.run_id = ${sqlString(runId)}
  ORDER BY q.cell_key, q.phase, q.query_pos, q.query_id, indexOf(['cold', 'warmup', 'warm'], q.kind), q.n`;
}

/**
 * The `jsonl` (JSONEachRow) or `csv` (CSVWithNames, NULL as an empty field) export of a stored run:
 * {@link samplesExportSql} with the run's {@link exportedExtraFigures}.
 * @throws Error when the database fails
 */
export async function samplesExport(db: ResultsDb, runId: string, format: 'jsonl' | 'csv'): Promise<string> {
  const extra = await exportedExtraFigures(db, runId);
  return db.queryText(samplesExportSql(runId, extra), format === 'csv' ? 'CSVWithNames' : 'JSONEachRow');
}
