"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.kubernetesTarget = exports.KUBERNETES_CAPABILITIES = exports.forgetKubeClients = exports.cellNames = exports.resetAccess = exports.prepareKubernetes = exports.openForwardCount = exports.closeForwards = exports.provisionKubernetes = void 0;
exports.podLost = podLost;
/**
 * The `kubernetes` target: per cell its own PVC and pod in a Kubernetes cluster (the seed article's
 * EKS setting), rendered from `manifests/` (`render.ts`), provisioned idempotently with watches
 * (`provision.ts`, `watch.ts`), reached at the pod IP or through a port-forward with credentials
 * from a Secret (`access.ts`), removed by teardown after the pod's log and the statements are saved.
 *
 * Capabilities: never on the worker's host; restartable (a lost pod is made again on the same PVC,
 * in the volume's zone). With a real clickhouse-server: like `external` (SQL verbs, HTTP summary,
 * `system.processes`, `system.query_log`). With the chbench embedded engine in the pod
 * (`KubernetesFacts.server`, the test tree's simulated kubelet): the embedded target's flags and
 * statement verbs, `onWorkerHost` false.
 */
const node_fs_1 = require("node:fs");
const path = __importStar(require("node:path"));
const k8s = __importStar(require("@kubernetes/client-node"));
const client_1 = require("../../clickhouse/client");
const process_1 = require("../process");
const fs_1 = require("../../lib/fs");
const run_spec_1 = require("../../schema/run-spec");
const embedded_1 = require("../embedded");
const registry_1 = require("../registry");
const server_verbs_1 = require("../server-verbs");
const access_1 = require("./access");
const kube_1 = require("./kube");
const provision_1 = require("./provision");
const render_1 = require("./render");
var provision_2 = require("./provision");
Object.defineProperty(exports, "provisionKubernetes", { enumerable: true, get: function () { return provision_2.provisionKubernetes; } });
var access_2 = require("./access");
Object.defineProperty(exports, "closeForwards", { enumerable: true, get: function () { return access_2.closeForwards; } });
Object.defineProperty(exports, "openForwardCount", { enumerable: true, get: function () { return access_2.openForwardCount; } });
Object.defineProperty(exports, "prepareKubernetes", { enumerable: true, get: function () { return access_2.prepareKubernetes; } });
Object.defineProperty(exports, "resetAccess", { enumerable: true, get: function () { return access_2.resetAccess; } });
var kube_2 = require("./kube");
Object.defineProperty(exports, "cellNames", { enumerable: true, get: function () { return kube_2.cellNames; } });
Object.defineProperty(exports, "forgetKubeClients", { enumerable: true, get: function () { return kube_2.forgetKubeClients; } });
/** Capabilities with a real clickhouse-server in the pod (the registry's declared set). */
exports.KUBERNETES_CAPABILITIES = {
    onWorkerHost: false,
    canKillRunning: true,
    countersWithoutQueryLog: 'none',
    summaryReadSource: 'http summary',
    runningStatementsFrom: 'system.processes',
    restartable: true,
    statementArchive: false,
};
const embeddedInPod = (h) => h.kubernetes?.server === 'chbench embedded engine';
/** Waits of teardown and check when the handle carries no spec: the spec's defaults. */
const DEFAULT_WAITS = run_spec_1.KubernetesTargetSpec.shape.timeouts.parse(undefined);
/**
 * The embedded engine's own statement log (`GET /chbench/statements`, every statement the server ran,
 * all of them the cell's) copied atomically into `file`, for a pod that runs that engine.
 * @returns the source used
 * @throws Error when the endpoint does not answer 200
 */
async function archiveFromEngineLog(handle, file) {
    const url = (0, client_1.targetUrl)(handle);
    const r = await (0, process_1.httpGet)(`${url}/chbench/statements`, 30_000, (0, client_1.authHeaders)(handle));
    if (r.status !== 200)
        throw new Error(`${url}/chbench/statements: HTTP ${r.status} ${r.body.slice(0, 200)}`);
    (0, fs_1.writeFileAtomic)(file, r.body);
    return 'the engine statement log (GET /chbench/statements)';
}
function kubeOf(handle) {
    return (0, kube_1.kubeFor)((0, access_1.clusterOf)(handle));
}
/**
 * Whether the handle's pod is still the one it points at: same uid, not Failed, not being deleted,
 * container not restarted since (restartCount), Ready.
 * @returns why it is lost, or `undefined` when it is the same pod and Ready
 */
async function podLost(handle) {
    const f = handle.kubernetes;
    if (!f)
        return 'the handle has no kubernetes facts';
    const pod = await (0, kube_1.orMissing)(() => kubeOf(handle).core.readNamespacedPod({ name: f.pod, namespace: f.namespace }));
    const id = `pod ${f.namespace}/${f.pod}`;
    if (!pod)
        return `${id} is gone`;
    if (pod.metadata?.uid !== f.podUid)
        return `${id} was re-created (uid ${pod.metadata?.uid}, the handle's ${f.podUid})`;
    if (pod.metadata?.deletionTimestamp)
        return `${id} is being deleted`;
    const st = pod.status ?? {};
    if (st.phase === 'Failed')
        return `${id} ${st.reason ?? 'Failed'}: ${st.message ?? ''}`.trim();
    const cs = st.containerStatuses?.[0];
    if ((cs?.restartCount ?? 0) > f.restartCount) {
        const last = cs?.lastState?.terminated;
        return `${id}: its container restarted (restartCount ${cs?.restartCount}, was ${f.restartCount}${last ? `; last exit ${last.reason ?? ''} ${last.exitCode}` : ''}): the server lost its state`;
    }
    const ready = st.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status !== 'True')
        return `${id} is not Ready (${ready?.reason ?? st.phase ?? 'unknown'})`;
    return undefined;
}
/** Save the pod's log (`readNamespacedPodLog`) as `pod-<name>.log` in `dir`. @returns a human line, never throws */
async function savePodLog(handle, dir) {
    const f = handle.kubernetes;
    if (!f)
        return 'no pod';
    try {
        const log = await kubeOf(handle).core.readNamespacedPodLog({ name: f.pod, namespace: f.namespace });
        const file = path.join(dir, `pod-${f.pod}.log`);
        (0, fs_1.writeFileAtomic)(file, typeof log === 'string' ? log : String(log));
        return `pod log ${file}`;
    }
    catch (e) {
        return `pod log not saved: ${(0, provision_1.kubeErrorText)(e)}`;
    }
}
/** Delete the cell's pod, then its PVC, each waited until gone (404 = success). */
async function deleteCell(kube, namespace, pod, pvc) {
    const waits = { timeouts: DEFAULT_WAITS };
    await (0, provision_1.deletePod)(kube, namespace, pod, waits);
    // The PV bound to the claim, read before the claim goes (a handle-less teardown knows only the claim).
    const claim = await (0, kube_1.orMissing)(() => kube.core.readNamespacedPersistentVolumeClaim({ name: pvc, namespace }));
    const pvName = claim?.spec?.volumeName;
    await (0, provision_1.deletePvc)(kube, namespace, pvc, waits);
    if (pvName)
        await waitVolumeDeleted(kube, pvName);
}
/**
 * With reclaimPolicy `Delete`, deleting the claim makes the CSI driver delete the volume (the EBS
 * volume) and then the PV, asynchronously: wait until the PV is gone, so a finished teardown means
 * the volume is no longer billed. A PV kept by reclaimPolicy `Retain` is not waited for.
 * @throws Error when the PV still exists after `DEFAULT_WAITS.pvcMs` ms (the volume may still exist and cost)
 */
async function waitVolumeDeleted(kube, pvName) {
    const pv = await (0, kube_1.orMissing)(() => kube.core.readPersistentVolume({ name: pvName }));
    if (!pv || pv.spec?.persistentVolumeReclaimPolicy !== 'Delete')
        return;
    await (0, provision_1.waitGone)(`PV ${pvName} (reclaimPolicy Delete: the CSI driver deletes volume ${pv.spec?.csi?.volumeHandle ?? '?'})`, () => kube.core.readPersistentVolume({ name: pvName }), DEFAULT_WAITS.pvcMs, DEFAULT_WAITS.watchSilenceMs);
}
/** The kubernetes target. */
exports.kubernetesTarget = {
    kind: 'kubernetes',
    capabilities: exports.KUBERNETES_CAPABILITIES,
    capabilitiesFor(handle) {
        if (!embeddedInPod(handle))
            return exports.KUBERNETES_CAPABILITIES;
        return { ...embedded_1.embeddedTarget.capabilities, onWorkerHost: false };
    },
    prepare: access_1.prepareKubernetes,
    /** {@link provisionKubernetes}, then load the Secret's password (and port-forward) into this process, so the provision activity can connect. */
    async provision(spec, req) {
        // One bound on the whole of it: the API calls have no timeout of their own, and a black-holed API
        // server must not keep a heartbeating activity alive for hours.
        const limitMs = spec.timeouts.readyMs + 120_000;
        let timer;
        const deadline = new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`kubernetes provisioning of ${req.runId}/${req.cellKey} did not finish within ${limitMs} ms (timeouts.readyMs + 2 min for the API calls): is the API server answering?`)), limitMs);
        });
        let handle;
        try {
            handle = await Promise.race([(0, provision_1.provisionKubernetes)(spec, req), deadline]);
        }
        finally {
            clearTimeout(timer);
        }
        await (0, access_1.prepareKubernetes)(handle);
        return handle;
    },
    async teardown(handle) {
        const f = handle.kubernetes;
        if (!f)
            throw new Error(`kubernetes handle of ${handle.runId}/${handle.cellKey} has no kubernetes facts`);
        try {
            await deleteCell(kubeOf(handle), f.namespace, f.pod, f.pvc);
        }
        finally {
            await (0, access_1.closeForwards)(f.namespace, f.pod);
            (0, client_1.clearTargetAccess)((0, client_1.targetAccessKey)(handle));
        }
    },
    async teardownCell(spec, req) {
        const n = (0, kube_1.cellNames)(req.runId, req.cellKey);
        try {
            await deleteCell((0, kube_1.kubeFor)(spec), spec.namespace, n.pod, n.pvc);
        }
        finally {
            await (0, access_1.closeForwards)(spec.namespace, n.pod);
        }
        return `deleted pod ${spec.namespace}/${n.pod} and PVC ${n.pvc} (if they existed; reclaimPolicy Delete destroys the volume)`;
    },
    describeTeardown(h) {
        const f = h.kubernetes;
        return f
            ? `delete pod ${f.namespace}/${f.pod} and PVC ${f.pvc} (PV ${f.pv ?? '?'}, volume ${f.volumeHandle ?? '?'}); reclaimPolicy Delete destroys the volume`
            : 'nothing (no kubernetes facts)';
    },
    async check(handle) {
        try {
            const lost = await podLost(handle);
            if (lost)
                return { reachable: false, error: lost };
            await (0, access_1.prepareKubernetes)(handle);
        }
        catch (e) {
            return { reachable: false, error: (0, provision_1.kubeErrorText)(e) };
        }
        return (0, server_verbs_1.checkServer)(handle);
    },
    runningStatements: (h, c, prefix) => embeddedInPod(h) ? embedded_1.embeddedTarget.runningStatements(h, c, prefix) : (0, server_verbs_1.runningFromProcesses)(h, c, prefix),
    statementProgress: (h, c, list, timeoutMs) => embeddedInPod(h)
        ? embedded_1.embeddedTarget.statementProgress(h, c, list, timeoutMs)
        : (0, server_verbs_1.progressFromProcesses)(h, c, list, timeoutMs),
    kill: (h, c, queryId, o) => embeddedInPod(h) ? embedded_1.embeddedTarget.kill(h, c, queryId, o) : (0, server_verbs_1.killOnServer)(h, c, queryId, o),
    /** `system.query_log` (as `external`), and the pod's log saved beside `file` as `pod-<name>.log`. */
    async archiveStatements(handle, prefix, file) {
        const log = await savePodLog(handle, path.dirname(file));
        let source;
        try {
            await (0, access_1.prepareKubernetes)(handle);
            source = embeddedInPod(handle)
                ? await archiveFromEngineLog(handle, file)
                : await (0, server_verbs_1.archiveFromQueryLog)(handle, prefix, file);
        }
        catch (e) {
            source = `not available: ${(0, provision_1.kubeErrorText)(e)}`;
        }
        return `${source}; ${log}`;
    },
    checkSpec(target, versions, place) {
        const problems = [];
        if (place === 'input') {
            const images = target.images;
            if (images !== undefined && (typeof images !== 'object' || images === null || Array.isArray(images)))
                problems.push('target.images: must map a version label to an image');
            for (const v of versions)
                if (typeof v === 'string') {
                    const image = (0, render_1.imageFor)({ images: images }, v);
                    if (!/^[a-z0-9][a-z0-9._\-/:@]*$/i.test(image))
                        problems.push(`target.images: version ${v} gives image ${JSON.stringify(image)}, not an image reference`);
                }
            if (target.access !== undefined && target.access !== 'podIP' && target.access !== 'portForward')
                problems.push(`target.access: ${JSON.stringify(target.access)} is not "podIP" or "portForward"`);
            const r = run_spec_1.KubernetesTargetSpec.shape.resources.safeParse(target.resources);
            if (!r.success)
                problems.push(...r.error.issues.map((i) => `target.resources.${i.path.join('.')}: ${i.message}`));
            return problems;
        }
        const kubeconfig = typeof target.kubeconfig === 'string' ? target.kubeconfig : undefined;
        const context = typeof target.context === 'string' ? target.context : undefined;
        if (kubeconfig) {
            if (!(0, node_fs_1.existsSync)(kubeconfig))
                return [`target.kubeconfig: ${kubeconfig} does not exist on the worker`];
            try {
                (0, node_fs_1.accessSync)(kubeconfig, node_fs_1.constants.R_OK);
                (0, node_fs_1.readFileSync)(kubeconfig);
            }
            catch (e) {
                return [`target.kubeconfig: ${kubeconfig} is not readable on the worker (${e.message})`];
            }
        }
        try {
            const kc = new k8s.KubeConfig();
            if (kubeconfig)
                kc.loadFromFile(kubeconfig);
            else
                kc.loadFromDefault();
            if (context && !kc.getContexts().some((c) => c.name === context))
                problems.push(`target.context: ${context} is not a context of ${kubeconfig ?? 'the default kubeconfig'} (has: ${kc
                    .getContexts()
                    .map((c) => c.name)
                    .join(', ')})`);
            if (!kc.getCurrentCluster() && !context)
                problems.push('target.kubeconfig: no current cluster (set target.context)');
        }
        catch (e) {
            problems.push(`target.kubeconfig: ${kubeconfig ?? 'the default kubeconfig'} cannot be loaded (${e.message.split('\n')[0]})`);
        }
        return problems;
    },
};
(0, registry_1.registerTarget)(exports.kubernetesTarget);
//# sourceMappingURL=index.js.map