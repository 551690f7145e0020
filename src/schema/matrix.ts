/**
 * Matrix expansion, cell keys and cell inputs. Pure (types only from schema/): imported by workflow code.
 */
import type { RunSpec } from './run-spec';
import type { CellInput } from './cell';
import { compareVersions } from './version';

export { CODECS, type Codec } from './run-spec';
import { codecKey, codecProfileOf, type CodecEntry, type CodecProfile } from './run-spec';

/** One cell of the matrix. */
export interface CellCoordinates {
  version: string;
  /** Name of the cell's codec profile (a plain expression is its own name), e.g. `ZSTD(3)`, `delta-zstd`. */
  codec: string;
  /** The profile itself (default and per-column overrides). */
  codecProfile: CodecProfile;
  /** 1-based repetition when the matrix repeats each cell (`matrix.repeat` > 1). */
  repetition?: number;
  /** Settings profile name when the matrix has a settings axis (`matrix.settings`). */
  profile?: string;
  /**
   * The version whose defaults the cell runs with (`compatibility`): the spec's `pinDefaults`, or this
   * cell's entry of the `matrix.pinDefaults` axis. Absent: the version's shipped defaults.
   */
  pinDefaults?: string;
}

/**
 * Stable, readable cell key, e.g. `v26.7-zstd3`, `v18.16-lz4`, `v26.7-delta-zstd1` (`Delta, ZSTD(1)`),
 * or `v26.7-lz4-r2` for the second repetition, `v26.9-lz4-pin23.10` for a cell run with 23.10's
 * defaults (`pinDefaults`). Used in workflow ids and file names.
 */
export function cellKey(c: {
  version: string;
  codec: string;
  profile?: string;
  repetition?: number;
  pinDefaults?: string;
}): string {
  const codec = codecKey(c.codec);
  // `-pin<version>` only for a pinned cell: every key of an unpinned spec (and recorded histories) stays the same.
  return `v${c.version}-${codec}${c.profile ? `-${c.profile}` : ''}${c.pinDefaults ? `-pin${c.pinDefaults}` : ''}${c.repetition ? `-r${c.repetition}` : ''}`;
}

/** The `matrix.pinDefaults` entry of a cell run with its version's own defaults. */
export const SHIPPED = 'shipped';

/** The matrix's axes as the spec lists them (what {@link expandMatrix} reads). */
export interface MatrixShape {
  matrix: { version: string[]; codec: CodecEntry[]; repeat?: number; settings?: { name: string }[]; pinDefaults?: string[] };
  pinDefaults?: string;
  /** `baseline.version` of a spec that compares with a version of its own matrix. */
  baseline?: { from: string; version?: string };
  /** The `verdicts` block (`control`: measure the reference cell twice). */
  verdicts?: { control?: boolean };
}

/** The matrix's axes and their values in spec order (codec profile names; `shipped` for a version's own defaults). */
export interface MatrixAxes {
  versions: string[];
  codecs: string[];
  profiles: string[];
  defaults: string[];
  repeat: number;
  /** The spec's `baseline.version` (from: version), the versions' reference when given. */
  baselineVersion?: string;
}

/** The axes of a spec's matrix. */
export function matrixAxes(spec: MatrixShape): MatrixAxes {
  return {
    versions: [...spec.matrix.version],
    codecs: spec.matrix.codec.map((e) => codecProfileOf(e).name),
    profiles: spec.matrix.settings?.map((p) => p.name) ?? [],
    defaults: spec.matrix.pinDefaults ?? [spec.pinDefaults ?? SHIPPED],
    repeat: spec.matrix.repeat ?? 1,
    ...(spec.baseline?.from === 'version' && spec.baseline.version ? { baselineVersion: spec.baseline.version } : {}),
  };
}

/** An axis the matrix may vary, by the coordinate it varies. */
export type MatrixAxis = 'version' | 'codec' | 'profile' | 'defaults';

/**
 * The reference value of each axis the matrix varies: versions `baseline.version` when given, else the
 * oldest; codecs the first listed; settings profiles the first; defaults `shipped` when listed, else the first.
 */
export function axisReferences(m: MatrixAxes): Partial<Record<MatrixAxis, string>> {
  const out: Partial<Record<MatrixAxis, string>> = {};
  if (m.versions.length > 1)
    out.version = m.baselineVersion && m.versions.includes(m.baselineVersion) ? m.baselineVersion : [...m.versions].sort(compareVersions)[0]!;
  if (m.codecs.length > 1) out.codec = m.codecs[0]!;
  if (m.profiles.length > 1) out.profile = m.profiles[0]!;
  if (m.defaults.length > 1) out.defaults = m.defaults.includes(SHIPPED) ? SHIPPED : m.defaults[0]!;
  return out;
}

/** Whether the matrix compares setups (an axis with two values or more): its cells then get verdicts. */
export function isComparing(m: MatrixAxes): boolean {
  return Object.keys(axisReferences(m)).length > 0;
}

/**
 * Whether the matrix adds an A/A control cell: it compares setups, `verdicts.control` is not false,
 * and it does not repeat every cell already (`matrix.repeat` ≥ 2 gives A/A pairs of every setup).
 */
export function wantsControl(spec: MatrixShape): boolean {
  const m = matrixAxes(spec);
  return spec.verdicts?.control !== false && m.repeat < 2 && isComparing(m);
}

/** Options of {@link expandMatrix}. */
export interface ExpandOptions {
  /** Add the A/A control cell (the reference cell's setup, repetition 2: key `…-r2`) after the matrix's cells. */
  control?: boolean;
}

/**
 * Expand the matrix into cells: versions outer, then codecs, settings profiles, defaults
 * (`matrix.pinDefaults`: shipped / pinned), repetitions innermost, in spec order; with `control`, the
 * A/A control cell last.
 */
export function expandMatrix(spec: MatrixShape, o: ExpandOptions = {}): CellCoordinates[] {
  const out: CellCoordinates[] = [];
  const n = spec.matrix.repeat ?? 1;
  const profiles = spec.matrix.settings?.map((p) => p.name) ?? [undefined];
  const pins: (string | undefined)[] = spec.matrix.pinDefaults?.map((p) => (p === SHIPPED ? undefined : p)) ?? [
    spec.pinDefaults,
  ];
  for (const version of spec.matrix.version)
    for (const entry of spec.matrix.codec)
      for (const profile of profiles)
        for (const pin of pins)
          for (let r = 1; r <= n; r++)
            out.push({
              version,
              codec: codecProfileOf(entry).name,
              codecProfile: codecProfileOf(entry),
              ...(profile ? { profile } : {}),
              ...(pin ? { pinDefaults: pin } : {}),
              ...(n > 1 ? { repetition: r } : {}),
            });
  if (o.control && n < 2) {
    const m = matrixAxes(spec);
    const refs = axisReferences(m);
    const pin = refs.defaults ?? m.defaults[0];
    const ref = out.find(
      (c) =>
        c.version === (refs.version ?? m.versions[0]) &&
        c.codec === (refs.codec ?? m.codecs[0]) &&
        (c.profile ?? '') === (refs.profile ?? m.profiles[0] ?? '') &&
        (c.pinDefaults ?? SHIPPED) === (pin ?? SHIPPED),
    );
    if (ref) out.push({ ...ref, repetition: 2 });
  }
  return out;
}

/**
 * The input of every cell of a validated spec, in matrix order (see {@link expandMatrix}).
 * @param indexQueries the selected queries that use the skip index: the index steps run only when
 *   the spec asks for the index and at least one selected query uses it.
 * @param afterLoad the workload's after-load statement files (the `after-load` step runs when there are any).
 * @param o `control`: add the A/A control cell ({@link expandMatrix}); the matrix workflow passes it behind its `aa-control` patch.
 */
export function cellInputs(
  spec: RunSpec,
  runId: string,
  indexQueries: readonly string[],
  afterLoad: readonly string[] = [],
  o: ExpandOptions = {},
): CellInput[] {
  return expandMatrix(spec, o).map((c) => {
    const profile = spec.matrix.settings?.find((p) => p.name === c.profile);
    return {
    runId,
    cellKey: cellKey(c),
    version: c.version,
    codec: c.codec,
    // Only a named profile travels: a plain expression is its own profile (and the input of a 0.6.0 spec stays the same).
    ...(c.codecProfile.name !== c.codecProfile.default || Object.keys(c.codecProfile.columns).length
      ? { codecProfile: { default: c.codecProfile.default, columns: c.codecProfile.columns } }
      : {}),
    workload: spec.workload,
    scale: spec.scale,
    ...(spec.queries ? { queries: spec.queries } : {}),
    skipIndex: spec.skipIndex && indexQueries.length > 0,
    ...(afterLoad.length ? { afterLoad: [...afterLoad] } : {}),
    protocol: spec.protocol,
    target: spec.target,
    teardown: spec.teardown,
    resultsDir: spec.resultsDir,
    settings: profile
      ? {
          query: { ...spec.settings.query, ...profile.query },
          mergeTree: { ...spec.settings.mergeTree, ...profile.mergeTree },
          optional: spec.settings.optional,
        }
      : spec.settings,
    ...(profile ? { profile: profile.name } : {}),
    ...(c.pinDefaults ? { pinDefaults: c.pinDefaults } : {}),
    ...(spec.grids ? { grids: spec.grids } : {}),
    hostLossTimeoutS: spec.hostLossTimeoutS,
  };
  });
}
