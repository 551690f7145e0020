/**
 * writeReport: render `results/<runId>/report.md` and `report.html` from the cells' result files (the
 * rendering: `src/results/run-report.ts`, in a child process of the worker).
 */
import path from 'node:path';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cancellationSignal, heartbeat } from '../../temporal/activity-context';
import { renderRunReports, type ReportInput } from '../../results/run-report';

/** The child process entry that renders a report (compiled next to this file). */
const RENDER_CHILD = path.join(__dirname, 'render-reports-child.js');

/** Activity factory. */
export function createWriteReport() {
  return {
    /**
     * Render the report (`report.md`, and `report.html` with its charts: a chart that fails to render is a
     * note in the page, not a failed report); also records the run's end and status in `run.json`.
     * The rendering runs in a child process: a 1,000-cell run's report needs a few hundred MB for a few
     * seconds, which the long-lived worker would otherwise keep as its own resident memory.
     * @returns the absolute paths of `report.md` and `report.html`.
     * @throws Error with the child's error message (or its last stderr lines) when it fails.
     */
    async writeReport(input: ReportInput): Promise<{ reportPath: string; htmlPath?: string }> {
      if (!existsSync(RENDER_CHILD)) return renderRunReports(input);
      const child = spawn(process.execPath, [RENDER_CHILD, JSON.stringify(input)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const tick = setInterval(() => heartbeat({ step: 'writeReport', rendering: input.runId }), 2000);
      // A cancelled activity (or a worker shutting down) must not leave a renderer behind.
      const signal = cancellationSignal();
      const kill = () => child.kill('SIGKILL');
      signal?.addEventListener('abort', kill);
      try {
        const code = await new Promise<number | null>((resolve, reject) => {
          child.on('error', reject);
          child.on('close', resolve);
        });
        if (code === 0) return JSON.parse(out) as { reportPath: string; htmlPath?: string };
        let reason = err.trim().split('\n').slice(-5).join(' | ');
        try {
          reason = (JSON.parse(out) as { error: string }).error;
        } catch {
          // killed or crashed before it could say why: its last stderr lines say what there is
        }
        throw new Error(`rendering the report failed (exit ${code}): ${reason}`);
      } finally {
        clearInterval(tick);
        signal?.removeEventListener('abort', kill);
      }
    },
  };
}
