/**
 * `chbench gc`: find what runs left behind on this worker host — server processes and their
 * directories under the work dir, each labelled with its run id and cell — and remove those whose
 * workflows are closed (or unknown to Temporal). Resources of a running matrix or cell are kept.
 */
import { readdirSync, rmSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { listCellDirs, readLabel, stopProcess } from '../targets/process';

/** One resource gc looked at. */
export interface GcEntry {
  runId: string;
  cellKey: string;
  dataDir: string;
  pid?: number;
  /** Why it was kept or removed. */
  reason: string;
}

/** Status of a workflow id: `RUNNING`, another close status, or `NOT_FOUND`. */
async function status(client: Client, workflowId: string): Promise<string> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    return d.status.name;
  } catch (e) {
    if ((e as Error).name === 'WorkflowNotFoundError') return 'NOT_FOUND';
    throw e;
  }
}

/**
 * Remove leaked per-cell servers and directories under `workDir`.
 * @param dryRun list only
 * @returns what was removed and what was kept (and why)
 * @throws Error when Temporal cannot be asked (nothing is removed then)
 */
export async function collectGarbage(workDir: string, client: Client, dryRun = false): Promise<{ removed: GcEntry[]; kept: GcEntry[] }> {
  const removed: GcEntry[] = [];
  const kept: GcEntry[] = [];
  if (!existsSync(workDir)) return { removed, kept };
  for (const runDirName of readdirSync(workDir)) {
    const dirs = listCellDirs(workDir).filter((d) => path.basename(path.dirname(d)) === runDirName);
    for (const dir of dirs) {
      const label = readLabel(dir);
      const runId = label?.runId ?? runDirName;
      const cellKey = label?.cellKey ?? path.basename(dir);
      const entry: GcEntry = { runId, cellKey, dataDir: dir, ...(label?.pid ? { pid: label.pid } : {}), reason: '' };
      const [matrix, cell] = [await status(client, runId), await status(client, `${runId}/${cellKey}`)];
      if (matrix === 'RUNNING' || cell === 'RUNNING') {
        kept.push({ ...entry, reason: `workflow ${matrix === 'RUNNING' ? runId : `${runId}/${cellKey}`} is running` });
        continue;
      }
      entry.reason = `matrix ${matrix.toLowerCase()}, cell ${cell.toLowerCase()}`;
      if (!dryRun) await stopProcess(undefined, dir, 5000);
      removed.push(entry);
    }
    const runPath = path.join(workDir, runDirName);
    if (!dryRun && existsSync(runPath) && readdirSync(runPath).length === 0) rmSync(runPath, { recursive: true, force: true });
  }
  return { removed, kept };
}
