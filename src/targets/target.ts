/**
 * The Target contract: what every kind of ClickHouse chbench can benchmark implements (embedded,
 * local, external, kubernetes). Activities reach a target only through these verbs and its
 * capability flags, looked up in the registry (`./registry.ts`) by the handle's or spec's `kind`;
 * no activity branches on the kind.
 *
 * Like ClickBench's per-system scripts, each verb does one job and is a no-op where it does not
 * apply. Every verb is idempotent unless said otherwise, because Temporal retries activities and a
 * worker may die half-way.
 *
 * | verb                 | takes                                  | returns                          | throws                                                  |
 * | -------------------- | -------------------------------------- | -------------------------------- | ------------------------------------------------------- |
 * | `provision`          | the target spec, the cell's request    | a {@link TargetHandle}           | Error when it cannot be started/reached, or runs another version than a numeric label asks (message says which) |
 * | `teardown`           | a handle                               | nothing                          | Error when what it holds cannot be removed              |
 * | `teardownCell`       | the spec and request, no handle        | one line on what was removed     | as `teardown`; nothing there is success                 |
 * | `describeTeardown`   | a handle                               | one line on what `teardown` removes | never                                                |
 * | `check`              | a handle                               | {@link TargetCheck}              | never (an unreachable server is `reachable: false`)     |
 * | `runningStatements`  | a handle, a client, a query_id prefix  | query ids running or queued now  | Error when the list cannot be read                      |
 * | `statementProgress`  | a handle, a client, statements, a bound | their counters now, by query_id | Error when the progress cannot be read                  |
 * | `kill`               | a handle, a client, a query_id, options | {@link KillResult}: killed, sent, not killable (why), not found | never (a failure is the result) |
 * | `archiveStatements`  | a handle, a query_id prefix, a file    | the source used, or why none     | never (a failure is the returned `not available: …`)    |
 * | `checkSpec`          | the raw `target` of a spec, its versions | one line per problem           | never                                                   |
 * | `capabilitiesFor?`   | a handle                               | {@link TargetCapabilities} of that handle | never (optional; default `capabilities`)       |
 * | `prepare?`           | a handle                               | nothing, once the worker can connect | Error when the credentials or the route cannot be set up |
 * | `scrapedCounters?`   | a handle, the cell's `target` section  | the server's counters over the network and the capacity to judge them by | never (undefined when there are none) |
 *
 * Handles are stored in workflow history: small, JSON, never a secret (a password is referenced by
 * the name of an environment variable, or by a Kubernetes Secret that `prepare` reads on the worker
 * into the access registry of `src/clickhouse/client.ts`, read by `targetPassword`). Process notions (pid, data directory) stay inside the process targets.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { WatchedTargetVerbs } from '../clickhouse/statement-watch';
import type { TargetSpec } from '../schema/run-spec';
import type { ScrapedCapacity, ScrapedCounterSource } from '../process/cell-counters';
import type {
  KillOptions,
  KillResult,
  ProvisionRequest,
  TargetCapabilities,
  TargetHandle,
  TargetKind,
} from '../schema/target';

/** What {@link Target.check} found. */
export interface TargetCheck {
  /** The server answered `SELECT version()`. */
  reachable: boolean;
  /** Full server version (`version()`), when reachable. */
  version?: string;
  /** Why it is not reachable (first line of the error). */
  error?: string;
}

/** Where {@link Target.checkSpec} runs: on the spec's text alone, or on the worker's host. */
export type SpecCheckPlace = 'input' | 'worker host';

/**
 * One target kind. `S` is the spec of this kind (`Extract<TargetSpec, {kind}>`). The registry installs
 * its {@link WatchedTargetVerbs} (`statementProgress`, `kill`) into the statement watch.
 */
export interface Target<S extends TargetSpec = TargetSpec> extends WatchedTargetVerbs {
  /** The `target.kind` of the spec and the `kind` of every handle this target returns. */
  readonly kind: TargetKind;
  /** What this kind can do; every flag declared (the registry refuses an incomplete set). */
  readonly capabilities: TargetCapabilities;
  /**
   * Start or reach the cell's ClickHouse. Idempotent: a retry adopts what an earlier attempt started
   * (a process target) or finds the database it created (external).
   * @param req run id, cell key, version label, absolute work directory, owning workflow
   */
  provision(spec: S, req: ProvisionRequest): Promise<TargetHandle>;
  /** Stop / drop whatever {@link Target.provision} created for `handle`. Idempotent. */
  teardown(handle: TargetHandle): Promise<void>;
  /**
   * Tear down whatever an attempt to provision this cell may have created, without a handle (the
   * provision failed or was cancelled before it returned one). Idempotent; nothing there is fine.
   * @returns one human line on what was removed
   */
  teardownCell(spec: S, req: ProvisionRequest): Promise<string>;
  /** One human line on what {@link Target.teardown} removes for `handle` (recorded in `teardown.json`). */
  describeTeardown(handle: TargetHandle): string;
  /** Whether the server answers, and its version. Never throws. */
  check(handle: TargetHandle): Promise<TargetCheck>;
  /**
   * Query ids starting with `prefix` that run or wait on the target now: `system.processes`, or the
   * target's own endpoint where `capabilities.runningStatementsFrom` says so.
   * @param client a client of `handle` (used where the list comes from SQL)
   */
  runningStatements(handle: TargetHandle, client: ClickHouseClient, prefix: string): Promise<string[]>;
  /**
   * Progress of statements now (rows read and written, elapsed, memory; merges and mutations for
   * ALTER/OPTIMIZE): `system.processes`, or the target's own endpoint where
   * `capabilities.runningStatementsFrom` says so. A statement the target does not list is absent.
   * @param monitor a client of `handle` on its own connection
   * @param timeoutMs bound of each read, ms
   * @throws Error when the progress cannot be read
   */
  statementProgress: WatchedTargetVerbs['statementProgress'];
  /**
   * Kill the statement `queryId` (`KILL QUERY … ASYNC`, or `SYNC` with `options.sync`); with
   * `options.waitGoneMs`, a target that can stop a running statement (`capabilities.canKillRunning`)
   * waits until it no longer lists it. One that cannot says so: `not killable` with the why.
   * @param client a client of `handle`
   * @returns what happened, with one human line (`text`); never throws
   */
  kill(handle: TargetHandle, client: ClickHouseClient, queryId: string, options?: KillOptions): Promise<KillResult>;
  /**
   * Copy the statements of a cell (query ids starting with `prefix`) into `file` (atomically) as
   * `StatementLine` JSON lines (`schema/target.ts`), before teardown removes the server: the
   * target's own statement log where `capabilities.statementArchive`, else `system.query_log`.
   * @returns the source used, or `not available: <why>`
   */
  archiveStatements(handle: TargetHandle, prefix: string, file: string): Promise<string>;
  /**
   * Problems of this kind's `target` section that the schema cannot see.
   * `'input'`: on the text alone (run when the schema already failed elsewhere, so one pass reports
   * everything); `'worker host'`: on the worker (binaries executable, password variable set).
   * @param target the raw `target` object of the spec (not validated)
   * @param versions the raw `matrix.version` list
   */
  checkSpec(target: Record<string, unknown>, versions: unknown[], place: SpecCheckPlace): string[];
  /**
   * What this handle's server can do, when it depends on the handle (a kubernetes pod may run a real
   * clickhouse-server or the embedded engine, see `KubernetesFacts.server`). Optional: without it
   * every handle has {@link Target.capabilities}. Read through `capabilitiesOf(handle)`.
   */
  capabilitiesFor?(handle: TargetHandle): TargetCapabilities;
  /**
   * Make `handle` reachable from this worker process before anything connects to it: load the
   * credentials it references (a Kubernetes Secret) and open the route it needs (a port-forward),
   * registering both with `setTargetAccess` (`src/clickhouse/client.ts`). Idempotent and cached per
   * process; called by the activity interceptor (`src/temporal/target-access.ts`) before every
   * activity that receives a handle. Optional: targets reachable as they are have none.
   * @throws Error when the credentials cannot be read or the route cannot be opened
   */
  prepare?(handle: TargetHandle): Promise<void>;
  /**
   * The server's cumulative I/O and CPU counters read over the network, for a server that is not on
   * the worker's host (the kubernetes pod's cgroup, from the node's cAdvisor through the API server:
   * `src/targets/kubernetes/cadvisor.ts`), and what its step windows are judged against (the pod's
   * CPU limit, the volume's provisioned rates). The cell steps sample it
   * (`src/activities/support/counter-samples.ts`) and the metrics step labels every window from the
   * samples (`cellScrapedBottleneck`, `src/measure/cell-bottleneck.ts`). Optional: without it a
   * target off the worker's host has no labels from its own counters (only the cloud step's).
   * @param spec the cell's `target` section as the run spec gives it
   * @returns undefined when this handle has none (e.g. a pod not scheduled); never throws
   */
  scrapedCounters?(
    handle: TargetHandle,
    spec: unknown,
  ): { source: ScrapedCounterSource; capacity: ScrapedCapacity } | undefined;
}

/** The spec of one kind. */
export type TargetSpecOf<K extends TargetKind> = Extract<TargetSpec, { kind: K }>;
