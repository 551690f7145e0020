/**
 * A workload's files as measured: the SHA-256 of each file a run reads (`manifest.yaml`, the schema
 * and load templates, every query file, the skip-index definition), recorded in `run.json` when a
 * run starts, so a resumed run can tell that the workload changed since its first cells ran.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadWorkload, sqlRoot } from './workload';
import type { WorkloadFingerprint } from '../schema/results';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/**
 * The fingerprint of workload `name`: each of its files' SHA-256 (hex, of the bytes on disk) by path
 * relative to the workload's folder, and one SHA-256 over them all (of the lines `<file> <sha256>`,
 * sorted by file).
 * @throws Error when the workload does not exist or names a missing file (as `loadWorkload`).
 */
export function workloadFingerprint(name: string, root = sqlRoot()): WorkloadFingerprint {
  const m = loadWorkload(name, root);
  const dir = path.join(root, 'workloads', name);
  const files = [
    'manifest.yaml',
    m.schema,
    m.load,
    ...m.queries.map((q) => q.file),
    ...(m.index ? [m.index.add] : []),
    ...m.afterLoad.map((a) => a.file),
  ];
  const hashes: Record<string, string> = {};
  for (const f of [...new Set(files)].sort()) hashes[f] = sha256(readFileSync(path.join(dir, f)));
  return {
    name,
    sha256: sha256(
      Object.entries(hashes)
        .map(([f, h]) => `${f} ${h}\n`)
        .join(''),
    ),
    files: hashes,
  };
}

/**
 * The files that differ between two fingerprints of a workload: changed, added (`<file> (new)`) or
 * no longer read (`<file> (removed)`), sorted; empty when they are the same.
 */
export function changedWorkloadFiles(before: WorkloadFingerprint, now: WorkloadFingerprint): string[] {
  const out: string[] = [];
  for (const f of new Set([...Object.keys(before.files), ...Object.keys(now.files)])) {
    const a = before.files[f];
    const b = now.files[f];
    if (a === b) continue;
    out.push(a === undefined ? `${f} (new)` : b === undefined ? `${f} (removed)` : f);
  }
  return out.sort();
}
