/** Verbs every process target (embedded, local) shares: stopping its server and removing its directory. */
import * as path from 'node:path';
import type { ProvisionRequest, TargetHandle } from '../../schema/target';
import { listCellDirs } from './cell-dir';
import { sanitizePathSegment } from '../../lib/fs';
import { stopProcess } from './proc';
import { removeCellCgroups } from '../../process/cgroup';

/** Milliseconds between SIGTERM and SIGKILL when a cell is torn down without a handle. */
const CELL_STOP_GRACE_MS = 15_000;

/**
 * Stop the handle's server and remove its directory (data included). Idempotent. Only a pid whose
 * command line names the handle's `dataDir` is signalled.
 * @param graceMs milliseconds between SIGTERM and SIGKILL
 * @throws Error when the handle has no dataDir, or the process survives SIGKILL
 */
export async function teardownProcess(handle: TargetHandle, graceMs: number): Promise<void> {
  if (!handle.dataDir) throw new Error(`teardown of ${handle.kind} target: handle has no dataDir`);
  await stopProcess(handle.pid, handle.dataDir, graceMs);
  if (handle.runId && handle.cellKey) removeCellCgroups(handle.runId, handle.cellKey);
}

/**
 * Stop every process and remove every directory under `<workDir>/<run>/<cell>` (a cell whose
 * provision never returned a handle). Idempotent; nothing there is fine.
 * @returns `stopped and removed <dirs>` or `nothing to remove`
 */
export async function teardownProcessCell(req: ProvisionRequest): Promise<string> {
  const dirs = listCellDirs(req.workDir, req.runId).filter(
    (d) => path.basename(d) === sanitizePathSegment(req.cellKey),
  );
  for (const d of dirs) await stopProcess(undefined, d, CELL_STOP_GRACE_MS);
  removeCellCgroups(req.runId, req.cellKey);
  return dirs.length ? `stopped and removed ${dirs.join(', ')}` : 'nothing to remove';
}

/** `stopped pid <pid>, removed <dataDir>`. */
export function describeProcessTeardown(handle: TargetHandle): string {
  return `stopped pid ${handle.pid}, removed ${handle.dataDir}`;
}
