"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CLICKBENCH_TIMING = void 0;
exports.clickBenchResults = clickBenchResults;
exports.samplesExportSql = samplesExportSql;
/**
 * Exports of a stored run in formats other tools read (`chbench export`):
 * - `clickbench`: ClickBench's published result JSON, one document per cell and phase;
 * - `jsonl` / `csv`: one line per `samples` row (one measured query run), with the cell's version
 *   label, server version and codec joined in.
 */
const sql_1 = require("../../lib/sql");
/** Source of a ClickBench try's time, stated in each document's comment. */
exports.CLICKBENCH_TIMING = 'per query, server-side elapsed (the sample\'s server_elapsed_source: HTTP summary elapsed_ns or system.query_log) when all three tries have it, else client wall time; tries = the first cold run, then the first two warm runs';
/**
 * ClickBench documents of a stored run: one per cell with query samples and per phase
 * (`baseline`, and `index` tagged `skip index`).
 * @throws Error when the run is not in the database
 */
async function clickBenchResults(db, runId) {
    const run = await db.run(runId);
    if (!run)
        throw new Error(`no run ${runId} in the results database (${db.description})`);
    const [cells, samples] = await Promise.all([db.cells(runId), db.samples(runId)]);
    const out = [];
    for (const cell of cells)
        for (const phase of ['baseline', 'index']) {
            const mine = samples.filter((s) => s.cell_key === cell.cell_key && s.phase === phase);
            if (!mine.length)
                continue;
            const queries = [...new Set(mine.map((s) => s.query_id))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
            out.push({ name: `${cell.cell_key}.${phase}`, doc: clickBenchDoc(run.started_at, runId, cell, phase, queries, mine) });
        }
    return out;
}
function clickBenchDoc(startedAt, runId, cell, phase, queries, samples) {
    const facts = JSON.parse(cell.facts_json);
    const cpus = facts.server?.cpus;
    const mem = facts.server?.memory_bytes;
    const result = queries.map((q) => {
        const pick = (kind, n) => samples.find((s) => s.query_id === q && s.kind === kind && s.n === n);
        const tries = [pick('cold', 1), pick('warm', 1), pick('warm', 2)];
        const server = tries.every((t) => t && t.server_elapsed_ms !== null);
        return tries.map((t) => (t ? (server ? t.server_elapsed_ms : t.wall_ms) / 1000 : null));
    });
    return {
        system: `ClickHouse ${cell.server_version ?? cell.version_label} (chbench, ${cell.target_kind})`,
        date: startedAt.slice(0, 10),
        machine: `${cpus ?? '?'} vCPU, ${mem ? `${(mem / 2 ** 30).toFixed(0)} GiB` : '? GiB'} (${cell.target_kind})`,
        cluster_size: 1,
        proprietary: 'no',
        tuned: 'no',
        comment: `chbench run ${runId}, cell ${cell.cell_key}, phase ${phase}, workload ${cell.workload} (${cell.scale} rows), codec ${cell.codec}. Times: ${exports.CLICKBENCH_TIMING}.`,
        tags: ['ClickHouse', 'chbench', cell.workload, cell.codec, cell.target_kind, phase === 'index' ? 'skip index' : 'no skip index'],
        load_time: cell.load_elapsed_ms === null ? null : cell.load_elapsed_ms / 1000,
        data_size: cell.bytes_on_disk,
        result,
    };
}
/** The SQL of the `jsonl`/`csv` export: every sample row of the run with the cell's version label, server version and codec. */
function samplesExportSql(runId) {
    return `SELECT s.run_id AS run_id, s.cell_key AS cell_key, c.version_label AS version_label, c.server_version AS server_version, c.codec AS codec,
    s.phase AS phase, s.query_id AS query_id, s.kind AS kind, s.n AS n, s.server_elapsed_ms AS server_elapsed_ms,
    s.server_elapsed_source AS server_elapsed_source, s.wall_ms AS wall_ms, s.read_rows AS read_rows, s.read_bytes AS read_bytes,
    s.result_rows AS result_rows, s.result_bytes AS result_bytes, s.result_sha256 AS result_sha256, s.valid AS valid,
    s.invalid_reason AS invalid_reason, s.started_at AS started_at, s.statement_id AS statement_id
  FROM samples AS s INNER JOIN cells AS c ON c.run_id = s.run_id AND c.cell_key = s.cell_key
  WHERE s.run_id = ${(0, sql_1.sqlString)(runId)}
  ORDER BY cell_key, phase, query_id, indexOf(['cold', 'warmup', 'warm'], kind), n`;
}
//# sourceMappingURL=export.js.map