/**
 * The seam between the chbench engine server (`server.ts`: the ClickHouse HTTP interface, the
 * statement queue, KILL, progress) and the chdb build that executes SQL. Two drivers implement it:
 * - `npm-driver.ts`: the in-process npm `chdb` package (ClickHouse 26.7);
 * - `python-driver.ts`: a PyPI chdb build (23.10 … 26.9) hosted by a Python process
 *   (`python/host.py`), spoken to over framed stdin/stdout.
 *
 * Everything above this interface (settings per request, query_id, streaming with backpressure,
 * KILL of queued/streaming statements, the statement log) is shared by both drivers; what a build
 * cannot do is stated in {@link EngineCapabilities}, never silently emulated.
 */

/** Result of one buffered statement. */
export interface QueryResult {
  /** The formatted output, whole. */
  body: Buffer;
  /** Engine-measured elapsed time, seconds (chdb result `elapsed`). */
  elapsedS: number;
  /** Rows / bytes of the RESULT (chdb's `rows_read()` / `bytes_read()` are result sizes in every build). */
  resultRows: number;
  resultBytes: number;
  /** Rows / bytes the engine really read from storage (chdb `storage_rows_read()`, ≥ 3.7.2); absent when the build cannot say. */
  storageRowsRead?: number;
  storageBytesRead?: number;
}

/** One chunk of a streamed result (a block of at most `max_block_size` rows). */
export interface StreamChunk {
  data: Buffer;
  rows: number;
}

/** Result of chdb's raw insert (rows in a text format given as bytes). */
export interface InsertResult {
  rowsWritten: number;
  bytesWritten: number;
  elapsedS: number;
}

/** A connection of the engine to one data path. */
export interface EngineSession {
  /**
   * Run one statement and buffer its result.
   * @throws Error with the engine's message (`Code: N. DB::Exception: …`)
   */
  query(sql: string, format: string): Promise<QueryResult>;
  /**
   * Stream a SELECT's result chunk by chunk; undefined when the build cannot stream
   * ({@link EngineCapabilities.streaming} false). Aborting `signal` stops the stream between chunks.
   * @throws Error `Streaming query is not supported` (code 36) for statements the engine will not stream
   */
  stream?(sql: string, format: string, signal: AbortSignal): AsyncIterable<StreamChunk>;
  /** chdb's raw insert; undefined when the build has none (the server then sends `INSERT … FORMAT` with the rows as text). */
  insert?(req: { table: string; columns?: string[]; format: string; body: Buffer }): Promise<InsertResult>;
  close(): Promise<void>;
}

/** What a chdb build can do (said at start in `/chbench/info`, read by the target's capabilities). */
export interface EngineCapabilities {
  /** Results can be streamed chunk by chunk (npm 3.4.0; PyPI ≥ 3.7.2 via `send_query`). */
  streaming: boolean;
  /**
   * A second session can run while a statement runs: progress from `system.processes` and KILL
   * QUERY of a running statement (npm 3.4.0; PyPI ≥ 26.1). Without it `/chbench/running` carries no
   * counters (`progress_error` says why) and only queued/streaming statements can be killed.
   */
  concurrentSessions: boolean;
  /** `system.query_log` exists (PyPI 26.9 with a config file only). */
  queryLog: boolean;
  /** The engine re-opens its data for every statement (chdb 1.x, 2.x): caches are cold every query, mutations make no progress between statements. */
  perQueryEngine: boolean;
  /** `system.parts` exists (absent in chdb 1.4.1). */
  systemParts: boolean;
  /**
   * The statistics block of a JSON output format carries the real rows/bytes read (npm 3.4.0, PyPI
   * ≥ 26.5). Before 26.5 it says 0 whatever was read: then `read_rows`/`read_bytes` come only from
   * {@link QueryResult.storageRowsRead}, or are left unmeasured — never a 0 taken from that block.
   */
  jsonStatistics: boolean;
}

/** One loaded chdb build. */
export interface EngineDriver {
  /** `npm` (in-process package) or `python` (a PyPI build in a Python host process). */
  readonly backend: 'npm' | 'python';
  /** The chdb package version (e.g. `3.4.0`, `26.9.0`). */
  readonly chdbVersion: string;
  /** ClickHouse version of the engine as it reports it (`version()`), e.g. `26.7.2.1`. */
  readonly clickhouseVersion: string;
  /** Package spec, e.g. `npm chdb@3.4.0` or `pypi chdb-core==26.9.0`. */
  readonly packageLabel: string;
  readonly capabilities: EngineCapabilities;
  /**
   * Open a session on `dataPath` (several may be open at once on one path).
   * @throws Error when the engine cannot open the path
   */
  openSession(dataPath: string): Promise<EngineSession>;
  /** Close everything (after every session was closed). */
  shutdown(): Promise<void>;
}
