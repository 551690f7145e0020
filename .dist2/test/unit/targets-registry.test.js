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
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The target registry and the Target contract, without any server: registration refuses a second
 * target of a kind and an incomplete capability set; every kind is registered; each kind's verbs do
 * what its capability flags say (embedded lists running statements from its endpoint and archives
 * its own statement log; the others ask system.processes and system.query_log); the spec checks of
 * each kind.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const http = __importStar(require("node:http"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const targets_1 = require("../../src/targets");
const registry_1 = require("../../src/targets/registry");
/** Every kind of `TargetKind`: a missing or extra key is a compile error. */
const ALL_KINDS = { embedded: true, local: true, external: true, kubernetes: true };
const FULL = {
    onWorkerHost: false,
    canKillRunning: true,
    countersWithoutQueryLog: 'none',
    summaryReadSource: 'http summary',
    runningStatementsFrom: 'system.processes',
    restartable: false,
    statementArchive: false,
};
function fake(kind, capabilities) {
    const no = () => {
        throw new Error('not used');
    };
    return {
        kind,
        capabilities: capabilities,
        provision: no,
        teardown: no,
        teardownCell: no,
        describeTeardown: no,
        check: no,
        runningStatements: no,
        statementProgress: no,
        kill: no,
        archiveStatements: no,
        checkSpec: () => [],
    };
}
function handle(kind, over = {}) {
    return {
        kind,
        url: 'http://127.0.0.1:1',
        database: 'default',
        username: 'default',
        runId: 'r',
        cellKey: 'c',
        provisionedBy: 'test',
        ...over,
    };
}
/** A client whose `query` records the SQL and answers `rows`. */
function recordingClient(rows) {
    const sql = [];
    const client = {
        query: async (p) => {
            sql.push(p.query);
            return { json: async () => rows };
        },
    };
    return { client, sql };
}
const unusedClient = new Proxy({}, { get: () => strict_1.default.fail('the client must not be used') });
/** A closed loopback port (connections are refused). */
async function closedPort() {
    const srv = http.createServer();
    await new Promise((r) => srv.listen(0, '127.0.0.1', r));
    const port = srv.address().port;
    await new Promise((r) => srv.close(r));
    return port;
}
(0, node_test_1.describe)('TargetRegistry', () => {
    (0, node_test_1.test)('refuses a second target of the same kind', () => {
        const r = new targets_1.TargetRegistry();
        r.register(fake('external', FULL));
        strict_1.default.throws(() => r.register(fake('external', FULL)), /target kind "external" is registered twice/);
        strict_1.default.deepEqual(r.kinds(), ['external']);
    });
    (0, node_test_1.test)('refuses incomplete, out-of-range and unknown capability flags', () => {
        const r = new targets_1.TargetRegistry();
        const { statementArchive: _, ...missing } = FULL;
        strict_1.default.throws(() => r.register(fake('local', missing)), /capability statementArchive is not declared/);
        strict_1.default.throws(() => r.register(fake('local', { ...FULL, runningStatementsFrom: 'ps' })), /capability runningStatementsFrom = "ps" is not one of/);
        strict_1.default.throws(() => r.register(fake('local', { ...FULL, dropsPageCache: true })), /capability dropsPageCache is unknown/);
        strict_1.default.deepEqual(r.kinds(), [], 'nothing was registered');
    });
    (0, node_test_1.test)('an unregistered kind is an error naming the registered ones', () => {
        const r = new targets_1.TargetRegistry();
        r.register(fake('embedded', { ...FULL, onWorkerHost: true }));
        strict_1.default.throws(() => r.get('local'), /no target of kind "local" is registered \(registered: embedded\)/);
        strict_1.default.equal(r.find('nonsense'), undefined);
        strict_1.default.equal(r.find('toString'), undefined, 'no prototype key is a kind');
    });
});
(0, node_test_1.describe)('the registered targets', () => {
    (0, node_test_1.test)('every TargetKind is registered, with every flag declared', () => {
        strict_1.default.deepEqual([...targets_1.targets.kinds()].sort(), Object.keys(ALL_KINDS).sort());
        for (const kind of targets_1.targets.kinds()) {
            const t = (0, targets_1.targetOf)({ kind });
            strict_1.default.equal(t.kind, kind);
            strict_1.default.deepEqual(Object.keys(t.capabilities).sort(), Object.keys(registry_1.CAPABILITY_VALUES).sort(), kind);
            strict_1.default.equal((0, targets_1.capabilitiesOf)(handle(kind)), t.capabilities);
        }
    });
    (0, node_test_1.test)('the flags each kind declares', () => {
        strict_1.default.deepEqual(Object.fromEntries(targets_1.targets.kinds().map((k) => [k, (0, targets_1.capabilitiesOf)({ kind: k })])), {
            embedded: {
                onWorkerHost: true,
                canKillRunning: false,
                countersWithoutQueryLog: 'system.events',
                summaryReadSource: 'output statistics',
                runningStatementsFrom: 'target endpoint',
                restartable: true,
                statementArchive: true,
            },
            local: {
                onWorkerHost: true,
                canKillRunning: true,
                countersWithoutQueryLog: 'none',
                summaryReadSource: 'http summary',
                runningStatementsFrom: 'system.processes',
                restartable: true,
                statementArchive: false,
            },
            external: {
                onWorkerHost: false,
                canKillRunning: true,
                countersWithoutQueryLog: 'none',
                summaryReadSource: 'http summary',
                runningStatementsFrom: 'system.processes',
                restartable: false,
                statementArchive: false,
            },
            kubernetes: {
                onWorkerHost: false,
                canKillRunning: true,
                countersWithoutQueryLog: 'none',
                summaryReadSource: 'http summary',
                runningStatementsFrom: 'system.processes',
                restartable: true,
                statementArchive: false,
            },
        });
    });
    (0, node_test_1.test)('capabilitiesOf(handle) follows what answers in a kubernetes pod', () => {
        const facts = (server) => ({ ...handle('kubernetes'), kubernetes: { server } });
        strict_1.default.equal((0, targets_1.capabilitiesOf)(facts('clickhouse-server')).runningStatementsFrom, 'system.processes');
        strict_1.default.deepEqual((0, targets_1.capabilitiesOf)(facts('chbench embedded engine')), {
            ...(0, targets_1.capabilitiesOf)({ kind: 'embedded' }),
            onWorkerHost: false,
        });
        // A bare kind (no handle) gets the declared, real-server set.
        strict_1.default.equal((0, targets_1.capabilitiesOf)({ kind: 'kubernetes' }).canKillRunning, true);
    });
    (0, node_test_1.test)('runningStatements follows runningStatementsFrom', async () => {
        // The embedded server's endpoint, served by a stub.
        const srv = http.createServer((req, res) => {
            strict_1.default.equal(req.url, '/chbench/running');
            res.setHeader('content-type', 'application/json');
            res.end(JSON.stringify([
                { query_id: 'chb-x-1', state: 'running' },
                { query_id: 'other-2', state: 'queued' },
                { query_id: 'chb-x-3', state: 'queued' },
            ]));
        });
        await new Promise((r) => srv.listen(0, '127.0.0.1', r));
        const url = `http://127.0.0.1:${srv.address().port}`;
        try {
            for (const kind of targets_1.targets.kinds()) {
                const t = (0, targets_1.targetOf)({ kind });
                if (t.capabilities.runningStatementsFrom === 'target endpoint') {
                    strict_1.default.deepEqual(await t.runningStatements(handle(kind, { url }), unusedClient, 'chb-x'), ['chb-x-1', 'chb-x-3'], kind);
                }
                else {
                    const { client, sql } = recordingClient([{ query_id: 'chb-x-9' }]);
                    strict_1.default.deepEqual(await t.runningStatements(handle(kind, { url }), client, 'chb-x'), ['chb-x-9'], kind);
                    strict_1.default.match(sql[0], /FROM system\.processes WHERE substring\(query_id, 1, 5\) = 'chb-x'/, kind);
                }
            }
        }
        finally {
            await new Promise((r) => srv.close(r));
        }
    });
    (0, node_test_1.test)('archiveStatements follows statementArchive', async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-targets-'));
        try {
            const log = '{"query_id":"chb-r-c-load-a1","started_at_ms":1,"finished_at_ms":2,"ok":true}\n';
            fs.writeFileSync(path.join(dir, 'statements.jsonl'), log);
            const url = `http://127.0.0.1:${await closedPort()}`;
            for (const kind of targets_1.targets.kinds()) {
                const t = (0, targets_1.targetOf)({ kind });
                const out = path.join(dir, `${kind}-archive.jsonl`);
                const source = await t.archiveStatements(handle(kind, { url, dataDir: dir }), 'chb-r-c', out);
                if (t.capabilities.statementArchive) {
                    strict_1.default.equal(source, 'embedded statements.jsonl', kind);
                    strict_1.default.equal(fs.readFileSync(out, 'utf8'), log);
                }
                else {
                    // system.query_log of an unreachable server: reported, never thrown, the directory's log untouched.
                    strict_1.default.match(source, /^not available: /, kind);
                    strict_1.default.equal(fs.existsSync(out), false, kind);
                }
            }
            strict_1.default.equal(await (0, targets_1.targetOf)({ kind: 'embedded' }).archiveStatements(handle('embedded', { dataDir: path.join(dir, 'none') }), 'p', path.join(dir, 'x')), 'not available: no statements.jsonl');
        }
        finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
    (0, node_test_1.test)('describeTeardown names what teardown removes', () => {
        strict_1.default.equal((0, targets_1.targetOf)({ kind: 'embedded' }).describeTeardown(handle('embedded', { pid: 12, dataDir: '/w/r/c' })), 'stopped pid 12, removed /w/r/c');
        strict_1.default.equal((0, targets_1.targetOf)({ kind: 'local' }).describeTeardown(handle('local', { pid: 13, dataDir: '/w/r/d' })), 'stopped pid 13, removed /w/r/d');
        strict_1.default.equal((0, targets_1.targetOf)({ kind: 'external' }).describeTeardown(handle('external', { database: 'chbench_r_c' })), 'DROP DATABASE chbench_r_c');
    });
    (0, node_test_1.test)('check reports an unreachable server without throwing', async () => {
        const url = `http://127.0.0.1:${await closedPort()}`;
        for (const kind of targets_1.targets.kinds()) {
            const c = await (0, targets_1.targetOf)({ kind }).check(handle(kind, { url }));
            strict_1.default.equal(c.reachable, false, kind);
            // A kubernetes handle is judged by its pod first; this one names none.
            strict_1.default.match(c.error ?? '', kind === 'kubernetes' ? /no kubernetes facts/ : /ECONNREFUSED|connect/i, kind);
        }
    });
    (0, node_test_1.test)('checkSpec: local binaries, external password variable', () => {
        const local = (0, targets_1.targetOf)({ kind: 'local' });
        const binaries = {
            '18.16': '/nonexistent/clickhouse-server',
            '26.7': process.execPath,
            '99.1': '/nonexistent/other',
        };
        strict_1.default.deepEqual(local.checkSpec({ kind: 'local', binaries }, ['18.16', '26.7', '24.8'], 'input'), [
            'matrix.version: version "24.8" has no way to be provisioned: target.binaries has no entry for it (has: 18.16, 26.7, 99.1)',
        ]);
        strict_1.default.deepEqual(local.checkSpec({ kind: 'local', binaries }, ['18.16', '26.7'], 'worker host'), [
            'target.binaries.18.16: "/nonexistent/clickhouse-server" is not an executable file on the worker',
        ]);
        const external = (0, targets_1.targetOf)({ kind: 'external' });
        const name = 'CHBENCH_TEST_UNSET_PASSWORD_VARIABLE';
        delete process.env[name];
        strict_1.default.deepEqual(external.checkSpec({ kind: 'external', url: 'http://x:8123', passwordEnv: name }, [], 'input'), []);
        strict_1.default.deepEqual(external.checkSpec({ kind: 'external', url: 'http://x:8123', passwordEnv: name }, [], 'worker host'), [`target.passwordEnv: environment variable ${name} is not set on the worker`]);
        process.env[name] = 'secret';
        try {
            strict_1.default.deepEqual(external.checkSpec({ kind: 'external', url: 'http://x:8123', passwordEnv: name }, [], 'worker host'), []);
        }
        finally {
            delete process.env[name];
        }
        strict_1.default.deepEqual((0, targets_1.targetOf)({ kind: 'embedded' }).checkSpec({ kind: 'embedded' }, ['26.7'], 'worker host'), []);
    });
});
//# sourceMappingURL=targets-registry.test.js.map