/**
 * Live progress of a run for `chbench run`: a {@link RunSnapshot} taken from Temporal (the matrix's
 * `progress` query, then a describe of each running cell's child workflow: its pending activity,
 * attempt, last heartbeat time and decoded heartbeat details), pure functions that turn a snapshot
 * into lines, and a {@link ProgressView} that draws them — a cli-progress multibar (one overall line
 * and one line per running cell) on a terminal, plain lines on change at most every few seconds
 * otherwise.
 *
 * Heartbeat details are objects whose shape is being standardised as
 * `{ step, statement?, query_id?, rows_read?, total_rows?, written_rows?, result_bytes?, elapsed_ms?,
 * parts_to_do?, query?, run?, progress?: string }`; older steps send other shapes (`{ step, query, run }`,
 * `{ step, active_parts, merges, … }`). {@link heartbeatLine} prints `progress` when present and
 * otherwise builds a line from whatever known fields exist, never failing on an unknown shape.
 */
import cliProgress from 'cli-progress';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { rowsReadText, type MatrixProgress } from '../schema/progress';
import { PHASE } from '../schema/search-attributes';
import type { HeartbeatDetails as WatchHeartbeatDetails } from '../clickhouse/statement-watch';

/**
 * Heartbeat details as read back from Temporal: the shape the steps send
 * ({@link WatchHeartbeatDetails}, one definition in `statement-watch.ts`), every field optional and
 * unknown fields allowed — a heartbeat of an older worker may carry another shape.
 */
export type HeartbeatDetails = Partial<WatchHeartbeatDetails> & Record<string, unknown>;

/** What is known about one running cell at snapshot time. */
export interface CellSnapshot {
  cellKey: string;
  /** Child workflow id, `<runId>/<cellKey>`. */
  workflowId: string;
  /** The cell's step (its `ChbenchPhase` search attribute, else the heartbeat's `step`). */
  step?: string;
  /** Type of the pending activity, e.g. `loadData`. */
  activityType?: string;
  /** `scheduled` (waiting for a worker), `started`, `cancel-requested`, … */
  activityState?: string;
  /** Attempt of the pending activity (1 = first try); during a retry's backoff, the attempt about to start. */
  attempt?: number;
  /** Failure of the previous attempt, when retrying (`pendingActivities[].lastFailure.message`). */
  lastFailure?: string;
  /** Epoch ms the next attempt is scheduled for, while waiting out a retry's backoff (`nextAttemptScheduleTime`). */
  nextAttemptAt?: number;
  /** Decoded heartbeat details of the pending activity (undefined: none yet). */
  heartbeat?: unknown;
  /** Epoch ms of the last heartbeat (undefined: none yet). */
  lastHeartbeatAt?: number;
  /** Epoch ms the current attempt started. */
  startedAt?: number;
  /** Why the cell could not be described (the line says so instead). */
  error?: string;
}

/** A run at one moment. */
export interface RunSnapshot {
  runId: string;
  /** Epoch ms the snapshot was taken. */
  takenAt: number;
  progress: MatrixProgress;
  cells: CellSnapshot[];
  /**
   * The matrix workflow's own pending step (validate, store, compare, report) when it is retrying
   * (attempt > 1); its `cellKey` is `run`. Absent otherwise.
   */
  matrixStep?: CellSnapshot;
}

/** A heartbeat older than this is shown with its age, so a stuck step is visible. */
export const STALE_HEARTBEAT_MS = 10_000;

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
      ? Number(v)
      : undefined;
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (a: number, b: number) => `${Math.min(100, Math.floor((100 * a) / b))} %`;
function bytes(n: number): string {
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) [n, i] = [n / 1024, i + 1];
  return `${i ? n.toFixed(1) : n} ${u[i]}`;
}
function secs(ms: number): string {
  return ms < 60_000
    ? `${(ms / 1000).toFixed(1)} s`
    : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Fields that {@link heartbeatLine} renders itself (everything else is shown as `key value`). */
const KNOWN = new Set([
  'step',
  'statement',
  'query_id',
  'rows_read',
  'total_rows',
  'written_rows',
  'result_bytes',
  'elapsed_ms',
  'parts_to_do',
  'query',
  'run',
  'progress',
  'url',
]);

/**
 * Fraction done (0..1) a heartbeat shows, when it says both how far and how much:
 * the larger of `written_rows` and `rows_read` against `total_rows`.
 */
export function heartbeatFraction(d: unknown): number | undefined {
  if (!d || typeof d !== 'object') return undefined;
  const h = d as HeartbeatDetails;
  const total = num(h.total_rows);
  // A SELECT reports written_rows 0: take the larger of the two counters, not the first present.
  const w = num(h.written_rows);
  const r = num(h.rows_read);
  const done = w === undefined && r === undefined ? undefined : Math.max(w ?? 0, r ?? 0);
  return total && total > 0 && done !== undefined ? Math.max(0, Math.min(1, done / total)) : undefined;
}

/**
 * One human line from heartbeat details: `progress` when it is a non-empty string, else built from
 * the known fields present (rows written/read of total, query and run, parts to do, result size,
 * elapsed, statement), then up to three other scalar fields as `key value`. Any input is accepted:
 * a non-object is printed as text, `undefined`/`null` gives `''`.
 */
export function heartbeatLine(d: unknown): string {
  if (d === undefined || d === null) return '';
  if (typeof d !== 'object') return oneLine(String(d), 160);
  if (Array.isArray(d)) return d.length === 1 ? heartbeatLine(d[0]) : oneLine(JSON.stringify(d), 160);
  const h = d as HeartbeatDetails;
  if (typeof h.progress === 'string' && h.progress.trim()) return oneLine(h.progress, 160);
  const parts: string[] = [];
  const total = num(h.total_rows);
  const written = num(h.written_rows);
  const read = num(h.rows_read);
  if (written !== undefined)
    parts.push(
      total ? `${int(written)} / ${int(total)} rows written (${pct(written, total)})` : `${int(written)} rows written`,
    );
  if (read !== undefined)
    parts.push(
      total && written === undefined
        ? read > total
          ? rowsReadText(read, total) // over the server's estimate: no percentage over 100
          : `${int(read)} / ${int(total)} rows read (${pct(read, total)})`
        : `${int(read)} rows read`,
    );
  if (total !== undefined && written === undefined && read === undefined) parts.push(`${int(total)} rows in total`);
  if (h.query !== undefined && h.query !== null && h.query !== '') parts.push(`query ${String(h.query)}`);
  if (h.run !== undefined && h.run !== null && h.run !== '') parts.push(`run ${String(h.run)}`);
  const todo = num(h.parts_to_do);
  if (todo !== undefined) parts.push(`${int(todo)} part${todo === 1 ? '' : 's'} to do`);
  const rb = num(h.result_bytes);
  if (rb !== undefined) parts.push(`result ${bytes(rb)}`);
  const el = num(h.elapsed_ms);
  if (el !== undefined) parts.push(`${secs(el)} elapsed`);
  const extra = Object.entries(h)
    .filter(([k, v]) => !KNOWN.has(k) && v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v)))
    .slice(0, 3)
    .map(
      ([k, v]) =>
        `${k.replace(/_/g, ' ')} ${Array.isArray(v) ? v.length : typeof v === 'number' ? int(v) : oneLine(String(v), 40)}`,
    );
  parts.push(...extra);
  if (typeof h.statement === 'string' && h.statement.trim()) parts.push(`\`${oneLine(h.statement, 60)}\``);
  return parts.join(', ');
}

/** `last heartbeat 42 s ago` (or `no heartbeat for 42 s`) when older than {@link STALE_HEARTBEAT_MS}, else `''`. */
export function heartbeatAge(c: CellSnapshot, now: number): string {
  if (c.activityState && c.activityState !== 'started') return '';
  const ref = c.lastHeartbeatAt ?? c.startedAt;
  if (ref === undefined) return '';
  const age = now - ref;
  if (age <= STALE_HEARTBEAT_MS) return '';
  return c.lastHeartbeatAt !== undefined
    ? `last heartbeat ${Math.round(age / 1000)} s ago`
    : `no heartbeat for ${Math.round(age / 1000)} s`;
}

/** A text bar of `width` characters for a fraction. */
function textBar(f: number, width = 12): string {
  const n = Math.round(f * width);
  return `[${'#'.repeat(n)}${'-'.repeat(width - n)}]`;
}

/**
 * The line of one running cell: key, step (and activity type when it says more), a bar when the
 * heartbeat gives a fraction, the heartbeat line, the heartbeat's age when it is stale, and while a
 * step retries `attempt n: <the previous attempt's error>` (with the wait before the next try).
 * @example `v26.7-lz4  load (loadData) [###---------]: 2,500,000 / 10,000,000 rows written (25 %)`
 * @example `v26.7-lz4  provision — attempt 3: connect ECONNREFUSED 127.0.0.1:9000 — next try in 4 s`
 */
export function cellLine(c: CellSnapshot, now: number): string {
  if (c.error) return `${c.cellKey}  ${c.step ?? '?'}: (cannot describe ${c.workflowId}: ${oneLine(c.error, 80)})`;
  const hbStep = c.heartbeat && typeof c.heartbeat === 'object' ? (c.heartbeat as HeartbeatDetails).step : undefined;
  const step = c.step ?? (typeof hbStep === 'string' ? hbStep : undefined) ?? c.activityType ?? 'between steps';
  let s = `${c.cellKey}  ${step}`;
  if (c.activityType && c.activityType !== step) s += ` (${c.activityType})`;
  const retrying = (c.attempt ?? 1) > 1;
  const backoff = retrying && c.activityState === 'scheduled' && c.nextAttemptAt !== undefined && c.nextAttemptAt > now;
  if (c.activityState === 'scheduled' && !retrying) s += ' — waiting for a worker';
  else if (c.activityState === 'cancel-requested') s += ' — cancelling';
  const f = heartbeatFraction(c.heartbeat);
  if (f !== undefined) s += ` ${textBar(f)}`;
  const hb = heartbeatLine(c.heartbeat);
  if (hb) s += `: ${hb}`;
  const age = heartbeatAge(c, now);
  if (age) s += ` — ${age}`;
  if (retrying) {
    s += ` — attempt ${c.attempt}${c.lastFailure ? `: ${oneLine(c.lastFailure, 100)}` : ''}`;
    if (backoff) s += ` — next try in ${Math.ceil((c.nextAttemptAt! - now) / 1000)} s`;
    else if (c.activityState === 'scheduled') s += ' — waiting for a worker';
  }
  return s;
}

/** The overall line: `cells 1/2 | cells | 1 running, 0 failed, 0 skipped`. */
export function overallLine(p: MatrixProgress): string {
  const extra = [
    `${p.running.length} running`,
    `${p.failed.length} failed`,
    `${p.skipped.length} skipped`,
    ...(p.cancelled.length ? [`${p.cancelled.length} cancelled`] : []),
    ...(p.reused ? [`${p.reused} reused`] : []),
  ];
  return `cells ${p.done}/${p.total} | ${p.phase} | ${extra.join(', ')}`;
}

/** Every line of a snapshot: the overall line, then one per running cell (in the matrix's order). */
export function renderSnapshot(s: RunSnapshot, now = s.takenAt): string[] {
  return [
    overallLine(s.progress),
    ...s.cells.map((c) => `  ${cellLine(c, now)}`),
    ...(s.matrixStep ? [`  ${cellLine(s.matrixStep, now)}`] : []),
  ];
}

const ACTIVITY_STATES: Record<number, string> = {
  1: 'scheduled',
  2: 'started',
  3: 'cancel-requested',
  4: 'paused',
  5: 'pause-requested',
};

/** Decode the first heartbeat payload with the client's data converter (codecs included). */
async function decodeDetails(client: Client, payloads: Payload[] | null | undefined): Promise<unknown> {
  if (!payloads?.length) return undefined;
  const dc = client.options.loadedDataConverter;
  let p = payloads[0];
  for (const codec of [...dc.payloadCodecs].reverse()) [p] = await codec.decode([p]);
  return dc.payloadConverter.fromPayload(p);
}

/** Fill `c` from a pending activity of a describe (`pendingActivities[]`): type, state, attempt, last failure, times, heartbeat. */
async function fromPendingActivity(
  client: Client,
  c: CellSnapshot,
  pa: NonNullable<WorkflowExecutionDescription['raw']['pendingActivities']>[number],
): Promise<void> {
  c.activityType = pa.activityType?.name ?? undefined;
  c.activityState = ACTIVITY_STATES[Number(pa.state ?? 0)] ?? undefined;
  c.attempt = pa.attempt ?? undefined;
  if (pa.lastFailure?.message && (pa.attempt ?? 1) > 1) c.lastFailure = pa.lastFailure.message;
  c.nextAttemptAt = optionalTsToMs(pa.nextAttemptScheduleTime);
  c.lastHeartbeatAt = optionalTsToMs(pa.lastHeartbeatTime);
  c.startedAt = optionalTsToMs(pa.lastStartedTime);
  try {
    c.heartbeat = await decodeDetails(client, pa.heartbeatDetails?.payloads as Payload[] | undefined);
  } catch (e) {
    c.heartbeat = `(heartbeat details not decodable: ${(e as Error).message})`;
  }
  for (const k of Object.keys(c) as (keyof CellSnapshot)[]) if (c[k] === undefined) delete c[k];
}

/**
 * Describe one running cell (its child workflow): step, pending activity, attempt, last failure,
 * next attempt time, heartbeat time and decoded details (Temporal `DescribeWorkflowExecution`).
 * @returns a snapshot with `error` set when the describe fails (never throws)
 */
export async function describeCell(client: Client, runId: string, cellKey: string): Promise<CellSnapshot> {
  const workflowId = `${runId}/${cellKey}`;
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    const step = d.typedSearchAttributes.get(PHASE);
    const pa = d.raw.pendingActivities?.[0];
    const c: CellSnapshot = { cellKey, workflowId, ...(step ? { step } : {}) };
    if (pa) await fromPendingActivity(client, c, pa);
    return c;
  } catch (e) {
    return { cellKey, workflowId, error: (e as Error).message ?? String(e) };
  }
}

/**
 * The matrix workflow's own pending step when it is retrying (attempt > 1), as a line keyed `run`;
 * undefined when it has none, is on its first attempt, or cannot be described.
 */
export async function describeMatrixRetry(client: Client, runId: string): Promise<CellSnapshot | undefined> {
  try {
    const d = await client.workflow.getHandle(runId).describe();
    const pa = d.raw.pendingActivities?.find((a) => (a.attempt ?? 1) > 1);
    if (!pa) return undefined;
    const c: CellSnapshot = { cellKey: 'run', workflowId: runId };
    await fromPendingActivity(client, c, pa);
    return c;
  } catch {
    return undefined;
  }
}

/**
 * A snapshot of a run: the matrix's `progress` query, then {@link describeCell} for each running
 * cell and {@link describeMatrixRetry} for the matrix's own retrying step.
 * @param runId the matrix's workflow id
 * @returns undefined when the matrix cannot be queried (not started yet, or closed)
 */
export async function takeSnapshot(client: Client, runId: string): Promise<RunSnapshot | undefined> {
  let progress: MatrixProgress;
  try {
    progress = await client.workflow.getHandle(runId).query<MatrixProgress>('progress');
  } catch {
    return undefined;
  }
  // The cells' workflows are `<run id>/<cellKey>`: the run id the matrix reports (a scheduled run's is its workflow id made folder-safe).
  const [cells, matrixStep] = await Promise.all([
    Promise.all(progress.running.map((k) => describeCell(client, progress.runId ?? runId, k))),
    describeMatrixRetry(client, runId),
  ]);
  return { runId, takenAt: Date.now(), progress, cells, ...(matrixStep ? { matrixStep } : {}) };
}

/** Options of {@link ProgressView}. */
export interface ProgressViewOptions {
  /** Where to draw. @default process.stderr */
  stream?: NodeJS.WriteStream;
  /** Draw bars (a terminal) or print lines. @default stream.isTTY */
  tty?: boolean;
  /** Without a terminal: print changed lines at most this often, ms. @default 5000 */
  minIntervalMs?: number;
}

/**
 * Draws snapshots. On a terminal: a cli-progress multibar, an overall bar (cells done of total) and
 * one line per running cell, added and removed as cells start and end. Otherwise: the lines that
 * changed since the last print, at most every `minIntervalMs`.
 */
export class ProgressView {
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly minIntervalMs: number;
  private multi?: cliProgress.MultiBar;
  private overall?: cliProgress.SingleBar;
  private readonly cellBars = new Map<string, cliProgress.SingleBar>();
  private lastPrint = 0;
  private readonly printed = new Map<string, string>();

  constructor(o: ProgressViewOptions = {}) {
    this.stream = o.stream ?? process.stderr;
    this.tty = o.tty ?? Boolean(this.stream.isTTY);
    this.minIntervalMs = o.minIntervalMs ?? 5000;
  }

  /** Show a snapshot. */
  update(s: RunSnapshot, now = Date.now()): void {
    if (this.tty) this.draw(s, now);
    else this.print(s, now);
  }

  private draw(s: RunSnapshot, now: number): void {
    const p = s.progress;
    if (!this.multi) {
      this.multi = new cliProgress.MultiBar(
        {
          hideCursor: true,
          stream: this.stream,
          clearOnComplete: false,
          stopOnComplete: false,
          autopadding: true,
          format: (_o, _p, payload: { line: string }) => payload.line,
        },
        cliProgress.Presets.shades_classic,
      );
      this.overall = this.multi.create(
        Math.max(1, p.total),
        p.done,
        { phase: p.phase, rest: '' },
        { format: 'cells {bar} {value}/{total} | {phase} | {rest}' },
      );
    }
    const rest = overallLine(p).split(' | ').slice(2).join(' | ');
    this.overall!.setTotal(Math.max(1, p.total));
    this.overall!.update(p.done, { phase: p.phase, rest });
    const lines = s.matrixStep ? [...s.cells, s.matrixStep] : s.cells;
    const live = new Set(lines.map((c) => c.cellKey));
    for (const [k, bar] of this.cellBars)
      if (!live.has(k)) {
        this.multi.remove(bar);
        this.cellBars.delete(k);
      }
    for (const c of lines) {
      const line = `  ${cellLine(c, now)}`;
      const bar = this.cellBars.get(c.cellKey);
      if (bar) bar.update(0, { line });
      else this.cellBars.set(c.cellKey, this.multi.create(1, 0, { line }));
    }
  }

  private print(s: RunSnapshot, now: number): void {
    if (now - this.lastPrint < this.minIntervalMs && this.lastPrint !== 0) return;
    const lines = new Map<string, string>([
      ['', overallLine(s.progress)],
      ...[...s.cells, ...(s.matrixStep ? [s.matrixStep] : [])].map(
        (c) => [c.cellKey, `  ${cellLine(c, now)}`] as [string, string],
      ),
    ]);
    const changed = [...lines].filter(([k, l]) => this.printed.get(k) !== l);
    if (!changed.length) return;
    for (const [k, l] of changed) {
      this.stream.write(`${l}\n`);
      this.printed.set(k, l);
    }
    for (const k of [...this.printed.keys()]) if (!lines.has(k)) this.printed.delete(k);
    this.lastPrint = now;
  }

  /** Stop drawing (restores the cursor on a terminal). */
  stop(): void {
    this.multi?.stop();
    this.multi = undefined;
  }
}
