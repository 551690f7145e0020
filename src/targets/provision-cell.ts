/**
 * Provisioning a cell's target from the provision activity: the request a kind's `provision` verb
 * gets (the cell's run, key and version, the worker's work directory, and the Temporal owner the
 * server's label records), made while the step keeps heartbeating.
 */
import path from 'node:path';
import { keepAliveDuring } from '../clickhouse/statement-watch';
import type { CellInput } from '../schema/cell';
import type { TargetHandle } from '../schema/target';
import { currentOwner, type OwnerDeps } from '../temporal/owner';
import type { HostDeps } from '../temporal/host';
import { targetOf } from './registry';

/** Dependencies of provisioning a cell (the provision activity's). */
export interface ProvisionDeps extends OwnerDeps {
  /** Directory under which per-cell server directories are created. */
  workDir: string;
  /** This worker's host (absent in tests that build activities without a worker: no host is recorded). */
  host?: HostDeps;
}

/**
 * Start or reach the cell's ClickHouse (its kind's `provision` verb, as `provisionTarget`), its label recording the Temporal
 * namespace and workflow that own it (`cell.matrixWorkflowId`, else `cell.runId`), so `chbench gc`
 * asks that server whether its run has ended (src/targets/gc.ts). Starting a server is not a
 * statement: the activity heartbeats while it starts (`keepAliveDuring`; bounded by the kind's own
 * ping deadline). Idempotent: a retry adopts what an earlier attempt started.
 * @param deps.workDir the directory under which per-cell server directories are made (resolved to absolute).
 * @returns the target's handle (no secrets).
 * @throws Error when the target cannot be started or reached (the kind's message says why).
 */
export function provisionCellTarget(cell: CellInput, deps: OwnerDeps & { workDir: string }): Promise<TargetHandle> {
  return keepAliveDuring(
    'provision',
    currentOwner(deps, cell.matrixWorkflowId ?? cell.runId).then((owner) =>
      targetOf(cell.target).provision(cell.target, {
        runId: cell.runId,
        cellKey: cell.cellKey,
        version: cell.version,
        workDir: path.resolve(deps.workDir),
        ...(owner ? { owner } : {}),
      }),
    ),
  );
}
