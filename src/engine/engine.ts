/** The engine: executes one statement (settings, database, parameters, stream or buffer) on a driver's sessions, and reads the executing statement's progress. */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sqlIdent, sqlString } from '../lib/sql';
import type { EngineDriver, EngineSession } from './driver';
import { JSON_DOC_FORMATS, JsonDocSplicer, READ_LIKE, RAW_INSERT_FORMATS, statisticsFromOutput } from './formats';
import type { StatementQueue } from './queue';
import { analyzeSql, withOutfile, type SqlShape } from './sql-shape';

/**
 * Where a streamed result goes (the HTTP response). The engine calls `start` before the first
 * bytes, then `write` (resolves when the response can take more: backpressure), then `end`.
 */
export interface StreamSink {
  /** Aborted when the client disconnects or a KILL QUERY names the statement. */
  signal: AbortSignal;
  /** Headers went out (status 200): a later failure can only be written into the body. */
  started: boolean;
  start(summary: Record<string, string>, unmeasured: string[]): void;
  write(b: Buffer): Promise<void>;
  end(): void;
}

/** One statement to execute. */
export interface Job {
  queryId: string;
  sql: string;
  shape: SqlShape;
  /** Raw body of an `INSERT … FORMAT <text format>` request handled by chdb's raw insert. */
  rawInsert?: { table: string; columns?: string[]; format: (typeof RAW_INSERT_FORMATS)[string]; body: Buffer };
  /**
   * Body of an `INSERT … FORMAT <binary format>` request (RowBinary, Native, …): written to a file
   * under the data directory and inserted with `INSERT … FROM INFILE`, since chdb's query text cannot
   * carry binary bytes. The file is removed when the statement ends.
   */
  fileInsert?: { table: string; columns?: string[]; format: string; body: Buffer };
  database: string;
  format: string;
  settings: [string, string][];
  params: [string, string][];
  /** Stream the result into this sink (SELECT/WITH in a streamable format without wait_end_of_query). */
  sink?: StreamSink;
  /**
   * Buffer the result in this file instead of memory (a buffered SELECT/WITH): the statement runs
   * as `… INTO OUTFILE '<file>' FORMAT …` (see {@link withOutfile}), still through the driver's
   * `query()`, so elapsed and the result's rows come from the engine. The caller sends the file and
   * removes it; the engine removes it only when the statement fails.
   */
  resultFile?: string;
}

/** Result of one statement. */
export interface Outcome {
  /** The result was streamed into the job's sink (nothing left to send); `body` is empty. */
  streamed?: boolean;
  /** The result is in this file (`Job.resultFile`), `bytes` long; `body` is empty. */
  file?: { path: string; bytes: number };
  body: Buffer;
  format: string;
  summary: Record<string, string>;
  unmeasured: string[];
}

export const SUMMARY_FIELDS = [
  'read_rows',
  'read_bytes',
  'written_rows',
  'written_bytes',
  'total_rows_to_read',
  'result_rows',
  'result_bytes',
  'elapsed_ns',
];

// ---------------------------------------------------------------------------------------------
// Progress of the executing statement (for GET /chbench/running)

/**
 * Reads `system.processes` through its own session on the same data path (opened on first use), when
 * the driver can run a second session beside a running statement; otherwise every counter is null
 * and `progress_error` names the build that cannot.
 */
export class ProgressMonitor {
  private s: EngineSession | undefined;
  constructor(
    private readonly driver: EngineDriver,
    private readonly dataPath: string,
  ) {}

  /** `list()` with progress counters on the executing entry. */
  async running(queue: StatementQueue): Promise<Record<string, unknown>[]> {
    const entries: Record<string, unknown>[] = queue.list();
    const run = entries.find((e) => e.state === 'running');
    if (!run) return entries;
    const empty = {
      read_rows: null,
      total_rows_approx: null,
      written_rows: null,
      elapsed_ms: null,
      memory_usage: null,
      merges_rows_read: null,
      merges_progress: null,
      parts_to_do: null,
    };
    if (!this.driver.capabilities.concurrentSessions) {
      Object.assign(run, empty, {
        progress_error: `${this.driver.packageLabel} (ClickHouse ${this.driver.clickhouseVersion}) cannot open a second session while a statement runs: no progress counters`,
      });
      return entries;
    }
    try {
      this.s ??= await this.driver.openSession(this.dataPath);
      const r = await this.s.query(
        `SELECT query, read_rows, total_rows_approx, written_rows, elapsed, memory_usage,
           (SELECT sum(rows_read) + sum(rows_written) FROM system.merges) AS merges_rows,
           (SELECT sum(progress) FROM system.merges) AS merges_progress,
           (SELECT sum(parts_to_do) FROM system.mutations WHERE is_done = 0) AS parts_to_do
         FROM system.processes WHERE query_id != queryID()`,
        'JSONEachRow',
      );
      const rows = r.body
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Record<string, string | number>);
      const head = String(run.sql_head).trim().slice(0, 100);
      const row =
        rows.find((x) => String(x.query).trim().startsWith(head)) ?? (rows.length === 1 ? rows[0] : undefined);
      if (!row)
        Object.assign(run, empty, {
          progress_error: rows.length
            ? `${rows.length} statements in system.processes, none matches the executing one`
            : 'the executing statement is not in system.processes (starting or finishing)',
        });
      else
        Object.assign(run, {
          read_rows: Number(row.read_rows),
          total_rows_approx: Number(row.total_rows_approx),
          written_rows: Number(row.written_rows),
          elapsed_ms: Math.round(Number(row.elapsed) * 1000),
          memory_usage: Number(row.memory_usage),
          merges_rows_read: Number(row.merges_rows),
          merges_progress: Number(row.merges_progress),
          parts_to_do: Number(row.parts_to_do),
        });
    } catch (e) {
      Object.assign(run, empty, {
        progress_error: `system.processes unreadable: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`,
      });
    }
    return entries;
  }

  /**
   * KILL QUERY a running buffered statement from the monitor's second session (drivers with
   * `concurrentSessions` only). chdb gives the statement its own query_id: it is found in
   * `system.processes` by its SQL text (`sqlHead`'s first 100 characters), as `running()` does.
   * @returns the engine's query_id of the statement that was told to stop
   * @throws ServerError-shaped Error (`Code: N. DB::Exception: …`) when it is not found or the KILL fails
   */
  async kill(sqlHead: string, sync: boolean): Promise<string> {
    this.s ??= await this.driver.openSession(this.dataPath);
    const r = await this.s.query(
      'SELECT query_id, query FROM system.processes WHERE query_id != queryID()',
      'JSONEachRow',
    );
    const rows = r.body
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { query_id: string; query: string });
    const head = sqlHead.trim().slice(0, 100);
    const row = rows.find((x) => x.query.trim().startsWith(head)) ?? (rows.length === 1 ? rows[0] : undefined);
    if (!row)
      throw new Error(
        `Code: 1001. DB::Exception: the executing statement is not in system.processes of ${this.driver.packageLabel} (${rows.length} other statements there): not killed. (STD_EXCEPTION)`,
      );
    await this.s.query(
      `KILL QUERY WHERE query_id = ${sqlString(row.query_id)} ${sync ? 'SYNC' : 'ASYNC'}`,
      'TabSeparated',
    );
    return row.query_id;
  }

  async close(): Promise<void> {
    await this.s?.close();
    this.s = undefined;
  }
}

export class Engine {
  private main!: EngineSession;
  timezone = 'UTC';

  constructor(
    readonly driver: EngineDriver,
    readonly dataPath: string,
    readonly queue: StatementQueue,
    private readonly log: (msg: string) => void,
  ) {}

  /**
   * Settings a `SET compatibility = …` can change on this version, minus those the session starts
   * with changed: `SET compatibility = DEFAULT` does not put them back (checked on 24.8 and 25.8: after
   * `SET compatibility = '24.8'` and `= DEFAULT`, `output_format_json_quote_64bit_integers` and
   * `use_query_condition_cache` keep 24.8's values), so a statement pinned to another version's
   * defaults would leak them into every later statement of the session. Read once at init from
   * `system.settings_changes` (empty where the table does not exist) and `system.settings`.
   */
  private compatibilityDerived: string[] = [];

  /** Open the main session and read the engine's timezone (and the settings `compatibility` derives). */
  async init(): Promise<void> {
    this.main = await this.driver.openSession(this.dataPath);
    const r = await this.main.query('SELECT timezone()', 'TabSeparated');
    this.timezone = r.body.toString('utf8').trim();
    try {
      const rows = (q: string) =>
        this.main.query(q, 'JSONEachRow').then((x) =>
          x.body
            .toString('utf8')
            .split('\n')
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l) as Record<string, unknown>),
        );
      const settings = await rows('SELECT name, toUInt8(changed) AS changed FROM system.settings');
      const known = new Set(settings.filter((x) => Number(x.changed) === 0).map((x) => String(x.name)));
      const changes = await rows(
        'SELECT changes FROM system.settings_changes' +
          ((
            await rows(
              "SELECT name FROM system.columns WHERE database = 'system' AND table = 'settings_changes' AND name = 'type'",
            )
          ).length
            ? " WHERE type = 'Session'"
            : ''),
      );
      const names = new Set<string>();
      for (const c of changes)
        for (const e of (c.changes as unknown[]) ?? []) {
          const n = Array.isArray(e) ? e[0] : (e as { name?: unknown }).name;
          if (typeof n === 'string' && known.has(n) && n !== 'compatibility') names.add(n);
        }
      this.compatibilityDerived = [...names].sort();
    } catch {
      this.compatibilityDerived = []; // no system.settings_changes (23.10): compatibility derives nothing listed
    }
  }

  async close(): Promise<void> {
    await this.main.close();
  }

  /** Execute inside the mutex (the caller holds it). */
  async execute(job: Job): Promise<Outcome> {
    const transient = job.params.length > 0 || job.shape.first === 'SET' || job.shape.first === 'USE';
    const s = transient ? await this.driver.openSession(this.dataPath) : this.main;
    const applied: string[] = [];
    let usedDb = false;
    let poisoned = false;
    try {
      if (job.database !== 'default') {
        await s.query(`USE ${sqlIdent(job.database)}`, 'TabSeparated');
        usedDb = true;
      }
      for (const [k, v] of job.settings) {
        applied.push(k); // reset even if this SET failed half-way
        await s.query(`SET ${k} = ${sqlString(v)}`, 'TabSeparated');
      }
      for (const [k, v] of job.params) await s.query(`SET param_${k} = ${sqlString(v)}`, 'TabSeparated');
      return await this.run(s, job);
    } finally {
      if (transient) {
        await s.close();
      } else {
        for (const k of applied) {
          try {
            await s.query(`SET ${k} = DEFAULT`, 'TabSeparated');
          } catch (e) {
            // An unknown setting was never applied; anything else leaves the session in doubt.
            if (!/UNKNOWN_SETTING/.test(String((e as Error).message))) poisoned = true;
          }
        }
        // `compatibility` changed other defaults that `= DEFAULT` leaves changed: reset them in one SET
        // (a SET reads no rows, so the system.events difference around the run stays the run's own).
        const derived = this.compatibilityDerived.filter((k) => !job.settings.some(([n]) => n === k));
        if (applied.includes('compatibility') && derived.length) {
          try {
            await s.query(`SET ${derived.map((k) => `${k} = DEFAULT`).join(', ')}`, 'TabSeparated');
          } catch {
            poisoned = true;
          }
        }
        if (usedDb || job.shape.first === 'DROP' || job.shape.first === 'RENAME' || job.shape.first === 'DETACH') {
          try {
            await s.query('USE default', 'TabSeparated');
          } catch {
            poisoned = true;
          }
        }
        if (poisoned) await this.renewMain();
      }
    }
  }

  /** Replace the main session by a fresh one on the same data (same-path sessions coexist). */
  private async renewMain(): Promise<void> {
    this.log('resetting a setting or the database failed: replacing the chdb session');
    const old = this.main;
    this.main = await this.driver.openSession(this.dataPath);
    await old.close();
  }

  /**
   * Stream a SELECT's result into the sink with chdb's `queryStream` (one chunk in memory at a
   * time, each written with backpressure while the mutex is held). Headers go out with the first
   * chunk, so an error before it is an ordinary HTTP error. Returns undefined when chdb cannot
   * stream this statement (code 36 "Streaming query is not supported", before any output): the
   * caller then runs it buffered.
   */
  private async stream(s: EngineSession, job: Job, sink: StreamSink): Promise<Outcome | undefined> {
    if (!s.stream) return undefined;
    const t0 = performance.now();
    let st: AsyncIterable<{ data: Buffer; rows: number }>;
    try {
      st = s.stream(job.sql, job.format, sink.signal);
    } catch (e) {
      if (/Streaming query is not supported/.test(String((e as Error)?.message))) return undefined;
      throw e;
    }
    const splicer = JSON_DOC_FORMATS.has(job.format.toUpperCase()) ? new JsonDocSplicer() : undefined;
    const unmeasured = [...SUMMARY_FIELDS];
    let rows = 0;
    try {
      for await (const chunk of st) {
        const buf = chunk.data;
        rows += chunk.rows;
        const out = splicer ? splicer.chunk(buf) : buf;
        if (!sink.started) sink.start({}, unmeasured);
        if (out.length) await sink.write(out);
        if (sink.signal.aborted) break;
      }
    } catch (e) {
      if (sink.signal.aborted) throw sink.signal.reason;
      if (!sink.started && /Streaming query is not supported/.test(String((e as Error)?.message))) return undefined;
      throw e;
    }
    if (sink.signal.aborted) throw sink.signal.reason;
    const elapsedS = (performance.now() - t0) / 1000;
    if (!sink.started) sink.start({}, unmeasured);
    if (splicer) await sink.write(splicer.finish(rows, elapsedS));
    sink.end();
    return { streamed: true, body: Buffer.alloc(0), format: job.format, summary: {}, unmeasured };
  }

  private async run(s: EngineSession, job: Job): Promise<Outcome> {
    const summary: Record<string, string> = {};
    let outFile: Outcome['file'];
    let body: Buffer = Buffer.alloc(0);
    if (job.rawInsert && s.insert) {
      const r = await s.insert({
        table: job.rawInsert.table,
        columns: job.rawInsert.columns,
        body: job.rawInsert.body,
        format: job.rawInsert.format,
      });
      body = Buffer.alloc(0);
      summary.written_rows = String(r.rowsWritten);
      summary.written_bytes = String(r.bytesWritten);
      summary.elapsed_ns = String(Math.round(r.elapsedS * 1e9));
    } else if (job.sink) {
      const streamed = await this.stream(s, job, job.sink);
      if (streamed) return streamed;
    }
    if (job.fileInsert) {
      const fi = job.fileInsert;
      const dir = path.join(this.dataPath, '..', 'insert-bodies');
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${randomUUID()}.bin`);
      fs.writeFileSync(file, fi.body);
      try {
        const cols = fi.columns ? ` (${fi.columns.map(sqlIdent).join(', ')})` : '';
        const r = await s.query(
          `INSERT INTO ${fi.table}${cols} FROM INFILE ${sqlString(file)} FORMAT ${fi.format}`,
          job.format,
        );
        summary.elapsed_ns = String(Math.round(r.elapsedS * 1e9));
      } finally {
        fs.rmSync(file, { force: true });
      }
      return { body, format: job.format, summary, unmeasured: SUMMARY_FIELDS.filter((f) => !(f in summary)) };
    }
    if (!job.rawInsert || !s.insert) {
      // A build without raw insert gets the rows as the statement's text (`INSERT … FORMAT f\n<rows>`).
      let sql = job.rawInsert && !s.insert ? `${job.sql}\n${job.rawInsert.body.toString('utf8')}` : job.sql;
      const toFile = job.resultFile !== undefined && !job.rawInsert && !job.fileInsert;
      if (toFile) sql = withOutfile(sql, analyzeSql(sql), sqlString(job.resultFile!), job.format);
      let r;
      let stats: { rows: string; bytes: string } | undefined;
      try {
        r = await s.query(sql, job.format);
        if (toFile) {
          const bytes = fs.existsSync(job.resultFile!) ? fs.statSync(job.resultFile!).size : 0;
          if (!fs.existsSync(job.resultFile!)) fs.writeFileSync(job.resultFile!, '');
          outFile = { path: job.resultFile!, bytes };
          stats = statisticsFromOutput(job.format, fileTail(job.resultFile!, bytes, 4096));
        }
      } catch (e) {
        if (toFile) fs.rmSync(job.resultFile!, { force: true });
        throw e;
      }
      body = toFile ? Buffer.alloc(0) : r.body;
      if (!toFile) stats = statisticsFromOutput(job.format, body);
      if (r.storageRowsRead !== undefined && r.storageBytesRead !== undefined) {
        summary.read_rows = String(r.storageRowsRead);
        summary.read_bytes = String(r.storageBytesRead);
      } else if (stats && this.driver.capabilities.jsonStatistics) {
        summary.read_rows = stats.rows;
        summary.read_bytes = stats.bytes;
      }
      if (READ_LIKE.has(job.shape.first)) {
        summary.result_rows = String(r.resultRows);
        summary.result_bytes = String(r.resultBytes);
      }
      summary.elapsed_ns = String(Math.round(r.elapsedS * 1e9));
    }
    return {
      body,
      ...(outFile ? { file: outFile } : {}),
      format: job.format,
      summary,
      unmeasured: SUMMARY_FIELDS.filter((f) => !(f in summary)),
    };
  }
}

/** The last `max` bytes of a `size`-byte file (where a JSON/XML format writes its statistics block). */
function fileTail(file: string, size: number, max: number): Buffer {
  const n = Math.min(size, max);
  const b = Buffer.alloc(n);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, b, 0, n, size - n);
  } finally {
    fs.closeSync(fd);
  }
  return b;
}
