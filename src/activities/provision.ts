/**
 * provision: start or reach the cell's ClickHouse and record what it is: `version()`, `timezone()`,
 * CPUs and memory, whether `system.query_log` is readable, and how it was provisioned.
 * Idempotent: a retry adopts the server an earlier attempt started. The pieces: the target's
 * provisioning in src/targets/provision-cell.ts, the server facts and capability probe in
 * src/clickhouse/server-info.ts, the settings check in src/measure/cell-settings.ts, the codec trial
 * in src/measure/schema-check.ts.
 */
import { clearCellDirKeepingAttempts } from './support/attempt-log';
import { withStepContext } from './step-context';
import { provisionCellTarget, type ProvisionDeps } from '../targets';
import { ProbeInterruptedError } from '../clickhouse/probe';
import { probeInterruptedFailure, readServerInfo } from '../clickhouse/server-info';
import { cellDir, requireRunStore } from '../results/store';
import { cellCannotRunReason, loadWorkload } from '../lib/workload';
import { requireSpace, type CellSpaceInput } from '../results/space-check';
import path from 'node:path';
import { resolveCellSettings } from '../measure/cell-settings';
import { refusedBeforeLoad } from '../measure/schema-check';
import type { CellInput, ProvisionResult } from '../schema/cell';
import { CapabilityProbe, CellSettings, ProvisionRecord, ServerDefaults } from '../schema/results';
import { heartbeat } from '../temporal/activity-context';
import { hostFacts } from '../temporal/host';

export type { ProvisionDeps };

/** What {@link requireSpace} needs of a cell: its rows, codec, runs and, for a server on this host, where its data goes. */
function spaceInput(cell: CellInput, workDir: string): CellSpaceInput {
  const queries = cell.queries?.length ?? loadWorkload(cell.workload).queries.length;
  const p = cell.protocol;
  return {
    resultsDir: cell.resultsDir,
    runId: cell.runId,
    cellKey: cell.cellKey,
    rows: cell.scale,
    codec: cell.codec,
    runs: queries * (p.coldRuns + p.warmupRuns + p.warmRuns),
    ...(cell.target.kind === 'embedded' || cell.target.kind === 'local' ? { dataDir: path.resolve(workDir) } : {}),
  };
}

/** Activity factory. */
export function createProvision(deps: ProvisionDeps) {
  return {
    /**
     * Provision the cell's target and record it in `provision.json` (with `probe.json`,
     * `defaults.json` and `settings.json`). `fresh` (the cell's first provision) empties the cell's
     * result folder first; a re-provision after a lost server keeps it.
     * @returns the handle (no secrets), server facts and, if this version cannot run the cell, why.
     * @throws Error when the server cannot be started or reached.
     * @throws ApplicationFailure `InvalidSpec` when a placed cell's host does not see the run's
     *   results store; `InvalidSetting` when a requested setting is refused; `CodecRefused` when the
     *   server refuses a codec of the cell's profile (all non-retryable); `ProbeInterrupted` when the
     *   server stopped answering during the capability probe (retryable before attempt
     *   `PROBE_INTERRUPTED_ATTEMPTS`, src/schema/failures.ts); no `probe.json` is written then;
     *   `DiskFull` when the cell's estimated writes exceed the free space (src/results/space-check.ts),
     *   before anything starts.
     */
    async provision(cell: CellInput, fresh = false): Promise<ProvisionResult> {
      heartbeat({ step: 'provision' });
      requireRunStore(cell, deps.host?.hostId);
      // A new execution of the cell starts from an empty result folder: step files of an earlier
      // execution (a failed cell being run again) must never mix into this one's result. The
      // attempts of this execution's provisioning so far are kept (they are part of its record).
      if (fresh) clearCellDirKeepingAttempts(cellDir(cell.resultsDir, cell.runId, cell.cellKey));
      // Room for what the cell will write (records; the data where the server runs on this host),
      // checked before anything starts. A re-provision (fresh = false) finds its data already written.
      if (fresh) requireSpace(spaceInput(cell, deps.workDir));
      const target = await provisionCellTarget(cell, deps);
      heartbeat({ step: 'provision', url: target.url });
      return withStepContext({ cell, target }, async (ctx) => {
        // Server facts and the capability probe (written to probe.json, not to history), and the
        // server's own defaults (report: "What differs between these versions"). A server that stops
        // answering mid-probe fails this attempt: nothing is recorded of a dead server.
        const { probe, defaults, ...server } = await readServerInfo(target, ctx.caps.onWorkerHost).catch((e) => {
          throw e instanceof ProbeInterruptedError ? probeInterruptedFailure(e, ctx.attempt) : e;
        });
        ctx.write('probe.json', CapabilityProbe, probe);
        ctx.write('defaults.json', ServerDefaults, defaults);
        const skipReason = cellCannotRunReason(ctx.workload, probe, ctx.codec, server.version, cell);
        // Every requested setting checked at its level, and the cell's codecs tried, before anything is loaded.
        if (!skipReason) {
          const checked = resolveCellSettings(cell, ctx.workload, probe);
          ctx.write('settings.json', CellSettings, checked);
          const vars = { rows: cell.scale, codec: ctx.codec };
          const refused = await refusedBeforeLoad(checked, probe, ctx.client, ctx.workload, vars, server.version);
          if (refused) throw refused;
        }
        const result: ProvisionResult = {
          target,
          server,
          restartable: ctx.caps.restartable,
          ...(skipReason ? { skipReason } : {}),
          // A server on this host: the cell's later steps must run here (the host's own task queue).
          ...(deps.host && ctx.caps.onWorkerHost ? { host: hostFacts(deps.host) } : {}),
        };
        ctx.write('provision.json', ProvisionRecord, { ...result, provisioned_at: new Date().toISOString() });
        return result;
      });
    },
  };
}
