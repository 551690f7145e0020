/**
 * The docker target against a real Docker engine (a private dockerd the test starts) and the
 * ClickHouse 18.16 image built from Debian's files: provision a cell and run SQL through its handle,
 * a retried provision adopts the same container, the volume profile is applied by the kernel (a
 * direct-I/O read under 20 MiB/s), teardown leaves no container and no volume, `collectDockerGarbage`
 * removes only a closed run's leftovers (real Temporal dev server), an unknown image fails
 * non-retryably, and a tiny memory limit ends in a clear OOM-kill failure. Skipped (with the reason)
 * when not root or dockerd is missing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { connect, queryRows, queryScalar } from '../../src/clickhouse/client';
import { FAILURE } from '../../src/schema/failures';
import { DockerTargetSpec } from '../../src/schema/run-spec';
import type { ProvisionRequest, TemporalOwner } from '../../src/schema/target';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { dockerCellNames } from '../../src/targets/docker';
import { collectDockerGarbage } from '../../src/targets/gc';
import { targetOf } from '../../src/targets';
import { assertFailureType } from '../helpers/assert-failure';
import { dockerSkipReason, startDockerTestEngine, type DockerTestEngine } from '../helpers/docker';

const skip = dockerSkipReason();
const MiB = 1024 * 1024;

describe('docker target on a private dockerd', { skip }, () => {
  let env: DockerTestEngine;
  let workDir: string;
  const stamp = Date.now();
  const spec = (o: Record<string, unknown> = {}) =>
    DockerTargetSpec.parse({ kind: 'docker', images: { '18.16': env.image.tag }, pull: false, ...o });
  const req = (runId: string, cellKey = 'v18.16-lz4', o: Partial<ProvisionRequest> = {}): ProvisionRequest => ({
    runId,
    cellKey,
    version: '18.16',
    workDir,
    ...o,
  });
  const target = () => targetOf({ kind: 'docker' } as never);
  /** Containers and volumes of a run on the engine, `container <name>` / `volume <name>`. */
  const leftovers = async (runId: string) => {
    const filters = JSON.stringify({ label: [`chbench.run=${runId}`] });
    const cs = await env.engine.docker.listContainers({ all: true, filters });
    const vs = (await env.engine.docker.listVolumes({ filters })).Volumes ?? [];
    return [...cs.map((c) => `container ${c.Names[0]}`), ...vs.map((v) => `volume ${v.Name}`)];
  };

  before(async () => {
    env = await startDockerTestEngine();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docker-target-'));
  });
  after(async () => {
    await env?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  test('the local image is reused by content hash on a second build', async () => {
    const { buildLocalClickHouseImage } = await import('../../src/targets/docker/local-image');
    const again = await buildLocalClickHouseImage(env.engine.docker);
    assert.equal(again.tag, env.image.tag);
    assert.equal(again.id, env.image.id);
    assert.equal(again.reused, true);
  });

  test('provision, SQL, adoption, volume profile held, teardown leaves nothing', async () => {
    const s = spec({ resources: { volume: { profile: 'explicit', readMiBps: 20 }, cpus: 1, memory: '2Gi' } });
    const r = req(`dk-run-${stamp}`);
    const h = await target().provision(s, r);
    assert.equal(h.kind, 'docker');
    assert.match(h.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(h.provisionedBy, /ClickHouse 18\.16\.1/);
    assert.match(h.provisionedBy, /volume limits: read 20 MiB\/s;.* volume limits on \/dev\/\w+ \(\d+:\d+/);
    const names = dockerCellNames(r.runId, r.cellKey);
    assert.equal(h.docker?.container, names.container);

    const info = await env.engine.docker.getContainer(names.container).inspect();
    assert.equal(info.HostConfig.NetworkMode, 'host');
    assert.equal(info.HostConfig.Memory, 2 * 1024 * MiB);
    assert.equal(info.HostConfig.NanoCpus, 1e9);
    assert.equal(info.HostConfig.BlkioDeviceReadBps?.length, 1);
    assert.equal(info.HostConfig.BlkioDeviceReadBps?.[0]?.Rate, 20 * MiB);
    assert.equal(info.Config.Labels['chbench.run'], r.runId);
    assert.equal(info.Config.Labels['chbench.cell'], r.cellKey);

    const c = connect(h);
    try {
      assert.equal(await queryScalar<string>(c, 'SELECT version()'), '18.16.1');
      await c.command({ query: 'CREATE TABLE t (k UInt64, s String) ENGINE = MergeTree ORDER BY k' });
      // Hex of a hash: incompressible enough that the column on disk is tens of MB.
      await c.command({
        query:
          'INSERT INTO t SELECT number, concat(hex(sipHash64(number)), hex(sipHash64(number + 1))) FROM numbers(2000000)',
      });
      await c.command({ query: 'OPTIMIZE TABLE t FINAL' });
      const [{ bytes }] = await queryRows<{ bytes: string }>(
        c,
        "SELECT sum(column_data_compressed_bytes) AS bytes FROM system.parts_columns WHERE active AND table = 't' AND column = 's'",
      );
      // A cold read with direct I/O (bypasses the page cache, so the blkio throttle sees every byte).
      const t0 = Date.now();
      await queryScalar(c, 'SELECT sum(length(s)) FROM t SETTINGS min_bytes_to_use_direct_io = 1, max_threads = 2');
      const seconds = (Date.now() - t0) / 1000;
      const rateMiBps = Number(bytes) / MiB / seconds;
      console.log(
        `docker volume profile: read ${(Number(bytes) / MiB).toFixed(1)} MiB (column s, system.parts_columns column_data_compressed_bytes) with direct I/O in ${seconds.toFixed(2)} s = ${rateMiBps.toFixed(1)} MiB/s under a 20 MiB/s BlkioDeviceReadBps limit`,
      );
      assert.ok(Number(bytes) > 30 * MiB, `table is ${bytes} bytes on disk`);
      assert.ok(rateMiBps < 20 * 1.15, `read at ${rateMiBps.toFixed(1)} MiB/s: the 20 MiB/s limit did not hold`);
    } finally {
      await c.close();
    }

    // A retried provision (the worker died after the container started) adopts the same container.
    const again = await target().provision(s, r);
    assert.equal(again.docker?.containerId, h.docker?.containerId);
    assert.equal(again.url, h.url);
    assert.match(again.provisionedBy, /adopted/);
    assert.deepEqual(await target().check(again), { reachable: true, version: '18.16.1' });

    // Teardown exports the statements first (as the teardown activity does), then removes everything.
    const archive = path.join(workDir, 'server-log.jsonl');
    const source = await target().archiveStatements(h, '', archive);
    assert.match(source, /^system\.query_log/);
    const lines = fs.readFileSync(archive, 'utf8').trim().split('\n');
    assert.ok(lines.length >= 3, `the archive holds the cell's statements (${lines.length} lines)`);
    assert.ok(fs.existsSync(path.join(workDir, `container-${names.container}.log`)));
    await target().teardown(h);
    await target().teardown(h); // idempotent
    assert.deepEqual(await leftovers(r.runId), []);
    const check = await target().check(h);
    assert.equal(check.reachable, false);
    assert.match(check.error ?? '', /is gone/);
  });

  test('an unknown image fails non-retryably, naming the image', async () => {
    const s = spec({ images: { '18.16': 'chbench-test/no-such-image:0' } });
    const f = await assertFailureType(
      target().provision(s, req(`dk-noimg-${stamp}`)),
      FAILURE.ImagePull,
      /no-such-image/,
    );
    assert.equal(f.nonRetryable, true);
    // Pulling from a registry that cannot be reached is refused as clearly.
    const f2 = await assertFailureType(
      target().provision(
        spec({ images: { '18.16': 'chbench-test/no-such-image:0' }, pull: true, timeouts: { pullMs: 20_000 } }),
        req(`dk-noimg2-${stamp}`),
      ),
      FAILURE.ImagePull,
      /cannot be pulled/,
    );
    assert.equal(f2.nonRetryable, true);
    assert.deepEqual(await leftovers(`dk-noimg-${stamp}`), []);
  });

  test('a memory limit too small for the server ends in a clear OOM-kill failure', async () => {
    // The spec refuses a limit this small (below 256Mi); a limit that passes can still be too small
    // for a large load, so the target's handling is tested on a spec built past the check.
    assert.throws(() => spec({ resources: { memory: '24Mi' } }), /at least 256Mi/);
    const s: DockerTargetSpec = { ...spec(), resources: { memory: 24 * 1024 * 1024 } };
    const r = req(`dk-oom-${stamp}`);
    const f = await assertFailureType(target().provision(s, r), FAILURE.TargetUnavailable, /OOM-killed/);
    assert.equal(f.nonRetryable, true);
    assert.match(await target().teardownCell(s, r), /removed container/);
    assert.deepEqual(await leftovers(r.runId), []);
  });

  test('gc removes the container and volume of a closed run only', async () => {
    let temporal: DevServer | undefined;
    try {
      temporal = await startDevServer();
      const conn = await Connection.connect({ address: temporal.address });
      const client = new Client({ connection: conn, namespace: 'default' });
      const nsId = (await conn.workflowService.describeNamespace({ namespace: 'default' })).namespaceInfo!.id!;
      const closedRun = `dk-gc-closed-${stamp}`;
      const openRun = `dk-gc-open-${stamp}`;
      const cell = 'v18.16-lz4';
      for (const id of [closedRun, `${closedRun}/${cell}`, openRun, `${openRun}/${cell}`])
        await client.workflow.start('benchmarkMatrix', { taskQueue: `nobody-${stamp}`, workflowId: id, args: [] });
      for (const id of [closedRun, `${closedRun}/${cell}`]) await client.workflow.getHandle(id).terminate('test: over');
      const owner = (runId: string): TemporalOwner => ({
        address: temporal!.address,
        namespace: 'default',
        namespaceId: nsId,
        workflowId: `${runId}/${cell}`,
        workflowRunId: 'r',
        matrixWorkflowId: runId,
      });
      const s = spec();
      for (const runId of [closedRun, openRun]) await target().provision(s, req(runId, cell, { owner: owner(runId) }));
      const mine = (e: { runId: string }) => e.runId === closedRun || e.runId === openRun;
      const dry = await collectDockerGarbage({ dryRun: true, connectTimeoutMs: 2000 });
      assert.equal(dry.removed.filter(mine).length, 2);
      assert.equal((await leftovers(closedRun)).length, 2, 'a dry run removes nothing');
      const r = await collectDockerGarbage({ connectTimeoutMs: 2000 });
      assert.deepEqual(
        r.removed
          .filter(mine)
          .map((e) => `${e.kind} ${e.runId}`)
          .sort(),
        [`container ${closedRun}`, `volume ${closedRun}`],
      );
      for (const e of r.removed) assert.match(e.reason, /terminated/);
      const kept = r.kept.filter(mine);
      assert.equal(kept.length, 2);
      assert.ok(
        kept.every((e) => e.runId === openRun && /is running/.test(e.reason)),
        JSON.stringify(kept),
      );
      assert.deepEqual(await leftovers(closedRun), []);
      const n = dockerCellNames(openRun, cell);
      assert.deepEqual((await leftovers(openRun)).sort(), [`container /${n.container}`, `volume ${n.volume}`]);
      await target().teardownCell(s, req(openRun, cell));
      assert.deepEqual(await leftovers(openRun), []);
      await conn.close();
    } finally {
      await temporal?.stop();
    }
  });
});

if (skip) test(`docker target tests skipped: ${skip}`, { skip }, () => undefined);
