/**
 * Matrix expansion, cell keys and cell inputs. Pure (types only from schema/): imported by workflow code.
 */
import type { RunSpec } from './run-spec';
import type { CellInput } from './cell';

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

/**
 * Expand the matrix into cells: versions outer, then codecs, settings profiles, defaults
 * (`matrix.pinDefaults`: shipped / pinned), repetitions innermost, in spec order.
 */
export function expandMatrix(spec: {
  matrix: { version: string[]; codec: CodecEntry[]; repeat?: number; settings?: { name: string }[]; pinDefaults?: string[] };
  pinDefaults?: string;
}): CellCoordinates[] {
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
  return out;
}

/**
 * The input of every cell of a validated spec, in matrix order (see {@link expandMatrix}).
 * @param indexQueries the selected queries that use the skip index: the index steps run only when
 *   the spec asks for the index and at least one selected query uses it.
 * @param afterLoad the workload's after-load statement files (the `after-load` step runs when there are any).
 */
export function cellInputs(
  spec: RunSpec,
  runId: string,
  indexQueries: readonly string[],
  afterLoad: readonly string[] = [],
): CellInput[] {
  return expandMatrix(spec).map((c) => {
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
