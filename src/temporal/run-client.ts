/**
 * Client side of a run: start the matrix workflow and follow it with live progress ({@link ProgressView}:
 * the matrix's `progress` query plus each running cell's pending activity and heartbeat). Used by `chbench run` and the demo.
 */
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ProgressView, takeSnapshot } from './progress';
import type { RunSpec } from '../schema/run-spec';
import type { MatrixResult } from '../schema/progress';

/** A run id for a spec: `<name>-<UTC yyyymmdd-hhmmss>`. */
export function newRunId(name: string, now = new Date()): string {
  return `${name}-${now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`;
}

/**
 * Start `benchmarkMatrix` with the spec as input (the same JSON a user would pass to
 * `temporal workflow start --input-file`), and wait for it while drawing progress on stderr
 * (`opts.progress: false` draws nothing; bars on a terminal, plain lines otherwise).
 * @throws WorkflowFailedError when the workflow fails (e.g. InvalidSpec).
 */
export async function runAndFollow(
  client: Client,
  spec: RunSpec | unknown,
  runId: string,
  taskQueue: string,
  opts: { progress?: boolean } = {},
): Promise<MatrixResult> {
  const handle = await client.workflow.start('benchmarkMatrix', {
    taskQueue,
    workflowId: runId,
    args: [spec],
    staticSummary: `chbench run ${runId}`,
  });
  // Progress: on a terminal a multibar (overall + one line per running cell with its step and the
  // pending activity's heartbeat); otherwise changed lines at most every 5 s (`opts.progress: false`: none).
  const view = opts.progress === false ? undefined : new ProgressView({ stream: process.stderr });
  let busy = false;
  const refresh = async (): Promise<void> => {
    if (!view || busy) return;
    busy = true;
    try {
      const s = await takeSnapshot(client, runId);
      if (s && s.progress.total) view.update(s);
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

export { WorkflowFailedError };
