/**
 * Build step: bundle the workflow code once (`dist/src/workflow-bundle.js`), so a worker loads the
 * bundle instead of running webpack at every start — faster start, and the bundler's memory never
 * enters the worker (`createWorker` uses the bundle while the compiled files hash to the fingerprint written beside it).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLE, WORKFLOW_BUNDLE_HASH, workflowSourcesHash } from '../src/worker';

async function main(): Promise<void> {
  const hash = workflowSourcesHash(path.dirname(WORKFLOW_BUNDLE));
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../src/workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  writeFileSync(WORKFLOW_BUNDLE, code);
  writeFileSync(WORKFLOW_BUNDLE_HASH, `${hash}\n`);
  console.log(
    `workflow bundle: ${path.relative(process.cwd(), WORKFLOW_BUNDLE)} (${(code.length / 1024).toFixed(0)} KiB)`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
