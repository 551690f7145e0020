/**
 * createSchema: create the workload's table with the cell's codec profile, then check on the server
 * what the cell claims before anything is loaded: every column's codec (`system.columns`), the table
 * settings the server shows (`SHOW CREATE TABLE`), and every selected workload query (EXPLAIN on the
 * empty table). Tolerates existing objects (`CREATE TABLE IF NOT EXISTS`), so a retry is harmless.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { ClickHouseClient } from '@clickhouse/client';
import { ApplicationFailure } from '@temporalio/common';
import { tryCommand } from '../clickhouse/client';
import { codecMatches, readColumnCodecs } from '../clickhouse/codec-check';
import {
  afterLoadStatements,
  declaredCodecs,
  formatClauseProblem,
  loadWorkload,
  renderTemplate,
  sqlRoot,
  workloadQueries,
} from '../lib/workload';
import { cellCodecProfile, type StepInput } from '../schema/cell';
import { FAILURE } from '../schema/failures';
import { CellSettings, SchemaRecord } from '../schema/results';
import type { StepContext } from './step-context';
import { splitTopLevel, trailingFormat } from '../lib/sql';

/**
 * The `SETTINGS` clause at the end of a `SHOW CREATE TABLE` text as name → value (string literals
 * unquoted, everything else as written); empty when there is none. Pure.
 */
export function shownTableSettings(createTable: string): Record<string, string> {
  const m = /\bSETTINGS\s+([\s\S]*)$/i.exec(createTable.trim());
  if (!m) return {};
  const out: Record<string, string> = {};
  for (const part of splitTopLevel(m[1], ',')) {
    const kv = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([\s\S]*?)\s*$/.exec(part);
    if (kv) out[kv[1]] = kv[2].replace(/^'([\s\S]*)'$/, '$1').replace(/\\'/g, "'");
  }
  return out;
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

/** Whether the server has `EXPLAIN` (ClickHouse 20.6 and newer); 18.16 answers a syntax error. */
async function hasExplain(client: ClickHouseClient): Promise<boolean> {
  return (await tryCommand(client, 'EXPLAIN SELECT 1')).ok;
}

/** Activity factory. */
export function createCreateSchema() {
  return {
    /**
     * Create the table and check it. Writes `schema.json`: the exact DDL sent, `SHOW CREATE TABLE`,
     * each column's declared and read-back codec, the table settings the server shows, and each
     * query's EXPLAIN outcome.
     * @returns the table name.
     * @throws ApplicationFailure `CodecMismatch` (non-retryable) when a column's
     *   `system.columns.compression_codec` is not the codec the cell declares for it, naming the
     *   column and both values; `InvalidWorkloadQuery` (non-retryable) when a selected query fails its
     *   EXPLAIN on the empty table, naming the query id and file; a `ClickHouse.<NAME>` failure from
     *   the server (e.g. a codec the version does not know).
     */
    async createSchema(ctx: StepContext): Promise<{ table: string }> {
      const { cell, workload: m, codec: profile, settings } = ctx;
      const ddl = renderTemplate(cell.workload, m.schema, {
        table: m.table,
        rows: cell.scale,
        codec: profile,
        tableSettings: settings.table,
      });
      const client = ctx.client();
      await client.command({ query: ddl });
      const create = await client.query({ query: `SHOW CREATE TABLE ${m.table}`, format: 'TabSeparatedRaw' });
      const showCreate = (await create.text()).trim();
      // Codecs: what the cell declares per column against what the server reports.
      const declared = declaredCodecs(
        readFileSync(path.join(sqlRoot(), 'workloads', m.name, m.schema), 'utf8'),
        profile,
      );
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
      const codecs: SchemaRecord['codecs'] = {
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
      // Table settings: applied only as far as the server shows them.
      const tableSettings = appliedTableSettings(settings.table, shownTableSettings(showCreate));
      const record: SchemaRecord = {
        ddl_sent: ddl,
        show_create_table: showCreate,
        codecs,
        table_settings: {
          declared: settings.table,
          ...tableSettings,
          source: 'SETTINGS clause of SHOW CREATE TABLE',
        },
      };
      ctx.write('schema.json', SchemaRecord, record);
      // A declared table setting the server does not show (a schema without {{settings}}, a setting
      // the server dropped) did not reach the table: settings.json must not claim it.
      const missed = notAppliedTableSettings(tableSettings.not_shown);
      if (Object.keys(missed).length)
        ctx.write('settings.json', CellSettings, {
          ...settings,
          not_applied: { ...settings.not_applied, ...missed },
        });
      const wrong = columns.filter((c) => !c.matches);
      if (wrong.length)
        throw ApplicationFailure.create({
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
      // The after-load statements, applied to an empty scratch copy: the queries are checked against
      // the table as it will be when they run, and a statement the server refuses fails here.
      let against = m.table;
      if (m.afterLoad.length) {
        const check = await checkAfterLoad(client, cell, m);
        record.after_load_check = check;
        ctx.write('schema.json', SchemaRecord, record);
        const refused = check.statements.find((x) => !x.ok);
        if (refused) {
          await tryCommand(client, `DROP TABLE IF EXISTS ${check.scratch_table}`);
          throw ApplicationFailure.create({
            type: FAILURE.InvalidAfterLoadStatement,
            nonRetryable: true,
            message: `after-load statement ${refused.file} (${path.join(sqlRoot(), 'workloads', m.name, refused.file)}) fails on an empty copy of table ${m.table}: ${refused.code ? `Code: ${refused.code}. ` : ''}${refused.error}`,
          });
        }
        against = check.scratch_table;
      }
      // Every selected query, analysed on the empty table before minutes of loading.
      try {
        record.query_check = await checkQueries(client, cell, m, settings.runs, against);
      } finally {
        if (against !== m.table) await tryCommand(client, `DROP TABLE IF EXISTS ${against}`);
      }
      ctx.write('schema.json', SchemaRecord, record);
      const bad = record.query_check.queries.find((q) => !q.ok);
      if (bad)
        throw ApplicationFailure.create({
          type: FAILURE.InvalidWorkloadQuery,
          nonRetryable: true,
          message: `query ${bad.id} (${path.join(sqlRoot(), 'workloads', m.name, bad.file)}) ${bad.code ? `fails on the empty table ${m.table}${against !== m.table ? ' after its after-load statements' : ''}: Code: ${bad.code}. ` : 'is refused before loading: '}${bad.error}`,
        });
      return { table: m.table };
    },
  };
}

/**
 * Apply the workload's after-load statements, in order, to an empty scratch copy of the cell's table
 * (`CREATE TABLE <table>_chb_after_load AS <table>`, dropped and made anew), stopping at the first
 * the server refuses. The caller drops the copy.
 */
async function checkAfterLoad(
  client: ClickHouseClient,
  cell: StepInput['cell'],
  m: ReturnType<typeof loadWorkload>,
): Promise<NonNullable<SchemaRecord['after_load_check']>> {
  const scratch = `${m.table}_chb_after_load`;
  await client.command({ query: `DROP TABLE IF EXISTS ${scratch}` });
  await client.command({ query: `CREATE TABLE ${scratch} AS ${m.table}` });
  const statements: NonNullable<SchemaRecord['after_load_check']>['statements'] = [];
  for (const s of afterLoadStatements(m, { table: scratch, rows: cell.scale, codec: cellCodecProfile(cell) })) {
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

/**
 * EXPLAIN each selected query with the runs' settings, against `table` (the cell's empty table, or
 * its scratch copy after the after-load statements); on servers without EXPLAIN, a record saying so.
 */
async function checkQueries(
  client: ClickHouseClient,
  cell: StepInput['cell'],
  m: ReturnType<typeof loadWorkload>,
  runSettings: Record<string, string | number>,
  table = m.table,
): Promise<NonNullable<SchemaRecord['query_check']>> {
  const against =
    table === m.table
      ? `the empty table ${m.table}`
      : `${table}, an empty copy of ${m.table} after its after-load statements`;
  const source = `EXPLAIN <query> on ${against}, with the measured runs\u2019 settings`;
  const qs = workloadQueries(m, { table, rows: cell.scale, codec: cellCodecProfile(cell) }, cell.queries);
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
