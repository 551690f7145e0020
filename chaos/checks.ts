/**
 * The chaos suite's checks, run on every trial's run after it closed: exactly one result per cell,
 * loaded rows equal to the spec, no two attempts of a step overlapping on the server, one load after
 * the last truncate, nothing of the run left; and a disturbed run's storage against an undisturbed one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readRecord } from '../src/results/store';
import { CellResult, RunRecord } from '../src/schema/results';
import { parseQueryId } from '../src/schema/cell';
import { StatementLine } from '../src/schema/target';
import type { Ctx } from './harness';

/** What the checks found for one run. */
export interface Check {
  problems: string[];
  duplicated: number;
  doubleLoads: number;
  leaked: number;
}

/** A line of the archived statement log (`server-log.jsonl`). */
type LogLine = StatementLine;

/**
 * What the checks found for one run: a run's results (`results/<runId>/cells/<cell>/result.json`,
 * `server-log.jsonl`), its cell executions in Temporal, and what is left under the work directory.
 */
export async function checkRun(
  ctx: Ctx,
  runId: string,
  scale: number,
  expect: 'completed' | 'cancelled',
): Promise<Check> {
  const c: Check = { problems: [], duplicated: 0, doubleLoads: 0, leaked: 0 };
  const run = readRecord(path.join(ctx.resultsDir, runId, 'run.json'), RunRecord);
  if (run.status !== expect) c.problems.push(`run status ${run.status}, expected ${expect}`);
  for (const k of run.cells) {
    const file = path.join(ctx.resultsDir, runId, 'cells', k, 'result.json');
    if (!existsSync(file)) {
      if (expect === 'completed') c.problems.push(`${k}: no result`);
      continue;
    }
    const r = readRecord(file, CellResult);
    if (expect === 'completed' && r.status !== 'succeeded') c.problems.push(`${k}: ${r.status} ${r.error ?? ''}`);
    if (r.load && r.load.rows_in_table !== scale)
      c.problems.push(`${k}: ${r.load.rows_in_table} rows, expected ${scale}`);
    // Exactly one completed child execution per cell.
    let completed = 0;
    for await (const w of ctx.client.workflow.list({ query: `WorkflowId = '${runId}/${k}'` }))
      if (w.status.name === 'COMPLETED') completed++;
    if (completed > 1) c.duplicated++;
    if (expect === 'completed' && completed !== 1) c.problems.push(`${k}: ${completed} completed cell executions`);
    // Statement log archived at teardown: attempts of one step never overlap; one load after the last truncate.
    const logFile = path.join(ctx.resultsDir, runId, 'cells', k, 'server-log.jsonl');
    if (!existsSync(logFile)) {
      c.problems.push(`${k}: no archived server log`);
      continue;
    }
    const lines = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => StatementLine.parse(JSON.parse(l)))
      .filter((l) => l.started_at_ms !== null);
    const byStep = new Map<string, LogLine[]>();
    for (const l of lines) {
      const id = parseQueryId(l.query_id);
      if (!id) continue;
      byStep.set(id.stepPrefix, [...(byStep.get(id.stepPrefix) ?? []), l]);
    }
    for (const [stepKey, ls] of byStep) {
      for (const a of ls)
        for (const b of ls) {
          const [aa, ab] = [parseQueryId(a.query_id)!.attempt, parseQueryId(b.query_id)!.attempt];
          if (aa === ab || a === b) continue;
          if (
            a.started_at_ms! < b.finished_at_ms &&
            b.started_at_ms! < a.finished_at_ms &&
            a.started_at_ms! <= b.started_at_ms!
          )
            c.problems.push(`${k}: attempts ${aa} and ${ab} of ${stepKey} overlapped on the server`);
        }
    }
    const loadStatement = (l: LogLine) => {
      const id = parseQueryId(l.query_id);
      return id?.step === 'load' && !id.run ? (id.statement ?? 'insert') : null;
    };
    const loads = lines.filter((l) => loadStatement(l) === 'insert' && l.ok).length;
    const truncates = lines.filter((l) => loadStatement(l) === 'truncate' && l.ok).length;
    if (loads - truncates > 1) c.doubleLoads++;
  }
  // Nothing of the run left: directories and processes.
  const runDir = path.join(ctx.workDir, runId);
  if (existsSync(runDir) && readdirSync(runDir).length) c.leaked += readdirSync(runDir).length;
  const procs = execFileSync('sh', ['-c', `pgrep -af '${ctx.workDir}/${runId}/' || true`])
    .toString()
    .split('\n')
    .filter((l) => l && !l.includes('pgrep'));
  c.leaked += procs.length;
  if (c.leaked) c.problems.push(`leaked: ${c.leaked}`);
  return c;
}

/** What a trial reports: its name, whether it survived, a one-line detail, kills made and its checks. */
export interface TrialOutcome {
  name: string;
  survived: boolean;
  detail: string;
  kills: number;
  check: Check;
}

/** Storage figures of a finished run's cells: rows, uncompressed and compressed bytes per cell. */
export function storageOf(
  ctx: Ctx,
  runId: string,
): Record<string, { rows: number; uncompressed: number; compressed: number }> {
  const out: Record<string, { rows: number; uncompressed: number; compressed: number }> = {};
  for (const k of readdirSync(path.join(ctx.resultsDir, runId, 'cells'))) {
    const r = readRecord(path.join(ctx.resultsDir, runId, 'cells', k, 'result.json'), CellResult);
    if (r.storage)
      out[k] = {
        rows: r.storage.rows,
        // Every chaos cell runs on 26.7, which gives both (NaN fails every comparison if one were null).
        uncompressed: r.storage.uncompressed_bytes ?? NaN,
        compressed: r.storage.compressed_bytes ?? NaN,
      };
  }
  return out;
}

/**
 * Compare a disturbed run with the undisturbed reference: same rows and uncompressed bytes exactly;
 * compressed bytes within 1 % (they depend on how background merges happened to cut the parts).
 */
export function compareStorage(
  ref: ReturnType<typeof storageOf>,
  got: ReturnType<typeof storageOf>,
  runId: string,
): string[] {
  const problems: string[] = [];
  for (const [k, r] of Object.entries(ref)) {
    const g = got[k];
    if (!g) continue;
    if (g.rows !== r.rows || g.uncompressed !== r.uncompressed)
      problems.push(
        `${runId} ${k}: rows/uncompressed ${g.rows}/${g.uncompressed} differ from the undisturbed run's ${r.rows}/${r.uncompressed}`,
      );
    if (Math.abs(g.compressed - r.compressed) / r.compressed > 0.01)
      problems.push(`${runId} ${k}: compressed ${g.compressed} vs undisturbed ${r.compressed} (> 1 %)`);
  }
  return problems;
}

/** The checks of several runs as one. */
export function merge(cs: Check[]): Check {
  return {
    problems: cs.flatMap((c) => c.problems),
    duplicated: cs.reduce((a, c) => a + c.duplicated, 0),
    doubleLoads: cs.reduce((a, c) => a + c.doubleLoads, 0),
    leaked: cs.reduce((a, c) => a + c.leaked, 0),
  };
}
