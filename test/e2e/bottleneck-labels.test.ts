/**
 * Bottleneck labels on process targets (issue 26), end to end: the real Temporal dev server, the real
 * worker and the chdb engine (embedded target, as root, cgroup v1 here).
 *
 * 1. A cell under a 20 MiB/s read limit (`target.resources` explicit), 2 M rows of four random UInt64
 *    columns (≈ 64 MiB): the cold full scan's window is labelled disk-bound from the cell cgroup's
 *    counters with the achieved read rate under the limit (+ 10 %), and the label's evidence is the
 *    difference of the two `counters.jsonl` samples that bracket the run's record window.
 * 2. An unthrottled cell (the `/proc/<pid>` counters): a query that hashes 40 M numbers on every core and reads
 *    nothing is labelled CPU-bound in its warm window.
 * Both reports carry the bottleneck section (limits beside the host disk's unthrottled rate).
 * Test workload: test/fixtures/workloads/bottleneck. ~1–2 min.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { REPO_ROOT } from '../../src/config';
import type { MatrixResult } from '../../src/workflows';
import { MetricsSnapshot, type LocalStepLabel } from '../../src/schema/results';
import { readRecord } from '../../src/results/store';
import { readCounterSamples, COUNTERS_FILE } from '../../src/process/cell-counters';

const MiB = 1024 * 1024;
let env: TemporalEnv;
let savedRoot: string | undefined;
before(async () => {
  savedRoot = process.env.CHBENCH_SQL_ROOT;
  process.env.CHBENCH_SQL_ROOT = path.join(REPO_ROOT, 'test', 'fixtures');
  env = await startTemporalEnv('bottleneck-labels');
});
after(async () => {
  await env?.stop();
  if (savedRoot === undefined) delete process.env.CHBENCH_SQL_ROOT;
  else process.env.CHBENCH_SQL_ROOT = savedRoot;
});

/** Run a one-cell matrix of the bottleneck workload; its cell folder. */
async function runCell(name: string, scale: number, target: Record<string, unknown>): Promise<string> {
  const runId = `${name}-${Date.now()}`;
  const handle = await env.client.workflow.start('benchmarkMatrix', {
    taskQueue: env.taskQueue,
    workflowId: runId,
    args: [
      {
        name,
        workload: 'bottleneck',
        scale,
        target,
        matrix: { version: ['26.7'], codec: ['LZ4'] },
        protocol: { coldRuns: 1, warmupRuns: 0, warmRuns: 1, quiesce: { stableForMs: 200 } },
        teardown: 'always',
        resultsDir: env.resultsDir,
      },
    ],
  });
  const r = (await handle.result()) as MatrixResult;
  assert.deepEqual(
    r.cells.map((c) => c.status),
    ['succeeded'],
    JSON.stringify(r.cells.map((c) => c.error)),
  );
  return path.dirname(r.cells[0]!.resultFile);
}

/** The step's label, and a check that its counters are the two bracketing samples' differences. */
function stepLabel(dir: string, step: string): LocalStepLabel {
  const end = readRecord(path.join(dir, 'metrics-end.json'), MetricsSnapshot);
  const lb = end.local_bottleneck;
  assert.ok(lb, 'metrics-end.json has local_bottleneck');
  const l = lb.steps.find((s) => s.step === step);
  assert.ok(l, `a window "${step}" among ${lb.steps.map((s) => s.step).join(', ')}`);
  assert.ok(l.counters, l.evidence);
  const samples = readCounterSamples(path.join(dir, COUNTERS_FILE));
  const a = samples[l.counters.from_sample]!;
  const b = samples[l.counters.to_sample]!;
  // The samples bracket the run's record window…
  assert.ok(
    a.t <= Date.parse(l.started_at) && b.t >= Date.parse(l.finished_at),
    `${a.t}…${b.t} brackets ${l.started_at}…${l.finished_at}`,
  );
  // … and the evidence is their differences over the time between them.
  assert.equal(l.counters.read_bytes, b.read_bytes - a.read_bytes);
  assert.equal(l.counters.write_bytes, b.write_bytes - a.write_bytes);
  assert.equal(l.counters.cpu_ns, b.cpu_ns - a.cpu_ns);
  assert.equal(l.counters.host_busy_ns, b.host_busy_ns - a.host_busy_ns);
  const ms = a.proc === b.proc ? b.hr - a.hr : b.t - a.t;
  assert.equal(l.counters.ms, ms);
  assert.equal(l.counters.read_bytes_per_s, l.counters.read_bytes / (ms / 1000));
  assert.equal(l.counters.cores_used, l.counters.cpu_ns / 1e9 / (ms / 1000));
  const mibs = l.counters.read_bytes_per_s / MiB;
  const shown = mibs >= 100 ? Math.round(mibs).toLocaleString('en-US') : mibs >= 10 ? mibs.toFixed(1) : mibs.toFixed(2);
  assert.ok(l.evidence.startsWith(`read ${shown} MiB/s`), `${l.evidence} starts with the read rate ${shown} MiB/s`);
  return l;
}

test(
  'a cold full scan under a 20 MiB/s read limit is disk-bound under the limit; a hashing query unthrottled is CPU-bound',
  { timeout: 600_000 },
  async (t) => {
    const throttled = await runCell('bottleneck-gp', 2_000_000, {
      kind: 'embedded',
      resources: { volume: { profile: 'explicit', readMiBps: 20 } },
    });
    const end = readRecord(path.join(throttled, 'metrics-end.json'), MetricsSnapshot);
    // Every window's evidence first: when an assertion below fails, the log shows which window and why.
    for (const l of end.local_bottleneck?.steps ?? []) t.diagnostic(`  ${l.step}: ${l.label} — ${l.evidence}`);
    const cold = stepLabel(throttled, 'scan cold (baseline)');
    t.diagnostic(`throttled cold scan: ${cold.label}: ${cold.evidence}`);
    assert.equal(cold.label, 'disk-bound', cold.evidence);
    assert.ok(cold.counters!.read_bytes >= 55 * MiB, `the cold scan read ${cold.counters!.read_bytes} bytes`);
    assert.ok(cold.counters!.read_bytes_per_s <= 20 * MiB * 1.1, cold.evidence);
    assert.equal(cold.limit_held, true);
    assert.match(cold.counters!.source, /^cgroup v[12] chbench\//);
    assert.match(end.local_bottleneck!.limits, /volume limits: read 20 MiB\/s on \S+ \(\d+:\d+\), cgroup v/);
    assert.deepEqual(
      end.local_bottleneck!.steps.filter((l) => l.limit_held === false).map((l) => `${l.step}: ${l.evidence}`),
      [],
      'every window held the read limit',
    );
    assert.equal(end.local_bottleneck!.limits_held, true);

    const free = await runCell('bottleneck-free', 100_000, { kind: 'embedded' });
    const hash = stepLabel(free, 'hash warm (baseline)');
    t.diagnostic(`unthrottled hash: ${hash.label}: ${hash.evidence}`);
    // The label is the server's own CPU share: cpu-bound on a quiet host. When other processes took the
    // cores (the evidence names them), the bottleneck cannot be told and the label says unknown — never
    // cpu-bound from the host's load, never neither or disk-bound.
    if (hash.label === 'unknown')
      assert.match(hash.evidence, /other processes used \d\.\d\d cores, the server was starved of CPU/);
    else assert.equal(hash.label, 'cpu-bound', hash.evidence);
    assert.match(hash.counters!.source, /^\/proc\/\d+$/);
    assert.ok(hash.counters!.cpu_ns > 0.1e9, `the hashing run used ${hash.counters!.cpu_ns} ns of CPU`);

    for (const dir of [throttled, free]) {
      const report = path.join(dir, '..', '..', 'report.md');
      assert.ok(existsSync(report), report);
      const md = readFileSync(report, 'utf8');
      assert.match(md, /## Bottlenecks \(this host\)/);
      assert.match(md, /host disk unthrottled: [\d,.]+ MiB\/s/);
    }
  },
);
