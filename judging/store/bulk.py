"""Many rows written inside the caller's transaction, the fast way for each database.

Topics, documents and pool entries arrive by the million (``relkit init``, ``relkit
pool``, ``relkit import``); this is the one place that knows PostgreSQL's ``COPY`` and
SQLite's executemany. :mod:`.database` and the stores layered on it call it (importable
from :mod:`.database` too, as before).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, insert


def bulk_insert(conn: Connection, table: Any, rows: list[dict[str, Any]]) -> None:
    """Insert many rows inside the caller's transaction.

    PostgreSQL gets ``COPY ... FROM STDIN`` (psycopg 3), several times faster
    than batched INSERTs for a million pool entries; SQLite gets executemany.
    Either way the rows commit or roll back with the rest of the transaction.
    """
    if not rows:
        return
    t = table.__table__ if hasattr(table, "__table__") else table
    cols = list(rows[0])
    if conn.dialect.name == "postgresql":
        raw = conn.connection.dbapi_connection
        assert raw is not None
        names = ", ".join(f'"{c}"' for c in cols)
        with raw.cursor() as cur, cur.copy(  # type: ignore[attr-defined]
                f'COPY "{t.name}" ({names}) FROM STDIN') as copy:
            for r in rows:
                copy.write_row(tuple(r[c] for c in cols))
        return
    for i in range(0, len(rows), 20_000):
        conn.execute(insert(t), rows[i:i + 20_000])
