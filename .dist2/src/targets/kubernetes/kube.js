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
exports.kubeFor = kubeFor;
exports.forgetKubeClients = forgetKubeClients;
exports.statusOf = statusOf;
exports.apiMessage = apiMessage;
exports.orMissing = orMissing;
exports.deleteIgnoringMissing = deleteIgnoringMissing;
exports.createOrExists = createOrExists;
exports.cellNames = cellNames;
/**
 * The Kubernetes API as the `kubernetes` target uses it: a `KubeConfig` per (kubeconfig, context)
 * cached for the process, the typed API clients, the HTTP status of a failed call, and the cell's
 * derived names. Everything goes through `@kubernetes/client-node`.
 */
const node_crypto_1 = require("node:crypto");
const k8s = __importStar(require("@kubernetes/client-node"));
const cache = new Map();
/**
 * Load a kubeconfig (cached per process) and build the clients.
 * @throws Error when the file cannot be read or parsed, or the context does not exist
 */
function kubeFor(ref) {
    const key = `${ref.kubeconfig ?? ''}\u0000${ref.context ?? ''}`;
    const hit = cache.get(key);
    if (hit)
        return hit;
    const kc = new k8s.KubeConfig();
    if (ref.kubeconfig)
        kc.loadFromFile(ref.kubeconfig);
    else
        kc.loadFromDefault();
    if (ref.context) {
        if (!kc.getContexts().some((c) => c.name === ref.context))
            throw new Error(`kubeconfig ${ref.kubeconfig ?? '(default)'} has no context "${ref.context}" (has: ${kc
                .getContexts()
                .map((c) => c.name)
                .join(', ')})`);
        kc.setCurrentContext(ref.context);
    }
    const kube = { kc, core: kc.makeApiClient(k8s.CoreV1Api), storage: kc.makeApiClient(k8s.StorageV1Api) };
    cache.set(key, kube);
    return kube;
}
/** Forget cached clients (tests that stop a cluster and start another on the same kubeconfig path). */
function forgetKubeClients() {
    cache.clear();
}
/** HTTP status of a failed API call (`ApiException.code`), or `undefined` for a network error. */
function statusOf(e) {
    const c = e?.code;
    return typeof c === 'number' ? c : undefined;
}
/** The API server's `Status.message` of a failed call, else the error's message (first line). */
function apiMessage(e) {
    const body = e?.body;
    try {
        const b = typeof body === 'string' ? JSON.parse(body) : body;
        if (b?.message)
            return b.message;
    }
    catch {
        // not JSON
    }
    return (e?.message ?? String(e)).split('\n')[0];
}
/** `fn()`, or `undefined` when the API answers 404. @throws other errors */
async function orMissing(fn) {
    try {
        return await fn();
    }
    catch (e) {
        if (statusOf(e) === 404)
            return undefined;
        throw e;
    }
}
/** `fn()`; a 404 is success (the object is already gone). @returns whether something was deleted */
async function deleteIgnoringMissing(fn) {
    try {
        await fn();
        return true;
    }
    catch (e) {
        if (statusOf(e) === 404)
            return false;
        throw e;
    }
}
/**
 * `fn()` (a create); a 409 AlreadyExists is not an error.
 * @returns `created` or `exists`
 */
async function createOrExists(fn) {
    try {
        await fn();
        return 'created';
    }
    catch (e) {
        if (statusOf(e) === 409)
            return 'exists';
        throw e;
    }
}
/**
 * Names of the pod and PVC of a cell. Two cells (or runs) never share them: the hash covers the run
 * id and the cell key; the readable part is the cell key.
 */
function cellNames(runId, cellKey) {
    const hash = (0, node_crypto_1.createHash)('sha256').update(`${runId}/${cellKey}`, 'utf8').digest('hex').slice(0, 8);
    const readable = cellKey
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+/, '')
        .slice(0, 40)
        .replace(/-+$/, '');
    const pod = readable ? `chb-${readable}-${hash}` : `chb-${hash}`;
    return { pod, pvc: `${pod}-data` };
}
//# sourceMappingURL=kube.js.map