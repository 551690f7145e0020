/**
 * `chbench bisect --good <label> --bad <label> [--query q] [--metric read_rows|warm|cold] [--hand-setting v:name=value]… <spec>`: start the
 * bisectVersions workflow (src/workflows/bisect-versions.ts), wait for it, print every step and the
 * verdict. Starting it again with the same `--run-id` resumes: cells already measured are reused.
 */
import type { Command } from 'commander';
import { newRunId } from '../../temporal/run-client';
import { runIdProblem } from '../../schema/run-id';
import type { BisectResult } from '../../workflows/bisect-versions';
import { say } from '../follow';
import { EXIT, fail } from '../exit-codes';
import { validateFile } from '../spec';
import { failureSummary, temporalClient } from '../temporal-run';
import { WorkflowFailedError } from '../../temporal/run-client';
import { versionSourcesOf } from '../../targets/versions';
import { verdictWords, versionRange } from '../../schema/bisect';
import { loadWorkload } from '../../lib/workload';

/**
 * The bisect's own arguments checked on the CLI's side before the workflow starts, with the rules
 * the workflow applies (`versionRange`, the workload's query ids): the two labels are served by the
 * target's version sources and `good` is the older; `--query` names a query of the workload, and
 * of the spec's `queries` when it selects some.
 * @returns one line per problem (empty when the arguments are fine)
 */
export function bisectArgumentProblems(
  raw: { target?: unknown; workload?: unknown; queries?: unknown },
  o: { good: string; bad: string; query?: string },
): string[] {
  const problems: string[] = [];
  try {
    const labels = versionSourcesOf(raw.target as Record<string, unknown>).flatMap((s) => s.labels());
    versionRange(labels, o.good, o.bad);
  } catch (e) {
    problems.push((e as Error).message);
  }
  if (o.query && typeof raw.workload === 'string') {
    try {
      const ids = loadWorkload(raw.workload).queries.map((q) => q.id);
      if (!ids.includes(o.query))
        problems.push(`--query ${o.query}: not a query of workload ${raw.workload} (${ids.join(', ')})`);
      else if (Array.isArray(raw.queries) && !raw.queries.includes(o.query))
        problems.push(
          `--query ${o.query}: not among the spec's queries (${raw.queries.join(', ')}); add it to queries or bisect one of those`,
        );
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  return problems;
}

interface Options {
  good: string;
  bad: string;
  query?: string;
  metric: string;
  runId?: string;
  handSetting: string[];
}

/**
 * `--hand-setting 26.3:use_skip_indexes=0` entries → the workflow's `handSettings` (label → name →
 * value; a number when the value is one). Exits with EXIT.invalid on an entry of another shape.
 */
function parseHandSettings(entries: string[]): Record<string, Record<string, string | number>> | undefined {
  if (!entries.length) return undefined;
  const out: Record<string, Record<string, string | number>> = {};
  for (const e of entries) {
    const m = /^(\d+(?:\.\d+){1,3}):([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(e);
    if (!m)
      fail(
        EXIT.invalid,
        `--hand-setting ${JSON.stringify(e)}: expected <version>:<setting>=<value>, e.g. 26.3:use_skip_indexes=0`,
      );
    const [, label, name, value] = m;
    (out[label] ??= {})[name] = value !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  return out;
}

/** Add `bisect` to the chbench program. */
export function registerBisectCommand(program: Command): void {
  program
    .command('bisect <spec>')
    .description(
      'find the first version where a query changes between two version labels, then attribute it (bisectVersions workflow; needs a running worker). The same --run-id resumes, reusing measured cells',
    )
    .requiredOption('--good <label>', 'version without the change (older)')
    .requiredOption('--bad <label>', 'version with the change (newer)')
    .option('--query <id>', "query id (default: the spec's first selected query, else q1)")
    .option(
      '--metric <metric>',
      "figure followed: read_rows (system.query_log.read_rows of the warm run; one run decides), warm or cold (the query's valid warm / cold run times; each step a verdict against the good end — faster, slower, unchanged or inconclusive with its 95 % interval — re-run interleaved unless unchanged)",
      'read_rows',
    )
    .option(
      '--hand-setting <version:name=value>',
      "set a query setting by hand from that version on (repeatable); the attribution counts it as that version's default",
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--run-id <id>', 'workflow id / run id (default bisect-<UTC timestamp>)')
    .action(async (file: string, o: Options) => {
      const { raw } = validateFile(file);
      const handSettings = parseHandSettings(o.handSetting);
      if (!['read_rows', 'warm', 'cold'].includes(o.metric))
        fail(EXIT.invalid, `--metric ${o.metric}: one of read_rows, warm, cold`);
      const problems = bisectArgumentProblems(raw as Record<string, unknown>, o);
      if (problems.length) fail(EXIT.invalid, problems.join('\n  '));
      const runId = o.runId ?? newRunId('bisect');
      const bad = runIdProblem(runId);
      if (bad) fail(EXIT.invalid, `--run-id ${JSON.stringify(runId)}: ${bad}`);
      const { client, connection, cfg } = await temporalClient();
      try {
        say(`bisect ${runId} started on task queue ${cfg.taskQueue}: ${o.good} → ${o.bad}, metric ${o.metric}`);
        const r = (await client.workflow.execute('bisectVersions', {
          taskQueue: cfg.taskQueue,
          workflowId: runId,
          args: [
            {
              spec: raw,
              good: o.good,
              bad: o.bad,
              metric: o.metric,
              ...(o.query ? { query: o.query } : {}),
              ...(handSettings ? { handSettings } : {}),
            },
          ],
        })) as BisectResult;
        for (const s of r.steps)
          say(
            `  ${s.version}: ${s.side}${s.verdict ? `, ${verdictWords(s.verdict)}${s.verdict.threshold !== null ? ` band ±${(s.verdict.threshold * 100).toFixed(1)} %` : ''}` : ''}${s.hostLoad ? `, host ${s.hostLoad.disturbed ? 'disturbed' : 'quiet'}` : ''}, ${s.figure} (${s.reason})${s.reusedFrom ? `, reused from run ${s.reusedFrom.runId} cell ${s.reusedFrom.cellKey}` : ''}`,
          );
        if (r.outcome.skipped.length) say(`  skipped (cannot run the workload): ${r.outcome.skipped.join(', ')}`);
        console.log(
          `versions ${r.versions.length}, cells run ${r.cellsRun} (bisect steps measured ${r.outcome.cellsRun}, skipped ${r.outcome.skipped.length}, the rest attribution or reused), first changed ${r.firstChanged ?? 'none'}, verdict ${r.verdict}`,
        );
        if (r.cellsNew !== undefined)
          console.log(
            `cells run now ${r.cellsNew}, reused from stored runs ${r.reusedCells?.length ?? 0}; ${r.stored ?? 'not stored'}`,
          );
        console.log(r.reportPath);
      } catch (e) {
        if (!(e instanceof WorkflowFailedError)) throw e;
        const { message, invalidSpec } = failureSummary(e);
        fail(
          invalidSpec ? EXIT.invalid : EXIT.workflowFailed,
          `bisect ${runId} ${invalidSpec ? 'refused' : 'failed'}: ${message}`,
        );
      } finally {
        await connection.close();
      }
    });
}
