/**
 * Start and stop a real Temporal dev server (`temporal server start-dev`) on free loopback ports,
 * with its own SQLite file and chbench's search attributes registered. Used by the demo and the
 * test harness; users with their own server never need it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporalCliPath } from '../config';
import { SEARCH_ATTRIBUTES } from '../schema/search-attributes';
import { waitForSearchAttributes } from './search-attribute-registry';
import { freePort } from '../lib/net';
import { pollUntil } from '../lib/poll';

/** A running dev server. */
export interface DevServer {
  /** gRPC address `127.0.0.1:<port>`. */
  address: string;
  /** Web UI URL, or undefined when headless. */
  uiUrl?: string;
  port: number;
  dbFile: string;
  process: ChildProcess;
  /** Stop the server (SIGTERM, then SIGKILL after 5 s) and remove its temporary directory unless `keepDb`. */
  stop(): Promise<void>;
}

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** Serve the Web UI on a free port. @default false */
  ui?: boolean;
  /** SQLite file (created if missing). @default a file in a new temp dir */
  dbFile?: string;
  /** gRPC port. @default a free port */
  port?: number;
  /** Keep the temp dir at stop (to restart on the same file). @default false */
  keepDb?: boolean;
  /** Ready timeout, ms (the search attributes' wait included). @default 60000 */
  timeoutMs?: number;
  /**
   * Register chbench's search attributes at start (`--search-attribute`) and wait until a query
   * using them is accepted. `false` starts a server without them (tests of the registration).
   * @default true
   */
  searchAttributes?: boolean;
  /** `--dynamic-config-value` entries, e.g. `{ 'system.forceSearchAttributesCacheRefreshOnRead': 'false' }`. */
  dynamicConfig?: Record<string, string>;
}

/** Attempts of {@link startDevServer} on fresh free ports when a port it chose was taken before the server bound it. */
export const PORT_RACE_ATTEMPTS = 3;

/** The dev server's log line when a listener could not bind its port. */
const BIND_FAILED = /bind: address already in use/;

/**
 * Start a dev server and wait until its frontend answers and (by default) a visibility query using
 * chbench's search attributes is accepted. Ports it chose itself (no `o.port`) are free when chosen
 * but may be taken by another process before the server binds them (two test lanes starting servers
 * at once): a server that exits with "bind: address already in use" in its log is started again on
 * fresh ports, up to {@link PORT_RACE_ATTEMPTS} times in all.
 * @throws Error with the server's log file when it exits or does not come up in time.
 */
export async function startDevServer(o: DevServerOptions = {}): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevServerOnce(o);
    } catch (e) {
      const log = (e as { logFile?: string }).logFile;
      const raced = o.port === undefined && log !== undefined && BIND_FAILED.test(readLog(log));
      if (!raced || attempt >= PORT_RACE_ATTEMPTS) throw e;
      if (!o.keepDb) rmSync(path.dirname(log), { recursive: true, force: true });
    }
  }
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

async function startDevServerOnce(o: DevServerOptions): Promise<DevServer> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-temporal-'));
  const dbFile = o.dbFile ?? path.join(tmp, 'temporal.sqlite');
  const port = o.port ?? (await freePort());
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--db-filename',
    dbFile,
    '--log-level',
    'error',
  ];
  let uiUrl: string | undefined;
  if (o.ui) {
    const uiPort = await freePort();
    args.push('--ui-port', String(uiPort), '--ui-ip', '127.0.0.1');
    uiUrl = `http://127.0.0.1:${uiPort}`;
  } else args.push('--headless');
  const withAttributes = o.searchAttributes ?? true;
  if (withAttributes)
    for (const [k, t] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${k}=${t}`);
  for (const [k, v] of Object.entries(o.dynamicConfig ?? {})) args.push('--dynamic-config-value', `${k}=${v}`);
  // Eager activity dispatch: the worker that schedules an activity may start it at once (no poll).
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  // WAL keeps commits durable across a process crash (what the chaos tests do) and cuts write latency.
  args.push('--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  const logFile = path.join(tmp, 'server.log');
  const fd = openSync(logFile, 'a');
  const child = spawn(temporalCliPath(), args, { stdio: ['ignore', fd, fd] });
  const address = `127.0.0.1:${port}`;
  let exited: number | null = null;
  child.on('exit', (c) => (exited = c ?? -1));
  const timeoutMs = o.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const exitedError = () =>
    Object.assign(
      new Error(`temporal dev server exited with ${exited}; log: ${logFile} (binary ${temporalCliPath()})`),
      { logFile },
    );
  try {
    await pollUntil(
      async () => {
        if (exited !== null) throw exitedError();
        const c = await Connection.connect({ address, connectTimeout: 1000 });
        try {
          await c.workflowService.getSystemInfo({});
          // The frontend answering is not enough: the attributes must be usable before a run starts.
          if (withAttributes)
            await waitForSearchAttributes(c, 'default', Object.keys(SEARCH_ATTRIBUTES), {
              address,
              timeoutMs: Math.max(1000, deadline - Date.now()),
            });
        } finally {
          await c.close();
        }
        return true;
      },
      { timeoutMs, intervalMs: 250, what: `temporal dev server on ${address}`, stopOn: () => exited !== null },
    );
  } catch (e) {
    if (exited !== null) throw exitedError();
    child.kill('SIGKILL');
    throw new Error(
      `temporal dev server did not answer on ${address} within ${timeoutMs} ms (${(e as Error).message}); log: ${logFile}`,
      { cause: e },
    );
  }
  return {
    address,
    uiUrl,
    port,
    dbFile,
    process: child,
    async stop() {
      if (exited === null) {
        const done = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        await done;
        clearTimeout(t);
      }
      if (!o.keepDb) rmSync(tmp, { recursive: true, force: true });
    },
  };
}
