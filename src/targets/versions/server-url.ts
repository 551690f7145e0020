/**
 * The `server-url` version source: an `external` server. It serves whatever version it runs; the
 * label is checked against `version()` at provision (a cell is never reported under a version it
 * did not run).
 */
import type { VersionResolution, VersionSource } from './source';

/** The source of one external URL. */
export function serverUrlSource(url: string): VersionSource {
  return {
    name: 'server-url',
    labels: () => [`whatever ${url} runs`],
    canServe: () => true,
    resolve: (label): VersionResolution => ({
      label,
      source: 'server-url',
      artifact: url,
      description: `the server at ${url} (its version() must match ${label}, checked at provision)`,
    }),
    offer: () => `the server at ${url} serves the version it runs`,
  };
}
