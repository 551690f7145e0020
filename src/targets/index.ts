/**
 * Targets: where a cell gets its ClickHouse. Every kind implements the {@link Target} contract
 * (`./target.ts`) and registers itself (`./registry.ts`); importing this module loads them all.
 * Activities call the functions below (or `targetOf(handle).<verb>`), never a kind's module.
 *
 * | folder        | kind       | what it is                                                            |
 * | ------------- | ---------- | --------------------------------------------------------------------- |
 * | `embedded/`   | `embedded` | chdb engine in a separate process per cell (`server.ts`)              |
 * | `local/`      | `local`    | a ClickHouse server binary per cell, generated config                 |
 * | `external/`   | `external` | an existing server, one database per cell                             |
 * | `process/`    | —          | the process lifecycle and provisioning skeleton embedded/local share   |
 * | `kubernetes/` | `kubernetes` | a pod and a PVC per cell, rendered from `manifests/`                   |
 * | `docker/`     | `docker`   | a container and a named volume per cell on a Docker engine (`DOCKER_HOST`) |
 * | `versions/`   | —          | version sources: where a matrix label's ClickHouse comes from          |
 * | `gc.ts`       | —          | `chbench gc`: what runs left behind on this host                       |
 */
import type { TargetSpec } from '../schema/run-spec';
import type { ProvisionRequest, TargetHandle } from '../schema/target';
import { isAlive, listLabels } from './process';
import { capabilitiesOf, targetOf } from './registry';
import type { Target } from './target';
import './embedded';
import './local';
import './external';
import './kubernetes';
import './docker';

export type { TargetHandle, ProvisionRequest, TargetCapabilities, TargetKind } from '../schema/target';
export type { Target, TargetCheck, SpecCheckPlace, TargetSpecOf } from './target';
export { capabilitiesOf, targetOf, targets, registerTarget, TargetRegistry } from './registry';
export { provisionCellTarget, type ProvisionDeps } from './provision-cell';

/**
 * The cell server's counters over the network and the capacity to judge them by (the target's
 * `scrapedCounters` verb: a kubernetes pod's cgroup through cAdvisor); undefined for a target
 * without one, or when the verb fails.
 * @param spec the cell's `target` section
 */
export function scrapedCountersOf(
  handle: TargetHandle,
  spec: unknown,
): ReturnType<NonNullable<Target['scrapedCounters']>> {
  try {
    return targetOf(handle).scrapedCounters?.(handle, spec);
  } catch {
    return undefined;
  }
}

/**
 * Start or reach the cell's ClickHouse. Idempotent: a retry adopts what an earlier attempt started.
 * @throws Error when the target cannot be provisioned (message says why).
 */
export function provisionTarget(spec: TargetSpec, req: ProvisionRequest): Promise<TargetHandle> {
  return targetOf(spec).provision(spec, req);
}

/** Stop / drop whatever {@link provisionTarget} created. Idempotent. */
export function teardownTarget(h: TargetHandle): Promise<void> {
  return targetOf(h).teardown(h);
}

/**
 * Tear down whatever an attempt to provision this cell may have created, without a handle — for a
 * cell whose provision failed or was cancelled before it returned one. Process targets: every
 * process and directory under `<workDir>/<run>/<cell>`; external: the cell's database.
 * Idempotent; nothing there is fine.
 * @returns one human line on what was removed
 */
export function teardownCellResources(spec: TargetSpec, req: ProvisionRequest): Promise<string> {
  return targetOf(spec).teardownCell(spec, req);
}

/**
 * Chbench servers other than `self` alive on this host, as `<run>/<cell>` (from the labels under
 * `workDir`). Empty when `self` is not on the worker's host (nothing here can disturb it), unless
 * `o.alsoLoopback`: the caller found that `self` probably shares this host (a loopback URL, see
 * `loopbackMeansWorkerHost`) and labels what it records so.
 */
export function otherChbenchServers(workDir: string, self: TargetHandle, o: { alsoLoopback?: boolean } = {}): string[] {
  if (!capabilitiesOf(self).onWorkerHost && !o.alsoLoopback) return [];
  return listLabels(workDir)
    .filter((l) => !(l.runId === self.runId && l.cellKey === self.cellKey) && isAlive(l.pid))
    .map((l) => `${l.runId}/${l.cellKey}`);
}
