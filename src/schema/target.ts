/**
 * Shapes shared by every target provisioner (embedded, local, external, kubernetes).
 *
 * A {@link TargetHandle} is what the `provision` activity returns and what every later activity of a
 * cell receives. It is small, JSON-serialisable and holds no secret: passwords are referenced by the
 * *name* of an environment variable that the worker reads at connection time.
 *
 * The records targets write to disk (label, statement lines) are zod schemas with inferred types,
 * parsed on read. Workflow code imports this module for types only (zod stays out of its bundle).
 */
import { z } from 'zod';

/** How a cell got its ClickHouse. */
export type TargetKind = 'embedded' | 'local' | 'external' | 'kubernetes' | 'docker';

/**
 * Where a `kubernetes` cell runs, read from the API server at provisioning: the pod and PVC chbench
 * created, the node the scheduler picked and the volume the CSI driver made. Recorded in the handle
 * (so in `provision.json`) and used by the cloud metrics and the report's "Kubernetes" section.
 */
export const KubernetesFacts = z.object({
  /** Namespace of the pod, PVC and credentials Secret. */
  namespace: z.string(),
  /** Pod name (derived from run and cell). */
  pod: z.string(),
  /** `metadata.uid` of the pod the handle points at (a re-created pod has another). */
  podUid: z.string(),
  /** PVC name (derived from run and cell). */
  pvc: z.string(),
  /** Container image, e.g. `clickhouse/clickhouse-server:26.7`. */
  image: z.string(),
  /** How the worker reaches ClickHouse: the pod IP (worker inside the cluster) or a port-forward through the API server. */
  access: z.enum(['podIP', 'portForward']),
  /** `status.podIP`. */
  podIP: z.string().nullable(),
  /** `spec.nodeName` of the pod. */
  node: z.string().nullable(),
  /** Node label `node.kubernetes.io/instance-type`, e.g. `m5.xlarge`. */
  instanceType: z.string().nullable(),
  /** Node label `topology.kubernetes.io/zone`, e.g. `us-east-1a`. */
  zone: z.string().nullable(),
  /** Node `spec.providerID`, e.g. `aws:///us-east-1a/i-0123456789abcdef0` (the EC2 instance). */
  providerID: z.string().nullable(),
  /** Name of the PV bound to the PVC. */
  pv: z.string().nullable(),
  /** PV `spec.csi.volumeHandle`, e.g. `vol-0123456789abcdef0` (the EBS volume). */
  volumeHandle: z.string().nullable(),
  /** PV `spec.csi.driver`, e.g. `ebs.csi.aws.com`. */
  csiDriver: z.string().nullable(),
  /** StorageClass of the PVC. */
  storageClass: z.string(),
  /**
   * `parameters` of the StorageClass when the cell was provisioned (gp3: `type`, `iops`, `throughput`,
   * `encrypted`): what the CSI driver created the volume with. The cloud step prices a volume that no
   * longer exists (deleted at teardown, reclaimPolicy Delete) from these. Absent in older records.
   */
  storageClassParameters: z.record(z.string(), z.string()).nullable().optional(),
  /** PVC `spec.resources.requests.storage`, e.g. `100Gi`. */
  storageRequest: z.string(),
  /**
   * The volume this pod uses: `new` (first provision of the cell), `reused` (a re-provision found the
   * cell's PVC bound and landed in its zone), `replaced` (the old volume's zone could not be used; a
   * fresh volume was made and `volumeNote` says why — the cell's data is gone).
   */
  volume: z.enum(['new', 'reused', 'replaced']),
  volumeNote: z.string().optional(),
  /**
   * What answers in the pod, found at provisioning: `clickhouse-server` (a real server image) or
   * `chbench embedded engine` (the chdb engine server of the embedded target, answering
   * `GET /chbench/info`, which is what the test tree's simulated kubelet runs). The target's
   * capabilities and statement verbs follow it.
   */
  server: z.enum(['clickhouse-server', 'chbench embedded engine']),
  /** `status.containerStatuses[0].restartCount` when the handle was made. */
  restartCount: z.number().int(),
  /** Kubeconfig path of the spec (absent: client-node's default lookup). A path, never credentials. */
  kubeconfig: z.string().optional(),
  /** Kubeconfig context of the spec (absent: its current-context). */
  context: z.string().optional(),
});
export type KubernetesFacts = z.infer<typeof KubernetesFacts>;

/**
 * Where a `docker` cell runs, read from the Docker engine at provisioning: the container and volume
 * chbench created (both named and labelled per run and cell), the image, the ports and the limits.
 * Recorded in the handle (so in `provision.json`). No engine address: the worker's `DOCKER_HOST` says it.
 */
export const DockerFacts = z.object({
  /** Container name, `chbench-<run>-<cell>-<hash>`. */
  container: z.string(),
  /** Container id (`Id` of `GET /containers/<name>/json`); a re-created container has another. */
  containerId: z.string(),
  /** Named volume mounted at `/var/lib/clickhouse`, `<container>-data`. */
  volume: z.string(),
  /** Image reference of the spec, e.g. `clickhouse/clickhouse-server:24.8`. */
  image: z.string(),
  /** Image id the container runs (`sha256:…`). */
  imageId: z.string(),
  /** Loopback ports of the server (host networking): HTTP, native TCP, interserver. */
  ports: z.object({ http: z.number().int(), tcp: z.number().int(), interserver: z.number().int() }),
  /** `State.StartedAt` of the container when the handle was made; a restarted container has another. */
  startedAt: z.string(),
  /** Limits applied, one line (`gp3 emulated: … on /dev/vda (254:0), Docker BlkioDeviceReadBps…`); absent without `target.resources`. */
  limits: z.string().optional(),
});
export type DockerFacts = z.infer<typeof DockerFacts>;

/**
 * A reachable ClickHouse for one cell. Stored in workflow history: keep it small, never put a secret here.
 * `TargetRecord` is its zod schema, as `provision.json` records it: `kind` is a plain string there, so
 * a result written by a target kind this chbench does not know still reads.
 */
export const TargetRecord = z.object({
  kind: z.string(),
  /** Base URL of the ClickHouse HTTP interface, e.g. `http://127.0.0.1:18123`. Loopback for embedded/local. */
  url: z.string(),
  /** Database the cell's tables live in. */
  database: z.string(),
  /** ClickHouse user name (`default` unless the spec says otherwise). */
  username: z.string(),
  /** Name of the environment variable holding the password (external targets). Never the password itself. */
  passwordEnv: z.string().optional(),
  /**
   * Path of the file holding the server's password, readable only by the worker's user (the embedded
   * target's `<dataDir>/credential`, mode 0600: a random password per server). The path, never the password.
   */
  passwordFile: z.string().optional(),
  /** PID of the server process chbench started (embedded/local); absent for external. */
  pid: z.number().optional(),
  /** Directory chbench created for this cell's server (data, config, logs); removed at teardown. */
  dataDir: z.string().optional(),
  /** Run id this resource belongs to (label used by gc). */
  runId: z.string(),
  /** Cell key this resource belongs to. */
  cellKey: z.string(),
  /** One human line on how it was provisioned and which package served it, e.g. `npm chdb@3.4.0 (ClickHouse 26.7.2.1) in pid 1234, separate process`. */
  provisionedBy: z.string(),
  /**
   * Where the password is, for targets whose credentials live in a Kubernetes Secret: the Secret's
   * namespace, name and data key. The worker reads it (never the spec, never history). Username is
   * in `username`.
   */
  passwordSecret: z.object({ namespace: z.string(), name: z.string(), key: z.string() }).optional(),
  /** The cell's Kubernetes objects and where they landed (kind `kubernetes` only). */
  kubernetes: KubernetesFacts.optional(),
  /** The cell's container and volume (kind `docker` only). */
  docker: DockerFacts.optional(),
});
export type TargetRecord = z.infer<typeof TargetRecord>;

/** The handle a provisioned target returns ({@link TargetRecord} with a known `kind`). */
export type TargetHandle = Omit<TargetRecord, 'kind'> & { kind: TargetKind };

/**
 * Where the workflow that owns a target lives, written into the target's label so that `chbench gc`
 * asks *that* server and namespace whether the run is still going (never the CLI's own).
 */
export const TemporalOwner = z.object({
  /** Temporal frontend address the worker used (as configured on the worker, e.g. `127.0.0.1:7233`). */
  address: z.string(),
  namespace: z.string(),
  /**
   * The namespace's id (UUID) when the worker could read it. A namespace of the same name whose id
   * differs (server reset, another server now on this address) is not the run's namespace.
   */
  namespaceId: z.string().optional(),
  /** Workflow id of the cell workflow that provisioned the target (`<runId>/<cellKey>`). */
  workflowId: z.string(),
  /** Execution (run) id of that cell workflow. */
  workflowRunId: z.string(),
  /** Workflow id of the matrix workflow (the chbench run id). */
  matrixWorkflowId: z.string(),
});
export type TemporalOwner = z.infer<typeof TemporalOwner>;

/** Which process-based target a label describes. */
export const ProcessTargetKind = z.enum(['embedded', 'local']);
export type ProcessTargetKind = z.infer<typeof ProcessTargetKind>;

/**
 * Content of `<dataDir>/chbench-target.json`, the label of a server process chbench started
 * (`src/targets/process/cell-dir.ts`). Written once the server answers `/ping`; read by adoption, gc
 * and the process checks. JSON, no secret.
 */
export const TargetLabel = z.object({
  /** Run id the server belongs to (what `gc` filters on). */
  runId: z.string(),
  /** Cell key the server belongs to. */
  cellKey: z.string(),
  kind: ProcessTargetKind,
  /** PID of the server process. */
  pid: z.number().int(),
  /** Loopback ports the server listens on: `http` always, `tcp` for a ClickHouse binary. */
  ports: z.object({ http: z.number().int(), tcp: z.number().int().optional() }),
  /** Base URL of the HTTP interface, `http://127.0.0.1:<ports.http>`. */
  url: z.string(),
  /** Absolute path of the cell's directory (the one holding this label). */
  dataDir: z.string(),
  /** ISO-8601 UTC time the label was written (≈ the time the server became ready). */
  startedAt: z.string(),
  /** The human line that goes into `TargetHandle.provisionedBy`. */
  provisionedBy: z.string(),
  /** The server's credential file (`TargetRecord.passwordFile`), when it requires one. */
  passwordFile: z.string().optional(),
  /**
   * Where the owning workflow lives (Temporal address, namespace, workflow ids). Absent in labels
   * written by older versions or outside a workflow: `gc` then keeps the server unless forced.
   */
  owner: TemporalOwner.optional(),
});
export type TargetLabel = z.infer<typeof TargetLabel>;

/**
 * One line of a cell's statement archive (`server-log.jsonl`, written by a target's
 * `archiveStatements`) and of the embedded server's own `statements.jsonl`: one finished statement.
 * Times are epoch milliseconds.
 */
export const StatementLine = z.object({
  query_id: z.string(),
  /** When the statement started executing; `null` when it never did (cancelled while queued). Second resolution from `system.query_log`. */
  started_at_ms: z.number().nullable(),
  /** When it ended (finished, failed or cancelled). */
  finished_at_ms: z.number(),
  /** It finished without an error. */
  ok: z.boolean(),
});
export type StatementLine = z.infer<typeof StatementLine>;

/** A line of the embedded server's `statements.jsonl`: a {@link StatementLine} with when it arrived and its SQL head. */
export const EmbeddedStatementLine = StatementLine.extend({
  /** When the server received the request, epoch ms. */
  received_at_ms: z.number(),
  /** First 120 characters of the statement. */
  sql_head: z.string(),
});
export type EmbeddedStatementLine = z.infer<typeof EmbeddedStatementLine>;

/** Request to provision a target for one cell. */
export interface ProvisionRequest {
  runId: string;
  cellKey: string;
  /** ClickHouse version label from the matrix (e.g. `26.7`, `18.16`). */
  version: string;
  /** Root directory under which per-cell directories are created (absolute path). */
  workDir: string;
  /** The workflow this target belongs to (recorded in the label for gc); absent outside a workflow. */
  owner?: TemporalOwner;
}

/**
 * What a target kind can and cannot do. Activities and the measurement method ask these flags, never
 * `handle.kind`. Every target kind declares all of them; the registry (`src/targets/registry.ts`) refuses a
 * target whose set is incomplete.
 */
export interface TargetCapabilities {
  /**
   * The server runs on the worker's own host (a process chbench started). True for `embedded` and
   * `local`; false for `external` (an external URL on loopback may be a port-forward to another host)
   * and `kubernetes`. Decides whether the OS page cache can be dropped for a cold run and whether
   * other chbench servers on this host can disturb a run.
   */
  onWorkerHost: boolean;
  /**
   * A server of this kind reached at a loopback URL (127.0.0.0/8, ::1, localhost) probably runs on the
   * worker's host, so the worker's host load is recorded for its cells, labelled as probable
   * (`HostActivity.scope`). True for `external` (a loopback URL is a server on this host in the common
   * case; a port-forward would not be); false for `kubernetes` (its loopback URL is the port-forward to
   * the pod). For kinds `onWorkerHost` the load is recorded as the server's host whatever this says.
   * Nothing else assumes the host is shared: page-cache drops and host disk counters follow `onWorkerHost` only.
   */
  loopbackMeansWorkerHost: boolean;
  /** A running statement can be stopped with `KILL QUERY … SYNC` (on the embedded engine: where its build has a second session; other builds refuse, and the statement is waited for). */
  canKillRunning: boolean;
  /**
   * Where per-run counters (ProfileEvents) come from when `system.query_log` is not available:
   * `system.events` differences (embedded: one statement at a time, so the difference is the run's)
   * or `none`.
   */
  countersWithoutQueryLog: 'system.events' | 'none';
  /**
   * Where the rows/bytes read by a statement are reported: `http summary` (the `X-ClickHouse-Summary`
   * header of a real server) or `output statistics` (the embedded engine's own statistics).
   */
  summaryReadSource: 'http summary' | 'output statistics';
  /** Running statements are listed by the target's own endpoint (embedded `/chbench/running`) rather than `system.processes`. */
  runningStatementsFrom: 'system.processes' | 'target endpoint';
  /**
   * The server can be restarted by chbench (a process it owns); external servers cannot. Carried to
   * the cell workflow in the provision result: a lost restartable target is provisioned again, a
   * lost non-restartable one fails the cell (`TargetUnavailable`).
   */
  restartable: boolean;
  /** The cell's statements are archived at teardown (the embedded server's statement log). */
  statementArchive: boolean;
}

/** Options of a target's `kill` verb (`src/targets/target.ts`). */
export interface KillOptions {
  /** `KILL QUERY … SYNC`: the server answers once the statement has ended. @default false (`ASYNC`) */
  sync?: boolean;
  /**
   * After an `ASYNC` kill on a target that can stop a running statement, wait up to this long (ms)
   * until the server no longer lists it (looked at every 500 ms). @default 0 (do not wait)
   */
  waitGoneMs?: number;
  /** Called at each look of that wait (the statement watch heartbeats there). */
  onWait?: () => void;
  /** Bound of each statement the verb sends, ms. @default the client's request timeout */
  timeoutMs?: number;
  /** query_id prefix of the statements the verb sends (`<tag>-<uuid>`). @default one chosen by the client */
  queryIdTag?: string;
}

/**
 * What a target's `kill` verb did. `text` is one human line, used verbatim in `StatementStuck`
 * messages: `killed …`, `KILL QUERY sent…`, `not killed: <why>`, `not found …`.
 */
export type KillResult =
  /** The statement stopped: `SYNC` answered, or it was no longer listed within `waitGoneMs`. */
  | { outcome: 'killed'; text: string }
  /** The KILL was accepted; not waited for, or still listed after `waitGoneMs`. */
  | { outcome: 'sent'; text: string }
  /** The target refused (the embedded engine cannot stop a chunk it computes) or the KILL failed; `why` is the first line of the error. */
  | { outcome: 'not killable'; why: string; text: string }
  /** No statement with that query_id runs or waits on the target. */
  | { outcome: 'not found'; text: string };
