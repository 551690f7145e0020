/**
 * All activities, built by one factory from the worker's dependencies. Workflows import only the
 * *type* of this object (`ReturnType<typeof createActivities>`).
 *
 * One file per step, named after the step: provision → create-schema → load-data → quiesce-merges →
 * storage-stats → run-queries → materialize-skip-index → collect-metrics → write-results → teardown;
 * validate-spec and write-report belong to the matrix.
 */
import { createValidateSpec } from './validate-spec';
import { createProvision, type ProvisionDeps } from './provision';
import { createCreateSchema } from './create-schema';
import { createLoadData } from './load-data';
import { createQuiesceMerges } from './quiesce-merges';
import { createStorageStats } from './storage-stats';
import { createRunQueries } from './run-queries';
import { createMaterializeSkipIndex } from './materialize-skip-index';
import { createCollectMetrics } from './collect-metrics';
import { createWriteResults } from './write-results';
import { createTeardown } from './teardown';
import { createWriteReport } from './write-report';

/** What the worker provides to activities. */
export type ActivityDeps = ProvisionDeps;

/** Build every activity. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createValidateSpec(),
    ...createProvision(deps),
    ...createCreateSchema(),
    ...createLoadData(),
    ...createQuiesceMerges(),
    ...createStorageStats(),
    ...createRunQueries(),
    ...createMaterializeSkipIndex(),
    ...createCollectMetrics(),
    ...createWriteResults(),
    ...createTeardown(),
    ...createWriteReport(),
  };
}

/** The activities object type used by workflow proxies. */
export type Activities = ReturnType<typeof createActivities>;
