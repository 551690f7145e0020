/**
 * A matrix cell as a child workflow: `benchmarkCell` under the id `<runId>/<cellKey>`, cancelled with
 * its parent, its search attributes set from the start (run id, version, codec, phase `provision`).
 * The matrix (./matrix-cells.ts) and the bisect (./bisect-context.ts) start their cells this way.
 */
import { executeChild, ParentClosePolicy } from '@temporalio/workflow';
import type { CellInput, CellOutcome } from '../schema/cell';
import { CODEC, PHASE, RUN_ID, VERSION } from '../schema/search-attributes';
import { benchmarkCell } from './benchmark-cell';

/** Run `cell` as the child `<runId>/<cellKey>` and wait for its outcome. @throws what the child throws */
export function executeCellChild(runId: string, cell: CellInput, staticSummary: string): Promise<CellOutcome> {
  return executeChild(benchmarkCell, {
    workflowId: `${runId}/${cell.cellKey}`,
    args: [cell],
    staticSummary,
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    typedSearchAttributes: [
      { key: RUN_ID, value: runId },
      { key: VERSION, value: cell.version },
      { key: CODEC, value: cell.codec },
      { key: PHASE, value: 'provision' },
    ],
  });
}
