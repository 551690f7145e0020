"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.KubeEmulator = exports.StatusError = exports.keyOf = exports.RESOURCES = void 0;
exports.parseSelector = parseSelector;
exports.mergePatch = mergePatch;
exports.jsonPatch = jsonPatch;
/**
 * A Kubernetes API server emulator for tests: one HTTP server on 127.0.0.1:<free port> that real
 * clients (`@kubernetes/client-node` 1.4.0, `kubectl` with `--validate=false`) accept.
 *
 * REAL PROTOCOL (what a client sees is what a real API server sends):
 * - Paths `/api/v1/...` and `/apis/<group>/<version>/...`, namespaced (`/namespaces/<ns>/<plural>`)
 *   and cluster-scoped resources, lists across namespaces; discovery `/version`, `/api`, `/apis`,
 *   `/api/v1`, `/apis/<group>/<version>` (legacy, non-aggregated discovery); `/openapi/v2` and
 *   `/openapi/v3` answer 404 (so kubectl needs `--validate=false`).
 * - Resources: namespaces, pods (+ `status`, `log`), persistentvolumeclaims (+ `status`),
 *   persistentvolumes (+ `status`), nodes (+ `status`), events (v1 and events.k8s.io/v1, two
 *   separate stores), secrets, configmaps, serviceaccounts, storageclasses (storage.k8s.io/v1),
 *   roles, rolebindings, clusterroles, clusterrolebindings (rbac.authorization.k8s.io/v1; stored and
 *   returned, never enforced).
 * - get; list with `labelSelector` (`=`, `==`, `!=`, `in`, `notin`, `k`, `!k`) and `fieldSelector`
 *   (`=`, `==`, `!=` on any dotted path: metadata.name, involvedObject.name/kind, spec.nodeName,
 *   status.phase, …).
 * - watch (`?watch=1`): JSON lines `{type, object}`; ADDED for the current state when no or `0`
 *   resourceVersion is given, otherwise a replay from that resourceVersion; an `ERROR` event with a
 *   410 `Expired` Status (then the end of the response) when it is older than the retained history
 *   (`historyLimit`, or {@link KubeEmulator.compact}); `timeoutSeconds`; `allowWatchBookmarks`
 *   (BOOKMARK every `bookmarkMs`); an object leaving/entering the selector is DELETED/ADDED.
 * - create (201; 409 AlreadyExists, 404 for a missing namespace, 403 in a terminating namespace, 422
 *   for an invalid name, `generateName`; the status of a created object is ignored, except nodes);
 *   replace (PUT; 409 Conflict on a stale resourceVersion); patch: `application/merge-patch+json`
 *   (RFC 7386), `application/json-patch+json` (RFC 6902), `application/strategic-merge-patch+json`
 *   (a merge patch in which lists of objects with a `name` merge by name and `$` directives are
 *   dropped); delete (404 NotFound; `gracePeriodSeconds`); deletecollection. Main-resource writes
 *   keep `status`, `/status` writes change only `status`.
 * - One monotonically increasing resourceVersion; uid, creationTimestamp, generation (bumped when
 *   spec changes) set by the server; a write that changes nothing keeps the resourceVersion.
 * - Errors are real `Status` objects (message, reason, details, code), e.g. `pods "x" not found`.
 * - `kubectl get`'s default output is served as a `meta.k8s.io/v1` Table (pods: ready, status,
 *   restarts, age, IP, node; PVCs and PVs; events; anything else name and age).
 * - Port-forward: `GET /api/v1/namespaces/<ns>/pods/<name>/portforward?ports=<p>` upgraded to a
 *   WebSocket (`v4.channel.k8s.io`, the protocol of client-node 1.4.0's `PortForward`), piped to
 *   `<pod IP>:<p>` (see `upgrade()`); without an upgrade: 400 `Upgrade request required`.
 * - Finalizers: an object with finalizers gets a deletionTimestamp and stays until they are removed.
 *   A scheduled pod goes through Terminating (deletionTimestamp, the `podTerminating` hook, removal
 *   `podTerminationMs` later); an unscheduled pod or `gracePeriodSeconds=0` goes at once.
 *
 * SIMULATED HERE (controllers of a real control plane, reduced): defaults (pod restartPolicy,
 * schedulerName, terminationGracePeriodSeconds, phase Pending; PVC phase Pending, volumeMode; PV
 * phase Available; namespace phase Active and its name label); the `kubernetes.io/pvc-protection`
 * finalizer (released when no pod in the namespace uses the claim) and `kubernetes.io/pv-protection`
 * (released when the PV is no longer Bound); namespace deletion (content first, then the namespace).
 * Pod logs are whatever {@link KubeEmulator.appendLog} was given. The scheduler, PV binding, CSI
 * driver and kubelet live in `cluster.ts`.
 *
 * NOT IMPLEMENTED: authentication and authorization (any token is accepted), admission and schema
 * validation (any field is stored; field selectors are not checked against the supported list),
 * protobuf, server-side apply (`application/apply-patch+yaml` → 415), Table rows in watch streams
 * (`kubectl get -w` needs `-o name|json`), list paging (`limit` is ignored; lists are complete, with no
 * `continue`), `resourceVersionMatch`, `sendInitialEvents`, log `follow`, exec/attach, port-forward
 * over SPDY (what `kubectl port-forward` speaks, also tunnelled in WebSockets since kubectl 1.31), the
 * eviction and binding subresources,
 * managedFields, ownerReference garbage collection, TLS.
 *
 * FAULT INJECTION (in process, on the object): {@link KubeEmulator.silenceWatches} (watches stay open
 * and receive nothing, not even their timeout or bookmarks), {@link KubeEmulator.dropWatches} (socket
 * reset, or `'end'`: the response ends cleanly as at a server-side timeout),
 * {@link KubeEmulator.failNext} (the next N requests of a verb fail with 500 or 429 + Retry-After).
 */
const node_http_1 = __importDefault(require("node:http"));
const node_net_1 = __importDefault(require("node:net"));
const node_crypto_1 = require("node:crypto");
const net_1 = require("../../src/lib/net");
const loadWs = () => 
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('ws');
const R = (group, version, plural, kind, namespaced, extra = {}) => ({ group, version, plural, kind, namespaced, ...extra });
exports.RESOURCES = [
    R('', 'v1', 'namespaces', 'Namespace', false, { shortNames: ['ns'], status: true }),
    R('', 'v1', 'pods', 'Pod', true, { shortNames: ['po'], status: true, sub: ['log', 'portforward'] }),
    R('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, { shortNames: ['pvc'], status: true }),
    R('', 'v1', 'persistentvolumes', 'PersistentVolume', false, { shortNames: ['pv'], status: true }),
    R('', 'v1', 'nodes', 'Node', false, { shortNames: ['no'], status: true }),
    R('', 'v1', 'events', 'Event', true, { shortNames: ['ev'] }),
    R('', 'v1', 'secrets', 'Secret', true),
    R('', 'v1', 'configmaps', 'ConfigMap', true, { shortNames: ['cm'] }),
    R('', 'v1', 'serviceaccounts', 'ServiceAccount', true, { shortNames: ['sa'] }),
    R('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false, { shortNames: ['sc'] }),
    R('events.k8s.io', 'v1', 'events', 'Event', true, { shortNames: ['ev'] }),
    R('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true),
    R('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true),
    R('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
    R('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false),
];
/** Store key of a resource: `pods` for core, `storageclasses.storage.k8s.io` otherwise. */
const keyOf = (d) => (d.group ? `${d.plural}.${d.group}` : d.plural);
exports.keyOf = keyOf;
const apiVersionOf = (d) => (d.group ? `${d.group}/${d.version}` : d.version);
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
/** A Kubernetes `Status` error (thrown by the in-process API, written as the HTTP body). */
class StatusError extends Error {
    code;
    reason;
    details;
    constructor(code, reason, message, details) {
        super(message);
        this.code = code;
        this.reason = reason;
        this.details = details;
    }
    body() {
        return {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: this.message,
            reason: this.reason,
            ...(this.details ? { details: this.details } : {}),
            code: this.code,
        };
    }
}
exports.StatusError = StatusError;
const qualified = (d) => (d.group ? `${d.plural}.${d.group}` : d.plural);
const notFound = (d, name) => new StatusError(404, 'NotFound', `${qualified(d)} "${name}" not found`, {
    name,
    ...(d.group ? { group: d.group } : {}),
    kind: d.plural,
});
/** Parses a label selector (`a=b,c!=d,e in (f,g),h,!i`) or a field selector (`a.b=c`). */
function parseSelector(s) {
    const out = [];
    if (!s)
        return out;
    const re = /\s*(!?)([A-Za-z0-9_./-]+)\s*(?:(==|=|!=)\s*([^,\s]*)|\s+(in|notin)\s*\(([^)]*)\))?\s*(?:,|$)/y;
    let m;
    while (re.lastIndex < s.length && (m = re.exec(s)) !== null) {
        const [, bang, key, op, val, setOp, set] = m;
        if (op)
            out.push({ key, op: op === '!=' ? '!=' : '=', values: [val] });
        else if (setOp)
            out.push({ key, op: setOp, values: set.split(',').map((v) => v.trim()) });
        else
            out.push({ key, op: bang ? '!' : 'exists', values: [] });
        if (m[0] === '')
            break;
    }
    if (re.lastIndex < s.length)
        throw new StatusError(400, 'BadRequest', `unable to parse requirement: ${s}`);
    return out;
}
function matches(sel, get) {
    return sel.every((t) => {
        const v = get(t.key);
        switch (t.op) {
            case '=':
                return (v ?? '') === t.values[0];
            case '!=':
                return (v ?? '') !== t.values[0];
            case 'in':
                return v !== undefined && t.values.includes(v);
            case 'notin':
                return v === undefined || !t.values.includes(v);
            case 'exists':
                return v !== undefined;
            case '!':
                return v === undefined;
        }
    });
}
function fieldValue(obj, dotted) {
    let cur = obj;
    for (const part of dotted.split('.')) {
        if (cur === null || typeof cur !== 'object')
            return undefined;
        cur = cur[part];
    }
    return cur === undefined || cur === null ? undefined : String(cur);
}
const selected = (o, labels, fields) => matches(labels, (k) => o.metadata.labels?.[k]) && matches(fields, (k) => fieldValue(o, k));
// ---------------------------------------------------------------------------------------------
// Patches
const clone = (v) => structuredClone(v);
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
/** RFC 7386 merge patch; with `strategic`, `$` directives are dropped and named object lists merge by name. */
function mergePatch(target, patch, strategic = false) {
    if (!isObj(patch))
        return clone(patch);
    const out = isObj(target) ? { ...target } : {};
    for (const [k, v] of Object.entries(patch)) {
        if (strategic && k.startsWith('$'))
            continue;
        const cur = out[k];
        if (v === null)
            delete out[k];
        else if (strategic &&
            Array.isArray(v) &&
            Array.isArray(cur) &&
            [...v, ...cur].every((e) => isObj(e) && 'name' in e)) {
            const merged = cur.map((e) => clone(e));
            for (const pe of v) {
                const i = merged.findIndex((e) => e.name === pe.name);
                if (pe.$patch === 'delete') {
                    if (i >= 0)
                        merged.splice(i, 1);
                }
                else if (i >= 0)
                    merged[i] = mergePatch(merged[i], pe, true);
                else
                    merged.push(mergePatch({}, pe, true));
            }
            out[k] = merged;
        }
        else
            out[k] = mergePatch(cur, v, strategic);
    }
    return out;
}
/** RFC 6902 JSON patch (add, remove, replace, move, copy, test). */
function jsonPatch(doc, ops) {
    if (!Array.isArray(ops))
        throw new StatusError(400, 'BadRequest', 'json patch must be an array of operations');
    let root = clone(doc);
    const parse = (p) => p === ''
        ? []
        : p
            .slice(1)
            .split('/')
            .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const parentOf = (path) => {
        let cur = root;
        for (const seg of path.slice(0, -1)) {
            cur = Array.isArray(cur) ? cur[Number(seg)] : isObj(cur) ? cur[seg] : undefined;
            if (cur === undefined)
                throw new StatusError(422, 'Invalid', `json patch: path /${path.join('/')} does not exist`);
        }
        return [cur, path[path.length - 1]];
    };
    const read = (path) => {
        if (path.length === 0)
            return root;
        const [p, k] = parentOf(path);
        const v = Array.isArray(p) ? p[Number(k)] : p[k];
        if (v === undefined)
            throw new StatusError(422, 'Invalid', `json patch: path /${path.join('/')} does not exist`);
        return v;
    };
    const remove = (path) => {
        read(path);
        const [p, k] = parentOf(path);
        if (Array.isArray(p))
            p.splice(Number(k), 1);
        else
            delete p[k];
    };
    const add = (path, value, replace) => {
        if (path.length === 0)
            return void (root = value);
        if (replace)
            read(path);
        const [p, k] = parentOf(path);
        if (Array.isArray(p)) {
            if (replace)
                p[Number(k)] = value;
            else
                p.splice(k === '-' ? p.length : Number(k), 0, value);
        }
        else
            p[k] = value;
    };
    for (const op of ops) {
        const path = parse(op.path);
        switch (op.op) {
            case 'add':
                add(path, clone(op.value), false);
                break;
            case 'replace':
                add(path, clone(op.value), true);
                break;
            case 'remove':
                remove(path);
                break;
            case 'copy':
                add(path, clone(read(parse(op.from ?? ''))), false);
                break;
            case 'move': {
                const v = read(parse(op.from ?? ''));
                remove(parse(op.from ?? ''));
                add(path, v, false);
                break;
            }
            case 'test':
                if (JSON.stringify(read(path)) !== JSON.stringify(op.value))
                    throw new StatusError(422, 'Invalid', `json patch: test operation failed at ${op.path}`);
                break;
            default:
                throw new StatusError(400, 'BadRequest', `json patch: unknown op ${op.op}`);
        }
    }
    return root;
}
// ---------------------------------------------------------------------------------------------
// The emulator
const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const NAME_RE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
class KubeEmulator {
    opts;
    defs = new Map(exports.RESOURCES.map((d) => [(0, exports.keyOf)(d), d]));
    /** resource key → `ns/name` (or `name`) → object */
    store = new Map();
    history = [];
    compactedRv = 0;
    rv = 0;
    watchers = new Set();
    subscribers = new Set();
    logs = new Map();
    faults = [];
    silence = null;
    server;
    gcQueued = false;
    /** Open port-forward WebSockets (terminated by stop()). */
    tunnels = new Set();
    wss;
    /** Requests served, by verb (for tests of client retry behaviour). */
    requestCount = {};
    port = 0;
    constructor(opts = {}) {
        this.opts = opts;
        for (const k of this.defs.keys())
            this.store.set(k, new Map());
        for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
            this.create('namespaces', { metadata: { name } });
    }
    get url() {
        return `http://127.0.0.1:${this.port}`;
    }
    /** Sets the `podTerminating` hook (the simulated kubelet installs itself here). */
    set podTerminating(fn) {
        this.opts.podTerminating = fn;
    }
    // ----- lifecycle -----
    async start() {
        for (let attempt = 0;; attempt++) {
            const port = await (0, net_1.freePort)();
            const server = node_http_1.default.createServer((req, res) => void this.handle(req, res));
            server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
            try {
                await new Promise((resolve, reject) => {
                    server.once('error', reject);
                    server.listen(port, '127.0.0.1', () => resolve());
                });
                this.server = server;
                this.port = port;
                return this;
            }
            catch (e) {
                if (attempt >= 5)
                    throw e;
            }
        }
    }
    async stop() {
        for (const w of this.watchers)
            this.closeWatcher(w, true);
        for (const t of this.tunnels)
            t.terminate();
        this.tunnels.clear();
        const s = this.server;
        this.server = undefined;
        if (!s)
            return;
        s.closeAllConnections();
        await new Promise((r) => s.close(() => r()));
    }
    /** A kubeconfig for this server (http:// with `insecure-skip-tls-verify`, which client-node 1.4.0 requires). */
    kubeconfig(namespace = 'default') {
        return [
            'apiVersion: v1',
            'kind: Config',
            'clusters:',
            '- name: emulator',
            '  cluster:',
            `    server: ${this.url}`,
            '    insecure-skip-tls-verify: true',
            'users:',
            '- name: emulator',
            '  user:',
            '    token: emulator-token',
            'contexts:',
            '- name: emulator',
            '  context:',
            '    cluster: emulator',
            '    user: emulator',
            `    namespace: ${namespace}`,
            'current-context: emulator',
            '',
        ].join('\n');
    }
    // ----- fault injection -----
    /** Watches (of `resource`, or all) go silent: open, nothing sent, no timeout. New ones too, until {@link unsilenceWatches}. */
    silenceWatches(resource) {
        if (resource === undefined)
            this.silence = 'all';
        else if (this.silence !== 'all') {
            const set = this.silence ?? new Set();
            set.add(this.def(resource).plural);
            this.silence = set;
        }
        for (const w of this.watchers)
            if (this.isSilenced(w.def))
                this.muteWatcher(w);
    }
    /** New watches are served normally again (already silent connections stay silent until dropped). */
    unsilenceWatches() {
        this.silence = null;
    }
    /**
     * Ends open watches (of `resource`, or all): `'reset'` destroys the socket (the client sees an
     * error), `'end'` finishes the response cleanly, as a real server does at a watch timeout.
     * @returns how many were dropped
     */
    dropWatches(resource, mode = 'reset') {
        let n = 0;
        for (const w of [...this.watchers])
            if (resource === undefined || w.def.plural === this.def(resource).plural) {
                this.closeWatcher(w, mode === 'reset');
                n++;
            }
        return n;
    }
    /** The next `n` requests of `verb` (optionally only on `resource`) fail with `code` (500 or 429). */
    failNext(verb, n, code = 500, resource) {
        this.faults.push({ verb, left: n, code, resource: resource === undefined ? undefined : (0, exports.keyOf)(this.def(resource)) });
    }
    /** Forgets the watch history: every resourceVersion older than the current one is now expired (410). */
    compact() {
        this.compactedRv = this.rv;
        this.history.length = 0;
    }
    /** Number of open watch connections (silent ones included). */
    get openWatches() {
        return this.watchers.size;
    }
    // ----- in-process API (used by the simulated control plane and by tests) -----
    def(resource) {
        const d = this.defs.get(resource);
        if (!d)
            throw new Error(`emulator: unknown resource ${resource}`);
        return d;
    }
    /** Subscribes to every change of the store. @returns an unsubscribe function */
    subscribe(fn) {
        this.subscribers.add(fn);
        return () => this.subscribers.delete(fn);
    }
    get(resource, ns, name) {
        const d = this.def(resource);
        const o = this.store.get((0, exports.keyOf)(d)).get(this.id(d, ns, name));
        if (!o)
            throw notFound(d, name);
        return clone(o);
    }
    tryGet(resource, ns, name) {
        const d = this.def(resource);
        const o = this.store.get((0, exports.keyOf)(d)).get(this.id(d, ns, name));
        return o ? clone(o) : undefined;
    }
    list(resource, ns, labelSelector, fieldSelector) {
        const d = this.def(resource);
        const [ls, fs] = [parseSelector(labelSelector), parseSelector(fieldSelector)];
        return [...this.store.get((0, exports.keyOf)(d)).values()]
            .filter((o) => (ns === undefined || !d.namespaced || o.metadata.namespace === ns) && selected(o, ls, fs))
            .map(clone);
    }
    create(resource, input, ns) {
        const d = this.def(resource);
        const o = clone(input);
        o.metadata ??= { name: '' };
        const md = o.metadata;
        if (!md.name && md.generateName)
            md.name = md.generateName + (0, node_crypto_1.randomUUID)().replace(/-/g, '').slice(0, 5);
        if (d.namespaced) {
            if (ns !== undefined && md.namespace !== undefined && md.namespace !== ns)
                throw new StatusError(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
            md.namespace = ns ?? md.namespace ?? 'default';
            const nsObj = this.store.get('namespaces').get(md.namespace);
            if (!nsObj)
                throw notFound(this.def('namespaces'), md.namespace);
            if (nsObj.metadata.deletionTimestamp)
                throw new StatusError(403, 'Forbidden', `${qualified(d)} "${md.name}" is forbidden: unable to create new content in namespace ${md.namespace} because it is being terminated`);
        }
        else
            delete md.namespace;
        if (!md.name || !NAME_RE.test(md.name) || md.name.length > 253)
            throw new StatusError(422, 'Invalid', `${d.kind} "${md.name ?? ''}" is invalid: metadata.name: Invalid value: "${md.name ?? ''}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`, { name: md.name ?? '', kind: d.kind, causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name' }] });
        const id = this.id(d, md.namespace, md.name);
        if (this.store.get((0, exports.keyOf)(d)).has(id))
            throw new StatusError(409, 'AlreadyExists', `${qualified(d)} "${md.name}" already exists`, {
                name: md.name,
                ...(d.group ? { group: d.group } : {}),
                kind: d.plural,
            });
        o.apiVersion = apiVersionOf(d);
        o.kind = d.kind;
        md.uid = (0, node_crypto_1.randomUUID)();
        md.creationTimestamp = now();
        md.generation = 1;
        delete md.deletionTimestamp;
        delete md.resourceVersion;
        this.applyDefaults(d, o);
        return this.commit(d, 'ADDED', o);
    }
    /**
     * Replaces an object (PUT semantics). With `checkRv`, a resourceVersion that is not the stored one
     * is a 409 Conflict. `subresource: 'status'` changes only status; otherwise status is kept.
     */
    update(resource, input, opts = {}) {
        const d = this.def(resource);
        const md = input.metadata;
        const cur = this.store.get((0, exports.keyOf)(d)).get(this.id(d, md?.namespace, md?.name));
        if (!cur)
            throw notFound(d, md?.name ?? '');
        if (opts.checkRv !== false &&
            md.resourceVersion !== undefined &&
            md.resourceVersion !== cur.metadata.resourceVersion)
            throw new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(d)} "${md.name}": the object has been modified; please apply your changes to the latest version and try again`, { name: md.name, ...(d.group ? { group: d.group } : {}), kind: d.plural });
        let next;
        if (opts.subresource === 'status')
            next = { ...clone(cur), status: clone(input.status) };
        else {
            next = clone(input);
            if (d.status)
                next.status = clone(cur.status);
            const keep = ['uid', 'creationTimestamp', 'namespace', 'name', 'deletionTimestamp', 'deletionGracePeriodSeconds'];
            for (const k of keep)
                if (cur.metadata[k] !== undefined)
                    next.metadata[k] = cur.metadata[k];
            next.metadata.generation = cur.metadata.generation ?? 1;
            if (JSON.stringify(cur.spec) !== JSON.stringify(next.spec))
                next.metadata.generation++;
            if (cur.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0)
                return this.remove(d, cur, next);
        }
        next.apiVersion = apiVersionOf(d);
        next.kind = d.kind;
        if (JSON.stringify({ ...next, metadata: { ...next.metadata, resourceVersion: undefined } }) ===
            JSON.stringify({ ...cur, metadata: { ...cur.metadata, resourceVersion: undefined } }))
            return clone(cur); // no-op writes do not bump resourceVersion, as in a real server
        return this.commit(d, 'MODIFIED', next);
    }
    /** Read-modify-write without conflict checks (for controllers). `fn` edits a copy; returns the stored result. */
    mutate(resource, ns, name, fn, subresource) {
        const o = this.get(resource, ns, name);
        fn(o);
        return this.update(resource, o, { subresource, checkRv: false });
    }
    /** Applies a patch of the given content type. */
    patch(resource, ns, name, contentType, body, subresource) {
        const cur = this.get(resource, ns, name);
        let next;
        if (contentType.startsWith('application/json-patch+json'))
            next = jsonPatch(cur, body);
        else if (contentType.startsWith('application/merge-patch+json'))
            next = mergePatch(cur, body);
        else if (contentType.startsWith('application/strategic-merge-patch+json'))
            next = mergePatch(cur, body, true);
        else
            throw new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json`);
        const n = next;
        if (!isObj(n) || !isObj(n.metadata))
            throw new StatusError(422, 'Invalid', 'patch removed metadata');
        n.metadata.name = name;
        if (ns !== undefined)
            n.metadata.namespace = ns;
        return this.update(resource, n, { subresource, checkRv: true });
    }
    /**
     * Deletes an object: immediately, or (finalizers, a scheduled pod) by setting deletionTimestamp
     * first. @returns the object as last stored
     */
    delete(resource, ns, name, gracePeriodSeconds) {
        const d = this.def(resource);
        const cur = this.store.get((0, exports.keyOf)(d)).get(this.id(d, ns, name));
        if (!cur)
            throw notFound(d, name);
        if (cur.metadata.deletionTimestamp) {
            if (d.plural === 'pods' && gracePeriodSeconds === 0 && !(cur.metadata.finalizers ?? []).length)
                return this.remove(d, cur, clone(cur));
            return clone(cur);
        }
        const graceful = d.plural === 'pods' && !d.group && cur.spec?.nodeName && gracePeriodSeconds !== 0;
        const finalizers = (cur.metadata.finalizers ?? []).length > 0;
        if (!graceful && !finalizers && d.plural !== 'namespaces')
            return this.remove(d, cur, clone(cur));
        const next = clone(cur);
        next.metadata.deletionTimestamp = now();
        if (graceful)
            next.metadata.deletionGracePeriodSeconds = gracePeriodSeconds ?? cur.spec?.terminationGracePeriodSeconds ?? 30;
        if (d.plural === 'namespaces')
            next.status = { ...next.status, phase: 'Terminating' };
        const out = this.commit(d, 'MODIFIED', next);
        if (graceful)
            void this.terminatePod(out);
        this.queueGc();
        return out;
    }
    /** Appends to a pod's container log (what `GET .../pods/<name>/log` returns). */
    appendLog(ns, pod, container, text) {
        const k = `${ns}/${pod}/${container}`;
        this.logs.set(k, (this.logs.get(k) ?? '') + text);
    }
    // ----- store internals -----
    id(d, ns, name) {
        return d.namespaced ? `${ns ?? ''}/${name}` : name;
    }
    applyDefaults(d, o) {
        if (d.group)
            return;
        switch (d.plural) {
            case 'pods':
                o.spec = {
                    restartPolicy: 'Always',
                    schedulerName: 'default-scheduler',
                    terminationGracePeriodSeconds: 30,
                    ...o.spec,
                };
                o.status = { phase: 'Pending', ...o.status };
                break;
            case 'persistentvolumeclaims':
                o.spec = { volumeMode: 'Filesystem', ...o.spec };
                o.status = { phase: 'Pending', ...o.status };
                o.metadata.finalizers = [...new Set([...(o.metadata.finalizers ?? []), 'kubernetes.io/pvc-protection'])];
                break;
            case 'persistentvolumes':
                o.spec = { volumeMode: 'Filesystem', persistentVolumeReclaimPolicy: 'Retain', ...o.spec };
                o.status = { phase: 'Available', ...o.status };
                o.metadata.finalizers = [...new Set([...(o.metadata.finalizers ?? []), 'kubernetes.io/pv-protection'])];
                break;
            case 'namespaces':
                o.spec = { finalizers: ['kubernetes'], ...o.spec };
                o.status = { phase: 'Active', ...o.status };
                o.metadata.labels = { ...o.metadata.labels, 'kubernetes.io/metadata.name': o.metadata.name };
                break;
        }
    }
    commit(d, type, o, old) {
        const key = (0, exports.keyOf)(d);
        const id = this.id(d, o.metadata.namespace, o.metadata.name);
        const prev = old ?? this.store.get(key).get(id);
        o.metadata.resourceVersion = String(++this.rv);
        if (type === 'DELETED')
            this.store.get(key).delete(id);
        else
            this.store.get(key).set(id, o);
        const change = { resource: key, type, object: clone(o), old: prev && clone(prev), rv: this.rv };
        this.history.push(change);
        const limit = this.opts.historyLimit ?? 1000;
        while (this.history.length > limit)
            this.compactedRv = this.history.shift().rv;
        for (const w of this.watchers)
            if ((0, exports.keyOf)(w.def) === key)
                this.deliver(w, change);
        for (const s of this.subscribers)
            s(change);
        if (type !== 'ADDED')
            this.queueGc();
        return clone(o);
    }
    remove(d, cur, last) {
        if (d.plural === 'pods')
            for (const k of [...this.logs.keys()])
                if (k.startsWith(`${cur.metadata.namespace}/${cur.metadata.name}/`))
                    this.logs.delete(k);
        return this.commit(d, 'DELETED', last, cur);
    }
    async terminatePod(pod) {
        try {
            await this.opts.podTerminating?.(pod);
        }
        catch {
            // the kubelet's problem; the pod is removed anyway
        }
        await sleep(this.opts.podTerminationMs ?? 50);
        const d = this.def('pods');
        const cur = this.store.get('pods').get(this.id(d, pod.metadata.namespace, pod.metadata.name));
        if (cur && cur.metadata.uid === pod.metadata.uid && !(cur.metadata.finalizers ?? []).length)
            this.remove(d, cur, clone(cur));
    }
    /** The built-in controllers: pvc/pv protection and namespace termination. */
    queueGc() {
        if (this.gcQueued)
            return;
        this.gcQueued = true;
        setImmediate(() => {
            this.gcQueued = false;
            this.runGc();
        });
    }
    runGc() {
        const pods = [...this.store.get('pods').values()];
        const unprotect = (resource, o, finalizer) => this.mutate(resource, o.metadata.namespace, o.metadata.name, (x) => {
            x.metadata.finalizers = (x.metadata.finalizers ?? []).filter((f) => f !== finalizer);
        });
        for (const pvc of this.store.get('persistentvolumeclaims').values()) {
            if (!pvc.metadata.deletionTimestamp || !pvc.metadata.finalizers?.includes('kubernetes.io/pvc-protection'))
                continue;
            const used = pods.some((p) => p.metadata.namespace === pvc.metadata.namespace &&
                // eslint-disable-next-line @typescript-eslint/no-explicit-any
                (p.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === pvc.metadata.name));
            if (!used)
                unprotect('persistentvolumeclaims', pvc, 'kubernetes.io/pvc-protection');
        }
        for (const pv of this.store.get('persistentvolumes').values()) {
            if (!pv.metadata.deletionTimestamp || !pv.metadata.finalizers?.includes('kubernetes.io/pv-protection'))
                continue;
            if (pv.status?.phase !== 'Bound')
                unprotect('persistentvolumes', pv, 'kubernetes.io/pv-protection');
        }
        for (const ns of this.store.get('namespaces').values()) {
            if (!ns.metadata.deletionTimestamp)
                continue;
            let left = 0;
            for (const d of this.defs.values()) {
                if (!d.namespaced)
                    continue;
                for (const o of this.store.get((0, exports.keyOf)(d)).values()) {
                    if (o.metadata.namespace !== ns.metadata.name)
                        continue;
                    left++;
                    if (!o.metadata.deletionTimestamp)
                        this.delete((0, exports.keyOf)(d), o.metadata.namespace, o.metadata.name);
                }
            }
            if (left === 0)
                this.remove(this.def('namespaces'), ns, clone(ns));
        }
    }
    // ----- watches -----
    isSilenced(d) {
        return this.silence === 'all' || (this.silence !== null && this.silence.has(d.plural));
    }
    muteWatcher(w) {
        w.silent = true;
        for (const t of w.timers)
            clearTimeout(t);
        w.timers = [];
    }
    closeWatcher(w, abrupt) {
        if (!this.watchers.delete(w))
            return;
        for (const t of w.timers)
            clearTimeout(t);
        if (abrupt)
            w.res.socket?.destroy();
        else
            w.res.end();
    }
    send(w, type, object) {
        if (!w.silent)
            w.res.write(JSON.stringify({ type, object }) + '\n');
    }
    deliver(w, c) {
        if (w.ns !== undefined && c.object.metadata.namespace !== w.ns)
            return;
        const now = c.type !== 'DELETED' && selected(c.object, w.labels, w.fields);
        const before = c.old !== undefined && c.type !== 'ADDED' && selected(c.old, w.labels, w.fields);
        if (c.type === 'DELETED') {
            if (selected(c.object, w.labels, w.fields))
                this.send(w, 'DELETED', c.object);
        }
        else if (now && before)
            this.send(w, 'MODIFIED', c.object);
        else if (now)
            this.send(w, 'ADDED', c.object);
        else if (before)
            this.send(w, 'DELETED', c.object);
    }
    startWatch(d, ns, q, res) {
        const w = {
            def: d,
            ns,
            labels: parseSelector(q.get('labelSelector')),
            fields: parseSelector(q.get('fieldSelector')),
            res,
            silent: false,
            timers: [],
        };
        res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
        res.flushHeaders();
        this.watchers.add(w);
        res.on('close', () => this.closeWatcher(w, false));
        if (this.isSilenced(d))
            return this.muteWatcher(w);
        const from = q.get('resourceVersion');
        if (!from || from === '0') {
            for (const o of this.list((0, exports.keyOf)(d), ns))
                if (selected(o, w.labels, w.fields))
                    this.send(w, 'ADDED', o);
        }
        else {
            const n = Number(from);
            if (!Number.isInteger(n) || n < this.compactedRv) {
                this.send(w, 'ERROR', new StatusError(410, 'Expired', `too old resource version: ${from} (${this.compactedRv + 1})`).body());
                return this.closeWatcher(w, false);
            }
            for (const c of this.history)
                if (c.rv > n && c.resource === (0, exports.keyOf)(d))
                    this.deliver(w, c);
        }
        const timeout = Number(q.get('timeoutSeconds') ?? 0);
        if (timeout > 0)
            w.timers.push(setTimeout(() => this.closeWatcher(w, false), timeout * 1000));
        if (q.get('allowWatchBookmarks') === 'true' || q.get('allowWatchBookmarks') === '1') {
            const t = setInterval(() => this.send(w, 'BOOKMARK', {
                kind: d.kind,
                apiVersion: apiVersionOf(d),
                metadata: { resourceVersion: String(this.rv) },
            }), this.opts.bookmarkMs ?? 1000);
            w.timers.push(t);
        }
    }
    // ----- HTTP -----
    /**
     * `GET /api/v1/namespaces/{ns}/pods/{name}/portforward?ports=<p>` upgraded to a WebSocket, as the
     * kubelet serves it (pkg/kubelet/cri/streaming/portforward/websocket.go): subprotocol
     * `v4.channel.k8s.io` (binary) when offered, else none (legacy `channel.k8s.io` framing, the same
     * bytes); per port two channels, data (2i) and error (2i + 1); each frame's first byte is its channel;
     * the server first sends the port (uint16 little-endian) on both channels of each port; then bytes
     * on the data channel go to a TCP connection to `<pod IP>:<port>` and back. A refused connection is
     * written to the error channel and the socket closes. Anything else answers a `Status` before the
     * upgrade (404 for a missing pod, 400 for a pod without an IP or a bad `ports`).
     * `v4.base64.channel.k8s.io` and SPDY (what `kubectl port-forward` uses) are not served.
     */
    upgrade(req, socket, head) {
        const refuse = (err) => {
            const text = JSON.stringify(err.body());
            socket.end(`HTTP/1.1 ${err.code} ${node_http_1.default.STATUS_CODES[err.code] ?? ''}\r\nContent-Type: application/json\r\n` +
                `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
        };
        const url = new URL(req.url ?? '/', 'http://emulator');
        const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/portforward\/?$/.exec(url.pathname);
        if (!m)
            return refuse(new StatusError(404, 'NotFound', 'the server could not find the requested resource'));
        if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket')
            return refuse(new StatusError(400, 'BadRequest', `upgrade to ${req.headers.upgrade} is not supported by this emulator: port-forward is served over WebSocket (v4.channel.k8s.io, client-node's PortForward) only, not SPDY (kubectl port-forward)`));
        const [ns, name] = [decodeURIComponent(m[1]), decodeURIComponent(m[2])];
        const pod = this.tryGet('pods', ns, name);
        if (!pod)
            return refuse(notFound(this.defs.get('pods'), name));
        const podIp = pod.status?.podIP;
        if (!podIp || pod.status?.phase !== 'Running')
            return refuse(new StatusError(400, 'BadRequest', `unable to upgrade connection: pod ${name} is not running (no pod IP)`));
        const ports = url.searchParams
            .getAll('ports')
            .flatMap((v) => v.split(','))
            .map(Number);
        if (ports.length === 0 || ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535))
            return refuse(new StatusError(400, 'BadRequest', 'query parameter "ports" is required with ports 1-65535'));
        const offered = String(req.headers['sec-websocket-protocol'] ?? '')
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean);
        if (offered.length > 0 && !offered.includes('v4.channel.k8s.io'))
            return refuse(new StatusError(400, 'BadRequest', `unsupported port-forward subprotocol(s) ${offered.join(', ')}: this emulator serves v4.channel.k8s.io only (client-node's PortForward), not SPDY (kubectl port-forward)`));
        this.requestCount['portforward'] = (this.requestCount['portforward'] ?? 0) + 1;
        this.wss ??= new (loadWs().WebSocketServer)({
            noServer: true,
            handleProtocols: (offered) => (offered.has('v4.channel.k8s.io') ? 'v4.channel.k8s.io' : false),
        });
        this.wss.handleUpgrade(req, socket, head, (ws) => this.forward(ws, podIp, ports));
    }
    /** Pipes one port-forward WebSocket to TCP connections to `podIp` (see {@link upgrade}). */
    forward(ws, podIp, ports) {
        this.tunnels.add(ws);
        const frame = (channel, data) => Buffer.concat([Buffer.from([channel]), data]);
        const conns = ports.map((port, i) => {
            const portBytes = Buffer.alloc(2);
            portBytes.writeUInt16LE(port);
            ws.send(frame(2 * i, portBytes));
            ws.send(frame(2 * i + 1, portBytes));
            const conn = node_net_1.default.connect({ host: podIp, port });
            conn.on('data', (b) => {
                if (ws.readyState === 1)
                    ws.send(frame(2 * i, b));
            });
            conn.on('error', (e) => {
                if (ws.readyState === 1)
                    ws.send(frame(2 * i + 1, Buffer.from(`an error occurred forwarding ${port} -> ${port}: error forwarding port ${port} to pod: ${e.message}`)));
                ws.close();
            });
            conn.on('close', () => ws.close());
            return conn;
        });
        ws.on('message', (data) => {
            const channel = data[0];
            if (channel % 2 === 0 && conns[channel / 2])
                conns[channel / 2].write(data.subarray(1));
        });
        ws.on('close', () => {
            this.tunnels.delete(ws);
            for (const c of conns)
                c.destroy();
        });
    }
    json(res, code, body, headers = {}) {
        const text = JSON.stringify(body);
        res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
        res.end(text);
    }
    async handle(req, res) {
        try {
            const chunks = [];
            for await (const c of req)
                chunks.push(c);
            const raw = Buffer.concat(chunks).toString('utf8');
            const url = new URL(req.url ?? '/', 'http://emulator');
            const table = /as=Table/.test(req.headers.accept ?? '');
            await this.route(req.method ?? 'GET', url, raw, req.headers['content-type'] ?? 'application/json', res, table);
        }
        catch (e) {
            const err = e instanceof StatusError
                ? e
                : new StatusError(500, 'InternalError', `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`);
            if (!res.headersSent)
                this.json(res, err.code, err.body());
            else
                res.end();
        }
    }
    discovery(url, res) {
        const p = url.pathname.replace(/\/+$/, '');
        const groups = [...new Set(exports.RESOURCES.filter((d) => d.group).map((d) => d.group))];
        const gv = (g) => {
            const v = exports.RESOURCES.find((d) => d.group === g).version;
            return { groupVersion: `${g}/${v}`, version: v };
        };
        const resourceList = (group, version) => ({
            kind: 'APIResourceList',
            apiVersion: 'v1',
            groupVersion: group ? `${group}/${version}` : version,
            resources: exports.RESOURCES.filter((d) => d.group === group && d.version === version).flatMap((d) => [
                {
                    name: d.plural,
                    singularName: d.kind.toLowerCase(),
                    namespaced: d.namespaced,
                    kind: d.kind,
                    verbs: VERBS,
                    ...(d.shortNames ? { shortNames: d.shortNames } : {}),
                },
                ...(d.status
                    ? [
                        {
                            name: `${d.plural}/status`,
                            singularName: '',
                            namespaced: d.namespaced,
                            kind: d.kind,
                            verbs: ['get', 'patch', 'update'],
                        },
                    ]
                    : []),
                ...(d.sub ?? []).map((s) => ({
                    name: `${d.plural}/${s}`,
                    singularName: '',
                    namespaced: d.namespaced,
                    kind: s === 'portforward' ? 'PodPortForwardOptions' : d.kind,
                    verbs: s === 'portforward' ? ['create', 'get'] : ['get'],
                })),
            ]),
        });
        if (p === '/version')
            this.json(res, 200, {
                major: '1',
                minor: '32',
                gitVersion: 'v1.32.0-chbench-emulator',
                gitCommit: '0000000000000000000000000000000000000000',
                gitTreeState: 'clean',
                buildDate: '2026-01-01T00:00:00Z',
                goVersion: 'go1.23.0',
                compiler: 'gc',
                platform: 'linux/amd64',
            });
        else if (p === '/api')
            this.json(res, 200, {
                kind: 'APIVersions',
                versions: ['v1'],
                serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${this.port}` }],
            });
        else if (p === '/apis')
            this.json(res, 200, {
                kind: 'APIGroupList',
                apiVersion: 'v1',
                groups: groups.map((g) => ({ name: g, versions: [gv(g)], preferredVersion: gv(g) })),
            });
        else if (p === '/api/v1')
            this.json(res, 200, resourceList('', 'v1'));
        else if (/^\/apis\/[^/]+$/.test(p) && groups.includes(p.split('/')[2])) {
            const g = p.split('/')[2];
            this.json(res, 200, { kind: 'APIGroup', apiVersion: 'v1', name: g, versions: [gv(g)], preferredVersion: gv(g) });
        }
        else if (/^\/apis\/[^/]+\/[^/]+$/.test(p)) {
            const [, , g, v] = p.split('/');
            if (!exports.RESOURCES.some((d) => d.group === g && d.version === v))
                return false;
            this.json(res, 200, resourceList(g, v));
        }
        else
            return false;
        return true;
    }
    /** A `meta.k8s.io/v1` Table, as `kubectl get` asks for by default (a few columns per kind). */
    table(d, items, includeObject) {
        const age = (o) => {
            const s = Math.max(0, Math.floor((Date.now() - Date.parse(o.metadata.creationTimestamp ?? '')) / 1000));
            return s < 120
                ? `${s}s`
                : s < 7200
                    ? `${Math.floor(s / 60)}m`
                    : s < 172800
                        ? `${Math.floor(s / 3600)}h`
                        : `${Math.floor(s / 86400)}d`;
        };
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const cs = (o) => o.status?.containerStatuses ?? [];
        const cols = [['Name', (o) => o.metadata.name]];
        if (d.plural === 'pods' && !d.group)
            cols.push(['Ready', (o) => `${cs(o).filter((c) => c.ready).length}/${(o.spec?.containers ?? []).length}`], [
                'Status',
                (o) => o.metadata.deletionTimestamp
                    ? 'Terminating'
                    : (o.status?.reason ??
                        cs(o).find((c) => c.state?.waiting)?.state.waiting.reason ??
                        cs(o).find((c) => c.state?.terminated)?.state.terminated.reason ??
                        o.status?.phase),
            ], ['Restarts', (o) => cs(o).reduce((n, c) => n + (c.restartCount ?? 0), 0)], ['Age', age], ['IP', (o) => o.status?.podIP ?? '<none>'], ['Node', (o) => o.spec?.nodeName ?? '<none>']);
        else if (d.plural === 'persistentvolumeclaims' || d.plural === 'persistentvolumes')
            cols.push(['Status', (o) => o.status?.phase], ['Volume', (o) => o.spec?.volumeName ?? o.spec?.csi?.volumeHandle ?? ''], ['Capacity', (o) => o.status?.capacity?.storage ?? o.spec?.capacity?.storage ?? ''], ['StorageClass', (o) => o.spec?.storageClassName ?? ''], ['Age', age]);
        else if (d.plural === 'events')
            cols.push(['Type', (o) => o.type], ['Reason', (o) => o.reason], [
                'Object',
                (o) => {
                    const io = (o.involvedObject ?? {});
                    return `${String(io.kind ?? '').toLowerCase()}/${io.name ?? ''}`;
                },
            ], ['Message', (o) => o.message]);
        else
            cols.push(['Age', age]);
        return {
            kind: 'Table',
            apiVersion: 'meta.k8s.io/v1',
            metadata: { resourceVersion: String(this.rv) },
            columnDefinitions: cols.map(([name], i) => ({
                name,
                type: 'string',
                format: i === 0 ? 'name' : '',
                description: name,
                priority: 0,
            })),
            rows: items.map((o) => ({
                cells: cols.map(([, f]) => f(o) ?? ''),
                object: includeObject === 'Object'
                    ? o
                    : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
            })),
        };
    }
    async route(method, url, raw, ctype, res, table = false) {
        if (method === 'GET' && this.discovery(url, res))
            return;
        const segs = url.pathname.split('/').filter(Boolean);
        let group = '';
        let rest;
        let version;
        if (segs[0] === 'api')
            [version, rest] = [segs[1], segs.slice(2)];
        else if (segs[0] === 'apis')
            [group, version, rest] = [segs[1], segs[2], segs.slice(3)];
        else
            throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
        let ns;
        if (rest[0] === 'namespaces' && rest.length >= 3 && !['status', 'finalize'].includes(rest[2]))
            [ns, rest] = [rest[1], rest.slice(2)];
        const [plural, name, sub] = rest;
        const d = exports.RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural);
        if (!d || (ns !== undefined && !d.namespaced) || rest.length > 3)
            throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
        const key = (0, exports.keyOf)(d);
        const q = url.searchParams;
        const isWatch = q.get('watch') === '1' || q.get('watch') === 'true';
        const verb = method === 'GET'
            ? name
                ? 'get'
                : isWatch
                    ? 'watch'
                    : 'list'
            : method === 'POST'
                ? 'create'
                : method === 'PUT'
                    ? 'update'
                    : method === 'PATCH'
                        ? 'patch'
                        : method === 'DELETE'
                            ? 'delete'
                            : (() => {
                                throw new StatusError(405, 'MethodNotAllowed', `method ${method} not allowed`);
                            })();
        this.requestCount[verb] = (this.requestCount[verb] ?? 0) + 1;
        const fault = this.faults.find((f) => f.verb === verb && f.left > 0 && (f.resource === undefined || f.resource === key));
        if (fault) {
            fault.left--;
            this.faults = this.faults.filter((f) => f.left > 0);
            const err = fault.code === 429
                ? new StatusError(429, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later', { retryAfterSeconds: 1 })
                : new StatusError(500, 'InternalError', 'Internal error occurred: injected fault');
            return this.json(res, err.code, err.body(), fault.code === 429 ? { 'Retry-After': '1' } : {});
        }
        if (sub !== undefined && !((sub === 'status' && d.status) || (d.sub ?? []).includes(sub)))
            throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
        if (sub === 'portforward')
            throw new StatusError(400, 'BadRequest', 'Upgrade request required');
        const body = () => {
            try {
                return JSON.parse(raw);
            }
            catch {
                throw new StatusError(400, 'BadRequest', 'the request body is not valid JSON (only JSON is supported)');
            }
        };
        const status = sub === 'status' ? 'status' : undefined;
        switch (verb) {
            case 'get':
                if (sub === 'log') {
                    const pod = this.get(key, ns, name);
                    const container = q.get('container') ?? pod.spec?.containers?.[0]?.name ?? '';
                    let text = this.logs.get(`${ns}/${name}/${container}`) ?? '';
                    const tail = q.get('tailLines');
                    if (tail !== null)
                        text = text
                            .split('\n')
                            .filter(Boolean)
                            .slice(-Number(tail))
                            .map((l) => l + '\n')
                            .join('');
                    res.writeHead(200, { 'Content-Type': 'text/plain' });
                    return void res.end(text);
                }
                if (table)
                    return this.json(res, 200, this.table(d, [this.get(key, ns, name)], q.get('includeObject')));
                return this.json(res, 200, this.get(key, ns, name));
            case 'list': {
                const items = this.list(key, ns, q.get('labelSelector') ?? undefined, q.get('fieldSelector') ?? undefined);
                if (table)
                    return this.json(res, 200, this.table(d, items, q.get('includeObject')));
                return this.json(res, 200, {
                    kind: `${d.kind}List`,
                    apiVersion: apiVersionOf(d),
                    metadata: { resourceVersion: String(this.rv) },
                    items,
                });
            }
            case 'watch':
                return this.startWatch(d, ns, q, res);
            case 'create':
                if (name !== undefined)
                    throw new StatusError(405, 'MethodNotAllowed', 'POST to a named object is not supported');
                {
                    const b = body();
                    // A real server ignores the status of a created object (the kubelet registers nodes with theirs).
                    if (d.status && d.plural !== 'nodes' && isObj(b))
                        delete b.status;
                    return this.json(res, 201, this.create(key, b, ns));
                }
            case 'update': {
                const b = body();
                if (b.metadata?.name !== name)
                    throw new StatusError(400, 'BadRequest', `the name of the object (${b.metadata?.name}) does not match the name on the URL (${name})`);
                if (ns !== undefined)
                    b.metadata.namespace = ns;
                return this.json(res, 200, this.update(key, b, { subresource: status }));
            }
            case 'patch':
                return this.json(res, 200, this.patch(key, ns, name, ctype, body(), status));
            case 'delete': {
                const opts = raw.trim() ? JSON.parse(raw) : {};
                const grace = q.get('gracePeriodSeconds') !== null ? Number(q.get('gracePeriodSeconds')) : opts.gracePeriodSeconds;
                if (name === undefined) {
                    const items = this.list(key, ns, q.get('labelSelector') ?? undefined, q.get('fieldSelector') ?? undefined);
                    for (const o of items)
                        this.delete(key, o.metadata.namespace, o.metadata.name, grace);
                    return this.json(res, 200, {
                        kind: `${d.kind}List`,
                        apiVersion: apiVersionOf(d),
                        metadata: { resourceVersion: String(this.rv) },
                        items,
                    });
                }
                return this.json(res, 200, this.delete(key, ns, name, grace));
            }
        }
    }
}
exports.KubeEmulator = KubeEmulator;
//# sourceMappingURL=emulator.js.map