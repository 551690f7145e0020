/**
 * The versions demo (`npm run demo:versions`): `examples/versions.yaml` — the `logs` workload at 1 M
 * rows over four ClickHouse releases (24.8, 25.8, 26.3, 26.9: PyPI chdb builds hosted by the
 * embedded engine server, installed on demand by the provision step) × LZ4 / ZSTD(3) — as one
 * `benchmarkMatrix` workflow on a dev server started here, ending with:
 *
 *     versions demo: cells N, succeeded N, versions <versions as served>, A/A control moves <n> of <m>, decision <one line>, report <path>
 *
 * "as served": each cell's `SELECT version()` read back at provisioning (provision.json), not the
 * label asked for. Exit code 1 when a cell failed or a served version does not match its label.
 *
 * VERSIONS_DEMO_SCALE overrides the rows, VERSIONS_DEMO_VERSIONS the versions and
 * VERSIONS_DEMO_CODECS the codecs (comma-separated, e.g. `24.8,26.9` and `LZ4`; CI runs two versions ×
 * LZ4 × shipped / pinned defaults at small scale). Set TEMPORAL_ADDRESS to use a server you run;
 * `--keep` leaves the dev server and its Web UI up.
 */
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { startDemoEnv } from './env';
import { readSpecFile } from '../src/lib/spec-file';
import { checkSpec } from '../src/targets/check-spec';
import { versionMatchesLabel } from '../src/schema/version';
import { newRunId, runAndFollow } from '../src/temporal/run-client';
import { loadRun } from '../src/results/report';

/** `examples/versions.yaml` with the demo's environment overrides applied. */
function demoSpec(): Record<string, unknown> {
  const raw = readSpecFile(path.join(REPO_ROOT, 'examples', 'versions.yaml')) as Record<string, any>;
  const scale = process.env.VERSIONS_DEMO_SCALE ? Number(process.env.VERSIONS_DEMO_SCALE) : undefined;
  const list = (v: string | undefined) =>
    v
      ?.split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  const versions = list(process.env.VERSIONS_DEMO_VERSIONS);
  const codecs = list(process.env.VERSIONS_DEMO_CODECS);
  // CI: fewer interleaved rounds per re-run pair (the path, not the power).
  const rounds = process.env.VERSIONS_DEMO_CONFIRM_ROUNDS
    ? Number(process.env.VERSIONS_DEMO_CONFIRM_ROUNDS)
    : undefined;
  return {
    ...raw,
    ...(scale ? { scale } : {}),
    ...(rounds !== undefined ? { verdicts: { ...raw.verdicts, confirmRounds: rounds } } : {}),
    matrix: {
      ...raw.matrix,
      ...(versions?.length ? { version: versions } : {}),
      ...(codecs?.length ? { codec: codecs } : {}),
    },
  };
}

async function main(): Promise<void> {
  const raw = demoSpec();
  const { spec, problems } = checkSpec(raw);
  if (!spec || problems.length) throw new Error(`invalid spec examples/versions.yaml:\n  - ${problems.join('\n  - ')}`);
  const env = await startDemoEnv('versions demo');
  const { client, cfg, server } = env;
  let failed = false;
  try {
    const runId = newRunId(spec.name);
    console.error(
      `versions demo: run ${runId}: ${spec.workload}, ${spec.scale.toLocaleString('en-US')} rows, versions ${spec.matrix.version.join(', ')}`,
    );
    const t0 = Date.now();
    const r = await runAndFollow(client, raw, runId, cfg.taskQueue, { progress: true });
    console.error(
      `versions demo: finished in ${((Date.now() - t0) / 1000).toFixed(0)} s; cells: ${r.cells.map((c) => `${c.cellKey} ${c.status}`).join(', ')}`,
    );
    const { cells } = loadRun(path.dirname(r.reportPath));
    const served = new Map<string, string>();
    for (const c of cells) {
      const v = c.provision?.server.version;
      if (!v) continue;
      served.set(c.matrix.version, v);
      if (!versionMatchesLabel(v, c.matrix.version)) {
        failed = true;
        console.error(`versions demo: FAILED: cell ${c.cellKey} asked for ${c.matrix.version}, the server said ${v}`);
      }
    }
    const ok = r.cells.filter((c) => c.status === 'succeeded').length;
    const v = r.verdicts;
    console.log(
      `versions demo: cells ${r.cells.length}, succeeded ${ok}, versions ${[...served.values()].join(', ') || 'none'}, ${v ? `${v.control.replace(/^A\/A control moves/, 'A/A control moves')}, decision ${v.decision}` : 'no verdicts'}, report ${r.reportPath.replace(/\.md$/, '.html')}`,
    );
    if (!v || v.note) {
      failed = true;
      console.error(`versions demo: FAILED: the verdicts ${v ? `are incomplete: ${v.note}` : 'are missing'}`);
    }
    if (ok !== r.cells.length) {
      failed = true;
      console.error('versions demo: FAILED: a cell did not succeed');
    }
    if (process.argv.includes('--keep') && server) {
      console.error(`versions demo: Web UI ${server.uiUrl}; Ctrl-C to stop`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
  } finally {
    await env.stop();
  }
  if (failed) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`versions demo failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
