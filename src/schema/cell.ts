/**
 * Inputs and outputs of the cell's activities. Everything here travels through workflow history:
 * keep it small (summaries and file references), never raw samples, query_log rows or secrets.
 */
import type { Codec, ProtocolSpec, TargetSpec } from './run-spec';
import type { TargetHandle } from './target';

/** Everything a cell needs, derived from the run spec by the matrix workflow. */
export interface CellInput {
  runId: string;
  cellKey: string;
  /** Matrix version label, e.g. `26.7`. */
  version: string;
  codec: Codec;
  workload: string;
  /** Rows to generate. */
  scale: number;
  /** Query ids to run; all of the workload's when absent. */
  queries?: string[];
  skipIndex: boolean;
  protocol: ProtocolSpec;
  /** Target spec: holds at most the *name* of a password variable. */
  target: TargetSpec;
  teardown: 'always' | 'on-success' | 'never';
  resultsDir: string;
  /** The spec's extra settings (checked against the probe at provisioning). Absent in old histories. */
  settings?: { query: Record<string, string | number>; mergeTree: Record<string, string | number>; optional: string[] };
}

/** What every step after provisioning receives. */
export interface StepInput {
  cell: CellInput;
  target: TargetHandle;
}

/** Server facts recorded at provisioning. */
export interface ServerInfo {
  /** `SELECT version()`. */
  version: string;
  /** `SELECT timezone()`. */
  timezone: string;
  /** Logical CPUs: `system.asynchronous_metrics`/host `os.cpus()` (see `cpu_source`). */
  cpus: number | null;
  cpu_source: string;
  /** Memory in bytes (see `memory_source`). */
  memory_bytes: number | null;
  memory_source: string;
  /** Whether `system.query_log` can be read on this target (it is created lazily on real servers). */
  query_log: 'available' | 'not available';
}

/** Result of the provision step. */
export interface ProvisionResult {
  target: TargetHandle;
  server: ServerInfo;
  /** Set when this version cannot run the cell (the cell is reported as skipped, not failed). */
  skipReason?: string;
}

/** Summary of the load step (details in `load.json`). */
export interface LoadSummary {
  rows: number;
  /** Client wall time of the INSERT … SELECT, ms. */
  elapsed_ms: number;
  rows_per_s: number;
  partitions: number;
  active_parts: number;
  /** True when the table already held the expected rows from an earlier attempt and nothing was inserted. */
  reused: boolean;
}

/** Summary of the quiesce step. */
export interface QuiesceSummary {
  active_parts: number;
  waited_ms: number;
}

/** Per-query headline figures returned to the workflow (all samples are in the step file). */
export interface QueryHeadline {
  id: string;
  cold_ms: number | null;
  warm_min_ms: number | null;
  warm_median_ms: number | null;
  read_rows: number | null;
}

/** Summary of a query step. */
export interface QueriesSummary {
  phase: 'baseline' | 'index';
  file: string;
  queries: QueryHeadline[];
}

/** Summary of the skip-index step. */
export interface IndexSummary {
  index: string;
  materialize_ms: number;
  index_bytes: number | null;
  adopted_mutation: boolean;
}

/** Reference to what a cell wrote. */
export interface CellOutcome {
  cellKey: string;
  status: 'succeeded' | 'failed' | 'skipped' | 'cancelled';
  resultFile: string;
  error?: string;
}

/** One step of a cell, as the workflow, the progress query, the chaos suite and the README name it. */
export interface CellStepDef {
  /** Progress step and `ChbenchPhase` search-attribute value while the step runs. */
  phase: string;
  /** Activity type (the key in `Activities`). */
  activity: string;
  /** Where the activity lives. */
  file: string;
  /** What the step records: the file it writes under `results/<run>/cells/<cell>/`, and what it holds. */
  record: string;
}

/**
 * The cell's steps in the order the cell workflow runs them (provision … teardown); the three index
 * steps run only when the cell has a skip index. One name per step everywhere: this table drives the
 * workflow's progress/phase values, the chaos suite's kill coverage and the README's
 * "What a cell measures" table (checked by test/unit/cell-steps.test.ts).
 */
export const CELL_STEPS = [
  { phase: 'provision', activity: 'provision', file: 'src/activities/provision.ts', record: '`provision.json`, `probe.json`, `settings.json`: `version()`, `timezone()`, CPUs, memory, query_log availability, capability probe, how it was provisioned' },
  { phase: 'collect-metrics', activity: 'collectMetrics', file: 'src/activities/collect-metrics.ts', record: '`metrics-start.json`: `system.events` and host `/proc/diskstats` before the cell' },
  { phase: 'create-schema', activity: 'createSchema', file: 'src/activities/create-schema.ts', record: '`schema.json`: DDL sent and `SHOW CREATE TABLE`' },
  { phase: 'load', activity: 'loadData', file: 'src/activities/load-data.ts', record: '`load.json`: INSERT … SELECT elapsed (client wall and server), rows/s, `count()` = scale, partitions, active parts' },
  { phase: 'quiesce', activity: 'quiesceMerges', file: 'src/activities/quiesce-merges.ts', record: '`quiesce-after-load.json`: waits until no merge/mutation runs and the active parts are stable' },
  { phase: 'storage', activity: 'storageStats', file: 'src/activities/storage-stats.ts', record: '`storage.json`: totals from `system.parts`, per column from `system.parts_columns` (only when every part is Wide)' },
  { phase: 'queries-baseline', activity: 'runQueries', file: 'src/activities/run-queries.ts', record: '`queries-baseline.json`: per query `EXPLAIN indexes = 1`; cold runs (cache drops with outcomes, direct I/O requested, OS cache drop outcome); warm runs; per run wall/server time, read_rows/bytes, result hash, query_log row' },
  { phase: 'materialize-index', activity: 'materializeSkipIndex', file: 'src/activities/materialize-skip-index.ts', record: '`index.json`: `ADD INDEX` + `MATERIALIZE INDEX`, polls `system.mutations`, index size' },
  { phase: 'quiesce-index', activity: 'quiesceMerges', file: 'src/activities/quiesce-merges.ts', record: '`quiesce-after-index.json`: merges settled after the mutation' },
  { phase: 'queries-index', activity: 'runQueries', file: 'src/activities/run-queries.ts', record: '`queries-index.json`: the queries again, with the index proof (EXPLAIN granules, read_rows vs baseline)' },
  { phase: 'collect-metrics-end', activity: 'collectMetrics', file: 'src/activities/collect-metrics.ts', record: '`metrics-end.json`: `system.events` and host `/proc/diskstats` after the cell' },
  { phase: 'write-results', activity: 'writeCellResult', file: 'src/activities/write-cell-result.ts', record: '`result.json` (schema `chbench.cell-result/v1`): every step file above, attempts, restarts, outcome' },
  { phase: 'teardown', activity: 'teardown', file: 'src/activities/teardown.ts', record: '`teardown.json`: stops/drops the target (in a non-cancellable scope), server log archive' },
] as const satisfies readonly CellStepDef[];

/** A cell step's phase name (`provision`, `load`, … `teardown`). */
export type CellPhase = (typeof CELL_STEPS)[number]['phase'];

/** The step with `phase`. @throws Error for a phase not in {@link CELL_STEPS}. */
export function cellStepOf(phase: CellPhase): CellStepDef {
  const s = CELL_STEPS.find((x) => x.phase === phase);
  if (!s) throw new Error(`no cell step ${phase}`);
  return s;
}
