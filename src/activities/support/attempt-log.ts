/**
 * Every attempt of a cell step, recorded by the activity that made it: `attempts.jsonl` in the cell
 * folder, one {@link AttemptRecord} per line (phase, activity, attempt number, start and end times,
 * outcome, and for a failure its type, message and whether Temporal may retry it). Temporal keeps
 * only the last failure of an activity; this log keeps them all, so a step that failed (or succeeded
 * on a retry) says in `result.json` what each attempt did and when (writeCellResult collects it).
 *
 * Writing the log never fails a step: an attempt whose line cannot be written (a results store that
 * is not mounted) is not recorded.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { NON_RETRYABLE } from '../../schema/failures';
import { AttemptRecord } from '../../schema/results';
import type { CellInput } from '../../schema/cell';
import { cellDir } from '../../results/store';
import { activityIdentity, attempt, currentActivity } from '../../temporal/activity-context';

/** The log's file name in the cell folder. */
export const ATTEMPT_LOG_FILE = 'attempts.jsonl';

/** Longest error message kept per attempt, characters. */
const MAX_ERROR_CHARS = 2000;

/**
 * The cell phase of an activity call (the phase names of `CELL_STEPS`): `runQueries(si, 'index')` is
 * `queries-index`, `quiesceMerges(si, 'after-index')` is `quiesce-index`, `collectMetrics(si, 'end')`
 * is `collect-metrics-end`; `undefined` for an activity that is not a cell step.
 */
export function phaseOf(activity: string, args: readonly unknown[]): string | undefined {
  switch (activity) {
    case 'provision':
      return 'provision';
    case 'createSchema':
      return 'create-schema';
    case 'loadData':
      return 'load';
    case 'quiesceMerges':
      return args[1] === 'after-index' ? 'quiesce-index' : 'quiesce';
    case 'storageStats':
      return 'storage';
    case 'runQueries':
      return args[1] === 'index' ? 'queries-index' : 'queries-baseline';
    case 'materializeSkipIndex':
      return 'materialize-index';
    case 'collectMetrics':
      return args[1] === 'end' ? 'collect-metrics-end' : 'collect-metrics';
    case 'concurrencyStep':
      return 'concurrency';
    case 'insertPoint':
      return 'insert-grid';
    default:
      return undefined;
  }
}

/** The cell of a cell step's arguments: `provision(cell, …)` or `step({ cell, target }, …)`. */
function cellOf(args: readonly unknown[]): CellInput | undefined {
  const a = args[0] as (Partial<CellInput> & { cell?: CellInput }) | undefined;
  const c = a?.cell ?? a;
  return c && typeof c.resultsDir === 'string' && typeof c.runId === 'string' && typeof c.cellKey === 'string'
    ? (c as CellInput)
    : undefined;
}

/** Type, message and retryability of an activity's failure. */
function describeError(e: unknown): Pick<AttemptRecord, 'failure_type' | 'error' | 'retryable'> {
  const err = e as Error & { type?: string; nonRetryable?: boolean };
  const type = e instanceof ApplicationFailure ? (e.type ?? 'Error') : (err?.name ?? 'Error');
  const retryable = !(e instanceof ApplicationFailure && (e.nonRetryable || NON_RETRYABLE.includes(type)));
  return {
    failure_type: type,
    error: String(err?.message ?? e).slice(0, MAX_ERROR_CHARS),
    retryable,
  };
}

/** One statement killed on cancellation, as the attempt record's `cancel_kills` lists it. */
export type CancelKill = NonNullable<AttemptRecord['cancel_kills']>[number];

const cancelKills = new WeakMap<object, CancelKill[]>();

/**
 * Note a kill made on cancellation for the attempt record of activity `ctx` (default: the current
 * one; pass it from an abort listener, which runs outside the activity). No-op without an activity.
 */
export function recordCancelKill(k: CancelKill, ctx: object | undefined = currentActivity()): void {
  if (!ctx) return;
  const list = cancelKills.get(ctx) ?? [];
  list.push(k);
  cancelKills.set(ctx, list);
}

/** Append one record to the cell's log; never throws. */
function append(dir: string, rec: AttemptRecord): void {
  try {
    mkdirSync(dir, { recursive: true });
    appendFileSync(path.join(dir, ATTEMPT_LOG_FILE), JSON.stringify(rec) + '\n');
  } catch {
    /* a results store this worker cannot write: the attempt is not recorded (see the module doc) */
  }
}

/**
 * Wrap the cell-step activities of `acts` so each attempt appends its {@link AttemptRecord} to the
 * cell's `attempts.jsonl` when it ends (succeeded, failed or cancelled). Other activities pass through.
 * The error reaches Temporal unchanged.
 */
export function withAttemptLog<T extends Record<string, (...a: any[]) => Promise<unknown>>>(acts: T): T {
  const out: Record<string, (...a: any[]) => Promise<unknown>> = {};
  for (const [name, fn] of Object.entries(acts)) {
    out[name] = async (...a: any[]) => {
      const phase = phaseOf(name, a);
      const cell = phase ? cellOf(a) : undefined;
      if (!phase || !cell) return fn(...a);
      const t0 = Date.now();
      const base = () => {
        const ended = Date.now();
        const run = activityIdentity()?.runId;
        return {
          phase,
          activity: name,
          attempt: attempt(),
          started_at: new Date(t0).toISOString(),
          ended_at: new Date(ended).toISOString(),
          duration_ms: ended - t0,
          ...(run ? { workflow_run_id: run } : {}),
        };
      };
      const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
      try {
        const r = await fn(...a);
        append(dir, { ...base(), outcome: 'succeeded' });
        return r;
      } catch (e) {
        const ctx = currentActivity();
        const cancelled = e instanceof CancelledFailure || !!ctx?.cancellationSignal.aborted;
        const kills = ctx && cancelKills.get(ctx);
        append(dir, {
          ...base(),
          outcome: cancelled ? 'cancelled' : 'failed',
          ...describeError(e),
          ...(kills?.length ? { cancel_kills: kills } : {}),
        });
        throw e;
      }
    };
  }
  return out as T;
}

/**
 * The log of the cell folder `dir`: the records of workflow run `workflowRunId` (all records when it
 * is undefined, and records that name no run), in the order written. Lines that do not parse are skipped.
 */
export function readAttemptLog(dir: string, workflowRunId?: string): AttemptRecord[] {
  const file = path.join(dir, ATTEMPT_LOG_FILE);
  if (!existsSync(file)) return [];
  const out: AttemptRecord[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const r = AttemptRecord.safeParse(parsed);
    if (!r.success) continue;
    if (workflowRunId && r.data.workflow_run_id && r.data.workflow_run_id !== workflowRunId) continue;
    out.push(r.data);
  }
  return out;
}

/**
 * Empty the cell folder `dir` for a fresh start of the cell, keeping the attempt records of the
 * current workflow run (earlier attempts of this very provisioning, which ran before this one).
 */
export function clearCellDirKeepingAttempts(dir: string): void {
  const run = activityIdentity()?.runId;
  const keep = run ? readAttemptLog(dir).filter((r) => r.workflow_run_id === run) : [];
  rmSync(dir, { recursive: true, force: true });
  if (keep.length) {
    mkdirSync(dir, { recursive: true });
    appendFileSync(path.join(dir, ATTEMPT_LOG_FILE), keep.map((r) => JSON.stringify(r) + '\n').join(''));
  }
}

/**
 * Attempt records grouped by phase, in the order the phases first appear.
 * @returns `{}` when there are none.
 */
export function attemptsByPhase(records: readonly AttemptRecord[]): Record<string, AttemptRecord[]> {
  const out: Record<string, AttemptRecord[]> = {};
  for (const r of records) (out[r.phase] ??= []).push(r);
  return out;
}
