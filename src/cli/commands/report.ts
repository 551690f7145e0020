/**
 * `chbench report <runId>`: (re)render results/<runId>/report.md and report.html from the stored cell
 * results (<runId>: the run id, its folder name, or a scheduled run's workflow id).
 */
import path from 'node:path';
import type { Command } from 'commander';
import { renderReport } from '../../results/report';
import { renderHtmlReport } from '../../results/report-html';
import { seriesOf } from '../../results/run-report';
import { writeTextAtomic } from '../../results/store';
import { EXIT, fail } from '../exit-codes';
import { storedRunOrFail } from '../run-folder';

/** Add `report` to the chbench program. */
export function registerReportCommand(program: Command): void {
  program
    .command('report <runId>')
    .description('render results/<runId>/report.md and report.html again from the stored cell results')
    .option('--results-dir <dir>', 'results directory', 'results')
    .option('--print', 'also print the report to stdout')
    .addHelpText('after', "\n<runId>: the run id, its folder name, or a scheduled run's workflow id.\n")
    .action(async (given: string, o: { resultsDir: string; print?: boolean }) => {
      const { dir } = storedRunOrFail(o.resultsDir, given);
      let md = '';
      try {
        md = renderReport(dir);
      } catch (e) {
        // A result file another chbench version (or something else) wrote: the error names the file and field.
        fail(EXIT.invalid, `cannot render the report: ${(e as Error).message}`);
      }
      const file = path.join(dir, 'report.md');
      writeTextAtomic(file, md);
      // report.html beside it, with the series of past runs from the results database when it can be read.
      const series = await seriesOf(o.resultsDir, dir);
      writeTextAtomic(path.join(dir, 'report.html'), await renderHtmlReport(dir, series ? { series } : {}));
      if (o.print) console.log(md);
      else console.log(`${file}\n${path.join(dir, 'report.html')}`);
    });
}
