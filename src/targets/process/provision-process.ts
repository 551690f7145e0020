/**
 * The one provisioning skeleton of every target whose server is a process chbench starts on the
 * worker's host (embedded, local):
 *
 *   lock the cell → record the owner → adopt a live server of an earlier attempt (check its version)
 *   → stop a stale one (keep its data) → spawn → wait for `/ping` → read and check the version →
 *   write the label → handle.
 *
 * A target supplies only what differs ({@link ProcessServer}): how to spawn its server in the cell
 * directory and how to read what it runs. The version rule is `versionMatchesLabel`
 * (`src/schema/version.ts`), the same one the provision activity applies to every target.
 */
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../schema/failures';
import type { ProvisionRequest, TargetHandle } from '../../schema/target';
import { versionMatchesLabel } from '../../schema/version';
import { cellDataDir, recordOwner, writeLabel, type ProcessTargetKind, type TargetLabel } from './cell-dir';
import { findRunningServer, handleFromLabel, tryAdopt } from './adopt';
import { withCellLock } from './cell-lock';
import { waitForPing } from './ping';
import { stopProcess } from './proc';
import { describeLimits, resourceLimits, ResourcesSpec } from '../../schema/resources';
import {
  addToCgroup,
  blockDeviceOf,
  cgroupPidsOf,
  writeCellCgroup,
  CgroupUnavailableError,
  createCellCgroup,
  planCgroup,
  type CellCgroup,
} from '../../process/cgroup';

/** A server process that {@link ProcessServer.spawn} started and whose HTTP URL is known. */
export interface SpawnedServer {
  pid: number;
  /** Base URL of its HTTP interface, `http://127.0.0.1:<ports.http>`. */
  url: string;
  /** Loopback ports it listens on (recorded in the label). */
  ports: TargetLabel['ports'];
  /** Files whose tails go into a start failure's message (its stdout/stderr log first). */
  logFiles: string[];
  /** Byte size of each of `logFiles` just before the start, so {@link ProcessServer.retryStart} reads only this start's output. */
  logOffsets?: number[];
}

/** What a running server says about itself, read over HTTP once it answers `/ping`. */
export interface ServerFacts {
  /** Full ClickHouse version, e.g. `26.7.2.1` (`version()`, or the embedded `/chbench/info`). */
  version: string;
  /** The pid and directory the server reports, when it reports them (checked against what was spawned). */
  pid?: number;
  dataDir?: string;
}

/** The part of provisioning that differs between process targets. */
export interface ProcessServer<F extends ServerFacts = ServerFacts> {
  kind: ProcessTargetKind;
  /** Names the server in a version mismatch, e.g. `embedded target (pypi chdb==3.1.2)`. */
  who: string;
  /** What to do about a version mismatch (default: relabel the binary or point the label at another). */
  mismatchHint?: string;
  /** Milliseconds a fresh server gets to become reachable and answer `/ping`. */
  startTimeoutMs: number;
  /** Milliseconds between SIGTERM and SIGKILL when a stale server of an earlier attempt is stopped. */
  stopGraceMs: number;
  /** Milliseconds between SIGTERM and SIGKILL when a server that failed to start is stopped. */
  failedStartGraceMs: number;
  /** How many starts to try when {@link ProcessServer.retryStart} says the failure was transient. @default 1 */
  startAttempts?: number;
  /**
   * Start the server in `dataDir` (which exists; no server of this cell runs) and return once its
   * URL is known (not yet necessarily answering).
   * @param cgroupProcs the cell cgroup's `cgroup.procs` files (under `target.resources`): the server
   *   must join them before it execs (`spawnDetached` `cgroupProcs`), so no early I/O escapes the limits
   * @throws Error when it cannot be started (the skeleton stops what was started, keeping the directory)
   */
  spawn(dataDir: string, cgroupProcs?: readonly string[]): Promise<SpawnedServer>;
  /** Read the server's facts (it answers `/ping`). @throws Error when it answers wrongly */
  readFacts(url: string, dataDir: string): Promise<F>;
  /** The file holding the password the server requires (the embedded server's credential), or undefined. */
  passwordFile?(dataDir: string): string | undefined;
  /** The `provisionedBy` line of a freshly started server in `dataDir`. */
  describe(server: SpawnedServer, facts: F, dataDir: string): string;
  /** Whether a failed start is worth another attempt (e.g. its port was taken meanwhile). */
  retryStart?(server: SpawnedServer, error: unknown): boolean;
}

/**
 * Provision (or adopt) the process server of one cell.
 *
 * Idempotent: a live server an earlier attempt started for this cell that answers `/ping` is adopted
 * (nothing is started); a process left half-started is stopped first, its directory kept and reused.
 * Concurrent attempts for the same cell are serialised by `<dataDir>/provision.lock`.
 *
 * @returns the handle `{kind, url, database: 'default', username: 'default', pid, dataDir, runId, cellKey, provisionedBy}`
 * @throws ApplicationFailure `VersionMismatch` (non-retryable) `<who> is ClickHouse <actual>, but the
 *   cell asks for version <label>` when the server runs another version (a fresh server is then
 *   stopped and its directory removed: the same binary answers the same on every attempt); the start
 *   failure (log tails included) otherwise, the directory kept for inspection
 */
export async function provisionProcess<F extends ServerFacts>(
  server: ProcessServer<F>,
  req: ProvisionRequest,
  resources?: ResourcesSpec,
): Promise<TargetHandle> {
  const dataDir = cellDataDir(req.workDir, req.runId, req.cellKey);
  const limiter = resources ? cellLimiter(resources, req, dataDir) : undefined;
  return withCellLock(dataDir, () => provisionLocked(server, req, dataDir, limiter));
}

/** How a cell's `target.resources` is applied to its server pid, and the line saying so. */
interface CellLimiter {
  /** Make (or reuse) the cell's cgroup with its limits, recorded in `<dataDir>/cgroup.json`; the server joins it before it execs. */
  prepare(): CellCgroup;
  /** Place an adopted server in the group (idempotent). */
  apply(pid: number): CellCgroup;
  /** @throws Error when `pid` is not in every directory of `cg` (the server must never run outside its limits) */
  check(cg: CellCgroup, pid: number): void;
  describe(cg: CellCgroup): string;
  /** The memory limit applied, bytes (`target.resources.memory`), if any. */
  memoryBytes?: number;
}

/**
 * How many processes of the cell's cgroup the kernel's OOM killer killed: `oom_kill` of the memory
 * controller's `memory.oom_control` (v1) or `memory.events` (v2). 0 when unreadable (an older kernel
 * without the counter, a removed group).
 */
export function oomKillsOf(cg: CellCgroup): number {
  for (const dir of cg.dirs)
    for (const file of ['memory.events', 'memory.oom_control']) {
      try {
        const m = /^oom_kill (\d+)$/m.exec(readFileSync(path.join(dir, file), 'utf8'));
        if (m) return Number(m[1]);
      } catch {
        /* not this controller's directory */
      }
    }
  return 0;
}

/**
 * The non-retryable failure of a server the kernel's OOM killer killed while it started (the cell
 * cgroup's `oom_kill` counter, {@link oomKillsOf}), naming the memory limit; undefined when no memory
 * limit applies or nothing was killed.
 */
function oomFailure(who: string, limiter: CellLimiter, cg: CellCgroup, e: unknown): ApplicationFailure | undefined {
  const limit = limiter.memoryBytes;
  const kills = limit === undefined ? 0 : oomKillsOf(cg);
  if (!kills) return undefined;
  return ApplicationFailure.create({
    type: FAILURE.InvalidSpec,
    nonRetryable: true,
    message: `${who} was killed by the kernel's OOM killer ${kills} time(s) while starting: target.resources.memory ${limit} bytes (${(limit! / 1048576).toFixed(1)} MiB) is too little for this server (cgroup ${cg.name}, oom_kill ${kills}); give it more memory. First error: ${((e as Error)?.message ?? String(e)).split('\n')[0].slice(0, 300)}`,
  });
}

/**
 * Check, before anything starts, that the cell's limits can be applied on this host (root, the
 * controllers, the data directory's block device), and return how to apply them.
 * @throws ApplicationFailure `TargetUnavailable` (non-retryable) naming what is missing: a cell is
 *   never run unthrottled under a profile's label
 */
function cellLimiter(resources: ResourcesSpec, req: ProvisionRequest, dataDir: string): CellLimiter {
  const limits = resourceLimits(resources);
  try {
    const plan = planCgroup(limits);
    const device = limits.volume ? blockDeviceOf(path.dirname(dataDir)) : undefined;
    const prepare = (): CellCgroup => {
      const cg = createCellCgroup(plan, req.runId, req.cellKey, limits, device);
      writeCellCgroup(dataDir, cg);
      return cg;
    };
    return {
      prepare,
      memoryBytes: limits.memoryBytes,
      apply(pid) {
        const cg = prepare();
        addToCgroup(cg, pid);
        return cg;
      },
      check(cg, pid) {
        const missing = cg.dirs.filter((d) => !cgroupPidsOf(d).includes(pid));
        if (missing.length) throw new Error(`server pid ${pid} is not in its cell cgroup (${missing.join(', ')})`);
      },
      describe: (cg) =>
        `${describeLimits(limits)}${device ? ` on ${device.name} (${device.major}:${device.minor})` : ''}, cgroup v${cg.version}${
          cg.version === 1 ? (limits.volume ? ' blkio (buffered writeback not throttled)' : '') : ' io.max'
        } ${cg.name}`,
    };
  } catch (e) {
    if (!(e instanceof CgroupUnavailableError)) throw e;
    throw ApplicationFailure.create({
      type: FAILURE.TargetUnavailable,
      nonRetryable: true,
      message: e.message,
      cause: e,
    });
  }
}

/** The non-retryable `VersionMismatch` when `actual` (the server's `version()`) does not match the cell's `label`. */
function versionError(server: ProcessServer<ServerFacts>, actual: string, label: string): Error | undefined {
  return versionMatchesLabel(actual, label)
    ? undefined
    : ApplicationFailure.create({
        type: FAILURE.VersionMismatch,
        nonRetryable: true,
        message: `${server.who} is ClickHouse ${actual}, but the cell asks for version ${label}; ${
          server.mismatchHint ??
          'label the binary with the version it runs, or point the label at a binary of that version'
        }`,
        details: [{ actual, label }],
      });
}

async function provisionLocked<F extends ServerFacts>(
  server: ProcessServer<F>,
  req: ProvisionRequest,
  dataDir: string,
  limiter: CellLimiter | undefined,
): Promise<TargetHandle> {
  recordOwner(dataDir, req.owner);
  const adopted = await tryAdopt(dataDir, { runId: req.runId, cellKey: req.cellKey, kind: server.kind });
  if (adopted) {
    const wrong = versionError(server, (await server.readFacts(adopted.url, dataDir)).version, req.version);
    if (wrong) throw wrong;
    // A worker crash left the server in its cgroup: adoption keeps it there (re-placing it is idempotent).
    limiter?.apply(adopted.pid);
    return handleFromLabel(adopted);
  }

  // Something half-started by an earlier attempt (or hung): stop it, keep the data.
  const stale = findRunningServer(dataDir);
  if (stale) await stopProcess(stale.pid, dataDir, server.stopGraceMs, { keepDir: true });

  for (let attempt = 1; ; attempt++) {
    // The group exists first and the server joins it before it execs: not one read escapes the limits.
    const cg = limiter?.prepare();
    // Killed by the kernel for the cell's memory limit (before it listened, or later while starting):
    // the same limit kills it on every start, so the failure says so and is not retried.
    const oomOr = (e: unknown): unknown => (cg && limiter ? (oomFailure(server.who, limiter, cg, e) ?? e) : e);
    const spawned = await server
      .spawn(
        dataDir,
        cg?.dirs.map((d) => path.join(d, 'cgroup.procs')),
      )
      .catch((e: unknown) => Promise.reject(oomOr(e)));
    let wrongVersion = false;
    try {
      if (limiter && cg) limiter.check(cg, spawned.pid);
      const limited = limiter && cg ? limiter.describe(cg) : undefined;
      await waitForPing(spawned.url, server.startTimeoutMs, { pid: spawned.pid, logFiles: spawned.logFiles });
      const facts = await server.readFacts(spawned.url, dataDir);
      const wrong = versionError(server, facts.version, req.version);
      if (wrong) {
        wrongVersion = true;
        throw wrong;
      }
      if (
        (facts.pid !== undefined && facts.pid !== spawned.pid) ||
        (facts.dataDir !== undefined && path.resolve(facts.dataDir) !== dataDir)
      )
        throw new Error(
          `${server.kind} server at ${spawned.url} reports pid ${facts.pid} / ${facts.dataDir}, expected pid ${spawned.pid} / ${dataDir}`,
        );
      const label: TargetLabel = {
        runId: req.runId,
        cellKey: req.cellKey,
        kind: server.kind,
        pid: spawned.pid,
        ports: spawned.ports,
        url: spawned.url,
        dataDir,
        startedAt: new Date().toISOString(),
        provisionedBy: server.describe(spawned, facts, dataDir) + (limited ? `; ${limited}` : ''),
        ...(req.owner ? { owner: req.owner } : {}),
        ...(server.passwordFile?.(dataDir) ? { passwordFile: server.passwordFile(dataDir)! } : {}),
      };
      writeLabel(label);
      return handleFromLabel(label);
    } catch (e) {
      // A wrong version will not get better on retry: remove everything. Otherwise keep the
      // directory (logs, and data of an earlier attempt) for the retry and for inspection.
      await stopProcess(spawned.pid, dataDir, server.failedStartGraceMs, { keepDir: !wrongVersion }).catch(
        () => undefined,
      );
      const oom = oomOr(e);
      if (oom !== e) throw oom;
      if (!wrongVersion && attempt < (server.startAttempts ?? 1) && server.retryStart?.(spawned, e)) continue;
      throw e;
    }
  }
}

/**
 * `checkSpec` of the process targets for `target.resources`: on the worker host, the problems that
 * would make provisioning refuse (not root, a cgroup controller missing), one line each.
 */
export function resourcesProblems(target: Record<string, unknown>, place: 'input' | 'worker host'): string[] {
  if (place !== 'worker host' || target.resources === undefined) return [];
  const r = ResourcesSpec.safeParse(target.resources);
  if (!r.success) return []; // the schema reports it
  // A CFS quota above the host's cores limits nothing: the cell would be labelled with CPUs it never had.
  const cores = availableParallelism();
  if (r.data.cpus !== undefined && r.data.cpus > cores)
    return [
      `target.resources.cpus: ${r.data.cpus} is more than the worker host's ${cores} cores (os.availableParallelism()); a quota above them limits nothing`,
    ];
  try {
    planCgroup(resourceLimits(r.data));
    return [];
  } catch (e) {
    if (e instanceof CgroupUnavailableError) return e.missing.map((m) => `target.resources: ${m}`);
    throw e;
  }
}
