/**
 * The measurement options of a cell's query runs, built once from the cell's inputs (protocol, the
 * capability probe in `probe.json`, the spec's settings as checked at provisioning, the target's
 * capabilities) and the activity's context (attempt, cancellation, heartbeats). Used by the query
 * step (`runQueries`) and by the confirming re-run (`runInterleaved`), so both measure a run the same way.
 */
import path from 'node:path';
import type { MeasureOptions } from '../../measure/protocol';
import { coldCacheDrops, serverPodOf } from '../../measure/cold-cycle';
import { cellDir, readRecordIfExists } from '../../results/store';
import { attempt, heartbeat, cancellationSignal } from '../../temporal/activity-context';
import { killOnCancel, isTargetGone } from './attempts';
import { capabilitiesOf } from '../../targets';
import type { StepInput } from '../../schema/cell';
import { CapabilityProbe } from '../../schema/results';
import { readCellSettings } from '../step-context';

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
