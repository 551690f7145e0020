/**
 * The run directories under a worker's work directory (`<workDir>/<run>/<cell>`): directories only,
 * so the worker's own state files there (the host disk's measured capacity,
 * `host-disk-capacity.json`, cached per host and device) do not count as something left behind.
 */
import { readdirSync } from 'node:fs';

/** Names of the directories directly under `workDir`. */
export function runDirsIn(workDir: string): string[] {
  return readdirSync(workDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
}
