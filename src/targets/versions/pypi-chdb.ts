/**
 * The `pypi-chdb` version source: ClickHouse releases built as chdb and published on PyPI
 * (`PYPI_BUILDS` of `src/engine/install.ts`), each hosted by a Python process in its own isolated
 * environment under `enginesDir()`. A label names the build whose `version()` it prefixes, with at
 * least major.minor: `24.8`, `24.8.4` and `24.8.4.1` all name chdb 3.1.2. Resolution never
 * downloads; it says whether the build is installed, and provision installs it on demand.
 */
import { findPypiBuild, installedEngine, PYPI_BUILDS, type PypiBuild } from '../../engine/install';
import { labelNames, type VersionResolution, type VersionSource } from './source';

/** `pypi chdb==3.1.2`: how a build is named in descriptions and `provisionedBy`. */
export function pypiArtifact(b: PypiBuild): string {
  return `pypi ${b.package}==${b.version}`;
}

/** The short label of a build (`24.8`). */
export function pypiLabel(b: PypiBuild): string {
  return b.clickhouse.split('.').slice(0, 2).join('.');
}

/** The build `label` names, under this module's rule (at least major.minor). */
export function pypiBuildFor(label: string): PypiBuild | undefined {
  const b = findPypiBuild(label);
  return b && labelNames(b.clickhouse, label) ? b : undefined;
}

/** The `pypi-chdb` source. */
export const pypiChdbSource: VersionSource = {
  name: 'pypi-chdb',
  labels: () => PYPI_BUILDS.map(pypiLabel),
  canServe: (label) => pypiBuildFor(label) !== undefined,
  resolve(label): VersionResolution {
    const b = pypiBuildFor(label);
    if (!b) throw new Error(`version "${label}" is not served by ${this.offer()}`);
    const e = installedEngine(b);
    const artifact = pypiArtifact(b);
    return {
      label,
      source: 'pypi-chdb',
      clickhouse: b.clickhouse,
      artifact,
      installed: e ? { dir: e.dir, python: e.python, clickhouse: e.clickhouse } : null,
      limits: [...b.limits],
      description: `${artifact} → ClickHouse ${b.clickhouse}, ${
        e
          ? `installed at ${e.dir}`
          : 'not installed (installed on demand by provision, or `chbench engines install ' + pypiLabel(b) + '`)'
      }`,
    };
  },
  offer: () => `pypi-chdb serves ${PYPI_BUILDS.map((b) => `${pypiLabel(b)} (${b.clickhouse})`).join(', ')}`,
};
