/**
 * How the worker reaches a cell's ClickHouse in a pod: the credentials from the Secret (never from
 * the spec or history), and for `access: portForward` a local `127.0.0.1` TCP server that forwards
 * each connection through the API server (`@kubernetes/client-node` `PortForward`, the
 * `pods/portforward` subresource) to the pod's port 8123. What is loaded is registered in the access
 * registry of `src/clickhouse/client.ts`, which `connect` and `targetPassword` read.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { clearTargetAccess, getTargetAccess, setTargetAccess, targetAccessKey } from '../../clickhouse/client';
import type { TargetHandle } from '../../schema/target';
import { kubeFor, orMissing, statusOf, type ClusterRef, type Kube } from './kube';

/** The ClickHouse user and password of a Secret. */
export interface Credentials {
  username: string;
  password: string;
}

/** User name of a Secret chbench creates. */
export const CREATED_USERNAME = 'chbench';

const secretCache = new Map<string, Credentials>();

function decode(data: Record<string, string> | undefined, key: string): string | undefined {
  const v = data?.[key];
  return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
}

/**
 * Read the credentials Secret (keys `username`, `password`; cached per process); create it with user
 * {@link CREATED_USERNAME} and a random password when missing and `create` (a 409 from a concurrent
 * create re-reads it).
 * @throws Error when it is missing and `create` is false, or lacks a key
 */
export async function readCredentials(
  kube: Kube,
  namespace: string,
  name: string,
  create: boolean,
): Promise<Credentials> {
  const key = `${kube.kc.getCurrentCluster()?.server ?? ''} ${namespace}/${name}`;
  const hit = secretCache.get(key);
  if (hit) return hit;
  let secret: k8s.V1Secret | undefined;
  try {
    secret = await kube.core.readNamespacedSecret({ name, namespace });
  } catch (e) {
    if (statusOf(e) !== 404) throw e;
  }
  if (!secret) {
    if (!create)
      throw new Error(
        `Secret ${namespace}/${name} (the ClickHouse credentials, keys username and password) does not exist and target.createSecret is false`,
      );
    const body: k8s.V1Secret = {
      metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': 'chbench' } },
      type: 'Opaque',
      stringData: { username: CREATED_USERNAME, password: randomBytes(18).toString('base64url') },
    };
    try {
      await kube.core.createNamespacedSecret({ namespace, body });
    } catch (e) {
      if (statusOf(e) !== 409) throw e;
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
export async function resetAccess(): Promise<void> {
  secretCache.clear();
  await Promise.all([...forwards.values()].map(async (f) => (await f.opened.catch(() => undefined))?.close()));
  forwards.clear();
}

/** A local port forwarding to one pod (one `metadata.uid`) and port. */
export interface Forward {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Stop listening, end every open connection and forget the forward. Idempotent. */
  close(): Promise<void>;
}

/** One forward of this process: the pod it serves and the access-registry entries that point at it. */
interface ForwardEntry {
  cluster: string;
  namespace: string;
  pod: string;
  uid: string;
  opened: Promise<Forward>;
  /** {@link targetAccessKey}s whose registered `url` is this forward's. */
  accessKeys: Set<string>;
}

/** Open forwards by `<cluster> <ns>/<pod>:<port> uid <uid>`. */
const forwards = new Map<string, ForwardEntry>();

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
export async function portForward(
  kube: Kube,
  namespace: string,
  pod: string,
  uid: string,
  port: number,
  accessKey?: string,
): Promise<Forward> {
  const cluster = kube.kc.getCurrentCluster()?.server ?? '';
  const key = `${cluster} ${namespace}/${pod}:${port} uid ${uid}`;
  let e = forwards.get(key);
  if (!e) {
    const entry: ForwardEntry = { cluster, namespace, pod, uid, accessKeys: new Set(), opened: undefined as never };
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
  if (accessKey) e.accessKeys.add(accessKey);
  return e.opened;
}

/**
 * Close this process's forwards to `namespace`/`pod` (every uid; all clusters unless `cluster`, the
 * API server URL, is given) and clear the access-registry entries that point at them (teardown).
 * @returns how many forwards were closed
 */
export async function closeForwards(namespace: string, pod: string, cluster?: string): Promise<number> {
  let n = 0;
  for (const [k, e] of [...forwards])
    if (e.namespace === namespace && e.pod === pod && (cluster === undefined || e.cluster === cluster)) {
      await closeEntry(k, e);
      n++;
    }
  return n;
}

/** Number of forwards this process holds open (tests and diagnostics). */
export function openForwardCount(): number {
  return forwards.size;
}

async function closeEntry(key: string, e: ForwardEntry): Promise<void> {
  if (forwards.get(key) === e) forwards.delete(key);
  const f = await e.opened.catch(() => undefined);
  for (const k of e.accessKeys) if (f && getTargetAccess(k)?.url === f.url) clearTargetAccess(k);
  await f?.close();
}

/** Why the pod named `pod` is not the one of `uid`, or `undefined` when it is (and not being deleted). */
async function notThePod(kube: Kube, namespace: string, pod: string, uid: string): Promise<string | undefined> {
  const p = await orMissing(() => kube.core.readNamespacedPod({ name: pod, namespace }));
  const id = `pod ${namespace}/${pod}`;
  if (!p) return `${id} is gone`;
  if (p.metadata?.uid !== uid) return `${id} was re-created (uid ${p.metadata?.uid}, the forward's ${uid})`;
  if (p.metadata?.deletionTimestamp) return `${id} is being deleted`;
  return undefined;
}

async function openForward(
  kube: Kube,
  namespace: string,
  pod: string,
  uid: string,
  port: number,
  retire: () => Promise<void>,
): Promise<Forward> {
  const stale = await notThePod(kube, namespace, pod, uid);
  if (stale) throw new Error(`port-forward not opened: ${stale}`);
  const pf = new k8s.PortForward(kube.kc);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
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
        const podErrors = new Writable({
          write(chunk: Buffer, _enc, done) {
            // The channel's first frame is only the port number (client-node passes it on empty).
            if (chunk.length === 0) return done();
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
          const events = w as unknown as { on?: (event: string, f: () => void) => void };
          events.on?.('close', () => socket.destroy());
          events.on?.('error', () => socket.destroy());
        });
      })
      .catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port: local } = server.address() as net.AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${local}`,
    close: () =>
      (closing ??= new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
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
export async function prepareKubernetes(handle: TargetHandle): Promise<void> {
  const f = handle.kubernetes;
  const s = handle.passwordSecret;
  if (!f || !s) return;
  const kube = kubeFor(clusterOf(handle));
  const key = targetAccessKey(handle);
  const creds = await readCredentials(kube, s.namespace, s.name, false);
  const access: { password: string; url?: string } = { password: creds.password };
  if (f.access === 'portForward') access.url = (await portForward(kube, f.namespace, f.pod, f.podUid, 8123, key)).url;
  setTargetAccess(key, access);
}

/** The cluster a handle's pod lives in. */
export function clusterOf(handle: TargetHandle): ClusterRef {
  return { kubeconfig: handle.kubernetes?.kubeconfig, context: handle.kubernetes?.context };
}
