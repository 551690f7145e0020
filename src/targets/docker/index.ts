/**
 * The `docker` target: per cell one ClickHouse container and one named volume on the Docker engine
 * the environment names (`DOCKER_HOST`), on host networking with the server bound to 127.0.0.1 on
 * free ports (`provision.ts`); CPU, memory and volume-profile limits from `target.resources`. The
 * client is dockerode (`engine.ts`). `local-image.ts` builds a ClickHouse 18.16 image from Debian's
 * files for hosts without a registry; `private-engine.ts` starts a private `dockerd` for tests and
 * the docker demo.
 *
 * Capabilities: a real clickhouse-server (SQL verbs, HTTP summary, `system.processes`,
 * `system.query_log` as `local`); on the worker's host (its loopback port is reachable only there);
 * restartable (a lost container is made again on the same volume).
 */
import path from 'node:path';
import { writeFileAtomic } from '../../lib/fs';
import { DockerTargetSpec } from '../../schema/run-spec';
import type { TargetHandle } from '../../schema/target';
import { registerTarget } from '../registry';
import {
  archiveFromQueryLog,
  checkServer,
  killOnServer,
  progressFromProcesses,
  runningFromProcesses,
} from '../server-verbs';
import type { Target, TargetCheck } from '../target';
import { dockerCellNames, dockerClient, engineText } from './engine';
import {
  containerLogTail,
  containerLost,
  dockerImageFor,
  provisionDocker,
  removeContainer,
  removeVolume,
} from './provision';

export { dockerCellNames, dockerClient, resetDockerClient } from './engine';
export { dockerImageFor, dockerLimits, provisionDocker } from './provision';

/** Stop grace at teardown when the handle carries no spec: the spec's default, ms. */
const STOP_MS = (DockerTargetSpec.shape.timeouts.parse(undefined) as DockerTargetSpec['timeouts']).stopMs;

/** Stop (SIGTERM, SIGKILL after `graceMs`) and remove the container, then remove the volume; 404 = gone. */
async function removeCell(names: { container: string; volume: string }, graceMs: number): Promise<void> {
  const docker = dockerClient();
  try {
    await docker.getContainer(names.container).stop({ t: Math.ceil(graceMs / 1000) });
  } catch {
    // not running, or gone: remove below says which
  }
  await removeContainer(docker, names.container);
  await removeVolume(docker, names.volume);
}

/** The docker target. */
export const dockerTarget: Target<DockerTargetSpec> = {
  kind: 'docker',
  capabilities: {
    onWorkerHost: true,
    loopbackMeansWorkerHost: true,
    canKillRunning: true,
    countersWithoutQueryLog: 'none',
    summaryReadSource: 'http summary',
    runningStatementsFrom: 'system.processes',
    restartable: true,
    statementArchive: false,
  },
  provision: (spec, req) => provisionDocker(dockerClient(), spec, req),
  async teardown(handle: TargetHandle) {
    const f = handle.docker;
    if (!f) throw new Error(`docker handle of ${handle.runId}/${handle.cellKey} has no docker facts`);
    await removeCell({ container: f.container, volume: f.volume }, STOP_MS);
  },
  async teardownCell(spec, req) {
    const names = dockerCellNames(req.runId, req.cellKey);
    await removeCell(names, spec.timeouts.stopMs);
    return `removed container ${names.container} and volume ${names.volume} (if they existed)`;
  },
  describeTeardown(h) {
    const f = h.docker;
    return f
      ? `stop and remove container ${f.container} and volume ${f.volume} (the cell's data)`
      : 'nothing (no docker facts)';
  },
  async check(handle): Promise<TargetCheck> {
    try {
      const lost = await containerLost(dockerClient(), handle);
      if (lost) return { reachable: false, error: lost };
    } catch (e) {
      return { reachable: false, error: `docker engine: ${engineText(e)}` };
    }
    return checkServer(handle);
  },
  runningStatements: runningFromProcesses,
  statementProgress: progressFromProcesses,
  kill: killOnServer,
  /** `system.query_log` (as `local`), and the container's output saved beside `file` as `container-<name>.log`. */
  async archiveStatements(handle, prefix, file) {
    const f = handle.docker;
    let log = 'no container log (no docker facts)';
    if (f) {
      const out = path.join(path.dirname(file), `container-${f.container}.log`);
      writeFileAtomic(out, `${await containerLogTail(dockerClient(), f.container, 2000)}\n`);
      log = `container log ${out}`;
    }
    return `${await archiveFromQueryLog(handle, prefix, file)}; ${log}`;
  },
  /** `input`: `target.images` maps labels to image references; `worker host`: the engine answers `GET /_ping`. */
  checkSpec(target, versions, place) {
    const problems: string[] = [];
    if (place === 'input') {
      const images = target.images;
      if (images !== undefined && (typeof images !== 'object' || images === null || Array.isArray(images)))
        return ['target.images: must map a version label to an image'];
      for (const v of versions)
        if (typeof v === 'string') {
          const image = dockerImageFor({ images: images as Record<string, string> | undefined }, v);
          if (!/^[a-z0-9][a-z0-9._\-/:@]*$/i.test(image))
            problems.push(`target.images: version ${v} gives image ${JSON.stringify(image)}, not an image reference`);
        }
      return problems;
    }
    return problems;
  },
};

registerTarget(dockerTarget);
