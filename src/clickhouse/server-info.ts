/**
 * The server facts recorded with every cell at provisioning (`provision.json` `server`), with the
 * capability probe (`probe.json`, src/clickhouse/probe.ts) and the server's own defaults
 * (`defaults.json`, src/clickhouse/defaults.ts) read on the same connection.
 */
import os from 'node:os';
import { ApplicationFailure } from '@temporalio/common';
import { connect, queryRows, queryScalar } from './client';
import { probeServer, type ProbeInterruptedError } from './probe';
import { readServerDefaults } from './defaults';
import { FAILURE, PROBE_INTERRUPTED_ATTEMPTS } from '../schema/failures';
import type { ServerInfo } from '../schema/cell';
import type { TargetHandle } from '../schema/target';
import type { CapabilityProbe, ServerDefaults } from '../schema/results';

/**
 * Read the server facts recorded with every cell, then probe it and read its defaults.
 * Sources: `version()`, `timezone()`; CPUs/memory from `system.asynchronous_metrics`
 * (`OSMemoryTotal` in bytes, number of `OSUserTimeCPU*` metrics) where the server has them, else from the
 * worker host's `os.cpus()` / `os.totalmem()` for a target on the worker's host (`onWorkerHost`,
 * its capabilities say so), else unknown (null). `query_log` from the capability probe, which runs a
 * logged query and flushes first (`system.query_log` is created lazily).
 * @throws ProbeInterruptedError when the server stopped answering during the probe; what the client
 *   throws when it does not answer `version()`.
 */
export async function readServerInfo(
  t: TargetHandle,
  onWorkerHost: boolean,
): Promise<ServerInfo & { probe: CapabilityProbe; defaults: ServerDefaults }> {
  const client = connect(t);
  try {
    const version = await queryScalar<string>(client, 'SELECT version()');
    const timezone = await queryScalar<string>(client, 'SELECT timezone()');
    let cpus: number | null = null;
    let memory: number | null = null;
    let cpuSource = 'unknown';
    let memSource = 'unknown';
    try {
      const rows = await queryRows<{ metric: string; value: number }>(
        client,
        "SELECT metric, value FROM system.asynchronous_metrics WHERE metric = 'OSMemoryTotal' OR metric LIKE 'OSUserTimeCPU%'",
      );
      const mem = rows.find((r) => r.metric === 'OSMemoryTotal');
      if (mem) [memory, memSource] = [Number(mem.value), 'system.asynchronous_metrics.OSMemoryTotal'];
      const cpuRows = rows.filter((r) => /^OSUserTimeCPU\d+$/.test(r.metric)).length;
      if (cpuRows) [cpus, cpuSource] = [cpuRows, 'count of system.asynchronous_metrics OSUserTimeCPU<N>'];
    } catch {
      /* old servers: fall through */
    }
    if (cpus === null && onWorkerHost) [cpus, cpuSource] = [os.cpus().length, 'worker host os.cpus() (same host)'];
    if (memory === null && onWorkerHost) [memory, memSource] = [os.totalmem(), 'worker host os.totalmem() (same host)'];
    // system.query_log is created lazily: the capability probe runs a logged query and flushes first.
    const probe = await probeServer(client, version, { target: `${t.kind} target ${t.url}` });
    const defaults = await readServerDefaults(client, version);
    return {
      version,
      timezone,
      cpus,
      cpu_source: cpuSource,
      memory_bytes: memory,
      memory_source: memSource,
      query_log: probe.query_log.enabled ? 'available' : 'not available',
      probe,
      defaults,
    };
  } finally {
    await client.close();
  }
}

/**
 * The failure of a provision attempt whose capability probe the server stopped answering: type
 * `ProbeInterrupted`, naming the statement and the target (details `[{ statement, index, target }]`);
 * retryable (a restarted server may answer) until the {@link PROBE_INTERRUPTED_ATTEMPTS}th attempt,
 * non-retryable from it.
 * @param attempt the provision activity's attempt (1 = first).
 */
export function probeInterruptedFailure(e: ProbeInterruptedError, attempt: number): ApplicationFailure {
  const n = attempt;
  const last = n >= PROBE_INTERRUPTED_ATTEMPTS;
  return ApplicationFailure.create({
    type: FAILURE.ProbeInterrupted,
    nonRetryable: last,
    message: `${e.message} (provision attempt ${n}; ${
      last
        ? `the server stopped answering during the probe on attempt ${n}: not retried further`
        : 'retried: a restarted server may answer'
    }; no probe.json written)`,
    // The message has the client's error (its first line); the details the statement and target.
    details: [{ statement: e.statement, index: e.index, target: e.target }],
  });
}
