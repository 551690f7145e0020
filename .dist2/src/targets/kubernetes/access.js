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
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.CREATED_USERNAME = void 0;
exports.readCredentials = readCredentials;
exports.resetAccess = resetAccess;
exports.portForward = portForward;
exports.closeForwards = closeForwards;
exports.openForwardCount = openForwardCount;
exports.prepareKubernetes = prepareKubernetes;
exports.clusterOf = clusterOf;
/**
 * How the worker reaches a cell's ClickHouse in a pod: the credentials from the Secret (never from
 * the spec or history), and for `access: portForward` a local `127.0.0.1` TCP server that forwards
 * each connection through the API server (`@kubernetes/client-node` `PortForward`, the
 * `pods/portforward` subresource) to the pod's port 8123. What is loaded is registered in the access
 * registry of `src/clickhouse/client.ts`, which `connect` and `targetPassword` read.
 */
const node_net_1 = __importDefault(require("node:net"));
const node_stream_1 = require("node:stream");
const node_crypto_1 = require("node:crypto");
const k8s = __importStar(require("@kubernetes/client-node"));
const client_1 = require("../../clickhouse/client");
const kube_1 = require("./kube");
/** User name of a Secret chbench creates. */
exports.CREATED_USERNAME = 'chbench';
const secretCache = new Map();
function decode(data, key) {
    const v = data?.[key];
    return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
}
/**
 * Read the credentials Secret (keys `username`, `password`; cached per process); create it with user
 * {@link CREATED_USERNAME} and a random password when missing and `create` (a 409 from a concurrent
 * create re-reads it).
 * @throws Error when it is missing and `create` is false, or lacks a key
 */
async function readCredentials(kube, namespace, name, create) {
    const key = `${kube.kc.getCurrentCluster()?.server ?? ''} ${namespace}/${name}`;
    const hit = secretCache.get(key);
    if (hit)
        return hit;
    let secret;
    try {
        secret = await kube.core.readNamespacedSecret({ name, namespace });
    }
    catch (e) {
        if ((0, kube_1.statusOf)(e) !== 404)
            throw e;
    }
    if (!secret) {
        if (!create)
            throw new Error(`Secret ${namespace}/${name} (the ClickHouse credentials, keys username and password) does not exist and target.createSecret is false`);
        const body = {
            metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': 'chbench' } },
            type: 'Opaque',
            stringData: { username: exports.CREATED_USERNAME, password: (0, node_crypto_1.randomBytes)(18).toString('base64url') },
        };
        try {
            await kube.core.createNamespacedSecret({ namespace, body });
        }
        catch (e) {
            if ((0, kube_1.statusOf)(e) !== 409)
                throw e;
        }
        secret = await kube.core.readNamespacedSecret({ name, namespace });
    }
    const username = decode(secret.data, 'username') ?? secret.stringData?.username;
    const password = decode(secret.data, 'password') ?? secret.stringData?.password;
    if (username === undefined || password === undefined)
        throw new Error(`Secret ${namespace}/${name} lacks key ${username === undefined ? 'username' : 'password'}`);
    const creds = { username, password };
    secretCache.set(key, creds);
    return creds;
}
/** Forget cached credentials and forwards (tests). */
async function resetAccess() {
    secretCache.clear();
    await Promise.all([...forwards.values()].map(async (f) => (await f.opened.catch(() => undefined))?.close()));
    forwards.clear();
}
/** Open forwards by `<cluster> <ns>/<pod>:<port> uid <uid>`. */
const forwards = new Map();
/**
 * A local `127.0.0.1:<free port>` TCP server whose every connection is forwarded to `pod`:`port`
 * through the API server's `pods/portforward` (client-node `PortForward`). One per pod uid and port
 * per process. The subresource addresses the pod by name only, so the forward is bound to the pod
 * `metadata.uid` the handle names:
 * - it is opened only when `GET pods/<pod>` shows that uid (not being deleted), so a handle whose
 *   pod was deleted or re-created gets an error, not a forward to another server;
 * - each new local connection re-reads the pod; when it is gone, being deleted or re-created with
 *   another uid, the connection is refused (destroyed), the forward closed and the access-registry
 *   entries that point at it cleared, so a later `connect` fails with "not loaded" instead of
 *   reaching the new pod (which has none of the old pod's state);
 * - once a forward to the current uid is open, this process's forwards to older pods of the name are closed.
 * @param accessKey the {@link targetAccessKey} that will register the forward's URL (cleared when the forward closes)
 * @throws Error when the pod is not the one of `uid` (`pod <ns>/<pod> is gone` / `… was re-created …` / `… is being deleted`),
 *   or the API server or the local port cannot be reached
 */
async function portForward(kube, namespace, pod, uid, port, accessKey) {
    const cluster = kube.kc.getCurrentCluster()?.server ?? '';
    const key = `${cluster} ${namespace}/${pod}:${port} uid ${uid}`;
    let e = forwards.get(key);
    if (!e) {
        const entry = { cluster, namespace, pod, uid, accessKeys: new Set(), opened: undefined };
        entry.opened = openForward(kube, namespace, pod, uid, port, () => closeEntry(key, entry)).then(async (f) => {
            // This uid is the pod's now: forwards to older pods of the name can only be stale.
            for (const [k, old] of [...forwards])
                if (old.cluster === cluster && old.namespace === namespace && old.pod === pod && old.uid !== uid)
                    await closeEntry(k, old);
            return f;
        });
        entry.opened.catch(() => forwards.delete(key));
        forwards.set(key, entry);
        e = entry;
    }
    if (accessKey)
        e.accessKeys.add(accessKey);
    return e.opened;
}
/**
 * Close this process's forwards to `namespace`/`pod` (every uid; all clusters unless `cluster`, the
 * API server URL, is given) and clear the access-registry entries that point at them (teardown).
 * @returns how many forwards were closed
 */
async function closeForwards(namespace, pod, cluster) {
    let n = 0;
    for (const [k, e] of [...forwards])
        if (e.namespace === namespace && e.pod === pod && (cluster === undefined || e.cluster === cluster)) {
            await closeEntry(k, e);
            n++;
        }
    return n;
}
/** Number of forwards this process holds open (tests and diagnostics). */
function openForwardCount() {
    return forwards.size;
}
async function closeEntry(key, e) {
    if (forwards.get(key) === e)
        forwards.delete(key);
    const f = await e.opened.catch(() => undefined);
    for (const k of e.accessKeys)
        if (f && (0, client_1.getTargetAccess)(k)?.url === f.url)
            (0, client_1.clearTargetAccess)(k);
    await f?.close();
}
/** Why the pod named `pod` is not the one of `uid`, or `undefined` when it is (and not being deleted). */
async function notThePod(kube, namespace, pod, uid) {
    const p = await (0, kube_1.orMissing)(() => kube.core.readNamespacedPod({ name: pod, namespace }));
    const id = `pod ${namespace}/${pod}`;
    if (!p)
        return `${id} is gone`;
    if (p.metadata?.uid !== uid)
        return `${id} was re-created (uid ${p.metadata?.uid}, the forward's ${uid})`;
    if (p.metadata?.deletionTimestamp)
        return `${id} is being deleted`;
    return undefined;
}
async function openForward(kube, namespace, pod, uid, port, retire) {
    const stale = await notThePod(kube, namespace, pod, uid);
    if (stale)
        throw new Error(`port-forward not opened: ${stale}`);
    const pf = new k8s.PortForward(kube.kc);
    const sockets = new Set();
    const server = node_net_1.default.createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
        // Unread bytes stay buffered in the socket until PortForward attaches its reader.
        notThePod(kube, namespace, pod, uid)
            .then((why) => {
            if (why) {
                socket.destroy();
                void retire();
                return;
            }
            // The pod side's errors (connection refused in the pod) end the local connection at once,
            // and so does the tunnel closing (API server, its load balancer or the pod gone): a request
            // must fail fast, as on a dropped TCP connection, never wait for its own timeout.
            const podErrors = new node_stream_1.Writable({
                write(chunk, _enc, done) {
                    // The channel's first frame is only the port number (client-node passes it on empty).
                    if (chunk.length === 0)
                        return done();
                    socket.destroy(new Error(`port-forward to ${namespace}/${pod}:${port}: ${chunk.toString().trim()}`));
                    done();
                },
            });
            return pf.portForward(namespace, pod, [port], socket, podErrors, socket).then((ws) => {
                const w = typeof ws === 'function' ? ws() : ws;
                if (!w) {
                    socket.destroy();
                    return;
                }
                socket.on('close', () => w.close());
                const events = w;
                events.on?.('close', () => socket.destroy());
                events.on?.('error', () => socket.destroy());
            });
        })
            .catch(() => socket.destroy());
    });
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    const { port: local } = server.address();
    let closing;
    return {
        url: `http://127.0.0.1:${local}`,
        close: () => (closing ??= new Promise((r) => {
            server.close(() => r());
            for (const s of sockets)
                s.destroy();
        })),
    };
}
/**
 * The kubernetes target's `prepare`: load the handle's password from its Secret and, for
 * `access: portForward`, open the port-forward to the handle's pod uid; register both for `connect`
 * (idempotent, cached).
 * @throws Error when the Secret cannot be read or the forward cannot be opened (among others when the
 *   handle's pod is gone or was re-created: see {@link portForward})
 */
async function prepareKubernetes(handle) {
    const f = handle.kubernetes;
    const s = handle.passwordSecret;
    if (!f || !s)
        return;
    const kube = (0, kube_1.kubeFor)(clusterOf(handle));
    const key = (0, client_1.targetAccessKey)(handle);
    const creds = await readCredentials(kube, s.namespace, s.name, false);
    const access = { password: creds.password };
    if (f.access === 'portForward')
        access.url = (await portForward(kube, f.namespace, f.pod, f.podUid, 8123, key)).url;
    (0, client_1.setTargetAccess)(key, access);
}
/** The cluster a handle's pod lives in. */
function clusterOf(handle) {
    return { kubeconfig: handle.kubernetes?.kubeconfig, context: handle.kubernetes?.context };
}
//# sourceMappingURL=access.js.map