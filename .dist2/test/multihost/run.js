"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * `npm run test:multihost`: two simulated hosts, one chbench worker each, one real Temporal dev
 * server, one results store. Each "host" has its own working directory (cwd), work directory for its
 * servers (`CHBENCH_WORK_DIR`), host id (`CHBENCH_HOST_ID`) and loopback address for its embedded
 * servers (`CHBENCH_HOST_ADDRESS`, 127.0.0.2 and 127.0.0.3); the results store is one directory both
 * see (as an NFS mount would be). An 8-cell matrix on the embedded target runs with concurrency 2 per
 * host; once a cell on host B is past provisioning, host B's worker is SIGKILLed and never comes back
 * (its servers stay, as on a host that dropped off the network, until `chbench gc` runs there).
 *
 * Checked from the workflow histories (not from chbench's own records):
 * - steps off their host: every activity of a cell after a provision, except `writeCellResult` (the
 *   results store is shared, so it runs on the shared queue), was started by a worker of the host that
 *   started that provision (`ActivityTaskStarted.identity` = `chbench@<host>/<pid>`);
 * - re-provisioned after worker loss: provisions scheduled after an activity of the cell timed out
 *   with SCHEDULE_TO_START (no worker of its host took it);
 * - report from store: `report.md` is in the store and names all 8 cells and both hosts, and neither
 *   host's own working directory holds a results folder.
 * Then `chbench gc` on host B removes its servers. Ends with
 *   multihost: hosts 2, cells 8, succeeded 8, steps off their host 0, re-provisioned after worker loss N, report from store yes
 * and exit code 1 when anything is off (N must be ≥ 1). `MULTIHOST_KEEP=1` keeps the temp directory
 * (store, hosts' directories and logs) even when everything passed; `MULTIHOST_SCALE` sets the rows per cell.
 */
const node_child_process_1 = require("node:child_process");
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("@temporalio/client");
const proto_1 = require("@temporalio/proto");
const dev_server_1 = require("../../src/temporal/dev-server");
const config_1 = require("../../src/config");
const poll_1 = require("../../src/lib/poll");
const host_1 = require("../../src/schema/host");
const host_2 = require("../../src/temporal/host");
const histories_1 = require("../helpers/histories");
const process_1 = require("../../src/targets/process");
const db_1 = require("../../src/results/db");
const EventType = proto_1.temporal.api.enums.v1.EventType;
const TimeoutType = proto_1.temporal.api.enums.v1.TimeoutType;
const CLI = node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'src', 'cli.js');
const HOST_LOSS_TIMEOUT_S = 10;
function env(h, temporalAddress, taskQueue) {
    return {
        ...process.env,
        TEMPORAL_ADDRESS: temporalAddress,
        CHBENCH_TASK_QUEUE: taskQueue,
        CHBENCH_HOST_ID: h.id,
        CHBENCH_HOST_ADDRESS: h.address,
        CHBENCH_WORK_DIR: h.workDir,
        CHBENCH_LOG_LEVEL: 'ERROR',
    };
}
function startWorker(h, temporalAddress, taskQueue) {
    const log = (0, node_fs_1.openSync)(node_path_1.default.join(h.dir, 'worker.log'), 'a');
    h.worker = (0, node_child_process_1.spawn)(process.execPath, [CLI, 'worker'], {
        cwd: h.dir,
        env: env(h, temporalAddress, taskQueue),
        stdio: ['ignore', log, log],
    });
}
/**
 * Per execution of a cell workflow, from its history: activities started off their host, provisions
 * after a host loss within the execution (a cell not placed by the matrix starts over by itself), and
 * whether the execution saw a host loss (a placed cell then ends, and the matrix runs it again).
 */
function checkHistory(events) {
    const scheduled = new Map();
    const offHost = [];
    const hosts = new Set();
    let host;
    let lostBefore = false;
    let lost = false;
    let reprovisions = 0;
    for (const e of events) {
        const id = Number(e.eventId);
        if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
            const type = e.activityTaskScheduledEventAttributes.activityType.name;
            scheduled.set(id, type);
            if (type === 'provision' && lostBefore) {
                reprovisions++;
                lostBefore = false;
            }
        }
        else if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT) {
            const a = e.activityTaskTimedOutEventAttributes;
            if (a.failure?.timeoutFailureInfo?.timeoutType === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START)
                lostBefore = lost = true;
        }
        else if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
            const a = e.activityTaskStartedEventAttributes;
            const type = scheduled.get(Number(a.scheduledEventId));
            const on = (0, host_1.hostOfIdentity)(a.identity ?? '');
            if (type === 'provision') {
                host = on;
                if (on)
                    hosts.add(on);
            }
            else if (type !== 'writeCellResult' && on !== host)
                offHost.push(`${type} on ${on ?? a.identity} (provisioned on ${host})`);
        }
    }
    return { offHost, reprovisions, lost, hosts };
}
async function main() {
    const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-multihost-'));
    const store = node_path_1.default.join(tmp, 'store');
    (0, node_fs_1.mkdirSync)(store);
    const hosts = ['a', 'b'].map((x, i) => {
        const dir = node_path_1.default.join(tmp, `host-${x}`);
        (0, node_fs_1.mkdirSync)(dir);
        return { id: `host-${x}`, dir, workDir: node_path_1.default.join(dir, 'targets'), address: `127.0.0.${i + 2}` };
    });
    const server = await (0, dev_server_1.startDevServer)();
    const connection = await client_1.Connection.connect({ address: server.address });
    const client = new client_1.Client({ connection });
    const taskQueue = 'multihost';
    const runId = `multihost-${Date.now()}`;
    const problems = [];
    const t0 = Date.now();
    try {
        for (const h of hosts)
            startWorker(h, server.address, taskQueue);
        // Both hosts poll before the run starts (the matrix places cells on the hosts it finds).
        await (0, poll_1.pollUntil)(async () => {
            const seen = (await (0, host_2.pollingHosts)({ temporalAddress: server.address, namespace: 'default' }, taskQueue)).map((h) => h.id);
            return hosts.every((h) => seen.includes(h.id));
        }, { timeoutMs: 60_000, intervalMs: 500, what: 'both hosts polling' });
        const spec = {
            name: 'multihost',
            workload: 'logs',
            scale: Number(process.env.MULTIHOST_SCALE ?? 300_000),
            target: { kind: 'embedded' },
            matrix: { version: ['26.7'], codec: ['LZ4', 'ZSTD(1)', 'ZSTD(3)', 'NONE'], repeat: 2 },
            concurrency: 2,
            hostLossTimeoutS: HOST_LOSS_TIMEOUT_S,
            protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 2, dropOsPageCache: false },
            resultsDir: store,
        };
        const handle = await client.workflow.start('benchmarkMatrix', { taskQueue, workflowId: runId, args: [spec] });
        console.log(`multihost: run ${runId} started; hosts ${hosts.map((h) => `${h.id} (${h.address})`).join(', ')}`);
        // Lose host B once one of its cells is past provisioning (its server is up, its steps under way).
        const b = hosts[1];
        const victim = await (0, poll_1.pollUntil)(() => {
            const cells = node_path_1.default.join(store, runId, 'cells');
            if (!(0, node_fs_1.existsSync)(cells))
                return false;
            for (const k of (0, node_fs_1.readdirSync)(cells)) {
                const f = node_path_1.default.join(cells, k, 'provision.json');
                const done = (0, node_fs_1.existsSync)(node_path_1.default.join(cells, k, 'result.json'));
                if (!done && (0, node_fs_1.existsSync)(f) && (0, node_fs_1.existsSync)(node_path_1.default.join(cells, k, 'schema.json'))) {
                    const p = JSON.parse((0, node_fs_1.readFileSync)(f, 'utf8'));
                    if (p.host?.id === b.id)
                        return k;
                }
            }
            return false;
        }, { timeoutMs: 300_000, intervalMs: 200, what: `a cell on ${b.id} past provisioning` });
        b.worker.kill('SIGKILL');
        console.log(`multihost: SIGKILL ${b.id}'s worker (pid ${b.worker.pid}) during cell ${victim}, ${((Date.now() - t0) / 1000).toFixed(0)} s in`);
        const result = (await handle.result());
        const succeeded = result.cells.filter((c) => c.status === 'succeeded').length;
        for (const c of result.cells.filter((c) => c.status !== 'succeeded'))
            problems.push(`cell ${c.cellKey} ${c.status}: ${c.error ?? ''}`);
        // The histories say where every step ran.
        let offHost = 0;
        let reprovisions = 0;
        const ranOn = new Set();
        const executions = new Map();
        for await (const w of client.workflow.list({
            query: `ChbenchRunId = '${runId}' AND WorkflowType = 'benchmarkCell'`,
        })) {
            const h = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
            const c = checkHistory(h.events ?? []);
            offHost += c.offHost.length;
            reprovisions += c.reprovisions;
            for (const x of c.hosts)
                ranOn.add(x);
            for (const o of c.offHost)
                problems.push(`${w.workflowId}: ${o}`);
            executions.set(w.workflowId, [
                ...(executions.get(w.workflowId) ?? []),
                { start: w.startTime.getTime(), lost: c.lost },
            ]);
        }
        // A placed cell whose host was lost ends; the matrix starts it again (a new execution, same id).
        for (const runs of executions.values()) {
            runs.sort((x, y) => x.start - y.start);
            reprovisions += runs.slice(0, -1).filter((r) => r.lost).length;
        }
        const cellCount = executions.size;
        if (cellCount !== 8)
            problems.push(`${cellCount} cell workflows, expected 8`);
        if (reprovisions < 1)
            problems.push('no cell was provisioned again after the worker loss');
        if (!ranOn.has('host-a') || !ranOn.has('host-b'))
            problems.push(`cells ran on ${[...ranOn].join(', ')}, expected both hosts`);
        // The report is in the store, written by whichever worker was left; no host kept results locally.
        const report = node_path_1.default.join(store, runId, 'report.md');
        const text = (0, node_fs_1.existsSync)(report) ? (0, node_fs_1.readFileSync)(report, 'utf8') : '';
        const reportOk = text !== '' &&
            result.cells.every((c) => text.includes(c.cellKey)) &&
            hosts.every((h) => text.includes(h.id)) &&
            hosts.every((h) => !(0, node_fs_1.existsSync)(node_path_1.default.join(h.dir, 'results')));
        if (!reportOk)
            problems.push(`report ${report}: missing, or without every cell and host, or a host kept a local results folder`);
        // Host B's servers outlived its worker; `chbench gc` there removes them (their run is closed).
        const before = (0, process_1.listLabels)(b.workDir, runId).filter((l) => (0, process_1.isAlive)(l.pid)).length;
        const gc = (0, node_child_process_1.spawnSync)(process.execPath, [CLI, 'gc'], {
            cwd: b.dir,
            env: env(b, server.address, taskQueue),
            encoding: 'utf8',
        });
        const after = (0, process_1.listLabels)(b.workDir, runId).filter((l) => (0, process_1.isAlive)(l.pid)).length;
        console.log(`multihost: ${b.id} had ${before} server(s) of the run alive after its loss; chbench gc there: exit ${gc.status}, ${after} left`);
        if (gc.status !== 0 || after !== 0)
            problems.push(`chbench gc on ${b.id}: exit ${gc.status}, ${after} server(s) left\n${gc.stderr}`);
        for (const h of hosts.slice(0, 1)) {
            const left = (0, process_1.listLabels)(h.workDir, runId).filter((l) => (0, process_1.isAlive)(l.pid));
            if (left.length)
                problems.push(`${h.id}: ${left.length} server(s) of the run still alive after teardown`);
        }
        // `CHBENCH_RECORD_HISTORIES=1` records this release's histories: the matrix placed on two hosts,
        // and the cell that lost its host and was provisioned again on the other.
        if (process.env.CHBENCH_RECORD_HISTORIES && !problems.length)
            (0, histories_1.recordRunHistories)(server.address, runId, victim);
        for (const p of problems)
            console.log(`multihost: PROBLEM ${p}`);
        console.log(`multihost: ${((Date.now() - t0) / 1000).toFixed(0)} s; report ${report}`);
        console.log(`multihost: hosts ${hosts.length}, cells ${result.cells.length}, succeeded ${succeeded}, steps off their host ${offHost}, re-provisioned after worker loss ${reprovisions}, report from store ${reportOk ? 'yes' : 'no'}`);
        process.exitCode = problems.length ? 1 : 0;
    }
    finally {
        for (const h of hosts)
            h.worker?.kill('SIGTERM');
        await new Promise((r) => setTimeout(r, 2000));
        for (const h of hosts) {
            for (const l of (0, process_1.listLabels)(h.workDir))
                if ((0, process_1.isAlive)(l.pid))
                    process.kill(l.pid, 'SIGKILL');
        }
        await connection.close();
        await server.stop();
        await (0, db_1.stopEmbeddedResultsDb)(node_path_1.default.join(store, 'db')).catch(() => undefined);
        if (!process.exitCode && !process.env.MULTIHOST_KEEP)
            (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
        else
            console.log(`multihost: kept ${tmp} for inspection`);
    }
}
main().catch((e) => {
    console.error(e);
    process.exit(1);
});
//# sourceMappingURL=run.js.map