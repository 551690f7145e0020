/**
 * The `local` target: a ClickHouse server binary (per version, from `target.binaries`) started per
 * cell on loopback with a generated configuration (`provision.ts`, `config.ts`).
 *
 * Capabilities: on the worker's host; a running statement can be killed; per-run counters come from
 * `system.query_log` only; rows/bytes read from the HTTP summary; running statements from
 * `system.processes`; restartable; statements archived from `system.query_log`.
 */
import { accessSync, constants } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import { describeProcessTeardown, resourcesProblems, teardownProcessCell } from '../process';
import { registerTarget } from '../registry';
import {
  archiveFromQueryLog,
  checkServer,
  killOnServer,
  progressFromProcesses,
  runningFromProcesses,
} from '../server-verbs';
import type { Target, TargetSpecOf } from '../target';
import { provisionLocal, teardownLocal } from './provision';

export {
  provisionLocal,
  teardownLocal,
  localServerCommand,
  localServerConfig,
  type LocalServerConfig,
  type LocalServerConfigInput,
} from './provision';

/** The local target. */
export const localTarget: Target<TargetSpecOf<'local'>> = {
  kind: 'local',
  capabilities: {
    onWorkerHost: true,
    loopbackMeansWorkerHost: true,
    canKillRunning: true,
    countersWithoutQueryLog: 'none',
    summaryReadSource: 'http summary',
    runningStatementsFrom: 'system.processes',
    restartable: true,
    statementArchive: false,
  },
  provision(spec, req) {
    const bin = spec.binaries[req.version];
    if (!bin)
      throw ApplicationFailure.create({
        type: FAILURE.MissingBinary,
        nonRetryable: true,
        message: `local target: no binary for version ${req.version} in target.binaries (has: ${Object.keys(spec.binaries).join(', ') || 'none'})`,
      });
    return provisionLocal(req, bin, spec.resources);
  },
  teardown: teardownLocal,
  teardownCell: (_spec, req) => teardownProcessCell(req),
  describeTeardown: describeProcessTeardown,
  check: checkServer,
  runningStatements: runningFromProcesses,
  statementProgress: progressFromProcesses,
  kill: killOnServer,
  archiveStatements: archiveFromQueryLog,
  /**
   * `input`: every version of the matrix has a binary; `worker host`: each binary of a version in the
   * matrix is an executable file on the worker.
   */
  checkSpec(target, versions, place) {
    const problems: string[] = [];
    const binaries = target.binaries;
    if (!binaries || typeof binaries !== 'object') return problems;
    if (place === 'input') {
      for (const v of versions)
        if (typeof v === 'string' && !(v in binaries))
          problems.push(
            `matrix.version: version "${v}" has no way to be provisioned: target.binaries has no entry for it (has: ${Object.keys(binaries).join(', ') || 'none'})`,
          );
      return problems;
    }
    for (const [v, bin] of Object.entries(binaries as Record<string, unknown>)) {
      if (!versions.includes(v) || typeof bin !== 'string') continue;
      try {
        accessSync(bin, constants.X_OK);
      } catch {
        problems.push(`target.binaries.${v}: "${bin}" is not an executable file on the worker`);
      }
    }
    return [...problems, ...resourcesProblems(target, place)];
  },
};

registerTarget(localTarget);
