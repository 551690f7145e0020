"""Add one engine build's setting names to chbench's settings catalog, src/engine/settings-catalog.json,
which `validate` reads to check a spec's settings against each version before any cell runs
(src/targets/versions/settings-catalog.ts):

  <engine>/bin/python scripts/capture-settings-catalog.py <catalog.json> "pypi chdb==3.1.2"
  python3 scripts/capture-settings-catalog.py <catalog.json> "npm chdb@3.4.0" --from names.json

The first reads `name` of system.settings and system.merge_tree_settings (aliases are rows there too)
from the build's own chdb; the second takes {version, settings, merge_tree_settings} captured elsewhere
(the npm engine: `chdb.query('SELECT name FROM system.settings', 'JSONEachRow')`). The catalog is packed:
per name, a bit mask over `versions` (bit i = versions[i] has it)."""
import json, os, sys, tempfile

path, source = sys.argv[1], sys.argv[2]
if len(sys.argv) > 4 and sys.argv[3] == "--from":
    got = json.load(open(sys.argv[4]))
    version, st, mt = got["version"], sorted(got["settings"]), sorted(got["merge_tree_settings"])
else:
    from chdb import session
    s = session.Session(tempfile.mkdtemp())
    def names(sql):
        out = str(s.query(sql, "JSONEachRow")).strip()
        return sorted(json.loads(l)["name"] for l in out.split("\n") if l.strip())
    version = json.loads(str(s.query("SELECT version() AS v", "JSONEachRow")).strip())["v"]
    st, mt = names("SELECT name FROM system.settings"), names("SELECT name FROM system.merge_tree_settings")

# Unpack, add this version, pack again (versions sorted, so masks are recomputed).
cat = json.load(open(path)) if os.path.exists(path) else {"versions": [], "sources": {}, "settings": {}, "merge_tree_settings": {}}
sets = {}
for table in ("settings", "merge_tree_settings"):
    sets[table] = {v: {n for n, m in cat[table].items() if m >> i & 1} for i, v in enumerate(cat["versions"])}
sets["settings"][version], sets["merge_tree_settings"][version] = set(st), set(mt)
cat["sources"][version] = source
key = lambda v: [int(x) for x in v.split(".")]
versions = sorted(set(cat["versions"]) | {version}, key=key)
out = {"versions": versions, "sources": {v: cat["sources"][v] for v in versions}}
for table in ("settings", "merge_tree_settings"):
    allnames = sorted(set().union(*sets[table].values()))
    out[table] = {n: sum(1 << i for i, v in enumerate(versions) if n in sets[table][v]) for n in allnames}
with open(path, "w") as f:
    f.write("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in out.items()) + "\n}\n")
print(version, len(st), len(mt))
