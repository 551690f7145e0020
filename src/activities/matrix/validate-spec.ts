/**
 * validateSpec: the matrix workflow's first activity. Checks what the pure schema cannot — the
 * workload and its query ids exist, local binaries are executable, password variables are set on
 * this worker — before anything is provisioned, and writes `run.json`.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { withResultsDb } from '../../results/db';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import { codecProfileOf, parseRunSpec, SpecError, type RunSpec } from '../../schema/run-spec';
import { expandMatrix, cellKey } from '../../schema/matrix';
import {
  codecPlacementProblems,
  indexQueryIds,
  loadWorkload,
  sqlRoot,
  workloadProblems,
  renderTemplate,
  settingsPlacementProblems,
  workloadQueries,
  type WorkloadManifest,
} from '../../lib/workload';
import { runDir, cellDir, writeJsonAtomic, readJsonIfExists, readRecordIfExists } from '../../results/store';
import type { z } from 'zod';
import { CellResult, RUN_RECORD_SCHEMA, RunRecord, lateStartThresholdMs, startLateness } from '../../schema/results';
import type { CellOutcome } from '../../schema/cell';
import { REPO_ROOT } from '../../config';
import { schemaColumns, splitLoadSql } from '../../measure/insert-load';
import { targets } from '../../targets';
import { runIdProblem } from '../../schema/run-id';
import { changedWorkloadFiles, workloadFingerprint } from '../../lib/workload-hash';

/** Output of {@link validateSpec}. */
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

/** chbench's package version and, in a git checkout, the commit. */
export function chbenchVersion(): { version: string; commit: string | null } {
  const root = REPO_ROOT;
  const pkg = readJsonIfExists<{ version: string }>(path.join(root, 'package.json')) ?? { version: 'unknown' };
  let commit: string | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    /* not a git checkout */
  }
  return { version: pkg.version, commit };
}

/** Options of {@link checkSpec}. */
export interface CheckOptions {
  /**
   * Also check what only the worker's host can tell: local binaries are executable, password
   * variables are set, the results directory is writable. True in the worker's `validateSpec`;
   * false in the CLI, which may run on another host with another environment.
   */
  worker?: boolean;
}

function nearestExistingDir(p: string): string {
  let d = path.resolve(p);
  while (!existsSync(d)) d = path.dirname(d);
  return d;
}

/**
 * Validate a spec fully; returns every problem found, one line each (empty when valid). Problems of
 * the schema and of the files it names are reported together, so one pass shows them all: the
 * workload's manifest, files and placeholders ({@link workloadProblems}), and whether its schema
 * places every codec profile on the columns it claims ({@link codecPlacementProblems}). No server is
 * asked; codec expressions are tried on each target at provisioning.
 */
export function checkSpec(input: unknown, opts: CheckOptions = {}): { spec?: RunSpec; problems: string[] } {
  const problems: string[] = [];
  let spec: RunSpec | undefined;
  try {
    spec = parseRunSpec(input);
  } catch (e) {
    if (!(e instanceof SpecError)) throw e;
    problems.push(...e.issues);
  }
  // Checks on the raw input still run when the schema failed elsewhere.
  const raw = (typeof input === 'object' && input !== null ? input : {}) as Record<string, any>;
  // The target kind's own checks (binaries, password variable): see Target.checkSpec.
  const rawTarget =
    typeof raw.target === 'object' && raw.target !== null ? (raw.target as Record<string, unknown>) : undefined;
  const target = rawTarget && targets.find(rawTarget.kind);
  // Run on the valid spec too: the schema cannot see these (an image reference, a binary's path).
  if (target && rawTarget && Array.isArray(raw.matrix?.version))
    problems.push(...target.checkSpec(rawTarget, raw.matrix.version, 'input'));
  const wlProblems =
    typeof raw.workload === 'string' && /^[a-z0-9-]+$/.test(raw.workload) ? workloadProblems(raw.workload) : [];
  problems.push(...wlProblems);
  if (typeof raw.workload === 'string' && /^[a-z0-9-]+$/.test(raw.workload) && !wlProblems.length) {
    try {
      const m = loadWorkload(raw.workload);
      // Each codec profile must reach the columns it claims: a schema without {{codec}} would let a
      // "ZSTD(3)" cell silently measure LZ4.
      if (spec) {
        const schemaText = readFileSync(path.join(sqlRoot(), 'workloads', m.name, m.schema), 'utf8');
        for (const e of spec.matrix.codec)
          problems.push(
            ...codecPlacementProblems(m.name, schemaText, codecProfileOf(e)).map((p) => `matrix.codec: ${p}`),
          );
        // MergeTree settings given anywhere must reach the table: a schema without {{settings}} would
        // leave every part as the server's defaults make it while settings.json claimed them applied.
        problems.push(
          ...settingsPlacementProblems(m.name, schemaText, [
            { where: `workload ${m.name}: manifest.yaml tableSettings`, settings: m.tableSettings },
            { where: 'settings.mergeTree', settings: spec.settings.mergeTree },
            ...(spec.matrix.settings ?? []).map((p) => ({
              where: `matrix.settings profile "${p.name}" mergeTree`,
              settings: p.mergeTree,
            })),
            ...(spec.grids?.insert?.settings ?? []).map((p, i) => ({
              where: `grids.insert.settings[${i}] ("${p.name}") mergeTree`,
              settings: p.mergeTree,
            })),
          ]),
        );
      }
      const ids =
        Array.isArray(raw.queries) && raw.queries.every((q: unknown) => typeof q === 'string')
          ? (raw.queries as string[])
          : undefined;
      const selected = workloadQueries(m, { table: m.table, rows: 1, codec: 'LZ4' }, ids).map((q) => q.id);
      problems.push(...gridProblems(spec, m, selected));
    } catch (e) {
      problems.push(
        `${/unknown query/.test(String(e)) ? 'queries' : 'workload'}: ${(e as Error).message.replace(/^(workload|queries): /, '')}`,
      );
    }
  }
  if (opts.worker) {
    const versions: unknown[] = Array.isArray(raw.matrix?.version) ? raw.matrix.version : [];
    if (target && rawTarget) problems.push(...target.checkSpec(rawTarget, versions, 'worker host'));
    const resultsDir = typeof raw.resultsDir === 'string' ? raw.resultsDir : 'results';
    const abs = path.resolve(resultsDir);
    if (/^\/(proc|sys|dev)(\/|$)/.test(abs)) problems.push(`resultsDir: "${resultsDir}" is under /proc, /sys or /dev`);
    else {
      const base = nearestExistingDir(abs);
      try {
        if (!statSync(base).isDirectory()) throw new Error('not a directory');
        accessSync(base, constants.W_OK);
      } catch {
        problems.push(
          `resultsDir: "${resultsDir}" cannot be created or written on the worker (${base} is not a writable directory)`,
        );
      }
    }
  }
  // The schema and a target's own checks may name the same problem: each once.
  const unique = [...new Set(problems)];
  return unique.length ? { ...(spec ? { spec } : {}), problems: unique } : { spec, problems: unique };
}

/**
 * What the load grids need from the workload: the concurrency mix names selected queries, and the
 * insert grid can slice the workload's generator (its load.sql reads `numbers(N)` or `numbers_mt(N)`).
 */
function gridProblems(spec: RunSpec | undefined, m: WorkloadManifest, selected: string[]): string[] {
  const out: string[] = [];
  const mix = spec?.grids?.concurrency?.mix;
  const missing = (mix ?? []).filter((e) => !selected.includes(e.id)).map((e) => e.id);
  if (missing.length)
    out.push(
      `grids.concurrency.mix: query id(s) ${missing.join(', ')} are not selected queries of workload ${m.name} (selected: ${selected.join(', ')})`,
    );
  if (spec?.grids?.insert) {
    // The same rules the insert grid generates its batches by (src/measure/insert-load.ts).
    const v = { table: m.table, rows: 1, codec: 'LZ4' as const };
    try {
      splitLoadSql(renderTemplate(m.name, m.load, v), m.name);
      schemaColumns(renderTemplate(m.name, m.schema, v), m.name);
    } catch (e) {
      out.push(`grids.insert: ${(e as Error).message}`);
    }
  }
  return out;
}

/**
 * Read a record of an earlier start of this run, parsed with its schema; `undefined` when absent.
 * @throws ApplicationFailure `UnreadableResult` (non-retryable) naming the file and field when it does not parse.
 */
function readUnlessForeign<S extends z.ZodType>(file: string, schema: S): z.infer<S> | undefined {
  try {
    return readRecordIfExists(file, schema);
  } catch (e) {
    throw ApplicationFailure.create({
      type: FAILURE.UnreadableResult,
      nonRetryable: true,
      message: `cannot resume from the results store: ${(e as Error).message}; start a new run id, or move the file away to measure that cell again`,
    });
  }
}

/** Activity factory. */
export function createValidateSpec() {
  return {
    /**
     * Validate the run spec and record the run.
     * @throws ApplicationFailure type `InvalidSpec` (non-retryable) listing every problem (the run id's
     *   too: {@link runIdProblem}, e.g. longer than 200 characters); also when the
     *   run's folder holds a run of another workflow id, or (a resume) the spec or the workload's files
     *   differ from the ones the run started with (naming the changed files); `UnreadableResult` (non-retryable) when the run's `run.json` or a cell's `result.json` exists but
     *   does not parse with the results schema (another chbench version wrote it), naming the file and field.
     */
    async validateSpec(input: {
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
    }): Promise<ValidatedRun> {
      const { spec, problems } = checkSpec(input.spec, { worker: true });
      // A workflow started directly (`temporal workflow start`) skips the CLI's run-id check: the id
      // names folders and child workflows, so check it here, before anything touches the disk.
      const idProblem = runIdProblem(input.runId);
      if (idProblem)
        problems.unshift(`run id (workflow id ${JSON.stringify(input.workflowId ?? input.runId)}): ${idProblem}`);
      if (!spec || problems.length)
        throw ApplicationFailure.create({
          type: FAILURE.InvalidSpec,
          nonRetryable: true,
          message: `invalid run spec:\n  - ${problems.join('\n  - ')}`,
        });
      // A named baseline run must exist before anything is measured against it.
      if (spec.baseline?.from === 'run') {
        const baselineRun = spec.baseline.run;
        await withResultsDb(spec.results, spec.resultsDir, async (db) => {
          if (!(await db.run(baselineRun)))
            throw ApplicationFailure.create({
              type: FAILURE.InvalidSpec,
              nonRetryable: true,
              message: `invalid run spec:\n  - baseline.run: run "${baselineRun}" is not in the results database (${db.description}); load its folder with \`chbench results import <dir>\`, or name a stored run (\`chbench results sql "SELECT run_id FROM runs"\`)`,
            });
        });
      }
      const dir = runDir(spec.resultsDir, input.runId);
      const cellKeys = expandMatrix(spec).map(cellKey);
      const runFile = path.join(dir, 'run.json');
      const prev = readUnlessForeign(runFile, RunRecord);
      const workflowId = input.workflowId ?? input.runId;
      // One folder, one run: a workflow of another id must not write into a run's folder (e.g. one
      // started with the folder's name for a scheduled run whose workflow id has ':').
      const prevWorkflowId = prev && (prev.workflowId ?? prev.runId);
      if (prev && prevWorkflowId !== workflowId)
        throw ApplicationFailure.create({
          type: FAILURE.InvalidSpec,
          nonRetryable: true,
          message: `${dir} holds run ${prev.runId} of workflow ${prevWorkflowId}, not of workflow ${workflowId}; resume that run with: chbench resume ${prev.runId} (it starts workflow ${prevWorkflowId} again), or start a new run id`,
        });
      if (prev && JSON.stringify(prev.spec) !== JSON.stringify(spec))
        throw ApplicationFailure.create({
          type: FAILURE.InvalidSpec,
          nonRetryable: true,
          message: `run ${input.runId} already exists in ${dir} with a different spec; resume it with the spec stored in ${path.join(dir, 'run-spec.json')}, or start a new run id`,
        });
      // The cells measured so far ran this workload's files: the rest must run the same ones.
      const workloadFiles = workloadFingerprint(spec.workload);
      const changed = prev?.workload_files ? changedWorkloadFiles(prev.workload_files, workloadFiles) : [];
      if (changed.length)
        throw ApplicationFailure.create({
          type: FAILURE.InvalidSpec,
          nonRetryable: true,
          message: `run ${input.runId}: workload ${spec.workload} changed since the run started (sql/workloads/${spec.workload}/: ${changed.join(', ')}); its cells so far were measured with the files as they were: restore them to resume, or start a new run id to measure the changed workload`,
          details: [{ changed }],
        });
      const reused: CellOutcome[] = [];
      for (const k of cellKeys) {
        const file = path.join(cellDir(spec.resultsDir, input.runId, k), 'result.json');
        const r = readUnlessForeign(file, CellResult);
        if (!r) continue;
        const keep =
          r.status === 'succeeded' ||
          r.status === 'skipped' ||
          (input.reuseFailedSince !== undefined && r.written_at >= input.reuseFailedSince);
        if (keep)
          reused.push({ cellKey: k, status: r.status, resultFile: file, ...(r.error ? { error: r.error } : {}) });
      }
      const chbench = chbenchVersion();
      const startedAt = prev?.startedAt ?? input.startedAt;
      // The due time belongs to the first start (a resume is not started by the schedule).
      const start = prev?.scheduled_start
        ? startLateness(startedAt, prev.scheduled_start, lateStartThresholdMs())
        : prev
          ? {}
          : startLateness(startedAt, input.scheduledStart, lateStartThresholdMs());
      const record: RunRecord = {
        schema: RUN_RECORD_SCHEMA,
        runId: input.runId,
        workflowId,
        // Which chbench produced these results (validity rules change between versions).
        chbench,
        // The files the first start read (a record from before they were recorded: this start's).
        workload_files: prev?.workload_files ?? workloadFiles,
        starts: [...(prev?.starts ?? []), { at: input.startedAt, chbench }],
        startedAt,
        ...start,
        spec,
        cells: cellKeys,
        // Each start of the matrix workflow after the first (resume or continue-as-new).
        resumes: prev ? [...(prev.resumes ?? []), input.startedAt] : [],
        ...(input.scheduleId ? { scheduleId: input.scheduleId } : {}),
      };
      writeJsonAtomic(runFile, record);
      // The spec exactly as given: the input to resume this run with `temporal workflow start --input-file`.
      writeJsonAtomic(path.join(dir, 'run-spec.json'), input.spec);
      const indexQueries = indexQueryIds(spec.workload, spec.queries);
      // Every later step (on any worker, on any host) writes to the same results store: the folder
      // resolved here, once, not against each worker's own working directory.
      return {
        spec: { ...spec, resultsDir: path.resolve(spec.resultsDir) },
        cellKeys,
        runDir: dir,
        reused,
        indexQueries,
        afterLoad: loadWorkload(spec.workload).afterLoad.map((a) => a.file),
      };
    },
  };
}
