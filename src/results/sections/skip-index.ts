/**
 * The Skip index section: per cell and query measured after the index, the warm statistic and
 * read_rows / read_bytes before and after, the speed-up, the index's size and materialization time,
 * and each cell's verdict (`indexVerdict`); on report.html under the skip-index chart. report.md
 * leaves it out when no cell measured anything. Sources: `index.json`, `queries-*.json`.
 */
import markdownTable from 'markdown-table';
import { detailsTable, figures, h, type Raw } from '../html';
import { fmtRead, headline, howStopped, indexTurnedOff, noIndexReason, rowLabel, type IndexSettingsSpec } from '../report-cells';
import { skipIndexChart } from '../charts';
import { fmtBytes, fmtInt, fmtMs } from '../format';
import { indexVerdict, readProof } from '../verdicts';
import type { CellResult } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

/**
 * The Skip index before/after table, header first: per cell whose queries were measured after the
 * index and per such query, the spec's warm statistic and read_rows / read_bytes before and after, the
 * speed-up, the index size (and % of the table's compressed bytes) and its materialization time.
 * Only a header when no cell measured a query after the index.
 */
/**
 * Why a skip index that cuts the rows read does not cut the time: at ≥ 5× fewer rows and < 1.2× faster,
 * the query's time is its fixed per-statement cost (parsing, planning, the index's own reads, sending the
 * result), not reading rows. Empty otherwise. Figures: the warm headline times (ms) and read_rows before/after.
 */
export function fixedCostNote(before: number | null, after: number | null, rowsBefore: number | null | undefined, rowsAfter: number | null | undefined): string {
  if (!before || !after || !rowsBefore || !rowsAfter) return '';
  const fewer = rowsBefore / rowsAfter;
  if (fewer < 5 || before / after >= 1.2) return '';
  return ` (reads ${fewer.toFixed(0)}× fewer rows at about the same time: the ${fmtMs(after)} is the statement's fixed cost, not reading)`;
}

export function skipIndexRows(ok: CellResult[], spec: IndexSettingsSpec & { protocol: { statistic: 'min' | 'median' } }, label: (c: CellResult) => string = rowLabel): string[][] {
  const idxCells = ok.filter((c) => c.index && c.queries_index?.queries.some((q) => q.samples.length));
  const ir = [['cell', 'query', 'warm before', 'warm after', 'speed-up', 'read_rows before', 'read_rows after', 'read_bytes before', 'read_bytes after', 'index size', '% of table', 'materialize']];
  for (const c of idxCells)
    for (const qa of c.queries_index!.queries) {
      const qb = c.queries_baseline?.queries.find((q) => q.id === qa.id);
      const before = headline(qb, spec.protocol.statistic);
      const after = headline(qa, spec.protocol.statistic);
      const off = indexTurnedOff(c, spec);
      ir.push([
        label(c),
        qa.id,
        fmtMs(before) + (qb && (qb.samples.some((x) => x.validity?.quiet.valid === false) || qb.stats.warm_validity?.valid === false) ? ' ⚠' : ''),
        fmtMs(after) + (qa.samples.some((x) => x.validity?.quiet.valid === false) || qa.stats.warm_validity?.valid === false ? ' ⚠' : ''),
        off ? `n/a (index ${off})` : (before && after ? `${(before / after).toFixed(1)}×` : 'n/a') + (qa.index_proof && readProof(qa.index_proof).effective === false ? ' ⚠ index not effective' : '') + fixedCostNote(before, after, qb?.stats.read_rows, qa.stats.read_rows),
        fmtRead(qb?.stats.read_rows, fmtInt, qb),
        fmtRead(qa.stats.read_rows, fmtInt, qa),
        fmtRead(qb?.stats.read_bytes, fmtBytes, qb),
        fmtRead(qa.stats.read_bytes, fmtBytes, qa),
        fmtBytes(c.index!.index_bytes),
        c.index!.index_bytes !== null && c.storage?.compressed_bytes ? `${((c.index!.index_bytes / c.storage.compressed_bytes) * 100).toFixed(1)} %` : 'n/a',
        fmtMs(c.index!.materialize_ms) + (c.index!.adopted_mutation ? ' (adopted an earlier attempt\'s mutation: partial time)' : ''),
      ]);
    }
  return ir;
}

export const skipIndexSection: ReportSection = {
  id: 'skip-index',
  title: 'Skip index',
  applies: () => true,
  markdown(ctx: ReportContext): string[] {
    const { spec, cells, measured: ok } = ctx;
    if (!ok.length) return [];
    const label = rowLabel;
    const out: string[] = [];
    // The heading names the index that was built (its name and TYPE from the ADD INDEX sent), or none.
    const idxCells = ok.filter((c) => c.index && c.queries_index?.queries.some((q) => q.samples.length));
    const builtIn = ok.filter((c) => c.index);
    const indexType = (sql: string) => /\bTYPE\s+([A-Za-z_]\w*)/i.exec(sql)?.[1];
    const built = [...new Set(builtIn.map((c) => `\`${c.index!.index}\`${indexType(c.index!.add_sql) ? ` (${indexType(c.index!.add_sql)})` : ''}`))];
    out.push(idxCells.length ? `## Skip index ${built.join(', ')}: before / after` : built.length ? `## Skip index ${built.join(', ')}` : '## Skip index', '');
    if (!idxCells.length && builtIn.length)
      out.push(`The index was built (${builtIn.map((c) => `${c.cellKey}: ${fmtMs(c.index!.materialize_ms)}, ${fmtBytes(c.index!.index_bytes)}`).join('; ')}), but no query was measured after it: ${builtIn.map((c) => `${c.cellKey} ${howStopped(c)}`).join('; ')}.`, '');
    else if (!idxCells.length) out.push(noIndexReason(cells, spec.skipIndex), '');
    else {
      out.push(`Warm ${spec.protocol.statistic}, before = baseline run, after = re-run once \`system.mutations\` reported the MATERIALIZE INDEX done. Index size from ${idxCells[0].index!.index_bytes_source}; % of table = index size / the table's compressed bytes; materialization = client wall time until \`is_done = 1\`.`, '');
      const ir = skipIndexRows(idxCells, spec, label);
      out.push(markdownTable(ir), '');
      for (const c of idxCells) {
        const vd = indexVerdict(c, spec);
        if (vd.off) {
          out.push(`- ${label(c)}: index ${vd.off} — the index was built, and the runs after it were sent with it turned off on purpose: no speed-up is shown, and nothing is judged invalid for it.`);
          continue;
        }
        const proofs = c.queries_index!.queries.filter((q) => q.index_proof).map((q) => `${q.id} ${q.index_proof!.reason}`);
        const notEffective = c.queries_index!.queries.some((q) => q.index_proof && readProof(q.index_proof).effective === false && q.index_proof.explain_skips === true);
        out.push(
          vd.verified === true
            ? `- ${label(c)}: index verified — every active part carries it; in the measured runs (EXPLAIN under their settings): ${proofs.join('; ')}.`
            : `- **⚠ ${label(c)}: index ${notEffective ? 'not effective in the measured runs' : vd.verified === false ? 'NOT verified' : vd.notUnderstood.length ? 'not verifiable: EXPLAIN not understood' : 'not verifiable'}** — ${vd.reasons.join('; ')}.`,
        );
      }
      out.push('');
    }
    return out;
  },
  async html(ctx: ReportContext): Promise<Raw> {
    const { spec, cells, measured } = ctx;
    return h`<section id="skip-index"><h2>Skip index</h2>${await figures([skipIndexChart(ctx.chartCells, spec.protocol.statistic)], noIndexReason(cells, spec.skipIndex))}${detailsTable(`Skip index before / after table (as in report.md): warm ${spec.protocol.statistic}, read_rows and read_bytes, index size and materialization`, skipIndexRows(measured, spec))}</section>`;
  },
};
