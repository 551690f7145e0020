/**
 * Faults of the docker target through the real workflow (`benchmarkMatrix` on a dev server and a
 * worker, `test/helpers/temporal-env.ts`) on a private dockerd (`test/helpers/docker.ts`): one matrix
 * of two cells, `18.16` (the local 18.16 image) and `18.16.1` (an image on a registry nobody serves,
 * `127.0.0.1:1/…`, so the pull is refused on loopback). The first cell succeeds; the second fails
 * `ImagePull` on the first provision attempt (non-retryable: no activity attempt 2 in the cell's
 * history). After the run: no container and no volume labelled `chbench.managed-by=chbench` on the
 * engine, and no cgroup of the cell's container left (`/sys/fs/cgroup/<controller>/docker/<id>`,
 * cgroupfs driver) nor a `/sys/fs/cgroup/<controller>/chbench`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { dockerSkipReason, startDockerTestEngine, type DockerTestEngine } from '../helpers/docker';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { runAndFollow } from '../../src/temporal/run-client';
import { FAILURE } from '../../src/schema/failures';

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
    assert.equal(r.cells.length, 2, JSON.stringify(r.cells));
    const good = r.cells.find((c) => c.cellKey === 'v18.16-lz4')!;
    const bad = r.cells.find((c) => c.cellKey === 'v18.16.1-lz4')!;
    assert.ok(good && bad, `cell keys: ${[...by.keys()].join(', ')}`);
    assert.equal(good.status, 'succeeded', good.error);
    assert.equal(bad.status, 'failed');
    const badResult = readFileSync(bad.resultFile, 'utf8');
    assert.match(`${bad.error}\n${badResult}`, new RegExp(FAILURE.ImagePull));
    assert.match(`${bad.error}\n${badResult}`, /no-such-image/);
    // Non-retryable: the failed cell's provision activity started once.
    const starts: { type: string; attempt: number }[] = [];
    for await (const w of e.client.workflow.list({ query: `ChbenchRunId = '${runId}'` })) {
      const h = await e.client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      const scheduled = new Map<string, string>();
      for (const ev of h.events ?? []) {
        const s = ev.activityTaskScheduledEventAttributes;
        if (s) scheduled.set(String(ev.eventId), s.activityType?.name ?? '?');
        const st = ev.activityTaskStartedEventAttributes;
        if (st) starts.push({ type: scheduled.get(String(st.scheduledEventId)) ?? '?', attempt: st.attempt ?? 1 });
      }
    }
    const provisions = starts.filter((s) => /provision/i.test(s.type));
    assert.ok(provisions.length >= 2, `provision activities started: ${JSON.stringify(starts)}`);
    assert.deepEqual(
      provisions.filter((s) => s.attempt > 1),
      [],
      'no provision activity ran a second attempt',
    );
    // Nothing left on the engine or in the cgroup tree.
    assert.deepEqual(await engine.docker.listContainers({ all: true, filters: LABEL }), []);
    assert.deepEqual((await engine.docker.listVolumes({ filters: LABEL })).Volumes ?? [], []);
    assert.ok(seen.size >= 1, 'the succeeded cell had a container');
    assert.deepEqual(cgroupsNamed('chbench'), []);
    for (const id of seen)
      assert.deepEqual(cgroupsNamed(`docker/${id}`), [], `cgroups of container ${id.slice(0, 12)}`);
  },
);
