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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from relkit.corpora.types import Grade, RelevanceScale
from relkit.judging.store.errors import StoreError
from relkit.judging.store.outputs import ItemOut, TopicOut
from relkit.judging.store.revisions import head
from relkit.pooling.pool import natural

# The same as relkit.judging.store.connection's (which imports SQLAlchemy); a test checks.
DEFAULT_DB = "relkit.db"
ENV_VAR = "RELKIT_DB"

# The tables the first screen reads: a database without one of them is left to the store.
TABLES = frozenset({"alembic_version", "collection", "scale_grade", "topic", "assessor",
                    "assignment", "assignment_item", "judgment", "document"})

# AssessorView._item_query: an item with its document and this assessor's judgment.
ITEM_SQL = (
    "SELECT assignment_item.position, document.key, document.title, document.text, "
    "judgment.grade, judgment.status, judgment.note, judgment.flagged, judgment.version "
    "FROM assignment_item JOIN document ON document.id = assignment_item.document_id "
    "LEFT OUTER JOIN judgment ON judgment.assessor_id = ? AND judgment.topic_id = ? "
    "AND judgment.document_id = document.id "
    "WHERE assignment_item.assignment_id = ? AND assignment_item.position = ?")
# AssessorView.next_item's queue on a static pool: untouched items (no judgment), ...
FRESH_SQL = (
    "SELECT assignment_item.position FROM assignment_item "
    "LEFT OUTER JOIN judgment ON judgment.assessor_id = ? AND judgment.topic_id = ? "
    "AND judgment.document_id = assignment_item.document_id "
    "WHERE assignment_item.assignment_id = ? AND assignment_item.done IS 0 "
    "AND judgment.id IS NULL")
FRESH_ORDER = " ORDER BY assignment_item.position LIMIT 1"
# ... then the ones put off for later, in the order they were put off.
LATER_SQL = (
    "SELECT assignment_item.position FROM assignment_item "
    "JOIN judgment ON judgment.assessor_id = ? AND judgment.topic_id = ? "
    "AND judgment.document_id = assignment_item.document_id "
    "WHERE assignment_item.assignment_id = ? AND assignment_item.done IS 0 "
    "AND judgment.status = 'later' "
    "ORDER BY judgment.updated_at, judgment.id LIMIT 1")


@dataclass(frozen=True)
class Assignment:
    """One topic's assignment to the assessor (the store's ``Assigned``, as read here)."""

    topic_id: int
    assignment_id: int
    total: int
    adaptive: bool  # an adaptive pool: its next pick is the store's (the strategy)


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
        with self.snapshot():
            return self._topics(assessor_id)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees one state of the database (one read transaction)."""
        self.conn.execute("BEGIN")
        try:
            yield
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

    # -- the judging screen's reads (relkit.judging.tui.lightview), as AssessorView's --
    def assignment(self, assessor_id: int, topic: str) -> Assignment | None:
        """The assessor's assignment of ``topic`` (``None``: not assigned)."""
        row = self.conn.execute(
            "SELECT topic.id, assignment.id, count(assignment_item.id), assignment.quota "
            "FROM topic JOIN assignment ON assignment.topic_id = topic.id "
            "LEFT OUTER JOIN assignment_item ON assignment_item.assignment_id = assignment.id "
            "WHERE assignment.assessor_id = ? AND topic.key = ? "
            "GROUP BY topic.id, assignment.id, assignment.quota",
            (assessor_id, topic)).fetchone()
        if row is None:
            return None
        tid, aid, n, quota = row
        return Assignment(tid, aid, n if quota is None else quota, quota is not None)

    def item(self, assessor_id: int, topic: str, a: Assignment, position: int) -> ItemOut:
        """As ``AssessorView.item``."""
        row = self.conn.execute(ITEM_SQL, (assessor_id, a.topic_id, a.assignment_id,
                                           position)).fetchone()
        if row is None:
            raise StoreError(f"topic {topic!r} has no item {position} (1..{a.total})")
        pos, key, title, text, grade, status, note, flagged, version = row
        return ItemOut(topic, key, pos, a.total, title, text or "", grade, status, note or "",
                       bool(flagged), version or 0)

    def next_item(self, assessor_id: int, topic: str, a: Assignment,
                  after: int = 0) -> ItemOut | None:
        """As ``AssessorView.next_item`` on a static pool (an adaptive one's pick is the
        strategy's: the caller never asks here)."""
        assert not a.adaptive
        args = (assessor_id, a.topic_id, a.assignment_id)
        row = (self.conn.execute(FRESH_SQL + " AND assignment_item.position > ?" + FRESH_ORDER,
                                 (*args, after)).fetchone()
               or self.conn.execute(FRESH_SQL + FRESH_ORDER, args).fetchone()
               or self.conn.execute(LATER_SQL, args).fetchone())
        return None if row is None else self.item(assessor_id, topic, a, row[0])

    def progress(self, a: Assignment) -> tuple[int, int]:
        """As ``AssessorView.progress``: (judged, total)."""
        done = self.conn.execute(
            "SELECT count(*) FROM assignment_item WHERE assignment_id = ? AND done IS 1",
            (a.assignment_id,)).fetchone()[0]
        return int(done), a.total

    def skipped(self, assessor_id: int, a: Assignment) -> int:
        """As ``AssessorView.skipped``."""
        return int(self.conn.execute(
            "SELECT count(*) FROM assignment_item JOIN judgment ON judgment.assessor_id = ? "
            "AND judgment.topic_id = ? AND judgment.document_id = assignment_item.document_id "
            "WHERE assignment_item.assignment_id = ? AND judgment.status = 'skipped'",
            (assessor_id, a.topic_id, a.assignment_id)).fetchone()[0])
