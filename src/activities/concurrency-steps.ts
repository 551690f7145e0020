/**
 * concurrencyStep: one step of concurrency stepping (`grids.concurrency`, src/schema/grids.ts).
 * A thin activity around the step's method (src/measure/concurrency-step.ts, over the closed-loop
 * engine of src/measure/closed-loop.ts, where the timeline and the definitions are stated):
 * `clients` closed-loop clients send the cell's weighted query mix for `warmupS` + `durationS`, with
 * the settings of the cell's measured runs (`stepSettings`); then the server-side latency of every counted request is
 * read from `system.query_log` where the cell has it.
 *
 * Idempotent: a step only reads. A retry first settles statements an earlier attempt of the same
 * step left running (by query_id prefix), then re-measures the step and overwrites its record.
 * Merges are left as the cell set them (a cell that stopped merges for its query steps keeps them
 * stopped).
 *
 * Writes `grids/concurrency-c<clients>.json` in the cell folder ({@link ConcurrencyStepRecord}) and
 * returns the small {@link ConcurrencyStepSummary}.
 */
import { measureConcurrencyStep, stepMix, stepSettings } from '../measure/concurrency-step';
import { otherChbenchServers } from '../targets';
import { queryIdPrefix } from '../schema/cell';
import type { ConcurrencyStepInput, ConcurrencyStepSummary } from '../schema/grids';
import { ConcurrencyStepRecord, ProvisionQueryLog } from '../schema/results';
import type { StepContext } from './step-context';
import { settlePreviousAttempts } from './support/attempts';

/** Activity factory. */
export function createConcurrencySteps(deps: { workDir: string }) {
  return {
    /**
     * Run one concurrency step and record it in `grids/concurrency-c<clients>.json`.
     * Latency is server-side (`system.query_log`, when the cell's `provision.json` says it is
     * available and it answered) for `latencySource: 'query_log'`, else client wall time; the wall
     * latency is always returned too. Heartbeats about every second with the step's progress.
     * @throws Error for an unknown query id of the mix (src/lib/workload.ts).
     * @throws CancelledFailure (via the cell-step wrapper) when the activity is cancelled; nothing is written.
     */
    async concurrencyStep(ctx: StepContext, step: ConcurrencyStepInput): Promise<ConcurrencyStepSummary> {
      const { cell, target } = ctx;
      const label = `concurrency-c${step.clients}`;
      const heartbeat = (details: Record<string, unknown>) => ctx.heartbeat({ step: label, ...details });
      heartbeat({ progress: `step ${step.n}: ${step.clients} clients` });
      const mix = stepMix(ctx.workload, { rows: cell.scale, codec: ctx.codec }, step.mix, cell.queries);
      const file = `grids/concurrency-c${step.clients}.json`;
      const prefix = queryIdPrefix(cell.runId, cell.cellKey, `conc-c${step.clients}`);
      const client = ctx.client({ maxExecutionTimeS: cell.protocol.maxExecutionTimeS });
      const settings = await stepSettings(client, ctx.settings.runs, cell.protocol.maxExecutionTimeS);
      const othersAtStart = otherChbenchServers(deps.workDir, target);
      // `<prefix>-`: never the statements of a step with more clients (`conc-c4` vs `conc-c40`).
      const previous = await settlePreviousAttempts(target, client, `${prefix}-`);
      const measured = await measureConcurrencyStep({
        target,
        client,
        step,
        mix,
        settings,
        seed: `${cell.runId}/${cell.cellKey}/${label}`,
        queryIdPrefix: prefix,
        queryIdSuffix: `-a${ctx.attempt}`,
        requestTimeoutMs: (cell.protocol.maxExecutionTimeS + 60) * 1000,
        serverOnHost: ctx.caps.onWorkerHost,
        queryLogAvailable: ctx.read('provision.json', ProvisionQueryLog)?.server.query_log === 'available',
        file,
        signal: ctx.signal,
        heartbeat,
      });
      ctx.write(file, ConcurrencyStepRecord, {
        step,
        attempt: ctx.attempt,
        query_id_prefix: prefix,
        settings,
        previous_attempts: previous,
        other_chbench_servers: { at_start: othersAtStart, at_end: otherChbenchServers(deps.workDir, target) },
        ...measured,
      });
      return measured.summary;
    },
  };
}
