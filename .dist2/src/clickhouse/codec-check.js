"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.parseCodecChain = parseCodecChain;
exports.codecMatches = codecMatches;
exports.readColumnCodecs = readColumnCodecs;
exports.trialCodecs = trialCodecs;
const client_1 = require("./client");
const sql_1 = require("../lib/sql");
/**
 * A codec expression or a server's `compression_codec` taken apart: `CODEC(Delta(4), ZSTD(1))` and
 * `Delta(4), ZSTD(1)` both give `[{Delta, [4]}, {ZSTD, [1]}]`; empty for `''` (the server default). Pure.
 */
function parseCodecChain(expr) {
    let s = expr.trim();
    const wrapped = /^CODEC\s*\(([\s\S]*)\)$/i.exec(s);
    if (wrapped)
        s = wrapped[1].trim();
    if (!s)
        return [];
    return (0, sql_1.splitTopLevel)(s, ',').map((part) => {
        const m = /^\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\(([^()]*)\))?\s*$/.exec(part);
        if (!m)
            return { name: part.trim(), args: [] };
        return {
            name: m[1],
            args: m[2] === undefined
                ? []
                : m[2]
                    .split(',')
                    .map((a) => a.trim())
                    .filter(Boolean),
        };
    });
}
/**
 * Whether a server's `compression_codec` (`''` = the server default, LZ4) carries the declared
 * expression. Family names compare case-insensitively; a declared codec without arguments matches
 * the server's filled-in defaults (`Delta` → `Delta(4)`, `ZSTD` → `ZSTD(1)`); arguments that were
 * declared must be equal. `LZ4` matches the empty default and an explicit `CODEC(LZ4)`. Pure.
 */
function codecMatches(declared, server) {
    const d = parseCodecChain(declared);
    const s = parseCodecChain(server);
    const isLz4 = (c) => c.length === 1 && c[0].name.toUpperCase() === 'LZ4' && !c[0].args.length;
    if (isLz4(d))
        return s.length === 0 || isLz4(s);
    if (d.length !== s.length)
        return false;
    return d.every((x, i) => x.name.toUpperCase() === s[i].name.toUpperCase() &&
        (x.args.length === 0 || x.args.join(',') === s[i].args.join(',')));
}
/**
 * Every column's codec of `table` in the current database, from `system.columns.compression_codec`;
 * `null` when this server's `system.columns` has no such column (ClickHouse 18.16 and other versions
 * before column codecs).
 * @throws ClickHouseError when system.columns cannot be read
 */
async function readColumnCodecs(client, table) {
    const have = await (0, client_1.queryRows)(client, "SELECT count() AS c FROM system.columns WHERE database = 'system' AND table = 'columns' AND name = 'compression_codec'");
    if (Number(have[0]?.c ?? 0) === 0)
        return null;
    return (0, client_1.queryRows)(client, `SELECT name AS column, type, compression_codec FROM system.columns WHERE database = currentDatabase() AND table = ${(0, sql_1.sqlString)(table)} ORDER BY position`);
}
/**
 * Try codecs on their columns' types on a throwaway temporary table (nothing is written; the table is
 * dropped): all columns in one statement, and when that is refused each column alone, so the refused
 * column is named. Columns whose expression is `LZ4` (the server default) are left out.
 */
async function trialCodecs(client, columns) {
    const cols = columns.filter((c) => c.codec.trim() !== 'LZ4');
    if (!cols.length)
        return { ok: true, statement: '' };
    const name = `chbench_codec_trial_${Date.now()}_${Math.floor(Math.random() * 1e9)}`;
    const ddl = (cs) => `CREATE TEMPORARY TABLE ${name} (${cs.map((c) => `${(0, sql_1.sqlIdent)(c.name)} ${c.type} CODEC(${c.codec})`).join(', ')})`;
    const all = ddl(cols);
    const r = await (0, client_1.tryCommand)(client, all);
    if (r.ok) {
        await (0, client_1.tryCommand)(client, `DROP TEMPORARY TABLE IF EXISTS ${name}`);
        return { ok: true, statement: all };
    }
    for (const c of cols) {
        const one = ddl([c]);
        const rc = await (0, client_1.tryCommand)(client, one);
        if (!rc.ok)
            return { ok: false, column: c, statement: one, error: rc.error ?? 'refused' };
        await (0, client_1.tryCommand)(client, `DROP TEMPORARY TABLE IF EXISTS ${name}`);
    }
    return { ok: false, column: cols[0], statement: all, error: r.error ?? 'refused' };
}
//# sourceMappingURL=codec-check.js.map