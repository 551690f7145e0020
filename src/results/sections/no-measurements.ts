/** The line in place of the measurement sections when no cell measured anything (they are left out), in report.md and report.html. */
import { blocksHtml, blocksMarkdown, type Block } from './blocks';
import type { ReportSection } from './section';

const LINES: Block[] = ['The measurement sections (ingest, compression, queries, validity, skip index, counters) are left out: no cell measured anything.', ''];

export const noMeasurementsSection: ReportSection = {
  id: 'no-measurements',
  title: 'No measurements',
  applies: (ctx) => !ctx.measured.length,
  markdown: () => blocksMarkdown(LINES),
  html: () => blocksHtml('no-measurements', LINES),
};
