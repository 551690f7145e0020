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
 * - Node proxy: `GET /api/v1/nodes/<node>/proxy/<path>` answered by the simulated kubelet's endpoints
 *   (the `nodeProxy` hook; `cluster.ts` serves `metrics/cadvisor`), 503 without one.
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
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { freePort } from '../../src/lib/net';

/** The part of the `ws` package (v8, a dependency of client-node; no type package installed) used here. */
interface WsSocket {
  readonly readyState: number;
  send(data: Buffer): void;
  close(): void;
  terminate(): void;
  on(event: 'message', fn: (data: Buffer) => void): void;
  on(event: 'close', fn: () => void): void;
}
interface WsServer {
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, cb: (ws: WsSocket) => void): void;
}
const loadWs = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('ws') as {
    WebSocketServer: new (o: { noServer: true; handleProtocols: (offered: Set<string>) => string | false }) => WsServer;
  };

// ---------------------------------------------------------------------------------------------
// Types and resource table

/** A stored Kubernetes object (loosely typed on purpose: the emulator stores what it is given). */
export interface KObj {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    generateName?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    deletionGracePeriodSeconds?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    [k: string]: unknown;
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec?: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  status?: any;
  [k: string]: unknown;
}

/** One served resource. */
export interface ResourceDef {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  /** Has a `status` subresource (main writes keep status, `/status` writes change only status). */
  status?: boolean;
  /** Extra subresources for discovery, e.g. `log`. */
  sub?: string[];
}

const R = (
  group: string,
  version: string,
  plural: string,
  kind: string,
  namespaced: boolean,
  extra: Partial<ResourceDef> = {},
): ResourceDef => ({ group, version, plural, kind, namespaced, ...extra });

export const RESOURCES: readonly ResourceDef[] = [
  R('', 'v1', 'namespaces', 'Namespace', false, { shortNames: ['ns'], status: true }),
  R('', 'v1', 'pods', 'Pod', true, { shortNames: ['po'], status: true, sub: ['log', 'portforward'] }),
  R('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, { shortNames: ['pvc'], status: true }),
  R('', 'v1', 'persistentvolumes', 'PersistentVolume', false, { shortNames: ['pv'], status: true }),
  R('', 'v1', 'nodes', 'Node', false, { shortNames: ['no'], status: true, sub: ['proxy'] }),
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
export const keyOf = (d: ResourceDef): string => (d.group ? `${d.plural}.${d.group}` : d.plural);
const apiVersionOf = (d: ResourceDef): string => (d.group ? `${d.group}/${d.version}` : d.version);
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export type WatchType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

/** A change of the store, as delivered to in-process subscribers (the simulated control plane). */
export interface Change {
  resource: string;
  type: WatchType;
  object: KObj;
  old?: KObj;
  rv: number;
}

/** A Kubernetes `Status` error (thrown by the in-process API, written as the HTTP body). */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
  body(): Record<string, unknown> {
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

const qualified = (d: ResourceDef): string => (d.group ? `${d.plural}.${d.group}` : d.plural);
const notFound = (d: ResourceDef, name: string) =>
  new StatusError(404, 'NotFound', `${qualified(d)} "${name}" not found`, {
    name,
    ...(d.group ? { group: d.group } : {}),
    kind: d.plural,
  });

export interface EmulatorOptions {
  /** Watch events kept for resuming (older ones expire: 410). Default 1000. */
  historyLimit?: number;
  /** Interval of BOOKMARK events for watches that allow them. Default 1000 ms. */
  bookmarkMs?: number;
  /** Time a scheduled pod stays Terminating after its `podTerminating` hook returned. Default 50 ms. */
  podTerminationMs?: number;
  /** Called when a scheduled pod starts terminating (the kubelet stops its containers here). */
  podTerminating?: (pod: KObj) => Promise<void>;
  /**
   * The kubelet's HTTP endpoints behind the node proxy (`GET /api/v1/nodes/<node>/proxy/<path>`): the
   * simulated kubelet installs itself here (`/metrics/cadvisor`). Without it a proxy request is 503,
   * as a real API server answers when it cannot reach the kubelet.
   */
  nodeProxy?: (node: KObj, path: string, query: URLSearchParams) => Promise<NodeProxyAnswer>;
}

/** What the kubelet answered a node-proxy request (see {@link EmulatorOptions.nodeProxy}). */
export interface NodeProxyAnswer {
  status: number;
  contentType: string;
  body: string;
}

interface Watcher {
  def: ResourceDef;
  ns?: string;
  labels: Selector;
  fields: Selector;
  res: http.ServerResponse;
  silent: boolean;
  timers: NodeJS.Timeout[];
}

interface Fault {
  verb: Verb;
  left: number;
  code: 500 | 429;
  resource?: string;
}

// ---------------------------------------------------------------------------------------------
// Selectors

type Term = { key: string; op: '=' | '!=' | 'in' | 'notin' | 'exists' | '!'; values: string[] };
type Selector = Term[];

/** Parses a label selector (`a=b,c!=d,e in (f,g),h,!i`) or a field selector (`a.b=c`). */
export function parseSelector(s: string | null | undefined): Selector {
  const out: Selector = [];
  if (!s) return out;
  const re = /\s*(!?)([A-Za-z0-9_./-]+)\s*(?:(==|=|!=)\s*([^,\s]*)|\s+(in|notin)\s*\(([^)]*)\))?\s*(?:,|$)/y;
  let m: RegExpExecArray | null;
  while (re.lastIndex < s.length && (m = re.exec(s)) !== null) {
    const [, bang, key, op, val, setOp, set] = m;
    if (op) out.push({ key, op: op === '!=' ? '!=' : '=', values: [val] });
    else if (setOp) out.push({ key, op: setOp as 'in' | 'notin', values: set.split(',').map((v) => v.trim()) });
    else out.push({ key, op: bang ? '!' : 'exists', values: [] });
    if (m[0] === '') break;
  }
  if (re.lastIndex < s.length) throw new StatusError(400, 'BadRequest', `unable to parse requirement: ${s}`);
  return out;
}

function matches(sel: Selector, get: (key: string) => string | undefined): boolean {
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

function fieldValue(obj: unknown, dotted: string): string | undefined {
  let cur: unknown = obj;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur === undefined || cur === null ? undefined : String(cur);
}

const selected = (o: KObj, labels: Selector, fields: Selector): boolean =>
  matches(labels, (k) => o.metadata.labels?.[k]) && matches(fields, (k) => fieldValue(o, k));

// ---------------------------------------------------------------------------------------------
// Patches

const clone = <T>(v: T): T => structuredClone(v);
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** RFC 7386 merge patch; with `strategic`, `$` directives are dropped and named object lists merge by name. */
export function mergePatch(target: unknown, patch: unknown, strategic = false): unknown {
  if (!isObj(patch)) return clone(patch);
  const out: Record<string, unknown> = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (strategic && k.startsWith('$')) continue;
    const cur = out[k];
    if (v === null) delete out[k];
    else if (
      strategic &&
      Array.isArray(v) &&
      Array.isArray(cur) &&
      [...v, ...cur].every((e) => isObj(e) && 'name' in e)
    ) {
      const merged = cur.map((e) => clone(e) as Record<string, unknown>);
      for (const pe of v as Record<string, unknown>[]) {
        const i = merged.findIndex((e) => e.name === pe.name);
        if (pe.$patch === 'delete') {
          if (i >= 0) merged.splice(i, 1);
        } else if (i >= 0) merged[i] = mergePatch(merged[i], pe, true) as Record<string, unknown>;
        else merged.push(mergePatch({}, pe, true) as Record<string, unknown>);
      }
      out[k] = merged;
    } else out[k] = mergePatch(cur, v, strategic);
  }
  return out;
}

/** RFC 6902 JSON patch (add, remove, replace, move, copy, test). */
export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new StatusError(400, 'BadRequest', 'json patch must be an array of operations');
  let root = clone(doc);
  const parse = (p: string) =>
    p === ''
      ? []
      : p
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const parentOf = (path: string[]): [Record<string, unknown> | unknown[], string] => {
    let cur: unknown = root;
    for (const seg of path.slice(0, -1)) {
      cur = Array.isArray(cur) ? cur[Number(seg)] : isObj(cur) ? cur[seg] : undefined;
      if (cur === undefined)
        throw new StatusError(422, 'Invalid', `json patch: path /${path.join('/')} does not exist`);
    }
    return [cur as Record<string, unknown>, path[path.length - 1]];
  };
  const read = (path: string[]): unknown => {
    if (path.length === 0) return root;
    const [p, k] = parentOf(path);
    const v = Array.isArray(p) ? p[Number(k)] : p[k];
    if (v === undefined) throw new StatusError(422, 'Invalid', `json patch: path /${path.join('/')} does not exist`);
    return v;
  };
  const remove = (path: string[]) => {
    read(path);
    const [p, k] = parentOf(path);
    if (Array.isArray(p)) p.splice(Number(k), 1);
    else delete p[k];
  };
  const add = (path: string[], value: unknown, replace: boolean) => {
    if (path.length === 0) return void (root = value);
    if (replace) read(path);
    const [p, k] = parentOf(path);
    if (Array.isArray(p)) {
      if (replace) p[Number(k)] = value;
      else p.splice(k === '-' ? p.length : Number(k), 0, value);
    } else p[k] = value;
  };
  for (const op of ops as { op: string; path: string; from?: string; value?: unknown }[]) {
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

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const NAME_RE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class KubeEmulator {
  readonly defs = new Map<string, ResourceDef>(RESOURCES.map((d) => [keyOf(d), d]));
  /** resource key → `ns/name` (or `name`) → object */
  private readonly store = new Map<string, Map<string, KObj>>();
  private readonly history: Change[] = [];
  private compactedRv = 0;
  private rv = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly subscribers = new Set<(c: Change) => void>();
  private readonly logs = new Map<string, string>();
  private faults: Fault[] = [];
  private silence: Set<string> | 'all' | null = null;
  private server?: http.Server;
  private gcQueued = false;
  /** Open port-forward WebSockets (terminated by stop()). */
  private readonly tunnels = new Set<WsSocket>();
  private wss?: WsServer;
  /** Requests served, by verb (for tests of client retry behaviour). */
  readonly requestCount: Record<string, number> = {};
  port = 0;

  constructor(private readonly opts: EmulatorOptions = {}) {
    for (const k of this.defs.keys()) this.store.set(k, new Map());
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
      this.create('namespaces', { metadata: { name } });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Sets the `podTerminating` hook (the simulated kubelet installs itself here). */
  set podTerminating(fn: EmulatorOptions['podTerminating']) {
    this.opts.podTerminating = fn;
  }

  /** Sets the `nodeProxy` hook (the simulated kubelet's endpoints, e.g. `/metrics/cadvisor`). */
  set nodeProxy(fn: EmulatorOptions['nodeProxy']) {
    this.opts.nodeProxy = fn;
  }

  // ----- lifecycle -----

  async start(): Promise<this> {
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      const server = http.createServer((req, res) => void this.handle(req, res));
      server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
        this.upgrade(req, socket, head),
      );
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', () => resolve());
        });
        this.server = server;
        this.port = port;
        return this;
      } catch (e) {
        if (attempt >= 5) throw e;
      }
    }
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) this.closeWatcher(w, true);
    for (const t of this.tunnels) t.terminate();
    this.tunnels.clear();
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }

  /** A kubeconfig for this server (http:// with `insecure-skip-tls-verify`, which client-node 1.4.0 requires). */
  kubeconfig(namespace = 'default'): string {
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
  silenceWatches(resource?: string): void {
    if (resource === undefined) this.silence = 'all';
    else if (this.silence !== 'all') {
      const set: Set<string> = this.silence ?? new Set<string>();
      set.add(this.def(resource).plural);
      this.silence = set;
    }
    for (const w of this.watchers) if (this.isSilenced(w.def)) this.muteWatcher(w);
  }

  /** New watches are served normally again (already silent connections stay silent until dropped). */
  unsilenceWatches(): void {
    this.silence = null;
  }

  /**
   * Ends open watches (of `resource`, or all): `'reset'` destroys the socket (the client sees an
   * error), `'end'` finishes the response cleanly, as a real server does at a watch timeout.
   * @returns how many were dropped
   */
  dropWatches(resource?: string, mode: 'reset' | 'end' = 'reset'): number {
    let n = 0;
    for (const w of [...this.watchers])
      if (resource === undefined || w.def.plural === this.def(resource).plural) {
        this.closeWatcher(w, mode === 'reset');
        n++;
      }
    return n;
  }

  /** The next `n` requests of `verb` (optionally only on `resource`) fail with `code` (500 or 429). */
  failNext(verb: Verb, n: number, code: 500 | 429 = 500, resource?: string): void {
    this.faults.push({ verb, left: n, code, resource: resource === undefined ? undefined : keyOf(this.def(resource)) });
  }

  /** Forgets the watch history: every resourceVersion older than the current one is now expired (410). */
  compact(): void {
    this.compactedRv = this.rv;
    this.history.length = 0;
  }

  /** Number of open watch connections (silent ones included). */
  get openWatches(): number {
    return this.watchers.size;
  }

  // ----- in-process API (used by the simulated control plane and by tests) -----

  def(resource: string): ResourceDef {
    const d = this.defs.get(resource);
    if (!d) throw new Error(`emulator: unknown resource ${resource}`);
    return d;
  }

  /** Subscribes to every change of the store. @returns an unsubscribe function */
  subscribe(fn: (c: Change) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  get(resource: string, ns: string | undefined, name: string): KObj {
    const d = this.def(resource);
    const o = this.store.get(keyOf(d))!.get(this.id(d, ns, name));
    if (!o) throw notFound(d, name);
    return clone(o);
  }

  tryGet(resource: string, ns: string | undefined, name: string): KObj | undefined {
    const d = this.def(resource);
    const o = this.store.get(keyOf(d))!.get(this.id(d, ns, name));
    return o ? clone(o) : undefined;
  }

  list(resource: string, ns?: string, labelSelector?: string, fieldSelector?: string): KObj[] {
    const d = this.def(resource);
    const [ls, fs] = [parseSelector(labelSelector), parseSelector(fieldSelector)];
    return [...this.store.get(keyOf(d))!.values()]
      .filter((o) => (ns === undefined || !d.namespaced || o.metadata.namespace === ns) && selected(o, ls, fs))
      .map(clone);
  }

  create(resource: string, input: KObj, ns?: string): KObj {
    const d = this.def(resource);
    const o = clone(input);
    o.metadata ??= { name: '' };
    const md = o.metadata;
    if (!md.name && md.generateName) md.name = md.generateName + randomUUID().replace(/-/g, '').slice(0, 5);
    if (d.namespaced) {
      if (ns !== undefined && md.namespace !== undefined && md.namespace !== ns)
        throw new StatusError(
          400,
          'BadRequest',
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      md.namespace = ns ?? md.namespace ?? 'default';
      const nsObj = this.store.get('namespaces')!.get(md.namespace);
      if (!nsObj) throw notFound(this.def('namespaces'), md.namespace);
      if (nsObj.metadata.deletionTimestamp)
        throw new StatusError(
          403,
          'Forbidden',
          `${qualified(d)} "${md.name}" is forbidden: unable to create new content in namespace ${md.namespace} because it is being terminated`,
        );
    } else delete md.namespace;
    if (!md.name || !NAME_RE.test(md.name) || md.name.length > 253)
      throw new StatusError(
        422,
        'Invalid',
        `${d.kind} "${md.name ?? ''}" is invalid: metadata.name: Invalid value: "${md.name ?? ''}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`,
        { name: md.name ?? '', kind: d.kind, causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name' }] },
      );
    const id = this.id(d, md.namespace, md.name);
    if (this.store.get(keyOf(d))!.has(id))
      throw new StatusError(409, 'AlreadyExists', `${qualified(d)} "${md.name}" already exists`, {
        name: md.name,
        ...(d.group ? { group: d.group } : {}),
        kind: d.plural,
      });
    o.apiVersion = apiVersionOf(d);
    o.kind = d.kind;
    md.uid = randomUUID();
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
  update(resource: string, input: KObj, opts: { subresource?: 'status'; checkRv?: boolean } = {}): KObj {
    const d = this.def(resource);
    const md = input.metadata;
    const cur = this.store.get(keyOf(d))!.get(this.id(d, md?.namespace, md?.name));
    if (!cur) throw notFound(d, md?.name ?? '');
    if (
      opts.checkRv !== false &&
      md.resourceVersion !== undefined &&
      md.resourceVersion !== cur.metadata.resourceVersion
    )
      throw new StatusError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${qualified(d)} "${md.name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name: md.name, ...(d.group ? { group: d.group } : {}), kind: d.plural },
      );
    let next: KObj;
    if (opts.subresource === 'status') next = { ...clone(cur), status: clone(input.status) };
    else {
      next = clone(input);
      if (d.status) next.status = clone(cur.status);
      const keep = ['uid', 'creationTimestamp', 'namespace', 'name', 'deletionTimestamp', 'deletionGracePeriodSeconds'];
      for (const k of keep) if (cur.metadata[k] !== undefined) next.metadata[k] = cur.metadata[k];
      next.metadata.generation = cur.metadata.generation ?? 1;
      if (JSON.stringify(cur.spec) !== JSON.stringify(next.spec)) next.metadata.generation++;
      if (cur.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0)
        return this.remove(d, cur, next);
    }
    next.apiVersion = apiVersionOf(d);
    next.kind = d.kind;
    if (
      JSON.stringify({ ...next, metadata: { ...next.metadata, resourceVersion: undefined } }) ===
      JSON.stringify({ ...cur, metadata: { ...cur.metadata, resourceVersion: undefined } })
    )
      return clone(cur); // no-op writes do not bump resourceVersion, as in a real server
    return this.commit(d, 'MODIFIED', next);
  }

  /** Read-modify-write without conflict checks (for controllers). `fn` edits a copy; returns the stored result. */
  mutate(resource: string, ns: string | undefined, name: string, fn: (o: KObj) => void, subresource?: 'status'): KObj {
    const o = this.get(resource, ns, name);
    fn(o);
    return this.update(resource, o, { subresource, checkRv: false });
  }

  /** Applies a patch of the given content type. */
  patch(
    resource: string,
    ns: string | undefined,
    name: string,
    contentType: string,
    body: unknown,
    subresource?: 'status',
  ): KObj {
    const cur = this.get(resource, ns, name);
    let next: unknown;
    if (contentType.startsWith('application/json-patch+json')) next = jsonPatch(cur, body);
    else if (contentType.startsWith('application/merge-patch+json')) next = mergePatch(cur, body);
    else if (contentType.startsWith('application/strategic-merge-patch+json')) next = mergePatch(cur, body, true);
    else
      throw new StatusError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json`,
      );
    const n = next as KObj;
    if (!isObj(n) || !isObj(n.metadata)) throw new StatusError(422, 'Invalid', 'patch removed metadata');
    n.metadata.name = name;
    if (ns !== undefined) n.metadata.namespace = ns;
    return this.update(resource, n, { subresource, checkRv: true });
  }

  /**
   * Deletes an object: immediately, or (finalizers, a scheduled pod) by setting deletionTimestamp
   * first. @returns the object as last stored
   */
  delete(resource: string, ns: string | undefined, name: string, gracePeriodSeconds?: number): KObj {
    const d = this.def(resource);
    const cur = this.store.get(keyOf(d))!.get(this.id(d, ns, name));
    if (!cur) throw notFound(d, name);
    if (cur.metadata.deletionTimestamp) {
      if (d.plural === 'pods' && gracePeriodSeconds === 0 && !(cur.metadata.finalizers ?? []).length)
        return this.remove(d, cur, clone(cur));
      return clone(cur);
    }
    const graceful = d.plural === 'pods' && !d.group && cur.spec?.nodeName && gracePeriodSeconds !== 0;
    const finalizers = (cur.metadata.finalizers ?? []).length > 0;
    if (!graceful && !finalizers && d.plural !== 'namespaces') return this.remove(d, cur, clone(cur));
    const next = clone(cur);
    next.metadata.deletionTimestamp = now();
    if (graceful)
      next.metadata.deletionGracePeriodSeconds = gracePeriodSeconds ?? cur.spec?.terminationGracePeriodSeconds ?? 30;
    if (d.plural === 'namespaces') next.status = { ...next.status, phase: 'Terminating' };
    const out = this.commit(d, 'MODIFIED', next);
    if (graceful) void this.terminatePod(out);
    this.queueGc();
    return out;
  }

  /** Appends to a pod's container log (what `GET .../pods/<name>/log` returns). */
  appendLog(ns: string, pod: string, container: string, text: string): void {
    const k = `${ns}/${pod}/${container}`;
    this.logs.set(k, (this.logs.get(k) ?? '') + text);
  }

  // ----- store internals -----

  private id(d: ResourceDef, ns: string | undefined, name: string): string {
    return d.namespaced ? `${ns ?? ''}/${name}` : name;
  }

  private applyDefaults(d: ResourceDef, o: KObj): void {
    if (d.group) return;
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

  private commit(d: ResourceDef, type: WatchType, o: KObj, old?: KObj): KObj {
    const key = keyOf(d);
    const id = this.id(d, o.metadata.namespace, o.metadata.name);
    const prev = old ?? this.store.get(key)!.get(id);
    o.metadata.resourceVersion = String(++this.rv);
    if (type === 'DELETED') this.store.get(key)!.delete(id);
    else this.store.get(key)!.set(id, o);
    const change: Change = { resource: key, type, object: clone(o), old: prev && clone(prev), rv: this.rv };
    this.history.push(change);
    const limit = this.opts.historyLimit ?? 1000;
    while (this.history.length > limit) this.compactedRv = this.history.shift()!.rv;
    for (const w of this.watchers) if (keyOf(w.def) === key) this.deliver(w, change);
    for (const s of this.subscribers) s(change);
    if (type !== 'ADDED') this.queueGc();
    return clone(o);
  }

  private remove(d: ResourceDef, cur: KObj, last: KObj): KObj {
    if (d.plural === 'pods')
      for (const k of [...this.logs.keys()])
        if (k.startsWith(`${cur.metadata.namespace}/${cur.metadata.name}/`)) this.logs.delete(k);
    return this.commit(d, 'DELETED', last, cur);
  }

  private async terminatePod(pod: KObj): Promise<void> {
    try {
      await this.opts.podTerminating?.(pod);
    } catch {
      // the kubelet's problem; the pod is removed anyway
    }
    await sleep(this.opts.podTerminationMs ?? 50);
    const d = this.def('pods');
    const cur = this.store.get('pods')!.get(this.id(d, pod.metadata.namespace, pod.metadata.name));
    if (cur && cur.metadata.uid === pod.metadata.uid && !(cur.metadata.finalizers ?? []).length)
      this.remove(d, cur, clone(cur));
  }

  /** The built-in controllers: pvc/pv protection and namespace termination. */
  private queueGc(): void {
    if (this.gcQueued) return;
    this.gcQueued = true;
    setImmediate(() => {
      this.gcQueued = false;
      this.runGc();
    });
  }

  private runGc(): void {
    const pods = [...this.store.get('pods')!.values()];
    const unprotect = (resource: string, o: KObj, finalizer: string) =>
      this.mutate(resource, o.metadata.namespace, o.metadata.name, (x) => {
        x.metadata.finalizers = (x.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      });
    for (const pvc of this.store.get('persistentvolumeclaims')!.values()) {
      if (!pvc.metadata.deletionTimestamp || !pvc.metadata.finalizers?.includes('kubernetes.io/pvc-protection'))
        continue;
      const used = pods.some(
        (p) =>
          p.metadata.namespace === pvc.metadata.namespace &&
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          (p.spec?.volumes ?? []).some((v: any) => v.persistentVolumeClaim?.claimName === pvc.metadata.name),
      );
      if (!used) unprotect('persistentvolumeclaims', pvc, 'kubernetes.io/pvc-protection');
    }
    for (const pv of this.store.get('persistentvolumes')!.values()) {
      if (!pv.metadata.deletionTimestamp || !pv.metadata.finalizers?.includes('kubernetes.io/pv-protection')) continue;
      if (pv.status?.phase !== 'Bound') unprotect('persistentvolumes', pv, 'kubernetes.io/pv-protection');
    }
    for (const ns of this.store.get('namespaces')!.values()) {
      if (!ns.metadata.deletionTimestamp) continue;
      let left = 0;
      for (const d of this.defs.values()) {
        if (!d.namespaced) continue;
        for (const o of this.store.get(keyOf(d))!.values()) {
          if (o.metadata.namespace !== ns.metadata.name) continue;
          left++;
          if (!o.metadata.deletionTimestamp) this.delete(keyOf(d), o.metadata.namespace, o.metadata.name);
        }
      }
      if (left === 0) this.remove(this.def('namespaces'), ns, clone(ns));
    }
  }

  // ----- watches -----

  private isSilenced(d: ResourceDef): boolean {
    return this.silence === 'all' || (this.silence !== null && this.silence.has(d.plural));
  }

  private muteWatcher(w: Watcher): void {
    w.silent = true;
    for (const t of w.timers) clearTimeout(t);
    w.timers = [];
  }

  private closeWatcher(w: Watcher, abrupt: boolean): void {
    if (!this.watchers.delete(w)) return;
    for (const t of w.timers) clearTimeout(t);
    if (abrupt) w.res.socket?.destroy();
    else w.res.end();
  }

  private send(w: Watcher, type: string, object: unknown): void {
    if (!w.silent) w.res.write(JSON.stringify({ type, object }) + '\n');
  }

  private deliver(w: Watcher, c: Change): void {
    if (w.ns !== undefined && c.object.metadata.namespace !== w.ns) return;
    const now = c.type !== 'DELETED' && selected(c.object, w.labels, w.fields);
    const before = c.old !== undefined && c.type !== 'ADDED' && selected(c.old, w.labels, w.fields);
    if (c.type === 'DELETED') {
      if (selected(c.object, w.labels, w.fields)) this.send(w, 'DELETED', c.object);
    } else if (now && before) this.send(w, 'MODIFIED', c.object);
    else if (now) this.send(w, 'ADDED', c.object);
    else if (before) this.send(w, 'DELETED', c.object);
  }

  private startWatch(d: ResourceDef, ns: string | undefined, q: URLSearchParams, res: http.ServerResponse): void {
    const w: Watcher = {
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
    if (this.isSilenced(d)) return this.muteWatcher(w);
    const from = q.get('resourceVersion');
    if (!from || from === '0') {
      for (const o of this.list(keyOf(d), ns)) if (selected(o, w.labels, w.fields)) this.send(w, 'ADDED', o);
    } else {
      const n = Number(from);
      if (!Number.isInteger(n) || n < this.compactedRv) {
        this.send(
          w,
          'ERROR',
          new StatusError(410, 'Expired', `too old resource version: ${from} (${this.compactedRv + 1})`).body(),
        );
        return this.closeWatcher(w, false);
      }
      for (const c of this.history) if (c.rv > n && c.resource === keyOf(d)) this.deliver(w, c);
    }
    const timeout = Number(q.get('timeoutSeconds') ?? 0);
    if (timeout > 0) w.timers.push(setTimeout(() => this.closeWatcher(w, false), timeout * 1000));
    if (q.get('allowWatchBookmarks') === 'true' || q.get('allowWatchBookmarks') === '1') {
      const t = setInterval(
        () =>
          this.send(w, 'BOOKMARK', {
            kind: d.kind,
            apiVersion: apiVersionOf(d),
            metadata: { resourceVersion: String(this.rv) },
          }),
        this.opts.bookmarkMs ?? 1000,
      );
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
  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (err: StatusError) => {
      const text = JSON.stringify(err.body());
      socket.end(
        `HTTP/1.1 ${err.code} ${http.STATUS_CODES[err.code] ?? ''}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    };
    const url = new URL(req.url ?? '/', 'http://emulator');
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/portforward\/?$/.exec(url.pathname);
    if (!m) return refuse(new StatusError(404, 'NotFound', 'the server could not find the requested resource'));
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket')
      return refuse(
        new StatusError(
          400,
          'BadRequest',
          `upgrade to ${req.headers.upgrade} is not supported by this emulator: port-forward is served over WebSocket (v4.channel.k8s.io, client-node's PortForward) only, not SPDY (kubectl port-forward)`,
        ),
      );
    const [ns, name] = [decodeURIComponent(m[1]), decodeURIComponent(m[2])];
    const pod = this.tryGet('pods', ns, name);
    if (!pod) return refuse(notFound(this.defs.get('pods')!, name));
    const podIp: string | undefined = pod.status?.podIP;
    if (!podIp || pod.status?.phase !== 'Running')
      return refuse(
        new StatusError(400, 'BadRequest', `unable to upgrade connection: pod ${name} is not running (no pod IP)`),
      );
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
      return refuse(
        new StatusError(
          400,
          'BadRequest',
          `unsupported port-forward subprotocol(s) ${offered.join(', ')}: this emulator serves v4.channel.k8s.io only (client-node's PortForward), not SPDY (kubectl port-forward)`,
        ),
      );
    this.requestCount['portforward'] = (this.requestCount['portforward'] ?? 0) + 1;
    this.wss ??= new (loadWs().WebSocketServer)({
      noServer: true,
      handleProtocols: (offered: Set<string>) => (offered.has('v4.channel.k8s.io') ? 'v4.channel.k8s.io' : false),
    });
    this.wss.handleUpgrade(req, socket, head, (ws) => this.forward(ws, podIp, ports));
  }

  /** Pipes one port-forward WebSocket to TCP connections to `podIp` (see {@link upgrade}). */
  private forward(ws: WsSocket, podIp: string, ports: number[]): void {
    this.tunnels.add(ws);
    const frame = (channel: number, data: Buffer) => Buffer.concat([Buffer.from([channel]), data]);
    const conns = ports.map((port, i) => {
      const portBytes = Buffer.alloc(2);
      portBytes.writeUInt16LE(port);
      ws.send(frame(2 * i, portBytes));
      ws.send(frame(2 * i + 1, portBytes));
      const conn = net.connect({ host: podIp, port });
      conn.on('data', (b: Buffer) => {
        if (ws.readyState === 1) ws.send(frame(2 * i, b));
      });
      conn.on('error', (e) => {
        if (ws.readyState === 1)
          ws.send(
            frame(
              2 * i + 1,
              Buffer.from(
                `an error occurred forwarding ${port} -> ${port}: error forwarding port ${port} to pod: ${e.message}`,
              ),
            ),
          );
        ws.close();
      });
      conn.on('close', () => ws.close());
      return conn;
    });
    ws.on('message', (data: Buffer) => {
      const channel = data[0];
      if (channel % 2 === 0 && conns[channel / 2]) conns[channel / 2].write(data.subarray(1));
    });
    ws.on('close', () => {
      this.tunnels.delete(ws);
      for (const c of conns) c.destroy();
    });
  }

  private json(res: http.ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://emulator');
      const table = /as=Table/.test(req.headers.accept ?? '');
      await this.route(req.method ?? 'GET', url, raw, req.headers['content-type'] ?? 'application/json', res, table);
    } catch (e) {
      const err =
        e instanceof StatusError
          ? e
          : new StatusError(
              500,
              'InternalError',
              `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`,
            );
      if (!res.headersSent) this.json(res, err.code, err.body());
      else res.end();
    }
  }

  private discovery(url: URL, res: http.ServerResponse): boolean {
    const p = url.pathname.replace(/\/+$/, '');
    const groups = [...new Set(RESOURCES.filter((d) => d.group).map((d) => d.group))];
    const gv = (g: string) => {
      const v = RESOURCES.find((d) => d.group === g)!.version;
      return { groupVersion: `${g}/${v}`, version: v };
    };
    const resourceList = (group: string, version: string) => ({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: group ? `${group}/${version}` : version,
      resources: RESOURCES.filter((d) => d.group === group && d.version === version).flatMap((d) => [
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
          kind: s === 'portforward' ? 'PodPortForwardOptions' : s === 'proxy' ? 'NodeProxyOptions' : d.kind,
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
    else if (p === '/api/v1') this.json(res, 200, resourceList('', 'v1'));
    else if (/^\/apis\/[^/]+$/.test(p) && groups.includes(p.split('/')[2])) {
      const g = p.split('/')[2];
      this.json(res, 200, { kind: 'APIGroup', apiVersion: 'v1', name: g, versions: [gv(g)], preferredVersion: gv(g) });
    } else if (/^\/apis\/[^/]+\/[^/]+$/.test(p)) {
      const [, , g, v] = p.split('/');
      if (!RESOURCES.some((d) => d.group === g && d.version === v)) return false;
      this.json(res, 200, resourceList(g, v));
    } else return false;
    return true;
  }

  /** A `meta.k8s.io/v1` Table, as `kubectl get` asks for by default (a few columns per kind). */
  private table(d: ResourceDef, items: KObj[], includeObject: string | null): Record<string, unknown> {
    const age = (o: KObj) => {
      const s = Math.max(0, Math.floor((Date.now() - Date.parse(o.metadata.creationTimestamp ?? '')) / 1000));
      return s < 120
        ? `${s}s`
        : s < 7200
          ? `${Math.floor(s / 60)}m`
          : s < 172800
            ? `${Math.floor(s / 3600)}h`
            : `${Math.floor(s / 86400)}d`;
    };
    type Col = [string, (o: KObj) => unknown];
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const cs = (o: KObj): any[] => o.status?.containerStatuses ?? [];
    const cols: Col[] = [['Name', (o) => o.metadata.name]];
    if (d.plural === 'pods' && !d.group)
      cols.push(
        ['Ready', (o) => `${cs(o).filter((c) => c.ready).length}/${(o.spec?.containers ?? []).length}`],
        [
          'Status',
          (o) =>
            o.metadata.deletionTimestamp
              ? 'Terminating'
              : (o.status?.reason ??
                cs(o).find((c) => c.state?.waiting)?.state.waiting.reason ??
                cs(o).find((c) => c.state?.terminated)?.state.terminated.reason ??
                o.status?.phase),
        ],
        ['Restarts', (o) => cs(o).reduce((n, c) => n + (c.restartCount ?? 0), 0)],
        ['Age', age],
        ['IP', (o) => o.status?.podIP ?? '<none>'],
        ['Node', (o) => o.spec?.nodeName ?? '<none>'],
      );
    else if (d.plural === 'persistentvolumeclaims' || d.plural === 'persistentvolumes')
      cols.push(
        ['Status', (o) => o.status?.phase],
        ['Volume', (o) => o.spec?.volumeName ?? o.spec?.csi?.volumeHandle ?? ''],
        ['Capacity', (o) => o.status?.capacity?.storage ?? o.spec?.capacity?.storage ?? ''],
        ['StorageClass', (o) => o.spec?.storageClassName ?? ''],
        ['Age', age],
      );
    else if (d.plural === 'events')
      cols.push(
        ['Type', (o) => o.type],
        ['Reason', (o) => o.reason],
        [
          'Object',
          (o) => {
            const io = (o.involvedObject ?? {}) as { kind?: string; name?: string };
            return `${String(io.kind ?? '').toLowerCase()}/${io.name ?? ''}`;
          },
        ],
        ['Message', (o) => o.message],
      );
    else cols.push(['Age', age]);
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
        object:
          includeObject === 'Object'
            ? o
            : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
      })),
    };
  }

  /**
   * `GET /api/v1/nodes/<node>/proxy/<path>` → the kubelet's endpoint (the `nodeProxy` hook). The
   * path's segments are percent-decoded, as the real API server's request info does (client-node
   * sends `metrics%2Fcadvisor`, kubectl `metrics/cadvisor`). Not implemented: other verbs (405), the
   * `:<port>` form of the node name, and any authorization (a real server checks `get nodes/proxy`).
   */
  private async proxyToNode(method: string, node: string, segs: string[], url: URL, res: http.ServerResponse) {
    this.requestCount['proxy'] = (this.requestCount['proxy'] ?? 0) + 1;
    if (method !== 'GET')
      throw new StatusError(405, 'MethodNotAllowed', `method ${method} not allowed on nodes/proxy here`);
    const obj = this.get('nodes', undefined, decodeURIComponent(node));
    const path = segs.map((x) => decodeURIComponent(x)).join('/');
    const hook = this.opts.nodeProxy;
    if (!hook)
      throw new StatusError(
        503,
        'ServiceUnavailable',
        `error trying to reach service: no kubelet answers for node ${obj.metadata.name}`,
      );
    const a = await hook(obj, path, url.searchParams);
    res.writeHead(a.status, { 'Content-Type': a.contentType, 'Content-Length': Buffer.byteLength(a.body) });
    res.end(a.body);
  }

  private async route(
    method: string,
    url: URL,
    raw: string,
    ctype: string,
    res: http.ServerResponse,
    table = false,
  ): Promise<void> {
    if (method === 'GET' && this.discovery(url, res)) return;
    const segs = url.pathname.split('/').filter(Boolean);
    let group = '';
    let rest: string[];
    let version: string;
    if (segs[0] === 'api') [version, rest] = [segs[1], segs.slice(2)];
    else if (segs[0] === 'apis') [group, version, rest] = [segs[1], segs[2], segs.slice(3)];
    else throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
    let ns: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3 && !['status', 'finalize'].includes(rest[2]))
      [ns, rest] = [rest[1], rest.slice(2)];
    if (group === '' && version === 'v1' && ns === undefined && rest[0] === 'nodes' && rest[2] === 'proxy' && rest[1])
      return this.proxyToNode(method, rest[1], rest.slice(3), url, res);
    const [plural, name, sub] = rest;
    const d = RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural);
    if (!d || (ns !== undefined && !d.namespaced) || rest.length > 3)
      throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
    const key = keyOf(d);
    const q = url.searchParams;
    const isWatch = q.get('watch') === '1' || q.get('watch') === 'true';
    const verb: Verb =
      method === 'GET'
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
    const fault = this.faults.find(
      (f) => f.verb === verb && f.left > 0 && (f.resource === undefined || f.resource === key),
    );
    if (fault) {
      fault.left--;
      this.faults = this.faults.filter((f) => f.left > 0);
      const err =
        fault.code === 429
          ? new StatusError(
              429,
              'TooManyRequests',
              'the server has received too many requests and has asked us to try again later',
              { retryAfterSeconds: 1 },
            )
          : new StatusError(500, 'InternalError', 'Internal error occurred: injected fault');
      return this.json(res, err.code, err.body(), fault.code === 429 ? { 'Retry-After': '1' } : {});
    }
    if (sub !== undefined && !((sub === 'status' && d.status) || (d.sub ?? []).includes(sub)))
      throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
    if (sub === 'portforward') throw new StatusError(400, 'BadRequest', 'Upgrade request required');
    const body = (): KObj => {
      try {
        return JSON.parse(raw) as KObj;
      } catch {
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
        if (table) return this.json(res, 200, this.table(d, [this.get(key, ns, name)], q.get('includeObject')));
        return this.json(res, 200, this.get(key, ns, name));
      case 'list': {
        const items = this.list(key, ns, q.get('labelSelector') ?? undefined, q.get('fieldSelector') ?? undefined);
        if (table) return this.json(res, 200, this.table(d, items, q.get('includeObject')));
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
          if (d.status && d.plural !== 'nodes' && isObj(b)) delete b.status;
          return this.json(res, 201, this.create(key, b, ns));
        }
      case 'update': {
        const b = body();
        if (b.metadata?.name !== name)
          throw new StatusError(
            400,
            'BadRequest',
            `the name of the object (${b.metadata?.name}) does not match the name on the URL (${name})`,
          );
        if (ns !== undefined) b.metadata.namespace = ns;
        return this.json(res, 200, this.update(key, b, { subresource: status }));
      }
      case 'patch':
        return this.json(res, 200, this.patch(key, ns, name, ctype, body(), status));
      case 'delete': {
        const opts = raw.trim() ? (JSON.parse(raw) as { gracePeriodSeconds?: number }) : {};
        const grace =
          q.get('gracePeriodSeconds') !== null ? Number(q.get('gracePeriodSeconds')) : opts.gracePeriodSeconds;
        if (name === undefined) {
          const items = this.list(key, ns, q.get('labelSelector') ?? undefined, q.get('fieldSelector') ?? undefined);
          for (const o of items) this.delete(key, o.metadata.namespace, o.metadata.name, grace);
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
