/**
 * Faults of the docker target through the real workflow (`benchmarkMatrix` on a dev server,
 * `test/helpers/temporal-env.ts`) on a private dockerd (`test/helpers/docker.ts`) with the local
 * ClickHouse 18.16 image. Three runs:
 *
 * - Unknown image: a matrix of `18.16` (the local image) and `18.16.1` (an image on a registry nobody
 *   serves, `127.0.0.1:1/…`, refused on loopback). 18.16 succeeds; 18.16.1 fails `ImagePull` at its
 *   first provision attempt (non-retryable: no activity attempt 2 in any history).
 * - Worker SIGKILL: `chbench worker` as a child process alone on its task queue, SIGKILLed twice and
 *   replaced each time: when the engine starts the cell's container (the provision waiting for the
 *   server) and while the load's INSERT (attempt 1) runs on the server (30 M rows of `trivial`). The
 *   cell succeeds; the provision's retry adopted the running container (`provisionedBy` says
 *   `adopted`, the engine saw one `create` event for the run); the load is from attempt ≥ 2 with
 *   exactly the scale in the table and in the archived statement log one successful INSERT more
 *   than successful TRUNCATEs.
 * - OOM kill: `target.resources.memory: 256Mi` (the spec's floor) and a workload written here whose
 *   q2 is a 20 M-key GROUP BY; matrix profiles `spill` (`max_bytes_before_external_group_by`) and
 *   `memory` (none). `spill` measures q1 and q2; in `memory` the kernel kills the server during q2:
 *   the query step fails `TargetUnavailable` (server gone, not retried), the cell provisions again and
 *   fails at once `TargetUnavailable` naming the OOM kill and the limit (not retried); its load and
 *   storage records are kept; no activity of it ran a second attempt.
 *
 * After each run: no container and no volume labelled `chbench.managed-by=chbench` on the engine, no
 * cgroup of the run's containers (`/sys/fs/cgroup/<controller>/docker/<id>`, cgroupfs driver) and
 * none of the run under `/sys/fs/cgroup/<controller>/chbench/`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { dockerSkipReason, startDockerTestEngine, type DockerTestEngine } from '../helpers/docker';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { startCli, type CliProcess } from '../helpers/cli-process';
import { runAndFollow } from '../../src/temporal/run-client';
import { FAILURE } from '../../src/schema/failures';
import { readRecord } from '../../src/results/store';
import { CellResult } from '../../src/schema/results';
import { pollUntil } from '../../src/lib/poll';
import type { MatrixProgress } from '../../src/workflows/benchmark-matrix';
import type { CellProgress } from '../../src/workflows/benchmark-cell';

const skip = dockerSkipReason();
const LABEL = JSON.stringify({ label: ['chbench.managed-by=chbench'] });
const UNSERVED_IMAGE = '127.0.0.1:1/chbench/no-such-image:0';

let docker: DockerTestEngine | undefined;
let env: TemporalEnv | undefined;
before(async () => {
  if (skip) return;
  docker = await startDockerTestEngine();
  env = await startTemporalEnv('docker-faults');
});
after(async () => {
  await env?.stop();
  await docker?.stop();
});

/** Every activity start of the run's workflows (matrix and cells): its type and attempt, from the histories. */
async function activityStarts(e: TemporalEnv, runId: string): Promise<{ wf: string; type: string; attempt: number }[]> {
  const starts: { wf: string; type: string; attempt: number }[] = [];
  for await (const w of e.client.workflow.list({ query: `ChbenchRunId = '${runId}'` })) {
    const h = await e.client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
    const scheduled = new Map<string, string>();
    for (const ev of h.events ?? []) {
      const s = ev.activityTaskScheduledEventAttributes;
      if (s) scheduled.set(String(ev.eventId), s.activityType?.name ?? '?');
      const st = ev.activityTaskStartedEventAttributes;
      if (st)
        starts.push({
          wf: w.workflowId,
          type: scheduled.get(String(st.scheduledEventId)) ?? '?',
          attempt: st.attempt ?? 1,
        });
    }
  }
  return starts;
}

/** Ids of the containers the engine created for `runId` since `sinceMs` (its `create` events, label `chbench.run`). */
async function containersCreated(runId: string, sinceMs: number): Promise<string[]> {
  const stream = await docker!.engine.docker.getEvents({
    since: Math.floor(sinceMs / 1000) - 1,
    until: Math.ceil(Date.now() / 1000) + 1,
    filters: JSON.stringify({ type: ['container'], event: ['create'], label: [`chbench.run=${runId}`] }),
  });
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { id: string }).id);
}

/**
 * Nothing of the run on the engine or in the cgroup tree: no container or volume labelled
 * `chbench.managed-by=chbench`, no `…/chbench/<runId>` cgroup (other runs on this host may hold
 * `…/chbench/<their run>`), no `…/docker/<id>` cgroup of the containers `ids`.
 */
async function assertNothingLeft(runId: string, ids: Iterable<string>): Promise<void> {
  const engine = docker!.engine;
  assert.deepEqual(await engine.docker.listContainers({ all: true, filters: LABEL }), []);
  assert.deepEqual((await engine.docker.listVolumes({ filters: LABEL })).Volumes ?? [], []);
  assert.deepEqual(cgroupsNamed(`chbench/${runId}`), []);
  for (const id of ids) assert.deepEqual(cgroupsNamed(`docker/${id}`), [], `cgroups of container ${id.slice(0, 12)}`);
}

/** The step of each running cell of `runId` (the matrix's and the cells' `progress` queries). */
async function cellSteps(e: TemporalEnv, runId: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const p = await e.client.workflow
    .getHandle(runId)
    .query<MatrixProgress>('progress')
    .catch(() => undefined);
  for (const k of p?.running ?? []) {
    const c = await e.client.workflow
      .getHandle(`${runId}/${k}`)
      .query<CellProgress>('progress')
      .catch(() => undefined);
    if (c) out[k] = c.step;
  }
  return out;
}

/** Cgroup directories under `/sys/fs/cgroup/<controller>/` named `name` (`chbench`, or `docker/<id>`). */
function cgroupsNamed(name: string): string[] {
  const root = '/sys/fs/cgroup';
  return readdirSync(root)
    .map((c) => path.join(root, c, name))
    .filter((p) => existsSync(p));
}

test(
  'docker target: an unserved image fails ImagePull without retries, the other cell succeeds, nothing is left',
  { skip, timeout: 240_000 },
  async () => {
    const e = env!;
    const engine = docker!.engine;
    const runId = `docker-faults-${Date.now()}`;
    const spec = {
      name: 'docker-faults',
      workload: 'trivial',
      scale: 1000,
      target: {
        kind: 'docker',
        images: { '18.16': docker!.image.tag, '18.16.1': UNSERVED_IMAGE },
        resources: { cpus: 1, memory: '2Gi' },
        timeouts: { pullMs: 30_000 },
      },
      matrix: { version: ['18.16', '18.16.1'], codec: ['LZ4'] },
      skipIndex: false,
      concurrency: 1,
      resultsDir: e.resultsDir,
    };
    // Containers seen while the run goes on (their ids name their cgroups).
    const seen = new Set<string>();
    const watch = setInterval(() => {
      engine.docker
        .listContainers({ all: true, filters: LABEL })
        .then((cs) => cs.forEach((c) => seen.add(c.Id)))
        .catch(() => undefined);
    }, 200);
    let r;
    try {
      r = await runAndFollow(e.client, spec, runId, e.taskQueue);
    } finally {
      clearInterval(watch);
    }
    const by = new Map(r.cells.map((c) => [c.cellKey, c]));
    // The two versions and the A/A control cell (the older version's setup measured again, v18.16-lz4-r2).
    assert.equal(r.cells.length, 3, JSON.stringify(r.cells));
    assert.equal(by.get('v18.16-lz4-r2')?.status, 'succeeded');
    const good = r.cells.find((c) => c.cellKey === 'v18.16-lz4')!;
    const bad = r.cells.find((c) => c.cellKey === 'v18.16.1-lz4')!;
    assert.ok(good && bad, `cell keys: ${[...by.keys()].join(', ')}`);
    assert.equal(good.status, 'succeeded', good.error);
    assert.equal(bad.status, 'failed');
    const badResult = readFileSync(bad.resultFile, 'utf8');
    assert.match(`${bad.error}\n${badResult}`, new RegExp(FAILURE.ImagePull));
    assert.match(`${bad.error}\n${badResult}`, /no-such-image/);
    // Non-retryable: the failed cell's provision activity started once.
    const starts = await activityStarts(e, runId);
    const provisions = starts.filter((s) => /provision/i.test(s.type));
    assert.ok(provisions.length >= 2, `provision activities started: ${JSON.stringify(starts)}`);
    assert.deepEqual(
      provisions.filter((s) => s.attempt > 1),
      [],
      'no provision activity ran a second attempt',
    );
    // Nothing left on the engine or in the cgroup tree.
    assert.ok(seen.size >= 1, 'the succeeded cell had a container');
    await assertNothingLeft(runId, seen);
  },
);

/**
 * Few runs per query and no page-cache drop: these tests are about faults, not timings. No cold run:
 * 18.16's direct-I/O read (`min_bytes_to_use_direct_io = 1`) of the 30 M-row table failed once here
 * with `Code 49: Can't adjust last granule…`, a bug of that server, not a fault under test.
 */
const LEAN_PROTOCOL = {
  coldRuns: 0,
  warmRuns: 1,
  warmupRuns: 0,
  dropOsPageCache: false,
  quiesce: { stableForMs: 500 },
};
/** Rows of the worker-kill test's load: an INSERT of a few seconds on 18.16 under `cpus: 1`. */
const KILL_SCALE = 30_000_000;

/** The HTTP port of the run's (only) container, from its `chbench.ports` label; undefined before it exists. */
async function httpPortOf(runId: string): Promise<number | undefined> {
  const [c] = await docker!.engine.docker.listContainers({
    all: true,
    filters: JSON.stringify({ label: [`chbench.run=${runId}`] }),
  });
  const ports = c?.Labels?.['chbench.ports'];
  return ports ? (JSON.parse(ports) as { http?: number }).http : undefined;
}

/** Query ids of the INSERTs running on the server at `port` (empty when none, or it does not answer). */
async function runningInserts(port: number): Promise<string[]> {
  const q = "SELECT query_id FROM system.processes WHERE query LIKE 'INSERT%' FORMAT TSV";
  const r = await fetch(`http://127.0.0.1:${port}/?query=${encodeURIComponent(q)}`).catch(() => undefined);
  if (!r?.ok) return [];
  return (await r.text()).split('\n').filter(Boolean);
}

test(
  'docker target: a worker SIGKILLed during the provision and during the load; new workers adopt the container and load once',
  { skip, timeout: 300_000 },
  async () => {
    const e = env!;
    const runId = `docker-kill-${Date.now()}`;
    const taskQueue = `${e.taskQueue}-child`;
    const cellKey = 'v18.16-lz4';
    const spec = {
      name: 'docker-worker-kill',
      workload: 'trivial',
      scale: KILL_SCALE,
      target: { kind: 'docker', images: { '18.16': docker!.image.tag }, resources: { cpus: 1, memory: '2Gi' } },
      matrix: { version: ['18.16'], codec: ['LZ4'] },
      skipIndex: false,
      protocol: LEAN_PROTOCOL,
      resultsDir: e.resultsDir,
    };
    // The worker is `chbench worker` in a child process (so it can be SIGKILLed), alone on its task queue.
    const workerEnv = {
      TEMPORAL_ADDRESS: e.server.address,
      CHBENCH_TASK_QUEUE: taskQueue,
      CHBENCH_WORK_DIR: e.workDir,
    };
    const t0 = Date.now();
    const workers: CliProcess[] = [startCli(['worker'], workerEnv)];
    const current = () => workers[workers.length - 1]!;
    const killAndReplace = async () => {
      const w = current();
      w.child.kill('SIGKILL');
      assert.equal(await w.exited, 'SIGKILL');
      workers.push(startCli(['worker'], workerEnv));
    };
    // Kill 1: the moment the engine starts the cell's container (its provision waiting for the server).
    const events = (await docker!.engine.docker.getEvents({
      filters: JSON.stringify({ type: ['container'], event: ['start'], label: [`chbench.run=${runId}`] }),
    })) as NodeJS.ReadableStream & { destroy(): void };
    const started = new Promise<void>((resolve) => events.once('data', () => resolve()));
    try {
      const running = runAndFollow(e.client, spec, runId, taskQueue, { progress: false });
      running.catch(() => undefined);
      await started;
      await killAndReplace();
      events.destroy();
      // Kill 2: the cell at its load step and the load's INSERT running on the container's server.
      const killedDuring = await pollUntil(
        async () => {
          if (current().child.exitCode !== null) throw new Error(`the worker exited: ${current().err()}`);
          if ((await cellSteps(e, runId))[cellKey] !== 'load') return undefined;
          const port = await httpPortOf(runId);
          const ids = port ? await runningInserts(port) : [];
          return ids.length ? ids : undefined;
        },
        { what: `the load INSERT of ${runId} running`, timeoutMs: 180_000, intervalMs: 100 },
      );
      await killAndReplace();
      const r = await running;
      assert.equal(r.cells.length, 1, JSON.stringify(r.cells));
      const cell = r.cells[0]!;
      assert.equal(cell.cellKey, cellKey);
      assert.equal(cell.status, 'succeeded', cell.error);
      const res = readRecord(cell.resultFile, CellResult);
      // The kill hit the load: its INSERT was running as attempt 1 and the figure comes from a later attempt.
      assert.ok(
        killedDuring.some((id) => /load-a1$/.test(id)),
        `INSERT running at the kill: ${killedDuring.join(', ')}`,
      );
      assert.ok(res.load, 'the cell has its load record');
      assert.ok((res.attempts.load ?? 0) >= 2, `load attempts: ${JSON.stringify(res.attempts)}`);
      assert.match(res.load.query_id, /-a([2-9]|\d\d+)$/);
      // No double load: the table holds the scale exactly, and the archived statement log has at most
      // one successful INSERT of the load beyond its successful TRUNCATEs.
      assert.equal(res.load.rows_in_table, KILL_SCALE);
      assert.equal(res.load.rows, KILL_SCALE);
      assert.equal(res.load.verification.rows_equal_scale, true);
      const log = readFileSync(path.join(path.dirname(cell.resultFile), 'server-log.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { query_id: string; ok: boolean });
      const okLoad = (re: RegExp) => log.filter((l) => l.ok && re.test(l.query_id)).length;
      const inserts = okLoad(/-load-a\d+$/);
      const truncates = okLoad(/-load-truncate-a\d+$/);
      assert.ok(inserts >= 1 && inserts - truncates === 1, `load INSERTs ${inserts}, TRUNCATEs ${truncates}`);
      // Kill 1 hit the provision: its retry adopted the running container instead of making another
      // (one create event for the run on the engine).
      assert.ok((res.attempts.provision ?? 0) >= 2, `provision attempts: ${JSON.stringify(res.attempts)}`);
      assert.match(res.provision?.target.provisionedBy ?? '', /^docker container chbench-v18-16-lz4-\w+ .*, adopted/);
      const created = await containersCreated(runId, t0);
      assert.equal(created.length, 1, `containers created: ${created.join(', ')}`);
      assert.ok(res.provision?.target.provisionedBy.includes(`(${created[0]!.slice(0, 12)})`));
      assert.deepEqual(res.target_restarts, []);
      await assertNothingLeft(runId, created);
    } finally {
      events.destroy();
      for (const w of workers)
        if (w.child.exitCode === null && w.child.signalCode === null) {
          w.child.kill('SIGTERM');
          await w.exited;
        }
    }
  },
);

/**
 * A workload whose q2 is a GROUP BY with 20 M keys over `numbers()` (~1 GiB of hash table in memory,
 * far past a 256Mi container), written under `root/workloads/oom-groupby/` for `CHBENCH_SQL_ROOT`.
 */
function writeOomWorkload(root: string): void {
  const dir = path.join(root, 'workloads', 'oom-groupby');
  mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {
    'manifest.yaml': [
      'name: oom-groupby',
      'title: A 20 M-key GROUP BY (docker-faults OOM test)',
      'table: t',
      'requires:',
      '  tableFunctions: [numbers]',
      'schema: schema.sql',
      'load: load.sql',
      'queries:',
      '  - { id: q1, file: q1.sql, usesIndex: false, title: "count" }',
      '  - { id: q2, file: q2.sql, usesIndex: false, title: "20 M-key GROUP BY" }',
      '',
    ].join('\n'),
    'schema.sql':
      'CREATE TABLE IF NOT EXISTS {{table}} (n UInt64{{codec}}) ENGINE = MergeTree ORDER BY n{{settings}}\n',
    'load.sql': 'INSERT INTO {{table}} SELECT number FROM numbers({{rows}})\n',
    'q1.sql': 'SELECT count() FROM {{table}}\n',
    'q2.sql': 'SELECT count() FROM (SELECT number AS k, count() AS c FROM numbers(20000000) GROUP BY k)\n',
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(dir, f), text);
}

test(
  'docker target: a container OOM-killed by a query fails its cell TargetUnavailable without retries; the spilling cell is measured',
  { skip, timeout: 300_000 },
  async () => {
    const e = env!;
    const runId = `docker-oom-${Date.now()}`;
    const sqlRoot = path.join(e.tmp, 'sql');
    writeOomWorkload(sqlRoot);
    const before = process.env.CHBENCH_SQL_ROOT;
    // The client and the in-process worker read the workload from here (at each use).
    process.env.CHBENCH_SQL_ROOT = sqlRoot;
    const scale = 100_000;
    const spec = {
      name: 'docker-oom',
      workload: 'oom-groupby',
      scale,
      // The spec's floor: 256Mi is accepted; 18.16 starts in it, but q2's hash table does not fit.
      target: { kind: 'docker', images: { '18.16': docker!.image.tag }, resources: { memory: '256Mi' } },
      matrix: {
        version: ['18.16'],
        codec: ['LZ4'],
        // `spill`: the GROUP BY goes to disk past 20 MB and fits; `memory`: it grows until the kernel kills the server.
        settings: [
          { name: 'spill', query: { max_bytes_before_external_group_by: 20_000_000 } },
          { name: 'memory', query: {} },
        ],
      },
      skipIndex: false,
      protocol: LEAN_PROTOCOL,
      resultsDir: e.resultsDir,
    };
    const t0 = Date.now();
    let r;
    try {
      r = await runAndFollow(e.client, spec, runId, e.taskQueue, { progress: false });
    } finally {
      if (before === undefined) delete process.env.CHBENCH_SQL_ROOT;
      else process.env.CHBENCH_SQL_ROOT = before;
    }
    const good = r.cells.find((c) => c.cellKey.endsWith('-spill'));
    const bad = r.cells.find((c) => c.cellKey.endsWith('-memory'));
    // The two profiles and the A/A control cell (the first profile measured again: …-spill-r2).
    assert.ok(good && bad && r.cells.length === 3, JSON.stringify(r.cells));
    assert.equal(good.status, 'succeeded', good.error);
    assert.equal(bad.status, 'failed');
    // The spilling cell measured both queries, the GROUP BY with the profile's setting.
    const goodRes = readRecord(good.resultFile, CellResult);
    const q = goodRes.queries_baseline;
    assert.ok(q, 'the spilling cell has its baseline queries');
    assert.equal(String(q.run_settings.max_bytes_before_external_group_by), '20000000');
    assert.deepEqual(
      q.queries.map((x) => [x.id, x.error?.message ?? null, x.samples.length > 0]),
      [
        ['q1', null, true],
        ['q2', null, true],
      ],
    );
    // The in-memory cell: killed by the kernel in its queries. The query step's failure (the server
    // gone) is not retried; the cell provisions again, finds the container OOM-killed and fails at once.
    const badRes = readRecord(bad.resultFile, CellResult);
    const oom =
      /container chbench-v18-16-lz4-memory-\w+ was OOM-killed \(State\.OOMKilled, exit 137, memory limit 268435456 bytes\)/;
    assert.match(bad.error ?? '', oom);
    assert.equal(badRes.stopped_in, 'queries-baseline');
    assert.deepEqual(
      badRes.target_restarts.map((t) => t.step),
      ['queries-baseline'],
    );
    const log = badRes.attempt_log ?? {};
    assert.deepEqual(
      (log['queries-baseline'] ?? []).map((a) => [a.attempt, a.outcome, a.failure_type, a.retryable]),
      [[1, 'failed', FAILURE.TargetUnavailable, false]],
    );
    const provisions = log.provision ?? [];
    assert.deepEqual(
      provisions.map((a) => [a.attempt, a.outcome, a.failure_type ?? null]),
      [
        [1, 'succeeded', null],
        [1, 'failed', FAILURE.TargetUnavailable],
      ],
    );
    assert.match(provisions[1]!.error ?? '', oom);
    assert.equal(provisions[1]!.retryable, false);
    // What it measured before the kill is kept: the load (all rows) and the storage figures.
    assert.equal(badRes.load?.rows_in_table, scale);
    assert.ok(badRes.storage, 'the OOM-killed cell keeps its storage record');
    // In Temporal's history: no activity of the OOM-killed cell ran a second attempt; one runQueries, two provisions.
    const starts = (await activityStarts(e, runId)).filter((s) => s.wf === `${runId}/${bad.cellKey}`);
    assert.deepEqual(
      starts.filter((s) => s.attempt > 1),
      [],
      JSON.stringify(starts),
    );
    assert.equal(starts.filter((s) => s.type === 'runQueries').length, 1, JSON.stringify(starts));
    assert.equal(starts.filter((s) => s.type === 'provision').length, 2, JSON.stringify(starts));
    // One container per cell (the control's too), and nothing of any left.
    const created = await containersCreated(runId, t0);
    assert.equal(created.length, 3, `containers created: ${created.join(', ')}`);
    await assertNothingLeft(runId, created);
  },
);
