/** The statement queue (the mutex), with query ids for /chbench/running and KILL QUERY, and the statement log. */
import * as fs from 'node:fs';
import type { EmbeddedStatementLine } from '../schema/target';

export interface Entry {
  queryId: string;
  sqlHead: string;
  receivedAtMs: number;
  startedAtMs: number | null;
  go: () => void;
  cancel: (e: Error) => void;
  /** Set while the statement streams its result: stops it between two chunks (KILL QUERY). */
  abortRunning?: (e: Error) => void;
  /** While a buffered result (in a file) is sent after the statement ended: bytes sent so far, and the result's size. */
  sending?: { sentBytes: number; resultBytes: number };
}

/** State of a listed statement: executing, waiting for the mutex, or sending its (file-buffered) result after it ran. */
export type EntryState = 'running' | 'queued' | 'sending';

/**
 * A result being sent after its statement ended (the mutex is free again). `progress` adds sent
 * bytes; `end` removes the entry from the list (call it exactly once, also on error/disconnect).
 */
export interface SendingHandle {
  progress(bytes: number): void;
  end(): void;
}

/**
 * Every finished statement is appended, as one JSON line, to `<dataDir>/statements.jsonl`
 * (`{query_id, received_at_ms, started_at_ms, finished_at_ms, ok, sql_head}`), served by
 * `GET /chbench/statements`: the embedded engine's stand-in for `system.query_log`, used to prove
 * that no retry ran beside its own previous attempt.
 */
let statementLogFile: string | undefined;

/** Where finished statements are logged (`<dataDir>/statements.jsonl`). */
export function setStatementLog(file: string): void {
  statementLogFile = file;
}

/** The statement log's path, when set. */
export function statementLog(): string | undefined {
  return statementLogFile;
}

function logStatement(e: Entry, ok: boolean): void {
  if (!statementLogFile) return;
  const record: EmbeddedStatementLine = {
    query_id: e.queryId,
    received_at_ms: e.receivedAtMs,
    started_at_ms: e.startedAtMs,
    finished_at_ms: Date.now(),
    ok,
    sql_head: e.sqlHead.slice(0, 120),
  };
  const line = JSON.stringify(record);
  try {
    fs.appendFileSync(statementLogFile, line + '\n');
  } catch {
    /* the directory is being removed at teardown */
  }
}

export class StatementQueue {
  private running: Entry | undefined;
  private readonly waiting: Entry[] = [];
  private readonly sending = new Map<string, Entry>();
  private idleWaiters: (() => void)[] = [];

  /** Entry for `queryId`, running or queued. */
  find(queryId: string): { entry: Entry; state: EntryState } | undefined {
    if (this.running?.queryId === queryId) return { entry: this.running, state: 'running' };
    const q = this.waiting.find((e) => e.queryId === queryId);
    if (q) return { entry: q, state: 'queued' };
    const snd = this.sending.get(queryId);
    return snd ? { entry: snd, state: 'sending' } : undefined;
  }

  /**
   * The listed statements: the executing one, those sending their result (`sent_bytes`,
   * `result_bytes`: bytes of the formatted result as the client receives it), the queued ones.
   */
  list(): {
    query_id: string;
    state: EntryState;
    received_at_ms: number;
    started_at_ms: number | null;
    sql_head: string;
    sent_bytes?: number;
    result_bytes?: number;
  }[] {
    const all: { e: Entry; s: EntryState }[] = this.running ? [{ e: this.running, s: 'running' }] : [];
    for (const e of this.sending.values()) all.push({ e, s: 'sending' as const });
    for (const e of this.waiting) all.push({ e, s: 'queued' as const });
    return all.map(({ e, s }) => ({
      query_id: e.queryId,
      state: s,
      received_at_ms: e.receivedAtMs,
      started_at_ms: e.startedAtMs,
      sql_head: e.sqlHead,
      ...(s === 'sending' && e.sending ? { sent_bytes: e.sending.sentBytes, result_bytes: e.sending.resultBytes } : {}),
    }));
  }

  /**
   * Keep the executing statement `queryId` listed, as `sending`, after it releases the mutex: call
   * it from inside the statement's `run` function, once its result is ready to send. The entry
   * stays until `end()`; while it is listed its query_id is refused to a new request. `abort`
   * (KILL QUERY of the sending statement) stops the send.
   * @throws Error when `queryId` is not the executing statement
   */
  startSending(queryId: string, resultBytes: number, abort?: (e: Error) => void): SendingHandle {
    const e = this.running;
    if (!e || e.queryId !== queryId) throw new Error(`startSending: ${queryId} is not the executing statement`);
    const st = { sentBytes: 0, resultBytes };
    const entry: Entry = { ...e, abortRunning: abort, sending: st };
    this.sending.set(queryId, entry);
    let ended = false;
    return {
      progress: (b) => {
        st.sentBytes += b;
      },
      end: () => {
        if (ended) return;
        ended = true;
        if (this.sending.get(queryId) === entry) this.sending.delete(queryId);
      },
    };
  }

  /**
   * Run `fn` when every earlier statement is done. `register` receives a function that cancels the
   * statement while it is still queued (returns false once it started).
   */
  async run<T>(
    queryId: string,
    sqlHead: string,
    fn: () => Promise<T>,
    register?: (cancel: (e: Error) => boolean) => void,
  ): Promise<T> {
    let entry!: Entry;
    const turn = new Promise<void>((go, cancel) => {
      entry = { queryId, sqlHead, receivedAtMs: Date.now(), startedAtMs: null, go, cancel };
    });
    this.waiting.push(entry);
    register?.((e) => this.cancelQueued(queryId, e));
    this.pump();
    await turn; // rejects when cancelled while queued
    let ok = false;
    try {
      const r = await fn();
      ok = true;
      return r;
    } finally {
      logStatement(entry, ok);
      this.running = undefined;
      this.pump();
    }
  }

  /** Cancel a queued statement. @returns whether it was queued (and is now cancelled) */
  cancelQueued(queryId: string, e: Error): boolean {
    const k = this.waiting.findIndex((x) => x.queryId === queryId);
    if (k < 0) return false;
    const [entry] = this.waiting.splice(k, 1);
    entry.cancel(e);
    return true;
  }

  /** Cancel every queued statement. */
  cancelAllQueued(e: Error): void {
    for (const entry of this.waiting.splice(0)) entry.cancel(e);
  }

  /** Resolves when nothing runs and nothing waits. */
  idle(): Promise<void> {
    if (!this.running && this.waiting.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private pump(): void {
    if (this.running) return;
    const next = this.waiting.shift();
    if (!next) {
      const w = this.idleWaiters;
      this.idleWaiters = [];
      w.forEach((r) => r());
      return;
    }
    this.running = next;
    next.startedAtMs = Date.now();
    next.go();
  }
}
