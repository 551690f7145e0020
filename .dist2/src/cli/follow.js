"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.EXIT_DETACHED = void 0;
exports.say = say;
exports.noWorkerLine = noWorkerLine;
exports.watchForWorker = watchForWorker;
exports.detachedLine = detachedLine;
exports.detachOnInterrupt = detachOnInterrupt;
exports.formatDuration = formatDuration;
exports.countOutcomes = countOutcomes;
exports.countProgress = countProgress;
exports.summaryLine = summaryLine;
exports.runDurationMs = runDurationMs;
exports.progressOf = progressOf;
exports.keptServers = keptServers;
exports.keptServerLines = keptServerLines;
exports.nothingToResume = nothingToResume;
/**
 * What the CLI says while it follows a run (`chbench run`, `watch`, `resume`, `cancel`): that no
 * worker polls the task queue, how to re-attach or cancel after Ctrl-C (exit 130, the run goes on),
 * a one-line summary when the run closes, the report path and how to resume after a cancel, and the
 * servers a run kept (`teardown: never`, or `on-success` with failed cells) with where they are.
 */
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const run_client_1 = require("../temporal/run-client");
const store_1 = require("../results/store");
/** Exit code after Ctrl-C: the CLI detached, the run goes on (128 + SIGINT, as a shell reports it). */
exports.EXIT_DETACHED = 130;
/** Write one `chbench: …` line on stderr. */
function say(line) {
    process.stderr.write(`chbench: ${line}\n`);
}
/** The line printed when no worker polls the run's task queue. */
function noWorkerLine(place) {
    return `no worker is polling task queue \`${place.taskQueue}\` on ${place.temporalAddress}; start one with \`chbench worker\` (same TEMPORAL_ADDRESS and CHBENCH_TASK_QUEUE). The run waits for it; Ctrl-C detaches and leaves it queued.`;
}
/**
 * Check at once, then every `everyMs`, whether a worker polls the run's workflow task queue
 * ({@link liveWorkflowPollers}); say {@link noWorkerLine} once when none does, and
 * `a worker is polling … now` when one comes. Stops checking once a worker was seen.
 * Errors of the check are ignored (the run's own wait reports an unreachable server).
 * @returns a function that stops the checks
 */
function watchForWorker(client, place, everyMs = 3000) {
    let stopped = false;
    let warned = false;
    let timer;
    const check = async () => {
        try {
            const n = await (0, run_client_1.liveWorkflowPollers)(client, place.namespace, place.taskQueue);
            if (stopped)
                return;
            if (n > 0) {
                if (warned)
                    say(`a worker is polling task queue \`${place.taskQueue}\` now; the run goes on`);
                stopped = true;
                return;
            }
            if (!warned)
                say(noWorkerLine(place));
            warned = true;
        }
        catch {
            /* best effort */
        }
        if (!stopped)
            timer = setTimeout(() => void check(), everyMs);
    };
    void check();
    return () => {
        stopped = true;
        clearTimeout(timer);
    };
}
/** The line printed on Ctrl-C while following run `runId`. */
function detachedLine(runId) {
    return `detached — run ${runId} continues; follow with \`chbench watch ${runId}\`, cancel with \`chbench cancel ${runId}\``;
}
/**
 * On Ctrl-C (SIGINT): stop the progress view (cli-progress shows the cursor again), make sure the
 * cursor is visible on a terminal, say `line`, and exit {@link EXIT_DETACHED}. The run is not touched.
 * @returns a function that removes the handler
 */
function detachOnInterrupt(line, view) {
    const onInt = () => {
        view?.stop();
        if (process.stderr.isTTY)
            process.stderr.write('\x1B[?25h');
        say(line);
        process.exit(exports.EXIT_DETACHED);
    };
    process.once('SIGINT', onInt);
    return () => process.removeListener('SIGINT', onInt);
}
/** A duration for people: `850 ms`, `21 s`, `3 min 4 s`, `2 h 5 min`. */
function formatDuration(ms) {
    if (ms < 1000)
        return `${Math.round(ms)} ms`;
    const s = Math.round(ms / 1000);
    if (s < 60)
        return `${s} s`;
    if (s < 3600)
        return `${Math.floor(s / 60)} min ${s % 60} s`;
    return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
/** Counts from the cell outcomes of a matrix result (`MatrixResult.cells[].status`). */
function countOutcomes(cells) {
    const n = (s) => cells.filter((c) => c.status === s).length;
    return {
        total: cells.length,
        succeeded: n('succeeded'),
        failed: n('failed'),
        skipped: n('skipped'),
        cancelled: n('cancelled'),
    };
}
/** Counts from the matrix's `progress` answer (a closed run's, e.g. after a cancel). */
function countProgress(p) {
    return {
        total: p.total,
        succeeded: p.succeeded.length,
        failed: p.failed.length,
        skipped: p.skipped.length,
        cancelled: p.cancelled.length,
    };
}
/**
 * The run's one-line summary: `2/2 succeeded in 21 s`, `1/2 succeeded, 1 failed in 3 min 4 s`,
 * `0/2 succeeded, 1 cancelled, 1 not run in 12 s` (`in …` left out when the duration is unknown).
 */
function summaryLine(c, durationMs) {
    const notRun = c.total - c.succeeded - c.failed - c.skipped - c.cancelled;
    const parts = [
        `${c.succeeded}/${c.total} succeeded`,
        ...(c.failed ? [`${c.failed} failed`] : []),
        ...(c.skipped ? [`${c.skipped} skipped`] : []),
        ...(c.cancelled ? [`${c.cancelled} cancelled`] : []),
        ...(notRun > 0 ? [`${notRun} not run`] : []),
    ];
    return `${parts.join(', ')}${durationMs !== undefined ? ` in ${formatDuration(durationMs)}` : ''}`;
}
/**
 * Wall time of the run's (last) execution, ms: Temporal's `startTime` to `closeTime` of
 * `DescribeWorkflowExecution`; undefined while it runs or when it cannot be described.
 */
async function runDurationMs(client, runId) {
    try {
        const d = await client.workflow.getHandle(runId).describe();
        return d.closeTime ? d.closeTime.getTime() - d.startTime.getTime() : undefined;
    }
    catch {
        return undefined;
    }
}
/**
 * The matrix's `progress` answer of a run (closed or not), or undefined when it cannot be queried
 * within `timeoutMs` (a closed workflow's query needs a worker to replay it).
 */
async function progressOf(client, runId, timeoutMs = 10_000) {
    let t;
    try {
        return await Promise.race([
            client.workflow.getHandle(runId).query('progress'),
            new Promise((r) => (t = setTimeout(() => r(undefined), timeoutMs))),
        ]);
    }
    catch {
        return undefined;
    }
    finally {
        clearTimeout(t);
    }
}
/**
 * The servers of run directory `dir` that were provisioned and not torn down: each cell of
 * `run.json` (else each folder under `cells/`) with a `provision.json` and no `teardown.json`.
 * Reads the files as plain JSON (fields `target.kind/url/pid/dataDir/kubernetes`), so records of
 * other chbench versions still list; unreadable records are left out.
 */
function keptServers(dir) {
    const cellsDir = node_path_1.default.join(dir, 'cells');
    const run = (0, store_1.readJsonIfExists)(node_path_1.default.join(dir, 'run.json'));
    const keys = run?.cells ?? ((0, node_fs_1.existsSync)(cellsDir) ? (0, node_fs_1.readdirSync)(cellsDir) : []);
    const out = [];
    for (const k of keys) {
        const cd = node_path_1.default.join(cellsDir, k);
        const record = node_path_1.default.join(cd, 'provision.json');
        if (!(0, node_fs_1.existsSync)(record) || (0, node_fs_1.existsSync)(node_path_1.default.join(cd, 'teardown.json')))
            continue;
        try {
            const p = (0, store_1.readJsonIfExists)(record);
            const t = p?.target;
            if (!t?.kind)
                continue;
            const kube = t.kubernetes;
            const podName = kube?.pod;
            out.push({
                cellKey: k,
                kind: t.kind,
                url: t.url ?? '?',
                ...(t.pid !== undefined ? { pid: t.pid } : {}),
                ...(t.dataDir ? { dataDir: t.dataDir } : {}),
                ...(podName ? { pod: `${kube?.namespace ?? '?'}/${podName}${kube?.pvc ? ` (PVC ${kube.pvc})` : ''}` } : {}),
                record,
            });
        }
        catch {
            /* unreadable record: not listed */
        }
    }
    return out;
}
/** Lines listing {@link keptServers} (none when the list is empty). */
function keptServerLines(servers) {
    if (!servers.length)
        return [];
    return [
        `${servers.length} server(s) kept running (not torn down); remove them with \`chbench gc\`${servers.some((s) => s.kind === 'kubernetes') ? ' (pods: `chbench gc --kubernetes`)' : ''} once the run is closed:`,
        ...servers.map((s) => `  ${s.cellKey}: ${s.kind} at ${s.url}${[
            s.pid !== undefined ? `pid ${s.pid}` : '',
            s.dataDir ? `data dir ${s.dataDir}` : '',
            s.pod ? `pod ${s.pod}` : '',
        ]
            .filter(Boolean)
            .map((x, i) => (i ? `, ${x}` : ` (${x}`))
            .join('')}${s.pid !== undefined || s.dataDir || s.pod ? ')' : ''}; recorded in ${s.record}`),
    ];
}
/**
 * Why run directory `dir` has nothing to resume, or undefined when it has: its `run.json` says the
 * run completed (`status`, set by the report step) and every cell's `result.json` says succeeded or
 * skipped (the cells resume would reuse).
 */
function nothingToResume(dir) {
    const run = (0, store_1.readJsonIfExists)(node_path_1.default.join(dir, 'run.json'));
    if (!run?.cells?.length || run.status !== 'completed')
        return undefined;
    const statuses = run.cells.map((k) => (0, store_1.readJsonIfExists)(node_path_1.default.join(dir, 'cells', k, 'result.json'))?.status);
    if (!statuses.every((s) => s === 'succeeded' || s === 'skipped'))
        return undefined;
    const skipped = statuses.filter((s) => s === 'skipped').length;
    return `nothing to resume: run ${run.runId ?? node_path_1.default.basename(dir)} completed and all ${statuses.length} cell(s) finished (${statuses.length - skipped} succeeded${skipped ? `, ${skipped} skipped` : ''}); report: ${node_path_1.default.join(dir, 'report.md')}`;
}
//# sourceMappingURL=follow.js.map