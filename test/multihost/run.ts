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
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startDevServer } from '../../src/temporal/dev-server';
import { REPO_ROOT } from '../../src/config';
import { pollUntil } from '../../src/lib/poll';
import { hostOfIdentity } from '../../src/schema/host';
import { pollingHosts } from '../../src/temporal/host';
import { recordRunHistories } from '../helpers/histories';
import { isAlive, listLabels } from '../../src/targets/process';
import { stopEmbeddedResultsDb } from '../../src/results/db';
import type { MatrixResult } from '../../src/workflows/benchmark-matrix';

const EventType = temporal.api.enums.v1.EventType;
const TimeoutType = temporal.api.enums.v1.TimeoutType;
const CLI = path.join(REPO_ROOT, 'dist', 'src', 'cli.js');
const HOST_LOSS_TIMEOUT_S = 10;

/** One simulated host: its id, directories, address and worker process. */
interface Host {
  id: string;
  dir: string;
  workDir: string;
  address: string;
  worker?: ChildProcess;
}

function env(h: Host, temporalAddress: string, taskQueue: string): NodeJS.ProcessEnv {
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

function startWorker(h: Host, temporalAddress: string, taskQueue: string): void {
  const log = openSync(path.join(h.dir, 'worker.log'), 'a');
  h.worker = spawn(process.execPath, [CLI, 'worker'], {
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
function checkHistory(events: temporal.api.history.v1.IHistoryEvent[]): {
  offHost: string[];
  reprovisions: number;
  lost: boolean;
  hosts: Set<string>;
} {
  const scheduled = new Map<number, string>();
  const offHost: string[] = [];
  const hosts = new Set<string>();
  let host: string | undefined;
  let lostBefore = false;
  let lost = false;
  let reprovisions = 0;
  for (const e of events) {
    const id = Number(e.eventId);
    if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      const type = e.activityTaskScheduledEventAttributes!.activityType!.name!;
      scheduled.set(id, type);
      if (type === 'provision' && lostBefore) {
        reprovisions++;
        lostBefore = false;
      }
    } else if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT) {
      const a = e.activityTaskTimedOutEventAttributes!;
      if (a.failure?.timeoutFailureInfo?.timeoutType === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START)
        lostBefore = lost = true;
    } else if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      const a = e.activityTaskStartedEventAttributes!;
      const type = scheduled.get(Number(a.scheduledEventId))!;
      const on = hostOfIdentity(a.identity ?? '');
      if (type === 'provision') {
        host = on;
        if (on) hosts.add(on);
      } else if (type !== 'writeCellResult' && on !== host)
        offHost.push(`${type} on ${on ?? a.identity} (provisioned on ${host})`);
    }
  }
  return { offHost, reprovisions, lost, hosts };
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-multihost-'));
  const store = path.join(tmp, 'store');
  mkdirSync(store);
  const hosts: Host[] = ['a', 'b'].map((x, i) => {
    const dir = path.join(tmp, `host-${x}`);
    mkdirSync(dir);
    return { id: `host-${x}`, dir, workDir: path.join(dir, 'targets'), address: `127.0.0.${i + 2}` };
  });
  const server = await startDevServer();
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const taskQueue = 'multihost';
  const runId = `multihost-${Date.now()}`;
  const problems: string[] = [];
  const t0 = Date.now();
  try {
    for (const h of hosts) startWorker(h, server.address, taskQueue);
    // Both hosts poll before the run starts (the matrix places cells on the hosts it finds).
    await pollUntil(
      async () => {
        const seen = (await pollingHosts({ client: async () => client, namespace: 'default' }, taskQueue)).map(
          (h) => h.id,
        );
        return hosts.every((h) => seen.includes(h.id));
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'both hosts polling' },
    );
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
    const victim = await pollUntil(
      () => {
        const cells = path.join(store, runId, 'cells');
        if (!existsSync(cells)) return false;
        for (const k of readdirSync(cells)) {
          const f = path.join(cells, k, 'provision.json');
          const done = existsSync(path.join(cells, k, 'result.json'));
          if (!done && existsSync(f) && existsSync(path.join(cells, k, 'schema.json'))) {
            const p = JSON.parse(readFileSync(f, 'utf8')) as { host?: { id: string } };
            if (p.host?.id === b.id) return k;
          }
        }
        return false;
      },
      { timeoutMs: 300_000, intervalMs: 200, what: `a cell on ${b.id} past provisioning` },
    );
    b.worker!.kill('SIGKILL');
    console.log(
      `multihost: SIGKILL ${b.id}'s worker (pid ${b.worker!.pid}) during cell ${victim}, ${((Date.now() - t0) / 1000).toFixed(0)} s in`,
    );

    const result = (await handle.result()) as MatrixResult;
    const succeeded = result.cells.filter((c) => c.status === 'succeeded').length;
    for (const c of result.cells.filter((c) => c.status !== 'succeeded'))
      problems.push(`cell ${c.cellKey} ${c.status}: ${c.error ?? ''}`);

    // The histories say where every step ran.
    let offHost = 0;
    let reprovisions = 0;
    const ranOn = new Set<string>();
    const executions = new Map<string, { start: number; lost: boolean }[]>();
    for await (const w of client.workflow.list({
      query: `ChbenchRunId = '${runId}' AND WorkflowType = 'benchmarkCell'`,
    })) {
      const h = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      const c = checkHistory(h.events ?? []);
      offHost += c.offHost.length;
      reprovisions += c.reprovisions;
      for (const x of c.hosts) ranOn.add(x);
      for (const o of c.offHost) problems.push(`${w.workflowId}: ${o}`);
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
    if (cellCount !== 8) problems.push(`${cellCount} cell workflows, expected 8`);
    if (reprovisions < 1) problems.push('no cell was provisioned again after the worker loss');
    if (!ranOn.has('host-a') || !ranOn.has('host-b'))
      problems.push(`cells ran on ${[...ranOn].join(', ')}, expected both hosts`);

    // The report is in the store, written by whichever worker was left; no host kept results locally.
    const report = path.join(store, runId, 'report.md');
    const text = existsSync(report) ? readFileSync(report, 'utf8') : '';
    const reportOk =
      text !== '' &&
      result.cells.every((c) => text.includes(c.cellKey)) &&
      hosts.every((h) => text.includes(h.id)) &&
      hosts.every((h) => !existsSync(path.join(h.dir, 'results')));
    if (!reportOk)
      problems.push(`report ${report}: missing, or without every cell and host, or a host kept a local results folder`);

    // Host B's servers outlived its worker; `chbench gc` there removes them (their run is closed).
    const before = listLabels(b.workDir, runId).filter((l) => isAlive(l.pid)).length;
    const gc = spawnSync(process.execPath, [CLI, 'gc'], {
      cwd: b.dir,
      env: env(b, server.address, taskQueue),
      encoding: 'utf8',
    });
    const after = listLabels(b.workDir, runId).filter((l) => isAlive(l.pid)).length;
    console.log(
      `multihost: ${b.id} had ${before} server(s) of the run alive after its loss; chbench gc there: exit ${gc.status}, ${after} left`,
    );
    if (gc.status !== 0 || after !== 0)
      problems.push(`chbench gc on ${b.id}: exit ${gc.status}, ${after} server(s) left\n${gc.stderr}`);
    for (const h of hosts.slice(0, 1)) {
      const left = listLabels(h.workDir, runId).filter((l) => isAlive(l.pid));
      if (left.length) problems.push(`${h.id}: ${left.length} server(s) of the run still alive after teardown`);
    }

    // `CHBENCH_RECORD_HISTORIES=1` records this release's histories: the matrix placed on two hosts,
    // and the cell that lost its host and was provisioned again on the other.
    if (process.env.CHBENCH_RECORD_HISTORIES && !problems.length) recordRunHistories(server.address, runId, victim);
    for (const p of problems) console.log(`multihost: PROBLEM ${p}`);
    console.log(`multihost: ${((Date.now() - t0) / 1000).toFixed(0)} s; report ${report}`);
    console.log(
      `multihost: hosts ${hosts.length}, cells ${result.cells.length}, succeeded ${succeeded}, steps off their host ${offHost}, re-provisioned after worker loss ${reprovisions}, report from store ${reportOk ? 'yes' : 'no'}`,
    );
    process.exitCode = problems.length ? 1 : 0;
  } finally {
    for (const h of hosts) h.worker?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 2000));
    for (const h of hosts) {
      for (const l of listLabels(h.workDir)) if (isAlive(l.pid)) process.kill(l.pid, 'SIGKILL');
    }
    await connection.close();
    await server.stop();
    await stopEmbeddedResultsDb(path.join(store, 'db')).catch(() => undefined);
    if (!process.exitCode && !process.env.MULTIHOST_KEEP) rmSync(tmp, { recursive: true, force: true });
    else console.log(`multihost: kept ${tmp} for inspection`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
