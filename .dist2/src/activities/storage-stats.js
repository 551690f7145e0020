"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.createStorageStats = createStorageStats;
/**
 * storageStats: compressed / uncompressed bytes per column and for the table.
 *
 * Sources: per column `system.parts_columns` (`column_data_compressed_bytes`,
 * `column_data_uncompressed_bytes`, active parts); totals `system.parts` (`data_compressed_bytes`,
 * `data_uncompressed_bytes`, `bytes_on_disk`); each column's codec `system.columns.compression_codec`. Per-column figures are only meaningful for Wide parts:
 * a Compact part stores all columns in one file and reports the part's bytes for every column, so
 * when any active part is not Wide the per-column sizes are reported as unavailable.
 */
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("../clickhouse/client");
const codec_check_1 = require("../clickhouse/codec-check");
const sql_1 = require("../lib/sql");
const store_1 = require("../results/store");
const workload_1 = require("../lib/workload");
async function hasColumn(client, table, column) {
    const r = await (0, client_1.queryRows)(client, `SELECT count() AS c FROM system.columns WHERE database = 'system' AND table = ${(0, sql_1.sqlString)(table)} AND name = ${(0, sql_1.sqlString)(column)}`);
    return Number(r[0]?.c ?? 0) > 0;
}
/** Read storage figures of `table` in the current database. */
async function readStorage(client, table) {
    const t = (0, sql_1.sqlString)(table);
    const where = `database = currentDatabase() AND table = ${t} AND active`;
    const hasPartType = await hasColumn(client, 'parts', 'part_type');
    const [tot] = await (0, client_1.queryRows)(client, `SELECT sum(rows) AS rows, count() AS parts, sum(data_compressed_bytes) AS c, sum(data_uncompressed_bytes) AS u, sum(bytes_on_disk) AS d FROM system.parts WHERE ${where}`);
    const partTypes = {};
    if (hasPartType) {
        for (const r of await (0, client_1.queryRows)(client, `SELECT part_type, count() AS n FROM system.parts WHERE ${where} GROUP BY part_type`))
            partTypes[r.part_type] = Number(r.n);
    }
    else
        partTypes.unknown = Number(tot.parts);
    const compressed = Number(tot.c);
    const rec = {
        table,
        rows: Number(tot.rows),
        active_parts: Number(tot.parts),
        compressed_bytes: compressed,
        uncompressed_bytes: Number(tot.u),
        bytes_on_disk: Number(tot.d),
        ratio: compressed ? Number(tot.u) / compressed : 0,
        part_types: partTypes,
        columns: null,
        sources: {
            totals: 'system.parts (active): sum(data_compressed_bytes), sum(data_uncompressed_bytes), sum(bytes_on_disk)',
            columns: 'system.parts_columns (active): sum(column_data_compressed_bytes), sum(column_data_uncompressed_bytes)',
        },
    };
    const nonWide = Object.entries(partTypes).filter(([k]) => k !== 'Wide' && k !== 'unknown');
    if (nonWide.length) {
        rec.columns_unavailable_reason = `active parts are not all Wide (${nonWide.map(([k, n]) => `${n} ${k}`).join(', ')}): system.parts_columns would repeat the part total for every column`;
        return rec;
    }
    const cols = await (0, client_1.queryRows)(client, `SELECT column, any(type) AS type, sum(column_data_compressed_bytes) AS c, sum(column_data_uncompressed_bytes) AS u
     FROM system.parts_columns WHERE ${where} GROUP BY column ORDER BY c DESC`);
    // Old versions without part_type: detect the Compact symptom (every column equal to the part total).
    const distinct = new Set(cols.map((c) => c.c));
    if (!hasPartType && cols.length > 1 && distinct.size === 1) {
        rec.columns_unavailable_reason = 'every column reports the same compressed size (Compact-part symptom)';
        return rec;
    }
    // Each column's codec as the server has it (not as the spec asked): shown beside its sizes.
    const codecs = await (0, codec_check_1.readColumnCodecs)(client, table);
    rec.sources.codec = codecs
        ? 'system.columns.compression_codec (empty = the server default, LZ4)'
        : 'not available on this server (system.columns has no compression_codec)';
    rec.columns = cols.map((c) => {
        const codec = codecs?.find((x) => x.column === c.column)?.compression_codec;
        return {
            column: c.column,
            type: c.type,
            compressed_bytes: Number(c.c),
            uncompressed_bytes: Number(c.u),
            ratio: Number(c.c) ? Number(c.u) / Number(c.c) : 0,
            share: compressed ? Number(c.c) / compressed : 0,
            ...(codec !== undefined ? { codec } : {}),
        };
    });
    return rec;
}
/** Activity factory. */
function createStorageStats() {
    return {
        /**
         * Record storage figures in `storage.json`.
         * @returns totals (bytes) and whether per-column sizes are available.
         */
        async storageStats({ cell, target, }) {
            const m = (0, workload_1.loadWorkload)(cell.workload);
            const client = (0, client_1.connect)(target);
            try {
                const rec = await readStorage(client, m.table);
                (0, store_1.writeJsonAtomic)(node_path_1.default.join((0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey), 'storage.json'), rec);
                return {
                    compressed_bytes: rec.compressed_bytes,
                    uncompressed_bytes: rec.uncompressed_bytes,
                    ratio: rec.ratio,
                    columns: rec.columns !== null,
                };
            }
            finally {
                await client.close();
            }
        },
    };
}
//# sourceMappingURL=storage-stats.js.map