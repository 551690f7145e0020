"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.confirmRunId = confirmRunId;
exports.createConfirmComparison = createConfirmComparison;
/**
 * The confirming re-run of a comparison (the `confirmComparison` workflow's own activities):
 * `planConfirmation` turns each flagged pair into two fresh cells — the baseline's setup (version,
 * codec, settings, target, from the baseline run's spec in the results database) and the new run's —
 * and `runInterleaved` measures the flagged queries on both, interleaved A, B, A, B … so that both
 * sides see the same machine at the same time (ClickHouse's performance comparison runs old and new
 * servers the same way). Each side's run is measured by the query step's own method
 * (`measureQueries`, src/measure/protocol.ts): warm runs, the runs' settings, validity judged per run.
 */
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("../../clickhouse/client");
const protocol_1 = require("../../measure/protocol");
const workload_1 = require("../../lib/workload");
const store_1 = require("../../results/store");
const db_1 = require("../../results/db");
const activity_context_1 = require("../../temporal/activity-context");
const attempts_1 = require("../support/attempts");
const measure_options_1 = require("../support/measure-options");
const matrix_1 = require("../../schema/matrix");
const run_spec_1 = require("../../schema/run-spec");
const cell_1 = require("../../schema/cell");
/** The results folder (run id) of a run's confirming re-run cells: `<runId>.confirm`. */
function confirmRunId(runId) {
    return `${runId}.confirm`;
}
/** Rebuild a run's cell input from its spec (as stored in the results database). @throws Error when the cell is not in that spec. */
function cellOf(specJson, runId, cellKey) {
    const spec = run_spec_1.RunSpec.parse(JSON.parse(specJson));
    const cell = (0, matrix_1.cellInputs)(spec, runId, (0, workload_1.indexQueryIds)(spec.workload, spec.queries)).find((c) => c.cellKey === cellKey);
    if (!cell)
        throw new Error(`run ${runId} has no cell ${cellKey} in its spec`);
    return cell;
}
/** Activity factory. */
function createConfirmComparison() {
    return {
        /**
         * Plan the confirming re-run: per flagged pair, the baseline cell as its run specified it and the
         * new cell as this run specified it, both re-keyed into `<runId>.confirm` (`p<n>-baseline`,
         * `p<n>-new`), limited to the flagged queries, always torn down. The specs come from the results
         * database's `runs.spec_json`.
         * @throws Error when a run or cell is missing from the results database.
         */
        async planConfirmation(input) {
            return (0, db_1.withResultsDb)(input.results, input.resultsDir, async (db) => {
                const plans = [];
                for (const [i, f] of input.flagged.entries()) {
                    const specOf = async (runId) => {
                        const run = await db.run(runId);
                        if (!run)
                            throw new Error(`run ${runId} is not in the results database (${db.description})`);
                        return run.spec_json;
                    };
                    const ids = [...new Set(f.queries.map((q) => q.query_id))];
                    const rekey = (c, side) => ({
                        ...c,
                        runId: confirmRunId(input.runId),
                        cellKey: `p${i + 1}-${side}`,
                        queries: ids,
                        skipIndex: c.skipIndex && f.queries.some((q) => q.phase === 'index'),
                        teardown: 'always',
                        resultsDir: input.resultsDir,
                    });
                    plans.push({
                        pairKey: f.pairKey,
                        baseline: rekey(cellOf(await specOf(f.baselineCell.runId), f.baselineCell.runId, f.baselineCell.cellKey), 'baseline'),
                        candidate: rekey(cellOf(await specOf(f.newCell.runId), f.newCell.runId, f.newCell.cellKey), 'new'),
                        phases: {
                            baseline: f.queries.filter((q) => q.phase === 'baseline').map((q) => q.query_id),
                            index: f.queries.filter((q) => q.phase === 'index').map((q) => q.query_id),
                        },
                    });
                }
                return plans;
            });
        },
        /**
         * Measure `queries` on both cells, interleaved: one warm-up run per query and side, then
         * `rounds` rounds of (A, B) per query. Merges are stopped on both tables while measuring (when the
         * protocol asks for it, as in the query step). Every run is recorded in
         * `results/<runId>.confirm/interleaved-<pairKey>-<phase>.json`; a retry measures from scratch.
         * @returns per query the valid warm runs' figure on each side (ms): server-side elapsed when every
         *   kept run of both sides has it, else client wall time (`figure` says which).
         * @throws what `measureQueries` throws (a lost server, a cancellation); a query that fails on the server fails the activity.
         */
        async runInterleaved(input) {
            const sides = [
                { name: 'baseline', si: input.baseline, ql: input.queryLog.baseline },
                { name: 'candidate', si: input.candidate, ql: input.queryLog.candidate },
            ].map((s) => {
                const m = (0, workload_1.loadWorkload)(s.si.cell.workload);
                const queries = (0, workload_1.workloadQueries)(m, { table: m.table, rows: s.si.cell.scale, codec: (0, cell_1.cellCodecProfile)(s.si.cell) }, input.queries);
                const prefix = (0, cell_1.queryIdPrefix)(s.si.cell.runId, s.si.cell.cellKey, input.phase);
                const client = (0, client_1.connect)(s.si.target, { maxExecutionTimeS: s.si.cell.protocol.maxExecutionTimeS });
                const { options } = (0, measure_options_1.cellMeasureOptions)(s.si, s.ql, prefix, `confirm-${input.phase}`);
                return { ...s, table: m.table, queries, prefix, client, options, merges: null };
            });
            const runs = {};
            try {
                for (const s of sides) {
                    await (0, attempts_1.settlePreviousAttempts)(s.si.target, s.client, s.prefix);
                    if (s.si.cell.protocol.stopMergesDuringQueries)
                        s.merges = await (0, client_1.tryCommand)(s.client, `SYSTEM STOP MERGES ${s.table}`);
                }
                for (let round = 0; round <= input.rounds; round++)
                    for (const id of input.queries)
                        for (const s of sides) {
                            const q = s.queries.find((x) => x.id === id);
                            if (!q)
                                throw new Error(`query ${id} is not in workload ${s.si.cell.workload}`);
                            (0, activity_context_1.heartbeat)({
                                step: `confirm-${input.phase}`,
                                pair: input.pairKey,
                                query: id,
                                round,
                                of: input.rounds,
                                side: s.name,
                            });
                            // Round 0 is each side's warm-up run; rounds 1…n are measured.
                            const [record] = await (0, protocol_1.measureQueries)(s.client, s.table, [q], {
                                ...s.options,
                                coldRuns: 0,
                                warmupRuns: round === 0 ? 1 : 0,
                                warmRuns: round === 0 ? 0 : 1,
                                queryIdPrefix: `${s.prefix}-r${round}`,
                            });
                            if (record.error)
                                throw new Error(`${id.toUpperCase()} failed on the ${s.name} cell in round ${round}: Code ${record.error.code}: ${record.error.message.split('\n')[0]}`);
                            const kept = (runs[id] ??= { baseline: [], candidate: [] });
                            kept[s.name].push(...record.samples.map((x) => ({ ...x, n: round })));
                        }
            }
            finally {
                for (const s of sides) {
                    if (s.merges?.ok)
                        await (0, client_1.tryCommand)(s.client, `SYSTEM START MERGES ${s.table}`);
                    await s.client.close();
                }
            }
            const file = node_path_1.default.join((0, store_1.runDir)(input.candidate.cell.resultsDir, input.candidate.cell.runId), `interleaved-${input.pairKey.replace(/[^A-Za-z0-9._-]/g, '_')}-${input.phase}.json`);
            (0, store_1.writeJsonAtomic)(file, {
                schema: 'chbench.interleaved/v1',
                pair: input.pairKey,
                phase: input.phase,
                rounds: input.rounds,
                order: "per round and query: baseline cell, then new cell; round 0 is each side's warm-up",
                baseline_cell: input.baseline.cell.cellKey,
                new_cell: input.candidate.cell.cellKey,
                runs,
            });
            return input.queries.map((id) => {
                const valid = (xs) => xs.filter((x) => x.kind === 'warm' && x.validity.quiet.valid !== false);
                const a = valid(runs[id]?.baseline ?? []);
                const b = valid(runs[id]?.candidate ?? []);
                const server = a.length > 0 && b.length > 0 && [...a, ...b].every((x) => x.server_elapsed_ms !== null);
                const fig = (x) => (server ? x.server_elapsed_ms : x.wall_ms);
                return {
                    query_id: id,
                    phase: input.phase,
                    figure: server ? 'server_elapsed_ms' : 'wall_ms',
                    baseline_ms: a.map(fig),
                    new_ms: b.map(fig),
                };
            });
        },
    };
}
//# sourceMappingURL=confirm-comparison.js.map