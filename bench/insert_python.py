"""The Python client of `npm run bench:insert` (bench/insert.ts): clickhouse-connect sending the same
batches as chbench's inserter, the way seed 004's Python inserter does.

Reads one JSON job from the file named by argv[1]:
  host, port, database, username   the server's HTTP interface
  table, columns                   the target table (already created and empty) and its insert columns
  selects                          one generating SELECT per batch (the workload's load.sql over
                                   numbers(offset, batch)): the rows of batch i
  verify_sql                       SELECT returning (count, checksum) of the table after a run
  runs                             measured runs (a warm-up run comes first and is not counted)
  mode                             "insert": client.insert(table, rows, column_names=columns), the
                                   client's own path (Native over HTTP);
                                   "json_raw": the rows encoded to JSONEachRow by this script and sent
                                   with client.raw_insert(..., fmt="JSONEachRow") (for a server that
                                   takes no binary insert format)
  patch_settings_probe             rewrite the `readonly` column out of clickhouse-connect's start-up
                                   query on system.settings (servers older than that column: 18.16)
  column_type_names                optional: passed to client.insert, which then skips its DESCRIBE
                                   TABLE (whose columns 18.16 names differently)

Preparing (querying the rows into Python tuples) is not timed. Each run: TRUNCATE TABLE, then the
timed loop sends every batch sequentially (wall = time.perf_counter() around the loop), then
verify_sql. Writes one JSON document to stdout: client version, server version, prepare seconds and
per run {warmup, wall_s, batch_s, count, checksum}; on failure {"error": "...", "stage": "..."}.
"""

import dataclasses
import datetime
import json
import sys
import time
import traceback


def main() -> int:
    job = json.load(open(sys.argv[1], encoding="utf8"))
    out: dict = {"mode": job["mode"]}
    stage = "import"
    try:
        import clickhouse_connect
        from clickhouse_connect.driver.client import Client

        out["client"] = f"clickhouse-connect {clickhouse_connect.__version__}"
        if job.get("patch_settings_probe"):
            from clickhouse_connect.driver._backend.operations import QueryOp

            original = Client._execute_operation

            def patched(self, op):
                if isinstance(op, QueryOp) and "FROM system.settings" in op.text:
                    op = dataclasses.replace(op, text=op.text.replace("readonly", "0 AS readonly"))
                return original(self, op)

            Client._execute_operation = patched
            out["patched"] = "start-up query on system.settings: readonly -> 0 AS readonly"

        stage = "connect"
        client = clickhouse_connect.get_client(
            host=job["host"],
            port=job["port"],
            username=job["username"],
            password=job.get("password", ""),
            database=job["database"],
            compress=False,
        )
        out["server_version"] = client.server_version

        stage = "prepare"
        t0 = time.perf_counter()
        batches = []
        types = None
        for sql in job["selects"]:
            r = client.query(sql)
            if types is None:
                types = [t.name for t in r.column_types]
            batches.append(r.result_rows)
        if job["mode"] == "json_raw":
            columns = job["columns"]
            ms = [t.startswith("DateTime64") for t in types]
        out["prepare_s"] = time.perf_counter() - t0
        out["rows_prepared"] = sum(len(b) for b in batches)

        def as_json_value(v, ms_precision):
            if isinstance(v, datetime.datetime):
                return v.isoformat(sep=" ", timespec="milliseconds" if ms_precision else "seconds")
            return v

        sent = [0]

        def send(batch):
            if job["mode"] == "insert":
                if job.get("column_type_names"):
                    client.insert(
                        job["table"], batch, column_names=job["columns"], column_type_names=job["column_type_names"]
                    )
                else:
                    client.insert(job["table"], batch, column_names=job["columns"])
            else:
                body = "\n".join(
                    json.dumps({c: as_json_value(v, m) for c, v, m in zip(columns, row, ms)}) for row in batch
                ).encode()
                sent[0] += len(body)
                client.raw_insert(job["table"], columns, body, fmt="JSONEachRow")

        runs = []
        for i in range(job["runs"] + 1):
            stage = f"run {i}"
            client.command(f"TRUNCATE TABLE {job['table']}")
            batch_s = []
            sent[0] = 0
            t0 = time.perf_counter()
            for b in batches:
                tb = time.perf_counter()
                send(b)
                batch_s.append(time.perf_counter() - tb)
            wall = time.perf_counter() - t0
            count, checksum = client.query(job["verify_sql"]).result_rows[0]
            runs.append(
                {"warmup": i == 0, "wall_s": wall, "batch_s": batch_s, "count": int(count), "checksum": str(checksum), "bytes_sent": sent[0] or None}
            )
        out["runs"] = runs
    except Exception as e:  # noqa: BLE001 - every failure is the result
        out["error"] = f"{type(e).__name__}: {e}"
        out["stage"] = stage
        out["traceback_tail"] = traceback.format_exc().splitlines()[-3:]
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
