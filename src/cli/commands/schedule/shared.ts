/**
 * What the `chbench schedule …` subcommands share: a Temporal client from the group's connection
 * flags, the run spec file read and checked before connecting, the mapping of chbench's and
 * Temporal's errors to exit codes ({@link EXIT}), and the time format they print.
 */
import type { Command } from 'commander';
import { Client, Connection, ScheduleAlreadyRunning } from '@temporalio/client';
import { checkSpec } from '../../../targets/check-spec';
import { readSpecFile } from '../../../lib/spec-file';
import { loadConfig, type Config } from '../../../config';
import {
  grpcErrorOf,
  ScheduleOptionError,
  ScheduleSpecInvalidError,
  UnknownScheduleError,
} from '../../../temporal/schedules';
import { EXIT } from '../../exit-codes';

/** An error that ends the command with `code` and prints `message`. */
export class CliExit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** gRPC status UNAVAILABLE / DEADLINE_EXCEEDED, or a connect failure. */
function isUnreachable(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  if (code === 14 || code === 4) return true;
  return /UNAVAILABLE|ECONNREFUSED|failed to connect|transport|Failed to connect/i.test((e as Error)?.message ?? '');
}

/** A connected client and the configuration it was made from (task queue, namespace, address). */
export interface Conn {
  client: Client;
  cfg: Config;
}

/** The connection flags of the `schedule` group, over config.ts's environment. */
function configOf(cmd: Command): Config {
  const o = cmd.optsWithGlobals<{ address?: string; namespace?: string }>();
  const cfg = loadConfig();
  return {
    ...cfg,
    ...(o.address ? { temporalAddress: o.address } : {}),
    ...(o.namespace ? { namespace: o.namespace } : {}),
  };
}

/**
 * Run `prepare` (reading and checking a spec: refused before any connection), then `fn` with a
 * connected client; turn chbench's and Temporal's errors into exit codes (`process.exitCode`:
 * 2 invalid, 3 unreachable, 4 any other failure) and one clear line on stderr. Never throws.
 */
export async function withClient<T = undefined>(
  cmd: Command,
  fn: (c: Conn, prepared: T) => Promise<void>,
  prepare?: () => T,
): Promise<void> {
  const cfg = configOf(cmd);
  let connection: Connection | undefined;
  try {
    const prepared = prepare ? prepare() : (undefined as T);
    try {
      connection = await Connection.connect({ address: cfg.temporalAddress, connectTimeout: 5000 });
    } catch (e) {
      throw new CliExit(
        EXIT.unreachable,
        `cannot reach Temporal at ${cfg.temporalAddress} (set TEMPORAL_ADDRESS or --address): ${(e as Error).message.split('\n')[0]}`,
      );
    }
    await fn({ client: new Client({ connection, namespace: cfg.namespace }), cfg }, prepared);
  } catch (e) {
    let code: number = EXIT.workflowFailed;
    let msg = (e as Error).message ?? String(e);
    if (e instanceof CliExit) code = e.code;
    else if (e instanceof UnknownScheduleError || e instanceof ScheduleOptionError) code = EXIT.invalid;
    else if (e instanceof ScheduleSpecInvalidError) {
      code = EXIT.invalid;
      msg = `${(cmd.opts() as { spec?: string }).spec ?? 'spec'}: ${msg}; nothing was changed on Temporal`;
    } else if (e instanceof ScheduleAlreadyRunning) {
      code = EXIT.invalid;
      msg = `a schedule "${cmd.args[0]}" already exists in namespace ${cfg.namespace}; delete it first or choose another id`;
    } else if (isUnreachable(e)) {
      code = EXIT.unreachable;
      msg = `cannot reach Temporal at ${cfg.temporalAddress}: ${msg.split('\n')[0]}`;
    } else if (grpcErrorOf(e).code === 3 /* INVALID_ARGUMENT (the SDK's ServiceError keeps it as its cause) */) {
      code = EXIT.invalid;
      msg = `Temporal refused an option: ${grpcErrorOf(e).details} (check --cron, --calendar, --every, --timezone, --jitter, --catchup-window)`;
    }
    console.error(`chbench: ${msg}`);
    process.exitCode = code;
  } finally {
    await connection?.close();
  }
}

/**
 * Read a spec file and check it as `chbench validate` does.
 * @returns the file's content as read (what the schedule stores)
 * @throws CliExit(2) when it cannot be read, ScheduleSpecInvalidError when it is refused
 */
export function readCheckedSpec(file: string): unknown {
  let raw: unknown;
  try {
    raw = readSpecFile(file);
  } catch (e) {
    throw new CliExit(EXIT.invalid, (e as Error).message);
  }
  const { spec, problems } = checkSpec(raw);
  if (!spec || problems.length) throw new ScheduleSpecInvalidError(problems);
  return raw;
}

/** A time as ISO 8601 UTC without zero milliseconds (`2026-01-01T03:00:00Z`), `-` when absent. */
export const iso = (d?: Date) => (d ? d.toISOString().replace('.000Z', 'Z') : '-');
