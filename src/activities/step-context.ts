/**
 * The one context every cell step reads: built once per activity call from its {@link StepInput} by
 * {@link cellActivity}, so no step re-derives its folder, re-loads its workload or opens and forgets
 * its own client. A step body is then "read the context, call the method (`measure/`,
 * `clickhouse/`), write a record, return a summary".
 *
 * What the context holds (everything lazy: a step pays only for what it reads):
 * - the cell and its target handle, the target's capabilities (`capabilitiesOf(handle)`);
 * - the workload manifest (`sql/workloads/<name>/manifest.yaml`), the cell's codec profile;
 * - the cell's folder `<resultsDir>/<runId>/cells/<cellKey>/` and its records, written and read
 *   through their zod schemas (`schema/results.ts`);
 * - the settings checked at provisioning (`settings.json`) and the capability probe (`probe.json`);
 * - a ClickHouse client factory whose clients are closed when the step ends;
 * - the activity's attempt, heartbeat, cancellation signal and a cancellable sleep.
 */
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import type { z } from 'zod';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { connect, type ConnectOptions } from '../clickhouse/client';
import { cellDir, parseRecord, readRecordIfExists, writeJsonAtomic } from '../results/store';
import { loadWorkload, type WorkloadManifest } from '../lib/workload';
import { cellCodecProfile, type CellInput, type StepInput } from '../schema/cell';
import { CapabilityProbe, CellSettings } from '../schema/results';
import type { CodecProfile } from '../schema/run-spec';
import type { TargetCapabilities, TargetHandle } from '../schema/target';
import { capabilitiesOf } from '../targets';
import { FAILURE } from '../schema/failures';
import { attempt, cancellationSignal, heartbeat, sleep } from '../temporal/activity-context';
import { isTargetGone } from './support/attempts';

/** Settings of a cell before provisioning wrote `settings.json` (nothing checked, nothing applied). */
const NO_SETTINGS: CellSettings = { load: {}, runs: {}, table: {}, not_applied: {}, problems: [] };

/**
 * A cell's `settings.json` (written at provisioning, `<resultsDir>/<runId>/cells/<cellKey>/`) through
 * its schema; empty settings when absent. @throws Error on a record that does not fit.
 */
export function readCellSettings(cell: CellInput): CellSettings {
  return (
    readRecordIfExists(
      path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'settings.json'),
      CellSettings,
    ) ?? {
      load: {},
      runs: {},
      table: {},
      not_applied: {},
      problems: [],
    }
  );
}

/** What a cell step reads. Built by {@link stepContext}; see the module comment. */
export interface StepContext {
  readonly cell: CellInput;
  readonly target: TargetHandle;
  /** The target kind's capabilities for this handle (`capabilitiesOf`). */
  readonly caps: TargetCapabilities;
  /** The cell's workload manifest (loaded on first read). @throws Error when the workload is invalid. */
  readonly workload: WorkloadManifest;
  /** The cell's codec profile: name, default expression, per-column overrides. */
  readonly codec: CodecProfile;
  /** The cell's result folder (absolute path). */
  readonly dir: string;
  /** `settings.json` as provisioning wrote it (empty settings before that). */
  readonly settings: CellSettings;
  /** `probe.json` (what this server can do), or undefined before provisioning wrote it. */
  readonly probe: CapabilityProbe | undefined;
  /** The activity attempt this step runs in (1 = first). */
  readonly attempt: number;
  /** Cancellation of the activity (undefined outside an activity, e.g. in a unit test). */
  readonly signal: AbortSignal | undefined;
  /**
   * A client for the cell's server (with the step's statement watch when one runs). Every client
   * made here is closed when the step ends.
   */
  client(opts?: ConnectOptions): ClickHouseClient;
  /** Path of a file of the cell folder. */
  file(rel: string): string;
  /**
   * Write a record of the cell folder atomically, checked against its schema first.
   * @throws Error naming the file and the first field that does not fit (a chbench bug, never data).
   */
  write<S extends z.ZodType>(rel: string, schema: S, value: z.input<S>): void;
  /** Read a record of the cell folder through its schema; undefined when the file does not exist. @throws Error on a record that does not fit. */
  read<S extends z.ZodType>(rel: string, schema: S): z.infer<S> | undefined;
  /** Heartbeat with step details (no-op outside an activity). */
  heartbeat(details?: Record<string, unknown>): void;
  /** Sleep `ms`, ended early by the activity's cancellation. */
  sleep(ms: number): Promise<void>;
}

/**
 * The context of one step call. `close()` closes every client the step made.
 * Pure apart from the lazy reads of the cell folder and the workload.
 */
export function stepContext({ cell, target }: StepInput): StepContext & { close(): Promise<void> } {
  const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
  const clients: ClickHouseClient[] = [];
  let workload: WorkloadManifest | undefined;
  const read = <S extends z.ZodType>(rel: string, schema: S) => readRecordIfExists(path.join(dir, rel), schema);
  return {
    cell,
    target,
    caps: capabilitiesOf(target),
    get workload() {
      return (workload ??= loadWorkload(cell.workload));
    },
    codec: cellCodecProfile(cell),
    dir,
    get settings() {
      return read('settings.json', CellSettings) ?? NO_SETTINGS;
    },
    get probe() {
      return read('probe.json', CapabilityProbe);
    },
    attempt: attempt(),
    signal: cancellationSignal(),
    client(opts) {
      const c = connect(target, opts);
      clients.push(c);
      return c;
    },
    file: (rel) => path.join(dir, rel),
    write(rel, schema, value) {
      parseRecord(value, schema, path.join(dir, rel));
      writeJsonAtomic(path.join(dir, rel), value);
    },
    read,
    heartbeat: (details = {}) => heartbeat(details),
    sleep,
    async close() {
      await Promise.allSettled(clients.splice(0).map((c) => c.close()));
    },
  };
}

/**
 * A cell step as an activity: `body(ctx, ...rest)` becomes `(input: StepInput, ...rest)`. The
 * result also says which attempt produced it (so a figure that came from a retry says so); an
 * unreachable server becomes a non-retryable `TargetUnavailable` failure the cell workflow answers
 * by provisioning again (retrying against a dead server cannot succeed); a step whose activity was
 * cancelled reports `CancelledFailure`, never its statement's abort error. Clients the step made are
 * closed in every case.
 */
export function cellActivity<A extends unknown[], R extends object>(
  name: string,
  body: (ctx: StepContext, ...rest: A) => Promise<R>,
): (input: StepInput, ...rest: A) => Promise<R & { attempt: number }> {
  return cellStep(name, (input: StepInput, ...rest: A) => withStepContext(input, (ctx) => body(ctx, ...rest)));
}

/** Run `body` with the {@link stepContext} of `input`; every client it made is closed when it ends, in every case. */
export async function withStepContext<R>(input: StepInput, body: (ctx: StepContext) => Promise<R>): Promise<R> {
  const ctx = stepContext(input);
  try {
    return await body(ctx);
  } finally {
    await ctx.close();
  }
}

/** The attempt, cancellation and lost-server rules of {@link cellActivity}, around any step function. */
function cellStep<A extends unknown[], R extends object>(
  name: string,
  fn: (...a: A) => Promise<R>,
): (...a: A) => Promise<R & { attempt: number }> {
  return async (...a: A) => {
    try {
      return { ...(await fn(...a)), attempt: attempt() };
    } catch (e) {
      // A cancelled step is reported as cancelled, whatever its statement threw on the abort (e.g.
      // "The user aborted a request."), so the cell ends Canceled rather than failed.
      const signal = cancellationSignal();
      if (signal?.aborted && !(e instanceof CancelledFailure))
        throw signal.reason instanceof CancelledFailure
          ? signal.reason
          : new CancelledFailure(
              `${name} cancelled: ${String((signal.reason as Error)?.message ?? signal.reason ?? '')}`,
            );
      if (isTargetGone(e))
        throw ApplicationFailure.create({
          type: FAILURE.TargetUnavailable,
          nonRetryable: true,
          message: `${name}: the ClickHouse server is unreachable (${(e as Error).message})`,
        });
      throw e;
    }
  };
}
