"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.cellSpan = cellSpan;
exports.cellStepWindows = cellStepWindows;
const ms = (iso) => {
    if (iso === undefined)
        return undefined;
    const t = Date.parse(iso);
    return Number.isFinite(t) ? t : undefined;
};
/** Span of some runs: earliest `started_at` to latest `finished_at`; undefined when any run lacks them. */
function runsSpan(samples) {
    if (samples.length === 0)
        return undefined;
    const starts = samples.map((s) => ms(s.started_at));
    const ends = samples.map((s) => ms(s.finished_at));
    if (starts.some((x) => x === undefined) || ends.some((x) => x === undefined))
        return undefined;
    return { startMs: Math.min(...starts), endMs: Math.max(...ends) };
}
/**
 * The whole cell's span: from `provision.json provisioned_at` (written once the server answered, so
 * the pod and volume existed somewhat earlier: this is the earliest time the records prove) to
 * `teardown.json torn_down_at` (written after the pod and PVC were deleted); without a teardown
 * record, to the latest step end seen (and `toSource` says so).
 * @returns undefined when there is no provision record
 */
function cellSpan(r, steps) {
    const start = ms(r.provision?.provisioned_at);
    if (start === undefined)
        return undefined;
    const torn = ms(r.teardown?.torn_down_at);
    if (torn !== undefined && torn >= start)
        return {
            startMs: start,
            endMs: torn,
            fromSource: 'provision.json provisioned_at',
            toSource: 'teardown.json torn_down_at',
        };
    const lastEnd = Math.max(start, ...steps.map((s) => s.endMs));
    return {
        startMs: start,
        endMs: lastEnd,
        fromSource: 'provision.json provisioned_at',
        toSource: 'the latest step end recorded (no teardown.json: the cell was not torn down by chbench)',
    };
}
/**
 * The step windows of a cell, in run order: `load`, `quiesce <label>`, per query and phase
 * `<q> cold (<phase>)` and `<q> warm (<phase>)` (warm-up runs belong to neither), `index build`,
 * and `cell` (the whole cell, {@link cellSpan}).
 * @returns the windows and one line per step whose record carries no wall-clock times
 */
function cellStepWindows(r) {
    const steps = [];
    const missing = [];
    const add = (step, from, to) => {
        const a = ms(from);
        const b = ms(to);
        if (a === undefined || b === undefined || b < a)
            missing.push(`${step}: no started_at/finished_at in its record`);
        else
            steps.push({ step, startMs: a, endMs: b });
    };
    if (r.load && !r.load.reused)
        add('load', r.load.started_at, r.load.finished_at);
    for (const [label, q] of Object.entries(r.quiesce ?? {}))
        add(`quiesce ${label}`, q.started_at, q.finished_at);
    const queries = (rec) => {
        const all = runsSpan((rec?.queries ?? []).flatMap((q) => q.samples.filter((x) => x.kind !== 'warmup')));
        if (rec && all)
            steps.push({ step: `queries (${rec.phase})`, ...all });
        for (const q of rec?.queries ?? [])
            for (const kind of ['cold', 'warm']) {
                const runs = q.samples.filter((s) => s.kind === kind);
                if (runs.length === 0)
                    continue;
                const step = `${q.id} ${kind} (${rec.phase})`;
                const span = runsSpan(runs);
                if (span)
                    steps.push({ step, ...span });
                else
                    missing.push(`${step}: a run has no started_at/finished_at`);
            }
    };
    queries(r.queriesBaseline);
    if (r.index)
        add('index build', r.index.started_at, r.index.finished_at);
    queries(r.queriesIndex);
    steps.sort((a, b) => a.startMs - b.startMs);
    const span = cellSpan(r, steps);
    if (span)
        steps.push({ step: 'cell', startMs: span.startMs, endMs: span.endMs });
    else
        missing.push('cell: no provision.json provisioned_at');
    return { steps, missing, ...(span ? { span } : {}) };
}
//# sourceMappingURL=steps.js.map