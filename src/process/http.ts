/**
 * HTTP on loopback without connection reuse (nothing keeps the caller's event loop alive), and
 * waiting for a fresh server's `/ping`.
 */
import * as http from 'node:http';
import { pollUntil } from '../lib/poll';
import { isAlive } from './proc';
import { describeLogTail } from './spawn';

/** Result of one HTTP GET on loopback. */
export interface HttpGetResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP GET without connection reuse (so nothing keeps the caller's event loop alive).
 * @param url absolute `http://` URL
 * @param timeoutMs abort after this many milliseconds
 * @throws Error on connection failure or timeout
 */
export function httpGet(url: string, timeoutMs: number, headers: Record<string, string> = {}): Promise<HttpGetResult> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      url,
      { agent: false, headers: { ...headers, connection: 'close' }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

/**
 * Poll `GET <url>/ping` until it answers `Ok.`.
 * @param url base URL of the HTTP interface
 * @param timeoutMs give up after this many milliseconds
 * @param opts.pid when given, fail as soon as this process has exited
 * @param opts.logFiles files whose tails go into the error message
 * @throws Error on timeout or when `opts.pid` exited; the message names the URL, the pid state, the
 *   last connection error and the tail of each log file
 */
export async function waitForPing(
  url: string,
  timeoutMs: number,
  opts: { pid?: number; logFiles?: string[] } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  const fail = (exited: boolean) => {
    const state =
      opts.pid === undefined ? '' : exited ? ` (pid ${opts.pid} has exited)` : ` (pid ${opts.pid} still running)`;
    const why = exited ? 'server process exited before answering' : `no answer within ${timeoutMs} ms`;
    return new Error(
      `${url}/ping: ${why}${state}; last error: ${lastError}\n${describeLogTail(...(opts.logFiles ?? []))}`,
    );
  };
  await pollUntil(
    async () => {
      try {
        const r = await httpGet(`${url.replace(/\/$/, '')}/ping`, Math.max(100, Math.min(2000, deadline - Date.now())));
        if (r.status === 200 && r.body.startsWith('Ok.')) return true;
        lastError = `HTTP ${r.status}: ${r.body.slice(0, 200)}`;
      } catch (e) {
        lastError = (e as Error).message;
      }
      if (opts.pid !== undefined && !isAlive(opts.pid)) throw fail(true);
      return false;
    },
    {
      timeoutMs,
      intervalMs: (n) => Math.min(50 * 2 ** (n - 1), 250),
      stopOn: () => true, // the check catches its own errors: only "the process exited" gets here
      onTimeout: () => fail(false),
    },
  );
}
