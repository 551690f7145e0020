/**
 * The measurement options of a cell's query runs, built once from the cell's inputs (protocol, the
 * capability probe in `probe.json`, the spec's settings as checked at provisioning, the target's
 * capabilities) and the activity's context (attempt, cancellation, heartbeats). Used by the query
 * step (`runQueries`) and by the confirming re-run (`runInterleaved`), so both measure a run the same way;
 * and the options of an insert grid point (`insertPoint`).
 */
import path from 'node:path';
import type { MeasureOptions } from '../../measure/protocol';
import type { InsertPointSettings } from '../../measure/cell-settings';
import type { InsertPointOptions } from '../../measure/insert-point';
import { coldCacheDrops, serverPodOf } from '../../measure/cold-cycle';
import { cellDir, readRecordIfExists } from '../../results/store';
import { attempt, heartbeat, cancellationSignal } from '../../temporal/activity-context';
import { killOnCancel, isTargetGone } from './attempts';
import { capabilitiesOf } from '../../targets';
import { queryIdPrefix as cellQueryIdPrefix, type StepInput } from '../../schema/cell';
import { CapabilityProbe, ProvisionQueryLog } from '../../schema/results';
import { readCellSettings, type StepContext } from '../step-context';

/**
 * Measurement options for the cell of `si`.
 * @param queryLog the server keeps `system.query_log` (the provision result's `server.query_log`).
 * @param queryIdPrefix prefix of every run's query_id (`queryIdPrefix(run, cell, phase)`).
 * @param step the step name heartbeats carry (e.g. `queries-baseline`).
 * @returns the options and the probe read from the cell's `probe.json` (undefined when missing).
 */
export function cellMeasureOptions(
  { cell, target }: StepInput,
  queryLog: boolean,
  queryIdPrefix: string,
  step: string,
): { options: MeasureOptions; probe: CapabilityProbe | undefined } {
  const caps = capabilitiesOf(target);
  const probe = readRecordIfExists(
    path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'probe.json'),
    CapabilityProbe,
  );
  const options: MeasureOptions = {
    coldRuns: cell.protocol.coldRuns,
    warmupRuns: cell.protocol.warmupRuns,
    warmRuns: cell.protocol.warmRuns,
    dropOsPageCache: cell.protocol.dropOsPageCache,
    maxExecutionTimeS: cell.protocol.maxExecutionTimeS,
    queryLog,
    counters: queryLog ? 'query_log' : caps.countersWithoutQueryLog,
    serverOnThisHost: caps.onWorkerHost,
    serverPod: serverPodOf(target, caps),
    summaryReadSource: caps.summaryReadSource,
    extraSettings: readCellSettings(cell).runs,
    cacheDrops: coldCacheDrops(probe),
    ...(probe ? { cacheProbe: probe } : {}),
    knownCounters: probe?.events_complete ? (probe.events ?? undefined) : undefined,
    knownSettings: probe?.query_settings ?? undefined,
    queryIdPrefix,
    attempt: attempt(),
    signal: cancellationSignal(),
    killOnCancel: (queryId, run) => killOnCancel(target, queryId, run),
    isTargetGone,
    onRun: (q, kind, n) => heartbeat({ step, query: q, run: `${kind} ${n}` }),
    onProgress: (p) => heartbeat({ result_rows: p.result_rows, result_bytes: p.result_bytes }),
  };
  return { options, probe };
}

/**
 * The options of one insert grid point (`measureInsertPoint`, src/measure/insert-point.ts): the
 * point's own pieces (`p`: the point, its grid, table, record file, client and heartbeat), its
 * `settings` (`insertPointSettings`), and from the step's context the cell's workload schema and codec
 * profile, the attempt, the query_id prefix `<cell prefix for ins-<key>>-a<attempt>`, and the server's
 * `system.query_log` as the cell's `provision.json` `server.query_log` says (else the probe's
 * `query_log.enabled`). Opens the sampler's own client (closed with the step).
 */
export function insertPointOptions(
  ctx: StepContext,
  p: Pick<InsertPointOptions, 'point' | 'grid' | 'table' | 'file' | 'client' | 'heartbeat'>,
  probe: CapabilityProbe,
  settings: InsertPointSettings,
): InsertPointOptions {
  const { cell } = ctx;
  const provision = ctx.read('provision.json', ProvisionQueryLog);
  return {
    target: ctx.target,
    client: p.client,
    sampler: ctx.client(),
    point: p.point,
    grid: p.grid,
    workload: cell.workload,
    schemaFile: ctx.workload.schema,
    codec: ctx.codec,
    table: p.table,
    tableSettings: settings.table,
    insertSettings: settings.insert,
    attempt: ctx.attempt,
    queryIdPrefix: `${cellQueryIdPrefix(cell.runId, cell.cellKey, `ins-${p.point.key}`)}-a${ctx.attempt}`,
    serverOnHost: ctx.caps.onWorkerHost,
    queryLog: provision ? provision.server.query_log === 'available' : probe.query_log.enabled,
    systemLogs: probe.query_log.enabled,
    file: p.file,
    signal: ctx.signal,
    heartbeat: p.heartbeat,
  };
}
