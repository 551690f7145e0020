/**
 * The embedded server's `GET /chbench/running` endpoint (served by `server.ts`), read in one place:
 * the statements running or queued on the engine's one session, with the progress of the one that
 * runs. The embedded target's `runningStatements` and `statementProgress` verbs are built on it.
 */
import type { StatementProgress, WatchedStatement } from '../../clickhouse/statement-watch';
import type { TargetHandle } from '../../schema/target';
import { authHeaders, targetUrl } from '../../clickhouse/client';
import { httpGet } from '../process';

/** One entry of the embedded server's `GET /chbench/running`. */
export interface EmbeddedRunning {
  query_id: string;
  /** `sending`: the statement ran and its buffered result (a file on the server) is being sent; the engine is free. */
  state: 'running' | 'queued' | 'sending';
  received_at_ms: number;
  started_at_ms: number | null;
  sql_head: string;
  /** Progress of the executing statement (read by a second chdb session from `system.processes`); absent when queued or unreadable. */
  read_rows?: number | null;
  total_rows_approx?: number | null;
  written_rows?: number | null;
  elapsed_ms?: number | null;
  memory_usage?: number | null;
  /** Background merges/mutations of the engine (`system.merges`, `system.mutations`). */
  merges_rows_read?: number | null;
  merges_progress?: number | null;
  parts_to_do?: number | null;
  /** Why the counters are missing. */
  progress_error?: string;
  /** While `sending`: bytes of the result sent so far, and its size (bytes of the formatted result; uncompressed). */
  sent_bytes?: number;
  result_bytes?: number;
}

/**
 * `GET <url>/chbench/running`.
 * @param timeoutMs bound of the request, ms
 * @throws Error when the server does not answer 200 within `timeoutMs`
 */
export async function readRunning(handle: TargetHandle, timeoutMs: number): Promise<EmbeddedRunning[]> {
  // The URL this process reaches (a port-forward for a pod) and the target's credentials, if any.
  const url = targetUrl(handle);
  const r = await httpGet(`${url}/chbench/running`, timeoutMs, authHeaders(handle));
  if (r.status !== 200) throw new Error(`${url}/chbench/running: HTTP ${r.status}`);
  return JSON.parse(r.body) as EmbeddedRunning[];
}

function num(v: unknown): number | undefined {
  return v === undefined || v === null || v === '' ? undefined : Number(v);
}

/**
 * The embedded target's progress reader: each statement's entry of `/chbench/running`. A queued
 * statement progresses with the one it waits for; a listed statement without counters carries
 * `countersUnavailable` (the server's `progress_error`, or that it reports none).
 * @throws Error when the endpoint cannot be read
 */
export async function progressFromEndpoint(
  handle: TargetHandle,
  _monitor: unknown,
  list: readonly WatchedStatement[],
  timeoutMs: number,
): Promise<Map<string, StatementProgress>> {
  const out = new Map<string, StatementProgress>();
  const rows = await readRunning(handle, timeoutMs);
  const running = rows.find((x) => x.state === 'running');
  for (const st of list) {
    const e = rows.find((x) => x.query_id === st.queryId);
    if (!e) continue;
    if (e.state === 'sending') {
      // The engine is done; the body goes out: its sent bytes are the progress.
      out.set(st.queryId, {
        listed: true,
        state: 'sending',
        ...(e.sent_bytes !== undefined ? { sent_bytes: e.sent_bytes } : {}),
        ...(e.result_bytes !== undefined ? { result_size: e.result_bytes } : {}),
      });
      continue;
    }
    // A queued statement progresses with the one it waits for.
    const src = e.state === 'queued' ? running : e;
    const counters = src && src.read_rows !== undefined && src.read_rows !== null;
    out.set(st.queryId, {
      listed: true,
      state: e.state,
      ...(counters || !src
        ? {}
        : {
            countersUnavailable: src.progress_error ?? 'the embedded server reports no counters for this statement',
          }),
      ...(counters
        ? {
            rows_read: Number(src.read_rows),
            total_rows: num(src.total_rows_approx),
            written_rows: num(src.written_rows),
            memory_usage: num(src.memory_usage),
            elapsed_ms: src.elapsed_ms ?? undefined,
          }
        : {}),
      ...(counters && st.background
        ? {
            merges_rows: num(src.merges_rows_read),
            merges_progress: num(src.merges_progress),
            parts_to_do: num(src.parts_to_do),
          }
        : {}),
    });
  }
  return out;
}
