/** report.md's line in place of the measurement sections when no cell measured anything (they are left out). */
import type { ReportSection } from './section';

export const noMeasurementsSection: ReportSection = {
  id: 'no-measurements',
  title: 'No measurements',
  applies: (ctx) => !ctx.measured.length,
  markdown: () => ['The measurement sections (ingest, compression, queries, validity, skip index, counters) are left out: no cell measured anything.', ''],
};
