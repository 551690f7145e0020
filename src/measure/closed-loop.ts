/**
 * The closed-loop load engine of concurrency stepping (`grids.concurrency`): `clients` workers, each with its own
 * keep-alive HTTP connection (one `http.Agent` per step with `maxSockets = clients`, so the pool is
 * sized to the step and no client ever waits for a connection), each sending its next query as soon
 * as the previous one returned (closed loop: the offered load follows the server's speed).
 *
 * Every request is a plain HTTP POST of the workload query followed by `FORMAT Null` (the server runs
 * the query to the end and sends no rows), with the settings and the `query_id` as URL parameters.
 * Its latency is the client's wall time from just before the request is written until the last byte
 * of the response body was read (`performance.now()`).
 *
 * Timeline of a step (see {@link runClosedLoop}):
 * - warm-up, `warmupS`: requests run but are not counted;
 * - measured window, nominally `durationS`: requests that START in the window are counted (`requests`,
 *   latency, errors), including those that finish after it (the engine waits for them);
 * - QPS = successful requests that COMPLETED inside the window (whenever they started, so a request
 *   begun in the warm-up and finished in the window counts; one still running at its end does not) /
 *   the window's measured length in s. Counting only requests that start and end inside it loses
 *   about one request per client, which Little's law (QPS ≈ clients / latency) shows: 7.3 instead of
 *   12.9 at 16 clients, 1.24 s P50, 4 s.
 * - The window opens and closes at the first moment the engine observes the nominal boundary passed
 *   (a timer or a client's next request, whichever runs first: `performance.now()`); `windowMs` is
 *   the time between the two, the QPS denominator, and `windowStartAt`/`windowEndAt` are the same
 *   two instants on the worker's clock. A busy event loop makes it differ from `durationS`.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import seedrandom from 'seedrandom';
import type { TargetHandle } from '../schema/target';
import { authHeaders, bodyErrorCode, httpErrorCode, targetUrl } from '../clickhouse/client';

/** One entry of the query mix: a rendered query and its weight. */
export interface MixQuery {
  /** Workload query id (`q1` …): names the query in samples and in query_ids. */
  id: string;
  /** The SQL as rendered by `workloadQueries` (src/lib/workload.ts), without a FORMAT clause. */
  sql: string;
  /** Relative weight: a client picks this query with probability weight / Σ weights. */
  weight: number;
}

/** Progress of a running step (what {@link ClosedLoopOptions.onProgress} receives). */
export interface ClosedLoopProgress {
  phase: 'warmup' | 'measure' | 'drain';
  /** Since the step started, ms. */
  elapsedMs: number;
  /** Requests started in the measured window so far. */
  requests: number;
  /** Of those, finished without error. */
  ok: number;
  errors: number;
  /** Requests sent and not yet answered (all phases). */
  inFlight: number;
}

/** Options of {@link runClosedLoop}. */
export interface ClosedLoopOptions {
  /** The server: URL and credentials via `targetUrl` / `authHeaders` (src/clickhouse/client.ts); `database` as a URL parameter. */
  target: TargetHandle;
  /** Closed-loop clients, each with its own connection. */
  clients: number;
  /** The weighted mix (at least one entry, weights > 0). */
  mix: MixQuery[];
  /** Unmeasured seconds before the window. */
  warmupS: number;
  /** Measured window, s. */
  durationS: number;
  /** Query settings sent with every request as URL parameters. */
  settings?: Record<string, string | number>;
  /**
   * Seed of the PRNG that picks queries (`seedrandom`); each client has its own generator seeded with
   * `<seed>/client<i>`, so a rerun of the step sends the same sequence of queries per client.
   */
  seed: string;
  /** query_id of a request: `<queryIdPrefix>-<query>-k<client>r<n><queryIdSuffix>` (client and n from 1). */
  queryIdPrefix: string;
  /** Appended to every query_id (e.g. `-a<attempt>`). @default '' */
  queryIdSuffix?: string;
  /** Abort the step: in-flight requests are destroyed and {@link runClosedLoop} rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called about every second (and at each phase change) while the step runs. */
  onProgress?: (p: ClosedLoopProgress) => void;
  /** Called when the measured window starts (e.g. to start a CPU monitor). */
  onWindowStart?: () => void;
  /** Called when the measured window ends (before in-flight requests are drained). */
  onWindowEnd?: () => void;
  /** A request not answered within this long fails with code `client:timeout`. @default 3_660_000 */
  requestTimeoutMs?: number;
}

/** One measured request (started inside the window). */
export interface RequestSample {
  queryId: string;
  /** Workload query id of the mix entry. */
  query: string;
  /** Client number, 1-based. */
  client: number;
  /** Start, ms after the window opened. */
  startMs: number;
  /** Client wall latency: request written → last body byte read (or the failure), ms. */
  wallMs: number;
  ok: boolean;
  /** Finished after the window closed (counted in requests and latency, not in QPS). */
  afterWindow: boolean;
  /** On failure: the ClickHouse error code (`X-ClickHouse-Exception-Code` or `Code: N` in the body), `http:<status>`, or `client:<name>` for a socket error. */
  code?: string;
  /** On failure: the first line of the error (≤ 300 characters). */
  message?: string;
}

/** What {@link runClosedLoop} measured. */
export interface ClosedLoopResult {
  clients: number;
  warmupS: number;
  durationS: number;
  /** Worker clock (ISO) at the start and the end of the measured window. */
  windowStartAt: string;
  windowEndAt: string;
  /** Every request that started in the window, in start order. */
  samples: RequestSample[];
  /** Requests that started in the window. */
  requests: number;
  ok: number;
  errors: number;
  /** Successful requests that completed inside the window (whenever they started) / `windowMs` in s. */
  qps: number;
  /** The window's measured length (open → close, `performance.now()`), ms: the QPS denominator. */
  windowMs: number;
  /** Successful requests that completed inside the window (the QPS numerator). */
  completedInWindow: number;
  /** Of those, started before the window (in the warm-up): counted in QPS, not in `requests`/latency. */
  carriedIn: number;
  /** Requests started during the warm-up (not counted anywhere else). */
  warmupRequests: number;
  /** Time after the window spent waiting for requests that started in it, ms. */
  drainMs: number;
  /** The definitions, as recorded with the figures. */
  definitions: { qps: string; window: string; latency: string };
}

/** Definitions recorded with every step (see the module comment). */
export const CLOSED_LOOP_DEFINITIONS: ClosedLoopResult['definitions'] = {
  qps: 'successful requests that completed inside the measured window (whenever they started), divided by the window length measured in seconds (window_ms)',
  window:
    'after warmupS of unmeasured load, nominally durationS seconds, opened and closed when the engine first observed each boundary passed (performance.now(); window_ms is the measured length); requests, latency and errors count the requests that STARTED inside the window (those still in flight at its end are awaited); QPS counts completions inside it',
  latency:
    'client wall time per request: from just before the HTTP request is written until the last byte of the response body was read (performance.now()); the query runs with FORMAT Null',
};

/** A weighted picker over the mix driven by one seeded generator. */
function picker(mix: MixQuery[], seed: string): () => MixQuery {
  const rng = seedrandom(seed);
  const total = mix.reduce((a, q) => a + q.weight, 0);
  return () => {
    let x = rng() * total;
    for (const q of mix) {
      x -= q.weight;
      if (x < 0) return q;
    }
    return mix[mix.length - 1];
  };
}

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
}

/** Bytes of a response body kept to find an error in (the rest is read and discarded). */
const KEEP_BYTES = 16 * 1024;

function firstLine(s: string): string {
  return s.trim().split('\n')[0].slice(0, 300);
}

/**
 * One request: POST the SQL, read and discard the body, classify the outcome. Resolves for every
 * outcome (never rejects) unless `signal` aborted it.
 */
function send(
  agent: http.Agent,
  base: URL,
  headers: Record<string, string>,
  params: URLSearchParams,
  body: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  track: Set<http.ClientRequest>,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    url.search = params.toString();
    const mod = url.protocol === 'https:' ? https : http;
    let settled = false;
    const done = (o: Outcome | Error) => {
      if (settled) return;
      settled = true;
      track.delete(req);
      if (o instanceof Error) reject(o);
      else resolve(o);
    };
    const req = mod.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        const kept: Buffer[] = [];
        let keptLen = 0;
        res.on('data', (c: Buffer) => {
          if (keptLen < KEEP_BYTES) {
            kept.push(c);
            keptLen += c.length;
          }
        });
        res.on('error', (e) => done(signal?.aborted ? e : clientFailure(e)));
        // A response cut off without an error event (the server closed the connection mid-body).
        res.on('close', () => {
          if (!res.complete)
            done(
              signal?.aborted
                ? new Error('aborted')
                : { ok: false, code: 'client:aborted', message: 'the response was cut off' },
            );
        });
        res.on('end', () => {
          const text = Buffer.concat(kept).toString('utf8');
          const bodyCode = bodyErrorCode(text);
          if (res.statusCode !== 200)
            done({
              ok: false,
              code: httpErrorCode(res.headers, text) ?? `http:${res.statusCode}`,
              message: firstLine(text) || `HTTP ${res.statusCode}`,
            });
          // FORMAT Null: a successful body is empty; an exception written after the 200 holds `Code: N`.
          else if (bodyCode)
            done({ ok: false, code: bodyCode, message: firstLine(text.slice(text.indexOf('Code: '))) });
          else done({ ok: true });
        });
      },
    );
    track.add(req);
    req.setTimeout(timeoutMs, () => {
      const e = new Error(`no answer within ${timeoutMs} ms`);
      e.name = 'timeout';
      req.destroy(e);
    });
    req.on('error', (e) => done(signal?.aborted ? e : clientFailure(e)));
    req.end(body);
  });
}

function clientFailure(e: Error & { code?: string }): Outcome {
  return { ok: false, code: `client:${e.code ?? e.name}`, message: firstLine(e.message) };
}

/**
 * Run one step of closed-loop load (see the module comment for the timeline and the definitions).
 * @throws the signal's reason (or an `AbortError`) when `signal` aborts; every in-flight request is
 *   destroyed first and the connection pool closed.
 * @throws Error when `clients` < 1 or the mix is empty / has a weight ≤ 0.
 */
export async function runClosedLoop(o: ClosedLoopOptions): Promise<ClosedLoopResult> {
  if (!Number.isInteger(o.clients) || o.clients < 1)
    throw new Error(`closed loop: clients must be ≥ 1, got ${o.clients}`);
  if (!o.mix.length || o.mix.some((q) => !(q.weight > 0)))
    throw new Error('closed loop: the mix needs at least one query, every weight > 0');
  const base = new URL(targetUrl(o.target));
  const headers: Record<string, string> = { 'X-ClickHouse-User': o.target.username, ...authHeaders(o.target) };
  const Agent = base.protocol === 'https:' ? https.Agent : http.Agent;
  const agent = new Agent({ keepAlive: true, maxSockets: o.clients, maxFreeSockets: o.clients });
  const inFlight = new Set<http.ClientRequest>();
  const timeoutMs = o.requestTimeoutMs ?? 3_660_000;
  const suffix = o.queryIdSuffix ?? '';
  const settings = Object.entries(o.settings ?? {});

  const t0 = performance.now();
  const windowStart = t0 + o.warmupS * 1000;
  const windowEnd = windowStart + o.durationS * 1000;
  let windowStartAt = '';
  let windowEndAt = '';
  const samples: RequestSample[] = [];
  let warmupRequests = 0;
  let requests = 0;
  let ok = 0;
  let errors = 0;
  const phase = (now: number): ClosedLoopProgress['phase'] =>
    now < windowStart ? 'warmup' : now < windowEnd ? 'measure' : 'drain';
  const progress = () =>
    o.onProgress?.({
      phase: phase(performance.now()),
      elapsedMs: performance.now() - t0,
      requests,
      ok,
      errors,
      inFlight: inFlight.size,
    });

  const abortError = () =>
    o.signal?.reason instanceof Error
      ? o.signal.reason
      : Object.assign(new Error('the step was aborted'), { name: 'AbortError' });
  const onAbort = () => {
    for (const r of inFlight) r.destroy(abortError());
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });

  // Observed boundaries (performance.now()), set once each by whoever first sees the nominal one passed.
  let openedAt: number | null = null;
  let closedAt: number | null = null;
  let completedInWindow = 0;
  let carriedIn = 0;
  const startWindow = () => {
    if (openedAt !== null) return;
    openedAt = performance.now();
    windowStartAt = new Date().toISOString();
    o.onWindowStart?.();
    progress();
  };
  const endWindow = () => {
    if (closedAt !== null) return;
    startWindow();
    closedAt = performance.now();
    windowEndAt = new Date().toISOString();
    o.onWindowEnd?.();
    progress();
  };
  /** Open/close the window if `now` is past a nominal boundary. */
  const observe = (now: number) => {
    if (now >= windowStart) startWindow();
    if (now >= windowEnd) endWindow();
  };
  const startTimer = setTimeout(startWindow, Math.max(0, windowStart - performance.now()));
  const endTimer = setTimeout(endWindow, Math.max(0, windowEnd - performance.now()));
  const ticker = setInterval(progress, 1000);

  const client = async (k: number) => {
    const pick = picker(o.mix, `${o.seed}/client${k}`);
    for (let n = 1; ; n++) {
      if (o.signal?.aborted) throw abortError();
      const q = pick();
      const queryId = `${o.queryIdPrefix}-${q.id}-k${k}r${n}${suffix}`;
      const params = new URLSearchParams({ database: o.target.database, query_id: queryId });
      for (const [name, v] of settings) params.set(name, String(v));
      const body = `${q.sql.trim().replace(/;+\s*$/, '')}\nFORMAT Null`;
      const start = performance.now();
      observe(start);
      if (closedAt !== null) return;
      const measured = openedAt !== null;
      if (!measured) warmupRequests++;
      else requests++;
      const out = await send(agent, base, headers, params, body, timeoutMs, o.signal, inFlight);
      const end = performance.now();
      observe(end);
      // Completed inside the window: open, and not closed by this very observation or before.
      const inWindow = openedAt !== null && (closedAt === null || end < closedAt);
      if (out.ok && inWindow) {
        completedInWindow++;
        if (!measured) carriedIn++;
      }
      if (!measured) continue;
      if (out.ok) ok++;
      else errors++;
      samples.push({
        queryId,
        query: q.id,
        client: k,
        startMs: start - (openedAt ?? windowStart),
        wallMs: end - start,
        ok: out.ok,
        afterWindow: !inWindow,
        ...(out.ok ? {} : { code: out.code, message: out.message }),
      });
    }
  };

  try {
    progress();
    const results = await Promise.allSettled(Array.from({ length: o.clients }, (_, i) => client(i + 1)));
    if (o.signal?.aborted) throw abortError();
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  } finally {
    clearTimeout(startTimer);
    clearTimeout(endTimer);
    clearInterval(ticker);
    o.signal?.removeEventListener('abort', onAbort);
    agent.destroy();
  }
  // The timers fire before every client returned (a client stops at windowEnd), except for a zero window.
  if (!windowStartAt) startWindow();
  if (!windowEndAt) endWindow();
  const drainMs = Math.max(0, performance.now() - (closedAt ?? windowEnd));
  samples.sort((a, b) => a.startMs - b.startMs);
  const windowMs = (closedAt ?? windowEnd) - (openedAt ?? windowStart);
  return {
    clients: o.clients,
    warmupS: o.warmupS,
    durationS: o.durationS,
    windowStartAt,
    windowEndAt,
    samples,
    requests,
    ok,
    errors,
    qps: windowMs > 0 ? completedInWindow / (windowMs / 1000) : 0,
    windowMs,
    completedInWindow,
    carriedIn,
    warmupRequests,
    drainMs,
    definitions: CLOSED_LOOP_DEFINITIONS,
  };
}
