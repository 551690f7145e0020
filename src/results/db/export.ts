/**
 * Exports of a stored run in formats other tools read (`chbench export`):
 * - `clickbench`: ClickBench's published result JSON, one document per cell and phase;
 * - `jsonl` / `csv`: one line per `samples` row (one measured query run), with the cell's version
 *   label, server version and codec joined in.
 */
import { sqlString } from '../../lib/sql';
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

/**
 * The SQL of the `jsonl`/`csv` export: every sample row of the run with the cell's version label, server
 * version and codec. An unknown read is an empty field (CSV) / null (JSON) with `read_unknown` saying why, never 0.
 */
export function samplesExportSql(runId: string): string {
  return `SELECT s.run_id AS run_id, s.cell_key AS cell_key, c.version_label AS version_label, c.server_version AS server_version, c.codec AS codec,
    s.phase AS phase, s.query_id AS query_id, s.kind AS kind, s.n AS n, s.server_elapsed_ms AS server_elapsed_ms,
    s.server_elapsed_source AS server_elapsed_source, s.server_resolution_ms AS server_resolution_ms,
    s.server_elapsed_below_ms AS server_elapsed_below_ms, s.wall_ms AS wall_ms, s.elapsed_ms AS elapsed_ms, s.elapsed_source AS elapsed_source, s.read_rows AS read_rows, s.read_bytes AS read_bytes,
    s.read_source AS read_source, s.read_unknown AS read_unknown,
    s.result_rows AS result_rows, s.result_bytes AS result_bytes, s.result_sha256 AS result_sha256,
    s.result_values_sha256 AS result_values_sha256, s.memory_usage AS memory_usage, s.valid AS valid,
    s.invalid_reason AS invalid_reason, s.started_at AS started_at, s.statement_id AS statement_id
  FROM samples AS s INNER JOIN cells AS c ON c.run_id = s.run_id AND c.cell_key = s.cell_key
  WHERE s.run_id = ${sqlString(runId)}
  ORDER BY cell_key, phase, s.query_pos, query_id, indexOf(['cold', 'warmup', 'warm'], kind), n`;
}
