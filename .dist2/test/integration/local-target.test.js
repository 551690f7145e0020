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
 * Local target end to end with the real ClickHouse server binary (Debian's clickhouse-server 18.16
 * on this machine; CI installs it). No mocks. The binary is taken from CHBENCH_CLICKHOUSE_SERVER,
 * else the first of /usr/bin/clickhouse-server, /usr/sbin/clickhouse-server that exists; when none
 * exists the test FAILS (it does not skip).
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const node_crypto_1 = require("node:crypto");
const client_1 = require("@clickhouse/client");
const common_1 = require("@temporalio/common");
const local_1 = require("../../src/targets/local");
const failures_1 = require("../../src/schema/failures");
const process_1 = require("../../src/targets/process");
/** The expected errors would otherwise be logged by the client. */
const QUIET = { level: client_1.ClickHouseLogLevel.OFF };
const CANDIDATES = ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'];
function serverBinary() {
    const fromEnv = process.env.CHBENCH_CLICKHOUSE_SERVER;
    if (fromEnv) {
        strict_1.default.ok(fs.existsSync(fromEnv), `CHBENCH_CLICKHOUSE_SERVER=${fromEnv} does not exist. Run ./scripts/setup.sh --with-debian-clickhouse (CI does) or point it at a server binary.`);
        return fromEnv;
    }
    const found = CANDIDATES.find((p) => fs.existsSync(p));
    if (!found) {
        strict_1.default.fail(`No ClickHouse server binary at ${CANDIDATES.join(' or ')}: run ./scripts/setup.sh --with-debian-clickhouse ` +
            `(CI does), or set CHBENCH_CLICKHOUSE_SERVER to a server binary.`);
    }
    return found;
}
(0, node_test_1.describe)('local target (ClickHouse server binary per cell)', { timeout: 240_000 }, () => {
    let workDir;
    let req;
    let handle;
    let client;
    (0, node_test_1.before)(() => {
        workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-local-test-'));
        req = { runId: `local-run-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`, cellKey: 'cell:18.16', version: '18.16', workDir };
    });
    (0, node_test_1.after)(async () => {
        await client?.close();
        if (handle)
            await (0, local_1.teardownLocal)(handle).catch(() => undefined);
        fs.rmSync(workDir, { recursive: true, force: true });
    });
    (0, node_test_1.it)('builds the command line for both binary layouts', () => {
        strict_1.default.deepEqual((0, local_1.localServerCommand)('/opt/ch/clickhouse', '/d/config.xml'), {
            command: '/opt/ch/clickhouse',
            args: ['server', '--config-file=/d/config.xml'],
        });
        strict_1.default.deepEqual((0, local_1.localServerCommand)('/usr/sbin/clickhouse-server', '/d/config.xml'), {
            command: '/usr/sbin/clickhouse-server',
            args: ['--config-file=/d/config.xml'],
        });
    });
    (0, node_test_1.it)('starts the server with a generated config and answers ping and version()', async () => {
        const bin = serverBinary();
        handle = await (0, local_1.provisionLocal)(req, bin);
        strict_1.default.equal(handle.kind, 'local');
        strict_1.default.match(handle.url, /^http:\/\/127\.0\.0\.1:\d+$/);
        strict_1.default.ok(handle.pid && (0, process_1.isAlive)(handle.pid));
        strict_1.default.ok(handle.dataDir && (0, process_1.processMentions)(handle.pid, handle.dataDir));
        strict_1.default.ok(fs.existsSync(path.join(handle.dataDir, 'config.xml')));
        strict_1.default.match(handle.provisionedBy, new RegExp(`^${bin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} 18\\.16[\\d.]* in pid ${handle.pid} \\(generated config .*config\\.xml\\)$`));
        const label = (0, process_1.readLabel)(handle.dataDir);
        strict_1.default.equal(label?.runId, req.runId);
        strict_1.default.ok(label?.ports.tcp && label.ports.tcp !== label.ports.http);
        client = (0, client_1.createClient)({ url: handle.url, username: 'default', password: '', log: QUIET });
        strict_1.default.equal((await client.ping()).success, true);
        const rs = await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' });
        const [{ v }] = await rs.json();
        strict_1.default.match(v, /^18\./);
    });
    (0, node_test_1.it)('logs queries: the query_id is in system.query_log after SYSTEM FLUSH LOGS', async () => {
        strict_1.default.ok(client);
        const queryId = `chbench-${(0, node_crypto_1.randomUUID)()}`;
        const rs = await client.query({
            query: 'SELECT sum(number) AS s FROM numbers(1000)',
            query_id: queryId,
            format: 'JSONEachRow',
        });
        strict_1.default.equal(rs.query_id, queryId);
        strict_1.default.deepEqual(await rs.json(), [{ s: '499500' }]);
        await client.command({ query: 'SYSTEM FLUSH LOGS' });
        // 18.16 has no HTTP query parameters (param_id is taken for an unknown setting): inline the id
        // (a UUID with a fixed prefix, safe to quote).
        const log = await client.query({
            query: `SELECT type, read_rows FROM system.query_log WHERE query_id = '${queryId}' ORDER BY event_time`,
            format: 'JSONEachRow',
        });
        const rows = await log.json();
        strict_1.default.ok(rows.length >= 1, `query_log rows for ${queryId}: ${JSON.stringify(rows)}`);
        // 18.16 has numeric `type` (2 = QueryFinish); newer versions an Enum name.
        strict_1.default.ok(rows.some((r) => String(r.type) === '2' || r.type === 'QueryFinish'));
        strict_1.default.ok(rows.some((r) => r.read_rows === '1000'));
    });
    (0, node_test_1.it)('adopts the running server when provisioned again', async () => {
        strict_1.default.ok(handle);
        const again = await (0, local_1.provisionLocal)(req, serverBinary());
        strict_1.default.deepEqual(again, handle);
    });
    (0, node_test_1.it)('a binary labelled with another version is refused as VersionMismatch (non-retryable), and its server stopped', async () => {
        const wrong = { ...req, cellKey: 'cell:24.8', version: '24.8' };
        const err = await (0, local_1.provisionLocal)(wrong, serverBinary()).then(() => strict_1.default.fail('provisioned a 18.16 binary as 24.8'), (e) => e);
        strict_1.default.ok(err instanceof common_1.ApplicationFailure, String(err));
        strict_1.default.equal(err.type, failures_1.FAILURE.VersionMismatch);
        strict_1.default.equal(err.nonRetryable, true);
        strict_1.default.match(err.message, /is ClickHouse 18\.16\.[\d.]+, but the cell asks for version 24\.8/);
        // The wrong server was stopped and its directory removed: nothing of it is left to adopt.
        strict_1.default.equal(fs.existsSync(path.join(workDir, req.runId.replace(/[^A-Za-z0-9._-]/g, '_'), 'cell_24.8')), false);
    });
    (0, node_test_1.it)('a missing binary, or a version without one, is MissingBinary (non-retryable)', async () => {
        for (const attempt of [
            () => (0, local_1.provisionLocal)({ ...req, cellKey: 'cell:missing' }, path.join(workDir, 'no', 'clickhouse-server')),
            async () => local_1.localTarget.provision({ kind: 'local', binaries: { '18.16': serverBinary() } }, {
                ...req,
                cellKey: 'cell:nolabel',
                version: '24.8',
            }),
        ]) {
            const err = await attempt().then(() => strict_1.default.fail('provisioned without a binary'), (e) => e);
            strict_1.default.ok(err instanceof common_1.ApplicationFailure, String(err));
            strict_1.default.equal(err.type, failures_1.FAILURE.MissingBinary);
            strict_1.default.equal(err.nonRetryable, true);
        }
    });
    (0, node_test_1.it)('teardown stops the server and removes the directory; twice is fine', async () => {
        strict_1.default.ok(handle);
        const pid = handle.pid;
        const dir = handle.dataDir;
        await client?.close();
        client = undefined;
        await (0, local_1.teardownLocal)(handle);
        strict_1.default.equal((0, process_1.isAlive)(pid), false);
        strict_1.default.equal(fs.existsSync(dir), false);
        await (0, local_1.teardownLocal)(handle);
        handle = undefined;
    });
});
//# sourceMappingURL=local-target.test.js.map