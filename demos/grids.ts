/**
 * The load-grids demo (`npm run demo:grids`): `examples/grids.yaml` on the embedded engine — an insert
 * grid (3 batch sizes × 3 concurrencies × async_insert 0/1) and a concurrency stepping (5 steps over
 * Q1/Q2/Q4) — run as one `benchmarkMatrix` workflow on a dev server started here, then:
 *
 *     grids demo: insert points N verified N flagged F, concurrency steps M flagged G, knee at <c>, report <path>
 *
 * "verified": the point's `count()` equals the rows the server acknowledged (see the insert grid's
 * record); "flagged": points whose INSERTs the server delayed or rejected (or a retry measured), and
 * steps whose window was shorter than 3 median latencies — their figures carry ⚠ in the report.
 * Exit code 1 when a cell failed or a point was not verified.
 *
 * GRIDS_DEMO_SCALE overrides the table's rows, GRIDS_DEMO_ROWS the rows per insert point and
 * GRIDS_DEMO_STEP_S the measured seconds per concurrency step (CI runs it small). Set
 * TEMPORAL_ADDRESS to use a server you run; `--keep` leaves the dev server and its Web UI up.
 */
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { startDemoEnv } from './env';
import { readSpecFile } from '../src/lib/spec-file';
import { checkSpec } from '../src/targets/check-spec';
import { newRunId, runAndFollow } from '../src/temporal/run-client';
import { loadRun } from '../src/results/report';
import { gridsOutcome } from '../src/results/report-grids';

/** `examples/grids.yaml` with the demo's environment overrides applied. */
function demoSpec(): Record<string, unknown> {
  const raw = readSpecFile(path.join(REPO_ROOT, 'examples', 'grids.yaml')) as Record<string, any>;
  const num = (k: string) => (process.env[k] ? Number(process.env[k]) : undefined);
  const scale = num('GRIDS_DEMO_SCALE');
  const rows = num('GRIDS_DEMO_ROWS');
  const stepS = num('GRIDS_DEMO_STEP_S');
  return {
    ...raw,
    ...(scale ? { scale } : {}),
    grids: {
      ...raw.grids,
      insert: { ...raw.grids.insert, ...(rows ? { rows } : {}) },
      concurrency: { ...raw.grids.concurrency, ...(stepS ? { durationS: stepS } : {}) },
    },
  };
}

async function main(): Promise<void> {
  const raw = demoSpec();
  const { spec, problems } = checkSpec(raw);
  if (!spec || problems.length) throw new Error(`invalid spec examples/grids.yaml:\n  - ${problems.join('\n  - ')}`);
  const env = await startDemoEnv('grids demo');
  const { client, cfg, server } = env;
  let failed = false;
  try {
    const runId = newRunId(spec.name);
    console.error(
      `grids demo: run ${runId}: ${spec.workload}, ${spec.scale.toLocaleString('en-US')} rows, ${spec.target.kind} target`,
    );
    const t0 = Date.now();
    const r = await runAndFollow(client, raw, runId, cfg.taskQueue, { progress: true });
    console.error(
      `grids demo: finished in ${((Date.now() - t0) / 1000).toFixed(0)} s; cells: ${r.cells.map((c) => `${c.cellKey} ${c.status}`).join(', ')}`,
    );
    const { cells } = loadRun(path.dirname(r.reportPath));
    const o = gridsOutcome(cells, spec);
    const knees = o.knees.map((k) => (k === null ? 'none' : String(k))).join(', ') || 'none';
    console.log(
      `grids demo: insert points ${o.insertPoints} verified ${o.insertVerified} flagged ${o.insertFlagged}, concurrency steps ${o.concurrencySteps} flagged ${o.stepsFlagged}, knee at ${knees}, report ${r.reportPath.replace(/\.md$/, '.html')}`,
    );
    if (r.cells.some((c) => c.status !== 'succeeded')) {
      failed = true;
      console.error('grids demo: FAILED: a cell did not succeed');
    }
    if (o.insertVerified !== o.insertPoints || o.insertPoints === 0) {
      failed = true;
      console.error(`grids demo: FAILED: ${o.insertPoints - o.insertVerified} insert point(s) not verified`);
    }
    if (process.argv.includes('--keep') && server) {
      console.error(`grids demo: Web UI ${server.uiUrl}; Ctrl-C to stop`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
  } finally {
    await env.stop();
  }
  if (failed) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`grids demo failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
