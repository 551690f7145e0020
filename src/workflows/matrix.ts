/**
 * benchmarkMatrix: validate the spec, expand the matrix into cells, run one `benchmarkCell` child
 * workflow per cell (id `<runId>/<cellKey>`) with the spec's concurrency, then write the report.
 * A failed cell does not sink the others: its error is in its result and in the report.
 *
 * Input: the run spec exactly as written by the user (JSON of the YAML), so
 * `temporal workflow start --type benchmarkMatrix --task-queue chbench --input-file run.json` works.
 */
import {
  proxyActivities,
  executeChild,
  defineQuery,
  setHandler,
  workflowInfo,
  upsertSearchAttributes,
  CancellationScope,
  isCancellation,
  ParentClosePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CellInput, CellOutcome } from '../activities/types';
import { cellKey as keyOf, expandMatrix } from '../lib/matrix';
import type { RunSpecInput } from '../spec';
import { benchmarkCell } from './cell';
import { CODEC, PHASE, RUN_ID, VERSION } from './search-attributes';

/** Answer of the `progress` query. */
export interface MatrixProgress {
  runId: string;
  phase: 'validate' | 'cells' | 'report' | 'done' | 'cancelled';
  total: number;
  done: number;
  running: string[];
  failed: string[];
  skipped: string[];
  succeeded: string[];
  reportPath?: string;
}

export const matrixProgressQuery = defineQuery<MatrixProgress>('progress');

/** Result of the matrix workflow. */
export interface MatrixResult {
  runId: string;
  reportPath: string;
  status: 'completed' | 'cancelled';
  cells: CellOutcome[];
}

const { validateSpec, writeReport } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['InvalidSpec'] },
});

/** Run a benchmark matrix. @throws ApplicationFailure `InvalidSpec` before anything is provisioned. */
export async function benchmarkMatrix(specInput: RunSpecInput): Promise<MatrixResult> {
  const runId = workflowInfo().workflowId;
  const progress: MatrixProgress = { runId, phase: 'validate', total: 0, done: 0, running: [], failed: [], skipped: [], succeeded: [] };
  setHandler(matrixProgressQuery, () => progress);
  upsertSearchAttributes([
    { key: RUN_ID, value: runId },
    { key: PHASE, value: 'validate' },
  ]);

  const { spec } = await validateSpec.executeWithOptions(
    { startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['InvalidSpec'] }, summary: 'validate run spec' },
    [{ spec: specInput, runId, startedAt: new Date().toISOString() }],
  );
  const cells: CellInput[] = expandMatrix(spec).map((c) => ({
    runId,
    cellKey: keyOf(c),
    version: c.version,
    codec: c.codec,
    workload: spec.workload,
    scale: spec.scale,
    ...(spec.queries ? { queries: spec.queries } : {}),
    skipIndex: spec.skipIndex,
    protocol: spec.protocol,
    target: spec.target,
    teardown: spec.teardown,
    resultsDir: spec.resultsDir,
  }));
  progress.total = cells.length;
  progress.phase = 'cells';
  upsertSearchAttributes([{ key: PHASE, value: 'cells' }]);

  const outcomes: CellOutcome[] = [];
  let cancelled = false;
  const queue = [...cells];
  const runOne = async (cell: CellInput): Promise<void> => {
    progress.running.push(cell.cellKey);
    try {
      const r = await executeChild(benchmarkCell, {
        workflowId: `${runId}/${cell.cellKey}`,
        args: [cell],
        staticSummary: `${spec.workload} ${spec.scale.toLocaleString('en-US')} rows on ClickHouse ${cell.version}, codec ${cell.codec} (${spec.target.kind})`,
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        typedSearchAttributes: [
          { key: RUN_ID, value: runId },
          { key: VERSION, value: cell.version },
          { key: CODEC, value: cell.codec },
          { key: PHASE, value: 'provision' },
        ],
      });
      outcomes.push(r);
      (r.status === 'succeeded' ? progress.succeeded : r.status === 'skipped' ? progress.skipped : progress.failed).push(cell.cellKey);
    } catch (err) {
      if (isCancellation(err) || CancellationScope.current().consideredCancelled) cancelled = true;
      outcomes.push({ cellKey: cell.cellKey, status: cancelled ? 'cancelled' : 'failed', resultFile: '', error: String((err as Error).message) });
      progress.failed.push(cell.cellKey);
    } finally {
      progress.running = progress.running.filter((k) => k !== cell.cellKey);
      progress.done++;
    }
  };
  const lane = async (): Promise<void> => {
    for (let c = queue.shift(); c && !cancelled; c = queue.shift()) await runOne(c);
  };
  try {
    await Promise.all(Array.from({ length: Math.min(spec.concurrency, cells.length) }, lane));
  } catch (err) {
    if (!isCancellation(err)) throw err;
    cancelled = true;
  }
  if (CancellationScope.current().consideredCancelled) cancelled = true;

  // The report is written even when the run was cancelled: measured cells are kept.
  return CancellationScope.nonCancellable(async () => {
    progress.phase = 'report';
    upsertSearchAttributes([{ key: PHASE, value: 'report' }]);
    const { reportPath } = await writeReport.executeWithOptions(
      { startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 3 }, summary: 'render report.md' },
      [{ resultsDir: spec.resultsDir, runId, status: cancelled ? 'cancelled' : 'completed' }],
    );
    progress.phase = cancelled ? 'cancelled' : 'done';
    progress.reportPath = reportPath;
    upsertSearchAttributes([{ key: PHASE, value: progress.phase }]);
    return { runId, reportPath, status: cancelled ? 'cancelled' : 'completed', cells: outcomes };
  });
}
