/**
 * Version sources per target: which sources serve a target's matrix labels, and what each label
 * resolves to (see `./source.ts` for the axis and the table of sources).
 *
 * | target       | sources, in order of preference                                                  |
 * | ------------ | -------------------------------------------------------------------------------- |
 * | `embedded`   | `engines: auto` (default): npm-chdb, then pypi-chdb; `npm`: npm-chdb only; `pypi`: pypi-chdb only |
 * | `local`      | binary-map (`target.binaries`)                                                     |
 * | `kubernetes` | image-tag (`target.images`, else the default tag)                                 |
 * | `docker`     | image-tag (`target.images`, else the default tag)                                 |
 * | `external`   | server-url                                                                       |
 */
import type { TargetSpec } from '../../schema/run-spec';
import { binaryMapSource } from './binary-map';
import { imageTagSource } from './image-tag';
import { npmChdbSource } from './npm-chdb';
import { pypiChdbSource } from './pypi-chdb';
import { serverUrlSource } from './server-url';
import type { VersionResolution, VersionSource } from './source';

export type { VersionResolution, VersionSource, VersionSourceName } from './source';
export { labelNames } from './source';
export { npmChdbSource, npmChdbVersion } from './npm-chdb';
export { pypiChdbSource, pypiArtifact, pypiLabel, pypiBuildFor } from './pypi-chdb';
export { binaryMapSource } from './binary-map';
export { imageTagSource } from './image-tag';
export { serverUrlSource } from './server-url';

/** The embedded target's choice of engines (`target.engines`). */
export type EmbeddedEngines = 'auto' | 'npm' | 'pypi';

/** The embedded target's sources for `engines` (default `auto`: the bundled engine first, then PyPI). */
export function embeddedSources(engines: EmbeddedEngines = 'auto'): VersionSource[] {
  if (engines === 'npm') return [npmChdbSource];
  if (engines === 'pypi') return [pypiChdbSource];
  return [npmChdbSource, pypiChdbSource];
}

/**
 * The sources of a target spec, in order of preference (the first that can serve a label serves it).
 * Takes the parsed spec or the raw `target` object (fields read defensively: a malformed field gives
 * the source of an empty map, the schema reports the field).
 */
export function versionSourcesOf(target: TargetSpec | Record<string, unknown>): VersionSource[] {
  const t = target as Record<string, unknown>;
  const map = (v: unknown): Record<string, string> =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'),
        )
      : {};
  switch (t.kind) {
    case 'embedded':
      return embeddedSources(t.engines === 'npm' || t.engines === 'pypi' ? t.engines : 'auto');
    case 'local':
      return [binaryMapSource(map(t.binaries))];
    case 'kubernetes':
    case 'docker':
      return [imageTagSource(t.images === undefined ? undefined : map(t.images))];
    case 'external':
      return [serverUrlSource(typeof t.url === 'string' ? t.url : '<url>')];
    default:
      return [];
  }
}

/** What a label resolves to for a target, or why it cannot. */
export type LabelResolution = { ok: true; resolution: VersionResolution } | { ok: false; problem: string };

/**
 * Resolve one matrix label for a target: the first of {@link versionSourcesOf} that serves it.
 * @returns the resolution, or the refusal naming the label and every source's labels
 */
export function resolveLabel(target: TargetSpec | Record<string, unknown>, label: string): LabelResolution {
  const sources = versionSourcesOf(target);
  const s = sources.find((x) => x.canServe(label));
  if (s) return { ok: true, resolution: s.resolve(label) };
  const engines =
    target.kind === 'embedded' ? ` (engines: ${String((target as { engines?: string }).engines ?? 'auto')})` : '';
  return {
    ok: false,
    problem: `matrix.version: version "${label}" cannot be served by the ${String(target.kind)} target${engines}: ${
      sources.map((x) => x.offer()).join('; ') || 'no version source'
    }${target.kind === 'embedded' ? hintFor(label, (target as { engines?: string }).engines) : ''}`,
  };
}

/** A hint for an embedded label another `engines` choice would serve. */
function hintFor(label: string, engines: string | undefined): string {
  if (engines === 'npm' && pypiChdbSource.canServe(label))
    return `; ${pypiChdbSource.resolve(label).artifact} serves it with engines auto or pypi`;
  if (engines === 'pypi' && npmChdbSource.canServe(label))
    return `; the bundled npm engine serves it with engines auto or npm`;
  if (/^\d+$/.test(label)) return '; a label names at least major.minor ("26.3"), since several releases share a major';
  return '; other versions: a local target (target.binaries) or an external server';
}

/**
 * Resolve every label of a matrix. Pure of downloads; reads only the engines directory.
 * @returns one entry per label, in matrix order
 */
export function resolveMatrixVersions(
  target: TargetSpec | Record<string, unknown>,
  labels: readonly string[],
): LabelResolution[] {
  return labels.map((l) => resolveLabel(target, l));
}
