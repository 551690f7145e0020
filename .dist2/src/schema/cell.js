"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CELL_STEPS = exports.QUERY_ID_STEPS = exports.CellOutcome = exports.CellStatus = void 0;
exports.cellCodecProfile = cellCodecProfile;
exports.queryIdPrefix = queryIdPrefix;
exports.parseQueryId = parseQueryId;
/**
 * Inputs and outputs of the cell's activities. Everything here travels through workflow history:
 * keep it small (summaries and file references), never raw samples, query_log rows or secrets.
 * Workflow code imports this module for types only, so zod stays out of the workflow bundle.
 */
const zod_1 = require("zod");
const host_1 = require("./host");
/** The codec profile a cell applies: its name, default expression and per-column overrides. Pure. */
function cellCodecProfile(cell) {
    return {
        name: cell.codec,
        default: cell.codecProfile?.default ?? cell.codec,
        columns: cell.codecProfile?.columns ?? {},
    };
}
/** How a cell ended. */
exports.CellStatus = zod_1.z.enum(['succeeded', 'failed', 'skipped', 'cancelled']);
/** Reference to what a cell wrote: the cell workflow's result, one entry of the matrix result. */
exports.CellOutcome = zod_1.z.object({
    cellKey: zod_1.z.string(),
    status: exports.CellStatus,
    /** Path of the cell's `result.json`. */
    resultFile: zod_1.z.string(),
    /** Why it failed or was skipped (first lines of the failure). */
    error: zod_1.z.string().optional(),
    /** Hosts lost while the cell ran on them (the matrix places no more cells there). */
    hostLosses: zod_1.z.array(host_1.HostLoss).optional(),
    /**
     * The cell ended because the host the matrix placed it on was lost before it finished: nothing of
     * it was measured to the end, and the matrix runs it again on another host.
     */
    hostLost: zod_1.z.boolean().optional(),
});
/**
 * Stable query_id prefix of a cell's statements in one step: `chb-<runId>-<cellKey>-<step>`, every
 * character outside `[A-Za-z0-9._-]` replaced by `_`. Each statement appends its own tail and ends
 * with `-a<attempt>` (see {@link parseQueryId}), so a retry finds and settles its earlier attempt's
 * statements by prefix, and the archived server log can be split by step and attempt.
 * `step` `''` gives the cell's prefix followed by `-`.
 */
function queryIdPrefix(runId, cellKey, step) {
    return `chb-${runId}-${cellKey}-${step}`.replace(/[^A-Za-z0-9._-]/g, '_');
}
/** Steps whose statements carry a {@link queryIdPrefix} query_id. */
exports.QUERY_ID_STEPS = ['load', 'baseline', 'index'];
const QUERY_ID = /^(?<prefix>.+-(?<step>load|baseline|index))(?:-(?:(?<statement>truncate)|(?<query>.+)-(?<kind>cold|warmup|warm)(?<n>\d+)))?-a(?<attempt>\d+)$/;
/**
 * Inverse of the query_ids chbench builds from {@link queryIdPrefix}:
 * `<prefix>-a<attempt>` (the load's INSERT), `<prefix>-truncate-a<attempt>`, and
 * `<prefix>-<query>-<kind><n>-a<attempt>` (a measured run). `null` for any other id
 * (another client's statement, chbench's own `chb-watch-…` reads).
 */
function parseQueryId(id) {
    const g = QUERY_ID.exec(id)?.groups;
    if (!g)
        return null;
    return {
        stepPrefix: g.prefix,
        step: g.step,
        attempt: Number(g.attempt),
        ...(g.query !== undefined ? { run: { query: g.query, kind: g.kind, n: Number(g.n) } } : {}),
        ...(g.statement ? { statement: 'truncate' } : {}),
    };
}
/**
 * The cell's steps in the order the cell workflow runs them (provision … teardown); the three index
 * steps run only when the cell has a skip index. One name per step everywhere: this table drives the
 * workflow's progress/phase values, the chaos suite's kill coverage and the README's
 * "What a cell measures" table (checked by test/unit/cell-steps.test.ts).
 */
exports.CELL_STEPS = [
    { phase: 'provision', activity: 'provision', file: 'src/activities/provision.ts', record: '`provision.json`, `probe.json`, `settings.json`: `version()`, `timezone()`, CPUs, memory, query_log availability, capability probe, how it was provisioned' },
    { phase: 'collect-metrics', activity: 'collectMetrics', file: 'src/activities/collect-metrics.ts', record: '`metrics-start.json`: `system.events` and host `/proc/diskstats` before the cell' },
    { phase: 'create-schema', activity: 'createSchema', file: 'src/activities/create-schema.ts', record: '`schema.json`: DDL sent and `SHOW CREATE TABLE`; each column\'s codec read back (`system.columns.compression_codec`) against the cell\'s codec profile (a mismatch fails the cell); table settings applied as the server shows them; `EXPLAIN` of every query on the empty table (a failure names the query id and file)' },
    { phase: 'load', activity: 'loadData', file: 'src/activities/load-data.ts', record: '`load.json`: INSERT … SELECT elapsed (client wall and server), rows/s, `count()` = scale, partitions, active parts' },
    { phase: 'quiesce', activity: 'quiesceMerges', file: 'src/activities/quiesce-merges.ts', record: '`quiesce-after-load.json`: waits until no merge/mutation runs and the active parts are stable' },
    { phase: 'storage', activity: 'storageStats', file: 'src/activities/storage-stats.ts', record: '`storage.json`: totals from `system.parts`, per column from `system.parts_columns` (only when every part is Wide) with its codec from `system.columns`' },
    { phase: 'queries-baseline', activity: 'runQueries', file: 'src/activities/run-queries.ts', record: '`queries-baseline.json`: per query `EXPLAIN indexes = 1`; cold runs (cache drops with outcomes, direct I/O requested, OS cache drop outcome); warm runs; per run wall/server time, read_rows/bytes, result hash, query_log row' },
    { phase: 'materialize-index', activity: 'materializeSkipIndex', file: 'src/activities/materialize-skip-index.ts', record: '`index.json`: `ADD INDEX` + `MATERIALIZE INDEX`, polls `system.mutations`, index size' },
    { phase: 'quiesce-index', activity: 'quiesceMerges', file: 'src/activities/quiesce-merges.ts', record: '`quiesce-after-index.json`: merges settled after the mutation' },
    { phase: 'queries-index', activity: 'runQueries', file: 'src/activities/run-queries.ts', record: '`queries-index.json`: the queries again, with the index proof (EXPLAIN granules, read_rows vs baseline)' },
    { phase: 'concurrency', activity: 'concurrencyStep', file: 'src/activities/concurrency-steps.ts', record: '`grids/concurrency-c<clients>.json` (only with `grids.concurrency`): closed-loop clients over the query mix per step: QPS, latency P50/P95/P99/max (query_log or client wall, labelled), errors by code, client CPU' },
    { phase: 'insert-grid', activity: 'insertPoint', file: 'src/activities/insert-grid.ts', record: '`grids/insert-<point>.json` (only with `grids.insert`): per batch × concurrency × settings × format, its own table: rows/s, MB/s, INSERT latency, errors, parts per INSERT, active parts and merges over time, memory, `system.events` deltas, `count()` verification' },
    { phase: 'collect-metrics-end', activity: 'collectMetrics', file: 'src/activities/collect-metrics.ts', record: '`metrics-end.json`: `system.events` and host `/proc/diskstats` after the cell' },
    { phase: 'write-results', activity: 'writeCellResult', file: 'src/activities/write-cell-result.ts', record: '`result.json` (schema `chbench.cell-result/v1`): every step file above, attempts, restarts, outcome' },
    { phase: 'teardown', activity: 'teardown', file: 'src/activities/teardown.ts', record: '`teardown.json`: stops/drops the target (in a non-cancellable scope), server log archive' },
];
//# sourceMappingURL=cell.js.map