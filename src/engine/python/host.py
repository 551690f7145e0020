"""chbench engine host: ONE PyPI chdb build (chdb 1.4.1 ... chdb-core 26.9.0) in a Python process,
run by the chbench engine server (`src/engine/python-driver.ts`) as `<python> host.py`.

Protocol (framed, over the host's stdin and stdout; nothing else is ever written to stdout)
------------------------------------------------------------------------------------------
Every frame, in both directions, is::

    <4-byte big-endian length N> <N bytes: one JSON header line, b"\\n", then the payload>

The header is a JSON object (no raw newline: JSON escapes them); the payload is raw bytes (the SQL
text of a request, the formatted result of an answer, a chunk of a stream; may be empty).

Requests (server -> host), each with an integer ``id`` unique among the open requests:

- ``{"op": "hello"}`` -> ``{"ok": true, "chdb": "26.9.0", "clickhouse": "26.9.2.1",
  "python": "3.11.7", "features": {...}}`` (features probed on the loaded module).
- ``{"op": "open", "path": "<data path>"}`` -> ``{"ok": true, "session": <sid>}``.
- ``{"op": "query", "session": sid, "format": "TSV"}`` + payload SQL -> ``{"ok": true,
  "elapsed": s, "result_rows": n, "result_bytes": n[, "storage_rows_read": n,
  "storage_bytes_read": n]}`` + payload result. Storage reads only where the build has them
  (``storage_rows_read()``, >= 3.7.2); absent otherwise, never 0 in their place.
- ``{"op": "stream", "session": sid, "format": f, "window": w}`` + payload SQL (builds with
  ``send_query``, >= 3.7.2) -> ``{"chunk": true, "rows": n}`` + chunk bytes, repeated, then
  ``{"ok": true, "end": true, "elapsed": s}``. Credit-based backpressure: the host sends at most
  ``window`` chunks that the server has not acknowledged; ``{"op": "ack", "id": <stream id>, "n": k}``
  gives k more credits. ``{"op": "cancel", "id": <stream id>}`` stops the stream before the next
  chunk (the stream then answers ``ok: false`` with code 394).
- ``{"op": "insert", "session": sid, "table": "db.t", "columns": [..] | null, "format": f}`` + payload
  rows (builds with ``Session.send_insert``: chdb-core 26.x) -> ``{"ok": true, "rows_written": n,
  "bytes_written": n, "elapsed": s}``, the engine's own counts.
- ``{"op": "close", "session": sid}`` -> ``{"ok": true}``.

Every failure answers ``{"ok": false, "error": "Code: N. DB::Exception: ... (TYPE)"}``: the engine's
own message, or a host error rendered in that shape (code 1001, or 396 for a result over
``--max-result-bytes``).

Threads: each underlying chdb connection has its own worker thread, so a second session (progress
from system.processes, KILL QUERY) runs while a statement runs where the build allows it (chdb-core
>= 26.1). chdb <= 3.x keeps ONE connection per process (a second ``Session`` closes the first): there
every session the server opens shares that connection and its thread; closing a shared session that
ran ``SET``/``USE`` statements resets them (``SET k = DEFAULT``, ``USE default``).

chdb 1.x (a fresh engine per statement, run as a multi-query text): settings and the current database
outlive their statement but ``SET k = DEFAULT`` is ignored, so the host restores the value it read
before its first ``SET k``; its own start database (``_local``, engine Overlay) keeps no tables, so the
host creates ``default`` as an Atomic database at open and makes it the session's home (``USE
default`` and unqualified names go there, as on every other build; see ``home_database``);
``SET param_x = ...`` lives in one statement only, so a session's parameters are sent before each of
its statements; ``INSERT ... FORMAT f`` with inline rows goes through a temporary file
(``FROM INFILE``), since the multi-query text would read the rows as SQL.

chdb 1.4.1's module says ``__version__ = "0.6.0"``: the version reported is the installed
distribution's (``importlib.metadata``).

Logs go to stderr only.
"""

import json
import os
import queue
import re
import shutil
import struct
import sys
import tempfile
import threading
import time
import traceback

# The protocol owns the original stdin/stdout; anything the engine prints goes to stderr instead.
PROTO_IN = os.dup(0)
PROTO_OUT = os.dup(1)
os.dup2(2, 1)
try:  # a 1 MiB pipe: fewer wake-ups per chunk on the way to the server (Linux; best effort)
    import fcntl

    fcntl.fcntl(PROTO_OUT, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
except Exception:  # noqa: BLE001
    pass
_devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(_devnull, 0)
sys.stdout = sys.stderr


def log(msg):
    sys.stderr.write("[chdb-host %d] %s\n" % (os.getpid(), msg))
    sys.stderr.flush()


def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


MAX_RESULT_BYTES = int(arg("--max-result-bytes", str(1 << 30)))

import chdb  # noqa: E402  (after the stdout redirect: the module may print while loading)
from chdb import session as chdb_session  # noqa: E402

def _package_version():
    # chdb 1.4.1 says __version__ "0.6.0": the installed distribution's version is the truth.
    try:
        from importlib import metadata

        for dist in ("chdb-core", "chdb"):
            try:
                return metadata.version(dist)
            except metadata.PackageNotFoundError:
                pass
    except Exception:  # noqa: BLE001
        pass
    return getattr(chdb, "__version__", "?")


CHDB_VERSION = _package_version()
MAJOR = int(CHDB_VERSION.split(".")[0]) if CHDB_VERSION[:1].isdigit() else 0
# chdb <= 3.x: one connection per process (a second Session closes the first).
SHARED_CONNECTION = MAJOR < 26
HAS_STREAM = hasattr(chdb_session.Session, "send_query")
HAS_INSERT = hasattr(chdb_session.Session, "send_insert")
# chdb 1.x / 2.x: every query re-opens the data, but settings and the current database outlive their
# statement and `SET k = DEFAULT` is ignored: the host restores the value read before its first SET.
PER_QUERY = MAJOR < 3

_write_lock = threading.Lock()


def _write_all(b):
    mv = memoryview(b)
    while len(mv):
        n = os.write(PROTO_OUT, mv[:1 << 20])
        mv = mv[n:]


def send(header, payload=b""):
    h = json.dumps(header, separators=(",", ":")).encode() + b"\n"
    plen = len(payload) if payload is not None else 0
    with _write_lock:
        _write_all(struct.pack(">I", len(h) + plen) + h)
        if plen:
            _write_all(payload)


def _read_exact(n):
    parts = []
    while n:
        b = os.read(PROTO_IN, min(n, 1 << 20))
        if not b:
            return None
        parts.append(b)
        n -= len(b)
    return b"".join(parts)


def read_frame():
    head = _read_exact(4)
    if head is None:
        return None
    (n,) = struct.unpack(">I", head)
    body = _read_exact(n)
    if body is None:
        return None
    k = body.index(b"\n")
    return json.loads(body[:k]), body[k + 1:]


CODE_RE = re.compile(r"Code: \d+\.")


def error_text(e):
    msg = str(e)
    m = CODE_RE.search(msg)
    if m:
        return msg[m.start():]
    return "Code: 1001. DB::Exception: %s: %s. (STD_EXCEPTION)" % (type(e).__name__, msg.replace("\n", " "))


def result_bytes(r):
    """(keep-alive, buffer): the result's bytes without a copy where the build has get_memview()."""
    if hasattr(r, "get_memview"):
        w = r.get_memview()
        return w, w.view()
    b = r.bytes()
    return b, b


def num(f):
    try:
        return int(f())
    except Exception:
        return None


def _scalar(s, sql):
    return bytes(result_bytes(s.query(sql, "TabSeparatedRaw"))[1]).decode().strip()


def home_database(s):
    """The database a per-query engine's session lives in (chdb 1.x / 2.x), made to keep tables.

    chdb 1.4.1 starts in its own default database ``_local`` (engine Overlay), which keeps no table from
    one statement to the next: a CREATE TABLE there leaves ``data/_local/<t>/`` behind but no metadata,
    so the next statement says "There is no metadata of table" and every later CREATE "Directory for
    table data data/_local/<t>/ already exists" (checked on 1.4.1). Tables stay only in an Atomic
    database. So when the start database is not Atomic/Ordinary, the host creates ``default`` as an
    Atomic database (kept in the data directory; a re-opened directory starts in it) and uses it: ``USE
    default`` and unqualified names then mean the same as on every other build. Other builds keep the
    database they start in.
    """
    home = _scalar(s, "SELECT currentDatabase()") or "default"
    engine = _scalar(s, "SELECT engine FROM system.databases WHERE name = currentDatabase()")
    if engine in ("Atomic", "Ordinary"):
        return home
    s.query("CREATE DATABASE IF NOT EXISTS default ENGINE = Atomic", "TabSeparatedRaw")
    s.query("USE default", "TabSeparatedRaw")
    log("chdb %s: start database %s (engine %s) keeps no tables: using database default (Atomic)" % (
        CHDB_VERSION, home, engine or "?"))
    return "default"


class Conn:
    """One chdb connection and the thread that runs its statements in order."""

    def __init__(self, path):
        self.jobs = queue.Queue()
        self.defaults = {}  # PER_QUERY: setting -> its value before this host first SET it
        self.users = 0  # sessions open on this connection (closed with the last one)
        self.home = "default"  # the session's home database (USE default goes there): see home_database()
        self.session = None
        self.path = path
        ready = threading.Event()
        err = []

        def boot():
            try:
                self.session = chdb_session.Session(path)
                if PER_QUERY:
                    self.home = home_database(self.session)
            except Exception as e:  # noqa: BLE001
                err.append(e)
            ready.set()
            if not err:
                self.loop()

        threading.Thread(target=boot, daemon=True).start()
        ready.wait()
        if err:
            raise err[0]

    def loop(self):
        while True:
            fn = self.jobs.get()
            if fn is None:
                break
            try:
                fn(self.session)
            except Exception:  # noqa: BLE001
                log(traceback.format_exc())

    def submit(self, fn):
        self.jobs.put(fn)

    def close(self):
        s = self.session

        def fin(_):
            try:
                if hasattr(s, "close"):
                    s.close()
            finally:
                self.jobs.put(None)

        self.submit(fin)


class Session:
    def __init__(self, conn, primary):
        self.conn = conn
        self.primary = primary
        self.touched = set()  # settings SET through this session (shared connection only)
        self.used_db = False
        self.params = {}  # PER_QUERY: SET param_x = … statements, sent before each of its queries


conns = {}  # path -> Conn (shared connection builds)
sessions = {}
next_sid = [1]
streams = {}  # request id -> Stream
DEFAULT_RE = re.compile(r"^\s*SET\s+\w+\s*=\s*DEFAULT\s*;?\s*$", re.I)
INLINE_INSERT_RE = re.compile(r"^\s*(INSERT\s+INTO\s+.*?)\s+FORMAT\s+(\w+)[ \t]*\r?\n(.*)\Z", re.I | re.S)
USE_DEFAULT_RE = re.compile(r"^\s*USE\s+`?default`?\s*;?\s*$", re.I)
SET_RE = re.compile(r"^\s*SET\s+([A-Za-z_][A-Za-z0-9_]*)\s*=", re.I)
USE_RE = re.compile(r"^\s*USE\s", re.I)
# chdb 1.x aborts the whole process (SIGABRT) when a statement reads system.server_settings (checked
# on 1.4.1: the table is listed, reading it needs a server context the library has not). Refused here.
ABORTS_1X_RE = re.compile(r"\bsystem\s*\.\s*`?server_settings\b", re.I)


def open_session(path):
    if SHARED_CONNECTION:
        conn = conns.get(path)
        primary = conn is None
        if primary:
            if conns:
                raise RuntimeError("chdb %s keeps one data path per process (%s is open)" % (CHDB_VERSION, next(iter(conns))))
            conn = conns[path] = Conn(path)
        primary = False  # every session of a shared connection resets what it changed when it closes
    else:
        conn, primary = Conn(path), True
    conn.users += 1
    sid = next_sid[0]
    next_sid[0] += 1
    sessions[sid] = Session(conn, primary)
    return sid


def do_query(rid, sess, sql, fmt):
    def run(s):
        try:
            if SHARED_CONNECTION and not sess.primary:
                m = SET_RE.match(sql)
                if m:
                    sess.touched.add(m.group(1))
                if USE_RE.match(sql):
                    sess.used_db = True
            q = sql
            if PER_QUERY and ABORTS_1X_RE.search(sql):
                send({"id": rid, "ok": False, "error": (
                    "Code: 48. DB::Exception: chdb %s aborts the process on reading system.server_settings; "
                    "the chbench host refuses the statement instead. (NOT_IMPLEMENTED)" % CHDB_VERSION)})
                return
            if PER_QUERY:
                m = SET_RE.match(sql)
                if m and m.group(1).startswith("param_"):
                    # Query parameters live in one statement's context only: sent before each query.
                    sess.params[m.group(1)] = sql.strip().rstrip(";")
                    send({"id": rid, "ok": True, "elapsed": 0.0, "result_rows": 0, "result_bytes": 0})
                    return
                ins = INLINE_INSERT_RE.match(sql)
                if ins:
                    # 1.x runs statements as a multi-query text: rows on several lines would be read as
                    # SQL. They go through a file instead (removed once the statement ends).
                    fd, tmp = tempfile.mkstemp(prefix="chbench-insert-")
                    with os.fdopen(fd, "wb") as f:
                        f.write(ins.group(3).encode("utf-8"))
                    try:
                        r = s.query("%s FROM INFILE '%s' FORMAT %s" % (ins.group(1), tmp, ins.group(2)), fmt)
                    finally:
                        os.unlink(tmp)
                    send({"id": rid, "ok": True, "elapsed": float(r.elapsed()), "result_rows": num(r.rows_read),
                          "result_bytes": num(r.bytes_read)}, result_bytes(r)[1])
                    return
                if USE_DEFAULT_RE.match(sql):
                    q = "USE %s" % sess.conn.home
                elif sess.params and not m and not USE_RE.match(sql):
                    q = "; ".join(list(sess.params.values()) + [sql])
                if m and DEFAULT_RE.match(sql):
                    # 1.x ignores SET k = DEFAULT (settings outlive their statement): restore the value
                    # read before this host first changed it, if it did.
                    old = sess.conn.defaults.get(m.group(1))
                    if old is None:
                        send({"id": rid, "ok": True, "elapsed": 0.0, "result_rows": 0, "result_bytes": 0})
                        return
                    q = "SET %s = '%s'" % (m.group(1), old.replace("\\", "\\\\").replace("'", "\\'"))
                elif m and m.group(1) not in sess.conn.defaults and not m.group(1).startswith("param_"):
                    got = s.query("SELECT toString(getSetting('%s'))" % m.group(1), "TabSeparatedRaw")
                    sess.conn.defaults[m.group(1)] = bytes(result_bytes(got)[1]).decode().rstrip("\n")
            r = s.query(q, fmt)
            if hasattr(r, "has_error") and r.has_error():
                raise RuntimeError(r.error_message())
            _keep, body = result_bytes(r)
            if len(body) > MAX_RESULT_BYTES:
                send({"id": rid, "ok": False, "error": (
                    "Code: 396. DB::Exception: the result is %d bytes, more than the %d bytes the chbench python host "
                    "passes buffered (chdb %s cannot stream%s; raise --max-result-bytes or limit the result). "
                    "(TOO_MANY_ROWS_OR_BYTES)" % (len(body), MAX_RESULT_BYTES, CHDB_VERSION,
                                                  " this statement" if HAS_STREAM else " at all"))})
                return
            h = {"id": rid, "ok": True, "elapsed": float(r.elapsed()),
                 "result_rows": num(r.rows_read), "result_bytes": num(r.bytes_read)}
            if hasattr(r, "storage_rows_read"):
                sr, sb = num(r.storage_rows_read), num(r.storage_bytes_read)
                if sr is not None and sb is not None:
                    h["storage_rows_read"], h["storage_bytes_read"] = sr, sb
            send(h, body)
        except Exception as e:  # noqa: BLE001
            send({"id": rid, "ok": False, "error": error_text(e)})

    sess.conn.submit(run)


class Stream:
    def __init__(self, window):
        self.credit = window
        self.cancelled = False
        self.cv = threading.Condition()

    def ack(self, n):
        with self.cv:
            self.credit += n
            self.cv.notify()

    def cancel(self):
        with self.cv:
            self.cancelled = True
            self.cv.notify()


def do_stream(rid, sess, sql, fmt, window):
    st = streams[rid] = Stream(window)

    def run(s):
        t0 = time.monotonic()
        res = None
        try:
            res = s.send_query(sql, fmt)
            while True:
                with st.cv:
                    while st.credit <= 0 and not st.cancelled:
                        st.cv.wait()
                    if st.cancelled:
                        break
                    st.credit -= 1
                chunk = res.fetch()
                if chunk is None:
                    break
                rows = num(chunk.rows_read)
                if rows == 0:
                    break
                _keep, data = result_bytes(chunk)
                send({"id": rid, "chunk": True, "rows": rows or 0}, data)
            if st.cancelled:
                try:
                    res.cancel()
                except Exception:  # noqa: BLE001
                    pass
                send({"id": rid, "ok": False, "error": "Code: 394. DB::Exception: Query was cancelled. (QUERY_WAS_CANCELLED)"})
            else:
                send({"id": rid, "ok": True, "end": True, "elapsed": time.monotonic() - t0})
        except Exception as e:  # noqa: BLE001
            if res is not None:
                try:
                    res.cancel()
                except Exception:  # noqa: BLE001
                    pass
            send({"id": rid, "ok": False, "error": error_text(e)})
        finally:
            streams.pop(rid, None)

    sess.conn.submit(run)


def _ident(name):
    return "`%s`" % name.replace("\\", "\\\\").replace("`", "\\`")


def do_insert(rid, sess, h, body):
    """Raw insert through Session.send_insert (chdb-core 26.x): the rows as bytes, the engine's counts back."""

    def run(s):
        try:
            cols = h.get("columns")
            table = ".".join(_ident(p) for p in h["table"].split("."))
            sql = "INSERT INTO %s%s" % (table, " (%s)" % ", ".join(_ident(c) for c in cols) if cols else "")
            ins = s.send_insert(sql, h["format"])
            try:
                if body:
                    ins.append(body)
                r = ins.finish()
            except Exception:
                try:
                    ins.cancel()
                except Exception:  # noqa: BLE001
                    pass
                raise
            send({"id": rid, "ok": True, "rows_written": int(r.rows_written), "bytes_written": int(r.bytes_written),
                  "elapsed": float(r.elapsed)})
        except Exception as e:  # noqa: BLE001
            send({"id": rid, "ok": False, "error": error_text(e)})

    sess.conn.submit(run)


def do_close(rid, sid):
    sess = sessions.pop(sid, None)
    if sess is None:
        send({"id": rid, "ok": True})
        return
    sess.conn.users -= 1
    if SHARED_CONNECTION and sess.conn.users > 0:
        def reset(s):
            for k in sess.touched:
                try:
                    s.query("SET %s = DEFAULT" % k, "TSV")
                except Exception:  # noqa: BLE001
                    pass
            if sess.used_db:
                try:
                    s.query("USE %s" % sess.conn.home, "TSV")
                except Exception:  # noqa: BLE001
                    pass
            send({"id": rid, "ok": True})

        sess.conn.submit(reset)
        return
    if SHARED_CONNECTION:
        conns.pop(sess.conn.path, None)
    done = sess.conn

    def fin(s):
        try:
            if hasattr(s, "close"):
                s.close()
        finally:
            send({"id": rid, "ok": True})
            done.jobs.put(None)

    done.submit(fin)


def hello():
    # version() on a throw-away engine in a temporary directory: the data path is not opened before
    # the server has checked that this engine may open it (data directories must never downgrade).
    d = tempfile.mkdtemp(prefix="chbench-host-")
    try:
        s = chdb_session.Session(d)
        try:
            ver = bytes(result_bytes(s.query("SELECT version()", "TSV"))[1]).decode().strip()
        finally:
            if hasattr(s, "close"):
                s.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return {
        "chdb": CHDB_VERSION,
        "clickhouse": ver,
        "python": sys.version.split()[0],
        "features": {"send_query": HAS_STREAM, "send_insert": HAS_INSERT, "shared_connection": SHARED_CONNECTION,
                     "max_result_bytes": MAX_RESULT_BYTES},
    }


def main():
    log("chdb %s loaded (python %s)" % (CHDB_VERSION, sys.version.split()[0]))
    while True:
        fr = read_frame()
        if fr is None:
            log("stdin closed: exit")
            break
        h, payload = fr
        rid = h.get("id")
        op = h.get("op")
        try:
            if op == "hello":
                send(dict({"id": rid, "ok": True}, **hello()))
            elif op == "open":
                send({"id": rid, "ok": True, "session": open_session(h["path"])})
            elif op == "query":
                do_query(rid, sessions[h["session"]], payload.decode("utf-8"), h["format"])
            elif op == "stream":
                if not HAS_STREAM:
                    raise RuntimeError("chdb %s has no send_query (no streaming)" % CHDB_VERSION)
                do_stream(rid, sessions[h["session"]], payload.decode("utf-8"), h["format"], int(h.get("window", 4)))
            elif op == "ack":
                st = streams.get(rid)
                if st:
                    st.ack(int(h.get("n", 1)))
            elif op == "cancel":
                st = streams.get(rid)
                if st:
                    st.cancel()
            elif op == "insert":
                if not HAS_INSERT:
                    raise RuntimeError("chdb %s has no send_insert (no raw insert)" % CHDB_VERSION)
                do_insert(rid, sessions[h["session"]], h, payload)
            elif op == "close":
                do_close(rid, h["session"])
            else:
                raise RuntimeError("unknown op %r" % op)
        except Exception as e:  # noqa: BLE001
            send({"id": rid, "ok": False, "error": error_text(e)})
    os._exit(0)


if __name__ == "__main__":
    main()
