/**
 * Matrix expansion, cell keys and cell inputs. Pure (types only from schema/): imported by workflow code.
 */
import type { RunSpec } from './run-spec';
import type { CellInput } from './cell';

export { CODECS, type Codec } from './run-spec';
import type { Codec } from './run-spec';

/** One cell of the matrix. */
export interface CellCoordinates {
  version: string;
  codec: Codec;
  /** 1-based repetition when the matrix repeats each cell (`matrix.repeat` > 1). */
  repetition?: number;
}

/**
 * Stable, readable cell key, e.g. `v26.7-zstd3`, `v18.16-lz4`, or `v26.7-lz4-r2` for the second
 * repetition. Used in workflow ids and file names.
 */
export function cellKey(c: CellCoordinates): string {
  const codec = c.codec.toLowerCase().replace(/[()]/g, '');
  return `v${c.version}-${codec}${c.repetition ? `-r${c.repetition}` : ''}`;
}

/** Expand the matrix into cells: versions outer, codecs inner, repetitions innermost, in spec order. */
export function expandMatrix(spec: { matrix: { version: string[]; codec: Codec[]; repeat?: number } }): CellCoordinates[] {
  const out: CellCoordinates[] = [];
  const n = spec.matrix.repeat ?? 1;
  for (const version of spec.matrix.version)
    for (const codec of spec.matrix.codec)
      for (let r = 1; r <= n; r++) out.push(n > 1 ? { version, codec, repetition: r } : { version, codec });
  return out;
}

/**
 * The input of every cell of a validated spec, in matrix order (see {@link expandMatrix}).
 * @param indexQueries the selected queries that use the skip index: the index steps run only when
 *   the spec asks for the index and at least one selected query uses it.
 */
export function cellInputs(spec: RunSpec, runId: string, indexQueries: readonly string[]): CellInput[] {
  return expandMatrix(spec).map((c) => ({
    runId,
    cellKey: cellKey(c),
    version: c.version,
    codec: c.codec,
    workload: spec.workload,
    scale: spec.scale,
    ...(spec.queries ? { queries: spec.queries } : {}),
    skipIndex: spec.skipIndex && indexQueries.length > 0,
    protocol: spec.protocol,
    target: spec.target,
    teardown: spec.teardown,
    resultsDir: spec.resultsDir,
    settings: spec.settings,
  }));
}
