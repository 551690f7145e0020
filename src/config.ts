/**
 * Environment settings, read in one place. Every variable has a default that works on one machine.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `TEMPORAL_ADDRESS` | `127.0.0.1:7233` | Temporal frontend (gRPC) |
 * | `TEMPORAL_NAMESPACE` | `default` | Temporal namespace |
 * | `CHBENCH_TASK_QUEUE` | `chbench` | task queue of the worker and the workflows |
 * | `CHBENCH_WORK_DIR` | `.chbench/targets` | where embedded/local servers keep their per-cell data directories |
 * | `TEMPORAL_CLI_PATH` | `.venv/bin/temporal`, else `temporal` on PATH | Temporal CLI used to start a dev server (demo, tests) |
 */
import path from 'node:path';
import { existsSync } from 'node:fs';

/** Repository root (works from `src/` and `dist/src/`). */
export const REPO_ROOT = (() => {
  let d = __dirname;
  for (let i = 0; i < 5; i++) {
    if (existsSync(path.join(d, 'package.json')) && existsSync(path.join(d, 'sql'))) return d;
    d = path.dirname(d);
  }
  return process.cwd();
})();

export interface Config {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  workDir: string;
}

/** Read the configuration from the environment. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    temporalAddress: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env.CHBENCH_TASK_QUEUE ?? 'chbench',
    workDir: path.resolve(env.CHBENCH_WORK_DIR ?? path.join(REPO_ROOT, '.chbench', 'targets')),
  };
}

/** Path of the Temporal CLI binary. */
export function temporalCliPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TEMPORAL_CLI_PATH) return env.TEMPORAL_CLI_PATH;
  const venv = path.join(REPO_ROOT, '.venv', 'bin', 'temporal');
  return existsSync(venv) ? venv : 'temporal';
}
