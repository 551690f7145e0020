/**
 * Client side of a run: start the matrix workflow and follow it with live progress ({@link ProgressView}:
 * the matrix's `progress` query plus each running cell's pending activity and heartbeat), and tell
 * whether any worker polls the run's task queue. Used by `chbench run`/`watch`/`cancel`/`resume` and the demo.
 */
import { Client, WorkflowFailedError } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { ProgressView, takeSnapshot } from './progress';
import { POLLER_ALIVE_MS } from './host';
import type { RunSpec } from '../schema/run-spec';
import type { MatrixResult } from '../schema/progress';

/** A run id for a spec: `<name>-<UTC yyyymmdd-hhmmss>`. */
export function newRunId(name: string, now = new Date()): string {
  return `${name}-${now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`;
}

/** Options of {@link followRun} and {@link runAndFollow}. */
export interface FollowOptions {
  /** `false`: draw nothing. @default true */
  progress?: boolean;
  /** Draw into this view (the caller keeps it, e.g. to stop it on Ctrl-C); default a new one on stderr. */
  view?: ProgressView;
}

/**
 * Start `benchmarkMatrix` with the spec as input (the same JSON a user would pass to
 * `temporal workflow start --input-file`).
 * @throws WorkflowExecutionAlreadyStartedError when a workflow with this id is running
 */
export async function startRun(client: Client, spec: RunSpec | unknown, runId: string, taskQueue: string) {
  return client.workflow.start('benchmarkMatrix', {
    taskQueue,
    workflowId: runId,
    args: [spec],
    staticSummary: `chbench run ${runId}`,
  });
}

/**
 * Wait for the run `runId` (started here or elsewhere) to close while drawing its progress on
 * stderr: on a terminal a multibar (overall + one line per running cell with its step, the pending
 * activity's heartbeat and, while it retries, `attempt n: <error>`); otherwise changed lines at most
 * every 5 s. Follows continue-as-new to the last execution.
 * @throws WorkflowFailedError when the workflow fails or is cancelled; WorkflowNotFoundError for an unknown id
 */
export async function followRun(client: Client, runId: string, opts: FollowOptions = {}): Promise<MatrixResult> {
  const handle = client.workflow.getHandle(runId);
  const view = opts.progress === false ? undefined : (opts.view ?? new ProgressView({ stream: process.stderr }));
  let busy = false;
  const refresh = async (): Promise<void> => {
    if (!view || busy) return;
    busy = true;
    try {
      const s = await takeSnapshot(client, runId);
      if (s && (s.progress.total || s.matrixStep)) view.update(s);
    } catch {
      /* workflow not started yet or finished */
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void refresh(), 1000);
  try {
    return (await handle.result()) as MatrixResult;
  } finally {
    clearInterval(timer);
    view?.stop();
  }
}

/**
 * Start `benchmarkMatrix` ({@link startRun}) and wait for it ({@link followRun}).
 * @throws WorkflowFailedError when the workflow fails (e.g. InvalidSpec).
 */
export async function runAndFollow(
  client: Client,
  spec: RunSpec | unknown,
  runId: string,
  taskQueue: string,
  opts: FollowOptions = {},
): Promise<MatrixResult> {
  await startRun(client, spec, runId, taskQueue);
  return followRun(client, runId, opts);
}

/**
 * How many workers poll `taskQueue` for workflow tasks now: Temporal's `DescribeTaskQueue`
 * (workflow task queue type) `pollers`, counting those whose `lastAccessTime` is within
 * {@link POLLER_ALIVE_MS} of `now` (a worker that died a minute ago is still listed for a while).
 * @param now epoch ms
 * @throws the gRPC error when Temporal cannot be reached
 */
export async function liveWorkflowPollers(
  client: Client,
  namespace: string,
  taskQueue: string,
  now = Date.now(),
): Promise<number> {
  const r = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
  });
  return (r.pollers ?? []).filter((p) => now - (optionalTsToMs(p.lastAccessTime) ?? 0) <= POLLER_ALIVE_MS).length;
}

/** One poller of a task queue as `DescribeTaskQueue` lists it: its identity and last poll (epoch ms, null when unknown). */
export interface PollerSeen {
  identity: string;
  lastAccessMs: number | null;
}

/**
 * The pollers of `taskQueue`'s workflow task queue (`DescribeTaskQueue` pollers, `lastAccessTime`),
 * dead ones included (the server keeps a poller listed for a few minutes after its last poll).
 * @throws the gRPC error when the server cannot be asked
 */
export async function workflowPollers(client: Client, namespace: string, taskQueue: string): Promise<PollerSeen[]> {
  const r = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
  });
  return (r.pollers ?? []).map((p) => ({
    identity: p.identity ?? 'unknown',
    lastAccessMs: optionalTsToMs(p.lastAccessTime) ?? null,
  }));
}

/**
 * The pollers of `taskQueue`, workflow (`TASK_QUEUE_TYPE_WORKFLOW`) and activity
 * (`TASK_QUEUE_TYPE_ACTIVITY`) pollers both, from `DescribeTaskQueue` (`identity`, `lastAccessTime`):
 * a worker busy with activities (a cell retrying provision) polls the activity queue while its
 * workflow poller waits in a long poll, so the newest poll of either says the worker is alive.
 * @throws the gRPC error when the server cannot be asked
 */
export async function taskQueuePollers(client: Client, namespace: string, taskQueue: string): Promise<PollerSeen[]> {
  const activity = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: 2, // TASK_QUEUE_TYPE_ACTIVITY
  });
  return [
    ...(await workflowPollers(client, namespace, taskQueue)),
    ...(activity.pollers ?? []).map((p) => ({
      identity: p.identity ?? 'unknown',
      lastAccessMs: optionalTsToMs(p.lastAccessTime) ?? null,
    })),
  ];
}

export { WorkflowFailedError };
