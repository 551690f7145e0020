/**
 * insertPoint: one point of the insert grid (`grids.insert`) as its own durable activity. The point gets its
 * own table, generates its rows on the server before any timing, then `concurrency` closed-loop
 * clients INSERT the ready bodies while a sampler watches the server; afterwards `count()` is checked
 * against what the server acknowledged. The method is src/measure/insert-point.ts, the point's
 * settings src/measure/cell-settings.ts `insertPointSettings`.
 *
 * Idempotent: the table `<workload table>_ins_<key>` is dropped and created at the start, so a retry
 * starts clean; it is dropped at the end unless the grid's `keepTables`. The record
 * `grids/insert-<key>.json` (in the cell folder, {@link InsertPointRecord}) holds everything with each
 * figure's source; the activity returns the small {@link InsertPointSummary}.
 */
import { ApplicationFailure } from '@temporalio/common';
import { queryScalar } from '../clickhouse/client';
import { probeServer } from '../clickhouse/probe';
import { sqlIdent } from '../lib/sql';
import { insertPointSettings } from '../measure/cell-settings';
import { PreparedTooBig } from '../measure/insert-load';
import { insertPointRecord, measureInsertPoint, pointTable } from '../measure/insert-point';
import { FAILURE } from '../schema/failures';
import { InsertGridSpec, type InsertPoint, type InsertPointSummary } from '../schema/grids';
import { InsertPointRecord } from '../schema/results';
import { activityIdentity, sameActivity } from '../temporal/activity-context';
import type { StepContext } from './step-context';
import { insertPointOptions } from './support/measure-options';

const invalid = (message: string) =>
  ApplicationFailure.create({ type: FAILURE.InvalidSpec, nonRetryable: true, message });

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
  const { cell } = ctx;
  const heartbeat = (details: Record<string, unknown>) => ctx.heartbeat({ step: `insert-${point.key}`, ...details });
  heartbeat({ progress: `insert point ${point.key}: preparing` });
  if (!cell.grids?.insert) throw invalid(`insert point ${point.key}: the cell has no grids.insert spec`);
  const grid = InsertGridSpec.parse(cell.grids.insert);
  const table = pointTable(ctx.workload.table, point.key);
  const file = `grids/insert-${point.key}.json`;
  const client = ctx.client();
  const dropTable = (t: string) =>
    grid.keepTables ? undefined : client.command({ query: `DROP TABLE IF EXISTS ${sqlIdent(t)}` });
  // An earlier attempt of this very activity finished the point (its record is written) but its
  // completion never reached Temporal (the worker died in between): the point is not run again.
  const earlier = ctx.read(file, InsertPointRecord);
  const identity = activityIdentity();
  if (earlier && sameActivity(earlier.activity, identity)) {
    await dropTable(earlier.table);
    heartbeat({ progress: `insert point ${point.key}: finished by attempt ${earlier.summary.attempt}, kept` });
    return earlier.summary;
  }
  const probe = ctx.probe ?? (await probeServer(client, await queryScalar<string>(client, 'SELECT version()')));
  const settings = insertPointSettings(point, cell.settings?.optional ?? [], probe, ctx.settings);
  const options = insertPointOptions(ctx, { point, grid, table, file, client, heartbeat }, probe, settings);
  const m = await measureInsertPoint(options).catch((e: unknown) => {
    // Rows that cannot fit in memory will not fit on a retry either.
    throw e instanceof PreparedTooBig ? invalid(`insert point ${point.key}: ${e.message}`) : e;
  });
  // The scheduled activity that measured the point: a later attempt of the same one keeps this record.
  const record = { activity: identity ?? null, serverVersion: probe.version, notApplied: settings.not_applied };
  ctx.write(file, InsertPointRecord, insertPointRecord(options, m, record));
  await dropTable(table);
  heartbeat({ progress: `insert point ${point.key}: done, ${Math.round(m.summary.rowsPerS)} rows/s` });
  return m.summary;
}
