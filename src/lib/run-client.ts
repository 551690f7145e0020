/**
 * Client side of a run: start the matrix workflow and follow it with a progress bar fed by the
 * workflow's `progress` query. Used by `chbench run` and the demo.
 */
import { Client, WorkflowFailedError } from '@temporalio/client';
import cliProgress from 'cli-progress';
import type { RunSpec } from '../spec';
import type { MatrixProgress, MatrixResult } from '../workflows/matrix';

/** A run id for a spec: `<name>-<UTC yyyymmdd-hhmmss>`. */
export function newRunId(name: string, now = new Date()): string {
  return `${name}-${now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`;
}

/**
 * Start `benchmarkMatrix` with the spec as input (the same JSON a user would pass to
 * `temporal workflow start --input-file`), and wait for it while drawing progress on stderr.
 * @throws WorkflowFailedError when the workflow fails (e.g. InvalidSpec).
 */
export async function runAndFollow(client: Client, spec: RunSpec | unknown, runId: string, taskQueue: string, opts: { progress?: boolean } = {}): Promise<MatrixResult> {
  const handle = await client.workflow.start('benchmarkMatrix', {
    taskQueue,
    workflowId: runId,
    args: [spec],
    staticSummary: `chbench run ${runId}`,
  });
  const show = opts.progress ?? process.stderr.isTTY;
  const bar = new cliProgress.SingleBar(
    { format: 'cells {bar} {value}/{total} | {phase} | running: {running}', hideCursor: true, stream: process.stderr, noTTYOutput: !show, notTTYSchedule: 5000 },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  const timer = setInterval(async () => {
    try {
      const p = await handle.query<MatrixProgress>('progress');
      const running = p.running.join(', ') || '-';
      if (!started && p.total) {
        bar.start(p.total, p.done, { phase: p.phase, running });
        started = true;
      } else if (started) bar.update(p.done, { phase: p.phase, running });
    } catch {
      /* workflow not started yet or finished */
    }
  }, 1000);
  try {
    return (await handle.result()) as MatrixResult;
  } finally {
    clearInterval(timer);
    if (started) bar.stop();
  }
}

export { WorkflowFailedError };
