"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.checkSettings = checkSettings;
exports.settingsClause = settingsClause;
const probe_1 = require("./probe");
const sql_1 = require("../lib/sql");
const TABLE = {
    query: 'system.settings',
    merge_tree: 'system.merge_tree_settings',
    server: 'system.server_settings',
};
const WHERE = {
    query: 'a query setting (spec settings.query / SETTINGS of a statement)',
    merge_tree: 'a MergeTree table setting (spec settings.mergeTree / CREATE TABLE … SETTINGS)',
    server: 'a server setting (config.xml; it cannot be set per query or per table)',
};
/**
 * Check requested settings. A setting at the wrong level, or unknown to this version and not marked
 * optional, is a problem naming where it belongs; a list the probe could not read is not judged.
 */
function checkSettings(req, probe, source, keys = { query: 'settings.query', mergeTree: 'settings.mergeTree' }) {
    const out = { applied: { query: {}, mergeTree: {} }, not_applied: {}, problems: [] };
    const check = (level, name, value) => {
        const list = level === 'query' ? probe.query_settings : probe.merge_tree_settings;
        const target = level === 'query' ? out.applied.query : out.applied.mergeTree;
        if (list === null || list.includes(name)) {
            target[name] = value;
            return;
        }
        const elsewhere = (0, probe_1.settingLevels)(probe, name);
        if (elsewhere.length) {
            out.problems.push(`${source} ${level === 'query' ? keys.query : keys.mergeTree}: "${name}" is not ${WHERE[level]} on ClickHouse ${probe.version}; it is ${elsewhere.map((l) => `${WHERE[l]} (${TABLE[l]})`).join(' and ')}`);
            return;
        }
        if (req.optional.includes(name)) {
            out.not_applied[name] =
                `not applied on this version: ClickHouse ${probe.version} has no such setting (${TABLE[level]})`;
            return;
        }
        const searched = [TABLE.query, TABLE.merge_tree, ...(probe.server_settings ? [TABLE.server] : [])];
        out.problems.push(`${source} ${level === 'query' ? keys.query : keys.mergeTree}: unknown setting "${name}" on ClickHouse ${probe.version} (not in ${searched.join(', ')}${probe.server_settings ? '' : '; this version has no system.server_settings, so it may be a server setting (config.xml)'}); mark it optional if only some versions have it`);
    };
    for (const [k, v] of Object.entries(req.query))
        check('query', k, v);
    for (const [k, v] of Object.entries(req.mergeTree))
        check('merge_tree', k, v);
    return out;
}
/**
 * ` SETTINGS k = v, …` for a CREATE TABLE, or empty. Numbers are sent as is, strings as literals
 * quoted by `sqlString` (backslashes and quotes escaped). Names are not quoted: they come from a
 * manifest or a spec and were checked against the server's setting lists.
 */
function settingsClause(s) {
    const e = Object.entries(s);
    return e.length ? ` SETTINGS ${e.map(([k, v]) => `${k} = ${(0, sql_1.sqlValue)(v)}`).join(', ')}` : '';
}
//# sourceMappingURL=settings.js.map