/** writeReport: render `results/<runId>/report.md` and `report.html` from the cells' result files. */
import path from 'node:path';
import { renderReport } from '../../results/report';
import { escapeHtml, renderHtmlReport } from '../../results/report-html';
import { readJson, runDir, writeJsonAtomic, writeRunSamples, writeTextAtomic } from '../../results/store';

/** Activity factory. */
export function createWriteReport() {
  return {
    /**
     * Render the report (`report.md`, and `report.html` with its charts: a chart that fails to render is a
     * note in the page, not a failed report); also records the run's end and status in `run.json`.
     * @returns the absolute paths of `report.md` and `report.html`.
     */
    async writeReport(input: {
      resultsDir: string;
      runId: string;
      status: string;
    }): Promise<{ reportPath: string; htmlPath?: string }> {
      const dir = runDir(input.resultsDir, input.runId);
      const runFile = path.join(dir, 'run.json');
      writeJsonAtomic(runFile, {
        ...readJson<object>(runFile),
        finishedAt: new Date().toISOString(),
        status: input.status,
      });
      const reportPath = path.join(dir, 'report.md');
      writeTextAtomic(reportPath, renderReport(dir));
      const htmlPath = path.join(dir, 'report.html');
      // report.md is written: the HTML page must not fail the report. Its charts already turn their own
      // failures into notes; anything else becomes a page saying so (report.md stands).
      const html = await renderHtmlReport(dir).catch(
        (e: unknown) =>
          `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>chbench report</title></head><body><p>report.html could not be rendered: ${escapeHtml(e instanceof Error ? e.message : String(e))}. See report.md beside this file.</p></body></html>\n`,
      );
      writeTextAtomic(htmlPath, html);
      // Every cell's flat samples in one file, for loading the run into a database (README "What a cell measures", flat samples).
      writeRunSamples(dir, readJson<{ cells: string[] }>(runFile).cells);
      return { reportPath, htmlPath };
    },
  };
}
