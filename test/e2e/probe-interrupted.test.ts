/**
 * A matrix cell whose server dies part-way through its capability probe (issue 23, "Show it"): the
 * other cell is still measured, on real components (dev server, a worker in this process, the
 * embedded target with the bundled npm 26.7 engine and the PyPI 26.9 build, chdb-core 26.9.0).
 *
 * The fault is real: the engine server's test-only hook (`CHBENCH_TEST_EXIT_ON_STATEMENT`, see
 * src/engine/server.ts "Test hook") makes every 26.9 server SIGKILL itself when it receives
 * `SELECT name FROM system.table_functions`, a statement only the probe sends, after ~30 probe
 * statements it answered. The probe must stop there (not record every later capability as absent),
 * provisioning must fail that attempt and retry it on a fresh server, and after
 * PROBE_INTERRUPTED_ATTEMPTS attempts the cell fails with `ProbeInterrupted`, naming the
 * provisioning step, the statement and the target; no probe.json is written for it. The 26.7 cell
 * runs to the end with measured queries, nothing of either cell is left running, and the report
 * lists the failed cell.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import type { MatrixResult } from '../../src/workflows';
import { findPypiBuild, installEngine } from '../../src/engine/install';
import { cellDir } from '../../src/results/store';
import { CellResult } from '../../src/schema/results';
import { FAILURE, PROBE_INTERRUPTED_ATTEMPTS } from '../../src/schema/failures';
import { pollWithin } from '../../src/lib/poll';

/** The statement the 26.9 servers die on: sent by the capability probe only (src/clickhouse/probe.ts). */
const DIES_ON = 'SELECT name FROM system.table_functions';
/** Marks the processes this file's worker starts (their environment inherits it), to find leftovers. */
const MARK = `CHBENCH_TEST_MARK=probe-interrupted-${process.pid}-${Date.now()}`;

let env: TemporalEnv;
before(async () => {
  await installEngine(findPypiBuild('26.9')!);
  // Read by every engine server the worker starts (a detached server gets the worker's environment).
  process.env.CHBENCH_TEST_EXIT_ON_STATEMENT = `26.9:^${DIES_ON.replace(/\./g, '\\.')}\\b`;
  const [k, v] = MARK.split('=');
  process.env[k] = v;
  env = await startTemporalEnv('probe-interrupted');
});
after(async () => {
  await env?.stop();
  delete process.env.CHBENCH_TEST_EXIT_ON_STATEMENT;
});

/** Processes other than this one started under this file's work dir, or PyPI engine hosts, carrying {@link MARK}. */
function leftovers(): string[] {
  const out: string[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${d}/environ`, 'utf8').split('\0').includes(MARK)) continue;
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(env.workDir) || cmd.includes('host.py')) out.push(`${d}: ${cmd.slice(0, 200)}`);
    } catch {
      /* gone meanwhile, or not ours */
    }
  }
  return out;
}

test(
  'a server that dies mid-probe fails its cell at provision (ProbeInterrupted, naming the statement) after retries; the other cell is measured',
  { timeout: 300_000 },
  async () => {
    const runId = `probe-int-${Date.now()}`;
    // The leftover check must see what it looks for: sample it while the cells run.
    const seen = new Set<string>();
    const sampler = setInterval(() => {
      for (const p of leftovers()) seen.add(p.includes('host.py') ? 'PyPI engine host' : 'engine server');
    }, 500);
    const t0 = Date.now();
    const r = (await env.client.workflow.execute('benchmarkMatrix', {
      taskQueue: env.taskQueue,
      workflowId: runId,
      args: [
        {
          name: runId,
          workload: 'trivial',
          scale: 1000,
          target: { kind: 'embedded' },
          matrix: { version: ['26.7', '26.9'], codec: ['LZ4'] },
          skipIndex: false,
          concurrency: 2,
          protocol: { warmRuns: 1, warmupRuns: 0, dropOsPageCache: false },
          resultsDir: env.resultsDir,
        },
      ],
    })) as MatrixResult;
    const tookMs = Date.now() - t0;
    clearInterval(sampler);
    const byKey = Object.fromEntries(r.cells.map((c) => [c.cellKey, c]));

    // The other cell: measured to the end, its queries with figures.
    const ok = byKey['v26.7-lz4'];
    assert.equal(ok.status, 'succeeded', ok.error);
    const okDoc = CellResult.parse(JSON.parse(readFileSync(ok.resultFile, 'utf8')));
    const qs = okDoc.queries_baseline!.queries;
    assert.ok(qs.length > 0, 'the 26.7 cell has measured queries');
    for (const q of qs) {
      assert.ok(q.samples.length >= 2, `${q.id}: cold + warm samples`);
      for (const s of q.samples) assert.ok(s.wall_ms > 0 && s.server_elapsed_ms! > 0, `${q.id}: wall and server time`);
    }
    assert.ok(existsSync(path.join(cellDir(env.resultsDir, runId, 'v26.7-lz4'), 'probe.json')));

    // The failed cell: provision, the server stopped answering during the probe, at which statement.
    const bad = byKey['v26.9-lz4'];
    assert.equal(bad.status, 'failed');
    assert.match(
      bad.error ?? '',
      new RegExp(
        `^activity provision failed: (?:Activity task failed: )?the ClickHouse server \\(embedded target http://127\\.0\\.0\\.1:\\d+\\) stopped answering during the capability probe, at statement \\d+ \`${DIES_ON.replace(/\./g, '\\.')}\`: .*\\(provision attempt ${PROBE_INTERRUPTED_ATTEMPTS}; the server stopped answering during the probe on attempt ${PROBE_INTERRUPTED_ATTEMPTS}: not retried further; no probe\\.json written\\)`,
      ),
      bad.error,
    );
    const badDir = cellDir(env.resultsDir, runId, 'v26.9-lz4');
    assert.ok(!existsSync(path.join(badDir, 'probe.json')), 'no probe.json claims capabilities of a dead server');
    const badDoc = CellResult.parse(JSON.parse(readFileSync(bad.resultFile, 'utf8')));
    assert.equal(badDoc.status, 'failed');
    assert.equal(badDoc.attempts.provision, PROBE_INTERRUPTED_ATTEMPTS, JSON.stringify(badDoc.attempts));
    // Each attempt: a fresh server that died at the same statement; retried until the last.
    const attempts = badDoc.attempt_log!.provision;
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.outcome, a.failure_type, a.retryable]),
      Array.from({ length: PROBE_INTERRUPTED_ATTEMPTS }, (_, i) => [
        i + 1,
        'failed',
        FAILURE.ProbeInterrupted,
        i + 1 < PROBE_INTERRUPTED_ATTEMPTS,
      ]),
    );
    const ports = attempts.map((a) => /http:\/\/127\.0\.0\.1:(\d+)/.exec(a.error ?? '')?.[1]);
    assert.equal(
      new Set(ports).size,
      PROBE_INTERRUPTED_ATTEMPTS,
      `a new server on each attempt: ports ${ports.join(', ')}`,
    );
    for (const a of attempts) assert.ok(a.error!.includes(`\`${DIES_ON}\``), a.error);
    // The child workflow is Failed with that type.
    const f = (await env.client.workflow.getHandle(`${runId}/v26.9-lz4`).fetchHistory()).events!.find(
      (e) => e.workflowExecutionFailedEventAttributes,
    )!.workflowExecutionFailedEventAttributes!.failure!;
    assert.equal(f.applicationFailureInfo?.type, FAILURE.ProbeInterrupted);

    // Nothing left running: no engine server under the work dir, no PyPI engine host (both were seen running).
    assert.deepEqual([...seen].sort(), ['PyPI engine host', 'engine server']);
    const tLeft = Date.now();
    const none = await pollWithin(async () => leftovers().length === 0, { timeoutMs: 10_000, intervalMs: 200 });
    assert.ok(none, `left running:\n${leftovers().join('\n')}`);
    const leftMs = Date.now() - tLeft;

    // The report lists the failed cell, with why.
    const report = readFileSync(r.reportPath, 'utf8');
    assert.match(report, /v26\.9-lz4[^\n]*failed/);
    assert.match(report, /stopped answering during the capability probe/);
    console.log(`probe-interrupted: matrix took ${tookMs} ms; nothing left running after ${leftMs} ms more`);
  },
);
