/**
 * Matrix expansion and cell keys. Pure and dependency-free: imported by workflow code.
 */

/** Column codecs chbench knows how to apply. `LZ4` means the server default (no CODEC clause). */
export const CODECS = ['LZ4', 'LZ4HC', 'ZSTD(1)', 'ZSTD(3)', 'ZSTD(6)', 'ZSTD(9)', 'NONE'] as const;
export type Codec = (typeof CODECS)[number];

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
