/**
 * The `npm-chdb` version source: the ClickHouse engine chbench ships, the npm `chdb` package
 * (in-process in the engine server, `--engine npm`). It serves exactly one version, read from the
 * package's pinned engine (`EMBEDDED_VERSION`, 26.7.2.1 for chdb 3.4.0): labels `26.7`, `26.7.2`,
 * `26.7.2.1`. Nothing to install.
 */
import { readFileSync } from 'node:fs';
import { EMBEDDED_VERSION } from '../../schema/run-spec';
import { labelNames, type VersionResolution, type VersionSource } from './source';

/** Version of the installed npm `chdb` package (its package.json), or `unknown`. */
export function npmChdbVersion(): string {
  try {
    const file = require.resolve('chdb/package.json');
    return String((JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

/** The `npm-chdb` source. */
export const npmChdbSource: VersionSource = {
  name: 'npm-chdb',
  labels() {
    const p = EMBEDDED_VERSION.split('.');
    return [2, 3, 4].map((n) => p.slice(0, n).join('.'));
  },
  canServe: (label) => labelNames(EMBEDDED_VERSION, label),
  resolve(label): VersionResolution {
    if (!labelNames(EMBEDDED_VERSION, label)) throw new Error(`version "${label}" is not served by ${this.offer()}`);
    const artifact = `npm chdb@${npmChdbVersion()}`;
    return {
      label,
      source: 'npm-chdb',
      clickhouse: EMBEDDED_VERSION,
      artifact,
      description: `${artifact} → ClickHouse ${EMBEDDED_VERSION}, bundled (in-process engine)`,
    };
  },
  offer: () =>
    `npm-chdb (the bundled engine) serves ${EMBEDDED_VERSION.split('.').slice(0, 2).join('.')} (${EMBEDDED_VERSION})`,
};
