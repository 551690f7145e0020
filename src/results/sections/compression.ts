/**
 * The compression sections: table totals from `system.parts` and per-column sizes from
 * `system.parts_columns` (active parts), with each column's read-back codec; on report.html under the
 * compression chart. report.md leaves them out when no cell measured anything.
 */
import markdownTable from 'markdown-table';
import { detailsTable, figures, h, type Raw } from '../html';
import { bytesColumn, rowLabel } from '../report-cells';
import { compressionChart } from '../charts';
import { fmtBytes } from '../format';
import type { CellResult, PartDefaultCodec } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

/** The Compression (table totals) table, header first: per cell from `system.parts` (active parts), cells in the order given. */
export function compressionRows(ok: CellResult[], label: (c: CellResult) => string = rowLabel): string[][] {
  const comp = [['cell', 'codec', 'uncompressed', 'compressed', 'ratio', 'on disk', 'part formats']];
  const [unc, cmp, disk] = (['uncompressed_bytes', 'compressed_bytes', 'bytes_on_disk'] as const).map((k) => bytesColumn(ok.map((c) => c.storage?.[k])));
  for (const c of ok)
    if (c.storage)
      comp.push([label(c), c.matrix.codec, unc(c.storage.uncompressed_bytes), cmp(c.storage.compressed_bytes), c.storage.ratio === null ? 'n/a' : `${c.storage.ratio.toFixed(2)}×`, disk(c.storage.bytes_on_disk), Object.entries(c.storage.part_types).map(([k, n]) => `${n} ${k}`).join(', ') || 'n/a']);
  return comp;
}

/**
 * The Per-column compression table, header first: one row per column (in the order the cells recorded
 * them), per cell its read-back codec (when recorded), compressed and uncompressed bytes, ratio and
 * share of the table, from `system.parts_columns`. `withCols`: the cells with a storage record.
 */
export function perColumnRows(withCols: CellResult[], label: (c: CellResult) => string = rowLabel): string[][] {
  const colNames = [...new Set(withCols.flatMap((c) => c.storage!.columns?.map((x) => x.column) ?? []))];
  // The read-back codec column appears when a cell has it (results before 0.7 do not).
  const codecCol = withCols.some((c) => c.storage!.columns?.some((x) => x.codec !== undefined));
  const colRows = [['column', ...withCols.flatMap((c) => [...(codecCol ? [`${label(c)} codec`, 'compressed'] : [`${label(c)} compressed`]), 'uncompressed', 'ratio', 'share'])]];
  for (const name of colNames)
    colRows.push([
      name,
      ...withCols.flatMap((c) => {
        const col = c.storage!.columns?.find((x) => x.column === name);
        const cells = col ? [fmtBytes(col.compressed_bytes), fmtBytes(col.uncompressed_bytes), `${col.ratio.toFixed(2)}×`, `${(col.share * 100).toFixed(1)} %`] : ['n/a', 'n/a', 'n/a', 'n/a'];
        return codecCol ? [col ? serverCodec(col.codec, c.storage!.part_default_codecs) : 'n/a', ...cells] : cells;
      }),
    ]);
  return colRows;
}

/**
 * A read-back `system.columns.compression_codec` for a table cell: `ZSTD(3)` for `CODEC(ZSTD(3))`;
 * for a column that names no codec, the server's own default per part as read back
 * (`system.parts.default_compression_codec`): `default: ZSTD(3)` when every part has the same,
 * `default: ZSTD(3) on 1 part (95.1 MiB), LZ4 on 6 parts (…)` when the part size decided (26.9), and
 * `default (not read back)` when the server has no such column — never an assumed LZ4. `n/a` when the
 * column's codec was not read.
 */
function serverCodec(codec: string | undefined, parts: readonly PartDefaultCodec[] | null | undefined): string {
  if (codec === undefined) return 'n/a';
  const inner = /^CODEC\((.*)\)$/.exec(codec.trim())?.[1] ?? codec.trim();
  if (inner) return inner;
  if (!parts?.length) return 'default (not read back)';
  const by = new Map<string, { n: number; bytes: number }>();
  for (const p of parts) {
    const e = by.get(p.codec) ?? { n: 0, bytes: 0 };
    by.set(p.codec, { n: e.n + 1, bytes: e.bytes + p.compressed_bytes });
  }
  if (by.size === 1) return `default: ${[...by.keys()][0]}`;
  const fmt = bytesColumn([...by.values()].map((e) => e.bytes));
  return `default: ${[...by.entries()].map(([k, e]) => `${k} on ${e.n} part${e.n === 1 ? '' : 's'} (${fmt(e.bytes)})`).join(', ')}`;
}

export const compressionSection: ReportSection = {
  id: 'compression',
  title: 'Compression',
  applies: () => true,
  markdown(ctx: ReportContext): string[] {
    const ok = ctx.measured;
    if (!ok.length) return [];
    const label = rowLabel;
    const out: string[] = [];
    out.push('## Compression (table totals)', '', 'Source: `system.parts` (active parts): `data_uncompressed_bytes`, `data_compressed_bytes`, `bytes_on_disk`.', '');
    const comp = compressionRows(ok, label);
    out.push(markdownTable(comp), '');

    out.push('## Per-column compression', '', 'Source: `system.parts_columns` (active parts): `column_data_compressed_bytes`, `column_data_uncompressed_bytes`. Share = column compressed / table compressed.' + (ok.some((c) => c.storage?.columns?.some((x) => x.codec !== undefined)) ? ' Codec: the column\u2019s codec as the server reports it (`system.columns.compression_codec`), not as the spec asked; where the column names none, "default: …" is each active part\u2019s `system.parts.default_compression_codec` as read back' + (ok.some((c) => c.matrix.version.startsWith('26.9')) ? ' (26.9 gives parts of about 100 MB and more ZSTD(3))' : '') + ', or "default (not read back)" where the server has no such column.' : ''), '');
    const withCols = ok.filter((c) => c.storage);
    const colRows = perColumnRows(withCols, label);
    out.push(markdownTable(colRows), '');
    for (const c of withCols) if (c.storage!.columns === null) out.push(`- ${c.cellKey}: per-column sizes unavailable: ${c.storage!.columns_unavailable_reason}`);
    out.push('');
    return out;
  },
  async html(ctx: ReportContext): Promise<Raw> {
    const { measured } = ctx;
    return h`<section id="compression"><h2>Compression</h2>${await figures([compressionChart(ctx.chartCells)], 'No cell recorded per-column sizes.')}${detailsTable('Compression table (as in report.md): table totals from system.parts (active parts)', compressionRows(measured))}${detailsTable('Per-column compression table (as in report.md): from system.parts_columns (active parts)', perColumnRows(measured.filter((c) => c.storage)))}</section>`;
  },
};
