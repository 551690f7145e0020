"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.ProgressView = exports.STALE_HEARTBEAT_MS = void 0;
exports.heartbeatFraction = heartbeatFraction;
exports.heartbeatLine = heartbeatLine;
exports.heartbeatAge = heartbeatAge;
exports.cellLine = cellLine;
exports.overallLine = overallLine;
exports.renderSnapshot = renderSnapshot;
exports.describeCell = describeCell;
exports.describeMatrixRetry = describeMatrixRetry;
exports.takeSnapshot = takeSnapshot;
/**
 * Live progress of a run for `chbench run`: a {@link RunSnapshot} taken from Temporal (the matrix's
 * `progress` query, then a describe of each running cell's child workflow: its pending activity,
 * attempt, last heartbeat time and decoded heartbeat details), pure functions that turn a snapshot
 * into lines, and a {@link ProgressView} that draws them — a cli-progress multibar (one overall line
 * and one line per running cell) on a terminal, plain lines on change at most every few seconds
 * otherwise.
 *
 * Heartbeat details are objects whose shape is being standardised as
 * `{ step, statement?, query_id?, rows_read?, total_rows?, written_rows?, result_bytes?, elapsed_ms?,
 * parts_to_do?, query?, run?, progress?: string }`; older steps send other shapes (`{ step, query, run }`,
 * `{ step, active_parts, merges, … }`). {@link heartbeatLine} prints `progress` when present and
 * otherwise builds a line from whatever known fields exist, never failing on an unknown shape.
 */
const cli_progress_1 = __importDefault(require("cli-progress"));
const time_1 = require("@temporalio/common/lib/time");
const search_attributes_1 = require("../schema/search-attributes");
/** A heartbeat older than this is shown with its age, so a stuck step is visible. */
exports.STALE_HEARTBEAT_MS = 10_000;
const num = (v) => typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
        ? Number(v)
        : undefined;
const int = (n) => Math.round(n).toLocaleString('en-US');
const pct = (a, b) => `${Math.min(100, Math.floor((100 * a) / b))} %`;
function bytes(n) {
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (n >= 1024 && i < u.length - 1)
        [n, i] = [n / 1024, i + 1];
    return `${i ? n.toFixed(1) : n} ${u[i]}`;
}
function secs(ms) {
    return ms < 60_000
        ? `${(ms / 1000).toFixed(1)} s`
        : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
function oneLine(s, max) {
    const t = s.replace(/\s+/g, ' ').trim();
    return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
/** Fields that {@link heartbeatLine} renders itself (everything else is shown as `key value`). */
const KNOWN = new Set([
    'step',
    'statement',
    'query_id',
    'rows_read',
    'total_rows',
    'written_rows',
    'result_bytes',
    'elapsed_ms',
    'parts_to_do',
    'query',
    'run',
    'progress',
    'url',
]);
/**
 * Fraction done (0..1) a heartbeat shows, when it says both how far and how much:
 * the larger of `written_rows` and `rows_read` against `total_rows`.
 */
function heartbeatFraction(d) {
    if (!d || typeof d !== 'object')
        return undefined;
    const h = d;
    const total = num(h.total_rows);
    // A SELECT reports written_rows 0: take the larger of the two counters, not the first present.
    const w = num(h.written_rows);
    const r = num(h.rows_read);
    const done = w === undefined && r === undefined ? undefined : Math.max(w ?? 0, r ?? 0);
    return total && total > 0 && done !== undefined ? Math.max(0, Math.min(1, done / total)) : undefined;
}
/**
 * One human line from heartbeat details: `progress` when it is a non-empty string, else built from
 * the known fields present (rows written/read of total, query and run, parts to do, result size,
 * elapsed, statement), then up to three other scalar fields as `key value`. Any input is accepted:
 * a non-object is printed as text, `undefined`/`null` gives `''`.
 */
function heartbeatLine(d) {
    if (d === undefined || d === null)
        return '';
    if (typeof d !== 'object')
        return oneLine(String(d), 160);
    if (Array.isArray(d))
        return d.length === 1 ? heartbeatLine(d[0]) : oneLine(JSON.stringify(d), 160);
    const h = d;
    if (typeof h.progress === 'string' && h.progress.trim())
        return oneLine(h.progress, 160);
    const parts = [];
    const total = num(h.total_rows);
    const written = num(h.written_rows);
    const read = num(h.rows_read);
    if (written !== undefined)
        parts.push(total ? `${int(written)} / ${int(total)} rows written (${pct(written, total)})` : `${int(written)} rows written`);
    if (read !== undefined)
        parts.push(total && written === undefined
            ? `${int(read)} / ${int(total)} rows read (${pct(read, total)})`
            : `${int(read)} rows read`);
    if (total !== undefined && written === undefined && read === undefined)
        parts.push(`${int(total)} rows in total`);
    if (h.query !== undefined && h.query !== null && h.query !== '')
        parts.push(`query ${String(h.query)}`);
    if (h.run !== undefined && h.run !== null && h.run !== '')
        parts.push(`run ${String(h.run)}`);
    const todo = num(h.parts_to_do);
    if (todo !== undefined)
        parts.push(`${int(todo)} part${todo === 1 ? '' : 's'} to do`);
    const rb = num(h.result_bytes);
    if (rb !== undefined)
        parts.push(`result ${bytes(rb)}`);
    const el = num(h.elapsed_ms);
    if (el !== undefined)
        parts.push(`${secs(el)} elapsed`);
    const extra = Object.entries(h)
        .filter(([k, v]) => !KNOWN.has(k) && v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v)))
        .slice(0, 3)
        .map(([k, v]) => `${k.replace(/_/g, ' ')} ${Array.isArray(v) ? v.length : typeof v === 'number' ? int(v) : oneLine(String(v), 40)}`);
    parts.push(...extra);
    if (typeof h.statement === 'string' && h.statement.trim())
        parts.push(`\`${oneLine(h.statement, 60)}\``);
    return parts.join(', ');
}
/** `last heartbeat 42 s ago` (or `no heartbeat for 42 s`) when older than {@link STALE_HEARTBEAT_MS}, else `''`. */
function heartbeatAge(c, now) {
    if (c.activityState && c.activityState !== 'started')
        return '';
    const ref = c.lastHeartbeatAt ?? c.startedAt;
    if (ref === undefined)
        return '';
    const age = now - ref;
    if (age <= exports.STALE_HEARTBEAT_MS)
        return '';
    return c.lastHeartbeatAt !== undefined
        ? `last heartbeat ${Math.round(age / 1000)} s ago`
        : `no heartbeat for ${Math.round(age / 1000)} s`;
}
/** A text bar of `width` characters for a fraction. */
function textBar(f, width = 12) {
    const n = Math.round(f * width);
    return `[${'#'.repeat(n)}${'-'.repeat(width - n)}]`;
}
/**
 * The line of one running cell: key, step (and activity type when it says more), a bar when the
 * heartbeat gives a fraction, the heartbeat line, the heartbeat's age when it is stale, and while a
 * step retries `attempt n: <the previous attempt's error>` (with the wait before the next try).
 * @example `v26.7-lz4  load (loadData) [###---------]: 2,500,000 / 10,000,000 rows written (25 %)`
 * @example `v26.7-lz4  provision — attempt 3: connect ECONNREFUSED 127.0.0.1:9000 — next try in 4 s`
 */
function cellLine(c, now) {
    if (c.error)
        return `${c.cellKey}  ${c.step ?? '?'}: (cannot describe ${c.workflowId}: ${oneLine(c.error, 80)})`;
    const hbStep = c.heartbeat && typeof c.heartbeat === 'object' ? c.heartbeat.step : undefined;
    const step = c.step ?? (typeof hbStep === 'string' ? hbStep : undefined) ?? c.activityType ?? 'between steps';
    let s = `${c.cellKey}  ${step}`;
    if (c.activityType && c.activityType !== step)
        s += ` (${c.activityType})`;
    const retrying = (c.attempt ?? 1) > 1;
    const backoff = retrying && c.activityState === 'scheduled' && c.nextAttemptAt !== undefined && c.nextAttemptAt > now;
    if (c.activityState === 'scheduled' && !retrying)
        s += ' — waiting for a worker';
    else if (c.activityState === 'cancel-requested')
        s += ' — cancelling';
    const f = heartbeatFraction(c.heartbeat);
    if (f !== undefined)
        s += ` ${textBar(f)}`;
    const hb = heartbeatLine(c.heartbeat);
    if (hb)
        s += `: ${hb}`;
    const age = heartbeatAge(c, now);
    if (age)
        s += ` — ${age}`;
    if (retrying) {
        s += ` — attempt ${c.attempt}${c.lastFailure ? `: ${oneLine(c.lastFailure, 100)}` : ''}`;
        if (backoff)
            s += ` — next try in ${Math.ceil((c.nextAttemptAt - now) / 1000)} s`;
        else if (c.activityState === 'scheduled')
            s += ' — waiting for a worker';
    }
    return s;
}
/** The overall line: `cells 1/2 | cells | 1 running, 0 failed, 0 skipped`. */
function overallLine(p) {
    const extra = [
        `${p.running.length} running`,
        `${p.failed.length} failed`,
        `${p.skipped.length} skipped`,
        ...(p.cancelled.length ? [`${p.cancelled.length} cancelled`] : []),
        ...(p.reused ? [`${p.reused} reused`] : []),
    ];
    return `cells ${p.done}/${p.total} | ${p.phase} | ${extra.join(', ')}`;
}
/** Every line of a snapshot: the overall line, then one per running cell (in the matrix's order). */
function renderSnapshot(s, now = s.takenAt) {
    return [
        overallLine(s.progress),
        ...s.cells.map((c) => `  ${cellLine(c, now)}`),
        ...(s.matrixStep ? [`  ${cellLine(s.matrixStep, now)}`] : []),
    ];
}
const ACTIVITY_STATES = {
    1: 'scheduled',
    2: 'started',
    3: 'cancel-requested',
    4: 'paused',
    5: 'pause-requested',
};
/** Decode the first heartbeat payload with the client's data converter (codecs included). */
async function decodeDetails(client, payloads) {
    if (!payloads?.length)
        return undefined;
    const dc = client.options.loadedDataConverter;
    let p = payloads[0];
    for (const codec of [...dc.payloadCodecs].reverse())
        [p] = await codec.decode([p]);
    return dc.payloadConverter.fromPayload(p);
}
/** Fill `c` from a pending activity of a describe (`pendingActivities[]`): type, state, attempt, last failure, times, heartbeat. */
async function fromPendingActivity(client, c, pa) {
    c.activityType = pa.activityType?.name ?? undefined;
    c.activityState = ACTIVITY_STATES[Number(pa.state ?? 0)] ?? undefined;
    c.attempt = pa.attempt ?? undefined;
    if (pa.lastFailure?.message && (pa.attempt ?? 1) > 1)
        c.lastFailure = pa.lastFailure.message;
    c.nextAttemptAt = (0, time_1.optionalTsToMs)(pa.nextAttemptScheduleTime);
    c.lastHeartbeatAt = (0, time_1.optionalTsToMs)(pa.lastHeartbeatTime);
    c.startedAt = (0, time_1.optionalTsToMs)(pa.lastStartedTime);
    try {
        c.heartbeat = await decodeDetails(client, pa.heartbeatDetails?.payloads);
    }
    catch (e) {
        c.heartbeat = `(heartbeat details not decodable: ${e.message})`;
    }
    for (const k of Object.keys(c))
        if (c[k] === undefined)
            delete c[k];
}
/**
 * Describe one running cell (its child workflow): step, pending activity, attempt, last failure,
 * next attempt time, heartbeat time and decoded details (Temporal `DescribeWorkflowExecution`).
 * @returns a snapshot with `error` set when the describe fails (never throws)
 */
async function describeCell(client, runId, cellKey) {
    const workflowId = `${runId}/${cellKey}`;
    try {
        const d = await client.workflow.getHandle(workflowId).describe();
        const step = d.typedSearchAttributes.get(search_attributes_1.PHASE);
        const pa = d.raw.pendingActivities?.[0];
        const c = { cellKey, workflowId, ...(step ? { step } : {}) };
        if (pa)
            await fromPendingActivity(client, c, pa);
        return c;
    }
    catch (e) {
        return { cellKey, workflowId, error: e.message ?? String(e) };
    }
}
/**
 * The matrix workflow's own pending step when it is retrying (attempt > 1), as a line keyed `run`;
 * undefined when it has none, is on its first attempt, or cannot be described.
 */
async function describeMatrixRetry(client, runId) {
    try {
        const d = await client.workflow.getHandle(runId).describe();
        const pa = d.raw.pendingActivities?.find((a) => (a.attempt ?? 1) > 1);
        if (!pa)
            return undefined;
        const c = { cellKey: 'run', workflowId: runId };
        await fromPendingActivity(client, c, pa);
        return c;
    }
    catch {
        return undefined;
    }
}
/**
 * A snapshot of a run: the matrix's `progress` query, then {@link describeCell} for each running
 * cell and {@link describeMatrixRetry} for the matrix's own retrying step.
 * @param runId the matrix's workflow id
 * @returns undefined when the matrix cannot be queried (not started yet, or closed)
 */
async function takeSnapshot(client, runId) {
    let progress;
    try {
        progress = await client.workflow.getHandle(runId).query('progress');
    }
    catch {
        return undefined;
    }
    // The cells' workflows are `<run id>/<cellKey>`: the run id the matrix reports (a scheduled run's is its workflow id made folder-safe).
    const [cells, matrixStep] = await Promise.all([
        Promise.all(progress.running.map((k) => describeCell(client, progress.runId ?? runId, k))),
        describeMatrixRetry(client, runId),
    ]);
    return { runId, takenAt: Date.now(), progress, cells, ...(matrixStep ? { matrixStep } : {}) };
}
/**
 * Draws snapshots. On a terminal: a cli-progress multibar, an overall bar (cells done of total) and
 * one line per running cell, added and removed as cells start and end. Otherwise: the lines that
 * changed since the last print, at most every `minIntervalMs`.
 */
class ProgressView {
    stream;
    tty;
    minIntervalMs;
    multi;
    overall;
    cellBars = new Map();
    lastPrint = 0;
    printed = new Map();
    constructor(o = {}) {
        this.stream = o.stream ?? process.stderr;
        this.tty = o.tty ?? Boolean(this.stream.isTTY);
        this.minIntervalMs = o.minIntervalMs ?? 5000;
    }
    /** Show a snapshot. */
    update(s, now = Date.now()) {
        if (this.tty)
            this.draw(s, now);
        else
            this.print(s, now);
    }
    draw(s, now) {
        const p = s.progress;
        if (!this.multi) {
            this.multi = new cli_progress_1.default.MultiBar({
                hideCursor: true,
                stream: this.stream,
                clearOnComplete: false,
                stopOnComplete: false,
                autopadding: true,
                format: (_o, _p, payload) => payload.line,
            }, cli_progress_1.default.Presets.shades_classic);
            this.overall = this.multi.create(Math.max(1, p.total), p.done, { phase: p.phase, rest: '' }, { format: 'cells {bar} {value}/{total} | {phase} | {rest}' });
        }
        const rest = overallLine(p).split(' | ').slice(2).join(' | ');
        this.overall.setTotal(Math.max(1, p.total));
        this.overall.update(p.done, { phase: p.phase, rest });
        const lines = s.matrixStep ? [...s.cells, s.matrixStep] : s.cells;
        const live = new Set(lines.map((c) => c.cellKey));
        for (const [k, bar] of this.cellBars)
            if (!live.has(k)) {
                this.multi.remove(bar);
                this.cellBars.delete(k);
            }
        for (const c of lines) {
            const line = `  ${cellLine(c, now)}`;
            const bar = this.cellBars.get(c.cellKey);
            if (bar)
                bar.update(0, { line });
            else
                this.cellBars.set(c.cellKey, this.multi.create(1, 0, { line }));
        }
    }
    print(s, now) {
        if (now - this.lastPrint < this.minIntervalMs && this.lastPrint !== 0)
            return;
        const lines = new Map([
            ['', overallLine(s.progress)],
            ...[...s.cells, ...(s.matrixStep ? [s.matrixStep] : [])].map((c) => [c.cellKey, `  ${cellLine(c, now)}`]),
        ]);
        const changed = [...lines].filter(([k, l]) => this.printed.get(k) !== l);
        if (!changed.length)
            return;
        for (const [k, l] of changed) {
            this.stream.write(`${l}\n`);
            this.printed.set(k, l);
        }
        for (const k of [...this.printed.keys()])
            if (!lines.has(k))
                this.printed.delete(k);
        this.lastPrint = now;
    }
    /** Stop drawing (restores the cursor on a terminal). */
    stop() {
        this.multi?.stop();
        this.multi = undefined;
    }
}
exports.ProgressView = ProgressView;
//# sourceMappingURL=progress.js.map