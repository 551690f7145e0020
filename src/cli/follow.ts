/**
 * What the CLI says while it follows a run (`chbench run`, `watch`, `resume`, `cancel`): that no
 * worker polls the task queue, how to re-attach or cancel after Ctrl-C (exit 130, the run goes on),
 * a one-line summary when the run closes, the report path and how to resume after a cancel, and the
 * servers a run kept (`teardown: never`, or `on-success` with failed cells) with where they are.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Client } from '@temporalio/client';
import { taskQueuePollers, type PollerSeen } from '../temporal/run-client';
import type { ProgressView } from '../temporal/progress';
import type { MatrixProgress } from '../schema/progress';
import { readRecordIfExists } from '../results/store';
import { processMentions } from '../process/proc';
import { CellResult, RunRecord } from '../schema/results';
import { KubernetesFacts, TargetRecord } from '../schema/target';

/** The fields of `run.json` the CLI reads here, each through its own schema (other fields are not checked). */
const RunCells = RunRecord.pick({ runId: true, status: true, cells: true }).partial();
/** A cell's `result.json` status. */
const CellStatusOnly = CellResult.pick({ status: true }).partial();
/** What `keptServers` reads of `provision.json`: the target's kind, URL, pid, data dir and pod, each optional. */
const KeptTarget = z
  .object({
    target: TargetRecord.pick({ kind: true, url: true, pid: true, dataDir: true })
      .extend({ kubernetes: KubernetesFacts.pick({ namespace: true, pod: true, pvc: true }).partial().optional() })
      .partial(),
  })
  .partial();
import { EXIT_DETACHED } from './exit-codes';

/** Where a run's workflows live and are polled. */
export interface RunPlace {
  /** Temporal frontend `host:port` (`TEMPORAL_ADDRESS`). */
  temporalAddress: string;
  namespace: string;
  /** Task queue of the run's workflows (`CHBENCH_TASK_QUEUE`). */
  taskQueue: string;
}

/** Write one `chbench: …` line on stderr. */
export function say(line: string): void {
  process.stderr.write(`chbench: ${line}\n`);
}

/** The line printed when no worker polls the run's task queue. */
export function noWorkerLine(place: RunPlace): string {
  return `no worker is polling task queue \`${place.taskQueue}\` on ${place.temporalAddress}; start one with \`chbench worker\` (same TEMPORAL_ADDRESS and CHBENCH_TASK_QUEUE). The run waits for it; Ctrl-C detaches and leaves it queued.`;
}

/** What the follower last said about the run's workers. */
export type WorkerState = 'unknown' | 'none' | 'polling' | 'silent';

/**
 * Time without a poll after which a listed worker counts as gone: 75 s. `lastAccessTime` is set when
 * a poll reaches the server, and an idle worker's long poll waits up to the server's long-poll
 * expiry (Temporal's `matching.longPollExpirationInterval`, 1 min by default) before it polls again:
 * on the dev server here an idle, healthy worker's newest poll was up to 50 s old on both the
 * workflow and the activity task queue (sampled every second for 80 s). 75 s is past that expiry
 * with a margin, so a worker that waits in a long poll (a cell in a retry backoff) is not called gone.
 */
export const WORKER_SILENT_AFTER_MS = 75_000;

/**
 * Decide what to say about the run's workers after one look at the task queue's pollers
 * (`DescribeTaskQueue`, `lastAccessTime`). Says something only when the state changes: `none` (no
 * poller listed: {@link noWorkerLine}), `silent` (listed, but the newest poll is older than
 * `silentAfterMs` while a step is pending: `no worker has polled task queue <q> for N s (last:
 * <identity>)…`), `polling` again after either (`a worker is polling … now`). A `silent` state is
 * only entered while `pending` (the run has work waiting); otherwise the state is kept.
 * @param now epoch ms of the look (the client's clock, as Temporal's lastAccessTime is the server's)
 * @returns the new state and the line to print, if any
 */
export function workerNotice(
  prev: WorkerState,
  pollers: readonly PollerSeen[],
  now: number,
  place: RunPlace,
  pending = true,
  silentAfterMs = WORKER_SILENT_AFTER_MS,
): { state: WorkerState; line?: string } {
  const newest = pollers.reduce<PollerSeen | undefined>(
    (a, p) => (p.lastAccessMs !== null && (!a || p.lastAccessMs > (a.lastAccessMs ?? -Infinity)) ? p : a),
    undefined,
  );
  const change = (state: WorkerState, line: string) => (state === prev ? { state } : { state, line });
  if (!pollers.length) return change('none', noWorkerLine(place));
  if (newest && now - newest.lastAccessMs! <= silentAfterMs)
    return prev === 'none' || prev === 'silent'
      ? { state: 'polling', line: `a worker is polling task queue \`${place.taskQueue}\` now; the run goes on` }
      : { state: 'polling' };
  if (!pending) return { state: prev };
  const ago = newest ? `${Math.round((now - newest.lastAccessMs!) / 1000)} s` : 'an unknown time';
  return change(
    'silent',
    `no worker has polled task queue \`${place.taskQueue}\` for ${ago} (last: ${newest?.identity ?? 'n/a'}; DescribeTaskQueue lastAccessTime); start one with \`chbench worker\``,
  );
}

/**
 * Check at once, then every `everyMs` until stopped, the pollers of the run's task queue, workflow
 * and activity pollers both ({@link taskQueuePollers}) and print what {@link workerNotice} says: no worker, a worker that stopped
 * polling (it died), a worker polling again. Errors of the check are ignored (the run's own wait
 * reports an unreachable server).
 * @returns a function that stops the checks
 */
export function watchForWorker(client: Client, place: RunPlace, everyMs = 3000): () => void {
  let stopped = false;
  let state: WorkerState = 'unknown';
  let timer: NodeJS.Timeout | undefined;
  const check = async (): Promise<void> => {
    try {
      const pollers = await taskQueuePollers(client, place.namespace, place.taskQueue);
      if (stopped) return;
      const n = workerNotice(state, pollers, Date.now(), place);
      state = n.state;
      if (n.line) say(n.line);
    } catch {
      /* best effort */
    }
    if (!stopped) timer = setTimeout(() => void check(), everyMs);
  };
  void check();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * Why a cell failed, for one CLI line: its failure message (`CellOutcome.error`) on one line, cut to
 * 300 characters with `…`. Pure.
 */
export function failedCellLine(error: string): string {
  const line = error.replace(/\s*\n\s*/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** The line printed on Ctrl-C while following run `runId`. */
export function detachedLine(runId: string): string {
  return `detached — run ${runId} continues; follow with \`chbench watch ${runId}\`, cancel with \`chbench cancel ${runId}\``;
}

/**
 * On Ctrl-C (SIGINT): stop the progress view (cli-progress shows the cursor again), make sure the
 * cursor is visible on a terminal, say `line`, and exit {@link EXIT_DETACHED}. The run is not touched.
 * @returns a function that removes the handler
 */
export function detachOnInterrupt(line: string, view?: ProgressView): () => void {
  const onInt = (): void => {
    view?.stop();
    if (process.stderr.isTTY) process.stderr.write('\x1B[?25h');
    say(line);
    process.exit(EXIT_DETACHED);
  };
  process.once('SIGINT', onInt);
  return () => process.removeListener('SIGINT', onInt);
}

/** A duration for people: `850 ms`, `21 s`, `3 min 4 s`, `2 h 5 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Counts of a closed run's cells by status, plus the cells never run (a cancelled run). */
export interface CellCounts {
  total: number;
  succeeded: number;
  failed: number;
  skipped: number;
  cancelled: number;
}

/** Counts from the cell outcomes of a matrix result (`MatrixResult.cells[].status`). */
export function countOutcomes(cells: readonly { status: string }[]): CellCounts {
  const n = (s: string) => cells.filter((c) => c.status === s).length;
  return {
    total: cells.length,
    succeeded: n('succeeded'),
    failed: n('failed'),
    skipped: n('skipped'),
    cancelled: n('cancelled'),
  };
}

/** Counts from the matrix's `progress` answer (a closed run's, e.g. after a cancel). */
export function countProgress(p: MatrixProgress): CellCounts {
  return {
    total: p.total,
    succeeded: p.succeeded.length,
    failed: p.failed.length,
    skipped: p.skipped.length,
    cancelled: p.cancelled.length,
  };
}

/**
 * The run's one-line summary: `2/2 succeeded in 21 s`, `1/2 succeeded, 1 failed in 3 min 4 s`,
 * `0/2 succeeded, 1 cancelled, 1 not run in 12 s` (`in …` left out when the duration is unknown).
 */
export function summaryLine(c: CellCounts, durationMs?: number): string {
  const notRun = c.total - c.succeeded - c.failed - c.skipped - c.cancelled;
  const parts = [
    `${c.succeeded}/${c.total} succeeded`,
    ...(c.failed ? [`${c.failed} failed`] : []),
    ...(c.skipped ? [`${c.skipped} skipped`] : []),
    ...(c.cancelled ? [`${c.cancelled} cancelled`] : []),
    ...(notRun > 0 ? [`${notRun} not run`] : []),
  ];
  return `${parts.join(', ')}${durationMs !== undefined ? ` in ${formatDuration(durationMs)}` : ''}`;
}

/**
 * Wall time of the run's (last) execution, ms: Temporal's `startTime` to `closeTime` of
 * `DescribeWorkflowExecution`; undefined while it runs or when it cannot be described.
 */
export async function runDurationMs(client: Client, runId: string): Promise<number | undefined> {
  try {
    const d = await client.workflow.getHandle(runId).describe();
    return d.closeTime ? d.closeTime.getTime() - d.startTime.getTime() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The matrix's `progress` answer of a run (closed or not), or undefined when it cannot be queried
 * within `timeoutMs` (a closed workflow's query needs a worker to replay it).
 */
export async function progressOf(
  client: Client,
  runId: string,
  timeoutMs = 10_000,
): Promise<MatrixProgress | undefined> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      client.workflow.getHandle(runId).query<MatrixProgress>('progress'),
      new Promise<undefined>((r) => (t = setTimeout(() => r(undefined), timeoutMs))),
    ]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(t);
  }
}

/** A server a run left running, from its cell's `provision.json` (no `teardown.json` beside it). */
export interface KeptServer {
  cellKey: string;
  /** Target kind (`embedded`, `local`, `external`, `kubernetes`). */
  kind: string;
  /** Base URL of its HTTP interface, as provisioned. */
  url: string;
  /** PID of the server process (embedded, local). */
  pid?: number;
  /** Its data directory (embedded, local). */
  dataDir?: string;
  /** `namespace/pod` (kubernetes). */
  pod?: string;
  /** The provision record it was read from. */
  record: string;
  /**
   * Whether it still runs: `true`/`false` for a server with a pid and a data dir (its process is alive
   * and its `/proc/<pid>/cmdline` names the data dir — a recycled pid is not it); `undefined` where
   * this host cannot tell (docker, kubernetes, external).
   */
  running?: boolean;
}

/**
 * The servers of run directory `dir` that were provisioned and not torn down: each cell of
 * `run.json` (else each folder under `cells/`) with a `provision.json` and no `teardown.json`.
 * Reads only the fields it lists (`target.kind/url/pid/dataDir/kubernetes`, through their schemas), so
 * records of other chbench versions still list; unreadable records are left out.
 */
export function keptServers(dir: string): KeptServer[] {
  const cellsDir = path.join(dir, 'cells');
  const run = readRecordIfExists(path.join(dir, 'run.json'), RunCells);
  const keys = run?.cells ?? (existsSync(cellsDir) ? readdirSync(cellsDir) : []);
  const out: KeptServer[] = [];
  for (const k of keys) {
    const cd = path.join(cellsDir, k);
    const record = path.join(cd, 'provision.json');
    if (!existsSync(record) || existsSync(path.join(cd, 'teardown.json'))) continue;
    try {
      const p = readRecordIfExists(record, KeptTarget);
      const t = p?.target;
      if (!t?.kind) continue;
      const kube = t.kubernetes;
      const podName = kube?.pod;
      out.push({
        cellKey: k,
        kind: t.kind,
        url: t.url ?? '?',
        ...(t.pid !== undefined ? { pid: t.pid } : {}),
        ...(t.dataDir ? { dataDir: t.dataDir } : {}),
        ...(podName ? { pod: `${kube?.namespace ?? '?'}/${podName}${kube?.pvc ? ` (PVC ${kube.pvc})` : ''}` } : {}),
        record,
        ...(t.pid !== undefined && t.dataDir ? { running: processMentions(t.pid, t.dataDir) } : {}),
      });
    } catch {
      /* unreadable record: not listed */
    }
  }
  return out;
}

/** One server's line: kind, URL, pid, data dir, pod, and the record it was read from. */
function keptServerLine(s: KeptServer): string {
  const where = [
    s.pid !== undefined ? `pid ${s.pid}` : '',
    s.dataDir ? `data dir ${s.dataDir}` : '',
    s.pod ? `pod ${s.pod}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `  ${s.cellKey}: ${s.kind} at ${s.url}${where ? ` (${where})` : ''}; recorded in ${s.record}`;
}

/**
 * Lines listing {@link keptServers} (none when the list is empty). "kept running" is said only of a
 * server whose process was seen alive (or whose kind this host cannot check: "not torn down"); one
 * whose process is gone is listed apart: only its folder is left.
 */
export function keptServerLines(servers: readonly KeptServer[]): string[] {
  if (!servers.length) return [];
  const gc = (list: readonly KeptServer[]) =>
    `\`chbench gc\`${list.some((s) => s.kind === 'kubernetes') ? ' (pods: `chbench gc --kubernetes`)' : ''}${list.some((s) => s.kind === 'docker') ? ' (containers: `chbench gc --docker`)' : ''}`;
  const running = servers.filter((s) => s.running === true);
  const unknown = servers.filter((s) => s.running === undefined);
  const gone = servers.filter((s) => s.running === false);
  const out: string[] = [];
  if (running.length)
    out.push(
      `${running.length} server(s) kept running (not torn down; the process is alive); remove them with ${gc(running)} once the run is closed:`,
      ...running.map(keptServerLine),
    );
  if (unknown.length)
    out.push(
      `${unknown.length} server(s) not torn down (may still be running); remove them with ${gc(unknown)} once the run is closed:`,
      ...unknown.map(keptServerLine),
    );
  if (gone.length)
    out.push(
      `${gone.length} server(s) not torn down whose process is gone (only the data folder is left); remove it with ${gc(gone)}:`,
      ...gone.map(keptServerLine),
    );
  return out;
}

/**
 * Why run directory `dir` has nothing to resume, or undefined when it has: its `run.json` says the
 * run completed (`status`, set by the report step) and every cell's `result.json` says succeeded or
 * skipped (the cells resume would reuse).
 */
export function nothingToResume(dir: string): string | undefined {
  const run = readRecordIfExists(path.join(dir, 'run.json'), RunCells);
  if (!run?.cells?.length || run.status !== 'completed') return undefined;
  const statuses = run.cells.map(
    (k) => readRecordIfExists(path.join(dir, 'cells', k, 'result.json'), CellStatusOnly)?.status,
  );
  if (!statuses.every((s) => s === 'succeeded' || s === 'skipped')) return undefined;
  const skipped = statuses.filter((s) => s === 'skipped').length;
  return `nothing to resume: run ${run.runId ?? path.basename(dir)} completed and all ${statuses.length} cell(s) finished (${statuses.length - skipped} succeeded${skipped ? `, ${skipped} skipped` : ''}); report: ${path.join(dir, 'report.md')}`;
}
