/**
 * Inputs and outputs of the cell's activities. Everything here travels through workflow history:
 * keep it small (summaries and file references), never raw samples, query_log rows or secrets.
 * Workflow code imports this module for types only, so zod stays out of the workflow bundle.
 */
import { z } from 'zod';
import type { Codec, CodecProfile, ProtocolSpec, TargetSpec } from './run-spec';
import type { TargetHandle } from './target';
import type { ServerRecord } from './results';
import type { GridsSpec } from './grids';
import { HostLoss, type HostFacts, type HostPlacement } from './host';

/** Everything a cell needs, derived from the run spec by the matrix workflow. */
export interface CellInput {
  runId: string;
  /**
   * The matrix's Temporal workflow id when it is not `runId` (a scheduled run's, with `:`; see
   * `src/schema/run-id.ts`): recorded as the owner of what the cell provisions, so `chbench gc` asks
   * about the right workflow. Absent: the matrix's workflow id is `runId`.
   */
  matrixWorkflowId?: string;
  cellKey: string;
  /** Matrix version label, e.g. `26.7`. */
  version: string;
  /** Name of the cell's codec profile; a plain codec expression (`ZSTD(3)`) is its own profile. */
  codec: Codec;
  /**
   * A named profile's default expression and per-column overrides; absent for a plain expression
   * (then `codec` is the default of every column). Read through {@link cellCodecProfile}.
   */
  codecProfile?: { default: Codec; columns: Record<string, Codec> };
  workload: string;
  /** Rows to generate. */
  scale: number;
  /** Query ids to run; all of the workload's when absent. */
  queries?: string[];
  skipIndex: boolean;
  /**
   * The workload's after-load statement files, in order (its manifest's `afterLoad`): the cell runs
   * the `after-load` step after the load's quiesce. Absent: none (and in old histories).
   */
  afterLoad?: string[];
  protocol: ProtocolSpec;
  /** Target spec: holds at most the *name* of a password variable. */
  target: TargetSpec;
  teardown: 'always' | 'on-success' | 'never';
  resultsDir: string;
  /** The spec's extra settings (checked against the probe at provisioning). Absent in old histories. */
  settings?: { query: Record<string, string | number>; mergeTree: Record<string, string | number>; optional: string[] };
  /** Name of the matrix settings profile whose settings were merged into `settings` (absent: no profile axis). */
  profile?: string;
  /** The spec's `pinDefaults`: the cell runs with `compatibility = '<version>'` (absent: its version's shipped defaults). */
  pinDefaults?: string;
  /** Load grids run after the query steps (absent: none). */
  grids?: GridsSpec;
  /**
   * The host the matrix placed the cell on (a target on the worker's host only): its worker provisions
   * the cell on the host's own task queue. Absent: provisioning goes to the shared task queue.
   */
  placement?: HostPlacement;
  /**
   * Seconds a host-bound step may wait on its host's task queue before the host counts as lost
   * (the activities' schedule-to-start timeout). Absent in old histories.
   */
  hostLossTimeoutS?: number;
  /** Hosts lost by earlier executions of this cell (the matrix placed it again after each). */
  priorHostLosses?: HostLoss[];
}

/** The codec profile a cell applies: its name, default expression and per-column overrides. Pure. */
export function cellCodecProfile(cell: Pick<CellInput, 'codec' | 'codecProfile'>): CodecProfile {
  return {
    name: cell.codec,
    default: cell.codecProfile?.default ?? cell.codec,
    columns: cell.codecProfile?.columns ?? {},
  };
}

/** What every step after provisioning receives. */
export interface StepInput {
  cell: CellInput;
  target: TargetHandle;
}

/** Server facts recorded at provisioning: one definition, `ServerRecord` in `schema/results.ts`. */
export type ServerInfo = ServerRecord;

/** Result of the provision step. */
export interface ProvisionResult {
  target: TargetHandle;
  server: ServerInfo;
  /**
   * The target's `restartable` capability (`TargetCapabilities`): after the server is lost, the cell
   * workflow may provision it again on the cell's data. `false` (external): the cell fails instead.
   * Absent in histories recorded before it existed: treated as restartable, as those runs did.
   */
  restartable?: boolean;
  /** Set when this version cannot run the cell (the cell is reported as skipped, not failed). */
  skipReason?: string;
  /**
   * The host whose worker provisioned the target, for a target on the worker's host (embedded,
   * local): every later step of the cell runs on `host.taskQueue`. Absent for other targets.
   */
  host?: HostFacts;
}

/** Summary of the load step (details in `load.json`). */
export interface LoadSummary {
  rows: number;
  /** Client wall time of the INSERT … SELECT, ms. */
  elapsed_ms: number;
  rows_per_s: number;
  /** Partitions and active parts (`system.parts`); null where the server has none (chdb 1.4.1). */
  partitions: number | null;
  active_parts: number | null;
  /** True when the table already held the expected rows from an earlier attempt and nothing was inserted. */
  reused: boolean;
}

/** Summary of the quiesce step. */
export interface QuiesceSummary {
  /** Active parts when quiet; null where the server has no `system.parts` (chdb 1.4.1). */
  active_parts: number | null;
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

/** How a cell ended. */
export const CellStatus = z.enum(['succeeded', 'failed', 'skipped', 'cancelled']);
export type CellStatus = z.infer<typeof CellStatus>;

/** Reference to what a cell wrote: the cell workflow's result, one entry of the matrix result. */
export const CellOutcome = z.object({
  cellKey: z.string(),
  status: CellStatus,
  /** Path of the cell's `result.json`. */
  resultFile: z.string(),
  /** Why it failed or was skipped (first lines of the failure). */
  error: z.string().optional(),
  /** Hosts lost while the cell ran on them (the matrix places no more cells there). */
  hostLosses: z.array(HostLoss).optional(),
  /**
   * The cell ended because the host the matrix placed it on was lost before it finished: nothing of
   * it was measured to the end, and the matrix runs it again on another host.
   */
  hostLost: z.boolean().optional(),
});
export type CellOutcome = z.infer<typeof CellOutcome>;

/**
 * Stable query_id prefix of a cell's statements in one step: `chb-<runId>-<cellKey>-<step>`, every
 * character outside `[A-Za-z0-9._-]` replaced by `_`. Each statement appends its own tail and ends
 * with `-a<attempt>` (see {@link parseQueryId}), so a retry finds and settles its earlier attempt's
 * statements by prefix, and the archived server log can be split by step and attempt.
 * `step` `''` gives the cell's prefix followed by `-`.
 */
export function queryIdPrefix(runId: string, cellKey: string, step: string): string {
  return `chb-${runId}-${cellKey}-${step}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Steps whose statements carry a {@link queryIdPrefix} query_id. */
export const QUERY_ID_STEPS = ['load', 'baseline', 'index'] as const;

/** A chbench statement's query_id, taken apart (see {@link parseQueryId}). */
export interface ParsedQueryId {
  /** `chb-<runId>-<cellKey>-<step>`: the step's prefix, the same for every attempt. */
  stepPrefix: string;
  step: (typeof QUERY_ID_STEPS)[number];
  /** 1-based activity attempt that issued the statement. */
  attempt: number;
  /** A measured run of a workload query (`queries-<phase>` steps): the query id, the run kind and its 1-based index. */
  run?: { query: string; kind: 'cold' | 'warmup' | 'warm'; n: number };
  /** A helper statement of the step that is not a measured run (the load step's `truncate`). */
  statement?: 'truncate';
}

const QUERY_ID = /^(?<prefix>.+-(?<step>load|baseline|index))(?:-(?:(?<statement>truncate)|(?<query>.+)-(?<kind>cold|warmup|warm)(?<n>\d+)))?-a(?<attempt>\d+)$/;

/**
 * Inverse of the query_ids chbench builds from {@link queryIdPrefix}:
 * `<prefix>-a<attempt>` (the load's INSERT), `<prefix>-truncate-a<attempt>`, and
 * `<prefix>-<query>-<kind><n>-a<attempt>` (a measured run). `null` for any other id
 * (another client's statement, chbench's own `chb-watch-…` reads).
 */
export function parseQueryId(id: string): ParsedQueryId | null {
  const g = QUERY_ID.exec(id)?.groups;
  if (!g) return null;
  return {
    stepPrefix: g.prefix,
    step: g.step as ParsedQueryId['step'],
    attempt: Number(g.attempt),
    ...(g.query !== undefined ? { run: { query: g.query, kind: g.kind as 'cold' | 'warmup' | 'warm', n: Number(g.n) } } : {}),
    ...(g.statement ? { statement: 'truncate' as const } : {}),
  };
}

/** One step of a cell, as the workflow, the progress query, the chaos suite and docs/method.md name it. */
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
 * steps run only when the cell has a skip index, `after-load` only when the workload has after-load statements. One name per step everywhere: this table drives the
 * workflow's progress/phase values, the chaos suite's kill coverage and docs/method.md's
 * "What a cell measures" table (checked by test/unit/cell-steps.test.ts).
 */
export const CELL_STEPS = [
  { phase: 'provision', activity: 'provision', file: 'src/activities/provision.ts', record: '`provision.json`, `probe.json`, `settings.json`, `defaults.json`: `version()`, `timezone()`, CPUs, memory, query_log availability, capability probe, how it was provisioned' },
  { phase: 'collect-metrics', activity: 'collectMetrics', file: 'src/activities/collect-metrics.ts', record: '`metrics-start.json`: `system.events` and host `/proc/diskstats` before the cell' },
  { phase: 'create-schema', activity: 'createSchema', file: 'src/activities/create-schema.ts', record: '`schema.json`: DDL sent and `SHOW CREATE TABLE`; each column\'s codec read back (`system.columns.compression_codec`) against the cell\'s codec profile (a mismatch fails the cell); table settings applied as the server shows them; `EXPLAIN` of every query on the empty table (a failure names the query id and file)' },
  { phase: 'load', activity: 'loadData', file: 'src/activities/load-data.ts', record: '`load.json`: INSERT … SELECT elapsed (client wall and server), rows/s, `count()` = scale, partitions, active parts' },
  { phase: 'quiesce', activity: 'quiesceMerges', file: 'src/activities/quiesce-merges.ts', record: '`quiesce-after-load.json`: waits until no merge/mutation runs and the active parts are stable' },
  { phase: 'after-load', activity: 'afterLoad', file: 'src/activities/after-load.ts', record: '`after-load.json` (only when the workload has `afterLoad` statements): per statement in order the file, SQL sent, query_id, client wall and server elapsed (with sources), the wait (`system.mutations` / `system.merges`) and its result, the table state before and after (a retry does not send a statement again)' },
  { phase: 'storage', activity: 'storageStats', file: 'src/activities/storage-stats.ts', record: '`storage.json`: totals from `system.parts`, per column from `system.parts_columns` (only when every part is Wide) with its codec from `system.columns`' },
  { phase: 'queries-baseline', activity: 'runQueries', file: 'src/activities/run-queries.ts', record: '`queries-baseline.json`: per query `EXPLAIN indexes = 1`; cold runs (cache drops with outcomes, direct I/O requested, OS cache drop outcome); warm runs; per run wall/server time, read_rows/bytes, result hash, query_log row' },
  { phase: 'materialize-index', activity: 'materializeSkipIndex', file: 'src/activities/materialize-skip-index.ts', record: '`index.json`: `ADD INDEX` + `MATERIALIZE INDEX`, polls `system.mutations`, index size' },
  { phase: 'quiesce-index', activity: 'quiesceMerges', file: 'src/activities/quiesce-merges.ts', record: '`quiesce-after-index.json`: merges settled after the mutation' },
  { phase: 'queries-index', activity: 'runQueries', file: 'src/activities/run-queries.ts', record: '`queries-index.json`: the queries again, with the index proof (EXPLAIN granules, read_rows vs baseline)' },
  { phase: 'concurrency', activity: 'concurrencyStep', file: 'src/activities/concurrency-steps.ts', record: '`grids/concurrency-c<clients>.json` (only with `grids.concurrency`): closed-loop clients over the query mix per step: QPS, latency P50/P95/P99/max (query_log or client wall, labelled), errors by code, client CPU' },
  { phase: 'insert-grid', activity: 'insertPoint', file: 'src/activities/insert-grid.ts', record: '`grids/insert-<point>.json` (only with `grids.insert`): per batch × concurrency × settings × format, its own table: rows/s, MB/s, INSERT latency, errors, parts per INSERT, active parts and merges over time, memory, `system.events` deltas, `count()` verification' },
  { phase: 'collect-metrics-end', activity: 'collectMetrics', file: 'src/activities/collect-metrics.ts', record: '`metrics-end.json`: `system.events` and host `/proc/diskstats` after the cell; a server on this host: every step window’s bottleneck label from `counters.jsonl`' },
  { phase: 'write-results', activity: 'writeCellResult', file: 'src/activities/write-cell-result.ts', record: '`result.json` (schema `chbench.cell-result/v1`): every step file above, attempts, restarts, outcome' },
  { phase: 'teardown', activity: 'teardown', file: 'src/activities/teardown.ts', record: '`teardown.json`: stops/drops the target (in a non-cancellable scope), server log archive' },
] as const satisfies readonly CellStepDef[];

/** A cell step's phase name (`provision`, `load`, … `teardown`). */
export type CellPhase = (typeof CELL_STEPS)[number]['phase'];
