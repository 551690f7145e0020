"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.explainIndexes = explainIndexes;
exports.judgeIndexUse = judgeIndexUse;
exports.explainGranules = explainGranules;
/**
 * `EXPLAIN indexes = 1 <sql>` under `settings` (pass the measured runs' own, so what it shows holds
 * for them), as the server's text with trailing whitespace removed.
 * @throws ClickHouseError when the server refuses it (18.16 has no EXPLAIN; a query error).
 */
async function explainIndexes(client, sql, settings) {
    const rs = await client.query({
        query: `EXPLAIN indexes = 1 ${sql}`,
        format: 'TabSeparatedRaw',
        clickhouse_settings: settings,
    });
    return (await rs.text()).trimEnd();
}
/**
 * Judge a skip index's use in the measured runs: the EXPLAIN taken under the runs' own settings must
 * show the index dropping granules, and the runs themselves must have read fewer rows than the same
 * query before the index. Pure.
 */
function judgeIndexUse(index, explain, readAfter, readBefore) {
    const g = explain === null ? null : explainGranules(explain, index);
    const base = {
        index,
        explain_granules: g ? `${g.kept}/${g.total}` : null,
        explain_skips: explain === null ? null : g ? g.kept < g.total : false,
        read_rows_after: readAfter,
        read_rows_before: readBefore,
    };
    const rows = readAfter !== null && readBefore !== null
        ? `measured read_rows ${readAfter.toLocaleString('en-US')} after vs ${readBefore.toLocaleString('en-US')} before`
        : 'measured read_rows unknown';
    if (explain === null)
        return { ...base, effective: null, reason: `EXPLAIN not available; ${rows}` };
    if (!g)
        return {
            ...base,
            effective: false,
            reason: `EXPLAIN under the runs' settings does not use index ${index}; ${rows}`,
        };
    if (g.kept >= g.total)
        return {
            ...base,
            effective: false,
            reason: `EXPLAIN under the runs' settings: index ${index} dropped no granule (${g.kept}/${g.total}); ${rows}`,
        };
    if (readAfter === null || readBefore === null)
        return { ...base, effective: null, reason: `EXPLAIN granules ${g.kept}/${g.total}; ${rows}` };
    if (readAfter >= readBefore)
        return {
            ...base,
            effective: false,
            reason: `index not effective in the measured runs: EXPLAIN claims granules ${g.kept}/${g.total} but ${rows}`,
        };
    return { ...base, effective: true, reason: `EXPLAIN granules ${g.kept}/${g.total}; ${rows}` };
}
/** Parse the `Granules: kept/total` line of the named skip index in an `EXPLAIN indexes = 1` output. */
function explainGranules(explain, index) {
    const lines = explain.split('\n');
    const at = lines.findIndex((l) => new RegExp(`Name: ${index}\\b`).test(l));
    if (at < 0)
        return null;
    for (const l of lines.slice(at, at + 8)) {
        const m = /Granules: (\d+)\/(\d+)/.exec(l);
        if (m)
            return { kept: Number(m[1]), total: Number(m[2]) };
    }
    return null;
}
//# sourceMappingURL=index-proof.js.map