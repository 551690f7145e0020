/**
 * teardown: stop/drop what provision created (process + data directory, or the cell's database).
 * Idempotent; runs in a non-cancellable scope of the cell workflow, after results were written.
 */
import path from 'node:path';
import { teardownTarget } from '../targets';
import { cellDir, writeJsonAtomic } from '../lib/results-store';
import type { StepInput } from './types';

/** Activity factory. */
export function createTeardown() {
  return {
    /** Tear the target down; records `teardown.json`. */
    async teardown({ cell, target }: StepInput): Promise<{ torn_down: true }> {
      await teardownTarget(target);
      writeJsonAtomic(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'teardown.json'), {
        torn_down_at: new Date().toISOString(),
        kind: target.kind,
        what: target.kind === 'external' ? `DROP DATABASE ${target.database}` : `stopped pid ${target.pid}, removed ${target.dataDir}`,
      });
      return { torn_down: true };
    },
  };
}
