"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Issue 13 §3, rendering only: report.md and report.html built from the captured run
 * (`test/fixtures/results/embedded-26.7`, real result.json files) edited into the states a run ends
 * in when things go wrong, plus the unit-per-column formatters and the data-disk reader. The real
 * failed and cancelled runs are in test/e2e/report-honest.test.ts.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../../src/config");
const report_1 = require("../../src/results/report");
const report_html_1 = require("../../src/results/report-html");
const report_cells_1 = require("../../src/results/report-cells");
const collect_metrics_1 = require("../../src/activities/collect-metrics");
const FIXTURE = node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-report-honest-'));
(0, node_test_1.after)(() => (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true }));
/** A copy of the fixture run with `edit` applied to each named cell's result.json. */
function variant(name, edits) {
    const dir = node_path_1.default.join(tmp, name);
    (0, node_fs_1.cpSync)(FIXTURE, dir, { recursive: true });
    for (const [cell, edit] of Object.entries(edits)) {
        const f = node_path_1.default.join(dir, 'cells', cell, 'result.json');
        const r = JSON.parse((0, node_fs_1.readFileSync)(f, 'utf8'));
        edit(r);
        (0, node_fs_1.writeFileSync)(f, JSON.stringify(r));
    }
    return dir;
}
(0, node_test_1.describe)('a cell that failed after measuring its baseline queries', () => {
    // As the cell workflow leaves it: no index.json, no index queries, no end snapshot.
    const dir = variant('failed-in-index', {
        'v26.7-zstd3': (r) => {
            r.status = 'failed';
            r.error = 'MutationFailed: the mutation failed';
            r.stopped_in = 'materialize-index';
            r.index = null;
            r.queries_index = null;
            r.metrics_delta = null;
            r.metrics_delta_unavailable = 'not collected (failed during materialize-index, before the end-of-cell snapshot)';
        },
    });
    (0, node_test_1.it)('report.md: the status counts the failed cell and the banner covers only what was measured', () => {
        const md = (0, report_1.renderReport)(dir);
        strict_1.default.match(md, /run status \*\*completed, 1 of 2 cells failed\*\*/);
        strict_1.default.doesNotMatch(md, /^Validity: every cold run was cold/m);
        const banner = md.split('\n').find((l) => l.startsWith('> **Validity of what was measured only**'));
        strict_1.default.ok(banner, 'a banner scoped to what was measured');
        const { cells } = (0, report_1.loadRun)(dir);
        const runs = cells
            .flatMap((c) => [c.queries_baseline, c.queries_index].flatMap((p) => p?.queries ?? []).flatMap((q) => q.samples))
            .filter((s) => s.kind !== 'warmup');
        strict_1.default.ok(banner.includes(`${runs.length} query run(s) in 2 of 2 cell(s)`), banner);
        strict_1.default.match(banner, /Not covered: v26\.7-zstd3 failed in materialize-index: MutationFailed/);
        const counters = md.split('\n').find((l) => l.startsWith('| v26.7-zstd3 (failed)') && l.includes('not collected'));
        strict_1.default.match(counters, /not collected \(failed\)/);
    });
    (0, node_test_1.it)('report.html says the same', async () => {
        const html = await (0, report_html_1.renderHtmlReport)(dir);
        strict_1.default.match(html, /run status <strong>completed, 1 of 2 cells failed<\/strong>/);
        strict_1.default.match(html, /<p class="unknown"><strong>Validity of what was measured only<\/strong>/);
        strict_1.default.doesNotMatch(html, /<p class="ok">Validity: every cold run was cold/);
    });
});
(0, node_test_1.describe)('captions and headings from what ran', () => {
    (0, node_test_1.it)('no compared query measured after the index: no "before and after the index", no before/after heading', () => {
        const cancelled = (r) => {
            r.status = 'cancelled';
            r.stopped_in = 'queries-index';
            r.queries_index = { ...r.queries_index, incomplete: 'cancelled; 0 of 1 queries measured', queries: [] };
        };
        const md = (0, report_1.renderReport)(variant('cancelled-in-index-queries', { 'v26.7-lz4': cancelled, 'v26.7-zstd3': cancelled }));
        strict_1.default.match(md, /Results agree: every run of q1, q2, q3, q5 in every cell returned the same rows/);
        strict_1.default.doesNotMatch(md, /before and after the index/);
        strict_1.default.match(md, /^## Skip index `trace_bf` \(bloom_filter\)$/m);
        strict_1.default.doesNotMatch(md, /^## Skip index.*before \/ after/m);
        strict_1.default.match(md, /no query was measured after it: v26\.7-lz4 cancelled during queries-index; v26\.7-zstd3 cancelled during queries-index\./);
    });
    (0, node_test_1.it)('the ingest caption names the generator of the load SQL sent: numbers(N) stays numbers(N)', () => {
        const sql = (r) => (r.load.sql = 'INSERT INTO logs (timestamp) SELECT toDateTime64(number, 3) FROM numbers(2000000)');
        const md = (0, report_1.renderReport)(variant('numbers', { 'v26.7-lz4': sql, 'v26.7-zstd3': sql }));
        strict_1.default.match(md, /reading `numbers\(2000000\)`/);
        strict_1.default.doesNotMatch(md, /numbers_mt/);
    });
    (0, node_test_1.it)('query ids are shown as the workload spells them', async () => {
        const id = (r) => {
            for (const p of [r.queries_baseline, r.queries_index])
                for (const q of p?.queries ?? [])
                    q.id = q.id === 'q5' ? 'Trace_Lookup' : q.id;
        };
        const dir = variant('ids', { 'v26.7-lz4': id, 'v26.7-zstd3': id });
        const md = (0, report_1.renderReport)(dir);
        strict_1.default.match(md, /^\| Trace_Lookup trace_id point lookup/m);
        strict_1.default.match(md, /\| v26\.7-lz4 +\| Trace_Lookup +\|/);
        strict_1.default.doesNotMatch(md, /TRACE_LOOKUP|\bQ[1-5]\b/);
        const html = await (0, report_html_1.renderHtmlReport)(dir);
        strict_1.default.doesNotMatch(html, /TRACE_LOOKUP/);
    });
});
(0, node_test_1.describe)('comparing cells', () => {
    const md = (0, report_1.renderReport)(FIXTURE);
    const { cells } = (0, report_1.loadRun)(FIXTURE);
    const [lz4, zstd] = cells;
    const row = (q, cell) => md
        .split('\n')
        .find((l) => l.startsWith(`| ${q} `) && l.includes(`| ${cell} `) && l.includes('×'))
        .split('|')
        .map((x) => x.trim());
    (0, node_test_1.it)('ratios against the first cell: size, ingest and each query warm time, from the records', () => {
        const cellRow = md
            .split('\n')
            .find((l) => l.startsWith('| v26.7-zstd3 ') && l.includes('(from provisioning)'))
            .split('|')
            .map((x) => x.trim());
        strict_1.default.equal(cellRow[3], `${(zstd.storage.compressed_bytes / lz4.storage.compressed_bytes).toFixed(2)}×`);
        strict_1.default.equal(cellRow[5], `${(zstd.load.elapsed_ms / lz4.load.elapsed_ms).toFixed(2)}×`);
        const q3 = (c) => c.queries_baseline.queries.find((q) => q.id === 'q3');
        strict_1.default.equal(row('q3', 'v26.7-zstd3')[4], `${(q3(zstd).stats.warm_min_ms / q3(lz4).stats.warm_min_ms).toFixed(2)}×`);
    });
    (0, node_test_1.it)('read_bytes and MB/s of the last warm run, with their source; the warm spread (max, IQR)', () => {
        const q3 = zstd.queries_baseline.queries.find((q) => q.id === 'q3');
        const last = q3.samples.filter((s) => s.kind === 'warm').at(-1);
        const r = (0, report_cells_1.readRate)(q3);
        strict_1.default.equal(r.bytes, last.read_bytes);
        strict_1.default.equal(r.mbPerS, last.read_bytes / 1e6 / (last.server_elapsed_ms / 1000));
        strict_1.default.equal(r.source, `${last.read_source} read_bytes / ${last.server_elapsed_source}`);
        strict_1.default.ok(md.includes(`\`${r.source}\``), 'the source is named');
        strict_1.default.equal(row('q3', 'v26.7-zstd3')[8], Math.round(r.mbPerS).toLocaleString('en-US'));
        const warm = q3.samples.filter((s) => s.kind === 'warm').map((s) => s.server_elapsed_ms);
        const s = (0, report_cells_1.warmSpread)(q3);
        strict_1.default.equal(s.max, Math.max(...warm));
        strict_1.default.equal(s.runs, warm.length);
        strict_1.default.ok(s.iqr > 0 && s.iqr <= s.max - Math.min(...warm));
    });
    (0, node_test_1.it)('host-wide figures that differ a lot between cells are flagged with both values', () => {
        const sum = (c) => Object.values(c.metrics_delta.host_disks).reduce((a, x) => a + x.write_bytes, 0);
        const flags = (0, report_cells_1.hostWideFlags)(cells);
        const f = flags.find((x) => x.figure === 'host disk written');
        strict_1.default.ok(Math.max(sum(lz4), sum(zstd)) >= 2 * Math.min(sum(lz4), sum(zstd)), 'the fixture differs ≥ 2×');
        strict_1.default.ok(f, JSON.stringify(flags));
        strict_1.default.ok(f.text.includes(`${(Math.max(sum(lz4), sum(zstd)) / Math.min(sum(lz4), sum(zstd))).toFixed(1)}×`), f.text);
        strict_1.default.ok(md.includes(`**⚠ ${f.text}.**`));
    });
    (0, node_test_1.it)('an environment block: chbench version and commit, the workflow id, each cell and its duration', () => {
        const run = JSON.parse((0, node_fs_1.readFileSync)(node_path_1.default.join(FIXTURE, 'run.json'), 'utf8'));
        strict_1.default.match(md, new RegExp(`^chbench ${run.chbench.version}, commit ${run.chbench.commit} .*matrix workflow id \`${run.runId}\``, 'm'));
        const ms = Date.parse(lz4.written_at) - Date.parse(lz4.provision.provisioned_at);
        strict_1.default.ok(md.includes(`| v26.7-lz4   | not recorded     | ${ms.toLocaleString('en-US')} ms (from provisioning)`), 'duration from the records');
    });
});
(0, node_test_1.describe)('one unit per column', () => {
    (0, node_test_1.it)('bytes: the largest value picks the unit for the whole column', () => {
        const f = (0, report_cells_1.bytesColumn)([900 * 1024, 3 * 1024 ** 3, null]);
        strict_1.default.deepEqual([f(900 * 1024), f(3 * 1024 ** 3), f(null)], ['0.00 GiB', '3.00 GiB', 'n/a']);
        strict_1.default.equal((0, report_cells_1.bytesColumn)([512])(512), '512 B');
    });
    (0, node_test_1.it)('durations: ms for the column unless its largest is ≥ 100 s; never finer than the source', () => {
        const f = (0, report_cells_1.msColumn)([4.2, 31_500]);
        strict_1.default.deepEqual([f(4.2), f(31_500), f(0.4, 1), f(12.6, 1)], ['4.20 ms', '31,500 ms', '< 1 ms', '13 ms']);
        const s = (0, report_cells_1.msColumn)([4.2, 120_000]);
        strict_1.default.deepEqual([s(4.2), s(120_000)], ['0.00 s', '120.00 s']);
    });
});
(0, node_test_1.describe)('the data directory disk', () => {
    (0, node_test_1.it)('on this host: the mount that holds the directory, with its filesystem', () => {
        const d = (0, collect_metrics_1.readDataDisk)(tmp);
        strict_1.default.equal(d.path, tmp);
        const mounts = (0, node_fs_1.readFileSync)('/proc/self/mountinfo', 'utf8');
        strict_1.default.ok(d.mount_point && mounts.includes(` ${d.mount_point} `), JSON.stringify(d));
        strict_1.default.ok(d.filesystem && mounts.includes(` - ${d.filesystem} `), JSON.stringify(d));
    });
    (0, node_test_1.it)('from a captured /proc and /sys: partition → its disk, model and rotational flag', () => {
        const root = node_path_1.default.join(tmp, 'root');
        (0, node_fs_1.mkdirSync)(node_path_1.default.join(root, 'proc/self'), { recursive: true });
        (0, node_fs_1.writeFileSync)(node_path_1.default.join(root, 'proc/self/mountinfo'), [
            '1 0 8:1 / / rw - ext4 /dev/sda1 rw',
            '2 1 8:17 / /var/lib/click\\040house rw - xfs /dev/sdb1 rw',
            '3 1 0:5 / /proc rw - proc proc rw',
        ].join('\n') + '\n');
        (0, node_fs_1.mkdirSync)(node_path_1.default.join(root, 'dev'), { recursive: true });
        (0, node_fs_1.writeFileSync)(node_path_1.default.join(root, 'dev/sdb1'), '');
        const disk = node_path_1.default.join(root, 'sys/devices/pci0/sdb');
        (0, node_fs_1.mkdirSync)(node_path_1.default.join(disk, 'sdb1'), { recursive: true });
        (0, node_fs_1.writeFileSync)(node_path_1.default.join(disk, 'sdb1/partition'), '1\n');
        (0, node_fs_1.mkdirSync)(node_path_1.default.join(disk, 'device'), { recursive: true });
        (0, node_fs_1.writeFileSync)(node_path_1.default.join(disk, 'device/model'), 'Samsung SSD 980  \n');
        (0, node_fs_1.mkdirSync)(node_path_1.default.join(disk, 'queue'), { recursive: true });
        (0, node_fs_1.writeFileSync)(node_path_1.default.join(disk, 'queue/rotational'), '0\n');
        (0, node_fs_1.mkdirSync)(node_path_1.default.join(root, 'sys/class/block'), { recursive: true });
        (0, node_fs_1.symlinkSync)(node_path_1.default.join(disk, 'sdb1'), node_path_1.default.join(root, 'sys/class/block/sdb1'));
        (0, node_fs_1.symlinkSync)(disk, node_path_1.default.join(root, 'sys/class/block/sdb'));
        const d = (0, collect_metrics_1.readDataDisk)('/var/lib/click house/data/x', root);
        strict_1.default.deepEqual({ mount: d.mount_point, fs: d.filesystem, dev: d.device, disk: d.disk, model: d.disk_model, rot: d.rotational }, { mount: '/var/lib/click house', fs: 'xfs', dev: '/dev/sdb1', disk: 'sdb', model: 'Samsung SSD 980', rot: false });
    });
});
//# sourceMappingURL=report-honest.test.js.map