/**
 * The name of an object a target creates for one cell (a Kubernetes pod, a Docker container):
 * `<prefix>-<cell key, lower-case, [a-z0-9-], at most maxReadable characters>-<8 hex of
 * sha256(runId + '/' + cellKey)>`, or `<prefix>-<hash>` when nothing readable is left. Deterministic
 * (every attempt of the cell finds the same object) and unique per run and cell (the hash covers
 * both); valid as a DNS-1123 label and as a Docker name.
 */
import { createHash } from 'node:crypto';

/** See the module comment. @param maxReadable most characters of the cell key kept */
export function cellObjectName(prefix: string, runId: string, cellKey: string, maxReadable: number): string {
  const hash = createHash('sha256').update(`${runId}/${cellKey}`, 'utf8').digest('hex').slice(0, 8);
  const readable = cellKey
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, maxReadable)
    .replace(/-+$/, '');
  return readable ? `${prefix}-${readable}-${hash}` : `${prefix}-${hash}`;
}
