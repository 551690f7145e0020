/**
 * `chbench export --format clickbench|jsonl|csv <runId> [--out path]`: a stored run from the results
 * database (options as `chbench results`, `src/cli/results-db.ts`) in a format other tools read.
 *
 * Run ids: the stored one (`q1-2026-11-30T14:16:43Z`) or its folder name (`q1-2026-11-30T14_16_43Z`).
 *
 * Exit codes: 0 written; 1 the database failed; 2 invalid arguments or an unknown run; 3 the results
 * database is busy or unreachable.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { clickBenchResults, samplesExport } from '../../results/db/export';
import { fail } from '../exit-codes';
import { dbErrorCode, withDb, withDbOptions, type DbOptions } from '../results-db';

/** Add `export <runId>` to the chbench program. */
export function registerExportCommand(program: Command): void {
  withDbOptions(program.command('export <runId>'))
    .description(
      'write a stored run in a format other tools read: clickbench (ClickBench result JSON per cell and phase), jsonl or csv (one line per measured query run, a column per figure)',
    )
    .requiredOption('--format <format>', 'clickbench | jsonl | csv')
    .option('--out <path>', 'file (jsonl, csv) or directory (clickbench: <cell>.<phase>.json each); default stdout')
    .addHelpText(
      'after',
      '\n<runId>: the stored run id or its folder name (`:` as `_`).\n\nExit codes: 0 written; 1 the database failed; 2 bad arguments or an unknown run; 3 results database busy or unreachable\n',
    )
    .action(async (given: string, o: DbOptions & { format: string; out?: string }) => {
      if (!['clickbench', 'jsonl', 'csv'].includes(o.format))
        fail(2, `--format ${o.format}: expected clickbench, jsonl or csv`);
      await withDb(o, async (db) => {
        try {
          const runId = await db.resolveRunId(given);
          if (!runId)
            fail(2, `no run ${given} in the results database (${db.description}); load it with chbench results import`);
          if (o.format === 'clickbench') {
            const docs = await clickBenchResults(db, runId);
            if (!o.out)
              return console.log(
                JSON.stringify(
                  docs.map((d) => d.doc),
                  null,
                  2,
                ),
              );
            mkdirSync(o.out, { recursive: true });
            for (const d of docs)
              writeFileSync(path.join(o.out, `${d.name}.json`), JSON.stringify(d.doc, null, 2) + '\n');
            console.log(`${docs.length} ClickBench result file(s) in ${path.resolve(o.out)}`);
            return;
          }
          const text = await samplesExport(db, runId, o.format as 'jsonl' | 'csv');
          if (!o.out) return void process.stdout.write(text);
          mkdirSync(path.dirname(path.resolve(o.out)), { recursive: true });
          writeFileSync(o.out, text);
          console.log(path.resolve(o.out));
        } catch (e) {
          fail(dbErrorCode(e), (e as Error).message);
        }
      });
    });
}
