/**
 * writeCellResult: assemble the cell's step files into one versioned record,
 * `results/<runId>/cells/<cellKey>/result.json` (schema `chbench.cell-result/v1`, the `CellResult` of
 * `src/schema/results.ts`), and beside it `samples.jsonl`, one flat sample per figure of each
 * measured run. Written before teardown, so measured results survive whatever teardown does.
 */
import path from 'node:path';
import type { HostLoss } from '../schema/host';
import { readdirSync, existsSync } from 'node:fs';
import {
  cellDir,
  readJsonIfExists,
  readRecordIfExists,
  runDir,
  writeJsonAtomic,
  writeTextAtomic,
} from '../results/store';
import { flatSamples, toJsonLines } from '../results/samples';
import type { CellInput, CellOutcome } from '../schema/cell';
import {
  CELL_RESULT_SCHEMA,
  type CellResult,
  type MetricsDelta,
  type MetricsSnapshot,
  type RunRecord,
  type QuiesceRecord,
  type ProvisionRecord,
  type SchemaRecord,
  type LoadRecord,
  type StorageRecord,
  type CellSettings,
  type QueriesRecord,
  type IndexRecord,
  type AfterLoadRecord,
  InsertPointRecord,
  ConcurrencyStepRecord,
} from '../schema/results';
import { insertPoints } from '../schema/grids';
import { attemptsByPhase, readAttemptLog } from './support/attempt-log';

import { CELL_COUNTERS as KEY_EVENTS } from '../measure/validity';
import { activityIdentity } from '../temporal/activity-context';

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

/** Difference of two snapshots: key server events and host disk bytes; `null` where unknown. */
function metricsDelta(a?: MetricsSnapshot, b?: MetricsSnapshot): MetricsDelta | null {
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

/** Activity factory. */
export function createWriteCellResult() {
  return {
    /**
     * Write `result.json` from the step files present in the cell directory, and `samples.jsonl`
     * (see `flatSamples`). Step files are read as written (not parsed): a record is never lost here
     * because one step file has an unexpected shape; readers of `result.json` parse it.
     * @returns a reference to it with the cell's status.
     */
    async writeCellResult(
      cell: CellInput,
      outcome: {
        status: CellOutcome['status'];
        error?: string;
        skipReason?: string;
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
      },
    ): Promise<CellOutcome> {
      const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
      const read = <T>(f: string) => readJsonIfExists<T>(path.join(dir, f));
      const quiesce: CellResult['quiesce'] = {};
      if (existsSync(dir))
        for (const f of readdirSync(dir))
          if (/^quiesce-.*\.json$/.test(f)) quiesce[f.slice(8, -5)] = read<QuiesceRecord>(f)!;
      const grids = readGrids(dir, cell);
      const start = read<MetricsSnapshot>('metrics-start.json');
      const end = read<MetricsSnapshot>('metrics-end.json');
      const provision = read<ProvisionRecord>('provision.json');
      const restarted = (outcome.targetRestarts ?? []).length > 0;
      const unavailable = deltaUnavailable(outcome.status, outcome.stoppedIn, restarted, !!start, !!end);
      const workflowId = activityIdentity()?.workflowId;
      // Every attempt of this execution of the cell, as its activities logged them.
      const attemptLog = attemptsByPhase(readAttemptLog(dir, activityIdentity()?.runId));
      // A step that failed is counted by the workflow as at least one attempt; the log knows how many ran.
      const attempts: Record<string, number> = { ...(outcome.attempts ?? {}) };
      for (const [phase, recs] of Object.entries(attemptLog))
        attempts[phase] = Math.max(attempts[phase] ?? 0, ...recs.map((r) => r.attempt));
      const result: CellResult = {
        schema: CELL_RESULT_SCHEMA,
        runId: cell.runId,
        cellKey: cell.cellKey,
        matrix: { version: cell.version, codec: cell.codec },
        workload: cell.workload,
        scale: cell.scale,
        protocol: cell.protocol,
        target_kind: cell.target.kind,
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
        schema_ddl: read<SchemaRecord>('schema.json') ?? null,
        load: read<LoadRecord>('load.json') ?? null,
        quiesce,
        storage: read<StorageRecord>('storage.json') ?? null,
        ...(read<CellSettings>('settings.json') ? { settings: read<CellSettings>('settings.json')! } : {}),
        queries_baseline: read<QueriesRecord>('queries-baseline.json') ?? null,
        index: read<IndexRecord>('index.json') ?? null,
        queries_index: read<QueriesRecord>('queries-index.json') ?? null,
        ...(read<AfterLoadRecord>('after-load.json') ? { after_load: read<AfterLoadRecord>('after-load.json')! } : {}),
        // Server counters restart with the server: after a restart the start→end difference means nothing.
        metrics_delta: restarted ? null : metricsDelta(start, end),
        ...(unavailable ? { metrics_delta_unavailable: unavailable } : {}),
        ...(outcome.status !== 'succeeded' && outcome.stoppedIn ? { stopped_in: outcome.stoppedIn } : {}),
        skip_index_planned: cell.skipIndex,
        ...(workflowId ? { workflow_id: workflowId } : {}),
        ...(start?.data_disk ? { data_disk: start.data_disk } : {}),
        ...(grids ? { grids } : {}),
      };
      const file = path.join(dir, 'result.json');
      writeJsonAtomic(file, result);
      const run = readJsonIfExists<Partial<RunRecord>>(path.join(runDir(cell.resultsDir, cell.runId), 'run.json'));
      writeTextAtomic(
        path.join(dir, 'samples.jsonl'),
        toJsonLines(flatSamples(result, { chbench: run?.chbench ?? null })),
      );
      return {
        cellKey: cell.cellKey,
        status: outcome.status,
        resultFile: file,
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(outcome.hostLosses?.length ? { hostLosses: outcome.hostLosses } : {}),
        ...(outcome.hostLost ? { hostLost: true } : {}),
      };
    },
  };
}
