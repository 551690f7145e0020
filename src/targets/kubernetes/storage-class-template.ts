/** chbench's own StorageClass template (`manifests/storageclass.yaml`), as the cloud figures' fallback reads it. */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT } from '../../config';

/**
 * The `parameters` of `manifests/storageclass.yaml` when `name` is its `metadata.name`; null when it
 * is another class or the file cannot be read.
 */
export function manifestStorageClass(name: string): Record<string, string> | null {
  try {
    const doc = parseYaml(readFileSync(path.join(REPO_ROOT, 'manifests', 'storageclass.yaml'), 'utf8')) as {
      metadata?: { name?: string };
      parameters?: Record<string, string>;
    };
    return doc.metadata?.name === name ? (doc.parameters ?? null) : null;
  } catch {
    return null;
  }
}
