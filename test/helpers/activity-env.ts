/**
 * Activity-layer test helpers: run one activity in a `MockActivityEnvironment` while collecting its
 * heartbeats, and read the embedded engine's running statements.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import type { HeartbeatDetails } from '../../src/clickhouse/statement-watch';
import type { TargetHandle } from '../../src/schema/target';
import { authHeaders } from '../../src/clickhouse/client';

/** One heartbeat as the activity sent it, with the test's clock (epoch ms). */
export interface Beat {
  at: number;
  d: HeartbeatDetails;
}

/** An activity started in its own mock environment (cancellation is per environment and sticky). */
export interface RunningActivity<R> {
  /** Settles with the activity's result or failure; never rejects unobserved (see `settled`). */
  result: Promise<R>;
  /** Every heartbeat so far, in order. */
  beats: Beat[];
  /** Cancel the activity (as the server would after the workflow cancels it). */
  cancel(): void;
  /** `{ ok, value }` or `{ ok: false, error }` once the activity ended. */
  settled: Promise<{ ok: true; value: R } | { ok: false; error: unknown }>;
}

/**
 * Start `fn(...args)` as an activity with Temporal's defaults for chbench's cell steps (10 s
 * heartbeat timeout), collecting heartbeats.
 */
export function startActivity<A extends unknown[], R>(fn: (...a: A) => Promise<R>, ...args: A): RunningActivity<R> {
  const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 10_000, startToCloseTimeoutMs: 600_000 });
  const beats: Beat[] = [];
  env.on('heartbeat', (d: HeartbeatDetails) => beats.push({ at: Date.now(), d }));
  const result = env.run(fn, ...args) as Promise<R>;
  const settled = result.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { result, beats, cancel: () => env.cancel(), settled };
}

/** A statement of the embedded engine, as `GET /chbench/running` lists it. */
export interface EmbeddedStatement {
  query_id: string;
  state: 'running' | 'queued';
  sql_head: string;
}

/**
 * Statements running or queued on an embedded target (`GET <url>/chbench/running`).
 * @throws Error on a non-200 answer
 */
export async function embeddedRunning(target: TargetHandle): Promise<EmbeddedStatement[]> {
  const r = await fetch(`${target.url}/chbench/running`, {
    signal: AbortSignal.timeout(5000),
    headers: authHeaders(target),
  });
  if (!r.ok) throw new Error(`${target.url}/chbench/running: HTTP ${r.status}`);
  return (await r.json()) as EmbeddedStatement[];
}
