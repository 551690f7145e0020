/**
 * What the query step (src/activities/run-queries.ts) hands back from its records: the headline
 * figures the workflow gets, the note of a record cut short, and the failure a query error on the
 * server becomes. Pure.
 */
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE, clickHouseErrorName } from '../schema/failures';
import type { QueryHeadline } from '../schema/cell';
import type { QueryRecord } from '../schema/results';

/** Each query's headline figures (ms, rows), copied from its record's `stats` (all samples stay in the step file). */
export function queryHeadlines(records: QueryRecord[]): QueryHeadline[] {
  return records.map((r) => ({
    id: r.id,
    cold_ms: r.stats.cold_ms,
    warm_min_ms: r.stats.warm_min_ms,
    warm_median_ms: r.stats.warm_median_ms,
    read_rows: r.stats.read_rows,
  }));
}

/**
 * The `incomplete` note of a query record written when the step stopped midway (cancelled, or
 * `e` thrown) after `measured` of `total` queries: the record keeps those, without query_log figures.
 */
export function stoppedMidway(e: unknown, cancelled: boolean | undefined, measured: number, total: number): string {
  const why = cancelled
    ? 'cancelled'
    : `stopped by an error: ${((e as Error)?.message ?? String(e)).split('\n')[0].slice(0, 200)}`;
  return `${why}; ${measured} of ${total} queries measured (query_log figures not joined)`;
}

/**
 * The non-retryable `QueryFailed` failure for the queries of `file` that failed on the server
 * (retrying cannot fix a query error); undefined when none did. Its message names each query, run,
 * query_id and the server's `Code`; details `[{ file, failed: [id…], errors: [{ id, code, name }…] }]`
 * with each error's ClickHouse code (number, null when the error carried none) and name (18.16
 * writes no name: the code's).
 */
export function queriesFailed(file: string, records: QueryRecord[]): ApplicationFailure | undefined {
  const failed = records.filter((r) => r.error);
  if (!failed.length) return undefined;
  return ApplicationFailure.create({
    type: FAILURE.QueryFailed,
    nonRetryable: true,
    message: failed
      .map(
        (r) =>
          `${r.id.toUpperCase()} failed on run ${r.error!.run} (query_id ${r.error!.query_id}): Code ${r.error!.code}${r.error!.type ? ` ${r.error!.type}` : ''}: ${r.error!.message.split('\n')[0].slice(0, 300)}`,
      )
      .join('; '),
    details: [
      {
        file,
        failed: failed.map((r) => r.id),
        errors: failed.map(({ id, error }) => ({
          id,
          code: error!.code === null ? null : Number(error!.code),
          name: error!.code === null ? error!.type : clickHouseErrorName(error!.code, error!.type ?? undefined),
        })),
      },
    ],
  });
}
