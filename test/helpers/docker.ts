/**
 * A private Docker engine for tests (`src/targets/docker/private-engine.ts`: dockerd as root on a
 * socket under a temp dir, no bridge, no iptables) with the local ClickHouse 18.16 image built on it,
 * and `DOCKER_HOST` pointed at it for the docker target (the target reads only the environment).
 */
import { resetDockerClient } from '../../src/targets/docker';
import { buildLocalClickHouseImage, type LocalImage } from '../../src/targets/docker/local-image';
import {
  privateEngineUnavailable,
  startPrivateEngine,
  type PrivateEngine,
} from '../../src/targets/docker/private-engine';

/** A running private engine with the 18.16 image, and `DOCKER_HOST` set to it. */
export interface DockerTestEngine {
  engine: PrivateEngine;
  image: LocalImage;
  /** Stop the engine, restore `DOCKER_HOST`. Idempotent. */
  stop(): Promise<void>;
}

/** Why the docker tests cannot run here (`test(..., { skip })` text), or `undefined`. */
export function dockerSkipReason(): string | undefined {
  const why = privateEngineUnavailable();
  return why ? `docker target tests need a private dockerd: ${why}` : undefined;
}

/**
 * Start a private engine, build (or reuse) the 18.16 image on it and point `DOCKER_HOST` at it.
 * @throws Error when dockerd does not come up or the image does not build
 */
export async function startDockerTestEngine(): Promise<DockerTestEngine> {
  const engine = await startPrivateEngine();
  const before = process.env.DOCKER_HOST;
  process.env.DOCKER_HOST = engine.dockerHost;
  resetDockerClient();
  let image: LocalImage;
  try {
    image = await buildLocalClickHouseImage(engine.docker);
  } catch (e) {
    await engine.stop();
    throw e;
  }
  return {
    engine,
    image,
    async stop() {
      await engine.stop();
      if (before === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = before;
      resetDockerClient();
    },
  };
}
