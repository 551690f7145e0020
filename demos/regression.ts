/**
 * The regression demo (`npm run demo:regression`): a quarterly schedule, triggered three times.
 *
 * 1. Start a Temporal dev server with its Web UI (unless TEMPORAL_ADDRESS is set) and a worker.
 * 2. Create the schedule `regression-demo-<time>` with `examples/regression.yaml` (baseline: the
 *    previous successful run of this schedule) and trigger it: run 1 has no baseline yet.
 * 3. Trigger it again: run 2 is compared with run 1 — an A/A comparison, which must flag nothing.
 * 4. Replace the schedule's spec with `examples/regression-slow.yaml` (the skip index switched off for
 *    the measured runs) and trigger it: run 3 is compared with run 2 — an A/B comparison, which must
 *    flag exactly the queries the profile slowed. Which queries those are is read from the runs'
 *    read_rows (the profile makes them read more rows), not from any timing.
 * 5. Print `regression demo: A/A flagged 0 of N; A/B flagged <ids> (slowed <ids>); confirmed by re-run <ids>; report <path>`
 *    ("flagged": the first pass, per pair and query; "confirmed": what the interleaved re-run kept) — the
 *    check is that nothing stays flagged in A/A and exactly the slowed queries do in A/B
 *    and check that `SELECT count() FROM query_runs` in the results database equals the measured runs
 *    in the three runs' result files.
 *
 * REGRESSION_DEMO_SCALE overrides the rows (CI runs it small). With `--keep` the dev server and its Web
 * UI stay up (Ctrl-C ends): the schedule, the three runs with `ChbenchSchedule`/`ChbenchVerdict` and
 * the confirming re-run are there. Exit code 1 when a check fails.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import { REPO_ROOT } from '../src/config';
import { startDemoEnv } from './env';
import { readSpecFile } from '../src/lib/spec-file';
import { checkSpec } from '../src/targets/check-spec';
import {
  createSchedule,
  listScheduledRuns,
  pauseSchedule,
  triggerSchedule,
  updateScheduleSpec,
} from '../src/temporal/schedules';
import { pollUntil } from '../src/lib/poll';
import { withResultsDb } from '../src/results/db';
import { sqlString } from '../src/lib/sql';
import { runDir } from '../src/results/store';
import type { MatrixResult } from '../src/schema/progress';
import type { ComparisonRecord } from '../src/schema/comparison';
import type { CellResult } from '../src/schema/results';

/**
 * A spec file with the demo's scale applied, and `REGRESSION_DEMO_CONFIRM_PAIRS` as its matrix verdicts'
 * `verdicts.confirmPairs` (CI: 2, the warm re-run's interleaved A/A pair and one pair — the path, at a third
 * of the cells; the demo's subject is the schedule's baseline comparison, which it does not touch).
 */
function specOf(file: string): Record<string, unknown> {
  const raw = readSpecFile(path.join(REPO_ROOT, 'examples', file)) as Record<string, unknown>;
  const scale = Number(process.env.REGRESSION_DEMO_SCALE ?? 0);
  const pairs = process.env.REGRESSION_DEMO_CONFIRM_PAIRS;
  return {
    ...raw,
    ...(scale > 0 ? { scale } : {}),
    ...(pairs ? { verdicts: { ...(raw.verdicts as object | undefined), confirmPairs: Number(pairs) } } : {}),
  };
}

/** Trigger the schedule and wait for the run it started. @throws Error when no new run appears within 60 s. */
async function triggerAndWait(client: Client, scheduleId: string, label: string): Promise<MatrixResult> {
  const before = new Set((await listScheduledRuns(client, scheduleId)).map((r) => r.workflowId));
  await triggerSchedule(client, scheduleId);
  const started = await pollUntil(
    async () => (await listScheduledRuns(client, scheduleId)).find((r) => !before.has(r.workflowId)),
    { timeoutMs: 60_000, intervalMs: 500, what: `the run started by triggering ${scheduleId}` },
  );
  const t0 = Date.now();
  console.error(`regression demo: ${label}: run ${started.workflowId} started`);
  const r = (await client.workflow.getHandle(started.workflowId).result()) as MatrixResult;
  const c = r.comparison;
  console.error(
    `regression demo: ${label}: ${r.status} in ${((Date.now() - t0) / 1000).toFixed(0)} s; cells ${r.cells.map((x) => `${x.cellKey} ${x.status}`).join(', ')}; ` +
      (c
        ? `verdict ${c.verdict}${c.baselineRunId ? ` against ${c.baselineRunId}` : ''}; first pass flagged ${c.flagged.join(', ') || 'nothing'}; confirmed ${c.confirmed.join(', ') || 'nothing'}${c.note ? ` (${c.note})` : ''}`
        : 'no comparison'),
  );
  if (r.cells.some((x) => x.status !== 'succeeded')) throw new Error(`${label}: not every cell succeeded`);
  return r;
}

/** Median of a list (numbers). */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * The queries a comparison's new run read more rows for than its baseline (warm runs' median
 * read_rows up by more than half), as comparison ids (`Q5@index`): what the slowdown profile changed,
 * known without looking at a timing.
 */
function slowedByReadRows(resultsDir: string, c: ComparisonRecord): string[] {
  const out = new Set<string>();
  const cellOf = (runId: string, cellKey: string) =>
    JSON.parse(
      readFileSync(path.join(runDir(resultsDir, runId), 'cells', cellKey, 'result.json'), 'utf8'),
    ) as CellResult;
  for (const p of c.pairs) {
    const a = cellOf(p.baseline_run, p.baseline_cell);
    const b = cellOf(p.new_run, p.new_cell);
    for (const phase of ['baseline', 'index'] as const) {
      const rec = (r: CellResult) => (phase === 'baseline' ? r.queries_baseline : r.queries_index);
      for (const qb of rec(b)?.queries ?? []) {
        const qa = rec(a)?.queries.find((q) => q.id === qb.id);
        const rows = (q: typeof qb) =>
          median(q.samples.filter((s) => s.kind === 'warm' && s.read_rows !== null).map((s) => s.read_rows as number));
        if (qa && rows(qb) > 1.5 * rows(qa)) out.add(`${qb.id.toUpperCase()}${phase === 'index' ? '@index' : ''}`);
      }
    }
  }
  return [...out].sort();
}

/** Measured query runs (cold, warm-up and warm) in a run's result files. */
function measuredRuns(r: MatrixResult): number {
  let n = 0;
  for (const cell of r.cells) {
    const res = JSON.parse(readFileSync(cell.resultFile, 'utf8')) as CellResult;
    for (const rec of [res.queries_baseline, res.queries_index])
      for (const q of rec?.queries ?? []) n += q.samples.length;
  }
  return n;
}

async function main(): Promise<void> {
  const keep = process.argv.includes('--keep');
  const a = specOf('regression.yaml');
  const b = specOf('regression-slow.yaml');
  for (const [name, s] of [
    ['regression.yaml', a],
    ['regression-slow.yaml', b],
  ] as const) {
    const { problems } = checkSpec(s);
    if (problems.length) throw new Error(`invalid spec ${name}:\n  - ${problems.join('\n  - ')}`);
  }
  const env = await startDemoEnv('regression demo');
  const { client, cfg, server } = env;
  let failed = false;
  try {
    const scheduleId = `regression-demo-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15).toLowerCase()}`;
    await createSchedule(client, {
      scheduleId,
      spec: a,
      check: checkSpec,
      when: { calendar: 'quarterly' },
      taskQueue: cfg.taskQueue,
      note: 'chbench regression demo',
    });
    console.error(`regression demo: schedule ${scheduleId} (quarterly; triggered by hand here)`);
    const first = await triggerAndWait(client, scheduleId, 'run 1 (first of the schedule, no baseline)');
    const aa = await triggerAndWait(client, scheduleId, 'run 2 (A/A)');
    await updateScheduleSpec(client, scheduleId, b, checkSpec);
    const ab = await triggerAndWait(client, scheduleId, 'run 3 (A/B, skip index off)');
    await pauseSchedule(client, scheduleId, 'regression demo done');

    const resultsDir = String(a.resultsDir ?? 'results');
    const record = (r: MatrixResult) =>
      JSON.parse(readFileSync(path.join(runDir(resultsDir, r.runId), 'comparison.json'), 'utf8')) as ComparisonRecord;
    const aaRec = record(aa);
    const abRec = record(ab);
    const compared = aaRec.pairs.reduce((n, p) => n + p.queries.length, 0);
    const slowed = slowedByReadRows(resultsDir, abRec);
    // "Flagged" is the first pass; what the interleaved re-run confirmed is what stays flagged.
    const abConfirmed = [...new Set(ab.comparison?.confirmed ?? [])].sort();
    const abFirst = [...new Set(ab.comparison?.flagged ?? [])].sort();
    const aaFirst = aaRec.pairs.flatMap((p) =>
      p.queries.filter((q) => q.verdict === 'regression' || q.verdict === 'improvement'),
    );
    const aaConfirmed = aa.comparison?.confirmed ?? [];
    console.log(
      `regression demo: A/A flagged ${aaFirst.length} of ${compared}${aaFirst.length ? ` (confirmed by re-run: ${aaConfirmed.join(', ') || 'none'})` : ''}; ` +
        `A/B flagged ${abFirst.join(', ') || 'none'} (slowed ${slowed.join(', ') || 'none'}); confirmed by re-run ${abConfirmed.join(', ') || 'none'}; report ${ab.reportPath.replace(/\.md$/, '.html')}`,
    );
    if (aaConfirmed.length) {
      failed = true;
      console.error(
        `regression demo: FAILED: the A/A comparison kept ${aaConfirmed.join(', ')} flagged after its re-run`,
      );
    }
    if (abConfirmed.join() !== slowed.join()) {
      failed = true;
      console.error(
        `regression demo: FAILED: the A/B comparison kept ${abConfirmed.join(', ') || 'nothing'}, the profile slowed ${slowed.join(', ') || 'nothing'}`,
      );
    }

    // The results database holds every measured run of the three runs (and of earlier runs in this results directory).
    await withResultsDb(undefined, resultsDir, async (db) => {
      const runs = [first, aa, ab];
      const inDb = await db.query<{ n: string }>(
        `SELECT count() AS n FROM query_runs WHERE run_id IN (${runs.map((r) => sqlString(r.runId)).join(', ')})`,
      );
      const inFiles = runs.reduce((n, r) => n + measuredRuns(r), 0);
      console.error(
        `regression demo: results database (${db.description}): measured runs (query_runs rows) of the three runs ${inDb[0]?.n}, measured runs in their result files ${inFiles}`,
      );
      if (Number(inDb[0]?.n) !== inFiles) {
        failed = true;
        console.error('regression demo: FAILED: the results database does not hold every measured run');
      }
    });
    if (keep && server) {
      console.error(`regression demo: Web UI ${server.uiUrl} (schedule ${scheduleId}); Ctrl-C to stop`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
  } finally {
    await env.stop();
  }
  if (failed) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`regression demo failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
