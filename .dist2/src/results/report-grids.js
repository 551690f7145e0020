"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.MIN_TAIL_SAMPLES = void 0;
exports.insertGridTable = insertGridTable;
exports.concurrencyTable = concurrencyTable;
exports.profileLines = profileLines;
exports.insertGridNotes = insertGridNotes;
exports.concurrencyNotes = concurrencyNotes;
exports.steppingOutcome = steppingOutcome;
exports.gridsOutcome = gridsOutcome;
exports.gridsSections = gridsSections;
/**
 * The load grids in the report: the insert grid's table and the concurrency stepping's table, with
 * the knee and the reason stepping stopped (derived from the step records with the same functions the
 * workflow used, `findKnee` and `nextStepDecision` in src/schema/grids.ts). Pure: reads records only.
 */
const markdown_table_1 = __importDefault(require("markdown-table"));
const grids_1 = require("../schema/grids");
const format_1 = require("./format");
/**
 * Fewest samples a P95/P99 is shown from: below it the tail percentiles are interpolated between a
 * handful of values and say nothing about a tail, so the table shows `—` (P50 and max stay).
 */
exports.MIN_TAIL_SAMPLES = 20;
/** ms with 2 decimals under 10, 1 under 100, whole above; whole always when the source counts whole ms. */
function ms(x, wholeMs = false) {
    if (x === null)
        return 'n/a';
    if (wholeMs)
        return x.toFixed(0);
    return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}
function lat(l, wholeMs = false) {
    const tail = l.count >= exports.MIN_TAIL_SAMPLES;
    return `${ms(l.p50, wholeMs)} / ${tail ? ms(l.p95, wholeMs) : '—'} / ${tail ? ms(l.p99, wholeMs) : '—'} / ${ms(l.max, wholeMs)}`;
}
/** The step's server latency counts whole milliseconds (`query_duration_ms`, e.g. on 18.16). */
function wholeMsSource(r) {
    return r.summary.latencySource === 'query_log' && /query_duration_ms/.test(r.query_log?.source ?? '');
}
function codes(by) {
    const e = Object.entries(by);
    return e.length ? e.map(([c, n]) => `${n}× ${/^\d+$/.test(c) ? `code ${c}` : c}`).join(', ') : '';
}
/** The insert grid of one cell as a table (one row per point, in the order the points ran). */
function insertGridTable(points) {
    return {
        head: [
            'batch',
            'clients',
            'settings',
            'format',
            'rows/s',
            'MB/s',
            'INSERT ms P50 / P95 / P99 / max',
            'INSERTs',
            'errors',
            'parts / INSERT',
            'peak active parts',
            'peak merges',
            'delayed / rejected',
            'peak memory',
            'verified',
            'client-bound',
        ],
        rows: points.map((r) => {
            const s = r.summary;
            const d = r.events.deltas;
            const ev = (k) => (d[k] === undefined || d[k] === null ? 'n/a' : (0, format_1.fmtInt)(d[k]));
            return [
                (0, format_1.fmtInt)(r.point.batchSize),
                String(r.point.concurrency),
                r.point.profile.name,
                r.point.format,
                (0, format_1.fmtInt)(Math.round(s.rowsPerS)),
                s.mbPerS.toFixed(1),
                lat(s.latencyMs),
                (0, format_1.fmtInt)(s.inserts),
                s.errors ? `${(0, format_1.fmtInt)(s.errors)} (${codes(r.loop.errors_by_code)})` : '0',
                r.parts.per_insert === null ? 'n/a' : r.parts.per_insert.toFixed(2),
                r.parts.peak_active === null ? 'n/a' : (0, format_1.fmtInt)(r.parts.peak_active),
                r.parts.peak_merges === null ? 'n/a' : (0, format_1.fmtInt)(r.parts.peak_merges),
                `${ev('DelayedInserts')} / ${ev('RejectedInserts')}`,
                r.parts.peak_memory_bytes === null ? 'n/a' : (0, format_1.fmtBytes)(r.parts.peak_memory_bytes),
                s.verified ? `yes (${(0, format_1.fmtInt)(r.verification.count)} rows)` : `**NO** — ${r.verification.reasons.join('; ')}`,
                s.clientBound ? '**yes**' : 'no',
            ];
        }),
    };
}
/** The stepping of one cell as a table (one row per step run). */
function concurrencyTable(steps) {
    return {
        head: ['clients', 'QPS', 'latency ms P50 / P95 / P99 / max', 'latency source', 'client wall P99 ms', 'requests', 'errors', 'client-bound'],
        rows: steps.map((r) => {
            const s = r.summary;
            return [
                String(s.clients),
                s.qps.toFixed(1),
                lat(s.latencyMs, wholeMsSource(r)),
                s.latencySource === 'query_log'
                    ? `server (query_log ${wholeMsSource(r) ? 'query_duration_ms, whole ms' : 'µs timestamps'})`
                    : 'client wall',
                s.wallLatencyMs.count >= exports.MIN_TAIL_SAMPLES ? ms(s.wallLatencyMs.p99) : '—',
                (0, format_1.fmtInt)(s.requests),
                s.errors ? `${(0, format_1.fmtInt)(s.errors)} (${codes(s.errorsByCode)})` : '0',
                s.clientBound ? '**yes**' : 'no',
            ];
        }),
    };
}
/** One line per settings profile of the matrix (`matrix.settings`): its name and what it sets. */
function profileLines(spec) {
    const kv = (o) => Object.entries(o)
        .map(([k, v]) => `${k} = ${v}`)
        .join(', ');
    return (spec.matrix.settings ?? []).map((p) => {
        const parts = [
            ...(Object.keys(p.query).length ? [`query ${kv(p.query)}`] : []),
            ...(Object.keys(p.mergeTree).length ? [`MergeTree ${kv(p.mergeTree)}`] : []),
        ];
        return `\`${p.name}\`: ${parts.join('; ') || 'nothing beyond the spec\'s settings'}`;
    });
}
/** What a reader must know about a cell's insert points beyond the table: async inserts, settings not applied, repeated data, client-bound points, early stops. */
function insertGridNotes(c, spec) {
    const pts = c.grids?.insert ?? [];
    const notes = [
        ...new Set(pts.flatMap((r) => (r.async_insert.note ? [`${r.point.profile.name}: ${r.async_insert.note}`] : []))),
        ...new Set(pts.flatMap((r) => Object.entries(r.settings_not_applied ?? {}).map(([k, why]) => `${r.point.profile.name}: setting ${k} not applied — ${why}`))),
    ];
    if (spec.grids?.insert?.data === 'repeat')
        notes.push('data: repeat — every batch repeats the first, so a deduplicating table drops all but one; "verified" then counts those rows once');
    for (const r of pts.filter((x) => x.summary.clientBound))
        notes.push(`⚠ ${r.summary.key}: client-bound — ${r.cpu.reason}`);
    for (const r of pts.filter((x) => x.loop.stopped_by === 'duration'))
        notes.push(`${r.summary.key}: stopped by the point's duration limit before every row was sent`);
    if (pts.some((r) => r.summary.latencyMs.count < exports.MIN_TAIL_SAMPLES))
        notes.push(`P95 / P99 are shown only from ${exports.MIN_TAIL_SAMPLES} INSERTs or more ("—" otherwise: too few for a tail)`);
    return notes;
}
/** What a reader must know about a cell's stepping beyond the table. */
function concurrencyNotes(c) {
    const steps = c.grids?.concurrency ?? [];
    const notes = [];
    if (c.target_kind === 'embedded')
        notes.push('The embedded engine runs one statement at a time (its HTTP front end serialises statements on one chdb session), so more clients queue rather than run in parallel: expect QPS to stay flat and client wall latency to grow with clients. A real server runs them concurrently.');
    for (const r of steps.filter((x) => x.summary.clientBound))
        notes.push(`⚠ ${r.summary.clients} clients: client-bound — ${r.cpu?.reason ?? 'no CPU figures'}`);
    if (steps.some((r) => r.summary.latencyMs.count < exports.MIN_TAIL_SAMPLES))
        notes.push(`P95 / P99 are shown only from ${exports.MIN_TAIL_SAMPLES} requests or more ("—" otherwise)`);
    return notes;
}
/** The knee of a cell's stepping and why stepping stopped, from its records and the spec. */
function steppingOutcome(steps, g) {
    const done = steps.map((r) => r.summary);
    const d = (0, grids_1.nextStepDecision)(done, g);
    return {
        knee: (0, grids_1.findKnee)(done, g),
        stopReason: d.go ? `stopped after ${done.length} of ${g.steps.length} steps (the cell ended before the rest)` : d.stopReason,
    };
}
/** Totals over the cells of a run. */
function gridsOutcome(cells, spec) {
    const g = spec.grids?.concurrency;
    return {
        insertPoints: cells.reduce((n, c) => n + (c.grids?.insert.length ?? 0), 0),
        insertVerified: cells.reduce((n, c) => n + (c.grids?.insert.filter((r) => r.summary.verified).length ?? 0), 0),
        concurrencySteps: cells.reduce((n, c) => n + (c.grids?.concurrency.length ?? 0), 0),
        knees: g ? cells.filter((c) => c.grids?.concurrency.length).map((c) => steppingOutcome(c.grids.concurrency, g).knee.clients) : [],
    };
}
/** The report.md sections of the load grids (empty when the run has none). */
function gridsSections(spec, cells, label) {
    const out = [];
    const withSteps = cells.filter((c) => c.grids?.concurrency.length);
    if (spec.grids?.concurrency) {
        const g = grids_1.ConcurrencyGridSpec.parse(spec.grids.concurrency);
        out.push('## Concurrency stepping', '', `Closed-loop clients (each sends its next query when the last one returned, one connection each) over the mix ${(g.mix ?? []).map((e) => `${e.id}×${e.weight}`).join(', ') || 'of every selected query, weight 1'}; each step warms up ${g.warmupS} s (not counted), then is measured for ${g.durationS} s. QPS = successful queries that started and finished in the measured window / its seconds (a query still running at its end counts in the latency, not in QPS). Latency: server-side \`query_duration_ms\` from \`system.query_log\` where the server keeps it, else client wall time (send → last byte), as the "latency source" column says; client wall P99 is shown beside it (the difference is time spent waiting outside the server). Knee: the step after which QPS rose by less than ${(g.kneeMinGain * 100).toFixed(0)} % or P99 grew by more than ${g.kneeP99Factor}×.`, '');
        if (!withSteps.length)
            out.push('No cell measured a step (see the cells above for why).', '');
        for (const c of withSteps) {
            const t = concurrencyTable(c.grids.concurrency);
            const o = steppingOutcome(c.grids.concurrency, g);
            out.push(`### ${label(c)}`, '', (0, markdown_table_1.default)([t.head, ...t.rows]), '');
            out.push(`Knee: ${o.knee.clients === null ? 'none within the steps run' : `**${o.knee.clients} client${o.knee.clients === 1 ? '' : 's'}**`} — ${o.knee.reason}. Stepping ended: ${o.stopReason}.`, '');
            const notes = concurrencyNotes(c);
            if (notes.length)
                out.push(...notes.map((n) => `- ${n}`), '');
        }
    }
    const withPoints = cells.filter((c) => c.grids?.insert.length);
    if (spec.grids?.insert) {
        out.push('## Insert grid', '', "Each point inserts into its own fresh table (the workload's schema, the cell's codec and table settings plus the profile's). Rows are generated on the server in the point's format before the timed loop (distinct rows per batch unless the spec says `data: repeat`), then closed-loop clients, one connection each, POST the batches. rows/s = rows the server acknowledged / client wall time of the loop (for async inserts, until the rows were visible); MB/s = body bytes sent / the same time (10^6 bytes). INSERT latency: client wall per request. parts / INSERT = parts the INSERTs created (`system.part_log` NewPart rows where the server keeps it, else Δ `MergeTreeDataWriterBlocks` in `system.events`, server-wide) / successful INSERTs; peak active parts and merges from `system.parts` / `system.merges` sampled during the loop; delayed / rejected = Δ `DelayedInserts` / `RejectedInserts` (`system.events`); peak memory = `MemoryTracking` (`system.metrics`) at a sample. Verified: `count()` of the table equals the rows acknowledged minus the rows sent as duplicates to a deduplicating table.", '');
        if (!withPoints.length)
            out.push('No cell measured an insert point (see the cells above for why).', '');
        for (const c of withPoints) {
            const t = insertGridTable(c.grids.insert);
            out.push(`### ${label(c)}`, '', (0, markdown_table_1.default)([t.head, ...t.rows]), '');
            const notes = insertGridNotes(c, spec);
            if (notes.length)
                out.push(...notes.map((n) => `- ${n}`), '');
        }
    }
    return out;
}
//# sourceMappingURL=report-grids.js.map