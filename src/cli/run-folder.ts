/**
 * A stored run as the CLI finds it: given its run id, its folder name or (a scheduled run) its
 * Temporal workflow id, the run's folder and the ids its record (`run.json`) holds. `chbench resume`
 * and `chbench report` act on these recorded ids, never on what was typed.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runDir } from '../results/store';
import { EXIT, fail } from './exit-codes';

/** A run folder and the ids of its record. */
export interface StoredRun {
  /** Absolute folder `<resultsDir>/<runId>`. */
  dir: string;
  /** `run.json` `runId` (the folder's name for a run chbench normalised). */
  runId: string;
  /**
   * The matrix's Temporal workflow id: `run.json` `workflowId`, else its `runId` (records written
   * before the workflow id was recorded kept the workflow id as the run id).
   */
  workflowId: string;
}

/**
 * Find the run `given` names under `resultsDir`: the folder `runDir(resultsDir, given)` (so a run id,
 * its folder name and a scheduled run's workflow id with `:` all lead to it) with a readable `run.json`.
 * @returns undefined when there is no such folder or record
 * @throws Error when `run.json` is not JSON or has no `runId` (names the file)
 */
export function findStoredRun(resultsDir: string, given: string): StoredRun | undefined {
  const dir = runDir(resultsDir, given);
  const file = path.join(dir, 'run.json');
  if (!existsSync(file)) return undefined;
  let rec: { runId?: unknown; workflowId?: unknown };
  try {
    rec = JSON.parse(readFileSync(file, 'utf8')) as typeof rec;
  } catch (e) {
    throw new Error(`${file} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  if (typeof rec.runId !== 'string' || !rec.runId) throw new Error(`${file} has no runId`);
  return {
    dir,
    runId: rec.runId,
    workflowId: typeof rec.workflowId === 'string' && rec.workflowId ? rec.workflowId : rec.runId,
  };
}

/**
 * The matrix workflow id a user means by `given` (a run id, its folder name or a scheduled run's
 * workflow id): the one recorded in `<resultsDir>/<folder>/run.json` when this host has the run's
 * folder, else `given` as typed.
 */
export function workflowIdOf(resultsDir: string, given: string): string {
  try {
    return findStoredRun(resultsDir, given)?.workflowId ?? given;
  } catch {
    return given;
  }
}

/** The stored run `given` names (run id, folder name or workflow id), or exit with {@link EXIT.invalid}. */
export function storedRunOrFail(resultsDir: string, given: string): StoredRun {
  let run: StoredRun | undefined;
  try {
    run = findStoredRun(resultsDir, given);
  } catch (e) {
    fail(EXIT.invalid, `cannot read run ${given}: ${(e as Error).message}`);
  }
  if (!run)
    fail(
      EXIT.invalid,
      `no run ${given} under ${path.resolve(resultsDir)} (missing ${path.join(runDir(resultsDir, given), 'run.json')})`,
    );
  return run;
}
