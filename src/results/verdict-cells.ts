/**
 * What the verdicts read of a run folder (`src/measure/verdicts.ts`): each cell's place in the matrix
 * (from the spec's expansion, the A/A control included) and its figures — per query the valid cold and
 * warm runs (`result.json` `queries_baseline` / `queries_index`; validity as `sampleValidity` judges it),
 * the values' result hash, read_rows, the load's rows/s (`load.json`) and bytes on disk (`storage.json`,
 * `system.parts`). Reads files; no database.
 */
import { SHIPPED, cellKey, expandMatrix, matrixAxes, type MatrixAxes } from '../schema/matrix';
import type { CellResult, QueryRecord, RunSample } from '../schema/results';
import type { RunSpec } from '../schema/run-spec';
import type { RunSet, VerdictCell, VerdictQuery } from '../measure/verdicts';
import { medianOrNull } from '../measure/verdicts';
import { sampleValidity } from './db/rows';
import { loadRun } from './sections/section';

function runSet(samples: readonly RunSample[], kind: 'cold' | 'warm'): RunSet {
  const kept = samples.filter((s) => s.kind === kind && sampleValidity(s).valid);
  return {
    server: kept.map((s) => s.server_elapsed_ms),
    wall: kept.map((s) => s.wall_ms),
    readRows: medianOrNull(kept.flatMap((s) => (s.read_rows === null ? [] : [s.read_rows]))),
  };
}

function queryOf(q: QueryRecord): VerdictQuery {
  const hashes = [...new Set(q.samples.filter((s) => s.kind !== 'warmup').map((s) => s.result_values_sha256 ?? null))];
  return {
    cold: runSet(q.samples, 'cold'),
    warm: runSet(q.samples, 'warm'),
    // One hash when every run agrees; runs that disagree among themselves are the validity section's concern.
    resultHash: hashes.length === 1 ? hashes[0]! : null,
    deterministic: q.deterministic,
    ...(q.error ? { failed: q.error.message } : {}),
  };
}

/** A cell's figures as the verdicts see them, at its matrix coordinates. */
export function verdictCellOf(r: CellResult, coords: VerdictCell['coords']): VerdictCell {
  const queries: Record<string, VerdictQuery> = {};
  for (const q of r.queries_baseline?.queries ?? []) queries[q.id] = queryOf(q);
  for (const q of r.queries_index?.queries ?? []) queries[`${q.id}@index`] = queryOf(q);
  const load = r.load;
  return {
    key: r.cellKey,
    coords,
    status: r.status,
    ...(r.error || r.skip_reason ? { error: (r.error ?? r.skip_reason)! } : {}),
    queries,
    ingestRowsPerS: load && load.elapsed_ms > 0 ? (load.rows / load.elapsed_ms) * 1000 : null,
    bytesOnDisk: r.storage?.bytes_on_disk ?? null,
  };
}

/** A cell of the spec that never wrote its result (not run, interrupted): not comparable, saying so. */
function missingCell(key: string, coords: VerdictCell['coords']): VerdictCell {
  return { key, coords, status: 'missing', error: 'no result.json', queries: {}, ingestRowsPerS: null, bytesOnDisk: null };
}

/**
 * The verdicts' input of a run folder: its matrix axes and every cell of `run.json` (the A/A control
 * among them when the run added one) with its coordinates and figures.
 * @throws Error naming the file when `run.json` or a `result.json` does not parse.
 */
export function verdictInputOf(dir: string): { runId: string; spec: RunSpec; axes: MatrixAxes; cells: VerdictCell[] } {
  const { run, cells } = loadRun(dir);
  const spec = run.spec;
  const coords = new Map(
    expandMatrix(spec, { control: true }).map((c) => [
      cellKey(c),
      {
        version: c.version,
        codec: c.codec,
        profile: c.profile ?? null,
        defaults: c.pinDefaults ?? SHIPPED,
        repetition: c.repetition ?? 1,
      },
    ]),
  );
  const out: VerdictCell[] = [];
  for (const key of run.cells) {
    const at = coords.get(key);
    if (!at) continue;
    const r = cells.find((c) => c.cellKey === key);
    out.push(r ? verdictCellOf(r, at) : missingCell(key, at));
  }
  return { runId: run.runId, spec, axes: matrixAxes(spec), cells: out };
}
