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
}

/** Stable, readable cell key, e.g. `v26.7-zstd3`, `v18.16-lz4`. Used in workflow ids and file names. */
export function cellKey(c: CellCoordinates): string {
  const codec = c.codec.toLowerCase().replace(/[()]/g, '');
  return `v${c.version}-${codec}`;
}

/** Expand the matrix into cells: versions outer, codecs inner, in spec order. */
export function expandMatrix(spec: { matrix: { version: string[]; codec: Codec[] } }): CellCoordinates[] {
  const out: CellCoordinates[] = [];
  for (const version of spec.matrix.version) for (const codec of spec.matrix.codec) out.push({ version, codec });
  return out;
}
