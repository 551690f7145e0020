/**
 * The bisect demo (`npm run demo:bisect`): `examples/bisect.yaml` bisected on real engines (the
 * installed PyPI chdb builds and npm chdb 26.7, hosted by the embedded engine server) from the oldest
 * to the newest version by one `bisectVersions` workflow on a dev server started here, following the
 * query's read_rows (`system.query_log.read_rows` of its warm run), then attributing the change.
 * Last line:
 *
 *     bisect demo: versions N, cells run M, first changed <version>, attributed <verdict>, report <path>
 *
 * BISECT_DEMO_SCALE overrides the rows (CI: small), BISECT_DEMO_QUERY the query (default q1),
 * BISECT_DEMO_GOOD / BISECT_DEMO_BAD the labels (default 23.10 / 26.9). Set TEMPORAL_ADDRESS to
 * use a server you run. Exit code 1 when the workflow fails.
 */
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { startDemoEnv } from './env';
import { readSpecFile } from '../src/lib/spec-file';
import { newRunId } from '../src/temporal/run-client';
import type { BisectResult } from '../src/workflows/bisect-versions';

async function main(): Promise<void> {
  const raw = readSpecFile(path.join(REPO_ROOT, 'examples', 'bisect.yaml')) as Record<string, unknown>;
  const scale = process.env.BISECT_DEMO_SCALE ? Number(process.env.BISECT_DEMO_SCALE) : undefined;
  const spec = { ...raw, ...(scale ? { scale } : {}) };
  const good = process.env.BISECT_DEMO_GOOD ?? '23.10';
  const bad = process.env.BISECT_DEMO_BAD ?? '26.9';
  const query = process.env.BISECT_DEMO_QUERY ?? 'q1';
  const env = await startDemoEnv('bisect demo');
  try {
    const runId = newRunId('bisect');
    console.error(`bisect demo: run ${runId}: ${query} read_rows, ${good} → ${bad}, ${String(spec.scale)} rows`);
    const t0 = Date.now();
    const r = (await env.client.workflow.execute('bisectVersions', {
      taskQueue: env.cfg.taskQueue,
      workflowId: runId,
      args: [{ spec, good, bad, query, metric: 'read_rows' }],
    })) as BisectResult;
    for (const s of r.steps) console.error(`bisect demo:   ${s.version}: ${s.side}, ${s.figure} (${s.reason})`);
    for (const p of r.attribution?.probes ?? [])
      console.error(
        `bisect demo:   attribution probe ${p.settings.join(', ')}: change ${p.disappeared ? 'gone' : 'stays'}`,
      );
    console.error(`bisect demo: finished in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    console.log(
      `bisect demo: versions ${r.versions.length}, cells run ${r.cellsRun}, first changed ${r.firstChanged ?? 'none'}, attributed ${r.verdict}, report ${r.reportPath}`,
    );
  } finally {
    await env.stop();
  }
}

main().catch((e) => {
  console.error(`bisect demo failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
