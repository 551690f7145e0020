"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Build step: bundle the workflow code once (`dist/src/workflow-bundle.js`), so a worker loads the
 * bundle instead of running webpack at every start — faster start, and the bundler's memory never
 * enters the worker (`createWorker` uses the bundle while the compiled files hash to the fingerprint written beside it).
 */
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const worker_1 = require("@temporalio/worker");
const worker_2 = require("../src/worker");
async function main() {
    const hash = (0, worker_2.workflowSourcesHash)(node_path_1.default.dirname(worker_2.WORKFLOW_BUNDLE));
    const { code } = await (0, worker_1.bundleWorkflowCode)({
        workflowsPath: require.resolve('../src/workflows'),
        logger: { trace() { }, debug() { }, info() { }, warn: console.warn, error: console.error, log() { } },
    });
    (0, node_fs_1.writeFileSync)(worker_2.WORKFLOW_BUNDLE, code);
    (0, node_fs_1.writeFileSync)(worker_2.WORKFLOW_BUNDLE_HASH, `${hash}\n`);
    console.log(`workflow bundle: ${node_path_1.default.relative(process.cwd(), worker_2.WORKFLOW_BUNDLE)} (${(code.length / 1024).toFixed(0)} KiB)`);
}
main().catch((e) => {
    console.error(e);
    process.exit(1);
});
//# sourceMappingURL=bundle-workflows.js.map