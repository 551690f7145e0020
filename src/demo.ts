/**
 * The demo (`npm run demo`): start a real Temporal dev server (with its Web UI) on free ports, a
 * worker in this process, run `examples/demo.yaml` as a `benchmarkMatrix` workflow, print the
 * report path, and stop everything. Results stay under `results/<runId>/`.
 *
 * Set TEMPORAL_ADDRESS to use a server you already run instead of starting one.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from './temporal/dev-server';
import { createWorker, installRuntime } from './worker';
import { loadConfig, logLevel, REPO_ROOT } from './config';
import { readSpecFile } from './lib/spec-file';
import { checkSpec } from './activities/matrix/validate-spec';
import { newRunId, runAndFollow } from './temporal/run-client';
import { stopResultsDbsStartedHere } from './results/db';

async function main(): Promise<void> {
  const specFile = process.argv[2] ?? path.join(REPO_ROOT, 'examples', 'demo.yaml');
  const raw = readSpecFile(specFile);
  const { spec, problems } = checkSpec(raw);
  if (!spec || problems.length) throw new Error(`invalid spec ${specFile}:\n  - ${problems.join('\n  - ')}`);
  installRuntime(logLevel('WARN'));
  let server: DevServer | undefined;
  const cfg = loadConfig();
  if (!process.env.TEMPORAL_ADDRESS) {
    server = await startDevServer({ ui: true });
    cfg.temporalAddress = server.address;
    console.error(`demo: Temporal dev server on ${server.address}, Web UI ${server.uiUrl}`);
  }
  const { worker, connection: wconn } = await createWorker(cfg);
  const running = worker.run();
  const connection = await Connection.connect({ address: cfg.temporalAddress });
  try {
    const client = new Client({ connection, namespace: cfg.namespace });
    const runId = newRunId(spec.name);
    console.error(
      `demo: run ${runId}: ${spec.workload}, ${spec.scale} rows, ${spec.target.kind} target, codecs ${spec.matrix.codec.join(' / ')}`,
    );
    const t0 = Date.now();
    const r = await runAndFollow(client, raw, runId, cfg.taskQueue, { progress: true });
    console.error(
      `demo: finished in ${((Date.now() - t0) / 1000).toFixed(0)} s; cells: ${r.cells.map((c) => `${c.cellKey} ${c.status}`).join(', ')}`,
    );
    console.log(r.reportPath);
    if (r.cells.some((c) => c.status === 'failed')) process.exitCode = 1;
  } finally {
    await connection.close();
    worker.shutdown();
    await running;
    await wconn.close();
    await server?.stop();
    // The results database's engine process (started by the run's storeRun) exits after its idle period; the demo does not wait.
    await stopResultsDbsStartedHere();
  }
}

main().catch((e) => {
  console.error(`demo failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
