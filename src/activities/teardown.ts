/**
 * teardown: archive the server's statement log for this cell, then stop/drop what provision created
 * (process + data directory, or the cell's database). Idempotent; runs in a non-cancellable scope of
 * the cell workflow, after results were written.
 *
 * The archive — `system.query_log` rows of the cell's query ids where the server keeps it, else the
 * embedded engine's `statements.jsonl` — is written to the cell's results as `server-log.jsonl`
 * before the data directory goes away: it shows every statement chbench ran, with start and end.
 */
import path from 'node:path';
import { teardownTarget, teardownCellResources, targetOf } from '../targets';
import { ApplicationFailure } from '@temporalio/common';
import { cellDir, writeJsonAtomic } from '../results/store';
import { FAILURE } from '../schema/failures';
import { keepAliveDuring } from '../clickhouse/statement-watch';
import { queryIdPrefix } from '../schema/cell';
import type { CellInput, StepInput } from '../schema/cell';
import type { TargetHandle } from '../schema/target';

/**
 * Copy the statements of a cell into `file` (JSON lines: query_id, started/finished ms, ok): the
 * target's `archiveStatements` verb (its own statement log, or `system.query_log`).
 * @returns the source used, or why there is none.
 */
export function archiveServerLog(target: TargetHandle, prefix: string, file: string): Promise<string> {
  return targetOf(target).archiveStatements(target, prefix, file);
}

/** What a teardown returns: done, and (when its record could not be written) why not. */
export interface TeardownOutcome {
  torn_down: true;
  /** Set when `teardown.json` could not be written (a full disk): the server is down all the same, the cell's measurements stand. */
  note?: string;
}

/**
 * Write `teardown.json`; a full disk (`DiskFull`) does not undo a teardown that happened: the server is
 * stopped and the cell's measurements stand, so the failure becomes a note instead of a failed step.
 */
function recordTeardown(file: string, value: unknown): TeardownOutcome {
  try {
    writeJsonAtomic(file, value);
    return { torn_down: true };
  } catch (e) {
    if (e instanceof ApplicationFailure && e.type === FAILURE.DiskFull)
      return { torn_down: true, note: `teardown done; ${e.message}` };
    throw e;
  }
}

/** Activity factory. */
export function createTeardown(deps: { workDir: string }) {
  return {
    /**
     * Tear down a cell whose provision never returned a handle (it failed, or the cell was cancelled
     * while provisioning): removes whatever the attempts created. Records `teardown.json`.
     */
    async teardownUnprovisioned(cell: CellInput): Promise<TeardownOutcome> {
      // Stopping processes / removing directories is not a statement: heartbeat while it runs (bounded by stop deadlines).
      const what = await keepAliveDuring(
        'teardown',
        teardownCellResources(cell.target, {
          runId: cell.runId,
          cellKey: cell.cellKey,
          version: cell.version,
          workDir: path.resolve(deps.workDir),
        }),
      );
      return recordTeardown(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'teardown.json'), {
        torn_down_at: new Date().toISOString(),
        kind: cell.target.kind,
        what,
        server_log_archive: 'not available: the cell was never provisioned',
      });
    },
    /** Archive the statement log, tear the target down; records `teardown.json`. */
    async teardown({ cell, target }: StepInput): Promise<TeardownOutcome> {
      const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
      const prefix = queryIdPrefix(cell.runId, cell.cellKey, '').replace(/-$/, '');
      const archive = await archiveServerLog(target, prefix, path.join(dir, 'server-log.jsonl')).catch(
        (e: Error) => `not available: ${e.message}`,
      );
      await keepAliveDuring('teardown', teardownTarget(target));
      return recordTeardown(path.join(dir, 'teardown.json'), {
        torn_down_at: new Date().toISOString(),
        kind: target.kind,
        what: targetOf(target).describeTeardown(target),
        server_log_archive: archive,
      });
    },
  };
}
