/** `chbench schedule list [--json]`: every schedule of the namespace, one line each. */
import type { Command } from 'commander';
import { listSchedules } from '../../../temporal/schedules';
import { iso, withClient } from './shared';

/** Plain columns, left-aligned, two spaces apart. */
function columns(rows: string[][]): string {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(w[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Add `list` to the `schedule` group. */
export function registerScheduleListCommand(sched: Command): void {
  sched
    .command('list')
    .description('every schedule: id, spec name, next run, paused, running runs')
    .option('--json', 'print JSON')
    .action(async function (this: Command) {
      const o = this.opts<{ json?: boolean }>();
      await withClient(this, async ({ client, cfg }) => {
        const rows = await listSchedules(client);
        if (o.json) return void console.log(JSON.stringify(rows, null, 2));
        if (!rows.length) return void console.log(`no schedules in namespace ${cfg.namespace}`);
        console.log(
          columns([
            ['ID', 'SPEC', 'NEXT RUN', 'PAUSED', 'RUNNING'],
            ...rows.map((r) => [
              r.scheduleId,
              r.specName ?? `(${r.workflowType ?? '?'})`,
              iso(r.next),
              r.paused ? 'yes' : 'no',
              r.running.join(',') || '-',
            ]),
          ]),
        );
      });
    });
}
