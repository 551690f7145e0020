"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.StatementWatcher = exports.DEFAULT_WATCH = exports.MEMORY_PROGRESS_BYTES = void 0;
exports.useTargetVerbs = useTargetVerbs;
exports.currentWatcher = currentWatcher;
exports.runWatched = runWatched;
exports.noteProgress = noteProgress;
exports.keepAliveDuring = keepAliveDuring;
exports.watchClient = watchClient;
/**
 * Statement watch: every statement an activity awaits keeps the activity heartbeating, with the
 * statement's real progress, and a statement that stops making progress is reported as stuck.
 *
 * How it is wired (structural, so no activity can forget it): inside an activity, `connect()`
 * (`clickhouse.ts`) returns a client wrapped by {@link watchClient}. Each `query` / `command` / `exec`
 * / `insert` gets a query_id (unless given) and is registered with the activity's
 * {@link StatementWatcher} until its result is consumed (`text()` / `json()` / the end of `stream()`,
 * or the end of an `exec` stream). While anything is registered, a ticker (every
 * {@link WatchConfig.tickMs}) reads the progress of the registered statements over a SEPARATE
 * connection with the target's own reader ({@link WatchedTargetVerbs}, installed by the target
 * registry: `system.processes` on a real server, the embedded server's endpoint there) and
 * heartbeats {@link HeartbeatDetails}.
 *
 * Progress means a counter changed: `read_rows`, `written_rows`, `total_rows_approx` of the
 * statement, or its `memory_usage` by ≥ 1 MiB (system.processes); for `ALTER` / `OPTIMIZE` also the server's
 * merges (`system.merges` rows read/written, progress) and unfinished mutations' `parts_to_do`.
 * Elapsed time alone is not progress. A statement with no progress for
 * {@link WatchConfig.stuckAfterS} is stuck: it is killed with the target's `kill` verb (`KILL QUERY …
 * ASYNC`, then waited for, bounded; the embedded engine refuses to kill an executing statement and says so) and
 * the awaited call fails with the non-retryable `ApplicationFailure` type `StatementStuck`, whose
 * message and details name the query_id, the SQL head, the last counters seen and the kill outcome.
 *
 * A statement the server does not list (not yet registered, or finished while the client still
 * reads the body) or whose progress cannot be read counts as "no progress seen". Statements queued
 * behind another one on the embedded engine progress with the statement they wait for.
 */
const node_async_hooks_1 = require("node:async_hooks");
const node_crypto_1 = require("node:crypto");
const node_perf_hooks_1 = require("node:perf_hooks");
const activity_1 = require("@temporalio/activity");
const common_1 = require("@temporalio/common");
const failures_1 = require("../schema/failures");
const config_1 = require("../config");
let verbsOfTarget;
/**
 * Install the lookup of a target's verbs (the target registry does so when it is loaded). Without
 * it, or for a target it does not know, progress is unreadable and nothing is killed.
 */
function useTargetVerbs(lookup) {
    verbsOfTarget = lookup;
}
/**
 * A change of the statement's `memory_usage` of at least this many bytes counts as progress (1 MiB).
 * Checked on 18.16: a statement sleeping inside one block changed it by 16 bytes per function call.
 */
exports.MEMORY_PROGRESS_BYTES = 1 << 20;
exports.DEFAULT_WATCH = { stuckAfterS: 600, tickMs: 2000 };
const collapse = (s) => s.replace(/\s+/g, ' ').trim();
const fmt = (n) => n.toLocaleString('en-US');
const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;
/**
 * One per activity execution: the statements in flight, the progress ticker and stuck handling.
 * Created by {@link runWatched} (the activity wrapper) or lazily per activity context.
 */
class StatementWatcher {
    config;
    ctx;
    inFlight = new Map();
    keepAlive = 0;
    timer;
    ticking = false;
    monitor;
    /** Labels that persist across heartbeats (step, query, run) and the last poll-loop fields. */
    labels = { step: 'activity' };
    target;
    verbs;
    openMonitor;
    /** Every heartbeat sent (tests and diagnostics read it; bounded). */
    sent = [];
    constructor(config, ctx) {
        this.config = config;
        this.ctx = ctx;
    }
    /**
     * The target statements run on (the first watched client's): its verbs read their progress and
     * kill a stuck one (see {@link useTargetVerbs}); `openMonitor` opens the separate connection they use.
     */
    attach(target, openMonitor) {
        if (this.target)
            return;
        [this.target, this.openMonitor] = [target, openMonitor];
        this.verbs = verbsOfTarget?.(target);
    }
    /** Set labels without heartbeating. */
    label(d) {
        this.labels = { ...this.labels, ...d };
    }
    /** Record labels / poll-loop fields and heartbeat now. */
    note(d) {
        const { progress, ...rest } = d;
        this.labels = { ...this.labels, ...rest };
        this.emit(this.details(progress));
    }
    /** Register a statement; returns its handle. */
    begin(queryId, sql, kind) {
        let rejectStuck;
        const stuckPromise = new Promise((_, rej) => (rejectStuck = rej));
        stuckPromise.catch(() => undefined);
        const now = node_perf_hooks_1.performance.now();
        const st = {
            queryId,
            sql,
            kind,
            background: /^\s*(ALTER|OPTIMIZE)\b/i.test(sql),
            startedAt: now,
            lastChangeAt: now,
            abort: new AbortController(),
            rejectStuck,
            stuckPromise,
        };
        this.inFlight.set(queryId, st);
        this.ensureTicker();
        this.emit(this.details());
        return st;
    }
    /** Unregister a statement. */
    end(st) {
        this.inFlight.delete(st.queryId);
        this.maybeStop();
    }
    /** Await `p`, failing with `StatementStuck` as soon as the watcher finds `st` stuck. */
    guard(st, p) {
        p.catch(() => undefined);
        return Promise.race([p, st.stuckPromise]).catch(async (e) => {
            if (st.killing && !st.stuck)
                await st.stuckPromise;
            throw st.stuck ?? e;
        });
    }
    /**
     * Keep heartbeating while `work` runs although it is not a statement (starting or stopping a
     * server process, whose own deadlines bound it). The heartbeat says so.
     */
    async during(label, work) {
        this.keepAlive++;
        this.labels = { ...this.labels, step: this.labels.step === 'activity' ? label : this.labels.step };
        this.ensureTicker();
        this.emit(this.details(`${label}: waiting (not a statement; bounded by its own timeout)`));
        try {
            return await work;
        }
        finally {
            this.keepAlive--;
            this.maybeStop();
        }
    }
    ensureTicker() {
        if (this.timer || !this.ctx)
            return;
        this.timer = setInterval(() => void this.tick(), this.config.tickMs);
    }
    /** End of the activity: forget every statement still registered (a result never read) and stop. */
    close() {
        this.inFlight.clear();
        this.keepAlive = 0;
        this.maybeStop();
    }
    maybeStop() {
        if (this.inFlight.size || this.keepAlive || !this.timer)
            return;
        clearInterval(this.timer);
        this.timer = undefined;
        const m = this.monitor;
        this.monitor = undefined;
        void m?.close().catch(() => undefined);
    }
    emit(d) {
        if (!this.ctx)
            return;
        this.ctx.heartbeat(d);
        this.sent.push({ at: Date.now(), details: d });
        if (this.sent.length > 2000)
            this.sent.splice(0, 1000);
    }
    /** The statement a heartbeat is about: the oldest one in flight. */
    primary() {
        let p;
        for (const s of this.inFlight.values())
            if (!p || s.startedAt < p.startedAt)
                p = s;
        return p;
    }
    details(progress) {
        const st = this.primary();
        const base = { step: 'activity', ...this.labels, progress: '' };
        if (!st)
            return { ...base, progress: progress ?? this.labelLine() };
        const s = st.seen;
        const d = {
            ...base,
            statement: collapse(st.sql).slice(0, 120),
            query_id: st.queryId,
            in_flight: this.inFlight.size,
            no_progress_ms: Math.round(node_perf_hooks_1.performance.now() - st.lastChangeAt),
            ...(s?.rows_read !== undefined ? { rows_read: s.rows_read } : {}),
            ...(s?.total_rows !== undefined ? { total_rows: s.total_rows } : {}),
            ...(s?.written_rows !== undefined ? { written_rows: s.written_rows } : {}),
            ...(s?.elapsed_ms !== undefined ? { elapsed_ms: s.elapsed_ms } : {}),
            ...(s?.memory_usage !== undefined ? { memory_usage: s.memory_usage } : {}),
            ...(s?.parts_to_do !== undefined ? { parts_to_do: s.parts_to_do } : {}),
        };
        d.progress = progress ?? this.line(st, d);
        return d;
    }
    labelLine() {
        const l = this.labels;
        return [l.step, l.query && `${l.query}${l.run ? ` ${l.run}` : ''}`].filter(Boolean).join(' ');
    }
    line(st, d) {
        const head = `${this.labelLine()}: ${collapse(st.sql).slice(0, 60)}`;
        const s = st.seen;
        if (!s)
            return `${head} — started, progress not read yet`;
        if (s.countersUnavailable)
            return `${head} — progress not available on this engine (${s.countersUnavailable}); stuck detection relies on max_execution_time`;
        if (!s.listed)
            return `${head} — ${s.state ?? 'not listed by the server (queued, or finishing)'}; no progress seen for ${Math.round((d.no_progress_ms ?? 0) / 1000)} s`;
        const parts = [];
        if (d.rows_read !== undefined)
            parts.push(`${fmt(d.rows_read)}${d.total_rows ? ` / ${fmt(d.total_rows)}` : ''} rows read${d.total_rows ? ` (${((100 * d.rows_read) / d.total_rows).toFixed(1)} %)` : ''}`);
        if (d.written_rows)
            parts.push(`${fmt(d.written_rows)} written`);
        if (d.parts_to_do !== undefined)
            parts.push(`${d.parts_to_do} parts to do`);
        if (d.elapsed_ms !== undefined)
            parts.push(`${(d.elapsed_ms / 1000).toFixed(1)} s`);
        if (d.memory_usage !== undefined)
            parts.push(mib(d.memory_usage));
        if (s.state === 'queued')
            parts.push('queued behind another statement');
        const idle = d.no_progress_ms ?? 0;
        if (idle >= 2 * this.config.tickMs)
            parts.push(`no progress for ${Math.round(idle / 1000)} s (stuck after ${this.config.stuckAfterS} s)`);
        return `${head} — ${parts.join(', ')}`;
    }
    async tick() {
        if (this.ticking) {
            // The previous read is still out (each is bounded by a timeout): still heartbeat what we know.
            this.emit(this.details());
            return;
        }
        this.ticking = true;
        try {
            const list = [...this.inFlight.values()];
            if (list.length) {
                const seen = await this.readProgress(list).catch((e) => new Map(list.map((s) => [
                    s.queryId,
                    {
                        listed: false,
                        countersUnavailable: undefined,
                        state: `progress unreadable: ${e.message.split('\n')[0]}`,
                    },
                ])));
                const now = node_perf_hooks_1.performance.now();
                for (const st of list) {
                    const s = seen.get(st.queryId) ?? { listed: false };
                    st.seen = s;
                    if (s.countersUnavailable) {
                        st.lastChangeAt = now; // cannot judge: max_execution_time is the bound
                        continue;
                    }
                    if (!s.listed)
                        continue;
                    const key = JSON.stringify([
                        s.rows_read,
                        s.total_rows,
                        s.written_rows,
                        s.parts_to_do,
                        s.merges_rows,
                        s.merges_progress,
                        s.state,
                    ]);
                    // Memory counts when it moved by at least MEMORY_PROGRESS_BYTES (a sort's or aggregation's
                    // final phase moves no row counter but moves memory; a sleeping statement wiggles by bytes).
                    const memMoved = s.memory_usage !== undefined &&
                        (st.memAtChange === undefined || Math.abs(s.memory_usage - st.memAtChange) >= exports.MEMORY_PROGRESS_BYTES);
                    if (key !== st.key || memMoved)
                        [st.key, st.lastChangeAt, st.memAtChange] = [key, now, s.memory_usage];
                }
                for (const st of list)
                    if (!st.stuck && this.inFlight.has(st.queryId) && now - st.lastChangeAt >= this.config.stuckAfterS * 1000)
                        await this.stuck(st);
            }
            this.emit(this.details());
        }
        finally {
            this.ticking = false;
        }
    }
    /** Bound of one progress read or kill statement, ms. */
    readTimeoutMs() {
        return Math.max(2000, 2 * this.config.tickMs);
    }
    monitorClient() {
        if (!this.monitor)
            this.monitor = this.openMonitor();
        return this.monitor;
    }
    /** Progress of the given statements: the target's own reader, over a separate connection. */
    async readProgress(list) {
        const t = this.target;
        if (!t)
            return new Map();
        if (!this.verbs)
            throw new Error(`no verbs installed for target kind "${t.kind}" (src/targets not loaded)`);
        return this.verbs.statementProgress(t, this.monitorClient(), list, this.readTimeoutMs());
    }
    /** Kill a stuck statement where the target can, then fail its awaited call. */
    async stuck(st) {
        const t = this.target;
        const idleS = Math.round((node_perf_hooks_1.performance.now() - st.lastChangeAt) / 1000);
        let kill = !t ? 'not attempted (no target)' : 'not attempted (no verbs for this target kind)';
        st.killing = true;
        if (t && this.verbs) {
            // Waited for (bounded, heartbeating) where the target can stop it; the embedded engine says why not.
            const r = await this.verbs.kill(t, this.monitorClient(), st.queryId, {
                waitGoneMs: 30_000,
                timeoutMs: this.readTimeoutMs(),
                queryIdTag: 'chb-watch',
                onWait: () => this.emit(this.details(`${this.labelLine()}: killing stuck statement ${st.queryId}`)),
            });
            kill = r.text;
        }
        const s = st.seen;
        const seenText = !s
            ? 'no progress was ever read'
            : !s.listed
                ? `the server did not list it${s.state ? ` (${s.state})` : ''}`
                : `rows_read ${s.rows_read ?? 'n/a'}, total_rows_approx ${s.total_rows ?? 'n/a'}, written_rows ${s.written_rows ?? 'n/a'}, memory_usage ${s.memory_usage ?? 'n/a'}, elapsed ${s.elapsed_ms ?? 'n/a'} ms${s.parts_to_do !== undefined ? `, parts_to_do ${s.parts_to_do}` : ''}`;
        st.stuck = common_1.ApplicationFailure.create({
            type: failures_1.FAILURE.StatementStuck,
            nonRetryable: true,
            message: `statement ${st.queryId} made no progress for ${idleS} s (protocol.stuckAfterS = ${this.config.stuckAfterS}); last seen: ${seenText}; ${kill}. SQL: ${collapse(st.sql).slice(0, 200)}`,
            details: [
                {
                    query_id: st.queryId,
                    statement: collapse(st.sql).slice(0, 500),
                    no_progress_s: idleS,
                    last_seen: s ?? null,
                    kill,
                },
            ],
        });
        st.abort.abort(st.stuck);
        st.rejectStuck(st.stuck);
    }
}
exports.StatementWatcher = StatementWatcher;
// ---------------------------------------------------------------------------------------------
// One watcher per activity execution
const scope = new node_async_hooks_1.AsyncLocalStorage();
const byContext = new WeakMap();
function activityContext() {
    try {
        return activity_1.Context.current();
    }
    catch {
        return undefined;
    }
}
/** The current activity's watcher (created on first use), or `undefined` outside an activity. */
function currentWatcher() {
    const w = scope.getStore();
    if (w)
        return w;
    const ctx = activityContext();
    if (!ctx)
        return undefined;
    let v = byContext.get(ctx);
    if (!v)
        byContext.set(ctx, (v = new StatementWatcher({ ...exports.DEFAULT_WATCH, tickMs: (0, config_1.watchTickMs)() }, ctx)));
    return v;
}
/**
 * Run `fn` with its own watcher configured by `config` (the activity wrapper does this for every
 * activity, from the cell's `protocol.stuckAfterS`).
 */
function runWatched(config, fn) {
    const ctx = activityContext();
    const { step, ...rest } = config;
    const w = new StatementWatcher({ ...exports.DEFAULT_WATCH, tickMs: (0, config_1.watchTickMs)(), ...rest }, ctx);
    if (step)
        w.label({ step });
    if (ctx)
        byContext.set(ctx, w);
    return scope.run(w, async () => {
        try {
            return await fn();
        }
        finally {
            w.close();
        }
    });
}
/** Record labels / poll-loop fields with the current watcher and heartbeat now (no-op outside an activity). */
function noteProgress(d) {
    currentWatcher()?.note(d);
}
/** See {@link StatementWatcher.during}; outside an activity just awaits `work`. */
function keepAliveDuring(label, work) {
    const w = currentWatcher();
    return w ? w.during(label, work) : work;
}
/**
 * Wrap a client so every statement is registered with `watcher` until its result is consumed.
 * `openMonitor` opens the separate connection progress is read over.
 */
function watchClient(client, target, watcher, openMonitor) {
    watcher.attach(target, openMonitor);
    /** This client's registered statements (closing the client unregisters those whose result was never read). */
    const mine = new Set();
    const end = (st) => {
        mine.delete(st);
        watcher.end(st);
    };
    const prepare = (p, kind) => {
        const queryId = p.query_id ?? (0, node_crypto_1.randomUUID)();
        const sql = p.query ?? (p.table ? `INSERT INTO ${p.table} FORMAT ${p.format ?? 'JSONCompactEachRow'}` : '');
        const st = watcher.begin(queryId, sql, kind);
        mine.add(st);
        const signal = p.abort_signal ? AbortSignal.any([p.abort_signal, st.abort.signal]) : st.abort.signal;
        return { st, params: { ...p, query_id: queryId, abort_signal: signal } };
    };
    /** Keep `st` registered until `stream` ends. */
    const untilEnd = (st, stream) => {
        let done = false;
        const fin = () => {
            if (done)
                return;
            done = true;
            end(st);
        };
        stream.once('end', fin);
        stream.once('close', fin);
        stream.once('error', fin);
        st.stuckPromise.catch(() => stream.destroy(st.stuck));
        return stream;
    };
    return new Proxy(client, {
        get(obj, prop, recv) {
            const orig = Reflect.get(obj, prop, recv);
            if (prop === 'query')
                return async (p) => {
                    const { st, params } = prepare(p, 'query');
                    let rs;
                    try {
                        rs = await watcher.guard(st, orig.call(obj, params));
                    }
                    catch (e) {
                        end(st);
                        throw e;
                    }
                    let consumed = false;
                    return new Proxy(rs, {
                        get(r, k, rr) {
                            const v = Reflect.get(r, k, rr);
                            if ((k === 'text' || k === 'json') && typeof v === 'function')
                                return async (...a) => {
                                    try {
                                        return await watcher.guard(st, v.apply(r, a));
                                    }
                                    finally {
                                        consumed = true;
                                        end(st);
                                    }
                                };
                            if (k === 'stream' && typeof v === 'function')
                                return (...a) => untilEnd(st, v.apply(r, a));
                            if (k === 'close' && typeof v === 'function')
                                return (...a) => {
                                    if (!consumed)
                                        end(st);
                                    return v.apply(r, a);
                                };
                            return typeof v === 'function' ? v.bind(r) : v;
                        },
                    });
                };
            if (prop === 'command' || prop === 'insert')
                return async (p) => {
                    const { st, params } = prepare(p, prop);
                    try {
                        return await watcher.guard(st, orig.call(obj, params));
                    }
                    finally {
                        end(st);
                    }
                };
            if (prop === 'exec')
                return async (p) => {
                    const { st, params } = prepare(p, 'exec');
                    try {
                        const r = (await watcher.guard(st, orig.call(obj, params)));
                        untilEnd(st, r.stream);
                        return r;
                    }
                    catch (e) {
                        end(st);
                        throw e;
                    }
                };
            if (prop === 'close')
                return async () => {
                    for (const st of [...mine])
                        end(st);
                    return orig.call(obj);
                };
            return typeof orig === 'function' ? orig.bind(obj) : orig;
        },
    });
}
//# sourceMappingURL=statement-watch.js.map