#!/usr/bin/env node
/**
 * chbench command line.
 *
 *   chbench validate <spec>     check a run spec (exit 0 valid, 2 invalid) and say what each matrix version resolves to;
 *                               --json prints the spec, defaults applied, as JSON; --versions [--json] only the resolutions
 *   chbench run <spec>          start the benchmarkMatrix workflow, show progress, print the report path
 *   chbench watch <runId>       attach to a run: the same progress as `run`, until it closes
 *   chbench cancel <runId>      cancel a run, wait until it closed, print its report and how to resume
 *   chbench report <runId>      (re)render results/<runId>/report.md and report.html from the stored cell results
 *                               (<runId>: the run id, its folder name, or a scheduled run's workflow id)
 *   chbench schedule …          create|list|describe|runs|trigger|pause|unpause|update|delete Temporal Schedules of a run spec
 *   chbench results sql|import|stop   the results database (embedded in <resultsDir>/db, or a ClickHouse server)
 *   chbench export --format clickbench|jsonl|csv <runId>   a run's results for other tools
 *   chbench compare <runA> <runB>     compare two stored runs (exit 0 no regression, 1 regression, 3 undecided)
 *   chbench resume <runId>      run the failed/missing cells of a run again (finished ones are reused)
 *   chbench gc                  remove servers and directories left by closed runs
 *   chbench gc --kubernetes     delete the pods and PVCs of closed runs (label app.kubernetes.io/managed-by=chbench)
 *   chbench engines list|install|remove   the installed engines (PyPI chdb builds) of the embedded target
 *   chbench worker              run a worker on the chbench task queue
 *
 * Exit codes: 0 ok; 1 the run finished but some cells failed; 2 invalid spec or arguments;
 * 3 Temporal unreachable; 4 the workflow failed or was cancelled; 130 Ctrl-C while following a run
 * (`run`, `watch`, `resume`, `cancel`): the CLI detached, the run goes on.
 */
import { Command } from 'commander';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { rootCause } from '@temporalio/common';
import { FAILURE, hasFailureType } from './schema/failures';
import { checkSpec, chbenchVersion } from './activities/matrix/validate-spec';
import { readSpecFile } from './lib/spec-file';
import { expandMatrix, cellKey } from './schema/matrix';
import { hostAddress, loadConfig } from './config';
import { newRunId, followRun, liveWorkflowPollers, startRun, WorkflowFailedError } from './temporal/run-client';
import { ProgressView } from './temporal/progress';
import {
  countOutcomes,
  countProgress,
  detachedLine,
  detachOnInterrupt,
  EXIT_DETACHED,
  keptServerLines,
  keptServers,
  noWorkerLine,
  nothingToResume,
  progressOf,
  runDurationMs,
  say,
  summaryLine,
  watchForWorker,
} from './cli/follow';
import { renderReport } from './results/report';
import { renderHtmlReport } from './results/report-html';
import { seriesOf } from './activities/matrix/write-report';
import { runDir, writeTextAtomic } from './results/store';
import { registerCompareCommand } from './cli/compare';
import { collectGarbage, collectKubernetesGarbage, type KubeGcScope } from './targets/gc';
import { registerScheduleCommands } from './cli/schedule';
import { registerResultsCommands } from './cli/results';
import { registerEnginesCommands } from './cli/engines';
import { resolveMatrixVersions } from './targets/versions';
import { findStoredRun, type StoredRun } from './cli/run-folder';
import { runIdProblem } from './schema/run-id';

/** Exit codes. */
export const EXIT = {
  ok: 0,
  cellsFailed: 1,
  invalid: 2,
  unreachable: 3,
  workflowFailed: 4,
  detached: EXIT_DETACHED,
} as const;

const EXIT_HELP = `
Exit codes: 0 ok; 1 the run finished but some cells failed; 2 invalid spec or arguments; 3 Temporal
unreachable; 4 the run failed or was cancelled; 130 Ctrl-C while following a run (run, watch, resume,
cancel): the CLI detached and the run goes on (\`chbench watch <runId>\` follows it again,
\`chbench cancel <runId>\` stops it).`;

function fail(code: number, msg: string): never {
  console.error(`chbench: ${msg}`);
  process.exit(code);
}

/** The deepest failure message of a workflow failure, and whether it was a spec refusal. */
function failureSummary(e: WorkflowFailedError): { message: string; invalidSpec: boolean } {
  return {
    message: (e.cause && rootCause(e.cause)) || e.message,
    invalidSpec: hasFailureType(e.cause, FAILURE.InvalidSpec),
  };
}

function validateFile(file: string) {
  let raw: unknown;
  try {
    raw = readSpecFile(file);
  } catch (e) {
    fail(EXIT.invalid, (e as Error).message);
  }
  // The worker checks the rest (binaries, password variables, results directory) on its own host.
  const { spec, problems } = checkSpec(raw);
  if (!spec || problems.length) fail(EXIT.invalid, `${file}: invalid run spec:\n  - ${problems.join('\n  - ')}`);
  return { raw, spec };
}

const program = new Command('chbench')
  .description('ClickHouse benchmark matrices as Temporal workflows')
  .version(chbenchVersion().version)
  .showHelpAfterError()
  // Usage errors exit 2 (1 means "cells failed").
  .exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : EXIT.invalid))
  .addHelpText('after', EXIT_HELP);

program
  .command('validate <spec>')
  .description('validate a run spec (YAML or JSON) without running anything; say what each matrix version resolves to')
  .option(
    '--json',
    'print the parsed spec with its defaults applied as JSON on stdout (the input of `temporal workflow start --type benchmarkMatrix --input`)',
  )
  .option('--versions', 'print only what each matrix version resolves to (with --json: {versions: [...]})')
  .action((file: string, o: { json?: boolean; versions?: boolean }) => {
    const { spec } = validateFile(file);
    // A valid spec resolves every label (the target's checkSpec refused the others).
    const versions = resolveMatrixVersions(spec.target, spec.matrix.version).flatMap((r) =>
      r.ok ? [r.resolution] : [],
    );
    if (o.versions && o.json) return console.log(JSON.stringify({ versions }));
    if (o.json) return console.log(JSON.stringify(spec));
    const lines = versions.map(
      (v) =>
        `  version ${v.label} → ${v.description}${v.limits?.length ? `\n      cannot: ${v.limits.join('; ')}` : ''}`,
    );
    if (o.versions) return console.log(lines.join('\n'));
    const cells = expandMatrix(spec).map(cellKey);
    console.log(
      `${file}: valid; workload ${spec.workload}, ${spec.scale} rows, target ${spec.target.kind}, ${cells.length} cell(s): ${cells.join(', ')}`,
    );
    console.log(lines.join('\n'));
    console.log(
      '(checked on the worker when the run starts: local binaries, password variables, the results directory; the version each server runs is read back at provision)',
    );
  });

program
  .command('run <spec>')
  .description(
    'start a run (benchmarkMatrix workflow) and follow it; needs a running worker (`chbench worker`). Ctrl-C detaches (exit 130): the run goes on',
  )
  .option('--run-id <id>', 'workflow id / run id (default <name>-<UTC timestamp>)')
  .option('--no-wait', 'print the run id and return once started')
  .action(async (file: string, o: { runId?: string; wait: boolean }) => {
    const { raw, spec } = validateFile(file);
    if (spec.baseline?.from === 'previous-scheduled')
      console.error(
        'chbench: baseline.from is previous-scheduled, but `chbench run` does not start a schedule: this run will have no baseline (verdict no-baseline). Start it from a schedule (`chbench schedule create … && chbench schedule trigger …`) or name a run (`baseline: { from: run, run: <runId> }`).',
      );
    const runId = o.runId ?? newRunId(spec.name);
    // The run id names the run's folder and its cells' workflows: one id everywhere, refused here if it cannot.
    const bad = runIdProblem(runId);
    if (bad) fail(EXIT.invalid, `--run-id ${JSON.stringify(runId)}: ${bad}`);
    if (existsSync(path.join(runDir(spec.resultsDir, runId), 'run.json')))
      fail(
        EXIT.invalid,
        `run ${runId} already exists in ${runDir(spec.resultsDir, runId)}; resume it with: chbench resume ${runId}`,
      );
    const { client, connection, cfg } = await temporalClient();
    try {
      await startOrExplain(client, raw, runId, cfg.taskQueue);
      if (!o.wait) {
        console.log(runId);
        const pollers = await liveWorkflowPollers(client, cfg.namespace, cfg.taskQueue).catch(() => 1);
        if (!pollers) say(noWorkerLine(cfg));
        return;
      }
      say(
        `run ${runId} started on task queue ${cfg.taskQueue}; watch it in the Temporal Web UI, or: temporal workflow query --workflow-id ${runId} --type progress --address ${cfg.temporalAddress}`,
      );
      await follow(client, runId, cfg);
    } finally {
      await connection.close();
    }
  });

/**
 * {@link startRun}, or exit {@link EXIT.invalid} saying that a run with this id is already running
 * (another `chbench run`/`resume` of the same id started it, possibly at the same moment) and how
 * to watch it, instead of the SDK's `WorkflowExecutionAlreadyStartedError`.
 */
async function startOrExplain(client: Client, spec: unknown, runId: string, taskQueue: string): Promise<void> {
  try {
    await startRun(client, spec, runId, taskQueue);
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError)
      fail(
        EXIT.invalid,
        `a run with id ${runId} is already running; watch it with \`chbench watch ${runId}\` (or cancel it with \`chbench cancel ${runId}\`)`,
      );
    throw e;
  }
}

/**
 * Follow a started run to its end (progress on stderr, Ctrl-C detaches with exit 130), then say how
 * it ended — report path (stdout), comparison, one-line summary, failed cells, kept servers, and
 * after a cancel how to resume — and set the exit code. `how: 'cancel'` (the user cancelled it):
 * a cancelled end exits 0.
 */
async function follow(
  client: Client,
  runId: string,
  cfg: ReturnType<typeof loadConfig>,
  how: 'run' | 'cancel' = 'run',
): Promise<void> {
  const view = new ProgressView({ stream: process.stderr });
  const undoInt = detachOnInterrupt(
    how === 'cancel'
      ? `stopped waiting — the cancellation of run ${runId} goes on; follow it with \`chbench watch ${runId}\``
      : detachedLine(runId),
    view,
  );
  const stopWorkerCheck = watchForWorker(client, cfg);
  try {
    const r = await followRun(client, runId, { view });
    stopWorkerCheck();
    const failed = r.cells.filter((c) => c.status === 'failed');
    console.log(r.reportPath);
    const c = r.comparison;
    if (c)
      console.error(
        `chbench: ${c.baselineRunId ? `compared with ${c.baselineRunId}` : 'not compared'}: ${c.verdict}${c.flagged.length ? `; first pass flagged ${c.flagged.join(', ')}, re-run confirmed ${c.confirmed.join(', ') || 'none'}` : ''}${c.note ? ` (${c.note})` : ''}`,
      );
    say(`run ${runId}: ${summaryLine(countOutcomes(r.cells), await runDurationMs(client, runId))}`);
    for (const l of keptServerLines(keptServers(path.dirname(r.reportPath)))) say(l);
    if (failed.length) {
      console.error(
        `chbench: ${failed.length} cell(s) failed: ${failed.map((c) => c.cellKey).join(', ')} (see the report); run them again with \`chbench resume ${runId}\``,
      );
      process.exitCode = EXIT.cellsFailed;
    }
  } catch (e) {
    stopWorkerCheck();
    if (!(e instanceof WorkflowFailedError)) throw e;
    const { message, invalidSpec } = failureSummary(e);
    if (invalidSpec) fail(EXIT.invalid, `run ${runId} refused by the worker: ${message}`);
    if ((e.cause as Error)?.name === 'CancelledFailure') {
      await sayCancelled(client, runId, message);
      if (how === 'cancel') return;
      process.exit(EXIT.workflowFailed);
    }
    fail(EXIT.workflowFailed, `run ${runId} failed: ${message}`);
  } finally {
    undoInt();
  }
}

/**
 * A cancelled run: its summary, its report (stdout too) and how to resume it, and the servers it kept.
 * The report path comes from the matrix's `progress` answer, else from the cancellation message.
 */
async function sayCancelled(client: Client, runId: string, message: string): Promise<void> {
  const p = await progressOf(client, runId);
  const reportPath = p?.reportPath ?? /report written to (\S+)/.exec(message)?.[1];
  const counts = p ? `: ${summaryLine(countProgress(p), await runDurationMs(client, runId))}` : '';
  say(`run ${runId} was cancelled${counts}`);
  if (reportPath) {
    console.log(reportPath);
    say(`report: ${reportPath}`);
  }
  say(`resume it with \`chbench resume ${runId}\` (cells already measured are reused, the others run again)`);
  if (reportPath) for (const l of keptServerLines(keptServers(path.dirname(reportPath)))) say(l);
}

/** Connect to Temporal or exit with EXIT.unreachable. */
async function temporalClient(): Promise<{
  client: Client;
  connection: Connection;
  cfg: ReturnType<typeof loadConfig>;
}> {
  const cfg = loadConfig();
  try {
    const connection = await Connection.connect({ address: cfg.temporalAddress, connectTimeout: 5000 });
    return { client: new Client({ connection, namespace: cfg.namespace }), connection, cfg };
  } catch (e) {
    fail(
      EXIT.unreachable,
      `cannot reach Temporal at ${cfg.temporalAddress} (set TEMPORAL_ADDRESS): ${(e as Error).message}`,
    );
  }
}

program
  .command('resume <runId>')
  .description(
    "run again the failed or missing cells of a run (its run id, folder name, or a scheduled run's workflow id); finished cells are reused from the results store",
  )
  .option('--results-dir <dir>', 'results directory', 'results')
  .action(async (given: string, o: { resultsDir: string }) => {
    const run = storedRunOrFail(o.resultsDir, given);
    // The run's own workflow id (a scheduled run's has ':' where its folder has '_'), never what was typed.
    const { runId, workflowId } = run;
    const specFile = path.join(run.dir, 'run-spec.json');
    if (!existsSync(specFile)) fail(EXIT.invalid, `run ${runId} cannot be resumed: ${specFile} is missing`);
    const done = nothingToResume(run.dir);
    if (done) return say(done);
    const raw = readSpecFile(specFile);
    const { client, connection, cfg } = await temporalClient();
    try {
      const st = await client.workflow
        .getHandle(workflowId)
        .describe()
        .then((d) => d.status.name)
        .catch(() => 'NOT_FOUND');
      if (st === 'RUNNING')
        fail(
          EXIT.invalid,
          `run ${runId} is still running; nothing to resume (follow it with \`chbench watch ${workflowId}\`, or cancel it first with \`chbench cancel ${workflowId}\`)`,
        );
      console.error(
        `chbench: resuming ${runId}${workflowId !== runId ? ` (workflow ${workflowId})` : ''} (spec ${specFile}); cells already measured are reused`,
      );
      await startOrExplain(client, raw, workflowId, cfg.taskQueue);
      await follow(client, workflowId, cfg);
    } finally {
      await connection.close();
    }
  });

program
  .command('watch <runId>')
  .description(
    'attach to a run and show its progress as `chbench run` does, until it closes; Ctrl-C detaches (exit 130), the run goes on',
  )
  .option('--results-dir <dir>', 'results directory (to find a run by its folder name)', 'results')
  .action(async (given: string, o: { resultsDir: string }) => {
    const runId = workflowIdOf(o.resultsDir, given);
    const { client, connection, cfg } = await temporalClient();
    try {
      const d = await client.workflow
        .getHandle(runId)
        .describe()
        .catch(() => undefined);
      if (!d)
        fail(
          EXIT.invalid,
          `no run ${runId} in namespace ${cfg.namespace} on ${cfg.temporalAddress} (TEMPORAL_ADDRESS)`,
        );
      if (d.status.name === 'RUNNING') say(`following run ${runId} (Ctrl-C detaches; the run goes on)`);
      await follow(client, runId, { ...cfg, taskQueue: d.taskQueue });
    } finally {
      await connection.close();
    }
  });

program
  .command('cancel <runId>')
  .description(
    'cancel a run (its matrix workflow): running cells stop, results so far and the report are written; waits until it closed, then prints the report path and how to resume (exit 0). Ctrl-C stops waiting (exit 130), the cancellation goes on',
  )
  .option('--results-dir <dir>', 'results directory (to find a run by its folder name)', 'results')
  .action(async (given: string, o: { resultsDir: string }) => {
    const runId = workflowIdOf(o.resultsDir, given);
    const { client, connection, cfg } = await temporalClient();
    try {
      const handle = client.workflow.getHandle(runId);
      const d = await handle.describe().catch(() => undefined);
      if (!d)
        fail(
          EXIT.invalid,
          `no run ${runId} in namespace ${cfg.namespace} on ${cfg.temporalAddress} (TEMPORAL_ADDRESS)`,
        );
      if (d.status.name !== 'RUNNING')
        fail(
          EXIT.invalid,
          `run ${runId} is not running (${d.status.name.toLowerCase()}); nothing to cancel (its report: \`chbench report ${runId}\`; run what did not finish: \`chbench resume ${runId}\`)`,
        );
      await handle.cancel();
      say(
        `cancellation of run ${runId} requested; waiting for it to close (running steps stop, the results so far and the report are written)`,
      );
      // With no worker the cancellation is never processed: after a bound, say so and how to terminate.
      const boundS = Number(process.env.CHBENCH_CANCEL_WAIT_S ?? 60);
      const bound = setTimeout(() => {
        void liveWorkflowPollers(client, cfg.namespace, d.taskQueue)
          .catch(() => 0)
          .then((n) => {
            if (n > 0) return;
            fail(
              EXIT.workflowFailed,
              `run ${runId} has not closed ${boundS} s after the cancellation was requested, and no worker polls task queue ${d.taskQueue} on ${cfg.temporalAddress}: the cancellation waits for a worker (start one with \`chbench worker\`). To end it without one: \`temporal workflow terminate --workflow-id ${runId} --address ${cfg.temporalAddress} --namespace ${cfg.namespace}\` (no report is written), then \`chbench gc\` removes the servers it left`,
            );
          });
      }, boundS * 1000);
      try {
        await follow(client, runId, { ...cfg, taskQueue: d.taskQueue }, 'cancel');
      } finally {
        clearTimeout(bound);
      }
    } finally {
      await connection.close();
    }
  });

/**
 * `chbench gc --kubernetes`: run {@link collectKubernetesGarbage} on `scope` and return one line per
 * pod or PVC it looked at, deleted ones first, e.g.
 * `deleted run-1/v26.7-lz4 Pod bench-database/chb-…: matrix run-1 and cell … are terminated …` or
 * `kept run-2/v26.7-lz4 PersistentVolumeClaim bench-database/chb-…-data: … is running …`
 * (`would delete` with `dryRun`), or one line saying nothing carries the chbench label.
 * @param scope kubeconfig path, context and namespace (default `bench-database`)
 * @param opts.dryRun list only
 * @throws Error when the cluster cannot be listed (as {@link collectKubernetesGarbage})
 */
export async function kubernetesGcLines(scope: KubeGcScope, opts: { dryRun?: boolean } = {}): Promise<string[]> {
  const { removed, kept } = await collectKubernetesGarbage(scope, { dryRun: opts.dryRun });
  const obj = (e: { runId: string; cellKey: string; kind: string; namespace: string; name: string }) =>
    `${e.runId}/${e.cellKey} ${e.kind} ${e.namespace}/${e.name}`;
  const lines = [
    ...removed.map((r) => `${opts.dryRun ? 'would delete' : 'deleted'} ${obj(r)}: ${r.reason}`),
    ...kept.map((k) => `kept ${obj(k)}: ${k.reason}`),
  ];
  if (!lines.length)
    lines.push(
      `nothing labelled app.kubernetes.io/managed-by=chbench in namespace ${scope.namespace ?? 'bench-database'}`,
    );
  return lines;
}

program
  .command('gc')
  .description(
    'stop and remove per-cell servers and directories whose runs are closed, as seen by the Temporal server each run lives on (recorded in its label); with --kubernetes, delete the pods and PVCs of closed runs instead',
  )
  .option('--dry-run', 'only list what would be removed')
  .option(
    '--force',
    'also remove servers whose label records no Temporal owner (older chbench) when their workflows are found closed in TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE (not found there: kept)',
  )
  .option(
    '--force-unowned',
    'like --force, and also count a workflow not found in TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE as closed (that server may not be the one that ran it)',
  )
  .option(
    '--kubernetes',
    'the pods and PVCs labelled app.kubernetes.io/managed-by=chbench, judged by their chbench.io/owner annotation (one without owner is always kept)',
  )
  .option('--kubeconfig <path>', 'with --kubernetes: kubeconfig file (default KUBECONFIG, ~/.kube/config, in-cluster)')
  .option('--context <name>', 'with --kubernetes: kubeconfig context (default its current-context)')
  .option('--namespace <ns>', 'with --kubernetes: namespace of the pods and PVCs (default bench-database)')
  .action(
    async (o: {
      dryRun?: boolean;
      force?: boolean;
      forceUnowned?: boolean;
      kubernetes?: boolean;
      kubeconfig?: string;
      context?: string;
      namespace?: string;
    }) => {
      if (o.kubernetes) {
        if (o.force || o.forceUnowned)
          fail(
            EXIT.invalid,
            '--force/--force-unowned do not apply to --kubernetes: an object without owner is always kept',
          );
        const scope: KubeGcScope = { kubeconfig: o.kubeconfig, context: o.context, namespace: o.namespace };
        let lines: string[] = [];
        try {
          lines = await kubernetesGcLines(scope, { dryRun: o.dryRun });
        } catch (e) {
          fail(
            EXIT.unreachable,
            `gc --kubernetes: cannot list pods and PVCs in namespace ${o.namespace ?? 'bench-database'}: ${(e as Error).message.split('\n')[0]}`,
          );
        }
        for (const l of lines) console.log(l);
        return;
      }
      const stray = (['kubeconfig', 'context', 'namespace'] as const).filter((k) => o[k] !== undefined);
      if (stray.length) fail(EXIT.invalid, `--${stray.join(', --')} only apply with --kubernetes`);
      const cfg = loadConfig();
      // Each server is judged by the Temporal server and namespace recorded in its label, not by this
      // CLI's; TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE only serve --force for labels without owner.
      const { removed, kept } = await collectGarbage(cfg.workDir, {
        dryRun: o.dryRun,
        ...(o.force || o.forceUnowned
          ? { force: { address: cfg.temporalAddress, namespace: cfg.namespace, unowned: !!o.forceUnowned } }
          : {}),
      });
      for (const r of removed)
        console.log(
          `${o.dryRun ? 'would remove' : 'removed'} ${r.runId}/${r.cellKey} ${r.dataDir}${r.pid ? ` (pid ${r.pid})` : ''}: ${r.reason}`,
        );
      for (const k of kept)
        console.log(`kept ${k.runId}/${k.cellKey} ${k.dataDir}${k.pid ? ` (pid ${k.pid})` : ''}: ${k.reason}`);
      if (!removed.length && !kept.length) console.log(`nothing under ${cfg.workDir}`);
    },
  );

program
  .command('report <runId>')
  .description('render results/<runId>/report.md and report.html again from the stored cell results')
  .option('--results-dir <dir>', 'results directory', 'results')
  .option('--print', 'also print the report to stdout')
  .action(async (given: string, o: { resultsDir: string; print?: boolean }) => {
    const { dir } = storedRunOrFail(o.resultsDir, given);
    let md = '';
    try {
      md = renderReport(dir);
    } catch (e) {
      // A result file another chbench version (or something else) wrote: the error names the file and field.
      fail(EXIT.invalid, `cannot render the report: ${(e as Error).message}`);
    }
    const file = path.join(dir, 'report.md');
    writeTextAtomic(file, md);
    // report.html beside it, with the series of past runs from the results database when it can be read.
    const series = await seriesOf(o.resultsDir, dir);
    writeTextAtomic(path.join(dir, 'report.html'), await renderHtmlReport(dir, series ? { series } : {}));
    if (o.print) console.log(md);
    else console.log(`${file}\n${path.join(dir, 'report.html')}`);
  });

/** The stored run `given` names (run id, folder name or workflow id), or exit with EXIT.invalid. */
/**
 * The matrix workflow id a user means by `given` (a run id, its folder name or a scheduled run's
 * workflow id): the one recorded in `<resultsDir>/<folder>/run.json` when this host has the run's
 * folder, else `given` as typed.
 */
function workflowIdOf(resultsDir: string, given: string): string {
  try {
    return findStoredRun(resultsDir, given)?.workflowId ?? given;
  } catch {
    return given;
  }
}

function storedRunOrFail(resultsDir: string, given: string): StoredRun {
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

program
  .command('worker')
  .description(
    'run a worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, CHBENCH_TASK_QUEUE, CHBENCH_WORK_DIR, CHBENCH_HOST_ID, CHBENCH_HOST_ADDRESS)',
  )
  .action(async () => {
    const { runWorker } = await import('./worker');
    let cfg: ReturnType<typeof loadConfig>;
    try {
      cfg = loadConfig();
      hostAddress();
    } catch (e) {
      return fail(EXIT.invalid, (e as Error).message);
    }
    try {
      await runWorker(cfg);
    } catch (e) {
      const msg = (e as Error).message ?? String(e);
      if (/connect|UNAVAILABLE|ECONNREFUSED|transport/i.test(msg))
        fail(
          EXIT.unreachable,
          `cannot reach Temporal at ${cfg.temporalAddress} (set TEMPORAL_ADDRESS): ${msg.split('\n')[0]}`,
        );
      throw e;
    }
  });

registerScheduleCommands(program);
registerResultsCommands(program);
registerCompareCommand(program);
registerEnginesCommands(program);

if (require.main === module) {
  program.parseAsync(process.argv).catch((e) => {
    console.error(`chbench: ${(e as Error).stack ?? e}`);
    process.exit(EXIT.workflowFailed);
  });
}
