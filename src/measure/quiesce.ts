/**
 * The quiet-table wait of a cell: poll the table until no merge or mutation runs and its set of
 * active parts has stayed the same for `stableForMs`, bounded by `timeoutMs`. The `quiesceMerges`
 * activity (src/activities/quiesce-merges.ts) writes the record this returns as `quiesce-<label>.json`.
 *
 * Sources: active parts from `system.parts` (`active = 1`), running merges from `system.merges`,
 * unfinished mutations from `system.mutations` (src/clickhouse/table-state.ts); `waited_ms` is worker
 * wall time (`performance.now()`) from the first check; `started_at` / `finished_at` the worker's wall
 * clock (the step window the cloud metrics use).
 */
import { performance } from 'node:perf_hooks';
import type { ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { activeParts, pendingMutations, runningMerges } from '../clickhouse/table-state';
import { pollUntil } from '../lib/poll';
import type { CellInput } from '../schema/cell';
import { FAILURE } from '../schema/failures';
import type { QuiesceRecord } from '../schema/results';

/** Why nothing is waited for on a server without the system tables that show parts and merges. */
const NOT_OBSERVABLE =
  'n/a: this server has no system.parts, system.merges or system.mutations, so neither parts nor merges can be watched (chdb 1.4.1 / ClickHouse 23.10 re-opens its data for every statement: no background merge runs between statements)';

/**
 * Wait until `table` is quiet. A server with none of `system.parts` / `merges` / `mutations` (chdb
 * 1.4.1, ClickHouse 23.10) shows nothing to wait for: the record says so (`not_observable`) at once.
 * `io.heartbeat` gets `{ step: 'quiesce', active_parts, merges?, mutations?, stable_ms }` after each check.
 * @returns the `quiesce-<label>.json` record (active parts and their names when quiet; ms waited).
 * @throws ApplicationFailure `QuiesceTimeout` (non-retryable) when the table is not quiet within `q.timeoutMs`.
 */
export async function waitForQuietTable(
  client: ClickHouseClient,
  table: string,
  q: CellInput['protocol']['quiesce'],
  io: { heartbeat(details: Record<string, unknown>): void; sleep(ms: number): Promise<void> },
): Promise<QuiesceRecord> {
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  const record = (active: number | null, names: string[], extra: Partial<QuiesceRecord> = {}): QuiesceRecord => ({
    active_parts: active,
    waited_ms: performance.now() - t0,
    part_names: names,
    stable_for_ms: q.stableForMs,
    ...extra,
    started_at: startedAt,
    finished_at: new Date().toISOString(),
  });
  const first = await activeParts(client, table);
  if (
    !first.available &&
    (await runningMerges(client, table)) === null &&
    (await pendingMutations(client, table)) === null
  )
    return record(null, [], { not_observable: NOT_OBSERVABLE });
  let last = '';
  let stableSince = performance.now();
  let seen: { parts: number; merges: number | null; mutations: number | null } = { parts: 0, merges: 0, mutations: 0 };
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
      io.heartbeat({
        step: 'quiesce',
        active_parts: parts.names.length,
        ...(merges === null ? {} : { merges }),
        ...(mutations === null ? {} : { mutations }),
        stable_ms: Math.round(stableMs),
      });
      return stableMs < q.stableForMs ? undefined : record(parts.names.length, parts.names);
    },
    {
      timeoutMs: q.timeoutMs,
      intervalMs: q.pollMs,
      sleep: io.sleep,
      stopOn: () => true,
      onTimeout: () =>
        ApplicationFailure.create({
          type: FAILURE.QuiesceTimeout,
          nonRetryable: true,
          message: `quiesce: table ${table} not quiet after ${q.timeoutMs} ms (active parts ${seen.parts}, merges running ${seen.merges ?? 'n/a'}, unfinished mutations ${seen.mutations ?? 'n/a'}); raise protocol.quiesce.timeoutMs or check system.merges`,
        }),
    },
  );
}
