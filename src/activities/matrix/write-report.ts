/** writeReport: render `results/<runId>/report.md` from the cells' result files. */
import path from 'node:path';
import { renderReport } from '../../results/report';
import { readJson, runDir, writeJsonAtomic, writeRunSamples, writeTextAtomic } from '../../results/store';

/** Activity factory. */
export function createWriteReport() {
  return {
    /**
     * Render the report; also records the run's end and status in `run.json`.
     * @returns the absolute path of `report.md`.
     */
    async writeReport(input: { resultsDir: string; runId: string; status: string }): Promise<{ reportPath: string }> {
      const dir = runDir(input.resultsDir, input.runId);
      const runFile = path.join(dir, 'run.json');
      writeJsonAtomic(runFile, {
        ...readJson<object>(runFile),
        finishedAt: new Date().toISOString(),
        status: input.status,
      });
      const reportPath = path.join(dir, 'report.md');
      writeTextAtomic(reportPath, renderReport(dir));
      // Every cell's flat samples in one file, for loading the run into a database (README "What a cell measures", flat samples).
      writeRunSamples(dir, readJson<{ cells: string[] }>(runFile).cells);
      return { reportPath };
    },
  };
}
