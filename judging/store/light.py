"""What ``relkit judge`` shows first, read with the standard library's ``sqlite3``.

Importing the store (SQLAlchemy, SQLModel, the table classes) takes most of a second;
the topic list does not need it. :class:`LightReader` reads the assessors, the scale
and one assessor's topics from a SQLite file opened read-only (``mode=ro``: reading
never writes), with the same queries the store makes, so the first screen can be drawn
while the store is imported in the background (:mod:`relkit.judging.tui.start`). The
topics are the store's own values (:class:`relkit.judging.store.outputs.TopicOut`, a
standard-library dataclass).

It reads only a database the store would open as it is: a plain SQLite path (not a
URL), at this relkit's schema revision (:func:`relkit.judging.store.revisions.head`, the
revision the store checks against), with one collection. Anything else (PostgreSQL, an
older or newer revision, a missing table, a file that is not a database) makes
:meth:`LightReader.open` return ``None``, and the caller takes the store's path, which
says what is wrong (or upgrades) as it always has. tests/test_light_reader.py checks
that every value here equals the store's.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from relkit.corpora.types import Grade, RelevanceScale
from relkit.judging.store.outputs import TopicOut
from relkit.judging.store.revisions import head
from relkit.pooling.pool import natural

# The same as relkit.judging.store.connection's (which imports SQLAlchemy); a test checks.
DEFAULT_DB = "relkit.db"
ENV_VAR = "RELKIT_DB"

# The tables the first screen reads: a database without one of them is left to the store.
TABLES = frozenset({"alembic_version", "collection", "scale_grade", "topic", "assessor",
                    "assignment", "assignment_item", "judgment"})


def sqlite_file(db: str | os.PathLike[str] | None) -> str | None:
    """The SQLite file ``--db`` / ``$RELKIT_DB`` / the default names, as the store resolves
    it (``connection.resolve_url``); ``None`` for a URL (PostgreSQL, ``sqlite:///``)."""
    raw = os.fspath(db) if db is not None else os.environ.get(ENV_VAR) or DEFAULT_DB
    if "://" in raw:
        return None
    return str(Path(raw).expanduser().resolve())


class LightReader:
    """A read-only ``sqlite3`` connection to a current relkit database. Build with :meth:`open`."""

    def __init__(self, conn: sqlite3.Connection, path: str, collection: tuple[int, str, int]):
        self.conn = conn
        self.path = path
        self.collection_id, self._scale_name, self._threshold = collection

    @classmethod
    def open(cls, db: str | os.PathLike[str] | None) -> LightReader | None:
        """The reader, or ``None`` if this database is the store's to open (see the module doc)."""
        path = sqlite_file(db)
        if path is None or not os.path.isfile(path) or os.path.getsize(path) == 0:
            return None
        try:
            conn = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=60,
                                   check_same_thread=False)
        except sqlite3.Error:
            return None
        try:
            conn.execute("PRAGMA busy_timeout = 60000")
            conn.execute("PRAGMA query_only = ON")
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not TABLES.issubset(tables):
                conn.close()
                return None
            rev = conn.execute("SELECT version_num FROM alembic_version").fetchone()
            collections = conn.execute(
                "SELECT id, scale_name, threshold FROM collection").fetchall()
            if rev is None or str(rev[0]) != head() or len(collections) != 1:
                conn.close()
                return None
        except sqlite3.Error:
            conn.close()
            return None
        return cls(conn, path, collections[0])

    def close(self) -> None:
        self.conn.close()

    def assessors(self, role: str | None = None, kind: str | None = None) -> list[str]:
        """As ``Database.assessors``: names, sorted, optionally of one role and kind."""
        where, args = [], []
        if role is not None:
            where.append("role = ?")
            args.append(role)
        if kind is not None:
            where.append("kind = ?")
            args.append(kind)
        sql = ("SELECT name FROM assessor" + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY name")
        return [r[0] for r in self.conn.execute(sql, args)]

    def person(self, name: str) -> tuple[str, str] | None:
        """(role, kind) of the assessor or lead called ``name`` (``who``'s lookup)."""
        row = self.conn.execute("SELECT role, kind FROM assessor WHERE name = ?",
                                (name,)).fetchone()
        return None if row is None else (row[0], row[1])

    def assessor_id(self, name: str) -> int | None:
        row = self.conn.execute("SELECT id FROM assessor WHERE name = ?", (name,)).fetchone()
        return None if row is None else int(row[0])

    def scale(self) -> RelevanceScale:
        """As ``Database.scale``: the collection's scale, every declared grade."""
        grades = self.conn.execute(
            "SELECT value, label, definition FROM scale_grade WHERE collection_id = ? "
            "ORDER BY value", (self.collection_id,))
        return RelevanceScale(self._scale_name, tuple(Grade(v, label, d)
                                                      for v, label, d in grades),
                              self._threshold)

    def topics(self, assessor_id: int) -> list[TopicOut]:
        """As ``AssessorView.topics``: the assessor's topics in natural key order, with
        progress and the assessor's own grade counts (the same queries)."""
        # One read snapshot for every count, as the store reads them in one transaction:
        # another session (relkit serve) committing between two SELECTs would otherwise
        # give a topic line whose counts do not add up.
        self.conn.execute("BEGIN")
        try:
            return self._topics(assessor_id)
        finally:
            self.conn.execute("ROLLBACK")   # nothing was written: ending the read

    def _topics(self, assessor_id: int) -> list[TopicOut]:
        c = self.conn
        # Outer join: an adaptive assignment starts with no items (its quota counts).
        assigned = {k: (t, a, n if quota is None else quota) for k, t, a, n, quota in c.execute(
            "SELECT topic.key, topic.id, assignment.id, count(assignment_item.id), "
            "assignment.quota FROM topic "
            "JOIN assignment ON assignment.topic_id = topic.id "
            "LEFT OUTER JOIN assignment_item ON assignment_item.assignment_id = assignment.id "
            "WHERE assignment.assessor_id = ? "
            "GROUP BY topic.key, topic.id, assignment.id, assignment.pool_id, "
            "assignment.quota, assignment.follows_id", (assessor_id,))}
        done = dict(c.execute(
            "SELECT assignment_item.assignment_id, count(*) FROM assignment_item "
            "JOIN assignment ON assignment.id = assignment_item.assignment_id "
            "WHERE assignment.assessor_id = ? AND assignment_item.done IS 1 "
            "GROUP BY assignment_item.assignment_id", (assessor_id,)).fetchall())
        counts: dict[int, dict[int, int]] = {}
        aside: dict[tuple[int, str], int] = {}
        for tid, status, grade, n in c.execute(
                "SELECT topic_id, status, grade, count(*) FROM judgment "
                "WHERE assessor_id = ? GROUP BY topic_id, status, grade", (assessor_id,)):
            if status == "judged":
                counts.setdefault(tid, {})[grade] = n
            else:
                aside[tid, status] = aside.get((tid, status), 0) + n
        ids = [t for t, _, _ in assigned.values()]
        rows = {}
        for i in range(0, len(ids), 500):  # SQLite's limit on bound parameters
            chunk = ids[i:i + 500]
            rows.update({r[0]: r[1:] for r in c.execute(
                "SELECT id, title, description, narrative FROM topic WHERE id IN "
                f"({', '.join('?' * len(chunk))})", chunk)})
        out = []
        for key in sorted(assigned, key=natural):
            tid, aid, total = assigned[key]
            title, description, narrative = rows[tid]
            out.append(TopicOut(key, title, description, narrative, total,
                                done.get(aid, 0), counts.get(tid, {}),
                                aside.get((tid, "skipped"), 0), aside.get((tid, "later"), 0)))
        return out
