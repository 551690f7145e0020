/**
 * The worker host's load for a server on a loopback URL that chbench did not start (issue 23): the
 * `collectMetrics` snapshot of an `external` target at 127.0.0.1 records `host_activity` (os.loadavg,
 * the host's cores) labelled as probably the server's host, and nothing that assumes it (no host disk
 * or CPU counters); a `kubernetes` target's loopback URL (its port-forward) records none. The server
 * port is a free loopback port nothing listens on: system.events is "not available", which the
 * snapshot records as such.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCollectMetrics } from '../../src/activities/collect-metrics';
import { cellActivity } from '../../src/activities/step-context';
import { freePort } from '../../src/lib/net';
import { cellDir } from '../../src/results/store';
import { LOOPBACK_HOST_SCOPE } from '../../src/schema/host';
import { capabilitiesOf } from '../../src/targets';
import type { CellInput } from '../../src/schema/cell';
import type { MetricsSnapshot } from '../../src/schema/results';
import type { TargetHandle, TargetKind } from '../../src/schema/target';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-collect-loopback-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

async function snapshot(kind: TargetKind, cellKey: string): Promise<MetricsSnapshot> {
  const port = await freePort();
  const cell = { resultsDir: path.join(tmp, 'results'), runId: 'r1', cellKey } as CellInput;
  const target = {
    kind,
    url: `http://127.0.0.1:${port}`,
    database: 'd',
    username: 'default',
    runId: 'r1',
    cellKey,
    provisionedBy: 'test',
  } as TargetHandle;
  const collect = cellActivity(
    'collectMetrics',
    createCollectMetrics({ workDir: path.join(tmp, 'work') }).collectMetrics,
  );
  const { file } = await collect({ cell, target } as never, 'start');
  return JSON.parse(readFileSync(path.join(cellDir(cell.resultsDir, 'r1', cellKey), file), 'utf8')) as MetricsSnapshot;
}

test('external on loopback: the worker host load, labelled as probable; onWorkerHost stays false', async () => {
  assert.equal(capabilitiesOf({ kind: 'external' }).onWorkerHost, false);
  const s = await snapshot('external', 'v26.9-lz4');
  assert.ok(s.host_activity, JSON.stringify(s));
  assert.equal(s.host_activity.scope, LOOPBACK_HOST_SCOPE);
  assert.equal(s.host_activity.cores, os.cpus().length);
  assert.ok(s.host_activity.loadavg1 >= 0);
  assert.deepEqual(s.host_activity.otherServers, []);
  // Nothing else assumes the host is shared: no host disk / CPU counters, no data disk.
  assert.equal(s.host_disks, null);
  assert.equal(s.data_disk, undefined);
  assert.match(s.host_source, /not on the worker host/);
  assert.match(s.server_events_source, /^not available/);
});

test('kubernetes on loopback (its port-forward): no host load', async () => {
  const s = await snapshot('kubernetes', 'v26.9-k8s');
  assert.equal(s.host_activity, undefined);
});
