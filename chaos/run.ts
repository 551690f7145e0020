/**
 * `npm run test:chaos`: the fault-injection suite. Real Temporal dev server (file-backed), real worker
 * processes (`chbench worker`), real ClickHouse targets (embedded engine and Debian's 18.16 server).
 *
 * Trials (each a fresh run, checked afterwards):
 *   1. kill-worker      SIGKILL the worker at seeded random moments covering every step kind, restart it
 *   2. kill-server      SIGKILL the ClickHouse server during load and during a query run (embedded + local)
 *   3. restart-temporal stop and restart the Temporal dev server (same SQLite file) mid-run
 *   4. cancel           `cancel` a run in the middle of a cell
 *   5. sigterm-worker   SIGTERM a worker during a long activity (graceful shutdown), then start a new one
 *   6. kubernetes       `target.kind: kubernetes` on the simulated EKS of the test tree (API emulator,
 *                       kubelet running the embedded engine per pod, EBS + CloudWatch in moto): ≥ 3 worker
 *                       SIGKILLs (one during provision), a pod eviction during load or the baseline
 *                       queries and a pod deletion (grace 0) during a later step; also checks recorded
 *                       target restarts, the report's Kubernetes / Cloud metrics / Cost sections, and that
 *                       no chbench pod, PVC, EBS volume or pod server process is left
 * After each: exactly one result per cell (one completed child execution), loaded rows equal the
 * spec, no two attempts of a step overlapped on the server (archived statement logs), no process,
 * data directory or database of the run left. Kills counted: worker SIGKILLs and pod kills. Prints one
 * line per trial and a final line
 *   chaos: trials N, survived N, kills K, duplicated cells 0, double loads 0, leaked resources 0
 * and a line on a 504-cell matrix's history sizes (each < 10,000 events).
 * Exit code 1 if any trial did not survive. `CHAOS_SEED=<n>` replays a run's random choices;
 * `CHAOS_TRIALS=a,b` runs only those (names as printed, plus `long-matrix`); `CHAOS_MIN_KILLS` and
 * `CHAOS_LONG_REPEAT` make the kill-worker trial and the long matrix smaller (CI does).
 *
 * Layout: this file is the entry (the trial list and the final line); `harness.ts` the knobs, the
 * worker child and the progress polls; `checks.ts` what is checked after each run; `trials/<name>.ts`
 * one trial each (a new trial: one file there and one line in the list below).
 */
import { stopEmbeddedResultsDb } from '../src/results/db';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/temporal/dev-server';
import { freePort } from '../src/lib/net';
import { merge, type TrialOutcome } from './checks';
import { seed, startWorker, stopWorker, type Ctx } from './harness';
import { trialKillWorker } from './trials/kill-worker';
import { trialKillServer } from './trials/kill-server';
import { trialRestartTemporal } from './trials/restart-temporal';
import { trialCancel } from './trials/cancel';
import { trialSigtermWorker } from './trials/sigterm-worker';
import { trialKubernetes } from './trials/kubernetes';
import { longMatrix } from './trials/long-matrix';

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-chaos-'));
  const port = await freePort();
  const dbFile = path.join(tmp, 'temporal.sqlite');
  const server = await startDevServer({ port, dbFile, keepDb: true });
  const connection = await Connection.connect({ address: server.address });
  const ctx: Ctx = {
    tmp,
    workDir: path.join(tmp, 'targets'),
    resultsDir: path.join(tmp, 'results'),
    taskQueue: `chaos-${seed}`,
    server,
    port,
    dbFile,
    connection,
    client: new Client({ connection }),
  };
  console.log(`chaos: seed ${seed} (replay with CHAOS_SEED=${seed}); logs in ${tmp}`);
  startWorker(ctx);
  const outcomes: TrialOutcome[] = [];
  const trials: [string, () => Promise<TrialOutcome>][] = [
    ['kill-worker', () => trialKillWorker(ctx)],
    ['kill-server-embedded', () => trialKillServer(ctx, 'embedded')],
    ['kill-server-local', () => trialKillServer(ctx, 'local')],
    ['restart-temporal', () => trialRestartTemporal(ctx)],
    ['cancel', () => trialCancel(ctx)],
    ['sigterm-worker', () => trialSigtermWorker(ctx)],
    ['kubernetes', () => trialKubernetes(ctx)],
  ];
  const only = process.env.CHAOS_TRIALS?.split(',');
  for (const [name, run] of trials) {
    if (only && !only.includes(name)) continue;
    const t0 = Date.now();
    let o: TrialOutcome;
    try {
      o = await run();
    } catch (e) {
      o = {
        name,
        survived: false,
        detail: `harness error: ${(e as Error).stack}`,
        kills: 0,
        check: { problems: [String(e)], duplicated: 0, doubleLoads: 0, leaked: 0 },
      };
    }
    outcomes.push(o);
    console.log(
      `trial ${o.name}: ${o.survived ? 'survived' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(0)} s — ${o.detail}${o.check.problems.length ? `; problems: ${o.check.problems.join('; ')}` : ''}`,
    );
  }
  let longOk = true;
  if (!only || only.includes('long-matrix')) {
    try {
      // No injected step delay here: this measures history sizes of a long matrix, not faults.
      await stopWorker(ctx, 'SIGTERM');
      startWorker(ctx, 0);
      const l = await longMatrix(ctx);
      longOk = l.ok;
      console.log(l.line);
    } catch (e) {
      longOk = false;
      console.log(`long matrix: FAILED: ${(e as Error).stack}`);
    }
  }
  await stopWorker(ctx, 'SIGTERM');
  await ctx.connection.close();
  await ctx.server.stop();
  // The results database's engine process, started (detached) by a worker's storeRun: stopped here.
  await stopEmbeddedResultsDb(path.join(ctx.resultsDir, 'db'));
  const all = merge(outcomes.map((o) => o.check));
  const survived = outcomes.filter((o) => o.survived).length;
  console.log(
    `chaos: trials ${outcomes.length}, survived ${survived}, kills ${outcomes.reduce((a, o) => a + o.kills, 0)}, duplicated cells ${all.duplicated}, double loads ${all.doubleLoads}, leaked resources ${all.leaked}`,
  );
  const pass = survived === outcomes.length && longOk;
  if (pass) rmSync(tmp, { recursive: true, force: true });
  process.exit(pass ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
