"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.shownTableSettings = shownTableSettings;
exports.appliedTableSettings = appliedTableSettings;
exports.createCreateSchema = createCreateSchema;
/**
 * createSchema: create the workload's table with the cell's codec profile, then check on the server
 * what the cell claims before anything is loaded: every column's codec (`system.columns`), the table
 * settings the server shows (`SHOW CREATE TABLE`), and every selected workload query (EXPLAIN on the
 * empty table). Tolerates existing objects (`CREATE TABLE IF NOT EXISTS`), so a retry is harmless.
 */
const node_path_1 = __importDefault(require("node:path"));
const node_fs_1 = require("node:fs");
const common_1 = require("@temporalio/common");
const client_1 = require("../clickhouse/client");
const codec_check_1 = require("../clickhouse/codec-check");
const store_1 = require("../results/store");
const workload_1 = require("../lib/workload");
const cell_1 = require("../schema/cell");
const failures_1 = require("../schema/failures");
const sql_1 = require("../lib/sql");
const provision_1 = require("./provision");
/**
 * The `SETTINGS` clause at the end of a `SHOW CREATE TABLE` text as name → value (string literals
 * unquoted, everything else as written); empty when there is none. Pure.
 */
function shownTableSettings(createTable) {
    const m = /\bSETTINGS\s+([\s\S]*)$/i.exec(createTable.trim());
    if (!m)
        return {};
    const out = {};
    for (const part of (0, sql_1.splitTopLevel)(m[1], ',')) {
        const kv = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([\s\S]*?)\s*$/.exec(part);
        if (kv)
            out[kv[1]] = kv[2].replace(/^'([\s\S]*)'$/, '$1').replace(/\\'/g, "'");
    }
    return out;
}
/** The settings of `declared` the server shows with the same value (`applied`), and the others (`not_shown`). Pure. */
function appliedTableSettings(declared, shown) {
    const applied = {};
    const notShown = {};
    for (const [k, v] of Object.entries(declared)) {
        if (!(k in shown))
            notShown[k] = 'not in the SETTINGS of SHOW CREATE TABLE';
        else if (shown[k] !== String(v))
            notShown[k] = `the server shows ${k} = ${shown[k]}`;
        else
            applied[k] = v;
    }
    return { applied, not_shown: notShown };
}
/** Whether the server has `EXPLAIN` (ClickHouse 20.6 and newer); 18.16 answers a syntax error. */
async function hasExplain(client) {
    return (await (0, client_1.tryCommand)(client, 'EXPLAIN SELECT 1')).ok;
}
/** Activity factory. */
function createCreateSchema() {
    return {
        /**
         * Create the table and check it. Writes `schema.json`: the exact DDL sent, `SHOW CREATE TABLE`,
         * each column's declared and read-back codec, the table settings the server shows, and each
         * query's EXPLAIN outcome.
         * @returns the table name.
         * @throws ApplicationFailure `CodecMismatch` (non-retryable) when a column's
         *   `system.columns.compression_codec` is not the codec the cell declares for it, naming the
         *   column and both values; `InvalidWorkloadQuery` (non-retryable) when a selected query fails its
         *   EXPLAIN on the empty table, naming the query id and file; a `ClickHouse.<NAME>` failure from
         *   the server (e.g. a codec the version does not know).
         */
        async createSchema({ cell, target }) {
            const m = (0, workload_1.loadWorkload)(cell.workload);
            const profile = (0, cell_1.cellCodecProfile)(cell);
            const settings = (0, provision_1.readCellSettings)(cell);
            const ddl = (0, workload_1.renderTemplate)(cell.workload, m.schema, {
                table: m.table,
                rows: cell.scale,
                codec: profile,
                tableSettings: settings.table,
            });
            const dir = (0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey);
            const client = (0, client_1.connect)(target);
            try {
                await client.command({ query: ddl });
                const create = await client.query({ query: `SHOW CREATE TABLE ${m.table}`, format: 'TabSeparatedRaw' });
                const showCreate = (await create.text()).trim();
                // Codecs: what the cell declares per column against what the server reports.
                const declared = (0, workload_1.declaredCodecs)((0, node_fs_1.readFileSync)(node_path_1.default.join((0, workload_1.sqlRoot)(), 'workloads', m.name, m.schema), 'utf8'), profile);
                const server = await (0, codec_check_1.readColumnCodecs)(client, m.table);
                const columns = (server ?? []).map((c) => {
                    const d = declared.get(c.column) ?? profile.default;
                    return {
                        column: c.column,
                        type: c.type,
                        declared: d,
                        server: c.compression_codec,
                        matches: (0, codec_check_1.codecMatches)(d, c.compression_codec),
                    };
                });
                const codecs = {
                    profile,
                    source: 'system.columns.compression_codec (empty = the server default, LZ4)',
                    available: server !== null,
                    ...(server === null
                        ? {
                            reason: 'not available on this server: its system.columns has no compression_codec column (ClickHouse before 19.1 has no column codecs), so each column is the server default and nothing was read back',
                        }
                        : {}),
                    columns,
                };
                // Table settings: applied only as far as the server shows them.
                const tableSettings = appliedTableSettings(settings.table, shownTableSettings(showCreate));
                const record = {
                    ddl_sent: ddl,
                    show_create_table: showCreate,
                    codecs,
                    table_settings: {
                        declared: settings.table,
                        ...tableSettings,
                        source: 'SETTINGS clause of SHOW CREATE TABLE',
                    },
                };
                (0, store_1.writeJsonAtomic)(node_path_1.default.join(dir, 'schema.json'), record);
                const wrong = columns.filter((c) => !c.matches);
                if (wrong.length)
                    throw common_1.ApplicationFailure.create({
                        type: failures_1.FAILURE.CodecMismatch,
                        nonRetryable: true,
                        message: `table ${m.table} does not carry codec profile "${profile.name}": ${wrong
                            .map((c) => `column ${c.column} has ${c.server ? c.server : 'the server default (LZ4; system.columns.compression_codec is empty)'} but the cell declares ${c.declared === 'LZ4' ? 'LZ4 (the server default)' : `CODEC(${c.declared})`}`)
                            .join('; ')}${wrong.length === columns.length ? ` — does the schema of workload ${m.name} place {{codec}} on its columns?` : ''}`,
                    });
                // Every selected query, analysed on the empty table before minutes of loading.
                record.query_check = await checkQueries(client, cell, m, settings.runs);
                (0, store_1.writeJsonAtomic)(node_path_1.default.join(dir, 'schema.json'), record);
                const bad = record.query_check.queries.find((q) => !q.ok);
                if (bad)
                    throw common_1.ApplicationFailure.create({
                        type: failures_1.FAILURE.InvalidWorkloadQuery,
                        nonRetryable: true,
                        message: `query ${bad.id} (${node_path_1.default.join((0, workload_1.sqlRoot)(), 'workloads', m.name, bad.file)}) fails on the empty table ${m.table}: ${bad.code ? `Code: ${bad.code}. ` : ''}${bad.error}`,
                    });
            }
            finally {
                await client.close();
            }
            return { table: m.table };
        },
    };
}
/** EXPLAIN each selected query with the runs' settings; on servers without EXPLAIN, a record saying so. */
async function checkQueries(client, cell, m, runSettings) {
    const source = 'EXPLAIN <query> on the empty table, with the measured runs\u2019 settings';
    if (!(await hasExplain(client)))
        return {
            available: false,
            reason: 'not available on this server: it has no EXPLAIN (ClickHouse before 20.6); the queries were not checked before loading',
            source,
            queries: [],
        };
    const qs = (0, workload_1.workloadQueries)(m, { table: m.table, rows: cell.scale, codec: (0, cell_1.cellCodecProfile)(cell) }, cell.queries);
    const queries = [];
    for (const q of qs) {
        const r = await (0, client_1.tryCommand)(client, `EXPLAIN ${q.sql}`, runSettings);
        queries.push({
            id: q.id,
            file: q.file ?? '',
            ok: r.ok,
            ...(r.ok ? {} : { error: r.error ?? 'refused', ...(r.code ? { code: r.code } : {}) }),
        });
    }
    return { available: true, source, queries };
}
//# sourceMappingURL=create-schema.js.map