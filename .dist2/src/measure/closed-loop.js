"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.CLOSED_LOOP_DEFINITIONS = void 0;
exports.runClosedLoop = runClosedLoop;
/**
 * The closed-loop load engine of concurrency stepping (seed 002): `clients` workers, each with its own
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
 * - measured window, `durationS`: requests that START in the window are counted (`requests`, latency,
 *   errors), including those that finish after it (the engine waits for them); requests still in
 *   flight when the window starts (started during the warm-up) are not counted;
 * - QPS = successful requests that started AND finished inside the window / window length in s.
 */
const node_http_1 = __importDefault(require("node:http"));
const node_https_1 = __importDefault(require("node:https"));
const node_perf_hooks_1 = require("node:perf_hooks");
const seedrandom_1 = __importDefault(require("seedrandom"));
const client_1 = require("../clickhouse/client");
/** Definitions recorded with every step (see the module comment). */
exports.CLOSED_LOOP_DEFINITIONS = {
    qps: 'successful requests that started and finished inside the measured window, divided by the window length in seconds',
    window: 'after warmupS of unmeasured load, durationS seconds; a request counts when it STARTS inside the window (requests in flight when the window starts are not counted; those still in flight when it ends are awaited and counted in requests and latency, not in QPS)',
    latency: 'client wall time per request: from just before the HTTP request is written until the last byte of the response body was read (performance.now()); the query runs with FORMAT Null',
};
/** A weighted picker over the mix driven by one seeded generator. */
function picker(mix, seed) {
    const rng = (0, seedrandom_1.default)(seed);
    const total = mix.reduce((a, q) => a + q.weight, 0);
    return () => {
        let x = rng() * total;
        for (const q of mix) {
            x -= q.weight;
            if (x < 0)
                return q;
        }
        return mix[mix.length - 1];
    };
}
/** Bytes of a response body kept to find an error in (the rest is read and discarded). */
const KEEP_BYTES = 16 * 1024;
function firstLine(s) {
    return s.trim().split('\n')[0].slice(0, 300);
}
/**
 * One request: POST the SQL, read and discard the body, classify the outcome. Resolves for every
 * outcome (never rejects) unless `signal` aborted it.
 */
function send(agent, base, headers, params, body, timeoutMs, signal, track) {
    return new Promise((resolve, reject) => {
        const url = new URL(base);
        url.search = params.toString();
        const mod = url.protocol === 'https:' ? node_https_1.default : node_http_1.default;
        let settled = false;
        const done = (o) => {
            if (settled)
                return;
            settled = true;
            track.delete(req);
            if (o instanceof Error)
                reject(o);
            else
                resolve(o);
        };
        const req = mod.request(url, {
            method: 'POST',
            agent,
            headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) },
        }, (res) => {
            const kept = [];
            let keptLen = 0;
            res.on('data', (c) => {
                if (keptLen < KEEP_BYTES) {
                    kept.push(c);
                    keptLen += c.length;
                }
            });
            res.on('error', (e) => done(signal?.aborted ? e : clientFailure(e)));
            // A response cut off without an error event (the server closed the connection mid-body).
            res.on('close', () => {
                if (!res.complete)
                    done(signal?.aborted
                        ? new Error('aborted')
                        : { ok: false, code: 'client:aborted', message: 'the response was cut off' });
            });
            res.on('end', () => {
                const text = Buffer.concat(kept).toString('utf8');
                const bodyCode = (0, client_1.bodyErrorCode)(text);
                if (res.statusCode !== 200)
                    done({
                        ok: false,
                        code: (0, client_1.httpErrorCode)(res.headers, text) ?? `http:${res.statusCode}`,
                        message: firstLine(text) || `HTTP ${res.statusCode}`,
                    });
                // FORMAT Null: a successful body is empty; an exception written after the 200 holds `Code: N`.
                else if (bodyCode)
                    done({ ok: false, code: bodyCode, message: firstLine(text.slice(text.indexOf('Code: '))) });
                else
                    done({ ok: true });
            });
        });
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
function clientFailure(e) {
    return { ok: false, code: `client:${e.code ?? e.name}`, message: firstLine(e.message) };
}
/**
 * Run one step of closed-loop load (see the module comment for the timeline and the definitions).
 * @throws the signal's reason (or an `AbortError`) when `signal` aborts; every in-flight request is
 *   destroyed first and the connection pool closed.
 * @throws Error when `clients` < 1 or the mix is empty / has a weight ≤ 0.
 */
async function runClosedLoop(o) {
    if (!Number.isInteger(o.clients) || o.clients < 1)
        throw new Error(`closed loop: clients must be ≥ 1, got ${o.clients}`);
    if (!o.mix.length || o.mix.some((q) => !(q.weight > 0)))
        throw new Error('closed loop: the mix needs at least one query, every weight > 0');
    const base = new URL((0, client_1.targetUrl)(o.target));
    const headers = { 'X-ClickHouse-User': o.target.username, ...(0, client_1.authHeaders)(o.target) };
    const Agent = base.protocol === 'https:' ? node_https_1.default.Agent : node_http_1.default.Agent;
    const agent = new Agent({ keepAlive: true, maxSockets: o.clients, maxFreeSockets: o.clients });
    const inFlight = new Set();
    const timeoutMs = o.requestTimeoutMs ?? 3_660_000;
    const suffix = o.queryIdSuffix ?? '';
    const settings = Object.entries(o.settings ?? {});
    const t0 = node_perf_hooks_1.performance.now();
    const windowStart = t0 + o.warmupS * 1000;
    const windowEnd = windowStart + o.durationS * 1000;
    let windowStartAt = '';
    let windowEndAt = '';
    const samples = [];
    let warmupRequests = 0;
    let requests = 0;
    let ok = 0;
    let errors = 0;
    const phase = (now) => now < windowStart ? 'warmup' : now < windowEnd ? 'measure' : 'drain';
    const progress = () => o.onProgress?.({
        phase: phase(node_perf_hooks_1.performance.now()),
        elapsedMs: node_perf_hooks_1.performance.now() - t0,
        requests,
        ok,
        errors,
        inFlight: inFlight.size,
    });
    const abortError = () => o.signal?.reason instanceof Error
        ? o.signal.reason
        : Object.assign(new Error('the step was aborted'), { name: 'AbortError' });
    const onAbort = () => {
        for (const r of inFlight)
            r.destroy(abortError());
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const startWindow = () => {
        windowStartAt = new Date().toISOString();
        o.onWindowStart?.();
        progress();
    };
    const endWindow = () => {
        windowEndAt = new Date().toISOString();
        o.onWindowEnd?.();
        progress();
    };
    const startTimer = setTimeout(startWindow, Math.max(0, windowStart - node_perf_hooks_1.performance.now()));
    const endTimer = setTimeout(endWindow, Math.max(0, windowEnd - node_perf_hooks_1.performance.now()));
    const ticker = setInterval(progress, 1000);
    const client = async (k) => {
        const pick = picker(o.mix, `${o.seed}/client${k}`);
        for (let n = 1;; n++) {
            if (o.signal?.aborted)
                throw abortError();
            const q = pick();
            const queryId = `${o.queryIdPrefix}-${q.id}-k${k}r${n}${suffix}`;
            const params = new URLSearchParams({ database: o.target.database, query_id: queryId });
            for (const [name, v] of settings)
                params.set(name, String(v));
            const body = `${q.sql.trim().replace(/;+\s*$/, '')}\nFORMAT Null`;
            const start = node_perf_hooks_1.performance.now();
            if (start >= windowEnd)
                return;
            const measured = start >= windowStart;
            if (!measured)
                warmupRequests++;
            else
                requests++;
            const out = await send(agent, base, headers, params, body, timeoutMs, o.signal, inFlight);
            const end = node_perf_hooks_1.performance.now();
            if (!measured)
                continue;
            if (out.ok)
                ok++;
            else
                errors++;
            samples.push({
                queryId,
                query: q.id,
                client: k,
                startMs: start - windowStart,
                wallMs: end - start,
                ok: out.ok,
                afterWindow: end > windowEnd,
                ...(out.ok ? {} : { code: out.code, message: out.message }),
            });
        }
    };
    try {
        progress();
        const results = await Promise.allSettled(Array.from({ length: o.clients }, (_, i) => client(i + 1)));
        if (o.signal?.aborted)
            throw abortError();
        const failed = results.find((r) => r.status === 'rejected');
        if (failed)
            throw failed.reason;
    }
    finally {
        clearTimeout(startTimer);
        clearTimeout(endTimer);
        clearInterval(ticker);
        o.signal?.removeEventListener('abort', onAbort);
        agent.destroy();
    }
    // The timers fire before every client returned (a client stops at windowEnd), except for a zero window.
    if (!windowStartAt)
        startWindow();
    if (!windowEndAt)
        endWindow();
    const drainMs = Math.max(0, node_perf_hooks_1.performance.now() - windowEnd);
    samples.sort((a, b) => a.startMs - b.startMs);
    const inWindowOk = samples.filter((s) => s.ok && !s.afterWindow).length;
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
        qps: o.durationS > 0 ? inWindowOk / o.durationS : 0,
        warmupRequests,
        drainMs,
        definitions: exports.CLOSED_LOOP_DEFINITIONS,
    };
}
//# sourceMappingURL=closed-loop.js.map