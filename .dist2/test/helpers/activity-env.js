"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.startActivity = startActivity;
exports.embeddedRunning = embeddedRunning;
/**
 * Activity-layer test helpers: run one activity in a `MockActivityEnvironment` while collecting its
 * heartbeats, and read the embedded engine's running statements.
 */
const testing_1 = require("@temporalio/testing");
/**
 * Start `fn(...args)` as an activity with Temporal's defaults for chbench's cell steps (10 s
 * heartbeat timeout), collecting heartbeats.
 */
function startActivity(fn, ...args) {
    const env = new testing_1.MockActivityEnvironment({ heartbeatTimeoutMs: 10_000, startToCloseTimeoutMs: 600_000 });
    const beats = [];
    env.on('heartbeat', (d) => beats.push({ at: Date.now(), d }));
    const result = env.run(fn, ...args);
    const settled = result.then((value) => ({ ok: true, value }), (error) => ({ ok: false, error }));
    return { result, beats, cancel: () => env.cancel(), settled };
}
/**
 * Statements running or queued on an embedded target (`GET <url>/chbench/running`).
 * @throws Error on a non-200 answer
 */
async function embeddedRunning(target) {
    const r = await fetch(`${target.url}/chbench/running`, { signal: AbortSignal.timeout(5000) });
    if (!r.ok)
        throw new Error(`${target.url}/chbench/running: HTTP ${r.status}`);
    return (await r.json());
}
//# sourceMappingURL=activity-env.js.map