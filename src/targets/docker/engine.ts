/**
 * The Docker engine as the docker target sees it: a dockerode client of the engine the environment
 * names (`DOCKER_HOST`, `DOCKER_TLS_VERIFY`, `DOCKER_CERT_PATH`, read by docker-modem; else the local
 * socket `/var/run/docker.sock`), the per-cell names and labels, and the engine's error shapes.
 */
import { cellObjectName } from '../../lib/cell-object-name';
import Docker from 'dockerode';

/** Label on every container and volume chbench creates (value {@link MANAGED_BY_VALUE}). */
export const MANAGED_BY_LABEL = 'chbench.managed-by';
export const MANAGED_BY_VALUE = 'chbench';
/** Label: the run id. */
export const RUN_LABEL = 'chbench.run';
/** Label: the cell key. */
export const CELL_LABEL = 'chbench.cell';
/** Label: the owning workflow ({@link TemporalOwner} as JSON), read by `chbench gc`. */
export const OWNER_LABEL = 'chbench.owner';
/** Label: the loopback ports the server listens on (JSON `{http, tcp, interserver}`). */
export const PORTS_LABEL = 'chbench.ports';

let client: Docker | undefined;

/** The dockerode client of the environment's engine (one per process). */
export function dockerClient(): Docker {
  client ??= new Docker();
  return client;
}

/** Forget the cached client (tests that point `DOCKER_HOST` at another engine). */
export function resetDockerClient(): void {
  client = undefined;
}

/** Names of a cell's container and volume. */
export interface DockerCellNames {
  /** `chbench-<cell key, readable>-<8 hex of sha256(run/cell)>`. */
  container: string;
  /** `<container>-data`. */
  volume: string;
}

/** The cell's container and volume names: unique per run and cell, stable across attempts. */
export function dockerCellNames(runId: string, cellKey: string): DockerCellNames {
  const container = cellObjectName('chbench', runId, cellKey, 60);
  return { container, volume: `${container}-data` };
}

/** The engine's HTTP status of a dockerode error (`statusCode`), or undefined. */
export function statusOf(e: unknown): number | undefined {
  const s = (e as { statusCode?: unknown })?.statusCode;
  return typeof s === 'number' ? s : undefined;
}

/** The engine's message of an error (`json.message`), else the error's first line. */
export function engineText(e: unknown): string {
  const j = (e as { json?: { message?: string } })?.json;
  if (j?.message) return j.message;
  return ((e as Error)?.message ?? String(e)).split('\n')[0]!;
}

/** `fn()`, or `undefined` when the engine answers 404 (no such container/volume/image). */
export async function orMissing<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (statusOf(e) === 404) return undefined;
    throw e;
  }
}
