"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.embeddedTarget = exports.EMBEDDED_LOG_FILE = exports.embeddedServerScript = exports.teardownEmbedded = exports.provisionEmbedded = void 0;
/**
 * The `embedded` target: the chdb engine (ClickHouse 26.x) in a separate process per cell, serving
 * the ClickHouse HTTP interface on loopback (`provision.ts` starts it, `server.ts` is the process).
 *
 * Capabilities: on the worker's host; cannot stop a statement while chdb computes it; one statement
 * at a time, so `system.events` differences are a run's counters; rows/bytes read come from the
 * output statistics; running statements are listed by `GET /chbench/running`; restartable; the
 * cell's statements are archived from the server's `statements.jsonl`.
 */
const node_fs_1 = require("node:fs");
const path = __importStar(require("node:path"));
const fs_1 = require("../../lib/fs");
const process_1 = require("../process");
const registry_1 = require("../registry");
const server_verbs_1 = require("../server-verbs");
const provision_1 = require("./provision");
const running_1 = require("./running");
var provision_2 = require("./provision");
Object.defineProperty(exports, "provisionEmbedded", { enumerable: true, get: function () { return provision_2.provisionEmbedded; } });
Object.defineProperty(exports, "teardownEmbedded", { enumerable: true, get: function () { return provision_2.teardownEmbedded; } });
Object.defineProperty(exports, "embeddedServerScript", { enumerable: true, get: function () { return provision_2.embeddedServerScript; } });
Object.defineProperty(exports, "EMBEDDED_LOG_FILE", { enumerable: true, get: function () { return provision_2.EMBEDDED_LOG_FILE; } });
/** The embedded target. */
exports.embeddedTarget = {
    kind: 'embedded',
    capabilities: {
        onWorkerHost: true,
        canKillRunning: false,
        countersWithoutQueryLog: 'system.events',
        summaryReadSource: 'output statistics',
        runningStatementsFrom: 'target endpoint',
        restartable: true,
        statementArchive: true,
    },
    provision: (_spec, req) => (0, provision_1.provisionEmbedded)(req),
    teardown: provision_1.teardownEmbedded,
    teardownCell: (_spec, req) => (0, process_1.teardownProcessCell)(req),
    describeTeardown: process_1.describeProcessTeardown,
    check: server_verbs_1.checkServer,
    /** `GET <url>/chbench/running`: running and queued statements of the engine's one session. */
    async runningStatements(handle, _client, prefix) {
        return (await (0, running_1.readRunning)(handle, 5000)).map((x) => x.query_id).filter((id) => id.startsWith(prefix));
    },
    statementProgress: running_1.progressFromEndpoint,
    /**
     * `KILL QUERY` to the embedded server: it cancels a queued statement and stops a streaming one
     * between two chunks; a statement chdb is computing cannot be stopped, and the server's refusal
     * (code 48 NOT_IMPLEMENTED, "…cannot interrupt a running statement…") is the `not killable` why.
     * Never waits for the statement to go (`waitGoneMs` is ignored): nothing would make it go sooner.
     */
    kill: (_handle, client, queryId, options) => (0, server_verbs_1.sendKill)(client, queryId, options),
    /** A copy (written atomically) of `<dataDir>/statements.jsonl`, the server's log of every statement (all of them are the cell's). */
    async archiveStatements(handle, _prefix, file) {
        const src = handle.dataDir ? path.join(handle.dataDir, 'statements.jsonl') : undefined;
        if (!src || !(0, node_fs_1.existsSync)(src))
            return 'not available: no statements.jsonl';
        try {
            (0, fs_1.writeFileAtomic)(file, (0, node_fs_1.readFileSync)(src, 'utf8'));
        }
        catch (e) {
            return `not available: ${e.message}`;
        }
        return 'embedded statements.jsonl';
    },
    checkSpec: () => [],
};
(0, registry_1.registerTarget)(exports.embeddedTarget);
//# sourceMappingURL=index.js.map