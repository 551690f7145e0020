/**
 * How the worker reaches a cell's ClickHouse in a pod: the credentials from the Secret (never from
 * the spec or history), and for `access: portForward` a local `127.0.0.1` TCP server that forwards
 * each connection through the API server (`@kubernetes/client-node` `PortForward`, the
 * `pods/portforward` subresource) to the pod's port 8123. What is loaded is registered in the access
 * registry of `src/clickhouse/client.ts`, which `connect` and `targetPassword` read.
 */
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { setTargetAccess, targetAccessKey } from '../../clickhouse/client';
import type { TargetHandle } from '../../schema/target';
import { kubeFor, statusOf, type ClusterRef, type Kube } from './kube';

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
  for (const f of forwards.values()) await (await f).close();
  forwards.clear();
}

/** A local port forwarding to a pod's port. */
export interface Forward {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  close(): Promise<void>;
}

const forwards = new Map<string, Promise<Forward>>();

/**
 * A local `127.0.0.1:<free port>` TCP server whose every connection is forwarded to `pod`:`port`
 * through the API server's `pods/portforward` (client-node `PortForward`). One per pod and port per
 * process.
 * @throws Error when the local port cannot be opened
 */
export function portForward(kube: Kube, namespace: string, pod: string, port: number): Promise<Forward> {
  const key = `${kube.kc.getCurrentCluster()?.server ?? ''} ${namespace}/${pod}:${port}`;
  let f = forwards.get(key);
  if (!f) {
    f = openForward(kube.kc, namespace, pod, port);
    f.catch(() => forwards.delete(key));
    forwards.set(key, f);
  }
  return f;
}

async function openForward(kc: k8s.KubeConfig, namespace: string, pod: string, port: number): Promise<Forward> {
  const pf = new k8s.PortForward(kc);
  const server = net.createServer((socket) => {
    pf.portForward(namespace, pod, [port], socket, null, socket).then(
      (ws) => {
        const w = typeof ws === 'function' ? ws() : ws;
        socket.on('close', () => w?.close());
      },
      (e: Error) => socket.destroy(e),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port: local } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${local}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * The kubernetes target's `prepare`: load the handle's password from its Secret and, for
 * `access: portForward`, open the port-forward; register both for `connect` (idempotent, cached).
 * @throws Error when the Secret cannot be read or the forward cannot be opened
 */
export async function prepareKubernetes(handle: TargetHandle): Promise<void> {
  const f = handle.kubernetes;
  const s = handle.passwordSecret;
  if (!f || !s) return;
  const kube = kubeFor(clusterOf(handle));
  const creds = await readCredentials(kube, s.namespace, s.name, false);
  const access: { password: string; url?: string } = { password: creds.password };
  if (f.access === 'portForward') access.url = (await portForward(kube, f.namespace, f.pod, 8123)).url;
  setTargetAccess(targetAccessKey(handle), access);
}

/** The cluster a handle's pod lives in. */
export function clusterOf(handle: TargetHandle): ClusterRef {
  return { kubeconfig: handle.kubernetes?.kubeconfig, context: handle.kubernetes?.context };
}
