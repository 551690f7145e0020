/**
 * Hosts in the report (src/results/report-hosts.ts): the hosts of a run, the "host busy" flags from
 * the cells' windows and their host_activity snapshots, and the Hosts section in report.md and
 * report.html (on a copy of test/fixtures/results/embedded-26.7 given hosts); a run without hosts
 * renders exactly as before.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { renderReport } from '../../src/results/report';
import { renderHtmlReport } from '../../src/results/report-html';
import {
  busyFlags,
  busyHeadline,
  busyNotes,
  hostLossNotes,
  hostsOf,
  hostsSection,
  hostsTable,
  type HostCell,
} from '../../src/results/report-hosts';
import { LOOPBACK_HOST_SCOPE, type HostActivity, type HostFacts } from '../../src/schema/host';
import type { CellResult } from '../../src/schema/results';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-report-hosts-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const RUN = 'run-1';
const T0 = Date.parse('2026-12-01T10:00:00.000Z');
/** ISO time `s` seconds after T0. */
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function host(id: string, cores = 2): HostFacts {
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
function cell(
  key: string,
  hostId: string | null,
  from: number | null,
  to: number,
  extra: Partial<HostCell> = {},
): HostCell {
  return {
    runId: RUN,
    cellKey: key,
    started_at: from === null ? undefined : at(from),
    written_at: at(to),
    host: hostId === null ? undefined : host(hostId),
    ...extra,
  };
}

function activity(loadavg1: number, otherServers: { runId: string; cellKey: string }[] = [], s = 0): HostActivity {
  return { at: at(s), loadavg1, otherServers };
}

const flagged = (cells: HostCell[], concurrency: number, kind?: string) =>
  busyFlags(cells, concurrency)
    .filter((f) => !kind || f.kind === kind)
    .map((f) => f.cellKey);

describe('hostsOf', () => {
  it('lists each host once with its cells, then hosts only known from a loss; cells without host are ignored', () => {
    const hosts = hostsOf([
      cell('a1', 'host-a', 0, 10),
      cell('x', null, 0, 10),
      cell('b1', 'host-b', 0, 10, {
        host_losses: [{ hostId: 'host-c', step: 'load', error: 'timeout: ScheduleToStart' }],
      }),
      cell('a2', 'host-a', 10, 20),
    ]);
    assert.deepEqual(
      hosts.map((h) => [h.id, h.cellKeys, h.facts?.hostname ?? null, h.losses.map((l) => l.cellKey)]),
      [
        ['host-a', ['a1', 'a2'], 'host-a.lan', []],
        ['host-b', ['b1'], 'host-b.lan', []],
        ['host-c', [], null, ['b1']],
      ],
    );
    const t = hostsTable(hosts);
    assert.deepEqual(t.rows[0], [
      'host-a',
      'host-a.lan',
      'Test CPU @ 2.0GHz',
      '2',
      '8.00 GiB',
      'Linux 6.1.0-13-amd64',
      '2: a1, a2',
      'none',
    ]);
    assert.deepEqual(t.rows[2], ['host-c', 'n/a', 'n/a', 'n/a', 'n/a', 'n/a', '0', 'lost during b1 load']);
  });

  it('lists at most 20 cell keys per host and counts the rest', () => {
    const cells = Array.from({ length: 25 }, (_, i) => cell(`c${i}`, 'host-a', i, i + 1));
    const row = hostsTable(hostsOf(cells)).rows[0];
    assert.match(row[6], /^25: c0, c1, .*, c19, … \(\+5 more\)$/);
  });
});

describe('busyFlags: other cells of this run on the same host (a)', () => {
  it('counts the most cells at once, not every cell that overlapped: sequential overlaps are within concurrency 2', () => {
    const cells = [cell('a1', 'host-a', 0, 100), cell('a2', 'host-a', 10, 20), cell('a3', 'host-a', 30, 40)];
    assert.deepEqual(flagged(cells, 2), []);
    // The same windows at concurrency 1: each overlaps a1.
    assert.deepEqual(flagged(cells, 1), ['a1', 'a2', 'a3']);
  });

  it('flags every cell that had two others at once at concurrency 2, host by host', () => {
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
    const flags = busyFlags(cells, 2);
    assert.deepEqual(
      flags.map((f) => [f.cellKey, f.hostId, f.kind]),
      [
        ['a1', 'host-a', 'overlap'],
        ['a2', 'host-a', 'overlap'],
        ['a3', 'host-a', 'overlap'],
        ['a4', 'host-a', 'overlap'],
      ],
    );
    assert.equal(
      flags[0].message,
      "host-a ran 2 other cells of this run at once while it ran (a2, a3, a4 overlapped it; per-host concurrency 2; from the cells' started_at–written_at)",
    );
  });

  it('windows that touch do not overlap', () => {
    assert.deepEqual(flagged([cell('t1', 'host-a', 0, 10), cell('t2', 'host-a', 10, 20)], 1), []);
    assert.deepEqual(flagged([cell('t1', 'host-a', 0, 10), cell('t2', 'host-a', 9, 20)], 1), ['t1', 't2']);
  });

  it('a cell without started_at neither gets nor causes the overlap flag', () => {
    const cells = [cell('a1', 'host-a', 0, 100), cell('n', 'host-a', null, 50)];
    assert.deepEqual(flagged(cells, 1), []);
  });
});

describe('busyFlags: the host_activity snapshots (b, c)', () => {
  it('flags a server of another run at either snapshot, even without started_at', () => {
    const c = cell('n', 'host-a', null, 50, {
      host_activity: { start: activity(0.5, [{ runId: 'run-0', cellKey: 'v1-lz4' }], 1) },
    });
    const flags = busyFlags([c], 4);
    assert.deepEqual(
      flags.map((f) => [f.kind, f.snapshot]),
      [['other-run', 'start']],
    );
    assert.equal(
      flags[0].message,
      `server of run run-0 cell v1-lz4 alive on host-a at the start snapshot (${at(1)}; collect-metrics, the host's server registry)`,
    );
  });

  it("flags more of this run's other servers than concurrency − 1, ignoring the cell's own", () => {
    const servers = (keys: string[]) => keys.map((cellKey) => ({ runId: RUN, cellKey }));
    const c = (keys: string[]) =>
      cell('me', 'host-a', 0, 10, { host_activity: { end: activity(0.1, servers(keys), 10) } });
    assert.deepEqual(flagged([c(['o1', 'me'])], 2), []);
    assert.deepEqual(flagged([c(['o1', 'o2'])], 2, 'this-run'), ['me']);
    assert.match(
      busyFlags([c(['o1', 'o2'])], 2)[0].message,
      /^2 servers of this run's other cells \(o1, o2\) alive on host-a at the end snapshot, per-host concurrency 2 \(2026-12-01T10:00:10.000Z; collect-metrics/,
    );
  });

  it("flags a 1-minute load average above the host's cores, at the snapshot it was seen", () => {
    const c = cell('me', 'host-a', 0, 10, { host_activity: { start: activity(2), end: activity(3.1, [], 10) } });
    const flags = busyFlags([c], 1);
    assert.deepEqual(
      flags.map((f) => [f.kind, f.snapshot]),
      [['load', 'end']],
    );
    assert.match(
      flags[0].message,
      /^load average 3\.10 on 2 cores of host-a at the end snapshot \(.*; os\.loadavg\(\)\[0\], 1 min; cores: os\.cpus\(\)\.length\)$/,
    );
  });

  it('ignores cells without a host, whatever their snapshots say', () => {
    const c = cell('x', null, 0, 10, {
      host_activity: { start: activity(99, [{ runId: 'other', cellKey: 'k' }]), end: activity(99) },
    });
    assert.deepEqual(busyFlags([c, cell('y', null, 0, 10)], 1), []);
  });

  it("flags the load of the worker's host for a cell of a loopback server (external), labelled as probable", () => {
    const loopback = (loadavg1: number, s: number): HostActivity => ({
      ...activity(loadavg1, [], s),
      scope: LOOPBACK_HOST_SCOPE,
      cores: 2,
    });
    const c = cell('v26.9-lz4', null, 0, 10, { host_activity: { start: loopback(1.2, 0), end: loopback(5.4, 10) } });
    const flags = busyFlags([c], 1);
    assert.deepEqual(
      flags.map((f) => [f.cellKey, f.kind, f.snapshot, f.hostId]),
      [['v26.9-lz4', 'load', 'end', "the worker's host"]],
    );
    assert.equal(
      flags[0].message,
      `load average 5.40 on 2 cores of the worker's host at the end snapshot (${at(10)}; os.loadavg()[0], 1 min; cores: os.cpus().length) — worker's host; the server's URL is loopback, so it probably shares this host — a port-forward would not`,
    );
    assert.match(busyHeadline(flags)!, /^1 cell ran while their host ran something else \(v26\.9-lz4\)/);
    // A quiet worker host flags nothing; a snapshot without cores (not measurable) neither.
    assert.deepEqual(busyFlags([cell('q', null, 0, 10, { host_activity: { start: loopback(0.5, 0) } })], 1), []);
  });

  it('groups the reasons per cell and names the cells in the headline', () => {
    const c = cell('me', 'host-a', 0, 10, {
      host_activity: { end: activity(5, [{ runId: 'run-0', cellKey: 'k' }], 10) },
    });
    const flags = busyFlags([c, cell('o', 'host-a', 5, 15)], 1);
    const notes = busyNotes(flags);
    assert.equal(notes.length, 2);
    assert.deepEqual(
      flags.filter((f) => f.cellKey === 'me').map((f) => f.kind),
      ['overlap', 'other-run', 'load'],
    );
    assert.match(
      notes[0],
      /^me: host-a ran 1 other cell of this run at once .*; server of run run-0 .*; load average 5\.00/,
    );
    assert.equal(
      busyHeadline(flags),
      '2 cells ran while their host ran something else (me, o): their figures are kept but may be disturbed.',
    );
    assert.equal(busyHeadline([]), null);
  });
});

describe('host losses and the section', () => {
  it('says which host was lost, during which step, and where the cell went', () => {
    const c = cell('k', 'host-a', 0, 10, {
      host_losses: [{ hostId: 'host-b', step: 'queries-baseline', error: 'activity ScheduleToStart timeout\nstack' }],
    });
    assert.deepEqual(hostLossNotes([c]), [
      'cell k: host host-b lost during queries-baseline (activity ScheduleToStart timeout); provisioned again on host host-a',
    ]);
  });

  it('has no section when no cell has a host', () => {
    assert.deepEqual(hostsSection([cell('x', null, 0, 1)]), []);
  });
});

describe('report.md and report.html', () => {
  it('a run without hosts renders as before: no Hosts section, host column or host-busy note', () => {
    const md = renderReport(FIXTURE);
    assert.doesNotMatch(md, /## Hosts|Host busy|\| host +\|/);
  });

  it('shows hosts, the host column, the losses and the busy cells of a run whose cells record their host', async () => {
    const dir = path.join(tmp, 'hosts-run');
    cpSync(FIXTURE, dir, { recursive: true });
    const edit = (key: string, f: (r: CellResult) => void) => {
      const file = path.join(dir, 'cells', key, 'result.json');
      const r = JSON.parse(readFileSync(file, 'utf8')) as CellResult;
      f(r);
      writeFileSync(file, JSON.stringify(r));
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
    const md = renderReport(dir);
    assert.match(
      md,
      /> \*\*⚠ Host busy\*\* — 2 cells ran while their host ran something else \(v26\.7-lz4, v26\.7-zstd3\)/,
    );
    const section = (h: string) => md.slice(md.indexOf(h), md.indexOf('\n## ', md.indexOf(h) + 1));
    const hosts = section('## Hosts');
    assert.match(
      hosts,
      /\| host-a +\| host-a\.lan +\| Test CPU @ 2\.0GHz +\| 2 +\| 8\.00 GiB +\| Linux 6\.1\.0-13-amd64 +\| 2: v26\.7-lz4, v26\.7-zstd3 +\| none +\|/,
    );
    assert.match(hosts, /\| host-b +\| n\/a .*\| 0 +\| lost during v26\.7-zstd3 load +\|/);
    assert.match(
      hosts,
      /- cell v26\.7-zstd3: host host-b lost during load \(ScheduleToStart timeout\); provisioned again on host host-a/,
    );
    const cellsTableMd = section('## Cells');
    assert.match(cellsTableMd, /\| provisioned by +\| host +\| query_log/);
    assert.match(cellsTableMd, /\| v26\.7-zstd3 .*\| host-a \(after losing host-b\) +\|/);
    const validity = section('## Validity');
    assert.match(
      validity,
      /- ⚠ v26\.7-lz4: host-a ran 1 other cell of this run at once while it ran \(v26\.7-zstd3 overlapped it; per-host concurrency 1;.*; load average 3\.10 on 2 cores/,
    );
    assert.match(
      validity,
      /- ⚠ v26\.7-zstd3: host-a ran 1 other cell of this run at once while it ran \(v26\.7-lz4 overlapped it/,
    );
    // A note, not a failure: the cells still count as succeeded.
    assert.doesNotMatch(md, /## Cells that did not finish/);

    const html = await renderHtmlReport(dir);
    assert.match(html, /<section id="hosts"><h2>Hosts<\/h2>/);
    assert.match(html, /<th>host<\/th>/);
    assert.match(html, /<strong>⚠ Host busy<\/strong> — 2 cells ran while their host ran something else/);
    assert.match(html, /<li>v26\.7-lz4: host-a ran 1 other cell/);
  });
});
