"""Capture what each real ClickHouse version prints, for the version-aware reading code's unit tests.

Run it with an engine's own Python (a PyPI chdb build, see src/engine/install.ts):

    ~/.cache/chbench/engines/chdb-3.1.2/bin/python scripts/capture-version-fixtures.py [outRoot]

It writes test/fixtures/versions/<major.minor>/{explain,results,caches,counters}.json from a fresh data
directory with the seed's `logs` table (sql/workloads/logs, 100,000 rows, index trace_bf materialized).
Every value is the engine's own text, unmodified (no parsing here).
"""
import json
import os
import re
import shutil
import sys
import tempfile

from chdb import session

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WL = os.path.join(ROOT, 'sql', 'workloads', 'logs')
ROWS = 100000


def render(name, **kw):
    text = open(os.path.join(WL, name)).read()
    text = '\n'.join(l for l in text.split('\n') if not l.startswith('--'))
    for k, v in kw.items():
        text = text.replace('{{' + k + '}}', str(v))
    return re.sub(r'\{\{codec(:[a-z_]+)?\}\}', '', text).strip()


def q(s, sql, fmt='TabSeparatedRaw'):
    return s.query(sql, fmt).bytes().decode()


def err(s, sql):
    try:
        s.query(sql, 'TabSeparated')
        return None
    except Exception as e:  # the engine's error text
        return str(e)


def main():
    d = tempfile.mkdtemp(prefix='chb-capture-')
    try:
        s = session.Session(d)
        version = q(s, 'SELECT version()').strip()
        out = os.path.join(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'test', 'fixtures', 'versions'),
                           '.'.join(version.split('.')[:2]))
        os.makedirs(out, exist_ok=True)
        s.query('CREATE DATABASE IF NOT EXISTS bench ENGINE = Atomic')
        s.query('USE bench')
        s.query(render('schema.sql', table='logs', settings=' SETTINGS min_bytes_for_wide_part = 0'))
        s.query(render('load.sql', table='logs', rows=ROWS))
        s.query(render('index.sql', table='logs'))
        s.query('ALTER TABLE logs MATERIALIZE INDEX trace_bf SETTINGS mutations_sync = 2')
        s.query('OPTIMIZE TABLE logs FINAL')
        setting = lambda n: q(s, f"SELECT value FROM system.settings WHERE name = '{n}'").strip() or None
        q5 = render('q5.sql', table='logs')
        q1 = render('q1.sql', table='logs')
        explain = {
            'version': version,
            'index': 'trace_bf',
            'query': q5,
            'explain_query_plan_default': setting('explain_query_plan_default'),
            'default': q(s, f'EXPLAIN indexes = 1 {q5}'),
            'use_skip_indexes_0': q(s, f'EXPLAIN indexes = 1 {q5} SETTINGS use_skip_indexes = 0'),
            'q1_default': q(s, f'EXPLAIN indexes = 1 {q1}'),
            # Another form of the same plan: text chbench does not read (JSON), to test "not understood".
            'json': q(s, f'EXPLAIN json = 1, indexes = 1 {q5}'),
        }
        if explain['explain_query_plan_default'] is not None:
            for form in ('legacy', 'pretty'):
                explain[form] = q(s, f"EXPLAIN indexes = 1 {q5} SETTINGS explain_query_plan_default = '{form}'")
        results = {'version': version, 'settings': {}, 'queries': {}}
        for n in ('output_format_json_quote_64bit_integers', 'output_format_json_quote_64bit_floats',
                  'output_format_json_quote_decimals', 'output_format_json_quote_denormals',
                  'output_format_decimal_trailing_zeros'):
            results['settings'][n] = setting(n)
        sqls = {
            'u64_max': 'SELECT toUInt64(18446744073709551615) AS u',
            'u64_2p53p1': 'SELECT 9007199254740993::UInt64 AS u',
            'mixed': "SELECT toInt64(-9007199254740993) AS i, toUInt32(7) AS u32, toFloat64(0.1) + toFloat64(0.2) AS f,"
                     " toFloat32(1.1) AS f32, 1e300 * 10 AS inf, nan AS n, toDecimal64(3.10, 2) AS d,"
                     " toUInt128('340282366920938463463374607431768211455') AS u128, 'a\"b\\\\c\\u00e9' AS s,"
                     " [toUInt64(18446744073709551615)] AS arr, tuple(toUInt64(1), 'x') AS t,"
                     " CAST(NULL AS Nullable(UInt64)) AS nul, toDateTime64('2026-08-25 00:00:00.5', 3, 'UTC') AS ts",
            'floats': 'SELECT number, number / 3 AS third, toFloat32(number / 7) AS f32, exp(number * 10) AS big'
                      ' FROM numbers(5)',
            'q4': render('q4.sql', table='logs'),
            'q2': render('q2.sql', table='logs'),
        }
        for k, sql in sqls.items():
            results['queries'][k] = {'sql': sql, 'JSONCompact': q(s, sql, 'JSONCompact')}
            for quote in ('0', '1'):
                results['queries'][k][f'JSONCompact_quote_{quote}'] = q(
                    s, f'{sql} SETTINGS output_format_json_quote_64bit_integers = {quote}', 'JSONCompact')
        caches = {'version': version}
        caches['unknown_cache_error'] = err(s, 'SYSTEM DROP FOO CACHE')
        drops = {}
        # Every statement of PROBED_CACHE_DROPS (src/clickhouse/probe.ts), and a few others.
        for c in ('MARK CACHE', 'UNCOMPRESSED CACHE', 'INDEX MARK CACHE', 'INDEX UNCOMPRESSED CACHE', 'MMAP CACHE',
                  'COMPILED EXPRESSION CACHE', 'QUERY CACHE', 'FILESYSTEM CACHE', 'QUERY CONDITION CACHE',
                  'PAGE CACHE', 'PRIMARY INDEX CACHE', 'VECTOR SIMILARITY INDEX CACHE', 'TEXT INDEX CACHES',
                  'SKIPPING INDEX CACHE', 'DNS CACHE', 'ICEBERG METADATA CACHE', 'PARQUET METADATA CACHE'):
            drops[c] = err(s, f'SYSTEM DROP {c}')
        caches['drops'] = drops
        # The settings that turn caches on (CACHE_SETTINGS of src/measure/caches.ts), query and MergeTree
        # level, as the probe reads them: only those this version has.
        names = ('use_uncompressed_cache', 'min_bytes_to_use_mmap_io', 'compile_expressions', 'use_query_cache',
                 'use_query_condition_cache', 'use_page_cache_for_disks_without_file_cache',
                 'use_page_cache_for_local_disks', 'use_page_cache_for_object_storage', 'use_primary_key_cache',
                 'use_text_index_tokens_cache', 'use_text_index_negative_tokens_cache', 'use_text_index_header_cache',
                 'use_text_index_postings_cache', 'use_text_index_dictionary_cache', 'use_statistics_cache')
        in_list = ', '.join(f"'{n}'" for n in names)
        rows = q(s, f'SELECT name, value FROM system.settings WHERE name IN ({in_list}) UNION ALL '
                    f'SELECT name, value FROM system.merge_tree_settings WHERE name IN ({in_list})').strip()
        caches['cache_settings'] = dict(sorted(l.split('\t', 1) for l in rows.split('\n') if l))
        caches['settings'] = {n: setting(n) for n in ('use_skip_indexes_if_final',)}
        scan = render('q3.sql', table='logs')
        ev = lambda: dict(l.split('\t') for l in q(s, 'SELECT event, value FROM system.events').strip().split('\n'))
        e0 = ev()
        scan_json = q(s, scan, 'JSONCompact')
        e1 = ev()
        res = s.query(scan, 'JSONCompact')
        stats = {k: getattr(res, k)() for k in ('rows_read', 'bytes_read', 'storage_rows_read', 'storage_bytes_read')
                 if hasattr(res, k)}
        counters = {
            'version': version,
            'rows': ROWS,
            'query': scan,
            'JSONCompact': scan_json,
            'result_object': stats,
            'events_before': e0,
            'events_after': e1,
            # Every counter this version has (listed when zero too), and the snapshots' own names.
            'events_all': sorted(q(s, 'SELECT event FROM system.events SETTINGS system_events_show_zero_values = 1')
                                 .strip().split('\n')),
        }
        for name, v in (('explain', explain), ('results', results), ('caches', caches), ('counters', counters)):
            with open(os.path.join(out, f'{name}.json'), 'w') as f:
                json.dump(v, f, indent=2, sort_keys=False)
                f.write('\n')
            print(f'wrote {out}/{name}.json')
        getattr(s, "close", lambda: None)()
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == '__main__':
    main()
