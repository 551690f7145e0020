"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The load grids in report.md, from a real run of the grids demo (test/fixtures/results/grids-26.7:
 * 18 insert points, 5 concurrency steps on the embedded engine): both tables, the knee, the async
 * note; and what an unverified or client-bound point looks like.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../../src/config");
const report_1 = require("../../src/results/report");
const report_grids_1 = require("../../src/results/report-grids");
const grids_1 = require("../../src/schema/grids");
const FIXTURE = node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'results', 'grids-26.7');
(0, node_test_1.test)('report.md shows both grids of the demo run: every point and step, the knee and the async note', () => {
    const md = (0, report_1.renderReport)(FIXTURE);
    const section = (h) => md.slice(md.indexOf(h), md.indexOf('\n## ', md.indexOf(h) + 1));
    const ins = section('## Insert grid');
    const rows = ins.split('\n').filter((l) => /^\| [\d,]+ +\| \d/.test(l));
    strict_1.default.equal(rows.length, 18);
    strict_1.default.ok(rows.every((l) => l.includes('yes (100,000 rows)')));
    strict_1.default.match(ins, /async: async_insert=1 requested; the server ran the inserts synchronously \(system\.events AsyncInsertQuery \+0\)/);
    const conc = section('## Concurrency stepping');
    strict_1.default.equal(conc.split('\n').filter((l) => /^\| \d+ +\| [\d.]+ /.test(l)).length, 5);
    strict_1.default.match(conc, /Knee: \*\*1 client\*\* — QPS fell [\d.]+ % from 1 to 2 clients/);
    strict_1.default.match(conc, /Stepping ended: all steps ran\./);
    strict_1.default.match(conc, /The embedded engine runs one statement at a time/);
    const { run, cells } = (0, report_1.loadRun)(FIXTURE);
    strict_1.default.deepEqual((0, report_grids_1.gridsOutcome)(cells, run.spec), {
        insertPoints: 18,
        insertVerified: 18,
        concurrencySteps: 5,
        knees: [1],
    });
});
(0, node_test_1.test)('an unverified or client-bound point says so in its row and below the table', () => {
    const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-report-grids-'));
    try {
        (0, node_fs_1.cpSync)(FIXTURE, tmp, { recursive: true });
        const file = node_path_1.default.join(tmp, 'cells', 'v26.7-lz4', 'result.json');
        const r = JSON.parse((0, node_fs_1.readFileSync)(file, 'utf8'));
        const p = r.grids.insert[0];
        p.summary.verified = false;
        p.verification.verified = false;
        p.verification.reasons = ['count() 99,000 ≠ expected 100,000'];
        p.summary.clientBound = true;
        p.cpu.reason = 'the worker process used 0.97 cores (process.cpuUsage), ≥ 0.9: its JavaScript thread was saturated';
        (0, node_fs_1.writeFileSync)(file, JSON.stringify(r));
        const md = (0, report_1.renderReport)(tmp);
        strict_1.default.match(md, /\*\*NO\*\* — count\(\) 99,000 ≠ expected 100,000 +\| \*\*yes\*\* +\|/);
        strict_1.default.match(md, /- ⚠ b1000-c1-sync-rowbinary: client-bound — the worker process used 0\.97 cores/);
        const { run, cells } = (0, report_1.loadRun)(tmp);
        strict_1.default.equal((0, report_grids_1.gridsOutcome)(cells, run.spec).insertVerified, 17);
    }
    finally {
        (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true });
    }
});
(0, node_test_1.test)("the stepping outcome is derived again from the records with the workflow's own rules", () => {
    const { run, cells } = (0, report_1.loadRun)(FIXTURE);
    const g = grids_1.ConcurrencyGridSpec.parse(run.spec.grids.concurrency);
    const steps = cells[0].grids.concurrency;
    // Cut after two steps: the workflow would have gone on, so the record says the cell ended early.
    strict_1.default.match((0, report_grids_1.steppingOutcome)(steps.slice(0, 2), g).stopReason, /stopped after 2 of 5 steps/);
    // A step with errors above the threshold ends stepping there.
    const failing = structuredClone(steps.slice(0, 3));
    failing[2].summary.errors = Math.ceil(failing[2].summary.requests * 0.05);
    strict_1.default.match((0, report_grids_1.steppingOutcome)(failing, g).stopReason, /^errors: 5\.\d % of requests failed at 4 clients/);
});
//# sourceMappingURL=report-grids.test.js.map