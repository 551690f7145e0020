"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The demo (`npm run demo`): start a real Temporal dev server (with its Web UI) on free ports, a
 * worker in this process, run `examples/demo.yaml` as a `benchmarkMatrix` workflow, print the
 * report path, and stop everything. Results stay under `results/<runId>/`.
 *
 * Set TEMPORAL_ADDRESS to use a server you already run instead of starting one.
 */
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("./config");
const demo_env_1 = require("./demo-env");
const spec_file_1 = require("./lib/spec-file");
const validate_spec_1 = require("./activities/matrix/validate-spec");
const run_spec_1 = require("./schema/run-spec");
const run_client_1 = require("./temporal/run-client");
async function main() {
    const specFile = process.argv[2] ?? node_path_1.default.join(config_1.REPO_ROOT, 'examples', 'demo.yaml');
    const raw = (0, spec_file_1.readSpecFile)(specFile);
    const { spec, problems } = (0, validate_spec_1.checkSpec)(raw);
    if (!spec || problems.length)
        throw new Error(`invalid spec ${specFile}:\n  - ${problems.join('\n  - ')}`);
    const env = await (0, demo_env_1.startDemoEnv)('demo');
    const { client, cfg } = env;
    try {
        const runId = (0, run_client_1.newRunId)(spec.name);
        console.error(`demo: run ${runId}: ${spec.workload}, ${spec.scale} rows, ${spec.target.kind} target, codecs ${spec.matrix.codec.map((e) => (0, run_spec_1.codecProfileOf)(e).name).join(' / ')}`);
        const t0 = Date.now();
        const r = await (0, run_client_1.runAndFollow)(client, raw, runId, cfg.taskQueue, { progress: true });
        console.error(`demo: finished in ${((Date.now() - t0) / 1000).toFixed(0)} s; cells: ${r.cells.map((c) => `${c.cellKey} ${c.status}`).join(', ')}`);
        console.log(r.reportPath);
        if (r.cells.some((c) => c.status === 'failed'))
            process.exitCode = 1;
    }
    finally {
        await env.stop();
    }
}
main().catch((e) => {
    console.error(`demo failed: ${e.stack ?? e}`);
    process.exit(1);
});
//# sourceMappingURL=demo.js.map