#!/usr/bin/env node
/**
 * The `chbench` command line: the program and its commands, one file each under `src/cli/commands/`
 * (each exports `register<Name>Command(program)`; the order below is the order `chbench --help`
 * lists them). Usage: `chbench --help` and `chbench <command> --help` (commander writes it from the
 * commands' descriptions). Exit codes: `src/cli/exit-codes.ts`.
 *
 * A new command: a file `src/cli/commands/<name>.ts` exporting `register<Name>Command`, and one line
 * in `COMMANDS`. A command with many subcommands is a folder `src/cli/commands/<name>/` whose
 * `index.ts` exports `register<Name>Command` and registers one file per subcommand (`schedule/`).
 */
import { Command } from 'commander';
import { chbenchVersion } from './lib/chbench-version';
import { EXIT, EXIT_HELP } from './cli/exit-codes';
import { registerValidateCommand } from './cli/commands/validate';
import { registerRunCommand } from './cli/commands/run';
import { registerResumeCommand } from './cli/commands/resume';
import { registerWatchCommand } from './cli/commands/watch';
import { registerCancelCommand } from './cli/commands/cancel';
import { registerGcCommand } from './cli/commands/gc';
import { registerReportCommand } from './cli/commands/report';
import { registerWorkerCommand } from './cli/commands/worker';
import { registerScheduleCommand } from './cli/commands/schedule';
import { registerResultsCommand } from './cli/commands/results';
import { registerExportCommand } from './cli/commands/export';
import { registerCompareCommand } from './cli/commands/compare';
import { registerEnginesCommand } from './cli/commands/engines';
import { registerBisectCommand } from './cli/commands/bisect';
import { registerSeriesCommand } from './cli/commands/series';

/** Every command, in the order of `chbench --help`. */
const COMMANDS: ((program: Command) => void)[] = [
  registerValidateCommand,
  registerRunCommand,
  registerResumeCommand,
  registerWatchCommand,
  registerCancelCommand,
  registerGcCommand,
  registerReportCommand,
  registerWorkerCommand,
  registerScheduleCommand,
  registerResultsCommand,
  registerExportCommand,
  registerCompareCommand,
  registerEnginesCommand,
  registerBisectCommand,
  registerSeriesCommand,
];

const program = new Command('chbench')
  .description('ClickHouse benchmark matrices as Temporal workflows')
  .version(chbenchVersion().version)
  .showHelpAfterError()
  // Usage errors exit 2 (1 means "cells failed").
  .exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : EXIT.invalid))
  .addHelpText('after', EXIT_HELP);

for (const register of COMMANDS) register(program);

if (require.main === module) {
  program.parseAsync(process.argv).catch((e) => {
    console.error(`chbench: ${(e as Error).stack ?? e}`);
    process.exit(EXIT.workflowFailed);
  });
}
