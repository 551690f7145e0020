"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.EmbeddedStatementLine = exports.StatementLine = exports.TargetLabel = exports.ProcessTargetKind = exports.TemporalOwner = exports.KubernetesFacts = void 0;
/**
 * Shapes shared by every target provisioner (embedded, local, external, and later kubernetes).
 *
 * A {@link TargetHandle} is what the `provision` activity returns and what every later activity of a
 * cell receives. It is small, JSON-serialisable and holds no secret: passwords are referenced by the
 * *name* of an environment variable that the worker reads at connection time.
 *
 * The records targets write to disk (label, statement lines) are zod schemas with inferred types,
 * parsed on read. Workflow code imports this module for types only (zod stays out of its bundle).
 */
const zod_1 = require("zod");
/**
 * Where a `kubernetes` cell runs, read from the API server at provisioning: the pod and PVC chbench
 * created, the node the scheduler picked and the volume the CSI driver made. Recorded in the handle
 * (so in `provision.json`) and used by the cloud metrics and the report's "Kubernetes" section.
 */
exports.KubernetesFacts = zod_1.z.object({
    /** Namespace of the pod, PVC and credentials Secret. */
    namespace: zod_1.z.string(),
    /** Pod name (derived from run and cell). */
    pod: zod_1.z.string(),
    /** `metadata.uid` of the pod the handle points at (a re-created pod has another). */
    podUid: zod_1.z.string(),
    /** PVC name (derived from run and cell). */
    pvc: zod_1.z.string(),
    /** Container image, e.g. `clickhouse/clickhouse-server:26.7`. */
    image: zod_1.z.string(),
    /** How the worker reaches ClickHouse: the pod IP (worker inside the cluster) or a port-forward through the API server. */
    access: zod_1.z.enum(['podIP', 'portForward']),
    /** `status.podIP`. */
    podIP: zod_1.z.string().nullable(),
    /** `spec.nodeName` of the pod. */
    node: zod_1.z.string().nullable(),
    /** Node label `node.kubernetes.io/instance-type`, e.g. `m5.xlarge`. */
    instanceType: zod_1.z.string().nullable(),
    /** Node label `topology.kubernetes.io/zone`, e.g. `us-east-1a`. */
    zone: zod_1.z.string().nullable(),
    /** Node `spec.providerID`, e.g. `aws:///us-east-1a/i-0123456789abcdef0` (the EC2 instance). */
    providerID: zod_1.z.string().nullable(),
    /** Name of the PV bound to the PVC. */
    pv: zod_1.z.string().nullable(),
    /** PV `spec.csi.volumeHandle`, e.g. `vol-0123456789abcdef0` (the EBS volume). */
    volumeHandle: zod_1.z.string().nullable(),
    /** PV `spec.csi.driver`, e.g. `ebs.csi.aws.com`. */
    csiDriver: zod_1.z.string().nullable(),
    /** StorageClass of the PVC. */
    storageClass: zod_1.z.string(),
    /**
     * `parameters` of the StorageClass when the cell was provisioned (gp3: `type`, `iops`, `throughput`,
     * `encrypted`): what the CSI driver created the volume with. The cloud step prices a volume that no
     * longer exists (deleted at teardown, reclaimPolicy Delete) from these. Absent in older records.
     */
    storageClassParameters: zod_1.z.record(zod_1.z.string(), zod_1.z.string()).nullable().optional(),
    /** PVC `spec.resources.requests.storage`, e.g. `100Gi`. */
    storageRequest: zod_1.z.string(),
    /**
     * The volume this pod uses: `new` (first provision of the cell), `reused` (a re-provision found the
     * cell's PVC bound and landed in its zone), `replaced` (the old volume's zone could not be used; a
     * fresh volume was made and `volumeNote` says why — the cell's data is gone).
     */
    volume: zod_1.z.enum(['new', 'reused', 'replaced']),
    volumeNote: zod_1.z.string().optional(),
    /**
     * What answers in the pod, found at provisioning: `clickhouse-server` (a real server image) or
     * `chbench embedded engine` (the chdb engine server of the embedded target, answering
     * `GET /chbench/info`, which is what the test tree's simulated kubelet runs). The target's
     * capabilities and statement verbs follow it.
     */
    server: zod_1.z.enum(['clickhouse-server', 'chbench embedded engine']),
    /** `status.containerStatuses[0].restartCount` when the handle was made. */
    restartCount: zod_1.z.number().int(),
    /** Kubeconfig path of the spec (absent: client-node's default lookup). A path, never credentials. */
    kubeconfig: zod_1.z.string().optional(),
    /** Kubeconfig context of the spec (absent: its current-context). */
    context: zod_1.z.string().optional(),
});
/**
 * Where the workflow that owns a target lives, written into the target's label so that `chbench gc`
 * asks *that* server and namespace whether the run is still going (never the CLI's own).
 */
exports.TemporalOwner = zod_1.z.object({
    /** Temporal frontend address the worker used (as configured on the worker, e.g. `127.0.0.1:7233`). */
    address: zod_1.z.string(),
    namespace: zod_1.z.string(),
    /**
     * The namespace's id (UUID) when the worker could read it. A namespace of the same name whose id
     * differs (server reset, another server now on this address) is not the run's namespace.
     */
    namespaceId: zod_1.z.string().optional(),
    /** Workflow id of the cell workflow that provisioned the target (`<runId>/<cellKey>`). */
    workflowId: zod_1.z.string(),
    /** Execution (run) id of that cell workflow. */
    workflowRunId: zod_1.z.string(),
    /** Workflow id of the matrix workflow (the chbench run id). */
    matrixWorkflowId: zod_1.z.string(),
});
/** Which process-based target a label describes. */
exports.ProcessTargetKind = zod_1.z.enum(['embedded', 'local']);
/**
 * Content of `<dataDir>/chbench-target.json`, the label of a server process chbench started
 * (`src/targets/process/cell-dir.ts`). Written once the server answers `/ping`; read by adoption, gc
 * and the process checks. JSON, no secret.
 */
exports.TargetLabel = zod_1.z.object({
    /** Run id the server belongs to (what `gc` filters on). */
    runId: zod_1.z.string(),
    /** Cell key the server belongs to. */
    cellKey: zod_1.z.string(),
    kind: exports.ProcessTargetKind,
    /** PID of the server process. */
    pid: zod_1.z.number().int(),
    /** Loopback ports the server listens on: `http` always, `tcp` for a ClickHouse binary. */
    ports: zod_1.z.object({ http: zod_1.z.number().int(), tcp: zod_1.z.number().int().optional() }),
    /** Base URL of the HTTP interface, `http://127.0.0.1:<ports.http>`. */
    url: zod_1.z.string(),
    /** Absolute path of the cell's directory (the one holding this label). */
    dataDir: zod_1.z.string(),
    /** ISO-8601 UTC time the label was written (≈ the time the server became ready). */
    startedAt: zod_1.z.string(),
    /** The human line that goes into `TargetHandle.provisionedBy`. */
    provisionedBy: zod_1.z.string(),
    /**
     * Where the owning workflow lives (Temporal address, namespace, workflow ids). Absent in labels
     * written by older versions or outside a workflow: `gc` then keeps the server unless forced.
     */
    owner: exports.TemporalOwner.optional(),
});
/**
 * One line of a cell's statement archive (`server-log.jsonl`, written by a target's
 * `archiveStatements`) and of the embedded server's own `statements.jsonl`: one finished statement.
 * Times are epoch milliseconds.
 */
exports.StatementLine = zod_1.z.object({
    query_id: zod_1.z.string(),
    /** When the statement started executing; `null` when it never did (cancelled while queued). Second resolution from `system.query_log`. */
    started_at_ms: zod_1.z.number().nullable(),
    /** When it ended (finished, failed or cancelled). */
    finished_at_ms: zod_1.z.number(),
    /** It finished without an error. */
    ok: zod_1.z.boolean(),
});
/** A line of the embedded server's `statements.jsonl`: a {@link StatementLine} with when it arrived and its SQL head. */
exports.EmbeddedStatementLine = exports.StatementLine.extend({
    /** When the server received the request, epoch ms. */
    received_at_ms: zod_1.z.number(),
    /** First 120 characters of the statement. */
    sql_head: zod_1.z.string(),
});
//# sourceMappingURL=target.js.map