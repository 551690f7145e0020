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
exports.ZONE_LABEL = exports.MANIFEST_DIR = void 0;
exports.imageFor = imageFor;
exports.renderCell = renderCell;
/**
 * The objects of one cell, rendered from `manifests/` (the templates are the source) and then given
 * the spec's knobs on the parsed objects: namespace, StorageClass name, resources, node selector,
 * tolerations, affinity, annotations, image.
 */
const path = __importStar(require("node:path"));
const config_1 = require("../../config");
const manifests_1 = require("./manifests");
/** Directory of the templates. */
exports.MANIFEST_DIR = path.join(config_1.REPO_ROOT, 'manifests');
/** Node label of the zone, read from nodes and written into a pinned pod's node affinity. */
exports.ZONE_LABEL = 'topology.kubernetes.io/zone';
/** The image of a version: the spec's `images` entry, else `clickhouse/clickhouse-server:<version>`. */
function imageFor(spec, version) {
    return spec.images?.[version] ?? `clickhouse/clickhouse-server:${version}`;
}
/**
 * Render the cell's objects.
 * @param zone when set, the pod gets a required node affinity on {@link ZONE_LABEL} = zone (a
 *   re-provision on a bound volume must land in the volume's zone)
 * @throws Error as `loadManifests` when a template does not render
 */
async function renderCell(spec, req, names, zone) {
    const objs = await (0, manifests_1.loadManifests)(exports.MANIFEST_DIR, {
        version: req.version,
        runId: (0, manifests_1.toLabelValue)(req.runId),
        cellKey: (0, manifests_1.toLabelValue)(req.cellKey),
        runIdFull: req.runId,
        cellKeyFull: req.cellKey,
        owner: req.owner ? JSON.stringify(req.owner) : 'none (provisioned outside a workflow)',
        pod: names.pod,
        pvc: names.pvc,
        credentialsSecret: spec.credentialsSecret,
        storageSize: spec.storageSize,
        instanceType: spec.instanceType,
    });
    const find = (kind) => {
        const o = objs.find((x) => x.kind === kind);
        if (!o)
            throw new Error(`${exports.MANIFEST_DIR}: no ${kind} template`);
        return o;
    };
    const namespace = find('Namespace');
    const storageClass = find('StorageClass');
    const pvc = find('PersistentVolumeClaim');
    const pod = find('Pod');
    namespace.metadata.name = spec.namespace;
    storageClass.metadata.name = spec.storageClass.name;
    pvc.metadata.namespace = spec.namespace;
    pvc.spec.storageClassName = spec.storageClass.name;
    pod.metadata.namespace = spec.namespace;
    pod.metadata.annotations = { ...pod.metadata.annotations, ...spec.annotations };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const ps = pod.spec;
    ps.nodeSelector = { ...ps.nodeSelector, ...spec.nodeSelector };
    if (spec.tolerations.length)
        ps.tolerations = spec.tolerations;
    if (spec.affinity)
        ps.affinity = structuredClone(spec.affinity);
    const c = ps.containers[0];
    c.image = imageFor(spec, req.version);
    c.resources = structuredClone(spec.resources);
    if (zone) {
        ps.affinity ??= {};
        ps.affinity.nodeAffinity ??= {};
        const req = (ps.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution ??= { nodeSelectorTerms: [] });
        const expr = { key: exports.ZONE_LABEL, operator: 'In', values: [zone] };
        if (!req.nodeSelectorTerms.length)
            req.nodeSelectorTerms.push({ matchExpressions: [expr] });
        else
            for (const t of req.nodeSelectorTerms)
                t.matchExpressions = [...(t.matchExpressions ?? []), expr];
    }
    return { namespace, storageClass, pvc, pod };
}
//# sourceMappingURL=render.js.map