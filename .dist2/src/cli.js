#!/usr/bin/env node
"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.EXIT = void 0;
exports.kubernetesGcLines = kubernetesGcLines;
/**
 * chbench command line.
 *
 *   chbench validate <spec>     check a run spec (exit 0 valid, 2 invalid)
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
 *   chbench worker              run a worker on the chbench task queue
 *
 * Exit codes: 0 ok; 1 the run finished but some cells failed; 2 invalid spec or arguments;
 * 3 Temporal unreachable; 4 the workflow failed or was cancelled; 130 Ctrl-C while following a run
 * (`run`, `watch`, `resume`, `cancel`): the CLI detached, the run goes on.
 */
const commander_1 = require("commander");
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("@temporalio/client");
const common_1 = require("@temporalio/common");
const failures_1 = require("./schema/failures");
const validate_spec_1 = require("./activities/matrix/validate-spec");
const spec_file_1 = require("./lib/spec-file");
const matrix_1 = require("./schema/matrix");
const config_1 = require("./config");
const run_client_1 = require("./temporal/run-client");
const progress_1 = require("./temporal/progress");
const follow_1 = require("./cli/follow");
const report_1 = require("./results/report");
const report_html_1 = require("./results/report-html");
const write_report_1 = require("./activities/matrix/write-report");
const store_1 = require("./results/store");
const compare_1 = require("./cli/compare");
const gc_1 = require("./targets/gc");
const schedule_1 = require("./cli/schedule");
const results_1 = require("./cli/results");
const run_folder_1 = require("./cli/run-folder");
const run_id_1 = require("./schema/run-id");
/** Exit codes. */
exports.EXIT = {
    ok: 0,
    cellsFailed: 1,
    invalid: 2,
    unreachable: 3,
    workflowFailed: 4,
    detached: follow_1.EXIT_DETACHED,
};
const EXIT_HELP = `
Exit codes: 0 ok; 1 the run finished but some cells failed; 2 invalid spec or arguments; 3 Temporal
unreachable; 4 the run failed or was cancelled; 130 Ctrl-C while following a run (run, watch, resume,
cancel): the CLI detached and the run goes on (\`chbench watch <runId>\` follows it again,
\`chbench cancel <runId>\` stops it).`;
function fail(code, msg) {
    console.error(`chbench: ${msg}`);
    process.exit(code);
}
/** The deepest failure message of a workflow failure, and whether it was a spec refusal. */
function failureSummary(e) {
    return {
        message: (e.cause && (0, common_1.rootCause)(e.cause)) || e.message,
        invalidSpec: (0, failures_1.hasFailureType)(e.cause, failures_1.FAILURE.InvalidSpec),
    };
}
function validateFile(file) {
    let raw;
    try {
        raw = (0, spec_file_1.readSpecFile)(file);
    }
    catch (e) {
        fail(exports.EXIT.invalid, e.message);
    }
    // The worker checks the rest (binaries, password variables, results directory) on its own host.
    const { spec, problems } = (0, validate_spec_1.checkSpec)(raw);
    if (!spec || problems.length)
        fail(exports.EXIT.invalid, `${file}: invalid run spec:\n  - ${problems.join('\n  - ')}`);
    return { raw, spec };
}
const program = new commander_1.Command('chbench')
    .description('ClickHouse benchmark matrices as Temporal workflows')
    .version((0, validate_spec_1.chbenchVersion)().version)
    .showHelpAfterError()
    // Usage errors exit 2 (1 means "cells failed").
    .exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : exports.EXIT.invalid))
    .addHelpText('after', EXIT_HELP);
program
    .command('validate <spec>')
    .description('validate a run spec (YAML or JSON) without running anything')
    .action((file) => {
    const { spec } = validateFile(file);
    const cells = (0, matrix_1.expandMatrix)(spec).map(matrix_1.cellKey);
    console.log(`${file}: valid; workload ${spec.workload}, ${spec.scale} rows, target ${spec.target.kind}, ${cells.length} cell(s): ${cells.join(', ')}`);
    console.log('(checked on the worker when the run starts: local binaries, password variables, the results directory)');
});
program
    .command('run <spec>')
    .description('start a run (benchmarkMatrix workflow) and follow it; needs a running worker (`chbench worker`). Ctrl-C detaches (exit 130): the run goes on')
    .option('--run-id <id>', 'workflow id / run id (default <name>-<UTC timestamp>)')
    .option('--no-wait', 'print the run id and return once started')
    .action(async (file, o) => {
    const { raw, spec } = validateFile(file);
    if (spec.baseline?.from === 'previous-scheduled')
        console.error('chbench: baseline.from is previous-scheduled, but `chbench run` does not start a schedule: this run will have no baseline (verdict no-baseline). Start it from a schedule (`chbench schedule create … && chbench schedule trigger …`) or name a run (`baseline: { from: run, run: <runId> }`).');
    const runId = o.runId ?? (0, run_client_1.newRunId)(spec.name);
    // The run id names the run's folder and its cells' workflows: one id everywhere, refused here if it cannot.
    const bad = (0, run_id_1.runIdProblem)(runId);
    if (bad)
        fail(exports.EXIT.invalid, `--run-id ${JSON.stringify(runId)}: ${bad}`);
    if ((0, node_fs_1.existsSync)(node_path_1.default.join((0, store_1.runDir)(spec.resultsDir, runId), 'run.json')))
        fail(exports.EXIT.invalid, `run ${runId} already exists in ${(0, store_1.runDir)(spec.resultsDir, runId)}; resume it with: chbench resume ${runId}`);
    const { client, connection, cfg } = await temporalClient();
    try {
        await (0, run_client_1.startRun)(client, raw, runId, cfg.taskQueue);
        if (!o.wait) {
            console.log(runId);
            const pollers = await (0, run_client_1.liveWorkflowPollers)(client, cfg.namespace, cfg.taskQueue).catch(() => 1);
            if (!pollers)
                (0, follow_1.say)((0, follow_1.noWorkerLine)(cfg));
            return;
        }
        (0, follow_1.say)(`run ${runId} started on task queue ${cfg.taskQueue}; watch it in the Temporal Web UI, or: temporal workflow query --workflow-id ${runId} --type progress --address ${cfg.temporalAddress}`);
        await follow(client, runId, cfg);
    }
    finally {
        await connection.close();
    }
});
/**
 * Follow a started run to its end (progress on stderr, Ctrl-C detaches with exit 130), then say how
 * it ended — report path (stdout), comparison, one-line summary, failed cells, kept servers, and
 * after a cancel how to resume — and set the exit code. `how: 'cancel'` (the user cancelled it):
 * a cancelled end exits 0.
 */
async function follow(client, runId, cfg, how = 'run') {
    const view = new progress_1.ProgressView({ stream: process.stderr });
    const undoInt = (0, follow_1.detachOnInterrupt)(how === 'cancel'
        ? `stopped waiting — the cancellation of run ${runId} goes on; follow it with \`chbench watch ${runId}\``
        : (0, follow_1.detachedLine)(runId), view);
    const stopWorkerCheck = (0, follow_1.watchForWorker)(client, cfg);
    try {
        const r = await (0, run_client_1.followRun)(client, runId, { view });
        stopWorkerCheck();
        const failed = r.cells.filter((c) => c.status === 'failed');
        console.log(r.reportPath);
        const c = r.comparison;
        if (c)
            console.error(`chbench: ${c.baselineRunId ? `compared with ${c.baselineRunId}` : 'not compared'}: ${c.verdict}${c.flagged.length ? `; first pass flagged ${c.flagged.join(', ')}, re-run confirmed ${c.confirmed.join(', ') || 'none'}` : ''}${c.note ? ` (${c.note})` : ''}`);
        (0, follow_1.say)(`run ${runId}: ${(0, follow_1.summaryLine)((0, follow_1.countOutcomes)(r.cells), await (0, follow_1.runDurationMs)(client, runId))}`);
        for (const l of (0, follow_1.keptServerLines)((0, follow_1.keptServers)(node_path_1.default.dirname(r.reportPath))))
            (0, follow_1.say)(l);
        if (failed.length) {
            console.error(`chbench: ${failed.length} cell(s) failed: ${failed.map((c) => c.cellKey).join(', ')} (see the report); run them again with \`chbench resume ${runId}\``);
            process.exitCode = exports.EXIT.cellsFailed;
        }
    }
    catch (e) {
        stopWorkerCheck();
        if (!(e instanceof run_client_1.WorkflowFailedError))
            throw e;
        const { message, invalidSpec } = failureSummary(e);
        if (invalidSpec)
            fail(exports.EXIT.invalid, `run ${runId} refused by the worker: ${message}`);
        if (e.cause?.name === 'CancelledFailure') {
            await sayCancelled(client, runId, message);
            if (how === 'cancel')
                return;
            process.exit(exports.EXIT.workflowFailed);
        }
        fail(exports.EXIT.workflowFailed, `run ${runId} failed: ${message}`);
    }
    finally {
        undoInt();
    }
}
/**
 * A cancelled run: its summary, its report (stdout too) and how to resume it, and the servers it kept.
 * The report path comes from the matrix's `progress` answer, else from the cancellation message.
 */
async function sayCancelled(client, runId, message) {
    const p = await (0, follow_1.progressOf)(client, runId);
    const reportPath = p?.reportPath ?? /report written to (\S+)/.exec(message)?.[1];
    const counts = p ? `: ${(0, follow_1.summaryLine)((0, follow_1.countProgress)(p), await (0, follow_1.runDurationMs)(client, runId))}` : '';
    (0, follow_1.say)(`run ${runId} was cancelled${counts}`);
    if (reportPath) {
        console.log(reportPath);
        (0, follow_1.say)(`report: ${reportPath}`);
    }
    (0, follow_1.say)(`resume it with \`chbench resume ${runId}\` (cells already measured are reused, the others run again)`);
    if (reportPath)
        for (const l of (0, follow_1.keptServerLines)((0, follow_1.keptServers)(node_path_1.default.dirname(reportPath))))
            (0, follow_1.say)(l);
}
/** Connect to Temporal or exit with EXIT.unreachable. */
async function temporalClient() {
    const cfg = (0, config_1.loadConfig)();
    try {
        const connection = await client_1.Connection.connect({ address: cfg.temporalAddress, connectTimeout: 5000 });
        return { client: new client_1.Client({ connection, namespace: cfg.namespace }), connection, cfg };
    }
    catch (e) {
        fail(exports.EXIT.unreachable, `cannot reach Temporal at ${cfg.temporalAddress} (set TEMPORAL_ADDRESS): ${e.message}`);
    }
}
program
    .command('resume <runId>')
    .description("run again the failed or missing cells of a run (its run id, folder name, or a scheduled run's workflow id); finished cells are reused from the results store")
    .option('--results-dir <dir>', 'results directory', 'results')
    .action(async (given, o) => {
    const run = storedRunOrFail(o.resultsDir, given);
    // The run's own workflow id (a scheduled run's has ':' where its folder has '_'), never what was typed.
    const { runId, workflowId } = run;
    const specFile = node_path_1.default.join(run.dir, 'run-spec.json');
    if (!(0, node_fs_1.existsSync)(specFile))
        fail(exports.EXIT.invalid, `run ${runId} cannot be resumed: ${specFile} is missing`);
    const done = (0, follow_1.nothingToResume)(run.dir);
    if (done)
        return (0, follow_1.say)(done);
    const raw = (0, spec_file_1.readSpecFile)(specFile);
    const { client, connection, cfg } = await temporalClient();
    try {
        const st = await client.workflow
            .getHandle(workflowId)
            .describe()
            .then((d) => d.status.name)
            .catch(() => 'NOT_FOUND');
        if (st === 'RUNNING')
            fail(exports.EXIT.invalid, `run ${runId} is still running; nothing to resume (follow it with \`chbench watch ${workflowId}\`, or cancel it first with \`chbench cancel ${workflowId}\`)`);
        console.error(`chbench: resuming ${runId}${workflowId !== runId ? ` (workflow ${workflowId})` : ''} (spec ${specFile}); cells already measured are reused`);
        await (0, run_client_1.startRun)(client, raw, workflowId, cfg.taskQueue);
        await follow(client, workflowId, cfg);
    }
    finally {
        await connection.close();
    }
});
program
    .command('watch <runId>')
    .description('attach to a run and show its progress as `chbench run` does, until it closes; Ctrl-C detaches (exit 130), the run goes on')
    .option('--results-dir <dir>', 'results directory (to find a run by its folder name)', 'results')
    .action(async (given, o) => {
    const runId = workflowIdOf(o.resultsDir, given);
    const { client, connection, cfg } = await temporalClient();
    try {
        const d = await client.workflow
            .getHandle(runId)
            .describe()
            .catch(() => undefined);
        if (!d)
            fail(exports.EXIT.invalid, `no run ${runId} in namespace ${cfg.namespace} on ${cfg.temporalAddress} (TEMPORAL_ADDRESS)`);
        if (d.status.name === 'RUNNING')
            (0, follow_1.say)(`following run ${runId} (Ctrl-C detaches; the run goes on)`);
        await follow(client, runId, { ...cfg, taskQueue: d.taskQueue });
    }
    finally {
        await connection.close();
    }
});
program
    .command('cancel <runId>')
    .description('cancel a run (its matrix workflow): running cells stop, results so far and the report are written; waits until it closed, then prints the report path and how to resume (exit 0). Ctrl-C stops waiting (exit 130), the cancellation goes on')
    .option('--results-dir <dir>', 'results directory (to find a run by its folder name)', 'results')
    .action(async (given, o) => {
    const runId = workflowIdOf(o.resultsDir, given);
    const { client, connection, cfg } = await temporalClient();
    try {
        const handle = client.workflow.getHandle(runId);
        const d = await handle.describe().catch(() => undefined);
        if (!d)
            fail(exports.EXIT.invalid, `no run ${runId} in namespace ${cfg.namespace} on ${cfg.temporalAddress} (TEMPORAL_ADDRESS)`);
        if (d.status.name !== 'RUNNING')
            fail(exports.EXIT.invalid, `run ${runId} is not running (${d.status.name.toLowerCase()}); nothing to cancel (its report: \`chbench report ${runId}\`; run what did not finish: \`chbench resume ${runId}\`)`);
        await handle.cancel();
        (0, follow_1.say)(`cancellation of run ${runId} requested; waiting for it to close (running steps stop, the results so far and the report are written)`);
        await follow(client, runId, { ...cfg, taskQueue: d.taskQueue }, 'cancel');
    }
    finally {
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
async function kubernetesGcLines(scope, opts = {}) {
    const { removed, kept } = await (0, gc_1.collectKubernetesGarbage)(scope, { dryRun: opts.dryRun });
    const obj = (e) => `${e.runId}/${e.cellKey} ${e.kind} ${e.namespace}/${e.name}`;
    const lines = [
        ...removed.map((r) => `${opts.dryRun ? 'would delete' : 'deleted'} ${obj(r)}: ${r.reason}`),
        ...kept.map((k) => `kept ${obj(k)}: ${k.reason}`),
    ];
    if (!lines.length)
        lines.push(`nothing labelled app.kubernetes.io/managed-by=chbench in namespace ${scope.namespace ?? 'bench-database'}`);
    return lines;
}
program
    .command('gc')
    .description('stop and remove per-cell servers and directories whose runs are closed, as seen by the Temporal server each run lives on (recorded in its label); with --kubernetes, delete the pods and PVCs of closed runs instead')
    .option('--dry-run', 'only list what would be removed')
    .option('--force', 'also remove servers whose label records no Temporal owner (older chbench) when their workflows are closed in TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE')
    .option('--kubernetes', 'the pods and PVCs labelled app.kubernetes.io/managed-by=chbench, judged by their chbench.io/owner annotation (one without owner is always kept)')
    .option('--kubeconfig <path>', 'with --kubernetes: kubeconfig file (default KUBECONFIG, ~/.kube/config, in-cluster)')
    .option('--context <name>', 'with --kubernetes: kubeconfig context (default its current-context)')
    .option('--namespace <ns>', 'with --kubernetes: namespace of the pods and PVCs (default bench-database)')
    .action(async (o) => {
    if (o.kubernetes) {
        if (o.force)
            fail(exports.EXIT.invalid, '--force does not apply to --kubernetes: an object without owner is always kept');
        const scope = { kubeconfig: o.kubeconfig, context: o.context, namespace: o.namespace };
        let lines = [];
        try {
            lines = await kubernetesGcLines(scope, { dryRun: o.dryRun });
        }
        catch (e) {
            fail(exports.EXIT.unreachable, `gc --kubernetes: cannot list pods and PVCs in namespace ${o.namespace ?? 'bench-database'}: ${e.message.split('\n')[0]}`);
        }
        for (const l of lines)
            console.log(l);
        return;
    }
    const stray = ['kubeconfig', 'context', 'namespace'].filter((k) => o[k] !== undefined);
    if (stray.length)
        fail(exports.EXIT.invalid, `--${stray.join(', --')} only apply with --kubernetes`);
    const cfg = (0, config_1.loadConfig)();
    // Each server is judged by the Temporal server and namespace recorded in its label, not by this
    // CLI's; TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE only serve --force for labels without owner.
    const { removed, kept } = await (0, gc_1.collectGarbage)(cfg.workDir, {
        dryRun: o.dryRun,
        ...(o.force ? { force: { address: cfg.temporalAddress, namespace: cfg.namespace } } : {}),
    });
    for (const r of removed)
        console.log(`${o.dryRun ? 'would remove' : 'removed'} ${r.runId}/${r.cellKey} ${r.dataDir}${r.pid ? ` (pid ${r.pid})` : ''}: ${r.reason}`);
    for (const k of kept)
        console.log(`kept ${k.runId}/${k.cellKey} ${k.dataDir}${k.pid ? ` (pid ${k.pid})` : ''}: ${k.reason}`);
    if (!removed.length && !kept.length)
        console.log(`nothing under ${cfg.workDir}`);
});
program
    .command('report <runId>')
    .description('render results/<runId>/report.md and report.html again from the stored cell results')
    .option('--results-dir <dir>', 'results directory', 'results')
    .option('--print', 'also print the report to stdout')
    .action(async (given, o) => {
    const { dir } = storedRunOrFail(o.resultsDir, given);
    let md = '';
    try {
        md = (0, report_1.renderReport)(dir);
    }
    catch (e) {
        // A result file another chbench version (or something else) wrote: the error names the file and field.
        fail(exports.EXIT.invalid, `cannot render the report: ${e.message}`);
    }
    const file = node_path_1.default.join(dir, 'report.md');
    (0, store_1.writeTextAtomic)(file, md);
    // report.html beside it, with the series of past runs from the results database when it can be read.
    const series = await (0, write_report_1.seriesOf)(o.resultsDir, dir);
    (0, store_1.writeTextAtomic)(node_path_1.default.join(dir, 'report.html'), await (0, report_html_1.renderHtmlReport)(dir, series ? { series } : {}));
    if (o.print)
        console.log(md);
    else
        console.log(`${file}\n${node_path_1.default.join(dir, 'report.html')}`);
});
/** The stored run `given` names (run id, folder name or workflow id), or exit with EXIT.invalid. */
/**
 * The matrix workflow id a user means by `given` (a run id, its folder name or a scheduled run's
 * workflow id): the one recorded in `<resultsDir>/<folder>/run.json` when this host has the run's
 * folder, else `given` as typed.
 */
function workflowIdOf(resultsDir, given) {
    try {
        return (0, run_folder_1.findStoredRun)(resultsDir, given)?.workflowId ?? given;
    }
    catch {
        return given;
    }
}
function storedRunOrFail(resultsDir, given) {
    let run;
    try {
        run = (0, run_folder_1.findStoredRun)(resultsDir, given);
    }
    catch (e) {
        fail(exports.EXIT.invalid, `cannot read run ${given}: ${e.message}`);
    }
    if (!run)
        fail(exports.EXIT.invalid, `no run ${given} under ${node_path_1.default.resolve(resultsDir)} (missing ${node_path_1.default.join((0, store_1.runDir)(resultsDir, given), 'run.json')})`);
    return run;
}
program
    .command('worker')
    .description('run a worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, CHBENCH_TASK_QUEUE, CHBENCH_WORK_DIR, CHBENCH_HOST_ID, CHBENCH_HOST_ADDRESS)')
    .action(async () => {
    const { runWorker } = await Promise.resolve().then(() => __importStar(require('./worker')));
    let cfg;
    try {
        cfg = (0, config_1.loadConfig)();
        (0, config_1.hostAddress)();
    }
    catch (e) {
        return fail(exports.EXIT.invalid, e.message);
    }
    try {
        await runWorker(cfg);
    }
    catch (e) {
        const msg = e.message ?? String(e);
        if (/connect|UNAVAILABLE|ECONNREFUSED|transport/i.test(msg))
            fail(exports.EXIT.unreachable, `cannot reach Temporal at ${cfg.temporalAddress} (set TEMPORAL_ADDRESS): ${msg.split('\n')[0]}`);
        throw e;
    }
});
(0, schedule_1.registerScheduleCommands)(program);
(0, results_1.registerResultsCommands)(program);
(0, compare_1.registerCompareCommand)(program);
if (require.main === module) {
    program.parseAsync(process.argv).catch((e) => {
        console.error(`chbench: ${e.stack ?? e}`);
        process.exit(exports.EXIT.workflowFailed);
    });
}
//# sourceMappingURL=cli.js.map