/**
 * Reports that stay honest when things go wrong, rendering only: report.md and report.html built from the captured run
 * (`test/fixtures/results/embedded-26.7`, real result.json files) edited into the states a run ends
 * in when things go wrong, plus the unit-per-column formatters and the data-disk reader. The real
 * failed and cancelled runs are in test/e2e/report-honest.test.ts.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { loadRun, renderReport } from '../../src/results/report';
import { renderHtmlReport } from '../../src/results/report-html';
import { bytesColumn, hostWideFlags, msColumn, readRate, warmSpread } from '../../src/results/report-cells';
import { readDataDisk } from '../../src/activities/collect-metrics';
import type { CellResult } from '../../src/schema/results';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'chbench-report-honest-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A copy of the fixture run with `edit` applied to each named cell's result.json. */
function variant(name: string, edits: Record<string, (r: CellResult) => void>): string {
  const dir = path.join(tmp, name);
  cpSync(FIXTURE, dir, { recursive: true });
  for (const [cell, edit] of Object.entries(edits)) {
    const f = path.join(dir, 'cells', cell, 'result.json');
    const r = JSON.parse(readFileSync(f, 'utf8')) as CellResult;
    edit(r);
    writeFileSync(f, JSON.stringify(r));
  }
  return dir;
}

describe('a cell that failed after measuring its baseline queries', () => {
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

  it('report.md: the status counts the failed cell and the banner covers only what was measured', () => {
    const md = renderReport(dir);
    assert.match(md, /run status \*\*completed, 1 of 2 cells failed\*\*/);
    assert.doesNotMatch(md, /^Validity: every cold run was cold/m);
    const banner = md.split('\n').find((l) => l.startsWith('> **Validity of what was measured only**'));
    assert.ok(banner, 'a banner scoped to what was measured');
    const { cells } = loadRun(dir);
    const runs = cells
      .flatMap((c) => [c.queries_baseline, c.queries_index].flatMap((p) => p?.queries ?? []).flatMap((q) => q.samples))
      .filter((s) => s.kind !== 'warmup');
    assert.ok(banner.includes(`${runs.length} query run(s) in 2 of 2 cell(s)`), banner);
    assert.match(banner, /Not covered: v26\.7-zstd3 failed in materialize-index: MutationFailed/);
    const counters = md.split('\n').find((l) => l.startsWith('| v26.7-zstd3 (failed)') && l.includes('not collected'));
    assert.match(counters!, /not collected \(failed\)/);
  });

  it('report.html says the same', async () => {
    const html = await renderHtmlReport(dir);
    assert.match(html, /run status <strong>completed, 1 of 2 cells failed<\/strong>/);
    assert.match(html, /<p class="unknown"><strong>Validity of what was measured only<\/strong>/);
    assert.doesNotMatch(html, /<p class="ok">Validity: every cold run was cold/);
  });
});

describe('captions and headings from what ran', () => {
  it('no compared query measured after the index: no "before and after the index", no before/after heading', () => {
    const cancelled = (r: CellResult) => {
      r.status = 'cancelled';
      r.stopped_in = 'queries-index';
      r.queries_index = { ...r.queries_index!, incomplete: 'cancelled; 0 of 1 queries measured', queries: [] };
    };
    const md = renderReport(
      variant('cancelled-in-index-queries', { 'v26.7-lz4': cancelled, 'v26.7-zstd3': cancelled }),
    );
    assert.match(md, /Results agree: every run of q1, q2, q3, q5 in every cell returned the same rows/);
    assert.doesNotMatch(md, /before and after the index/);
    assert.match(md, /^## Skip index `trace_bf` \(bloom_filter\)$/m);
    assert.doesNotMatch(md, /^## Skip index.*before \/ after/m);
    assert.match(
      md,
      /no query was measured after it: v26\.7-lz4 cancelled during queries-index; v26\.7-zstd3 cancelled during queries-index\./,
    );
  });

  it('the ingest caption names the generator of the load SQL sent: numbers(N) stays numbers(N)', () => {
    const sql = (r: CellResult) =>
      (r.load!.sql = 'INSERT INTO logs (timestamp) SELECT toDateTime64(number, 3) FROM numbers(2000000)');
    const md = renderReport(variant('numbers', { 'v26.7-lz4': sql, 'v26.7-zstd3': sql }));
    assert.match(md, /reading `numbers\(2000000\)`/);
    assert.doesNotMatch(md, /numbers_mt/);
  });

  it('query ids are shown as the workload spells them', async () => {
    const id = (r: CellResult) => {
      for (const p of [r.queries_baseline, r.queries_index])
        for (const q of p?.queries ?? []) q.id = q.id === 'q5' ? 'Trace_Lookup' : q.id;
    };
    const dir = variant('ids', { 'v26.7-lz4': id, 'v26.7-zstd3': id });
    const md = renderReport(dir);
    assert.match(md, /^\| Trace_Lookup trace_id point lookup/m);
    assert.match(md, /\| v26\.7-lz4 +\| Trace_Lookup +\|/);
    assert.doesNotMatch(md, /TRACE_LOOKUP|\bQ[1-5]\b/);
    const html = await renderHtmlReport(dir);
    assert.doesNotMatch(html, /TRACE_LOOKUP/);
  });
});

describe('comparing cells', () => {
  const md = renderReport(FIXTURE);
  const { cells } = loadRun(FIXTURE);
  const [lz4, zstd] = cells;
  const row = (q: string, cell: string) =>
    md
      .split('\n')
      .find((l) => l.startsWith(`| ${q} `) && l.includes(`| ${cell} `) && l.includes('×'))!
      .split('|')
      .map((x) => x.trim());

  it('ratios against the first cell: size, ingest and each query warm time, from the records', () => {
    const cellRow = md
      .split('\n')
      .find((l) => l.startsWith('| v26.7-zstd3 ') && l.includes('(from provisioning)'))!
      .split('|')
      .map((x) => x.trim());
    assert.equal(cellRow[3], `${(zstd.storage!.compressed_bytes! / lz4.storage!.compressed_bytes!).toFixed(2)}×`);
    assert.equal(cellRow[5], `${(zstd.load!.elapsed_ms / lz4.load!.elapsed_ms).toFixed(2)}×`);
    const q3 = (c: CellResult) => c.queries_baseline!.queries.find((q) => q.id === 'q3')!;
    assert.equal(
      row('q3', 'v26.7-zstd3')[4],
      `${(q3(zstd).stats.warm_min_ms! / q3(lz4).stats.warm_min_ms!).toFixed(2)}×`,
    );
  });

  it('read_bytes and MB/s of the last warm run, with their source; the warm spread (max, IQR)', () => {
    const q3 = zstd.queries_baseline!.queries.find((q) => q.id === 'q3')!;
    const last = q3.samples.filter((s) => s.kind === 'warm').at(-1)!;
    const r = readRate(q3);
    assert.equal(r.bytes, last.read_bytes);
    assert.equal(r.mbPerS, last.read_bytes! / 1e6 / (last.server_elapsed_ms! / 1000));
    assert.equal(r.source, `${last.read_source} read_bytes / ${last.server_elapsed_source}`);
    assert.ok(md.includes(`\`${r.source}\``), 'the source is named');
    assert.equal(row('q3', 'v26.7-zstd3')[8], Math.round(r.mbPerS!).toLocaleString('en-US'));
    const warm = q3.samples.filter((s) => s.kind === 'warm').map((s) => s.server_elapsed_ms!);
    const s = warmSpread(q3);
    assert.equal(s.max, Math.max(...warm));
    assert.equal(s.runs, warm.length);
    assert.ok(s.iqr! > 0 && s.iqr! <= s.max! - Math.min(...warm));
  });

  it('host-wide figures that differ a lot between cells are flagged with both values', () => {
    const sum = (c: CellResult) => Object.values(c.metrics_delta!.host_disks!).reduce((a, x) => a + x.write_bytes, 0);
    const flags = hostWideFlags(cells);
    const f = flags.find((x) => x.figure === 'host disk written');
    assert.ok(Math.max(sum(lz4), sum(zstd)) >= 2 * Math.min(sum(lz4), sum(zstd)), 'the fixture differs ≥ 2×');
    assert.ok(f, JSON.stringify(flags));
    assert.ok(
      f.text.includes(`${(Math.max(sum(lz4), sum(zstd)) / Math.min(sum(lz4), sum(zstd))).toFixed(1)}×`),
      f.text,
    );
    assert.ok(md.includes(`**⚠ ${f.text}.**`));
  });

  it('an environment block: chbench version and commit, the workflow id, each cell and its duration', () => {
    const run = JSON.parse(readFileSync(path.join(FIXTURE, 'run.json'), 'utf8'));
    assert.match(
      md,
      new RegExp(
        `^chbench ${run.chbench.version}, commit ${run.chbench.commit} .*matrix workflow id \`${run.runId}\``,
        'm',
      ),
    );
    const ms = Date.parse(lz4.written_at) - Date.parse(lz4.provision!.provisioned_at);
    assert.ok(
      md.includes(`| v26.7-lz4   | not recorded     | ${ms.toLocaleString('en-US')} ms (from provisioning)`),
      'duration from the records',
    );
  });
});

describe('one unit per column', () => {
  it('bytes: the largest value picks the unit for the whole column', () => {
    const f = bytesColumn([900 * 1024, 3 * 1024 ** 3, null]);
    assert.deepEqual([f(900 * 1024), f(3 * 1024 ** 3), f(null)], ['0.00 GiB', '3.00 GiB', 'n/a']);
    assert.equal(bytesColumn([512])(512), '512 B');
  });

  it('durations: ms for the column unless its largest is ≥ 100 s; never finer than the source', () => {
    const f = msColumn([4.2, 31_500]);
    assert.deepEqual([f(4.2), f(31_500), f(0.4, 1), f(12.6, 1)], ['4.20 ms', '31,500 ms', '< 1 ms', '13 ms']);
    const s = msColumn([4.2, 120_000]);
    assert.deepEqual([s(4.2), s(120_000)], ['0.00 s', '120.00 s']);
  });
});

describe('the data directory disk', () => {
  it('on this host: the mount that holds the directory, with its filesystem', () => {
    const d = readDataDisk(tmp);
    assert.equal(d.path, tmp);
    const mounts = readFileSync('/proc/self/mountinfo', 'utf8');
    assert.ok(d.mount_point && mounts.includes(` ${d.mount_point} `), JSON.stringify(d));
    assert.ok(d.filesystem && mounts.includes(` - ${d.filesystem} `), JSON.stringify(d));
  });

  it('from a captured /proc and /sys: partition → its disk, model and rotational flag', () => {
    const root = path.join(tmp, 'root');
    mkdirSync(path.join(root, 'proc/self'), { recursive: true });
    writeFileSync(
      path.join(root, 'proc/self/mountinfo'),
      [
        '1 0 8:1 / / rw - ext4 /dev/sda1 rw',
        '2 1 8:17 / /var/lib/click\\040house rw - xfs /dev/sdb1 rw',
        '3 1 0:5 / /proc rw - proc proc rw',
      ].join('\n') + '\n',
    );
    mkdirSync(path.join(root, 'dev'), { recursive: true });
    writeFileSync(path.join(root, 'dev/sdb1'), '');
    const disk = path.join(root, 'sys/devices/pci0/sdb');
    mkdirSync(path.join(disk, 'sdb1'), { recursive: true });
    writeFileSync(path.join(disk, 'sdb1/partition'), '1\n');
    mkdirSync(path.join(disk, 'device'), { recursive: true });
    writeFileSync(path.join(disk, 'device/model'), 'Samsung SSD 980  \n');
    mkdirSync(path.join(disk, 'queue'), { recursive: true });
    writeFileSync(path.join(disk, 'queue/rotational'), '0\n');
    mkdirSync(path.join(root, 'sys/class/block'), { recursive: true });
    symlinkSync(path.join(disk, 'sdb1'), path.join(root, 'sys/class/block/sdb1'));
    symlinkSync(disk, path.join(root, 'sys/class/block/sdb'));
    const d = readDataDisk('/var/lib/click house/data/x', root);
    assert.deepEqual(
      { mount: d.mount_point, fs: d.filesystem, dev: d.device, disk: d.disk, model: d.disk_model, rot: d.rotational },
      { mount: '/var/lib/click house', fs: 'xfs', dev: '/dev/sdb1', disk: 'sdb', model: 'Samsung SSD 980', rot: false },
    );
  });
});

describe('issue 21 item 3: a skip index turned off on purpose by a settings profile', () => {
  // The fixture's LZ4 cell as the profile `noidx` (`use_skip_indexes: 0`) leaves it: EXPLAIN under
  // the runs' settings shows no index, the runs read every row, the build check says "not verified".
  const dir = path.join(tmp, 'index-off');
  cpSync(FIXTURE, dir, { recursive: true });
  const cells = path.join(dir, 'cells');
  cpSync(path.join(cells, 'v26.7-lz4'), path.join(cells, 'v26.7-lz4-noidx'), { recursive: true });
  rmSync(path.join(cells, 'v26.7-lz4'), { recursive: true });
  const runFile = path.join(dir, 'run.json');
  const run = JSON.parse(readFileSync(runFile, 'utf8'));
  run.cells = run.cells.map((k: string) => (k === 'v26.7-lz4' ? 'v26.7-lz4-noidx' : k));
  run.spec.matrix.settings = [{ name: 'noidx', query: { use_skip_indexes: 0 }, mergeTree: {} }];
  writeFileSync(runFile, JSON.stringify(run));
  const f = path.join(cells, 'v26.7-lz4-noidx', 'result.json');
  const r = JSON.parse(readFileSync(f, 'utf8')) as CellResult;
  r.cellKey = 'v26.7-lz4-noidx';
  const qi = r.queries_index!;
  qi.run_settings = { ...qi.run_settings, use_skip_indexes: 0 };
  for (const q of qi.queries) {
    for (const s of q.samples) s.settings = { ...s.settings, use_skip_indexes: 0 };
    q.index_proof = {
      ...q.index_proof!,
      explain_granules: null,
      explain_skips: false,
      read_rows_after: 2_000_000,
      effective: false,
      reason:
        "EXPLAIN under the runs' settings does not use index trace_bf; measured read_rows 2,000,000 after vs 2,000,000 before",
    };
    // A faster re-run by chance (warmer page cache): 76.7 → 54.8 ms, what used to print as "1.4×".
    q.stats.warm_min_ms = 54.8;
  }
  r.index!.verification = {
    ...r.index!.verification!,
    verified: false,
    reasons: ['q5: EXPLAIN does not show index trace_bf'],
  };
  writeFileSync(f, JSON.stringify(r));

  it('report.md names the setting and its profile, prints no speed-up and no invalid banner', () => {
    const md = renderReport(dir);
    const row = md.split('\n').find((l) => /^\| v26\.7-lz4-noidx\s*\| q5 /.test(l));
    assert.ok(row, 'skip index row for the cell');
    assert.doesNotMatch(row, /×/, 'no speed-up figure');
    assert.match(row, /n\/a \(index not used: use_skip_indexes = 0 in profile noidx\)/);
    assert.match(md, /- v26\.7-lz4-noidx: index not used: use_skip_indexes = 0 in profile noidx — /);
    assert.doesNotMatch(md, /NOT verified|invalid measurements|not verified or not effective/);
  });

  it('report.html says the same and does not call it invalid', async () => {
    const html = await renderHtmlReport(dir);
    assert.match(html, /Skip index in v26\.7-lz4-noidx: not used: use_skip_indexes = 0 in profile noidx/);
    assert.doesNotMatch(html, /invalid measurements|not verified or not effective/);
  });

  it("the same setting in the spec's settings.query is named as such", () => {
    const spec = { settings: { query: { use_skip_indexes: 0 } }, matrix: {} };
    const md = (() => {
      const run2 = JSON.parse(readFileSync(runFile, 'utf8'));
      delete run2.spec.matrix.settings;
      run2.spec.settings.query = spec.settings.query;
      writeFileSync(runFile, JSON.stringify(run2));
      try {
        return renderReport(dir);
      } finally {
        writeFileSync(runFile, JSON.stringify(run));
      }
    })();
    assert.match(md, /index not used: use_skip_indexes = 0 in the spec's settings\.query/);
  });
});

describe('issue 21 item 7a: a long error in the Cells table', () => {
  const error =
    'Code: 160. DB::Exception: Estimated query execution time (184.40753 seconds) is too long. Maximum: 60. Estimated rows to process: 2000000: While executing MergeTreeSelect(pool: ReadPool, algorithm: Thread). (TOO_SLOW) (version 26.7.2.1 (official build))';
  const dir = variant('long-error', {
    'v26.7-zstd3': (r) => {
      r.status = 'failed';
      r.error = error;
      r.stopped_in = 'queries-baseline';
    },
  });

  it('report.md shortens it at a word boundary with an ellipsis and gives it in full below the table', () => {
    const md = renderReport(dir);
    const row = md.split('\n').find((l) => l.startsWith('| v26.7-zstd3 ') && l.includes('failed:'))!;
    const shown = /failed: (.*?…) \[error 1\]/.exec(row)?.[1];
    assert.ok(shown, `shortened with an ellipsis and a footnote mark: ${row}`);
    const head = shown.slice(0, -1);
    assert.ok(error.startsWith(head), 'a prefix of the error');
    assert.match(error.slice(head.length), /^[\s,;:.(]/, `cut at a word boundary, not mid-word: "${head}"`);
    assert.ok(shown.length <= 160);
    assert.ok(md.includes(`1. v26.7-zstd3: ${error}`), 'the full text under the table');
    const doc = JSON.parse(readFileSync(path.join(dir, 'cells', 'v26.7-zstd3', 'result.json'), 'utf8')) as CellResult;
    assert.equal(doc.error, error, 'result.json keeps the full text');
  });

  it('report.html does the same', async () => {
    const html = await renderHtmlReport(dir);
    assert.match(html, /failed<\/span>: Code: 160\. DB::Exception: [^<]*… \[error 1\]/);
    assert.ok(
      html.includes(
        '<ol class="errors"><li>v26.7-zstd3: Code: 160. DB::Exception: Estimated query execution time (184.40753 seconds) is too long.',
      ),
      'full text in a list under the table',
    );
    assert.ok(html.includes('(official build))</li>'));
  });
});
