/**
 * A start of a run against what an earlier start recorded in `run.json`: whether this start may
 * write into the run's folder (same workflow, same spec, same workload files), and the run record
 * this start writes. Pure: the caller reads the earlier record and the workload's fingerprint.
 */
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from './failures';
import type { RunSpec } from './run-spec';
import type { CellOutcome } from './cell';
import {
  RUN_RECORD_SCHEMA,
  lateStartThresholdMs,
  startLateness,
  type ChbenchVersion,
  type RunRecord,
  type WorkloadFingerprint,
} from './results';

/** Input of the matrix's `validateSpec` activity. */
export interface ValidateSpecInput {
  spec: unknown;
  /** The run id (folder-safe; `src/schema/run-id.ts`). */
  runId: string;
  /** The matrix's Temporal workflow id (`runId` when absent). */
  workflowId?: string;
  startedAt: string;
  reuseFailedSince?: string;
  /** The Temporal schedule that started the run (its `ChbenchSchedule` search attribute), recorded in run.json. */
  scheduleId?: string;
  /** A scheduled run's due time (ISO, Temporal search attribute `TemporalScheduledStartTime`), recorded in run.json. */
  scheduledStart?: string;
  /** Whether the run's cells include the A/A control cell (default: a comparing matrix does; the bisect runs its own cells: false). */
  control?: boolean;
}

/** Output of the matrix's `validateSpec` activity. */
export interface ValidatedRun {
  spec: RunSpec;
  cellKeys: string[];
  /** Absolute run directory (`<resultsDir>/<runId>`). */
  runDir: string;
  /**
   * Cells whose result is already in the results store and is reused instead of run again: every
   * succeeded or skipped cell, and failed/cancelled cells written at or after `reuseFailedSince`.
   */
  reused: CellOutcome[];
  /** Selected queries that use the workload's skip index; when empty the index step is skipped. */
  indexQueries: string[];
  /** The workload's after-load statement files, in order (absent in old histories: none). */
  afterLoad?: string[];
}

/** The start being checked. */
export interface RunStart {
  runId: string;
  /** The matrix's Temporal workflow id (`runId` when absent). */
  workflowId: string;
  /** The run's folder (for messages). */
  dir: string;
  spec: RunSpec;
  /** The workload's files now (`workloadFingerprint`). */
  workloadFiles: WorkloadFingerprint;
  /** The files that differ from the earlier start's (`changedWorkloadFiles`); empty on a first start. */
  changedFiles: string[];
}

/**
 * Refuse a start that must not continue the run in its folder.
 * @throws ApplicationFailure `InvalidSpec` (non-retryable) when the folder holds a run of another
 *   workflow id, the spec differs from the one the run started with, or the workload's files
 *   changed (details `[{ changed }]`), each message saying how to resume or start a new run id
 */
export function checkRunStart(prev: RunRecord | undefined, s: RunStart): void {
  // One folder, one run: a workflow of another id must not write into a run's folder (e.g. one
  // started with the folder's name for a scheduled run whose workflow id has ':').
  const prevWorkflowId = prev && (prev.workflowId ?? prev.runId);
  if (prev && prevWorkflowId !== s.workflowId)
    throw ApplicationFailure.create({
      type: FAILURE.InvalidSpec,
      nonRetryable: true,
      message: `${s.dir} holds run ${prev.runId} of workflow ${prevWorkflowId}, not of workflow ${s.workflowId}; resume that run with: chbench resume ${prev.runId} (it starts workflow ${prevWorkflowId} again), or start a new run id`,
    });
  if (prev && JSON.stringify(prev.spec) !== JSON.stringify(s.spec))
    throw ApplicationFailure.create({
      type: FAILURE.InvalidSpec,
      nonRetryable: true,
      message: `run ${s.runId} already exists in ${s.dir} with a different spec; resume it with the spec stored in ${s.dir}/run-spec.json, or start a new run id`,
    });
  // The cells measured so far ran this workload's files: the rest must run the same ones.
  const changed = s.changedFiles;
  if (changed.length)
    throw ApplicationFailure.create({
      type: FAILURE.InvalidSpec,
      nonRetryable: true,
      message: `run ${s.runId}: workload ${s.spec.workload} changed since the run started (sql/workloads/${s.spec.workload}/: ${changed.join(', ')}); its cells so far were measured with the files as they were: restore them to resume, or start a new run id to measure the changed workload`,
      details: [{ changed }],
    });
}

/**
 * The `run.json` this start writes: the earlier record's first start, files and starts carried
 * over, this start appended (`starts`, `resumes`); the due time (and lateness) belongs to the first start.
 */
export function runRecordOf(
  prev: RunRecord | undefined,
  s: RunStart & { cells: string[]; startedAt: string; scheduledStart?: string; scheduleId?: string },
  chbench: ChbenchVersion,
): RunRecord {
  const startedAt = prev?.startedAt ?? s.startedAt;
  // The due time belongs to the first start (a resume is not started by the schedule).
  const start = prev?.scheduled_start
    ? startLateness(startedAt, prev.scheduled_start, lateStartThresholdMs())
    : prev
      ? {}
      : startLateness(startedAt, s.scheduledStart, lateStartThresholdMs());
  return {
    schema: RUN_RECORD_SCHEMA,
    runId: s.runId,
    workflowId: s.workflowId,
    // Which chbench produced these results (validity rules change between versions).
    chbench,
    // The files the first start read (a record from before they were recorded: this start's).
    workload_files: prev?.workload_files ?? s.workloadFiles,
    starts: [...(prev?.starts ?? []), { at: s.startedAt, chbench }],
    startedAt,
    ...start,
    spec: s.spec,
    cells: s.cells,
    // Each start of the matrix workflow after the first (resume or continue-as-new).
    resumes: prev ? [...(prev.resumes ?? []), s.startedAt] : [],
    ...(s.scheduleId ? { scheduleId: s.scheduleId } : {}),
  };
}
