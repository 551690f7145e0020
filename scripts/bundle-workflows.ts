/**
 * Build step: bundle the workflow code once (`dist/src/workflow-bundle.js`), so a worker loads the
 * bundle instead of running webpack at every start — faster start, and the bundler's memory never
 * enters the worker (`createWorker` uses the bundle while the compiled files hash to the fingerprint written beside it).
 *
 * It also keeps the CLI runnable as `npx chbench` / `dist/src/cli.js` (tsc writes it without the run
 * bit) and writes the bundle atomically (temporary file, then rename), so a worker already running
 * from dist/ never sees a half-written file: the build (`tsc` then this) overwrites dist/ in place and
 * removes nothing (`npm run clean` wipes it).
 */
import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLE, WORKFLOW_BUNDLE_HASH, workflowSourcesHash } from '../src/worker';

async function main(): Promise<void> {
  const hash = workflowSourcesHash(path.dirname(WORKFLOW_BUNDLE));
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../src/workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  for (const [file, text] of [
    [WORKFLOW_BUNDLE, code],
    [WORKFLOW_BUNDLE_HASH, `${hash}\n`],
  ] as const) {
    writeFileSync(`${file}.${process.pid}.tmp`, text);
    renameSync(`${file}.${process.pid}.tmp`, file);
  }
  // The package's bin (package.json "bin": dist/src/cli.js): rwxr-xr-x.
  chmodSync(path.join(path.dirname(WORKFLOW_BUNDLE), 'cli.js'), 0o755);
  console.log(
    `workflow bundle: ${path.relative(process.cwd(), WORKFLOW_BUNDLE)} (${(code.length / 1024).toFixed(0)} KiB)`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
