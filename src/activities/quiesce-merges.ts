/**
 * quiesceMerges: wait until no merge or mutation runs on the table and the set of active parts has
 * stayed the same for `protocol.quiesce.stableForMs`. Heartbeats while waiting; bounded by
 * `protocol.quiesce.timeoutMs` with a clear error.
 */
import { performance } from 'node:perf_hooks';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../schema/failures';
import { activeParts, pendingMutations, runningMerges } from '../clickhouse/table-state';
import { pollUntil } from '../lib/poll';
import type { QuiesceSummary } from '../schema/cell';
import { QuiesceRecord } from '../schema/results';
import type { StepContext } from './step-context';

/** Activity factory. */
export function createQuiesceMerges() {
  return {
    /**
     * Wait for a quiet table. Writes `quiesce-<label>.json`.
     * @returns the active part count measured against and how long it waited (ms).
     * @throws ApplicationFailure `QuiesceTimeout` (non-retryable) when the table is not quiet in time.
     */
    async quiesceMerges(ctx: StepContext, label = 'after-load'): Promise<QuiesceSummary> {
      const table = ctx.workload.table;
      const q = ctx.cell.protocol.quiesce;
      const client = ctx.client();
      const t0 = performance.now();
      // Worker wall clock of the wait (quiesce-<label>.json started_at/finished_at: a step window for the cloud metrics).
      const startedAt = new Date().toISOString();
      let last = '';
      let stableSince = performance.now();
      let seen: { parts: number; merges: number | null; mutations: number | null } = {
        parts: 0,
        merges: 0,
        mutations: 0,
      };
      // A server with none of system.parts / merges / mutations (chdb 1.4.1, ClickHouse 23.10) shows
      // nothing to wait for: recorded as not observable, with why, instead of a wait that proves nothing.
      const first = await activeParts(client, table);
      if (
        !first.available &&
        (await runningMerges(client, table)) === null &&
        (await pendingMutations(client, table)) === null
      ) {
        const out: QuiesceSummary = { active_parts: null, waited_ms: performance.now() - t0 };
        ctx.write(`quiesce-${label}.json`, QuiesceRecord, {
          ...out,
          part_names: [],
          stable_for_ms: q.stableForMs,
          not_observable:
            'n/a: this server has no system.parts, system.merges or system.mutations, so neither parts nor merges can be watched (chdb 1.4.1 / ClickHouse 23.10 re-opens its data for every statement: no background merge runs between statements)',
          started_at: startedAt,
          finished_at: new Date().toISOString(),
        });
        return out;
      }
      return await pollUntil(
        async () => {
          const [parts, merges, mutations] = [
            await activeParts(client, table),
            await runningMerges(client, table),
            await pendingMutations(client, table),
          ];
          seen = { parts: parts.names.length, merges, mutations };
          const key = parts.names.join(',');
          const now = performance.now();
          if (key !== last || (merges ?? 0) > 0 || (mutations ?? 0) > 0) {
            last = key;
            stableSince = now;
          }
          const stableMs = now - stableSince;
          ctx.heartbeat({
            step: 'quiesce',
            active_parts: parts.names.length,
            ...(merges === null ? {} : { merges }),
            ...(mutations === null ? {} : { mutations }),
            stable_ms: Math.round(stableMs),
          });
          if (stableMs < q.stableForMs) return undefined;
          const out: QuiesceSummary = { active_parts: parts.names.length, waited_ms: now - t0 };
          ctx.write(`quiesce-${label}.json`, QuiesceRecord, {
            ...out,
            part_names: parts.names,
            stable_for_ms: q.stableForMs,
            started_at: startedAt,
            finished_at: new Date().toISOString(),
          });
          return out;
        },
        {
          timeoutMs: q.timeoutMs,
          intervalMs: q.pollMs,
          sleep: ctx.sleep,
          stopOn: () => true,
          onTimeout: () =>
            ApplicationFailure.create({
              type: FAILURE.QuiesceTimeout,
              nonRetryable: true,
              message: `quiesce: table ${table} not quiet after ${q.timeoutMs} ms (active parts ${seen.parts}, merges running ${seen.merges ?? 'n/a'}, unfinished mutations ${seen.mutations ?? 'n/a'}); raise protocol.quiesce.timeoutMs or check system.merges`,
            }),
        },
      );
    },
  };
}
