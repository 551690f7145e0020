/**
 * The docker demo (`npm run demo:docker`): starts a private Docker engine (dockerd as root on a socket
 * under a temp dir, no bridge, no iptables), builds the ClickHouse 18.16 image from Debian's files on
 * it (reused by content hash), and runs `examples/docker.yaml` — 2 cells, one container and volume
 * each, gp3 limits — as one `benchmarkMatrix` workflow on a dev server started here, ending with:
 *
 *     docker demo: cells 2, succeeded 2, leftover containers 0, report <path>
 *
 * "leftover containers": containers labelled chbench.managed-by=chbench on the engine after the run
 * (`GET /containers/json?all=1`), plus volumes so labelled when any. Exit code 1 when a cell failed or
 * something was left. Needs root and /usr/sbin/dockerd (Debian: docker.io).
 */
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { startDemoEnv } from './env';
import { readSpecFile } from '../src/lib/spec-file';
import { checkSpec } from '../src/targets/check-spec';
import { newRunId, runAndFollow } from '../src/temporal/run-client';
import { resetDockerClient } from '../src/targets/docker';
import { buildLocalClickHouseImage } from '../src/targets/docker/local-image';
import { startPrivateEngine } from '../src/targets/docker/private-engine';

async function main(): Promise<void> {
  const engine = await startPrivateEngine();
  let failed = false;
  try {
    process.env.DOCKER_HOST = engine.dockerHost;
    resetDockerClient();
    const image = await buildLocalClickHouseImage(engine.docker);
    console.error(
      `docker demo: private dockerd pid ${engine.pid} on ${engine.dockerHost}; image ${image.tag} ${image.reused ? 'reused' : `built in ${(image.buildMs / 1000).toFixed(1)} s`}`,
    );
    const raw = readSpecFile(path.join(REPO_ROOT, 'examples', 'docker.yaml')) as Record<string, any>;
    raw.target = { ...raw.target, images: { '18.16': image.tag } };
    const { spec, problems } = checkSpec(raw);
    if (!spec || problems.length) throw new Error(`invalid spec examples/docker.yaml:\n  - ${problems.join('\n  - ')}`);
    const env = await startDemoEnv('docker demo');
    try {
      const runId = newRunId(spec.name);
      const t0 = Date.now();
      const r = await runAndFollow(env.client, raw, runId, env.cfg.taskQueue, { progress: true });
      console.error(
        `docker demo: finished in ${((Date.now() - t0) / 1000).toFixed(0)} s; cells: ${r.cells.map((c) => `${c.cellKey} ${c.status}`).join(', ')}`,
      );
      const label = JSON.stringify({ label: ['chbench.managed-by=chbench'] });
      const containers = await engine.docker.listContainers({ all: true, filters: label });
      const volumes = (await engine.docker.listVolumes({ filters: label })).Volumes ?? [];
      const ok = r.cells.filter((c) => c.status === 'succeeded').length;
      console.log(
        `docker demo: cells ${r.cells.length}, succeeded ${ok}, leftover containers ${containers.length}${volumes.length ? `, leftover volumes ${volumes.length}` : ''}, report ${r.reportPath.replace(/\.md$/, '.html')}`,
      );
      if (ok !== r.cells.length || containers.length || volumes.length) {
        failed = true;
        console.error('docker demo: FAILED: a cell did not succeed or something was left on the engine');
      }
    } finally {
      await env.stop();
    }
  } finally {
    await engine.stop();
  }
  if (failed) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`docker demo failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
