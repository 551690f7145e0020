/**
 * The cell result: the cell's step files assembled into one versioned record,
 * `<resultsDir>/<runId>/cells/<cellKey>/result.json` (schema `chbench.cell-result/v1`, the `CellResult`
 * of `src/schema/results.ts`). The `writeCellResult` activity (src/activities/write-cell-result.ts)
 * writes it with the cell's `samples.jsonl` beside it.
 *
 * Every step file is read through its own schema (the one the step wrote it with), so a record that
 * does not fit fails here, naming the file and the field, rather than in every later reader of `result.json`.
 */
import path from 'node:path';
import { existsSync, readdirSync } from 'node:fs';
import type { z } from 'zod';
import { readRecordIfExists } from './store';
import { CELL_COUNTERS as KEY_EVENTS } from '../measure/validity';
import type { CellInput, CellOutcome } from '../schema/cell';
import { insertPoints } from '../schema/grids';
import type { HostLoss } from '../schema/host';
import { cellSpecHash } from './cell-spec';
import {
  AfterLoadRecord,
  CELL_RESULT_SCHEMA,
  CellSettings,
  ConcurrencyStepRecord,
  IndexRecord,
  InsertPointRecord,
  LoadRecord,
  MetricsSnapshot,
  ProvisionRecord,
  QueriesRecord,
  QuiesceRecord,
  SchemaRecord,
  StorageRecord,
  type AttemptRecord,
  type CellResult,
  type MetricsDelta,
} from '../schema/results';

/** How the cell's workflow says the cell ended (the second argument of `writeCellResult`). */
export interface CellEnd {
  status: CellOutcome['status'];
  error?: string;
  skipReason?: string;
  /** Attempts per step as the workflow counted them. */
  attempts?: Record<string, number>;
  targetRestarts?: { step: string; error: string }[];
  /** Hosts lost during the cell (the cell was provisioned again, fresh, on another). */
  hostLosses?: HostLoss[];
  /** ISO time the cell's workflow started. */
  startedAt?: string;
  /** The cell ended because its host was lost (the matrix runs it again elsewhere). */
  hostLost?: boolean;
  /** The step the cell was in when it failed or was cancelled (its `CellPhase`). */
  stoppedIn?: string;
}

/**
 * Why a cell has no start→end counter difference, recorded at collection time so the report never
 * guesses: a restart, a cell that stopped before its end snapshot (`not collected (cancelled)`), or a
 * snapshot that is missing. Undefined when both snapshots exist and the server was not restarted.
 */
export function deltaUnavailable(
  status: CellResult['status'],
  stoppedIn: string | undefined,
  restarted: boolean,
  start: boolean,
  end: boolean,
): string | undefined {
  if (restarted) return 'the server was restarted during the cell; its counters started again from zero';
  if (start && end) return undefined;
  if (status !== 'succeeded')
    return `not collected (${status}${stoppedIn ? ` during ${stoppedIn}` : ''}, before the end-of-cell snapshot)`;
  return `not collected: no ${start ? 'end' : 'start'}-of-cell snapshot was written`;
}

/**
 * Difference of two snapshots (`metrics-start.json`, `metrics-end.json`): the key server events
 * (`system.events`, {@link KEY_EVENTS}) and host disk bytes (read/written); `null` where unknown. Pure.
 */
export function metricsDelta(a?: MetricsSnapshot, b?: MetricsSnapshot): MetricsDelta | null {
  if (!a || !b) return null;
  const events: Record<string, number | null> = {};
  for (const k of KEY_EVENTS)
    events[k] =
      a.server_events && b.server_events && k in b.server_events
        ? b.server_events[k] - (a.server_events[k] ?? 0)
        : null;
  let disks: Record<string, { read_bytes: number; write_bytes: number }> | null = null;
  if (a.host_disks && b.host_disks) {
    disks = {};
    for (const [d, v] of Object.entries(b.host_disks)) {
      const p = a.host_disks[d];
      if (p && (v.read_bytes - p.read_bytes || v.write_bytes - p.write_bytes))
        disks[d] = { read_bytes: v.read_bytes - p.read_bytes, write_bytes: v.write_bytes - p.write_bytes };
    }
  }
  return {
    from: a.taken_at,
    to: b.taken_at,
    server_events: events,
    server_events_source: b.server_events_source,
    host_disks: disks,
    host_source: b.host_source,
  };
}

/**
 * The grid records of a cell, in the order the grids run them (concurrency steps by client count,
 * insert points in spec order); undefined when the cell has no grids.
 */
function readGrids(dir: string, cell: CellInput): CellResult['grids'] {
  if (!cell.grids) return undefined;
  const grid = (f: string) => path.join(dir, 'grids', f);
  return {
    insert: (cell.grids.insert ? insertPoints(cell.grids.insert) : []).flatMap((p) => {
      const r = readRecordIfExists(grid(`insert-${p.key}.json`), InsertPointRecord);
      return r ? [r] : [];
    }),
    concurrency: (cell.grids.concurrency?.steps ?? []).flatMap((c) => {
      const r = readRecordIfExists(grid(`concurrency-c${c}.json`), ConcurrencyStepRecord);
      return r ? [r] : [];
    }),
  };
}

/**
 * Assemble `result.json` from the step files present in the cell folder `dir` and how the cell ended.
 * @param attemptLog every attempt of this execution of the cell by phase, as its activities logged
 *   them (`attempts.jsonl`); a phase's attempt count is the larger of the workflow's and the log's.
 * @param workflowId the cell workflow's id (from the activity's info), when known.
 * @throws Error naming the step file and its first field that does not fit its schema.
 */
export function assembleCellResult(
  dir: string,
  cell: CellInput,
  outcome: CellEnd,
  attemptLog: Record<string, AttemptRecord[]>,
  workflowId: string | undefined,
): CellResult {
  const read = <S extends z.ZodType>(f: string, schema: S) => readRecordIfExists(path.join(dir, f), schema);
  const quiesce: CellResult['quiesce'] = {};
  if (existsSync(dir))
    for (const f of readdirSync(dir))
      if (/^quiesce-.*\.json$/.test(f)) quiesce[f.slice(8, -5)] = read(f, QuiesceRecord)!;
  const grids = readGrids(dir, cell);
  const start = read('metrics-start.json', MetricsSnapshot);
  const end = read('metrics-end.json', MetricsSnapshot);
  const provision = read('provision.json', ProvisionRecord);
  const settings = read('settings.json', CellSettings);
  const afterLoad = read('after-load.json', AfterLoadRecord);
  const restarted = (outcome.targetRestarts ?? []).length > 0;
  const unavailable = deltaUnavailable(outcome.status, outcome.stoppedIn, restarted, !!start, !!end);
  // A step that failed is counted by the workflow as at least one attempt; the log knows how many ran.
  const attempts: Record<string, number> = { ...(outcome.attempts ?? {}) };
  for (const [phase, recs] of Object.entries(attemptLog))
    attempts[phase] = Math.max(attempts[phase] ?? 0, ...recs.map((r) => r.attempt));
  return {
    schema: CELL_RESULT_SCHEMA,
    runId: cell.runId,
    cellKey: cell.cellKey,
    matrix: { version: cell.version, codec: cell.codec },
    workload: cell.workload,
    scale: cell.scale,
    protocol: cell.protocol,
    target_kind: cell.target.kind,
    cell_spec_sha256: cellSpecHash(cell),
    status: outcome.status,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.skipReason ? { skip_reason: outcome.skipReason } : {}),
    attempts,
    ...(Object.keys(attemptLog).length ? { attempt_log: attemptLog } : {}),
    target_restarts: outcome.targetRestarts ?? [],
    written_at: new Date().toISOString(),
    ...(outcome.startedAt ? { started_at: outcome.startedAt } : {}),
    ...(provision?.host ? { host: provision.host } : {}),
    ...(outcome.hostLosses?.length ? { host_losses: outcome.hostLosses } : {}),
    ...(start?.host_activity || end?.host_activity
      ? {
          host_activity: {
            ...(start?.host_activity ? { start: start.host_activity } : {}),
            ...(end?.host_activity ? { end: end.host_activity } : {}),
          },
        }
      : {}),
    provision: provision ?? null,
    schema_ddl: read('schema.json', SchemaRecord) ?? null,
    load: read('load.json', LoadRecord) ?? null,
    quiesce,
    storage: read('storage.json', StorageRecord) ?? null,
    ...(settings ? { settings } : {}),
    queries_baseline: read('queries-baseline.json', QueriesRecord) ?? null,
    index: read('index.json', IndexRecord) ?? null,
    queries_index: read('queries-index.json', QueriesRecord) ?? null,
    ...(afterLoad ? { after_load: afterLoad } : {}),
    // Server counters restart with the server: after a restart the start→end difference means nothing.
    metrics_delta: restarted ? null : metricsDelta(start, end),
    ...(unavailable ? { metrics_delta_unavailable: unavailable } : {}),
    ...(outcome.status !== 'succeeded' && outcome.stoppedIn ? { stopped_in: outcome.stoppedIn } : {}),
    skip_index_planned: cell.skipIndex,
    ...(workflowId ? { workflow_id: workflowId } : {}),
    ...(start?.data_disk ? { data_disk: start.data_disk } : {}),
    ...(grids ? { grids } : {}),
  };
}
