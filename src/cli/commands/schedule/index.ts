/**
 * `chbench schedule …`: chbench runs on Temporal Schedules (see `src/temporal/schedules.ts`). One
 * file per subcommand in this folder, each exporting `registerSchedule<Name>Command(group)`; what
 * they share (client, spec check, exit codes, time format) is `shared.ts`.
 *
 *   chbench schedule create <id> --spec <file> (--calendar quarterly | --cron "0 3 1 *\/3 *" | --every 90d)
 *                                [--overlap skip] [--catchup-window 1d] [--jitter 30m] [--timezone UTC] [--paused] [--note …]
 *   chbench schedule list | describe <id> | runs <id>     (--json for machine-readable output)
 *   chbench schedule pause|unpause <id> [--note …]
 *   chbench schedule trigger <id> [--overlap …]           (the schedule's own overlap policy unless --overlap;
 *                                                          exit 5 when the overlap policy skipped it)
 *   chbench schedule update <id> --spec <file>            (replace the stored run spec, checked first)
 *   chbench schedule delete <id>
 *
 * Connection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and CHBENCH_TASK_QUEUE as every other command
 * (`src/config.ts`), or `--address` / `--namespace` on `schedule`. Exit codes as `EXIT` (`src/cli/exit-codes.ts`):
 * 2 invalid spec, option (also one Temporal refuses: INVALID_ARGUMENT), schedule id or unknown
 * schedule id; 3 Temporal unreachable; 4 any other failure; 5 `trigger` skipped by the overlap policy.
 */
import type { Command } from 'commander';
import { registerScheduleCreateCommand } from './create';
import { registerScheduleListCommand } from './list';
import { registerScheduleDescribeCommand } from './describe';
import { registerScheduleRunsCommand } from './runs';
import { registerSchedulePauseCommand } from './pause';
import { registerScheduleUnpauseCommand } from './unpause';
import { registerScheduleTriggerCommand } from './trigger';
import { registerScheduleUpdateCommand } from './update';
import { registerScheduleDeleteCommand } from './delete';

/** Every subcommand, in the order of `chbench schedule --help`. */
const SUBCOMMANDS: ((sched: Command) => void)[] = [
  registerScheduleCreateCommand,
  registerScheduleListCommand,
  registerScheduleDescribeCommand,
  registerScheduleRunsCommand,
  registerSchedulePauseCommand,
  registerScheduleUnpauseCommand,
  registerScheduleTriggerCommand,
  registerScheduleUpdateCommand,
  registerScheduleDeleteCommand,
];

/** Register `chbench schedule …` on the program. */
export function registerScheduleCommand(program: Command): void {
  const sched = program
    .command('schedule')
    .description('run specs on Temporal Schedules (create|list|describe|runs|pause|unpause|trigger|update|delete)')
    .option('--address <host:port>', 'Temporal frontend (default TEMPORAL_ADDRESS or 127.0.0.1:7233)')
    .option('--namespace <ns>', 'Temporal namespace (default TEMPORAL_NAMESPACE or default)');
  for (const register of SUBCOMMANDS) register(sched);
}
