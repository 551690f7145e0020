"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.localTarget = exports.localServerConfig = exports.localServerCommand = exports.teardownLocal = exports.provisionLocal = void 0;
/**
 * The `local` target: a ClickHouse server binary (per version, from `target.binaries`) started per
 * cell on loopback with a generated configuration (`provision.ts`, `config.ts`).
 *
 * Capabilities: on the worker's host; a running statement can be killed; per-run counters come from
 * `system.query_log` only; rows/bytes read from the HTTP summary; running statements from
 * `system.processes`; restartable; statements archived from `system.query_log`.
 */
const node_fs_1 = require("node:fs");
const common_1 = require("@temporalio/common");
const failures_1 = require("../../schema/failures");
const process_1 = require("../process");
const registry_1 = require("../registry");
const server_verbs_1 = require("../server-verbs");
const provision_1 = require("./provision");
var provision_2 = require("./provision");
Object.defineProperty(exports, "provisionLocal", { enumerable: true, get: function () { return provision_2.provisionLocal; } });
Object.defineProperty(exports, "teardownLocal", { enumerable: true, get: function () { return provision_2.teardownLocal; } });
Object.defineProperty(exports, "localServerCommand", { enumerable: true, get: function () { return provision_2.localServerCommand; } });
Object.defineProperty(exports, "localServerConfig", { enumerable: true, get: function () { return provision_2.localServerConfig; } });
/** The local target. */
exports.localTarget = {
    kind: 'local',
    capabilities: {
        onWorkerHost: true,
        canKillRunning: true,
        countersWithoutQueryLog: 'none',
        summaryReadSource: 'http summary',
        runningStatementsFrom: 'system.processes',
        restartable: true,
        statementArchive: false,
    },
    provision(spec, req) {
        const bin = spec.binaries[req.version];
        if (!bin)
            throw common_1.ApplicationFailure.create({
                type: failures_1.FAILURE.MissingBinary,
                nonRetryable: true,
                message: `local target: no binary for version ${req.version} in target.binaries (has: ${Object.keys(spec.binaries).join(', ') || 'none'})`,
            });
        return (0, provision_1.provisionLocal)(req, bin);
    },
    teardown: provision_1.teardownLocal,
    teardownCell: (_spec, req) => (0, process_1.teardownProcessCell)(req),
    describeTeardown: process_1.describeProcessTeardown,
    check: server_verbs_1.checkServer,
    runningStatements: server_verbs_1.runningFromProcesses,
    statementProgress: server_verbs_1.progressFromProcesses,
    kill: server_verbs_1.killOnServer,
    archiveStatements: server_verbs_1.archiveFromQueryLog,
    /**
     * `input`: every version of the matrix has a binary; `worker host`: each binary of a version in the
     * matrix is an executable file on the worker.
     */
    checkSpec(target, versions, place) {
        const problems = [];
        const binaries = target.binaries;
        if (!binaries || typeof binaries !== 'object')
            return problems;
        if (place === 'input') {
            for (const v of versions)
                if (typeof v === 'string' && !(v in binaries))
                    problems.push(`matrix.version: version "${v}" has no way to be provisioned: target.binaries has no entry for it (has: ${Object.keys(binaries).join(', ') || 'none'})`);
            return problems;
        }
        for (const [v, bin] of Object.entries(binaries)) {
            if (!versions.includes(v) || typeof bin !== 'string')
                continue;
            try {
                (0, node_fs_1.accessSync)(bin, node_fs_1.constants.X_OK);
            }
            catch {
                problems.push(`target.binaries.${v}: "${bin}" is not an executable file on the worker`);
            }
        }
        return problems;
    },
};
(0, registry_1.registerTarget)(exports.localTarget);
//# sourceMappingURL=index.js.map