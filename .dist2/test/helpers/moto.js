"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.startMoto = startMoto;
/**
 * A real moto server (PyPI `moto[ec2,cloudwatch]`, `.venv/bin/moto_server`) on a free loopback port,
 * serving the EC2 and CloudWatch APIs for tests, and AWS SDK clients pointed at it with fake
 * credentials given to the clients only (no AWS_* variable is read or set, so a developer's real
 * profile is never used). `stop()` ends the server's whole process group.
 */
const node_child_process_1 = require("node:child_process");
const node_path_1 = __importDefault(require("node:path"));
const client_cloudwatch_1 = require("@aws-sdk/client-cloudwatch");
const client_ec2_1 = require("@aws-sdk/client-ec2");
const net_1 = require("../../src/lib/net");
const poll_1 = require("../../src/lib/poll");
const config_1 = require("../../src/config");
/** Fake credentials, for moto only. */
const FAKE_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };
function exited(child) {
    return child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise((resolve) => child.once('exit', () => resolve()));
}
/**
 * Start `.venv/bin/moto_server` on 127.0.0.1:<free port> and wait until it answers HTTP.
 * @param timeoutMs give up after this long @default 30000
 * @throws Error with the server's output when it exits or does not answer in time
 */
async function startMoto(timeoutMs = 30_000) {
    const port = await (0, net_1.freePort)();
    const bin = node_path_1.default.join(config_1.REPO_ROOT, '.venv', 'bin', 'moto_server');
    // Own process group (detached), so stop() can signal the server and anything it forks.
    const child = (0, node_child_process_1.spawn)(bin, ['-H', '127.0.0.1', '-p', String(port)], {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    });
    let output = '';
    const keep = (b) => {
        output = (output + b.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const gone = exited(child);
    const endpoint = `http://127.0.0.1:${port}`;
    const stop = async () => {
        if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
            return;
        try {
            process.kill(-child.pid, 'SIGTERM');
        }
        catch {
            // already gone
        }
        const timer = setTimeout(() => {
            try {
                if (child.pid !== undefined)
                    process.kill(-child.pid, 'SIGKILL');
            }
            catch {
                // already gone
            }
        }, 5000);
        await gone;
        clearTimeout(timer);
    };
    try {
        await (0, poll_1.pollUntil)(async () => {
            if (child.exitCode !== null)
                throw new Error(`moto_server exited with ${child.exitCode}: ${output}`);
            const r = await fetch(`${endpoint}/moto-api/`).catch(() => null);
            return r !== null && r.status < 500;
        }, {
            timeoutMs,
            intervalMs: 100,
            what: `moto_server on ${endpoint}`,
            stopOn: (e) => e instanceof Error && e.message.startsWith('moto_server exited'),
        });
    }
    catch (e) {
        await stop();
        throw e;
    }
    const cfg = { endpoint, region: 'us-east-1', credentials: FAKE_CREDENTIALS, maxAttempts: 1 };
    const ec2 = new client_ec2_1.EC2Client(cfg);
    const cloudwatch = new client_cloudwatch_1.CloudWatchClient(cfg);
    return {
        endpoint,
        region: 'us-east-1',
        ec2,
        cloudwatch,
        async stop() {
            ec2.destroy();
            cloudwatch.destroy();
            await stop();
        },
    };
}
//# sourceMappingURL=moto.js.map