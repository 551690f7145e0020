/**
 * The matrix's last steps, run in a non-cancellable scope so a cancelled run still gets them: the
 * cloud metrics and cost of its cells (when the spec has `cloud`, not on a cancelled run), the report
 * (`writeReport`), and the run stored again in the results database with its final status.
 *
 * Part of `benchmarkMatrix` (./benchmark-matrix.ts): the commands are issued in the order they
 * always were, so recorded histories replay.
 */
import { proxyActivities, patched, type ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { MatrixResult } from '../schema/progress';
import type { RunSpec } from '../schema/run-spec';
import { FAILURE } from '../schema/failures';
import type { MatrixRun } from './matrix-run';
import { storeInResultsDb } from './matrix-compare';

/** The report: quick, a few attempts (as the spec's validation). */
const REPORT: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE.InvalidSpec] },
};
const { writeReport } = proxyActivities<Activities>(REPORT);

/**
 * Patch id: a run whose spec has `cloud` collects its cloud metrics and cost after the cells (not
 * cancelled). Histories recorded before it had no such step.
 */
export const CLOUD_METRICS_STEP = 'cloud-metrics';

/**
 * Options of `collectCloudMetrics`: it first waits until CloudWatch's newest minute is final
 * (`cloud.settleMs` after the last cell's teardown), heartbeating, then reads every cell.
 */
function cloudMetricsOptions(settleMs: number): ActivityOptions {
  return {
    startToCloseTimeout: settleMs + 30 * 60_000,
    heartbeatTimeout: '1 minute',
    retry: { maximumAttempts: 3 },
  };
}

/**
 * Collect the cloud figures, write the report and store the run's final state; returns the
 * matrix's result. Call inside `CancellationScope.nonCancellable`.
 */
export async function finishWithReport(
  run: MatrixRun,
  spec: RunSpec,
  {
    runId,
    status,
    storeDb,
    comparison,
    verdicts,
  }: {
    runId: string;
    status: MatrixResult['status'];
    storeDb: boolean;
    comparison?: MatrixResult['comparison'];
    verdicts?: MatrixResult['verdicts'];
  },
): Promise<MatrixResult> {
  run.enter('report');
  // Cloud metrics and cost of the Kubernetes cells, before the report that shows them. Not on a
  // cancelled run (it would wait minutes for CloudWatch). Histories without it replay unchanged.
  if (spec.cloud && status !== 'cancelled' && patched(CLOUD_METRICS_STEP)) {
    const { collectCloudMetrics } = proxyActivities<Activities>(cloudMetricsOptions(spec.cloud.settleMs));
    try {
      await collectCloudMetrics.executeWithOptions({ summary: 'CloudWatch metrics and cost per cell' }, [
        { resultsDir: spec.resultsDir, runId },
      ]);
    } catch {
      // The measured cells stand without their cloud figures: the report says they are missing.
    }
  }
  const { reportPath } = await writeReport.executeWithOptions({ summary: 'render report.md' }, [
    { resultsDir: spec.resultsDir, runId, status },
  ]);
  run.progress.reportPath = reportPath;
  // Again after the report: the run's final status and end time (run.json) and its comparison.
  if (storeDb) await storeInResultsDb(spec, runId);
  run.enter(status === 'cancelled' ? 'cancelled' : 'done');
  return {
    runId,
    reportPath,
    status,
    cells: run.outcomes,
    ...(comparison ? { comparison } : {}),
    ...(verdicts ? { verdicts } : {}),
  } satisfies MatrixResult;
}
