/**
 * The Python-hosted driver: ONE PyPI chdb build (chdb 1.4.1 … chdb-core 26.9.0, ClickHouse 23.10 …
 * 26.9) loaded by a Python child process running `python/host.py`, spoken to over framed
 * stdin/stdout.
 *
 * ## Protocol (the authoritative description is the header of `python/host.py`)
 * Each frame, both ways: 4-byte big-endian length N, then N bytes = one JSON header line + `\n` +
 * a binary payload. Requests carry `id` (unique among open requests) and, except `hello`/`open`, a
 * `session`. `hello` → chdb version, `version()` of the engine, features; `open {path}` →
 * `{session}`; `query {session, format}` + SQL payload → `{elapsed, result_rows, result_bytes,
 * storage_rows_read?, storage_bytes_read?}` + result payload; `stream {session, format, window}` +
 * SQL → `{chunk, rows}` + bytes … then `{end}`; `ack {id, n}` (credits: the host never has more than
 * `window` unacknowledged chunks in flight), `cancel {id}` (stops a stream before its next chunk,
 * code 394); `insert {session, table, columns, format}` + rows → `{rows_written, bytes_written,
 * elapsed}` (chdb-core 26.x `Session.send_insert`; other builds get the rows as statement text);
 * `close {session}`. Failures: `{ok: false, error: 'Code: N. DB::Exception: …'}`.
 *
 * ## Capabilities per build (measured, /work/shared/NOTES.md "ClickHouse versions on one machine")
 * - streaming: `Session.send_query`, chdb ≥ 3.7.2;
 * - concurrentSessions: chdb-core ≥ 26.1 (3.7.2 deadlocks on a 2nd connection during a query; ≤ 3.x
 *   keep one connection per process, so the host shares it between the server's sessions);
 * - perQueryEngine: chdb 1.x / 2.x; systemParts: not 1.4.1; jsonStatistics: ≥ 26.5; queryLog: never
 *   (26.9's config-file query_log is not wired).
 *
 * ## Death of the host
 * If the host exits (a crash inside the engine, SIGKILL), every pending request fails with code
 * 1001 naming the exit code or signal and the tail of the host's stderr, and `onExit` is called
 * (the engine server then exits non-zero: the engine is gone and is not silently restarted).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { EngineCapabilities, EngineDriver, EngineSession, QueryResult, StreamChunk } from './driver';

/** `host.py` next to the compiled driver is not copied by tsc: it is read from the source tree. */
export function hostScript(): string {
  // dist/src/engine/python-driver.js → <repo>/src/engine/python/host.py; src/engine/python-driver.ts → python/host.py
  const here = __dirname;
  const fromDist = path.resolve(here, '..', '..', '..', 'src', 'engine', 'python', 'host.py');
  return here.includes(`${path.sep}dist${path.sep}`) ? fromDist : path.join(here, 'python', 'host.py');
}

interface Header {
  id?: number;
  ok?: boolean;
  error?: string;
  chunk?: boolean;
  end?: boolean;
  [k: string]: unknown;
}

interface Pending {
  onFrame(h: Header, payload: Buffer): void;
  fail(e: Error): void;
}

/** Chunks of a stream the TS side lets the host send ahead (credits). */
const STREAM_WINDOW = 4;

/** Splits the host's stdout into frames. */
class FrameReader {
  private bufs: Buffer[] = [];
  private have = 0;
  constructor(private readonly onFrame: (h: Header, payload: Buffer) => void) {}

  push(b: Buffer): void {
    this.bufs.push(b);
    this.have += b.length;
    for (;;) {
      if (this.have < 4) return;
      const head = this.peek(4);
      const n = head.readUInt32BE(0);
      if (this.have < 4 + n) return;
      const all = this.take(4 + n).subarray(4);
      const nl = all.indexOf(10);
      this.onFrame(JSON.parse(all.toString('utf8', 0, nl)) as Header, all.subarray(nl + 1));
    }
  }

  private peek(n: number): Buffer {
    if (this.bufs[0].length >= n) return this.bufs[0];
    const b = Buffer.concat(this.bufs);
    this.bufs = [b];
    return b;
  }

  private take(n: number): Buffer {
    const first = this.bufs[0];
    if (first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.bufs.shift();
      else this.bufs[0] = first.subarray(n);
      this.have -= n;
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let off = 0;
    while (off < n) {
      const b = this.bufs[0];
      const k = Math.min(b.length, n - off);
      b.copy(out, off, 0, k);
      off += k;
      if (k === b.length) this.bufs.shift();
      else this.bufs[0] = b.subarray(k);
    }
    this.have -= n;
    return out;
  }
}

/** Capabilities of a chdb build from its package version (see the file header for the sources). */
export function capabilitiesFor(chdbVersion: string): EngineCapabilities {
  const [maj, min, pat] = chdbVersion.split('.').map((x) => Number(x));
  const atLeast = (a: number, b: number, c: number) =>
    maj > a || (maj === a && (min > b || (min === b && (pat ?? 0) >= c)));
  return {
    streaming: atLeast(3, 7, 2),
    concurrentSessions: atLeast(26, 1, 0),
    queryLog: false,
    perQueryEngine: maj < 3,
    systemParts: atLeast(2, 0, 0),
    jsonStatistics: atLeast(26, 5, 0),
  };
}

/** The host process and its open requests. */
class Host {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private stderrTail = '';
  dead: Error | undefined;

  constructor(
    private readonly child: ChildProcess,
    private readonly label: () => string,
    log: (msg: string) => void,
    onExit: (e: Error) => void,
  ) {
    const reader = new FrameReader((h, p) => {
      const r = h.id !== undefined ? this.pending.get(h.id) : undefined;
      if (r) r.onFrame(h, p);
    });
    child.stdout!.on('data', (b: Buffer) => reader.push(b));
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (s: string) => {
      this.stderrTail = (this.stderrTail + s).slice(-4000);
      for (const l of s.split('\n')) if (l.trim()) log(`host: ${l}`);
    });
    child.stdin!.on('error', () => {
      /* reported by 'exit' */
    });
    child.on('exit', (code, signal) => {
      const tail = this.stderrTail.trim().split('\n').slice(-8).join(' | ');
      this.dead = new Error(
        `Code: 1001. DB::Exception: the chdb host process (${this.label()}, pid ${child.pid}) exited ${signal ? `on signal ${signal}` : `with code ${code}`}; the engine is gone${tail ? `; its stderr ends: ${tail}` : ''}. (STD_EXCEPTION)`,
      );
      const all = [...this.pending.values()];
      this.pending.clear();
      for (const p of all) p.fail(this.dead);
      onExit(this.dead);
    });
  }

  /** Send one request; `handler` gets every frame answering it until it removes itself. */
  send(header: Record<string, unknown>, payload: Buffer | undefined, handler: Pending): number {
    if (this.dead) throw this.dead;
    const id = this.nextId++;
    this.pending.set(id, handler);
    this.write({ ...header, id }, payload);
    return id;
  }

  write(header: Record<string, unknown>, payload?: Buffer): void {
    if (this.dead) return;
    const h = Buffer.from(`${JSON.stringify(header)}\n`);
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32BE(h.length + (payload?.length ?? 0));
    this.child.stdin!.write(payload?.length ? Buffer.concat([len, h, payload]) : Buffer.concat([len, h]));
  }

  done(id: number): void {
    this.pending.delete(id);
  }

  /** One request, one answer. @throws Error with the host's `error` text */
  call(header: Record<string, unknown>, payload?: Buffer): Promise<{ h: Header; p: Buffer }> {
    return new Promise((resolve, reject) => {
      const id = this.send(header, payload, {
        onFrame: (h, p) => {
          this.done(id);
          if (h.ok) resolve({ h, p });
          else reject(new Error(String(h.error)));
        },
        fail: reject,
      });
    });
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  end(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.stdin!.end();
    });
  }
}

class PythonSession implements EngineSession {
  stream?: EngineSession['stream'];
  insert?: EngineSession['insert'];

  constructor(
    private readonly host: Host,
    private readonly sid: number,
    streaming: boolean,
    rawInsert: boolean,
  ) {
    if (streaming) this.stream = (sql, format, signal) => this.streamImpl(sql, format, signal);
    if (rawInsert)
      this.insert = async (req) => {
        const { h } = await this.host.call(
          { op: 'insert', session: this.sid, table: req.table, columns: req.columns ?? null, format: req.format },
          req.body,
        );
        return {
          rowsWritten: Number(h.rows_written),
          bytesWritten: Number(h.bytes_written),
          elapsedS: Number(h.elapsed),
        };
      };
  }

  async query(sql: string, format: string): Promise<QueryResult> {
    const { h, p } = await this.host.call({ op: 'query', session: this.sid, format }, Buffer.from(sql, 'utf8'));
    const r: QueryResult = {
      body: p,
      elapsedS: Number(h.elapsed),
      resultRows: Number(h.result_rows),
      resultBytes: Number(h.result_bytes),
    };
    if (typeof h.storage_rows_read === 'number' && typeof h.storage_bytes_read === 'number') {
      r.storageRowsRead = h.storage_rows_read;
      r.storageBytesRead = h.storage_bytes_read;
    }
    return r;
  }

  private async *streamImpl(sql: string, format: string, signal: AbortSignal): AsyncIterable<StreamChunk> {
    const host = this.host;
    const chunks: StreamChunk[] = [];
    let finished = false;
    let failure: Error | undefined;
    let wake: (() => void) | undefined;
    const poke = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const id = host.send({ op: 'stream', session: this.sid, format, window: STREAM_WINDOW }, Buffer.from(sql, 'utf8'), {
      onFrame: (h, p) => {
        if (h.chunk) chunks.push({ data: p, rows: Number(h.rows) });
        else {
          host.done(id);
          finished = true;
          if (!h.ok) failure = new Error(String(h.error));
        }
        poke();
      },
      fail: (e) => {
        finished = true;
        failure = e;
        poke();
      },
    });
    const onAbort = () => host.write({ op: 'cancel', id });
    signal.addEventListener('abort', onAbort);
    try {
      for (;;) {
        const c = chunks.shift();
        if (c) {
          host.write({ op: 'ack', id, n: 1 });
          yield c;
          continue;
        }
        if (finished) break;
        await new Promise<void>((r) => (wake = r));
      }
      if (failure && !signal.aborted) throw failure;
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (!finished) {
        // The consumer stopped early (client gone, KILL): stop the host's stream and wait for its end,
        // so that the connection is free for the next statement.
        host.write({ op: 'cancel', id });
        while (!finished) await new Promise<void>((r) => (wake = r));
      }
    }
  }

  async close(): Promise<void> {
    if (this.host.dead) return;
    await this.host.call({ op: 'close', session: this.sid });
  }
}

/**
 * Start `python host.py`, handshake, and return the driver.
 * @param opts.python the interpreter of the venv holding the build (`<dir>/bin/python`)
 * @param opts.log server log lines (the host's stderr is relayed, prefixed `host:`)
 * @param opts.onExit called once if the host process ends on its own (not after `shutdown`)
 * @param opts.maxResultBytes largest buffered result the host passes (default 1 GiB); larger → code 396
 * @throws Error when the interpreter cannot start or cannot import chdb (names the stderr tail)
 */
export async function createPythonDriver(opts: {
  python: string;
  log: (msg: string) => void;
  onExit?: (e: Error) => void;
  maxResultBytes?: number;
}): Promise<EngineDriver> {
  const args = ['-u', hostScript()];
  if (opts.maxResultBytes !== undefined) args.push('--max-result-bytes', String(opts.maxResultBytes));
  const child = spawn(opts.python, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let label = `python ${opts.python}`;
  let stopping = false;
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (e) => reject(new Error(`cannot run the chdb host with ${opts.python}: ${e.message}`))),
  );
  const host = new Host(
    child,
    () => label,
    opts.log,
    (e) => {
      if (!stopping) opts.onExit?.(e);
    },
  );
  const { h } = await Promise.race([host.call({ op: 'hello' }), spawnError]);
  const chdbVersion = String(h.chdb);
  const pkg = Number(chdbVersion.split('.')[0]) >= 26 ? 'chdb-core' : 'chdb';
  const packageLabel = `pypi ${pkg}==${chdbVersion}`;
  label = packageLabel;
  const capabilities = capabilitiesFor(chdbVersion);
  // Raw insert (the engine's rows/bytes written) where the build has Session.send_insert (chdb-core 26.x).
  const rawInsert = (h.features as { send_insert?: boolean } | undefined)?.send_insert === true;
  return {
    backend: 'python',
    chdbVersion,
    clickhouseVersion: String(h.clickhouse),
    packageLabel,
    capabilities,
    async openSession(dataPath) {
      const r = await host.call({ op: 'open', path: dataPath });
      return new PythonSession(host, Number(r.h.session), capabilities.streaming, rawInsert);
    },
    async shutdown() {
      stopping = true;
      await host.end();
    },
  };
}
