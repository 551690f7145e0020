/**
 * collectCloudMetrics: after every cell of a run with a `cloud` spec, read each Kubernetes cell's
 * EBS volume and EC2 instance, its CloudWatch figures per step window with a disk-bound / CPU-bound
 * / neither / unknown label, and its cost (the method: `src/cloud/collect.ts`).
 *
 * Writes per cell `cloud-metrics.json` (`CloudMetricsRecord`) and `cost.json` (`CellCostRecord`),
 * per run `cost.json` (`RunCostRecord`); atomic writes, so running it again rewrites the same
 * files. Before reading, it waits until the newest window's figures are final (aligned end +
 * `cloud.settleMs`), heartbeating how long is left.
 *
 * AWS clients come from the worker's environment (the SDK's default credential chain, region from
 * the spec, `AWS_ENDPOINT_URL` for another endpoint such as moto); tests inject them.
 */
import path from 'node:path';
import { existsSync } from 'node:fs';
import { cellDir, readRecord, readRecordIfExists, runDir, writeJsonAtomic } from '../../results/store';
import { readCellStepRecords } from '../../results/step-records';
import { ProvisionRecord, RunRecord } from '../../schema/results';
import * as collect from '../../cloud/collect';
import { manifestStorageClass } from '../../targets/kubernetes/storage-class-template';
import { heartbeat, sleep } from '../../temporal/activity-context';

export type { CloudClients, CollectCloudMetricsSummary } from '../../cloud/collect';

/** Dependencies (tests inject clients pointed at moto and a Price List stub). */
export interface CollectCloudMetricsDeps {
  /** Build the clients for a region. @default `defaultCloudClients` (the SDK's defaults). */
  awsClients?: (region: string) => collect.CloudClients;
}

/** Input: where the run is. The `cloud` section and the cells come from its `run.json`. */
export interface CollectCloudMetricsInput {
  resultsDir: string;
  runId: string;
}

/** Activity factory. */
export function createCollectCloudMetrics(deps: CollectCloudMetricsDeps = {}) {
  return {
    /**
     * Cloud metrics and cost of every Kubernetes cell of a run (see the module comment). Does
     * nothing (and says so) when `run.json`'s spec has no `cloud` section.
     * @returns counts and the run's total cost only (the figures are in the files)
     * @throws Error when `run.json` or a step record does not parse; the AWS SDK's error when
     *   CloudWatch refuses a `GetMetricData` (retried by the activity's policy)
     */
    async collectCloudMetrics(input: CollectCloudMetricsInput): Promise<collect.CollectCloudMetricsSummary> {
      const dir = runDir(input.resultsDir, input.runId);
      const run = readRecord(path.join(dir, 'run.json'), RunRecord);
      const cloud = run.spec.cloud;
      const skipped = run.cells.map((cell) => ({ cell, reason: 'the run spec has no cloud section' }));
      if (!cloud) return { ...collect.emptyCloudSummary(), skipped };
      const clients = (deps.awsClients ?? collect.defaultCloudClients)(cloud.region);
      try {
        heartbeat({ step: 'cloud-metrics' });
        const cells = run.cells.map((cell) => {
          const cdir = cellDir(input.resultsDir, input.runId, cell);
          const file = path.join(cdir, 'provision.json');
          return {
            cell,
            dir: cdir,
            provision: existsSync(cdir) ? readRecordIfExists(file, ProvisionRecord) : undefined,
          };
        });
        const { summary, runCost } = await collect.collectRunCloudMetrics(clients, cloud, input.runId, cells, {
          heartbeat: (details) => heartbeat({ step: 'cloud-metrics', ...details }),
          sleep,
          stepRecords: readCellStepRecords,
          template: manifestStorageClass,
          writeCell: (cdir, file, record) => writeJsonAtomic(path.join(cdir, file), record),
        });
        if (runCost) writeJsonAtomic(path.join(dir, 'cost.json'), runCost);
        return summary;
      } finally {
        collect.destroyCloudClients(clients);
      }
    },
  };
}
