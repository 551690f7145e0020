/** Output and input formats as the engine server treats them: which stream, which carry statistics, content types, the JSON document splicer. */
import { ServerError } from './errors';
export const READ_LIKE = new Set(['SELECT', 'WITH', 'SHOW', 'DESC', 'DESCRIBE', 'EXPLAIN', 'EXISTS']);

/** Formats whose output ends with a statistics block holding the engine's rows_read/bytes_read. */
export const STATS_FORMATS = new Set([
  'JSON',
  'JSONCOMPACT',
  'JSONSTRINGS',
  'JSONCOMPACTSTRINGS',
  'JSONCOLUMNSWITHMETADATA',
  'XML',
]);

/**
 * Output formats streamed chunk by chunk (when the statement is a SELECT/WITH and the client did
 * not ask for wait_end_of_query or response compression). Row formats: chdb's chunks concatenate
 * as they are. JSON document formats: chdb writes every chunk as a complete document, so the
 * server splices them into one ({@link JsonDocSplicer}). Every other format is buffered.
 */
export const STREAM_ROW_FORMATS = new Set([
  'TABSEPARATED',
  'TSV',
  'TABSEPARATEDRAW',
  'TSVRAW',
  'CSV',
  'JSONEACHROW',
  'JSONLINES',
  'NDJSON',
  'JSONCOMPACTEACHROW',
  'JSONSTRINGSEACHROW',
  'JSONCOMPACTSTRINGSEACHROW',
  'ROWBINARY',
]);
export const JSON_DOC_FORMATS = new Set(['JSON', 'JSONCOMPACT', 'JSONSTRINGS', 'JSONCOMPACTSTRINGS']);

/**
 * Joins chdb's per-chunk JSON documents (each `{meta, data, rows, statistics}`, checked with chdb
 * 3.4.0) into the one document a server writes. It relies on chdb's layout, which does not depend
 * on whitespace settings: the `data` array opens with the raw bytes `\n\t"data":\n\t[` and closes
 * with `\n\t]` (a raw newline never occurs inside a JSON string, and nested values are indented
 * deeper), and every chunk repeats the first chunk's prefix (meta) byte for byte. A chunk that does
 * not fit fails the statement (never a silently wrong document).
 *
 * The end of the document is the last chunk's, with `rows` = the total, `rows_before_limit_at_least`
 * removed (chdb writes it per chunk) and a statistics block holding only `elapsed`: the server's
 * own clock from the start of the statement to its last chunk, in s (chdb's per-chunk statistics
 * carry rows_read = bytes_read = 0 and a per-chunk elapsed; those are not passed on).
 */
export class JsonDocSplicer {
  private prefix: Buffer | undefined;
  private suffix = '';
  private wroteRows = false;
  private n = 0;

  chunk(b: Buffer): Buffer {
    this.n++;
    if (!this.prefix) {
      const at = b.indexOf(DATA_OPEN);
      if (at < 0)
        throw new ServerError(
          1001,
          'STD_EXCEPTION',
          'the chbench embedded server cannot splice the streamed JSON chunks: no data array in the first chunk',
        );
      this.prefix = Buffer.from(b.subarray(0, at + DATA_OPEN.length));
    } else if (b.length < this.prefix.length || !b.subarray(0, this.prefix.length).equals(this.prefix)) {
      throw new ServerError(
        1001,
        'STD_EXCEPTION',
        `the chbench embedded server cannot splice the streamed JSON chunks: chunk ${this.n} does not repeat the first chunk's header`,
      );
    }
    const end = b.indexOf(DATA_CLOSE, this.prefix.length - 1);
    if (end < 0)
      throw new ServerError(
        1001,
        'STD_EXCEPTION',
        `the chbench embedded server cannot splice the streamed JSON chunks: chunk ${this.n} has no end of its data array`,
      );
    this.suffix = b.toString('utf8', end);
    const content = b.subarray(this.prefix.length, end);
    const empty = content.length === 0 || (content.length === 1 && content[0] === 0x0a);
    const parts: Buffer[] = [];
    if (this.n === 1) parts.push(this.prefix);
    if (!empty) {
      if (this.wroteRows) parts.push(COMMA);
      parts.push(content);
      this.wroteRows = true;
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }

  finish(rows: number, elapsedS: number): Buffer {
    let tail = this.suffix
      .replace(/"rows":\s*\d+/, `"rows": ${rows}`)
      .replace(/\n\t"rows_before_limit_at_least":\s*\d+,\n/, '\n')
      .replace(/"statistics":\s*\{[^}]*\}/, `"statistics":\n\t{\n\t\t"elapsed": ${elapsedS.toFixed(9)}\n\t}`);
    if (!this.wroteRows) tail = `\n${tail}`;
    return Buffer.from(tail);
  }
}
const DATA_OPEN = Buffer.from('\n\t"data":\n\t[');
const DATA_CLOSE = Buffer.from('\n\t]');
const COMMA = Buffer.from(',');

/** Text formats chdb's raw insert accepts (case as chdb wants it). */
export const RAW_INSERT_FORMATS: Record<
  string,
  | 'JSONEachRow'
  | 'JSONCompactEachRow'
  | 'CSV'
  | 'CSVWithNames'
  | 'TSV'
  | 'TabSeparated'
  | 'TSVWithNames'
  | 'TabSeparatedWithNames'
> = {
  JSONEACHROW: 'JSONEachRow',
  JSONCOMPACTEACHROW: 'JSONCompactEachRow',
  CSV: 'CSV',
  CSVWITHNAMES: 'CSVWithNames',
  TSV: 'TSV',
  TABSEPARATED: 'TabSeparated',
  TSVWITHNAMES: 'TSVWithNames',
  TABSEPARATEDWITHNAMES: 'TabSeparatedWithNames',
};

/** Input formats that are binary: their body cannot travel through queryAsync's string argument. */
export const BINARY_FORMAT_RE =
  /^(ROWBINARY|NATIVE|PARQUET|ARROW|ARROWSTREAM|ORC|AVRO|MSGPACK|PROTOBUF|PROTOBUFSINGLE|CAPNPROTO|BSONEACHROW|NPY|RAWBLOB)/;

export function contentTypeFor(format: string): string {
  const f = format.toUpperCase();
  if (f.startsWith('TABSEPARATED') || f.startsWith('TSV')) return 'text/tab-separated-values; charset=UTF-8';
  if (f.startsWith('CSV')) return `text/csv; charset=UTF-8; header=${f.includes('WITHNAMES') ? 'present' : 'absent'}`;
  if (f.includes('EACHROW') || f === 'JSONLINES' || f === 'NDJSON') return 'application/x-ndjson; charset=UTF-8';
  if (f.startsWith('JSON')) return 'application/json; charset=UTF-8';
  if (f === 'XML') return 'application/xml; charset=UTF-8';
  if (BINARY_FORMAT_RE.test(f)) return 'application/octet-stream';
  return 'text/plain; charset=UTF-8';
}

/** Engine-measured rows/bytes read from a JSON/XML statistics block at the end of the output. */
export function statisticsFromOutput(format: string, out: Buffer): { rows: string; bytes: string } | undefined {
  if (!STATS_FORMATS.has(format.toUpperCase())) return undefined;
  const tail = out.subarray(Math.max(0, out.length - 600)).toString('utf8');
  if (format.toUpperCase() === 'XML') {
    const r = /<rows_read>(\d+)<\/rows_read>/.exec(tail);
    const b = /<bytes_read>(\d+)<\/bytes_read>/.exec(tail);
    return r && b ? { rows: r[1], bytes: b[1] } : undefined;
  }
  const at = tail.lastIndexOf('"statistics":');
  if (at < 0) return undefined;
  const block = tail.slice(at);
  const r = /"rows_read":\s*"?(\d+)/.exec(block);
  const b = /"bytes_read":\s*"?(\d+)/.exec(block);
  return r && b ? { rows: r[1], bytes: b[1] } : undefined;
}
