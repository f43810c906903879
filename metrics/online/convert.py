"""Write a click log in the long form as Parquet; read the Yandex challenge's text format.

Both write to a temporary file beside the output and rename it when complete: the
output is there whole or not at all, and bad input raises before anything is renamed.

The Yandex Relevance Prediction Challenge (WSCD 2011) log is tab-separated text, one
action per line, in session order::

    SessionID  TimePassed  Q  SERPID  QueryID  RegionID  URLID_1 ... URLID_n
    SessionID  TimePassed  C  SERPID  URLID
    SessionID  M  Day  UserID                    (optional metadata, as in the 2013
                                                  Personalized Web Search Challenge)

(``--no-region``: Q records without the RegionID; a URL field ``URLID,DomainID`` keeps
the URL.) Each Q record is an impression, ``impression_id = SessionID/SERPID``; a result
is ``clicked`` as many times as C records name it on that SERP; ``ts`` is the Q record's
TimePassed, ``click_ts`` the first click's; ``dwell_s`` is the time from that click to the
session's next action (none after the session's last action). Times stay in the log's
own units.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.errors import FormatError, InputError
from relkit.metrics.online.duck import _sq, connect
from relkit.metrics.online.source import LogSource

if TYPE_CHECKING:
    import duckdb


def _copy(con: duckdb.DuckDBPyConnection, select: str, output: str | Path) -> int:
    """``COPY (select) TO output`` through a temporary file; the rows written."""
    import duckdb

    out = str(output)
    tmp = f"{out}.tmp{os.getpid()}"
    try:
        con.execute(f"COPY ({select}) TO '{_sq(tmp)}' (FORMAT parquet, COMPRESSION zstd)")
        (n,) = con.execute(f"SELECT count(*) FROM read_parquet('{_sq(tmp)}')").fetchone() or (0,)
        os.replace(tmp, out)
    except duckdb.Error as exc:
        raise FormatError(out, None, "a writable Parquet file", str(exc).splitlines()[0]
                          ) from None
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return int(n)


def write_long(log: LogSource, output: str | Path) -> int:
    """Write ``log`` (any form) as long-form Parquet, canonical columns, file order.

    Values are checked first (:meth:`LogSource.check`): a value that does not convert
    raises :class:`FormatError` and nothing is written. Returns the rows written.
    """
    log.check()
    cols = ", ".join(log.fields)
    return _copy(log.con, f"SELECT {cols} FROM {log.view} ORDER BY _row, rank", output)


def from_yandex(path: str | Path, output: str | Path, *,
                con: duckdb.DuckDBPyConnection | None = None, region: bool = True) -> int:
    """Convert a Yandex challenge log (see the module) to long-form Parquet at ``output``.

    Raises :class:`FormatError` naming ``path:line`` for a line that is not a Q, C or M
    record of the documented form, a TimePassed that is not an integer, or a click on a
    URL its SERP did not show; nothing is written then. Returns the rows written.
    """
    import duckdb

    src = str(path)
    if not os.path.isfile(src):
        raise InputError(f"{src}: no such file" if not os.path.exists(src)
                         else f"{src}: is a directory, not a file")
    con = con if con is not None else connect()
    urls_from = 7 if region else 6  # 1-based index of the first URL field
    try:
        # One VARCHAR per line (no quoting, no delimiter: \x01 never occurs), numbered.
        con.execute(f"CREATE TEMP TABLE ya_lines AS SELECT string_split(line, '\t') AS f "
                    f"FROM read_csv('{_sq(src)}', columns = {{'line': 'VARCHAR'}}, "
                    f"header = false, delim = '\x01', quote = '', escape = '', "
                    f"auto_detect = false)")
        con.execute("CREATE TEMP VIEW ya AS SELECT rowid + 1 AS line, f, len(f) AS n, "
                    "f[1] AS session, f[2] AS t2, f[3] AS kind FROM ya_lines")
        bad = con.execute(
            f"SELECT line, CASE WHEN t2 = 'M' THEN n < 4 "
            f"WHEN kind = 'Q' THEN n < {urls_from} "
            f"WHEN kind = 'C' THEN n < 5 ELSE true END AS shape, "
            f"kind IN ('Q', 'C') AND TRY_CAST(t2 AS BIGINT) IS NULL AS time "
            f"FROM ya WHERE shape OR time ORDER BY line LIMIT 1").fetchall()
        if bad:
            line, shape, _ = bad[0]
            what = (f"a Q record (SessionID TimePassed Q SERPID QueryID "
                    f"{'RegionID ' if region else ''}URLs...), a C record (SessionID "
                    "TimePassed C SERPID URLID) or an M record (SessionID M Day UserID)"
                    if shape else "an integer TimePassed in field 2")
            found = con.execute(f"SELECT array_to_string(f, ' | ') FROM ya WHERE line = "
                                f"{int(line)}").fetchone()
            # A line of nothing but the \x01 read_csv splits on is NULL: nothing to quote.
            raise FormatError(src, int(line), what, repr(((found or (None,))[0] or "")[:80]))
        con.execute(
            f"CREATE TEMP TABLE ya_q AS SELECT line, session, CAST(t2 AS BIGINT) AS ts, "
            f"f[4] AS serp, f[5] AS query_id, "
            f"split_part(unnest(f[{urls_from}:]), ',', 1) AS doc_id, "
            f"unnest(range(1, n - {urls_from} + 2)) AS rank FROM ya WHERE kind = 'Q'")
        # dwell: from a click to the session's next action, in file order.
        con.execute(
            "CREATE TEMP TABLE ya_c AS SELECT * FROM (SELECT line, session, kind, "
            "CAST(t2 AS BIGINT) AS t, f[4] AS serp, split_part(f[5], ',', 1) AS doc_id, "
            "lead(CAST(t2 AS BIGINT)) OVER (PARTITION BY session ORDER BY line) - "
            "CAST(t2 AS BIGINT) AS dwell FROM ya WHERE kind IN ('Q', 'C')) WHERE kind = 'C'")
        orphan = con.execute(
            "SELECT c.line, c.doc_id, c.serp FROM ya_c c ANTI JOIN ya_q q "
            "ON c.session = q.session AND c.serp = q.serp AND c.doc_id = q.doc_id "
            "ORDER BY c.line LIMIT 1").fetchall()
        if orphan:
            line, doc, serp = orphan[0]
            raise FormatError(src, int(line), f"a click on a URL shown on SERP {serp!r}",
                              f"URL {doc!r}, not on that SERP")
        (has_m,) = con.execute("SELECT count(*) FROM ya WHERE t2 = 'M'").fetchone() or (0,)
        users = ("LEFT JOIN (SELECT session, any_value(f[4]) AS user_id FROM ya "
                 "WHERE t2 = 'M' GROUP BY session) m ON m.session = q.session"
                 if has_m else "")
        select = (
            "SELECT q.session || '/' || q.serp AS impression_id, q.query_id, q.rank, "
            "q.doc_id, coalesce(c.clicks, 0) AS clicked, "
            f"{'m.user_id, ' if has_m else ''}q.session AS session_id, "
            "CAST(q.ts AS DOUBLE) AS ts, CAST(c.first_t AS DOUBLE) AS click_ts, "
            "CAST(c.dwell AS DOUBLE) AS dwell_s FROM ya_q q "
            "LEFT JOIN (SELECT session, serp, doc_id, count(*) AS clicks, min(t) AS first_t, "
            "arg_min(dwell, line) AS dwell FROM ya_c GROUP BY ALL) c "
            "ON q.session = c.session AND q.serp = c.serp AND q.doc_id = c.doc_id "
            f"{users} ORDER BY q.line, q.rank")
    except duckdb.Error as exc:
        raise FormatError(src, None, "a readable tab-separated text file",
                          str(exc).strip().splitlines()[0]) from None
    return _copy(con, select, output)
