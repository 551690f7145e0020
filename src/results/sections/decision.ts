/**
 * The run's verdicts (`verdicts.json`, `src/measure/verdicts.ts`): the **Decision** right after the
 * report's head — one row per cell against the run's reference cell (bytes on disk, ingest, the warm
 * queries' geometric-mean ratio with its interval and the verdict counts, queries that fail), the A/A
 * control, one sentence per axis — and **Verdicts**, every comparison with its interval, minimal
 * detectable effect, runs per side, the re-run and the reason. report.html adds the ratio and disk charts.
 */
import { chartFigure, h, note, Raw } from '../html';
import { verdictsCharts } from '../charts';
import type { VerdictEntry, VerdictsRecord } from '../../schema/verdicts';
import { blocksBody, blocksHtml, blocksMarkdown, type Block } from './blocks';
import type { ReportContext, ReportSection } from './section';

const ratio = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(x >= 10 ? 1 : 3)}×`);
const iv = (lo: number | null, hi: number | null) => (lo === null || hi === null ? 'n/a' : `[${lo.toFixed(3)}, ${hi.toFixed(3)}]`);
const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(x < 0.1 ? 1 : 0)} %`);
const confirmedText = (e: VerdictEntry) =>
  e.confirmed === true
    ? `confirmed${e.rerun ? ` (${e.rerun.runs} rounds)` : ''}`
    : e.confirmed === false
      ? e.verdict === 'faster' || e.verdict === 'slower'
        ? 'not yet'
        : 'withdrawn'
      : e.remeasured && e.rerun
        ? `re-measured (${e.rerun.runs} rounds)`
        : '–';

/** The Decision's blocks. */
export function decisionBlocks(r: VerdictsRecord): Block[] {
  const out: Block[] = ['## Decision', ''];
  const c = r.control;
  out.push(
    `Every cell against the run's reference cell **${r.reference || 'n/a'}** (ratios cell / reference; a time ratio below 1 is faster; 95 % intervals; verdicts ${r.stage === 'final' ? 'after' : 'before'} the interleaved re-run). ` +
      (c
        ? `**A/A control**: ${c.reference} measured again as ${c.cell} — ${c.note}.${c.interleaved ? ` **Interleaved A/A control** (${c.interleaved.pair}): ${c.interleaved.note}.` : ''}`
        : '**No A/A control** in this run: nothing is called faster or slower.'),
    '',
  );
  if (c && c.moved > 0) out.push(`> **⚠ The A/A control moved** (${c.moved} of ${c.pairs} pairs): this run's noise reaches beyond its intervals. A faster/slower below stands only as confirmed by its interleaved re-run (its figures are in the sentences and in [Verdicts](#verdicts)).`, '');
  if (r.decision.length)
    out.push({
      rows: [
        ['cell', 'bytes on disk', 'ingest rows/s', 'warm geomean [mean of the 95 % intervals]', 'warm: faster', 'slower', 'unchanged', 'inconclusive', 'not comparable', 'fails'],
        ...r.decision.map((d) => [
          d.cell,
          ratio(d.disk_ratio),
          `${ratio(d.ingest_ratio)}${d.ingest_verdict ? ` ${d.ingest_verdict}` : ''}`,
          `${ratio(d.geomean)} ${iv(d.geomean_low, d.geomean_high)}`,
          String(d.counts.faster),
          String(d.counts.slower),
          String(d.counts.unchanged),
          String(d.counts.inconclusive),
          String(d.counts.not_comparable),
          d.failed.join(', ') || '–',
        ]),
      ],
      summary: 'Decision table (as in report.md)',
    });
  out.push('');
  for (const s of r.sentences) out.push(`- ${s}`);
  for (const n of r.notes) out.push(`- ⚠ ${n}`);
  out.push('', 'Bytes on disk: `system.parts` bytes_on_disk of the active parts (exact; the cost, comparable across versions and codecs). Ingest: rows / client wall time of the load, one load per cell. The counts are the warm comparisons (a query after the skip index counted apart); the geomean is of their ratios (first pass, or both passes combined where re-measured), its bracket the mean of their intervals (not itself a 95 % interval). Cold comparisons, every interval, minimal detectable effect, re-run and reason: [Verdicts](#verdicts).', '');
  return out;
}

/** The Verdicts section's blocks: every comparison. */
export function verdictBlocks(r: VerdictsRecord): Block[] {
  const rows = r.entries.map((e) => [
    e.axis,
    `${e.reference} → ${e.cell}`,
    e.query ?? '–',
    e.phase,
    `**${e.verdict}**`,
    ratio(e.ratio),
    e.phase === 'disk' ? 'exact' : iv(e.low, e.high),
    pct(e.mde),
    `${e.runs.reference} / ${e.runs.cell}`,
    confirmedText(e),
    e.work ?? '–',
    `${e.reason}${e.more ? ` — decides it: ${e.more}` : ''}`,
  ]);
  return [
    '## Verdicts',
    '',
    `Method: ${r.method}.`,
    '',
    { rows: [['axis', 'reference → cell', 'query', 'phase', 'verdict', 'ratio', '95 % interval', 'MDE (80 %)', 'runs ref / cell', 're-run', 'work', 'why'], ...rows] },
    '',
  ];
}

export const decisionSection: ReportSection = {
  id: 'decision',
  title: 'Decision',
  applies: (ctx: ReportContext) => !!(ctx.verdicts.record || ctx.verdicts.error),
  markdown: (ctx: ReportContext): string[] =>
    ctx.verdicts.record ? blocksMarkdown(decisionBlocks(ctx.verdicts.record)) : [`> **verdicts.json could not be read**: ${ctx.verdicts.error}`, ''],
  async html(ctx: ReportContext): Promise<Raw> {
    const r = ctx.verdicts.record;
    if (!r) return h`<section id="decision"><h2>Decision</h2>${note(`⚠ verdicts.json could not be read: ${ctx.verdicts.error}`)}</section>`;
    const charts = await Promise.all(verdictsCharts(r).map(async (c) => new Raw(await chartFigure(c))));
    return h`<section id="decision">${blocksBody(decisionBlocks(r))}${charts}</section>`;
  },
};

export const verdictsSection: ReportSection = {
  id: 'verdicts',
  title: 'Verdicts',
  applies: (ctx: ReportContext) => !!ctx.verdicts.record,
  markdown: (ctx: ReportContext): string[] => blocksMarkdown(verdictBlocks(ctx.verdicts.record!)),
  html: (ctx: ReportContext): Raw => blocksHtml('verdicts', verdictBlocks(ctx.verdicts.record!)),
};
