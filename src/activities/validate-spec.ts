/**
 * validateSpec: the matrix workflow's first activity. Checks what the pure schema cannot — the
 * workload and its query ids exist, local binaries are executable, password variables are set on
 * this worker — before anything is provisioned, and writes `run.json`.
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { parseRunSpec, expandMatrix, cellKey, SpecError, type RunSpec } from '../spec';
import { loadWorkload, workloadQueries } from '../lib/workload';
import { runDir, cellDir, writeJsonAtomic, readJsonIfExists } from '../lib/results-store';
import type { CellOutcome } from './types';

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
}

/** Options of the matrix workflow (second workflow argument; all optional). */
export interface MatrixOptions {
  /**
   * ISO time: failed/cancelled cell results written at or after it are reused too. Set by the matrix
   * itself when it continues as new, so a failed cell is not re-run within the same resume.
   */
  reuseFailedSince?: string;
}

/**
 * Validate a spec fully; returns the problems as lines (empty when valid). Pure apart from reading
 * the workload files and checking binaries and environment variables.
 */
export function checkSpec(input: unknown): { spec?: RunSpec; problems: string[] } {
  let spec: RunSpec;
  try {
    spec = parseRunSpec(input);
  } catch (e) {
    if (e instanceof SpecError) return { problems: e.issues };
    throw e;
  }
  const problems: string[] = [];
  try {
    const m = loadWorkload(spec.workload);
    workloadQueries(m, { table: m.table, rows: spec.scale, codec: 'LZ4' }, spec.queries);
  } catch (e) {
    problems.push(`${/unknown query/.test(String(e)) ? 'queries' : 'workload'}: ${(e as Error).message.replace(/^(workload|queries): /, '')}`);
  }
  if (spec.target.kind === 'local')
    for (const [v, bin] of Object.entries(spec.target.binaries)) {
      if (!spec.matrix.version.includes(v)) continue;
      try {
        accessSync(bin, constants.X_OK);
      } catch {
        problems.push(`target.binaries.${v}: "${bin}" is not an executable file on this worker`);
      }
    }
  if (spec.target.kind === 'external' && spec.target.passwordEnv && process.env[spec.target.passwordEnv] === undefined)
    problems.push(`target.passwordEnv: environment variable ${spec.target.passwordEnv} is not set on this worker`);
  return { spec, problems };
}

/** Activity factory. */
export function createValidateSpec() {
  return {
    /**
     * Validate the run spec and record the run.
     * @throws ApplicationFailure type `InvalidSpec` (non-retryable) listing every problem.
     */
    async validateSpec(input: { spec: unknown; runId: string; startedAt: string; reuseFailedSince?: string }): Promise<ValidatedRun> {
      const { spec, problems } = checkSpec(input.spec);
      if (!spec || problems.length)
        throw ApplicationFailure.create({ type: 'InvalidSpec', nonRetryable: true, message: `invalid run spec:\n  - ${problems.join('\n  - ')}` });
      const dir = runDir(spec.resultsDir, input.runId);
      const cellKeys = expandMatrix(spec).map(cellKey);
      const runFile = path.join(dir, 'run.json');
      const prev = readJsonIfExists<{ startedAt: string; spec: RunSpec; resumes?: string[] }>(runFile);
      if (prev && JSON.stringify(prev.spec) !== JSON.stringify(spec))
        throw ApplicationFailure.create({
          type: 'InvalidSpec',
          nonRetryable: true,
          message: `run ${input.runId} already exists in ${dir} with a different spec; resume it with the spec stored in ${path.join(dir, 'run-spec.json')}, or start a new run id`,
        });
      const reused: CellOutcome[] = [];
      for (const k of cellKeys) {
        const file = path.join(cellDir(spec.resultsDir, input.runId, k), 'result.json');
        const r = readJsonIfExists<{ status: CellOutcome['status']; error?: string; written_at: string }>(file);
        if (!r) continue;
        const keep = r.status === 'succeeded' || r.status === 'skipped' || (input.reuseFailedSince !== undefined && r.written_at >= input.reuseFailedSince);
        if (keep) reused.push({ cellKey: k, status: r.status, resultFile: file, ...(r.error ? { error: r.error } : {}) });
      }
      writeJsonAtomic(runFile, {
        schema: 'chbench.run/v1',
        runId: input.runId,
        startedAt: prev?.startedAt ?? input.startedAt,
        spec,
        cells: cellKeys,
        // Each start of the matrix workflow after the first (resume or continue-as-new).
        resumes: prev ? [...(prev.resumes ?? []), input.startedAt] : [],
      });
      // The spec exactly as given: the input to resume this run with `temporal workflow start --input-file`.
      writeJsonAtomic(path.join(dir, 'run-spec.json'), input.spec);
      return { spec, cellKeys, runDir: dir, reused };
    },
  };
}
