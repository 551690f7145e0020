"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Hosts in the report (src/results/report-hosts.ts): the hosts of a run, the "host busy" flags from
 * the cells' windows and their host_activity snapshots, and the Hosts section in report.md and
 * report.html (on a copy of test/fixtures/results/embedded-26.7 given hosts); a run without hosts
 * renders exactly as before.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../../src/config");
const report_1 = require("../../src/results/report");
const report_html_1 = require("../../src/results/report-html");
const report_hosts_1 = require("../../src/results/report-hosts");
const FIXTURE = node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const tmp = (0, node_fs_1.mkdtempSync)(node_path_1.default.join(node_os_1.default.tmpdir(), 'chbench-report-hosts-'));
(0, node_test_1.after)(() => (0, node_fs_1.rmSync)(tmp, { recursive: true, force: true }));
const RUN = 'run-1';
const T0 = Date.parse('2026-12-01T10:00:00.000Z');
/** ISO time `s` seconds after T0. */
const at = (s) => new Date(T0 + s * 1000).toISOString();
function host(id, cores = 2) {
    return {
        id,
        hostname: `${id}.lan`,
        taskQueue: `chbench@${id}`,
        cpuModel: 'Test CPU @ 2.0GHz',
        cores,
        memoryBytes: 8 * 1024 ** 3,
        kernel: 'Linux 6.1.0-13-amd64',
    };
}
/** A cell on `hostId` running from `from` to `to` seconds after T0 (`from` null: no started_at). */
function cell(key, hostId, from, to, extra = {}) {
    return {
        runId: RUN,
        cellKey: key,
        started_at: from === null ? undefined : at(from),
        written_at: at(to),
        host: hostId === null ? undefined : host(hostId),
        ...extra,
    };
}
function activity(loadavg1, otherServers = [], s = 0) {
    return { at: at(s), loadavg1, otherServers };
}
const flagged = (cells, concurrency, kind) => (0, report_hosts_1.busyFlags)(cells, concurrency)
    .filter((f) => !kind || f.kind === kind)
    .map((f) => f.cellKey);
(0, node_test_1.describe)('hostsOf', () => {
    (0, node_test_1.it)('lists each host once with its cells, then hosts only known from a loss; cells without host are ignored', () => {
        const hosts = (0, report_hosts_1.hostsOf)([
            cell('a1', 'host-a', 0, 10),
            cell('x', null, 0, 10),
            cell('b1', 'host-b', 0, 10, {
                host_losses: [{ hostId: 'host-c', step: 'load', error: 'timeout: ScheduleToStart' }],
            }),
            cell('a2', 'host-a', 10, 20),
        ]);
        strict_1.default.deepEqual(hosts.map((h) => [h.id, h.cellKeys, h.facts?.hostname ?? null, h.losses.map((l) => l.cellKey)]), [
            ['host-a', ['a1', 'a2'], 'host-a.lan', []],
            ['host-b', ['b1'], 'host-b.lan', []],
            ['host-c', [], null, ['b1']],
        ]);
        const t = (0, report_hosts_1.hostsTable)(hosts);
        strict_1.default.deepEqual(t.rows[0], [
            'host-a',
            'host-a.lan',
            'Test CPU @ 2.0GHz',
            '2',
            '8.00 GiB',
            'Linux 6.1.0-13-amd64',
            '2: a1, a2',
            'none',
        ]);
        strict_1.default.deepEqual(t.rows[2], ['host-c', 'n/a', 'n/a', 'n/a', 'n/a', 'n/a', '0', 'lost during b1 load']);
    });
    (0, node_test_1.it)('lists at most 20 cell keys per host and counts the rest', () => {
        const cells = Array.from({ length: 25 }, (_, i) => cell(`c${i}`, 'host-a', i, i + 1));
        const row = (0, report_hosts_1.hostsTable)((0, report_hosts_1.hostsOf)(cells)).rows[0];
        strict_1.default.match(row[6], /^25: c0, c1, .*, c19, … \(\+5 more\)$/);
    });
});
(0, node_test_1.describe)('busyFlags: other cells of this run on the same host (a)', () => {
    (0, node_test_1.it)('counts the most cells at once, not every cell that overlapped: sequential overlaps are within concurrency 2', () => {
        const cells = [cell('a1', 'host-a', 0, 100), cell('a2', 'host-a', 10, 20), cell('a3', 'host-a', 30, 40)];
        strict_1.default.deepEqual(flagged(cells, 2), []);
        // The same windows at concurrency 1: each overlaps a1.
        strict_1.default.deepEqual(flagged(cells, 1), ['a1', 'a2', 'a3']);
    });
    (0, node_test_1.it)('flags every cell that had two others at once at concurrency 2, host by host', () => {
        const cells = [
            cell('a1', 'host-a', 0, 100),
            cell('a2', 'host-a', 10, 20),
            cell('a3', 'host-a', 30, 40),
            cell('a4', 'host-a', 15, 35),
            // host-b: the same times as a1 and a4, but another host: only each other.
            cell('b1', 'host-b', 0, 100),
            cell('b2', 'host-b', 15, 35),
            cell('x', null, 0, 100),
        ];
        const flags = (0, report_hosts_1.busyFlags)(cells, 2);
        strict_1.default.deepEqual(flags.map((f) => [f.cellKey, f.hostId, f.kind]), [
            ['a1', 'host-a', 'overlap'],
            ['a2', 'host-a', 'overlap'],
            ['a3', 'host-a', 'overlap'],
            ['a4', 'host-a', 'overlap'],
        ]);
        strict_1.default.equal(flags[0].message, "host-a ran 2 other cells of this run at once while it ran (a2, a3, a4 overlapped it; per-host concurrency 2; from the cells' started_at–written_at)");
    });
    (0, node_test_1.it)('windows that touch do not overlap', () => {
        strict_1.default.deepEqual(flagged([cell('t1', 'host-a', 0, 10), cell('t2', 'host-a', 10, 20)], 1), []);
        strict_1.default.deepEqual(flagged([cell('t1', 'host-a', 0, 10), cell('t2', 'host-a', 9, 20)], 1), ['t1', 't2']);
    });
    (0, node_test_1.it)('a cell without started_at neither gets nor causes the overlap flag', () => {
        const cells = [cell('a1', 'host-a', 0, 100), cell('n', 'host-a', null, 50)];
        strict_1.default.deepEqual(flagged(cells, 1), []);
    });
});
(0, node_test_1.describe)('busyFlags: the host_activity snapshots (b, c)', () => {
    (0, node_test_1.it)('flags a server of another run at either snapshot, even without started_at', () => {
        const c = cell('n', 'host-a', null, 50, {
            host_activity: { start: activity(0.5, [{ runId: 'run-0', cellKey: 'v1-lz4' }], 1) },
        });
        const flags = (0, report_hosts_1.busyFlags)([c], 4);
        strict_1.default.deepEqual(flags.map((f) => [f.kind, f.snapshot]), [['other-run', 'start']]);
        strict_1.default.equal(flags[0].message, `server of run run-0 cell v1-lz4 alive on host-a at the start snapshot (${at(1)}; collect-metrics, the host's server registry)`);
    });
    (0, node_test_1.it)("flags more of this run's other servers than concurrency − 1, ignoring the cell's own", () => {
        const servers = (keys) => keys.map((cellKey) => ({ runId: RUN, cellKey }));
        const c = (keys) => cell('me', 'host-a', 0, 10, { host_activity: { end: activity(0.1, servers(keys), 10) } });
        strict_1.default.deepEqual(flagged([c(['o1', 'me'])], 2), []);
        strict_1.default.deepEqual(flagged([c(['o1', 'o2'])], 2, 'this-run'), ['me']);
        strict_1.default.match((0, report_hosts_1.busyFlags)([c(['o1', 'o2'])], 2)[0].message, /^2 servers of this run's other cells \(o1, o2\) alive on host-a at the end snapshot, per-host concurrency 2 \(2026-12-01T10:00:10.000Z; collect-metrics/);
    });
    (0, node_test_1.it)("flags a 1-minute load average above the host's cores, at the snapshot it was seen", () => {
        const c = cell('me', 'host-a', 0, 10, { host_activity: { start: activity(2), end: activity(3.1, [], 10) } });
        const flags = (0, report_hosts_1.busyFlags)([c], 1);
        strict_1.default.deepEqual(flags.map((f) => [f.kind, f.snapshot]), [['load', 'end']]);
        strict_1.default.match(flags[0].message, /^load average 3\.10 on 2 cores of host-a at the end snapshot \(.*; os\.loadavg\(\)\[0\], 1 min; cores: os\.cpus\(\)\.length\)$/);
    });
    (0, node_test_1.it)('ignores cells without a host, whatever their snapshots say', () => {
        const c = cell('x', null, 0, 10, {
            host_activity: { start: activity(99, [{ runId: 'other', cellKey: 'k' }]), end: activity(99) },
        });
        strict_1.default.deepEqual((0, report_hosts_1.busyFlags)([c, cell('y', null, 0, 10)], 1), []);
    });
    (0, node_test_1.it)('groups the reasons per cell and names the cells in the headline', () => {
        const c = cell('me', 'host-a', 0, 10, {
            host_activity: { end: activity(5, [{ runId: 'run-0', cellKey: 'k' }], 10) },
        });
        const flags = (0, report_hosts_1.busyFlags)([c, cell('o', 'host-a', 5, 15)], 1);
        const notes = (0, report_hosts_1.busyNotes)(flags);
        strict_1.default.equal(notes.length, 2);
        strict_1.default.deepEqual(flags.filter((f) => f.cellKey === 'me').map((f) => f.kind), ['overlap', 'other-run', 'load']);
        strict_1.default.match(notes[0], /^me: host-a ran 1 other cell of this run at once .*; server of run run-0 .*; load average 5\.00/);
        strict_1.default.equal((0, report_hosts_1.busyHeadline)(flags), '2 cells ran while their host ran something else (me, o): their figures are kept but may be disturbed.');
        strict_1.default.equal((0, report_hosts_1.busyHeadline)([]), null);
    });
});
(0, node_test_1.describe)('host losses and the section', () => {
    (0, node_test_1.it)('says which host was lost, during which step, and where the cell went', () => {
        const c = cell('k', 'host-a', 0, 10, {
            host_losses: [{ hostId: 'host-b', step: 'queries-baseline', error: 'activity ScheduleToStart timeout\nstack' }],
        });
        strict_1.default.deepEqual((0, report_hosts_1.hostLossNotes)([c]), [
            'cell k: host host-b lost during queries-baseline (activity ScheduleToStart timeout); provisioned again on host host-a',
        ]);
    });
    (0, node_test_1.it)('has no section when no cell has a host', () => {
        strict_1.default.deepEqual((0, report_hosts_1.hostsSection)([cell('x', null, 0, 1)]), []);
    });
});
(0, node_test_1.describe)('report.md and report.html', () => {
    (0, node_test_1.it)('a run without hosts renders as before: no Hosts section, host column or host-busy note', () => {
        const md = (0, report_1.renderReport)(FIXTURE);
        strict_1.default.doesNotMatch(md, /## Hosts|Host busy|\| host +\|/);
    });
    (0, node_test_1.it)('shows hosts, the host column, the losses and the busy cells of a run whose cells record their host', async () => {
        const dir = node_path_1.default.join(tmp, 'hosts-run');
        (0, node_fs_1.cpSync)(FIXTURE, dir, { recursive: true });
        const edit = (key, f) => {
            const file = node_path_1.default.join(dir, 'cells', key, 'result.json');
            const r = JSON.parse((0, node_fs_1.readFileSync)(file, 'utf8'));
            f(r);
            (0, node_fs_1.writeFileSync)(file, JSON.stringify(r));
        };
        // The fixture's spec has concurrency 1; lz4 ran 06:46:41.000–06:47:12.340 and zstd3 is made to start before that end.
        edit('v26.7-lz4', (r) => {
            r.started_at = '2026-11-30T06:46:41.000Z';
            r.host = host('host-a', 2);
            r.host_activity = { end: activity(3.1, [], 0) };
        });
        edit('v26.7-zstd3', (r) => {
            r.started_at = '2026-11-30T06:47:10.000Z';
            r.host = host('host-a', 2);
            r.host_losses = [{ hostId: 'host-b', step: 'load', error: 'ScheduleToStart timeout' }];
        });
        const md = (0, report_1.renderReport)(dir);
        strict_1.default.match(md, /> \*\*⚠ Host busy\*\* — 2 cells ran while their host ran something else \(v26\.7-lz4, v26\.7-zstd3\)/);
        const section = (h) => md.slice(md.indexOf(h), md.indexOf('\n## ', md.indexOf(h) + 1));
        const hosts = section('## Hosts');
        strict_1.default.match(hosts, /\| host-a +\| host-a\.lan +\| Test CPU @ 2\.0GHz +\| 2 +\| 8\.00 GiB +\| Linux 6\.1\.0-13-amd64 +\| 2: v26\.7-lz4, v26\.7-zstd3 +\| none +\|/);
        strict_1.default.match(hosts, /\| host-b +\| n\/a .*\| 0 +\| lost during v26\.7-zstd3 load +\|/);
        strict_1.default.match(hosts, /- cell v26\.7-zstd3: host host-b lost during load \(ScheduleToStart timeout\); provisioned again on host host-a/);
        const cellsTableMd = section('## Cells');
        strict_1.default.match(cellsTableMd, /\| provisioned by +\| host +\| query_log/);
        strict_1.default.match(cellsTableMd, /\| v26\.7-zstd3 .*\| host-a \(after losing host-b\) +\|/);
        const validity = section('## Validity');
        strict_1.default.match(validity, /- ⚠ v26\.7-lz4: host-a ran 1 other cell of this run at once while it ran \(v26\.7-zstd3 overlapped it; per-host concurrency 1;.*; load average 3\.10 on 2 cores/);
        strict_1.default.match(validity, /- ⚠ v26\.7-zstd3: host-a ran 1 other cell of this run at once while it ran \(v26\.7-lz4 overlapped it/);
        // A note, not a failure: the cells still count as succeeded.
        strict_1.default.doesNotMatch(md, /## Cells that did not finish/);
        const html = await (0, report_html_1.renderHtmlReport)(dir);
        strict_1.default.match(html, /<section id="hosts"><h2>Hosts<\/h2>/);
        strict_1.default.match(html, /<th>host<\/th>/);
        strict_1.default.match(html, /<strong>⚠ Host busy<\/strong> — 2 cells ran while their host ran something else/);
        strict_1.default.match(html, /<li>v26\.7-lz4: host-a ran 1 other cell/);
    });
});
//# sourceMappingURL=report-hosts.test.js.map