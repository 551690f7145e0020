/**
 * The schema check of a cell, before anything is loaded (the `createSchema` activity,
 * src/activities/create-schema.ts, writes what it finds as `schema.json`):
 * - each column's codec as the server reports it (`system.columns.compression_codec`) against the
 *   codec the cell declares for it (the schema file's placeholders and the cell's codec profile);
 * - the declared table settings as far as the server shows them (the `SETTINGS` of `SHOW CREATE TABLE`);
 * - the workload's after-load statements on an empty scratch copy of the table;
 * - every selected query's `EXPLAIN` on the empty table (or its scratch copy), with the runs' settings.
 * - at provisioning, the cell's codecs on a throwaway table (`trialCellCodecs`).
 * Each check that fails has its non-retryable failure here, naming the column, statement or query.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { tryCommand } from '../clickhouse/client';
import { codecMatches, readColumnCodecs, trialCodecs } from '../clickhouse/codec-check';
import { schemaColumns } from './insert-load';
import { hasExplain } from '../clickhouse/show-create';
import {
  afterLoadStatements,
  codecFor,
  declaredCodecs,
  formatClauseProblem,
  renderTemplate,
  sqlRoot,
  templateColumns,
  workloadQueries,
  type WorkloadManifest,
} from '../lib/workload';
import { trailingFormat } from '../lib/sql';
import { FAILURE } from '../schema/failures';
import type { CodecProfile } from '../schema/run-spec';
import type { CapabilityProbe, CellSettings, SchemaRecord } from '../schema/results';
import { settingsRefused } from './cell-settings';

/** `schema.json` `codecs`: the cell's codec profile against each column's codec read back. */
export type CodecCheck = NonNullable<SchemaRecord['codecs']>;

/** What the checks render the workload's files with: the cell's scale (rows), codec profile and selected query ids. */
export interface SchemaCheckCell {
  rows: number;
  codec: CodecProfile;
  /** The cell's selected query ids (all of the workload's when undefined). */
  queries?: string[];
}

/**
 * Each column's codec read back (`system.columns.compression_codec`, via `readColumnCodecs`) against
 * the one the cell declares (schema file placeholders, else the profile's default).
 * @returns `schema.json` `codecs`; `available` false (with why, no columns) on a server whose
 *   system.columns has no compression_codec (before 19.1).
 */
export async function checkCodecs(
  client: ClickHouseClient,
  m: WorkloadManifest,
  profile: CodecProfile,
): Promise<CodecCheck> {
  const declared = declaredCodecs(readFileSync(path.join(sqlRoot(), 'workloads', m.name, m.schema), 'utf8'), profile);
  const server = await readColumnCodecs(client, m.table);
  const columns = (server ?? []).map((c) => {
    const d = declared.get(c.column) ?? profile.default;
    return {
      column: c.column,
      type: c.type,
      declared: d,
      server: c.compression_codec,
      matches: codecMatches(d, c.compression_codec),
    };
  });
  return {
    profile,
    source: 'system.columns.compression_codec (empty = the server default, LZ4)',
    available: server !== null,
    ...(server === null
      ? {
          reason:
            'not available on this server: its system.columns has no compression_codec column (ClickHouse before 19.1 has no column codecs), so each column is the server default and nothing was read back',
        }
      : {}),
    columns,
  };
}

/**
 * The `CodecMismatch` failure (non-retryable) of columns whose codec is not the declared one, naming
 * each column and both values; undefined when every column matches.
 */
export function codecMismatch(m: WorkloadManifest, codecs: CodecCheck): ApplicationFailure | undefined {
  const { columns, profile } = codecs;
  const wrong = columns.filter((c) => !c.matches);
  if (!wrong.length) return undefined;
  return ApplicationFailure.create({
    type: FAILURE.CodecMismatch,
    nonRetryable: true,
    message: `table ${m.table} does not carry codec profile "${profile.name}": ${wrong
      .map(
        (c) =>
          `column ${c.column} has ${c.server ? c.server : 'the server default (LZ4; system.columns.compression_codec is empty)'} but the cell declares ${c.declared === 'LZ4' ? 'LZ4 (the server default)' : `CODEC(${c.declared})`}`,
      )
      .join(
        '; ',
      )}${wrong.length === columns.length ? ` — does the schema of workload ${m.name} place {{codec}} on its columns?` : ''}`,
  });
}

/** The settings of `declared` the server shows with the same value (`applied`), and the others (`not_shown`). Pure. */
export function appliedTableSettings(
  declared: Record<string, string | number>,
  shown: Record<string, string>,
): { applied: Record<string, string | number>; not_shown: Record<string, string> } {
  const applied: Record<string, string | number> = {};
  const notShown: Record<string, string> = {};
  for (const [k, v] of Object.entries(declared)) {
    if (!(k in shown)) notShown[k] = 'not in the SETTINGS of SHOW CREATE TABLE';
    else if (shown[k] !== String(v)) notShown[k] = `the server shows ${k} = ${shown[k]}`;
    else applied[k] = v;
  }
  return { applied, not_shown: notShown };
}

/**
 * `settings.json` `not_applied` entries for declared table settings that `SHOW CREATE TABLE` does not
 * show (`schema.json` `table_settings.not_shown`): name → reason. Pure.
 */
export function notAppliedTableSettings(notShown: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(notShown).map(([k, why]) => [
      k,
      `not applied to the table: declared, but ${why === 'not in the SETTINGS of SHOW CREATE TABLE' ? 'SHOW CREATE TABLE does not show it' : why} (schema.json table_settings)`,
    ]),
  );
}

/**
 * Apply the workload's after-load statements, in order, to an empty scratch copy of the cell's table
 * (`CREATE TABLE <table>_chb_after_load AS <table>`, dropped and made anew), stopping at the first
 * the server refuses. The caller drops the copy.
 * @returns `schema.json` `after_load_check`: each statement sent with its outcome (error text and code when refused).
 * @throws what the client throws when the scratch copy cannot be dropped or made.
 */
export async function checkAfterLoad(
  client: ClickHouseClient,
  m: WorkloadManifest,
  cell: SchemaCheckCell,
): Promise<NonNullable<SchemaRecord['after_load_check']>> {
  const scratch = `${m.table}_chb_after_load`;
  await client.command({ query: `DROP TABLE IF EXISTS ${scratch}` });
  await client.command({ query: `CREATE TABLE ${scratch} AS ${m.table}` });
  const statements: NonNullable<SchemaRecord['after_load_check']>['statements'] = [];
  for (const s of afterLoadStatements(m, { table: scratch, rows: cell.rows, codec: cell.codec })) {
    const r = await tryCommand(client, s.sql);
    statements.push({
      file: s.file,
      sql: s.sql,
      ok: r.ok,
      ...(r.ok ? {} : { error: r.error ?? 'refused', ...(r.code ? { code: r.code } : {}) }),
    });
    if (!r.ok) break;
  }
  return {
    scratch_table: scratch,
    statements,
    source: `each statement sent, in order, to ${scratch}, an empty copy of ${m.table} (CREATE TABLE … AS), before loading`,
  };
}

/** The `InvalidAfterLoadStatement` failure (non-retryable) of the first refused after-load statement, naming its file; undefined when none was refused. */
export function afterLoadRefused(
  m: WorkloadManifest,
  check: NonNullable<SchemaRecord['after_load_check']>,
): ApplicationFailure | undefined {
  const refused = check.statements.find((x) => !x.ok);
  if (!refused) return undefined;
  return ApplicationFailure.create({
    type: FAILURE.InvalidAfterLoadStatement,
    nonRetryable: true,
    message: `after-load statement ${refused.file} (${path.join(sqlRoot(), 'workloads', m.name, refused.file)}) fails on an empty copy of table ${m.table}: ${refused.code ? `Code: ${refused.code}. ` : ''}${refused.error}`,
  });
}

/**
 * EXPLAIN each selected query with the runs' settings, against `table` (the cell's empty table, or
 * its scratch copy after the after-load statements); on servers without EXPLAIN, a record saying so.
 * A query with a FORMAT clause of its own is refused from its text, on every server.
 * @returns `schema.json` `query_check`, queries in the workload's order.
 */
export async function checkQueries(
  client: ClickHouseClient,
  m: WorkloadManifest,
  cell: SchemaCheckCell,
  runSettings: Record<string, string | number>,
  table = m.table,
): Promise<NonNullable<SchemaRecord['query_check']>> {
  const against =
    table === m.table
      ? `the empty table ${m.table}`
      : `${table}, an empty copy of ${m.table} after its after-load statements`;
  const source = `EXPLAIN <query> on ${against}, with the measured runs\u2019 settings`;
  const qs = workloadQueries(m, { table, rows: cell.rows, codec: cell.codec }, cell.queries);
  const queries: NonNullable<SchemaRecord['query_check']>['queries'] = [];
  // A query's own FORMAT clause fails every measured run (chbench appends its own), on every server:
  // refused from the text, whether or not the server has EXPLAIN.
  const withFormat = qs.filter((q) => trailingFormat(q.sql));
  for (const q of withFormat)
    queries.push({ id: q.id, file: q.file ?? '', ok: false, error: formatClauseProblem(trailingFormat(q.sql)!) });
  if (!(await hasExplain(client)))
    return {
      available: false,
      reason: `not available on this server: it has no EXPLAIN (ClickHouse before 20.6); the queries were not checked before loading${withFormat.length ? ' (only for a FORMAT clause of their own)' : ''}`,
      source,
      queries,
      against: table,
    };
  for (const q of qs) {
    if (withFormat.includes(q)) continue;
    const r = await tryCommand(client, `EXPLAIN ${q.sql}`, runSettings);
    queries.push({
      id: q.id,
      file: q.file ?? '',
      ok: r.ok,
      ...(r.ok ? {} : { error: r.error ?? 'refused', ...(r.code ? { code: r.code } : {}) }),
    });
  }
  const order = (id: string) => qs.findIndex((q) => q.id === id);
  return { available: true, source, queries: queries.sort((a, b) => order(a.id) - order(b.id)), against: table };
}

/**
 * The `InvalidWorkloadQuery` failure (non-retryable) of the first query that failed its check, naming
 * its id and file; undefined when every query passed.
 */
export function queryRefused(
  m: WorkloadManifest,
  check: NonNullable<SchemaRecord['query_check']>,
): ApplicationFailure | undefined {
  const bad = check.queries.find((q) => !q.ok);
  if (!bad) return undefined;
  const afterStatements = check.against !== m.table;
  return ApplicationFailure.create({
    type: FAILURE.InvalidWorkloadQuery,
    nonRetryable: true,
    message: `query ${bad.id} (${path.join(sqlRoot(), 'workloads', m.name, bad.file)}) ${bad.code ? `fails on the empty table ${m.table}${afterStatements ? ' after its after-load statements' : ''}: Code: ${bad.code}. ` : 'is refused before loading: '}${bad.error}`,
  });
}

/**
 * The cell's codecs tried on a throwaway temporary table with the schema's column types (the columns
 * whose codec the schema leaves to the profile, `{{codec}}`), via `trialCodecs`: an expression this
 * server refuses (unknown, or meaningless for a column's type) fails the cell before anything is made.
 * @returns the `CodecRefused` failure (non-retryable) naming the column, its type, the trial
 *   statement and the server's error (with a suggestion when one is close); undefined when accepted.
 */
export async function trialCellCodecs(
  client: ClickHouseClient,
  m: WorkloadManifest,
  cell: SchemaCheckCell,
  version: string,
): Promise<ApplicationFailure | undefined> {
  const profile = cell.codec;
  const placed = new Set(
    templateColumns(readFileSync(path.join(sqlRoot(), 'workloads', m.name, m.schema), 'utf8'))
      .filter((c) => c.placeholder)
      .map((c) => c.name),
  );
  const cols = schemaColumns(
    renderTemplate(m.name, m.schema, { table: m.table, rows: cell.rows, codec: 'LZ4' }),
    m.name,
  ).filter((c) => placed.has(c.name));
  const trial = await trialCodecs(
    client,
    cols.map((c) => ({ name: c.name, type: c.type, codec: codecFor(profile, c.name) })),
  );
  if (trial.ok) return undefined;
  return ApplicationFailure.create({
    type: FAILURE.CodecRefused,
    nonRetryable: true,
    // The server's reason first: a banner or a CLI line that cuts the message keeps it; the trial statement last.
    message: `codec profile "${profile.name}": ClickHouse ${version} refuses CODEC(${trial.column.codec}) on column ${trial.column.name} ${trial.column.type}: ${trial.error}${trial.suggestion ? ` — ${trial.suggestion}` : ''} (trial \`${trial.statement}\`)`,
  });
}

/**
 * Why provisioning refuses the cell before anything is loaded (after `settings.json` is written): a
 * problem of its checked settings (`settingsRefused`, `InvalidSetting`), else a codec of its profile
 * this server refuses on a trial table ({@link trialCellCodecs}, `CodecRefused`; tried only where the
 * capability probe found column codecs, `probe.column_codecs`, on a client `client()` opens then).
 * @returns the non-retryable failure, or undefined when the cell may be loaded.
 */
export async function refusedBeforeLoad(
  checked: CellSettings,
  probe: CapabilityProbe,
  client: () => ClickHouseClient,
  m: WorkloadManifest,
  cell: SchemaCheckCell,
  version: string,
): Promise<ApplicationFailure | undefined> {
  const refused = settingsRefused(checked.problems, 'loading');
  if (refused || !probe.column_codecs) return refused;
  return trialCellCodecs(client(), m, cell, version);
}

/**
 * Check the selected queries against the table as it will be when they run: with after-load
 * statements, those are applied first to an empty scratch copy ({@link checkAfterLoad}; a statement
 * the server refuses fails here), then every query is EXPLAINed ({@link checkQueries}) on the copy,
 * else on the cell's empty table. The copy is dropped in every case. Sets `record.after_load_check`
 * and `record.query_check`, calling `save(record)` after each, so a refusal keeps what was checked.
 * @throws ApplicationFailure `InvalidAfterLoadStatement` ({@link afterLoadRefused}) or
 *   `InvalidWorkloadQuery` ({@link queryRefused}), both non-retryable, after the record is saved;
 *   what the client throws when the server does not answer.
 */
export async function checkQueriesAsRun(
  client: ClickHouseClient,
  m: WorkloadManifest,
  cell: SchemaCheckCell,
  runSettings: Record<string, string | number>,
  record: SchemaRecord,
  save: (record: SchemaRecord) => void,
): Promise<void> {
  let against = m.table;
  if (m.afterLoad.length) {
    const check = await checkAfterLoad(client, m, cell);
    record.after_load_check = check;
    save(record);
    const refused = afterLoadRefused(m, check);
    if (refused) {
      await tryCommand(client, `DROP TABLE IF EXISTS ${check.scratch_table}`);
      throw refused;
    }
    against = check.scratch_table;
  }
  // Every selected query, analysed on the empty table before minutes of loading.
  try {
    record.query_check = await checkQueries(client, m, cell, runSettings, against);
  } finally {
    if (against !== m.table) await tryCommand(client, `DROP TABLE IF EXISTS ${against}`);
  }
  save(record);
  const bad = queryRefused(m, record.query_check);
  if (bad) throw bad;
}
