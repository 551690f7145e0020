/**
 * All activities, built by one factory from the worker's dependencies. Workflows import only the
 * *type* of this object (`ReturnType<typeof createActivities>`).
 *
 * One file per step, named after the step: provision → create-schema → load-data → quiesce-merges → after-load →
 * storage-stats → run-queries → materialize-skip-index → collect-metrics → write-cell-result → teardown;
 * concurrency-steps and insert-grid run the load grids (one activity per stepping step and per insert point);
 * validate-spec, discover-hosts, collect-cloud-metrics, store-run, compare-baseline, confirm-comparison and write-report belong to the matrix.
 */
import { createValidateSpec } from './matrix/validate-spec';
import { createProvision, type ProvisionDeps } from './provision';
import { createCreateSchema } from './create-schema';
import { createLoadData } from './load-data';
import { createAfterLoad } from './after-load';
import { createQuiesceMerges } from './quiesce-merges';
import { createStorageStats } from './storage-stats';
import { createRunQueries } from './run-queries';
import { createMaterializeSkipIndex } from './materialize-skip-index';
import { createCollectMetrics } from './collect-metrics';
import { createWriteCellResult } from './write-cell-result';
import { createTeardown } from './teardown';
import { createInsertGrid } from './insert-grid';
import { createConcurrencySteps } from './concurrency-steps';
import { createWriteReport } from './matrix/write-report';
import { createCollectCloudMetrics } from './matrix/collect-cloud-metrics';
import { createStoreRun } from './matrix/store-run';
import { createCompareBaseline } from './matrix/compare-baseline';
import { createAwaitWorkflowClosed, type TemporalDeps } from './matrix/await-workflow-closed';
import { createConfirmComparison } from './matrix/confirm-comparison';
import { createJudgeVerdicts } from './matrix/judge-verdicts';
import { createDiscoverHosts } from './matrix/discover-hosts';
import { createBisectActivities } from './bisect/bisect';

import { ApplicationFailure } from '@temporalio/common';
import { ClickHouseError } from '@clickhouse/client';
import { clickHouseFailure, parseServerError } from '../schema/failures';
import { attempt, sleep } from '../temporal/activity-context';
import { cellActivity } from './step-context';
import { withAttemptLog } from './support/attempt-log';
import { withCounterSamples } from './support/counter-samples';
import { runWatched } from '../clickhouse/statement-watch';
import { temporalAccess } from '../temporal/worker-client';

/**
 * A ClickHouse server error of any version as the typed failure `ClickHouse.<NAME>` (details
 * `[{ code, name }]`; non-retryable for a query/schema error, see `src/schema/failures.ts`):
 * a `ClickHouseError` of `@clickhouse/client`, or an error whose message is the server's exception
 * text (18.16's `Code: 60, e.displayText() = …`). `undefined` for anything else.
 */
export function clickHouseFailureOf(e: unknown): ApplicationFailure | undefined {
  if (e instanceof ClickHouseError) return clickHouseFailure({ code: e.code, name: e.type, message: e.message });
  if (!(e instanceof Error) || e instanceof ApplicationFailure || !/^Code: \d+[.,] /.test(e.message)) return undefined;
  const parsed = parseServerError(e.message);
  return parsed ? clickHouseFailure({ ...parsed, message: e.message }) : undefined;
}

/** Every activity reports a ClickHouse server error as `ClickHouse.<NAME>` ({@link clickHouseFailureOf}), never as a JavaScript class. */
function withClickHouseFailures<T extends Record<string, (...a: any[]) => Promise<unknown>>>(acts: T): T {
  const out: Record<string, (...a: any[]) => Promise<unknown>> = {};
  for (const [k, fn] of Object.entries(acts))
    out[k] = async (...a: any[]) => {
      try {
        return await fn(...a);
      } catch (e) {
        throw clickHouseFailureOf(e) ?? e;
      }
    };
  return out as T;
}

/**
 * What the worker provides to activities: the work directory, its host, where Temporal is
 * (`temporalAddress`, `namespace`, recorded in target labels) and the one Temporal client the
 * activities share (`temporal`; the worker builds it, see `src/worker.ts`; left out, `createActivities`
 * builds one from `temporalAddress`).
 */
export type ActivityDeps = ProvisionDeps & Partial<TemporalDeps> & { temporalAddress: string; namespace: string };

/**
 * Fault-injection aid for the chaos suite: `CHBENCH_FAULT_STEP_DELAY_MS` makes every activity wait
 * that long (heartbeating) before it starts, so even sub-second steps can be hit by a kill. Unset
 * (the default) it does nothing.
 */
function withFaultDelay<T extends Record<string, (...a: any[]) => Promise<unknown>>>(acts: T): T {
  const ms = Number(process.env.CHBENCH_FAULT_STEP_DELAY_MS ?? 0);
  if (!ms) return acts;
  const out: Record<string, (...a: any[]) => Promise<unknown>> = {};
  for (const [k, fn] of Object.entries(acts))
    out[k] = async (...a: any[]) => {
      await sleep(ms);
      return fn(...a);
    };
  return out as T;
}

/**
 * Every activity runs with its own statement watcher (`src/clickhouse/statement-watch.ts`): its statements keep
 * it heartbeating with their progress, and one without progress for the cell's
 * `protocol.stuckAfterS` fails the step as `StatementStuck`. The step label starts as the activity name.
 */
function withStatementWatch<T extends Record<string, (...a: any[]) => Promise<unknown>>>(acts: T): T {
  const out: Record<string, (...a: any[]) => Promise<unknown>> = {};
  for (const [k, fn] of Object.entries(acts))
    out[k] = (...a: any[]) => {
      const first = a[0] as
        { cell?: { protocol?: { stuckAfterS?: number } }; protocol?: { stuckAfterS?: number } } | undefined;
      const stuckAfterS = first?.cell?.protocol?.stuckAfterS ?? first?.protocol?.stuckAfterS;
      return runWatched({ ...(stuckAfterS ? { stuckAfterS } : {}), step: k }, () => fn(...a));
    };
  return out as T;
}

/**
 * Build every activity. Each attempt of a cell step is logged with its outcome (and the failure as
 * Temporal receives it) in the cell's `attempts.jsonl` (`./support/attempt-log.ts`); a cell step whose
 * server runs on this host samples its counters into `counters.jsonl` (`./support/counter-samples.ts`,
 * inside the statement watch, whose statement edges it samples at).
 */
export function createActivities(deps: ActivityDeps) {
  const temporal = deps.temporal ?? temporalAccess(deps.temporalAddress, deps.namespace);
  return withFaultDelay(
    withAttemptLog(
      withClickHouseFailures(withStatementWatch(withCounterSamples(buildActivities({ ...deps, temporal })))),
    ),
  );
}

function buildActivities(deps: ActivityDeps & TemporalDeps) {
  const { provision } = createProvision(deps);
  const { createSchema } = createCreateSchema();
  const { loadData } = createLoadData();
  const { quiesceMerges } = createQuiesceMerges();
  const { storageStats } = createStorageStats();
  const { runQueries } = createRunQueries(deps);
  const { materializeSkipIndex } = createMaterializeSkipIndex();
  const { collectMetrics } = createCollectMetrics(deps);
  const { concurrencyStep } = createConcurrencySteps(deps);
  return {
    ...createValidateSpec(),
    provision: async (...a: Parameters<typeof provision>) => ({ ...(await provision(...a)), attempt: attempt() }),
    createSchema: cellActivity('createSchema', createSchema),
    loadData: cellActivity('loadData', loadData),
    quiesceMerges: cellActivity('quiesceMerges', quiesceMerges),
    afterLoad: cellActivity('afterLoad', createAfterLoad().afterLoad),
    storageStats: cellActivity('storageStats', storageStats),
    runQueries: cellActivity('runQueries', runQueries),
    materializeSkipIndex: cellActivity('materializeSkipIndex', materializeSkipIndex),
    collectMetrics: cellActivity('collectMetrics', collectMetrics),
    insertPoint: cellActivity('insertPoint', createInsertGrid().insertPoint),
    concurrencyStep: cellActivity('concurrencyStep', concurrencyStep),
    ...createWriteCellResult(),
    ...createTeardown(deps),
    ...createCollectCloudMetrics(),
    ...createWriteReport(),
    ...createStoreRun(),
    ...createCompareBaseline(),
    ...createAwaitWorkflowClosed(deps),
    ...createConfirmComparison(),
    ...createJudgeVerdicts(),
    ...createDiscoverHosts(deps),
    ...createBisectActivities(),
  };
}

/** The activities object type used by workflow proxies. */
export type Activities = ReturnType<typeof createActivities>;
