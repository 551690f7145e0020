/**
 * Provisioning the docker target: per cell one container (named and labelled per run and cell,
 * `./engine.ts`) and one named volume at `/var/lib/clickhouse`, on host networking with the server
 * bound to 127.0.0.1 on free ports (config overrides after `--`, which the official image's
 * entrypoint and the server itself accept, 18.16 included), limits from `target.resources` as the
 * container's `NanoCpus`, `Memory` and `BlkioDevice{Read,Write}{Bps,IOps}` on the block device of the
 * engine's data root.
 *
 * Idempotent: a retried provision finds the cell's container by name and adopts it when it runs and
 * answers; a container left stopped or half-started is removed (the volume, with the data, is kept)
 * and made again; a name taken by another run's or cell's container is `ResourceConflict`; a 409 on
 * create (a concurrent attempt) goes back to the lookup.
 */
import { ApplicationFailure } from '@temporalio/common';
import type Docker from 'dockerode';
import { pack } from 'tar-stream';
import { FAILURE } from '../../schema/failures';
import { freePorts } from '../../lib/net';
import { pollUntil } from '../../lib/poll';
import { httpGet } from '../../process/http';
import { blockDeviceOf, CgroupUnavailableError } from '../../process/cgroup';
import { describeLimits, resourceLimits } from '../../schema/resources';
import type { DockerTargetSpec } from '../../schema/run-spec';
import type { DockerFacts, ProvisionRequest, TargetHandle } from '../../schema/target';
import { versionMatchesLabel } from '../../schema/version';
import {
  CELL_LABEL,
  dockerCellNames,
  engineText,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  orMissing,
  OWNER_LABEL,
  PORTS_LABEL,
  RUN_LABEL,
  statusOf,
} from './engine';

/** Where the volume is mounted in the container (the image's `<path>`). */
const DATA_PATH = '/var/lib/clickhouse';

/**
 * `users.d/chbench.xml`, put into the container's `/etc/clickhouse-server/` before it starts: profile
 * `default` logs every query (`log_queries = 1`), so `system.query_log` holds the cell's statements
 * for the archive at teardown, as the local target's generated users.xml does. Root `<yandex>`:
 * 18.16 needs it, newer versions accept it.
 */
export const USERS_D_XML =
  '<?xml version="1.0"?>\n<!-- Written by chbench into this cell container. -->\n<yandex>\n    <profiles>\n        <default>\n            <log_queries>1</log_queries>\n        </default>\n    </profiles>\n</yandex>\n';

/** A tar archive holding `users.d/chbench.xml` ({@link USERS_D_XML}). */
function usersDArchive(): Promise<Buffer> {
  const p = pack();
  p.entry({ name: 'users.d/', type: 'directory', mode: 0o755 });
  p.entry({ name: 'users.d/chbench.xml', mode: 0o644 }, USERS_D_XML);
  p.finalize();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    p.on('data', (c) => chunks.push(c as Buffer));
    p.on('end', () => resolve(Buffer.concat(chunks)));
    p.on('error', reject);
  });
}

/** The image of a version label: `target.images`, else `clickhouse/clickhouse-server:<label>`. */
export function dockerImageFor(spec: Pick<DockerTargetSpec, 'images'>, version: string): string {
  return spec.images?.[version] ?? `clickhouse/clickhouse-server:${version}`;
}

const nonRetryable = (type: string, message: string) =>
  ApplicationFailure.create({ type, nonRetryable: true, message });

/**
 * Have `image` on the engine: found (`GET /images/<image>/json`), else pulled when `spec.pull`.
 * @returns the image id
 * @throws ApplicationFailure `ImagePull` (non-retryable) when it is missing and cannot be pulled
 *   (the engine's text), or pulling took longer than `timeouts.pullMs`
 */
async function ensureImage(docker: Docker, spec: DockerTargetSpec, image: string): Promise<string> {
  const found = await orMissing(() => docker.getImage(image).inspect());
  if (found) return found.Id;
  if (!spec.pull)
    throw nonRetryable(
      FAILURE.ImagePull,
      `docker target: image ${image} is not on the engine and target.pull is false`,
    );
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      (async () => {
        const stream = await docker.pull(image);
        await new Promise<void>((resolve, reject) =>
          docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
            const failed = out?.find((o) => o.error);
            if (err || failed) reject(err ?? new Error(failed!.error));
            else resolve();
          }),
        );
      })(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`still pulling after ${spec.timeouts.pullMs} ms`)),
          spec.timeouts.pullMs,
        );
      }),
    ]);
  } catch (e) {
    throw nonRetryable(
      FAILURE.ImagePull,
      `docker target: image ${image} is not on the engine and cannot be pulled: ${engineText(e)} (check the tag, target.images, and the engine's registry access)`,
    );
  } finally {
    clearTimeout(timer);
  }
  const img = await docker.getImage(image).inspect();
  return img.Id;
}

/** The limits of `target.resources` as HostConfig fields, and the line saying what was applied. */
export interface DockerLimits {
  hostConfig: Docker.HostConfig;
  line: string;
}

/**
 * HostConfig limits of `spec.resources`: `NanoCpus`, `Memory` (and `MemorySwap` equal, so no swap),
 * and the volume profile on `spec.device` or the block device of the engine's `DockerRootDir`.
 * @throws ApplicationFailure `TargetUnavailable` (non-retryable) when the data root's block device
 *   cannot be found on this host (give `target.device`)
 */
export async function dockerLimits(docker: Docker, spec: DockerTargetSpec): Promise<DockerLimits | undefined> {
  if (!spec.resources) return undefined;
  const l = resourceLimits(spec.resources);
  const hc: Docker.HostConfig = {};
  if (l.cpus !== undefined) hc.NanoCpus = Math.round(l.cpus * 1e9);
  if (l.memoryBytes !== undefined) {
    hc.Memory = l.memoryBytes;
    hc.MemorySwap = l.memoryBytes;
  }
  let where = '';
  if (l.volume) {
    let device = spec.device;
    if (!device) {
      const root = (await docker.info()).DockerRootDir as string;
      try {
        const d = blockDeviceOf(root);
        device = `/dev/${d.name}`;
        where = `; volume limits on ${device} (${d.major}:${d.minor}, holds the engine's data root ${root})`;
      } catch (e) {
        if (!(e instanceof CgroupUnavailableError)) throw e;
        throw nonRetryable(
          FAILURE.TargetUnavailable,
          `docker target: the block device of the engine's data root ${root} cannot be found on this host (${e.missing.join('; ')}); set target.device`,
        );
      }
    } else where = `; volume limits on ${device} (target.device)`;
    const v = l.volume;
    const rate = (r: number | undefined) => (r === undefined ? undefined : [{ Path: device, Rate: r }]);
    if (v.readBytesPerSec !== undefined) hc.BlkioDeviceReadBps = rate(v.readBytesPerSec);
    if (v.writeBytesPerSec !== undefined) hc.BlkioDeviceWriteBps = rate(v.writeBytesPerSec);
    if (v.readIops !== undefined) hc.BlkioDeviceReadIOps = rate(v.readIops);
    if (v.writeIops !== undefined) hc.BlkioDeviceWriteIOps = rate(v.writeIops);
  }
  const fields = Object.keys(hc).join(', ');
  return { hostConfig: hc, line: `${describeLimits(l)}${where}; Docker HostConfig ${fields}` };
}

/** The ports a container was created with (its {@link PORTS_LABEL}). */
function portsOf(c: Docker.ContainerInspectInfo): DockerFacts['ports'] | undefined {
  try {
    const p = JSON.parse(c.Config.Labels?.[PORTS_LABEL] ?? 'null') as DockerFacts['ports'] | null;
    return p && typeof p.http === 'number' ? p : undefined;
  } catch {
    return undefined;
  }
}

/** `SELECT version()` over HTTP; `undefined` while it does not answer. */
async function serverVersion(url: string): Promise<string | undefined> {
  try {
    const r = await httpGet(`${url}/?query=${encodeURIComponent('SELECT version()')}`, 5_000);
    return r.status === 200 ? r.body.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The non-retryable failure of a container the kernel OOM-killed (`State.OOMKilled`). */
export function oomFailure(c: Docker.ContainerInspectInfo): ApplicationFailure {
  const mem = c.HostConfig?.Memory;
  return nonRetryable(
    FAILURE.TargetUnavailable,
    `docker target: container ${c.Name.replace(/^\//, '')} was OOM-killed (State.OOMKilled, exit ${c.State.ExitCode}${
      mem ? `, memory limit ${mem} bytes` : ''
    }): the server needs more memory than target.resources.memory allows`,
  );
}

/** Remove a container (forced), 404 = already gone. */
export async function removeContainer(docker: Docker, name: string): Promise<void> {
  try {
    await docker.getContainer(name).remove({ force: true, v: false });
  } catch (e) {
    if (statusOf(e) !== 404 && !/removal of container .* is already in progress/i.test(engineText(e))) throw e;
  }
  await pollUntil(async () => !(await orMissing(() => docker.getContainer(name).inspect())), {
    what: `container ${name} removed`,
    timeoutMs: 30_000,
    intervalMs: 200,
  });
}

/** Remove a volume, 404 = already gone. @throws Error when the engine refuses (409: still in use) */
export async function removeVolume(docker: Docker, name: string): Promise<void> {
  try {
    await docker.getVolume(name).remove();
  } catch (e) {
    if (statusOf(e) !== 404) throw e;
  }
}

/** The last lines of a container's output (stdout and stderr). Never throws. */
export async function containerLogTail(docker: Docker, name: string, lines = 20): Promise<string> {
  try {
    const b = (await docker.getContainer(name).logs({ stdout: true, stderr: true, tail: lines })) as unknown as Buffer;
    // Multiplexed frames: an 8-byte header before each chunk.
    const out: string[] = [];
    for (let i = 0; i + 8 <= b.length;) {
      const n = b.readUInt32BE(i + 4);
      out.push(b.subarray(i + 8, i + 8 + n).toString('utf8'));
      i += 8 + n;
    }
    return (out.length ? out.join('') : b.toString('utf8')).trim();
  } catch (e) {
    return `(no log: ${engineText(e)})`;
  }
}

function handleOf(req: ProvisionRequest, facts: DockerFacts, version: string, adopted: boolean): TargetHandle {
  return {
    kind: 'docker',
    url: `http://127.0.0.1:${facts.ports.http}`,
    database: 'default',
    username: 'default',
    runId: req.runId,
    cellKey: req.cellKey,
    provisionedBy: `docker container ${facts.container} (${facts.containerId.slice(0, 12)}) of ${facts.image} (${facts.imageId.slice(0, 19)}), ClickHouse ${version}, volume ${facts.volume}, host network 127.0.0.1:${facts.ports.http}${adopted ? ', adopted' : ''}${facts.limits ? `; ${facts.limits}` : ''}`,
    docker: facts,
  };
}

/**
 * Start (or adopt) the cell's container on the environment's engine and wait until its server
 * answers `SELECT version()` on its loopback port.
 * @param docker a client of the engine (`dockerClient()`)
 * @returns handle `{kind: 'docker', url: 'http://127.0.0.1:<http port>', database: 'default',
 *   username: 'default', docker: DockerFacts, provisionedBy}`
 * @throws ApplicationFailure, non-retryable: `ImagePull` (image missing and not pullable),
 *   `ResourceConflict` (the name is another cell's), `VersionMismatch` (the image runs another
 *   version; container and volume removed), `TargetUnavailable` (OOM-killed; the data root's device
 *   unknown). Error (retried) when the server does not answer within `timeouts.readyMs` or exits
 *   (message has its log tail; the container is removed, the volume kept)
 */
export async function provisionDocker(
  docker: Docker,
  spec: DockerTargetSpec,
  req: ProvisionRequest,
): Promise<TargetHandle> {
  const names = dockerCellNames(req.runId, req.cellKey);
  const image = dockerImageFor(spec, req.version);
  const imageId = await ensureImage(docker, spec, image);
  const limits = await dockerLimits(docker, spec);
  const labels = {
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
    [RUN_LABEL]: req.runId,
    [CELL_LABEL]: req.cellKey,
    ...(req.owner ? { [OWNER_LABEL]: JSON.stringify(req.owner) } : {}),
  };
  for (let round = 1; ; round++) {
    const existing = await orMissing(() => docker.getContainer(names.container).inspect());
    if (existing) {
      const l = existing.Config.Labels ?? {};
      if (l[RUN_LABEL] !== req.runId || l[CELL_LABEL] !== req.cellKey)
        throw nonRetryable(
          FAILURE.ResourceConflict,
          `docker target: container name ${names.container} is taken by ${l[MANAGED_BY_LABEL] === MANAGED_BY_VALUE ? `run ${l[RUN_LABEL]} cell ${l[CELL_LABEL]}` : 'a container chbench did not make'}`,
        );
      if (existing.State.OOMKilled) throw oomFailure(existing);
      const ports = portsOf(existing);
      if (existing.State.Running && ports) {
        const version = await serverVersion(`http://127.0.0.1:${ports.http}`);
        if (version && versionMatchesLabel(version, req.version) && existing.Image === imageId)
          return handleOf(req, factsOf(existing, names, image, ports, limits?.line), version, true);
      }
      // Stopped, half-started or not answering: make it again on the same volume (the data stays).
      await removeContainer(docker, names.container);
    }
    await docker.createVolume({ Name: names.volume, Labels: labels });
    const [http, tcp, interserver, mysql, postgresql] = await freePorts(5);
    const ports = { http: http!, tcp: tcp!, interserver: interserver! };
    let container: Docker.Container;
    try {
      container = await docker.createContainer({
        name: names.container,
        Image: image,
        Cmd: [
          '--',
          '--listen_host=127.0.0.1',
          `--http_port=${ports.http}`,
          `--tcp_port=${ports.tcp}`,
          `--interserver_http_port=${ports.interserver}`,
          // Newer images' default config also listens on these; with host networking every cell needs its own.
          `--mysql_port=${mysql}`,
          `--postgresql_port=${postgresql}`,
        ],
        Labels: { ...labels, [PORTS_LABEL]: JSON.stringify(ports) },
        HostConfig: {
          NetworkMode: 'host',
          Mounts: [{ Type: 'volume', Source: names.volume, Target: DATA_PATH }],
          RestartPolicy: { Name: 'no' },
          ...limits?.hostConfig,
        },
      });
    } catch (e) {
      // A concurrent attempt created it meanwhile: look again.
      if (statusOf(e) === 409 && round < 3) continue;
      throw e;
    }
    try {
      await container.putArchive(await usersDArchive(), { path: '/etc/clickhouse-server' });
      await container.start();
    } catch (e) {
      if (statusOf(e) !== 304) {
        await removeContainer(docker, names.container).catch(() => undefined);
        throw new Error(`docker target: container ${names.container} did not start: ${engineText(e)}`, { cause: e });
      }
    }
    const url = `http://127.0.0.1:${ports.http}`;
    let version: string;
    try {
      version = await pollUntil(
        async () => {
          const v = await serverVersion(url);
          if (v) return v;
          const c = await docker.getContainer(names.container).inspect();
          if (c.State.OOMKilled) throw oomFailure(c);
          if (!c.State.Running)
            throw new Error(
              `docker target: container ${names.container} exited (${c.State.ExitCode}) before its server answered on ${url}: ${await containerLogTail(docker, names.container)}`,
            );
          return undefined;
        },
        {
          what: `ClickHouse in container ${names.container} on ${url}`,
          timeoutMs: spec.timeouts.readyMs,
          intervalMs: 250,
          stopOn: () => true,
        },
      );
    } catch (e) {
      // The log tail is read before the container goes (the exit message already carries it).
      const tail = e instanceof ApplicationFailure ? '' : await containerLogTail(docker, names.container);
      await removeContainer(docker, names.container).catch(() => undefined);
      if (e instanceof ApplicationFailure) throw e;
      const msg = (e as Error).message;
      if (/Address already in use/i.test(`${msg}\n${tail}`) && round < 3) continue;
      throw new Error(msg.includes('exited') ? msg : `${msg}: ${tail}`, { cause: e });
    }
    if (!versionMatchesLabel(version, req.version)) {
      await removeContainer(docker, names.container).catch(() => undefined);
      await removeVolume(docker, names.volume).catch(() => undefined);
      throw ApplicationFailure.create({
        type: FAILURE.VersionMismatch,
        nonRetryable: true,
        message: `docker target: image ${image} runs ClickHouse ${version}, but the cell asks for version ${req.version}; point target.images.${req.version} at an image of that version`,
        details: [{ actual: version, label: req.version }],
      });
    }
    const c = await docker.getContainer(names.container).inspect();
    return handleOf(req, factsOf(c, names, image, ports, limits?.line), version, false);
  }
}

function factsOf(
  c: Docker.ContainerInspectInfo,
  names: { container: string; volume: string },
  image: string,
  ports: DockerFacts['ports'],
  limits: string | undefined,
): DockerFacts {
  return {
    container: names.container,
    containerId: c.Id,
    volume: names.volume,
    image,
    imageId: c.Image,
    ports,
    startedAt: c.State.StartedAt,
    ...(limits ? { limits } : {}),
  };
}

/**
 * Whether the handle's container is still the one it points at and running.
 * @returns why it is lost (gone, re-created, OOM-killed, exited, restarted), or `undefined`
 */
export async function containerLost(docker: Docker, handle: TargetHandle): Promise<string | undefined> {
  const f = handle.docker;
  if (!f) return 'the handle has no docker facts';
  const c = await orMissing(() => docker.getContainer(f.container).inspect());
  const id = `container ${f.container}`;
  if (!c) return `${id} is gone`;
  if (c.Id !== f.containerId)
    return `${id} was re-created (id ${c.Id.slice(0, 12)}, the handle's ${f.containerId.slice(0, 12)})`;
  if (c.State.OOMKilled)
    return `${id} was OOM-killed (State.OOMKilled, memory limit ${c.HostConfig?.Memory ?? '?'} bytes)`;
  if (!c.State.Running) return `${id} exited (${c.State.ExitCode}${c.State.Error ? `: ${c.State.Error}` : ''})`;
  if (c.State.StartedAt !== f.startedAt)
    return `${id} restarted (started ${c.State.StartedAt}, the handle's ${f.startedAt}): the server lost its state`;
  return undefined;
}
