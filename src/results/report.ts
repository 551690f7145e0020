/**
 * Render `report.md` for a run from `run.json` and the cells' `result.json` files, parsed with the
 * results schema (`src/schema/results.ts`: a file of another version or shape fails naming the field).
 * Pure apart from reading those files; `chbench report <runId>` and the `writeReport` activity both call it.
 *
 * The report is the ordered list of sections in `sections/index.ts` (`REPORT_SECTIONS`), which
 * report.html walks too; this file walks it for report.md and re-exports the helpers other code and
 * the tests import from here.
 */
import { buildContext, markdownSections } from './sections';

export { fmtBytes, fmtMs, fmtInt } from './format';
export { loadRun } from './sections';
export { comparedQueries, indexVerdict, readProof, resultMismatches, validitySummary } from './verdicts';
export { rowLabel } from './report-cells';
export { CELL_ERROR_CHARS, retries } from './sections/cells';
export { ingestRows } from './sections/ingest';
export { afterLoadSection } from './sections/after-load';
export { compressionRows, perColumnRows } from './sections/compression';
export { queryRows } from './sections/queries';
export { skipIndexRows } from './sections/skip-index';

/**
 * Render the report markdown for a run directory: every section of `REPORT_SECTIONS` that applies
 * and has markdown, in the list's order, its lines joined with `\n`.
 * @throws Error naming the file and field when `run.json` or a `result.json` does not parse (see `loadRun`).
 */
export function renderReport(dir: string): string {
  const ctx = buildContext(dir);
  return markdownSections()
    .flatMap((s) => (s.applies(ctx) ? s.markdown!(ctx) : []))
    .join('\n');
}
