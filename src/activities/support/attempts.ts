/**
 * Retries that never overlap their own previous attempt, and server-side cleanup on cancellation.
 *
 * Every statement chbench issues for a step has a query_id starting with the step's prefix
 * (`chb-<run>-<cell>-<step>`) and ending with `-a<attempt>`. Before a step re-issues a long statement
 * it looks for statements of earlier attempts still running on the server — `system.processes` on a
 * real server, `GET /chbench/running` on the embedded one — and kills them with the target's `kill`
 * verb (`KILL QUERY … SYNC`) or, where the engine cannot kill a running statement (embedded chdb),
 * waits for them to finish.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import type { TargetHandle } from '../../schema/target';
import { connect } from '../../clickhouse/client';
import { heartbeat, sleep, cancellationSignal } from '../../temporal/activity-context';
import { capabilitiesOf, targetOf } from '../../targets';
import { pollUntil } from '../../lib/poll';

/** Query ids with `prefix` running (or queued) on the target (its `runningStatements` verb). */
export function runningWithPrefix(target: TargetHandle, client: ClickHouseClient, prefix: string): Promise<string[]> {
  return targetOf(target).runningStatements(target, client, prefix);
}

/** What happened to earlier attempts' statements. */
export interface PreviousAttempts {
  /** Query ids that were still running when the step started. */
  found: string[];
  /** `killed` (real servers) or `waited` (engines that cannot interrupt a statement). */
  action: 'none' | 'killed' | 'waited';
  waited_ms: number;
}

/**
 * Make sure no statement of an earlier attempt of this step still runs. Heartbeats while waiting.
 * @throws ApplicationFailure `PreviousAttemptStuck` when it is still there after `timeoutMs`.
 */
export async function settlePreviousAttempts(
  target: TargetHandle,
  client: ClickHouseClient,
  prefix: string,
  timeoutMs = 3_600_000,
): Promise<PreviousAttempts> {
  const t0 = Date.now();
  const found = await runningWithPrefix(target, client, prefix);
  if (!found.length) return { found, action: 'none', waited_ms: 0 };
  const canKill = capabilitiesOf(target).canKillRunning;
  // What each KILL did does not matter here: the poll below waits until none is listed.
  if (canKill) for (const id of found) await targetOf(target).kill(target, client, id, { sync: true });
  let still = found;
  return await pollUntil(
    async () => {
      still = await runningWithPrefix(target, client, prefix);
      return !still.length && ({ found, action: canKill ? 'killed' : 'waited', waited_ms: Date.now() - t0 } as const);
    },
    {
      // Counted from t0, so the first look and the KILLs count towards the bound as before.
      timeoutMs: Math.max(0, timeoutMs - (Date.now() - t0)),
      intervalMs: 1000,
      sleep,
      stopOn: () => true,
      onTick: () =>
        heartbeat({
          waiting_for: still,
          progress: `waiting for ${still.length} statement(s) of an earlier attempt: ${still.join(', ')}`,
        }),
      onTimeout: () =>
        ApplicationFailure.create({
          type: FAILURE.PreviousAttemptStuck,
          nonRetryable: true,
          message: `statements of an earlier attempt are still running after ${timeoutMs} ms: ${still.join(', ')}`,
        }),
    },
  );
}

/**
 * While `work` runs, kill `queryId` on the server if the activity is cancelled (a user cancel, a
 * timeout, or worker shutdown), so a cancelled step leaves nothing running.
 */
export async function killOnCancel<T>(target: TargetHandle, queryId: string, work: Promise<T>): Promise<T> {
  const signal = cancellationSignal();
  if (!signal) return work;
  const onAbort = () => {
    const c = connect(target);
    void targetOf(target)
      .kill(target, c, queryId)
      .finally(() => c.close());
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await work;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Network errors that mean the server is gone (process died, port closed). */
const GONE = /ECONNREFUSED|ECONNRESET|socket hang up|EPIPE|ENOTCONN|other side closed/i;

/** True when `e` says the target server is unreachable rather than that a statement failed. */
export function isTargetGone(e: unknown): boolean {
  const err = e as NodeJS.ErrnoException & { cause?: unknown };
  return GONE.test(`${err?.code ?? ''} ${err?.message ?? ''}`) || (err?.cause !== undefined && isTargetGone(err.cause));
}
