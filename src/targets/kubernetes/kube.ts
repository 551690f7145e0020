/**
 * The Kubernetes API as the `kubernetes` target uses it: a `KubeConfig` per (kubeconfig, context)
 * cached for the process, the typed API clients, the HTTP status of a failed call, and the cell's
 * derived names. Everything goes through `@kubernetes/client-node`.
 */
import { cellObjectName } from '../../lib/cell-object-name';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import * as k8s from '@kubernetes/client-node';

/** Where the cluster is: a kubeconfig path and context, both optional (client-node's defaults). */
export interface ClusterRef {
  /** Kubeconfig file; absent: `KUBECONFIG`, `~/.kube/config`, else the in-cluster service account (`loadFromDefault`). */
  kubeconfig?: string;
  /** Context; absent: the kubeconfig's current-context. */
  context?: string;
}

/** The API clients of one cluster. */
export interface Kube {
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  storage: k8s.StorageV1Api;
}

const cache = new Map<string, Kube>();

/**
 * A kubeconfig that cannot reach any cluster, whatever is retried: no kubeconfig at all, no current
 * context, an unknown context, a plain `http://` API server without `insecure-skip-tls-verify`
 * (client-node 1.4 refuses it on every request). Deterministic: provision raises it non-retryable
 * and teardown of a cell without a handle treats it as "nothing could have been created".
 */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
}

/** Where `loadFromDefault` takes its config from (client-node 1.4's order), or `undefined` when nowhere. */
function defaultSource(): string | undefined {
  if (process.env.KUBECONFIG) return `KUBECONFIG=${process.env.KUBECONFIG}`;
  const home = path.join(homedir(), '.kube', 'config');
  if (existsSync(home)) return home;
  if (process.env.KUBERNETES_SERVICE_HOST) return 'the in-cluster service account';
  return undefined;
}

/**
 * Load the kubeconfig of `ref` and say why no API call through it can succeed, without any network
 * call. @returns the loaded config and context applied, or @throws KubeConfigError naming what is missing
 */
export function loadKubeConfig(ref: ClusterRef): k8s.KubeConfig {
  const where = ref.kubeconfig ?? defaultSource();
  if (!where)
    throw new KubeConfigError(
      `no kubeconfig on the worker: target.kubeconfig not set, KUBECONFIG unset, ${path.join(homedir(), '.kube', 'config')} missing and not running in a cluster`,
    );
  const kc = new k8s.KubeConfig();
  try {
    if (ref.kubeconfig) kc.loadFromFile(ref.kubeconfig);
    else kc.loadFromDefault();
  } catch (e) {
    throw new KubeConfigError(`kubeconfig ${where} cannot be loaded (${((e as Error).message ?? '').split('\n')[0]})`);
  }
  if (ref.context) {
    if (!kc.getContexts().some((c) => c.name === ref.context))
      throw new KubeConfigError(
        `kubeconfig ${where} has no context "${ref.context}" (has: ${
          kc
            .getContexts()
            .map((c) => c.name)
            .join(', ') || 'none'
        })`,
      );
    kc.setCurrentContext(ref.context);
  } else if (!kc.getCurrentContext() || !kc.getContextObject(kc.getCurrentContext()))
    throw new KubeConfigError(`kubeconfig ${where} has no current context (set current-context or target.context)`);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeConfigError(`kubeconfig ${where}: context ${kc.getCurrentContext()} names no cluster`);
  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify)
    throw new KubeConfigError(
      `kubeconfig ${where}: the API server ${cluster.server} of cluster ${cluster.name} is plain HTTP without insecure-skip-tls-verify, which the Kubernetes client refuses (use https, or set insecure-skip-tls-verify: true)`,
    );
  return kc;
}

/**
 * Load a kubeconfig (cached per process) and build the clients.
 * @throws KubeConfigError when no API call through the config can succeed ({@link loadKubeConfig})
 */
export function kubeFor(ref: ClusterRef): Kube {
  const key = `${ref.kubeconfig ?? ''}\u0000${ref.context ?? ''}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const kc = loadKubeConfig(ref);
  const kube = { kc, core: kc.makeApiClient(k8s.CoreV1Api), storage: kc.makeApiClient(k8s.StorageV1Api) };
  cache.set(key, kube);
  return kube;
}

/** Forget cached clients (tests that stop a cluster and start another on the same kubeconfig path). */
export function forgetKubeClients(): void {
  cache.clear();
}

/** HTTP status of a failed API call (`ApiException.code`), or `undefined` for a network error. */
export function statusOf(e: unknown): number | undefined {
  const c = (e as { code?: unknown })?.code;
  return typeof c === 'number' ? c : undefined;
}

/** The API server's `Status.message` of a failed call, else the error's message (first line). */
export function apiMessage(e: unknown): string {
  const body = (e as { body?: unknown })?.body;
  try {
    const b = typeof body === 'string' ? (JSON.parse(body) as { message?: string }) : (body as { message?: string });
    if (b?.message) return b.message;
  } catch {
    // not JSON
  }
  return ((e as Error)?.message ?? String(e)).split('\n')[0];
}

/** `fn()`, or `undefined` when the API answers 404. @throws other errors */
export async function orMissing<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (statusOf(e) === 404) return undefined;
    throw e;
  }
}

/** `fn()`; a 404 is success (the object is already gone). @returns whether something was deleted */
export async function deleteIgnoringMissing(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch (e) {
    if (statusOf(e) === 404) return false;
    throw e;
  }
}

/**
 * `fn()` (a create); a 409 AlreadyExists is not an error.
 * @returns `created` or `exists`
 */
export async function createOrExists(fn: () => Promise<unknown>): Promise<'created' | 'exists'> {
  try {
    await fn();
    return 'created';
  } catch (e) {
    if (statusOf(e) === 409) return 'exists';
    throw e;
  }
}

/** The names of a cell's objects: deterministic from run and cell, DNS-1123. */
export interface CellNames {
  /** `chb-<cell key, lower-case, [a-z0-9-], ≤ 40>-<8 hex of sha256(runId + '/' + cellKey)>`. */
  pod: string;
  /** `<pod>-data`. */
  pvc: string;
}

/**
 * Names of the pod and PVC of a cell. Two cells (or runs) never share them: the hash covers the run
 * id and the cell key; the readable part is the cell key.
 */
export function cellNames(runId: string, cellKey: string): CellNames {
  const pod = cellObjectName('chb', runId, cellKey, 40);
  return { pod, pvc: `${pod}-data` };
}
