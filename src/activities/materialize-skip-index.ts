/**
 * materializeSkipIndex: `ADD INDEX` + `MATERIALIZE INDEX`, then poll `system.mutations` until the
 * mutation is done, heartbeating with `parts_to_do` and failing clearly on `latest_fail_reason`.
 * Adopts a MATERIALIZE INDEX mutation that is already running (from an earlier attempt) instead of
 * issuing a second one. Records materialization time (client wall, ms, from issuing the statement
 * to `is_done = 1`) and index size (`system.data_skipping_indices`, else `system.parts`).
 */
import { performance } from 'node:perf_hooks';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../schema/failures';
import { tryCommand } from '../clickhouse/client';
import { hasSystemTable, indexSize, materializeMutations, noSystemTable } from '../clickhouse/table-state';
import { renderTemplate, workloadQueries } from '../lib/workload';
import { pollUntil } from '../lib/poll';
import type { IndexSummary } from '../schema/cell';
import { IndexRecord } from '../schema/results';
import { verifyIndex } from '../measure/index-proof';
import type { StepContext } from './step-context';

/** Activity factory. */
export function createMaterializeSkipIndex() {
  return {
    /**
     * Build the workload's skip index and wait for it. Writes `index.json`.
     * @throws ApplicationFailure `MutationFailed` (non-retryable) with the server's `latest_fail_reason`.
     */
    async materializeSkipIndex(ctx: StepContext): Promise<IndexSummary> {
      const { cell, workload: m } = ctx;
      if (!m.index)
        throw ApplicationFailure.create({
          type: FAILURE.NoIndex,
          nonRetryable: true,
          message: `workload ${m.name} defines no skip index`,
        });
      const idx = m.index.name;
      const client = ctx.client({ maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      // Mutations run in the background pool: make sure merges are not stopped by an earlier step.
      const startMerges = await tryCommand(client, `SYSTEM START MERGES ${m.table}`);
      const add = renderTemplate(cell.workload, m.index.add, {
        table: m.table,
        rows: cell.scale,
        codec: ctx.codec,
      });
      await client.command({ query: add });
      const t0 = performance.now();
      // Worker wall clock of the same span (index.json started_at/finished_at: the cloud metrics' index-build window).
      const startedAt = new Date().toISOString();
      const existing = (await materializeMutations(client, m.table, idx)).filter((r) => !Number(r.is_done));
      const adopted = existing.length > 0;
      const materialize = `ALTER TABLE ${m.table} MATERIALIZE INDEX ${idx}`;
      if (!adopted) {
        // Real servers return at once (asynchronous mutation); the embedded engine returns when done.
        // The watched client heartbeats while it runs; background merges/mutations count as its progress.
        ctx.heartbeat({ step: 'materialize-index' });
        // Cancelling the activity abandons the request (the step ends at once, as CancelledFailure);
        // the server's mutation itself is not killed (the embedded engine cannot interrupt it).
        await client.command({ query: materialize, abort_signal: ctx.signal });
      }
      await pollUntil(
        async () => {
          const rows = await materializeMutations(client, m.table, idx);
          const failed = rows.find((r) => r.latest_fail_reason);
          if (failed)
            throw ApplicationFailure.create({
              type: FAILURE.MutationFailed,
              nonRetryable: true,
              message: `materialize index ${idx}: mutation ${failed.mutation_id} failed: ${failed.latest_fail_reason}`,
            });
          const todo = rows.reduce((a, r) => a + Number(r.parts_to_do), 0);
          const done = rows.length > 0 && rows.every((r) => Number(r.is_done));
          ctx.heartbeat({ step: 'materialize-index', parts_to_do: todo, mutations: rows.length });
          // The embedded engine does not always list finished mutations; its command returned when done.
          return done || (rows.length === 0 && !adopted);
        },
        {
          timeoutMs: Infinity, // bounded by the activity's own timeouts and the statement watcher
          intervalMs: (polls) => Math.min(2000, 200 * polls),
          sleep: ctx.sleep,
          stopOn: () => true,
        },
      );
      const materializeMs = performance.now() - t0;
      const finishedAt = new Date().toISOString();
      const size = await indexSize(client, m.table, idx);
      const uses = workloadQueries(m, { table: m.table, rows: cell.scale, codec: ctx.codec }, cell.queries).filter(
        (q) => q.usesIndex,
      );
      const verification = await verifyIndex(client, m.table, idx, uses, ctx.settings.runs);
      const mutations = await materializeMutations(client, m.table, idx);
      ctx.write('index.json', IndexRecord, {
        index: idx,
        add_sql: add,
        materialize_sql: materialize,
        adopted_mutation: adopted,
        materialize_ms: materializeMs,
        materialize_ms_source: (await hasSystemTable(client, 'mutations'))
          ? 'client wall time from issuing MATERIALIZE INDEX (or adopting it) to system.mutations.is_done = 1'
          : `client wall time of the MATERIALIZE INDEX statement (it returns when done: mutations_sync = 1); ${noSystemTable('mutations')}`,
        index_bytes: size.bytes,
        index_uncompressed_bytes: size.uncompressed_bytes,
        index_bytes_source: size.source,
        mutations,
        start_merges: startMerges,
        verification,
        started_at: startedAt,
        finished_at: finishedAt,
      });
      return { index: idx, materialize_ms: materializeMs, index_bytes: size.bytes, adopted_mutation: adopted };
    },
  };
}
