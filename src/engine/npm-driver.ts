/**
 * The in-process driver: the npm `chdb` package (ClickHouse 26.7.2 for chdb 3.4.0), loaded only when
 * the engine server starts (importing this module stays light).
 */
import type { RawInsertParams, Session } from 'chdb';
import type { EngineDriver, EngineSession, QueryResult, StreamChunk, InsertResult } from './driver';

function loadChdb(): typeof import('chdb') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('chdb') as typeof import('chdb');
}

class NpmSession implements EngineSession {
  constructor(private readonly s: Session) {}

  async query(sql: string, format: string): Promise<QueryResult> {
    const r = await this.s.queryAsync(sql, { format });
    const bytes = r.bytes();
    return {
      body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      elapsedS: r.elapsed,
      resultRows: r.rowsRead,
      resultBytes: r.bytesRead,
    };
  }

  async *stream(sql: string, format: string, signal: AbortSignal): AsyncIterable<StreamChunk> {
    const st = this.s.queryStream(sql, { format, signal });
    for await (const chunk of st) {
      const raw = chunk.raw();
      yield { data: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), rows: chunk.numRows };
    }
  }

  async insert(req: { table: string; columns?: string[]; format: string; body: Buffer }): Promise<InsertResult> {
    const r = await this.s.insert({
      table: req.table,
      columns: req.columns,
      values: req.body,
      format: req.format as RawInsertParams['format'],
    });
    return { rowsWritten: r.rowsWritten, bytesWritten: r.bytesWritten, elapsedS: r.elapsed };
  }

  async close(): Promise<void> {
    this.s.close();
  }
}

/** Load the npm chdb package. @throws Error when the native library cannot load */
export function createNpmDriver(): EngineDriver {
  const chdb = loadChdb();
  const v = chdb.version();
  return {
    backend: 'npm',
    chdbVersion: String(v.chdb),
    clickhouseVersion: String(v.libchdb).replace(/"/g, ''),
    packageLabel: `npm chdb@${v.chdb}`,
    capabilities: {
      streaming: true,
      concurrentSessions: true,
      queryLog: false,
      perQueryEngine: false,
      systemParts: true,
      jsonStatistics: true,
    },
    async openSession(dataPath) {
      return new NpmSession(new chdb.Session(dataPath));
    },
    async shutdown() {
      await chdb.drainPending();
    },
  };
}
