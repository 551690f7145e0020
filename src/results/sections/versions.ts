/**
 * "What differs between these versions", for a matrix over several served versions
 * (`report-versions.ts`: the defaults that differ per version step, the figures that moved, the
 * shipped against pinned defaults). report.md leaves it out when no cell measured anything.
 */
import { h, note, notesList, table, type Raw } from '../html';
import { stepHead, stepNotes, versionsSection, versionsView } from '../report-versions';
import type { CellResult } from '../../schema/results';
import type { VerdictsRecord } from '../../schema/verdicts';
import type { ReportContext, ReportSection } from './section';

/** "What differs between these versions" (as report.md's, `report-versions.ts`), for a matrix over several served versions. */
function versionsHtml(dir: string, cells: CellResult[], statistic: 'min' | 'median', verdicts?: VerdictsRecord): Raw {
  const v = versionsView(dir, cells, statistic, verdicts);
  if (!v) return h``;
  const steps = v.steps.map((s) => {
    if (s.missing) return h`<h3>${s.a} → ${s.b}</h3>${note(s.missing)}`;
    const n = stepNotes(s);
    const plain = (t: string) => t.replace(/`|\*\*/g, '');
    const [sh, ...sr] = s.storage;
    return h`<h3>${s.a} → ${s.b}</h3>${s.relevant.length ? table(stepHead(s), s.relevant) : note('No default that can affect these queries differs.')}<p>${n.counts}</p>${sr.length ? table(sh, sr) : ''}${n.notComparable.map((l) => h`<p class="warn">⚠ ${plain(l)}</p>`)}${n.skipped.length ? notesList(n.skipped.map(plain)) : ''}${s.explain.length ? h`<p>What moved from ${s.a} to ${s.b}, per query, and the defaults of this step that can act on it:</p>${notesList(s.explain.map(plain))}` : ''}`;
  });
  const [head, ...rows] = v.perQuery;
  const pinned = v.pinned.map((p) => {
    const [ph, ...pr] = p.rows;
    return h`<h3>Shipped against pinned defaults (${p.pin})</h3><p>${p.intro.replace(/`/g, '')}</p>${table(ph, pr)}`;
  });
  return h`<section id="versions"><h2>What differs between these versions</h2><p>${v.intro.replace(/`/g, '')}</p>${steps}${rows.length ? h`<h3>Per query: the largest version-to-version change</h3><p>${v.perQueryIntro.replace(/`/g, '')}</p>${table(head, rows)}` : ''}${pinned}</section>`;
}

export const versionsReportSection: ReportSection = {
  id: 'versions',
  title: 'What differs between these versions',
  applies: () => true,
  markdown: (ctx: ReportContext): string[] =>
    ctx.measured.length ? versionsSection(ctx.dir, ctx.measured, ctx.spec.protocol.statistic, ctx.verdicts.record) : [],
  html: (ctx: ReportContext): Raw => versionsHtml(ctx.dir, ctx.measured, ctx.spec.protocol.statistic, ctx.verdicts.record),
};
