/**
 * provision: start or reach the cell's ClickHouse and record what it is: `version()`, `timezone()`,
 * CPUs and memory, whether `system.query_log` is readable, and how it was provisioned.
 * Idempotent: a retry adopts the server an earlier attempt started.
 */
import os from 'node:os';
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { clearCellDirKeepingAttempts } from './support/attempt-log';
import { capabilitiesOf, provisionTarget } from '../targets';
import { connect, queryRows, queryScalar } from '../clickhouse/client';
import { cellDir, runDir, writeJsonAtomic, readRecordIfExists } from '../results/store';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE, PROBE_INTERRUPTED_ATTEMPTS } from '../schema/failures';
import { probeServer, ProbeInterruptedError } from '../clickhouse/probe';
import { readServerDefaults } from '../clickhouse/defaults';
import { checkSettings } from '../clickhouse/settings';
import {
  loadWorkload,
  cannotRunReason,
  codecFor,
  renderTemplate,
  sqlRoot,
  templateColumns,
  type WorkloadManifest,
} from '../lib/workload';
import { trialCodecs } from '../clickhouse/codec-check';
import { schemaColumns } from '../measure/insert-load';
import { cellCodecProfile } from '../schema/cell';
import { versionMatchesLabel } from '../schema/version';
import { attempt, heartbeat } from '../temporal/activity-context';
import { keepAliveDuring } from '../clickhouse/statement-watch';
import type { CellInput, ProvisionResult, ServerInfo } from '../schema/cell';
import type { TargetHandle } from '../schema/target';
import { CellSettings, type CapabilityProbe, type ProvisionRecord, type ServerDefaults } from '../schema/results';
import { currentOwner, type OwnerDeps } from '../temporal/owner';
import { hostFacts, type HostDeps } from '../temporal/host';

/** Dependencies of the provision step. */
export interface ProvisionDeps extends OwnerDeps {
  /** Directory under which per-cell server directories are created. */
  workDir: string;
  /** This worker's host (absent in tests that build activities without a worker: no host is recorded). */
  host?: HostDeps;
}

/**
 * Read the server facts recorded with every cell.
 * Sources: `version()`, `timezone()`; CPUs/memory from `system.asynchronous_metrics`
 * (`OSMemoryTotal`, number of `OSUserTimeCPU*` metrics) where the server has them, else from the
 * worker host's `os.cpus()` / `os.totalmem()` for a target on the worker's host (its capabilities
 * say so), else unknown (null).
 */
async function readServerInfo(
  t: TargetHandle,
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
    const onHost = capabilitiesOf(t).onWorkerHost;
    if (cpus === null && onHost) [cpus, cpuSource] = [os.cpus().length, 'worker host os.cpus() (same host)'];
    if (memory === null && onHost) [memory, memSource] = [os.totalmem(), 'worker host os.totalmem() (same host)'];
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
 * Check the workload's and the spec's settings against a probe, and add `compatibility` for a cell
 * that pins another version's defaults (`pinDefaults`; a version without that setting is a problem).
 */
function resolveCellSettings(cell: CellInput, m: WorkloadManifest, probe: CapabilityProbe): CellSettings {
  const spec = cell.settings ?? { query: {}, mergeTree: {}, optional: [] };
  const wl = checkSettings(
    { query: m.loadSettings, mergeTree: m.tableSettings, optional: m.optionalSettings },
    probe,
    `workload ${m.name}`,
    { query: 'loadSettings', mergeTree: 'tableSettings' },
  );
  const sp = checkSettings(
    { query: spec.query, mergeTree: spec.mergeTree, optional: spec.optional },
    probe,
    // A profile's settings are merged into the cell's: say where a refused one may come from.
    cell.profile ? `spec (settings, or matrix.settings profile "${cell.profile}")` : 'spec',
  );
  // The insert grid's profiles are checked here too, so a setting this version lacks stops the cell before loading.
  const grid = (cell.grids?.insert?.settings ?? []).flatMap(
    (p, i) =>
      checkSettings({ query: p.query, mergeTree: p.mergeTree, optional: spec.optional }, probe, `profile "${p.name}"`, {
        query: `grids.insert.settings[${i}].query`,
        mergeTree: `grids.insert.settings[${i}].mergeTree`,
      }).problems,
  );
  // pinDefaults: another version's defaults through `compatibility`, where this version has that setting.
  const pin: Record<string, string> = {};
  const pinProblems: string[] = [];
  if (cell.pinDefaults) {
    if (probe.query_settings === null || probe.query_settings.includes('compatibility'))
      pin.compatibility = cell.pinDefaults;
    else
      pinProblems.push(
        `spec pinDefaults: ClickHouse ${probe.version} has no "compatibility" setting (system.settings), so this cell cannot run with ${cell.pinDefaults}'s defaults`,
      );
    if ('compatibility' in spec.query)
      pinProblems.push(
        `spec pinDefaults ${cell.pinDefaults} and settings.query compatibility = ${spec.query.compatibility}: give one of them`,
      );
  }
  return {
    load: { ...wl.applied.query, ...sp.applied.query, ...pin },
    runs: { ...sp.applied.query, ...pin },
    table: { ...wl.applied.mergeTree, ...sp.applied.mergeTree },
    not_applied: { ...wl.not_applied, ...sp.not_applied },
    problems: [...wl.problems, ...sp.problems, ...grid, ...pinProblems],
    ...(pin.compatibility
      ? { pinned_defaults: { version: pin.compatibility, setting: `compatibility = '${pin.compatibility}'` } }
      : {}),
  };
}

/** Read a cell's `settings.json` (written at provisioning); empty settings when absent. */
export function readCellSettings(cell: CellInput): CellSettings {
  return (
    readRecordIfExists(
      path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'settings.json'),
      CellSettings,
    ) ?? {
      load: {},
      runs: {},
      table: {},
      not_applied: {},
      problems: [],
    }
  );
}

/**
 * The failure of a provision attempt whose capability probe the server stopped answering: type
 * `ProbeInterrupted`, naming the statement and the target; retryable (a restarted server may answer)
 * until the {@link PROBE_INTERRUPTED_ATTEMPTS}th attempt, non-retryable from it.
 */
function probeInterrupted(e: ProbeInterruptedError): ApplicationFailure {
  const n = attempt();
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

/** Activity factory. */
export function createProvision(deps: ProvisionDeps) {
  return {
    /**
     * Provision the cell's target and record it in `provision.json`. `fresh` (the cell's first
     * provision) empties the cell's result folder first; a re-provision after a lost server keeps it.
     * @returns the handle (no secrets), server facts and, if this version cannot run the cell, why.
     * @throws Error when the server cannot be started or reached.
     * @throws ApplicationFailure `ProbeInterrupted` when the server stopped answering during the
     *   capability probe (retryable before attempt {@link PROBE_INTERRUPTED_ATTEMPTS}); no `probe.json` is written.
     */
    async provision(cell: CellInput, fresh = false): Promise<ProvisionResult> {
      heartbeat({ step: 'provision' });
      // A cell the matrix placed on a host writes into the run's results store: a host that does not
      // see the run's folder there (not mounted, another path) would keep its records to itself.
      if (cell.placement && !existsSync(path.join(runDir(cell.resultsDir, cell.runId), 'run.json')))
        throw ApplicationFailure.create({
          type: FAILURE.InvalidSpec,
          nonRetryable: true,
          message: `host ${deps.host?.hostId ?? '?'} does not see the run's results store: ${path.join(runDir(cell.resultsDir, cell.runId), 'run.json')} is missing there; mount the results directory at the same path on every host running chbench workers`,
        });
      // A new execution of the cell starts from an empty result folder: step files of an earlier
      // execution (a failed cell being run again) must never mix into this one's result. The
      // attempts of this execution's provisioning so far are kept (they are part of its record).
      if (fresh) clearCellDirKeepingAttempts(cellDir(cell.resultsDir, cell.runId, cell.cellKey));
      // Starting a server is not a statement: heartbeat while it starts (bounded by its own ping deadline).
      const target = await keepAliveDuring(
        'provision',
        // The label records where this workflow lives, so gc asks that server (see src/targets/gc.ts).
        currentOwner(deps, cell.matrixWorkflowId ?? cell.runId).then((owner) =>
          provisionTarget(cell.target, {
            runId: cell.runId,
            cellKey: cell.cellKey,
            version: cell.version,
            workDir: path.resolve(deps.workDir),
            ...(owner ? { owner } : {}),
          }),
        ),
      );
      heartbeat({ step: 'provision', url: target.url });
      const dir = cellDir(cell.resultsDir, cell.runId, cell.cellKey);
      // Server facts and the capability probe (written to probe.json, not to history). A server
      // that stops answering mid-probe fails this attempt: nothing is recorded of a dead server.
      const { probe, defaults, ...server } = await readServerInfo(target).catch((e: unknown) => {
        throw e instanceof ProbeInterruptedError ? probeInterrupted(e) : e;
      });
      writeJsonAtomic(path.join(dir, 'probe.json'), probe);
      // The server's own defaults (report: "What differs between these versions").
      writeJsonAtomic(path.join(dir, 'defaults.json'), defaults);
      const m = loadWorkload(cell.workload);
      const profile = cellCodecProfile(cell);
      let skipReason = cannotRunReason(m, probe, profile);
      // A cell is never reported under a version it did not run (external servers included).
      if (!skipReason && !versionMatchesLabel(server.version, cell.version))
        skipReason = `matrix version ${cell.version} asked for, but the ${cell.target.kind} target runs ClickHouse ${server.version}`;
      // Every requested setting checked at its level before anything is loaded.
      if (!skipReason) {
        const checked = resolveCellSettings(cell, m, probe);
        writeJsonAtomic(path.join(dir, 'settings.json'), checked);
        if (checked.problems.length)
          throw ApplicationFailure.create({
            type: FAILURE.InvalidSetting,
            nonRetryable: true,
            message: `settings refused before loading:\n  - ${checked.problems.join('\n  - ')}`,
          });
        // The cell's codecs tried on a throwaway temporary table with the schema's column types: an
        // expression this server refuses (unknown, or meaningless for a column's type) fails here.
        if (probe.column_codecs) {
          const placed = new Set(
            templateColumns(readFileSync(path.join(sqlRoot(), 'workloads', m.name, m.schema), 'utf8'))
              .filter((c) => c.placeholder)
              .map((c) => c.name),
          );
          const cols = schemaColumns(
            renderTemplate(m.name, m.schema, { table: m.table, rows: cell.scale, codec: 'LZ4' }),
            m.name,
          ).filter((c) => placed.has(c.name));
          const client = connect(target);
          try {
            const trial = await trialCodecs(
              client,
              cols.map((c) => ({ name: c.name, type: c.type, codec: codecFor(profile, c.name) })),
            );
            if (!trial.ok)
              throw ApplicationFailure.create({
                type: FAILURE.CodecRefused,
                nonRetryable: true,
                message: `codec profile "${profile.name}": ClickHouse ${server.version} refuses CODEC(${trial.column.codec}) on column ${trial.column.name} ${trial.column.type} (trial \`${trial.statement}\`): ${trial.error}${trial.suggestion ? ` — ${trial.suggestion}` : ''}`,
              });
          } finally {
            await client.close();
          }
        }
      }
      const result: ProvisionResult = {
        target,
        server,
        restartable: capabilitiesOf(target).restartable,
        ...(skipReason ? { skipReason } : {}),
        // A server on this host: the cell's later steps must run here (the host's own task queue).
        ...(deps.host && capabilitiesOf(target).onWorkerHost ? { host: hostFacts(deps.host) } : {}),
      };
      const record: ProvisionRecord = { ...result, provisioned_at: new Date().toISOString() };
      writeJsonAtomic(path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), 'provision.json'), record);
      return result;
    },
  };
}
