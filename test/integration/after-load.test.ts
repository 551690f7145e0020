/**
 * After-load statements (issue 21, item 15) on the chdb engine (ClickHouse 26.7): the pre-load check
 * applies them to an empty scratch copy before EXPLAINing the queries (a query on the column they add
 * passes; a bad statement is refused before anything is loaded), the `afterLoad` step runs them on the
 * loaded table (ADD COLUMN … DEFAULT, ADD INDEX, MATERIALIZE INDEX waited for in system.mutations),
 * the queries read the new column, and a retry does not apply a statement twice.
 * Test workloads: test/fixtures/workloads/after-load, after-load-bad.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { provisionEmbedded, teardownEmbedded } from '../../src/targets/embedded';
import { connect, queryRows } from '../../src/clickhouse/client';
import { createCreateSchema } from '../../src/activities/create-schema';
import { createAfterLoad } from '../../src/activities/after-load';
import { cellActivity } from '../../src/activities/step-context';
import { cellInputs } from '../../src/schema/matrix';
import { parseRunSpec } from '../../src/schema/run-spec';
import { FAILURE } from '../../src/schema/failures';
import type { CellInput } from '../../src/schema/cell';
import type { TargetHandle } from '../../src/schema/target';
import { AfterLoadRecord, type CellResult, type SchemaRecord } from '../../src/schema/results';
import { afterLoadSection } from '../../src/results/report';
import { cellDir, writeJsonAtomic } from '../../src/results/store';
import { REPO_ROOT } from '../../src/config';
import { loadWorkload, workloadProblems } from '../../src/lib/workload';
import { assertFailureType } from '../helpers/assert-failure';
import { startActivity } from '../helpers/activity-env';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');
const createSchema = cellActivity('createSchema', createCreateSchema().createSchema);
const afterLoad = cellActivity('afterLoad', createAfterLoad().afterLoad);
const ROWS = 20_000;

let workDir: string;
let savedRoot: string | undefined;
before(() => {
  savedRoot = process.env.CHBENCH_SQL_ROOT;
  process.env.CHBENCH_SQL_ROOT = FIXTURES;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-after-load-'));
});
after(() => {
  if (savedRoot === undefined) delete process.env.CHBENCH_SQL_ROOT;
  else process.env.CHBENCH_SQL_ROOT = savedRoot;
  fs.rmSync(workDir, { recursive: true, force: true });
});

function cellOf(workload: string): CellInput {
  const spec = parseRunSpec({
    name: 'after-load',
    workload,
    scale: ROWS,
    target: { kind: 'embedded' },
    matrix: { version: ['26.7'], codec: ['LZ4'] },
    resultsDir: path.join(workDir, 'results'),
  });
  const files = loadWorkload(workload).afterLoad.map((a) => a.file);
  return cellInputs(spec, `run-${randomUUID().slice(0, 8)}`, [], files)[0];
}

const fileOf = (cell: CellInput, f: string) => path.join(cellDir(cell.resultsDir, cell.runId, cell.cellKey), f);
const readRecord = (cell: CellInput) =>
  AfterLoadRecord.parse(JSON.parse(fs.readFileSync(fileOf(cell, 'after-load.json'), 'utf8')));

describe('after-load statements on chdb (ClickHouse 26.7)', { timeout: 300_000 }, () => {
  let target: TargetHandle;
  before(async () => {
    target = await provisionEmbedded({
      runId: `al-${randomUUID().slice(0, 8)}`,
      cellKey: 'c',
      version: '26.7',
      workDir,
    });
  });
  after(async () => {
    if (target) await teardownEmbedded(target).catch(() => undefined);
  });
  const sql = async <T>(q: string): Promise<T[]> => {
    const c = connect(target);
    try {
      return await queryRows<T>(c, q);
    } finally {
      await c.close();
    }
  };
  const exec = async (q: string) => {
    const c = connect(target);
    try {
      await c.command({ query: q });
    } finally {
      await c.close();
    }
  };
  const columns = async () =>
    (
      await sql<{ name: string }>(
        "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 't' ORDER BY position",
      )
    ).map((r) => r.name);
  const mutationCount = async () =>
    Number(
      (
        await sql<{ n: string }>(
          "SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND table = 't'",
        )
      )[0].n,
    );

  it('manifest: afterLoad parses, and validate checks its files', () => {
    const m = loadWorkload('after-load');
    assert.deepEqual(
      m.afterLoad.map((a) => [a.file, a.wait]),
      [
        ['after-load/01-add-column.sql', 'none'],
        ['after-load/02-add-index.sql', 'none'],
        ['after-load/03-materialize-index.sql', 'mutations'],
      ],
    );
    assert.deepEqual(workloadProblems('after-load'), []);
    // A file with two statements, and one that is missing, are refused without a server.
    const root = path.join(workDir, 'bad-root');
    fs.cpSync(path.join(FIXTURES, 'workloads', 'after-load'), path.join(root, 'workloads', 'after-load'), {
      recursive: true,
    });
    fs.writeFileSync(
      path.join(root, 'workloads', 'after-load', 'after-load', '02-add-index.sql'),
      'ALTER TABLE {{table}} ADD INDEX a a TYPE minmax GRANULARITY 1;\nALTER TABLE {{table}} MATERIALIZE INDEX a;\n',
    );
    fs.rmSync(path.join(root, 'workloads', 'after-load', 'after-load', '03-materialize-index.sql'));
    assert.deepEqual(workloadProblems('after-load', root), [
      'workload after-load: afterLoad[1] file after-load/02-add-index.sql holds 2 statements; each after-load file holds one',
      `workload after-load: afterLoad[2] file after-load/03-materialize-index.sql is missing (${path.join(root, 'workloads', 'after-load', 'after-load', '03-materialize-index.sql')})`,
    ]);
  });

  it('a bad after-load statement is refused before loading, naming its file', async () => {
    await exec('DROP TABLE IF EXISTS t');
    const cell = cellOf('after-load-bad');
    const f = await assertFailureType(
      createSchema({ cell, target }),
      FAILURE.InvalidAfterLoadStatement,
      /^after-load statement after-load\/01-bad-index\.sql \(.*test\/fixtures\/workloads\/after-load-bad\/after-load\/01-bad-index\.sql\) fails on an empty copy of table t: .*nosuch/,
    );
    assert.equal(f.nonRetryable, true);
    const rec = JSON.parse(fs.readFileSync(fileOf(cell, 'schema.json'), 'utf8')) as SchemaRecord;
    assert.equal(rec.after_load_check?.statements[0].ok, false);
    // The scratch copy is gone, the cell's table untouched and empty.
    assert.deepEqual(
      (
        await sql<{ name: string }>(
          "SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 't%' ORDER BY name",
        )
      ).map((r) => r.name),
      ['t'],
    );
    assert.deepEqual(await columns(), ['id', 'ts', 'v']);
  });

  it('pre-load check passes a query on the column an after-load statement adds; the step adds it; the queries read it; a retry re-applies nothing', async () => {
    await exec('DROP TABLE IF EXISTS t');
    const cell = cellOf('after-load');
    assert.deepEqual(cell.afterLoad, [
      'after-load/01-add-column.sql',
      'after-load/02-add-index.sql',
      'after-load/03-materialize-index.sql',
    ]);
    assert.deepEqual(await createSchema({ cell, target }), { table: 't', attempt: 1 });
    const schema = JSON.parse(fs.readFileSync(fileOf(cell, 'schema.json'), 'utf8')) as SchemaRecord;
    assert.deepEqual(
      schema.after_load_check?.statements.map((s) => [s.file, s.ok]),
      [
        ['after-load/01-add-column.sql', true],
        ['after-load/02-add-index.sql', true],
        ['after-load/03-materialize-index.sql', true],
      ],
    );
    assert.equal(schema.query_check?.against, 't_chb_after_load');
    assert.deepEqual(
      schema.query_check?.queries.map((q) => [q.id, q.ok]),
      [
        ['q1', true],
        ['q2', true],
      ],
    );
    // The load writes the table as created: the new column is not there yet, the scratch copy is gone.
    assert.deepEqual(await columns(), ['id', 'ts', 'v']);
    assert.equal(
      (await sql("SELECT 1 FROM system.tables WHERE database = currentDatabase() AND name = 't_chb_after_load'"))
        .length,
      0,
    );
    await exec(
      `INSERT INTO t SELECT number, toDateTime('2026-01-01 00:00:00') + number, toInt32(number % 1000) FROM numbers(${ROWS})`,
    );

    const first = await startActivity(afterLoad, { cell, target }).result;
    assert.deepEqual(first, { statements: 3, sent: 3, attempt: 1 });
    assert.deepEqual(await columns(), ['id', 'ts', 'v', 'w']);
    const rec = readRecord(cell);
    assert.deepEqual(
      rec.statements.map((s) => [s.n, s.status, s.wait, s.applied_by_earlier_attempt ?? false]),
      [
        [1, 'done', 'none', false],
        [2, 'done', 'none', false],
        [3, 'done', 'mutations', false],
      ],
    );
    assert.equal(rec.statements[0].sql, 'ALTER TABLE t ADD COLUMN w Int64 DEFAULT v * 2');
    assert.match(rec.statements[2].query_id, /-after-load-s3-a1$/);
    for (const s of rec.statements) {
      assert.ok(typeof s.elapsed_ms === 'number' && s.elapsed_ms > 0, `${s.file} elapsed`);
      assert.ok(s.server_elapsed_source);
    }
    const w3 = rec.statements[2].wait_result!;
    assert.equal(w3.kind, 'mutations');
    assert.ok(w3.mutations.length >= 1 && w3.mutations.every((x) => x.is_done === 1), JSON.stringify(w3));
    assert.match(w3.mutations[0].command, /MATERIALIZE INDEX w_idx/);
    // The query reads the new column: its DEFAULT, v * 2, for the loaded rows.
    const [{ s, n }] = await sql<{ s: string; n: string }>('SELECT sum(w) AS s, countIf(w > 10) AS n FROM t');
    const [{ e, en }] = await sql<{ e: string; en: string }>(
      'SELECT sum(v * 2) AS e, countIf(v * 2 > 10) AS en FROM t',
    );
    assert.equal(s, e);
    assert.equal(n, en);
    assert.ok(Number(s) > 0);
    const mutations = await mutationCount();

    // A retry after everything was recorded sends nothing.
    const again = await startActivity(afterLoad, { cell, target }).result;
    assert.deepEqual(again, { statements: 3, sent: 0, attempt: 1 });
    assert.equal(await mutationCount(), mutations);

    // A crash after sending statement 3 but before recording it: the retry sees the new mutation and
    // does not send it again (the record of 3 goes back to pending, with its state before).
    const crashed = readRecord(cell);
    const s3 = crashed.statements[2];
    crashed.statements[2] = { ...s3, status: 'pending', state_after: undefined, wait_result: undefined };
    writeJsonAtomic(fileOf(cell, 'after-load.json'), crashed);
    const adopted = await startActivity(afterLoad, { cell, target }).result;
    assert.deepEqual(adopted, { statements: 3, sent: 0, attempt: 1 });
    assert.equal(await mutationCount(), mutations);
    assert.equal(readRecord(cell).statements[2].applied_by_earlier_attempt, true);

    // A crash after sending ADD COLUMN (1) before recording it: the column exists, it is not added again
    // (a second ADD COLUMN w would fail), and the statements after it run.
    const early = readRecord(cell);
    early.statements = [{ ...early.statements[0], status: 'pending', state_after: undefined }];
    writeJsonAtomic(fileOf(cell, 'after-load.json'), early);
    await exec('ALTER TABLE t DROP INDEX w_idx');
    const resumed = await startActivity(afterLoad, { cell, target }).result;
    assert.deepEqual(resumed, { statements: 3, sent: 2, attempt: 1 });
    const r2 = readRecord(cell);
    assert.deepEqual(
      r2.statements.map((x) => [x.n, x.status, x.applied_by_earlier_attempt ?? false]),
      [
        [1, 'done', true],
        [2, 'done', false],
        [3, 'done', false],
      ],
    );
    assert.deepEqual(await columns(), ['id', 'ts', 'v', 'w']);

    // The report's "After the load" section lists each statement, its time and its wait.
    const md = afterLoadSection(
      [{ cellKey: 'c1', status: 'succeeded', after_load: r2 } as CellResult],
      (c) => c.cellKey,
    )
      .join('\n')
      .replace(/ +/g, ' ');
    assert.match(md, /^## After the load/);
    assert.match(
      md,
      /\| c1 \| 1 \| `after-load\/01-add-column\.sql` \| n\/a \| n\/a \| none \| n\/a \| sent by an earlier attempt/,
    );
    assert.match(
      md,
      /\| c1 \| 3 \| `after-load\/03-materialize-index\.sql` \| [\d.]+ ms \| (n\/a|[\d.]+ ms) \| mutations \(1 mutation\(s\)\) \| [\d.]+ ms \|/,
    );
    assert.deepEqual(
      afterLoadSection([{ cellKey: 'c2', status: 'succeeded' } as CellResult], (c) => c.cellKey),
      [],
    );
  });
});
