/**
 * The skip-index method of a cell: `ADD INDEX`, then `MATERIALIZE INDEX` (or adopting the one an
 * earlier attempt left running), waited for on `system.mutations` until it is done, then the index's
 * size and its proof. The `materializeSkipIndex` activity (src/activities/materialize-skip-index.ts)
 * writes the record this returns as `index.json`.
 *
 * Figures and their sources:
 * - `materialize_ms`: worker wall time (`performance.now()`) from issuing MATERIALIZE INDEX (or
 *   adopting it) to `system.mutations.is_done = 1`; on a server without `system.mutations`, the
 *   statement's own wall time (it returns when done: `mutations_sync = 1`);
 * - `index_bytes`, `index_uncompressed_bytes`: `system.data_skipping_indices`, else `system.parts`
 *   (src/clickhouse/table-state.ts `indexSize`);
 * - `mutations`: the table's MATERIALIZE INDEX rows of `system.mutations`; `verification`: every
 *   active part carries the index and EXPLAIN shows it skipping granules (src/measure/index-proof.ts);
 * - `started_at` / `finished_at`: the worker's wall clock of the same span (the cloud metrics' index-build window).
 */
import { performance } from 'node:perf_hooks';
import type { ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { tryCommand } from '../clickhouse/client';
import { hasSystemTable, indexSize, materializeMutations, noSystemTable } from '../clickhouse/table-state';
import { pollUntil } from '../lib/poll';
import { FAILURE } from '../schema/failures';
import type { IndexRecord } from '../schema/results';
import { verifyIndex } from './index-proof';

/** What {@link buildSkipIndex} builds and how it waits. */
export interface SkipIndexOptions {
  table: string;
  /** The index's name (the workload's `index.name`). */
  index: string;
  /** The rendered `ALTER TABLE … ADD INDEX …` statement. */
  addSql: string;
  /** The queries that use the index, for the EXPLAIN proof. */
  uses: { id: string; sql: string }[];
  /** Query settings of the measured runs (the spec's `settings.query`), for the EXPLAIN. */
  runSettings: Record<string, string | number>;
  /** Cancellation of the activity: abandons the MATERIALIZE request (the server's mutation is not killed). */
  signal: AbortSignal | undefined;
  /** Called before MATERIALIZE and after each poll, with `{ step: 'materialize-index', parts_to_do?, mutations? }`. */
  heartbeat(details: Record<string, unknown>): void;
  sleep(ms: number): Promise<void>;
}

/**
 * Build the skip index and wait for it (merges started first: mutations run in the background pool).
 * @returns the `index.json` record.
 * @throws ApplicationFailure `MutationFailed` (non-retryable) with the server's `latest_fail_reason`.
 */
export async function buildSkipIndex(client: ClickHouseClient, o: SkipIndexOptions): Promise<IndexRecord> {
  const { table, index: idx } = o;
  const startMerges = await tryCommand(client, `SYSTEM START MERGES ${table}`);
  await client.command({ query: o.addSql });
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  const adopted = (await materializeMutations(client, table, idx)).some((r) => !Number(r.is_done));
  const materialize = `ALTER TABLE ${table} MATERIALIZE INDEX ${idx}`;
  if (!adopted) {
    // Real servers return at once (asynchronous mutation); the embedded engine returns when done.
    // The watched client heartbeats while it runs; background merges/mutations count as its progress.
    o.heartbeat({ step: 'materialize-index' });
    await client.command({ query: materialize, abort_signal: o.signal });
  }
  await pollUntil(
    async () => {
      const rows = await materializeMutations(client, table, idx);
      const failed = rows.find((r) => r.latest_fail_reason);
      if (failed)
        throw ApplicationFailure.create({
          type: FAILURE.MutationFailed,
          nonRetryable: true,
          message: `materialize index ${idx}: mutation ${failed.mutation_id} failed: ${failed.latest_fail_reason}`,
        });
      const todo = rows.reduce((a, r) => a + Number(r.parts_to_do), 0);
      o.heartbeat({ step: 'materialize-index', parts_to_do: todo, mutations: rows.length });
      // The embedded engine does not always list finished mutations; its command returned when done.
      return (rows.length > 0 && rows.every((r) => Number(r.is_done))) || (rows.length === 0 && !adopted);
    },
    // Bounded by the activity's own timeouts and the statement watcher.
    { timeoutMs: Infinity, intervalMs: (polls) => Math.min(2000, 200 * polls), sleep: o.sleep, stopOn: () => true },
  );
  const materializeMs = performance.now() - t0;
  const finishedAt = new Date().toISOString();
  const size = await indexSize(client, table, idx);
  const verification = await verifyIndex(client, table, idx, o.uses, o.runSettings);
  return {
    index: idx,
    add_sql: o.addSql,
    materialize_sql: materialize,
    adopted_mutation: adopted,
    materialize_ms: materializeMs,
    materialize_ms_source: (await hasSystemTable(client, 'mutations'))
      ? 'client wall time from issuing MATERIALIZE INDEX (or adopting it) to system.mutations.is_done = 1'
      : `client wall time of the MATERIALIZE INDEX statement (it returns when done: mutations_sync = 1); ${noSystemTable('mutations')}`,
    index_bytes: size.bytes,
    index_uncompressed_bytes: size.uncompressed_bytes,
    index_bytes_source: size.source,
    mutations: await materializeMutations(client, table, idx),
    start_merges: startMerges,
    verification,
    started_at: startedAt,
    finished_at: finishedAt,
  };
}
