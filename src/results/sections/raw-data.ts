/** The report's last words: where the raw data is (every sample, query_log rows, exact SQL and settings under `cells/<cell>/`). */
import { h, type Raw } from '../html';
import type { ReportSection } from './section';

export const rawDataSection: ReportSection = {
  id: 'raw-data',
  title: 'Raw data',
  applies: () => true,
  markdown: () => ['Raw data: `cells/<cell>/*.json` beside this report (every sample, query_log rows where available, exact SQL and settings).', ''],
  html: (): Raw =>
    h`<footer><p class="note">Every table (the main ones are under their charts above) and every sample: report.md and cells/&lt;cell&gt;/*.json beside this page.</p></footer>`,
};
