"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The pure parts of what the CLI says when a run ends: the one-line summary and its durations, the
 * servers a run kept (read from its cells' provision records), and when a resume has nothing to do.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const follow_1 = require("../../src/cli/follow");
(0, node_test_1.test)('summaryLine: succeeded of total, then what else happened, then the duration', () => {
    strict_1.default.equal((0, follow_1.summaryLine)((0, follow_1.countOutcomes)([{ status: 'succeeded' }, { status: 'succeeded' }]), 21_400), '2/2 succeeded in 21 s');
    strict_1.default.equal((0, follow_1.summaryLine)((0, follow_1.countOutcomes)([{ status: 'succeeded' }, { status: 'failed' }, { status: 'skipped' }]), 184_000), '1/3 succeeded, 1 failed, 1 skipped in 3 min 4 s');
    strict_1.default.equal((0, follow_1.summaryLine)({ total: 3, succeeded: 0, failed: 0, skipped: 0, cancelled: 1 }, 7_260_000), '0/3 succeeded, 1 cancelled, 2 not run in 2 h 1 min');
    strict_1.default.equal((0, follow_1.summaryLine)((0, follow_1.countOutcomes)([{ status: 'succeeded' }])), '1/1 succeeded');
    strict_1.default.equal((0, follow_1.formatDuration)(850), '850 ms');
});
(0, node_test_1.test)('keptServers: cells provisioned and not torn down, with where they are; nothing to resume only when all finished', () => {
    const dir = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-follow-'));
    try {
        const cell = (k, files) => {
            (0, node_fs_1.mkdirSync)(node_path_1.default.join(dir, 'cells', k), { recursive: true });
            for (const [f, v] of Object.entries(files))
                (0, node_fs_1.writeFileSync)(node_path_1.default.join(dir, 'cells', k, f), JSON.stringify(v));
        };
        const target = { kind: 'embedded', url: 'http://127.0.0.1:41000', pid: 4242, dataDir: '/tmp/d1' };
        cell('a', { 'provision.json': { target }, 'result.json': { status: 'succeeded' } });
        cell('b', {
            'provision.json': { target: { ...target, pid: 1 } },
            'teardown.json': {},
            'result.json': { status: 'succeeded' },
        });
        cell('c', {
            'provision.json': {
                target: {
                    kind: 'kubernetes',
                    url: 'http://10.0.0.7:8123',
                    kubernetes: { namespace: 'bench-database', pod: 'chb-c', pvc: 'chb-c-data' },
                },
            },
            'result.json': { status: 'failed' },
        });
        (0, node_fs_1.writeFileSync)(node_path_1.default.join(dir, 'run.json'), JSON.stringify({ runId: 'r1', status: 'completed', cells: ['a', 'b', 'c'] }));
        const kept = (0, follow_1.keptServers)(dir);
        strict_1.default.deepEqual(kept.map((k) => k.cellKey), ['a', 'c']);
        strict_1.default.deepEqual((0, follow_1.keptServerLines)(kept), [
            '2 server(s) kept running (not torn down); remove them with `chbench gc` (pods: `chbench gc --kubernetes`) once the run is closed:',
            `  a: embedded at http://127.0.0.1:41000 (pid 4242, data dir /tmp/d1); recorded in ${node_path_1.default.join(dir, 'cells', 'a', 'provision.json')}`,
            `  c: kubernetes at http://10.0.0.7:8123 (pod bench-database/chb-c (PVC chb-c-data)); recorded in ${node_path_1.default.join(dir, 'cells', 'c', 'provision.json')}`,
        ]);
        strict_1.default.equal((0, follow_1.nothingToResume)(dir), undefined, 'cell c failed: resume runs it again');
        cell('c', { 'result.json': { status: 'skipped' } });
        strict_1.default.equal((0, follow_1.nothingToResume)(dir), `nothing to resume: run r1 completed and all 3 cell(s) finished (2 succeeded, 1 skipped); report: ${node_path_1.default.join(dir, 'report.md')}`);
        (0, node_fs_1.writeFileSync)(node_path_1.default.join(dir, 'run.json'), JSON.stringify({ runId: 'r1', status: 'cancelled', cells: ['a', 'b', 'c'] }));
        strict_1.default.equal((0, follow_1.nothingToResume)(dir), undefined, 'a cancelled run is resumed (its report and comparison are redone)');
    }
    finally {
        (0, node_fs_1.rmSync)(dir, { recursive: true, force: true });
    }
});
//# sourceMappingURL=cli-follow.test.js.map