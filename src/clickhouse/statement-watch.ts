/**
 * Statement watch: every statement an activity awaits keeps the activity heartbeating, with the
 * statement's real progress, and a statement that stops making progress is reported as stuck.
 *
 * How it is wired (structural, so no activity can forget it): inside an activity, `connect()`
 * (`clickhouse.ts`) returns a client wrapped by {@link watchClient}. Each `query` / `command` / `exec`
 * / `insert` gets a query_id (unless given) and is registered with the activity's
 * {@link StatementWatcher} until its result is consumed (`text()` / `json()` / the end of `stream()`,
 * or the end of an `exec` stream). While anything is registered, a ticker (every
 * {@link WatchConfig.tickMs}) reads the progress of the registered statements over a SEPARATE
 * connection with the target's own reader ({@link WatchedTargetVerbs}, installed by the target
 * registry: `system.processes` on a real server, the embedded server's endpoint there) and
 * heartbeats {@link HeartbeatDetails}.
 *
 * Progress means a counter changed: `read_rows`, `written_rows`, `total_rows_approx` of the
 * statement, or its `memory_usage` by ≥ 1 MiB (system.processes); for `ALTER` / `OPTIMIZE` also the server's
 * merges (`system.merges` rows read/written, progress) and unfinished mutations' `parts_to_do`.
 * Elapsed time alone is not progress. A statement with no progress for
 * {@link WatchConfig.stuckAfterS} is stuck: it is killed with the target's `kill` verb (`KILL QUERY …
 * ASYNC`, then waited for, bounded; the embedded engine refuses to kill an executing statement and says so) and
 * the awaited call fails with the non-retryable `ApplicationFailure` type `StatementStuck`, whose
 * message and details name the query_id, the SQL head, the last counters seen and the kill outcome.
 *
 * A statement whose result the embedded server is still sending (`sending`) progresses with its
 * sent bytes. A statement the server does not list (not yet registered, or finished while the client still
 * reads the body) or whose progress cannot be read counts as "no progress seen". Statements queued
 * behind another one on the embedded engine progress with the statement they wait for.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../schema/failures';
import { rowsReadText } from '../schema/progress';
import type { ClickHouseClient } from '@clickhouse/client';
import type { KillOptions, KillResult, TargetHandle } from '../schema/target';
import { watchTickMs } from '../config';

/**
 * The verbs of a target the watcher uses: how to read the progress of statements and how to kill
 * one. The target registry (`src/targets/registry.ts`) installs them when it loads (every target
 * kind implements them, `src/targets/target.ts`); this module is library code and never imports
 * `src/targets` nor speaks one target's protocol.
 */
export interface WatchedTargetVerbs {
  /**
   * Progress of `statements` on the target now, keyed by query_id; a statement the target does not
   * list is absent from the map.
   * @param monitor a client of the target on its own connection (for targets listed over SQL)
   * @param timeoutMs bound of each read, ms
   * @throws Error when the progress cannot be read (the watcher shows it and counts "no progress seen")
   */
  statementProgress(
    handle: TargetHandle,
    monitor: ClickHouseClient,
    statements: readonly WatchedStatement[],
    timeoutMs: number,
  ): Promise<Map<string, StatementProgress>>;
  /** Kill one statement; never throws (a failure is the result). */
  kill(handle: TargetHandle, client: ClickHouseClient, queryId: string, options?: KillOptions): Promise<KillResult>;
}

/** A statement whose progress the watcher asks for. */
export interface WatchedStatement {
  queryId: string;
  /** `ALTER` / `OPTIMIZE`: the server's merges and unfinished mutations count as its progress. */
  background: boolean;
}

/** Counters of one statement at one look (absent = not reported, never 0 for "unknown"). */
export interface StatementProgress {
  /** The target lists the statement (running or queued). */
  listed: boolean;
  /** The target lists the statement but gives no counters, and why (then stuck detection cannot judge it). */
  countersUnavailable?: string;
  /** `running` / `queued` where the target says, or why the progress could not be read. */
  state?: string;
  rows_read?: number;
  total_rows?: number;
  written_rows?: number;
  elapsed_ms?: number;
  memory_usage?: number;
  /** Unfinished mutation parts (background statements). */
  parts_to_do?: number;
  /** Rows read + written by running merges (background statements). */
  merges_rows?: number;
  /** Sum of running merges' progress (background statements). */
  merges_progress?: number;
  /**
   * The statement ran and its buffered result is being sent (`state` `sending`, embedded server):
   * bytes of it sent so far, and the result's size. A change of `sent_bytes` is progress.
   */
  sent_bytes?: number;
  result_size?: number;
}

let verbsOfTarget: ((t: TargetHandle) => WatchedTargetVerbs | undefined) | undefined;

/**
 * Install the lookup of a target's verbs (the target registry does so when it is loaded). Without
 * it, or for a target it does not know, progress is unreadable and nothing is killed.
 */
export function useTargetVerbs(lookup: (t: TargetHandle) => WatchedTargetVerbs | undefined): void {
  verbsOfTarget = lookup;
}

/**
 * The details of every chbench heartbeat (the CLI's progress bar renders these names; keep them).
 * Counters are those of the statement the heartbeat is about, as the server reported them at the
 * last tick; absent = not reported (never 0 for "unknown").
 */
export interface HeartbeatDetails {
  /** The activity step (`load`, `queries-baseline`, `quiesce`, `materialize-index`, …). */
  step: string;
  /** First 120 characters of the statement in flight (whitespace collapsed). */
  statement?: string;
  /** query_id of the statement in flight. */
  query_id?: string;
  /** Rows read so far (`system.processes.read_rows`). */
  rows_read?: number;
  /** Rows the statement expects to read (`system.processes.total_rows_approx`; 0 = unknown to the server). */
  total_rows?: number;
  /** Rows written so far (`system.processes.written_rows`). */
  written_rows?: number;
  /** Result bytes received by the client so far (measured runs: counted as the body streams in). */
  result_bytes?: number;
  /** Server-side elapsed of the statement, ms (`system.processes.elapsed` × 1000). */
  elapsed_ms?: number;
  /** Memory the statement holds, bytes (`system.processes.memory_usage`). */
  memory_usage?: number;
  /** Unfinished mutation parts (`system.mutations.parts_to_do`), for ALTER/OPTIMIZE and mutation polls. */
  parts_to_do?: number;
  /** Workload query id being measured (runQueries). */
  query?: string;
  /** Which run of that query (`cold 1`, `warmup 1`, `warm 2`). */
  run?: string;
  /** How long no counter of the statement changed, ms. */
  no_progress_ms?: number;
  /** Statements of this activity in flight. */
  in_flight?: number;
  /** Poll loops: active parts, merges running, unfinished mutations, how long the table was stable (ms). */
  active_parts?: number;
  merges?: number;
  mutations?: number;
  stable_ms?: number;
  /** Query ids (or workflow ids) the activity is waiting for. */
  waiting_for?: string[];
  /** One human line. */
  progress: string;
}

/** Watch settings of one activity. */
export interface WatchConfig {
  /**
   * No counter change for this long (s) → the statement is stuck. From `protocol.stuckAfterS`.
   * @default 600 (see `src/schema/run-spec.ts`: longer than the final phase of a large sort/aggregation or one
   * large part's mutation on a slow volume, where no counter moves; far below the 3600 s `max_execution_time`)
   */
  stuckAfterS: number;
  /** Progress poll and heartbeat interval, ms; must stay well below the heartbeat timeout (10 s). @default 2000 (`CHBENCH_WATCH_TICK_MS`) */
  tickMs: number;
}

/**
 * A change of the statement's `memory_usage` of at least this many bytes counts as progress (1 MiB).
 * Checked on 18.16: a statement sleeping inside one block changed it by 16 bytes per function call.
 */
export const MEMORY_PROGRESS_BYTES = 1 << 20;

export const DEFAULT_WATCH: WatchConfig = { stuckAfterS: 600, tickMs: 2000 };

interface Statement {
  queryId: string;
  sql: string;
  kind: 'query' | 'command' | 'exec' | 'insert';
  /** ALTER / OPTIMIZE: background merges and mutations count as its progress. */
  background: boolean;
  startedAt: number;
  lastChangeAt: number;
  key?: string;
  /** memory_usage when progress was last seen. */
  memAtChange?: number;
  seen?: StatementProgress;
  stuck?: ApplicationFailure;
  /** The watcher is killing it: the server's own error for it ("cancelled") must not win over StatementStuck. */
  killing?: boolean;
  abort: AbortController;
  rejectStuck: (e: ApplicationFailure) => void;
  stuckPromise: Promise<never>;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
const fmt = (n: number) => n.toLocaleString('en-US');
const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;

/**
 * One per activity execution: the statements in flight, the progress ticker and stuck handling.
 * Created by {@link runWatched} (the activity wrapper) or lazily per activity context.
 */
export class StatementWatcher {
  private readonly inFlight = new Map<string, Statement>();
  /** Called synchronously as each statement is registered (before it is sent) and unregistered (its result consumed). */
  private readonly edgeListeners = new Set<(edge: 'begin' | 'end', queryId: string) => void>();
  private keepAlive = 0;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private monitor: ClickHouseClient | undefined;
  /** Labels that persist across heartbeats (step, query, run) and the last poll-loop fields. */
  private labels: Partial<HeartbeatDetails> = { step: 'activity' };
  private target: TargetHandle | undefined;
  private verbs: WatchedTargetVerbs | undefined;
  private openMonitor: (() => ClickHouseClient) | undefined;
  /** Every heartbeat sent (tests and diagnostics read it; bounded). */
  readonly sent: { at: number; details: HeartbeatDetails }[] = [];

  constructor(
    readonly config: WatchConfig,
    private readonly ctx: Context | undefined,
  ) {}

  /**
   * The target statements run on (the first watched client's): its verbs read their progress and
   * kill a stuck one (see {@link useTargetVerbs}); `openMonitor` opens the separate connection they use.
   */
  attach(target: TargetHandle, openMonitor: () => ClickHouseClient): void {
    if (this.target) return;
    [this.target, this.openMonitor] = [target, openMonitor];
    this.verbs = verbsOfTarget?.(target);
  }

  /** Set labels without heartbeating. */
  label(d: Partial<HeartbeatDetails>): void {
    this.labels = { ...this.labels, ...d };
  }

  /** Record labels / poll-loop fields and heartbeat now. */
  note(d: Partial<HeartbeatDetails> & Record<string, unknown>): void {
    const { progress, ...rest } = d;
    this.labels = { ...this.labels, ...rest };
    this.emit(this.details(progress as string | undefined));
  }

  /**
   * Call `fn` synchronously at every statement's registration (`begin`, before it is sent) and
   * unregistration (`end`, once its result is consumed or it failed); the per-cell counter samples
   * (`src/activities/support/counter-samples.ts`) bracket statements this way. A throwing listener is ignored.
   * @returns a function removing the listener
   */
  onStatementEdge(fn: (edge: 'begin' | 'end', queryId: string) => void): () => void {
    this.edgeListeners.add(fn);
    return () => this.edgeListeners.delete(fn);
  }

  private edge(edge: 'begin' | 'end', queryId: string): void {
    for (const fn of this.edgeListeners)
      try {
        fn(edge, queryId);
      } catch {
        /* a listener never fails a statement */
      }
  }

  /** Register a statement; returns its handle. */
  begin(queryId: string, sql: string, kind: Statement['kind']): Statement {
    this.edge('begin', queryId);
    let rejectStuck!: (e: ApplicationFailure) => void;
    const stuckPromise = new Promise<never>((_, rej) => (rejectStuck = rej));
    stuckPromise.catch(() => undefined);
    const now = performance.now();
    const st: Statement = {
      queryId,
      sql,
      kind,
      background: /^\s*(ALTER|OPTIMIZE)\b/i.test(sql),
      startedAt: now,
      lastChangeAt: now,
      abort: new AbortController(),
      rejectStuck,
      stuckPromise,
    };
    this.inFlight.set(queryId, st);
    this.ensureTicker();
    this.emit(this.details());
    return st;
  }

  /** Unregister a statement. */
  end(st: Statement): void {
    if (this.inFlight.get(st.queryId) === st) this.edge('end', st.queryId);
    this.inFlight.delete(st.queryId);
    this.maybeStop();
  }

  /** Await `p`, failing with `StatementStuck` as soon as the watcher finds `st` stuck. */
  guard<T>(st: Statement, p: Promise<T>): Promise<T> {
    p.catch(() => undefined);
    return Promise.race([p, st.stuckPromise]).catch(async (e) => {
      if (st.killing && !st.stuck) await st.stuckPromise;
      throw st.stuck ?? e;
    });
  }

  /**
   * Keep heartbeating while `work` runs although it is not a statement (starting or stopping a
   * server process, whose own deadlines bound it). The heartbeat says so.
   */
  async during<T>(label: string, work: Promise<T>): Promise<T> {
    this.keepAlive++;
    this.labels = { ...this.labels, step: this.labels.step === 'activity' ? label : this.labels.step };
    this.ensureTicker();
    this.emit(this.details(`${label}: waiting (not a statement; bounded by its own timeout)`));
    try {
      return await work;
    } finally {
      this.keepAlive--;
      this.maybeStop();
    }
  }

  private ensureTicker(): void {
    if (this.timer || !this.ctx) return;
    this.timer = setInterval(() => void this.tick(), this.config.tickMs);
  }

  /** End of the activity: forget every statement still registered (a result never read) and stop. */
  close(): void {
    this.inFlight.clear();
    this.keepAlive = 0;
    this.maybeStop();
  }

  private maybeStop(): void {
    if (this.inFlight.size || this.keepAlive || !this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    const m = this.monitor;
    this.monitor = undefined;
    void m?.close().catch(() => undefined);
  }

  private emit(d: HeartbeatDetails): void {
    if (!this.ctx) return;
    this.ctx.heartbeat(d);
    this.sent.push({ at: Date.now(), details: d });
    if (this.sent.length > 2000) this.sent.splice(0, 1000);
  }

  /** The statement a heartbeat is about: the oldest one in flight. */
  private primary(): Statement | undefined {
    let p: Statement | undefined;
    for (const s of this.inFlight.values()) if (!p || s.startedAt < p.startedAt) p = s;
    return p;
  }

  private details(progress?: string): HeartbeatDetails {
    const st = this.primary();
    const base: HeartbeatDetails = { step: 'activity', ...this.labels, progress: '' } as HeartbeatDetails;
    if (!st) return { ...base, progress: progress ?? this.labelLine() };
    const s = st.seen;
    const d: HeartbeatDetails = {
      ...base,
      statement: collapse(st.sql).slice(0, 120),
      query_id: st.queryId,
      in_flight: this.inFlight.size,
      no_progress_ms: Math.round(performance.now() - st.lastChangeAt),
      ...(s?.rows_read !== undefined ? { rows_read: s.rows_read } : {}),
      ...(s?.total_rows !== undefined ? { total_rows: s.total_rows } : {}),
      ...(s?.written_rows !== undefined ? { written_rows: s.written_rows } : {}),
      ...(s?.elapsed_ms !== undefined ? { elapsed_ms: s.elapsed_ms } : {}),
      ...(s?.memory_usage !== undefined ? { memory_usage: s.memory_usage } : {}),
      ...(s?.parts_to_do !== undefined ? { parts_to_do: s.parts_to_do } : {}),
    };
    d.progress = progress ?? this.line(st, d);
    return d;
  }

  private labelLine(): string {
    const l = this.labels;
    return [l.step, l.query && `${l.query}${l.run ? ` ${l.run}` : ''}`].filter(Boolean).join(' ');
  }

  private line(st: Statement, d: HeartbeatDetails): string {
    const head = `${this.labelLine()}: ${collapse(st.sql).slice(0, 60)}`;
    const s = st.seen;
    if (!s)
      return `${head} — running for ${((performance.now() - st.startedAt) / 1000).toFixed(1)} s (the server's rows and memory are read every ${(this.config.tickMs / 1000).toFixed(0)} s)`;
    if (s.countersUnavailable)
      return `${head} — progress not available on this engine (${s.countersUnavailable}); stuck detection relies on max_execution_time`;
    if (!s.listed)
      return `${head} — ${s.state ?? 'not listed by the server (queued, or finishing)'}; no progress seen for ${Math.round((d.no_progress_ms ?? 0) / 1000)} s`;
    const parts: string[] = [];
    if (d.rows_read !== undefined) parts.push(rowsReadText(d.rows_read, d.total_rows));
    if (d.written_rows) parts.push(`${fmt(d.written_rows)} written`);
    if (d.parts_to_do !== undefined) parts.push(`${d.parts_to_do} parts to do`);
    if (d.elapsed_ms !== undefined) parts.push(`${(d.elapsed_ms / 1000).toFixed(1)} s`);
    if (d.memory_usage !== undefined) parts.push(mib(d.memory_usage));
    if (s.state === 'queued') parts.push('queued behind another statement');
    if (s.state === 'sending' && s.sent_bytes !== undefined)
      parts.push(
        `sending the result: ${mib(s.sent_bytes)}${s.result_size !== undefined ? ` of ${mib(s.result_size)}` : ''}`,
      );
    const idle = d.no_progress_ms ?? 0;
    if (idle >= 2 * this.config.tickMs)
      parts.push(`no progress for ${Math.round(idle / 1000)} s (stuck after ${this.config.stuckAfterS} s)`);
    return `${head} — ${parts.join(', ')}`;
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      // The previous read is still out (each is bounded by a timeout): still heartbeat what we know.
      this.emit(this.details());
      return;
    }
    this.ticking = true;
    try {
      const list = [...this.inFlight.values()];
      if (list.length) {
        const seen = await this.readProgress(list).catch(
          (e: Error) =>
            new Map<string, StatementProgress>(
              list.map((s) => [
                s.queryId,
                {
                  listed: false,
                  countersUnavailable: undefined,
                  state: `progress unreadable: ${e.message.split('\n')[0]}`,
                },
              ]),
            ),
        );
        const now = performance.now();
        for (const st of list) {
          const s = seen.get(st.queryId) ?? { listed: false };
          st.seen = s;
          if (s.countersUnavailable) {
            st.lastChangeAt = now; // cannot judge: max_execution_time is the bound
            continue;
          }
          if (!s.listed) continue;
          const key = JSON.stringify([
            s.rows_read,
            s.total_rows,
            s.written_rows,
            s.parts_to_do,
            s.merges_rows,
            s.merges_progress,
            s.state,
            s.sent_bytes,
          ]);
          // Memory counts when it moved by at least MEMORY_PROGRESS_BYTES (a sort's or aggregation's
          // final phase moves no row counter but moves memory; a sleeping statement wiggles by bytes).
          const memMoved =
            s.memory_usage !== undefined &&
            (st.memAtChange === undefined || Math.abs(s.memory_usage - st.memAtChange) >= MEMORY_PROGRESS_BYTES);
          if (key !== st.key || memMoved) [st.key, st.lastChangeAt, st.memAtChange] = [key, now, s.memory_usage];
        }
        for (const st of list)
          if (!st.stuck && this.inFlight.has(st.queryId) && now - st.lastChangeAt >= this.config.stuckAfterS * 1000)
            await this.stuck(st);
      }
      this.emit(this.details());
    } finally {
      this.ticking = false;
    }
  }

  /** Bound of one progress read or kill statement, ms. */
  private readTimeoutMs(): number {
    return Math.max(2000, 2 * this.config.tickMs);
  }

  private monitorClient(): ClickHouseClient {
    if (!this.monitor) this.monitor = this.openMonitor!();
    return this.monitor;
  }

  /** Progress of the given statements: the target's own reader, over a separate connection. */
  private async readProgress(list: Statement[]): Promise<Map<string, StatementProgress>> {
    const t = this.target;
    if (!t) return new Map();
    if (!this.verbs) throw new Error(`no verbs installed for target kind "${t.kind}" (src/targets not loaded)`);
    return this.verbs.statementProgress(t, this.monitorClient(), list, this.readTimeoutMs());
  }

  /** Kill a stuck statement where the target can, then fail its awaited call. */
  private async stuck(st: Statement): Promise<void> {
    const t = this.target;
    const idleS = Math.round((performance.now() - st.lastChangeAt) / 1000);
    let kill = !t ? 'not attempted (no target)' : 'not attempted (no verbs for this target kind)';
    st.killing = true;
    if (t && this.verbs) {
      // Waited for (bounded, heartbeating) where the target can stop it; the embedded engine says why not.
      const r = await this.verbs.kill(t, this.monitorClient(), st.queryId, {
        waitGoneMs: 30_000,
        timeoutMs: this.readTimeoutMs(),
        queryIdTag: 'chb-watch',
        onWait: () => this.emit(this.details(`${this.labelLine()}: killing stuck statement ${st.queryId}`)),
      });
      kill = r.text;
    }
    const s = st.seen;
    const seenText = !s
      ? 'no progress was ever read'
      : !s.listed
        ? `the server did not list it${s.state ? ` (${s.state})` : ''}`
        : `rows_read ${s.rows_read ?? 'n/a'}, total_rows_approx ${s.total_rows ?? 'n/a'}, written_rows ${s.written_rows ?? 'n/a'}, memory_usage ${s.memory_usage ?? 'n/a'}, elapsed ${s.elapsed_ms ?? 'n/a'} ms${s.parts_to_do !== undefined ? `, parts_to_do ${s.parts_to_do}` : ''}`;
    st.stuck = ApplicationFailure.create({
      type: FAILURE.StatementStuck,
      nonRetryable: true,
      message: `statement ${st.queryId} made no progress for ${idleS} s (protocol.stuckAfterS = ${this.config.stuckAfterS}); last seen: ${seenText}; ${kill}. SQL: ${collapse(st.sql).slice(0, 200)}`,
      details: [
        {
          query_id: st.queryId,
          statement: collapse(st.sql).slice(0, 500),
          no_progress_s: idleS,
          last_seen: s ?? null,
          kill,
        },
      ],
    });
    st.abort.abort(st.stuck);
    st.rejectStuck(st.stuck);
  }
}

// ---------------------------------------------------------------------------------------------
// One watcher per activity execution

const scope = new AsyncLocalStorage<StatementWatcher>();
const byContext = new WeakMap<Context, StatementWatcher>();

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** The current activity's watcher (created on first use), or `undefined` outside an activity. */
export function currentWatcher(): StatementWatcher | undefined {
  const w = scope.getStore();
  if (w) return w;
  const ctx = activityContext();
  if (!ctx) return undefined;
  let v = byContext.get(ctx);
  if (!v) byContext.set(ctx, (v = new StatementWatcher({ ...DEFAULT_WATCH, tickMs: watchTickMs() }, ctx)));
  return v;
}

/**
 * Run `fn` with its own watcher configured by `config` (the activity wrapper does this for every
 * activity, from the cell's `protocol.stuckAfterS`).
 */
export function runWatched<T>(config: Partial<WatchConfig> & { step?: string }, fn: () => Promise<T>): Promise<T> {
  const ctx = activityContext();
  const { step, ...rest } = config;
  const w = new StatementWatcher({ ...DEFAULT_WATCH, tickMs: watchTickMs(), ...rest }, ctx);
  if (step) w.label({ step });
  if (ctx) byContext.set(ctx, w);
  return scope.run(w, async () => {
    try {
      return await fn();
    } finally {
      w.close();
    }
  });
}

/** Record labels / poll-loop fields with the current watcher and heartbeat now (no-op outside an activity). */
export function noteProgress(d: Partial<HeartbeatDetails> & Record<string, unknown>): void {
  currentWatcher()?.note(d);
}

/** See {@link StatementWatcher.during}; outside an activity just awaits `work`. */
export function keepAliveDuring<T>(label: string, work: Promise<T>): Promise<T> {
  const w = currentWatcher();
  return w ? w.during(label, work) : work;
}

// ---------------------------------------------------------------------------------------------
// The client wrapper

type AnyParams = {
  query?: string;
  table?: string;
  query_id?: string;
  abort_signal?: AbortSignal;
  values?: unknown;
  format?: string;
};

/**
 * Wrap a client so every statement is registered with `watcher` until its result is consumed.
 * `openMonitor` opens the separate connection progress is read over.
 */
export function watchClient(
  client: ClickHouseClient,
  target: TargetHandle,
  watcher: StatementWatcher,
  openMonitor: () => ClickHouseClient,
): ClickHouseClient {
  watcher.attach(target, openMonitor);
  /** This client's registered statements (closing the client unregisters those whose result was never read). */
  const mine = new Set<Statement>();
  const end = (st: Statement) => {
    mine.delete(st);
    watcher.end(st);
  };
  const prepare = (p: AnyParams, kind: Statement['kind']) => {
    const queryId = p.query_id ?? randomUUID();
    const sql = p.query ?? (p.table ? `INSERT INTO ${p.table} FORMAT ${p.format ?? 'JSONCompactEachRow'}` : '');
    const st = watcher.begin(queryId, sql, kind);
    mine.add(st);
    const signal = p.abort_signal ? AbortSignal.any([p.abort_signal, st.abort.signal]) : st.abort.signal;
    return { st, params: { ...p, query_id: queryId, abort_signal: signal } };
  };
  /** Keep `st` registered until `stream` ends. */
  const untilEnd = (st: Statement, stream: Readable) => {
    let done = false;
    const fin = () => {
      if (done) return;
      done = true;
      end(st);
    };
    stream.once('end', fin);
    stream.once('close', fin);
    stream.once('error', fin);
    st.stuckPromise.catch(() => stream.destroy(st.stuck));
    return stream;
  };
  return new Proxy(client, {
    get(obj, prop, recv) {
      const orig = Reflect.get(obj, prop, recv);
      if (prop === 'query')
        return async (p: AnyParams) => {
          const { st, params } = prepare(p, 'query');
          let rs: Awaited<ReturnType<ClickHouseClient['query']>>;
          try {
            rs = await watcher.guard(st, (orig as ClickHouseClient['query']).call(obj, params as never));
          } catch (e) {
            end(st);
            throw e;
          }
          let consumed = false;
          return new Proxy(rs, {
            get(r, k, rr) {
              const v = Reflect.get(r, k, rr);
              if ((k === 'text' || k === 'json') && typeof v === 'function')
                return async (...a: unknown[]) => {
                  try {
                    return await watcher.guard(st, (v as (...x: unknown[]) => Promise<unknown>).apply(r, a));
                  } finally {
                    consumed = true;
                    end(st);
                  }
                };
              if (k === 'stream' && typeof v === 'function')
                return (...a: unknown[]) => untilEnd(st, (v as (...x: unknown[]) => Readable).apply(r, a));
              if (k === 'close' && typeof v === 'function')
                return (...a: unknown[]) => {
                  if (!consumed) end(st);
                  return (v as (...x: unknown[]) => unknown).apply(r, a);
                };
              return typeof v === 'function' ? v.bind(r) : v;
            },
          });
        };
      if (prop === 'command' || prop === 'insert')
        return async (p: AnyParams) => {
          const { st, params } = prepare(p, prop);
          try {
            return await watcher.guard(st, (orig as (x: unknown) => Promise<unknown>).call(obj, params));
          } finally {
            end(st);
          }
        };
      if (prop === 'exec')
        return async (p: AnyParams) => {
          const { st, params } = prepare(p, 'exec');
          try {
            const r = (await watcher.guard(
              st,
              (orig as (x: unknown) => Promise<{ stream: Readable }>).call(obj, params),
            )) as { stream: Readable };
            untilEnd(st, r.stream);
            return r;
          } catch (e) {
            end(st);
            throw e;
          }
        };
      if (prop === 'close')
        return async () => {
          for (const st of [...mine]) end(st);
          return (orig as ClickHouseClient['close']).call(obj);
        };
      return typeof orig === 'function' ? orig.bind(obj) : orig;
    },
  });
}
