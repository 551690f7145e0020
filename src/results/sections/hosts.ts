/**
 * The Hosts section: the host whose worker ran each cell's steps, with its facts, and the hosts lost
 * during a cell (`report-hosts.ts`); only when a cell recorded its host (`result.json` `host`).
 */
import { h, notesList, table, type Raw } from '../html';
import { hasHosts, hostLossNotes, hostsOf, hostsSection, hostsTable } from '../report-hosts';
import type { ReportContext, ReportSection } from './section';

export const hostsReportSection: ReportSection = {
  id: 'hosts',
  title: 'Hosts',
  applies: (ctx) => hasHosts(ctx.cells),
  markdown: (ctx: ReportContext): string[] => hostsSection(ctx.cells),
  html(ctx: ReportContext): Raw {
    const cells = ctx.cells;
    if (!hasHosts(cells)) return h``;
    const t = hostsTable(hostsOf(cells));
    const losses = hostLossNotes(cells);
    return h`<section id="hosts"><h2>Hosts</h2><p>The host whose worker ran each cell's steps, with its facts as the provision step recorded them on the host (os.hostname(), os.cpus(), os.totalmem(), os.type() and os.release()).</p>${table(t.head, t.rows)}${losses.length ? h`<p>Hosts lost during a cell:</p>${notesList(losses)}` : ''}</section>`;
  },
};
