/**
 * The 26.7 part of scripts/capture-version-fixtures.py, for the npm chdb 3.4.0 engine (26.7, the
 * first version with `explain_query_plan_default`): `EXPLAIN indexes = 1` of the seed's q5 in both
 * forms, into test/fixtures/versions/26.7/explain.json.
 *
 *   npm run build && node dist/scripts/capture-explain-26.7.js [outRoot]
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'chdb';
import { REPO_ROOT as ROOT } from '../src/config';

const WL = path.join(ROOT, 'sql', 'workloads', 'logs');
const render = (name: string, vars: Record<string, string | number>) => {
  let t = readFileSync(path.join(WL, name), 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('--'))
    .join('\n');
  for (const [k, v] of Object.entries(vars)) t = t.replaceAll(`{{${k}}}`, String(v));
  return t.replace(/\{\{codec(:[a-z_]+)?\}\}/g, '').trim();
};
const dir = mkdtempSync(path.join(os.tmpdir(), 'chb-capture-'));
try {
  const s = new Session(dir);
  const q = (sql: string, fmt = 'TabSeparatedRaw') => String(s.query(sql, fmt));
  const version = q('SELECT version()').trim();
  s.query('CREATE DATABASE IF NOT EXISTS bench ENGINE = Atomic');
  s.query('USE bench');
  s.query(render('schema.sql', { table: 'logs', settings: ' SETTINGS min_bytes_for_wide_part = 0' }));
  s.query(render('load.sql', { table: 'logs', rows: 100000 }));
  s.query(render('index.sql', { table: 'logs' }));
  s.query('ALTER TABLE logs MATERIALIZE INDEX trace_bf SETTINGS mutations_sync = 2');
  s.query('OPTIMIZE TABLE logs FINAL');
  const q5 = render('q5.sql', { table: 'logs' });
  const out = {
    version,
    index: 'trace_bf',
    query: q5,
    explain_query_plan_default:
      q("SELECT value FROM system.settings WHERE name = 'explain_query_plan_default'").trim() || null,
    default: q(`EXPLAIN indexes = 1 ${q5}`),
    use_skip_indexes_0: q(`EXPLAIN indexes = 1 ${q5} SETTINGS use_skip_indexes = 0`),
    q1_default: q(`EXPLAIN indexes = 1 ${render('q1.sql', { table: 'logs' })}`),
    json: q(`EXPLAIN json = 1, indexes = 1 ${q5}`),
    legacy: q(`EXPLAIN indexes = 1 ${q5} SETTINGS explain_query_plan_default = 'legacy'`),
    pretty: q(`EXPLAIN indexes = 1 ${q5} SETTINGS explain_query_plan_default = 'pretty'`),
  };
  const to = path.join(
    process.argv[2] ?? path.join(ROOT, 'test', 'fixtures', 'versions'),
    version.split('.').slice(0, 2).join('.'),
  );
  mkdirSync(to, { recursive: true });
  writeFileSync(path.join(to, 'explain.json'), JSON.stringify(out, null, 2) + '\n');
  console.log(`wrote ${to}/explain.json`);
  s.cleanup();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
