/**
 * provision: start or reach the cell's ClickHouse and record what it is: `version()`, `timezone()`,
 * CPUs and memory, whether `system.query_log` is readable, and how it was provisioned.
 * Idempotent: a retry adopts the server an earlier attempt started. The pieces: the target's
 * provisioning in src/targets/provision-cell.ts, the server facts and capability probe in
 * src/clickhouse/server-info.ts, the settings check in src/measure/cell-settings.ts, the codec trial
 * in src/measure/schema-check.ts.
 */
import path from 'node:path';
import { existsSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { clearCellDirKeepingAttempts } from './support/attempt-log';
import { capabilitiesOf, provisionCellTarget } from '../targets';
import { connect } from '../clickhouse/client';
import { ProbeInterruptedError } from '../clickhouse/probe';
import { probeInterruptedFailure, readServerInfo } from '../clickhouse/server-info';
import { cellDir, runDir, writeJsonAtomic } from '../results/store';
import { FAILURE } from '../schema/failures';
import { loadWorkload, cannotRunReason } from '../lib/workload';
import { resolveCellSettings } from '../measure/cell-settings';
import { trialCellCodecs } from '../measure/schema-check';
import { cellCodecProfile, type CellInput, type ProvisionResult } from '../schema/cell';
import { versionMatchesLabel } from '../schema/version';
import { attempt, heartbeat } from '../temporal/activity-context';
import type { ProvisionRecord } from '../schema/results';
import type { OwnerDeps } from '../temporal/owner';
import { hostFacts, type HostDeps } from '../temporal/host';

/** Dependencies of the provision step. */
export interface ProvisionDeps extends OwnerDeps {
  /** Directory under which per-cell server directories are created. */
  workDir: string;
  /** This worker's host (absent in tests that build activities without a worker: no host is recorded). */
  host?: HostDeps;
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
     *   `PROBE_INTERRUPTED_ATTEMPTS`, src/schema/failures.ts); no `probe.json` is written then.
     */
    async provision(cell: CellInput, fresh = false): Promise<ProvisionResult> {
      heartbeat({ step: 'provision' });
      // A cell the matrix placed on a host writes into the run's results store: a host that does not
      // see the run's folder there (not mounted, another path) would keep its records to itself.
      const runJson = path.join(runDir(cell.resultsDir, cell.runId), 'run.json');
      if (cell.placement && !existsSync(runJson))
        throw ApplicationFailure.create({
          type: FAILURE.InvalidSpec,
          nonRetryable: true,
          message: `host ${deps.host?.hostId ?? '?'} does not see the run's results store: ${runJson} is missing there; mount the results directory at the same path on every host running chbench workers`,
        });
      const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
      // A new execution of the cell starts from an empty result folder: step files of an earlier
      // execution (a failed cell being run again) must never mix into this one's result. The
      // attempts of this execution's provisioning so far are kept (they are part of its record).
      if (fresh) clearCellDirKeepingAttempts(dir);
      const target = await provisionCellTarget(cell, deps);
      heartbeat({ step: 'provision', url: target.url });
      const caps = capabilitiesOf(target);
      // Server facts and the capability probe (written to probe.json, not to history). A server
      // that stops answering mid-probe fails this attempt: nothing is recorded of a dead server.
      const { probe, defaults, ...server } = await readServerInfo(target, caps.onWorkerHost).catch((e: unknown) => {
        throw e instanceof ProbeInterruptedError ? probeInterruptedFailure(e, attempt()) : e;
      });
      writeJsonAtomic(path.join(dir, 'probe.json'), probe);
      // The server's own defaults (report: "What differs between these versions").
      writeJsonAtomic(path.join(dir, 'defaults.json'), defaults);
      const m = loadWorkload(cell.workload);
      const profile = cellCodecProfile(cell);
      let skipReason = cannotRunReason(m, probe, profile);
      // A cell is never reported under a version it did not run (external servers included).
      if (!skipReason && !versionMatchesLabel(server.version, cell.version))
        skipReason = `matrix version ${cell.version} asked for, but the ${cell.target.kind} target runs ClickHouse ${server.version}`;
      // Every requested setting checked at its level before anything is loaded.
      if (!skipReason) {
        const checked = resolveCellSettings(cell, m, probe);
        writeJsonAtomic(path.join(dir, 'settings.json'), checked);
        if (checked.problems.length)
          throw ApplicationFailure.create({
            type: FAILURE.InvalidSetting,
            nonRetryable: true,
            message: `settings refused before loading:\n  - ${checked.problems.join('\n  - ')}`,
          });
        // The cell's codecs tried on a throwaway temporary table: a codec this server refuses fails here.
        if (probe.column_codecs) {
          const client = connect(target);
          try {
            const refused = await trialCellCodecs(client, m, { rows: cell.scale, codec: profile }, server.version);
            if (refused) throw refused;
          } finally {
            await client.close();
          }
        }
      }
      const result: ProvisionResult = {
        target,
        server,
        restartable: caps.restartable,
        ...(skipReason ? { skipReason } : {}),
        // A server on this host: the cell's later steps must run here (the host's own task queue).
        ...(deps.host && caps.onWorkerHost ? { host: hostFacts(deps.host) } : {}),
      };
      const record: ProvisionRecord = { ...result, provisioned_at: new Date().toISOString() };
      writeJsonAtomic(path.join(dir, 'provision.json'), record);
      return result;
    },
  };
}
