/**
 * insertPoint: one point of the insert grid (`grids.insert`) as its own durable activity. The point gets its
 * own table, generates its rows on the server before any timing, then `concurrency` closed-loop
 * clients INSERT the ready bodies while a sampler watches the server; afterwards `count()` is checked
 * against what the server acknowledged. The method is src/measure/insert-point.ts.
 *
 * Idempotent: the table `<workload table>_ins_<key>` is dropped and created at the start, so a retry
 * starts clean; it is dropped at the end unless the grid's `keepTables`.
 *
 * The record `grids/insert-<key>.json` (in the cell folder, {@link InsertPointRecord}) holds everything
 * with each figure's source; the activity returns the small {@link InsertPointSummary}.
 */
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { queryScalar } from '../clickhouse/client';
import { checkSettings } from '../clickhouse/settings';
import { probeServer } from '../clickhouse/probe';
import { sqlIdent } from '../lib/sql';
import { PreparedTooBig } from '../measure/insert-load';
import { measureInsertPoint, pointTable } from '../measure/insert-point';
import { FAILURE } from '../schema/failures';
import { InsertGridSpec, type InsertPoint, type InsertPointSummary } from '../schema/grids';
import { queryIdPrefix } from '../schema/cell';
import { InsertPointRecord, ProvisionQueryLog } from '../schema/results';
import { activityIdentity } from '../temporal/activity-context';
import type { StepContext } from './step-context';

/** Both identities are known and name the same scheduled activity (workflow id, run id, activity id). */
const sameActivity = (a: InsertPointRecord['activity'], b: ReturnType<typeof activityIdentity>) =>
  !!a && !!b && a.workflowId === b.workflowId && a.runId === b.runId && a.activityId === b.activityId;

const invalid = (type: string, message: string) => ApplicationFailure.create({ type, nonRetryable: true, message });

/** Activity factory (no dependencies: everything comes from the step context). */
export function createInsertGrid() {
  return { insertPoint };
}

/**
 * Run one insert point and write `grids/insert-<key>.json`.
 * @returns the point's small summary (rows/s, MB/s, latency, errors, verified, client-bound).
 * @throws ApplicationFailure `InvalidSpec` (non-retryable) when the cell has no `grids.insert`, or the
 *   point's rows do not fit in `maxBufferMiB`; `InvalidSetting` (non-retryable) when a setting of the
 *   point's profile is unknown on the server or at the wrong level (the message names the point and
 *   the setting); CancelledFailure when the activity was cancelled; ClickHouse errors of the
 *   DDL/generation.
 */
export async function insertPoint(ctx: StepContext, point: InsertPoint): Promise<InsertPointSummary> {
  const { cell, target } = ctx;
  const step = `insert-${point.key}`;
  const heartbeat = (details: Record<string, unknown>) => ctx.heartbeat({ step, ...details });
  heartbeat({ progress: `insert point ${point.key}: preparing` });
  if (!cell.grids?.insert)
    throw invalid(FAILURE.InvalidSpec, `insert point ${point.key}: the cell has no grids.insert spec`);
  const grid = InsertGridSpec.parse(cell.grids.insert);
  const table = pointTable(ctx.workload.table, point.key);
  const file = path.join('grids', `insert-${point.key}.json`);
  const client = ctx.client();
  const identity = activityIdentity();
  // An earlier attempt of this very activity finished the point (its record is written) but its
  // completion never reached Temporal (the worker died in between): the point is not run again.
  const earlier = ctx.read(file, InsertPointRecord);
  if (earlier && sameActivity(earlier.activity, identity)) {
    if (!grid.keepTables) await client.command({ query: `DROP TABLE IF EXISTS ${sqlIdent(earlier.table)}` });
    heartbeat({ progress: `insert point ${point.key}: finished by attempt ${earlier.summary.attempt}, kept` });
    return earlier.summary;
  }
  // The profile's settings, checked at their level against the server's capability probe. Names the
  // spec marks optional (settings.optional) are recorded as not applied on a version that lacks them.
  const probe = ctx.probe ?? (await probeServer(client, await queryScalar<string>(client, 'SELECT version()')));
  const { query, mergeTree } = point.profile;
  const checked = checkSettings(
    { query, mergeTree, optional: cell.settings?.optional ?? [] },
    probe,
    `insert point ${point.key}: settings profile "${point.profile.name}"`,
    { query: 'query', mergeTree: 'mergeTree' },
  );
  if (checked.problems.length)
    throw invalid(FAILURE.InvalidSetting, `settings refused before inserting:\n  - ${checked.problems.join('\n  - ')}`);
  const tableSettings = { ...ctx.settings.table, ...checked.applied.mergeTree };
  const insertSettings = { ...ctx.settings.runs, ...checked.applied.query };
  const provision = ctx.read('provision.json', ProvisionQueryLog);
  const m = await measureInsertPoint({
    target,
    client,
    sampler: ctx.client(),
    point,
    grid,
    workload: cell.workload,
    schemaFile: ctx.workload.schema,
    codec: ctx.codec,
    table,
    tableSettings,
    insertSettings,
    attempt: ctx.attempt,
    queryIdPrefix: `${queryIdPrefix(cell.runId, cell.cellKey, `ins-${point.key}`)}-a${ctx.attempt}`,
    serverOnHost: ctx.caps.onWorkerHost,
    queryLog: provision ? provision.server.query_log === 'available' : probe.query_log.enabled,
    systemLogs: probe.query_log.enabled,
    file,
    signal: ctx.signal,
    heartbeat,
  }).catch((e: unknown) => {
    // Rows that cannot fit in memory will not fit on a retry either.
    throw e instanceof PreparedTooBig ? invalid(FAILURE.InvalidSpec, `insert point ${point.key}: ${e.message}`) : e;
  });
  ctx.write(file, InsertPointRecord, {
    summary: m.summary,
    // The scheduled activity that measured the point: a later attempt of the same one keeps this record.
    activity: identity ?? null,
    point,
    attempt: ctx.attempt,
    table,
    server_version: probe.version,
    rows_planned: m.rowsPlanned,
    data: grid.data,
    settings_sent: { query: insertSettings, table: tableSettings, ddl: m.ddl },
    settings_not_applied: checked.not_applied,
    ...m.figures,
    finished_at: new Date().toISOString(),
  });
  if (!grid.keepTables) await client.command({ query: `DROP TABLE IF EXISTS ${sqlIdent(table)}` });
  heartbeat({ progress: `insert point ${point.key}: done, ${Math.round(m.summary.rowsPerS)} rows/s` });
  return m.summary;
}
