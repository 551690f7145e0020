/**
 * provision: start or reach the cell's ClickHouse and record what it is: `version()`, `timezone()`,
 * CPUs and memory, whether `system.query_log` is readable, and how it was provisioned.
 * Idempotent: a retry adopts the server an earlier attempt started.
 */
import os from 'node:os';
import path from 'node:path';
import { rmSync } from 'node:fs';
import { provisionTarget } from '../targets';
import { connect, queryRows, queryScalar, tryCommand } from '../lib/clickhouse';
import { cellDir, writeJsonAtomic } from '../lib/results-store';
import { loadWorkload, cannotRunReason } from '../lib/workload';
import { versionMatchesLabel } from '../lib/version';
import { heartbeat, withHeartbeat } from '../lib/activity-context';
import type { CellInput, ProvisionResult, ServerInfo } from './types';
import type { TargetHandle } from '../targets/types';

/** Dependencies of the provision step. */
export interface ProvisionDeps {
  /** Directory under which per-cell server directories are created. */
  workDir: string;
}

/**
 * Read the server facts recorded with every cell.
 * Sources: `version()`, `timezone()`; CPUs/memory from `system.asynchronous_metrics`
 * (`OSMemoryTotal`, number of `OSUserTimeCPU*` metrics) where the server has them, else from the
 * worker host's `os.cpus()` / `os.totalmem()` for loopback targets, else unknown (null).
 */
export async function readServerInfo(t: TargetHandle): Promise<ServerInfo> {
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
    const loopback = /^https?:\/\/(127\.0\.0\.1|\[::1\]|localhost)[:/]/.test(t.url);
    if (cpus === null && loopback) [cpus, cpuSource] = [os.cpus().length, 'worker host os.cpus() (same host)'];
    if (memory === null && loopback) [memory, memSource] = [os.totalmem(), 'worker host os.totalmem() (same host)'];
    // system.query_log is created lazily: run a logged query and flush before deciding.
    await tryCommand(client, 'SELECT 1', { log_queries: 1 });
    await tryCommand(client, 'SYSTEM FLUSH LOGS');
    const ql = await queryScalar<number>(client, "SELECT count() FROM system.tables WHERE database = 'system' AND name = 'query_log'");
    return { version, timezone, cpus, cpu_source: cpuSource, memory_bytes: memory, memory_source: memSource, query_log: Number(ql) > 0 ? 'available' : 'not available' };
  } finally {
    await client.close();
  }
}

/** Activity factory. */
export function createProvision(deps: ProvisionDeps) {
  return {
    /**
     * Provision the cell's target and record it in `provision.json`. `fresh` (the cell's first
     * provision) empties the cell's result folder first; a re-provision after a lost server keeps it.
     * @returns the handle (no secrets), server facts and, if this version cannot run the cell, why.
     * @throws Error when the server cannot be started or reached.
     */
    async provision(cell: CellInput, fresh = false): Promise<ProvisionResult> {
      heartbeat({ step: 'provision' });
      // A new execution of the cell starts from an empty result folder: step files of an earlier
      // execution (a failed cell being run again) must never mix into this one's result.
      if (fresh) rmSync(cellDir(cell.resultsDir, cell.runId, cell.cellKey), { recursive: true, force: true });
      const target = await withHeartbeat(
        provisionTarget(cell.target, { runId: cell.runId, cellKey: cell.cellKey, version: cell.version, workDir: path.resolve(deps.workDir) }),
        () => ({ step: 'provision' }),
      );
      heartbeat({ step: 'provision', url: target.url });
      const server = await readServerInfo(target);
      const m = loadWorkload(cell.workload);
      let skipReason = cannotRunReason(m, server.version, cell.codec);
      // A cell is never reported under a version it did not run (external servers included).
      if (!skipReason && !versionMatchesLabel(server.version, cell.version))
        skipReason = `matrix version ${cell.version} asked for, but the ${cell.target.kind} target runs ClickHouse ${server.version}`;
      const result: ProvisionResult = { target, server, ...(skipReason ? { skipReason } : {}) };
      writeJsonAtomic(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'provision.json'), {
        ...result,
        provisioned_at: new Date().toISOString(),
      });
      return result;
    },
  };
}
