/**
 * What the commands that start or follow a run share (`run`, `resume`, `watch`, `cancel`): a
 * connection to Temporal, starting a run under its id, and following it to its end with the lines
 * and exit code of how it ended.
 */
import path from 'node:path';
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { rootCause } from '@temporalio/common';
import { FAILURE, hasFailureType } from '../schema/failures';
import { loadConfig } from '../config';
import { followRun, startRun, WorkflowFailedError } from '../temporal/run-client';
import { ProgressView } from '../temporal/progress';
import {
  countOutcomes,
  countProgress,
  detachedLine,
  detachOnInterrupt,
  failedCellLine,
  keptServerLines,
  keptServers,
  progressOf,
  runDurationMs,
  say,
  summaryLine,
  watchForWorker,
} from './follow';
import { EXIT, fail } from './exit-codes';

/** The deepest failure message of a workflow failure, and whether it was a spec refusal. */
export function failureSummary(e: WorkflowFailedError): { message: string; invalidSpec: boolean } {
  return {
    message: (e.cause && rootCause(e.cause)) || e.message,
    invalidSpec: hasFailureType(e.cause, FAILURE.InvalidSpec),
  };
}

/**
 * {@link startRun}, or exit {@link EXIT.invalid} saying that a run with this id is already running
 * (another `chbench run`/`resume` of the same id started it, possibly at the same moment) and how
 * to watch it, instead of the SDK's `WorkflowExecutionAlreadyStartedError`.
 */
export async function startOrExplain(client: Client, spec: unknown, runId: string, taskQueue: string): Promise<void> {
  try {
    await startRun(client, spec, runId, taskQueue);
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError)
      fail(
        EXIT.invalid,
        `a run with id ${runId} is already running; watch it with \`chbench watch ${runId}\` (or cancel it with \`chbench cancel ${runId}\`)`,
      );
    throw e;
  }
}

/**
 * Follow a started run to its end (progress on stderr, Ctrl-C detaches with exit 130), then say how
 * it ended — report path (stdout), comparison, one-line summary, the Decision, failed cells, kept servers, and
 * after a cancel how to resume — and set the exit code. `how: 'cancel'` (the user cancelled it):
 * a cancelled end exits 0.
 */
export async function follow(
  client: Client,
  runId: string,
  cfg: ReturnType<typeof loadConfig>,
  how: 'run' | 'cancel' = 'run',
): Promise<void> {
  const view = new ProgressView({ stream: process.stderr });
  const undoInt = detachOnInterrupt(
    how === 'cancel'
      ? `stopped waiting — the cancellation of run ${runId} goes on; follow it with \`chbench watch ${runId}\``
      : detachedLine(runId),
    view,
  );
  const stopWorkerCheck = watchForWorker(client, cfg);
  try {
    const r = await followRun(client, runId, { view });
    stopWorkerCheck();
    const failed = r.cells.filter((c) => c.status === 'failed');
    console.log(r.reportPath);
    const c = r.comparison;
    if (c)
      console.error(
        `chbench: ${c.baselineRunId ? `compared with ${c.baselineRunId}` : 'not compared'}: ${c.verdict}${c.flagged.length ? `; first pass flagged ${c.flagged.join(', ')}, re-run confirmed ${c.confirmed.join(', ') || 'none'}` : ''}${c.note ? ` (${c.note})` : ''}`,
      );
    say(`run ${runId}: ${summaryLine(countOutcomes(r.cells), await runDurationMs(client, runId))}`);
    // The matrix's own verdicts (a matrix that varies an axis): the Decision and the A/A control, last.
    if (r.verdicts)
      say(
        `decision: ${r.verdicts.decision}; ${r.verdicts.control}${r.verdicts.note ? ` (${r.verdicts.note})` : ''} — verdicts.json`,
      );
    for (const l of keptServerLines(keptServers(path.dirname(r.reportPath)))) say(l);
    if (failed.length) {
      console.error(
        `chbench: ${failed.length} cell(s) failed: ${failed.map((c) => c.cellKey).join(', ')} (see the report); run them again with \`chbench resume ${runId}\``,
      );
      for (const c of failed) if (c.error) say(`${c.cellKey}: ${failedCellLine(c.error)}`);
      process.exitCode = EXIT.cellsFailed;
    }
  } catch (e) {
    stopWorkerCheck();
    if (!(e instanceof WorkflowFailedError)) throw e;
    const { message, invalidSpec } = failureSummary(e);
    if (invalidSpec) fail(EXIT.invalid, `run ${runId} refused by the worker: ${message}`);
    if ((e.cause as Error)?.name === 'CancelledFailure') {
      await sayCancelled(client, runId, message);
      if (how === 'cancel') return;
      process.exit(EXIT.workflowFailed);
    }
    fail(EXIT.workflowFailed, `run ${runId} failed: ${message}`);
  } finally {
    undoInt();
  }
}

/**
 * A cancelled run: its summary, its report (stdout too) and how to resume it, and the servers it kept.
 * The report path comes from the matrix's `progress` answer, else from the cancellation message.
 */
async function sayCancelled(client: Client, runId: string, message: string): Promise<void> {
  const p = await progressOf(client, runId);
  const reportPath = p?.reportPath ?? /report written to (\S+)/.exec(message)?.[1];
  const counts = p ? `: ${summaryLine(countProgress(p), await runDurationMs(client, runId))}` : '';
  say(`run ${runId} was cancelled${counts}`);
  if (reportPath) {
    console.log(reportPath);
    say(`report: ${reportPath}`);
  }
  say(`resume it with \`chbench resume ${runId}\` (cells already measured are reused, the others run again)`);
  if (reportPath) for (const l of keptServerLines(keptServers(path.dirname(reportPath)))) say(l);
}

/** Connect to Temporal or exit with EXIT.unreachable. */
export async function temporalClient(): Promise<{
  client: Client;
  connection: Connection;
  cfg: ReturnType<typeof loadConfig>;
}> {
  const cfg = loadConfig();
  try {
    const connection = await Connection.connect({ address: cfg.temporalAddress, connectTimeout: 5000 });
    return { client: new Client({ connection, namespace: cfg.namespace }), connection, cfg };
  } catch (e) {
    fail(
      EXIT.unreachable,
      `cannot reach Temporal at ${cfg.temporalAddress} (set TEMPORAL_ADDRESS): ${(e as Error).message}`,
    );
  }
}
