/** Dispatch from a target spec to its provisioner. */
import type { TargetSpec } from '../schema/run-spec';
import type { ProvisionRequest, TargetCapabilities, TargetHandle, TargetKind } from '../schema/target';
import { provisionEmbedded, teardownEmbedded } from './embedded';
import { provisionLocal, teardownLocal } from './local';
import path from 'node:path';
import { provisionExternal, teardownExternal, externalDatabaseName } from './external';
import { isAlive, listCellDirs, listLabels, sanitizePathSegment, stopProcess } from './process';

export type { TargetHandle, ProvisionRequest } from '../schema/target';

/**
 * Start or reach the cell's ClickHouse. Idempotent: a retry adopts what an earlier attempt started.
 * @throws Error when the target cannot be provisioned (message says why).
 */
export async function provisionTarget(spec: TargetSpec, req: ProvisionRequest): Promise<TargetHandle> {
  switch (spec.kind) {
    case 'embedded':
      return provisionEmbedded(req);
    case 'local': {
      const bin = spec.binaries[req.version];
      if (!bin) throw new Error(`local target: no binary for version ${req.version}`);
      return provisionLocal(req, bin);
    }
    case 'external':
      return provisionExternal(req, spec);
  }
}

/** Stop / drop whatever {@link provisionTarget} created. Idempotent. */
export async function teardownTarget(h: TargetHandle): Promise<void> {
  switch (h.kind) {
    case 'embedded':
      return teardownEmbedded(h);
    case 'local':
      return teardownLocal(h);
    case 'external':
      return teardownExternal(h);
  }
}

/**
 * Tear down whatever an attempt to provision this cell may have created, without a handle — for a
 * cell whose provision failed or was cancelled before it returned one. Embedded/local: every
 * process and directory under `<workDir>/<run>/<cell>`; external: the cell's database.
 * Idempotent; nothing there is fine.
 */
export async function teardownCellResources(spec: TargetSpec, req: ProvisionRequest): Promise<string> {
  if (spec.kind === 'external') {
    const database = externalDatabaseName(spec.databasePrefix, req.runId, req.cellKey);
    await teardownExternal({ kind: 'external', url: spec.url, database, username: spec.username, passwordEnv: spec.passwordEnv, runId: req.runId, cellKey: req.cellKey, provisionedBy: '' });
    return `DROP DATABASE IF EXISTS ${database}`;
  }
  const dirs = listCellDirs(req.workDir, req.runId).filter((d) => path.basename(d) === sanitizePathSegment(req.cellKey));
  for (const d of dirs) await stopProcess(undefined, d, 15_000);
  return dirs.length ? `stopped and removed ${dirs.join(', ')}` : 'nothing to remove';
}

/** Capability flags per target kind (see {@link TargetCapabilities}). */
const CAPABILITIES: Record<TargetKind, TargetCapabilities> = {
  embedded: { onWorkerHost: true, canKillRunning: false, countersWithoutQueryLog: 'system.events', summaryReadSource: 'output statistics', runningStatementsFrom: 'target endpoint', restartable: true, statementArchive: true },
  local: { onWorkerHost: true, canKillRunning: true, countersWithoutQueryLog: 'none', summaryReadSource: 'http summary', runningStatementsFrom: 'system.processes', restartable: true, statementArchive: false },
  external: { onWorkerHost: false, canKillRunning: true, countersWithoutQueryLog: 'none', summaryReadSource: 'http summary', runningStatementsFrom: 'system.processes', restartable: false, statementArchive: false },
};

/** What the target behind `handle` can do. */
export function capabilitiesOf(handle: Pick<TargetHandle, 'kind'>): TargetCapabilities {
  return CAPABILITIES[handle.kind];
}

/**
 * Chbench servers other than `self` alive on this host, as `<run>/<cell>` (from the labels under
 * `workDir`). Empty when `self` is not on the worker's host (nothing here can disturb it).
 */
export function otherChbenchServers(workDir: string, self: TargetHandle): string[] {
  if (!capabilitiesOf(self).onWorkerHost) return [];
  return listLabels(workDir)
    .filter((l) => !(l.runId === self.runId && l.cellKey === self.cellKey) && isAlive(l.pid))
    .map((l) => `${l.runId}/${l.cellKey}`);
}
