/**
 * The report as an ordered list of sections: `renderReport` (report.md) and `renderHtmlReport`
 * (report.html) both walk {@link REPORT_SECTIONS}. Adding a section is its file in this folder and
 * its line here (docs/architecture.md, "Adding a report section").
 */
import { headerSection } from './header';
import { decisionSection, verdictsSection } from './decision';
import { cellsSection } from './cells';
import { hostsReportSection } from './hosts';
import { sourcesSection } from './sources';
import { noMeasurementsSection } from './no-measurements';
import { ingestSection } from './ingest';
import { afterLoadReportSection } from './after-load';
import { compressionSection } from './compression';
import { queriesSection } from './queries';
import { versionsReportSection } from './versions';
import { validitySection } from './validity';
import { skipIndexSection } from './skip-index';
import { countersSection } from './counters';
import { comparingCellsSection } from './comparing';
import { environmentReportSection } from './environment';
import { gridsReportSection } from './grids';
import { comparisonReportSection } from './comparison';
import { seriesSection } from './series';
import { cloudSection } from './cloud';
import { bottlenecksSection, podBottlenecksSection } from './bottlenecks';
import { notFinishedSection } from './not-finished';
import { rawDataSection } from './raw-data';
import type { ReportSection } from './section';

export { buildContext, loadRun, MAX_CHART_CELLS, type ReportContext, type ReportSection } from './section';

/** The report's sections in report.md's order (a renderer skips a section without its part: md-only or html-only). */
export const REPORT_SECTIONS: readonly ReportSection[] = [
  headerSection,
  decisionSection,
  cellsSection,
  hostsReportSection,
  sourcesSection,
  noMeasurementsSection,
  ingestSection,
  afterLoadReportSection,
  compressionSection,
  queriesSection,
  versionsReportSection,
  validitySection,
  skipIndexSection,
  countersSection,
  comparingCellsSection,
  environmentReportSection,
  gridsReportSection,
  comparisonReportSection,
  verdictsSection,
  seriesSection,
  cloudSection,
  bottlenecksSection,
  podBottlenecksSection,
  notFinishedSection,
  rawDataSection,
];

/**
 * Sections report.html places elsewhere than report.md: section id → the id of the section it follows
 * on the page. Kept from the page's layout before the list existed, so that neither file changed when
 * the list was introduced (charts first: query times before compression; the versions' differences
 * after the skip index; the environment after the comparison and series). A new section needs no entry.
 */
export const HTML_PLACED_AFTER: Readonly<Record<string, string>> = {
  compression: 'queries',
  versions: 'skip-index',
  environment: 'series',
};

/** The sections with markdown in report.md's order (the list's). */
export function markdownSections(sections: readonly ReportSection[] = REPORT_SECTIONS): ReportSection[] {
  return sections.filter((s) => s.markdown);
}

/**
 * The sections with html in report.html's order: the list's, except that a section named in
 * `placedAfter` comes right after the section it names (several after one in the list's order).
 * @throws Error when a placement names a section that is not in the list.
 */
export function htmlSections(sections: readonly ReportSection[] = REPORT_SECTIONS, placedAfter: Readonly<Record<string, string>> = HTML_PLACED_AFTER): ReportSection[] {
  for (const [id, after] of Object.entries(placedAfter))
    if (!sections.some((s) => s.id === id) || !sections.some((s) => s.id === after)) throw new Error(`report.html placement ${id} → after ${after}: no such section`);
  const out: ReportSection[] = [];
  const place = (s: ReportSection) => {
    out.push(s);
    for (const t of sections) if (placedAfter[t.id] === s.id) place(t);
  };
  for (const s of sections) if (!(s.id in placedAfter)) place(s);
  return out.filter((s) => s.html);
}
