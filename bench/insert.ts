/**
 * Benchmark of chbench's inserter itself (issue 11): in one run, against the same server and the same
 * rows, how fast chbench's inserter (`prepareBatches` + `runInsertLoop`, src/measure/insert-load.ts)
 * pushes rows compared with `clickhouse-client` inserting the same rows from a file (the floor of what
 * a client can push) and with the Python client `clickhouse-connect` sending the same batches.
 *
 * Servers: Debian's clickhouse-server 18.16 (`local` target, workload `logs-legacy`) and the embedded
 * engine (chdb, workload `logs`). Rows `INSERT_BENCH_ROWS` (default 1,000,000) in batches of
 * `INSERT_BENCH_BATCH` (default 100,000), format `INSERT_BENCH_FORMAT` (default RowBinary; a server
 * that refuses it, the embedded engine, gets JSONEachRow and the file says why). Each inserter writes
 * into its own fresh table (the workload's schema.sql, codec LZ4).
 *
 * Method, per inserter: one warm-up run (not counted) and {@link BEST_OF} measured runs; before each
 * run `TRUNCATE TABLE`, after it `SELECT count(), sum(cityHash64(<columns>))` must give the row count
 * and the checksum of chbench's first run (the same rows); rows/s = rows / wall seconds, the best run
 * counts, every run is kept. Wall: this process's `performance.now()` around the inserter (the child
 * process from spawn to exit for clickhouse-client and curl; the Python script's `perf_counter`
 * around its batch loop, preparing excluded).
 *
 * Writes bench/results/insert.json and prints a table. Run: `npm run bench:insert`. Figures depend on
 * the machine and its load (a shared 2-core box: server and clients share the cores);
 * `load_average_1m` is recorded.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ClickHouseClient } from '@clickhouse/client';
import { authHeaders, connect, queryRows, queryScalar, targetPassword } from '../src/clickhouse/client';
import { sqlString } from '../src/lib/sql';
import { loadWorkload, renderTemplate } from '../src/lib/workload';
import { prepareBatches, runInsertLoop, type PreparedBatches } from '../src/measure/insert-load';
import { provisionEmbedded, teardownEmbedded } from '../src/targets/embedded';
import { provisionLocal, teardownLocal } from '../src/targets/local';
import { readLabel } from '../src/targets/process';
import type { TargetHandle } from '../src/schema/target';

const ROOT = path.join(__dirname, '..', '..');
const ROWS = Number(process.env.INSERT_BENCH_ROWS ?? 1_000_000);
const BATCH = Number(process.env.INSERT_BENCH_BATCH ?? 100_000);
const FORMAT = (process.env.INSERT_BENCH_FORMAT ?? 'RowBinary') as PreparedBatches['format'];
/** Measured runs per inserter (after one warm-up run). */
const BEST_OF = 3;
const PYTHON = path.join(ROOT, '.venv', 'bin', 'python');
const PYTHON_SCRIPT = path.join(ROOT, 'bench', 'insert_python.py');
const SERVER_CANDIDATES = ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'];
/** Goals of issue 11: chbench's rows/s over the other's. */
const GOAL = { chbench_vs_clickhouse_client: 0.8, chbench_vs_python: 1 };

/** One run of one inserter. */
interface Run {
  warmup: boolean;
  wall_ms: number;
  rows_per_s: number;
  /** `count()` of the table after the run. */
  count: number;
  /** `sum(cityHash64(<columns>))` of the table after the run (string: UInt64). */
  checksum: string;
  [extra: string]: unknown;
}

/** One inserter on one server: its runs and best rate, or why there is none. */
interface Measurement {
  /** What exactly was timed. */
  how: string;
  table?: string;
  runs: Run[];
  /** Best measured run, rows/s (null: no valid measurement). */
  best_rows_per_s: number | null;
  /** Every run counted `rows` rows with chbench's checksum. */
  verified: boolean;
  not_applicable?: string;
  error?: string;
  [extra: string]: unknown;
}

/** What one inserter does once; resolves with its wall time and anything worth keeping. */
type RunOnce = () => Promise<{ wall_ms: number; extra?: Record<string, unknown> }>;

/** A server under test. */
interface ServerCase {
  name: string;
  workload: string;
  provision: (workDir: string) => Promise<TargetHandle>;
  teardown: (h: TargetHandle) => Promise<void>;
}

function serverBinary(): string {
  const fromEnv = process.env.CHBENCH_CLICKHOUSE_SERVER;
  const found = fromEnv ?? SERVER_CANDIDATES.find((p) => fs.existsSync(p));
  if (!found || !fs.existsSync(found))
    throw new Error(
      `no clickhouse-server binary (CHBENCH_CLICKHOUSE_SERVER or ${SERVER_CANDIDATES.join(', ')}); run scripts/setup.sh --with-debian-clickhouse`,
    );
  return found;
}

const ident = (s: string) => `\`${s.replace(/`/g, '\\`')}\``;

/** Output of a command, or the first line of its error. */
function versionOf(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .trim()
      .split('\n')[0];
  } catch (e) {
    return `not available: ${(e as Error).message.split('\n')[0]}`;
  }
}

/** Run a child process with stdin from `stdinFile` (or none); wall ms from spawn to exit. @throws Error with its stderr on a non-zero exit. */
/**
 * The server's credential as the two command-line clients read it from files (mode 0600, in a 0700
 * folder of their own; never on a command line): a curl header file and a clickhouse-client config.
 */
function credentialFiles(handle: TargetHandle): { curlHeaders: string; clientConfig: string } {
  const dir = path.join(os.tmpdir(), `chbench-insert-cred-${process.pid}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const password = targetPassword(handle);
  const curlHeaders = path.join(dir, 'curl-headers');
  const clientConfig = path.join(dir, 'client.xml');
  fs.writeFileSync(curlHeaders, `X-ClickHouse-User: ${handle.username}\nX-ClickHouse-Key: ${password}\n`, {
    mode: 0o600,
  });
  fs.writeFileSync(clientConfig, `<config><user>${handle.username}</user><password>${password}</password></config>\n`, {
    mode: 0o600,
  });
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return { curlHeaders, clientConfig };
}

function timedChild(cmd: string, args: string[], stdinFile?: string): Promise<{ wall_ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const fd = stdinFile ? fs.openSync(stdinFile, 'r') : 'ignore';
    const t0 = performance.now();
    const p = spawn(cmd, args, { stdio: [fd, 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      const wall_ms = performance.now() - t0;
      if (typeof fd === 'number') fs.closeSync(fd);
      if (code === 0) resolve({ wall_ms, stdout: out });
      else reject(new Error(`${path.basename(cmd)} exited ${code}: ${(err || out).trim().slice(0, 800)}`));
    });
  });
}

/**
 * The generating SELECT of each batch: the workload's load.sql (`INSERT INTO t (cols) SELECT … FROM
 * numbers[_mt](rows)`) with its source replaced by `numbers(offset, n)`, the slices chbench's
 * `prepareBatches` generates. @throws Error when load.sql does not have that shape.
 */
function batchSelects(workload: string, batchRows: number[]): string[] {
  const sql = renderTemplate(workload, 'load.sql', { table: 'x', rows: ROWS, codec: 'LZ4' });
  const m = /^INSERT\s+INTO\s+\S+\s*\([^)]*\)\s*([\s\S]*)$/i.exec(sql);
  const src = /\bnumbers(?:_mt)?\s*\(\s*\d+\s*\)/gi;
  if (!m || (m[1].match(src) ?? []).length !== 1)
    throw new Error(`workload ${workload}: load.sql is not INSERT INTO t (cols) SELECT … FROM numbers(N)`);
  let offset = 0;
  return batchRows.map((n) => {
    const s = m[1].replace(src, `numbers(${offset}, ${n})`);
    offset += n;
    return s;
  });
}

/** `SELECT count(), sum(cityHash64(cols))` of a table: the verification of every run. */
const verifySql = (table: string, columns: string[]) =>
  `SELECT count() AS c, toString(sum(cityHash64(${columns.map(ident).join(', ')}))) AS h FROM ${ident(table)}`;

async function verify(client: ClickHouseClient, table: string, columns: string[]) {
  const [r] = await queryRows<{ c: string | number; h: string }>(client, verifySql(table, columns));
  return { count: Number(r.c), checksum: r.h };
}

/**
 * Warm-up plus {@link BEST_OF} runs of one inserter into `table` (truncated before each run), each
 * verified; the first failure ends the measurement and is recorded.
 */
async function measure(
  client: ClickHouseClient,
  table: string,
  columns: string[],
  how: string,
  once: RunOnce,
  reference: { checksum?: string },
): Promise<Measurement> {
  const m: Measurement = { how, table, runs: [], best_rows_per_s: null, verified: false };
  try {
    for (let i = 0; i <= BEST_OF; i++) {
      await client.command({ query: `TRUNCATE TABLE ${ident(table)}` });
      const r = await once();
      const v = await verify(client, table, columns);
      reference.checksum ??= v.checksum;
      m.runs.push({
        warmup: i === 0,
        wall_ms: Math.round(r.wall_ms),
        rows_per_s: Math.round(ROWS / (r.wall_ms / 1000)),
        ...v,
        ...r.extra,
      });
      if (v.count !== ROWS) throw new Error(`run ${i}: count() = ${v.count}, expected ${ROWS}`);
      if (v.checksum !== reference.checksum)
        throw new Error(
          `run ${i}: checksum ${v.checksum} differs from chbench's ${reference.checksum}: not the same rows`,
        );
    }
    m.verified = true;
    m.best_rows_per_s = Math.max(...m.runs.filter((r) => !r.warmup).map((r) => r.rows_per_s));
  } catch (e) {
    m.error = (e as Error).message;
  }
  console.log(`  ${table}: ${m.best_rows_per_s ?? m.error}`);
  return m;
}

/** The Python client (bench/insert_python.py) on `table`; its own runs, verified the same way. */
async function measurePython(
  client: ClickHouseClient,
  handle: TargetHandle,
  table: string,
  columns: string[],
  selects: string[],
  mode: 'insert' | 'json_raw',
  patch: boolean,
  reference: { checksum?: string },
): Promise<Measurement> {
  const how =
    mode === 'insert'
      ? `clickhouse-connect client.insert(table, rows, column_names=…) per batch, sequentially (Native over HTTP${patch ? '; its start-up query on system.settings patched (readonly → 0 AS readonly) and column_type_names given, so it skips DESCRIBE TABLE' : ''}); rows prepared as Python tuples by client.query of each batch's generating SELECT, not timed; wall = perf_counter around the batch loop`
      : `clickhouse-connect client.raw_insert(table, columns, <JSONEachRow encoded by the script>, fmt="JSONEachRow") per batch, sequentially; encoding timed; rows prepared as Python tuples by client.query, not timed`;
  const m: Measurement = { how, table, runs: [], best_rows_per_s: null, verified: false };
  const url = new URL(handle.url);
  const jobFile = path.join(os.tmpdir(), `chbench-insert-py-${randomUUID()}.json`);
  fs.writeFileSync(
    jobFile,
    JSON.stringify({
      host: url.hostname,
      port: Number(url.port),
      username: handle.username,
      // The server's credential (the job file is 0600 and removed after the run; never an argument).
      password: targetPassword(handle),
      database: handle.database,
      table,
      columns,
      selects,
      verify_sql: verifySql(table, columns),
      runs: BEST_OF,
      mode,
      patch_settings_probe: patch,
      ...(patch ? { column_type_names: await columnTypes(client, handle, table, columns) } : {}),
    }),
    { mode: 0o600 },
  );
  try {
    const { stdout } = await timedChild(PYTHON, [PYTHON_SCRIPT, jobFile]);
    const r = JSON.parse(stdout) as {
      client?: string;
      error?: string;
      stage?: string;
      patched?: string;
      prepare_s?: number;
      runs?: { warmup: boolean; wall_s: number; batch_s: number[]; count: number; checksum: string }[];
    };
    m.client = r.client;
    if (r.patched) m.patched = r.patched;
    if (r.prepare_s !== undefined) m.prepare_ms_not_timed = Math.round(r.prepare_s * 1000);
    for (const run of r.runs ?? [])
      m.runs.push({
        warmup: run.warmup,
        wall_ms: Math.round(run.wall_s * 1000),
        rows_per_s: Math.round(ROWS / run.wall_s),
        count: run.count,
        checksum: run.checksum,
        batch_ms: run.batch_s.map((s) => Math.round(s * 1000)),
      });
    const bad = m.runs.find((x) => x.count !== ROWS || x.checksum !== reference.checksum);
    if (r.error) m.error = `${r.stage}: ${r.error}`;
    else if (bad)
      m.error = `a run left count() = ${bad.count} (expected ${ROWS}), checksum ${bad.checksum} (chbench's ${reference.checksum})`;
    else {
      m.verified = true;
      m.best_rows_per_s = Math.max(...m.runs.filter((x) => !x.warmup).map((x) => x.rows_per_s));
    }
  } catch (e) {
    m.error = (e as Error).message;
  } finally {
    fs.rmSync(jobFile, { force: true });
  }
  console.log(`  python ${mode}${patch ? ' (patched)' : ''}: ${m.best_rows_per_s ?? m.error}`);
  return m;
}

/** Type names of `columns` of `table` (system.columns), in that order. */
async function columnTypes(
  client: ClickHouseClient,
  handle: TargetHandle,
  table: string,
  columns: string[],
): Promise<string[]> {
  const rows = await queryRows<{ name: string; type: string }>(
    client,
    `SELECT name, type FROM system.columns WHERE database = ${sqlString(handle.database)} AND table = ${sqlString(table)}`,
  );
  const byName = new Map(rows.map((r) => [r.name, r.type]));
  return columns.map((c) => byName.get(c) ?? 'String');
}

/** The rows the server takes in `FORMAT`: a 1-row probe insert; JSONEachRow when it refuses (with its answer). */
async function insertFormatFor(
  client: ClickHouseClient,
  handle: TargetHandle,
): Promise<{ format: PreparedBatches['format']; note?: string }> {
  if (FORMAT === 'JSONEachRow') return { format: FORMAT };
  const t = `ins_probe_${randomUUID().slice(0, 8)}`;
  await client.command({ query: `CREATE TABLE ${t} (n UInt64) ENGINE = Memory` });
  try {
    const body = (await client.exec({ query: `SELECT toUInt64(1) AS n FORMAT ${FORMAT}` })).stream;
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(c as Buffer);
    const res = await fetch(
      `${handle.url}/?database=${encodeURIComponent(handle.database)}&query=${encodeURIComponent(`INSERT INTO ${t} (n) FORMAT ${FORMAT}`)}`,
      { method: 'POST', body: Buffer.concat(chunks), headers: authHeaders(handle) },
    );
    const text = (await res.text()).trim();
    if (res.ok) return { format: FORMAT };
    return {
      format: 'JSONEachRow',
      note: `${FORMAT} refused by this server (HTTP ${res.status}: ${text.slice(0, 300)}); every inserter on it sends JSONEachRow`,
    };
  } finally {
    await client.command({ query: `DROP TABLE IF EXISTS ${t}` });
  }
}

/** MergeTree settings of the workload's table the server knows (optional ones it lacks are dropped). */
async function tableSettingsFor(client: ClickHouseClient, workload: string): Promise<Record<string, string | number>> {
  const m = loadWorkload(workload);
  const known = new Set(
    (await queryRows<{ name: string }>(client, 'SELECT name FROM system.merge_tree_settings')).map((r) => r.name),
  );
  return Object.fromEntries(
    Object.entries(m.tableSettings).filter(([k]) => known.has(k) || !m.optionalSettings.includes(k)),
  );
}

async function benchServer(s: ServerCase, workDir: string, facts: Record<string, string>) {
  console.log(`${s.name}: provisioning`);
  const handle = await s.provision(workDir);
  const client = connect(handle);
  const fileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-insert-file-'));
  try {
    const version = await queryScalar<string>(client, 'SELECT version()');
    const tableSettings = await tableSettingsFor(client, s.workload);
    const { format, note } = await insertFormatFor(client, handle);
    const table = async (name: string) => {
      await client.command({ query: `DROP TABLE IF EXISTS ${ident(name)}` });
      await client.command({
        query: renderTemplate(s.workload, 'schema.sql', { table: name, rows: ROWS, codec: 'LZ4', tableSettings }),
      });
      return name;
    };
    console.log(`${s.name}: ClickHouse ${version}, preparing ${ROWS} rows as ${format}`);
    const prepared = await prepareBatches(client, {
      workload: s.workload,
      rows: ROWS,
      batchSize: BATCH,
      format,
      data: 'distinct',
    });
    const cols = prepared.columns;
    const file = path.join(fileDir, `rows.${format}`);
    fs.writeFileSync(file, Buffer.concat(prepared.batches));
    const insertSql = (t: string) => `INSERT INTO ${t} (${cols.join(', ')}) FORMAT ${format}`;
    const reference: { checksum?: string } = {};
    const inserters: Record<string, Measurement> = {};

    for (const concurrency of [1, 2]) {
      const t = await table(`ins_chbench_c${concurrency}`);
      inserters[concurrency === 1 ? 'chbench' : 'chbench_concurrency_2'] = await measure(
        client,
        t,
        cols,
        `chbench: runInsertLoop(concurrency ${concurrency}, settings {}) of the prepared ${format} batches (prepareBatches, not timed); wall = performance.now() around runInsertLoop`,
        async () => {
          const t0 = performance.now();
          const r = await runInsertLoop(handle, {
            table: t,
            database: handle.database,
            prepared,
            concurrency,
            settings: {},
            queryIdPrefix: `bench-insert-${randomUUID().slice(0, 8)}-`,
          });
          const wall_ms = performance.now() - t0;
          if (r.errors > 0 || r.rowsAcked !== ROWS)
            throw new Error(
              `runInsertLoop: ${r.errors} errors ${JSON.stringify(r.errorsByCode)}, rows acked ${r.rowsAcked}`,
            );
          return {
            wall_ms,
            extra: {
              loop_wall_ms: Math.round(r.wallMs),
              inserts: r.inserts,
              bytes_sent: r.bytesSent,
              client_cores: Number(r.cpu.processCores.toFixed(2)),
              client_bound: r.cpu.clientBound,
            },
          };
        },
        reference,
      );
    }

    const tcpPort = handle.dataDir ? readLabel(handle.dataDir)?.ports.tcp : undefined;
    if (tcpPort) {
      const t = await table('ins_clickhouse_client');
      inserters.clickhouse_client = await measure(
        client,
        t,
        cols,
        `clickhouse-client: clickhouse-client --port ${tcpPort} --query "${insertSql(t)}" < file (native TCP protocol; the concatenated batches, one file); wall = spawn to exit`,
        async () =>
          timedChild(
            'clickhouse-client',
            [
              '--config-file',
              credentialFiles(handle).clientConfig,
              '--host',
              '127.0.0.1',
              '--port',
              String(tcpPort),
              '--database',
              handle.database,
              '--query',
              insertSql(t),
            ],
            file,
          ),
        reference,
      );
    } else {
      inserters.clickhouse_client = {
        how: 'clickhouse-client',
        runs: [],
        best_rows_per_s: null,
        verified: false,
        not_applicable:
          'this server has no native TCP protocol (the embedded engine serves HTTP only); the file-based floor is http_file_post',
      };
    }

    {
      const t = await table('ins_http_file');
      const q = new URLSearchParams({ database: handle.database, query: insertSql(t) });
      inserters.http_file_post = await measure(
        client,
        t,
        cols,
        `http_file_post: curl --data-binary @file "${handle.url}/?query=${insertSql(t)}" (one HTTP POST of the whole file); wall = spawn to exit`,
        async () =>
          timedChild('curl', [
            '-sS',
            '--fail-with-body',
            '-H',
            `@${credentialFiles(handle).curlHeaders}`,
            '-H',
            'Content-Type: application/octet-stream',
            '--data-binary',
            `@${file}`,
            `${handle.url}/?${q.toString()}`,
          ]),
        reference,
      );
    }

    const selects = batchSelects(s.workload, prepared.batchRows);
    const pt = await table('ins_python');
    inserters.python = await measurePython(client, handle, pt, cols, selects, 'insert', false, reference);
    if (!inserters.python.verified) {
      // What else was tried, each labelled: the same client with its start-up probe patched (a server
      // without system.settings.readonly), and the rows sent as JSONEachRow (a server without binary inserts).
      if (/readonly/.test(inserters.python.error ?? ''))
        inserters.python_patched_settings_probe = await measurePython(
          client,
          handle,
          pt,
          cols,
          selects,
          'insert',
          true,
          reference,
        );
      if (format === 'JSONEachRow')
        inserters.python_json_raw_insert = await measurePython(
          client,
          handle,
          pt,
          cols,
          selects,
          'json_raw',
          false,
          reference,
        );
    }

    const chb = inserters.chbench.best_rows_per_s;
    const ratio = (other: Measurement | undefined, goal: number, label: string) => {
      const o = other?.best_rows_per_s;
      if (!chb || !o)
        return {
          value: null,
          goal,
          met: null,
          why: `no ${chb ? label : 'chbench'} figure (${chb ? (other?.not_applicable ?? other?.error) : inserters.chbench.error})`,
        };
      const v = Number((chb / o).toFixed(3));
      return { value: v, goal, met: v >= goal, against: label };
    };
    const pyAlt = inserters.python_patched_settings_probe ?? inserters.python_json_raw_insert;
    const altName = inserters.python_patched_settings_probe
      ? 'python_patched_settings_probe'
      : 'python_json_raw_insert';
    return {
      server: s.name,
      version,
      workload: s.workload,
      native_tcp_port: tcpPort ?? null,
      format,
      ...(note ? { format_note: note } : {}),
      rows: prepared.rows,
      batches: prepared.batches.length,
      batch_rows: BATCH,
      prepared_bytes: prepared.bytes,
      prepare_ms_not_timed: Math.round(prepared.generateMs),
      table_settings: tableSettings,
      reference_checksum: reference.checksum ?? null,
      inserters,
      ratios: {
        chbench_vs_clickhouse_client: ratio(
          inserters.clickhouse_client,
          GOAL.chbench_vs_clickhouse_client,
          'clickhouse_client',
        ),
        chbench_vs_python: ratio(inserters.python, GOAL.chbench_vs_python, 'python'),
        ...(pyAlt ? { chbench_vs_python_alternative: ratio(pyAlt, GOAL.chbench_vs_python, altName) } : {}),
        chbench_vs_http_file_post: { ...ratio(inserters.http_file_post, 0.8, 'http_file_post'), goal: null, met: null },
      },
      load_average_1m: Number(os.loadavg()[0].toFixed(2)),
      facts,
    };
  } finally {
    await client.close();
    await s.teardown(handle).catch(() => undefined);
    fs.rmSync(fileDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-bench-insert-'));
  const runId = `bench-insert-${randomUUID().slice(0, 8)}`;
  const bin = serverBinary();
  const cases: ServerCase[] = [
    {
      name: 'clickhouse-server 18.16 (local)',
      workload: 'logs-legacy',
      provision: (wd) => provisionLocal({ runId, cellKey: 'local', version: '18.16', workDir: wd }, bin),
      teardown: teardownLocal,
    },
    {
      name: 'embedded (chdb)',
      workload: 'logs',
      provision: (wd) => provisionEmbedded({ runId, cellKey: 'embedded', version: '26.7', workDir: wd }),
      teardown: teardownEmbedded,
    },
  ];
  const pkg = (name: string) =>
    (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
      .version;
  const machine = {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    clickhouse_client: versionOf('clickhouse-client', ['--version']),
    clickhouse_server_binary: `${bin} (Debian package ${versionOf('dpkg-query', ['-W', '-f', '${Version}', 'clickhouse-server'])}; each server's version() is in servers[].version)`,
    curl: versionOf('curl', ['--version']),
    python: versionOf(PYTHON, ['--version']),
    clickhouse_connect: versionOf(PYTHON, ['-c', 'import clickhouse_connect; print(clickhouse_connect.__version__)']),
    '@clickhouse/client': pkg('@clickhouse/client'),
    chdb: pkg('chdb'),
    load_average_1m_at_start: Number(os.loadavg()[0].toFixed(2)),
  };
  const servers: Awaited<ReturnType<typeof benchServer>>[] = [];
  try {
    for (const s of cases) servers.push(await benchServer(s, workDir, {}));
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  const out = path.join(ROOT, 'bench', 'results', 'insert.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(
    out,
    `${JSON.stringify(
      {
        measured_at: new Date().toISOString(),
        goal: 'chbench ≥ 0.8× clickhouse-client and ≥ 1× the Python client (rows/s of the best of the measured runs)',
        rows: ROWS,
        batch_rows: BATCH,
        requested_format: FORMAT,
        warmup_runs: 1,
        best_of: BEST_OF,
        rows_per_s: 'rows / wall seconds of one run; best_rows_per_s is the best measured run (warm-up excluded)',
        verification:
          'after every run: count() = rows and sum(cityHash64(<columns>)) = that of chbench’s first run (the same rows); TRUNCATE TABLE before every run',
        machine,
        servers,
      },
      null,
      2,
    )}\n`,
  );
  const fmt = (v: number | null | undefined) => (v ? v.toLocaleString('en-US') : '—');
  console.log(
    '\nserver                         | chbench c1 | chbench c2 | clickhouse-client | http file POST | python     | vs client | vs python',
  );
  for (const s of servers) {
    const i = s.inserters;
    const py =
      i.python.best_rows_per_s ??
      i.python_patched_settings_probe?.best_rows_per_s ??
      i.python_json_raw_insert?.best_rows_per_s;
    const r = (x: { value: number | null; met: boolean | null }) =>
      x.value === null ? '—' : `${x.value}${x.met ? ' ok' : ' MISS'}`;
    const pyRatio =
      s.ratios.chbench_vs_python.value === null && s.ratios.chbench_vs_python_alternative
        ? s.ratios.chbench_vs_python_alternative
        : s.ratios.chbench_vs_python;
    console.log(
      [
        s.server.padEnd(30),
        fmt(i.chbench.best_rows_per_s).padStart(10),
        fmt(i.chbench_concurrency_2.best_rows_per_s).padStart(10),
        fmt(i.clickhouse_client.best_rows_per_s).padStart(17),
        fmt(i.http_file_post.best_rows_per_s).padStart(14),
        `${fmt(py)}${i.python.verified ? '' : '*'}`.padStart(10),
        r(s.ratios.chbench_vs_clickhouse_client).padStart(9),
        `${r(pyRatio)}${s.ratios.chbench_vs_python.value === null ? '*' : ''}`.padStart(9),
      ].join(' | '),
    );
  }
  console.log(
    'rows/s, best of 3 after a warm-up; * = not clickhouse-connect client.insert as is (see python error and the alternative in the file)',
  );
  console.log(`wrote ${out}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
