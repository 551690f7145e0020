/**
 * What the verdicts read of a run folder (`src/measure/verdicts.ts`): each cell's place in the matrix
 * (from the spec's expansion, the A/A control included) and its figures — per query the valid cold and
 * warm runs (`result.json` `queries_baseline` / `queries_index`; validity as `sampleValidity` judges it),
 * the values' result hash, read_rows, the load's rows/s (`load.json`) and bytes on disk (`storage.json`,
 * `system.parts`). Reads files; no database.
 */
import path from 'node:path';
import { z } from 'zod';
import { SHIPPED, cellKey, expandMatrix, matrixAxes, type MatrixAxes } from '../schema/matrix';
import { LocalBottleneckRecord, type CellResult, type QueryRecord, type RunSample } from '../schema/results';
import type { RunSpec } from '../schema/run-spec';
import type { RunSet, VerdictCell, VerdictQuery } from '../measure/verdicts';
import { medianOrNull } from '../measure/verdicts';
import { sampleValidity } from './db/rows';
import { loadRun } from './sections/section';
import { readRecordIfExists } from './store';

/**
 * Other processes' CPU at or above which a query's runs count as disturbed by the host: this many cores,
 * or this share of the host's cores when larger. On this 2-core host a quiet run's "others" (the worker
 * itself, the Temporal server) read 0.05–0.6 cores; a busy host's 1.0–1.5.
 */
export const DISTURBED_CORES = 0.75;
export const DISTURBED_SHARE = 0.25;

/** What the verdicts read of `metrics-end.json`: the step windows' counters and the host's cores. */
const HostLoad = z.object({
  local_bottleneck: LocalBottleneckRecord.pick({ host_cores: true, steps: true }).optional(),
});

/**
 * Whether the host disturbed a query's runs: per step window `<q> cold (<phase>)` / `<q> warm (<phase>)`
 * of `metrics-end.json` `local_bottleneck`, other processes' CPU = host busy share × host cores
 * (`/proc/stat`, all processes) − the engine's own cores (`cores_used`, its cgroup or `/proc/<pid>`).
 * @returns by `<q>|<kind>` (kind `cold` | `warm`, `q5@index` for the index phase) the figures in words,
 *   for the windows at or over the threshold; empty when the cell has no such record (a remote server).
 */
export function disturbanceOf(cellDir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, w] of hostLoadWindows(cellDir)) if (w.disturbed) out.set(key, w.words);
  return out;
}

/** The host's load during one query window of a cell (see {@link hostLoadWindows}). */
export interface WindowLoad {
  /** Other processes' cores during the window (host busy share × cores − the engine's own cores). */
  others: number;
  /** At or over the limit (max(DISTURBED_CORES, DISTURBED_SHARE × cores)). */
  disturbed: boolean;
  /** The figures in words, with their source. */
  words: string;
}

/**
 * Every query window's host load in a cell's `metrics-end.json` (`local_bottleneck` steps
 * `<q> cold (<phase>)` / `<q> warm (<phase>)`), by `<q>|<kind>` as {@link disturbanceOf} keys them,
 * quiet windows included; empty when the cell has no such record (a remote server).
 */
export function hostLoadWindows(cellDir: string): Map<string, WindowLoad> {
  const out = new Map<string, WindowLoad>();
  const rec = readRecordIfExists(path.join(cellDir, 'metrics-end.json'), HostLoad)?.local_bottleneck;
  if (!rec?.host_cores) return out;
  const cores = rec.host_cores;
  const limit = Math.max(DISTURBED_CORES, DISTURBED_SHARE * cores);
  for (const s of rec.steps) {
    const m = /^(\S+) (cold|warm) \((baseline|index)\)$/.exec(s.step);
    const c = s.counters;
    if (!m || !c || !(c.host_total_ns > 0)) continue;
    const others = Math.max(0, (c.host_busy_ns / c.host_total_ns) * cores - c.cores_used);
    const disturbed = others >= limit;
    out.set(`${m[3] === 'index' ? `${m[1]}@index` : m[1]}|${m[2]}`, {
      others,
      disturbed,
      words: `other processes used ${others.toFixed(2)} of ${cores} cores during ${s.step} on ${path.basename(cellDir)} (/proc/stat minus the engine's own CPU; disturbed at ≥ ${limit.toFixed(2)})`,
    });
  }
  return out;
}

function runSet(samples: readonly RunSample[], kind: 'cold' | 'warm', disturbed?: string): RunSet {
  const kept = samples.filter((s) => s.kind === kind && sampleValidity(s).valid);
  return {
    server: kept.map((s) => s.server_elapsed_ms),
    wall: kept.map((s) => s.wall_ms),
    readRows: medianOrNull(kept.flatMap((s) => (s.read_rows === null ? [] : [s.read_rows]))),
    ...(disturbed ? { disturbed } : {}),
  };
}

function queryOf(q: QueryRecord, key: string, disturbed: Map<string, string>): VerdictQuery {
  const hashes = [...new Set(q.samples.filter((s) => s.kind !== 'warmup').map((s) => s.result_values_sha256 ?? null))];
  return {
    cold: runSet(q.samples, 'cold', disturbed.get(`${key}|cold`)),
    warm: runSet(q.samples, 'warm', disturbed.get(`${key}|warm`)),
    // One hash when every run agrees; runs that disagree among themselves are the validity section's concern.
    resultHash: hashes.length === 1 ? hashes[0]! : null,
    deterministic: q.deterministic,
    ...(q.error ? { failed: q.error.message } : {}),
  };
}

/**
 * A cell's figures as the verdicts see them, at its matrix coordinates.
 * @param disturbed the cell's disturbed query windows ({@link disturbanceOf}); none when absent
 */
export function verdictCellOf(
  r: CellResult,
  coords: VerdictCell['coords'],
  disturbed: Map<string, string> = new Map(),
): VerdictCell {
  const queries: Record<string, VerdictQuery> = {};
  for (const q of r.queries_baseline?.queries ?? []) queries[q.id] = queryOf(q, q.id, disturbed);
  for (const q of r.queries_index?.queries ?? []) queries[`${q.id}@index`] = queryOf(q, `${q.id}@index`, disturbed);
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
    out.push(r ? verdictCellOf(r, at, disturbanceOf(path.join(dir, 'cells', key))) : missingCell(key, at));
  }
  return { runId: run.runId, spec, axes: matrixAxes(spec), cells: out };
}
