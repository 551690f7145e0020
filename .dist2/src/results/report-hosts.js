"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_LISTED_CELLS = void 0;
exports.hostsOf = hostsOf;
exports.busyFlags = busyFlags;
exports.busyNotes = busyNotes;
exports.busyHeadline = busyHeadline;
exports.hostLossNotes = hostLossNotes;
exports.hostsTable = hostsTable;
exports.hasHosts = hasHosts;
exports.hostColumn = hostColumn;
exports.hostsSection = hostsSection;
exports.busySection = busySection;
/**
 * Hosts in the report: which host ran each cell and that host's facts (`result.json` `host`, recorded
 * by the provision step on the host: node's `os` module), the hosts lost during a cell
 * (`host_losses`), and the cells whose host ran something else at the time ("host busy").
 *
 * A busy host is a note on the figures, not a cell failure: the cell's numbers are kept and the
 * report says what else the host ran, with the numbers and where they come from:
 * - the cells' own windows (`started_at` → `written_at`) and hosts: other cells of this run on the
 *   same host at once, against the spec's per-host `concurrency`;
 * - the `collect-metrics` snapshots at the cell's start and end (`host_activity`): the other chbench
 *   servers alive on the host (the host's server registry) and the 1-minute load average
 *   (`os.loadavg()[0]`) against the host's logical CPUs (`os.cpus().length`).
 *
 * Pure: reads the cell results it is given. Cells without `host` (targets not bound to a host, and
 * results written before hosts were recorded) take no part; with no such cell every section is empty.
 */
const markdown_table_1 = __importDefault(require("markdown-table"));
const format_1 = require("./format");
/**
 * The hosts of a run: every host some cell ran on (`host.id`), then every host only seen lost
 * (`host_losses[].hostId`), each in order of first appearance.
 * @param cells the run's cell results, in matrix order.
 * @returns one entry per host id; empty when no cell has `host` or `host_losses`.
 */
function hostsOf(cells) {
    const byId = new Map();
    const get = (id) => {
        let h = byId.get(id);
        if (!h)
            byId.set(id, (h = { id, cellKeys: [], losses: [] }));
        return h;
    };
    for (const c of cells) {
        if (!c.host)
            continue;
        const h = get(c.host.id);
        h.facts ??= c.host;
        h.cellKeys.push(c.cellKey);
    }
    for (const c of cells)
        for (const loss of c.host_losses ?? [])
            get(loss.hostId).losses.push({ cellKey: c.cellKey, loss });
    return [...byId.values()];
}
/** The cell's window in epoch ms, or null without a parseable `started_at` and `written_at`. */
function windowOf(c) {
    if (!c.started_at)
        return null;
    const start = Date.parse(c.started_at);
    const end = Date.parse(c.written_at);
    return Number.isFinite(start) && Number.isFinite(end) && end > start ? { start, end } : null;
}
/**
 * The most other cells running at one instant during cell `c`'s window, and which cells overlapped
 * it at all. Windows are open intervals: a cell that ends exactly when another starts does not
 * overlap it.
 */
function peakOverlap(c, others) {
    const over = others.filter((o) => o.start < c.end && c.start < o.end);
    // Sweep the starts and ends clipped to c's window; at one instant ends go before starts (touching is not overlapping).
    const events = over.flatMap((o) => [
        { t: Math.max(o.start, c.start), d: 1 },
        { t: Math.min(o.end, c.end), d: -1 },
    ]);
    events.sort((a, b) => a.t - b.t || a.d - b.d);
    let now = 0;
    let peak = 0;
    for (const e of events)
        peak = Math.max(peak, (now += e.d));
    return { peak, keys: over.map((o) => o.key) };
}
/** Keys in order, the first `max` of them, then how many more. */
function listKeys(keys, max) {
    return keys.slice(0, max).join(', ') + (keys.length > max ? `, … (+${keys.length - max} more)` : '');
}
function plural(n, one, many) {
    return `${n} ${n === 1 ? one : many}`;
}
/**
 * The "host busy" flags of a run's cells, in cell order (within a cell: overlap, then the start
 * snapshot's, then the end snapshot's). A cell with a host is flagged when, during its window
 * `[started_at, written_at]`:
 * - (`overlap`) more other cells of this run ran at one instant on the same host than
 *   `concurrency − 1` (windows and hosts from the cells' results; cells without `started_at` neither
 *   get nor cause this flag; touching windows do not overlap; a cell that lost a host counts on its
 *   last host, `host`, for its whole window);
 * - (`other-run`) its start or end `host_activity` lists a server of another run;
 * - (`this-run`) its start or end `host_activity` lists more servers of this run's other cells than
 *   `concurrency − 1`;
 * - (`load`) its start or end `host_activity.loadavg1` exceeds the host's `cores`.
 * @param cells the run's cell results; cells without `host` are ignored (neither flagged nor counted).
 * @param concurrency the spec's per-host concurrency (`spec.concurrency`, cells per host at once), ≥ 1.
 */
function busyFlags(cells, concurrency) {
    const allowed = Math.max(0, concurrency - 1);
    const hosted = cells.filter((c) => !!c.host);
    const out = [];
    for (const c of hosted) {
        const hostId = c.host.id;
        const w = windowOf(c);
        if (w) {
            const others = hosted
                .filter((d) => d !== c && d.host.id === hostId)
                .flatMap((d) => {
                const dw = windowOf(d);
                return dw ? [{ key: d.cellKey, ...dw }] : [];
            });
            const { peak, keys } = peakOverlap(w, others);
            if (peak > allowed)
                out.push({
                    cellKey: c.cellKey,
                    hostId,
                    kind: 'overlap',
                    message: `${hostId} ran ${plural(peak, 'other cell', 'other cells')} of this run at once while it ran (${listKeys(keys, exports.MAX_LISTED_CELLS)} overlapped it; per-host concurrency ${concurrency}; from the cells' started_at–written_at)`,
                });
        }
        for (const snapshot of ['start', 'end']) {
            const a = c.host_activity?.[snapshot];
            if (!a)
                continue;
            const at = `at the ${snapshot} snapshot`;
            const foreign = a.otherServers.filter((s) => s.runId !== c.runId);
            if (foreign.length)
                out.push({
                    cellKey: c.cellKey,
                    hostId,
                    kind: 'other-run',
                    snapshot,
                    message: `${foreign.length === 1 ? 'server' : `${foreign.length} servers`} of ${foreign.map((s) => `run ${s.runId} cell ${s.cellKey}`).join(', ')} alive on ${hostId} ${at} (${a.at}; collect-metrics, the host's server registry)`,
                });
            const own = a.otherServers.filter((s) => s.runId === c.runId && s.cellKey !== c.cellKey);
            if (own.length > allowed)
                out.push({
                    cellKey: c.cellKey,
                    hostId,
                    kind: 'this-run',
                    snapshot,
                    message: `${plural(own.length, 'server', 'servers')} of this run's other cells (${own.map((s) => s.cellKey).join(', ')}) alive on ${hostId} ${at}, per-host concurrency ${concurrency} (${a.at}; collect-metrics, the host's server registry)`,
                });
            if (a.loadavg1 > c.host.cores)
                out.push({
                    cellKey: c.cellKey,
                    hostId,
                    kind: 'load',
                    snapshot,
                    message: `load average ${a.loadavg1.toFixed(2)} on ${plural(c.host.cores, 'core', 'cores')} of ${hostId} ${at} (${a.at}; os.loadavg()[0], 1 min; cores: os.cpus().length)`,
                });
        }
    }
    return out;
}
/** The flags grouped per cell, in the flags' order: `cell K: reason; reason`. Plain text. */
function busyNotes(flags) {
    const byCell = new Map();
    for (const f of flags)
        byCell.set(f.cellKey, [...(byCell.get(f.cellKey) ?? []), f.message]);
    return [...byCell.entries()].map(([k, ms]) => `${k}: ${ms.join('; ')}`);
}
/**
 * The headline of the busy flags for the top of the report (plain text), or null when none: how many
 * cells and which. The figures are kept; the flags qualify them.
 */
function busyHeadline(flags) {
    const keys = [...new Set(flags.map((f) => f.cellKey))];
    if (!keys.length)
        return null;
    return `${plural(keys.length, 'cell', 'cells')} ran while their host ran something else (${keys.join(', ')}): their figures are kept but may be disturbed.`;
}
/** One line per host loss, plain text: `cell K: host B lost during <step> (<error>); provisioned again on host A`. */
function hostLossNotes(cells) {
    return cells.flatMap((c) => (c.host_losses ?? []).map((l) => `cell ${c.cellKey}: host ${l.hostId} lost during ${l.step} (${l.error.split('\n')[0]}); provisioned again on ${c.host ? `host ${c.host.id}` : 'another host (not recorded)'}`));
}
/** Cell keys listed (per host, per overlap flag) before the rest is counted. */
exports.MAX_LISTED_CELLS = 20;
/**
 * The hosts table: id, hostname, CPU model, cores, memory, kernel, cells it ran (count and keys, the
 * first {@link MAX_LISTED_CELLS}) and its losses. Facts from `HostFacts` (node's `os` module on the host).
 */
function hostsTable(hosts) {
    return {
        head: ['host', 'hostname', 'CPU model', 'cores', 'memory', 'kernel', 'cells', 'host losses'],
        rows: hosts.map((h) => {
            const f = h.facts;
            return [
                h.id,
                f?.hostname ?? 'n/a',
                f?.cpuModel ?? 'n/a',
                f ? String(f.cores) : 'n/a',
                (0, format_1.fmtBytes)(f?.memoryBytes),
                f?.kernel ?? 'n/a',
                h.cellKeys.length ? `${h.cellKeys.length}: ${listKeys(h.cellKeys, exports.MAX_LISTED_CELLS)}` : '0',
                h.losses.length ? h.losses.map((l) => `lost during ${l.cellKey} ${l.loss.step}`).join('; ') : 'none',
            ];
        }),
    };
}
/** Any cell records its host: the report then has a Hosts section and a host column. */
function hasHosts(cells) {
    return cells.some((c) => c.host);
}
/** The Cells table's host column for a cell: its host id (and the hosts it lost), or `—` without a host. */
function hostColumn(c) {
    const lost = (c.host_losses ?? []).map((l) => l.hostId);
    return `${c.host?.id ?? '—'}${lost.length ? ` (after losing ${lost.join(', ')})` : ''}`;
}
/**
 * The `## Hosts` section of report.md (markdown lines), or none when no cell has `host`: the hosts
 * table and the host losses.
 */
function hostsSection(cells) {
    if (!hasHosts(cells))
        return [];
    const t = hostsTable(hostsOf(cells));
    const losses = hostLossNotes(cells);
    return [
        '## Hosts',
        '',
        'The host whose worker ran each cell\'s steps (targets on the worker\'s host), with its facts as the provision step recorded them on the host (`os.hostname()`, `os.cpus()` model and count, `os.totalmem()`, `os.type()` `os.release()`). Cells whose host ran something else at the time are listed under Validity.',
        '',
        (0, markdown_table_1.default)([t.head, ...t.rows]),
        '',
        ...(losses.length ? ['Hosts lost during a cell (no worker of the host took the step within its schedule-to-start timeout):', '', ...losses.map((l) => `- ${l}`), ''] : []),
    ];
}
/** The busy flags as report.md's Validity section lists them (markdown lines), or none. */
function busySection(flags, concurrency) {
    const notes = busyNotes(flags);
    if (!notes.length)
        return [];
    return [
        `Cells whose host ran something else at the time (per-host concurrency ${concurrency}; a note on the figures, not a failure):`,
        '',
        ...notes.map((n) => `- ⚠ ${n}`),
        '',
    ];
}
//# sourceMappingURL=report-hosts.js.map