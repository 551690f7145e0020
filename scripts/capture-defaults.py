"""Capture a PyPI chdb build's defaults in the shape of chbench's `defaults.json` (ServerDefaults),
for the report-versions unit test: `<engine>/bin/python scripts/capture-defaults.py <out.json>`.
Reads the same tables and columns as src/clickhouse/defaults.ts."""
import json, sys, tempfile
from chdb import session

s = session.Session(tempfile.mkdtemp())
def rows(sql):
    out = str(s.query(sql, "JSONEachRow")).strip()
    return [json.loads(l) for l in out.split("\n") if l.strip()]
version = rows("SELECT version() AS v")[0]["v"]
def defaults(table):
    cols = [r["name"] for r in rows(f"SELECT name FROM system.columns WHERE database='system' AND table='{table}'")]
    d = "toString(default)" if "default" in cols else "toString(value)"
    vals, changed = {}, {}
    for r in rows(f"SELECT name, toString(value) AS value, {d} AS def, toUInt8(changed) AS changed FROM system.{table}"):
        if "default" in cols or not r["changed"]:
            vals[r["name"]] = r["def"]
        if r["changed"]:
            changed[r["name"]] = r["value"]
    return vals, changed, (f"system.{table}.default" if "default" in cols else f"system.{table}.value (changed = 0)")
st, sc, src = defaults("settings")
mt, _, _ = defaults("merge_tree_settings")
cols = [r["name"] for r in rows("SELECT name FROM system.columns WHERE database='system' AND table='settings_changes'")]
changes = []
for r in rows(f"SELECT {'toString(type) AS type, ' if 'type' in cols else ''}version, changes FROM system.settings_changes"):
    for c in r["changes"]:
        changes.append({"type": "MergeTree" if r.get("type") == "MergeTree" else "Session", "version": r["version"],
                        "name": c["name"], "previous_value": str(c["previous_value"]), "new_value": str(c["new_value"]),
                        "reason": str(c.get("reason", ""))})
json.dump({"version": version, "settings": st, "settings_source": src, "settings_changed": sc,
           "merge_tree_settings": mt, "settings_changes": changes}, open(sys.argv[1], "w"), indent=0, sort_keys=True)
print(version, len(st), len(mt), len(changes))
