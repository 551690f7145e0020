"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.collectGarbage = collectGarbage;
exports.collectKubernetesGarbage = collectKubernetesGarbage;
/**
 * `chbench gc`: find what runs left behind on this worker host — server processes and their
 * directories under the work dir — and remove those whose workflows are **positively** closed.
 *
 * Each directory's label (or owner file) records where its workflow lives: the worker's Temporal
 * address and namespace, the namespace's id, and the matrix and cell workflow ids
 * ({@link TemporalOwner}). gc asks *that* server, whatever server the CLI itself points at, and
 * removes a server only when:
 * - the matrix and the cell workflow are both closed there (completed, failed, cancelled,
 *   terminated, timed out), or
 * - a workflow is not found there **and** the namespace's id equals the one recorded at
 *   provisioning. Describe reads the workflow's persisted state, not the visibility index, so an
 *   open workflow is always found in its own namespace; it disappears only after it closed (retention,
 *   deletion). An id that differs means another namespace of the same name (a reset server, another
 *   server now on that address, where the run may still be going elsewhere) → kept.
 *
 * Everything else is kept and the reason printed: the server unreachable, the namespace missing or a
 * different one, a workflow still open, an error while asking, a label without owner (older chbench,
 * or a server provisioned outside a workflow). `--force` judges the latter by the CLI's own server
 * and namespace (the behaviour before owners were recorded), at the user's explicit request.
 *
 * Kubernetes ({@link collectKubernetesGarbage}): the pods and PVCs labelled
 * `app.kubernetes.io/managed-by=chbench`, judged by the owner in their `chbench.io/owner` annotation
 * the same way; the shared Namespace and StorageClass are never deleted.
 */
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("@temporalio/client");
const process_1 = require("./process");
const target_1 = require("../schema/target");
const kube_1 = require("./kubernetes/kube");
const provision_1 = require("./kubernetes/provision");
const manifests_1 = require("./kubernetes/manifests");
/** Close statuses: the execution is over. Anything else (RUNNING, CONTINUED_AS_NEW, unknown) is not. */
const CLOSED = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT']);
/** Connections to the Temporal servers named in labels, one per address, closed at the end. */
class Servers {
    timeoutMs;
    conns = new Map();
    constructor(timeoutMs) {
        this.timeoutMs = timeoutMs;
    }
    connect(address) {
        let p = this.conns.get(address);
        if (!p) {
            p = client_1.Connection.connect({ address, connectTimeout: this.timeoutMs });
            p.catch(() => undefined);
            this.conns.set(address, p);
        }
        return p;
    }
    async close() {
        for (const p of this.conns.values())
            await p.then((c) => c.close()).catch(() => undefined);
    }
}
/** Status name of the latest execution of `workflowId`, or `NOT_FOUND`. @throws on other errors */
async function status(client, workflowId) {
    try {
        return (await client.workflow.getHandle(workflowId).describe()).status.name;
    }
    catch (e) {
        if (e.name === 'WorkflowNotFoundError')
            return 'NOT_FOUND';
        throw e;
    }
}
const firstLine = (e) => (e?.message ?? String(e)).split('\n')[0];
/** Decide for a directory whose owner is recorded: ask the owner's server and namespace. */
async function judgeOwned(servers, o) {
    const where = `namespace ${o.namespace} on ${o.address}`;
    let conn;
    try {
        conn = await servers.connect(o.address);
        await conn.workflowService.getSystemInfo({});
    }
    catch (e) {
        return {
            remove: false,
            reason: `Temporal at ${o.address} (where ${o.workflowId} runs) is unreachable, cannot tell whether the run is still going (${firstLine(e)})`,
        };
    }
    let nsId;
    try {
        nsId = (await conn.workflowService.describeNamespace({ namespace: o.namespace })).namespaceInfo?.id ?? undefined;
    }
    catch (e) {
        return {
            remove: false,
            reason: `${where}: the run's namespace cannot be read there (${firstLine(e)}); not its server any more?`,
        };
    }
    if (o.namespaceId && nsId && nsId !== o.namespaceId)
        return {
            remove: false,
            reason: `${where} is not the namespace the run was started in (id ${nsId}, label says ${o.namespaceId}: server reset, or another server on this address)`,
        };
    const client = new client_1.Client({ connection: conn, namespace: o.namespace });
    const st = {};
    for (const id of [o.matrixWorkflowId, o.workflowId]) {
        try {
            st[id] = await status(client, id);
        }
        catch (e) {
            return { remove: false, reason: `${where}: cannot describe ${id} (${firstLine(e)})` };
        }
    }
    for (const [id, s] of Object.entries(st)) {
        if (s === 'NOT_FOUND') {
            if (!o.namespaceId || nsId !== o.namespaceId)
                return {
                    remove: false,
                    reason: `${where}: workflow ${id} not found, and the label has no namespace id to prove this is the run's namespace`,
                };
        }
        else if (!CLOSED.has(s))
            return { remove: false, reason: `workflow ${id} is ${s.toLowerCase()} (${where})` };
    }
    const desc = Object.entries(st)
        .map(([id, s]) => `${id} ${s === 'NOT_FOUND' ? 'gone (not found in its own namespace, same id)' : s.toLowerCase()}`)
        .join(', ');
    return { remove: true, reason: `${desc} (${where})` };
}
/** `--force` for a directory without owner: judged by the CLI's server (the pre-owner behaviour). */
async function judgeForced(servers, f, runId, cellKey) {
    let client;
    try {
        client = new client_1.Client({ connection: await servers.connect(f.address), namespace: f.namespace });
    }
    catch (e) {
        return {
            remove: false,
            reason: `no owner recorded; --force: Temporal at ${f.address} is unreachable (${firstLine(e)})`,
        };
    }
    const st = [];
    for (const id of [runId, `${runId}/${cellKey}`]) {
        try {
            const s = await status(client, id);
            if (s !== 'NOT_FOUND' && !CLOSED.has(s))
                return {
                    remove: false,
                    reason: `no owner recorded; --force: workflow ${id} is ${s.toLowerCase()} in namespace ${f.namespace} on ${f.address}`,
                };
            st.push(`${id} ${s.toLowerCase()}`);
        }
        catch (e) {
            return {
                remove: false,
                reason: `no owner recorded; --force: cannot describe ${id} on ${f.address} (${firstLine(e)})`,
            };
        }
    }
    return {
        remove: true,
        reason: `no owner recorded; --force: ${st.join(', ')} in namespace ${f.namespace} on ${f.address}`,
    };
}
/**
 * Remove leaked per-cell servers and directories under `workDir`, asking each one's own Temporal
 * server (recorded in its label) whether its run is closed.
 * @param workDir the worker's `CHBENCH_WORK_DIR`
 * @param opts.dryRun list only; opts.force also judge directories without owner (see {@link GcOptions})
 * @returns what was removed and what was kept, each with the reason
 */
async function collectGarbage(workDir, opts = {}) {
    const removed = [];
    const kept = [];
    if (!(0, node_fs_1.existsSync)(workDir))
        return { removed, kept };
    const servers = new Servers(opts.connectTimeoutMs ?? 5000);
    try {
        for (const runDirName of (0, node_fs_1.readdirSync)(workDir)) {
            const dirs = (0, process_1.listCellDirs)(workDir).filter((d) => node_path_1.default.basename(node_path_1.default.dirname(d)) === runDirName);
            for (const dir of dirs) {
                const label = (0, process_1.readLabel)(dir);
                const owner = (0, process_1.readOwner)(dir);
                const runId = owner?.matrixWorkflowId ?? label?.runId ?? runDirName;
                const cellKey = label?.cellKey ?? node_path_1.default.basename(dir);
                const entry = {
                    runId,
                    cellKey,
                    dataDir: dir,
                    ...(label?.pid ? { pid: label.pid } : {}),
                    ...(owner ? { owner } : {}),
                    reason: '',
                };
                const v = owner
                    ? await judgeOwned(servers, owner)
                    : opts.force
                        ? await judgeForced(servers, opts.force, runId, cellKey)
                        : {
                            remove: false,
                            reason: `${label ? 'its label' : 'no label; the directory'} records no Temporal owner (older chbench, or provisioned outside a workflow): cannot tell where its run lives; remove with --force (judged by TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE)`,
                        };
                entry.reason = v.reason;
                if (!v.remove) {
                    kept.push(entry);
                    continue;
                }
                if (!opts.dryRun)
                    await (0, process_1.stopProcess)(undefined, dir, 5000);
                removed.push(entry);
            }
            const runPath = node_path_1.default.join(workDir, runDirName);
            if (!opts.dryRun && (0, node_fs_1.existsSync)(runPath) && (0, node_fs_1.readdirSync)(runPath).length === 0)
                (0, node_fs_1.rmSync)(runPath, { recursive: true, force: true });
        }
    }
    finally {
        await servers.close();
    }
    return { removed, kept };
}
/**
 * Remove the pods and PVCs (label `app.kubernetes.io/managed-by=chbench`) whose owning workflows
 * (annotation `chbench.io/owner`) are positively closed on their own Temporal server, judged exactly
 * as the process targets' directories are; everything else is kept and the reason given. A pod is
 * deleted (and waited for) before its PVC; `reclaimPolicy: Delete` then destroys the volume. The
 * Namespace and the StorageClass are never deleted by gc (other runs and cells share them).
 * @param opts.dryRun list only; `force` is not used here (an object without owner is always kept)
 * @returns what was removed and what was kept, each with the reason
 * @throws Error when the cluster cannot be listed
 */
async function collectKubernetesGarbage(scope, opts = {}) {
    const namespace = scope.namespace ?? 'bench-database';
    const kube = (0, kube_1.kubeFor)(scope);
    const labelSelector = `${manifests_1.MANAGED_BY_LABEL}=${manifests_1.MANAGED_BY_VALUE}`;
    const pods = (await kube.core.listNamespacedPod({ namespace, labelSelector })).items;
    const pvcs = (await kube.core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector })).items;
    const removed = [];
    const kept = [];
    const servers = new Servers(opts.connectTimeoutMs ?? 5000);
    const verdicts = new Map();
    const entryOf = (kind, o) => {
        const md = o.metadata ?? {};
        const a = md.annotations ?? {};
        const l = md.labels ?? {};
        let owner;
        try {
            const p = target_1.TemporalOwner.safeParse(JSON.parse(a[manifests_1.OWNER_ANNOTATION] ?? 'null'));
            if (p.success)
                owner = p.data;
        }
        catch {
            // not JSON: no owner
        }
        return {
            kind,
            namespace,
            name: md.name ?? '',
            runId: a[manifests_1.RUN_ID_ANNOTATION] ?? l[manifests_1.RUN_LABEL] ?? '?',
            cellKey: a[manifests_1.CELL_ANNOTATION] ?? l[manifests_1.CELL_LABEL] ?? '?',
            ...(owner ? { owner } : {}),
            reason: '',
        };
    };
    try {
        // Pods first, so a PVC is deleted only after the pod that mounts it.
        const entries = [...pods.map((p) => entryOf('Pod', p)), ...pvcs.map((p) => entryOf('PersistentVolumeClaim', p))];
        for (const e of entries) {
            let v;
            if (!e.owner)
                v = {
                    remove: false,
                    reason: `no parseable ${manifests_1.OWNER_ANNOTATION} annotation: cannot tell where run ${e.runId} lives (delete it by hand if it is yours)`,
                };
            else {
                const key = JSON.stringify(e.owner);
                v = verdicts.get(key) ?? (await judgeOwned(servers, e.owner));
                verdicts.set(key, v);
            }
            e.reason = v.reason;
            if (!v.remove) {
                kept.push(e);
                continue;
            }
            if (!opts.dryRun) {
                if (e.kind === 'Pod')
                    await (0, provision_1.deletePod)(kube, namespace, e.name, { timeouts: GC_WAITS });
                else
                    await (0, provision_1.deletePvc)(kube, namespace, e.name, { timeouts: GC_WAITS });
            }
            removed.push(e);
        }
    }
    finally {
        await servers.close();
    }
    return { removed, kept };
}
/** Waits of gc's deletes, ms. */
const GC_WAITS = { scheduleMs: 300_000, pvcMs: 300_000, pullMs: 600_000, readyMs: 300_000, watchSilenceMs: 60_000 };
//# sourceMappingURL=gc.js.map