"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.readCellSettings = readCellSettings;
exports.createProvision = createProvision;
/**
 * provision: start or reach the cell's ClickHouse and record what it is: `version()`, `timezone()`,
 * CPUs and memory, whether `system.query_log` is readable, and how it was provisioned.
 * Idempotent: a retry adopts the server an earlier attempt started.
 */
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const node_fs_1 = require("node:fs");
const attempt_log_1 = require("./support/attempt-log");
const targets_1 = require("../targets");
const client_1 = require("../clickhouse/client");
const store_1 = require("../results/store");
const common_1 = require("@temporalio/common");
const failures_1 = require("../schema/failures");
const probe_1 = require("../clickhouse/probe");
const settings_1 = require("../clickhouse/settings");
const workload_1 = require("../lib/workload");
const codec_check_1 = require("../clickhouse/codec-check");
const insert_load_1 = require("../measure/insert-load");
const cell_1 = require("../schema/cell");
const version_1 = require("../schema/version");
const activity_context_1 = require("../temporal/activity-context");
const statement_watch_1 = require("../clickhouse/statement-watch");
const owner_1 = require("../temporal/owner");
const host_1 = require("../temporal/host");
/**
 * Read the server facts recorded with every cell.
 * Sources: `version()`, `timezone()`; CPUs/memory from `system.asynchronous_metrics`
 * (`OSMemoryTotal`, number of `OSUserTimeCPU*` metrics) where the server has them, else from the
 * worker host's `os.cpus()` / `os.totalmem()` for a target on the worker's host (its capabilities
 * say so), else unknown (null).
 */
async function readServerInfo(t) {
    const client = (0, client_1.connect)(t);
    try {
        const version = await (0, client_1.queryScalar)(client, 'SELECT version()');
        const timezone = await (0, client_1.queryScalar)(client, 'SELECT timezone()');
        let cpus = null;
        let memory = null;
        let cpuSource = 'unknown';
        let memSource = 'unknown';
        try {
            const rows = await (0, client_1.queryRows)(client, "SELECT metric, value FROM system.asynchronous_metrics WHERE metric = 'OSMemoryTotal' OR metric LIKE 'OSUserTimeCPU%'");
            const mem = rows.find((r) => r.metric === 'OSMemoryTotal');
            if (mem)
                [memory, memSource] = [Number(mem.value), 'system.asynchronous_metrics.OSMemoryTotal'];
            const cpuRows = rows.filter((r) => /^OSUserTimeCPU\d+$/.test(r.metric)).length;
            if (cpuRows)
                [cpus, cpuSource] = [cpuRows, 'count of system.asynchronous_metrics OSUserTimeCPU<N>'];
        }
        catch {
            /* old servers: fall through */
        }
        const onHost = (0, targets_1.capabilitiesOf)(t).onWorkerHost;
        if (cpus === null && onHost)
            [cpus, cpuSource] = [node_os_1.default.cpus().length, 'worker host os.cpus() (same host)'];
        if (memory === null && onHost)
            [memory, memSource] = [node_os_1.default.totalmem(), 'worker host os.totalmem() (same host)'];
        // system.query_log is created lazily: the capability probe runs a logged query and flushes first.
        const probe = await (0, probe_1.probeServer)(client, version);
        return {
            version,
            timezone,
            cpus,
            cpu_source: cpuSource,
            memory_bytes: memory,
            memory_source: memSource,
            query_log: probe.query_log.enabled ? 'available' : 'not available',
            probe,
        };
    }
    finally {
        await client.close();
    }
}
/** Check the workload's and the spec's settings against a probe. */
function resolveCellSettings(cell, m, probe) {
    const spec = cell.settings ?? { query: {}, mergeTree: {}, optional: [] };
    const wl = (0, settings_1.checkSettings)({ query: m.loadSettings, mergeTree: m.tableSettings, optional: m.optionalSettings }, probe, `workload ${m.name}`, { query: 'loadSettings', mergeTree: 'tableSettings' });
    const sp = (0, settings_1.checkSettings)({ query: spec.query, mergeTree: spec.mergeTree, optional: spec.optional }, probe, 
    // A profile's settings are merged into the cell's: say where a refused one may come from.
    cell.profile ? `spec (settings, or matrix.settings profile "${cell.profile}")` : 'spec');
    // The insert grid's profiles are checked here too, so a setting this version lacks stops the cell before loading.
    const grid = (cell.grids?.insert?.settings ?? []).flatMap((p, i) => (0, settings_1.checkSettings)({ query: p.query, mergeTree: p.mergeTree, optional: spec.optional }, probe, `profile "${p.name}"`, {
        query: `grids.insert.settings[${i}].query`,
        mergeTree: `grids.insert.settings[${i}].mergeTree`,
    }).problems);
    return {
        load: { ...wl.applied.query, ...sp.applied.query },
        runs: sp.applied.query,
        table: { ...wl.applied.mergeTree, ...sp.applied.mergeTree },
        not_applied: { ...wl.not_applied, ...sp.not_applied },
        problems: [...wl.problems, ...sp.problems, ...grid],
    };
}
/** Read a cell's `settings.json` (written at provisioning); empty settings when absent. */
function readCellSettings(cell) {
    return ((0, store_1.readJsonIfExists)(node_path_1.default.join((0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey), 'settings.json')) ?? {
        load: {},
        runs: {},
        table: {},
        not_applied: {},
        problems: [],
    });
}
/** Activity factory. */
function createProvision(deps) {
    return {
        /**
         * Provision the cell's target and record it in `provision.json`. `fresh` (the cell's first
         * provision) empties the cell's result folder first; a re-provision after a lost server keeps it.
         * @returns the handle (no secrets), server facts and, if this version cannot run the cell, why.
         * @throws Error when the server cannot be started or reached.
         */
        async provision(cell, fresh = false) {
            (0, activity_context_1.heartbeat)({ step: 'provision' });
            // A cell the matrix placed on a host writes into the run's results store: a host that does not
            // see the run's folder there (not mounted, another path) would keep its records to itself.
            if (cell.placement && !(0, node_fs_1.existsSync)(node_path_1.default.join((0, store_1.runDir)(cell.resultsDir, cell.runId), 'run.json')))
                throw common_1.ApplicationFailure.create({
                    type: failures_1.FAILURE.InvalidSpec,
                    nonRetryable: true,
                    message: `host ${deps.host?.hostId ?? '?'} does not see the run's results store: ${node_path_1.default.join((0, store_1.runDir)(cell.resultsDir, cell.runId), 'run.json')} is missing there; mount the results directory at the same path on every host running chbench workers`,
                });
            // A new execution of the cell starts from an empty result folder: step files of an earlier
            // execution (a failed cell being run again) must never mix into this one's result. The
            // attempts of this execution's provisioning so far are kept (they are part of its record).
            if (fresh)
                (0, attempt_log_1.clearCellDirKeepingAttempts)((0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey));
            // Starting a server is not a statement: heartbeat while it starts (bounded by its own ping deadline).
            const target = await (0, statement_watch_1.keepAliveDuring)('provision', 
            // The label records where this workflow lives, so gc asks that server (see src/targets/gc.ts).
            (0, owner_1.currentOwner)(deps, cell.matrixWorkflowId ?? cell.runId).then((owner) => (0, targets_1.provisionTarget)(cell.target, {
                runId: cell.runId,
                cellKey: cell.cellKey,
                version: cell.version,
                workDir: node_path_1.default.resolve(deps.workDir),
                ...(owner ? { owner } : {}),
            })));
            (0, activity_context_1.heartbeat)({ step: 'provision', url: target.url });
            const dir = (0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey);
            // Server facts and the capability probe (written to probe.json, not to history).
            const { probe, ...server } = await readServerInfo(target);
            (0, store_1.writeJsonAtomic)(node_path_1.default.join(dir, 'probe.json'), probe);
            const m = (0, workload_1.loadWorkload)(cell.workload);
            const profile = (0, cell_1.cellCodecProfile)(cell);
            let skipReason = (0, workload_1.cannotRunReason)(m, probe, profile);
            // A cell is never reported under a version it did not run (external servers included).
            if (!skipReason && !(0, version_1.versionMatchesLabel)(server.version, cell.version))
                skipReason = `matrix version ${cell.version} asked for, but the ${cell.target.kind} target runs ClickHouse ${server.version}`;
            // Every requested setting checked at its level before anything is loaded.
            if (!skipReason) {
                const checked = resolveCellSettings(cell, m, probe);
                (0, store_1.writeJsonAtomic)(node_path_1.default.join(dir, 'settings.json'), checked);
                if (checked.problems.length)
                    throw common_1.ApplicationFailure.create({
                        type: failures_1.FAILURE.InvalidSetting,
                        nonRetryable: true,
                        message: `settings refused before loading:\n  - ${checked.problems.join('\n  - ')}`,
                    });
                // The cell's codecs tried on a throwaway temporary table with the schema's column types: an
                // expression this server refuses (unknown, or meaningless for a column's type) fails here.
                if (probe.column_codecs) {
                    const placed = new Set((0, workload_1.templateColumns)((0, node_fs_1.readFileSync)(node_path_1.default.join((0, workload_1.sqlRoot)(), 'workloads', m.name, m.schema), 'utf8'))
                        .filter((c) => c.placeholder)
                        .map((c) => c.name));
                    const cols = (0, insert_load_1.schemaColumns)((0, workload_1.renderTemplate)(m.name, m.schema, { table: m.table, rows: cell.scale, codec: 'LZ4' }), m.name).filter((c) => placed.has(c.name));
                    const client = (0, client_1.connect)(target);
                    try {
                        const trial = await (0, codec_check_1.trialCodecs)(client, cols.map((c) => ({ name: c.name, type: c.type, codec: (0, workload_1.codecFor)(profile, c.name) })));
                        if (!trial.ok)
                            throw common_1.ApplicationFailure.create({
                                type: failures_1.FAILURE.CodecRefused,
                                nonRetryable: true,
                                message: `codec profile "${profile.name}": ClickHouse ${server.version} refuses CODEC(${trial.column.codec}) on column ${trial.column.name} ${trial.column.type} (trial \`${trial.statement}\`): ${trial.error}`,
                            });
                    }
                    finally {
                        await client.close();
                    }
                }
            }
            const result = {
                target,
                server,
                restartable: (0, targets_1.capabilitiesOf)(target).restartable,
                ...(skipReason ? { skipReason } : {}),
                // A server on this host: the cell's later steps must run here (the host's own task queue).
                ...(deps.host && (0, targets_1.capabilitiesOf)(target).onWorkerHost ? { host: (0, host_1.hostFacts)(deps.host) } : {}),
            };
            const record = { ...result, provisioned_at: new Date().toISOString() };
            (0, store_1.writeJsonAtomic)(node_path_1.default.join((0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey), 'provision.json'), record);
            return result;
        },
    };
}
//# sourceMappingURL=provision.js.map