/**
 * The demo (`npm run demo`): start a real Temporal dev server (with its Web UI) on free ports, a
 * worker in this process, run `examples/demo.yaml` as a `benchmarkMatrix` workflow, print the
 * report path, and stop everything. Results stay under `results/<runId>/`.
 *
 * Set TEMPORAL_ADDRESS to use a server you already run instead of starting one.
 */
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { startDemoEnv } from './env';
import { readSpecFile } from '../src/lib/spec-file';
import { checkSpec } from '../src/targets/check-spec';
import { codecProfileOf } from '../src/schema/run-spec';
import { newRunId, runAndFollow } from '../src/temporal/run-client';

async function main(): Promise<void> {
  const specFile = process.argv[2] ?? path.join(REPO_ROOT, 'examples', 'demo.yaml');
  const raw = readSpecFile(specFile);
  const { spec, problems } = checkSpec(raw);
  if (!spec || problems.length) throw new Error(`invalid spec ${specFile}:\n  - ${problems.join('\n  - ')}`);
  const env = await startDemoEnv('demo');
  const { client, cfg } = env;
  try {
    const runId = newRunId(spec.name);
    console.error(
      `demo: run ${runId}: ${spec.workload}, ${spec.scale} rows, ${spec.target.kind} target, codecs ${spec.matrix.codec.map((e) => codecProfileOf(e).name).join(' / ')}`,
    );
    const t0 = Date.now();
    const r = await runAndFollow(client, raw, runId, cfg.taskQueue, { progress: true });
    console.error(
      `demo: finished in ${((Date.now() - t0) / 1000).toFixed(0)} s; cells: ${r.cells.map((c) => `${c.cellKey} ${c.status}`).join(', ')}`,
    );
    if (r.verdicts)
      console.error(`demo: decision: ${r.verdicts.decision}; ${r.verdicts.control} — verdicts.json beside the report`);
    console.log(r.reportPath);
    if (r.cells.some((c) => c.status === 'failed')) process.exitCode = 1;
  } finally {
    await env.stop();
  }
}

main().catch((e) => {
  console.error(`demo failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
