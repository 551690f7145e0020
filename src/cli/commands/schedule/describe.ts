/** `chbench schedule describe <scheduleId> [--json]`: spec, when, policies, recent and next runs. */
import type { Command } from 'commander';
import { describeSchedule, type ScheduleView } from '../../../temporal/schedules';
import { iso, withClient } from './shared';

/** A duration in the largest whole unit: `90d`, `12h`, `30m`, `45s`, `1500ms`. */
const dur = (ms: number) => {
  for (const [unit, n] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms >= n && ms % n === 0) return `${ms / n}${unit}`;
  return `${ms}ms`;
};

/** The text of `chbench schedule describe`. */
export function describeText(v: ScheduleView): string {
  const s = v.spec;
  const lines = [
    `schedule ${v.scheduleId}${v.paused ? ' (paused)' : ''}${v.note ? `: ${v.note}` : ''}`,
    s
      ? `  spec: ${s.name}, workload ${s.workload}, ${s.scale.toLocaleString('en-US')} rows, target ${s.target}, ${s.cells} cell(s)`
      : `  spec: does not parse (${v.specProblem})`,
    `  action: start ${v.action.workflowType} on task queue ${v.action.taskQueue}, workflow id ${v.action.workflowId}-<time> (run id and folder: the same with ':' as '_')`,
    `  when: ${[...v.when.calendars, ...v.when.intervals.map((i) => `every ${dur(i)}`)].join('; ') || '-'}${v.when.timezone ? ` (${v.when.timezone})` : ''}${v.when.jitterMs ? `, jitter ${dur(v.when.jitterMs)}` : ''}`,
    `  policies: overlap ${v.policies.overlap ?? '?'}, catch-up window ${dur(v.policies.catchupWindowMs)}, pause on failure ${v.policies.pauseOnFailure}`,
    `  actions: ${v.actionsTaken} taken, ${v.skippedOverlap} skipped (overlap), ${v.missedCatchupWindow} missed (catch-up window); running: ${v.running.join(', ') || 'none'}`,
    `  recent runs:${v.recent.length ? '' : ' none'}`,
    ...v.recent.map(
      (r) =>
        `    ${r.workflowId}  ${r.status}  (due ${iso(r.scheduledAt)}, workflow created ${iso(r.takenAt)}; a worker's start is run.json startedAt)`,
    ),
    `  next: ${v.next.slice(0, 3).map(iso).join(', ') || 'none'}`,
  ];
  return lines.join('\n');
}

/** Add `describe` to the `schedule` group. */
export function registerScheduleDescribeCommand(sched: Command): void {
  sched
    .command('describe <scheduleId>')
    .description('spec summary, when, policies, recent runs with their status, next runs')
    .option('--json', 'print JSON (includes the stored spec)')
    .action(async function (this: Command, id: string) {
      const o = this.opts<{ json?: boolean }>();
      await withClient(this, async ({ client }) => {
        const v = await describeSchedule(client, id);
        console.log(o.json ? JSON.stringify(v, null, 2) : describeText(v));
      });
    });
}
