"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Run ids (`src/schema/run-id.ts`) and workload fingerprints (`src/lib/workload-hash.ts`), on the
 * repository's own workloads and a scratch copy of one.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const node_crypto_1 = require("node:crypto");
const node_child_process_1 = require("node:child_process");
const config_1 = require("../../src/config");
const run_id_1 = require("../../src/schema/run-id");
const workload_hash_1 = require("../../src/lib/workload-hash");
const workload_1 = require("../../src/lib/workload");
const store_1 = require("../../src/results/store");
(0, node_test_1.test)("a scheduled run's workflow id becomes the run id of its folder; a run id that cannot name a folder is refused", () => {
    const scheduled = 'chbench-quarterly-2026-11-30T03:10:57Z';
    strict_1.default.equal((0, run_id_1.runIdOfWorkflowId)(scheduled), 'chbench-quarterly-2026-11-30T03_10_57Z');
    // The same name the results store gives the folder: one id for both.
    strict_1.default.equal(node_path_1.default.basename((0, store_1.runDir)('/r', scheduled)), (0, run_id_1.runIdOfWorkflowId)(scheduled));
    strict_1.default.equal((0, run_id_1.runIdOfWorkflowId)('demo-20261201-031000'), 'demo-20261201-031000');
    strict_1.default.equal((0, run_id_1.runIdProblem)('demo-20261201-031000'), undefined);
    strict_1.default.equal((0, run_id_1.runIdProblem)((0, run_id_1.runIdOfWorkflowId)(scheduled)), undefined);
    strict_1.default.match((0, run_id_1.runIdProblem)(scheduled), /use letters, digits.*"chbench-quarterly-2026-11-30T03_10_57Z"/);
    strict_1.default.match((0, run_id_1.runIdProblem)('a/b'), /<runId>\/<cellKey>/);
    strict_1.default.match((0, run_id_1.runIdProblem)('..'), /cannot name a folder/);
    strict_1.default.match((0, run_id_1.runIdProblem)(''), /empty/);
    strict_1.default.match((0, run_id_1.runIdProblem)('x'.repeat(201)), /at most 200/);
});
(0, node_test_1.test)('a workload fingerprint hashes each file a run reads; an edited query is named as changed', () => {
    const fp = (0, workload_hash_1.workloadFingerprint)('logs');
    strict_1.default.deepEqual(Object.keys(fp.files), [
        'index.sql',
        'load.sql',
        'manifest.yaml',
        'q1.sql',
        'q2.sql',
        'q3.sql',
        'q4.sql',
        'q5.sql',
        'schema.sql',
    ]);
    const q1 = (0, node_fs_1.readFileSync)(node_path_1.default.join(workload_1.SQL_ROOT, 'workloads', 'logs', 'q1.sql'));
    strict_1.default.equal(fp.files['q1.sql'], (0, node_crypto_1.createHash)('sha256').update(q1).digest('hex'));
    strict_1.default.deepEqual((0, workload_hash_1.workloadFingerprint)('logs'), fp, 'stable');
    const root = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-wl-'));
    try {
        (0, node_fs_1.cpSync)(node_path_1.default.join(workload_1.SQL_ROOT, 'workloads', 'logs'), node_path_1.default.join(root, 'workloads', 'logs'), { recursive: true });
        strict_1.default.deepEqual((0, workload_hash_1.workloadFingerprint)('logs', root), fp, 'the same bytes elsewhere hash the same');
        (0, node_fs_1.writeFileSync)(node_path_1.default.join(root, 'workloads', 'logs', 'q1.sql'), q1.toString('utf8') + '\n-- edited\n');
        const edited = (0, workload_hash_1.workloadFingerprint)('logs', root);
        strict_1.default.notEqual(edited.sha256, fp.sha256);
        strict_1.default.deepEqual((0, workload_hash_1.changedWorkloadFiles)(fp, edited), ['q1.sql']);
        strict_1.default.deepEqual((0, workload_hash_1.changedWorkloadFiles)(fp, fp), []);
        const { ['index.sql']: _gone, ...rest } = fp.files;
        strict_1.default.deepEqual((0, workload_hash_1.changedWorkloadFiles)({ ...fp, files: rest }, fp), ['index.sql (new)']);
        strict_1.default.deepEqual((0, workload_hash_1.changedWorkloadFiles)(fp, { ...fp, files: rest }), ['index.sql (removed)']);
    }
    finally {
        (0, node_fs_1.rmSync)(root, { recursive: true, force: true });
    }
});
(0, node_test_1.test)('chbench run refuses a --run-id that cannot name a folder, before reaching Temporal', () => {
    const r = (0, node_child_process_1.spawnSync)(process.execPath, [
        node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'src', 'cli.js'),
        'run',
        node_path_1.default.join(config_1.REPO_ROOT, 'examples', 'demo.json'),
        '--run-id',
        'q-2026-11-30T03:10:57Z',
    ], 
    // An address nothing listens on: reaching Temporal would exit 3, not 2.
    { encoding: 'utf8', env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' }, timeout: 30_000 });
    strict_1.default.equal(r.status, 2, r.stderr);
    strict_1.default.match(r.stderr, /--run-id "q-2026-11-30T03:10:57Z": .*\(e\.g\. "q-2026-11-30T03_10_57Z"\)/);
});
//# sourceMappingURL=run-id.test.js.map