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
