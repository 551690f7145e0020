/**
 * The Queries section: per query and cell the cold time, the warm headline statistic and the other
 * one, read_rows of the last warm run (before the skip index), with their sources, the queries that
 * failed on the server and whether the results agree (sha256 of every run); on report.html under the
 * query-time charts. report.md leaves it out when no cell measured anything.
 */
import { figures, h, note, type Raw } from '../html';
import { blocksBody, blocksMarkdown, type Block } from './blocks';
import { fmtRead, headline, msColumn, rowLabel } from '../report-cells';
import { queryTimesChart } from '../charts';
import { fmtInt } from '../format';
import { resultMismatches } from '../verdicts';
import type { CellResult, QueryRecord } from '../../schema/results';
import type { ReportContext, ReportSection } from './section';

/**
 * The Queries table (before the skip index), header first: one row per query in the order the cells
 * ran them (the workload manifest's order), per cell its cold time, the warm headline statistic, the
 * other warm statistic (each column in one unit, at the recorded resolution) and read_rows of the last
 * warm run. Cells in the order given (matrix order).
 */
export function queryRows(ok: CellResult[], protocol: { statistic: 'min' | 'median'; coldRuns: number }, label: (c: CellResult) => string = rowLabel): string[][] {
  const stat = protocol.statistic;
  const other = stat === 'min' ? 'median' : 'min';
  const coldN = protocol.coldRuns;
  const qids = [...new Set(ok.flatMap((c) => c.queries_baseline?.queries.map((q) => q.id) ?? []))];
  const coldHead = coldN > 1 ? `cold (min of ${coldN})` : 'cold';
  const qRows = [['query', ...ok.flatMap((c) => [`${label(c)} ${coldHead}`, `warm ${stat}`, `warm ${other}`, 'read_rows'])]];
  // One unit per column: each cell's cold, warm statistic and other warm statistic column has its own.
  const qOf = (c: CellResult) => (c.queries_baseline?.queries ?? []).filter((q) => qids.includes(q.id));
  const otherOf = (q: QueryRecord) => (other === 'median' ? q.stats.warm_median_ms : q.stats.warm_min_ms);
  const cols = new Map(ok.map((c) => [c, { cold: msColumn(qOf(c).map((q) => q.stats.cold_ms)), head: msColumn(qOf(c).map((q) => headline(q, stat))), other: msColumn(qOf(c).map(otherOf)) }]));
  for (const id of qids) {
    const title = ok.map((c) => c.queries_baseline?.queries.find((q) => q.id === id)?.title).find(Boolean) ?? '';
    qRows.push([
      `${id} ${title}`,
      ...ok.flatMap((c) => {
        const q = c.queries_baseline?.queries.find((x) => x.id === id);
        if (!q) return ['n/a', 'n/a', 'n/a', 'n/a'];
        const res = q.stats.resolution_ms ?? null;
        const flag = q.samples.some((x) => x.kind !== 'warmup' && x.validity?.quiet.valid === false) ? ' ⚠ not quiet' : '';
        const o = otherOf(q);
        const f = cols.get(c)!;
        const coldFlag = q.stats.cold_runs_rejected ? ` ⚠ ${q.stats.cold_runs_rejected} not cold` : q.samples.some((x) => x.kind === 'cold' && x.validity?.cold?.valid === null) ? ' (cold?)' : '';
        const warmFlag = q.stats.warm_validity?.valid === false ? ' ⚠ not warmer' : '';
        return [f.cold(q.stats.cold_ms, res) + coldFlag, f.head(headline(q, stat), res) + flag + warmFlag, f.other(o, res), fmtRead(q.stats.read_rows, fmtInt, q)];
      }),
    ]);
  }
  return qRows;
}

/**
 * The Queries section's blocks after its heading, for both renderers: `intro` (the timing sources, each cell's
 * cold definition from `queries_baseline.cold_definition`, cells measured beside other chbench servers) and
 * `table` (the Queries table, timing notes, failed queries, and whether the results agree by sha256).
 */
function queriesBlocks(ctx: ReportContext): { intro: Block[]; table: Block[] } {
  const { spec, measured: ok } = ctx;
  const label = rowLabel;
  if (!ok.length) return { intro: [], table: [] };
  const out: Block[] = [];
  const stat = spec.protocol.statistic;
  const other = stat === 'min' ? 'median' : 'min';
  const timing = [...new Set(ok.flatMap((c) => c.queries_baseline?.queries.map((q) => q.stats.timing_source) ?? []))];
  const serverSources = [...new Set(ok.flatMap((c) => c.queries_baseline?.queries.flatMap((q) => q.stats.server_time_sources ?? []) ?? []))].map((x) => `\`${x}\``);
  const readSources = [...new Set(ok.flatMap((c) => c.queries_baseline?.queries.flatMap((q) => q.samples.map((x) => x.read_source ?? 'not available')) ?? []))];
  const coldN = spec.protocol.coldRuns;
  out.push(
    `Times are **${timing.join(' / ') || 'n/a'}**; in this run server-side elapsed comes from ${serverSources.join(' / ') || 'n/a'} (chbench takes \`system.query_log\` where the server keeps one — microsecond columns where the version has them, else whole-ms \`query_duration_ms\` — and otherwise the HTTP summary, requested complete with \`wait_end_of_query=1\`); a server time coarser than 10 % of the value is replaced by client wall time (noted below). The client wall time of every run is in the samples. ` +
      `Cold = ${coldN > 1 ? `the fastest of ${coldN} cold runs` : 'the cold run'}; then ${spec.protocol.warmupRuns ?? 0} unmeasured warm-up run(s); warm ${stat} and ${other} over ${spec.protocol.warmRuns} warm runs. ` +
      `read_rows of the last warm run, from ${readSources.join(' / ') || 'n/a'}.`,
    '',
  );
  for (const c of ok) if (c.queries_baseline) out.push(`- ${label(c)} cold: ${c.queries_baseline.cold_definition}`);
  out.push('');
  const busy = ok.filter((c) => [c.queries_baseline, c.queries_index].some((q) => q && q.other_chbench_servers && (q.other_chbench_servers.at_start.length || q.other_chbench_servers.at_end.length)));
  for (const c of busy)
    out.push(`**⚠ ${label(c)} was measured while other chbench servers ran on this host** (${[...new Set([c.queries_baseline, c.queries_index].flatMap((q) => (q ? [...q.other_chbench_servers.at_start, ...q.other_chbench_servers.at_end] : [])))].join(', ')}): its times are disturbed.`, '');
  const qids = [...new Set(ok.flatMap((c) => c.queries_baseline?.queries.map((q) => q.id) ?? []))];
  const qRows = queryRows(ok, spec.protocol, label);
  const intro = out.splice(0);
  out.push({ rows: qRows, summary: `Queries table (as in report.md): cold, warm ${stat} and ${other}, read_rows of the last warm run, before the skip index` }, '');
  const notes = ok.flatMap((c) => (c.queries_baseline?.queries ?? []).filter((q) => q.stats.timing_note).map((q) => `- ${q.id} in ${label(c)}: ${q.stats.timing_note}.`));
  if (notes.length) out.push('Timing source per query where it differs:', '', ...notes, '');
  for (const c of ok)
    for (const rec of [c.queries_baseline, c.queries_index])
      for (const fq of rec?.queries.filter((x) => x.error) ?? [])
        out.push(`**⚠ ${fq.id} failed in ${label(c)}${rec === c.queries_index ? ' (after index)' : ''}** on run ${fq.error!.run} (query_id \`${fq.error!.query_id}\`): server error Code ${fq.error!.code}${fq.error!.type ? ` (${fq.error!.type})` : ''}: ${fq.error!.message}`, '');
  const find = (c: CellResult, id: string) => c.queries_baseline?.queries.find((q) => q.id === id);
  const approx = qids.filter((id) => ok.some((c) => find(c, id)?.deterministic === false));
  // Only queries that returned rows in at least one run can be said to agree.
  const measuredIds = qids.filter((id) => ok.some((c) => [c.queries_baseline, c.queries_index].some((p) => p?.queries.find((q) => q.id === id && q.samples.length))));
  const compared = measuredIds.filter((id) => !approx.includes(id));
  // "before and after the index" only when a compared query was measured after the index.
  const anyIndex = ok.some((c) => c.queries_index?.queries.some((q) => compared.includes(q.id) && q.samples.length));
  const mismatches = resultMismatches(ok);
  for (const mm of mismatches)
    out.push(
      `**⚠ Correctness failure: ${mm.id} returned different rows** (compared by ${mm.by === 'values' ? 'value hash' : 'text hash: a record predates value hashes, so formatting differences between versions count too'}) — ${mm.values.join(' ≠ ')}`,
      '',
      '```sql',
      mm.sql.trim(),
      '```',
      '',
    );
  if (mismatches.length) out.push('');
  else if (compared.length) out.push(`Results agree: every run of ${compared.join(', ')} in every cell${anyIndex ? ' (before and after the index)' : ''} returned the same rows (sha256).`, '');
  if (approx.length) out.push(`Not compared: ${approx.join(', ')} (the workload marks the result as approximate).`, '');
  return { intro, table: out };
}

export const queriesSection: ReportSection = {
  id: 'queries',
  title: 'Queries',
  applies: () => true,
  markdown(ctx: ReportContext): string[] {
    if (!ctx.measured.length) return [];
    const { intro, table } = queriesBlocks(ctx);
    return blocksMarkdown(['## Queries', '', ...intro, ...table]);
  },
  async html(ctx: ReportContext): Promise<Raw> {
    const { measured, chartCells: ok } = ctx;
    // A chart of hundreds of cells is unreadable and costs hundreds of MB to render: the charts draw the
    // first MAX_CHART_CELLS in matrix order, the tables (here and in report.md) list every cell.
    const chartNote =
      measured.length > ok.length
        ? note(`The charts show the first ${ok.length} of ${measured.length} measured cells (matrix order); every cell is in the tables and in report.md.`)
        : h``;
    const { intro, table } = queriesBlocks(ctx);
    return h`<section id="queries"><h2>Query times</h2>${chartNote}${blocksBody(intro)}${await figures([queryTimesChart(ok, 'baseline'), queryTimesChart(ok, 'index')], 'No query run was measured.')}${blocksBody(table)}</section>`;
  },
};
