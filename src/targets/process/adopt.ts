/**
 * Adopting the server an earlier provision attempt started for a cell (a retry after a worker
 * crash, a lost activity result), so a cell never runs two servers.
 */
import * as path from 'node:path';
import type { TargetHandle } from '../../schema/target';
import { readLabel, readPidFile, type ProcessTargetKind, type TargetLabel } from './cell-dir';
import { processMentions } from './proc';
import { waitForPing } from './ping';

/** What {@link findRunningServer} found in a cell's directory. */
export interface RunningServer {
  pid: number;
  /** The label, when the earlier attempt got as far as writing it. */
  label?: TargetLabel;
}

/**
 * The live server process an earlier attempt started for `dataDir`, if any: the pid from the label
 * (or from `server.pid` when the label was not written yet) that is alive and whose command line
 * mentions `dataDir`.
 */
export function findRunningServer(dataDir: string): RunningServer | undefined {
  const dir = path.resolve(dataDir);
  const label = readLabel(dir);
  if (label && processMentions(label.pid, dir)) return { pid: label.pid, label };
  const pp = readPidFile(dir);
  if (pp !== undefined && processMentions(pp, dir)) return { pid: pp };
  return undefined;
}

/**
 * Adopt the server an earlier attempt left for this cell, so a retried provision never starts a
 * second one. Returns the label when: the label file exists, matches `runId`/`cellKey`/`kind`, its pid
 * is alive and its command line mentions `dataDir`, and `/ping` answers within `pingTimeoutMs`.
 *
 * @returns the label to build the handle from, or `undefined` when there is nothing to adopt
 *   (the caller then stops any half-started process with {@link stopProcess} `keepDir` and starts anew)
 */
export async function tryAdopt(
  dataDir: string,
  expect: { runId: string; cellKey: string; kind: ProcessTargetKind },
  pingTimeoutMs = 5000,
): Promise<TargetLabel | undefined> {
  const running = findRunningServer(dataDir);
  const label = running?.label;
  if (!label || label.runId !== expect.runId || label.cellKey !== expect.cellKey || label.kind !== expect.kind)
    return undefined;
  try {
    await waitForPing(label.url, pingTimeoutMs, { pid: label.pid });
  } catch {
    return undefined;
  }
  // The port could have been taken by someone else after our server died; re-check the pid.
  return processMentions(label.pid, dataDir) ? label : undefined;
}

/** The {@link TargetHandle} of a server described by its label (database `default`, user `default`). */
export function handleFromLabel(l: TargetLabel): TargetHandle {
  return {
    kind: l.kind,
    url: l.url,
    database: 'default',
    username: 'default',
    pid: l.pid,
    dataDir: l.dataDir,
    runId: l.runId,
    cellKey: l.cellKey,
    provisionedBy: l.provisionedBy,
    ...(l.passwordFile ? { passwordFile: l.passwordFile } : {}),
  };
}
